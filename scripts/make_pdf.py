"""`make pdf`: the built HTML book as one printable PDF, printed by Chromium (no LaTeX).

    python scripts/make_pdf.py [--html _build/html] [--out _build/pdf/llm-inference-arithmetic.pdf]

Why Chromium's printing and not typst: the HTML book is already the finished rendering (numbered
chapters, sections, figures, tables and equations from Sphinx, the mathematics typeset at build
time by MathJax, the book's stylesheet);
Chromium prints it as it is, with every glued number, and the browser tests already drive Debian's
/usr/bin/chromium through Playwright. A typst edition would need a second writer for every MyST
construct (exercises, dropdowns, glued outputs, numbered equations) and a second look for the book.
(Sphinx's singlehtml builder, the other route to one document, stops on sphinx-design's dropdowns
under Jupyter Book 1: "unknown node type: dropdown_title".)

How: the pages of `_toc.yml`, in order, are read from the built HTML (each page's
`<article class="bd-article">`), their ids prefixed by the page (`notebooks-04-kv-cache--sec`) and
every link between pages rewritten to an anchor in the one document, so Chromium writes them as
internal links of the PDF; a title page and a table of contents go in front; hidden code cells stay
hidden, dropdowns (solutions) print open, and a calculator prints as its static fallback (its
script is not loaded) with the address of its page in the HTML book. Chromium prints the document
once with its fonts loaded (the page waits for document.fonts.ready), finds on which page each
chapter starts (the PDF's named destinations), writes those page numbers into the table of
contents and prints it again (the same pagination: the numbers fill reserved space). The PDF has
page numbers in the footer and an outline (bookmarks) from the headings.
"""
from __future__ import annotations

import argparse
import os
import posixpath
import re
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import yaml
from bs4 import BeautifulSoup

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tools/
from tools.sphinx_ext import UNCATALOGUED_WORDS  # noqa: E402  (the title page's words)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--disable-sync",
                  "--host-resolver-rules=MAP * ~NOTFOUND"]
DEFAULT_OUT = REPO / "_build" / "pdf" / "llm-inference-arithmetic.pdf"
#: What a page number in the table of contents is before the second printing (same width).
PAGE_PLACEHOLDER = "000"

PRINT_CSS = """
@page { size: A4; margin: 18mm 16mm 20mm 16mm; }
html { font-size: 10.5pt; }
body { background: white; margin: 0; }
.print-doc { break-before: page; }
.print-doc:first-of-type { break-before: avoid; }
.print-title { text-align: center; padding-top: 30vh; break-after: page; }
.print-title h1 { font-size: 2.4rem; }
.print-toc { break-after: page; }
.print-toc ol { list-style: none; padding-left: 0; }
.print-toc li { display: flex; gap: 0.4em; margin: 0.15em 0; }
.print-toc li a { flex: none; color: inherit; text-decoration: none; }
.print-toc li .dots { flex: 1; border-bottom: 1px dotted #999; margin-bottom: 0.3em; }
.print-toc li .pg { flex: none; min-width: 2.2em; text-align: right; }
.print-toc .part { font-weight: bold; margin-top: 0.8em; }
.headerlink, .copybtn, .toggle-button { display: none !important; }
details > summary { list-style: none; }
pre, .highlight pre { white-space: pre-wrap; word-break: break-word; }
img { max-width: 100%; break-inside: avoid; }
figure, table, .math, mjx-container[display="true"] { break-inside: avoid; }
h1, h2, h3, h4 { break-after: avoid; }
.bd-article { max-width: none !important; }
"""

#: Display equations and tables wider than the printed column are set in a smaller font until
#: they fit (MathJax cannot break a display equation; a clipped one would lose terms).
FIT_WIDE = """() => {
  for (const el of document.querySelectorAll('mjx-container[display="true"], table')) {
    const box = el.parentElement.clientWidth;
    let size = 100;
    while (el.scrollWidth > box + 1 && size > 50) {
      size -= 5;
      el.style.fontSize = size + '%';
    }
  }
}"""

FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555;">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


def toc_entries(toc_path: Path = REPO / "_toc.yml") -> list[tuple[str | None, str]]:
    """(part caption, docname) in reading order, the root first (its caption None)."""
    toc = yaml.safe_load(toc_path.read_text(encoding="utf8"))
    entries: list[tuple[str | None, str]] = [(None, toc["root"])]
    for part in toc.get("parts", []):
        entries.extend((part["caption"], chapter["file"]) for chapter in part["chapters"])
    return entries


def edition_words(index) -> tuple[dict[str, str], str, str | None]:
    """The edition's own words for what the printed book adds, from its built root page (`index`,
    parsed): the parts' captions as its sidebar shows them, by _toc.yml's caption (in the
    Chinese edition, the root catalog's translations), the theme's heading of a table of
    contents ("Contents", "目录") and the book's title as the sidebar shows it (None if not)."""
    parts = list(dict.fromkeys(caption for caption, _ in toc_entries() if caption))
    shown = [span.get_text(strip=True) for span in index.select("p.caption span.caption-text")]
    captions = dict(zip(parts, shown)) if len(shown) == len(parts) else {}
    heading = index.select_one("#jb-print-toc h2")
    title = index.select_one(".logo__title")
    return (captions, heading.get_text(strip=True) if heading else "Contents",
            title.get_text(strip=True) if title else None)


