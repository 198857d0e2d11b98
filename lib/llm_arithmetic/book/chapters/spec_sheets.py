"""Chapter 2, reading a spec sheet (``notebooks/02-spec-sheets.ipynb``): bandwidth from the bus,
the memory nvidia-smi reports, a chip's peak rates, the ops:byte ratio across the catalog, and
the source articles' hardware figures against the catalog's."""
from __future__ import annotations

import re
from typing import Any, Mapping

from ...catalog.hardware import HARDWARE, get_hardware
from ...core.units import GB, GB_S, GFLOP_S, GiB, MiB, TFLOP_S
from ...formulas import roofline
from ..display import chip_name, cite, escape, md_table


def bus_table(buses: Mapping[str, tuple[int, float]], name: str) -> Any:
    """Peak bandwidth as bus width [bit] x transfers per pin [1/s] / 8, against the catalog's,
    for ``buses`` ({chip key: (width, rate per pin)})."""
    rows = []
    for key, (width, per_pin) in buses.items():
        chip = get_hardware(key)
        rows.append([chip_name(chip), width, f"{per_pin / 1e9:g}",
                     f"{width * per_pin / 8 / GB_S:,.2f}", f"{chip.bandwidth / GB_S:,.2f}"])
    return md_table(["chip", "bus [bit]", "per pin [Gbit/s]", "bus × rate / 8 [GB/s]",
                     "catalog [GB/s]"], rows, "lrrrr", name=name,
                    caption="Peak memory bandwidth from the width of the bus and the rate of "
                            "each pin, against the catalog's figure.")


def nvidia_smi_totals() -> dict[str, int]:
    """{chip key: bytes} of the total memory nvidia-smi reports, read from the catalog's notes
    (the first "N MiB" of the right size class: variants share notes)."""
    totals = {}
    for chip in HARDWARE.values():
        if "nvidia-smi" not in chip.notes:
            continue
        mib = [int(x.replace(",", "")) for x in re.findall(r"([\d,]+) MiB", chip.notes)]
        mib = [v for v in mib if abs(v * MiB / chip.capacity - 1) < 0.1]
        if mib:
            totals[chip.name] = mib[0] * MiB
    return totals


def nvidia_smi_table(totals: Mapping[str, int], name: str) -> Any:
    """Nominal capacity against what nvidia-smi reports, one row per chip of ``totals``."""
    rows = []
    for key, total in totals.items():
        chip = get_hardware(key)
        rows.append([chip_name(chip), f"{chip.capacity / GiB:.0f}", f"{chip.capacity / GB:.2f}",
                     f"{total // MiB:,}", f"{total / GiB:.2f}", f"{total / chip.capacity:.1%}"])
    return md_table(["chip", "nominal [GiB]", "nominal [GB]", "nvidia-smi [MiB]",
                     "nvidia-smi [GiB]", "share of nominal"], rows, "lrrrrr", name=name,
                    caption="Memory that nvidia-smi reports, against the nominal capacity.")


def peaks_table(chip: Any, name: str) -> Any:
    """Every peak rate of ``chip`` in the catalog, fastest first: precision, units, dense or
    sparse, rate."""
    rows = [[f"`{k}`", p.engine or "not stated", "dense" if p.dense else "sparse (2:4)",
             f"{p.rate / 1e12:,.1f}", f"T{p.unit}"]
            for k, p in sorted(chip.peaks.items(), key=lambda kv: -kv[1].rate)]
    return md_table(["precision", "units", "figure", "peak", "unit"], rows, "lllrl", name=name,
                    caption=f"Every peak rate of the {chip_name(chip)} in the catalog, "
                            "fastest first.")


def sparse_ratios() -> dict[tuple[str, str], float]:
    """{(chip key, dense precision): sparse rate / dense rate} over the catalog."""
    out = {}
    for chip in HARDWARE.values():
        for k, p in chip.peaks.items():
            if not p.dense:
                dense_key = k.removesuffix("-sparse")
                out[(chip.name, dense_key)] = p.rate / chip.peaks[dense_key].rate
    return out


def ops_per_byte_by_chip() -> dict[str, float]:
    """{chip key: ops:byte ratio [FLOP/B]} at each chip's headline precision (fp16, else bf16,
    else fp32; chips with only fp4/int8 rates left out)."""
    out = {}
    for chip in HARDWARE.values():
        precision = chip.headline_precision()
        if precision is not None:
            out[chip.name] = roofline.ops_per_byte(peak_flops=chip.peak(precision),
                                                   bandwidth=chip.bandwidth)
    return out


def article_figures_that_differ(tolerance: float = 0.01) -> tuple[list[list], list[str], int]:
    """The source articles' hardware figures that differ from the catalog's by more than
    ``tolerance``: (table rows, their notes, the number of article figures in all)."""
    rows, notes, n_figures = [], [], 0
    for chip in HARDWARE.values():
        for a in chip.article_figures:
            n_figures += 1
            if a.quantity in ("bandwidth", "capacity"):
                ref = getattr(chip, a.quantity)
            else:
                p = chip.peaks.get(a.quantity.split(":", 1)[1])
                ref = p.rate if p else None
            if ref is None or abs(a.value / ref - 1) <= tolerance:
                continue
            notes.append(escape(a.note))
            # a peak in TFLOP/s, or in GFLOP/s below 1 TFLOP/s (0.01 and 0.05 would hide a factor)
            scale, unit = ((GB_S, "GB/s") if a.quantity == "bandwidth" else
                           (GB, "GB") if a.quantity == "capacity" else
                           (TFLOP_S, "TFLOP/s") if ref >= TFLOP_S else (GFLOP_S, "GFLOP/s"))
            rows.append([len(notes), chip_name(chip), cite([a.article]), a.quantity,
                         f"{a.value / scale:,.2f} {unit}", f"{ref / scale:,.2f} {unit}",
                         f"{a.value / ref:.3f}"])
    return rows, notes, n_figures


def rate(chip: Any, precision: str, dense: bool = True) -> float:
    """``chip``'s peak at ``precision`` [FLOP/s], or NaN where the catalog records none (a ratio
    of two rates is then NaN too, and the prose shows "nan" rather than the notebook failing)."""
    key = precision if dense else f"{precision}-sparse"
    return chip.peaks[key].rate if key in chip.peaks else float("nan")
