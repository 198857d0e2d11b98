"""What every stack-level quantity sums, as data: which registered formula applies to each part
of a layer, and how the part's fields bind to the formula's arguments.

A layer (a run of ``count`` identical blocks) has up to four parts: ``attention``, ``mixer`` (a
constant-state mixer: Mamba-2 or Mamba-1, the linear attention of Gated DeltaNet, Kimi delta
attention or lightning attention, a gated short convolution, or SambaY's gated memory unit,
which has no state), ``mlp`` (dense or a
mixture of experts) and ``norms``. Each part is a record of plain fields
(:mod:`llm_arithmetic.catalog.model`, or the same record as JSON in the book's pages). Three
tables say everything else:

* :data:`FORMS` -- which form a part takes (``"mla"``, ``"gated"`` or ``"attention"``;
  ``"gdn"``, ``"kda"``, ``"lightning"``, ``"shortconv"``, ``"mamba1"``, ``"gmu"`` or ``"mamba2"``; ``"moe"``, ``"shared"`` or ``"mlp"``, ...) and over which span an
  attention layer looks (``"full"``, ``"sliding"``, ``"chunked"``), and which all-reduce a part
  issues under tensor parallelism besides its output projection's (``"reduce"``: Mamba-1's
  ``"xproj"``, a norm's variance, a latent MoE's routed sum, or ``"none"``), each the first
  rule whose condition holds;
* :data:`FIELDS` -- the part's numbers under their glossary names (a flag from a boolean, a
  renamed field, a default);
* :data:`TERMS` -- per quantity, the registered formula of each form, with the bindings of its
  arguments: a glossary name (the part's field, an input of the sum, a value of the plan), a
  number, or ``"@term"``, another term of the same part.

One fold (:func:`llm_arithmetic.plan.interpreter.fold`, and its twin in the book's JavaScript)
evaluates a term for every part of every layer and sums it times the layer's count. A part
whose form has no case for the term adds nothing.

>>> TERMS["kv_layer"]["cases"]["mla"][0]
'mla_kv_layer_bytes'
"""
from __future__ import annotations

from typing import Any

__all__ = ["PARTS", "FORMS", "FIELDS", "TERMS", "UNCOUNTED"]

#: The parts of a layer, in the order a layer is described.
PARTS = ("attention", "mixer", "mlp", "norms")

#: Conditions: ``True``, ``["gt", field, n]`` (field > n), ``["set", field]`` (field given).
FORMS: dict[str, dict[str, list[list[Any]]]] = {
    "form": {
        "attention": [["compressed", ["gt", "o_groups", 0]], ["msa", ["gt", "index_block", 0]],
                      ["dsa", ["gt", "index_topk", 0]], ["mla", ["gt", "kv_lora_rank", 0]],
                      ["lowq", ["gt", "q_lora_rank", 0]],
                      ["gated", ["gt", "gate", 0]], ["reuse", ["set", "kv_shared"]],
                      ["split", ["gt", "d_v", 0]], ["tied", ["set", "kv_tied"]],
                      ["attention", True]],
        "mixer": [["gdn", ["gt", "n_v_heads", 0]], ["kda", ["gt", "kda_heads", 0]],
                  ["lightning", ["gt", "la_heads", 0]], ["shortconv", ["gt", "channels", 0]],
                  ["mamba1", ["gt", "dt_rank", 0]], ["gmu", ["gt", "memory_width", 0]],
                  ["mamba2", True]],
        "mlp": [["latent", ["gt", "latent", 0]], ["moe", ["gt", "n_experts", 1]], ["shared", ["gt", "n_shared", 0]],
                ["mlp", True]],
        "norms": [["hyper", ["gt", "hc", 0]], ["norms", True]],
    },
    # the bits a constant-state mixer's recurrent matrix is kept in: the dtype the checkpoint's
    # config.json names (``ssm_bits``: Nemotron-H's mamba_ssm_cache_dtype, Qwen3.5's
    # mamba_ssm_dtype); a Kimi delta attention layer's in float32, whatever is asked (vLLM's
    # MambaStateDtypeCalculator.kda_state_dtype, vllm/model_executor/layers/mamba/
    # mamba_utils.py @ 02d710837549a368073552333f66d714477415d2; llama.cpp keeps every
    # recurrent state in f32); else the state's own bits (those of the cache)
    "kept": {
        "mixer": [["checkpoint", ["set", "ssm_bits"]], ["fp32", ["gt", "kda_heads", 0]],
                  ["state", True]],
    },
    # which all-reduce a part issues under tensor parallelism besides its output projection's
    # (vLLM's layers, read by hand; llm_arithmetic.formulas.parallel.layer_allreduce_time):
    # Mamba-1's x_proj is split by rows (vllm/model_executor/layers/mamba/mamba_mixer.py @
    # 00f8d4456f506c4885a122c993796a6abc319af8); lightning attention's RMSNorm over the heads,
    # split across the chips, all-reduces each token's float32 variance
    # (MiniMaxText01RMSNormTP, vllm/model_executor/layers/mamba/linear_attn.py @
    # d29a69a5f9eac41579524a0c22bcd68dd15b9ba7); MiniMax-M2's whole-projection q and k norms,
    # split with the heads, all-reduce their two variances at once (forward_qk, same file;
    # OLMo 2's, held whole, all-gather q and k instead: not counted); Mamba-2's gated norm
    # all-reduces a sum of squares per token where it has one group (Mixer2RMSNormGated,
    # vllm/model_executor/layers/mamba/mamba_mixer2.py @
    # 004d4e4cf6dbbc83ba15f889d76c213c94c7207b; with several groups each chip normalizes its
    # own); a latent MoE all-reduces its routed sum in the latent (moe_runner.py,
    # formulas.parallel.latent_moe_allreduces)
    "reduce": {
        "attention": [["qk_norm", ["set", "qk_norm_split"]], ["none", True]],
        "mixer": [["xproj", ["gt", "dt_rank", 0]], ["head_norm", ["gt", "la_heads", 0]],
                  ["grouped", ["gt", "n_groups", 1]], ["group_norm", ["set", "norm"]],
                  ["none", True]],
        "mlp": [["latent", ["gt", "latent", 0]], ["none", True]],
        # Gemma 3n's LAuReL residual: Gemma3nLaurelBlock's linear_right is a RowParallelLinear
        # to the hidden state (vllm/model_executor/models/gemma3n.py @
        # 034f08e65e596139d8da7fe53c8a892209b64ba3)
        "norms": [["laurel", ["gt", "laurel", 0]], ["none", True]],
    },
    "span": {
        "attention": [["compressed", ["gt", "o_groups", 0]],
                      ["sliding", ["set", "window"]], ["chunked", ["set", "chunk"]],
                      ["topk", ["gt", "index_topk", 0]], ["full", True]],
    },
}

