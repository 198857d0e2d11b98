"""Faster imports of the Jupyter stack: jsonschema's optional IRI format check left out.

jsonschema, which nbformat imports (and with it myst-nb's glue, nbval, nbclient, nbgrader and
Jupyter Book), checks the ``iri`` string format only when the ``rfc3987_syntax`` package is
installed, and that package compiles 39 Lark grammars when it is imported: about 3 s of CPU in
every process that imports nbformat (every notebook kernel that glues a number, every pytest
process, every book build). Nothing in this project validates an IRI, so the import is refused:
``import rfc3987_syntax`` raises ImportError and jsonschema leaves that one check out.

- :func:`without_iri_grammars`: refused while a block runs (the notebooks' ``glue``: a reader's
  kernel is left as it was);
- :func:`refuse_iri_grammars`: for the rest of the process (the book build);
- ``-p llm_arithmetic.pytest_no_iri_grammars`` in pytest.ini: for a pytest process, loaded
  before the plugins that import nbformat (nbval).

>>> import sys
>>> before = sys.modules.get("rfc3987_syntax", "absent")
>>> with without_iri_grammars():
...     sys.modules["rfc3987_syntax"] is None  # so `import rfc3987_syntax` raises ImportError
True
>>> sys.modules.get("rfc3987_syntax", "absent") is before  # as it was
True
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

__all__ = ["refuse_iri_grammars", "without_iri_grammars"]

MODULE = "rfc3987_syntax"


def refuse_iri_grammars() -> None:
    """``import rfc3987_syntax`` fails from now on in this process (unless it was imported)."""
    sys.modules.setdefault(MODULE, None)  # type: ignore[arg-type]


@contextmanager
def without_iri_grammars() -> Iterator[None]:
    """``import rfc3987_syntax`` fails inside the block; afterwards it works again."""
    refused = MODULE not in sys.modules
    if refused:
        sys.modules[MODULE] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if refused and MODULE in sys.modules and sys.modules[MODULE] is None:
            del sys.modules[MODULE]
