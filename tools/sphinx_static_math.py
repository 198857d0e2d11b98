"""The book's mathematics typeset at build time: pages arrive with their equations drawn.

Sphinx's MathJax renderer writes each formula as TeX (``\\(...\\)`` in a ``span.math``,
``\\[...\\]`` in a ``div.math``) and has every reader's browser load MathJax (1.1 MB of script)
and typeset the page on each visit: on a chapter of the book that was more than half of the
time a page took to load. This extension registers a renderer, ``static``, that writes the same
HTML, without the script; at the end of the build one MathJax run (tools/static_math.js, under
Node.js) turns every formula of the pages written into the CommonHTML that the browser's
MathJax would have made of it: the same MathJax (the copy sphinx-mathjax-offline ships,
3.2.2), the same fonts and output, its hidden MathML for screen readers included. What readers
lose is MathJax's right-click menu.

- The stylesheet, ``_static/static-math.css``, is linked from every page; it holds the rules of
  the characters and constructs that the book's formulas use, all of them: the TeX of each page
  is kept in the doctree folder (``static-math.json``) and every build typesets the whole book's,
  so an incremental build that writes one page makes the stylesheet of every page. The fonts are
  copied to ``_static/mathjax-fonts/``.
- A TeX error or an undefined macro is a warning naming the page and the formula (an error under
  ``-W``), instead of red text in the reader's browser.
- Node.js: the one Playwright's Python package ships (pinned in requirements.txt), else ``node``
  on the PATH; without either the build warns and the pages keep their TeX untypeset.
"""
from __future__ import annotations

import html
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from sphinx.ext.mathjax import html_visit_displaymath, html_visit_math
from sphinx.util import logging
from sphinx.util.fileutil import copy_asset

logger = logging.getLogger(__name__)

SCRIPT = Path(__file__).with_name("static_math.js")
STYLESHEET = "static-math.css"
FONTS = "mathjax-fonts"
STORE = "static-math.json"

#: Sphinx's MathJax visitors' output (sphinx.ext.mathjax): an inline formula, and a display
#: one (glued ones carry the class ``pasted-math`` too) with its number, if any, first; neither
#: matches a formula typeset already.
INLINE_RE = re.compile(r'(<span class="math notranslate nohighlight">)\\\((.*?)\\\)</span>', re.S)
DISPLAY_RE = re.compile(r'(<div class="[^"]*\bmath notranslate nohighlight"[^>]*>)\n?'
                        r'(<span class="eqno">.*?</span>)?(.*?)</div>', re.S)
TYPESET = "<mjx-container"


def items_of(page: str) -> list[tuple[str, bool]]:
    """The formulas of a page's HTML as Sphinx wrote it: (TeX, display), in order.

    >>> items_of('<p><span class="math notranslate nohighlight">\\\\(x &lt; 1\\\\)</span></p>'
    ...          '<div class="math notranslate nohighlight" id="e">\\n<span class="eqno">(1)'
    ...          '</span>\\\\[a = b\\\\]</div><div class="math notranslate nohighlight">'
    ...          '<span class="eqno">(2)</span><mjx-container>...</mjx-container></div>')
    [('x < 1', False), ('a = b', True)]
    """
    found = [(m.start(), html.unescape(m.group(2)), False) for m in INLINE_RE.finditer(page)]
    found += [(m.start(), display_tex(m.group(3)), True) for m in DISPLAY_RE.finditer(page)
              if TYPESET not in m.group(0)]
    return [(tex, display) for _, tex, display in sorted(found)]


def display_tex(body: str) -> str:
    """A display formula's TeX: without ``\\[ \\]``, or as written where Sphinx kept it whole
    (``nowrap``: an environment of its own)."""
    tex = html.unescape(body).strip()
    if tex.startswith("\\[") and tex.endswith("\\]"):
        tex = tex[2:-2]
    return tex


