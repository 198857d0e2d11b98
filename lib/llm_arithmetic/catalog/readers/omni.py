"""Readers of Qwen's omni-modal checkpoints (Qwen3-Omni ``qwen3_omni_moe``, FAMILIES.md
section 17.46; Qwen2.5-Omni ``qwen2_5_omni``, section 17.47): a "thinker" (audio encoder,
vision encoder and the language model that decodes text) and, where the checkpoint speaks, a
"talker" that turns the thinker's states into speech codes and a generator that turns codes
into a waveform (Qwen3-Omni's code2wav, Qwen2.5-Omni's token2wav).

What the catalog counts (tests/configs/FAMILIES.md says why): the total is everything the
checkpoint holds (transformers 5.24.0 builds the talker and the generator only when
``enable_audio_output`` is true, as Qwen3-Omni's Instruct file and Qwen2.5-Omni's files have
it; Qwen3-Omni's Thinking and Captioner files say false and hold the thinker alone); a decode
step is the thinker's language model alone (the talker runs only when speech is asked for, and
speech output is not modelled); the vision encoder keeps its image rule; the audio encoder, the
talker and the generator are extras in the total that no text decode step reads. A video
(``catalog.video``'s ``qwen2_vl`` rule: both processors use ``Qwen2VLVideoProcessor``) within
the processors' own per-frame limits; its audio track (``media.video_inputs``' ``audio``) as one
more clip under the audio encoder's rule.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping

from ...core.errors import ConfigError
from ..audio import AudioRule
from ..model import Extra
from .base import Reader, vision_reader, wrapped_text
from .multimodal import (qwen3_vl_image_rule, qwen3_vl_vision_params, qwen2_5_vl_vision_params,
                         qwen2_vl_image_rule)

#: The area bounds the three Qwen3-Omni checkpoints give their image processor
#: (``preprocessor_config.json``: ``min_pixels`` 3,136, ``max_pixels`` 12,845,056, patch 16,
#: merge 2, ``Qwen2VLImageProcessor``), as a survey of Qwen's repositories at their 2025-09-22
#: revisions copies them (search index file id 56844528870: Qwen/Qwen3-Omni-30B-A3B-Instruct
#: @ 26291f793822fb6be9555850f06dfe95f2d7e695, -Thinking @ 2f443cfc4c54b14a815c0e2bb9a9d6cbcd9a748b,
#: -Captioner @ a2bd106cbf527db5676e79662674da22b0545ec0): Qwen2-VL's bounds, not Qwen3-VL's.
QWEN3_OMNI_PIXELS = (3136, 12845056)
#: Where both omni files give the vision encoder's heads (``ImageRule.heads_key``: the field a
#: tensor-parallel degree that does not divide them is refused by): inside the thinker's
#: configuration, not at the top level as in Qwen2.5-VL's and Qwen3-VL's files.
VISION_HEADS_KEY = "thinker_config.vision_config.num_heads"
#: The per-frame pixel limits of the omni processors' video processor (``Qwen2VLVideoProcessor``,
#: ``models/auto/video_processing_auto.py``), which both processors pass it on every call from
#: their class attribute ``videos_kwargs`` ``size`` (transformers 5.24.0
#: ``models/qwen2_5_omni/processing_qwen2_5_omni.py`` ``Qwen2_5OmniProcessor``: 128 x 28^2 to
#: 768 x 28^2; ``models/qwen3_omni_moe/processing_qwen3_omni_moe.py`` ``Qwen3OmniMoeProcessor``:
#: 128 x 32^2 to 768 x 32^2). ``ProcessorMixin._merge_kwargs`` puts these defaults into every
#: call, so they override the checkpoint's ``preprocessor_config.json``: they are the processor
#: class's, not a file's, and need no file beside ``config.json``.
QWEN2_5_OMNI_VIDEO_PIXELS = (128 * 28 * 28, 768 * 28 * 28)
QWEN3_OMNI_VIDEO_PIXELS = (128 * 32 * 32, 768 * 32 * 32)


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
    # the attention windows and chunks (catalog.audio) change no weight
    r.int("n_window", 50, kind="count")
    r.int("n_window_infer", 800, kind="count")
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
        raise ConfigError(f"{r.origin}: field 'thinker_hidden_size' "
                          f"({r.int('thinker_hidden_size')}) differs from the thinker's hidden "
                          f"size ({d_thinker})")
    if r.flag("tie_word_embeddings", False):
        raise ConfigError(f"{r.origin}: field 'tie_word_embeddings' = True is not supported: "
                          "the talker's codec head is counted untied, as Qwen's checkpoints "
                          "hold it")
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


def omni_audio_rule(r: Reader, rule: str) -> AudioRule:
    """The :class:`~llm_arithmetic.catalog.audio.AudioRule` of an omni model's
    ``audio_config`` (read after its parameters, so with its defaults): Qwen2.5-Omni's
    (``qwen2_audio``: the feature extractor's cap of 30,000 frames, 300 s, and the blocks
    whole on every chip under tensor parallelism, as vLLM runs transformers' own encoder:
    vllm-project/vllm@7f4a06ae06cd9bea45d30d39de049b1ab39abc77
    vllm/model_executor/models/qwen2_5_omni_thinker.py imports ``Qwen2_5OmniAudioEncoder``)
    or Qwen3-Omni's (``qwen3_omni``: vLLM's own encoder splits every block's qkv, out, fc1
    and fc2 over the chips and keeps the convolutions and projections whole,
    @e86cd3154c69a19e1121cb1b8f041c824ab42cf0 qwen3_omni_moe_thinker.py
    ``Qwen3OmniMoeAudioAttention``, ``Qwen3OmniMoeAudioEncoderLayer``).

    >>> from llm_arithmetic.catalog.readers.base import Reader
    >>> r = omni_audio_rule(Reader({}, "audio_config", "qwen2_5_omni"), "qwen2_audio")
    >>> r.width, r.layers, r.n_window, r.max_frames, r.split   # the class's defaults
    (1280, 32, 100, 30000, False)
    >>> r = omni_audio_rule(Reader({"downsample_hidden_size": 480, "output_dim": 2048},
    ...                            "audio_config", "qwen3_omni_moe"), "qwen3_omni")
    >>> r.n_window, r.n_window_infer, r.channels, r.output_dim, r.max_frames, r.split
    (50, 800, 480, 2048, 0, True)
    """
    common = dict(width=r.int("d_model", 1280), layers=r.int("encoder_layers", 32),
                  ffn=r.int("encoder_ffn_dim", 5120), mels=r.int("num_mel_bins", 128),
                  output_dim=r.int("output_dim", 3584),
                  heads=r.int("encoder_attention_heads", 20))
    if rule == "qwen2_audio":
        return AudioRule("qwen2_audio", n_window=r.int("n_window", 100), max_frames=30000,
                         **common)
    return AudioRule("qwen3_omni", n_window=r.int("n_window", 50),
                     n_window_infer=r.int("n_window_infer", 800),
                     channels=r.int("downsample_hidden_size"), split=True, **common)


def speech_extras(r: Reader, parts: tuple[tuple[str, str, Callable[[Reader], int], str], ...],
                  ) -> list[Extra]:
    """The speech-output parts (name, family, count of its ``<name>_config`` reader, note) as
    extras in the total that no text step reads, where ``enable_audio_output`` (default true)
    has transformers build them; without it their configurations (which Qwen's thinker-only
    files may still carry) are read and not counted."""
    if not r.flag("enable_audio_output", True):
        r.read.update(f"{name}_config" for name, *_ in parts)
        return []
    return [Extra(name, count(sub_reader(r, f"{name}_config", family,
                                         f"the {name} (enable_audio_output is true)")),
                  True, note) for name, family, count, note in parts]


def qwen3_omni_moe(r: Reader) -> dict[str, Any]:
    # Qwen3OmniMoeForConditionalGeneration (transformers 5.24.0): the thinker in thinker_config
    # (a Qwen3-MoE language model in its text_config, Qwen3-VL's vision encoder, an audio
    # encoder), and with enable_audio_output the talker and the codec decoder
    th = sub_reader(r, "thinker_config", "qwen3_omni_moe_thinker",
                    "the thinker (language model, vision and audio encoders)")
    kw = wrapped_text(th, "qwen3_moe")
    d = kw["d_model"]
    vr = vision_reader(th, "qwen3_omni_moe_vision")
    # video: Qwen2VLVideoProcessor (not Qwen3-VL's), per frame within the processor's limits
    rule = replace(qwen3_vl_image_rule(vr, d), min_pixels=QWEN3_OMNI_PIXELS[0],
                   max_pixels=QWEN3_OMNI_PIXELS[1], video="qwen2_vl",
                   video_min_pixels=QWEN3_OMNI_VIDEO_PIXELS[0],
                   video_max_pixels=QWEN3_OMNI_VIDEO_PIXELS[1], heads_key=VISION_HEADS_KEY)
    ar = sub_reader(th, "audio_config", "qwen3_omni_moe_audio_encoder", "the audio encoder")
    extras = [Extra("vision tower and mergers", qwen3_vl_vision_params(vr, d), True,
                    "Qwen3-Omni's vision encoder (Qwen3-VL's, with deepstack mergers)",
                    image=rule),
              Extra("audio encoder", qwen3_omni_audio_params(ar, d), True,
                  "Qwen3-Omni's audio encoder (AuT: convolutional downsampling, 32 "
                  "Whisper-style blocks, a projection into the language model)",
                    audio=omni_audio_rule(ar, "qwen3_omni"))]
    extras += speech_extras(r, (
        ("talker", "qwen3_omni_moe_talker", lambda s: qwen3_omni_talker_params(s, d),
         "the talker: a small mixture-of-experts decoder that writes speech codes from the "
         "thinker's states, with its multi-codebook code predictor; it runs only when speech "
         "output is asked for"),
        ("code2wav", "qwen3_omni_moe_code2wav", qwen3_omni_code2wav_params,
         "the codec decoder that turns speech codes into a waveform (transformer, upsampling "
         "convolutions); speech output only")))
    th.check_unread()
    kw["extras"] = (*kw.get("extras", ()), *extras)
    return kw


# ---- Qwen2.5-Omni (qwen2_5_omni; FAMILIES.md section 17.47) -------------------------------------
def qwen2_5_omni_audio_params(r: Reader, d_text: int) -> int:
    """Parameters of Qwen2.5-Omni's audio encoder (Qwen2_5OmniAudioEncoder, transformers
    5.24.0; Qwen2-Audio's Whisper encoder): ``conv1`` (mels -> d, kernel 3) and ``conv2``
    (d -> d, kernel 3) with biases; a two-row embedding of audio begin/end markers of
    ``output_dim``; ``encoder_layers`` Whisper blocks (q, v, out d x d with biases, k without;
    ``fc1`` and ``fc2`` with biases; two LayerNorms); ``ln_post``; ``proj`` d -> ``output_dim``
    with bias (the language model's width). Sinusoidal positions are not stored.

    >>> qwen2_5_omni_audio_params(Reader({"d_model": 1280, "encoder_layers": 32,
    ...     "encoder_ffn_dim": 5120, "encoder_attention_heads": 20, "num_mel_bins": 128,
    ...     "output_dim": 3584}, "a", "a"), 3584)
    639647232
    """
    d = r.int("d_model", 1280)
    layers = r.int("encoder_layers", 32, kind="layers")
    ffn = r.int("encoder_ffn_dim", 5120)
    heads = r.int("encoder_attention_heads", 20, kind="heads")
    if d % heads:
        raise ConfigError(f"{r.origin}: field 'encoder_attention_heads' ({heads}) does not "
                          f"divide 'd_model' ({d})")
    mels = r.int("num_mel_bins", 128, kind="count")
    out = r.int("output_dim", 3584)
    r.int("n_window", 100, kind="count")  # the chunks (catalog.audio) change no weight
    if out != d_text:
        raise ConfigError(f"{r.origin}: field 'output_dim' ({out}) differs from the language "
                          f"model's hidden size ({d_text})")
    r.check_unread()
    block = 4 * d * d + 3 * d + 2 * 2 * d + (d * ffn + ffn) + (ffn * d + d)
    return ((mels * d * 3 + d) + (d * d * 3 + d) + 2 * out + layers * block + 2 * d
            + (d * out + out))


def qwen2_5_omni_talker_params(r: Reader, d_thinker: int) -> int:
    """Parameters of Qwen2.5-Omni's talker (Qwen2_5OmniTalkerForConditionalGeneration,
    transformers 5.24.0): a projection from the thinker (``embedding_size`` -> hidden, with
    bias), codec embeddings of ``vocab_size`` x ``embedding_size``, Qwen2 blocks (q, k, v with
    biases and heads ``head_dim`` wide, o without, two RMSNorms, a gated MLP of
    ``intermediate_size``), a final RMSNorm and the codec head (hidden -> ``vocab_size``).

    >>> qwen2_5_omni_talker_params(Reader({"hidden_size": 896, "num_hidden_layers": 24,
    ...     "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 128,
    ...     "intermediate_size": 18944, "vocab_size": 8448, "embedding_size": 3584}, "t", "t"),
    ...     3584)
    1351360256
    """
    e = r.int("embedding_size", 3584)
    if e != d_thinker:
        raise ConfigError(f"{r.origin}: field 'embedding_size' ({e}) differs from the thinker's "
                          f"hidden size ({d_thinker})")
    d = r.int("hidden_size", 3584)
    n = r.int("num_hidden_layers", 28, kind="layers")
    h = r.int("num_attention_heads", 28, kind="heads")
    hkv = r.int("num_key_value_heads", 4, kind="heads")
    if h % hkv:
        raise ConfigError(f"{r.origin}: field 'num_key_value_heads' ({hkv}) does not divide "
                          f"'num_attention_heads' ({h})")
    dh = r.int("head_dim", 128)
    ff = r.int("intermediate_size", 18944)
    vocab = r.int("vocab_size", 8448, kind="vocab")
    if r.flag("tie_word_embeddings", False):
        raise ConfigError(f"{r.origin}: field 'tie_word_embeddings' = True is not supported: "
                          "the talker's codec head is counted untied, as Qwen's checkpoint "
                          "holds it")
    # windows change no weight, and the talker's steps are not modelled
    r.str_list("layer_types", n, ("full_attention", "sliding_attention"))
    r.read.update({"use_sliding_window", "sliding_window", "max_window_layers", "rope_scaling",
                   "rope_parameters", "rope_theta"})
    r.check_unread()
    block = (d * h * dh + h * dh) + 2 * (d * hkv * dh + hkv * dh) + h * dh * d + 3 * d * ff + 2 * d
    return (e * d + d) + vocab * e + n * block + d + d * vocab


def _legacy(r: Reader, key: str, legacy: str, default: int, kind: str) -> int:
    """``key`` as transformers 5.24.0 builds it (its class default where absent). Qwen's file
    names the DiT's sizes ``dim``, ``depth`` and ``heads``, which the 5.24.0 class keeps but does
    not build from: such a key must agree with what is built, or the file describes another
    model than the one transformers builds."""
    v = r.int(key, default, kind=kind)
    if r.has(legacy) and r.int(legacy, kind=kind) != v:
        raise ConfigError(f"{r.origin}: field '{legacy}' ({r.int(legacy, kind=kind)}) differs "
                          f"from '{key}' ({v}), which transformers builds the DiT from (it "
                          f"reads no '{legacy}')")
    return v


def _ecapa_params(r: Reader, mel: int) -> int:
    """Qwen2.5-Omni's ECAPA-TDNN speaker encoder (``enc_*`` keys of ``dit_config``): a TDNN
    (Conv1d with bias) mel -> c0; per middle channel count an SE-Res2Net block (1 x 1 TDNN,
    scale - 1 Res2Net TDNNs of c/scale, 1 x 1 TDNN, squeeze-excitation convolutions c -> se -> c,
    all with biases); a 1 x 1 aggregation TDNN over the concatenated blocks; attentive
    statistics pooling (3c -> attention -> c); a 1 x 1 convolution 2c -> ``enc_dim``."""
    channels = r.int_list("enc_channels", [256, 256, 256, 256, 768])
    kernels = r.int_list("enc_kernel_sizes", [5, 3, 3, 3, 1])
    for key, values in (("enc_kernel_sizes", kernels),
                        ("enc_dilations", r.int_list("enc_dilations", [1, 2, 3, 4, 1]))):
        if len(values) != len(channels):
            raise ConfigError(f"{r.origin}: field '{key}' has {len(values)} entries for "
                              f"{len(channels)} 'enc_channels' (one per encoder layer)")
    if len(channels) < 3 or any(c < 1 for c in channels) or any(k < 1 for k in kernels):
        raise ConfigError(f"{r.origin}: field 'enc_channels' must list at least three positive "
                          "channel counts (with as many positive kernel sizes and dilations)")
    scale = r.int("enc_res2net_scale", 2, kind="count")
    se = r.int("enc_se_channels", 64)
    att = r.int("enc_attention_channels", 64)
    out = r.int("enc_dim", 128)
    last = channels[-1]
    if sum(channels[1:-1]) != last:
        raise ConfigError(f"{r.origin}: field 'enc_channels': the aggregation layer takes the "
                          f"middle blocks' {sum(channels[1:-1])} channels as {last}")
    total = mel * channels[0] * kernels[0] + channels[0]
    for cin, c, k in zip(channels[:-2], channels[1:-1], kernels[1:-1]):
        if c % scale or cin % scale:
            raise ConfigError(f"{r.origin}: field 'enc_res2net_scale' ({scale}) does not divide "
                              f"the channels ({c})")
        part = c // scale
        total += ((cin * c + c) + (scale - 1) * (part * part * k + part) + (c * c + c)
                  + (c * se + se) + (se * c + c))
    total += last * last * kernels[-1] + last
    total += (3 * last * att + att) + (att * last + last)
    return total + 2 * last * out + out


def qwen2_5_omni_token2wav_params(r: Reader) -> int:
    """Parameters of Qwen2.5-Omni's token2wav (Qwen2_5OmniToken2WavModel, transformers 5.24.0,
    held in fp32): the DiT (``dit_config``: a timestep MLP 256 -> D -> D; a codec embedding of
    ``num_embeds`` + 1 rows of ``emb_dim``; an input projection of mel + ``enc_dim`` +
    ``enc_emb_dim`` + ``emb_dim`` -> D and the ECAPA-TDNN speaker encoder; ``num_hidden_layers``
    blocks of an adaptive LayerNorm (D -> 6D), q, k, v, out with biases (heads x ``head_dim``
    wide) and an MLP D -> ``ff_mult`` D -> D with biases; a final adaptive norm D -> 2D and a
    projection D -> mel) and BigVGAN (``bigvgan_config``: a kernel-7 convolution mel -> C; per
    upsample rate a transposed convolution halving the channels; per rate and residual kernel
    an AMP block of six convolutions and six SnakeBetas; a SnakeBeta and a kernel-7 convolution
    to one channel without bias).

    >>> qwen2_5_omni_token2wav_params(Reader({"dit_config": {}, "bigvgan_config": {}}, "w", "w"))
    449051264
    """
    dit = sub_reader(r, "dit_config", "qwen2_5_omni_dit", "the token2wav DiT")
    d = _legacy(dit, "hidden_size", "dim", 1024, "width")
    n = _legacy(dit, "num_hidden_layers", "depth", 22, "layers")
    inner = _legacy(dit, "num_attention_heads", "heads", 16, "heads") * dit.int("head_dim", 64)
    mult = dit.int("ff_mult", 2, kind="count")
    emb = dit.int("emb_dim", 512)
    mel = dit.int("mel_dim", 80)
    codes = dit.int("num_embeds", 8193, kind="vocab")
    spk = dit.int("enc_emb_dim", 192)
    time = 256 * d + d + d * d + d
    inputs = (mel + dit.int("enc_dim", 128) + spk + emb) * d + d + _ecapa_params(dit, mel)
    block = (d * 6 * d + 6 * d) + 3 * (d * inner + inner) + (inner * d + d) \
        + (d * mult * d + mult * d) + (mult * d * d + d)
    dit.read.update({"look_ahead_layers", "look_backward_layers", "block_size", "repeats",
                     "max_position_embeddings", "rope_theta", "rope_parameters"})
    dit.check_unread()
    dit_total = (time + (codes + 1) * emb + inputs + n * block + (d * 2 * d + 2 * d)
                 + (d * mel + mel))
    g = sub_reader(r, "bigvgan_config", "qwen2_5_omni_bigvgan", "the token2wav BigVGAN vocoder")
    gmel = g.int("mel_dim", 80)
    if gmel != mel:
        raise ConfigError(f"{g.origin}: field 'mel_dim' ({gmel}) differs from the DiT's ({mel})")
    c0 = g.int("upsample_initial_channel", 1536)
    rates = g.int_list("upsample_rates", [5, 3, 2, 2, 2, 2])
    ks = g.int_list("upsample_kernel_sizes", [11, 7, 4, 4, 4, 4], n=len(rates))
    rk = g.int_list("resblock_kernel_sizes", [3, 7, 11])
    dil = g.raw("resblock_dilation_sizes", [[1, 3, 5]] * len(rk))
    if not (isinstance(dil, list) and len(dil) == len(rk)
            and all(isinstance(x, list) and len(x) == 3 for x in dil)):
        raise ConfigError(f"{g.origin}: field 'resblock_dilation_sizes' must list three "
                          "dilations per residual kernel size")
    if not rates or c0 % 2 ** len(rates):
        raise ConfigError(f"{g.origin}: field 'upsample_initial_channel' ({c0}) must halve once "
                          f"per upsample rate ({len(rates)} rates)")
    g.check_unread()
    voc = gmel * c0 * 7 + c0
    for i, k in enumerate(ks):
        cin, c = c0 // 2 ** i, c0 // 2 ** (i + 1)
        voc += cin * c * k + c + sum(6 * (c * c * kr + c) + 6 * 2 * c for kr in rk)
    last = c0 // 2 ** len(rates)
    return dit_total + voc + 2 * last + last * 7


def qwen2_5_omni(r: Reader) -> dict[str, Any]:
    # Qwen2_5OmniForConditionalGeneration (transformers 5.24.0): the thinker in thinker_config
    # (Qwen2.5's language model in its text_config, Qwen2.5-VL's vision encoder, Qwen2-Audio's
    # audio encoder; the thinker's tie_word_embeddings, default false, ties its head), and with
    # enable_audio_output the talker and token2wav
    th = sub_reader(r, "thinker_config", "qwen2_5_omni_thinker",
                    "the thinker (language model, vision and audio encoders)")
    tied = th.flag("tie_word_embeddings", False)
    tr = Reader({**th.cfg, "tie_word_embeddings": tied}, th.origin, th.family)
    kw = wrapped_text(tr, "qwen2_5_vl_text")
    th.read |= tr.read
    d = kw["d_model"]
    vr = vision_reader(th, "qwen2_5_vl_vision")
    ar = sub_reader(th, "audio_config", "qwen2_5_omni_audio_encoder", "the audio encoder")
    # the class has no embed_dim; a file's copy of the width must agree with hidden_size
    if "embed_dim" in vr.cfg and vr.cfg.get("embed_dim") == vr.cfg.get("hidden_size", 3584):
        vr = Reader({k: v for k, v in vr.cfg.items() if k != "embed_dim"}, vr.origin, vr.family)
    # video: Qwen2VLVideoProcessor, per frame within the processor's limits
    extras = [Extra("vision tower and merger", qwen2_5_vl_vision_params(vr, d), True,
                    "Qwen2.5-Omni's vision encoder (Qwen2.5-VL's window-attention ViT and patch "
                    "merger)", image=replace(qwen2_vl_image_rule(vr, "qwen2_5_vl_vision"),
                                             video_min_pixels=QWEN2_5_OMNI_VIDEO_PIXELS[0],
                                             video_max_pixels=QWEN2_5_OMNI_VIDEO_PIXELS[1],
                                             heads_key=VISION_HEADS_KEY)),
              Extra("audio encoder", qwen2_5_omni_audio_params(ar, d), True,
                  "Qwen2.5-Omni's audio encoder (Qwen2-Audio's Whisper-style encoder, 32 "
                  "blocks, a projection into the language model)",
                    audio=omni_audio_rule(ar, "qwen2_audio"))]
    vr.check_unread()
    r.flag("enable_talker", True)  # a leftover flag: transformers reads enable_audio_output
    extras += speech_extras(r, (
        ("talker", "qwen2_5_omni_talker", lambda s: qwen2_5_omni_talker_params(s, d),
         "the talker: a small dense decoder that writes speech codes from the thinker's states; "
         "it runs only when speech output is asked for"),
        ("token2wav", "qwen2_5_omni_token2wav", qwen2_5_omni_token2wav_params,
         "token2wav: a DiT that turns speech codes into a mel spectrogram and a BigVGAN vocoder, "
         "held in fp32; speech output only")))
    th.check_unread()
    kw["extras"] = (*kw.get("extras", ()), *extras)
    return kw
