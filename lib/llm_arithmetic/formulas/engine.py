r"""What a serving engine allocates: the arithmetic each engine does at start-up to size its
KV cache, beside the physics of :mod:`~llm_arithmetic.formulas.memory`.

The bound asks how many tokens of cache fit beside the weights. An engine answers with its own
rules (:mod:`llm_arithmetic.engine` reads them, with their sources, from
``catalog/data/engines.toml``):

* a share of the chip's memory it may use, minus the weights as loaded and a reserve for
  activations, CUDA graphs and communication buffers: :data:`engine_kv_memory` (vLLM's
  ``gpu_memory_utilization``, SGLang's ``mem_fraction_static``);
* that memory cut into blocks of tokens: :data:`pool_tokens`;
* with tensor parallelism, each chip caches its share of the key/value heads, never less than
  one: :data:`kv_heads_per_chip`; a sparse-attention indexer's query heads, split the same
  way or copied to every chip, make the group compute :data:`index_heads_held` of them;
* the weights are split the same way or copied: a chip holds its share of the key/value heads'
  projections, at least one head's (:data:`kv_heads_held` counts the group's), and whole
  copies of what the engine does not split (:data:`mla_copied_params`,
  :data:`dsa_copied_params`, :data:`msa_copied_params`, :data:`gqa_copied_params`,
  :data:`reuse_copied_params`,
  :data:`router_copied_params`, :data:`mlp_copied_params`, :data:`mamba2_copied_params`, the
  blocks' norms), so that the group holds :data:`held_params`, more than the model's
  parameters;
* llama.cpp instead allocates a fixed number of cells per layer, rounded up:
  :data:`padded_cells`, and for windowed layers only the window and a micro-batch:
  :data:`swa_cells`;
* vLLM keeps a hybrid model's constant state (Mamba-2, Gated DeltaNet, KDA) in pages of the
  same pool: the attention block grows until one attention page holds one layer's state,
  :data:`hybrid_page_tokens`; layers are grouped, :data:`group_layers` and :data:`kv_groups`;
  the pool's blocks give the tokens vLLM prints, :data:`hybrid_tokens`, and the requests it
  holds, :data:`hybrid_concurrency`.
"""
from __future__ import annotations

import sympy as sp

from ..core.registry import formula
from .params import (compressed_attention_params, dsa_indexer_params, msa_indexer_params,
                     router_params)

__all__ = ["kv_heads_per_chip", "index_heads_held", "kv_heads_held", "held_params",
           "gqa_copied_params", "lowq_copied_params", "lowq_copied_matrices", "reuse_copied_params", "mla_copied_params", "dsa_copied_params", "msa_copied_params",
           "mla_copied_matrices", "dsa_copied_matrices", "msa_copied_matrices",
           "compressed_copied_params", "compressed_copied_matrices",
           "compressed_heads_held_params", "latent_copied_matrices",
           "latent_moe_copied_params", "expert_pad_params",
           "router_copied_params", "mlp_copied_params", "mamba2_copied_params",
           "engine_kv_memory", "pool_tokens", "padded_cells", "swa_cells",
           "hybrid_page_tokens", "group_layers", "kv_groups", "hybrid_tokens",
           "hybrid_concurrency"]


@formula("kv_heads_chip")
def kv_heads_per_chip(*, n_kv_heads, tp=1):
    """Key/value heads of one attention layer that one chip caches when N_tp chips split the
    heads: its share, or one head copied to every chip when there are fewer heads than chips
    (vLLM's ``max(1, num_kv_heads // tp)``).

    Examples
    --------
    Qwen3-235B-A22B (4 KV heads) on 4 chips, and Llama 3 8B (8 KV heads) on 16:

    >>> kv_heads_per_chip(n_kv_heads=4, tp=4), kv_heads_per_chip(n_kv_heads=8, tp=16)
    (1, 1)
    """
    return sp.Max(1, n_kv_heads / tp, evaluate=False)


@formula("index_heads_held")
def index_heads_held(*, index_heads_chip, tp=1):
    """Indexer query heads of one sparse-attention layer that a tensor-parallel group of N_tp
    chips computes, every chip's copy counted: N_tp times the heads each chip computes. Where
    every chip computes a share of the heads this is H_I; where there are fewer heads than
    chips, or the engine does not split the indexer, the chips compute copies and the group
    does more work than the model's FLOPs count, which a chip's 1/N_tp share of them misses.

    What each chip computes follows the engine (vLLM):

    * MiniMax Sparse Attention (MiniMax-M3) shards its index query heads as it shards the
      key/value heads, one per chip when there are fewer heads than chips:
      ``num_idx_heads = num_kv_heads = max(1, num_key_value_heads // tp_size)``
      (vllm-project/vllm@902158949803be74ad6941ee4bd4b08741297fa0,
      vllm/models/minimax_m3/nvidia/model.py, ``MiniMaxM3SparseAttention``), so
      H_I^chip = :data:`kv_heads_per_chip` of the index heads, max(1, H_I / N_tp);
    * DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5) replicates its whole indexer on every
      chip ("no tensor parallel, just replicated": ``ReplicatedLinear`` ``wq_b`` of all
      ``index_n_heads``, vllm-project/vllm@002d6073aa034d4f5545d45021b0e56d1f3c3593,
      vllm/model_executor/models/deepseek_v2.py, ``Indexer``), so H_I^chip = H_I.

    The one index key head is computed and cached whole on every chip in both.

    Examples
    --------
    MiniMax-M3 (4 index heads) on 4, 8 and 16 chips: 4, 8 and 16 heads' work, one head a chip;
    DeepSeek-V3.2 (64 index heads, replicated) on 8 chips: 8 x 64 = 512.

    >>> [index_heads_held(index_heads_chip=kv_heads_per_chip(n_kv_heads=4, tp=n), tp=n)
    ...  for n in (4, 8, 16)]
    [4, 8, 16]
    >>> index_heads_held(index_heads_chip=64, tp=8)
    512
    """
    return tp * index_heads_chip


