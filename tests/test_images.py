"""Images in the prompt: tokens per image by each family's processor rule, the vision tower's
FLOPs and time, and how they join the prompt and the time to first token. Expected values are
worked out here from the processors' rules (transformers 5.24.0) and the catalog's config.json
files, or printed by transformers' own rule functions (the command is given)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from llm_arithmetic.catalog.images import image_tower, image_work
from llm_arithmetic.catalog.model_catalog import get_model
from llm_arithmetic.catalog.readers import read_config
from llm_arithmetic.cli import main
from llm_arithmetic.core.errors import ConfigError, InputError
from llm_arithmetic.estimate import estimate
from llm_arithmetic.media import image_inputs


def _rule(name):
    return image_tower(get_model(name))[1]


def test_qwen2_5_vl_by_hand():
    # 1000 x 700 px: round(1000 / 28) = 36 -> 1008, 700 / 28 = 25 -> 700; 1008 x 700 = 705,600
    # px is within [56^2, 28^2 x 16384 = 12,845,056]: 36 x 25 = 900 tokens, 72 x 50 = 3,600
    # patches of 14 px. Windows of 112 px = 4 merged tokens (8 x 8 patches): rows 25 = 6 x 4 + 1,
    # columns 36 = 9 x 4; pairs 16 x (6 x 16 + 1) x (9 x 16).
    w = image_work(_rule("qwen2.5-vl-3b-instruct"), 1000, 700)
    assert (w.resized, w.tokens, w.patches) == ((1008, 700), 900, 3600)
    assert w.full_pairs == 3600 ** 2 and w.window_pairs == 16 * 97 * 144


# Printed by transformers 5.24.0's own smart_resize (qwen2_vl/image_processing_qwen2_vl.py, with
# factor 28 and the checkpoints' preprocessor_config.json bounds, min_pixels=3136,
# max_pixels=12845056: `smart_resize(h, w, factor=28, min_pixels=3136, max_pixels=12845056)`
# below) and get_optimal_tiled_canvas
# (got_ocr2/image_processing_got_ocr2.py; 448 px tiles, 1 to 12, a thumbnail when more than one),
# their source taken from the installed files with ast and run as written (the processor classes
# need torchvision or PIL, which that environment lacks), in a venv with transformers 5.24.0:
#   import ast, math, pathlib, functools, transformers
#   root = pathlib.Path(transformers.__file__).parent / "models"
#   ns = {"math": math, "lru_cache": functools.lru_cache}
#   for path, names in [("qwen2_vl/image_processing_qwen2_vl.py", {"smart_resize"}),
#                       ("got_ocr2/image_processing_got_ocr2.py",
#                        {"get_all_supported_aspect_ratios", "get_optimal_tiled_canvas"})]:
#       tree = ast.parse((root / path).read_text())
#       exec(compile(ast.Module([n for n in tree.body if isinstance(n, ast.FunctionDef)
#                                and n.name in names], []), path, "exec"), ns)
#   for w, h in SIZES:
#       rh, rw = ns["smart_resize"](h, w, factor=28, min_pixels=3136, max_pixels=12845056)
#       cols, rows = ns["get_optimal_tiled_canvas"]((h, w), (448, 448), 1, 12)
#       print(w, h, rw, rh, rw * rh // 784, cols * rows + (cols * rows != 1))
# columns: width, height, Qwen2-VL resized width and height, its tokens, InternVL's tiles.
PROCESSOR_PRINTED = [
    (1000, 700, 1008, 700, 900, 7), (1024, 1024, 1036, 1036, 1369, 10),
    (640, 480, 644, 476, 391, 13), (1920, 1080, 1932, 1092, 2691, 9), (50, 60, 56, 56, 4, 13),
    (4000, 3000, 4004, 2996, 15301, 13), (300, 1200, 308, 1204, 473, 5),
    (448, 448, 448, 448, 256, 1), (3000, 40, 2996, 28, 107, 13),
]


def test_rules_match_transformers_printed():
    qwen, intern = _rule("qwen2-vl-7b-instruct"), _rule("internvl3-1b")
    for w, h, rw, rh, tokens, tiles in PROCESSOR_PRINTED:
        q = image_work(qwen, w, h)
        assert (q.resized, q.tokens) == ((rw, rh), tokens), (w, h)
        i = image_work(intern, w, h)
        # 256 tokens a tile: (448 / 14 / 2)^2; 1024 patches and the class token a tile
        assert (i.crops, i.tokens, i.patches) == (tiles, 256 * tiles, 1025 * tiles), (w, h)


def test_fixed_crops_by_hand():
    # LLaVA-1.5: CLIP at 336 px, patch 14: 24^2 = 576 patches + CLS; the default strategy drops
    # CLS: 576 tokens whatever the image. Gemma 3: SigLIP 896 / 14 = 64 per side, no class token,
    # pooled to mm_tokens_per_image = 256 (16 per side).
    for size in ((1000, 700), (64, 4000)):
        llava = image_work(_rule("llava-1.5-7b-hf"), *size)
        assert (llava.tokens, llava.patches) == (576, 577)
        gemma = image_work(_rule("gemma-3-4b"), *size)
        assert (gemma.tokens, gemma.patches) == (256, 4096)


def test_llava_flops_by_hand():
    # llava-1.5-7b-hf's config: CLIP h 1024, MLP 4096, 24 layers, patch 14, 3 channels; the
    # projector 1024 -> 4096 -> 4096; vision_feature_layer -2, so 24 - 2 + 1 = 23 layers run
    # (vLLM's llava.py builds the tower without the last). Per patch: 3 x 14^2 x 1024 + 23 x
    # (4 x 1024^2 + 2 x 1024 x 4096); per token 1024 x 4096 + 4096^2; every layer run attends
    # over 577 x 577 pairs.
    tower = 3 * 14 * 14 * 1024 + 23 * (4 * 1024 ** 2 + 2 * 1024 * 4096)
    projector = 1024 * 4096 + 4096 ** 2
    per_image = 2 * tower * 577 + 2 * projector * 576 + 4 * 1024 * 23 * 577 ** 2
    v = image_inputs(get_model("llava-1.5-7b-hf"), 3, (800, 600))
    assert v["vision_prefill_flops"] == 3 * per_image
    assert v["image_tokens"] == 3 * 576


def test_estimate_adds_tokens_and_tower_time():
    bw, peak = 2e12, 500e12
    kw = dict(bandwidth=bw, peak_flops=peak, generate=16)
    e = estimate("qwen2.5-vl-3b-instruct", prompt=100, images=2, image_size=(1000, 700), **kw)
    plain = estimate("qwen2.5-vl-3b-instruct", prompt=100 + 2 * 900, **kw)
    assert (e.image_tokens_per_image, e.image_tokens, e.prompt) == (900, 1800, 1900)
    # by hand (the formula's example): 4,910,104,903,680 FLOPs an image; the tower and merger's
    # 668,684,288 weights (FAMILIES.md 17.36) at 16 bits
    assert e.vision_prefill_flops == 2 * 4_910_104_903_680
    assert e.vision_weight_bytes == 668_684_288 * 2
    t = max(668_684_288 * 2 / bw, 2 * 4_910_104_903_680 / peak)
    assert e.vision_prefill_seconds == pytest.approx(t, rel=1e-12)
    assert e.ttft_seconds == pytest.approx(plain.ttft_seconds + t, rel=1e-12)
    assert e.request_seconds == pytest.approx(plain.request_seconds + t, rel=1e-12)
    assert e.tpot_seconds == plain.tpot_seconds
    assert estimate("qwen2.5-vl-3b-instruct").images is None


@pytest.mark.parametrize("name, kw, error, words", [
    ("llama-2-7b", dict(images=1), ConfigError, "llama-2-7b has no vision tower"),
    ("kimi-vl-a3b-instruct", dict(images=1), ConfigError, "not modelled"),
    ("qwen2-vl-7b-instruct", dict(images=0), InputError, "images must be"),
    ("qwen2-vl-7b-instruct", dict(images=1, image_size=(0, 5)), InputError, "image_size"),
    ("qwen2-vl-7b-instruct", dict(images=1, image_size=(10000, 20)), InputError,
     "image_size"),
    ("qwen2-vl-7b-instruct", dict(image_size=(100, 100)), InputError, "images must be given"),
])
def test_refusals_name_the_model_or_the_argument(name, kw, error, words):
    with pytest.raises(error, match=words):
        estimate(name, **kw)


def test_cli_images(capsys):
    assert main(["describe", "internvl3-1b", "--images", "2", "--image-size", "1000x700",
                 "--hardware", "h100-sxm", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    # 3 x 2 tiles + the thumbnail, 256 tokens each; the cache's context is the prompt's
    assert (d["image_tokens"], d["prompt"], d["context"]) == (2 * 7 * 256,) * 3
    assert d["vision_prefill_flops"] > 0 and d["vision_prefill_seconds"] > 0
    assert main(["describe", "kimi-vl-a3b-instruct", "--images", "1"]) == 2
    err = capsys.readouterr().err
    assert "kimi-vl-a3b-instruct" in err and "not modelled" in err and "Traceback" not in err


def test_explain_adds_the_tower_to_the_plans_step():
    from llm_arithmetic.explain import explain

    e = estimate("llava-1.5-7b-hf", bandwidth=1e12, peak_flops=100e12, images=1)
    x = explain(e, "ttft_seconds")
    plain = estimate("llava-1.5-7b-hf", bandwidth=1e12, peak_flops=100e12, prompt=576)
    assert x.value == e.ttft_seconds
    assert x.value == pytest.approx(plain.ttft_seconds + e.vision_prefill_seconds, rel=1e-12)
    # the plan's step: the prefill's step and the encoders', added; the tower is one of them
    assert x.op == "add" and "vision tower" in x.doc
    assert set(x.depends_on) == {"prefill_seconds", "encoders_ttft_seconds"}
    assert set(explain(e, "encoders_ttft_seconds").depends_on) == {"vision_ttft_seconds",
                                                                    "audio_ttft_seconds"}
    assert explain(e, "vision_prefill_seconds").value == e.vision_prefill_seconds


def test_the_tower_is_a_step_of_the_plan():
    # without images the plan's tower adds nothing: the time to first token is the prefill's,
    # to the bit, and the tower's fields are empty
    for name in ("llama-2-7b", "qwen2.5-vl-3b-instruct"):
        e = estimate(name, hardware="h100-sxm", prompt=1000, tp=2, overlap=False)
        ev = e._plan
        assert ev.get("vision_ttft_seconds") == 0
        assert e.ttft_seconds == ev.get("prefill_seconds") == e.ttft_serialized_seconds
        assert (e.images, e.image_tokens, e.vision_prefill_seconds) == (None, None, None)
    # with images, the plan's inputs are the rule's values and its steps add the tower once
    e = estimate("qwen2.5-vl-3b-instruct", hardware="h100-sxm", images=2,
                 image_size=(1000, 700))
    ev = e._plan
    assert (ev.get("images"), ev.get("image_tokens_per_image"), ev.get("vision_params")) \
        == (2, 900, 668_684_288)
    assert e.ttft_seconds == ev.get("prefill_seconds") + e.vision_prefill_seconds


def test_the_time_to_first_token_adds_both_encoders_to_the_prefill():
    """With an image and a clip, the bound's time to first token (serialized or not) is the
    prefill and the two encoders' times (each encoder's field), the sum the forecast adds to
    its prefill (Estimate.encoders_ttft_seconds: tests/test_forecast.py's PLAN_CASES); without
    media that sum is 0."""
    e = estimate("qwen2.5-omni-7b", hardware="h100-sxm", prompt=200, images=1,
                 audio_seconds=20.0)
    ev = e._plan
    encoders = e.vision_prefill_seconds + e.audio_prefill_seconds
    assert e.vision_prefill_seconds > 0 and e.audio_prefill_seconds > 0
    assert e.encoders_ttft_seconds == encoders
    assert e.ttft_seconds == pytest.approx(ev.get("prefill_seconds") + encoders, rel=1e-12)
    assert e.ttft_serialized_seconds == pytest.approx(
        ev.get("prefill_serialized_seconds") + encoders, rel=1e-12)
    assert estimate("qwen2.5-omni-7b", hardware="h100-sxm", prompt=200).encoders_ttft_seconds == 0


def test_cli_explains_the_image_rows(capsys):
    assert main(["describe", "llava-1.5-7b-hf", "--images", "1", "--hardware", "h100-sxm",
                 "--explain", "all"]) == 0
    out = capsys.readouterr().out
    for key in ("images", "image_tokens", "vision_weight_bytes", "vision_prefill_seconds"):
        assert f"\n{key} = " in out, key
    assert "\nttft_seconds = prefill_seconds + encoders_ttft_seconds  [add]" in out


# Printed by transformers 5.24.0's own rule functions, taken from the installed files with ast as
# above (torch present, torchvision and PIL not): llama4/image_processing_llama4.py get_factors,
# find_supported_resolutions (336 px tiles, max_patches 16) and get_best_fit;
# pixtral/image_processing_pixtral.py get_resize_output_image_size (longest edge 1540, patch
# 14 x merge 2 = 28, its get_image_size replaced by the (height, width) pair) and
# _num_image_tokens; glm4v/image_processing_glm4v.py smart_resize (two frames, factor 28,
# 112*112 to 28*28*15000); ernie4_5_vl_moe/image_processing_ernie4_5_vl_moe.py smart_resize
# (factor 28, 56*56 to 28*28*6177); kimi_k25/image_processing_kimi_k25.py navit_resize (patch
# 14, merge 2, 16384 patches, 512 a side); gemma4/image_processing_gemma4.py
# get_aspect_ratio_preserving_size (patch 16, 280 x 9 patches, pooling 3), in a venv with
# transformers 5.24.0 and torch:
#   ns.update(torch=torch, defaultdict=collections.defaultdict, SizeDict=object,
#             ImageInput=object, ChannelDimension=object,
#             get_image_size=lambda image, data_format=None: image)
#   res = torch.tensor(find_supported_resolutions(16, Size))  # Size.height = Size.width = 336
#   for w, h in SIZES:
#       ch, cw = get_best_fit((h, w), res)
#       ph, pw = get_resize_output_image_size((h, w), 1540, 28)
#       gh, gw = glm4v_smart_resize(2, h, w, 2, 28, 112 * 112, 28 * 28 * 15000)
#       eh, ew = ernie_smart_resize(h, w, 28, 56 * 56, 28 * 28 * 6177)
#       (_, _), (kh, kw) = navit_resize(h, w, 14, 2, 16384, 512)
#       g4h, g4w = get_aspect_ratio_preserving_size(h, w, 16, 280 * 9, 3)
#       print(w, h, ch // 336, cw // 336, pw, ph, gw, gh, ew, eh, kw, kh, g4w, g4h)
# columns: width, height; Llama 4's tile rows and columns; Pixtral's, GLM-4.5V's,
# ERNIE-4.5-VL's, Kimi K2.5's (padded) and Gemma 4's resized width and height.
MORE_PRINTED = [
    (1000, 700, 3, 3, 1008, 700, 1008, 700, 1008, 700, 1008, 700, 960, 672),
    (1024, 1024, 4, 4, 1036, 1036, 1036, 1036, 1036, 1036, 1036, 1036, 768, 768),
    (640, 480, 2, 2, 644, 504, 644, 476, 644, 476, 644, 504, 912, 672),
    (1920, 1080, 3, 5, 1540, 868, 1932, 1092, 1932, 1092, 1932, 1092, 1056, 576),
    (50, 60, 1, 1, 56, 84, 84, 112, 56, 56, 56, 84, 720, 864),
    (4000, 3000, 3, 4, 1540, 1176, 2800, 2100, 2520, 1904, 2100, 1568, 912, 672),
    (300, 1200, 4, 1, 308, 1204, 308, 1204, 308, 1204, 308, 1204, 384, 1584),
    (336, 336, 1, 1, 336, 336, 336, 336, 336, 336, 336, 336, 768, 768),
    (3000, 40, 1, 9, 1540, 28, 2996, 28, 2996, 28, 3024, 56, 6912, 48),
    (10, 300, 1, 1, 28, 308, 28, 840, 28, 308, 28, 308, 144, 4368),
    (10000, 100, 1, 16, 1540, 28, 9996, 112, 9996, 112, 7168, 84, 8016, 48),
]


def test_more_rules_match_transformers_printed():
    scout, mistral = _rule("llama-4-scout"), _rule("mistral-small-3.1-24b")
    glm, ernie, kimi = _rule("glm-4.5v"), _rule("ernie-4.5-vl-28b-a3b"), _rule("kimi-k2.5")
    gemma4 = _rule("gemma-4-31b")
    for w, h, rows, cols, pw, ph, gw, gh, ew, eh, kw, kh, g4w, g4h in MORE_PRINTED:
        tiles = rows * cols + (rows * cols > 1)  # and the global tile when more than one
        s = image_work(scout, w, h)
        # 144 tokens a tile: (336 / 14)^2 // 4 (processing_llama4.py); 576 patches + class
        assert (s.crops, s.tokens, s.patches) == (tiles, 144 * tiles, 577 * tiles), (w, h)
        # a separator after each tile but the global one when tiled (x between the tiles of a
        # row, y after each row); <|image_start|>, <|image|>, <|image_end|> are delimiters
        assert s.separators == (rows * cols if tiles > 1 else 0)
        m = image_work(mistral, w, h)
        # one [IMG] per 28 px square, an [IMG_BREAK] after each row but the last ([IMG_END]
        # after it is a delimiter)
        assert (m.resized, m.tokens, m.patches, m.separators) == (
            (pw, ph), pw * ph // 784, pw * ph // 196, ph // 28 - 1), (w, h)
        for rule, rw, rh in ((glm, gw, gh), (ernie, ew, eh), (kimi, kw, kh)):
            x = image_work(rule, w, h)
            assert (x.resized, x.tokens, x.patches) == ((rw, rh), rw * rh // 784,
                                                        rw * rh // 196), (rule.rule, w, h)
        # Gemma 4: 3 x 3 patches of 16 px a token; the tower runs the padded 280 x 9 patches
        g = image_work(gemma4, w, h)
        assert (g.resized, g.tokens, g.patches) == ((g4w, g4h), g4w * g4h // 48 ** 2, 2520)


def test_llama4_flops_by_hand():
    # llama-4-scout's vision_config: h 1408, MLP 5632, 34 layers, patch 14, 3 channels, 336 px;
    # pixel shuffle 0.5: 1408 x 4 = 5632 -> projector_input_dim 4096 -> 4096; the projector
    # vision_output_dim 4096 -> the text's hidden_size 5120. 1000 x 700 px: the least upscaling
    # is 1008 / 1000 on 3 x 3 tiles (2 rows of 336 px fall short of 700): 9 tiles + 1 global.
    tower = 3 * 14 * 14 * 1408 + 34 * (4 * 1408 ** 2 + 2 * 1408 * 5632)
    adapter = 5632 * 4096 + 4096 * 4096 + 4096 * 5120
    per_tile = 2 * tower * 577 + 2 * adapter * 144 + 4 * 1408 * 34 * 577 ** 2
    v = image_inputs(get_model("llama-4-scout"), 2, (1000, 700))
    assert (v["image_tokens"], v["vision_patches_per_image"]) == (2 * 10 * 144, 10 * 577)
    assert v["vision_prefill_flops"] == 2 * 10 * per_tile


def test_mistral3_glm_ernie_flops_by_hand():
    # 1000 x 700 px -> 1008 x 700 for all three: 72 x 50 = 3,600 patches of 14 px, 900 tokens.
    # Mistral Small 3.1: Pixtral h 1024, SwiGLU 4096, 24 layers; merger 4 x 1024 -> 1024,
    # projector 1024 -> 5120 -> 5120.
    pix = 3 * 14 * 14 * 1024 + 24 * (4 * 1024 ** 2 + 3 * 1024 * 4096)
    pix_merge = 4 * 1024 * 1024 + 1024 * 5120 + 5120 ** 2
    # GLM-4.5V: Conv3d over 2 frames, h 1536, 24 blocks, gated MLP 1536 -> 4096 (out_hidden_size);
    # downsample conv 4 x 1536 -> 4096, merger 4096 -> 4096 and gated 4096 -> 10944 -> 4096.
    glm = 3 * 2 * 14 * 14 * 1536 + 24 * (4 * 1536 ** 2 + 3 * 1536 * 4096)
    glm_merge = 4 * 1536 * 4096 + 4096 ** 2 + 3 * 4096 * 10944
    # ERNIE-4.5-VL: h 1280, MLP 5120, 32 blocks; resampler over s = 4 x 1280 = 5120: spatial
    # s -> s -> s, temporal 2s -> s -> s (an image's frame taken twice), s -> 2560.
    ernie = 3 * 14 * 14 * 1280 + 32 * (4 * 1280 ** 2 + 2 * 1280 * 5120)
    ernie_merge = 2 * 5120 ** 2 + 2 * 5120 ** 2 + 5120 ** 2 + 5120 * 2560
    for name, t, mg, d, n in (("mistral-small-3.1-24b", pix, pix_merge, 1024, 24),
                              ("glm-4.5v", glm, glm_merge, 1536, 24),
                              ("ernie-4.5-vl-28b-a3b", ernie, ernie_merge, 1280, 32)):
        v = image_inputs(get_model(name), 1, (1000, 700))
        assert v["image_tokens"] == 900
        assert v["vision_prefill_flops"] == 2 * t * 3600 + 2 * mg * 900 + 4 * d * n * 3600 ** 2


def test_kimi_k25_flops_by_hand():
    # kimi-k2.5's vision_config: MoonViT h 1152, MLP 4304, 27 layers, patch 14; projector over
    # 4 x 1152 = 4608: 4608 -> 4608 -> 7168. 4000 x 3000 px: 285 x 214 = 60,990 whole patches,
    # scale sqrt(16384 / 60990): 2073 x 1554 px, padded to 2100 x 1568: 150 x 112 patches.
    tower = 3 * 14 * 14 * 1152 + 27 * (4 * 1152 ** 2 + 2 * 1152 * 4304)
    projector = 4608 ** 2 + 4608 * 7168
    v = image_inputs(get_model("kimi-k2.5"), 1, (4000, 3000))
    assert (v["image_tokens"], v["vision_patches_per_image"]) == (75 * 56, 150 * 112)
    assert v["vision_prefill_flops"] == (2 * tower * 16800 + 2 * projector * 4200
                                         + 4 * 1152 * 27 * 16800 ** 2)


def test_gemma4_flops_by_hand():
    # gemma-4-31b's vision_config: h 1152, 16 heads of 72 (q, k, v, o: 4 x 1152^2), GeGLU 4304,
    # 27 layers, patch 16; the embedder 1152 -> the text's 5376. 1000 x 700 px: factor
    # sqrt(645,120 / 700,000) = 0.96: 960 x 672 px, 60 x 42 patches, 280 tokens; the tower runs
    # the 2,520 patches padded to 280 x 9 (the same count here).
    tower = 3 * 16 * 16 * 1152 + 27 * (4 * 1152 ** 2 + 3 * 1152 * 4304)
    v = image_inputs(get_model("gemma-4-31b"), 1, (1000, 700))
    assert (v["image_tokens"], v["vision_patches_per_image"]) == (280, 2520)
    assert v["vision_prefill_flops"] == (2 * tower * 2520 + 2 * 1152 * 5376 * 280
                                         + 4 * 1152 * 27 * 2520 ** 2)


def test_separators_join_the_prompt():
    # Mistral 3 at 1000 x 700 px: rounded up to 1008 x 700 (28 px squares, within the 1,540 px
    # edge), 36 x 25 = 900 [IMG] tokens and an [IMG_BREAK] after each of the 25 rows but the
    # last: 24; the prompt gets both, beside its 100 text tokens
    e = estimate("mistral-small-3.1-24b", bandwidth=1e12, peak_flops=100e12, prompt=100,
                 images=1, image_size=(1000, 700))
    assert (e.image_tokens, e.prompt) == (900, 100 + 900 + 24)


# Printed by transformers 5.24.0's own smart_resize (qwen2_vl/image_processing_qwen2_vl.py, run
# as in PROCESSOR_PRINTED above) with the Qwen3-VL and Qwen3.5 checkpoints' preprocessor_config
# (patch 16 x merge 2, size shortest_edge 65536, longest_edge 16777216):
#   rh, rw = ns["smart_resize"](h, w, factor=32, min_pixels=65536, max_pixels=16777216)
#   print(w, h, rw, rh, rw * rh // 1024)
QWEN3_VL_PRINTED = [
    (1000, 700, 992, 704, 682), (1024, 1024, 1024, 1024, 1024), (640, 480, 640, 480, 300),
    (1920, 1080, 1920, 1088, 2040), (50, 60, 256, 288, 72), (4000, 3000, 4000, 3008, 11750),
    (8000, 6000, 4704, 3520, 16170), (300, 1200, 288, 1216, 342), (3000, 40, 3008, 32, 94),
    (5000, 5000, 4096, 4096, 16384),
]


def _config_model(name):
    path = Path(__file__).parent / "configs" / f"{name}.json"
    return read_config(json.loads(path.read_text()), str(path))


def test_qwen3_vl_and_qwen3_5_match_transformers_printed():
    rules = [image_tower(_config_model("qwen3-vl-8b-instruct"))[1], _rule("qwen3.5-27b")]
    for w, h, rw, rh, tokens in QWEN3_VL_PRINTED:
        for rule in rules:
            x = image_work(rule, w, h)
            # 16 px patches, 2 x 2 of them a token; every block attends over the whole image
            assert (x.resized, x.tokens, x.patches, x.full_pairs, x.window_pairs) == (
                (rw, rh), tokens, 4 * tokens, (4 * tokens) ** 2, 0), (w, h)


def test_qwen3_vl_and_qwen3_5_flops_by_hand():
    # vision_config of both (tests/configs/qwen3-vl-8b-instruct.json, qwen3.5-27b): h 1152,
    # MLP 4304 (fc1, fc2), 27 blocks, patch 16 over 2 frames, merge 2; h m^2 = 4608.
    # 1000 x 700 px -> 992 x 704: 62 x 44 = 2,728 patches, 682 tokens.
    tower = 3 * 2 * 16 * 16 * 1152 + 27 * (4 * 1152 ** 2 + 2 * 1152 * 4304)
    attention = 4 * 1152 * 27 * 2728 ** 2
    # Qwen3-VL-8B: merger 4608 -> 4608 -> 4096 and three deepstack mergers of that shape
    # (deepstack_visual_indexes [8, 16, 24]); Qwen3.5-27B: one merger 4608 -> 4608 -> 5120.
    for model, out, deep in ((_config_model("qwen3-vl-8b-instruct"), 4096, 3),
                             (get_model("qwen3.5-27b"), 5120, 0)):
        merger = 4608 ** 2 + 4608 * out
        v = image_inputs(model, 2, (1000, 700))
        assert (v["image_tokens"], v["vision_patches_per_image"]) == (2 * 682, 2728)
        assert v["vision_prefill_flops"] == 2 * (2 * tower * 2728 + 2 * (1 + deep) * merger * 682
                                                 + attention)


# Printed by torch's FlopCounterMode (convolutions and batched matrix products, 2 FLOPs a
# multiply-add) over timm 1.0.31's mobilenetv5_300m_enc (the network transformers 5.24.0's
# TimmWrapperModel builds for Gemma 3n), in the environment with transformers 5.24.0 and torch
# 2.13 (CPU), timm from its wheel:
#   m = timm.create_model("mobilenetv5_300m_enc", pretrained=False).eval()
#   with torch.no_grad(), FlopCounterMode(display=False) as fc:
#       y = m(torch.zeros(1, 3, side, side))
#   print(side, tuple(y.shape), fc.get_total_flops())
# every side gives 2048 x 16 x 16 features; at 768 px, 775,676,657,664 FLOPs of convolutions
# and 95,806,291,968 of attention.
MOBILENETV5_PRINTED = {256: 87_369_089_024, 512: 363_669_880_832, 768: 871_482_949_632}


def test_mobilenetv5_flops_match_timm_printed():
    from llm_arithmetic.catalog.readers.gemma import MOBILENETV5_300M_ENC, mobilenetv5_flops
    for side, flops in MOBILENETV5_PRINTED.items():
        assert mobilenetv5_flops(MOBILENETV5_300M_ENC, side) == flops, side


def test_mobilenetv5_blocks_by_hand():
    # one block of each kind at 768 px, a convolution 2 k^2 C_in/groups C_out H_out W_out:
    # the stem 3 -> 64 (k 3, stride 2, 384 px); the first EdgeResidual 64 -> 256 (k 3, stride 2,
    # 192 px) -> 128; a multi-query attention block of stage 2 (640 channels, 48 x 48 px, 12
    # heads of 64, keys and values from a 3 x 3 stride-2 depthwise convolution, 24 x 24).
    from llm_arithmetic.catalog.readers.gemma import mobilenetv5_flops
    stem = 2 * 9 * 3 * 64 * 384 ** 2
    er = 2 * 9 * 64 * 256 * 192 ** 2 + 2 * 256 * 128 * 192 ** 2
    assert stem == 509_607_936 and er == 13_287_555_072   # FlopCounterMode's, block by block
    mqa = (2 * 2 * 640 * 768 * 48 ** 2 + 2 * (2 * 9 * 640 * 24 ** 2 + 2 * 640 * 64 * 24 ** 2)
           + 4 * 12 * 64 * 48 ** 2 * 24 ** 2)
    assert mqa == 8_714_354_688
    # a network of three blocks, with the fusion adapter over its last two stages: the
    # EdgeResidual (128 channels at 192 px); a UniversalInvertedResidual 128 -> 768 (a 3 x 3
    # depthwise start, a 5 x 5 stride-2 depthwise middle: 96 px) -> 640; the attention block at
    # 96 px, keys and values at 48. Fusion: 128 + 640 = 768 channels at 192 px -> 1536 -> 2048.
    net = ((("er", 3, 2, 4, 128),), (("uir", 3, 5, 2, 6, 640), ("mqa", 3, 12, 2, 64, 640)))
    uir = (2 * 9 * 128 * 192 ** 2 + 2 * 128 * 768 * 192 ** 2 + 2 * 25 * 768 * 96 ** 2
           + 2 * 768 * 640 * 96 ** 2)
    attention = (2 * 2 * 640 * 768 * 96 ** 2 + 2 * (2 * 9 * 640 * 48 ** 2 + 2 * 640 * 64 * 48 ** 2)
                 + 4 * 12 * 64 * 96 ** 2 * 48 ** 2)
    fusion = 2 * 768 * 1536 * 192 ** 2 + 2 * 1536 * 2048 * 192 ** 2
    assert mobilenetv5_flops(net, 768) == stem + er + uir + attention + fusion


def test_gemma3n_flops_and_tokens():
    # Gemma 3n: one 768 px crop whatever the image (timm's input_size), 256 tokens
    # (vision_soft_tokens_per_image; the adapter's 16 x 16 grid), each through the embedder's
    # projection 2048 -> the text's hidden_size (2048 for E2B and E4B)
    for name in ("gemma-3n-e2b", "gemma-3n-e4b"):
        for size in ((1000, 700), (64, 4000)):
            v = image_inputs(get_model(name), 3, size)
            assert (v["image_tokens_per_image"], v["prompt_tokens"]) == (256, 3 * 256)
            assert v["vision_prefill_flops"] == 3 * (MOBILENETV5_PRINTED[768]
                                                     + 2 * 2048 * 2048 * 256)


def test_qwen2_5_vl_tower_split_over_tp_by_hand():
    # vLLM's default mm_encoder_tp_mode "weights" (vllm/config/multimodal.py) runs
    # Qwen2.5-VL's tower with qkv, proj, gate_up, down and the merger's two matrices split
    # over the chips and the patch embedding replicated (qwen2_5_vl.py): for one 1000 x 700
    # image (3,600 patches, 900 tokens) at tp 2
    bw, peak, link, lat = 2e12, 500e12, 100e9, 2e-6
    e = estimate("qwen2.5-vl-3b-instruct", bandwidth=bw, peak_flops=peak, prompt=100, tp=2,
                 link_bandwidth=link, link_latency=lat, images=1, image_size=(1000, 700))
    ev = e._plan
    patch = 3 * 2 * 14 * 14 * 1280                      # 1,505,280, whole on each chip
    blocks = 32 * (4 * 1280 ** 2 + 3 * 1280 * 3420)     # 629,964,800, split
    merger = 5120 ** 2 + 5120 * 2048                    # 36,700,160, split
    whole = 668_684_288 - blocks - merger               # patch embedding, norms, biases
    assert whole == patch + 514_048
    assert ev.get("vision_chip_bytes") == (whole + (blocks + merger) // 2) * 2 == 670_703_616
    flops = 4_910_104_903_680                           # vision_prefill_flops' example
    chip_flops = 2 * patch * 3600 + (flops - 2 * patch * 3600) // 2
    assert ev.get("vision_chip_flops") == chip_flops == 2_460_471_459_840
    # 32 blocks x 2 all-reduces of 3,600 x 1280 x 2 B, one of 900 x 2048 x 2 B after the
    # merger; a ring of 2 over a given link: M / bw + 2 hops' latency each
    assert (ev.get("n_vision_allreduces"), ev.get("vision_mergers")) == (64, 1)
    assert ev.get("vision_block_message") == 9_216_000
    assert ev.get("vision_merger_message") == 3_686_400
    comm = 64 * (9_216_000 / link + 2 * lat) + 3_686_400 / link + 2 * lat
    assert ev.get("vision_allreduce_seconds") == pytest.approx(comm, rel=1e-12)
    assert comm == pytest.approx(6.195104e-3, rel=1e-12)
    t = max(670_703_616 / bw, chip_flops / peak) + comm
    assert e.vision_prefill_seconds == pytest.approx(t, rel=1e-12)
    assert e.ttft_seconds == pytest.approx(ev.get("prefill_seconds") + t, rel=1e-12)
    # the tower's weights stay one copy's; Gemma 3n's convolutional tower stays whole
    assert e.vision_weight_bytes == 668_684_288 * 2
    kw = dict(bandwidth=bw, peak_flops=peak, link_bandwidth=link, images=1)
    assert estimate("gemma-3n-e4b", tp=2, **kw).vision_prefill_seconds \
        == estimate("gemma-3n-e4b", **kw).vision_prefill_seconds


def test_tower_runs_at_16_bits_whatever_the_weights():
    # H100 SXM (NVIDIA's Hopper whitepaper): 3.35 TB/s, dense bf16/fp16 989.4 TFLOP/s, int8
    # 1,978.9 TOP/s, fp32 (vector) 67 TFLOP/s. Qwen2.5-VL-3B's tower and merger, 668,684,288
    # weights, 4,910,104,903,680 FLOPs for one 1000 x 700 image (the formula's example)
    n, flops, bw = 668_684_288, 4_910_104_903_680, 3.35e12
    kw = dict(hardware="h100-sxm", prompt=100, images=1, image_size=(1000, 700))
    for weights, bits, peak in (("q4_k_m", 16, 989.4e12), ("fp8", 16, 989.4e12),
                                ("bf16", 16, 989.4e12), ("fp32", 32, 67e12)):
        e = estimate("qwen2.5-vl-3b-instruct", weights=weights, **kw)
        assert e.vision_weight_bytes == n * bits // 8
        t = max(n * bits / 8 / bw, flops / peak)
        assert e.vision_prefill_seconds == pytest.approx(t, rel=1e-12), weights


def test_llava_tower_runs_to_the_feature_layer_but_counts_every_weight():
    # the checkpoint holds 24 CLIP layers, all in the tower's count: the class embedding,
    # the 14 x 14 patch convolution (no bias), 577 positions, two LayerNorms around 24 blocks
    # of 4 (1024^2 + 1024) + 2 x 1024 x 4096 + 4096 + 1024 + 2 x 2 x 1024, the projector
    # 1024 x 4096 + 4096 + 4096^2 + 4096; the tower runs 23 (vision_feature_layer -2);
    # Mistral 3's -1 runs all of Pixtral's 24
    from llm_arithmetic.catalog.images import image_tower

    tower, rule = image_tower(get_model("llava-1.5-7b-hf"))
    assert rule.layers == 23
    block = 4 * (1024 ** 2 + 1024) + 2 * 1024 * 4096 + 4096 + 1024 + 4 * 1024
    clip = 1024 + 3 * 14 * 14 * 1024 + 577 * 1024 + 2 * 1024 + 24 * block + 2 * 1024
    assert tower.params == clip + 1024 * 4096 + 4096 + 4096 ** 2 + 4096
    assert image_tower(get_model("mistral-small-3.1-24b"))[1].layers == 24


def test_images_count_as_every_count_and_one_family_list():
    # a whole float counts as the integer it is (as batch does), 2.0 images are 2; the limit
    # is 2^16 = 65,536 images, the same number the command line checks
    from llm_arithmetic import cli
    from llm_arithmetic.catalog import images as I
    from llm_arithmetic.media import images_argument

    kw = dict(bandwidth=2e12, peak_flops=500e12, prompt=100, image_size=(1000, 700))
    assert estimate("qwen2.5-vl-3b-instruct", images=2.0, **kw).image_tokens == 2 * 900
    assert images_argument(65_536) == 65_536
    with pytest.raises(InputError, match="images"):
        images_argument(65_537)
    assert cli.LIMITS["images"][0] == 65_536.0
    # describe's help names the families the refusal names (one declaration): seventeen
    describe = next(a for a in cli.build_parser()._subparsers._group_actions[0].choices.values()
                    if any("--images" in x.option_strings for x in a._actions))
    text = " ".join(describe.format_help().split())
    assert len(I.MODELLED_IMAGE_FAMILIES) == 17
    assert ", ".join(I.MODELLED_IMAGE_FAMILIES) in text


def test_glm4v_refusal_names_the_size_given():
    # 3000 x 10 px: the short side (10 < 28) is scaled up 2.8 times to 8400 x 28 before the
    # processor's aspect test (8400 / 28 = 300 > 200); the error names the image as given
    with pytest.raises(InputError, match=r"image 3000 x 10 px: the aspect ratio"):
        estimate("glm-4.5v", bandwidth=2e12, images=1, image_size=(3000, 10))


def test_frontier_takes_images_as_estimate_does():
    # each point of the frontier is estimate's at its batch, the images (2 x 900 tokens at
    # 1000 x 700 px, as test_qwen2_5_vl_by_hand derives) in every request's prompt
    from llm_arithmetic.sweeps import frontier

    kw = dict(hardware="h100-sxm", prompt=100, generate=128, price_per_hour=2.0, images=2,
              image_size=(1000, 700))
    for p in frontier("qwen2.5-vl-3b-instruct", batches=[1, 8], **kw):
        e = estimate("qwen2.5-vl-3b-instruct", batch=p["batch"], **kw)
        assert e.prompt == 100 + 2 * 900
        assert (p["tpot_seconds"], p["cost_per_million_tokens"]) == (
            e.tpot_seconds, e.cost_per_million_tokens)
    # a decode step reads the cache of the whole prompt: 1,900 tokens of text read the same
    plain = frontier("qwen2.5-vl-3b-instruct", batches=[8], hardware="h100-sxm", prompt=1900,
                     generate=128, price_per_hour=2.0)[0]
    assert p["tpot_seconds"] == plain["tpot_seconds"]


def test_a_tp_that_does_not_divide_the_towers_heads_is_refused_as_vllm_refuses_it():
    # vLLM's mm_encoder_tp_mode "weights" gives each chip whole heads of the tower's attention
    # (divide(num_heads, tp), which asserts): GLM-4.5V's vision_config has num_heads 12, so
    # tp 4 splits it (3 heads a chip) and tp 8 is refused, naming the field; the language
    # model alone takes tp 8 (its 96 heads)
    kw = dict(bandwidth=2e12, peak_flops=500e12, prompt=100)
    assert estimate("glm-4.5v", tp=4, images=1, **kw).vision_prefill_seconds > 0
    assert estimate("glm-4.5v", tp=8, **kw).ttft_seconds > 0
    with pytest.raises(InputError, match=r"tp = 8 does not divide the 12 attention heads of "
                                         r"glm-4\.5v's vision tower \(vision_config\.num_heads\)"):
        estimate("glm-4.5v", tp=8, images=1, **kw)
    # InternViT runs its attention whole when tp does not divide its 16 heads and splits its
    # MLP (intern_vit.py): not modelled, refused saying so (InternVL3-1B's language model
    # takes tp 14: 14 heads, 2 KV heads copied)
    with pytest.raises(InputError, match="attention whole on every chip.*not modelled"):
        estimate("internvl3-1b", tp=14, images=1, **kw)
    assert main(["describe", "glm-4.5v", "--images", "1", "--tp", "8"]) == 2
    # the deployment search skips those layouts and keeps the others
    from llm_arithmetic.deploy import search

    r = search("glm-4.5v", ttft=10.0, tpot=1.0, hardware=["h200"], weights=["fp8"],
               kv_bits=[16], degrees=[4, 8], max_batch=2, prompt=100, generate=10, images=1)
    assert {c["tp"] for c in r.configurations} == {4}
    assert any("tp8" in x and "12 attention heads" in x for x in r.skipped)


def test_gemma4s_tower_runs_whole_on_every_chip():
    # vLLM builds Gemma 4's vision tower through transformers' AutoModel (gemma4_mm.py), no
    # tensor-parallel layers: at tp 2 each chip runs the whole tower, as at tp 1, and nothing
    # limits tp by its heads
    kw = dict(bandwidth=2e12, peak_flops=500e12, link_bandwidth=100e9, prompt=100, images=1)
    one = estimate("gemma-4-e2b", **kw).vision_prefill_seconds
    assert estimate("gemma-4-e2b", tp=2, **kw).vision_prefill_seconds == one
    assert estimate("gemma-4-e2b", tp=8, **kw).vision_prefill_seconds == one


# ---- Llama 3.2 Vision: images read through cross-attention layers ----------------------------
# Printed by transformers 5.24.0's own get_optimal_tiled_canvas
# (mllama/image_processing_mllama.py, with get_all_supported_aspect_ratios; the source taken from
# the installed file with ast and run as written, numpy and functools.lru_cache supplied, as
# above), tile_size 560 and max_image_tiles 4, in a venv with transformers 5.24.0:
#   for w, h in SIZES: print(w, h, *get_optimal_tiled_canvas(h, w, 4, 560))
# columns: width, height; the canvas's height and width [px].
MLLAMA_PRINTED = [
    (512, 512, 560, 560), (1024, 1024, 1120, 1120), (1920, 1080, 1120, 1120),
    (4032, 3024, 1120, 1120), (1000, 700, 1120, 1120), (560, 2240, 2240, 560),
    (3000, 100, 560, 2240), (100, 3000, 2240, 560), (560, 560, 560, 560), (561, 560, 560, 1120),
    (1120, 560, 560, 1120), (300, 200, 560, 560), (800, 1600, 1120, 560),
    (2240, 2240, 1120, 1120), (1, 1, 560, 560), (65536, 1, 560, 2240), (1, 65536, 2240, 560),
    (1121, 1119, 1120, 1120),
]
MLLAMA_11B = "llama-3.2-11b-vision-instruct"


def test_mllama_tiles_match_transformers_printed():
    rule = _rule("llama-3.2-90b-vision-instruct")
    for w, h, ch, cw in MLLAMA_PRINTED:
        tiles = (ch // 560) * (cw // 560)
        x = image_work(rule, w, h)
        # one <|image|> token in the prompt; 40 x 40 patches and a class token a tile for the
        # cross-attention layers; the tower runs 4 tiles of 1,601 padded to 1,608, all at once
        assert (x.tokens, x.crops, x.states, x.resized) == (1, tiles, tiles * 1601, (cw, ch))
        assert (x.patches, x.full_pairs) == (4 * 1608, (4 * 1608) ** 2)


def _cross_layer(d, heads, kv, dh, ff):
    """One MllamaCrossAttentionDecoderLayer's parameters a text token runs: q, o, the q/k
    RMSNorms over the head width, the SwiGLU MLP, two RMSNorms and two tanh gates (not k, v)."""
    return 2 * d * heads * dh + 2 * dh + 3 * d * ff + 2 * d + 2


def test_mllama_image_inputs_by_hand():
    # the 11B's files: text d 4,096, 32 heads, 8 KV heads of 128, MLP 14,336, 8 cross layers;
    # tower h 1,280, MLP 5,120, 32 local + 8 global layers, 16 heads, 14 px patches, 560 px
    # tiles, output 7,680 (5 intermediate states and the last) projected to 4,096
    v = image_inputs(get_model(MLLAMA_11B), 2, (1000, 700))  # 2 x 2 tiles each
    run, states = 4 * 1608, 2 * 4 * 1601
    tower = (2 * 40 * (4 * 1280 ** 2 + 2 * 1280 * 5120) * run  # layers' products
             + 4 * 1280 * 40 * run ** 2  # attention over the 4 padded tiles at once
             + 2 * 3 * 14 * 14 * 1280 * 4 * 1600  # the patch convolution
             + 2 * 7680 * 4096 * 4 * 1601)  # the projector, padded tiles too
    kv = 8 * 2 * states * 4096 * 2 * 8 * 128  # k and v of every state in every cross layer
    assert (v["prompt_tokens"], v["image_states"], v["cross_kv_flops"]) == (2, states, kv)
    assert v["vision_prefill_flops"] == 2 * tower + kv
    assert v["cross_token_params"] == 8 * _cross_layer(4096, 32, 8, 128, 14336)


def test_mllama_estimate_caches_the_states_and_reads_the_cross_layers():
    kw = dict(bandwidth=2e12, peak_flops=500e12, generate=16, batch=3)
    e = estimate(MLLAMA_11B, prompt=100, images=2, image_size=(1000, 700), **kw)
    plain = estimate(MLLAMA_11B, prompt=102, **kw)  # the same prompt, no images
    cross = 8 * _cross_layer(4096, 32, 8, 128, 14336)
    cache = 8 * 2 * 8 * 128 * (2 * 4 * 1601) * 2  # layers x K,V x heads x width x states x 2 B
    assert e.params_active == plain.params_active + cross
    assert e.decode_bytes_per_token == plain.decode_bytes_per_token + 2 * cross + cache
    assert e.memory_required_bytes == plain.memory_required_bytes + 3 * cache
    assert e.kv_cache_bytes == plain.kv_cache_bytes  # the text's cache, as the key says
    # a token's products through the cross layers and its attention over the states
    assert e.decode_flops_per_token == plain.decode_flops_per_token + 2 * (
        8 * (2 * 4096 * 32 * 128 + 3 * 4096 * 14336)) + 8 * 4 * 32 * 128 * 2 * 4 * 1601
    assert e.ttft_seconds > plain.ttft_seconds + e.vision_prefill_seconds * 0.999
    # the key/value heads bound the tensor-parallel degree with such images
    with pytest.raises(InputError, match="tp = 16 exceeds the 8 key/value heads"):
        estimate("llama-3.2-90b-vision-instruct", tp=16, prompt=10, images=1, **kw)


def test_mllama_cli_and_the_page():
    assert main(["describe", "llama-3.2-90b-vision-instruct", "--images", "1", "--image-size",
                 "1000x700", "--json"]) == 0
    from llm_arithmetic.book import export
    from llm_arithmetic.catalog.model_catalog import CATALOG

    # the page takes its images as data (export.image_data, with the cross-attention
    # inputs), and refuses the degrees Python refuses with them (tests/test_widgets.py)
    record = export.model_data(CATALOG[MLLAMA_11B])
    assert "images_refused" not in record and record["images"]["1024x1024"]["image_states"] \
        == 4 * 1601
    assert sorted(record["images_tp_refused"], key=int) == ["16", "32"]


def test_mllama_describe_shows_the_tower_and_the_cross_layers_apart(capsys):
    # the 90B's files: text d 8,192, 20 cross layers of 8 KV heads of 128; the tower as the
    # 11B's (h 1,280, MLP 5,120, 32 local + 8 global layers, 14 px patches, 560 px tiles, at
    # most 4), its 7,680 outputs projected to 8,192. 1920 x 1080 px fills 4 tiles of 1,601
    # states (40 x 40 patches + class), each run padded to 1,608 tokens.
    states, run = 4 * 1601, 4 * 1608
    tower = (2 * 40 * (4 * 1280 ** 2 + 2 * 1280 * 5120) * run + 4 * 1280 * 40 * run ** 2
             + 2 * 3 * 14 * 14 * 1280 * 4 * 1600 + 2 * 7680 * 8192 * 4 * 1601)
    kv = 20 * 2 * states * 8192 * 2 * 8 * 128
    cache = 20 * 2 * 8 * 128 * states * 2  # layers x K,V x heads x width x states x 2 B
    assert (states, tower, kv, cache) == (6404, 19_404_808_519_680, 4_297_651_650_560,
                                          524_615_680)
    args = ["describe", "llama-3.2-90b-vision-instruct", "--images", "1", "--image-size",
            "1920x1080"]
    assert main([*args, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["image_states"], d["cross_kv_flops"], d["image_kv_bytes"]) == (states, kv, cache)
    assert (d["vision_prefill_flops"], d["vision_patches_per_image"]) == (tower + kv, run)
    assert main([*args, "--kv-bits", "8", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["image_kv_bytes"] == cache // 2
    assert main(args) == 0
    rows = dict((re.split(r"\s{2,}", line.strip(), maxsplit=1) + [""])[:2]
                for line in capsys.readouterr().out.splitlines())
    assert rows["tokens per image"] == "1 (tower: 6,432 tokens, 4 tiles x 1,608 with padding)"
    assert rows["image states (cross-attention reads)"] == "6,404"
    assert rows["images' keys and values (cached once)"].startswith("524,615,680 B")
    assert rows["vision tower and cross K/V FLOPs"] == "23.702 TFLOP"
    assert rows["of which vision tower"] == "19.405 TFLOP"
    assert rows["of which cross-attention keys and values (once)"] == "4.298 TFLOP"
    # another model's keys are there, null
    assert main(["describe", "qwen2.5-vl-3b-instruct", "--images", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["image_states"], d["cross_kv_flops"], d["image_kv_bytes"]) == (None, None, None)
