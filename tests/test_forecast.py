"""The first decode forecast (lib/llm_arithmetic/forecast.py): fitted on fit rows only, never
above the bound, reproducible from the stored parameters. Cheap: one refit (~0.1 s)."""
from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import numpy as np
import pytest

from llm_arithmetic import forecast as F
from llm_arithmetic import forecast_fit as FF
from llm_arithmetic import forecast_validation as V
from llm_arithmetic.core.errors import InputError
from llm_arithmetic.lab import measurements as M

FIT = FF.decode_fit_rows("fit")
VAL = FF.decode_fit_rows("validation")
#: the fit rows as the named-runtime fit sees them (llama.cpp's 2023-24 builds named apart)
SEEN = FF.named_rows(FIT)
PARAMS = FF.load_params()


def test_nnls_matches_brute_force_over_active_sets():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(12, 4)), rng.normal(size=12)
    x = FF.nnls(a, b)
    def ls(cols):
        return np.linalg.lstsq(a[:, list(cols)], b, rcond=None)[0]

    best = min((np.linalg.norm(a[:, list(s)] @ ls(s) - b), s)
               for n in range(5) for s in itertools.combinations(range(4), n)
               if n == 0 or ls(s).min() >= 0)
    assert (x >= 0).all()
    assert np.linalg.norm(a @ x - b) == pytest.approx(best[0], rel=1e-9)


def test_decode_rows_are_computed_once_until_the_data_change(monkeypatch):
    """decode_fit_rows keeps each split's rows for the process: a second call computes no
    bound and returns a new list of the same rows; a changed data file (another modification
    time or size) computes them again."""
    bounds = []
    real = FF._bound_seconds
    monkeypatch.setattr(FF, "_bound_seconds", lambda *a: bounds.append(a) or real(*a))
    monkeypatch.setattr(FF, "_DECODE_ROWS", {})
    first = FF.decode_fit_rows("fit")
    assert len(bounds) == len(first) > 100
    again = FF.decode_fit_rows("fit")
    assert again == first and again is not first and len(bounds) == len(first)
    again.clear()  # the caller's list: the kept rows are not changed
    assert FF.decode_fit_rows("fit") == first
    state = FF.data_state()
    monkeypatch.setattr(FF, "data_state", lambda: state + ((0, 1),))  # a file was edited
    assert FF.decode_fit_rows("fit") == first and len(bounds) == 2 * len(first)
    assert FF.decode_fit_rows("validation") == VAL and len(bounds) == 2 * len(first) + len(VAL)


def test_fit_uses_no_reserved_row():
    ids = {r.id for r in M.validation_rows()}
    assert FIT and not ids & {r.id for r in FIT}
    assert {r.id for r in VAL} <= ids


def test_stored_parameters_are_the_fit_of_the_data():
    for name, agnostic in (("by_runtime", False), ("agnostic", True)):
        p = FF.fit(FIT if agnostic else SEEN, agnostic)
        stored = PARAMS[name]
        assert stored["rows"] == p["rows"] == len(FIT)
        assert stored["terms"] == p["terms"] == FF.MODELS[name]["terms"]
        assert stored["weighting"] == FF.MODELS[name]["weighting"]
        for term in p["terms"]:
            assert set(stored[term]) == set(p[term])
            for key, v in p[term].items():
                assert stored[term][key] == pytest.approx(v, rel=1e-5, abs=1e-12), (name, term, key)
                assert v >= 0


@pytest.mark.parametrize("name", ["by_runtime", "agnostic"])
def test_forecast_never_above_the_bound(name):
    p = PARAMS[name]
    for r in FIT + VAL:
        t = FF.predict_seconds(p, r.t_bound, r.chip_class, r.runtime, r.n_layers, r.t_dequant)
        assert t >= r.t_bound


def test_every_prefill_row_is_at_or_above_its_bound():
    """A bound holds for every runtime. XiongjieDai's llama.cpp run of Llama 3 8B F16 on an
    RTX 4080 (pp512) beat a bound timed at the fp32-accumulate fp16 rate (97.5 TFLOPS in the
    Ada whitepaper); at the fp16-accumulate rate (194.9) it does not, nor does any other row."""
    rows = FF.prefill_fit_rows()
    (r4080,) = [r for r in rows if r.id == "xd-llama3-4080-8b-f16-pp512"]
    assert r4080.t_measured >= r4080.t_bound
    assert [r.id for r in rows if r.t_measured < r.t_bound] == []


def test_a_prefill_at_the_int8_rate_takes_the_int8_terms():
    """llama.cpp multiplies block formats with int8 kernels on NVIDIA GPUs (MMQ) and at 16
    bits on Apple GPUs; the prefill fit keeps the int8-bound rows' terms apart. The served time
    to first token is, by hand from the stored terms, ttft_bound (1 + k) + tau + lambda L with
    the terms of llama.cpp@int8 on an RTX 4090 (its int8 rate, 660.6 TOP/s in the Ada
    whitepaper, is the bound's) and of llama.cpp on an M2 Max."""
    from llm_arithmetic.catalog.model_catalog import get_model

    pre = PARAMS["prefill_by_runtime"]
    layers = get_model("llama-2-7b").n_layers
    for chip, cls, rt, rate in (("rtx-4090", "consumer-gpu", "llama.cpp@int8", 660.6e12),
                                ("m2-max", "apple", "llama.cpp", None)):
        d = F.forecast("llama-2-7b", hardware=chip, weights="q4_0", prompt=512,
                       runtime="llama.cpp")
        if rate is not None:
            assert d["peak_flops"] == rate
        k = pre["k"][f"{cls}|{rt}"]
        want = d["ttft_seconds"] * (1 + k) + pre["tau_s"][rt] \
            + pre["lambda_s_per_layer"][rt] * layers
        assert d["expected_ttft_seconds"] == pytest.approx(want, rel=1e-12), chip


def test_errors_are_reported_for_the_reserved_rows():
    for name in ("by_runtime", "agnostic"):
        e = PARAMS["errors_" + name]
        assert e["reserved_validation"]["rows"] == len(VAL) > 0
        assert set(e) == {"leave_one_source_out", "leave_one_chip_out", "leave_one_runtime_out",
                          "reserved_validation"}
        for lo, hi in _all_intervals(PARAMS["interval_" + name]):
            assert 0 < lo < 1 < hi


def test_reserved_ratios_are_the_rows_of_the_stored_reserved_error():
    """The served ratios of the reserved rows give back the error the fit script stored for
    them (errors_as_served): same rows, same mean error, same share within 20%."""
    q = np.array([x for _, x in V.reserved_ratios(PARAMS)])
    stored = PARAMS["errors_as_served"]["reserved_validation"]
    err = np.abs(1 / q - 1)
    assert q.size == stored["rows"] == len(VAL)
    assert err.mean() == pytest.approx(stored["mape"], abs=1e-5)
    assert np.mean(err <= 0.2) == pytest.approx(stored["within_20pct"], abs=1e-5)


def _all_intervals(table):
    if isinstance(table, dict):
        return [iv for k in sorted(table) if k != "one_chip_runtimes"
                for iv in _all_intervals(table[k])]
    return [tuple(table)]


def test_intervals_come_from_fit_rows_and_cover_the_reserved_rows():
    """The stored intervals are recomputed from fit rows alone, and each states a coverage on
    the reserved rows. (Whether that coverage meets issue 30's target for an 80% interval,
    70-95%, is a target of `make bench`, printed with the other error targets, ok or over: a
    test that failed on a missed target would invite fitting to the reserved rows.)"""
    # from the stored left-out ratios (test_stored_left_out_ratios_are_the_cross_validation_of_
    # the_data recomputes them); leaving a runtime out, both fits serve its rows with the
    # agnostic fit (test_cross_validation_serves_an_unknown_runtime_with_the_agnostic_fit)
    served = {by: V._stored_cv(PARAMS, SEEN, kind, by) for kind, by in V._CV_KINDS}
    for name, agnostic in (("by_runtime", False), ("agnostic", True)):
        got = FF.intervals(SEEN, agnostic, served=served)
        assert [pytest.approx(iv, rel=1e-5) for iv in _all_intervals(got)] \
            == _all_intervals(PARAMS["interval_" + name])
        assert got.get("one_chip_runtimes") == PARAMS["interval_" + name].get("one_chip_runtimes")
    for e in (PARAMS["errors_by_runtime"], PARAMS["errors_agnostic"]):
        assert 0 <= e["reserved_validation"]["coverage"] <= 1


