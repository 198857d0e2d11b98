"""Invariants that must hold for all inputs (hypothesis)."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from llm_arithmetic.formulas import memory, params, roofline

pos = st.integers(min_value=1, max_value=10_000)
small = st.integers(min_value=1, max_value=128)
bits = st.sampled_from([Fraction(4), Fraction(9, 2), Fraction(8), Fraction(17, 2), Fraction(16),
                        Fraction(32)])


@given(L=small, H=small, dh=small, b=bits)
def test_gqa_with_all_kv_heads_is_mha(L, H, dh, b):
    # MHA per-token cache, written the way the articles do: 2 * L * d_model * bytes.
    d_model = H * dh
    mha = 2 * L * d_model * b / 8
    assert memory.kv_cache_bytes_per_token(n_layers=L, n_kv_heads=H, d_head=dh, bits_kv=b) == mha


@given(L=small, H=small, dh=small, g=st.integers(1, 16), b=bits)
def test_gqa_divides_the_cache_by_the_group_size(L, H, dh, g, b):
    mha = memory.kv_cache_bytes_per_token(n_layers=L, n_kv_heads=H * g, d_head=dh, bits_kv=b)
    gqa = memory.kv_cache_bytes_per_token(n_layers=L, n_kv_heads=H, d_head=dh, bits_kv=b)
    assert mha == g * gqa


@given(L=small, Hkv=small, dh=small, s1=pos, s2=pos, B=small, k=st.integers(1, 50), b=bits)
def test_kv_cache_linear_in_context_and_batch(L, Hkv, dh, s1, s2, B, k, b):
    def kv(S, Bt):
        return memory.kv_cache_bytes(n_layers=L, n_kv_heads=Hkv, d_head=dh, context=S, batch=Bt,
                                     bits_kv=b)
    assert kv(s1 + s2, B) == kv(s1, B) + kv(s2, B)
    assert kv(s1, k * B) == k * kv(s1, B)


@given(P=st.integers(1, 10**12), b1=bits, b2=bits)
def test_more_bits_never_fewer_bytes(P, b1, b2):
    lo, hi = sorted([b1, b2])
    assert memory.weight_bytes(n_params=P, bits_weight=lo) <= memory.weight_bytes(n_params=P,
                                                                                  bits_weight=hi)


@settings(max_examples=200)
@given(W=st.integers(10**6, 10**12), kv=st.integers(1, 10**7), Pmm=st.integers(10**6, 10**12),
       L=small, H=small, dh=small, S=st.integers(0, 200_000), B=st.integers(1, 1024),
       bw=st.floats(1e9, 1e13), pi=st.floats(1e10, 1e16))
def test_bound_is_the_max_of_memory_and_compute_time(W, kv, Pmm, L, H, dh, S, B, bw, pi):
    t = roofline.decode_step_time(weight_bytes=W, kv_cache_bytes_per_token=kv, matmul_params=Pmm,
                                  n_layers=L, n_heads=H, d_head=dh, context=S, batch=B,
                                  bandwidth=bw, peak_flops=pi)
    # the bound is the larger of the two times, each from its own formula
    mem = roofline.decode_step_bytes(weight_bytes=W, kv_cache_bytes_per_token=kv, context=S,
                                     batch=B) / bw
    comp = roofline.decode_step_flops(matmul_params=Pmm, n_layers=L, n_heads=H, d_head=dh,
                                      context=S, batch=B) / pi
    assert t == max(mem, comp) or abs(t - max(mem, comp)) <= 1e-12 * max(mem, comp)
    # (the compute time is summed part by part, weights' and attention's, each at its rate:
    # equal to F / R_peak at one rate up to rounding)
    assert t >= mem and t >= comp * (1 - 1e-12)


@settings(max_examples=200)
@given(W=st.integers(10**6, 10**12), kv=st.integers(1, 10**7), Pmm=st.integers(10**6, 10**12),
       L=small, H=small, dh=small, S=st.integers(0, 200_000),
       bw=st.floats(1e9, 1e13), pi=st.floats(1e10, 1e16))
def test_critical_batch_balances_memory_and_compute(W, kv, Pmm, L, H, dh, S, bw, pi):
    kw = dict(weight_bytes=W, kv_cache_bytes_per_token=kv, matmul_params=Pmm, n_layers=L, n_heads=H,
              d_head=dh, context=S, bandwidth=bw, peak_flops=pi)
    b = roofline.critical_batch_size(**kw)
    per_seq_compute = (2 * Pmm + 4 * L * H * dh * S) / pi
    per_seq_memory = kv * S / bw
    if b == float("inf"):
        assert per_seq_memory >= per_seq_compute
    else:
        assume(b < 1e9)
        mem = (W + b * kv * S) / bw
        comp = b * per_seq_compute
        assert abs(mem - comp) <= 1e-9 * max(mem, comp)


@given(V=pos, d=st.integers(1, 512), L=small, H=st.integers(1, 16), g=st.integers(1, 4),
       dh=small, dff=pos, E=st.integers(1, 16), data=st.data())
def test_moe_active_between_dense_and_total(V, d, L, H, g, dh, dff, E, data):
    k = data.draw(st.integers(1, E))
    kw = dict(n_vocab=V, d_model=d, n_layers=L, n_heads=H * g, n_kv_heads=H, d_head=dh,
              d_ff=dff, n_experts=E, n_active_experts=k)
    total, active = params.total_params(**kw), params.active_params(**kw)
    assert active <= total
    assert (active == total) == (k == E)
    assert params.decode_read_params(**kw) <= active
    assert params.matmul_params(**kw) <= active + V * d  # the head may reuse the table


@given(V=pos, d=st.integers(1, 512), L=small, H=st.integers(1, 16), dh=small, dff=pos)
def test_tied_head_reads_the_whole_table(V, d, L, H, dh, dff):
    kw = dict(n_vocab=V, d_model=d, n_layers=L, n_heads=H, n_kv_heads=H, d_head=dh, d_ff=dff)
    untied = params.total_params(**kw) - params.decode_read_params(**kw)
    assert untied == (V - 1) * d  # every row but the one looked up
    assert params.total_params(tied=1, **kw) == params.decode_read_params(tied=1, **kw)


@given(S=st.integers(0, 10**6), L=small, data=st.data(), W=st.integers(1, 10**5))
def test_windows_never_read_more_than_the_context(S, L, data, W):
    Lw = data.draw(st.integers(0, L))
    s_eff = memory.attended_context(context=S, n_layers=L, n_window_layers=Lw, window=W)
    assert min(S, W) <= s_eff <= S
    # second derivation: positions read summed over layers, divided by L
    # (a non-integer average comes back as a float: compare to 1e-12 relative)
    assert s_eff * L == pytest.approx((L - Lw) * S + Lw * min(S, W), rel=1e-12, abs=0)
    assert memory.attended_context(context=S, n_layers=L, n_window_layers=0, window=W) == S