# ---- weights a tensor-parallel group splits or copies ---------------------------------------
# What vLLM splits and what it copies (read at these commits):
# * vllm-project/vllm@002456df36fc7a63ca4463f335a49d05634ab2ab,
#   vllm/model_executor/models/qwen3_moe.py: QKVParallelLinear holds max(1, H_kv // tp) key/value
#   heads a chip ("we replicate the KV heads across multiple tensor parallel GPUs" when there are
#   fewer heads than chips), the router ``gate`` is a ReplicatedLinear, the per-head q_norm and
#   k_norm and the blocks' input_layernorm, post_attention_layernorm and the final norm are
#   RMSNorm vectors held whole; the q and o projections and the experts are split;
# * vllm-project/vllm@002d6073aa034d4f5545d45021b0e56d1f3c3593,
#   vllm/model_executor/models/deepseek_v2.py: DeepseekV2MLAAttention's fused_qkv_a_proj (q_a_proj
#   and kv_a_proj_with_mqa, ``disable_tp=True``; kv_a_proj_with_mqa a ReplicatedLinear without a
#   query latent), q_a_layernorm and kv_a_layernorm are whole on every chip, q_b_proj, kv_b_proj
#   and o_proj split; the DeepSeek Sparse Attention ``Indexer`` (wq_b a ReplicatedLinear,
#   wk_weights_proj ``disable_tp=True``, k_norm a LayerNorm) is whole on every chip ("no tensor
#   parallel, just replicated"); the MoE router ``gate`` is a GateLinear, a ReplicatedLinear
#   (vllm-project/vllm@eee051aa01a0e3d234666e9fb6ac93a9ee03cc46,
#   vllm/model_executor/layers/fused_moe/router/gate_linear.py), with its e_score_correction_bias;
# * vllm-project/vllm@902158949803be74ad6941ee4bd4b08741297fa0,
#   vllm/models/minimax_m3/nvidia/model.py: MiniMax Sparse Attention's index query heads are
#   sharded as the key/value heads (max(1, H_I // tp) a chip), its one index key, index_q_norm
#   and index_k_norm held whole.
# * vllm-project/vllm@9e109c9887e38c51fc16b0da89760c5bd7c293c9,
#   vllm/model_executor/layers/linear.py: RowParallelLinear (o_proj, down_proj, a Mamba-2
#   out_proj) splits its weight along the input but creates its bias of the full output size on
#   every chip ("bias is not parallelized"), loads it whole and adds it on rank 0 only;
#   ColumnParallelLinear and QKVParallelLinear biases are split with their outputs;
# * vllm-project/vllm@a6b6cfaa0cedff84872a0118380c6cfea91b635d,
#   vllm/model_executor/models/gpt_oss.py: the router is a plain nn.Linear (whole, with its
#   bias), o_proj a RowParallelLinear with a bias, the sinks split by heads; without expert
#   parallelism the experts' w13_bias is split with the intermediate width and w2_bias (E x d)
#   loaded whole on every chip, zeroed past rank 0 "to avoid duplication";
# * vllm-project/vllm@028aedf62adee9d2a1e99d4cda7c1ce1c997c8cc,
#   vllm/model_executor/models/olmo2.py (OLMo 2 and 3): q_norm RMSNorm(hidden_size) and k_norm
#   RMSNorm(H_kv head_dim), whole on every chip; _apply_qk_norm all-gathers q and k, normalizes
#   and splits them again (OLMoE, vllm-project/vllm@e9b0f07b696967c077b68fe4a9b83aee564ca6d4
#   vllm/model_executor/models/olmoe.py, holds its two RMSNorm(hidden_size) whole too); MiniMax-M2
#   instead splits its whole-projection norms, MiniMaxText01RMSNormTP holding hidden_size / tp
#   of them (vllm-project/vllm@fb33ec8cf0a73c82af00a2128dee4ad058d16e9b,
#   vllm/model_executor/models/minimax_m2.py);
# * vllm-project/vllm@f1b76c19a8f7fc2f2a8ce2918533933128a3b22a,
#   vllm/model_executor/models/deepseek_v4.py (DeepSeek-V4): DeepseekV4Attention's
#   fused_wqa_wkv (wq_a and wkv, disable_tp=True), q_norm and kv_norm whole, wq_b and wo_a split
#   by heads and groups, wo_b a RowParallelLinear without bias; each block's hyper-connection
#   mixers (hc_attn_fn, hc_ffn_fn, their bases and scales: fp32 nn.Parameters) and the
#   hc_head whole; the router a GateLinear with its fp32 e_score_correction_bias; the compressor
#   (vllm-project/vllm@bbd1024110933d0f97a35c527de2f8b6da23bfa8,
#   vllm/model_executor/layers/deepseek_compressor.py: fused_wkv_wgate disable_tp=True, the
#   fp32 position bias ape, its norm) and the indexer
#   (vllm-project/vllm@b92a330e057db9b8c2895ba862de2a03589adce8,
#   vllm/model_executor/layers/deepseek_v4_attention.py, DeepseekV4Indexer: wq_b and
#   weights_proj ReplicatedLinear, "no tensor parallel, just replicated", and its own
#   compressor) whole; attn_sink is an fp32 parameter of max(H / tp, 64) a chip, "padded to
#   min 64 heads for FlashMLA" (compressed_heads_held_params); the hash-routed blocks' gate
#   holds its tid2eid table (V x k) and the others their e_score_correction_bias, whole;
# * vllm-project/vllm@ed51064c4a697d92fb1182b688c988b4b54dcaeb,
#   vllm/models/kimi_k3/nvidia/model.py (KimiMoE): routed_expert_down_proj and routed_expert_up_proj
#   are ReplicatedLinear ("the full weight lives on every rank"), routed_expert_norm an RMSNorm;
#   vllm-project/vllm@8744bb0924a53c0d16867426b8b17428d41e4002,
#   vllm/model_executor/models/nemotron_h.py (NemotronHMoE): fc1_latent_proj and fc2_latent_proj
#   ReplicatedLinear too; KimiMoE pads the routed experts' width to
#   min_moe_intermediate_per_partition (256 by default) a chip where moe_intermediate_size // tp
#   is less (padded_moe_intermediate_size = 256 tp, w13/w2 zeroed before loading, with or
#   without expert parallelism at this commit): expert_pad_params (Kimi K3's 3,072 at tp 16 is
#   held at 4,096). The rule is KimiMoE's own (config key min_moe_intermediate_per_partition);
#   the fused-MoE kernels' general rounding of the width a chip to a multiple (MXFP4: 64, 128
#   or 256 by backend, vllm/model_executor/layers/fused_moe/oracle/mxfp4.py
#   mxfp4_round_up_hidden_size_and_intermediate_size) depends on the kernel chosen at run time
#   and is not modelled;
# * vllm-project/vllm@bb435dbd5899c5374d29f6383bb49fe8a6a814ef,
#   vllm/model_executor/layers/mamba/mamba_mixer2.py: MambaMixer2 requires tp to divide the
#   heads, and the groups unless there is one group; with one group it extends n_groups to tp
#   (extra_groups_for_head_shards), so in_proj's B and C columns, their biases and conv1d's B and
#   C channels are held once a chip, tp groups in all; A, D, dt_bias and the gated norm are split
#   by heads, out_proj is a RowParallelLinear (its bias whole);
# * vllm-project/vllm@d29a69a5f9eac41579524a0c22bcd68dd15b9ba7,
#   vllm/model_executor/layers/mamba/linear_attn.py (MiniMaxText01LinearAttention, which
#   minimax_text_01.py @ 98370df70c1813f5f9c9c127e8baed660cd09280 builds for lightning layers):
#   asserts tp divides the heads; qkv_proj and output_gate ColumnParallelLinear, out_proj a
#   RowParallelLinear without bias, the norm over all heads' channels MiniMaxText01RMSNormTP
#   (hidden_inner / tp of it a chip), the slopes taken for the chip's heads: nothing copied,
#   and the state (linear_attention_state_shape) of H_la / tp heads a chip;
# * vllm-project/vllm@00f8d4456f506c4885a122c993796a6abc319af8,
#   vllm/model_executor/layers/mamba/mamba_mixer.py (MambaMixer, Mamba-1): in_proj a
#   MergedColumnParallelLinear, conv1d a ColumnParallelLinear (weight and bias split by
#   channel), x_proj a RowParallelLinear without bias (its d_in inputs split, the r_dt + 2 d_st
#   outputs summed over the chips), dt_proj a ColumnParallelLinear (its bias split), A and D
#   split by d_in / tp in their weight loader, out_proj a RowParallelLinear (its bias whole
#   where use_bias); the state (mamba1_state_shape) of d_in / tp channels a chip. Nothing is
#   copied but that bias, which the Mamba-1 record here does not have;
# * vllm-project/vllm@03356f8cb59ba27f3d0ce8866d7516b5e32cff65,
#   vllm/model_executor/models/phi4flash.py (SambaY, Phi-4-mini-flash): Phi4Mamba builds the
#   Mamba-1 layers as MambaMixer does, and the gated memory unit (yoco_cross) as in_proj a
#   MergedColumnParallelLinear of d_gmu outputs and out_proj a RowParallelLinear without bias:
#   split. Differential attention's four lambda vectors (d_head, fp32) and its sub-norm
#   (RMSNorm of 2 d_head) are shared by all heads: plain parameters, whole on every chip
#   (diff_attn in gqa_copied_params, reuse_copied_params); the cross-decoder's query bias is
#   the query projection's, split with the heads. That file itself builds the attention and
#   MLP projections as nn.Linear and A and D at the whole d_in, and loads by load_state_dict,
#   so it cannot load the checkpoint at tp > 1 (the split projections' shapes differ from the
#   file's), and vLLM later dropped the model with its V0 engine (vllm-project/vllm pull
#   request #44963, whose description says so, proposes it again). The rules here are those of vLLM's
#   tensor-parallel layers of the same kinds, not of a released engine for this model.


