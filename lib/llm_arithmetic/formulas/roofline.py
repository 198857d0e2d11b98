r"""The roofline: time bounds from bytes moved and FLOPs done.

A step that moves :math:`\mathcal{B}` bytes and does :math:`\mathcal{F}` FLOPs on a chip with
bandwidth :math:`\beta_{mem}` and dense peak :math:`R_{peak}` cannot take less than the larger
of the memory time :math:`\mathcal{B}/\beta_{mem}` and the compute time
:math:`\mathcal{F}/R_{peak}` (:data:`roofline_time`), because loading and computing overlap at
best. Everything here is that bound, applied to a decode step, a prefill and a request.

* :data:`ops_per_byte` -- a chip's balance point, the ridge of its roofline.
* A decode step of B sequences, for any model: the weights are read once, each sequence's
  cache once (:data:`batched_step_bytes`); each sequence does its own arithmetic
  (:data:`batched_step_flops`); :data:`critical_batch` solves "memory time = compute time" for
  B.
* The same for a decoder whose layers all attend over S tokens: :data:`decode_step_bytes`,
  :data:`decode_step_flops`, :data:`decode_step_time`, :data:`critical_batch_size`,
  :data:`critical_context` (the context beyond which no batch turns compute-bound),
  :data:`prefill_time`, :data:`generation_time`.

Nothing is typed twice: the step quantities are the batched ones with a uniform decoder's
cache and FLOPs substituted, and the critical batch and context are solved from them. The
closed forms for a uniform decoder take attention's FLOPs at their own rate, R_attn
(``attn_peak_flops``, the cache's precision), and the rest at R_peak
(:data:`split_compute_time`); R_attn is optional, and leaving it out gives the single-rate form,
R_attn = R_peak.
"""
from __future__ import annotations

import sympy as sp

from ..core.registry import formula, same_as
from ..core.symbols import batch as _B, context as _S
from .flops import (attention_decode_flops, attention_prefill_flops, causal_pairs,
                    decode_flops_per_token, prefill_flops)

__all__ = [
    "ops_per_byte", "roofline_time", "split_compute_time", "step_peak_flops",
    "memory_bound_rate", "efficiency", "batched_step_bytes", "batched_step_flops",
    "critical_batch", "decode_step_bytes", "decode_step_flops", "decode_step_time",
    "critical_batch_size", "critical_context", "prefill_time", "generation_time",
]


@formula("ops_per_byte")
def ops_per_byte(*, peak_flops, bandwidth):
    """A chip's ops:byte ratio: the FLOPs it can do for each byte it loads. An operation of
    lower arithmetic intensity is memory-bound on it; of higher, compute-bound.

    Examples
    --------
    A10, 125 TFLOP/s fp16 dense over 600 GB/s (Baseten: 208.3):

    >>> round(ops_per_byte(peak_flops=125e12, bandwidth=600e9), 1)
    208.3
    """
    return peak_flops / bandwidth


@formula("step_time")
def roofline_time(*, step_bytes, step_flops, bandwidth, peak_flops):
    """Lower bound on the time of a step: the larger of its memory time and its compute time.

    Examples
    --------
    >>> roofline_time(step_bytes=2e9, step_flops=1e12, bandwidth=1e12, peak_flops=1e15)
    0.002
    """
    return sp.Max(step_bytes / bandwidth, step_flops / peak_flops, evaluate=False)


@formula("compute_time")
def split_compute_time(*, step_flops, step_attn_flops, peak_flops, attn_peak_flops):
    """Time to do a step's FLOPs when they run at two rates: the products with the weights at
    the weights' rate (the precision their format computes in: int8 for llama.cpp's block
    formats on NVIDIA and AMD chips, fp8 for fp8 weights), and the products with the cached keys
    and values (attention's scores and weighted values) or a layer's state at the rate of the
    cache's precision (16-bit for a 16-bit cache). Attention never multiplies a weight, so it
    never runs at the weights' rate unless the cache shares its precision.

    Examples
    --------
    A prefill of Llama 3.1 8B at Q4_0 over 8,192 tokens on an RTX 4090 (int8 at 660.6 TOP/s,
    16-bit products at 330.3 TFLOP/s). Weights: 2 x 6,979,321,856 weights of the blocks x 8,192
    tokens + 2 x 525,336,576 of the head once = 114,350,259,961,856 FLOPs; attention:
    32 layers x 4 x 32 heads x 128 x (8,192 x 8,193 / 2) = 17,594,333,528,064 FLOPs (13% of the
    step). At one rate, 200 ms; attention at its own, 226 ms:

    >>> kw = dict(step_flops=114_350_259_961_856 + 17_594_333_528_064,
    ...           step_attn_flops=17_594_333_528_064, peak_flops=660.6e12)
    >>> round(split_compute_time(attn_peak_flops=660.6e12, **kw) * 1e3, 1)
    199.7
    >>> round(split_compute_time(attn_peak_flops=330.3e12, **kw) * 1e3, 1)
    226.4
    """
    return (step_flops - step_attn_flops) / peak_flops + step_attn_flops / attn_peak_flops


