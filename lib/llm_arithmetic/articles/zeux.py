r"""Kapoulkine, "LLM inference speed of light" (zeux.io, 2024), and its calm notebook.

Two sources, one module:

* the article :cite:`kapoulkine2024sol`: its measured times and stated inputs are constants
  below, each next to a paraphrase of the sentence it comes from; its arithmetic (percent of the
  speed of light, the share of a decode step spent in attention, KV elements per token, the
  sliding-window cap) is in :func:`sol_fraction`, :func:`attention_share`,
  :func:`kv_elements_per_token` and :func:`windowed_kv_bytes`;
* the notebook the article links, ``tools/sol.ipynb`` in the calm repository
  :cite:`calm2024sol` (last change 2024-02-04, "Update latency model to take GQA into account").
  Its latency model differs from the package's roofline in four ways, so it is written out here
  as sympy expressions (:data:`CALM_PARAMS`, :data:`CALM_MEMORY`, :data:`CALM_LATENCY_SM`,
  :data:`CALM_LATENCY_TC`):

  1. it counts parameters without norms or biases, and reads all of them but the embedding table;
  2. the step time is a *sum* of two maxima, ``max(weight bytes, weight FLOPs) + max(KV bytes,
     attention FLOPs)``, where the package's roofline takes one maximum of the totals;
  3. with tensor cores, the weight FLOPs use the batch rounded up to a multiple of 16 and a
     "tensorops" rate doubled for 16-bit weights; attention always runs at the vector ("SM")
     FP32 rate;
  4. memory is weights + KV cache + a fixed 500 MiB.

The notebook's GPU figures are kept in the hardware catalog as
:class:`~llm_arithmetic.hardware.ArticleFigure` records under ``"calm2024sol"``;
:func:`calm_gpu` reads them back.

Symbols that only this article needs (a measured time, the notebook's two peak rates and its
tensor-core scale) are added to :data:`llm_arithmetic.symbols.GLOSSARY` when this module is imported,
so that the package's formula tests see them like any other symbol.
"""
from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

import sympy as sp

from .. import symbols as _symbols
from .._formula import Formula, register
from ..hardware import get_hardware
from ..models import Model
from ..symbols import (
    bandwidth, batch, bits_kv, bits_weight, context, d_ff, d_head, d_model, kv_bytes_token,
    n_heads, n_kv_heads, n_layers, n_mlp_mats, n_vocab, overhead, tied, weight_bytes, window,
)
from ..units import MiB

__all__ = [
    # article inputs
    "ARTICLE", "CALM", "CALM_MEASURED_S", "LLAMACPP_MEASURED_S", "LLAMACPP_BITS",
    "CALM_8BIT_BITS", "M2_AIR_FRACTION", "KV_EXAMPLE_TOKEN", "GQA_EXAMPLE_CONTEXT",
    "COMMAND_R_ARTICLE_CONTEXT", "COMMAND_R_ADVERTISED_CONTEXT", "PRODUCTION_CONTEXT",
    "PRODUCTION_WEIGHT_BITS", "PRODUCTION_KV_BITS", "GQA_RATIO", "COMMAND_R_08_2024_CONFIG",
    "CALM_OVERHEAD", "CALM_FIGURES", "Q6_K_BITS", "RTX4090_L2_BYTES",
    # formulas
    "KV_ELEMENTS_PER_TOKEN", "SOL_FRACTION", "ATTENTION_SHARE", "WINDOWED_KV_BYTES",
    "CALM_PARAMS", "CALM_ACTIVE_PARAMS", "CALM_KV_ELEMENTS", "CALM_MEMORY", "CALM_LATENCY_SM",
    "CALM_LATENCY_TC",
    "kv_elements_per_token", "sol_fraction", "attention_share", "windowed_kv_bytes",
    "calm_params", "calm_active_params", "calm_kv_elements", "calm_memory", "calm_latency_sm",
    "calm_latency_tc", "calm_latency", "calm_arch", "calm_gpu",
]

#: Bibliography keys of the article and of the notebook it links.
ARTICLE = "kapoulkine2024sol"
CALM = "calm2024sol"


# --- symbols this article adds to the glossary -------------------------------------------
def _symbol(name: str, latex: str, description: str, unit: str = "1", **assumptions: Any) -> sp.Symbol:
    """The glossary's symbol called ``name``, created (and added to the glossary) if missing."""
    return _symbols.define(name, latex, description, unit, **assumptions)


