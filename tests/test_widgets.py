"""The book's JavaScript against the Python package, in Chromium, without the built book.

``widgets.js`` (tools.sphinx_widgets.bundle_source: the generated formulas, the catalogs
as JSON, the stack sums, the estimate and the widgets) is loaded into one blank page of Debian's
Chromium (driven by Playwright, as tests/test_browser.py), and:

* every registered formula, on 1,000 random admissible argument sets (tests/test_formulas.py's
  draws, as float64), equals the Python numeric function to 1e-12 relative: one page
  evaluation per formula; infinities must agree exactly and the drawn domain must give no NaN;
  the defaults the page's functions fill in are the Python function's;
* every stack-level count of every catalog model (parameters, bytes read at several batches,
  the KV cache at several contexts with windows and latent attention, FLOPs, the bytes'
  breakdown) equals catalog/model.py's, and the page's estimate() equals
  llm_arithmetic.estimate for every catalog model on several chips, formats, contexts and
  batches (critical batch, fits, longest context included), and its sweep equals sweep();
* the widgets the page defines are those the export module lists, and the notebooks' widget
  cells name only those.

The pages themselves (controls, plots, offline use) are checked in tests/test_browser_widgets.py.
Needs /usr/bin/chromium (skipped without it, a failure under REQUIRE_BROWSER=1).
"""
from __future__ import annotations

import json
import math
import random
import re
import time
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from conftest import CHROMIUM, REPO, require_playwright
from llm_arithmetic import estimate, numeric, sweep
from llm_arithmetic.book import export
from llm_arithmetic.catalog.formats import bits_per_weight
from llm_arithmetic.catalog.model_catalog import CATALOG
from llm_arithmetic.articles import all_formulas
from llm_arithmetic.core.errors import ConfigError, InputError
from llm_arithmetic.core.registry import same_as
from llm_arithmetic.arguments import ContextWarning
from llm_arithmetic.estimate import FIELD_STEPS
from tools import sphinx_widgets as bundle

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-quic", "--disable-sync",
]
FORMULAS = all_formulas()
N_DRAWS = 1000
REL = 1e-12


@pytest.fixture(scope="module")
def page(book_report):
    """A blank page with widgets.js loaded (no network: every request is refused)."""
    sync_playwright = require_playwright()
    started = time.monotonic()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=CHROMIUM_FLAGS)
        pg = browser.new_page()
        pg.route("**/*", lambda route: route.abort())
        errors = []
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.set_content("<!doctype html><html><head></head><body></body></html>")
        pg.add_script_tag(content=bundle.bundle_source())
        assert pg.evaluate("typeof window.LLMArithmetic") == "object", errors
        pg.errors = errors
        try:
            yield pg
        finally:
            browser.close()
    book_report.append(f"widgets: formulas, stacks and estimates checked in Chromium in "
                       f"{time.monotonic() - started:.1f} s")


def mount(page, html):
    """Replace the page's body with ``html`` (widget containers) and mount its widgets, as the
    book's script does on load."""
    page.evaluate("""(html) => {
      document.body.innerHTML = html;
      window.LLMArithmetic.mountAll();
    }""", html)


# ---- every formula ------------------------------------------------------------------------
def _draws(f, n):
    from test_formulas import _args  # the admissible draws of the symbolic == numeric test

    rng = random.Random("js" + f.name)
    out = []
    for _ in range(n):
        out.append({k: float(v) for k, v in _args(f, rng).items()})
    return out


# Arguments go in, and results come out, as one JSON text (columns of numbers): Playwright's
# value-by-value serialization of 1,000 argument objects costs far more than the evaluation.
EVAL_FORMULA = """
(text) => {
  const [name, columns, partial] = JSON.parse(text);
  const f = window.LLMArithmetic.formulas[name];
  const keys = Object.keys(columns);
  const n = keys.length ? columns[keys[0]].length : 0;
  const out = [];
  for (let i = 0; i < n; i++) {
    const a = {};
    for (const k of keys) a[k] = columns[k][i];
    out.push(f(a));
  }
  const enc = (v) => (Number.isFinite(v) ? v : String(v));
  return JSON.stringify([out.map(enc), partial.map((a) => enc(f(a)))]);
}
"""


def evaluate_formula(page, name, draws, partial):
    """The page's function on each argument set: (values for draws, values for partial)."""
    columns = {k: [d[k] for d in draws] for k in (draws[0] if draws else {})}
    got, got_partial = json.loads(page.evaluate(EVAL_FORMULA,
                                                json.dumps([name, columns, partial])))
    dec = lambda v: float(v) if isinstance(v, str) else v  # noqa: E731 ("Infinity", "NaN")
    return [dec(v) for v in got], [dec(v) for v in got_partial]


def _close(got, want, rel=REL):
    if isinstance(want, float) and math.isinf(want):
        return got == want
    if want == 0:
        return abs(got) <= rel
    return abs(got - want) <= rel * abs(want)


def _number_defaults(f):
    """A formula's defaults that are numbers (not another argument's value, ``same_as``)."""
    return {k: v for k, v in f.defaults.items() if not isinstance(v, same_as)}


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_formula_in_the_page_equals_python(page, name):
    f = FORMULAS[name]
    fn = getattr(numeric, name)
    draws = _draws(f, N_DRAWS)
    arrays = {k: np.array([d[k] for d in draws]) for k in f.params}
    want = np.broadcast_to(np.asarray(fn(**arrays), dtype=float), (N_DRAWS,))
    assert not np.isnan(want).any(), f"{name}: the drawn domain gives NaN in Python"
    # defaults: the page's function called without the defaulted arguments
    partial = [{k: v for k, v in d.items() if k not in f.defaults} for d in draws[:20]]
    # (a default that is another argument, same_as, is left to the function in both)
    want_partial = [fn(**{**{k: float(v) for k, v in _number_defaults(f).items()}, **p})
                    for p in partial]
    got, got_partial = evaluate_formula(page, name, draws, partial)
    bad = [(i, draws[i], got[i], float(want[i])) for i in range(N_DRAWS)
           if not _close(got[i], float(want[i]))]
    assert not bad, (f"{name}: {len(bad)} of {N_DRAWS} differ from Python beyond {REL:g}; "
                     f"first: args {bad[0][1]}, page {bad[0][2]!r}, python {bad[0][3]!r}")
    bad = [(p, g, w) for p, g, w in zip(partial, got_partial, want_partial)
           if not _close(g, float(w))]
    assert not bad, f"{name}: defaults differ: {bad[0]}"


def test_formula_defaults_and_metadata(page):
    meta = page.evaluate("() => window.LLMArithmetic.formulas.FORMULAS")
    assert set(meta) == set(FORMULAS)
    for name, f in FORMULAS.items():
        assert meta[name]["params"] == list(f.params), name
        assert {k: float(v) for k, v in meta[name]["defaults"].items()} == \
            {k: float(v) for k, v in _number_defaults(f).items()}, name
        assert meta[name]["latex"] == f.latex(), name


def test_formulas_are_exact_on_the_exact_path_where_float_is(page):
    """A second reference: the exact (Fraction) path of the Python function, on the first 50
    draws of every formula, to 1e-12 (float64 rounding aside, the page computes the value)."""
    failures = []
    for name, f in sorted(FORMULAS.items()):
        fn = getattr(numeric, name)
        draws = _draws(f, 50)
        got, _ = evaluate_formula(page, name, draws, [])
        for d, g in zip(draws, got):
            exact = fn(**{k: Fraction(v).limit_denominator(1000) if not float(v).is_integer()
                          else int(v) for k, v in d.items()})
            if not _close(g, float(exact), 1e-11):
                failures.append(f"{name}{d}: page {g!r}, exact {float(exact)!r}")
    assert not failures, f"{len(failures)} differ, e.g. {failures[:3]}"


# ---- every catalog model: the stack sums ------------------------------------------------------
CONTEXTS = [1, 4097, 32768, 131079]  # windows of 4096 and chunks of 8192 full, MLA, Mamba
BATCHES = [1, 3, 1000]
PROMPTS = [1, 5003]
WEIGHT_BITS = [None, 4.5]  # as shipped (gpt-oss's MXFP4 experts), or all at one width
KV_BITS = [16, 4.5]

STACK_QUERY = """
([names, contexts, batches, prompts, wbits, kvbits]) => {
  const L = window.LLMArithmetic, S = L.stack;
  const out = {};
  for (const name of names) {
    const m = L.catalog.models[name];
    const r = {
      total_params: S.totalParams(m), active_params: S.activeParams(m),
      language_model_params: S.languageModelParams(m), matmul_params: S.matmulParams(m),
      decode_read_params: S.decodeReadParams(m), expert_params: S.expertParams(m),
      embedding_params: S.embeddingParams(m), n_layers: S.nLayers(m),
      unread_embedding_params: S.unreadEmbeddingParams(m),
    };
    for (const b of kvbits) {
      r[`kv_cache_bytes_per_token/${b}`] = S.kvCacheBytesPerToken(m, b);
      r[`state_bytes/${b}`] = S.stateBytes(m, b);
    }
    for (const w of wbits) r[`weight_bytes/${w}`] = S.weightBytes(m, w);
    for (const s of contexts) {
      r[`attended_context/${s}`] = S.attendedContext(m, s);
      r[`decode_flops_per_token/${s}`] = S.decodeFlopsPerToken(m, s);
      for (const b of kvbits) {
        r[`seq_bytes/${s}/${b}`] = S.seqBytes(m, s, b, b);
        for (const bt of batches) {
          r[`kv_cache_bytes/${s}/${bt}/${b}`] = S.kvCacheBytes(m, s, bt, b);
          r[`kv_cache_bytes_full_storage/${s}/${bt}/${b}`] = S.kvCacheBytesFullStorage(m, s, bt, b);
        }
      }
      for (const w of wbits) {
        for (const [k, v] of S.decodeBytesBreakdown(m, s, w, 8)) r[`breakdown/${s}/${w}/${k}`] = v;
      }
    }
    for (const t of prompts) r[`prefill_flops/${t}`] = S.prefillFlops(m, t);
    for (const bt of batches) {
      r[`read_params/${bt}`] = S.readParams(m, bt);
      r[`experts_read/${bt}`] = S.expertsRead(m, bt);
      for (const w of wbits) r[`step_weight_bytes/${w}/${bt}`] = S.stepWeightBytes(m, w, bt);
    }
    out[name] = r;
  }
  return out;
}
"""


def _fmt_bits(b):
    """The key the page writes for a bits value (JavaScript's String(x))."""
    if b is None:
        return "null"
    return str(int(b)) if float(b).is_integer() else str(b)


def _python_stack(m):
    r = {"total_params": m.total_params, "active_params": m.active_params,
         "language_model_params": m.language_model_params, "matmul_params": m.matmul_params,
         "decode_read_params": m.decode_read_params, "expert_params": m.expert_params,
         "embedding_params": m.embedding_params, "n_layers": m.n_layers,
         "unread_embedding_params": m.unread_embedding_params}
    kv = {b: bits_per_weight(b) for b in KV_BITS}
    wb = {b: None if b is None else bits_per_weight(b) for b in WEIGHT_BITS}
    for b in KV_BITS:
        try:
            r[f"kv_cache_bytes_per_token/{_fmt_bits(b)}"] = m.kv_cache_bytes_per_token(kv[b])
        except ConfigError:  # a cache not proportional to the context (DeepSeek-V4): the
            # page's figure is missing too; its cache is compared at each context below
            r[f"kv_cache_bytes_per_token/{_fmt_bits(b)}"] = None
        r[f"state_bytes/{_fmt_bits(b)}"] = m.state_bytes(kv[b])
    for w in WEIGHT_BITS:
        r[f"weight_bytes/{_fmt_bits(w)}"] = m.weight_bytes(wb[w])
    for s in CONTEXTS:
        r[f"attended_context/{s}"] = m.attended_context(s)
        r[f"decode_flops_per_token/{s}"] = m.decode_flops_per_token(s)
        for b in KV_BITS:
            r[f"seq_bytes/{s}/{_fmt_bits(b)}"] = m.seq_bytes(s, kv[b], kv[b])
            for bt in BATCHES:
                r[f"kv_cache_bytes/{s}/{bt}/{_fmt_bits(b)}"] = m.kv_cache_bytes(s, bt, kv[b])
                r[f"kv_cache_bytes_full_storage/{s}/{bt}/{_fmt_bits(b)}"] = \
                    m.kv_cache_bytes_full_storage(s, bt, kv[b])
        for w in WEIGHT_BITS:
            for k, v in m.decode_bytes_breakdown(s, wb[w], 8).items():
                r[f"breakdown/{s}/{_fmt_bits(w)}/{k}"] = v
    for t in PROMPTS:
        r[f"prefill_flops/{t}"] = m.prefill_flops(t)
    for bt in BATCHES:
        r[f"read_params/{bt}"] = m.read_params(bt)
        r[f"experts_read/{bt}"] = m.experts_read(bt)
        for w in WEIGHT_BITS:
            r[f"step_weight_bytes/{_fmt_bits(w)}/{bt}"] = m.step_weight_bytes(wb[w], bt)
    return r


def test_stack_sums_equal_python_for_every_catalog_model(page):
    names = list(CATALOG)
    got = page.evaluate(STACK_QUERY, [names, CONTEXTS, BATCHES, PROMPTS,
                                      [None if w is None else w for w in WEIGHT_BITS], KV_BITS])
    failures, checked = [], 0
    for name in names:
        want = _python_stack(CATALOG[name].model)
        assert set(got[name]) == set(want), (name, set(got[name]) ^ set(want))
        for key, w in want.items():
            checked += 1
            if w is None and got[name][key] is not None or w is not None and not _close(
                    got[name][key], float(w)):
                failures.append(f"{name} {key}: page {got[name][key]!r}, python {w!r}")
    # a catalog model without a cache per token is compared by its cache at each context
    missing = {n for n in names if got[n]["kv_cache_bytes_per_token/16"] is None}
    assert missing == {"deepseek-v4-flash", "deepseek-v4-pro"}
    assert all(got[n][f"kv_cache_bytes/{s}/1/16"] > 0 for n in missing for s in CONTEXTS)
    assert checked > 4_000
    assert not failures, f"{len(failures)} of {checked} differ, e.g.:\n" + "\n".join(
        failures[:10])


def test_page_counts_a_model_outside_the_catalog_and_leaves_its_uncounted_cache_missing(page):
    """DeepSeek-V4-Flash read from its vendored file (tests/configs; the catalog's is a byte
    copy): its compressed attention and hyper-connections through the same stack data in the
    page, the parameters and the cache at a context (stored, read) equal to Python's; the
    cache per token, which this form does not have (its cache is not proportional to the
    context), missing (null) as in Python, never a silent 0."""
    from llm_arithmetic.catalog.model_catalog import CatalogEntry
    from llm_arithmetic.catalog.readers import read_config

    m = read_config(Path(__file__).parent / "configs" / "deepseek-v4-flash.json")
    record = export.model_data(CatalogEntry(model=m, url=""))
    got = page.evaluate("""(m) => {
      const S = window.LLMArithmetic.stack;
      return [S.totalParams(m), S.activeParams(m), S.matmulParams(m),
              S.kvCacheBytesPerToken(m, 16), S.kvCacheBytes(m, 4096, 1, 16),
              S.seqBytes(m, 4096, 16, 16)];
    }""", record)
    assert got[:3] == [m.total_params, m.active_params, m.matmul_params]
    assert got[3:] == [None, m.kv_cache_bytes(4096, 1, 16), m.seq_bytes(4096, 16, 16)]
    assert got[4] == 46_022_656  # by hand: tests/test_configs_2026.py


