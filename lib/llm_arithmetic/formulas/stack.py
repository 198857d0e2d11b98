r"""The pieces a layer stack sums that no other formula module holds.

Each is arithmetic that used to be typed inside a method of the model record: the matrix weights
of a latent-attention block, of a Mamba-2 mixer and of a Gated DeltaNet mixer, a block's norm
vectors, the routed experts of an MoE block counted at a given number of experts, the embedding
rows a decode step skips, a layer's cache at its attended length, the state a decode step reads and writes, the stack's
FLOPs, and the two shares a pipeline stage takes. :mod:`llm_arithmetic.plan.stack` says which of
them applies to which part of a layer, and one fold sums them over the stack.
"""
from __future__ import annotations

import sympy as sp

from ..core.registry import formula
from .memory import compressed_entries
from .params import (attention_params, dsa_indexer_params, kda_gate_weights, mla_attention_params,
                     mlp_params, msa_indexer_params)
from .flops import (gated_deltanet_decode_flops, gmu_decode_flops, kda_decode_flops,
                    mamba1_decode_flops, mamba2_decode_flops,
                    lightning_decode_flops, prefill_weight_flops, short_conv_decode_flops)

__all__ = ["mla_matmul_params", "mamba2_matmul_params", "gated_deltanet_matmul_params",
           "kda_matmul_params", "kda_prefill_flops", "short_conv_matmul_params",
           "short_conv_prefill_flops", "lightning_matmul_params", "lightning_prefill_flops",
           "mamba1_matmul_params", "mamba1_prefill_flops", "gmu_matmul_params",
           "gmu_prefill_flops",
           "gated_deltanet_prefill_flops", "dsa_matmul_params", "dsa_read_bytes",
           "msa_matmul_params", "msa_read_bytes",
           "compressed_read_bytes", "norm_params",
           "routed_expert_params", "hyper_norm_params", "hyper_norm_matmul_params",
           "hyper_head_params", "hyper_head_matmul_params",
           "head_matmul_params", "unread_embedding_params", "layer_cache_bytes",
           "decode_seq_bytes", "mamba2_prefill_flops", "stack_decode_flops",
           "stack_prefill_flops", "micro_batch", "stage_bytes", "stage_flops", "memory_time",
           "compute_time", "memory_required", "replica_chips", "effective_bits"]


@formula("layer_matmul_params")
def mla_matmul_params(*, d_model, n_heads, q_lora_rank, kv_lora_rank, d_nope, d_rope, d_v,
                      d_gate=0):
    """Weights of a latent-attention block in matrix products for one token: every projection
    (in the absorbed form the key and value up-projections act on the query and the output, still
    once per token), not the latents' norm vectors.

    Examples
    --------
    DeepSeek-V3's attention block:

    >>> mla_matmul_params(d_model=7168, n_heads=128, q_lora_rank=1536, kv_lora_rank=512,
    ...                   d_nope=128, d_rope=64, d_v=128)
    187105280
    """
    return (mla_attention_params(d_model=d_model, n_heads=n_heads, q_lora_rank=q_lora_rank,
                                 kv_lora_rank=kv_lora_rank, d_nope=d_nope, d_rope=d_rope,
                                 d_v=d_v, d_gate=d_gate)
            - (kv_lora_rank + q_lora_rank))


@formula("layer_matmul_params")
def dsa_matmul_params(*, d_model, n_heads, q_lora_rank, kv_lora_rank, d_nope, d_rope, d_v,
                      index_heads, index_dim):
    """Weights of a latent-attention block with a sparse-attention indexer in matrix products
    for one token: :data:`mla_matmul_params` and the indexer's query up-projection, key
    projection and head weights (not the key's LayerNorm).

    Examples
    --------
    >>> dsa_matmul_params(d_model=7168, n_heads=128, q_lora_rank=1536, kv_lora_rank=512,
    ...                   d_nope=128, d_rope=64, d_v=128, index_heads=64, index_dim=128)
    201064448
    """
    return (mla_matmul_params(d_model=d_model, n_heads=n_heads, q_lora_rank=q_lora_rank,
                              kv_lora_rank=kv_lora_rank, d_nope=d_nope, d_rope=d_rope, d_v=d_v)
            + dsa_indexer_params(d_model=d_model, q_lora_rank=q_lora_rank,
                                 index_heads=index_heads, index_dim=index_dim, norms=0))


