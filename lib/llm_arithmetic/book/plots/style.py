"""The book's figure style, and the drawing helpers every figure shares: plain log ticks,
labels placed clear of each other (:func:`label_points`), a new axes in the style (``_ax``)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..figure_check import _is_data_line, _text_box
from ..matplotlib_on_demand import after_import
from ..matplotlib_on_demand import pyplot as plt
from ..matplotlib_on_demand import ticker as mticker

__all__ = ["STYLE", "use_style", "use_style_when_imported", "plain_log_ticks", "label_points"]

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


def label_points(ax: plt.Axes, xs: Sequence[float], ys: Sequence[float],
                 labels: Sequence[str], fontsize: float = 9.0, color: Any = "0.15",
                 distances: Sequence[float] = (3, 8, 14, 22, 32)) -> list[str]:
    """Label points without collisions: each label goes to the first of eight positions around
    its point, at growing ``distances`` [pt], where it lies inside the axes and overlaps no
    text already there, no marker and no data line (see :func:`check_figure`); a label set far
    from its point gets a thin leader line. Call it after
    the axes' limits and scales are final. Returns the labels that found no place (none, in a
    figure of the book: shorten them, group close points, or enlarge the figure).

    >>> fig, ax = plt.subplots(figsize=(4, 3))
    >>> _ = ax.plot([1, 2, 3], [1, 2, 3], "o")
    >>> label_points(ax, [1, 2, 3], [1, 2, 3], ["one", "two", "three"])
    []
    >>> plt.close(fig)
    """
    from matplotlib.path import Path

    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    markers, lines = [], []
    for ln in ax.lines:
        if not ln.get_visible() or not _is_data_line(ln):
            continue
        xy = ln.get_transform().transform(np.column_stack(ln.get_data()).astype(float))
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if ln.get_linestyle() in ("None", "none", "", " "):
            r = ln.get_markersize() * fig.dpi / 72 / 2 + 1
            markers += [(x - r, y - r, x + r, y + r) for x, y in xy]
        elif len(xy):
            lines.append(Path(xy))
    # texts already in the axes (reference-line labels, earlier annotations) stay clear too
    placed: list[Any] = [_text_box(t, renderer) for t in ax.texts
                         if t.get_visible() and t.get_text().strip()]
    unplaced = []
    # beside, above or below the point first (unambiguous), then the diagonals
    directions = [(1, 0, "left", "center"), (-1, 0, "right", "center"), (0, 1, "center", "bottom"),
                  (0, -1, "center", "top"), (1, 1, "left", "bottom"), (-1, 1, "right", "bottom"),
                  (-1, -1, "right", "top"), (1, -1, "left", "top")]

    def free(box) -> bool:
        if not (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0
                and box.y1 <= inside.y1):
            return False
        if any(box.overlaps(b) for b in placed):
            return False
        if any(box.x0 < x1 and x0 < box.x1 and box.y0 < y1 and y0 < box.y1
               for x0, y0, x1, y1 in markers):
            return False
        return not any(p.intersects_bbox(box, filled=False) for p in lines)

    for x, y, text in zip(xs, ys, labels):
        for d in distances:
            done = False
            for dx, dy, ha, va in directions:
                k = 0.7 if dx and dy else 1.0
                leader = dict(arrowstyle="-", lw=0.6, color="0.55", shrinkA=0,
                              shrinkB=3) if d > distances[1] else None
                t = ax.annotate(text, (x, y), xytext=(dx * d * k, dy * d * k),
                                textcoords="offset points", ha=ha, va=va, fontsize=fontsize,
                                color=color, arrowprops=leader)
                box = _text_box(t, renderer).expanded(1.02, 1.05)
                if free(box):
                    placed.append(box)
                    done = True
                    break
                t.remove()
            if done:
                break
        else:
            unplaced.append(text)
    return unplaced


def _ax(ax: plt.Axes | None) -> plt.Axes:
    if ax is None:
        use_style()
        _, ax = plt.subplots()
    return ax
