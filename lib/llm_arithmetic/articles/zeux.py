r"""Kapoulkine, "LLM inference speed of light" (zeux.io, 2024), and its calm notebook.

Two sources, one module:

* the article :cite:`kapoulkine2024sol`: its measured times and stated inputs are constants
  below, each next to a paraphrase of the sentence it comes from; its arithmetic (percent of the
  speed of light, the share of a decode step spent in attention, KV elements per token, the
  sliding-window cap) is in :data:`zeux_sol_fraction`, :data:`zeux_attention_share`,
  :data:`zeux_kv_elements_per_token` and :data:`zeux_windowed_kv_bytes`;
* the notebook the article links, ``tools/sol.ipynb`` in the calm repository
  :cite:`calm2024sol` (last change 2024-02-04, "Update latency model to take GQA into account").
  Its latency model differs from the book's roofline in four ways, so it is written out here
  as formulas (:data:`calm_params`, :data:`calm_memory`, :data:`calm_latency_sm`,
  :data:`calm_latency_tc`):

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

The symbols only this article needs (a measured time, the notebook's two peak rates and its
tensor-core scale) are in the glossary's "source articles" group.
"""
from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

import sympy as sp

from ..catalog.hardware import get_hardware
from ..catalog.model import Model
from ..core.registry import formula
from ..core.units import MiB
from ..formulas.memory import window_tokens

__all__ = [
    # article inputs
    "ARTICLE", "CALM", "CALM_MEASURED_S", "LLAMACPP_MEASURED_S", "LLAMACPP_BITS",
    "CALM_8BIT_BITS", "M2_AIR_FRACTION", "KV_EXAMPLE_TOKEN", "GQA_EXAMPLE_CONTEXT",
    "COMMAND_R_ARTICLE_CONTEXT", "COMMAND_R_ADVERTISED_CONTEXT", "PRODUCTION_CONTEXT",
    "PRODUCTION_WEIGHT_BITS", "PRODUCTION_KV_BITS", "GQA_RATIO", "COMMAND_R_08_2024_CONFIG",
    "CALM_OVERHEAD", "CALM_FIGURES", "Q6_K_BITS", "RTX4090_L2_BYTES",
    # formulas
    "zeux_kv_elements_per_token", "zeux_sol_fraction", "zeux_attention_share",
    "zeux_windowed_kv_bytes",
    "calm_params", "calm_active_params", "calm_kv_elements", "calm_memory", "calm_latency_sm",
    "calm_latency_tc", "calm_latency", "calm_arch", "calm_gpu",
]

#: Bibliography keys of the article and of the notebook it links.
ARTICLE = "kapoulkine2024sol"
CALM = "calm2024sol"


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


@formula("kv_elements")
def zeux_kv_elements_per_token(*, n_layers, n_kv_heads, d_head):
    """KV-cache elements per token, the count the article multiplies by the element size: a key
    and a value vector of d_head per KV head and layer.

    Examples
    --------
    Mistral 7B, "32 * 128 * 8 * 2 = 65K elements", and Command-R, "40 * 128 * 64 * 2 = 655K":

    >>> zeux_kv_elements_per_token(n_layers=32, n_kv_heads=8, d_head=128)
    65536
    >>> zeux_kv_elements_per_token(n_layers=40, n_kv_heads=64, d_head=128)
    655360
    """
    return 2 * n_layers * n_kv_heads * d_head


@formula("fraction")
def zeux_sol_fraction(*, weight_bytes, bandwidth, measured_seconds):
    """Fraction of the speed of light reached: the bandwidth bound on a step's time over its
    measured time. It is also the fraction of the peak bandwidth the implementation achieves.

    Examples
    --------
    14.22 GB read in 15.4 ms on a 1008 GB/s RTX 4090 (calm, fp16):

    >>> round(zeux_sol_fraction(weight_bytes=14.22e9, bandwidth=1008e9,
    ...                         measured_seconds=15.4e-3), 3)
    0.916
    """
    return weight_bytes / bandwidth / measured_seconds


