"""What the generated numeric functions share: argument checks and the two ways to evaluate.

* **exact**, when every argument is a Python ``int``, ``bool``, ``fractions.Fraction`` or a
  NumPy integer scalar: rationals stay ``Fraction``, so a byte count stays an ``int`` however
  large; a result that is not a whole number comes back as a ``float``;
* **vectorized**, when any argument is a ``float`` or an array: NumPy float64, broadcasting
  over arrays (integer arrays are converted first: int64 products overflow silently). A
  0-d result comes back as a Python ``float``.

Hand-written on purpose and small: everything formula-specific is generated
(``tools/generate.py``).
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction
from numbers import Integral
from typing import Any, Iterator, Sequence

import numpy as np

from ..core.errors import InputError

__all__ = ["exact_args", "vector_args", "exact_result", "vector_result", "quiet", "F", "inf",
           "floor", "ceil"]

F = Fraction
inf = math.inf
floor = math.floor
ceil = math.ceil


def exact_args(names: Sequence[str], values: Sequence[Any]) -> list[Fraction] | None:
    """The arguments as ``Fraction`` when all are exact numbers; ``None`` otherwise."""
    out = []
    for v in values:
        if isinstance(v, Fraction):
            out.append(v)
        elif isinstance(v, (Integral, np.integer)) and not isinstance(v, np.ndarray):
            out.append(Fraction(int(v)))
        else:
            return None
    return out


def vector_args(names: Sequence[str], values: Sequence[Any]) -> list[Any]:
    """The arguments as float64 arrays (or scalars); an :class:`InputError` names a bad one."""
    out = []
    for name, v in zip(names, values):
        if isinstance(v, Fraction):
            v = float(v)
        try:
            out.append(np.asarray(v, dtype=np.float64))
        except (TypeError, ValueError):
            raise InputError(f"argument {name!r} must be a number or an array of numbers, "
                             f"got {v!r:.60}") from None
    return out


def exact_result(x: Any) -> Any:
    if isinstance(x, Fraction):
        return int(x) if x.denominator == 1 else float(x)
    return x


def vector_result(x: Any) -> Any:
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x.item()
    if isinstance(x, np.generic):
        return x.item()
    return x


@contextmanager
def quiet() -> Iterator[None]:
    """Division by zero gives inf (a bound that does not exist), as in the exact path."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        yield
