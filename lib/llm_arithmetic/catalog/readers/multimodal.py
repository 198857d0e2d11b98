"""Readers of multimodal wrappers: the language model in ``text_config`` read by its own
family's reader, plus the parameters of the vision tower and projector as extras. Mistral 3
(Pixtral), Qwen3-VL / Qwen3.5, Kimi K2.5 / K3 and Kimi-VL (MoonViT), GLM-4.5V, ERNIE-4.5-VL,
Qwen2-VL / Qwen2.5-VL, Llama 3.2 Vision (mllama), InternVL and LLaVA.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from ... import numeric as N
from ...core.errors import ConfigError
from ..model import MLP, Extra, ImageRule
from .base import (FAMILIES, Reader, decoder, defaulted, head_width, read_context, vision_reader,
                   vit_block_params, vit_matmul_params, vit_patch_params, wrapped_text)
from .dense import llama_like, qwen2
from .gemma import SIGLIP_DEFAULTS, siglip_params
from .moe import ERNIE4_5_MOE_DEFAULTS, ernie_attention, glm4_moe


def _pixtral_params(r: Reader, d_text: int, merge: int, features: int, bias: bool) -> int:
    """Parameters of Pixtral's vision encoder (PixtralVisionModel) and Mistral 3's projector
    (Mistral3MultiModalProjector). The encoder: a patch convolution c p^2 -> h without bias, an
    RMSNorm before the blocks, per block q, k, v, o of h x h and a SwiGLU MLP h -> inter -> h,
    all without biases, and two RMSNorms; positions are rotary (no table). The projector: an
    RMSNorm over h, a patch merger (h m^2 -> h, no bias), then features h -> d_text and
    d_text -> d_text, with biases when ``multimodal_projector_bias``. Every size must be in
    the file (the class's defaults are Pixtral 12B's, not Mistral Small's)."""
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    heads = r.int("num_attention_heads", kind="heads")
    head = head_width(r, h, heads)
    dh = r.int("head_dim", head)
    if dh != head:
        raise ConfigError(f"{r.origin}: field 'head_dim' = {dh} is not supported: Pixtral's "
                          f"heads are hidden_size / num_attention_heads = {head} wide")
    c = r.int("num_channels", 3, kind="count")
    p = r.int("patch_size", kind="count")
    tower = c * p * p * h + h + n * (4 * h * h + 3 * h * inter + 2 * h)
    projector = (h + merge * merge * h * h + features * h * d_text + d_text * d_text
                 + (2 * d_text if bias else 0))
    return tower + projector


def mistral3(r: Reader) -> dict[str, Any]:
    # Mistral3ForConditionalGeneration (Mistral Small 3.1/3.2): a Mistral language model in
    # text_config, a Pixtral encoder in vision_config, a patch-merging projector between them
    kw = wrapped_text(r, "mistral")
    vr = vision_reader(r, "pixtral")
    # Mistral3MultiModalProjector: linear_1 takes hidden_size x (1 for one layer index, else
    # the number of indices listed); anything else is not a layer choice
    layer = r.raw("vision_feature_layer", -1)
    indices = layer if isinstance(layer, list) else [layer]
    if not indices or not all(isinstance(x, int) and not isinstance(x, bool) for x in indices):
        raise ConfigError(f"{r.origin}: field 'vision_feature_layer' must be a layer index or "
                          f"a non-empty list of them, got {layer!r:.60}")
    merge = r.int("spatial_merge_size", 2, kind="count")
    tower = _pixtral_params(vr, kw["d_model"], merge, len(indices),
                            r.flag("multimodal_projector_bias", False))
    kw["extras"] = (Extra("vision tower and projector", tower, True,
                          "Pixtral's vision encoder and Mistral 3's patch-merging projector",
                          image=_pixtral_image_rule(vr, kw["d_model"], merge, len(indices))),)
    return kw


def _pixtral_image_rule(r: Reader, d_text: int, merge: int, features: int) -> ImageRule:
    """Mistral 3's image rule (FAMILIES.md): the image scaled down to a longest edge of the
    tower's ``image_size`` (1540 px for Mistral Small 3.1; the processor class's default, 1024,
    is Pixtral 12B's: the catalog holds no preprocessor_config.json, so the tower's size is
    assumed), its sides rounded up to multiples of patch x merge; the tower runs every patch
    (attention within the image, transformers 5.24.0 ``models/pixtral/modeling_pixtral.py``
    ``generate_block_attention_mask``), the patch merger turns merge x merge patches
    into one ``[IMG]`` token. Weights per patch: the patch convolution, per block q, k, v, o
    (4 h^2) and the SwiGLU MLP (3 h inter); per token the merger (merge^2 h -> h) and the
    projector (features h -> d_text -> d_text)."""
    h, p = r.int("hidden_size"), r.int("patch_size", kind="count")
    n = r.int("num_hidden_layers", kind="layers")
    patch = r.int("num_channels", 3, kind="count") * p * p * h
    tower = patch + n * (4 * h * h + 3 * h * r.int("intermediate_size"))
    return ImageRule(rule="pixtral", patch=p, merge=merge, width=h, layers=n,
                     size=r.int("image_size"), tower_matmul=tower, patch_matmul=patch,
                     merger_matmul=merge * merge * h * h + features * h * d_text + d_text ** 2,
                     heads=r.int("num_attention_heads", kind="heads"),
                     heads_key="vision_config.num_attention_heads")


def qwen3_vl_vision_params(r: Reader, d_text: int) -> int:
    """Parameters of Qwen3-VL's vision encoder and its mergers (Qwen3VLVisionModel): a
    Conv3d patch embedding (c x t x p x p -> h, with bias), a learned position table, ``depth``
    blocks (LayerNorms with bias, fused qkv and proj with biases, fc1/fc2 with biases), a
    merger (LayerNorm over h, then (h m^2) -> (h m^2) -> out with biases), and one more merger
    per deepstack index, whose LayerNorm is over h m^2."""
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    depth = r.int("depth", kind="layers")
    r.int("num_heads", kind="heads")
    c = r.int("in_channels", 3, kind="count")
    t = r.int("temporal_patch_size", kind="count")
    p = r.int("patch_size", kind="count")
    m = r.int("spatial_merge_size", kind="count")
    n_pos = r.int("num_position_embeddings", kind="context")
    out = r.int("out_hidden_size")
    if out != d_text:
        raise ConfigError(f"{r.origin}: field 'out_hidden_size' ({out}) differs from the "
                          f"language model's hidden size ({d_text})")
    deep = r.int_list("deepstack_visual_indexes", [])
    hm = h * m * m
    embeddings = c * t * p * p * h + h + n_pos * h
    merger = (hm * hm + hm) + (out * hm + out)
    return (embeddings + depth * vit_block_params(h, inter) + (2 * h + merger)
            + len(deep) * (2 * hm + merger))


#: The pixel limits of Qwen3-VL's and Qwen3.5's processor (Qwen2VLImageProcessor, whose class
#: defaults are Qwen2-VL's 56 x 56 and 28 x 28 x 1280): the checkpoints'
#: ``preprocessor_config.json`` ``size``, shortest_edge 65,536 (256^2) and longest_edge
#: 16,777,216 (4096^2) pixels, with patch_size 16, merge_size 2, temporal_patch_size 2, as a
#: Qwen3.6-27B checkpoint ships it (vendored in hualayn/ai-articles@dfaac590e39726d2ae9575f1d05b
#: 48a02509ace7 preprocessor_config.json). The catalog holds config.json only.
QWEN3_VL_PIXELS = (65536, 16777216)
#: The video pixel limits of Qwen3-VL's and Qwen3.5's video processor (Qwen3VLVideoProcessor),
#: bounding frames x height x width: the checkpoints' ``video_preprocessor_config.json``
#: ``size``, shortest_edge 4,096 and longest_edge 25,165,824 pixels (fps 2, min_frames 4,
#: max_frames 768), as the same Qwen3.6-27B checkpoint ships it (hualayn/ai-articles@dfaac590e3
#: 9726d2ae9575f1d05b48a02509ace7 video_preprocessor_config.json).
QWEN3_VL_VIDEO_PIXELS = (4096, 25165824)


def qwen3_vl_image_rule(r: Reader, d_text: int) -> ImageRule:
    """Qwen3-VL's and Qwen3.5's image rule (FAMILIES.md): Qwen2-VL's ``smart_resize`` with
    patch x merge = 32 px and :data:`QWEN3_VL_PIXELS`; every block attends over the whole image
    (transformers 5.24.0 ``models/qwen3_vl/modeling_qwen3_vl.py`` ``Qwen3VLVisionModel.forward``:
    one ``cu_seqlens`` span per frame, no windows). Weights in products per patch: the Conv3d
    patch embedding c t p^2 h and per block qkv, proj (4 h^2) and fc1, fc2 (2 h i); per token
    the merger (h m^2)^2 + h m^2 x out, and as much again for each deepstack merger."""
    h, inter = r.int("hidden_size"), r.int("intermediate_size")
    depth = r.int("depth", kind="layers")
    c, t = r.int("in_channels", 3, kind="count"), r.int("temporal_patch_size", kind="count")
    p, m = r.int("patch_size", kind="count"), r.int("spatial_merge_size", kind="count")
    hm = h * m * m
    merger = hm * hm + hm * r.int("out_hidden_size")
    return ImageRule(rule="qwen2_vl", patch=p, merge=m, width=h, layers=depth,
                     tower_matmul=c * t * p * p * h + depth * (4 * h * h + 2 * h * inter),
                     patch_matmul=c * t * p * p * h,
                     merger_matmul=merger, min_pixels=QWEN3_VL_PIXELS[0],
                     max_pixels=QWEN3_VL_PIXELS[1],
                     deepstack_matmul=len(r.int_list("deepstack_visual_indexes", [])) * merger,
                     heads=r.int("num_heads", kind="heads"), heads_key="vision_config.num_heads",
                     video="qwen3_vl", temporal_patch=t, video_min_pixels=QWEN3_VL_VIDEO_PIXELS[0],
                     video_max_pixels=QWEN3_VL_VIDEO_PIXELS[1])


def qwen3_vl_of(family: str, note: str = "Qwen3-VL's vision encoder, merger and deepstack "
                "mergers") -> Callable[[Reader], dict[str, Any]]:
    def read(r: Reader) -> dict[str, Any]:
        kw = wrapped_text(r, family)
        vision = r.raw("vision_config", None)
        if not isinstance(vision, dict):
            raise ConfigError(f"{r.origin}: field 'vision_config' must be an object")
        vr = Reader(vision, r.origin + ": vision_config", "qwen3_vl_vision")
        kw["extras"] = (*kw.get("extras", ()), Extra("vision tower and mergers",
                        qwen3_vl_vision_params(vr, kw["d_model"]), True, note,
                        image=qwen3_vl_image_rule(vr, kw["d_model"])))
        return kw
    return read


def _moonvit_grid(r: Reader, h: int, d_text: int) -> tuple[int, int]:
    """What Kimi's MoonViT towers share: the learned position table's rows (height x width)
    and the width of a merged patch (h k_h k_w, the projector's input), the tower feeding the
    language model's width."""
    if r.int("mm_hidden_size", h) != h or r.int("text_hidden_size", d_text) != d_text:
        raise ConfigError(f"{r.origin}: fields 'mm_hidden_size' and 'text_hidden_size' must be "
                          "the tower's and the language model's widths")
    merge = r.int_list("merge_kernel_size", [2, 2])
    if len(merge) != 2 or min(merge) < 1:
        raise ConfigError(f"{r.origin}: field 'merge_kernel_size' must be two positive sizes")
    positions = r.int("init_pos_emb_height", kind="count") * r.int("init_pos_emb_width",
                                                                    kind="count")
    return positions, h * merge[0] * merge[1]


def _moonvit_params(r: Reader, d_text: int) -> int:
    """Parameters of Kimi K2.5's vision tower (MoonViT) and its patch-merger projector: a
    Conv2d patch embedding (3 p p -> h, with bias), a learned height x width x h position table
    (the temporal one is fixed, not a parameter), ViT blocks, a final LayerNorm; the projector
    a LayerNorm over h, then (h k_h k_w) -> (h k_h k_w) -> the text width, with biases."""
    h = r.int("vt_hidden_size")
    inter = r.int("vt_intermediate_size")
    n = r.int("vt_num_hidden_layers", kind="layers")
    r.int("vt_num_attention_heads", kind="heads")
    p = r.int("patch_size", kind="count")
    for key, known in (("pos_emb_type", "divided_fixed"), ("mm_projector_type", "patchmerger")):
        if r.raw(key, known) != known:
            raise ConfigError(f"{r.origin}: field '{key}' = {r.raw(key)!r:.40} is not counted "
                              f"(the 'kimi_k25' reader knows {known!r})")
    r.read.add("merge_type")  # temporal pooling: no parameters
    positions, hm = _moonvit_grid(r, h, d_text)
    tower = 3 * p * p * h + h + positions * h + n * vit_block_params(h, inter) + 2 * h
    return tower + 2 * h + (hm * hm + hm) + (d_text * hm + d_text)


def _moonvit3d_params(r: Reader, d_text: int) -> int:
    """Parameters of Kimi K3's vision tower (MoonViT3d) and its PatchMergerV2 projector: a
    patch embedding 3 p p -> h without bias, a learned height x width x h position table (the
    temporal one is fixed), blocks of RMSNorm, fused qkv h -> 3 q (q = ``qkv_hidden_size``), an
    output projection q -> h and an MLP h -> inter -> h, all without biases; a final RMSNorm;
    the projector (h k_h k_w) -> (h k_h k_w) -> the text width without biases, then an RMSNorm
    of the text width."""
    h = r.int("vt_hidden_size")
    inter = r.int("vt_intermediate_size")
    n = r.int("vt_num_hidden_layers", kind="layers")
    heads = r.int("vt_num_attention_heads", kind="heads")
    q = r.int("qkv_hidden_size", h)
    if q % heads:
        raise ConfigError(f"{r.origin}: field 'qkv_hidden_size' ({q}) must be a multiple of "
                          f"'vt_num_attention_heads' ({heads})")
    p = r.int("patch_size", kind="count")
    for key, known in (("pos_emb_type", "divided_fixed"), ("mm_projector_type", "patchmergerv2"),
                       ("norm_type", "rmsnorm"), ("mlp_type", "mlp2"),
                       ("merge_type", "sd2_tpool")):
        if r.raw(key, known) != known:
            raise ConfigError(f"{r.origin}: field '{key}' = {r.raw(key)!r:.40} is not counted "
                              f"(the 'kimi_k3' reader knows {known!r})")
    for key in ("attn_bias", "linear_bias", "patch_embed_proj_bias"):
        if r.flag(key, False):
            raise ConfigError(f"{r.origin}: field '{key}' = true is not counted (Kimi K3's "
                              "tower has no biases)")
    r.int("init_pos_emb_time", 4, kind="count")  # the fixed temporal table: no parameters
    positions, hm = _moonvit_grid(r, h, d_text)
    block = 2 * h + h * 3 * q + q * h + 2 * h * inter
    return 3 * p * p * h + positions * h + n * block + h + hm * hm + hm * d_text + d_text


def kimi_k3(r: Reader) -> dict[str, Any]:
    # KimiK3: a kimi_linear language model in text_config (Kimi delta attention with a
    # full-rank output gate, gated MLA, Stable LatentMoE, attention residuals; FAMILIES.md
    # section 14.24), MoonViT3d and a PatchMergerV2 projector in vision_config.
    kw = wrapped_text(r, "kimi_linear")
    vr = vision_reader(r, "kimi_k3_vision")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and projector", _moonvit3d_params(vr, kw["d_model"]),
                          True, "Kimi K3's MoonViT3d encoder and PatchMergerV2 projector"))
    return kw


