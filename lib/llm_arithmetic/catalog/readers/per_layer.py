"""Readers of families whose layers differ in shape from one another: Nemotron-NAS (DeciLM's
block shape per layer), Laguna (heads per layer), Step 3.7 (sliding layers with their own
geometry, gates, MTP) and MiMo-V2-Flash (windowed layers with their own heads).
"""
from __future__ import annotations

from typing import Any, Mapping

from ...core.errors import ConfigError
from ..model import MLP, Attention, Layers
from .base import (LIMITS, NEUTRAL, Reader, decoder, one_of, read_context, read_window, restated,
                   routed_experts, stack_fields, window_flags, with_mtp)


# ---- Nemotron-NAS (DeciLM: a block shape per layer) --------------------------------------------
#: Keys of a ``block_configs`` entry's parts the reader understands: part -> key -> the value that
#: leaves a Llama block unchanged (``...``: read below). Any other key, or one of these with
#: another value, is refused naming it.
_DECI_KEYS: Mapping[str, Mapping[str, Any]] = {
    "attention": {"n_heads_in_group": ..., "no_op": ..., "replace_with_linear": False,
                  "sparsify": None, "num_sink_tokens": None, "window_length": None,
                  "unshifted_sink": False, "use_prefill_window_in_sink_attention": False,
                  "llama4": None},
    "ffn": {"ffn_mult": ..., "intermediate_size": ..., "no_op": ..., "replace_with_linear": False,
            "sparsify": None, "hidden_act": None, "moe": None},
}


def _deci_ffn_width(ffn_mult: float, d: int) -> int:
    """The MLP width of a DeciLM block from its ``ffn_mult``, as the modeling code computes it
    (vLLM's ``nemotron_nas.py`` ``_ffn_mult_to_intermediate_size``): int(2 ffn_mult d / 3) in
    floating point, rounded up to a multiple of 256.

    >>> [_deci_ffn_width(m, 8192) for m in (0.5, 1.0, 1.3125, 2.625, 3.28125, 5.25)]
    [2816, 5632, 7168, 14336, 17920, 28672]
    """
    width = int(2 * ffn_mult * d / 3)
    return width + (-width) % 256


def _deci_part(r: Reader, i: int, entry: Any, part: str) -> Reader:
    """A reader of ``block_configs[i].<part>`` whose errors name that path; keys other than
    :data:`_DECI_KEYS`, or those with a value that changes the block, are refused."""
    where = f"{r.origin}: block_configs[{i}].{part}"
    scope = entry.get(part) if isinstance(entry, Mapping) else None
    if not isinstance(scope, Mapping):
        raise ConfigError(f"{r.origin}: field 'block_configs' entry {i} needs an object "
                          f"'{part}'")
    for key, value in scope.items():
        if key not in _DECI_KEYS[part]:
            if value not in NEUTRAL:
                raise ConfigError(f"{where}: field '{key}' = {value!r:.60} is not understood "
                                  "by the 'nemotron-nas' reader, and counting without it would "
                                  "describe a different model")
        elif _DECI_KEYS[part][key] is not ... and value != _DECI_KEYS[part][key] \
                and value not in NEUTRAL:
            raise ConfigError(f"{where}: field '{key}' = {value!r:.60} is not supported: the "
                              "'nemotron-nas' reader reads no-op and Llama blocks only (a "
                              "linear replacement, sinks, windows or sparsity change the count)")
    return Reader(scope, where, "nemotron-nas")


