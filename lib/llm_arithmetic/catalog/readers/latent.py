"""Readers of multi-head latent attention (MLA) in DeepSeek's layout: DeepSeek-V2/V3 (and their
sparse indexer, V3.2), DeepSeek-V4 (compressed attention, hyper-connections), LongCat-Flash,
GLM-4.7-Flash (glm4_moe_lite) and MiniCPM3.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ... import numeric as N
from ...core.errors import ConfigError
from ..model import HASH_EXTRA, MLP, MTP_EXTRA, Attention, Extra, Layers
from .base import (Reader, decoder, mtp_extras, one_of, read_context, read_window, routed_experts,
                   stack_fields, with_mtp)


# ---- latent attention (DeepSeek) --------------------------------------------------------------
def _deepseek(r: Reader, *, v3: bool, indexer: bool = False,
              mtp_note: str = "DeepSeek-V3's MTP module (not in the paper's 671B)",
              mtp_tables: bool = True) -> dict[str, Any]:
    # DeepseekV2/V3: MLA (q_a_proj, q_a_layernorm, q_b_proj or q_proj; kv_a_proj_with_mqa,
    # kv_a_layernorm, kv_b_proj; o_proj); the first `first_k_dense_replace` blocks dense
    # (intermediate_size), then an MoE block every `moe_layer_freq` with n_routed_experts of
    # moe_intermediate_size, n_shared_experts shared experts of the same width (one MLP of
    # n_shared x that width), a router d x E; V3 adds e_score_correction_bias (E).
    r.refuse("attention_bias", "biases on latent attention's projections are not counted")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    r.int("num_key_value_heads", h, kind="heads")  # DeepSeek configs set it to H; unused
    attn = Attention(h, h, r.int("qk_nope_head_dim") + r.int("qk_rope_head_dim"),
                     kv_lora_rank=r.int("kv_lora_rank"),
                     q_lora_rank=r.int("q_lora_rank", 0, minimum=0),
                     d_nope=r.int("qk_nope_head_dim"), d_rope=r.int("qk_rope_head_dim"),
                     d_v=r.int("v_head_dim"))
    shared_index = [False] * n
    if indexer:
        index, shared_index = _indexer(r, n)
        attn = replace(attn, **index)
        # GLM-5.2-NVFP4 names every layer's attention "deepseek_sparse_attention", what the
        # indexer's fields already say (vLLM drops the list before transformers validates it:
        # vllm/transformers_utils/configs/glm_moe_dsa.py, index file id 54601010704); another
        # kind is refused naming the field
        r.str_list("layer_types", n, ("deepseek_sparse_attention",))
    # GLM-5.2's layers that reuse an earlier layer's top-k selection: no indexer of their own
    attn_shared = replace(attn, index_shared=True) if any(shared_index) else attn
    # GLM-5.2-NVFP4's file (written by transformers 5.11.0, where zai-org's own GLM-5.2 file,
    # 5.12.0, has no such key) restates the routed experts as num_experts, which engines read
    # as the same count (tokenspeed's GlmMoeDsaConfig: "Some GLM-5 checkpoints ship
    # num_experts for the routed expert count", index file id 59514062319): accepted where it
    # agrees with n_routed_experts, refused naming both where it does not
    aliases = ("n_routed_experts", "num_experts") if r.family == "glm_moe_dsa" \
        else ("n_routed_experts",)
    e = one_of(r, aliases, None, "experts")
    dense = MLP(r.int("intermediate_size"))
    if e is None:
        mlp_of = lambda i: dense  # noqa: E731
    else:
        k = r.int("num_experts_per_tok", kind="experts")
        if k > e:
            raise ConfigError(f"{r.origin}: field 'num_experts_per_tok' ({k}) exceeds "
                              f"'n_routed_experts' ({e})")
        width = r.int("moe_intermediate_size")
        shared = r.int("n_shared_experts", 0, kind="experts", minimum=0)
        first = r.int("first_k_dense_replace", 0, kind="layers", minimum=0)
        freq = r.int("moe_layer_freq", 1, kind="count")
        r.read.add("topk_method")
        # V3's router keeps an e_score_correction_bias of E entries (stored in the checkpoint)
        moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0,
                  d_shared=width * shared, router_bias=v3)

        def mlp_of(i: int) -> MLP:
            return moe if (i >= first and i % freq == 0) else dense
    # GLM-5's files restate the dense and MoE layers as mlp_layer_types (transformers'
    # GlmMoeDsaConfig takes the list over first_k_dense_replace): it must agree
    kinds = r.str_list("mlp_layer_types", n, ("dense", "sparse"))
    if kinds is not None and kinds != ["dense" if mlp_of(i) is dense else "sparse"
                                       for i in range(n)]:
        raise ConfigError(f"{r.origin}: field 'mlp_layer_types' disagrees with the dense and "
                          "mixture-of-experts layers of 'first_k_dense_replace' and "
                          "'moe_layer_freq'")
    kw = decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                 trained_context=read_context(r),
                 attention=lambda i: attn_shared if shared_index[i] else attn, mlp=mlp_of,
                 d_model=d)
    if v3:
        kw["extras"] = mtp_extras(r, kw, Layers(1, attn, mlp=mlp_of(n), norms=2), mtp_note,
                                  own_tables=mtp_tables)
    return kw


def _indexer(r: Reader, n: int) -> tuple[dict[str, int], list[bool]]:
    """DeepSeek Sparse Attention's indexer (DeepseekV32Indexer: wq_b r_q -> H_I d_I, wk d -> d_I,
    k_norm LayerNorm(d_I), weights_proj d -> H_I; no biases) and its top-k, and per layer
    whether the layer shares an earlier layer's selection instead of running an indexer of its
    own: GLM-5.2's 'shared' layers (``indexer_types``; else 'S' in ``index_topk_pattern``;
    else the schedule of ``index_topk_freq`` and ``index_skip_topk_offset``, as transformers'
    GlmMoeDsaConfig derives it). transformers 5.24.0 builds no indexer on a shared layer
    (GlmMoeDsaAttention: ``self.indexer = None if self.skip_topk``) and passes the previous
    full layer's top-k indices to it; DeepSeek-V3.2's files, which name none of these keys,
    have an indexer on every layer."""
    r.read.update({"indexer_rope_interleave", "index_share_q"})
    types = r.str_list("indexer_types", n, ("full", "shared"))
    key = "indexer_types"
    if types is None and r.raw("index_topk_pattern") is not None:
        key, pattern = "index_topk_pattern", r.raw("index_topk_pattern")
        if not isinstance(pattern, str) or len(pattern) != n or set(pattern) - set("FS"):
            raise ConfigError(f"{r.origin}: field 'index_topk_pattern' must be a string of {n} "
                              "characters 'F' (full) and 'S' (shared)")
        types = ["full" if c == "F" else "shared" for c in pattern]
    if types is None:
        key = "index_topk_freq"
        freq = r.int("index_topk_freq", 1, kind="count")
        offset = r.int("index_skip_topk_offset", 2, kind="layers", minimum=0)
        types = ["full" if max(i - offset + 1, 0) % freq == 0 else "shared" for i in range(n)]
    r.read.update({"index_topk_pattern", "index_topk_freq", "index_skip_topk_offset"})
    if types and types[0] == "shared":
        raise ConfigError(f"{r.origin}: field '{key}' makes the first layer 'shared', which "
                          "has no earlier layer whose top-k selection it could reuse")
    return (dict(index_heads=r.int("index_n_heads", kind="heads"),
                 index_dim=r.int("index_head_dim"),
                 index_topk=r.int("index_topk", kind="context")),
            [t == "shared" for t in types])


def deepseek_v32(r: Reader) -> dict[str, Any]:
    # DeepSeek-V3.2 and GLM-5 (glm_moe_dsa): DeepSeek-V3's layout, each MLA block with an indexer.
    # GLM-5.x's MTP module (checkpoint layer num_hidden_layers) is a full block with an indexer
    # of its own (index_share_for_mtp_iteration only reuses its top-k across draft steps) plus
    # enorm, hnorm, eh_proj and shared_head.norm, and stores no embedding table or
    # shared_head.head: it uses the model's (FAMILIES.md section 14.6)
    if r.family == "glm_moe_dsa":
        r.read.add("index_share_for_mtp_iteration")
        return _deepseek(r, v3=True, indexer=True, mtp_tables=False,
                         mtp_note="GLM-5's MTP module (a block with its indexer; the model's "
                                  "embedding and head)")
    return _deepseek(r, v3=True, indexer=True)


def deepseek_v2(r: Reader) -> dict[str, Any]:
    return _deepseek(r, v3=False)


def deepseek_v3(r: Reader) -> dict[str, Any]:
    return _deepseek(r, v3=True)


# ---- DeepSeek-V4 (compressed attention, hyper-connections) -------------------------------------
#: compress ratio -> (layer type, compressor series): transformers 5.24.0's
#: _COMPRESS_RATIO_TO_LAYER_TYPE; CSA's windows overlap (two series), HCA's do not.
V4_LAYER_TYPES: Mapping[str, int] = {"sliding_attention": 0, "compressed_sparse_attention": 2,
                                     "heavily_compressed_attention": 1}

V4_RATIO_TYPES: Mapping[int, str] = {0: "sliding_attention", 4: "compressed_sparse_attention",
                                     128: "heavily_compressed_attention"}


def deepseek_v4(r: Reader) -> dict[str, Any]:
    # DeepseekV4 (transformers 5.24.0 modeling_deepseek_v4.py; FAMILIES.md section 14.18): per
    # layer a compressed attention (q_a_proj d x r_q, q_a_norm, q_b_proj r_q x H dh, one
    # key-value head kv_proj d x dh with kv_norm, the grouped output o_a_proj (H dh r_o) and
    # o_b_proj (g r_o x d), sinks H; a CSA layer's compressor (kv and gate d x 2dh, position bias
    # 4 x 2dh, norm dh) and indexer (its own compressor of 2 d_I, q_b_proj r_q x H_I d_I,
    # weights_proj d x H_I), an HCA layer's compressor (dh, position bias 128 x dh)); a mixture of
    # n_routed_experts (gate, up, down) and one shared MLP of moe_intermediate_size, a router
    # d x E (hash-routed in the first layers: same weight, a token -> experts table as buffer);
    # two norms and two hyper-connection mixers per layer; a hyper-connection head, final norm,
    # untied head. Its cache: plan/stack.py (the form "compressed"; FAMILIES.md section 14.18).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    if r.int("num_key_value_heads", 1, kind="heads") != 1:
        raise ConfigError(f"{r.origin}: field 'num_key_value_heads' must be 1: DeepSeek-V4's "
                          "attention has one key-value head shared by keys and values")
    for key in ("attention_bias", "mlp_bias"):
        r.refuse(key, "biases are not counted in the 'deepseek_v4' layout")
    types = r.str_list("layer_types", n, V4_LAYER_TYPES)
    if types is None:
        ratios = r.raw("compress_ratios")
        if not isinstance(ratios, list) or len(ratios) < n or any(
                x not in V4_RATIO_TYPES for x in ratios[:n]):
            raise ConfigError(f"{r.origin}: field 'compress_ratios' must list at least {n} "
                              f"ratios from {sorted(V4_RATIO_TYPES)}")
        types = [V4_RATIO_TYPES[x] for x in ratios[:n]]  # transformers keeps the first n
    r.read.add("compress_ratios")
    rates = {"compressed_sparse_attention": r.int("compress_rate_csa", 4, kind="count"),
             "heavily_compressed_attention": r.int("compress_rate_hca", 128, kind="count")}
    given = r.raw("compress_rates", {})
    if not isinstance(given, dict):
        raise ConfigError(f"{r.origin}: field 'compress_rates' must be an object")
    rates.update(given)
    dh, rq = r.int("head_dim"), r.int("q_lora_rank")
    common = dict(q_lora_rank=rq, o_lora_rank=r.int("o_lora_rank"),
                  o_groups=r.int("o_groups", kind="count"), window=read_window(r, 128))
    # a CSA layer's indexer: its heads and key width, and the entries it selects per query
    index = dict(index_heads=r.int("index_n_heads", kind="heads"),
                 index_dim=r.int("index_head_dim"), index_topk=r.int("index_topk", kind="count"))
    r.read.update({"qk_rope_head_dim", "partial_rotary_factor"})

    def attention(t: str) -> Attention:
        overlap = V4_LAYER_TYPES[t]
        return Attention(h, 1, dh, compress=rates.get(t, 0) if overlap else 0, overlap=overlap,
                         **common, **(index if overlap == 2 else {}))

    e, k = routed_experts(r, n_key="n_routed_experts")
    if r.int("n_shared_experts", 1, kind="experts", minimum=0) != 1:
        raise ConfigError(f"{r.origin}: field 'n_shared_experts' must be 1: transformers' "
                          "DeepseekV4SparseMoeBlock builds one shared MLP")
    width = r.int("moe_intermediate_size")
    # routing: the first num_hash_layers blocks pick their experts from a token -> experts table
    # (tid2eid, V x k), the others by score with a correction bias of E (fp32 gate.bias in the
    # checkpoint, e_score_correction_bias in transformers and vLLM). The checkpoint stores both
    # (DeepSeek-V4-Pro's tensor list, tests/configs/SOURCES.md section 7: layers.0-2.ffn.gate.
    # tid2eid [129280, 6] int64, layers.3-60.ffn.gate.bias [384] float32), and so do the
    # reference codes (DeepSeek's inference/model.py Gate and vLLM's DeepseekV4MoE: both
    # parameters; transformers 5.24.0: persistent buffers). Counted as the checkpoint holds
    # them: the bias with the router, the tables as an extra in the total that no decode step
    # reads whole (a token reads its own row, k ids).
    hashed = r.int("num_hash_layers", 0, kind="layers", minimum=0)
    if hashed > n:
        raise ConfigError(f"{r.origin}: field 'num_hash_layers' ({hashed}) exceeds the "
                          f"{n} layers")
    method = r.raw("topk_method", "noaux_tc")
    if method != "noaux_tc":
        raise ConfigError(f"{r.origin}: field 'topk_method' = {method!r:.40} is not "
                          "DeepSeek-V4's routing (noaux_tc, a correction bias per expert)")
    hashed_moe = MLP(width, n_experts=e, top_k=k, n_shared=1, d_shared=width)
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1, d_shared=width, router_bias=True)
    r.read.add("mlp_layer_types")
    hc = r.int("hc_mult", 4, kind="count")
    layers = [Layers(1, attention(t), mlp=hashed_moe if i < hashed else moe, norms=2, hc=hc)
              for i, t in enumerate(types)]
    # the head (DeepseekV4HyperHead) runs on every token before the final norm: its projection
    # n_hc d -> n_hc is a matrix product, its bias and scale act on the n_hc mixing weights
    # vLLM holds the head (hc_head_fn, _base, _scale: plain fp32 parameters) and the routing
    # tables (the gate's tid2eid) whole on every chip of a tensor-parallel group (copied)
    head = Extra("hyper-connection head", N.hyper_head_params(d_model=d, hc_streams=hc), True,
                 "DeepSeek-V4's merge of its residual streams before the final norm (read by "
                 "every token: 16 d + 5 weights)", read=True,
                 matmul=N.hyper_head_matmul_params(d_model=d, hc_streams=hc), copied=True)
    kw = stack_fields(r, d, layers)
    tables = (Extra(HASH_EXTRA, hashed * kw["n_vocab"] * k, True,
                    f"DeepSeek-V4's token -> experts tables of its {hashed} hash-routed blocks "
                    f"(V x {k} expert ids each; a token reads its own row)", copied=True),
              ) if hashed else ()
    # MTP (num_nextn_predict_layers; transformers builds none): DeepSeek's inference code
    # (inference/model.py, MTPBlock; FAMILIES.md section 14.18) builds module i as block n + i,
    # its attention of compress_ratios[n + i] (0, window-only, in both published files; a file
    # without that entry, as transformers' layer_types form, is taken as 0), the model's MoE
    # (past the hash-routed layers, so with its Gate's correction bias of E, as the
    # decoder's), two norms and two mixers; plus e_proj and h_proj (2 d^2), enorm, hnorm,
    # norm (3 d) and its own hyper-connection head; embeddings and output head are the model's.
    # Reported apart,
    # not in the total, read only by speculation with the module, as DeepSeek-V3's.
    modules = r.int("num_nextn_predict_layers", 0, kind="layers", minimum=0)
    ratios = r.raw("compress_ratios", [])
    ratios = ratios[n:n + modules] if isinstance(ratios, list) else []
    if any(type(x) is not int or x not in V4_RATIO_TYPES for x in ratios):
        raise ConfigError(f"{r.origin}: field 'compress_ratios' must give the "
                          f"multi-token-prediction module(s) a ratio from "
                          f"{sorted(V4_RATIO_TYPES)} (entries {n + 1} on), got {ratios!r:.60}")
    ratios += [0] * (modules - len(ratios))
    mtp = [with_mtp(kw, 1, [Layers(1, attention(V4_RATIO_TYPES[x]), mlp=moe, norms=2, hc=hc)],
                    "", own_embeddings=False, head=head.params)[0] for x in ratios]
    return dict(kw, extras=(head,) + tables + ((Extra(
        MTP_EXTRA, sum(x.params for x in mtp), False, "DeepSeek-V4's MTP "
        "module, in DeepSeek's inference code's layout (not in Flash's published 284B)",
        layers=tuple(run for x in mtp for run in x.layers), modules=len(mtp),
        names="mtp"),) if mtp else ()))


# ---- LongCat-Flash (shortcut-connected MoE with zero-computation experts) ------------------------
def longcat_flash(r: Reader) -> dict[str, Any]:
    # LongcatFlash (LongCat-Flash-Chat/-Thinking; transformers 5.24.0 modeling_longcat_flash.py,
    # vLLM's longcat_flash.py @ fe441ccfe6a851ce9704eb3ed5a4f5559b89e75f). num_layers blocks, each
    # two sublayers: input_layernorm[j], an MLA attention self_attn[j] (DeepSeek-V3's projections:
    # q_a_proj, q_a_layernorm, q_b_proj, kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj;
    # their biases when attention_bias, refused), post_attention_layernorm[j], a dense gated MLP
    # mlps[j] of ffn_hidden_size; the first sublayer's normed input also feeds the shortcut MoE,
    # whose output joins the residual after the second sublayer. The MoE: n_routed_experts real
    # experts of expert_ffn_hidden_size (gate, up, down, no biases), zero_expert_num identity
    # experts with no weights, a router classifier d x (E + Z) (a bias of E + Z when router_bias)
    # and its e_score_correction_bias of E + Z (a persistent buffer the checkpoint stores), top
    # moe_topk of the E + Z. Counted as two library blocks a layer: [attention 0, the MoE with the
    # dense MLP 0 as its one shared expert (same input, summed into the stream: the same weights,
    # reads and FLOPs)] and [attention 1, dense MLP 1]; the router columns and biases of the
    # zero experts go to an extra read by every token. transformers 5.24.0 allocates gate_up_proj
    # for all E + Z experts (the zero experts' rows are never used or stored): its meta count is
    # larger than the checkpoint by Z x 2 x d_expert x d a layer (FAMILIES.md 17.19). Under
    # tensor parallelism the extra is whole on every chip, as vLLM's router (a ReplicatedLinear
    # with its correction bias) and the library's router_copied_params are.
    d = r.int("hidden_size")
    n = r.int("num_layers", kind="layers")
    hidden = r.int("num_hidden_layers", None, kind="layers")
    if hidden is not None and hidden not in (n, 2 * n):
        raise ConfigError(f"{r.origin}: field 'num_hidden_layers' ({hidden}) is neither "
                          f"'num_layers' ({n}, vLLM's reading) nor twice it ({2 * n}, "
                          "transformers': two attention sublayers a layer)")
    method = r.raw("attention_method", "MLA")
    if not isinstance(method, str) or method.upper() != "MLA":
        raise ConfigError(f"{r.origin}: field 'attention_method' = {method!r:.40} is not "
                          "supported: only LongCat-Flash's latent attention ('MLA') is counted")
    use_mla = r.raw("use_mla")
    if use_mla not in (None, 1, True):
        raise ConfigError(f"{r.origin}: field 'use_mla' = {use_mla!r:.40} is not supported: "
                          "LongCat-Flash's attention is latent attention")
    r.refuse("attention_bias", "biases on latent attention's projections are not counted")
    h = r.int("num_attention_heads", kind="heads")
    r.int("num_key_value_heads", h, kind="heads")  # set to H by the config class; unused
    nope, rope = r.int("qk_nope_head_dim"), r.int("qk_rope_head_dim")
    if r.has("qk_head_dim") and r.int("qk_head_dim") != nope + rope:
        raise ConfigError(f"{r.origin}: field 'qk_head_dim' ({r.int('qk_head_dim')}) differs "
                          f"from 'qk_nope_head_dim' + 'qk_rope_head_dim' ({nope + rope})")
    attn = Attention(h, h, nope + rope, kv_lora_rank=r.int("kv_lora_rank"),
                     q_lora_rank=r.int("q_lora_rank"), d_nope=nope, d_rope=rope,
                     d_v=r.int("v_head_dim"))
    e = r.int("n_routed_experts", kind="experts")
    k = r.int("moe_topk", kind="experts")
    z = r.int("zero_expert_num", 0, kind="experts", minimum=0)
    kind = r.raw("zero_expert_type")
    if z and kind != "identity":
        raise ConfigError(f"{r.origin}: field 'zero_expert_type' = {kind!r:.40} is not "
                          "supported: only identity (zero-computation) experts are counted")
    if k > e + z:
        raise ConfigError(f"{r.origin}: field 'moe_topk' ({k}) exceeds 'n_routed_experts' + "
                          f"'zero_expert_num' ({e + z})")
    bias = r.flag("router_bias", False)
    for key in ("mla_scale_q_lora", "mla_scale_kv_lora", "norm_topk_prob"):
        r.flag(key, False)  # scales and a normalization: no parameters
    r.raw("routed_scaling_factor")
    d_ff = r.int("ffn_hidden_size")
    # the correction bias of the E real experts, and the classifier's bias when router_bias,
    # ride with the router (router_bias counts E entries); the zero experts' go to the extra
    # a token's k slots reach at most min(k, E) real experts: the upper end, counted
    moe = MLP(r.int("expert_ffn_hidden_size"), n_experts=e, top_k=min(k, e), n_shared=1,
              d_shared=d_ff, router_bias=True)
    dense = MLP(d_ff)
    layers = [Layers(1, attn, mlp=moe if j == 0 else dense, norms=2)
              for _ in range(n) for j in (0, 1)]
    kw = stack_fields(r, d, layers)
    zero_cols = z * d                       # classifier rows of the zero experts
    biases = z + (e + z if bias else 0)     # their correction biases; the classifier's bias
    if z or bias:
        kw["extras"] = (Extra(
            f"zero experts' routing; active: {min(k, e)} real experts (upper end)",
            n * (zero_cols + biases), True,
            f"LongCat-Flash's router scores {e} real and {z} identity experts a layer; the "
            f"identity experts hold no weights, so a token uses between 0 and {min(k, e)} real "
            f"experts; the active parameters, the bytes a step reads and the FLOPs count "
            f"{min(k, e)} (the upper "
            "end; Meituan reports about 27B active on average against 18.6B-31.3B)",
            read=True, matmul=n * zero_cols, copied=True),)
    return kw


#: transformers' Glm4MoeLiteConfig defaults (configuration_glm4_moe_lite.py in transformers 5.24.0)
#: for the keys that size the model, taken where a file leaves a key out (a null stays null: a
#: null q_lora_rank is a full-rank query projection there too).
GLM4_MOE_LITE_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 154880, "hidden_size": 2048, "intermediate_size": 10240,
    "moe_intermediate_size": 1536, "num_hidden_layers": 47, "num_attention_heads": 20,
    "num_key_value_heads": 20, "n_shared_experts": 1, "n_routed_experts": 64,
    "kv_lora_rank": 512, "q_lora_rank": 768, "qk_rope_head_dim": 64, "v_head_dim": 256,
    "qk_nope_head_dim": 192, "num_experts_per_tok": 4, "max_position_embeddings": 202752,
    "tie_word_embeddings": False, "attention_bias": False, "first_k_dense_replace": 1,
}


def glm4_moe_lite(r: Reader) -> dict[str, Any]:
    # Glm4MoeLite (GLM-4.7-Flash; transformers 5.24.0 modeling_glm4_moe_lite.py): DeepSeek-V3's
    # block. MLA (q_a_proj, q_a_layernorm, q_b_proj; kv_a_proj_with_mqa, kv_a_layernorm,
    # kv_b_proj; o_proj; q_a_proj, kv_a_proj_with_mqa and o_proj carry biases when
    # attention_bias, which _deepseek refuses); dense MLP of intermediate_size or a mixture of
    # n_routed_experts of moe_intermediate_size, one shared MLP of n_shared_experts x that width,
    # a router d x E (fp32) and its e_score_correction_bias (E, a persistent buffer). The dense
    # layers are mlp_layer_types, else the first one alone: transformers does not read
    # first_k_dense_replace, so a file whose first_k_dense_replace says otherwise without the
    # list is refused (vLLM would read the key). The MTP layer is not built by transformers.
    inner = Reader({**GLM4_MOE_LITE_DEFAULTS, **r.cfg}, r.origin, r.family)
    if inner.raw("mlp_layer_types") is None and inner.int(
            "first_k_dense_replace", 1, kind="layers", minimum=0) != 1:
        raise ConfigError(
            f"{r.origin}: field 'first_k_dense_replace' = {inner.cfg['first_k_dense_replace']} "
            "without 'mlp_layer_types': transformers' GLM-4.7-Flash builds one dense layer "
            "whatever the field says, vLLM reads the field; give 'mlp_layer_types'")
    if inner.raw("mlp_layer_types") is not None and "first_k_dense_replace" not in r.cfg:
        inner.cfg = {**inner.cfg, "first_k_dense_replace": _leading_dense(inner)}
    kw = _deepseek(inner, v3=True,
                   mtp_note="GLM-4.7-Flash's MTP layer, counted in DeepSeek-V3's layout")
    r.read |= inner.read
    return kw


def _leading_dense(r: Reader) -> int:
    """How many layers lead with a dense MLP in ``mlp_layer_types`` ('dense' or 'sparse' per
    layer); the list is checked against that count by :func:`_deepseek`."""
    kinds = r.str_list("mlp_layer_types", r.int("num_hidden_layers", kind="layers"),
                       ("dense", "sparse"))
    return next((i for i, kind in enumerate(kinds or []) if kind != "dense"), len(kinds or []))


# ---- MiniCPM3 (latent attention with muP scalings, tied embeddings) ---------------------------
def minicpm3(r: Reader) -> dict[str, Any]:
    # MiniCPM3Config / MiniCPM3ForCausalLM (transformers 5.24.0, models/minicpm3): DeepSeek-V2's
    # latent attention (q_a_proj d -> q_lora_rank, q_a_layernorm, q_b_proj -> H (nope + rope);
    # a full q_proj where q_lora_rank is null; kv_a_proj_with_mqa d -> kv_lora_rank + rope,
    # kv_a_layernorm, kv_b_proj -> H (nope + v); o_proj H v -> d), v_head_dim d / H unless
    # given; a gated MLP of intermediate_size; two RMSNorms a block, a final norm; the head tied
    # by default. scale_emb, scale_depth and dim_model_base scale activations (muP): no
    # parameter. head_dim is overwritten with qk_rope_head_dim by the config class: no count.
    r.refuse("attention_bias", "biases on MiniCPM3's q_a, kv_a and output projections are not "
                               "counted")
    r.refuse("mlp_bias", "biases on MiniCPM3's MLP are not counted")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) does not divide the hidden "
                          f"size ({d})")
    r.int("num_key_value_heads", h, kind="heads")  # latent attention forms K and V per head
    nope, rope = r.int("qk_nope_head_dim", 64), r.int("qk_rope_head_dim", 32)
    # absent: MiniCPM3Config's 768; null: a full-rank query projection
    rank = r.int("q_lora_rank", 0, minimum=0) if "q_lora_rank" in r.cfg else 768
    attn = Attention(h, h, nope + rope, kv_lora_rank=r.int("kv_lora_rank", 256),
                     q_lora_rank=rank, d_nope=nope, d_rope=rope,
                     d_v=r.int("v_head_dim", d // h))
    r.read.update({"head_dim", "scale_emb", "scale_depth", "dim_model_base"})
    return decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", True),
                   trained_context=read_context(r),
                   attention=lambda i: attn, mlp=lambda i: MLP(r.int("intermediate_size")),
                   d_model=d)
