"""Build code of the cost chapter (``notebooks/14-cost.ipynb``): the points of a serving
frontier that fit, and the cheapest of them that keeps a promised speed per user.
"""
from __future__ import annotations

import math
from typing import Any

from ...estimate import frontier


def fitting_frontier(model: Any, chip: Any, price: float, **serve: Any) -> list[dict[str, Any]]:
    """The points of :func:`~llm_arithmetic.estimate.frontier` (powers of two of the batch) at
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


def largest_batch_meeting(points: list[dict[str, Any]], tokens_per_user: float) -> dict | None:
    """The point of largest batch among ``points`` whose speed per user is at least
    ``tokens_per_user`` [tokens/s], or None.

    >>> largest_batch_meeting([{"batch": 1, "tokens_per_second_per_user": 90},
    ...                        {"batch": 2, "tokens_per_second_per_user": 40}], 50)["batch"]
    1
    """
    ok = [p for p in points if p["tokens_per_second_per_user"] >= tokens_per_user]
    return ok[-1] if ok else None


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
