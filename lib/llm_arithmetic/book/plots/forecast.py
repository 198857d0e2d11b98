"""Figures of the chapter "From bound to forecast": the bound and the forecast
(:mod:`llm_arithmetic.forecast`) drawn over published measurements.

The functions draw what they are given: the bound and forecast points come from
:func:`llm_arithmetic.lab.curves.forecast_points`, with the caveat of their band (this module
does not import the forecast, which reads the measurements, whose module draws with this
package: no import circle).
"""
from __future__ import annotations

import textwrap
from typing import Any, Sequence

import numpy as np

from ..matplotlib_on_demand import pyplot as plt
from .style import axes_or_new, label_points, plain_log_ticks

__all__ = ["forecast_over_curve"]

#: Smallest font of these figures [pt].
_SMALL = 9


def forecast_over_curve(curve: Any, pts: Sequence[dict[str, Any]],
                        ax: plt.Axes | None = None) -> plt.Axes:
    """A published throughput-versus-interactivity curve (tokens/s per chip against tokens/s
    per user, one point per concurrency, labelled) with the bound's frontier (a line) and the
    forecast (a line and its 80% band) of the same deployment at the batch sizes of ``pts``
    (:func:`~llm_arithmetic.lab.curves.forecast_points`). Where the band's terms are borrowed
    (the points' ``decode_caveat``: a runtime without decode rows on the chip's class, a chip of
    a kind no row measured), the legend's title says so, in the words ``describe`` prints.

    >>> from llm_arithmetic.lab.curves import forecast_points, load_curve
    >>> c = load_curve("nim-llama-3.3-70b-2xh100-fp8")
    >>> ax = forecast_over_curve(c, forecast_points(c))
    >>> len(ax.lines) >= 3, ax.get_legend().get_title().get_text()
    (True, '')
    """
    ax = axes_or_new(ax)
    x_b = np.array([p["tokens_per_second_per_user"] for p in pts])
    y_b = np.array([p["tokens_per_second_per_chip"] for p in pts])
    x_f = np.array([1.0 / p["expected_tpot_seconds"] for p in pts])
    y_f = np.array([p["expected_tokens_per_second_per_chip"] for p in pts])
    # the band: the fast end of the range (short TPOT, high per-chip rate) to the slow end
    x_hi = np.array([1.0 / p["expected_tpot_seconds_range"][0] for p in pts])
    y_hi = np.array([p["expected_tokens_per_second_per_chip_range"][1] for p in pts])
    x_lo = np.array([1.0 / p["expected_tpot_seconds_range"][1] for p in pts])
    y_lo = np.array([p["expected_tokens_per_second_per_chip_range"][0] for p in pts])
    ax.fill(np.concatenate([x_hi, x_lo[::-1]]), np.concatenate([y_hi, y_lo[::-1]]),
            color="tab:orange", alpha=0.2, lw=0, label="forecast, 80% interval")
    ax.plot(x_b, y_b, "-", color="tab:blue", label="bound (decode steps only)")
    ax.plot(x_f, y_f, "--", color="tab:orange", label="forecast")
    xs = [p.tokens_per_second_per_user for p in curve.points]
    ys = [p.tokens_per_second_per_chip for p in curve.points]
    ax.plot(xs, ys, "o", ms=5, color="k", label=f"published ({curve.runtime})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_ticks(ax.xaxis)
    plain_log_ticks(ax.yaxis)
    lo_x = min(min(xs), x_lo.min()) / 1.3
    ax.set_xlim(lo_x, max(x_b.max(), x_hi.max()) * 1.3)
    ax.set_ylim(min(min(ys), y_lo.min(), y_b.min()) / 2, max(y_b.max(), max(ys)) * 2)
    ax.set_xlabel("tokens per second per user [token/s]")
    ax.set_ylabel("tokens per second per chip [token/s]")
    caveat = pts[0].get("decode_caveat") if len(pts) else None
    ax.legend(fontsize=_SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
              title=None if caveat is None else textwrap.fill(f"Band: {caveat}.", 72),
              title_fontsize=_SMALL)
    _label_concurrency(ax, curve.points)
    return ax


def _label_concurrency(ax: plt.Axes, points: Sequence[Any]) -> None:
    """Label the published points with their concurrency; points closer than a few percent
    on both axes (a plateau) share one label."""
    groups: list[list[Any]] = []
    for p in points:
        g = groups[-1] if groups else None
        if g and all(abs(np.log(p.tokens_per_second_per_user / q.tokens_per_second_per_user))
                     < 0.05 and abs(np.log(p.tokens_per_second_per_chip
                                           / q.tokens_per_second_per_chip)) < 0.05 for q in g):
            g.append(p)
        else:
            groups.append([p])
    labels = [f"c={g[0].concurrency}" if len(g) == 1 else
              f"c={g[0].concurrency}-{g[-1].concurrency}" for g in groups]
    label_points(ax, [g[0].tokens_per_second_per_user for g in groups],
                 [g[0].tokens_per_second_per_chip for g in groups], labels, fontsize=_SMALL)
