r"""Predicted vs measured: the speed-of-light decode bound against published measurements.

The dataset ``llm_arithmetic/lab/data/calibration_measurements.csv`` (package data) holds published single-stream (batch 1)
decode speeds, each with the device's memory bandwidth and the weights' bits per weight (see
``llm_arithmetic/lab/data/calibration_README.md``). For each row this module computes the package's bound,

.. math::

    \mathcal{B} = W + \kappa\,S_{eff}, \qquad W = \frac{P_{read}\,b_w}{8}, \qquad
    \text{tokens/s} \le \frac{\beta_{mem}}{\mathcal{B}}

(the bytes of one decode step: the weights the step reads, :math:`P_{read}` = the model's
``decode_read_params``, which counts only the active experts of a mixture-of-experts model and
one row of an untied embedding table, plus the fp16 KV cache at the row's context; 0 tokens of
cache when the source does not state it), and the efficiency ``measured / bound``.

The formulas are the package's (:data:`~llm_arithmetic.formulas.memory.weight_bytes`,
:data:`~llm_arithmetic.formulas.roofline.decode_step_bytes`,
:data:`~llm_arithmetic.formulas.roofline.memory_bound_rate` and
:data:`~llm_arithmetic.formulas.roofline.efficiency`); nothing is retyped here.

>>> rows = load_measurements()
>>> len(rows) >= 50
True
>>> r = calibrate(rows)[0]
>>> r.id, round(r.bound_tps, 1), round(r.efficiency, 3)
('xd-llama1-4080-7b-q4_0', 192.9, 0.612)
"""
from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..catalog.hardware import CLASS_OF_KIND, class_label
from ..catalog.model_catalog import get_model
from ..core.units import GB_S, to_fraction
from ..numeric import decode_step_bytes, efficiency, memory_bound_rate, weight_bytes
from . import CALIBRATION_CSV

__all__ = ["DATA_PATH", "DEVICE_CLASSES", "CLASS_OF_KIND", "chip_class", "Measurement",
           "Calibrated", "load_measurements", "decode_bytes", "flops_per_byte",
           "bound_tokens_per_second",
           "calibrate", "group_by", "median_efficiency", "size_bucket", "precision_bucket",
           "class_spread", "table_rows",
           "plot_efficiency_by", "plot_measured_vs_bound"]

#: Where the dataset lives: package data, so that it ships with every install (Binder, Colab).
DATA_PATH: Path = CALIBRATION_CSV

#: The device classes of the dataset, in the order the chapter shows them.
DEVICE_CLASSES: tuple[str, ...] = ("apple", "consumer-gpu", "datacenter-gpu", "cpu")


def chip_class(chip: Any) -> str:
    """The dataset's device class (:data:`DEVICE_CLASSES`) for a chip of the catalog, by its
    kind (:data:`CLASS_OF_KIND`).

    >>> from llm_arithmetic import get_hardware
    >>> chip_class(get_hardware("rtx-4090")), chip_class(get_hardware("m2"))
    ('consumer-gpu', 'apple')
    """
    return CLASS_OF_KIND[chip.kind]


@dataclass(frozen=True)
class Measurement:
    """One row of ``measurements.csv`` (column meanings in ``llm_arithmetic/lab/data/calibration_README.md``).

    Attributes
    ----------
    bandwidth_gbps : float
        Peak memory bandwidth [GB/s] (decimal, 1 GB/s = 1e9 B/s).
    bits_per_weight : float
        Effective bits per weight, scales included [bit].
    context : int or None
        Mean tokens in the KV cache during the measurement [token]; None when not stated.
    measured_tps : float
        Published decode speed of one stream [token/s].
    split : str
        ``"fit"`` or ``"validation"``: rows from a reserved validation source (see
        :data:`llm_arithmetic.lab.measurements.RESERVED_SOURCES`) are never used in a fit.
    """

    id: str
    device: str
    device_class: str
    hardware_key: str
    bandwidth_gbps: float
    bandwidth_source: str
    model: str
    model_key: str
    params_total: int
    params_active: int
    weight_format: str
    bits_per_weight: float
    context: int | None
    measured_tps: float
    software: str
    measurement_url: str
    note: str
    split: str = "fit"


@dataclass(frozen=True)
class Calibrated:
    """A measurement with its bound: bytes per token [B], bound [token/s], efficiency [-]."""

    row: Measurement
    params_read: int
    weight_bytes: float
    kv_bytes: float
    bytes_per_token: float
    bound_tps: float
    efficiency: float

    @property
    def id(self) -> str:
        return self.row.id


def _row(d: dict[str, str]) -> Measurement:
    ctx = d["context"].strip()
    return Measurement(
        id=d["id"], device=d["device"], device_class=d["device_class"],
        hardware_key=d["hardware_key"], bandwidth_gbps=float(d["bandwidth_gbps"]),
        bandwidth_source=d["bandwidth_source"], model=d["model"], model_key=d["model_key"],
        params_total=int(d["params_total"]), params_active=int(d["params_active"]),
        weight_format=d["weight_format"], bits_per_weight=float(d["bits_per_weight"]),
        context=int(ctx) if ctx else None, measured_tps=float(d["measured_tps"]),
        software=d["software"], measurement_url=d["measurement_url"], note=d["note"],
        split=d.get("split") or "fit")


