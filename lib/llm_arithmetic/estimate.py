"""Estimates for a model on a chip: everything the command line reports, from the formulas.

:func:`estimate` joins a model, a precision, a workload and (optionally) a chip into an
:class:`Estimate`: exact counts, bytes and FLOPs of a decode step, and the roofline bounds.
Without a bandwidth there are no times; without a peak rate there is no compute time and no
critical batch size; without a capacity, no fit. :func:`sweep` evaluates the same bounds over
arrays of contexts and batches, for several formats and chips at once.

Units are those of the package everywhere: bytes [B], bandwidth [B/s], arithmetic [FLOP/s],
time [s], memory capacity [B]. A bandwidth, peak or capacity that is implausibly small for its
unit (a figure in GB/s passed as B/s, say) is refused with a message that says so.

>>> e = estimate("llama-2-7b", bandwidth=1935e9, peak_flops=312e12, context=1)
>>> e.weight_bytes, round(e.decode_seconds_per_token * 1e3, 2)
(13476831232, 6.83)
"""
from __future__ import annotations

import math
import sys
import warnings
from dataclasses import asdict, fields
from fractions import Fraction
from numbers import Integral, Real
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from .catalog.formats import (BITS_PER_WEIGHT, FILE_TYPE_PREFIX, attention_precision,
                              bits_per_weight, compute_precision, file_type, mix_bits,
                              mix_copy_bits, mix_parts, plan_format, shared_name)
from .catalog.hardware import FULLY_CONNECTED, Hardware, get_hardware
from .catalog.images import IMAGE_SIDE_LIMIT, IMAGES_LIMIT
from .catalog.model import (MTP_EXTRA, GatedMemoryUnit, LightningAttention, Mamba1, Mamba2, Model,
                            stack_blocks)
from .catalog.model_catalog import MODELS, get_model
from .catalog.readers import read_config
from .core.errors import ConfigError, InputError
from .core.paths import is_file
from .core.records import record
from .numeric._runtime import exact_result
from .plan.interpreter import Evaluator

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Estimate", "estimate", "Sweep", "sweep", "resolve_model", "ContextWarning",
           "FileTypeWarning", "block_format_note", "warn_block_format", "LIMITS", "frontier",
           "weight_bits", "weight_inputs", "peak_for",
           "attention_peak_for", "prefill_peak_for", "decode_peak_for", "weights_as",
           "chip_inputs", "plan_inputs", "speculative_inputs", "draft_step_ratio", "draft_model",
           "draft_memory_inputs", "NOTHING_HELD", "draft_degrees", "speculative_workload",
           "draft_held", "offered_drafts", "check_module", "check_draft",
           "DraftWarning", "DRAFT_VOCAB_TOLERANCE",
           "warn_past_trained_context", "SERVING_RANGES", "count_argument", "generated_argument",
           "serving_argument", "parallel_degrees", "image_inputs", "images_argument",
           "vision_plan_inputs", "prompt_with_images", "vision_degrees", "video_inputs",
           "audio_inputs", "audio_degrees", "encoder_degrees", "encoder_split", "tower_inputs",
           "tower_splits", "split_heads"]

#: Largest context and batch accepted: beyond any trained context and any memory.
LIMITS = {"context": 1 << 32, "batch": 1 << 31, "prompt": 1 << 32, "generate": 1 << 32,
          "tp": 1 << 16, "ep": 1 << 16, "pp": 1 << 16, "draft_len": 1 << 10,
          "node_limit": 1 << 16, "images": IMAGES_LIMIT}
#: Plausible ranges of the serving figures: (low, high, unit, the reason for the upper limit);
#: :func:`serving_argument` checks them and the page's widgets read them.
SERVING_RANGES = {
    "price_per_hour": (1e-4, 1e4, "USD/h", "no chip rents for more than $10,000 an hour"),
    "power_watts": (0.1, 1e5, "W", "no single chip draws 100 kW"),
    "link_bandwidth": (1e6, 1e15, "B/s", "no link moves a petabyte per second"),
}
#: Smallest plausible values of rates and sizes in the package's units; a smaller figure is
#: almost certainly in the wrong unit (GB/s for B/s, TFLOP/s for FLOP/s, GB for B).
_PLAUSIBLE_MIN = {"bandwidth": (1e6, "B/s", "GB/s: multiply by 1e9"),
                  "peak_flops": (1e6, "FLOP/s", "TFLOP/s: multiply by 1e12"),
                  "capacity": (1e6, "B", "GB: multiply by 1e9 (or GiB by 2**30)")}


class ContextWarning(UserWarning):
    """A context beyond the one the model was trained for."""


class FileTypeWarning(UserWarning):
    """A weight-format name that is also a llama.cpp file type (``q4_0``), read as the block
    format: :func:`block_format_note` says how to ask for the file."""


#: Bits of a constant-state layer's convolution window (Mamba-2, Gated DeltaNet, KDA): the
#: model's 16-bit dtype, whatever the KV cache's bits: vLLM keeps it in --mamba-cache-dtype,
#: whose "auto" is the model's dtype, not the KV cache's (MambaStateDtypeCalculator,
#: references.bib vllm2026mambastatedtype); the recurrent matrix has its own bits (bits_ssm).
STATE_WINDOW_BITS = 16


def resolve_model(model: str | Path | Model) -> Model:
    """A :class:`Model` from a model, a catalog name, or a path to a ``config.json``."""
    if isinstance(model, Model):
        return model
    pathlib = sys.modules.get("pathlib")  # a Path exists only once pathlib is imported
    if pathlib is not None and isinstance(model, pathlib.Path):
        return read_config(model)
    if not isinstance(model, str):
        raise InputError(f"model must be a Model, a catalog name or a path to a config.json, "
                         f"got {type(model).__name__}")
    if model == "-" or model.endswith(".json") or "/" in model or is_file(model):
        if model not in MODELS:
            return read_config(model)
    return get_model(model)


def count_argument(label: str, v: Any) -> int:
    """A positive integer argument named ``label`` (a key of :data:`LIMITS`), as
    :func:`estimate` checks it: NumPy integers and whole floats accepted and returned as an
    ``int``; zero, a fraction, a bool or a value beyond its limit is an :class:`InputError`
    naming it.

    >>> count_argument("batch", np.int64(8)), count_argument("context", 4096.0)
    (8, 4096)
    >>> count_argument("tp", 0)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp must be a positive integer, got 0
    >>> count_argument("batch", 2.5)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: batch must be a positive integer, got 2.5
    """
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (Integral, np.integer)):
        if isinstance(v, (float, np.floating)) and float(v).is_integer():
            v = int(v)
        else:
            raise InputError(f"{label} must be a positive integer, got {v!r:.40}")
    v = int(v)
    if v <= 0:
        raise InputError(f"{label} must be a positive integer, got {v}")
    if v > LIMITS[label]:
        raise InputError(f"{label} = {v:.3g} is beyond the limit {LIMITS[label]:,} "
                         f"(no model or memory holds more)")
    return v


def generated_argument(generate: Any) -> int:
    """Tokens generated after the first (``generate``), as :func:`estimate` checks it: 0 (a
    request of one token) or a positive integer (:func:`count_argument`), else an
    :class:`InputError`.

    >>> generated_argument(0), generated_argument(np.int32(255))
    (0, 255)
    >>> generated_argument(-1)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: generate must be 0 or a positive integer, got -1
    """
    if isinstance(generate, (Integral, np.integer)) and not isinstance(generate, bool) \
            and generate <= 0:
        if generate < 0:
            raise InputError(f"generate must be 0 or a positive integer, got {generate}")
        return 0
    return count_argument("generate", generate)


def _number(label: str, v: Any) -> float:
    """``v`` as a float, or an InputError naming ``label``."""
    try:
        return float(v)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{label} must be a number, got {v!r:.40}") from None


def _rate(label: str, v: Any) -> float | None:
    if v is None:
        return None
    x = _number(label, v)
    if not x > 0 or not math.isfinite(x):
        raise InputError(f"{label} must be a positive finite number, got {v!r:.40}")
    low, unit, hint = _PLAUSIBLE_MIN[label]
    if x < low:
        raise InputError(f"{label} is in {unit}; {x:g} {unit} is implausibly small (a figure "
                         f"in {hint})")
    if x > 1e21:
        raise InputError(f"{label} = {x:.3g} {unit} is beyond any chip (limit 1e21)")
    return x


