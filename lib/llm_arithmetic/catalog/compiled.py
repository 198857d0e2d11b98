"""The catalogs' TOML files (what people edit) compiled to one JSON file (what the package reads).

Python's TOML parser is written in Python and takes tens of milliseconds on the hardware
catalog; the JSON parser is written in C. ``data/compiled.json`` holds exactly what ``tomllib``
reads from ``hardware.toml``, ``formats.toml`` and ``models.toml``, and the package reads only
it. ``python -m tools.generate`` rewrites it with the generated code, and a test
fails when it is stale, as for the generated numeric module.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["SOURCES", "COMPILED", "compile_source", "write", "load"]

DATA = Path(__file__).resolve().parent / "data"
#: The edited files, by key of the compiled file.
SOURCES = {"hardware": DATA / "hardware.toml", "formats": DATA / "formats.toml",
           "models": DATA / "models.toml"}
COMPILED = DATA / "compiled.json"


def compile_source() -> str:
    """The text of ``compiled.json``, from the TOML files."""
    import tomllib  # only when compiling: the package reads the JSON

    data = {key: tomllib.loads(path.read_text(encoding="utf-8"))
            for key, path in SOURCES.items()}
    return json.dumps(data, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def write() -> Path:
    COMPILED.write_text(compile_source(), encoding="utf-8")
    return COMPILED


@lru_cache(maxsize=None)
def _compiled() -> dict[str, Any]:
    return json.loads(COMPILED.read_text(encoding="utf-8"))


def load(key: str) -> Any:
    """One catalog (``"hardware"``, ``"formats"`` or ``"models"``) as ``tomllib`` reads it (the
    file is parsed once for all three)."""
    return _compiled()[key]
