"""Repeated costs of a Sphinx build, paid once (installed by :mod:`tools.sphinx_ext`).

Profiled on the book's full build (Sphinx 7.4, sphinxcontrib-bibtex 2.7, pybtex 0.26), about a
third of its CPU went to two lookups repeated for every reference:

* **Numbered references.** For each ``{numref}`` (and each numbered ``{ref}``), Sphinx's
  standard domain unpickles the whole target document's doctree to find the labelled node
  (``env.get_doctree(docname).ids[labelid]``): 294 unpickles, 20 s of a 76-s profile. The node
  is only read there, so :func:`read_only_doctrees` lets that method share one unpickled copy per
  document (a few documents kept, newest first; a document re-read gets a new copy). Nearly
  every such reference points into its own page (306 of 309 in the English build), whose
  doctree is the one being written: that one is read instead of a copy (:func:`_own_document`),
  which spared 27 more unpickles of the largest pages, about 4 CPU-s of each build.
* **Figure numbers.** After reading, Sphinx numbers the figures, tables and equations by walking
  every page's doctree, unpickled again (``assign_figure_numbers``), though the pages read in
  this build are still in memory, as pickled (``env._write_doc_doctree_cache``, kept for the
  write phase). The walk only reads them: :func:`numbering_from_memory` hands it those.
* **Citation styles.** For each citation, sphinxcontrib-bibtex asks pybtex for a plugin class
  by name, and pybtex scans every installed distribution's entry points each time: 7 s.
  :func:`cached_plugins` memoizes ``pybtex.plugin.find_plugin`` (a name gives a class).

The Chinese edition parses every translated message (about 11,000) as a Markdown document of
its own (Sphinx's ``publish_msgstr`` through MyST's parser), and two costs of each parse that do
not depend on the message were about half of that build's CPU (profiled, MyST-Parser 3.0):

* **A document built to be thrown away.** ``DocutilsRenderer.setup_render`` reads
  ``options.get("document", make_document())``: Python evaluates the default first, so every
  parse built a new docutils document, with a full ``OptionParser`` of default settings, that
  the parser, which always passes its own document, never used. :func:`lazy_default_document`
  builds it only when no document is given.
* **A new Markdown parser per parse.** ``MystParser.parse`` builds a ``MarkdownIt`` with the
  MyST plugins (and a renderer that collects its render methods by introspection) each time.
  :func:`reused_md_parsers` keeps the parser it built for a configuration and hands it out
  again while it is not rendering (a parse started inside another one gets a new parser).
  ``MystParser.parse`` sets only ``options["document"]``, and ``setup_render`` resets every
  per-render attribute of the renderer, so a reused parser renders as a new one does.

The sidebar's global toctree, which Sphinx resolved for every page by copying every page's
table of contents, is resolved once (:func:`shared_toctree_entries`), about 3 CPU-s of each
edition's build.

None of these changes what is built: the HTML is byte for byte the same (checked when each was
written, on every page of both editions).

>>> class Env:
...     def __init__(self):
...         self._pickled_doctree_cache, self.unpickled = {"a": b"1"}, 0
...     def get_doctree(self, docname):
...         self.unpickled += 1
...         return {"doc": docname}
>>> env = Env()
>>> resolve = read_only_doctrees(lambda self, env, name: env.get_doctree(name))
>>> [resolve(None, env, "a") for _ in range(3)] == [{"doc": "a"}] * 3, env.unpickled
(True, 1)
>>> env._pickled_doctree_cache["a"] = b"2"  # the document was read again
>>> _ = resolve(None, env, "a"); env.unpickled
2
"""
from __future__ import annotations

import functools
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

#: Unpickled doctrees kept by :func:`read_only_doctrees` (most references point into their own
#: document or a few others).
KEEP = 8