def test_page_counts_phi4flash_with_yocos_prefill_as_python_does(page):
    """Phi-4-mini-flash read from its vendored file (not in the catalog): Mamba-1 and gated
    memory unit mixers, differential attention, the cross-decoder that reads block 17's cache,
    and the prefill that runs that cross-decoder for the last prompt token only (the plan's
    sums over the blocks a prefill runs once, ``where``) give the page Python's numbers."""
    from llm_arithmetic.catalog.model_catalog import CatalogEntry
    from llm_arithmetic.catalog.readers import read_config

    m = read_config(Path(__file__).parent / "configs" / "phi-4-mini-flash-reasoning.json")
    record = export.model_data(CatalogEntry(model=m, url=""))
    got = page.evaluate("""(m) => {
      const S = window.LLMArithmetic.stack;
      return [S.totalParams(m), S.matmulParams(m), S.kvCacheBytes(m, 4096, 1, 16),
              S.stateBytes(m, 16), S.decodeFlopsPerToken(m, 4096), S.prefillFlops(m, 1),
              S.prefillFlops(m, 4096)];
    }""", record)
    assert got == [m.total_params, m.matmul_params, m.kv_cache_bytes(4096, 1, 16),
                   m.state_bytes(16), m.decode_flops_per_token(4096), m.prefill_flops(1),
                   m.prefill_flops(4096)]
    assert got[0] == 3_852_562_944  # by hand: tests/test_configs_2026.py


def test_the_calculators_say_what_describe_says_of_a_cache_not_proportional_to_the_context(
        page):
    """DeepSeek-V4-Flash in the estimate widget: where describe prints, for the cache per
    token, the mean at the context asked (cli.tables._per_token, from plan.stack.KV_PER_TOKEN_MEAN),
    the page prints the same sentence from the same template (exported with the catalog), its
    template and arguments on the output for a translated edition; a model with a figure per
    token keeps its number."""
    from types import SimpleNamespace

    from llm_arithmetic.cli.tables import _per_token
    from llm_arithmetic.plan.stack import KV_PER_TOKEN_MEAN

    assert page.evaluate("window.LLMArithmetic.catalog.templates")["kv_per_token_mean"] == (
        KV_PER_TOKEN_MEAN)
    shown = {}
    for name, context, batch in (("deepseek-v4-flash", 131072, 1),
                                 ("deepseek-v4-flash", 5000, 3), ("llama-3.1-8b", 4096, 1)):
        mount(page, f"""<div data-llm-widget="estimate" data-model="{name}"
            data-chip="h200" data-kv="fp16" data-context="{context}" data-batch="{batch}"
            data-show="kv_cache_bytes_per_token,kv_cache_bytes"></div>""")
        out = page.locator('output[data-key="kv_cache_bytes_per_token"]')
        shown[name, context] = (out.inner_text(), out.get_attribute("data-template"),
                                out.get_attribute("data-args"))
        e = estimate(name, hardware="h200", bits_kv="fp16", context=context, batch=batch)
        if e.kv_cache_bytes_per_token is None:
            said = _per_token(SimpleNamespace(**e.as_dict()))
            assert shown[name, context][:2] == (said, KV_PER_TOKEN_MEAN)
            mean = json.loads(shown[name, context][2])["mean"]
            assert said == KV_PER_TOKEN_MEAN.format(mean=mean)
        else:
            assert shown[name, context] == (f"{e.kv_cache_bytes_per_token:,}", None, None)
    # by hand (FAMILIES.md 14.18): 919,617,536 B at 131,072 tokens, 16 bits
    assert shown["deepseek-v4-flash", 131072][0] == (
        "not proportional to the context; 7,016 B a token on average at this context")
    assert not page.errors, page.errors


def test_the_calculators_name_compressed_attentions_rows_as_describe_does(page):
    """Where describe labels the attended rows of DeepSeek-V4's compressed attention "attended
    rows (window, compressed)" and splits the mean into window tokens and compressed entries
    (cli.tables._attended_row), the page's attended_context output says the same, from the same
    templates (exported with the catalog; template and arguments on the output for a
    translated edition), its number still in data-value; a model without compressed
    attention keeps "cached positions a step reads per layer" and its tokens, and the label
    follows the model chosen."""
    from types import SimpleNamespace

    from llm_arithmetic.catalog.model_catalog import get_model
    from llm_arithmetic.cli.tables import _attended_row
    from llm_arithmetic.plan.stack import ATTENDED_ROWS_LABEL, ATTENDED_ROWS_SPLIT

    templates = page.evaluate("window.LLMArithmetic.catalog.templates")
    assert (templates["attended_rows_label"], templates["attended_rows_split"]) == (
        ATTENDED_ROWS_LABEL, ATTENDED_ROWS_SPLIT)
    read = """() => {
      const o = document.querySelector('output[data-key="attended_context"]');
      return [o.closest('.lla-number').querySelector('dt').textContent, o.textContent,
              o.dataset.value, o.dataset.template || null, o.dataset.args || null,
              !!o.nextElementSibling && !o.nextElementSibling.hidden];
    }"""
    shown = {}
    for name, context in (("deepseek-v4-flash", 4096), ("deepseek-v4-flash", 131072),
                          ("mistral-7b", 8192)):
        mount(page, f"""<div data-llm-widget="estimate" data-model="{name}"
            data-chip="h200" data-kv="fp16" data-context="{context}" data-batch="1"
            data-show="attended_context"></div>""")
        shown[name, context] = page.evaluate(read)
        e = estimate(name, hardware="h200", bits_kv="fp16", context=context)
        label, value = _attended_row(SimpleNamespace(**e.as_dict()), get_model(name))
        got = shown[name, context]
        assert float(got[2]) == float(e.attended_context)
        if get_model(name).has_compressed_attention:
            assert got[:2] == [label, value] and got[3] == ATTENDED_ROWS_SPLIT
            assert ATTENDED_ROWS_SPLIT.format(**json.loads(got[4])) == value and not got[5]
        else:
            assert got[:2] == ["cached positions a step reads per layer",
                               f"{float(e.attended_context):,.0f}"] and got[3:] == [None,
                                                                                 None, True]
    # by hand (FAMILIES.md 14.18, tests/test_cli.py): at 131,072 tokens 854 a layer, 128 of
    # them window tokens
    assert shown["deepseek-v4-flash", 131072][:2] == [
        "attended rows (window, compressed)",
        "854 per layer on average: 128 window tokens, 726 compressed entries"]
    # the label follows the model: V4 chosen in the widget's own select, then another model
    mount(page, """<div data-llm-widget="estimate" data-model="mistral-7b"
        data-chip="h200" data-kv="fp16" data-context="131072" data-batch="1"
        data-show="attended_context"></div>""")
    labels = []
    for name in ("deepseek-v4-flash", "mistral-7b"):
        page.select_option('select[data-control="model"]', name)
        labels.append(page.evaluate(read)[0])
    assert labels == ["attended rows (window, compressed)",
                      "cached positions a step reads per layer"]
    assert not page.errors, page.errors


# ---- estimate() and sweep() ---------------------------------------------------------------------
CHIPS = ["h100-sxm", "m2", "rtx-4090", "b200", "epyc-9755"]
SETTINGS = [  # weights, kv, context, batch
    (None, "fp16", 1, 1), ("fp16", "fp8", 4096, 8), ("q4_0", "q8_0", 32768, 64),
    ("fp8", "fp16", 1000, 512), ("nvfp4", "fp16", 200, 3),
]
NUMERIC_FIELDS = [
    "bits_weight", "bits_kv", "attended_context", "experts_read", "bandwidth", "peak_flops",
    "capacity", "params_total", "params_language_model", "params_active", "params_matmul",
    "params_read_per_token", "weight_bytes", "kv_cache_bytes_per_token", "kv_cache_bytes",
    "kv_cache_bytes_full_storage", "state_bytes", "decode_bytes_per_token", "decode_step_bytes",
    "decode_flops_per_token", "decode_memory_seconds", "decode_compute_seconds",
    "decode_seconds_per_token", "decode_tokens_per_second", "throughput_tokens_per_second",
    "ops_per_byte", "critical_batch_size", "memory_required_bytes", "max_batch", "max_context",
    "trained_context"]
OTHER_FIELDS = ["bound", "compute_precision", "fits", "model", "hardware", "context", "batch"]

ESTIMATE_QUERY = """
(cases) => cases.map(([name, chip, w, kv, s, b]) => {
  const L = window.LLMArithmetic;
  return L.estimate(L.catalog.models[name], L.catalog.hardware[chip],
                    {weights: w, bits_kv: kv, context: s, batch: b});
})
"""


def _cases():
    """Every catalog model on two chips, the chips and settings taking turns."""
    out = []
    for i, name in enumerate(CATALOG):
        for j in (0, 1):
            chip = CHIPS[(2 * i + j) % len(CHIPS)]
            w, kv, s, b = SETTINGS[(i + 2 * j) % len(SETTINGS)]
            out.append([name, chip, w, kv, s, b])
    return out


def test_estimate_in_the_page_equals_python(page):
    cases = _cases()
    got = page.evaluate(ESTIMATE_QUERY, cases)
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWarning)
        for case, g in zip(cases, got):
            name, chip, w, kv, s, b = case
            e = estimate(name, hardware=chip, weights=w, bits_kv=kv, context=s, batch=b)
            d = e.as_dict()
            for k in NUMERIC_FIELDS:
                want = getattr(e, k)
                if want is None or (isinstance(want, float) and math.isinf(want)):
                    if g[k] is not None:
                        failures.append(f"{case} {k}: page {g[k]!r}, python {want!r}")
                elif g[k] is None or not _close(g[k], float(want), 1e-9):
                    failures.append(f"{case} {k}: page {g[k]!r}, python {want!r}")
            for k in OTHER_FIELDS:
                if g[k] != d[k]:
                    failures.append(f"{case} {k}: page {g[k]!r}, python {d[k]!r}")
    assert len(cases) == 2 * len(CATALOG)
    assert not failures, f"{len(failures)} differ, e.g.:\n" + "\n".join(failures[:10])


RANDOM_QUERY = """
(cases) => cases.map(([name, chip, opts]) => {
  const L = window.LLMArithmetic;
  try {
    return L.estimate(L.catalog.models[name], L.catalog.hardware[chip], opts);
  } catch (err) { return {error: String(err.message || err)}; }
})
"""


def test_the_two_interpreters_agree_on_random_workloads(page):
    """The plan evaluated by the page's interpreter and by Python's on 60 random workloads
    (seeded): any catalog model and chip, weight and cache formats, context, batch, tp/ep/pp,
    prompt and generated tokens, price, latency, overlap, all-reduce algorithm, node limit and
    dispatch format."""
    rng = random.Random(20261128)
    models, chips = sorted(CATALOG), sorted(export.catalog_data()["hardware"])
    cases = []
    while len(cases) < 60:
        name = rng.choice(models)
        m = CATALOG[name].model
        opts = {"weights": rng.choice([None, "fp16", "fp8", "q4_0", "nvfp4", "int8"]),
                "bits_kv": rng.choice(["fp16", "fp8", 16]), "context": rng.randint(1, 200_000),
                "batch": rng.choice([1, 2, 7, 64, 300]),
                "link_latency": rng.choice([None, 0, 2e-6]),
                "overlap": rng.choice([True, False]), "allreduce": rng.choice([None, "ring", "direct"]),
                "node_limit": rng.choice([None, 1, 4]),
                "dispatch_bits": rng.choice([None, "fp8"])}
        tp = _allowed_tp(m, rng.choice([1, 2, 4, 8, 16]))
        opts.update(tp=tp, pp=rng.choice([1, 2]) if m.n_layers >= 2 else 1)
        if m.is_moe and rng.random() < 0.5 and (tp * opts["pp"]) % 2 == 0:
            opts["ep"] = 2
        if rng.random() < 0.6:
            opts.update(prompt=rng.randint(1, 8192), generate=rng.randint(0, 1024),
                        price_per_hour=rng.choice([1.5, 4.0]))
        cases.append([name, rng.choice(chips), opts])
    got = page.evaluate(RANDOM_QUERY, cases)
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWarning)
        for (name, chip, opts), g in zip(cases, got):
            try:
                e = estimate(name, hardware=chip, **opts)
            except Exception as err:  # both refuse, or neither
                if "error" not in g:
                    failures.append(f"{name} {chip} {opts}: python refuses ({err}), page not")
                continue
            if "error" in g:
                failures.append(f"{name} {chip} {opts}: page refuses ({g['error']})")
                continue
            for k in FIELD_STEPS:
                want = getattr(e, k)
                if isinstance(want, (bool, str)) or want is None:
                    ok = g[k] == want
                elif isinstance(want, float) and math.isinf(want):
                    ok = g[k] is None
                else:
                    ok = g[k] is not None and _close(g[k], float(want), 1e-9)
                if not ok:
                    failures.append(f"{name} {chip} {opts} {k}: page {g[k]!r}, python {want!r}")
    assert not failures, "\n".join(failures[:20])


def test_custom_numbers_estimate_equals_python(page):
    """A model built from the classic arguments and a chip given by its figures."""
    from llm_arithmetic import Model

    arch = dict(n_vocab=50000, d_model=3000, n_layers=30, n_heads=24, n_kv_heads=6,
                d_head=125, d_ff=9000, n_experts=4, n_active_experts=2)
    got = page.evaluate(
        """([arch]) => { const L = window.LLMArithmetic;
           return L.estimate(L.stack.transformer(arch), null, {weights: "q8_0", bits_kv: "fp8",
             context: 3000, batch: 16, bandwidth: 800e9, peak_flops: 90e12,
             capacity: 48000000000}); }""", [arch])
    e = estimate(Model.transformer(name="custom", **arch), weights="q8_0", bits_kv="fp8",
                 context=3000, batch=16, bandwidth=800e9, peak_flops=90e12,
                 capacity=48_000_000_000)
    for k in NUMERIC_FIELDS:
        want = getattr(e, k)
        if want is None:
            assert got[k] is None, k
        else:
            assert _close(got[k], float(want), 1e-9), (k, got[k], want)
    assert got["bound"] == e.bound and got["fits"] == e.fits


def test_steps_equal_sweep(page):
    batches = [1, 2, 7, 64, 300, 4096]
    for name, chip, fmt, s in (("mixtral-8x7b", "h100-sxm", "fp16", 4096),
                               ("gpt-oss-20b", "rtx-4090", "q4_0", 1000),
                               ("llama-3-8b", "m2", "fp32", 1)):
        got = page.evaluate(
            """([name, chip, w, s, batches]) => { const L = window.LLMArithmetic;
               return L.steps(L.catalog.models[name], L.catalog.hardware[chip],
                              {weights: w, bits_kv: "fp16", context: s, batches}); }""",
            [name, chip, fmt, s, batches])
        sw = sweep(name, hardware=chip, weights=fmt, context=s, batch=batches)
        for i, g in enumerate(got):
            for k, arr in (("step_bytes", sw.step_bytes), ("step_flops", sw.step_flops),
                           ("memory_seconds", sw.memory_seconds),
                           ("compute_seconds", sw.compute_seconds),
                           ("seconds", sw.seconds_per_token)):
                assert _close(g[k], float(arr[0, 0, 0, i]), 1e-12), (name, k, i)


# ---- the widgets the page defines ---------------------------------------------------------------
def test_the_widgets_are_those_the_export_module_lists(page):
    assert tuple(page.evaluate("() => Object.keys(window.LLMArithmetic.widgets)")) == \
        export.WIDGETS
    assert not page.errors, page.errors


