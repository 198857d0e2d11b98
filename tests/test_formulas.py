"""The formula registry: complete in any process, each formula written once, numeric == symbolic.

* The registry lists every ``@formula`` the package's source defines (found by reading the
  source files, not by importing them), whatever was imported first, and ``formula --list`` in
  a fresh process prints all of them.
* The generated numeric module and JavaScript module equal a fresh generation (so they come
  from the expressions), and every numeric docstring's equation is the expression's LaTeX.
* For random admissible arguments, the sympy expression (exact rational arithmetic) equals the
  numeric function on both of its paths, exact (Python ints) and vectorized (NumPy arrays).
"""
from __future__ import annotations

import ast
import inspect
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from llm_arithmetic import numeric
from llm_arithmetic.articles import all_formulas
from llm_arithmetic.core.symbols import GLOSSARY
from tools import generate

PACKAGE = Path(__file__).resolve().parents[1] / "lib" / "llm_arithmetic"
FORMULAS = all_formulas()


def _declared() -> set[str]:
    """Names of every function decorated with @formula in the package's source files."""
    names = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and getattr(dec.func, "id", "") == "formula":
                    override = [k.value.value for k in dec.keywords if k.arg == "name"]
                    names.add(override[0] if override else node.name)
    return names


def test_registry_is_every_declared_formula():
    declared = _declared()
    assert len(declared) >= 60
    assert set(FORMULAS) == declared


