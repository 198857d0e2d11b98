"""Readers of Google's Gemma family: Gemma 1 and 2, Gemma 3 (text and with its SigLIP vision
tower), Gemma 4 (per-layer geometry, its vision and audio towers) and Gemma 3n (AltUp, LAuReL,
per-layer input embeddings, its timm vision network and audio encoder).
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Mapping

from ...core.errors import ConfigError
from ..audio import AudioRule
from ..model import MLP, Attention, Extra, ImageRule
from .base import (Reader, decoder, defaulted, head_width, read_context, read_window,
                   routed_experts, vit_block_params, vit_matmul_params, vit_patch_params,
                   wrapped_text)
from .dense import llama_like


def gemma(r: Reader) -> dict[str, Any]:
    return llama_like(r, tied=True, qkv_bias=False, o_bias=False)


def gemma2(r: Reader) -> dict[str, Any]:
    return llama_like(r, tied=True, qkv_bias=False, o_bias=False, norms=4,
                      window_rule="alternate")


#: transformers' Gemma3TextConfig defaults (what a text_config that omits them means).
GEMMA3_TEXT_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
    "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
    "head_dim": 256, "max_position_embeddings": 131072, "sliding_window": 4096,
    "sliding_window_pattern": 6, "tie_word_embeddings": True, "attention_bias": False,
}

#: transformers' SiglipVisionConfig defaults as Gemma 3 uses them.
SIGLIP_DEFAULTS: Mapping[str, Any] = {
    "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
    "num_attention_heads": 12, "num_channels": 3, "image_size": 224, "patch_size": 16,
}


def gemma3_text(r: Reader) -> dict[str, Any]:
    # a null sliding_window is not the default window: Gemma3TextConfig keeps None as given, and
    # transformers' create_sliding_window_causal_mask (src/transformers/masking_utils.py at
    # huggingface/transformers@00c4411cbe15d4c56d54d3b56d4d171e9c289dac) raises for it, so such
    # a model's sliding layers do not run; with layer_types naming no sliding layer it is unused
    types = r.cfg.get("layer_types")
    if "sliding_window" in r.cfg and r.cfg["sliding_window"] is None \
            and not (isinstance(types, list) and "sliding_attention" not in types):
        raise ConfigError(f"{r.origin}: field 'sliding_window' is null, but Gemma 3's sliding "
                          "layers need a window (transformers raises for them without one); "
                          "give the window, or layer_types without sliding layers")
    inner = defaulted(r.cfg, GEMMA3_TEXT_DEFAULTS, r.origin, r.family)
    kw = llama_like(inner, tied=True, qkv_bias=False, o_bias=False, norms=4,
                    window_rule="pattern", qk_norm="head")
    r.read |= inner.read
    return kw


def siglip_params(r: Reader) -> int:
    """Parameters of a SigLIP vision tower without its pooling head (Gemma 3)."""
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    r.int("num_attention_heads", kind="heads")
    c = r.int("num_channels", 3, kind="count")
    p = r.int("patch_size", kind="count")
    image = r.int("image_size", kind="width")
    r.refuse("vision_use_head", "the SigLIP pooling head is not counted")
    patches = (image // p) ** 2
    embeddings = c * p * p * h + h + patches * h
    return embeddings + n * vit_block_params(h, inter) + 2 * h


def _gemma3_image_rule(r: Reader, vr: Reader, d_text: int) -> ImageRule | None:
    """Gemma 3's image rule (transformers 5.24.0 ``models/gemma3/modeling_gemma3.py``
    ``Gemma3MultiModalProjector``; ``processing_gemma3.py``: pan and scan off by default): one
    image_size crop, (image_size / patch)^2 patches without a class token, average-pooled to
    ``mm_tokens_per_image`` tokens (896 / 14 = 64 per side pooled 4 x 4: 256), projected
    h -> d_text. None where the pooling does not divide (not modelled)."""
    h, p, size = vr.int("hidden_size"), vr.int("patch_size", kind="count"), vr.int("image_size")
    n = vr.int("num_hidden_layers", kind="layers")
    tokens = r.int("mm_tokens_per_image", 256, kind="count")
    side, per_side = size // p, math.isqrt(tokens)
    if per_side * per_side != tokens or size % p or side % per_side:
        return None
    return ImageRule(rule="fixed", patch=p, merge=side // per_side, width=h, layers=n,
                     size=size, tower_matmul=vit_matmul_params(vr, p), merger_matmul=h * d_text,
                     patch_matmul=vit_patch_params(vr, p),
                     heads=vr.int("num_attention_heads", kind="heads"),
                     heads_key="vision_config.num_attention_heads")


def gemma3(r: Reader) -> dict[str, Any]:
    text = r.raw("text_config", {})
    vision = r.raw("vision_config", {})
    if not isinstance(text, dict) or not isinstance(vision, dict):
        raise ConfigError(f"{r.origin}: 'text_config' and 'vision_config' must be objects")
    tr = Reader(text, r.origin + ": text_config", "gemma3_text")
    kw = gemma3_text(tr)
    tr.check_unread()
    vr = defaulted(vision, SIGLIP_DEFAULTS, r.origin + ": vision_config", "siglip_vision_model")
    tower = siglip_params(vr)
    # Gemma3MultiModalProjector: a vision_hidden x text_hidden matrix and an RMSNorm
    projector = vr.int("hidden_size") * kw["d_model"] + vr.int("hidden_size")
    kw["extras"] = (Extra("vision tower and projector", tower + projector, True,
                          "SigLIP encoder and Gemma 3's multimodal projector",
                          image=_gemma3_image_rule(r, vr, kw["d_model"])),)
    return kw


#: transformers' Gemma4TextConfig defaults (5.24.0, ``configuration_gemma4.py``).
GEMMA4_TEXT_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 262144, "hidden_size": 2304, "intermediate_size": 9216,
    "num_hidden_layers": 30, "num_attention_heads": 8, "num_key_value_heads": 4,
    "head_dim": 256, "global_head_dim": 512, "max_position_embeddings": 131072,
    "sliding_window": 512, "tie_word_embeddings": True, "attention_bias": False,
    "hidden_size_per_layer_input": 256, "vocab_size_per_layer_input": 262144,
    "attention_k_eq_v": False, "num_kv_shared_layers": 0, "enable_moe_block": False,
}

#: transformers' Gemma4VisionConfig defaults.
GEMMA4_VISION_DEFAULTS: Mapping[str, Any] = {
    "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 16,
    "num_attention_heads": 12, "num_key_value_heads": 12, "head_dim": 64, "patch_size": 16,
    "position_embedding_size": 10240,
}


def gemma4_text(r: Reader) -> dict[str, Any]:
    # Gemma4TextModel (transformers 5.24.0 modeling_gemma4.py): sliding layers with
    # num_key_value_heads x head_dim, global layers with head_dim = global_head_dim and, when
    # attention_k_eq_v, num_global_key_value_heads and no v_proj (values = the key projection);
    # q_norm, k_norm of the layer's head width (v_norm has no weight); four RMSNorms per layer;
    # a dense GeGLU MLP of intermediate_size and, with enable_moe_block, beside it a mixture of
    # num_experts of moe_intermediate_size (top_k_experts), a router (proj E x d, scale d,
    # per_expert_scale E) and three more RMSNorms. FAMILIES.md section 14.16. Per-layer input
    # embeddings (hidden_size_per_layer_input > 0; E2B, E4B): a table of
    # vocab_size_per_layer_input x (layers x width), a projection d -> layers x width and its
    # norm, and per layer a gate, a projection back and a norm (Model.d_ple). The last
    # num_kv_shared_layers layers read the cache of the last earlier layer of their kind: no
    # k/v projections, no k norm (kv_shared); with use_double_wide_mlp their MLP is twice as
    # wide. FAMILIES.md section 14.20.
    given_ple_vocab = r.cfg.get("vocab_size_per_layer_input", ...)
    g = defaulted(r.cfg, GEMMA4_TEXT_DEFAULTS, r.origin, r.family)
    d = g.int("hidden_size")
    n = g.int("num_hidden_layers", kind="layers")
    h, hkv, dh = g.heads(d)
    d_ple = g.int("hidden_size_per_layer_input", 0, minimum=0)
    if "hidden_size_per_layer_input" in r.cfg and r.cfg["hidden_size_per_layer_input"] is None:
        # an explicit null builds no per-layer embeddings (the modeling code tests the width's
        # truth, `if config.hidden_size_per_layer_input:`), not the class default's 256
        d_ple = 0
    n_vocab_ple = 0
    if d_ple:
        if given_ple_vocab is None or given_ple_vocab == 0:
            raise ConfigError(f"{r.origin}: field 'vocab_size_per_layer_input' is "
                              f"{given_ple_vocab} while 'hidden_size_per_layer_input' is "
                              f"{d_ple}: per-layer input embeddings need both dimensions")
        n_vocab_ple = g.int("vocab_size_per_layer_input", kind="vocab")
    g.read.add("vocab_size_per_layer_input")
    shared = g.int("num_kv_shared_layers", 0, kind="layers", minimum=0)
    if shared >= n:
        raise ConfigError(f"{r.origin}: field 'num_kv_shared_layers' ({shared}) must be less "
                          f"than 'num_hidden_layers' ({n}): some layer must own a cache")
    double_mlp = g.flag("use_double_wide_mlp", False)  # key/value-sharing layers only
    g.refuse("per_layer_config", "an explicit per-layer geometry is not read")
    if g.raw("use_bidirectional_attention") == "all":
        raise ConfigError(f"{r.origin}: field 'use_bidirectional_attention' = 'all' makes the "
                          "model an encoder (no causal cache), which is not modelled")
    types = g.str_list("layer_types", n, ("sliding_attention", "full_attention")) or [
        "sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(n)]
    types[-1] = "full_attention"  # Gemma4TextConfig forces the last layer global
    first_shared = n - shared
    if set(types[:first_shared]) != set(types):
        raise ConfigError(f"{r.origin}: field 'num_kv_shared_layers' ({shared}) leaves no "
                          "earlier layer of kind "
                          f"{sorted(set(types) - set(types[:first_shared]))} to read from")
    window = read_window(g)
    tied_kv = g.flag("attention_k_eq_v", False)
    g_heads = (g.int("num_global_key_value_heads", hkv, kind="heads") if tied_kv else hkv)
    g.read.add("num_global_key_value_heads")
    if h % g_heads:
        raise ConfigError(f"{r.origin}: field 'num_global_key_value_heads' ({g_heads}) does not "
                          f"divide 'num_attention_heads' ({h})")
    bias = g.flag("attention_bias", False)
    sliding = Attention(h, hkv, dh, window=window, qkv_bias=bias, o_bias=bias, qk_norm="head")
    # the attention layer takes `config.global_head_dim if not sliding and
    # config.global_head_dim else config.head_dim`: an explicit null (or 0) is head_dim, not the
    # class default's 512
    g_dh = dh if "global_head_dim" in r.cfg and not r.cfg["global_head_dim"] else \
        g.int("global_head_dim")
    g.read.add("global_head_dim")
    full = Attention(h, g_heads, g_dh, qkv_bias=bias, o_bias=bias, qk_norm="head",
                     kv_tied=tied_kv)
    if shared and tied_kv:
        raise ConfigError(f"{r.origin}: field 'num_kv_shared_layers' ({shared}) together with "
                          "'attention_k_eq_v' is not modelled")
    ff = g.int("intermediate_size")
    mlp, norms = MLP(ff), 4
    if g.flag("enable_moe_block", False):
        if shared and double_mlp:
            raise ConfigError(f"{r.origin}: field 'use_double_wide_mlp' with "
                              "'enable_moe_block' is not modelled")
        e, k = routed_experts(g, n_key="num_experts", k_key="top_k_experts")
        # the dense MLP runs beside the experts on every token: one shared expert of width ff;
        # per_expert_scale is the router's vector of E; router.scale (d) weights the router's
        # RMSNorm and counts with the three extra norms
        mlp = MLP(g.int("moe_intermediate_size"), n_experts=e, top_k=k, n_shared=1, d_shared=ff,
                  router_bias=True)
        norms = 4 + 3 + 1
    else:
        g.read.update({"num_experts", "top_k_experts", "moe_intermediate_size"})
    g.refuse("expert_intermediate_size", "Gemma 4's expert width is 'moe_intermediate_size'")
    wide = MLP(2 * ff) if double_mlp and not mlp.n_experts > 1 else mlp

    def attention(i: int) -> Attention:
        a = sliding if types[i] == "sliding_attention" else full
        return replace(a, kv_shared=True) if i >= first_shared else a

    # the checkpoints of E2B and E4B still store the KV-sharing layers' k and v projections
    # and k norm, which no layer uses (transformers 5.24.0 builds none of them): reported apart
    unused = sum(2 * a.n_kv_heads * a.d_head * d + a.d_head
                 for a in map(attention, range(first_shared, n)))
    extras = (Extra("unused k, v and k-norm weights of the KV-sharing layers", unused, True,
                    "stored in the checkpoint; no decode step reads them"),) if unused else ()
    kw = decoder(g, n_layers=n, norms=norms, tied=g.flag("tie_word_embeddings", True),
                 trained_context=read_context(g),
                 attention=attention, mlp=lambda i: wide if i >= first_shared else mlp,
                 d_model=d, extras=extras)
    kw.update(d_ple=d_ple, n_vocab_ple=n_vocab_ple)
    r.read |= g.read
    return kw


def _gemma4_vision_params(r: Reader, d_text: int) -> int:
    """Parameters of Gemma 4's vision encoder (Gemma4VisionModel) and its projection into the
    language model (Gemma4MultimodalEmbedder): a patch projection 3 p^2 -> h and two learned
    position tables (x and y) of position_embedding_size x h; per layer q, o of H d_head, k, v
    of H_kv d_head (no biases), q/k norms of d_head, a GeGLU MLP h -> inter -> h and four
    RMSNorms of h; the pooler has no parameters (the standardization's bias and scale are
    buffers); the embedder one h x d_text matrix (its norm has no weight)."""
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    heads, kv, dh = r.heads(h)
    r.read.add("global_head_dim")  # vision layers are all alike: head_dim applies
    r.refuse("attention_bias", "biases in Gemma 4's vision attention are not counted")
    p = r.int("patch_size", kind="count")
    positions = r.int("position_embedding_size", kind="context")
    r.read.update({"standardize", "use_clipped_linears", "pooling_kernel_size"})  # buffers only
    layer = (2 * heads + 2 * kv) * dh * h + 2 * dh + 3 * h * inter + 4 * h
    tower = 3 * p * p * h + 2 * positions * h + n * layer
    return tower + h * d_text


#: Gemma4ImageProcessor's max_soft_tokens (transformers 5.24.0 ``models/gemma4/
#: image_processing_gemma4.py``: 280 by default, one of 70, 140, 280, 560, 1120).
GEMMA4_SOFT_TOKENS = 280


def _gemma4_image_rule(r: Reader, d_text: int) -> ImageRule:
    """Gemma 4's image rule (FAMILIES.md): the processor's
    ``get_aspect_ratio_preserving_size``, the largest size of the image's aspect ratio within
    max_patches = max_soft_tokens k^2 patches (k = ``pooling_kernel_size``), sides multiples of
    k p, kept as ``max_pixels`` = max_patches p^2 (its ``target_px``); every image's patches
    padded to max_patches, which the tower runs (masked) whatever the image; the pooler
    averages k x k patches into a token. Weights per patch: the patch projection 3 p^2 -> h,
    per layer q, k, v, o and the GeGLU MLP (3 h inter); per token the embedder h -> d_text.
    vLLM builds this tower through transformers' ``AutoModel`` and runs it whole on every chip
    of a tensor-parallel group (vllm-project/vllm@49e6e4739167b1c261e06909e08f0b50dd576be4
    vllm/model_executor/models/gemma4_mm.py, ``Gemma4ForConditionalGeneration.__init__``:
    ``AutoModel.from_config(config=config.vision_config)``; the embedder a
    ``ReplicatedLinear``): ``whole``."""
    h, p = r.int("hidden_size"), r.int("patch_size", kind="count")
    k = r.int("pooling_kernel_size", 3, kind="count")
    heads, kv, dh = r.heads(h)
    n = r.int("num_hidden_layers", kind="layers")
    layer = (2 * heads + 2 * kv) * dh * h + 3 * h * r.int("intermediate_size")
    return ImageRule(rule="gemma4", patch=p, merge=k, width=h, layers=n,
                     max_pixels=GEMMA4_SOFT_TOKENS * k * k * p * p,
                     tower_matmul=3 * p * p * h + n * layer, merger_matmul=h * d_text,
                     patch_matmul=3 * p * p * h, whole=True)


#: transformers' Gemma4AudioConfig defaults (5.24.0).
GEMMA4_AUDIO_DEFAULTS: Mapping[str, Any] = {
    "hidden_size": 1024, "num_hidden_layers": 12, "num_attention_heads": 8,
    "subsampling_conv_channels": [128, 32], "conv_kernel_size": 5, "output_proj_dims": 1536,
}


def _gemma4_audio_params(r: Reader, d_text: int) -> int:
    """Parameters of Gemma 4's audio encoder (Gemma4AudioModel, a Conformer) and its projection
    into the language model: two 3 x 3 convolutions (1 -> c0 -> c1 channels, each with a norm
    of its channels) and a projection (c0/4) c1 -> h; per layer two macaron feed-forward
    blocks (h -> 4h -> h, two norms each), attention (q, k, v, output and a relative-position
    key projection, h x h each, and a per-dimension scale of h/heads), a light convolution (h ->
    2h gated, a depthwise kernel of k per channel, h -> h, two norms) and three norms; an
    output projection h -> o with bias; the embedder one o x d_text matrix (its norm has no
    weight). The clipped linears' bounds are buffers. FAMILIES.md section 14.20."""
    h = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    heads = r.int("num_attention_heads", kind="heads")
    head = head_width(r, h, heads)
    c0, c1 = r.int_list("subsampling_conv_channels", [128, 32], n=2)
    k = r.int("conv_kernel_size", kind="count")
    o = r.int("output_proj_dims")
    r.read.update({"use_clipped_linears", "attention_chunk_size", "attention_context_left",
                   "attention_context_right", "gradient_clipping", "residual_weight"})
    subsample = 9 * c0 + c0 + 9 * c0 * c1 + c1 + (c0 // 4) * c1 * h
    layer = 24 * h * h + 9 * h + k * h + head
    return subsample + n * layer + o * h + o + o * d_text


def _gemma4_audio_rule(r: Reader, d_text: int) -> AudioRule:
    """The :class:`~llm_arithmetic.catalog.audio.AudioRule` of Gemma 4's audio encoder (read
    after its parameters, so with its defaults): rule ``gemma4``, the conformer's width,
    layers, heads, attention blocks and contexts, light-convolution kernel and subsampling
    channels, ``output_proj_dims`` and the text width; transformers' module, run whole on
    every chip by vLLM."""
    h = r.int("hidden_size")
    return AudioRule("gemma4", width=h, layers=r.int("num_hidden_layers"), ffn=4 * h,
                     mels=128, n_window=r.int("attention_chunk_size", 12, kind="count"),
                     output_dim=d_text, heads=r.int("num_attention_heads"),
                     context_left=r.int("attention_context_left", 13, kind="count"),
                     context_right=r.int("attention_context_right", 0, kind="count",
                                         minimum=0),
                     kernel=r.int("conv_kernel_size"),
                     sub_channels=tuple(r.int_list("subsampling_conv_channels", [128, 32],
                                                   n=2)),
                     proj_dim=r.int("output_proj_dims"))


def _gemma4_tower(r: Reader, key: str, defaults: Mapping[str, Any]) -> Reader | None:
    tower = r.raw(key, None)
    if tower is None:
        return None
    if not isinstance(tower, dict):
        raise ConfigError(f"{r.origin}: field '{key}' must be an object")
    return defaulted(tower, defaults, f"{r.origin}: {key}", f"gemma4_{key[:-7]}")


def gemma4(r: Reader) -> dict[str, Any]:
    # Gemma4ForConditionalGeneration: the language model in text_config, a vision tower in
    # vision_config, an audio tower in audio_config (E2B, E4B), each with its projection into
    # the text width
    kw = wrapped_text(r, "gemma4_text")
    towers = []
    vr = _gemma4_tower(r, "vision_config", GEMMA4_VISION_DEFAULTS)
    if vr is not None:
        towers.append(Extra("vision tower and projector",
                            _gemma4_vision_params(vr, kw["d_model"]), True,
                            "Gemma 4's vision encoder and its projection into the text width",
                            image=_gemma4_image_rule(vr, kw["d_model"])))
    ar = _gemma4_tower(r, "audio_config", GEMMA4_AUDIO_DEFAULTS)
    if ar is not None:
        towers.append(Extra("audio tower and projector", _gemma4_audio_params(ar, kw["d_model"]),
                            True, "Gemma 4's audio encoder (a Conformer) and its projection "
                            "into the text width", audio=_gemma4_audio_rule(ar, kw["d_model"])))
    kw["extras"] = tuple(towers) + tuple(kw.get("extras", ()))
    return kw


#: transformers' Gemma3nTextConfig defaults (5.24.0, ``configuration_gemma3n.py``; the class
#: documents them as google/gemma-3n-E4B's).
GEMMA3N_TEXT_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 262400, "hidden_size": 2048, "intermediate_size": 16384,
    "num_hidden_layers": 35, "num_attention_heads": 8, "num_key_value_heads": 2,
    "head_dim": 256, "max_position_embeddings": 32768, "sliding_window": 512,
    "tie_word_embeddings": True, "attention_bias": False, "hidden_size_per_layer_input": 256,
    "vocab_size_per_layer_input": 262144, "altup_num_inputs": 4, "altup_active_idx": 0,
    "num_kv_shared_layers": 15, "laurel_rank": 64,
}


