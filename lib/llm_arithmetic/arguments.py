"""The checks of the arguments that :func:`~llm_arithmetic.estimate.estimate` and its callers
share (the deployment search, the engine view, the forecast, the command line): a model by name
or path, counts, lengths and the serving figures, each refused by an
:class:`~llm_arithmetic.core.errors.InputError` that names it, and the warning of a context
beyond the one the model was trained for.

Units are those of the package: counts [-], tokens [token], bandwidth [B/s], rates [FLOP/s],
memory [B], price [USD/h], power [W].

>>> count_argument("context", 4096), serving_argument("power_watts", 700)
(4096, 700.0)
"""
from __future__ import annotations

import math
import sys
import warnings
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np

from .catalog.images import IMAGES_LIMIT
from .catalog.model import Model
from .catalog.model_catalog import MODELS, get_model
from .catalog.readers import read_config
from .core.errors import InputError
from .core.paths import is_file

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["LIMITS", "SERVING_RANGES", "ContextWarning", "resolve_model", "count_argument",
           "generated_argument", "number_argument", "rate_argument", "serving_argument",
           "warn_past_trained_context"]

#: Largest context and batch accepted: beyond any trained context and any memory.
LIMITS = {"context": 1 << 32, "batch": 1 << 31, "prompt": 1 << 32, "generate": 1 << 32,
          "tp": 1 << 16, "ep": 1 << 16, "pp": 1 << 16, "draft_len": 1 << 10,
          "node_limit": 1 << 16, "images": IMAGES_LIMIT}


#: Plausible ranges of the serving figures: (low, high, unit, the reason for the upper limit);
#: :func:`serving_argument` checks them and the page's widgets read them.
SERVING_RANGES = {
    "price_per_hour": (1e-4, 1e4, "USD/h", "no chip rents for more than $10,000 an hour"),
    "power_watts": (0.1, 1e5, "W", "no single chip draws 100 kW"),
    "link_bandwidth": (1e6, 1e15, "B/s", "no link moves a petabyte per second"),
}


#: Smallest plausible values of rates and sizes in the package's units; a smaller figure is
#: almost certainly in the wrong unit (GB/s for B/s, TFLOP/s for FLOP/s, GB for B).
_PLAUSIBLE_MIN = {"bandwidth": (1e6, "B/s", "GB/s: multiply by 1e9"),
                  "peak_flops": (1e6, "FLOP/s", "TFLOP/s: multiply by 1e12"),
                  "capacity": (1e6, "B", "GB: multiply by 1e9 (or GiB by 2**30)")}


class ContextWarning(UserWarning):
    """A context beyond the one the model was trained for."""


def resolve_model(model: str | Path | Model) -> Model:
    """A :class:`Model` from a model, a catalog name, or a path to a ``config.json``."""
    if isinstance(model, Model):
        return model
    pathlib = sys.modules.get("pathlib")  # a Path exists only once pathlib is imported
    if pathlib is not None and isinstance(model, pathlib.Path):
        return read_config(model)
    if not isinstance(model, str):
        raise InputError(f"model must be a Model, a catalog name or a path to a config.json, "
                         f"got {type(model).__name__}")
    if model == "-" or model.endswith(".json") or "/" in model or is_file(model):
        if model not in MODELS:
            return read_config(model)
    return get_model(model)


def count_argument(label: str, v: Any) -> int:
    """A positive integer argument named ``label`` (a key of :data:`LIMITS`), as
    :func:`~llm_arithmetic.estimate.estimate` checks it: NumPy integers and whole floats accepted
    and returned as an ``int``; zero, a fraction, a bool or a value beyond its limit is an
    :class:`InputError` naming it.

    >>> count_argument("batch", np.int64(8)), count_argument("context", 4096.0)
    (8, 4096)
    >>> count_argument("tp", 0)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp must be a positive integer, got 0
    >>> count_argument("batch", 2.5)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: batch must be a positive integer, got 2.5
    """
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (Integral, np.integer)):
        if isinstance(v, (float, np.floating)) and float(v).is_integer():
            v = int(v)
        else:
            raise InputError(f"{label} must be a positive integer, got {v!r:.40}")
    v = int(v)
    if v <= 0:
        raise InputError(f"{label} must be a positive integer, got {v}")
    if v > LIMITS[label]:
        raise InputError(f"{label} = {v:.3g} is beyond the limit {LIMITS[label]:,} "
                         f"(no model or memory holds more)")
    return v