def kimi_k25(r: Reader) -> dict[str, Any]:
    # KimiK25: a Kimi K2 (DeepSeek-V3 layout) language model in text_config, MoonViT and a
    # patch-merger projector in vision_config.
    kw = wrapped_text(r, "deepseek_v3")
    vr = vision_reader(r, "kimi_k25_vision")
    kw["extras"] += (Extra("vision tower and projector", _moonvit_params(vr, kw["d_model"]),
                           True, "Kimi K2.5's MoonViT encoder and patch-merger projector",
                           image=_moonvit_image_rule(vr, kw["d_model"])),)
    return kw


#: Kimi_K25ImageProcessor's limits (transformers 5.24.0 ``models/kimi_k25/
#: image_processing_kimi_k25.py``): max_patches 16384 patches, size max_height 512 patches a side.
KIMI_K25_PATCHES = (16384, 512)


def _moonvit_image_rule(r: Reader, d_text: int) -> ImageRule | None:
    """Kimi K2.5's image rule (FAMILIES.md): the processor's ``navit_resize`` (native
    resolution, scaled down to at most :data:`KIMI_K25_PATCHES`, padded to multiples of patch x
    merge), kept as ``max_pixels`` = max_patches p^2 and ``size`` = 512 p; the tower runs every
    patch, attending over the image's own (``cu_seqlens``), and the projector merges k_h x k_w
    patches into a token. Weights per patch: the patch convolution, per block q, k, v, proj
    (4 h^2) and the MLP (2 h inter); per token the projector's hm^2 and hm d_text (hm = h k_h
    k_w). None for an unequal merge kernel (the processor's merge_size is one number)."""
    h, p = r.int("vt_hidden_size"), r.int("patch_size", kind="count")
    k = r.int_list("merge_kernel_size", [2, 2])
    if k[0] != k[1]:
        return None
    hm = h * k[0] * k[1]
    n = r.int("vt_num_hidden_layers", kind="layers")
    return ImageRule(rule="navit", patch=p, merge=k[0], width=h, layers=n,
                     size=KIMI_K25_PATCHES[1] * p, max_pixels=KIMI_K25_PATCHES[0] * p * p,
                     tower_matmul=3 * p * p * h + n * (4 * h * h + 2 * h * r.int(
                         "vt_intermediate_size")), patch_matmul=3 * p * p * h,
                     merger_matmul=hm * hm + hm * d_text,
                     heads=r.int("vt_num_attention_heads", kind="heads"),
                     heads_key="vision_config.vt_num_attention_heads")


# ---- GLM-4.5V / GLM-4.6V (glm4v_moe) -----------------------------------------------------------
def glm4v_moe_text(r: Reader) -> dict[str, Any]:
    # Glm4vMoeTextModel (transformers 5.24.0 models/glm4v_moe/modeling_glm4v_moe.py): GLM-4.5's
    # block as the glm4_moe reader counts it (q/k/v biases, o without; leading dense blocks; 128
    # routed experts, one shared MLP, the router and its e_score_correction_bias), but its
    # attention builds no q_norm or k_norm whatever use_qk_norm says, and the class builds no
    # multi-token-prediction layer (it drops a checkpoint's layer 46 on load; GLM-4.5V's
    # checkpoint stores none). Both keys are refused by name when set; the rotary sections of
    # the 3D position (mrope_section) have no weights.
    r.refuse("use_qk_norm", "Glm4vMoeTextAttention builds no q/k norms")
    r.refuse("num_nextn_predict_layers", "Glm4vMoeTextModel builds no multi-token prediction "
             "layer and GLM-4.5V's checkpoint stores none")
    r.raw("rope_parameters")  # rope theta, partial factor and mrope sections: no parameters
    return glm4_moe(r)


def _aliased(r: Reader, key: str, alias: str, kind: str) -> int:
    """An integer a config class reads under two names (``key`` and its attribute-map
    ``alias``): either one, the same value if both; two values are an error naming both."""
    a, b = r.int(key, None, kind=kind), r.int(alias, None, kind=kind)
    if a is not None and b is not None and a != b:
        raise ConfigError(f"{r.origin}: fields '{key}' ({a}) and '{alias}' ({b}) name the same "
                          "size and disagree")
    v = a if a is not None else b
    if v is None:
        raise ConfigError(f"{r.origin}: missing field '{key}'")
    return v


