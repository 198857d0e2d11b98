"""Readers of mixtures of experts with standard attention: Mixtral, Qwen 2/3 MoE, OLMoE,
Phi-3.5-MoE, GLM-4.5, ERNIE 4.5 MoE, Hunyuan (dense and MoE, with cross-layer attention),
dots.llm1, Ling 2.0, AFMoE, gpt-oss, Llama 4, Grok, DBRX, MiniMax-M2/M3 and Step3.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping

from ...core.errors import ConfigError
from ..model import MLP, Attention, Extra, ImageRule, Layers
from .base import (Reader, architectures_of, decoder, defaulted, mtp_extras, read_context,
                   read_window, restated, routed_experts, vit_block_params, vit_matmul_params,
                   vit_patch_params, window_flags, with_mlp, with_mtp)
from .dense import llama_like


def mixtral(r: Reader) -> dict[str, Any]:
    kw = llama_like(r, qkv_bias=False, o_bias=False, window_rule="all")
    e, k = routed_experts(r, n_key="num_local_experts")
    return with_mlp(kw, lambda mlp: MLP(mlp.d_ff, n_experts=e, top_k=k))


def qwen3_moe(r: Reader) -> dict[str, Any]:
    # Qwen3MoeConfig declares no head_dim: the attention uses getattr(config, "head_dim",
    # hidden_size // num_attention_heads)
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    # Qwen3-Coder's files restate what every Qwen3-MoE block has (q/k norms) and that its
    # q/k/v carry no bias; Qwen3MoeConfig defines neither key, so a file saying otherwise
    # describes a model this layout does not build.
    restated(r, "use_qk_norm", True, "its attention always has q/k norms")
    restated(r, "qkv_bias", False, "its q/k/v biases follow 'attention_bias'")
    window = read_window(r)
    flags = window_flags(r, n, "qwen2") if window else [False] * n
    e, k = routed_experts(r, n_key="num_experts")
    step = r.int("decoder_sparse_step", 1, kind="count")
    dense = set(r.int_list("mlp_only_layers", []))
    moe = MLP(r.int("moe_intermediate_size"), n_experts=e, top_k=k)
    dense_mlp = MLP(r.int("intermediate_size"))
    return decoder(
        r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
        trained_context=read_context(r),
        attention=lambda i: Attention(h, hkv, dh, window=window if flags[i] else None,
                                      qkv_bias=bias, o_bias=bias, qk_norm="head"),
        mlp=lambda i: moe if (i not in dense and e > 0 and (i + 1) % step == 0) else dense_mlp,
        d_model=d)


def olmoe(r: Reader) -> dict[str, Any]:
    # OlmoeModel (transformers 5.24.0 modeling_olmoe.py): q/k/v/o (biases if attention_bias);
    # q_norm RMSNorm(d) and k_norm RMSNorm(d/H x H_kv) over the whole projections (OLMo 2's
    # "full" q/k norm); pre-norm blocks (input_layernorm, post_attention_layernorm); every block
    # a mixture of num_experts experts of intermediate_size (gate_up, down, no biases), a router
    # d x E without bias, no shared expert; untied head. clip_qkv clamps, norm_topk_prob
    # rescales: no parameters.
    r.raw("clip_qkv")
    r.read.add("norm_topk_prob")
    kw = llama_like(r, qkv_bias=None, qk_norm="full")
    h = r.int("num_attention_heads", kind="heads")
    if r.has("head_dim") and r.int("head_dim") * h != kw["d_model"]:
        raise ConfigError(f"{r.origin}: field 'head_dim' ({r.int('head_dim')}) x "
                          f"'num_attention_heads' ({h}) differs from 'hidden_size': OLMoE's "
                          "q/k norms are as wide as hidden_size, which the library does not count")
    e, k = routed_experts(r, n_key="num_experts")
    return with_mlp(kw, lambda mlp: MLP(mlp.d_ff, n_experts=e, top_k=k))


def phimoe(r: Reader) -> dict[str, Any]:
    # PhiMoE: q, k, v, o with biases (attention_bias), LayerNorms with bias (2 vectors each,
    # two per block and a final one), experts without biases, an output head with a bias.
    kw = llama_like(r, norms=4, window_rule="all")
    e, k = routed_experts(r, n_key="num_local_experts")
    kw["head_bias"] = r.flag("lm_head_bias", False)
    kw["norm_vecs_final"] = 2
    return with_mlp(kw, lambda mlp: MLP(mlp.d_ff, n_experts=e, top_k=k))


# ---- GLM-4.5 -----------------------------------------------------------------------------------
def glm4_moe(r: Reader) -> dict[str, Any]:
    # Glm4Moe: q/k/v with biases (attention_bias), o without; q_norm and k_norm of head_dim when
    # use_qk_norm; the first first_k_dense_replace blocks have a dense MLP of intermediate_size,
    # the others a mixture: n_routed_experts of moe_intermediate_size, one shared MLP of
    # n_shared_experts x moe_intermediate_size, a router d x E and its e_score_correction_bias
    # (E, a persistent buffer the checkpoint stores). Partial rotary embedding: no parameters.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=bias, qk_norm="head" if r.flag("use_qk_norm", False)
                     else "")
    e, k = routed_experts(r, n_key="n_routed_experts")
    width = r.int("moe_intermediate_size")
    shared = r.int("n_shared_experts", 1, kind="experts", minimum=0)
    first = r.int("first_k_dense_replace", 1, kind="layers", minimum=0)
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0, d_shared=width * shared,
              router_bias=True)
    dense = MLP(r.int("intermediate_size"))
    kw = decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                 trained_context=read_context(r),
                 attention=lambda i: attn, mlp=lambda i: moe if i >= first else dense,
                 d_model=d)
    kw["extras"] = mtp_extras(r, kw, Layers(1, attn, mlp=moe, norms=2),
                              "GLM-4.5's MTP layer, counted in DeepSeek-V3's layout")
    return kw


#: transformers' Ernie4_5_MoeConfig defaults (configuration_ernie4_5_moe.py in transformers
#: 5.24.0) for the keys that size the model; moe_layer_end_index -1 is the last layer.
ERNIE4_5_MOE_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 103424, "hidden_size": 2560, "intermediate_size": 12288,
    "num_hidden_layers": 28, "num_attention_heads": 20, "num_key_value_heads": 4,
    "max_position_embeddings": 131072, "tie_word_embeddings": True, "use_bias": False,
    "moe_intermediate_size": 1536, "moe_k": 6, "moe_num_experts": 64,
    "moe_num_shared_experts": 2, "moe_layer_start_index": 1, "moe_layer_end_index": -1,
    "moe_layer_interval": 1,
}


def ernie_attention(inner: Reader) -> tuple[int, int, Attention]:
    """ERNIE 4.5's width, layer count and attention (q/k/v/o without biases): ``use_bias``
    true is refused, as it puts biases on attention, the dense and shared MLPs and the head
    but not on the routed experts, which the library's MLP does not tell apart."""
    if inner.flag("use_bias", False):
        raise ConfigError(f"{inner.origin}: field 'use_bias' = true is not counted: ERNIE 4.5 "
                          "puts biases on attention, the dense and shared MLPs and the head "
                          "but not on the routed experts, which the library's MLP does not "
                          "tell apart")
    d = inner.int("hidden_size")
    return d, inner.int("num_hidden_layers", kind="layers"), Attention(*inner.heads(d))


