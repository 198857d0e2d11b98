"""Figures of the part "Foundations" (chapters 1-8) and the back matter's tables: the
roofline, the chips, parameters, the KV cache and a decode step's bytes, modern architectures.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from ... import numeric as N
from ...catalog.formats import bits_per_weight
from ...catalog.hardware import KIND_LABELS, Hardware
from ...catalog.model import Model
from ...core.units import GB, GB_S, GiB, TFLOP_S
from ...estimate import decode_peak_for, estimate
from ..display import chip_name
from ..figure_check import MAX_WIDTH_PX
from ..matplotlib_on_demand import pyplot as plt
from ..matplotlib_on_demand import ticker as mticker
from .style import axes_or_new, label_points, plain_log_ticks

__all__ = ["roofline", "time_per_token_vs_batch", "kv_cache_vs_context",
           "decode_bytes_breakdown", "params_breakdown", "chips_scatter",
           "sequence_memory_vs_context", "sequence_read_vs_context",
           "mla_attention_flops_vs_context",
           "expert_weights_read_vs_batch"]

#: Width of an operation's name along the x axis of a roofline [px]: a line of 9 pt text,
#: rotated, at the figures' 96 dpi.
_LABEL_PX = 9 * 96 / 72 * 1.2


def _drawn_precision(h: Hardware, precision: str) -> str:
    """The precision whose dense peak a roofline of ``h`` is drawn with: ``precision``, else
    the chip's headline one (fp16, else bf16, else fp32)."""
    return precision if precision in h.peaks else (h.headline_precision() or "fp32")


def roofline(chips: Sequence[Hardware], operations: dict[str, float] | None = None,
             precision: str = "fp16", ax: plt.Axes | None = None,
             intensity_range: tuple[float, float] = (0.1, 2000.0),
             legend: str | None = "lower right", labels: str = "bottom") -> plt.Axes:
    """The roofline of each chip: attainable rate min(peak, I x bandwidth) against intensity I.

    Parameters
    ----------
    chips : sequence of Hardware
        Chips; one without a dense peak at ``precision`` is drawn with its headline peak (fp16,
        else bf16, else fp32), and the legend says so.
    operations : dict, optional
        Name -> arithmetic intensity [FLOP/B], drawn as vertical lines.
    precision : str
        Which dense peak to use.
    legend : str or None
        Matplotlib legend location; ``"below"`` puts it under the axes; None draws none.
    labels : str
        Where the operations' names go along their lines: ``"bottom"`` (below the rooflines,
        where a log-log roofline has room) or ``"top"``.

    Examples
    --------
    >>> from llm_arithmetic import get_hardware
    >>> ax = roofline([get_hardware("a10")], {"matvec fp16": 1.0})
    >>> ax.get_xscale(), len(ax.lines)  # the roof, its ridge point, the operation
    ('log', 3)
    """
    ax = axes_or_new(ax)
    x = np.logspace(np.log10(intensity_range[0]), np.log10(intensity_range[1]), 400)
    for h in chips:
        prec = _drawn_precision(h, precision)
        peak = h.peak(prec)
        y = np.minimum(peak, x * h.bandwidth)
        ridge_label = f"ridge {N.ops_per_byte(peak_flops=peak, bandwidth=h.bandwidth):.0f} FLOP/B"
        if prec != precision:
            ridge_label += f", {prec} peak"
        (line,) = ax.plot(x, y, label=f"{chip_name(h)} ({ridge_label})")
        ridge = peak / h.bandwidth
        ax.plot([ridge], [peak], "o", color=line.get_color(), ms=4)
        ax.lines[-1].set_label("_nolegend_")
    # each name stands left of its line, or right of it where the left is taken by the name of
    # a lower intensity (two operations of nearly the same intensity)
    px_per_decade = (ax.figure.get_figwidth() * ax.figure.dpi * ax.get_position().width
                     / np.log10(intensity_range[1] / intensity_range[0]))
    taken: list[tuple[float, float]] = []  # [px, px] along x of the names placed
    for name, intensity in sorted((operations or {}).items(), key=lambda kv: kv[1]):
        ax.axvline(intensity, color="0.4", ls=":", lw=1)
        y, va = (0.02, "bottom") if labels == "bottom" else (0.98, "top")
        at = np.log10(intensity) * px_per_decade
        ha, span = "right", (at - _LABEL_PX, at)
        if any(a < span[1] and span[0] < b for a, b in taken):
            ha, span = "left", (at, at + _LABEL_PX)
        taken.append(span)
        ax.text(intensity, y, f" {name} ", rotation=90, va=va, ha=ha, fontsize=9,
                transform=ax.get_xaxis_transform(), color="0.3")
    ax.set_xscale("log")
    ax.set_yscale("log")
    if operations and labels == "bottom":  # a decade of room under the lowest roof
        lowest = min(min(x[0] * h.bandwidth, h.peak(_drawn_precision(h, precision)))
                     for h in chips)
        ax.set_ylim(bottom=lowest / 10)
    ax.set_xlabel("arithmetic intensity [FLOP/B]")
    # the rates stay in FLOP/s (callers add points in FLOP/s); the ticks read in TFLOP/s
    ax.set_ylabel(f"attainable rate [T{'OP' if 'int' in precision else 'FLOP'}/s], dense {precision}")
    ax.yaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v / TFLOP_S:,.10g}"))
    ax.yaxis.set_minor_formatter(mticker.NullFormatter())
    if legend == "below":
        leg = ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
        fig = ax.figure
        if leg.get_window_extent(fig.canvas.get_renderer()).width * 96 / fig.dpi > \
                MAX_WIDTH_PX - 24:  # two columns wider than the page: one column
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=1)
    elif legend:
        ax.legend(loc=legend)
    return ax


