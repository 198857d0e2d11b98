"""llm_arithmetic: the formulas of LLM inference, as sympy expressions and numeric functions.

Each quantity is one sympy expression (``UPPER_CASE``) paired with a numeric function
(``snake_case``, keyword arguments, exact on Python integers, vectorized on NumPy arrays):

* :mod:`~llm_arithmetic.params` -- parameter counts (GPT-style and exact, MoE total/active)
* :mod:`~llm_arithmetic.memory` -- weight and KV-cache bytes, what fits
* :mod:`~llm_arithmetic.flops` -- FLOPs of decode and prefill, arithmetic intensity
* :mod:`~llm_arithmetic.roofline` -- time bounds, critical batch size, generation time
* :mod:`~llm_arithmetic.models`, :mod:`~llm_arithmetic.model_catalog` -- architectures,
  Hugging Face configs, the articles' models
* :mod:`~llm_arithmetic.hardware` -- chips with sourced bandwidth, capacity and peak rates
* :mod:`~llm_arithmetic.estimate` -- all of it for one model on one chip
* :mod:`~llm_arithmetic.units` -- GB vs GiB, bits per weight of named formats

>>> from llm_arithmetic import get_model, get_hardware, estimate
>>> e = estimate(get_model("mistral-7b"), hardware=get_hardware("rtx-4090"))
>>> round(e.decode_seconds_per_token * 1e3, 1)
14.1
"""
from __future__ import annotations

from ._formula import FORMULAS, Formula
from .estimate import Estimate, estimate
from .hardware import HARDWARE, Hardware, Peak, get_hardware, hardware_names
from .model_catalog import MODELS, get_model, model_names
from .models import ConfigError, Model
from .symbols import GLOSSARY
from .units import BITS_PER_WEIGHT, GB, GiB, bits_per_weight

__version__ = "0.1.0"

__all__ = [
    "FORMULAS", "Formula", "Estimate", "estimate", "HARDWARE", "Hardware", "Peak",
    "get_hardware", "hardware_names", "MODELS", "get_model", "model_names", "ConfigError",
    "Model", "GLOSSARY", "BITS_PER_WEIGHT", "GB", "GiB", "bits_per_weight", "__version__",
]
