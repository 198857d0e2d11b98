"""Readers of hybrids whose layers carry a constant per-sequence state beside (or instead of)
attention: Kimi Linear (Kimi delta attention), MiniMax-01 (lightning attention), Mamba-2
hybrids (Nemotron-H, Granite 4.0, Bamba, Falcon-H1), Mamba-1 models (Jamba, Falcon Mamba,
Phi-4-mini-flash's SambaY), LFM2's gated short convolutions and Qwen3-Next / Qwen3.5's Gated
DeltaNet.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping

from ...core.errors import ConfigError
from ..model import (MLP, Attention, Extra, GatedDeltaNet, GatedMemoryUnit, KimiDeltaAttention,
                     Layers, LightningAttention, Mamba1, Mamba2, ShortConv)
from .base import Reader, restated, routed_experts, stack_fields, with_mtp


#: The dtypes a config may name for a recurrent state kept at inference, by the format name
#: whose bits they take (catalog/data/formats.toml).
STATE_DTYPES: Mapping[str, str] = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}


def _ssm_bits(r: Reader, key: str) -> int | None:
    """Bits of the recurrent state the config's ``key`` names (``mamba_ssm_dtype``,
    ``mamba_ssm_cache_dtype``), None where it names none; another value is refused naming
    the key."""
    from ..formats import bits_per_weight

    v = r.raw(key)
    if v is None:
        return None
    if not isinstance(v, str) or v not in STATE_DTYPES:
        raise ConfigError(f"{r.origin}: field '{key}' must be one of "
                          f"{', '.join(STATE_DTYPES)}, got {v!r:.40}")
    return int(bits_per_weight(STATE_DTYPES[v]))


# ---- Kimi Linear (Kimi delta attention and MLA) ---------------------------------------------------
#: Keys of ``linear_attn_config`` the kimi_linear reader reads; ``gate_lower_bound`` (a floor on
#: the forget gate's value) changes no count, ``use_full_rank_gate`` (Kimi K3) makes the output
#: gate one d x H d_k matrix.
KDA_KEYS = ("head_dim", "num_heads", "short_conv_kernel_size", "kda_layers", "full_attn_layers",
            "gate_lower_bound", "use_full_rank_gate")


def _kimi_linear_types(r: Reader, lin: Mapping[str, Any], n: int) -> list[str]:
    """Which blocks are full attention (MLA) and which KDA, as KimiLinearConfig decides: the
    file's ``layer_types``, else ``full_attn_layers`` and ``kda_layers`` (1-indexed, every block
    in exactly one), else every 4th block from the 5th (0-indexed i > 0, i % 4 == 0)."""
    types = r.str_list("layer_types", n, ("linear_attention", "full_attention"))
    if types is not None:
        return types
    full, kda = lin.get("full_attn_layers"), lin.get("kda_layers")
    if full is None or kda is None:
        return ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(n)]
    out: list[str | None] = [None] * n
    for key, lst, kind in (("full_attn_layers", full, "full_attention"),
                           ("kda_layers", kda, "linear_attention")):
        if not isinstance(lst, list) or not all(isinstance(x, int) and not isinstance(x, bool)
                                                for x in lst):
            raise ConfigError(f"{r.origin}: field 'linear_attn_config.{key}' must be a list of "
                              "integers")
        for x in lst:
            if not 1 <= x <= n or out[x - 1] is not None:
                raise ConfigError(f"{r.origin}: field 'linear_attn_config.{key}' names layer {x}, "
                                  f"outside 1..{n} or named twice (the lists are 1-indexed)")
            out[x - 1] = kind
    if None in out:
        raise ConfigError(f"{r.origin}: layer {out.index(None) + 1} is in neither "
                          "'linear_attn_config.full_attn_layers' nor 'kda_layers'")
    return out  # type: ignore[return-value]


def kimi_linear(r: Reader) -> dict[str, Any]:
    # KimiLinear (transformers 5.24.0 modeling_kimi_linear.py; FAMILIES.md section 14.19): per
    # block either MLA (KimiLinearAttention = DeepseekV3Attention, no RoPE applied, which
    # changes no count) or a Kimi delta attention mixer (KimiLinearDeltaAttention); the first
    # first_k_dense_replace blocks a dense MLP (intermediate_size), then DeepSeek-V3's MoE
    # (num_experts of moe_intermediate_size, num_shared_experts shared, a router d x E and its
    # e_score_correction_bias); two RMSNorms per block, final norm, untied head.
    r.refuse("attention_bias", "biases on latent attention's projections are not counted")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    r.int("num_key_value_heads", h, kind="heads")  # = H in latent attention; unused
    r.read.update({"head_dim", "mla_use_nope"})  # KimiLinearConfig sets head_dim = d_rope
    lin = r.raw("linear_attn_config", {})
    if not isinstance(lin, dict):
        raise ConfigError(f"{r.origin}: field 'linear_attn_config' must be an object")
    unknown = sorted(set(lin) - set(KDA_KEYS))
    if unknown:
        raise ConfigError(f"{r.origin}: field 'linear_attn_config.{unknown[0]}' is not understood "
                          "by the 'kimi_linear' reader, and counting without it could describe a "
                          "different model")
    lr = Reader(lin, f"{r.origin}: linear_attn_config", r.family)
    kda = KimiDeltaAttention(kda_heads=lr.int("num_heads", 32, kind="heads"),
                             d_k=lr.int("head_dim", 128),
                             d_conv=lr.int("short_conv_kernel_size", 4, kind="count"),
                             full_gate=lr.flag("use_full_rank_gate", False))
    types = _kimi_linear_types(r, lin, n)
    nope, rope = r.int("qk_nope_head_dim", 128), r.int("qk_rope_head_dim", 64)
    d_v = r.int("v_head_dim", 128)
    # Kimi K3's gated MLA: g_proj d -> H d_v, a sigmoid per channel before o_proj
    attn = Attention(h, h, nope + rope, kv_lora_rank=r.int("kv_lora_rank", 512),
                     q_lora_rank=r.int("q_lora_rank", 0, minimum=0), d_nope=nope, d_rope=rope,
                     d_v=d_v, gate=d_v if r.flag("mla_use_output_gate", False) else 0)
    e, k = routed_experts(r, n_key="num_experts", k_key="num_experts_per_token", defaults=(256, 8))
    width = r.int("moe_intermediate_size", 1024)
    shared = r.int("num_shared_experts", 1, kind="experts", minimum=0)
    if r.int("moe_layer_freq", 1, kind="count") != 1:  # KimiLinearConfig ignores it
        raise ConfigError(f"{r.origin}: field 'moe_layer_freq' = {r.cfg['moe_layer_freq']} is not "
                          "supported: transformers' kimi_linear makes every block after "
                          "first_k_dense_replace a mixture of experts")
    # Kimi K3's Stable LatentMoE: routed experts in a latent (routed_expert_down_proj d -> d_lat,
    # routed_expert_up_proj d_lat -> d, an RMSNorm of d_lat when latent_moe_use_norm)
    latent = r.int("routed_expert_hidden_size", 0, minimum=0)
    # and vLLM's KimiMoE (Kimi K3) pads each routed expert to at least
    # min_moe_intermediate_per_partition (256 by default) columns a chip under tensor
    # parallelism (formulas/engine.py: expert_pad_params)
    pad = r.int("min_moe_intermediate_per_partition", 256, minimum=0) if latent else 0
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0, d_shared=width * shared,
              router_bias=True, latent=latent,
              latent_norm=bool(latent) and r.flag("latent_moe_use_norm", False), pad_min=pad)
    r.read.add("latent_moe_use_norm")
    dense = MLP(r.int("intermediate_size", 9216))
    kinds = r.str_list("mlp_layer_types", n, ("dense", "sparse"))
    if kinds is None:
        first = r.int("first_k_dense_replace", 1, kind="layers", minimum=0)
        kinds = ["dense" if i < first else "sparse" for i in range(n)]
    r.read.update({"first_k_dense_replace", "num_expert_group", "topk_group",
                   "use_grouped_topk", "moe_renormalize", "moe_router_activation_func",
                   "routed_scaling_factor"})
    # Kimi K3's attention residuals (attn_res_block_size, which sets where block summaries are
    # taken and changes no count): per block two more RMSNorms of d and two pseudo-queries d -> 1
    # (self_attention_res_norm/_proj, mlp_res_norm/_proj), after the stack one of each
    # (output_attn_res_norm/_proj); all d-vectors, counted with the norms
    res = 4 if r.int("attn_res_block_size", 0, kind="layers", minimum=0) else 0
    layers = [Layers(1, attention=attn if t == "full_attention" else None,
                     mixer=kda if t == "linear_attention" else None,
                     mlp=moe if kinds[i] == "sparse" else dense, norms=2 + res)
              for i, t in enumerate(types)]
    ctx = r.int("model_max_length", None, kind="context")
    return {**stack_fields(r, d, layers, context_default=ctx), "norm_vecs_final": 1 + res // 2}


# ---- MiniMax-Text-01 and MiniMax-M1 (lightning attention) --------------------------------------
#: The two layer kinds of MiniMax-01's stack, as transformers' ``layer_types`` names them and as
#: the remote-code files' ``attn_type_list`` codes them (vLLM's minimax_text_01.py reads 0 as
#: "linear_attention" and 1 as "full_attention").
_MINIMAX_KINDS = {0: "linear_attention", 1: "full_attention"}


def _minimax_types(r: Reader, n: int) -> list[str]:
    """The kind of each of the ``n`` blocks: ``layer_types``, else ``attn_type_list`` (0 or 1
    per block); where both are given they must agree. Without either, transformers'
    ``MiniMaxConfig`` alternates (full attention on even blocks); the remote-code families
    (minimax_m1, minimax_text_01) require the list."""
    types = r.str_list("layer_types", n, _MINIMAX_KINDS.values())
    codes = r.int_list("attn_type_list", [], n=n if r.has("attn_type_list") else None)
    bad = sorted(set(codes) - set(_MINIMAX_KINDS))
    if bad:
        raise ConfigError(f"{r.origin}: field 'attn_type_list' has unknown kinds {bad} "
                          "(0: lightning attention, 1: softmax attention)")
    listed = [_MINIMAX_KINDS[c] for c in codes] if codes else None
    if types is not None and listed is not None and types != listed:
        raise ConfigError(f"{r.origin}: fields 'layer_types' and 'attn_type_list' disagree")
    if types is None and listed is None and r.family != "minimax":
        raise ConfigError(f"{r.origin}: missing field 'attn_type_list'")
    return types or listed or ["linear_attention" if i % 2 else "full_attention"
                               for i in range(n)]


def minimax(r: Reader) -> dict[str, Any]:
    # MiniMax-Text-01 and MiniMax-M1 (transformers 5.24.0 modeling_minimax.py; vLLM's
    # minimax_text_01.py with MiniMaxText01LinearAttention): every block an input RMSNorm, a
    # mixer, a post-attention RMSNorm and a mixture of num_local_experts gated experts of
    # intermediate_size (top num_experts_per_tok, a bias-free d x E router, no shared expert).
    # The mixer is lightning attention (MiniMaxLightningAttention: qkv_proj d -> 3 H head_dim,
    # output_gate d -> H head_dim, an RMSNorm of H head_dim, out_proj; its decay slopes are
    # buffers computed from the head and the depth, not weights) on the blocks layer_types
    # marks "linear_attention" (attn_type_list 0), softmax GQA without biases elsewhere. The
    # residual scales (*_alpha_factor, layernorm_*_alpha), postnorm, rotary_dim and block_size
    # change no count. A shared expert (shared_intermediate_size, which the remote code
    # declares) and a sliding window on the softmax layers are refused.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    shared = r.raw("shared_intermediate_size", 0)  # one width, or one per layer (vLLM reads both)
    if shared != 0 and not (isinstance(shared, list) and not any(shared)):
        r.refuse("shared_intermediate_size", "a shared expert beside MiniMax's routed experts is "
                 "not in the layout transformers and vLLM build")
    r.read.add("shared_intermediate_size")
    r.refuse("sliding_window", "a window on MiniMax's softmax layers is not counted")
    e, k = routed_experts(r, n_key="num_local_experts")
    moe = MLP(r.int("intermediate_size"), n_mats=3, n_experts=e, top_k=k)
    attn = Attention(h, hkv, dh)
    lightning = LightningAttention(h, dh)
    layers = [Layers(1, attention=None if t == "linear_attention" else attn,
                     mixer=lightning if t == "linear_attention" else None, mlp=moe, norms=2)
              for t in _minimax_types(r, n)]
    return stack_fields(r, d, layers)


# ---- Nemotron-H (Mamba-2 hybrid) ---------------------------------------------------------------
def nemotron_h(r: Reader) -> dict[str, Any]:
    # NemotronH: each block is one RMSNorm and one mixer, by hybrid_override_pattern: "M" a
    # Mamba-2 mixer, "*" attention (no RoPE), "-" an MLP (up, down; ReLU^2), "E" a mixture of
    # experts (Nemotron 3): n_routed_experts plain experts (up, down) of moe_intermediate_size,
    # one shared expert of moe_shared_expert_intermediate_size, a router d x E and its
    # e_score_correction_bias (E, a persistent buffer). Final norm_f, untied lm_head.
    d = r.int("hidden_size")
    pattern = _nemotron_pattern(r, "hybrid_override_pattern", "layers_block_type")
    if not pattern:
        state = "missing field" if pattern is None else "empty layer pattern in field"
        raise ConfigError(f"{r.origin}: {state} 'layers_block_type' (or "
                          "'hybrid_override_pattern'): which blocks are Mamba-2, attention, MLP "
                          "or mixture of experts")
    n = r.int("num_hidden_layers", None if pattern is None else len(pattern), kind="layers")
    if pattern is not None and len(pattern) != n:
        raise ConfigError(f"{r.origin}: field 'num_hidden_layers' ({n}) disagrees with the "
                          f"{len(pattern)} blocks of the layer pattern")
    if not isinstance(pattern, str) or len(pattern) != n or set(pattern) - set("M*-E"):
        raise ConfigError(f"{r.origin}: field 'hybrid_override_pattern' must be a string of "
                          f"{n} characters from 'M' (Mamba-2), '*' (attention), '-' (MLP), "
                          "'E' (mixture of experts)")
    moe = _nemotron_h_moe(r) if "E" in pattern else None
    h = r.int("num_attention_heads", kind="heads")
    hkv = r.int("num_key_value_heads", h, kind="heads")
    dh = r.int("attention_head_dim", None) or r.int("head_dim", d // h)
    attn = Attention(h, hkv, dh, qkv_bias=r.flag("attention_bias", False),
                     o_bias=r.flag("attention_bias", False))
    mheads = r.int("mamba_num_heads", kind="heads")
    mixer = Mamba2(d_inner=mheads * r.int("mamba_head_dim"), d_state=r.int("ssm_state_size"),
                   n_groups=r.int("n_groups", kind="count"), n_heads=mheads,
                   d_conv=r.int("conv_kernel", 4, kind="count"),
                   conv_bias=r.flag("use_conv_bias", True), bias=r.flag("use_bias", False),
                   ssm_bits=_ssm_bits(r, "mamba_ssm_cache_dtype"))
    mlp = MLP(r.int("intermediate_size"), n_mats=2, bias=r.flag("mlp_bias", False))
    r.read.add("mamba_proj_bias")
    def block(c: str) -> Layers:
        return Layers(1, attention=attn if c == "*" else None, mixer=mixer if c == "M" else None,
                      mlp={"-": mlp, "E": moe}.get(c), norms=1)

    kw = stack_fields(r, d, [block(c) for c in pattern])
    # MTP (vLLM's nemotron_h_mtp.py; transformers builds none): num_nextn_predict_layers
    # modules, each the blocks of mtp_hybrid_override_pattern ('*' attention, 'E' the mixture),
    # the first with enorm, hnorm and eh_proj, the last with a final norm; embeddings and head
    # shared with the model
    modules = r.int("num_nextn_predict_layers", 0, kind="layers", minimum=0)
    mtp_pattern = _nemotron_pattern(r, "mtp_hybrid_override_pattern", "mtp_layers_block_type")
    mtp_pattern = "" if mtp_pattern is None else mtp_pattern
    if modules and (not isinstance(mtp_pattern, str) or not mtp_pattern
                    or set(mtp_pattern) - set("*E") or ("E" in mtp_pattern and moe is None)):
        listed = r.cfg.get("mtp_layers_block_type") is not None
        key, form = (("mtp_layers_block_type", "a list of 'attention' and 'moe'") if listed else
                     ("mtp_hybrid_override_pattern",
                      "a string of '*' (attention) and 'E' (mixture of experts)"))
        raise ConfigError(f"{r.origin}: field '{key}' must be {form} blocks for the {modules} "
                          "multi-token-prediction module(s)" + (", and the model has no "
                                                               "mixture-of-experts block"
                                                               if moe is None else ""))
    kw["extras"] = with_mtp(kw, modules, [block(c) for c in mtp_pattern or ""],
                            "Nemotron 3's MTP module (vLLM's layout)", own_embeddings=False)
    return kw


#: The block names of a Nemotron-H ``layers_block_type`` list (the in-library
#: ``NemotronHConfig``'s spelling of the pattern; "mamba" and "attention" are its legacy names)
#: -> the character of ``hybrid_override_pattern``.
_NEMOTRON_BLOCKS: Mapping[str, str] = {"mamba": "M", "linear_attention": "M", "attention": "*",
                                       "full_attention": "*", "mlp": "-", "moe": "E"}


def _nemotron_pattern(r: Reader, key: str, list_key: str) -> str | None:
    """A Nemotron-H layer pattern as a string of ``M*-E`` from ``key`` (the remote code's
    string) or ``list_key`` (a list of block names, as transformers' own ``NemotronHConfig``
    writes it, with no ``num_hidden_layers`` needed); None when the file has neither. A list
    with another name, or both fields disagreeing, is an error naming the field."""
    pattern = r.raw(key)
    blocks = r.raw(list_key)
    if blocks is None:
        return pattern
    if not isinstance(blocks, list) or not all(isinstance(b, str) and b in _NEMOTRON_BLOCKS
                                               for b in blocks):
        raise ConfigError(f"{r.origin}: field '{list_key}' must be a list of block names from "
                          f"{', '.join(repr(b) for b in _NEMOTRON_BLOCKS)}")
    listed = "".join(_NEMOTRON_BLOCKS[b] for b in blocks)
    if pattern is not None and pattern != listed:
        raise ConfigError(f"{r.origin}: fields '{key}' and '{list_key}' describe different "
                          "layer patterns")
    return listed


def _nemotron_h_moe(r: Reader) -> MLP:
    """The mixture-of-experts block of a Nemotron 3 pattern ("E")."""
    e, k = routed_experts(r, n_key="n_routed_experts")
    # NemotronHMOE builds one shared expert of moe_shared_expert_intermediate_size whatever
    # n_shared_experts says; a file with another number is not that layout
    shared = r.int("n_shared_experts", 1, kind="experts", minimum=0)
    if shared > 1:
        raise ConfigError(f"{r.origin}: field 'n_shared_experts' = {shared}: the 'nemotron_h' "
                          "layout has at most one shared expert")
    d_shared = r.int("moe_shared_expert_intermediate_size") if shared else 0
    # Nemotron 3 Super's LatentMoE: the routed experts work in moe_latent_size, between
    # fc1_latent_proj (d -> latent) and fc2_latent_proj (latent -> d), no biases; router and
    # shared expert on d. Its MTP layers: nemotron_h.
    return MLP(r.int("moe_intermediate_size"), n_mats=2, bias=r.flag("mlp_bias", False),
               n_experts=e, top_k=k, n_shared=shared, d_shared=d_shared, router_bias=True,
               latent=r.int("moe_latent_size", 0, minimum=0))


# ---- Mamba-2 hybrids named by "mamba_*" keys (Granite 4.0, Falcon-H1) ------------------------
def _mamba_mixer(r: Reader, d_inner: int, *, norm: bool, out_bias_key: str) -> Mamba2:
    """The Mamba-2 mixer of a ``mamba_*`` config (transformers' ``GraniteMoeHybridMambaLayer``,
    ``FalconH1Mixer``): ``mamba_n_heads`` heads of ``mamba_d_head`` ("auto": d_inner / heads; the
    two must multiply to d_inner, as the classes' ``validate_architecture`` requires),
    ``mamba_d_state``, ``mamba_n_groups``, a convolution of ``mamba_d_conv`` with a bias iff
    ``mamba_conv_bias``, the input projection's bias ``mamba_proj_bias`` and the output
    projection's ``out_bias_key`` (one bias flag for both in the library: different values are
    refused naming the key); the defaults are both classes'."""
    heads = r.int("mamba_n_heads", 128, kind="heads")
    d_head = r.raw("mamba_d_head", "auto")
    if d_head == "auto":
        if d_inner % heads:
            raise ConfigError(f"{r.origin}: field 'mamba_n_heads' ({heads}) does not divide the "
                              f"mixer's inner width ({d_inner})")
        d_head = d_inner // heads
    else:
        d_head = r.int("mamba_d_head")
    if heads * d_head != d_inner:
        raise ConfigError(f"{r.origin}: fields 'mamba_n_heads' x 'mamba_d_head' ({heads} x "
                          f"{d_head}) must equal the mixer's inner width ({d_inner})")
    in_bias = r.flag("mamba_proj_bias", False)
    if out_bias_key != "mamba_proj_bias" and r.flag(out_bias_key, False) != in_bias:
        raise ConfigError(f"{r.origin}: field '{out_bias_key}' = "
                          f"{str(not in_bias).lower()} differs from 'mamba_proj_bias': a bias on "
                          "one of the mixer's projections only is not modelled")
    return Mamba2(d_inner=d_inner, d_state=r.int("mamba_d_state", 256),
                  n_groups=r.int("mamba_n_groups", 1, kind="count"), n_heads=heads,
                  d_conv=r.int("mamba_d_conv", 4, kind="count"),
                  conv_bias=r.flag("mamba_conv_bias", True), bias=in_bias, norm=norm)


