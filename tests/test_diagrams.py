"""The diagrams of mechanisms (issue 28): SVG files drawn by code kept in the repository.

- The generator (``book/_scripts/make_diagrams.py``) is deterministic and the committed files
  are what it draws now: regenerated into a temporary folder, every file is identical and no
  committed file is left over. After a catalog change, run the script and commit the result.
- Every SVG has a ``viewBox``, a ``<title>`` (its accessible name) and real ``<text>``, and is
  no wider than the column's drawing width.
- Every diagram is shown in a chapter as a numbered ``{figure}`` with a ``fig-`` name, alt text
  that describes it and a caption, and the chapter refers to it with ``{numref}``; every
  chapter of the numbered parts (notebook or MyST page) shows at least one, and the book at
  least ``MIN_DIAGRAMS``.
"""
import importlib.util
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "book" / "_scripts"
OUT = REPO / "book" / "_static" / "diagrams"
SVG_NS = "{http://www.w3.org/2000/svg}"
#: Diagrams the book's chapters show at least (issue 28).
MIN_DIAGRAMS = 25
#: Shortest alt text [characters], as for the glued figures (tests/test_book_presentation.py).
MIN_ALT = 60
FIGURE_RE = re.compile(r"```\{figure\} (\S+)\n((?::\w+:[^\n]*\n)*)\n(.*?)```", re.S)


def _generator():
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec = importlib.util.spec_from_file_location("make_diagrams", SCRIPTS / "make_diagrams.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(SCRIPTS))
    return mod


@pytest.fixture(scope="module")
def drawn() -> dict[str, str]:
    return _generator().all_diagrams()


def test_committed_files_are_what_the_generator_draws(drawn, tmp_path):
    _generator().write(tmp_path)
    committed = {p.stem: p.read_text(encoding="utf8") for p in OUT.glob("*.svg")}
    fresh = {p.stem: p.read_text(encoding="utf8") for p in tmp_path.glob("*.svg")}
    assert set(fresh) == set(drawn)
    stale = sorted(set(committed) - set(fresh))
    missing = sorted(set(fresh) - set(committed))
    changed = sorted(k for k in set(fresh) & set(committed) if fresh[k] != committed[k])
    assert not (stale or missing or changed), (
        f"book/_static/diagrams is out of date (stale {stale}, missing {missing}, changed "
        f"{changed}): run .venv/bin/python book/_scripts/make_diagrams.py and commit")
    assert _generator().all_diagrams() == drawn, "two runs of the generator differ"


def test_each_svg_has_title_viewbox_and_text(drawn):
    for stem, text in drawn.items():
        root = ET.fromstring(text)
        assert root.tag == f"{SVG_NS}svg", stem
        assert re.fullmatch(r"0 0 [\d.]+ [\d.]+", root.get("viewBox", "")), f"{stem}: viewBox"
        title = root.find(f"{SVG_NS}title")
        assert title is not None and len(title.text or "") >= 40, f"{stem}: no <title>"
        texts = [t.text for t in root.iter(f"{SVG_NS}text") if (t.text or "").strip()]
        assert len(texts) >= 3, f"{stem}: fewer than three <text> elements"
        assert float(root.get("width")) <= 500, f"{stem}: wider than 500"
        assert not re.search(r"20\d\d-\d\d-\d\d|id=\"[^\"]*[0-9a-f]{8}", text), (
            f"{stem}: a date or a random id")


def markdown(page: Path) -> str:
    """The Markdown of a chapter: a notebook's Markdown cells, or a MyST page."""
    if page.suffix == ".md":
        return page.read_text(encoding="utf8")
    nb = json.loads(page.read_text(encoding="utf8"))
    return "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def figures(page: Path) -> list[tuple[str, dict, str, str]]:
    """(image path, options, caption, page markdown) of every {figure} of a chapter."""
    md = markdown(page)
    out = []
    for m in FIGURE_RE.finditer(md):
        opts = dict(re.findall(r":(\w+): ?([^\n]*)", m.group(2)))
        out.append((m.group(1), opts, m.group(3).strip(), md))
    return out


def chapters() -> list[Path]:
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf8"))
    out = []
    for part in toc["parts"]:
        for ch in part["chapters"] if part.get("numbered") else []:
            out += [p for p in (REPO / f"{ch['file']}.ipynb", REPO / f"{ch['file']}.md")
                    if p.is_file()]
    return out


def test_diagrams_are_numbered_captioned_described_and_referenced(drawn):
    shown, problems = set(), []
    for page in chapters():
        diagrams = [f for f in figures(page) if "/diagrams/" in f[0]]
        if not diagrams:
            problems.append(f"{page.name}: no diagram of a mechanism")
        for src, opts, caption, md in diagrams:
            stem = Path(src).stem
            shown.add(stem)
            where = f"{page.name} {stem}"
            if not (page.parent / src).resolve().is_file():
                problems.append(f"{where}: {src} does not exist")
            name = opts.get("name", "")
            if not name.startswith("fig-"):
                problems.append(f"{where}: no :name: fig-...")
            elif f"{{numref}}`{name}`" not in md:
                problems.append(f"{where}: never referred to with {{numref}}")
            if len(opts.get("alt", "")) < MIN_ALT:
                problems.append(f"{where}: alt text shorter than {MIN_ALT} characters")
            if not caption:
                problems.append(f"{where}: no caption")
            if "diagram" not in opts.get("class", "").split():
                problems.append(f"{where}: no :class: diagram (the dark theme's inversion)")
    problems += [f"{stem}.svg is drawn but shown in no chapter"
                 for stem in sorted(set(drawn) - shown)]
    assert len(shown) >= MIN_DIAGRAMS
    assert not problems, "\n".join(problems)
