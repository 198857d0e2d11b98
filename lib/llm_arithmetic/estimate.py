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
import warnings
from dataclasses import asdict, dataclass, fields
from fractions import Fraction
from numbers import Integral, Real
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from . import numeric as N
from .catalog.formats import BITS_PER_WEIGHT, MIXES, bits_per_weight, compute_chain, mix_bits
from .catalog.hardware import Hardware, get_hardware
from .catalog.model import Model
from .catalog.models import MODELS, get_model
from .catalog.readers import read_config
from .core.errors import InputError

__all__ = ["Estimate", "estimate", "Sweep", "sweep", "resolve_model", "ContextWarning",
           "LIMITS", "frontier", "weight_bits"]

#: Largest context and batch accepted: beyond any trained context and any memory.
LIMITS = {"context": 1 << 32, "batch": 1 << 31, "prompt": 1 << 32, "generate": 1 << 32,
          "tp": 1 << 16, "ep": 1 << 16, "pp": 1 << 16}
#: Plausible ranges of the serving figures, with the reason for the upper limit.
_SERVING_RANGES = {
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


def resolve_model(model: str | Path | Model) -> Model:
    """A :class:`Model` from a model, a catalog name, or a path to a ``config.json``."""
    if isinstance(model, Model):
        return model
    if isinstance(model, Path):
        return read_config(model)
    if not isinstance(model, str):
        raise InputError(f"model must be a Model, a catalog name or a path to a config.json, "
                         f"got {type(model).__name__}")
    if model == "-" or model.endswith(".json") or "/" in model or Path(model).is_file():
        if model not in MODELS:
            return read_config(model)
    return get_model(model)


def _count(label: str, v: Any) -> int:
    """A positive integer argument (NumPy integers accepted)."""
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


@dataclass(frozen=True)
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
        The precision whose peak ``peak_flops`` is.
    capacity : int or None
        Memory [B].
    params_total : int
        The published total: the decoder and what the published figure counts besides
        (Gemma 3's vision tower) [-].
    params_language_model : int
        The decoder alone: what decoding a token reads from [-].
    params_extra : dict
        Parameters beyond the decoder, by name (in the total or not, as each says) [-].
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
        The chips' link to their peers, per direction [B/s], and per-hop latency [s].
    ttft_seconds : float or None
        Lower bound on the time to first token of a prompt alone on the replica: its prefill
        split over tp chips (the pipeline's stages take turns), then its all-reduces [s].
    tpot_seconds : float or None
        Lower bound on the time per output token at ``batch``, communication serialized [s].
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
    price_per_hour, power_watts : float or None
        [USD/h] per chip, [W] per chip.
    memory_per_chip_bytes : float
        Weights, cache (at the end of the request, or at ``context``) and state split over the
        chips, plus the reserve [B].
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
    capacity: int | None
    params_total: int
    params_language_model: int
    params_extra: dict
    params_active: int
    params_matmul: int
    params_read_per_token: int
    weight_bytes: int | float
    kv_cache_bytes_per_token: int | float
    kv_cache_bytes: int | float
    kv_cache_bytes_full_storage: int | float
    state_bytes: int | float
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
    link_latency: float = 0.0
    ttft_seconds: float | None = None
    tpot_seconds: float | None = None
    request_seconds: float | None = None
    tokens_per_second_per_user: float | None = None
    tokens_per_second_per_chip: float | None = None
    cost_per_million_tokens: float | None = None
    energy_joules_per_token: float | None = None
    allreduce_seconds_per_token: float | None = None
    alltoall_seconds_per_token: float | None = None
    price_per_hour: float | None = None
    power_watts: float | None = None
    memory_per_chip_bytes: int | float = 0
    fits_per_chip: bool | None = None
    max_batch_per_replica: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as JSON-ready values (exact numbers as int or float, inf as None)."""
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, Fraction):
                d[k] = int(v) if v.denominator == 1 else float(v)
            elif isinstance(v, float) and math.isinf(v):
                d[k] = None
        return d


def _max_context(model: Model, capacity: int, weights: Any, batch: int, bits_kv: Any,
                 overhead: int) -> int | None:
    """Largest S whose cache for ``batch`` sequences fits beside the weights, by bisection on
    the model's cache (which only grows with S); None when it stops growing below the
    limit (every attention layer windowed or chunked, or no attention at all)."""
    free = capacity - overhead - weights - batch * model.state_bytes(bits_kv)

    def fits(s: int) -> bool:
        return model.kv_cache_bytes(s, batch, bits_kv) <= free

    if not fits(0):
        return 0
    if fits(LIMITS["context"]):
        return None
    lo, hi = 0, LIMITS["context"]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def _critical_batch(model: Model, bits_w: Any, seq_bytes: float, seq_flops: float,
                    bandwidth: float, peak_flops: float) -> float | None:
    """Batch at which decode turns compute-bound, from :data:`~llm_arithmetic.formulas.
    roofline.critical_batch`; for a mixture of experts, whose weights read grow with the batch,
    its defining equation (memory time = compute time) is solved by bisection."""
    w1 = float(model.step_weight_bytes(bits_w, 1))
    crit = N.critical_batch(weight_bytes=w1, seq_bytes=seq_bytes, seq_flops=seq_flops,
                            bandwidth=bandwidth, peak_flops=peak_flops)
    if math.isinf(crit):
        return None
    if not model.is_moe:
        return float(crit)

    def gap(b: float) -> float:
        w = float(model.step_weight_bytes(bits_w, b))
        t_mem = N.batched_step_bytes(weight_bytes=w, seq_bytes=seq_bytes, batch=b) / bandwidth
        t_cmp = N.batched_step_flops(seq_flops=seq_flops, batch=b) / peak_flops
        return t_cmp - t_mem

    lo, hi = 0.0, 1.0
    while gap(hi) < 0:  # W(B) is concave and bounded, so the gap turns positive
        lo, hi = hi, hi * 2
        if hi > 1e12:
            return None
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
    return hi


def weight_bits(model: Model, weights: str | None = None, bits_weight: Any = None) -> Any:
    """Bits per weight of ``model`` for a format name, a llama.cpp file type (``"q4_k_m"``:
    computed per model from its tensors, :func:`~llm_arithmetic.catalog.formats.mix_bits`) or a
    number; None for neither (the checkpoint as shipped) [bit]."""
    if weights is not None and bits_weight is not None:
        raise InputError("give either weights (a format name) or bits_weight, not both")
    if weights is None and bits_weight is None:
        return None
    if isinstance(weights, str):
        key = weights.strip().lower()
        if key not in BITS_PER_WEIGHT and key in MIXES:
            return mix_bits(model, key)
    return bits_per_weight(weights if weights is not None else bits_weight)


def _serving_number(label: str, v: Any) -> float | None:
    if v is None:
        return None
    x = _number(label, v)
    low, high, unit, why = _SERVING_RANGES[label]
    if not math.isfinite(x) or x <= 0:
        raise InputError(f"{label} must be a positive finite number [{unit}], got {v!r:.40}")
    if x < low:
        raise InputError(f"{label} = {x:g} {unit} is implausibly small (the unit is {unit})")
    if x > high:
        raise InputError(f"{label} = {x:.3g} {unit} is beyond the plausibility limit "
                         f"{high:g} ({why})")
    return x


def _parallel(model: Model, tp: Any, ep: Any, pp: Any) -> tuple[int, int, int]:
    tp, ep, pp = _count("tp", tp), _count("ep", ep), _count("pp", pp)
    heads = [run.attention.n_heads for run in model.layers if run.attention is not None]
    if heads and tp > min(heads):
        raise InputError(f"tp = {tp} exceeds the {min(heads)} attention heads of {model.name}'s "
                         "layers: tensor parallelism splits heads, not parts of one")
    if any(h % tp for h in heads):
        raise InputError(f"tp = {tp} does not divide the {min(heads)} attention heads of "
                         f"{model.name}'s layers (tensor parallelism gives each chip whole heads)")
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


def _decode_step(m: Model, bits_w: Any, kv_bits: Any, context: Any, batch: int, *, tp: int,
                 ep: int, pp: int, bandwidth: float, peak: float | None,
                 link_bw: float | None, link_latency: float) -> tuple[float, float | None,
                                                                       float | None]:
    """Time per output token of a batch on tp x pp chips, with the all-reduce and all-to-all
    times inside it: (tpot, allreduce, alltoall) [s].

    The batch is split into min(batch, pp) microbatches; each pipeline stage holds 1/pp of
    the layers and, per microbatch, reads their weights and the microbatches' cache and does
    their FLOPs, split tp ways (the roofline of its share), then its communication; a token
    crosses the pp stages in turn (:data:`~llm_arithmetic.formulas.parallel.pipeline_time`).
    """
    micro_n = min(batch, pp)
    micro = batch / micro_n if micro_n > 1 else batch
    w_step = float(m.step_weight_bytes(bits_w, micro))
    seq_bytes = float(m.seq_bytes(context, kv_bits, kv_bits))
    seq_flops = float(m.decode_flops_per_token(context))
    stage_bytes = N.batched_step_bytes(weight_bytes=w_step, seq_bytes=seq_bytes,
                                       batch=micro) / pp
    stage_flops = N.batched_step_flops(seq_flops=seq_flops, batch=micro) / pp
    allreduce = alltoall = 0.0 if tp == 1 and ep == 1 else None
    comm = 0.0
    if tp > 1 or ep > 1:
        if link_bw is not None:
            moe_layers = sum(run.count for run in m.layers if run.mlp is not None
                             and run.mlp.is_moe) if ep > 1 else 0
            allreduce = float(N.decode_allreduce_time(
                n_layers=m.n_layers, n_ep_layers=moe_layers, batch=micro, d_model=m.d_model,
                tp=tp, link_bandwidth=link_bw, link_latency=link_latency)) if tp > 1 else 0.0
            alltoall = 0.0
            if moe_layers:
                alltoall = float(N.decode_alltoall_time(
                    n_ep_layers=moe_layers, batch=micro / ep, d_model=m.d_model,
                    n_active_experts=m.n_active_experts, ep=ep, link_bandwidth=link_bw,
                    link_latency=link_latency))
            # the stage's share of the layers communicates once per microbatch
            comm = (allreduce + alltoall) / pp
    peak_rate = peak if peak is not None else math.inf
    t_stage = N.tp_step_time(step_bytes=stage_bytes, step_flops=stage_flops, tp=tp,
                             bandwidth=bandwidth, peak_flops=peak_rate, comm_time=comm)
    tpot = N.pipeline_time(stage_time=t_stage, pp=pp, microbatches=1)
    return float(tpot), allreduce, alltoall


def estimate(model: str | Path | Model, *, hardware: str | Hardware | None = None,
             weights: str | None = None, bits_weight: Any = None, bits_kv: Any = 16,
             context: int = 1, batch: int = 1, bandwidth: float | None = None,
             peak_flops: float | None = None, capacity: int | None = None,
             overhead: int = 0, tp: int = 1, ep: int = 1, pp: int = 1,
             prompt: int | None = None, generate: int | None = None,
             price_per_hour: float | None = None, power_watts: float | None = None,
             link_bandwidth: float | None = None, link_latency: float = 0.0) -> Estimate:
    """Bytes, FLOPs and roofline bounds of decoding ``model``; with the serving arguments, the
    bounds of a replica of tp x pp chips serving requests.

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
        (16 bits, or gpt-oss's MXFP4 experts).
    bits_weight : number, optional
        Bits per weight, instead of ``weights`` [bit].
    bits_kv : number
        Bits per KV-cache element [bit].
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
    link_latency : float
        Latency of one hop [s] (default 0: the bound then leaves latency out).

    A context beyond the model's trained context gives a :class:`ContextWarning`.

    >>> e = estimate("llama-3-70b", hardware="h100-sxm", weights="fp8", tp=8, prompt=2048,
    ...              generate=256, batch=64, price_per_hour=2.5)
    >>> e.n_chips, round(e.tpot_seconds * 1e3, 2), round(e.tokens_per_second_per_chip)
    (8, 4.95, 1616)
    """
    m = resolve_model(model)
    chip = get_hardware(hardware) if hardware is not None else None
    context = _count("context", context)
    batch = _count("batch", batch)
    tp, ep, pp = _parallel(m, tp, ep, pp)
    n_chips = tp * pp
    prompt = None if prompt is None else _count("prompt", prompt)
    if generate is not None:
        if isinstance(generate, (Integral, np.integer)) and not isinstance(generate, bool) \
                and generate == 0:
            generate = 0
        else:
            generate = _count("generate", generate)
    price_per_hour = _serving_number("price_per_hour", price_per_hour)
    power_watts = _serving_number("power_watts", power_watts)
    link_bandwidth = _serving_number("link_bandwidth", link_bandwidth)
    try:
        link_latency = float(link_latency)
    except (TypeError, ValueError):
        raise InputError(f"link_latency must be a number [s], got {link_latency!r:.40}") from None
    if not (math.isfinite(link_latency) and 0 <= link_latency <= 1):
        raise InputError(f"link_latency is in seconds and must lie in [0, 1], got "
                         f"{link_latency!r:.40}")
    bw_bits = weight_bits(m, weights, bits_weight)
    kv_bits = bits_per_weight(bits_kv)
    if not isinstance(overhead, (Integral, np.integer)) or overhead < 0:
        raise InputError(f"overhead must be a non-negative integer [B], got {overhead!r:.40}")
    bandwidth = _rate("bandwidth", bandwidth)
    peak_flops = _rate("peak_flops", peak_flops)
    if capacity is not None:
        _rate("capacity", capacity)
        capacity = int(capacity)
    if m.trained_context and context > m.trained_context:
        warnings.warn(f"context {context:,} is beyond {m.name}'s trained context "
                      f"{m.trained_context:,} tokens", ContextWarning, stacklevel=2)
    g = generate if generate is not None else 0
    if prompt is not None and m.trained_context and prompt + g > m.trained_context:
        warnings.warn(f"prompt + generate = {prompt + g:,} tokens is beyond {m.name}'s trained "
                      f"context {m.trained_context:,}", ContextWarning, stacklevel=2)

    chain = compute_chain(weights, bw_bits if bw_bits is not None else Fraction(16))
    precision = chain[0]
    if chip is not None:
        bandwidth = chip.bandwidth if bandwidth is None else bandwidth
        capacity = chip.capacity if capacity is None else capacity
        if peak_flops is None:
            for prec in chain:
                if prec in chip.peaks:
                    peak_flops, precision = chip.peaks[prec].rate, prec
                    break
        if power_watts is None:
            power_watts = chip.power
        if link_bandwidth is None and max(tp, ep) > 1:
            link_bandwidth = chip.interconnect.link_bandwidth(max(tp, ep))

    w_total = m.weight_bytes(bw_bits)
    p_total = m.total_params
    eff_bits = w_total * 8 / p_total
    kv_tok = m.kv_bytes_per_token(kv_bits)
    kv_stored = m.kv_cache_bytes(context, batch, kv_bits)
    kv_full = m.kv_cache_bytes_full_storage(context, batch, kv_bits)
    state = m.state_bytes(kv_bits) * batch
    seq_bytes = m.seq_bytes(context, kv_bits, kv_bits)
    w_read_1 = m.step_weight_bytes(bw_bits, 1)
    dec_bytes_1 = N.batched_step_bytes(weight_bytes=w_read_1, seq_bytes=seq_bytes, batch=1)
    w_step = m.step_weight_bytes(bw_bits, batch)
    step_bytes = N.batched_step_bytes(weight_bytes=w_step, seq_bytes=seq_bytes, batch=batch)
    seq_flops = m.decode_flops_per_token(context)
    step_flops = N.batched_step_flops(seq_flops=seq_flops, batch=batch)

    mem_s = comp_s = step_s = tps = thr = opb = crit = None
    bound = None
    if bandwidth is not None:
        mem_s = float(step_bytes) / bandwidth
        step_s, bound = mem_s, "memory"
    if peak_flops is not None:
        comp_s = float(step_flops) / peak_flops
    if bandwidth is not None and peak_flops is not None:
        step_s = N.roofline_time(step_bytes=float(step_bytes), step_flops=float(step_flops),
                                 bandwidth=bandwidth, peak_flops=peak_flops)
        bound = "compute" if comp_s > mem_s else "memory"
        opb = N.ops_per_byte(peak_flops=peak_flops, bandwidth=bandwidth)
        crit = _critical_batch(m, bw_bits, float(seq_bytes), float(seq_flops), bandwidth,
                               peak_flops)
    if step_s is not None:
        tps = 1.0 / step_s
        thr = batch / step_s
    required = w_total + kv_stored + state + overhead
    fits = mb = mc = None
    if capacity is not None:
        fits = bool(required <= capacity)
        per_seq = m.kv_cache_bytes(context, 1, kv_bits) + m.state_bytes(kv_bits)
        mb = N.max_sequences(capacity=capacity, weight_bytes=w_total, seq_bytes=per_seq,
                             overhead=overhead)
        mb = int(mb) if not (isinstance(mb, float) and math.isinf(mb)) else None
        mc = _max_context(m, capacity, w_total, batch, kv_bits, overhead)

    # ---- serving: a replica of tp x pp chips ----------------------------------------------
    serving_context: Any = context
    final_context = context
    if prompt is not None:
        serving_context = N.mean_decode_context(prompt=prompt, generated=g)
        final_context = prompt + g
    kv_final = m.kv_cache_bytes(final_context, batch, kv_bits) + state
    mem_chip = N.memory_per_chip(weight_bytes=w_total, kv_cache=kv_final, n_chips=n_chips) \
        + overhead
    fits_chip = mb_rep = None
    if capacity is not None:
        fits_chip = bool(mem_chip <= capacity)
        per_seq_final = m.kv_cache_bytes(final_context, 1, kv_bits) + m.state_bytes(kv_bits)
        mb_rep = N.max_sequences(capacity=n_chips * capacity, weight_bytes=w_total,
                                 seq_bytes=per_seq_final, overhead=n_chips * overhead)
        mb_rep = int(mb_rep) if not (isinstance(mb_rep, float) and math.isinf(mb_rep)) \
            else None
    ttft = tpot = req = per_user = per_chip = cost = energy = allreduce = alltoall = None
    if bandwidth is not None:
        tpot, allreduce, alltoall = _decode_step(
            m, bw_bits, kv_bits, serving_context, batch, tp=tp, ep=ep, pp=pp,
            bandwidth=bandwidth, peak=peak_flops, link_bw=link_bandwidth,
            link_latency=link_latency)
        if prompt is not None:
            comm = 0.0
            if tp > 1 and link_bandwidth is not None:
                comm = N.tp_comm_time(n_layers=m.n_layers, batch=prompt, d_model=m.d_model,
                                      tp=tp, link_bandwidth=link_bandwidth,
                                      link_latency=link_latency)
            kv_prompt = float(m.kv_cache_bytes(prompt, 1, kv_bits))
            ttft = float(N.time_to_first_token(
                weight_bytes=float(m.step_weight_bytes(bw_bits, prompt)),
                kv_bytes_token=kv_prompt / prompt, prefill_flops=float(m.prefill_flops(prompt)),
                prompt=prompt, n_chips=tp, bandwidth=bandwidth,
                peak_flops=peak_flops if peak_flops is not None else math.inf,
                comm_time=comm))
            if generate is not None:
                req = float(N.request_time(ttft=ttft, tpot=tpot, generated=generate))
        per_user = float(N.tokens_per_user(tpot=tpot))
        per_chip = float(N.tokens_per_chip(batch=batch, tpot=tpot, n_chips=n_chips))
        replica_rate = per_chip * n_chips
        if price_per_hour is not None:
            cost = float(N.cost_per_million_tokens(price_per_hour=price_per_hour,
                                                   n_chips=n_chips,
                                                   tokens_per_second=replica_rate))
        if power_watts is not None:
            energy = float(N.energy_per_token(power=power_watts, n_chips=n_chips,
                                              tokens_per_second=replica_rate))

    extra = {x.name: x.params for x in m.extras}
    return Estimate(
        model=m.name, hardware=chip.name if chip is not None else None,
        bits_weight=float(eff_bits), bits_kv=float(kv_bits), context=context,
        attended_context=m.attended_context(context), batch=batch,
        experts_read=m.experts_read(batch), bandwidth=bandwidth, peak_flops=peak_flops,
        compute_precision=precision, capacity=capacity, params_total=p_total,
        params_language_model=m.language_model_params, params_extra=extra,
        params_active=m.active_params, params_matmul=m.matmul_params,
        params_read_per_token=m.decode_read_params, weight_bytes=w_total,
        kv_cache_bytes_per_token=kv_tok, kv_cache_bytes=kv_stored,
        kv_cache_bytes_full_storage=kv_full, state_bytes=state,
        decode_bytes_per_token=dec_bytes_1, decode_step_bytes=step_bytes,
        decode_flops_per_token=seq_flops, decode_memory_seconds=mem_s,
        decode_compute_seconds=comp_s, decode_seconds_per_token=step_s,
        decode_tokens_per_second=tps, throughput_tokens_per_second=thr, bound=bound,
        ops_per_byte=opb, critical_batch_size=crit, memory_required_bytes=required,
        fits=fits, max_batch=mb, max_context=mc, trained_context=m.trained_context,
        tp=tp, ep=ep, pp=pp, n_chips=n_chips, prompt=prompt, generate=generate,
        serving_context=serving_context, link_bandwidth=link_bandwidth,
        link_latency=link_latency, ttft_seconds=ttft, tpot_seconds=tpot,
        request_seconds=req, tokens_per_second_per_user=per_user,
        tokens_per_second_per_chip=per_chip, cost_per_million_tokens=cost,
        energy_joules_per_token=energy, allreduce_seconds_per_token=allreduce,
        alltoall_seconds_per_token=alltoall, price_per_hour=price_per_hour,
        power_watts=power_watts, memory_per_chip_bytes=mem_chip, fits_per_chip=fits_chip,
        max_batch_per_replica=mb_rep,
    )


#: Batch sizes of a frontier when none are given: powers of two up to this limit.
FRONTIER_MAX_BATCH = 1 << 16


def frontier(model: str | Path | Model, *, batches: Sequence[int] | None = None,
             **kwargs: Any) -> list[dict[str, Any]]:
    """The latency-throughput frontier: for each batch size, tokens per second per user
    (1 / TPOT) and per chip (batch / TPOT / chips), and whether weights and caches fit in the
    chips' memory. ``kwargs`` are those of :func:`estimate` (``batch`` excepted).

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

    def point(b: int) -> dict[str, Any]:
        e = estimate(model, batch=b, **kwargs)
        return {"batch": e.batch, "tokens_per_second_per_user": e.tokens_per_second_per_user,
                "tokens_per_second_per_chip": e.tokens_per_second_per_chip,
                "tpot_seconds": e.tpot_seconds, "fits": e.fits_per_chip,
                "memory_per_chip_bytes": e.memory_per_chip_bytes,
                "cost_per_million_tokens": e.cost_per_million_tokens,
                "energy_joules_per_token": e.energy_joules_per_token}

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
@dataclass(frozen=True)
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
        [s]
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
        _count(label, v.item() if hasattr(v, "item") else v)
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
    chips = [get_hardware(h) for h in ([hardware] if isinstance(hardware, (str, Hardware))
                                       else hardware)]
    formats = [weights] if isinstance(weights, str) else list(weights)
    ctx = _axis("context", context)
    bat = _axis("batch", batch)
    kv_bits = bits_per_weight(bits_kv)
    shape = (len(chips), len(formats), ctx.size, bat.size)
    out = {k: np.empty(shape) for k in ("step_bytes", "step_flops", "memory_seconds",
                                        "compute_seconds", "seconds_per_token")}
    fits = np.empty(shape, dtype=bool)
    S, B = ctx[:, None], bat[None, :]
    seq_bytes = np.asarray(m.seq_bytes(S, kv_bits, kv_bits), dtype=float)
    seq_flops = np.asarray(m.decode_flops_per_token(S), dtype=float)
    kv_stored = np.asarray(m.kv_cache_bytes(S, B, kv_bits), dtype=float) + \
        B * float(m.state_bytes(kv_bits))
    for j, fmt in enumerate(formats):
        bits = weight_bits(m, fmt)
        w_step = np.asarray(m.step_weight_bytes(bits, B), dtype=float)
        w_total = float(m.weight_bytes(bits))
        step_bytes = N.batched_step_bytes(weight_bytes=w_step, seq_bytes=seq_bytes, batch=B)
        step_flops = N.batched_step_flops(seq_flops=seq_flops, batch=B)
        for i, chip in enumerate(chips):
            prec = next((p for p in compute_chain(fmt, bits) if p in chip.peaks), None)
            peak = chip.peaks[prec].rate if prec else math.inf
            out["step_bytes"][i, j] = step_bytes
            out["step_flops"][i, j] = step_flops
            out["memory_seconds"][i, j] = step_bytes / chip.bandwidth
            out["compute_seconds"][i, j] = step_flops / peak
            out["seconds_per_token"][i, j] = N.roofline_time(
                step_bytes=step_bytes, step_flops=step_flops, bandwidth=chip.bandwidth,
                peak_flops=peak)
            fits[i, j] = w_total + kv_stored <= chip.capacity
    t = out["seconds_per_token"]
    return Sweep(model=m.name, hardware=tuple(c.name for c in chips), weights=tuple(formats),
                 context=ctx, batch=bat, tokens_per_second=1 / t,
                 throughput_tokens_per_second=bat[None, None, None, :] / t, fits=fits, **out)
