"""The book's maps list every page of `_toc.yml` (issue 28, item 3): the start page's map,
section 1.6 (the map in chapter 1) and README's list of chapters (written from `_toc.yml` by
scripts/sync_metadata.py; tests/test_release.py checks that it is up to date). A chapter added
to the table of contents and left out of a map fails here."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import sync_metadata  # noqa: E402


def _docs(text: str) -> set[str]:
    """The pages a text links with {doc}, as docnames relative to the repository."""
    return {m.lstrip("/") for m in re.findall(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`", text)}


def _map_section(text: str) -> str:
    return text.split("## The map of the book", 1)[1].split("\n## ", 1)[0]


def _pages(parts: set[str] | None = None) -> list[str]:
    return [f.relative_to(REPO).with_suffix("").as_posix()
            for caption, files in sync_metadata.toc_pages() if parts is None or caption in parts
            for f in files if "exercises/" not in f.as_posix()]


def test_start_page_map_lists_every_page():
    text = _map_section((REPO / "book" / "intro.md").read_text(encoding="utf8"))
    missing = [p for p in _pages() if p != "book/intro" and p not in _docs(text)]
    assert not missing, f"the start page's map leaves out {missing}"


def test_chapter_one_map_lists_every_chapter():
    """Section 1.6 names every chapter of Foundations and Serving, and the other parts."""
    cells = json.loads((REPO / "notebooks" / "01-puzzle.ipynb").read_text(encoding="utf8"))
    text = _map_section("\n".join("".join(c["source"]) for c in cells["cells"]
                                  if c["cell_type"] == "markdown"))
    named = {d if "/" in d else f"notebooks/{d}" for d in _docs(text)}
    missing = [p for p in _pages({"Foundations", "Serving", "Labs"})
               if p != "notebooks/01-puzzle" and p not in named]
    assert not missing, f"section 1.6 leaves out {missing}"


def test_readme_lists_every_page_in_order():
    text = (REPO / "README.md").read_text(encoding="utf8")
    listed = re.findall(r"^- .*\(`([^`]+)`\)$", text.split(sync_metadata.CHAPTERS_START)[1]
                        .split(sync_metadata.CHAPTERS_END)[0], re.M)
    assert [Path(p).with_suffix("").as_posix() for p in listed] == _pages()