#: A part's numbers under glossary names: a field's name, ``["flag", field]`` (1 or 0),
#: ``["is", field, value]`` (1 when equal), ``["or", field, default]`` (the default when the
#: field is 0 or missing), ``["unless", field, flag]`` (the field, or 0 when the flag is set:
#: a sparse-attention layer that reuses an earlier layer's top-k selection has no indexer).
FIELDS: dict[str, dict[str, Any]] = {
    "attention": {
        "n_heads": "n_heads", "n_kv_heads": "n_kv_heads", "d_head": "d_head",
        "window": "window", "chunk": "chunk", "qkv_bias": ["flag", "qkv_bias"],
        "o_bias": ["flag", "o_bias"], "d_gate": "gate",
        "qk_norm": ["is", "qk_norm", "head"],
        "qk_norm_full": ["is", "qk_norm", "full"], "qk_norm_split": ["flag", "qk_norm_split"],
        "attn_sinks": ["flag", "sinks"],
        "kv_lora_rank": "kv_lora_rank", "q_lora_rank": "q_lora_rank", "d_nope": "d_nope",
        "d_rope": "d_rope", "d_v": "d_v",
        "index_heads": ["unless", "index_heads", "index_shared"],
        "index_dim": ["unless", "index_dim", "index_shared"], "index_topk": "index_topk", "o_lora_rank": "o_lora_rank",
        "o_groups": "o_groups", "compress_ratio": "compress", "compress_overlap": "overlap",
        "reuse_k_norm": ["flag", "reuse_k_norm"], "diff_attn": ["flag", "diff"],
    },
    "mixer": {
        "d_inner": "d_inner", "d_state": "d_state", "n_groups": "n_groups",
        "n_ssm_heads": "n_heads", "d_conv": "d_conv", "conv_bias": ["flag", "conv_bias"],
        "ssm_bias": ["flag", "bias"], "ssm_norm": ["flag", "norm"], "n_qk_heads": "n_qk_heads", "n_v_heads": "n_v_heads",
        "d_key": "d_k", "d_v": "d_v", "n_kda_heads": "kda_heads",
        "kda_full_gate": ["flag", "full_gate"], "bits_ssm_checkpoint": "ssm_bits",
        "d_sconv": "channels", "n_la_heads": "la_heads", "dt_rank": "dt_rank",
        "d_gmu": "memory_width",
    },
    "mlp": {
        "d_ff": "d_ff", "n_mlp_mats": "n_mats", "mlp_bias": ["flag", "bias"],
        "n_experts": "n_experts", "n_active_experts": "top_k", "n_shared_experts": "n_shared",
        "d_shared": ["or", "d_shared", 1], "router_bias": ["flag", "router_bias"],
        "shared_gate": ["flag", "shared_gate"], "d_latent": "latent",
        "latent_norm": ["flag", "latent_norm"], "expert_pad_min": "pad_min",
    },
    "norms": {"norm_vecs_layer": "norms", "hc_streams": "hc"},
}

_NO_EXTRAS = {"qkv_bias": 0, "o_bias": 0, "qk_norm": 0, "qk_norm_full": 0, "attn_sinks": 0}
_PARAMS = {"attention": ["attention_params", {}], "mla": ["mla_attention_params", {}],
           "gated": ["gated_attention_params", {}], "gdn": ["gated_deltanet_params", {}],
           "kda": ["kda_params", {}], "shortconv": ["short_conv_params", {}],
           "lightning": ["lightning_params", {}],
           "mamba1": ["mamba1_params", {}], "gmu": ["gmu_params", {}],
           "dsa": ["dsa_attention_params", {}], "msa": ["msa_attention_params", {}],
           "split": ["split_attention_params", {}],
           "lowq": ["lowq_attention_params", {}],
           "tied": ["tied_attention_params", {}],
           "reuse": ["reuse_attention_params", {}],
           "latent": ["latent_moe_params", {}],
           "mlp": ["mlp_params", {}], "shared": ["moe_params", {}], "moe": ["moe_params", {}],
           "mamba2": ["mamba2_params", {}], "norms": ["norm_params", {}],
           "hyper": ["hyper_norm_params", {}],
           "compressed": ["compressed_attention_params", {}]}

#: How llama.cpp's windowed layers bind their cells to the engine's inputs.
_ENGINE_CELLS = {"ctx_cells": "engine_ctx_cells", "ubatch": "engine_ubatch",
                 "n_seqs": "engine_seqs", "cell_pad": "engine_pad", "swa_full": "engine_swa_full"}