def ernie4_5_moe(r: Reader) -> dict[str, Any]:
    # Ernie4_5_Moe (transformers 5.24.0 modeling_ernie4_5_moe.py): q/k/v/o, the dense MLP, the
    # shared experts and the output head carry biases when use_bias (the routed experts never:
    # refused rather than miscounted); head_dim is getattr(config, "head_dim", d / H); layer i
    # is a mixture iff (i + 1) % moe_layer_interval == 0 and moe_layer_start_index <= i <=
    # moe_layer_end_index (-1: the last layer): moe_num_experts of moe_intermediate_size, one
    # shared MLP of moe_num_shared_experts x that width, a router d x E (fp32, no bias) and
    # moe_statics.e_score_correction_bias (E, a parameter); two RMSNorms per block; the head
    # tied by default. The MTP layers (num_nextn_predict_layers) are not built by
    # transformers: declared, not counted, as MiniMax-M2's.
    inner = defaulted(r.cfg, ERNIE4_5_MOE_DEFAULTS, r.origin, r.family)
    d, n, attn = ernie_attention(inner)
    e, k = routed_experts(inner, n_key="moe_num_experts", k_key="moe_k")
    width = inner.int("moe_intermediate_size")
    shared = inner.int("moe_num_shared_experts", kind="experts", minimum=0)
    start = inner.int("moe_layer_start_index", kind="layers", minimum=0)
    end = inner.int("moe_layer_end_index", kind="layers", minimum=-1)
    end = n - 1 if end == -1 else end
    step = inner.int("moe_layer_interval", kind="count")
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0, d_shared=width * shared,
              router_bias=True)
    dense = MLP(inner.int("intermediate_size"))
    mtp = inner.int("num_nextn_predict_layers", 0, kind="layers", minimum=0)
    kw = decoder(inner, n_layers=n, norms=2, tied=inner.flag("tie_word_embeddings", True),
                 trained_context=read_context(inner),
                 attention=lambda i: attn,
                 mlp=lambda i: moe if ((i + 1) % step == 0 and start <= i <= end) else dense,
                 d_model=d)
    r.read |= inner.read
    return {**kw, "mtp_modules": mtp, "mtp_field": "num_nextn_predict_layers" if mtp else ""}


def _same_per_layer(r: Reader, key: str, n: int, kind: str) -> Any:
    """A key a Hunyuan file gives as one integer or as one per layer: the value, refused naming
    the key where the layers differ (transformers' class builds one size for every layer)."""
    v = r.raw(key)
    if isinstance(v, list):
        if len(v) != n or not v or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
            raise ConfigError(f"{r.origin}: field '{key}' must be an integer or one integer for "
                              f"each of the {n} layers")
        if len(set(v)) != 1:
            raise ConfigError(f"{r.origin}: field '{key}' differs from layer to layer, which "
                              f"the '{r.family}' reader does not count (transformers builds one "
                              "size for every layer)")
        return _single(r, key, v[0], kind)
    return r.int(key, None, kind=kind)


def _single(r: Reader, key: str, value: int, kind: str) -> int:
    """One entry of a per-layer list, checked as :meth:`Reader.int` checks a field."""
    return Reader({key: value}, r.origin, r.family).int(key, kind=kind)


def _hunyuan_attention(r: Reader, d: int) -> Attention:
    """Hunyuan's attention as transformers 5.24.0 builds it (modeling_hunyuan_v1_dense.py and
    _moe.py): q/k/v/o with biases when attention_bias, query_layernorm and key_layernorm of
    head_dim in every layer, head_dim = getattr(config, "head_dim", d / H) (Tencent's
    remote-code files name it attention_head_dim; both given and different is refused);
    latent attention (use_mla) is refused (no released file sets it), use_qk_norm false and
    mlp_bias true contradict the layout. Cross-layer attention (use_cla) is
    :func:`_hunyuan_cla`'s."""
    r.refuse("use_mla", "Hunyuan's latent attention is not counted (no released checkpoint "
                        "sets it)")
    head_dim = r.int("head_dim", None)
    alias = r.int("attention_head_dim", None)
    if head_dim is not None and alias is not None and head_dim != alias:
        raise ConfigError(f"{r.origin}: field 'head_dim' ({head_dim}) differs from "
                          f"'attention_head_dim' ({alias})")
    h, hkv, dh = r.heads(d, head_dim_default=head_dim if head_dim is not None else alias)
    restated(r, "use_qk_norm", True, "its attention always has query and key norms")
    restated(r, "mlp_bias", False, "its MLPs have no biases")
    bias = r.flag("attention_bias", False)
    return Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head")


def _hunyuan_cla(r: Reader, n: int) -> list[bool]:
    """Per layer, whether it reads an earlier layer's keys and values: Hunyuan's cross-layer
    attention (Tencent's remote code for Hunyuan-Large, modeling_hunyuan.py: HunYuanAttention
    is 'cross' when use_cla and layer_idx % cla_share_factor != 0, and then builds q_proj,
    o_proj, query_layernorm and key_layernorm but no k_proj or v_proj; HunYuanModel hands it
    the keys and values of the last layer with layer_idx % cla_share_factor == 0; vLLM's
    hunyuan_v1.py builds such a layer as HunYuanCrossAttention with the same tensors).
    transformers 5.24.0's hunyuan_v1_* classes read neither key (they build k and v in every
    layer), so a file that sets use_cla describes a model they do not build."""
    if not r.flag("use_cla", False):
        r.read.add("cla_share_factor")
        return [False] * n
    f = r.int("cla_share_factor", 1, kind="layers")
    return [i % f != 0 for i in range(n)]


def _hunyuan(r: Reader, mlp_of: Callable[[Reader, int], MLP]) -> dict[str, Any]:
    """A Hunyuan stack: Hunyuan's attention (:func:`_hunyuan_attention`; with cross-layer
    attention, :func:`_hunyuan_cla`, the sharing layers as ``kv_shared`` blocks that keep
    their own key norm) and the MLP ``mlp_of(r, n_layers)`` in every block, input_layernorm
    and post_attention_layernorm, the head untied by default."""
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    attn = _hunyuan_attention(r, d)
    shared = _hunyuan_cla(r, n)
    reuse = replace(attn, kv_shared=True, reuse_k_norm=True)
    mlp = mlp_of(r, n)
    return decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                   trained_context=read_context(r),
                   attention=lambda i: reuse if shared[i] else attn, mlp=lambda i: mlp,
                   d_model=d)


def hunyuan_v1_dense(r: Reader) -> dict[str, Any]:
    # HunYuanDenseV1 (Hunyuan-7B, Hunyuan-MT-7B; transformers 5.24.0
    # modeling_hunyuan_v1_dense.py): gate/up/down of intermediate_size without biases.
    return _hunyuan(r, lambda r, n: MLP(r.int("intermediate_size")))


