"""Figures, in one style, computed by the package's formulas.

Each function draws on a Matplotlib ``Axes`` (a new figure when none is given) and returns it;
notebooks end the cell with ``plt.show()``.

* :func:`roofline` -- attainable FLOP/s against arithmetic intensity, chips and operations on it
* :func:`time_per_token_vs_batch` -- decode step time and throughput as the batch grows
* :func:`kv_cache_vs_context` -- KV-cache bytes against context, MHA vs GQA
* :func:`decode_bytes_breakdown` -- where the bytes of one decode step go
* :func:`params_breakdown` -- where a model's parameters are
* :func:`sequence_memory_vs_context` -- one sequence's cache and state as stored, and with every
  layer kept whole
* :func:`mla_attention_flops_vs_context` -- latent attention's FLOPs per token, absorbed or not
* :func:`expert_weights_read_vs_batch` -- the share of a mixture's weights a decode step reads
* :func:`chips_scatter` -- every chip's bandwidth against its peak, lines of equal ops:byte

:func:`check_figure` (text size, collisions, units) and :func:`label_points` (labels placed
clear of each other, the markers and the lines) keep every figure readable.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np

from .. import numeric as N
from ..catalog.formats import bits_per_weight
from ..catalog.hardware import Hardware
from ..catalog.model import Model
from ..core.units import GB, GB_S, GiB, TFLOP_S
from ..estimate import estimate
from .display import chip_name
from .matplotlib_on_demand import after_import
from .matplotlib_on_demand import pyplot as plt
from .matplotlib_on_demand import ticker as mticker

__all__ = ["STYLE", "MIN_FONT_PT", "MAX_WIDTH_PX", "use_style", "use_style_when_imported",
           "check_figure", "fit_width", "plain_log_ticks", "label_points", "chips_scatter",
           "roofline", "time_per_token_vs_batch", "kv_cache_vs_context", "decode_bytes_breakdown",
           "params_breakdown", "sequence_memory_vs_context", "mla_attention_flops_vs_context",
           "expert_weights_read_vs_batch"]

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
            fig.canvas.draw()
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
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
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


def roofline(chips: Sequence[Hardware], operations: dict[str, float] | None = None,
             precision: str = "fp16", ax: plt.Axes | None = None,
             intensity_range: tuple[float, float] = (0.1, 2000.0),
             legend: str | None = "lower right", labels: str = "bottom") -> plt.Axes:
    """The roofline of each chip: attainable rate min(peak, I x bandwidth) against intensity I.

    Parameters
    ----------
    chips : sequence of Hardware
        Chips; one without a dense peak at ``precision`` is drawn with its fp32 peak, and the
        legend says so.
    operations : dict, optional
        Name -> arithmetic intensity [FLOP/B], drawn as vertical lines.
    precision : str
        Which dense peak to use.
    legend : str or None
        Matplotlib legend location; ``"below"`` puts it under the axes; None draws none.
    labels : str
        Where the operations' names go along their lines: ``"bottom"`` (below the rooflines,
        where a log-log roofline has room) or ``"top"``.

    Examples
    --------
    >>> from llm_arithmetic import get_hardware
    >>> ax = roofline([get_hardware("a10")], {"matvec fp16": 1.0})
    >>> ax.get_xscale(), len(ax.lines)  # the roof, its ridge point, the operation
    ('log', 3)
    """
    ax = _ax(ax)
    x = np.logspace(np.log10(intensity_range[0]), np.log10(intensity_range[1]), 400)
    for h in chips:
        prec = precision if precision in h.peaks else "fp32"
        peak = h.peak(prec)
        y = np.minimum(peak, x * h.bandwidth)
        ridge_label = f"ridge {N.ops_per_byte(peak_flops=peak, bandwidth=h.bandwidth):.0f} FLOP/B"
        if prec != precision:
            ridge_label += f", {prec} peak"
        (line,) = ax.plot(x, y, label=f"{chip_name(h)} ({ridge_label})")
        ridge = peak / h.bandwidth
        ax.plot([ridge], [peak], "o", color=line.get_color(), ms=4)
        ax.lines[-1].set_label("_nolegend_")
    for name, intensity in (operations or {}).items():
        ax.axvline(intensity, color="0.4", ls=":", lw=1)
        y, va = (0.02, "bottom") if labels == "bottom" else (0.98, "top")
        ax.text(intensity, y, f" {name} ", rotation=90, va=va, ha="right", fontsize=9,
                transform=ax.get_xaxis_transform(), color="0.3")
    ax.set_xscale("log")
    ax.set_yscale("log")
    if operations and labels == "bottom":  # a decade of room under the lowest roof
        lowest = min(min(x[0] * h.bandwidth, h.peak(precision if precision in h.peaks
                                                    else "fp32")) for h in chips)
        ax.set_ylim(bottom=lowest / 10)
    ax.set_xlabel("arithmetic intensity [FLOP/B]")
    ax.set_ylabel(f"attainable rate [FLOP/s], dense {precision}")
    if legend == "below":
        leg = ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
        fig = ax.figure
        if leg.get_window_extent(fig.canvas.get_renderer()).width * 96 / fig.dpi > \
                MAX_WIDTH_PX - 24:  # two columns wider than the page: one column
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=1)
    elif legend:
        ax.legend(loc=legend)
    return ax


def time_per_token_vs_batch(model: Model, chip: Hardware, batches: Iterable[int] = range(1, 257),
                            contexts: Sequence[int] = (1, 4096), weights: str = "fp16",
                            ax: plt.Axes | None = None) -> plt.Axes:
    """Decode step time (solid) and its memory-only bound (dotted) against batch size.

    The step reads the cache each layer keeps (windows applied) and, for a mixture of experts,
    the experts its batch touches (:meth:`~llm_arithmetic.catalog.model.Model.step_weight_bytes`).

    >>> from llm_arithmetic import get_model, get_hardware
    >>> ax = time_per_token_vs_batch(get_model("llama-2-7b"), get_hardware("a100-80gb-sxm"),
    ...                              batches=[1, 2, 4], contexts=[1])
    >>> len(ax.lines)
    2
    """
    ax = _ax(ax)
    b = np.asarray(list(batches), dtype=float)
    bits = bits_per_weight(weights)
    for s in contexts:
        e = estimate(model, hardware=chip, weights=weights, context=int(s))
        step_bytes = N.batched_step_bytes(weight_bytes=model.step_weight_bytes(bits, b),
                                          seq_bytes=float(model.seq_bytes(int(s))), batch=b)
        step_flops = N.batched_step_flops(seq_flops=float(e.decode_flops_per_token), batch=b)
        t = N.roofline_time(step_bytes=step_bytes, step_flops=step_flops,
                            bandwidth=e.bandwidth, peak_flops=e.peak_flops)
        (line,) = ax.plot(b, t * 1e3, label=f"context {s:,}")
        ax.plot(b, step_bytes / e.bandwidth * 1e3, ls=":", color=line.get_color(), lw=1)
        ax.lines[-1].set_label("_nolegend_")
    ax.set_xlabel("batch size [sequences]")
    ax.set_ylabel("time per decode step [ms]")
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis)
    ax.set_title(f"{model.label or model.name}, {weights}, {chip_name(chip)} (dotted: memory time)")
    ax.legend()
    return ax


def kv_cache_vs_context(models: Sequence[Model], max_context: int = 131072, bits_kv: Any = 16,
                        ax: plt.Axes | None = None) -> plt.Axes:
    """KV cache [GiB] of one sequence against context, one line per model, as runtimes store
    it (a sliding-window layer keeps its window).

    >>> from llm_arithmetic import get_model
    >>> ax = kv_cache_vs_context([get_model("llama-2-7b"), get_model("mistral-7b")], 8192)
    >>> [round(float(line.get_ydata()[-1]), 2) for line in ax.lines]
    [4.0, 0.5]
    """
    ax = _ax(ax)
    s = np.linspace(0, max_context, 200)
    bits = bits_per_weight(bits_kv)
    for m in models:
        kv = np.asarray(m.kv_cache_bytes(s, 1, bits), dtype=float)
        kinds = sorted({run.attention.kind for run in m.layers if run.attention is not None})
        kind = "/".join(kinds)
        if kinds == ["GQA"]:
            kind = f"GQA {m.n_heads // m.n_kv_heads}x"
        ax.plot(s, kv / GiB, label=f"{m.label or m.name} ({kind})")
    ax.set_xlabel("context [tokens]")
    ax.set_ylabel("KV cache [GiB]")
    ax.legend()
    return ax


def decode_bytes_breakdown(models: Sequence[Model], context: int = 4096, weights: str = "fp16",
                           bits_kv: Any = 16, ax: plt.Axes | None = None) -> plt.Axes:
    """Stacked bars: the bytes one decode step of one sequence reads, by kind [GB]
    (:meth:`~llm_arithmetic.catalog.model.Model.decode_bytes_breakdown`).

    The bars add up to ``estimate(...).decode_bytes_per_token`` (windows applied):

    >>> from llm_arithmetic import get_model, estimate
    >>> ax = decode_bytes_breakdown([get_model("mistral-7b")], context=32768)
    >>> total = float(sum(p.get_height() for p in ax.patches))
    >>> e = estimate("mistral-7b", context=32768)
    >>> round(total, 3), round(e.decode_bytes_per_token / 1e9, 3)
    (14.758, 14.758)
    """
    ax = _ax(ax)
    names = [m.label or m.name for m in models]
    bits_w = bits_per_weight(weights)
    parts = [m.decode_bytes_breakdown(context, bits_w, bits_per_weight(bits_kv)) for m in models]
    keys = list(dict.fromkeys(k for p in parts for k in p))
    bottom = np.zeros(len(models))
    for key in keys:
        vals = np.array([float(p.get(key, 0)) for p in parts]) / GB
        ax.bar(names, vals, bottom=bottom, label=key)
        bottom += vals
    ax.set_ylabel("bytes read per decoded token [GB]")
    ax.set_title(f"{weights} weights, {bits_per_weight(bits_kv)}-bit KV cache, "
                 f"{context:,} tokens")
    ax.legend()
    return ax


def params_breakdown(models: Sequence[Model], ax: plt.Axes | None = None,
                     share: bool = False) -> plt.Axes:
    """Stacked horizontal bars: where each model's parameters are, in billions or, with
    ``share``, in percent of the model (:meth:`~llm_arithmetic.catalog.model.Model.params_breakdown`),
    one bar per model, named on the left (so that any number of names stays readable), the
    first model on top; the legend goes below the axes.

    >>> from llm_arithmetic import get_model
    >>> ax = params_breakdown([get_model("llama-2-7b")])
    >>> round(float(sum(p.get_width() for p in ax.patches)) * 1e9)
    6738415616
    >>> ax = params_breakdown([get_model("llama-2-7b")], share=True)
    >>> round(float(sum(p.get_width() for p in ax.patches)), 6)
    100.0
    """
    ax = _ax(ax)
    names = [m.label or m.name for m in models]
    parts = [m.params_breakdown() for m in models]
    keys = list(dict.fromkeys(k for p in parts for k in p))
    scale = np.array([100 / m.total_params if share else 1e-9 for m in models], dtype=float)
    left = np.zeros(len(models))
    y = np.arange(len(models))[::-1]
    for key in keys:
        vals = np.array([p.get(key, 0) for p in parts], dtype=float) * scale
        ax.barh(y, vals, left=left, label=key)
        left += vals
    ax.set_yticks(y, names)
    ax.set_xlabel("share of the parameters [%]" if share else "parameters [billions]")
    if share:
        ax.set_xlim(0, 100)
    ax.grid(axis="y", visible=False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3)
    return ax


#: How :func:`chips_scatter` names the kinds of the hardware catalog.
CHIP_KINDS = {"datacenter-gpu": "data-centre GPU", "accelerator": "TPU, Gaudi, Trainium",
              "consumer-gpu": "consumer GPU", "soc": "unified-memory SoC",
              "apple-silicon": "Apple silicon", "cpu": "CPU", "sbc": "single-board computer"}


def _short_chip_name(h: Hardware) -> str:
    name = chip_name(h)
    for vendor in ("NVIDIA GeForce ", "NVIDIA ", "AMD Instinct ", "AMD ", "Apple ", "Google Cloud ",
                   "Intel ", "AWS "):
        name = name.removeprefix(vendor)
    return name


def chips_scatter(chips: Sequence[Hardware], ax: plt.Axes | None = None,
                  ratios: Sequence[float] = (10, 100, 1000)) -> plt.Axes:
    """Each chip's memory bandwidth against its dense peak (its
    :meth:`~llm_arithmetic.catalog.hardware.Hardware.headline_precision`: fp16, else bf16, else
    fp32; chips with none of them are left out), coloured by kind, labelled by name without the
    vendor (variants of one chip at one point share a label), with dotted lines of equal
    ops:byte ratio.

    >>> from llm_arithmetic import HARDWARE
    >>> ax = chips_scatter(list(HARDWARE.values())[:6])
    >>> sorted(t.get_text() for t in ax.texts)[:3]
    ['1,000 FLOP/B', '10 FLOP/B', '100 FLOP/B']
    >>> plt.close(ax.figure)
    """
    ax = _ax(ax)
    points: dict[str, list[tuple[float, float, str]]] = {}
    for h in chips:
        prec = h.headline_precision()
        if prec is None:
            continue
        points.setdefault(_short_chip_name(h), []).append(
            (h.bandwidth / GB_S, h.peak(prec) / TFLOP_S, h.kind))
    # variants of one chip (the A100's four) at nearly one point: one label
    for base in {n.split()[0] for n in points}:
        same = [n for n in points if n.split()[0] == base and len(n.split()) > 1]
        if len(same) > 2 and all(abs(np.log10(points[n][0][1] / points[same[0]][0][1])) < 0.01
                                 for n in same):
            points[f"{base} ({len(same)} variants)"] = [p for n in same for p in points.pop(n)]
    for kind, label in CHIP_KINDS.items():
        xy = [(x, y) for v in points.values() for x, y, k in v if k == kind]
        if xy:
            ax.plot(*zip(*xy), "o", ms=5, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    x_lo, x_hi = ax.get_xlim()
    bw = np.logspace(np.log10(x_lo), np.log10(x_hi), 50)
    for r in ratios:
        ax.plot(bw, r * bw * GB_S / TFLOP_S, ls=":", color="0.6", lw=1)
    ax.set_xlim(x_lo, x_hi)
    ax.set_xlabel("memory bandwidth [GB/s]")
    ax.set_ylabel("dense peak [TFLOP/s] (fp16, bf16 or fp32)")
    ax.legend(loc="upper left")
    ax.figure.canvas.draw()
    for r in ratios:  # each ratio's name along its line, near the left edge
        x0 = x_lo * 1.6
        p0 = ax.transData.transform((x0, r * x0 * GB_S / TFLOP_S))
        p1 = ax.transData.transform((x0 * 10, r * x0 * 10 * GB_S / TFLOP_S))
        angle = float(np.degrees(np.arctan2(p1[1] - p0[1], p1[0] - p0[0])))
        ax.annotate(f"{r:,} FLOP/B", (x0, r * x0 * GB_S / TFLOP_S), xytext=(0, 3),
                    textcoords="offset points", rotation=angle, rotation_mode="anchor",
                    ha="left", va="bottom", fontsize=9, color="0.4")
    names = list(points)
    label_points(ax, [np.mean([p[0] for p in points[n]]) for n in names],
                 [np.mean([p[1] for p in points[n]]) for n in names], names)
    return ax


def sequence_memory_vs_context(models: Sequence[Model], max_context: int = 131072,
                               bits_kv: Any = 16, bits_state: Any = 16,
                               ax: plt.Axes | None = None) -> plt.Axes:
    """What one sequence holds [GiB] against context, one colour per model: solid, as a
    window-aware runtime stores it (:meth:`~llm_arithmetic.catalog.model.Model.kv_cache_bytes`,
    plus a state-space model's constant state); dashed, where it differs, with every layer
    kept whole (:meth:`~llm_arithmetic.catalog.model.Model.kv_cache_bytes_full_storage`).

    >>> from llm_arithmetic import get_model
    >>> ax = sequence_memory_vs_context([get_model("gpt-oss-20b"), get_model("llama-3.1-8b")],
    ...                                 131072)
    >>> [round(float(line.get_ydata()[-1]), 2) for line in ax.lines]
    [3.0, 6.0, 16.0]
    """
    ax = _ax(ax)
    s = np.unique(np.linspace(0, max_context, 400).astype(np.int64))
    for m in models:
        state = float(m.state_bytes(bits_state))
        stored = np.array([float(m.kv_cache_bytes(int(x), 1, bits_kv)) for x in s]) + state
        full = np.asarray(m.kv_cache_bytes_full_storage(s, 1, bits_kv), dtype=float) + state
        (line,) = ax.plot(s, stored / GiB, label=m.label or m.name)
        if not np.allclose(stored, full):
            ax.plot(s, full / GiB, ls="--", lw=1, color=line.get_color())
            ax.lines[-1].set_label("_nolegend_")
    ax.set_xlabel("context [tokens]")
    ax.set_ylabel("cache and state of one sequence [GiB]")
    ax.set_title(f"{bits_per_weight(bits_kv)}-bit cache (dashed: every layer kept whole)")
    ax.legend()
    return ax


def mla_attention_flops_vs_context(model: Model, max_context: int = 131072,
                                   ax: plt.Axes | None = None) -> plt.Axes:
    """Attention FLOPs of one decoded token of a latent-attention (MLA) model against context,
    all layers: in the absorbed form (:data:`~llm_arithmetic.formulas.flops.mla_decode_flops`)
    and with the cached latents up-projected at every step
    (:data:`~llm_arithmetic.formulas.flops.mla_decode_flops_naive`); the dotted line is the
    FLOPs of the token's matrix products, 2 per weight.

    >>> from llm_arithmetic import get_model
    >>> ax = mla_attention_flops_vs_context(get_model("deepseek-v3"), 4096)
    >>> [round(float(line.get_ydata()[-1]) / 1e12, 3) for line in ax.lines[:2]]
    [0.07, 8.404]
    """
    ax = _ax(ax)
    s = np.unique(np.geomspace(1, max_context, 300).astype(np.int64)).astype(float)
    absorbed = np.zeros_like(s)
    naive = np.zeros_like(s)
    for run in model.layers:
        a = run.attention
        if a is None or not a.is_mla:
            continue
        absorbed += run.count * np.asarray(a.decode_flops(s), dtype=float)
        naive += run.count * np.asarray(N.mla_decode_flops_naive(
            n_heads=a.n_heads, kv_lora_rank=a.kv_lora_rank, d_nope=a.d_nope, d_rope=a.d_rope,
            d_v=a.d_v, attended=a.tokens(s)), dtype=float)
    ax.plot(s, absorbed, label="absorbed: scores against the cached latents")
    ax.plot(s, naive, label="latents up-projected to keys and values at every step")
    ax.axhline(2 * model.matmul_params, color="0.4", ls=":", lw=1,
               label="matrix products of the token (2 per weight)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("context [tokens]")
    ax.set_ylabel("attention FLOPs per decoded token [FLOP]")
    ax.set_title(model.label or model.name)
    ax.legend()
    return ax


def expert_weights_read_vs_batch(models: Sequence[Model], batches: Iterable[int] = range(1, 513),
                                 ax: plt.Axes | None = None) -> plt.Axes:
    """The share of a model's weight bytes that one decode step of B tokens reads, against B
    (:meth:`~llm_arithmetic.catalog.model.Model.step_weight_bytes` over
    :meth:`~llm_arithmetic.catalog.model.Model.weight_bytes`, weights as shipped; uniform
    routing, the upper end of the experts a batch touches).

    >>> from llm_arithmetic import get_model
    >>> ax = expert_weights_read_vs_batch([get_model("mixtral-8x7b")], [1, 2, 64])
    >>> [round(float(y), 3) for y in ax.lines[0].get_ydata()]
    [0.273, 0.454, 0.997]
    """
    ax = _ax(ax)
    b = np.asarray(list(batches), dtype=float)
    for m in models:
        share = (np.asarray(m.step_weight_bytes(None, b), dtype=float)
                 / float(m.weight_bytes(None)))
        k, e = m.n_active_experts, m.n_experts
        ax.plot(b, share, label=f"{m.label or m.name} ({k} of {e})")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("batch size [sequences]")
    ax.yaxis.set_major_formatter(mticker.PercentFormatter(1.0))
    ax.set_ylabel("share of the weights one step reads [%]")
    ax.legend()
    return ax


# ---- serving: prefill, parallelism, the frontier, speculative decoding, cost -----------------
# (issue 15's chapters 10-14; each function computes through estimate(), frontier() and the
# registered formulas of formulas/serving.py and formulas/parallel.py)

__all__ += ["prefill_time_vs_prompt", "prefill_attention_share", "chunked_prefill_vs_chunk",
            "tp_step_vs_degree", "pipeline_bubble_vs_microbatches", "serving_frontier",
            "speculative_speedup_vs_draft", "speculative_speedup_vs_batch", "verify_step_ratio",
            "cost_vs_speed", "energy_vs_speed", "measured_vs_bound"]

#: Smallest font of the serving figures [pt] (legends and annotations included).
_SMALL = 9


def _short(chip: Hardware) -> str:
    """A chip's name without the variant in parentheses ("NVIDIA H100 SXM")."""
    return chip.label.split(" (")[0].split(",")[0].strip()


def _prefill_args(model: Model, weights: str, bits_kv: Any, prompt: Any) -> dict[str, Any]:
    """The weight bytes a prefill reads and the cache bytes per prompt token, as
    :func:`~llm_arithmetic.estimate.estimate` passes them to ``time_to_first_token``."""
    bits = bits_per_weight(weights)
    kv = bits_per_weight(bits_kv)
    return dict(weight_bytes=float(model.step_weight_bytes(bits, prompt)),
                kv_bytes_token=float(model.kv_cache_bytes(prompt, 1, kv)) / prompt)


def _peak_for(chip: Hardware, weights: str) -> float:
    """The dense peak a format computes at on ``chip``, as estimate() chooses it: the first
    precision of the format's compute chain that the chip has [FLOP/s]."""
    from ..catalog.formats import compute_chain

    for precision in compute_chain(weights, bits_per_weight(weights)):
        if precision in chip.peaks:
            return chip.peaks[precision].rate
    return math.inf


def prefill_time_vs_prompt(model: Model, chip: Hardware, weights: str = "fp16",
                           prompts: Iterable[int] | None = None, bits_kv: Any = 16,
                           n_chips: int = 1, ax: plt.Axes | None = None) -> plt.Axes:
    """Time to first token of a prompt alone on ``n_chips`` chips (solid,
    :data:`~llm_arithmetic.formulas.serving.time_to_first_token`) against the prompt length,
    with its memory time (dotted) and its compute time (dashed), each the same formula with the
    other rate made infinite; the critical prompt
    (:data:`~llm_arithmetic.formulas.serving.critical_prompt`) marked.

    >>> from llm_arithmetic import get_model, get_hardware
    >>> ax = prefill_time_vs_prompt(get_model("llama-2-7b"), get_hardware("a100-80gb-sxm"),
    ...                             prompts=[1, 10, 100, 1000])
    >>> len(ax.lines)
    4
    """
    ax = _ax(ax)
    t_prompt = np.unique(np.geomspace(1, 32768, 160).astype(int)) if prompts is None \
        else np.asarray(list(prompts), dtype=int)
    bw, peak = chip.bandwidth, _peak_for(chip, weights)
    total, memory, compute = [], [], []
    for t in t_prompt:
        args = dict(_prefill_args(model, weights, bits_kv, int(t)),
                    prefill_flops=float(model.prefill_flops(int(t))), prompt=int(t),
                    n_chips=n_chips)
        total.append(N.time_to_first_token(bandwidth=bw, peak_flops=peak, **args))
        memory.append(N.time_to_first_token(bandwidth=bw, peak_flops=math.inf, **args))
        compute.append(N.time_to_first_token(bandwidth=math.inf, peak_flops=peak, **args))
    (line,) = ax.plot(t_prompt, np.array(total) * 1e3, label="time to first token (bound)")
    ax.plot(t_prompt, np.array(memory) * 1e3, ls=":", color="0.35", lw=1.2,
            label="memory time: weights and cache")
    ax.plot(t_prompt, np.array(compute) * 1e3, ls="--", color="0.35", lw=1.2,
            label="compute time: prefill FLOPs")
    critical = N.critical_prompt(**_prefill_args(model, weights, bits_kv, 1),
                                 matmul_params=model.matmul_params, n_layers=model.n_layers,
                                 n_heads=model.n_heads, d_head=model.d_head, bandwidth=bw,
                                 peak_flops=peak)
    ax.axvline(critical, color=line.get_color(), ls="-.", lw=1,
               label=f"critical prompt T* = {critical:,.0f} tokens")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("prompt length [tokens]")
    ax.set_ylabel("time [ms]")
    ax.legend(fontsize=_SMALL, loc="upper left")
    return ax


def prefill_attention_share(models: Sequence[Model], prompts: Iterable[int] | None = None,
                            ax: plt.Axes | None = None) -> plt.Axes:
    """Share of a prefill's FLOPs spent in attention (the quadratic term of
    :data:`~llm_arithmetic.formulas.flops.prefill_flops`) against the prompt length, one line
    per model: one minus the weight term (the same formula with no attention layer) over the
    whole.

    >>> from llm_arithmetic import get_model
    >>> ax = prefill_attention_share([get_model("llama-3-8b")], prompts=[1, 1000])
    >>> [round(float(y), 2) for y in ax.lines[0].get_ydata()]
    [0.0, 1.72]
    """
    ax = _ax(ax)
    t = np.unique(np.geomspace(1, 131072, 200).astype(int)) if prompts is None \
        else np.asarray(list(prompts), dtype=int)
    for m in models:
        total = np.array([float(m.prefill_flops(int(x))) for x in t])
        weights_only = N.prefill_flops(matmul_params=m.matmul_params, n_layers=0, n_heads=0,
                                       d_head=0, prompt=t.astype(float))
        ax.plot(t, 100 * (1 - weights_only / total), label=m.label or m.name)
    ax.set_xscale("log")
    ax.set_xlabel("prompt length [tokens]")
    ax.set_ylabel("attention's share of prefill FLOPs [%]")
    ax.legend(fontsize=_SMALL, loc="upper left")
    return ax


def chunked_prefill_vs_chunk(model: Model, chip: Hardware, prompt: int, weights: str = "fp16",
                             chunks: Iterable[int] | None = None, bits_kv: Any = 16,
                             ax: plt.Axes | None = None) -> plt.Axes:
    """Bound on a chunked prefill of ``prompt`` tokens against the chunk size
    (:data:`~llm_arithmetic.formulas.serving.chunked_prefill_time`, solid), with its memory
    time (dotted: the chunks' weight and cache reads) and its compute time (dashed).

    >>> from llm_arithmetic import get_model, get_hardware
    >>> ax = chunked_prefill_vs_chunk(get_model("llama-3-8b"), get_hardware("h100-sxm"), 8192,
    ...                               chunks=[64, 2048])
    >>> len(ax.lines)
    3
    """
    ax = _ax(ax)
    c = np.unique(np.geomspace(16, prompt, 120).astype(int)) if chunks is None \
        else np.asarray(list(chunks), dtype=int)
    bw, peak = chip.bandwidth, _peak_for(chip, weights)
    args = dict(_prefill_args(model, weights, bits_kv, prompt),
                prefill_flops=float(model.prefill_flops(prompt)), prompt=prompt)
    total = [N.chunked_prefill_time(prefill_chunk=int(x), bandwidth=bw, peak_flops=peak, **args)
             for x in c]
    memory = [N.chunked_prefill_time(prefill_chunk=int(x), bandwidth=bw, peak_flops=math.inf,
                                     **args) for x in c]
    compute = [N.chunked_prefill_time(prefill_chunk=int(x), bandwidth=math.inf, peak_flops=peak,
                                      **args) for x in c]
    ax.plot(c, np.array(total) * 1e3, label="chunked prefill (bound)")
    ax.plot(c, np.array(memory) * 1e3, ls=":", color="0.35", lw=1.2,
            label="memory time: weights read once per chunk")
    ax.plot(c, np.array(compute) * 1e3, ls="--", color="0.35", lw=1.2,
            label="compute time: the prompt's FLOPs")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("chunk size [tokens]")
    ax.set_ylabel("prefill time [ms]")
    ax.legend(fontsize=_SMALL, loc="upper right")
    return ax


def tp_step_vs_degree(model: Model, chip: Hardware, weights: str = "fp16",
                      batches: Sequence[int] = (1, 64), context: int = 4096,
                      degrees: Sequence[int] | None = None, link_latency: float = 0.0,
                      ax: plt.Axes | None = None) -> plt.Axes:
    """Time per output token of a decode step split over N_tp chips, against N_tp, one colour
    per batch (``estimate(..., tp=N)``): with the all-reduces at ``link_latency`` per hop
    (solid), and without any communication (dotted). Beyond the chip's scale-up domain the
    all-reduces cross the node network (the catalog's interconnect).

    >>> from llm_arithmetic import get_model, get_hardware
    >>> ax = tp_step_vs_degree(get_model("llama-3-70b"), get_hardware("h100-sxm"), "fp8",
    ...                        batches=[1], degrees=[1, 8])
    >>> len(ax.lines)
    2
    """
    ax = _ax(ax)
    heads = model.n_heads
    n = [d for d in (1, 2, 4, 8, 16, 32, 64) if d <= heads and heads % d == 0] \
        if degrees is None else list(degrees)
    for b in batches:
        t = [estimate(model, hardware=chip, weights=weights, context=context, batch=b, tp=d,
                      link_latency=link_latency).tpot_seconds for d in n]
        alone = [estimate(model, hardware=chip, weights=weights, context=context, batch=b,
                          tp=d, link_latency=0.0).tpot_seconds
                 - (estimate(model, hardware=chip, weights=weights, context=context, batch=b,
                             tp=d, link_latency=0.0).allreduce_seconds_per_token or 0.0)
                 for d in n]
        (line,) = ax.plot(n, np.array(t) * 1e3, "o-", ms=4, label=f"batch {b}")
        ax.plot(n, np.array(alone) * 1e3, ":", color=line.get_color(), lw=1.2,
                label="_nolegend_")
    domain = chip.interconnect.scale_up_domain
    if domain > 1 and max(n) > domain:
        ax.axvline(domain, color="0.5", lw=1, ls="--")
        ax.text(domain, 0.97, " node boundary", transform=ax.get_xaxis_transform(),
                va="top", fontsize=_SMALL, color="0.3")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(n)
    ax.set_xticklabels([str(d) for d in n])
    ax.set_xlabel("tensor-parallel degree N_tp [chips]")
    ax.set_ylabel("time per output token [ms]")
    ax.legend(fontsize=_SMALL, loc="lower left", title="dotted: no communication",
              title_fontsize=_SMALL)
    return ax


def pipeline_bubble_vs_microbatches(stages: Sequence[int] = (2, 4, 8),
                                    microbatches: Iterable[int] | None = None,
                                    ax: plt.Axes | None = None) -> plt.Axes:
    """The share of a pipeline's time its stages sit idle
    (:data:`~llm_arithmetic.formulas.parallel.pipeline_bubble`) against the microbatches in
    flight, one line per number of stages.

    >>> ax = pipeline_bubble_vs_microbatches(stages=[4], microbatches=[1, 12])
    >>> [round(float(y), 1) for y in ax.lines[0].get_ydata()]
    [75.0, 20.0]
    """
    ax = _ax(ax)
    m = np.arange(1, 65) if microbatches is None else np.asarray(list(microbatches))
    for p in stages:
        ax.plot(m, 100 * N.pipeline_bubble(pp=p, microbatches=m.astype(float)),
                label=f"{p} stages")
    ax.set_xlabel("microbatches in flight [-]")
    ax.set_ylabel("idle share of the pipeline [%]")
    ax.legend(fontsize=_SMALL)
    return ax


def serving_frontier(model: Model | str, chips: Sequence[Hardware], label_batches: Sequence[int]
                     = (1, 16, 64, 256), ax: plt.Axes | None = None, **kwargs: Any) -> plt.Axes:
    """The latency-throughput frontier of ``model`` on each chip: tokens per second per chip
    against tokens per second per user, one point per batch size
    (:func:`~llm_arithmetic.estimate.frontier` with ``kwargs``: weights, tp, prompt,
    generate, ...). A filled point fits in the chips' memory, a hollow one does not.

    >>> from llm_arithmetic import get_hardware
    >>> ax = serving_frontier("llama-3-8b", [get_hardware("h100-sxm")], weights="fp8",
    ...                       prompt=1024, generate=128, batches=[1, 8])
    >>> len(ax.lines)
    1
    """
    from ..estimate import frontier

    ax = _ax(ax)
    for chip in chips:
        pts = frontier(model, hardware=chip, **kwargs)
        x = np.array([p["tokens_per_second_per_user"] for p in pts])
        y = np.array([p["tokens_per_second_per_chip"] for p in pts])
        fits = np.array([p["fits"] is not False for p in pts])
        (line,) = ax.plot(x[fits], y[fits], "o-", ms=5, label=_short(chip))
        if (~fits).any():
            ax.plot(x[~fits], y[~fits], "o", ms=5, mfc="white", color=line.get_color(),
                    label="_nolegend_")
            last = np.flatnonzero(fits)[-1] if fits.any() else None
            if last is not None:
                ax.plot([x[last], x[~fits][0]], [y[last], y[~fits][0]], ":",
                        color=line.get_color(), lw=1, label="_nolegend_")
        for p, xi, yi in zip(pts, x, y):
            if p["batch"] in label_batches:
                ax.annotate(f"B={p['batch']}", (xi, yi), textcoords="offset points",
                            xytext=(4, 5), fontsize=_SMALL, color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens per second per user [token/s]")
    ax.set_ylabel("tokens per second per chip [token/s]")
    ax.legend(fontsize=_SMALL, loc="lower left")
    return ax


def speculative_speedup_vs_draft(acceptances: Sequence[float] = (0.6, 0.8, 0.9),
                                 draft_cost: float = 0.05, max_draft: int = 12,
                                 ax: plt.Axes | None = None) -> plt.Axes:
    """Speed-up bound of speculative decoding
    (:data:`~llm_arithmetic.formulas.serving.speculative_speedup`) against the draft length
    k, one line per acceptance rate, with the best k marked.

    >>> ax = speculative_speedup_vs_draft(acceptances=[0.8], draft_cost=0.05, max_draft=4)
    >>> round(float(ax.lines[0].get_ydata()[-1]), 2)
    2.8
    """
    ax = _ax(ax)
    k = np.arange(0, max_draft + 1)
    for a in acceptances:
        s = N.speculative_speedup(acceptance=a, draft_len=k.astype(float), draft_cost=draft_cost)
        (line,) = ax.plot(k, s, "o-", ms=3, label=f"acceptance {a:g}")
        best = int(np.argmax(s))
        ax.plot([k[best]], [s[best]], "s", ms=8, mfc="none", color=line.get_color(),
                label="_nolegend_")
    ax.axhline(1, color="0.5", lw=1)
    ax.set_xlabel("draft length k [tokens]")
    ax.set_ylabel("speed-up over plain decoding [-]")
    ax.legend(fontsize=_SMALL, loc="upper left", title="squares: best k",
              title_fontsize=_SMALL)
    return ax


def verify_step_ratio(model: Model, chip: Hardware, weights: str, context: int, batch: Any,
                      draft_len: int, bits_kv: Any = 16) -> Any:
    """Time of a target step that verifies k + 1 tokens of each of B sequences over a plain
    step of one token each: both the roofline of the same bytes (weights read once, each
    sequence's cache once), the first with k + 1 times the FLOPs
    (:data:`~llm_arithmetic.formulas.roofline.roofline_time`). 1 while the verification stays
    memory-bound; up to k + 1 once it is compute-bound.

    >>> from llm_arithmetic import get_model, get_hardware
    >>> r = verify_step_ratio(get_model("llama-3-8b"), get_hardware("h100-sxm"), "fp16", 128,
    ...                       [1, 1024], 4)
    >>> [round(float(x), 2) for x in r]
    [1.0, 5.0]
    """
    bits = bits_per_weight(weights)
    kv = bits_per_weight(bits_kv)
    b = np.asarray(batch, dtype=float)
    e = estimate(model, hardware=chip, weights=weights, context=context)
    step_bytes = N.batched_step_bytes(weight_bytes=np.asarray(model.step_weight_bytes(bits, b),
                                                              dtype=float),
                                      seq_bytes=float(model.seq_bytes(context, kv, kv)),
                                      batch=b)
    flops = float(model.decode_flops_per_token(context))
    plain = N.roofline_time(step_bytes=step_bytes,
                            step_flops=N.batched_step_flops(seq_flops=flops, batch=b),
                            bandwidth=e.bandwidth, peak_flops=e.peak_flops)
    verify = N.roofline_time(step_bytes=step_bytes, step_flops=N.batched_step_flops(
        seq_flops=flops, batch=b * (draft_len + 1)), bandwidth=e.bandwidth,
        peak_flops=e.peak_flops)
    return verify / plain


def speculative_speedup_vs_batch(model: Model, chip: Hardware, weights: str = "fp16",
                                 context: int = 2048, acceptance: float = 0.8,
                                 draft_lens: Sequence[int] = (2, 4, 8), draft_cost: float = 0.05,
                                 batches: Iterable[int] | None = None,
                                 ax: plt.Axes | None = None) -> plt.Axes:
    """Speed-up of speculative decoding at batch B when the verification is charged its own
    roofline (k + 1 tokens of each sequence in one target step) instead of one plain step:
    tokens per step (:data:`~llm_arithmetic.formulas.serving.speculative_tokens_per_step`) over
    the draft's k steps plus that verification, in plain steps. The batch-1 bound
    (:data:`~llm_arithmetic.formulas.serving.speculative_speedup`) dotted.

    >>> from llm_arithmetic import get_model, get_hardware
    >>> ax = speculative_speedup_vs_batch(get_model("llama-3-8b"), get_hardware("h100-sxm"),
    ...                                   context=128, draft_lens=[4], batches=[1, 1024])
    >>> [round(float(y), 2) for y in ax.lines[0].get_ydata()]
    [2.8, 0.65]
    """
    ax = _ax(ax)
    b = np.unique(np.geomspace(1, 1024, 80).astype(int)) if batches is None \
        else np.asarray(list(batches), dtype=int)
    for k in draft_lens:
        n_acc = N.speculative_tokens_per_step(acceptance=acceptance, draft_len=k)
        draft = N.speculative_step_cost(draft_len=k, draft_cost=draft_cost) - 1
        ratio = verify_step_ratio(model, chip, weights, context, b, k)
        (line,) = ax.plot(b, n_acc / (draft + ratio), label=f"k = {k}")
        ax.axhline(N.speculative_speedup(acceptance=acceptance, draft_len=k,
                                         draft_cost=draft_cost), color=line.get_color(),
                   ls=":", lw=1)
    ax.axhline(1, color="0.5", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("batch size B [sequences]")
    ax.set_ylabel("speed-up over plain decoding [-]")
    ax.legend(fontsize=_SMALL, loc="lower left", title="dotted: batch-1 bound",
              title_fontsize=_SMALL)
    return ax


def cost_vs_speed(model: Model | str, chips: Sequence[Hardware], prices: Sequence[float],
                  ax: plt.Axes | None = None, **kwargs: Any) -> plt.Axes:
    """Cost of a million output tokens against tokens per second per user, one line per chip
    at its price per chip-hour (``prices``, inputs the reader chooses), one point per batch
    size that fits (:func:`~llm_arithmetic.estimate.frontier` with ``price_per_hour``).

    >>> from llm_arithmetic import get_hardware
    >>> ax = cost_vs_speed("llama-3-8b", [get_hardware("h100-sxm")], [2.0], weights="fp8",
    ...                    prompt=1024, generate=128, batches=[1, 8])
    >>> len(ax.lines)
    1
    """
    from ..estimate import frontier

    ax = _ax(ax)
    for chip, price in zip(chips, prices):
        pts = [p for p in frontier(model, hardware=chip, price_per_hour=price, **kwargs)
               if p["fits"] is not False]
        ax.plot([p["tokens_per_second_per_user"] for p in pts],
                [p["cost_per_million_tokens"] for p in pts], "o-", ms=4,
                label=f"{_short(chip)} at ${price:g}/h")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens per second per user [token/s]")
    ax.set_ylabel("cost per million output tokens [USD]")
    ax.legend(fontsize=_SMALL, loc="upper left")
    return ax


def energy_vs_speed(model: Model | str, chips: Sequence[Hardware], ax: plt.Axes | None = None,
                    **kwargs: Any) -> plt.Axes:
    """Board energy per output token against tokens per second per user, one line per chip at
    its catalog board power, one point per batch size that fits
    (:func:`~llm_arithmetic.estimate.frontier`).

    >>> from llm_arithmetic import get_hardware
    >>> ax = energy_vs_speed("llama-3-8b", [get_hardware("h100-sxm")], weights="fp8",
    ...                      prompt=1024, generate=128, batches=[1, 8])
    >>> len(ax.lines)
    1
    """
    from ..estimate import frontier

    ax = _ax(ax)
    for chip in chips:
        pts = [p for p in frontier(model, hardware=chip, **kwargs) if p["fits"] is not False]
        ax.plot([p["tokens_per_second_per_user"] for p in pts],
                [p["energy_joules_per_token"] for p in pts], "o-", ms=4,
                label=f"{_short(chip)}, {chip.power:g} W")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens per second per user [token/s]")
    ax.set_ylabel("board energy per output token [J]")
    ax.legend(fontsize=_SMALL, loc="upper left")
    return ax


#: How measured_vs_bound draws each metric of the serving dataset.
_METRIC_STYLE = {
    "output_tokens_per_s_total": ("o", "system output"),
    "tpot_ms_mean": ("s", "1 / mean TPOT"),
    "tokens_per_s_per_user": ("^", "per user"),
    "output_tokens_per_s_per_node": ("D", "decode, per node"),
    "input_tokens_per_s_per_node": ("v", "prefill, per node"),
}


def measured_vs_bound(comparisons: Sequence[Any], ax: plt.Axes | None = None) -> plt.Axes:
    """Published serving measurements against their roofline bounds
    (:func:`llm_arithmetic.lab.serving.comparisons`), as rates: a time per output token is
    drawn as its inverse, so every point lies on or below the diagonal (measured = bound);
    grey lines mark 10 % and 1 % of the bound. One marker per metric, one colour per side of
    the roofline that binds.

    >>> from llm_arithmetic.lab.serving import comparisons
    >>> ax = measured_vs_bound(comparisons()[:4])
    >>> len(ax.collections) >= 1
    True
    """
    ax = _ax(ax)
    rows = [c for c in comparisons if c.bound is not None]
    colours = {"memory": "tab:blue", "compute": "tab:orange"}
    lo, hi = math.inf, 0.0
    for metric, (marker, label) in _METRIC_STYLE.items():
        for limit, colour in colours.items():
            sel = [c for c in rows if c.row.metric == metric and c.limit == limit]
            if not sel:
                continue
            if metric == "tpot_ms_mean":
                bound = np.array([1e3 / c.bound for c in sel])
                measured = np.array([1e3 / c.measured for c in sel])
            else:
                bound = np.array([c.bound for c in sel])
                measured = np.array([c.measured for c in sel])
            lo, hi = min(lo, measured.min(), bound.min()), max(hi, bound.max())
            ax.scatter(bound, measured, marker=marker, s=22, color=colour, alpha=0.75,
                       label=f"{label} ({limit})")
    if not rows:
        return ax
    line = np.array([lo / 2, hi * 2])
    ax.plot(line, line, color="k", lw=1)
    for share in (0.1, 0.01):
        ax.plot(line, share * line, color="0.6", lw=0.8, ls="--")
        ax.text(line[1], share * line[1], f" {share:.0%}", fontsize=_SMALL, color="0.4",
                va="center")
    # just past the diagonal's end (the label does not touch its line)
    ax.text(line[1] * 1.05, line[1], " bound", fontsize=_SMALL, va="center")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(lo / 3, hi * 3)
    ax.set_xlabel("roofline bound [token/s]")
    ax.set_ylabel("published measurement [token/s]")
    ax.legend(fontsize=_SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    return ax
