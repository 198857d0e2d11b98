r"""Parameter counts: the GPT-style approximation, each kind of layer, and whole models.

* :data:`gpt_params` -- :math:`P \approx 12 L d^2 + V d`, the count the articles use.
* Layer kinds: :data:`attention_params` (MHA, GQA and MQA, with biases, q/k norms and attention
  sinks), :data:`mla_attention_params` (DeepSeek's multi-head latent attention),
  :data:`mlp_params` (one dense MLP or one expert), :data:`router_params`, :data:`moe_params`
  and :data:`moe_active_params` (routed and shared experts), :data:`mamba2_params` (a
  state-space mixer), :data:`embedding_params` (embeddings, final norm, output head).
* A uniform decoder (every block alike): :data:`total_params`, :data:`active_params`,
  :data:`matmul_params`, :data:`decode_read_params`. A model with different kinds of layers sums
  the layer kinds over its stack (:class:`llm_arithmetic.catalog.model.Model`); for a uniform
  stack both give the same count, which the tests check.
* :data:`experts_read` -- how many experts a batched decode step touches.

Every count is checked against the published counts of real models in ``tests/``.
"""
from __future__ import annotations

import sympy as sp

from ..core.registry import formula

__all__ = [
    "gpt_params", "attention_params", "mla_attention_params", "mlp_params", "router_params",
    "moe_params", "moe_active_params", "mamba2_params", "gated_attention_params",
    "gated_deltanet_params", "kda_params", "short_conv_params", "lightning_params", "mamba1_params", "gmu_params", "dsa_attention_params", "msa_attention_params",
    "split_attention_params", "lowq_attention_params", "lowq_matmul_params",
    "tied_attention_params", "compressed_matmul_params", "compressed_attention_params",
    "latent_moe_params", "latent_moe_active_params",
    "embedding_params", "total_params",
    "active_params", "matmul_params", "decode_read_params", "experts_read",
]


@formula("n_params")
def gpt_params(*, n_layers, d_model, n_vocab):
    """Parameters of a GPT-style model, the approximation the articles use.

    Four d x d attention matrices and two d x 4d MLP matrices per block, plus the embedding
    table (GPT convention: H d_head = d, d_ff = 4d, tied head) [1]_ [2]_.

    Examples
    --------
    LLaMA-7B's shape (L = 32, d = 4096, V = 32000) under the GPT convention:

    >>> gpt_params(n_layers=32, d_model=4096, n_vocab=32000)
    6573522944

    References
    ----------
    .. [1] kipply, "Transformer Inference Arithmetic", 2022.
    .. [2] F. Timbers, "How is LLaMa.cpp possible?", 2023.
    """
    # the blocks first, then the table, as the articles write it (sympy would print V d first)
    return sp.Add(n_layers * (4 * d_model**2 + 2 * 4 * d_model**2), n_vocab * d_model,
                  evaluate=False)


@formula("attn_params")
def attention_params(*, d_model, n_heads, n_kv_heads, d_head, qkv_bias=0, o_bias=0, qk_norm=0,
                     qk_norm_full=0, attn_sinks=0, diff_attn=0):
    """Parameters of one attention block with grouped-query heads (MHA, GQA, MQA).

    The query and output projections are d x (H d_head); the key and value projections are
    d x (H_kv d_head). Optional: biases on q, k, v and on the output; query/key norms, either
    one vector of width d_head each for q and k shared by the heads (Qwen3, Gemma 3) or over
    the whole projections (OLMo 2, Cohere); one learned attention-sink logit per head
    (gpt-oss); differential attention's four lambda vectors of width d_head and its sub-norm
    of width 2 d_head, shared by the heads (Phi-4-mini-flash).

    Examples
    --------
    Mistral 7B (d = 4096, 32 query heads, 8 KV heads of 128):

    >>> attention_params(d_model=4096, n_heads=32, n_kv_heads=8, d_head=128)
    41943040
    """
    return (d_model * n_heads * d_head + 2 * d_model * n_kv_heads * d_head
            + n_heads * d_head * d_model
            + qkv_bias * (n_heads * d_head + 2 * n_kv_heads * d_head) + o_bias * d_model
            + qk_norm * 2 * d_head + qk_norm_full * (n_heads + n_kv_heads) * d_head
            + attn_sinks * n_heads + diff_attn * 6 * d_head)


@formula("attn_params")
def mla_attention_params(*, d_model, n_heads, q_lora_rank, kv_lora_rank, d_nope, d_rope, d_v,
                         d_gate=0):
    r"""Parameters of one multi-head latent attention block (DeepSeek-V2/V3).

    Queries: with a low-rank path (r_q > 0), a d x r_q down-projection, its norm and an
    r_q x H (d_nope + d_rope) up-projection; otherwise one d x H (d_nope + d_rope) matrix.
    Keys and values: a d x (r_kv + d_rope) down-projection to the latent and the shared rotary
    key, the latent's norm, and an r_kv x H (d_nope + d_v) up-projection to per-head keys and
    values. Output: H d_v x d. A gated latent attention (Kimi K3, d_g = d_v) adds an output
    gate d x (H d_g), a sigmoid per channel of the attention output before the output
    projection.

    Examples
    --------
    DeepSeek-V3 (d = 7168, 128 heads, r_q = 1536, r_kv = 512, 128 + 64 query/key widths,
    128 value width): 187,107,328 per layer.

    >>> mla_attention_params(d_model=7168, n_heads=128, q_lora_rank=1536, kv_lora_rank=512,
    ...                      d_nope=128, d_rope=64, d_v=128)
    187107328

    A gated latent-attention layer of Kimi K3 (d = 7168, 96 heads, r_q = 1536, d_g = d_v = 128):

    >>> mla_attention_params(d_model=7168, n_heads=96, q_lora_rank=1536, kv_lora_rank=512,
    ...                      d_nope=128, d_rope=64, d_v=128, d_gate=128)
    232196096
    """
    q_full = d_model * n_heads * (d_nope + d_rope)
    q_lora = d_model * q_lora_rank + q_lora_rank + q_lora_rank * n_heads * (d_nope + d_rope)
    q = sp.Piecewise((q_full, sp.Eq(q_lora_rank, 0)), (q_lora, True), evaluate=False)
    kv = (d_model * (kv_lora_rank + d_rope) + kv_lora_rank
          + kv_lora_rank * n_heads * (d_nope + d_v))
    return q + kv + n_heads * d_v * d_model + d_model * n_heads * d_gate