@formula("kv_heads_held")
def kv_heads_held(*, kv_heads_chip, tp=1):
    """Key/value heads of one attention layer that a tensor-parallel group of N_tp chips holds,
    every chip's copy counted: N_tp times the heads each chip holds. With at least as many heads
    as chips it is H_kv; with fewer (each chip holding one head), N_tp: the key and value
    projections of H_kv heads are held N_tp / H_kv times over (vLLM's ``QKVParallelLinear``).

    Examples
    --------
    Llama 3.1 70B (8 KV heads) on 8 and on 16 chips:

    >>> [kv_heads_held(kv_heads_chip=kv_heads_per_chip(n_kv_heads=8, tp=n), tp=n) for n in (8, 16)]
    [8, 16]
    """
    return tp * kv_heads_chip


@formula("params_held")
def held_params(*, n_params, params_copied, tp=1):
    """Parameters a tensor-parallel group of N_tp chips holds of one part of a layer, every
    chip's copy counted: the part's parameters P, split over the chips, and N_tp - 1 more copies
    of the P_copy of them that every chip holds whole. A chip holds (P - P_copy) / N_tp +
    P_copy, a 1/N_tp share of this. (Key and value heads copied to more chips than there are
    heads count in P through :data:`kv_heads_held`, as the index heads of MiniMax Sparse
    Attention do through :data:`index_heads_held` and a lone Mamba-2 group through the same
    rule as key/value heads.)

    What is copied follows the engine (vLLM; the sources are in this module's comments): the
    latent down-projections of multi-head latent attention and their norms
    (:data:`mla_copied_params`), a DeepSeek Sparse Attention indexer whole
    (:data:`dsa_copied_params`), MiniMax Sparse Attention's index key and norms
    (:data:`msa_copied_params`), query/key norms and an output bias
    (:data:`gqa_copied_params`), a mixture's router and its experts' output biases
    (:data:`router_copied_params`), a dense MLP's output bias (:data:`mlp_copied_params`), a
    Mamba-2 mixer's (:data:`mamba2_copied_params`), and every norm vector of a block
    (:data:`~llm_arithmetic.formulas.stack.norm_params`) and the final norm.

    Examples
    --------
    DeepSeek-V3's attention block (187,107,328 parameters, 15,140,864 of them copied) on 8
    chips: 7 more copies of the latent down-projections.

    >>> held_params(n_params=187107328, params_copied=15140864, tp=8)
    293093376
    >>> held_params(n_params=187107328, params_copied=15140864, tp=1)
    187107328
    """
    return n_params + (tp - 1) * params_copied


