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

from typing import Any, Iterable, Sequence

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np

from .. import numeric as N
from ..catalog.formats import bits_per_weight
from ..catalog.hardware import Hardware
from ..catalog.model import Model
from ..core.units import GB, GB_S, GiB, TFLOP_S
from ..estimate import estimate
from .display import chip_name

__all__ = ["STYLE", "MIN_FONT_PT", "use_style", "check_figure", "plain_log_ticks", "label_points",
           "chips_scatter", "roofline", "time_per_token_vs_batch", "kv_cache_vs_context",
           "decode_bytes_breakdown", "params_breakdown", "sequence_memory_vs_context",
           "mla_attention_flops_vs_context", "expert_weights_read_vs_batch"]

#: Smallest text in a figure [pt]. Figures are drawn at 96 dpi and shown at their own size
#: (a 7-inch figure is 672 CSS px wide, within the book's column at 1280 px), so a point in the
#: figure is a point on the page.
MIN_FONT_PT = 9.0

#: rcParams of every figure of the book.
STYLE: dict[str, Any] = {
    "figure.figsize": (7.0, 4.2), "figure.dpi": 96, "savefig.dpi": 192,
    "axes.grid": True, "grid.alpha": 0.3, "axes.spines.top": False, "axes.spines.right": False,
    "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 9, "legend.frameon": False,
    "xtick.labelsize": 9, "ytick.labelsize": 9, "font.size": 10, "lines.linewidth": 1.8,
    # no date or version in what the figures carry
    "svg.hashsalt": "llm-arithmetic", "svg.fonttype": "path",
}


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
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
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
CHIP_KINDS = {"datacenter-gpu": "data-centre GPU", "consumer-gpu": "consumer GPU",
              "apple-silicon": "Apple silicon", "cpu": "CPU", "sbc": "single-board computer"}


def _short_chip_name(h: Hardware) -> str:
    name = chip_name(h)
    for vendor in ("NVIDIA GeForce ", "NVIDIA ", "AMD Instinct ", "AMD ", "Apple "):
        name = name.removeprefix(vendor)
    return name


def chips_scatter(chips: Sequence[Hardware], ax: plt.Axes | None = None,
                  ratios: Sequence[float] = (10, 100, 1000)) -> plt.Axes:
    """Each chip's memory bandwidth against its dense peak (fp16; fp32 where it has no fp16
    figure), coloured by kind, labelled by name without the vendor (variants of one chip at
    one point share a label), with dotted lines of equal ops:byte ratio.

    >>> from llm_arithmetic import HARDWARE
    >>> ax = chips_scatter(list(HARDWARE.values())[:6])
    >>> sorted(t.get_text() for t in ax.texts)[:3]
    ['1,000 FLOP/B', '10 FLOP/B', '100 FLOP/B']
    >>> plt.close(ax.figure)
    """
    ax = _ax(ax)
    points: dict[str, list[tuple[float, float, str]]] = {}
    for h in chips:
        prec = "fp16" if "fp16" in h.peaks else "fp32"
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
    ax.set_ylabel("dense peak [TFLOP/s] (fp16, or fp32)")
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
    ax.set_ylabel("share of the weights one step reads")
    ax.legend()
    return ax