@record
class Estimate:
    """What :func:`estimate` computes; field names are the command line's JSON keys.

    Units: counts [-], bytes [B], FLOPs [FLOP], rates [B/s] and [FLOP/s], times [s], tokens
    [token].

    Attributes
    ----------
    model, hardware : str
        Catalog names (or the names given).
    bits_weight : float
        Bits per weight [bit]; the effective average where parts of the model are stored at
        different precisions (gpt-oss's MXFP4 experts).
    bits_kv : float
        Bits per cached element [bit].
    context, batch : int
        Tokens in each sequence's cache at the decode step [token]; sequences decoded
        together [-].
    attended_context : int or float
        Cached positions a step reads per attention layer, on average (windows applied) [token].
    experts_read : int or float
        Routed experts per MoE block the step reads (uniform routing) [-]; 1 for a dense model.
    bandwidth, peak_flops : float or None
        Memory bandwidth [B/s] and the dense peak used [FLOP/s].
    compute_precision : str
        The precision whose peak ``peak_flops`` is: the weights' products run at it.
    attention_precision : str
        The precision whose peak attention's products (scores and weighted values over the
        cache, a layer's recurrence) run at: the cache's (16-bit for a 16-bit cache; fp8 for a
        cache of at most 8 bits on a chip with an fp8 rate), not the weights'.
    attention_peak_flops : float or None
        Its dense peak [FLOP/s]; every compute time takes the weights' FLOPs at ``peak_flops``
        and attention's at this rate.
    capacity : int or None
        Memory [B].
    params_total : int
        The published total: the decoder and what the published figure counts besides
        (Gemma 3's vision tower) [-].
    params_language_model : int
        The decoder alone: what decoding a token reads from, besides an extra every token
        reads (DeepSeek-V4's hyper-connection head) [-].
    params_extra : dict
        Parameters beyond the decoder, by name (in the total or not, as each says) [-].
    params_extra_in_total : dict
        For each of ``params_extra``, whether ``params_total`` counts it (a vision tower the
        published total includes: True; a multi-token-prediction module: False) [-].
    weights_as : str
        Which weights were counted: ``"as shipped: fp8 block-scaled 128x128"`` (the
        checkpoint's ``quantization_config``), ``"as shipped: 16-bit"``, or the format or bits
        asked for.
    params_active, params_matmul, params_read_per_token : int
        Used per token; in matrix products per token; read by one decode step of one token [-].
    weight_bytes : int or float
        All the weights [B].
    kv_cache_bytes_per_token : int or float
        Cache one token adds before any window fills, all layers, K and V [B].
    kv_cache_bytes : int or float
        Cache of ``batch`` sequences of ``context`` tokens as runtimes store it (a windowed layer
        keeps its window, latent attention its latent) [B].
    kv_cache_bytes_full_storage : int or float
        The same if every layer kept every token [B].
    state_bytes : int or float
        State of the state-space layers, all sequences [B].
    state_matrix_bytes : int or float
        The recurrent matrices' part of ``state_bytes``, at the bits they are kept in: the
        dtype the checkpoint's config.json names (Nemotron-H's ``mamba_ssm_cache_dtype``,
        Qwen3.5's ``mamba_ssm_dtype``), float32 for Kimi delta attention, else the state's 16
        bits; ``bits_ssm`` where asked. The rest of ``state_bytes`` is the convolution windows,
        at 16 bits [B].
    decode_bytes_per_token : int or float
        Bytes one decode step of one sequence reads: the weights it uses and its cache [B].
    decode_step_bytes, decode_flops_per_token : int or float
        Bytes of one step of the whole batch [B]; FLOPs per token [FLOP].
    decode_memory_seconds, decode_compute_seconds, decode_seconds_per_token : float or None
        Memory time, compute time and their maximum, the bound on one step [s].
    decode_tokens_per_second, throughput_tokens_per_second : float or None
        Tokens/s of one stream and of the whole batch at that bound [token/s].
    bound : str or None
        ``"memory"`` or ``"compute"``.
    ops_per_byte : float or None
        The chip's ops:byte ratio at ``compute_precision`` [FLOP/B].
    critical_batch_size : float or None
        Batch at which decode turns compute-bound; None when it never does [-].
    memory_required_bytes : int or float
        Weights, cache, state and the reserve [B].
    fits : bool or None
    max_batch : int or None
        Sequences of ``context`` tokens that fit [-].
    max_context : int or None
        Tokens per sequence that fit at ``batch`` (None: unbounded, every layer windowed)
        [token].
    trained_context : int or None
        The context the model was trained for [token].

    Serving (a replica of ``n_chips`` = tp x pp chips; every key above keeps its one-chip
    meaning):

    tp, ep, pp, n_chips : int
        Tensor-, expert- and pipeline-parallel degrees; chips of the replica (tp x pp; the
        experts are split ep ways over the same chips).
    prompt, generate : int or None
        Prompt tokens, and tokens generated after the first (the decode steps) [token].
    serving_context : int or float
        Tokens in each sequence's cache at the decode step that ``tpot_seconds`` bounds: the mean
        over the request's decode steps, prompt + (generate + 1) / 2, with a prompt; else
        ``context`` [token].
    link_bandwidth, link_latency : float or None
        The slowest link the chips use, per direction [B/s], and the latency of one collective
        step on it [s].
    scale_up_bandwidth, scale_out_bandwidth : float or None
        Per-direction bandwidth inside one scale-up domain and between domains [B/s] (both the
        given ``link_bandwidth`` where one is given).
    scale_up_latency, scale_out_latency : float or None
        Latency of one collective step on each tier: as given, the catalog's sourced figure,
        or the stated default :data:`~llm_arithmetic.catalog.hardware.DEFAULT_LATENCY` [s].
    allreduce_algorithm : str
        The algorithm of the bound's all-reduces inside a scale-up domain: ``"switch"``
        (in-switch reduction, NVLink SHARP), ``"direct"`` (one- or two-stage direct
        all-reduces on a fully connected domain) or ``"ring"``. Where the switch reduces and
        none is asked, the faster of the switch and direct at this batch.
    overlap : bool
        Whether the bounds overlap communication with the work (the default) or add it.
    node_limit, dispatch_bits : int, float or None
        Most destinations (nodes) a token's experts may be on; bits of a dispatched
        activation (the combine is 16-bit).
    ttft_seconds : float or None
        Lower bound on the time to first token of a prompt alone on the replica: its prefill
        split over tp chips (the pipeline's stages take turns), its all-reduces and
        all-to-alls overlapped with the work (``overlap``) or after it [s].
    tpot_seconds : float or None
        Lower bound on the time per output token at ``batch``, communication overlapped with
        the work (or after it when ``overlap`` is false) [s].
    ttft_serialized_seconds, tpot_serialized_seconds : float or None
        The same with the communication after the work: the serialized sum, not a bound on an
        engine that overlaps [s].
    request_seconds : float or None
        ``ttft_seconds`` + ``generate`` x ``tpot_seconds`` [s].
    tokens_per_second_per_user, tokens_per_second_per_chip : float or None
        1 / TPOT, and batch / TPOT / n_chips [token/s].
    cost_per_million_tokens : float or None
        Price of a million generated tokens at ``price_per_hour`` per chip [USD].
    energy_joules_per_token : float or None
        Board energy per generated token, at ``power_watts`` per chip [J].
    allreduce_seconds_per_token, alltoall_seconds_per_token : float or None
        Tensor-parallel all-reduces, and expert-parallel all-to-alls, inside one TPOT (0 on one
        chip; None when no link bandwidth is known, TPOT then leaving them out) [s].
    allgather_seconds_per_token : float or None
        Tensor-parallel all-gathers inside one TPOT: the output head's logits over the
        vocabulary for every token of the step, and a per-layer embedding projection's (0 on one
        chip; None as above) [s].
    price_per_hour, power_watts : float or None
        [USD/h] per chip, [W] per chip.
    draft_len, acceptance, draft_cost : int, float, float or None
        Speculative decoding's inputs: tokens drafted per step, the probability that the target
        accepts each, a draft step's time relative to a plain step (None: no speculation;
        the ``mtp`` workload's: the roofline time of one step of the module, its projection,
        blocks and the output head, over a plain step's, each the larger of its bytes over the
        bandwidth and its FLOPs over the peak, at the call's bits, context and batch; the ratio
        of their bytes where both are memory-bound, or where no bandwidth is known).
    draft_chip_cost : float or None
        The share of a plain step a draft step takes on the replica, which
        ``speculative_tpot_seconds`` charges: ``draft_cost`` where given; the ``mtp`` workload's,
        one chip's roofline time of the module's step over one chip's of a plain step, each on
        the whole tensor-parallel group with every chip's copies and cache counted (the
        module's input projection whole on every chip where the engine does not split it,
        :data:`MODULE_INPUTS_COPIED`); ``draft_cost`` at tp 1.
    draft_layers : int or None
        Blocks one draft step runs [block]: a ``draft`` model's layers, one module's blocks for
        MTP; None where only a cost was given. The forecast charges each its per-layer time.
    draft_memory_bytes : int or float or None
        What the draft holds on one chip beside the target: a draft model's weights (at its
        own bits) and its cache and state of ``batch`` sequences at ``context``; the ``mtp``
        workload's module weights and cache; None without a draft, or for a draft given by its
        cost alone (nothing held is counted), as the engine view's draft keys are.
        ``memory_required_bytes``, ``fits``, ``max_batch``, ``max_context`` and the replica's
        memory count it (the replica's split over its chips as the target's) [B].
    fits_without_draft, fits_per_chip_without_draft : bool or None
        Where a draft is held: whether the target alone fits on the chip, and on the replica's
        chips (``fits`` and ``fits_per_chip`` count the draft); a setup whose ``fits`` is
        False and ``fits_without_draft`` True does not fit only because of its draft. None
        without a draft held, or without a chip.
    spec_tokens_per_step : float or None
        Tokens a speculative step yields on average [token].
    speculative_seconds_per_token, speculative_tokens_per_second : float or None
        The decode bound with speculation: (k drafts + the verify step) over the tokens a step
        yields, the verify step's roofline charged k + 1 times the FLOPs [s], [token/s].
    speculative_tpot_seconds, speculative_tokens_per_second_per_chip : float or None
        The same on the replica [s], [token/s].
    speculative_request_seconds, speculative_cost_per_million_tokens, \
speculative_energy_joules_per_token : float or None
        ``request_seconds``, ``cost_per_million_tokens`` and ``energy_joules_per_token`` at the
        speculative time per output token (the plain keys keep the plain one) [s], [USD], [J].
    images, image_size : int and (int, int), or None
        Images in the prompt and the size of each, width x height [px] (None: no images).
    image_tokens_per_image, image_tokens : int or None
        Tokens one image adds to the prompt, by the model's processor's rule
        (:mod:`llm_arithmetic.catalog.images`), and all the images' (included in ``prompt``)
        [token].
    vision_patches_per_image : int or None
        Tokens the vision tower runs for one image (patches of every crop, class tokens) [token].
    vision_prefill_flops, vision_weight_bytes, vision_prefill_seconds : number or None
        The tower's and merger's FLOPs over the images
        (:data:`~llm_arithmetic.formulas.vision.vision_prefill_flops`) [FLOP], their weights at
        16 bits (32 for fp32 weights; a quantized checkpoint keeps its tower at 16), read once
        [B], and the roofline of the two at the chip's 16-bit peak
        (:data:`~llm_arithmetic.formulas.vision.vision_prefill_time`; None without a
        bandwidth), which ``ttft_seconds`` (and every key built on it) includes [s]. With a
        video in the prompt they count its frames too.
    video_seconds, video_fps, video_size : float, float and (int, int), or None
        A video in the prompt: its length [s], the frames sampled a second [1/s] and the frame
        size, width x height [px] (None: no video).
    video_frames, video_tokens, video_separator_tokens, video_patches : int or None
        The frames the processor samples, the video's placeholder tokens (included in
        ``prompt``), the text tokens it writes between frame groups (Qwen3-VL's timestamps and
        delimiters; 0 for Qwen2-VL; included in ``prompt``) and the patches the tower runs
        (:mod:`llm_arithmetic.catalog.video`) [token].
    audio_seconds, audio_frames, audio_tokens : float, int and int, or None
        Audio in the prompt: its length [s], the mel frames the feature extractor makes of it
        and the tokens it adds (included in ``prompt``), by the model's processor's rule
        (:mod:`llm_arithmetic.catalog.audio`) [token] (None: no audio).
    audio_prefill_flops, audio_weight_bytes, audio_prefill_seconds : number or None
        The audio encoder's FLOPs over the clip [FLOP], its weights at 16 bits [B] and the
        roofline of the two (split over a tensor-parallel group as vLLM splits it), which
        ``ttft_seconds`` includes [s].
    image_states, cross_kv_flops, image_kv_bytes : int or None
        A cross-attention model's images (Llama 3.2 Vision, :func:`cross_image_inputs`): the
        tower's states of the images' own tiles that the language model's cross-attention
        layers read [token], those layers' key and value projections of them, run once a
        sequence in the language model (included in ``vision_prefill_flops``) [FLOP], and
        the keys and values one sequence caches, at ``bits_kv`` [B] (None: no such images).
    memory_per_chip_bytes : float
        Weights and state split over the chips, the cache (at the end of the request, or at
        ``context``) as each chip stores it (under tensor parallelism at least one key/value head
        per layer, and a latent cache whole), plus the reserve [B]. The weights are counted as
        ``weight_bytes_per_chip``.
    weight_bytes_held : float
        The model's weights on one replica with every chip's copy counted: ``weight_bytes``
        (one copy) plus the extra copies of what tensor parallelism holds whole on every chip
        (key/value heads past one a chip, latent down-projections, an indexer, routers, norms;
        :data:`llm_arithmetic.formulas.engine.held_params`); ``weight_bytes`` at tp 1 [B].
    draft_copy_bytes : float
        The draft's extra copies on one replica, as ``weight_bytes_held`` counts the model's:
        what tensor parallelism holds whole on every chip of a draft model's or a
        multi-token-prediction module's blocks (and a draft model's final norm), at the draft's
        bits; 0 without a draft or at tp 1 [B].
    weight_bytes_per_chip : float
        The weights one chip of the replica holds, the draft's with the target's: the replica's,
        every copy counted, over its chips (on average over the pipeline stages) [B].
    fits_per_chip : bool or None
    max_batch_per_replica : int or None
        Sequences that fit on the replica at that context [-].
    """

    model: str
    hardware: str | None
    bits_weight: float
    bits_kv: float
    context: int
    attended_context: int | float
    batch: int
    experts_read: int | float
    bandwidth: float | None
    peak_flops: float | None
    compute_precision: str
    attention_precision: str
    attention_peak_flops: float | None
    capacity: int | None
    params_total: int
    params_language_model: int
    params_extra: dict
    params_extra_in_total: dict
    params_active: int
    params_matmul: int
    params_read_per_token: int
    weight_bytes: int | float
    kv_cache_bytes_per_token: int | float
    kv_cache_bytes: int | float
    kv_cache_bytes_full_storage: int | float
    state_bytes: int | float
    state_matrix_bytes: int | float
    decode_bytes_per_token: int | float
    decode_step_bytes: int | float
    decode_flops_per_token: int | float
    decode_memory_seconds: float | None
    decode_compute_seconds: float | None
    decode_seconds_per_token: float | None
    decode_tokens_per_second: float | None
    throughput_tokens_per_second: float | None
    bound: str | None
    ops_per_byte: float | None
    critical_batch_size: float | None
    memory_required_bytes: int | float
    fits: bool | None
    max_batch: int | None
    max_context: int | None
    trained_context: int | None
    tp: int = 1
    ep: int = 1
    pp: int = 1
    n_chips: int = 1
    prompt: int | None = None
    generate: int | None = None
    serving_context: int | float = 1
    link_bandwidth: float | None = None
    link_latency: float | None = None
    scale_up_bandwidth: float | None = None
    scale_out_bandwidth: float | None = None
    scale_up_latency: float | None = None
    scale_out_latency: float | None = None
    allreduce_algorithm: str = "ring"
    overlap: bool = True
    node_limit: int | None = None
    dispatch_bits: float | None = None
    ttft_serialized_seconds: float | None = None
    tpot_serialized_seconds: float | None = None
    ttft_seconds: float | None = None
    tpot_seconds: float | None = None
    request_seconds: float | None = None
    tokens_per_second_per_user: float | None = None
    tokens_per_second_per_chip: float | None = None
    cost_per_million_tokens: float | None = None
    energy_joules_per_token: float | None = None
    allreduce_seconds_per_token: float | None = None
    alltoall_seconds_per_token: float | None = None
    allgather_seconds_per_token: float | None = None
    price_per_hour: float | None = None
    power_watts: float | None = None
    memory_per_chip_bytes: int | float = 0
    weight_bytes_held: int | float | None = None
    draft_copy_bytes: int | float | None = None
    weight_bytes_per_chip: int | float | None = None
    fits_per_chip: bool | None = None
    max_batch_per_replica: int | None = None
    draft_len: int | None = None
    acceptance: float | None = None
    draft_cost: float | None = None
    draft_chip_cost: float | None = None
    draft_layers: int | None = None
    draft_memory_bytes: int | float | None = None
    fits_without_draft: bool | None = None
    fits_per_chip_without_draft: bool | None = None
    spec_tokens_per_step: float | None = None
    speculative_seconds_per_token: float | None = None
    speculative_tokens_per_second: float | None = None
    speculative_tpot_seconds: float | None = None
    speculative_tokens_per_second_per_chip: float | None = None
    speculative_request_seconds: float | None = None
    speculative_cost_per_million_tokens: float | None = None
    speculative_energy_joules_per_token: float | None = None
    weights_as: str = ""
    images: int | None = None
    image_size: tuple | None = None
    image_tokens_per_image: int | None = None
    image_tokens: int | None = None
    vision_patches_per_image: int | None = None
    vision_prefill_flops: int | float | None = None
    vision_weight_bytes: int | float | None = None
    vision_prefill_seconds: float | None = None
    video_seconds: float | None = None
    video_fps: float | None = None
    video_size: tuple | None = None
    video_frames: int | None = None
    video_tokens: int | None = None
    video_separator_tokens: int | None = None
    video_patches: int | None = None
    audio_seconds: float | None = None
    audio_frames: int | None = None
    audio_tokens: int | None = None
    audio_prefill_flops: int | None = None
    audio_weight_bytes: int | float | None = None
    audio_prefill_seconds: float | None = None
    image_states: int | None = None
    cross_kv_flops: int | None = None
    image_kv_bytes: int | float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as JSON-ready values (exact numbers as int or float, inf as None)."""
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, Fraction):
                d[k] = exact_result(v)
            elif isinstance(v, float) and math.isinf(v):
                d[k] = None
        return d


def weight_bits(model: Model, weights: str | None = None, bits_weight: Any = None) -> Any:
    """Bits per weight of ``model`` for a format name, a llama.cpp file type (``"q4_k_m"``:
    computed per model from its tensors, :func:`~llm_arithmetic.catalog.formats.mix_bits`) or a
    number; None for neither (the checkpoint as shipped) [bit]."""
    if weights is not None and bits_weight is not None:
        raise InputError("give either weights (a format name) or bits_weight, not both")
    if weights is None and bits_weight is None:
        return None
    mix = file_type(weights)
    if mix is not None:
        return mix_bits(model, mix.name)
    return bits_per_weight(weights if weights is not None else bits_weight)


def _bytes_text(b: float) -> str:
    """A byte count for a note: three significant figures in MB or GB (10^6, 10^9 B)."""
    return f"{b / 1e9:.3g} GB" if abs(b) >= 1e9 else f"{b / 1e6:.3g} MB" if abs(b) >= 1e6 \
        else f"{b:,.0f} B"


def block_format_note(model: Model, weights: Any) -> str | None:
    """One line where ``weights`` is a bare name that is both a block format and a llama.cpp
    file type (``q2_k``, ``q4_0``, ``q6_k``, ``q8_0``): it is read as the block format, every
    weight at the block's bits, and ``mostly_`` + the name asks for the file llama.cpp writes,
    whose rules type some tensors otherwise (a Q4_0 file's output head at Q6_K, its 1-D tensors
    at F32), with the weight bytes the file adds for ``model`` (or a word that its tensors are
    not modelled for it). None for any other name.

    >>> block_format_note(get_model("llama-2-7b"), "Q4_0")
    "'Q4_0' is read as the block format (every weight at 4.5 bits); the llama.cpp Q4_0 file, whose rules give some tensors other types, is mostly_q4_0 (34.7 MB more for llama-2-7b)"
    >>> block_format_note(get_model("llama-2-7b"), "q4_k_m") is None
    True
    """
    key = shared_name(weights)
    if key is None:
        return None
    note = (f"{weights.strip()!r} is read as the block format (every weight at "
            f"{float(BITS_PER_WEIGHT[key]):g} bits); the llama.cpp {key.upper()} file, whose "
            f"rules give some tensors other types, is {FILE_TYPE_PREFIX}{key}")
    try:
        block, whole = (model.plan.child(**weight_inputs(model, w)).get("weight_bytes")
                        for w in (key, FILE_TYPE_PREFIX + key))
    except InputError:   # a family whose llama.cpp tensors are not modelled: no byte count
        return f"{note} (its tensors are not modelled for {model.name})"
    more = float(whole - block)
    return (f"{note} ({_bytes_text(abs(more))} {'more' if more >= 0 else 'less'} for "
            f"{model.name})")


def warn_block_format(model: Model, weights: Any, stacklevel: int = 2) -> None:
    """Warn (:class:`FileTypeWarning`, :func:`block_format_note`'s line) where ``weights`` is a
    block format's name that is also a llama.cpp file type's."""
    note = block_format_note(model, weights)
    if note is not None:
        warnings.warn(note, FileTypeWarning, stacklevel=stacklevel + 1)


def weight_inputs(model: Model, weights: str | None = None,
                  bits_weight: Any = None) -> dict[str, Any]:
    """The plan's weight inputs for a format name, a llama.cpp file type or a number: one
    ``bits_weight`` for every weight of a format or a number (:func:`weight_bits`); for a file
    type, the bits of the parts the plan counts apart, as it does a checkpoint's own
    (``native_bits_*``), so that a decode step reads each part at its own bits, not at the
    file's mean [bit]. Most file types take them from the types of the file's tensors
    (:func:`~llm_arithmetic.catalog.formats.mix_parts`): the embedding rows a step does not
    read (``unread``: an untied input table, Gemma 4 E2B/E4B's per-layer table), the routed
    experts' matrices (``experts``) and every other weight (``default``). So does a file type
    that names the experts' type (``mxfp4_moe``: experts MXFP4, every other matrix Q8_0, the
    1-D tensors and routers F32 as in ggml-org's gpt-oss files: the experts' matrices at 4.25
    bits with their F32 biases, the rest a little above Q8_0's 8.5). A model's
    multi-token-prediction module follows the weights asked as the rest does: its own bits as
    shipped (``native_bits_draft``, ``native_bits_draft_experts``) give way to them.

    >>> m = get_model("gpt-oss-20b")
    >>> weight_inputs(m, "q8_0")
    {'bits_weight': Fraction(17, 2)}
    >>> i = weight_inputs(m, "mxfp4_moe")
    >>> i["bits_weight"], round(float(i["native_bits_experts"]), 3)
    (None, 4.258)
    >>> round(float(i["native_bits_default"]), 3), i["native_bits_unread"]
    (8.549, Fraction(17, 2))
    >>> i = weight_inputs(get_model("gemma-4-e4b"), "q4_k_m")
    >>> i["bits_weight"], i["native_bits_unread"], round(float(i["native_bits_default"]), 3)
    (None, Fraction(105, 16), 5.12)
    """
    mix = file_type(weights)
    if mix is None or bits_weight is not None:
        # one figure for every weight (weight_bits also refuses weights and bits_weight both)
        return {"bits_weight": weight_bits(model, weights, bits_weight)}
    parts = mix_parts(model, mix.name)
    # what tensor parallelism copies, at the types the file gives those tensors (norms and
    # biases F32, key/value projections at attn_k's and attn_v's types, ...); a class the file
    # types do not price, at the file's bits for the other weights
    return {"bits_weight": None, **module_follows(model),
            **{f"native_bits_{k}": v for k, v in parts.items()},
            **{f"native_bits_copy_{k}": v for k, v in mix_copy_bits(model, mix.name).items()}}


def module_follows(model: Model) -> dict[str, Any]:
    """The plan's inputs that make a multi-token-prediction module's weights, and the copies a
    tensor-parallel group holds, follow the parts of a llama.cpp file type asked for the model:
    their own bits as shipped (``native_bits_draft``, ``native_bits_draft_experts``,
    ``native_bits_copy_*``, ``native_bits_draft_copy_*``, the shared head's
    ``native_bits_head``) set to None, so that the plan counts them at the file's bits for
    the same parts; {} where the model has none of its own.

    >>> sorted(module_follows(get_model("deepseek-v3")))[-3:], module_follows(get_model("llama-3-8b"))
    (['native_bits_draft_experts', 'native_bits_draft_inputs', 'native_bits_head'], {})
    """
    return {f"native_bits_{k}": None for k in ("draft", "draft_experts", "draft_inputs",
                                                "draft_blocks", "head", "copy_heads",
                                                "copy_matrices", "copy_router", "copy_plain",
                                                "draft_copy_heads", "draft_copy_matrices",
                                                "draft_copy_router", "draft_copy_plain")
            if k in model.native_bits}


def weights_as(model: Model, weights: Any = None, bits_weight: Any = None) -> str:
    """Which weights an estimate counts, in words: the checkpoint's own (its quantization
    scheme, or 16-bit) unless a format or a number of bits was given.

    >>> weights_as(get_model("deepseek-v3"))
    'as shipped: fp8 block-scaled 128x128'
    >>> weights_as(get_model("llama-3-8b")), weights_as(get_model("llama-3-8b"), "q4_k_m")
    ('as shipped: 16-bit', 'as asked: q4_k_m')
    """
    if weights is not None:
        return f"as asked: {weights}"
    if bits_weight is not None:
        return f"as asked: {float(bits_weight):g} bits"
    if model.scheme is not None:
        return f"as shipped: {model.scheme.label}"
    return f"as shipped: {float(model.native_bits['default']):g}-bit"


def serving_argument(label: str, v: Any) -> float | None:
    """A serving figure (``price_per_hour`` [USD/h], ``power_watts`` [W] or
    ``link_bandwidth`` [B/s]) as :func:`estimate` checks it: None stays None, else a positive
    finite float within the figure's plausible range, or an :class:`InputError` that names the
    figure and its unit.

    >>> serving_argument("price_per_hour", 2), serving_argument("power_watts", None)
    (2.0, None)
    >>> serving_argument("link_bandwidth", 900)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: link_bandwidth = 900 B/s is implausibly small (the unit is B/s)
    """
    if v is None:
        return None
    x = _number(label, v)
    low, high, unit, why = SERVING_RANGES[label]
    if not math.isfinite(x) or x <= 0:
        raise InputError(f"{label} must be a positive finite number [{unit}], got {v!r:.40}")
    if x < low:
        raise InputError(f"{label} = {x:g} {unit} is implausibly small (the unit is {unit})")
    if x > high:
        raise InputError(f"{label} = {x:.3g} {unit} is beyond the plausibility limit "
                         f"{high:g} ({why})")
    return x


def parallel_degrees(model: Model, tp: Any, ep: Any, pp: Any) -> tuple[int, int, int]:
    """The tensor-, expert- and pipeline-parallel degrees as :func:`estimate` checks them for
    ``model``: each a positive integer (:func:`count_argument`); tp divides every attention
    layer's heads, and divides its KV heads or is a multiple of them (vLLM's
    ``QKVParallelLinear``: fewer KV heads than chips are copied, whole), divides a Mamba-2
    mixer's heads, and its B/C groups unless it has one (``MambaMixer2``: a lone group is
    copied to every chip), divides a lightning attention mixer's heads and a Mamba-1 mixer's or
    a gated memory unit's channels, pp is at most the layers, and ep > 1 needs a mixture whose experts it
    divides among the replica's tp x pp chips; else an :class:`InputError` saying which.

    >>> m = get_model("mixtral-8x7b")
    >>> parallel_degrees(m, 4, 4, 2)
    (4, 4, 2)
    >>> parallel_degrees(m, 3, 1, 1)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 3 does not divide the 32 attention heads of mixtral-8x7b's layers (tensor parallelism gives each chip whole heads)
    >>> parallel_degrees(get_model("qwen2.5-7b"), 14, 1, 1)   # 28 heads, 4 KV heads
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 14 neither divides the 4 KV heads of qwen2.5-7b's layers nor is a multiple of them (each chip holds whole KV heads, or one head copied on tp / KV heads chips)
    >>> parallel_degrees(get_model("nemotron-h-56b"), 16, 1, 1)   # 8 groups
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 16 does not divide the 8 B/C groups of nemotron-h-56b's Mamba-2 mixers (vLLM splits the groups, or copies a single group to every chip)
    """
    tp, ep, pp = count_argument("tp", tp), count_argument("ep", ep), count_argument("pp", pp)
    heads = [run.attention.n_heads for run in model.layers if run.attention is not None]
    if heads and tp > min(heads):
        raise InputError(f"tp = {tp} exceeds the {min(heads)} attention heads of {model.name}'s "
                         "layers: tensor parallelism splits heads, not parts of one")
    if any(h % tp for h in heads):
        raise InputError(f"tp = {tp} does not divide the {min(heads)} attention heads of "
                         f"{model.name}'s layers (tensor parallelism gives each chip whole heads)")
    kv = sorted({run.attention.n_kv_heads for run in model.layers if run.attention is not None})
    odd = [k for k in kv if k % tp and tp % k]
    if odd:
        raise InputError(f"tp = {tp} neither divides the {odd[0]} KV heads of {model.name}'s "
                         "layers nor is a multiple of them (each chip holds whole KV heads, or "
                         "one head copied on tp / KV heads chips)")
    # vLLM's MambaMixer2 splits a Mamba-2 mixer's heads and its B/C groups, copying a lone
    # group to every chip (formulas/engine.py): tp must divide the heads, and the groups unless
    # there is one
    for mx in sorted({(run.mixer.n_heads, run.mixer.n_groups) for run in model.layers
                      if isinstance(run.mixer, Mamba2)}):
        if mx[0] % tp:
            raise InputError(f"tp = {tp} does not divide the {mx[0]} heads of {model.name}'s "
                             "Mamba-2 mixers (tensor parallelism gives each chip whole heads)")
        if mx[1] % tp and mx[1] != 1:
            raise InputError(f"tp = {tp} does not divide the {mx[1]} B/C groups of "
                             f"{model.name}'s Mamba-2 mixers (vLLM splits the groups, or "
                             "copies a single group to every chip)")
    # vLLM splits a lightning attention mixer by heads (asserting tp divides them), a Mamba-1
    # mixer and a gated memory unit by channels (column-parallel projections: tp divides
    # d_inner, d_gmu); formulas/engine.py pins the files
    for kind, what, width in (
            (LightningAttention, "heads of {}'s lightning attention mixers", "la_heads"),
            (Mamba1, "inner channels of {}'s Mamba-1 mixers", "d_inner"),
            (GatedMemoryUnit, "channels of {}'s gated memory units", "memory_width")):
        for n in sorted({getattr(run.mixer, width) for run in model.layers
                         if isinstance(run.mixer, kind)}):
            if n % tp:
                raise InputError(f"tp = {tp} does not divide the {n} "
                                 + what.format(model.name)
                                 + " (tensor parallelism gives each chip whole ones)")
    if pp > model.n_layers:
        raise InputError(f"pp = {pp} exceeds the {model.n_layers} layers of {model.name}")
    if ep > 1:
        if not model.is_moe:
            raise InputError(f"ep = {ep} needs a mixture of experts; {model.name} is dense")
        if ep > model.n_experts:
            raise InputError(f"ep = {ep} exceeds the {model.n_experts} experts of {model.name}")
        if (tp * pp) % ep:
            raise InputError(f"ep = {ep} must divide the replica's tp x pp = {tp * pp} chips "
                             "(the experts are split over the same chips)")
    return tp, ep, pp


#: Estimate fields that are the caller's inputs, checked, rather than steps of the plan (and a
#: cross-attention model's images' values, set only where such images are: None, not the
#: plan's 0, without them).
INPUT_FIELDS = ("model", "hardware", "bits_kv", "context", "batch", "params_extra",
                "params_extra_in_total", "weights_as",
                "trained_context", "tp", "ep", "pp", "prompt", "generate", "price_per_hour",
                "node_limit", "dispatch_bits", "draft_len", "acceptance", "draft_layers",
                "images", "image_size", "image_tokens_per_image", "vision_patches_per_image",
                "vision_prefill_flops", "video_tokens", "video_seconds", "video_fps",
                "video_size", "video_frames", "video_separator_tokens", "video_patches",
                "audio_seconds", "audio_frames", "audio_tokens", "audio_prefill_flops",
                "image_states", "cross_kv_flops", "image_kv_bytes")
#: Estimate fields whose step of the plan has another name.
_STEP_NAMES = {"bits_weight": "bits_weight_effective", "params_total": "total_params",
               "params_language_model": "language_model_params",
               "params_active": "active_params", "params_matmul": "matmul_params",
               "params_read_per_token": "decode_read_params", "state_bytes": "batch_state_bytes",
               "state_matrix_bytes": "batch_state_matrix_bytes",
               "decode_flops_per_token": "decode_flops", "power_watts": "power",
               "scale_up_bandwidth": "up_link", "scale_out_bandwidth": "out_link",
               "scale_up_latency": "up_latency", "scale_out_latency": "out_latency",
               "overlap": "overlapping", "allreduce_algorithm": "allreduce_used",
               "draft_cost": "draft_cost_used", "draft_chip_cost": "draft_chip_cost_used"}
#: Estimate field -> the plan's step that gives it.
FIELD_STEPS = {f.name: _STEP_NAMES.get(f.name, f.name) for f in fields(Estimate)
               if f.name not in INPUT_FIELDS}
#: Largest batch the critical-batch search tries before it says there is none.
CROSSING_LIMIT = 1e12


def chip_inputs(chip: Hardware | None) -> dict[str, Any]:
    """A chip's figures as the plan reads them (all None without a chip)."""
    if chip is None:
        return dict(chip_bandwidth=None, chip_capacity=None, chip_power=None, chip_peaks=None,
                    chip_interconnect=None, chip_vendor=None)
    ic = chip.interconnect
    return dict(chip_bandwidth=chip.bandwidth, chip_capacity=chip.capacity,
                chip_power=chip.power, chip_vendor=chip.vendor,
                chip_peaks={k: {"rate": p.rate} for k, p in chip.peaks.items()},
                chip_interconnect={"scale_up_domain": ic.scale_up_domain,
                                   "scale_up_bandwidth": ic.scale_up_bandwidth,
                                   "pcie_bandwidth": ic.pcie_bandwidth,
                                   "scale_out_bandwidth": ic.scale_out_bandwidth,
                                   "scale_up_in_switch_reduction":
                                       ic.scale_up_in_switch_reduction,
                                   "scale_up_topology": ic.scale_up_topology,
                                   "scale_up_latency": ic.scale_up_latency,
                                   "scale_out_latency": ic.scale_out_latency})


