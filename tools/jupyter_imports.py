"""Faster imports of the Jupyter stack in build and test processes: jsonschema's optional IRI
format check left out.

jsonschema, which nbformat imports (and with it myst-nb's glue, nbval, nbclient, nbgrader and
Jupyter Book), checks the ``iri`` string format only when the ``rfc3987_syntax`` package is
installed, and that package compiles 39 Lark grammars when it is imported: about 3 s of CPU in
every process that imports nbformat (every notebook kernel that glues a number, every pytest
process, every book build). Nothing in this project validates an IRI, so the import is refused:
``import rfc3987_syntax`` raises ImportError and jsonschema leaves that one check out.

- :func:`refuse_iri_grammars`: for the rest of the process (the book build,
  ``scripts/build_book.py``; the ``nbgrader`` command of ``tests/test_nbgrader.py``);
- ``-p tools.pytest_no_iri_grammars`` in pytest.ini: for a pytest process, loaded before the
  plugins that import nbformat (nbval);
- a notebook's kernel refuses it only while myst-nb's glue loads, and leaves a reader's kernel
  as it was: :func:`llm_arithmetic.book.display.without_iri_grammars`, in the package because
  kernels on Binder run it.

>>> from llm_arithmetic.book.display import IRI_MODULE
>>> IRI_MODULE == MODULE
True
"""
from __future__ import annotations

import sys

__all__ = ["refuse_iri_grammars"]

MODULE = "rfc3987_syntax"


def refuse_iri_grammars() -> None:
    """``import rfc3987_syntax`` fails from now on in this process (unless it was imported)."""
    sys.modules.setdefault(MODULE, None)  # type: ignore[arg-type]