@formula("mlp_params")
def mlp_params(*, d_model, d_ff, n_mlp_mats=3, mlp_bias=0):
    """Parameters of one MLP, or of one expert of a mixture.

    ``n_mlp_mats`` matrices of d x d_ff: 3 for a gated MLP (SwiGLU, GeGLU: gate, up, down) and
    2 for a plain one. With biases, each d_ff-wide output and the last (d-wide) output carry one.

    Examples
    --------
    >>> mlp_params(d_model=4096, d_ff=11008)          # Llama 2 7B, gated
    135266304
    >>> mlp_params(d_model=768, d_ff=3072, n_mlp_mats=2, mlp_bias=1)  # GPT-2
    4722432
    """
    return n_mlp_mats * d_model * d_ff + mlp_bias * ((n_mlp_mats - 1) * d_ff + d_model)


@formula("router_params")
def router_params(*, d_model, n_experts, router_bias=0):
    """Router (gate) of one mixture-of-experts block: a d x E matrix, and a bias of E if any.

    None in a dense model (E = 1).

    Examples
    --------
    >>> router_params(d_model=4096, n_experts=8)
    32768
    >>> router_params(d_model=4096, n_experts=1)
    0
    """
    return sp.Piecewise((0, sp.Eq(n_experts, 1)),
                        (n_experts * d_model + router_bias * n_experts, True), evaluate=False)


def _moe(d_model, d_ff, experts, n_experts, n_shared_experts, d_shared, n_mlp_mats, mlp_bias,
         router_bias, shared_gate):
    return (experts * mlp_params(d_model=d_model, d_ff=d_ff, n_mlp_mats=n_mlp_mats,
                                 mlp_bias=mlp_bias)
            + n_shared_experts * mlp_params(d_model=d_model, d_ff=d_shared,
                                            n_mlp_mats=n_mlp_mats, mlp_bias=mlp_bias)
            + router_params(d_model=d_model, n_experts=n_experts, router_bias=router_bias)
            + shared_gate * d_model)


@formula("moe_params")
def moe_params(*, d_model, d_ff, n_experts, n_shared_experts=0, d_shared=1, n_mlp_mats=3,
               mlp_bias=0, router_bias=0, shared_gate=0):
    """Parameters of one mixture-of-experts block: E routed experts of width d_ff, E_s shared
    experts of width d_s, the router and a shared-expert gate.

    Examples
    --------
    Qwen3-30B-A3B (d = 2048, 128 experts of 768): 604,241,920 per block.

    >>> moe_params(d_model=2048, d_ff=768, n_experts=128)
    604241920
    """
    return _moe(d_model, d_ff, n_experts, n_experts, n_shared_experts, d_shared, n_mlp_mats,
                mlp_bias, router_bias, shared_gate)


@formula("moe_params", name="moe_active_params")
def moe_active_params(*, d_model, d_ff, n_experts, n_active_experts, n_shared_experts=0,
                      d_shared=1, n_mlp_mats=3, mlp_bias=0, router_bias=0, shared_gate=0):
    """Parameters of one mixture-of-experts block that one token uses: k routed experts, every
    shared expert, the router and the gate.

    Examples
    --------
    Qwen3-30B-A3B uses 8 of its 128 experts:

    >>> moe_active_params(d_model=2048, d_ff=768, n_experts=128, n_active_experts=8)
    38010880
    """
    return _moe(d_model, d_ff, n_active_experts, n_experts, n_shared_experts, d_shared,
                n_mlp_mats, mlp_bias, router_bias, shared_gate)


def _latent_moe(d_model, d_latent, d_ff, experts, n_experts, n_shared_experts, d_shared,
                n_mlp_mats, mlp_bias, router_bias, shared_gate, latent_norm):
    return (_moe(d_model, d_ff, 0, n_experts, n_shared_experts, d_shared, n_mlp_mats, mlp_bias,
                 router_bias, shared_gate)
            + experts * mlp_params(d_model=d_latent, d_ff=d_ff, n_mlp_mats=n_mlp_mats,
                                   mlp_bias=mlp_bias)
            + 2 * d_model * d_latent + latent_norm * d_latent)


@formula("moe_params", name="latent_moe_params")
def latent_moe_params(*, d_model, d_latent, d_ff, n_experts, n_shared_experts=0, d_shared=1,
                      n_mlp_mats=3, mlp_bias=0, router_bias=0, shared_gate=0, latent_norm=0):
    """Parameters of one latent mixture-of-experts block (LatentMoE, Nemotron 3 Super): the
    router and the shared experts work on the d-wide input as in :data:`moe_params`; the E
    routed experts work in a narrower latent of width d_lat, between a d x d_lat down-projection
    and a d_lat x d up-projection that the routed experts share. Kimi K3's Stable LatentMoE
    normalizes the routed experts' weighted sum with an RMSNorm of d_lat before the
    up-projection (``latent_moe_use_norm``).

    Examples
    --------
    A block of Nemotron 3 Super (d = 4096, d_lat = 1024, 512 plain experts of 2688, one shared
    expert of 5376, a router bias):

    >>> latent_moe_params(d_model=4096, d_latent=1024, d_ff=2688, n_experts=512,
    ...                   n_shared_experts=1, d_shared=5376, n_mlp_mats=2, router_bias=1)
    2873098752

    A block of Kimi K3 (d = 7168, d_lat = 3584, 896 gated experts of 3072, two shared experts
    of 3072, a score-correction bias, the latent norm):

    >>> latent_moe_params(d_model=7168, d_latent=3584, d_ff=3072, n_experts=896,
    ...                   n_shared_experts=1, d_shared=6144, router_bias=1, latent_norm=1)
    29784936832
    """
    return _latent_moe(d_model, d_latent, d_ff, n_experts, n_experts, n_shared_experts, d_shared,
                       n_mlp_mats, mlp_bias, router_bias, shared_gate, latent_norm)