@formula("params_copied")
def gqa_copied_params(*, d_model, n_heads, n_kv_heads, d_head, qk_norm=0, qk_norm_full=0,
                      qk_norm_split=0, o_bias=0, diff_attn=0):
    """Parameters of one grouped-query attention block that every chip of a tensor-parallel
    group holds whole: the query and key norms of width d_head shared by the heads (Qwen3,
    Gemma 3: vLLM's ``RMSNorm(head_dim)``); norms over the whole projections, H d_head and
    H_kv d_head wide, which vLLM keeps whole and applies to the gathered queries and keys
    (OLMo 2 and 3, OLMoE) unless it splits them with the heads (MiniMax-M2,
    ``MiniMaxText01RMSNormTP``: delta_qkn,s = 1); and the output projection's bias (a
    ``RowParallelLinear`` bias is not split: every chip holds all d of it and only the first
    adds it); differential attention's four lambda vectors and its sub-norm (6 d_head, shared
    by the heads: plain parameters in vLLM's phi4flash.py). Its key and value heads are split,
    at least one a chip (:data:`kv_heads_held`); its q/k/v biases are split with them.

    Examples
    --------
    Qwen3-235B-A22B (heads of 128, q/k norms); OLMo 2 7B (d = 4096, 32 heads and 32 KV heads
    of 128, whole-projection norms); gpt-oss-120b (d = 2880, an output bias); a differential
    attention block of Phi-4-mini-flash (d = 2560, heads of 64, an output bias):

    >>> gqa_copied_params(d_model=4096, n_heads=64, n_kv_heads=4, d_head=128, qk_norm=1)
    256
    >>> gqa_copied_params(d_model=4096, n_heads=32, n_kv_heads=32, d_head=128, qk_norm_full=1)
    8192
    >>> gqa_copied_params(d_model=2880, n_heads=64, n_kv_heads=8, d_head=64, o_bias=1)
    2880
    >>> gqa_copied_params(d_model=2560, n_heads=40, n_kv_heads=20, d_head=64, o_bias=1,
    ...                   diff_attn=1)
    2944
    """
    return (qk_norm * 2 * d_head + qk_norm_full * (1 - qk_norm_split) * (n_heads + n_kv_heads)
            * d_head + o_bias * d_model + diff_attn * 6 * d_head)


@formula("params_copied")
def lowq_copied_params(*, d_model, q_lora_rank):
    """Parameters of one low-rank-query attention block (Step3's multi-matrix factorization
    attention, :data:`~llm_arithmetic.formulas.params.lowq_attention_params`) that every chip of
    a tensor-parallel group holds whole: the query's down-projection d x r_q and its norm of
    r_q. vLLM's ``Step3TextAttention`` builds the query, key and value down-projections as one
    ``ReplicatedLinear`` and the query norm whole; its single key/value head is copied to every
    chip as any lone head is (:data:`kv_heads_held`), and the up-projection ``wq`` and the
    output projection are split by heads.

    Examples
    --------
    A layer of Step3 (d = 7168, r_q = 2048):

    >>> lowq_copied_params(d_model=7168, q_lora_rank=2048)
    14682112
    """
    return d_model * q_lora_rank + q_lora_rank


@formula("params_copied")
def lowq_copied_matrices(*, d_model, q_lora_rank):
    """Of :data:`lowq_copied_params`, the matrix: the query's down-projection d x r_q.

    Examples
    --------
    >>> lowq_copied_matrices(d_model=7168, q_lora_rank=2048)
    14680064
    """
    return d_model * q_lora_rank


@formula("params_copied")
def reuse_copied_params(*, d_model, n_heads, d_head, qk_norm=0, qk_norm_full=0,
                        qk_norm_split=0, o_bias=0, reuse_k_norm=0, diff_attn=0):
    """Parameters of one attention block that reads an earlier layer's keys and values
    (:data:`~llm_arithmetic.formulas.params.reuse_attention_params`) that every chip of a
    tensor-parallel group holds whole: what :data:`gqa_copied_params` copies of a block with
    its own keys, less what such a block lacks: its query norm (d_head; H d_head over the
    whole projection, unless split), a key norm of its own where it keeps one (Hunyuan's
    cross-layer attention: vLLM's ``HunYuanCrossAttention`` builds ``query_layernorm`` and
    ``key_layernorm`` as ``RMSNorm(head_dim)``), the output projection's bias, and
    differential attention's lambdas and sub-norm (6 d_head: Phi-4-mini-flash's
    cross-decoder, whose query bias is split with the heads). It has no key or value heads to
    split or copy.

    Examples
    --------
    A KV-sharing layer of Gemma 4 E2B (heads of 256, a query norm) and an odd layer of
    Hunyuan-Large (heads of 80, query and key norms):

    >>> reuse_copied_params(d_model=1536, n_heads=8, d_head=256, qk_norm=1)
    256
    >>> reuse_copied_params(d_model=6400, n_heads=80, d_head=80, qk_norm=1, reuse_k_norm=1)
    160
    >>> reuse_copied_params(d_model=2560, n_heads=40, d_head=64, o_bias=1, diff_attn=1)
    2944
    """
    return (qk_norm * d_head + reuse_k_norm * d_head
            + qk_norm_full * (1 - qk_norm_split) * n_heads * d_head + o_bias * d_model
            + diff_attn * 6 * d_head)


