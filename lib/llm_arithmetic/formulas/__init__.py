"""Every formula of the book, as sympy expressions registered once each.

* :mod:`~llm_arithmetic.formulas.params` -- parameter counts, per layer kind and whole models
* :mod:`~llm_arithmetic.formulas.memory` -- weights, KV cache, state, what fits
* :mod:`~llm_arithmetic.formulas.flops` -- FLOPs of decode and prefill, arithmetic intensity
* :mod:`~llm_arithmetic.formulas.roofline` -- time bounds, critical batch and context
* :mod:`~llm_arithmetic.formulas.parallel` -- tensor, expert and pipeline parallelism
* :mod:`~llm_arithmetic.formulas.serving` -- prefill, requests, the frontier, speculative
  decoding, cache management, cost and energy
* :mod:`~llm_arithmetic.formulas.stack` -- the pieces a layer stack sums (per part of a layer)
* :mod:`~llm_arithmetic.formulas.engine` -- what a serving engine allocates for its cache
* :mod:`~llm_arithmetic.formulas.vision` -- a vision tower's FLOPs and time over a prompt's images
* :mod:`~llm_arithmetic.formulas.audio` -- an audio encoder's FLOPs over a clip

Importing this package imports them all; :func:`llm_arithmetic.articles.all_formulas`
also imports the articles' own formulas, so the registry is complete.
"""
from .. import numeric
from ..core.registry import bind_numeric
from . import (audio, engine, flops, memory, params, parallel, roofline, serving,  # noqa: F401
               stack, vision)

# A registered formula, called with numbers, runs its generated numeric function: bound here,
# one floor above the registry, which never imports the code generated from it.
bind_numeric(numeric)

__all__ = ["params", "memory", "flops", "roofline", "parallel", "serving", "stack", "engine",
           "vision", "audio"]
