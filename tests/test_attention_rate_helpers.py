"""The book's helpers take attention at the cache's rate, as the estimate does.

Each helper's result is derived here by hand: model shapes from the checkpoint's config.json,
FLOPs and bytes counted from them, rates and bandwidths typed from the datasheets the catalog
cites. The weights' products run at their format's rate (int8 for llama.cpp's Q4_0 on an NVIDIA
card, fp8 for fp8 weights on an H100), attention's at the 16-bit cache's.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import llama_shapes
from llm_arithmetic import estimate
from llm_arithmetic.catalog.hardware import get_hardware
from llm_arithmetic.catalog.model_catalog import get_model

# NVIDIA Ada GPU architecture whitepaper (v1.03, appendix table 2), GeForce RTX 4090: memory
# bandwidth 1,008 GB/s; dense INT8 tensor 660.6 TOPS; FP16 tensor with FP16 accumulate 330.3
# TFLOPS. https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf
RTX4090_BW, RTX4090_INT8, RTX4090_FP16 = 1008e9, 660.6e12, 330.3e12
# NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: 3.35 TB/s; the GTC22 Hopper whitepaper,
# dense: FP16 989.4 TFLOPS, FP8 1,978.9 TFLOPS.
# https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet
# https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper
H100_BW, H100_FP16, H100_FP8 = 3.35e12, 989.4e12, 1978.9e12
Q4_0_BITS = 4.5   # llama.cpp's Q4_0: blocks of 32 4-bit weights and one fp16 scale


def _prefill_parts(m: dict, prompt: int, before: int = 0) -> tuple[int, int]:
    """FLOPs of prompt tokens ``before + 1 .. prompt``: the weights' (2 per block weight per
    token, the head once) and the causal attention's (4 H d_head per query-key pair a layer)."""
    pairs = prompt * (prompt + 1) // 2 - before * (before + 1) // 2
    return (2 * m["blocks"] * (prompt - before) + 2 * m["head"],
            4 * m["L"] * m["H"] * m["d_head"] * pairs)


def test_the_datasheet_figures_are_the_catalog_s():
    g, h = get_hardware("rtx-4090"), get_hardware("h100-sxm")
    assert (g.bandwidth, g.peak("int8"), g.peak("fp16-acc16")) == (RTX4090_BW, RTX4090_INT8,
                                                                    RTX4090_FP16)
    assert (h.bandwidth, h.peak("fp16"), h.peak("fp8")) == (H100_BW, H100_FP16, H100_FP8)


def test_the_critical_prompt_takes_attention_at_the_cache_s_rate():
    """Llama 3.3 70B, fp8 weights on an H100 SXM, a 16-bit cache: T* solves
    (W + kappa T) / beta = (2 P_blocks T + 2 P_head) / R_fp8 + 2 L H d_head T (T + 1) / R_fp16,
    a quadratic a T^2 + b T - c = 0, by hand; the figure's marker is the same T*."""
    from llm_arithmetic.book.chapters.prefill import critical_prompt
    from llm_arithmetic.book.plots import prefill_time_vs_prompt

    m = llama_shapes("llama-3.3-70b")
    W, kappa = m["read"] * 1, m["kv16"]          # fp8: one byte a weight
    attn = 2 * m["L"] * m["H"] * m["d_head"]     # 4 H d_head per pair, T (T + 1) / 2 pairs
    a = attn / H100_FP16
    b = 2 * m["blocks"] / H100_FP8 + attn / H100_FP16 - kappa / H100_BW
    c = W / H100_BW - 2 * m["head"] / H100_FP8
    by_hand = (-b + math.sqrt(b * b + 4 * a * c)) / (2 * a)
    model, chip = get_model("llama-3.3-70b"), get_hardware("h100-sxm")
    t, e = critical_prompt(model, chip, "fp8")
    assert (e.compute_precision, e.attention_precision) == ("fp8", "fp16")
    assert t == pytest.approx(by_hand, rel=1e-9)
    # attention at the weights' fp8 rate would put T* a little later (its FLOPs cheaper)
    one_rate = (-(b - attn / H100_FP16 + attn / H100_FP8)
                + math.sqrt((b - attn / H100_FP16 + attn / H100_FP8) ** 2
                            + 4 * attn / H100_FP8 * c)) / (2 * attn / H100_FP8)
    assert by_hand < one_rate
    ax = prefill_time_vs_prompt(model, chip, "fp8", prompts=[1, 100, 1000])
    (marker,) = [ln for ln in ax.lines if ln.get_label().startswith("critical prompt")]
    assert float(marker.get_xdata()[0]) == pytest.approx(by_hand, rel=1e-9)


