r"""Karpathy's note on "How is LLaMa.cpp possible?": its inputs and its two-chip ratios.

The note (bib key ``karpathy2023note``) compares an A100 with an M2 MacBook in three ratios: peak
compute (":math:`\sim`\ 200X"), memory bandwidth (":math:`\sim`\ 20X") and, from the two, how much
better the laptop does at batch size 1 than the compute ratio would suggest
(":math:`\sim`\ 10X faster than you might naively expect"). Those ratios are article-specific and
are defined here; everything else (tokens per second, the critical batch size) comes from the
package's own formulas.

* :data:`karpathy_compute_ratio` -- :math:`R_A / R_B`
* :data:`karpathy_bandwidth_ratio` -- :math:`\beta_A / \beta_B`, also the note's batch-1
  slowdown
* :data:`karpathy_naive_gain` -- :math:`(R_A / R_B) / (\beta_A / \beta_B)`: the ratio of the
  two chips' ops:byte ratios
* the context beyond which decode never turns compute-bound, whatever the batch, is the book's
  :data:`~llm_arithmetic.formulas.roofline.critical_context`

Chip A is the large one (the A100), chip B the small one (the M2).

>>> round(karpathy_compute_ratio(peak_flops_a=A100_OPS, peak_flops_b=M2_FLOPS), 1)
178.3
"""
from __future__ import annotations

from ..core.registry import formula

__all__ = [
    "A100_BANDWIDTH", "A100_OPS", "M2_BANDWIDTH", "M2_FLOPS", "COMPUTE_RATIO_CLAIM",
    "BANDWIDTH_RATIO_CLAIM", "SLOWDOWN_CLAIM", "NAIVE_GAIN_CLAIM", "CRITICAL_BATCH_CLAIM",
    "UTILIZATION_CLAIM", "MACBOOK_TOKENS_PER_S", "FINBARR_CRITICAL_BATCH",
    "karpathy_compute_ratio", "karpathy_bandwidth_ratio", "karpathy_naive_gain",
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


# --- the note's arithmetic ---------------------------------------------------------------------


@formula("compute_ratio")
def karpathy_compute_ratio(*, peak_flops_a, peak_flops_b):
    """How many times the peak rate of chip A is that of chip B.

    The ratio only means something when both are rates of the same kind of arithmetic.

    Examples
    --------
    The note's figures, 1248 TOPS (A100, INT4) over 7 TFLOPS (M2, float): its "~200X".

    >>> round(karpathy_compute_ratio(peak_flops_a=1248e12, peak_flops_b=7e12), 1)
    178.3
    """
    return peak_flops_a / peak_flops_b


@formula("bandwidth_ratio")
def karpathy_bandwidth_ratio(*, bandwidth_a, bandwidth_b):
    """How many times the memory bandwidth of chip A is that of chip B.

    At batch size 1 both chips are memory-bound and read the same bytes per token, so this is
    also how many times slower chip B generates tokens.

    Examples
    --------
    A100 (1935 GB/s) over M2 (100 GB/s): the note's "~20X".

    >>> round(karpathy_bandwidth_ratio(bandwidth_a=1935e9, bandwidth_b=100e9), 2)
    19.35
    """
    return bandwidth_a / bandwidth_b


@formula("naive_gain")
def karpathy_naive_gain(*, peak_flops_a, bandwidth_a, peak_flops_b, bandwidth_b):
    """How much faster chip B is at batch 1 than its compute ratio suggests.

    The naive expectation is that chip B is R_A / R_B times slower; memory-bound, it is
    beta_A / beta_B times slower. The quotient is the ratio of the chips' ops:byte ratios.

    Examples
    --------
    The note's own figures give its "~10X":

    >>> round(karpathy_naive_gain(peak_flops_a=1248e12, bandwidth_a=1935e9,
    ...                           peak_flops_b=7e12, bandwidth_b=100e9), 2)
    9.21
    """
    return (karpathy_compute_ratio(peak_flops_a=peak_flops_a, peak_flops_b=peak_flops_b)
            / karpathy_bandwidth_ratio(bandwidth_a=bandwidth_a, bandwidth_b=bandwidth_b))
