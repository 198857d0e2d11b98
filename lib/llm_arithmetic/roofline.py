r"""The roofline: time bounds from bytes moved and FLOPs done.

A step that moves :math:`\mathcal{B}` bytes and does :math:`\mathcal{F}` FLOPs on a chip with
bandwidth :math:`\beta_{mem}` and dense peak :math:`R_{peak}` cannot take less than

.. math:: t = \max\left(\frac{\mathcal{B}}{\beta_{mem}}, \frac{\mathcal{F}}{R_{peak}}\right)

because loading and computing overlap at best. Everything here is that bound, applied to a
decode step, a prefill and a whole generation.

* :func:`ops_per_byte` -- the chip's balance point :math:`R_{peak} / \beta_{mem}`
* :func:`roofline_time` -- the bound for any step
* :func:`decode_step_bytes`, :func:`decode_step_flops`, :func:`decode_step_time`
* :func:`critical_batch_size` -- the batch at which decode turns compute-bound
* :func:`critical_context` -- the context beyond which no batch does
* :func:`prefill_time`, :func:`generation_time`
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from ._formula import Formula, register
from .flops import DECODE_FLOPS_PER_TOKEN, PREFILL_FLOPS
from .symbols import (
    bandwidth, batch, context, d_head, generated, kv_bytes_token, matmul_params, n_heads,
    n_layers, peak_flops, prompt, step_bytes, step_flops, weight_bytes as W,
)

__all__ = [
    "OPS_PER_BYTE", "ROOFLINE_TIME", "DECODE_STEP_BYTES", "DECODE_STEP_FLOPS",
    "DECODE_STEP_TIME", "CRITICAL_BATCH", "CRITICAL_CONTEXT", "PREFILL_TIME", "GENERATION_TIME",
    "ops_per_byte", "roofline_time", "decode_step_bytes", "decode_step_flops",
    "decode_step_time", "critical_batch_size", "critical_context", "prefill_time",
    "generation_time",
]

beta, pi, B, S, T, G, kappa = bandwidth, peak_flops, batch, context, prompt, generated, kv_bytes_token
L, H, dh = n_layers, n_heads, d_head

#: FLOPs the chip can do per byte it loads.
OPS_PER_BYTE = pi / beta
#: The roofline bound of one step.
ROOFLINE_TIME = sp.Max(step_bytes / beta, step_flops / pi, evaluate=False)
#: One decode step of B sequences: weights once, each sequence's cache once.
DECODE_STEP_BYTES = W + B * kappa * S
#: One decode step of B sequences.
DECODE_STEP_FLOPS = B * DECODE_FLOPS_PER_TOKEN
#: Lower bound on the time of one decode step (every sequence gets one token).
DECODE_STEP_TIME = sp.Max(DECODE_STEP_BYTES / beta, DECODE_STEP_FLOPS / pi, evaluate=False)
_per_seq = (2 * matmul_params + 4 * L * H * dh * S) * beta - kappa * S * pi
#: Batch at which compute time equals memory time; infinite when each added sequence adds more
#: memory time (its cache) than compute time, so decode never turns compute-bound.
CRITICAL_BATCH = sp.Piecewise((sp.oo, sp.Le(_per_seq, 0, evaluate=False)), (W * pi / _per_seq, True),
                              evaluate=False)
_excess = kappa * pi - 4 * L * H * dh * beta
#: Context beyond which each added sequence brings more memory time (its cache) than compute
#: time, so no batch makes a decode step compute-bound: the root in S of CRITICAL_BATCH's
#: denominator; infinite when the cache never outweighs the arithmetic.
CRITICAL_CONTEXT = sp.Piecewise((sp.oo, sp.Le(_excess, 0, evaluate=False)),
                                (2 * matmul_params * beta / _excess, True), evaluate=False)
#: Prefill of B prompts of T tokens: weights once, the new cache written, causal FLOPs.
PREFILL_TIME = sp.Max((W + B * kappa * T) / beta, B * PREFILL_FLOPS / pi, evaluate=False)
_mean_context = T + (G + 1) / sp.Integer(2)
#: Prefill, then G decode steps. The i-th generated token attends to T + i positions; bytes and
#: FLOPs are linear in the context, so G steps at the mean context T + (G+1)/2 carry the same
#: totals, and G max(mean bytes, mean FLOPs) <= sum of the per-step maxima: still a lower bound.
GENERATION_TIME = PREFILL_TIME + G * sp.Max(*(a.xreplace({S: _mean_context})
                                              for a in DECODE_STEP_TIME.args), evaluate=False)

_F_OPB = Formula("ops_per_byte", OPS_PER_BYTE, (pi, beta), "FLOP/B")
_F_RT = Formula("roofline_time", ROOFLINE_TIME, (step_bytes, step_flops, beta, pi), "s")
_F_DSB = Formula("decode_step_bytes", DECODE_STEP_BYTES, (W, kappa, S, B), "B")
_F_DSF = Formula("decode_step_flops", DECODE_STEP_FLOPS, (matmul_params, L, H, dh, S, B), "FLOP")
_DEC_ARGS = (W, kappa, matmul_params, L, H, dh, S, B, beta, pi)
_F_DST = Formula("decode_step_time", DECODE_STEP_TIME, _DEC_ARGS, "s")
_F_CB = Formula("critical_batch_size", CRITICAL_BATCH,
                (W, kappa, matmul_params, L, H, dh, S, beta, pi), "1")
_F_CC = Formula("critical_context", CRITICAL_CONTEXT, (kappa, matmul_params, L, H, dh, beta, pi),
                 "token")
_F_PT = Formula("prefill_time", PREFILL_TIME, (W, kappa, matmul_params, L, H, dh, T, B, beta, pi),
                "s")
_F_GT = Formula("generation_time", GENERATION_TIME,
                (W, kappa, matmul_params, L, H, dh, T, G, B, beta, pi), "s")

_STEP_DOC = """
    Parameters
    ----------
    weight_bytes : int or array
        Weights read per step, W [B] (see :func:`llm_arithmetic.params.decode_read_params`)
    kv_bytes_token : int or array
        KV cache per token, kappa [B]
    matmul_params : int or array
        Weights used in matrix products per token [-]
    n_layers, n_heads, d_head : int or array
        Blocks, query heads, head width [-]
    bandwidth : float or array
        Memory bandwidth [B/s]
    peak_flops : float or array
        Dense peak rate at the precision of the arithmetic [FLOP/s]
