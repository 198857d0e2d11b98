"""What images, a video and audio in a prompt add to an estimate: their tokens (and the
separators the processors write between rows, tiles or frame groups), the work of the encoders
that run before the prefill (the vision tower, a cross-attention model's image states, the audio
encoder), how a tensor-parallel group splits those encoders, and the plan's inputs for all of
it. The rules themselves (tokens per image, frames per second, mel frames) are the catalog's
(:mod:`llm_arithmetic.catalog.images`, :mod:`~llm_arithmetic.catalog.video`,
:mod:`~llm_arithmetic.catalog.audio`).

Units: sizes [px], lengths [s], rates [frame/s], tokens [token], FLOPs [FLOP], parameters [-].

>>> images_argument(3)
3
"""
from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any, Mapping

import numpy as np

from .arguments import ContextWarning, count_argument, resolve_model
from .catalog.images import IMAGE_SIDE_LIMIT
from .catalog.model import Model
from .catalog.video import VIDEO_AUDIO_MARKERS
from .core.errors import ConfigError, InputError

__all__ = ["prompt_with_images", "image_inputs", "images_argument", "tower_inputs",
           "tower_splits", "encoder_split", "cross_image_inputs", "cross_inputs",
           "video_inputs", "audio_inputs", "video_audio_inputs", "audio_seconds_argument", "AUDIO_FIELDS", "AUDIO_PLAN_INPUTS", "audio_degrees",
           "split_heads", "encoder_degrees", "VIDEO_FIELDS", "vision_plan_inputs",
           "vision_degrees", "CROSS_INPUTS", "VISION_TP_INPUTS"]

def prompt_with_images(model: Any, prompt: Any, images: Any, image_size: Any,
                       video_seconds: Any = None, video_fps: Any = None,
                       video_size: Any = None, audio_seconds: Any = None,
                       video_audio: Any = None
                       ) -> tuple[Any, Any, dict[str, Any] | None]:
    """``(model, prompt, vision)`` for :func:`~llm_arithmetic.estimate.evaluated_plan` (and the
    deployment search): without images or video, the arguments as given and None; with them, the
    model resolved, the prompt's text tokens (0 where not given) plus the images' and the video's
    tokens and separators, and :func:`image_inputs`' and :func:`video_inputs`' values, the
    tower's counts summed over both (``images`` and ``image_tokens_per_image`` None without images;
    ``video_tokens`` None without video), and :func:`audio_inputs`' for ``audio_seconds``.
    ``video_audio`` true (an omni model, with ``video_seconds``): the video's audio track joins
    the audio as one more clip of ``video_seconds`` after ``audio_seconds``' (one processor call
    and one encoder call take them all, :func:`video_audio_inputs`), and the processor's
    ``<|audio_bos|>`` / ``<|audio_eos|>`` around the interleaved video join
    ``video_separator_tokens``; ``audio_seconds`` stays as given.

    >>> _, prompt, v = prompt_with_images("qwen2.5-vl-3b-instruct", 100, 2, (1000, 700), 10)
    >>> prompt, v["image_tokens_per_image"], v["video_tokens"], v["vision_patches"]
    (13860, 900, 11960, 55040)
    """
    no_video = video_seconds is None and video_fps is None and video_size is None
    if video_audio is not None and not isinstance(video_audio, bool):
        raise InputError(f"video_audio must be True or False, got {video_audio!r:.40}")
    if video_audio and no_video:
        raise InputError("video_audio needs video_seconds (the video whose audio track "
                         "joins the prompt)")
    if images is None and image_size is None and no_video and audio_seconds is None:
        return model, prompt, None
    model = resolve_model(model)
    parts = []
    if images is not None or image_size is not None:
        parts.append(image_inputs(model, images, image_size))
    if not no_video:
        parts.append(video_inputs(model, video_seconds, video_fps, video_size))
    vision = {"images": None, "image_tokens_per_image": None, "video_tokens": None}
    for part in parts:
        vision.update(part)
    if len(parts) == 2:  # the tower's work over both, in one forward
        for key in ("prompt_tokens", "vision_prefill_flops", "vision_patches",
                    "vision_whole_flops"):
            vision[key] = parts[0][key] + parts[1][key]
    tokens = vision.get("prompt_tokens", 0)
    if video_audio:
        audio = video_audio_inputs(model, vision["video_seconds"], audio_seconds)
        vision.update(audio)
        vision["video_separator_tokens"] += VIDEO_AUDIO_MARKERS
        tokens += audio["audio_tokens"] + VIDEO_AUDIO_MARKERS
    elif audio_seconds is not None:  # the audio encoder: its own inputs beside the tower's
        audio = audio_inputs(model, audio_seconds)
        vision.update(audio)
        tokens += audio["audio_tokens"]
    if vision.get("video_tokens") is not None:
        vision["video_audio"] = bool(video_audio)
    vision["prompt_tokens"] = tokens
    text = 0 if prompt is None else count_argument("prompt", prompt)
    return model, text + tokens, vision


