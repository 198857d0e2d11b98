"""The catalogs' TOML files (what people edit) compiled to one JSON file (what the package reads).

Python's TOML parser is written in Python and takes tens of milliseconds on the hardware
catalog; the JSON parser is written in C. ``data/compiled.json`` holds exactly what ``tomllib``
reads from ``hardware.toml``, ``formats.toml``, ``models.toml`` and ``engines.toml``, and the
package reads only it. ``python -m tools.generate`` rewrites it with the generated code, and a test
fails when it is stale, as for the generated numeric module.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..core.paths import data_file, lazy_paths

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["SOURCES", "COMPILED", "compile_source", "write", "load"]

#: The compiled file's text path, what the package reads.
COMPILED_FILE = data_file(__file__, "data", "compiled.json")


def _sources() -> dict[str, Path]:
    """The edited files, by key of the compiled file."""
    from pathlib import Path

    data = Path(data_file(__file__, "data"))
    return {"hardware": data / "hardware.toml", "formats": data / "formats.toml",
            "models": data / "models.toml", "engines": data / "engines.toml"}


#: ``DATA`` (the folder), ``SOURCES`` (the edited files, by key of the compiled file) and
#: ``COMPILED`` as :class:`pathlib.Path`, made when first asked for (:mod:`..core.paths`).
__getattr__ = lazy_paths(globals(), DATA=data_file(__file__, "data"), SOURCES=_sources,
                         COMPILED=COMPILED_FILE)


def compile_source() -> str:
    """The text of ``compiled.json``, from the TOML files."""
    import tomllib  # only when compiling: the package reads the JSON

    data = {key: tomllib.loads(path.read_text(encoding="utf-8"))
            for key, path in _sources().items()}
    return json.dumps(data, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def write() -> Path:
    from pathlib import Path

    path = Path(COMPILED_FILE)
    path.write_text(compile_source(), encoding="utf-8")
    return path


@lru_cache(maxsize=None)
def _compiled() -> dict[str, Any]:
    with open(COMPILED_FILE, encoding="utf-8") as fh:
        return json.loads(fh.read())


def load(key: str) -> Any:
    """One catalog (``"hardware"``, ``"formats"``, ``"models"`` or ``"engines"``) as ``tomllib``
    reads it (the file is parsed once for all)."""
    return _compiled()[key]