def _vision_depth(r: Reader) -> tuple[int, int]:
    """A Qwen2-VL-style tower's width and depth: ``depth`` and ``num_heads``, which the config
    classes' attribute_map also reads as ``num_hidden_layers`` and ``num_attention_heads``
    (either spelling; two that disagree are refused), the heads dividing ``hidden_size``."""
    h = r.int("hidden_size")
    depth, heads = (_aliased(r, key, alias, kind) for key, alias, kind in (
        ("depth", "num_hidden_layers", "layers"), ("num_heads", "num_attention_heads", "heads")))
    if h % heads:
        raise ConfigError(f"{r.origin}: field 'num_heads' ({heads}) does not divide "
                          f"'hidden_size' ({h})")
    return h, depth


def _glm4v_vision_params(r: Reader, d_text: int) -> int:
    """Parameters of GLM-4.5V's vision encoder and merger (Glm4vMoeVisionModel): a learned
    position table of (image_size / patch_size)^2 rows of h; a Conv3d patch embedding
    (c t p p -> h, with bias); ``depth`` blocks of two RMSNorms, a fused qkv h -> 3h (biases iff
    ``attention_bias``), an output projection h -> h and a gated MLP h -> o -> h (o =
    ``out_hidden_size``), all without biases; an RMSNorm after the blocks, a Conv2d
    downsample (h m m -> o, with bias) and an RMSNorm after the convolution; the merger: o -> o,
    a LayerNorm with bias, and a gated MLP o -> ``intermediate_size`` -> o without biases.

    >>> _glm4v_vision_params(Reader({"hidden_size": 1536, "depth": 24, "num_heads": 12,
    ...     "out_hidden_size": 4096, "intermediate_size": 10944, "image_size": 336,
    ...     "patch_size": 14, "temporal_patch_size": 2, "spatial_merge_size": 2}, "v", "v"), 4096)
    858681856
    """
    h, depth = _vision_depth(r)
    out = r.int("out_hidden_size")
    if out != d_text:
        raise ConfigError(f"{r.origin}: field 'out_hidden_size' ({out}) differs from the "
                          f"language model's hidden size ({d_text})")
    inter = r.int("intermediate_size")
    c = r.int("in_channels", 3, kind="count")
    t = r.int("temporal_patch_size", 2, kind="count")
    p = r.int("patch_size", 14, kind="count")
    m = r.int("spatial_merge_size", 2, kind="count")
    image = r.int("image_size", 336)
    bias = r.flag("attention_bias", False)
    r.raw("hidden_act")  # the MLPs' activation: no parameters
    positions = (image // p) ** 2
    block = 2 * h + h * 3 * h + (3 * h if bias else 0) + h * h + 3 * h * out
    merger = out * out + 2 * out + 3 * out * inter
    return (positions * h + c * t * p * p * h + h + depth * block + h
            + h * m * m * out + out + h + merger)


def glm4v_moe(r: Reader) -> dict[str, Any]:
    # Glm4vMoeForConditionalGeneration: the language model in text_config (glm4v_moe_text, read
    # above), the vision encoder and merger in vision_config; the output head is tied when
    # either the wrapper's or the language model's tie_word_embeddings says so (Glm4vMoeConfig
    # sets the wrapper's from the text config's true).
    text = r.raw("text_config", None)
    tied = r.flag("tie_word_embeddings", False) or (
        isinstance(text, dict) and text.get("tie_word_embeddings") is True)
    wr = Reader({**r.cfg, "tie_word_embeddings": tied}, r.origin, r.family)
    kw = wrapped_text(wr, "glm4v_moe_text")
    r.read |= wr.read
    vr = vision_reader(r, "glm4v_moe_vision")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and merger", _glm4v_vision_params(vr, kw["d_model"]),
                          True, "GLM-4.5V's vision encoder, downsampling convolution and merger",
                          image=_glm4v_image_rule(vr)))
    vr.check_unread()
    return kw


#: Glm4vImageProcessor's pixel limits (transformers 5.24.0 ``models/glm4v/
#: image_processing_glm4v.py``: size shortest_edge 112 x 112, longest_edge 28 x 28 x 15000),
#: over an image's two frames; and Ernie4_5_VLMoeImageProcessor's (``models/ernie4_5_vl_moe/
#: image_processing_ernie4_5_vl_moe.py``: 56 x 56 and 28 x 28 x 6177), over one.
GLM4V_PIXELS = (112 * 112, 28 * 28 * 15000)
#: Glm4vVideoProcessor's pixel limits, bounding frames x height x width of the whole video
#: (transformers 5.24.0 ``models/glm4v/video_processing_glm4v.py``: size shortest_edge 112 x 112,
#: longest_edge 28 x 28 x 2 x 30000), the class's defaults: the catalog holds config.json only,
#: and no GLM-4.5V ``video_preprocessor_config.json`` was at hand to read a checkpoint's own
#: (the image rule keeps its class's defaults too, GLM4V_PIXELS).
GLM4V_VIDEO_PIXELS = (112 * 112, 28 * 28 * 2 * 30000)
ERNIE_VL_PIXELS = (56 * 56, 28 * 28 * 6177)


def _glm4v_image_rule(r: Reader) -> ImageRule | None:
    """GLM-4.5V's image rule (FAMILIES.md): the processor's ``smart_resize`` to multiples of
    patch x spatial merge within its pixel limits, counted over the temporal_patch_size frames
    an image is repeated into (one frame's limits kept: the processor's divided by t; None
    where t does not divide them); the tower runs (H/p)(W/p) patches of t frames, attending over
    the whole image, and the downsampling convolution gives (H/pm)(W/pm) tokens. Weights per
    patch: the Conv3d c t p^2 h, per block qkv and proj (4 h^2) and the gated MLP h -> o -> h;
    per token the convolution h m^2 -> o and the merger (o^2 and its gated MLP 3 o inter).
    A video: :mod:`llm_arithmetic.catalog.video`'s ``glm4v`` rule within
    :data:`GLM4V_VIDEO_PIXELS`."""
    h, depth = _vision_depth(r)
    out, inter = r.int("out_hidden_size"), r.int("intermediate_size")
    c, t = r.int("in_channels", 3, kind="count"), r.int("temporal_patch_size", 2, kind="count")
    p, m = r.int("patch_size", 14, kind="count"), r.int("spatial_merge_size", 2, kind="count")
    if any(v % t for v in GLM4V_PIXELS):
        return None
    return ImageRule(rule="glm4v", patch=p, merge=m, width=h, layers=depth,
                     min_pixels=GLM4V_PIXELS[0] // t, max_pixels=GLM4V_PIXELS[1] // t,
                     tower_matmul=c * t * p * p * h + depth * (4 * h * h + 3 * h * out),
                     patch_matmul=c * t * p * p * h,
                     merger_matmul=h * m * m * out + out * out + 3 * out * inter,
                     heads=_aliased(r, "num_heads", "num_attention_heads", "heads"),
                     heads_key="vision_config.num_heads", video="glm4v", temporal_patch=t,
                     video_min_pixels=GLM4V_VIDEO_PIXELS[0],
                     video_max_pixels=GLM4V_VIDEO_PIXELS[1])


# ---- ERNIE-4.5-VL (ernie4_5_vl_moe) ------------------------------------------------------------
#: transformers' Ernie4_5_VLMoeTextConfig defaults (configuration_ernie4_5_vl_moe.py in
#: transformers 5.24.0, whose docstring names baidu/ERNIE-4.5-VL-28B-A3B-PT) for the keys that
#: size the language model; mlp_layer_types defaults to one dense layer, then mixtures.
#: They are the text model's (ERNIE4_5_MOE_DEFAULTS) with two expert widths and no placement keys.
ERNIE4_5_VL_TEXT_DEFAULTS: Mapping[str, Any] = {
    **{k: v for k, v in ERNIE4_5_MOE_DEFAULTS.items() if not k.startswith("moe_layer_")},
    "moe_intermediate_size": [1536, 512],
}


def ernie4_5_vl_moe_text(r: Reader) -> dict[str, Any]:
    # Ernie4_5_VLMoeTextModel (transformers 5.24.0 modeling_ernie4_5_vl_moe.py): ERNIE 4.5's
    # attention (q/k/v/o, biases iff use_bias, refused as the ernie4_5_moe reader refuses them),
    # two RMSNorms a block, a dense MLP where mlp_layer_types says "dense", else
    # Ernie4_5_VLMoeMoeBlock: a text pool (text_moe: a router d x E in fp32 and its
    # e_score_correction_bias of E, E experts of moe_intermediate_size[0]), a vision pool
    # (vision_moe: its own router and bias, E experts of moe_intermediate_size[1]) and one
    # shared MLP of moe_num_shared_experts x moe_intermediate_size[0] that every token runs. A
    # token uses the pool of its modality (moe_mm_token_type_ids): the library's convention is a
    # text token's, as every generated token is text, so the text pool is the layer's mixture
    # and the vision pools are an extra counted in the total and read by no generated token.
    inner = defaulted(r.cfg, ERNIE4_5_VL_TEXT_DEFAULTS, r.origin, r.family)
    d, n, attn = ernie_attention(inner)
    e = _aliased(inner, "moe_num_experts", "num_experts", "experts")
    k = _aliased(inner, "moe_k", "num_experts_per_tok", "experts")
    if k > e:
        raise ConfigError(f"{r.origin}: field 'moe_k' ({k}) exceeds 'moe_num_experts' ({e})")
    widths = inner.raw("moe_intermediate_size")
    if not (isinstance(widths, list) and len(widths) == 2 and all(
            isinstance(w, int) and not isinstance(w, bool) and w > 0 for w in widths)):
        raise ConfigError(f"{r.origin}: field 'moe_intermediate_size' must list two positive "
                          f"widths (the text and the vision experts'), got {widths!r:.60}")
    text_w, vision_w = widths
    shared = inner.int("moe_num_shared_experts", kind="experts", minimum=0)
    types = inner.str_list("mlp_layer_types", n, ("dense", "sparse")) or (
        ["dense"] + ["sparse"] * (n - 1))
    for key in ("moe_layer_start_index", "moe_layer_end_index", "moe_layer_interval"):
        inner.refuse(key, "Ernie4_5_VLMoeTextModel places its mixtures by mlp_layer_types")
    moe = MLP(text_w, n_experts=e, top_k=k, n_shared=1 if shared else 0,
              d_shared=text_w * shared, router_bias=True)
    dense = MLP(inner.int("intermediate_size"))
    inner.raw("rope_parameters")  # rope theta and the 3D sections: no parameters
    inner.raw("moe_norm_min")  # a clamp in the routing: no parameters
    kw = decoder(inner, n_layers=n, norms=2, tied=inner.flag("tie_word_embeddings", True),
                 trained_context=read_context(inner),
                 attention=lambda i: attn,
                 mlp=lambda i: moe if types[i] == "sparse" else dense, d_model=d)
    pools = types.count("sparse") * (d * e + e + e * 3 * d * vision_w)
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision experts and routers; active: a text token's experts", pools,
                          True, "ERNIE-4.5-VL's vision expert pools: image and video tokens "
                          "only; a generated (text) token reads the text pool"))
    r.read |= inner.read
    return kw