@formula("step_peak_flops")
def step_peak_flops(*, step_flops, step_attn_flops, peak_flops, attn_peak_flops):
    """A step's effective peak: its FLOPs over the compute time of
    :data:`split_compute_time`. Every roofline of the estimate takes a step's FLOPs at this
    rate, so that its compute time is the weights' products at their rate plus attention's at
    its own; it depends only on the share of the FLOPs that is attention, so a batch, a pipeline
    stage or a tensor-parallel chip (each takes the same share of both) keeps it. A chip that
    computes copies of an indexer's heads takes more of attention's: the serving bounds take
    the peak of the tensor-parallel group's FLOPs with those copies counted.

    Examples
    --------
    The prefill of :data:`split_compute_time`: 131.9 TFLOPs in 226.4 ms, 582.9 TFLOP/s:

    >>> r = step_peak_flops(step_flops=114_350_259_961_856 + 17_594_333_528_064,
    ...                     step_attn_flops=17_594_333_528_064, peak_flops=660.6e12,
    ...                     attn_peak_flops=330.3e12)
    >>> round(r / 1e12, 1)
    582.9
    """
    return step_flops / split_compute_time(step_flops=step_flops, step_attn_flops=step_attn_flops,
                                           peak_flops=peak_flops,
                                           attn_peak_flops=attn_peak_flops)


@formula("tokens_per_second")
def memory_bound_rate(*, step_bytes, bandwidth):
    """Upper bound on the decode rate of one stream when its steps are memory-bound: as many
    steps per second as the bandwidth can move their bytes (the "speed of light").

    Examples
    --------
    14.22 GB per token at 1008 GB/s:

    >>> round(memory_bound_rate(step_bytes=14.22e9, bandwidth=1008e9), 1)
    70.9
    """
    return bandwidth / step_bytes


@formula("fraction")
def efficiency(*, measured_tps, tokens_per_second):
    """Efficiency of an implementation: its measured rate over the bound.

    Examples
    --------
    >>> efficiency(measured_tps=16, tokens_per_second=20)
    0.8
    """
    return measured_tps / tokens_per_second


@formula("step_bytes")
def batched_step_bytes(*, weight_bytes, seq_bytes, batch=1):
    """Bytes one decode step of B sequences moves: the weights once, and each sequence's own
    cache (and state) once.

    Examples
    --------
    >>> batched_step_bytes(weight_bytes=14_000_000_000, seq_bytes=131_072_000, batch=2)
    14262144000
    """
    return weight_bytes + batch * seq_bytes


@formula("step_flops")
def batched_step_flops(*, seq_flops, batch=1):
    """FLOPs of one decode step of B sequences: each does its own arithmetic.

    Examples
    --------
    >>> batched_step_flops(seq_flops=2 * 10**9, batch=8)
    16000000000
    """
    return batch * seq_flops


def _positive_form(root, expand=False):
    """``root`` as numerator / denominator with a numerator that has no leading minus sign
    (the numerators here are products of positive quantities), so that the root is positive
    exactly when the denominator is; with ``expand`` the denominator multiplied out."""
    num, den = sp.fraction(sp.together(root))
    if num.could_extract_minus_sign():
        num, den = -num, -den
    if expand:
        den = sp.expand(den)
    return num / den, den