def image_inputs(model: Model, images: Any, image_size: Any = None) -> dict[str, Any]:
    """``images`` images of ``image_size`` (width, height) [px; default
    :data:`~llm_arithmetic.catalog.images.DEFAULT_IMAGE_SIZE`] in a prompt to ``model``: the
    tokens they add and the tower's FLOPs, the estimate's fields of the images that the plan
    takes as inputs, with the tower's parameters (``tower_params``, the plan's
    ``vision_params``) and what splits it under tensor parallelism (:data:`VISION_TP_INPUTS`:
    the prompt's patches, the tower's width and blocks, its mergers that all-reduce, the
    weights it splits and the FLOPs it keeps whole on every chip). The prompt gains
    ``prompt_tokens``: the image tokens and the separators the processor writes between their
    rows or tiles (``separator_tokens``: Pixtral's ``[IMG_BREAK]``, Llama 4's tile separators;
    text tokens, but as many as the image has rows or tiles). A model without a tower, or
    whose tower's rule is not modelled, is a :class:`~llm_arithmetic.core.errors.ConfigError`
    naming it; a bad count or size an :class:`InputError` naming the argument.

    >>> from llm_arithmetic import get_model
    >>> v = image_inputs(get_model("qwen2.5-vl-3b-instruct"), 2, (1000, 700))
    >>> v["image_tokens_per_image"], v["image_tokens"], v["vision_patches_per_image"]
    (900, 1800, 3600)
    >>> v = image_inputs(get_model("mistral-small-3.1-24b"), 1, (1000, 700))
    >>> v["image_tokens"], v["separator_tokens"], v["prompt_tokens"]   # 36 x 25 [IMG], 24 breaks
    (900, 24, 924)
    """
    from .catalog.images import DEFAULT_IMAGE_SIZE, image_tower, image_work

    if images is None:
        raise InputError("images must be given with image_size (how many images the prompt "
                         "holds)")
    n = images_argument(images)
    w, h = _size_pair("image_size", DEFAULT_IMAGE_SIZE if image_size is None else image_size)
    tower, rule = image_tower(model)
    try:
        work = image_work(rule, w, h)
    except ConfigError as err:
        raise InputError(f"image_size: {err}") from None
    if rule.rule == "mllama":
        return cross_image_inputs(model, tower, rule, n, (w, h), work)
    return {"images": n, "image_size": (w, h), "image_tokens_per_image": work.tokens,
            "image_tokens": n * work.tokens, "vision_patches_per_image": work.patches,
            "separator_tokens": n * work.separators,
            "prompt_tokens": n * (work.tokens + work.separators),
            **tower_inputs(tower, rule, n, work)}


def images_argument(v: Any) -> int:
    """The number of images in a prompt, as :func:`~llm_arithmetic.estimate.estimate` checks it: a
    count as :func:`~llm_arithmetic.arguments.count_argument` takes one (whole floats too), 1 to
    :data:`IMAGES_LIMIT`; else an :class:`InputError` naming ``images``.

    >>> images_argument(2), images_argument(2.0), images_argument(np.int64(3))
    (2, 2, 3)
    >>> images_argument(0)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: images must be a positive integer, got 0
    >>> images_argument(1 << 17)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: images = 1.31e+05 is beyond the limit 65,536 (no model or memory holds more)
    """
    return count_argument("images", v)


