"""Readers of Qwen's omni-modal checkpoints (Qwen3-Omni ``qwen3_omni_moe``; FAMILIES.md section
17.46): a "thinker" (audio encoder, vision encoder and the language model that decodes text) and,
where the checkpoint speaks, a "talker" that turns the thinker's states into speech codes and a
codec decoder that turns codes into a waveform.

What the catalog counts (tests/configs/FAMILIES.md says why): the total is everything the
checkpoint holds (transformers 5.24.0 builds the talker and the codec decoder only when
``enable_audio_output`` is true, as the Instruct files have it; the Thinking and Captioner files
say false and hold the thinker alone); a decode step is the thinker's language model alone (the
talker runs only when speech is asked for, and speech output is not modelled); the vision encoder
keeps its image rule; the audio encoder, the talker and the codec decoder are extras in the total
that no text decode step reads.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ...core.errors import ConfigError
from ..model import Extra
from .base import Reader, vision_reader, wrapped_text
from .multimodal import _qwen3_vl_image_rule, _qwen3_vl_vision_params

#: The area bounds the three Qwen3-Omni checkpoints give their image processor
#: (``preprocessor_config.json``: ``min_pixels`` 3,136, ``max_pixels`` 12,845,056, patch 16,
#: merge 2, ``Qwen2VLImageProcessor``), as a survey of Qwen's repositories at their 2025-09-22
#: revisions copies them (search index file id 56844528870: Qwen/Qwen3-Omni-30B-A3B-Instruct
#: @ 26291f793822fb6be9555850f06dfe95f2d7e695, -Thinking @ 2f443cfc4c54b14a815c0e2bb9a9d6cbcd9a748b,
#: -Captioner @ a2bd106cbf527db5676e79662674da22b0545ec0): Qwen2-VL's bounds, not Qwen3-VL's.
QWEN3_OMNI_PIXELS = (3136, 12845056)


def sub_reader(r: Reader, key: str, family: str, holds: str) -> Reader:
    """A reader of the required object at ``key`` (which ``holds`` a part's configuration); an
    error names the field."""
    v = r.raw(key, None)
    if not isinstance(v, Mapping):
        what = "missing" if v is None else f"not an object ({type(v).__name__})"
        raise ConfigError(f"{r.origin}: field '{key}' is {what}; it must be an object holding "
                          f"{holds}")
    return Reader(v, f"{r.origin}: {key}", family)


def _attention(r: Reader, d: int, heads_default: Any = ..., head_dim_default: Any = None,
               kv_default: Any = None) -> tuple[int, int, int]:
    """Heads, KV heads (default: as many as heads) and head width (default: hidden / heads)
    of a block whose projections carry no bias (``attention_bias`` true is refused by name)."""
    r.refuse("attention_bias", "these blocks' projections carry no biases")
    h = r.int("num_attention_heads", heads_default, kind="heads")
    hkv = r.int("num_key_value_heads", h if kv_default is None else kv_default, kind="heads")
    if h % hkv:
        raise ConfigError(f"{r.origin}: field 'num_key_value_heads' ({hkv}) does not divide "
                          f"'num_attention_heads' ({h})")
    if head_dim_default is None:
        if d % h:
            raise ConfigError(f"{r.origin}: field 'num_attention_heads' ({h}) does not divide "
                              f"'hidden_size' ({d}) and no 'head_dim' is given")
        head_dim_default = d // h
    return h, hkv, r.int("head_dim", head_dim_default)


def _qk_block(d: int, h: int, hkv: int, dh: int) -> int:
    """Qwen3's attention without biases, with per-head q/k RMSNorms, and a block's two RMSNorms."""
    return 2 * d * h * dh + 2 * d * hkv * dh + 2 * dh + 2 * d


def qwen3_omni_audio_params(r: Reader, d_text: int) -> int:
    """Parameters of Qwen3-Omni's audio encoder (Qwen3OmniMoeAudioEncoder, transformers
    5.24.0): three 3 x 3 stride-2 Conv2d of ``downsample_hidden_size`` channels with biases over
    the mel spectrogram (1 channel in), a linear ``conv_out`` without bias from the flattened
    channels x frequency bins (``num_mel_bins`` halved three times, rounding up) to ``d_model``;
    ``encoder_layers`` Whisper blocks (q, k, v, out of d x d with biases, fc1 and fc2 with
    biases, two LayerNorms); a LayerNorm ``ln_post``; then ``proj1`` (d -> d) and ``proj2``
    (d -> ``output_dim``, the language model's width) with biases. Positions are sinusoids (a
    buffer the checkpoint does not store).

    >>> qwen3_omni_audio_params(Reader({"d_model": 1280, "encoder_layers": 32,
    ...     "encoder_ffn_dim": 5120, "encoder_attention_heads": 20, "num_mel_bins": 128,
    ...     "downsample_hidden_size": 480, "output_dim": 2048}, "a", "a"), 2048)
    647927168
    """
    d = r.int("d_model")
    layers = r.int("encoder_layers", kind="layers")
    ffn = r.int("encoder_ffn_dim")
    heads = r.int("encoder_attention_heads", kind="heads")
    if d % heads:
        raise ConfigError(f"{r.origin}: field 'encoder_attention_heads' ({heads}) does not "
                          f"divide 'd_model' ({d})")
    mels = r.int("num_mel_bins", kind="count")
    c = r.int("downsample_hidden_size")
    out = r.int("output_dim")
    if out != d_text:
        raise ConfigError(f"{r.origin}: field 'output_dim' ({out}) differs from the language "
                          f"model's hidden size ({d_text})")
    r.check_unread()
    freq = (((mels + 1) // 2 + 1) // 2 + 1) // 2
    convs = (9 * c + c) + 2 * (9 * c * c + c)
    block = 4 * (d * d + d) + 2 * 2 * d + (d * ffn + ffn) + (ffn * d + d)
    return convs + c * freq * d + layers * block + 2 * d + (d * d + d) + (d * out + out)


def qwen3_omni_talker_params(r: Reader, d_thinker: int) -> int:
    """Parameters of Qwen3-Omni's talker (Qwen3OmniMoeTalkerForConditionalGeneration,
    transformers 5.24.0), from ``talker_config``: its language model in ``text_config``
    (Qwen3-MoE blocks without biases, q/k RMSNorms, a router, ``num_experts`` gated experts of
    ``moe_intermediate_size`` and a gated shared expert of ``shared_expert_intermediate_size``
    with its one-output gate; a codec embedding of ``vocab_size``, a final RMSNorm); two resize
    MLPs from the thinker (``thinker_hidden_size`` -> ``intermediate_size`` -> hidden, with
    biases); the codec head (hidden -> ``vocab_size``, untied); and the code predictor in
    ``code_predictor_config`` (dense Qwen3 blocks with gated MLPs, a final RMSNorm, and
    ``num_code_groups`` - 1 embeddings and output heads of its ``vocab_size``).

    >>> import json, pathlib
    >>> cfg = json.loads((pathlib.Path(__file__).parents[1] / "data" / "models"
    ...     / "qwen3-omni-30b-a3b-instruct" / "config.json").read_text())
    >>> qwen3_omni_talker_params(Reader(cfg["talker_config"], "t", "t"), 2048)
    3324596480
    """
    if r.int("thinker_hidden_size") != d_thinker:
        raise ConfigError(f"{r.origin}: field 'thinker_hidden_size' ({r.int('thinker_hidden_size')})"
                          f" differs from the thinker's hidden size ({d_thinker})")
    if r.flag("tie_word_embeddings", False):
        raise ConfigError(f"{r.origin}: field 'tie_word_embeddings' = True is not supported: "
                          "the talker's codec head is counted untied, as Qwen's checkpoints hold it")
    t = sub_reader(r, "text_config", "qwen3_omni_moe_talker_text",
                   "the talker's language model")
    d = t.int("hidden_size")
    n = t.int("num_hidden_layers", kind="layers")
    h, hkv, dh = _attention(t, d, 16, kv_default=2)
    if t.has("num_experts") and t.has("num_local_experts") \
            and t.int("num_experts") != t.int("num_local_experts"):
        raise ConfigError(f"{t.origin}: fields 'num_experts' and 'num_local_experts' disagree")
    experts = t.int("num_experts", None, kind="count") or t.int("num_local_experts", 128,
                                                                 kind="count")
    t.int("num_experts_per_tok", 8, kind="count")
    moe = t.int("moe_intermediate_size", 384)
    shared = t.int("shared_expert_intermediate_size")
    inter = t.int("intermediate_size", 2048)
    vocab = t.int("vocab_size", 3072, kind="vocab")
    if t.int_list("mlp_only_layers", []) or t.int("decoder_sparse_step", 1, kind="count") != 1:
        raise ConfigError(f"{t.origin}: fields 'mlp_only_layers' / 'decoder_sparse_step' make "
                          "dense layers in the talker, which is not modelled (Qwen's talker is "
                          "a mixture at every layer)")
    t.read.update({"use_sliding_window", "sliding_window"})  # no weights; not modelled
    block = _qk_block(d, h, hkv, dh) + experts * d + experts * 3 * d * moe + 3 * d * shared + d
    lm = n * block + d + vocab * d
    resize = 2 * ((d_thinker * inter + inter) + (inter * d + d))
    p = sub_reader(r, "code_predictor_config", "qwen3_omni_moe_talker_code_predictor",
                   "the talker's code predictor")
    pd = p.int("hidden_size", 1024)
    pn = p.int("num_hidden_layers", 5, kind="layers")
    ph, phkv, pdh = _attention(p, pd, 16, 128, kv_default=8)
    pff = p.int("intermediate_size", 3072)
    pv = p.int("vocab_size", 2048, kind="vocab")
    groups = p.int("num_code_groups", 32, kind="count")
    if r.int("num_code_groups", groups, kind="count") != groups:
        raise ConfigError(f"{r.origin}: field 'num_code_groups' disagrees with "
                          "'code_predictor_config.num_code_groups'")
    # windows change no weight, and the predictor's steps are not modelled
    p.str_list("layer_types", pn, ("full_attention", "sliding_attention"))
    p.read.update({"use_sliding_window", "sliding_window", "max_window_layers"})
    for part in (t, p):
        part.check_unread()
    predictor = (pn * (_qk_block(pd, ph, phkv, pdh) + 3 * pd * pff) + pd
                 + 2 * (groups - 1) * pv * pd)
    return lm + resize + d * vocab + predictor


def qwen3_omni_code2wav_params(r: Reader) -> int:
    """Parameters of Qwen3-Omni's codec decoder (Qwen3OmniMoeCode2Wav, transformers 5.24.0),
    from ``code2wav_config``: one embedding of ``codebook_size`` x ``num_quantizers`` codes;
    ``num_hidden_layers`` transformer blocks (attention without biases or q/k norms, a gated MLP,
    two RMSNorms, two layer scales) and a final RMSNorm; per ``upsampling_ratios`` factor f a
    transposed convolution (h -> h, kernel f, bias) and a ConvNeXt block (depthwise kernel 7,
    LayerNorm, h -> 4h -> h with biases, a scale); a kernel-7 convolution h -> ``decoder_dim``;
    per ``upsample_rates`` rate u a block halving the channels (SnakeBeta, a transposed
    convolution of kernel 2u, three residual units of two SnakeBetas and convolutions of kernel 7
    and 1, all with biases); a SnakeBeta and a kernel-7 convolution to one channel.

    >>> qwen3_omni_code2wav_params(Reader({}, "c", "c"))
    216016577
    """
    h = r.int("hidden_size", 1024)
    n = r.int("num_hidden_layers", 8, kind="layers")
    heads, hkv, dh = _attention(r, h, 16)
    ff = r.int("intermediate_size", 3072)
    codes = r.int("codebook_size", 2048, kind="vocab") * r.int("num_quantizers", 16,
                                                               kind="count")
    dim = r.int("decoder_dim", 1536)
    rates = r.int_list("upsample_rates", [8, 5, 4, 3])
    ratios = r.int_list("upsampling_ratios", [2, 2])
    if not rates or any(x < 1 for x in rates + ratios):
        raise ConfigError(f"{r.origin}: fields 'upsample_rates' and 'upsampling_ratios' must "
                          "list positive factors (at least one rate)")
    if dim % 2 ** len(rates):
        raise ConfigError(f"{r.origin}: field 'decoder_dim' ({dim}) is not divisible by 2 per "
                          f"upsample rate ({len(rates)} rates)")
    r.check_unread()
    attention = 2 * h * heads * dh + 2 * h * hkv * dh
    pre = n * (attention + 3 * h * ff + 2 * h + 2 * h) + h
    convnext = (7 * h + h) + 2 * h + (h * 4 * h + 4 * h) + (4 * h * h + h) + h
    upsample = sum(h * h * f + h + convnext for f in ratios)
    decoder = h * dim * 7 + dim
    for i, u in enumerate(rates):
        cin, cout = dim // 2 ** i, dim // 2 ** (i + 1)
        unit = 2 * 2 * cout + (cout * cout * 7 + cout) + (cout * cout + cout)
        decoder += 2 * cin + (cin * cout * 2 * u + cout) + 3 * unit
    last = dim // 2 ** len(rates)
    decoder += 2 * last + (last * 7 + 1)
    return codes * h + pre + upsample + decoder


def qwen3_omni_moe(r: Reader) -> dict[str, Any]:
    # Qwen3OmniMoeForConditionalGeneration (transformers 5.24.0): the thinker in thinker_config
    # (a Qwen3-MoE language model in its text_config, Qwen3-VL's vision encoder, an audio
    # encoder), and with enable_audio_output the talker and the codec decoder
    th = sub_reader(r, "thinker_config", "qwen3_omni_moe_thinker",
                    "the thinker (language model, vision and audio encoders)")
    kw = wrapped_text(th, "qwen3_moe")
    d = kw["d_model"]
    vr = vision_reader(th, "qwen3_omni_moe_vision")
    rule = replace(_qwen3_vl_image_rule(vr, d), min_pixels=QWEN3_OMNI_PIXELS[0],
                   max_pixels=QWEN3_OMNI_PIXELS[1])
    extras = [Extra("vision tower and mergers", _qwen3_vl_vision_params(vr, d), True,
                    "Qwen3-Omni's vision encoder (Qwen3-VL's, with deepstack mergers)",
                    image=rule),
              Extra("audio encoder", qwen3_omni_audio_params(
                  sub_reader(th, "audio_config", "qwen3_omni_moe_audio_encoder",
                             "the audio encoder"), d), True,
                  "Qwen3-Omni's audio encoder (AuT: convolutional downsampling, 32 "
                  "Whisper-style blocks, a projection into the language model)")]
    if r.flag("enable_audio_output", True):
        extras += [
            Extra("talker", qwen3_omni_talker_params(
                sub_reader(r, "talker_config", "qwen3_omni_moe_talker",
                           "the talker (enable_audio_output is true)"), d), True,
                "the talker: a small mixture-of-experts decoder that writes speech codes from "
                "the thinker's states, with its multi-codebook code predictor; it runs only "
                "when speech output is asked for"),
            Extra("code2wav", qwen3_omni_code2wav_params(
                sub_reader(r, "code2wav_config", "qwen3_omni_moe_code2wav",
                           "the codec decoder (enable_audio_output is true)")), True,
                "the codec decoder that turns speech codes into a waveform (transformer, "
                "upsampling convolutions); speech output only")]
    else:
        for key in ("talker_config", "code2wav_config"):
            r.read.add(key)  # present in the Thinking files, not built without audio output
    th.check_unread()
    kw["extras"] = (*kw.get("extras", ()), *extras)
    return kw
