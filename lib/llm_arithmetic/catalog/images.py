"""How many tokens an image adds to a prompt, and what the vision tower runs for it: each
family's processor rule, as transformers 5.24.0 computes it, on a model's
:class:`~llm_arithmetic.catalog.model.ImageRule`.

* ``qwen2_vl`` (Qwen2-VL, Qwen2.5-VL): :func:`smart_resize`, a copy of
  ``models/qwen2_vl/image_processing_qwen2_vl.py`` ``smart_resize``: each side rounded to a
  multiple of patch x merge (28 px), the area brought within [min_pixels, max_pixels] keeping the
  aspect ratio; the tower runs (H/14)(W/14) patches, the merger gives (H/28)(W/28) tokens.
  Qwen3-VL and Qwen3.5 (Qwen3.6) run the same ``smart_resize`` with 16 px patches (32 px after
  the merge) and their checkpoints' limits, 256^2 to 4096^2 pixels; every block of their tower
  attends over the whole image, and Qwen3-VL's deepstack mergers add their weights per token.
* ``fixed`` (LLaVA-1.5's CLIP, Gemma 3's SigLIP): one crop of the tower's ``image_size``
  whatever the image (CLIPImageProcessor resizes and center-crops to 336 px; Gemma3ImageProcessor
  resizes to 896 px, pan and scan off by default): (size / patch)^2 patches, a class token where
  the tower has one, merged (Gemma 3 pools 4 x 4) into the image's tokens. LLaVA's ``default``
  feature strategy drops the class token (``models/llava/modeling_llava.py``
  ``get_image_features``: ``selected_image_feature[:, 1:]``): 576 tokens at 336 px. The tower
  runs only up to the layer ``vision_feature_layer`` reads (LLaVA-1.5's -2: 23 of CLIP's 24
  layers, as vLLM builds it); its weights count all 24, as the checkpoint holds them.
* ``tiles`` (InternVL): :func:`tiled_canvas`, a copy of
  ``models/got_ocr2/image_processing_got_ocr2.py`` ``get_optimal_tiled_canvas``: the grid of
  448 px tiles (at most ``max_tiles``) whose aspect ratio is closest to the image's, plus a
  thumbnail tile when there is more than one (``crop_image_to_patches``, ``use_thumbnail``);
  256 tokens a tile (1024 patches pixel-shuffled by 0.5).

* ``llama4`` (Llama 4 Scout and Maverick): :func:`llama4_canvas`, a copy of
  ``models/llama4/image_processing_llama4.py`` ``find_supported_resolutions`` and
  ``get_best_fit``: the canvas of 336 px tiles (at most ``max_patches`` = 16) that needs the
  least upscaling, or else the least downscaling, the smallest such canvas; the image is resized
  into it and padded, then cut into its tiles, plus a global tile (the whole image at 336 px)
  when there is more than one. Each tile runs 576 patches of 14 px and the class token; the
  pixel shuffle (ratio 0.5) leaves 144 tokens a tile (``processing_llama4.py``
  ``replace_image_token``: (336 / 14)^2 // 4).
* ``pixtral`` (Mistral 3: Mistral Small 3.1 and 3.2): :func:`pixtral_resize`, a copy of
  ``models/pixtral/image_processing_pixtral.py`` ``get_resize_output_image_size``: the image
  scaled down (never up) to fit ``size`` (the longest edge), each side rounded up to a multiple
  of patch x spatial merge (28 px); the tower runs (H/14)(W/14) patches, Mistral 3's patch
  merger gives (H/28)(W/28) ``[IMG]`` tokens.
* ``glm4v`` (GLM-4.5V): :func:`glm4v_resize`, a copy of ``models/glm4v/image_processing_glm4v.py``
  ``smart_resize`` for an image (two frames of one temporal patch): Qwen2-VL's rule after
  scaling an image with a side under 28 px up to 28 px, its pixel limits applying to the two
  frames (``ImageRule.min_pixels`` and ``max_pixels`` hold one frame's, half the processor's).
  ERNIE-4.5-VL's processor (``models/ernie4_5_vl_moe/image_processing_ernie4_5_vl_moe.py``) runs
  Qwen2-VL's ``smart_resize`` as written, with its own pixel limits: rule ``qwen2_vl``.
* ``navit`` (Kimi K2.5's MoonViT): :func:`navit_resize`, a copy of
  ``models/kimi_k25/image_processing_kimi_k25.py`` ``navit_resize``: native resolution, scaled
  down (never up) to at most 16384 patches of 14 px and 512 patches a side, then padded to
  multiples of 28 px; the tower runs every patch, the projector merges 2 x 2 into a
  ``<|media_pad|>`` token (``get_number_of_image_patches``, ``processing_kimi_k25.py``).
* ``gemma4`` (Gemma 4): :func:`gemma4_resize`, a copy of ``models/gemma4/image_processing_gemma4.py``
  ``get_aspect_ratio_preserving_size``: the image scaled (up or down) to the largest size of
  its aspect ratio within 280 x 9 = 2,520 patches of 16 px, sides multiples of 48 px; the pooler
  averages 3 x 3 patches into a token (at most 280). The processor pads every image's patches
  to 2,520 and the tower runs them all (the padding masked): ``patches`` counts 2,520.

* ``mobilenet`` (Gemma 3n's MobileNet-V5): one crop of 768 px whatever the image (the tower's
  input size in timm's ``mobilenetv5_300m_enc`` configuration); its multi-scale fusion adapter
  pools the features to a 16 x 16 grid, one token a cell of 48 px: 256 tokens
  (``vision_soft_tokens_per_image``). ``patches`` counts those cells; a convolutional tower has
  no patches, and its FLOPs are the rule's ``conv_flops``, attention included.

* ``mllama`` (Llama 3.2 Vision): :func:`mllama_canvas`, a copy of
  ``models/mllama/image_processing_mllama.py`` ``get_optimal_tiled_canvas``: the canvas of 560 px
  tiles (at most ``max_image_tiles`` = 4, arranged as ``get_all_supported_aspect_ratios`` lists
  them) that needs the least upscaling, or else the least downscaling, the smallest such
  canvas. The image's tokens do not join the prompt: the prompt holds one ``<|image|>`` token an
  image, and the language model's cross-attention layers read the tiles' states instead, 1,601
  a tile (40 x 40 patches of 14 px and the class token), ``ImageWork.states``. The tower runs
  every image as ``max_num_tiles`` tiles (the processor pads the missing ones, masked), each
  padded to a multiple of 8 tokens (1,608: ``modeling_mllama.py`` ``MllamaVisionModel.forward``),
  and its local and global layers attend over all the tiles at once; vLLM keeps the states of
  the image's own tiles only (``vllm/model_executor/models/mllama.py`` @
  6f0b37b889781873e3e766bdf24c95e2052ce081, ``MllamaMultiModalProcessor.apply``: the encoder
  prompt is the tiles times 1,601 tokens, which its block manager caches).

The tokens counted are the image's placeholder tokens, those the tower's embeddings replace.
The delimiters written once around them, by a chat template or by the processor (Qwen's
``<|vision_start|>``, InternVL's ``<img>``, Gemma's ``<start_of_image>``, GLM's
``<|begin_of_image|>``, Pixtral's ``[IMG_END]``, Llama 4's ``<|image_start|>``, ``<|image|>`` and
``<|image_end|>``), a fixed few an image, are text tokens of the prompt. The tokens a processor
writes among the placeholders, as many as the image's rows or tiles, are
``ImageWork.separators``: Pixtral's ``[IMG_BREAK]`` after each row of tokens but the last
(rows - 1); Llama 4's ``<|tile_x_separator|>`` between the tiles of a row and
``<|tile_y_separator|>`` after each row (one a tile, when there is more than one).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..core.errors import ConfigError
from .model import Extra, ImageRule

__all__ = ["ImageWork", "smart_resize", "tiled_canvas", "image_work", "image_tower",
           "DEFAULT_IMAGE_SIZE", "llama4_canvas", "pixtral_resize", "glm4v_resize", "navit_resize",
           "gemma4_resize", "MODELLED_IMAGE_FAMILIES", "IMAGES_LIMIT", "IMAGE_SIDE_LIMIT",
           "resized_work", "mllama_canvas", "scaled_up"]

#: The image size (width, height) [px] assumed where none is given.
DEFAULT_IMAGE_SIZE = (1024, 1024)

#: The families whose image rule is modelled, as the command line's help and the refusal of an
#: unmodelled tower name them.
MODELLED_IMAGE_FAMILIES = ("Qwen2-VL", "Qwen2.5-VL", "Qwen3-VL", "Qwen3.5", "LLaVA-1.5",
                           "InternVL", "Gemma 3", "Llama 4", "Mistral 3", "GLM-4.5V",
                           "ERNIE-4.5-VL", "Kimi K2.5", "Gemma 4", "Gemma 3n", "Qwen2.5-Omni",
                           "Qwen3-Omni", "Llama 3.2 Vision")

#: Most images a prompt may hold, and the largest image side [px], the library and the command
#: line accept.
IMAGES_LIMIT = 1 << 16
IMAGE_SIDE_LIMIT = 1 << 16


@dataclass(frozen=True)
class ImageWork:
    """What one image of ``size`` (width, height) [px] gives: ``tokens`` in the prompt, the
    ``patches`` the tower runs (over every crop, class tokens included), the query-key pairs of
    one full-attention block (``full_pairs``) and of one windowed block (``window_pairs``),
    the size the processor resizes it to (``resized``, width x height of one crop or of the
    whole image) and the number of crops (tiles and thumbnail); ``separators``, the tokens the
    processor writes among the image's tokens (Pixtral's row breaks, Llama 4's tile
    separators), which are prompt tokens too but come from no embedding of the tower;
    ``states``, for a cross-attention model (Llama 3.2 Vision), the tower's outputs the
    language model's cross-attention layers read (0 where the image's tokens join the prompt)."""

    tokens: int
    patches: int
    full_pairs: int
    window_pairs: int
    resized: tuple[int, int]
    crops: int
    separators: int = 0
    states: int = 0


def smart_resize(height: int, width: int, factor: int, min_pixels: int,
                 max_pixels: int, what: str = "image") -> tuple[int, int]:
    """(height, width) as Qwen2-VL's processor resizes an image: transformers 5.24.0
    ``models/qwen2_vl/image_processing_qwen2_vl.py`` ``smart_resize``, the same arithmetic
    (Python's ``round``, half to even); an aspect ratio over 200 is refused (``what`` names the
    input in the message: a video's frame).

    >>> smart_resize(700, 1000, 28, 56 * 56, 28 * 28 * 1280)
    (700, 1008)
    """
    if max(height, width) / min(height, width) > 200:
        raise ConfigError(f"{what} {width} x {height} px: the aspect ratio must be under 200 "
                          "(the processor refuses it)")
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def tiled_canvas(height: int, width: int, tile: int, min_tiles: int,
                 max_tiles: int) -> tuple[int, int]:
    """(columns, rows) of tiles as InternVL's processor crops an image: transformers 5.24.0
    ``models/got_ocr2/image_processing_got_ocr2.py`` ``get_optimal_tiled_canvas`` (the
    arrangements of ``get_all_supported_aspect_ratios``, ordered by tile count; the closest
    aspect ratio, ties to more tiles while the image's area exceeds half theirs).

    >>> tiled_canvas(700, 1000, 448, 1, 12)
    (3, 2)
    """
    grids = sorted(((w, h) for w in range(1, max_tiles + 1) for h in range(1, max_tiles + 1)
                    if min_tiles <= w * h <= max_tiles), key=lambda g: g[0] * g[1])
    aspect = width / height
    area = width * height
    best_diff, best = float("inf"), (1, 1)
    for grid in grids:
        diff = abs(aspect - grid[0] / grid[1])
        if diff < best_diff:
            best_diff, best = diff, grid
        elif diff == best_diff and area > 0.5 * tile * tile * grid[0] * grid[1]:
            best = grid
    return best


def _least_scaling(canvases: list[tuple[int, int]], height: int, width: int,
                   tile: int) -> tuple[int, int]:
    """(rows, columns) of the canvas (height, width) [px] of ``canvases`` that Llama 4's and
    Llama 3.2 Vision's processors choose for an image: the smallest scale min(canvas height /
    height, canvas width / width) of at least 1 if any, else the largest; among the canvases
    of that scale the smallest area, the first listed on ties; scales compared exactly."""
    scales = [min(Fraction(ch, height), Fraction(cw, width)) for ch, cw in canvases]
    up = [s for s in scales if s >= 1]
    chosen = min(up) if up else max(scales)
    fits = [c for c, s in zip(canvases, scales) if s == chosen]
    best = min(fits, key=lambda c: c[0] * c[1])  # min keeps the first of equal areas
    return best[0] // tile, best[1] // tile


def llama4_canvas(height: int, width: int, tile: int, max_tiles: int) -> tuple[int, int]:
    """(rows, columns) of tiles as Llama 4's processor lays an image out: transformers 5.24.0
    ``models/llama4/image_processing_llama4.py`` ``find_supported_resolutions`` (every grid of
    at most ``max_tiles`` tiles, in its order) and ``get_best_fit`` (resize_to_max_canvas off):
    for each canvas the scale that fits the image without distortion, min(canvas height /
    height, canvas width / width); the smallest scale of at least 1 if any (the least
    upscaling), else the largest (the least downscaling); among the canvases of that scale the
    smallest area, the first listed on ties. Scales are compared exactly (the processor's
    float32 quotients order alike: two different quotients k 336 / s of sides s under 2^16
    differ by more than float32's rounding).

    >>> llama4_canvas(700, 1000, 336, 16)
    (3, 3)
    """
    grids: dict[Fraction, list[tuple[int, int]]] = {}
    for chunks in range(max_tiles, 0, -1):
        for f in sorted(d for d in range(1, chunks + 1) if chunks % d == 0):
            grids.setdefault(Fraction(f, chunks // f), []).append((f, chunks // f))
    canvases = [(h * tile, w * tile) for grid in grids.values() for h, w in grid]
    return _least_scaling(canvases, height, width, tile)


def mllama_canvas(height: int, width: int, tile: int, max_tiles: int) -> tuple[int, int]:
    """(rows, columns) of tiles as Llama 3.2 Vision's processor lays an image out:
    transformers 5.24.0 ``models/mllama/image_processing_mllama.py``
    ``get_optimal_tiled_canvas`` (the arrangements of ``get_all_supported_aspect_ratios``, at
    most ``max_tiles`` tiles, in its order): for each canvas the scale min(canvas height /
    height, canvas width / width); the smallest scale of at least 1 if any, else the largest;
    among the canvases of that scale the smallest area, the first listed on ties. Scales are
    compared exactly (the processor's float64 quotients of sides under 2^16 order alike).

    >>> mllama_canvas(700, 1000, 560, 4)
    (2, 2)
    >>> mllama_canvas(1080, 1920, 560, 4)
    (2, 2)
    >>> mllama_canvas(100, 3000, 560, 4)
    (1, 4)
    """
    arrangements = [(a, b) for a in range(1, max_tiles + 1) for b in range(1, max_tiles + 1)
                    if a * b <= max_tiles]
    # the processor reads each arrangement (a, b) as a canvas of a tiles high, b wide
    canvases = [(a * tile, b * tile) for a, b in arrangements]
    return _least_scaling(canvases, height, width, tile)


def pixtral_resize(height: int, width: int, longest: int, factor: int) -> tuple[int, int]:
    """(height, width) as Pixtral's processor resizes an image: transformers 5.24.0
    ``models/pixtral/image_processing_pixtral.py`` ``get_resize_output_image_size`` and
    ``_num_image_tokens``: scaled down (floored) to fit a square of side ``longest`` when it
    does not, then each side rounded up to a multiple of ``factor`` (patch x spatial merge:
    ``processing_pixtral.py`` passes that product as the processor's patch size).

    >>> pixtral_resize(700, 1000, 1540, 28)
    (700, 1008)
    >>> pixtral_resize(2000, 3000, 1540, 28)
    (1036, 1540)
    """
    ratio = max(height / longest, width / longest)
    if ratio > 1:
        height, width = int(math.floor(height / ratio)), int(math.floor(width / ratio))
    if not height or not width:
        raise ConfigError(f"image {width} x {height} px after resizing: the aspect ratio is too "
                          "extreme for the processor (a side shrinks to nothing)")
    return ((height - 1) // factor + 1) * factor, ((width - 1) // factor + 1) * factor


def glm4v_resize(height: int, width: int, factor: int, min_pixels: int,
                 max_pixels: int) -> tuple[int, int]:
    """(height, width) as GLM-4.5V's processor resizes an image: transformers 5.24.0
    ``models/glm4v/image_processing_glm4v.py`` ``smart_resize`` with num_frames =
    temporal_factor = 2 (an image is one temporal patch of two frames): a side under ``factor``
    scales the image up to it (truncated), then :func:`smart_resize`. ``min_pixels`` and
    ``max_pixels`` are one frame's: the processor compares 2 h w with its limits, the same test
    as h w against half of them (the reader refuses odd limits), and its beta
    sqrt(2 h w / max) is the same quotient.

    >>> glm4v_resize(700, 1000, 28, 6272, 5_880_000)
    (700, 1008)
    >>> glm4v_resize(10, 300, 28, 6272, 5_880_000)
    (28, 840)

    An error names the image as given, not as scaled up:

    >>> glm4v_resize(10, 3000, 28, 6272, 5_880_000)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.ConfigError: image 3000 x 10 px: the aspect ratio must be under 200 (the processor refuses it)
    """
    height, width = scaled_up(height, width, factor)
    return smart_resize(height, width, factor, min_pixels, max_pixels)


def scaled_up(height: int, width: int, factor: int, what: str = "image") -> tuple[int, int]:
    """(height, width) [px] of an image whose shorter side is under ``factor`` scaled up to it,
    the aspect ratio kept and each side truncated to whole pixels, as GLM-4V's ``smart_resize``
    and Qwen3-VL's video ``smart_resize`` do first; an aspect ratio over 200 is refused, as both
    refuse it (``what`` names the input in the message).

    >>> scaled_up(10, 300, 28), scaled_up(700, 1000, 28)
    ((28, 840), (700, 1000))
    >>> scaled_up(1, 300, 28, "video")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.ConfigError: video 300 x 1 px: the aspect ratio must be under 200 (the processor refuses it)
    """
    given = (height, width)
    if height < factor or width < factor:
        scale = max(factor / height, factor / width)
        height, width = int(height * scale), int(width * scale)
    if max(height, width) / min(height, width) > 200:
        raise ConfigError(f"{what} {given[1]} x {given[0]} px: the aspect ratio must be under "
                          "200 (the processor refuses it)")
    return height, width


def navit_resize(height: int, width: int, patch: int, merge: int, max_patches: int,
                 max_side: int) -> tuple[int, int]:
    """(height, width) of the padded image as Kimi K2.5's processor prepares it: transformers
    5.24.0 ``models/kimi_k25/image_processing_kimi_k25.py`` ``navit_resize``, the same
    arithmetic: the scale min(1, sqrt(max_patches / whole patches), max_side p / height,
    max_side p / width), the sides truncated (at least 1 px, at most max_side p), then padded
    up to multiples of p x merge.

    >>> navit_resize(700, 1000, 14, 2, 16384, 512)
    (700, 1008)
    >>> navit_resize(3000, 4000, 14, 2, 16384, 512)
    (1568, 2100)
    """
    patches = max(1.0, height // patch) * max(1.0, width // patch)
    scale = min(1.0, math.sqrt(max_patches / patches), max_side * patch / height,
                max_side * patch / width)
    h = min(max(1, int(height * scale)), max_side * patch)
    w = min(max(1, int(width * scale)), max_side * patch)
    f = patch * merge
    return (f - h % f) % f + h, (f - w % f) % f + w


def gemma4_resize(height: int, width: int, patch: int, max_patches: int,
                  pooling: int) -> tuple[int, int]:
    """(height, width) as Gemma 4's processor resizes an image: transformers 5.24.0
    ``models/gemma4/image_processing_gemma4.py`` ``get_aspect_ratio_preserving_size``, the
    same arithmetic: the image scaled by sqrt(max_patches p^2 / its area), each side floored to
    a multiple of k p (k = ``pooling``); a side that floors to nothing is one k p and the other
    floor(its ratio) k p, at most (max_patches // k^2) k p.

    >>> gemma4_resize(700, 1000, 16, 2520, 3)
    (672, 960)
    """
    target = max_patches * patch ** 2
    factor = math.sqrt(target / (height * width))
    side = pooling * patch
    h = int(math.floor(factor * height / side)) * side
    w = int(math.floor(factor * width / side)) * side
    if not h and not w:
        raise ConfigError(f"image {width} x {height} px: the processor cannot resize it")
    longest = (max_patches // pooling ** 2) * side
    if not h:
        h, w = side, min(int(math.floor(width / height)) * side, longest)
    elif not w:
        h, w = min(int(math.floor(height / width)) * side, longest), side
    if h * w > target:
        raise ConfigError(f"image {width} x {height} px: resized to {w} x {h} px it exceeds "
                          f"the processor's {max_patches} patches")
    return h, w


def _bands(n: int, k: int) -> int:
    """The sum of the squared lengths of the bands that cut n into runs of k (the last
    shorter): the windows' extent along one side."""
    q, r = divmod(n, k)
    return q * k * k + r * r


def image_work(rule: ImageRule, width: int, height: int) -> ImageWork:
    """The tokens and the tower's work for one ``width`` x ``height`` px image under ``rule``.

    >>> from llm_arithmetic.catalog.model import ImageRule
    >>> clip = ImageRule(rule="fixed", patch=14, merge=1, width=1024, layers=24, size=336,
    ...                  tower_matmul=0, merger_matmul=0, class_token=1)
    >>> image_work(clip, 1000, 700).tokens
    576
    """
    for label, v in (("width", width), ("height", height)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ConfigError(f"image {label} must be a positive whole number of pixels, "
                              f"got {v!r:.40}")
    p, m = rule.patch, rule.merge
    if rule.rule in ("qwen2_vl", "glm4v", "pixtral", "navit"):
        if rule.rule == "pixtral":
            h, w = pixtral_resize(height, width, rule.size, p * m)
        elif rule.rule == "navit":
            h, w = navit_resize(height, width, p, m, rule.max_pixels // (p * p), rule.size // p)
        else:
            resize = smart_resize if rule.rule == "qwen2_vl" else glm4v_resize
            h, w = resize(height, width, p * m, rule.min_pixels, rule.max_pixels)
        work = resized_work(rule, w, h)
        if rule.rule == "pixtral":
            work = replace(work, separators=h // (p * m) - 1)
        return work
    if rule.rule == "mobilenet":
        cells = (rule.size // p) ** 2
        return ImageWork(tokens=cells, patches=cells, full_pairs=0, window_pairs=0,
                         resized=(rule.size, rule.size), crops=1)
    if rule.rule == "gemma4":
        budget = rule.max_pixels // (p * p)
        h, w = gemma4_resize(height, width, p, budget, m)
        return ImageWork(tokens=(h // p) * (w // p) // (m * m), patches=budget,
                         full_pairs=budget ** 2, window_pairs=0, resized=(w, h), crops=1)
    side = rule.size // p
    per_crop = side * side + rule.class_token
    if rule.rule == "mllama":
        rows, cols = mllama_canvas(height, width, rule.size, rule.max_tiles)
        padded = -(-per_crop // 8) * 8  # each tile's tokens padded to a multiple of 8
        run = rule.max_tiles * padded  # every image padded to max_tiles tiles, attended at once
        return ImageWork(tokens=1, patches=run, full_pairs=run * run, window_pairs=0,
                         resized=(cols * rule.size, rows * rule.size), crops=rows * cols,
                         states=rows * cols * per_crop)
    tokens = (side // m) ** 2 + (rule.class_token if rule.keep_class else 0)
    crops, separators = 1, 0
    if rule.rule == "tiles":
        cols, rows = tiled_canvas(height, width, rule.size, 1, rule.max_tiles)
        crops = cols * rows + (1 if cols * rows != 1 else 0)
    elif rule.rule == "llama4":
        rows, cols = llama4_canvas(height, width, rule.size, rule.max_tiles)
        crops = rows * cols + (1 if rows * cols > 1 else 0)
        separators = rows * cols if rows * cols > 1 else 0
    return ImageWork(tokens=crops * tokens, patches=crops * per_crop,
                     full_pairs=crops * per_crop ** 2, window_pairs=0,
                     resized=(rule.size, rule.size), crops=crops, separators=separators)


def image_tower(model: Any) -> tuple[Extra, ImageRule]:
    """The model's vision tower and its image rule; a :class:`ConfigError` naming the model
    when it has no tower or when its family's rule is not modelled.

    >>> from llm_arithmetic import get_model
    >>> tower, rule = image_tower(get_model("qwen2.5-vl-3b-instruct"))
    >>> tower.params, rule.rule, rule.patch, rule.merge
    (668684288, 'qwen2_vl', 14, 2)
    >>> image_tower(get_model("llama-3.1-8b"))
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.ConfigError: llama-3.1-8b has no vision tower: it takes no images
    """
    towers = [x for x in model.extras if x.name.startswith("vision tower")]
    rules = [(x, x.image) for x in towers if x.image is not None]
    if rules:
        return rules[0]
    if not towers:
        raise ConfigError(f"{model.name} has no vision tower: it takes no images")
    raise ConfigError(f"{model.name}: the image-token rule of its vision tower "
                      f"({towers[0].note or towers[0].name}) is not modelled (modelled: "
                      f"{', '.join(MODELLED_IMAGE_FAMILIES)})")


def resized_work(rule: ImageRule, width: int, height: int) -> ImageWork:
    """The work of one already resized ``width`` x ``height`` px grid under a patch-and-merge
    ``rule`` (Qwen's): (H/p)(W/p) patches, merged m x m into tokens, the full blocks' pairs and
    the windowed blocks' (:func:`image_work` without the resizing; a video's temporal patch,
    :mod:`llm_arithmetic.catalog.video`).

    >>> from llm_arithmetic import get_model
    >>> w = resized_work(image_tower(get_model("qwen2.5-vl-3b-instruct"))[1], 1008, 700)
    >>> w.tokens, w.patches, w.window_pairs
    (900, 3600, 223488)
    """
    p, m = rule.patch, rule.merge
    patches = (height // p) * (width // p)
    window = 0
    if rule.window:
        window = m ** 4 * _bands(height // (p * m), rule.window) * _bands(width // (p * m),
                                                                            rule.window)
    return ImageWork(tokens=patches // (m * m), patches=patches, full_pairs=patches ** 2,
                     window_pairs=window, resized=(width, height), crops=1)