def time_per_token_vs_batch(model: Model, chip: Hardware, batches: Iterable[int] = range(1, 257),
                            contexts: Sequence[int] = (1, 4096), weights: str = "fp16",
                            ax: plt.Axes | None = None) -> plt.Axes:
    """Decode step time (solid) and its memory-only bound (dotted) against batch size.

    The step reads the cache each layer keeps (windows applied) and, for a mixture of experts,
    the experts its batch touches (:meth:`~llm_arithmetic.catalog.model.Model.step_weight_bytes`);
    its FLOPs run at the estimate's decode rate (:func:`~llm_arithmetic.estimate.decode_peak_for`:
    the weights' products at their format's rate, attention's at the cache's; attention's share
    of a step does not depend on the batch).

    >>> from llm_arithmetic import get_model, get_hardware
    >>> ax = time_per_token_vs_batch(get_model("llama-2-7b"), get_hardware("a100-80gb-sxm"),
    ...                              batches=[1, 2, 4], contexts=[1])
    >>> len(ax.lines)
    2
    """
    ax = axes_or_new(ax)
    b = np.asarray(list(batches), dtype=float)
    bits = bits_per_weight(weights)
    for s in contexts:
        e = estimate(model, hardware=chip, weights=weights, context=int(s))
        step_bytes = N.batched_step_bytes(weight_bytes=model.step_weight_bytes(bits, b),
                                          seq_bytes=float(model.seq_bytes(int(s))), batch=b)
        step_flops = N.batched_step_flops(seq_flops=float(e.decode_flops_per_token), batch=b)
        t = N.roofline_time(step_bytes=step_bytes, step_flops=step_flops, bandwidth=e.bandwidth,
                            peak_flops=decode_peak_for(model, chip, weights, int(s)))
        (line,) = ax.plot(b, t * 1e3, label=f"context {s:,}")
        ax.plot(b, step_bytes / e.bandwidth * 1e3, ls=":", color=line.get_color(), lw=1)
        ax.lines[-1].set_label("_nolegend_")
    ax.set_xlabel("batch size [sequences]")
    ax.set_ylabel("time per decode step [ms]")
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis)
    ax.set_title(f"{model.label or model.name}, {weights}, {chip_name(chip)} (dotted: memory time)")
    ax.legend()
    return ax


def kv_cache_vs_context(models: Sequence[Model], max_context: int = 131072, bits_kv: Any = 16,
                        ax: plt.Axes | None = None) -> plt.Axes:
    """KV cache [GiB] of one sequence against context, one line per model, as runtimes store
    it (a sliding-window layer keeps its window).

    >>> from llm_arithmetic import get_model
    >>> ax = kv_cache_vs_context([get_model("llama-2-7b"), get_model("mistral-7b")], 8192)
    >>> [round(float(line.get_ydata()[-1]), 2) for line in ax.lines]
    [4.0, 0.5]
    """
    ax = axes_or_new(ax)
    s = np.linspace(0, max_context, 200)
    bits = bits_per_weight(bits_kv)
    for m in models:
        kv = np.asarray(m.kv_cache_bytes(s, 1, bits), dtype=float)
        kinds = sorted({run.attention.kind for run in m.layers if run.attention is not None})
        kind = "/".join(kinds)
        if kinds == ["GQA"]:
            kind = f"GQA {m.n_heads // m.n_kv_heads}x"
        ax.plot(s, kv / GiB, label=f"{m.label or m.name} ({kind})")
    ax.set_xlabel("context [tokens]")
    ax.set_ylabel("KV cache [GiB]")
    ax.legend()
    return ax


