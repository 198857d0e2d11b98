"""Build code of the cost chapter (``notebooks/14-cost.ipynb``): the points of a serving
frontier that fit, and the largest batch that keeps a promised speed per user.
"""
from __future__ import annotations

import math
from typing import Any

from ...sweeps import frontier


def fitting_frontier(model: Any, chip: Any, price: float, **serve: Any) -> list[dict[str, Any]]:
    """The points of :func:`~llm_arithmetic.sweeps.frontier` (powers of two of the batch) at
    ``price`` per chip-hour whose weights and caches fit the chips; empty when none does.

    >>> from llm_arithmetic import get_hardware, get_model
    >>> pts = fitting_frontier(get_model("llama-3.1-8b"), get_hardware("h100-sxm"), 1.0,
    ...                        weights="fp8", prompt=2048, generate=256)
    >>> pts[0]["batch"], all(p["fits"] for p in pts)
    (1, True)
    >>> fitting_frontier(get_model("llama-3.1-405b"), get_hardware("m2"), 1.0, weights="fp8")
    []
    """
    return [p for p in frontier(model, hardware=chip, price_per_hour=price, **serve) if p["fits"]]


def largest_batch_at_speed(model: Any, chip: Any, price: float, tokens_per_user: float,
                           largest: int = 1 << 16, **serve: Any) -> dict[str, Any] | None:
    """The point of :func:`~llm_arithmetic.sweeps.frontier` at the largest batch, any whole
    number rather than a power of two, whose weights and caches fit the chips and whose speed
    per user is at least ``tokens_per_user`` [tokens/s]; None when batch 1 already fails.

    A larger batch only lengthens the step and fills more memory, so the batches that pass are
    1 to some B: halving an interval finds B in a few dozen estimates (``largest`` caps it).

    >>> from llm_arithmetic import get_hardware, get_model
    >>> p = largest_batch_at_speed(get_model("llama-3.1-8b"), get_hardware("h100-sxm"), 1.0,
    ...                            100, weights="fp16", context=4096)
    >>> p["batch"], p["tokens_per_second_per_user"] >= 100, p["fits"]
    (34, True, True)
    """
    def point(b: int) -> dict[str, Any]:
        return frontier(model, hardware=chip, price_per_hour=price, batches=[b], **serve)[0]

    def passes(p: dict[str, Any]) -> bool:
        return bool(p["fits"]) and p["tokens_per_second_per_user"] >= tokens_per_user

    best = point(1)
    if not passes(best):
        return None
    top = point(largest)
    if passes(top):
        return top
    lo, hi = 1, largest          # lo passes, hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        p = point(mid)
        if passes(p):
            lo, best = mid, p
        else:
            hi = mid
    return best


def per_chip_ratio(a: dict | None, b: dict | None) -> float:
    """Tokens per second per chip of point ``a`` over point ``b``; NaN when either is None.

    >>> per_chip_ratio({"tokens_per_second_per_chip": 6.0}, {"tokens_per_second_per_chip": 2.0})
    3.0
    """
    if a is None or b is None:
        return math.nan
    return a["tokens_per_second_per_chip"] / b["tokens_per_second_per_chip"]


def cell(x: Any, spec: str) -> str:
    """A table cell: ``x`` formatted with ``spec``, or a dash for a missing figure (None, NaN:
    a chip without a published power, a setting that does not fit).

    >>> cell(2.5, ".2f"), cell(None, ".2f"), cell(math.nan, ",.0f")
    ('2.50', '–', '–')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return format(x, spec)