def _ernie_vl_vision_params(r: Reader, d_text: int) -> int:
    """Parameters of ERNIE-4.5-VL's vision encoder and resampler
    (Ernie4_5_VLMoeVisionTransformerPretrainedModel and
    Ernie4_5_VLMoeVariableResolutionResamplerModel): a patch embedding c p^2 -> h without
    bias, ``depth`` ViT blocks (LayerNorms, fused qkv, proj and fc1/fc2, all with biases), a
    final LayerNorm; the resampler over s = h m^2: a spatial MLP s -> s -> s with biases and a
    LayerNorm, a temporal one (s t_m) -> s -> s likewise, a projection s -> the text width with
    bias, and an RMSNorm of that width.

    >>> _ernie_vl_vision_params(Reader({"hidden_size": 1280, "depth": 32, "num_heads": 16,
    ...     "intermediate_size": 5120, "patch_size": 14, "spatial_merge_size": 2,
    ...     "temporal_merge_size": 2}, "v", "v"), 2560)
    774658560
    """
    h, depth = _vision_depth(r)
    inter = r.int("intermediate_size")
    c = r.int("in_channels", 3, kind="count")
    p = r.int("patch_size", 14, kind="count")
    m = r.int("spatial_merge_size", 2, kind="count")
    tm = r.int("temporal_merge_size", 2, kind="count")
    r.raw("hidden_act")  # the blocks' activation: no parameters
    r.raw("rope_parameters")  # the tower's rotary positions: no parameters
    s = h * m * m
    tower = c * p * p * h + depth * vit_block_params(h, inter) + 2 * h
    resampler = ((s * s + s) * 2 + 2 * s) + ((s * tm * s + s) + (s * s + s) + 2 * s) \
        + (s * d_text + d_text) + d_text
    return tower + resampler


def ernie4_5_vl_moe(r: Reader) -> dict[str, Any]:
    # Ernie4_5_VLMoeForConditionalGeneration: the language model in text_config (read above),
    # the vision encoder and resampler in vision_config; the head tied to the input table by
    # the wrapper's tie_word_embeddings (default true).
    wr = Reader({**r.cfg, "tie_word_embeddings": r.flag("tie_word_embeddings", True)},
                r.origin, r.family)
    kw = wrapped_text(wr, "ernie4_5_vl_moe_text")
    r.read |= wr.read
    vr = vision_reader(r, "ernie4_5_vl_moe_vision")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and resampler", _ernie_vl_vision_params(vr, kw["d_model"]),
                          True, "ERNIE-4.5-VL's vision encoder and variable-resolution resampler",
                          image=_ernie_vl_image_rule(vr, kw["d_model"])))
    vr.check_unread()
    return kw


def _ernie_vl_image_rule(r: Reader, d_text: int) -> ImageRule:
    """ERNIE-4.5-VL's image rule (FAMILIES.md): Qwen2-VL's ``smart_resize`` with the processor's
    own pixel limits (:data:`ERNIE_VL_PIXELS`); (H/p)(W/p) patches through the tower (full
    attention), merged m x m into (H/pm)(W/pm) tokens by the resampler. Weights per patch: the
    patch embedding c p^2 h, per block qkv and proj (4 h^2) and fc1/fc2 (2 h inter); per token,
    over s = h m^2: the spatial MLP (2 s^2), the temporal one, which an image also runs on its
    frame taken twice (``_temporal_slicing``: t_m s -> s -> s), and the projection s -> d_text."""
    h, depth = _vision_depth(r)
    p, m = r.int("patch_size", 14, kind="count"), r.int("spatial_merge_size", 2, kind="count")
    tm, s = r.int("temporal_merge_size", 2, kind="count"), h * m * m
    patch = r.int("in_channels", 3, kind="count") * p * p * h
    tower = patch + depth * (4 * h * h + 2 * h * r.int("intermediate_size"))
    return ImageRule(rule="qwen2_vl", patch=p, merge=m, width=h, layers=depth,
                     min_pixels=ERNIE_VL_PIXELS[0], max_pixels=ERNIE_VL_PIXELS[1],
                     tower_matmul=tower, patch_matmul=patch, merger_matmul=2 * s * s + tm * s * s + s * s + s * d_text,
                     heads=_aliased(r, "num_heads", "num_attention_heads", "heads"),
                     heads_key="vision_config.num_heads")


# ---- Kimi-VL (kimi_vl) -------------------------------------------------------------------------
def _kimi_vl_vision_params(r: Reader, d_text: int) -> int:
    """Parameters of Kimi-VL's MoonViT and its projector, as Moonshot's remote code builds them
    (read in vLLM's port, vllm-project/vllm@dff4cad35b4faadb49e7a7e239dd27fe79c3e289
    vllm/model_executor/models/kimi_vl.py and moonvit.py): a Conv2d patch embedding (3 p p ->
    h, with bias), a learned height x width x h position table, ViT blocks (two LayerNorms,
    fused wqkv and wo with biases, an MLP h -> inter -> h with biases), a final LayerNorm;
    the projector a LayerNorm over h, then (h k_h k_w) -> (h k_h k_w) -> the text width, with
    biases. Kimi K2.5's tower (:func:`_moonvit_params`) under the remote code's plain names.

    >>> _kimi_vl_vision_params(Reader({"hidden_size": 1152, "intermediate_size": 4304,
    ...     "num_hidden_layers": 27, "num_attention_heads": 16, "patch_size": 14,
    ...     "init_pos_emb_height": 64, "init_pos_emb_width": 64}, "v", "v"), 2048)
    447545840
    """
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    heads = r.int("num_attention_heads", kind="heads")
    if h % heads:
        raise ConfigError(f"{r.origin}: field 'num_attention_heads' ({heads}) does not divide "
                          f"'hidden_size' ({h})")
    p = r.int("patch_size", 14, kind="count")
    positions, hm = _moonvit_grid(r, h, d_text)
    tower = 3 * p * p * h + h + positions * h + n * vit_block_params(h, inter) + 2 * h
    return tower + 2 * h + (hm * hm + hm) + (d_text * hm + d_text)


def kimi_vl(r: Reader) -> dict[str, Any]:
    # KimiVLForConditionalGeneration (Moonshot's remote code; transformers 5.24.0 does not
    # define it): a DeepSeek-V3-layout language model in text_config (Moonlight's: MLA without
    # a query LoRA, a dense first layer, 64 routed experts with 2 shared, sigmoid routing and
    # its score-correction bias), MoonViT and a two-layer projector in vision_config.
    kw = wrapped_text(r, "deepseek_v3")
    vr = vision_reader(r, "kimi_vl_vision")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and projector", _kimi_vl_vision_params(vr, kw["d_model"]),
                          True, "Kimi-VL's MoonViT encoder and multimodal projector"))
    vr.check_unread()
    return kw


# ---- Qwen2.5-VL and Qwen2-VL (qwen2_5_vl, qwen2_vl) ---------------------------------------------
#: the language model's keys a Qwen2-VL or Qwen2.5-VL file may carry at its top level (the Hub's
#: files are flat; Qwen2_5_VLConfig moves them into its text_config), read with the text model
QWEN2_VL_TEXT_KEYS = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
                      "num_attention_heads", "num_key_value_heads", "head_dim",
                      "max_position_embeddings", "use_sliding_window", "sliding_window",
                      "max_window_layers", "layer_types", "attention_bias")