@formula("moe_params", name="latent_moe_active_params")
def latent_moe_active_params(*, d_model, d_latent, d_ff, n_experts, n_active_experts,
                             n_shared_experts=0, d_shared=1, n_mlp_mats=3, mlp_bias=0,
                             router_bias=0, shared_gate=0, latent_norm=0):
    """Parameters of one latent mixture-of-experts block that one token uses: k routed experts
    in the latent, both latent projections (and the latent norm, if any), every shared expert,
    the router.

    Examples
    --------
    >>> latent_moe_active_params(d_model=4096, d_latent=1024, d_ff=2688, n_experts=512,
    ...                          n_active_experts=22, n_shared_experts=1, d_shared=5376,
    ...                          n_mlp_mats=2, router_bias=1)
    175636992
    """
    return _latent_moe(d_model, d_latent, d_ff, n_active_experts, n_experts, n_shared_experts,
                       d_shared, n_mlp_mats, mlp_bias, router_bias, shared_gate, latent_norm)


@formula("ssm_params")
def mamba2_params(*, d_model, d_inner, d_state, n_groups, n_ssm_heads, d_conv, conv_bias=1,
                  ssm_bias=0, ssm_norm=1):
    r"""Parameters of one Mamba-2 mixer (a state-space layer with a constant-size state).

    An input projection from d to the gate z and the input x (d_in each), B and C (n_g d_st
    each) and one step size per head; a causal convolution of width k_conv over x, B and C
    (one filter per channel, with a bias); per head a step-size bias, a decay (A) and a skip
    (D); a gated RMSNorm of width d_in (none in Falcon-H1's mixers, ``mamba_rms_norm`` false);
    an output projection d_in x d.

    Examples
    --------
    Nemotron-H 8B's mixers (d = 4096, d_in = 8192, d_st = 128, 8 groups, 128 heads, k = 4):

    >>> mamba2_params(d_model=4096, d_inner=8192, d_state=128, n_groups=8, n_ssm_heads=128,
    ...               d_conv=4)
    109635968
    """
    conv_dim = d_inner + 2 * n_groups * d_state
    in_proj = d_model * (2 * d_inner + 2 * n_groups * d_state + n_ssm_heads)
    return (in_proj + ssm_bias * (2 * d_inner + 2 * n_groups * d_state + n_ssm_heads)
            + conv_dim * d_conv + conv_bias * conv_dim
            + 3 * n_ssm_heads + ssm_norm * d_inner + d_inner * d_model + ssm_bias * d_model)


@formula("attn_params")
def gated_attention_params(*, d_model, n_heads, n_kv_heads, d_head, d_gate, qkv_bias=0, o_bias=0,
                           qk_norm=0, qk_norm_full=0, attn_sinks=0):
    """Parameters of one attention block whose output is gated before the output projection:
    :data:`attention_params` and a gate projection d x (H d_g), a gate of width d_g per head
    (Qwen3-Next and Qwen3.5: d_g = d_head, a sigmoid per channel, their query projection made
    twice as wide; Laguna: d_g = 1, one softplus gate per head).

    Examples
    --------
    A full-attention layer of Qwen3.5-35B-A3B (d = 2048, 16 query heads, 2 KV heads of 256,
    q/k norms, a gate per channel), and a sliding layer of Laguna-XS.2 (64 heads, a gate per
    head):

    >>> gated_attention_params(d_model=2048, n_heads=16, n_kv_heads=2, d_head=256, d_gate=256,
    ...                        qk_norm=1)
    27263488
    >>> gated_attention_params(d_model=2048, n_heads=64, n_kv_heads=8, d_head=128, d_gate=1,
    ...                        qk_norm=1)
    37880064
    """
    return (attention_params(d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads,
                             d_head=d_head, qkv_bias=qkv_bias, o_bias=o_bias, qk_norm=qk_norm,
                             qk_norm_full=qk_norm_full, attn_sinks=attn_sinks)
            + d_model * n_heads * d_gate)


@formula("attn_params")
def split_attention_params(*, d_model, n_heads, n_kv_heads, d_head, d_v, qkv_bias=0, o_bias=0,
                           qk_norm=0, qk_norm_full=0, attn_sinks=0):
    """Parameters of one grouped-query attention block whose values are narrower than its
    queries and keys (MiMo-V2-Flash: d_head = 192, d_v = 128): q and k projections of width
    d_head per head, v of d_v, the output projection from H d_v; the same optional biases,
    norms and sinks as :data:`attention_params`.

    Examples
    --------
    A sliding-window layer of MiMo-V2-Flash (d = 4096, 64 heads, 8 KV heads, sinks):

    >>> split_attention_params(d_model=4096, n_heads=64, n_kv_heads=8, d_head=192, d_v=128,
    ...                        attn_sinks=1)
    94371904
    """
    return (d_model * n_heads * d_head + d_model * n_kv_heads * (d_head + d_v)
            + n_heads * d_v * d_model
            + qkv_bias * (n_heads * d_head + n_kv_heads * (d_head + d_v)) + o_bias * d_model
            + qk_norm * 2 * d_head + qk_norm_full * (n_heads + n_kv_heads) * d_head
            + attn_sinks * n_heads)


