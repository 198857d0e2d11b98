r"""Arithmetic: FLOPs of decode and prefill, and arithmetic intensity.

A multiply-add is 2 floating-point operations (FLOPs, a count; a rate is FLOP/s).

* :func:`decode_flops_per_token` -- :math:`2 P_{mm} + 4 L H d_{head} S`
* :func:`prefill_flops` -- :math:`2 P_{mm} T + 2 L H d_{head} T (T + 1)` (causal attention)
* :func:`matvec_intensity`, :func:`matmul_intensity` -- FLOPs per byte moved
* :func:`attention_standard_flops`, :func:`attention_standard_bytes`,
  :func:`attention_standard_intensity` -- the standard (non-fused) attention algorithm
* :func:`attention_decode_intensity` -- attention over a KV cache for one new token
"""
from __future__ import annotations

from typing import Any

from ._formula import Formula, register
from .symbols import (
    bits, context, d_head, mat_k, mat_m, mat_n, matmul_params, n_heads, n_kv_heads, n_layers,
    prompt, seq_len,
)

__all__ = [
    "DECODE_FLOPS_PER_TOKEN", "PREFILL_FLOPS", "MATVEC_INTENSITY", "MATMUL_INTENSITY",
    "ATTENTION_STANDARD_FLOPS", "ATTENTION_STANDARD_BYTES", "ATTENTION_STANDARD_INTENSITY",
    "ATTENTION_DECODE_INTENSITY",
    "decode_flops_per_token", "prefill_flops", "matvec_intensity", "matmul_intensity",
    "attention_standard_flops", "attention_standard_bytes", "attention_standard_intensity",
    "attention_decode_intensity",
]

L, H, Hkv, dh, S, T, N = n_layers, n_heads, n_kv_heads, d_head, context, prompt, seq_len
M, K, n, b = mat_m, mat_k, mat_n, bits

#: One token: 2 FLOPs per matrix weight, plus q.k and p.v over S cached positions per head.
DECODE_FLOPS_PER_TOKEN = 2 * matmul_params + 4 * L * H * dh * S
#: T prompt tokens at once; token i attends to i positions (causal), so the attention term is
#: the sum over i = 1..T of 4 L H d_head i.
PREFILL_FLOPS = 2 * matmul_params * T + 2 * L * H * dh * T * (T + 1)
#: (M x K) matrix times a K-vector: 2MK FLOPs over MK + K + M elements of b bits.
MATVEC_INTENSITY = 2 * M * K / ((M * K + K + M) * b / 8)
#: (M x K) times (K x n): 2MKn FLOPs over MK + Kn + Mn elements.
MATMUL_INTENSITY = 2 * M * K * n / ((M * K + K * n + M * n) * b / 8)
#: Standard attention of one head (FlashAttention paper, Algorithm 0), N tokens of width d:
#: S = QK^T (2N^2 d), softmax (3N^2), O = PV (2N^2 d).
ATTENTION_STANDARD_FLOPS = 4 * N**2 * dh + 3 * N**2
#: Reads Q, K (2Nd), writes S, reads S, writes P, reads P (4N^2), reads V, writes O (2Nd).
ATTENTION_STANDARD_BYTES = (4 * N**2 + 4 * N * dh) * b / 8
ATTENTION_STANDARD_INTENSITY = ATTENTION_STANDARD_FLOPS / ATTENTION_STANDARD_BYTES
#: Decoding one token over S cached positions: 4 H d_head S FLOPs per layer over the
#: 2 H_kv d_head S cached elements (queries and outputs are negligible).
ATTENTION_DECODE_INTENSITY = (4 * H * dh * S) / (2 * Hkv * dh * S * b / 8)

_F_DEC = Formula("decode_flops_per_token", DECODE_FLOPS_PER_TOKEN,
                 (matmul_params, L, H, dh, S), "FLOP")
_F_PRE = Formula("prefill_flops", PREFILL_FLOPS, (matmul_params, L, H, dh, T), "FLOP")
_F_MV = Formula("matvec_intensity", MATVEC_INTENSITY, (M, K, b), "FLOP/B")
_F_MM = Formula("matmul_intensity", MATMUL_INTENSITY, (M, K, n, b), "FLOP/B")
_F_ASF = Formula("attention_standard_flops", ATTENTION_STANDARD_FLOPS, (N, dh), "FLOP")
_F_ASB = Formula("attention_standard_bytes", ATTENTION_STANDARD_BYTES, (N, dh, b), "B")
_F_ASI = Formula("attention_standard_intensity", ATTENTION_STANDARD_INTENSITY, (N, dh, b), "FLOP/B")
_F_ADI = Formula("attention_decode_intensity", ATTENTION_DECODE_INTENSITY, (H, Hkv, dh, S, b),
                 "FLOP/B")


