r"""Memory: bytes of weights and of the KV cache, and what fits in a device.

* :func:`weight_bytes` -- :math:`W = P\,b_w / 8`
* :func:`kv_cache_bytes_per_token` -- :math:`\kappa = 2 L H_{kv} d_{head} b_{kv} / 8`
* :func:`kv_cache_bytes` -- :math:`\kappa\,S\,B`
* :func:`max_batch`, :func:`max_context` -- how many sequences, or tokens, fit beside the weights.
* :func:`attended_context` -- the context a decode step reads, with sliding-window layers.
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from ._formula import Formula, register
from .symbols import (
    batch, bits_kv, bits_weight, capacity, context, d_head, kv_bytes_token, n_kv_heads, n_layers,
    n_params, n_window_layers, overhead, weight_bytes as W, window,
)

__all__ = ["WEIGHT_BYTES", "KV_BYTES_PER_TOKEN", "KV_CACHE_BYTES", "MAX_BATCH", "MAX_CONTEXT",
           "ATTENDED_CONTEXT", "weight_bytes", "kv_cache_bytes_per_token", "kv_cache_bytes",
           "max_batch", "max_context", "attended_context"]

#: Bytes of P weights at b_w bits each.
WEIGHT_BYTES = n_params * bits_weight / 8
#: KV-cache bytes per token: a key and a value vector per KV head per layer.
KV_BYTES_PER_TOKEN = 2 * n_layers * n_kv_heads * d_head * bits_kv / 8
#: KV-cache bytes for B sequences of S tokens.
KV_CACHE_BYTES = KV_BYTES_PER_TOKEN * context * batch
#: Sequences of S tokens whose cache fits beside the weights and a reserve.
MAX_BATCH = sp.Max(0, sp.floor((capacity - overhead - W) / (kv_bytes_token * context),
                                evaluate=False), evaluate=False)
#: Tokens per sequence that fit for B sequences.
MAX_CONTEXT = sp.Max(0, sp.floor((capacity - overhead - W) / (kv_bytes_token * batch),
                                  evaluate=False), evaluate=False)

#: Context a decode step reads, averaged over layers: L_w of the L layers see only the last S_w
#: tokens. Bytes of cache read and attention FLOPs are linear in it, so it can stand for S.
ATTENDED_CONTEXT = context - n_window_layers / n_layers * sp.Max(0, context - window,
                                                                    evaluate=False)

_F_W = Formula("weight_bytes", WEIGHT_BYTES, (n_params, bits_weight), "B")
_F_KVT = Formula("kv_cache_bytes_per_token", KV_BYTES_PER_TOKEN,
                 (n_layers, n_kv_heads, d_head, bits_kv), "B")
_F_KV = Formula("kv_cache_bytes", KV_CACHE_BYTES,
                (n_layers, n_kv_heads, d_head, context, batch, bits_kv), "B")
_F_MB = Formula("max_batch", MAX_BATCH, (capacity, W, kv_bytes_token, context, overhead), "1")
_F_AC = Formula("attended_context", ATTENDED_CONTEXT,
                 (context, n_layers, n_window_layers, window), "token")
_F_MC = Formula("max_context", MAX_CONTEXT, (capacity, W, kv_bytes_token, batch, overhead), "token")


@register(_F_W)
def weight_bytes(*, n_params: Any, bits_weight: Any = 16) -> Any:
    r"""Bytes needed to store the weights.

    .. math:: W = \frac{P\,b_w}{8}

    Parameters
    ----------
    n_params : int or array
        Parameters, P [-]
    bits_weight : int, Fraction or float
        Bits per weight, scales included (see :data:`llm_arithmetic.units.BITS_PER_WEIGHT`) [bit]

    Returns
    -------
    int, float or array
        Weight bytes [B]; an ``int`` when exact inputs give a whole number

    Examples
    --------
    Llama 2 7B at fp16 and at llama.cpp's Q4_0 (4.5 bits):

    >>> weight_bytes(n_params=6738415616, bits_weight=16)
    13476831232
    >>> from fractions import Fraction
    >>> weight_bytes(n_params=6738415616, bits_weight=Fraction(9, 2))
    3790358784
    """
    return _F_W(n_params, bits_weight)


@register(_F_KVT)
def kv_cache_bytes_per_token(*, n_layers: Any, n_kv_heads: Any, d_head: Any,
                             bits_kv: Any = 16) -> Any:
    r"""KV-cache bytes for one token: one key and one value vector per KV head and layer.

    .. math:: \kappa = \frac{2\,L\,H_{kv}\,d_{head}\,b_{kv}}{8}

    Parameters
    ----------
    n_layers : int or array
        Transformer blocks, L [-]
    n_kv_heads : int or array
        Key/value heads (H for MHA, fewer for GQA, 1 for MQA) [-]
    d_head : int or array
        Head width [-]
    bits_kv : int, Fraction or float
        Bits per cached element [bit]

    Returns
    -------
    int or array
        Bytes per token [B]

    Examples
    --------
    Llama 2 7B (MHA, 32 x 32 heads of 128) and Mistral 7B (8 KV heads) at 16 bits:

    >>> kv_cache_bytes_per_token(n_layers=32, n_kv_heads=32, d_head=128)
    524288
    >>> kv_cache_bytes_per_token(n_layers=32, n_kv_heads=8, d_head=128)
    131072
    """
    return _F_KVT(n_layers, n_kv_heads, d_head, bits_kv)


@register(_F_KV)
def kv_cache_bytes(*, n_layers: Any, n_kv_heads: Any, d_head: Any, context: Any,
                   batch: Any = 1, bits_kv: Any = 16) -> Any:
    r"""KV-cache bytes of B sequences holding S tokens each.

    .. math:: M_{KV} = \frac{2\,L\,H_{kv}\,d_{head}\,b_{kv}}{8}\,S\,B

    Examples
    --------
    Mistral 7B at 4096 tokens is 0.5 GiB (zeux):

    >>> kv_cache_bytes(n_layers=32, n_kv_heads=8, d_head=128, context=4096) / 2**30
    0.5
    """
    return _F_KV(n_layers, n_kv_heads, d_head, context, batch, bits_kv)


@register(_F_MB)
def max_batch(*, capacity: Any, weight_bytes: Any, kv_bytes_token: Any, context: Any,
              overhead: Any = 0) -> Any:
    r"""Sequences of ``context`` tokens whose KV cache fits beside the weights.

    .. math:: B_{max} = \max\left(0, \left\lfloor \frac{C - C_0 - W}{\kappa\,S} \right\rfloor\right)

    Parameters
    ----------
    capacity : int
        Device memory, C [B]
    weight_bytes : int
        Weights, W [B]
    kv_bytes_token : int
        KV cache per token, kappa [B]
    context : int
        Tokens per sequence, S [token]
    overhead : int
        Reserve for activations and the runtime, C_0 [B]

    Examples
    --------
    Llama 2 7B fp16 on a 24 GB A10 at 4096 tokens (Baseten's example):

    >>> max_batch(capacity=24*10**9, weight_bytes=13476831232, kv_bytes_token=524288,
    ...           context=4096)
    4
    """
    return _F_MB(capacity, weight_bytes, kv_bytes_token, context, overhead)


@register(_F_MC)
def max_context(*, capacity: Any, weight_bytes: Any, kv_bytes_token: Any, batch: Any = 1,
                overhead: Any = 0) -> Any:
    r"""Tokens per sequence whose KV cache fits beside the weights, for B sequences.

    .. math:: S_{max} = \max\left(0, \left\lfloor \frac{C - C_0 - W}{\kappa\,B} \right\rfloor\right)

    Examples
    --------
    >>> max_context(capacity=24*10**9, weight_bytes=13476831232, kv_bytes_token=524288)
    20071
    """
    return _F_MC(capacity, weight_bytes, kv_bytes_token, batch, overhead)


@register(_F_AC)
def attended_context(*, context: Any, n_layers: Any, n_window_layers: Any = 0,
                     window: Any = 1) -> Any:
    r"""Tokens a decode step attends to, averaged over the layers [token].

    With :math:`L_w` of the :math:`L` layers limited to a sliding window of :math:`S_w` tokens
    (Mistral 7B v0.1: all 32 layers, 4096 tokens; Gemma 2: every other layer), a step reads
    :math:`(L - L_w) S + L_w \min(S, S_w)` cached positions in all; per layer on average:

    .. math:: S_{eff} = S - \frac{L_w}{L} \max(0, S - S_w)

    The bytes of KV cache read and the attention FLOPs of a step are both linear in the
    context, so :math:`S_{eff}` replaces :math:`S` in them exactly. (The memory a runtime
    reserves for the cache depends on whether it keeps a rolling buffer; this package counts
    the full context there, as most runtimes store it.)

    Parameters
    ----------
    context : int or array
        Tokens in the cache, S [token]
    n_layers : int
        Blocks, L [-]
    n_window_layers : int
        Blocks with windowed attention, L_w [-]; 0 for full attention everywhere
    window : int
        Window length, S_w [token]; ignored when ``n_window_layers`` is 0

    Examples
    --------
    Mistral 7B v0.1 at 32768 tokens reads the last 4096 in every layer; Gemma 2 9B (21 of 42
    layers windowed at 4096) reads half of the excess:

    >>> attended_context(context=32768, n_layers=32, n_window_layers=32, window=4096)
    4096
    >>> attended_context(context=8192, n_layers=42, n_window_layers=21, window=4096)
    6144
    >>> attended_context(context=1000, n_layers=32, n_window_layers=32, window=4096)
    1000
    """
    return _F_AC(context, n_layers, n_window_layers, window)