def _hunyuan_moe_mlp(r: Reader, n: int) -> MLP:
    # HunYuanMoEV1 (Hunyuan-A13B; transformers 5.24.0 modeling_hunyuan_v1_moe.py): every block
    # a mixture: a router wg d x E (fp32, no bias), num_experts experts of intermediate_size and
    # one shared MLP (shared_mlp) of intermediate_size, no MLP biases. The remote-code keys
    # that vLLM also reads are accepted where they say what transformers builds
    # (moe_intermediate_size = intermediate_size and num_shared_expert 1 in every layer,
    # use_mixed_mlp_moe, no skipped layers) and refused naming the key otherwise.
    restated(r, "use_mixed_mlp_moe", True, "every block has a shared MLP beside the experts")
    if r.int("moe_layer_num_skipped", 0, kind="layers", minimum=0):
        raise ConfigError(f"{r.origin}: field 'moe_layer_num_skipped' = "
                          f"{r.cfg['moe_layer_num_skipped']} is not counted (transformers builds "
                          "a mixture in every layer)")
    ff = r.int("intermediate_size")
    width = _same_per_layer(r, "moe_intermediate_size", n, "width")
    if width is not None and width != ff:
        raise ConfigError(f"{r.origin}: field 'moe_intermediate_size' ({width}) differs from "
                          f"'intermediate_size' ({ff}): transformers' experts are "
                          "intermediate_size wide, vLLM's moe_intermediate_size")
    shared = _same_per_layer(r, "num_shared_expert", n, "experts")
    if shared is not None and shared != 1:
        raise ConfigError(f"{r.origin}: field 'num_shared_expert' = {shared} is not counted "
                          "(transformers builds one shared MLP of intermediate_size)")
    e = r.int("num_experts", kind="experts")
    k = _same_per_layer(r, "moe_topk", n, "experts")
    if k is None or k > e:
        raise ConfigError(f"{r.origin}: field 'moe_topk' ({k}) must be given and at most "
                          f"'num_experts' ({e})")
    return MLP(ff, n_experts=e, top_k=k, n_shared=1, d_shared=ff)


def hunyuan_v1_moe(r: Reader) -> dict[str, Any]:
    # Tencent's HunYuanForCausalLM (Hunyuan-Large's remote code) builds this mixture when
    # num_experts > 1 and a dense MLP otherwise: a dense file under that name is refused
    if "HunYuanForCausalLM" in architectures_of(r.cfg) and r.int("num_experts", 1,
                                                             kind="experts") < 2:
        raise ConfigError(f"{r.origin}: field 'num_experts' < 2 under 'HunYuanForCausalLM' "
                          "is a dense Hunyuan model, which the 'hunyuan_v1_moe' reader does "
                          "not count")
    return _hunyuan(r, _hunyuan_moe_mlp)


def dots1(r: Reader) -> dict[str, Any]:
    # Dots1 (dots.llm1; transformers 5.24.0 modeling_dots1.py): Qwen3's attention (q/k/v/o with
    # biases when attention_bias, q_norm and k_norm RMSNorm(head_dim), head_dim =
    # getattr(config, "head_dim", d / H)) and DeepSeek-V3's mixture: the first
    # first_k_dense_replace blocks dense (intermediate_size), then n_routed_experts of
    # moe_intermediate_size, one shared MLP of n_shared_experts x that width, a router d x E
    # (fp32) and its e_score_correction_bias (E, a persistent buffer); two RMSNorms per block.
    # Windows: layer_types, else a layer is sliding iff sliding_window is not null and its index
    # is at least max_window_layers (Dots1Config's defaults 4096 and 62; no use_sliding_window
    # switch, so a file that sets that key false while the rule windows some layers is refused).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    window = r.int("sliding_window", None, kind="context") if "sliding_window" in r.cfg \
        else 4096
    r.read.add("sliding_window")
    types = r.str_list("layer_types", n, ("sliding_attention", "full_attention"))
    if types is None:
        first = r.int("max_window_layers", 62, kind="layers", minimum=0)
        types = ["sliding_attention" if window is not None and i >= first else "full_attention"
                 for i in range(n)]
        if "sliding_attention" in types and r.cfg.get("use_sliding_window") is False:
            raise ConfigError(f"{r.origin}: field 'use_sliding_window' = false, but transformers' "
                              "dots1 windows the layers from 'max_window_layers' on whatever it "
                              "says; give 'layer_types'")
    r.read.update({"max_window_layers", "use_sliding_window"})
    if "sliding_attention" in types and window is None:
        raise ConfigError(f"{r.origin}: field 'layer_types' names sliding layers but "
                          "'sliding_window' is null")
    e, k = routed_experts(r, n_key="n_routed_experts")
    width = r.int("moe_intermediate_size")
    shared = r.int("n_shared_experts", kind="experts", minimum=0)
    first = r.int("first_k_dense_replace", 0, kind="layers", minimum=0)
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0, d_shared=width * shared,
              router_bias=True)
    dense = MLP(r.int("intermediate_size"))
    return decoder(
        r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
        trained_context=read_context(r),
        attention=lambda i: Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head",
                                      window=window if types[i] == "sliding_attention" else None),
        mlp=lambda i: moe if i >= first else dense, d_model=d)


# ---- Ling 2.0 (Bailing MoE V2) -------------------------------------------------------------------
#: inclusionAI's BailingMoeV2Config defaults (github.com/inclusionAI/Ling-V2 @ af8837e677a1aa368958
#: 45da084f9c91acf4fed2, models/configuration_bailing_moe_v2.py) for the keys that size the model;
#: transformers 5.24.0 defines no such class (the files run inclusionAI's remote code).
BAILING_MOE_V2_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 157184, "hidden_size": 2048, "intermediate_size": 5120,
    "num_hidden_layers": 20, "num_attention_heads": 16, "num_key_value_heads": 4,
    "use_qkv_bias": False, "use_bias": False, "tie_word_embeddings": False,
    "max_position_embeddings": 32768, "num_experts": 256, "num_shared_experts": 1,
    "num_experts_per_tok": 8, "n_group": 8, "topk_group": 4, "moe_intermediate_size": 512,
    "first_k_dense_replace": 1, "use_qk_norm": True, "num_nextn_predict_layers": 0,
    "moe_router_enable_expert_bias": True,
}