measured_seconds = _symbol(
    "measured_seconds", "t_{meas}", "measured time of one decode step (an article's input)", "s",
    positive=True, real=True)
peak_vector = _symbol(
    "peak_vector", r"\pi_{v}", "peak rate of the vector units (CUDA cores), FP32", "FLOP/s",
    positive=True, real=True)
peak_tensor = _symbol(
    "peak_tensor", r"\pi_{tc}", "peak rate of the tensor cores as the calm notebook states it "
    "(its 'tensorops', meant as FP32)", "FLOP/s", positive=True, real=True)
tensor_scale = _symbol(
    "tensor_scale", "s", "speed-up the calm notebook gives tensor cores for narrow weights "
    "(1 at 32 bits, 2 otherwise)")

V, d, L, H, Hkv, dh, dff, m, t = (n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_head, d_ff,
                                  n_mlp_mats, tied)
B, S, bw, bkv, beta = batch, context, bits_weight, bits_kv, bandwidth
W, kappa, C0 = weight_bytes, kv_bytes_token, overhead

# =========================================================================================
# The article's inputs (measured times and stated assumptions)
# =========================================================================================

#: calm on an RTX 4090, Mistral 7B: "~15.4 ms/tok" with 16-bit weights and "~7.8 ms/tok" with
#: 8-bit weights, "around 90%" of the theoretical bound [s].
CALM_MEASURED_S: Mapping[str, float] = MappingProxyType({"fp16": 15.4e-3, "fp8": 7.8e-3})
#: calm's 8-bit weights are FP8 (one byte, no block scales) [bit].
CALM_8BIT_BITS = 8
#: llama.cpp on an RTX 4090, Mistral 7B: "~17.1 ms/tok" at 16 bits (82% of peak), "~10.3ms/tok"
#: for 8.5-bit weights (71%) and "~6.7ms/tok" for 4.5-bit weights (58%) [s].
LLAMACPP_MEASURED_S: Mapping[str, float] = MappingProxyType(
    {"fp16": 17.1e-3, "q8_0": 10.3e-3, "q4_0": 6.7e-3})
#: The bits per weight the article gives those llama.cpp formats ("8.5-bit", "4.5-bit") [bit].
LLAMACPP_BITS: Mapping[str, float] = MappingProxyType({"fp16": 16, "q8_0": 8.5, "q4_0": 4.5})
#: On an M2 Air, CPU inference in calm and llama.cpp "only reach ~65% of the theoretical
#: 100 GB/s" (a measurement; the article gives no times) [-].
M2_AIR_FRACTION = 0.65
#: "token number 1000 will need to read 130 MB of data from KV-cache" [token].
KV_EXAMPLE_TOKEN = 1000
#: "4096-token context takes 0.5 GiB with Mistral" (and Command-R "a 4096-token context would
#: take ~5.3 GB") [token].
GQA_EXAMPLE_CONTEXT = 4096
#: "Cohere's model is advertised to have 200K token context window" [token].
COMMAND_R_ARTICLE_CONTEXT = 200_000
#: What Cohere advertises: "Context length: 128K" on the c4ai-command-r-v01 model card, "128k
#: context" in the release notes; the GGUF conversions state 131072 tokens [token].
COMMAND_R_ADVERTISED_CONTEXT = 128 * 1024
#: "If we 'conservatively' assume 100K context (half of the advertised maximum)" [token].
PRODUCTION_CONTEXT = 100_000
#: "Weights would often use 4-bit quantization (~4.5 bits/weight ...)" [bit].
PRODUCTION_WEIGHT_BITS = 4.5
#: "... and KV-cache might use 8-bit (FP8) values" [bit].
PRODUCTION_KV_BITS = 8
#: "If these models used 4x GQA, the size ... for KV-cache would have been 4x smaller" [-].
GQA_RATIO = 4

#: Command R 08-2024, Cohere's update of Command-R: it adopted grouped-query attention
#: (8 KV heads) and a 131072-token context (config.json of CohereForAI/c4ai-command-r-08-2024).
COMMAND_R_08_2024_CONFIG: Mapping[str, Any] = MappingProxyType({
    "model_type": "cohere", "vocab_size": 256000, "hidden_size": 8192,
    "intermediate_size": 24576, "num_attention_heads": 64, "num_key_value_heads": 8,
    "num_hidden_layers": 40, "max_position_embeddings": 131072, "use_qk_norm": False,
})
COMMAND_R_08_2024_URL = "https://huggingface.co/CohereForAI/c4ai-command-r-08-2024"