@formula("attn_params")
def lowq_attention_params(*, d_model, n_heads, n_kv_heads, d_head, q_lora_rank):
    """Parameters of one grouped-query attention block whose query goes through a low rank
    (StepFun's multi-matrix factorization attention, Step3): a down-projection d x r_q, an
    RMSNorm of r_q, an up-projection r_q x (H d_head) to the heads; key and value projections
    d x (H_kv d_head); the output projection (H d_head) x d; no biases, no q/k norms.

    Examples
    --------
    A layer of Step3 (d = 7168, query rank 2048, 64 query heads and 1 key/value head of 256):

    >>> lowq_attention_params(d_model=7168, n_heads=64, n_kv_heads=1, d_head=256,
    ...                       q_lora_rank=2048)
    169347072
    """
    return (d_model * q_lora_rank + q_lora_rank + q_lora_rank * n_heads * d_head
            + 2 * d_model * n_kv_heads * d_head + n_heads * d_head * d_model)


@formula("layer_matmul_params")
def lowq_matmul_params(*, d_model, n_heads, n_kv_heads, d_head, q_lora_rank):
    """Weights of one low-rank-query attention block (:data:`lowq_attention_params`) in its
    matrix products for one token: every projection, not the query's norm.

    Examples
    --------
    A layer of Step3:

    >>> lowq_matmul_params(d_model=7168, n_heads=64, n_kv_heads=1, d_head=256,
    ...                    q_lora_rank=2048)
    169345024
    """
    return (d_model * q_lora_rank + q_lora_rank * n_heads * d_head
            + 2 * d_model * n_kv_heads * d_head + n_heads * d_head * d_model)


@formula("attn_params")
def tied_attention_params(*, d_model, n_heads, n_kv_heads, d_head, qkv_bias=0, o_bias=0,
                          qk_norm=0, qk_norm_full=0, attn_sinks=0):
    """Parameters of one grouped-query attention block whose values are its keys' projection
    (Gemma 4's global layers, ``attention_k_eq_v``): :data:`attention_params` without the value
    projection. The cache still holds keys and values apart (the keys are normalized and
    rotated, the values only normalized), so only the count changes.

    Examples
    --------
    A global layer of Gemma 4 26B-A4B (d = 2816, 16 query heads, 2 KV heads of 512, q/k
    norms): 16 x 512 x 2816 for q and o each, 2 x 512 x 2816 for k, 2 x 512 for the norms.

    >>> tied_attention_params(d_model=2816, n_heads=16, n_kv_heads=2, d_head=512, qk_norm=1)
    49021952
    """
    return (attention_params(d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads,
                             d_head=d_head, qkv_bias=qkv_bias, o_bias=o_bias, qk_norm=qk_norm,
                             qk_norm_full=qk_norm_full, attn_sinks=attn_sinks)
            - (d_model + qkv_bias) * n_kv_heads * d_head)


@formula("attn_params")
def reuse_attention_params(*, d_model, n_heads, d_head, qkv_bias=0, o_bias=0, qk_norm=0,
                           qk_norm_full=0, attn_sinks=0, reuse_k_norm=0, diff_attn=0):
    """Parameters one attention block uses when it reads an earlier layer's keys and values
    (Gemma 4's KV-sharing layers, ``num_kv_shared_layers``; Hunyuan's cross-layer attention,
    ``use_cla``): the query and output projections, the query's bias and norm, and, where the
    block normalizes the keys it reads with a key norm of its own (Hunyuan), that norm; no key
    or value projection, and no cache. (Gemma 4 E2B/E4B checkpoints still store those layers'
    unused k, v and key-norm weights; the reader reports them apart.)

    Examples
    --------
    A sliding KV-sharing layer of Gemma 4 E2B (d = 1536, 8 query heads of 256, a query norm):
    8 x 256 x 1536 for q and o each, 256 for the norm.

    >>> reuse_attention_params(d_model=1536, n_heads=8, d_head=256, qk_norm=1)
    6291712

    An odd layer of Hunyuan-Large (d = 6400, 80 query heads of 80, query and key norms of 80):
    80 x 80 x 6400 for q and o each, 80 for each norm.

    >>> reuse_attention_params(d_model=6400, n_heads=80, d_head=80, qk_norm=1, reuse_k_norm=1)
    81920160

    A cross-decoder attention block of Phi-4-mini-flash (d = 2560, 40 query heads of 64,
    differential): q and o with their biases, 2 x (2560 x 2560 + 2560), and 6 x 64 for the
    lambdas and the sub-norm.

    >>> reuse_attention_params(d_model=2560, n_heads=40, d_head=64, qkv_bias=1, o_bias=1,
    ...                        diff_attn=1)
    13112704
    """
    return (2 * d_model * n_heads * d_head + qkv_bias * n_heads * d_head + o_bias * d_model
            + qk_norm * d_head + qk_norm_full * n_heads * d_head + attn_sinks * n_heads
            + reuse_k_norm * d_head + diff_attn * 6 * d_head)


