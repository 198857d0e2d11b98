"""Every internal link and anchor of the built book resolves; external links are listed only.

Reads the HTML that `make book` wrote (`_build/html`, or $BOOK_HTML) with the standard library's
html.parser. For every page, each href/src/srcset/data/poster (and a meta refresh) that points
into the site must name a file that exists, and a `#fragment` on an HTML target must be the id
(or <a name>) of an element of that page. Links to other hosts are not fetched (CI is offline):
they are written, with the pages that use them, to `_build/external-links.txt`, and counted in
the run's summary.
"""
import posixpath
import re
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml

from conftest import REPO

# Attributes that point at another resource, by tag.
LINK_ATTRS = {
    "a": ("href",), "area": ("href",), "link": ("href",),
    "img": ("src", "srcset"), "source": ("src", "srcset"), "script": ("src",),
    "iframe": ("src",), "embed": ("src",), "audio": ("src",), "video": ("src", "poster"),
    "track": ("src",), "input": ("src",), "object": ("data",),
}
# Schemes that name no resource of the site and no page elsewhere worth listing.
IGNORED_SCHEMES = {"mailto", "tel", "javascript", "data", "about", "blob"}


def site_pages(root: Path) -> list[Path]:
    """Every HTML page of the build. `_static/` holds the theme's Jinja macro templates
    (webpack-macros.html), which are not pages; assets there are still checked as link targets."""
    return sorted(p for p in root.rglob("*.html")  # zh_CN/_static too (the Chinese edition's)
                  if not {"_static", "_sources"} & set(p.relative_to(root).parts[:2]))


class PageParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (what, url)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        for attr in LINK_ATTRS.get(tag, ()):
            value = a.get(attr)
            if value is None:
                continue
            if attr == "srcset":
                for candidate in value.split(","):
                    if candidate.strip():
                        self.links.append((f"<{tag} srcset>", candidate.split()[0]))
            else:
                self.links.append((f"<{tag} {attr}>", value.strip()))
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "refresh":
            m = re.search(r"url\s*=\s*['\"]?([^'\";]+)", a.get("content") or "", re.I)
            if m:
                self.links.append(("<meta refresh>", m.group(1).strip()))

    handle_startendtag = handle_starttag


def site_base_url() -> str | None:
    """html.baseurl of _config.yml: absolute links under it are links into this site."""
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf8")) or {}
    base = ((config.get("html") or {}).get("baseurl") or "").strip()
    return base.rstrip("/") + "/" if base else None


def test_internal_links_and_anchors_resolve(book_html, build_dir, book_report):
    root = book_html
    pages = site_pages(root)
    assert pages, f"no HTML pages under {root}"
    parsed = {}
    for page in pages:
        parser = PageParser()
        parser.feed(page.read_text(encoding="utf8", errors="replace"))
        parser.close()
        parsed[page.relative_to(root).as_posix()] = parser

    base_url = site_base_url()
    ids_cache: dict[str, set[str]] = {rel: p.ids for rel, p in parsed.items()}

    def ids_of(rel: str) -> set[str]:
        if rel not in ids_cache:  # an HTML target that site_pages() left out
            parser = PageParser()
            parser.feed((root / rel).read_text(encoding="utf8", errors="replace"))
            ids_cache[rel] = parser.ids
        return ids_cache[rel]

    problems: list[str] = []
    external: dict[str, set[str]] = defaultdict(set)
    n_internal = 0
    for rel, parser in parsed.items():
        for what, url in parser.links:
            if not url:
                continue
            if base_url and url.startswith(base_url):
                url = posixpath.relpath(url[len(base_url):] or ".", posixpath.dirname(rel) or ".")
            parts = urlsplit(url)
            scheme = parts.scheme.lower()
            if scheme in IGNORED_SCHEMES:
                continue
            if scheme in ("http", "https") or (not scheme and parts.netloc):
                external[url].add(rel)
                continue
            if scheme:
                problems.append(f"{rel}: {what} {url!r}: a {scheme}: link cannot work on the web")
                continue
            n_internal += 1
            path = unquote(parts.path)
            if path:
                target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path))
                if target == ".." or target.startswith("../"):
                    problems.append(f"{rel}: {what} {url!r} points outside the built site")
                    continue
                if path.endswith("/") or (root / target).is_dir():
                    target = posixpath.join(target, "index.html") if target != "." else "index.html"
            else:
                target = rel
            if not (root / target).is_file():
                problems.append(f"{rel}: {what} {url!r}: {target} does not exist")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.endswith(".html") and fragment not in ids_of(target):
                problems.append(f"{rel}: {what} {url!r}: {target} has no element with id "
                                f"{fragment!r}")

    report = build_dir / "external-links.txt"
    lines = [f"{url}\t{' '.join(sorted(where))}" for url, where in sorted(external.items())]
    report.write_text("".join(line + "\n" for line in lines), encoding="utf8")
    summary = (f"{len(pages)} pages, {n_internal} internal links checked; "
               f"{len(external)} distinct external links listed (not fetched) in {report}")
    print(summary)
    book_report.append(summary)

    assert not problems, (f"{len(problems)} broken internal link(s) or anchor(s):\n"
                          + "\n".join(problems[:100]))


def test_unnumbered_pages_number_their_own_tables(book_html):
    """Issue 28: a page outside the numbered chapters (the labs, the back matter) numbers its
    tables and figures from 1, as a chapter does (the hardware table began at "Table 5")."""
    import re as _re

    for page in ("notebooks/hardware-table.html", "notebooks/model-table.html"):
        text = (book_html / page).read_text(encoding="utf8")
        numbers = _re.findall(r'caption-number">(Table|Figure) (\d+)', text)
        assert numbers, page
        for kind in ("Table", "Figure"):
            got = [int(n) for k, n in numbers if k == kind]
            assert got == list(range(1, len(got) + 1)), (page, kind, got)
