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
from .catalog.formats import bits_per_weight, compute_chain
from .catalog.hardware import Hardware, get_hardware
from .catalog.model import Model
from .catalog.models import MODELS, get_model
from .core.errors import InputError

__all__ = ["Estimate", "estimate", "Sweep", "sweep", "resolve_model", "ContextWarning",
           "LIMITS"]

#: Largest context and batch accepted: beyond any trained context and any memory.
LIMITS = {"context": 1 << 32, "batch": 1 << 31}
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
        return Model.from_hf_config(model)
    if not isinstance(model, str):
        raise InputError(f"model must be a Model, a catalog name or a path to a config.json, "
                         f"got {type(model).__name__}")
    if model == "-" or model.endswith(".json") or "/" in model or Path(model).is_file():
        if model not in MODELS:
            return Model.from_hf_config(model)
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


def _rate(label: str, v: Any) -> float | None:
    if v is None:
        return None
    try:
        x = float(v)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{label} must be a number, got {v!r:.40}") from None
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


def estimate(model: str | Path | Model, *, hardware: str | Hardware | None = None,
             weights: str | None = None, bits_weight: Any = None, bits_kv: Any = 16,
             context: int = 1, batch: int = 1, bandwidth: float | None = None,
             peak_flops: float | None = None, capacity: int | None = None,
             overhead: int = 0) -> Estimate:
    """Bytes, FLOPs and roofline bounds of decoding ``model``.

    Parameters
    ----------
    model : Model, str or Path
        A model, a catalog name (``"llama-2-7b"``) or a path to a ``config.json``.
    hardware : Hardware or str, optional
        A chip or its catalog name; supplies bandwidth, the dense peak at the compute
        precision and capacity, unless ``bandwidth``, ``peak_flops`` or ``capacity`` are given.
    weights : str, optional
        A named weight format (``"fp16"``, ``"q4_0"``, ``"nvfp4"``, ...); default: as the
        checkpoint ships (16 bits, or gpt-oss's MXFP4 experts).
    bits_weight : number, optional
        Bits per weight, instead of ``weights`` [bit].
    bits_kv : number
        Bits per KV-cache element [bit].
    context : int
        Tokens in each sequence's cache at the decode step [token].
    batch : int
        Sequences decoded together [-].
    bandwidth : float, optional
        Memory bandwidth [B/s] (not GB/s).
    peak_flops : float, optional
        Dense peak rate [FLOP/s] (not TFLOP/s).
    capacity : int, optional
        Device memory [B].
    overhead : int
        Memory reserved beside weights and cache [B].

    A context beyond the model's trained context gives a :class:`ContextWarning`.
    """
    m = resolve_model(model)
    chip = get_hardware(hardware) if hardware is not None else None
    context = _count("context", context)
    batch = _count("batch", batch)
    if weights is not None and bits_weight is not None:
        raise InputError("give either weights (a format name) or bits_weight, not both")
    bw_bits = None if weights is None and bits_weight is None else bits_per_weight(
        weights if weights is not None else bits_weight)
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
    )


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
        bits = bits_per_weight(fmt)
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
