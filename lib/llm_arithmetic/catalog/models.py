"""The model catalog: the models the book uses, each from a real ``config.json``, as data.

``catalog/data/models.toml`` lists every model with where its config is published, the
published parameter count and its source, and the articles that use it; the configs themselves
are vendored under ``catalog/data/models/<name>/config.json`` (or inline in the TOML for a model
whose config was never published). Every entry is read through the same readers as a user's
file (:mod:`llm_arithmetic.catalog.readers`). Adding a model is adding a file and a table.

>>> get_model("llama-2-7b").total_params
6738415616
>>> get_model("Mistral 7B").kv_bytes_per_token()
131072
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from ..core.errors import InputError
from ..core.lookup import lookup
from .model import Model
from .readers import read_config

__all__ = ["CatalogEntry", "MODELS", "CATALOG", "FIRST_EDITION", "CURRENT", "get_model", "model_names", "load_catalog",
           "DATA_PATH"]

#: The catalog file (package data).
DATA_PATH: Path = Path(__file__).resolve().parent / "data" / "models.toml"


@dataclass(frozen=True)
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


def load_catalog(path: str | Path | None = None) -> dict[str, CatalogEntry]:
    """Every model of a catalog TOML file, read through the config readers; an
    :class:`~llm_arithmetic.core.errors.InputError` names the file, model and field of a
    problem."""
    path = Path(path) if path is not None else DATA_PATH
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path.name}: malformed TOML: {e}") from None
    out: dict[str, CatalogEntry] = {}
    for name, d in data.get("models", {}).items():
        where = f"{path.name}: models.{name}"
        unknown = set(d) - _FIELDS
        if unknown:
            raise InputError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        if "url" not in d or "config" not in d:
            raise InputError(f"{where}: needs 'url' and 'config'")
        config: Any = d["config"]
        if isinstance(config, str):
            config = path.parent / "models" / config
            if not config.is_file():
                raise InputError(f"{where}.config: no file {config}")
        model = read_config(config, name=name, source=d["url"])
        label = d.get("label", "")
        if label:
            from dataclasses import replace
            model = replace(model, label=label)
        out[name] = CatalogEntry(
            model=model, url=d["url"], articles=tuple(d.get("articles", ())),
            notes=d.get("notes", ""), label=label,
            published_params=d.get("published_params"),
            published_params_exact=bool(d.get("published_params_exact", False)),
            published_params_source=d.get("published_params_source", ""),
            published_active_params=d.get("published_active_params"),
            published_active_excludes_input_embedding=bool(
                d.get("published_active_excludes_input_embedding", False)),
            config_source=d.get("config_source", ""), group=d.get("group", "current"))
    return out


CATALOG: Mapping[str, CatalogEntry] = MappingProxyType(load_catalog())
MODELS: Mapping[str, Model] = MappingProxyType({k: v.model for k, v in CATALOG.items()})
#: The first edition's models (the source articles' and the first chapters'), in catalog order.
FIRST_EDITION: Mapping[str, CatalogEntry] = MappingProxyType(
    {k: v for k, v in CATALOG.items() if v.group == "first edition"})
#: The models of 2025-2026 the catalog adds.
CURRENT: Mapping[str, CatalogEntry] = MappingProxyType(
    {k: v for k, v in CATALOG.items() if v.group == "current"})


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
