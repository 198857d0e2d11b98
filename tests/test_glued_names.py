"""A value glued into prose is a number or a name, never English words.

The Chinese edition translates the Markdown around a ``{glue:text}`` role, not the value the
role pastes: that comes from the notebook's outputs, as the English edition glued it. A glued
"16 to 80", "the NVIDIA GeForce RTX 4090" or a whole clause therefore shows in English on the
Chinese page. This test reads the committed outputs of every notebook (no kernel: a second at
most), takes each text glue that a Markdown cell pastes (or a page of book/, with
``{glue:text}`/notebooks/NAME.ipynb::name```), and fails when its value holds a word that is
none of

* a name from the catalog: a model's or a chip's display name (also the chip's name without its
  vendor, as the book's two short forms print it), a catalog key, a weight format, a runtime of
  the forecast, a ``model_type`` the config readers take (``catalog.readers.FAMILIES``: the
  key a ``config.json`` names its family by, as code, not English);
* a unit (``UNITS``);
* a token with digits ("7B", "H100", "fp16", "Q4_0"), which the rule never sees as a word.

What such a value should become instead: glue the numbers apart (``{glue:text}`lo` to
{glue:text}`hi```), write the words in the prose, and where the words depended on a comparison,
assert the comparison in the notebook's code so the prose stays true.
``tests/test_second_setting.py`` applies the same rule to the second setting's run.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

from test_second_setting import GLUE_ROLE_RE, glued, load, source

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (REPO / "notebooks").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)

#: Units a glued quantity may carry (the book's: bytes, seconds, rates).
UNITS = frozenset({"B", "kB", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB",
                   "ns", "us", "µs", "ms", "s", "W", "J", "kJ",
                   "GB/s", "TB/s", "FLOP/s", "TFLOP/s", "PFLOP/s", "FLOPs", "TFLOPs"})
#: A word: letters not joined to a digit, an underscore or another letter ("0.5B" is no word).
WORD = re.compile(r"(?<![\w.])[^\W\d_]+(?:/[^\W\d_]+)?(?![\w])")
#: Glue roles a Markdown cell uses to paste text ({glue:text}, {glue:}, {glue}).
TEXT_ROLE = re.compile(r"\{glue(?::text)?:?\}`([^`:]+)")


@lru_cache(maxsize=1)
def names() -> tuple[str, ...]:
    """Every name a glued value may hold, longest first (so that a longer name is removed
    before a shorter one inside it)."""
    from llm_arithmetic import FORMATS, HARDWARE, model_names
    from llm_arithmetic.book.batching import short_chip
    from llm_arithmetic.book.chapters.speed_of_light import short_chip_name
    from llm_arithmetic.book.display import chip_name, model_name
    from llm_arithmetic.catalog.readers import FAMILIES
    from llm_arithmetic.forecast import known_runtimes

    found = (set(FORMATS) | set(HARDWARE) | set(model_names()) | set(known_runtimes())
             | set(FAMILIES))
    for chip in HARDWARE.values():  # "NVIDIA H100 SXM (80GB)", "NVIDIA H100 SXM", "H100 SXM"
        found |= {chip.label, chip_name(chip), short_chip_name(chip), short_chip(chip)}
    found |= {model_name(key) for key in model_names()}
    return tuple(sorted((n for n in found if n), key=len, reverse=True))


@lru_cache(maxsize=1)
def names_pattern() -> re.Pattern[str]:
    """One pattern for every name, longest first: at each place the longest name that matches
    is the one removed. (A pattern per name, 500 of them, overflowed `re`'s cache and was
    compiled again for every glued value: 20 CPU-seconds for this file.)"""
    return re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, names())) + r")(?![\w-])")


def english_words(value: str) -> list[str]:
    """The words of a glued value that are neither a catalog name nor a unit."""
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]  # a string's text/plain is its repr
    text = names_pattern().sub(" ", text)
    return [w for w in WORD.findall(text) if w not in UNITS]


def pasted_text(nb: dict) -> set[str]:
    """The names of the glues a Markdown cell of `nb` pastes with a text role."""
    return {name for c in nb["cells"] if c["cell_type"] == "markdown"
            for name in TEXT_ROLE.findall(source(c))}


def offenders(nb: dict) -> dict[str, list[str]]:
    """{glue name: its English words} of the text glues `nb`'s prose pastes."""
    values = glued(nb)
    found = {n: english_words(values[n]) for n in sorted(pasted_text(nb)) if n in values}
    return {n: w for n, w in found.items() if w}


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


#: A page of book/ pastes a notebook's glue as {glue:text}`/notebooks/NAME.ipynb::name:fmt`.
PAGE_ROLE = re.compile(r"\{glue(?::text)?:?\}`/?([^`:]+\.ipynb)::([^`:]+)")
PAGES = sorted(p for p in (REPO / "book").rglob("*.md") if p.name != "STYLE.md")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_glued_prose_holds_no_english(path):
    bad = offenders(load(path))
    assert not bad, (f"{rel(path)}: text glued into prose holds English words, which the "
                     f"Chinese edition cannot translate: {bad}; glue the numbers and names, "
                     "write the words in the prose")


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_glue_pasted_into_a_page_holds_no_english(page):
    """The same rule for what a page of book/ pastes from a notebook's glue."""
    bad = {}
    for notebook, name in PAGE_ROLE.findall(page.read_text(encoding="utf8")):
        values = glued(load(REPO / notebook))
        assert name in values, f"{rel(page)}: {notebook} glues no {name}"
        if words := english_words(values[name]):
            bad[f"{notebook}::{name}"] = words
    assert not bad, f"{rel(page)}: text glued into prose holds English words: {bad}"


def test_the_role_pattern_is_the_second_settings():
    """Every text role the second-setting test finds is one this test reads."""
    text = "{glue:text}`a:.1f` {glue}`b` {glue:}`c` {glue:math} d"
    assert set(TEXT_ROLE.findall(text)) == {"a", "b", "c"} <= set(GLUE_ROLE_RE.findall(text))


@pytest.mark.parametrize("value, words", [
    ("'NVIDIA GeForce RTX 4090'", []),
    ("'the NVIDIA GeForce RTX 4090'", ["the"]),
    ("'H100 SXM'", []),
    ("'16 to 80'", ["to"]),
    ("'0.57 ± 0.15 ms'", []),
    ("'34 MB (0.9%)'", []),
    ("'0.5B of 8B'", ["of"]),
    ("'Llama 3.3 70B Instruct'", []),
    ("'int4-g128'", []),
    ("'consumer GPU'", ["consumer", "GPU"]),
    ("'llama.cpp x SGLang'", ["x"]),
    ("1.25", []),
])
def test_the_rule(value, words):
    assert english_words(value) == words