def anchor(docname: str, fragment: str = "") -> str:
    """The id, in the one document, of `fragment` on page `docname` (the page itself if empty)."""
    base = re.sub(r"[^A-Za-z0-9_-]", "-", docname)
    return f"{base}--{fragment}" if fragment else base


def _rewrite_page(article, docname: str, docs: set[str], html_dir: Path, out_dir: Path,
                  base_url: str) -> None:
    here = posixpath.dirname(docname)
    for tag in article.find_all(True, id=True):
        tag["id"] = anchor(docname, tag["id"])
    for tag in article.find_all("a", href=True):
        href = tag["href"]
        parts = urlsplit(href)
        if parts.scheme or href.startswith("//") or href.startswith("mailto:"):
            continue
        if not parts.path:  # same page
            tag["href"] = "#" + anchor(docname, parts.fragment)
            continue
        target = posixpath.normpath(posixpath.join(here, parts.path))
        if target.endswith(".html") and target[:-5] in docs:
            tag["href"] = "#" + anchor(target[:-5], parts.fragment)
        elif (html_dir / target).is_file() and not target.endswith(".html"):  # a download
            tag["href"] = os.path.relpath(html_dir / target, out_dir)
        else:  # a page outside the book's table of contents (index, search): the online book
            tag["href"] = f"{base_url}/{target}" + (f"#{parts.fragment}" if parts.fragment else "")
    for tag in article.find_all(["img", "source"], src=True):
        if not urlsplit(tag["src"]).scheme:
            tag["src"] = os.path.relpath(html_dir / posixpath.join(here, tag["src"]), out_dir)


def _print_ready(article, docname: str, base_url: str) -> None:
    for tag in article.find_all("script"):  # calculators print as their static fallback
        tag.decompose()
    for tag in article.select("details.above-input, details.below-input, details.hide"):
        tag.decompose()  # code hidden in the HTML book stays out of print
    for tag in article.find_all("details"):
        tag["open"] = ""
    for tag in article.select(".llm-widget-fallback"):
        tag.clear()
        tag.append("An interactive calculator runs here in the HTML book: ")
        link = BeautifulSoup("", "html.parser").new_tag("a", href=f"{base_url}/{docname}.html")
        link.string = f"{base_url}/{docname}.html"
        tag.append(link)
        tag.append(".")


def heading_text(tag) -> str:
    text = " ".join(tag.get_text(" ", strip=True).replace("#", "").split())
    return re.sub(r"^(\d+(?:\.\d+)*)\s*\.\s+", r"\1. ", text)


def combined_html(html_dir: Path, out_dir: Path, base_url: str, title: str, author: str,
                  version: str, pages: dict[str, int] | None = None,
                  only: set[str] | None = None) -> tuple[str, list[tuple[int, str, str]]]:
    """The whole book as one HTML document (relative links from `out_dir`) and its outline:
    (level, anchor, title), level 0 a part, 1 a chapter, 2 a section. `pages`: anchor -> printed
    page number, for the table of contents; `only`: these pages of the book (a test's sample)."""
    entries = toc_entries()
    if only is not None:
        unknown = only - {doc for _, doc in entries}
        if unknown:
            raise SystemExit(f"make pdf: not pages of the book: {sorted(unknown)}")
        entries = [(caption, doc) for caption, doc in entries if doc in only]
    docs = {doc for _, doc in entries}
    root = entries[0][1]
    index = BeautifulSoup((html_dir / f"{root}.html").read_text(encoding="utf8"), "html.parser")
    lang = index.html.get("lang", "en")  # the edition's language (zh-CN: Chinese fonts)
    captions, contents, shown_title = edition_words(index)
    title = shown_title or title
    words = UNCATALOGUED_WORDS.get(lang.replace("-", "_"), {})
    author = words.get(author, author)
    version_line = words.get("Version {version}", "Version {version}").format(version=version)
    head = []
    for link in index.head.find_all("link", rel="stylesheet"):
        link["href"] = os.path.relpath(html_dir / posixpath.dirname(root) /
                                       link["href"].split("?")[0], out_dir)
        head.append(str(link))
    body, toc, outline = [], [], []
    caption_now = None
    for caption, doc in entries:
        soup = BeautifulSoup((html_dir / f"{doc}.html").read_text(encoding="utf8"), "html.parser")
        article = soup.find("article", class_="bd-article")
        if article is None:
            raise SystemExit(f"make pdf: {doc}.html has no <article class='bd-article'>")
        _print_ready(article, doc, base_url)
        h1 = article.find("h1")
        name = heading_text(h1) if h1 is not None else doc
        sections = [(heading_text(h2), h2.parent.get("id") or h2.get("id"))
                    for h2 in article.find_all("h2")]
        _rewrite_page(article, doc, docs, html_dir, out_dir, base_url)
        article.name = "div"
        body.append(f'<section class="print-doc" id="{anchor(doc)}">{article}</section>')
        if caption and caption != caption_now:
            caption_now = caption
            shown = captions.get(caption, caption)
            toc.append(f'<li class="part">{shown}</li>')
            outline.append((0, anchor(doc), shown))
        page = (pages or {}).get(anchor(doc), PAGE_PLACEHOLDER)
        toc.append(f'<li><a href="#{anchor(doc)}">{name}</a><span class="dots"></span>'
                   f'<span class="pg">{page}</span></li>')
        outline.append((1, anchor(doc), name))
        outline.extend((2, anchor(doc, sid), text) for text, sid in sections if sid)
    html = "\n".join([
        "<!DOCTYPE html>", f'<html lang="{lang}"><head><meta charset="utf-8">',
        f"<title>{title}</title>", *head, f"<style>{PRINT_CSS}</style>", "</head>",
        '<body><div class="bd-content"><main class="bd-main">',
        f'<div class="print-title"><h1>{title}</h1><p>{author}</p><p>{version_line}</p>'
        f'<p><a href="{base_url}/">{base_url}/</a></p></div>',
        f'<nav class="print-toc"><h1>{contents}</h1><ol>', *toc, "</ol></nav>",
        *body, "</main></div></body></html>"])
    return html, outline


