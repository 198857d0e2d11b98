"""The figure checker: every figure of the book readable at the size the page shows it.

:func:`check_figure` refuses a figure whose text is smaller than :data:`MIN_FONT_PT`, whose
texts collide (labels, ticks, legends, annotations), whose text lies on a data line, or whose
numeric axis has no unit; :func:`fit_width` narrows a figure that would be saved wider than the
book's column (:data:`MAX_WIDTH_PX`). :func:`llm_arithmetic.book.display.glue_figure` runs both
on every figure it glues; :func:`llm_arithmetic.book.plots.label_points` places labels by the
same rules.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .matplotlib_on_demand import pyplot as plt

__all__ = ["MIN_FONT_PT", "MAX_WIDTH_PX", "check_figure", "fit_width"]

#: Smallest text in a figure [pt]. Figures are drawn at 96 dpi and shown at their own size
#: (a 7-inch figure is 672 CSS px wide, within the book's column at 1280 px), so a point in the
#: figure is a point on the page.
MIN_FONT_PT = 9.0

#: Widest figure as saved [CSS px]: the book's text column at a 1280 px window. The book saves a
#: figure with a tight bounding box (matplotlib-inline's default), which can grow it past its
#: ``figsize`` (a legend below the axes, constrained layout's edges plus the 0.1 in pad); the
#: browser would then shrink it, and its 9 pt text with it. :func:`fit_width` narrows such a
#: figure instead.
MAX_WIDTH_PX = 672

def _texts(fig: plt.Figure) -> list[tuple[str, Any]]:
    """Every visible, non-empty text of a figure, with a name for error messages."""
    out = []

    def add(where, t):
        if t is not None and t.get_visible() and t.get_text().strip():
            out.append((f"{where} {t.get_text()!r}", t))

    add("suptitle", getattr(fig, "_suptitle", None))
    for t in fig.texts:
        add("figure text", t)
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        add("title", ax.title)
        add("title", ax._left_title)
        add("title", ax._right_title)
        add("x label", ax.xaxis.label)
        add("y label", ax.yaxis.label)
        for t in ax.texts:
            add("text", t)
        for axis, name in ((ax.xaxis, "x tick"), (ax.yaxis, "y tick")):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if lo - 1e-9 * abs(hi - lo) <= tick.get_loc() <= hi + 1e-9 * abs(hi - lo):
                    add(name, tick.label1)
                    add(name, tick.label2)
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            add("legend title", leg.get_title())
            for t in leg.get_texts():
                add("legend", t)
    for leg in fig.legends:
        for t in leg.get_texts():
            add("legend", t)
    return out


def _is_numeric_axis(axis) -> bool:
    """Whether an axis shows numbers (an axis whose tick labels are hidden, such as the upper
    of two that share x, shows none and needs no label)."""
    labels = [t.get_text() for t in axis.get_ticklabels()
              if t.get_visible() and t.get_text().strip()]
    if not labels:
        return False
    plain = "0123456789.,-−+eE×^${}\\ mathrm%"
    return all(all(ch in plain for ch in lab) for lab in labels)


def _text_box(t: Any, renderer: Any) -> Any:
    """The box of a text's glyphs (an annotation's leader line left out)."""
    from matplotlib.text import Text

    if hasattr(t, "update_positions"):  # an annotation: place its text first
        t.update_positions(renderer)
    return Text.get_window_extent(t, renderer)


def _is_data_line(line: Any) -> bool:
    """A line that carries data: solid (or markers), not a thin dotted or dashed reference line
    (an operation's intensity, a capacity limit), which a label sits next to on purpose."""
    style = line.get_linestyle()
    return not (style in (":", "--", "-.", "dotted", "dashed", "dashdot")
                and line.get_linewidth() <= 1.2)


def laid_out(fig: plt.Figure) -> Any:
    """Draw ``fig`` without its pixels (``Figure.draw_without_rendering``) and return the
    canvas's renderer (the figure's dpi), which that draw ran with: the layout engine places
    the axes and every text is sized and placed as ``fig.canvas.draw()`` would, but the Agg
    calls that fill the pixel buffer are skipped (about a seventh of a check's time). The
    checks below only measure; the saved PNG is drawn in full by ``savefig``.

    Two figures made alike, one laid out, the other drawn, have the same text boxes:

    >>> def figure():
    ...     fig, ax = plt.subplots(figsize=(3, 2), layout="constrained")
    ...     _ = ax.plot([1, 10], [1, 5], label="decode"); _ = ax.legend()
    ...     _ = ax.set_xlabel("context [tokens]"); _ = ax.set_ylabel("time [ms]")
    ...     return fig
    >>> a, b = figure(), figure()
    >>> b.canvas.draw()
    >>> boxes = lambda fig, r: [t.get_window_extent(r).bounds for _, t in _texts(fig)]
    >>> laid, drawn = boxes(a, laid_out(a)), boxes(b, b.canvas.get_renderer())
    >>> len(laid), laid == drawn
    (13, True)
    >>> plt.close(a); plt.close(b)
    """
    fig.draw_without_rendering()
    return fig.canvas.get_renderer()


def _saved_width_px(fig: plt.Figure) -> float:
    """The width [CSS px] of the figure as saved with a tight bounding box (as drawn last)."""
    bbox = fig.get_tightbbox(fig.canvas.get_renderer())
    return (bbox.width + 2 * plt.rcParams["savefig.pad_inches"]) * 96


def fit_width(fig: plt.Figure, max_px: float = MAX_WIDTH_PX, drawn: bool = False) -> bool:
    """Narrow ``fig`` until, saved with a tight bounding box, it is at most ``max_px`` CSS px
    wide (one px of margin for rounding); its text keeps its size in points. Return whether
    the figure was changed. ``drawn``: the figure was drawn since its last change (saves a draw).

    >>> fig, ax = plt.subplots(figsize=(7, 3), layout="constrained")
    >>> _ = ax.set_ylabel("time [ms]")
    >>> fit_width(fig), round(_saved_width_px(fig)) <= MAX_WIDTH_PX
    (True, True)
    >>> fit_width(fig, drawn=True)
    False
    >>> plt.close(fig)
    """
    changed = False
    for _ in range(6):
        if not drawn:
            laid_out(fig)
        drawn = False
        excess = _saved_width_px(fig) - (max_px - 1)
        if excess <= 0:
            return changed
        w, h = fig.get_size_inches()
        fig.set_size_inches(w - excess / 96 - 0.01, h)
        changed = True
    raise ValueError(f"figure could not be narrowed to {max_px} px "
                     f"(still {_saved_width_px(fig):.0f} px)")


def check_figure(fig: plt.Figure, min_pt: float = MIN_FONT_PT) -> None:
    """Raise ValueError, naming the text, when a figure is not readable: text smaller than
    ``min_pt`` points, two texts that overlap (labels, ticks, legends, annotations), a text or
    a legend inside the axes that lies on a data line (solid lines and markers; thin dotted
    and dashed reference lines excepted), or a numeric axis whose label gives no unit in
    brackets ("context [tokens]"). A categorical axis (bars named by model) needs no unit.

    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([1, 2], [3, 4]); _ = ax.set_xlabel("context [tokens]")
    >>> _ = ax.set_ylabel("time [ms]")
    >>> check_figure(fig)
    >>> t = ax.text(1.8, 3.1, "tiny", fontsize=6)
    >>> check_figure(fig)
    Traceback (most recent call last):
    ...
    ValueError: figure text too small (6.0 pt < 9.0 pt): text 'tiny'
    >>> t.set_fontsize(9); t.set_position((1.5, 3.5))   # now on the line
    >>> check_figure(fig)
    Traceback (most recent call last):
    ...
    ValueError: figure text 'tiny' lies on a data line
    >>> plt.close(fig)
    """
    renderer = laid_out(fig)
    problems = []
    texts = _texts(fig)
    for name, t in texts:
        if t.get_fontsize() < min_pt - 1e-6:
            problems.append(f"figure text too small ({t.get_fontsize():.1f} pt < {min_pt} pt): "
                            f"{name}")
    boxes = [(name, _text_box(t, renderer)) for name, t in texts]
    for i, (n1, b1) in enumerate(boxes):
        for n2, b2 in boxes[i + 1:]:
            # overlap by more than one pixel in both directions
            dx = min(b1.x1, b2.x1) - max(b1.x0, b2.x0)
            dy = min(b1.y1, b2.y1) - max(b1.y0, b2.y0)
            if dx > 1 and dy > 1:
                problems.append(f"figure texts overlap: {n1} and {n2}")
    # texts inside an axes (annotations, an axes' legend) must not lie on its data lines
    from matplotlib.path import Path

    for ax in fig.axes:
        if not ax.get_visible():
            continue
        inside = [(f"text {t.get_text()!r}", t) for t in ax.texts
                  if t.get_visible() and t.get_text().strip()]
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            inside += [(f"legend {t.get_text()!r}", t) for t in leg.get_texts()]
        if not inside:
            continue
        data = [ln for ln in ax.lines if ln.get_visible() and _is_data_line(ln)]
        for name, t in inside:
            box = _text_box(t, renderer).shrunk(0.95, 0.9)  # the glyphs, not the margin
            for ln in data:
                xy = ln.get_transform().transform(np.column_stack(ln.get_data()).astype(float))
                xy = xy[np.all(np.isfinite(xy), axis=1)]
                if not len(xy):
                    continue
                if ln.get_linestyle() in ("None", "none", "", " "):
                    hit = bool(np.any((xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1)
                                      & (xy[:, 1] >= box.y0) & (xy[:, 1] <= box.y1)))
                else:
                    hit = Path(xy).intersects_bbox(box, filled=False)
                if hit:
                    label = ln.get_label()
                    problems.append(f"figure {name} lies on a data line"
                                    + ("" if label.startswith("_") else f" ({label!r})"))
                    break
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison:
            continue
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            if not axis.get_visible() or not _is_numeric_axis(axis):
                continue
            label = axis.get_label().get_text()
            if "[" not in label:
                problems.append(f"numeric {name} axis without a unit in brackets: "
                                f"label {label!r}")
    if problems:
        raise ValueError("; ".join(dict.fromkeys(problems)))



def unclutter(fig: plt.Figure) -> bool:
    """Make room where :func:`check_figure` finds a legend on a data line or point labels that
    overlap (each other, or a line): move every legend inside an axes below that axes, and place
    every label of a point (an annotation set off its point) again with
    :func:`label_points`, which looks around each point for
    free room. True if it changed anything. A chapter re-run with another model or chip draws
    its lines and points elsewhere, so labels placed for the first setting may collide.

    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [0, 1], "o-", label="a line"); _ = ax.legend(loc="center")
    >>> _ = ax.set_xlabel("x [-]"); _ = ax.set_ylabel("y [-]")
    >>> for _ in range(2):
    ...     _ = ax.annotate("B=1", (0, 0), textcoords="offset points", xytext=(4, 5))
    >>> unclutter(fig), unclutter(fig)
    (True, False)
    >>> check_figure(fig); plt.close(fig)
    """
    from matplotlib.text import Annotation

    try:
        check_figure(fig)
        return False
    except ValueError as err:
        problems = str(err)
    changed = False
    for ax in fig.axes:
        leg = ax.get_legend()
        if "figure legend" in problems and leg is not None and leg.get_visible():
            handles, labels = ax.get_legend_handles_labels()
            title = leg.get_title().get_text() or None
            size = leg.get_texts()[0].get_fontsize() if leg.get_texts() else None
            ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.2),
                      ncol=min(3, max(len(labels), 1)), title=title, fontsize=size,
                      title_fontsize=size)
            changed = True
        notes = [t for t in ax.texts if isinstance(t, Annotation) and t.get_visible()
                 and t.anncoords == "offset points" and t.arrow_patch is None
                 and f"text {t.get_text()!r}" in problems]
        if notes:
            for t in notes:
                t.remove()
            for t in notes:
                label_points(ax, [t.xy[0]], [t.xy[1]], [t.get_text()],
                             fontsize=t.get_fontsize(), color=t.get_color())
            changed = True
    return changed


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
    renderer = laid_out(fig)
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
