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

__all__ = ["BookOrder", "latex", "latex_terms"]


def _glossary_rank() -> dict[sp.Symbol, int]:
    from .symbols import GLOSSARY

    return {info.symbol: i for i, info in enumerate(GLOSSARY.values())}


def _bandwidth_symbols() -> frozenset[sp.Symbol]:
    from .symbols import GLOSSARY

    return frozenset(info.symbol for info in GLOSSARY.values() if info.unit == "B/s")


class BookOrder:
    """The book's ordering rules (module docstring), for any sympy printer: mixed in before
    sympy's LaTeX printer (:func:`latex`) or its plain-text one (``describe --explain``'s
    equations), so that both print the terms, factors and arguments in one order."""

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
    def _ordered_args(self, expr) -> list:
        """The arguments of a Max or Min in the book's order."""
        return sorted(expr.args, key=lambda a: (0 if self._divides_by_bandwidth(a) else 1,
                                                self._arg_rank(a), sp.default_sort_key(a)))

    def _arg_rank(self, arg) -> int:
        """A number first, then by the earliest-ranked symbol an argument holds."""
        if arg.is_number:
            return -1
        return min((self._rank.get(s, 20_000) for s in arg.free_symbols), default=20_000)

    def _divides_by_bandwidth(self, arg) -> bool:
        _, den = sp.fraction(arg)
        return bool(den.free_symbols & self._memory)


class _BookPrinter(BookOrder, LatexPrinter):
    """sympy's LaTeX printer with the book's ordering rules (module docstring)."""

    def _hprint_variadic_function(self, expr, exp=None) -> str:
        if self.order != "none":
            return super()._hprint_variadic_function(expr, exp)
        tex = r"\%s\left(%s\right)" % (str(expr.func).lower(),
                                       ", ".join(self._print(a) for a in self._ordered_args(expr)))
        return tex if exp is None else r"%s^{%s}" % (tex, exp)

    _print_Min = _print_Max = _hprint_variadic_function


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


#: How wide a line of a multi-line equation may be, in the units of :func:`_visible_width`:
#: about what a phone's column (360 px) holds at the book's size.
LINE_WIDTH = 22
#: How wide a piecewise expression's condition may be on its own line (after ``\qquad``):
#: 25.6 fits a phone's column, 29.1 (the critical batch's) does not (measured in Chromium at
#: 390 px, tests/test_browser.py).
CONDITION_WIDTH = 27
#: A relation's operator as the book prints it.
_RELATION_TEX = {"GreaterThan": r"\geq", "LessThan": r"\leq", "StrictGreaterThan": ">",
                 "StrictLessThan": "<", "Equality": "="}


def _visible_width(tex: str) -> float:
    """A rough width of LaTeX as set: a character of the baseline 1 (an operator or a comma 2,
    with its spaces), of a subscript or superscript 0.7, a symbol's command 1, layout commands
    and braces nothing, a fraction the wider of its two parts."""
    import re

    def frac(m: "re.Match[str]") -> str:
        return "x" * round(max(_visible_width(m.group(1)), _visible_width(m.group(2))))

    while r"\frac{" in tex:
        new = re.sub(r"\\frac\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}",
                     frac, tex)
        if new == tex:
            break
        tex = new
    small = sum(len(re.sub(r"\\[a-zA-Z]+|[{}\s]", "", g))
                for g in re.findall(r"[_^]\{([^{}]*)\}", tex))
    tex = re.sub(r"[_^]\{[^{}]*\}", "", tex)
    tex = re.sub(r"\\(left|right|quad|qquad|displaystyle|text|cdot|,|:)(?![a-zA-Z])", "", tex)
    relations = len(re.findall(r"[-+=<>,]|\\(?:geq|leq|approx)(?![a-zA-Z])", tex))
    tex = re.sub(r"\\[a-zA-Z]+", "x", tex)
    return len(re.sub(r"[{}\s.]", "", tex)) + 0.7 * small + relations


