"""Everything a chapter uses, in one import.

Every chapter of the book opens with one line::

    from llm_arithmetic.book.prelude import *

which brings, in the names the chapters use:

* the package's API: :func:`estimate`, :func:`sweep`, :func:`get_model`, :func:`get_hardware`,
  ``HARDWARE``, ``CATALOG``, ``FIRST_EDITION``, ``Model``, :func:`read_config` (a Hugging Face
  ``config.json`` as a ``Model``), :func:`bits_per_weight`, :func:`explain` (the step of
  the calculation behind a number of an estimate: its equation with the values put in);
* the formula modules ``flops``, ``memory``, ``params`` and ``roofline``, and the glossary's
  symbols as ``sym`` (``sym.context``): each registered formula is callable with numbers, and
  its ``.expr`` is the sympy expression (not single letters: the book writes S, P, R and M for
  its own quantities);
* units (``GB``, ``GiB``, ``GB_S``, ``TFLOP_S``, ...): bytes are integers, rates in B/s and
  FLOP/s, converted only for display;
* the book's display helpers (:mod:`llm_arithmetic.book.display`: ``glue``, ``glue_math``,
  ``glue_figure``, ``md_table``, ``long_table``, ``chip_name``, ``model_name``, ...) and
  ``plots``; ``np``, ``plt``, ``sp``, ``display``, ``Markdown``, ``Math``;
* small helpers shared by chapters: :func:`model_args`, :func:`chip_args`,
  :func:`formula_args`, :func:`fmt_batch`, :func:`article_figure`.

It also applies the book's figure style (:data:`llm_arithmetic.book.plots.STYLE`, PNG at twice
the pixel size) as soon as Matplotlib's pyplot is imported (``plt`` imports it on first use, so
that a notebook that draws nothing does not pay for it), and silences
:class:`~llm_arithmetic.ContextWarning`: the chapters ask what-if questions beyond a model's
trained context on purpose; and :class:`~llm_arithmetic.FileTypeWarning`: the chapters name the
block formats (``q4_0``, every weight at 4.5 bits, as the articles assume), not llama.cpp's
files of that type (``mostly_q4_0``).

>>> import llm_arithmetic.book.prelude as prelude
>>> sorted(set(prelude.__all__) - set(vars(prelude)))
[]
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import sympy as sp
from IPython.display import Markdown, Math, display

from ..arguments import ContextWarning
from ..estimate import estimate
from ..sweeps import sweep
from ..weights import FileTypeWarning
from ..explain import explain
from ..catalog.formats import bits_per_weight
from ..catalog.hardware import HARDWARE, get_hardware
from ..catalog.model import Model
from ..catalog.model_catalog import CATALOG, FIRST_EDITION, get_model
from ..catalog.readers import read_config
from ..core import symbols as sym
from ..core.units import (GB, GB_S, GFLOP_S, GiB, KB, KiB, MB, MiB, PFLOP_S, TB, TB_S,
                          TFLOP_S, TiB)
from ..formulas import flops, memory, params, roofline
from . import plots
from .matplotlib_on_demand import pyplot as plt
from .display import (chip_cell, chip_name, cite, equation_latex, escape, family_cell, fmt_peak,
                      glue, glue_figure, glue_math, key, long_table, md_table, model_cell,
                      model_name, round_sig, show_formula, stack_lines, stepwise_cache_note)

__all__ = [
    # the package
    "estimate", "sweep", "get_model", "get_hardware", "HARDWARE", "CATALOG", "FIRST_EDITION",
    "Model", "read_config", "bits_per_weight", "ContextWarning", "flops", "memory", "params",
    "roofline", "sym", "explain",
    # units
    "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "GB_S", "TB_S", "GFLOP_S", "TFLOP_S",
    "PFLOP_S",
    # display
    "glue", "glue_math", "glue_figure", "equation_latex", "md_table", "long_table", "cite",
    "escape", "key", "chip_name", "chip_cell", "fmt_peak", "model_name", "model_cell",
    "family_cell",
    "show_formula", "stack_lines", "stepwise_cache_note",
    "round_sig", "plots",
    "np", "plt", "sp", "display", "Markdown", "Math",
    # shared helpers
    "model_args", "chip_args", "formula_args", "fmt_batch", "article_figure",
]

warnings.simplefilter("ignore", ContextWarning)
warnings.simplefilter("ignore", FileTypeWarning)
plots.use_style_when_imported()


def model_args(m: Model, bits_weight: Any = 16, bits_kv: Any = 16) -> dict[str, Any]:
    """A uniform decoder's arguments of the roofline's step formulas
    (``roofline.decode_step_time``, ``roofline.critical_batch_size``, ...): weights read per
    step, cache per token, shape.

    >>> sorted(model_args(get_model("llama-2-7b")))
    ['d_head', 'kv_cache_bytes_per_token', 'matmul_params', 'n_heads', 'n_layers', 'weight_bytes']
    """
    return dict(weight_bytes=memory.weight_bytes(n_params=m.decode_read_params,
                                                 bits_weight=bits_per_weight(bits_weight)),
                kv_cache_bytes_per_token=m.kv_cache_bytes_per_token(bits_per_weight(bits_kv)),
                matmul_params=m.matmul_params, n_layers=m.n_layers, n_heads=m.n_heads,
                d_head=m.d_head)


def chip_args(h: Any, precision: str | None = None) -> dict[str, float]:
    """A chip's bandwidth [B/s] and dense peak [FLOP/s] at ``precision``, as the step formulas
    take them; without a precision, the peak the estimate uses for 16-bit weights (fp16 with
    fp16 accumulation where a GeForce card lists it).

    >>> round(chip_args(get_hardware("rtx-4090"))["peak_flops"]
    ...       / chip_args(get_hardware("rtx-4090"), "fp16")["peak_flops"], 2)
    2.0
    """
    from ..layout import peak_for
    return dict(bandwidth=h.bandwidth,
                peak_flops=peak_for(h, "fp16") if precision is None else h.peak(precision))


def formula_args(formula: Any, *sources: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """The keyword arguments of a registered formula, taken from ``sources`` (dicts such as
    :func:`model_args` and :func:`chip_args`) and ``kwargs``; what the formula does not take is
    left out.

    >>> a = formula_args(roofline.critical_context, model_args(get_model("mistral-7b")),
    ...                  chip_args(get_hardware("h100-sxm")))
    >>> "weight_bytes" in a, round(roofline.critical_context(**a))
    (False, 372)
    """
    merged: dict[str, Any] = {}
    for src in sources:
        merged.update(src)
    merged.update(kwargs)
    return {k: v for k, v in merged.items() if k in formula.params}


def fmt_batch(b: float) -> str:
    """A critical batch size for a table: a whole number, or infinity.

    >>> fmt_batch(float("inf")), fmt_batch(1234.4)
    ('∞', '1,234')
    """
    return "∞" if b == float("inf") else f"{b:,.0f}"


def article_figure(chip: Any, article: str, quantity: str) -> float:
    """The value a source article used for a chip's ``quantity`` (the catalog keeps it with
    the article, next to the datasheet's figure).

    Karpathy's note gives the M2 "7 TFLOPS":

    >>> article_figure(get_hardware("m2"), "karpathy2023note", "peak:fp16") / 1e12
    7.0
    """
    for a in chip.article_figures:
        if a.article == article and a.quantity == quantity:
            return a.value
    raise KeyError(f"{chip.name}: no {quantity!r} figure from {article!r} in the catalog")
