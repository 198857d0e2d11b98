"""The student edition: the same notebooks with every solution removed.

Convention (shared by the chapter notebooks and notebooks/exercises/):

* A cell tagged ``solution`` that contains the nbgrader markers ``### BEGIN SOLUTION`` and
  ``### END SOLUTION`` keeps everything outside the markers; the lines between them (markers
  included) become a stub, ``answer = None  # YOUR CODE HERE`` indented like the marker. The
  tag is removed and the outputs are cleared, so the cell's ``check(...)`` call reports
  "not yet" until the learner fills it in.
* Any other cell tagged ``solution`` (the ``{solution-start}`` ... ``{solution-end}`` dropdowns
  of the chapters, their code) is dropped.
* A cell that nbgrader grades (metadata ``nbgrader.grade``, the cells holding ``check(...)``)
  keeps its source and nbgrader metadata but loses its outputs: the instructor's copy stores
  "correct" there.

Usage as a library: ``student_notebook(nb) -> nb`` (a new notebook; the argument is not changed);
``strip_solution_blocks(text) -> text`` for MyST Markdown pages. ``scripts/make_student.py``
applies both to a copy of the book and builds it (``make student``).
"""
from __future__ import annotations

import copy
import re
from typing import Any

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = "answer = None  # YOUR CODE HERE"
_BEGIN_RE = re.compile(r"^([ \t]*)### BEGIN SOLUTION[ \t]*$")
_END_RE = re.compile(r"^[ \t]*### END SOLUTION[ \t]*$")


def cell_source(cell: Any) -> str:
    """A notebook cell's source as one string (nbformat stores a string or a list of lines)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _tags(cell: Any) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def stub_solution(source: str) -> str:
    """Replace each marked solution region of ``source`` by :data:`STUB`.

    >>> print(stub_solution("x = 1\\n### BEGIN SOLUTION\\nanswer = 2 * x\\n### END SOLUTION\\nprint(answer)"))
    x = 1
    answer = None  # YOUR CODE HERE
    print(answer)
    """
    out: list[str] = []
    inside = False
    for line in source.split("\n"):
        m = _BEGIN_RE.match(line)
        if m and not inside:
            inside = True
            out.append(m.group(1) + STUB)
        elif inside and _END_RE.match(line):
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{BEGIN!r} without {END!r} in a solution cell")
    return "\n".join(out)


def is_solution(cell: Any) -> bool:
    """Whether a cell carries the ``solution`` tag."""
    return "solution" in _tags(cell)


def student_notebook(nb: Any) -> Any:
    """A copy of notebook ``nb`` (a dict or nbformat node) without any solution.

    >>> nb = {"cells": [
    ...     {"cell_type": "markdown", "metadata": {}, "source": "Question"},
    ...     {"cell_type": "markdown", "metadata": {"tags": ["solution"]}, "source": "Answer"},
    ...     {"cell_type": "code", "metadata": {"tags": ["solution"]}, "outputs": [1],
    ...      "execution_count": 3,
    ...      "source": "### BEGIN SOLUTION\\nanswer = 42\\n### END SOLUTION\\ncheck('x', answer)"}]}
    >>> [c["source"] for c in student_notebook(nb)["cells"]]
    ['Question', "answer = None  # YOUR CODE HERE\\ncheck('x', answer)"]
    """
    new = copy.deepcopy(nb)
    cells = []
    for cell in new["cells"]:
        if not is_solution(cell):
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade") and \
                    cell["cell_type"] == "code":
                cell["outputs"] = []
                cell["execution_count"] = None
            cells.append(cell)
            continue
        src = cell_source(cell)
        if BEGIN not in src:
            continue  # a prose or code solution: dropped
        cell["source"] = stub_solution(src)
        # the stub is where the student types: not collapsed as the instructor's solution is
        tags = [t for t in _tags(cell) if t not in ("solution", "hide-input")]
        if tags:
            cell["metadata"]["tags"] = tags
        else:
            cell["metadata"].pop("tags", None)
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cells.append(cell)
    new["cells"] = cells
    return new


_OPEN_RE = re.compile(r"^[ \t]*(`{3,}|~{3,}|:{3,})[ \t]*\{([\w-]+)\}")


def strip_solution_blocks(text: str) -> str:
    """Remove every ``{solution}`` directive, and every ``{solution-start}`` ... ``{solution-end}``
    range (both directives included), from MyST Markdown ``text`` (a page under book/).

    A directive ends at the first line that is only a fence of its own character, at least as
    long as its opening fence (MyST's rule), so nested code blocks with shorter fences stay inside.

    >>> page = "```{exercise} Q\\n:label: ex-a-b\\nAsk.\\n```\\n````{solution} ex-a-b\\n```python\\n1\\n```\\n````\\nAfter."
    >>> print(strip_solution_blocks(page))
    ```{exercise} Q
    :label: ex-a-b
    Ask.
    ```
    After.
    >>> gated = "Before.\\n```{solution-start} ex-a-b\\n```\\nAnswer.\\n```{solution-end}\\n```\\nAfter."
    >>> print(strip_solution_blocks(gated))
    Before.
    After.
    """
    lines = text.split("\n")
    out: list[str] = []
    i, gated = 0, False
    while i < len(lines):
        m = _OPEN_RE.match(lines[i])
        name = m.group(2) if m else None
        if name in ("solution", "solution-start", "solution-end") or gated:
            if name == "solution-start":
                gated = True
            elif name == "solution-end":
                gated = False
            if m:  # skip the directive up to its closing fence
                fence = m.group(1)
                close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
                i += 1
                while i < len(lines) and not close.match(lines[i]):
                    i += 1
            i += 1
            continue
        out.append(lines[i])
        i += 1
    if gated:
        raise ValueError("{solution-start} without {solution-end}")
    return "\n".join(out)


def has_solution(nb: Any) -> bool:
    """Whether any cell of ``nb`` still holds a solution (a tag, a marker or a directive)."""
    for cell in nb["cells"]:
        src = cell_source(cell)
        if (is_solution(cell) or BEGIN in src or "{solution" in src
                or re.search(r"^:::+\s*\{solution", src, re.M)):
            return True
    return False


if __name__ == "__main__":  # pragma: no cover - the command line lives in make_student.py
    import sys

    import nbformat

    for path in sys.argv[1:]:
        nb = nbformat.read(path, as_version=4)
        nbformat.write(nbformat.from_dict(student_notebook(nb)), path)
