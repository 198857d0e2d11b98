r"""Memory: bytes of weights, of the KV cache and of state-space layers' state; what fits.

* :data:`weight_bytes` -- P weights at b_w bits.
* The cache of one layer for one token: :data:`kv_layer_bytes` (a key and a value per KV head),
  :data:`mla_kv_layer_bytes` (latent attention: the latent and the shared rotary key);
  :data:`mamba2_state_bytes` and :data:`gated_deltanet_state_bytes` are the constant states of
  a state-space layer and of a linear-attention layer.
* How many tokens a layer keeps and reads: all S for full attention,
  :data:`window_tokens` for a sliding window, :data:`chunk_tokens` for chunked attention,
  :data:`compressed_tokens` for DeepSeek-V4's compressed attention, whose cache
  (:data:`compressed_cache_bytes`) is not proportional to S.
* A uniform decoder: :data:`kv_cache_bytes_per_token`, :data:`kv_cache_bytes`,
  :data:`attended_context` (windows on some of its layers).
* :data:`max_batch`, :data:`max_context` -- how many sequences, or tokens, fit beside the
  weights.
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from ..core.registry import formula

__all__ = [
    "weight_bytes", "quantized_matrix_bytes", "kv_layer_bytes", "mla_kv_layer_bytes", "mamba2_state_bytes", "mamba1_state_bytes",
    "gated_deltanet_state_bytes", "kda_state_bytes", "short_conv_state_bytes", "lightning_state_bytes", "dsa_kv_layer_bytes", "msa_kv_layer_bytes",
    "split_kv_layer_bytes",
    "window_tokens", "chunk_tokens", "compressed_tokens", "compressed_cache_bytes",
    "kv_cache_bytes_per_token", "kv_cache_bytes",
    "attended_context", "max_sequences", "max_batch", "max_context",
]


@formula("weight_bytes")
def weight_bytes(*, n_params, bits_weight=16):
    """Bytes needed to store P weights at b_w bits each (block formats' scales included in b_w).

    Examples
    --------
    Llama 2 7B at fp16 and at llama.cpp's Q4_0 (4.5 bits):

    >>> weight_bytes(n_params=6738415616, bits_weight=16)
    13476831232
    >>> from fractions import Fraction
    >>> weight_bytes(n_params=6738415616, bits_weight=Fraction(9, 2))
    3790358784
    """
    return n_params * bits_weight / 8


@formula("matrix_bytes")
def quantized_matrix_bytes(*, mat_m, mat_k, bits_int, block_rows, block_cols, bits_scale,
                           bits_offset=0, bits_tensor=0, bits_channel=0):
    """Bytes of one M x K weight matrix (M outputs, K inputs) as a quantized checkpoint stores
    it: b_q bits per element, one scale of b_s bits (and a zero point of b_m bits) per block of
    m_blk rows x k_blk columns, a block cut short at an edge still holding a whole scale, plus
    b_t bits stored once per matrix and b_ch bits per input column.

    One expression covers the layouts of :mod:`llm_arithmetic.catalog.quantization`:
    block-scaled fp8 (128 x 128 blocks, an fp32 ``weight_scale_inv`` each; DeepSeek-V3),
    MXFP4 (1 x 32, an 8-bit exponent), NVFP4 (1 x 16, an fp8 scale, and fp32 global scales per
    matrix), integer groups (1 x g, a 16-bit scale and a packed zero point; AWQ, GPTQ with its
    int32 ``g_idx`` per input column, compressed-tensors).

    Examples
    --------
    DeepSeek-V3's ``kv_a_proj_with_mqa`` (576 x 7168 in fp8): 5 x 56 fp32 scales, the fifth
    row of blocks only 64 rows high.

    >>> quantized_matrix_bytes(mat_m=576, mat_k=7168, bits_int=8, block_rows=128,
    ...                        block_cols=128, bits_scale=32)
    4129888
    """
    blocks = sp.ceiling(mat_m / block_rows) * sp.ceiling(mat_k / block_cols)
    return (mat_m * mat_k * bits_int + blocks * (bits_scale + bits_offset) + bits_tensor
            + mat_k * bits_channel) / 8


@formula("kv_layer_bytes")
def kv_layer_bytes(*, n_kv_heads, d_head, bits_kv=16):
    """Cache bytes one token adds to one attention layer: a key and a value vector per KV head.

    Examples
    --------
    One layer of Llama 3 8B (8 KV heads of 128) at 16 bits:

    >>> kv_layer_bytes(n_kv_heads=8, d_head=128)
    4096
    """
    return 2 * n_kv_heads * d_head * bits_kv / 8


@formula("kv_layer_bytes", name="mla_kv_layer_bytes")
def mla_kv_layer_bytes(*, kv_lora_rank, d_rope, bits_kv=16):
    """Cache bytes one token adds to one latent-attention (MLA) layer: the compressed latent
    and the rotary key, which every head shares.

    The per-head keys and values are recomputed from the latent (or, in the absorbed form,
    never formed), so they are not cached.

    Examples
    --------
    DeepSeek-V3 (r_kv = 512, d_rope = 64): 576 numbers per layer per token, 1152 bytes at 16
    bits.

    >>> mla_kv_layer_bytes(kv_lora_rank=512, d_rope=64)
    1152
    """
    return (kv_lora_rank + d_rope) * bits_kv / 8


@formula("kv_layer_bytes")
def split_kv_layer_bytes(*, n_kv_heads, d_head, d_v, bits_kv=16):
    """Cache bytes one token adds to one attention layer whose values are narrower than its
    keys: a key of d_head and a value of d_v per KV head.

    Examples
    --------
    A full-attention layer of MiMo-V2-Flash (4 KV heads, keys of 192, values of 128):

    >>> split_kv_layer_bytes(n_kv_heads=4, d_head=192, d_v=128)
    2560
    """
    return n_kv_heads * (d_head + d_v) * bits_kv / 8


@formula("kv_layer_bytes")
def dsa_kv_layer_bytes(*, kv_lora_rank, d_rope, index_dim, bits_kv=16):
    """Cache bytes one token adds to one latent-attention layer with a sparse-attention indexer
    (DeepSeek Sparse Attention): the latent and the rotary key, as MLA caches them, and the
    indexer's own key of width d_I.

    DeepSeek's inference code keeps the indexer's keys in fp8 with a scale per 128 values; at
    b_kv bits for both caches this formula is the 16-bit or 8-bit case without scales.

    Examples
    --------
    DeepSeek-V3.2 (r_kv = 512, d_rope = 64, d_I = 128) at 16 bits:

    >>> dsa_kv_layer_bytes(kv_lora_rank=512, d_rope=64, index_dim=128)
    1408
    """
    return (kv_lora_rank + d_rope + index_dim) * bits_kv / 8


@formula("kv_layer_bytes")
def msa_kv_layer_bytes(*, n_kv_heads, d_head, index_dim, bits_kv=16):
    """Cache bytes one token adds to one grouped-query attention layer with a block-sparse
    indexer (MiniMax Sparse Attention): a key and a value per KV head, as
    :data:`kv_layer_bytes`, and the indexer's one key of width d_I.

    Examples
    --------
    A MiniMax-M3 sparse layer (4 KV heads of 128, index keys of 128) at 16 bits:

    >>> msa_kv_layer_bytes(n_kv_heads=4, d_head=128, index_dim=128)
    2304
    """
    return (2 * n_kv_heads * d_head + index_dim) * bits_kv / 8


@formula("state_bytes")
def mamba2_state_bytes(*, d_inner, d_state, n_groups, d_conv, bits_state=16):
    """Bytes of one Mamba-2 layer's state for one sequence: the recurrent state (d_in x d_st)
    and the last k_conv - 1 inputs of the convolution (over x, B and C). It does not grow with
    the context.

    Examples
    --------
    A Nemotron-H 8B mixer at 16 bits (d_in = 8192, d_st = 128, 8 groups, k = 4):

    >>> mamba2_state_bytes(d_inner=8192, d_state=128, n_groups=8, d_conv=4)
    2158592
    """
    return (d_inner * d_state + (d_inner + 2 * n_groups * d_state) * (d_conv - 1)) * bits_state / 8


@formula("state_bytes")
def mamba1_state_bytes(*, d_inner, d_state, d_conv, bits_state=16):
    """Bytes of one Mamba-1 layer's state for one sequence: the recurrent state (d_in x d_st,
    one row of d_st per channel) and the last k_conv - 1 inputs of the convolution over x. It
    does not grow with the context.

    vLLM keeps these two tensors per Mamba layer, (d_in, k_conv - 1) and (d_in, d_st), both at
    the model's dtype for Phi-4-mini-flash (``Phi4FlashForCausalLM._get_mamba_cache_shape``
    and its ``MambaCacheManager`` given ``lm_head.weight.dtype`` for both,
    vllm/model_executor/models/phi4flash.py @ 03356f8cb59ba27f3d0ce8866d7516b5e32cff65): b_st
    = 16 for the bf16 checkpoint.

    Examples
    --------
    A Mamba layer of Phi-4-mini-flash at 16 bits (d_in = 5120, d_st = 16, k = 4):

    >>> mamba1_state_bytes(d_inner=5120, d_state=16, d_conv=4)
    194560
    """
    return d_inner * (d_state + d_conv - 1) * bits_state / 8


@formula("state_bytes")
def gated_deltanet_state_bytes(*, n_qk_heads, n_v_heads, d_key, d_v, d_conv, bits_state=16):
    """Bytes of one Gated DeltaNet layer's state for one sequence: per value head a d_k x d_v
    matrix (the delta rule's associative memory, keys to values), and the last k_conv - 1
    inputs of the convolution over q, k and v. It does not grow with the context.

    Runtimes keep the same two tensors (vLLM's conv state of k_conv - 1 columns and its
    temporal state); some keep the matrix at 32 bits (Qwen3.5's ``mamba_ssm_dtype``): then
    b_st = 32.

    Examples
    --------
    A Qwen3.5-35B-A3B linear-attention layer at 16 bits (16 query/key heads and 32 value heads
    of 128, k_conv = 4):

    >>> gated_deltanet_state_bytes(n_qk_heads=16, n_v_heads=32, d_key=128, d_v=128, d_conv=4)
    1097728
    """
    return ((n_v_heads * d_key * d_v + (2 * n_qk_heads * d_key + n_v_heads * d_v) * (d_conv - 1))
            * bits_state / 8)


@formula("state_bytes")
def kda_state_bytes(*, n_kda_heads, d_key, d_conv, bits_state=16):
    """Bytes of one Kimi delta attention layer's state for one sequence: Gated DeltaNet's
    with as many query/key heads as value heads, all of width d_k (per head a d_k x d_k
    matrix, and the last k_conv - 1 inputs of the convolutions over q, k and v). It does not
    grow with the context.

    transformers keeps the matrix at 32 bits (``update_recurrent_state(...float32)``): then
    b_st = 32.

    Examples
    --------
    A Kimi-Linear-48B-A3B KDA layer at 16 bits (32 heads of 128, k_conv = 4):

    >>> kda_state_bytes(n_kda_heads=32, d_key=128, d_conv=4)
    1122304
    """
    return gated_deltanet_state_bytes(n_qk_heads=n_kda_heads, n_v_heads=n_kda_heads,
                                      d_key=d_key, d_v=d_key, d_conv=d_conv,
                                      bits_state=bits_state)


@formula("state_bytes")
def short_conv_state_bytes(*, d_sconv, d_conv, bits_state=16):
    """Bytes of one gated short convolution layer's state for one sequence: the last
    k_conv - 1 gated inputs B x of its d_sc channels, all a decode step needs to extend the
    convolution by one token (vLLM's ``short_conv_state_shape``, k_conv - 1 columns at the
    model's dtype, vllm/model_executor/layers/mamba/mamba_utils.py @
    02d710837549a368073552333f66d714477415d2; transformers' cache keeps k_conv). No recurrent
    matrix, and it does not grow with the context.

    Examples
    --------
    A convolution block of LFM2-1.2B at 16 bits (2,048 channels, k_conv = 3):

    >>> short_conv_state_bytes(d_sconv=2048, d_conv=3)
    8192
    """
    return d_sconv * (d_conv - 1) * bits_state / 8


@formula("state_bytes")
def lightning_state_bytes(*, n_la_heads, d_key, bits_state=16):
    """Bytes of one lightning attention layer's state for one sequence: per head the d_k x d_k
    matrix of decayed key-value products, all a decode step needs (no convolution window). It
    does not grow with the context.

    vLLM keeps one (H_la, d_k, d_k) tensor per layer at the cache's dtype, the model's own
    unless asked otherwise, and at this commit refuses float32 for it
    (``MambaStateShapeCalculator.linear_attention_state_shape`` and
    ``MambaStateDtypeCalculator.linear_attention_state_dtype``,
    vllm/model_executor/layers/mamba/mamba_utils.py @
    2afe1e8573cf51b73569ae1d35f59078a2032a91): b_st = 16 for a bf16 checkpoint.

    Examples
    --------
    A lightning attention layer of MiniMax-M1 at 16 bits (64 heads of 128):

    >>> lightning_state_bytes(n_la_heads=64, d_key=128)
    2097152
    """
    return n_la_heads * d_key * d_key * bits_state / 8


@formula("attended")
def window_tokens(*, context, window):
    """Cached positions a sliding-window layer keeps and reads: the last S_w of the S tokens.

    Runtimes with a sliding-window cache (vLLM's hybrid allocator, llama.cpp's SWA cache)
    store no more than this for the layer.

    Examples
    --------
    >>> window_tokens(context=32768, window=4096), window_tokens(context=1000, window=4096)
    (4096, 1000)
    """
    return sp.Min(context, window, evaluate=False)


@formula("attended")
def chunk_tokens(*, context, chunk):
    """Cached positions a chunked-attention layer keeps and reads when the context holds S
    tokens: those of the current chunk of S_c, the newest token's included.

    Examples
    --------
    Llama 4 (chunks of 8192): at 8192 tokens the whole first chunk, at 8193 a new chunk of one.

    >>> chunk_tokens(context=8192, chunk=8192), chunk_tokens(context=8193, chunk=8192)
    (8192, 1)
    """
    return sp.Piecewise((0, sp.Eq(context, 0)),
                        (context - chunk * sp.floor((context - 1) / chunk), True),
                        evaluate=False)


def compressed_entries(context: Any, compress_ratio: Any) -> Any:
    """Compressed entries a compressed-attention layer (DeepSeek-V4) holds at S tokens: one per
    full run of m_c tokens, none for a layer with only its window (m_c = 0). A piece of the
    formulas below, not a registered quantity.

    >>> compressed_entries(4096, 4), compressed_entries(4096, 128), compressed_entries(4096, 0)
    (1024, 32, 0)
    """
    context, compress_ratio = sp.sympify(context), sp.sympify(compress_ratio)
    return sp.Piecewise((0, sp.Eq(compress_ratio, 0)),
                        (sp.floor(context / compress_ratio), True), evaluate=False)


def selected_entries(entries: Any, index_topk: Any) -> Any:
    """Of those entries, the ones a step attends to: the S_top an indexer selects (or all, if
    fewer), or every one where the layer has no indexer (S_top = 0). A piece of the formulas
    below.

    >>> selected_entries(1024, 512), selected_entries(100, 512), selected_entries(32, 0)
    (512, 100, 32)
    """
    return sp.Piecewise((entries, sp.Eq(index_topk, 0)),
                        (sp.Min(entries, index_topk), True), evaluate=False)


@formula("attended")
def compressed_tokens(*, context, window, compress_ratio, index_topk):
    """Cached rows of d_head one compressed-attention layer (DeepSeek-V4) attends to for the
    token being decoded at S tokens: the last min(S, S_w) tokens of its window (keys are
    values: one row each) and the compressed entries it reads, one per m_c earlier tokens
    (floor(S / m_c)); a CSA layer reads only the S_top its indexer selects, an HCA layer
    (no indexer, S_top = 0) every one, a window-only layer (m_c = 0) none.

    Examples
    --------
    DeepSeek-V4-Flash at 4,096 tokens (window 128): a CSA layer (m_c = 4, top 512), an HCA
    layer (m_c = 128) and a window-only layer.

    >>> compressed_tokens(context=4096, window=128, compress_ratio=4, index_topk=512)
    640
    >>> compressed_tokens(context=4096, window=128, compress_ratio=128, index_topk=0)
    160
    >>> compressed_tokens(context=4096, window=128, compress_ratio=0, index_topk=0)
    128
    """
    return (window_tokens(context=context, window=window)
            + selected_entries(compressed_entries(context, compress_ratio), index_topk))


@formula("kv_cache")
def compressed_cache_bytes(*, context, window, d_head, compress_ratio, compress_overlap,
                           index_dim, bits_kv=16, batch=1):
    """Cache of one compressed-attention layer (DeepSeek-V4) for B sequences of S tokens, as
    vLLM allocates it: the window's last min(S, S_w) rows of d_head (one key-value head, keys
    are values) and floor(S / m_c) compressed entries, each a row of d_head and, in a CSA
    layer, its indexer's key of d_I (d_I = 0 in an HCA layer; a window-only layer, m_c = 0,
    has neither), all at b_kv bits; and each compressor's pending state, kept in float32
    whatever b_kv: the key-value and gate projections (c_o d each, c_o series) of the last
    c_o m_c tokens, for the attention's compressor (d = d_head) and a CSA layer's indexer's
    (d = d_I).

    It is not proportional to S: the window stops growing at S_w tokens, an entry is added once
    every m_c tokens, the pending state is the same at every S. vLLM stores a row of
    d_head = 512 as fp8 with a bf16 rotary part and scales (584 B), an indexer key as fp8 with
    an fp32 scale (132 B): b_kv = 8 is that layout without its scales and the rotary part's
    second byte.

    Examples
    --------
    DeepSeek-V4-Flash at 4,096 tokens, 16 bits: a CSA layer (m_c = 4, two series, d_I = 128)
    and an HCA layer (m_c = 128, one series).

    >>> compressed_cache_bytes(context=4096, window=128, d_head=512, compress_ratio=4,
    ...                        compress_overlap=2, index_dim=128)
    1523712
    >>> compressed_cache_bytes(context=4096, window=128, d_head=512, compress_ratio=128,
    ...                        compress_overlap=1, index_dim=0)
    688128
    """
    entries = compressed_entries(context, compress_ratio)
    rows = (window_tokens(context=context, window=window) * d_head
            + entries * (d_head + index_dim)) * bits_kv / 8
    pending = 8 * compress_overlap ** 2 * compress_ratio * (d_head + index_dim)
    return batch * (rows + pending)


@formula("kv_cache_bytes_per_token")
def kv_cache_bytes_per_token(*, n_layers, n_kv_heads, d_head, bits_kv=16):
    """KV-cache bytes for one token of a decoder whose L layers all attend alike.

    Examples
    --------
    Llama 2 7B (MHA, 32 x 32 heads of 128) and Mistral 7B (8 KV heads) at 16 bits:

    >>> kv_cache_bytes_per_token(n_layers=32, n_kv_heads=32, d_head=128)
    524288
    >>> kv_cache_bytes_per_token(n_layers=32, n_kv_heads=8, d_head=128)
    131072
    """
    return n_layers * kv_layer_bytes(n_kv_heads=n_kv_heads, d_head=d_head, bits_kv=bits_kv)


@formula("kv_cache")
def kv_cache_bytes(*, n_layers, n_kv_heads, d_head, context, batch=1, bits_kv=16):
    """KV-cache bytes of B sequences holding S tokens each, every layer keeping them all.

    Examples
    --------
    Mistral 7B at 4096 tokens is 0.5 GiB (zeux):

    >>> kv_cache_bytes(n_layers=32, n_kv_heads=8, d_head=128, context=4096) / 2**30
    0.5
    """
    return kv_cache_bytes_per_token(n_layers=n_layers, n_kv_heads=n_kv_heads, d_head=d_head,
                                    bits_kv=bits_kv) * context * batch


@formula("attended_context")
def attended_context(*, context, n_layers, n_window_layers=0, window=1):
    """Cached positions a decode step reads per layer, averaged over the layers, when L_w of
    the L layers see only the last S_w tokens (Mistral 7B v0.1: all 32 layers, 4096 tokens;
    Gemma 2: every other layer).

    The bytes of cache read and the attention FLOPs of a step are linear in the positions each
    layer reads, so S_eff stands for S in them exactly.

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
    windowed = window_tokens(context=context, window=window)
    return ((n_layers - n_window_layers) * context + n_window_layers * windowed) / n_layers


@formula("max_batch")
def max_sequences(*, capacity, weight_bytes, seq_bytes, overhead=0):
    """Sequences that fit beside the weights and a reserve C_0 when each needs K bytes of
    cache (and state).

    Examples
    --------
    >>> max_sequences(capacity=80 * 10**9, weight_bytes=16 * 10**9, seq_bytes=2 * 10**9)
    32
    """
    free = capacity - overhead - weight_bytes
    return sp.Max(0, sp.floor(free / seq_bytes, evaluate=False), evaluate=False)


@formula("max_batch")
def max_batch(*, capacity, weight_bytes, kv_cache_bytes_per_token, context, overhead=0):
    """Sequences of S tokens whose KV cache fits beside the weights and a reserve C_0, every
    layer keeping all S tokens.

    Examples
    --------
    Llama 2 7B fp16 on a 24 GB A10 at 4096 tokens (Baseten's example):

    >>> max_batch(capacity=24*10**9, weight_bytes=13476831232, kv_cache_bytes_per_token=524288,
    ...           context=4096)
    4
    """
    return max_sequences(capacity=capacity, weight_bytes=weight_bytes,
                         seq_bytes=kv_cache_bytes_per_token * context, overhead=overhead)


@formula("max_context")
def max_context(*, capacity, weight_bytes, kv_cache_bytes_per_token, batch=1, overhead=0):
    """Tokens per sequence whose KV cache fits beside the weights, for B sequences.

    Examples
    --------
    >>> max_context(capacity=24*10**9, weight_bytes=13476831232, kv_cache_bytes_per_token=524288)
    20071
    """
    free = capacity - overhead - weight_bytes
    return sp.Max(0, sp.floor(free / (kv_cache_bytes_per_token * batch), evaluate=False), evaluate=False)