@formula("layer_matmul_params")
def msa_matmul_params(*, d_model, n_heads, n_kv_heads, d_head, index_heads, index_dim):
    """Weights of a grouped-query attention block with a block-sparse indexer (MiniMax Sparse
    Attention) in matrix products for one token: the q, k, v and output projections and the
    indexer's query and key projections (not the norms).

    Examples
    --------
    >>> msa_matmul_params(d_model=6144, n_heads=64, n_kv_heads=4, d_head=128, index_heads=4,
    ...                   index_dim=128)
    110886912
    """
    return (attention_params(d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads,
                             d_head=d_head)
            + msa_indexer_params(d_model=d_model, index_heads=index_heads,
                                 index_dim=index_dim, norms=0))


@formula("layer_matmul_params")
def mamba2_matmul_params(*, d_model, d_inner, d_state, n_groups, n_ssm_heads):
    """Weights of a Mamba-2 mixer in matrix products for one token: the input projection (to
    z, x, B, C and the heads' step sizes) and the output projection.

    Examples
    --------
    >>> mamba2_matmul_params(d_model=8192, d_inner=16384, d_state=128, n_groups=8,
    ...                      n_ssm_heads=256)
    421527552
    """
    return (d_model * (2 * d_inner + 2 * n_groups * d_state + n_ssm_heads)
            + d_inner * d_model)


@formula("layer_matmul_params")
def mamba1_matmul_params(*, d_model, d_inner, d_state, dt_rank):
    """Weights of a Mamba-1 mixer in matrix products for one token: the input projection (to
    x and z), the projection of x to the step-size rank, B and C, the step size's
    up-projection and the output projection.

    Examples
    --------
    >>> mamba1_matmul_params(d_model=2560, d_inner=5120, d_state=16, dt_rank=160)
    41123840
    """
    return (2 * d_model * d_inner + d_inner * (dt_rank + 2 * d_state) + dt_rank * d_inner
            + d_inner * d_model)


@formula("layer_matmul_params")
def gmu_matmul_params(*, d_model, d_gmu):
    """Weights of a gated memory unit in matrix products for one token: both projections.

    Examples
    --------
    >>> gmu_matmul_params(d_model=2560, d_gmu=5120)
    26214400
    """
    return 2 * d_model * d_gmu


@formula("layer_matmul_params")
def gated_deltanet_matmul_params(*, d_model, n_qk_heads, n_v_heads, d_key, d_v):
    """Weights of a Gated DeltaNet mixer in matrix products for one token: the input
    projection (to q, k, v, the gate z and the two scalars per value head) and the output
    projection.

    Examples
    --------
    >>> gated_deltanet_matmul_params(d_model=2048, n_qk_heads=16, n_v_heads=32, d_key=128,
    ...                              d_v=128)
    33685504
    """
    return (d_model * (2 * n_qk_heads * d_key + 2 * n_v_heads * d_v + 2 * n_v_heads)
            + n_v_heads * d_v * d_model)


@formula("layer_matmul_params")
def kda_matmul_params(*, d_model, n_kda_heads, d_key, kda_full_gate=0):
    """Weights of a Kimi delta attention mixer in matrix products for one token: the query,
    key and value projections, the write strength's, the two low-rank factors of the forget
    gate, the output gate (two factors, or one full-rank matrix) and the output projection.

    Examples
    --------
    >>> kda_matmul_params(d_model=2304, n_kda_heads=32, d_key=128)
    39460864
    >>> kda_matmul_params(d_model=7168, n_kda_heads=96, d_key=128, kda_full_gate=1)
    443580416
    """
    width = n_kda_heads * d_key
    return (3 * d_model * width + d_model * n_kda_heads
            + kda_gate_weights(d_model, d_key, width, kda_full_gate) + width * d_model)


@formula("layer_matmul_params")
def short_conv_matmul_params(*, d_model, d_sconv):
    """Weights of a gated short convolution mixer in matrix products for one token: the
    input projection (to the gates B and C and the value x) and the output projection.

    Examples
    --------
    >>> short_conv_matmul_params(d_model=2048, d_sconv=2048)
    16777216
    """
    return 3 * d_model * d_sconv + d_sconv * d_model


@formula("layer_matmul_params")
def lightning_matmul_params(*, d_model, n_la_heads, d_key):
    """Weights of a lightning attention mixer in matrix products for one token: the q/k/v
    projection, the output gate and the output projection (its norm is not a matrix).

    Examples
    --------
    >>> lightning_matmul_params(d_model=6144, n_la_heads=64, d_key=128)
    251658240
    """
    width = n_la_heads * d_key
    return 3 * d_model * width + d_model * width + width * d_model


