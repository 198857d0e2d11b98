"""The source articles' own formulas and inputs, for reproducing their numbers.

One module per article. Where an article's formula differs from the package's (an extra factor,
a different convention), the article's version is a sympy expression here, named after the
article, so the reproduction uses the article's formula and the errata appendix can print both.
Inputs the article states (its bandwidth, its parameter counts) are constants here, each with the
sentence it comes from paraphrased in a comment.

Importing any article imports :mod:`llm_arithmetic.formulas` first (their formulas build on the
package's, and are evaluated through the generated numeric functions it binds).
"""
from .. import formulas  # noqa: F401
