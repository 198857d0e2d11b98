"""How many tokens an image adds to a prompt, and what the vision tower runs for it: each
family's processor rule, as transformers 5.24.0 computes it, on a model's
:class:`~llm_arithmetic.catalog.model.ImageRule`.

* ``qwen2_vl`` (Qwen2-VL, Qwen2.5-VL): :func:`smart_resize`, a copy of
  ``models/qwen2_vl/image_processing_qwen2_vl.py`` ``smart_resize``: each side rounded to a
  multiple of patch x merge (28 px), the area brought within [min_pixels, max_pixels] keeping the
  aspect ratio; the tower runs (H/14)(W/14) patches, the merger gives (H/28)(W/28) tokens.
* ``fixed`` (LLaVA-1.5's CLIP, Gemma 3's SigLIP): one crop of the tower's ``image_size``
  whatever the image (CLIPImageProcessor resizes and center-crops to 336 px; Gemma3ImageProcessor
  resizes to 896 px, pan and scan off by default): (size / patch)^2 patches, a class token where
  the tower has one, merged (Gemma 3 pools 4 x 4) into the image's tokens. LLaVA's ``default``
  feature strategy drops the class token (``models/llava/modeling_llava.py``
  ``get_image_features``: ``selected_image_feature[:, 1:]``): 576 tokens at 336 px.
* ``tiles`` (InternVL): :func:`tiled_canvas`, a copy of
  ``models/got_ocr2/image_processing_got_ocr2.py`` ``get_optimal_tiled_canvas``: the grid of
  448 px tiles (at most ``max_tiles``) whose aspect ratio is closest to the image's, plus a
  thumbnail tile when there is more than one (``crop_image_to_patches``, ``use_thumbnail``);
  256 tokens a tile (1024 patches pixel-shuffled by 0.5).

The tokens counted are the image's placeholder tokens; the delimiters a chat template writes
around them (Qwen's ``<|vision_start|>``, InternVL's ``<img>``, Gemma 3's ``<start_of_image>``)
are text tokens of the prompt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..core.errors import ConfigError
from .model import Extra, ImageRule

__all__ = ["ImageWork", "smart_resize", "tiled_canvas", "image_work", "image_tower",
           "DEFAULT_IMAGE_SIZE"]

#: The image size (width, height) [px] assumed where none is given.
DEFAULT_IMAGE_SIZE = (1024, 1024)


@dataclass(frozen=True)
class ImageWork:
    """What one image of ``size`` (width, height) [px] gives: ``tokens`` in the prompt, the
    ``patches`` the tower runs (over every crop, class tokens included), the query-key pairs of
    one full-attention block (``full_pairs``) and of one windowed block (``window_pairs``),
    the size the processor resizes it to (``resized``, width x height of one crop or of the
    whole image) and the number of crops (tiles and thumbnail)."""

    tokens: int
    patches: int
    full_pairs: int
    window_pairs: int
    resized: tuple[int, int]
    crops: int


def smart_resize(height: int, width: int, factor: int, min_pixels: int,
                 max_pixels: int) -> tuple[int, int]:
    """(height, width) as Qwen2-VL's processor resizes an image: transformers 5.24.0
    ``models/qwen2_vl/image_processing_qwen2_vl.py`` ``smart_resize``, the same arithmetic
    (Python's ``round``, half to even).

    >>> smart_resize(700, 1000, 28, 56 * 56, 28 * 28 * 1280)
    (700, 1008)
    """
    if max(height, width) / min(height, width) > 200:
        raise ConfigError(f"image {width} x {height} px: the aspect ratio must be under 200 "
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
    if rule.rule == "qwen2_vl":
        h, w = smart_resize(height, width, p * m, rule.min_pixels, rule.max_pixels)
        patches = (h // p) * (w // p)
        window = 0
        if rule.window:
            window = m ** 4 * _bands(h // (p * m), rule.window) * _bands(w // (p * m),
                                                                           rule.window)
        return ImageWork(tokens=patches // (m * m), patches=patches, full_pairs=patches ** 2,
                         window_pairs=window, resized=(w, h), crops=1)
    side = rule.size // p
    per_crop = side * side + rule.class_token
    tokens = (side // m) ** 2 + (rule.class_token if rule.keep_class else 0)
    crops = 1
    if rule.rule == "tiles":
        cols, rows = tiled_canvas(height, width, rule.size, 1, rule.max_tiles)
        crops = cols * rows + (1 if cols * rows != 1 else 0)
    return ImageWork(tokens=crops * tokens, patches=crops * per_crop,
                     full_pairs=crops * per_crop ** 2, window_pairs=0,
                     resized=(rule.size, rule.size), crops=crops)


def image_tower(model: Any) -> tuple[Extra, ImageRule]:
    """The model's vision tower and its image rule; a :class:`ConfigError` naming the model
    when it has no tower or when its family's rule is not modelled."""
    towers = [x for x in model.extras if x.name.startswith("vision tower")]
    rules = [(x, x.image) for x in towers if x.image is not None]
    if rules:
        return rules[0]
    if not towers:
        raise ConfigError(f"{model.name} has no vision tower: it takes no images")
    raise ConfigError(f"{model.name}: the image-token rule of its vision tower "
                      f"({towers[0].note or towers[0].name}) is not modelled (modelled: "
                      "Qwen2-VL, Qwen2.5-VL, LLaVA-1.5's CLIP, InternVL, Gemma 3)")
