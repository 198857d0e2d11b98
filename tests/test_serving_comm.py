"""The formulas the serving widget needed (issue 18): a request's mean decode context and a
decode step's all-reduces and all-to-alls, against second derivations.

* the mean decode context by averaging the contexts of the G decode steps one by one;
* the all-reduces from NCCL's definition of a ring all-reduce (nccl-tests, doc/PERFORMANCE.md:
  each of n chips moves 2(n - 1)/n of the message), counted by hand per layer: two per dense
  layer, one (attention's) per expert-parallel MoE layer;
* the all-to-alls by hand: each token goes to k experts, (ep - 1)/ep of them remote, once to
  dispatch and once to combine, 2 bytes an activation.
"""
from __future__ import annotations

import pytest

from llm_arithmetic import get_model, numeric as N
from llm_arithmetic.estimate import estimate


@pytest.mark.parametrize("prompt,generate", [(1, 1), (2048, 256), (100, 7), (5, 1000)])
def test_mean_decode_context_is_the_mean_of_the_steps(prompt, generate):
    steps = [prompt + i for i in range(1, generate + 1)]  # the cache each decode step reads
    assert N.mean_decode_context(prompt=prompt, generated=generate) == sum(steps) / len(steps)


@pytest.mark.parametrize("tp", [2, 4, 8])
def test_decode_allreduces_by_hand(tp):
    bw, lat, batch, d = 450e9, 2e-6, 48, 4096
    one = 2 * (tp - 1) / tp * (batch * d * 2) / bw + 2 * (tp - 1) * lat
    dense = N.decode_allreduce_time(n_layers=32, n_ep_layers=0, batch=batch, d_model=d, tp=tp,
                                    link_bandwidth=bw, link_latency=lat)
    assert dense == pytest.approx(64 * one, rel=1e-12)
    assert dense == pytest.approx(N.tp_comm_time(n_layers=32, batch=batch, d_model=d, tp=tp,
                                                 link_bandwidth=bw, link_latency=lat), rel=1e-12)
    moe = N.decode_allreduce_time(n_layers=32, n_ep_layers=32, batch=batch, d_model=d, tp=tp,
                                  link_bandwidth=bw, link_latency=lat)
    assert moe == pytest.approx(32 * one, rel=1e-12)


def test_decode_alltoalls_by_hand():
    bw, lat = 50e9, 3e-6
    per_layer = 2 * 16 * 2 * (7 / 8) * 4096 * 2 / bw + 2 * lat  # 16 tokens, top-2, ep 8
    t = N.decode_alltoall_time(n_ep_layers=32, batch=16, d_model=4096, n_active_experts=2,
                               ep=8, link_bandwidth=bw, link_latency=lat)
    assert t == pytest.approx(32 * per_layer, rel=1e-12)


def test_estimate_counts_one_allreduce_per_expert_parallel_moe_layer():
    """Mixtral 8x7B (32 MoE layers) on tp = ep = 8: 32 all-reduces and 32 all-to-alls of 8 of
    the 64 tokens per chip; with ep = 1, 64 all-reduces and no all-to-all."""
    m = get_model("mixtral-8x7b")
    bw = 450e9
    one = 2 * 7 / 8 * (64 * m.d_model * 2) / bw
    e = estimate(m, hardware="h100-sxm", tp=8, ep=8, batch=64, link_bandwidth=bw)
    assert e.allreduce_seconds_per_token == pytest.approx(32 * one, rel=1e-12)
    a2a = 2 * 8 * 2 * (7 / 8) * m.d_model * 2 / bw
    assert e.alltoall_seconds_per_token == pytest.approx(32 * a2a, rel=1e-12)
    e1 = estimate(m, hardware="h100-sxm", tp=8, batch=64, link_bandwidth=bw)
    assert e1.allreduce_seconds_per_token == pytest.approx(64 * one, rel=1e-12)
    assert e1.alltoall_seconds_per_token == 0
