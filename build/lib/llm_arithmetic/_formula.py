"""The bridge between a sympy expression and its numeric function.

A :class:`Formula` holds one sympy expression and the ordered symbols it is a function of, and
evaluates it two ways:

* **exact**, when every argument is a Python ``int``, ``bool`` or ``fractions.Fraction``: the
  expression is compiled with rationals kept as ``Fraction``, so a byte count stays an integer
  (``int``) however large; a result that is not a whole number comes back as ``float``;
* **vectorized**, when any argument is a ``float`` or a NumPy array: compiled by
  ``sympy.lambdify`` for NumPy, broadcasting over arrays, evaluated in float64 (integer arrays
  are converted first, because int64 products overflow silently).

Public functions of the package wrap a Formula in a ``def`` with an explicit keyword signature
(never the raw lambdified object, whose argument names are sympy Dummies that change between
sessions).
"""
from __future__ import annotations

import importlib
import math
from fractions import Fraction
from numbers import Integral
from typing import Any, Callable

import numpy as np
import sympy as sp
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.pycode import PythonCodePrinter

__all__ = ["Formula", "FORMULAS", "register"]


class _ExactPrinter(PythonCodePrinter):
    """Prints rationals as ``Fraction(p, q)`` so that Python evaluates them exactly."""

    def _print_Rational(self, expr: sp.Rational) -> str:
        return f"Fraction({expr.p}, {expr.q})"

    def _print_Half(self, expr: sp.Rational) -> str:
        return "Fraction(1, 2)"

    def _print_Max(self, expr: sp.Max) -> str:
        return "max(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Min(self, expr: sp.Min) -> str:
        return "min(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_floor(self, expr: sp.floor) -> str:
        return f"math.floor({self._print(expr.args[0])})"


def _compile(expr: sp.Expr, params: tuple[sp.Symbol, ...], printer: Any,
             namespace: dict[str, Any]) -> Callable[..., Any]:
    """A Python function of ``params`` evaluating ``expr``, printed by ``printer``."""
    plain = sp.symbols(f"a0:{len(params)}", **{})
    code = printer.doprint(expr.xreplace(dict(zip(params, plain))))
    src = f"def _f({', '.join(map(str, plain))}):\n    return {code}\n"
    ns = dict(namespace)
    for module in getattr(printer, "module_imports", {}):  # e.g. functools for numpy Max
        top = module.split(".")[0]
        ns.setdefault(top, importlib.import_module(top))
    exec(compile(src, "<llm_arithmetic formula>", "exec"), ns)  # our own printed expression
    return ns["_f"]


def _exact_value(x: Any) -> Any:
    if isinstance(x, Fraction):
        return int(x) if x.denominator == 1 else float(x)
    return x


class Formula:
    """One sympy expression and how to evaluate it.

    Parameters
    ----------
    name : str
        The public numeric function's name (also the registry key).
    expr : sympy.Expr
        The expression; it is never simplified here.
    params : sequence of sympy.Symbol
        The arguments, in the order of the public function's keyword signature.
    unit : str
        Unit of the result, e.g. ``"B"``, ``"FLOP"``, ``"s"``.
    """

    def __init__(self, name: str, expr: sp.Expr, params: tuple[sp.Symbol, ...], unit: str):
        free = expr.free_symbols
        missing = free - set(params)
        if missing:
            raise ValueError(f"{name}: expression uses symbols not in params: {missing}")
        self.name = name
        self.expr = expr
        self.params = tuple(params)
        self.unit = unit
        self._vector_fn: Callable[..., Any] | None = None
        self._exact_fn: Callable[..., Any] | None = None

    # Compiled on first use, by printing the expression as Python source and exec'ing it:
    # ``sympy.lambdify`` does the same with far more machinery (about 25 ms a call and 0.2 s of
    # imports on the first), which would dominate the command line's start-up time.
    @property
    def _vector(self) -> Callable[..., Any]:
        if self._vector_fn is None:
            self._vector_fn = _compile(self.expr, self.params, NumPyPrinter(
                {"fully_qualified_modules": True, "inline": True,
                 "allow_unknown_functions": False, "user_functions": {}}), {"numpy": np})
        return self._vector_fn

    @property
    def _exact(self) -> Callable[..., Any]:
        if self._exact_fn is None:
            self._exact_fn = _compile(self.expr, self.params, _ExactPrinter(
                {"fully_qualified_modules": False, "inline": True,
                 "allow_unknown_functions": False, "user_functions": {}}),
                {"Fraction": Fraction, "math": math, "inf": math.inf})
        return self._exact_fn

    def __call__(self, *args: Any) -> Any:
        if len(args) != len(self.params):
            raise TypeError(f"{self.name} takes {len(self.params)} arguments, got {len(args)}")
        if all(isinstance(a, (Integral, Fraction)) and not isinstance(a, np.ndarray) for a in args):
            exact_args = [Fraction(int(a)) if isinstance(a, Integral) else a for a in args]
            try:
                return _exact_value(self._exact(*exact_args))
            except ZeroDivisionError:
                return math.inf
        # float64 throughout: integer arrays would overflow int64 silently (prefill FLOPs of a
        # 70B model over a few million tokens exceed 2**63)
        vargs = [np.asarray(a, dtype=np.float64) for a in args]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = self._vector(*vargs)
        if isinstance(out, np.ndarray) and out.ndim == 0:
            return out.item()
        if isinstance(out, np.generic):
            return out.item()
        return out

    def subs(self, *args: Any) -> sp.Expr:
        """Evaluate symbolically with sympy (slow; used by tests and for exact display)."""
        return self.expr.xreplace({s: sp.nsimplify(a) if isinstance(a, float) else sp.Integer(a)
                                   if isinstance(a, Integral) else sp.Rational(a.numerator, a.denominator)
                                   if isinstance(a, Fraction) else a
                                   for s, a in zip(self.params, args)})

    def latex(self, lhs: str | None = None) -> str:
        """LaTeX of the expression, ``lhs = expr`` when a left-hand side is given."""
        body = sp.latex(self.expr)
        return f"{lhs} = {body}" if lhs else body

    def __repr__(self) -> str:
        return f"Formula({self.name}: {self.expr})"


FORMULAS: dict[str, tuple[Formula, Callable[..., Any]]] = {}


def register(formula: Formula) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator pairing a public function with its formula (for tests and the book)."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        FORMULAS[formula.name] = (formula, fn)
        fn.formula = formula  # type: ignore[attr-defined]
        return fn

    return deco