def _group_limited(r: Reader, e: int, k: int) -> None:
    """Group-limited routing (DeepSeek-V3's, in Ling 2.0's gate): the E experts in ``n_group``
    groups, a token's top-k taken from the ``topk_group`` groups of best two-expert score. It
    changes which experts a token reads, not how many, so no count; a file whose groups cannot
    hold the routing (E not a multiple of n_group, groups of fewer than two experts, more
    groups picked than exist, or fewer experts in them than k) is refused naming the field."""
    groups = r.int("n_group", kind="count")
    picked = r.int("topk_group", kind="count")
    if e % groups or e // groups < 2:
        raise ConfigError(f"{r.origin}: field 'n_group' ({groups}) must divide the {e} experts "
                          "into groups of at least two (the gate scores a group by its best two)")
    if picked > groups or picked * (e // groups) < k:
        raise ConfigError(f"{r.origin}: field 'topk_group' ({picked}) must pick at most "
                          f"'n_group' ({groups}) groups holding at least 'num_experts_per_tok' "
                          f"({k}) experts")


def bailing_moe_v2(r: Reader) -> dict[str, Any]:
    # BailingMoeV2 (Ling 2.0: Ling-mini/flash-2.0, Ling-1T, Ring-2.0; inclusionAI's
    # modeling_bailing_moe_v2.py, Ling-V2 @ af8837e6, models/): one fused query_key_value
    # d x (H + 2 H_kv) d_h (bias when use_qkv_bias), dense H d_h x d (bias when use_bias),
    # query_layernorm and key_layernorm RMSNorm(d_h) when use_qk_norm; head_dim 128 by default
    # (d / H when the file sets it null); partial rotary embedding (no parameters). The first
    # first_k_dense_replace blocks have a gated MLP of intermediate_size, the others
    # num_experts gated experts of moe_intermediate_size, one shared MLP of num_shared_experts x
    # moe_intermediate_size, and a sigmoid gate: weight E x d and expert_bias (E, a persistent
    # buffer the checkpoint stores); no biases in any MLP; two RMSNorms a block, one final.
    # The MTP layers (num_nextn_predict_layers) are built after the main stack as
    # model.layers.{n + j}: enorm, hnorm, eh_proj 2d x d, a block with the mixture whatever
    # first_k_dense_replace says, final_layernorm; they use the model's embedding and head.
    # Real files say model_type "bailing_moe" (Ling 1.0's) with BailingMoeV2ForCausalLM: read
    # through ARCHITECTURES.
    inner = Reader({**BAILING_MOE_V2_DEFAULTS, **r.cfg}, r.origin, r.family)
    d = inner.int("hidden_size")
    n = inner.int("num_hidden_layers", kind="layers")
    null_head = "head_dim" in r.cfg and r.cfg["head_dim"] is None
    h, hkv, dh = inner.heads(d, head_dim_default=None if null_head else 128)
    attn = Attention(h, hkv, dh, qkv_bias=inner.flag("use_qkv_bias", False),
                     o_bias=inner.flag("use_bias", False),
                     qk_norm="head" if inner.flag("use_qk_norm", True) else "")
    e, k = routed_experts(inner, n_key="num_experts")
    _group_limited(inner, e, k)
    width = inner.int("moe_intermediate_size")
    shared = inner.int("num_shared_experts", kind="experts", minimum=0)
    # vLLM and SGLang size the shared MLP from moe_shared_expert_intermediate_size (times
    # num_shared_experts) where the file has it; the reference code from moe_intermediate_size:
    # read where the two agree, refused naming the field where they do not
    own = inner.int("moe_shared_expert_intermediate_size", width)
    if own != width:
        raise ConfigError(
            f"{r.origin}: field 'moe_shared_expert_intermediate_size' ({own}) differs from "
            f"'moe_intermediate_size' ({width}): inclusionAI's code sizes the shared expert "
            "from the latter, vLLM from the former, so the count would depend on the runtime")
    # the reference code registers expert_bias whatever this says; vLLM builds none without it
    restated(inner, "moe_router_enable_expert_bias", True,
             "its gate keeps an expert_bias of num_experts entries")
    first = inner.int("first_k_dense_replace", kind="layers", minimum=0)
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0,
              d_shared=width * shared, router_bias=True)
    dense = MLP(inner.int("intermediate_size"))
    kw = decoder(inner, n_layers=n, norms=2, tied=inner.flag("tie_word_embeddings", False),
                 trained_context=read_context(inner, ...),
                 attention=lambda i: attn, mlp=lambda i: moe if i >= first else dense,
                 d_model=d)
    kw["extras"] = with_mtp(kw, inner.int("num_nextn_predict_layers", kind="layers", minimum=0),
                            [Layers(1, attn, mlp=moe, norms=2)],
                            "Ling 2.0's MTP layer (a block with the mixture; the model's embedding "
                            "and head)", own_embeddings=False, names="layers")
    r.read |= inner.read
    return kw


# ---- AFMoE (Arcee Trinity) ----------------------------------------------------------------------
def afmoe(r: Reader) -> dict[str, Any]:
    # Afmoe (Trinity Nano/Mini; transformers 5.24.0 modeling_afmoe.py): q/k/v/o (biases when
    # attention_bias), q_norm and k_norm RMSNorm(head_dim), and gate_proj d -> H d_h (no bias):
    # a sigmoid gate per channel on the attention output before o_proj; head_dim 128 by
    # default (a null one is refused: the class would take None). Windows by layer_types, else
    # every global_attn_every_n_layers-th layer full and the others sliding (AfmoeConfig's rule,
    # window sliding_window, 1024 by default). Four RMSNorms a block (input, post-attention,
    # pre-MLP, post-MLP), one final. The first num_dense_layers blocks have a gated MLP of
    # intermediate_size, the others num_experts packed gated experts of moe_intermediate_size,
    # one shared MLP of num_shared_experts x that width, a router d x E without bias and an
    # expert_bias Parameter of E (fp32). muP's input scaling (mup_enabled), route_scale and
    # route_norm are multipliers: no parameters. The remote code's grouped-routing keys (n_group,
    # topk_group, num_expert_groups, num_limited_groups; 1 in the released files) choose which
    # experts a token reads, not how many: read, no count.
    d = r.int("hidden_size", 2048)
    n = r.int("num_hidden_layers", 32, kind="layers")
    if "head_dim" in r.cfg and r.cfg["head_dim"] is None:
        raise ConfigError(f"{r.origin}: field 'head_dim' is null: transformers' AfmoeAttention "
                          "takes it as it is (no hidden_size / num_attention_heads fallback)")
    h, hkv, dh = r.heads(d, head_dim_default=128)
    bias = r.flag("attention_bias", False)
    every = r.int("global_attn_every_n_layers", 4, kind="count")
    types = r.str_list("layer_types", n, ("sliding_attention", "full_attention")) or [
        "sliding_attention" if (i + 1) % every else "full_attention" for i in range(n)]
    window = r.int("sliding_window", 1024, kind="context") if "sliding_window" not in r.cfg \
        or r.cfg["sliding_window"] is not None else None
    r.read.add("sliding_window")
    if window is None and "sliding_attention" in types:
        raise ConfigError(f"{r.origin}: field 'sliding_window' is null but the layer types "
                          "name sliding layers")
    r.read.update({"n_group", "topk_group", "num_expert_groups", "num_limited_groups"})
    e, k = routed_experts(r, n_key="num_experts", defaults=(64, 6))
    width = r.int("moe_intermediate_size", 1408)
    shared = r.int("num_shared_experts", 2, kind="experts", minimum=0)
    first = r.int("num_dense_layers", 1, kind="layers", minimum=0)
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0,
              d_shared=width * shared, router_bias=True)
    dense = MLP(r.int("intermediate_size", 6144))
    return decoder(
        r, n_layers=n, norms=4, tied=r.flag("tie_word_embeddings", False),
        trained_context=read_context(r, 16384),
        attention=lambda i: Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head",
                                      gate=dh, window=window if types[i] == "sliding_attention"
                                      else None),
        mlp=lambda i: moe if i >= first else dense, d_model=d,
        n_vocab=r.int("vocab_size", 200192, kind="vocab"))


# ---- MiniMax-M2 -----------------------------------------------------------------------------------
def _minimax_qk_norm(r: Reader, known: str, qk_norm: str) -> str:
    """MiniMax's q/k norms: none without ``use_qk_norm``; else ``qk_norm_type``, which must be
    the one kind the family's layout has (``known``, its default), read as the library's
    ``qk_norm`` (M2's "per_layer": norms over whole projections; M3's "per_head")."""
    if not r.flag("use_qk_norm", False):
        return ""
    kind = r.raw("qk_norm_type", known)
    if kind != known:
        raise ConfigError(f"{r.origin}: field 'qk_norm_type' = {kind!r:.40} is not counted "
                          f"(the '{r.family}' reader knows '{known}' q/k norms)")
    return qk_norm


