"""Matplotlib imported when a figure is first drawn, with the book's style applied right after.

Importing ``matplotlib.pyplot`` in a Jupyter kernel costs about 1.3 s of CPU (its Artist classes
build their docstrings, the inline backend is set up). Every notebook imports the book's
prelude, and a third of them (the exercise notebooks, the glossary) draw nothing, so the prelude
hands out :data:`pyplot` and :data:`ticker`: stand-ins that import the real module on the first
attribute asked for (``plt.subplots``, ``plt.rcParams``, ...).

The style must then follow whichever import comes first, the stand-in's or a notebook's own
``import matplotlib.pyplot as plt``: :func:`after_import` runs a function once, right after a
module's code has run (a one-shot finder on :data:`sys.meta_path`), or at once when the module
is already imported.

>>> import sys
>>> calls = []
>>> after_import("json", lambda: calls.append("json"))  # already imported: runs at once
>>> calls
['json']
>>> hasattr(pyplot, "subplots") and "matplotlib.pyplot" in sys.modules
True
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
from typing import Any, Callable


class OnDemand(types.ModuleType):
    """A stand-in for the module `name`, imported on the first attribute asked for."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):  # copy, pickle, doctest probes
            raise AttributeError(attr)
        return getattr(importlib.import_module(self.__name__), attr)

    def __repr__(self) -> str:
        return f"<module {self.__name__!r}, imported on first use>"


#: ``matplotlib.pyplot`` and ``matplotlib.ticker``, imported on first use.
pyplot = OnDemand("matplotlib.pyplot")
ticker = OnDemand("matplotlib.ticker")


class _AfterImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `name` once through the other finders, and runs `then` after its loader ran."""

    def __init__(self, name: str, then: Callable[[], None]):
        self.name, self.then, self.loader = name, then, None

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # once; the other finders find the module itself
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        self.loader, spec.loader = spec.loader, self
        return spec

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = module.__spec__.loader = self.loader  # as if never wrapped
        self.loader.exec_module(module)
        self.then()


def after_import(name: str, then: Callable[[], None]) -> None:
    """Run `then()` once, right after module `name` is first imported (at once if it is)."""
    if name in sys.modules:
        then()
    elif not any(isinstance(f, _AfterImport) and (f.name, f.then) == (name, then)
                 for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, then))
