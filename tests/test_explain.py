"""describe --explain and llm_arithmetic.explain: each printed number traced to its step.

The checks re-evaluate what an explanation shows through the formula registry (the registered
sympy expression with the listed arguments put in, a sum re-added from its parts), never copy
the output.
"""
from __future__ import annotations

import json
import math

import pytest

from llm_arithmetic import estimate
from llm_arithmetic.articles import all_formulas
from llm_arithmetic.cli import main
from llm_arithmetic.core.errors import InputError
from llm_arithmetic.explain import explain
from llm_arithmetic.plan.interpreter import PLAN_STEPS

CASES = [("llama-2-7b", "h100-sxm", None), ("qwen3-30b-a3b", "rtx-4090", "q4_0")]
KEYS = ["decode_seconds_per_token", "decode_tokens_per_second", "weight_bytes",
        "kv_cache_bytes_per_token", "decode_bytes_per_token", "max_batch", "bits_weight",
        "fc_decode_step", "expected_decode_tokens_per_second"]


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def est(request):
    model, chip, weights = request.param
    return estimate(model, hardware=chip, weights=weights, context=2048)


def _close(a, b):
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)


def _recompute(x):
    """The explained value, evaluated a second time from what the explanation lists."""
    if x.op == "formula":  # the registered sympy expression with the values put in (not
        # the generated numeric function the plan ran)
        f = all_formulas()[x.formula]
        value = f.subs(**{a.name: a.value for a in x.arguments})
        return math.inf if value.is_infinite else float(value)
    if x.op == "sum":
        return sum(x.parts.values())
    values = [a.value for a in x.arguments]
    if x.op == "add":  # the plan's data says which operands it subtracts
        n_plus = len(PLAN_STEPS[x.step].get("plus", ()))
        return sum(values[:n_plus]) - sum(values[n_plus:])
    if x.op == "div":
        return values[0] / values[1]
    if x.op == "mul":
        return math.prod(values)
    return None  # another operation: no equation to evaluate


@pytest.mark.parametrize("key", KEYS)
def test_equation_gives_the_printed_value(est, key):
    x = explain(est, key, runtime="llama.cpp")
    printed = getattr(est, key, None)
    if printed is None:  # a forecast key or a step without a field: the explained value
        printed = x.value
    assert _close(_recompute(x), printed)
    assert x.unit and x.value_text


def test_forecast_matches_describe(est):
    from llm_arithmetic.arguments import resolve_model
    from llm_arithmetic.forecast import expected

    for rt in (None, "llama.cpp"):
        x = explain(est, "expected_decode_tokens_per_second", runtime=rt)
        want = expected(est, resolve_model(est.model).n_layers, rt)
        assert _close(x.value, want["expected_decode_tokens_per_second"])
        assert "80% interval" in x.value_text and "forecast_decode.json" in x.source
        assert x.forecast.startswith("t_fc = ")


def test_chip_figures_name_their_source(est):
    from llm_arithmetic import get_hardware

    for key in ("bandwidth", "peak_flops"):
        assert get_hardware(est.hardware).source in explain(est, key).source


def test_dependencies_close(est):
    """Walk down from the time per token: every listed dependency is itself explainable."""
    seen, todo = set(), ["decode_seconds_per_token", "expected_decode_tokens_per_second"]
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        todo += explain(est, key).depends_on
    assert {"weight_bytes", "bandwidth", "params_total"} <= seen or \
        {"step_weight_bytes", "bandwidth"} <= seen


def test_stack_sum_by_part():
    e = estimate("llama-2-7b", context=1)
    x = explain(e, "layer_params")
    assert x.term == "params" and set(x.parts) == {"attention", "mlp", "norms"}
    # Llama 2 7B: 32 layers of 4 d^2 attention (d = 4096) and 3 d d_ff MLP (d_ff = 11008)
    assert x.parts["attention"] == 32 * 4 * 4096 ** 2
    assert x.parts["mlp"] == 32 * 3 * 4096 * 11008


def test_unknown_key():
    e = estimate("llama-2-7b", context=1)
    with pytest.raises(InputError, match="unknown key 'nope'"):
        explain(e, "nope")


