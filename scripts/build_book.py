"""Build the HTML book with Jupyter Book 1: `make book` (incremental) and `make book-strict`.

    python scripts/build_book.py            # only the pages whose source changed (fast)
    python scripts/build_book.py --all      # every page, from a fresh environment (strict)

Both build with `-W -n --keep-going` (any warning fails). The incremental build re-reads only
changed sources: a warning in a page it does not re-read is not reported again, and a page
that pastes another notebook's glued number (book/intro.md) keeps the old value until it is
re-read. `make book-strict` (which `make test` and CI run) rebuilds everything.

Two things are done differently from `jupyter-book build`: jsonschema's optional IRI check is
left out (about 3 s of every build; why it is safe: tools/jupyter_imports.py), and so are
Python's automatic full garbage collections (FULL_COLLECTIONS_AFTER below: 3 to 7 s). And
BOOK_JOBS=N builds in N processes (Sphinx's parallel read and write, which `jupyter-book build`
does not offer).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tools/

from tools.jupyter_imports import refuse_iri_grammars  # noqa: E402

refuse_iri_grammars()  # `import rfc3987_syntax` -> ImportError (why: that module's docstring)

import functools  # noqa: E402
import gc  # noqa: E402
import os  # noqa: E402

import jupyter_book.sphinx  # noqa: E402
from jupyter_book.cli.main import main  # noqa: E402

#: Full garbage collections only when asked for (gc.collect()): Python's oldest generation is
#: collected after every `threshold2` (10) collections of the middle one, and each such pass
#: walks every object alive. A build keeps every page's doctree and the environment alive (a
#: million objects by the end of reading), so those passes were a fifth of a strict build's CPU
#: and more in the Chinese one (timed with gc.callbacks, Python 3.11: English 4.6 of 17 s,
#: Chinese 7.2 of 25 s; after, 0.8 and 1.2 s). The young generations are collected as before.
#: A strict build's CPU (user + sys; English mean of three builds, Chinese of two): English
#: 18.4 -> 15.6 s, Chinese 27.3 -> 19.8 s. What it costs: the cyclic garbage that lives long enough to reach
#: the oldest generation is freed when the process ends, not during the build (peak memory
#: 0.31 -> 0.41 GB English, 0.32 -> 0.46 GB Chinese). Collecting garbage later changes no output: the HTML of
#: both editions is byte for byte the same. (Python 3.11's collector; runtime.txt pins it.)
FULL_COLLECTIONS_AFTER = 100_000
gc.set_threshold(*gc.get_threshold()[:2], FULL_COLLECTIONS_AFTER)

#: Sphinx processes (`sphinx-build -j`; `jupyter-book build` has no option for it): $BOOK_JOBS,
#: 1 by default. Every extension is declared parallel-safe (tools.sphinx_ext), but
#: on 2 busy cores a parallel build cost 40% more CPU and took longer (64 s vs 46 s of CPU).
JOBS = int(os.environ.get("BOOK_JOBS") or 1)
jupyter_book.sphinx.build_sphinx = functools.partial(jupyter_book.sphinx.build_sphinx, jobs=JOBS)

#: BOOK_LANGUAGE=zh_CN builds the Chinese edition (scripts/editions.py): the same sources and
#: committed outputs, every string through locale/zh_CN/LC_MESSAGES/<page>.po, into
#: _build/html/zh_CN with its own doctrees (a translation is applied when a page is read).
LANGUAGE = os.environ.get("BOOK_LANGUAGE") or ""
#: BOOK_EDITIONS=en,zh_CN puts the language switcher on every page (tools.sphinx_ext).
EDITIONS = [e for e in (os.environ.get("BOOK_EDITIONS") or "").split(",") if e]


#: How each edition names a numbered figure, table, listing and section ("Table 6.1": 表 6.1).
NUMFIG_FORMAT = {"zh_CN": {"figure": "图 %s", "table": "表 %s", "code-block": "代码 %s",
                           "section": "第 %s 节"}}


def _build_edition(build, sourcedir, outputdir, **kwargs):
    overrides = dict(kwargs.pop("confoverrides", None) or {})
    if EDITIONS:
        overrides["book_editions"] = EDITIONS
    if kwargs.get("builder") == "gettext":  # it versions the doctrees its own way
        kwargs["doctreedir"] = Path(outputdir).parent / ".doctrees-gettext"
    elif LANGUAGE and LANGUAGE != "en":
        overrides["language"] = LANGUAGE
        if LANGUAGE in NUMFIG_FORMAT:
            overrides["numfig_format"] = NUMFIG_FORMAT[LANGUAGE]
        kwargs["doctreedir"] = Path(outputdir).parent / f".doctrees-{LANGUAGE}"
        outputdir = Path(outputdir) / LANGUAGE
    return build(sourcedir, outputdir, confoverrides=overrides, **kwargs)


jupyter_book.sphinx.build_sphinx = functools.partial(_build_edition,
                                                     jupyter_book.sphinx.build_sphinx)

if __name__ == "__main__":
    main(["build", ".", "-W", "-n", "--keep-going", *sys.argv[1:]])