def _solve_critical(weight_bytes, seq_bytes, seq_flops, bandwidth, peak_flops,
                    seq_attn_flops=None, attn_peak_flops=None):
    """B at which the memory time of a batched step equals its compute time, and the
    denominator whose sign says whether such a B exists (it must be positive). With
    ``seq_attn_flops`` (attention's share of ``seq_flops``) the compute time is
    :data:`split_compute_time`, attention at ``attn_peak_flops``."""
    memory_time = batched_step_bytes(weight_bytes=weight_bytes, seq_bytes=seq_bytes,
                                     batch=_B) / bandwidth
    step_flops = batched_step_flops(seq_flops=seq_flops, batch=_B)
    if seq_attn_flops is None:
        compute_time = step_flops / peak_flops
    else:
        compute_time = split_compute_time(
            step_flops=step_flops, step_attn_flops=batched_step_flops(seq_flops=seq_attn_flops,
                                                                      batch=_B),
            peak_flops=peak_flops, attn_peak_flops=attn_peak_flops)
    (root,) = sp.solve(sp.Eq(memory_time, compute_time), _B)
    return _positive_form(root)


@formula("critical_batch")
def critical_batch(*, weight_bytes, seq_bytes, seq_flops, bandwidth, peak_flops):
    """Batch at which a decode step turns from memory-bound to compute-bound: the B that makes
    the memory time of :data:`batched_step_bytes` equal the compute time of
    :data:`batched_step_flops` (solved by sympy).

    Infinite when each added sequence costs more memory time (its cache) than compute time: the
    step then never turns compute-bound.

    Examples
    --------
    A 14 GB model with 2 GFLOPs per token and no cache, on 1 TB/s and 100 TFLOP/s: 700.

    >>> critical_batch(weight_bytes=14e9, seq_bytes=0, seq_flops=2e9, bandwidth=1e12,
    ...                peak_flops=100e12)
    700.0
    """
    root, denominator = _solve_critical(weight_bytes, seq_bytes, seq_flops, bandwidth,
                                        peak_flops)
    return sp.Piecewise((sp.oo, sp.Le(denominator, 0)), (root, True), evaluate=False)


@formula("step_bytes")
def decode_step_bytes(*, weight_bytes, kv_cache_bytes_per_token, context, batch=1):
    """Bytes one decode step of B sequences reads, each with S tokens in every layer's cache.

    Examples
    --------
    >>> decode_step_bytes(weight_bytes=14_000_000_000, kv_cache_bytes_per_token=131072, context=1000)
    14131072000
    """
    return batched_step_bytes(weight_bytes=weight_bytes, seq_bytes=kv_cache_bytes_per_token * context,
                              batch=batch)


@formula("step_flops")
def decode_step_flops(*, matmul_params, n_layers, n_heads, d_head, context, batch=1):
    """FLOPs of one decode step of B sequences with S cached tokens each.

    Examples
    --------
    >>> decode_step_flops(matmul_params=10**9, n_layers=1, n_heads=1, d_head=1, context=0,
    ...                   batch=8)
    16000000000
    """
    per_seq = decode_flops_per_token(matmul_params=matmul_params, n_layers=n_layers,
                                     n_heads=n_heads, d_head=d_head, context=context)
    return batched_step_flops(seq_flops=per_seq, batch=batch)


@formula("decode_time")
def decode_step_time(*, weight_bytes, kv_cache_bytes_per_token, matmul_params, n_layers, n_heads, d_head,
                     context, batch=1, bandwidth, peak_flops,
                     attn_peak_flops=same_as("peak_flops")):
    """Lower bound on the time of one decode step (one token for each of B sequences): the
    roofline of its bytes and FLOPs, the products with the weights at R_peak and attention's
    at R_attn (:data:`split_compute_time`; R_attn = R_peak unless given).

    Examples
    --------
    Mistral 7B, fp16 weights (14.22 GB read), short context, RTX 4090 (1008 GB/s): Kapoulkine's
    ~14.1 ms.

    >>> t = decode_step_time(weight_bytes=14221328384, kv_cache_bytes_per_token=131072,
    ...                      matmul_params=7110393856, n_layers=32, n_heads=32, d_head=128,
    ...                      context=0, bandwidth=1008e9, peak_flops=165.2e12)
    >>> round(t * 1e3, 2)
    14.11
    """
    step_bytes = decode_step_bytes(weight_bytes=weight_bytes,
                                   kv_cache_bytes_per_token=kv_cache_bytes_per_token,
                                   context=context, batch=batch)
    step_flops = decode_step_flops(matmul_params=matmul_params, n_layers=n_layers,
                                   n_heads=n_heads, d_head=d_head, context=context, batch=batch)
    attention = batched_step_flops(
        seq_flops=n_layers * attention_decode_flops(n_heads=n_heads, d_head=d_head,
                                                    attended=context), batch=batch)
    # roofline_time with the compute time of split_compute_time in place of F / R_peak (the FLOPs
    # multiplied out, so that attention's cancel from the weights' share)
    return sp.Max(step_bytes / bandwidth,
                  split_compute_time(step_flops=sp.expand(step_flops),
                                     step_attn_flops=sp.expand(attention),
                                     peak_flops=peak_flops, attn_peak_flops=attn_peak_flops),
                  evaluate=False)


