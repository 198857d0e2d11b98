"""Catalog lookup by name, with close matches in the error (shared by models and hardware)."""
from __future__ import annotations

import difflib
from typing import Mapping, TypeVar

T = TypeVar("T")


def lookup(kind: str, name: str, table: Mapping[str, T]) -> T:
    """``table[name]`` case-insensitively; ``ValueError`` naming close matches otherwise.

    >>> lookup("model", "A", {"a": 1})
    1
    >>> lookup("hardware", "a100", {"a100-sxm": 1, "a10": 2, "h100": 3})
    Traceback (most recent call last):
    ...
    ValueError: unknown hardware 'a100'; did you mean a100-sxm, a10, h100?
    """
    key = name.strip().lower()
    if key in table:
        return table[key]
    close = [n for n in table if key in n][:4]
    close += [n for n in difflib.get_close_matches(key, table, n=4, cutoff=0.5) if n not in close]
    hint = (f"; did you mean {', '.join(close[:4])}?" if close
            else f"; known: {', '.join(sorted(table))}")
    raise ValueError(f"unknown {kind} {name!r}{hint}")
