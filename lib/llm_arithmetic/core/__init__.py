"""The package's foundations: units, errors, catalog look-ups, and (with sympy) the symbols,
the formula registry and the LaTeX printer. ``units``, ``errors`` and ``lookup`` import no
sympy, so the numeric path (the command line, :func:`llm_arithmetic.estimate`) stays fast."""