def widget_cells() -> list[tuple[Path, dict]]:
    """(notebook, cell) for every Markdown cell that embeds a widget."""
    out = []
    for path in sorted((REPO / "notebooks").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            src = "".join(cell["source"])
            if cell["cell_type"] == "markdown" and "data-llm-widget" in src:
                out.append((path, cell))
    return out


def test_widget_cells_name_known_widgets_and_load_the_script():
    cells = widget_cells()
    assert len(cells) >= 5
    for path, cell in cells:
        src = "".join(cell["source"])
        where = f"{path.relative_to(REPO)} cell {cell.get('id')}"
        for m in re.finditer(r"<div\b([^>]*)>", src):
            attrs = dict(re.findall(r'data-([\w-]+)="([^"]*)"', m.group(1)))
            if "llm-widget" not in attrs:
                continue
            assert attrs["llm-widget"] in export.WIDGETS, where
            unknown = set(attrs) - {"llm-widget"} - set(export.WIDGET_OPTIONS)
            assert not unknown, f"{where}: unknown options {unknown}"
        depth = len(path.relative_to(REPO).parts) - 1
        static = "/".join([".."] * depth + [bundle.STATIC_DIR])
        assert f'<script src="{static}/widgets.js"></script>' in src, where
        # the words a translated edition translates (tools/sphinx_widgets.translate_fallback)
        assert f'<p class="llm-widget-fallback">{export.WIDGET_FALLBACK}</p>' in src, where


def _catalog_paths(js: str, expr: str, seen: frozenset = frozenset()) -> set[str]:
    """The paths under ``CATALOG`` that the object expression ``expr`` (``c``, ``fc.caveat``,
    ``CATALOG.templates``) may stand for in the widget source ``js``, following its
    ``const name = a.b.c;`` bindings (every binding of a name: the source reuses short names)."""
    head, _, rest = expr.partition(".")
    if head == "CATALOG":
        return {rest}
    out = set()
    for bound in re.findall(rf"\bconst {re.escape(head)} = ([\w$.]+);", js):
        if head not in seen:
            out |= {".".join(filter(None, [p, rest]))
                    for p in _catalog_paths(js, bound, seen | {head})}
    return out


def test_every_template_the_widgets_fill_is_in_the_one_list():
    """The templates the widgets fill are the one list export.widget_templates gives (which
    tools/sphinx_widgets.template_labels translates): every ``<object>.templates.<name>`` the
    widgets' code reads (ui.js: ``CATALOG.templates``; calculator.js: the forecast caveat's,
    through ``const`` bindings) is in it, under the path catalog_data carries it at; the list
    names exactly what catalog_data carries, the same sentences; and the calculator appendix
    (plan_page, whose translated catalogs hold the translations) prints each one."""
    from llm_arithmetic.book import plan_page

    listed = export.widget_templates()
    data = export.catalog_data()
    for path, text in listed.items():
        node = data
        for part in path.split("."):
            node = node[part]
        assert node == text, path
    carried = {f"templates.{k}" for k in data["templates"]} | {
        f"forecast.caveat.templates.{k}" for k in data["forecast"]["caveat"]["templates"]}
    assert carried == set(listed)
    read = set()
    for name in bundle.JS_SOURCES:
        js = (bundle.WIDGETS_DIR / name).read_text(encoding="utf-8")
        code = re.sub(r"//[^\n]*", "", js)
        assert not re.search(r"\btemplates\s*\[", code), f"{name}: a template read by index"
        for m in re.finditer(r"([\w$.]+)\.templates\.(\w+)", code):
            paths = {".".join(filter(None, [p, "templates", m.group(2)]))
                     for p in _catalog_paths(code, m.group(1))}
            assert paths, f"{name}: {m.group(0)} is not read from the catalog"
            assert paths <= set(listed), f"{name}: {m.group(0)} is not in widget_templates"
            read |= paths
    assert read == set(listed), set(listed) - read  # and every listed one is used
    page = plan_page.page_text()
    for path, text in listed.items():
        assert f"\n* {text}\n" in page, path


def test_export_is_deterministic_and_complete(tmp_path):
    a = bundle.bundle_source()
    assert a == bundle.bundle_source()
    for name in FORMULAS:
        assert re.search(rf"^function {name}\(", a, re.M), name
    paths = bundle.write_static(tmp_path)
    assert sorted(p.name for p in paths) == ["catalog.json", "formulas.js", "widgets.js"]
    data = json.loads((tmp_path / "catalog.json").read_text(encoding="utf-8"))
    assert set(data["models"]) == set(CATALOG)
    with pytest.raises(ValueError, match="export form"):
        bundle.formulas_classic_source("export function f() {}\nexport default f;\n")


def test_the_generic_widget_takes_its_options_from_the_page(page):
    """The `estimate` widget, as a serving chapter would embed it: starting inputs, outputs and
    views from data-* attributes; its numbers and markers are Python's."""
    from test_browser_widgets import READ_WIDGET, check_widget

    mount(page, """<div data-llm-widget="estimate" data-model="mixtral-8x7b"
        data-chip="h200" data-weights="fp8" data-kv="fp8" data-context="32768"
        data-batch="16" data-controls="model,chip,batch" data-plots="batching,kv,roofline"
        data-show="decode_seconds_per_token,throughput_tokens_per_second,max_batch,fits,
                   critical_batch_size,kv_cache_bytes,step_intensity"></div>
        <div data-llm-widget="no-such-widget"></div>""")
    el = page.locator('[data-llm-widget="estimate"]')
    r = el.evaluate(READ_WIDGET)
    assert r["state"]["model"] == "mixtral-8x7b" and r["state"]["context"] == 32768
    assert {o["key"] for o in r["outputs"]} == {
        "decode_seconds_per_token", "throughput_tokens_per_second", "max_batch", "fits",
        "critical_batch_size", "kv_cache_bytes", "step_intensity"}
    assert {p["view"] for p in r["points"]} == {"batching", "kv", "roofline"}
    assert el.evaluate("(el) => [...el.querySelectorAll('[data-control]')]"
                       ".map((c) => c.dataset.control)") == [
        "model", "chip", "batch-slider", "batch"]
    assert not check_widget(r, "estimate widget")
    assert "unknown widget" in page.locator('[data-llm-widget="no-such-widget"]').inner_text()
    assert not page.errors, page.errors


def test_the_explorer_shows_no_speed_for_a_setup_that_does_not_fit(page):
    """DeepSeek-V3 at 16 bits on one H200 (671,026,419,200 parameters x 2 B = 1.34 TB against
    141 GiB): the explorer's table said 'tokens/s 5.5 per sequence' where describe prints
    '- (does not fit in memory)'. The page's table now shows describe's words, row for row as
    the notebook's Python explorer (book.explorer.summary) writes them; a setup that fits keeps
    its speeds."""
    from test_browser_widgets import READ_WIDGET, _markdown_table, check_widget

    from llm_arithmetic.book.explorer import explore, summary

    rows_js = """(el) => Object.fromEntries([...el.querySelectorAll('tr[data-row]')]
      .map((tr) => [tr.dataset.row, tr.querySelector('td').textContent]))"""
    for model, chip, fits in (("deepseek-v3", "h200", False), ("llama-3-8b", "h100-sxm", True)):
        mount(page, f"""<div data-llm-widget="explorer" data-model="{model}"
            data-chip="{chip}" data-weights="fp16" data-kv="fp16" data-context="4096"
            data-batch="1"></div>""")
        el = page.locator('[data-llm-widget="explorer"]')
        rows = el.evaluate(rows_js)
        e = explore(model, chip, "fp16", "fp16", 4096, 1)
        assert e.fits is fits
        table = _markdown_table(summary(model, chip, e, "fp16", "fp16").data)
        for key in ("bound per step", "tokens/s", "memory"):
            assert rows[key] == table[key], (model, key, rows[key], table[key])
        if fits:
            assert "per sequence" in rows["tokens/s"]
        else:
            assert rows["tokens/s"] == "- (does not fit in memory)"
            assert rows["bound per step"].endswith("; does not fit in memory")
        assert not check_widget(el.evaluate(READ_WIDGET), f"explorer {model} on {chip}")
    assert not page.errors, page.errors


# ---- the serving keys: a replica of tp x pp chips, a request of (prompt, generate) -------------
SERVING_CHIPS = ["h100-sxm", "b200", "mi300x", "a100-40gb-pcie", "rtx-4090", "m2"]
SERVING_SETTINGS = [  # weights, prompt, generate, batch, tp wanted, price [USD/h], latency [s]
    ("fp8", 2048, 256, 64, 8, 2.5, 0.0), (None, 128, 0, 1, 1, None, 0.0),
    ("q4_0", 8192, 1000, 7, 4, 0.8, 5e-6), ("fp16", 1, None, 300, 2, None, 0.0),
    ("nvfp4", 32768, 4096, 16, 16, 6.0, 1e-6),
]
SERVING_NUMERIC = [
    "tp", "ep", "pp", "n_chips", "prompt", "generate", "serving_context", "link_bandwidth",
    "link_latency", "ttft_seconds", "tpot_seconds", "request_seconds",
    "tokens_per_second_per_user", "tokens_per_second_per_chip", "cost_per_million_tokens",
    "energy_joules_per_token", "allreduce_seconds_per_token", "alltoall_seconds_per_token",
    "price_per_hour", "power_watts", "memory_per_chip_bytes", "max_batch_per_replica"]

SERVING_QUERY = """
(cases) => cases.map(([name, chip, opts]) => {
  const L = window.LLMArithmetic;
  try {
    return L.estimate(L.catalog.models[name], L.catalog.hardware[chip], opts);
  } catch (err) {
    return {error: String(err.message || err)};
  }
})
"""


#: Images in the prompt (describe's --images N --image-size WxH), sizes from the page's menu
#: (export.IMAGE_SIZES; None: the default): a Qwen2.5-VL (windowed tower, split at tp 2), a
#: Gemma 3 (one fixed crop), a Llama 4 (tiles and their separators), Mistral 3 (row breaks),
#: Gemma 3n (a convolutional tower, whole on every chip) and InternVL without text tokens.
SERVING_IMAGE_CASES = [
    ["qwen2.5-vl-3b-instruct", "h100-sxm", dict(tp=1, prompt=512, generate=128, batch=4,
                                                images=2, image_size=(1920, 1080))],
    ["qwen2.5-vl-3b-instruct", "mi300x", dict(tp=2, prompt=64, generate=256, batch=16,
                                              images=8, image_size=(4032, 3024))],
    ["gemma-3-12b", "b200", dict(weights="fp8", tp=2, prompt=1000, generate=200, batch=8,
                                 images=3, image_size=(512, 512))],
    ["llama-4-scout", "h200", dict(weights="fp8", tp=2, ep=2, prompt=2048, generate=256,
                                   batch=32, images=1, image_size=(1024, 1024))],
    ["mistral-small-3.1-24b", "h100-sxm", dict(tp=2, prompt=100, generate=50, batch=2,
                                               images=4, image_size=(1920, 1080))],
    ["gemma-3n-e4b", "rtx-4090", dict(tp=1, prompt=300, generate=64, batch=1, images=1,
                                      image_size=None)],
    ["internvl3-1b", "m2", dict(tp=1, generate=64, images=2, image_size=(4032, 3024))],
    # GLM-4.5V at tp 4, which its tower's 12 heads allow (tp 8 is refused: below)
    ["glm-4.5v", "h200", dict(weights="fp8", tp=4, prompt=256, generate=64, batch=8, images=1,
                              image_size=(1024, 1024))],
    # Llama 3.2 Vision: images read through cross-attention layers (their states cached, their
    # weights read by every token), one tile (512 x 512) and four (1920 x 1080), split up to
    # the cross layers' 8 key/value heads
    ["llama-3.2-11b-vision-instruct", "h100-sxm", dict(tp=1, prompt=200, generate=100, batch=4,
                                                       images=1, image_size=(512, 512))],
    ["llama-3.2-11b-vision-instruct", "mi300x", dict(tp=2, prompt=50, generate=256, batch=16,
                                                     images=4, image_size=(1920, 1080))],
    ["llama-3.2-90b-vision-instruct", "h200", dict(weights="fp8", tp=8, prompt=1000,
                                                   generate=128, batch=8, images=4,
                                                   image_size=(512, 512))],
    ["llama-3.2-90b-vision-instruct", "b200", dict(tp=4, generate=64, batch=2, images=1,
                                                   image_size=(1920, 1080))],
]
IMAGE_FIELDS = ["images", "image_tokens_per_image", "image_tokens", "vision_patches_per_image",
                "vision_prefill_flops", "vision_weight_bytes", "vision_prefill_seconds",
                "image_states", "cross_kv_flops", "image_kv_bytes"]
#: A video (describe's --video-seconds S; the page's clips, export.VIDEO_SECONDS, at estimate's
#: 2 fps and 1280 x 720 px) and audio (--audio-seconds S, export.AUDIO_SECONDS) in the prompt:
#: Qwen2.5-VL's clip (its tower split at tp 2) and with two images, Qwen2-VL's minute, Qwen3.5's
#: twenty minutes (past the 768 frames sampled, one pixel budget for the clip) at tp 4 and
#: five minutes with an image beside them (Qwen3.5 397B, experts split); GLM-4.5V's twenty
#: minutes (600 frames, its 300 s cap, and their whole-second timestamps) at tp 4; Qwen2.5-Omni's audio
#: (its encoder whole on every chip), ten minutes of it with an image (truncated at 300 s:
#: Python's warning), Qwen3-Omni's split over 4 chips with two images, and its Thinking's;
#: Qwen3-Omni's minute of video (its own per-frame limits) beside a clip of audio at tp 2;
#: Gemma 3n's 188 tokens for 10 s, and Gemma 4 E4B's two minutes (truncated at 30 s) beside an
#: image at tp 2 (both encoders whole on every chip).
SERVING_MEDIA_CASES = [
    ["qwen2.5-vl-3b-instruct", "h100-sxm", dict(tp=2, prompt=256, generate=128, batch=4,
                                                video_seconds=10, video_fps=2,
                                                video_size=(1280, 720))],
    ["qwen2.5-vl-3b-instruct", "h200", dict(tp=1, prompt=100, generate=64, batch=2, images=2,
                                            image_size=(1920, 1080), video_seconds=60)],
    ["qwen2-vl-7b-instruct", "a100-80gb-sxm", dict(tp=1, generate=32, video_seconds=60)],
    ["qwen3.5-27b", "h200", dict(tp=4, prompt=1000, generate=256, batch=8,
                                 video_seconds=1200)],
    ["qwen3.5-397b-a17b", "b200", dict(weights="fp8", tp=8, ep=8, prompt=500, generate=100,
                                       batch=16, images=1, image_size=(512, 512),
                                       video_seconds=300)],
    ["glm-4.5v", "h200", dict(tp=4, prompt=200, generate=64, batch=2, video_seconds=1200)],
    ["qwen2.5-omni-7b", "h100-sxm", dict(tp=1, prompt=200, generate=128, batch=4,
                                         audio_seconds=30)],
    ["qwen2.5-omni-7b", "mi300x", dict(tp=2, prompt=50, generate=64, batch=2, images=1,
                                       image_size=(1024, 1024), audio_seconds=600)],
    ["qwen3-omni-30b-a3b-instruct", "h200", dict(tp=4, prompt=300, generate=200, batch=8,
                                                 images=2, image_size=(1024, 1024),
                                                 audio_seconds=120)],
    ["qwen3-omni-30b-a3b-thinking", "h100-sxm", dict(tp=2, generate=64, audio_seconds=10)],
    ["qwen3-omni-30b-a3b-instruct", "h100-sxm", dict(tp=2, prompt=100, generate=64,
                                                     video_seconds=60, audio_seconds=10)],
    ["gemma-3n-e2b", "h100-sxm", dict(tp=1, prompt=50, generate=32, audio_seconds=10)],
    ["gemma-4-e4b", "h200", dict(tp=2, prompt=100, generate=64, batch=2, images=1,
                                 image_size=(1024, 1024), audio_seconds=120)],
]
MEDIA_FIELDS = ["video_seconds", "video_fps", "video_frames", "video_tokens",
                "video_separator_tokens", "video_patches", "audio_seconds", "audio_frames",
                "audio_tokens", "audio_prefill_flops", "audio_weight_bytes",
                "audio_prefill_seconds"]


def _allowed_tp(m, wanted):
    """The largest of 1, 2, 4, ..., wanted whose split of the heads estimate() accepts: whole
    query heads on each chip, KV heads that tp divides or that divide tp, and a Mamba-2
    mixer's heads and groups (one group, or groups tp divides)."""
    heads = [run.attention.n_heads for run in m.layers if run.attention is not None]
    kv = [run.attention.n_kv_heads for run in m.layers if run.attention is not None]
    ssm = [(run.mixer.n_heads, run.mixer.n_groups) for run in m.layers
           if getattr(run.mixer, "n_groups", 0)]
    return max(t for t in (1, 2, 4, 8, 16) if t <= wanted
               and (not heads or (t <= min(heads) and all(h % t == 0 for h in heads)
                                  and all(k % t == 0 or t % k == 0 for k in kv)))
               and all(h % t == 0 and (g % t == 0 or g == 1) for h, g in ssm))


def _serving_cases():
    """Every catalog model on two chips with the settings taking turns; every third case a
    two-stage pipeline, and a mixture of experts with tp > 1 splits its experts ep = tp ways
    on every other case."""
    out = []
    for i, name in enumerate(CATALOG):
        m = CATALOG[name].model
        for j in (0, 1):
            chip = SERVING_CHIPS[(2 * i + j) % len(SERVING_CHIPS)]
            w, prompt, gen, b, tp, price, lat = SERVING_SETTINGS[(i + 2 * j) % len(
                SERVING_SETTINGS)]
            tp = _allowed_tp(m, tp)
            pp = 2 if (2 * i + j) % 3 == 0 else 1
            ep = tp if (m.is_moe and tp > 1 and j == 0 and m.n_experts >= tp) else 1
            kw = dict(weights=w, bits_kv="fp8" if j else "fp16", context=prompt, batch=b,
                      tp=tp, ep=ep, pp=pp, prompt=prompt, generate=gen, price_per_hour=price,
                      link_latency=lat)
            out.append([name, chip, kw])
    return out


def _compare(case, g, e, fields, failures):
    for k in fields:
        want = getattr(e, k)
        if want is None or (isinstance(want, float) and math.isinf(want)):
            if g.get(k) is not None:
                failures.append(f"{case} {k}: page {g.get(k)!r}, python {want!r}")
        elif g.get(k) is None or not _close(g[k], float(want), 1e-9):
            failures.append(f"{case} {k}: page {g.get(k)!r}, python {want!r}")


def test_serving_estimate_in_the_page_equals_python(page):
    """TTFT, TPOT, the request time, the rates per user and per chip, cost, energy and the
    communication inside a TPOT: the page's estimate() is llm_arithmetic.estimate's, for every
    catalog model on NVLink, Infinity Fabric, PCIe and link-less chips, one to sixteen chips."""
    cases = _serving_cases() + SERVING_IMAGE_CASES + SERVING_MEDIA_CASES
    got = page.evaluate(SERVING_QUERY, [[n, c, {k: v for k, v in kw.items()}]
                                        for n, c, kw in cases])
    failures, seen = [], {"allreduce": 0, "alltoall": 0, "pp": 0, "cost": 0, "no_link": 0,
                          "scale_out": 0, "not_fit": 0, "generate_0": 0, "images": 0,
                          "images_tp": 0, "video": 0, "audio": 0, "media_tp": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWarning)
        for (name, chip, kw), g in zip(cases, got):
            case = (name, chip, tuple(kw.values()))
            assert "error" not in g, (case, g)
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always", ContextWarning)
                e = estimate(name, hardware=chip, **kw)
            _compare(case, g, e, SERVING_NUMERIC + NUMERIC_FIELDS + IMAGE_FIELDS + MEDIA_FIELDS,
                     failures)
            for k in ("image_size", "video_size"):
                if list(g[k] or ()) != list(getattr(e, k) or ()):
                    failures.append(f"{case} {k}: page {g[k]}, python {getattr(e, k)}")
            # Python's warning of a truncated clip, which the page shows
            cut = [str(w.message) for w in said if "drops the rest" in str(w.message)]
            if g["audio_warning"] != (cut[0] if cut else None):
                failures.append(f"{case} audio_warning: page {g['audio_warning']!r}, "
                                f"python {cut}")
            if g["fits_per_chip"] != e.fits_per_chip:
                failures.append(f"{case} fits_per_chip: page {g['fits_per_chip']!r}, "
                                f"python {e.fits_per_chip!r}")
            seen["allreduce"] += bool(e.allreduce_seconds_per_token)
            seen["alltoall"] += bool(e.alltoall_seconds_per_token)
            seen["pp"] += e.pp > 1
            seen["cost"] += e.cost_per_million_tokens is not None
            seen["no_link"] += e.n_chips > 1 and e.link_bandwidth is None
            seen["scale_out"] += e.link_bandwidth is not None and e.link_bandwidth < 60e9
            seen["not_fit"] += e.fits_per_chip is False
            seen["generate_0"] += e.generate == 0
            seen["images"] += e.images is not None
            seen["images_tp"] += e.images is not None and e.tp > 1
            seen["video"] += e.video_seconds is not None
            seen["audio"] += e.audio_seconds is not None
            seen["media_tp"] += (e.video_seconds or e.audio_seconds or 0) > 0 and e.tp > 1
    assert not failures, f"{len(failures)} differ, e.g.:\n" + "\n".join(failures[:10])
    assert all(v >= 2 for v in seen.values()), seen  # every path was taken


def test_the_page_holds_reads_and_multiplies_kimi_k3s_padded_experts_as_python_does(page):
    """Kimi K3 (tests/configs, not in the catalog) at tp 16, where vLLM's KimiMoE pads each
    expert's 192 columns a chip to 256 (tests/test_expert_padding.py): the page's estimate of
    the serving keys, the memory per chip with the padding, equals Python's; at tp 8 (384 a
    chip, no padding) too."""
    from llm_arithmetic.catalog.model_catalog import CatalogEntry
    from llm_arithmetic.catalog.readers import read_config

    m = read_config(Path(__file__).parent / "configs" / "kimi-k3.json", name="kimi-k3")
    record = export.model_data(CatalogEntry(model=m, url=""))
    cases = [dict(tp=tp, prompt=4096, generate=256, batch=b) for tp, b in ((16, 1), (16, 8),
                                                                           (8, 8))]
    got = page.evaluate("""([m, chip, cases]) => cases.map((opts) => {
      const L = window.LLMArithmetic;
      return L.estimate(m, L.catalog.hardware[chip], opts);
    })""", [record, "b200", cases])
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWarning)
        for kw, g in zip(cases, got):
            _compare(("kimi-k3", "b200", tuple(kw.values())), g,
                     estimate(m, hardware="b200", **kw), SERVING_NUMERIC + NUMERIC_FIELDS,
                     failures)
    assert not failures, "\n".join(failures[:10])
    # the padding is in the memory per chip: 907,580,276,736 zero weights at 4.25 bits over 16,
    # against the same file with the padding turned off (min_moe_intermediate_per_partition 0)
    cfg = json.loads((Path(__file__).parent / "configs" / "kimi-k3.json").read_text())
    cfg["text_config"]["min_moe_intermediate_per_partition"] = 0
    unpadded = export.model_data(CatalogEntry(model=read_config(cfg, name="kimi-k3"), url=""))
    plain = page.evaluate("""([m, chip, opts]) => {
      const L = window.LLMArithmetic;
      return L.estimate(m, L.catalog.hardware[chip], opts);
    }""", [unpadded, "b200", cases[0]])
    pad = 92 * 896 * 3 * 3584 * 1024 * 4.25 / 8 / 16
    assert _close(got[0]["memory_per_chip_bytes"] - plain["memory_per_chip_bytes"], pad, 1e-9)


