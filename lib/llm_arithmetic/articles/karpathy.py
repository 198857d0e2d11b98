r"""Karpathy's note on "How is LLaMa.cpp possible?": its inputs and its two-chip ratios.

The note (bib key ``karpathy2023note``) compares an A100 with an M2 MacBook in three ratios: peak
compute (":math:`\sim`\ 200X"), memory bandwidth (":math:`\sim`\ 20X") and, from the two, how much
better the laptop does at batch size 1 than the compute ratio would suggest
(":math:`\sim`\ 10X faster than you might naively expect"). Those ratios are article-specific and
are defined here; everything else (tokens per second, the critical batch size) comes from the
package's own formulas.

* :func:`compute_ratio` -- :math:`\pi_A / \pi_B`
* :func:`bandwidth_ratio` -- :math:`\beta_A / \beta_B`, also the note's batch-1 slowdown
* :func:`naive_gain` -- :math:`(\pi_A / \pi_B) / (\beta_A / \beta_B)`: the ratio of the two
  chips' ops:byte ratios
* :func:`compute_bound_context_limit` -- the context beyond which decode never turns
  compute-bound, whatever the batch: the package's
  :func:`~llm_arithmetic.roofline.critical_context`

Chip A is the large one (the A100), chip B the small one (the M2). The symbols of the two chips
are added to the package's glossary under the names of the keyword arguments.

>>> round(compute_ratio(peak_flops_a=A100_OPS, peak_flops_b=M2_FLOPS), 1)
178.3
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from .._formula import Formula, register
from .. import roofline as _roofline
from .. import symbols as _symbols

__all__ = [
    "A100_BANDWIDTH", "A100_OPS", "M2_BANDWIDTH", "M2_FLOPS", "COMPUTE_RATIO_CLAIM",
    "BANDWIDTH_RATIO_CLAIM", "SLOWDOWN_CLAIM", "NAIVE_GAIN_CLAIM", "CRITICAL_BATCH_CLAIM",
    "UTILIZATION_CLAIM", "MACBOOK_TOKENS_PER_S", "FINBARR_CRITICAL_BATCH",
    "COMPUTE_RATIO", "BANDWIDTH_RATIO", "NAIVE_GAIN", "COMPUTE_BOUND_CONTEXT_LIMIT",
    "compute_ratio", "bandwidth_ratio", "naive_gain", "compute_bound_context_limit",
    "bandwidth_a", "bandwidth_b", "peak_flops_a", "peak_flops_b",
]

# --- the note's stated inputs ---------------------------------------------------------------
#: [B/s] "A100: 1935 GB/s memory bandwidth, 1248 TOPS" (the 80GB PCIe card's bandwidth).
A100_BANDWIDTH = 1935e9
#: [OP/s] the same sentence: 1248 TOPS, precision not named (the A100's dense INT4 rate).
A100_OPS = 1248e12
#: [B/s] "MacBook M2: 100 GB/s, 7 TFLOPS".
M2_BANDWIDTH = 100e9
#: [FLOP/s] the same sentence: 7 TFLOPS, precision not named.
M2_FLOPS = 7e12

# --- the note's stated results (as printed, without the "~") ------------------------------------
#: "The compute is ~200X ..."
COMPUTE_RATIO_CLAIM = 200
#: "... but the memory bandwidth only ~20X."
BANDWIDTH_RATIO_CLAIM = 20
#: "... the little M2 chip that could will only be about ~20X slower than a mighty A100."
SLOWDOWN_CLAIM = 20
#: "This is ~10X faster than you might naively expect just looking at ops."
NAIVE_GAIN_CLAIM = 10
#: "... when you inference at a very high batch size (e.g. ~160+) ..."
CRITICAL_BATCH_CLAIM = 160
#: "... reach ~50%+ utilization ..." (a claim about achieved efficiency, not a calculation).
UTILIZATION_CLAIM = 0.5
#: [token/s] "7B runs @ ~16 tok/s on a MacBook" (a measurement the note quotes).
MACBOOK_TOKENS_PER_S = 16
#: finbarr's post, which the note discusses: "as long as the batch size is less than 161, the
#: model is memory-bound" (A100, fp16).
FINBARR_CRITICAL_BATCH = 161


def _symbol(name: str, latex: str, description: str, unit: str) -> sp.Symbol:
    """The glossary's symbol ``name`` (positive, real), defined if it is not there yet."""
    return _symbols.define(name, latex, description, unit, positive=True, real=True)


bandwidth_a = _symbol("bandwidth_a", r"\beta_{A}", "memory bandwidth of chip A (the larger one, "
                      "in a two-chip comparison)", "B/s")
bandwidth_b = _symbol("bandwidth_b", r"\beta_{B}", "memory bandwidth of chip B (the smaller one)",
                      "B/s")
