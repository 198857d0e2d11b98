"""Readers of dense decoders with Llama's block (rotary attention, RMSNorm, a gated MLP) and its
variants: Llama, Mistral, Qwen 2/3, Phi-3, OLMo 2/3, Command R, GLM-4, Seed-OSS, ERNIE 4.5,
EXAONE, SmolLM3, Arcee, Apertus, MiniCPM, InternLM3 and Granite. :func:`llama_like` is the
shared layout; the mixtures of experts and Gemma build on it too.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ...core.errors import ConfigError
from ..model import MLP, Attention, Extra, Layers
from .base import (Reader, decoder, defaulted, read_context, read_window, restated, same_blocks,
                   window_flags, with_mlp, with_mtp)


def llama_like(r: Reader, *, tied: bool = False, qkv_bias: bool | None = None,
               o_bias: bool | None = None, norms: int = 2, window_rule: str = "",
               qk_norm: str = "", head_dim_default: int | None = None,
               window_default: int | None = None) -> dict[str, Any]:
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d, head_dim_default=head_dim_default)
    if qkv_bias is None or o_bias is None:
        attn_bias = r.flag("attention_bias", False)
    else:  # the family fixes the biases: a file that says otherwise is another model
        attn_bias = False
        declared = r.flag("attention_bias", qkv_bias or o_bias)
        if declared != (qkv_bias or o_bias):
            layout = "has q/k/v biases" if qkv_bias or o_bias else "has no biases"
            raise ConfigError(
                f"{r.origin}: field 'attention_bias' = {str(declared).lower()} contradicts the "
                f"'{r.family}' layout (its attention {layout}), and counting without it would "
                "describe a different model; is the model_type right?")
    qkv_b = attn_bias if qkv_bias is None else qkv_bias
    o_b = attn_bias if o_bias is None else o_bias
    window = read_window(r, window_default) if window_rule else None
    flags = window_flags(r, n, window_rule) if window else [False] * n
    mlp = MLP(d_ff=r.int("intermediate_size"), n_mats=3, bias=r.flag("mlp_bias", False))
    return decoder(
        r, n_layers=n, norms=norms, tied=r.flag("tie_word_embeddings", tied),
        trained_context=read_context(r),
        attention=lambda i: Attention(h, hkv, dh, window=window if flags[i] else None,
                                      qkv_bias=qkv_b, o_bias=o_b, qk_norm=qk_norm),
        mlp=lambda i: mlp, d_model=d)


def llama(r: Reader) -> dict[str, Any]:
    return llama_like(r)


def mistral(r: Reader) -> dict[str, Any]:
    return llama_like(r, qkv_bias=False, o_bias=False, window_rule="all")


def smollm3(r: Reader) -> dict[str, Any]:
    # SmolLM3: Llama's layout without biases, the head tied by default (SmolLM3Config), and
    # NoPE layers (no_rope_layers: 0 skips the rotary embedding), which change no count.
    # max_window_layers is a Qwen2 key the model does not read. A window exists only where
    # use_sliding_window and sliding_window are both set, on NoPE layers: not read, refused.
    n = r.int("num_hidden_layers", kind="layers")
    r.int("no_rope_layer_interval", 4, kind="count")
    if set(r.int_list("no_rope_layers", [], n=n)) - {0, 1}:
        raise ConfigError(f"{r.origin}: field 'no_rope_layers' must hold 0 (NoPE) or 1 "
                          "(rotary) per layer")
    types = r.str_list("layer_types", n, ("full_attention", "sliding_attention")) or []
    r.read.add("max_window_layers")
    if r.flag("use_sliding_window", False) or "sliding_attention" in types:
        r.refuse("sliding_window", "SmolLM3's sliding NoPE layers are not read")
    return llama_like(r, tied=True, qkv_bias=False, o_bias=False)


def arcee(r: Reader) -> dict[str, Any]:
    # Arcee (AFM-4.5B; transformers 5.24.0 modeling_arcee.py): Llama's attention (q/k/v/o with
    # biases when attention_bias, head_dim given or d / H) and an ungated MLP, up_proj d -> w and
    # down_proj w -> d (biases when mlp_bias) around ReLU^2: two matrices, not Llama's three;
    # two RMSNorms a block, untied head by default.
    return with_mlp(llama_like(r), lambda mlp: replace(mlp, n_mats=2))


def qwen2(r: Reader) -> dict[str, Any]:
    return llama_like(r, qkv_bias=True, o_bias=False, window_rule="qwen2")


def mimo(r: Reader) -> dict[str, Any]:
    # MiMo-7B (XiaomiMiMo's remote code, modeling_mimo.py; search index file ids 25354746383,
    # 34248343018): MiMoConfig is Qwen2Config with num_nextn_predict_layers, MiMoModel is
    # Qwen2Model with `mtp_layers`, each token_layernorm, hidden_layernorm (d), input_proj
    # (2d x d), a Qwen2 block (input_layernorm, Qwen2Attention with q/k/v biases, its
    # post_attention_layernorm, Qwen2MLP) and final_layernorm; embeddings and head are the
    # model's. Reported apart, as DeepSeek-V3's MTP module; transformers defines no `mimo`.
    kw = qwen2(r)
    first = kw["layers"][0]
    kw["extras"] = with_mtp(kw, r.int("num_nextn_predict_layers", 0, kind="layers", minimum=0),
                            [Layers(1, replace(first.attention, window=None), mlp=first.mlp,
                                    norms=2)],
                            "MiMo's MTP layers: a Qwen2 block each, embeddings and head shared",
                            own_embeddings=False)
    return kw


def qwen3(r: Reader) -> dict[str, Any]:
    return llama_like(r, qk_norm="head", window_rule="qwen2", head_dim_default=128)


def phi3(r: Reader) -> dict[str, Any]:
    return llama_like(r, qkv_bias=False, o_bias=False, window_rule="all")


def olmo2(r: Reader) -> dict[str, Any]:
    # Olmo2: q_norm over H d_head, k_norm over H_kv d_head; post-attention and post-feedforward
    # norms, no pre-norms: 2 per block.
    return llama_like(r, qk_norm="full", norms=2)


def olmo3(r: Reader) -> dict[str, Any]:
    # Olmo3 (transformers 5.24.0 modeling_olmo3.py): OLMo 2's block (q_norm over H head_dim,
    # k_norm over H_kv head_dim, post-attention and post-feedforward norms, no pre-norms,
    # biases on q/k/v/o when attention_bias) with windows: layer_types, else
    # Olmo3Config's rule, three sliding layers then one full (i + 1) % 4 != 0; sliding_window
    # 4096 by default. A null window with sliding layers is refused (no window to keep).
    _sliding_types(r, r.int("num_hidden_layers", kind="layers"), "OLMo 3")
    return llama_like(r, qk_norm="full", norms=2, window_rule="olmo3", window_default=4096)


def _sliding_types(r: Reader, n: int, name: str) -> list[str] | None:
    """``layer_types`` (sliding or full, one per layer), or None; a null ``sliding_window``
    where some layer slides (or the family's rule would make one slide) is refused: the
    family's sliding layers need a window."""
    types = r.str_list("layer_types", n, ("sliding_attention", "full_attention"))
    if "sliding_window" in r.cfg and r.cfg["sliding_window"] is None and (
            types is None or "sliding_attention" in types):
        raise ConfigError(f"{r.origin}: field 'sliding_window' is null, but {name}'s sliding "
                          "layers need a window; give the window, or layer_types without "
                          "sliding layers")
    return types


def cohere(r: Reader) -> dict[str, Any]:
    r.refuse("use_qk_norm", "Cohere's per-head q/k LayerNorms are not counted")
    return llama_like(r, tied=True, norms=1)


def cohere2(r: Reader) -> dict[str, Any]:
    # Cohere2 (Command R7B, Command A; transformers 5.24.0 modeling_cohere2.py): one LayerNorm
    # without bias (a weight of d) feeds attention and the MLP side by side (a parallel block:
    # the same weights, reads and FLOPs as one after the other); q, k, v, o with biases when
    # attention_bias; a gated MLP without biases; a final LayerNorm of d; the head tied by
    # default; logits scaled by logit_scale (no parameter). head_dim is d / H whatever the file
    # says (Cohere2Config.__post_init__ sets it), so a head_dim that differs is refused. Windows:
    # layer_types, else every sliding_window_pattern-th layer (default 4) is global and the
    # others slide over sliding_window (default 4096); the global layers use no positional
    # encoding (NoPE), which changes no count. A null window with sliding layers is refused.
    d = r.int("hidden_size")
    h = r.int("num_attention_heads", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) does not divide "
                          f"'hidden_size' ({d}), which Cohere 2's head width needs")
    if r.has("head_dim") and r.int("head_dim") != d // h:
        raise ConfigError(f"{r.origin}: field 'head_dim' ({r.int('head_dim')}) differs from "
                          f"hidden_size / num_attention_heads ({d // h}): transformers' "
                          "Cohere 2 builds heads of d / H whatever the file says")
    n = r.int("num_hidden_layers", kind="layers")
    types = _sliding_types(r, n, "Cohere 2")
    if types is not None and r.cfg.get("sliding_window_pattern") is not None:
        # both given: transformers reads layer_types and ignores the pattern; they must agree
        p = r.int("sliding_window_pattern", kind="count")
        if [t == "sliding_attention" for t in types] != [(i + 1) % p != 0 for i in range(n)]:
            raise ConfigError(f"{r.origin}: field 'layer_types' disagrees with "
                              f"'sliding_window_pattern' ({p}): give one of them")
    r.refuse("layer_norm_bias", "Cohere 2's LayerNorms have no bias in transformers and vLLM")
    restated(r, "mlp_bias", False, "its MLP has no biases")
    r.raw("logit_scale")  # scales the logits: no parameter
    return llama_like(r, tied=True, norms=1, window_rule="cohere2", window_default=4096)