def _pack(pieces: list[str]) -> list[str]:
    """Consecutive pieces joined on one line while the line stays within LINE_WIDTH."""
    lines: list[str] = []
    for piece in pieces:
        if lines and _visible_width(f"{lines[-1]} {piece}") <= LINE_WIDTH:
            lines[-1] = f"{lines[-1]} {piece}"
        else:
            lines.append(piece)
    return lines


def latex_lines(expr: Any, order: Iterable[str] = ()) -> list[str]:
    """``expr`` set over several lines for a narrow column: a sum one term per line, and within
    a term a product's sum in parentheses one term per line, a max or min one argument per line,
    a piecewise expression with each condition under its value. The first line carries no
    sign, each later one its own (for ``&\\quad`` rows of an ``aligned`` block).

    >>> from llm_arithmetic.core import symbols as sym
    >>> d, h, kv, dh = sym.d_model, sym.n_heads, sym.n_kv_heads, sym.d_head
    >>> attention_and_mlp = 2 * d * h * dh + 2 * d * kv * dh + 3 * d * sym.d_ff
    >>> expr = sym.n_layers * attention_and_mlp + sym.n_vocab * d
    >>> for line in latex_lines(expr, order=("n_layers", "d_model", "n_heads", "n_kv_heads")):
    ...     print(line)
    L \\left(3 d_{model} d_{ff} + 2 d_{model} H d_{head} \\right.
    \\quad \\left. + 2 d_{model} H_{kv} d_{head}\\right)
    + d_{model} V
    >>> from llm_arithmetic.formulas import serving  # of two sums, the wider is split
    >>> f = serving.prefix_flops_saved
    >>> for line in latex_lines(f.expr, order=f.params):
    ...     print(line)
    \\left(B - 1\\right) \\left(T_{p} \\left(2 P_{mm} - 2 P_{head}\\right) \\right.
    \\quad \\left. + 2 L H d_{head} T_{p} \\left(T_{p} + 1\\right)\\right)
    >>> print(*latex_lines(sym.n_layers * (d + sym.d_ff)))  # short: one line
    L \\left(d_{ff} + d_{model}\\right)
    """
    printer = _BookPrinter(order=tuple(order))
    expr = sp.sympify(expr)
    whole = printer._print(expr)
    if _visible_width(whole) <= LINE_WIDTH:
        return [whole]
    terms = printer._as_ordered_terms(expr) if expr.is_Add else [expr]
    lines: list[str] = []
    run: list[str] = []  # terms that fit whole, packed onto shared lines
    for i, term in enumerate(terms):
        sign = "-" if expr.is_Add and term.could_extract_minus_sign() else "+"
        term = -term if sign == "-" else term
        lead = "" if i == 0 and sign == "+" else f"{sign} "
        tex = printer._print(term)
        if _visible_width(tex) <= LINE_WIDTH:
            run.append(lead + tex)
            continue
        lines += _pack(run)
        run = []
        parts = _term_lines(printer, term)
        lines += [lead + parts[0], *parts[1:]]
    return lines + _pack(run)