def tower_inputs(tower: Any, rule: Any, count: int, unit: Any) -> dict[str, Any]:
    """The vision tower's keys of :func:`image_inputs` and :func:`video_inputs` (all but a
    cross-attention model's, :func:`cross_image_inputs`): the tower (``tower``, the model's
    extra, and ``rule``, its :class:`~llm_arithmetic.catalog.model.ImageRule`) run ``count``
    times over ``unit`` (:class:`~llm_arithmetic.catalog.images.ImageWork`: one image, or one
    temporal patch of a video, which the tower runs as an image): its FLOPs
    (:data:`~llm_arithmetic.formulas.vision.vision_prefill_flops`), parameters, the patches
    it runs, its width, its mergers that all-reduce, and what a tensor-parallel engine splits
    (:func:`encoder_split`). Under vLLM's default ``mm_encoder_tp_mode`` "weights" a ViT's
    blocks, mergers and deepstack mergers split over the chips and the patch embedding stays
    whole on each; a convolutional tower (Gemma 3n's) and one vLLM runs unsplit (Gemma 4's,
    ``ImageRule.whole``) run whole on every chip (:func:`tower_splits`).

    >>> from llm_arithmetic import get_model
    >>> from llm_arithmetic.catalog.images import image_tower, image_work
    >>> tower, rule = image_tower(get_model("qwen2.5-vl-3b-instruct"))
    >>> v = tower_inputs(tower, rule, 2, image_work(rule, 1000, 700))
    >>> v["vision_patches"], v["vision_layers"], v["vision_mergers"]
    (7200, 32, 1)
    """
    from .formulas.vision import vision_prefill_flops

    full = rule.layers if not rule.window else len(rule.full_layers)
    flops = int(vision_prefill_flops(
        images=count, vision_patches=unit.patches, vision_matmul_params=rule.tower_matmul,
        image_tokens=unit.tokens, merger_matmul_params=rule.merger_matmul,
        d_vision=rule.width, n_vision_full_layers=full, vision_full_pairs=unit.full_pairs,
        n_vision_window_layers=rule.layers - full, vision_window_pairs=unit.window_pairs,
        deepstack_matmul_params=rule.deepstack_matmul, vision_conv_flops=rule.conv_flops))
    vit = tower_splits(rule)
    deepstack = rule.deepstack_matmul // rule.merger_matmul if rule.merger_matmul else 0
    return {"vision_prefill_flops": flops, "tower_params": tower.params,
            "vision_patches": count * unit.patches, "d_vision": rule.width,
            "vision_mergers": (1 + deepstack) if vit and rule.merger_matmul else 0,
            **encoder_split("vision", vit, flops=flops, layers=rule.layers,
                            split_params=rule.tower_matmul - rule.patch_matmul
                            + rule.merger_matmul + rule.deepstack_matmul,
                            whole_flops=count * (2 * rule.patch_matmul * unit.patches
                                                 + rule.conv_flops))}


def tower_splits(rule: Any) -> bool:
    """Whether a tensor-parallel engine splits the vision tower of ``rule`` over the chips (a
    ViT, unless vLLM runs it unsplit, ``ImageRule.whole``); a convolutional tower runs whole
    on every chip."""
    return not rule.conv_flops and not rule.whole


def encoder_split(prefix: str, split: bool, *, flops: int, layers: int, split_params: int,
                  whole_flops: int) -> dict[str, int]:
    """The plan's inputs that place an encoder run before the prefill (the vision tower,
    ``prefix`` "vision"; the audio encoder, "audio") on a tensor-parallel group, from its
    ``flops``: ``<prefix>_layers``, the blocks split over the chips (two all-reduces each),
    ``<prefix>_split_params``, their weights in matrix products (each chip holds its share),
    and ``<prefix>_whole_flops``, the FLOPs every chip does whole. Where the engine splits the
    encoder (``split``), the ``layers``, ``split_params`` and ``whole_flops`` given (what stays
    whole: a patch embedding, convolutions, projections); where it runs the encoder whole on
    every chip, no block and no weight split and all its FLOPs whole.

    >>> encoder_split("audio", False, flops=10, layers=4, split_params=6, whole_flops=3)
    {'audio_layers': 0, 'audio_split_params': 0, 'audio_whole_flops': 10}
    """
    if not split:
        layers, split_params, whole_flops = 0, 0, flops
    return {f"{prefix}_layers": layers, f"{prefix}_split_params": split_params,
            f"{prefix}_whole_flops": whole_flops}