#: Block names of a granitemoehybrid ``layer_types`` (``layers_block_type``): the names IBM's
#: files use and the ones transformers remaps them to (``_LEGACY_LAYER_TYPE_REMAP`` in
#: ``configuration_utils.py``).
_GRANITE_BLOCKS: Mapping[str, bool] = {"mamba": True, "linear_attention": True,
                                       "attention": False, "full_attention": False}


def granitemoehybrid(r: Reader) -> dict[str, Any]:
    # Granite 4.0 (transformers 5.24.0, modeling_granitemoehybrid.py): each block is an RMSNorm,
    # a Mamba-2 mixer or GQA attention (by layer_types; none given: every block Mamba-2, the
    # class's default), an RMSNorm and, in every block, a gated shared MLP of
    # shared_intermediate_size (input_linear d -> 2w, output_linear) beside a mixture of
    # num_local_experts gated experts of intermediate_size with a bias-free router (none when 0).
    # The mup multipliers (embedding, residual, attention, logits) and position_embedding_type
    # change no count. Final norm; the head is tied when tie_word_embeddings.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    key = "layer_types" if r.cfg.get("layer_types") is not None else "layers_block_type"
    types = r.str_list(key, n, _GRANITE_BLOCKS)
    r.read.update({"layer_types", "layers_block_type"})
    mamba = [True] * n if types is None else [_GRANITE_BLOCKS[t] for t in types]
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias)
    expand = r.int("mamba_expand", 2, kind="count")
    mixer = _mamba_mixer(r, expand * d, norm=True, out_bias_key="mamba_proj_bias")
    e = r.int("num_local_experts", 8, kind="experts", minimum=0)
    shared = r.int("shared_intermediate_size", 1024)
    if e:
        _, k = routed_experts(r, n_key="num_local_experts", defaults=(8, 2))
        mlp = MLP(r.int("intermediate_size", 11008), n_experts=e, top_k=k, n_shared=1,
                  d_shared=shared)
    else:  # a dense hybrid (Granite-4.0-H-Micro, -H-1B): the shared MLP alone
        r.int("num_experts_per_tok", 0, kind="experts", minimum=0)
        r.read.add("intermediate_size")
        mlp = MLP(shared)
    layers = [Layers(1, attention=None if m else attn, mixer=mixer if m else None, mlp=mlp,
                     norms=2) for m in mamba]
    return stack_fields(r, d, layers)