#: One all-reduce of the hidden state per part that ends in a row-split projection (attention's
#: o_proj, a mixer's out_proj, an MLP's down_proj, a MoE block's combined routed and shared
#: sum); a latent MoE block's shared experts' own (formulas.parallel.latent_moe_allreduces).
#: The collectives outside the stack (the input embedding's all-reduce, the output head's
#: all-gather of the logits, a per-layer embedding's two) are steps of the plan
#: (plan.steps: n_embedding_allreduces, allgather_time).
_TP_ALLREDUCES: dict[str, list[Any]] = {
    **{form: ["=", {"value": 1}] for form in (
        "attention", "mla", "dsa", "msa", "split", "lowq", "tied", "reuse", "gated", "compressed",
        "gdn", "kda", "shortconv", "lightning", "mamba1", "gmu", "mamba2",
        "mlp", "moe", "shared")},
    "latent": ["latent_moe_allreduces", {}]}

#: term -> {"by": which of FORMS selects the case, "doc": what it is,
#:          "cases": {form: [formula, {argument: binding}]}}; the formula ``"="`` is the
#: binding of its one argument ``"value"`` itself.
TERMS: dict[str, dict[str, Any]] = {
    "params": {"by": "form", "doc": "parameters of the part (every expert)",
               "cases": _PARAMS},
    "active_params": {"by": "form", "doc": "parameters one token uses (k routed experts)",
                      "cases": {**_PARAMS, "shared": ["moe_active_params", {}],
                                "moe": ["moe_active_params", {}],
                                "latent": ["latent_moe_active_params", {}]}},
    "experts_read": {"by": "form", "doc": "routed experts a step of B tokens reads",
                     "cases": {"moe": ["experts_read", {}], "latent": ["experts_read", {}]}},
    "read_params": {"by": "form", "doc": "parameters a decode step of B tokens reads",
                    "cases": {**_PARAMS, "shared": ["moe_active_params", {}],
                              "moe": ["moe_active_params",
                                      {"n_active_experts": "@experts_read"}],
                              "latent": ["latent_moe_active_params",
                                         {"n_active_experts": "@experts_read"}]}},
    "expert_matrices": {"by": "form", "doc": "weights of every routed expert's matrices",
                        "cases": {"moe": ["routed_expert_params",
                                          {"experts_read": "n_experts", "mlp_bias": 0}],
                                  "latent": ["routed_expert_params",
                                             {"experts_read": "n_experts", "mlp_bias": 0,
                                              "d_model": "d_latent"}]}},
    "expert_matrices_read": {"by": "form",
                             "doc": "weights of the routed experts' matrices a step reads",
                             "cases": {"moe": ["routed_expert_params",
                                               {"experts_read": "@experts_read",
                                                "mlp_bias": 0}],
                                       "latent": ["routed_expert_params",
                                                  {"experts_read": "@experts_read",
                                                   "mlp_bias": 0, "d_model": "d_latent"}]}},
    "routed_params": {"by": "form", "doc": "parameters of every routed expert",
                      "cases": {"moe": ["routed_expert_params",
                                        {"experts_read": "n_experts"}],
                                "latent": ["routed_expert_params",
                                           {"experts_read": "n_experts",
                                            "d_model": "d_latent"}]}},
    "matmul_params": {"by": "form", "doc": "weights in matrix products for one token",
                      "cases": {"attention": ["attention_params",
                                              {**_NO_EXTRAS, "diff_attn": 0}],
                                "mla": ["mla_matmul_params", {}],
                                "dsa": ["dsa_matmul_params", {}],
                                "msa": ["msa_matmul_params", {}],
                                "split": ["split_attention_params", _NO_EXTRAS],
                                "lowq": ["lowq_matmul_params", {}],
                                "tied": ["tied_attention_params", _NO_EXTRAS],
                                "reuse": ["reuse_attention_params",
                                          {**_NO_EXTRAS, "reuse_k_norm": 0,
                                           "diff_attn": 0}],
                                "compressed": ["compressed_matmul_params", {}],
                                "gated": ["gated_attention_params", _NO_EXTRAS],
                                "gdn": ["gated_deltanet_matmul_params", {}],
                                "kda": ["kda_matmul_params", {}],
                                "shortconv": ["short_conv_matmul_params", {}],
                                "lightning": ["lightning_matmul_params", {}],
                                "mamba1": ["mamba1_matmul_params", {}],
                                "gmu": ["gmu_matmul_params", {}],
                                "mlp": ["mlp_params", {"mlp_bias": 0}],
                                "shared": ["moe_active_params",
                                           {"mlp_bias": 0, "router_bias": 0}],
                                "moe": ["moe_active_params", {"mlp_bias": 0, "router_bias": 0}],
                                "latent": ["latent_moe_active_params",
                                           {"mlp_bias": 0, "router_bias": 0}],
                                "mamba2": ["mamba2_matmul_params", {}],
                                # a hyper-connected block's two mixers (DeepSeek-V4)
                                "hyper": ["hyper_norm_matmul_params", {}]}},
    "kv_layer": {"by": "form", "doc": "cache bytes one token adds to the layer",
                 "cases": {"attention": ["kv_layer_bytes", {}],
                           "mla": ["mla_kv_layer_bytes", {}],
                           "dsa": ["dsa_kv_layer_bytes", {}],
                           "msa": ["msa_kv_layer_bytes", {}],
                           "split": ["split_kv_layer_bytes", {}]}},
    "kv_layer_read": {"by": "form", "doc": "cache bytes per token of the earlier layer whose keys "
                      "and values a KV-sharing layer reads",
                      "cases": {"reuse": ["kv_layer_bytes", {}]}},
    "attended": {"by": "span", "doc": "cached positions the layer keeps and reads at S tokens",
                 "cases": {"full": ["=", {"value": "context"}],
                           "sliding": ["window_tokens", {}], "chunked": ["chunk_tokens", {}],
                           "topk": ["window_tokens", {"window": "index_topk"}],
                           "compressed": ["compressed_tokens", {}]}},
    "kv_stored": {"by": "form", "doc": "the layer's cache of B sequences as runtimes store it",
                  "cases": {"attention": ["layer_cache_bytes",
                                          {"kv_layer_bytes": "@kv_layer",
                                           "attended": "@attended"}],
                            "mla": ["layer_cache_bytes",
                                    {"kv_layer_bytes": "@kv_layer", "attended": "@attended"}],
                            "dsa": ["layer_cache_bytes",
                                    {"kv_layer_bytes": "@kv_layer", "attended": "context"}],
                            "msa": ["layer_cache_bytes",
                                    {"kv_layer_bytes": "@kv_layer", "attended": "context"}],
                            "compressed": ["compressed_cache_bytes", {}]}},
    "kv_read": {"by": "form", "doc": "the layer's cache one decode step of a sequence reads",
                "cases": {"attention": ["layer_cache_bytes",
                                        {"kv_layer_bytes": "@kv_layer", "attended": "@attended",
                                         "batch": 1}],
                          "mla": ["layer_cache_bytes",
                                  {"kv_layer_bytes": "@kv_layer", "attended": "@attended",
                                   "batch": 1}],
                          "dsa": ["dsa_read_bytes", {"attended": "@attended"}],
                          "msa": ["msa_read_bytes", {"attended": "@attended"}],
                          "compressed": ["compressed_read_bytes", {"attended": "@attended"}],
                          "reuse": ["layer_cache_bytes",
                                    {"kv_layer_bytes": "@kv_layer_read",
                                     "attended": "@attended", "batch": 1}]}},
    "kv_full": {"by": "form", "doc": "the layer's cache if it kept every token",
                "cases": {"attention": ["layer_cache_bytes",
                                        {"kv_layer_bytes": "@kv_layer", "attended": "context"}],
                          "mla": ["layer_cache_bytes",
                                  {"kv_layer_bytes": "@kv_layer", "attended": "context"}],
                          "dsa": ["layer_cache_bytes",
                                  {"kv_layer_bytes": "@kv_layer", "attended": "context"}],
                          "msa": ["layer_cache_bytes",
                                  {"kv_layer_bytes": "@kv_layer", "attended": "context"}],
                          # no runtime keeps a compressed layer's every token: its one layout
                          "compressed": ["compressed_cache_bytes", {}]}},
    "state": {"by": "form", "doc": "the mixer's state for one sequence",
              "cases": {"mamba2": ["mamba2_state_bytes", {}],
                        "gdn": ["gated_deltanet_state_bytes", {}],
                        "kda": ["kda_state_bytes", {}],
                        "shortconv": ["short_conv_state_bytes", {}],
                        "lightning": ["lightning_state_bytes", {}],
                        "mamba1": ["mamba1_state_bytes", {}]}},
    "layer_decode_flops": {"by": "form", "doc": "attention or recurrence FLOPs of one token",
                           "cases": {"attention": ["attention_decode_flops",
                                                   {"attended": "@attended"}],
                                     "mla": ["mla_decode_flops", {"attended": "@attended"}],
                                     "dsa": ["dsa_decode_flops", {"attended": "@attended"}],
                                     "msa": ["msa_decode_flops", {"attended": "@attended"}],
                                     "compressed": ["compressed_decode_flops",
                                                    {"attended": "@attended"}],
                                     "split": ["split_decode_flops",
                                               {"attended": "@attended"}],
                                     "mamba2": ["mamba2_decode_flops", {}],
                                     "gdn": ["gated_deltanet_decode_flops", {}],
                                     "kda": ["kda_decode_flops", {}],
                                     "shortconv": ["short_conv_decode_flops", {}],
                                     "lightning": ["lightning_decode_flops", {}],
                                     "mamba1": ["mamba1_decode_flops", {}],
                                     "gmu": ["gmu_decode_flops", {}]}},
    "pairs": {"by": "span", "doc": "query-key pairs of a causal prefill in one head",
              "cases": {"full": ["causal_pairs", {}], "sliding": ["window_pairs", {}],
                        "chunked": ["chunk_pairs", {}],
                        "topk": ["window_pairs", {"window": "index_topk"}],
                        "compressed": ["compressed_pairs", {}]}},
    "layer_prefill_flops": {"by": "form", "doc": "attention or recurrence FLOPs of a prefill",
                            "cases": {"attention": ["attention_prefill_flops",
                                                    {"causal_pairs": "@pairs"}],
                                      "mla": ["mla_prefill_flops", {"causal_pairs": "@pairs"}],
                                      "dsa": ["dsa_prefill_flops", {"causal_pairs": "@pairs"}],
                                      "msa": ["msa_prefill_flops", {"causal_pairs": "@pairs"}],
                                      "compressed": ["compressed_prefill_flops",
                                                     {"causal_pairs": "@pairs"}],
                                      "split": ["split_prefill_flops",
                                                {"causal_pairs": "@pairs"}],
                                      "mamba2": ["mamba2_prefill_flops", {}],
                                      "gdn": ["gated_deltanet_prefill_flops", {}],
                                      "kda": ["kda_prefill_flops", {}],
                                      "shortconv": ["short_conv_prefill_flops", {}],
                                      "lightning": ["lightning_prefill_flops", {}],
                                      "mamba1": ["mamba1_prefill_flops", {}],
                                      "gmu": ["gmu_prefill_flops", {}]}},
    # ---- what an engine allocates (llm_arithmetic.engine) ------------------------------------
    "kv_heads_chip": {"by": "form", "doc": "key/value heads one chip caches under tensor "
                      "parallelism", "cases": {"attention": ["kv_heads_per_chip", {}],
                                               "msa": ["kv_heads_per_chip", {}],
                                               "reuse": ["kv_heads_per_chip", {}]}},
    "kv_layer_chip": {"by": "form", "doc": "cache bytes one token adds to the layer on one chip",
                      "cases": {"attention": ["kv_layer_bytes",
                                              {"n_kv_heads": "@kv_heads_chip"}],
                                "split": ["split_kv_layer_bytes",
                                          {"n_kv_heads": "@kv_heads_chip"}],
                                "mla": ["mla_kv_layer_bytes", {}],
                                "dsa": ["dsa_kv_layer_bytes", {}],
                                # the index key is one head, kept whole on every chip
                                "msa": ["msa_kv_layer_bytes",
                                        {"n_kv_heads": "@kv_heads_chip"}]}},
    "kv_layer_read_chip": {"by": "form", "doc": "cache bytes per token, on one chip, of the "
                           "earlier layer whose keys and values a KV-sharing layer reads",
                           "cases": {"reuse": ["kv_layer_bytes",
                                               {"n_kv_heads": "@kv_heads_chip"}]}},
    "engine_cells": {"by": "span", "doc": "cells llama.cpp allocates for the layer",
                     "cases": {"full": ["=", {"value": "engine_ctx_cells"}],
                               "topk": ["=", {"value": "engine_ctx_cells"}],
                               "sliding": ["swa_cells", _ENGINE_CELLS],
                               "chunked": ["swa_cells", {**_ENGINE_CELLS, "window": "chunk"}]}},
    "engine_kv_stored": {"by": "form", "doc": "the layer's cache as llama.cpp allocates it",
                         "cases": {form: ["layer_cache_bytes",
                                          {"kv_layer_bytes": "@kv_layer_chip",
                                           "attended": "@engine_cells", "batch": 1}]
                                   for form in ("attention", "mla", "dsa", "msa")}},
    # a gated short convolution has no recurrent matrix: its state is all window (no case)
    "state_matrix": {"by": "form", "doc": "the mixer's recurrent state alone for one sequence "
                     "(its convolution window dropped: k_conv = 1)",
                     "cases": {"mamba2": ["mamba2_state_bytes", {"d_conv": 1}],
                               "gdn": ["gated_deltanet_state_bytes", {"d_conv": 1}],
                               "kda": ["kda_state_bytes", {"d_conv": 1}],
                               "mamba1": ["mamba1_state_bytes", {"d_conv": 1}],
                               # no convolution window: the state is all matrix
                               "lightning": ["lightning_state_bytes", {}]}},
    # vLLM keeps a Mamba-2 or Gated DeltaNet layer's recurrent matrix in --mamba-ssm-cache-dtype
    # and the rest in --mamba-cache-dtype; a gated short convolution's window and a lightning
    # layer's matrix are one tensor each, at --mamba-cache-dtype alone
    # (MambaStateDtypeCalculator.short_conv_state_dtype and linear_attention_state_dtype,
    # vllm/model_executor/layers/mamba/mamba_utils.py @ 02d710837549a368073552333f66d714477415d2)
    "engine_ssm_matrix": {"by": "form", "doc": "the part of the mixer's state for one sequence "
                          "that vLLM keeps in --mamba-ssm-cache-dtype (none for a gated short "
                          "convolution or a lightning attention layer)",
                          "cases": {"mamba2": ["mamba2_state_bytes", {"d_conv": 1}],
                                    "gdn": ["gated_deltanet_state_bytes", {"d_conv": 1}],
                                    "shortconv": ["=", {"value": 0}],
                                    "lightning": ["=", {"value": 0}]}},
    "state_matrix_bits": {"by": "kept", "doc": "bits the mixer's recurrent matrix is kept in: "
                          "the dtype the checkpoint's config.json names, float32 for a Kimi "
                          "delta attention layer, else the state's bits",
                          "cases": {"checkpoint": ["=", {"value": "bits_ssm_checkpoint"}],
                                    "fp32": ["=", {"value": 32}],
                                    "state": ["=", {"value": "bits_state"}]}},
    "attention_layer": {"by": "form", "doc": "1 for an attention layer",
                        "cases": {form: ["=", {"value": 1}]
                                  for form in ("attention", "mla", "dsa", "msa", "split")}},
    "state_layer": {"by": "form", "doc": "1 for a constant-state layer",
                    "cases": {form: ["=", {"value": 1}] for form in ("mamba2", "gdn", "kda",
                                                                  "shortconv", "lightning",
                                                                  "mamba1")}},
    "block": {"by": "form", "doc": "1 for every block",
              "cases": {"norms": ["=", {"value": 1}], "hyper": ["=", {"value": 1}]}},
    "moe_layer": {"by": "form", "doc": "1 for a mixture-of-experts layer",
                  "cases": {"moe": ["=", {"value": 1}], "latent": ["=", {"value": 1}]}},
    # ---- all-reduces under tensor parallelism (vLLM's layers: each part ends in a row-split
    # projection whose partial sums are all-reduced; see FORMS["reduce"] for the others) ------
    "tp_allreduces": {"by": "form", "doc": "all-reduces of the hidden state the part issues "
                      "under tensor parallelism (its row-split output projection's)",
                      "cases": _TP_ALLREDUCES},
    "ep_allreduces": {"by": "form", "doc": "the same where experts are split (expert "
                      "parallelism): a routed block's outputs come back by the all-to-all's "
                      "combine", "cases": {form: case for form, case in _TP_ALLREDUCES.items()
                                           if form not in ("moe",)}},
    "residual_allreduces": {"by": "reduce", "doc": "all-reduces of the hidden state a block's "
                            "residual branch issues under tensor parallelism",
                            "cases": {"laurel": ["=", {"value": 1}]}},
    "other_allreduces": {"by": "reduce", "doc": "all-reduces of another width the part issues "
                         "under tensor parallelism",
                         "cases": {r: ["=", {"value": 1}]
                                   for r in ("qk_norm", "xproj", "head_norm", "group_norm",
                                             "latent")}},
    "ep_other_allreduces": {"by": "reduce", "doc": "the same where experts are split (a latent "
                            "block's routed sum comes back by the combine)",
                            "cases": {r: ["=", {"value": 1}]
                                      for r in ("qk_norm", "xproj", "head_norm",
                                                "group_norm")}},
    "other_allreduce_bytes": {"by": "reduce", "doc": "bytes per token of that all-reduce's "
                              "message",
                              "cases": {"qk_norm": ["tp_allreduce_bytes",
                                                    {"batch": 1, "d_model": 2, "bits": 32}],
                                        "xproj": ["mamba1_xproj_allreduce_bytes",
                                                  {"batch": 1, "bits": 16}],
                                        "head_norm": ["tp_allreduce_bytes",
                                                      {"batch": 1, "d_model": 1, "bits": 32}],
                                        "group_norm": ["tp_allreduce_bytes",
                                                       {"batch": 1, "d_model": 1, "bits": 32}],
                                        "latent": ["tp_allreduce_bytes",
                                                   {"batch": 1, "d_model": "d_latent",
                                                    "bits": 16}]}},
}