def decode_bytes_breakdown(models: Sequence[Model], context: int = 4096, weights: str = "fp16",
                           bits_kv: Any = 16, ax: plt.Axes | None = None) -> plt.Axes:
    """Stacked bars: the bytes one decode step of one sequence reads, by kind [GB]
    (:meth:`~llm_arithmetic.catalog.model.Model.decode_bytes_breakdown`).

    The bars add up to ``estimate(...).decode_bytes_per_token`` (windows applied):

    >>> from llm_arithmetic import get_model, estimate
    >>> ax = decode_bytes_breakdown([get_model("mistral-7b")], context=32768)
    >>> total = float(sum(p.get_height() for p in ax.patches))
    >>> e = estimate("mistral-7b", context=32768)
    >>> round(total, 3), round(e.decode_bytes_per_token / 1e9, 3)
    (14.758, 14.758)
    """
    ax = axes_or_new(ax)
    names = [m.label or m.name for m in models]
    bits_w = bits_per_weight(weights)
    parts = [m.decode_bytes_breakdown(context, bits_w, bits_per_weight(bits_kv)) for m in models]
    keys = list(dict.fromkeys(k for p in parts for k in p))
    bottom = np.zeros(len(models))
    for key in keys:
        vals = np.array([float(p.get(key, 0)) for p in parts]) / GB
        ax.bar(names, vals, bottom=bottom, label=key)
        bottom += vals
    ax.set_ylabel("bytes read per decoded token [GB]")
    ax.set_title(f"{weights} weights, {bits_per_weight(bits_kv)}-bit KV cache, "
                 f"{context:,} tokens")
    ax.legend()
    return ax


def params_breakdown(models: Sequence[Model], ax: plt.Axes | None = None,
                     share: bool = False) -> plt.Axes:
    """Stacked horizontal bars: where each model's parameters are, in billions or, with
    ``share``, in percent of the model (:meth:`~llm_arithmetic.catalog.model.Model.params_breakdown`),
    one bar per model, named on the left (so that any number of names stays readable), the
    first model on top; the legend goes below the axes.

    >>> from llm_arithmetic import get_model
    >>> ax = params_breakdown([get_model("llama-2-7b")])
    >>> round(float(sum(p.get_width() for p in ax.patches)) * 1e9)
    6738415616
    >>> ax = params_breakdown([get_model("llama-2-7b")], share=True)
    >>> round(float(sum(p.get_width() for p in ax.patches)), 6)
    100.0
    """
    ax = axes_or_new(ax)
    names = [m.label or m.name for m in models]
    parts = [m.params_breakdown() for m in models]
    keys = list(dict.fromkeys(k for p in parts for k in p))
    scale = np.array([100 / m.total_params if share else 1e-9 for m in models], dtype=float)
    left = np.zeros(len(models))
    y = np.arange(len(models))[::-1]
    for key in keys:
        vals = np.array([p.get(key, 0) for p in parts], dtype=float) * scale
        ax.barh(y, vals, left=left, label=key)
        left += vals
    ax.set_yticks(y, names)
    ax.set_xlabel("share of the parameters [%]" if share else "parameters [billions]")
    if share:
        ax.set_xlim(0, 100)
    ax.grid(axis="y", visible=False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3)
    return ax


#: How :func:`chips_scatter` names the kinds of the hardware catalog (the catalog's own words
#: for them, which the forecast's caveat also uses without importing the plots).
CHIP_KINDS = KIND_LABELS


def _short_chip_name(h: Hardware) -> str:
    name = chip_name(h)
    for vendor in ("NVIDIA GeForce ", "NVIDIA ", "AMD Instinct ", "AMD ", "Apple ", "Google Cloud ",
                   "Intel ", "AWS "):
        name = name.removeprefix(vendor)
    return name