@formula("fraction")
def zeux_attention_share(*, weight_bytes, kv_cache_bytes_per_token, context):
    """Share of a decode step spent reading the KV cache, when weights and cache are both read
    at the peak bandwidth.

    Examples
    --------
    The article's production case: 19.7 GB of weights and 65.5 GB of cache:

    >>> round(zeux_attention_share(weight_bytes=19_700_000_000, kv_cache_bytes_per_token=655_360,
    ...                            context=100_000), 3)
    0.769
    """
    return kv_cache_bytes_per_token * context / (weight_bytes + kv_cache_bytes_per_token * context)


@formula("seq_bytes")
def zeux_windowed_kv_bytes(*, kv_cache_bytes_per_token, context, window):
    """KV-cache bytes a decode step reads (and a rolling buffer holds) with sliding-window
    attention in every layer.

    Mistral 7B v0.1 attends to the last 4096 tokens in every layer, and its rolling-buffer
    cache keeps only those, so both the bytes read and the bytes held stop growing at 4096
    tokens.

    Examples
    --------
    >>> zeux_windowed_kv_bytes(kv_cache_bytes_per_token=131072, context=32768, window=4096) / 2**30
    0.5
    """
    return kv_cache_bytes_per_token * window_tokens(context=context, window=window)


# =========================================================================================
# The calm notebook's model (tools/sol.ipynb)
# =========================================================================================


def _kv_dim(d_model, n_heads, n_kv_heads):
    """calm: ``dim // num_attention_heads * num_key_value_heads``."""
    return d_model * n_kv_heads / n_heads