def altup_laurel_params(*, n_layers: int, d_model: int, n_inputs: int, rank: int) -> int:
    """Parameters of Gemma 3n's AltUp and LAuReL (transformers' Gemma3nTextAltUp,
    Gemma3nTextLaurelBlock, Gemma3nTextModel): per block, LAuReL's low-rank residual d x r
    and r x d with a norm of d, and AltUp's router d x n, its prediction (n x n^2) and
    correction (n x n) coefficients, its router norm and output scale (d each); once, the
    n - 1 projections of the hidden state into the extra streams and the n - 1 back (d x d
    each) [-].

    >>> altup_laurel_params(n_layers=30, d_model=2048, n_inputs=4, rank=64)
    33462624
    """
    per_block = 2 * d_model * rank + d_model + d_model * n_inputs + n_inputs ** 3 \
        + n_inputs ** 2 + 2 * d_model
    return n_layers * per_block + 2 * (n_inputs - 1) * d_model * d_model


def altup_laurel_matmul_params(*, n_layers: int, d_model: int, n_inputs: int,
                               rank: int) -> int:
    """The weights of :func:`altup_laurel_params` in matrix products for one token (every
    linear layer: LAuReL's two, AltUp's router and coefficient matrices, the 2 (n - 1)
    stream projections); the norms and scales are not [-]. The mixing of the n streams by
    the predicted coefficients (about 2 n^2 d per block) multiplies activations, not
    weights, and is not counted, as no elementwise work is.

    >>> altup_laurel_matmul_params(n_layers=30, d_model=2048, n_inputs=4, rank=64)
    33278304
    """
    per_block = 2 * d_model * rank + d_model * n_inputs + n_inputs ** 3 + n_inputs ** 2
    return n_layers * per_block + 2 * (n_inputs - 1) * d_model * d_model