def peak_for(chip: Hardware, weights: Any, bits_weight: Any = None) -> float | None:
    """The dense peak the plan uses on ``chip`` for weights of a format: the rate of its
    ``compute_precision`` step (the first precision of the format's chain that the chip lists,
    or that precision's faster mode where the chip lists one: a GeForce card's fp16-acc16)
    [FLOP/s]."""
    precision = compute_precision(weights, bits_weight, chip.peaks, chip.vendor)
    return chip.peaks[precision].rate if precision in chip.peaks else None


def attention_peak_for(chip: Hardware, bits_kv: Any = 16) -> float | None:
    """The dense peak attention's products take on ``chip`` over a cache of ``bits_kv`` bits
    an element, as the plan takes it (its ``attention_precision``: the cache's precision,
    whatever the weights') [FLOP/s]; None where the chip lists none.

    >>> attention_peak_for(get_hardware("rtx-4090")) / 1e12, attention_peak_for(
    ...     get_hardware("h100-sxm"), 8) / 1e12
    (330.3, 1978.9)
    """
    precision = attention_precision(bits_per_weight(bits_kv), chip.peaks, chip.vendor)
    return chip.peaks[precision].rate if precision in chip.peaks else None


def _step_peak(step: str, model: Any, chip: Hardware, weights: Any, bits_kv: Any, name: str,
               at: Any) -> Any:
    """The plan's effective rate ``step`` of one step (``prefill_peak_or_inf``,
    ``decode_peak_or_inf``) on ``chip``, with the plan's input ``name`` (``prompt``,
    ``context``) at ``at``, checked as :func:`estimate` checks it: one rate for a number, an
    ndarray of one rate each for a sequence [FLOP/s]."""
    ev = estimate(model, hardware=chip, weights=weights, bits_kv=bits_kv)._plan
    rate = (lambda x: float(ev.child(**{name: count_argument(name, x)}).get(step)))
    return rate(at) if np.ndim(at) == 0 else np.array([rate(x) for x in at])


def prefill_peak_for(model: Any, chip: Hardware, weights: Any, prompt: Any,
                     bits_kv: Any = 16) -> Any:
    """The rate a prefill of ``prompt`` tokens takes its FLOPs at on ``chip``, as the estimate
    times it (the plan's ``prefill_peak_or_inf``): the weights' products at their format's rate
    and attention's at the cache's (:data:`~llm_arithmetic.formulas.roofline.step_peak_flops`);
    infinite where the chip lists no peak [FLOP/s]. For a sequence of prompts, one rate each
    (an ndarray). A chunked prefill has the same FLOPs, so the same rate.

    >>> r = prefill_peak_for("llama-3.1-8b", get_hardware("rtx-4090"), "q4_0", [1, 8192])
    >>> [round(float(x) / 1e12, 1) for x in r]
    [660.6, 582.9]
    """
    return _step_peak("prefill_peak_or_inf", model, chip, weights, bits_kv, "prompt", prompt)