def minimax_m2(r: Reader) -> dict[str, Any]:
    # MiniMaxM2: q/k/v/o without biases; with use_qk_norm and qk_norm_type "per_layer", q_norm
    # over all H head_dim query channels and k_norm over the H_kv head_dim key channels; every
    # block a mixture of num_local_experts gated experts of intermediate_size, a router d x E
    # and, with use_routing_bias, its e_score_correction_bias (E, a persistent buffer). The MTP
    # modules (use_mtp, num_mtp_modules) are not built by transformers and not counted.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    qk = _minimax_qk_norm(r, "per_layer", "full")
    r.refuse("shared_intermediate_size", "MiniMax-M2's layout has no shared expert")
    # MiniMax-M2.x files keep MiniMax-01's remote-code key with every layer softmax (1):
    # restated, read; a lightning layer (0) is MiniMax-01's layout, not M2's
    if 0 in r.int_list("attn_type_list", [], n=n if r.has("attn_type_list") else None):
        raise ConfigError(f"{r.origin}: field 'attn_type_list' marks lightning attention layers "
                          "(0), which MiniMax-M2's layout does not have (model_type 'minimax' "
                          "reads MiniMax-01's)")
    e, k = routed_experts(r, n_key="num_local_experts")
    moe = MLP(r.int("intermediate_size"), n_experts=e, top_k=k,
              router_bias=r.flag("use_routing_bias", False))
    # declared, not counted (no reference implementation of their layout was found): the
    # speculation workload 'mtp' refuses the model, naming the field, rather than count nothing
    mtp = r.int("num_mtp_modules", 0, kind="layers", minimum=0) \
        if r.flag("use_mtp", False) else 0
    r.read.update({"num_mtp_modules", "mtp_transformer_layers"})
    # vLLM splits M2's whole-projection norms with the heads (MiniMaxText01RMSNormTP,
    # formulas/engine.py): no copy on every chip
    attn = Attention(h, hkv, dh, qk_norm=qk, qk_norm_split=qk == "full")
    return {**decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                      trained_context=read_context(r),
                      attention=lambda i: attn, mlp=lambda i: moe, d_model=d),
            "mtp_modules": mtp, "mtp_field": "num_mtp_modules" if mtp else ""}


# ---- MiniMax-M3 -----------------------------------------------------------------------------------
#: Keys of ``sparse_attention_config`` the minimax_m3 reader reads (vLLM's MiniMaxM3TextConfig);
#: ``sparse_score_type`` (how block scores pool) changes no count.
MSA_KEYS = ("use_sparse_attention", "sparse_attention_freq", "sparse_disable_index_value",
            "sparse_num_index_heads", "sparse_index_dim", "sparse_block_size",
            "sparse_topk_blocks", "sparse_init_block", "sparse_local_block", "sparse_score_type")


def minimax_m3(r: Reader) -> dict[str, Any]:
    # MiniMax-M3's text tower (FAMILIES.md section 14.6; vLLM's vllm/models/minimax_m3/nvidia/
    # model.py, transformers' minimax_m3_vl_text): q/k/v/o without biases, per-head q/k norms
    # (qk_norm_type "per_head", Gemma-style weights: the same count), two norms per block; the
    # layers sparse_attention_freq marks add MiniMax Sparse Attention's indexer (index_q_proj
    # d -> H_I d_I, index_k_proj d -> d_I, a norm of d_I on each; no index value or output
    # projection where sparse_disable_index_value is set), which picks sparse_topk_blocks
    # blocks of sparse_block_size tokens per key/value head, the current block among them;
    # the layers moe_layer_freq marks a mixture of num_local_experts gated experts of
    # intermediate_size (top num_experts_per_tok, no biases), one shared expert of
    # shared_intermediate_size, a router d x E and its e_score_correction_bias; the others a
    # dense gated MLP of dense_intermediate_size. The checkpoint ships no MTP module
    # (num_mtp_modules, num_nextn_predict_layers: read, not counted).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    qk = _minimax_qk_norm(r, "per_head", "head")
    r.refuse("attention_output_gate", "an output gate on MiniMax-M3's attention is not counted")
    sparse = r.raw("sparse_attention_config", {})
    if not isinstance(sparse, Mapping):
        raise ConfigError(f"{r.origin}: field 'sparse_attention_config' must be an object")
    unknown = sorted(set(sparse) - set(MSA_KEYS))
    if unknown:
        raise ConfigError(f"{r.origin}: field 'sparse_attention_config.{unknown[0]}' is not "
                          "understood by the 'minimax_m3' reader, and counting without it would "
                          "describe a different model")
    # errors name the object and the key inside it
    s = Reader(sparse, f"{r.origin}: sparse_attention_config", r.family)
    sparse_layers = [False] * n
    index: dict[str, int] = {}
    # vLLM builds a sparse layer where sparse_attention_freq is nonzero and none without it,
    # whatever use_sparse_attention says (_sparse_attention_layer_ids, vllm/models/minimax_m3/
    # nvidia/model.py @0443308a): a file where the two disagree is refused, not guessed
    use, listed = s.flag("use_sparse_attention", False), s.has("sparse_attention_freq")
    if use and not listed:
        raise ConfigError(f"{r.origin}: field 'sparse_attention_config.sparse_attention_freq' "
                          "is missing: use_sparse_attention is true, but vLLM makes a layer "
                          "sparse only where this list says so (without it, none)")
    if not use and any(s.int_list("sparse_attention_freq", [], n=n)):
        raise ConfigError(f"{r.origin}: field 'sparse_attention_config.use_sparse_attention' "
                          "is not true, but 'sparse_attention_freq' marks sparse layers, which "
                          "vLLM builds from that list alone")
    if use:
        freq = s.int_list("sparse_attention_freq", [], n=n)
        no_value = s.int_list("sparse_disable_index_value", [1] * n, n=n)
        sparse_layers = [f != 0 for f in freq]
        valued = [i for i in range(n) if sparse_layers[i] and not no_value[i]]
        if valued:
            raise ConfigError(f"{r.origin}: field 'sparse_attention_config."
                              f"sparse_disable_index_value' is 0 on sparse layer {valued[0]}: "
                              "an index value and output projection are not counted")
        if s.int("sparse_init_block", 0, kind="count", minimum=0):
            raise ConfigError(f"{r.origin}: field 'sparse_attention_config.sparse_init_block' "
                              "> 0: blocks kept at the start of the context are not counted")
        block = s.int("sparse_block_size", kind="context")
        blocks = s.int("sparse_topk_blocks", kind="count")
        if s.int("sparse_local_block", 0, kind="count", minimum=0) > blocks:
            raise ConfigError(f"{r.origin}: field 'sparse_attention_config.sparse_local_block' "
                              "exceeds 'sparse_topk_blocks' (the local blocks are among them)")
        s.raw("sparse_score_type")
        index = dict(index_heads=s.int("sparse_num_index_heads", kind="heads"),
                     index_dim=s.int("sparse_index_dim"), index_topk=blocks * block,
                     index_block=block)
    moe_flags = [f != 0 for f in r.int_list("moe_layer_freq", [1] * n, n=n)]
    first = r.int("first_k_dense_replace", None, kind="layers", minimum=0)
    if first is not None and moe_flags != [i >= first for i in range(n)]:
        raise ConfigError(f"{r.origin}: field 'first_k_dense_replace' ({first}) contradicts "
                          "'moe_layer_freq'")
    e, k = routed_experts(r, n_key="num_local_experts")
    d_e = r.int("intermediate_size")
    if r.int("moe_intermediate_size", d_e) != d_e:
        raise ConfigError(f"{r.origin}: field 'moe_intermediate_size' differs from "
                          "'intermediate_size' (MiniMax-M3's experts are intermediate_size wide)")
    n_shared = r.int("n_shared_experts", 0, kind="experts", minimum=0)
    d_shared = r.int("shared_intermediate_size", 0, minimum=0)
    if d_shared != n_shared * d_e:  # vLLM builds n_shared x intermediate_size, transformers
        raise ConfigError(           # shared_intermediate_size: the file must agree
            f"{r.origin}: field 'shared_intermediate_size' ({d_shared}) is not "
            f"'n_shared_experts' x 'intermediate_size' ({n_shared} x {d_e})")
    moe = MLP(d_e, n_experts=e, top_k=k, n_shared=1 if n_shared else 0, d_shared=d_shared,
              router_bias=r.flag("use_routing_bias", False))
    dense = MLP(r.int("dense_intermediate_size"))
    # declared, not counted (the checkpoint ships none): kept so that the speculation workload
    # 'mtp' refuses the model naming the field, not as a model without a module
    declared = {k: r.int(k, 0, kind="layers", minimum=0)
                for k in ("num_mtp_modules", "num_nextn_predict_layers")}
    field = next((k for k, v in declared.items() if v), "")
    full, msa = Attention(h, hkv, dh, qk_norm=qk), Attention(h, hkv, dh, qk_norm=qk, **index)
    return {**decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                      trained_context=read_context(r),
                      attention=lambda i: msa if sparse_layers[i] else full,
                      mlp=lambda i: moe if moe_flags[i] else dense, d_model=d),
            "mtp_modules": declared.get(field, 0), "mtp_field": field}