#: What Apertus's xIELU activation learns per MLP (transformers' activations.XIELU: the
#: parameters alpha_p and alpha_n, one scalar each; beta and eps are buffers, constants).
XIELU_PARAMS = 2

XIELU_EXTRA = "xIELU activation scalars (alpha_p, alpha_n per layer)"


def apertus(r: Reader) -> dict[str, Any]:
    # ApertusForCausalLM (transformers 5.24.0 models/apertus/modeling_apertus.py): Llama's
    # attention (q/k/v/o, biases when attention_bias) with a q and a k RMSNorm of head_dim
    # always; an MLP of up_proj d -> ff and down_proj ff -> d, no gate and no biases, whose
    # activation is an XIELU module holding two learned scalars (alpha_p, alpha_n) and two
    # buffers (beta, eps); attention_layernorm and feedforward_layernorm per block, a final
    # norm, the head untied by default. ApertusConfig defines neither post_norm, qk_norm nor
    # mlp_bias: a file restating them (Swiss AI's do) must say what the class builds. The
    # scalars, 2 per layer, are an extra every decoded token reads (no matrix product).
    restated(r, "qk_norm", True, "its attention always has q/k norms")
    restated(r, "post_norm", False, "its norms come before attention and the MLP")
    restated(r, "mlp_bias", False, "its MLP has no biases")
    act = r.raw("hidden_act")
    r.read.add("hidden_act")
    if act not in (None, "xielu"):
        raise ConfigError(f"{r.origin}: field 'hidden_act' = {act!r:.60} is not supported: the "
                          "'apertus' reader models the xIELU activation, with its learned "
                          "scalars, only")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    mlp = MLP(r.int("intermediate_size"), n_mats=2)
    kw = decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                 trained_context=read_context(r, 65536),
                 attention=lambda i: Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias,
                                               qk_norm="head"),
                 mlp=lambda i: mlp, d_model=d)
    kw["extras"] = (Extra(XIELU_EXTRA, XIELU_PARAMS * n, True,
                          "Apertus's xIELU: alpha_p and alpha_n in every MLP, read by every "
                          "decoded token", read=True),)
    return kw


