"""The mathematics typeset at build time (tools/sphinx_static_math.py, tools/static_math.js).

- MathJax under Node.js turns TeX into CommonHTML with its hidden MathML: a fraction is an
  `mjx-mfrac` over an `<mfrac>`, display math says so, the characters' rules and the x-height
  scaling are in the stylesheet; a TeX error or an undefined macro is reported by index, and the
  other formulas are still typeset.
- A small Sphinx project (reStructuredText, no notebooks: about a second) built with the
  extension: its pages hold no TeX and load no MathJax script, link the stylesheet, have the
  fonts beside it, keep an equation's number and anchor; a TeX error is a warning naming the
  page; and an incremental build that writes one page keeps in the stylesheet the rules of a
  construct only the other page uses.
The built book's pages are checked in Chromium (tests/test_browser.py: every formula typeset,
MathJax's fonts loaded, no MathJax script).
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from tools import sphinx_static_math as sm

if sm.node_executable() is None:
    pytest.skip("no Node.js (Playwright's package ships one: `make venv`)",
                allow_module_level=True)


def test_mathjax_typesets_and_reports_errors():
    html, errors, css = sm.run_mathjax([(r"\frac{a}{b}", True), (r"\frac{a", False),
                                        (r"x^2 + \nosuchmacro", False), (r"\sqrt{y}", False)])
    assert [i for i, _ in errors] == [1, 2]
    assert "nosuchmacro" in errors[1][1]
    assert html[1] == html[2] == ""
    fraction, root = html[0], html[3]
    assert fraction.startswith("<mjx-container") and 'display="true"' in fraction
    assert "<mjx-mfrac" in fraction and "<mfrac>" in fraction  # drawn, and its MathML
    assert "<mjx-msqrt" in root and "<msqrt>" in root and 'display="true"' not in root
    # italic a (U+1D44E) is drawn from the stylesheet's rule for that character
    assert "mjx-c1D44E" in fraction and "mjx-c.mjx-c1D44E" in css
    assert re.search(r'mjx-container\[jax="CHTML"\]\s*\{\s*font-size: calc\(1ex / 0\.442\)', css)


PAGES = {
    "index.rst": """Index
=====

.. toctree::

   other

Inline :math:`\\frac{a}{b}` and a numbered equation:

.. math::
   :label: eq-one

   E = m c^2

See :eq:`eq-one`.
""",
    "other.rst": """Other
=====

A root: :math:`\\sqrt{x}`.
""",
}


def build(src: Path, out: Path) -> str:
    """Sphinx on `src` with the extension and its renderer; returns the warnings."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    warnings = io.StringIO()
    with docutils_namespace():  # each build registers Sphinx's nodes anew, as a process would
        app = Sphinx(str(src), str(src), str(out), str(out / ".doctrees"), "html",
                     confoverrides={"extensions": ["tools.sphinx_static_math"],
                                    "html_math_renderer": "static"},
                     status=None, warning=warnings, freshenv=False)
        app.build()
    return re.sub(r"\x1b\[[0-9;]*m", "", warnings.getvalue())


def test_a_small_book_arrives_typeset(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "conf.py").write_text("project = 'x'\n")
    for name, text in PAGES.items():
        (src / name).write_text(text)
    assert build(src, out) == ""
    index = (out / "index.html").read_text()
    assert "\\frac" not in index and "\\(" not in index and "\\[" not in index
    assert "mathjax" not in "".join(re.findall(r"<script[^>]*>", index)).lower()
    assert 'href="_static/static-math.css' in index
    assert index.count("<mjx-container") == 2
    assert re.search(r'<span class="eqno">\(1\)<a class="headerlink" href="#equation-eq-one"',
                     index)
    css = (out / "_static" / "static-math.css").read_text()
    assert "mjx-msqrt" in css and "mjx-mfrac" in css
    fonts = out / "_static" / sm.FONTS
    assert re.search(r'url\("mathjax-fonts/MathJax_Math-Italic\.woff"\)', css)
    assert (fonts / "MathJax_Math-Italic.woff").is_file()

    # only index.html is written again: the square root, used on the other page only, keeps
    # its rules in the stylesheet
    (src / "index.rst").write_text(PAGES["index.rst"].replace("m c^2", "m c^3"))
    assert build(src, out) == ""
    assert "c^3" not in (out / "index.html").read_text()
    assert "mjx-msqrt" in (out / "_static" / "static-math.css").read_text()

    (src / "other.rst").write_text(PAGES["other.rst"].replace("\\sqrt{x}", "\\frac{x"))
    warnings = build(src, out)
    assert re.search(r"other\.rst: WARNING: TeX error: .*'\\\\frac\{x'", warnings), warnings
