"""`make pdf` (scripts/make_pdf.py): the printed book, checked on a sample of its pages.

The whole book prints in about a minute of Chromium per printing (two printings: the second
writes the page numbers into the contents), too long for `make test` on 2 cores; this file
prints four pages of the book through the same code (the start page, a chapter with a
calculator, one with numbered equations and a figure, the errata appendix: 20-30 s) and opens
the PDF with pypdf. The whole book is printed by `make pdf` and the release workflow, and
`make pdf` itself fails when a chapter of `_toc.yml` has no destination in the PDF.
"""
import re
from pathlib import Path

import pytest
import yaml

from conftest import REPO, require_chromium

SAMPLE = ["book/intro", "notebooks/01-puzzle", "notebooks/06-roofline", "book/errata"]


@pytest.fixture(scope="module")
def printed(book_html, tmp_path_factory):
    require_chromium()
    from scripts import make_pdf

    out = tmp_path_factory.mktemp("pdf") / "sample.pdf"
    assert make_pdf.main(["--html", str(book_html), "--out", str(out),
                          "--pages", ",".join(SAMPLE)]) == 0
    from pypdf import PdfReader

    return PdfReader(str(out))


@pytest.fixture(scope="module")
def texts(printed) -> list[str]:
    """The text of every printed page, extracted once (pypdf takes seconds for the sample)."""
    return [page.extract_text() for page in printed.pages]


def outline_titles(reader, items=None):
    for item in reader.outline if items is None else items:
        if isinstance(item, list):
            yield from outline_titles(reader, item)
        else:
            yield item.title


def destinations(reader) -> dict[str, int]:
    """Named destination -> page number (1-based)."""
    return {name.lstrip("/"): reader.get_destination_page_number(dest) + 1
            for name, dest in reader.named_destinations.items()}


def chapter_number(doc: str) -> int:
    """A document's chapter number in the HTML book: its place among the chapters of the
    numbered parts of _toc.yml (the parts are numbered straight through)."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf8"))
    numbered = [c["file"] for p in toc["parts"] if p.get("numbered") for c in p["chapters"]]
    return numbered.index(doc) + 1


def test_chapters_are_numbered_as_in_the_html_book(printed):
    chapters = [t for t in outline_titles(printed) if re.match(r"\d+\. \D", t)]
    # 1. The puzzle, 6. The roofline..., the errata's number: the HTML book's, kept in print
    want = [str(chapter_number(d)) for d in SAMPLE[1:]]
    assert [t.split(".")[0] for t in chapters] == want, chapters
    assert "6.1. The bound" in list(outline_titles(printed))  # sections in the bookmarks


def test_contents_lists_every_page_with_the_page_it_starts_on(printed, texts):
    contents = printed.pages[1]
    assert "Contents" in texts[1]
    numbers = [int(m) for m in re.findall(r"(\d+)\s*$", texts[1], re.M)]
    targets = [a.get_object()["/Dest"].lstrip("/") for a in contents.get("/Annots") or []]
    pages = destinations(printed)
    starts = [pages[t] for t in targets]
    assert targets == [make_pdf_anchor(doc) for doc in SAMPLE]
    # each line of the contents ends with the page its link leads to, in order
    assert numbers[:len(starts)] == starts, (numbers, starts)  # then the footer: 2 / N
    assert starts == sorted(starts) and starts[0] == 3  # after the title page and the contents


def make_pdf_anchor(doc):
    from scripts.make_pdf import anchor

    return anchor(doc)


def test_every_page_carries_its_number(texts):
    total = len(texts)
    assert total > 20
    for number in (1, total // 2, total):
        text = texts[number - 1]
        assert re.search(rf"\b{number} / {total}\s*$", text), text[-80:]


def test_internal_links_point_into_the_document(printed):
    names = {n.lstrip("/") for n in printed.named_destinations}
    links = [a.get_object() for page in printed.pages for a in page.get("/Annots") or []]
    internal = [a["/Dest"].lstrip("/") for a in links if "/Dest" in a]
    # the contents, the cross-references to equations, sections and other chapters
    assert len(internal) > 50
    assert set(internal) <= names, sorted(set(internal) - names)[:5]
    # a reference from chapter 6 to an equation of chapter 6, and to chapter 1 (printed too)
    assert any(d.startswith("notebooks-06-roofline--equation-") for d in internal)
    assert "notebooks-01-puzzle" in {d.split("--")[0] for d in internal}


def test_equations_are_typeset_not_tex(texts):
    text = "\n".join(texts)
    assert "\\frac" not in text and "\\(" not in text  # typeset at build time
    assert "(6.1)" in text  # numbered equations keep their numbers


def test_calculators_print_their_fallback(texts):
    text = "\n".join(texts)
    assert "An interactive calculator runs here in the HTML book" in text


def test_make_pdf_is_a_make_target():
    makefile = (REPO / "Makefile").read_text(encoding="utf8")
    assert re.search(r"^pdf: .*\n\t.*scripts/make_pdf\.py", makefile, re.M)
    assert "pypdf==" in (REPO / "requirements.txt").read_text(encoding="utf8")
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf8"))
    assert set(SAMPLE[1:]) <= {c["file"] for p in toc["parts"] for c in p["chapters"]}


def test_the_chinese_edition_prints_its_own_part_names_and_contents(book_html, tmp_path):
    """The Chinese PDF's front matter (assembled, not printed: a fraction of a second): its title
    is the book's as the root page's catalog translates it, the contents' heading the theme's
    Chinese for "Contents", its parts are named as the catalog translates them (they were
    printed in English), and the outline says the same; the author and the version line are
    Chinese (tools/sphinx_ext.UNCATALOGUED_WORDS)."""
    from babel.messages.pofile import read_po

    from scripts import make_pdf

    chinese = book_html / "zh_CN"
    if not (chinese / "index.html").is_file():
        pytest.skip("no Chinese edition built")
    import sphinx_book_theme

    theme = (Path(sphinx_book_theme.__file__).parent / "theme" / "sphinx_book_theme" / "static"
             / "locales" / "zh_CN" / "LC_MESSAGES" / "booktheme.po")
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf8"))
    with open(REPO / "locale" / "zh_CN" / "LC_MESSAGES" / f"{toc['root']}.po", "rb") as handle:
        catalog = read_po(handle)
    first = toc["parts"][0]
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf8"))
    html, outline = make_pdf.combined_html(chinese, tmp_path, "https://x", "t", config["author"],
                                           "1.2", only={toc["root"], first["chapters"][0]["file"]})
    with open(theme, "rb") as handle:
        contents = read_po(handle)["Contents"].string
    assert contents and f'<nav class="print-toc"><h1>{contents}</h1>' in html
    title = catalog[config["title"]]
    assert title.string and f'<div class="print-title"><h1>{title.string}</h1>' in html
    # the author and the version in Chinese too (they were printed in English)
    assert f'<h1>{title.string}</h1><p>《{title.string}》作者</p><p>版本 1.2</p>' in html
    part = catalog[first["caption"]].string
    assert part and part != first["caption"]
    assert f'<li class="part">{part}</li>' in html
    assert [title for level, _, title in outline if level == 0] == [part]