#: llama.cpp's Q4_0 files keep the output matrix in Q6_K (src/llama-quant.cpp: the output tensor
#: becomes Q6_K unless the file's type is Q8_0). A Q6_K block holds 256 weights in 210 bytes
#: (ggml-common.h, block_q6_K: 128 + 64 bytes of quants, 16 scales, one fp16 scale) [bit].
Q6_K_BITS = Fraction(210 * 8, 256)
#: Not the article's: the L2 cache of the RTX 4090, 72 MB (NVIDIA's Ada architecture
#: whitepaper, its GeForce RTX 4090 column), to check "caches are measured in tens of megabytes".
#: NVIDIA's MB are binary [B].
RTX4090_L2_BYTES = 72 * MiB

#: calm notebook: "500 MB for driver carveout and other bits", written 500*1024*1024 [B].
CALM_OVERHEAD = 500 * MiB

#: The calm notebook's three figures: (device, model, batch range, sequence lengths, panels).
#: Panels: ("latency", tensorcores) or ("throughput", tensorcores). Batch sizes are kept only
#: while the calm memory estimate stays below the device's VRAM.
CALM_FIGURES: tuple[Mapping[str, Any], ...] = (
    MappingProxyType({"hardware": "a100-80gb-pcie", "model": "llama-7b", "batches": (1, 16),
                      "contexts": (1024, 2048, 4096, 8192),
                      "panels": (("latency", False), ("throughput", True))}),
    MappingProxyType({"hardware": "h100-pcie", "model": "mistral-7b", "batches": (1, 256),
                      "contexts": (1024, 2048, 4096, 8192),
                      "panels": (("throughput", False), ("throughput", True))}),
    MappingProxyType({"hardware": "a100-80gb-pcie", "model": "llama-13b", "batches": (1, 256),
                      "contexts": (512, 1024), "panels": (("throughput", True),)}),
)

# =========================================================================================
# The article's arithmetic
# =========================================================================================

#: Cached elements per token: a key and a value vector of d_head per KV head and layer.
KV_ELEMENTS_PER_TOKEN = 2 * L * Hkv * dh
#: Fraction of the speed of light a measured step reaches: bound time over measured time.
SOL_FRACTION = W / (beta * measured_seconds)
#: Share of a bandwidth-bound decode step spent reading the KV cache.
ATTENTION_SHARE = kappa * S / (W + kappa * S)
#: KV-cache bytes a decode step reads when attention only sees the last W_sw tokens.
WINDOWED_KV_BYTES = kappa * sp.Min(S, window, evaluate=False)

_F_KVE = Formula("zeux_kv_elements_per_token", KV_ELEMENTS_PER_TOKEN, (L, Hkv, dh), "1")
_F_SOL = Formula("zeux_sol_fraction", SOL_FRACTION, (W, beta, measured_seconds), "1")
_F_ATT = Formula("zeux_attention_share", ATTENTION_SHARE, (W, kappa, S), "1")
_F_WIN = Formula("zeux_windowed_kv_bytes", WINDOWED_KV_BYTES, (kappa, S, window), "B")


@register(_F_KVE)
def kv_elements_per_token(*, n_layers: Any, n_kv_heads: Any, d_head: Any) -> Any:
    r"""KV-cache elements per token, the count the article multiplies by the element size.

    .. math:: N_{KV} = 2\,L\,H_{kv}\,d_{head}

    Parameters
    ----------
    n_layers : int or array
        Transformer blocks, L [-]
    n_kv_heads : int or array
        Key/value heads per block [-]
    d_head : int or array
        Head width [-]

    Returns
    -------
    int or array
        Elements per token [-]

    Examples
    --------
    Mistral 7B, "32 * 128 * 8 * 2 = 65K elements", and Command-R, "40 * 128 * 64 * 2 = 655K":

    >>> kv_elements_per_token(n_layers=32, n_kv_heads=8, d_head=128)
    65536
    >>> kv_elements_per_token(n_layers=40, n_kv_heads=64, d_head=128)
    655360
    """
    return _F_KVE(n_layers, n_kv_heads, d_head)