@formula("norm_params")
def norm_params(*, d_model, norm_vecs_layer):
    """Normalization weights of one block: its norm vectors of width d.

    Examples
    --------
    >>> norm_params(d_model=4096, norm_vecs_layer=2)
    8192
    """
    return norm_vecs_layer * d_model


@formula("norm_params", name="hyper_norm_params")
def hyper_norm_params(*, d_model, norm_vecs_layer, hc_streams):
    r"""Normalization weights of one block of a hyper-connected stack (DeepSeek-V4): its norm
    vectors of width d and two hyper-connection mixers (before attention and before the MLP),
    each a projection of the n_hc streams (n_hc d wide) to the (2 + n_hc) n_hc mixing weights,
    their bias and three scales.

    Examples
    --------
    A DeepSeek-V4-Flash block (d = 4096, two norms, four streams):

    >>> hyper_norm_params(d_model=4096, norm_vecs_layer=2, hc_streams=4)
    794678
    """
    mix = (2 + hc_streams) * hc_streams
    return norm_vecs_layer * d_model + 2 * (mix * hc_streams * d_model + mix + 3)


@formula("layer_matmul_params", name="hyper_norm_matmul_params")
def hyper_norm_matmul_params(*, d_model, hc_streams):
    r"""Weights of one block's two hyper-connection mixers (DeepSeek-V4) in matrix products for
    every token: each projects the n_hc streams (n_hc d values) to the (2 + n_hc) n_hc mixing
    weights; their bias and scales act on those weights, not on the streams.

    Examples
    --------
    A DeepSeek-V4-Flash block (d = 4096, four streams): 2 x 24 x 16,384

    >>> hyper_norm_matmul_params(d_model=4096, hc_streams=4)
    786432
    """
    return 2 * (2 + hc_streams) * hc_streams * hc_streams * d_model


@formula("embed_params", name="hyper_head_params")
def hyper_head_params(*, d_model, hc_streams):
    r"""The head that merges the n_hc residual streams of a hyper-connected stack into one
    before the final norm (DeepSeek-V4): an n_hc d x n_hc projection, its bias and one scale.

    Examples
    --------
    >>> hyper_head_params(d_model=4096, hc_streams=4)
    65541
    """
    return hc_streams * hc_streams * d_model + hc_streams + 1


@formula("matmul_params", name="hyper_head_matmul_params")
def hyper_head_matmul_params(*, d_model, hc_streams):
    r"""Weights of the hyper-connection head (DeepSeek-V4) in a matrix product for every token:
    its n_hc d x n_hc projection of the flattened streams to one mixing weight per stream (the
    bias and the scale act on those n_hc values, not on the streams).

    Examples
    --------
    >>> hyper_head_matmul_params(d_model=4096, hc_streams=4)
    65536
    """
    return hc_streams * hc_streams * d_model


@formula("expert_params")
def routed_expert_params(*, experts_read, d_model, d_ff, n_mlp_mats=3, mlp_bias=0):
    """Parameters of the routed experts of one MoE block, counted at a number of experts (all
    of them for what is stored, k for one token, the expected count a batch reads).

    Examples
    --------
    The 128 experts of one Qwen3-30B-A3B block, their matrices:

    >>> routed_expert_params(experts_read=128, d_model=2048, d_ff=768)
    603979776
    """
    return experts_read * mlp_params(d_model=d_model, d_ff=d_ff, n_mlp_mats=n_mlp_mats,
                                     mlp_bias=mlp_bias)


@formula("head_params")
def head_matmul_params(*, n_vocab, d_model):
    """Weights of the output head, in a matrix product for every token a step samples (every
    decode token; once per prompt, its last position, in a prefill). A tied head is the input
    table used again: still V d weights in a matrix product.

    Examples
    --------
    >>> head_matmul_params(n_vocab=32000, d_model=4096)
    131072000
    """
    return n_vocab * d_model


@formula("params_unread")
def unread_embedding_params(*, n_vocab, d_model, tied=0, n_positions=0):
    """Embedding parameters a decode step of one token does not read: all but one row of an
    untied input table (a tied table is read whole, as the head) and all but one row of a learned
    position table.

    Examples
    --------
    >>> unread_embedding_params(n_vocab=32000, d_model=4096)
    131067904
    >>> unread_embedding_params(n_vocab=50257, d_model=768, tied=1, n_positions=1024)
    785664
    """
    return ((1 - tied) * (n_vocab - 1) * d_model
            + (n_positions - sp.Min(n_positions, 1, evaluate=False)) * d_model)