def decode_peak_for(model: Any, chip: Hardware, weights: Any, context: Any,
                    bits_kv: Any = 16) -> Any:
    """The rate a decode step at ``context`` cached tokens takes its FLOPs at on ``chip``, as
    the estimate times it (the plan's ``decode_peak_or_inf``): the weights' products at their
    format's rate and attention's at the cache's
    (:data:`~llm_arithmetic.formulas.roofline.step_peak_flops`); infinite where the chip lists
    no peak [FLOP/s]. For a sequence of contexts, one rate each (an ndarray). Attention's share
    of a step's FLOPs does not depend on the batch, nor on how many tokens of each sequence a
    step verifies, so neither changes the rate.

    >>> round(decode_peak_for("llama-3.1-8b", get_hardware("rtx-4090"), "q4_0", 16384) / 1e12, 1)
    484.3
    """
    return _step_peak("decode_peak_or_inf", model, chip, weights, bits_kv, "context", context)


def _latency(link_latency: Any) -> float | None:
    """A given latency of one collective step [s] (None: the catalog's, or the default)."""
    if link_latency is None:
        return None
    try:
        link_latency = float(link_latency)
    except (TypeError, ValueError):
        raise InputError(f"link_latency must be a number [s], got {link_latency!r:.40}") from None
    if not (math.isfinite(link_latency) and 0 <= link_latency <= 1):
        raise InputError(f"link_latency is in seconds and must lie in [0, 1], got "
                         f"{link_latency!r:.40}")
    return link_latency


#: The all-reduce algorithms inside a scale-up domain (None: where the chip's switches reduce, the
#: faster of the switch's reduction and direct all-reduces; else direct where every chip reaches
#: every other, else the ring).
ALLREDUCE_ALGORITHMS = ("ring", "switch", "direct")


def _comm_options(*, overlap: Any, allreduce: Any, node_limit: Any,
                  dispatch_bits: Any) -> dict[str, Any]:
    """The communication options checked and named as the plan's inputs."""
    if not isinstance(overlap, (bool, np.bool_)):
        raise InputError(f"overlap must be True or False, got {overlap!r:.40}")
    if allreduce is not None and allreduce not in ALLREDUCE_ALGORITHMS:
        raise InputError(f"allreduce must be one of {', '.join(ALLREDUCE_ALGORITHMS)}, got "
                         f"{allreduce!r:.40}")
    if node_limit is not None:
        node_limit = count_argument("node_limit", node_limit)
    if dispatch_bits is not None:
        try:
            dispatch_bits = bits_per_weight(dispatch_bits)
        except InputError as err:
            raise InputError(f"dispatch_bits: {err}") from None
    return dict(overlap=bool(overlap),
                allreduce_asked=allreduce,
                node_limit=node_limit, dispatch_bits=dispatch_bits)


def _check_direct(allreduce: Any, chip: Hardware | None) -> None:
    """Direct all-reduces need a domain where every chip reaches every other: an error on a
    chip whose catalog says its domain is a ring or a torus."""
    topology = chip.interconnect.scale_up_topology if chip is not None else ""
    if allreduce == "direct" and topology and topology not in FULLY_CONNECTED:
        raise InputError(f"allreduce='direct' needs chips that all reach one another (a switch "
                         f"or a full mesh); {chip.name}'s scale-up domain is a {topology}")


def plan_inputs(model: str | Path | Model, *, weights: Any = None, bits_weight: Any = None,
                bits_kv: Any = None, context: Any = 1, batch: Any = 1, bandwidth: Any = None,
                peak_flops: Any = None, capacity: Any = None, overhead: Any = 0, tp: Any = 1,
                ep: Any = 1, pp: Any = 1, prompt: Any = None, generate: Any = None,
                price_per_hour: Any = None, power_watts: Any = None, link_bandwidth: Any = None,
                link_latency: Any = None, overlap: Any = True, allreduce: Any = None,
                node_limit: Any = None, dispatch_bits: Any = None,
                bits_ssm: Any = None) -> dict[str, Any]:
    """:func:`estimate`'s arguments (its defaults, but no chip and no speculation) checked as
    it checks them (an :class:`InputError` naming a bad one; a :class:`ContextWarning` beyond
    the trained context) and named as the inputs of the model's plan, to which
    :func:`chip_inputs` adds a chip's: what a caller that evaluates the plan itself starts from
    (a search over many points, or an input the estimate does not take, such as a format's
    compute precision beside a file's own bits: set ``weight_format`` to
    :func:`~llm_arithmetic.catalog.format_compute.plan_format`'s record).

    >>> m = get_model("llama-3.1-8b")
    >>> g = plan_inputs(m, weights="q4_0", context=4096)
    >>> g["context"], g["batch"], g["bits_weight"], g["weight_format"]["compute"]
    (4096, 1, Fraction(9, 2), 'int8')
    >>> t = m.plan.child(**chip_inputs(get_hardware("rtx-4090")), **g).get(
    ...     "decode_seconds_per_token")
    >>> t == estimate(m, hardware="rtx-4090", weights="q4_0", context=4096
    ...              ).decode_seconds_per_token
    True
    >>> plan_inputs(m, context=0)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: context must be a positive integer, got 0
    """
    m = resolve_model(model)
    context = count_argument("context", context)
    batch = count_argument("batch", batch)
    tp, ep, pp = parallel_degrees(m, tp, ep, pp)
    prompt = None if prompt is None else count_argument("prompt", prompt)
    generate = None if generate is None else generated_argument(generate)
    link_latency = _latency(link_latency)
    comm = _comm_options(overlap=overlap, allreduce=allreduce, node_limit=node_limit,
                         dispatch_bits=dispatch_bits)
    if not isinstance(overhead, (Integral, np.integer)) or overhead < 0:
        raise InputError(f"overhead must be a non-negative integer [B], got {overhead!r:.40}")
    if capacity is not None:
        _rate("capacity", capacity)
        capacity = int(capacity)
    if m.cache_uncounted:  # the figures that need it come back missing (None): say why here
        warnings.warn(f"{m.name}: the KV cache and every figure that needs it are not counted "
                      f"(null): they need {m.cache_uncounted}", stacklevel=3)
    if m.trained_context and context > m.trained_context:
        warnings.warn(f"context {context:,} is beyond {m.name}'s trained context "
                      f"{m.trained_context:,} tokens", ContextWarning, stacklevel=3)
    warn_past_trained_context(m, prompt, generate, stacklevel=4)
    if bits_weight is None:
        warn_block_format(m, weights, stacklevel=3)
    kv_bits = bits_per_weight(m.native_kv_bits if bits_kv is None else bits_kv)
    if bits_ssm is not None:
        try:
            bits_ssm = bits_per_weight(bits_ssm)
        except InputError as err:
            raise InputError(f"bits_ssm: {err}") from None
    return dict(
        context=context, batch=batch, prompt=prompt, generate=generate, overhead=overhead,
        tp=tp, ep=ep, pp=pp, given_link_latency=link_latency, **comm,
        price_per_hour=serving_argument("price_per_hour", price_per_hour),
        **weight_inputs(m, weights, bits_weight), weight_format=plan_format(weights),
        bits_kv=kv_bits, bits_state=STATE_WINDOW_BITS, bits_ssm=bits_ssm,
        given_bandwidth=_rate("bandwidth", bandwidth),
        given_peak_flops=_rate("peak_flops", peak_flops), given_capacity=capacity,
        given_power=serving_argument("power_watts", power_watts),
        given_link_bandwidth=serving_argument("link_bandwidth", link_bandwidth),
        context_limit=LIMITS["context"], crossing_limit=CROSSING_LIMIT)


#: Speculative workloads with a published acceptance rate: draft length, acceptance, and the
#: draft step's cost (``"module"``: the roofline time of one step of the model's own module over
#: a plain step's of the target, the plan's ``module_draft_cost``), each with its source. Any
#: other workload gives its acceptance explicitly.
#: ``module``: the module the model must declare for the workload to apply
#: (:meth:`~llm_arithmetic.catalog.model.Model.has_mtp`), by one of the config fields
#: ``module_fields``.
SPECULATIVE_WORKLOADS: dict[str, dict[str, Any]] = {
    "mtp": {"draft_len": 1, "acceptance": 0.85, "draft_cost": "module",
            "module": MTP_EXTRA,
            "module_fields": ("num_nextn_predict_layers", "mtp_num_hidden_layers",
                              "num_mtp_modules"),
            "source": "DeepSeek-V3 technical report (arXiv 2412.19437), section 5.4.3: the "
                      "second token's acceptance rate 'ranges between 85% and 90% across "
                      "various generation topics' (the lower end taken); a draft step runs "
                      "one MTP module: its projection, its block(s) and the shared output "
                      "head (section 2.2)"},
}


def draft_step_ratio(draft: Model, target: Model, **at: Any) -> float:
    """A draft model's step time over the target's, both on one chip at the workload ``at``
    (:func:`estimate`'s arguments): the bound of one decode step at ``context``, or, where
    ``at`` has a ``prompt``, the time per output token of a request (the step at the mean
    decode context P + (G + 1)/2) [-].

    >>> r1 = draft_step_ratio(resolve_model("qwen3-0.6b"), resolve_model("qwen3-8b"),
    ...                       hardware="h100-sxm", batch=64, context=1)
    >>> r2 = draft_step_ratio(resolve_model("qwen3-0.6b"), resolve_model("qwen3-8b"),
    ...                       hardware="h100-sxm", batch=64, prompt=8192, generate=256)
    >>> round(r1, 3) < round(r2, 3)    # the draft's own cache weighs more at a long context
    True
    """
    key = "tpot_seconds" if at.get("prompt") is not None else "decode_seconds_per_token"
    t = [getattr(estimate(x, **at), key) for x in (draft, target)]
    return t[0] / t[1]


#: The most token ids by which a draft's vocabulary may differ from the target's: llama.cpp's
#: SPEC_VOCAB_MAX_SIZE_DIFFERENCE (ggml-org/llama.cpp@6c8a04576e2cfa04261019fe8cbdc90c5cfc90fb
#: common/speculative.cpp, common_speculative_are_compatible, which compares the two GGUF
#: vocabularies' token counts, then their special tokens and every token's text).
DRAFT_VOCAB_TOLERANCE = 128


class DraftWarning(UserWarning):
    """A draft model the estimate takes, though an engine refuses it or it cannot pay."""


def check_draft(draft: Model, target: Model, engine: str | None = None) -> None:
    """What a draft model must share with its target: the target verifies the token ids the
    draft proposes, so both read one tokenizer. The catalog records no tokenizer, so the test
    is on ``vocab_size`` (each config's embedding rows): an :class:`InputError` where the two
    differ by more than :data:`DRAFT_VOCAB_TOLERANCE` ids, which llama.cpp refuses as
    incompatible vocabularies (its older releases then translated text between the two, a
    different algorithm from the one this arithmetic prices) and vLLM too; a
    :class:`DraftWarning` where they differ by less, as one family's models pad their tables
    differently (Qwen2.5 0.5B 151,936 rows, 7B 152,064): llama.cpp runs such a pair, its
    GGUF converter padding the token list to ``vocab_size``, while vLLM refuses any difference
    (vllm-project/vllm@f19b16d95e4395790661f4835e4436bc3dd5d9c7 vllm/config/speculative.py,
    verify_equal_vocab_size_if_draft_model); with ``engine="vllm"`` that refusal is an error.
    SGLang's draft-model worker checks neither (sgl-project/sglang@d0979b91f9e55721cb7606e38ae9
    1fc67d4911dc python/sglang/srt/speculative/standalone_worker.py loads the draft with no
    test of its vocabulary): the rule here is the tokenizer's, not one engine's.
    Equal sizes do not prove one tokenizer (Llama 2 and Mistral 7B both have 32,000 ids).
    A draft that reads at least as many parameters a decode step as the target costs at
    least a target step, so speculation cannot speed decoding up: a warning, not an error.

    >>> check_draft(get_model("qwen3-0.6b"), get_model("qwen3-8b"))
    >>> check_draft(get_model("llama-3.2-1b"), get_model("qwen3-8b"))
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: draft: llama-3.2-1b's vocab_size (128,256) differs from qwen3-8b's (151,936) by 23,680 token ids: a draft's tokens are verified by the target, so the two need one tokenizer (llama.cpp accepts a difference of at most 128 ids, vLLM none)
    """
    dv, tv = draft.n_vocab, target.n_vocab
    gap = abs(dv - tv)
    sizes = (f"{draft.name}'s vocab_size ({dv:,}) differs from {target.name}'s ({tv:,}) by "
             f"{gap:,} token id{'s' if gap != 1 else ''}")
    if gap > DRAFT_VOCAB_TOLERANCE:
        raise InputError(f"draft: {sizes}: a draft's tokens are verified by the target, so the "
                         f"two need one tokenizer (llama.cpp accepts a difference of at most "
                         f"{DRAFT_VOCAB_TOLERANCE} ids, vLLM none)")
    if gap and engine == "vllm":
        raise InputError(f"draft: {sizes}: vLLM refuses a draft model whose vocab_size differs "
                         "from the target's (llama.cpp accepts up to "
                         f"{DRAFT_VOCAB_TOLERANCE})")
    if gap:
        warnings.warn(f"draft: {sizes}, within the {DRAFT_VOCAB_TOLERANCE} that llama.cpp "
                      "accepts (one tokenizer, its embedding table padded differently); vLLM "
                      "refuses a draft model whose vocab_size differs", DraftWarning,
                      stacklevel=3)
    dp, tp_ = draft.decode_read_params, target.decode_read_params
    if dp >= tp_:
        warnings.warn(f"draft: {draft.name} reads {dp:,} parameters a decode step, no fewer "
                      f"than the target {target.name}'s {tp_:,}: a draft step costs at least a "
                      "target step, so speculation cannot speed decoding up", DraftWarning,
                      stacklevel=3)


def draft_model(draft: Any, target: Model, engine: str | None = None) -> Model:
    """The draft model (a Model, a catalog name or a config.json) whose bound, over the
    target's, is a draft step's cost: an InputError where either model's bound is not
    counted (a cache the library does not model) or where the two cannot share a tokenizer,
    a warning where the draft cannot pay (:func:`check_draft`; ``engine``: the engine whose
    rule applies, None for none)."""
    draft = resolve_model(draft)
    for x, role in ((draft, "the draft's"), (target, "the target's")):
        if x.cache_uncounted:
            raise InputError(f"draft: a draft step's cost is its bound over the target's, and "
                             f"{role} ({x.name}) is not counted: it needs {x.cache_uncounted}")
    check_draft(draft, target, engine)
    return draft


def offered_drafts(target: Any, candidates: Any = None) -> list[str]:
    """The catalog's models a page offers ``target`` as a draft model: those with fewer
    parameters than it (a larger draft cannot pay) that :func:`draft_model` takes (no
    :class:`InputError`: both caches counted, one tokenizer), in the catalog's order;
    ``candidates``: names to choose from (None: the whole catalog). The page's list is this one,
    exported (:func:`llm_arithmetic.book.export.catalog_data`'s ``drafts``).

    >>> "qwen3-0.6b" in offered_drafts("qwen3-8b"), "llama-3.2-1b" in offered_drafts("qwen3-8b")
    (True, False)
    >>> offered_drafts("qwen3-0.6b", ["qwen3-8b"])   # larger: not offered
    []
    """
    target = resolve_model(target)
    out = []
    for name in (MODELS if candidates is None else candidates):
        m = get_model(name)
        if m.name == target.name or m.total_params >= target.total_params:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DraftWarning)
                draft_model(m, target)
        except InputError:
            continue
        out.append(name)
    return out


