"""The Baseten article's formulas and inputs (llm_arithmetic.articles.baseten).

Expected values are the article's printed numbers (with the rounding it printed) or a second
derivation written out here by hand, never the module's own output.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from llm_arithmetic import get_hardware, get_model
from llm_arithmetic.formulas import flops as F
from llm_arithmetic.formulas import memory as M
from llm_arithmetic.formulas import roofline as R
from llm_arithmetic.articles import baseten as B
from llm_arithmetic.core.symbols import bits, d_head, seq_len

N, d = seq_len, d_head


def test_inputs_agree_with_the_hardware_catalog_article_figures():
    """The catalog records what this article used; the module's constants must say the same."""
    expected = {
        ("a10", "peak:fp16"): B.A10_PEAK_FP16, ("a10", "bandwidth"): B.A10_BANDWIDTH,
        ("a10", "capacity"): B.A10_MEMORY, ("t4", "bandwidth"): B.T4_BANDWIDTH,
        ("t4", "peak:fp16"): B.T4_PEAK_FP16, ("t4", "capacity"): B.T4_MEMORY,
        ("a100-80gb-sxm", "bandwidth"): B.A100_BANDWIDTH,
        ("a100-80gb-sxm", "peak:fp16"): B.A100_PEAK_FP16,
    }
    for (hw, quantity), value in expected.items():
        figs = [f for f in get_hardware(hw).article_figures
                if f.article == B.ARTICLE and f.quantity == quantity]
        assert len(figs) == 1 and figs[0].value == value, (hw, quantity)


def test_article_gpus_table():
    assert {k: v[0] for k, v in B.ARTICLE_GPUS.items()} == {
        "T4": "t4", "A10": "a10", "A100 SXM 80 GB": "a100-80gb-sxm"}


def test_llama2_7b_shape_constants_match_the_catalog():
    m = get_model("llama-2-7b")
    assert (B.N_LAYERS, B.N_HEADS, B.D_HEAD, B.D_MODEL) == (
        m.n_layers, m.n_heads, m.d_head, m.d_model)
    assert B.N_HEADS * B.D_HEAD == B.D_MODEL


def test_algorithm0_lines_sum_to_the_article_totals():
    loads = sum(line.loads for line in B.ALGORITHM_0)
    stores = sum(line.stores for line in B.ALGORITHM_0)
    fl = sum(line.flops for line in B.ALGORITHM_0)
    # the article: "= 8N^2 + 8Nd bytes" and "= 4(N^2)d + 3N^2 ops"
    assert sp.expand((loads + stores).subs(bits, 16) - (8 * N**2 + 8 * N * d)) == 0
    assert sp.expand(fl - (4 * N**2 * d + 3 * N**2)) == 0
    # and the package's standard-attention expressions at fp16
    assert sp.expand(F.attention_standard_bytes.expr.subs(bits, 16) - (loads + stores).subs(bits, 16)) == 0
    assert sp.expand(F.attention_standard_flops.expr - fl) == 0


def test_article_memory_sum_term_by_term():
    """Six printed terms: the loads of lines 1-3, then the stores of lines 1-3 (fp16)."""
    by_line = [line.loads for line in B.ALGORITHM_0] + [line.stores for line in B.ALGORITHM_0]
    assert len(B.BASETEN_ATTENTION_BYTES_TERMS) == 6
    for term, cost in zip(B.BASETEN_ATTENTION_BYTES_TERMS, by_line):
        assert sp.expand(term - cost.subs(bits, 16)) == 0
    assert sp.expand(sum(B.BASETEN_ATTENTION_BYTES_TERMS) - (8 * N**2 + 8 * N * d)) == 0


def test_article_compute_sum_term_by_term():
    for term, line in zip(B.BASETEN_ATTENTION_FLOPS_TERMS, B.ALGORITHM_0):
        assert sp.expand(term - line.flops) == 0


def test_arithmetic_intensity_62():
    # by hand: 4096^2 (4*128 + 3) / (8 * 4096 * (4096 + 128)) = 4096*515 / 33792
    assert F.attention_standard_intensity(seq_len=4096, d_head=128) == pytest.approx(
        4096 * 515 / 33792)
    assert round(4096 * 515 / 33792) == 62


def test_kv_cache_per_token():
    assert B.baseten_kv_bytes_per_token(n_layers=32, d_model=4096) == 524288  # the article
    assert M.kv_cache_bytes_per_token(n_layers=32, n_kv_heads=32, d_head=128) == 524288