@formula("matmul_params", name="compressed_matmul_params")
def compressed_matmul_params(*, d_model, n_heads, d_head, q_lora_rank, o_lora_rank, o_groups,
                             compress_overlap=0, index_heads=0, index_dim=0):
    r"""Weights in the matrix products of one compressed-attention block (DeepSeek-V4) for one
    token: a low-rank query (d x r_q, r_q x H d_head), one key-value head shared by keys and
    values (d x d_head), the grouped low-rank output (each of g_o groups of heads projected to
    r_o, H d_head r_o in all, then g_o r_o x d); a compressor's key-value and gate projections
    (2 c_o d_head each row of d, c_o = 2 for overlapping windows), and, with an indexer, its
    own compressor (2 c_o d_I), query (r_q x H_I d_I) and head weights (d x H_I).

    Examples
    --------
    A layer of DeepSeek-V4-Flash with disjoint windows (HCA: 64 heads of 512, r_q = 1024,
    8 groups of rank 1024, d = 4096):

    >>> compressed_matmul_params(d_model=4096, n_heads=64, d_head=512, q_lora_rank=1024,
    ...                          o_lora_rank=1024, o_groups=8, compress_overlap=1)
    111149056
    """
    q = d_model * q_lora_rank + q_lora_rank * n_heads * d_head
    o = n_heads * d_head * o_lora_rank + o_groups * o_lora_rank * d_model
    compressor = 2 * compress_overlap * d_head * d_model
    indexer = (2 * compress_overlap * index_dim * d_model + q_lora_rank * index_heads * index_dim
               + d_model * index_heads)
    return q + d_model * d_head + o + compressor + indexer


@formula("attn_params")
def compressed_attention_params(*, d_model, n_heads, d_head, q_lora_rank, o_lora_rank, o_groups,
                                compress_ratio=0, compress_overlap=0, index_heads=0,
                                index_dim=0):
    r"""Parameters of one compressed-attention block (DeepSeek-V4): the weights of
    :data:`compressed_matmul_params`, the query latent's and the key-value head's norms
    (r_q, d_head), one attention-sink logit per head, and, with a compressor, a learned
    position bias over the m_c tokens of a window (c_o d_head each) and the compressed
    entries' norm (d_head); an indexer has the same two for its own width d_I.

    Examples
    --------
    DeepSeek-V4-Flash's three kinds of layer: a window only, disjoint windows of 128 (HCA),
    overlapping windows of 4 with an indexer of 64 heads of 128 (CSA):

    >>> kw = dict(d_model=4096, n_heads=64, d_head=512, q_lora_rank=1024, o_lora_rank=1024,
    ...           o_groups=8)
    >>> compressed_attention_params(**kw)
    106956352
    >>> compressed_attention_params(compress_ratio=128, compress_overlap=1, **kw)
    111216704
    >>> compressed_attention_params(compress_ratio=4, compress_overlap=2, index_heads=64,
    ...                             index_dim=128, **kw)
    126098624
    """
    compressor = sp.Piecewise((0, sp.Eq(compress_overlap, 0)),
                              (compress_overlap * d_head * compress_ratio + d_head, True),
                              evaluate=False)
    indexer = compress_overlap * index_dim * compress_ratio + index_dim
    return (compressed_matmul_params(d_model=d_model, n_heads=n_heads, d_head=d_head,
                                     q_lora_rank=q_lora_rank, o_lora_rank=o_lora_rank,
                                     o_groups=o_groups, compress_overlap=compress_overlap,
                                     index_heads=index_heads, index_dim=index_dim)
            + q_lora_rank + d_head + n_heads + compressor + indexer)


@formula("attn_params")
def dsa_attention_params(*, d_model, n_heads, q_lora_rank, kv_lora_rank, d_nope, d_rope, d_v,
                         index_heads, index_dim):
    r"""Parameters of one latent-attention block with a sparse-attention indexer (DeepSeek
    Sparse Attention: DeepSeek-V3.2, GLM-5): :data:`mla_attention_params` plus the indexer's
    query up-projection from the query latent (r_q x H_I d_I), its key projection (d x d_I, one
    key shared by the index heads), the key's LayerNorm (weight and bias) and the per-head
    weights of the index scores (d x H_I).

    Examples
    --------
    DeepSeek-V3.2 (DeepSeek-V3's attention, 64 index heads of 128): 13,959,424 more per layer.

    >>> dsa_attention_params(d_model=7168, n_heads=128, q_lora_rank=1536, kv_lora_rank=512,
    ...                      d_nope=128, d_rope=64, d_v=128, index_heads=64, index_dim=128)
    201066752
    """
    return (mla_attention_params(d_model=d_model, n_heads=n_heads, q_lora_rank=q_lora_rank,
                                 kv_lora_rank=kv_lora_rank, d_nope=d_nope, d_rope=d_rope,
                                 d_v=d_v)
            + dsa_indexer_params(d_model=d_model, q_lora_rank=q_lora_rank,
                                 index_heads=index_heads, index_dim=index_dim))


def dsa_indexer_params(*, d_model, q_lora_rank, index_heads, index_dim, norms=1):
    """Parameters of a DeepSeek Sparse Attention indexer: its query up-projection from the
    query latent (r_q x H_I d_I), its key projection (d x d_I, one key shared by the index
    heads), the per-head weights of the index scores (d x H_I) and, with ``norms``, the key's
    LayerNorm (weight and bias, 2 d_I). Shared by :data:`dsa_attention_params`,
    :data:`~llm_arithmetic.formulas.stack.dsa_matmul_params` (``norms=0``: matrices only) and
    :data:`~llm_arithmetic.formulas.engine.dsa_copied_params` (vLLM copies it whole).

    >>> dsa_indexer_params(d_model=7168, q_lora_rank=1536, index_heads=64, index_dim=128)
    13959424
    """
    return (q_lora_rank * index_heads * index_dim + d_model * index_dim + norms * 2 * index_dim
            + d_model * index_heads)


