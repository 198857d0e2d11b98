"""The text tables of the command line: ``describe``'s rows of the bound (bytes, FLOPs, times,
the serving figures, the images, video and audio in the prompt), the engine's allocation and
the forecast under the bound, each as (label, value) rows rendered in two aligned columns, and
the keys each row prints (``--explain all``). Numbers are formatted here in the units people
quote (GB, GiB, ms, tokens/s); the package's own are B, s and token/s.

>>> print(render([("weights", "13.5 GB"), ("KV cache per token", "512 KiB")]))
weights             13.5 GB
KV cache per token  512 KiB
"""
from __future__ import annotations

import math
import re
from typing import Any, Sequence

__all__ = ["ENGINE_ROW_KEYS", "ROW_KEYS", "STATE_MATRIX_LABEL", "engine_table",
           "engine_printed_keys", "image_rows", "printed_keys", "forecast_where_it_fits",
           "forecast_table", "print_columns", "label_width", "render", "table_rows",
           "unfit_text", "tokens_text", "seconds_text"]

#: The engine table's rows (label without its indent) and the keys of the numbers each prints
#: (:func:`llm_arithmetic.explain.engine_key_steps`): what ``--explain all`` explains.
ENGINE_ROW_KEYS = {
    "weights as loaded": ("engine_weights_bytes",),
    "of which the draft's": ("engine_draft_weights_bytes",),
    "reserve (activations, graphs, buffers)": ("engine_reserved_bytes",),
    "cache pool memory": ("engine_kv_memory_bytes",),
    "KV cache per token (this chip)": ("engine_kv_bytes_per_token",),
    "of which the draft's layers": ("engine_draft_kv_bytes_per_token",),
    "KV cache allocated": ("engine_kv_cache_bytes",),
    "KV cache tokens": ("engine_kv_cache_tokens",),
    "recurrent state allocated": ("engine_state_bytes",),
    "attention block size (hybrid)": ("engine_block_tokens",),
    "state page, padded to": ("engine_state_page_bytes", "engine_page_bytes"),
    "pool blocks, KV cache groups": ("engine_pool_blocks", "engine_kv_groups"),
    "KV capacity, engine's formats, no reserve": ("physics_kv_tokens",),
    "max concurrency at max-model-len": ("max_concurrency",),
}


def _engine_rows(v: Any, reserve_given: bool = False) -> list[tuple[str, str]]:
    """The engine view's rows; the reserve is said to be the engine's empirical figure unless
    the caller gave it (``--engine-reserve-gib``: ``reserve_given``)."""
    from ..core.units import GiB

    gib = lambda b: "-" if b is None else f"{b / GiB:,.2f} GiB"  # noqa: E731
    return [(f"engine: {v.engine} (one chip of tp={v.tp}, pp={v.pp})", ""),
            ("  weights as loaded", gib(v.engine_weights_bytes)),
            *([("    of which the draft's", gib(v.engine_draft_weights_bytes))]
              if v.engine_draft_weights_bytes is not None else []),
            ("  reserve (activations, graphs, buffers)",
             gib(v.engine_reserved_bytes) + ("" if v.engine_reserved_bytes is None
                                             else " (given)" if reserve_given
                                             else " (empirical)")),
            *([("  cache pool memory", gib(v.engine_kv_memory_bytes) + (
                " (below zero: the weights and reserve exceed the engine's share of the "
                "memory; it would not start)" if v.engine_kv_memory_bytes < 0 else ""))]
              if v.engine_kv_memory_bytes is not None else []),
            ("  KV cache per token (this chip)", f"{v.engine_kv_bytes_per_token:,.0f} B"),
            *([("    of which the draft's layers",
                f"{v.engine_draft_kv_bytes_per_token:,.0f} B (their pages in the same pool)")]
              if v.engine_draft_kv_bytes_per_token is not None else []),
            ("  KV cache allocated", gib(v.engine_kv_cache_bytes)),
            ("  KV cache tokens", f"{v.engine_kv_cache_tokens:,}"),
            *([("  recurrent state allocated", gib(v.engine_state_bytes))]
              if v.engine_state_bytes else []),
            *([("  attention block size (hybrid)", f"{v.engine_block_tokens:,} tokens"),
               ("  state page, padded to", f"{v.engine_state_page_bytes:,} B, "
                                           f"{v.engine_page_bytes:,} B"),
               ("  pool blocks, KV cache groups", f"{v.engine_pool_blocks:,}, "
                                                  f"{v.engine_kv_groups}")]
              if v.engine_block_tokens is not None else []),
            *([("  KV capacity, engine's formats, no reserve",
                f"{v.physics_kv_tokens:,} tokens")] if v.physics_kv_tokens is not None else []),
            *([("  max concurrency at max-model-len", f"{v.max_concurrency:,.2f}x")]
              if v.max_concurrency is not None else []),
            ("  windowed layers", "counted whole" if v.windowed_layers_whole
             else "their window and a micro-batch")]


