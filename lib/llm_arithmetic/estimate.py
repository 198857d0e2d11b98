"""Estimates for a model on a chip: everything the CLI reports, from the package's formulas.

:func:`estimate` joins a :class:`~llm_arithmetic.models.Model`, a precision and (optionally) a
chip into an :class:`Estimate`. Without a bandwidth there are no times; without a peak rate
there is no compute time and no critical batch size; without a capacity, no fit.

>>> from llm_arithmetic import get_model
>>> e = estimate(get_model("llama-2-7b"), bandwidth=1935e9, peak_flops=312e12, context=1)
>>> e.weight_bytes, round(e.decode_seconds_per_token * 1e3, 2)
(13476831232, 6.83)
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from . import flops, memory, params, roofline
from .hardware import Hardware
from .models import Model
from .units import bits_per_weight

__all__ = ["Estimate", "estimate", "compute_precision", "step_weight_bytes"]


def compute_precision(weight_format: str | None, bits_weight: Fraction) -> str:
    """Precision of the arithmetic for a weight format (which dense peak applies).

    fp32 weights compute in fp32, fp8 in fp8, int8 in int8; everything else (fp16, bf16, and
    the block formats and int4, which are dequantized on the fly) in fp16.

    >>> compute_precision("q4_0", Fraction(9, 2)), compute_precision(None, Fraction(32))
    ('fp16', 'fp32')
    """
    f = (weight_format or "").lower()
    if f in ("fp32", "tf32") or (not f and bits_weight >= 32):
        return "fp32"
    if f in ("fp8", "int8", "bf16"):
        return f
    return "fp16"


def step_weight_bytes(model: Model, *, bits_weight: Any = 16, batch: Any = 1) -> Any:
    """Weight bytes one decode step of ``batch`` tokens reads [B].

    :func:`~llm_arithmetic.params.decode_read_params` at ``bits_weight``, with the
    :data:`~llm_arithmetic.params.EXPERTS_READ` experts per block that a batch of a mixture of
    experts touches (k at batch 1). Exact (an ``int`` or ``Fraction``) for a dense model or
    batch 1; a float, or an array for an array of batches, otherwise.

    Llama 2 7B at fp16, any batch: 2 B x (6,738,415,616 parameters less 31,999 unread rows
    of 4,096 in the embedding table); Mixtral 8x7B reads 3.5 experts per block at batch 2:

    >>> from llm_arithmetic import get_model
    >>> step_weight_bytes(get_model("llama-2-7b"), batch=8)
    13214695424
    >>> m = get_model("mixtral-8x7b")
    >>> round(step_weight_bytes(m, batch=2) / step_weight_bytes(m, batch=1), 3)
    1.663
    """
    arch = model.arch()
    if model.n_experts == 1 or (np.ndim(batch) == 0 and batch == 1):
        read = params.decode_read_params(**arch)
        return memory.weight_bytes(n_params=read, bits_weight=bits_weight)
    batch = np.asarray(batch, dtype=float) if np.ndim(batch) else float(batch)
    experts = params.experts_read(n_experts=model.n_experts,
                                  n_active_experts=model.n_active_experts, batch=batch)
    read = params.decode_read_params(**dict(arch, n_active_experts=experts))
    return memory.weight_bytes(n_params=read, bits_weight=float(bits_weight))


def _moe_critical_batch(model: Model, bw_bits: Fraction, kv_tok: float, s_eff: float, p_mm: int,
                        bandwidth: float, peak_flops: float) -> float:
    """Batch at which a mixture-of-experts decode step turns compute-bound [-].

    The weights read grow with the batch (:data:`~llm_arithmetic.params.EXPERTS_READ`), so
    :data:`~llm_arithmetic.roofline.CRITICAL_BATCH` has no closed form here; its equation,
    :math:`B(2P_{mm} + 4LHd_{head}S)/R_{peak} = (W(B) + B\\kappa S)/\\beta_{mem}`, is solved by
    bisection. The gap between its sides is convex in B (W(B) is concave) and negative at
    B = 0, so the root is unique. The caller has checked that a root exists.
    """
    def gap(b: float) -> float:
        w = step_weight_bytes(model, bits_weight=bw_bits, batch=b)
        t_mem = float(roofline.decode_step_bytes(weight_bytes=w, kv_bytes_token=kv_tok,
                                                 context=s_eff, batch=b)) / bandwidth
        t_cmp = float(roofline.decode_step_flops(matmul_params=p_mm, n_layers=model.n_layers,
                                                 n_heads=model.n_heads, d_head=model.d_head,
                                                 context=s_eff, batch=b)) / peak_flops
        return t_cmp - t_mem

    lo, hi = 0.0, 1.0
    while gap(hi) < 0:
        lo, hi = hi, hi * 2
    for _ in range(60):  # halves the bracket to double precision
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
    return hi


@dataclass(frozen=True)
class Estimate:
    """What :func:`estimate` computes; field names are the CLI's JSON keys.

    ``kv_cache_bytes`` is the cache stored for ``context`` tokens of each of ``batch``
    sequences (the full context, as most runtimes store it). What a decode step *reads* uses
    ``attended_context``, which is smaller than ``context`` for models with sliding-window
    layers (:func:`llm_arithmetic.memory.attended_context`).
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
    compute_precision: str  #: the precision whose peak ``peak_flops`` is (after any fallback)
    capacity: int | None
    params_total: int
    params_active: int
    params_matmul: int
    params_read_per_token: int
    weight_bytes: int | float
    kv_cache_bytes_per_token: int | float
    kv_cache_bytes: int | float
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

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, Fraction):
                d[k] = int(v) if v.denominator == 1 else float(v)
            elif v == float("inf"):
                d[k] = None
        return d


