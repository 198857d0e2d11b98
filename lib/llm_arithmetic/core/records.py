"""Frozen records: ``dataclasses.dataclass(frozen=True)`` whose ``__repr__``, ``__eq__`` and
``__hash__`` are written once, here, instead of generated for each class.

A dataclass writes the source of each of its methods and compiles it when its class is defined,
at every import. For the package's two dozen records (the estimate alone has 80 fields) that
compilation was about a third of ``python -m llm_arithmetic describe``'s own start-up; these
generic methods read the fields at call time and behave as the generated ones: the repr
``Name(field=value, ...)`` over the fields with ``repr=True``, equality between instances of
the same class over the fields with ``compare=True``, a hash of the same tuple.

>>> from dataclasses import field
>>> @record
... class Point:
...     x: int
...     y: int = 0
...     label: str = field(default="", compare=False)
>>> Point(1, 2), Point(1, 2, "a") == Point(1, 2, "b"), hash(Point(1)) == hash(Point(1, 0))
(Point(x=1, y=2, label=''), True, True)
>>> Point(1) == (1, 0)
False
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable, TypeVar, dataclass_transform

__all__ = ["record"]

T = TypeVar("T", bound=type)


def _repr(self: Any) -> str:
    shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
    return f"{type(self).__qualname__}({shown})"


def _compared(self: Any) -> tuple:
    return tuple(getattr(self, f.name) for f in fields(self) if f.compare)


def _eq(self: Any, other: object) -> bool:
    if other.__class__ is self.__class__:
        return _compared(self) == _compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(tuple(getattr(self, f.name) for f in fields(self)
                      if (f.compare if f.hash is None else f.hash)))


_SHARED = {"__repr__": _repr, "__eq__": _eq, "__hash__": _hash}


@dataclass_transform(frozen_default=True)
def record(cls: T | None = None, /, **options: Any) -> T | Callable[[T], T]:
    """``@dataclass(frozen=True, **options)`` with the shared ``__repr__``, ``__eq__`` and
    ``__hash__`` (a class that defines one of them keeps its own)."""
    def wrap(c: T) -> T:
        own = {name for name in _SHARED if name in c.__dict__}
        c = dataclass(frozen=True, repr=False, eq=False, **options)(c)
        for name, method in _SHARED.items():
            if name not in own:
                setattr(c, name, method)
        return c

    return wrap if cls is None else wrap(cls)
