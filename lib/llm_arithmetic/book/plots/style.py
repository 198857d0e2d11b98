"""The book's figure style, and the drawing helpers every figure shares: plain log ticks,
labels placed clear of each other (:func:`label_points`), a new axes in the style (:func:`axes_or_new`)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..figure_check import label_points  # noqa: F401 (re-exported: chapters import it from here)
from ..matplotlib_on_demand import after_import
from ..matplotlib_on_demand import pyplot as plt
from ..matplotlib_on_demand import ticker as mticker

__all__ = ["STYLE", "use_style", "use_style_when_imported", "plain_log_ticks", "label_points",
           "axes_or_new"]

#: rcParams of every figure of the book.
STYLE: dict[str, Any] = {
    "figure.figsize": (7.0, 4.2), "figure.dpi": 96, "savefig.dpi": 192,
    "axes.grid": True, "grid.alpha": 0.3, "axes.spines.top": False, "axes.spines.right": False,
    "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 9, "legend.frameon": False,
    "xtick.labelsize": 9, "ytick.labelsize": 9, "font.size": 10, "lines.linewidth": 1.8,
    # no date or version in what the figures carry
    "svg.hashsalt": "llm-arithmetic", "svg.fonttype": "path",
}


def use_style_when_imported() -> None:
    """:func:`use_style` right after ``matplotlib.pyplot`` is first imported, by whatever code
    (at once if it is already): the prelude's way, so that a notebook that draws nothing does
    not import Matplotlib (:mod:`llm_arithmetic.book.matplotlib_on_demand`)."""
    after_import("matplotlib.pyplot", use_style)


def use_style() -> None:
    """Apply :data:`STYLE` to Matplotlib, and in IPython show figures as PNG at twice their
    pixel size (``retina``: sharp on any screen, shown at the figure's own size)."""
    plt.rcParams.update(STYLE)
    try:
        from IPython import get_ipython

        if get_ipython() is not None:
            from matplotlib_inline.backend_inline import set_matplotlib_formats

            set_matplotlib_formats("retina")
    except ImportError:  # no IPython: nothing to configure
        pass


def plain_log_ticks(axis: Any) -> None:
    """Label a logarithmic axis with plain numbers (``3``, ``20``, ``500``), the minor ticks
    at 2, 3 and 5 times a power of ten, instead of ``3 x 10^0``."""
    axis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(mticker.FuncFormatter(
        lambda v, _: f"{v:g}" if round(v / 10 ** np.floor(np.log10(v))) in (2, 3, 5) else ""))


def axes_or_new(ax: plt.Axes | None) -> plt.Axes:
    """``ax``, or where it is None the axes of a new figure in the book's style: what every plot
    function of :mod:`llm_arithmetic.book.plots` draws on.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> axes_or_new(ax) is ax, axes_or_new(None) is ax
    (True, False)
    """
    if ax is None:
        use_style()
        _, ax = plt.subplots()
    return ax
