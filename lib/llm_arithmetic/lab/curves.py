r"""Published throughput-versus-interactivity curves: a serving stack swept over concurrency.

``data/published_curves.csv`` (package data; sources and assumptions in
``data/curves_README.md``) holds, for each published sweep, one row per concurrency: the mean
time to first token, the mean inter-token latency and the output throughput of the deployment,
with the model, chips, formats and lengths a bound needs. :func:`load_curve` reads one curve;
each point gives the speed one user sees (1 / ITL) and the throughput per chip, the two axes of
the latency-throughput frontier (:func:`~llm_arithmetic.sweeps.frontier`);
:func:`forecast_points` gives the bound and the forecast of the same deployment over batch sizes,
for :func:`llm_arithmetic.book.plots.forecast_over_curve` to draw over the curve.

>>> c = load_curve("nim-llama-3.3-70b-2xh100-fp8")
>>> c.model_key, c.hardware_key, c.tp, [p.concurrency for p in c.points][:3]
('llama-3.3-70b', 'h100-sxm', 2, [1, 5, 25])
>>> round(c.points[0].tokens_per_second_per_user, 1)
53.8
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import numeric as N
from ..core.errors import InputError

__all__ = ["DATA_PATH", "CurvePoint", "Curve", "curve_names", "load_curve", "forecast_points"]

#: Where the curves live (package data).
DATA_PATH: Path = Path(__file__).resolve().parent / "data" / "published_curves.csv"


@dataclass(frozen=True)
class CurvePoint:
    """One published point: ``concurrency`` requests in flight, mean TTFT [s], mean
    inter-token latency [s] and the deployment's output throughput [token/s] on ``chips``."""

    concurrency: int
    ttft_seconds: float
    itl_seconds: float
    throughput_tokens_per_second: float
    chips: int

    @property
    def tokens_per_second_per_user(self) -> float:
        """The speed one user sees once the first token is out: 1 / ITL [token/s]
        (:data:`~llm_arithmetic.formulas.serving.tokens_per_user` of the measured ITL)."""
        return N.tokens_per_user(tpot=self.itl_seconds)

    @property
    def tokens_per_second_per_chip(self) -> float:
        """Output throughput over the chips [token/s]."""
        return self.throughput_tokens_per_second / self.chips


@dataclass(frozen=True)
class Curve:
    """A published curve: what was run (catalog keys, formats, lengths) and its points."""

    name: str
    runtime: str
    runtime_version: str
    device: str
    hardware_key: str
    chips: int
    tp: int
    model: str
    model_key: str
    weight_format: str
    kv_format: str
    prompt_tokens: int
    generated_tokens: int
    measurement_url: str
    points: tuple[CurvePoint, ...]

    def estimate_args(self) -> dict[str, Any]:
        """The keyword arguments of :func:`~llm_arithmetic.estimate.estimate` (``batch``
        excepted) for this deployment."""
        return dict(hardware=self.hardware_key, weights=self.weight_format,
                    bits_kv=8 if self.kv_format == "fp8" else 16, tp=self.tp,
                    prompt=self.prompt_tokens, generate=self.generated_tokens)


def _rows(path: Path | None = None) -> list[dict[str, str]]:
    with open(path or DATA_PATH, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def curve_names(path: Path | None = None) -> list[str]:
    """The curves in the file, in file order."""
    return list(dict.fromkeys(r["curve"] for r in _rows(path)))


def load_curve(name: str, path: Path | None = None) -> Curve:
    """One curve by its key (see :func:`curve_names`), points in order of concurrency."""
    rows = [r for r in _rows(path) if r["curve"] == name]
    if not rows:
        raise InputError(f"curve: unknown curve {name!r}; known: {', '.join(curve_names(path))}")
    r0 = rows[0]
    chips = int(r0["chips"])
    pts = sorted((CurvePoint(int(r["concurrency"]), float(r["ttft_ms"]) / 1000,
                             float(r["itl_ms"]) / 1000, float(r["throughput_tokens_per_second"]),
                             chips) for r in rows), key=lambda p: p.concurrency)
    return Curve(name, r0["runtime"], r0["runtime_version"], r0["device"], r0["hardware_key"],
                 chips, int(r0["tp"]), r0["model"], r0["model_key"], r0["weight_format"],
                 r0["kv_format"], int(r0["prompt_tokens"]), int(r0["generated_tokens"]),
                 r0["measurement_url"], tuple(pts))


def forecast_points(curve: Curve, runtime: str | None = None,
                    per_octave: int = 2) -> list[dict[str, Any]]:
    """The bound and the forecast of a published curve's deployment
    (:class:`~llm_arithmetic.lab.curves.Curve`) at batch sizes from 1 to the largest that fits
    in the replica's memory (``per_octave`` sizes per doubling): for each, the
    :func:`~llm_arithmetic.forecast.forecast` keys (bounds and ``expected_*`` with their
    ranges), ``batch``, and ``decode_caveat``: what the decode forecast borrows, or None (the
    decode fit's :func:`~llm_arithmetic.forecast.forecast_caveat`, without the prefill fit's
    part that ``forecast_caveat`` adds for the time to first token: the caveat of a band of
    time per output token and of the rate per chip it gives). ``runtime`` None: the
    runtime-agnostic forecast.

    >>> c = load_curve("nim-llama-3.3-70b-2xh100-fp8")
    >>> pts = forecast_points(c)
    >>> pts[0]["batch"], pts[-1]["fits_per_chip"], pts[0]["decode_caveat"]
    (1, True, None)
    >>> forecast_points(c, runtime="mlx-lm")[0]["decode_caveat"]
    'mlx-lm has no measured decode rows on datacenter GPU chips: the forecast borrows the pooled k_rt, lambda_rt'
    """
    # here: the forecast reads this package's measurements
    from ..forecast import chip_caveat, forecast
    from ..forecast_fit import load_params

    args = curve.estimate_args()
    first = forecast(curve.model_key, runtime=runtime, batch=1, **args)
    caveat = chip_caveat(load_params(), args["hardware"] or None, first["runtime"])[0]
    top = int(first["max_batch_per_replica"])
    grid = np.unique(np.round(2 ** np.arange(0, np.log2(top) + 1e-9, 1 / per_octave)))
    sizes = [int(b) for b in grid if b <= top]
    if sizes[-1] != top:
        sizes.append(top)
    out = []
    for b in sizes:
        d = first if b == 1 else forecast(curve.model_key, runtime=runtime, batch=b, **args)
        out.append({**d, "batch": b, "decode_caveat": caveat})
    return out