def qwen2_vl_text(r: Reader) -> dict[str, Any]:
    # Qwen2_5_VLTextModel, Qwen2VLTextModel (transformers 5.24.0 modeling_qwen2_5_vl.py and
    # modeling_qwen2_vl.py, the same block):
    # Qwen2's block (q/k/v with biases, o without, two RMSNorms, a gated MLP without biases)
    # under the Qwen2 reader, windows by use_sliding_window and max_window_layers. The
    # attention's heads are always hidden_size / num_attention_heads wide (the class reads no
    # head_dim): a head_dim other than that is refused by name. The rotary sections of the 3D
    # position (rope_scaling's mrope_section) weigh nothing.
    d = r.int("hidden_size")
    h = r.int("num_attention_heads", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: field 'num_attention_heads' ({h}) does not divide "
                          f"'hidden_size' ({d}), as the '{r.family}' attention requires")
    if r.int("head_dim", d // h) != d // h:
        raise ConfigError(f"{r.origin}: field 'head_dim' = {r.int('head_dim')} is not supported: "
                          f"the '{r.family}' attention's heads are hidden_size / "
                          f"num_attention_heads = {d // h} wide")
    r.read.update({"rope_scaling", "rope_parameters", "rope_theta"})
    # transformers writes layer_types on saving; with windows off every entry must be full
    # (with windows on, the qwen2 reader reads the list as each layer's kind)
    n = r.int("num_hidden_layers", kind="layers")
    types = r.str_list("layer_types", n, ("full_attention", "sliding_attention"))
    windows = r.flag("use_sliding_window", False) and r.raw("sliding_window") is not None
    if types is not None and not windows and "sliding_attention" in types:
        raise ConfigError(f"{r.origin}: field 'layer_types' lists sliding layers, but "
                          "'use_sliding_window' and 'sliding_window' set no window")
    return qwen2(r)


def _vision_io(r: Reader, d_text: int, out_key: str) -> tuple[int, int, int, int, int]:
    """The input side of the Qwen2-VL and Qwen2.5-VL towers and their merger's output: input channels
    (``in_channels``; the legacy ``in_chans`` the class ignores must agree), the temporal and
    spatial patch sizes (``spatial_patch_size``, legacy, must agree with ``patch_size``), the
    spatial merge size, and the merger's output width (``out_key``), which must be the language
    model's."""
    c = r.int("in_channels", 3, kind="count")
    if r.int("in_chans", c, kind="count") != c:
        raise ConfigError(f"{r.origin}: fields 'in_chans' ({r.int('in_chans', kind='count')}) "
                          f"and 'in_channels' ({c}) disagree (the class builds in_channels)")
    p = r.int("patch_size", 14, kind="count")
    if r.int("spatial_patch_size", p, kind="count") != p:
        raise ConfigError(f"{r.origin}: fields 'spatial_patch_size' and 'patch_size' ({p}) "
                          "disagree (the class builds patch_size)")
    t = r.int("temporal_patch_size", 2, kind="count")
    m = r.int("spatial_merge_size", 2, kind="count")
    out = r.int(out_key)
    if out != d_text:
        raise ConfigError(f"{r.origin}: field '{out_key}' ({out}) differs from the language "
                          f"model's hidden size ({d_text})")
    # the tower's activation, its windowed-attention layout and the video time scale: no weights
    r.read.update({"hidden_act", "window_size", "fullatt_block_indexes", "tokens_per_second",
                   "rope_parameters"})
    return c, t, p, m, out


def qwen2_5_vl_vision_params(r: Reader, d_text: int) -> int:
    """Parameters of Qwen2.5-VL's vision encoder and patch merger
    (Qwen2_5_VisionTransformerPretrainedModel, transformers 5.24.0): a Conv3d patch embedding
    c t p p -> h without bias (positions are rotary: no table); ``depth`` blocks of two RMSNorms
    (h each), a fused qkv h -> 3h and proj h -> h with biases, and a gated MLP h -> inter -> h
    with biases (gate, up, down); the merger: an RMSNorm over h, then (h m^2) -> (h m^2) ->
    ``out_hidden_size`` with biases. Windowed or full attention per block (window_size,
    fullatt_block_indexes) changes no weight.

    >>> qwen2_5_vl_vision_params(Reader({"hidden_size": 1280, "depth": 32, "num_heads": 16,
    ...     "intermediate_size": 3420, "out_hidden_size": 2048}, "v", "v"), 2048)
    668684288
    """
    h, depth = _vision_depth(r)
    inter = r.int("intermediate_size")
    c, t, p, m, out = _vision_io(r, d_text, "out_hidden_size")
    # Qwen3-VL's tower has a learned position table and deepstack mergers; this one neither
    for key in ("num_position_embeddings", "deepstack_visual_indexes"):
        r.refuse(key, "Qwen2.5-VL's tower has no position table and no deepstack mergers "
                 "(a Qwen3-VL tower: model_type 'qwen3_vl')")
    for key in ("embed_dim", "mlp_ratio"):
        r.refuse(key, "Qwen2.5-VL's tower is sized by hidden_size and intermediate_size "
                 "(a Qwen2-VL tower: model_type 'qwen2_vl')")
    hm = h * m * m
    block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + 2 * (h * inter + inter) + (inter * h + h)
    return c * t * p * p * h + depth * block + h + (hm * hm + hm) + (hm * out + out)


def qwen2_vl_vision_params(r: Reader, d_text: int) -> int:
    """Parameters of Qwen2-VL's vision encoder and patch merger
    (Qwen2VisionTransformerPretrainedModel, transformers 5.24.0), whose width is ``embed_dim``
    (e; ``hidden_size`` is the merger's output, the language model's width): a Conv3d patch
    embedding c t p p -> e without bias (rotary positions: no table); ``depth`` ViT blocks of
    two LayerNorms with biases, a fused qkv and proj with biases, and an MLP e -> e mlp_ratio ->
    e with biases (fc1, fc2); the merger: a LayerNorm over e with bias, then (e m^2) ->
    (e m^2) -> ``hidden_size`` with biases.

    >>> qwen2_vl_vision_params(Reader({"embed_dim": 1280, "depth": 32, "num_heads": 16,
    ...     "mlp_ratio": 4, "hidden_size": 3584}, "v", "v"), 3584)
    675759104
    """
    e = r.int("embed_dim", 1280)
    depth = _aliased(r, "depth", "num_hidden_layers", "layers")
    heads = _aliased(r, "num_heads", "num_attention_heads", "heads")
    if e % heads:
        raise ConfigError(f"{r.origin}: field 'num_heads' ({heads}) does not divide "
                          f"'embed_dim' ({e})")
    ratio = r.raw("mlp_ratio", 4)
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or ratio <= 0 \
            or e * ratio != int(e * ratio):
        raise ConfigError(f"{r.origin}: field 'mlp_ratio' must be a positive number giving a "
                          f"whole MLP width (embed_dim x mlp_ratio), got {ratio!r:.40}")
    c, t, p, m, out = _vision_io(r, d_text, "hidden_size")
    for key in ("num_position_embeddings", "deepstack_visual_indexes", "intermediate_size",
                "out_hidden_size"):
        r.refuse(key, "Qwen2-VL's tower sizes its MLP by embed_dim x mlp_ratio and its "
                 "output by hidden_size, with no position table (another Qwen tower?)")
    em = e * m * m
    return (c * t * p * p * e + depth * vit_block_params(e, int(e * ratio)) + 2 * e
            + (em * em + em) + (em * out + out))


#: The area bounds Qwen2-VL's and Qwen2.5-VL's checkpoints give their processor
#: (``preprocessor_config.json``: ``min_pixels`` 3,136 = 56 x 56, ``max_pixels`` 12,845,056 =
#: 28 x 28 x 16,384, i.e. at most 16,384 tokens an image), which transformers and vLLM load with
#: the checkpoint, above Qwen2VLImageProcessor's class default of 28 x 28 x 1280 (transformers
#: 5.24.0 ``models/qwen2_vl/image_processing_qwen2_vl.py``). As Qwen ships them:
#: https://huggingface.co/Qwen/Qwen2-VL-2B/blob/258ddfbb32d06e19760700c3e472c248e164119c/preprocessor_config.json
#: and https://huggingface.co/Qwen/Qwen2.5-VL-3B-Instruct-AWQ/blob/main/preprocessor_config.json
#: (commit 649c61c; copies of Qwen2.5-VL-3B/32B/72B's in mlx-community's and others' repositories
#: agree). The catalog holds ``config.json`` only.
QWEN2_VL_MIN_PIXELS = 56 * 56
QWEN2_VL_MAX_PIXELS = 28 * 28 * 16384
#: Qwen2_5_VLVisionConfig's defaults (transformers 5.24.0) of the window layout.
QWEN2_5_VL_WINDOW = (112, [7, 15, 23, 31])


def qwen2_vl_image_rule(r: Reader, family: str) -> ImageRule:
    """The image rule of a Qwen2-VL or Qwen2.5-VL tower (``family``: the vision reader's), from
    the fields its parameter count read: each 14 px patch of a 28 px-aligned image, 2 x 2
    merged into one token; Qwen2.5-VL's windowed blocks attend within windows of
    ``window_size`` px (112: 4 x 4 merged tokens) but those of ``fullatt_block_indexes``.
    Tower weights in products per patch: the patch embedding c t p^2 h and per block qkv, proj
    and the MLP (Qwen2.5-VL's gated, 3 h i; Qwen2-VL's 2 e (e mlp_ratio)); the merger's per
    token (h m^2)^2 + h m^2 x out."""
    c = r.int("in_channels", 3, kind="count")
    p = r.int("patch_size", 14, kind="count")
    t = r.int("temporal_patch_size", 2, kind="count")
    m = r.int("spatial_merge_size", 2, kind="count")
    if family == "qwen2_vl_vision":
        h = r.int("embed_dim", 1280)
        depth = _aliased(r, "depth", "num_hidden_layers", "layers")
        block = 4 * h * h + 2 * h * int(h * r.raw("mlp_ratio", 4))
        out = r.int("hidden_size")
        window, full = 0, ()
    else:
        h, depth = _vision_depth(r)
        block = 4 * h * h + 3 * h * r.int("intermediate_size")
        out = r.int("out_hidden_size")
        size = r.int("window_size", QWEN2_5_VL_WINDOW[0], kind="width")
        if size % (p * m):
            raise ConfigError(f"{r.origin}: field 'window_size' ({size}) is not a multiple of "
                              f"patch_size x spatial_merge_size ({p * m})")
        window, full = size // (p * m), tuple(r.int_list("fullatt_block_indexes",
                                                         QWEN2_5_VL_WINDOW[1]))
    hm = h * m * m
    return ImageRule(rule="qwen2_vl", patch=p, merge=m, width=h, layers=depth,
                     tower_matmul=c * t * p * p * h + depth * block,
                     patch_matmul=c * t * p * p * h,
                     merger_matmul=hm * hm + hm * out, min_pixels=QWEN2_VL_MIN_PIXELS,
                     max_pixels=QWEN2_VL_MAX_PIXELS, window=window, full_layers=full,
                     heads=_aliased(r, "num_heads", "num_attention_heads", "heads"),
                     heads_key="vision_config.num_heads",
                     # video: the same limits, per frame (no video_preprocessor_config.json:
                     # transformers reads the video processor's from preprocessor_config.json)
                     video="qwen2_vl", temporal_patch=t, video_min_pixels=QWEN2_VL_MIN_PIXELS,
                     video_max_pixels=QWEN2_VL_MAX_PIXELS)