def msa_indexer_params(*, d_model, index_heads, index_dim, norms=1):
    """Parameters of a MiniMax Sparse Attention indexer: its query projection (d x H_I d_I),
    its key projection (d x d_I, one index key shared by the index heads) and, with ``norms``,
    a norm of width d_I on each (2 d_I). Shared by :data:`msa_attention_params`,
    :data:`~llm_arithmetic.formulas.stack.msa_matmul_params` (``norms=0``) and
    :data:`~llm_arithmetic.formulas.engine.msa_copied_params` (``index_heads=0``: vLLM splits
    the query heads and copies the key and the norms).

    >>> msa_indexer_params(d_model=6144, index_heads=4, index_dim=128)
    3932416
    """
    return d_model * index_heads * index_dim + d_model * index_dim + norms * 2 * index_dim


@formula("attn_params")
def msa_attention_params(*, d_model, n_heads, n_kv_heads, d_head, index_heads, index_dim,
                         qkv_bias=0, o_bias=0, qk_norm=0, qk_norm_full=0, attn_sinks=0):
    r"""Parameters of one grouped-query attention block with a block-sparse indexer (MiniMax
    Sparse Attention: MiniMax-M3): :data:`attention_params` plus the indexer's query projection
    (d x H_I d_I), its key projection (d x d_I, one index key shared by the index heads) and
    a norm of width d_I on each (applied per index head). No index value or output projection:
    the indexer only selects the blocks the attention reads.

    Examples
    --------
    A MiniMax-M3 sparse layer (d = 6144, 64 query and 4 KV heads of 128, per-head q/k norms,
    4 index heads of 128): 3,932,416 more than its attention.

    >>> msa_attention_params(d_model=6144, n_heads=64, n_kv_heads=4, d_head=128, qk_norm=1,
    ...                      index_heads=4, index_dim=128)
    110887424
    """
    return (attention_params(d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads,
                             d_head=d_head, qkv_bias=qkv_bias, o_bias=o_bias, qk_norm=qk_norm,
                             qk_norm_full=qk_norm_full, attn_sinks=attn_sinks)
            + msa_indexer_params(d_model=d_model, index_heads=index_heads,
                                 index_dim=index_dim))


@formula("ssm_params")
def gated_deltanet_params(*, d_model, n_qk_heads, n_v_heads, d_key, d_v, d_conv):
    r"""Parameters of one Gated DeltaNet mixer (linear attention with a gated delta rule:
    Qwen3-Next, Qwen3.5).

    Input projections from d to the queries and keys (H_qk d_k each), the values and the
    output gate z (H_v d_v each), and two scalars per value head (the write strength beta
    and the decay's step a); a depthwise causal convolution of width k_conv over q, k and v,
    without bias; per value head a decay A and a step bias; a gated RMSNorm of width d_v
    shared by the heads; an output projection H_v d_v x d. No biases (transformers'
    ``Qwen3NextGatedDeltaNet``; Qwen3.5 splits the same input projection into four).

    Examples
    --------
    A linear-attention layer of Qwen3.5-35B-A3B (d = 2048, 16 query/key heads and 32 value
    heads of 128, k_conv = 4):

    >>> gated_deltanet_params(d_model=2048, n_qk_heads=16, n_v_heads=32, d_key=128, d_v=128,
    ...                       d_conv=4)
    33718464
    """
    qkv = 2 * n_qk_heads * d_key + n_v_heads * d_v
    in_proj = d_model * (qkv + n_v_heads * d_v + 2 * n_v_heads)
    return (in_proj + qkv * d_conv + 2 * n_v_heads + d_v
            + n_v_heads * d_v * d_model)


@formula("ssm_params")
def kda_params(*, d_model, n_kda_heads, d_key, d_conv, kda_full_gate=0):
    r"""Parameters of one Kimi delta attention (KDA) mixer: linear attention with a gated delta
    rule whose decay is per key channel (Kimi Linear).

    With H heads of width d_k (keys, queries and values alike, H d_k wide): projections from
    d to the queries, keys and values; a depthwise causal convolution of width k_conv over
    each, without bias; the write strength beta, one per head (d x H); the forget gate, a
    low-rank projection d x d_k then d_k x H d_k with a bias per channel (``dt_bias``) and a
    decay rate per head (``A_log``); the output gate, d x d_k then d_k x H d_k; a gated
    RMSNorm of width d_k shared by the heads; an output projection H d_k x d. No biases
    (transformers 5.24.0 ``KimiLinearDeltaAttention`` and ``KimiLinearForgetGate``). Kimi K3
    (``use_full_rank_gate``) makes the output gate one full-rank projection d x H d_k; its
    forget gate keeps the two factors.

    Examples
    --------
    A KDA layer of Kimi-Linear-48B-A3B (d = 2304, 32 heads of 128, k_conv = 4):

    >>> kda_params(d_model=2304, n_kda_heads=32, d_key=128, d_conv=4)
    39514272

    A KDA layer of Kimi K3 (d = 7168, 96 heads of 128, the full-rank output gate):

    >>> kda_params(d_model=7168, n_kda_heads=96, d_key=128, d_conv=4, kda_full_gate=1)
    443740384
    """
    width = n_kda_heads * d_key
    return (3 * d_model * width + 3 * width * d_conv + d_model * n_kda_heads
            + kda_gate_weights(d_model, d_key, width, kda_full_gate) + width + n_kda_heads
            + d_key + width * d_model)


def kda_gate_weights(d_model, d_key, width, kda_full_gate):
    """Weights of a Kimi delta attention mixer's two gates, all in matrix products: the forget
    gate's low-rank factors d x d_k and d_k x W, and the output gate's (the same factors, or one
    full-rank d x W matrix); W = H d_k. Shared by :data:`kda_params` and
    :data:`~llm_arithmetic.formulas.stack.kda_matmul_params`."""
    low_rank = d_model * d_key + d_key * width
    return low_rank + (1 - kda_full_gate) * low_rank + kda_full_gate * d_model * width