@register(_F_SOL)
def sol_fraction(*, weight_bytes: Any, bandwidth: Any, measured_seconds: Any) -> Any:
    r"""Fraction of the speed of light reached: the bandwidth bound over the measured time.

    .. math:: u = \frac{W / \beta_{mem}}{t_{meas}} = \frac{W}{\beta_{mem}\,t_{meas}}

    It is also the fraction of the peak bandwidth the implementation achieves.

    Parameters
    ----------
    weight_bytes : int, float or array
        Bytes one decode step must read, W [B]
    bandwidth : float or array
        Peak memory bandwidth [B/s]
    measured_seconds : float or array
        Measured time of one decode step [s]

    Returns
    -------
    float or array
        Fraction of the bound [-]

    Examples
    --------
    14.22 GB read in 15.4 ms on a 1008 GB/s RTX 4090 (calm, fp16):

    >>> round(sol_fraction(weight_bytes=14.22e9, bandwidth=1008e9, measured_seconds=15.4e-3), 3)
    0.916
    """
    return _F_SOL(weight_bytes, bandwidth, measured_seconds)


@register(_F_ATT)
def attention_share(*, weight_bytes: Any, kv_bytes_token: Any, context: Any) -> Any:
    r"""Share of a decode step spent reading the KV cache, when weights and cache are both read
    at the peak bandwidth.

    .. math:: a = \frac{\kappa\,S}{W + \kappa\,S}

    Parameters
    ----------
    weight_bytes : int, float or array
        Weight bytes read per step, W [B]
    kv_bytes_token : int, float or array
        KV-cache bytes per token, kappa [B]
    context : int or array
        Tokens in the cache, S [token]

    Returns
    -------
    float or array
        Share of the step [-]

    Examples
    --------
    The article's production case: 19.7 GB of weights and 65.5 GB of cache:

    >>> round(attention_share(weight_bytes=19_700_000_000, kv_bytes_token=655_360,
    ...                       context=100_000), 3)
    0.769
    """
    return _F_ATT(weight_bytes, kv_bytes_token, context)


@register(_F_WIN)
def windowed_kv_bytes(*, kv_bytes_token: Any, context: Any, window: Any) -> Any:
    r"""KV-cache bytes read per decode step with sliding-window attention.

    .. math:: M_{KV} = \kappa\,\min(S, S_w)

    Mistral 7B v0.1 attends to the last 4096 tokens in every layer, and its rolling-buffer cache
    keeps only those, so both the bytes read and the bytes held stop growing at 4096 tokens.
    This is the article's case of :func:`llm_arithmetic.memory.attended_context` with every layer
    windowed.

    Parameters
    ----------
    kv_bytes_token : int or array
        KV-cache bytes per token, kappa [B]
    context : int or array
        Tokens so far, S [token]
    window : int or array
        Window, S_w [token]

    Returns
    -------
    int or array
        Bytes [B]

    Examples
    --------
    >>> windowed_kv_bytes(kv_bytes_token=131072, context=32768, window=4096) / 2**30
    0.5
    """
    return _F_WIN(kv_bytes_token, context, window)


# =========================================================================================
# The calm notebook's model (tools/sol.ipynb)
# =========================================================================================

_kvdim = d * Hkv / H  # calm: dim // num_attention_heads * num_key_value_heads
#: calm ``Model.params()``: embedding, q, k, v, o, the FFN matrices, and the output head unless
#: tied; "for simplicity we omit normalization layers and biases".
CALM_PARAMS = (V * d + L * d * d + L * d * _kvdim * 2 + L * d * d + L * d * dff * m
               + (1 - t) * V * d)
#: calm ``Model.actparams()``: all but the embedding table ("we only read one token from embed").
CALM_ACTIVE_PARAMS = CALM_PARAMS - (1 - t) * V * d
#: calm ``kvcache()``: cached *elements* of B sequences of S tokens.
CALM_KV_ELEMENTS = B * L * S * _kvdim * 2
#: calm ``memory()``: weights + KV cache + a fixed reserve (500 MiB in the notebook).
CALM_MEMORY = CALM_PARAMS * bw / 8 + CALM_KV_ELEMENTS * bkv / 8 + C0
_weights_s = CALM_ACTIVE_PARAMS * bw / 8 / beta
_attention_s = sp.Max(CALM_KV_ELEMENTS * bkv / 8 / beta,
                      CALM_KV_ELEMENTS * (H / Hkv) * 2 / peak_vector, evaluate=False)
