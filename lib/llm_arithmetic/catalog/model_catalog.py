"""The model catalog: the models the book uses, each from a real ``config.json``, as data.

``catalog/data/models.toml`` lists every model with where its config is published, the
published parameter count and its source, and the articles that use it; the configs themselves
are vendored under ``catalog/data/models/<name>/config.json`` (or inline in the TOML for a model
whose config was never published). Every entry is read through the same readers as a user's
file (:mod:`llm_arithmetic.catalog.readers`). Adding a model is adding a file and a table.

>>> get_model("llama-2-7b").total_params
6738415616
>>> get_model("Mistral 7B").kv_cache_bytes_per_token()
131072
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping

from ..core.errors import InputError
from ..core.lookup import lookup
from ..core.paths import data_file, is_file, lazy_paths
from ..core.records import record
from .model import Model
from .readers import read_config

__all__ = ["CatalogEntry", "MODELS", "CATALOG", "FIRST_EDITION", "CURRENT", "get_model", "model_names", "load_catalog",
           "DATA_PATH"]

if TYPE_CHECKING:
    from pathlib import Path

#: The catalog file (package data); its :class:`pathlib.Path`, ``DATA_PATH``, is made when
#: first asked for.
DATA_FILE = data_file(__file__, "data", "models.toml")
__getattr__ = lazy_paths(globals(), DATA_PATH=DATA_FILE)


@record
class CatalogEntry:
    """One catalog model and what the catalog says about it.

    Attributes
    ----------
    model : Model
    url : str
        Where its ``config.json`` is published.
    articles : tuple of str
        Bib keys of the source articles that use it.
    notes : str
    label : str
        Its proper name.
    published_params : int or None
        Total parameters as published.
    published_params_exact : bool
        Whether ``published_params`` is an exact integer (else a rounded figure).
    published_params_source : str
    published_active_params : int or None
        Active parameters as published (mixtures of experts).
    published_active_excludes_input_embedding : bool
        Whether that figure leaves out the input embedding table (gpt-oss's and DeepSeek's
        cards do; Mistral's and Meta's do not).
    config_source : str
        Where the vendored config's text comes from.
    group : str
        ``"first edition"`` (the source articles' models and the first chapters') or
        ``"current"``.
    """

    model: Model
    url: str
    articles: tuple[str, ...] = ()
    notes: str = ""
    label: str = ""
    published_params: int | None = None
    published_params_exact: bool = False
    published_params_source: str = ""
    published_active_params: int | None = None
    published_active_excludes_input_embedding: bool = False
    config_source: str = ""
    group: str = "current"


_FIELDS = {"url", "articles", "notes", "label", "config", "published_params",
           "published_params_exact", "published_params_source", "published_active_params",
           "config_source", "hf_repo", "published_active_excludes_input_embedding", "group"}


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # a user's file; the catalog's own is compiled to JSON

    try:
        return tomllib.loads(path.read_text(encoding="utf-8")).get("models", {})
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path.name}: malformed TOML: {e}") from None


def _entry(path: str | Path, name: str, d: Mapping[str, Any]) -> CatalogEntry:
    """One model of a catalog file: ``path``, the catalog's text path (:data:`DATA_FILE`) or a
    user's file as a :class:`pathlib.Path`."""
    where = f"{os.path.basename(path)}: models.{name}"
    unknown = set(d) - _FIELDS
    if unknown:
        raise InputError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    if "url" not in d or "config" not in d:
        raise InputError(f"{where}: needs 'url' and 'config'")
    config: Any = d["config"]
    if isinstance(config, str) and isinstance(path, str):  # the catalog's own (plain) names
        config = os.path.join(os.path.dirname(path), "models", config)
        if not is_file(config):
            raise InputError(f"{where}.config: no file {config}")
    elif isinstance(config, str):
        config = path.parent / "models" / config
        if not config.is_file():
            raise InputError(f"{where}.config: no file {config}")
    model = read_config(config, name=name, source=d["url"])
    label = d.get("label", "")
    if label:
        model = replace(model, label=label)
    return CatalogEntry(
        model=model, url=d["url"], articles=tuple(d.get("articles", ())),
        notes=d.get("notes", ""), label=label,
        published_params=d.get("published_params"),
        published_params_exact=bool(d.get("published_params_exact", False)),
        published_params_source=d.get("published_params_source", ""),
        published_active_params=d.get("published_active_params"),
        published_active_excludes_input_embedding=bool(
            d.get("published_active_excludes_input_embedding", False)),
        config_source=d.get("config_source", ""), group=d.get("group", "current"))


def load_catalog(path: str | Path | None = None) -> dict[str, CatalogEntry]:
    """Every model of a catalog TOML file, read through the config readers; an
    :class:`~llm_arithmetic.core.errors.InputError` names the file, model and field of a
    problem."""
    from pathlib import Path

    path = Path(path if path is not None else DATA_FILE)
    return {name: _entry(path, name, d) for name, d in _read_toml(path).items()}


class _Lazy(Mapping):
    """The catalog, read on first use and each model's config only when it is asked for (the
    command line reads one model; the book's tables read them all)."""

    def __init__(self, select: Any = None, value: Any = None):
        self._select = select or (lambda d: True)
        self._value = value or (lambda e: e)

    _raw: dict[str, Any] | None = None
    _built: dict[str, CatalogEntry] = {}

    @classmethod
    def _table(cls) -> dict[str, Any]:
        if _Lazy._raw is None:  # compiled from models.toml (see catalog/compiled.py)
            from .compiled import load

            _Lazy._raw = load("models")["models"]
        return _Lazy._raw

    @classmethod
    def _get(cls, name: str) -> CatalogEntry:
        if name not in _Lazy._built:
            _Lazy._built[name] = _entry(DATA_FILE, name, cls._table()[name])
        return _Lazy._built[name]

    def _keys(self) -> list[str]:
        return [k for k, d in self._table().items() if self._select(d)]

    def __getitem__(self, name: str) -> Any:
        if name not in self:
            raise KeyError(name)
        return self._value(self._get(name))

    def __iter__(self):
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def __contains__(self, name: object) -> bool:
        d = self._table().get(name) if isinstance(name, str) else None
        return d is not None and bool(self._select(d))

    def __repr__(self) -> str:
        return f"<catalog of {len(self)} models>"


#: The catalog: name -> :class:`CatalogEntry`, in catalog order.
CATALOG: Mapping[str, CatalogEntry] = _Lazy()
#: name -> :class:`~llm_arithmetic.catalog.model.Model`.
MODELS: Mapping[str, Model] = _Lazy(value=lambda e: e.model)
#: The first edition's models (the source articles' and the first chapters'), in catalog order.
FIRST_EDITION: Mapping[str, CatalogEntry] = _Lazy(
    select=lambda d: d.get("group", "current") == "first edition")
#: The models of 2025-2026 the catalog adds.
CURRENT: Mapping[str, CatalogEntry] = _Lazy(
    select=lambda d: d.get("group", "current") == "current")


def model_names() -> list[str]:
    """Catalog keys in catalog order."""
    return list(MODELS)


def get_model(name: str | Model) -> Model:
    """A catalog model by key (case-insensitive, spaces as dashes); a :class:`Model` is
    returned as it is. An :class:`~llm_arithmetic.core.errors.InputError` names close matches
    for an unknown name."""
    if isinstance(name, Model):
        return name
    return lookup("model", name, MODELS)
