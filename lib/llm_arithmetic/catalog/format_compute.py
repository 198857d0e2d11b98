"""A named weight format as the plan's precision chain reads it (its compute precision and
fallback), from the formats' catalog: what :mod:`~llm_arithmetic.catalog.formats` exports and
what a model's checkpoint format (:attr:`~llm_arithmetic.catalog.model.Model.native_format`)
gives the plan. A module of its own because both of those read it and ``formats`` already
refers to ``model``.
"""
from __future__ import annotations

__all__ = ["plan_format"]


def plan_format(weight_format: object) -> dict[str, str | None] | None:
    """A named weight format as the plan's precision chain reads it: its compute precision and
    fallback (None for a number or an unknown name).

    >>> plan_format("fp8")
    {'compute': 'fp8', 'compute_fallback': 'fp16'}
    >>> plan_format(" Q4_0"), plan_format(4.5), plan_format("fp7")
    ({'compute': 'fp16', 'compute_fallback': None}, None, None)
    """
    from .compiled import load  # the catalog's formats, as formats.FORMATS reads them

    if not isinstance(weight_format, str):
        return None
    f = load("formats")["formats"].get(weight_format.strip().lower())
    if f is None:
        return None
    return {"compute": f["compute"], "compute_fallback": f.get("compute_fallback") or None}