@formula("critical_batch")
def critical_batch_size(*, weight_bytes, kv_cache_bytes_per_token, matmul_params, n_layers, n_heads,
                        d_head, context, bandwidth, peak_flops,
                        attn_peak_flops=same_as("peak_flops")):
    """Batch size at which a decode step of a uniform decoder turns compute-bound:
    :data:`critical_batch` with the cache read per sequence, kappa S, and the FLOPs per
    sequence, 2 P_mm + 4 L H d_head S, of which attention's 4 L H d_head S run at R_attn
    (:data:`split_compute_time`; R_attn = R_peak unless given).

    Examples
    --------
    At fp16 (W = 2 P bytes) with no context, B* is the chip's ops:byte ratio; on an A100
    (312 TFLOP/s, 1935 GB/s) that is Timbers's "161":

    >>> P = 6_738_415_616
    >>> b = critical_batch_size(weight_bytes=2*P, kv_cache_bytes_per_token=524288, matmul_params=P,
    ...                         n_layers=32, n_heads=32, d_head=128, context=0,
    ...                         bandwidth=1935e9, peak_flops=312e12)
    >>> round(b, 1)
    161.2
    """
    per_seq = decode_flops_per_token(matmul_params=matmul_params, n_layers=n_layers,
                                     n_heads=n_heads, d_head=d_head, context=context)
    attention = n_layers * attention_decode_flops(n_heads=n_heads, d_head=d_head, attended=context)
    root, _ = _solve_critical(weight_bytes, kv_cache_bytes_per_token * context, per_seq,
                              bandwidth, peak_flops, attention, attn_peak_flops)
    # W over what one more sequence adds to a step, in bytes: what memory moves in that
    # sequence's compute time, beta (2 P_mm / R_peak + 4 L H d_head S / R_attn), less its own
    # cache, kappa S (the solved root with numerator and denominator divided by the rates, which
    # are positive: the denominator keeps its sign); infinite where the first is no more than
    # the second
    per_sequence = sp.collect(sp.expand(weight_bytes / root), bandwidth)
    moved = sp.Add(*[t for t in per_sequence.args if not t.could_extract_minus_sign()])
    cache = -sp.Add(*[t for t in per_sequence.args if t.could_extract_minus_sign()])
    return sp.Piecewise((sp.oo, sp.Le(moved, cache)), (weight_bytes / per_sequence, True),
                        evaluate=False)


@formula("critical_context")
def critical_context(*, kv_cache_bytes_per_token, matmul_params, n_layers, n_heads, d_head, bandwidth,
                     peak_flops, attn_peak_flops=same_as("peak_flops")):
    """Context beyond which no batch size makes a decode step of a uniform decoder
    compute-bound: where the denominator of :data:`critical_batch_size` reaches zero (solved
    for S), a sequence's cache costs as much memory time as its arithmetic costs compute time,
    attention's at R_attn (R_attn = R_peak unless given).

    Infinite when the cache never outweighs the arithmetic.

    Examples
    --------
    LLaMA-7B (multi-head, 512 KiB of fp16 cache per token) on an A100 at fp16: past about 157
    tokens, decode stays memory-bound at any batch size.

    >>> round(critical_context(kv_cache_bytes_per_token=524288, matmul_params=6607077376, n_layers=32,
    ...                        n_heads=32, d_head=128, bandwidth=1935e9, peak_flops=312e12), 1)
    157.3
    """
    per_seq = decode_flops_per_token(matmul_params=matmul_params, n_layers=n_layers,
                                     n_heads=n_heads, d_head=d_head, context=_S)
    attention = n_layers * attention_decode_flops(n_heads=n_heads, d_head=d_head, attended=_S)
    _, denominator = _solve_critical(1, kv_cache_bytes_per_token * _S, per_seq, bandwidth, peak_flops,
                                     attention, attn_peak_flops)
    (root,) = sp.solve(denominator, _S)
    root, root_denominator = _positive_form(root, expand=True)
    return sp.Piecewise((sp.oo, sp.Le(root_denominator, 0)), (root, True), evaluate=False)