def qwen2_vl_of(text_family: str, vision_family: str, vision: Callable[[Reader, int], int],
                note: str) -> Callable[[Reader], dict[str, Any]]:
    """A reader of Qwen2_5_VLForConditionalGeneration and Qwen2VLForConditionalGeneration files:
    the language model in ``text_config`` or, as the Hub's files have it, at the top level beside
    ``vision_config`` (top-level copies of text keys beside a ``text_config`` must agree with
    it); the head tied when the wrapper's or the text model's tie_word_embeddings says so (the
    config class forwards the text config's true); the tower and merger an extra in the total
    that no decode step reads."""
    def read(r: Reader) -> dict[str, Any]:
        text = r.raw("text_config", None)
        if text is None:
            tr = Reader(r.cfg, r.origin, text_family)
            tr.read = r.read
            kw = qwen2_vl_text(tr)
        else:
            if not isinstance(text, dict):
                raise ConfigError(f"{r.origin}: field 'text_config' must be an object")
            windows = text.get("use_sliding_window") is True
            for key in QWEN2_VL_TEXT_KEYS:
                if key in r.cfg:
                    r.read.add(key)
                    # a window size is read only where windows are on (Qwen-Image's copy of
                    # the 7B file says 32768 at the top and null in text_config, both off)
                    if key == "sliding_window" and not windows:
                        continue
                    if key in text and text[key] != r.cfg[key]:
                        raise ConfigError(
                            f"{r.origin}: field '{key}' ({r.cfg[key]!r:.40}) disagrees with "
                            f"'text_config.{key}' ({text[key]!r:.40}), which the model is built "
                            "from")
            tied = r.flag("tie_word_embeddings", False) or text.get("tie_word_embeddings") is True
            wr = Reader({**r.cfg, "tie_word_embeddings": tied}, r.origin, r.family)
            kw = wrapped_text(wr, text_family)
            r.read |= wr.read
        vr = vision_reader(r, vision_family)
        kw["extras"] = (*kw.get("extras", ()),
                        Extra("vision tower and merger", vision(vr, kw["d_model"]), True, note,
                              image=qwen2_vl_image_rule(vr, vision_family)))
        vr.check_unread()
        return kw
    return read


# ---- Llama 3.2 Vision (mllama) ------------------------------------------------------------------
def _mllama_cross_layers(r: Reader, n: int) -> list[int]:
    """The indices of ``cross_attention_layers``: distinct, each in [0, n), not all of them."""
    idx = r.int_list("cross_attention_layers", [3, 8, 13, 18, 23, 28, 33, 38])
    if len(set(idx)) != len(idx) or any(not 0 <= i < n for i in idx):
        raise ConfigError(f"{r.origin}: field 'cross_attention_layers' must hold distinct layer "
                          f"indices below 'num_hidden_layers' ({n})")
    if len(idx) >= n:
        raise ConfigError(f"{r.origin}: field 'cross_attention_layers' leaves no self-attention "
                          "layer")
    return idx


def _mllama_cross_block(d: int, h: int, hkv: int, dh: int, ff: int) -> dict[str, int]:
    """One MllamaCrossAttentionDecoderLayer's parameters by part: ``kv``, its k and v (applied
    to the image's states, once per image); ``token``, the rest (q, o, the q/k RMSNorms over
    dh, the SwiGLU MLP, two RMSNorms and two scalar tanh gates), what a text token runs."""
    return {"kv": 2 * d * hkv * dh, "token": 2 * d * h * dh + 2 * dh + 3 * d * ff + 2 * d + 2}


def mllama_text(r: Reader) -> dict[str, Any]:
    # MllamaTextModel (transformers 5.24.0 models/mllama/modeling_mllama.py): num_hidden_layers
    # blocks, those at cross_attention_layers MllamaCrossAttentionDecoderLayer, the others
    # Llama 3.1's self-attention block (q/k/v/o without biases, SwiGLU MLP, two RMSNorms). The
    # embedding table has vocab_size + 8 rows, the head vocab_size.
    #
    # Convention (named in describe through the extras' notes): the stack is the self-attention
    # layers a text token runs; the cross-attention layers are an extra in the total read by no
    # text-only decode step (MllamaTextModel skips a cross-attention layer that holds no image
    # states). Their keys and values are the image's, computed once per image: that cache grows
    # with images, not with text tokens, so the KV cache per token counts the self-attention
    # layers only. A decode with images also reads, each step, every cross-attention layer's
    # parameters but k and v, and the images' cache: mllama_image_decode.
    n = r.int("num_hidden_layers", kind="layers")
    cross = _mllama_cross_layers(r, n)
    if r.flag("tie_word_embeddings", False):
        raise ConfigError(f"{r.origin}: field 'tie_word_embeddings' = True is not supported: "
                          "Mllama's embedding table has vocab_size + 8 rows and its head "
                          "vocab_size, so the two cannot be one tensor")
    r.refuse("mlp_bias", "MllamaTextMLP builds no biases")
    r.refuse("attention_bias", "Mllama's attention builds no biases")
    r.refuse("head_dim", "Mllama's heads are hidden_size / num_attention_heads wide")
    inner = {k: v for k, v in r.cfg.items() if k != "cross_attention_layers"}
    inner["num_hidden_layers"] = n - len(cross)
    tr = Reader(inner, r.origin, r.family)
    kw = llama_like(tr, qkv_bias=False, o_bias=False)
    r.read |= tr.read
    d = r.int("hidden_size")
    block = _mllama_cross_block(d, *r.heads(d), r.int("intermediate_size"))
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("cross-attention layers; active and KV: a text-only step", len(cross) * sum(block.values()), True,
                          f"the {len(cross)} gated cross-attention layers (at "
                          f"{', '.join(map(str, cross))}); a text-only decode skips them; with "
                          "an image each step also reads their weights but k and v, and the "
                          "image's keys and values (a cache per image, not per text token)"),
                    Extra("image-token embedding rows", 8 * d, True,
                          "the 8 rows past vocab_size in Mllama's embedding table"))
    return kw


def _mllama_vision_params(r: Reader, d_text: int) -> int:
    """Parameters of Llama 3.2 Vision's image encoder and projector (MllamaVisionModel and
    ``multi_modal_projector``): a Conv2d patch embedding (c p p -> h, no bias), a class
    embedding of h; a gated position embedding (one gate, a table of n = (image / p)^2 + 1 rows
    of h, and a tile table of A + 1 rows of T n h, A = len(supported_aspect_ratios), T =
    max_num_tiles); a pre- and a post-tile embedding (A + 1 rows of T h and one gate each);
    two LayerNorms with bias; ``num_hidden_layers`` local and ``num_global_layers`` global
    encoder layers (two LayerNorms with bias, q/k/v/o of h x h without biases, fc1 h -> i and
    fc2 i -> h with biases), each global layer with two scalar gates; the projector
    ``vision_output_dim`` -> d_text with bias.

    >>> _mllama_vision_params(Reader({"hidden_size": 1280, "num_hidden_layers": 32,
    ...     "num_global_layers": 8, "attention_heads": 16, "intermediate_size": 5120,
    ...     "vision_output_dim": 7680, "image_size": 560, "patch_size": 14,
    ...     "max_num_tiles": 4}, "v", "v"), 4096)
    895028755
    """
    h = r.int("hidden_size")
    heads = _aliased(r, "attention_heads", "num_attention_heads", "heads")
    if h % heads:
        raise ConfigError(f"{r.origin}: field 'attention_heads' ({heads}) does not divide "
                          f"'hidden_size' ({h})")
    inter = r.int("intermediate_size")
    local = r.int("num_hidden_layers", kind="layers")
    glob = r.int("num_global_layers", kind="layers")
    c = r.int("num_channels", 3, kind="count")
    p = r.int("patch_size", 14, kind="count")
    image = r.int("image_size", 448)
    tiles = r.int("max_num_tiles", 4, kind="count")
    ratios = r.raw("supported_aspect_ratios",
                   [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]])
    if not isinstance(ratios, list) or not ratios:
        raise ConfigError(f"{r.origin}: field 'supported_aspect_ratios' must be a list of pairs")
    layers = r.int_list("intermediate_layers_indices", [3, 7, 15, 23, 30])
    if any(not 0 <= i < local for i in layers):
        raise ConfigError(f"{r.origin}: field 'intermediate_layers_indices' must index the "
                          f"{local} local layers")
    out = r.int("vision_output_dim")
    if out != (len(layers) + 1) * h:
        raise ConfigError(f"{r.origin}: field 'vision_output_dim' ({out}) is not hidden_size "
                          f"times one more than the intermediate layers ({len(layers) + 1} x "
                          f"{h}), the width of MllamaVisionModel's output")
    r.raw("hidden_act")  # the MLPs' activation: no parameters
    ids = len(ratios) + 1
    n = (image // p) ** 2 + 1
    embed = c * p * p * h + h + (1 + n * h + ids * tiles * n * h) + 2 * (ids * tiles * h + 1)
    layer = 4 * h * h + 4 * h + 2 * h * inter + inter + h
    tower = embed + 4 * h + (local + glob) * layer + 2 * glob
    return tower + out * d_text + d_text


def _mllama_image_rule(vr: Reader, text: Mapping[str, Any], d: int) -> ImageRule:
    """The image rule of Llama 3.2 Vision (:mod:`llm_arithmetic.catalog.images`, ``mllama``):
    the tower's tiles and sizes (read by :func:`_mllama_vision_params`'s rules), its weights in
    matrix products for one token (the patch convolution c p^2 h, and q, k, v, o and fc1, fc2 of
    every local and global layer), the projector's for one state (vision_output_dim x d), and
    the text model's cross-attention layers that read the states."""
    h, p = vr.int("hidden_size"), vr.int("patch_size", 14, kind="count")
    layers = vr.int("num_hidden_layers", kind="layers") + vr.int("num_global_layers",
                                                                  kind="layers")
    patch = vr.int("num_channels", 3, kind="count") * p * p * h
    tr = Reader(dict(text), "text_config", "mllama_text_model")
    n = tr.int("num_hidden_layers", 40, kind="layers")
    cross = len(_mllama_cross_layers(tr, n))
    heads = tr.int("num_attention_heads", 32, kind="heads")
    dh = d // heads
    ff = tr.int("intermediate_size", 14336)
    block = _mllama_cross_block(d, heads, tr.int("num_key_value_heads", 8, kind="heads"), dh, ff)
    return ImageRule(rule="mllama", patch=p, merge=1, width=h, layers=layers,
                     size=vr.int("image_size", 448), max_tiles=vr.int("max_num_tiles", 4,
                                                                      kind="count"),
                     class_token=1,
                     tower_matmul=patch + layers * (4 * h * h + 2 * h * vr.int(
                         "intermediate_size")),
                     merger_matmul=vr.int("vision_output_dim") * d, patch_matmul=patch,
                     heads=_aliased(vr, "attention_heads", "num_attention_heads", "heads"),
                     heads_key="vision_config.attention_heads",
                     cross_layers=cross, cross_heads=heads,
                     cross_kv_heads=tr.int("num_key_value_heads", 8, kind="heads"),
                     cross_d_head=dh, cross_token_params=cross * block["token"],
                     cross_token_matmul=cross * (2 * d * heads * dh + 3 * d * ff))


def mllama(r: Reader) -> dict[str, Any]:
    # MllamaForConditionalGeneration: the language model in text_config (mllama_text_model,
    # read above), the vision encoder and projector in vision_config.
    kw = wrapped_text(r, "mllama_text_model")
    vr = vision_reader(r, "mllama_vision_model")
    params = _mllama_vision_params(vr, kw["d_model"])
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and projector", params,
                          True, "Llama 3.2 Vision's tiled image encoder (local and gated global "
                          "layers) and its projector to the text width",
                          image=_mllama_image_rule(vr, r.cfg["text_config"], kw["d_model"])))
    vr.check_unread()
    return kw