@formula("params_copied")
def mla_copied_params(*, d_model, q_lora_rank, kv_lora_rank, d_rope):
    """Parameters of one multi-head latent attention block that every chip of a tensor-parallel
    group holds whole: the down-projections from d to the query latent (r_q) and to the
    key-value latent with the shared rotary key (r_kv + d_rope), and the two latents' norms.
    vLLM builds them as one fused, unsplit matrix (``fused_qkv_a_proj``, ``disable_tp=True``;
    without a query latent only ``kv_a_proj_with_mqa``, a ``ReplicatedLinear``); the up-projections
    and the output projection are split by heads.

    Examples
    --------
    DeepSeek-V3 (d = 7168, r_q = 1536, r_kv = 512, d_rope = 64): 7168 x 2112 + 2048.

    >>> mla_copied_params(d_model=7168, q_lora_rank=1536, kv_lora_rank=512, d_rope=64)
    15140864
    """
    return (mla_copied_matrices(d_model=d_model, q_lora_rank=q_lora_rank,
                                kv_lora_rank=kv_lora_rank, d_rope=d_rope)
            + q_lora_rank + kv_lora_rank)


@formula("params_copied")
def mla_copied_matrices(*, d_model, q_lora_rank, kv_lora_rank, d_rope):
    """The matrices of :data:`mla_copied_params`, without the latents' norms: the
    down-projections q_a_proj (d x r_q) and kv_a_proj_with_mqa (d x (r_kv + d_rope)), stored
    in the checkpoint's format (its norms stay 16-bit).

    >>> mla_copied_matrices(d_model=7168, q_lora_rank=1536, kv_lora_rank=512, d_rope=64)
    15138816
    """
    return d_model * (q_lora_rank + kv_lora_rank + d_rope)


@formula("params_copied")
def dsa_copied_params(*, d_model, q_lora_rank, kv_lora_rank, d_rope, index_heads, index_dim):
    """Parameters of one DeepSeek Sparse Attention block (DeepSeek-V3.2, GLM-5) that every chip
    of a tensor-parallel group holds whole: the latent down-projections and norms of
    :data:`mla_copied_params`, and the whole indexer, which vLLM replicates: its query
    up-projection (r_q x H_I d_I), key projection (d x d_I), the key's LayerNorm and the heads'
    weights (d x H_I).

    Examples
    --------
    DeepSeek-V3.2 (DeepSeek-V3's latents, 64 index heads of 128): the indexer adds 13,959,424.

    >>> dsa_copied_params(d_model=7168, q_lora_rank=1536, kv_lora_rank=512, d_rope=64,
    ...                   index_heads=64, index_dim=128)
    29100288
    """
    return (mla_copied_params(d_model=d_model, q_lora_rank=q_lora_rank,
                              kv_lora_rank=kv_lora_rank, d_rope=d_rope)
            + dsa_indexer_params(d_model=d_model, q_lora_rank=q_lora_rank,
                                 index_heads=index_heads, index_dim=index_dim))


@formula("params_copied")
def dsa_copied_matrices(*, d_model, q_lora_rank, kv_lora_rank, d_rope, index_heads, index_dim):
    """The matrices of :data:`dsa_copied_params`, without the norms: the latent
    down-projections (:data:`mla_copied_matrices`) and the indexer's wq_b, wk and weights_proj.

    >>> dsa_copied_matrices(d_model=7168, q_lora_rank=1536, kv_lora_rank=512, d_rope=64,
    ...                     index_heads=64, index_dim=128)
    29097984
    """
    return (mla_copied_matrices(d_model=d_model, q_lora_rank=q_lora_rank,
                                kv_lora_rank=kv_lora_rank, d_rope=d_rope)
            + dsa_indexer_params(d_model=d_model, q_lora_rank=q_lora_rank,
                                 index_heads=index_heads, index_dim=index_dim, norms=0))


@formula("params_copied")
def msa_copied_params(*, d_model, n_heads, n_kv_heads, d_head, index_dim, qk_norm=0,
                      qk_norm_full=0, qk_norm_split=0, o_bias=0):
    """Parameters of one MiniMax Sparse Attention block (MiniMax-M3) that every chip of a
    tensor-parallel group holds whole: what a grouped-query block copies
    (:data:`gqa_copied_params`: its per-head query and key norms), the indexer's one key head
    (d x d_I) and its two norms of width d_I. Its index query heads are split as the
    key/value heads are, at least one a chip (:data:`index_heads_held`).

    Examples
    --------
    MiniMax-M3 (d = 6144, heads of 128, index heads of 128): 256 + 786,432 + 256.

    >>> msa_copied_params(d_model=6144, n_heads=64, n_kv_heads=4, d_head=128, index_dim=128,
    ...                   qk_norm=1)
    786944
    """
    return (gqa_copied_params(d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads,
                              d_head=d_head, qk_norm=qk_norm, qk_norm_full=qk_norm_full,
                              qk_norm_split=qk_norm_split, o_bias=o_bias)
            + msa_indexer_params(d_model=d_model, index_heads=0, index_dim=index_dim))


@formula("params_copied")
def msa_copied_matrices(*, d_model, index_dim):
    """The matrix of :data:`msa_copied_params`: the indexer's one key projection (d x d_I);
    its norms and the q/k norms are 16-bit vectors.

    >>> msa_copied_matrices(d_model=6144, index_dim=128)
    786432
    """
    return msa_indexer_params(d_model=d_model, index_heads=0, index_dim=index_dim, norms=0)


@formula("params_copied")
def compressed_copied_matrices(*, d_model, d_head, q_lora_rank, compress_overlap=0, index_heads=0,
                               index_dim=0):
    """The matrices of one compressed-attention block (DeepSeek-V4) that every chip of a
    tensor-parallel group holds whole, as vLLM places them: the query's down-projection and the
    one key-value head (``fused_wqa_wkv``, d x (r_q + d_head), ``disable_tp=True``), a
    compressor's key-value and gate projections (``fused_wkv_wgate``, d x 2 c_o d_head,
    ``disable_tp=True``), and an indexer whole (``DeepseekV4Indexer``: wq_b r_q x H_I d_I and
    weights_proj d x H_I, ``ReplicatedLinear``; its compressor d x 2 c_o d_I). The query
    up-projection and the grouped output projections are split.

    Examples
    --------
    DeepSeek-V4-Flash's overlapping-window layer (d = 4096, heads of 512, r_q = 1024, c_o = 2,
    64 index heads of 128):

    >>> compressed_copied_matrices(d_model=4096, d_head=512, q_lora_rank=1024,
    ...                            compress_overlap=2, index_heads=64, index_dim=128)
    25427968
    """
    return (d_model * (q_lora_rank + d_head) + 2 * compress_overlap * d_head * d_model
            + 2 * compress_overlap * index_dim * d_model + q_lora_rank * index_heads * index_dim
            + d_model * index_heads)