# ---- GLM-4-0414 and GLM-Z1 (dense) -------------------------------------------------------------
#: transformers' Glm4Config defaults (configuration_glm4.py in transformers 5.24.0) for the keys that
#: size the model: head_dim 128 whatever d / H is (Glm4Attention reads config.head_dim), q/k/v
#: biases by default, the head untied.
GLM4_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 151552, "hidden_size": 4096, "intermediate_size": 13696,
    "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 2,
    "head_dim": 128, "max_position_embeddings": 131072, "tie_word_embeddings": False,
    "attention_bias": True,
}


def glm4(r: Reader) -> dict[str, Any]:
    # Glm4 (GLM-4-9B/32B-0414, GLM-Z1; transformers 5.24.0 modeling_glm4.py): q_proj, k_proj,
    # v_proj with biases when attention_bias, o_proj without; a fused gate_up_proj (d -> 2 d_ff)
    # and down_proj, no biases (the same weights as separate gate and up); four RMSNorms a
    # block: input_layernorm, post_self_attn_layernorm (on the attention's output),
    # post_attention_layernorm (before the MLP), post_mlp_layernorm (on the MLP's output); a
    # final norm; the head untied by default. Partial rotary embedding: no parameters. No
    # window: a layer_types key is refused unread.
    inner = defaulted(r.cfg, GLM4_DEFAULTS, r.origin, r.family)
    restated(inner, "mlp_bias", False, "its MLP has no biases")
    inner.raw("partial_rotary_factor")  # how much of each head is rotated: no parameter
    kw = llama_like(inner, norms=4)
    kw["layers"] = tuple(replace(run, attention=replace(run.attention, o_bias=False))
                         for run in kw["layers"])
    r.read |= inner.read
    return kw