#: calm ``latency(tensorcores=False)``: weights on the vector units, plus attention.
CALM_LATENCY_SM = (sp.Max(_weights_s, 2 * CALM_ACTIVE_PARAMS * B / peak_vector, evaluate=False)
                   + _attention_s)
#: calm ``latency(tensorcores=True)``: the batch rounded up to 16 ("tensor cores operate on
#: 16x16 matrices") at the tensor rate times s, plus attention on the vector units.
CALM_LATENCY_TC = (sp.Max(_weights_s, 2 * CALM_ACTIVE_PARAMS * 16 * sp.floor((B + 15) / 16)
                          / (peak_tensor * tensor_scale), evaluate=False)
                   + _attention_s)

_CALM_ARCH = (V, d, L, H, Hkv, dff, m, t)
_F_CP = Formula("calm_params", CALM_PARAMS, _CALM_ARCH, "1")
_F_CAP = Formula("calm_active_params", CALM_ACTIVE_PARAMS, _CALM_ARCH, "1")
_F_CKV = Formula("calm_kv_elements", CALM_KV_ELEMENTS, (d, L, H, Hkv, S, B), "1")
_F_CMEM = Formula("calm_memory", CALM_MEMORY, _CALM_ARCH + (S, B, bw, bkv, C0), "B")
_F_CSM = Formula("calm_latency_sm", CALM_LATENCY_SM,
                 _CALM_ARCH + (S, B, bw, bkv, beta, peak_vector), "s")
_F_CTC = Formula("calm_latency_tc", CALM_LATENCY_TC,
                 _CALM_ARCH + (S, B, bw, bkv, beta, peak_vector, peak_tensor, tensor_scale), "s")

_CALM_ARCH_DOC = """
    Parameters
    ----------
    n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff : int or array
        Architecture sizes [-]; the head width is d_model / n_heads
    n_mlp_mats : int
        FFN matrices, calm's ``num_ffn``: 3 (gated) or 2 [-]
    tied : {0, 1}
        1 when the output head reuses the embedding matrix [-]
"""
_CALM_STEP_DOC = """    context : int or array
        Tokens in each sequence's cache, S [token]
    batch : int or array
        Sequences decoded together, B [-]
    bits_weight, bits_kv : int, float
        Bits per weight and per cached element [bit]
    bandwidth : float or array
        Memory bandwidth [B/s]
    peak_vector : float or array
        The notebook's ``flops``: FP32 rate of the vector units [FLOP/s]
"""


@register(_F_CP)
def calm_params(*, n_vocab: Any, d_model: Any, n_layers: Any, n_heads: Any, n_kv_heads: Any,
                d_ff: Any, n_mlp_mats: Any = 3, tied: Any = 0) -> Any:
    r"""Parameters as the calm notebook counts them: matrices only, no norms or biases.

    .. math:: P_{calm} = V d + 2 L d^2 + 2 L d \frac{d H_{kv}}{H} + m L d\,d_{ff} + (1 - t) V d

    Examples
    --------
    The notebook prints "Mistral-7b 7.2B" and "Llama-7b 6.7B":

    >>> calm_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
    ...             d_ff=14336)
    7241465856
    >>> calm_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32,
    ...             d_ff=11008)
    6738149376
    """
    return _F_CP(n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats, tied)


@register(_F_CAP)
def calm_active_params(*, n_vocab: Any, d_model: Any, n_layers: Any, n_heads: Any,
                       n_kv_heads: Any, d_ff: Any, n_mlp_mats: Any = 3, tied: Any = 0) -> Any:
    r"""Parameters the calm notebook reads per token: all but an untied embedding table.

    .. math:: P_{calm,act} = P_{calm} - (1 - t) V d

    Examples
    --------
    Mistral 7B: the weights in matrix products, as in the article's "~7111M":

    >>> calm_active_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
    ...                    d_ff=14336)
    7110393856
    """
    return _F_CAP(n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats, tied)