def estimate(model: Model, *, hardware: Hardware | None = None, weights: str | None = None,
             bits_weight: Any = None, bits_kv: Any = 16, context: int = 1, batch: int = 1,
             bandwidth: float | None = None, peak_flops: float | None = None,
             capacity: int | None = None, overhead: int = 0) -> Estimate:
    """Bytes, FLOPs and roofline times of decoding ``model``.

    Parameters
    ----------
    model : Model
        The architecture.
    hardware : Hardware, optional
        A chip; supplies bandwidth, the dense peak at the compute precision and capacity,
        unless ``bandwidth``, ``peak_flops`` or ``capacity`` are given.
    weights : str, optional
        A named weight format (``"fp16"``, ``"q4_0"``, ...); default fp16.
    bits_weight : number, optional
        Bits per weight, instead of ``weights``.
    bits_kv : number
        Bits per KV-cache element [bit].
    context : int
        Tokens in each sequence's cache at the decode step [token].
    batch : int
        Sequences decoded together [-].
    bandwidth : float, optional
        Memory bandwidth [B/s].
    peak_flops : float, optional
        Dense peak rate [FLOP/s].
    capacity : int, optional
        Device memory [B].
    overhead : int
        Memory reserved beside weights and cache [B].
    """
    for label, v in (("context", context), ("batch", batch)):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"{label} must be a positive integer, got {v!r}")
    if weights is not None and bits_weight is not None:
        raise ValueError("give either weights (a format name) or bits_weight, not both")
    bw_bits = bits_per_weight(weights if weights is not None else
                              (bits_weight if bits_weight is not None else "fp16"))
    kv_bits = bits_per_weight(bits_kv)
    precision = compute_precision(weights, bw_bits)

    if hardware is not None:
        bandwidth = hardware.bandwidth if bandwidth is None else bandwidth
        capacity = hardware.capacity if capacity is None else capacity
        if peak_flops is None:
            # the dense peak at the compute precision; a chip without it (no fp8 or int8
            # units, a CPU with an fp32 figure only) computes at the next precision it has,
            # and compute_precision reports the one whose peak is used
            for prec in (precision, "fp16", "fp32"):
                if prec in hardware.peaks:
                    peak_flops, precision = hardware.peaks[prec].rate, prec
                    break
    for label, v in (("bandwidth", bandwidth), ("peak_flops", peak_flops), ("capacity", capacity)):
        if v is not None and not v > 0:
            raise ValueError(f"{label} must be positive, got {v!r}")

    arch = model.arch()
    p_total = params.total_params(**arch)
    p_active = params.active_params(**arch)
    p_mm = params.matmul_params(**arch)
    p_read = params.decode_read_params(**arch)
    w_total = memory.weight_bytes(n_params=p_total, bits_weight=bw_bits)
    w_read = memory.weight_bytes(n_params=p_read, bits_weight=bw_bits)
    kv_tok = memory.kv_cache_bytes_per_token(n_layers=model.n_layers, n_kv_heads=model.n_kv_heads,
                                             d_head=model.d_head, bits_kv=kv_bits)
    kv = memory.kv_cache_bytes(n_layers=model.n_layers, n_kv_heads=model.n_kv_heads,
                               d_head=model.d_head, context=context, batch=batch, bits_kv=kv_bits)
    # sliding-window layers read (and attend over) at most their window: S_eff stands for S
    s_eff = model.attended_context(context)
    dec_bytes_1 = roofline.decode_step_bytes(weight_bytes=w_read, kv_bytes_token=kv_tok,
                                             context=s_eff, batch=1)
    # a batched mixture-of-experts step reads every expert that any of its tokens chose
    e_read = params.experts_read(n_experts=model.n_experts,
                                 n_active_experts=model.n_active_experts, batch=batch)
    w_step = step_weight_bytes(model, bits_weight=bw_bits, batch=batch)
    step_bytes = roofline.decode_step_bytes(weight_bytes=w_step, kv_bytes_token=kv_tok,
                                            context=s_eff, batch=batch)
    dec_flops = flops.decode_flops_per_token(matmul_params=p_mm, n_layers=model.n_layers,
                                             n_heads=model.n_heads, d_head=model.d_head,
                                             context=s_eff)
    step_flops = roofline.decode_step_flops(matmul_params=p_mm, n_layers=model.n_layers,
                                            n_heads=model.n_heads, d_head=model.d_head,
                                            context=s_eff, batch=batch)
    mem_s = comp_s = step_s = tps = thr = opb = crit = None
    bound = None
    if bandwidth is not None:
        mem_s = float(step_bytes) / bandwidth
        step_s, bound = mem_s, "memory"
    if peak_flops is not None:
        comp_s = float(step_flops) / peak_flops
    if bandwidth is not None and peak_flops is not None:
        step_s = roofline.roofline_time(step_bytes=float(step_bytes),
                                        step_flops=float(step_flops), bandwidth=bandwidth,
                                        peak_flops=peak_flops)
        bound = "compute" if comp_s > mem_s else "memory"
        opb = roofline.ops_per_byte(peak_flops=peak_flops, bandwidth=bandwidth)
        crit = roofline.critical_batch_size(weight_bytes=float(w_read),
                                            kv_bytes_token=float(kv_tok), matmul_params=p_mm,
                                            n_layers=model.n_layers, n_heads=model.n_heads,
                                            d_head=model.d_head, context=s_eff,
                                            bandwidth=bandwidth, peak_flops=peak_flops)
        crit = None if crit == float("inf") else float(crit)
        if crit is not None and model.n_experts > 1:
            crit = _moe_critical_batch(model, bw_bits, float(kv_tok), float(s_eff), p_mm,
                                       bandwidth, peak_flops)
    if step_s is not None:
        tps = 1.0 / step_s
        thr = batch / step_s
    required = w_total + kv + overhead
    fits = mb = mc = None
    if capacity is not None:
        fits = bool(required <= capacity)
        mb = memory.max_batch(capacity=capacity, weight_bytes=w_total, kv_bytes_token=kv_tok,
                              context=context, overhead=overhead)
        mc = memory.max_context(capacity=capacity, weight_bytes=w_total, kv_bytes_token=kv_tok,
                                batch=batch, overhead=overhead)
    return Estimate(
        model=model.name, hardware=hardware.name if hardware is not None else None,
        bits_weight=float(bw_bits), bits_kv=float(kv_bits), context=context,
        attended_context=s_eff, batch=batch, experts_read=e_read,
        bandwidth=bandwidth, peak_flops=peak_flops, compute_precision=precision,
        capacity=capacity, params_total=p_total, params_active=p_active, params_matmul=p_mm,
        params_read_per_token=p_read, weight_bytes=w_total, kv_cache_bytes_per_token=kv_tok,
        kv_cache_bytes=kv, decode_bytes_per_token=dec_bytes_1, decode_step_bytes=step_bytes,
        decode_flops_per_token=dec_flops, decode_memory_seconds=mem_s,
        decode_compute_seconds=comp_s, decode_seconds_per_token=step_s,
        decode_tokens_per_second=tps, throughput_tokens_per_second=thr, bound=bound,
        ops_per_byte=opb, critical_batch_size=crit, memory_required_bytes=required, fits=fits,
        max_batch=mb, max_context=mc,
    )
