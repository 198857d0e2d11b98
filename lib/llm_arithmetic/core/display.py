r"""LaTeX of expressions as a person writes them.

Sympy stores the terms of a sum and the factors of a product in a canonical order, and its
printer sorts the arguments of ``Max`` and ``Min`` whatever order they were given in. The book's
equations are printed so that prose can name their terms ("the memory time", "the weight
term") and a reader recognises the formula as one would write it by hand. :func:`latex` is the
one printer every page, docstring and the glossary use; it prints

* a sum in the order the expression holds it, except that subtracted terms follow the added
  ones and a constant comes last (``m - 1``, not ``-1 + m``; ``T + 1``, not ``1 + T``), or
  first when nothing else is added (``1 - x``);
* a product with its number first, then its symbols in the order of ``order`` (a formula passes
  its parameters, so that :math:`\kappa = L H_{kv} d_{head} b_{kv} / 4` reads like its ``def``),
  then the glossary's order, then compound factors (sums, functions) in their stored order;
* the arguments of ``Max`` and ``Min`` memory term first: an argument that divides by a
  bandwidth (a glossary symbol in B/s) before the others (:math:`t = \max(\mathcal{B}/\beta_{mem},
  \mathcal{F}/R_{peak})`, the memory time before the compute time), then numbers, then in the
  order of their symbols (as for a product).

>>> import sympy as sp
>>> x, y = sp.symbols("x y", positive=True)
>>> latex(sp.Add(y, -x, evaluate=False))
'y - x'
>>> from llm_arithmetic.core import symbols as sym
>>> latex(sym.n_layers * sym.n_kv_heads * sym.d_head * sym.bits_kv / 4,
...       order=("n_layers", "n_kv_heads", "d_head", "bits_kv"))
'\\frac{L H_{kv} d_{head} b_{kv}}{4}'
>>> latex(sym.n_mlp_mats - 1), latex(1 + sym.prompt), latex(1 - sym.tied)
('m - 1', 'T + 1', '1 - \\delta_{tie}')
>>> latex(sp.Max(sym.step_flops / sym.peak_flops, sym.step_bytes / sym.bandwidth))
'\\max\\left(\\frac{\\mathcal{B}}{\\beta_{mem}}, \\frac{\\mathcal{F}}{R_{peak}}\\right)'
"""
from __future__ import annotations

from typing import Any, Iterable

import sympy as sp
from sympy.printing.latex import LatexPrinter

__all__ = ["latex", "latex_terms"]


def _glossary_rank() -> dict[sp.Symbol, int]:
    from .symbols import GLOSSARY

    return {info.symbol: i for i, info in enumerate(GLOSSARY.values())}


def _bandwidth_symbols() -> frozenset[sp.Symbol]:
    from .symbols import GLOSSARY

    return frozenset(info.symbol for info in GLOSSARY.values() if info.unit == "B/s")


class _BookPrinter(LatexPrinter):
    """sympy's LaTeX printer with the book's ordering rules (module docstring)."""

    def __init__(self, order: Iterable[str] = (), **settings: Any) -> None:
        super().__init__({"order": "none", **settings})
        from .symbols import GLOSSARY

        rank = {s: 10_000 + i for s, i in _glossary_rank().items()}
        for i, name in enumerate(order):
            if name in GLOSSARY:
                rank[GLOSSARY[name].symbol] = i
        self._rank = rank
        self._memory = _bandwidth_symbols()

    # ---- sums: added terms, then subtracted terms, then constants -----------------------------
    def _as_ordered_terms(self, expr, order=None):
        terms = list(expr.args) if self.order == "none" else super()._as_ordered_terms(expr, order)
        if not expr.is_Add:
            return terms
        numbers = [t for t in terms if t.is_number]
        rest = [t for t in terms if not t.is_number]
        plus = [t for t in rest if not t.could_extract_minus_sign()]
        minus = [t for t in rest if t.could_extract_minus_sign()]
        if not plus:  # 1 - x, not -x + 1
            lead = [t for t in numbers if not t.could_extract_minus_sign()]
            numbers = [t for t in numbers if t.could_extract_minus_sign()]
            return lead + minus + numbers
        return plus + minus + numbers

    # ---- products: number, symbols in the formula's order, compound factors -------------------
    def _factor_key(self, factor) -> tuple:
        if factor.is_number:
            return (0, 0)
        base = factor.base if factor.is_Pow else factor
        if base.is_Symbol:
            # a divisor (x**-1) keeps its place among the symbols; fraction() splits it off
            return (1, self._rank.get(base, 20_000))
        return (2, 0)

    def _print_Mul(self, expr) -> str:
        if self.order == "none" and expr.is_Mul:
            args = sorted(expr.args, key=self._factor_key)  # stable: ties keep stored order
            if list(args) != list(expr.args):
                expr = sp.Mul(*args, evaluate=False)
        return super()._print_Mul(expr)

    # ---- Max and Min: the memory term first --------------------------------------------------
    def _hprint_variadic_function(self, expr, exp=None) -> str:
        if self.order != "none":
            return super()._hprint_variadic_function(expr, exp)
        args = sorted(expr.args, key=lambda a: (0 if self._divides_by_bandwidth(a) else 1,
                                                self._arg_rank(a), sp.default_sort_key(a)))
        tex = r"\%s\left(%s\right)" % (str(expr.func).lower(),
                                       ", ".join(self._print(a) for a in args))
        return tex if exp is None else r"%s^{%s}" % (tex, exp)

    _print_Min = _print_Max = _hprint_variadic_function

    def _arg_rank(self, arg) -> int:
        """A number first, then by the earliest-ranked symbol an argument holds."""
        if arg.is_number:
            return -1
        return min((self._rank.get(s, 20_000) for s in arg.free_symbols), default=20_000)

    def _divides_by_bandwidth(self, arg) -> bool:
        _, den = sp.fraction(arg)
        return bool(den.free_symbols & self._memory)


def latex(expr: Any, order: Iterable[str] = ()) -> str:
    """LaTeX of ``expr`` as the book prints it (module docstring); ``order``: glossary names
    whose symbols lead the factors of a product, in that order (a formula's parameters)."""
    return _BookPrinter(order=tuple(order)).doprint(expr)


def latex_terms(expr: Any, order: Iterable[str] = ()) -> list[str]:
    """The terms of a sum as :func:`latex` orders them, each with its sign (``"+ x"``,
    ``"- y"``; the first without a plus), for an equation set over several lines.

    >>> from llm_arithmetic.core import symbols as sym
    >>> expr = sym.weight_bytes + sym.kv_cache_bytes_per_token * sym.context - sym.overhead
    >>> print(" | ".join(latex_terms(expr, order=("kv_cache_bytes_per_token", "context"))))
    W | + \\kappa S | - C_{0}
    """
    printer = _BookPrinter(order=tuple(order))
    if not sp.sympify(expr).is_Add:
        return [printer.doprint(expr)]
    out = []
    for i, term in enumerate(printer._as_ordered_terms(expr)):
        sign = "-" if term.could_extract_minus_sign() else "+"
        tex = printer.doprint(-term if sign == "-" else term)
        out.append(tex if i == 0 and sign == "+" else f"{sign} {tex}")
    return out