#: transformers' SeedOssConfig defaults (configuration_seed_oss.py in transformers 5.24.0) for
#: the keys that size the model: q/k/v biases by default, none on o_proj, head_dim 128 (not
#: hidden/heads: Seed-OSS-36B has 80 heads of 128 over a width of 5120).
SEED_OSS_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 155136, "hidden_size": 4096, "intermediate_size": 27648,
    "num_hidden_layers": 64, "num_attention_heads": 80, "num_key_value_heads": 8,
    "max_position_embeddings": 524288, "tie_word_embeddings": False, "attention_bias": True,
    "attention_out_bias": False, "mlp_bias": False, "head_dim": 128,
}


def seed_oss(r: Reader) -> dict[str, Any]:
    # SeedOss (transformers 5.24.0 modeling_seed_oss.py): Llama's block; q_proj, k_proj, v_proj
    # with biases when attention_bias, o_proj with one when attention_out_bias, gate/up/down
    # with biases when mlp_bias; input_layernorm and post_attention_layernorm; untied head by
    # default. No sliding window: a layer_types or sliding_window key is refused unread.
    inner = defaulted(r.cfg, SEED_OSS_DEFAULTS, r.origin, r.family)
    o_bias = inner.flag("attention_out_bias", False)
    kw = llama_like(inner)
    kw["layers"] = tuple(replace(run, attention=replace(run.attention, o_bias=o_bias))
                         for run in kw["layers"])
    r.read |= inner.read
    return kw


#: transformers' Ernie4_5Config defaults (configuration_ernie4_5.py in transformers 5.24.0) for
#: the keys that size the model: head_dim 128 (a field), the head tied.
ERNIE4_5_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 103424, "hidden_size": 1024, "intermediate_size": 3072,
    "num_hidden_layers": 18, "num_attention_heads": 16, "num_key_value_heads": 2,
    "max_position_embeddings": 131072, "tie_word_embeddings": True, "use_bias": False,
    "head_dim": 128,
}


def ernie4_5(r: Reader) -> dict[str, Any]:
    # Ernie4_5 (ERNIE-4.5-0.3B; transformers 5.24.0 modeling_ernie4_5.py): Llama's block with
    # biases on q/k/v/o and on gate/up/down when use_bias (the output head never has one);
    # two RMSNorms per block; the head tied by default. The class has no attention_bias or
    # mlp_bias: a file whose keys of those names say otherwise than use_bias is refused.
    bias = defaulted(r.cfg, ERNIE4_5_DEFAULTS, r.origin, r.family).flag("use_bias", False)
    r.read.add("use_bias")
    for key in ("attention_bias", "mlp_bias"):
        restated(r, key, bias, "its biases follow 'use_bias'")
    inner = defaulted({**r.cfg, "attention_bias": bias, "mlp_bias": bias}, ERNIE4_5_DEFAULTS,
                      r.origin, r.family)
    kw = llama_like(inner, tied=True)
    r.read |= inner.read
    return kw


def _exaone4_sliding(r: Reader, n: int, window: int | None) -> list[bool]:
    """EXAONE 4's windowed layers: ``layer_types``; else none without a window; else by
    ``sliding_window_pattern`` (default 4): an integer p windows layer i iff (i + 1) % p != 0
    (Exaone4Config), a string of L (local) and G (global) repeats from layer 0 (its
    docstring: "LLLG" is 4)."""
    types = r.str_list("layer_types", n, ("sliding_attention", "full_attention"))
    pattern = r.cfg.get("sliding_window_pattern", 4)  # absent: the default; null: none
    r.read.add("sliding_window_pattern")
    if types is not None:
        flags = [t == "sliding_attention" for t in types]
    elif window is None:
        flags = [False] * n
    elif isinstance(pattern, str) and pattern and set(pattern) <= {"L", "G"}:
        flags = [pattern[i % len(pattern)] == "L" for i in range(n)]
    elif isinstance(pattern, int) and not isinstance(pattern, bool) and pattern > 0:
        flags = [(i + 1) % pattern != 0 for i in range(n)]
    else:
        raise ConfigError(f"{r.origin}: field 'sliding_window_pattern' = {pattern!r:.40} must be "
                          "a positive integer or a string of L and G when 'sliding_window' is "
                          "set and 'layer_types' is not given")
    if any(flags) and window is None:
        raise ConfigError(f"{r.origin}: field 'layer_types' names sliding layers but "
                          "'sliding_window' is null")
    return flags