def test_weighted_quantiles_with_equal_weights_are_hazen_percentiles():
    v = np.random.default_rng(3).lognormal(size=57)
    assert FF.weighted_quantiles(v, np.ones(57), [0.1, 0.9]) == pytest.approx(
        np.percentile(v, [10, 90], method="hazen"), rel=1e-12)
    # scaling every weight changes nothing; a heavier value pulls the quantile towards it
    assert FF.weighted_quantiles(v, np.full(57, 7.0)) == pytest.approx(
        FF.weighted_quantiles(v, np.ones(57)), rel=1e-12)
    assert FF.weighted_quantiles([1.0, 2.0, 3.0], [1, 1, 5], [0.5])[0] > 2.0


def test_api_forecast_and_interval_under_the_bound():
    for runtime in (None, "llama.cpp"):
        f = F.forecast_decode("llama-2-7b", hardware="m2-max", weights="q4_0", context=64,
                              runtime=runtime)
        lo, hi = f.expected_tokens_per_second_range
        assert lo < f.expected_tokens_per_second <= f.bound_tokens_per_second
        assert hi <= f.bound_tokens_per_second
    # the runtime-agnostic interval is the wider one on a GPU (on Apple chips llama.cpp's own
    # interval, leave-one-chip-out across four generations of them, is as wide)
    agn = F.forecast_decode("llama-2-7b", hardware="rtx-4090", weights="q4_0")
    rt = F.forecast_decode("llama-2-7b", hardware="rtx-4090", weights="q4_0", runtime="llama.cpp")
    width = lambda f: f.expected_tokens_per_second_range[1] / f.expected_tokens_per_second_range[0]
    assert width(agn) > width(rt)


def test_dequantization_term_counts_weights_not_bytes():
    """t_16 is the time to read the step's weights at 16 bits: for Llama 2 7B on a 1 TB/s chip,
    6.74e9 weights read (the embedding table but one row unread) x 2 B / 1e12 B/s, whatever the
    stored bits, and 0 for 16-bit weights; it adds delta t_16 to the forecast."""
    from llm_arithmetic.catalog.model_catalog import get_model

    n = get_model("llama-2-7b").decode_read_params
    # 32 layers x (4 x 4096^2 + 3 x 4096 x 11008) + 32000 x 4096 head + norms: an independent
    # count from the published shapes (Touvron et al. 2023, Table 2 and the config)
    shapes = 32 * (4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096) + 32000 * 4096 + 4096 + 4096
    assert n == shapes
    assert FF.dequant_seconds(n, 4.5, 1e12) == pytest.approx(2 * shapes / 1e12, rel=1e-12)
    assert FF.dequant_seconds(n, 16, 1e12) == 0.0
    assert list(FF.dequant_seconds(n, np.array([4.0, 16.0]), 1e12)) == \
        [pytest.approx(2 * shapes / 1e12), 0.0]
    p = PARAMS["by_runtime"]
    v = FF.terms_for(p, "consumer-gpu", "llama.cpp")
    base = FF.predict_seconds(p, 0.01, "consumer-gpu", "llama.cpp", 32)
    assert FF.predict_seconds(p, 0.01, "consumer-gpu", "llama.cpp", 32, 0.02) == \
        pytest.approx(base + v["delta"] * 0.02, rel=1e-12)


def test_unknown_runtime_names_the_known_ones():
    with pytest.raises(InputError, match="unknown runtime 'tensorrt-llm'.*llama.cpp"):
        F.forecast_decode("llama-2-7b", hardware="rtx-4090", runtime="tensorrt-llm")


@pytest.mark.parametrize("typed, name", [("vllm", "vLLM"), ("VLLM", "vLLM"),
                                         ("mlc-llm", "MLC LLM"), ("sglang", "SGLang"),
                                         ("Llama.cpp", "llama.cpp"), ("vllm-mlx", "vllm-mlx")])
def test_a_runtime_is_found_up_to_case_and_punctuation(typed, name):
    """The names as people type them (the projects' own spellings: `pip install vllm`,
    `mlc-llm`) reach the stored fit's runtime; a near miss is not guessed."""
    assert name in F.known_runtimes()
    assert F.resolve_runtime(typed) == name
    d = F.forecast("llama-2-7b", hardware="rtx-4090", weights="q4_0", runtime=typed)
    assert d["runtime"] == name
    rc, out, _ = _cli("describe", "llama-2-7b", "--hardware", "rtx-4090", "--json",
                      "--runtime", typed)
    assert rc == 0 and out["runtime"] == name
    for near in ("vll", "llamacpp2", "mlc"):
        with pytest.raises(InputError, match="unknown runtime"):
            F.resolve_runtime(near)


def _cli(*args):
    import contextlib
    import io
    import json

    from llm_arithmetic.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return rc, (json.loads(out.getvalue()) if "--json" in args and rc == 0 else out.getvalue()), \
        err.getvalue()


SERVING = ["--prompt", "512", "--generate", "128", "--batch", "8"]


@pytest.mark.parametrize("runtime", [None, "llama.cpp", "exllamav2"])
@pytest.mark.parametrize("chip", ["rtx-4090", "m2-max", "h100-sxm"])
def test_describe_forecast_keys_under_their_bounds(runtime, chip):
    """describe --json: every forecast key with its range, inside the range, never faster than
    its bound (times never shorter); the bound keys are those of estimate(), unchanged."""
    args = ["describe", "llama-2-7b", "--hardware", chip, "--weights", "q4_0", "--json",
            *SERVING, *(["--runtime", runtime] if runtime else [])]
    rc, d, _ = _cli(*args)
    assert rc == 0
    assert d == F.forecast("llama-2-7b", hardware=chip, weights="q4_0", prompt=512, context=512,
                           generate=128, batch=8, runtime=runtime)
    for key, bound in F.EXPECTED_KEYS.items():
        lo, hi = d[key + "_range"]
        assert lo <= d[key] <= hi
        if key.endswith("seconds"):
            assert d[bound] <= lo
        else:
            assert hi <= d[bound] * (1 + 1e-12)


def test_describe_without_runtime_is_wider_and_unknown_runtime_exits_2():
    _, agn, _ = _cli("describe", "llama-2-7b", "--hardware", "rtx-4090", "--json")
    _, rt, _ = _cli("describe", "llama-2-7b", "--hardware", "rtx-4090", "--json",
                    "--runtime", "llama.cpp")
    width = lambda d: np.divide(*d["expected_decode_tokens_per_second_range"][::-1])
    assert width(agn) > width(rt)
    assert agn["runtime"] is None and rt["runtime"] == "llama.cpp"
    rc, _, err = _cli("describe", "llama-2-7b", "--hardware", "rtx-4090",
                      "--runtime", "tensorrt-llm")
    assert rc == 2 and err.count("\n") == 1
    assert "unknown runtime 'tensorrt-llm'" in err and "llama.cpp" in err and "exllamav2" in err
    # no chip: no bound, no forecast
    _, d, _ = _cli("describe", "llama-2-7b", "--json")
    assert d["expected_decode_tokens_per_second"] is None
    rc, text, _ = _cli("describe", "llama-2-7b", "--hardware", "rtx-4090", "--runtime",
                       "llama.cpp", *SERVING)
    assert rc == 0 and "forecast (with llama.cpp; 80% interval)" in text


def test_error_by_regime_pools_to_the_stored_errors():
    """make bench's table: its 'all' row is the stored leave-one-out and as-served errors, and
    every regime's rows add up to it."""
    t = V.error_by_regime(PARAMS)
    stored = {"leave_one_source_out": PARAMS["errors_by_runtime"]["leave_one_source_out"],
              "leave_one_chip_out": PARAMS["errors_by_runtime"]["leave_one_chip_out"],
              "reserved_validation": PARAMS["errors_as_served"]["reserved_validation"]}
    for kind, want in stored.items():
        for k in ("rows", "mape", "within_20pct", "coverage"):
            assert t["all"][kind][k] == pytest.approx(want[k], rel=1e-5), (kind, k)
        assert sum(v[kind]["rows"] for reg, v in t.items() if reg != "all" and kind in v) \
            == want["rows"]