@formula("params_copied")
def compressed_copied_params(*, d_model, d_head, q_lora_rank, compress_ratio=0,
                             compress_overlap=0, index_heads=0, index_dim=0):
    """Parameters of one compressed-attention block (DeepSeek-V4) that every chip of a
    tensor-parallel group holds whole: the matrices of :data:`compressed_copied_matrices`, the
    query latent's and the key-value head's norms (r_q, d_head), and a compressor's position
    bias (m_c x c_o d_head, fp32) and norm (d_head), an indexer's the same at d_I. The attention
    sinks are split with the heads, padded to 64 a chip (:data:`compressed_heads_held_params`).

    Examples
    --------
    >>> compressed_copied_params(d_model=4096, d_head=512, q_lora_rank=1024, compress_ratio=4,
    ...                          compress_overlap=2, index_heads=64, index_dim=128)
    25435264
    """
    compressor = sp.Piecewise((0, sp.Eq(compress_overlap, 0)),
                              (compress_overlap * d_head * compress_ratio + d_head, True),
                              evaluate=False)
    return (compressed_copied_matrices(d_model=d_model, d_head=d_head, q_lora_rank=q_lora_rank,
                                       compress_overlap=compress_overlap,
                                       index_heads=index_heads, index_dim=index_dim)
            + q_lora_rank + d_head + compressor
            + compress_overlap * index_dim * compress_ratio + index_dim)


@formula("attn_params")
def compressed_heads_held_params(*, d_model, n_heads, d_head, q_lora_rank, o_lora_rank, o_groups,
                                 compress_ratio=0, compress_overlap=0, index_heads=0,
                                 index_dim=0, tp=1):
    """Parameters of one compressed-attention block (DeepSeek-V4) that a tensor-parallel group
    of N_tp chips holds before the copies of what every chip holds whole, every chip's share
    counted: the block's parameters, with its attention sinks as vLLM allocates them, one fp32
    logit a head padded to at least 64 a chip for FlashMLA (``attn_sink`` of
    max(H / N_tp, 64), the padding -inf), N_tp max(H / N_tp, 64) in the group where the model
    has H.

    Examples
    --------
    DeepSeek-V4-Flash's window-only layer (64 heads) on 1 and 8 chips: 8 x 64 sinks held where
    the model has 64; DeepSeek-V4-Pro's (128 heads) on 2 chips: 64 a chip, none padded.

    >>> kw = dict(d_model=4096, n_heads=64, d_head=512, q_lora_rank=1024, o_lora_rank=1024,
    ...           o_groups=8)
    >>> compressed_heads_held_params(**kw), compressed_heads_held_params(tp=8, **kw) - 106956352
    (106956352, 448)
    >>> kw = dict(d_model=7168, n_heads=128, d_head=512, q_lora_rank=1536, o_lora_rank=1024,
    ...           o_groups=16)
    >>> compressed_heads_held_params(tp=2, **kw) == compressed_heads_held_params(**kw)
    True
    """
    return (compressed_attention_params(d_model=d_model, n_heads=n_heads, d_head=d_head,
                                        q_lora_rank=q_lora_rank, o_lora_rank=o_lora_rank,
                                        o_groups=o_groups, compress_ratio=compress_ratio,
                                        compress_overlap=compress_overlap,
                                        index_heads=index_heads, index_dim=index_dim)
            - n_heads + tp * sp.Max(n_heads / tp, 64, evaluate=False))


@formula("params_copied")
def router_copied_params(*, d_model, n_experts, n_shared_experts=0, router_bias=0, shared_gate=0,
                         mlp_bias=0):
    """Parameters of one mixture-of-experts block that every chip of a tensor-parallel group
    holds whole: the router (vLLM's ``gate``, a ``ReplicatedLinear``; gpt-oss's ``router``, a
    plain ``nn.Linear``) with its bias or score-correction bias, a shared expert's gate
    (``shared_expert_gate``, one unsplit d x 1 projection), and with biased MLPs the output
    biases of every routed expert (vLLM loads gpt-oss's ``w2_bias``, E x d, whole on every chip
    and zeroes it past the first) and of every shared expert (a ``RowParallelLinear`` bias).
    The experts' matrices and their other biases are split.

    Examples
    --------
    Qwen3-235B-A22B (d = 4096, 128 experts), DeepSeek-V3 (d = 7168, 256 experts and their
    score-correction bias) and gpt-oss-120b (d = 2880, 128 experts, a router bias, biased
    experts: 128 x 2880 + 128 and 128 x 2880):

    >>> router_copied_params(d_model=4096, n_experts=128)
    524288
    >>> router_copied_params(d_model=7168, n_experts=256, router_bias=1)
    1835264
    >>> router_copied_params(d_model=2880, n_experts=128, router_bias=1, mlp_bias=1)
    737408
    """
    return (router_params(d_model=d_model, n_experts=n_experts, router_bias=router_bias)
            + shared_gate * d_model + mlp_bias * (n_experts + n_shared_experts) * d_model)


@formula("params_copied")
def latent_copied_matrices(*, d_model, d_latent):
    """The latent projections of one latent mixture of experts (Kimi K3, Nemotron 3 Super) that
    every chip of a tensor-parallel group holds whole: down to the experts' width (d x d_lat)
    and back up (d_lat x d). vLLM builds both as ``ReplicatedLinear`` (Kimi K3's
    ``routed_expert_down_proj``/``_up_proj``, Nemotron-H's ``fc1_latent_proj``/``fc2_latent_proj``).

    >>> latent_copied_matrices(d_model=4096, d_latent=1024)
    8388608
    """
    return 2 * d_model * d_latent


