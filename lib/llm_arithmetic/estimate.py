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

from . import flops, memory, params, roofline
from .hardware import Hardware
from .models import Model
from .units import bits_per_weight

__all__ = ["Estimate", "estimate", "compute_precision"]


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
    bandwidth: float | None
    peak_flops: float | None
    compute_precision: str
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
            prec = precision if precision in hardware.peaks else "fp16"
            if prec in hardware.peaks:
                peak_flops = hardware.peaks[prec].rate
            elif "fp32" in hardware.peaks:
                peak_flops = hardware.peaks["fp32"].rate
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
    step_bytes = roofline.decode_step_bytes(weight_bytes=w_read, kv_bytes_token=kv_tok,
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
        attended_context=s_eff, batch=batch,
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
