r"""Arithmetic: FLOPs of decode and prefill, per layer kind, and arithmetic intensity.

A multiply-add is 2 floating-point operations (FLOPs, a count; a rate is written FLOP/s).

* Weights: 2 FLOPs per weight in a matrix product, per token (the ``matmul_params`` of
  :mod:`~llm_arithmetic.formulas.params`); the output head's only for the tokens whose logits
  are sampled (once per prompt in a prefill).
* Attention of one layer for one decoded token over S_a cached positions:
  :data:`attention_decode_flops` (GQA), :data:`mla_decode_flops` (latent attention, absorbed
  form) and :data:`mla_decode_flops_naive` (the cache up-projected at every step).
* Prefill of T tokens: query-key pairs scored by one head, :data:`causal_pairs` (full),
  :data:`window_pairs` (sliding window), :data:`chunk_pairs` (chunked), then
  :data:`attention_prefill_flops` and :data:`mla_prefill_flops`.
* :data:`mamba2_decode_flops`, :data:`gated_deltanet_decode_flops` -- a state-space or
  linear-attention layer's recurrence for one token.
* A uniform decoder: :data:`decode_flops_per_token`, :data:`prefill_flops`.
* Intensities: :data:`matvec_intensity`, :data:`matmul_intensity`, the standard attention
  algorithm, and :data:`attention_decode_intensity`.
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from ..core.registry import formula
from .memory import compressed_entries

__all__ = [
    "attention_decode_flops", "mla_decode_flops", "mla_decode_flops_naive", "causal_pairs",
    "window_pairs", "chunk_pairs", "attention_prefill_flops", "mla_prefill_flops",
    "mamba2_decode_flops", "mamba1_decode_flops", "gmu_decode_flops", "gated_deltanet_decode_flops", "kda_decode_flops", "short_conv_decode_flops", "lightning_decode_flops", "dsa_decode_flops", "dsa_prefill_flops",
    "msa_decode_flops", "msa_prefill_flops",
    "split_decode_flops", "split_prefill_flops", "compressed_pairs", "compressed_decode_flops",
    "compressed_prefill_flops", "decode_flops_per_token", "prefill_flops",
    "matvec_intensity",
    "matmul_intensity", "attention_standard_flops", "attention_standard_bytes",
    "attention_standard_intensity", "attention_decode_intensity",
]


@formula("attn_flops")
def attention_decode_flops(*, n_heads, d_head, attended, diff_attn=0):
    """Attention FLOPs of one layer for one decoded token: per query head, a dot product with
    each of the S_a cached keys and a weighted sum of as many values, 2 d_head FLOPs each.

    Grouped-query heads share keys and values but each query head still does its own
    arithmetic, so H (not H_kv) counts. Differential attention (Phi-4-mini-flash) takes the
    heads in pairs: each pair's two score maps (one per head, as usual) each weigh the values
    of both heads of the pair, 2 d_head wide, so the weighted sums cost twice as much. (The
    reference code runs four flash-attention calls per pair, computing each map twice; the
    count here is the arithmetic the result needs.)

    Examples
    --------
    >>> attention_decode_flops(n_heads=32, d_head=128, attended=4096)
    67108864
    >>> attention_decode_flops(n_heads=40, d_head=64, attended=512, diff_attn=1)
    7864320
    """
    return (4 + 2 * diff_attn) * n_heads * d_head * attended


@formula("attn_flops")
def mla_decode_flops(*, n_heads, kv_lora_rank, d_rope, attended):
    """Attention FLOPs of one latent-attention (MLA) layer for one decoded token, absorbed form.

    The key up-projection is folded into the query and the value up-projection into the
    output (those products are counted with the weights), so each head scores the S_a cached
    latents directly: r_kv + d_rope multiply-adds per position for the scores and r_kv for the
    weighted sum of latents.

    Examples
    --------
    DeepSeek-V3 (128 heads, r_kv = 512, d_rope = 64) over 4096 positions:

    >>> mla_decode_flops(n_heads=128, kv_lora_rank=512, d_rope=64, attended=4096)
    1140850688
    """
    return 2 * n_heads * attended * (2 * kv_lora_rank + d_rope)


@formula("attn_flops")
def mla_decode_flops_naive(*, n_heads, kv_lora_rank, d_nope, d_rope, d_v, attended):
    """Attention FLOPs of one MLA layer for one decoded token when the cached latents are
    up-projected to per-head keys and values at every step (the form that is not absorbed).

    The up-projection costs 2 r_kv H (d_nope + d_v) per cached position, then ordinary
    attention with keys of width d_nope + d_rope and values of width d_v.

    Examples
    --------
    DeepSeek-V3 over 4096 positions: about 120 times the absorbed form.

    >>> mla_decode_flops_naive(n_heads=128, kv_lora_rank=512, d_nope=128, d_rope=64, d_v=128,
    ...                        attended=4096)
    137774497792
    """
    up = 2 * attended * kv_lora_rank * n_heads * (d_nope + d_v)
    return up + 2 * n_heads * attended * (d_nope + d_rope) + 2 * n_heads * attended * d_v


@formula("causal_pairs")
def causal_pairs(*, prompt):
    """Query-key pairs one head scores in a causal prefill of T tokens: token i attends to the
    i tokens up to itself.

    Examples
    --------
    >>> causal_pairs(prompt=4)
    10
    """
    return prompt * (prompt + 1) / 2


_pairs = causal_pairs  # the formula, where an argument of the same name hides it


@formula("causal_pairs")
def window_pairs(*, prompt, window):
    """Query-key pairs one sliding-window head scores in a causal prefill of T tokens: token i
    attends to min(i, S_w) tokens.

    Examples
    --------
    Without a binding window it is the causal count; with S_w = 2 and T = 4: 1 + 2 + 2 + 2.

    >>> window_pairs(prompt=4, window=8), window_pairs(prompt=4, window=2)
    (10, 7)
    """
    m = sp.Min(prompt, window, evaluate=False)
    return m * (m + 1) / 2 + (prompt - m) * window


@formula("causal_pairs")
def chunk_pairs(*, prompt, chunk):
    """Query-key pairs one chunked-attention head scores in a prefill of T tokens: each token
    attends to the tokens of its own chunk of S_c up to itself.

    Examples
    --------
    T = 5 in chunks of 2: (1 + 2) + (1 + 2) + 1.

    >>> chunk_pairs(prompt=5, chunk=2)
    7
    """
    full = sp.floor(prompt / chunk)
    rest = prompt - chunk * full
    return full * chunk * (chunk + 1) / 2 + rest * (rest + 1) / 2


@formula("attn_flops")
def attention_prefill_flops(*, n_heads, d_head, causal_pairs, diff_attn=0):
    """Attention FLOPs of one layer in a prefill: for every scored query-key pair, a dot
    product of width d_head and a weighted value of width d_head, in each of the H heads
    (differential attention: a weighted value of width 2 d_head, as in
    :data:`attention_decode_flops`).

    Examples
    --------
    >>> attention_prefill_flops(n_heads=32, d_head=128, causal_pairs=10)
    163840
    """
    return (4 + 2 * diff_attn) * n_heads * d_head * causal_pairs


@formula("attn_flops")
def mla_prefill_flops(*, n_heads, d_nope, d_rope, d_v, causal_pairs):
    """Attention FLOPs of one MLA layer in a prefill, done in the ordinary form (keys and
    values up-projected once per token, counted with the weights): scores of width
    d_nope + d_rope and values of width d_v.

    Examples
    --------
    >>> mla_prefill_flops(n_heads=128, d_nope=128, d_rope=64, d_v=128, causal_pairs=10)
    819200
    """
    return 2 * n_heads * (d_nope + d_rope + d_v) * causal_pairs


@formula("attn_flops")
def split_decode_flops(*, n_heads, d_head, d_v, attended):
    """Attention FLOPs of one layer for one decoded token when values are narrower than keys:
    per query head a dot product of width d_head with each of the S_a cached keys and a
    weighted sum of as many values of width d_v.

    Examples
    --------
    >>> split_decode_flops(n_heads=64, d_head=192, d_v=128, attended=128)
    5242880
    """
    return 2 * n_heads * (d_head + d_v) * attended


@formula("attn_flops")
def split_prefill_flops(*, n_heads, d_head, d_v, causal_pairs):
    """Attention FLOPs of one layer with narrower values in a prefill: every query-key pair a
    head scores costs 2 (d_head + d_v).

    Examples
    --------
    >>> split_prefill_flops(n_heads=64, d_head=192, d_v=128, causal_pairs=10)
    409600
    """
    return 2 * n_heads * (d_head + d_v) * causal_pairs


@formula("attn_flops")
def dsa_decode_flops(*, n_heads, kv_lora_rank, d_rope, attended, index_heads, index_dim,
                     context):
    """Attention FLOPs of one sparse-attention (DeepSeek Sparse Attention) layer for one decoded
    token: the indexer scores every one of the S cached indexer keys with each of its H_I heads
    (2 d_I per head and key), then latent attention (:data:`mla_decode_flops`) runs over the
    S_a = min(S, S_top) positions it selected.

    Examples
    --------
    DeepSeek-V3.2 at 32,768 tokens (top 2,048):

    >>> dsa_decode_flops(n_heads=128, kv_lora_rank=512, d_rope=64, attended=2048,
    ...                  index_heads=64, index_dim=128, context=32768)
    1107296256
    """
    return (mla_decode_flops(n_heads=n_heads, kv_lora_rank=kv_lora_rank, d_rope=d_rope,
                             attended=attended)
            + 2 * index_heads * index_dim * context)


@formula("attn_flops")
def dsa_prefill_flops(*, n_heads, d_nope, d_rope, d_v, causal_pairs, index_heads, index_dim,
                      prompt):
    """Attention FLOPs of one sparse-attention layer in a prefill of T tokens: the indexer
    scores every causal query-key pair with each of its heads, and latent attention
    (:data:`mla_prefill_flops`) scores only the pairs the top-k keeps (Pi: token i attends to
    min(i, S_top) positions).

    Examples
    --------
    >>> dsa_prefill_flops(n_heads=128, d_nope=128, d_rope=64, d_v=128, causal_pairs=7,
    ...                   index_heads=64, index_dim=128, prompt=4)
    737280
    """
    return (mla_prefill_flops(n_heads=n_heads, d_nope=d_nope, d_rope=d_rope, d_v=d_v,
                              causal_pairs=causal_pairs)
            + 2 * index_heads * index_dim * _pairs(prompt=prompt))


@formula("attn_flops")
def msa_decode_flops(*, n_heads, d_head, attended, index_heads, index_dim, context):
    """Attention FLOPs of one block-sparse attention (MiniMax Sparse Attention) layer for one
    decoded token: the indexer scores every one of the S cached index keys with each of its
    H_I heads (2 d_I per head and key), then grouped-query attention
    (:data:`attention_decode_flops`) runs over the S_a = min(S, S_top) positions of the blocks
    it selected for each KV head.

    Examples
    --------
    A MiniMax-M3 sparse layer at 32,768 tokens (16 blocks of 128: 2,048 attended):

    >>> msa_decode_flops(n_heads=64, d_head=128, attended=2048, index_heads=4,
    ...                  index_dim=128, context=32768)
    100663296
    """
    return (attention_decode_flops(n_heads=n_heads, d_head=d_head, attended=attended)
            + 2 * index_heads * index_dim * context)


@formula("attn_flops")
def msa_prefill_flops(*, n_heads, d_head, causal_pairs, index_heads, index_dim, prompt):
    """Attention FLOPs of one block-sparse attention layer in a prefill of T tokens: the
    indexer scores every causal query-key pair with each of its heads, and grouped-query
    attention (:data:`attention_prefill_flops`) scores only the pairs of the selected blocks
    (Pi: token i attends to min(i, S_top) positions).

    Examples
    --------
    >>> msa_prefill_flops(n_heads=64, d_head=128, causal_pairs=7, index_heads=4,
    ...                   index_dim=128, prompt=4)
    239616
    """
    return (attention_prefill_flops(n_heads=n_heads, d_head=d_head, causal_pairs=causal_pairs)
            + 2 * index_heads * index_dim * _pairs(prompt=prompt))


def compressed_entry_pairs(prompt: Any, compress_ratio: Any) -> Any:
    """Query-entry pairs of a causal prefill of T tokens over compressed entries of m_c tokens:
    token i sees floor(i / m_c) of them, and summing floor(i / m) for i = 1..T gives
    m q (q - 1) / 2 + q (T - m q + 1) with q = floor(T / m); none where m_c = 0. A piece of
    the formulas below, not a registered quantity.

    >>> compressed_entry_pairs(10, 4), compressed_entry_pairs(10, 0)
    (10, 0)
    """
    prompt, compress_ratio = sp.sympify(prompt), sp.sympify(compress_ratio)
    q = sp.floor(prompt / compress_ratio)
    return sp.Piecewise((0, sp.Eq(compress_ratio, 0)),
                        (compress_ratio * q * (q - 1) / 2 + q * (prompt - compress_ratio * q + 1),
                         True), evaluate=False)


@formula("causal_pairs")
def compressed_pairs(*, prompt, window, compress_ratio, index_topk):
    """Query-row pairs one head of a compressed-attention layer (DeepSeek-V4) scores in a
    causal prefill of T tokens: the window's (:data:`window_pairs`) and, token i seeing
    floor(i / m_c) compressed entries, those entries; in a CSA layer at most S_top of them per
    token (min(floor(i / m_c), S_top): the first m_c S_top tokens see all theirs, every later
    one S_top), in an HCA layer (S_top = 0) all.

    Examples
    --------
    T = 10, a window of 4, entries of 4 tokens: the window's 1 + 2 + 3 + 4 + 6 x 4 = 34, the
    entries' 0, 0, 0, 1, 1, 1, 1, 2, 2, 2 = 10, or 0, 0, 0, 1, ..., 1 = 7 capped at one.

    >>> compressed_pairs(prompt=10, window=4, compress_ratio=4, index_topk=0)
    44
    >>> compressed_pairs(prompt=10, window=4, compress_ratio=4, index_topk=1)
    41
    """
    capped_at = compress_ratio * index_topk
    capped = (compressed_entry_pairs(sp.Min(prompt, capped_at, evaluate=False), compress_ratio)
              + index_topk * sp.Max(prompt - capped_at, 0, evaluate=False))
    return (window_pairs(prompt=prompt, window=window)
            + sp.Piecewise((compressed_entry_pairs(prompt, compress_ratio),
                            sp.Eq(index_topk, 0)), (capped, True), evaluate=False))


@formula("attn_flops")
def compressed_decode_flops(*, n_heads, d_head, attended, index_heads, index_dim, context,
                            compress_ratio):
    """Attention FLOPs of one compressed-attention layer (DeepSeek-V4) for one decoded token:
    each of the H query heads scores and weighs the S_a rows it attends to
    (:data:`compressed_tokens`; keys are values, one row of d_head each: 4 d_head FLOPs a
    row), and a CSA layer's indexer scores every one of the floor(S / m_c) indexer keys with
    each of its H_I heads (2 d_I per head and key; H_I = 0 elsewhere).

    Examples
    --------
    A DeepSeek-V4-Flash CSA layer at 4,096 tokens (640 rows attended, 1,024 keys scored):

    >>> compressed_decode_flops(n_heads=64, d_head=512, attended=640, index_heads=64,
    ...                         index_dim=128, context=4096, compress_ratio=4)
    100663296
    """
    return (attention_decode_flops(n_heads=n_heads, d_head=d_head, attended=attended)
            + 2 * index_heads * index_dim * compressed_entries(context, compress_ratio))


@formula("attn_flops")
def compressed_prefill_flops(*, n_heads, d_head, causal_pairs, index_heads, index_dim, prompt,
                             compress_ratio):
    """Attention FLOPs of one compressed-attention layer (DeepSeek-V4) in a prefill of T
    tokens: 4 d_head per query-row pair in each of the H heads (Pi, :data:`compressed_pairs`),
    and a CSA layer's indexer scoring, for every token, each of the compressed entries it sees
    with each of its H_I heads (2 d_I per head and entry). The compressors' pooling (a softmax
    over m_c tokens per entry) is not counted.

    Examples
    --------
    >>> compressed_prefill_flops(n_heads=64, d_head=512, causal_pairs=41, index_heads=64,
    ...                          index_dim=128, prompt=10, compress_ratio=4)
    5537792
    """
    return (attention_prefill_flops(n_heads=n_heads, d_head=d_head, causal_pairs=causal_pairs)
            + 2 * index_heads * index_dim * compressed_entry_pairs(prompt, compress_ratio))


@formula("attn_flops")
def mamba2_decode_flops(*, d_inner, d_state, n_groups, d_conv):
    """FLOPs of a Mamba-2 layer's recurrence for one token, besides its projections (counted
    with the weights): the causal convolution over x, B and C (a multiply-add per tap), the
    state update h <- a h + (dt x) B (three per state element) and the read-out C h (two).

    The same for every token, whatever the context: this is what replaces attention.

    Examples
    --------
    >>> mamba2_decode_flops(d_inner=8192, d_state=128, n_groups=8, d_conv=4)
    5324800
    """
    return 2 * (d_inner + 2 * n_groups * d_state) * d_conv + 5 * d_inner * d_state


@formula("attn_flops")
def mamba1_decode_flops(*, d_inner, d_state, d_conv):
    """FLOPs of a Mamba-1 layer's recurrence for one token, besides its projections (counted
    with the weights): the causal convolution over x (a multiply-add per tap and channel), and
    per state element the decay's argument dt A (one: Mamba-1's decay is a d_in x d_st matrix,
    not one number per head), the input dt x B (one, dt x formed once per channel), the update
    h <- exp(dt A) h + dt x B (two) and the read-out C h (two). Exponentials, the gate and the
    skip are left out (a few per channel).

    Examples
    --------
    >>> mamba1_decode_flops(d_inner=5120, d_state=16, d_conv=4)
    532480
    """
    return 2 * d_inner * d_conv + 6 * d_inner * d_state


@formula("attn_flops")
def gmu_decode_flops(*, d_gmu):
    """FLOPs of a gated memory unit for one token, besides its two projections (counted with
    the weights): one product per channel of the gate and the memory (the SiLU left out).

    Examples
    --------
    >>> gmu_decode_flops(d_gmu=5120)
    5120
    """
    return d_gmu


@formula("attn_flops")
def gated_deltanet_decode_flops(*, n_qk_heads, n_v_heads, d_key, d_v, d_conv):
    """FLOPs of a Gated DeltaNet layer's recurrence for one token, besides its projections
    (counted with the weights): the causal convolution over q, k and v (a multiply-add per
    tap), and per value head on its d_k x d_v state S: the decay S <- g S (one per element),
    the read of the old value S^T k (two), the delta-rule write S <- S + k (beta (v - S^T k))^T
    (two) and the read-out S^T q (two). Norms and gates are left out (a few per channel).

    The same for every token, whatever the context: this is what replaces attention.

    Examples
    --------
    >>> gated_deltanet_decode_flops(n_qk_heads=16, n_v_heads=32, d_key=128, d_v=128, d_conv=4)
    3735552
    """
    return 2 * (2 * n_qk_heads * d_key + n_v_heads * d_v) * d_conv + 7 * n_v_heads * d_key * d_v


@formula("attn_flops")
def kda_decode_flops(*, n_kda_heads, d_key, d_conv):
    """FLOPs of a Kimi delta attention layer's recurrence for one token, besides its
    projections: Gated DeltaNet's with as many query/key heads as value heads, all of width
    d_k. Its decay is a vector per head (one factor per key channel, ``S *= exp(g)[..., None]``
    in transformers' ``recurrent_kimi_delta_attention``) instead of a scalar, still one
    multiplication per state element.

    Examples
    --------
    >>> kda_decode_flops(n_kda_heads=32, d_key=128, d_conv=4)
    3768320
    """
    return gated_deltanet_decode_flops(n_qk_heads=n_kda_heads, n_v_heads=n_kda_heads,
                                       d_key=d_key, d_v=d_key, d_conv=d_conv)


@formula("attn_flops")
def short_conv_decode_flops(*, d_sconv, d_conv):
    """FLOPs of a gated short convolution layer for one token, besides its projections
    (counted with the weights): the input gate B x (one per channel), the depthwise causal
    convolution (a multiply-add per tap and channel) and the output gate C times its result
    (one per channel). A convolution bias, if any, is left out (one per channel).

    The same for every token, whatever the context.

    Examples
    --------
    >>> short_conv_decode_flops(d_sconv=2048, d_conv=3)
    16384
    """
    return 2 * d_sconv * d_conv + 2 * d_sconv


@formula("attn_flops")
def lightning_decode_flops(*, n_la_heads, d_key):
    """FLOPs of a lightning attention layer's recurrence for one token, besides its projections
    (counted with the weights): per head on its d_k x d_k state S, the decay S <- lambda S (one
    per element), the write S <- S + k v^T (two) and the read-out q^T S (two). The norm, the
    gate and the activation are left out (a few per channel).

    The same for every token, whatever the context.

    Examples
    --------
    >>> lightning_decode_flops(n_la_heads=64, d_key=128)
    5242880
    """
    return 5 * n_la_heads * d_key * d_key


@formula("decode_flops")
def decode_flops_per_token(*, matmul_params, n_layers, n_heads, d_head, context):
    """FLOPs to decode one token of one sequence with S tokens in its cache: 2 per weight in a
    matrix product, plus attention over the S cached positions in each of the L layers.

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
    return 2 * matmul_params + n_layers * attention_decode_flops(n_heads=n_heads, d_head=d_head,
                                                                 attended=context)


def prefill_weight_flops(matmul_params, head_params, prompt):
    """FLOPs of a prefill's matrix products: 2 per weight of the blocks per prompt token, 2 per
    weight of the output head once (the last position's logits only). Shared by
    :data:`prefill_flops` and :data:`~llm_arithmetic.formulas.stack.stack_prefill_flops`."""
    return 2 * (matmul_params - head_params) * prompt + 2 * head_params


@formula("prefill_flops")
def prefill_flops(*, matmul_params, head_params, n_layers, n_heads, d_head, prompt):
    """FLOPs to process a prompt of T tokens with causal attention: 2 per weight of the blocks
    per token, 2 per weight of the output head once (only the last position's logits are
    computed: the first token is sampled from them), and the attention of every layer over the
    causal pairs. With the head counted for every token (``head_params=0``) it is the classic
    2 P T plus attention.

    Examples
    --------
    One token of prefill is one decode step at S = 1:

    >>> prefill_flops(matmul_params=1000, head_params=400, n_layers=2, n_heads=4, d_head=8,
    ...               prompt=1)
    2256
    >>> decode_flops_per_token(matmul_params=1000, n_layers=2, n_heads=4, d_head=8, context=1)
    2256
    """
    pairs = causal_pairs(prompt=prompt)
    return (prefill_weight_flops(matmul_params, head_params, prompt)
            + n_layers * attention_prefill_flops(n_heads=n_heads, d_head=d_head,
                                                 causal_pairs=pairs))


@formula("intensity")
def matvec_intensity(*, mat_m, mat_k, bits=16):
    """Arithmetic intensity of a matrix-vector product: 2MK FLOPs over the M K matrix elements,
    the K-vector and the M-vector, at b bits each.

    Examples
    --------
    An 8192 x 8192 fp16 matrix times a vector: about 1 FLOP per byte.

    >>> round(matvec_intensity(mat_m=8192, mat_k=8192, bits=16), 4)
    0.9998
    """
    return 2 * mat_m * mat_k / ((mat_m * mat_k + mat_k + mat_m) * bits / 8)


@formula("intensity")
def matmul_intensity(*, mat_m, mat_k, mat_n, bits=16):
    """Arithmetic intensity of an (M x K) by (K x n) matrix product: 2MKn FLOPs over
    MK + Kn + Mn elements. With n = 1 it is the matrix-vector case.

    Examples
    --------
    >>> matmul_intensity(mat_m=4096, mat_k=4096, mat_n=1) == matvec_intensity(mat_m=4096,
    ...                                                                         mat_k=4096)
    True
    """
    return 2 * mat_m * mat_k * mat_n / ((mat_m * mat_k + mat_k * mat_n + mat_m * mat_n)
                                        * bits / 8)


@formula("attn_flops")
def attention_standard_flops(*, seq_len, d_head):
    """FLOPs of standard attention for one head over N tokens (FlashAttention paper,
    Algorithm 0): the scores QK^T (2 N^2 d), the softmax (3 N^2) and PV (2 N^2 d).

    Examples
    --------
    >>> attention_standard_flops(seq_len=4096, d_head=128)
    8640266240
    """
    return 4 * seq_len**2 * d_head + 3 * seq_len**2


@formula("step_bytes")
def attention_standard_bytes(*, seq_len, d_head, bits=16):
    """Bytes moved by standard attention for one head: Q and K read (2Nd), the N x N scores
    written, read, and written again as probabilities, read once more (4N^2), V read and the
    output written (2Nd).

    Examples
    --------
    At 16 bits this is Baseten's 8N^2 + 8Nd:

    >>> attention_standard_bytes(seq_len=4096, d_head=128) == 8*4096**2 + 8*4096*128
    True
    """
    return (4 * seq_len**2 + 4 * seq_len * d_head) * bits / 8


@formula("intensity")
def attention_standard_intensity(*, seq_len, d_head, bits=16):
    """Arithmetic intensity of standard attention: its FLOPs over its bytes.

    Examples
    --------
    Llama 2 7B's head (d = 128) at N = 4096, fp16 (Baseten prints 62):

    >>> round(attention_standard_intensity(seq_len=4096, d_head=128), 2)
    62.42
    """
    return (attention_standard_flops(seq_len=seq_len, d_head=d_head)
            / attention_standard_bytes(seq_len=seq_len, d_head=d_head, bits=bits))


@formula("intensity")
def attention_decode_intensity(*, n_heads, n_kv_heads, d_head, context, bits=16):
    """Arithmetic intensity of attention when decoding one token over a KV cache: 4 H d_head S
    FLOPs per layer over the 2 H_kv d_head S cached elements (queries and outputs are
    negligible).

    Examples
    --------
    MHA at fp16 does 1 FLOP per byte; GQA with 4 query heads per KV head does 4:

    >>> attention_decode_intensity(n_heads=32, n_kv_heads=32, d_head=128, context=4096)
    1
    >>> attention_decode_intensity(n_heads=32, n_kv_heads=8, d_head=128, context=4096)
    4
    """
    return (attention_decode_flops(n_heads=n_heads, d_head=d_head, attended=context)
            / (2 * n_kv_heads * d_head * context * bits / 8))
