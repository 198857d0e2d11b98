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
    fallback, and the vendors on whose chips the kernels run at ``compute`` where the format
    names any; a llama.cpp file type ("q4_k_m", "mostly_q4_0") reads as its default type (None
    for a number or an unknown name).

    >>> plan_format("fp8")
    {'compute': 'fp8', 'compute_fallback': 'fp16'}
    >>> plan_format(" Q4_0"), plan_format(4.5), plan_format("fp7")
    ({'compute': 'int8', 'compute_fallback': 'fp16', 'compute_vendors': ['AMD', 'NVIDIA']}, None, None)
    >>> plan_format("q4_k_m") == plan_format("q4_k")
    True
    >>> plan_format("mostly_q4_0") == plan_format("q4_0")
    True
    """
    from .compiled import load  # the catalog's formats, as formats.FORMATS reads them

    if not isinstance(weight_format, str):
        return None
    data = load("formats")
    key = weight_format.strip().lower()
    # a file type as llama.cpp's enum names it (formats.FILE_TYPE_PREFIX, "mostly_")
    mix = key.removeprefix("mostly_") if key.startswith("mostly_") else None
    if mix in data["mixes"]:
        key = data["mixes"][mix]["default"]
    elif key not in data["formats"] and key in data["mixes"]:
        key = data["mixes"][key]["default"]
    f = data["formats"].get(key)
    if f is None:
        return None
    out = {"compute": f["compute"], "compute_fallback": f.get("compute_fallback") or None}
    if f.get("compute_vendors"):
        out["compute_vendors"] = list(f["compute_vendors"])
    return out
