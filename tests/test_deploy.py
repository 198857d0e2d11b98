"""The deployment search (llm_arithmetic.deploy, ``llm-arithmetic plan``): its points are the
scalar estimate's, each layout's answer is its cheapest qualifying batch, the frontier holds no
dominated point, the price table is sourced and dated, and bad input exits 2 with one line."""
from __future__ import annotations

import contextlib
import io
import json
import re
import warnings

import numpy as np
import pytest

from llm_arithmetic import estimate
from llm_arithmetic.cli import main
from llm_arithmetic.core.errors import InputError
from llm_arithmetic.deploy import frontier, load_prices, search

KW = dict(ttft=0.4, tpot=0.03, prompt=1500, generate=300)
R = search("llama-3.1-70b", hardware=["h100-sxm", "a100-80gb-sxm", "l40s"], max_batch=256,
           **KW)


def _scalar(c, batch=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimate("llama-3.1-70b", hardware=c["hardware"], weights=c["weights"],
                        bits_kv=c["kv_bits"], tp=c["tp"], ep=c["ep"], pp=c["pp"],
                        context=KW["prompt"], prompt=KW["prompt"], generate=KW["generate"],
                        batch=batch or c["batch"], price_per_hour=c["price_per_hour"])


def test_points_are_the_scalar_estimate_and_the_cheapest_qualifying_batch():
    assert len(R.configurations) > 5
    costs = [c["cost_per_million_tokens"] for c in R.configurations]
    assert costs == sorted(costs)
    for c in R.configurations[:6] + R.configurations[-3:]:
        e = _scalar(c)
        for k in ("ttft_seconds", "tpot_seconds", "tokens_per_second_per_chip",
                  "cost_per_million_tokens"):
            assert c[k] == pytest.approx(getattr(e, k), rel=1e-12), k
        assert e.fits_per_chip and e.tpot_seconds <= KW["tpot"] and e.ttft_seconds <= KW["ttft"]
        if c["batch"] < 256:   # one more sequence: out of memory, too slow, or dearer
            n = _scalar(c, c["batch"] + 1)
            assert (not n.fits_per_chip or n.tpot_seconds > KW["tpot"]
                    or n.cost_per_million_tokens >= c["cost_per_million_tokens"])


def test_frontier_has_no_dominated_point():
    rng = np.random.default_rng(0)
    u, c = rng.lognormal(size=400), rng.lognormal(size=400)
    keep = frontier(u, c)
    for i in range(400):
        dominated = np.any((u > u[i]) & (c > c[i]))
        assert (i in keep) == (not dominated) or (not dominated and np.any(
            (u[keep] == u[i]) & (c[keep] == c[i])))
    users = [p["tokens_per_second_per_user"] for p in R.frontier]
    chips = [p["tokens_per_second_per_chip"] for p in R.frontier]
    assert users == sorted(users, reverse=True) and chips == sorted(chips)


def test_frontier_points_name_their_batch_and_each_is_a_scalar_estimate():
    """tokens/s per chip is the batch's tokens per step over the replica's chips: B x (1 / TPOT)
    / (tp x pp); each frontier point carries its batch, which that relation holds to, and the
    scalar estimate at that batch gives the same rates."""
    for p in R.frontier[::max(1, len(R.frontier) // 4)]:
        n = p["tp"] * p["pp"]
        assert p["tokens_per_second_per_chip"] == pytest.approx(
            p["batch"] * p["tokens_per_second_per_user"] / n, rel=1e-12)
        e = _scalar({**p, "price_per_hour": None})
        assert e.tokens_per_second_per_user == pytest.approx(p["tokens_per_second_per_user"],
                                                            rel=1e-12)


def test_price_table_is_sourced_and_dated():
    prices = load_prices()
    assert len(prices) >= 5
    for chip, p in prices.items():
        assert p["url"].startswith("https://") and re.fullmatch(r"\d{4}-\d{2}-\d{2}", p["date"])
        assert 0.1 < p["usd_per_hour"] < 100


def test_speculation_shortens_the_tpot_it_searches_with():
    s = search("llama-3.1-70b", hardware=["h100-sxm"], max_batch=64, draft_len=3,
               acceptance=0.7, draft_cost=0.02, **KW)
    p = search("llama-3.1-70b", hardware=["h100-sxm"], max_batch=64, **KW)
    assert s.configurations[0]["cost_per_million_tokens"] < \
        p.configurations[0]["cost_per_million_tokens"]


def test_a_draft_model_is_priced_per_point_as_the_scalar_estimate_prices_it():
    """plan --draft MODEL: the draft's cost is taken at each point's chip, format, cache and
    batch (a Qwen3 0.6B draft costs a larger share of a Qwen3 8B step at a larger batch, its
    own cache growing with the target's), so each configuration's TPOT is the scalar
    estimate's with ``draft=`` at that point, and the draft's share is the ratio of the two
    models' one-chip TPOTs."""
    kw = dict(ttft=0.5, tpot=0.02, prompt=4096, generate=256)
    s = search("qwen3-8b", hardware=["h100-sxm", "l40s"], max_batch=128, draft_len=4,
               acceptance=0.7, draft="qwen3-0.6b", **kw)
    assert s.configurations
    for c in s.configurations[:4] + s.configurations[-2:]:
        at = dict(hardware=c["hardware"], weights=c["weights"], bits_kv=c["kv_bits"],
                  context=kw["prompt"], prompt=kw["prompt"], generate=kw["generate"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = estimate("qwen3-8b", tp=c["tp"], ep=c["ep"], pp=c["pp"], batch=c["batch"],
                         draft_len=4, acceptance=0.7, draft="qwen3-0.6b", **at)
            d, t = (estimate(x, batch=c["batch"], **at).tpot_seconds
                    for x in ("qwen3-0.6b", "qwen3-8b"))
        assert e.draft_cost == pytest.approx(d / t, rel=1e-12)
        assert c["tpot_seconds"] == pytest.approx(e.speculative_tpot_seconds, rel=1e-12)
    with pytest.raises(InputError, match="not both"):
        search("qwen3-8b", draft_len=4, acceptance=0.7, draft="qwen3-0.6b", draft_cost=0.1,
               **kw)


def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return rc, out.getvalue(), err.getvalue()


def test_cli_plan():
    rc, out, _ = _cli("plan", "llama-3-8b", "--ttft-ms", "200", "--tpot-ms", "20",
                      "--hardware", "h100-sxm,l4", "--max-batch", "128", "--json")
    d = json.loads(out)
    assert rc == 0 and d["configurations"] and d["frontier"]
    assert set(d["prices"]) <= {"h100-sxm", "l4"}
    assert all(c["tpot_seconds"] <= 0.02 for c in d["configurations"])
    rc, out, _ = _cli("plan", "llama-3-8b", "--ttft-ms", "200", "--tpot-ms", "20",
                      "--hardware", "rtx-4090", "--price-per-hour", "0.4", "--max-batch", "64")
    assert rc == 0 and "x rtx-4090" in out and "frontier" in out
    for bad in (["--hardware", "rtx-4090"], ["--hardware", "h100"], ["--tpot-ms", "0"]):
        args = ["plan", "llama-3-8b", "--ttft-ms", "200", "--tpot-ms", "20", *bad]
        rc, _, err = _cli(*args)
        assert rc == 2 and err.count("\n") == 1, (bad, err)
    with pytest.raises(InputError, match="tpot"):
        search("llama-3-8b", ttft=1.0, tpot=-1.0)


def test_forecast_mode_prices_the_forecast_describe_prints():
    """plan --forecast --runtime: TTFT and TPOT are describe's expected_* keys of the same
    configuration, never faster than its bounds, and the targets hold for them."""
    from llm_arithmetic.forecast import forecast

    r = search("llama-3.1-70b", hardware=["h100-sxm", "l40s"], max_batch=128, forecast=True,
               runtime="llama.cpp", **KW)
    assert r.configurations
    for c in r.configurations[:4]:
        assert c["tpot_seconds"] >= c["tpot_bound_seconds"] and c["tpot_seconds"] <= KW["tpot"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = forecast("llama-3.1-70b", hardware=c["hardware"], weights=c["weights"],
                         bits_kv=c["kv_bits"], tp=c["tp"], ep=c["ep"], pp=c["pp"],
                         context=KW["prompt"], prompt=KW["prompt"], generate=KW["generate"],
                         batch=c["batch"], runtime="llama.cpp")
        assert c["tpot_seconds"] == pytest.approx(d["expected_tpot_seconds"], rel=1e-12)
        assert c["ttft_seconds"] == pytest.approx(d["expected_ttft_seconds"], rel=1e-12)
        assert c["tokens_per_second_per_chip"] == pytest.approx(
            d["expected_tokens_per_second_per_chip"], rel=1e-12)
    with pytest.raises(InputError, match="unknown runtime 'tensorrt-llm'"):
        search("llama-3-8b", ttft=1.0, tpot=0.05, forecast=True, runtime="tensorrt-llm")


@pytest.mark.parametrize("model,spec", [
    # Qwen3.5 27B declares an MTP module (mtp_num_hidden_layers: 1); Qwen3 8B declares none
    ("qwen3.5-27b", dict(speculation="mtp")),
    ("qwen3-8b", dict(draft="qwen3-0.6b", draft_len=4, acceptance=0.8))],
    ids=["mtp", "draft-model"])
def test_forecast_mode_with_speculation_is_the_forecast_describe_prints(model, spec):
    """plan --forecast with speculative decoding: a speculative step also launches the draft's
    blocks (one MTP block, or the draft model's 28 blocks four times a step), and describe's
    forecast (forecast.expected) charges their per-layer term; the plan's TPOT at a point is
    that same forecast, not the one of a step that ran the target's blocks alone."""
    from llm_arithmetic.forecast import forecast

    kw = dict(prompt=1024, generate=256)
    r = search(model, ttft=5.0, tpot=0.2, hardware=["h100-sxm"], weights=["bf16"],
               kv_bits=[16], degrees=[1], max_batch=8, forecast=True, runtime="vllm",
               **kw, **spec)
    assert r.configurations
    for c in r.configurations:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = forecast(model, hardware=c["hardware"], weights=c["weights"],
                         bits_kv=c["kv_bits"], batch=c["batch"], context=kw["prompt"],
                         runtime="vllm", **kw, **spec)
        assert c["tpot_seconds"] == pytest.approx(d["expected_tpot_seconds"], rel=1e-12)
        assert c["tokens_per_second_per_chip"] == pytest.approx(
            d["expected_tokens_per_second_per_chip"], rel=1e-12)


def test_an_unknown_weight_format_is_an_error_not_an_empty_search():
    """`plan --weights fp8,nope`: 'nope' is no format (describe --weights nope refuses it with
    close matches); the search refused every point of it in silence and, with it alone,
    printed 'no configuration meets the targets'. It is now the same one-line error."""
    with pytest.raises(InputError, match="unknown weight format 'nope'"):
        search("llama-3.1-8b", ttft=0.1, tpot=0.01, hardware=["h100-sxm"],
               weights=["fp8", "nope"])
    rc, out, err = _cli("plan", "llama-3.1-8b", "--ttft-ms", "100", "--tpot-ms", "10",
                        "--hardware", "h100-sxm", "--weights", "nope")
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "unknown weight format 'nope'" in err


def test_a_request_past_the_trained_context_is_warned_of_as_describe_warns():
    """Llama 2 7B is trained to 4,096 tokens (config.json max_position_embeddings): a request
    of 4,000 + 1,000 runs past it. describe warns; plan said nothing (its estimates run with
    warnings off)."""
    from llm_arithmetic import ContextWarning

    with pytest.warns(ContextWarning, match="prompt \\+ generate = 5,000 tokens is beyond"):
        search("llama-2-7b", ttft=1.0, tpot=0.1, hardware=["h100-sxm"], prompt=4000,
               generate=1000, max_batch=8)
    rc, _, err = _cli("plan", "llama-2-7b", "--hardware", "h100-sxm", "--prompt", "4000",
                      "--generate", "1000", "--ttft-ms", "1000", "--tpot-ms", "100")
    assert rc == 0 and err == ("llm_arithmetic: warning: prompt + generate = 5,000 tokens is "
                               "beyond llama-2-7b's trained context 4,096\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        search("llama-2-7b", ttft=1.0, tpot=0.1, hardware=["h100-sxm"], prompt=3000,
               generate=1000, max_batch=8)


def test_a_runtime_without_the_forecast_names_the_option_that_asks_for_it():
    rc, _, err = _cli("plan", "llama-3.1-8b", "--ttft-ms", "100", "--tpot-ms", "10",
                      "--hardware", "h100-sxm", "--runtime", "vllm")
    assert rc == 2 and err.count("\n") == 1 and "plan --forecast" in err


def test_chips_are_found_as_typed_and_priced_from_the_table():
    """`plan --hardware H200` is the catalog's h200 (as `describe --hardware H200` is), priced
    from the table without --price-per-hour; a price given per chip name is its chip's too."""
    from llm_arithmetic.deploy import load_prices

    typed = search("llama-3-8b", ttft=1.0, tpot=0.05, hardware=["H200"], max_batch=8)
    keyed = search("llama-3-8b", ttft=1.0, tpot=0.05, hardware=["h200"], max_batch=8)
    assert typed.configurations == keyed.configurations and keyed.configurations
    assert {c["hardware"] for c in typed.configurations} == {"h200"}
    table = float(load_prices()["h200"]["usd_per_hour"])
    assert all(c["price_per_hour"] == table for c in typed.configurations)
    given = search("llama-3-8b", ttft=1.0, tpot=0.05, hardware=["h200"], max_batch=8,
                   price_per_hour={"H200": 2 * table})
    assert all(c["price_per_hour"] == 2 * table for c in given.configurations)


def test_search_says_what_a_qualifying_point_leaves_out():
    """plan ranked eight M2 Ultras in tensor parallel (no link between Macs in the catalog, so
    no all-reduce was counted) and Vera Rubin's configurations with TTFTs of a millisecond for
    a 1,024-token prompt of Llama 3.1 70B (no compute peak for bf16, fp8 or int4 in its
    catalog entry: the memory traffic alone) without a word, where describe and frontier say
    both. The search now warns once a chip; an H100 SXM (NVLink, every peak) gets no warning."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        r = search("llama-3.1-70b", ttft=5.0, tpot=0.2, hardware=["m2-ultra", "vera-rubin"],
                   price_per_hour=1.0, max_batch=8)
    text = [str(w.message) for w in seen]
    assert any(c["hardware"] == "m2-ultra" and c["tp"] > 1 for c in r.configurations)
    assert sum("m2-ultra" in t and "leave communication out" in t for t in text) == 1
    assert sum(t.startswith("vera-rubin") and "memory traffic" in t for t in text) == 1
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        search("llama-3.1-70b", ttft=5.0, tpot=0.2, hardware=["h100-sxm"], price_per_hour=1.0,
               max_batch=8)
    assert not [w for w in seen if "memory traffic" in str(w.message)
                or "communication" in str(w.message)]


def test_search_takes_one_chip_or_format_alone():
    """search(hardware="h100-sxm") iterated the name letter by letter and said "unknown
    hardware 'h'; did you mean h100-sxm" (weights="fp8": "unknown weight format 'f'", and
    kv_bits=8 a TypeError), where sweep takes one chip alone. One value is now an axis of one,
    the same search as the list of it."""
    alone = search("llama-3.1-8b", ttft=1.0, tpot=0.1, hardware="h100-sxm", weights="fp8",
                   kv_bits=8, max_batch=4, price_per_hour=1.0)
    listed = search("llama-3.1-8b", ttft=1.0, tpot=0.1, hardware=["h100-sxm"], weights=["fp8"],
                    kv_bits=[8], max_batch=4, price_per_hour=1.0)
    assert alone.configurations and alone.configurations == listed.configurations
    with pytest.raises(InputError, match="^weights: "):
        search("llama-3.1-8b", ttft=1.0, tpot=0.1, hardware="h100-sxm", weights=None)


@pytest.mark.parametrize("bad", [dict(prompt=0), dict(prompt=2.5), dict(generate=-1),
                                 dict(price_per_hour=1e6), dict(price_per_hour=float("nan"))])
def test_the_search_rejects_a_request_as_estimate_does(bad):
    """The search checks its request with estimate's public checkers (count_argument,
    generated_argument, serving_argument; it imported them as private names before): a bad
    prompt, generate or price is refused with estimate's own message."""
    from llm_arithmetic import estimate
    from llm_arithmetic.core.errors import InputError
    from llm_arithmetic.deploy import search

    with pytest.raises(InputError) as want:
        estimate("llama-3.1-8b", hardware="h100-sxm", **{"prompt": 1024, **bad})
    with pytest.raises(InputError) as got:
        search("llama-3.1-8b", ttft=1.0, tpot=0.05, hardware=["h100-sxm"], **bad)
    assert str(got.value) == str(want.value)


def test_a_speculative_plan_says_its_tpot_is_the_speculative_one():
    """With `--speculation mtp` (or a draft) the search holds and prints the speculative TPOT
    (deploy.search's docstring); the heading said '(bounds)' alone, as for a plain search, so
    a reader compared it with describe's plain TPOT. The heading now names the speculation."""
    args = ["plan", "deepseek-v3", "--ttft-ms", "2000", "--tpot-ms", "50", "--hardware", "b200",
            "--max-batch", "8", "--top", "1"]
    rc, out, _ = _cli(*args)
    assert rc == 0 and "(bounds);" in out.splitlines()[0]
    rc, out, _ = _cli(*args, "--speculation", "mtp")
    assert rc == 0 and "(bounds; TPOT speculative: speculation mtp);" in out.splitlines()[0]
    rc, out, _ = _cli("plan", "qwen3-8b", "--ttft-ms", "200", "--tpot-ms", "50", "--hardware",
                      "h100-sxm", "--max-batch", "4", "--draft-len", "4", "--acceptance", "0.8",
                      "--draft", "qwen3-0.6b")
    assert rc == 0 and ("TPOT speculative: draft len 4, acceptance 0.8, draft qwen3-0.6b)"
                        in out.splitlines()[0])


IMG = dict(images=2, image_size=(1000, 700))
IMG_KW = dict(hardware=["h100-sxm", "l40s"], weights=["bf16"], kv_bits=[16], degrees=[1, 2],
              max_batch=16, prompt=500, generate=100)


def test_images_in_every_request_are_the_estimate_with_the_same_images():
    """plan --images N: every request's prompt holds the images (their tokens and separators
    join the prompt and the cache) and each point's TTFT holds the vision tower's time, so
    each configuration is estimate(..., images=, image_size=) at that point; a TTFT target
    between the text-only TTFT of the same prompt length and that plus the tower's time is
    met by the text search and by no image configuration."""
    m = "qwen2-vl-7b-instruct"
    r = search(m, ttft=1.0, tpot=0.05, **IMG_KW, **IMG)
    assert len(r.configurations) == 8  # 2 chips x tp 1, 2 x pp 1, 2: each layout qualifies
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # Qwen2-VL at 1000 x 700 px: resized to 1008 x 700 (multiples of 28), 72 x 50 patches
        # of 14 px merged 2 x 2 into 36 x 25 = 900 tokens per image (formulas.vision's example)
        probe = estimate(m, hardware="h100-sxm", prompt=500, **IMG)
        assert probe.image_tokens_per_image == 900 and probe.prompt >= 500 + 2 * 900
        full = probe.prompt  # the text's tokens, the images' and their separators
        for c in r.configurations:
            at = dict(hardware=c["hardware"], weights="bf16", bits_kv=16, tp=c["tp"],
                      pp=c["pp"], generate=100, batch=c["batch"], context=full)
            e = estimate(m, prompt=500, **at, **IMG)
            assert e.prompt == full
            assert c["ttft_seconds"] == pytest.approx(e.ttft_seconds, rel=1e-12)
            assert c["tpot_seconds"] == pytest.approx(e.tpot_seconds, rel=1e-12)
            assert e.ttft_seconds <= 1.0 and e.tpot_seconds <= 0.05 and e.fits_per_chip
            # the tower's time is all the images add to a text prompt of the same length
            t = estimate(m, prompt=full, **at)
            assert e.ttft_seconds == pytest.approx(t.ttft_seconds + e.vision_prefill_seconds,
                                                   rel=1e-12)
            if (c["hardware"], c["tp"]) == ("h100-sxm", 1):
                # by hand, H100 SXM datasheet: 3.35 TB/s, 989 TFLOP/s dense BF16; the tower
                # in BF16 is bound by the larger of its bytes' and its FLOPs' times
                assert e.vision_prefill_seconds == pytest.approx(max(
                    e.vision_weight_bytes / 3.35e12, e.vision_prefill_flops / 989e12),
                    rel=1e-3)
    # --forecast: the prefill fit on the text's prefill, the tower's bound added as it is, as
    # describe's expected_ttft_seconds
    from llm_arithmetic.forecast import forecast

    f = search(m, ttft=1.0, tpot=0.05, forecast=True, runtime="vllm",
               **dict(IMG_KW, hardware=["h100-sxm"], degrees=[2]), **IMG).configurations
    assert f
    for c in f:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = forecast(m, runtime="vllm", hardware="h100-sxm", weights="bf16", bits_kv=16,
                         tp=2, pp=c["pp"], prompt=500, generate=100, batch=c["batch"],
                         context=full, **IMG)
        assert c["ttft_seconds"] == pytest.approx(d["expected_ttft_seconds"], rel=1e-12)
        assert c["tpot_seconds"] == pytest.approx(d["expected_tpot_seconds"], rel=1e-12)
    one = dict(IMG_KW, hardware=["h100-sxm"], degrees=[1])
    text_ttft = estimate(m, hardware="h100-sxm", weights="bf16", prompt=full, context=full,
                         generate=100).ttft_seconds
    target = text_ttft + probe.vision_prefill_seconds / 2
    assert search(m, ttft=target, tpot=0.05, **dict(one, prompt=full)).configurations
    assert not search(m, ttft=target, tpot=0.05, **one, **IMG).configurations


def test_plan_takes_images_as_describe_does():
    base = ("plan", "qwen2-vl-7b-instruct", "--ttft-ms", "1000", "--tpot-ms", "50",
            "--hardware", "h100-sxm", "--weights", "bf16", "--max-batch", "4", "--prompt", "500",
            "--generate", "100")
    rc, out, _ = _cli(*base, "--images", "2", "--image-size", "1000x700", "--json")
    r = search("qwen2-vl-7b-instruct", ttft=1.0, tpot=0.05, hardware=["h100-sxm"],
               weights=["bf16"], max_batch=4, prompt=500, generate=100, **IMG)
    assert rc == 0 and json.loads(out)["configurations"] == r.configurations
    rc, out, _ = _cli(*base, "--images", "2", "--image-size", "1000x700", "--top", "1")
    assert rc == 0 and "prompt 500 text tokens + 2 images of 1000 x 700 px" in out
    rc, _, err = _cli("plan", "llama-3.1-8b", "--ttft-ms", "1000", "--tpot-ms", "50",
                      "--images", "1")
    assert rc == 2 and "llama-3.1-8b" in err and "no vision tower" in err
    rc, _, err = _cli(*base, "--image-size", "1000x700")
    assert rc == 2 and "--image-size needs --images" in err


def test_plan_json_names_the_images_as_describe_does():
    """plan --json --images: the images under describe --json's keys (null without images),
    and in each configuration what the tower adds to its TTFT. Qwen2-VL at 1000 x 700 px:
    resized to 1008 x 700 (multiples of 28 px), 72 x 50 = 3,600 patches of 14 px, merged 2 x 2
    into 36 x 25 = 900 tokens an image (transformers' smart_resize)."""
    base = ("plan", "qwen2-vl-7b-instruct", "--ttft-ms", "1000", "--tpot-ms", "50",
            "--hardware", "h100-sxm", "--weights", "bf16", "--max-batch", "2", "--prompt",
            "500", "--generate", "100", "--json")
    rc, out, _ = _cli(*base, "--images", "2", "--image-size", "1000x700")
    d = json.loads(out)
    assert rc == 0 and (d["images"], d["image_size"], d["image_tokens_per_image"],
                        d["image_tokens"], d["vision_patches_per_image"]) \
        == (2, [1000, 700], 900, 1800, 3600)
    c = d["configurations"][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = estimate("qwen2-vl-7b-instruct", hardware="h100-sxm", weights="bf16",
                     bits_kv=c["kv_bits"], tp=c["tp"], pp=c["pp"], prompt=500, generate=100,
                     batch=c["batch"], **IMG)
    # the same keys, the same meaning as describe's
    assert d["vision_prefill_flops"] == e.vision_prefill_flops
    assert c["vision_prefill_seconds"] == pytest.approx(e.vision_prefill_seconds, rel=1e-12)
    assert 0 < c["vision_prefill_seconds"] < c["ttft_seconds"]
    rc, out, _ = _cli(*base[:2], "--ttft-ms", "1000", "--tpot-ms", "50", "--hardware",
                      "h100-sxm", "--weights", "bf16", "--max-batch", "2", "--json")
    d = json.loads(out)
    assert rc == 0 and d["images"] is None and d["image_tokens"] is None
    assert d["configurations"][0]["vision_prefill_seconds"] is None


def test_plan_takes_a_video_alone_and_names_it_in_json():
    """plan with a video and no images: the search once failed on the images' keys the video
    lacks (KeyError 'image_size'); --json names the video with describe's keys. Qwen3.5, 10 s
    of 1280 x 720 px at 2 frames a second (transformers 5.24.0's Qwen3VLVideoProcessor, as
    tests/test_video.py prints it): 20 frames, 10 temporal patches of 44 x 80 patches, 8,800
    tokens, 60 timestamp tokens and 2 x 10 delimiters; 10 x 44 x 80 = 35,200 patches."""
    base = ("plan", "qwen3.5-27b", "--ttft-ms", "2000", "--tpot-ms", "50", "--hardware",
            "h100-sxm", "--weights", "bf16", "--max-batch", "2", "--video-seconds", "10")
    rc, out, err = _cli(*base)
    assert rc == 0 and "a video of 10 s" in out, err
    rc, out, err = _cli(*base, "--json")
    d = json.loads(out)
    assert rc == 0 and (d["video_frames"], d["video_tokens"], d["video_separator_tokens"],
                        d["video_patches"], d["video_size"]) == (20, 8800, 80, 35200, [1280, 720])
    assert d["images"] is None and d["image_tokens"] is None and d["image_size"] is None
    assert d["vision_prefill_flops"] > 0 and d["configurations"][0]["vision_prefill_seconds"] > 0
    # images alone: the video's keys are null
    rc, out, _ = _cli(*base[:-2], "--images", "1", "--json")
    d = json.loads(out)
    assert rc == 0 and d["images"] == 1 and d["video_tokens"] is None \
        and d["video_seconds"] is None