@register(_F_DEC)
def decode_flops_per_token(*, matmul_params: Any, n_layers: Any, n_heads: Any, d_head: Any,
                           context: Any) -> Any:
    r"""FLOPs to decode one token of one sequence with S tokens in its cache.

    .. math:: F_{dec} = 2 P_{mm} + 4 L H d_{head} S

    Parameters
    ----------
    matmul_params : int or array
        Weights used in matrix products, :func:`llm_arithmetic.params.matmul_params` [-]
    n_layers, n_heads, d_head : int or array
        Blocks, query heads, head width [-]
    context : int or array
        Cached tokens attended to, S [token]

    Returns
    -------
    int or array
        [FLOP]

    Examples
    --------
    Mistral 7B (7,110,393,856 matmul weights) at an empty and a 4096-token cache:

    >>> decode_flops_per_token(matmul_params=7110393856, n_layers=32, n_heads=32, d_head=128,
    ...                        context=0)
    14220787712
    >>> decode_flops_per_token(matmul_params=7110393856, n_layers=32, n_heads=32, d_head=128,
    ...                        context=4096)
    16368271360
    """
    return _F_DEC(matmul_params, n_layers, n_heads, d_head, context)


@register(_F_PRE)
def prefill_flops(*, matmul_params: Any, n_layers: Any, n_heads: Any, d_head: Any,
                  prompt: Any) -> Any:
    r"""FLOPs to process a prompt of T tokens with causal attention.

    .. math:: F_{pre} = 2 P_{mm} T + 2 L H d_{head} T (T + 1)

    Examples
    --------
    One token of prefill is one decode step at S = 1:

    >>> prefill_flops(matmul_params=1000, n_layers=2, n_heads=4, d_head=8, prompt=1)
    2256
    >>> decode_flops_per_token(matmul_params=1000, n_layers=2, n_heads=4, d_head=8, context=1)
    2256
    """
    return _F_PRE(matmul_params, n_layers, n_heads, d_head, prompt)


@register(_F_MV)
def matvec_intensity(*, mat_m: Any, mat_k: Any, bits: Any = 16) -> Any:
    r"""Arithmetic intensity of a matrix-vector product [FLOP/B].

    .. math:: I_{mv} = \frac{2 M K}{(M K + K + M)\, b / 8} \approx \frac{16}{b}

    Examples
    --------
    An 8192 x 8192 fp16 matrix times a vector: about 1 FLOP per byte.

    >>> round(matvec_intensity(mat_m=8192, mat_k=8192, bits=16), 4)
    0.9998
    """
    return _F_MV(mat_m, mat_k, bits)


@register(_F_MM)
def matmul_intensity(*, mat_m: Any, mat_k: Any, mat_n: Any, bits: Any = 16) -> Any:
    r"""Arithmetic intensity of an (M x K) by (K x n) matrix product [FLOP/B].

    .. math:: I_{mm} = \frac{2 M K n}{(M K + K n + M n)\, b / 8}

    With n = 1 it is the matrix-vector case.

    >>> matmul_intensity(mat_m=4096, mat_k=4096, mat_n=1) == matvec_intensity(mat_m=4096,
    ...                                                                         mat_k=4096)
    True
    """
    return _F_MM(mat_m, mat_k, mat_n, bits)


@register(_F_ASF)
def attention_standard_flops(*, seq_len: Any, d_head: Any) -> Any:
    r"""FLOPs of standard attention for one head over N tokens (Baseten's count).

    .. math:: F = 4 N^2 d + 3 N^2

    >>> attention_standard_flops(seq_len=4096, d_head=128)
    8640266240
    """
    return _F_ASF(seq_len, d_head)


@register(_F_ASB)
def attention_standard_bytes(*, seq_len: Any, d_head: Any, bits: Any = 16) -> Any:
    r"""Bytes moved by standard attention for one head (S and P go through memory).

    .. math:: \mathcal{B} = (4 N^2 + 4 N d)\,\frac{b}{8}

    At 16 bits this is Baseten's :math:`8N^2 + 8Nd`:

    >>> attention_standard_bytes(seq_len=4096, d_head=128) == 8*4096**2 + 8*4096*128
    True
    """
    return _F_ASB(seq_len, d_head, bits)


@register(_F_ASI)
def attention_standard_intensity(*, seq_len: Any, d_head: Any, bits: Any = 16) -> Any:
    r"""Arithmetic intensity of standard attention [FLOP/B].

    .. math:: I = \frac{4 N^2 d + 3 N^2}{(4 N^2 + 4 N d)\,b/8}

    Llama 2 7B's head (d = 128) at N = 4096, fp16 (Baseten prints 62):

    >>> round(attention_standard_intensity(seq_len=4096, d_head=128), 2)
    62.42
    """
    return _F_ASI(seq_len, d_head, bits)


@register(_F_ADI)
def attention_decode_intensity(*, n_heads: Any, n_kv_heads: Any, d_head: Any, context: Any,
                               bits: Any = 16) -> Any:
    r"""Arithmetic intensity of attention when decoding one token over a KV cache [FLOP/B].

    .. math:: I_{attn} = \frac{4 H d_{head} S}{2 H_{kv} d_{head} S\, b / 8} = \frac{16 H}{H_{kv} b}

    MHA at fp16 does 1 FLOP per byte; GQA with 4 query heads per KV head does 4:

    >>> attention_decode_intensity(n_heads=32, n_kv_heads=32, d_head=128, context=4096)
    1
    >>> attention_decode_intensity(n_heads=32, n_kv_heads=8, d_head=128, context=4096)
    4
    """
    return _F_ADI(n_heads, n_kv_heads, d_head, context, bits)