def engine_table(v: Any, reserve_given: bool = False) -> str:
    """The engine's table (``describe --engine``): what the engine view ``v``
    (:class:`~llm_arithmetic.engine.EngineView`) allocates on one chip, as aligned rows;
    ``reserve_given``: the reserve is the one the user gave (``--engine-reserve-gib``)."""
    return render(_engine_rows(v, reserve_given))


def engine_printed_keys(v: Any) -> list[str]:
    """The keys of the numbers the engine's table prints, in its order (``--explain all``)."""
    keys = [k for label, _ in _engine_rows(v) for k in ENGINE_ROW_KEYS.get(label.strip(), ())]
    return [k for k in keys if getattr(v, k) is not None]


def seconds_text(seconds: Any) -> str:
    """A clip's length, or several clips' lengths, as the tables show them.

    >>> seconds_text(10), seconds_text((10, 2.5, 5))
    ('10 s', '10 + 2.5 + 5 s (3 clips)')
    """
    if isinstance(seconds, (tuple, list)):
        return " + ".join(f"{s:g}" for s in seconds) + f" s ({len(seconds)} clip" + (
            "s)" if len(seconds) != 1 else ")")
    return f"{seconds:g} s"


def image_rows(e: Any, m: Any = None) -> list[tuple[str, str]]:
    """The table's rows of the images and the video in the prompt (none without either).
    A cross-attention model's images (Llama 3.2 Vision, ``e.image_states`` set) show the
    tower's padded tiles (of ``m``'s image rule, where the model is given), the states its
    cross-attention layers read and cache, and those layers' key and value projections apart
    from the tower's FLOPs: they run in the language model, once a sequence."""
    if e.images is None and e.video_seconds is None and e.audio_tokens is None:
        return []
    rows = []
    cross = getattr(e, "image_states", None) is not None
    if e.audio_tokens is not None:
        clips = " + ".join(([seconds_text(e.audio_seconds)] if e.audio_seconds is not None
                            else []) + (["the video's audio track"] if e.video_audio else []))
        rows += [("audio in the prompt", f"{clips}, {e.audio_frames:,} mel "
                                         f"frames, {e.audio_tokens:,} tokens (prompt: "
                                         f"{e.prompt:,})"),
                 ("audio encoder FLOPs", f"{e.audio_prefill_flops / 1e12:,.3f} TFLOP")]
        if e.audio_prefill_seconds is not None:
            rows.append(("audio encoder time (in TTFT)",
                         f"{e.audio_prefill_seconds * 1e3:,.3f} ms"))
        if e.images is None and e.video_seconds is None:
            return rows
    if e.images is not None:
        w, h = e.image_size
        tower = f"{e.vision_patches_per_image:,} patches"
        if cross:  # every image padded to the rule's tiles, not patches of the image's own
            tiles = _tower_tiles(m)
            tower = f"{e.vision_patches_per_image:,} tokens" + (
                f", {tiles} tiles x {e.vision_patches_per_image // tiles:,} with padding"
                if tiles else "")
        rows += [("images in the prompt", f"{e.images:,} of {w} x {h} px"),
                 ("tokens per image", f"{e.image_tokens_per_image:,} (tower: {tower})"),
                 ("image tokens in the prompt", f"{e.image_tokens:,} (prompt: {e.prompt:,})")]
        if cross:
            rows += [("image states (cross-attention reads)", f"{e.image_states:,}"),
                     ("images' keys and values (cached once)", _fmt_b(e.image_kv_bytes))]
    if e.video_seconds is not None:
        w, h = e.video_size
        rows += [("video in the prompt", f"{e.video_seconds:g} s of {w} x {h} px, "
                                         f"{e.video_frames:,} frames at {e.video_fps:g} fps"),
                 ("video tokens in the prompt", f"{e.video_tokens:,} (tower: "
                                                f"{e.video_patches:,} patches; prompt: "
                                                f"{e.prompt:,})")]
        if e.video_separator_tokens and e.video_audio:
            rows.append(("video's audio markers (bos, eos)",
                         f"{e.video_separator_tokens:,} tokens"))
        elif e.video_separator_tokens:
            rows.append(("video timestamps and delimiters",
                         f"{e.video_separator_tokens:,} tokens"))
    if cross:
        tower_flops = e.vision_prefill_flops - e.cross_kv_flops
        rows += [("vision tower and cross K/V FLOPs", f"{e.vision_prefill_flops / 1e12:,.3f} "
                                                      "TFLOP"),
                 ("  of which vision tower", f"{tower_flops / 1e12:,.3f} TFLOP"),
                 ("  of which cross-attention keys and values (once)",
                  f"{e.cross_kv_flops / 1e12:,.3f} TFLOP")]
    else:
        rows.append(("vision tower FLOPs", f"{e.vision_prefill_flops / 1e12:,.3f} TFLOP"))
    rows.append(("vision tower weights", _fmt_b(e.vision_weight_bytes)))
    if e.vision_prefill_seconds is not None:
        rows.append(("vision tower and cross K/V time (in TTFT)" if cross
                     else "vision tower time (in TTFT)",
                     f"{e.vision_prefill_seconds * 1e3:,.3f} ms"))
    return rows