def read_only_doctrees(method: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a domain method `method(self, env, ...)` that only reads the doctrees it gets from
    ``env.get_doctree``: within it, each document is unpickled once, while its pickle (Sphinx's
    ``env._pickled_doctree_cache``) stays the same object; the page whose reference is resolved
    is read from the doctree that holds the reference (:func:`_own_document`)."""
    kept: OrderedDict[str, tuple[Any, Any]] = OrderedDict()

    @functools.wraps(method)
    def wrapped(self: Any, env: Any, *args: Any, **kwargs: Any) -> Any:
        get = env.get_doctree
        own = _own_document(env, *args)

        def get_doctree(docname: str) -> Any:
            if own is not None and docname == own[0]:
                return own[1]
            pickled = env._pickled_doctree_cache.get(docname)
            if docname in kept and pickled is not None and kept[docname][0] is pickled:
                kept.move_to_end(docname)
                return kept[docname][1]
            doctree = get(docname)  # reads (and caches) the pickle when it has to
            kept[docname] = (env._pickled_doctree_cache.get(docname), doctree)
            if len(kept) > KEEP:
                kept.popitem(last=False)
            return doctree

        env.get_doctree = get_doctree  # this call only: an attribute over the method
        try:
            return method(self, env, *args, **kwargs)
        finally:
            del env.get_doctree

    return wrapped


def _own_document(env: Any, fromdocname: Any = None, builder: Any = None, typ: Any = None,
                  target: Any = None, node: Any = None, *rest: Any) -> tuple[str, Any] | None:
    """(docname, doctree) of the page a reference is resolved in, when `node` (the
    ``pending_xref`` of ``_resolve_numref_xref(env, fromdocname, builder, typ, target, node,
    contnode)``) lies in that page's doctree: the same document Sphinx pickled when the page was
    read, being written now (its labelled nodes and ids are not changed by resolving references).

    >>> from docutils import nodes
    >>> from docutils.frontend import get_default_settings
    >>> from docutils.parsers.rst import Parser
    >>> from docutils.utils import new_document
    >>> class Env:
    ...     def doc2path(self, docname):
    ...         return f"/book/{docname}.md"
    >>> doc = new_document("/book/a.md", get_default_settings(Parser))
    >>> ref = nodes.paragraph(); doc += ref
    >>> _own_document(Env(), "a", None, "numref", "t", ref)[0]
    'a'
    >>> _own_document(Env(), "b", None, "numref", "t", ref) is None  # another page's doctree
    True
    >>> _own_document(Env(), "a") is None  # no node given
    True
    """
    document = getattr(node, "document", None)
    if not isinstance(fromdocname, str) or document is None:
        return None
    source = document.get("source")
    if not source or Path(source) != Path(env.doc2path(fromdocname)):
        return None
    return fromdocname, document


def numbering_from_memory() -> None:
    """``TocTreeCollector.assign_figure_numbers`` reads the doctrees of the pages read in this
    build from memory (the same documents that were pickled) instead of unpickling them."""
    from sphinx.environment.collectors.toctree import TocTreeCollector

    original = TocTreeCollector.assign_figure_numbers
    if getattr(original, "_from_memory", False):
        return

    @functools.wraps(original)
    def assign_figure_numbers(self: Any, env: Any) -> Any:
        in_memory = getattr(env, "_write_doc_doctree_cache", None) or {}
        get = env.get_doctree

        def get_doctree(docname: str) -> Any:
            doctree = in_memory.get(docname)
            return get(docname) if doctree is None else doctree

        env.get_doctree = get_doctree  # this call only: an attribute over the method
        try:
            return original(self, env)
        finally:
            del env.get_doctree

    assign_figure_numbers._from_memory = True  # type: ignore[attr-defined]
    TocTreeCollector.assign_figure_numbers = assign_figure_numbers


def cached_plugins() -> None:
    """Memoize ``pybtex.plugin.find_plugin`` (where it is looked up at call time, and where
    sphinxcontrib-bibtex imported it by name)."""
    import importlib

    import pybtex.plugin

    if hasattr(pybtex.plugin.find_plugin, "cache_info"):
        return
    cached = functools.lru_cache(maxsize=None)(pybtex.plugin.find_plugin)
    pybtex.plugin.find_plugin = cached
    for name in ("sphinxcontrib.bibtex.roles", "sphinxcontrib.bibtex.foot_roles"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if getattr(module, "find_plugin", None) is not None:
            module.find_plugin = cached


def lazy_default_document() -> None:
    """``setup_render`` without the default document it builds and drops when it is given one
    (MyST-Parser's ``options.get("document", make_document())``)."""
    from myst_parser.mdit_to_docutils import base

    renderer = base.DocutilsRenderer
    if getattr(renderer.setup_render, "_lazy_default_document", False):
        return
    original = renderer.setup_render

    @functools.wraps(original)
    def setup_render(self: Any, options: Any, env: Any) -> None:
        if "document" not in options:
            return original(self, options, env)
        make_document = base.make_document
        base.make_document = _unused_document  # the default, evaluated and then not used
        try:
            return original(self, options, env)
        finally:
            base.make_document = make_document

    setup_render._lazy_default_document = True  # type: ignore[attr-defined]
    renderer.setup_render = setup_render


def _unused_document(*args: Any, **kwargs: Any) -> None:
    return None


#: Markdown parsers kept by :func:`reused_md_parsers` (one per configuration: the book's, and
#: one per page whose front matter changes it).
KEEP_PARSERS = 8


def reused_md_parsers() -> None:
    """``MystParser.parse`` takes a kept ``MarkdownIt`` for its configuration (the same object)
    and renderer class, unless that parser is rendering now; otherwise it builds one as before.

    >>> from myst_parser.config.main import MdParserConfig
    >>> from myst_parser.mdit_to_docutils.base import DocutilsRenderer
    >>> from myst_parser.parsers import sphinx_ as myst_sphinx
    >>> reused_md_parsers()
    >>> config = MdParserConfig()
    >>> md = myst_sphinx.create_md_parser(config, DocutilsRenderer)
    >>> md is myst_sphinx.create_md_parser(config, DocutilsRenderer)
    True
    >>> md is myst_sphinx.create_md_parser(MdParserConfig(), DocutilsRenderer)
    False

    A parser asked for while the kept one renders (a parse inside a parse) is a new one:

    >>> inner = []
    >>> md.renderer.render = lambda tokens, options, env: inner.append(
    ...     myst_sphinx.create_md_parser(config, DocutilsRenderer))
    >>> md.render("text")
    >>> inner[0] is md, myst_sphinx.create_md_parser(config, DocutilsRenderer) is md
    (False, True)
    """
    from myst_parser.parsers import sphinx_ as myst_sphinx

    create = myst_sphinx.create_md_parser
    if getattr(create, "_reused", False):
        return
    kept: OrderedDict[tuple[int, Any], tuple[Any, Any, list[bool]]] = OrderedDict()

    def create_md_parser(config: Any, renderer: Any) -> Any:
        key = (id(config), renderer)
        entry = kept.get(key)
        if entry is not None and entry[0] is config and not entry[2][0]:
            kept.move_to_end(key)
            return entry[1]
        md = create(config, renderer)
        if entry is not None and entry[0] is config:
            return md  # the kept one is rendering: this parse is nested in it
        busy = [False]
        render = md.render

        def tracked_render(*args: Any, **kwargs: Any) -> Any:
            busy[0] = True
            try:
                return render(*args, **kwargs)
            finally:
                busy[0] = False

        md.render = tracked_render
        kept[key] = (config, md, busy)
        if len(kept) > KEEP_PARSERS:
            kept.popitem(last=False)
        return md

    create_md_parser._reused = True  # type: ignore[attr-defined]
    myst_sphinx.create_md_parser = create_md_parser


#: The Sphinx release whose toctree code :func:`shared_toctree_entries` was checked against:
#: another release refuses to build until that is checked again. requirements.txt pins it:
#:
#: >>> f"Sphinx=={SPHINX_PIN}" in (Path(__file__).parents[1] / "requirements.txt").read_text()
#: True
SPHINX_PIN = "7.4.7"

#: env -> (the documents read and when, whether any page's toc has an ``only`` node, the cache)
_TOCTREE_ENTRIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def shared_toctree_entries() -> None:
    """The sidebar's entries, resolved once per build instead of once per page.

    Every page's sidebar is Sphinx's global toctree (``global_toctree_for_doc``, called by the
    book theme's ``sbt-sidebar-nav.html`` through pydata-sphinx-theme). For each page,
    ``_entries_from_toctree`` copies the table of contents of every page of the book (each of
    their headings), and then, asked for titles only, drops all but each page's title: about
    a fifth of the English build's CPU (4 to 5 s of 23 to 25 s, timed without a profiler).
    Shared, they cost 0.2 to 0.5 s, and a strict build about 3 CPU-s less (user + sys; English
    mean of three builds each 21.5 -> 18.4 s, Chinese median of four 30.0 -> 27.3 s).
    Within one toctree, the only thing that depends on the page being written is
    ``toctree_ancestors``: an ancestor's table of contents is deep-copied
    (``toc.deepcopy()``) rather than cut by ``_toctree_copy(toc, 2, maxdepth, collapse,
    tags)``. Not collapsing (``collapse=False``, the theme's ``collapse_navbar`` default) and
    with no ``only`` node in any table of contents, the two give the same tree: the cut keeps
    every level when ``maxdepth <= 0``, the only case that deep-copies. So the entries are
    computed once, as for a page that is no one's ancestor, kept, and each page gets a deep
    copy of them; ``_resolve_toctree`` then marks that page's "current" branch, cuts to the
    sidebar's depth and makes its links relative as before, so the HTML is the same byte for
    byte (both editions, every page, checked when this was written).

    It applies only while pages are written (the environment no longer changes), and is
    forgotten when a document is read again. A collapsing toctree, or one whose tables of
    contents hold an ``only`` node, is resolved as before.

    Two pages' tables of contents, and a toctree listing them: the shared entries equal
    Sphinx's own, for a page that is an ancestor of one of them ("a") and for one that is not,
    with titles only or every heading.

    >>> from docutils import nodes
    >>> from sphinx import addnodes
    >>> from sphinx.environment.adapters import toctree
    >>> from sphinx.util.build_phase import BuildPhase
    >>> from sphinx.util.tags import Tags
    >>> def toc(doc, *sections):
    ...     def item(anchor, text, *sub):
    ...         ref = nodes.reference("", "", nodes.Text(text), internal=True, refuri=doc,
    ...                               anchorname=anchor)
    ...         li = nodes.list_item("", addnodes.compact_paragraph("", "", ref))
    ...         li.extend([nodes.bullet_list("", *sub)] if sub else [])
    ...         return li
    ...     return nodes.bullet_list("", item("", doc, *(item("#" + s, s) for s in sections)))
    >>> class Env:
    ...     tocs = {"a": toc("a", "x", "y"), "b": toc("b", "z")}
    ...     metadata, all_docs = {"a": {}, "b": {}}, {"a": 1, "b": 1}
    ...     class config: include_patterns = exclude_patterns = []
    ...     class app: phase = BuildPhase.WRITING
    >>> env, node = Env(), addnodes.toctree(entries=[(None, "a"), (None, "b")], parent="i")
    >>> shared_toctree_entries()
    >>> shared = toctree._entries_from_toctree
    >>> def tree(entries, ancestors, titles_only):
    ...     args = (env, True, titles_only, False, True, Tags(), ancestors, None, None, node, [])
    ...     return "".join(n.pformat() for n in entries(*args))
    >>> all(tree(shared, a, t) == tree(shared.__wrapped__, a, t)
    ...     for a in ({}.keys(), {"a": 0}.keys()) for t in (True, False))
    True
    >>> len(_TOCTREE_ENTRIES[env][2])  # computed once for each of the two settings
    2
    >>> env.all_docs["b"] = 2  # "b" read again: its table of contents is looked at anew
    >>> _ = tree(shared, {}.keys(), True); len(_TOCTREE_ENTRIES[env][2])
    1
    """
    import sphinx
    from sphinx import addnodes
    from sphinx.environment.adapters import toctree as adapter
    from sphinx.util.build_phase import BuildPhase

    original = adapter._entries_from_toctree
    if getattr(original, "_shared", False):
        return
    if sphinx.__version__ != SPHINX_PIN:
        raise RuntimeError(
            f"tools/sphinx_speed.py: shared_toctree_entries relies on Sphinx {SPHINX_PIN}'s "
            f"toctree code (sphinx/environment/adapters/toctree.py); Sphinx "
            f"{sphinx.__version__} is installed: check _entries_from_toctree, "
            f"_toctree_standard_entry and _toctree_copy again, then update SPHINX_PIN")

    @functools.wraps(original)
    def _entries_from_toctree(env: Any, prune: bool, titles_only: bool, collapse: bool,
                              includehidden: bool, tags: Any, toctree_ancestors: Any,
                              included: Any, excluded: Any, toctreenode: Any, parents: list,
                              subtree: bool = False) -> list:
        app = getattr(env, "app", None)
        if subtree or collapse or app is None or app.phase != BuildPhase.WRITING:
            return original(env, prune, titles_only, collapse, includehidden, tags,
                            toctree_ancestors, included, excluded, toctreenode, parents,
                            subtree)
        read = tuple(env.all_docs.items())
        state = _TOCTREE_ENTRIES.get(env)
        if state is None or state[0] != read:
            has_only = any(toc.next_node(addnodes.only) is not None
                           for toc in env.tocs.values())
            state = _TOCTREE_ENTRIES[env] = (read, has_only, {})
        if state[1]:
            return original(env, prune, titles_only, collapse, includehidden, tags,
                            toctree_ancestors, included, excluded, toctreenode, parents,
                            subtree)
        key = (prune, titles_only, includehidden, tuple(sorted(tags)),
               tuple(env.config.include_patterns), tuple(env.config.exclude_patterns),
               toctreenode["parent"], tuple(map(tuple, toctreenode["entries"])), tuple(parents))
        entries = state[2].get(key)
        if entries is None:
            entries = state[2][key] = original(
                env, prune, titles_only, collapse, includehidden, tags, {}.keys(), included,
                excluded, toctreenode, parents, subtree)
        return [entry.deepcopy() for entry in entries]

    _entries_from_toctree._shared = True  # type: ignore[attr-defined]
    adapter._entries_from_toctree = _entries_from_toctree


def install() -> None:
    """All of them, once per process."""
    from sphinx.domains.std import StandardDomain

    if not getattr(StandardDomain._resolve_numref_xref, "__wrapped__", None):
        StandardDomain._resolve_numref_xref = read_only_doctrees(
            StandardDomain._resolve_numref_xref)
    cached_plugins()
    numbering_from_memory()
    lazy_default_document()
    reused_md_parsers()
    shared_toctree_entries()