@formula("ssm_params")
def short_conv_params(*, d_model, d_sconv, d_conv, conv_bias=0):
    r"""Parameters of one gated short convolution mixer (LFM2's ``Lfm2ShortConv``,
    transformers 5.24.0): an input projection from d to three vectors of d_sc channels (two
    gates B and C and a value x), a depthwise causal convolution of k_conv taps per channel
    over B x, and an output projection d_sc x d after C multiplies the convolution's output.
    No recurrent matrix. ``conv_bias`` puts a bias on all three (3 d_sc, d_sc and d).

    Examples
    --------
    A convolution block of LFM2-1.2B (d = d_sc = 2048, k_conv = 3, no biases):

    >>> short_conv_params(d_model=2048, d_sconv=2048, d_conv=3)
    16783360
    """
    return (3 * d_model * d_sconv + d_sconv * d_conv + d_sconv * d_model
            + conv_bias * (4 * d_sconv + d_model))


@formula("ssm_params")
def lightning_params(*, d_model, n_la_heads, d_key):
    r"""Parameters of one lightning attention mixer (MiniMax-Text-01, MiniMax-M1; transformers
    5.24.0 ``MiniMaxLightningAttention``): linear attention with a fixed decay per head. One
    projection from d to the queries, keys and values of its H_la heads (d_k each), an output
    gate d x H_la d_k (a sigmoid of the block's input times the attention output), one RMSNorm
    over all H_la d_k output channels, and an output projection H_la d_k x d. No convolution,
    no biases, and no learned decay: the per-head slopes are computed from the head index
    and the layer's depth (buffers, not weights).

    Examples
    --------
    A lightning attention layer of MiniMax-M1 (d = 6144, 64 heads of 128):

    >>> lightning_params(d_model=6144, n_la_heads=64, d_key=128)
    251666432
    """
    width = n_la_heads * d_key
    return 3 * d_model * width + d_model * width + width + width * d_model


@formula("ssm_params")
def mamba1_params(*, d_model, d_inner, d_state, dt_rank, d_conv, conv_bias=1):
    r"""Parameters of one Mamba-1 mixer (the selective state-space layer of Mamba; the remote
    code of Phi-4-mini-flash, ``Phi3Mamba``): an input projection from d to the input x and
    the gate z (d_in each), a depthwise causal convolution of k_conv taps over x (with a bias),
    a projection of x to the step-size rank r_dt and to B and C (d_st each), an up-projection
    of the step size r_dt -> d_in with a bias, a decay A per channel and state element
    (d_in x d_st), a skip D per channel, and an output projection d_in -> d. Unlike Mamba-2,
    B, C and the step size come from x after the convolution, and the decay is a matrix.

    Examples
    --------
    A Mamba layer of Phi-4-mini-flash (d = 2560, d_in = 5120, d_st = 16, r_dt = 160, k = 4):

    >>> mamba1_params(d_model=2560, d_inner=5120, d_state=16, dt_rank=160, d_conv=4)
    41241600
    """
    return (2 * d_model * d_inner + d_inner * d_conv + conv_bias * d_inner
            + d_inner * (dt_rank + 2 * d_state) + dt_rank * d_inner + d_inner
            + d_inner * d_state + d_inner + d_inner * d_model)


@formula("ssm_params")
def gmu_params(*, d_model, d_gmu):
    r"""Parameters of one gated memory unit (SambaY's cross-decoder, Phi-4-mini-flash): a
    projection of the block's input d -> d_gmu whose SiLU multiplies, channel by channel, the
    memory an earlier Mamba layer produced for the same token, then a projection d_gmu -> d.
    No biases, no state.

    Examples
    --------
    >>> gmu_params(d_model=2560, d_gmu=5120)
    26214400
    """
    return 2 * d_model * d_gmu


@formula("embed_params")
def embedding_params(*, n_vocab, d_model, tied=0, n_positions=0, norm_vecs_final=1, head_bias=0):
    """Parameters outside the blocks: the token embedding table, a learned position table if
    any, the final norm, and the output head unless it reuses the embedding table.

    Examples
    --------
    Llama 2 7B (V = 32000, d = 4096, untied head): two 32000 x 4096 tables and a norm.

    >>> embedding_params(n_vocab=32000, d_model=4096)
    262148096
    """
    return (n_vocab * d_model + n_positions * d_model + norm_vecs_final * d_model
            + (1 - tied) * n_vocab * d_model + head_bias * n_vocab)


def _uniform(experts, *, n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_head, d_ff,
             n_mlp_mats, n_experts, tied, n_positions, qkv_bias, o_bias, mlp_bias,
             norm_vecs_layer, norm_vecs_final, head_bias):
    block = (attention_params(d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads,
                              d_head=d_head, qkv_bias=qkv_bias, o_bias=o_bias)
             + experts * mlp_params(d_model=d_model, d_ff=d_ff, n_mlp_mats=n_mlp_mats,
                                    mlp_bias=mlp_bias)
             + router_params(d_model=d_model, n_experts=n_experts)
             + norm_vecs_layer * d_model)
    return n_layers * block + embedding_params(
        n_vocab=n_vocab, d_model=d_model, tied=tied, n_positions=n_positions,
        norm_vecs_final=norm_vecs_final, head_bias=head_bias)