@formula("prefill_time")
def prefill_time(*, weight_bytes, kv_cache_bytes_per_token, matmul_params, head_params, n_layers,
                 n_heads, d_head, prompt, batch=1, bandwidth, peak_flops,
                 attn_peak_flops=same_as("peak_flops")):
    """Lower bound on the time to prefill B prompts of T tokens: the weights read once and the
    new cache written, against the causal FLOPs of every prompt (the output head once a
    prompt), the products with the weights at R_peak and attention's at R_attn
    (:data:`split_compute_time`; R_attn = R_peak unless given).

    Examples
    --------
    Llama 2 7B fp16, 350-token prompt on an A10 (125 TFLOP/s): compute-bound, ~37 ms (38.0 ms
    with the 32,000 x 4096 head charged for every prompt token).

    >>> P = 6_738_415_616
    >>> kw = dict(weight_bytes=2*P, kv_cache_bytes_per_token=524288, matmul_params=P,
    ...           n_layers=32, n_heads=32, d_head=128, prompt=350,
    ...           bandwidth=600e9, peak_flops=125e12)
    >>> round(prefill_time(head_params=32000 * 4096, **kw) * 1e3, 1)
    37.3
    >>> round(prefill_time(head_params=0, **kw) * 1e3, 1)
    38.0
    """
    step_bytes = batched_step_bytes(weight_bytes=weight_bytes,
                                    seq_bytes=kv_cache_bytes_per_token * prompt, batch=batch)
    step_flops = batched_step_flops(
        seq_flops=prefill_flops(matmul_params=matmul_params, head_params=head_params,
                                n_layers=n_layers, n_heads=n_heads, d_head=d_head,
                                prompt=prompt),
        batch=batch)
    attention = batched_step_flops(
        seq_flops=n_layers * attention_prefill_flops(
            n_heads=n_heads, d_head=d_head, causal_pairs=causal_pairs(prompt=prompt)),
        batch=batch)
    # roofline_time with the compute time of split_compute_time in place of F / R_peak (F_pre
    # kept whole, so that the book can print it as F_pre: the weights' share is F_pre less
    # attention's)
    return sp.Max(step_bytes / bandwidth,
                  split_compute_time(step_flops=step_flops, step_attn_flops=attention,
                                     peak_flops=peak_flops, attn_peak_flops=attn_peak_flops),
                  evaluate=False)


@formula("generation_time")
def generation_time(*, weight_bytes, kv_cache_bytes_per_token, matmul_params, head_params, n_layers,
                    n_heads, d_head, prompt, generated, batch=1, bandwidth, peak_flops,
                    attn_peak_flops=same_as("peak_flops")):
    """Lower bound on the time of a whole request: the prefill, then G decode steps.

    The i-th generated token attends to T + i positions; bytes and FLOPs are linear in the
    context, so G steps at the mean context T + (G + 1)/2 carry the same totals, and G times
    the bound at the mean is at most the sum of the per-step bounds: still a lower bound.

    Examples
    --------
    With no generated tokens it is the prefill alone:

    >>> kw = dict(weight_bytes=10**9, kv_cache_bytes_per_token=10**5, matmul_params=5*10**8,
    ...           head_params=5*10**7, n_layers=8, n_heads=8, d_head=64, prompt=100,
    ...           bandwidth=1e11, peak_flops=1e13)
    >>> generation_time(generated=0, **kw) == prefill_time(**kw)
    True
    """
    mean_context = prompt + (generated + 1) / sp.Integer(2)
    step = decode_step_time(weight_bytes=weight_bytes, kv_cache_bytes_per_token=kv_cache_bytes_per_token,
                            matmul_params=matmul_params, n_layers=n_layers, n_heads=n_heads,
                            d_head=d_head, context=mean_context, batch=batch,
                            bandwidth=bandwidth, peak_flops=peak_flops,
                            attn_peak_flops=attn_peak_flops)
    return prefill_time(weight_bytes=weight_bytes, kv_cache_bytes_per_token=kv_cache_bytes_per_token,
                        matmul_params=matmul_params, head_params=head_params, n_layers=n_layers,
                        n_heads=n_heads, d_head=d_head, prompt=prompt, batch=batch,
                        bandwidth=bandwidth, peak_flops=peak_flops,
                        attn_peak_flops=attn_peak_flops) + generated * step
