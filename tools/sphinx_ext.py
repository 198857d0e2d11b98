"""The book's own Sphinx extension (named in ``_config.yml``, ``sphinx.local_extensions``).

* **Redirects.** ``book_redirects`` maps an old page (a docname, e.g. ``notebooks/ch01-puzzle``)
  to the page that replaced it. After the HTML is written, each old page becomes a static page
  that forwards at once (``<meta http-equiv="refresh">``, with the ``#fragment`` kept by one
  line of script) and links to the new page for readers without either. Nothing is fetched at
  build time.

>>> print(redirect_html("notebooks/ch01-puzzle", "notebooks/01-puzzle").splitlines()[4])
<meta http-equiv="refresh" content="0; url=01-puzzle.html">

* **Figures and tables of an unnumbered page** (the labs, the back matter) are numbered from 1
  on each page, as a chapter's are within the chapter. Sphinx counts them across every
  unnumbered page, so that the hardware table's first table was "Table 5" (issue 28).

>>> numbers = {"a": {"table": {"t1": (5,), "t2": (6,)}, "figure": {"f": (3,)}},
...            "b": {"table": {"t": (2, 1)}}}
>>> renumber_unnumbered(numbers)["a"]
{'table': {'t1': (1,), 't2': (2,)}, 'figure': {'f': (1,)}}
>>> numbers["b"]
{'table': {'t': (2, 1)}}

* **Speed.** :mod:`tools.sphinx_speed`: numbered references and citation styles looked up
  once.
"""
from __future__ import annotations

import html
import posixpath
from pathlib import Path
from typing import Any

from tools import sphinx_speed

__all__ = ["setup", "redirect_html", "renumber_unnumbered"]


def _relative(source: str, target: str) -> str:
    """URL of ``target``'s page from ``source``'s page (both docnames)."""
    here = posixpath.dirname(source) or "."
    return posixpath.relpath(f"{target}.html", here)


def redirect_html(source: str, target: str) -> str:
    """The static page that replaces ``source`` and forwards to ``target``."""
    url = html.escape(_relative(source, target), quote=True)
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="refresh" content="0; url={url}">',
        f'<link rel="canonical" href="{url}">',
        f"<title>Moved to {html.escape(target)}</title>",
        f"<script>location.replace({url!r} + location.hash);</script>",
        "</head>",
        f'<body><p>This page has moved: <a href="{url}">{html.escape(target)}</a>.</p></body>',
        "</html>",
        "",
    ])


def _write_redirects(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for source, target in (app.config.book_redirects or {}).items():
        if source in app.env.found_docs:
            raise ValueError(f"book_redirects: {source!r} is still a page of the book")
        if target not in app.env.found_docs:
            raise ValueError(f"book_redirects: {source!r} -> {target!r}, which is not a page")
        path = out / f"{source}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(redirect_html(source, target), encoding="utf8")


def renumber_unnumbered(fignumbers: dict[str, dict[str, dict[str, tuple[int, ...]]]]) -> dict:
    """Number the figures, tables and listings of each page without a chapter number (every
    number a 1-tuple) from 1 within the page, in their order; in place, and returned."""
    for types in fignumbers.values():
        if all(len(n) == 1 for ids in types.values() for n in ids.values()):
            for ids in types.values():
                for i, key in enumerate(sorted(ids, key=ids.__getitem__), start=1):
                    ids[key] = (i,)
    return fignumbers


def _install_page_numbering() -> None:
    from sphinx.environment.collectors.toctree import TocTreeCollector

    assign = TocTreeCollector.assign_figure_numbers
    if getattr(assign, "book_per_page", False):
        return

    def assign_figure_numbers(self: Any, env: Any) -> list[str]:
        old = env.toc_fignumbers  # Sphinx replaces the dict, so this one stays the last build's
        rewrite = set(assign(self, env))
        renumber_unnumbered(env.toc_fignumbers)
        changed = rewrite | set(env.toc_fignumbers) | set(old)
        return sorted(d for d in changed if env.toc_fignumbers.get(d) != old.get(d))

    assign_figure_numbers.book_per_page = True
    TocTreeCollector.assign_figure_numbers = assign_figure_numbers


def package_version() -> str:
    """The project's one version: ``llm_arithmetic.__version__`` (the wheel reads it too)."""
    from llm_arithmetic import __version__

    return __version__


def substitutions(config: Any) -> dict[str, str]:
    """MyST's substitutions with ``version`` set (any others from the configuration kept)."""
    return {**(getattr(config, "myst_substitutions", None) or {}), "version": package_version()}


def _config_inited(app: Any, config: Any) -> None:
    # the start page shows {{ version }}; Sphinx's version and release follow the package
    config.myst_substitutions = substitutions(config)
    config.version = config.release = package_version()


def setup(app: Any) -> dict[str, Any]:
    sphinx_speed.install()  # two repeated lookups of the build, paid once
    _install_page_numbering()
    app.add_config_value("book_redirects", {}, "html", types=[dict])
    app.connect("build-finished", _write_redirects)
    # after myst-parser registered `myst_substitutions`, before it reads its configuration
    app.connect("config-inited", _config_inited)
    # every extension is loaded by then (Jupyter Book adds some after the configured ones)
    app.connect("builder-inited", _declare_parallel_safe)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


#: Extensions that return no metadata, so that Sphinx assumes them unsafe for a parallel build,
#: warns (an error under -W) and reads serially. None keeps state that parallel readers would
#: have to merge: sphinx-mathjax-offline copies MathJax's files at build-finished (main
#: process); sphinx_multitoc_numbering (added by Jupyter Book) replaces the section-numbering
#: step that runs after reading (main process); sphinx_jupyterbook_latex (added by Jupyter
#: Book) sets things up only for a LaTeX builder, and its transforms store nothing in the
#: environment.
PARALLEL_SAFE_WITHOUT_SAYING = ("sphinx-mathjax-offline", "sphinx_multitoc_numbering",
                                "sphinx_jupyterbook_latex")


def _declare_parallel_safe(app: Any) -> None:
    for name in PARALLEL_SAFE_WITHOUT_SAYING:
        ext = app.extensions.get(name)
        if ext is not None:
            ext.parallel_read_safe = ext.parallel_write_safe = True