def typeset(page: str, drawn: dict[tuple[str, bool], str]) -> str:
    """The page with each formula replaced by its typeset form (``drawn``: by (TeX, display));
    a formula missing from ``drawn`` (a TeX error) keeps its TeX."""
    def inline(m: re.Match) -> str:
        out = drawn.get((html.unescape(m.group(2)), False))
        return m.group(1) + out + "</span>" if out else m.group(0)

    def display(m: re.Match) -> str:
        out = TYPESET not in m.group(0) and drawn.get((display_tex(m.group(3)), True))
        return m.group(1) + (m.group(2) or "") + out + "</div>" if out else m.group(0)

    return DISPLAY_RE.sub(display, INLINE_RE.sub(inline, page))


def mathjax_folder() -> Path:
    """MathJax's component folder (es5) as sphinx-mathjax-offline ships it."""
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the package sphinx-mathjax-offline is not installed "
                                "(requirements.txt pins it)")
    return Path(spec.submodule_search_locations[0]) / "static" / "mathjax"


def node_executable() -> str | None:
    """Node.js: the copy Playwright's package ships beside its driver, else ``node``."""
    spec = importlib.util.find_spec("playwright")
    if spec is not None and spec.submodule_search_locations:
        bundled = Path(spec.submodule_search_locations[0]) / "driver" / "node"
        if bundled.is_file():
            return str(bundled)
    return shutil.which("node")


def run_mathjax(items: list[tuple[str, bool]]) -> tuple[list[str], list[tuple[int, str]], str]:
    """tools/static_math.js on ``items``: the typeset HTML of each ("" where it failed), the
    errors (index, message) and the stylesheet."""
    node = node_executable()
    if node is None:
        raise FileNotFoundError("no Node.js: `make venv` installs Playwright, which ships one")
    request = {"mathjax": str(mathjax_folder()), "fontURL": FONTS, "items": items}
    done = subprocess.run([node, str(SCRIPT)], input=json.dumps(request), capture_output=True,
                          text=True, encoding="utf8", check=False)
    if done.returncode:
        raise RuntimeError(f"{SCRIPT.name} failed: {done.stderr.strip()[-2000:]}")
    answer = json.loads(done.stdout)
    return answer["html"], [tuple(e) for e in answer["errors"]], answer["css"]


def _typeset_pages(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    store_path = Path(app.doctreedir) / STORE
    try:
        store = json.loads(store_path.read_text(encoding="utf8"))
    except (OSError, ValueError):
        store = {}
    written = {}
    for docname in sorted(app.env.found_docs):
        path = outdir / app.builder.get_target_uri(docname)
        if not path.is_file():
            continue
        page = path.read_text(encoding="utf8")
        items = items_of(page)
        if items:  # written by this build: a page typeset before holds no TeX
            written[docname] = (path, page)
            store[docname] = [list(item) for item in items]
    everything = sorted({(tex, display) for items in store.values() for tex, display in items})
    try:
        drawn, errors, css = run_mathjax(everything)
    except (OSError, RuntimeError, ValueError) as error:
        logger.warning(f"the book's mathematics was not typeset: {error}")
        return
    for index, message in errors:
        tex, display = everything[index]
        page = next(doc for doc, items in store.items() if [tex, display] in items)
        logger.warning(f"TeX error: {message}: {tex[:120]!r}", location=page)
    by_item = {item: out for item, out in zip(everything, drawn) if out}
    for path, page in written.values():
        path.write_text(typeset(page, by_item), encoding="utf8")
    static = outdir / "_static"
    static.mkdir(exist_ok=True)
    (static / STYLESHEET).write_text(css, encoding="utf8")
    copy_asset(str(mathjax_folder() / "output" / "chtml" / "fonts" / "woff-v2"),
               str(static / FONTS))
    store_path.write_text(json.dumps(store, ensure_ascii=False, sort_keys=True),
                          encoding="utf8")


def setup(app: Any) -> dict:
    app.add_html_math_renderer("static", inline_renderers=(html_visit_math, None),
                               block_renderers=(html_visit_displaymath, None))
    app.add_css_file(STYLESHEET)
    app.connect("build-finished", _typeset_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