def test_kv_cache_tokens_from_the_rounded_and_the_exact_size():
    rounded = B.baseten_kv_cache_tokens(capacity=B.A10_MEMORY, n_params=B.N_PARAMS,
                                        kv_cache_bytes_per_token=B.KV_GB_PER_TOKEN * 10**9)
    assert int(rounded) == 19230  # the article's "19,230 tokens" (truncated)
    exact = B.baseten_kv_cache_tokens(capacity=B.A10_MEMORY, n_params=B.N_PARAMS,
                                      kv_cache_bytes_per_token=524288)
    assert exact == pytest.approx(10**10 / 2**19)  # 10 GB / 2^19 B
    assert int(exact) == 19073
    assert int(exact) // B.SEQ_LEN == B.BATCH == int(rounded) // B.SEQ_LEN


@pytest.mark.parametrize("gpu, ms", [("T4", 46), ("A10", 23), ("A100 SXM 80 GB", 6)])
def test_time_per_token_truncates_to_the_printed_ms(gpu, ms):
    _, bw, _ = B.ARTICLE_GPUS[gpu]
    t = B.baseten_time_per_token(n_params=B.N_PARAMS, bandwidth=bw)
    assert t == pytest.approx(14e9 / bw)
    assert int(t * 1e3) == ms


@pytest.mark.parametrize("gpu, ms", [("T4", 75), ("A10", 39), ("A100 SXM 80 GB", 16)])
def test_prefill_rounds_to_the_printed_ms(gpu, ms):
    _, _, peak = B.ARTICLE_GPUS[gpu]
    t = B.baseten_prefill_time(n_params=B.N_PARAMS, prompt=350, peak_flops=peak)
    assert t == pytest.approx(350 * 14e9 / peak)
    assert round(t * 1e3) == ms
    printed = B.baseten_prefill_time_as_printed(n_params=B.N_PARAMS, prompt=350, peak_flops=peak)
    assert printed == pytest.approx(t / 2)


@pytest.mark.parametrize("gpu, seconds", [("T4", 7.0754), ("A10", 3.5392), ("A100 SXM 80 GB", 1.0456)])
def test_generation_time_unrounded(gpu, seconds):
    # by hand: 350 * 14e9 / peak + 150 * 14e9 / bandwidth
    _, bw, peak = B.ARTICLE_GPUS[gpu]
    t = B.baseten_generation_time(n_params=B.N_PARAMS, prompt=350, generated=150,
                                  bandwidth=bw, peak_flops=peak)
    assert t == pytest.approx(350 * 14e9 / peak + 150 * 14e9 / bw)
    assert t == pytest.approx(seconds, abs=1e-4)


def test_generation_time_from_the_printed_intermediates_gives_the_printed_totals():
    # the article's own arithmetic: prefill ms + 150 * per-token ms
    assert (75 + 150 * 46) / 1e3 == pytest.approx(6.975)  # printed 6.98 s
    assert (39 + 150 * 23) / 1e3 == pytest.approx(3.489)  # printed 3.49 s
    assert (16 + 150 * 6) / 1e3 == pytest.approx(0.916)   # printed 0.92 s


def test_exact_on_integers_and_fractions():
    t = B.baseten_kv_cache_tokens(capacity=24, n_params=7, kv_cache_bytes_per_token=Fraction(1, 2))
    assert t == 20 and isinstance(t, int)


def test_decode_never_turns_compute_bound_on_the_a10_at_4096_tokens():
    """The article's batch of 4 does not reach the A10's balance point (second derivation)."""
    m = get_model("llama-2-7b")
    w = 2 * m.decode_read_params
    kw = dict(weight_bytes=w, kv_cache_bytes_per_token=524288, matmul_params=m.matmul_params,
              n_layers=32, n_heads=32, d_head=128, bandwidth=600e9, peak_flops=125e12)
    # per sequence at S = 4096: 2^19 * 4096 B of cache (3.58 ms at 600 GB/s) vs
    # 2 * 6.6e9 + 4*32*32*128*4096 FLOPs (0.12 ms at 125 TFLOP/s)
    assert 2**19 * 4096 / 600e9 > (2 * m.matmul_params + 4 * 32 * 32 * 128 * 4096) / 125e12
    assert R.critical_batch_size(context=4096, **kw) == float("inf")
    assert R.critical_batch_size(context=0, **kw) == pytest.approx(125e12 / 600e9, rel=1e-3)