def gemma3n_text(r: Reader) -> dict[str, Any]:
    # Gemma3nTextModel (huggingface/transformers, src/transformers/models/gemma3n/
    # modeling_gemma3n.py; FAMILIES.md section 14.25): Gemma 3's attention (q/k norms of the
    # head width, v_norm without weight, four RMSNorms per block; sliding and full layers by
    # layer_types) with one intermediate_size per layer; the last num_kv_shared_layers reuse
    # the cache of the last earlier layer of their kind (no k/v projections, no k norm);
    # per-layer input embeddings as Gemma 4 E2B's; AltUp (altup_num_inputs streams) and LAuReL
    # (laurel_rank) counted apart as an extra every token reads. activation_sparsity_pattern
    # (a statistical top-k on the gate activations of the first layers) changes no count,
    # and the products stay dense in the engines cited (FAMILIES.md 14.25): FLOPs unchanged.
    g = defaulted(r.cfg, GEMMA3N_TEXT_DEFAULTS, r.origin, r.family)
    d = g.int("hidden_size")
    n = g.int("num_hidden_layers", kind="layers")
    h, hkv, dh = g.heads(d)
    ff = g.raw("intermediate_size")
    if isinstance(ff, list):
        widths = g.int_list("intermediate_size", [], n=n)
        if any(w < 1 for w in widths):
            raise ConfigError(f"{r.origin}: field 'intermediate_size' must hold positive widths")
    else:
        widths = [g.int("intermediate_size")] * n
    d_ple = g.int("hidden_size_per_layer_input")
    n_vocab_ple = g.int("vocab_size_per_layer_input", kind="vocab")
    shared = g.int("num_kv_shared_layers", kind="layers", minimum=0)
    if shared >= n:
        raise ConfigError(f"{r.origin}: field 'num_kv_shared_layers' ({shared}) must be less "
                          f"than 'num_hidden_layers' ({n}): some layer must own a cache")
    types = g.str_list("layer_types", n, ("sliding_attention", "full_attention")) or [
        "full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(n)]
    first_shared = n - shared
    if shared and set(types[:first_shared]) != set(types):
        raise ConfigError(f"{r.origin}: field 'num_kv_shared_layers' ({shared}) leaves no "
                          "earlier layer of kind "
                          f"{sorted(set(types) - set(types[:first_shared]))} to read from")
    streams = g.int("altup_num_inputs", kind="count")
    active = g.int("altup_active_idx", kind="count", minimum=0)
    if active >= streams:
        raise ConfigError(f"{r.origin}: field 'altup_active_idx' ({active}) must be less than "
                          f"'altup_num_inputs' ({streams})")
    rank = g.int("laurel_rank")
    sparsity = g.raw("activation_sparsity_pattern")
    if sparsity is not None and not (isinstance(sparsity, list) and len(sparsity) == n and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x < 1
            for x in sparsity)):
        raise ConfigError(f"{r.origin}: field 'activation_sparsity_pattern' must hold one "
                          f"fraction in [0, 1) per layer ({n})")
    # scalars of the forward pass (clipping, a scale switch): no parameter
    g.read.update({"altup_coef_clip", "altup_correct_scale", "altup_lr_multiplier"})
    window = read_window(g)
    bias = g.flag("attention_bias", False)
    sliding = Attention(h, hkv, dh, window=window, qkv_bias=bias, o_bias=bias, qk_norm="head")
    full = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head")

    def attention(i: int) -> Attention:
        a = sliding if types[i] == "sliding_attention" else full
        return replace(a, kv_shared=True) if i >= first_shared else a

    mlps = {w: MLP(w) for w in set(widths)}
    # the released checkpoints store the KV-sharing layers' k, v and k norm, which the first
    # transformers releases built in every layer (modeling_gemma3n.py at huggingface/
    # transformers@b87ecf8c180bf5c0d28b9f94e039c001d9f07701) and 5.24.0 builds in none of
    # them (it lists them in _keys_to_ignore_on_load_unexpected): reported apart, as for
    # Gemma 4 E2B
    unused = sum(2 * a.n_kv_heads * a.d_head * d + a.d_head
                 for a in map(attention, range(first_shared, n)))
    stored = (Extra("unused k, v and k-norm weights of the KV-sharing layers", unused, True,
                    "stored in the checkpoint; no decode step reads them"),) if unused else ()
    extra = Extra("AltUp and LAuReL",
                  altup_laurel_params(n_layers=n, d_model=d, n_inputs=streams, rank=rank), True,
                  "AltUp's router, coefficients and stream projections and LAuReL's low-rank "
                  "residual: every token reads and multiplies them", read=True,
                  matmul=altup_laurel_matmul_params(n_layers=n, d_model=d, n_inputs=streams,
                                                    rank=rank))
    kw = decoder(g, n_layers=n, norms=4, tied=g.flag("tie_word_embeddings", True),
                 trained_context=read_context(g),
                 attention=attention, mlp=lambda i: mlps[widths[i]], d_model=d,
                 extras=(extra,) + stored)
    # every block carries its LAuReL residual (its parameters in the extra above): vLLM's
    # Gemma3nLaurelBlock splits linear_right by rows, one more all-reduce a block
    kw.update(d_ple=d_ple, n_vocab_ple=n_vocab_ple, altup_num_inputs=streams,
              layers=tuple(replace(run, laurel=rank) for run in kw["layers"]))
    r.read |= g.read
    return kw


