"""Two repeated costs of a Sphinx build, paid once (installed by :mod:`tools.sphinx_ext`).

Profiled on the book's full build (Sphinx 7.4, sphinxcontrib-bibtex 2.7, pybtex 0.26), about a
third of its CPU went to two lookups repeated for every reference:

* **Numbered references.** For each ``{numref}`` (and each numbered ``{ref}``), Sphinx's
  standard domain unpickles the whole target document's doctree to find the labelled node
  (``env.get_doctree(docname).ids[labelid]``): 294 unpickles, 20 s of a 76-s profile. The node
  is only read there, so :func:`read_only_doctrees` lets that method share one unpickled copy per
  document (a few documents kept, newest first; a document re-read gets a new copy).
* **Citation styles.** For each citation, sphinxcontrib-bibtex asks pybtex for a plugin class
  by name, and pybtex scans every installed distribution's entry points each time: 7 s.
  :func:`cached_plugins` memoizes ``pybtex.plugin.find_plugin`` (a name gives a class).

Neither changes what is built: the HTML is byte for byte the same (checked when this was
written, on every page).

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
from collections import OrderedDict
from typing import Any, Callable

#: Unpickled doctrees kept by :func:`read_only_doctrees` (most references point into their own
#: document or a few others).
KEEP = 8


def read_only_doctrees(method: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a domain method `method(self, env, ...)` that only reads the doctrees it gets from
    ``env.get_doctree``: within it, each document is unpickled once, while its pickle (Sphinx's
    ``env._pickled_doctree_cache``) stays the same object."""
    kept: OrderedDict[str, tuple[Any, Any]] = OrderedDict()

    @functools.wraps(method)
    def wrapped(self: Any, env: Any, *args: Any, **kwargs: Any) -> Any:
        get = env.get_doctree

        def get_doctree(docname: str) -> Any:
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


def install() -> None:
    """Both, once per process."""
    from sphinx.domains.std import StandardDomain

    if not getattr(StandardDomain._resolve_numref_xref, "__wrapped__", None):
        StandardDomain._resolve_numref_xref = read_only_doctrees(
            StandardDomain._resolve_numref_xref)
    cached_plugins()
