"""Units, defined once: decimal and binary byte multiples and rates.

Bytes are integers. ``GB`` is 10**9 bytes and ``GiB`` is 2**30 bytes; the two are never mixed
silently: every formatting helper names its unit. Bandwidths are in B/s and arithmetic rates in
FLOP/s throughout the package; ``GB_S`` and ``TFLOP_S`` convert at the edges (the command line,
tables). Weight formats and their bits per weight are in :mod:`llm_arithmetic.catalog.formats`.

>>> GB, GiB
(1000000000, 1073741824)
>>> fmt_bytes(14_000_000_000, "GB"), fmt_bytes(2**31, "GiB")
('14.00 GB', '2.00 GiB')
"""
from __future__ import annotations

from fractions import Fraction

__all__ = [
    "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "GB_S", "TB_S", "TFLOP_S", "GFLOP_S",
    "PFLOP_S", "fmt_bytes", "to_fraction", "rate_unit", "mixed_rate_unit",
]

KB, MB, GB, TB = 10**3, 10**6, 10**9, 10**12
KiB, MiB, GiB, TiB = 2**10, 2**20, 2**30, 2**40
#: rates: bandwidth [B/s] and arithmetic [FLOP/s]
GB_S, TB_S = 10**9, 10**12
GFLOP_S, TFLOP_S, PFLOP_S = 10**9, 10**12, 10**15


def to_fraction(x: int | float | str | Fraction) -> Fraction:
    """An exact rational from a number or a decimal string (``4.5`` -> ``9/2``).

    Floats are read through their shortest decimal repr, so ``8.5`` is exactly 17/2.

    >>> to_fraction(4.5), to_fraction("8.5"), to_fraction(16)
    (Fraction(9, 2), Fraction(17, 2), Fraction(16, 1))
    """
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float):
        return Fraction(repr(x))
    return Fraction(x)


_UNITS = {"B": 1, "KB": KB, "MB": MB, "GB": GB, "TB": TB,
          "KiB": KiB, "MiB": MiB, "GiB": GiB, "TiB": TiB}


def fmt_bytes(n: float, unit: str = "GB", digits: int = 2) -> str:
    """Format a byte count in a named unit: ``fmt_bytes(2**30, "GiB") == '1.00 GiB'``."""
    return f"{n / _UNITS[unit]:.{digits}f} {unit}"


def rate_unit(precision: object, unit: str = "FLOP/s") -> str:
    """``unit`` (``"FLOP/s"``, ``"FLOP/B"``, ``"FLOP"``) as a peak of ``precision`` counts its
    operations: an integer precision's (int8, int4) are integer operations (``OP/s``, as the
    hardware catalog records their peaks), not floating-point ones.

    >>> rate_unit("int8"), rate_unit("fp16-acc16"), rate_unit("int4", "FLOP/B")
    ('OP/s', 'FLOP/s', 'OP/B')
    """
    return "OP" + unit[4:] if str(precision).startswith("int") else unit


def mixed_rate_unit(weights: object, attention: object, unit: str = "FLOP/s") -> str:
    """The unit of a step's effective rate (its FLOPs over its compute time: the weights'
    products at the ``weights`` precision's peak, attention's at the ``attention`` precision's):
    :func:`rate_unit` where both count the same operations; where one counts integer operations
    and the other floating-point ones (int8 weights, a 16-bit cache), both, ``(OP+FLOP)/s``: the
    rate is neither an integer nor a floating-point peak. ``--explain``, the explorer and the
    page (``stepUnit`` in ``ui.js``) label such a rate with it.

    >>> mixed_rate_unit("int8", "fp16-acc16"), mixed_rate_unit("fp8", "fp16")
    ('(OP+FLOP)/s', 'FLOP/s')
    >>> mixed_rate_unit("int8", "fp16", "FLOP/B"), mixed_rate_unit("int8", "int8")
    ('(OP+FLOP)/B', 'OP/s')
    """
    w, a = rate_unit(weights, unit), rate_unit(attention, unit)
    return w if w == a else "(OP+FLOP)" + unit[4:]