#: Parameter counts of the timm vision networks a Gemma 3n file may name in
#: vision_config.architecture (built with num_classes=0, as transformers' TimmWrapperModel
#: builds it), with the width of their output features. MobileNet v5 300M encoder:
#: huggingface/pytorch-image-models@aa4b5850c1543fa488abf260f18390eda46cf85d
#: timm/models/mobilenetv5.py (_gen_mobilenet_v5's arch_def, the same count at
#: @6c5e3ce3d040ce3debe4d655f8f781bb99cd6e61, the commit that loads Gemma 3n's weights):
#: 294,126,912 parameters and no persistent buffer (meta device; summed by hand block by block
#: in tests/test_gemma3n.py; FAMILIES.md section 14.25).
TIMM_VISION_TOWERS: Mapping[str, tuple[int, int]] = {
    "mobilenetv5_300m_enc": (294_126_912, 2048),
}

#: The layout of timm's ``mobilenetv5_300m_enc`` (huggingface/pytorch-image-models@0bae8f21bcd5
#: 7ec239ce26cdc9f777e50635c9c3 timm/models/mobilenetv5.py ``_gen_mobilenet_v5``'s arch_def and
#: ``MobileNetV5Encoder``; the same in timm 1.0.31), for its FLOPs: a 3 x 3 stride-2 stem to 64
#: channels, then four stages of blocks. ``("er", k, stride, expansion, out)``: EdgeResidual, a
#: k x k convolution to in x expansion channels, then 1 x 1 to out. ``("uir", a, k, stride,
#: expansion, out)``: UniversalInvertedResidual, an optional a x a depthwise convolution (stride
#: 1 when k is set), 1 x 1 to in x expansion, an optional k x k depthwise one (the stride), 1 x 1
#: to out. ``("mqa", k, heads, kv_stride, head_dim, out)``: MobileAttention, multi-query
#: attention: 1 x 1 queries (heads x head_dim) and output, one key and one value head (1 x 1 to
#: head_dim after a k x k stride-kv_stride depthwise convolution when kv_stride > 1).
MOBILENETV5_300M_ENC: tuple[tuple[tuple[Any, ...], ...], ...] = (
    (("er", 3, 2, 4, 128), ("er", 3, 1, 4, 128), ("er", 3, 1, 4, 128)),
    (("uir", 3, 5, 2, 6, 256), ("uir", 5, 0, 1, 4, 256), ("uir", 3, 0, 1, 4, 256),
     ("uir", 5, 0, 1, 4, 256), ("uir", 3, 0, 1, 4, 256)),
    (("uir", 5, 5, 2, 6, 640), *[("uir", 5, 0, 1, 4, 640)] * 7, ("uir", 0, 0, 1, 1, 640),
     *[("mqa", 3, 12, 2, 64, 640), ("uir", 0, 0, 1, 2, 640)] * 14),
    (("uir", 5, 5, 2, 6, 1280), *[("mqa", 3, 16, 1, 96, 1280), ("uir", 0, 0, 1, 2, 1280)] * 19),
)