@formula("params_copied")
def latent_moe_copied_params(*, d_model, d_latent, n_experts, n_shared_experts=0, router_bias=0,
                             shared_gate=0, mlp_bias=0, latent_norm=0):
    """Parameters of one latent mixture of experts that every chip of a tensor-parallel group
    holds whole: what :data:`router_copied_params` copies, the latent projections
    (:data:`latent_copied_matrices`) and their norm (d_lat, Kimi K3's ``routed_expert_norm``).
    The experts are split.

    Examples
    --------
    Nemotron 3 Super (d = 4096, 512 experts with a correction bias, latent 1024):

    >>> latent_moe_copied_params(d_model=4096, d_latent=1024, n_experts=512, router_bias=1)
    10486272
    """
    return (router_copied_params(d_model=d_model, n_experts=n_experts,
                                 n_shared_experts=n_shared_experts, router_bias=router_bias,
                                 shared_gate=shared_gate, mlp_bias=mlp_bias)
            + latent_copied_matrices(d_model=d_model, d_latent=d_latent)
            + latent_norm * d_latent)


@formula("params_copied")
def mlp_copied_params(*, d_model, mlp_bias=0):
    """Parameters of one dense MLP that every chip of a tensor-parallel group holds whole: the
    output projection's bias, d of them, where the MLP has biases (the down projection is a
    ``RowParallelLinear``, whose bias is not split; Phi-2, GPT-2, ERNIE 4.5 with
    ``use_bias``). Its matrices and input biases are split.

    Examples
    --------
    Phi-2 (d = 2560, biased MLPs):

    >>> mlp_copied_params(d_model=2560, mlp_bias=1)
    2560
    """
    return mlp_bias * d_model


@formula("params_copied")
def mamba2_copied_params(*, d_model, ssm_bias=0):
    """Parameters of one Mamba-2 mixer that every chip of a tensor-parallel group holds whole
    beyond its share: the output projection's bias (a ``RowParallelLinear``) where the mixer has
    biases. Its B and C groups are split, but where there are fewer groups than chips (one
    group, the only such case vLLM accepts) each chip holds a copy of it
    (``extra_groups_for_head_shards``): the group holds N_tp groups, counted as
    :data:`kv_heads_held` counts key/value heads.

    Examples
    --------
    >>> mamba2_copied_params(d_model=1024, ssm_bias=1), mamba2_copied_params(d_model=1024)
    (1024, 0)
    """
    return ssm_bias * d_model


@formula("kv_budget")
def engine_kv_memory(*, capacity, mem_fraction, weight_bytes, overhead=0):
    """Memory an engine gives its KV-cache pool on one chip: the share f of the chip's memory
    it may use, minus the weights as loaded on that chip and the engine's reserve C_0 (the
    activation peak of its profiling run, CUDA graphs, communication buffers and the CUDA
    context, as the engine measures them).

    vLLM's ``gpu_memory_utilization`` and SGLang's ``mem_fraction_static`` are both f: SGLang
    takes the memory free after loading the weights and keeps (1 - f) C of it back, which is
    the same difference.

    Examples
    --------
    vLLM 0.6 on an RTX 3090 (23.58 GiB, f = 0.90) with Llama 3.1 8B, in GiB: a profiled peak of
    17.06 (weights included) and 0.35 outside PyTorch leave 21.222 - 17.06 - 0.35 = 3.812 (vLLM
    issue 10517 prints 3.81):

    >>> round(engine_kv_memory(capacity=23.58, mem_fraction=0.9, weight_bytes=17.06,
    ...                        overhead=0.35), 3)
    3.812
    """
    return capacity * mem_fraction - weight_bytes - overhead


@formula("kv_tokens")
def pool_tokens(*, kv_budget, kv_cache_bytes_per_token, page_tokens=16):
    """Tokens an engine's paged cache holds: its memory cut into whole blocks of n_page tokens,
    each block holding every layer's keys and values for those tokens (none when the memory is
    negative).

    Examples
    --------
    vLLM with Qwen3-1.7B (114,688 B a token, blocks of 16) and the 18.78 GiB its log prints
    (20,164,871,454 B): 10,988 whole blocks, 175,808 tokens; the engine printed 175,856 (three
    blocks more) from its unrounded memory:

    >>> pool_tokens(kv_budget=20_164_871_454, kv_cache_bytes_per_token=114688, page_tokens=16)
    175808
    """
    blocks = sp.floor(kv_budget / (page_tokens * kv_cache_bytes_per_token), evaluate=False)
    return sp.Max(0, blocks, evaluate=False) * page_tokens


@formula("ctx_cells")
def padded_cells(*, context, cell_pad=256):
    """Cells llama.cpp allocates per layer for a context of S tokens (``--ctx-size``): S rounded
    up to a multiple of n_pad.

    Examples
    --------
    >>> padded_cells(context=4096), padded_cells(context=5000)
    (4096, 5120)
    """
    return sp.ceiling(context / cell_pad) * cell_pad


@formula("ctx_cells")
def swa_cells(*, ctx_cells, window, ubatch=512, n_seqs=1, cell_pad=256, swa_full=0):
    """Cells llama.cpp allocates per sliding-window layer: the window of each sequence and one
    micro-batch, never more than the full layers' cells, rounded up to n_pad; with
    ``--swa-full``, as many as the full layers (``llama-kv-cache-iswa.cpp``).

    Examples
    --------
    gpt-oss-20b (window 128) at 131,072 cells with micro-batches of 512: 640 rounded up to
    768; a 1,024-token window with four sequences: 4,608.

    >>> swa_cells(ctx_cells=131072, window=128), swa_cells(ctx_cells=8192, window=1024, n_seqs=4)
    (768, 4608)
    >>> swa_cells(ctx_cells=131072, window=128, swa_full=1)
    131072
    """
    windowed = sp.ceiling(sp.Min(ctx_cells, window * n_seqs + ubatch, evaluate=False) / cell_pad) \
        * cell_pad
    return sp.Piecewise((ctx_cells, sp.Gt(swa_full, 0)), (windowed, True), evaluate=False)


