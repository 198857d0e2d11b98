"""The package's data files by their text paths, with the :class:`pathlib.Path` constants the
modules publish (``DATA_PATH``, ...) made from them when first asked for.

Importing ``pathlib`` imports ``urllib.parse`` and ``ipaddress``: about 2 ms of each start of
the command line, which reads its data files by their text paths and so imports none of them.
A module keeps its public ``Path`` constants through a module-level ``__getattr__`` made by
:func:`lazy_paths`; :func:`is_file` and :func:`is_dir` answer as ``Path.is_file`` and
``Path.is_dir`` do.

>>> import os
>>> here = data_file(__file__, "paths.py")
>>> here == os.path.realpath(__file__), is_file(here), is_dir(here), is_file(here + "/x")
(True, True, False, False)
>>> getattr_ = lazy_paths({"__name__": "m"}, HERE=here)
>>> getattr_("HERE").name
'paths.py'
"""
from __future__ import annotations

import errno
import os
import stat
from typing import Any, Callable

__all__ = ["data_file", "lazy_paths", "is_file", "is_dir"]

#: The errors ``Path.is_file`` and ``Path.is_dir`` answer False to (pathlib's ``_IGNORED_ERRNOS``
#: on POSIX); any other is raised, as there.
_IGNORED = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def data_file(module_file: str, *parts: str) -> str:
    """``str(Path(module_file).resolve().parent.joinpath(*parts))``, for a module's ``__file__``
    and plain parts (names joined by ``/``, no ``.`` or empty part)."""
    return os.path.join(os.path.dirname(os.path.realpath(module_file)), *parts)


def lazy_paths(namespace: dict[str, Any],
               **paths: str | Callable[[], Any]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` for ``namespace`` (the module's ``globals()``) that gives
    each of ``paths`` as a :class:`pathlib.Path` (or, for a function, what it returns), kept in
    the module once made."""
    def __getattr__(name: str) -> Any:
        if name not in paths:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        from pathlib import Path

        made = paths[name]
        value = namespace[name] = Path(made) if isinstance(made, str) else made()
        return value

    return __getattr__


def _mode(path: str) -> int | None:
    try:
        return os.stat(path).st_mode
    except OSError as e:
        if e.errno not in _IGNORED:
            raise
        return None
    except ValueError:  # a path the system cannot encode (a NUL byte)
        return None


def is_file(path: str) -> bool:
    """``Path(path).is_file()``: False where the path is missing or not a regular file."""
    mode = _mode(path)
    return mode is not None and stat.S_ISREG(mode)


def is_dir(path: str) -> bool:
    """``Path(path).is_dir()``."""
    mode = _mode(path)
    return mode is not None and stat.S_ISDIR(mode)