def exaone4(r: Reader) -> dict[str, Any]:
    # Exaone4 (EXAONE 4.0; transformers 5.24.0 modeling_exaone4.py): q/k/v/o without biases,
    # q_norm and k_norm RMSNorm(head_dim) with head_dim = getattr(config, "head_dim", d / H);
    # no input norm: post_attention_layernorm and post_feedforward_layernorm (two per block,
    # OLMo 2's placement); gate/up/down without biases; the head untied by default. Windows:
    # _exaone4_sliding (sliding_window 4096 by default; a null one windows nothing). The
    # global layers of the 32B skip the rotary embedding, which changes no count.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    window = r.int("sliding_window", None, kind="context") if "sliding_window" in r.cfg \
        else 4096
    r.read.add("sliding_window")
    flags = _exaone4_sliding(r, n, window)
    restated(r, "attention_bias", False, "its attention projections have no biases")
    restated(r, "mlp_bias", False, "its MLP has no biases")
    mlp = MLP(r.int("intermediate_size"))
    return decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                   trained_context=read_context(r),
                   attention=lambda i: Attention(h, hkv, dh, qk_norm="head",
                                                 window=window if flags[i] else None),
                   mlp=lambda i: mlp, d_model=d)


# ---- MiniCPM 1, 2 and 4 (Llama's block with muP scalings; MiniCPM-MoE's experts) -------------
def minicpm(r: Reader) -> dict[str, Any]:
    # OpenBMB's remote MiniCPMForCausalLM (transformers 5.24.0 has no minicpm; read by hand in
    # vLLM's vllm/model_executor/models/minicpm.py @ 00db0119c37674b956dec4228d4e571549020976):
    # q, k, v, o of d / H per head (biases with attention_bias), GQA by num_key_value_heads; a
    # gated SiLU MLP of intermediate_size, or with num_experts a router d x E (no bias) and E
    # experts of intermediate_size, num_experts_per_tok a token; two RMSNorms a block, a final
    # norm; the head tied unless tie_word_embeddings is false (MiniCPMConfig's default true).
    # scale_emb, scale_depth, dim_model_base (muP) scale activations: no parameter.
    r.refuse("sparse_config", "MiniCPM4's InfLLM v2 sparse attention (a top-k of key blocks "
                              "chosen per token from compressed keys) is not modelled")
    r.refuse("use_sliding_window", "windowed MiniCPM layers are not modelled")
    r.refuse("mlp_bias", "biases on MiniCPM's MLP are not counted")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d, head_dim_key="kv_channels")
    if dh * h != d:
        raise ConfigError(f"{r.origin}: field 'kv_channels' ({dh}) is not supported: MiniCPM's "
                          "attention heads are d / H wide")
    if r.raw("hidden_act", "silu") != "silu":
        raise ConfigError(f"{r.origin}: field 'hidden_act' must be 'silu' (vLLM's MiniCPMMLP "
                          "refuses another; ProSparse's fatrelu is not read)")
    bias = r.flag("attention_bias", False)
    width = r.int("intermediate_size")
    e = r.int("num_experts", 0, kind="experts", minimum=0)
    if e:
        k = r.int("num_experts_per_tok", kind="experts")
        if k > e:
            raise ConfigError(f"{r.origin}: field 'num_experts_per_tok' ({k}) exceeds "
                              f"'num_experts' ({e})")
        mlp = MLP(width, n_experts=e, top_k=k)
    else:
        mlp = MLP(width)
    attn = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias)
    r.read.update({"scale_emb", "scale_depth", "dim_model_base"})
    return same_blocks(r, d, n, attn, mlp, norms=2, tied_default=True)