def draft_degrees(draft: Model, tp: Any, pp: Any) -> None:
    """An :class:`InputError` where a draft model cannot be split over a replica of ``tp`` x
    ``pp`` chips as the target is (its weights, and its cache by key/value heads): the checks
    :func:`parallel_degrees` makes of the target, made of the draft.

    >>> draft_degrees(get_model("qwen3-0.6b"), 8, 1)
    >>> draft_degrees(get_model("gemma-3-1b"), 8, 1)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: draft: tp = 8 exceeds the 4 attention heads of gemma-3-1b's layers: tensor parallelism splits heads, not parts of one (the draft is split over the replica's chips as the target is)
    """
    try:
        parallel_degrees(draft, tp, 1, pp)
    except InputError as e:
        raise InputError(f"draft: {e} (the draft is split over the replica's chips as the "
                         "target is)") from None


def warn_past_trained_context(m: Model, prompt: int | None, generate: int | None,
                              stacklevel: int = 2) -> None:
    """A :class:`ContextWarning` where a request of ``prompt`` tokens that generates
    ``generate`` more runs past the model's trained context."""
    g = generate if generate is not None else 0
    if prompt is not None and m.trained_context and prompt + g > m.trained_context:
        warnings.warn(f"prompt + generate = {prompt + g:,} tokens is beyond {m.name}'s trained "
                      f"context {m.trained_context:,}", ContextWarning, stacklevel=stacklevel)


#: Of a multi-token-prediction module's input norms and projection (one module's), what a
#: tensor-parallel engine holds whole on every chip, by how the checkpoint names the module
#: (``Extra.names``), in units of d and d^2: DeepSeek-V3's layout (and GLM's), ``enorm`` and
#: ``hnorm`` (RMSNorm) and ``eh_proj`` (2d x d), which vLLM builds as a plain ``nn.Linear``, not
#: split (vllm-project/vllm@4f7c14402630b97c8c078523fca8edef287ed2cf
#: ``vllm/model_executor/models/deepseek_mtp.py``, ``DeepSeekMultiTokenPredictorLayer``; GLM's
#: the same, @6e052ba8f4d97e43fb88a3288f3240ff4f73d7d2 ``glm4_moe_mtp.py``): 2d + 2d^2; Qwen3.5's,
#: its two norms only, ``mtp.fc`` being a ``ColumnParallelLinear`` (``qwen3_5_mtp.py``): 2d.
#: A module named otherwise: none (its inputs split as its blocks are).
MODULE_INPUTS_COPIED = {"layers": (2, 2), "mtp.layers": (2, 0)}


def module_copied_params(m: Model) -> int | None:
    """Parameters of the inputs of the module a draft step runs that a tensor-parallel engine
    holds whole on every chip (:data:`MODULE_INPUTS_COPIED`); None where not modelled.

    >>> module_copied_params(get_model("deepseek-v3")) == 2 * 7168 + 2 * 7168 ** 2
    True
    """
    d = m.d_model
    for x in m.mtp_extras():
        if not x.in_total and x.names in MODULE_INPUTS_COPIED:
            vecs, mats = MODULE_INPUTS_COPIED[x.names]
            return vecs * d + mats * d * d
    return None


def speculative_inputs(m: Model, *, speculation: str | None = None, draft_len: Any = None,
                       acceptance: Any = None, draft_cost: Any = None,
                       draft: Any = None, hardware: Any = None,
                       bandwidth: Any = None, at: dict[str, Any] | None = None,
                       tp: Any = 1, pp: Any = 1) -> dict[str, Any]:
    """Checked speculative-decoding inputs of the plan: a named workload
    (:data:`SPECULATIVE_WORKLOADS`), or a draft length with an acceptance rate and a draft cost
    (or a ``draft`` model, whose cost is its decode bound over the target's plain one on the
    same chip, both at the workload ``at`` of the call: its weights, cache format, context,
    batch and peak, on one chip; the draft keeps a cache of its own, so at a large batch or a
    long context its share grows, as chapter 13 shows). Where ``at`` has a ``prompt``, both
    bounds are a request's time per output token (:func:`draft_step_ratio`): the context is
    the request's mean decode context, the one the speculative TPOT multiplies. Explicit
    values override the workload's. All None: no speculation.

    What the draft holds beside the target (:func:`draft_memory_inputs`): a draft model's
    weights at its own bits (``weights``, ``bits_weight`` of ``at``) and its stack; the
    multi-token-prediction module of the ``mtp`` workload its parameters and blocks; a draft
    given by its cost alone nothing counted. A draft model is split over the replica's ``tp`` x
    ``pp`` chips as the target is, so those degrees must suit it too (:func:`draft_degrees`)."""
    draft_layers = None
    step_blocks = None
    w = speculative_workload(m, speculation, module_held=draft is None)
    if w is not None:
        draft_len = w["draft_len"] if draft_len is None else draft_len
        acceptance = w["acceptance"] if acceptance is None else acceptance
        if draft_cost is None and draft is None:
            if w["draft_cost"] == "module":
                # the plan prices one module's step (module_draft_cost) from its blocks
                layers = m.mtp_step_layers()
                step_blocks = stack_blocks(layers) if layers else None
                draft_layers = sum(run.count for run in layers) or None
            else:
                draft_cost = w["draft_cost"]
    if draft_len is None:
        if acceptance is not None or draft_cost is not None or draft is not None:
            raise InputError("draft_len: speculative decoding needs the draft length")
        return dict(draft_len=None, acceptance=None, draft_cost=None, draft_layers=None,
                    draft_step_blocks=None, module_copied_params=None, **NOTHING_HELD)
    draft_len = count_argument("draft_len", draft_len)
    if acceptance is None:
        raise InputError("acceptance: give the acceptance rate (0 <= a < 1) with the draft "
                         "length, or a workload with a published one: "
                         + ", ".join(f"{k} ({v['acceptance']})"
                                     for k, v in SPECULATIVE_WORKLOADS.items()))
    acceptance = _number("acceptance", acceptance)
    if not 0 <= acceptance < 1:  # also NaN
        raise InputError(f"acceptance must be in [0, 1), got {acceptance:g}")
    if draft is not None:
        if draft_cost is not None:
            raise InputError("give either draft_cost or a draft model, not both")
        if hardware is None and bandwidth is None:
            raise InputError("draft: a draft model's cost needs a chip or a bandwidth")
    draft, held = draft_held(m, w, draft, tp=tp, pp=pp, weights=(at or {}).get("weights"),
                             bits_weight=(at or {}).get("bits_weight"))
    held = dict(NOTHING_HELD) if held is None else held
    if draft is not None:
        draft_cost = draft_step_ratio(draft, m, hardware=hardware, bandwidth=bandwidth,
                                      **(at or {}))
        draft_layers = draft.n_layers
    if draft_cost is not None or step_blocks is None:
        draft_cost = 0.0 if draft_cost is None else _number("draft_cost", draft_cost)
        if not 0 <= draft_cost < math.inf:
            raise InputError(f"draft_cost must be non-negative, got {draft_cost:g}")
    return dict(draft_len=draft_len, acceptance=acceptance, draft_cost=draft_cost,
                draft_layers=draft_layers, draft_step_blocks=step_blocks,
                module_copied_params=module_copied_params(m) if step_blocks else None, **held)


def speculative_workload(m: Model, speculation: Any, *,
                         module_held: bool = True) -> Mapping[str, Any] | None:
    """The record of the named workload ``speculation`` (:data:`SPECULATIVE_WORKLOADS`;
    None for none), checked: an :class:`InputError` for a name it does not list, or for a
    workload that drafts with a module ``m`` does not count (:func:`check_module`;
    ``module_held``: no draft model given, so the module is what the draft holds).

    >>> speculative_workload(get_model("qwen3-8b"), None) is None
    True
    >>> speculative_workload(get_model("qwen3-8b"), "nope")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: speculation: unknown workload 'nope'; known: mtp
    """
    if speculation is None:
        return None
    if not isinstance(speculation, str) or speculation not in SPECULATIVE_WORKLOADS:
        raise InputError(f"speculation: unknown workload {str(speculation)[:40]!r}; known: "
                         f"{', '.join(SPECULATIVE_WORKLOADS)}")
    check_module(m, speculation, module_held=module_held)
    return SPECULATIVE_WORKLOADS[speculation]


def draft_held(m: Model, workload: Mapping[str, Any] | None, draft: Any, *,
               engine: str | None = None, tp: Any = 1, pp: Any = 1, weights: Any = None,
               bits_weight: Any = None) -> tuple[Model | None, dict[str, Any] | None]:
    """The draft model, checked (:func:`draft_model`, ``engine``'s rule; :func:`draft_degrees`
    on ``tp`` x ``pp`` chips), or None, and the plan's inputs for what the draft holds
    (:func:`draft_memory_inputs`): a draft model's weights at ``weights`` or ``bits_weight``
    and its stack; else, where the ``workload`` (:func:`speculative_workload`) drafts with
    the model's own module, that module; else None (a draft given by its cost alone, or no
    draft, holds nothing counted)."""
    if draft is not None:
        draft = draft_model(draft, m, engine)
        draft_degrees(draft, tp, pp)  # split over the chips as the target (tp: vLLM's default)
        return draft, draft_memory_inputs(draft, weights=weights, bits_weight=bits_weight)
    if workload is not None and workload.get("module"):
        return None, draft_memory_inputs(m, module=True)
    return None, None


#: What to give instead of a module the workload cannot use (the end of its refusals).
_INSTEAD = ("give a draft length and an acceptance rate (draft_len, acceptance: --draft-len, "
            "--acceptance) or a draft model (draft: --draft)")


def check_module(m: Model, speculation: str, *, module_held: bool = True) -> None:
    """An :class:`InputError` where the workload ``speculation`` drafts with the model's own
    module and ``m`` has none it counts: none declared, or, where the module is what the
    draft holds (``module_held``: no draft model given), modules its config declares
    (:attr:`~llm_arithmetic.catalog.model.Model.mtp_modules`, by the field
    :attr:`~llm_arithmetic.catalog.model.Model.mtp_field`) that its family's reader does not
    count, whose weights and cache would otherwise be left out of every memory figure.

    >>> check_module(get_model("deepseek-v3"), "mtp")
    >>> check_module(get_model("minimax-m2.5"), "mtp")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: speculation: 'mtp' drafts with the model's multi-token prediction module, and the 3 that minimax-m2.5's config.json declares (field 'num_mtp_modules') are not counted by the 'minimax_m2' reader, so their weights and cache would be left out; give a draft length and an acceptance rate (draft_len, acceptance: --draft-len, --acceptance) or a draft model (draft: --draft)
    """
    w = SPECULATIVE_WORKLOADS[speculation]
    if not w.get("module"):
        return
    # the workload's acceptance and draft are those of the model's own module
    head = f"speculation: {speculation!r} drafts with the model's {w['module']} module, and "
    if m.mtp_modules and module_held:
        raise InputError(f"{head}the {m.mtp_modules} that {m.name}'s config.json declares "
                         f"(field '{m.mtp_field}') are not counted by the '{m.family}' reader, "
                         f"so their weights and cache would be left out; {_INSTEAD}")
    if not m.has_mtp():
        raise InputError(f"{head}{m.name} declares none (config.json: "
                         f"{', '.join(w['module_fields'])}); {_INSTEAD}")


#: The plan's inputs of what a draft holds, where it holds nothing counted.
NOTHING_HELD: Mapping[str, Any] = MappingProxyType(dict(
    draft_weight_bytes=None, draft_params=None, draft_embedding_params=None,
    draft_head_params=None, draft_blocks=None, draft_d_model=None, draft_final_norm_params=None,
    draft_bits_default=None))


def draft_memory_inputs(model: Model, *, module: bool = False, weights: Any = None,
                        bits_weight: Any = None) -> dict[str, Any]:
    """The plan's inputs for what a draft holds beside the target: with ``module``, the
    multi-token-prediction module of ``model`` (the target): its parameters outside the
    published total (``draft_params``, which the plan counts at the module's own bits as its
    checkpoint stores it, the model's ``native_bits`` ``"draft"`` and ``"draft_experts"``, else
    at the target's; where weights are asked for, a format, a number of bits or a llama.cpp
    file type, the module follows them as the rest of the model does; None where
    the reader counts none, or where the total already counts them), of them the embedding
    tables and output heads it stores as its own (``draft_embedding_params``,
    ``draft_head_params``: copies of the target's, which the plan leaves to the target as vLLM
    does) and its blocks (``draft_blocks``, every module's, for their cache; None where the
    reader gives none); else ``model`` is a draft model: its weights at ``weights`` or
    ``bits_weight`` (as :func:`estimate` takes them; None: as it ships),
    ``draft_weight_bytes`` [B], and its stack, with its final norm's parameters
    (``draft_final_norm_params``), its width (``draft_d_model``) and the bits of its weights but its experts' matrices
    (``draft_bits_default``), from which the plan counts the copies a tensor-parallel group
    holds of it.

    >>> held = draft_memory_inputs(get_model("qwen3-0.6b"))
    >>> held["draft_weight_bytes"], held["draft_params"], len(held["draft_blocks"])
    (1192099840, None, 1)
    >>> held = draft_memory_inputs(get_model("deepseek-v3"), module=True)
    >>> held["draft_weight_bytes"], held["draft_params"], held["draft_blocks"][0][0]
    (None, 13463426304, 1)
    >>> held["draft_embedding_params"], held["draft_head_params"]   # 129,280 x 7,168 each
    (926679040, 926679040)
    """
    if module:
        extras = [x for x in model.mtp_extras() if not x.in_total]
        params = sum(x.params for x in extras)
        layers = model.mtp_layers()
        return dict(NOTHING_HELD, draft_params=params or None,
                    draft_embedding_params=sum(x.embeddings for x in extras) if params else None,
                    draft_head_params=sum(x.heads for x in extras) if params else None,
                    draft_blocks=stack_blocks(layers) if layers else None)
    ev = model.plan.child(**weight_inputs(model, weights, bits_weight))
    return dict(NOTHING_HELD, draft_weight_bytes=ev.get("weight_bytes"),
                draft_blocks=model.blocks, draft_d_model=ev.get("d_model"),
                draft_final_norm_params=ev.get("final_norm_params"),
                draft_bits_default=ev.get("bits_default"))


def _evaluated(model: str | Path | Model, *, hardware: Any = None, weights: Any = None,
               bits_weight: Any = None, bits_kv: Any = None, bits_ssm: Any = None,
               context: Any = 1, batch: Any = 1, bandwidth: Any = None,
               peak_flops: Any = None, capacity: Any = None, overhead: Any = 0, tp: Any = 1,
               ep: Any = 1, pp: Any = 1, prompt: Any = None, generate: Any = None,
               price_per_hour: Any = None, power_watts: Any = None,
               link_bandwidth: Any = None, link_latency: Any = None, overlap: Any = True,
               allreduce: Any = None, node_limit: Any = None, dispatch_bits: Any = None,
               speculation: Any = None, draft_len: Any = None, acceptance: Any = None,
               draft_cost: Any = None, draft: Any = None, vision: Any = None
               ) -> tuple[Model, Hardware | None, dict[str, Any], Evaluator]:
    """:func:`estimate`'s arguments checked as it checks them: (the model, the chip, the plan's
    inputs with the speculative ones, the evaluator of the model's plan on them), from which
    :func:`estimate` reads every field and :func:`frontier` the few a point needs (each value
    computed on demand, so a frontier's point does not pay for the critical batch or the
    longest context). ``vision``: :func:`prompt_with_images`'s values (None: no images and
    no video), whose counts, tokens, FLOPs and tower parameters join the plan's inputs."""
    m = resolve_model(model)
    chip = get_hardware(hardware) if hardware is not None else None
    _check_direct(allreduce, chip)
    if bits_kv is None:  # the checkpoint's cache, for the draft's estimate too
        bits_kv = m.native_kv_bits
    given = plan_inputs(m, weights=weights, bits_weight=bits_weight, bits_kv=bits_kv,
                        context=context, batch=batch, bandwidth=bandwidth,
                        peak_flops=peak_flops, capacity=capacity, overhead=overhead, tp=tp,
                        ep=ep, pp=pp, prompt=prompt, generate=generate,
                        price_per_hour=price_per_hour, power_watts=power_watts,
                        link_bandwidth=link_bandwidth, link_latency=link_latency,
                        overlap=overlap, allreduce=allreduce, node_limit=node_limit,
                        dispatch_bits=dispatch_bits, bits_ssm=bits_ssm)
    spec = speculative_inputs(m, speculation=speculation, draft_len=draft_len,
                              acceptance=acceptance, draft_cost=draft_cost, draft=draft,
                              hardware=chip, bandwidth=bandwidth,
                              at=dict(weights=weights, bits_weight=bits_weight, bits_kv=bits_kv,
                                      context=context, batch=batch, peak_flops=peak_flops,
                                      prompt=prompt, generate=generate), tp=tp, pp=pp)
    if vision is not None:
        encoder_degrees(m, given["tp"], vision)
        given.update(vision_plan_inputs(vision))
        if vision.get("image_states"):
            cross_inputs(m, vision, given)
    ev = m.plan.child(**chip_inputs(chip), **given, **spec)
    given.update(spec)
    return m, chip, given, ev