@formula("ple_params")
def per_layer_embedding_params(*, n_layers, d_model, d_ple, n_vocab_ple):
    """Parameters of per-layer input embeddings (PLE; Gemma 4 E2B/E4B, Gemma 3n): one table of
    V_PLE rows holding, for every block, a slice of width d_PLE (L d_PLE columns in all); a
    projection of the token's embedding to the same L d_PLE numbers and a norm of width d_PLE;
    and in every block a gate (d x d_PLE), a projection back to the residual (d_PLE x d) and a
    norm of width d.

    Examples
    --------
    Gemma 4 E2B (L = 35, d = 1536, d_PLE = 256, V_PLE = 262,144): the table alone is
    262,144 x 8,960.

    >>> per_layer_embedding_params(n_layers=35, d_model=1536, d_ple=256, n_vocab_ple=262144)
    2390151936
    """
    return (n_layers * d_ple * (n_vocab_ple + d_model) + d_ple
            + n_layers * (2 * d_model * d_ple + d_model))


@formula("params_unread")
def unread_per_layer_embedding_params(*, n_layers, d_ple, n_vocab_ple):
    """Per-layer embedding parameters a decode step of one token does not read: the table is
    gathered, one row (L d_PLE numbers, a slice for every block) per token.

    Examples
    --------
    >>> unread_per_layer_embedding_params(n_layers=35, d_ple=256, n_vocab_ple=262144)
    2348801280
    """
    return (n_vocab_ple - 1) * n_layers * d_ple


@formula("layer_matmul_params")
def per_layer_embedding_matmul_params(*, n_layers, d_model, d_ple):
    """Weights of per-layer input embeddings in matrix products for one token: the projection
    of the embedding to L d_PLE numbers, and every block's gate and projection back.

    Examples
    --------
    >>> per_layer_embedding_matmul_params(n_layers=35, d_model=1536, d_ple=256)
    41287680
    """
    return 3 * n_layers * d_model * d_ple


@formula("kv_cache")
def layer_cache_bytes(*, kv_layer_bytes, attended, batch=1):
    """Cache of one attention layer for B sequences, each holding the positions the layer keeps.

    Examples
    --------
    A Llama-2-7B layer at 4,096 tokens, one sequence:

    >>> layer_cache_bytes(kv_layer_bytes=16384, attended=4096)
    67108864
    """
    return kv_layer_bytes * attended * batch


@formula("kv_cache")
def dsa_read_bytes(*, kv_lora_rank, d_rope, index_dim, attended, context, bits_kv=16):
    """Cache bytes one decode step of a sparse-attention layer reads for one sequence: every
    one of the S indexer keys (to score them), and the latent and rotary key of only the
    S_a = min(S, S_top) positions selected. Past S_top tokens the second part stops growing;
    the first grows at d_I per token instead of r_kv + d_rope.

    Examples
    --------
    DeepSeek-V3.2 at 32,768 tokens (top 2,048), 16 bits:

    >>> dsa_read_bytes(kv_lora_rank=512, d_rope=64, index_dim=128, attended=2048,
    ...                context=32768)
    10747904
    """
    return (attended * (kv_lora_rank + d_rope) + context * index_dim) * bits_kv / 8


@formula("kv_cache")
def msa_read_bytes(*, n_kv_heads, d_head, index_dim, attended, context, bits_kv=16):
    """Cache bytes one decode step of a block-sparse attention layer (MiniMax Sparse Attention)
    reads for one sequence: every one of the S index keys (to score them), and per KV head
    its key and value at the S_a = min(S, S_top) positions of the blocks selected for that head
    (S_top: the top-k blocks times the block size, the current block among them). Each head
    picks its own blocks, so this is an upper end: a block counts whole.

    Examples
    --------
    A MiniMax-M3 sparse layer at 32,768 tokens (2,048 attended), 16 bits:

    >>> msa_read_bytes(n_kv_heads=4, d_head=128, index_dim=128, attended=2048, context=32768)
    12582912
    """
    return (attended * 2 * n_kv_heads * d_head + context * index_dim) * bits_kv / 8


