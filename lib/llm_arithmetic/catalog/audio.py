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

* ``gemma3n`` (Gemma 3n) and ``gemma4`` (Gemma 4 E2B, E4B): their own feature extractors
  (``models/gemma3n/feature_extraction_gemma3n.py``, ``models/gemma4/feature_extraction_gemma4.py``,
  class defaults, which the catalog's checkpoints are taken to keep) pad a clip to a multiple
  of 128 samples and, with ``max_length`` 480,000 and ``truncation=True``, keep its first 30 s;
  a frame every 160 samples over a window of 512 samples (Gemma 3n: (N - 513) // 160 + 1
  frames of the padded N) or of 320 samples after 160 zeros on the left (Gemma 4:
  (N - 161) // 160 + 1). The encoder (``Gemma3nAudioEncoder``, ``Gemma4AudioModel``, a USM
  conformer) runs two 3 x 3 stride-2 convolutions (1 -> c0 -> c1 channels over time and the
  mel bins, padding 1), a projection c1 (bins / 4) -> h, so ceil(F / 4) positions, 25 a
  second, then its layers over every position: two macaron feed-forward blocks (h -> 4h ->
  h), q, k, v and an output projection, a relative-position projection of the 13 offsets
  (``conf_attention_context_left`` - 1 + right + 1), attention in blocks of 12 queries over
  a context of 24 keys (12 + 12 left + 0 right, the masked ones computed too), a light
  convolution (h -> 2h gated, depthwise kernel, h -> h). Gemma 3n keeps every 4th position
  (``conf_reduction_factor``) and its embedder projects them h -> the text width; its
  processor writes 188 audio tokens (``audio_seq_length``, the config's
  ``audio_soft_tokens_per_image``) whatever the clip, and the model pads the encoder's
  output to that many (``Gemma3nModel.forward``). Gemma 4 projects h -> ``output_proj_dims``
  and its embedder that to the text width at every position; its processor writes one token
  a position whose mel frames are all real audio (``Gemma4Processor.replace_audio_token``):
  ceil(((N - 1) // 160) / 4) of the clip's N samples, at most 750 (30 s). transformers
  5.24.0, checked against the extractors on silence and ``FlopCounterMode`` on the encoders
  (tests/test_audio.py). vLLM builds both encoders through transformers' ``AutoModel`` and
  runs them whole on every chip (vllm-project/vllm@49e6e4739167b1c261e06909e08f0b50dd576be4
  ``gemma4_mm.py``; @0baf3651af91f366c5f0b2bd1f43b6d70a9e2718 ``gemma3n_mm.py``, which also
  fixes ``TOKENS_PER_AUDIO = 188``). Gemma's processors also write the begin and end markers
  around the tokens (``boa``, ``eoa``; Gemma 3n blank lines too): not counted, as below.

The processors write ``<|AUDIO|>`` once per token; the ``<|audio_bos|>`` and ``<|audio_eos|>``
around them come from the chat template, not the processor, and are not counted (as the
vision start and end markers around an image are not); around a video's audio track the omni
processors write them, and :func:`~llm_arithmetic.media.video_audio_inputs`' caller counts
those (:data:`~llm_arithmetic.catalog.video.VIDEO_AUDIO_MARKERS`).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .. import numeric as N
from ..core.errors import ConfigError

__all__ = ["AudioRule", "AudioWork", "audio_frames", "audio_tokens", "audio_work",
           "audio_encoder", "AUDIO_SAMPLE_RATE", "AUDIO_HOP", "AUDIO_SECONDS_LIMIT", "AUDIO_CLIPS_LIMIT",
           "MODELLED_AUDIO_FAMILIES", "AUDIO_RULES", "GEMMA_MAX_SAMPLES", "clip_cap",
           "samples_kept", "clip_list"]

#: Samples a second the feature extractor takes, and samples per mel frame (its hop).
AUDIO_SAMPLE_RATE, AUDIO_HOP = 16000, 160
#: The longest clip the library and the command line accept [s] (a day).
AUDIO_SECONDS_LIMIT = 86400
#: The most clips one prompt's audio may hold (a plausibility limit: 4,096 voice turns).
AUDIO_CLIPS_LIMIT = 4096
#: The families whose audio rule is modelled.
MODELLED_AUDIO_FAMILIES = ("Qwen2.5-Omni", "Qwen3-Omni", "Gemma 3n", "Gemma 4 E2B/E4B")
#: The audio rules :class:`AudioRule` knows.
AUDIO_RULES = ("qwen2_audio", "qwen3_omni", "gemma3n", "gemma4")
#: Gemma's feature extractors: the samples they keep of a clip (30 s), the multiple they pad
#: it to, and each rule's (analysis window + 1 - left padding) in samples [sample].
GEMMA_MAX_SAMPLES, GEMMA_PAD_MULTIPLE = 480_000, 128
GEMMA_FRAME_SPAN = {"gemma3n": 513, "gemma4": 161}


@dataclass(frozen=True)
class AudioRule:
    """An audio encoder's inputs to :func:`audio_work`, read from ``audio_config``: the rule
    (:data:`AUDIO_RULES`), ``width`` (``d_model``), ``layers``, ``ffn``, ``mels``,
    ``n_window`` (half a chunk, in frames), ``n_window_infer`` (Qwen3-Omni's attention window,
    in frames), ``channels`` (Qwen3-Omni's ``downsample_hidden_size``), ``output_dim`` (the
    language model's width), ``max_frames`` (the feature extractor's cap; 0: none), ``heads``;
    Gemma's conformer (``n_window`` its attention block, 12): ``context_left`` and
    ``context_right`` (``attention_context_left/right``), ``kernel`` (the light convolution's),
    ``sub_channels`` (c0, c1 of the subsampling convolutions), ``proj_dim`` (Gemma 4's
    ``output_proj_dims``; 0: none), ``reduction`` (Gemma 3n's ``conf_reduction_factor``),
    ``soft_tokens`` (Gemma 3n's fixed tokens a clip); and ``split``: whether vLLM splits the
    blocks over a tensor-parallel group (Qwen3-Omni's
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
    context_left: int = 0
    context_right: int = 0
    kernel: int = 0
    sub_channels: tuple[int, int] = (0, 0)
    proj_dim: int = 0
    reduction: int = 1
    soft_tokens: int = 0

    def __post_init__(self) -> None:
        if self.rule not in AUDIO_RULES:
            raise ConfigError(f"audio rule {self.rule!r} is not one of {', '.join(AUDIO_RULES)}")
        if self.rule == "qwen3_omni" and (self.n_window_infer < 2 * self.n_window
                                          or not self.channels):
            raise ConfigError("audio rule: qwen3_omni needs n_window_infer >= 2 n_window and "
                              "downsample channels")
        if self.rule in ("gemma3n", "gemma4") and (self.context_left < 1 or not self.kernel
                                                   or min(self.sub_channels) < 1):
            raise ConfigError(f"audio rule: {self.rule} needs a left context, a convolution "
                              "kernel and two subsampling channel counts")


@dataclass(frozen=True)
class AudioWork:
    """What a prompt's clips give (:func:`audio_work`; one clip or several, summed); the
    blocks' weights and the two FLOP counts are what
    :func:`~llm_arithmetic.media.encoder_split` places on the chips.

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
        language model's width (:data:`~llm_arithmetic.formulas.audio.audio_prefill_flops`)
        [FLOP].
    around_flops : int
        Of ``flops``, the convolutions and projections around the blocks, which a
        tensor-parallel engine that splits the blocks keeps whole on every chip
        (:data:`~llm_arithmetic.formulas.audio.audio_around_flops`) [FLOP].
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


def clip_cap(rule: AudioRule) -> tuple[int, str] | None:
    """The most samples of a clip the feature extractor keeps [sample], and that cap as the
    processor states it (mel frames or samples); None where it keeps the whole clip.

    >>> clip_cap(AudioRule("qwen2_audio", 1280, 32, 5120, 128, 100, 3584, 20, max_frames=30000))
    (4800000, '30,000 mel frames')
    """
    if rule.rule in GEMMA_FRAME_SPAN:
        return GEMMA_MAX_SAMPLES, f"{GEMMA_MAX_SAMPLES:,} samples"
    if rule.max_frames:
        return rule.max_frames * AUDIO_HOP, f"{rule.max_frames:,} mel frames"
    return None


def samples_kept(rule: AudioRule, seconds: float) -> int:
    """The samples of ``seconds`` of audio the feature extractor keeps (:func:`clip_cap`)."""
    n = round(seconds * AUDIO_SAMPLE_RATE)
    cap = clip_cap(rule)
    return n if cap is None else min(n, cap[0])


def audio_frames(rule: AudioRule, seconds: float) -> int:
    """Mel frames of ``seconds`` of audio as the processor's feature extractor counts them.

    >>> r = AudioRule("qwen2_audio", 1280, 32, 5120, 128, 100, 3584, 20, max_frames=30000)
    >>> audio_frames(r, 1.005), audio_frames(r, 400)
    (101, 30000)
    """
    n = samples_kept(rule, seconds)
    if rule.rule in GEMMA_FRAME_SPAN:
        n = -(-n // GEMMA_PAD_MULTIPLE) * GEMMA_PAD_MULTIPLE
        return max(0, (n - GEMMA_FRAME_SPAN[rule.rule]) // AUDIO_HOP + 1)
    if rule.rule == "qwen2_audio":  # the mask holds ceil(N / hop) of a clip padded to a multiple
        return -(-n // AUDIO_HOP)
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
    if rule.rule in GEMMA_FRAME_SPAN:
        raise ConfigError(f"audio rule {rule.rule}: its tokens follow from the clip's samples, "
                          "not its frames: audio_work")
    if rule.rule == "qwen2_audio":
        return (_halve(frames) - 2) // 2 + 1
    chunk = 2 * rule.n_window  # 13 a full chunk: its three halvings
    return _halve(_halve(_halve(frames % chunk))) + (frames // chunk) * _halve(
        _halve(_halve(chunk)))


def _gemma_work(rule: AudioRule, seconds: float, batch: int = 1) -> AudioWork:
    """:func:`audio_work` for Gemma 3n and Gemma 4 (the module's docstring): the counts
    :data:`~llm_arithmetic.formulas.audio.audio_prefill_flops` takes for the conformer, matrix
    products and convolutions as the encoder runs them; the norms, softmax, soft cap,
    activations and the relative shift are left out. ``batch``: the encoder runs that many
    clips padded to this one's length, every position's work ``batch`` times, the projection
    of the relative offsets' embeddings once (the clip's own frames and tokens are given)."""
    frames = audio_frames(rule, seconds)
    h, mels, (c0, c1) = rule.width, rule.mels, rule.sub_channels
    t1 = _halve(frames)
    rows = _halve(t1)  # the blocks' positions: ceil(frames / 4)
    if rule.rule == "gemma3n":
        tokens, kept = rule.soft_tokens, -(-rows // rule.reduction)
    else:
        tokens = kept = -(-((samples_kept(rule, seconds) - 1) // AUDIO_HOP) // 4)
    if frames < 1 or kept < 1:
        raise ConfigError(f"{seconds:g} s of audio gives {frames} mel frames and no token")
    f1 = _halve(mels)
    f2 = _halve(f1)
    if rule.proj_dim:  # Gemma 4: output_proj, then the embedder, at every position
        out, out_at = h * rule.proj_dim + rule.proj_dim * rule.output_dim, rows
    else:  # Gemma 3n: the embedder over the positions the reduction keeps
        out, out_at = h * rule.output_dim, kept
    w = rule.n_window
    span = rule.context_left + rule.context_right          # offsets: left - 1 + right + 1
    queries = -(-rows // w) * w                            # the blocks of queries, padded
    pairs = queries * (w + span - 1)                       # each over its context of keys
    # two 3 x 3 stride-2 convolutions 1 -> c0 -> c1 over (time x mel bins), the projection
    # c1 (bins / 4) -> h; per position two macaron feed-forwards 2 x 8h^2, q/k/v/out 4h^2,
    # the light convolution's h -> 2h and h -> h 3h^2: 23h^2
    counts = dict(audio_conv1_params=9 * c0, audio_conv1_positions=batch * t1 * f1,
                  audio_conv2_params=9 * c0 * c1, audio_conv2_positions=batch * rows * f2,
                  audio_in_params=c1 * f2 * h, audio_in_positions=batch * rows,
                  audio_out_params=out, audio_out_positions=batch * out_at)
    rows, pairs = batch * rows, batch * pairs
    blocks = dict(n_audio_layers=rule.layers, audio_matmul_params=23 * h * h, d_audio=h,
                  audio_rows=rows, audio_pairs=pairs, audio_rel_pairs=batch * queries * span,
                  audio_rel_offsets=span, audio_conv_kernel=rule.kernel)
    return AudioWork(frames=frames, tokens=tokens, rows=rows, pairs=pairs,
                     flops=N.audio_prefill_flops(**blocks, **counts),
                     around_flops=N.audio_around_flops(**counts),
                     block_params=rule.layers * 24 * h * h)


def clip_list(seconds: float | Sequence[float]) -> list[float]:
    """The clips of ``seconds``: a number is one clip, a sequence several [s].

    >>> clip_list(10), clip_list((10, 2.5))
    ([10], [10, 2.5])
    """
    return list(seconds) if isinstance(seconds, Sequence) else [seconds]


def audio_work(rule: AudioRule, seconds: float | Sequence[float]) -> AudioWork:
    """The tokens and the encoder's work for ``seconds`` of audio under ``rule``, one clip or
    several (a sequence of lengths [s], as one processor call and one encoder call take the
    prompt's clips): the counts (frames, chunks, positions, attention pairs, the weights of
    each convolution and projection) are worked out here, the FLOPs by
    :data:`~llm_arithmetic.formulas.audio.audio_prefill_flops` and
    :data:`~llm_arithmetic.formulas.audio.audio_around_flops`.

    Several clips: each keeps its own frames, cap and tokens (the processor writes each
    clip's tokens apart), ``frames`` and ``tokens`` are their sums; the encoder runs them
    together as transformers 5.24.0 does. Qwen2.5-Omni's and Qwen3-Omni's encoders cut every
    clip into its own chunks, then pad all the chunks to the longest of any clip
    (``chunk_and_pad_features``), so a clip shorter than a chunk costs the convolutions a
    full chunk beside a longer one, and Qwen3-Omni's attention window is that longest
    chunk's positions times ``n_window_infer`` / (2 ``n_window``) within each clip
    (``get_audio_cu_seqlens``). Gemma's feature extractors pad every clip to the longest
    (``padding="longest"``) and the encoder runs the padded batch: each clip costs what the
    longest costs, but for the projection of the relative offsets' position embeddings, which
    every layer runs once for the batch.

    >>> r = AudioRule("qwen2_audio", 1280, 32, 5120, 128, 100, 3584, 20, max_frames=30000)
    >>> w = audio_work(r, 10)
    >>> w.frames, w.tokens, w.rows, w.pairs
    (1000, 250, 500, 50000)
    >>> w.flops, w.around_flops  # formulas.audio's examples: 637,337,600,000 + 8,192,000,000
    (645529600000, 8192000000)
    >>> w = audio_work(r, (10, 0.75))  # the 0.75 s clip's chunk of 75 frames padded to 200
    >>> w.frames, w.tokens, w.rows
    (1075, 269, 538)
    """
    clips = clip_list(seconds)
    if rule.rule in GEMMA_FRAME_SPAN:
        works = [_gemma_work(rule, s) for s in clips]  # each clip's frames and tokens
        longest = max(clips, key=lambda s: samples_kept(rule, s))
        return replace(_gemma_work(rule, longest, batch=len(clips)),
                       frames=sum(w.frames for w in works), tokens=sum(w.tokens for w in works))
    frames_each = [audio_frames(rule, s) for s in clips]
    tokens_each = [audio_tokens(rule, f) for f in frames_each]
    for s, f, t in zip(clips, frames_each, tokens_each):
        if t < 1:
            raise ConfigError(f"{s:g} s of audio gives {f} mel frames and no token")
    frames, tokens = sum(frames_each), sum(tokens_each)
    d, ffn, out = rule.width, rule.ffn, rule.output_dim
    chunk = 2 * rule.n_window
    lens_each = [[chunk] * (f // chunk) + ([f % chunk] if f % chunk else []) for f in frames_each]
    lens = [x for each in lens_each for x in each]
    longest, c = max(lens), len(lens)  # the convolutions run over chunks padded to the longest
    block = 4 * d * d + 2 * d * ffn
    if rule.rule == "qwen2_audio":
        rows_each = [_halve(x) for x in lens]
        rows = sum(rows_each)
        pairs = sum(r * r for r in rows_each)
        # conv1 (kernel 3, mels -> d), conv2 (kernel 3, stride 2, d -> d); after the blocks a
        # pool, then the projection d -> the language model's width per token
        counts = dict(audio_conv1_params=3 * rule.mels * d, audio_conv1_positions=longest * c,
                      audio_conv2_params=3 * d * d, audio_conv2_positions=_halve(longest) * c,
                      audio_out_params=d * out, audio_out_positions=tokens)
    else:
        rows = tokens
        t1, f1 = _halve(longest), _halve(rule.mels)
        t2, f2 = _halve(t1), _halve(f1)
        t3, f3 = _halve(t2), _halve(f2)
        ch = rule.channels
        window = t3 * (rule.n_window_infer // chunk)  # each clip's positions in such windows
        pairs = sum((t // window) * window * window + (t % window) ** 2 for t in tokens_each)
        # three 3 x 3 stride-2 Conv2d 1 -> ch -> ch -> ch over (mels x time), conv_out
        # (ch x f3 -> d) over the padded chunks' positions; proj1 (d -> d), proj2 (d -> out)
        counts = dict(audio_conv1_params=9 * ch, audio_conv1_positions=f1 * t1 * c,
                      audio_conv2_params=9 * ch * ch, audio_conv2_positions=(f2 * t2 + f3 * t3) * c,
                      audio_in_params=ch * f3 * d, audio_in_positions=t3 * c,
                      audio_out_params=d * d + d * out, audio_out_positions=tokens)
    flops = N.audio_prefill_flops(n_audio_layers=rule.layers, audio_matmul_params=block,
                                  d_audio=d, audio_rows=rows, audio_pairs=pairs, **counts)
    return AudioWork(frames=frames, tokens=tokens, rows=rows, pairs=pairs, flops=flops,
                     around_flops=N.audio_around_flops(**counts),
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
    llm_arithmetic.core.errors.ConfigError: llama-2-7b takes no audio; --audio-seconds (audio_seconds) needs a model whose audio encoder is modelled (Qwen2.5-Omni, Qwen3-Omni, Gemma 3n, Gemma 4 E2B/E4B)
    """
    for x in model.extras:
        if getattr(x, "audio", None) is not None:
            return x, x.audio
    has = any("audio" in x.name for x in model.extras)
    what = (": the rule of its audio encoder is not modelled" if has else " takes no audio")
    raise ConfigError(f"{model.name}{what}; --audio-seconds (audio_seconds) needs a model "
                      f"whose audio encoder is modelled ({', '.join(MODELLED_AUDIO_FAMILIES)})")
