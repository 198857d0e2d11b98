"""Attention runs at the cache's rate, not the weights'.

A step's products with the weights run at the rate of the weights' compute precision (int8 for
llama.cpp's block formats on an NVIDIA card); attention's (scores and weighted values over the
cached keys and values) multiply activations by the cache, so they run at the rate of the
cache's precision. These tests derive the split by hand: model shapes from the checkpoint's
config.json, FLOPs counted from them, rates typed from the datasheets the catalog cites.
"""
from __future__ import annotations

import pytest

from conftest import llama_shapes
from llm_arithmetic import estimate
from llm_arithmetic.catalog.hardware import get_hardware

# NVIDIA Ada GPU architecture whitepaper (v1.03, appendix table 2), GeForce RTX 4090, dense:
# INT8 tensor 660.6 TOPS; FP16 tensor with FP16 accumulate 330.3 TFLOPS.
# https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf
RTX4090_INT8, RTX4090_FP16_ACC16 = 660.6e12, 330.3e12
# NVIDIA H100 Tensor Core GPU Architecture (GTC22 whitepaper), H100 SXM5, dense: FP16 989.4
# TFLOPS, FP8 1,978.9 TFLOPS.
# https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper
H100_FP16, H100_FP8 = 989.4e12, 1978.9e12


def test_the_datasheet_rates_are_the_catalog_s():
    peaks = get_hardware("rtx-4090").peaks
    assert (peaks["int8"].rate, peaks["fp16-acc16"].rate) == (RTX4090_INT8, RTX4090_FP16_ACC16)
    peaks = get_hardware("h100-sxm").peaks
    assert (peaks["fp16"].rate, peaks["fp8"].rate) == (H100_FP16, H100_FP8)


@pytest.mark.parametrize("prompt", [4096, 8192, 32768])
def test_a_q4_prefill_on_an_rtx_4090_by_hand(prompt):
    """A Q4_0 prefill of Llama 3.1 8B on an RTX 4090 is compute-bound: its weights' FLOPs
    (2 per weight of the blocks per token, the head once, for the last position) at the int8
    rate, its attention's (4 H d_head per query-key pair per layer, T (T + 1) / 2 causal pairs)
    at the 16-bit rate of its 16-bit cache. The bound rose from the one-rate bound by exactly
    the attention FLOPs x (1/r16 - 1/r8)."""
    m = llama_shapes("llama-3.1-8b")
    weights = 2 * m["blocks"] * prompt + 2 * m["head"]
    attention = m["L"] * 4 * m["H"] * m["d_head"] * prompt * (prompt + 1) // 2
    e = estimate("llama-3.1-8b", hardware="rtx-4090", weights="q4_0", prompt=prompt,
                 context=prompt, generate=1)
    assert (e.compute_precision, e.attention_precision) == ("int8", "fp16-acc16")
    assert (e.peak_flops, e.attention_peak_flops) == (RTX4090_INT8, RTX4090_FP16_ACC16)
    by_hand = weights / RTX4090_INT8 + attention / RTX4090_FP16_ACC16
    one_rate = (weights + attention) / RTX4090_INT8
    # compute-bound: 4.5 bits a weight is under 5 GB, 5 ms at 1,008 GB/s, against >= 50 ms
    assert one_rate > 0.05
    assert e.ttft_seconds == pytest.approx(by_hand, rel=1e-12)
    assert e.ttft_seconds - one_rate == pytest.approx(
        attention * (1 / RTX4090_FP16_ACC16 - 1 / RTX4090_INT8), rel=1e-9)
    # the attention share the issue names: 7% to 40%+ of the FLOPs over 4k-32k prompts
    share = attention / (weights + attention)
    assert 0.07 <= share <= 0.41


def test_a_decode_step_by_hand():
    """A decode step of B sequences at S cached tokens: 2 P_mm B FLOPs at the int8 rate,
    4 L H d_head S B of attention at the 16-bit rate."""
    m = llama_shapes("llama-3.1-8b")
    S, B = 16384, 64
    weights = 2 * (m["blocks"] + m["head"]) * B
    attention = 4 * m["L"] * m["H"] * m["d_head"] * S * B
    e = estimate("llama-3.1-8b", hardware="rtx-4090", weights="q4_0", context=S, batch=B)
    assert e.decode_compute_seconds == pytest.approx(
        weights / RTX4090_INT8 + attention / RTX4090_FP16_ACC16, rel=1e-12)


def test_a_sixteen_bit_model_keeps_one_rate():
    """fp16 weights and a 16-bit cache on the RTX 4090: both at fp16-acc16, one rate, and the
    bound is the step's FLOPs over it."""
    e = estimate("llama-3.1-8b", hardware="rtx-4090", weights="fp16", prompt=8192,
                 context=8192, generate=1)
    assert e.attention_precision == e.compute_precision == "fp16-acc16"
    assert e.attention_peak_flops == e.peak_flops


def test_an_fp8_cache_runs_attention_at_fp8_where_the_chip_has_it():
    """vLLM's FlashAttention 3 backend multiplies in fp8 over an fp8 cache (the queries
    quantized too): on an H100 a bf16 model with an fp8 cache takes attention at the fp8 rate,
    twice the weights' bf16 rate; an A100, without fp8 units, keeps 16-bit products."""
    m = llama_shapes("llama-3.1-8b")
    T = 8192
    weights = 2 * m["blocks"] * T + 2 * m["head"]
    attention = m["L"] * 4 * m["H"] * m["d_head"] * T * (T + 1) // 2
    e = estimate("llama-3.1-8b", hardware="h100-sxm", weights="bf16", bits_kv="fp8",
                 prompt=T, context=T, generate=1)
    assert (e.compute_precision, e.attention_precision) == ("bf16", "fp8")
    assert e.ttft_seconds == pytest.approx(weights / H100_FP16 + attention / H100_FP8,
                                           rel=1e-12)
    assert estimate("llama-3.1-8b", hardware="a100-80gb-sxm", weights="bf16",
                    bits_kv=8).attention_precision in ("fp16", "bf16")
    # llama.cpp's q8_0 cache (8.5 bits) is converted to f16 for its tensor-core kernels
    assert estimate("llama-3.1-8b", hardware="h100-sxm", weights="q4_0",
                    bits_kv="q8_0").attention_precision == "fp16"


def test_a_given_peak_is_one_rate_for_both():
    e = estimate("llama-3.1-8b", bandwidth=1e12, peak_flops=100e12, weights="q4_0",
                 prompt=4096, context=4096)
    assert e.attention_peak_flops == e.peak_flops == 100e12


def test_the_search_and_the_estimate_agree_on_a_split_rate():
    """The deployment search evaluates the same plan: a Q4_0 point on the RTX 4090, whose
    prefill splits its rates, has the estimate's TTFT and TPOT."""
    from llm_arithmetic.deploy import search

    r = search("llama-3.1-8b", ttft=10.0, tpot=1.0, hardware=["rtx-4090"], weights=["q4_0"],
               kv_bits=[16], degrees=[1], prompt=8192, generate=64, max_batch=4,
               price_per_hour=1.0)
    c = r.configurations[0]
    e = estimate("llama-3.1-8b", hardware="rtx-4090", weights="q4_0", prompt=8192,
                 generate=64, context=8192, batch=c["batch"])
    assert c["ttft_seconds"] == pytest.approx(e.ttft_seconds, rel=1e-12)
    assert c["tpot_seconds"] == pytest.approx(e.tpot_seconds, rel=1e-12)
    assert e.attention_peak_flops != e.peak_flops