PLAN_CASES = [
    ("llama-2-7b", "rtx-4090", "llama.cpp", dict(weights="q4_0", prompt=512, generate=128,
                                                 batch=8, context=512)),
    ("llama-2-7b", "m2-max", None, dict(weights="q4_0", context=64)),
    ("llama-3-8b", "h100-sxm", "exllamav2", dict(weights="fp16", prompt=2048, generate=256,
                                                 batch=1, context=2048)),
    ("llama-3-70b", "h100-sxm", None, dict(weights="fp8", tp=4, prompt=1024, generate=64,
                                           batch=16, context=1024)),
    ("llama-3-8b", "rtx-4090", "llama.cpp", dict(weights="q4_k_m", prompt=256, generate=64,
                                                 draft_len=4, acceptance=0.7, draft_cost=0.1)),
    # a draft model (its blocks charged) and an MTP module (one block a draft)
    ("qwen3-8b", "rtx-4090", "llama.cpp", dict(weights="q4_k_m", context=1024, batch=4,
                                               draft="qwen3-0.6b", draft_len=4, acceptance=0.8)),
    ("deepseek-v3", "h200", "vLLM", dict(weights="fp8", tp=8, prompt=1024, generate=256,
                                         speculation="mtp")),
    # both encoders before the prefill: the image's vision tower and the clip's audio encoder
    ("qwen2.5-omni-7b", "h100-sxm", "vLLM", dict(prompt=200, generate=64, images=1,
                                                 audio_seconds=20.0)),
]


def _plan_forecast(model, chip, runtime, kw):
    """The plan's forecast steps (FORECAST_STEPS) evaluated by the Python interpreter, with the
    inputs forecast_inputs() gives: the evaluator estimate() builds, the forecast records
    added."""
    from llm_arithmetic.catalog.model_catalog import get_model
    from llm_arithmetic.estimate import estimate

    m = get_model(model)
    inputs = F.forecast_inputs(F.chip_class_of(chip), runtime)
    base, seen = m.plan, []

    class Spy:
        def child(self, **kw_):
            seen.append(base.child(**kw_, **inputs))
            return seen[-1]

    m.__dict__["plan"] = Spy()
    try:
        e = estimate(m, hardware=chip, **kw)
    finally:
        m.__dict__["plan"] = base
    return e, m, seen[-1]


@pytest.mark.parametrize("model,chip,runtime,kw", PLAN_CASES)
def test_plan_forecast_steps_equal_expected(model, chip, runtime, kw):
    """The plan's forecast steps, which the book's calculators evaluate, give expected()'s keys
    (the reference, with its own lookups of the fit)."""
    e, m, ev = _plan_forecast(model, chip, runtime, kw)
    want = F.expected(e, m.n_layers, runtime)
    for key in F.EXPECTED_KEYS:
        got, lo, hi = (ev.get(key), ev.get(key + "_low"), ev.get(key + "_high"))
        if want[key] is None:
            assert got is None
            continue
        assert got == pytest.approx(want[key], rel=1e-12), key
        assert [lo, hi] == pytest.approx(want[key + "_range"], rel=1e-12), key


def test_partial_pooling_lands_between_the_rows_and_the_pool():
    """The pooled terms of a runtime with few rows are pulled towards the runtime-agnostic fit: with
    an overwhelming prior they are the agnostic values; and as the prior's weight grows the fit
    to the rows can only get worse and its distance to the pool only smaller (a penalized
    convex fit), a prior of three pseudo-rows in between. Every runtime is named."""
    spec = FF.MODELS["by_runtime"]
    prior = FF.fit(SEEN, True)
    fits = {a: FF.fit(SEEN, spec={**spec, "shrink": {t: a for t in spec["shrink"]}})
            for a in (1e-9, 3.0, 1e9)}
    assert set(F.known_runtimes({"by_runtime": fits[3.0]})) == {r.runtime for r in SEEN}
    few = [rt for rt in {r.runtime for r in SEEN}
           if sum(r.runtime == rt for r in SEEN) < FF.MIN_ROWS]
    assert "calm" in few
    for rt in few:
        cls = next(r.chip_class for r in SEEN if r.runtime == rt)
        for term in spec["shrink"]:
            assert FF.terms_for(fits[1e9], cls, rt)[term] == pytest.approx(
                FF.terms_for(prior, cls, None)[term], rel=1e-6, abs=1e-12), (rt, term)

    def misfit(p):
        return sum(((r.t_measured - FF.predict_seconds(p, r.t_bound, r.chip_class, r.runtime,
                                                      r.n_layers, r.t_dequant)) / r.t_measured)
                   ** 2 for r in SEEN)

    def distance(p):
        return sum(((v - FF.terms_for(prior, key.split("|")[0], None)[term]) / FF._SCALE[term]) ** 2
                   for term in spec["shrink"] for key, v in p[term].items() if "|" in key)

    assert misfit(fits[1e-9]) <= misfit(fits[3.0]) * (1 + 1e-9) <= misfit(fits[1e9]) * (1 + 2e-9)
    assert distance(fits[1e-9]) >= distance(fits[3.0]) >= distance(fits[1e9])


def test_cross_validation_serves_an_unknown_runtime_with_the_agnostic_fit():
    """Leaving a runtime out, the named-runtime fit no longer knows it: every row is forecast by
    the runtime-agnostic fit, exactly as leave-one-runtime-out of that fit does."""
    named = FF.cross_validate(SEEN, "runtime")
    agnostic = FF.cross_validate(FIT, "runtime", True)
    assert [r.id for r, _ in named] == [r.id for r, _ in agnostic]
    assert [q for _, q in named] == pytest.approx([q for _, q in agnostic], rel=1e-12)


def test_a_runtime_measured_on_one_chip_takes_the_unseen_runtime_interval():
    """calm's fit rows are all on one RTX 4090: leaving that chip out, the fit no longer knows
    calm, so no leave-one-chip-out ratio tests it; its interval is an unseen runtime's. A
    runtime on several chips with enough rows has its own."""
    iv = PARAMS["interval_by_runtime"]
    seen = iv["seen_runtime"]
    assert len({r.device for r in FIT if r.runtime == "calm"}) == 1
    assert "calm" in iv["one_chip_runtimes"] and "llama.cpp" not in iv["one_chip_runtimes"]
    assert "consumer-gpu|llama.cpp" in seen and "consumer-gpu|calm" not in seen
    assert FF.interval_for(PARAMS, "by_runtime", "consumer-gpu", "calm") == \
        tuple(iv["unseen_runtime"])
    assert FF.interval_for(PARAMS, "by_runtime", "consumer-gpu", "llama.cpp") == \
        tuple(seen["consumer-gpu|llama.cpp"])
    rc, d, _ = _cli("describe", "mistral-7b", "--hardware", "rtx-4090", "--weights", "fp16",
                    "--runtime", "calm", "--json")
    assert rc == 0 and d["runtime"] == "calm"
    assert d["expected_decode_tokens_per_second"] < d["decode_tokens_per_second"]


def test_stored_left_out_ratios_are_the_cross_validation_of_the_data():
    """error_by_regime (make bench, chapters 17 and 17b) reads each fit row's leave-one-source-
    out and leave-one-chip-out ratio from the stored fit, and the intervals' test the
    leave-one-runtime-out ones too: they are the cross-validation of the data, recomputed
    here for every third left-out group of each kind (a third of the folds, the largest
    included; a stale stored fit differs in every fold, and the whole recomputation took
    most of this file's time)."""
    def every_third_and_largest(groups: list[str]) -> list[str]:
        largest = max(groups, key=lambda g: sum(getattr(r, by) == g for r in SEEN)) \
            if by != "runtime" else "llama.cpp"
        return sorted(set(groups[::3]) | {largest})

    for kind, by in V._CV_KINDS:
        stored = PARAMS["cv_ratios"][kind]
        assert set(stored) == {r.id for r in FIT}
        checked = FF.cross_validate_served(SEEN, by, only=every_third_and_largest)
        assert len(checked) >= len(FIT) // 4, kind
        for r, q, how in checked:
            assert stored[r.id][0] == pytest.approx(q, rel=1e-5), (kind, r.id)
            assert stored[r.id][1] == how


#: A named structure with llama.cpp's 2023-24 builds apart, tau and lambda shared: the
#: build-era candidate of --select the two tests below read (fitted once, :func:`_builds_fit`).
BUILDS_SPEC = {**FF.MODELS["by_runtime"], "builds": True,
               "shared_across_builds": ("tau_s", "lambda_s_per_layer")}


@functools.cache
def _builds_fit() -> dict:
    return FF.fit(FF.named_rows(FIT, BUILDS_SPEC), spec=BUILDS_SPEC)


