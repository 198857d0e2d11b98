"""Karpathy's note: its inputs, its three ratios, and the context limit of compute-bound decode.

Expected values come from the note's own numbers worked by hand (exact fractions), from
finbarr's "161", or from a second derivation with sympy of the package's own expressions; none
is copied from the module's output.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from llm_arithmetic import get_hardware, get_model
from llm_arithmetic.formulas import roofline
from llm_arithmetic.articles import karpathy as K
from llm_arithmetic.core import symbols as S
from llm_arithmetic.core.symbols import GLOSSARY, context


def test_inputs_are_the_catalogs_article_figures():
    # the catalog records what the note used; the module's constants must be the same numbers
    figs = {(h, f.quantity): f.value for h in ("a100-80gb-pcie", "m2")
            for f in get_hardware(h).article_figures if f.article == "karpathy2023note"}
    assert figs[("a100-80gb-pcie", "bandwidth")] == K.A100_BANDWIDTH == 1935e9
    assert figs[("a100-80gb-pcie", "peak:int4")] == K.A100_OPS == 1248e12
    assert figs[("m2", "bandwidth")] == K.M2_BANDWIDTH == 100e9
    assert figs[("m2", "peak:fp16")] == K.M2_FLOPS == 7e12


def test_ratios_from_the_notes_numbers_exactly():
    # 1248/7, 1935/100 and (1248/7)/(1935/100) = 124800/13545, by hand
    r = K.karpathy_compute_ratio(peak_flops_a=1248, peak_flops_b=7)
    assert r == pytest.approx(float(Fraction(1248, 7)))
    assert K.karpathy_bandwidth_ratio(bandwidth_a=1935, bandwidth_b=100) == pytest.approx(19.35)
    g = K.karpathy_naive_gain(peak_flops_a=1248, bandwidth_a=1935, peak_flops_b=7, bandwidth_b=100)
    assert g == pytest.approx(float(Fraction(124800, 13545)), rel=1e-15)
    # the note's rounded claims: ~200, ~20, ~10 at one significant figure
    assert round(float(Fraction(1248, 7)), -2) == K.COMPUTE_RATIO_CLAIM
    assert round(19.35, -1) == K.BANDWIDTH_RATIO_CLAIM == K.SLOWDOWN_CLAIM
    assert round(g) in (9, 10) and K.NAIVE_GAIN_CLAIM == 10


def test_naive_gain_is_the_ratio_of_ops_per_byte():
    a, b = get_hardware("a100-80gb-pcie"), get_hardware("m2")
    g = K.karpathy_naive_gain(peak_flops_a=a.peak("fp16"), bandwidth_a=a.bandwidth,
                     peak_flops_b=b.peak("fp16"), bandwidth_b=b.bandwidth)
    assert g == pytest.approx(a.ops_per_byte("fp16") / b.ops_per_byte("fp16"), rel=1e-12)
    # symbolically: (pi_A/pi_B)/(beta_A/beta_B) == (pi_A/beta_A)/(pi_B/beta_B)
    other = (S.peak_flops_a / S.bandwidth_a) / (S.peak_flops_b / S.bandwidth_b)
    assert sp.simplify(K.karpathy_naive_gain.expr - other) == 0
    # like for like (dense fp16 tensor 312 vs the M2 GPU's 3.579): 312/1.935 / 35.79 ~ 4.5
    assert g == pytest.approx((312 / 1.935) / 35.79, rel=1e-9)


def test_vectorized_over_chips():
    g = K.karpathy_naive_gain(peak_flops_a=np.array([1248e12, 312e12]), bandwidth_a=1935e9,
                     peak_flops_b=np.array([7e12, 3.579e12]), bandwidth_b=100e9)
    assert g.shape == (2,) and g[0] > 2 * g[1]


def test_glossary_holds_the_two_chip_symbols():
    for name in ("bandwidth_a", "bandwidth_b", "peak_flops_a", "peak_flops_b"):
        assert GLOSSARY[name].symbol in K.karpathy_naive_gain.expr.free_symbols


def test_matched_precision_leaves_finbarrs_161_unchanged():
    # weights-only (S = 0) critical batch = pi * (b/8) / (2 beta): fp16 at 312 TF, int8 at 624
    # TOPS and int4 at 1248 TOPS all give 312e12 / 1935e9 = 161.24 (finbarr's "161")
    P = 6_738_415_616
    for bits, peak in ((16, 312e12), (8, 624e12), (4, 1248e12)):
        b = roofline.critical_batch_size(weight_bytes=P * bits / 8, kv_cache_bytes_per_token=0,
                                         matmul_params=P, n_layers=32, n_heads=32, d_head=128,
                                         context=0, bandwidth=1935e9, peak_flops=peak)
        assert b == pytest.approx(312e12 / 1935e9) and int(b) == K.FINBARR_CRITICAL_BATCH
    # 4-bit weights computed in fp16 (dequantized on the fly): a quarter of it
    b = roofline.critical_batch_size(weight_bytes=P / 2, kv_cache_bytes_per_token=0, matmul_params=P,
                                     n_layers=32, n_heads=32, d_head=128, context=0,
                                     bandwidth=1935e9, peak_flops=312e12)
    assert b == pytest.approx(312e12 / 1935e9 / 4)


def _critical(model, S, beta=1935e9, pi=312e12):
    return roofline.critical_batch_size(
        weight_bytes=2 * model.decode_read_params, kv_cache_bytes_per_token=model.kv_cache_bytes_per_token(),
        matmul_params=model.matmul_params, n_layers=model.n_layers, n_heads=model.n_heads,
        d_head=model.d_head, context=S, bandwidth=beta, peak_flops=pi)


@pytest.mark.parametrize("name", ["llama-7b", "mistral-7b", "llama-2-70b"])
def test_context_limit_is_where_the_critical_batch_diverges(name):
    m = get_model(name)
    kw = dict(kv_cache_bytes_per_token=m.kv_cache_bytes_per_token(), matmul_params=m.matmul_params,
              n_layers=m.n_layers, n_heads=m.n_heads, d_head=m.d_head)
    s_max = roofline.critical_context(bandwidth=1935e9, peak_flops=312e12, **kw)
    # second derivation: solve the package's denominator of B* for S with sympy
    per_seq = roofline.critical_batch_size.expr.args[1][0].as_numer_denom()[1]
    subs = {S.kv_cache_bytes_per_token: kw["kv_cache_bytes_per_token"], S.matmul_params: kw["matmul_params"],
            S.n_layers: kw["n_layers"], S.n_heads: kw["n_heads"], S.d_head: kw["d_head"],
            S.bandwidth: sp.Integer(1935) * 10**9, S.peak_flops: sp.Integer(312) * 10**12,
            S.attn_peak_flops: sp.Integer(312) * 10**12}  # one rate: attention's the same
    s = sp.Symbol("s", real=True)  # the context, free of its integer assumption
    root = sp.solve(sp.Eq(per_seq.xreplace(subs).xreplace({context: s}), 0), s)
    assert len(root) == 1 and s_max == pytest.approx(float(root[0]), rel=1e-12)
    assert np.isfinite(_critical(m, int(s_max)))
    assert _critical(m, int(s_max) + 1) == float("inf")


def test_context_limit_is_infinite_when_the_cache_is_cheap():
    # kappa pi <= 4 L H d_head beta: a chip with fewer FLOPs per byte than attention does
    s = roofline.critical_context(kv_cache_bytes_per_token=2, matmul_params=10**9, n_layers=1,
                                      n_heads=1, d_head=1, bandwidth=10, peak_flops=20)
    assert s == float("inf")
    # LLaMA-7B has 524,288 cache bytes per token = 4 L H d_head: the limit is then
    # 2 P_mm / (4 L H d_head (pi/beta - 1)) for any chip; on an A100 at fp16, 157.3 tokens
    m = get_model("llama-7b")
    expect = 2 * m.matmul_params / (524288 * (312e12 / 1935e9 - 1))
    got = roofline.critical_context(kv_cache_bytes_per_token=524288, matmul_params=m.matmul_params,
                                        n_layers=32, n_heads=32, d_head=128,
                                        bandwidth=1935e9, peak_flops=312e12)
    assert got == pytest.approx(expect, rel=1e-12)
