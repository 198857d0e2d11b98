"""Chapter 1, the puzzle (``notebooks/01-puzzle.ipynb``): a model's decode bounds on a row of
chips, as a table and as bars next to an observed speed."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ...catalog.hardware import get_hardware
from ...core.units import GB_S, GiB, TFLOP_S
from ..display import chip_name, md_table, model_name
from ..matplotlib_on_demand import pyplot as plt
from . import format_name


def bounds_table(model: Any, fmt: str, estimates: Mapping[str, Any], name: str) -> Any:
    """One row per chip of ``estimates`` ({chip key: estimate at batch 1}): memory, bandwidth,
    fp16 peak, ops:byte, the memory and the compute bound on tokens per second, which binds."""
    rows = []
    for key, est in estimates.items():
        chip = get_hardware(key)
        rows.append([chip_name(chip), f"{chip.capacity / GiB:.0f}",
                     f"{chip.bandwidth / GB_S:.1f}", f"{chip.peak('fp16') / TFLOP_S:.2f}",
                     f"{est.ops_per_byte:.1f}", f"{1 / est.decode_memory_seconds:.1f}",
                     f"{1 / est.decode_compute_seconds:.0f}", est.bound])
    return md_table(["chip", "memory [GiB]", "bandwidth [GB/s]", "fp16 peak [TFLOP/s]",
                     "ops:byte [FLOP/B]", "memory bound [token/s]", "compute bound [token/s]",
                     "binds"], rows, "lrrrrrrl", name=name,
                    caption=f"{model_name(model)} in {format_name(fmt)} at batch 1 on Apple's "
                            "laptop chips: the two bounds of the decode step (the memory of each "
                            "chip's catalog entry, dense fp16 peak of the GPU).")


def bounds_figure(estimates: Mapping[str, Any], observed: float, observed_on: str,
                  observed_label: str) -> Any:
    """Bars of the memory and the compute bound [token/s] of each chip of ``estimates``, on a
    log scale, with a mark at the speed ``observed`` on the chip ``observed_on``."""
    keys = list(estimates)
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    x = np.arange(len(keys))
    mem = [1 / estimates[k].decode_memory_seconds for k in keys]
    comp = [1 / estimates[k].decode_compute_seconds for k in keys]
    ax.bar(x - 0.2, mem, width=0.4, label="memory bound (bandwidth / bytes)")
    ax.bar(x + 0.2, comp, width=0.4, label="compute bound (peak / FLOPs)")
    at = keys.index(observed_on)
    ax.plot([x[at] - 0.4, x[at]], [observed] * 2, color="k", lw=2.5, label=observed_label)
    ax.set_yscale("log")
    ax.set_ylim(min(5.0, 0.5 * min(mem)), max(5000.0, 2 * max(comp)))
    ax.set_xticks(x, [chip_name(get_hardware(k)).removeprefix("Apple ") for k in keys])
    ax.set_xlabel("Apple chip")
    ax.set_ylabel("decode speed, upper bound [token/s]")
    ax.legend(loc="upper left")
    return fig