def test_formula_list_in_a_fresh_process_lists_them_all():
    r = subprocess.run([sys.executable, "-m", "llm_arithmetic", "formula", "--list"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    listed = {line.split()[0] for line in r.stdout.splitlines() if line.strip()}
    assert listed == _declared()


def test_generated_modules_are_up_to_date():
    assert generate.PY_PATH.read_text(encoding="utf-8") == generate.python_source(), (
        "numeric/_numeric.py is stale: run python -m tools.generate")
    assert generate.JS_PATH.read_text(encoding="utf-8") == generate.javascript_source(), (
        "numeric/formulas.js is stale: run python -m tools.generate")
    assert generate.EXPLAIN_PATH.read_text(encoding="utf-8") == generate.explain_source(), (
        "numeric/explain_text.py is stale: run python -m tools.generate")
    from llm_arithmetic.catalog import compiled
    assert compiled.COMPILED.read_text(encoding="utf-8") == compiled.compile_source(), (
        "catalog/data/compiled.json is stale: run python -m tools.generate")
    from llm_arithmetic.book.plan_page import PATH, page_text
    assert (generate.ROOT / PATH).read_text(encoding="utf-8") == page_text(), (
        "book/calculator.md is stale: run python -m tools.generate")


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_docstring_equation_is_the_expression(name):
    f = FORMULAS[name]
    doc = inspect.getdoc(getattr(numeric, name))
    lines = doc.splitlines()
    i = lines.index(".. math::")
    assert lines[i + 2].strip() == f.latex()
    assert ">>> " in doc, f"{name} has no example"


def test_numeric_module_imports_no_sympy():
    code = ("import sys, llm_arithmetic.numeric, llm_arithmetic.estimate, llm_arithmetic.cli; "
            "print('sympy' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "False", r.stderr


def test_left_hand_sides_and_arguments_are_glossary_symbols():
    for f in FORMULAS.values():
        assert f.lhs in GLOSSARY
        assert all(p in GLOSSARY for p in f.params)
        sig = inspect.signature(getattr(numeric, f.name))
        assert list(sig.parameters) == list(f.params)
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in sig.parameters.values())


# ---- symbolic == numeric ---------------------------------------------------------------------
FLAGS = {name for name, info in GLOSSARY.items() if info.description.startswith("1 if")}


def _draw(name: str, rng: random.Random):
    if name in FLAGS:
        return rng.randint(0, 1)
    if name == "n_mlp_mats":
        return rng.choice([2, 3])
    if name in ("n_experts", "n_active_experts", "n_shared_experts"):
        return rng.randint(1, 8)
    if name in ("bits", "bits_kv", "bits_weight", "bits_state"):
        return rng.choice([4, 8, 16, 32])
    if name in ("n_positions", "overhead", "q_lora_rank", "generated", "prefix"):
        return rng.choice([0, 1, rng.randint(2, 4096)])
    if name in ("acceptance", "fraction"):
        return sp.Rational(rng.randint(1, 99), 100)
    if name in ("draft_cost", "link_latency"):
        return sp.Rational(rng.randint(0, 99), 1000)
    if name == "batch":
        return rng.randint(1, 300)
    return rng.randint(1, 5000)


def _args(f, rng):
    vals = {n: _draw(n, rng) for n in f.params}
    if "n_active_experts" in vals and "n_experts" in vals:
        vals["n_active_experts"] = min(vals["n_active_experts"], vals["n_experts"])
    return vals


def _python(v):
    return int(v) if isinstance(v, int) or (isinstance(v, sp.Integer)) else \
        __import__("fractions").Fraction(int(v.p), int(v.q))


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_symbolic_equals_numeric(name):
    f = FORMULAS[name]
    fn = getattr(numeric, name)
    rng = random.Random(name)
    for _ in range(20):
        vals = _args(f, rng)
        exact = f.subs(**{k: sp.sympify(v) for k, v in vals.items()})
        got = fn(**{k: _python(v) for k, v in vals.items()})
        if exact in (sp.oo, sp.zoo):
            assert got == float("inf")
        elif exact.is_Integer and f.exact:
            assert got == int(exact) and isinstance(got, int)
        else:
            assert got == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_vectorized_path_matches_exact_path(name):
    fn = getattr(numeric, name)
    f = FORMULAS[name]
    rng = random.Random("v" + name)
    draws = [{k: float(v) if isinstance(v, sp.Rational) and not v.is_Integer else v
              for k, v in _args(f, rng).items()} for _ in range(16)]
    arrays = {k: np.array([float(d[k]) for d in draws]) for k in draws[0]}
    vec = np.asarray(fn(**arrays), dtype=float)
    one = np.array([float(fn(**d)) for d in draws])
    assert vec.shape == (16,)
    np.testing.assert_allclose(vec, one, rtol=1e-12)


def test_vectorized_path_does_not_overflow_int64():
    # Llama 2 70B shapes, a 4M-token prefill: the attention term alone is ~2.1e19 > 2**63.
    kw = dict(matmul_params=68_714_512_384, head_params=32000 * 8192, n_layers=80, n_heads=64,
              d_head=128)
    exact = numeric.prefill_flops(prompt=4_000_000, **kw)
    assert exact > 2**63
    vec = numeric.prefill_flops(prompt=np.array([4_000_000, 1]), **kw)
    assert vec[0] == pytest.approx(exact, rel=1e-12)


def test_numpy_scalars_are_exact():
    assert numeric.kv_cache_bytes_per_token(n_layers=np.int64(32), n_kv_heads=8, d_head=128) \
        == 131072


def test_experts_read_is_fast_at_huge_batches():
    # an exact power of a fraction would grow without bound; the formula is float by design
    assert numeric.experts_read(n_experts=8, n_active_experts=2, batch=10**11) == 8.0


def test_bad_argument_names_the_argument():
    with pytest.raises(ValueError, match="argument 'n_layers'"):
        numeric.kv_cache_bytes_per_token(n_layers="many", n_kv_heads=8, d_head=128)


def test_critical_batch_is_solved_from_the_step_time():
    # a second derivation: at B*, memory time equals compute time
    f = FORMULAS["critical_batch"]
    W, K, A, beta, R = 14e9, 1e6, 2e9, 1e12, 1e14
    b = numeric.critical_batch(weight_bytes=W, seq_bytes=K, seq_flops=A, bandwidth=beta,
                               peak_flops=R)
    assert (W + b * K) / beta == pytest.approx(b * A / R)
    assert f.latex().startswith("B^{*} =")


def test_calculator_page_lists_the_models_inputs_as_the_models():
    """The appendix's first list names what the model's record gives the plan (Model.plan_inputs
    fills every native_* input from the checkpoint: its format and each class's bits, the
    tensor-parallel copies' included); none of them is listed as the workload's."""
    from llm_arithmetic import get_model
    from llm_arithmetic.book.plan_page import page_text

    text = page_text()
    model_line = next(line for line in text.splitlines() if line.startswith("The model's record:"))
    model_part, workload_part = model_line.split("The workload and precision:", 1)
    native = [k for k in get_model("deepseek-v3").plan_inputs if k.startswith("native_")]
    assert "native_bits_copy_heads" in native
    for name in native:
        assert f"`{name}`" in model_part, name
        assert f"`{name}`" not in workload_part.split("The chip")[0], name
