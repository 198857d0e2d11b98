"""A number is shown once (issue 28, item 6): when a visible code cell prints a number, the prose
that follows it does not paste the same number again from a glue. The learner's printed line is
the result; the sentence after it explains it. Exercise solutions are exempt (a solution may
compare its printed result with an article's figure).

Read from the committed notebooks only (no execution); a second or less.
"""
import re

import pytest

from test_book_presentation import HIDDEN, PAGES, load, source, tags, text_outputs

GLUE_RE = re.compile(r"\{glue:text\}`([\w-]+)(?::([^`]*))?`")
NUMBER_RE = re.compile(r"\d[\d,]*(?:\.\d+)?")


def glue_values(nb) -> dict[str, str]:
    """Glue name -> the plain-text record of its value."""
    values = {}
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            text = o.get("data", {}).get("application/papermill.record/text/plain")
            if name and text is not None:
                values[name] = text
    return values


def as_pasted(value: str, spec: str) -> str | None:
    """The text `{glue:text}` pastes for a numeric value and a format spec; None if not numeric."""
    try:
        x = float(value)
    except ValueError:
        return None
    try:
        return format(int(x) if spec.endswith("d") else x, spec) if spec else None
    except ValueError:
        return None


def repeated(page: str) -> list[str]:
    nb = load(page)
    cells, values = nb["cells"], glue_values(nb)
    found = []
    for i, c in enumerate(cells):
        if c["cell_type"] != "code" or tags(c) & (HIDDEN | {"solution", "remove-output"}):
            continue
        printed = set(NUMBER_RE.findall("".join(text_outputs(c))))
        if not printed:
            continue
        for j in range(i + 1, min(i + 3, len(cells))):
            if cells[j]["cell_type"] != "markdown":
                break
            for m in GLUE_RE.finditer(source(cells[j])):
                shown = as_pasted(values.get(m.group(1), ""), m.group(2) or "")
                if shown and len(shown.strip("0.,")) >= 2 and shown in printed:
                    found.append(f"cell {i} prints {shown}; cell {j} pastes it again "
                                 f"({m.group(1)})")
    return found


@pytest.mark.parametrize("page", [p for p, _ in PAGES])
def test_prose_does_not_repeat_a_printed_number(page):
    assert not repeated(page)


def test_a_repeated_number_is_found(monkeypatch):
    nb = {"cells": [
        {"cell_type": "code", "metadata": {}, "source": "print(x)",
         "outputs": [{"output_type": "stream", "text": "3.36 tokens per step\n"},
                     {"output_type": "display_data", "metadata": {"scrapbook": {"name": "n"}},
                      "data": {"application/papermill.record/text/plain": "3.36"}}]},
        {"cell_type": "markdown", "metadata": {}, "source": "A step yields {glue:text}`n:.2f`."},
    ]}
    monkeypatch.setitem(repeated.__globals__, "load", lambda page: nb)
    assert repeated("x") == ["cell 0 prints 3.36; cell 1 pastes it again (n)"]
