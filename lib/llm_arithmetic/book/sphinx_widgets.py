"""Sphinx extension: ship the widgets' JavaScript with every HTML build.

Listed in ``_config.yml`` (``sphinx.extra_extensions``). When an HTML build finishes, it writes
:func:`llm_arithmetic.book.export.write_static`'s files (``formulas.js``, ``catalog.json``,
``widgets.js``) into ``_static/llm-arithmetic/`` of the output, generated afresh from the
package, so the book's pages always run the formulas and catalogs of the package that built
them. Pages load ``widgets.js`` with a script tag (``book/widgets/README.md``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .export import STATIC_DIR, write_static


def _write(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    write_static(Path(app.outdir) / STATIC_DIR)


def setup(app: Any) -> dict[str, Any]:
    app.connect("build-finished", _write)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
