"""Every registered formula: the numeric function equals the sympy expression.

For each formula, random admissible arguments are substituted into the sympy expression
(exact rational arithmetic) and compared with the numeric function on both of its paths:
exact (Python ints) and vectorized (NumPy arrays).
"""
from __future__ import annotations

import inspect
import random

import numpy as np
import pytest
import sympy as sp

import llm_arithmetic  # noqa: F401  (imports every formula module)
from llm_arithmetic._formula import FORMULAS
from llm_arithmetic.symbols import GLOSSARY

NAME_OF = {info.symbol: name for name, info in GLOSSARY.items()}
FLAGS = {"tied", "qkv_bias", "o_bias", "mlp_bias", "head_bias"}


def _draw(name: str, rng: random.Random) -> int:
    if name in FLAGS:
        return rng.randint(0, 1)
    if name == "n_mlp_mats":
        return rng.choice([2, 3])
    if name in ("n_experts", "n_active_experts"):
        return rng.randint(1, 8)
    if name in ("bits", "bits_kv", "bits_weight"):
        return rng.choice([4, 8, 16, 32])
    if name in ("n_positions", "overhead"):
        return rng.choice([0, 1, rng.randint(2, 4096)])
    return rng.randint(1, 5000)


def _args(formula, rng):
    names = [NAME_OF[s] for s in formula.params]
    vals = {n: _draw(n, rng) for n in names}
    if "n_active_experts" in vals and "n_experts" in vals:
        vals["n_active_experts"] = min(vals["n_active_experts"], vals["n_experts"])
    return vals


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_signature_names_the_formula_symbols(name):
    formula, fn = FORMULAS[name]
    sig = list(inspect.signature(fn).parameters)
    assert sig == [NAME_OF[s] for s in formula.params]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY
               for p in inspect.signature(fn).parameters.values())


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_symbolic_equals_numeric(name):
    formula, fn = FORMULAS[name]
    rng = random.Random(name)
    for _ in range(20):
        vals = _args(formula, rng)
        exact = formula.expr.xreplace({s: sp.Integer(vals[NAME_OF[s]]) for s in formula.params})
        got = fn(**vals)
        if exact == sp.oo:
            assert got == float("inf")
        elif exact.is_Integer:
            assert got == int(exact) and isinstance(got, int)
        else:
            assert got == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_vectorized_path_matches_exact_path(name):
    formula, fn = FORMULAS[name]
    rng = random.Random("v" + name)
    draws = [_args(formula, rng) for _ in range(16)]
    arrays = {k: np.array([d[k] for d in draws]) for k in draws[0]}
    vec = np.asarray(fn(**arrays), dtype=float)
    one = np.array([float(fn(**d)) for d in draws])
    assert vec.shape == (16,)
    np.testing.assert_allclose(vec, one, rtol=1e-12)


def test_every_formula_has_a_doctest():
    for name, (_, fn) in FORMULAS.items():
        assert ">>> " in (fn.__doc__ or ""), f"{name} has no example"
        assert ".. math::" in (fn.__doc__ or ""), f"{name} does not print its formula"


def test_vectorized_path_does_not_overflow_int64():
    # Llama 2 70B shapes, a 4M-token prefill (contexts of millions of tokens exist): the
    # attention term 2 L H d_head T (T + 1) alone is ~2.1e19 > 2**63.
    from llm_arithmetic.flops import prefill_flops

    kw = dict(matmul_params=68_714_512_384, n_layers=80, n_heads=64, d_head=128)
    exact = prefill_flops(prompt=4_000_000, **kw)
    assert exact > 2**63
    vec = prefill_flops(prompt=np.array([4_000_000, 1]), **kw)
    assert vec[0] == pytest.approx(exact, rel=1e-12)