@formula("n_params")
def total_params(*, n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_head, d_ff, n_mlp_mats=3,
                 n_experts=1, n_active_experts=1, tied=0, n_positions=0, qkv_bias=0, o_bias=0,
                 mlp_bias=0, norm_vecs_layer=2, norm_vecs_final=1, head_bias=0):
    """Exact parameter count of a decoder whose blocks are all alike.

    L blocks of attention, E experts (1 for a dense MLP), a router and norms, plus the
    embeddings, the final norm and the output head. ``n_active_experts`` does not enter (it is
    an argument so that every count of a uniform decoder takes the same arguments).

    Examples
    --------
    Llama 2 7B (published: 6,738,415,616):

    >>> total_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32,
    ...              d_head=128, d_ff=11008)
    6738415616
    """
    return _uniform(n_experts, n_vocab=n_vocab, d_model=d_model, n_layers=n_layers,
                    n_heads=n_heads, n_kv_heads=n_kv_heads, d_head=d_head, d_ff=d_ff,
                    n_mlp_mats=n_mlp_mats, n_experts=n_experts, tied=tied,
                    n_positions=n_positions, qkv_bias=qkv_bias, o_bias=o_bias,
                    mlp_bias=mlp_bias, norm_vecs_layer=norm_vecs_layer,
                    norm_vecs_final=norm_vecs_final, head_bias=head_bias)


@formula("params_active")
def active_params(*, n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_head, d_ff, n_mlp_mats=3,
                  n_experts=1, n_active_experts=1, tied=0, n_positions=0, qkv_bias=0, o_bias=0,
                  mlp_bias=0, norm_vecs_layer=2, norm_vecs_final=1, head_bias=0):
    """Parameters one token uses: the total count with k of the E experts of each block.

    Examples
    --------
    Mixtral 8x7B, 2 of 8 experts per token (Mistral AI: "12.9B active"):

    >>> active_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
    ...               d_head=128, d_ff=14336, n_experts=8, n_active_experts=2)
    12879925248
    """
    return _uniform(n_active_experts, n_vocab=n_vocab, d_model=d_model, n_layers=n_layers,
                    n_heads=n_heads, n_kv_heads=n_kv_heads, d_head=d_head, d_ff=d_ff,
                    n_mlp_mats=n_mlp_mats, n_experts=n_experts, tied=tied,
                    n_positions=n_positions, qkv_bias=qkv_bias, o_bias=o_bias,
                    mlp_bias=mlp_bias, norm_vecs_layer=norm_vecs_layer,
                    norm_vecs_final=norm_vecs_final, head_bias=head_bias)


@formula("matmul_params")
def matmul_params(*, n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_head, d_ff, n_mlp_mats=3,
                  n_experts=1, n_active_experts=1, tied=0, n_positions=0, qkv_bias=0, o_bias=0,
                  mlp_bias=0, norm_vecs_layer=2, norm_vecs_final=1, head_bias=0):
    """Weights that take part in matrix products for one token (each costs 2 FLOPs).

    The projections, the k active experts, the router and the output head; not the embedding
    look-up, norms or biases (the flags are arguments so that every count of a uniform decoder
    takes the same arguments).

    Examples
    --------
    Mistral 7B: zeux counts ~7111M parameters in matrix products.

    >>> matmul_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
    ...               d_head=128, d_ff=14336)
    7110393856
    """
    return (n_layers * (attention_params(d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads,
                                         d_head=d_head)
                        + n_active_experts * mlp_params(d_model=d_model, d_ff=d_ff,
                                                        n_mlp_mats=n_mlp_mats)
                        + router_params(d_model=d_model, n_experts=n_experts))
            + n_vocab * d_model)


@formula("params_read")
def decode_read_params(*, n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_head, d_ff,
                       n_mlp_mats=3, n_experts=1, n_active_experts=1, tied=0, n_positions=0,
                       qkv_bias=0, o_bias=0, mlp_bias=0, norm_vecs_layer=2, norm_vecs_final=1,
                       head_bias=0):
    """Parameters one decode step of one token reads from memory.

    The active parameters, less the rows of the input embedding table that are not looked up
    (all but one; none when the output head reuses the table, which then reads it all), and
    likewise for a learned position table.

    Examples
    --------
    Mistral 7B reads everything except 31,999 rows of its untied embedding table:

    >>> decode_read_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32,
    ...                    n_kv_heads=8, d_head=128, d_ff=14336)
    7110664192
    """
    active = active_params(
        n_vocab=n_vocab, d_model=d_model, n_layers=n_layers, n_heads=n_heads,
        n_kv_heads=n_kv_heads, d_head=d_head, d_ff=d_ff, n_mlp_mats=n_mlp_mats,
        n_experts=n_experts, n_active_experts=n_active_experts, tied=tied,
        n_positions=n_positions, qkv_bias=qkv_bias, o_bias=o_bias, mlp_bias=mlp_bias,
        norm_vecs_layer=norm_vecs_layer, norm_vecs_final=norm_vecs_final, head_bias=head_bias)
    return (active - (1 - tied) * (n_vocab - 1) * d_model
            - (n_positions - sp.Min(n_positions, 1, evaluate=False)) * d_model)


@formula("experts_read", exact=False)
def experts_read(*, n_experts, n_active_experts, batch):
    r"""Expected experts of one mixture-of-experts block that a decode step of B tokens reads.

    Each token picks k of the E experts; with uniform, independent routing an expert is missed
    by one token with probability 1 - k/E and by all B tokens with (1 - k/E)^B. Summing the E
    indicator expectations gives the expression. A step reads the shared weights once and this
    many expert MLPs per block. Real routers are not uniform and tokens of one sequence favour
    the same experts, which lowers the count; uniform routing is the upper end. Always computed
    in floating point (an exact power of a fraction would grow without bound with B).

    Examples
    --------
    Mixtral 8x7B (E = 8, k = 2): 2 at batch 1, 3.5 at batch 2, nearly all 8 at batch 16:

    >>> experts_read(n_experts=8, n_active_experts=2, batch=1)
    2.0
    >>> experts_read(n_experts=8, n_active_experts=2, batch=2)
    3.5
    >>> round(experts_read(n_experts=8, n_active_experts=2, batch=16), 3)
    7.92
    """
    return n_experts * (1 - (1 - n_active_experts / n_experts) ** batch)
