"""Images in the prompt: tokens per image by each family's processor rule, the vision tower's
FLOPs and time, and how they join the prompt and the time to first token. Expected values are
worked out here from the processors' rules (transformers 5.24.0) and the catalog's config.json
files, or printed by transformers' own rule functions (the command is given)."""
from __future__ import annotations

import json

import pytest

from llm_arithmetic.catalog.images import image_tower, image_work
from llm_arithmetic.catalog.model_catalog import get_model
from llm_arithmetic.cli import main
from llm_arithmetic.core.errors import ConfigError, InputError
from llm_arithmetic.estimate import estimate, image_inputs


def _rule(name):
    return image_tower(get_model(name))[1]


def test_qwen2_5_vl_by_hand():
    # 1000 x 700 px: round(1000 / 28) = 36 -> 1008, 700 / 28 = 25 -> 700; 1008 x 700 = 705,600
    # px is within [56^2, 28^2 x 1280 = 1,003,520]: 36 x 25 = 900 tokens, 72 x 50 = 3,600
    # patches of 14 px. Windows of 112 px = 4 merged tokens (8 x 8 patches): rows 25 = 6 x 4 + 1,
    # columns 36 = 9 x 4; pairs 16 x (6 x 16 + 1) x (9 x 16).
    w = image_work(_rule("qwen2.5-vl-3b-instruct"), 1000, 700)
    assert (w.resized, w.tokens, w.patches) == ((1008, 700), 900, 3600)
    assert w.full_pairs == 3600 ** 2 and w.window_pairs == 16 * 97 * 144


# Printed by transformers 5.24.0's own smart_resize (qwen2_vl/image_processing_qwen2_vl.py, its
# defaults: factor 28, 56*56, 14*14*4*1280) and get_optimal_tiled_canvas
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
#       rh, rw = ns["smart_resize"](h, w)
#       cols, rows = ns["get_optimal_tiled_canvas"]((h, w), (448, 448), 1, 12)
#       print(w, h, rw, rh, rw * rh // 784, cols * rows + (cols * rows != 1))
# columns: width, height, Qwen2-VL resized width and height, its tokens, InternVL's tiles.
PROCESSOR_PRINTED = [
    (1000, 700, 1008, 700, 900, 7), (1024, 1024, 980, 980, 1225, 10),
    (640, 480, 644, 476, 391, 13), (1920, 1080, 1316, 728, 1222, 9), (50, 60, 56, 56, 4, 13),
    (4000, 3000, 1148, 840, 1230, 13), (300, 1200, 308, 1204, 473, 5),
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
    # projector 1024 -> 4096 -> 4096. Per patch: 3 x 14^2 x 1024 + 24 x (4 x 1024^2 + 2 x 1024 x
    # 4096); per token 1024 x 4096 + 4096^2; every layer attends over 577 x 577 pairs.
    tower = 3 * 14 * 14 * 1024 + 24 * (4 * 1024 ** 2 + 2 * 1024 * 4096)
    projector = 1024 * 4096 + 4096 ** 2
    per_image = 2 * tower * 577 + 2 * projector * 576 + 4 * 1024 * 24 * 577 ** 2
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
    ("mistral-small-3.1-24b", dict(images=1), ConfigError, "not modelled"),
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
    assert main(["describe", "llama-4-scout", "--images", "1"]) == 2
    err = capsys.readouterr().err
    assert "llama-4-scout" in err and "not modelled" in err and "Traceback" not in err


def test_explain_adds_the_tower_to_the_plans_step():
    from llm_arithmetic.explain import explain

    e = estimate("llava-1.5-7b-hf", bandwidth=1e12, peak_flops=100e12, images=1)
    x = explain(e, "ttft_seconds")
    plain = estimate("llava-1.5-7b-hf", bandwidth=1e12, peak_flops=100e12, prompt=576)
    assert x.value == e.ttft_seconds
    assert x.value == pytest.approx(plain.ttft_seconds + e.vision_prefill_seconds, rel=1e-12)
    # the plan's step: the prefill's step and the tower's, added
    assert x.op == "add" and "vision tower" in x.doc
    assert set(x.depends_on) == {"prefill_seconds", "vision_ttft_seconds"}
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


def test_cli_explains_the_image_rows(capsys):
    assert main(["describe", "llava-1.5-7b-hf", "--images", "1", "--hardware", "h100-sxm",
                 "--explain", "all"]) == 0
    out = capsys.readouterr().out
    for key in ("images", "image_tokens", "vision_weight_bytes", "vision_prefill_seconds"):
        assert f"\n{key} = " in out, key
    assert "\nttft_seconds = prefill_seconds + vision_ttft_seconds  [add]" in out