def _dt_rank(r: Reader, d: int, key: str = "mamba_dt_rank") -> int:
    """A Mamba-1 mixer's step-size rank: the file's ``key``, or ceil(d / 16) where it is "auto"
    or absent (Mamba's rule, as Phi3Mamba, JambaConfig and FalconMambaConfig apply it)."""
    r.read.add(key)
    rank = r.cfg.get(key, "auto")
    if rank in (None, "auto"):
        return -(-d // 16)
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise ConfigError(f"{r.origin}: field '{key}' must be a positive integer or "
                          f"'auto', got {rank!r:.60}")
    return rank


def phi4flash(r: Reader) -> dict[str, Any]:
    # Phi-4-mini-flash (SambaY; the remote code configuration_phi4flash.py and
    # modeling_phi4flash.py as copied in franciskamande-ai/cloned_models @ 711ebe7d7412, and
    # vLLM's phi4flash.py @ 03356f8cb59b; FAMILIES.md 17.15). n blocks (n a multiple of 4), each
    # a LayerNorm with bias, a mixer, a LayerNorm with bias and a gated MLP (fc1 d -> 2 ff, fc2,
    # no biases); a final LayerNorm with bias; the head tied to the embedding. With mb_per_layer
    # 2, even blocks are Mamba-1 mixers (Phi3Mamba: d_in = mamba_expand d, mamba_d_state,
    # mamba_d_conv, dt rank mamba_dt_rank or ceil(d / 16); a convolution bias and no projection
    # biases whatever mamba_conv_bias and mamba_proj_bias say, which the code does not pass on),
    # odd blocks differential attention (Wqkv and out_proj with biases, head width d / H). From
    # block n/2 on the blocks are YOCO's: block n/2 + 1 is full attention (the cache the
    # cross-decoder reads), the sliding window applying to the odd blocks below n/2 only; from
    # block n/2 + 2 on the even blocks are gated memory units (in_proj d -> d_in, out_proj, no
    # biases: the SiLU of the projection times block n/2's Mamba output) and the odd ones read
    # block n/2 + 1's keys and values (a query projection with bias, out_proj, the lambdas and
    # the sub-norm).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    if n % 4:
        raise ConfigError(f"{r.origin}: field 'num_hidden_layers' ({n}) must be a multiple of "
                          "4 for SambaY (modeling_phi4flash.py asserts it)")
    if r.int("mb_per_layer", 2, kind="count", minimum=0) != 2:
        raise ConfigError(f"{r.origin}: field 'mb_per_layer' = {r.cfg['mb_per_layer']} is not "
                          "supported: the reader reads SambaY's alternating layout (2) only")
    h = r.int("num_attention_heads", kind="heads")
    hkv = r.int("num_key_value_heads", h, kind="heads")
    if d % h or h % hkv:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) must divide 'hidden_size' "
                          f"({d}) and be a multiple of 'num_key_value_heads' ({hkv})")
    for key, value in (("mamba_conv_bias", True), ("mamba_proj_bias", False),
                       ("mlp_bias", False), ("lm_head_bias", False)):
        if r.flag(key, value) != value:
            raise ConfigError(f"{r.origin}: field '{key}' = {str(not value).lower()} is not "
                              "supported: the remote code builds Phi-4-mini-flash's layers "
                              f"with {'a' if value else 'no'} bias there")
    expand = r.int("mamba_expand", 2, kind="count")
    rank = _dt_rank(r, d)
    d_in = expand * d
    mamba = Mamba1(d_in, r.int("mamba_d_state", 16, kind="count"), rank,
                   d_conv=r.int("mamba_d_conv", 4, kind="count"))
    window = r.int("sliding_window", None, kind="context")
    attn = Attention(h, hkv, d // h, qkv_bias=True, o_bias=True, diff=True)
    mlp = MLP(r.int("intermediate_size", 9216), n_mats=3)
    layers = []
    for i in range(n):
        if i % 2 == 0:
            part = {"mixer": mamba if i < n // 2 + 2 else GatedMemoryUnit(d_in)}
        elif i < n // 2:
            part = {"attention": replace(attn, window=window)}
        elif i == n // 2 + 1:
            part = {"attention": attn}
        else:
            part = {"attention": replace(attn, kv_shared=True)}
        # YOCO: a prefill runs the cross-decoder (blocks n/2 + 2 on) for the last token only
        # (vLLM's SambaYModel.forward truncates the hidden states to it there)
        layers.append(Layers(1, mlp=mlp, norms=4, prefill_last=i >= n // 2 + 2, **part))
    return {**stack_fields(r, d, layers), "tied": r.flag("tie_word_embeddings", True),
            "norm_vecs_final": 2}


#: What Jamba's Mamba-1 layers hold besides the mixer the library models: an RMSNorm on the step
#: size (dt_rank) and one each on B and C (d_state), per Mamba layer.
JAMBA_NORMS_EXTRA = "Mamba-1 inner norms (dt, B and C per Mamba layer)"


def jamba(r: Reader) -> dict[str, Any]:
    # JambaForCausalLM (transformers 5.24.0 models/jamba/modeling_jamba.py and
    # configuration_jamba.py; FAMILIES.md 17.22). n blocks, block i attention when i %
    # attn_layer_period == attn_layer_offset, else a Mamba-1 mixer; its feed-forward a mixture of
    # num_experts gated experts (top num_experts_per_tok, a router of E x d, no bias) when i %
    # expert_layer_period == expert_layer_offset, else a dense gated MLP of the same width.
    # Attention: q/k/v/o without biases, head width head_dim, else d / H, no positional embedding.
    # Mamba (JambaMambaMixer): in_proj d -> 2 d_in, a depthwise convolution of mamba_d_conv with a
    # bias iff mamba_conv_bias, x_proj d_in -> dt_rank + 2 d_state, dt_proj dt_rank -> d_in with a
    # bias, A_log d_in x d_state, D, out_proj; biases on in/out_proj iff mamba_proj_bias (false in
    # AI21's files; true refused: the Mamba1 record has none); and three RMSNorms that
    # transformers always builds (dt_layernorm of dt_rank, b_ and c_layernorm of d_state), counted
    # as an extra every token reads and every chip holds whole (vLLM's MambaMixer builds plain
    # RMSNorms). AI21's remote code builds them iff mamba_inner_layernorms: false is refused
    # naming it. Two RMSNorms per block, a final one; the head untied unless tie_word_embeddings.
    # The Mamba state, d_in x d_state and the convolution's last d_conv - 1 inputs, replaces a
    # cache in Mamba blocks.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    a_period = r.int("attn_layer_period", 8, kind="layers")
    a_offset = r.int("attn_layer_offset", 4, kind="layers", minimum=0)
    e_period = r.int("expert_layer_period", 2, kind="layers")
    e_offset = r.int("expert_layer_offset", 1, kind="layers", minimum=0)
    for key, offset, period in (("attn_layer_offset", a_offset, a_period),
                                ("expert_layer_offset", e_offset, e_period)):
        if offset >= period:
            raise ConfigError(f"{r.origin}: field '{key}' ({offset}) must be smaller than its "
                              f"period ({period}), as JambaConfig requires")
    restated(r, "mamba_proj_bias", False, "its Mamba projections have no biases")
    restated(r, "mamba_inner_layernorms", True,
             "transformers always builds the Mamba layers' inner norms")
    restated(r, "attention_bias", False, "its attention has no biases")
    restated(r, "mlp_bias", False, "its MLPs have no biases")
    act = r.raw("hidden_act")
    if act not in (None, "silu"):
        raise ConfigError(f"{r.origin}: field 'hidden_act' = {act!r:.60} is not supported: the "
                          "'jamba' reader models SiLU-gated MLPs and Mamba layers only")
    r.refuse("sliding_window", "Jamba's attention layers attend to the whole context in "
             "transformers' JambaAttention (the key is not read there)")
    rank = _dt_rank(r, d)
    d_state = r.int("mamba_d_state", 16, kind="count")
    mamba = Mamba1(r.int("mamba_expand", 2, kind="count") * d, d_state, rank,
                   d_conv=r.int("mamba_d_conv", 4, kind="count"),
                   conv_bias=r.flag("mamba_conv_bias", True))
    ff = r.int("intermediate_size", 14336)
    n_experts = r.int("num_experts", 16, kind="experts")
    top_k = r.int("num_experts_per_tok", 2, kind="experts")
    if top_k > n_experts:
        raise ConfigError(f"{r.origin}: field 'num_experts_per_tok' ({top_k}) exceeds "
                          f"'num_experts' ({n_experts})")
    dense, moe = MLP(ff, n_mats=3), MLP(ff, n_mats=3, n_experts=n_experts, top_k=top_k)
    attn = Attention(h, hkv, dh)
    layers = []
    for i in range(n):
        part = ({"attention": attn} if i % a_period == a_offset else {"mixer": mamba})
        # JambaConfig.layers_num_experts: one expert is JambaMLP, a dense block
        mlp = moe if i % e_period == e_offset and n_experts > 1 else dense
        layers.append(Layers(1, mlp=mlp, norms=2, **part))
    n_mamba = sum(1 for i in range(n) if i % a_period != a_offset)
    kw = stack_fields(r, d, layers)
    if r.cfg.get("max_position_embeddings") is None:
        kw["trained_context"] = r.int("n_ctx", 262144, kind="context")
    r.read.add("n_ctx")
    kw["extras"] = (Extra(JAMBA_NORMS_EXTRA, n_mamba * (rank + 2 * d_state), True,
                          "RMSNorms on the step size (dt_rank) and on B and C (d_state each) "
                          "in every Mamba layer, read by every decoded token, held whole on "
                          "every chip", read=True, copied=True),) if n_mamba else ()
    return kw


def falcon_mamba(r: Reader) -> dict[str, Any]:
    # FalconMambaForCausalLM (transformers 5.24.0 models/falcon_mamba/modeling_falcon_mamba.py
    # and configuration_falcon_mamba.py; FAMILIES.md 17.23): n blocks, each an RMSNorm (a
    # weight of d) and a Mamba-1 mixer, no MLP; a final RMSNorm; the head tied unless
    # tie_word_embeddings is false (FalconMambaConfig's default is true). The mixer
    # (FalconMambaMixer) is Mamba's: in_proj d -> 2 d_in and out_proj with biases iff use_bias
    # (true refused: the Mamba1 record has none), a depthwise convolution of conv_kernel with a
    # bias iff use_conv_bias, x_proj d_in -> r + 2 state_size, dt_proj r -> d_in with a bias,
    # A_log, D. Its RMS norms on dt, B and C have no weights (FalconMambaWeightlessRMSNorm: a
    # non-persistent buffer of ones), so they add no parameter. d_in is intermediate_size
    # when the file gives it (FalconMambaConfig sets expand x d first, then the file's value
    # over it: tiiuae/falcon-mamba-7b says expand 16 and intermediate_size 8,192, and its
    # checkpoint is 8,192 wide), else expand x d; r is time_step_rank, "auto" = ceil(d / 16).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    restated(r, "use_bias", False, "its Mamba projections have no biases")
    act = r.raw("hidden_act")
    if act not in (None, "silu"):
        raise ConfigError(f"{r.origin}: field 'hidden_act' = {act!r:.60} is not supported: the "
                          "'falcon_mamba' reader models Mamba's SiLU mixer only")
    expand = r.int("expand", 2, kind="count")
    d_in = r.int("intermediate_size", expand * d)
    mamba = Mamba1(d_in, r.int("state_size", 16, kind="count"), _dt_rank(r, d, "time_step_rank"),
                   d_conv=r.int("conv_kernel", 4, kind="count"),
                   conv_bias=r.flag("use_conv_bias", True))
    return {**stack_fields(r, d, [Layers(n, mixer=mamba, norms=1)]),
            "tied": r.flag("tie_word_embeddings", True)}


def bamba(r: Reader) -> dict[str, Any]:
    # BambaForCausalLM (transformers 5.24.0 models/bamba/modeling_bamba.py and
    # configuration_bamba.py; FAMILIES.md 17.24): n blocks, each an RMSNorm, GQA attention at
    # the indices attn_layer_indices lists (none: every block Mamba-2) else a Mamba-2 mixer
    # (BambaMixer: Granite 4.0's, with a gated output norm of d_in), an RMSNorm and a gated
    # MLP of intermediate_size (biases iff mlp_bias); a final RMSNorm; the head untied unless
    # tie_word_embeddings. Attention biases iff attention_bias; a partial rotary embedding
    # (attn_rotary_emb, partial_rotary_factor) holds no weights. mamba_dt_rank, which IBM's
    # files carry, is not a BambaConfig field and builds nothing: a Mamba-2 mixer's step size
    # is one value per head out of in_proj.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    indices = r.int_list("attn_layer_indices", [])
    if any(not 0 <= i < n for i in indices) or len(set(indices)) != len(indices):
        raise ConfigError(f"{r.origin}: field 'attn_layer_indices' must list distinct layers "
                          f"below 'num_hidden_layers' ({n}), got {indices!r:.80}")
    r.read.add("mamba_dt_rank")
    act = r.raw("hidden_act")
    if act not in (None, "silu"):
        raise ConfigError(f"{r.origin}: field 'hidden_act' = {act!r:.60} is not supported: the "
                          "'bamba' reader models SiLU-gated MLPs and Mamba-2 mixers only")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias)
    mixer = _mamba_mixer(r, r.int("mamba_expand", 2, kind="count") * d, norm=True,
                         out_bias_key="mamba_proj_bias")
    mlp = MLP(r.int("intermediate_size", 14336), n_mats=3, bias=r.flag("mlp_bias", False))
    layers = [Layers(1, mlp=mlp, norms=2,
                     **({"attention": attn} if i in indices else {"mixer": mixer}))
              for i in range(n)]
    return stack_fields(r, d, layers)


def falcon_h1(r: Reader) -> dict[str, Any]:
    # Falcon-H1 (transformers 5.24.0, modeling_falcon_h1.py): every block is an RMSNorm, then
    # GQA attention and a Mamba-2 mixer side by side on the normed input (their outputs summed),
    # an RMSNorm and a gated MLP of intermediate_size (biases iff mlp_bias). The mixer's inner
    # width is mamba_d_ssm (a null one: mamba_expand x d; a missing one: the class's 1024); its
    # gated RMSNorm exists only with mamba_rms_norm (false in TII's checkpoints); the input
    # projection's bias is mamba_proj_bias, the output projection's projectors_bias. The mup
    # multipliers (embedding, lm_head, key, attention/ssm in/out, mlp_multipliers,
    # ssm_multipliers) scale activations and change no count; the mup vector is a
    # non-persistent buffer. The class reads neither attn_layer_indices nor mamba_use_mlp
    # (TII's code could drop attention or the MLP in some layers): a file that sets them is
    # refused naming the key. Final norm, untied head unless tie_word_embeddings.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    r.refuse("attn_layer_indices", "attention in some layers only (TII's code); transformers "
             "builds attention in every Falcon-H1 block")
    if not r.flag("mamba_use_mlp", True):
        raise ConfigError(f"{r.origin}: field 'mamba_use_mlp' = false is not supported: "
                          "transformers builds an MLP in every Falcon-H1 block")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias)
    r.read.add("mamba_d_ssm")
    if "mamba_d_ssm" not in r.cfg:
        d_inner = 1024
    elif r.cfg["mamba_d_ssm"] is None:
        d_inner = r.int("mamba_expand", 2, kind="count") * d
    else:
        d_inner = r.int("mamba_d_ssm")
    r.read.add("mamba_expand")
    mixer = _mamba_mixer(r, d_inner, norm=r.flag("mamba_rms_norm", False),
                         out_bias_key="projectors_bias")
    mlp = MLP(r.int("intermediate_size", 14336), bias=r.flag("mlp_bias", False))
    return stack_fields(r, d, [Layers(n, attention=attn, mixer=mixer, mlp=mlp, norms=2)])


def _lfm2_ff_width(r: Reader) -> int:
    """The MLP width Lfm2MLP builds (transformers 5.24.0): the file's ``block_ff_dim`` (which
    Lfm2Config takes over ``intermediate_size``), and with ``block_auto_adjust_ff_dim`` (default
    true) int(2 ff / 3), then, unless ``block_ffn_dim_multiplier`` is null, int(multiplier x
    that) rounded up to a multiple of ``block_multiple_of`` (LFM2-1.2B: 12,288 -> 8,192)."""
    key = "block_ff_dim" if r.cfg.get("block_ff_dim") is not None else "intermediate_size"
    r.read.update({"block_ff_dim", "intermediate_size"})
    ff = r.int(key, 12288)
    r.read.add("block_auto_adjust_ff_dim")
    adjust = r.cfg.get("block_auto_adjust_ff_dim", True)
    if adjust not in (True, False, None):
        raise ConfigError(f"{r.origin}: field 'block_auto_adjust_ff_dim' must be true or false, "
                          f"got {adjust!r:.60}")
    if not adjust:
        return ff
    ff = int(2 * ff / 3)
    r.read.add("block_ffn_dim_multiplier")
    mult = r.cfg.get("block_ffn_dim_multiplier", 1.0)
    if mult is None:
        return ff
    if isinstance(mult, bool) or not isinstance(mult, (int, float)) or mult <= 0:
        raise ConfigError(f"{r.origin}: field 'block_ffn_dim_multiplier' must be a positive "
                          f"number, got {mult!r:.60}")
    ff = int(mult * ff)
    step = r.int("block_multiple_of", 256, kind="count")
    return step * ((ff + step - 1) // step)


#: LFM2's block kinds in ``layer_types`` -> whether the block is a short convolution.
_LFM2_BLOCKS = {"conv": True, "full_attention": False}


def lfm2_of(moe: bool) -> Callable[[Reader], dict[str, Any]]:
    """The reader of LFM2 (``lfm2``) or of its mixture of experts (``lfm2_moe``)."""

    def read(r: Reader) -> dict[str, Any]:
        return _lfm2(r, moe=moe)
    return read


def _lfm2(r: Reader, *, moe: bool) -> dict[str, Any]:
    # LFM2 (transformers 5.24.0, modeling_lfm2.py): each block is an RMSNorm (operator_norm),
    # GQA attention (per-head q/k RMSNorms, no biases) or a gated short convolution
    # (Lfm2ShortConv: in_proj d -> 3d, a depthwise conv of conv_L_cache taps over B x, C times
    # it, out_proj d -> d; biases iff conv_bias), an RMSNorm (ffn_norm) and a gated MLP of the
    # width _lfm2_ff_width gives. The blocks are layer_types, else full_attn_idxs (attention
    # there, convolutions elsewhere; neither: every block attention, as Lfm2Config fills it).
    # Final norm (embedding_norm); the head is tied unless tie_embedding (which Lfm2Config takes
    # over tie_word_embeddings) or tie_word_embeddings says otherwise. The convolution and the
    # blocks are hidden_size wide whatever conv_dim, conv_dim_out and block_dim say (Liquid's
    # own keys, which transformers does not read): a file where they differ is refused.
    # LFM2-MoE (modeling_lfm2_moe.py): the same blocks (layer_types required), the first
    # num_dense_layers with a gated MLP of intermediate_size as given (no width rule), the
    # others a mixture of num_experts gated experts of moe_intermediate_size, top
    # num_experts_per_tok, a bias-free d x E router and, with use_expert_bias, a persistent
    # buffer of E routing biases (counted as the router's bias, as DeepSeek-V3's).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    for key in ("conv_dim", "conv_dim_out", "block_dim"):
        if r.int(key, d) != d:
            raise ConfigError(f"{r.origin}: field '{key}' = {r.cfg[key]} differs from "
                              f"'hidden_size' ({d}): transformers builds LFM2's blocks and "
                              "convolutions hidden_size wide, and counting either would describe "
                              "a different model")
    types = r.str_list("layer_types", n, _LFM2_BLOCKS)
    if types is None and moe:
        raise ConfigError(f"{r.origin}: missing field 'layer_types'")
    if types is None:
        idxs = r.int_list("full_attn_idxs", list(range(n)))
        bad = [i for i in idxs if not 0 <= i < n]
        if bad:
            raise ConfigError(f"{r.origin}: field 'full_attn_idxs' names layer {bad[0]} of "
                              f"{n} layers")
        types = ["full_attention" if i in idxs else "conv" for i in range(n)]
    r.read.add("full_attn_idxs")
    h, hkv, dh = r.heads(d, head_dim_default=None)
    if r.int("num_heads", h, kind="heads") != h:
        raise ConfigError(f"{r.origin}: field 'num_heads' ({r.cfg['num_heads']}) differs from "
                          f"'num_attention_heads' ({h})")
    if not r.flag("block_use_swiglu", True):
        raise ConfigError(f"{r.origin}: field 'block_use_swiglu' = false is not supported: "
                          "transformers builds LFM2's MLP gated (w1, w3, w2)")
    attn = Attention(h, hkv, dh, qk_norm="head")
    conv = ShortConv(d, d_conv=r.int("conv_L_cache", 3, kind="count"),
                     conv_bias=r.flag("conv_bias", False))
    if moe:
        dense = MLP(r.int("intermediate_size", 7168), n_mats=3)
        first = r.int("num_dense_layers", 2, kind="layers", minimum=0)
        e, k = routed_experts(r, n_key="num_experts", defaults=(32, 4))
        experts = MLP(r.int("moe_intermediate_size", 1792), n_mats=3, n_experts=e, top_k=k,
                      router_bias=r.flag("use_expert_bias", True))
        mlps = [dense if i < first else experts for i in range(n)]
    else:
        mlps = [MLP(_lfm2_ff_width(r), n_mats=3)] * n
    layers = [Layers(1, attention=None if _LFM2_BLOCKS[t] else attn,
                     mixer=conv if _LFM2_BLOCKS[t] else None, mlp=mlp, norms=2)
              for t, mlp in zip(types, mlps)]
    kw = stack_fields(r, d, layers)
    r.read.add("tie_embedding")
    kw["tied"] = r.flag("tie_embedding", r.flag("tie_word_embeddings", True))
    return kw


# ---- Qwen3-Next and Qwen3.5 (Gated DeltaNet hybrids) -----------------------------------------
def qwen3_next_of(moe: bool) -> Callable[[Reader], dict[str, Any]]:
    """Qwen3-Next (``qwen3_next``) and the language models of Qwen3.5 (``qwen3_5_text``,
    ``qwen3_5_moe_text``): by ``layer_types`` (or every ``full_attention_interval``-th layer)
    a gated full-attention block (Qwen3NextAttention: q/k norms of head_dim, a query
    projection twice as wide whose second half gates the output) or a Gated DeltaNet mixer;
    then an MLP or a mixture of experts with one gated shared expert (Qwen2-MoE's block:
    router d x E without bias, shared_expert, shared_expert_gate d x 1); two RMSNorms per
    block, final norm, untied head. Multi-token-prediction layers (``mtp_num_hidden_layers``),
    which transformers does not build, are reported apart."""
    def read(r: Reader) -> dict[str, Any]:
        d = r.int("hidden_size")
        n = r.int("num_hidden_layers", kind="layers")
        h, hkv, dh = r.heads(d)
        bias = r.flag("attention_bias", False)
        restated(r, "attn_output_gate", True, "its full attention always gates its output")
        every = r.int("full_attention_interval", 4, kind="count")
        types = r.str_list("layer_types", n, ("linear_attention", "full_attention")) or [
            "linear_attention" if (i + 1) % every else "full_attention" for i in range(n)]
        gdn = GatedDeltaNet(n_qk_heads=r.int("linear_num_key_heads", kind="heads"),
                            n_v_heads=r.int("linear_num_value_heads", kind="heads"),
                            d_k=r.int("linear_key_head_dim"),
                            d_v=r.int("linear_value_head_dim"),
                            d_conv=r.int("linear_conv_kernel_dim", 4, kind="count"),
                            ssm_bits=_ssm_bits(r, "mamba_ssm_dtype"))
        attn = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head",
                         gate=dh)
        dense = MLP(r.int("intermediate_size")) if not moe or r.has("intermediate_size") \
            else None
        if moe:
            e, k = routed_experts(r, n_key="num_experts")
            shared = r.int("shared_expert_intermediate_size", 0, minimum=0)
            expert = MLP(r.int("moe_intermediate_size"), n_experts=e, top_k=k,
                         n_shared=1 if shared else 0, d_shared=shared, shared_gate=bool(shared))
            step = r.int("decoder_sparse_step", 1, kind="count")
            only = set(r.int_list("mlp_only_layers", []))
            if only and dense is None:
                raise ConfigError(f"{r.origin}: field 'mlp_only_layers' names dense layers "
                                  "but no 'intermediate_size' gives their width")
        r.read.add("norm_topk_prob")

        def mlp_of(i: int) -> MLP:
            if moe and i not in only and (i + 1) % step == 0:
                return expert
            if dense is None:
                raise ConfigError(f"{r.origin}: layer {i} is dense but no "
                                  "'intermediate_size' gives its width")
            return dense

        layers = [Layers(1, attention=attn if t == "full_attention" else None,
                         mixer=gdn if t == "linear_attention" else None, mlp=mlp_of(i), norms=2)
                  for i, t in enumerate(types)]
        kw = stack_fields(r, d, layers)
        # MTP (vLLM's qwen3_next_mtp.py; transformers builds none): one module of
        # mtp_num_hidden_layers full-attention blocks with the model's MLP, fc (2d x d),
        # pre_fc_norm_embedding, pre_fc_norm_hidden and norm; embeddings and head shared
        r.refuse("mtp_use_dedicated_embeddings", "an MTP module with its own embeddings is not "
                 "counted")
        n_mtp = r.int("mtp_num_hidden_layers", 0, kind="layers", minimum=0)
        kw["extras"] = with_mtp(kw, 1 if n_mtp else 0,
                                [Layers(1, attention=attn, mlp=mlp_of(n), norms=2)] * n_mtp,
                                "Qwen3.5's MTP module (vLLM's layout)", own_embeddings=False,
                                names="mtp.layers")
        return kw
    return read