def cross_inputs(m: Model, vision: dict[str, Any], given: dict[str, Any]) -> None:
    """With a cross-attention model's images in the prompt (:func:`cross_image_inputs`), every
    text token also runs the cross-attention layers' weights but k and v: they join the
    parameters outside the stack that a token reads (``extras_read``, and ``extras_matmul``
    for those in matrix products) in ``given``. A tensor-parallel degree above those layers'
    key/value heads is refused: vLLM gives each chip num_key_value_heads // tp of them
    (``MllamaTextCrossAttention``, vllm/model_executor/models/mllama.py @
    6f0b37b889781873e3e766bdf24c95e2052ce081), none past that, and the images' cache is
    counted split by those heads, once.

    The 11B's 8 cross-attention layers of d = 4,096 (q and o 4,096 x 4,096, a 3 x 4,096 x
    14,336 MLP; norms and gates beside) join what a token reads:

    >>> m = get_model("llama-3.2-11b-vision-instruct")
    >>> given = {"tp": 8}
    >>> cross_inputs(m, image_inputs(m, 1, (560, 560)), given)
    >>> given["extras_matmul"] == 8 * (2 * 4096 * 4096 + 3 * 4096 * 14336), given["extras_read"]
    (True, 1677789200)
    >>> cross_inputs(m, image_inputs(m, 1, (560, 560)), {"tp": 16})
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 16 exceeds the 8 key/value heads of llama-3.2-11b-vision-instruct's cross-attention layers, which vLLM splits over the chips (num_key_value_heads // tp a chip): with images such a layout is not modelled
    """
    tp = given["tp"]
    if tp > vision["cross_kv_heads"]:
        raise InputError(f"tp = {tp} exceeds the {vision['cross_kv_heads']} key/value heads of "
                         f"{m.name}'s cross-attention layers, which vLLM splits over the "
                         "chips (num_key_value_heads // tp a chip): with images such a layout "
                         "is not modelled")
    given["extras_read"] = m.plan.get("extras_read") + vision["cross_token_params"]
    given["extras_matmul"] = m.plan.get("extras_matmul") + vision["cross_token_matmul"]


def estimate(model: str | Path | Model, *, hardware: str | Hardware | None = None,
             weights: str | None = None, bits_weight: Any = None, bits_kv: Any = None,
             bits_ssm: Any = None,
             context: int = 1, batch: int = 1, bandwidth: float | None = None,
             peak_flops: float | None = None, capacity: int | None = None,
             overhead: int = 0, tp: int = 1, ep: int = 1, pp: int = 1,
             prompt: int | None = None, generate: int | None = None,
             price_per_hour: float | None = None, power_watts: float | None = None,
             link_bandwidth: float | None = None, link_latency: float | None = None,
             overlap: bool = True, allreduce: str | None = None, node_limit: int | None = None,
             dispatch_bits: Any = None, speculation: str | None = None,
             draft_len: int | None = None, acceptance: float | None = None,
             draft_cost: float | None = None,
             draft: str | Path | Model | None = None, images: int | None = None,
             image_size: tuple[int, int] | None = None, video_seconds: float | None = None,
             video_fps: float | None = None,
             video_size: tuple[int, int] | None = None,
             audio_seconds: float | None = None) -> Estimate:
    """Bytes, FLOPs and roofline bounds of decoding ``model``; with the serving arguments, the
    bounds of a replica of tp x pp chips serving requests; with speculative decoding's
    arguments (:func:`speculative_inputs`), the bounds with speculation beside the plain ones.

    Parameters
    ----------
    model : Model, str or Path
        A model, a catalog name (``"llama-2-7b"``) or a path to a ``config.json``.
    hardware : Hardware or str, optional
        A chip or its catalog name; supplies bandwidth, the dense peak at the compute
        precision, capacity, board power and the interconnect, unless given.
    weights : str, optional
        A named weight format (``"fp16"``, ``"q4_0"``, ``"nvfp4"``, ...) or a llama.cpp file
        type (``"q4_k_m"``, bits computed for this model); default: as the checkpoint ships
        (16 bits; block-scaled fp8, computed at the chip's fp8 peak where it has one; or
        gpt-oss's MXFP4 experts, computed at 16 bits).
    bits_weight : number, optional
        Bits per weight, instead of ``weights`` [bit].
    bits_kv : number, optional
        Bits per KV-cache element [bit]; default the checkpoint's (8 where a ModelOpt file
        asks for an fp8 cache, as vLLM then allocates it; else 16,
        :attr:`~llm_arithmetic.catalog.model.Model.native_kv_bits`). The constant-state layers (Mamba-2, Gated DeltaNet,
        KDA) keep their convolution window at 16 bits whatever this is
        (:data:`STATE_WINDOW_BITS`, as vLLM does).
    bits_ssm : number or str, optional
        Bits (or a format, ``"fp32"``) of those layers' recurrent matrices [bit]; default the
        dtype the checkpoint's ``config.json`` names for them (Nemotron-H's
        ``mamba_ssm_cache_dtype``, Qwen3.5's ``mamba_ssm_dtype``: float32, as vLLM keeps
        them), 32 for a Kimi delta attention layer's (vLLM's float32 whatever is asked), else
        16, the window's (where vLLM's own default for the family may differ: float32 for a
        Nemotron-H file that names none, which :func:`~llm_arithmetic.engine.engine_view`
        follows).
    context : int
        Tokens in each sequence's cache at the decode step [token].
    batch : int
        Sequences decoded together (on the replica) [-].
    bandwidth : float, optional
        Memory bandwidth [B/s] (not GB/s).
    peak_flops : float, optional
        Dense peak rate [FLOP/s] (not TFLOP/s).
    capacity : int, optional
        Device memory [B].
    overhead : int
        Memory reserved beside weights and cache [B] (per chip).
    tp, ep, pp : int
        Tensor-, expert- and pipeline-parallel degrees; the replica has tp x pp chips.
    prompt : int, optional
        Prompt tokens of a request [token].
    generate : int, optional
        Tokens generated after the first (the decode steps) [token].
    price_per_hour : float, optional
        Price of one chip for one hour [USD/h].
    power_watts : float, optional
        Power of one chip [W]; default the catalog's board power.
    link_bandwidth : float, optional
        Per-direction bandwidth of a chip's link to its peers [B/s]; default the catalog's
        interconnect for a group of ``tp`` chips.
    link_latency : float, optional
        Latency of one collective step on every link [s]; default each tier's from the
        catalog, or :data:`~llm_arithmetic.catalog.hardware.DEFAULT_LATENCY` (NCCL's figures)
        where it has none. 0 leaves latency out.
    overlap : bool
        Overlap communication with the work (the default: each bound is the longer of the two)
        or add it after the work (the serialized sum, which the ``*_serialized_seconds`` keys
        always report).
    allreduce : str, optional
        ``"ring"``, ``"switch"`` (in-switch reduction, NVLink SHARP) or ``"direct"`` (one- or
        two-stage direct all-reduces, where every chip reaches every other) inside a scale-up
        domain; default where the chip's switches reduce: the faster of the switch's reduction
        and direct all-reduces (the switch sends more at two chips, and pays two latencies
        against one stage's one); else direct where the catalog's topology is a switch or a
        full mesh (and no ``link_bandwidth`` is given), else the ring. ``"direct"`` on a ring
        or torus is an error.
    node_limit : int, optional
        Node-limited routing: a token's experts lie on at most this many destinations
        (DeepSeek-V3: 4 nodes); default no limit.
    dispatch_bits : number or str, optional
        Bits (or a format, ``"fp8"``) of the activations an expert-parallel dispatch sends;
        default 16. The combine is 16-bit.
    images : int, optional
        Images in the prompt (a vision-language model whose tower's rule is modelled,
        :func:`image_inputs`): their tokens, and the separators written between their rows
        or tiles, join ``prompt`` (its text tokens, 0 where not given), and the tower's time
        joins the time to first token.
    image_size : (int, int), optional
        Width and height of each image [px]; default
        :data:`~llm_arithmetic.catalog.images.DEFAULT_IMAGE_SIZE` (1024 x 1024).
    video_seconds, video_fps, video_size : number, number and (int, int), optional
        A video in the prompt, beside any images (a model whose video rule is modelled,
        :func:`video_inputs`): its length [s], the frames sampled a second (default 2) and
        the frame size, width x height [px] (default 1280 x 720); its tokens and the text the
        processor writes between its frame groups join ``prompt``, the tower's time over its
        frames joins the time to first token.

    audio_seconds : number, optional
        Audio in the prompt, beside any images or video (a model whose audio encoder is
        modelled, :func:`audio_inputs`): its length [s]; its tokens join ``prompt``, the
        encoder's time joins the time to first token.

    A context beyond the model's trained context gives a :class:`ContextWarning`.

    >>> e = estimate("llama-3-70b", hardware="h100-sxm", weights="fp8", tp=8, prompt=2048,
    ...              generate=256, batch=64, price_per_hour=2.5)
    >>> e.n_chips, round(e.tpot_seconds * 1e3, 2), round(e.tokens_per_second_per_chip)
    (8, 4.3, 1862)
    """
    model, prompt, vision = prompt_with_images(model, prompt, images, image_size,
                                               video_seconds, video_fps, video_size,
                                               audio_seconds)
    m, chip, given, ev = _evaluated(
        model, hardware=hardware, weights=weights, bits_weight=bits_weight, bits_kv=bits_kv,
        bits_ssm=bits_ssm, context=context, batch=batch, bandwidth=bandwidth,
        peak_flops=peak_flops, capacity=capacity, overhead=overhead, tp=tp, ep=ep, pp=pp,
        prompt=prompt, generate=generate, price_per_hour=price_per_hour,
        power_watts=power_watts, link_bandwidth=link_bandwidth, link_latency=link_latency,
        overlap=overlap, allreduce=allreduce, node_limit=node_limit,
        dispatch_bits=dispatch_bits, speculation=speculation, draft_len=draft_len,
        acceptance=acceptance, draft_cost=draft_cost, draft=draft, vision=vision)
    out = {field: ev.get(step) for field, step in FIELD_STEPS.items()}
    out["bits_weight"] = float(out["bits_weight"])
    if vision is not None:  # the caller's size and the rule's patches, beside the plan's inputs
        out.update({k: vision.get(k) for k in ("image_size", "vision_patches_per_image",
                                               "cross_kv_flops", *VIDEO_FIELDS, *AUDIO_FIELDS)})
        if vision.get("image_states"):  # the images' keys and values one sequence caches
            out["image_kv_bytes"] = exact_result(ev.get("image_kv_bytes"))
    keep = [k for k in INPUT_FIELDS if k in given and k != "bits_kv"]
    result = Estimate(model=m.name, hardware=chip.name if chip is not None else None,
                    bits_kv=float(given["bits_kv"]), trained_context=m.trained_context,
                    params_extra={x.name: x.params for x in m.extras},
                    params_extra_in_total={x.name: x.in_total for x in m.extras},
                    weights_as=weights_as(m, weights, bits_weight),
                    **{k: given[k] for k in keep}, **out)
    # the plan's values, kept beside the record (not a field: no key, no comparison) for
    # :func:`llm_arithmetic.explain.explain` (a floor above), which shows the step behind a key
    object.__setattr__(result, "_plan", ev)
    return result


def prompt_with_images(model: Any, prompt: Any, images: Any, image_size: Any,
                       video_seconds: Any = None, video_fps: Any = None,
                       video_size: Any = None, audio_seconds: Any = None
                       ) -> tuple[Any, Any, dict[str, Any] | None]:
    """``(model, prompt, vision)`` for :func:`_evaluated` (and the deployment search): without
    images or video, the arguments as given and None; with them, the model resolved, the
    prompt's text tokens (0 where not given) plus the images' and the video's tokens and
    separators, and :func:`image_inputs`' and :func:`video_inputs`' values, the tower's
    counts summed over both (``images`` and ``image_tokens_per_image`` None without images;
    ``video_tokens`` None without video), and :func:`audio_inputs`' for ``audio_seconds``.

    >>> _, prompt, v = prompt_with_images("qwen2.5-vl-3b-instruct", 100, 2, (1000, 700), 10)
    >>> prompt, v["image_tokens_per_image"], v["video_tokens"], v["vision_patches"]
    (13860, 900, 11960, 55040)
    """
    no_video = video_seconds is None and video_fps is None and video_size is None
    if images is None and image_size is None and no_video and audio_seconds is None:
        return model, prompt, None
    model = resolve_model(model)
    parts = []
    if images is not None or image_size is not None:
        parts.append(image_inputs(model, images, image_size))
    if not no_video:
        parts.append(video_inputs(model, video_seconds, video_fps, video_size))
    vision = {"images": None, "image_tokens_per_image": None, "video_tokens": None}
    for part in parts:
        vision.update(part)
    if len(parts) == 2:  # the tower's work over both, in one forward
        for key in ("prompt_tokens", "vision_prefill_flops", "vision_patches",
                    "vision_whole_flops"):
            vision[key] = parts[0][key] + parts[1][key]
    tokens = vision.get("prompt_tokens", 0)
    if audio_seconds is not None:  # the audio encoder: its own inputs beside the tower's
        audio = audio_inputs(model, audio_seconds)
        vision.update(audio)
        tokens += audio["audio_tokens"]
    vision["prompt_tokens"] = tokens
    text = 0 if prompt is None else count_argument("prompt", prompt)
    return model, text + tokens, vision


