"""Helpers of the case-studies chapter: a deployment on n identical chips with a memory reserve.

* :data:`RESERVE_SHARE` -- the share of a device's memory kept back for activations, the runtime
  and the operating system (an assumption of the chapter);
* :func:`reserve_share` -- that share for one chip (the third macOS withholds on an 8 GB Mac);
* :func:`on` -- :func:`~llm_arithmetic.estimate` on n chips working as one, with the reserve;
* :func:`read_bytes` -- the weight bytes one decode step of one sequence reads;
* :func:`tps` -- a rate in tokens per second with the digits a table needs.
"""
from __future__ import annotations

from typing import Any

from ..catalog.model import Model
from ..core.units import GiB
from ..estimate import estimate
from ..formulas import memory

__all__ = ["RESERVE_SHARE", "MACOS_GPU_SHARE_8GB", "reserve_share", "on", "read_bytes", "tps"]

#: Memory kept back on every device: an assumption of the chapter.
RESERVE_SHARE = 0.10
#: Published input: on an 8 GB Mac, macOS lets the GPU use two thirds of the memory (Metal's
#: recommended working set, 5461.34 MiB in a llama.cpp log: li-plus/chatglm.cpp issue 76).
MACOS_GPU_SHARE_8GB = 2 / 3


def reserve_share(chip: Any, share: float = RESERVE_SHARE) -> float:
    """Share of a chip's memory kept back: the OS's third on an 8 GB Mac, else ``share``.

    >>> from llm_arithmetic import get_hardware
    >>> round(reserve_share(get_hardware("m1")), 3), reserve_share(get_hardware("h100-sxm"))
    (0.333, 0.1)
    """
    if chip.kind == "apple-silicon" and chip.capacity <= 8 * GiB:
        return 1 - MACOS_GPU_SHARE_8GB
    return share


def on(model: Any, chip: Any, n: int = 1, share: float = RESERVE_SHARE, **kw: Any) -> Any:
    """:func:`~llm_arithmetic.estimate` on ``n`` identical chips working as one (ideal tensor
    parallelism: n times the bandwidth, peak and memory, no communication), with the reserve
    :func:`reserve_share` kept back; ``kw`` goes to ``estimate`` (weights, context, batch...).

    >>> from llm_arithmetic import get_hardware, get_model
    >>> e = on(get_model("llama-2-70b"), get_hardware("h100-sxm"), 2, context=4096)
    >>> e.fits, e.bandwidth == 2 * get_hardware("h100-sxm").bandwidth
    (True, True)
    """
    e1 = estimate(model, hardware=chip, **kw)
    return estimate(model, bandwidth=n * chip.bandwidth, peak_flops=n * e1.peak_flops,
                    capacity=n * chip.capacity,
                    overhead=int(n * chip.capacity * reserve_share(chip, share)), **kw)


def read_bytes(model: Model, bits: Any = 16) -> Any:
    """Weight bytes one decode step of one sequence reads [B]."""
    return memory.weight_bytes(n_params=model.decode_read_params, bits_weight=bits)


def tps(x: float) -> str:
    """Tokens/s with sensible digits.

    >>> tps(12.345), tps(1234.5)
    ('12.3', '1,234')
    """
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"