def test_the_free_chunk_is_timed_at_both_rates():
    """Llama 3.1 8B at Q4_0 on an RTX 4090, 16 sequences at 4,096 tokens: the step's idle
    compute is its memory time less its compute time (the weights' FLOPs at int8, attention's
    at fp16), and the last chunk of a 2,000-token prompt fits where its own FLOPs, split the
    same way, take no longer than that plus the time its cache writes add."""
    from llm_arithmetic.book.batching import largest_free_chunk

    m, S, B, T = llama_shapes("llama-3.1-8b"), 4096, 16, 2000
    memory = (m["read"] * Q4_0_BITS / 8 + B * m["kv16"] * S) / RTX4090_BW
    compute = B * (2 * (m["blocks"] + m["head"]) / RTX4090_INT8
                   + 4 * m["L"] * m["H"] * m["d_head"] * S / RTX4090_FP16)
    idle = memory - compute

    def fits(c: int) -> bool:
        w, att = _prefill_parts(m, T, T - c)
        return w / RTX4090_INT8 + att / RTX4090_FP16 <= idle + c * m["kv16"] / RTX4090_BW

    by_hand = max(c for c in range(1, T + 1) if fits(c))
    chunk, share = largest_free_chunk(get_model("llama-3.1-8b"), get_hardware("rtx-4090"), T,
                                      S, B, "q4_0")
    assert chunk == by_hand
    assert share == pytest.approx(100 * idle / memory, rel=1e-9)
    # at one rate (every FLOP at int8) the chunk would be larger than the split allows
    one = max(c for c in range(1, T + 1)
              if sum(_prefill_parts(m, T, T - c)) / RTX4090_INT8
              <= (memory - B * (2 * (m["blocks"] + m["head"])
                                + 4 * m["L"] * m["H"] * m["d_head"] * S) / RTX4090_INT8)
              + c * m["kv16"] / RTX4090_BW)
    assert chunk < one


def test_n_chips_as_one_keep_both_rates():
    """cases.on: Llama 2 70B at fp8 on two H100s working as one, 32 sequences at 4,096 tokens:
    the compute time is the weights' FLOPs at twice the fp8 rate plus attention's at twice the
    fp16 rate; the laptop case's first token is the estimate's prefill, split the same way."""
    from llm_arithmetic.book.cases import laptop_case, on

    m, S, B = llama_shapes("llama-2-70b"), 4096, 32
    e = on(get_model("llama-2-70b"), get_hardware("h100-sxm"), 2, weights="fp8", context=S,
           batch=B)
    by_hand = B * (2 * (m["blocks"] + m["head"]) / (2 * H100_FP8)
                   + 4 * m["L"] * m["H"] * m["d_head"] * S / (2 * H100_FP16))
    assert e.decode_compute_seconds == pytest.approx(by_hand, rel=1e-12)
    assert (e.bandwidth, e.capacity) == (2 * H100_BW, 2 * get_hardware("h100-sxm").capacity)

    # a 4,096-token prompt of Llama 3.1 8B at Q4_0 on an RTX 4090 is compute-bound
    m8, T = llama_shapes("llama-3.1-8b"), 4096
    w, att = _prefill_parts(m8, T)
    prefill = w / RTX4090_INT8 + att / RTX4090_FP16
    assert prefill > (m8["read"] * Q4_0_BITS / 8 + T * m8["kv16"]) / RTX4090_BW
    _, ttft, _ = laptop_case(get_model("llama-3.1-8b"), get_hardware("rtx-4090"), "q4_0", 512, T,
                             {})
    assert ttft == pytest.approx(prefill, rel=1e-12)