@register(_F_CKV)
def calm_kv_elements(*, d_model: Any, n_layers: Any, n_heads: Any, n_kv_heads: Any,
                     context: Any, batch: Any = 1) -> Any:
    r"""KV-cache elements of B sequences of S tokens, the calm notebook's ``kvcache()``.

    .. math:: N_{KV} = 2\,B\,L\,S\,\frac{d\,H_{kv}}{H}

    Parameters
    ----------
    d_model, n_layers, n_heads, n_kv_heads : int or array
        Architecture sizes [-]
    context : int or array
        Tokens per sequence [token]
    batch : int or array
        Sequences [-]

    Returns
    -------
    int or array
        Elements [-] (bytes at 8 bits per element)

    Examples
    --------
    The notebook's output ``(1073741824, 268435456)`` for Llama-7b and Mistral-7b at 4096:

    >>> calm_kv_elements(d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32, context=4096)
    1073741824
    >>> calm_kv_elements(d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8, context=4096)
    268435456
    """
    return _F_CKV(d_model, n_layers, n_heads, n_kv_heads, context, batch)


@register(_F_CMEM)
def calm_memory(*, n_vocab: Any, d_model: Any, n_layers: Any, n_heads: Any, n_kv_heads: Any,
                d_ff: Any, n_mlp_mats: Any = 3, tied: Any = 0, context: Any, batch: Any = 1,
                bits_weight: Any = 16, bits_kv: Any = 16, overhead: Any = CALM_OVERHEAD) -> Any:
    r"""Memory the calm notebook requires: weights, KV cache and a fixed reserve [B].

    .. math:: M = \frac{P_{calm}\,b_w}{8} + \frac{N_{KV}\,b_{kv}}{8} + C_0

    Examples
    --------
    Llama-7b at 8192 tokens: 16 sequences fit in the A100's 80 GiB, 17 do not.

    >>> kw = dict(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32,
    ...           d_ff=11008, context=8192)
    >>> calm_memory(batch=16, **kw) / 2**30, calm_memory(batch=17, **kw) / 2**30
    (77.0390625, 81.0390625)
    """
    return _F_CMEM(n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats, tied,
                   context, batch, bits_weight, bits_kv, overhead)


@register(_F_CSM)
def calm_latency_sm(*, n_vocab: Any, d_model: Any, n_layers: Any, n_heads: Any,
                    n_kv_heads: Any, d_ff: Any, n_mlp_mats: Any = 3, tied: Any = 0,
                    context: Any, batch: Any = 1, bits_weight: Any = 16, bits_kv: Any = 16,
                    bandwidth: Any, peak_vector: Any) -> Any:
    r"""Step time of the calm notebook without tensor cores [s].

    .. math:: t = \max\left(\frac{P_{act} b_w / 8}{\beta_{mem}}, \frac{2 P_{act} B}{\pi_v}\right)
              + \max\left(\frac{N_{KV} b_{kv} / 8}{\beta_{mem}},
              \frac{2 N_{KV} H / H_{kv}}{\pi_v}\right)

    Examples
    --------
    Llama-7b on the notebook's A100 80GB PCIe, one sequence of 1024 tokens:

    >>> t = calm_latency_sm(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32,
    ...                     n_kv_heads=32, d_ff=11008, context=1024, batch=1,
    ...                     bandwidth=1935e9, peak_vector=19.5e12)
    >>> round(t * 1e3, 2)
    7.11
    """
    return _F_CSM(n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats, tied,
                  context, batch, bits_weight, bits_kv, bandwidth, peak_vector)


@register(_F_CTC)
def calm_latency_tc(*, n_vocab: Any, d_model: Any, n_layers: Any, n_heads: Any,
                    n_kv_heads: Any, d_ff: Any, n_mlp_mats: Any = 3, tied: Any = 0,
                    context: Any, batch: Any = 1, bits_weight: Any = 16, bits_kv: Any = 16,
                    bandwidth: Any, peak_vector: Any, peak_tensor: Any,
                    tensor_scale: Any = 2) -> Any:
    r"""Step time of the calm notebook with tensor cores for the weights [s].

    .. math:: t = \max\left(\frac{P_{act} b_w / 8}{\beta_{mem}},
              \frac{2 P_{act} \cdot 16 \lfloor (B + 15)/16 \rfloor}{s\,\pi_{tc}}\right)
              + \max\left(\frac{N_{KV} b_{kv} / 8}{\beta_{mem}},
              \frac{2 N_{KV} H / H_{kv}}{\pi_v}\right)

    ``tensor_scale`` is the notebook's ``tensorscale``: 1 for 32-bit weights, 2 otherwise.

    Examples
    --------
    Llama-7b on the notebook's A100 80GB PCIe ("tensorops" 156e12, doubled for 16 bits),
    1024 tokens: batch 16 costs less than twice batch 1.

    >>> kw = dict(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32,
    ...           d_ff=11008, context=1024, bandwidth=1935e9, peak_vector=19.5e12,
    ...           peak_tensor=156e12)
    >>> round(calm_latency_tc(batch=1, **kw) * 1e3, 2), round(calm_latency_tc(batch=16, **kw) * 1e3, 2)
    (7.11, 11.27)

    With memory taken out of the picture, batches 1 and 16 cost the same weight FLOPs:

    >>> kw.update(bandwidth=1e18, context=1)
    >>> round(calm_latency_tc(batch=1, **kw) * 1e3, 3), round(calm_latency_tc(batch=16, **kw) * 1e3, 3)
    (0.678, 0.678)
    """
    return _F_CTC(n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats, tied,
                  context, batch, bits_weight, bits_kv, bandwidth, peak_vector, peak_tensor,
                  tensor_scale)


