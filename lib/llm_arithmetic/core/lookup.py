"""Catalog look-up by name, with close matches in the error (shared by models and hardware)."""
from __future__ import annotations

import re
from typing import Iterable, Mapping, TypeVar

from .errors import InputError

__all__ = ["lookup", "normalize", "close_matches", "did_you_mean"]

T = TypeVar("T")


def normalize(name: str) -> str:
    """A catalog key from a name as people write it: lower case, spaces and underscores as
    dashes (``"H100 SXM"`` -> ``"h100-sxm"``)."""
    return re.sub(r"[\s_]+", "-", name.strip().lower())


def close_matches(word: str, options: Iterable[str], n: int = 3,
                  cutoff: float = 0.4) -> list[str]:
    """The options most like ``word`` (difflib's ratio), best first: the hint of an error
    message. difflib is imported here, on the error path only.

    >>> close_matches("fp9", ["fp8", "fp16", "int4"])
    ['fp8', 'fp16']
    """
    import difflib

    return difflib.get_close_matches(word, options, n=n, cutoff=cutoff)


def did_you_mean(word: str, options: Iterable[str], n: int = 3, cutoff: float = 0.4) -> str:
    """The hint an error message ends with: ``"; did you mean a, b?"`` over
    :func:`close_matches`, or ``""`` when no option is close.

    >>> did_you_mean("fp9", ["fp8", "fp16", "int4"]), did_you_mean("xyz", ["fp8"])
    ('; did you mean fp8, fp16?', '')
    """
    close = close_matches(word, options, n=n, cutoff=cutoff)
    return f"; did you mean {', '.join(close)}?" if close else ""


def lookup(kind: str, name: str, table: Mapping[str, T]) -> T:
    """``table[name]`` (case-insensitive, spaces as dashes); :class:`InputError` naming close
    matches otherwise.

    >>> lookup("model", "A", {"a": 1})
    1
    >>> lookup("hardware", "a100", {"a100-sxm": 1, "a10": 2, "h100": 3})
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: unknown hardware 'a100'; did you mean a100-sxm, a10, h100?
    """
    if not isinstance(name, str):
        raise InputError(f"{kind} must be given by name (a string), got {type(name).__name__}")
    key = normalize(name)
    if key in table:
        return table[key]
    close = [n for n in table if key and key in n][:4]
    close += [n for n in close_matches(key, table, n=4, cutoff=0.5) if n not in close]
    hint = (f"; did you mean {', '.join(close[:4])}?" if close
            else f"; known: {', '.join(sorted(table))}")
    raise InputError(f"unknown {kind} {name[:80]!r}{hint}")