def nemotron_nas(r: Reader) -> dict[str, Any]:
    # DeciLM / Nemotron-NAS (Llama-3.3-Nemotron-Super-49B-v1; vLLM's nemotron_nas.py,
    # DeciLMDecoderLayer): Llama 3's block, one shape per layer from block_configs[i]. Attention,
    # unless attention.no_op: input_layernorm and Llama attention with num_attention_heads query
    # heads of hidden_size / num_attention_heads and num_attention_heads / n_heads_in_group
    # key/value heads (each layer its own). MLP, unless ffn.no_op: post_attention_layernorm and
    # Llama's gated MLP of _deci_ffn_width(ffn_mult) (or ffn.intermediate_size). A no-op part has
    # no norm either. Final norm; head untied unless tie_word_embeddings. The top-level
    # num_key_value_heads and intermediate_size (null in the files) are not read by the model.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) does not divide the hidden "
                          f"size ({d})")
    r.read.update({"num_key_value_heads", "intermediate_size"})
    blocks = r.raw("block_configs")
    if not isinstance(blocks, list) or len(blocks) != n:
        raise ConfigError(f"{r.origin}: field 'block_configs' must be a list of "
                          f"{n} blocks (num_hidden_layers), one per layer")
    attn_bias = r.flag("attention_bias", False)
    mlp_bias = r.flag("mlp_bias", False)
    layers = []
    for i, entry in enumerate(blocks):
        a, f = _deci_part(r, i, entry, "attention"), _deci_part(r, i, entry, "ffn")
        attention = None
        if not a.flag("no_op", False):
            group = a.int("n_heads_in_group", kind="heads")
            if h % group:
                raise ConfigError(f"{a.origin}: field 'n_heads_in_group' ({group}) does not "
                                  f"divide 'num_attention_heads' ({h})")
            attention = Attention(h, h // group, d // h, qkv_bias=attn_bias, o_bias=attn_bias)
        mlp = None
        if not f.flag("no_op", False):
            if f.has("ffn_mult"):
                mult = f.raw("ffn_mult")
                limit, why = LIMITS["width"]
                if isinstance(mult, bool) or not isinstance(mult, (int, float)) \
                        or not 0 < mult < limit:
                    raise ConfigError(f"{f.origin}: field 'ffn_mult' must be a positive number "
                                      f"below {limit:,} ({why}), got {mult!r:.60}")
                width = _deci_ffn_width(mult, d)
                if width > limit:
                    raise ConfigError(f"{f.origin}: field 'ffn_mult' = {mult} makes an MLP "
                                      f"{width:,} wide, beyond the plausibility limit "
                                      f"{limit:,} ({why})")
            else:
                width = f.int("intermediate_size")
            mlp = MLP(width, n_mats=3, bias=mlp_bias)
        if attention is None and mlp is None:
            continue  # an identity block: no weights, no cache, no arithmetic
        layers.append(Layers(1, attention, mlp=mlp,
                             norms=(attention is not None) + (mlp is not None)))
    if not layers:
        raise ConfigError(f"{r.origin}: field 'block_configs' makes every block a no-op")
    return stack_fields(r, d, layers)


# ---- Laguna (per-layer attention geometry) -------------------------------------------------
def laguna(r: Reader) -> dict[str, Any]:
    # Laguna (transformers' modular_laguna.py): per layer, by `layer_types`, full or sliding
    # attention with its own head count (`num_attention_heads_per_layer`), K/V heads and head_dim
    # shared; q/k norms of head_dim; a per-head output gate g_proj d -> H when `gating` (a
    # softplus); by `mlp_layer_types`, a dense MLP of intermediate_size or a MoE block (router
    # d x E with an e_score_correction_bias Parameter of E, routed experts of
    # moe_intermediate_size, one ungated shared expert); two RMSNorms per layer; untied head.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    heads = r.int_list("num_attention_heads_per_layer", [h] * n, n=n)
    for i, hi in enumerate(heads):
        if hi < 1 or hi % hkv:
            raise ConfigError(f"{r.origin}: field 'num_attention_heads_per_layer' entry {i} "
                              f"({hi}) is not a positive multiple of 'num_key_value_heads'")
    bias = r.flag("attention_bias", False)
    gate = 1 if r.flag("gating", True) else 0
    window = read_window(r)
    flags = window_flags(r, n, "") if window else [False] * n
    kinds = r.str_list("mlp_layer_types", n) or ["sparse"] * n
    if set(kinds) - {"dense", "sparse"}:
        raise ConfigError(f"{r.origin}: field 'mlp_layer_types' has kinds other than 'dense' "
                          "and 'sparse'")
    e, k = routed_experts(r, n_key="num_experts")
    shared = r.int("shared_expert_intermediate_size", 0, minimum=0)
    moe = MLP(r.int("moe_intermediate_size"), n_experts=e, top_k=k, n_shared=1 if shared else 0,
              d_shared=shared, router_bias=True)
    dense = MLP(r.int("intermediate_size"))
    r.read.update({"moe_apply_router_weight_on_input", "moe_routed_scaling_factor",
                   "partial_rotary_factor", "use_bidirectional_attention"})
    return decoder(
        r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
        trained_context=read_context(r),
        attention=lambda i: Attention(heads[i], hkv, dh, window=window if flags[i] else None,
                                      qkv_bias=bias, o_bias=bias, qk_norm="head", gate=gate),
        mlp=lambda i: moe if kinds[i] == "sparse" else dense, d_model=d)


# ---- Step 3.7 (sliding layers, a per-head output gate, a shared expert, MTP) ------------------
def _per_layer(r: Reader, key: str, n: int, mtp: int, kinds: tuple[str, ...]) -> list[str] | None:
    """A per-layer list of ``n`` kinds, or None; a hub file's list padded with one entry per
    MTP layer (n + mtp entries) is trimmed to the decoder's n, as Step3p7TextConfig does."""
    v = r.raw(key)
    if isinstance(v, list) and mtp and len(v) == n + mtp:
        return r.str_list(key, n + mtp, kinds)[:n]  # type: ignore[index]
    return r.str_list(key, n, kinds)


def step3p7(r: Reader) -> dict[str, Any]:
    # Step3p7TextConfig / Step3p7TextModel (transformers 5.24.0, models/step3p7): per layer q, k,
    # v, o (biases if attention_bias), q_norm and k_norm of head_dim, g_proj d -> H (a sigmoid
    # gate per head when `gating` is true or "per-head", else d -> H d_head); sliding or full
    # attention by `layer_types` (sliding layers keep `sliding_window` tokens and may have
    # their own query heads, `num_sliding_attention_heads` or the hub's
    # `attention_other_setting`); by `mlp_layer_types` (else `moe_layers_enum`, else layers
    # 3..L-1) a dense MLP of intermediate_size or a MoE block: router d x E with its
    # e_score_correction_bias buffer of E, E routed experts of moe_intermediate_size, one
    # shared expert of share_expert_dim (no gate); two RMSNorms per layer, final norm, untied
    # head. `num_nextn_predict_layers` MTP layers are not built by transformers: reported apart.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    mtp = one_of(r, ("num_nextn_predict_layers", "num_mtp_layers"), 0, "layers")
    bias = r.flag("attention_bias", False)
    r.refuse("mlp_bias", "biases on Step 3.7's dense and shared-expert MLPs are not counted")
    r.refuse("per_layer_config", "an explicit per-layer geometry is not read")
    restated(r, "use_qk_norm", True, "its attention always has q/k norms of head_dim")
    restated(r, "use_head_wise_attn_gate", True, "its attention always has an output gate")
    gating = r.raw("gating", True)
    if gating not in (True, False, "per-head"):
        raise ConfigError(f"{r.origin}: field 'gating' must be true, false or 'per-head', got "
                          f"{gating!r:.40}")
    gate = 1 if gating in (True, "per-head") else dh
    other = r.raw("attention_other_setting", {})
    if not isinstance(other, dict):
        raise ConfigError(f"{r.origin}: field 'attention_other_setting' must be an object")
    for key, same in (("num_attention_groups", hkv), ("head_dim", dh)):
        if other.get(key, same) != same:
            raise ConfigError(f"{r.origin}: field 'attention_other_setting.{key}' = "
                              f"{other[key]!r:.40} is not supported: Step3p7Attention builds "
                              "sliding layers with the model's key/value heads and head width")
    h_swa = r.int("num_sliding_attention_heads", None, kind="heads")
    if h_swa is None:
        h_swa = other.get("num_attention_heads", h)
        if isinstance(h_swa, bool) or not isinstance(h_swa, int) or h_swa < 1:
            raise ConfigError(f"{r.origin}: field 'attention_other_setting.num_attention_heads' "
                              "must be a positive integer")
    if h_swa % hkv:
        raise ConfigError(f"{r.origin}: the sliding layers' {h_swa} query heads are not a "
                          f"multiple of 'num_key_value_heads' ({hkv})")
    types = _per_layer(r, "layer_types", n, mtp, ("full_attention", "sliding_attention")) \
        or ["full_attention"] * n
    window = read_window(r)
    if window is None and "sliding_attention" in types:
        raise ConfigError(f"{r.origin}: field 'layer_types' has sliding layers but no "
                          "'sliding_window' gives their window")
    kinds = _per_layer(r, "mlp_layer_types", n, mtp, ("dense", "sparse"))
    if kinds is None:
        enum = r.raw("moe_layers_enum")
        if enum is None:
            moe_at = set(range(3, n))
        else:
            items = enum.split(",") if isinstance(enum, str) else enum
            try:
                moe_at = {int(i) for i in items if str(i).strip()}
            except (TypeError, ValueError):
                raise ConfigError(f"{r.origin}: field 'moe_layers_enum' must list layer "
                                  "indices") from None
        kinds = ["sparse" if i in moe_at else "dense" for i in range(n)]
    first = r.int("first_k_dense_replace", None, kind="layers", minimum=0)
    if first is not None and kinds != ["dense"] * first + ["sparse"] * (n - first):
        raise ConfigError(f"{r.origin}: field 'first_k_dense_replace' ({first}) contradicts "
                          "the dense layers Step3p7TextConfig derives (mlp_layer_types, "
                          "moe_layers_enum, or layers 0-2)")
    e = one_of(r, ("n_routed_experts", "moe_num_experts", "num_experts", "num_local_experts"),
               288, "experts")
    k = one_of(r, ("num_experts_per_tok", "moe_top_k"), 8, "experts")
    if k > e:
        raise ConfigError(f"{r.origin}: {k} experts per token exceed the {e} routed experts")
    if r.int("n_shared_experts", 1, kind="experts", minimum=0) != 1:
        raise ConfigError(f"{r.origin}: field 'n_shared_experts' must be 1: every Step 3.7 MoE "
                          "block has one shared expert")
    moe = MLP(r.int("moe_intermediate_size", 1280), n_experts=e, top_k=k, n_shared=1,
              d_shared=one_of(r, ("share_expert_dim", "share_expert_dims"), 1280, "width"),
              router_bias=r.flag("use_moe_router_bias", True))
    dense = MLP(r.int("intermediate_size"))
    r.read.update({"moe_router_scaling_factor", "swiglu_limits", "swiglu_limits_shared",
                   "partial_rotary_factors", "query_pre_attn_scalar", "scoring_func",
                   "use_rope_layers", "yarn_only_types", "norm_expert_weight"})
    full = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head", gate=gate)
    swa = Attention(h_swa, hkv, dh, window=window, qkv_bias=bias, o_bias=bias, qk_norm="head",
                    gate=gate)
    kw = decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                 trained_context=read_context(r),
                 attention=lambda i: swa if types[i] == "sliding_attention" else full,
                 mlp=lambda i: moe if kinds[i] == "sparse" else dense, d_model=d)
    # each MTP layer (checkpoint layers L..L+2; an MLX port, search index file id 45708974791,
    # and the 17 tensors per layer a pruned copy's card counts): enorm, hnorm, eh_proj, one
    # block of sliding attention and a dense MLP, shared_head.norm and its own output head
    kw["extras"] = with_mtp(kw, mtp, [Layers(1, swa, mlp=dense, norms=2)],
                            "Step 3.7's MTP layers: a sliding-attention block with a dense MLP and "
                            "an output head each", own_embeddings=False, own_head=True)
    return kw