# ---- gpt-oss ------------------------------------------------------------------------------------
def gpt_oss(r: Reader) -> dict[str, Any]:
    # GptOss: q/k/v/o with biases (attention_bias), a learned sink per head, layer_types
    # (sliding_attention / full_attention), MoE of num_local_experts with biases on every
    # expert matrix (gate_up 2 d_ff, down d) and a router with a bias; 2 norms per block.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d, head_dim_default=64)
    bias = r.flag("attention_bias", True)
    window = read_window(r, 128)
    flags = window_flags(r, n, "alternate")
    e, k = routed_experts(r, n_key="num_local_experts")
    r.read.add("experts_per_token")
    if r.int("experts_per_token", k, kind="experts") != k:
        raise ConfigError(f"{r.origin}: 'experts_per_token' and 'num_experts_per_tok' differ")
    mlp = MLP(r.int("intermediate_size"), bias=True, n_experts=e, top_k=k, router_bias=True)
    return decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                   trained_context=read_context(r),
                   attention=lambda i: Attention(h, hkv, dh,
                                                 window=window if flags[i] else None,
                                                 qkv_bias=bias, o_bias=bias, sinks=True),
                   mlp=lambda i: mlp, d_model=d)


# ---- Llama 4 ------------------------------------------------------------------------------------
def llama4_text(r: Reader) -> dict[str, Any]:
    # Llama4Text: q/k/v/o (attention_bias); the L2 q/k norm has no weights; layers with RoPE use
    # chunked attention, every no_rope_layer_interval-th layer (NoPE) full attention; MoE layers
    # every interleave_moe_layer_step (num_local_experts of intermediate_size, one shared
    # expert of intermediate_size, router d x E), dense layers of intermediate_size_mlp.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    r.flag("use_qk_norm", True)  # weightless L2 norm: no parameters
    chunk = r.int("attention_chunk_size", 8192, kind="context")
    nope = r.int_list("no_rope_layers", [], n=None)
    interval = r.int("no_rope_layer_interval", 4, kind="count")
    if not nope:
        nope = [int((i + 1) % interval != 0) for i in range(n)]  # 1: uses RoPE
    if len(nope) != n:
        raise ConfigError(f"{r.origin}: field 'no_rope_layers' has {len(nope)} entries for "
                          f"{n} layers")
    step = r.int("interleave_moe_layer_step", 1, kind="count")
    moe_layers = set(r.int_list("moe_layers", list(range(step - 1, n, step))))
    e, k = routed_experts(r, n_key="num_local_experts")
    width = r.int("intermediate_size")
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1, d_shared=width)
    dense = MLP(r.int("intermediate_size_mlp"))
    return decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                   trained_context=read_context(r),
                   attention=lambda i: Attention(h, hkv, dh, chunk=chunk if nope[i] else None,
                                                 qkv_bias=bias, o_bias=bias),
                   mlp=lambda i: moe if i in moe_layers else dense, d_model=d)


def llama4(r: Reader) -> dict[str, Any]:
    text = r.raw("text_config", None)
    if text is None:
        return llama4_text(r)
    if not isinstance(text, dict):
        raise ConfigError(f"{r.origin}: 'text_config' must be an object")
    tr = Reader(text, r.origin + ": text_config", "llama4_text")
    kw = llama4_text(tr)
    tr.check_unread()
    vision = r.raw("vision_config", None)
    if vision is not None:
        if not isinstance(vision, dict):
            raise ConfigError(f"{r.origin}: 'vision_config' must be an object")
        vr = Reader(vision, r.origin + ": vision_config", "llama4_vision_model")
        kw["extras"] = (Extra("vision tower and projector",
                              _llama4_vision_params(vr, kw["d_model"]), True,
                              "Llama 4's vision encoder, pixel-shuffle adapter and projector",
                              image=_llama4_image_rule(vr, kw["d_model"])),)
    return kw


def _llama4_image_rule(r: Reader, d_text: int) -> ImageRule | None:
    """Llama 4's image rule (FAMILIES.md): tiles of ``image_size`` (336 px; the processor's
    default size, transformers 5.24.0 ``models/llama4/image_processing_llama4.py``
    ``Llama4ImageProcessor``, and at most its ``max_patches`` = 16 tiles), each running
    (image / patch)^2 patches and the class token (``Llama4VisionModel`` drops it after the
    blocks), pixel-shuffled by ``pixel_shuffle_ratio`` into (image / patch)^2 r^2 tokens. The
    tower's weights per patch: the patch embedding and per block q, k, v, o and the MLP h ->
    inter -> h; per token the adapter's two matrices (h / r^2 -> projector_input_dim ->
    projector_output_dim) and the projector vision_output_dim -> d_text. None where 1 / ratio
    is not a whole number of patches per side."""
    h, p, size = r.int("hidden_size"), r.int("patch_size", kind="count"), r.int("image_size")
    ratio = r.raw("pixel_shuffle_ratio")
    merge = round(1 / ratio)
    if merge * ratio != 1 or size % (p * merge):
        return None
    adapter = round(h / (ratio * ratio)) * r.int("projector_input_dim") \
        + r.int("projector_input_dim") * r.int("projector_output_dim")
    return ImageRule(rule="llama4", patch=p, merge=merge, width=h,
                     layers=r.int("num_hidden_layers", kind="layers"), size=size, max_tiles=16,
                     class_token=1, tower_matmul=vit_matmul_params(r, p),
                     patch_matmul=vit_patch_params(r, p),
                     merger_matmul=adapter + r.int("vision_output_dim") * d_text,
                     heads=r.int("num_attention_heads", kind="heads"),
                     heads_key="vision_config.num_attention_heads")