#: The image side [px] Gemma 3n's tower runs at: ``input_size`` (3, 768, 768) of timm's
#: ``mobilenetv5_300m_enc`` configuration (the commit above); Gemma3nProcessor's image
#: processor resizes every image to it (a checkpoint's preprocessor_config.json, not held here,
#: may say otherwise).
GEMMA3N_IMAGE_SIZE = 768


def mobilenetv5_flops(stages: tuple[tuple[tuple[Any, ...], ...], ...], size: int,
                      stem: int = 64, out: int = 2048) -> int:
    """FLOPs of timm's MobileNet-V5 encoder for one ``size`` x ``size`` px image: every
    convolution 2 k_h k_w C_in/groups C_out H_out W_out (``same`` padding: a stride-s layer
    leaves ceil(side / s)), each multi-query attention's QK^T and weighted sum of V 2 x heads x
    head_dim FLOPs each per query-key pair, and the multi-scale fusion adapter: the last two
    stages' outputs at the finer one's resolution, concatenated, 1 x 1 to twice their channels
    and 1 x 1 to ``out`` (the pooling to 16 x 16 and the norms uncounted).

    >>> mobilenetv5_flops(MOBILENETV5_300M_ENC, 768)
    871482949632
    """
    def conv(k: int, c_in: int, c_out: int, side: int, groups: int = 1) -> int:
        return 2 * k * k * (c_in // groups) * c_out * side * side

    side, c = -(-size // 2), stem
    flops = conv(3, 3, stem, side)
    ends = []
    for stage in stages:
        for kind, *a in stage:
            if kind == "er":
                k, stride, e, c_out = a
                side = -(-side // stride)
                flops += conv(k, c, c * e, side) + conv(1, c * e, c_out, side)
            elif kind == "uir":
                k_start, k_mid, stride, e, c_out = a
                if k_start:
                    side = -(-side // (1 if k_mid else stride))
                    flops += conv(k_start, c, c, side, c)
                flops += conv(1, c, c * e, side)
                if k_mid:
                    side = -(-side // stride)
                    flops += conv(k_mid, c * e, c * e, side, c * e)
                flops += conv(1, c * e, c_out, side)
            else:
                k, heads, kv_stride, d, c_out = a
                kv = -(-side // kv_stride)
                flops += 2 * conv(1, c, heads * d, side) + 2 * conv(1, c, d, kv)
                if kv_stride > 1:
                    flops += 2 * conv(k, c, c, kv, c)
                flops += 4 * heads * d * side * side * kv * kv
            c = c_out
        ends.append((c, side))
    (c_fine, side), (c_coarse, _) = ends[-2:]
    fused = c_fine + c_coarse
    return flops + conv(1, fused, 2 * fused, side) + conv(1, 2 * fused, out, side)


#: The networks whose FLOPs the library works out, by ``vision_config.architecture``.
TIMM_VISION_LAYOUTS: Mapping[str, tuple[tuple[tuple[Any, ...], ...], ...]] = {
    "mobilenetv5_300m_enc": MOBILENETV5_300M_ENC,
}


def _gemma3n_image_rule(r: Reader, arch: str, hv: int, d_text: int) -> ImageRule | None:
    """Gemma 3n's image rule (FAMILIES.md 17.45): one crop of :data:`GEMMA3N_IMAGE_SIZE` px,
    ``vision_soft_tokens_per_image`` tokens (a square grid, each cell ``size / side`` px);
    the tower's FLOPs from its layout, the embedder's projection hv x d_text per token."""
    tokens = r.int("vision_soft_tokens_per_image", 256, kind="count")
    side = math.isqrt(tokens)
    if arch not in TIMM_VISION_LAYOUTS or side * side != tokens or GEMMA3N_IMAGE_SIZE % side:
        return None
    return ImageRule(rule="mobilenet", patch=GEMMA3N_IMAGE_SIZE // side, merge=1, width=hv,
                     layers=sum(len(s) for s in TIMM_VISION_LAYOUTS[arch]),
                     size=GEMMA3N_IMAGE_SIZE, tower_matmul=0, merger_matmul=hv * d_text,
                     conv_flops=mobilenetv5_flops(TIMM_VISION_LAYOUTS[arch],
                                                  GEMMA3N_IMAGE_SIZE, out=hv))


#: transformers' Gemma3nAudioConfig defaults (5.24.0, ``configuration_gemma3n.py``).
GEMMA3N_AUDIO_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 128, "input_feat_size": 128, "hidden_size": 1536,
    "conf_num_attention_heads": 8, "conf_num_hidden_layers": 12, "conf_conv_kernel_size": 5,
    "sscp_conv_channel_size": [128, 32], "sscp_conv_kernel_size": [[3, 3], [3, 3]],
    "sscp_conv_stride_size": [[2, 2], [2, 2]],
}

#: transformers' Gemma3nVisionConfig defaults (5.24.0).
GEMMA3N_VISION_DEFAULTS: Mapping[str, Any] = {
    "architecture": "mobilenetv5_300m_enc", "hidden_size": 2048, "vocab_size": 128,
}


def gemma3n_embedder_params(*, d_tower: int, n_vocab: int, d_text: int) -> int:
    """Parameters of Gemma 3n's multimodal embedder (transformers' Gemma3nMultimodalEmbedder):
    a table of the modality's n_vocab hard tokens of width d_tower, two RMSNorms of d_tower
    (hard and soft tokens), a projection d_tower -> d_text; the norm after the projection has
    no weight [-].

    >>> gemma3n_embedder_params(d_tower=1536, n_vocab=128, d_text=2048)
    3345408
    """
    return n_vocab * d_tower + 2 * d_tower + d_tower * d_text


def _pairs(r: Reader, key: str, n: int) -> list[tuple[int, int]]:
    v = r.raw(key)
    if not (isinstance(v, list) and len(v) == n and all(
            isinstance(p, list) and len(p) == 2 and all(
                isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in p)
            for p in v)):
        raise ConfigError(f"{r.origin}: field '{key}' must hold {n} pairs of positive integers")
    return [(p[0], p[1]) for p in v]


def _gemma3n_audio_params(r: Reader) -> int:
    """Parameters of Gemma 3n's audio encoder (transformers' Gemma3nAudioEncoder, a USM
    Conformer): two convolutions (1 -> c0 -> c1 channels, kernels kh x kw, no bias, each
    with a norm of its channels) over the input_feat_size mel bins, padded by one bin on each
    side; a projection of the c1 channels x remaining bins -> h; per layer two macaron
    feed-forward blocks (h -> 4h -> h, two norms each), attention (q, k, v, the relative
    position projection and the output, h x h each, a per-dimension scale of h / heads, two
    norms), a light convolution (h -> 2h gated, a depthwise kernel of k per channel, h -> h,
    two norms) and a final norm. FAMILIES.md section 14.25."""
    h = r.int("hidden_size")
    n = r.int("conf_num_hidden_layers", kind="layers")
    head = head_width(r, h, r.int("conf_num_attention_heads", kind="heads"),
                      "conf_num_attention_heads")
    k = r.int("conf_conv_kernel_size", kind="count")
    channels = r.int_list("sscp_conv_channel_size", [128, 32], n=2)
    if any(c < 1 for c in channels):
        raise ConfigError(f"{r.origin}: field 'sscp_conv_channel_size' must hold positive "
                          "channel counts")
    kernels = _pairs(r, "sscp_conv_kernel_size", 2)
    strides = _pairs(r, "sscp_conv_stride_size", 2)
    bins = r.int("input_feat_size", kind="count")
    subsample, c_in = 0, 1
    for c, (kh, kw), (_, sw) in zip(channels, kernels, strides):
        subsample += c_in * c * kh * kw + c
        bins = (bins + 2 - kw) // sw + 1
        if bins < 1:
            raise ConfigError(f"{r.origin}: field 'input_feat_size' leaves no frequency bin "
                              "after the subsampling convolutions")
        c_in = c
    subsample += c_in * bins * h
    # scalars of the forward pass (chunking, clipping, caps, the residual weight): no parameter
    r.read.update({"conf_attention_chunk_size", "conf_attention_context_left",
                   "conf_attention_context_right", "conf_attention_logit_cap",
                   "conf_reduction_factor", "conf_residual_weight", "gradient_clipping",
                   "sscp_conv_group_norm_eps"})
    layer = 24 * h * h + 9 * h + k * h + head
    return subsample + n * layer


def _gemma3n_audio_rule(top: Reader, r: Reader, d_text: int) -> AudioRule | None:
    """The :class:`~llm_arithmetic.catalog.audio.AudioRule` of Gemma 3n's audio encoder (rule
    ``gemma3n``: 188 tokens a clip, ``audio_soft_tokens_per_image``), or None where the
    subsampling convolutions are not the 3 x 3, stride-2 pair the rule counts (then the
    encoder's rule is not modelled and audio is refused)."""
    if _pairs(r, "sscp_conv_kernel_size", 2) != [(3, 3)] * 2 or \
            _pairs(r, "sscp_conv_stride_size", 2) != [(2, 2)] * 2:
        return None
    h = r.int("hidden_size")
    return AudioRule("gemma3n", width=h, layers=r.int("conf_num_hidden_layers"), ffn=4 * h,
                     mels=r.int("input_feat_size"),
                     n_window=r.int("conf_attention_chunk_size", 12, kind="count"),
                     output_dim=d_text, heads=r.int("conf_num_attention_heads"),
                     context_left=r.int("conf_attention_context_left", 13, kind="count"),
                     context_right=r.int("conf_attention_context_right", 0, kind="count",
                                         minimum=0),
                     kernel=r.int("conf_conv_kernel_size"),
                     sub_channels=tuple(r.int_list("sscp_conv_channel_size", [128, 32], n=2)),
                     reduction=r.int("conf_reduction_factor", 4, kind="count"),
                     soft_tokens=top.int("audio_soft_tokens_per_image", 188, kind="count"))


def _gemma3n_tower(r: Reader, key: str, defaults: Mapping[str, Any]) -> Reader:
    tower = r.raw(key, {})
    if not isinstance(tower, dict):
        raise ConfigError(f"{r.origin}: field '{key}' must be an object")
    return defaulted(tower, defaults, f"{r.origin}: {key}", f"gemma3n_{key[:-7]}")


def gemma3n(r: Reader) -> dict[str, Any]:
    # Gemma3nForConditionalGeneration (transformers 5.24.0 modeling_gemma3n.py, Gemma3nModel):
    # the language model in text_config (gemma3n_text), an audio encoder in audio_config, a
    # timm vision network named by vision_config.architecture (TimmWrapperModel, built with
    # num_classes=0 and vision_config.model_args), and one multimodal embedder per tower into
    # the text width (embed_audio, embed_vision). The timm network's shapes are in timm's code,
    # not in the file: its count is looked up by name (TIMM_VISION_TOWERS), and a name the
    # library does not hold is refused. FAMILIES.md section 14.25.
    kw = wrapped_text(r, "gemma3n_text")
    d = kw["d_model"]
    vr = _gemma3n_tower(r, "vision_config", GEMMA3N_VISION_DEFAULTS)
    arch = vr.raw("architecture")
    if arch not in TIMM_VISION_TOWERS:
        raise ConfigError(f"{r.origin}: field 'vision_config.architecture' = {arch!r:.40} names "
                          "a timm vision network whose parameter count the library does not "
                          f"hold (it knows {sorted(TIMM_VISION_TOWERS)}), so the total is not "
                          "counted; read the language model alone: the object in "
                          "'text_config' (model_type 'gemma3n_text')")
    vr.refuse("model_args", "arguments passed to timm.create_model change the network")
    tower, width = TIMM_VISION_TOWERS[arch]
    hv = vr.int("hidden_size")
    if hv != width:
        raise ConfigError(f"{r.origin}: field 'vision_config.hidden_size' ({hv}) must be the "
                          f"width of {arch}'s features ({width})")
    # the classifier's labels and the pooling switch build nothing: TimmWrapperModel drops the
    # head (num_classes=0) and pools in forward only
    vr.read.update({"do_pooling", "num_classes", "label_names", "vocab_offset"})
    vision = tower + gemma3n_embedder_params(d_tower=hv, n_vocab=vr.int("vocab_size",
                                                                         kind="vocab"),
                                             d_text=d)
    ar = _gemma3n_tower(r, "audio_config", GEMMA3N_AUDIO_DEFAULTS)
    ar.read.add("vocab_offset")
    audio_rule = _gemma3n_audio_rule(r, ar, d)
    audio = _gemma3n_audio_params(ar) + gemma3n_embedder_params(
        d_tower=ar.int("hidden_size"), n_vocab=ar.int("vocab_size", kind="vocab"), d_text=d)
    vr.check_unread()
    ar.check_unread()
    kw["extras"] = (Extra("vision tower and embedder", vision, True,
                          f"timm's {arch} (MobileNet v5) and Gemma 3n's vision embedder into "
                          "the text width", image=_gemma3n_image_rule(r, arch, hv, d)),
                    Extra("audio tower and embedder", audio, True,
                          "Gemma 3n's audio encoder (a USM Conformer) and its embedder into "
                          "the text width", audio=audio_rule)) + tuple(kw.get("extras", ()))
    return kw