def cross_image_inputs(model: Model, tower: Any, rule: Any, n: int, size: tuple[int, int],
                       work: Any) -> dict[str, Any]:
    """:func:`image_inputs` for a cross-attention model (Llama 3.2 Vision, image rule
    ``mllama``): ``n`` images of ``size``, each ``work``
    (:func:`~llm_arithmetic.catalog.images.image_work`). The prompt gains one ``<|image|>``
    token an image; the tower runs ``max_tiles`` tiles of padded tokens an image, all attended
    at once, its patch convolution over the tiles' patches and its projector over their states
    (the padded tiles' too: ``vision_prefill_flops`` with the convolution as its per-image
    ``vision_conv_flops``); the states of the image's own tiles, ``image_states``, are what the
    language model's cross-attention layers read: their keys and values
    (:data:`~llm_arithmetic.formulas.vision.cross_kv_flops`, once a sequence) join the tower's
    FLOPs before the prefill, and the plan caches them (``image_kv_bytes``). Each text token
    then also runs those layers' weights but k and v (``cross_token_params``, of them
    ``cross_token_matmul`` in matrix products; :func:`~llm_arithmetic.estimate.evaluated_plan` adds
    them to what a token reads) and their attention over the states. vLLM splits the whole tower
    and the projector over a tensor-parallel group (``ColumnParallelConv2dPatch``,
    ``ColumnParallelLinear``: vllm/model_executor/models/mllama.py @
    6f0b37b889781873e3e766bdf24c95e2052ce081).

    >>> from llm_arithmetic import get_model
    >>> v = image_inputs(get_model("llama-3.2-90b-vision-instruct"), 2, (1000, 700))
    >>> v["prompt_tokens"], v["image_states"], v["vision_patches_per_image"]
    (2, 12808, 6432)
    """
    from .formulas.vision import cross_kv_flops, vision_prefill_flops

    per_tile = (rule.size // rule.patch) ** 2 + rule.class_token
    tower_flops = vision_prefill_flops(
        images=n, vision_patches=work.patches,
        vision_matmul_params=rule.tower_matmul - rule.patch_matmul,
        image_tokens=rule.max_tiles * per_tile, merger_matmul_params=rule.merger_matmul,
        d_vision=rule.width, n_vision_full_layers=rule.layers,
        vision_full_pairs=work.full_pairs,
        vision_conv_flops=2 * rule.patch_matmul * rule.max_tiles * (per_tile - rule.class_token))
    states = n * work.states
    kv = cross_kv_flops(n_layers=rule.cross_layers, image_states=states, d_model=model.d_model,
                        n_kv_heads=rule.cross_kv_heads, d_head=rule.cross_d_head)
    return {"images": n, "image_size": size, "image_tokens_per_image": work.tokens,
            "image_tokens": n * work.tokens, "vision_patches_per_image": work.patches,
            "separator_tokens": 0, "prompt_tokens": n * work.tokens,
            "vision_prefill_flops": int(tower_flops + kv), "tower_params": tower.params,
            "vision_patches": n * work.patches, "d_vision": rule.width, "vision_mergers": 1,
            **encoder_split("vision", True, flops=int(tower_flops + kv), layers=rule.layers,
                            split_params=rule.tower_matmul + rule.merger_matmul,
                            whole_flops=0),
            "image_states": states, "cross_kv_flops": int(kv),
            "cross_layers": rule.cross_layers, "cross_heads": rule.cross_heads,
            "cross_kv_heads": rule.cross_kv_heads, "cross_d_head": rule.cross_d_head,
            "cross_token_params": rule.cross_token_params,
            "cross_token_matmul": rule.cross_token_matmul}


def cross_inputs(m: Model, vision: dict[str, Any], given: dict[str, Any]) -> None:
    """With a cross-attention model's images in the prompt (:func:`cross_image_inputs`), every
    text token also runs the cross-attention layers' weights but k and v: they join the
    parameters outside the stack that a token reads (``extras_read``, and ``extras_matmul``
    for those in matrix products) in ``given``. A tensor-parallel degree above those layers'
    key/value heads is refused: vLLM gives each chip num_key_value_heads // tp of them
    (``MllamaTextCrossAttention``, vllm/model_executor/models/mllama.py @
    6f0b37b889781873e3e766bdf24c95e2052ce081), none past that, and the images' cache is
    counted split by those heads, once.

    The 11B's 8 cross-attention layers of d = 4,096 (q and o 4,096 x 4,096, a 3 x 4,096 x
    14,336 MLP; norms and gates beside) join what a token reads:

    >>> from llm_arithmetic import get_model
    >>> m = get_model("llama-3.2-11b-vision-instruct")
    >>> given = {"tp": 8}
    >>> cross_inputs(m, image_inputs(m, 1, (560, 560)), given)
    >>> given["extras_matmul"] == 8 * (2 * 4096 * 4096 + 3 * 4096 * 14336), given["extras_read"]
    (True, 1677789200)
    >>> cross_inputs(m, image_inputs(m, 1, (560, 560)), {"tp": 16})
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 16 exceeds the 8 key/value heads of llama-3.2-11b-vision-instruct's cross-attention layers, which vLLM splits over the chips (num_key_value_heads // tp a chip): with images such a layout is not modelled
    """
    tp = given["tp"]
    if tp > vision["cross_kv_heads"]:
        raise InputError(f"tp = {tp} exceeds the {vision['cross_kv_heads']} key/value heads of "
                         f"{m.name}'s cross-attention layers, which vLLM splits over the "
                         "chips (num_key_value_heads // tp a chip): with images such a layout "
                         "is not modelled")
    given["extras_read"] = m.plan.get("extras_read") + vision["cross_token_params"]
    given["extras_matmul"] = m.plan.get("extras_matmul") + vision["cross_token_matmul"]


def video_inputs(model: Model, seconds: Any, fps: Any = None, size: Any = None
                 ) -> dict[str, Any]:
    """A video of ``seconds`` [s] sampled at ``fps`` frames a second [default
    :data:`~llm_arithmetic.catalog.video.DEFAULT_VIDEO_FPS`], frames of ``size`` (width,
    height) [px; default :data:`~llm_arithmetic.catalog.video.DEFAULT_VIDEO_SIZE`], in a
    prompt to ``model``: :func:`image_inputs`' keys for the tower over its frame groups (each
    temporal patch runs as one image of the resized frame size,
    :mod:`llm_arithmetic.catalog.video`) and the video's own: ``video_frames``,
    ``video_tokens``, ``video_separator_tokens`` (Qwen3-VL's and GLM-4.5V's timestamps and
    delimiters), ``video_patches``; ``prompt_tokens`` counts its tokens and separators. A model whose
    video rule is not modelled is a :class:`~llm_arithmetic.core.errors.ConfigError` naming it;
    a bad length, rate or size an :class:`InputError` naming the argument.

    >>> from llm_arithmetic import get_model
    >>> v = video_inputs(get_model("qwen3.5-27b"), 10)
    >>> v["video_frames"], v["video_size"], v["video_tokens"], v["video_separator_tokens"]
    (20, (1280, 720), 8800, 80)
    """
    from .catalog.images import image_tower
    from .catalog.video import (DEFAULT_VIDEO_FPS, DEFAULT_VIDEO_SIZE, VIDEO_SECONDS_LIMIT,
                                VIDEO_SOURCE_FPS, video_frames, video_tower, video_work)

    if seconds is None:
        raise InputError("video_seconds must be given with video_fps or video_size (how long "
                         "the prompt's video is)")
    seconds = _length_argument("video_seconds", seconds, VIDEO_SECONDS_LIMIT)
    fps = _length_argument("video_fps", DEFAULT_VIDEO_FPS if fps is None else fps,
                           VIDEO_SOURCE_FPS)
    w, h = _size_pair("video_size", DEFAULT_VIDEO_SIZE if size is None else size)
    rule = video_tower(model)
    tower, _ = image_tower(model)
    try:  # too few frames for the processor: the length's fault
        video_frames(rule.video, seconds, fps)
    except ConfigError as err:
        raise InputError(f"video_seconds: {err}") from None
    try:  # what else the processor refuses is the frames' size
        work = video_work(rule, seconds, fps, w, h)
    except ConfigError as err:
        raise InputError(f"video_size: {err}") from None
    # the tower runs each temporal patch (two frames) as one image of the resized frame size
    return {"video_seconds": seconds, "video_fps": fps, "video_size": (w, h),
            "video_frames": work.frames, "video_tokens": work.tokens,
            "video_separator_tokens": work.separators, "video_patches": work.patches,
            "prompt_tokens": work.tokens + work.separators,
            **tower_inputs(tower, rule, work.groups, work.group)}


def _length_argument(label: str, v: Any, top: int) -> int | float:
    """A video's or a clip's length [s], or a frame rate, as :func:`video_inputs` and
    :func:`audio_inputs` check it: a number above 0 and at most ``top`` (an int where given
    whole, else a float); else an :class:`InputError` naming ``label``."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (Real, np.number)) \
            or not 0 < float(v) <= top:
        raise InputError(f"{label} must be a number above 0 and at most {top:,}, got "
                         f"{v!r:.40}")
    return int(v) if isinstance(v, (Integral, np.integer)) else float(v)


def audio_inputs(model: Model, seconds: Any, track: Any = None) -> dict[str, Any]:
    """``seconds`` [s] of audio in a prompt to ``model``, one clip (a number) or several (a
    sequence of lengths, a conversation's voice turns: each clip's own frames, cap and tokens,
    the encoder run over them together, :func:`~llm_arithmetic.catalog.audio.audio_work`):
    the mel frames and tokens its processor makes of it and the audio encoder's work
    (:mod:`llm_arithmetic.catalog.audio`), summed over the clips,
    with the plan's inputs (:data:`AUDIO_PLAN_INPUTS`: the encoder's parameters and FLOPs,
    the positions its blocks run at its width, and what a tensor-parallel engine splits). A
    model without a modelled audio encoder is a :class:`ConfigError` naming it and the
    option; a bad length an :class:`InputError` naming the argument (``audio_seconds[i]`` for
    a clip of several). Qwen2.5-Omni's processor
    truncates a clip at 300 s (30,000 frames), Gemma 3n's and Gemma 4's at 30 s (480,000
    samples): a longer one counts as its first 300 s or 30 s, with a warning.
    ``audio_seconds`` is returned as given: a number, or a tuple of the clips' lengths.
    ``track`` [s]: one more clip after them, a video's audio track
    (:func:`video_audio_inputs`; ``seconds`` may then be None, and is returned so).

    >>> from llm_arithmetic import get_model
    >>> a = audio_inputs(get_model("qwen2.5-omni-7b"), 10)
    >>> a["audio_frames"], a["audio_tokens"], a["audio_layers"]
    (1000, 250, 0)
    >>> a = audio_inputs(get_model("qwen2.5-omni-7b"), [10, 20, 5])
    >>> a["audio_seconds"], a["audio_frames"], a["audio_tokens"]
    ((10, 20, 5), 3500, 875)
    """
    from .catalog.audio import AUDIO_SAMPLE_RATE, audio_encoder, audio_work, clip_cap

    given = [] if seconds is None else audio_seconds_argument(seconds)
    clips = given if track is None else audio_seconds_argument([*given, track])
    encoder, rule = audio_encoder(model)
    try:
        work = audio_work(rule, clips)
    except ConfigError as err:
        raise InputError(f"audio_seconds: {err}") from None
    cap = clip_cap(rule)
    for s in clips if cap is not None else ():
        if round(s * AUDIO_SAMPLE_RATE) > cap[0]:
            warnings.warn(f"audio_seconds: {model.name}'s processor keeps the first "
                          f"{cap[0] / AUDIO_SAMPLE_RATE:g} s of a clip ({cap[1]}) and drops "
                          f"the rest of the {s:g} s", ContextWarning, stacklevel=2)
    return {"audio_seconds": None if seconds is None else tuple(given) if _is_sequence(seconds)
            else given[0],
            "audio_frames": work.frames,
            "audio_tokens": work.tokens, "audio_prefill_flops": work.flops,
            "audio_params": encoder.params, "audio_rows": work.rows, "d_audio": rule.width,
            **encoder_split("audio", rule.split, flops=work.flops, layers=rule.layers,
                            split_params=work.block_params, whole_flops=work.around_flops)}


def _is_sequence(v: Any) -> bool:
    """Whether ``v`` is given as several values (a list, a tuple or a 1-D array), not one."""
    return isinstance(v, (list, tuple)) or isinstance(v, np.ndarray) and v.ndim == 1


def video_audio_inputs(model: Model, video_seconds: float, audio_seconds: Any = None
                       ) -> dict[str, Any]:
    """:func:`audio_inputs` for the audio track of a video of ``video_seconds`` [s] (the
    processors' ``load_audio_from_video``, transformers 5.24.0 ``OmniModalProcessorMixin``):
    the track is one more clip of the video's length, after the prompt's own clips
    (``audio_seconds``, or none), through the same feature extractor and encoder call. Only
    Qwen2.5-Omni's and Qwen3-Omni's processors interleave a video with its track; elsewhere a
    :class:`ConfigError` names the model and the option. ``audio_seconds`` in the result is
    the prompt's own clips as given (None: none).

    >>> from llm_arithmetic import get_model
    >>> a = video_audio_inputs(get_model("qwen2.5-omni-7b"), 10)
    >>> a["audio_seconds"], a["audio_frames"], a["audio_tokens"]
    (None, 1000, 250)
    """
    from .catalog.audio import audio_encoder

    try:
        _, rule = audio_encoder(model)
    except ConfigError:
        rule = None
    if rule is None or rule.rule not in ("qwen2_audio", "qwen3_omni"):
        raise ConfigError(f"{model.name}: --video-audio (video_audio) needs a model whose "
                          "processor interleaves a video with its audio track (Qwen2.5-Omni, "
                          "Qwen3-Omni)")
    return audio_inputs(model, audio_seconds, track=video_seconds)


def audio_seconds_argument(v: Any) -> list[int | float]:
    """The clips' lengths [s] of ``audio_seconds`` as :func:`audio_inputs` checks them: a number
    (one clip) or a non-empty sequence of at most
    :data:`~llm_arithmetic.catalog.audio.AUDIO_CLIPS_LIMIT` numbers, each above 0 and at most
    :data:`~llm_arithmetic.catalog.audio.AUDIO_SECONDS_LIMIT`; else an :class:`InputError`
    naming the argument, and the clip of several.

    >>> audio_seconds_argument(10), audio_seconds_argument((10, 2.5))
    ([10], [10, 2.5])
    >>> audio_seconds_argument([10, 0])
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: audio_seconds[1] must be a number above 0 and at most 86,400, got 0
    """
    from .catalog.audio import AUDIO_CLIPS_LIMIT, AUDIO_SECONDS_LIMIT

    if not _is_sequence(v):
        try:
            return [_length_argument("audio_seconds", v, AUDIO_SECONDS_LIMIT)]
        except InputError as err:
            raise InputError(f"{err} (several clips: a list of such lengths)") from None
    if not 0 < len(v) <= AUDIO_CLIPS_LIMIT:
        raise InputError(f"audio_seconds must hold 1 to {AUDIO_CLIPS_LIMIT:,} clips' lengths, "
                         f"got {len(v):,}")
    return [_length_argument(f"audio_seconds[{i}]", x, AUDIO_SECONDS_LIMIT)
            for i, x in enumerate(v)]


#: :func:`audio_inputs`' keys that are :class:`~llm_arithmetic.estimate.Estimate` fields beside the
#: plan's.
AUDIO_FIELDS = ("audio_seconds", "audio_frames", "audio_tokens")


#: :func:`audio_inputs`' keys that are the plan's inputs.
AUDIO_PLAN_INPUTS = ("audio_params", "audio_prefill_flops", "audio_rows", "d_audio",
                     "audio_layers", "audio_split_params", "audio_whole_flops")


def audio_degrees(model: Model, tp: int) -> None:
    """Check that ``tp`` splits the model's audio encoder as vLLM splits it: where it splits
    the blocks (Qwen3-Omni), each chip takes whole heads (``QKVParallelLinear`` divides the
    heads by the degree, vllm-project/vllm@e86cd3154c69a19e1121cb1b8f041c824ab42cf0
    qwen3_omni_moe_thinker.py), so ``tp`` must divide them; an :class:`InputError` names the
    field (:func:`split_heads`).

    >>> from llm_arithmetic import get_model
    >>> audio_degrees(get_model("qwen3-omni-30b-a3b-instruct"), 8)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 8 does not divide the 20 attention heads of qwen3-omni-30b-a3b-instruct's audio encoder (audio_config.encoder_attention_heads): vLLM splits them over the tensor-parallel chips
    """
    from .catalog.audio import audio_encoder

    _, rule = audio_encoder(model)
    if rule.split:
        split_heads(model, tp, rule.heads, "audio encoder (audio_config.encoder_attention_heads)",
                    "vLLM splits them over the tensor-parallel chips")


def split_heads(model: Model, tp: int, heads: int, what: str, why: str) -> None:
    """The refusal of a tensor-parallel degree ``tp`` that does not divide the ``heads``
    attention heads of ``model``'s encoder ``what`` (which names the config field): an
    :class:`InputError` saying ``why`` (what the engine does with such a layout);
    :func:`vision_degrees` and :func:`audio_degrees` check through it."""
    if heads % tp:
        raise InputError(f"tp = {tp} does not divide the {heads} attention heads of "
                         f"{model.name}'s {what}: {why}")


def encoder_degrees(model: Model, tp: int, vision: Mapping[str, Any]) -> None:
    """Check ``tp`` against each encoder a prompt runs before the prefill, ``vision`` being
    :func:`prompt_with_images`' values: the vision tower where it holds images or a video
    (``tower_params``, :func:`vision_degrees`), then the audio encoder where it holds audio
    (``audio_params``, :func:`audio_degrees`); :func:`~llm_arithmetic.estimate.estimate` and the
    deployment search check through it.

    >>> from llm_arithmetic import get_model
    >>> encoder_degrees(get_model("qwen3-omni-30b-a3b-instruct"), 4, {"audio_params": 1})
    """
    if "tower_params" in vision:
        vision_degrees(model, tp)
    if "audio_params" in vision:
        audio_degrees(model, tp)


def _size_pair(label: str, size: Any) -> tuple[int, int]:
    """(width, height) of an image or a video frame as given, checked: an
    :class:`InputError` naming ``label`` unless two whole numbers of pixels in order."""
    # a pair in order: a tuple, a list or a 1-D array (a dict or a set has a length but no
    # width and height; indexing one was a KeyError or a TypeError)
    pair = isinstance(size, (tuple, list)) or isinstance(size, np.ndarray) and size.ndim == 1
    if not pair or len(size) != 2 or any(
            isinstance(v, (bool, np.bool_)) or not isinstance(v, (Integral, np.integer))
            or not 0 < v <= IMAGE_SIDE_LIMIT for v in size):
        raise InputError(f"{label} must be (width, height), two whole numbers of pixels from "
                         f"1 to {IMAGE_SIDE_LIMIT:,}, got {' '.join(repr(size).split()):.40}")
    return int(size[0]), int(size[1])


#: :func:`video_inputs`' keys that are :class:`~llm_arithmetic.estimate.Estimate` fields beside the
#: plan's.
VIDEO_FIELDS = ("video_seconds", "video_fps", "video_size", "video_frames",
                "video_separator_tokens", "video_patches", "video_audio")


def vision_plan_inputs(vision: dict[str, Any]) -> dict[str, Any]:
    """The plan's inputs of :func:`prompt_with_images`' values: the images' count, tokens per
    image, the video's tokens, the tower's FLOPs and parameters, and what splits it under
    tensor parallelism (:data:`VISION_TP_INPUTS`); :func:`~llm_arithmetic.estimate.estimate` and
    the deployment search pass these."""
    out = {"images": vision["images"],
           "image_tokens_per_image": vision["image_tokens_per_image"],
           "video_tokens": vision.get("video_tokens")}
    if "tower_params" in vision:
        out.update({"vision_prefill_flops": vision["vision_prefill_flops"],
                    "vision_params": vision["tower_params"],
                    **{k: vision[k] for k in VISION_TP_INPUTS},
                    **({k: vision[k] for k in CROSS_INPUTS} if vision.get("image_states")
                       else {})})
    if "audio_params" in vision:  # audio in the prompt (audio_inputs)
        out.update({k: vision[k] for k in AUDIO_PLAN_INPUTS})
    return out


def vision_degrees(model: Model, tp: int) -> None:
    """Check that a tensor-parallel degree ``tp`` splits ``model``'s vision tower as vLLM's
    default ``mm_encoder_tp_mode="weights"`` splits it: each chip takes whole attention heads of
    every block, so ``tp`` must divide the tower's heads (``ImageRule.heads``). vLLM refuses a
    layout where it does not: the tower's attention computes its heads per chip with
    ``divide(num_heads, tp)``, which asserts divisibility, as the engine loads the model
    (vllm-project/vllm@fb33ec8cf0a73c82af00a2128dee4ad058d16e9b
    vllm/model_executor/models/qwen2_5_vl.py ``Qwen2_5_VisionAttention``, which Qwen3-VL and
    Qwen3.5 reuse; @002d181a55a03803d7d69547846630069d2378b8 glm4_1v.py
    ``Glm4vVisionAttention``; @0c028ba489f560102a87a3e98b92caac5a6da8f1 siglip.py
    ``SiglipAttention``; ``divide`` in @5a6541db9bfa77756459722f69e8c89a0b47a14d
    vllm/distributed/utils.py). InternViT instead runs its attention whole on every chip and
    still splits its MLP (@1d1fc6603922b573581d31a13a1972207fc2ad78 intern_vit.py
    ``InternVisionEncoderLayer._init_attn``: ``InternSdpaAttention``), which the plan does
    not model: refused too, saying so. A tower counted whole on every chip (convolutional, or
    ``ImageRule.whole``: :func:`tower_splits`) and one whose heads are not known pass. An
    :class:`InputError` names the config field (:func:`split_heads`).

    >>> from llm_arithmetic import get_model
    >>> vision_degrees(get_model("glm-4.5v"), 4)
    >>> vision_degrees(get_model("glm-4.5v"), 8)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 8 does not divide the 12 attention heads of glm-4.5v's vision tower (vision_config.num_heads): vLLM splits the tower's heads over the tensor-parallel chips (mm_encoder_tp_mode "weights") and refuses such a layout
    """
    from .catalog.images import image_tower

    _, rule = image_tower(model)
    if not tower_splits(rule) or not rule.heads:
        return
    why = ("vLLM then runs the tower's attention whole on every chip and splits its MLP, which "
           "is not modelled" if rule.heads_fallback else "vLLM splits the tower's heads over the "
           "tensor-parallel chips (mm_encoder_tp_mode \"weights\") and refuses such a layout")
    split_heads(model, tp, rule.heads, f"vision tower ({rule.heads_key or 'its heads'})", why)


#: :func:`cross_image_inputs`' values the plan takes for a cross-attention model's images: the
#: states the cross-attention layers read, and those layers' count, heads and head width.
CROSS_INPUTS = ("image_states", "cross_layers", "cross_heads", "cross_kv_heads", "cross_d_head")

#: :func:`image_inputs`'s values that split the tower under tensor parallelism, the plan's
#: inputs of the same names.
VISION_TP_INPUTS = ("vision_patches", "d_vision", "vision_layers", "vision_mergers",
                    "vision_split_params", "vision_whole_flops")