def _tower_tiles(m: Any) -> int | None:
    """The tiles a cross-attention model's tower runs for every image (its image rule's
    ``max_tiles``, padded ones included); None without the model."""
    if m is None:
        return None
    from ..catalog.images import image_tower

    return image_tower(m)[1].max_tiles


#: The table's row under the state: the recurrent matrices' share and their bits.
STATE_MATRIX_LABEL = "  of which recurrent matrices"


#: The table's rows (label, without "one chip: " and a precision in parentheses) and the key
#: of each: what ``--explain all`` explains, in the table's order. Rows not here are inputs.
ROW_KEYS = {
    "weights": "bits_weight", "attended context (windows)": "attended_context",
    "attended context (windows, selected)": "attended_context",
    "attended rows (window, compressed)": "attended_context",
    "parameters (total)": "params_total", "parameters (active per token)": "params_active",
    "parameters in matrix products": "params_matmul", "weight bytes": "weight_bytes",
    "KV cache per token": "kv_cache_bytes_per_token",
    "KV cache (context x batch)": "kv_cache_bytes",
    "KV cache if no layer were windowed": "kv_cache_bytes_full_storage",
    "state-space state (batch)": "state_bytes", STATE_MATRIX_LABEL: "state_matrix_bytes",
    "bytes read per token (1 sequence)": "decode_bytes_per_token",
    "FLOPs per token": "decode_flops_per_token", "bandwidth": "bandwidth",
    "dense peak": "peak_flops", "attention's peak": "attention_peak_flops",
    "memory time per step": "decode_memory_seconds",
    "compute time per step": "decode_compute_seconds",
    "time per token (lower bound)": "decode_seconds_per_token",
    "tokens/s per sequence (upper bound)": "decode_tokens_per_second",
    "tokens/s, whole batch": "throughput_tokens_per_second",
    "speculation": "spec_tokens_per_step", "  draft held in memory": "draft_memory_bytes",
    "tokens/s per sequence, speculative (bound)": "speculative_tokens_per_second",
    "ops:byte of the chip": "ops_per_byte", "critical batch size": "critical_batch_size",
    "fits in memory": "memory_required_bytes", "max batch at this context": "max_batch",
    "max context at this batch": "max_context",
    "scale-up link": "scale_up_bandwidth", "scale-out link": "scale_out_bandwidth",
    "memory per chip": "memory_per_chip_bytes",
    "  weights per chip": "weight_bytes_per_chip",
    "max batch on the replica": "max_batch_per_replica",
    "time to first token (bound)": "ttft_seconds", "time per output token (bound)":
        "tpot_seconds", "  serialized sum (not a bound)": "tpot_serialized_seconds",
    "  all-reduces": "allreduce_seconds_per_token",
    "  all-to-alls": "alltoall_seconds_per_token", "request (bound)": "request_seconds",
    "  all-gathers": "allgather_seconds_per_token",
    "tokens/s per user": "tokens_per_second_per_user",
    "tokens/s per chip": "tokens_per_second_per_chip",
    "time per output token, speculative": "speculative_tpot_seconds",
    "tokens/s per chip, speculative": "speculative_tokens_per_second_per_chip",
    "cost per million tokens": "cost_per_million_tokens",
    "energy per token": "energy_joules_per_token",
    "request, speculative": "speculative_request_seconds",
    "cost per million tokens, speculative": "speculative_cost_per_million_tokens",
    "energy per token, speculative": "speculative_energy_joules_per_token",
    "  tokens/s per sequence": "expected_decode_tokens_per_second",
    "  time to first token": "expected_ttft_seconds",
    "  time per output token": "expected_tpot_seconds",
    "  tokens/s per chip": "expected_tokens_per_second_per_chip",
    "images in the prompt": "images", "tokens per image": "image_tokens_per_image",
    "image tokens in the prompt": "image_tokens", "vision tower FLOPs": "vision_prefill_flops",
    "video tokens in the prompt": "video_tokens",
    "vision tower weights": "vision_weight_bytes",
    "vision tower time (in TTFT)": "vision_prefill_seconds",
    "image states (cross-attention reads)": "image_states",
    "images' keys and values (cached once)": "image_kv_bytes",
    "vision tower and cross K/V FLOPs": "vision_prefill_flops",
    "vision tower and cross K/V time (in TTFT)": "vision_prefill_seconds",
    "audio encoder FLOPs": "audio_prefill_flops",
    "audio encoder time (in TTFT)": "audio_prefill_seconds",
}


def _row_label(label: str) -> str:
    """A row's label as :data:`ROW_KEYS` names it."""
    return re.sub(r" \([\w-]+\)$", "", label.replace("one chip: ", "")) \
        if label.lstrip().startswith(("dense peak", "attention's peak", "one chip: ")) else label