def test_serving_errors_agree_with_python(page):
    """What estimate() refuses, the page refuses: a tp that splits a head, a pipeline longer
    than the model, experts split on a dense model, an implausible price."""
    from llm_arithmetic.core.errors import InputError

    bad = [("llama-3-8b", dict(tp=3)), ("llama-3-8b", dict(tp=64)), ("gpt2", dict(pp=13)),
           ("llama-3-8b", dict(ep=2, tp=2)), ("mixtral-8x7b", dict(ep=16, tp=16)),
           ("llama-3-8b", dict(price_per_hour=1e5)), ("llama-3-8b", dict(generate=-1)),
           # images: a model without a tower, one whose tower's rule is not modelled, no
           # images, a size the page's menu does not offer (Python's limit: 65,536 px a side)
           ("llama-3-8b", dict(images=1)), ("kimi-vl-a3b-instruct", dict(images=1)),
           ("gemma-3-4b", dict(images=0)), ("gemma-3-4b", dict(images=1, image_size=(1, 1 << 17))),
           # a video or audio for a model that takes none (Gemma 3's and 3n's towers: no video rule)
           ("llama-3-8b", dict(video_seconds=10)), ("gemma-3-4b", dict(video_seconds=10)),
           ("qwen2.5-vl-3b-instruct", dict(audio_seconds=10)),
           ("gemma-3n-e2b", dict(video_seconds=10))]
    # a tp whose split of the vision tower vLLM refuses (estimate.vision_degrees), with
    # images: the page gives Python's words (export.images_tp_refused), at degrees of the menu
    # and one the layers allow outside it (Qwen3.5 27B's 24 heads at tp 12; its tower's 16)
    worded = [("glm-4.5v", dict(tp=8, prompt=100, generate=10, images=1)),
              ("qwen3.5-397b-a17b", dict(tp=32, images=2, image_size=(1920, 1080))),
              ("qwen3.5-27b", dict(tp=12, images=1, image_size=(512, 512))),
              # a video meets the tower's refusal; audio the audio encoder's (Qwen3-Omni's 20
              # heads at tp 8, export.audio_tp_refused), after the tower's where both are asked
              ("qwen3.5-27b", dict(tp=12, video_seconds=60)),
              ("qwen3-omni-30b-a3b-instruct", dict(tp=8, prompt=100, audio_seconds=30)),
              ("qwen3-omni-30b-a3b-instruct", dict(tp=8, images=1, audio_seconds=600)),
              # Llama 3.2 Vision: tp 16 splits its tower's 16 heads, not its cross-attention
              # layers' 8 key/value heads (media.cross_inputs); tp 32 not the tower's heads
              ("llama-3.2-11b-vision-instruct", dict(tp=16, images=4, image_size=(512, 512))),
              ("llama-3.2-90b-vision-instruct", dict(tp=16, prompt=10, images=1)),
              ("llama-3.2-90b-vision-instruct", dict(tp=32, images=1))]
    got = page.evaluate(SERVING_QUERY, [[n, "h100-sxm", kw] for n, kw in bad + worded])
    for (name, kw), g in zip(bad + worded, got):
        with pytest.raises(InputError) as said:
            estimate(name, hardware="h100-sxm", **kw)
        assert "error" in g, (name, kw, g)
        if (name, kw) in worded:
            assert any(w in str(said.value) for w in ("vision tower", "audio encoder",
                                                      "cross-attention layers")) \
                and g["error"] == str(said.value), (
                name, kw, g["error"], str(said.value))


def test_direct_allreduce_on_a_torus_is_refused_in_the_page_too(page):
    """Direct all-reduces need chips that all reach one another: a TPU's torus is refused by
    both; on MI300X's full mesh both use them."""
    from llm_arithmetic.core.errors import InputError

    kw = dict(tp=8, allreduce="direct", prompt=2048, generate=256)
    got = page.evaluate(SERVING_QUERY, [["llama-3-70b", "tpu-v5e", kw],
                                        ["llama-3-70b", "mi300x", kw]])
    with pytest.raises(InputError, match="allreduce"):
        estimate("llama-3-70b", hardware="tpu-v5e", **kw)
    assert "allreduce" in got[0]["error"]
    e = estimate("llama-3-70b", hardware="mi300x", **kw)
    assert e.allreduce_algorithm == "direct"
    assert _close(got[1]["allreduce_seconds_per_token"], e.allreduce_seconds_per_token, 1e-9)


def test_frontier_in_the_page_equals_python(page):
    from llm_arithmetic.sweeps import frontier

    for name, chip, kw in (
            ("llama-3-70b", "h100-sxm", dict(weights="fp8", tp=8, prompt=2048, generate=256,
                                             price_per_hour=2.5)),
            ("mixtral-8x7b", "mi300x", dict(weights="fp16", tp=2, ep=2, prompt=1000,
                                            generate=100)),
            ("qwen3-8b", "rtx-4090", dict(weights="q4_0", prompt=8192, generate=512))):
        got = page.evaluate("""([name, chip, opts]) => { const L = window.LLMArithmetic;
            return L.frontier(L.catalog.models[name], L.catalog.hardware[chip], opts); }""",
                            [name, chip, kw])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ContextWarning)
            want = frontier(name, hardware=chip, **kw)
        assert [p["batch"] for p in got] == [p["batch"] for p in want], name
        assert want[-1]["fits"] is False and len(want) > 3  # the curve ends where memory does
        for g, w in zip(got, want):
            assert g["fits"] == w["fits"], (name, g["batch"])
            for k in ("tokens_per_second_per_user", "tokens_per_second_per_chip",
                      "tpot_seconds", "memory_per_chip_bytes", "cost_per_million_tokens",
                      "energy_joules_per_token"):
                if w[k] is None:
                    assert g[k] is None, (name, k)
                else:
                    assert _close(g[k], float(w[k]), 1e-9), (name, g["batch"], k, g[k], w[k])