peak_flops_a = _symbol("peak_flops_a", r"\pi_{A}", "peak arithmetic rate of chip A", "FLOP/s")
peak_flops_b = _symbol("peak_flops_b", r"\pi_{B}", "peak arithmetic rate of chip B", "FLOP/s")

#: How many times the compute of chip A is that of chip B.
COMPUTE_RATIO = peak_flops_a / peak_flops_b
#: How many times the bandwidth of chip A is that of chip B; at batch 1, when both chips are
#: memory-bound and read the same bytes, also how many times slower chip B is.
BANDWIDTH_RATIO = bandwidth_a / bandwidth_b
#: The note's "faster than you might naively expect": the naive slowdown (the compute ratio)
#: over the memory-bound one (the bandwidth ratio).
NAIVE_GAIN = COMPUTE_RATIO / BANDWIDTH_RATIO
#: Context beyond which no batch size makes a decode step compute-bound: the package's
#: :data:`llm_arithmetic.roofline.CRITICAL_CONTEXT` (:math:`S_\infty`), the note's "batch size
#: around which serving turns compute-bound" read along the context axis.
COMPUTE_BOUND_CONTEXT_LIMIT = _roofline.CRITICAL_CONTEXT

_F_CR = Formula("karpathy_compute_ratio", COMPUTE_RATIO, (peak_flops_a, peak_flops_b), "1")
_F_BR = Formula("karpathy_bandwidth_ratio", BANDWIDTH_RATIO, (bandwidth_a, bandwidth_b), "1")
_F_NG = Formula("karpathy_naive_gain", NAIVE_GAIN,
                (peak_flops_a, bandwidth_a, peak_flops_b, bandwidth_b), "1")


@register(_F_CR)
def compute_ratio(*, peak_flops_a: Any, peak_flops_b: Any) -> Any:
    r"""How many times the peak rate of chip A is that of chip B [-].

    .. math:: r_{\pi} = \frac{\pi_A}{\pi_B}

    Parameters
    ----------
    peak_flops_a, peak_flops_b : float or array
        Peak rates of the two chips [FLOP/s] (or [OP/s]); the ratio only means something when
        both are rates of the same kind of arithmetic.

    Examples
    --------
    The note's figures, 1248 TOPS (A100, INT4) over 7 TFLOPS (M2, float): its "~200X".

    >>> round(compute_ratio(peak_flops_a=1248e12, peak_flops_b=7e12), 1)
    178.3
    """
    return _F_CR(peak_flops_a, peak_flops_b)


@register(_F_BR)
def bandwidth_ratio(*, bandwidth_a: Any, bandwidth_b: Any) -> Any:
    r"""How many times the memory bandwidth of chip A is that of chip B [-].

    At batch size 1 both chips are memory-bound and read the same bytes per token, so this is
    also how many times slower chip B generates tokens.

    .. math:: r_{\beta} = \frac{\beta_A}{\beta_B}

    Parameters
    ----------
    bandwidth_a, bandwidth_b : float or array
        Memory bandwidths of the two chips [B/s]

    Examples
    --------
    A100 (1935 GB/s) over M2 (100 GB/s): the note's "~20X".

    >>> round(bandwidth_ratio(bandwidth_a=1935e9, bandwidth_b=100e9), 2)
    19.35
    """
    return _F_BR(bandwidth_a, bandwidth_b)


@register(_F_NG)
def naive_gain(*, peak_flops_a: Any, bandwidth_a: Any, peak_flops_b: Any,
               bandwidth_b: Any) -> Any:
    r"""How much faster chip B is at batch 1 than its compute ratio suggests [-].

    The naive expectation is that chip B is :math:`\pi_A/\pi_B` times slower; memory-bound, it
    is :math:`\beta_A/\beta_B` times slower. The quotient is the ratio of the chips' ops:byte
    ratios:

    .. math:: g = \frac{\pi_A / \pi_B}{\beta_A / \beta_B}
              = \frac{\pi_A / \beta_A}{\pi_B / \beta_B}

    Parameters
    ----------
    peak_flops_a, peak_flops_b : float or array
        Peak rates of the two chips, of the same kind of arithmetic [FLOP/s]
    bandwidth_a, bandwidth_b : float or array
        Memory bandwidths of the two chips [B/s]

    Examples
    --------
    The note's own figures give its "~10X":

    >>> round(naive_gain(peak_flops_a=1248e12, bandwidth_a=1935e9, peak_flops_b=7e12,
    ...                  bandwidth_b=100e9), 2)
    9.21
    """
    return _F_NG(peak_flops_a, bandwidth_a, peak_flops_b, bandwidth_b)


#: The same function as :func:`llm_arithmetic.roofline.critical_context`, under the name the
#: reproduction of the note uses.
compute_bound_context_limit = _roofline.critical_context
