r"""finbarr's "How is LLaMa.cpp possible?": its inputs, its published numbers and its formulas.

The post (bib key ``finbarr2023llamacpp``; the text of 2023-03-17 to 2023-08-31) writes the
latency of one decode step as

.. math:: t_{model} = \max(t_{compute}, t_{memory}), \quad
          t_{memory} = \frac{2 P\, n_{bytes} B}{\beta_{mem}}, \quad
          t_{compute} = \frac{2 P}{R_{peak}}

with :math:`n_{bytes}` the bytes per parameter and :math:`B` the batch size. Two things in
:math:`t_{memory}` differ from the package's roofline
(:data:`llm_arithmetic.formulas.roofline.decode_step_time`): the leading 2, which is kipply's two bytes
per 16-bit parameter (kipply, "Transformer Inference Arithmetic", 2022) kept after
:math:`n_{bytes}` was introduced, and :math:`B`, which belongs to the compute term (the post
moved it there on 2023-09-01). Both are
defined here as printed, so that the reproduction uses the article's formula and the errata can
print it; the corrected values come from the package.

* :data:`finbarr_latency_memory`, :data:`finbarr_latency_compute`,
  :data:`finbarr_latency_model` -- as printed
* :data:`finbarr_latency_memory_revised`, :data:`finbarr_latency_compute_revised` -- the version
  of 2023-09-01 (B moved to the compute term, the factor 2 kept)
* :data:`finbarr_kv_cache_bytes` -- the post's KV-cache formula,
  :math:`n_{blocks} n_{bytes} 2 d_{model}`, which the post calls the total but which is the size
  of one token's cache

The symbol :math:`n_{bytes}` (glossary name ``n_bytes``) is :math:`b_w / 8` in the book's
notation.

>>> round(finbarr_latency_memory(n_params=7_000_000_000, n_bytes=4, batch=1,
...                              bandwidth=A100_BANDWIDTH) * 1e3, 2)
28.94
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp

from ..core.registry import formula

__all__ = [
    # inputs
    "TABLE_PARAMS", "TABLE_LABELS", "N_BYTES", "A100_BANDWIDTH", "A100_FP16_FLOPS",
    "A100_INT4_OPS", "A100_MEMORY_GB", "RTX4090_BANDWIDTH", "RTX4090_FP16_FLOPS",
    "CONSUMER_GPU_MEMORY", "A100_ONCHIP_MB", "M1_BANDWIDTH", "M1_FP16_FLOPS",
    "M2_PRO_BANDWIDTH", "M2_MAX_BANDWIDTH", "RPI4_FLOPS", "RPI4_BANDWIDTH", "RPI4_MEMORY_GB",
    # reference values for checking the post's claims (not the post's)
    "A100_SMS", "A100_REGISTER_FILE_PER_SM", "A100_L1_SHARED_PER_SM", "A100_L2_BYTES",
    "onchip_memory_bytes",
    # published values
    "WEIGHTS_GB", "LATENCY_MS", "CLAIMS", "OBSERVED_TOKENS_PER_S",
    # formulas
    "finbarr_latency_memory", "finbarr_latency_compute", "finbarr_latency_model",
    "finbarr_latency_memory_revised", "finbarr_latency_compute_revised",
    "finbarr_kv_cache_bytes",
]

# --- the article's stated inputs ------------------------------------------------------------
#: [-] the parameter counts in the first column of both table images, as printed
#: (7, 13, 32.5 and 65.2 billion; the LLaMA paper's Table 2 has 6.7, 13.0, 32.5 and 65.2).
TABLE_PARAMS = (7_000_000_000, 13_000_000_000, 32_500_000_000, 65_200_000_000)
#: The same counts as the images label them.
TABLE_LABELS = ("7", "13", "32.5", "65.2")
#: [B] bytes per parameter: "for float32s, this is 4, for float16s, this is 2, etc."; the
#: table columns are fp32, fp16, int8 and int4.
N_BYTES = {"fp32": 4, "fp16": 2, "int8": 1, "int4": Fraction(1, 2)}
#: [B/s] "They have a large amount of memory bandwidth (A100: 1935 GB/s, 4090: 1008 GB/s)";
#: "On an A100 (80GB PCIe), the memory bandwidth is 1935GB/s"; n_memory bandwidth = 1.935e12.
A100_BANDWIDTH = 1.935e12
#: [FLOP/s] "A100: 312 TFLOPS of FP16"; n_flops = 3.12e14.
A100_FP16_FLOPS = 3.12e14
#: [OP/s] "The int4 compute is 1248 TOPS."
A100_INT4_OPS = 1248e12
#: [GB] "... the on-chip memory, which is quite small (40MB on an A100, compared to 40-80GB of
#: RAM)": the two memory sizes of the A100.
A100_MEMORY_GB = (40, 80)
#: [MB] the same sentence: the on-chip memory of an A100 (its L2 cache is 40 MB).
A100_ONCHIP_MB = 40
#: [GB] "You can even run the 7B model on a 4GB RAM Raspberry Pi".
RPI4_MEMORY_GB = 4

# --- reference values for the post's on-chip memory (NVIDIA's Ampere whitepaper) -------------
# Not the post's: what the A100 has on chip, to check "40MB on an A100". NVIDIA A100 Tensor Core
# GPU Architecture (2020), "A100 SM architecture" and the comparison table: 108 SMs enabled on
# the A100, a 256 KB register file and 192 KB of combined L1 data cache / shared memory per SM,
# and a 40 MB L2 cache. NVIDIA's KB and MB are binary here (KiB, MiB).
#: [-] streaming multiprocessors enabled on an A100.
A100_SMS = 108
#: [B] register file per SM, "256 KB".
A100_REGISTER_FILE_PER_SM = 256 * 2**10
#: [B] combined L1 data cache and shared memory per SM, "192 KB".
A100_L1_SHARED_PER_SM = 192 * 2**10
#: [B] L2 cache, "40 MB".
A100_L2_BYTES = 40 * 2**20
#: [B/s] "4090: 1008 GB/s".
RTX4090_BANDWIDTH = 1008e9
#: [FLOP/s] "4090: 82.6 TFLOPS of FP16".
RTX4090_FP16_FLOPS = 82.6e12
#: [B] "high-end consumer GPUs (3090s/4090s, which have 24GB of RAM)".
CONSUMER_GPU_MEMORY = 24_000_000_000
#: [B/s] "The M1 GPU has a bandwidth of 68.25 GB/s".
M1_BANDWIDTH = 68.25e9
#: [FLOP/s] "... the M1 GPU can do up to 5.5 TFLOPS of fp16 compute" (the post's link goes to a
#: benchmark of the M1 *Max*).
M1_FP16_FLOPS = 5.5e12
#: [B/s] "the M2 Pro has 200 GB/s of bandwidth".
M2_PRO_BANDWIDTH = 200e9
#: [B/s] "the M2 Max has 400 GB/s of bandwidth".
M2_MAX_BANDWIDTH = 400e9
#: [FLOP/s] "A Raspberry Pi 4 has 13.5 GFLOPS of compute" (the post links a table of measured
#: LINPACK results).
RPI4_FLOPS = 13.5e9
#: [B/s] "... and ~4GB/s of memory bandwidth" (a forum measurement).
RPI4_BANDWIDTH = 4e9

# --- the article's published values (strings: their digits fix the rounding) ----------------
#: Image 1, "Memory required for LLaMa weights" [GB], keyed by (params label, precision).
WEIGHTS_GB = {
    ("7", "fp32"): "28", ("7", "fp16"): "14", ("7", "int8"): "7", ("7", "int4"): "3.5",
    ("13", "fp32"): "52", ("13", "fp16"): "26", ("13", "int8"): "13", ("13", "int4"): "6.5",
    ("32.5", "fp32"): "130", ("32.5", "fp16"): "65", ("32.5", "int8"): "32.5",
    ("32.5", "int4"): "16.25",
    ("65.2", "fp32"): "260.8", ("65.2", "fp16"): "130.4", ("65.2", "int8"): "65.2",
    ("65.2", "int4"): "32.6",
}
#: Image 2, inference time on an A100 80GB PCIe at batch size 1 [ms per token].
LATENCY_MS = {
    ("7", "fp32"): "28.94", ("7", "fp16"): "14.47", ("7", "int8"): "7.24", ("7", "int4"): "3.62",
    ("13", "fp32"): "53.75", ("13", "fp16"): "26.87", ("13", "int8"): "13.44",
    ("13", "int4"): "6.72",
    ("32.5", "fp32"): "134.37", ("32.5", "fp16"): "67.18", ("32.5", "int8"): "33.59",
    ("32.5", "int4"): "16.80",
    ("65.2", "fp32"): "269.56", ("65.2", "fp16"): "134.78", ("65.2", "int8"): "67.39",
    ("65.2", "int4"): "33.70",
}
#: Numbers the text derives, as printed (without "~"), with the sentence they come from.
CLAIMS = {
    # "as long as the batch size is less than 161, the model is memory-bound"
    "critical_batch": "161",
    # "the memory bandwidth is ~2 orders of magnitude smaller than the compute performance"
    "orders_of_magnitude": "2",
    # "you get twice the FLOPS when using fp16 vs fp32, which doubles again as you go to int8,
    # and doubles once more as you go to int4s"
    "precision_speedup": "2",
    # "the RAM requirements are reduced to 1.33GB of memory for the KV cache, and 16.25GB of
    # VRAM for the model parameters"
    "kv_cache_gb": "1.33",
    "weights_gb": "16.25",
    # A100: "roughly 30 tokens/s with the 65B model, and 277 tokens/s with the 7B model"
    "a100_65b_tokens_per_s": "30",
    "a100_7b_tokens_per_s": "277",
    # M1: "a ceiling of ~1 tokens/s for sampling from the 65B model with int4s, and 10 tokens/s
    # with the 7B model"
    "m1_65b_tokens_per_s": "1",
    "m1_7b_tokens_per_s": "10",
    # "going up to 6 tokens/s with the M2 Max with the 65B model"
    "m2_max_65b_tokens_per_s": "6",
    # Raspberry Pi 4: "we'd expect to see ~2 tokens/s with the 7B model if it was memory bound"
    "rpi_7b_memory_bound_tokens_per_s": "2",
}
#: [token/s] measurements the post quotes: Pixel 5, "M2 Macbook Pro" and a 4GB Raspberry Pi 4,
#: all with the 7B model.
OBSERVED_TOKENS_PER_S = {"pixel5": 1, "m2_macbook_pro": 16, "raspberry_pi_4": Fraction(1, 10)}



def onchip_memory_bytes(*, n_sm: int, register_file_per_sm: int, l1_shared_per_sm: int,
                        l2_bytes: int) -> dict[str, int]:
    """SRAM on a GPU chip, by kind [B]: registers and L1/shared memory (per SM) and the L2.

    Examples
    --------
    The A100 (Ampere whitepaper): the L2 is the post's "40MB"; registers and L1/shared memory
    hold 27 MiB and 20.25 MiB more.

    >>> sizes = onchip_memory_bytes(n_sm=A100_SMS, register_file_per_sm=A100_REGISTER_FILE_PER_SM,
    ...                             l1_shared_per_sm=A100_L1_SHARED_PER_SM, l2_bytes=A100_L2_BYTES)
    >>> {k: v / 2**20 for k, v in sizes.items()}
    {'registers': 27.0, 'l1_shared': 20.25, 'l2': 40.0, 'total': 87.25}
    """
    registers = n_sm * register_file_per_sm
    l1_shared = n_sm * l1_shared_per_sm
    return {"registers": registers, "l1_shared": l1_shared, "l2": l2_bytes,
            "total": registers + l1_shared + l2_bytes}


# --- formulas, as printed ---------------------------------------------------------------------


@formula("memory_time")
def finbarr_latency_memory(*, n_params, n_bytes, batch=1, bandwidth):
    """Memory latency of one decode step as the post prints it.

    Reading P parameters of n_bytes bytes takes P n_bytes / beta; the extra 2 is kipply's two
    bytes per 16-bit parameter, counted a second time. The batch size multiplies the wrong
    term: the weights are read once per step whatever B.

    Examples
    --------
    The post's A100 table, 65.2B parameters at int4 (published: 33.70 ms):

    >>> from fractions import Fraction
    >>> t = finbarr_latency_memory(n_params=65_200_000_000, n_bytes=Fraction(1, 2),
    ...                            bandwidth=1.935e12)
    >>> round(t * 1e3, 2)
    33.7
    """
    return 2 * n_params * n_bytes * batch / bandwidth


@formula("compute_time")
def finbarr_latency_compute(*, n_params, peak_flops):
    """Compute latency of one decode step as the post prints it: 2P FLOPs at the peak rate.

    Examples
    --------
    The 7B model on a Raspberry Pi 4 at the post's 13.5 GFLOPS: about a second per token.

    >>> round(finbarr_latency_compute(n_params=7_000_000_000, peak_flops=13.5e9), 3)
    1.037
    """
    return 2 * n_params / peak_flops


@formula("step_time")
def finbarr_latency_model(*, n_params, n_bytes, batch=1, bandwidth, peak_flops):
    """Latency of one decode step as the post prints it: the larger of its compute and memory
    latencies.

    Examples
    --------
    The M2 Max (400 GB/s) and the 65.2B model at int4; the post: "up to 6 tokens/s".

    >>> t = finbarr_latency_model(n_params=65_200_000_000, n_bytes=0.5, bandwidth=400e9,
    ...                           peak_flops=13.6e12)
    >>> round(1 / t, 2)
    6.13
    """
    return sp.Max(finbarr_latency_compute(n_params=n_params, peak_flops=peak_flops),
                  finbarr_latency_memory(n_params=n_params, n_bytes=n_bytes, batch=batch,
                                         bandwidth=bandwidth), evaluate=False)


@formula("memory_time")
def finbarr_latency_memory_revised(*, n_params, n_bytes, bandwidth):
    """Memory latency after the post's revision of 2023-09-01 (B removed, the 2 kept).

    Examples
    --------
    >>> round(finbarr_latency_memory_revised(n_params=7_000_000_000, n_bytes=2,
    ...                                      bandwidth=1.935e12) * 1e3, 2)
    14.47
    """
    return 2 * n_params * n_bytes / bandwidth


@formula("compute_time")
def finbarr_latency_compute_revised(*, n_params, batch=1, peak_flops):
    """Compute latency after the post's revision of 2023-09-01 (B moved here).

    Examples
    --------
    >>> finbarr_latency_compute_revised(n_params=10**9, batch=3, peak_flops=10**12)
    0.006
    """
    return 2 * n_params * batch / peak_flops


@formula("kv_cache_bytes_per_token")
def finbarr_kv_cache_bytes(*, n_layers, n_bytes, d_model):
    """The post's KV-cache size: keys and values of every layer, for one token.

    The post calls this "the total memory for the KV cache"; it is the cache of one token, and
    the total multiplies it by the context length and the batch size. With H_kv d_head = d
    (multi-head attention) and b_kv = 8 n_bytes it equals the book's KV bytes per token.

    Examples
    --------
    LLaMA-65B (80 blocks of width 8192) at int4 and at fp16:

    >>> from fractions import Fraction
    >>> finbarr_kv_cache_bytes(n_layers=80, n_bytes=Fraction(1, 2), d_model=8192)
    655360
    >>> finbarr_kv_cache_bytes(n_layers=80, n_bytes=2, d_model=8192)
    2621440
    """
    return n_layers * n_bytes * 2 * d_model