def test_the_serving_widget_follows_its_controls(page):
    """The `serving` widget (chapter 12 embeds it with its own settings; this one starts from
    the widget's defaults) and an `estimate` widget given the serving outputs: their numbers
    and frontier are Python's at the start and after each control moves; a draft, the images',
    video's and audio's controls, the custom model's fallbacks, and the numbers at 390 px."""
    from test_browser_widgets import READ_WIDGET, check_widget, move_control, moves_for

    page.set_viewport_size({"width": 800, "height": 900})
    mount(page, """<div data-llm-widget="serving"></div>
        <div data-llm-widget="estimate" data-model="mixtral-8x7b" data-chip="h200"
          data-tp="4" data-prompt="4096" data-generate="512" data-batch="32" data-price="3"
          data-controls="model,chip,tp,prompt,generate,batch,price"
          data-show="ttft_seconds,tpot_seconds,request_seconds,tokens_per_second_per_user,
                     tokens_per_second_per_chip,cost_per_million_tokens,
                     energy_joules_per_token,allreduce_seconds_per_token,serving_context,
                     n_chips,link_bandwidth,memory_per_chip_bytes,fits_per_chip,
                     max_batch_per_replica" data-plots="frontier"></div>""")
    problems = []
    for name in ("serving", "estimate"):
        el = page.locator(f'[data-llm-widget="{name}"]')
        r = el.evaluate(READ_WIDGET)
        assert {p["view"] for p in r["points"]} == {"frontier"}
        assert "frontier" in r["curves"]
        problems += check_widget(r, f"{name} (start)")
        controls = el.evaluate("(el) => [...el.querySelectorAll('[data-control]')]"
                               ".map((c) => c.dataset.control)")
        assert {"tp", "prompt", "prompt-slider", "generate", "batch", "price"} <= set(controls)
        if name == "serving":   # the forecast's band beside the bound, and its controls
            assert "forecast-band" in r["curves"] and len(r["curves"]["forecast-band"]) > 3
            assert {"runtime", "speculation", "draft", "acceptance", "draft_cost"} <= set(
                controls)
            assert {o["key"] for o in r["outputs"] if o["low"] is not None} == {
                "expected_ttft_seconds", "expected_tpot_seconds",
                "expected_tokens_per_second_per_chip"}
        for move in moves_for(set(controls)):
            before = r["state"]
            move_control(page, el, move)
            r = el.evaluate(READ_WIDGET)
            key = move[0].removesuffix("-slider")
            changed = {k for k in r["state"] if r["state"][k] != before.get(k)}
            if key not in changed and not (move[1] == "custom" and f"custom_{key}" in changed):
                problems.append(f"{name}: {move} did not change the state's {key}")
            problems += check_widget(r, f"{name} after {move[:2]}")
            if move[0] == "speculation" and str((move[2] or [""])[0]).startswith("draft:"):
                # a draft of step time 0.05, 2 drafted at acceptance 0.6, then a draft model
                # of the target's vocabulary (Mistral 7B for Mixtral 8x7B) at those
                drafted = {k: r["state"][k] for k in ("speculation", "draft_model", "draft",
                                                      "acceptance", "draft_cost")}
                assert drafted == dict(speculation="draft", draft_model="mistral-7b", draft=2,
                                       acceptance=0.6, draft_cost=None), drafted
    moved = page.locator('[data-llm-widget="serving"]').evaluate(
        "(el) => JSON.parse(el.dataset.state)")
    assert moved["prompt"] == 3000 and moved["generate"] == 100 and moved["price"] == 3.5
    # the custom model, moved last, has 50,000 token ids, which no catalog model's vocabulary
    # is within 128 of (GPT-2's 50,257 the nearest): its draft falls to none; any runtime
    assert (moved["speculation"], moved["draft_model"], moved["runtime"]) == (None, None, None)
    # images: the two controls are hidden for a model that takes none (the custom one), shown
    # for Qwen2.5-VL; two images of 1920 x 1080 px join its prompt and its TTFT, then Llama
    # 4 Scout's tiles; a model without a tower again hides them and drops the images
    el = page.locator('[data-llm-widget="serving"]')
    shown = "(el) => ['images', 'image_size'].map((c) => el.querySelector(" \
        "`[data-control=\"${c}\"]`).offsetParent !== null)"
    assert el.evaluate(shown) == [False, False]
    for move in (("model", "select", ["qwen2.5-vl-3b-instruct"]), ("images", "select", ["2"]),
                 ("image_size", "select", ["1920x1080"]), ("model", "select", ["llama-4-scout"])):
        move_control(page, el, move)
        r = el.evaluate(READ_WIDGET)
        problems += check_widget(r, f"serving after {move[:3]}")
        assert el.evaluate(shown) == [True, True]
    assert (r["state"]["images"], r["state"]["image_size"]) == (2, "1920x1080")
    rows = {o["key"]: o["value"] for o in r["outputs"]}
    assert float(rows["image_tokens"]) == 2 * 2304 and float(rows["vision_prefill_seconds"]) > 0
    # GLM-4.5V with its two images at tp 8, which its tower's 12 heads refuse: the widget says
    # Python's refusal where it says the others, and shows no number; back at tp 1 it counts
    assert r["state"]["tp"] == 1
    for move in (("model", "select", ["glm-4.5v"]), ("tp", "select", ["8"])):
        move_control(page, el, move)
    r = el.evaluate(READ_WIDGET)
    with pytest.raises(InputError) as said:  # the chip is not in the words
        estimate("glm-4.5v", hardware="h200", tp=8, images=2, image_size=(1920, 1080))
    assert (r["state"]["tp"], r["state"]["images"], r["message"]) == (8, 2, str(said.value))
    assert [o["value"] for o in r["outputs"] if o["key"] == "ttft_seconds"] == [""]
    move_control(page, el, ("tp", "select", ["1"]))
    problems += check_widget(el.evaluate(READ_WIDGET), "serving, glm-4.5v back at tp 1")
    move_control(page, el, ("model", "select", ["llama-3-70b"]))
    r = el.evaluate(READ_WIDGET)
    assert el.evaluate(shown) == [False, False] and r["state"]["images"] == 0
    assert el.evaluate("(el) => el.querySelector('[data-key=\"image_tokens\"]')"
                       ".closest('.lla-number').hidden")
    # a video and audio: each select shows only for a model that takes it; Qwen3.5's five
    # minutes join its prompt and its TTFT (the tower's row shown without images); Gemma 3n
    # (audio, no video) hides the video and drops it; Qwen3-Omni shows both, and its audio at
    # tp 8 gets Python's refusal (its encoder's 20 heads); Qwen2.5-Omni's ten minutes show
    # Python's warning of the clip cut at 300 s
    media = "(el) => ['video', 'audio'].map((c) => el.querySelector(" \
        "`[data-control=\"${c}\"]`).offsetParent !== null)"
    hidden = "(el, k) => el.querySelector(`[data-key=\"${k}\"]`).closest('.lla-number').hidden"
    assert el.evaluate(media) == [False, False]
    for move, shows in ((("model", "select", ["qwen3.5-27b"]), [True, False]),
                        (("video", "select", ["300"]), [True, False]),
                        (("model", "select", ["gemma-3n-e2b"]), [False, True]),
                        (("model", "select", ["qwen3-omni-30b-a3b-instruct"]), [True, True]),
                        (("audio", "select", ["120"]), [True, True])):
        move_control(page, el, move)
        r = el.evaluate(READ_WIDGET)
        problems += check_widget(r, f"serving after {move[:3]}")
        assert el.evaluate(media) == shows, move
        if move[0] == "video":
            assert r["state"]["video"] == 300 and r["state"]["images"] == 0
            assert [el.evaluate(hidden, k) for k in ("video_tokens", "vision_prefill_seconds",
                                                     "image_tokens")] == [False, False, True]
    assert (r["state"]["video"], r["state"]["audio"]) == (0, 120)
    assert not el.evaluate(hidden, "audio_prefill_seconds")
    move_control(page, el, ("tp", "select", ["8"]))
    r = el.evaluate(READ_WIDGET)
    with pytest.raises(InputError) as said:
        estimate("qwen3-omni-30b-a3b-instruct", hardware="h200", tp=8, audio_seconds=120)
    assert (r["state"]["tp"], r["message"]) == (8, str(said.value))
    move_control(page, el, ("tp", "select", ["1"]))
    for move in (("model", "select", ["qwen2.5-omni-7b"]), ("audio", "select", ["600"])):
        move_control(page, el, move)
    r = el.evaluate(READ_WIDGET)
    with pytest.warns(ContextWarning) as cut:
        estimate("qwen2.5-omni-7b", hardware="h200", audio_seconds=600)
    assert str(cut[0].message) in r["message"] and r["state"]["audio"] == 600
    problems += check_widget(r, "serving, qwen2.5-omni-7b with ten minutes of audio")
    move_control(page, el, ("model", "select", ["qwen2.5-vl-3b-instruct"]))
    move_control(page, el, ("images", "select", ["1"]))
    page.set_viewport_size({"width": 390, "height": 844})
    el = page.locator('[data-llm-widget="serving"]')
    page.wait_for_timeout(200)
    problems += check_widget(el.evaluate(READ_WIDGET), "serving at 390 px")
    wide = el.evaluate("""(el) => { const box = el.getBoundingClientRect();
      return [...el.querySelectorAll('*')].filter((n) => { const r = n.getBoundingClientRect();
        return r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1); })
        .map((n) => n.tagName + '.' + n.getAttribute('class')); }""")
    assert not wide, wide
    # by keyboard: Tab reaches every control in order, an arrow key moves a slider
    controls = el.evaluate("""(el) => [...el.querySelectorAll('select, input')]
      .filter((c) => c.offsetParent !== null).map((c) => c.dataset.control)""")
    el.locator("select").first.focus()
    reached = []
    for _ in controls:
        reached.append(page.evaluate("() => document.activeElement.dataset.control"))
        page.keyboard.press("Tab")
    assert reached == controls
    el.locator('[data-control="prompt-slider"]').focus()
    page.keyboard.press("ArrowRight")
    r = el.evaluate(READ_WIDGET)
    assert r["state"]["prompt"] > 3000
    problems += check_widget(r, "serving after ArrowRight on the prompt")
    assert not problems, "\n".join(problems[:15])
    assert not page.errors, page.errors


SPECULATIVE_FIELDS = ("spec_tokens_per_step", "speculative_seconds_per_token",
                      "speculative_tokens_per_second", "speculative_tpot_seconds",
                      "speculative_tokens_per_second_per_chip", "speculative_request_seconds",
                      "speculative_cost_per_million_tokens",
                      "speculative_energy_joules_per_token")


def test_the_serving_widget_takes_llama_3_2_visions_images(page):
    """Llama 3.2 Vision's images (read through cross-attention layers: their states cached,
    their weights read by every token) in the serving widget, 11B then 90B, at 1 and 4 images
    of one tile (512 x 512 px) and of four (1920 x 1080): the bound rows (TTFT, TPOT, tokens/s,
    memory per chip) are Python's to the digits shown after each move; tp 16, which the cross
    layers' 8 key/value heads refuse, gets Python's refusal and no number."""
    from test_browser_widgets import READ_WIDGET, check_widget, move_control

    mount(page, """<div data-llm-widget="serving" data-model="llama-3.2-11b-vision-instruct"
      data-chip="h200" data-weights="fp8" data-prompt="500" data-generate="200" data-batch="8"
      data-images="1" data-image_size="512x512" data-plots=""
      data-show="ttft_seconds,tpot_seconds,tokens_per_second_per_user,
                 tokens_per_second_per_chip,memory_per_chip_bytes,fits_per_chip,
                 image_tokens,vision_prefill_seconds"></div>""")
    el = page.locator('[data-llm-widget="serving"]')
    r = el.evaluate(READ_WIDGET)
    problems = check_widget(r, "llama 3.2 11b vision (start)")
    states = [(r["state"]["model"], r["state"]["images"], r["state"]["image_size"])]
    for move in (("images", "select", ["4"]), ("image_size", "select", ["1920x1080"]),
                 ("images", "select", ["1"]),
                 ("model", "select", ["llama-3.2-90b-vision-instruct"]),
                 ("images", "select", ["4"]), ("image_size", "select", ["512x512"]),
                 ("tp", "select", ["8"])):
        move_control(page, el, move)
        r = el.evaluate(READ_WIDGET)
        problems += check_widget(r, f"serving after {move[:3]}")
        states.append((r["state"]["model"], r["state"]["images"], r["state"]["image_size"]))
    assert not problems, "\n".join(problems[:10])
    shown = {o["key"] for o in r["outputs"] if o["value"] != ""}
    assert {"ttft_seconds", "tpot_seconds", "tokens_per_second_per_chip",
            "memory_per_chip_bytes"} <= shown, shown
    small, large = "llama-3.2-11b-vision-instruct", "llama-3.2-90b-vision-instruct"
    assert states == [(small, 1, "512x512"), (small, 4, "512x512"), (small, 4, "1920x1080"),
                      (small, 1, "1920x1080"), (large, 1, "1920x1080"),
                      (large, 4, "1920x1080"), (large, 4, "512x512"), (large, 4, "512x512")]
    move_control(page, el, ("tp", "select", ["16"]))
    r = el.evaluate(READ_WIDGET)
    with pytest.raises(InputError) as said:
        estimate(large, hardware="h200", weights="fp8", tp=16, images=4,
                 image_size=(512, 512))
    assert (r["state"]["tp"], r["message"]) == (16, str(said.value))
    assert [o["value"] for o in r["outputs"] if o["key"] == "ttft_seconds"] == [""]


def test_speculative_estimate_in_the_page_equals_python(page):
    """Speculative decoding's steps (plan.steps.SPECULATIVE_STEPS) in the page equal Python's:
    memory- and compute-bound verify steps, one chip and a replica; bad inputs refused by
    both."""
    from llm_arithmetic.core.errors import InputError

    cases = [(n, c, dict(draft_len=k, acceptance=a, draft_cost=cd, batch=b, context=512,
                         prompt=512, generate=64, price_per_hour=2.0, tp=tp))
             for n, c, tp in (("llama-3-8b", "h100-sxm", 1), ("qwen3-8b", "a100-80gb-sxm", 2),
                              ("mixtral-8x7b", "h200", 4), ("mistral-7b", "rtx-4090", 1))
             for k, a, cd, b in ((1, 0.85, 0.0, 1), (4, 0.8, 0.05, 1), (8, 0.6, 0.02, 512))]
    cases.append(("llama-3-8b", "h100-sxm", dict(context=512)))   # no speculation: all null
    got = page.evaluate(SERVING_QUERY, [[n, c, kw] for n, c, kw in cases])
    failures = []
    for (name, chip, kw), g in zip(cases, got):
        assert "error" not in g, (name, kw, g)
        _compare((name, chip, tuple(kw.values())), g, estimate(name, hardware=chip, **kw),
                 SPECULATIVE_FIELDS, failures)
    assert not failures, "\n".join(failures[:10])
    bad = [dict(draft_len=4), dict(draft_len=4, acceptance=1.0), dict(acceptance=0.5),
           dict(draft_len=4, acceptance=0.5, draft_cost=-1)]
    got = page.evaluate(SERVING_QUERY, [["llama-3-8b", "h100-sxm", kw] for kw in bad])
    for kw, g in zip(bad, got):
        with pytest.raises(InputError):
            estimate("llama-3-8b", hardware="h100-sxm", **kw)
        assert "error" in g, (kw, g)


def test_indexer_copies_and_shared_tables_in_the_page_equal_python(page):
    """The page's serving bounds count what Python's count (tests/test_indexer_tp.py,
    tests/test_draft_memory.py): an indexer's heads as each chip computes them (MiniMax-M3 at tp
    8 and 16, one head a chip; DeepSeek-V3.2 at tp 8, the indexer on every chip) and an MTP
    module without its copies of the model's embedding table and head, its own embedding held
    over two pipeline stages. Prompts long enough for the indexer to matter; fp8 caches, so
    that attention's products take their own rate (the held FLOPs' effective peak)."""
    serving = dict(context=32768, prompt=32768, generate=256, batch=4, bits_kv="fp8")
    cases = [("minimax-m3", "h200", dict(tp=8, **serving)),
             ("minimax-m3", "b200", dict(tp=16, **serving)),
             ("deepseek-v3.2", "h200", dict(tp=8, **serving)),
             ("deepseek-v3", "h200", dict(tp=8, speculation="mtp", **serving)),
             ("deepseek-v3", "h200", dict(tp=8, pp=2, speculation="mtp", **serving))]
    got = page.evaluate(SERVING_QUERY, [[n, c, kw] for n, c, kw in cases])
    failures = []
    for (name, chip, kw), g in zip(cases, got):
        assert "error" not in g, (name, kw, g)
        _compare((name, chip, tuple(kw.values())), g, estimate(name, hardware=chip, **kw),
                 SERVING_NUMERIC + ["draft_memory_bytes"], failures)
    assert not failures, "\n".join(failures[:10])


def test_tensor_parallel_copies_in_the_page_equal_python(page):
    """The page's serving bounds count the weights a tensor-parallel group copies as Python's do
    (tests/test_tp_copies.py): Llama 3.1 70B at tp 16 (its 8 KV heads copied to 16 chips),
    DeepSeek-V3 at tp 8 (latent down-projections, routers, norms), Qwen3-235B-A22B at tp 8 (its
    4 KV heads, routers), and the per-chip and replica weights."""
    serving = dict(context=8192, prompt=8192, generate=256, batch=8)
    cases = [("llama-3.1-70b", "h200", dict(tp=16, **serving)),
             ("deepseek-v3", "h200", dict(tp=8, **serving)),
             ("qwen3-235b-a22b", "h100-sxm", dict(tp=8, weights="fp8", **serving)),
             # copies priced class by class as shipped: fp8 KV heads past one a chip
             # (MiniMax-M2.5 at tp 16), an indexer's matrices (DeepSeek-V3.2), an index key
             # (MiniMax-M3); row-parallel and expert biases (gpt-oss-120b); whole-projection
             # q/k norms (OLMo 2 7B)
             ("minimax-m2.5", "h200", dict(tp=16, **serving)),
             ("deepseek-v3.2", "h200", dict(tp=8, **serving)),
             ("minimax-m3", "h200", dict(tp=8, **serving)),
             ("gpt-oss-120b", "h100-sxm", dict(tp=8, **serving)),
             ("olmo-2-7b", "h100-sxm", dict(tp=8, **serving)),
             # DeepSeek-V4's compressed attention and fp32 hyper-connection mixers
             ("deepseek-v4-flash", "h200", dict(tp=8, **serving)),
             # a draft model split and copied as the target is: Qwen3 0.6B's 8 KV heads
             # copied to 16 chips (tests/test_tp_copies.py)
             ("qwen3-32b", "h200", dict(tp=16, draft="qwen3-0.6b", draft_len=4,
                                        acceptance=0.7, **serving))]
    got = page.evaluate(SERVING_QUERY, [[n, c, kw] for n, c, kw in cases])
    failures = []
    for (name, chip, kw), g in zip(cases, got):
        assert "error" not in g, (name, kw, g)
        _compare((name, chip, tuple(kw.values())), g, estimate(name, hardware=chip, **kw),
                 SERVING_NUMERIC + ["weight_bytes_held", "weight_bytes_per_chip",
                                    "draft_memory_bytes"], failures)
    assert not failures, "\n".join(failures[:10])


def test_the_page_refuses_mamba_groups_tp_does_not_split(page):
    """As layout.parallel_degrees does (vLLM's MambaMixer2): Nemotron-H 56B's 8 groups at
    tp 16 are refused by name; at tp 8 they are split."""
    got = page.evaluate(SERVING_QUERY, [["nemotron-h-56b", "h200", dict(tp=t, context=4096)]
                                        for t in (16, 8)])
    assert "does not divide the 8 B/C groups" in got[0]["error"]
    assert "error" not in got[1]


RECORD_QUERY = """
([m, chip, cases]) => cases.map((opts) => {
  const L = window.LLMArithmetic;
  try {
    return L.estimate(m, L.catalog.hardware[chip], opts);
  } catch (err) {
    return {error: String(err.message || err)};
  }
})
"""


@pytest.mark.parametrize("name, tps", [("minimax-m1-80k", (8, 16)),
                                       ("phi-4-mini-flash-reasoning", (2, 40))])
