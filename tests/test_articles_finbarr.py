"""finbarr's "How is LLaMa.cpp possible?": the article's formulas against its own tables.

Expected values are the article's published numbers (its two table images, as recorded in the
project's reference notes) or a second derivation by hand arithmetic, never this module's output.
"""
from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp

from llm_arithmetic import get_hardware, get_model
from llm_arithmetic.formulas import memory
from llm_arithmetic.articles import finbarr as F
from llm_arithmetic.core.symbols import GLOSSARY, bits_weight
from llm_arithmetic.core.symbols import bandwidth as beta, batch as B, n_bytes as nb
from llm_arithmetic.core.symbols import peak_flops as pi
from llm_arithmetic.book.tables import rounds_to

CELLS = [(P, label, prec, nb) for P, label in zip(F.TABLE_PARAMS, F.TABLE_LABELS)
         for prec, nb in F.N_BYTES.items()]


def test_published_tables_are_complete():
    keys = {(label, prec) for _, label, prec, _ in CELLS}
    assert set(F.WEIGHTS_GB) == keys
    assert set(F.LATENCY_MS) == keys


@pytest.mark.parametrize("P,label,prec,nb", CELLS)
def test_weights_image_is_params_times_bytes(P, label, prec, nb):
    # second derivation: P [billions] x bytes per parameter, in exact decimal arithmetic
    expected = Fraction(label) * Fraction(nb)
    assert Fraction(F.WEIGHTS_GB[(label, prec)]) == expected
    assert memory.weight_bytes(n_params=P, bits_weight=8 * Fraction(nb)) == expected * 10**9


@pytest.mark.parametrize("P,label,prec,nb", CELLS)
def test_latency_image_reproduces_with_the_printed_formula(P, label, prec, nb):
    t_ms = F.finbarr_latency_memory(n_params=P, n_bytes=nb, batch=1, bandwidth=F.A100_BANDWIDTH) * 1e3
    assert rounds_to(t_ms, F.LATENCY_MS[(label, prec)])


@pytest.mark.parametrize("P,label,prec,nb", CELLS)
def test_latency_image_is_twice_the_time_to_read_the_weights(P, label, prec, nb):
    # reading P * n_bytes bytes at 1935 GB/s, by hand: label [1e9] * nb / 1935 [1e9/s] in s
    read_ms = float(Fraction(label) * Fraction(nb) / 1935) * 1e3
    printed = F.finbarr_latency_memory(n_params=P, n_bytes=nb, bandwidth=F.A100_BANDWIDTH) * 1e3
    assert math.isclose(printed, 2 * read_ms, rel_tol=1e-12)
    assert not rounds_to(read_ms, F.LATENCY_MS[(label, prec)])


def test_the_factor_two_symbolically():
    # printed memory time over the package's W / beta with b_w = 8 n_bytes: exactly 2 B
    read_time = memory.weight_bytes.expr.subs(bits_weight, 8 * nb) / beta
    assert sp.simplify(F.finbarr_latency_memory.expr / read_time - 2 * B) == 0


def test_model_latency_is_the_larger_term():
    kw = dict(n_params=7_000_000_000, n_bytes=Fraction(1, 2), bandwidth=F.RPI4_BANDWIDTH)
    mem = F.finbarr_latency_memory(**kw)
    comp = F.finbarr_latency_compute(n_params=7_000_000_000, peak_flops=F.RPI4_FLOPS)
    assert F.finbarr_latency_model(**kw, peak_flops=F.RPI4_FLOPS) == max(mem, comp)
    # by hand: 2 * 7e9 * 0.5 / 4e9 = 1.75 s (memory) and 2 * 7e9 / 13.5e9 = 1.037 s (compute)
    assert math.isclose(mem, 1.75) and math.isclose(comp, 14 / 13.5)