@formula("kv_cache")
def compressed_read_bytes(*, d_head, attended, index_dim, context, compress_ratio, bits_kv=16):
    """Cache bytes one decode step of a compressed-attention layer (DeepSeek-V4) reads for one
    sequence: the S_a rows of d_head it attends to (:data:`compressed_tokens`: its window and
    the compressed entries it selects) and, in a CSA layer, every one of the floor(S / m_c)
    indexer keys of d_I, to score them (d_I = 0 elsewhere). The compressors' pending state is
    written a row a token and read once per m_c tokens: not counted.

    Examples
    --------
    A DeepSeek-V4-Flash CSA layer at 4,096 tokens (128 + 512 rows attended), 16 bits:

    >>> compressed_read_bytes(d_head=512, attended=640, index_dim=128, context=4096,
    ...                       compress_ratio=4)
    917504
    """
    return (attended * d_head + compressed_entries(context, compress_ratio) * index_dim) \
        * bits_kv / 8


@formula("seq_bytes")
def decode_seq_bytes(*, kv_cache, state_bytes):
    """Bytes a decode step moves for one sequence besides the weights: the cache it reads and
    the state-space layers' state, read and written back.

    Examples
    --------
    >>> decode_seq_bytes(kv_cache=1000, state_bytes=10)
    1020
    """
    return kv_cache + 2 * state_bytes


@formula("prefill_flops")
def mamba2_prefill_flops(*, d_inner, d_state, n_groups, d_conv, prompt):
    """FLOPs of a Mamba-2 mixer's recurrence over a prompt of T tokens: one step per token.

    Examples
    --------
    >>> mamba2_prefill_flops(d_inner=8192, d_state=128, n_groups=8, d_conv=4, prompt=2)
    10649600
    """
    return mamba2_decode_flops(d_inner=d_inner, d_state=d_state, n_groups=n_groups,
                               d_conv=d_conv) * prompt


@formula("prefill_flops")
def mamba1_prefill_flops(*, d_inner, d_state, d_conv, prompt):
    """FLOPs of a Mamba-1 mixer's recurrence over a prompt of T tokens: one step per token
    (the selective scan runtimes use does the same work).

    Examples
    --------
    >>> mamba1_prefill_flops(d_inner=5120, d_state=16, d_conv=4, prompt=2)
    1064960
    """
    return mamba1_decode_flops(d_inner=d_inner, d_state=d_state, d_conv=d_conv) * prompt


@formula("prefill_flops")
def gmu_prefill_flops(*, d_gmu, prompt):
    """FLOPs of a gated memory unit over a prompt of T tokens, besides its projections: one
    product per channel and token.

    Examples
    --------
    >>> gmu_prefill_flops(d_gmu=5120, prompt=2)
    10240
    """
    return gmu_decode_flops(d_gmu=d_gmu) * prompt


@formula("prefill_flops")
def gated_deltanet_prefill_flops(*, n_qk_heads, n_v_heads, d_key, d_v, d_conv, prompt):
    """FLOPs of a Gated DeltaNet layer's recurrence over a prompt of T tokens, one step per
    token (the chunked form runtimes use does the same work in blocks, plus a small
    within-chunk attention).

    Examples
    --------
    >>> gated_deltanet_prefill_flops(n_qk_heads=16, n_v_heads=32, d_key=128, d_v=128,
    ...                              d_conv=4, prompt=2)
    7471104
    """
    return gated_deltanet_decode_flops(n_qk_heads=n_qk_heads, n_v_heads=n_v_heads,
                                       d_key=d_key, d_v=d_v, d_conv=d_conv) * prompt


@formula("prefill_flops")
def kda_prefill_flops(*, n_kda_heads, d_key, d_conv, prompt):
    """FLOPs of a Kimi delta attention layer's recurrence over a prompt of T tokens, one step
    per token (the chunked kernel does the same work in blocks).

    Examples
    --------
    >>> kda_prefill_flops(n_kda_heads=32, d_key=128, d_conv=4, prompt=2)
    7536640
    """
    return kda_decode_flops(n_kda_heads=n_kda_heads, d_key=d_key, d_conv=d_conv) * prompt


@formula("prefill_flops")
def short_conv_prefill_flops(*, d_sconv, d_conv, prompt):
    """FLOPs of a gated short convolution layer over a prompt of T tokens, besides its
    projections: one step per token.

    Examples
    --------
    >>> short_conv_prefill_flops(d_sconv=2048, d_conv=3, prompt=2)
    32768
    """
    return short_conv_decode_flops(d_sconv=d_sconv, d_conv=d_conv) * prompt