def mllama_image_decode(config: Mapping[str, Any], *, images: int = 1,
                        tiles: int | None = None, kv_bits: int = 16) -> dict[str, int]:
    """What a decode step of Llama 3.2 Vision reads besides the text-only step, with
    ``images`` images in the context, each of ``tiles`` tiles (max_num_tiles by default, as
    the processor pads them): ``image_tokens``, (image / patch)^2 + 1 a tile; ``cache_bytes``,
    the cross-attention layers' keys and values of those tokens (every cross-attention layer,
    K and V, key/value heads x head width), held once per sequence whatever its length;
    ``weights``, the parameters read per token by the cross-attention layers (all but k and
    v, which are applied to the image once, at its prefill). ``config``: a whole ``mllama``
    file (its text_config and vision_config, read by the reader's rules).

    >>> mllama_image_decode({"text_config": {}, "vision_config": {"image_size": 560}})
    {'image_tokens': 6404, 'cache_bytes': 209846272, 'weights': 1677789200}
    """
    text = config.get("text_config")
    vision = config.get("vision_config")
    if not isinstance(text, dict) or not isinstance(vision, dict):
        raise ConfigError("mllama_image_decode: the file needs 'text_config' and "
                          "'vision_config' objects")
    tr = Reader(text, "text_config", "mllama_text_model")
    n = tr.int("num_hidden_layers", 40, kind="layers")
    cross = len(_mllama_cross_layers(tr, n))
    d = tr.int("hidden_size", 4096)
    h = tr.int("num_attention_heads", 32, kind="heads")
    hkv = tr.int("num_key_value_heads", 8, kind="heads")
    dh = d // h
    block = _mllama_cross_block(d, h, hkv, dh, tr.int("intermediate_size", 14336))
    vr = Reader(vision, "vision_config", "mllama_vision_model")
    t = tiles if tiles is not None else vr.int("max_num_tiles", 4, kind="count")
    per_tile = (vr.int("image_size", 448) // vr.int("patch_size", 14, kind="count")) ** 2 + 1
    tokens = images * t * per_tile
    # the image's keys and values: the cache formula over the cross-attention layers only, with
    # the image's tokens as the context of one sequence
    cache = N.kv_cache_bytes(n_layers=cross, n_kv_heads=hkv, d_head=dh, context=tokens,
                             bits_kv=kv_bits)
    return {"image_tokens": tokens, "cache_bytes": int(cache),
            "weights": cross * block["token"]}


# ---- InternVL 3 / 3.5 (internvl) ---------------------------------------------------------------
def _pair(r: Reader, key: str, default: int) -> tuple[int, int]:
    """A size given as one integer or as [height, width] (InternVLVisionConfig's image and
    patch sizes)."""
    v = r.raw(key, default)
    if isinstance(v, list) and len(v) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v):
        return v[0], v[1]
    n = r.int(key, default)
    return n, n


def _tower_width(r: Reader) -> int:
    """A vision tower's ``hidden_size``, checked against its ``num_attention_heads``."""
    h = r.int("hidden_size")
    heads = r.int("num_attention_heads", kind="heads")
    if h % heads:
        raise ConfigError(f"{r.origin}: field 'num_attention_heads' ({heads}) does not divide "
                          f"'hidden_size' ({h})")
    return h


def _internvl_vision_params(r: Reader, d_text: int, downsample: int) -> int:
    """Parameters of InternViT (InternVLVisionModel) and InternVL's projector
    (InternVLMultiModalProjector). The tower: a class token of h (and a mask token when
    ``use_mask_token``), a Conv2d patch embedding c p p -> h with bias, a position table of
    (patches + 1) rows of h when ``use_absolute_position_embeddings``; per layer two norms
    (LayerNorms with bias, or RMSNorms when ``norm_type`` is rms_norm), q, k, v of h x h
    (biases when ``attention_bias``), RMSNorms over h on q and k when ``use_qk_norm``, an output
    projection h x h with bias, fc1 h -> i and fc2 i -> h with biases and two layer-scale
    vectors of h; a final LayerNorm unless ``use_mean_pooling``. The projector: a LayerNorm
    over h m^2 (m = 1 / downsample_ratio, the pixel shuffle), h m^2 -> d_text and d_text ->
    d_text, each with bias.

    >>> _internvl_vision_params(Reader({"hidden_size": 1024, "num_hidden_layers": 24,
    ...     "num_attention_heads": 16, "intermediate_size": 4096, "attention_bias": True,
    ...     "image_size": [448, 448], "patch_size": [14, 14]}, "v", "v"), 896, 2)
    308495104
    """
    h = _tower_width(r)
    n = r.int("num_hidden_layers", kind="layers")
    inter = r.int("intermediate_size")
    c = r.int("num_channels", 3, kind="count")
    ih, iw = _pair(r, "image_size", 448)
    ph, pw = _pair(r, "patch_size", 14)
    norm = r.raw("norm_type", "layer_norm")
    if norm not in ("layer_norm", "rms_norm"):
        raise ConfigError(f"{r.origin}: field 'norm_type' = {norm!r:.40} is not layer_norm or "
                          "rms_norm")
    nw = 2 * h if norm == "layer_norm" else h
    bias = r.flag("attention_bias", False)
    qk = r.flag("use_qk_norm", False)
    for key in ("hidden_act", "layer_norm_eps", "layer_scale_init_value"):
        r.raw(key)  # activations, epsilons and the layer scales' initial value: no count
    embed = (h + (h if r.flag("use_mask_token", False) else 0) + c * ph * pw * h + h
             + ((ih // ph) * (iw // pw) + 1) * h
             * (1 if r.flag("use_absolute_position_embeddings", True) else 0))
    layer = 2 * nw + 3 * h * h + (3 * h if bias else 0) + (2 * h if qk else 0) + h * h + h \
        + 2 * h * inter + inter + h + 2 * h
    final = 0 if r.flag("use_mean_pooling", True) else 2 * h
    wide = h * downsample * downsample
    projector = 2 * wide + wide * d_text + d_text + d_text * d_text + d_text
    return embed + n * layer + final + projector


#: GotOcr2ImageProcessor's ``max_patches`` (transformers 5.24.0
#: ``models/got_ocr2/image_processing_got_ocr2.py``), the tiles InternVL's processor crops at most
#: (``crop_to_patches`` on: ``models/internvl/processing_internvl.py``).
INTERNVL_MAX_TILES = 12


def internvl(r: Reader) -> dict[str, Any]:
    # InternVLForConditionalGeneration (transformers 5.24.0 models/internvl/modeling_internvl.py):
    # the language model in text_config, read by its own family's reader (InternVL 3: qwen2;
    # InternVL 3.5: qwen3, qwen3_moe, gpt_oss; qwen2 when the file names none, as InternVLConfig
    # defaults), InternViT and the projector in vision_config. The output head follows the
    # text_config's tie unless the wrapper states one (see FAMILIES.md 17.39: transformers 5
    # ties by the wrapper's own default instead).
    text = r.raw("text_config", None)
    family = text.get("model_type", "qwen2") if isinstance(text, dict) else "qwen2"
    if family not in FAMILIES or family in ("internvl", "mllama"):
        raise ConfigError(f"{r.origin}: text_config's model_type {family!r:.40} is not a "
                          "language model family the library reads")
    kw = wrapped_text(r, family)
    ratio = r.raw("downsample_ratio", 0.5)
    if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or not 0 < ratio <= 1 \
            or abs(1 / ratio - round(1 / ratio)) > 1e-9:
        raise ConfigError(f"{r.origin}: field 'downsample_ratio' = {ratio!r:.40} is not one "
                          "over a whole number (the pixel shuffle's factor)")
    for key in ("image_seq_length", "vision_feature_layer", "vision_feature_select_strategy",
                "projector_hidden_act", "image_token_id", "image_token_index"):
        r.raw(key)  # token counts and layer choices of the image path: no parameters
    vr = vision_reader(r, "internvl_vision")
    params = _internvl_vision_params(vr, kw["d_model"], round(1 / ratio))
    # the image rule (FAMILIES.md): tiles of image_size, a class token per tile that the
    # default feature strategy drops, 2 x 2 pixel shuffle into the projector's h m^2 inputs
    m, h, d = round(1 / ratio), vr.int("hidden_size"), kw["d_model"]
    (ih, iw), (ph, pw) = _pair(vr, "image_size", 448), _pair(vr, "patch_size", 14)
    image = None
    if ih == iw and ph == pw and r.raw("vision_feature_select_strategy", "default") == "default":
        image = ImageRule(rule="tiles", patch=ph, merge=m, width=h, size=ih,
                          layers=vr.int("num_hidden_layers", kind="layers"),
                          tower_matmul=vit_matmul_params(vr, ph),
                          patch_matmul=vit_patch_params(vr, ph),
                          merger_matmul=h * m * m * d + d * d, max_tiles=INTERNVL_MAX_TILES,
                          class_token=1, heads=vr.int("num_attention_heads", kind="heads"),
                          heads_key="vision_config.num_attention_heads", heads_fallback=True)
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and projector", params, True,
                          "InternViT and the pixel-shuffle MLP projector", image=image))
    vr.check_unread()
    return kw