def image_inputs(model: Model, images: Any, image_size: Any = None) -> dict[str, Any]:
    """``images`` images of ``image_size`` (width, height) [px; default
    :data:`~llm_arithmetic.catalog.images.DEFAULT_IMAGE_SIZE`] in a prompt to ``model``: the
    tokens they add and the tower's FLOPs, the estimate's fields of the images that the plan
    takes as inputs, with the tower's parameters (``tower_params``, the plan's
    ``vision_params``) and what splits it under tensor parallelism (:data:`VISION_TP_INPUTS`:
    the prompt's patches, the tower's width and blocks, its mergers that all-reduce, the
    weights it splits and the FLOPs it keeps whole on every chip). The prompt gains
    ``prompt_tokens``: the image tokens and the separators the processor writes between their
    rows or tiles (``separator_tokens``: Pixtral's ``[IMG_BREAK]``, Llama 4's tile separators;
    text tokens, but as many as the image has rows or tiles). A model without a tower, or
    whose tower's rule is not modelled, is a :class:`~llm_arithmetic.core.errors.ConfigError`
    naming it; a bad count or size an :class:`InputError` naming the argument.

    >>> v = image_inputs(get_model("qwen2.5-vl-3b-instruct"), 2, (1000, 700))
    >>> v["image_tokens_per_image"], v["image_tokens"], v["vision_patches_per_image"]
    (900, 1800, 3600)
    >>> v = image_inputs(get_model("mistral-small-3.1-24b"), 1, (1000, 700))
    >>> v["image_tokens"], v["separator_tokens"], v["prompt_tokens"]   # 36 x 25 [IMG], 24 breaks
    (900, 24, 924)
    """
    from .catalog.images import DEFAULT_IMAGE_SIZE, image_tower, image_work

    if images is None:
        raise InputError("images must be given with image_size (how many images the prompt "
                         "holds)")
    n = images_argument(images)
    w, h = _size_pair("image_size", DEFAULT_IMAGE_SIZE if image_size is None else image_size)
    tower, rule = image_tower(model)
    try:
        work = image_work(rule, w, h)
    except ConfigError as err:
        raise InputError(f"image_size: {err}") from None
    if rule.rule == "mllama":
        return cross_image_inputs(model, tower, rule, n, (w, h), work)
    return {"images": n, "image_size": (w, h), "image_tokens_per_image": work.tokens,
            "image_tokens": n * work.tokens, "vision_patches_per_image": work.patches,
            "separator_tokens": n * work.separators,
            "prompt_tokens": n * (work.tokens + work.separators),
            **tower_inputs(tower, rule, n, work)}


def tower_inputs(tower: Any, rule: Any, count: int, unit: Any) -> dict[str, Any]:
    """The vision tower's keys of :func:`image_inputs` and :func:`video_inputs` (all but a
    cross-attention model's, :func:`cross_image_inputs`): the tower (``tower``, the model's
    extra, and ``rule``, its :class:`~llm_arithmetic.catalog.model.ImageRule`) run ``count``
    times over ``unit`` (:class:`~llm_arithmetic.catalog.images.ImageWork`: one image, or one
    temporal patch of a video, which the tower runs as an image): its FLOPs
    (:data:`~llm_arithmetic.formulas.vision.vision_prefill_flops`), parameters, the patches
    it runs, its width, its mergers that all-reduce, and what a tensor-parallel engine splits
    (:func:`encoder_split`). Under vLLM's default ``mm_encoder_tp_mode`` "weights" a ViT's
    blocks, mergers and deepstack mergers split over the chips and the patch embedding stays
    whole on each; a convolutional tower (Gemma 3n's) and one vLLM runs unsplit (Gemma 4's,
    ``ImageRule.whole``) run whole on every chip (:func:`tower_splits`).

    >>> from llm_arithmetic.catalog.images import image_tower, image_work
    >>> tower, rule = image_tower(get_model("qwen2.5-vl-3b-instruct"))
    >>> v = tower_inputs(tower, rule, 2, image_work(rule, 1000, 700))
    >>> v["vision_patches"], v["vision_layers"], v["vision_mergers"]
    (7200, 32, 1)
    """
    from .formulas.vision import vision_prefill_flops

    full = rule.layers if not rule.window else len(rule.full_layers)
    flops = int(vision_prefill_flops(
        images=count, vision_patches=unit.patches, vision_matmul_params=rule.tower_matmul,
        image_tokens=unit.tokens, merger_matmul_params=rule.merger_matmul,
        d_vision=rule.width, n_vision_full_layers=full, vision_full_pairs=unit.full_pairs,
        n_vision_window_layers=rule.layers - full, vision_window_pairs=unit.window_pairs,
        deepstack_matmul_params=rule.deepstack_matmul, vision_conv_flops=rule.conv_flops))
    vit = tower_splits(rule)
    deepstack = rule.deepstack_matmul // rule.merger_matmul if rule.merger_matmul else 0
    return {"vision_prefill_flops": flops, "tower_params": tower.params,
            "vision_patches": count * unit.patches, "d_vision": rule.width,
            "vision_mergers": (1 + deepstack) if vit and rule.merger_matmul else 0,
            **encoder_split("vision", vit, flops=flops, layers=rule.layers,
                            split_params=rule.tower_matmul - rule.patch_matmul
                            + rule.merger_matmul + rule.deepstack_matmul,
                            whole_flops=count * (2 * rule.patch_matmul * unit.patches
                                                 + rule.conv_flops))}


def tower_splits(rule: Any) -> bool:
    """Whether a tensor-parallel engine splits the vision tower of ``rule`` over the chips (a
    ViT, unless vLLM runs it unsplit, ``ImageRule.whole``); a convolutional tower runs whole
    on every chip."""
    return not rule.conv_flops and not rule.whole


def encoder_split(prefix: str, split: bool, *, flops: int, layers: int, split_params: int,
                  whole_flops: int) -> dict[str, int]:
    """The plan's inputs that place an encoder run before the prefill (the vision tower,
    ``prefix`` "vision"; the audio encoder, "audio") on a tensor-parallel group, from its
    ``flops``: ``<prefix>_layers``, the blocks split over the chips (two all-reduces each),
    ``<prefix>_split_params``, their weights in matrix products (each chip holds its share),
    and ``<prefix>_whole_flops``, the FLOPs every chip does whole. Where the engine splits the
    encoder (``split``), the ``layers``, ``split_params`` and ``whole_flops`` given (what stays
    whole: a patch embedding, convolutions, projections); where it runs the encoder whole on
    every chip, no block and no weight split and all its FLOPs whole.

    >>> encoder_split("audio", False, flops=10, layers=4, split_params=6, whole_flops=3)
    {'audio_layers': 0, 'audio_split_params': 0, 'audio_whole_flops': 10}
    """
    if not split:
        layers, split_params, whole_flops = 0, 0, flops
    return {f"{prefix}_layers": layers, f"{prefix}_split_params": split_params,
            f"{prefix}_whole_flops": whole_flops}