@formula("prefill_flops")
def lightning_prefill_flops(*, n_la_heads, d_key, prompt):
    """FLOPs of a lightning attention layer over a prompt of T tokens, besides its
    projections: one recurrent step per token, as for the other linear-attention mixers (the
    blocked form run in prefill adds products inside each block of tokens, left out).

    Examples
    --------
    >>> lightning_prefill_flops(n_la_heads=64, d_key=128, prompt=2)
    10485760
    """
    return lightning_decode_flops(n_la_heads=n_la_heads, d_key=d_key) * prompt


@formula("decode_flops")
def stack_decode_flops(*, matmul_params, layer_flops):
    """FLOPs to decode one token: 2 per weight in a matrix product, plus the attention and
    state-space FLOPs of every layer.

    Examples
    --------
    >>> stack_decode_flops(matmul_params=1000, layer_flops=256)
    2256
    """
    return 2 * matmul_params + layer_flops


@formula("prefill_flops")
def stack_prefill_flops(*, matmul_params, head_params, prompt, layer_flops):
    """FLOPs to prefill a prompt of T tokens: 2 per matrix weight of the blocks per token, 2 per
    weight of the output head once (runtimes compute the logits of the last prompt position
    only, the one the first token is sampled from), plus the attention and state-space FLOPs of
    every layer over the prompt.

    Examples
    --------
    One token of prefill is one decode step; every further token adds the blocks, not the head:

    >>> stack_prefill_flops(matmul_params=1000, head_params=400, prompt=1, layer_flops=256)
    2256
    >>> stack_prefill_flops(matmul_params=1000, head_params=400, prompt=2, layer_flops=256)
    3456
    """
    return prefill_weight_flops(matmul_params, head_params, prompt) + layer_flops


@formula("micro_batch")
def micro_batch(*, batch, pp):
    """Sequences in one microbatch when a batch of B is split into min(B, pp) microbatches, one
    per pipeline stage.

    Examples
    --------
    >>> micro_batch(batch=64, pp=4), micro_batch(batch=2, pp=4), micro_batch(batch=8, pp=1)
    (16, 1, 8)
    """
    return batch / sp.Min(batch, pp, evaluate=False)


@formula("step_bytes")
def stage_bytes(*, step_bytes, pp):
    """Bytes one of pp pipeline stages moves: its share of the layers' weights and cache.

    Examples
    --------
    >>> stage_bytes(step_bytes=1000, pp=4)
    250
    """
    return step_bytes / pp


@formula("step_flops")
def stage_flops(*, step_flops, pp):
    """FLOPs one of pp pipeline stages does: its share of the layers.

    Examples
    --------
    >>> stage_flops(step_flops=1000, pp=4)
    250
    """
    return step_flops / pp


@formula("memory_time")
def memory_time(*, step_bytes, bandwidth):
    """Time to move a step's bytes at the memory bandwidth.

    Examples
    --------
    >>> memory_time(step_bytes=2e9, bandwidth=1e12)
    0.002
    """
    return step_bytes / bandwidth


@formula("compute_time")
def compute_time(*, step_flops, peak_flops):
    """Time to do a step's FLOPs at the peak rate.

    Examples
    --------
    >>> compute_time(step_flops=2e12, peak_flops=1e15)
    0.002
    """
    return step_flops / peak_flops


@formula("memory_required")
def memory_required(*, weight_bytes, kv_cache, state_bytes, batch, overhead=0):
    """Memory a deployment needs: the weights, the cache of B sequences, each sequence's state,
    and a reserve.

    Examples
    --------
    >>> memory_required(weight_bytes=100, kv_cache=20, state_bytes=3, batch=2, overhead=1)
    127
    """
    return weight_bytes + kv_cache + batch * state_bytes + overhead


@formula("n_chips")
def replica_chips(*, tp, pp):
    """Chips of one replica: tp-way tensor parallelism in each of pp pipeline stages (the
    experts are split over the same chips).

    Examples
    --------
    >>> replica_chips(tp=8, pp=2)
    16
    """
    return tp * pp


@formula("bits_weight")
def effective_bits(*, weight_bytes, n_params):
    """Bits per weight on average, where parts of a model are stored at different precisions.

    Examples
    --------
    >>> effective_bits(weight_bytes=13476831232, n_params=6738415616)
    16
    """
    return 8 * weight_bytes / n_params