"""


@register(_F_OPB)
def ops_per_byte(*, peak_flops: Any, bandwidth: Any) -> Any:
    r"""A chip's ops:byte ratio: FLOPs it can do for each byte it loads [FLOP/B].

    .. math:: \frac{R_{peak}}{\beta_{mem}}

    Examples
    --------
    A10, 125 TFLOP/s fp16 dense over 600 GB/s (Baseten: 208.3):

    >>> round(ops_per_byte(peak_flops=125e12, bandwidth=600e9), 1)
    208.3
    """
    return _F_OPB(peak_flops, bandwidth)


@register(_F_RT)
def roofline_time(*, step_bytes: Any, step_flops: Any, bandwidth: Any, peak_flops: Any) -> Any:
    r"""Lower bound on the time of a step that moves bytes and does FLOPs [s].

    .. math:: t = \max\left(\frac{\mathcal{B}}{\beta_{mem}}, \frac{\mathcal{F}}{R_{peak}}\right)

    >>> roofline_time(step_bytes=2e9, step_flops=1e12, bandwidth=1e12, peak_flops=1e15)
    0.002
    """
    return _F_RT(step_bytes, step_flops, bandwidth, peak_flops)


@register(_F_DSB)
def decode_step_bytes(*, weight_bytes: Any, kv_bytes_token: Any, context: Any,
                      batch: Any = 1) -> Any:
    r"""Bytes read in one decode step of B sequences with S cached tokens each [B].

    .. math:: \mathcal{B}_{dec} = W + B\,\kappa\,S

    >>> decode_step_bytes(weight_bytes=14_000_000_000, kv_bytes_token=131072, context=1000)
    14131072000
    """
    return _F_DSB(weight_bytes, kv_bytes_token, context, batch)


@register(_F_DSF)
def decode_step_flops(*, matmul_params: Any, n_layers: Any, n_heads: Any, d_head: Any,
                      context: Any, batch: Any = 1) -> Any:
    r"""FLOPs of one decode step of B sequences [FLOP].

    .. math:: \mathcal{F}_{dec} = B\,(2 P_{mm} + 4 L H d_{head} S)

    >>> decode_step_flops(matmul_params=10**9, n_layers=1, n_heads=1, d_head=1, context=0,
    ...                   batch=8)
    16000000000
    """
    return _F_DSF(matmul_params, n_layers, n_heads, d_head, context, batch)


@register(_F_DST)
def decode_step_time(*, weight_bytes: Any, kv_bytes_token: Any, matmul_params: Any,
                     n_layers: Any, n_heads: Any, d_head: Any, context: Any, batch: Any = 1,
                     bandwidth: Any, peak_flops: Any) -> Any:
    r"""Lower bound on the time of one decode step [s]; one token for each of B sequences.

    .. math:: t_{dec} = \max\left(\frac{W + B \kappa S}{\beta_{mem}},
              \frac{B (2 P_{mm} + 4 L H d_{head} S)}{R_{peak}}\right)

    Examples
    --------
    Mistral 7B, fp16 weights (14.22 GB read), short context, RTX 4090 (1008 GB/s): zeux's
    ~14.1 ms.

    >>> t = decode_step_time(weight_bytes=14221328384, kv_bytes_token=131072,
    ...                      matmul_params=7110393856, n_layers=32, n_heads=32, d_head=128,
    ...                      context=0, bandwidth=1008e9, peak_flops=165.2e12)
    >>> round(t * 1e3, 2)
    14.11
    """
    return _F_DST(weight_bytes, kv_bytes_token, matmul_params, n_layers, n_heads, d_head,
                  context, batch, bandwidth, peak_flops)


@register(_F_CB)
def critical_batch_size(*, weight_bytes: Any, kv_bytes_token: Any, matmul_params: Any,
                        n_layers: Any, n_heads: Any, d_head: Any, context: Any,
                        bandwidth: Any, peak_flops: Any) -> Any:
    r"""Batch size at which a decode step turns from memory-bound to compute-bound.

    Solving :math:`(W + B\kappa S)/\beta_{mem} = B(2P_{mm} + 4LHd_{head}S)/R_{peak}` for B:

    .. math:: B^{*} = \frac{W R_{peak}}{(2 P_{mm} + 4 L H d_{head} S)\,\beta_{mem} - \kappa S R_{peak}}

    and :math:`B^{*} = \infty` when the denominator is not positive (each sequence's cache
    costs more memory time than its arithmetic costs compute time).

    Examples
    --------
    At fp16 (W = 2 P bytes) with no context, B* is the chip's ops:byte ratio; on an A100
    (312 TFLOP/s, 1935 GB/s) that is finbarr's "161":

    >>> P = 6_738_415_616
    >>> b = critical_batch_size(weight_bytes=2*P, kv_bytes_token=524288, matmul_params=P,
    ...                         n_layers=32, n_heads=32, d_head=128, context=0,
    ...                         bandwidth=1935e9, peak_flops=312e12)
    >>> round(b, 1)
    161.2
    """
    return _F_CB(weight_bytes, kv_bytes_token, matmul_params, n_layers, n_heads, d_head,
                 context, bandwidth, peak_flops)


@register(_F_CC)
def critical_context(*, kv_bytes_token: Any, matmul_params: Any, n_layers: Any, n_heads: Any,
                     d_head: Any, bandwidth: Any, peak_flops: Any) -> Any:
    r"""Context beyond which no batch size makes a decode step compute-bound [token].

    Each sequence of a batch reads its own cache, :math:`\kappa S` bytes, and does
    :math:`2 P_{mm} + 4 L H d_{head} S` FLOPs. Where the denominator of :math:`B^{*}`
    (:func:`critical_batch_size`) reaches zero, a sequence's cache costs as much memory time as
    its arithmetic costs compute time, and beyond it :math:`B^{*} = \infty`:

    .. math:: S_{\infty} = \frac{2 P_{mm}\,\beta_{mem}}{\kappa R_{peak} - 4 L H d_{head}\,\beta_{mem}}

    and :math:`S_{\infty} = \infty` when :math:`\kappa R_{peak} \le 4 L H d_{head} \beta_{mem}`.

    Parameters
    ----------
    kv_bytes_token : int or array
        KV-cache bytes per token, kappa [B]
    matmul_params : int or array
        Weights used in matrix products per token [-]
    n_layers, n_heads, d_head : int or array
        Blocks, query heads, head width [-]
    bandwidth : float or array
        Memory bandwidth [B/s]
    peak_flops : float or array
        Dense peak rate at the precision of the arithmetic [FLOP/s]

    Examples
    --------
    LLaMA-7B (multi-head, 512 KiB of fp16 cache per token) on an A100 at fp16: past about 157
    tokens, decode stays memory-bound at any batch size.

    >>> round(critical_context(kv_bytes_token=524288, matmul_params=6607077376, n_layers=32,
    ...                        n_heads=32, d_head=128, bandwidth=1935e9, peak_flops=312e12), 1)
    157.3
    """
    return _F_CC(kv_bytes_token, matmul_params, n_layers, n_heads, d_head, bandwidth, peak_flops)


@register(_F_PT)
def prefill_time(*, weight_bytes: Any, kv_bytes_token: Any, matmul_params: Any,
                 n_layers: Any, n_heads: Any, d_head: Any, prompt: Any, batch: Any = 1,
                 bandwidth: Any, peak_flops: Any) -> Any:
    r"""Lower bound on the time to prefill B prompts of T tokens [s].

    .. math:: t_{pre} = \max\left(\frac{W + B \kappa T}{\beta_{mem}},
              \frac{B\,(2 P_{mm} T + 2 L H d_{head} T (T+1))}{R_{peak}}\right)

    Examples
    --------
    Llama 2 7B fp16, 350-token prompt on an A10 (125 TFLOP/s): compute-bound, ~38 ms.

    >>> P = 6_738_415_616
    >>> t = prefill_time(weight_bytes=2*P, kv_bytes_token=524288, matmul_params=P,
    ...                  n_layers=32, n_heads=32, d_head=128, prompt=350,
    ...                  bandwidth=600e9, peak_flops=125e12)
    >>> round(t * 1e3, 1)
    38.0
    """
    return _F_PT(weight_bytes, kv_bytes_token, matmul_params, n_layers, n_heads, d_head,
                 prompt, batch, bandwidth, peak_flops)


@register(_F_GT)
def generation_time(*, weight_bytes: Any, kv_bytes_token: Any, matmul_params: Any,
                    n_layers: Any, n_heads: Any, d_head: Any, prompt: Any, generated: Any,
                    batch: Any = 1, bandwidth: Any, peak_flops: Any) -> Any:
    r"""Lower bound on the time of a whole request: prefill, then G decode steps [s].

    .. math:: t_{gen} = t_{pre}(T) + G\; t_{dec}\!\left(S = T + \tfrac{G+1}{2}\right)

    Examples
    --------
    With no generated tokens it is the prefill alone:

    >>> kw = dict(weight_bytes=10**9, kv_bytes_token=10**5, matmul_params=5*10**8,
    ...           n_layers=8, n_heads=8, d_head=64, prompt=100, bandwidth=1e11, peak_flops=1e13)
    >>> generation_time(generated=0, **kw) == prefill_time(**kw)
    True
    """
    return _F_GT(weight_bytes, kv_bytes_token, matmul_params, n_layers, n_heads, d_head,
                 prompt, generated, batch, bandwidth, peak_flops)


for _fn in (decode_step_time, critical_batch_size, prefill_time, generation_time):
    _fn.__doc__ = (_fn.__doc__ or "").replace("\n    Examples", _STEP_DOC + "\n    Examples", 1)