def printed_keys(e: Any, x: dict[str, Any], serving: bool) -> list[str]:
    """The keys of the quantities the table prints, in its order (``--explain all``)."""
    rows = table_rows(e, serving) + image_rows(e)
    if x["expected_decode_tokens_per_second"] is not None:
        rows += _forecast_rows(x, serving, e.fits, e.fits_per_chip,
                               without=(e.fits_without_draft, e.fits_per_chip_without_draft))
    keys = [ROW_KEYS.get(_row_label(label)) for label, _ in rows]
    return list(dict.fromkeys(k for k in keys if k is not None))


def forecast_where_it_fits(x: dict[str, Any], e: Any) -> dict[str, Any]:
    """The forecast keys as ``--json`` prints them: null (with their ranges) where the table
    says "does not fit in memory" instead of a speed, the decode forecast by the one chip's fit
    (``e.fits``), the others by the replica's (``e.fits_per_chip``). A forecast is of a run, and
    no run of such a setup exists; the bound keys keep their numbers beside the fit flags (they
    are the arithmetic of the setup, not a speed anyone is told to expect)."""
    from ..forecast import EXPECTED_KEYS

    out = dict(x)
    for key in EXPECTED_KEYS:
        fits = e.fits if key == "expected_decode_tokens_per_second" else e.fits_per_chip
        if fits is False:
            out[key] = out[key + "_range"] = None
    return out


def forecast_table(x: dict[str, Any], serving: bool, fits: bool | None = None,
                    fits_per_chip: bool | None = None, width: int = 0,
                    speculative: bool = False,
                    without: tuple[bool | None, bool | None] = (None, None)) -> str:
    """The forecast under the bound, with its 80% interval; like the bound's rows, a setup that
    does not fit in memory (``fits``; the replica's rows ``fits_per_chip``) is said to, not given
    a speed (in the JSON the bound's keys keep their numbers beside the fit flags, the forecast's
    are null: :func:`forecast_where_it_fits`). The values start
    at ``width`` (the bound's table's column) or after the longest label, whichever is later;
    the heading has no value and does not count. With speculative decoding the forecast is
    of the speculative step, and its heading says so: it is to be read against the
    speculative bounds, not the plain ones above it. ``without``: whether the target alone fits
    on the chip and on the replica where a draft is held (:func:`unfit_text`)."""
    rows = _forecast_rows(x, serving, fits, fits_per_chip, speculative, without)
    return render(rows, max(width, label_width([r for r in rows[1:] if r[1]])))


def _forecast_rows(x: dict[str, Any], serving: bool, fits: bool | None,
                   fits_per_chip: bool | None, speculative: bool = False,
                   without: tuple[bool | None, bool | None] = (None, None)
                   ) -> list[tuple[str, str]]:
    """:func:`forecast_table`'s rows: its heading (and, where ``x`` has a batch or chips
    beyond one, a line saying the decode terms are extrapolated there), then (label, value)
    pairs; with a replica, the speed of one sequence is one chip's, as in the bound's rows."""
    who = f"with {x['runtime']}" if x["runtime"] else "any runtime"
    if x.get("build_date"):  # an older build pays the build drift (forecast.expected)
        who += f", build of {x['build_date']}"
    rows = [(f"forecast ({who}; 80% interval)"
             + (", of the speculative step (against the speculative bounds)" if speculative
                else ""), "")]
    if x.get("forecast_caveat"):  # terms the runtime has no rows for on this chip's class
        rows.append((f"  ({x['forecast_caveat']})", ""))
    # the decode terms are fitted to single streams on one chip (forecast.expected)
    batch, chips = x.get("batch") or 1, x.get("n_chips") or 1
    if batch > 1 or chips > 1:
        where = " over ".join(w for w in (f"batch {batch:,}" if batch > 1 else "",
                                          f"{chips} chips" if chips > 1 else "") if w)
        rows.append((f"  (fitted at batch 1 on one chip: at {where} an extrapolation)", ""))
    one = "one chip: " if serving else ""
    rows += _speed_rows(fits, [(f"  {one}tokens/s per sequence",
                                "{:,.1f} ({:,.1f} to {:,.1f})".format(
        x["expected_decode_tokens_per_second"], *x["expected_decode_tokens_per_second_range"]))],
        without[0])
    if serving:
        for key, label, scale, unit in (
                ("expected_ttft_seconds", "time to first token", 1e3, " ms"),
                ("expected_tpot_seconds", "time per output token", 1e3, " ms"),
                ("expected_tokens_per_second_per_chip", "tokens/s per chip", 1, "")):
            if x[key] is not None:
                lo, hi = x[key + "_range"]
                rows += _speed_rows(fits_per_chip, [(
                    f"  {label}", f"{x[key] * scale:,.1f}{unit} ({lo * scale:,.1f} to "
                                  f"{hi * scale:,.1f}{unit})")], without[1])
    return rows