def generated_argument(generate: Any) -> int:
    """Tokens generated after the first (``generate``), as
    :func:`~llm_arithmetic.estimate.estimate` checks it: 0 (a request of one token) or a positive
    integer (:func:`count_argument`), else an :class:`InputError`.

    >>> generated_argument(0), generated_argument(np.int32(255))
    (0, 255)
    >>> generated_argument(-1)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: generate must be 0 or a positive integer, got -1
    """
    if isinstance(generate, (Integral, np.integer)) and not isinstance(generate, bool) \
            and generate <= 0:
        if generate < 0:
            raise InputError(f"generate must be 0 or a positive integer, got {generate}")
        return 0
    return count_argument("generate", generate)


def number_argument(label: str, v: Any) -> float:
    """``v`` as a float, or an :class:`InputError` naming ``label`` (the speculative inputs'
    ``acceptance`` and ``draft_cost`` [-], the serving figures before their ranges).

    >>> number_argument("acceptance", "0.5")
    0.5
    >>> number_argument("draft_cost", "fast")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: draft_cost must be a number, got 'fast'
    """
    try:
        return float(v)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{label} must be a number, got {v!r:.40}") from None


def rate_argument(label: str, v: Any) -> float | None:
    """A chip's figure given by hand, as :func:`~llm_arithmetic.estimate.estimate` checks it:
    ``bandwidth`` [B/s], ``peak_flops`` [FLOP/s] or ``capacity`` [B] (a key of
    ``_PLAUSIBLE_MIN``). None stays None; else a positive finite float, at least the smallest
    plausible figure in the package's unit (a smaller one is almost certainly in GB/s, TFLOP/s
    or GB) and at most 1e21, or an :class:`InputError` naming the figure and its unit.

    >>> rate_argument("bandwidth", 3.35e12), rate_argument("capacity", None)
    (3350000000000.0, None)
    >>> rate_argument("bandwidth", 3350)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: bandwidth is in B/s; 3350 B/s is implausibly small (a figure in GB/s: multiply by 1e9)
    """
    if v is None:
        return None
    x = number_argument(label, v)
    if not x > 0 or not math.isfinite(x):
        raise InputError(f"{label} must be a positive finite number, got {v!r:.40}")
    low, unit, hint = _PLAUSIBLE_MIN[label]
    if x < low:
        raise InputError(f"{label} is in {unit}; {x:g} {unit} is implausibly small (a figure "
                         f"in {hint})")
    if x > 1e21:
        raise InputError(f"{label} = {x:.3g} {unit} is beyond any chip (limit 1e21)")
    return x


def serving_argument(label: str, v: Any) -> float | None:
    """A serving figure (``price_per_hour`` [USD/h], ``power_watts`` [W] or
    ``link_bandwidth`` [B/s]) as :func:`~llm_arithmetic.estimate.estimate` checks it: None stays
    None, else a positive finite float within the figure's plausible range, or an
    :class:`InputError` that names the figure and its unit.

    >>> serving_argument("price_per_hour", 2), serving_argument("power_watts", None)
    (2.0, None)
    >>> serving_argument("link_bandwidth", 900)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: link_bandwidth = 900 B/s is implausibly small (the unit is B/s)
    """
    if v is None:
        return None
    x = number_argument(label, v)
    low, high, unit, why = SERVING_RANGES[label]
    if not math.isfinite(x) or x <= 0:
        raise InputError(f"{label} must be a positive finite number [{unit}], got {v!r:.40}")
    if x < low:
        raise InputError(f"{label} = {x:g} {unit} is implausibly small (the unit is {unit})")
    if x > high:
        raise InputError(f"{label} = {x:.3g} {unit} is beyond the plausibility limit "
                         f"{high:g} ({why})")
    return x


def warn_past_trained_context(m: Model, prompt: int | None, generate: int | None,
                              stacklevel: int = 2) -> None:
    """A :class:`ContextWarning` where a request of ``prompt`` tokens that generates
    ``generate`` more runs past the model's trained context."""
    g = generate if generate is not None else 0
    if prompt is not None and m.trained_context and prompt + g > m.trained_context:
        warnings.warn(f"prompt + generate = {prompt + g:,} tokens is beyond {m.name}'s trained "
                      f"context {m.trained_context:,}", ContextWarning, stacklevel=stacklevel)