#: Forms that have a term the library does not count, per term (the selector's value): the
#: term is then missing (None) for the whole stack, never a silent 0, and a model names why
#: (:data:`UNCOUNTED`). DeepSeek-V4's compressed attention: its cache at S tokens, what a step
#: reads of it and its FLOPs are counted (above); a cache per token is not, the cache not being
#: proportional to S (a window, an entry per m_c tokens, a fixed pending state), nor what an
#: engine's page allocator makes of it.
for _term in ("kv_layer", "kv_layer_chip", "engine_kv_stored"):
    TERMS[_term]["missing"] = ["compressed"]
#: form -> what of it is not counted, for the message that refuses a quantity needing it.
UNCOUNTED: dict[str, str] = {
    "compressed": "a cache per token of DeepSeek-V4's compressed attention, which has none (a "
                  "window of S_w rows, an entry per m_c tokens and a fixed pending state per "
                  "layer: its cache is counted at a given context, not per token), and for an "
                  "engine the pages it allocates for that cache, which are not counted",
}
#: What ``describe`` and the page's calculators print for the cache per token where it is
#: missing (above) but the cache at the context is counted: the mean over the context and
#: batch asked, named as such (``{mean}``: bytes, printed with ``,.0f``). Exported with the
#: catalog (``book/export.py``); the calculator appendix prints it, so that a translated
#: edition's catalog of that page holds its translation, which its calculators fill.
KV_PER_TOKEN_MEAN = ("not proportional to the context; {mean} B a token on average at this "
                     "context")

