r"""Baseten, "A guide to LLM inference and performance" (Shenoy and Kiely, November 2023).

The article's own formulas and inputs, where they differ from the package's or are specific to
the article:

* :func:`baseten_kv_bytes_per_token` -- :math:`\kappa = 2 \cdot 2 \cdot L\,d_{model}` (fp16,
  multi-head attention written with :math:`d_{model}` in place of :math:`H_{kv} d_{head}`);
* :func:`baseten_kv_cache_tokens` -- tokens of KV cache beside :math:`2P` bytes of weights;
* :func:`baseten_time_per_token` -- :math:`2P / \beta_{mem}` (the weights only, no KV cache);
* :func:`baseten_prefill_time` -- :math:`T \cdot 2P / \pi`, as the article computes it, and
  :func:`baseten_prefill_time_as_printed` -- :math:`T \cdot P / \pi`, the formula as the article
  prints it (without the factor 2 that its own numbers use);
* :func:`baseten_generation_time` -- prefill plus :math:`G` times the time per token;
* :data:`ALGORITHM_0` -- the per-line loads, FLOPs and stores of the standard attention
  algorithm (FlashAttention paper, Algorithm 0), the table the article showed as an image and
  of which only the sums survive; :data:`BASETEN_ATTENTION_BYTES_TERMS` and
  :data:`BASETEN_ATTENTION_FLOPS_TERMS` are the sums as the article printed them, term by term.

The article's inputs are the constants below; each comment paraphrases the sentence it comes
from. Integers (and a ``Fraction`` for the one rounded decimal) keep the arithmetic exact.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from ..core.registry import formula
from ..core.symbols import bits, d_head, seq_len

__all__ = [
    "ARTICLE", "N_PARAMS", "BYTES_PER_PARAM", "A10_PEAK_FP16", "A10_MEMORY", "A10_BANDWIDTH",
    "T4_MEMORY", "T4_BANDWIDTH", "T4_PEAK_FP16", "A100_BANDWIDTH", "A100_PEAK_FP16",
    "ARTICLE_GPUS", "SEQ_LEN", "D_HEAD", "N_HEADS", "N_LAYERS", "D_MODEL", "KV_GB_PER_TOKEN",
    "FREE_MEMORY", "BATCH", "PROMPT_TOKENS", "OUTPUT_TOKENS", "GB_PER_BILLION_FP16",
    "LLAMA_TABLE_2", "LLAMA_TABLE_2_MODELS", "SLOWDOWN_CLAIM",
    "AlgorithmLine", "ALGORITHM_0", "BASETEN_ATTENTION_BYTES_TERMS",
    "BASETEN_ATTENTION_FLOPS_TERMS",
    "baseten_kv_bytes_per_token", "baseten_kv_cache_tokens", "baseten_time_per_token",
    "baseten_prefill_time", "baseten_prefill_time_as_printed", "baseten_generation_time",
]

#: Bibliography key of the article.
ARTICLE = "baseten2023guide"

# --- the article's inputs -----------------------------------------------------------------------
#: "a seven billion parameter LLM like Llama 2"; every estimate uses "(2 * 7B)". [-]
N_PARAMS = 7 * 10**9
#: half precision: "each parameter using 16 bits (or 2 bytes)". [B]
BYTES_PER_PARAM = 2
#: A10 "FP16 Tensor Core ... 125 TFLOPS", the dense figure (the article ignores sparsity). [FLOP/s]
A10_PEAK_FP16 = 125 * 10**12
#: "our A10's 24 GB of VRAM", used as 24e9 bytes ("24 GB - (2 * 7GB) = 10GB"). [B]
A10_MEMORY = 24 * 10**9
#: "We can move 600 GB/s from GPU memory". [B/s]
A10_BANDWIDTH = 600 * 10**9
#: "a T4 GPU, which has 16 GB of VRAM ... only 2 GB" left. [B]
T4_MEMORY = 16 * 10**9
#: "On an T4: (2 * 7B) bytes / (300 GB/s)". [B/s]
T4_BANDWIDTH = 300 * 10**9
#: "On a T4: 350 * (2 * 7B) FLOP / 65 TFLOP/s". [FLOP/s]
T4_PEAK_FP16 = 65 * 10**12
#: "On an A100 SXM 80 GB: (2 * 7B) bytes / (2039 GB/s)". [B/s]
A100_BANDWIDTH = 2039 * 10**9
#: "On an A100 SXM 80 GB: 350 * (2 * 7B) FLOP / 312 TFLOP/s". [FLOP/s]
A100_PEAK_FP16 = 312 * 10**12
#: The three GPUs of the timing section: label -> (hardware catalog key, bandwidth [B/s],
#: dense fp16 peak [FLOP/s]), as the article used them.
ARTICLE_GPUS = {
    "T4": ("t4", T4_BANDWIDTH, T4_PEAK_FP16),
    "A10": ("a10", A10_BANDWIDTH, A10_PEAK_FP16),
    "A100 SXM 80 GB": ("a100-80gb-sxm", A100_BANDWIDTH, A100_PEAK_FP16),
}
#: "For Llama 2 7B, N = 4096" (the sequence length of the attention example). [token]
SEQ_LEN = 4096
#: "For Llama 2 7B, d = 128" (one attention head). [-]
D_HEAD = 128
#: "For Llama 2 7B, n_heads = 32". [-]
N_HEADS = 32
#: "For Llama 2 7B, n_layers = 32". [-]
N_LAYERS = 32
#: "For Llama 2 7B, d_model = 4096". [-]
D_MODEL = 4096
#: "524288 bytes/token ~ 0.00052 GB/token": the rounded value the next step divides by. [GB]
KV_GB_PER_TOKEN = Fraction(52, 100_000)
#: "we have 10 GB of memory left on our A10 after loading in our 7B parameter model". [B]
FREE_MEMORY = 10 * 10**9
#: "we want to batch 4 requests at a time during inference to fill our KV cache". [-]
BATCH = 4
#: "Let's assume that the prompt has 350 tokens". [token]
PROMPT_TOKENS = 350
#: "Assuming we allow for 150 completion tokens". [token]
OUTPUT_TOKENS = 150
#: "estimate the size of a model in gigabytes by multiplying the number of parameters (in
#: billions) by 2". [GB per billion parameters]
GB_PER_BILLION_FP16 = 2
#: "In the real world, these factors can make inference take up to twice as long" (measured
#: time over the estimate). [-]
SLOWDOWN_CLAIM = 2

#: "As the Llama paper shows, other sizes of Llama 2 have a larger d_model (see the 'dimension'
#: column)": the screenshot is Table 2 of the LLaMA paper (Touvron et al. 2023, arXiv
#: 2302.13971), whose rows are the four LLaMA-1 models. Published strings, as printed.
LLAMA_TABLE_2 = {
    "6.7B": {"dimension": "4096", "n heads": "32", "n layers": "32", "learning rate": "3.0e-4",
             "batch size": "4M", "n tokens": "1.0T"},
    "13.0B": {"dimension": "5120", "n heads": "40", "n layers": "40", "learning rate": "3.0e-4",
              "batch size": "4M", "n tokens": "1.0T"},
    "32.5B": {"dimension": "6656", "n heads": "52", "n layers": "60", "learning rate": "1.5e-4",
              "batch size": "4M", "n tokens": "1.4T"},
    "65.2B": {"dimension": "8192", "n heads": "64", "n layers": "80", "learning rate": "1.5e-4",
              "batch size": "4M", "n tokens": "1.4T"},
}
#: The model catalog's entry for each row of that table.
LLAMA_TABLE_2_MODELS = {"6.7B": "llama-7b", "13.0B": "llama-13b", "32.5B": "llama-33b",
                        "65.2B": "llama-65b"}


# --- the standard attention algorithm, line by line ---------------------------------------------
N, d, b = seq_len, d_head, bits
_B = b / 8  # bytes per element: 2 at fp16, the article's factor "2 *"


@dataclass(frozen=True)
class AlgorithmLine:
    """One line of Algorithm 0 with what it costs (for one head).

    Attributes
    ----------
    step : int
        Line number in the FlashAttention paper's Algorithm 0.
    text : str
        The line, paraphrased.
    loads : sympy.Expr
        Bytes read from GPU memory, in N (sequence length), d (head width) and b (bits) [B].
    flops : sympy.Expr
        Floating-point operations [FLOP].
    stores : sympy.Expr
        Bytes written to GPU memory [B].
    """

    step: int
    text: str
    loads: sp.Expr
    flops: sp.Expr
    stores: sp.Expr


#: Algorithm 0, "Standard Attention Implementation" (Dao et al. 2022), Q, K, V of N x d:
#: line 1 reads Q and K, forms S = QK^T (N^2 dot products of length d, 2d FLOPs each) and
#: writes S; line 2 reads S, forms P = softmax(S) (the article counts 3 operations per element)
#: and writes P; line 3 reads P and V, forms O = PV (Nd dot products of length N) and writes O.
ALGORITHM_0 = (
    AlgorithmLine(1, "load Q, K; compute S = Q K^T; write S",
                  loads=2 * N * d * _B, flops=2 * d * N**2, stores=N**2 * _B),
    AlgorithmLine(2, "read S; compute P = softmax(S); write P",
                  loads=N**2 * _B, flops=3 * N**2, stores=N**2 * _B),
    AlgorithmLine(3, "load P, V; compute O = P V; write O",
                  loads=(N**2 + N * d) * _B, flops=2 * N * N * d, stores=N * d * _B),
)

#: The article's memory sum, its six terms in the order printed (fp16, so 2 bytes each):
#: ``(2*2*(N*d)) + (2*(N*N)) + (2*((N*N)+(N*d))) + (2*(N*N)) + (2*(N*N)) + (2*(N*d))``.
BASETEN_ATTENTION_BYTES_TERMS = (
    2 * 2 * (N * d), 2 * (N * N), 2 * ((N * N) + (N * d)), 2 * (N * N), 2 * (N * N), 2 * (N * d),
)
#: The article's compute sum, its three terms: ``((2*d)*(N*N)) + (3*(N*N)) + ((2*N)*(N*d))``.
BASETEN_ATTENTION_FLOPS_TERMS = ((2 * d) * (N * N), 3 * (N * N), (2 * N) * (N * d))


# --- the article's formulas ---------------------------------------------------------------------


@formula("kv_cache_bytes_per_token")
def baseten_kv_bytes_per_token(*, n_layers, d_model):
    """KV-cache bytes per token as the article writes it (fp16, multi-head attention):
    "(2 * 2 * n_layers * d_model) bytes/token", K and V at 2 bytes each.

    It equals the book's 2 L H_kv d_head b_kv / 8 when H_kv d_head = d (no grouped-query
    attention) and b_kv = 16.

    Examples
    --------
    Llama 2 7B (the article: "524288 bytes/token"):

    >>> baseten_kv_bytes_per_token(n_layers=32, d_model=4096)
    524288
    """
    return 2 * 2 * n_layers * d_model


@formula("kv_tokens")
def baseten_kv_cache_tokens(*, capacity, n_params, kv_cache_bytes_per_token):
    """Tokens of KV cache that fit beside fp16 weights (2P bytes), the article's way.

    Examples
    --------
    The article divides 10 GB by the rounded 0.00052 GB/token ("= 19,230 tokens"); with its
    exact 524,288 bytes per token the quotient is lower:

    >>> from fractions import Fraction
    >>> round(baseten_kv_cache_tokens(capacity=24 * 10**9, n_params=7 * 10**9,
    ...                               kv_cache_bytes_per_token=Fraction(52, 100000) * 10**9), 2)
    19230.77
    >>> round(baseten_kv_cache_tokens(capacity=24 * 10**9, n_params=7 * 10**9,
    ...                               kv_cache_bytes_per_token=524288), 2)
    19073.49
    """
    return (capacity - 2 * n_params) / kv_cache_bytes_per_token


@formula("decode_time")
def baseten_time_per_token(*, n_params, bandwidth):
    """Time per output token at batch size 1 as the article computes it: the fp16 weights over
    the bandwidth ("total number of bytes moved (the model weights) / accelerator memory
    bandwidth").

    The KV cache read in each step is left out (the book's decode step time includes it).

    Examples
    --------
    The article's A10 (600 GB/s), "= 23 ms/token":

    >>> round(baseten_time_per_token(n_params=7 * 10**9, bandwidth=600 * 10**9) * 1e3, 2)
    23.33
    """
    return 2 * n_params / bandwidth


@formula("prefill_time")
def baseten_prefill_time(*, n_params, prompt, peak_flops):
    """Prefill time as the article computes it: 2 FLOPs per parameter per prompt token
    ("350 * (2 * 7B) FLOP / 65 TFLOP/s").

    Examples
    --------
    The article's A10 (125 TFLOP/s), 350 tokens, "= 39 ms":

    >>> round(baseten_prefill_time(n_params=7 * 10**9, prompt=350,
    ...                            peak_flops=125 * 10**12) * 1e3, 1)
    39.2
    """
    return prompt * 2 * n_params / peak_flops


@formula("prefill_time")
def baseten_prefill_time_as_printed(*, n_params, prompt, peak_flops):
    """Prefill time from the formula as the article prints it: "number of tokens * (number of
    parameters / accelerator compute bandwidth)", one FLOP per parameter.

    Half of :data:`baseten_prefill_time`; the article's own numbers do not use it.

    Examples
    --------
    >>> round(baseten_prefill_time_as_printed(n_params=7 * 10**9, prompt=350,
    ...                                       peak_flops=125 * 10**12) * 1e3, 1)
    19.6
    """
    return prompt * (n_params / peak_flops)


@formula("generation_time")
def baseten_generation_time(*, n_params, prompt, generated, bandwidth, peak_flops):
    """Total generation time, the article's way: "prefill time + number of tokens *
    time/token".

    Examples
    --------
    The article's A10 without rounding the intermediate times (it prints 3.49 s from
    39 ms + 150 x 23 ms):

    >>> round(baseten_generation_time(n_params=7 * 10**9, prompt=350, generated=150,
    ...                               bandwidth=600 * 10**9, peak_flops=125 * 10**12), 3)
    3.539
    """
    return (baseten_prefill_time(n_params=n_params, prompt=prompt, peak_flops=peak_flops)
            + generated * baseten_time_per_token(n_params=n_params, bandwidth=bandwidth))
