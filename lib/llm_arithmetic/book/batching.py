"""Helpers of the batching chapter.

* :func:`frontier` -- the throughput-latency frontier of a model on a chip: the aggregate rate
  against the per-stream rate for every batch from 1 to the largest that fits.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..formulas import memory, roofline

__all__ = ["frontier"]


def frontier(model: Any, chip: Any, contexts: Iterable[int], ax: Any, reserve: int = 0,
             bits: int = 16) -> Any:
    """Aggregate against per-stream tokens/s for B = 1 .. B_max, one line per context (its
    B_max in the legend and marked by a dot), on log axes; fp16 arithmetic.

    >>> import matplotlib.pyplot as plt
    >>> from llm_arithmetic import get_hardware, get_model
    >>> _, ax = plt.subplots()
    >>> ax = frontier(get_model("llama-3-8b"), get_hardware("h100-sxm"), (4096,), ax)
    >>> len(ax.lines)  # the frontier and its end point
    2
    >>> plt.close("all")
    """
    w = float(memory.weight_bytes(n_params=model.decode_read_params, bits_weight=bits))
    kv = float(model.kv_cache_bytes_per_token(bits))
    for s in contexts:
        s_eff = float(model.attended_context(s))
        b_max = memory.max_batch(capacity=chip.capacity,
                                 weight_bytes=memory.weight_bytes(n_params=model.total_params,
                                                                  bits_weight=bits),
                            kv_cache_bytes_per_token=model.kv_cache_bytes_per_token(bits), context=s,
                            overhead=reserve)
        if b_max < 1:
            continue
        b = np.arange(1, b_max + 1, dtype=float)
        t = roofline.decode_step_time(
            weight_bytes=w, kv_cache_bytes_per_token=kv, matmul_params=model.matmul_params,
            n_layers=model.n_layers, n_heads=model.n_heads, d_head=model.d_head, context=s_eff,
            batch=b, bandwidth=chip.bandwidth, peak_flops=chip.peak("fp16"))
        (line,) = ax.plot(1 / t, b / t, label=f"context {s:,} (B_max {b_max})")
        ax.plot([1 / t[-1]], [b[-1] / t[-1]], "o", color=line.get_color(), ms=5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("per-stream rate [tokens/s]")
    ax.set_ylabel("aggregate rate [tokens/s]")
    return ax