#: What ``describe`` and the page's calculators print for the cached rows a decode step reads
#: per attention layer where a model has DeepSeek-V4's compressed attention, whose row is a
#: window token or a compressed entry (one per m_c tokens): the label, and the mean split into
#: the two (``{rows}``, ``{window}``, ``{entries}``: counts printed with ``,.0f``). Exported
#: and printed in the calculator appendix as :data:`KV_PER_TOKEN_MEAN` is.
ATTENDED_ROWS_LABEL = "attended rows (window, compressed)"
ATTENDED_ROWS_SPLIT = ("{rows} per layer on average: {window} window tokens, {entries} "
                       "compressed entries")

# A KV-sharing layer (Gemma 4 E2B/E4B, ``num_kv_shared_layers``) has no key or value
# projections and no cache of its own: it adds nothing to the stored cache (kv_layer,
# kv_stored, kv_full and the engines' allocations have no case for it) but a decode step still
# reads the earlier layer's cache (kv_read, above) and does the attention arithmetic over it.
for _term in ("layer_decode_flops", "layer_prefill_flops"):
    TERMS[_term]["cases"]["reuse"] = TERMS[_term]["cases"]["attention"]

# A gated attention block (Qwen3-Next, Qwen3.5, Laguna) and one whose values are its keys'
# projection (Gemma 4's global layers, which still cache keys and values apart) differ from
# the plain one only in their parameters (counted above), a block with narrower values
# (MiMo-V2-Flash) in its parameters, cache and FLOPs: otherwise they store, read and count
# layers as a plain block.
for _spec in TERMS.values():
    if "attention" in _spec["cases"]:
        for _form in ("gated", "split", "tied", "lowq"):
            _spec["cases"].setdefault(_form, _spec["cases"]["attention"])

