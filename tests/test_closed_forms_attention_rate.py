"""The roofline's closed forms take attention at its own rate.

``decode_step_time``, ``critical_batch_size``, ``critical_context`` and ``prefill_time`` take an
optional ``attn_peak_flops``: the products with the weights run at ``peak_flops`` (int8 for
llama.cpp's Q4_0 on an NVIDIA card), attention's (scores and weighted values over the cache) at
the cache's rate. Left out, it is ``peak_flops``: the single-rate form. Each test derives the
value by hand: Llama 3.1 8B's shapes from its config.json, its weights in matrix products
counted from them, rates and bandwidth typed from the datasheet the catalog cites.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import llama_shapes
from llm_arithmetic.catalog.hardware import get_hardware
from llm_arithmetic.formulas import roofline

# NVIDIA Ada GPU architecture whitepaper (v1.03, appendix table 2), GeForce RTX 4090: dense
# INT8 tensor 660.6 TOPS, FP16 tensor with FP16 accumulate 330.3 TFLOPS; memory bandwidth
# 1,008 GB/s.
# https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf
R8, R16, BW = 660.6e12, 330.3e12, 1008e9


def _llama_31_8b() -> dict:
    """Llama 3.1 8B's shapes and weights counted by hand (conftest.llama_shapes), with
    ``p_mm``, its weights in matrix products (the blocks' and the head's); ``W``, those at
    Q4_0's 4.5 bits (18 bytes a block of 32); ``kappa``, its 16-bit cache a token."""
    m = llama_shapes("llama-3.1-8b")
    p_mm = m["blocks"] + m["head"]
    return dict(m, p_mm=p_mm, W=p_mm * 18 // 32, kappa=m["kv16"])


def _args(m: dict) -> dict:
    return dict(weight_bytes=m["W"], kv_cache_bytes_per_token=m["kappa"],
                matmul_params=m["p_mm"], n_layers=m["L"], n_heads=m["H"], d_head=m["d_head"],
                bandwidth=BW)


def test_the_datasheet_figures_are_the_catalog_s():
    h = get_hardware("rtx-4090")
    assert (h.peaks["int8"].rate, h.peaks["fp16-acc16"].rate, h.bandwidth) == (R8, R16, BW)


def test_decode_step_time_takes_attention_at_its_rate():
    """1,024 sequences of 64 cached tokens: compute-bound; 2 P_mm B FLOPs at the int8 rate,
    4 L H d_head S B at the 16-bit rate."""
    m, b, s = _llama_31_8b(), 1024, 64
    weights = 2 * m["p_mm"] * b
    attention = 4 * m["L"] * m["H"] * m["d_head"] * s * b
    memory = (m["W"] + b * m["kappa"] * s) / BW
    by_hand = weights / R8 + attention / R16
    assert by_hand > memory
    t = roofline.decode_step_time(context=s, batch=b, peak_flops=R8, attn_peak_flops=R16,
                                  **_args(m))
    assert t == pytest.approx(by_hand, rel=1e-12)
    # the single rate is the special case, and a different number here
    one_rate = roofline.decode_step_time(context=s, batch=b, peak_flops=R8, **_args(m))
    assert one_rate == pytest.approx((weights + attention) / R8, rel=1e-12)
    assert t - one_rate == pytest.approx(attention * (1 / R16 - 1 / R8), rel=1e-9)


def test_critical_batch_size_takes_attention_at_its_rate():
    """B* at S = 64: W / beta = B* (2 P_mm / R8 + 4 L H d_head S / R16 - kappa S / beta)."""
    m, s = _llama_31_8b(), 64
    per_seq = 2 * m["p_mm"] / R8 + 4 * m["L"] * m["H"] * m["d_head"] * s / R16 \
        - m["kappa"] * s / BW
    assert per_seq > 0  # below S_inf
    by_hand = (m["W"] / BW) / per_seq
    b = roofline.critical_batch_size(context=s, peak_flops=R8, attn_peak_flops=R16, **_args(m))
    assert b == pytest.approx(by_hand, rel=1e-12)
    one_rate = roofline.critical_batch_size(context=s, peak_flops=R8, **_args(m))
    assert abs(one_rate / b - 1) > 1e-3


def test_critical_context_takes_attention_at_its_rate():
    """S_inf: a sequence's cache time equals its compute time per added token of context,
    kappa S / beta = 2 P_mm / R8 + 4 L H d_head S / R16, so S = (2 P_mm / R8) /
    (kappa / beta - 4 L H d_head / R16); at one int8 rate the attention term halves."""
    m = _llama_31_8b()
    attn = 4 * m["L"] * m["H"] * m["d_head"]
    by_hand = (2 * m["p_mm"] / R8) / (m["kappa"] / BW - attn / R16)
    args = {k: v for k, v in _args(m).items() if k != "weight_bytes"}
    s = roofline.critical_context(peak_flops=R8, attn_peak_flops=R16, **args)
    assert s == pytest.approx(by_hand, rel=1e-12)
    # exactly half of the 16-bit S_inf: only the weights' term halved
    s16 = roofline.critical_context(peak_flops=R16, **args)
    assert s == pytest.approx(s16 / 2, rel=1e-12)
    one_rate = roofline.critical_context(peak_flops=R8, **args)
    assert one_rate == pytest.approx((2 * m["p_mm"] / R8) / (m["kappa"] / BW - attn / R8),
                                     rel=1e-12)
    assert one_rate < s


def test_prefill_time_takes_attention_at_its_rate():
    """An 8,192-token prefill: 2 (P_mm - P_head) T + 2 P_head FLOPs of the weights (the head
    once) at the int8 rate, 4 L H d_head T (T + 1) / 2 of attention at the 16-bit rate;
    compute-bound."""
    m, t = _llama_31_8b(), 8192
    weights = 2 * (m["p_mm"] - m["head"]) * t + 2 * m["head"]
    attention = 4 * m["L"] * m["H"] * m["d_head"] * t * (t + 1) // 2
    by_hand = weights / R8 + attention / R16
    assert by_hand > (m["W"] + m["kappa"] * t) / BW
    p = roofline.prefill_time(prompt=t, head_params=m["head"], peak_flops=R8,
                              attn_peak_flops=R16, **_args(m))
    assert p == pytest.approx(by_hand, rel=1e-12)
    one_rate = roofline.prefill_time(prompt=t, head_params=m["head"], peak_flops=R8, **_args(m))
    assert one_rate == pytest.approx((weights + attention) / R8, rel=1e-12)


def test_the_rate_is_optional_in_every_form():
    """Left out, ``attn_peak_flops`` is ``peak_flops``: in sympy, in the generated Python and
    in the page's JavaScript."""
    from llm_arithmetic.core.symbols import GLOSSARY

    js = (Path(roofline.__file__).parents[1] / "numeric" / "formulas.js").read_text()
    m = _llama_31_8b()
    numbers = dict(_args(m), context=300, batch=4, prompt=300, head_params=m["head"],
                   generated=10, peak_flops=R8)
    for f in (roofline.decode_step_time, roofline.critical_batch_size,
              roofline.critical_context, roofline.prefill_time, roofline.generation_time):
        assert f.params[-1] == "attn_peak_flops"
        symbols = {p: GLOSSARY[p].symbol for p in f.params[:-1]}
        assert f(**symbols) == f(**symbols, attn_peak_flops=GLOSSARY["peak_flops"].symbol)
        given = {p: numbers[p] for p in f.params[:-1] if p in numbers}
        assert f(**given) == f(**given, attn_peak_flops=R8)
        assert f"export function {f.name}(" in js
        line = js.split(f"export function {f.name}(", 1)[1].split("\n", 1)[0]
        assert line.endswith("peak_flops, attn_peak_flops = peak_flops} = {}) {")