# ---- MiMo-V2-Flash (windowed layers with their own heads, narrower values) --------------------
def mimo_v2_flash(r: Reader) -> dict[str, Any]:
    # MiMoV2FlashAttention (transformers-style ports, index file ids 53502381580, 53782473961,
    # 52549528620): by `hybrid_layer_pattern`, 1 a sliding-window layer with its own heads
    # (swa_num_attention_heads, swa_num_key_value_heads, swa_head_dim, swa_v_head_dim), 0 a
    # full-attention layer; q and k of head_dim, v of v_head_dim, o from H v_head_dim, no
    # q/k norms; an attention-sink logit per head where `add_*_attention_sink_bias`; by
    # `moe_layer_freq`, a dense MLP or DeepSeek-V3's MoE block (router d x E and its
    # e_score_correction_bias buffer, routed experts, shared experts if any).
    r.refuse("attention_bias", "biases on MiMo-V2-Flash's projections are not counted")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    pattern = r.int_list("hybrid_layer_pattern", [0] * n, n=n)
    if set(pattern) - {0, 1}:
        raise ConfigError(f"{r.origin}: field 'hybrid_layer_pattern' must hold 0 (full) and 1 "
                          "(sliding window) per layer")
    window = read_window(r)
    for key in ("sliding_window_size", "attention_chunk_size"):
        if r.int(key, window, kind="context") != window:
            raise ConfigError(f"{r.origin}: field '{key}' differs from 'sliding_window': only "
                              "one window length is modelled")

    def attention(prefix: str, sinks: bool, win: int | None) -> Attention:
        h = r.int(prefix + "num_attention_heads", kind="heads")
        hkv = r.int(prefix + "num_key_value_heads", kind="heads")
        if h % hkv:
            raise ConfigError(f"{r.origin}: field '{prefix}num_key_value_heads' ({hkv}) does "
                              f"not divide '{prefix}num_attention_heads' ({h})")
        return Attention(h, hkv, r.int(prefix + "head_dim"), window=win, sinks=sinks,
                         d_v=r.int(prefix + "v_head_dim"))
    full = attention("", r.flag("add_full_attention_sink_bias", False), None)
    swa = attention("swa_", r.flag("add_swa_attention_sink_bias", False), window)
    moe_at = r.int_list("moe_layer_freq", [1] * n, n=n)
    e, k = routed_experts(r, n_key="n_routed_experts")
    shared = r.int("n_shared_experts", 0, kind="experts", minimum=0)
    width = r.int("moe_intermediate_size")
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0, d_shared=width * shared,
              router_bias=True)
    dense = MLP(r.int("intermediate_size"))
    r.read.update({"topk_method", "swa_rope_theta", "partial_rotary_factor",
                   "attention_value_scale"})
    return decoder(
        r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
        trained_context=read_context(r),
        attention=lambda i: swa if pattern[i] else full,
        mlp=lambda i: moe if moe_at[i] else dense, d_model=d)
