"""The numeric function of every formula, generated from its sympy expression (no sympy here).

``from llm_arithmetic.numeric import kv_cache_bytes_per_token`` gives a plain function with an
explicit keyword signature: exact on Python integers (a byte count stays an ``int``),
vectorized on NumPy arrays. :mod:`tools.generate` writes ``_numeric.py`` (and
the book's JavaScript module) from the formula registry; a test checks both are up to date.
"""
from ._numeric import *  # noqa: F401,F403
from ._numeric import __all__  # noqa: F401
from . import _numeric as _generated

#: Each function's keyword arguments in order (empty while the generated module predates it).
PARAMS = getattr(_generated, "PARAMS", {})