def destination_pages(pdf: Path, outline: list[tuple[int, str, str]]) -> dict[str, int]:
    """anchor -> page number (1-based) of each chapter and section in the printed PDF, from
    the named destinations Chromium writes for the targets of internal links."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf))
    found = {name.lstrip("/"): reader.get_destination_page_number(dest) + 1
             for name, dest in reader.named_destinations.items()}
    missing = [a for level, a, _ in outline if level == 1 and a not in found]
    if missing:
        raise SystemExit(f"make pdf: no destination in the PDF for {missing[:3]}")
    return {a: found[a] for _, a, _ in outline if a in found}


def add_outline(pdf: Path, outline: list[tuple[int, str, str]], pages: dict[str, int]) -> None:
    """The PDF's bookmarks: parts, chapters, their sections (Chromium's own outline needs a
    tagged PDF and repeated every heading's text there)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(str(pdf)))
    parents: dict[int, object] = {}
    for level, name, title in outline:
        if name not in pages:
            continue
        parent = next((parents[k] for k in range(level - 1, -1, -1) if k in parents), None)
        parents[level] = writer.add_outline_item(title=title, page_number=pages[name] - 1,
                                                  parent=parent)
        for deeper in [k for k in parents if k > level]:
            del parents[deeper]
    writer.page_mode = "/UseOutlines"
    with open(pdf, "wb") as handle:
        writer.write(handle)


@contextmanager
def chromium():
    """Chromium, started once for both printings; yields print_pdf(html_path, pdf_path), which
    prints a document from a fresh page (loaded and typeset anew: a page printed once lays out
    differently the second time, so each printing starts from the same state)."""
    from playwright.sync_api import sync_playwright

    if not os.access(CHROMIUM, os.X_OK):
        raise SystemExit(f"make pdf: Chromium not found at {CHROMIUM} "
                         "(sudo apt-get install chromium; never `playwright install`)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)

        def print_pdf(html_path: Path, pdf_path: Path) -> None:
            page = browser.new_page()
            try:
                page.set_default_timeout(240_000)
                page.goto(html_path.as_uri(), wait_until="load")
                page.evaluate("document.fonts.ready.then(() => true)")
                page.emulate_media(media="print")
                page.evaluate(FIT_WIDE)
                page.pdf(path=str(pdf_path), format="A4", print_background=True,
                         display_header_footer=True, header_template="<span></span>",
                         footer_template=FOOTER, prefer_css_page_size=True)
            finally:
                page.close()

        try:
            yield print_pdf
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=REPO / "_build" / "html")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--pages", help="comma-separated docnames: print only these (tests)")
    args = parser.parse_args(argv)
    if not (args.html / "index.html").is_file():
        print(f"make pdf: no built book in {args.html} (make book first)", file=sys.stderr)
        return 2
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf8"))
    owner, name = config["repository"]["url"].rstrip("/").split("/")[-2:]
    base_url = f"https://{owner}.github.io/{name}"
    sys.path.insert(0, str(REPO / "lib"))
    from llm_arithmetic import __version__

    out = args.out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    html_path = out.with_suffix(".html")
    started = time.monotonic()
    only = set(args.pages.split(",")) if args.pages else None
    pages = None
    with chromium() as print_pdf:
        for _ in range(2):  # the second printing writes the page numbers into the contents
            html, outline = combined_html(args.html.resolve(), out.parent, base_url,
                                          config["title"], config["author"], __version__, pages,
                                          only)
            html_path.write_text(html, encoding="utf8")
            print_pdf(html_path, out)
            pages = destination_pages(out, outline)
    add_outline(out, outline, pages)
    chapters = sum(1 for level, _, _ in outline if level == 1)
    print(f"make pdf: {out} ({chapters} chapters, {time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