def chips_scatter(chips: Sequence[Hardware], ax: plt.Axes | None = None,
                  ratios: Sequence[float] = (10, 100, 1000)) -> plt.Axes:
    """Each chip's memory bandwidth against its dense peak (its
    :meth:`~llm_arithmetic.catalog.hardware.Hardware.headline_precision`: fp16, else bf16, else
    fp32; chips with none of them are left out), coloured by kind, labelled by name without the
    vendor (variants of one chip at one point share a label), with dotted lines of equal
    ops:byte ratio.

    >>> from llm_arithmetic import HARDWARE
    >>> ax = chips_scatter(list(HARDWARE.values())[:6])
    >>> sorted(t.get_text() for t in ax.texts)[:3]
    ['1,000 FLOP/B', '10 FLOP/B', '100 FLOP/B']
    >>> plt.close(ax.figure)
    """
    ax = axes_or_new(ax)
    points: dict[str, list[tuple[float, float, str]]] = {}
    for h in chips:
        prec = h.headline_precision()
        if prec is None:
            continue
        points.setdefault(_short_chip_name(h), []).append(
            (h.bandwidth / GB_S, h.peak(prec) / TFLOP_S, h.kind))
    # variants of one chip (the A100's four) at nearly one point: one label
    for base in {n.split()[0] for n in points}:
        same = [n for n in points if n.split()[0] == base and len(n.split()) > 1]
        if len(same) > 2 and all(abs(np.log10(points[n][0][1] / points[same[0]][0][1])) < 0.01
                                 for n in same):
            points[f"{base} ({len(same)} variants)"] = [p for n in same for p in points.pop(n)]
    for kind, label in CHIP_KINDS.items():
        xy = [(x, y) for v in points.values() for x, y, k in v if k == kind]
        if xy:
            ax.plot(*zip(*xy), "o", ms=5, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    x_lo, x_hi = ax.get_xlim()
    bw = np.logspace(np.log10(x_lo), np.log10(x_hi), 50)
    for r in ratios:
        ax.plot(bw, r * bw * GB_S / TFLOP_S, ls=":", color="0.6", lw=1)
    ax.set_xlim(x_lo, x_hi)
    ax.set_xlabel("memory bandwidth [GB/s]")
    ax.set_ylabel("dense peak [TFLOP/s] (fp16, bf16 or fp32)")
    # lower right: a chip there would have much bandwidth and little compute, and none has (the
    # upper left holds the high ops:byte chips, DGX Spark and Jetson Thor among them)
    ax.legend(loc="lower right")
    ax.figure.canvas.draw()
    for r in ratios:  # each ratio's name along its line, near the left edge
        x0 = x_lo * 1.6
        p0 = ax.transData.transform((x0, r * x0 * GB_S / TFLOP_S))
        p1 = ax.transData.transform((x0 * 10, r * x0 * 10 * GB_S / TFLOP_S))
        angle = float(np.degrees(np.arctan2(p1[1] - p0[1], p1[0] - p0[0])))
        ax.annotate(f"{r:,} FLOP/B", (x0, r * x0 * GB_S / TFLOP_S), xytext=(0, 3),
                    textcoords="offset points", rotation=angle, rotation_mode="anchor",
                    ha="left", va="bottom", fontsize=9, color="0.4")
    names = list(points)
    label_points(ax, [np.mean([p[0] for p in points[n]]) for n in names],
                 [np.mean([p[1] for p in points[n]]) for n in names], names)
    return ax


def sequence_memory_vs_context(models: Sequence[Model], max_context: int = 131072,
                               bits_kv: Any = 16, bits_state: Any = 16,
                               ax: plt.Axes | None = None) -> plt.Axes:
    """What one sequence holds [GiB] against context, one colour per model: solid, as a
    window-aware runtime stores it (:meth:`~llm_arithmetic.catalog.model.Model.kv_cache_bytes`,
    plus a state-space model's constant state); dashed, where it differs, with every layer
    kept whole (:meth:`~llm_arithmetic.catalog.model.Model.kv_cache_bytes_full_storage`).

    >>> from llm_arithmetic import get_model
    >>> ax = sequence_memory_vs_context([get_model("gpt-oss-20b"), get_model("llama-3.1-8b")],
    ...                                 131072)
    >>> [round(float(line.get_ydata()[-1]), 2) for line in ax.lines]
    [3.0, 6.0, 16.0]
    """
    ax = axes_or_new(ax)
    s = np.unique(np.linspace(0, max_context, 400).astype(np.int64))
    for m in models:
        state = float(m.state_bytes(bits_state))
        stored = np.array([float(m.kv_cache_bytes(int(x), 1, bits_kv)) for x in s]) + state
        full = np.asarray(m.kv_cache_bytes_full_storage(s, 1, bits_kv), dtype=float) + state
        (line,) = ax.plot(s, stored / GiB, label=m.label or m.name)
        if not np.allclose(stored, full):
            ax.plot(s, full / GiB, ls="--", lw=1, color=line.get_color())
            ax.lines[-1].set_label("_nolegend_")
    ax.set_xlabel("context [tokens]")
    ax.set_ylabel("cache and state of one sequence [GiB]")
    ax.set_title(f"{bits_per_weight(bits_kv)}-bit cache (dashed: every layer kept whole)")
    ax.legend()
    return ax


def sequence_read_vs_context(models: Sequence[Model], max_context: int = 131072,
                             bits_kv: Any = 16, bits_state: Any = 16,
                             ax: plt.Axes | None = None) -> plt.Axes:
    """Bytes one decode step moves for one sequence besides the weights [GiB] against context,
    one colour per model (:meth:`~llm_arithmetic.catalog.model.Model.seq_bytes`: the cache it
    reads, windows, chunks and top-k selections applied, and a constant state read and written
    back).

    >>> from llm_arithmetic import get_model
    >>> ax = sequence_read_vs_context([get_model("deepseek-v3.2"), get_model("deepseek-v3")],
    ...                               131072)
    >>> [round(float(line.get_ydata()[-1]), 2) for line in ax.lines]
    [2.04, 8.58]
    """
    ax = axes_or_new(ax)
    s = np.unique(np.linspace(0, max_context, 400).astype(np.int64))
    for m in models:
        read = np.array([float(m.seq_bytes(int(x), bits_kv, bits_state)) for x in s])
        ax.plot(s, read / GiB, label=m.label or m.name)
    ax.set_xlabel("context [tokens]")
    ax.set_ylabel("cache and state one step moves [GiB]")
    ax.set_title(f"one sequence, {bits_per_weight(bits_kv)}-bit cache")
    ax.legend()
    return ax


def mla_attention_flops_vs_context(model: Model, max_context: int = 131072,
                                   ax: plt.Axes | None = None) -> plt.Axes:
    """Attention FLOPs of one decoded token of a latent-attention (MLA) model against context,
    all layers: in the absorbed form (:data:`~llm_arithmetic.formulas.flops.mla_decode_flops`)
    and with the cached latents up-projected at every step
    (:data:`~llm_arithmetic.formulas.flops.mla_decode_flops_naive`); the dotted line is the
    FLOPs of the token's matrix products, 2 per weight.

    >>> from llm_arithmetic import get_model
    >>> ax = mla_attention_flops_vs_context(get_model("deepseek-v3"), 4096)
    >>> [round(float(line.get_ydata()[-1]) / 1e12, 3) for line in ax.lines[:2]]
    [0.07, 8.404]
    """
    ax = axes_or_new(ax)
    s = np.unique(np.geomspace(1, max_context, 300).astype(np.int64)).astype(float)
    absorbed = np.zeros_like(s)
    naive = np.zeros_like(s)
    for run in model.layers:
        a = run.attention
        if a is None or not a.is_mla:
            continue
        absorbed += run.count * np.asarray(a.decode_flops(s), dtype=float)
        naive += run.count * np.asarray(N.mla_decode_flops_naive(
            n_heads=a.n_heads, kv_lora_rank=a.kv_lora_rank, d_nope=a.d_nope, d_rope=a.d_rope,
            d_v=a.d_v, attended=a.tokens(s)), dtype=float)
    ax.plot(s, absorbed, label="absorbed: scores against the cached latents")
    ax.plot(s, naive, label="latents up-projected to keys and values at every step")
    ax.axhline(2 * model.matmul_params, color="0.4", ls=":", lw=1,
               label="matrix products of the token (2 per weight)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("context [tokens]")
    ax.set_ylabel("attention FLOPs per decoded token [FLOP]")
    ax.set_title(model.label or model.name)
    ax.legend()
    return ax


def expert_weights_read_vs_batch(models: Sequence[Model], batches: Iterable[int] = range(1, 513),
                                 ax: plt.Axes | None = None) -> plt.Axes:
    """The share of a model's weight bytes that one decode step of B tokens reads, against B
    (:meth:`~llm_arithmetic.catalog.model.Model.step_weight_bytes` over
    :meth:`~llm_arithmetic.catalog.model.Model.weight_bytes`, weights as shipped; uniform
    routing, the upper end of the experts a batch touches).

    >>> from llm_arithmetic import get_model
    >>> ax = expert_weights_read_vs_batch([get_model("mixtral-8x7b")], [1, 2, 64])
    >>> [round(float(y), 3) for y in ax.lines[0].get_ydata()]
    [0.273, 0.454, 0.997]
    """
    ax = axes_or_new(ax)
    b = np.asarray(list(batches), dtype=float)
    for m in models:
        share = (np.asarray(m.step_weight_bytes(None, b), dtype=float)
                 / float(m.weight_bytes(None)))
        k, e = m.n_active_experts, m.n_experts
        ax.plot(b, share, label=f"{m.label or m.name} ({k} of {e})")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("batch size [sequences]")
    ax.yaxis.set_major_formatter(mticker.PercentFormatter(1.0))
    ax.set_ylabel("share of the weights one step reads [%]")
    ax.legend()
    return ax