def cross_image_inputs(model: Model, tower: Any, rule: Any, n: int, size: tuple[int, int],
                       work: Any) -> dict[str, Any]:
    """:func:`image_inputs` for a cross-attention model (Llama 3.2 Vision, image rule
    ``mllama``): ``n`` images of ``size``, each ``work``
    (:func:`~llm_arithmetic.catalog.images.image_work`). The prompt gains one ``<|image|>``
    token an image; the tower runs ``max_tiles`` tiles of padded tokens an image, all attended
    at once, its patch convolution over the tiles' patches and its projector over their states
    (the padded tiles' too: ``vision_prefill_flops`` with the convolution as its per-image
    ``vision_conv_flops``); the states of the image's own tiles, ``image_states``, are what the
    language model's cross-attention layers read: their keys and values
    (:data:`~llm_arithmetic.formulas.vision.cross_kv_flops`, once a sequence) join the tower's
    FLOPs before the prefill, and the plan caches them (``image_kv_bytes``). Each text token
    then also runs those layers' weights but k and v (``cross_token_params``, of them
    ``cross_token_matmul`` in matrix products; :func:`_evaluated` adds them to what a token
    reads) and their attention over the states. vLLM splits the whole tower and the projector
    over a tensor-parallel group (``ColumnParallelConv2dPatch``, ``ColumnParallelLinear``:
    vllm/model_executor/models/mllama.py @ 6f0b37b889781873e3e766bdf24c95e2052ce081).

    >>> v = image_inputs(get_model("llama-3.2-90b-vision-instruct"), 2, (1000, 700))
    >>> v["prompt_tokens"], v["image_states"], v["vision_patches_per_image"]
    (2, 12808, 6432)
    """
    from .formulas.vision import cross_kv_flops, vision_prefill_flops

    per_tile = (rule.size // rule.patch) ** 2 + rule.class_token
    tower_flops = vision_prefill_flops(
        images=n, vision_patches=work.patches,
        vision_matmul_params=rule.tower_matmul - rule.patch_matmul,
        image_tokens=rule.max_tiles * per_tile, merger_matmul_params=rule.merger_matmul,
        d_vision=rule.width, n_vision_full_layers=rule.layers,
        vision_full_pairs=work.full_pairs,
        vision_conv_flops=2 * rule.patch_matmul * rule.max_tiles * (per_tile - rule.class_token))
    states = n * work.states
    kv = cross_kv_flops(n_layers=rule.cross_layers, image_states=states, d_model=model.d_model,
                        n_kv_heads=rule.cross_kv_heads, d_head=rule.cross_d_head)
    return {"images": n, "image_size": size, "image_tokens_per_image": work.tokens,
            "image_tokens": n * work.tokens, "vision_patches_per_image": work.patches,
            "separator_tokens": 0, "prompt_tokens": n * work.tokens,
            "vision_prefill_flops": int(tower_flops + kv), "tower_params": tower.params,
            "vision_patches": n * work.patches, "d_vision": rule.width, "vision_mergers": 1,
            **encoder_split("vision", True, flops=int(tower_flops + kv), layers=rule.layers,
                            split_params=rule.tower_matmul + rule.merger_matmul,
                            whole_flops=0),
            "image_states": states, "cross_kv_flops": int(kv),
            "cross_layers": rule.cross_layers, "cross_heads": rule.cross_heads,
            "cross_kv_heads": rule.cross_kv_heads, "cross_d_head": rule.cross_d_head,
            "cross_token_params": rule.cross_token_params,
            "cross_token_matmul": rule.cross_token_matmul}


def video_inputs(model: Model, seconds: Any, fps: Any = None, size: Any = None
                 ) -> dict[str, Any]:
    """A video of ``seconds`` [s] sampled at ``fps`` frames a second [default
    :data:`~llm_arithmetic.catalog.video.DEFAULT_VIDEO_FPS`], frames of ``size`` (width,
    height) [px; default :data:`~llm_arithmetic.catalog.video.DEFAULT_VIDEO_SIZE`], in a
    prompt to ``model``: :func:`image_inputs`' keys for the tower over its frame groups (each
    temporal patch runs as one image of the resized frame size,
    :mod:`llm_arithmetic.catalog.video`) and the video's own: ``video_frames``,
    ``video_tokens``, ``video_separator_tokens`` (Qwen3-VL's timestamps and delimiters),
    ``video_patches``; ``prompt_tokens`` counts its tokens and separators. A model whose
    video rule is not modelled is a :class:`~llm_arithmetic.core.errors.ConfigError` naming it;
    a bad length, rate or size an :class:`InputError` naming the argument.

    >>> v = video_inputs(get_model("qwen3.5-27b"), 10)
    >>> v["video_frames"], v["video_size"], v["video_tokens"], v["video_separator_tokens"]
    (20, (1280, 720), 8800, 80)
    """
    from .catalog.images import image_tower
    from .catalog.video import (DEFAULT_VIDEO_FPS, DEFAULT_VIDEO_SIZE, VIDEO_SECONDS_LIMIT,
                                VIDEO_SOURCE_FPS, video_frames, video_tower, video_work)

    if seconds is None:
        raise InputError("video_seconds must be given with video_fps or video_size (how long "
                         "the prompt's video is)")
    seconds = _length_argument("video_seconds", seconds, VIDEO_SECONDS_LIMIT)
    fps = _length_argument("video_fps", DEFAULT_VIDEO_FPS if fps is None else fps,
                           VIDEO_SOURCE_FPS)
    w, h = _size_pair("video_size", DEFAULT_VIDEO_SIZE if size is None else size)
    rule = video_tower(model)
    tower, _ = image_tower(model)
    try:  # too few frames for the processor: the length's fault
        video_frames(rule.video, seconds, fps)
    except ConfigError as err:
        raise InputError(f"video_seconds: {err}") from None
    try:  # what else the processor refuses is the frames' size
        work = video_work(rule, seconds, fps, w, h)
    except ConfigError as err:
        raise InputError(f"video_size: {err}") from None
    # the tower runs each temporal patch (two frames) as one image of the resized frame size
    return {"video_seconds": seconds, "video_fps": fps, "video_size": (w, h),
            "video_frames": work.frames, "video_tokens": work.tokens,
            "video_separator_tokens": work.separators, "video_patches": work.patches,
            "prompt_tokens": work.tokens + work.separators,
            **tower_inputs(tower, rule, work.groups, work.group)}


def _length_argument(label: str, v: Any, top: int) -> int | float:
    """A video's or a clip's length [s], or a frame rate, as :func:`video_inputs` and
    :func:`audio_inputs` check it: a number above 0 and at most ``top`` (an int where given
    whole, else a float); else an :class:`InputError` naming ``label``."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (Real, np.number)) \
            or not 0 < float(v) <= top:
        raise InputError(f"{label} must be a number above 0 and at most {top:,}, got "
                         f"{v!r:.40}")
    return int(v) if isinstance(v, (Integral, np.integer)) else float(v)


def audio_inputs(model: Model, seconds: Any) -> dict[str, Any]:
    """``seconds`` [s] of audio in a prompt to ``model``: the mel frames and tokens its
    processor makes of it and the audio encoder's work (:mod:`llm_arithmetic.catalog.audio`),
    with the plan's inputs (:data:`AUDIO_PLAN_INPUTS`: the encoder's parameters and FLOPs,
    the positions its blocks run at its width, and what a tensor-parallel engine splits). A
    model without a modelled audio encoder is a :class:`ConfigError` naming it and the
    option; a bad length an :class:`InputError` naming the argument. Qwen2.5-Omni's processor
    truncates a clip at 300 s (30,000 frames): a longer one counts as its first 300 s.

    >>> a = audio_inputs(get_model("qwen2.5-omni-7b"), 10)
    >>> a["audio_frames"], a["audio_tokens"], a["audio_layers"]
    (1000, 250, 0)
    """
    from .catalog.audio import (AUDIO_HOP, AUDIO_SAMPLE_RATE, AUDIO_SECONDS_LIMIT,
                                audio_encoder, audio_work)

    seconds = _length_argument("audio_seconds", seconds, AUDIO_SECONDS_LIMIT)
    encoder, rule = audio_encoder(model)
    try:
        work = audio_work(rule, seconds)
    except ConfigError as err:
        raise InputError(f"audio_seconds: {err}") from None
    if rule.max_frames and work.frames == rule.max_frames \
            and seconds * AUDIO_SAMPLE_RATE > rule.max_frames * AUDIO_HOP:
        warnings.warn(f"audio_seconds: {model.name}'s processor keeps the first "
                      f"{rule.max_frames * AUDIO_HOP / AUDIO_SAMPLE_RATE:g} s of a clip "
                      f"({rule.max_frames:,} mel frames) and drops the rest of the "
                      f"{seconds:g} s", ContextWarning, stacklevel=2)
    return {"audio_seconds": seconds, "audio_frames": work.frames,
            "audio_tokens": work.tokens, "audio_prefill_flops": work.flops,
            "audio_params": encoder.params, "audio_rows": work.rows, "d_audio": rule.width,
            **encoder_split("audio", rule.split, flops=work.flops, layers=rule.layers,
                            split_params=work.block_params, whole_flops=work.around_flops)}


#: :func:`audio_inputs`' keys that are :class:`Estimate` fields beside the plan's.
AUDIO_FIELDS = ("audio_seconds", "audio_frames", "audio_tokens")
#: :func:`audio_inputs`' keys that are the plan's inputs.
AUDIO_PLAN_INPUTS = ("audio_params", "audio_prefill_flops", "audio_rows", "d_audio",
                     "audio_layers", "audio_split_params", "audio_whole_flops")


def audio_degrees(model: Model, tp: int) -> None:
    """Check that ``tp`` splits the model's audio encoder as vLLM splits it: where it splits
    the blocks (Qwen3-Omni), each chip takes whole heads (``QKVParallelLinear`` divides the
    heads by the degree, vllm-project/vllm@e86cd3154c69a19e1121cb1b8f041c824ab42cf0
    qwen3_omni_moe_thinker.py), so ``tp`` must divide them; an :class:`InputError` names the
    field (:func:`split_heads`).

    >>> audio_degrees(get_model("qwen3-omni-30b-a3b-instruct"), 8)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 8 does not divide the 20 attention heads of qwen3-omni-30b-a3b-instruct's audio encoder (audio_config.encoder_attention_heads): vLLM splits them over the tensor-parallel chips
    """
    from .catalog.audio import audio_encoder

    _, rule = audio_encoder(model)
    if rule.split:
        split_heads(model, tp, rule.heads, "audio encoder (audio_config.encoder_attention_heads)",
                    "vLLM splits them over the tensor-parallel chips")


def split_heads(model: Model, tp: int, heads: int, what: str, why: str) -> None:
    """The refusal of a tensor-parallel degree ``tp`` that does not divide the ``heads``
    attention heads of ``model``'s encoder ``what`` (which names the config field): an
    :class:`InputError` saying ``why`` (what the engine does with such a layout);
    :func:`vision_degrees` and :func:`audio_degrees` check through it."""
    if heads % tp:
        raise InputError(f"tp = {tp} does not divide the {heads} attention heads of "
                         f"{model.name}'s {what}: {why}")


def encoder_degrees(model: Model, tp: int, vision: Mapping[str, Any]) -> None:
    """Check ``tp`` against each encoder a prompt runs before the prefill, ``vision`` being
    :func:`prompt_with_images`' values: the vision tower where it holds images or a video
    (``tower_params``, :func:`vision_degrees`), then the audio encoder where it holds audio
    (``audio_params``, :func:`audio_degrees`); :func:`estimate` and the deployment search
    check through it.

    >>> encoder_degrees(get_model("qwen3-omni-30b-a3b-instruct"), 4, {"audio_params": 1})
    """
    if "tower_params" in vision:
        vision_degrees(model, tp)
    if "audio_params" in vision:
        audio_degrees(model, tp)


def _size_pair(label: str, size: Any) -> tuple[int, int]:
    """(width, height) of an image or a video frame as given, checked: an
    :class:`InputError` naming ``label`` unless two whole numbers of pixels in order."""
    # a pair in order: a tuple, a list or a 1-D array (a dict or a set has a length but no
    # width and height; indexing one was a KeyError or a TypeError)
    pair = isinstance(size, (tuple, list)) or isinstance(size, np.ndarray) and size.ndim == 1
    if not pair or len(size) != 2 or any(
            isinstance(v, (bool, np.bool_)) or not isinstance(v, (Integral, np.integer))
            or not 0 < v <= IMAGE_SIDE_LIMIT for v in size):
        raise InputError(f"{label} must be (width, height), two whole numbers of pixels from "
                         f"1 to {IMAGE_SIDE_LIMIT:,}, got {' '.join(repr(size).split()):.40}")
    return int(size[0]), int(size[1])


#: :func:`video_inputs`' keys that are :class:`Estimate` fields beside the plan's.
VIDEO_FIELDS = ("video_seconds", "video_fps", "video_size", "video_frames",
                "video_separator_tokens", "video_patches")


def vision_plan_inputs(vision: dict[str, Any]) -> dict[str, Any]:
    """The plan's inputs of :func:`prompt_with_images`' values: the images' count, tokens per
    image, the video's tokens, the tower's FLOPs and parameters, and what splits it under
    tensor parallelism (:data:`VISION_TP_INPUTS`); :func:`estimate` and the deployment search
    pass these."""
    out = {"images": vision["images"],
           "image_tokens_per_image": vision["image_tokens_per_image"],
           "video_tokens": vision.get("video_tokens")}
    if "tower_params" in vision:
        out.update({"vision_prefill_flops": vision["vision_prefill_flops"],
                    "vision_params": vision["tower_params"],
                    **{k: vision[k] for k in VISION_TP_INPUTS},
                    **({k: vision[k] for k in CROSS_INPUTS} if vision.get("image_states")
                       else {})})
    if "audio_params" in vision:  # audio in the prompt (audio_inputs)
        out.update({k: vision[k] for k in AUDIO_PLAN_INPUTS})
    return out


def vision_degrees(model: Model, tp: int) -> None:
    """Check that a tensor-parallel degree ``tp`` splits ``model``'s vision tower as vLLM's
    default ``mm_encoder_tp_mode="weights"`` splits it: each chip takes whole attention heads of
    every block, so ``tp`` must divide the tower's heads (``ImageRule.heads``). vLLM refuses a
    layout where it does not: the tower's attention computes its heads per chip with
    ``divide(num_heads, tp)``, which asserts divisibility, as the engine loads the model
    (vllm-project/vllm@fb33ec8cf0a73c82af00a2128dee4ad058d16e9b
    vllm/model_executor/models/qwen2_5_vl.py ``Qwen2_5_VisionAttention``, which Qwen3-VL and
    Qwen3.5 reuse; @002d181a55a03803d7d69547846630069d2378b8 glm4_1v.py
    ``Glm4vVisionAttention``; @0c028ba489f560102a87a3e98b92caac5a6da8f1 siglip.py
    ``SiglipAttention``; ``divide`` in @5a6541db9bfa77756459722f69e8c89a0b47a14d
    vllm/distributed/utils.py). InternViT instead runs its attention whole on every chip and
    still splits its MLP (@1d1fc6603922b573581d31a13a1972207fc2ad78 intern_vit.py
    ``InternVisionEncoderLayer._init_attn``: ``InternSdpaAttention``), which the plan does
    not model: refused too, saying so. A tower counted whole on every chip (convolutional, or
    ``ImageRule.whole``: :func:`tower_splits`) and one whose heads are not known pass. An
    :class:`InputError` names the config field (:func:`split_heads`).

    >>> vision_degrees(get_model("glm-4.5v"), 4)
    >>> vision_degrees(get_model("glm-4.5v"), 8)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 8 does not divide the 12 attention heads of glm-4.5v's vision tower (vision_config.num_heads): vLLM splits the tower's heads over the tensor-parallel chips (mm_encoder_tp_mode "weights") and refuses such a layout
    """
    from .catalog.images import image_tower

    _, rule = image_tower(model)
    if not tower_splits(rule) or not rule.heads:
        return
    why = ("vLLM then runs the tower's attention whole on every chip and splits its MLP, which "
           "is not modelled" if rule.heads_fallback else "vLLM splits the tower's heads over the "
           "tensor-parallel chips (mm_encoder_tp_mode \"weights\") and refuses such a layout")
    split_heads(model, tp, rule.heads, f"vision tower ({rule.heads_key or 'its heads'})", why)


def images_argument(v: Any) -> int:
    """The number of images in a prompt, as :func:`estimate` checks it: a count as
    :func:`count_argument` takes one (whole floats too), 1 to :data:`IMAGES_LIMIT`; else an
    :class:`InputError` naming ``images``.

    >>> images_argument(2), images_argument(2.0), images_argument(np.int64(3))
    (2, 2, 3)
    >>> images_argument(0)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: images must be a positive integer, got 0
    >>> images_argument(1 << 17)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: images = 1.31e+05 is beyond the limit 65,536 (no model or memory holds more)
    """
    return count_argument("images", v)


#: :func:`image_inputs`'s values that split the tower under tensor parallelism, the plan's
#: inputs of the same names.
#: :func:`cross_image_inputs`' values the plan takes for a cross-attention model's images: the
#: states the cross-attention layers read, and those layers' count, heads and head width.
CROSS_INPUTS = ("image_states", "cross_layers", "cross_heads", "cross_kv_heads", "cross_d_head")

VISION_TP_INPUTS = ("vision_patches", "d_vision", "vision_layers", "vision_mergers",
                    "vision_split_params", "vision_whole_flops")


#: Batch sizes of a frontier when none are given: powers of two up to this limit.
FRONTIER_MAX_BATCH = 1 << 16


def frontier(model: str | Path | Model, *, batches: Sequence[int] | None = None,
             **kwargs: Any) -> list[dict[str, Any]]:
    """The latency-throughput frontier: for each batch size, tokens per second per user
    (1 / TPOT) and per chip (batch / TPOT / chips), and whether weights and caches fit in the
    chips' memory. ``kwargs`` are those of :func:`estimate` (``batch`` excepted; ``images``
    and ``image_size`` included: every request's prompt holds the images).

    Without ``batches``: powers of two from 1 up to the first that does not fit (included),
    or to 1024 when the chip's memory is unknown.

    >>> pts = frontier("llama-3-70b", hardware="h100-sxm", weights="fp8", tp=8, prompt=2048,
    ...                generate=256)
    >>> [p["batch"] for p in pts][-3:], pts[-1]["fits"]
    ([256, 512, 1024], False)
    """
    if "batch" in kwargs:
        raise InputError("frontier() takes batches=, a sequence of batch sizes, not batch=")
    points = []
    # images in each request's prompt, as estimate takes them: worked out once for every batch
    model, prompt, vision = prompt_with_images(
        model, kwargs.pop("prompt", None), kwargs.pop("images", None),
        kwargs.pop("image_size", None), *(kwargs.pop(k, None) for k in (
            "video_seconds", "video_fps", "video_size", "audio_seconds")))

    def point(b: int) -> dict[str, Any]:
        # estimate's values for these keys, read from its plan alone (estimate computes all)
        _, _, given, ev = _evaluated(model, batch=b, prompt=prompt, vision=vision, **kwargs)
        return {"batch": given["batch"], **{key: ev.get(FIELD_STEPS[field]) for key, field in (
            ("tokens_per_second_per_user", "tokens_per_second_per_user"),
            ("tokens_per_second_per_chip", "tokens_per_second_per_chip"),
            ("tpot_seconds", "tpot_seconds"), ("fits", "fits_per_chip"),
            ("memory_per_chip_bytes", "memory_per_chip_bytes"),
            ("cost_per_million_tokens", "cost_per_million_tokens"),
            ("energy_joules_per_token", "energy_joules_per_token"))}}

    if batches is not None:
        return [point(b) for b in batches]
    b = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWarning)
        while b <= FRONTIER_MAX_BATCH:
            p = point(b)
            points.append(p)
            if p["fits"] is False or (p["fits"] is None and b >= 1024):
                break
            b *= 2
    return points


# ---- sweeps -------------------------------------------------------------------------------------
@record
class Sweep:
    """Decode bounds over a grid: axes (chips, formats, contexts, batches), arrays of shape
    ``(len(hardware), len(weights), len(context), len(batch))``.

    Attributes
    ----------
    hardware, weights : tuple of str
    context, batch : ndarray
        The axes [token], [-].
    step_bytes, step_flops : ndarray
        Bytes [B] and FLOPs [FLOP] of one decode step of the batch.
    memory_seconds, compute_seconds, seconds_per_token : ndarray
        [s]; ``compute_seconds`` is NaN where the chip has no peak at the format's compute
        precision (:func:`estimate`'s None), and ``seconds_per_token`` is then the memory
        time alone.
    tokens_per_second, throughput_tokens_per_second : ndarray
        One stream's and the batch's rate [token/s].
    fits : ndarray of bool
        Weights and cache within the chip's memory.
    """

    model: str
    hardware: tuple[str, ...]
    weights: tuple[str, ...]
    context: np.ndarray
    batch: np.ndarray
    step_bytes: np.ndarray
    step_flops: np.ndarray
    memory_seconds: np.ndarray
    compute_seconds: np.ndarray
    seconds_per_token: np.ndarray
    tokens_per_second: np.ndarray
    throughput_tokens_per_second: np.ndarray
    fits: np.ndarray

    def rows(self) -> list[dict[str, Any]]:
        """One dict per grid point (for a table or a CSV)."""
        out = []
        for i, h in enumerate(self.hardware):
            for j, w in enumerate(self.weights):
                for k, s in enumerate(self.context):
                    for n, b in enumerate(self.batch):
                        idx = (i, j, k, n)
                        out.append(dict(
                            model=self.model, hardware=h, weights=w, context=int(s),
                            batch=int(b), seconds_per_token=float(self.seconds_per_token[idx]),
                            tokens_per_second=float(self.tokens_per_second[idx]),
                            throughput_tokens_per_second=float(
                                self.throughput_tokens_per_second[idx]),
                            fits=bool(self.fits[idx])))
        return out


def _axis(label: str, values: Any) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(values))
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(f"{label} must be a number or a one-dimensional sequence of numbers")
    for v in arr:
        count_argument(label, v.item() if hasattr(v, "item") else v)
    return arr.astype(np.float64)


def sweep(model: str | Path | Model, *, hardware: str | Hardware | Sequence[str | Hardware],
          weights: str | Sequence[str] = "fp16", context: Any = 1, batch: Any = 1,
          bits_kv: Any = 16) -> Sweep:
    """Decode bounds of ``model`` over chips x formats x contexts x batches, vectorized: the
    same formulas as :func:`estimate`, evaluated on NumPy arrays.

    >>> s = sweep("llama-2-7b", hardware=["a100-80gb-sxm", "h100-sxm"], weights=["fp16", "q4_0"],
    ...           context=[1, 4096], batch=[1, 8, 64])
    >>> s.tokens_per_second.shape
    (2, 2, 2, 3)
    >>> e = estimate("llama-2-7b", hardware="h100-sxm", weights="q4_0", context=4096, batch=8)
    >>> bool(np.isclose(s.tokens_per_second[1, 1, 1, 1], e.decode_tokens_per_second))
    True
    """
    m = resolve_model(model)
    if not isinstance(hardware, (str, Hardware)) and not hasattr(hardware, "__iter__"):
        raise InputError(f"hardware: a chip (a catalog name or a Hardware) or a sequence of "
                         f"them, got {type(hardware).__name__}")
    chips = [get_hardware(h) for h in ([hardware] if isinstance(hardware, (str, Hardware))
                                       else hardware)]
    formats = [weights] if isinstance(weights, str) else list(weights)
    ctx = _axis("context", context)
    bat = _axis("batch", batch)
    kv_bits = bits_per_weight(bits_kv)
    shape = (len(chips), len(formats), ctx.size, bat.size)
    keys = {"step_bytes": "decode_step_bytes", "step_flops": "decode_step_flops",
            "memory_seconds": "decode_memory_seconds",
            "compute_seconds": "decode_compute_seconds",   # None (NaN here) without a peak
            "seconds_per_token": "peak_seconds_per_token", "fits": "fits"}
    out = {k: np.empty(shape, dtype=bool if k == "fits" else float) for k in keys}
    for j, fmt in enumerate(formats):
        warn_block_format(m, fmt)
        base = m.plan.child(
            context=ctx[:, None], batch=bat[None, :], **weight_inputs(m, fmt),
            weight_format=plan_format(fmt), bits_kv=kv_bits, bits_state=STATE_WINDOW_BITS,
            overhead=0,
            given_bandwidth=None, given_peak_flops=None, given_capacity=None)
        for i, chip in enumerate(chips):
            ev = base.child(**chip_inputs(chip))
            for k, step in keys.items():
                out[k][i, j] = ev.get(step)
    fits = out.pop("fits")
    t = out["seconds_per_token"]
    return Sweep(model=m.name, hardware=tuple(c.name for c in chips), weights=tuple(formats),
                 context=ctx, batch=bat, tokens_per_second=1 / t,
                 throughput_tokens_per_second=bat[None, None, None, :] / t, fits=fits, **out)
