"""Figures of the chapter "From bound to forecast": the bound and the forecast
(:mod:`llm_arithmetic.forecast`) drawn over published measurements.

Each function computes through :func:`~llm_arithmetic.estimate.estimate` and
:func:`~llm_arithmetic.forecast.forecast`; nothing is fitted or composed here.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...forecast import forecast
from ..matplotlib_on_demand import pyplot as plt
from .style import _ax, label_points, plain_log_ticks

__all__ = ["curve_batches", "forecast_over_curve"]

#: Smallest font of these figures [pt].
_SMALL = 9


def curve_batches(curve: Any, runtime: str | None = None, per_octave: int = 2,
                  params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The bound and the forecast of a published curve's deployment
    (:class:`~llm_arithmetic.lab.curves.Curve`) at batch sizes from 1 to the largest that fits
    in the replica's memory (``per_octave`` sizes per doubling): for each, the
    :func:`~llm_arithmetic.forecast.forecast` keys (bounds and ``expected_*`` with their
    ranges) and ``batch``.

    >>> from llm_arithmetic.lab.curves import load_curve
    >>> pts = curve_batches(load_curve("nim-llama-3.3-70b-2xh100-fp8"))
    >>> pts[0]["batch"], pts[-1]["fits_per_chip"]
    (1, True)
    """
    args = curve.estimate_args()
    first = forecast(curve.model_key, runtime=runtime, batch=1, **args)
    top = int(first["max_batch_per_replica"])
    grid = np.unique(np.round(2 ** np.arange(0, np.log2(top) + 1e-9, 1 / per_octave)))
    sizes = [int(b) for b in grid if b <= top]
    if sizes[-1] != top:
        sizes.append(top)
    out = []
    for b in sizes:
        d = first if b == 1 else forecast(curve.model_key, runtime=runtime, batch=b, **args)
        out.append({**d, "batch": b})
    return out


def forecast_over_curve(curve: Any, runtime: str | None = None,
                        ax: plt.Axes | None = None) -> plt.Axes:
    """A published throughput-versus-interactivity curve (tokens/s per chip against tokens/s
    per user, one point per concurrency, labelled) with the bound's frontier (a line) and the
    forecast (a line and its 80% band) of the same deployment over batch sizes up to the largest
    that fits (:func:`curve_batches`). ``runtime`` None: the runtime-agnostic forecast.

    >>> from llm_arithmetic.lab.curves import load_curve
    >>> ax = forecast_over_curve(load_curve("nim-llama-3.3-70b-2xh100-fp8"))
    >>> len(ax.lines) >= 3
    True
    """
    ax = _ax(ax)
    pts = curve_batches(curve, runtime)
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
    ax.legend(fontsize=_SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
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