# One chip of a tensor-parallel group (the serving bounds): the layer's cache as kv_stored and
# kv_read lay it out, over the chip's own key/value heads (kv_layer_chip: its share, at least one
# head; a latent cache whole), with the same cases and the same uncounted forms.
_ON_A_CHIP = {"@kv_layer": "@kv_layer_chip", "@kv_layer_read": "@kv_layer_read_chip"}
for _chip_term, _term, _doc in (
        ("kv_stored_chip", "kv_stored", "the layer's cache of B sequences on one chip of a "
         "tensor-parallel group: its share of the key/value heads, at least one head; a latent "
         "cache whole"),
        ("kv_read_chip", "kv_read", "the layer's cache one decode step of a sequence reads on "
         "one chip of a tensor-parallel group")):
    TERMS[_chip_term] = {**TERMS[_term], "doc": _doc, "cases": {
        form: [name, {k: _ON_A_CHIP.get(v, v) for k, v in args.items()}]
        for form, (name, args) in TERMS[_term]["cases"].items()}}

# A block-sparse layer (MiniMax Sparse Attention) on one chip reads the keys and values of its own
# key/value heads and every index key (one head, kept whole on each chip).
TERMS["kv_read_chip"]["cases"]["msa"] = ["msa_read_bytes", {"attended": "@attended",
                                                            "n_kv_heads": "@kv_heads_chip"}]