@formula("page_tokens")
def hybrid_page_tokens(*, state_bytes, kv_layer_bytes, page_tokens=16, page_align=16):
    """Attention block size vLLM takes for a hybrid model: the smallest multiple of n_align
    tokens whose page (the block's keys and values of one attention layer) holds one layer's
    state M_st, unless the block size asked for is larger; the state's page is then padded to
    the attention page (``HybridAttentionMambaModelConfig``: 'Setting attention block size to
    N tokens', 'Padding mamba page size by X%').

    Examples
    --------
    Qwen3.5-35B-A3B at 16 bits (2 KV heads of 256: 2,048 B a token; a Gated DeltaNet state of
    2,146,304 B with its matrix at 32 bits): 1,056 tokens, as vLLM 0.18 logs:

    >>> hybrid_page_tokens(state_bytes=2146304, kv_layer_bytes=2048)
    1056
    """
    aligned = page_align * sp.ceiling(state_bytes / (page_align * kv_layer_bytes))
    return sp.Max(page_tokens, aligned, evaluate=False)


@formula("group_layers")
def group_layers(*, n_attn_layers, n_state_layers):
    """Layers of one KV cache group when vLLM splits a hybrid's L_attn attention and L_st
    state layers into groups of equal size: the smaller count, or the larger when it is under
    5/4 of the smaller (``_get_kv_cache_groups_uniform_page_size``).

    Examples
    --------
    Qwen3.5-35B-A3B (10 attention, 30 Gated DeltaNet layers) and a 13-to-12 split:

    >>> group_layers(n_attn_layers=10, n_state_layers=30), group_layers(n_attn_layers=13,
    ...                                                                 n_state_layers=12)
    (10, 13)
    """
    big = sp.Max(n_attn_layers, n_state_layers, evaluate=False)
    small = sp.Min(n_attn_layers, n_state_layers, evaluate=False)
    return sp.Piecewise((big, sp.Lt(big, sp.Rational(5, 4) * small)), (small, True),
                        evaluate=False)


@formula("kv_groups")
def kv_groups(*, n_layers, group_layers):
    """KV cache groups L layers of one kind fill, n_grp layers to a group (the last one
    padded).

    Examples
    --------
    >>> kv_groups(n_layers=30, group_layers=10), kv_groups(n_layers=12, group_layers=13)
    (3, 1)
    """
    return sp.ceiling(n_layers / group_layers)


@formula("kv_tokens")
def hybrid_tokens(*, pool_blocks, kv_groups, page_tokens):
    """Tokens vLLM prints as its 'GPU KV cache size' for a pool of N_blk blocks shared by G
    groups: the blocks split evenly over the groups, times the block size
    (``_report_kv_cache_config`` up to 0.19; for a hybrid it counts the state groups' share
    too, vLLM issue 40691).

    Examples
    --------
    Qwen3.5-35B-A3B's 2,766 blocks of 1,056 tokens over 4 groups (vLLM 0.18 prints 729,696):

    >>> hybrid_tokens(pool_blocks=2766, kv_groups=4, page_tokens=1056)
    729696
    """
    return sp.floor(pool_blocks / kv_groups, evaluate=False) * page_tokens


@formula("max_concurrency")
def hybrid_concurrency(*, pool_blocks, attn_groups, state_groups, max_model_len, page_tokens,
                       state_blocks=1):
    """Requests of S_max tokens a hybrid's pool of N_blk blocks holds at once, as vLLM prints
    it ('Maximum concurrency'): each request takes ceil(S_max / n_page) blocks of every
    attention group and n_blk^st blocks of every state group (``--mamba-cache-mode`` none: 1,
    align: 2).

    Examples
    --------
    Qwen3.5-35B-A3B's 2,766 blocks, 1 attention and 3 state groups, 262,144-token requests,
    align mode: 249 + 6 blocks a request, 10.85 requests (vLLM 0.18 prints 10.85x):

    >>> round(hybrid_concurrency(pool_blocks=2766, attn_groups=1, state_groups=3,
    ...                          max_model_len=262144, page_tokens=1056, state_blocks=2), 2)
    10.85
    """
    return pool_blocks / (attn_groups * sp.ceiling(max_model_len / page_tokens)
                          + state_groups * state_blocks)


@formula("params_held")
def expert_pad_params(*, d_latent, d_ff, n_experts, tp=1, expert_pad_min=0, n_mlp_mats=3):
    """Zero parameters a tensor-parallel group of N_tp chips holds (or a step reads, or
    multiplies) in E routed experts of a latent mixture of experts whose engine pads every
    expert's width a chip to at least w_pad: where d_ff / N_tp < w_pad (floor(d_ff / N_tp) < w_pad
    for integers), each expert is held at w_pad N_tp instead of d_ff, its m matrices (d_lat wide) each w_pad N_tp - d_ff
    columns wider, the padding zeros (vLLM's ``KimiMoE``: ``padded_moe_intermediate_size``,
    :mod:`formulas.engine` cites it). With expert parallelism each chip holds whole experts of
    the same padded width, so the count is the same. Zero at N_tp = 1.

    Examples
    --------
    Kimi K3 (d_lat = 3,584, 896 gated experts of 3,072, w_pad = 256): 192 a chip at tp 16,
    padded to 256, 1,024 zero columns an expert and matrix; 384 a chip at tp 8, none:

    >>> expert_pad_params(d_latent=3584, d_ff=3072, n_experts=896, tp=16, expert_pad_min=256)
    9865003008
    >>> expert_pad_params(d_latent=3584, d_ff=3072, n_experts=896, tp=8, expert_pad_min=256)
    0
    """
    width = sp.Piecewise((0, tp < 2),
                         (sp.Max(expert_pad_min * tp - d_ff, 0, evaluate=False), True))
    return n_experts * n_mlp_mats * d_latent * width