def print_columns(head: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print ``rows`` under the headings ``head``, each column right-aligned to its widest
    cell (the frontier's and the deployment search's tables).

    >>> print_columns(["batch", "tok/s"], [["1", "95.2"], ["64", "2,380"]])
    batch  tok/s
        1   95.2
       64  2,380
    """
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))


def _fmt_b(n: float | None) -> str:
    if n is None:  # a figure the library does not count (the warning says why)
        return "not counted"
    if n >= 1e9:
        return f"{n:,.0f} B ({n / 1e9:,.3f} GB, {n / 2**30:,.3f} GiB)"
    return f"{n:,.0f} B ({n / 1e6:,.3f} MB, {n / 2**20:,.3f} MiB)"


def _per_token(e: Any) -> str:
    """The cache one token adds; where the cache is counted but is not proportional to the
    context (DeepSeek-V4's compressed attention: a window, an entry per m_c tokens), no such
    figure exists: the mean over the context and batch asked is printed, named as such."""
    from ..plan.stack import KV_PER_TOKEN_MEAN  # the page's calculators print the same

    if e.kv_cache_bytes_per_token is not None or e.kv_cache_bytes is None:
        return _fmt_b(e.kv_cache_bytes_per_token)
    mean = e.kv_cache_bytes / (e.context * e.batch)
    return KV_PER_TOKEN_MEAN.format(mean=f"{mean:,.0f}")


def label_width(rows: Sequence[tuple[str, str]]) -> int:
    """The width of the longest label of (label, value) ``rows`` [characters]: the column
    at which :func:`render` starts the values, shared by tables printed one after another.

    >>> label_width([("weights", "13.5 GB"), ("KV cache", "2.1 GB")])
    8
    """
    return max(len(k) for k, _ in rows)


def render(rows: Sequence[tuple[str, str]], width: int | None = None) -> str:
    """(label, value) rows as two aligned columns, the values from column ``width`` (default:
    after the longest label)."""
    width = label_width(rows) if width is None else width
    return "\n".join(f"{k:<{width}}  {v}".rstrip() for k, v in rows)


def _peak_unit(e: Any, precision: str | None = None, rate: float | None = None) -> str:
    """The unit of the peak an estimate took (its weights', or ``rate`` at ``precision``): the
    catalog's (``OP/s`` for an integer rate, whose operations are not floating-point) where the
    rate is the chip's, else FLOP/s."""
    from ..catalog.hardware import get_hardware

    precision = e.compute_precision if precision is None else precision
    rate = e.peak_flops if rate is None else rate
    peak = get_hardware(e.hardware).peaks.get(precision) if e.hardware else None
    return peak.unit if peak is not None and peak.rate == rate else "FLOP/s"


def _attended_row(e: Any, model: Any = None) -> tuple[str, str]:
    """The row of the cached positions a step reads per attention layer, on average (labelled
    "windows, selected" where a sparse-attention indexer selects some of them). Where
    ``model`` has DeepSeek-V4's compressed attention a row is a window token or a compressed
    entry (one per m_c tokens): the mean is split into the two, so that entries are not read as
    tokens."""
    from ..plan.stack import ATTENDED_ROWS_LABEL, ATTENDED_ROWS_SPLIT  # the page's, too

    if model is None or not model.has_compressed_attention:
        # an indexer selects positions beyond any window: the label says so
        return ("attended context (windows, selected)"
                if model is not None and model.has_sparse_indexer
                else "attended context (windows)",
                f"{float(e.attended_context):,.0f} tokens per layer")
    attn = [(run.count, run.attention) for run in model.layers if run.attention is not None]
    window = sum(n * min(e.context, a.window) for n, a in attn) / sum(n for n, _ in attn)
    return (ATTENDED_ROWS_LABEL, ATTENDED_ROWS_SPLIT.format(
        rows=f"{float(e.attended_context):,.0f}", window=f"{window:,.0f}",
        entries=f"{float(e.attended_context) - window:,.0f}"))


def _extra_label(name: str, model: Any) -> str:
    """The label of an extra's row under the total: ``of which`` where the published total
    counts it (a vision tower), ``not in the total:`` where it does not (DeepSeek-V3's MTP
    module, Extra.in_total)."""
    in_total = {x.name: x.in_total for x in model.extras} if model is not None else {}
    return f"of which {name}" if in_total.get(name, True) else f"not in the total: {name}"


def _engine_ssm_default(model: Any) -> str:
    """Where an engine keeps the recurrent matrices of ``model``'s family at other bits when its
    config names none (engines.toml, ``hybrid.ssm_auto``: vLLM's NemotronHForCausalLMConfig,
    float32), the clause that says so; else "". The estimate stays at the state's bits, the
    least a runtime keeps, so that its time and memory stay lower bounds; the engine view
    (``--engine vllm``) follows the engine."""
    from ..engine import ENGINES, state_bits

    out = []
    for name, spec in ENGINES.items():
        dtype = spec.get("hybrid", {}).get("ssm_auto", {}).get(model.family)
        bits = None if dtype is None else state_bits(spec, dtype, None)
        if bits is not None:
            bits = float(bits)
            out.append(f"{name} keeps this family's in {dtype} when the file names none, as its "
                       f"engine view counts them (here a lower bound; --ssm-bits {bits:g} counts "
                       "them so)")
    return "".join(f"; {x}" for x in out)


def _state_matrix_row(e: Any, model: Any = None) -> tuple[str, str]:
    """The recurrent matrices' part of the state, with the bits they are counted at and why
    (``model``, the estimate's, gives the bits: the matrices' bytes over what they would take at
    16 bits); the convolution windows, the rest, stay at the model's 16 bits (named only where
    there are some: a lightning attention layer's state is all matrix)."""
    from ..estimate import STATE_WINDOW_BITS

    text = _fmt_b(e.state_matrix_bytes)
    if model is not None:
        windows = e.state_bytes - e.state_matrix_bytes
        at_16 = model.state_bytes(STATE_WINDOW_BITS, bits_ssm=16) * e.batch - windows
        bits = 16 * e.state_matrix_bytes / at_16
        named = {run.mixer.ssm_bits for run in model.layers
                 if run.mixer is not None and getattr(run.mixer, "ssm_bits", None)}
        why = (", the dtype the checkpoint's config.json names" if bits in named else
               ", the state's (config.json names no dtype for it)" if not named and bits == 16
               else "")
        if not named and bits == 16:
            why += _engine_ssm_default(model)
        text += f" at {bits:.3g} bits{why}"
        if windows:
            text += f"; the convolution windows, the rest, at {STATE_WINDOW_BITS} bits"
    return STATE_MATRIX_LABEL, text


def table_rows(e: Any, serving: bool = False, model: Any = None) -> list[tuple[str, str]]:
    """The bound's table as (label, value) rows; ``model`` (the estimate's) names what its
    attended rows are where they are not all tokens (:func:`_attended_row`)."""
    rows: list[tuple[str, str]] = [
        ("model", e.model),
        ("hardware", e.hardware or "-"),
        ("weights", f"{e.weights_as} ({e.bits_weight:.4g} bits/weight on average); "
                    f"KV cache {e.bits_kv:g} bits/element"
                    + (" (the checkpoint's)" if model is not None and model.native_kv_bits != 16
                       and e.bits_kv == model.native_kv_bits else "")),
        ("context x batch", f"{e.context:,} tokens x {e.batch:,}"),
        *([_attended_row(e, model)] if e.attended_context not in (e.context, None) else []),
        ("parameters (total)", f"{e.params_total:,}"),
        *[(f"  {_extra_label(name, model)}", f"{n:,}") for name, n in e.params_extra.items()],
        ("parameters (active per token)", f"{e.params_active:,}"),
        ("parameters in matrix products", f"{e.params_matmul:,}"),
        ("weight bytes", _fmt_b(e.weight_bytes)),
        ("KV cache per token", _per_token(e)),
        ("KV cache (context x batch)", _fmt_b(e.kv_cache_bytes)),
        *([("KV cache if no layer were windowed", _fmt_b(e.kv_cache_bytes_full_storage))]
          if e.kv_cache_bytes_full_storage != e.kv_cache_bytes else []),
        *([("state-space state (batch)", _fmt_b(e.state_bytes))] if e.state_bytes else []),
        *([_state_matrix_row(e, model)] if e.state_bytes and e.state_matrix_bytes else []),
        ("bytes read per token (1 sequence)", _fmt_b(e.decode_bytes_per_token)),
        ("FLOPs per token", "not counted" if e.decode_flops_per_token is None
         else f"{e.decode_flops_per_token:,.0f} FLOP"),
    ]
    if e.bandwidth is not None:
        rows.append(("bandwidth", f"{e.bandwidth / 1e9:,.1f} GB/s"))
    if e.peak_flops is not None:
        rows.append((f"dense peak ({e.compute_precision})",
                     f"{e.peak_flops / 1e12:,.1f} T{_peak_unit(e)}"))
        # attention multiplies by the cache, not the weights: where it runs at another rate,
        # both are printed (every compute time takes each part at its own)
        if e.attention_peak_flops is not None and e.attention_peak_flops != e.peak_flops:
            rows.append((f"attention's peak ({e.attention_precision})",
                         f"{e.attention_peak_flops / 1e12:,.1f} "
                         f"T{_peak_unit(e, e.attention_precision, e.attention_peak_flops)}"))
    if e.decode_memory_seconds is not None:
        rows.append(("memory time per step", f"{e.decode_memory_seconds * 1e3:,.3f} ms"))
    if e.decode_compute_seconds is not None:
        rows.append(("compute time per step", f"{e.decode_compute_seconds * 1e3:,.3f} ms"))
    # With a replica, the rows above it describe one chip alone; a setup that does not fit in
    # memory has no speed to achieve, so its speeds are not printed as if it had one.
    one = "one chip: " if serving else ""
    if e.decode_seconds_per_token is not None:
        # without a compute peak the bound is the memory traffic's time alone: what bounds
        # the step is not known (a large batch may well be compute-bound)
        rows.append((f"{one}time per token (lower bound)",
                     f"{e.decode_seconds_per_token * 1e3:,.3f} ms "
                     + (f"({e.bound}-bound)" if e.peak_flops is not None else
                        "(memory traffic only: no compute peak for this chip, give --tflops)")
                     + (f"; {unfit_text(e.fits_without_draft)}" if e.fits is False else "")))
        rows += _speed_rows(e.fits, [
            (f"{one}tokens/s per sequence (upper bound)", f"{e.decode_tokens_per_second:,.1f}"),
            (f"{one}tokens/s, whole batch", f"{e.throughput_tokens_per_second:,.1f}")],
            e.fits_without_draft)
    if e.spec_tokens_per_step is not None:
        # the draft cost the speculative figures charge: on a replica, one chip's share of the
        # group's step (draft_chip_cost), which can differ from the one-chip bound's
        used = e.draft_cost if e.draft_chip_cost is None else e.draft_chip_cost
        cost = f"draft cost {used:.3g}"
        if e.tp > 1 and e.draft_chip_cost is not None \
                and not math.isclose(e.draft_chip_cost, e.draft_cost, rel_tol=1e-9):
            cost += (f" on a chip of the tp {e.tp} group, as charged "
                     f"({e.draft_cost:.3g} on one chip alone)")
        rows.append(("speculation", f"{e.draft_len} drafted, acceptance {e.acceptance:g}, "
                                    f"{cost}: {e.spec_tokens_per_step:.3f} tokens a step"))
        if e.draft_memory_bytes:
            rows.append(("  draft held in memory", f"{_fmt_b(e.draft_memory_bytes)}: its weights "
                         "and cache at this context x batch, counted in the memory below"))
        if e.speculative_tokens_per_second is not None:
            rows += _speed_rows(e.fits, [
                (f"{one}tokens/s per sequence, speculative (bound)",
                 f"{e.speculative_tokens_per_second:,.1f}")], e.fits_without_draft)
    if e.ops_per_byte is not None:
        rows.append(("ops:byte of the chip",
                     f"{e.ops_per_byte:,.1f} {_peak_unit(e).removesuffix('/s')}/B"))
        crit = "not counted" if e.decode_bytes_per_token is None else \
            "never (KV-cache traffic grows faster)" if e.critical_batch_size is None \
            else f"{e.critical_batch_size:,.1f}"
        rows.append(("critical batch size", crit))
    if e.fits is not None:
        rows.append((f"{one}fits in memory", f"{'yes' if e.fits else 'no'}: needs "
                     f"{e.memory_required_bytes / 1e9:,.2f} GB of {e.capacity / 1e9:,.2f} GB"
                     + ("; without the draft it fits" if e.fits is False and e.fits_without_draft
                        else "")))
        rows.append(("max batch at this context", f"{e.max_batch:,}"))
        beyond = (e.max_context is not None and e.trained_context is not None
                  and e.max_context > e.trained_context)
        rows.append(("max context at this batch",
                     "unbounded (no layer's cache grows with the context)"
                     if e.max_context is None
                     else f"{e.max_context:,}" + (f" (memory; the model is trained to "
                                                  f"{e.trained_context:,})" if beyond else "")))
    if serving:
        rows += _serving_rows(e)
    return rows


def unfit_text(without_draft: bool | None = None) -> str:
    """What a setup that does not fit in memory is said to do: where the target alone fits
    (``without_draft``: the estimate's ``fits_without_draft`` or
    ``fits_per_chip_without_draft``), the draft is named as what does not fit."""
    return ("does not fit in memory with the draft; fits without it" if without_draft
            else "does not fit in memory")


def _speed_rows(fits: bool | None, rows: list[tuple[str, str]],
                without_draft: bool | None = None) -> list[tuple[str, str]]:
    """Rows of speeds and costs, or, where the setup does not fit in memory, the same rows
    saying so instead of a number that no run could reach (and, where only the draft makes it
    not fit, saying that: :func:`unfit_text`)."""
    if fits is False:
        return [(k, f"- ({unfit_text(without_draft)})") for k, _ in rows]
    return rows


def tokens_text(n: float) -> str:
    """A token count as text, with one decimal where it is a mean (2,176.5 tokens; 1 token)."""
    if float(n) == 1:
        return "1 token"
    return f"{n:,.0f} tokens" if float(n).is_integer() else f"{n:,.1f} tokens"


def _comm_rows(e: Any) -> list[tuple[str, str]]:
    """The two tiers, as the table shows them."""
    if e.link_bandwidth is None and max(e.tp, e.ep) > 1:
        # the chips' collectives are left out of every time below: say so
        return [("scale-up link", "unknown for this chip: give --link-gbps"),
                ("all-reduce", "not counted (no link bandwidth): the times below leave "
                               "communication out")]
    if e.link_bandwidth is None or e.n_chips == 1:
        return []
    def tier(bw: float | None, lat: float | None) -> str:
        return ("-" if bw is None or math.isinf(bw) else f"{bw / 1e9:,.1f} GB/s per direction"
                ) + ("" if lat is None else f", {lat * 1e6:g} us a step")
    return [("scale-up link", tier(e.scale_up_bandwidth, e.scale_up_latency)),
            ("scale-out link", tier(e.scale_out_bandwidth, e.scale_out_latency)),
            ("all-reduce", f"{e.allreduce_algorithm}; communication "
             + ("overlapped with the work (the bound)" if e.overlap else "after the work"))]


def _serving_rows(e: Any) -> list[tuple[str, str]]:
    def ms(t: float | None) -> str:
        return "-" if t is None else f"{t * 1e3:,.3f} ms"

    rows = [("replica", f"{e.n_chips} chip(s): tp {e.tp} x pp {e.pp}, ep {e.ep}")]
    rows += _comm_rows(e)
    rows.append(("memory per chip", "not counted" if e.memory_per_chip_bytes is None else
                 f"{e.memory_per_chip_bytes / 1e9:,.2f} GB"
                 + ("" if e.fits_per_chip is None else
                    f" ({'fits' if e.fits_per_chip else 'does not fit'} in "
                    f"{e.capacity / 1e9:,.2f} GB"
                    + ("; without the draft it fits" if e.fits_per_chip is False
                       and e.fits_per_chip_without_draft else "") + ")")))
    if e.weight_bytes_per_chip is not None and e.tp > 1:
        draft = e.draft_copy_bytes or 0
        copies = e.weight_bytes_held - e.weight_bytes + draft
        rows.append(("  weights per chip", f"{e.weight_bytes_per_chip / 1e9:,.2f} GB, with "
                     f"{copies / 1e9:,.2f} GB of copies in the replica (what every chip holds "
                     "whole" + (f"; the draft's {draft / 1e9:,.2f} GB of them" if draft else "")
                     + ")"))
    if e.max_batch_per_replica is not None:
        rows.append(("max batch on the replica", f"{e.max_batch_per_replica:,}"))
    if e.prompt is not None:
        rows.append(("prompt, generated", f"{e.prompt:,} tokens, "
                     + ("-" if e.generate is None else f"{e.generate:,} more")))
        rows.append(("time to first token (bound)", ms(e.ttft_seconds) + (
            "; memory traffic only: no compute peak for this chip, give --tflops"
            if e.peak_flops is None and e.ttft_seconds is not None else "")))
    rows.append(("time per output token (bound)",
                 ms(e.tpot_seconds) + f" at {tokens_text(e.serving_context)} of context"
                 + ("; memory traffic only: no compute peak for this chip, give --tflops"
                    if e.peak_flops is None and e.tpot_seconds is not None else "")
                 + (f"; {unfit_text(e.fits_per_chip_without_draft)}"
                    if e.fits_per_chip is False else "")))
    if e.n_chips > 1 and e.tpot_serialized_seconds is not None:
        rows.append(("  serialized sum (not a bound)", ms(e.tpot_serialized_seconds)))
    if e.allreduce_seconds_per_token is not None and e.tp > 1:   # none without tensor parallelism
        rows.append(("  all-reduces", ms(e.allreduce_seconds_per_token)))
    if e.alltoall_seconds_per_token:
        rows.append(("  all-to-alls", ms(e.alltoall_seconds_per_token)))
    if e.allgather_seconds_per_token:   # the logits' over the vocabulary, split by tp
        rows.append(("  all-gathers", ms(e.allgather_seconds_per_token)))
    if e.request_seconds is not None:
        rows.append(("request (bound)", f"{e.request_seconds:,.3f} s"))
    if e.speculative_request_seconds is not None:
        rows.append(("request, speculative", f"{e.speculative_request_seconds:,.3f} s"))
    speeds = []
    if e.tokens_per_second_per_user is not None:
        speeds.append(("tokens/s per user", f"{e.tokens_per_second_per_user:,.1f}"))
        speeds.append(("tokens/s per chip", f"{e.tokens_per_second_per_chip:,.1f}"))
    if e.speculative_tpot_seconds is not None:
        speeds.append(("time per output token, speculative", ms(e.speculative_tpot_seconds)))
        speeds.append(("tokens/s per chip, speculative",
                       f"{e.speculative_tokens_per_second_per_chip:,.1f}"))
    if e.cost_per_million_tokens is not None:
        speeds.append(("cost per million tokens", f"${e.cost_per_million_tokens:,.3f} at "
                       f"${e.price_per_hour:g} per chip-hour"))
    if e.speculative_cost_per_million_tokens is not None:
        speeds.append(("cost per million tokens, speculative",
                       f"${e.speculative_cost_per_million_tokens:,.3f}"))
    if e.energy_joules_per_token is not None:
        speeds.append(("energy per token", f"{e.energy_joules_per_token:,.3f} J at "
                       f"{e.power_watts:g} W per chip"))
    if e.speculative_energy_joules_per_token is not None:
        speeds.append(("energy per token, speculative",
                       f"{e.speculative_energy_joules_per_token:,.3f} J"))
    return rows + _speed_rows(e.fits_per_chip, speeds, e.fits_per_chip_without_draft)
