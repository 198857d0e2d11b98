"""The package's errors: each says in one line what is wrong and names the field or argument."""
from __future__ import annotations

__all__ = ["ConfigError", "InputError"]


class InputError(ValueError):
    """An argument the package cannot use (out of range, wrong unit, unknown name)."""


class ConfigError(InputError):
    """A model configuration that cannot describe a model; the message names the field."""