def load_measurements(path: str | Path | None = None) -> list[Measurement]:
    """Rows of the calibration CSV (stdlib :mod:`csv`), in file order.

    >>> rows = load_measurements()
    >>> rows[0].device_class, rows[0].bits_per_weight, rows[0].context is None
    ('consumer-gpu', 4.5, True)
    """
    with open(path or DATA_PATH, newline="", encoding="utf-8") as fh:
        return [_row(d) for d in csv.DictReader(fh)]


def decode_bytes(row: Measurement) -> tuple[int, Any, Any, Any]:
    r"""Bytes one decode step of one stream reads for a row [B].

    .. math:: \mathcal{B} = \frac{P_{read}\,b_w}{8} + \kappa\,S_{eff}

    with :math:`P_{read}` the catalog model's ``decode_read_params``, :math:`b_w` the row's bits
    per weight, :math:`\kappa` the fp16 KV bytes per token and :math:`S_{eff}` the row's context
    (sliding windows applied; 0 when the source states none).

    Returns
    -------
    tuple
        (params read [-], weight bytes [B], KV bytes [B], total bytes [B])

    >>> p, w, kv, b = decode_bytes(load_measurements()[0])   # LLaMA 7B, Q4_0, no context
    >>> p, w, kv, b == w
    (6607347712, 3716633088, 0, True)
    """
    m = get_model(row.model_key)
    p_read = m.decode_read_params
    w = weight_bytes(n_params=p_read, bits_weight=to_fraction(row.bits_per_weight))
    kv_tok = m.kv_cache_bytes_per_token(16)
    s_eff = m.attended_context(row.context or 0)
    total = decode_step_bytes(weight_bytes=w, kv_cache_bytes_per_token=kv_tok, context=s_eff, batch=1)
    return p_read, w, total - w, total


def flops_per_byte(row: Measurement) -> float:
    r"""Arithmetic intensity of one decode step of one stream for a row [FLOP/B]: the catalog
    model's decode FLOPs per token at the row's context over the bytes of :func:`decode_bytes`.

    >>> round(flops_per_byte(load_measurements()[0]), 2)   # LLaMA 7B, Q4_0: near 2 x 8 / 4.5
    3.56
    """
    m = get_model(row.model_key)
    flops = m.decode_flops_per_token(m.attended_context(row.context or 0))
    return float(flops) / float(decode_bytes(row)[3])


def bound_tokens_per_second(row: Measurement) -> float:
    r"""The speed-of-light decode rate of one stream [token/s].

    .. math:: \text{tokens/s}_{max} = \frac{\beta_{mem}}{\mathcal{B}}

    >>> round(bound_tokens_per_second(load_measurements()[0]), 2)
    192.86
    """
    return memory_bound_rate(step_bytes=float(decode_bytes(row)[3]),
                             bandwidth=row.bandwidth_gbps * GB_S)


def calibrate(rows: Iterable[Measurement] | None = None) -> list[Calibrated]:
    """Bound and efficiency (measured / bound) of every row; all rows when none are given."""
    out = []
    for r in (load_measurements() if rows is None else rows):
        p, w, kv, b = decode_bytes(r)
        bound = memory_bound_rate(step_bytes=float(b), bandwidth=r.bandwidth_gbps * GB_S)
        out.append(Calibrated(r, int(p), float(w), float(kv), float(b), bound,
                              efficiency(measured_tps=r.measured_tps, tokens_per_second=bound)))
    return out


def size_bucket(c: Calibrated) -> str:
    """Model size class by total parameters: '7-8B', '13B', '30-47B', '65-70B'.

    >>> size_bucket(calibrate(load_measurements()[:1])[0])
    '7-8B'
    """
    p = c.row.params_total
    if p < 10e9:
        return "7-8B"
    if p < 20e9:
        return "13B"
    if p < 50e9:
        return "30-47B"
    return "65-70B"


def precision_bucket(c: Calibrated) -> str:
    """Weight precision class: '16-bit', '8-bit' (8 to 9 bits), '5-7 bit', '4-bit' (< 5 bits)."""
    b = c.row.bits_per_weight
    if b >= 16:
        return "16-bit"
    if b >= 8:
        return "8-bit"
    if b >= 5:
        return "5-7 bit"
    return "4-bit"


def group_by(cal: Iterable[Calibrated],
             key: Callable[[Calibrated], str]) -> dict[str, list[Calibrated]]:
    """Rows grouped by ``key``, groups in first-seen order."""
    out: dict[str, list[Calibrated]] = {}
    for c in cal:
        out.setdefault(key(c), []).append(c)
    return out