def _run(capsys, *args):
    rc = main(["describe", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_unknown_key_exits_2(capsys):
    rc, _, err = _run(capsys, "llama-2-7b", "--hardware", "h100-sxm", "--explain", "nope")
    assert rc == 2 and err.count("\n") == 1
    assert "unknown key 'nope'" in err and "decode_seconds_per_token" in err


def test_cli_all_covers_the_table(capsys):
    from llm_arithmetic.cli.tables import ROW_KEYS, _row_label, table_rows

    args = ["llama-2-7b", "--hardware", "h100-sxm", "--prompt", "512", "--tp", "2",
            "--price-per-hour", "2", "--runtime", "llama.cpp"]
    rc, out, _ = _run(capsys, *args, "--explain", "all")
    assert rc == 0
    e = estimate("llama-2-7b", hardware="h100-sxm", prompt=512, context=512, tp=2,
                 price_per_hour=2)
    inputs = {"model", "hardware", "context x batch", "replica", "all-reduce",
              "prompt, generated"}
    for label, _ in table_rows(e, serving=True):
        key = ROW_KEYS.get(_row_label(label))
        assert key is not None or label in inputs, label
        if key is not None and getattr(e, key) is not None:
            assert f"\n{key} = " in out, key
    for key in ("expected_decode_tokens_per_second", "expected_ttft_seconds"):
        assert f"\n{key} = " in out


@pytest.mark.parametrize("args", [
    dict(model="deepseek-v3", hardware="h200", weights="fp8", tp=8, ep=8, context=4096,
         prompt=1000, price_per_hour=3),
    dict(model="gemma-3-27b", hardware="rtx-4090", weights="q4_k_m", context=8192)])
def test_every_printed_key_recomputes(args):
    """Every quantity ``--explain all`` shows, on a mixture over 8 chips and on a model with
    windowed layers: its equation on its listed values gives its value."""
    from llm_arithmetic.cli.tables import printed_keys
    from llm_arithmetic.forecast import expected

    e = estimate(**args)
    keys = printed_keys(e, expected(e, 1), serving="tp" in args)
    assert len(keys) > 20
    for key in keys:
        x = explain(e, key)
        again = _recompute(x)
        if again is not None and x.value is not None and not isinstance(x.value, bool):
            assert _close(again, x.value), key
        for dep in x.depends_on:  # each one explainable in turn
            explain(e, dep)


def test_cli_json_round_trips(capsys):
    rc, out, _ = _run(capsys, "llama-2-7b", "--hardware", "h100-sxm", "--json", "--explain",
                      "decode_seconds_per_token,weight_bytes")
    d = json.loads(out)
    assert rc == 0 and list(d["explain"]) == ["decode_seconds_per_token", "weight_bytes"]
    x = d["explain"]["decode_seconds_per_token"]
    assert x["formula"] == "roofline_time" and x["value"] == d["decode_seconds_per_token"]
    assert json.loads(json.dumps(d["explain"])) == d["explain"]
    f = all_formulas()[x["formula"]]
    assert _close(float(f.subs(**{a["name"]: a["value"] for a in x["arguments"]})), x["value"])


def test_a_forecast_left_out_for_want_of_memory_is_not_explained_as_a_number(capsys):
    """DeepSeek-V3 in fp8 is about 671 GB: one H200 (141 GiB) does not hold it, so the table
    prints its one-chip forecast as "- (does not fit in memory)" and --json as null. Its
    explanation says the same instead of a speed; the replica's forecast (8 H200s hold it)
    keeps its number, the key --json prints."""
    args = ["deepseek-v3", "--hardware", "h200", "--weights", "fp8", "--tp", "8", "--ep", "8",
            "--prompt", "4000", "--explain",
            "expected_decode_tokens_per_second,expected_tpot_seconds"]
    rc, out, _ = _run(capsys, *args, "--json")
    d = json.loads(out)
    assert rc == 0 and d["fits"] is False and d["fits_per_chip"] is True
    x = d["explain"]
    assert d["expected_decode_tokens_per_second"] is None
    assert x["expected_decode_tokens_per_second"]["value"] is None
    assert x["expected_decode_tokens_per_second"]["value_text"] == "- (does not fit in memory)"
    assert x["expected_tpot_seconds"]["value"] == d["expected_tpot_seconds"] is not None
    rc, out, _ = _run(capsys, *args)
    assert "expected_decode_tokens_per_second = fc_tokens / fc_decode_step  [div]\n" \
           "  = - (does not fit in memory)\n" in out


def test_piecewise_prints_as_cases():
    """The critical batch's formula is piecewise (infinite where compute never catches up):
    its cases one line each, 'for' a condition then 'otherwise', as the book prints them; in
    LaTeX the book's cases environment."""
    e = estimate("llama-2-7b", hardware="h100-sxm", context=2048)
    x = explain(e, "critical_batch_size")
    assert "Piecewise" not in x.equation + x.substituted
    rows = x.equation.split("\n")
    assert len(rows) == 2 and " for " in rows[0] and rows[1].endswith("otherwise")
    assert rows[0].index("{") == rows[1].index("{")  # the cases' braces aligned
    assert len(x.substituted.split("\n")) == 2 and r"\begin{cases}" in x.latex
    lines = x.lines()
    assert lines[0].startswith("critical_batch_size = { oo") and lines[1].lstrip()[0] == "{"
    assert lines[0].index("{") == lines[1].index("{")


def test_solver_and_mean_show_their_inputs():
    """Steps that are no formula give their inputs with values: the largest context that fits
    is checked at it and one past it; a mean over windowed layers lists them."""
    e = estimate("gemma-3-27b", hardware="rtx-4090", weights="q4_k_m", context=8192)
    x = explain(e, "max_context")
    at, past, budget = (a.value for a in x.arguments)
    assert at <= budget < past and x.value == e.max_context
    # Gemma 3 27B (config.json): 62 layers, every sixth global, the others a 1,024-token window
    a = explain(e, "attended_context")
    assert sorted(arg.value for arg in a.arguments) == [1024, 8192]
    assert _close(a.value, (52 * 1024 + 10 * 8192) / 62)
    for key, names in [("precision_chain", {"chain_format", "chain_bits"}),
                       ("compute_precision", {"precision_chain", "chip_peaks"}),
                       ("chip_link_bandwidth", {"chip_interconnect", "tp", "ep"})]:
        got = {arg.name for arg in explain(e, key).arguments}
        assert names <= got, key


ENGINE_CASES = [dict(model="qwen3-1.7b", engine="vllm", hardware="h100-sxm",
                     flags={"--gpu-memory-utilization": 0.9, "--max-model-len": 32768}),
                dict(model="gpt-oss-20b", engine="llama.cpp", flags={"--ctx-size": 131072}),
                dict(model="qwen3.5-35b-a3b", engine="vllm", kv_memory_gib=55.72,
                     flags={"--max-model-len": 262144, "--mamba-cache-mode": "align"})]


@pytest.mark.parametrize("args", ENGINE_CASES, ids=[c["engine"] + "-" + c["model"]
                                                    for c in ENGINE_CASES])
def test_engine_rows_recompute(args):
    """Every number of the engine's table is a step of the plan: its equation on its listed
    values gives the engine view's number."""
    from llm_arithmetic.engine import engine_view
    from llm_arithmetic.explain import engine_key_steps

    args = dict(args)
    v = engine_view(args.pop("model"), args.pop("engine"), **args)
    shown = 0
    for key in engine_key_steps():
        if getattr(v, key) is None:
            continue
        x = explain(v, key)
        assert _close(x.value, getattr(v, key)), key
        again = _recompute(x)
        if again is not None:
            assert _close(again, x.value), key
            shown += 1
        for dep in x.depends_on:
            explain(v, dep)
    assert shown >= 4


def test_cli_all_covers_the_engine_table(capsys):
    from llm_arithmetic.cli.tables import ENGINE_ROW_KEYS

    rc, out, _ = _run(capsys, "qwen3-1.7b", "--hardware", "h100-sxm", "--engine", "vllm",
                      "--gpu-memory-utilization", "0.9", "--max-model-len", "32768",
                      "--explain", "all")
    assert rc == 0
    table = out.split("\nengine: ", 1)[1].split("\n\n", 1)[0]
    for line in table.split("\n")[1:]:
        label = line.strip().split("  ", 1)[0]
        for key in ENGINE_ROW_KEYS.get(label, ()):
            assert f"\n{key} = " in out, key
    assert "\nengine_kv_cache_tokens = " in out and "\nmax_concurrency = " in out


def test_plain_equations_keep_the_books_order():
    """The plain equation of every registered formula names its symbols in the order of the
    book's LaTeX (the memory time first in a max, the added terms of a denominator before the
    subtracted ones, a product's factors in the order of its def), not in sympy's sorted order.
    Each symbol printed as a numbered mark in both, the marks' sequences compared (a piecewise
    formula's values; its conditions are turned round to read 'a <= b')."""
    import re

    import sympy as sp

    from llm_arithmetic.core.display import _BookPrinter
    from llm_arithmetic.explain import _rows

    def marks_in(text):
        return re.findall(r"Z\d+Z", text)

    for name, f in all_formulas().items():
        marks = {s: f"Z{i}Z" for i, s in enumerate(sorted(f.expr.free_symbols, key=str))}
        values = [v for v, _ in f.expr.args] if isinstance(f.expr, sp.Piecewise) else [f.expr]
        for value in values:
            tex = _BookPrinter(order=f.params, symbol_names=marks).doprint(value)
            (row,) = _rows(value, f.params, marks)
            assert marks_in(row[1]) == marks_in(tex), (name, f.latex(), row[1])
    # the one the review found: the critical batch's denominator, added term first
    e = estimate("llama-2-7b", hardware="h100-sxm", context=2048)
    x = explain(e, "critical_batch_size")
    assert "W*R_peak/(𝒜*beta_mem - 𝒦*R_peak)" in x.equation
    assert explain(e, "decode_seconds_per_token").equation == "t = max(ℬ/beta_mem, ℱ/R_peak)"


def test_long_piecewise_wraps_without_changing_the_text():
    """A piecewise formula whose aligned cases with values run past the width (the critical
    batch: ~200 characters) prints each case from its own line, wrapped at WIDTH before an
    operator; only the line breaks and spaces differ from the cases as the explanation holds
    them. Cases that fit stay aligned."""
    import re

    from llm_arithmetic.explain import WIDTH, _block

    e = estimate("llama-2-7b", hardware="h100-sxm", context=2048)
    x = explain(e, "critical_batch_size")
    lines = x.lines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  from: "))
    assert lines[at - 1].startswith("  = - (none")
    assert max(len(line) for line in lines[:at - 1]) <= WIDTH == 80  # the equation, its values
    assert max(len(row) for row in x.substituted.split("\n")) > 150  # what it was printed as
    starts = [line for line in lines if re.match(r"(critical_batch_size = |  = | *)\{ ", line)]
    assert len(starts) == 4  # two cases of the equation, two of its values
    _, _, rhs = x.equation.partition(" = ")
    first, second = rhs.split("\n")
    held = f"critical_batch_size = {first} [critical_batch] {second} = {x.substituted}"
    assert "".join(held.split()) in "".join("\n".join(lines).split())
    assert lines[3].startswith("          <= ") or lines[3].startswith("          - ")
    fits = ["{ oo       for S <= 0", "{ W/(S*b)  otherwise"]
    assert _block("x = ", fits) == ["x = " + fits[0], "    " + fits[1]]


def test_a_value_not_computed_names_the_missing_option():
    """Without --max-model-len a paged engine's maximum concurrency is not computed: the
    explanation says so and names the engine's own flag (engines.toml), rather than printing
    first(-, -); the same for an estimate's key that needs an option not given."""
    from llm_arithmetic.engine import engine_view

    for engine, fraction, flag in [("vllm", "--gpu-memory-utilization", "--max-model-len"),
                                   ("sglang", "--mem-fraction-static", "--context-length")]:
        v = engine_view("qwen3-1.7b", engine, hardware="h100-sxm", flags={fraction: 0.9})
        x = explain(v, "max_concurrency")
        assert v.max_concurrency is None and x.value is None
        assert x.value_text == f"- (not computed without {flag})"
        assert x.substituted == "" and "(-" not in str(x)
        given = engine_view("qwen3-1.7b", engine, hardware="h100-sxm",
                            flags={fraction: 0.9, flag: 32768})
        assert explain(given, "max_concurrency").value == given.max_concurrency > 0
    # an estimate names estimate()'s keyword; the command line its option
    e = estimate("llama-2-7b", hardware="h100-sxm", context=2048)
    x = explain(e, "cost_per_million_tokens")
    assert x.value_text == "- (not computed without price_per_hour)" and "(-)" not in str(x)
    assert explain(estimate("llama-2-7b", context=1), "decode_seconds_per_token").value_text \
        == "- (not computed without hardware)"


def test_a_value_another_engine_computes_names_the_option_not_the_input():
    """A key that does not apply to the view's engine said "not computed without engine_ctx"
    or "engine_hybrid", the plan's internal inputs: it names what the user gives instead. The
    cells of llama.cpp (--ctx-size) under vLLM; vLLM's hybrid pool (its rules' only ``hybrid``
    table, engines.toml) for a model without state layers; the pages of the paged engines
    (vLLM, SGLang, TensorRT-LLM) under llama.cpp."""
    from llm_arithmetic.engine import engine_view

    v = engine_view("qwen3-1.7b", "vllm", hardware="h100-sxm",
                    flags={"--gpu-memory-utilization": 0.9})
    assert explain(v, "engine_state_bytes").value_text \
        == "- (not computed without --engine llama.cpp)"
    assert explain(v, "engine_block_tokens").value_text == (
        "- (not computed without --engine vllm with a hybrid model (state-space or "
        "linear-attention layers beside attention))")
    c = engine_view("qwen3-1.7b", "llama.cpp", hardware="h100-sxm")
    assert explain(c, "engine_paged_tokens").value_text \
        == "- (not computed without --engine vllm, sglang or tensorrt-llm)"


def test_cli_names_the_missing_option(capsys):
    rc, out, _ = _run(capsys, "llama-2-7b", "--hardware", "h100-sxm", "--explain",
                      "cost_per_million_tokens,speculative_seconds_per_token")
    assert rc == 0
    assert "  = - (not computed without --price-per-hour)\n" in out
    assert "  = - (not computed without --draft-len)\n" in out
    rc, out, _ = _run(capsys, "qwen3-1.7b", "--hardware", "h100-sxm", "--engine", "vllm",
                      "--gpu-memory-utilization", "0.9", "--explain", "max_concurrency")
    assert rc == 0 and "  = - (not computed without --max-model-len)\n" in out
    assert "first(-" not in out
    # a figure the chip's catalog entry lacks: the option that gives it, in its own units
    # (Vera Rubin lists no 16-bit rate; an M2 Max no link to a peer), not the plan's input
    rc, out, _ = _run(capsys, "llama-3.1-8b", "--hardware", "vera-rubin", "--explain",
                      "decode_compute_seconds")
    assert rc == 0 and "  = - (not computed without --tflops)\n" in out
    rc, out, _ = _run(capsys, "llama-3.1-8b", "--hardware", "m2-max", "--tp", "2", "--prompt",
                      "500", "--explain", "allreduce_seconds_per_token")
    assert rc == 0 and "  = - (not computed without --link-gbps)\n" in out
    rc, out, _ = _run(capsys, "llama-3.1-8b", "--explain", "decode_seconds_per_token")
    assert rc == 0 and "  = - (not computed without --hardware)\n" in out


def test_explain_lines_fit_but_for_a_url():
    """No line `--explain` prints runs past LIMIT characters, the forecast's step equation with
    its values and the fit's terms included (wrapped before an operator or between words),
    except a line that is one URL or a plan step's description with no place to break; the
    notes (source, keys read) fit in WIDTH; the text is the one the explanation holds."""
    import re

    from llm_arithmetic.explain import LIMIT, WIDTH

    e = estimate("llama-3.1-70b", hardware="h100-sxm", tp=4, prompt=2000, generate=500, batch=16)
    keys = ["expected_tpot_seconds", "expected_ttft_seconds", "bandwidth",
            "kv_cache_bytes_per_token", "decode_seconds_per_token", "weight_bytes"]
    for key in keys:
        x = explain(e, key, runtime="vllm")
        lines = x.lines()
        long = [line for line in lines if len(line) > LIMIT and not
                re.fullmatch(r" *https?://\S+", line) and "[solve]" not in line]
        notes = [line for line in lines if line.startswith(("  source: ", "  from: "))]
        assert not long and all(len(line) <= WIDTH for line in notes), (key, long, notes)
        if x.forecast:
            text = "".join("".join(lines).split())
            assert "".join(x.forecast.split()) in text and "".join(x.source.split()) in text


def test_a_solver_over_a_quantity_not_counted_says_so(uncounted_cache):
    """A model whose cache is not counted (DeepSeek-V4-Flash as it was, see the fixture;
    describe's table: 'critical batch size: not counted'), yet --explain said the compute time
    'stays below' the memory time up to a batch of 10^12 and the cache 'stays within' the free
    memory up to 4.3 billion tokens of context, with 279 GB of weights on an 80 GiB H100. A
    solver whose quantity has no value now says that; one that searched and found none
    (Qwen3-30B-A3B's cache outgrowing its compute at 1,024 tokens, the table's 'never') keeps
    its sentence."""
    with pytest.warns(Warning):
        e = estimate(uncounted_cache, hardware="h100-sxm")
    for key, quantity in (("critical_batch_size", "decode_memory_seconds"),
                          # the cache max_context searches over: the target's with a
                          # draft's (none here)
                          ("max_context", "kv_cache_all")):
        x = explain(e, key)
        assert x.value is None
        assert x.substituted.startswith("not counted") and quantity in x.substituted
        assert "stays" not in x.substituted
    e = estimate("qwen3-30b-a3b", hardware="h100-sxm", context=1024)
    assert e.critical_batch_size is None
    assert "stays below" in explain(e, "critical_batch_size").substituted


@pytest.mark.parametrize("key", [None, 5, ["weight_bytes"]])
def test_a_key_that_is_not_a_name_is_an_input_error(key):
    """explain(e, None) raised "AttributeError: 'NoneType' object has no attribute 'endswith'"
    (a list of keys the same): an InputError now says a key is a name."""
    e = estimate("llama-2-7b", hardware="h100-sxm")
    with pytest.raises(InputError, match="^explain: a key is a name"):
        explain(e, key)


def test_rate_units_follow_the_catalogs_recorded_units():
    """core.units.rate_unit and mixed_rate_unit (public: explain and the explorer both label
    rates with them) against the units the hardware catalog records for each chip's peaks
    (hardware.toml: ``unit = "OP/s"`` on integer rates, FLOP/s otherwise): a precision's unit is
    its peaks' recorded unit, and a step mixing two precisions is in that unit where both
    peaks share it, else in both, (OP+FLOP)/s (and /B for an intensity)."""
    from llm_arithmetic.catalog.hardware import HARDWARE
    from llm_arithmetic.core.units import mixed_rate_unit, rate_unit

    seen = set()
    for chip in HARDWARE.values():
        units = {p: pk.unit for p, pk in chip.peaks.items() if pk.dense}
        for p, unit in units.items():
            assert rate_unit(p) == unit, (chip.name, p)
            for q, other in units.items():
                want = unit if unit == other else "(OP+FLOP)/s"
                assert mixed_rate_unit(p, q) == want, (chip.name, p, q)
                assert mixed_rate_unit(p, q, "FLOP/B") == want[:-1] + "B"
                seen.add(want)
    assert seen == {"FLOP/s", "OP/s", "(OP+FLOP)/s"}
    # the old private spelling is gone from explain: one definition, in core.units
    import llm_arithmetic.explain as X
    assert not hasattr(X, "_mixed_rate_unit") and not hasattr(X, "_rate_unit")