def test_the_page_splits_and_copies_the_new_mixers_as_python_does(page, name, tps):
    """MiniMax-M1 (lightning attention) and Phi-4-mini-flash (Mamba-1, gated memory units,
    differential attention) read from their vendored files, at tp: the page's weights on the
    replica and a chip, memory per chip and the serving bounds equal Python's
    (tests/test_tp_copies.py counts the copies and the state by hand); a width tp does not
    divide is refused by name, as layout.parallel_degrees does."""
    import dataclasses

    from llm_arithmetic.catalog.model_catalog import CatalogEntry
    from llm_arithmetic.catalog.readers import read_config

    m = read_config(Path(__file__).parent / "configs" / f"{name}.json")
    record = export.model_data(CatalogEntry(model=m, url=""))
    serving = dict(context=4096, prompt=2048, generate=256, batch=4)
    got = page.evaluate(RECORD_QUERY, [record, "h200", [dict(tp=t, **serving) for t in tps]])
    failures = []
    for tp, g in zip(tps, got):
        assert "error" not in g, (name, tp, g)
        _compare((name, tp), g, estimate(m, hardware="h200", tp=tp, **serving),
                 SERVING_NUMERIC + ["weight_bytes_held", "weight_bytes_per_chip"], failures)
    assert not failures, "\n".join(failures[:10])
    for field, width, tp, what in (
            [("la_heads", 48, 32, "heads")] if name.startswith("minimax")
            else [("memory_width", 5100, 40, "channels"), ("d_inner", 5100, 40, "inner")]):
        bad = dataclasses.replace(m, layers=tuple(
            dataclasses.replace(r, mixer=dataclasses.replace(r.mixer, **{field: width}))
            if hasattr(r.mixer, field) else r for r in m.layers))
        got = page.evaluate(RECORD_QUERY, [export.model_data(CatalogEntry(model=bad, url="")),
                                           "h200", [dict(tp=tp, context=4096)]])
        assert f"tp = {tp} does not divide the {width} {what}" in got[0]["error"]
        with pytest.raises(InputError, match=f"tp = {tp} does not divide the {width} {what}"):
            estimate(bad, hardware="h200", tp=tp, context=4096)


SPECULATION_KEYS = ("draft_len", "acceptance", "draft_cost", "draft_layers", "draft_memory_bytes",
                    "memory_required_bytes", "memory_per_chip_bytes", "max_batch",
                    "max_batch_per_replica", "max_context", "fits_without_draft",
                    "fits_per_chip_without_draft") + SPECULATIVE_FIELDS


def test_the_drafts_describe_offers_in_the_page_equal_python(page):
    """The drafts of describe in the page (estimate.speculative_inputs): the model's MTP module
    (``speculation="mtp"``: the workload's draft length and acceptance, the module's draft
    steps, weights and cache, as exported by export.speculation_data), a draft given by its step
    time, and a draft model of the catalog (its bound over the target's on one chip, its weights
    and cache held beside the target's); the same refusals as Python."""
    from llm_arithmetic.core.errors import InputError

    serving = dict(prompt=2048, generate=256, batch=64)
    cases = [("deepseek-v3", "h200", dict(tp=8, speculation="mtp", **serving)),
             ("deepseek-v3", "h200", dict(tp=8, speculation="mtp", draft_len=3, acceptance=0.9,
                                          **serving)),
             ("deepseek-v3", "h200", dict(speculation="mtp", context=4096, batch=8)),
             ("deepseek-v3", "h200", dict(tp=8, speculation="mtp", draft_cost=0.1, **serving)),
             ("nemotron-3-super", "b200", dict(tp=4, speculation="mtp", **serving)),
             ("qwen3.5-27b", "h100-sxm", dict(tp=2, weights="fp8", speculation="mtp",
                                               **serving)),
             ("llama-3-70b", "h100-sxm", dict(tp=8, weights="fp8", draft_len=4, acceptance=0.8,
                                              draft_cost=0.05, **serving)),
             ("llama-3-70b", "h100-sxm", dict(tp=8, weights="fp16", draft="llama-3.2-1b",
                                              draft_len=4, acceptance=0.8, **serving)),
             ("qwen3-8b", "h100-sxm", dict(weights="fp16", draft="qwen3-0.6b", draft_len=4,
                                           acceptance=0.8, context=512, batch=4)),
             ("qwen3-8b", "h100-sxm", dict(weights="q4_0", bits_kv=8, draft="qwen3-0.6b",
                                           draft_len=4, acceptance=0.8, prompt=1000,
                                           generate=200)),
             ("gemma-3-27b", "h100-sxm", dict(tp=4, draft="gemma-3-1b", draft_len=4,
                                              acceptance=0.8, **serving)),
             # the module's step compute-bound, its cost its own roofline time: a 16-bit cache
             # (attention at its own rate), and an 8-bit one (one rate for every product)
             ("deepseek-v3", "h200", dict(speculation="mtp", context=1024, batch=8192)),
             ("deepseek-v3", "h200", dict(speculation="mtp", weights="fp8", bits_kv=8,
                                          context=1024, batch=2048))]
    got = page.evaluate(SERVING_QUERY, [[n, c, kw] for n, c, kw in cases])
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWarning)
        for (name, chip, kw), g in zip(cases, got):
            assert "error" not in g, (name, kw, g)
            e = estimate(name, hardware=chip, **kw)
            _compare((name, chip, tuple(kw.items())), g, e, SPECULATION_KEYS, failures)
            if g["fits_per_chip"] != e.fits_per_chip:
                failures.append(f"{name} {kw} fits_per_chip: page {g['fits_per_chip']}")
    assert not failures, "\n".join(failures[:10])
    # DeepSeek-V3's MTP module, as its config declares it (num_nextn_predict_layers: 1 module,
    # one block beside num_hidden_layers: 61): one draft step runs its one block, and costs
    # its roofline time (its projection, block and the output head) over a plain step's,
    # more than a block of the 61; what it holds counts in the memory per chip
    config = json.loads((REPO / "lib/llm_arithmetic/catalog/data/models/deepseek-v3/"
                         "config.json").read_text())
    assert (config["num_nextn_predict_layers"], config["num_hidden_layers"]) == (1, 61)
    mtp = got[0]
    assert (mtp["draft_len"], mtp["acceptance"], mtp["draft_layers"]) == (1, 0.85, 1)
    assert 1 / 61 < mtp["draft_cost"] < 0.05
    assert got[4]["draft_layers"] == 2  # Nemotron 3 Super's module: "*E", two layers
    plain = page.evaluate(SERVING_QUERY, [["deepseek-v3", "h200", dict(tp=8, **serving)]])[0]
    assert mtp["memory_per_chip_bytes"] > plain["memory_per_chip_bytes"]
    # its 13,463,426,304 parameters less the copies of the embedding table and head that the
    # engine shares with the model (2 x 129,280 x 7,168), a byte or more each, and its cache;
    # no draft held: null, as Python's None and the engine view's draft keys
    held = 13_463_426_304 - 2 * 129_280 * 7168
    assert mtp["draft_memory_bytes"] > held and plain["draft_memory_bytes"] is None
    # a draft given by its step time holds nothing counted
    assert got[6]["draft_memory_bytes"] is None and got[6]["draft_cost"] == 0.05
    # modules the reader does not count (MiniMax-M2.5's 3 and MiniMax-M3's 7, field
    # num_mtp_modules): the page refuses the workload with Python's words, naming the field
    # (it said the model declared none); a model without a module: the fields that would
    # declare one
    kw = dict(tp=4, speculation="mtp", **serving)
    for name, declared in (("minimax-m2.5", 3), ("minimax-m3", 7)):
        g = page.evaluate(SERVING_QUERY, [[name, "h200", kw]])[0]
        with pytest.raises(InputError) as err:
            estimate(name, hardware="h200", **kw)
        assert g.get("error") == str(err.value), g
        assert f"the {declared} that {name}'s config.json declares (field 'num_mtp_modules')" \
            in g["error"]
    g = page.evaluate(SERVING_QUERY, [["llama-3-8b", "h200", kw]])[0]
    assert "llama-3-8b declares none (config.json: num_nextn_predict_layers, " \
        "mtp_num_hidden_layers, num_mtp_modules)" in g.get("error", ""), g
    bad = [("llama-3-8b", "h100-sxm", dict(speculation="mtp")),      # no module
           ("deepseek-v3", "h200", dict(speculation="eagle")),       # no such workload
           ("qwen3-8b", "h100-sxm", dict(draft="qwen3-0.6b", draft_len=2, acceptance=0.5,
                                         draft_cost=0.1)),           # both
           ("qwen3-8b", "h100-sxm", dict(draft="qwen3-0.6b", acceptance=0.5)),  # no length
           ("deepseek-v3", "h200", dict(speculation="mtp", acceptance=1.0)),
           # Gemma 3 1B's 4 heads over the 8 chips the target's 32 split over
           ("gemma-3-27b", "h100-sxm", dict(tp=8, draft="gemma-3-1b", draft_len=4,
                                            acceptance=0.8, **serving))]
    got = page.evaluate(SERVING_QUERY, [[n, c, kw] for n, c, kw in bad])
    for (name, chip, kw), g in zip(bad, got):
        with pytest.raises(InputError):
            estimate(name, hardware=chip, **kw)
        assert "error" in g, (name, kw, g)
    # a draft model's cost needs a chip or a bandwidth, in both
    g = page.evaluate("""() => { const L = window.LLMArithmetic; try {
        L.estimate(L.catalog.models["qwen3-8b"], null, {draft: "qwen3-0.6b", draft_len: 2,
          acceptance: 0.5}); return "no error"; } catch (err) { return err.message; } }""")
    with pytest.raises(InputError, match="needs a chip or a bandwidth"):
        estimate("qwen3-8b", draft="qwen3-0.6b", draft_len=2, acceptance=0.5)
    assert "needs a chip or a bandwidth" in g


def test_the_page_checks_a_draft_and_blames_it_as_describe_does(page):
    """The page's estimate refuses a draft of another vocabulary with Python's words (Llama 3.2
    1B's 128,256 ids against Qwen3 8B's 151,936, their config.json files), and where only the
    draft makes a setup not fit (Qwen3 8B with Qwen3 4B on a 24 GiB RTX 4090 at 8,192 tokens:
    16.4 + 1.2 GB for the target, 8.0 + 1.2 for the draft; test_draft_checks.py) it says so,
    as describe does, in its speeds and its fit row."""
    from llm_arithmetic.core.errors import InputError
    from test_browser_widgets import READ_WIDGET

    bad = dict(draft="llama-3.2-1b", draft_len=4, acceptance=0.8)
    g = page.evaluate(SERVING_QUERY, [["qwen3-8b", "h100-sxm", bad]])[0]
    with pytest.raises(InputError) as err:
        estimate("qwen3-8b", hardware="h100-sxm", **bad)
    assert g.get("error") == str(err.value), g
    kw = dict(draft="qwen3-4b", draft_len=4, acceptance=0.8, context=8192)
    g = page.evaluate(SERVING_QUERY, [["qwen3-8b", "rtx-4090", kw]])[0]
    e = estimate("qwen3-8b", hardware="rtx-4090", **kw)
    assert (g["fits"], g["fits_without_draft"]) == (e.fits, e.fits_without_draft) == (False, True)
    mount(page, """<div data-llm-widget="estimate" data-model="qwen3-8b" data-chip="rtx-4090"
        data-context="8192" data-speculation="qwen3-4b"
        data-show="decode_tokens_per_second,speculative_tokens_per_second,fits"></div>""")
    r = page.locator('[data-llm-widget="estimate"]').evaluate(READ_WIDGET)
    assert r["state"]["draft_model"] == "qwen3-4b", r["state"]
    text = {o["key"]: o["text"] for o in r["outputs"]}
    for key in ("decode_tokens_per_second", "speculative_tokens_per_second"):
        assert text[key] == "does not fit in memory with the draft; fits without it", text
    assert text["fits"] == "no: with the draft; yes without it", text
    assert not page.errors, page.errors


def test_the_serving_widget_offers_the_drafts_describe_offers(page):
    """The serving widget's speculative decoding, a choice of draft as describe's: DeepSeek-V3
    on 8 H200s with its own MTP module (the draft length and acceptance the CLI takes, 1 and
    0.85, then an acceptance typed; its draft steps and memory charged), a draft given by its
    step time, a draft model of the catalog: each time the widget's numbers are
    llm_arithmetic.estimate's for the same choice. A model without a module is not offered
    one, and a widget may start with it (data-speculation)."""
    from test_browser_widgets import READ_WIDGET, check_widget, move_control

    page.set_viewport_size({"width": 800, "height": 900})
    mount(page, """<div data-llm-widget="serving" data-model="deepseek-v3"
          data-chip="h200" data-tp="8" data-batch="64"></div>
        <div data-llm-widget="estimate" data-model="deepseek-v3" data-chip="h200"
          data-speculation="mtp"></div>""")
    el = page.locator('[data-llm-widget="serving"]')
    offered = lambda: el.evaluate("""(el) => [...el.querySelector(  // noqa: E731
      '[data-control="speculation"]').options].map((o) => o.value)""")
    visible = lambda: el.evaluate("""(el) => [...el.querySelectorAll(  // noqa: E731
      '[data-control]')].filter((c) => c.offsetParent !== null).map((c) => c.dataset.control)""")
    value = lambda r, k: next(o for o in r["outputs"] if o["key"] == k)  # noqa: E731
    # Qwen3 0.6B's 151,936-id vocabulary cannot be DeepSeek-V3's 129,280 (their config.json
    # files): not offered (estimate.check_draft refuses it)
    assert offered()[:3] == ["", "mtp", "cost"] and "draft:qwen3-0.6b" not in offered()
    r = el.evaluate(READ_WIDGET)
    assert r["state"]["speculation"] is None and "draft" not in visible()
    assert value(r, "draft_cost")["text"] == "no speculation"
    drawn = lambda k: el.locator(f'output[data-key="{k}"]').is_visible()  # noqa: E731
    assert not drawn("draft_cost") and not drawn("draft_memory_bytes")  # rows of a draft only
    problems = check_widget(r, "deepseek-v3 (start)")
    moves = [(("speculation", "select", ["mtp"]), dict(speculation="mtp", draft=1,
                                                         acceptance=0.85)),
             (("acceptance", "fill", "0.7"), dict(speculation="mtp", acceptance=0.7)),
             (("draft", "select", ["3"]), dict(speculation="mtp", draft=3)),
             (("speculation", "select", ["cost"]), dict(speculation="cost", draft_cost=0)),
             (("draft_cost", "fill", "0.05"), dict(speculation="cost", draft_cost=0.05)),
             (("speculation", "select", ["mtp"]), dict(speculation="mtp", draft=1,
                                                         acceptance=0.85))]
    for move, want in moves:
        move_control(page, el, move)
        r = el.evaluate(READ_WIDGET)
        assert {k: r["state"][k] for k in want} == want, (move, r["state"])
        problems += check_widget(r, f"deepseek-v3 after {move}")
        shown = visible()
        assert ("draft_cost" in shown) == (want["speculation"] == "cost"), (move, shown)
        note = el.locator('[data-note="mtp"]')
        assert note.is_visible() == (want["speculation"] == "mtp")
        assert drawn("draft_cost") and drawn("draft_memory_bytes")
    # the MTP module as describe charges it: what its step reads over a plain step's (more
    # than a block of the 61), its weights and cache
    assert 1 / 61 < float(value(r, "draft_cost")["value"]) < 0.05
    assert float(value(r, "draft_memory_bytes")["value"]) > 13_463_426_304 - 2 * 129_280 * 7168
    # a model without a module: the choice falls to none, and is not offered
    move_control(page, el, ("model", "select", ["llama-3-70b"]))
    r = el.evaluate(READ_WIDGET)
    assert r["state"]["speculation"] is None and "mtp" not in offered()
    assert "draft:llama-3.2-1b" in offered() and "draft:llama-3-70b" not in offered()
    problems += check_widget(r, "llama-3-70b after deepseek-v3's MTP")
    # a draft model of the catalog, of the target's vocabulary (128,256 ids both)
    move_control(page, el, ("speculation", "select", ["draft:llama-3.2-1b"]))
    r = el.evaluate(READ_WIDGET)
    assert (r["state"]["speculation"], r["state"]["draft_model"]) == ("draft", "llama-3.2-1b")
    assert drawn("draft_cost") and drawn("draft_memory_bytes")
    problems += check_widget(r, "llama-3-70b with llama-3.2-1b as its draft")
    # a widget that starts with the module: the CLI's draft length and acceptance
    r = page.locator('[data-llm-widget="estimate"]').evaluate(READ_WIDGET)
    assert (r["state"]["speculation"], r["state"]["draft"], r["state"]["acceptance"]) == (
        "mtp", 1, 0.85)
    problems += check_widget(r, "estimate widget starting with MTP")
    assert not problems, "\n".join(problems[:15])
    assert not page.errors, page.errors