def _llama4_vision_params(r: Reader, d_text: int) -> int:
    """Parameters of Llama 4's vision encoder, adapter and projector. The config class's
    vision defaults are not Scout's, so every size must be in the file."""
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    r.int("num_attention_heads", kind="heads")
    c = r.int("num_channels", 3, kind="count")
    p = r.int("patch_size", kind="count")
    image = r.int("image_size")
    ratio = r.raw("pixel_shuffle_ratio")
    if not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
        raise ConfigError(f"{r.origin}: field 'pixel_shuffle_ratio' must be in (0, 1]")
    proj_in = r.int("projector_input_dim")
    proj_out = r.int("projector_output_dim")
    out_dim = r.int("vision_output_dim")
    if r.flag("multi_modal_projector_bias", False):
        raise ConfigError(f"{r.origin}: field 'multi_modal_projector_bias' = true is not counted")
    embeddings = c * p * p * h + h + ((image // p) ** 2 + 1) * h + 2 * 2 * h
    layer = vit_block_params(h, inter)
    adapter = round(h / (ratio * ratio)) * proj_in + proj_in * proj_out
    return embeddings + n * layer + adapter + out_dim * d_text


# ---- Step3 (multi-matrix factorization attention: a low-rank query, one key/value head) --------
def _step3_moe_layers(r: Reader, n: int) -> set[int]:
    """The MoE layers of a Step3 file: ``moe_layers_enum``, comma-separated indices (the Hub's
    form, which vLLM's ``Step3TextDecoderLayer`` splits) or a list. Required: without it vLLM's
    decoder would split Step3TextConfig's default tuple, so no default is assumed."""
    v = r.raw("moe_layers_enum")
    if v is None:
        raise ConfigError(f"{r.origin}: missing field 'moe_layers_enum' (which layers are "
                          "mixtures of experts)")
    items = v.split(",") if isinstance(v, str) else v
    try:
        at = [int(str(i).strip()) for i in items if str(i).strip()]
    except (TypeError, ValueError):
        raise ConfigError(f"{r.origin}: field 'moe_layers_enum' must list layer indices, got "
                          f"{v!r:.60}") from None
    if any(i < 0 or i >= n for i in at) or len(set(at)) != len(at):
        raise ConfigError(f"{r.origin}: field 'moe_layers_enum' must list distinct layer "
                          f"indices below 'num_hidden_layers' ({n})")
    return set(at)


def step3_text(r: Reader) -> dict[str, Any]:
    # Step3TextForCausalLM (vLLM vllm/model_executor/models/step3_text.py @
    # 0169d3962ccac3798b508b16f74aafb8106d19fa; Step3TextConfig in
    # vllm/transformers_utils/configs/step3_vl.py @ fb6c0501838195b3f6d715e5a1cf0be42546d27a;
    # transformers 5.24.0 has no step3 model): per layer one ReplicatedLinear qkv_proj
    # d -> share_q_dim + 2 head_dim (no bias), inter_norm RMSNorm(share_q_dim), wq
    # share_q_dim -> H head_dim, o_proj H head_dim -> d; one key/value head (vLLM refuses
    # another); on the layers moe_layers_enum lists, a router d x E (no bias, no correction
    # bias), E experts of moe_intermediate_size (gated SiLU) and one shared expert of
    # share_expert_dim (no gate); elsewhere a gated MLP of intermediate_size; two RMSNorms a
    # layer, a final norm, an untied head (ParallelLMHead).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    for key in ("num_attention_groups", "num_key_value_heads"):
        if r.int(key, 1, kind="heads") != 1:
            raise ConfigError(f"{r.origin}: field '{key}' must be 1: Step3's attention has "
                              "one key/value head (vLLM's Step3TextAttention refuses another)")
    dh = r.int("head_dim", 256)  # Step3TextConfig's default
    # the query's rank: Step3TextConfig's default 2048 when absent; null: vLLM's q_size falls
    # back to head_dim
    rank = r.int("share_q_dim", dh) if "share_q_dim" in r.cfg else 2048
    r.read.add("share_q_dim")
    if r.raw("hidden_act", "silu") != "silu":
        raise ConfigError(f"{r.origin}: field 'hidden_act' must be 'silu' (vLLM's Step3TextMLP "
                          "refuses another)")
    r.refuse("attention_bias", "Step3's projections have no biases")
    r.refuse("mlp_bias", "Step3's MLPs have no biases")
    if r.flag("tie_word_embeddings", False):
        raise ConfigError(f"{r.origin}: field 'tie_word_embeddings' = true is not supported: "
                          "Step3TextForCausalLM builds its own output head")
    moe_at = _step3_moe_layers(r, n)
    moe = dense = None
    if moe_at:
        e = r.int("moe_num_experts", kind="experts")
        k = r.int("moe_top_k", kind="experts")
        if k > e:
            raise ConfigError(f"{r.origin}: field 'moe_top_k' ({k}) exceeds 'moe_num_experts' "
                              f"({e})")
        moe = MLP(r.int("moe_intermediate_size"), n_experts=e, top_k=k, n_shared=1,
                  d_shared=r.int("share_expert_dim"))
    if len(moe_at) < n:
        dense = MLP(r.int("intermediate_size"))
    context = r.int("max_position_embedding", None, kind="context")
    if context is None:
        context = r.int("max_seq_len", None, kind="context")
    r.read.update({"max_seq_len", "max_position_embeddings", "norm_expert_weight"})
    attn = Attention(h, 1, dh, q_lora_rank=rank)
    return decoder(r, n_layers=n, norms=2, tied=False, trained_context=context,
                   attention=lambda i: attn, mlp=lambda i: moe if i in moe_at else dense,
                   d_model=d)


#: model_type -> reader.
# ---- Grok-1 / Grok-2 (xAI; SGLang's Grok1ForCausalLM) -------------------------------------------
def grok(r: Reader) -> dict[str, Any]:
    # SGLang python/sglang/srt/models/grok.py (sgl-project/sglang @ 031ad4ce), the layout xAI's
    # Grok-2 release is served with (its config.json says model_type "git", which transformers
    # uses for another model: the file is read by its architectures, Grok1ForCausalLM). Each
    # block: pre_attn_norm, attention (qkv_proj and o_proj without biases; head_dim 128 unless
    # given), post_attn_norm, pre_moe_norm, a mixture (a bias-free router of d x E, E experts of
    # moe_intermediate_size, else intermediate_size, gated GELU: w1, w3, w2), post_moe_norm:
    # four RMSNorms. With residual_moe a dense gated MLP of intermediate_size runs beside the
    # mixture on the same input, the sum scaled by 1/sqrt(2): every token uses it, a shared
    # expert of that width. Embedding and lm_head apart (SGLang always builds and loads its own
    # lm_head), a final norm. The multipliers (embedding, output, attention temperature) and the
    # soft caps (attention, router, final logits) change no count. SGLang builds no window.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d, head_dim_default=128)
    e, k = routed_experts(r, n_key="num_local_experts")
    d_moe = r.int("moe_intermediate_size", None)
    residual = r.flag("residual_moe", False)
    d_ff = r.int("intermediate_size", None if (d_moe and not residual) else ...)
    mlp = MLP(d_moe or d_ff, n_experts=e, top_k=k, n_shared=int(residual),
              d_shared=d_ff if residual else 0)
    restated(r, "tie_word_embeddings", False, "SGLang loads a separate lm_head")
    restated(r, "attention_bias", False, "its q/k/v and output projections have no biases")
    for key, plain in (("sliding_window_size", -1), ("global_attn_every_n", 1)):
        v = r.raw(key, plain)
        if v != plain:
            raise ConfigError(f"{r.origin}: field '{key}' = {v!r:.60} is not supported: SGLang's "
                              "Grok1ForCausalLM attends to the whole context in every layer")
    return decoder(
        r, n_layers=n, norms=4, tied=False,
        trained_context=read_context(r),
        attention=lambda i: Attention(h, hkv, dh), mlp=lambda i: mlp, d_model=d)


# ---- Qwen1.5-MoE and Qwen2-MoE (qwen2_moe) ---------------------------------------------------------
def qwen2_moe(r: Reader) -> dict[str, Any]:
    # Qwen2Moe (transformers 5.24.0 modeling_qwen2_moe.py, configuration_qwen2_moe.py): q, k, v
    # with biases when qkv_bias (default true), o_proj without; head_dim from the file, else
    # d / H. Layer i is a mixture unless i is in mlp_only_layers or (i + 1) % decoder_sparse_step
    # is not 0 (then a dense gated MLP of intermediate_size). The mixture: a bias-free router
    # d x E, E experts of moe_intermediate_size, one shared expert of
    # shared_expert_intermediate_size whose output is scaled by sigmoid(shared_expert_gate(x)),
    # a d -> 1 linear without bias (d parameters). Two RMSNorms a block, a final norm, the head
    # untied by default. Qwen2MoeConfig's window rule (every other layer below
    # max_window_layers when use_sliding_window) is refused rather than guessed: no released
    # file sets it and runtimes build it differently.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    qkv_bias = r.flag("qkv_bias", True)
    if r.flag("use_sliding_window", False):
        raise ConfigError(f"{r.origin}: field 'use_sliding_window' = true is not supported: "
                          "Qwen2-MoE's window rule is not modelled (no released file sets it)")
    r.read |= {"sliding_window", "max_window_layers"}  # unused without use_sliding_window
    types = r.str_list("layer_types", n, ("full_attention", "sliding_attention"))
    if types is not None and "sliding_attention" in types:
        raise ConfigError(f"{r.origin}: field 'layer_types' lists sliding layers: Qwen2-MoE's "
                          "window rule is not modelled (no released file sets it)")
    e, k = routed_experts(r, n_key="num_experts", defaults=(60, 4))
    step = r.int("decoder_sparse_step", 1, kind="count")
    dense = set(r.int_list("mlp_only_layers", []))
    if not dense <= set(range(n)):
        raise ConfigError(f"{r.origin}: field 'mlp_only_layers' names layers outside 0-{n - 1}")
    shared = r.int("shared_expert_intermediate_size", 5632)
    moe = MLP(r.int("moe_intermediate_size", 1408), n_experts=e, top_k=k, n_shared=1,
              d_shared=shared, shared_gate=True)
    dense_mlp = MLP(r.int("intermediate_size", 5632))
    return decoder(
        r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
        trained_context=read_context(r),
        attention=lambda i: Attention(h, hkv, dh, qkv_bias=qkv_bias, o_bias=False),
        mlp=lambda i: moe if (i not in dense and (i + 1) % step == 0) else dense_mlp,
        d_model=d)


# ---- DBRX (dbrx) ------------------------------------------------------------------------------
#: transformers' DbrxConfig defaults (configuration_dbrx.py in transformers 5.24.0) for the keys
#: that size the model, at the top level and in its two sub-configurations.
DBRX_DEFAULTS: Mapping[str, Any] = {"d_model": 2048, "n_heads": 16, "n_layers": 24,
                                    "max_seq_len": 2048, "vocab_size": 32000}

DBRX_ATTN_DEFAULTS: Mapping[str, Any] = {"kv_n_heads": 1}

DBRX_FFN_DEFAULTS: Mapping[str, Any] = {"ffn_hidden_size": 3584, "moe_num_experts": 4,
                                        "moe_top_k": 1}

#: DbrxConfig's attribute_map: the generic name a file may use for each of its own keys.
DBRX_ALIASES: Mapping[str, str] = {"hidden_size": "d_model", "num_attention_heads": "n_heads",
                                   "num_hidden_layers": "n_layers",
                                   "max_position_embeddings": "max_seq_len"}


def _dbrx_part(r: Reader, key: str, defaults: Mapping[str, Any]) -> Reader:
    """A reader of the sub-configuration ``key`` (``attn_config``, ``ffn_config``) over
    transformers' defaults, its errors naming ``key``."""
    scope = r.raw(key, {})
    if not isinstance(scope, Mapping):
        raise ConfigError(f"{r.origin}: field '{key}' must be an object")
    return defaulted(scope, defaults, f"{r.origin}: {key}", r.family)


def dbrx(r: Reader) -> dict[str, Any]:
    # Dbrx (transformers 5.24.0 modeling_dbrx.py): each block is norm_1, attention (one fused
    # Wqkv d -> d + 2 kv_n_heads d_head and out_proj, no biases; clip_qkv clamps the
    # projections: no parameter), norm_2, then a mixture (DbrxRouter: a bias-free d x E linear;
    # DbrxExpertGLU: E experts each w1, v1, w2 of ffn_hidden_size x d, a gated MLP whatever
    # ffn_act_fn names), top moe_top_k. Both norms and the final norm_f are LayerNorms without
    # bias (d each). wte and lm_head apart: DbrxConfig refuses a tied head.
    cfg = dict(r.cfg)
    for alias, key in DBRX_ALIASES.items():
        if cfg.get(alias) is not None:
            r.read.add(alias)
            if cfg.get(key) is not None and cfg[key] != cfg[alias]:
                raise ConfigError(f"{r.origin}: field '{alias}' ({cfg[alias]!r:.40}) disagrees "
                                  f"with '{key}' ({cfg[key]!r:.40}), which DbrxConfig maps it to")
            cfg[key] = cfg[alias]
    inner = defaulted(cfg, DBRX_DEFAULTS, r.origin, r.family)
    restated(inner, "tie_word_embeddings", False, "DbrxConfig refuses a tied head")
    d = inner.int("d_model")
    n = inner.int("n_layers", kind="layers")
    attn = _dbrx_part(inner, "attn_config", DBRX_ATTN_DEFAULTS)
    ffn = _dbrx_part(inner, "ffn_config", DBRX_FFN_DEFAULTS)
    h = inner.int("n_heads", kind="heads")
    hkv = attn.int("kv_n_heads", kind="heads")
    if d % h or h % hkv:  # DbrxAttention: head_dim = d_model // n_heads
        raise ConfigError(f"{r.origin}: field 'n_heads' ({h}) must divide 'd_model' ({d}) and "
                          f"be a multiple of 'attn_config.kv_n_heads' ({hkv})")
    attn.raw("clip_qkv")  # clamps q, k and v: no parameter
    e, k = routed_experts(ffn, n_key="moe_num_experts", k_key="moe_top_k")
    ffn.raw("ffn_act_fn")  # the GLU's activation: three matrices whatever it is
    mlp = MLP(ffn.int("ffn_hidden_size"), n_experts=e, top_k=k)
    attn.check_unread()
    ffn.check_unread()
    kw = decoder(
        inner, n_layers=n, norms=2, tied=False,
        trained_context=inner.int("max_seq_len", kind="context"),
        attention=lambda i: Attention(h, hkv, d // h), mlp=lambda i: mlp, d_model=d)
    r.read |= inner.read
    return kw