def test_a_verify_step_takes_the_decode_step_s_rate():
    """Speculative verification of k = 4 draft tokens for 512 sequences at 512 tokens, Llama 3.1
    8B at Q4_0 on an RTX 4090: the plain step is memory-bound, the verify step (5 tokens a
    sequence, the same bytes) compute-bound, so the ratio is the verify step's compute time,
    5 B (F_w / R_int8 + F_attn / R_fp16), over the plain step's memory time."""
    from llm_arithmetic.book.plots import verify_step_ratio

    m, S, B, k = llama_shapes("llama-3.1-8b"), 512, 512, 4
    memory = (m["read"] * Q4_0_BITS / 8 + B * m["kv16"] * S) / RTX4090_BW
    per_token = (2 * (m["blocks"] + m["head"]) / RTX4090_INT8
                 + 4 * m["L"] * m["H"] * m["d_head"] * S / RTX4090_FP16)
    assert B * per_token < memory < (k + 1) * B * per_token
    r = verify_step_ratio(get_model("llama-3.1-8b"), get_hardware("rtx-4090"), "q4_0", S,
                          np.array([float(B)]), k)
    assert float(r[0]) == pytest.approx((k + 1) * B * per_token / memory, rel=1e-9)


def test_the_step_time_figure_takes_both_rates():
    """time_per_token_vs_batch: Llama 3.1 8B at Q4_0 on an RTX 4090, 1,024 sequences at 128
    tokens, is compute-bound; its step is 1024 (F_w / R_int8 + F_attn / R_fp16)."""
    from llm_arithmetic.book.plots import time_per_token_vs_batch

    m, S, B = llama_shapes("llama-3.1-8b"), 128, 1024
    compute = B * (2 * (m["blocks"] + m["head"]) / RTX4090_INT8
                   + 4 * m["L"] * m["H"] * m["d_head"] * S / RTX4090_FP16)
    assert compute > (m["read"] * Q4_0_BITS / 8 + B * m["kv16"] * S) / RTX4090_BW
    ax = time_per_token_vs_batch(get_model("llama-3.1-8b"), get_hardware("rtx-4090"),
                                 batches=[1, B], contexts=(S,), weights="q4_0")
    assert float(ax.lines[0].get_ydata()[-1]) == pytest.approx(compute * 1e3, rel=1e-9)


def test_a_mixed_step_s_rate_is_labelled_with_both_units():
    """--explain: the decode step's effective rate of Q4_0 weights (int8, integer operations)
    and a 16-bit cache (FLOPs) is neither TOP/s nor TFLOP/s; by hand, 23,599,251,456 FLOPs a
    token at 16,384 tokens over 15,009,316,864 at 660.6 TOP/s plus 8,589,934,592 at 330.3
    TFLOP/s, 484.3 T(OP+FLOP)/s. The weights' peak stays in TOP/s, attention's in TFLOP/s, and
    fp8 weights with a 16-bit cache mix two floating-point rates: FLOP/s."""
    from llm_arithmetic.explain import explain

    m, S = llama_shapes("llama-3.1-8b"), 16384
    w, att = 2 * (m["blocks"] + m["head"]), 4 * m["L"] * m["H"] * m["d_head"] * S
    assert (w, att) == (15_009_316_864, 8_589_934_592)
    rate = (w + att) / (w / RTX4090_INT8 + att / RTX4090_FP16)
    e = estimate("llama-3.1-8b", hardware="rtx-4090", weights="q4_0", context=S)
    x = explain(e, "decode_peak_flops")
    assert x.value == pytest.approx(rate, rel=1e-12) and x.unit == "(OP+FLOP)/s"
    assert f"{rate / 1e12:,.1f} T(OP+FLOP)/s" == "484.3 T(OP+FLOP)/s" == x.value_text
    assert explain(e, "peak_flops").unit == "OP/s"
    assert explain(e, "attention_peak_flops").unit == "FLOP/s"
    t = explain(e, "decode_seconds_per_token")
    assert [a.unit for a in t.arguments if a.name == "peak_flops"] == ["(OP+FLOP)/s"]
    e8 = estimate("llama-3.1-8b", hardware="h100-sxm", weights="fp8", context=S)
    assert explain(e8, "decode_peak_flops").unit == "FLOP/s"


