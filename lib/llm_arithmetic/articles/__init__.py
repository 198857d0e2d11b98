"""The source articles' own formulas and inputs, for reproducing their numbers.

One module per article. Where an article's formula differs from the package's (an extra factor,
a different convention), the article's version is a sympy expression here, named after the
article, so the reproduction uses the article's formula and the errata appendix can print both.
Inputs the article states (its bandwidth, its parameter counts) are constants here, each with the
sentence it comes from paraphrased in a comment.

Importing any article imports :mod:`llm_arithmetic.formulas` first (their formulas build on the
package's, and are evaluated through the generated numeric functions it binds). This package is
the top of the formula modules, so :func:`all_formulas` lives here: importing it imports every
module that registers a formula.
"""
from typing import Mapping

from .. import formulas  # noqa: F401
from ..core.registry import FORMULAS, Formula
from . import baseten, finbarr, karpathy, zeux  # noqa: F401  (each registers its formulas)


def all_formulas() -> Mapping[str, Formula]:
    """Every registered formula: the package's and the articles' (read-only)."""
    return FORMULAS