def test_build_eras_share_the_terms_they_are_told_to_share():
    """The build-era candidates of --select: llama.cpp's 2023-24 builds become a runtime of
    their own (their own k); the terms a spec shares across builds keep one key per runtime."""
    rows = FF.with_builds(FIT)
    assert {r.runtime for r in rows} - {r.runtime for r in FIT} == {"llama.cpp@2023-24"}
    spec = BUILDS_SPEC
    p = _builds_fit()
    assert {"consumer-gpu|llama.cpp@2023-24", "consumer-gpu|llama.cpp"} <= set(p["k"])
    assert not any("@" in key for t in spec["shared_across_builds"] for key in p[t])
    old, new = (FF.terms_for(p, "consumer-gpu", rt) for rt in ("llama.cpp@2023-24", "llama.cpp"))
    assert old["lambda_s_per_layer"] == new["lambda_s_per_layer"] and old["tau_s"] == new["tau_s"]
    assert old["k"] != new["k"]


def test_a_structure_with_builds_names_them_apart_and_serves_rows_with_their_build():
    """A named structure with ``builds`` (a candidate of --select) keeps llama.cpp's 2023-24
    builds apart (k of their own, tau and lambda shared): ``llama.cpp`` is today's builds,
    ``llama.cpp@2023-24`` the older ones; a reserved row of an older build (discussion 4167,
    November 2023) is served with the older builds' terms; a left-out runtime goes with all its
    builds (an era of a seen runtime is not an unseen runtime). The stored structure splits
    by CUDA graphs instead (the next test)."""
    spec = BUILDS_SPEC
    assert PARAMS["by_runtime"]["builds"] == FF.MODELS["by_runtime"]["builds"] == "cuda-graphs"
    seen = FF.named_rows(FIT, spec)
    named = _builds_fit()
    assert named["builds"] and {"llama.cpp", "llama.cpp@2023-24"} <= set(F.known_runtimes(
        {"by_runtime": named}))
    old, new = (FF.terms_for(named, "consumer-gpu", rt) for rt in ("llama.cpp@2023-24", "llama.cpp"))
    assert old["k"] == named["k"]["consumer-gpu|llama.cpp@2023-24"]
    assert new["k"] == named["k"]["consumer-gpu|llama.cpp"] != old["k"]
    assert old["lambda_s_per_layer"] == new["lambda_s_per_layer"]
    served = {r.source: r.runtime for r in FF.named_rows(VAL, named)}
    assert served["llama.cpp-discussion-4167"] == "llama.cpp@2023-24"
    assert served["llama.cpp-discussion-15013"] == "llama.cpp"
    small = [r for r in seen if r.runtime.startswith("llama.cpp") or r.runtime == "calm"]
    loro = FF.cross_validate_served(small, "runtime", spec=spec)
    assert {how for r, _, how in loro if r.runtime.startswith("llama.cpp")} == {"agnostic"}


def test_the_stored_structure_keeps_llama_cpp_cuda_runs_without_cuda_graphs_apart():
    """The pick of --select on 438 rows: llama.cpp's CUDA runs without CUDA graphs are a runtime
    of their own. Which rows ran without them follows from llama.cpp's history, not from the
    fit: CUDA graphs came with PR #6766 (May 2024) and stay off before Ampere. So the CI's V100
    (every build), XiongjieDai's December 2023 runs (builds 1671-1691) and maintainers' January
    2024 PR tables ran without; XiongjieDai's May 2024 runs (builds 2824-2843) and every 2025-26
    run on Ampere or later with them, but for one whose build compiled them out (an L40S run of
    build 7199 whose printed CMake cache has GGML_CUDA_GRAPHS OFF), and so did the reserved
    scoreboard's and DGX Spark's; Metal runs keep the plain name. Each no-graphs run pays more time
    per layer (one launch per kernel)."""
    named = FF.named_rows(FIT)
    runtime = {r.id: r.runtime for r in named}
    no_graphs = FF.NO_CUDA_GRAPHS
    assert runtime["xd-llama1-4090-7b-q4_0"] == no_graphs
    assert runtime["xd-llama3-4090-8b-q4km"] == "llama.cpp"
    assert runtime["xd-llama3-m1-8b-q4km"] == "llama.cpp"
    assert runtime["pamp-l40s-qwen3-8b-q5km-tg128"] == no_graphs      # GGML_CUDA_GRAPHS OFF
    assert runtime["pamp-a30-qwen3-8b-q5km-tg128"] == "llama.cpp"     # its file prints no cache
    assert {runtime[r.id] for r in FIT if r.source.startswith("ggml-org-ci-v100")} == {no_graphs}
    assert {runtime[r.id] for r in FIT if r.source == "llama.cpp-cuda-prs-2024"} == {no_graphs}
    assert {r.runtime for r in FF.named_rows(VAL) if r.source in (
        "llama.cpp-discussion-15013", "llama.cpp-dgx-spark-bench",
        "llama.cpp-discussion-4167")} == {"llama.cpp"}
    assert no_graphs in F.known_runtimes()
    for chip_class in ("consumer-gpu", "datacenter-gpu"):
        with_graphs, without = (FF.terms_for(PARAMS["by_runtime"], chip_class, rt)
                                for rt in ("llama.cpp", no_graphs))
        assert without["lambda_s_per_layer"] > with_graphs["lambda_s_per_layer"], chip_class


@pytest.mark.parametrize("runtime,chip", [
    ("mlx-lm", "m2-max"), ("mlx-lm", "h100-sxm"), ("mlx-lm", "rtx-4090"),
    ("vLLM", "h100-sxm"), ("vLLM", "m2-max"), ("exllamav2", "rtx-4090"),
    ("exllamav2", "h100-sxm")])