# ---- InternLM3 (Llama's block; biases by qkv_bias and bias) -------------------------------------
def internlm3(r: Reader) -> dict[str, Any]:
    # InternLM3Config (transformers 5.24.0, models/internlm3: the Llama implementation): q, k, v,
    # o of head_dim (default d / H), GQA; a gated MLP; two RMSNorms a block, a final norm; the
    # head untied by default. The Hub file's `qkv_bias` and `bias` are aliases of
    # attention_bias (q, k, v and o) and mlp_bias (gate, up, down), which the config class
    # requires equal.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    biases = {}
    for key, alias in (("attention_bias", "qkv_bias"), ("mlp_bias", "bias")):
        given = {k: r.flag(k, False) for k in (key, alias) if r.cfg.get(k) is not None}
        if len(set(given.values())) > 1:
            raise ConfigError(f"{r.origin}: fields '{key}' and '{alias}' disagree")
        biases[key] = any(given.values())
        r.read.update({key, alias})
    if biases["attention_bias"] != biases["mlp_bias"]:
        raise ConfigError(f"{r.origin}: field 'qkv_bias' ({biases['attention_bias']}) differs "
                          f"from 'bias' ({biases['mlp_bias']}): InternLM3Config refuses it "
                          "(the Llama implementation biases q, k, v, o and the MLP alike)")
    b = biases["attention_bias"]
    attn = Attention(h, hkv, dh, qkv_bias=b, o_bias=b)
    mlp = MLP(r.int("intermediate_size"), bias=b)
    return same_blocks(r, d, n, attn, mlp, norms=2)


# ---- IBM Granite 3.x dense (granite) ---------------------------------------------------------
def granite(r: Reader) -> dict[str, Any]:
    # Granite (transformers 5.24.0 modeling_granite.py): Llama's block, q/k/v/o biases when
    # attention_bias, MLP biases when mlp_bias, head_dim from the file else d / H, two RMSNorms,
    # the head tied when tie_word_embeddings (false by default; IBM's files say true). Four muP
    # scalars multiply activations and weigh nothing: the embedding output, the attention
    # scores (in place of 1/sqrt(d_head)), each residual branch, and the logits (divided).
    for key in ("embedding_multiplier", "attention_multiplier", "residual_multiplier",
                "logits_scaling"):
        r.raw(key)
    return llama_like(r)


# ---- EXAONE 3.0 / 3.5 / Deep (exaone: the Llama implementation under EXAONE's key names) --------
def _alias_int(r: Reader, key: str, alias: str, **kw: Any) -> int:
    """An integer the file may give under ``key`` or under the configuration class's alias
    ``alias`` (``attribute_map``); both given and unequal is an error naming both."""
    given = {k: r.int(k, None, **kw) for k in (key, alias) if r.cfg.get(k) is not None}
    if len(set(given.values())) > 1:
        raise ConfigError(f"{r.origin}: fields '{key}' ({given[key]}) and '{alias}' "
                          f"({given[alias]}) disagree")
    r.read.update({key, alias})
    if not given:
        raise ConfigError(f"{r.origin}: missing field '{key}' (or its alias '{alias}')")
    return next(iter(given.values()))


def exaone(r: Reader) -> dict[str, Any]:
    # ExaoneConfig (transformers 5.24.0 models/exaone: a LlamaConfig built by LlamaForCausalLM;
    # attribute_map num_layers -> num_hidden_layers, layer_norm_epsilon -> rms_norm_eps,
    # activation_function -> hidden_act). LG's remote code names the same tensors otherwise
    # (wte, h.i.ln_1, attn.attention.q/k/v/out_proj, ln_2, mlp.c_fc_0/c_fc_1/c_proj, ln_f):
    # q, k, v, o of head_dim (default d / H; GQA) without biases unless attention_bias, a gated
    # MLP of three matrices (mlp_bias), two RMSNorms a block and a final one; the head untied
    # by default (EXAONE 3.5 2.4B ties it). EXAONE Deep's `ln_no_scale` (false in its files)
    # would drop the norms' weights; no class here reads it, so true is refused by name.
    d = r.int("hidden_size")
    n = _alias_int(r, "num_hidden_layers", "num_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    restated(r, "ln_no_scale", False, "its norms carry a weight vector")
    b_attn, b_mlp = r.flag("attention_bias", False), r.flag("mlp_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=b_attn, o_bias=b_attn)
    mlp = MLP(r.int("intermediate_size"), bias=b_mlp)
    return same_blocks(r, d, n, attn, mlp, norms=2)
