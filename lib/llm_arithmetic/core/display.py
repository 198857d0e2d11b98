"""LaTeX of expressions as a person writes them.

Sympy orders the terms of a sum canonically when it prints (``-x + y``). The book's equations
keep the order in which a formula builds them (``y - x``, the memory time before the compute
time), so that prose can name the terms; :func:`latex` is the one printer every page, docstring
and the glossary use.

>>> import sympy as sp
>>> x, y = sp.symbols("x y", positive=True)
>>> latex(sp.Add(y, -x, evaluate=False))
'y - x'
"""
from __future__ import annotations

from typing import Any

import sympy as sp

__all__ = ["latex"]


def latex(expr: Any) -> str:
    """LaTeX of ``expr``, terms in the order the expression holds them."""
    return sp.latex(expr, order="none")