# Intel Arc Pro B70: 608 GB/s and 367 INT8 TOPS dense on the XMX engines, the one rate the
# catalog's source prints (no FP16 or FP32 rate is stored).
# https://zolotukhin.ai/blog/2026-05-18-intel-arc-pro-b70-deep-dive-and-zincs-t-intel-plan/
ARC_BW, ARC_INT8 = 608e9, 367e12


def test_a_chip_lacking_a_rate_gives_what_the_estimate_gives():
    """Both chapters' critical-context helpers (chapter 9's batching.critical_context_of,
    chapter 6's speed_of_light.critical_context) take a missing rate as the estimate does.

    The Arc Pro B70 lists an int8 rate alone. With int8 weights attention has no rate at its
    16-bit cache's precision: the estimate runs it at the weights' int8 rate, so S∞ is the
    one-rate closed form 2 P_mm beta / (kappa R - 4 L H d_head beta), by hand (it read NaN:
    attention was taken infinitely fast). With 16-bit weights the chip lists neither rate, as
    Vera Rubin (fp4 alone) does not: the estimate's FLOPs take no time and its critical batch
    is None, so every context is past S∞, 0 in both helpers (chapter 6's read NaN)."""
    from llm_arithmetic.book.batching import (attn_of, critical_context_expr,
                                              critical_context_of, peak_of)
    from llm_arithmetic.book.chapters.speed_of_light import critical_context
    from llm_arithmetic.book.prelude import model_args

    arc, rubin = get_hardware("arc-pro-b70"), get_hardware("vera-rubin")
    assert (arc.bandwidth, arc.peak("int8"), sorted(arc.peaks)) == (ARC_BW, ARC_INT8, ["int8"])
    assert "fp16" not in rubin.peaks and "fp8" not in rubin.peaks
    m, model = llama_shapes("llama-2-7b"), get_model("llama-2-7b")
    p_mm = m["blocks"] + m["head"]
    by_hand = 2 * p_mm * ARC_BW / (m["kv16"] * ARC_INT8 - 4 * m["L"] * m["H"] * m["d_head"]
                                   * ARC_BW)
    e = estimate(model, hardware=arc, weights="int8")
    assert (e.peak_flops, e.attention_peak_flops) == (ARC_INT8, ARC_INT8)
    assert attn_of(arc, weights="int8") == ARC_INT8
    s_inf = critical_context_expr()
    got = critical_context_of(s_inf, model, arc, peak_of(arc, "int8"))
    assert got == pytest.approx(by_hand, rel=1e-9)
    # the same chip given attention's rate explicitly (the caller's) keeps it
    assert critical_context_of(s_inf, model, arc, ARC_INT8, attn_peak=ARC_INT8) == got
    for chip in (arc, rubin):
        assert estimate(model, hardware=chip).critical_batch_size is None
        assert attn_of(chip) == math.inf
        assert critical_context_of(s_inf, model, chip, peak_of(chip, "fp16")) == 0.0
        assert critical_context_of(s_inf, model, chip, None) == 0.0   # estimate's peak: None
        assert critical_context(model_args(model), chip) == 0.0
        assert critical_context(model_args(model, bits_kv=8), chip, bits_kv=8) == 0.0
    # a chip with both rates is unchanged: chapter 6's equals chapter 9's
    h100 = get_hardware("h100-sxm")
    assert critical_context(model_args(model), h100) == pytest.approx(
        critical_context_of(s_inf, model, h100, peak_of(h100, "fp16")), rel=1e-12)
