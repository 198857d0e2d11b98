"""Units, defined once: decimal and binary byte multiples, rates, and bits per weight.

Bytes are integers. ``GB`` is 10**9 bytes and ``GiB`` is 2**30 bytes; the two are never mixed
silently: every formatting helper names its unit.

>>> GB, GiB
(1000000000, 1073741824)
>>> bits_per_weight("Q4_0")
Fraction(9, 2)
>>> fmt_bytes(14_000_000_000, "GB"), fmt_bytes(2**31, "GiB")
('14.00 GB', '2.00 GiB')
"""
from __future__ import annotations

import difflib
from fractions import Fraction
from types import MappingProxyType
from typing import Mapping

__all__ = [
    "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "GB_S", "TB_S", "TFLOP_S", "GFLOP_S",
    "BITS_PER_WEIGHT", "FORMAT_NOTES", "bits_per_weight", "fmt_bytes", "to_fraction",
]

KB, MB, GB, TB = 10**3, 10**6, 10**9, 10**12
KiB, MiB, GiB, TiB = 2**10, 2**20, 2**30, 2**40
#: rates: bandwidth [B/s] and arithmetic [FLOP/s]
GB_S, TB_S = 10**9, 10**12
GFLOP_S, TFLOP_S = 10**9, 10**12

#: Bits per weight of named formats, scales of block formats included.
#: llama.cpp Q8_0: blocks of 32 int8 weights + one fp16 scale = (32*8 + 16)/32 = 8.5.
#: llama.cpp Q4_0: blocks of 32 4-bit weights + one fp16 scale = (32*4 + 16)/32 = 4.5.
#: llama.cpp Q4_1: + an fp16 minimum as well = (32*4 + 32)/32 = 5.
#: int4 with one fp16 scale per group of 128 (GPTQ/AWQ-style): 4 + 16/128 = 4.125.
BITS_PER_WEIGHT: Mapping[str, Fraction] = MappingProxyType({
    "fp32": Fraction(32),
    "tf32": Fraction(32),  # stored as fp32
    "fp16": Fraction(16),
    "bf16": Fraction(16),
    "fp8": Fraction(8),
    "int8": Fraction(8),
    "int4": Fraction(4),
    "q8_0": Fraction(17, 2),
    "q4_0": Fraction(9, 2),
    "q4_1": Fraction(5),
    "int4-g128": Fraction(33, 8),
})

FORMAT_NOTES: Mapping[str, str] = MappingProxyType({
    "q8_0": "llama.cpp: 32 int8 weights + 1 fp16 scale per block",
    "q4_0": "llama.cpp: 32 4-bit weights + 1 fp16 scale per block",
    "q4_1": "llama.cpp: 32 4-bit weights + fp16 scale and minimum per block",
    "int4-g128": "4-bit weights, one fp16 scale per group of 128 (GPTQ/AWQ style)",
})


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


def bits_per_weight(fmt: str | int | float | Fraction) -> Fraction:
    """Bits per weight of a named format (case-insensitive) or of a number given as is.

    Raises ``ValueError`` naming close matches for an unknown format, and for a number that is
    not positive.
    """
    if isinstance(fmt, str):
        key = fmt.strip().lower()
        if key in BITS_PER_WEIGHT:
            return BITS_PER_WEIGHT[key]
        try:
            value = to_fraction(key)
        except ValueError:
            close = difflib.get_close_matches(key, BITS_PER_WEIGHT, n=3, cutoff=0.4)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ValueError(
                f"unknown weight format {fmt!r}{hint} (known: {', '.join(BITS_PER_WEIGHT)})"
            ) from None
    else:
        value = to_fraction(fmt)
    if value <= 0:
        raise ValueError(f"bits per weight must be positive, got {fmt!r}")
    return value


_UNITS = {"B": 1, "KB": KB, "MB": MB, "GB": GB, "TB": TB,
          "KiB": KiB, "MiB": MiB, "GiB": GiB, "TiB": TiB}


def fmt_bytes(n: float, unit: str = "GB", digits: int = 2) -> str:
    """Format a byte count in a named unit: ``fmt_bytes(2**30, "GiB") == '1.00 GiB'``."""
    return f"{n / _UNITS[unit]:.{digits}f} {unit}"