for _fn in (calm_params, calm_active_params, calm_memory, calm_latency_sm, calm_latency_tc):
    _doc = _CALM_ARCH_DOC
    if _fn in (calm_memory, calm_latency_sm, calm_latency_tc):
        _doc += _CALM_STEP_DOC
    _fn.__doc__ = (_fn.__doc__ or "").replace("\n    Examples", _doc + "\n    Examples", 1)


def calm_latency(*, tensorcores: bool = False, peak_tensor: Any = None, **kw: Any) -> Any:
    """The calm notebook's ``latency()``: :func:`calm_latency_tc` or :func:`calm_latency_sm`.

    With tensor cores the notebook's ``tensorscale`` is 1 for 32-bit weights and 2 otherwise.

    >>> kw = dict(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32,
    ...           d_ff=11008, context=1024, batch=4, bandwidth=1935e9, peak_vector=19.5e12)
    >>> calm_latency(**kw) == calm_latency_sm(**kw)
    True
    >>> calm_latency(tensorcores=True, peak_tensor=156e12, **kw) == calm_latency_tc(
    ...     peak_tensor=156e12, tensor_scale=2, **kw)
    True
    """
    if not tensorcores:
        return calm_latency_sm(**kw)
    if peak_tensor is None:
        raise ValueError("tensorcores=True needs peak_tensor (the notebook's 'tensorops')")
    scale = 1 if kw.get("bits_weight", 16) == 32 else 2
    return calm_latency_tc(peak_tensor=peak_tensor, tensor_scale=scale, **kw)


def calm_arch(model: Model) -> dict[str, int]:
    """Keyword arguments of the calm functions for a package :class:`~llm_arithmetic.models.Model`.

    The calm notebook's head width is d_model / n_heads; a model whose head width differs
    cannot be described by it.

    >>> from llm_arithmetic import get_model
    >>> calm_params(**calm_arch(get_model("mistral-7b")))
    7241465856
    """
    if model.d_head * model.n_heads != model.d_model:
        raise ValueError(f"{model.name}: the calm notebook assumes d_head = d_model / n_heads")
    return dict(n_vocab=model.n_vocab, d_model=model.d_model, n_layers=model.n_layers,
                n_heads=model.n_heads, n_kv_heads=model.n_kv_heads, d_ff=model.d_ff,
                n_mlp_mats=model.n_mlp_mats, tied=int(model.tied))


def calm_gpu(name: str) -> dict[str, float]:
    """The calm notebook's figures for a device, read from the hardware catalog.

    Keys as in the notebook's ``GPU`` class: ``bandwidth`` [B/s], ``flops`` and ``tensorops``
    [FLOP/s] (both meant as FP32 rates) and ``vram`` [B].

    >>> g = calm_gpu("h100-pcie")
    >>> g["bandwidth"], g["flops"], g["tensorops"], g["vram"] == 80 * 2**30
    (2000000000000.0, 51000000000000.0, 758000000000000.0, True)
    """
    keys = {"bandwidth": "bandwidth", "peak:fp32": "flops", "peak:tf32": "tensorops",
            "capacity": "vram"}
    out = {keys[f.quantity]: f.value for f in get_hardware(name).article_figures
           if f.article == CALM and f.quantity in keys}
    missing = set(keys.values()) - set(out)
    if missing:
        raise ValueError(f"the calm notebook has no {sorted(missing)} for {name!r}")
    return out