# A sparse-attention layer's indexer on a tensor-parallel group (the serving bounds): the
# indexer query heads each chip computes (MiniMax Sparse Attention: split as the key/value
# heads are, at least one a chip; DeepSeek Sparse Attention: every head on every chip, the
# engine replicating the indexer; formulas/engine.py index_heads_held gives the sources), and
# the layer's attention FLOPs with the index heads' every copy counted: a chip's share of them
# is what that chip computes. The query heads and everything else split evenly, as before.
TERMS["index_heads_chip"] = {
    "by": "form", "doc": "indexer query heads one chip of a tensor-parallel group computes",
    "cases": {"msa": ["kv_heads_per_chip", {"n_kv_heads": "index_heads"}],
              "dsa": ["=", {"value": "index_heads"}]}}
TERMS["index_heads_held"] = {
    "by": "form", "doc": "indexer query heads the tensor-parallel group computes, every copy "
    "counted", "cases": {form: ["index_heads_held", {"index_heads_chip": "@index_heads_chip"}]
                         for form in ("msa", "dsa")}}
for _held, _term, _doc in (
        ("layer_decode_flops_held", "layer_decode_flops", "attention or recurrence FLOPs of one "
         "token on a tensor-parallel group, an indexer's heads as each chip computes them"),
        ("layer_prefill_flops_held", "layer_prefill_flops", "attention or recurrence FLOPs of a "
         "prefill on a tensor-parallel group, an indexer's heads as each chip computes them")):
    TERMS[_held] = {**TERMS[_term], "doc": _doc, "cases": {
        form: [name, {**args, "index_heads": "@index_heads_held"}
               if form in TERMS["index_heads_held"]["cases"] else args]
        for form, (name, args) in TERMS[_term]["cases"].items()}}

# The weights of a tensor-parallel group, every chip's copy counted (the serving bounds' memory
# and decode bytes): one rule per part, split or copied (formulas/engine.py cites vLLM). A part's
# parameters with its key/value heads (and MiniMax Sparse Attention's index query heads) at the
# group's held count, at least one a chip (params_heads_held); of them, what every chip holds
# whole (params_copied: latent down-projections and their norms, a DeepSeek Sparse Attention
# indexer, an index key and its norms, q/k norms, a router, the output biases of row-parallel
# projections, the block's norm vectors); the group holds the first and tp - 1 more copies of
# the second (params_held). A Mamba-2 mixer's B and C groups count as key/value heads do
# (groups_held). A part without a copied rule is split evenly: lightning attention, Mamba-1
# and gated memory unit mixers as vLLM splits them (formulas/engine.py), Gated DeltaNet, KDA
# and short-convolution mixers as before.
TERMS["kv_heads_held"] = {
    "by": "form", "doc": "key/value heads the tensor-parallel group holds, every copy counted",
    "cases": {form: ["kv_heads_held", {"kv_heads_chip": "@kv_heads_chip"}]
              for form in ("attention", "gated", "split", "tied", "lowq", "msa")}}
# Whole-projection q/k norms keep the model's width whatever the heads held (vLLM's olmo2.py holds
# RMSNorm(H_kv d_head) on every chip, MiniMax-M2 splits it): they are left out of the heads held
# and counted once in params_norm_full; params_copied adds their copies where they are copied.
_HEADS_HELD = {form: {"n_kv_heads": "@kv_heads_held", "qk_norm_full": 0}
               for form in ("attention", "gated", "split", "tied")}
_HEADS_HELD["lowq"] = {"n_kv_heads": "@kv_heads_held"}
_HEADS_HELD["msa"] = {"n_kv_heads": "@kv_heads_held", "index_heads": "@index_heads_held",
                      "qk_norm_full": 0}
TERMS["params_norm_full"] = {
    "by": "form", "doc": "whole-projection query/key norms of the part, at the model's width",
    "cases": {form: ["gqa_copied_params", {"qk_norm": 0, "qk_norm_split": 0, "o_bias": 0,
                                           "diff_attn": 0}]
              for form in ("attention", "gated", "split", "tied", "msa")}}
# a Mamba-2 mixer's B and C groups, split as key/value heads are: with one group and more chips
# each chip holds a copy of it (vLLM's extra_groups_for_head_shards, formulas/engine.py)
TERMS["groups_chip"] = {
    "by": "form", "doc": "B and C groups of a Mamba-2 mixer that one chip of a tensor-parallel "
    "group holds (its share, at least one)",
    "cases": {"mamba2": ["kv_heads_per_chip", {"n_kv_heads": "n_groups"}]}}
TERMS["groups_held"] = {
    "by": "form", "doc": "B and C groups of a Mamba-2 mixer that the tensor-parallel group "
    "holds, every copy counted", "cases": {"mamba2": ["kv_heads_held",
                                                      {"kv_heads_chip": "@groups_chip"}]}}
