"""Frozen records: classes with the behaviour of ``dataclasses.dataclass(frozen=True)`` whose
methods are written once, here, instead of generated for each class.

A dataclass writes the source of ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__`` and ``__delattr__`` for its class and compiles it when the class is defined, at
every import. For the package's two dozen records (the estimate alone has a hundred fields)
that compilation was a third of ``python -m llm_arithmetic describe``'s own start-up. A record
is still a dataclass (``dataclasses.fields``, ``replace``, ``asdict`` work on it, and type
checkers read it as one: ``dataclass_transform``); its methods read the fields at call time:

- ``__init__``: the fields in order, by position or by keyword, defaults and default
  factories as declared, then ``__post_init__`` if the class has one;
- ``__repr__``: ``Name(field=value, ...)`` over the fields with ``repr=True``;
- ``__eq__``: instances of the same class, over the fields with ``compare=True``; ``__hash__``
  the hash of that tuple (the fields' ``hash`` flags as dataclasses read them);
- assigning or deleting an attribute raises ``dataclasses.FrozenInstanceError``.

A class that defines one of these methods itself keeps its own.

>>> from dataclasses import field, replace
>>> @record
... class Point:
...     x: int
...     y: int = 0
...     tags: tuple = field(default_factory=tuple, compare=False)
>>> p = Point(1, y=2)
>>> p, p == Point(1, 2, ("a",)), hash(Point(1)) == hash(Point(1, 0)), replace(p, x=5)
(Point(x=1, y=2, tags=()), True, True, Point(x=5, y=2, tags=()))
>>> p.x = 3
Traceback (most recent call last):
...
dataclasses.FrozenInstanceError: cannot assign to field 'x'
>>> Point()
Traceback (most recent call last):
...
TypeError: Point() missing the argument 'x'
"""
from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from typing import Any, Callable, TypeVar, dataclass_transform

__all__ = ["record"]

T = TypeVar("T", bound=type)


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    plan = type(self).__record_init__
    if len(args) > len(plan):
        raise TypeError(f"{type(self).__name__}() takes {len(plan)} arguments, "
                        f"{len(args)} were given")
    for i, (name, default, factory) in enumerate(plan):
        if i < len(args):
            if name in kwargs:
                raise TypeError(f"{type(self).__name__}() got two values for {name!r}")
            value = args[i]
        elif name in kwargs:
            value = kwargs.pop(name)
        elif default is not MISSING:
            value = default
        elif factory is not MISSING:
            value = factory()
        else:
            raise TypeError(f"{type(self).__name__}() missing the argument {name!r}")
        object.__setattr__(self, name, value)
    if kwargs:
        raise TypeError(f"{type(self).__name__}() got unexpected arguments "
                        f"{', '.join(map(repr, kwargs))}")
    post = getattr(self, "__post_init__", None)
    if post is not None:
        post()


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


def _setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


_SHARED = {"__init__": _init, "__repr__": _repr, "__eq__": _eq, "__hash__": _hash,
           "__setattr__": _setattr, "__delattr__": _delattr}


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: T | None = None, /) -> T | Callable[[T], T]:
    """Make ``cls`` a frozen record (see the module's docstring)."""
    def wrap(c: T) -> T:
        own = {name for name in _SHARED if name in c.__dict__}
        c = dataclass(init=False, repr=False, eq=False)(c)
        c.__record_init__ = tuple((f.name, f.default, f.default_factory)
                                  for f in fields(c) if f.init)
        for name, method in _SHARED.items():
            if name not in own:
                setattr(c, name, method)
        return c

    return wrap if cls is None else wrap(cls)