def _condition_lines(printer: _BookPrinter, cond: Any) -> list[str]:
    """A piecewise condition, ``for ...``, as one line, or two where it is wider than
    :data:`CONDITION_WIDTH`: a relation with the subtracted terms of a side compared with zero
    moved across (``a - b >= 0`` as ``a >= b``), broken before its operator.

    >>> from llm_arithmetic.formulas import roofline
    >>> f = roofline.critical_context  # S_inf is infinite where this condition holds:
    >>> # kappa R_peak R_attn - 4 L H d_head beta_mem R_peak <= 0, too wide, over two lines
    >>> for line in _condition_lines(_BookPrinter(order=f.params), f.expr.args[0].cond):
    ...     print(line)
    \\text{for}\\: \\kappa R_{peak} R_{attn}
    \\leq 4 L H d_{head} \\beta_{mem} R_{peak}
    >>> f = roofline.critical_batch_size  # what memory moves in a sequence's compute time
    >>> for line in _condition_lines(_BookPrinter(order=f.params), f.expr.args[0].cond):
    ...     print(line)  # (its fractions set small): one line
    \\text{for}\\: \\beta_{mem} \\left(\\frac{2 P_{mm}}{R_{peak}} + \\frac{4 L H d_{head} S}{R_{attn}}\\right) \\leq \\kappa S
    """
    tex = printer._print(cond)
    op = _RELATION_TEX.get(type(cond).__name__)
    if _visible_width(tex) <= CONDITION_WIDTH or op is None:
        return [r"\text{for}\: " + tex]
    lhs, rhs = cond.lhs, cond.rhs
    if rhs == 0 and lhs.is_Add:
        neg = [-t for t in lhs.args if t.could_extract_minus_sign()]
        pos = [t for t in lhs.args if not t.could_extract_minus_sign()]
        if neg and pos:
            lhs, rhs = sp.Add(*pos), sp.Add(*neg)
    return [r"\text{for}\: " + printer._print(lhs), f"{op} {printer._print(rhs)}"]


def _signed_terms(printer: _BookPrinter, add: Any) -> list[str]:
    """The terms of a sum as ``printer`` orders them, each later one with its sign."""
    pieces = []
    for k, t in enumerate(printer._as_ordered_terms(add)):
        minus = t.could_extract_minus_sign()
        tex = printer._print(-t if minus else t)
        pieces.append(f"- {tex}" if minus else tex if k == 0 else f"+ {tex}")
    return pieces


def _term_lines(printer: _BookPrinter, term: Any) -> list[str]:
    """One term of a sum as lines (see latex_lines)."""
    if isinstance(term, sp.Piecewise):
        rows = []
        for value, cond in term.args:
            when = r"\text{otherwise}" if cond is sp.true else \
                r" \\ \qquad\qquad ".join(_condition_lines(printer, cond))
            rows.append(f"\\displaystyle {printer._print(value)} \\\\ \\qquad {when}")
        return [r"\begin{cases} " + r" \\ ".join(rows) + r" \end{cases}"]
    factors = sorted(term.args, key=printer._factor_key) if term.is_Mul else [term]
    split = [f for f in factors if f.is_Add or isinstance(f, (sp.Max, sp.Min))]
    if not split or any(f.is_Pow and f.exp.is_negative for f in factors):
        return [printer._print(term)]
    # of several sums the widest is set over lines ((B - 1) stays in front of the long one)
    inner = max(split, key=lambda f: _visible_width(printer._print(f)))
    rest = [f for f in factors if f is not inner]
    head = printer._print(sp.Mul(*rest, evaluate=False)) + " " if rest else ""
    if len(rest) == 1 and rest[0].is_Add:  # a lone sum in front keeps its parentheses
        head = f"\\left({head.strip()}\\right) "
    if inner.is_Add:
        pieces = _pack(_signed_terms(printer, inner))
        opener = r"\left("
    else:
        args = sorted(inner.args, key=lambda a: (0 if printer._divides_by_bandwidth(a) else 1,
                                                 printer._arg_rank(a), sp.default_sort_key(a)))
        opener, pieces, run = r"\%s\left(" % str(inner.func).lower(), [], []
        for k, a in enumerate(args):
            sep = "," if k < len(args) - 1 else ""
            tex = printer._print(a)
            if _visible_width(tex) <= LINE_WIDTH or not a.is_Add:
                run.append(tex + sep)
                continue
            # an argument too wide for a line, a sum: one term per line (packed), after the
            # arguments before it
            pieces += _pack(run)
            run = []
            terms = _signed_terms(printer, a)
            pieces += _pack(terms[:-1] + [terms[-1] + sep])
        pieces += _pack(run)
    if len(pieces) == 1:
        return [printer._print(term)]
    lines = [f"{head}{opener}{pieces[0]} \\right."]
    for k, p in enumerate(pieces[1:], start=2):
        close = r"\right)" if k == len(pieces) else r" \right."
        lines.append(f"\\quad \\left. {p}{close}")
    return lines
