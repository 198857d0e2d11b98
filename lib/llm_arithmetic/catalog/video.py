"""How many tokens a video adds to a prompt, and what the vision tower runs for it: the
video processors of the Qwen vision-language families, as transformers 5.24.0 computes them,
on a model's :class:`~llm_arithmetic.catalog.model.ImageRule` (its ``video`` names the rule).

A video of ``seconds`` is taken as recorded at :data:`VIDEO_SOURCE_FPS` frames a second (the
rate transformers' Qwen3-VL processor assumes for a video that carries none); the processor
samples ``fps`` of them a second, resizes every sampled frame to one size, and stacks the
frames two by two (``temporal_patch_size``): each pair is one temporal patch, a grid of
(H/p)(W/p) patches that the tower runs as it runs one image (each pair attends only within
itself: ``vision_utils.py`` ``get_vision_cu_seqlens``, one segment per temporal patch, and
Qwen2.5-VL's windows within it), merged m x m into (H/pm)(W/pm) tokens.

* ``qwen2_vl`` (Qwen2-VL, Qwen2.5-VL): ``models/qwen2_vl/video_processing_qwen2_vl.py``
  ``Qwen2VLVideoProcessor.sample_frames``: seconds x fps frames, at least ``min_frames`` (4),
  at most ``max_frames`` (768) and the video's own, floored to a multiple of 2; each frame
  resized by the image's ``smart_resize`` within the video's per-frame pixel limits. Where a
  checkpoint ships no ``video_preprocessor_config.json`` (those the image limits are read from,
  ``readers/multimodal.py`` ``QWEN2_VL_MAX_PIXELS``, ship
  ``preprocessor_config.json``), transformers reads the video processor's settings from
  ``preprocessor_config.json`` (``video_processing_utils.py`` ``get_video_processor_dict``):
  the image's limits, 3,136 to 12,845,056 pixels, per frame. The class's own defaults
  (128 x 28^2 to 768 x 28^2, qwen-vl-utils' video limits) apply only where a configuration
  names none. The placeholders are the processor's only text: (T/2)(H/28)(W/28)
  ``<|video_pad|>`` tokens. Qwen2.5-Omni and Qwen3-Omni use this processor too
  (``models/auto/video_processing_auto.py``), but their processors pass it per-frame limits of
  their own on every call, the class attribute ``videos_kwargs`` ``size``, which overrides a
  checkpoint's files: 128 x 28^2 to 768 x 28^2 (Qwen2.5-Omni) and 128 x 32^2 to 768 x 32^2 px
  (Qwen3-Omni, patch 16, merge 2; ``readers/omni.py``); (T/2)(H/pm)(W/pm) ``<|VIDEO|>``
  tokens, nothing else (the ``<|vision_bos|>`` and ``<|vision_eos|>`` around them come from the
  chat template, as for an image). With the video's audio track
  (``load_audio_from_video``), the processors interleave those tokens with the track's
  ``<|AUDIO|>`` tokens (as many as a clip of the video's length gives,
  :mod:`~llm_arithmetic.catalog.audio`, the track processed as one more clip) and wrap the
  whole in ``<|audio_bos|>`` and ``<|audio_eos|>``: two more tokens,
  :data:`VIDEO_AUDIO_MARKERS` (``replace_video_with_audio_token``; the interleaving orders
  the tokens, it adds none).
* ``qwen3_vl`` (Qwen3-VL, Qwen3.5): ``models/qwen3_vl/video_processing_qwen3_vl.py``
  ``Qwen3VLVideoProcessor.sample_frames``: int(seconds x fps) frames, within [4, 768] and the
  video's own, picked by ``linspace`` over the video (an odd count is padded with its last
  frame); the frames resized by that file's ``smart_resize``, whose pixel limits bound the
  whole video (frames x height x width) rather than one frame: the checkpoints'
  ``video_preprocessor_config.json`` ``size``, 4,096 to 25,165,824 pixels. The processor
  (``models/qwen3_vl/processing_qwen3_vl.py`` ``replace_video_token``) writes before each
  temporal patch its time, ``<{t:.1f} seconds>`` (the mean time of its two frames), and wraps
  its tokens in ``<|vision_start|>`` and ``<|vision_end|>``: text tokens between the frame
  groups, ``VideoWork.separators``. A timestamp is counted as its pieces under Qwen's
  pre-tokenizer (``models/qwen2/tokenization_qwen2.py`` and
  ``models/qwen3_5/tokenization_qwen3_5.py`` ``PRETOKENIZE_REGEX``: every digit a piece of its
  own), one token a piece: ``<``, each digit, ``.``, `` seconds``, ``>``, that is 5 + the digits
  of the whole seconds; with the two delimiters, 7 + those digits a temporal patch.

* ``glm4v`` (GLM-4.5V; GLM-4.1V's ``glm4v`` configs run the same processor but the catalog
  holds none): ``models/glm4v/video_processing_glm4v.py`` ``Glm4vVideoProcessor.sample_frames``:
  for a video of at most ``max_duration`` (300 s), floor(duration x fps) frames (at least one),
  frame i at ceil(i x 24 / fps) (the video's own rate over the rate asked); a longer video
  gets int(300 x fps) frames at ``linspace(0, duration, n)`` seconds (all its frames where that
  is as many); repeated indices dropped, and an odd count padded with its last frame. No
  minimum of 4 frames and no cap of 768: the cap is the 300 s, 600 frames at 2 fps. The
  duration is the frames over 24 fps, as transformers' video loaders set ``duration``. The
  frames are resized by that file's ``smart_resize``, a copy of Qwen3-VL's video one, its
  limits bounding the whole video: the class's ``size``, 12,544 (112^2) to 47,040,000
  (28^2 x 2 x 30,000) pixels (``readers/multimodal.py`` ``GLM4V_VIDEO_PIXELS``: class defaults,
  as the image rule's, for the catalog holds no ``video_preprocessor_config.json``). The tower
  attends within each temporal patch (``get_vision_cu_seqlens``, the glm4v convention). The
  processor (``models/glm4v/processing_glm4v.py`` ``replace_video_token`` and
  ``replace_frame_token_id``) writes for each temporal patch
  ``<|begin_of_image|>``, its (H/28)(W/28) ``<|image|>`` tokens, ``<|end_of_image|>`` and the
  time of its first frame in whole seconds, ``int(t)``: 2 special tokens and the digits. The
  digits are counted as their pieces under GLM-4's pre-tokenizer (``\\p{N}{1,3}``: runs of up
  to three digits, the ``pat_str`` of ``ChatGLM4Tokenizer`` in THUDM's glm-4-9b-chat and
  glm-4v-9b ``tokenization_chatglm.py``; that GLM-4.5V's ``tokenizer.json``, of the same
  151,552 tokens, keeps it is assumed), one token a piece. That is exact for a timestamp
  under 10 s (one byte, one token in any byte-level vocabulary) and a lower bound otherwise; it is exact for every timestamp if the
  vocabulary holds each string of two and three digits as one token, which was not checked
  here (no GLM tokenizer offline). A timestamp under 1,000 s is one piece, so a video within
  the 300 s gives 3 tokens a temporal patch. ``<|begin_of_video|>`` and ``<|end_of_video|>``,
  once a video, come from the chat template and are not counted (as an image's delimiters).

The processors' per-frame pixel cap (``cap_pixels_per_frame``, qwen-vl-utils' budget) is off
in 5.24.0 unless asked for; it is not modelled.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..core.errors import ConfigError
from .images import ImageWork, resized_work, scaled_up, smart_resize
from .model import ImageRule

__all__ = ["VideoWork", "video_frames", "video_resize", "video_work", "video_tower",
           "VIDEO_SOURCE_FPS", "DEFAULT_VIDEO_FPS", "DEFAULT_VIDEO_SIZE",
           "MODELLED_VIDEO_FAMILIES", "VIDEO_SECONDS_LIMIT", "VIDEO_MIN_FRAMES",
           "VIDEO_MAX_FRAMES", "GLM4V_MAX_DURATION", "VIDEO_AUDIO_MARKERS"]

#: Frames a second of the video before sampling: transformers 5.24.0's Qwen3-VL processor's
#: own assumption for a video without metadata (``sample_frames``, ``replace_video_token``).
VIDEO_SOURCE_FPS = 24
#: Frames a second sampled where none is given: the Qwen3-VL checkpoints'
#: ``video_preprocessor_config.json`` ``fps`` (qwen-vl-utils' default too).
DEFAULT_VIDEO_FPS = 2
#: The video's frame size (width, height) [px] assumed where none is given.
DEFAULT_VIDEO_SIZE = (1280, 720)
#: Both Qwen processors' ``min_frames`` and ``max_frames`` (class defaults and checkpoints alike).
VIDEO_MIN_FRAMES, VIDEO_MAX_FRAMES = 4, 768
#: Glm4vVideoProcessor's ``max_duration`` [s]: a longer video is sampled over int(300 x fps)
#: frames spread over its length (class default).
GLM4V_MAX_DURATION = 300
#: The longest video the library and the command line accept [s] (a day).
VIDEO_SECONDS_LIMIT = 86400
#: The tokens an omni processor writes around a video interleaved with its audio track:
#: ``<|audio_bos|>`` and ``<|audio_eos|>`` (``replace_video_with_audio_token``, transformers
#: 5.24.0, both omni processors).
VIDEO_AUDIO_MARKERS = 2
#: The families whose video rule is modelled.
MODELLED_VIDEO_FAMILIES = ("Qwen2-VL", "Qwen2.5-VL", "Qwen3-VL", "Qwen3.5", "GLM-4.5V",
                           "Qwen2.5-Omni", "Qwen3-Omni")


@dataclass(frozen=True)
class VideoWork:
    """What one video gives: the ``frames`` sampled, the temporal patches (``groups``, frames
    paired), the size every frame is resized to (``resized``, width x height), the
    placeholder ``tokens`` in the prompt, the ``patches`` the tower runs over all of them,
    the ``separators`` (text tokens the processor writes between the groups: Qwen3-VL's
    timestamps and delimiters, GLM-4.5V's delimiters and timestamps) and ``group``, one
    temporal patch's work as an image's (:class:`~llm_arithmetic.catalog.images.ImageWork`:
    tokens, patches, attention pairs)."""

    frames: int
    groups: int
    resized: tuple[int, int]
    tokens: int
    patches: int
    separators: int
    group: ImageWork


def video_frames(rule: str, seconds: float, fps: float) -> list[int]:
    """Indices of the frames the processor samples from ``seconds`` of video at
    :data:`VIDEO_SOURCE_FPS`, ``fps`` a second: transformers 5.24.0's ``sample_frames`` of
    ``Qwen2VLVideoProcessor`` (``rule`` ``"qwen2_vl"``), ``Qwen3VLVideoProcessor``
    (``"qwen3_vl"``) or ``Glm4vVideoProcessor`` (``"glm4v"``, an odd count padded with its
    last frame, as that function returns it).

    >>> len(video_frames("qwen2_vl", 10, 2)), len(video_frames("qwen2_vl", 11, 3))
    (20, 32)
    >>> video_frames("qwen3_vl", 3, 2)
    [0, 14, 28, 43, 57, 71]
    >>> video_frames("glm4v", 2.5, 2), len(video_frames("glm4v", 1200, 2))
    ([0, 12, 24, 36, 48, 48], 600)
    """
    total = round(seconds * VIDEO_SOURCE_FPS)
    if rule == "glm4v":
        return _glm4v_frames(seconds, fps, total)
    if total < VIDEO_MIN_FRAMES:
        raise ConfigError(f"a video of {seconds:g} s has {total} frames at "
                          f"{VIDEO_SOURCE_FPS} fps: the processor needs at least "
                          f"{VIDEO_MIN_FRAMES}")
    if rule == "qwen2_vl":
        top = math.floor(min(VIDEO_MAX_FRAMES, total) / 2) * 2
        n = min(max(total / VIDEO_SOURCE_FPS * fps, VIDEO_MIN_FRAMES), top, total)
        n = math.floor(n / 2) * 2
        step = total / n  # torch.arange(0, total, step).int(): ceil(total / step) values
        return [int(i * step) for i in range(math.ceil(total / step))]
    n = int(total / VIDEO_SOURCE_FPS * fps)
    n = min(max(n, VIDEO_MIN_FRAMES), VIDEO_MAX_FRAMES, total)
    step = (total - 1) / (n - 1)  # np.linspace(0, total - 1, n).round(): half to even
    return [round(i * step) for i in range(n - 1)] + [total - 1]


def _glm4v_frames(seconds: float, fps: float, total: int) -> list[int]:
    """Glm4vVideoProcessor.sample_frames on ``total`` frames at :data:`VIDEO_SOURCE_FPS`, the
    duration total / 24 s (see the module's docstring)."""
    if total < 1:
        raise ConfigError(f"a video of {seconds:g} s has no frame at {VIDEO_SOURCE_FPS} fps: "
                          "the processor needs at least 1")
    duration, last = total / VIDEO_SOURCE_FPS, total - 1
    if duration <= GLM4V_MAX_DURATION:
        n = max(math.floor(duration * fps), 1)
        picked = [min(last, math.ceil(i * VIDEO_SOURCE_FPS / fps)) for i in range(n)]
    else:
        n = int(GLM4V_MAX_DURATION * fps)
        if n < 1:
            raise ConfigError(f"a video of {seconds:g} s at {fps:g} fps: the processor samples "
                              f"int({GLM4V_MAX_DURATION} x fps) = 0 frames of a video over "
                              f"{GLM4V_MAX_DURATION} s")
        if n >= total:
            picked = list(range(total))
        else:  # np.linspace(0, duration, n): i x step, the last one the duration itself
            step = duration / (n - 1) if n > 1 else 0.0
            times = [i * step for i in range(n - 1)] + ([duration] if n > 1 else [0.0])
            picked = [min(last, math.ceil(t * VIDEO_SOURCE_FPS)) for t in times]
    unique = list(dict.fromkeys(picked))
    return unique + unique[-1:] * (len(unique) % 2)


def video_resize(rule: ImageRule, frames: int, height: int, width: int) -> tuple[int, int]:
    """(height, width) of every frame of a video of ``frames`` frames, as the processor resizes
    them: Qwen2-VL's ``smart_resize`` per frame, or Qwen3-VL's and GLM-4.5V's, the same
    function (``models/qwen3_vl/video_processing_qwen3_vl.py`` and
    ``models/glm4v/video_processing_glm4v.py`` ``smart_resize``: a side under patch x
    merge scales the frame up to it, and the limits hold frames x height x width, the frames
    rounded to the temporal patch).

    >>> from llm_arithmetic import get_model
    >>> from llm_arithmetic.catalog.images import image_tower
    >>> video_resize(image_tower(get_model("qwen3.5-27b"))[1], 20, 720, 1280)
    (704, 1280)
    """
    f = rule.patch * rule.merge
    if rule.video == "qwen2_vl":
        return smart_resize(height, width, f, rule.video_min_pixels, rule.video_max_pixels,
                            what="a frame of")
    height, width = scaled_up(height, width, f, "video")
    t = rule.temporal_patch
    h_bar, w_bar = round(height / f) * f, round(width / f) * f
    t_bar = round(frames / t) * t
    if t_bar * h_bar * w_bar > rule.video_max_pixels:
        beta = math.sqrt(frames * height * width / rule.video_max_pixels)
        h_bar = max(f, math.floor(height / beta / f) * f)
        w_bar = max(f, math.floor(width / beta / f) * f)
    elif t_bar * h_bar * w_bar < rule.video_min_pixels:
        beta = math.sqrt(rule.video_min_pixels / (frames * height * width))
        h_bar = math.ceil(height * beta / f) * f
        w_bar = math.ceil(width * beta / f) * f
    return h_bar, w_bar


def _timestamp_tokens(indices: list[int], t: int) -> int:
    """Qwen3-VL's text between temporal patches: for each, ``<{s:.1f} seconds>`` (the mean
    time of its frames, the last frame repeated to fill the patch) counted as 5 tokens and one
    a digit of the whole seconds, and its ``<|vision_start|>`` and ``<|vision_end|>``."""
    padded = indices + [indices[-1]] * (-len(indices) % t)
    total = 0
    for i in range(0, len(padded), t):
        stamp = (padded[i] / VIDEO_SOURCE_FPS + padded[i + t - 1] / VIDEO_SOURCE_FPS) / 2
        text = f"{stamp:.1f}"
        total += 4 + sum(c.isdigit() for c in text) + 2
    return total


def _glm4v_timestamp_tokens(indices: list[int], t: int) -> int:
    """GLM-4.5V's text around each temporal patch: ``<|begin_of_image|>`` and
    ``<|end_of_image|>`` and the whole seconds of its first frame, counted as its runs of up
    to three digits, a token each (the module's docstring says what is proved of that)."""
    return sum(2 + -(-len(str(i // VIDEO_SOURCE_FPS)) // 3) for i in indices[::t])


def video_work(rule: ImageRule, seconds: float, fps: float, width: int,
               height: int) -> VideoWork:
    """The tokens and the tower's work for ``seconds`` of ``width`` x ``height`` px video sampled
    at ``fps`` frames a second under ``rule`` (its ``video``).

    >>> from llm_arithmetic import get_model
    >>> from llm_arithmetic.catalog.images import image_tower
    >>> w = video_work(image_tower(get_model("qwen2.5-vl-3b-instruct"))[1], 10, 2, 1280, 720)
    >>> w.frames, w.groups, w.resized, w.tokens, w.separators
    (20, 10, (1288, 728), 11960, 0)
    """
    if not rule.video:
        raise ConfigError("the tower's video rule is not modelled")
    for label, v in (("width", width), ("height", height)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ConfigError(f"video {label} must be a positive whole number of pixels, "
                              f"got {v!r:.40}")
    indices = video_frames(rule.video, seconds, fps)
    frames = len(indices)
    t = rule.temporal_patch
    groups = -(-frames // t)  # patchify pads the frames to a multiple of the temporal patch
    h, w = video_resize(rule, frames, height, width)
    group = resized_work(rule, w, h)
    separators = (_timestamp_tokens(indices, t) if rule.video == "qwen3_vl" else
                  _glm4v_timestamp_tokens(indices, t) if rule.video == "glm4v" else 0)
    return VideoWork(frames=frames, groups=groups, resized=(w, h),
                     tokens=groups * group.tokens, patches=groups * group.patches,
                     separators=separators, group=group)


def video_tower(model: Any) -> ImageRule:
    """The image rule of the model's vision tower, when its video rule is modelled; else a
    :class:`ConfigError` naming the model.

    >>> from llm_arithmetic import get_model
    >>> video_tower(get_model("qwen3.5-27b")).video
    'qwen3_vl'
    >>> video_tower(get_model("gemma-3-27b"))
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.ConfigError: gemma-3-27b: the video rule of its vision tower is not modelled (modelled: Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5, GLM-4.5V, Qwen2.5-Omni, Qwen3-Omni)
    """
    from .images import image_tower

    try:
        _, rule = image_tower(model)
    except ConfigError as err:
        raise ConfigError(str(err).replace("takes no images", "takes no video")) from None
    if not rule.video:
        raise ConfigError(f"{model.name}: the video rule of its vision tower is not modelled "
                          f"(modelled: {', '.join(MODELLED_VIDEO_FAMILIES)})")
    return rule