def test_a_runtime_without_rows_on_the_chip_class_says_it_borrows_pooled_terms(
        capsys, runtime, chip):
    """Whether the runtime has decode fit rows on the chip's class is counted from the data
    (runtime_measurements.csv through the loader: one chip, batch 1, a catalogued model and a
    bandwidth, the rows a decode fit takes); where it has none, describe's table and JSON
    (forecast_caveat, forecast_pooled_terms) and --explain say that the runtime's per-class
    terms are the pooled ones; where it has rows, nothing is said."""
    import json

    from llm_arithmetic import get_hardware
    from llm_arithmetic.catalog.hardware import CLASS_OF_KIND
    from llm_arithmetic.cli import main

    cls = CLASS_OF_KIND[get_hardware(chip).kind]
    n = sum(1 for r in M.fit_rows("decode") if r.runtime == runtime and r.device_class == cls
            and r.chips == 1 and r.batch == 1 and r.model_key and r.bandwidth_gbps is not None)
    args = ["describe", "llama-3-8b", "--hardware", chip, "--weights", "q4_0",
            "--runtime", runtime]
    assert main([*args, "--json", "--explain", "expected_decode_tokens_per_second"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    table = capsys.readouterr().out
    said = f"{runtime} has no measured decode rows on"
    explained = d["explain"]["expected_decode_tokens_per_second"]["caveat"]
    if n:
        assert d["forecast_caveat"] is None and d["forecast_pooled_terms"] == {}
        assert said not in table and explained == ""
    else:
        assert said in d["forecast_caveat"] and said in table and said in explained
        # k is kept per class and runtime, lambda per runtime and class (forecast_fit.MODELS)
        assert d["forecast_pooled_terms"] == {"decode": ["k", "lambda_s_per_layer"]}


def _kinds_of_the_data():
    """(the hardware catalog's kinds, the kinds the data's rows are of), read from the files
    themselves (hardware.toml and both CSVs, not through the package's loaders): a row is of its
    catalogued chip's kind, and of its device class where that is a kind (a CPU run on a
    machine the catalog does not hold, such as the Ryzen 9 7950X of llama.cpp issue 4716)."""
    import csv
    import tomllib
    from pathlib import Path

    lib = Path(F.__file__).parent
    with open(lib / "catalog" / "data" / "hardware.toml", "rb") as f:
        kind_of = {name: d["kind"] for name, d in tomllib.load(f)["devices"].items()}
    kinds, measured = set(kind_of.values()), set()
    for name in ("runtime_measurements.csv", "calibration_measurements.csv"):
        with open(lib / "lab" / "data" / name, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                if row["hardware_key"]:
                    measured.add(kind_of[row["hardware_key"]])
                if row["device_class"] in kinds:
                    measured.add(row["device_class"])
    return kinds, measured


def test_the_unmeasured_kinds_are_counted_from_the_data():
    """forecast.unmeasured_kinds against the files read a second way: the catalog's kinds that
    no row is of. Today that is the accelerators (TPU, Gaudi, Trainium: no row) and the
    single-board computers (a Raspberry Pi: no row); every CPU row is of an uncatalogued machine
    or an Apple chip's CPU cores, and the SoC rows (Jetson, DGX Spark) are validation rows:
    measured, though not fitted."""
    kinds, measured = _kinds_of_the_data()
    assert set(F.unmeasured_kinds()) == kinds - measured
    assert {"accelerator", "sbc"} <= set(F.unmeasured_kinds())
    assert not {"cpu", "soc", "apple-silicon"} & set(F.unmeasured_kinds())


def test_one_kind_asked_reads_only_as_far_as_its_first_row(monkeypatch):
    """describe asks whether one chip's kind is unmeasured, and the data are read only up to the
    first row of that kind: the answer is that of the files read a second way for every kind
    of the catalog, whatever was asked before (a measured kind keeps nothing; a full read keeps
    :func:`unmeasured_kinds`'s answer); the kinds are the catalog's without building a record."""
    from llm_arithmetic.catalog.hardware import HARDWARE, device_kinds

    kinds, measured = _kinds_of_the_data()
    assert device_kinds() == {name: h.kind for name, h in HARDWARE.items()}
    for kind in sorted(kinds) + ["no-such-kind"]:
        monkeypatch.setattr(F, "_UNMEASURED", {})
        assert F._kind_unmeasured(kind) == (kind in kinds - measured), kind
        assert F._UNMEASURED == {} or set(F.unmeasured_kinds()) == kinds - measured
        assert F._kind_unmeasured(kind) == (kind in kinds - measured), kind


@pytest.mark.parametrize("model,chip,kind,label", [
    ("llama-3-8b", "tpu-v5e", "accelerator", "datacenter GPU"),
    ("llama-3.2-1b", "raspberry-pi-4", "sbc", "CPU")])
def test_a_chip_of_a_kind_no_row_measured_says_so(capsys, model, chip, kind, label):
    """No row of the data is on an accelerator (TPU, Gaudi, Trainium) or a single-board
    computer (Raspberry Pi): a forecast on one, with a runtime or none, says that it borrows
    its class's terms, naming the kind; on a chip of a measured kind (an H100; a Ryzen 9 7950X,
    whose kind has CPU rows) it says nothing of the kind."""
    from llm_arithmetic import get_hardware
    from llm_arithmetic.cli import main

    _, measured = _kinds_of_the_data()
    assert kind not in measured and get_hardware(chip).kind == kind
    said = (f"no measured row is on a chip of this kind ({kind}): the forecast borrows the "
            f"{label} terms")
    for extra in (["--runtime", "llama.cpp"], []):
        assert main(["describe", model, "--hardware", chip, *extra]) == 0
        assert said in capsys.readouterr().out
    for other in ("h100-sxm", "ryzen-7950x"):
        assert main(["describe", model, "--hardware", other, "--runtime", "llama.cpp"]) == 0
        assert "no measured row is on a chip" not in capsys.readouterr().out


def test_the_caveat_exported_to_the_page_agrees_with_the_fallbacks_of_terms_for():
    """The page's caveat data (forecast.caveat_catalog, in the exported catalog) against what
    terms_for does, found without pooled_terms: each value of a per-class-and-runtime term of
    the stored fits is replaced by a number of its own (its key's index), so the value terms_for
    returns names the key it read; a term of a (class, runtime) whose value is not its own
    "class|runtime" key's fell back to the pool (a "class|*" or "*" key, or the median of the
    table where no key matches), and those terms are the exported list of that fit. The kinds
    no row measured are catalogued kinds of no chip or device class of the data's rows."""
    import copy

    from llm_arithmetic.book.export import catalog_data

    p = FF.load_params()
    exported = catalog_data()["forecast"]["caveat"]
    classes = sorted(set(F.CHIP_CLASSES.values())) + ["*"]
    assert sorted(exported["pooled"]) == sorted(classes)
    checked = 0
    for fit, fit_name in (("by_runtime", "decode"), ("prefill_by_runtime", "prefill")):
        marked = copy.deepcopy(p[fit])
        assert not marked.get("shared_across_builds")  # keys name the runtime as given
        per_pair = [t for t, k in marked["terms"].items() if k in ("class|runtime",
                                                                   "runtime|class")]
        for term in per_pair:
            marked[term] = {k: 1000.0 + i for i, k in enumerate(sorted(marked[term]))}
        for cls in classes:
            for rt in F.known_runtimes(p):
                if F.prefill_fit_for(p, rt)[1] is None and fit_name == "prefill":
                    assert "prefill" not in exported["pooled"][cls][rt]
                    continue
                values = FF.terms_for(marked, cls, rt)
                want = [t for t in per_pair if values[t] != marked[t].get(f"{cls}|{rt}")]
                assert exported["pooled"][cls][rt][fit_name] == want, (fit, cls, rt)
                checked += 1
    assert checked > 50
    # describe's example: mlx-lm has no datacenter GPU rows and has Apple rows
    assert exported["pooled"]["datacenter-gpu"]["mlx-lm"]["decode"]
    assert exported["pooled"]["apple"]["mlx-lm"]["decode"] == []
    # the kinds listed are the catalogued kinds that no row is of (the rows on CPUs are of
    # uncatalogued machines or Apple chips' CPU cores: a class "cpu" without a chip of its kind)
    kinds, measured = _kinds_of_the_data()
    assert "accelerator" in exported["unmeasured_kinds"]
    assert set(exported["unmeasured_kinds"]) == kinds - measured


def test_a_prefill_rows_bound_is_the_estimates_at_the_formats_rate():
    """A prefill row's bound (forecast_fit._prefill_bound, through the public
    estimate.plan_inputs) is the estimate's time to first token where the file's bits are the
    format's own (Q4_0's 4.5 bits a weight: the estimate of weights="q4_0"); at a file's other
    bits, the weights' products still take the format's int8 rate on an RTX 4090 (the
    estimate of those bits alone takes a 16-bit one), and a bit more weight takes a bit longer.
    forecast imports no private name of estimate (nor deploy its checked inputs)."""
    import ast
    import inspect

    from llm_arithmetic import deploy, estimate, get_hardware

    chip = get_hardware("rtx-4090")
    for prompt in (16, 512, 4096):
        want = estimate("llama-3.1-8b", hardware=chip, weights="q4_0", prompt=prompt,
                        context=prompt)
        t, precision = FF._prefill_bound("llama-3.1-8b", chip, {"bits_weight": 4.5}, "q4_0", 16,
                                        prompt)
        assert t == want.ttft_seconds and precision == want.compute_precision == "int8"
        more, p2 = FF._prefill_bound("llama-3.1-8b", chip, {"bits_weight": 4.9}, "q4_0", 16,
                                    prompt)
        alone = estimate("llama-3.1-8b", hardware=chip, bits_weight=4.9, prompt=prompt,
                         context=prompt)
        assert p2 == "int8" != alone.compute_precision and more >= t
    for module, private in ((F, lambda name: name.startswith("_")),
                            (deploy, lambda name: name == "_checked_inputs")):
        names = [a.name for node in ast.walk(ast.parse(inspect.getsource(module)))
                 if isinstance(node, ast.ImportFrom) and node.module == "estimate"
                 for a in node.names]
        assert names and not [n for n in names if private(n)], (module.__name__, names)


def _row(row_id):
    return next(r for r in FIT if r.id == row_id)


def test_a_dense_llama_cpp_rows_bound_reads_the_file_by_parts():
    """XiongjieDai's Llama 3 8B Q4_K_M on an RTX 4090 (1008 GB/s, tg512: mean context 256),
    the file 4.899 bits a weight (4.58 GiB over the parameters). By hand, from the config
    (meta-llama/Meta-Llama-3-8B: 32 layers, d 4096, 8 KV heads of 128, d_ff 14336, vocabulary
    128256, untied) and llama.cpp's Q4_K_M rule (src/llama-quant.cpp at 007dbbf3, as
    formats.toml transcribes it): attn_v and ffn_down Q6_K (6.5625 bits) in the 16 layers where
    use_more_bits holds, Q4_K (4.5) elsewhere; every other matrix and token_embd Q4_K, output
    Q6_K, norms F32. The rule's file is 4.8944 bits a weight; every part is scaled by
    4.899 / 4.8944 so that the file is the row's, and a step reads all of it but the 128,255
    token_embd rows it does not look up, plus the fp16 cache of 256 tokens. The bound is 0.56%
    slower than the file's mean bits for every weight gave (Q6_K output and attn_v/ffn_down
    are read, Q4_K embedding rows are not)."""
    L, d, dff, vocab, kv_heads, hd = 32, 4096, 14336, 128256, 8, 128
    q4k, q6k, f32 = Fraction(9, 2), Fraction(105, 16), 32
    more = [i for i in range(L) if i < L // 8 or i >= 7 * L // 8 or (i - L // 8) % 3 == 2]
    assert len(more) == 16
    layers = sum(2 * d * d * q4k + d * kv_heads * hd * (q4k + (q6k if i in more else q4k))
                 + 2 * d * dff * q4k + dff * d * (q6k if i in more else q4k) + 2 * d * f32
                 for i in range(L))
    emb = vocab * d
    file_bits = layers + emb * q4k + emb * q6k + d * f32
    n = L * (2 * d * d + 2 * d * kv_heads * hd + 3 * d * dff + 2 * d) + 2 * emb + d
    assert n == 8_030_261_248 and round(float(file_bits / n), 4) == 4.8944
    scale = Fraction(4899, 1000) / (file_bits / n)
    read = scale * (file_bits - (vocab - 1) * d * q4k) / 8
    cache = 2 * L * kv_heads * hd * 2 * 256
    t = float((read + cache) / 1008) / 1e9
    assert _row("xd-llama3-4090-8b-q4km").t_bound == pytest.approx(t, rel=1e-7)
    mean = float((Fraction(4899, 1000) * (n - (vocab - 1) * d) / 8 + cache) / 1008) / 1e9
    assert t / mean - 1 == pytest.approx(0.0056, abs=5e-5)


def test_a_mixture_of_experts_llama_cpp_rows_bound_reads_the_file_by_parts():
    """PR 4406's Mixtral 8x7B Q6_K on an M2 Max (400 GB/s, tg128: mean context 64), the file
    35.74 GiB: 6.574 bits a weight. By hand, from the config (mistralai/Mixtral-8x7B-v0.1: 32
    layers, d 4096, 8 KV heads of 128, 8 experts of d_ff 14336, top 2, vocabulary 32000,
    untied) and llama.cpp's rules: with 8 experts attn_k and attn_v take Q8_0 (8.5 bits); every
    other matrix, token_embd and output Q6_K (6.5625); the router F16 and norms F32, as
    converted. The rule's file is 6.5740 bits a weight (the row's, to its digits); a step reads
    attention, the router, the norms, 2 of the 8 experts, the output head and one embedding row,
    each at its own bits, plus the fp16 cache: 0.47% slower than the mean bits for every
    weight, because attention (at 6.9 bits a weight) weighs more in what a step reads than in
    the file."""
    L, d, dff, vocab, kv_heads, hd, experts, top = 32, 4096, 14336, 32000, 8, 128, 8, 2
    q6k, q8, f16, f32 = Fraction(105, 16), Fraction(17, 2), 16, 32
    attn = 2 * d * d * q6k + 2 * d * kv_heads * hd * q8
    expert = 3 * d * dff * q6k
    rest = d * experts * f16 + 2 * d * f32
    emb = vocab * d
    file_bits = L * (attn + experts * expert + rest) + 2 * emb * q6k + d * f32
    n = (L * (2 * d * d + 2 * d * kv_heads * hd + experts * 3 * d * dff + d * experts + 2 * d)
         + 2 * emb + d)
    assert n == 46_702_792_704 and round(float(file_bits / n), 4) == 6.5740
    scale = Fraction(6574, 1000) / (file_bits / n)
    read = scale * (L * (attn + top * expert + rest) + emb * q6k + d * f32 + d * q6k) / 8
    cache = 2 * L * kv_heads * hd * 2 * 64
    t = float((read + cache) / 400) / 1e9
    assert _row("pr4406-m2max-mixtral-q6_k").t_bound == pytest.approx(t, rel=1e-7)
    active = L * (2 * d * d + 2 * d * kv_heads * hd + top * 3 * d * dff + d * experts + 2 * d)
    mean = float((Fraction(6574, 1000) * (active + emb + d) / 8 + cache) / 400) / 1e9
    assert t / mean - 1 == pytest.approx(0.0047, abs=5e-5)


def test_a_row_at_nominal_bits_takes_the_rules_file_and_other_formats_their_bits():
    """A row whose bits are the block type's nominal figure (Q4_0 4.5: no file size, the
    output head at Q6_K not counted) reads the file llama.cpp's rules give, which is the size
    the sources state: Mixtral 8x7B Q4_0 24.62 GiB (PR 4406's comment), Llama 2 7B Q4_0
    3.56 GiB (discussions 4167 and 15013); in Mixtral attention is Q8_0 and the head Q6_K, so
    what is not an expert averages 5.4 bits. A file at the rules' own mean bits is the file
    type as an estimate serves it (weights="q4_k_m"). A format that is no llama.cpp file type
    (AWQ, GPTQ, EXL2, MLX, 16-bit) keeps one figure for every weight, and MXFP4 its file's
    parts; the unsloth gpt-oss GGUF (experts as shipped) is no file type of the rules."""
    from llm_arithmetic import estimate, get_model
    from llm_arithmetic.catalog.formats import mix_bits, mix_parts
    from llm_arithmetic.weights import weight_inputs

    for key, gib in (("mixtral-8x7b", 24.62), ("llama-2-7b", 3.56)):
        m = get_model(key)
        w = FF.row_weights(key, "Q4_0", 4.5)
        # the parts a step reads; the copies a tensor-parallel group holds are priced by the
        # file type's tensor types (formats.mix_copy_bits), as weight_inputs serves them
        copies = {k: v for k, v in w.items() if k.startswith("native_bits_copy_")}
        assert copies == {k: v for k, v in weight_inputs(m, "mostly_q4_0").items()
                          if k.startswith("native_bits_copy_")}
        assert {k: v for k, v in w.items() if k not in copies} == {
            "bits_weight": None,
            **{f"native_bits_{k}": v for k, v in mix_parts(m, "q4_0").items()}}
        assert float(mix_bits(m, "q4_0")) * m.language_model_params / 8 / 2**30 == \
            pytest.approx(gib, abs=0.005)
    assert float(FF.row_weights("mixtral-8x7b", "Q4_0", 4.5)["native_bits_default"]) == \
        pytest.approx(5.425, abs=5e-4)
    m = get_model("llama-3-8b")
    served = weight_inputs(m, "q4_k_m")
    w = FF.row_weights("llama-3-8b", "Q4_K_M", float(mix_bits(m, "q4_k_m")))
    assert w.keys() == served.keys()
    assert all(w[k] == served[k] or float(w[k]) == pytest.approx(float(served[k]), rel=1e-12)
               for k in w)
    assert FF.row_weights("gpt-oss-20b", "MXFP4", 4.63) == weight_inputs(
        get_model("gpt-oss-20b"), "mxfp4_moe")
    assert FF.row_weights("gpt-oss-20b", "Q4_K_M (unsloth; MoE experts as shipped)",
                         4.437) == {"bits_weight": Fraction(4437, 1000)}
    rows = {r.id: r for r in M.fit_rows("decode")}
    plain = [r for r in FIT if rows[r.id].weight_format.split()[0] in
             ("AWQ", "GPTQ", "EXL2", "MLX", "fp16", "bf16")]
    assert len(plain) > 100
    for r in plain:
        s = rows[r.id]
        want = estimate(s.model_key, bits_weight=s.bits_per_weight,
                        bits_kv=8 if s.kv_format == "fp8" else 16,
                        context=max(1, s.context or 0), bandwidth=s.bandwidth_gbps * 1e9)
        assert r.t_bound == want.decode_seconds_per_token, r.id


def test_an_unknown_runtime_gets_a_hint():
    """A name that is part of known runtimes' names is answered with them; a runtime the data
    measure only at other metrics (TensorRT-LLM's page: batched throughput and time to first
    token, runtime_README.md) is told why it has no terms of its own."""
    with pytest.raises(InputError, match=r"'mlx' \(did you mean Rapid-MLX, mlx-lm or vllm-mlx\?\)"):
        F.resolve_runtime("mlx")
    with pytest.raises(InputError, match=r"TensorRT-LLM: the data measure its batched throughput"
                                         r" and time to first token, no single-stream decode"):
        F.resolve_runtime("tensorrt-llm")
    with pytest.raises(InputError, match=r"unknown runtime 'nonesuch'; known: "):
        F.resolve_runtime("nonesuch")


def test_ttft_with_images_forecasts_the_prefill_and_adds_the_tower_unscaled():
    # the prefill fit saw no image: forecast t_text = ttft - t_tower with the fit's terms as
    # for a text prompt, t = t_text (1 + k) + tau + lambda L, then add t_tower as it is; the
    # interval's ends are the prefill's (t / q, at least its bound) plus t_tower
    from llm_arithmetic.estimate import estimate
    from llm_arithmetic.forecast import chip_class_of, expected, forecast_inputs

    kw = dict(hardware="rtx-4090", weights="q4_k_m", prompt=512, images=1,
              image_size=(1000, 700))
    e = estimate("qwen2.5-vl-3b-instruct", **kw)
    tower, bound = e.vision_prefill_seconds, e.ttft_seconds
    assert 0 < tower < bound
    fp = forecast_inputs(chip_class_of(e.hardware), "llama.cpp")
    pre = fp["forecast_prefill_int8"] or fp["forecast_prefill"]   # q4_k_m: the int8 rate
    text = bound - tower
    t = text * (1 + pre["k"]) + pre["tau"] + pre["lambda"] * 36   # Qwen2.5-3B: 36 blocks
    out = expected(e, 36, "llama.cpp")
    assert out["expected_ttft_seconds"] == pytest.approx(t + tower, rel=1e-9)
    lo, hi = (max(text, t / pre["high"]) + tower, max(text, t / pre["low"]) + tower)
    assert out["expected_ttft_seconds_range"] == pytest.approx([lo, hi], rel=1e-9)
    # the page's plan gives the same
    ev = e._plan.child(**fp)
    assert ev.get("expected_ttft_seconds") == pytest.approx(t + tower, rel=1e-9)
    assert [ev.get("expected_ttft_seconds_low"), ev.get("expected_ttft_seconds_high")] \
        == pytest.approx([lo, hi], rel=1e-9)


def test_the_stored_structure_carries_a_build_drift_that_todays_build_does_not_pay():
    """The pick of --select on 448 rows (the twenty-second sitting): llama.cpp's rows with CUDA
    graphs, and its Metal and CPU rows, pay a non-negative time per layer and per token per year
    of their build's age before the newest fit row's day; its runs without graphs, every other
    runtime and a build of the reference day pay none, so the served terms carry no drift; a
    reserved row pays its own build's."""
    from dataclasses import replace
    from datetime import date

    p = PARAMS["by_runtime"]
    assert {t: p["terms"][t] for t in FF.DRIFT_TERMS} == {t: "*" for t in FF.DRIFT_TERMS}
    assert all(v >= 0 for t in FF.DRIFT_TERMS for v in p[t].values())
    assert set(FF.terms_for(p, "consumer-gpu", "llama.cpp")) == {
        "k", "delta", "tau_s", "lambda_s_per_layer"}
    named = {r.id: r for r in FF.named_rows(FIT)}
    old = named["xd-llama3-4090-8b-q4km"]            # build 2824, 9 May 2024
    want = (date(2026, 7, 29) - date(2024, 5, 9)).days / 365.25
    assert old.runtime == "llama.cpp" and old.age_years == pytest.approx(want)
    mu, nu = p["mu_s_per_layer_year"]["*"], p["nu_s_per_year"]["*"]
    assert FF._drift_seconds(p, old) == pytest.approx((mu * old.n_layers + nu) * want)
    assert FF._drift_seconds(p, replace(old, age_years=0.0)) == 0.0
    no_graphs = named["xd-llama1-4090-7b-q4_0"]      # December 2023, no CUDA graphs
    assert no_graphs.runtime == FF.NO_CUDA_GRAPHS and no_graphs.age_years > want
    assert FF._drift_seconds(p, no_graphs) == 0.0
    assert all(r.age_years == 0.0 for r in FIT if not r.runtime.startswith("llama.cpp"))
    # a reserved row is checked against the forecast for the build it ran: discussion 4167's
    # build 8e672ef of 21 November 2023 pays (2026-07-29 - 2023-11-21) / 365.25 years of drift
    d4167 = next(r for r, _, _ in V._as_served(PARAMS, VAL) if r.id == "d4167-m1ultra64-7b-q4_0")
    assert d4167.age_years == pytest.approx((date(2026, 7, 29) - date(2023, 11, 21)).days / 365.25)


def test_a_forecast_for_an_older_llama_cpp_build_pays_the_drift_by_hand():
    """A forecast asked for an older llama.cpp build (expected's build_date, the plan's
    build_age) pays (mu L + nu) a beside the fixed cost, with mu and nu read from the stored file
    here: Llama 3 8B (32 blocks) at Q4_K_M on an RTX 4090, a = 1.5 years through the plan, and
    the build of 29 January 2025 (546 days before 29 July 2026) through expected(); the 80%
    interval's ends are the drifted time over the stored ratios, never faster than the bound.
    Without a build, or with one of the reference day or later, nothing changes."""
    from llm_arithmetic.estimate import estimate

    p = PARAMS["by_runtime"]
    mu, nu = p["mu_s_per_layer_year"]["*"], p["nu_s_per_year"]["*"]
    assert mu >= 0 and nu == pytest.approx(0.38e-3, abs=0.005e-3)   # 0.38 ms per year today
    e = estimate("llama-3-8b", hardware="rtx-4090", weights="q4_k_m", context=256)
    today = F.expected(e, 32, "llama.cpp")
    t0 = 1 / today["expected_decode_tokens_per_second"]
    fp = F.forecast_inputs(F.chip_class_of(e.hardware), "llama.cpp")
    lo, hi = fp["forecast_decode"]["low"], fp["forecast_decode"]["high"]
    tb = e.decode_seconds_per_token
    for age, ask in ((1.5, None), (546 / 365.25, "2025-01-29")):
        t = t0 + (mu * 32 + nu) * age
        if ask is None:   # the page's path: the plan with the age as its input
            ev = e._plan.child(**fp, build_age=age)
            got = ev.get("expected_decode_tokens_per_second")
            rng = [ev.get("expected_decode_tokens_per_second_low"),
                   ev.get("expected_decode_tokens_per_second_high")]
        else:
            x = F.expected(e, 32, "llama.cpp", build_date=ask)
            got, rng = x["expected_decode_tokens_per_second"], \
                x["expected_decode_tokens_per_second_range"]
            assert x["expected_ttft_seconds"] == today["expected_ttft_seconds"]  # no drift
        assert got == pytest.approx(1 / t, rel=1e-12)
        assert rng == pytest.approx([1 / max(tb, t / lo), 1 / max(tb, t / hi)], rel=1e-12)
    assert 1 / t - 1 / t0 < -5          # half a millisecond more per token: ~9 tokens/s fewer
    for later in ("2026-07-29", "2027-01-01"):
        assert F.expected(e, 32, "llama.cpp", build_date=later) == today
    assert e._plan.child(**fp).get("expected_decode_tokens_per_second") == \
        e._plan.child(**fp, build_age=0.0).get("expected_decode_tokens_per_second")


def test_the_reserved_check_serves_each_row_for_its_build_as_the_interface_does():
    """A llama.cpp row (build 2824, 9 May 2024) is forecast, in the reserved check's path, by
    the same function and the same drift as a forecast asked for that build's day."""
    p = PARAMS["by_runtime"]
    old = {r.id: r for r in FF.named_rows(FIT)}["xd-llama3-4090-8b-q4km"]
    (_, q), = FF.speed_ratios(p, [old])
    d = FF.drift_terms_for(p, old.chip_class, old.runtime)
    age = F.build_age_years("2024-05-09", "llama.cpp", PARAMS)
    assert age == old.age_years
    assert q * old.t_measured == FF.predict_seconds(
        p, old.t_bound, old.chip_class, old.runtime, old.n_layers, old.t_dequant,
        (d["mu"] * old.n_layers + d["nu"]) * age)


@pytest.mark.parametrize("call,match", [
    (lambda: F.build_age_years("2025-01-01", "vLLM"), r"build_date: only llama\.cpp's .*'vLLM'"),
    (lambda: F.build_age_years("2025-01-01", None), r"build_date: .*no runtime named"),
    (lambda: F.build_age_years("2025-01-01", FF.NO_CUDA_GRAPHS), r"no-cuda-graphs' has none"),
    (lambda: F.build_age_years("2025-02-30", "llama.cpp"), r"not a day YYYY-MM-DD"),
    (lambda: F.build_age_years("last year", "llama.cpp"), r"not a day YYYY-MM-DD"),
    (lambda: F.llama_cpp_build_date(1026), r"build 1026: its day is not in the data"),
    (lambda: F.llama_cpp_build_date(5000), r"releases/tag/b5000"),
    (lambda: F.llama_cpp_build_date("latest"), r"a build number"),
    (lambda: F.forecast("llama-3-8b", hardware="rtx-4090", build_date="2025-01-01"),
     r"build_date: .*no runtime named"),
    (lambda: F.forecast_decode("llama-3-8b", hardware="rtx-4090", runtime="mlx-lm",
                               build_date="2025-01-01"), r"'mlx-lm' has none"),
], ids=["vllm", "no-runtime", "no-cuda-graphs", "no-such-day", "not-a-day", "build-1026",
        "unknown-build", "not-a-build", "forecast", "forecast_decode"])
def test_a_build_is_refused_where_no_drift_applies_or_it_is_not_a_day(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_the_command_line_refuses_a_build_without_llama_cpp(capsys):
    """describe --build-date / --llama-cpp-build with a runtime that has no drift, and plan's
    without --forecast, exit 2 naming the option; with llama.cpp, describe --json states the
    build's day and age (and only then)."""
    import json

    from llm_arithmetic.cli import main

    base = ["describe", "llama-3-8b", "--hardware", "rtx-4090", "--weights", "q4_k_m"]
    for extra, option in ((["--runtime", "vllm", "--build-date", "2025-01-01"], "--build-date"),
                          (["--llama-cpp-build", "2824"], "--llama-cpp-build"),
                          (["--runtime", "llama.cpp@no-cuda-graphs", "--build-date",
                            "2024-01-01"], "--build-date"),
                          (["--runtime", "llama.cpp", "--llama-cpp-build", "1026"],
                           "--llama-cpp-build")):
        assert main(base + extra) == 2
        assert f"error: {option}: " in capsys.readouterr().err
    assert main(["plan", "llama-3-8b", "--ttft-ms", "500", "--tpot-ms", "50",
                 "--build-date", "2025-01-01"]) == 2
    assert "--build-date: " in capsys.readouterr().err
    assert main(base + ["--runtime", "llama.cpp", "--llama-cpp-build", "b2824", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["forecast_build_date"] == "2024-05-09"
    assert d["forecast_build_age_years"] == pytest.approx(811 / 365.25)
    assert main(base + ["--runtime", "llama.cpp", "--json"]) == 0
    assert "forecast_build_date" not in json.loads(capsys.readouterr().out)


def test_a_build_older_than_the_data_is_refused(capsys):
    """The drift is a line fitted on builds from 2 October 2023 (ggml-org/ci's build 1300, the
    oldest dated row) to the reference day; a day before that was extrapolated without limit
    (1999-01-01, years before llama.cpp existed, forecast 27.6 years of drift: 61 tokens/s
    instead of 167 for Llama 2 7B at Q4_0 on an RTX 4090). It is refused naming the option; the
    oldest day itself is served, at its age."""
    from datetime import date

    from llm_arithmetic.cli import main

    with pytest.raises(InputError, match=r"^build_date: 2023-10-01 is before .* 2023-10-02"):
        F.build_age_years("2023-10-01", "llama.cpp")
    assert F.build_age_years("2023-10-02", "llama.cpp") == \
        (date(2026, 7, 29) - date(2023, 10, 2)).days / 365.25
    base = ["describe", "llama-2-7b", "--hardware", "rtx-4090", "--runtime", "llama.cpp"]
    assert main(base + ["--build-date", "1999-01-01"]) == 2
    err = capsys.readouterr().err
    assert "error: --build-date: 1999-01-01 is before" in err and "Traceback" not in err
    apple = ["describe", "llama-2-7b", "--hardware", "m2-ultra", "--runtime", "llama.cpp"]
    assert main(apple + ["--llama-cpp-build", "1300", "--json"]) == 0   # the oldest: served
    capsys.readouterr()


def test_a_cuda_build_before_cuda_graphs_names_the_runtime_that_has_them_off(capsys):
    """llama.cpp's CUDA builds before PR #6766 (merged 8 May 2024) ran without CUDA graphs: the
    runtime llama.cpp@no-cuda-graphs, fitted on such builds, not llama.cpp's terms drawn back
    by the drift. On an NVIDIA GPU such a build is refused naming that runtime; on Apple
    silicon (Metal: no CUDA graphs either way) it is served; the day of the PR is served."""
    from llm_arithmetic.cli import main

    with pytest.raises(InputError, match=r"^build_date: .* 2024-05-07 ran without CUDA graphs.*"
                                         r"llama\.cpp@no-cuda-graphs"):
        F.build_age_years("2024-05-07", "llama.cpp", hardware="rtx-4090")
    assert F.build_age_years("2024-05-08", "llama.cpp", hardware="rtx-4090") > 0
    assert F.build_age_years("2024-05-07", "llama.cpp", hardware="m2-ultra") > 0
    assert main(["describe", "llama-2-7b", "--hardware", "h100-sxm", "--runtime", "llama.cpp",
                 "--llama-cpp-build", "1300"]) == 2
    assert "--llama-cpp-build: a llama.cpp CUDA build of 2023-10-02" in capsys.readouterr().err
    assert 1300 not in F.PAGE_BUILDS   # the page offers no build its NVIDIA chips would refuse


def test_explain_gives_the_fixed_cost_and_the_drift_their_units():
    """fc_fixed = fc_tau + fc_drift printed the fitted t_rt bare ('0.0001638 + 0.596 ms'):
    both in ms now, t_rt read from the stored file, the drift (mu L + nu) a by hand for Llama 2
    7B's 32 blocks and a build of 2 January 2025, 573 days before 29 July 2026."""
    from llm_arithmetic.estimate import estimate
    from llm_arithmetic.explain import explain

    p = PARAMS["by_runtime"]
    tau = p["tau_s"]["llama.cpp"]
    drift = (p["mu_s_per_layer_year"]["*"] * 32 + p["nu_s_per_year"]["*"]) * 573 / 365.25
    e = estimate("llama-2-7b", hardware="rtx-4090", weights="q4_0", context=256)
    x = explain(e, "fc_fixed", runtime="llama.cpp", build_date="2025-01-02")
    assert x.substituted == f"{tau * 1e3:.3f} ms + {drift * 1e3:.3f} ms"
    assert explain(e, "fc_nu", runtime="llama.cpp", build_date="2025-01-02").unit == "s/year"


def test_the_search_skips_the_nvidia_chips_a_pre_cuda_graphs_build_cannot_be(capsys):
    """plan --forecast --runtime llama.cpp --build-date D searched every chip with llama.cpp's
    terms drawn back by the drift, NVIDIA GPUs too, where describe refuses a CUDA build from
    before CUDA graphs (8 May 2024). The search now leaves those chips out, saying why in
    ``skipped`` and ``chips_refused``, and refuses when no chip is left; the day itself serves
    every chip."""
    from llm_arithmetic.cli import main
    from llm_arithmetic.deploy import search

    kw = dict(ttft=1.0, tpot=0.1, forecast=True, runtime="llama.cpp", max_batch=4,
              weights="q4_0", kv_bits=16, degrees=1, price_per_hour=2.0)
    chips = ["h100-sxm", "mi300x", "m2-ultra"]
    r = search("llama-2-7b", hardware=chips, build_date="2024-05-07", **kw)
    assert list(r.chips_refused) == ["h100-sxm"]
    assert "llama.cpp@no-cuda-graphs" in r.chips_refused["h100-sxm"]
    assert [s for s in r.skipped if s.startswith("h100-sxm")] == \
        [f"h100-sxm: {r.chips_refused['h100-sxm']}"]
    assert r.configurations and {c["hardware"] for c in r.configurations} <= {"mi300x",
                                                                              "m2-ultra"}
    r = search("llama-2-7b", hardware=chips, build_date="2024-05-08", **kw)
    assert not r.chips_refused and "h100-sxm" in {c["hardware"] for c in r.configurations}
    with pytest.raises(InputError, match=r"CUDA build of 2024-05-07 .* every chip searched "
                                         r"\(h100-sxm, a100-80gb-sxm\)"):
        search("llama-2-7b", hardware=["h100-sxm", "a100-80gb-sxm"], build_date="2024-05-07",
               **kw)
    plan = ["plan", "llama-2-7b", "--forecast", "--runtime", "llama.cpp", "--build-date",
            "2024-05-07", "--price-per-hour", "2", "--max-batch", "4", "--weights", "q4_0",
            "--ttft-ms", "1000", "--tpot-ms", "100"]
    assert main(plan + ["--hardware", "h100-sxm,mi300x"]) == 0
    assert "\nnot searched (h100-sxm): a llama.cpp CUDA build of 2024-05-07" in \
        capsys.readouterr().out
    assert main(plan + ["--hardware", "h100-sxm"]) == 2
    assert "--build-date: a llama.cpp CUDA build of 2024-05-07" in capsys.readouterr().err