def test_forecast_in_the_page_equals_python(page):
    """The forecast under the bounds (plan.steps.FORECAST_STEPS, with the fitted terms the
    export module puts in the catalog) in the page equals llm_arithmetic.forecast's keys and
    their 80% intervals, and its caveat (forecast_caveat: what the terms borrow) is Python's
    text: named and unnamed runtimes (some without rows on the chip's class), each chip class,
    a chip of a kind no row measured and a custom chip, one chip and a replica, with and
    without speculative decoding; an unknown runtime is refused naming the known ones."""
    from llm_arithmetic import forecast as F

    cases = []
    for i, (name, chip, kw) in enumerate((
            ("llama-2-7b", "rtx-4090", dict(weights="q4_0", context=512)),
            ("llama-3-8b", "m2-max", dict(weights="q8_0", context=64, prompt=128,
                                          generate=32)),
            ("llama-3-8b", "h100-sxm", dict(weights="fp16", prompt=2048, generate=256,
                                            batch=8, context=2048)),
            ("llama-3-70b", "h100-sxm", dict(weights="fp8", tp=4, prompt=1024, generate=64,
                                             batch=16, context=1024)),
            ("mixtral-8x7b", "h200", dict(weights="q8_0", tp=2, ep=2, prompt=512,
                                          generate=64, batch=4)),
            ("qwen3-8b", "a100-80gb-sxm", dict(weights="fp16", prompt=512, draft_len=4,
                                               acceptance=0.7, draft_cost=0.05)),
            ("mistral-7b", "rtx-4090", dict(weights="q4_0", draft_len=2, acceptance=0.8)))):
        for rt in (None, "llama.cpp", "exllamav2", "mlx-lm", "vLLM"):
            cases.append((name, chip, {**kw, "runtime": rt}))
    cases.append(("llama-2-7b", None, dict(weights="q4_0", bandwidth=800e9, peak_flops=100e12,
                                           prompt=256, runtime="llama.cpp")))
    for rt in (None, "llama.cpp", "mlx-lm"):  # kinds no row measured (forecast_caveat)
        cases.append(("llama-3-8b", "tpu-v5e", dict(weights="fp16", prompt=512, runtime=rt)))
        cases.append(("llama-3.2-1b", "raspberry-pi-4", dict(weights="q4_0", runtime=rt)))
    # the vision tower's and the audio encoder's bound times beside the prefill's forecast
    for rt in (None, "vLLM"):
        cases.append(("qwen3-omni-30b-a3b-instruct", "h200", dict(
            tp=4, prompt=512, generate=64, images=1, audio_seconds=120, runtime=rt)))
    got = page.evaluate("""(cases) => cases.map(([name, chip, opts]) => {
      const L = window.LLMArithmetic;
      try {
        return L.estimate(L.catalog.models[name], chip ? L.catalog.hardware[chip] : null, opts);
      } catch (err) { return {error: String(err.message || err)}; }
    })""", [[n, c, kw] for n, c, kw in cases])
    failures = []
    for (name, chip, kw), g in zip(cases, got):
        assert "error" not in g, (name, chip, kw, g)
        want = F.forecast(name, hardware=chip, **kw)
        for key in F.EXPECTED_KEYS:
            for k in (key, key + "_range"):
                w, v = want[k], g.get(k)
                if w is None:
                    if v is not None:
                        failures.append(f"{name} {chip} {kw} {k}: page {v!r}, python None")
                elif v is None or not all(_close(a, b, 1e-9) for a, b in
                                          zip(np.atleast_1d(v), np.atleast_1d(w))):
                    failures.append(f"{name} {chip} {kw} {k}: page {v!r}, python {w!r}")
        # the caveat: the same text as describe's, from the same templates
        if g["forecast_caveat"] != want["forecast_caveat"]:
            failures.append(f"{name} {chip} {kw} caveat: page {g['forecast_caveat']!r}, "
                            f"python {want['forecast_caveat']!r}")
    assert sum(1 for (_, _, kw), g in zip(cases, got) if g["forecast_caveat"]) >= 10
    assert not failures, "\n".join(failures[:10])
    err = page.evaluate(SERVING_QUERY,
                        [["llama-3-8b", "h100-sxm", {"runtime": "tensorrt-llm"}]])[0]
    assert "unknown runtime" in err["error"] and "llama.cpp" in err["error"]
    # an older llama.cpp build (the serving widget's select: the exported builds, their ages
    # as the plan's build_age) pays the build drift as forecast(build_date=...) does; another
    # runtime refuses one
    builds = page.evaluate("() => window.LLMArithmetic.catalog.forecast.builds")
    assert [b["build"] for b in builds] == list(F.PAGE_BUILDS)
    cases = [(name, chip, kw, b) for b in builds[::2] for name, chip, kw in (
        ("llama-3-8b", "rtx-4090", dict(weights="q8_0", prompt=512, generate=64)),
        ("llama-2-7b", "m2-max", dict(weights="q4_0", batch=8, context=512, prompt=256,
                                      generate=32)),
        ("mistral-7b", "rtx-4090", dict(weights="q4_0", draft_len=2, acceptance=0.8)))]
    got = page.evaluate(SERVING_QUERY, [[n, c, {**kw, "runtime": "llama.cpp",
                                                 "build_age": b["age_years"]}]
                                        for n, c, kw, b in cases])
    for (name, chip, kw, b), g in zip(cases, got):
        want = F.forecast(name, hardware=chip, runtime="llama.cpp", build_date=b["date"], **kw)
        today = F.forecast(name, hardware=chip, runtime="llama.cpp", **kw)
        assert "error" not in g, (name, chip, kw, g)
        assert want["expected_tpot_seconds"] > today["expected_tpot_seconds"]
        for key in F.EXPECTED_KEYS:
            for k in (key, key + "_range"):
                assert (g[k] is None) if want[k] is None else all(_close(a, c, 1e-9) for a, c in
                    zip(np.atleast_1d(g[k]), np.atleast_1d(want[k]))), (name, b, k, g[k], want[k])
    err = page.evaluate(SERVING_QUERY, [["llama-3-8b", "h100-sxm",
                                         {"runtime": "vLLM", "build_age": 1.5}]])[0]
    assert "only llama.cpp's forecast has a build drift" in err["error"]


ENGINE_QUERY = """
([name, inputs, names]) => {
  const m = window.LLMArithmetic.catalog.models[name];
  return names.map((n) => window.LLMArithmetic.plan.evaluate(m, n, inputs));
}
"""


def test_hybrid_engine_pool_in_the_page_equals_python(page):
    """vLLM's pool for a Gated DeltaNet hybrid (the plan's engine steps with the inputs
    ``engine_view`` gives them for the GB10 log line of tests/data/engine_logs.toml): block
    size, state page, groups, blocks, printed tokens and concurrency, equal in both
    interpreters and to the view."""
    from llm_arithmetic.core.units import GiB
    from llm_arithmetic.engine import engine_view

    name, memory = "qwen3.5-35b-a3b", int(round(55.72 * GiB))
    inputs = {"engine": "vllm", "engine_kv_memory_given": memory, "engine_page": 16,
              "engine_max_model_len": 262144, "engine_hybrid": 1, "engine_page_align": 16,
              "engine_bits_conv": 16, "engine_bits_ssm": 32, "engine_state_blocks": 2,
              "tp": 1, "ep": 1, "pp": 1, "bits_kv": 16, "bits_state": 16}
    names = ["engine_block_tokens", "engine_state_page", "engine_page_bytes",
             "engine_kv_groups", "engine_pool_blocks", "engine_pool_tokens",
             "engine_max_concurrency", "engine_pool_bytes"]
    ev = CATALOG[name].model.plan.child(**inputs)
    want = [ev.get(n) for n in names]
    v = engine_view(name, "vllm", kv_memory_gib=55.72,
                    flags={"--max-model-len": 262144, "--mamba-cache-mode": "align"})
    assert want == [v.engine_block_tokens, v.engine_state_page_bytes, v.engine_page_bytes,
                    v.engine_kv_groups, v.engine_pool_blocks, v.engine_kv_cache_tokens,
                    v.max_concurrency, v.engine_kv_cache_bytes]
    got = page.evaluate(ENGINE_QUERY, [name, inputs, names])
    assert all(_close(g, float(w)) for g, w in zip(got, want)), (got, want)


@pytest.mark.parametrize("config, memory, length", [
    ("lfm2.5-1.2b-distilled.json", 10, 32768), ("minimax-m1-80k.json", 40, 131072)])
def test_short_conv_and_lightning_pools_in_the_page_equal_python(page, config, memory, length):
    """vLLM's pool for a gated short convolution hybrid (LFM2.5-1.2B) and a lightning attention
    hybrid (MiniMax-M1), whose whole state is kept in --mamba-cache-dtype (the stack term
    engine_ssm_matrix is 0 for both): the page's plan, given the model as the catalog would
    carry it, equals engine_view (tests/test_engine.py checks these by hand)."""
    from types import SimpleNamespace

    from llm_arithmetic.book.export import model_data
    from llm_arithmetic.core.units import GiB
    from llm_arithmetic.engine import engine_view
    from llm_arithmetic.arguments import resolve_model

    path = Path(__file__).resolve().parent / "configs" / config
    m = resolve_model(path)
    record = model_data(SimpleNamespace(model=m, label=m.name, group="test", url=""))
    page.evaluate("([n, r]) => { window.LLMArithmetic.catalog.models[n] = r; }",
                  [m.name, record])
    inputs = {"engine": "vllm", "engine_kv_memory_given": int(round(memory * GiB)),
              "engine_page": 16, "engine_max_model_len": length, "engine_hybrid": 1,
              "engine_page_align": 16, "engine_bits_conv": 16, "engine_bits_ssm": 16,
              "engine_state_blocks": 1, "tp": 1, "ep": 1, "pp": 1, "bits_kv": 16,
              "bits_state": 16}
    names = ["engine_block_tokens", "engine_state_page", "engine_page_bytes",
             "engine_kv_groups", "engine_pool_blocks", "engine_pool_tokens",
             "engine_max_concurrency"]
    v = engine_view(path, "vllm", kv_memory_gib=memory, flags={"--max-model-len": length})
    want = [v.engine_block_tokens, v.engine_state_page_bytes, v.engine_page_bytes,
            v.engine_kv_groups, v.engine_pool_blocks, v.engine_kv_cache_tokens,
            v.max_concurrency]
    got = page.evaluate(ENGINE_QUERY, [m.name, inputs, names])
    assert all(_close(g, float(w)) for g, w in zip(got, want)), (got, want)


def test_mamba2_engine_pool_in_the_page_from_the_catalog_state_dtype(page):
    """A Mamba-2 hybrid's pool in the page: the page's catalog carries the state dtype the
    family reader read (Nemotron 3 Super's mamba_ssm_cache_dtype, float32: ssm_bits 32), and
    the plan's engine steps fed with it give the block size, state page, groups and blocks
    ``engine_view`` gives (vLLM's --mamba-ssm-cache-dtype auto)."""
    from llm_arithmetic.core.units import GiB
    from llm_arithmetic.engine import engine_view

    name, memory = "nemotron-3-super", int(round(20 * GiB))
    bits = page.evaluate("""(name) => [...new Set(window.LLMArithmetic.catalog.models[name]
      .layers.filter((r) => r.mixer).map((r) => r.mixer.ssm_bits))]""", name)
    assert bits == [32]
    inputs = {"engine": "vllm", "engine_kv_memory_given": memory, "engine_page": 16,
              "engine_max_model_len": 65536, "engine_hybrid": 1, "engine_page_align": 16,
              "engine_bits_conv": 16, "engine_bits_ssm": bits[0], "engine_state_blocks": 1,
              "tp": 1, "ep": 1, "pp": 1, "bits_kv": 16, "bits_state": 16}
    names = ["engine_block_tokens", "engine_state_page", "engine_kv_groups",
             "engine_pool_blocks", "engine_max_concurrency"]
    v = engine_view(name, "vllm", kv_memory_gib=20, flags={"--max-model-len": 65536})
    want = [v.engine_block_tokens, v.engine_state_page_bytes, v.engine_kv_groups,
            v.engine_pool_blocks, v.max_concurrency]
    got = page.evaluate(ENGINE_QUERY, [name, inputs, names])
    assert all(_close(g, float(w)) for g, w in zip(got, want)), (got, want)


def test_state_in_the_page_at_the_bits_the_checkpoint_keeps_it_in(page):
    """The page's default plan counts a state layer's recurrent matrix at the dtype its config
    names and its convolution window at the cache's bits, as Python does: Nemotron 3 Super's
    40 Mamba-2 blocks (128 heads of 64, state 128, 8 groups, kernel 4; mamba_ssm_cache_dtype
    float32) from the config's fields, 4 B a matrix value and 2 B a window value; with the
    matrix's bits asked (bits_ssm 16), every value at 2 B."""
    name = "nemotron-3-super"
    matrix = 40 * 128 * 64 * 128
    conv = 40 * 3 * (128 * 64 + 2 * 8 * 128)
    model = CATALOG[name].model
    for bits_ssm, want in ((None, matrix * 4 + conv * 2), (16, (matrix + conv) * 2)):
        inputs = {"bits_kv": 16, "bits_state": 16, "bits_ssm": bits_ssm, "batch": 2}
        got = page.evaluate(ENGINE_QUERY, [name, inputs, ["state_bytes", "batch_state_bytes"]])
        assert got == [want, 2 * want] == [model.state_bytes(16, bits_ssm),
                                           2 * model.state_bytes(16, bits_ssm)]
    # Kimi Linear names no dtype, but a KDA layer's matrices are kept in float32 (20 layers of
    # 32 heads of 128 x 128, windows of 3 x 3 x 32 x 128 at 16 bits); a Gated DeltaNet hybrid
    # that names none (Qwen3-Next) keeps its matrices at the cache's bits
    for name, want in (("kimi-linear-48b-a3b", 20 * 32 * 128 * 128 * 4 + 20 * 3 * 3 * 4096 * 2),
                       ("qwen3-next-80b-a3b", CATALOG["qwen3-next-80b-a3b"].model.state_bytes(
                           16, bits_ssm=16))):
        got = page.evaluate(ENGINE_QUERY, [name, {"bits_state": 16}, ["state_bytes"]])
        assert got == [want] == [CATALOG[name].model.state_bytes(16)]


def test_a_custom_chip_starts_at_the_peak_the_estimate_takes(page):
    """A reader who switches a widget to a custom chip starts from the page's chip at the peak
    the bound uses there: on an RTX 4090 with 16-bit weights, fp16 with fp16 accumulation,
    330.3 TFLOP/s (NVIDIA's Ada whitepaper; its fp16 key holds the fp32-accumulate 165.2)."""
    from test_browser_widgets import READ_WIDGET

    mount(page, """<div data-llm-widget="estimate" data-model="llama-3-8b"
        data-chip="rtx-4090" data-weights="fp16" data-controls="model,chip"></div>""")
    el = page.locator('[data-llm-widget="estimate"]')
    el.locator('[data-control="chip"]').select_option("custom")
    state = el.evaluate(READ_WIDGET)["state"]
    assert state["chip"] == "custom"
    assert state["custom_chip"]["peak_tflops"] == pytest.approx(330.3)
    assert state["custom_chip"]["bandwidth_gbps"] == pytest.approx(1008)


def test_the_page_labels_a_chip_listing_none_of_the_chain_as_python_does(page):
    """Vera Rubin lists fp4 alone: q4_0 weights there are labelled fp16 (formats.toml: no int8
    rate, the fp16 fallback), with or without a given peak; a TPU v5e's given peak is its bf16
    one (it lists bf16, not fp16). The page's interpreter agrees with Python's."""
    cases = [["llama-3-8b", "vera-rubin", {"weights": "q4_0"}],
             ["llama-3-8b", "vera-rubin", {"weights": "q4_0", "peak_flops": 1e14}],
             ["llama-3-8b", "tpu-v5e", {"peak_flops": 1e14}],
             ["llama-3-8b", "h100-sxm", {"weights": "q4_0", "peak_flops": 1e14}]]
    got = page.evaluate(RANDOM_QUERY, cases)
    assert [g["compute_precision"] for g in got] == ["fp16", "fp16", "bf16", "int8"]
    assert [estimate(n, hardware=c, **o).compute_precision for n, c, o in cases] == \
        ["fp16", "fp16", "bf16", "int8"]


