"""What a chapter needs to show things, in one import: glue, tables, citations, equations.

Chapters open with one short line::

    from llm_arithmetic.book.display import glue, md_table, cite, show_formula

instead of pasting helpers. Outside the book's build (Colab, a plain Jupyter), :func:`glue`
does nothing, so the notebooks run anywhere.

>>> print(md_table(["model", "params"], [["llama-2-7b", "6,738,415,616"]], "lr").data)
| model | params |
| --- | ---: |
| llama-2-7b | 6,738,415,616 |
>>> cite(["finbarr2023llamacpp"])
'{cite:t}`finbarr2023llamacpp`'
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

__all__ = ["glue", "md_table", "cite", "escape", "show_formula", "round_sig"]


def round_sig(value: float, digits: int = 6) -> float:
    """``value`` rounded to ``digits`` significant digits: what glue stores, so that the last
    bits of a BLAS or libm result (which differ between CPUs) never reach a compared output.

    >>> round_sig(2.621626987410462), round_sig(123456789.0, 3)
    (2.62163, 123000000.0)
    """
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - int(math.floor(math.log10(abs(value)))))


def glue(name: str, value: Any, display: bool = False, digits: int = 6) -> None:
    """Hand ``value`` to the book's prose (myst-nb's ``glue``); floats are stored rounded to
    ``digits`` significant digits (the prose formats them further). A no-op without myst-nb."""
    try:
        from myst_nb import glue as _glue
    except ImportError:  # Colab, plain Jupyter
        return
    if isinstance(value, float):
        value = round_sig(value, digits)
    _glue(name, value, display=display)


def escape(text: str) -> str:
    """Escape what Markdown would read as emphasis or as the end of a table cell."""
    return str(text).replace("*", r"\*").replace("|", r"\|")


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]],
             align: str | None = None) -> Any:
    """A Markdown table (rendered by the book as a table); ``align``: one of l/r per column."""
    from IPython.display import Markdown

    align = align or "l" * len(header)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return Markdown("\n".join(lines))


def cite(keys: Iterable[str]) -> str:
    """MyST citations of bibliography keys, or a dash."""
    keys = list(keys)
    return ", ".join(f"{{cite:t}}`{k}`" for k in keys) if keys else "–"


def show_formula(name: str) -> Any:
    """A registered formula's equation, as the book prints it (LaTeX, left-hand side first)."""
    from IPython.display import Math

    from ..core.registry import all_formulas

    return Math(all_formulas()[name].latex())