# ---- LLaVA (llava) -----------------------------------------------------------------------------
#: transformers' LlamaConfig defaults (5.24.0, ``configuration_llama.py``), which a LLaVA file's
#: sparse ``text_config`` (written as a diff from them) leaves out.
LLAVA_LLAMA_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
    "num_hidden_layers": 32, "num_attention_heads": 32, "max_position_embeddings": 2048,
}

#: transformers' CLIPVisionConfig defaults (5.24.0, ``configuration_clip.py``).
CLIP_VISION_DEFAULTS: Mapping[str, Any] = {
    "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
    "num_attention_heads": 12, "num_channels": 3, "image_size": 224, "patch_size": 32,
}


def _clip_vision_params(r: Reader) -> int:
    """Parameters of CLIP's vision tower (CLIPVisionModel, no projection): a class embedding
    of h, a Conv2d patch embedding c p p -> h without bias, a position table of (image / p)^2
    + 1 rows of h, a LayerNorm before the blocks (``pre_layrnorm``) and one after
    (``post_layernorm``), both with biases, and ViT blocks with biases.

    >>> _clip_vision_params(defaulted({"hidden_size": 1024, "intermediate_size": 4096,
    ...     "num_hidden_layers": 24, "num_attention_heads": 16, "image_size": 336,
    ...     "patch_size": 14}, CLIP_VISION_DEFAULTS, "v", "clip_vision_model"))
    303507456
    """
    h = _tower_width(r)
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    c = r.int("num_channels", kind="count")
    p = r.int("patch_size", kind="count")
    image = r.int("image_size")
    for key in ("projection_dim", "hidden_act", "layer_norm_eps", "vocab_size"):
        r.raw(key)  # the CLIP model's projection and text vocabulary: not in CLIPVisionModel
    return h + c * p * p * h + ((image // p) ** 2 + 1) * h + 2 * 2 * h \
        + n * vit_block_params(h, inter)


def _siglip_no_head_params(r: Reader) -> int:
    """A SigLIP vision tower as LLaVA-OneVision builds it, whose files must say
    ``vision_use_head`` false: absent, SiglipVisionConfig's default (true) builds the pooling
    head, which the library does not count."""
    if r.cfg.get("vision_use_head") is not False:
        raise ConfigError(f"{r.origin}: field 'vision_use_head' must be false: absent or true, "
                          "SiglipVisionModel builds the attention-pooling head, which the "
                          "library does not count")
    for key in ("hidden_act", "layer_norm_eps"):
        r.raw(key)  # no parameters
    _tower_width(r)
    return siglip_params(r)


#: LLaVA wrappers' vision towers: model_type -> (transformers' defaults, counter).
LLAVA_TOWERS: Mapping[str, tuple[Mapping[str, Any], Callable[[Reader], int]]] = {
    "clip_vision_model": (CLIP_VISION_DEFAULTS, _clip_vision_params),
    "siglip_vision_model": (SIGLIP_DEFAULTS, _siglip_no_head_params),
}


def _llava_like(r: Reader, *, text_default: str, towers: tuple[str, ...], feature_default: int,
                newline: bool) -> dict[str, Any]:
    """The LLaVA wrappers (transformers 5.24.0 models/llava and models/llava_onevision): the
    language model in text_config, read by its own family's reader (``text_default`` when the
    file names none; a llama text_config at LlamaConfig's defaults where the file leaves sizes
    out, as LLaVA-1.5's files do); the vision tower AutoModel.from_config(vision_config), one
    of ``towers`` (others refused by name); the projector linear_1 (h x the number of
    vision_feature_layer entries -> d) and linear_2 (d -> d), biases when
    multimodal_projector_bias (default true); LLaVA-OneVision's ``image_newline`` vector of d
    when ``newline``. The head is tied when either config says so (the configs'
    __post_init__)."""
    text = r.raw("text_config", None)
    if not isinstance(text, dict):
        raise ConfigError(f"{r.origin}: field 'text_config' must be an object holding the "
                          "language model's configuration")
    family = text.get("model_type", text_default)
    if family not in FAMILIES or family in ("llava", "llava_onevision", "internvl", "mllama"):
        raise ConfigError(f"{r.origin}: text_config's model_type {family!r:.40} is not a "
                          "language model family the library reads")
    inner = {**LLAVA_LLAMA_DEFAULTS, **{k: v for k, v in text.items() if v is not None}} \
        if family == "llama" else dict(text)
    tied = r.flag("tie_word_embeddings", False) or inner.get("tie_word_embeddings") is True
    wr = Reader({**r.cfg, "text_config": inner, "tie_word_embeddings": tied}, r.origin,
                r.family)
    kw = wrapped_text(wr, family)
    r.read |= wr.read
    top_vocab = r.int("vocab_size", None, kind="vocab")  # LLaVA-1.5's files repeat it here
    if top_vocab is not None and top_vocab != kw["n_vocab"]:
        raise ConfigError(f"{r.origin}: field 'vocab_size' ({top_vocab}) differs from the "
                          f"text_config's ({kw['n_vocab']})")
    layers = r.raw("vision_feature_layer", feature_default)
    if isinstance(layers, list) and layers and all(
            isinstance(x, int) and not isinstance(x, bool) for x in layers):
        n_layers = len(layers)
    elif isinstance(layers, int) and not isinstance(layers, bool):
        n_layers = 1
    else:
        raise ConfigError(f"{r.origin}: field 'vision_feature_layer' must be an integer or a "
                          "list of integers")
    bias = r.flag("multimodal_projector_bias", True)
    for key in ("image_token_index", "image_token_id", "image_seq_length", "ignore_index",
                "projector_hidden_act", "vision_feature_select_strategy", "pad_token_id",
                "video_token_index", "video_token_id", "image_grid_pinpoints",
                "vision_aspect_ratio", "use_image_newline_parameter"):
        r.raw(key)  # token ids, counts, grids and choices of the image path: no parameters
    vision = r.raw("vision_config", None)
    if not isinstance(vision, dict):
        raise ConfigError(f"{r.origin}: field 'vision_config' must be an object")
    tower = vision.get("model_type", towers[0])
    if tower not in towers:
        raise ConfigError(f"{r.origin}: vision_config's model_type {tower!r:.40} is not "
                          f"supported: the {r.family} reader counts {' or '.join(towers)}")
    defaults, count = LLAVA_TOWERS[tower]
    vr = defaulted(vision, defaults, r.origin + ": vision_config", tower)
    d = kw["d_model"]
    h = vr.int("hidden_size")
    projector = h * n_layers * d + d * d + (2 * d if bias else 0) + (d if newline else 0)
    image = None
    strategy = r.raw("vision_feature_select_strategy", "default")
    if tower == "clip_vision_model" and strategy in ("default", "full"):
        # LLaVA-1.5: one crop of image_size, the class token dropped by the default strategy
        # (FAMILIES.md). The tower runs up to the deepest layer vision_feature_layer reads:
        # vLLM builds CLIP with n + index + 1 layers for a negative index, 23 of 24 for
        # LLaVA-1.5's -2 (vllm-project/vllm 35d3c24b11a03faf6108c5f9e7b81634ea1c3e5d
        # vllm/model_executor/models/llava.py _get_num_hidden_layers, _get_layer_index,
        # num_hidden_layers_override); transformers runs all 24 and discards the last, which
        # the bound need not pay. The checkpoint still holds the 24th layer: the tower's
        # parameters (and the bytes the tower is charged) count it
        p, n = vr.int("patch_size", kind="count"), vr.int("num_hidden_layers", kind="layers")
        deepest = max(x + n + 1 if x < 0 else x for x in (layers if isinstance(layers, list)
                                                          else [layers]))
        if not 0 < deepest <= n:
            raise ConfigError(f"{r.origin}: field 'vision_feature_layer' ({layers!r:.40}) "
                              f"reads no layer of the tower's {n}")
        run = vit_patch_params(vr, p) + deepest * (4 * h * h + 2 * h * vr.int(
            "intermediate_size"))
        image = ImageRule(rule="fixed", patch=p, merge=1, width=h, layers=deepest,
                          size=vr.int("image_size"), tower_matmul=run,
                          patch_matmul=vit_patch_params(vr, p),
                          merger_matmul=h * n_layers * d + d * d, class_token=1,
                          keep_class=strategy == "full",
                          heads=vr.int("num_attention_heads", kind="heads"),
                          heads_key="vision_config.num_attention_heads")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and projector", count(vr) + projector, True,
                          f"the {tower} tower and the two-layer projector", image=image))
    vr.check_unread()
    return kw


def llava(r: Reader) -> dict[str, Any]:
    # LlavaForConditionalGeneration: llama by default, CLIP's tower, features of layer -2.
    return _llava_like(r, text_default="llama", towers=("clip_vision_model",),
                       feature_default=-2, newline=False)


def llava_onevision(r: Reader) -> dict[str, Any]:
    # LlavaOnevisionForConditionalGeneration: qwen2 by default, SigLIP's tower without its
    # pooling head, features of layer -1, and the image_newline vector of d.
    return _llava_like(r, text_default="qwen2", towers=("siglip_vision_model",),
                       feature_default=-1, newline=True)