@formula("n_params")
def calm_params(*, n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats=3, tied=0):
    """Parameters as the calm notebook's ``Model.params()`` counts them: the embedding, q, k,
    v, o, the FFN matrices, and the output head unless tied; "for simplicity we omit
    normalization layers and biases". The head width is d / H.

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
    kv = _kv_dim(d_model, n_heads, n_kv_heads)
    return (n_vocab * d_model + n_layers * d_model * d_model + n_layers * d_model * kv * 2
            + n_layers * d_model * d_model + n_layers * d_model * d_ff * n_mlp_mats
            + (1 - tied) * n_vocab * d_model)


@formula("params_active")
def calm_active_params(*, n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats=3,
                       tied=0):
    """Parameters the calm notebook reads per token (``Model.actparams()``): all but an untied
    embedding table ("we only read one token from embed").

    Examples
    --------
    Mistral 7B: the weights in matrix products, as in the article's "~7111M":

    >>> calm_active_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
    ...                    d_ff=14336)
    7110393856
    """
    return calm_params(n_vocab=n_vocab, d_model=d_model, n_layers=n_layers, n_heads=n_heads,
                       n_kv_heads=n_kv_heads, d_ff=d_ff, n_mlp_mats=n_mlp_mats,
                       tied=tied) - (1 - tied) * n_vocab * d_model


@formula("kv_elements")
def calm_kv_elements(*, d_model, n_layers, n_heads, n_kv_heads, context, batch=1):
    """KV-cache elements of B sequences of S tokens, the calm notebook's ``kvcache()`` (bytes
    at 8 bits per element).

    Examples
    --------
    The notebook's output ``(1073741824, 268435456)`` for Llama-7b and Mistral-7b at 4096:

    >>> calm_kv_elements(d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32, context=4096)
    1073741824
    >>> calm_kv_elements(d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8, context=4096)
    268435456
    """
    return batch * n_layers * context * _kv_dim(d_model, n_heads, n_kv_heads) * 2


@formula("memory_required")
def calm_memory(*, n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats=3, tied=0,
                context, batch=1, bits_weight=16, bits_kv=16, overhead=CALM_OVERHEAD):
    """Memory the calm notebook's ``memory()`` requires: weights, KV cache and a fixed reserve
    (500 MiB in the notebook).

    Examples
    --------
    Llama-7b at 8192 tokens: 16 sequences fit in the A100's 80 GiB, 17 do not.

    >>> kw = dict(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32,
    ...           d_ff=11008, context=8192)
    >>> calm_memory(batch=16, **kw) / 2**30, calm_memory(batch=17, **kw) / 2**30
    (77.0390625, 81.0390625)
    """
    arch = dict(n_vocab=n_vocab, d_model=d_model, n_layers=n_layers, n_heads=n_heads,
                n_kv_heads=n_kv_heads, d_ff=d_ff, n_mlp_mats=n_mlp_mats, tied=tied)
    elements = calm_kv_elements(d_model=d_model, n_layers=n_layers, n_heads=n_heads,
                                n_kv_heads=n_kv_heads, context=context, batch=batch)
    return calm_params(**arch) * bits_weight / 8 + elements * bits_kv / 8 + overhead


def _calm_weights_and_attention(n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff,
                                n_mlp_mats, tied, context, batch, bits_weight, bits_kv,
                                bandwidth, peak_vector):
    arch = dict(n_vocab=n_vocab, d_model=d_model, n_layers=n_layers, n_heads=n_heads,
                n_kv_heads=n_kv_heads, d_ff=d_ff, n_mlp_mats=n_mlp_mats, tied=tied)
    active = calm_active_params(**arch)
    elements = calm_kv_elements(d_model=d_model, n_layers=n_layers, n_heads=n_heads,
                                n_kv_heads=n_kv_heads, context=context, batch=batch)
    weights_s = active * bits_weight / 8 / bandwidth
    attention_s = sp.Max(elements * bits_kv / 8 / bandwidth,
                         elements * (n_heads / n_kv_heads) * 2 / peak_vector, evaluate=False)
    return active, weights_s, attention_s


@formula("decode_time")
def calm_latency_sm(*, n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats=3,
                    tied=0, context, batch=1, bits_weight=16, bits_kv=16, bandwidth,
                    peak_vector):
    """Step time of the calm notebook's ``latency(tensorcores=False)``: the weights on the
    vector units (the larger of their memory and compute times), plus attention (likewise).

    Examples
    --------
    Llama-7b on the notebook's A100 80GB PCIe, one sequence of 1024 tokens:

    >>> t = calm_latency_sm(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32,
    ...                     n_kv_heads=32, d_ff=11008, context=1024, batch=1,
    ...                     bandwidth=1935e9, peak_vector=19.5e12)
    >>> round(t * 1e3, 2)
    7.11
    """
    active, weights_s, attention_s = _calm_weights_and_attention(
        n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats, tied, context, batch,
        bits_weight, bits_kv, bandwidth, peak_vector)
    return sp.Max(weights_s, 2 * active * batch / peak_vector, evaluate=False) + attention_s


@formula("decode_time")
def calm_latency_tc(*, n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats=3,
                    tied=0, context, batch=1, bits_weight=16, bits_kv=16, bandwidth,
                    peak_vector, peak_tensor, tensor_scale=2):
    """Step time of the calm notebook's ``latency(tensorcores=True)``: the batch rounded up to
    16 ("tensor cores operate on 16x16 matrices") at the tensor rate times the notebook's
    ``tensorscale`` (1 for 32-bit weights, 2 otherwise), plus attention on the vector units.

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
    active, weights_s, attention_s = _calm_weights_and_attention(
        n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff, n_mlp_mats, tied, context, batch,
        bits_weight, bits_kv, bandwidth, peak_vector)
    rounded = 16 * sp.floor((batch + 15) / 16)
    return (sp.Max(weights_s, 2 * active * rounded / (peak_tensor * tensor_scale),
                   evaluate=False) + attention_s)


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
    """Keyword arguments of the calm functions for a :class:`~llm_arithmetic.catalog.model.Model`.

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
