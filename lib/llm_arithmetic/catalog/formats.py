"""Weight formats: the real bits per weight of each, and the precision it computes at.

``catalog/data/formats.toml`` holds every named format with the block layout that gives its
bits per weight (llama.cpp's blocks counted from ggml's structs; NVFP4 and MXFP4 from their
specifications), the precision whose peak rate a matrix product on those weights runs at, and
the precision used where a chip has no units for it.

>>> bits_per_weight("Q4_0"), bits_per_weight("mxfp4"), bits_per_weight("nvfp4")
(Fraction(9, 2), Fraction(17, 4), Fraction(9, 2))
>>> bits_per_weight(4.5)
Fraction(9, 2)
>>> compute_chain("nvfp4")
('fp4', 'fp16', 'fp32')
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from ..core.errors import InputError
from ..core.units import to_fraction

__all__ = ["Format", "FORMATS", "BITS_PER_WEIGHT", "bits_per_weight", "compute_chain",
           "compute_precision", "DATA_PATH", "MAX_BITS"]

DATA_PATH: Path = Path(__file__).resolve().parent / "data" / "formats.toml"

#: Largest bits per weight accepted: fp64 is the widest format anyone stores weights in.
MAX_BITS = 64


@dataclass(frozen=True)
class Format:
    """A named weight format.

    Attributes
    ----------
    name : str
    bits : Fraction
        Bits per weight, block scales included [bit].
    layout : str
        The block that gives ``bits``.
    compute : str
        Precision key (as in the hardware catalog's peaks) a matrix product on these weights
        runs at, on a chip with units for it.
    compute_fallback : str
        The precision used otherwise ("" when the same).
    source, note : str
    """

    name: str
    bits: Fraction
    layout: str
    compute: str
    compute_fallback: str = ""
    source: str = ""
    note: str = ""


def _load(path: Path | None = None) -> dict[str, Format]:
    if path is None:  # the catalog: compiled from formats.toml (see catalog/compiled.py)
        from .compiled import load

        path, data = DATA_PATH, load("formats")
    else:
        import tomllib  # a user's file; the catalog's own is compiled to JSON

        data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for name, d in data["formats"].items():
        try:
            bits = Fraction(d["bits_per_weight"])
        except (KeyError, ValueError):
            raise InputError(f"{path.name}: formats.{name}.bits_per_weight: missing or not a "
                             "fraction") from None
        out[name] = Format(name, bits, d.get("layout", ""), d["compute"],
                           d.get("compute_fallback", ""), d.get("source", ""), d.get("note", ""))
    return out


FORMATS: Mapping[str, Format] = MappingProxyType(_load())
#: Bits per weight of every named format [bit].
BITS_PER_WEIGHT: Mapping[str, Fraction] = MappingProxyType(
    {name: f.bits for name, f in FORMATS.items()})


def bits_per_weight(fmt: str | int | float | Fraction) -> Fraction:
    """Bits per weight of a named format (case-insensitive), or of a number given as is [bit].

    Raises :class:`~llm_arithmetic.core.errors.InputError` naming close matches for an unknown
    format, and for a number that is not positive or beyond :data:`MAX_BITS`.

    >>> bits_per_weight("q4_k"), bits_per_weight("8.5")
    (Fraction(9, 2), Fraction(17, 2))
    >>> bits_per_weight(1e308)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: bits per weight must be at most 64 (fp64 is the widest format weights are stored in), got 1e+308
    """
    if isinstance(fmt, str):
        key = fmt.strip().lower()
        if key in BITS_PER_WEIGHT:
            return BITS_PER_WEIGHT[key]
        try:
            value = to_fraction(float(key))
        except (ValueError, OverflowError):
            close = difflib.get_close_matches(key, BITS_PER_WEIGHT, n=3, cutoff=0.4)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InputError(f"unknown weight format {fmt[:40]!r}{hint} (known: "
                             f"{', '.join(BITS_PER_WEIGHT)})") from None
    else:
        try:
            value = to_fraction(fmt)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"bits per weight must be a number or a format name, got "
                             f"{fmt!r:.40}") from None
    if not value > 0:
        raise InputError(f"bits per weight must be positive, got {float(value):g}")
    if value > MAX_BITS:
        raise InputError(f"bits per weight must be at most {MAX_BITS} (fp64 is the widest "
                         f"format weights are stored in), got {float(value):g}")
    return value


def compute_chain(weight_format: str | None, bits: Fraction | None = None) -> tuple[str, ...]:
    """Precisions to try, in order, for the peak rate of a matrix product on weights of a
    format: the format's own, its fallback, then fp16 and fp32. Without a format name, 32-bit
    weights compute in fp32 and anything else in fp16."""
    chain: list[str] = []
    f = FORMATS.get((weight_format or "").strip().lower())
    if f is not None:
        chain += [f.compute] + ([f.compute_fallback] if f.compute_fallback else [])
    elif bits is not None and bits >= 32:
        chain.append("fp32")
    for p in ("fp16", "fp32"):
        if p not in chain:
            chain.append(p)
    return tuple(chain)


def compute_precision(weight_format: str | None, bits: Fraction | None = None,
                      peaks: Mapping[str, object] | None = None) -> str:
    """The precision whose peak applies: the first of :func:`compute_chain` the chip has (the
    first of the chain without a chip).

    >>> compute_precision("q4_0"), compute_precision(None, Fraction(32))
    ('fp16', 'fp32')
    >>> compute_precision("fp8", peaks={"fp16": 1, "fp32": 1})
    'fp16'
    """
    chain = compute_chain(weight_format, bits)
    if peaks is None:
        return chain[0]
    for p in chain:
        if p in peaks:
            return p
    return chain[0]