def test_mtp_module_at_its_own_bits_and_peak_in_the_page_equals_python(page):
    """A module the checkpoint keeps in bf16 beside an NVFP4 model (nvidia/DeepSeek-V3.1-NVFP4,
    tests/configs/modelopt/) and one beside an FP8/W4A16 model (nvidia/Qwen3.6-27B-NVFP4): the
    page's draft step reads the shared head at its own bits, copies the module's blocks at the
    module's bits and multiplies at the module's 16-bit rate, as Python does (the records
    carry ``draft_format``, ``native_bits.head`` and ``native_bits.draft_copy_*``)."""
    from types import SimpleNamespace

    from llm_arithmetic.book.export import model_data
    from llm_arithmetic.arguments import resolve_model

    serving = dict(prompt=2048, generate=256, batch=64)
    cases = []
    for folder, kv in (("deepseek-v3.1-nvfp4", 8), ("qwen3.6-27b-nvfp4", 16)):
        path = Path(__file__).resolve().parent / "configs" / "modelopt" / folder / "config.json"
        m = resolve_model(path)
        record = model_data(SimpleNamespace(model=m, label=m.name, group="test", url=""))
        assert record["draft_format"] == {"compute": "fp16", "compute_fallback": None}
        page.evaluate("([n, r]) => { window.LLMArithmetic.catalog.models[n] = r; }",
                      [m.name, record])
        for chip in ("h200", "b200"):
            cases.append((m.name, path, chip, dict(tp=8, bits_kv=kv, speculation="mtp",
                                                   **serving)))
        cases.append((m.name, path, "b200", dict(speculation="mtp", bits_kv=kv, context=1024,
                                                 batch=4096)))
    got = page.evaluate(SERVING_QUERY, [[n, c, kw] for n, _, c, kw in cases])
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWarning)
        for (name, path, chip, kw), g in zip(cases, got):
            assert "error" not in g, (name, kw, g)
            e = estimate(str(path), hardware=chip, **kw)
            _compare((name, chip, tuple(kw.items())), g, e, SPECULATION_KEYS, failures)
    assert not failures, "\n".join(failures[:10])


def test_the_page_takes_each_image_size_as_python_counts_it():
    """The images the page offers (export.image_data, catalog.json's ``images`` of a model):
    for every catalog model whose tower's rule is modelled and every size of the menu, N
    images (counts from 1 to the most the page offers) are the plan's inputs of one times N where the menu's
    ``scaled`` says so, else one image's, as llm_arithmetic.media.image_inputs gives them;
    and two counts by hand from the processors' rules (transformers 5.24.0):

    * Qwen2.5-VL, 1920 x 1080 px: ``smart_resize`` rounds each side to 28 px, 1932 x 1092
      (under the 12,845,056-pixel limit): 69 x 39 = 2,691 tokens, four times as many patches;
    * Llama 4, 1024 x 1024 px: the least upscaling canvas of 336 px tiles is 4 x 4 (1,344 px,
      x 1.3125; 3 x 3 would shrink it), 16 tiles and a global one, 144 tokens each: 2,448, and
      16 tile separators."""
    from llm_arithmetic.catalog.images import DEFAULT_IMAGE_SIZE
    from llm_arithmetic.media import cross_inputs, image_inputs, vision_plan_inputs

    sizes = [f"{w}x{h}" for w, h in export.IMAGE_SIZES]
    assert tuple(DEFAULT_IMAGE_SIZE) in export.IMAGE_SIZES
    offered = {name: export.image_data(e.model) for name, e in CATALOG.items()}
    offered = {k: v for k, v in offered.items() if v is not None}
    assert {"qwen2.5-vl-3b-instruct", "gemma-3-12b", "llama-4-scout", "gemma-3n-e4b",
            "llava-1.5-7b-hf", "llama-3.2-11b-vision-instruct",
            "llama-3.2-90b-vision-instruct"} <= set(offered)
    for name, by_size in offered.items():
        m = CATALOG[name].model
        assert list(by_size) == sizes, name
        for (w, h), key in zip(export.IMAGE_SIZES, sizes):
            one = by_size[key]
            for n in (1, 3, 7, export.IMAGES_MAX):
                v = image_inputs(m, n, (w, h))
                want = {**vision_plan_inputs(v), "prompt_tokens": v["prompt_tokens"],
                        "vision_patches_per_image": v["vision_patches_per_image"]}
                if v.get("image_states"):  # what estimate() gives the plan besides
                    given = {"tp": 1}
                    cross_inputs(m, v, given)
                    want.update(extras_read=given["extras_read"],
                                extras_matmul=given["extras_matmul"],
                                cross_kv_flops=v["cross_kv_flops"])
                got = {"images": n, **{k: n * x if k in export.IMAGE_SCALED else x
                                       for k, x in one.items()}}
                assert got == want, (name, key, n)
    qwen = offered["qwen2.5-vl-3b-instruct"]["1920x1080"]
    assert (qwen["image_tokens_per_image"], qwen["prompt_tokens"],
            qwen["vision_patches_per_image"]) == (69 * 39, 69 * 39, 4 * 69 * 39)
    llama = offered["llama-4-scout"]["1024x1024"]
    assert (llama["image_tokens_per_image"], llama["prompt_tokens"]) == (17 * 144,
                                                                          17 * 144 + 16)
    # Llama 3.2 11B Vision (tests/configs/FAMILIES.md 17.38, from its config.json): one
    # <|image|> token an image; 512 x 512 px fits one 560 px tile, 1920 x 1080 px four, of
    # 40 x 40 patches and a class token (1,601 states) each; a token then reads the 8
    # cross-attention layers but k and v, 8 x 209,723,650 parameters, of them 8 x (2 x 4,096^2
    # + 3 x 4,096 x 14,336) in matrix products; k and v of the states: 2 FLOPs x 8 layers x
    # 2 (K, V) x 4,096 x 8 heads x 128 a state
    mllama = offered["llama-3.2-11b-vision-instruct"]
    for key, tiles in (("512x512", 1), ("1920x1080", 4)):
        x = mllama[key]
        assert (x["prompt_tokens"], x["image_states"], x["cross_layers"], x["cross_kv_heads"],
                x["cross_d_head"]) == (1, tiles * 1601, 8, 8, 128)
        assert (x["extras_read"], x["extras_matmul"]) == (
            8 * 209_723_650, 8 * (2 * 4096 ** 2 + 3 * 4096 * 14336))
        assert x["cross_kv_flops"] == 2 * 8 * 2 * 4096 * 8 * 128 * tiles * 1601
    # a model with a tower whose rule is not modelled carries Python's refusal instead
    record = export.model_data(CATALOG["kimi-vl-a3b-instruct"])
    assert "images" not in record and "not modelled" in record["images_refused"]
    assert "images" not in export.model_data(CATALOG["llama-3-8b"])


def test_the_page_refuses_the_tower_layouts_python_refuses():
    """With images, the page refuses a tp whose split of the vision tower vLLM refuses with
    Python's words, which the export carries (``images_tp_refused``): for every model whose
    images the page takes, the refusals exported are estimate.vision_degrees' at every degree
    the layers allow (layout.parallel_degrees), the page's menu's among them, and none else.
    And one by hand from GLM-4.5V's config.json (its layers' 96 heads and 8 KV heads, its
    tower's 12, vision_config.num_heads): of the menu, tp 8, 16 and 32 split the layers and
    not the tower."""
    from llm_arithmetic.catalog.images import image_tower
    from llm_arithmetic.core.errors import ConfigError, InputError
    from llm_arithmetic.layout import parallel_degrees
    from llm_arithmetic.media import cross_inputs, image_inputs, vision_degrees

    def said(f, *args):
        try:
            f(*args)
        except InputError as err:
            return str(err)
        return None

    assert export.TP_MENU == (1, 2, 4, 8, 16, 32, 64)
    taken = 0
    for name, entry in CATALOG.items():
        m = entry.model
        try:
            image_tower(m)
        except ConfigError:
            continue
        taken += 1
        got = export.images_tp_refused(m)
        # a cross-attention model's images are refused past its layers' key/value heads too
        # (media.cross_inputs), after the tower (estimate.evaluated_plan's order)
        one = image_inputs(m, 1, (1024, 1024))
        cross = (lambda tp: said(cross_inputs, m, one, {"tp": tp})) if one.get(
            "image_states") else (lambda tp: None)
        for tp in sorted({*export.TP_MENU, *range(1, 257)}):
            want = None if said(parallel_degrees, m, tp, 1, 1) else (
                said(vision_degrees, m, tp) or cross(tp))
            assert got.get(str(tp)) == want, (name, tp, got.get(str(tp)), want)
        assert set(got) <= {str(t) for t in range(1, 257)}, name
    assert taken >= 15
    cfg = json.loads((Path(export.__file__).parents[1] / "catalog" / "data" / "models"
                      / "glm-4.5v" / "config.json").read_text())
    text, tower = cfg["text_config"], cfg["vision_config"]["num_heads"]
    heads, kv = text["num_attention_heads"], text["num_key_value_heads"]
    assert (heads, kv, tower) == (96, 8, 12)
    refused = [t for t in export.TP_MENU if heads % t == 0 and (kv % t == 0 or t % kv == 0)
               and tower % t]
    assert refused == [8, 16, 32]
    assert [int(t) for t in export.images_tp_refused(CATALOG["glm-4.5v"].model)
            if int(t) in export.TP_MENU] == refused
    # what catalog.json carries: the record of a model (LLaVA 1.5: 32 heads, its tower's 16)
    # has them beside its images; a convolutional tower (Gemma 3n) refuses no degree
    llava = export.model_data(CATALOG["llava-1.5-7b-hf"])
    assert list(llava["images_tp_refused"]) == ["32"] and "images" in llava
    assert export.images_tp_refused(CATALOG["gemma-3n-e4b"].model) == {}
    # Llama 3.2 90B Vision (FAMILIES.md 17.38): 64 heads and 8 key/value heads, its tower's
    # 16, its cross-attention layers' 8 key/value heads: of the menu, tp 16 splits the tower
    # and not those heads, tp 32 and 64 not the tower's heads either (its words first)
    refused = export.images_tp_refused(CATALOG["llama-3.2-90b-vision-instruct"].model)
    assert sorted((t for t in refused if int(t) in export.TP_MENU), key=int) == [
        "16", "32", "64"]
    assert "8 key/value heads" in refused["16"] and "vision tower" in refused["64"]


def test_the_page_takes_each_clip_as_python_counts_it():
    """The video and audio clips the page offers (export.video_data, export.audio_data:
    catalog.json's ``video`` and ``audio`` of a model): for every catalog model whose video rule
    or audio encoder is modelled, each clip's record is the plan's inputs
    llm_arithmetic.media.video_inputs or audio_inputs give (with Python's warning of a
    truncated clip), and with images beside them the page's sum of the records
    (calculator.js's mediaInputs: ``video_menu.summed`` added, the video's other inputs after
    the images') is media.prompt_with_images' for the prompt holding both. Counts by hand
    from the processors' rules (transformers 5.24.0):

    * Qwen2.5-VL, 10 s at 2 fps: 20 frames, 10 pairs of 1288 x 728 px (each side rounded to
      28 px): 46 x 26 = 1,196 tokens a pair, 11,960;
    * Qwen3.5, 60 s: 120 frames; 120 x 704 x 1280 px is past the clip's 25,165,824, so each
      side shrinks by sqrt(120 x 720 x 1280 / 25,165,824) = 2.096 and floors to 32 px: 320 x
      608, 10 x 19 = 190 tokens a pair, 60 pairs: 11,400;
    * Qwen2.5-Omni, 30 s: 3,000 mel frames, (1,500 - 2) // 2 + 1 = 750 tokens; 600 s is cut to
      30,000 frames: 7,500 tokens and the warning; Qwen3-Omni, 120 s: 120 chunks of 100
      frames, 13 tokens each: 1,560."""
    from llm_arithmetic.catalog.audio import audio_encoder
    from llm_arithmetic.catalog.video import video_tower
    from llm_arithmetic.layout import parallel_degrees
    from llm_arithmetic.media import (AUDIO_PLAN_INPUTS, audio_degrees, audio_inputs,
                                      prompt_with_images, video_inputs, vision_plan_inputs)

    taken, records = {"video": 0, "audio": 0}, {}
    for name, entry in CATALOG.items():
        m = entry.model
        try:
            video_tower(m)
            has_video = True
        except ConfigError:
            has_video = False
        try:
            audio_encoder(m)
            has_audio = True
        except ConfigError:
            has_audio = False
        if not (has_video or has_audio):  # nothing exported
            assert export.video_data(m) is None and export.audio_data(m) is None, name
            continue
        record = records[name] = export.model_data(entry)
        assert ("video" in record, "audio" in record) == (has_video, has_audio), name
        image = record.get("images", {}).get("1920x1080")
        for s in export.VIDEO_SECONDS if has_video else ():
            v = video_inputs(m, s)
            one = record["video"][str(s)]
            plan = {k: x for k, x in one.items()
                    if k != "prompt_tokens" and k not in export.VIDEO_REPORTED}
            want = {k: x for k, x in vision_plan_inputs(
                {"images": None, "image_tokens_per_image": None, **v}).items()
                if k not in ("images", "image_tokens_per_image")}
            assert plan == want and one["prompt_tokens"] == v["prompt_tokens"], (name, s)
            assert all(one[k] == v[k] for k in export.VIDEO_REPORTED), (name, s)
            # two images of 1920 x 1080 px beside the clip: the page's sum is Python's
            _, tokens, both = prompt_with_images(m, None, 2, (1920, 1080), s)
            summed = {**{k: 2 * x if k in export.IMAGE_SCALED else x
                         for k, x in image.items()}, "images": 2, **plan}
            for k in export.TOWER_SUMMED:
                summed[k] = 2 * image[k] + one[k]
            del summed["vision_patches_per_image"]
            assert summed.pop("prompt_tokens") == tokens, (name, s)
            assert summed == vision_plan_inputs(both), (name, s)
            taken["video"] += 1
        for s in export.AUDIO_SECONDS if has_audio else ():
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                a = audio_inputs(m, s)
            one = record["audio"][str(s)]
            assert {k: one[k] for k in AUDIO_PLAN_INPUTS} == {
                k: a[k] for k in AUDIO_PLAN_INPUTS}, (name, s)
            assert (one["prompt_tokens"], one["audio_frames"]) == (a["audio_tokens"],
                                                                   a["audio_frames"])
            assert one.get("warning") == (str(said[0].message) if said else None), (name, s)
            taken["audio"] += 1
        # the audio encoder's refusals: audio_degrees' at every degree the layers allow
        got = record.get("audio_tp_refused", {})
        for tp in range(1, 65) if has_audio else ():
            try:
                parallel_degrees(m, tp, 1, 1)
                audio_degrees(m, tp)
                want = None
            except InputError as err:
                want = None if "audio encoder" not in str(err) else str(err)
            assert got.get(str(tp)) == want, (name, tp)
    assert taken["video"] >= 4 * 5 and taken["audio"] >= 4 * 3, taken
    qwen = records["qwen2.5-vl-3b-instruct"]["video"]["10"]
    assert (qwen["video_frames"], qwen["video_tokens"]) == (20, 10 * 46 * 26)
    assert records["qwen3.5-27b"]["video"]["60"]["video_tokens"] == 60 * 10 * 19
    omni = records["qwen2.5-omni-7b"]["audio"]
    assert (omni["30"]["audio_tokens"], omni["600"]["audio_tokens"]) == (750, 7500)
    assert "warning" in omni["600"] and "warning" not in omni["120"]
    assert records["qwen3-omni-30b-a3b-instruct"]["audio"]["120"]["audio_tokens"] == 1560
    assert "8" in records["qwen3-omni-30b-a3b-instruct"]["audio_tp_refused"]
