"""llm_arithmetic: the formulas of LLM inference, as sympy expressions and numeric functions.

Each quantity is one sympy expression, registered once (:mod:`llm_arithmetic.formulas`), with a
numeric function generated from it (:mod:`llm_arithmetic.numeric`: exact on Python integers,
vectorized on NumPy arrays, no sympy at run time) and a JavaScript twin for the book's pages.

* :mod:`~llm_arithmetic.core` -- symbols (the glossary), the formula registry, units, errors
* :mod:`~llm_arithmetic.formulas` -- parameters, memory, FLOPs, the roofline, parallelism,
  serving
* :mod:`~llm_arithmetic.catalog` -- models as stacks of layer kinds (read from ``config.json``),
  chips, weight formats
* :func:`estimate`, :func:`frontier`, :func:`sweep` -- a model on a chip or a replica, over
  batch sizes, and grids of them; :func:`engine_view` -- what a serving engine allocates
* :mod:`~llm_arithmetic.forecast`, :mod:`~llm_arithmetic.deploy`, :mod:`~llm_arithmetic.explain`
  -- the speed a runtime can be expected to reach under the bound, the deployment search of
  ``llm-arithmetic plan``, the formula behind each number
* :mod:`~llm_arithmetic.articles` -- the source articles' own formulas and inputs
* :mod:`~llm_arithmetic.book`, :mod:`~llm_arithmetic.teaching`, :mod:`~llm_arithmetic.lab`

The top level imports no sympy.

>>> from llm_arithmetic import estimate
>>> e = estimate("mistral-7b", hardware="rtx-4090")
>>> round(e.decode_seconds_per_token * 1e3, 1)
14.1
"""
from __future__ import annotations

import gc as _gc
import sys as _sys
from importlib import import_module
from typing import Any


def _command() -> bool:
    """Whether this import is ``python -m llm_arithmetic`` finding its ``__main__`` (while it
    does, ``sys.argv[0]`` is ``"-m"``; ``sys.orig_argv`` names the module)."""
    if _sys.argv[:1] != ["-m"]:
        return False
    argv = getattr(_sys, "orig_argv", [])
    for i, a in enumerate(argv[1:], 1):
        if a.startswith("-m"):
            return (a[2:] or (argv[i + 1] if i + 1 < len(argv) else "")) == __name__
    return False


#: The command line's process collects no garbage while the package is imported: what the
#: imports build lives until the process ends, and ``__main__`` freezes it (``gc.freeze``)
#: before the collector runs again. Walking it at each collection cost the command a few
#: milliseconds of its start-up. An import from Python leaves the collector as it was.
#: Whether this import is ``python -m llm_arithmetic`` starting (:func:`_command`): only then
#: does ``__main__`` end the process without the interpreter's shutdown. A program that runs
#: the module itself (``runpy.run_module("llm_arithmetic", run_name="__main__")``) gets
#: :class:`SystemExit`, which it may catch, as before.
COMMAND_RUN = _command()
GC_DEFERRED = _gc.isenabled() and COMMAND_RUN
if GC_DEFERRED:
    _gc.disable()

# Eager: the function `estimate` must win over the submodule of the same name, which the
# import system would otherwise bind to this attribute once anything imports it.
from .estimate import Estimate, estimate  # noqa: E402 (after the collector is deferred)
from .arguments import ContextWarning  # noqa: E402
from .sweeps import Sweep, frontier, sweep  # noqa: E402
from .weights import FileTypeWarning  # noqa: E402

__version__ = "0.2.0"

_EXPORTS = {
    "Model": "catalog.model", "Attention": "catalog.model", "MLP": "catalog.model",
    "Mamba2": "catalog.model", "GatedDeltaNet": "catalog.model",
    "KimiDeltaAttention": "catalog.model", "ShortConv": "catalog.model",
    "LightningAttention": "catalog.model", "Mamba1": "catalog.model",
    "GatedMemoryUnit": "catalog.model",
    "Layers": "catalog.model",
    "read_config": "catalog.readers",
    "get_model": "catalog.model_catalog", "model_names": "catalog.model_catalog",
    "MODELS": "catalog.model_catalog",
    "get_hardware": "catalog.hardware", "hardware_names": "catalog.hardware",
    "HARDWARE": "catalog.hardware", "Hardware": "catalog.hardware", "Peak": "catalog.hardware",
    "bits_per_weight": "catalog.formats", "BITS_PER_WEIGHT": "catalog.formats",
    "FORMATS": "catalog.formats", "MIXES": "catalog.formats", "mix_bits": "catalog.formats",
    "ConfigError": "core.errors", "InputError": "core.errors",
    "GB": "core.units", "GiB": "core.units",
    "engine_view": "engine", "EngineView": "engine",
}

__all__ = sorted(_EXPORTS) + ["ContextWarning", "Estimate", "FileTypeWarning", "Sweep",
                              "estimate", "frontier", "sweep", "__version__"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'llm_arithmetic' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
