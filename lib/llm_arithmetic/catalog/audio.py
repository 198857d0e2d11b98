"""How many tokens a clip of audio adds to a prompt, and what the audio encoder runs for it:
the omni models' processors and encoders as transformers 5.24.0 writes them.

Both processors take 16 kHz audio through ``WhisperFeatureExtractor``
(``models/whisper/feature_extraction_whisper.py``): a mel spectrogram with a hop of 160
samples, 100 frames a second. Its attention mask, which the processors sum into the clip's
frames, holds ceil(N / 160) of N samples when the clip is padded to a length that is a
multiple of the hop, and floor(N / 160) when it is padded to its own length (the extractor
drops the mask's last entry then).

* ``qwen2_audio`` (Qwen2.5-Omni: ``models/qwen2_5_omni/processing_qwen2_5_omni.py``
  ``Qwen2_5OmniProcessor.__call__`` sets the feature extractor's ``padding`` to
  ``"max_length"``, huggingface/transformers@01841b341b64ab547cd2e30f09cb9c74929f50f2; the
  extractor pads and, with its default ``truncation=True``, truncates every clip to
  ``max_length or n_samples``, ``n_samples = chunk_length * sampling_rate``,
  ``models/whisper/feature_extraction_whisper.py`` ``WhisperFeatureExtractor.__call__`` @
  2b8974103c658294f0a354ec9bdb45c120ea8d6b): 4,800,000 samples, ``chunk_length`` 300 s in the
  checkpoint's ``preprocessor_config.json``, as a walk through Qwen2.5-Omni-7B's audio path
  shows a 20 s clip padded to 4,800,000 samples and 30,000 mel frames, 2,097 of them unmasked
  (https://harmonyhu.com/2025/04/17/qwen2.5o), so at most 30,000 frames;
  ``_get_feat_extract_output_lengths``: a stride-2
  convolution then a stride-2 average pool, (((F - 1) // 2 + 1) - 2) // 2 + 1 tokens, 25 a
  second. The encoder (``modeling_qwen2_5_omni.py`` ``Qwen2_5OmniAudioEncoder.forward``) cuts
  the frames into chunks of 2 ``n_window`` (200: 2 s), pads them to the longest, runs
  ``conv1`` (kernel 3, stride 1, mels -> d) and ``conv2`` (kernel 3, stride 2, d -> d) over
  the padded chunks, then its blocks over each chunk's (L - 1) // 2 + 1 positions, attention
  within the chunk (``get_audio_cu_seqlens``), pools pairs and projects d -> the language
  model's width.
* ``qwen3_omni`` (Qwen3-Omni's AuT: ``models/qwen3_omni_moe/processing_qwen3_omni_moe.py``,
  ``padding`` True and ``truncation`` False, so no cap): chunks of 2 ``n_window`` (100: 1 s)
  through three 3 x 3 stride-2 Conv2d over (mels x time) and ``conv_out`` (channels x
  frequency -> d) on the padded chunks, 13 positions a full chunk
  (``_get_feat_extract_output_lengths``: 13 a second, the remainder's three halvings beside);
  the blocks attend within windows of ``n_window_infer`` / (2 ``n_window``) chunks' positions
  (800 / 100 = 8: 104 positions; ``get_audio_cu_seqlens``); then ``proj1`` (d -> d) and
  ``proj2`` (d -> the language model's width) per token.

The processors write ``<|AUDIO|>`` once per token; the ``<|audio_bos|>`` and ``<|audio_eos|>``
around them come from the chat template, not the processor, and are not counted (as the
vision start and end markers around an image are not).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..core.errors import ConfigError

__all__ = ["AudioRule", "AudioWork", "audio_frames", "audio_tokens", "audio_work",
           "audio_encoder", "AUDIO_SAMPLE_RATE", "AUDIO_HOP", "AUDIO_SECONDS_LIMIT",
           "MODELLED_AUDIO_FAMILIES", "AUDIO_RULES"]

#: Samples a second the feature extractor takes, and samples per mel frame (its hop).
AUDIO_SAMPLE_RATE, AUDIO_HOP = 16000, 160
#: The longest clip the library and the command line accept [s] (a day).
AUDIO_SECONDS_LIMIT = 86400
#: The families whose audio rule is modelled.
MODELLED_AUDIO_FAMILIES = ("Qwen2.5-Omni", "Qwen3-Omni")
#: The audio rules :class:`AudioRule` knows.
AUDIO_RULES = ("qwen2_audio", "qwen3_omni")


@dataclass(frozen=True)
class AudioRule:
    """An audio encoder's inputs to :func:`audio_work`, read from ``audio_config``: the rule
    (:data:`AUDIO_RULES`), ``width`` (``d_model``), ``layers``, ``ffn``, ``mels``,
    ``n_window`` (half a chunk, in frames), ``n_window_infer`` (Qwen3-Omni's attention window,
    in frames), ``channels`` (Qwen3-Omni's ``downsample_hidden_size``), ``output_dim`` (the
    language model's width), ``max_frames`` (the feature extractor's cap; 0: none), ``heads``
    and ``split``: whether vLLM splits the blocks over a tensor-parallel group (Qwen3-Omni's
    vLLM-native encoder: QKVParallelLinear, Column/RowParallelLinear; Qwen2.5-Omni's is
    transformers' own module, whole on every chip)."""

    rule: str
    width: int
    layers: int
    ffn: int
    mels: int
    n_window: int
    output_dim: int
    heads: int
    n_window_infer: int = 0
    channels: int = 0
    max_frames: int = 0
    split: bool = False

    def __post_init__(self) -> None:
        if self.rule not in AUDIO_RULES:
            raise ConfigError(f"audio rule {self.rule!r} is not one of {', '.join(AUDIO_RULES)}")
        if self.rule == "qwen3_omni" and (self.n_window_infer < 2 * self.n_window
                                          or not self.channels):
            raise ConfigError("audio rule: qwen3_omni needs n_window_infer >= 2 n_window and "
                              "downsample channels")


@dataclass(frozen=True)
class AudioWork:
    """What one clip gives (:func:`audio_work`); the blocks' weights and the two FLOP counts
    are what :func:`~llm_arithmetic.media.encoder_split` places on the chips.

    Attributes
    ----------
    frames : int
        Mel frames the feature extractor makes of the clip, 100 a second [frame].
    tokens : int
        ``<|AUDIO|>`` tokens the clip adds to the prompt [token].
    rows : int
        Positions the encoder's blocks run, summed over the chunks [position].
    pairs : int
        Query-key pairs one block's attention takes, summed over its chunks or windows [pair].
    flops : int
        The encoder's FLOPs over the clip: convolutions, blocks and the projections to the
        language model's width [FLOP].
    around_flops : int
        Of ``flops``, the convolutions and projections around the blocks, which a
        tensor-parallel engine that splits the blocks keeps whole on every chip [FLOP].
    block_params : int
        The blocks' weights in matrix products [parameter].
    """

    frames: int
    tokens: int
    rows: int
    pairs: int
    flops: int
    around_flops: int
    block_params: int


def audio_frames(rule: AudioRule, seconds: float) -> int:
    """Mel frames of ``seconds`` of audio as the processor's feature extractor counts them.

    >>> r = AudioRule("qwen2_audio", 1280, 32, 5120, 128, 100, 3584, 20, max_frames=30000)
    >>> audio_frames(r, 1.005), audio_frames(r, 400)
    (101, 30000)
    """
    n = round(seconds * AUDIO_SAMPLE_RATE)
    if rule.rule == "qwen2_audio":
        f = -(-n // AUDIO_HOP)
        return min(f, rule.max_frames) if rule.max_frames else f
    return n // AUDIO_HOP


def _halve(n: int) -> int:
    """A stride-2 kernel-3 convolution's output length (padding 1)."""
    return (n - 1) // 2 + 1


def audio_tokens(rule: AudioRule, frames: int) -> int:
    """The processor's ``_get_feat_extract_output_lengths`` of ``frames``.

    >>> r = AudioRule("qwen3_omni", 1280, 32, 5120, 128, 50, 2048, 20, 800, 480)
    >>> audio_tokens(r, 1000), audio_tokens(r, 150)
    (130, 20)
    """
    if rule.rule == "qwen2_audio":
        return (_halve(frames) - 2) // 2 + 1
    chunk = 2 * rule.n_window  # 13 a full chunk: its three halvings
    return _halve(_halve(_halve(frames % chunk))) + (frames // chunk) * _halve(
        _halve(_halve(chunk)))


def audio_work(rule: AudioRule, seconds: float) -> AudioWork:
    """The tokens and the encoder's work for ``seconds`` of audio under ``rule``.

    >>> r = AudioRule("qwen2_audio", 1280, 32, 5120, 128, 100, 3584, 20, max_frames=30000)
    >>> w = audio_work(r, 10)
    >>> w.frames, w.tokens, w.rows, w.pairs
    (1000, 250, 500, 50000)
    """
    frames = audio_frames(rule, seconds)
    tokens = audio_tokens(rule, frames)
    if tokens < 1:
        raise ConfigError(f"{seconds:g} s of audio gives {frames} mel frames and no token")
    d, ffn, out = rule.width, rule.ffn, rule.output_dim
    chunk = 2 * rule.n_window
    lens = [chunk] * (frames // chunk) + ([frames % chunk] if frames % chunk else [])
    longest, c = max(lens), len(lens)
    block = 4 * d * d + 2 * d * ffn
    if rule.rule == "qwen2_audio":
        rows_each = [_halve(x) for x in lens]
        rows = sum(rows_each)
        pairs = sum(r * r for r in rows_each)
        convs = 2 * 3 * rule.mels * d * longest * c + 2 * 3 * d * d * _halve(longest) * c
        around = convs + 2 * d * out * tokens
    else:
        rows = tokens
        t1, f1 = _halve(longest), _halve(rule.mels)
        t2, f2 = _halve(t1), _halve(f1)
        t3, f3 = _halve(t2), _halve(f2)
        ch = rule.channels
        convs = (2 * 9 * ch * f1 * t1 + 2 * 9 * ch * ch * (f2 * t2 + f3 * t3)) * c
        convs += 2 * ch * f3 * d * t3 * c                       # conv_out on padded chunks
        window = t3 * (rule.n_window_infer // chunk)
        pairs = (rows // window) * window * window + (rows % window) ** 2
        around = convs + 2 * (d * d + d * out) * tokens
    blocks = rule.layers * (2 * block * rows + 4 * d * pairs)
    return AudioWork(frames=frames, tokens=tokens, rows=rows, pairs=pairs,
                     flops=around + blocks, around_flops=around,
                     block_params=rule.layers * block)


def audio_encoder(model: Any) -> tuple[Any, AudioRule]:
    """(the extra, its :class:`AudioRule`) of the model's audio encoder; a
    :class:`ConfigError` naming the model where it has none or its rule is not modelled.

    >>> from llm_arithmetic import get_model
    >>> audio_encoder(get_model("qwen2.5-omni-7b"))[1].rule
    'qwen2_audio'
    >>> audio_encoder(get_model("llama-2-7b"))
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.ConfigError: llama-2-7b takes no audio; --audio-seconds (audio_seconds) needs a model whose audio encoder is modelled (Qwen2.5-Omni, Qwen3-Omni)
    """
    for x in model.extras:
        if getattr(x, "audio", None) is not None:
            return x, x.audio
    has = any("audio" in x.name for x in model.extras)
    what = (": the rule of its audio encoder is not modelled" if has else " takes no audio")
    raise ConfigError(f"{model.name}{what}; --audio-seconds (audio_seconds) needs a model "
                      f"whose audio encoder is modelled ({', '.join(MODELLED_AUDIO_FAMILIES)})")