_HEADS_HELD["mamba2"] = {"n_groups": "@groups_held"}
# the state the group holds for one sequence, every chip's share counted: a lone Mamba-2 group
# copied to every chip carries its B and C channels into every chip's convolution state
# (vLLM's mamba2 conv state of (conv_dim / tp) columns, conv_dim counting the extended groups;
# formulas/engine.py cites extra_groups_for_head_shards), so the group holds N_tp groups' windows
TERMS["state_held"] = {
    "by": "form", "doc": "the mixer's state for one sequence as the tensor-parallel group holds "
    "it, every chip's share counted (a lone Mamba-2 group's convolution channels on every chip)",
    "cases": {form: [name, {**args, **({"n_groups": "@groups_held"} if form == "mamba2" else {})}]
              for form, (name, args) in TERMS["state"]["cases"].items()}}
TERMS["params_heads_held"] = {
    "by": "form", "doc": "parameters of the part with its key/value heads (and index query "
    "heads, DeepSeek-V4's padded attention sinks) as the tensor-parallel group holds them, "
    "every copy counted",
    "cases": {form: [name, {**args, **_HEADS_HELD.get(form, {})}]
              for form, (name, args) in TERMS["params"]["cases"].items()}}
# DeepSeek-V4's attention sinks: max(H / tp, 64) a chip (vLLM pads them for FlashMLA)
TERMS["params_heads_held"]["cases"]["compressed"] = ["compressed_heads_held_params", {}]
_COPIED = {"attention": ["gqa_copied_params", {}], "mla": ["mla_copied_params", {}],
           "dsa": ["dsa_copied_params", {}], "msa": ["msa_copied_params", {}],
           "moe": ["router_copied_params", {}], "shared": ["router_copied_params", {}],
           "latent": ["latent_moe_copied_params", {}], "mlp": ["mlp_copied_params", {}],
           "mamba2": ["mamba2_copied_params", {}], "norms": ["norm_params", {}],
           "compressed": ["compressed_copied_params", {}],
           "hyper": ["hyper_norm_params", {}], "reuse": ["reuse_copied_params", {}],
           # Step3's low-rank query: its down-projection and norm (vLLM's ReplicatedLinear)
           "lowq": ["lowq_copied_params", {}]}
for _form in ("gated", "split", "tied"):
    _COPIED[_form] = _COPIED["attention"]
TERMS["params_copied"] = {"by": "form", "doc": "parameters of the part that every chip of a "
                          "tensor-parallel group holds whole", "cases": _COPIED}
# What of the copies is not a 16-bit vector, for their bytes (each class at its checkpoint's
# bits): the copied matrices (latent down-projections, a DeepSeek Sparse Attention indexer's
# matrices, an index key) in the weights' format, and a router with its bias and a shared
# expert's gate at the router's bits; what else is copied (norms, biases) stays 16-bit.
TERMS["params_copied_matrices"] = {
    "by": "form", "doc": "matrices of the part that every chip of a tensor-parallel group holds "
    "whole", "cases": {"mla": ["mla_copied_matrices", {}], "dsa": ["dsa_copied_matrices", {}],
                       "msa": ["msa_copied_matrices", {}],
                       "lowq": ["lowq_copied_matrices", {}],
                       "compressed": ["compressed_copied_matrices", {}],
                       "latent": ["latent_copied_matrices", {}]}}
TERMS["params_copied_router"] = {
    "by": "form", "doc": "router parameters of the part that every chip of a tensor-parallel "
    "group holds whole (with its bias and a shared expert's gate)",
    "cases": {form: ["router_copied_params", {"mlp_bias": 0}]
              for form in ("moe", "shared", "latent")}}
# Kimi K3's routed experts padded with zero columns to w_pad a chip under tensor parallelism
# (vLLM's KimiMoE, formulas/engine.py: expert_pad_params): held for every expert, read for the
# experts a step reads, multiplied for the k each token routes to (the zeros go through the GEMM)
TERMS["expert_pad"] = {
    "by": "form", "doc": "zero parameters the tensor-parallel group holds in the routed "
    "experts' padding, every chip's counted", "cases": {"latent": ["expert_pad_params", {}]}}
TERMS["expert_pad_read"] = {
    "by": "form", "doc": "zero parameters of the routed experts' padding a decode step of B "
    "tokens reads on the tensor-parallel group",
    "cases": {"latent": ["expert_pad_params", {"n_experts": "@experts_read"}]}}
TERMS["expert_pad_active"] = {
    "by": "form", "doc": "zero parameters of the routed experts' padding one token multiplies "
    "on the tensor-parallel group", "cases": {"latent": ["expert_pad_params",
                                                          {"n_experts": "n_active_experts"}]}}
TERMS["params_held"] = {
    "by": "form", "doc": "parameters of the part the tensor-parallel group holds, every chip's "
    "copy counted", "cases": {form: ["held_params", {
        "n_params": "@params_heads_held",
        "params_copied": "@params_copied" if form in _COPIED else 0}]
        for form in TERMS["params"]["cases"]}}

# The recurrent matrix at the bits it is kept in (state_matrix_bits: the checkpoint's dtype,
# float32 for KDA, else the state's bits): state_matrix's cases with their bits bound to it.
TERMS["state_matrix_kept"] = {
    "by": "form", "doc": "the mixer's recurrent matrix alone for one sequence, at the bits it "
    "is kept in", "cases": {form: [name, {**args, "bits_state": "@state_matrix_bits"}]
                            for form, (name, args) in TERMS["state_matrix"]["cases"].items()}}