def test_a100_token_rates_follow_the_int4_column():
    # "roughly 30 tokens/s with the 65B model, and 277 tokens/s with the 7B model"
    t65 = F.finbarr_latency_memory(n_params=65_200_000_000, n_bytes=Fraction(1, 2),
                           bandwidth=F.A100_BANDWIDTH)
    t7 = F.finbarr_latency_memory(n_params=7_000_000_000, n_bytes=Fraction(1, 2),
                          bandwidth=F.A100_BANDWIDTH)
    assert rounds_to(1 / t65, "30")
    assert math.isclose(1 / t7, 1935 / 7, rel_tol=1e-12)  # 276.4: the post prints 277
    assert abs(1 / t7 - 277) < 1


def test_printed_formula_is_memory_bound_at_every_batch():
    # t_mem / t_comp = n_bytes B pi / beta >= 1 for B >= 1 at the post's A100 figures
    ratio = sp.simplify(F.finbarr_latency_memory.expr / F.finbarr_latency_compute.expr)
    assert sp.simplify(ratio - nb * B * pi / beta) == 0
    for n in F.N_BYTES.values():
        assert float(n) * 1 * F.A100_FP16_FLOPS / F.A100_BANDWIDTH > 1


def test_revised_formula_crossover_is_twice_161():
    B_star = sp.solve(sp.Eq(F.finbarr_latency_memory_revised.expr, F.finbarr_latency_compute_revised.expr), B)
    assert len(B_star) == 1 and sp.simplify(B_star[0] - nb * pi / beta) == 0
    # at fp16: 2 * 3.12e14 / 1.935e12 = 322.5, twice the post's 161 (= 3.12e14 / 1.935e12)
    value = float(B_star[0].subs({nb: 2, pi: 312, beta: sp.Rational(1935, 1000)}))
    assert math.isclose(value, 2 * 312 / 1.935)


def test_kv_formula_equals_the_package_with_multi_head_attention():
    for name in ("llama-7b", "llama-13b", "llama-33b", "llama-65b"):
        m = get_model(name)
        assert m.n_kv_heads * m.d_head == m.d_model
        for nb in F.N_BYTES.values():
            assert F.finbarr_kv_cache_bytes(n_layers=m.n_layers, n_bytes=nb, d_model=m.d_model) == \
                memory.kv_cache_bytes_per_token(n_layers=m.n_layers, n_kv_heads=m.n_kv_heads,
                                                d_head=m.d_head, bits_kv=8 * Fraction(nb))


def test_kv_cache_of_65b_at_2048_int4_is_not_1_33_gb():
    # by hand: 80 * 0.5 * 2 * 8192 * 2048 = 1,342,177,280 B
    per_token = F.finbarr_kv_cache_bytes(n_layers=80, n_bytes=Fraction(1, 2), d_model=8192)
    assert per_token * 2048 == 1_342_177_280
    assert not rounds_to(per_token * 2048 / 1e9, F.CLAIMS["kv_cache_gb"])


def test_inputs_agree_with_the_catalog_record_of_the_article():
    a100 = get_hardware("a100-80gb-pcie")
    assert F.A100_BANDWIDTH == a100.bandwidth
    assert F.A100_FP16_FLOPS == a100.peak("fp16")
    assert F.A100_INT4_OPS == a100.peak("int4")
    recorded = {(h.name, f.quantity): f.value
                for h in (get_hardware(n) for n in ("m1", "raspberry-pi-4", "rtx-4090"))
                for f in h.article_figures if f.article == "finbarr2023llamacpp"}
    assert recorded[("m1", "peak:fp16")] == F.M1_FP16_FLOPS
    assert recorded[("m1", "bandwidth")] == F.M1_BANDWIDTH
    assert recorded[("raspberry-pi-4", "peak:fp32")] == F.RPI4_FLOPS
    assert recorded[("raspberry-pi-4", "bandwidth")] == F.RPI4_BANDWIDTH
    assert recorded[("rtx-4090", "peak:fp16")] == F.RTX4090_FP16_FLOPS


def test_n_bytes_is_in_the_glossary():
    assert GLOSSARY["n_bytes"].symbol is nb
    assert nb in F.finbarr_latency_memory.expr.free_symbols
    assert GLOSSARY["n_bytes"].unit == "B"