def median_efficiency(cal: Iterable[Calibrated],
                      key: Callable[[Calibrated], str] = lambda c: c.row.device_class,
                      ) -> dict[str, float]:
    """Median efficiency per group [-].

    >>> med = median_efficiency(calibrate())
    >>> sorted(med) == sorted(DEVICE_CLASSES)
    True
    """
    return {k: statistics.median(c.efficiency for c in v) for k, v in group_by(cal, key).items()}


def class_spread(cal: Sequence[Calibrated]) -> dict[str, tuple[float, ...]]:
    """For each device class (:data:`DEVICE_CLASSES`): the lowest, first quartile, median,
    third quartile and highest efficiency, and the number of rows (a class of fewer than four
    rows gives its lowest, median and highest in place of the quartiles).

    >>> spread = class_spread(calibrate())
    >>> lo, q1, med, q3, hi, n = spread["consumer-gpu"]
    >>> lo <= q1 <= med <= q3 <= hi, med == median_efficiency(calibrate())["consumer-gpu"]
    (True, True)
    """
    out = {}
    for cls in DEVICE_CLASSES:
        e = sorted(c.efficiency for c in cal if c.row.device_class == cls)
        qs = statistics.quantiles(e, n=4) if len(e) >= 4 else [e[0], statistics.median(e), e[-1]]
        out[cls] = (e[0], qs[0], statistics.median(e), qs[2], e[-1], len(e))
    return out


def table_rows(cal: Sequence[Calibrated], pct: Callable[[float], str]) -> list[list[Any]]:
    """Every measurement as a row of the chapter's long table, by device class, then device,
    model size and bits: device, model, format (bits), context, bandwidth [GB/s], measured and
    bound [tokens/s], efficiency (formatted by ``pct``).

    >>> rows = table_rows(calibrate(), "{:.0%}".format)
    >>> len(rows) == len(calibrate()), len(rows[0])
    (True, 8)
    """
    table = []
    for cls in DEVICE_CLASSES:
        for c in sorted((c for c in cal if c.row.device_class == cls),
                        key=lambda c: (c.row.device, c.row.params_total, c.row.bits_per_weight)):
            r = c.row
            table.append([r.device, r.model, f"{r.weight_format} ({r.bits_per_weight:g})",
                          "" if r.context is None else r.context,
                          f"{r.bandwidth_gbps:g}", f"{r.measured_tps:.1f}", f"{c.bound_tps:.1f}",
                          pct(c.efficiency)])
    return table


def plot_efficiency_by(cal: Sequence[Calibrated], key: Callable[[Calibrated], str],
                       order: Sequence[str] | None = None, title: str = "",
                       ax: Any = None) -> Any:
    """Efficiency of every row (dots) and the group median (bar) per group of ``key``."""
    import matplotlib.pyplot as plt

    from ..book.plots import use_style

    use_style()
    if ax is None:
        _, ax = plt.subplots()
    groups = group_by(cal, key)
    names = list(order) if order is not None else list(groups)
    for i, g in enumerate(names):
        effs = sorted(c.efficiency for c in groups.get(g, []))
        if not effs:
            continue
        med = statistics.median(effs)
        ax.bar(i, med, width=0.6, color="C0", alpha=0.25)
        n = len(effs)
        xs = [i + 0.36 * ((j + 0.5) / n - 0.5) for j in range(n)]
        ax.plot(xs, effs, "o", color="C0", ms=4)
        # the median's value beside the group's dots (clear of them), at the book's text size
        ax.text(i + 0.22, med, f"{med:.0%}", ha="left", va="center", fontsize=9)
    ax.axhline(1.0, color="0.3", lw=1, ls="--")
    ax.set_xticks(range(len(names)),
                  [f"{class_label(g)}\n(n={len(groups.get(g, []))})" for g in names])
    ax.set_ylabel("measured / bound")
    ax.set_ylim(0, 1.1)
    if title:
        ax.set_title(title)
    return ax


def plot_measured_vs_bound(cal: Sequence[Calibrated], ax: Any = None) -> Any:
    """Measured tokens/s against the bound (log-log), one colour per device class."""
    import matplotlib.pyplot as plt

    from ..book.plots import use_style

    use_style()
    if ax is None:
        _, ax = plt.subplots()
    for i, cls in enumerate(DEVICE_CLASSES):
        pts = [c for c in cal if c.row.device_class == cls]
        ax.loglog([c.bound_tps for c in pts], [c.row.measured_tps for c in pts], "o",
                  color=f"C{i}", ms=4, label=f"{class_label(cls)} ({len(pts)})")
    lo = min(min(c.bound_tps, c.row.measured_tps) for c in cal) * 0.8
    hi = max(c.bound_tps for c in cal) * 1.2
    for f, ls in ((1.0, "--"), (0.5, ":"), (0.25, ":")):
        ax.loglog([lo, hi], [f * lo, f * hi], color="0.4", lw=1, ls=ls)
        ax.text(hi, f * hi, f" {f:.0%}", fontsize=8, va="center")
    ax.set_xlabel("bound: bandwidth / bytes per token [token/s]")
    ax.set_ylabel("measured [token/s]")
    ax.legend(loc="upper left")
    return ax
