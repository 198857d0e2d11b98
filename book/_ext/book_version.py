"""Sphinx extension: the package's version in the book, never typed.

Sets the MyST substitution `{{ version }}` (used on the start page, book/intro.md) and Sphinx's
`version`/`release` to `llm_arithmetic.__version__`, the one version of the project (the wheel
reads the same attribute). Registered in _config.yml under `sphinx.local_extensions`.
"""
from __future__ import annotations


def package_version() -> str:
    import llm_arithmetic
    return llm_arithmetic.__version__


def substitutions(config) -> dict[str, str]:
    """MyST's substitutions with `version` set (any others from the configuration kept)."""
    return {**(getattr(config, "myst_substitutions", None) or {}), "version": package_version()}


def _config_inited(app, config):
    config.myst_substitutions = substitutions(config)
    config.version = config.release = package_version()


def setup(app):
    # after myst-parser registered `myst_substitutions`, before it reads its configuration
    app.connect("config-inited", _config_inited)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
