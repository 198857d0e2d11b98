"""Direct all-reduces on fully connected scale-up domains, against hand derivations.

vLLM's custom all-reduce (csrc/custom_all_reduce.cuh at vllm-project/vllm@c9eabec7, cited in the
book as vllm2024customallreduce) runs, when every GPU reaches every other, a one-stage kernel
(``cross_device_reduce_1stage``: each GPU reads the whole message of every peer and adds them,
one synchronization) or a two-stage kernel (``cross_device_reduce_2stage``: a reduce-scatter in
which each GPU reads its 1/N share of every peer, then an all-gather in which it reads the N - 1
reduced shares it lacks; two synchronizations). A GPU receives (N - 1) M bytes in the first,
2 (N - 1)/N M in the second, over all its links at once.

The figures below are typed from their public sources, not from the library:

* MI300X: 7 Infinity Fabric links of 128 GB/s bidirectional, 64 GB/s each way: 448 GB/s per
  direction (AMD's MI300X page); an A100 SXM: 600 GB/s of NVLink bidirectional, 300 GB/s each
  way (NVIDIA's A100 datasheet);
* the latency of one collective step where the catalog has none: NCCL's 0.47 us for NVLink-class
  links and 1 us for PCIe (``hwLat`` in NCCL's src/graph/tuning.cc);
* Qwen3-30B-A3B's config.json: hidden_size 2048, 48 layers, every one MoE; Llama 3 70B's:
  hidden_size 8192, 80 layers.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from llm_arithmetic import numeric as N
from llm_arithmetic.core.errors import InputError
from llm_arithmetic.estimate import estimate

MI300X_UP = 7 * 64e9       # B/s per direction, all seven links
A100_UP = 600e9 / 2        # B/s per direction
NVLINK_STEP = 0.47e-6      # s, NCCL's NVLink step latency
PCIE_STEP = 1.0e-6         # s, NCCL's PCIe step latency


def one_stage(m, n, b, a):
    return (n - 1) * m / b + a


def two_stage(m, n, b, a):
    return (n - 1) / n * m / b + (n - 1) / n * m / b + 2 * a


def ring(m, n, b, a):
    return 2 * (n - 1) / n * m / b + 2 * (n - 1) * a


def gather_ring(m, n, b, a):
    """An all-gather of m bytes in a ring: the second half of the ring all-reduce."""
    return (n - 1) / n * m / b + (n - 1) * a


def gather_direct(m, n, b, a):
    """Every chip reads its n - 1 peers' shares at once: the two-stage kernel's second stage."""
    return (n - 1) / n * m / b + a


@pytest.mark.parametrize("m,n", [(4096, 8), (65_536, 8), (8 * 2**20, 8), (4096, 2),
                                 (1_000_000, 4), (123, 6)])
def test_direct_is_the_faster_of_the_two_kernels(m, n):
    t = N.direct_allreduce_time(message_bytes=m, n_chips=n, link_bandwidth=MI300X_UP,
                                link_latency=NVLINK_STEP)
    want = min(one_stage(m, n, MI300X_UP, NVLINK_STEP), two_stage(m, n, MI300X_UP, NVLINK_STEP))
    assert t == pytest.approx(want, rel=1e-12)
    assert t <= ring(m, n, MI300X_UP, NVLINK_STEP) * (1 + 1e-12)


def test_the_kernels_cross_where_the_saved_latency_pays_for_the_extra_bytes():
    """One stage sends (N - 1)(1 - 2/N) M more than two stages and saves one latency: they tie
    at M* = alpha B N / ((N - 1)(N - 2)), 40,107 bytes for eight MI300X."""
    n, b, a = 8, MI300X_UP, NVLINK_STEP
    m_star = a * b * n / ((n - 1) * (n - 2))
    assert round(m_star) == 40_107
    below = N.direct_allreduce_time(message_bytes=0.9 * m_star, n_chips=n, link_bandwidth=b,
                                    link_latency=a)
    above = N.direct_allreduce_time(message_bytes=1.1 * m_star, n_chips=n, link_bandwidth=b,
                                    link_latency=a)
    assert below == pytest.approx(one_stage(0.9 * m_star, n, b, a), rel=1e-12)
    assert above == pytest.approx(two_stage(1.1 * m_star, n, b, a), rel=1e-12)


def test_two_chips_read_each_other_once():
    """Two chips: each reads the other's message once, one step (vLLM always runs the one-stage
    kernel for two GPUs)."""
    t = N.direct_allreduce_time(message_bytes=1e6, n_chips=2, link_bandwidth=100e9,
                                link_latency=1e-6)
    assert t == pytest.approx(1e6 / 100e9 + 1e-6, rel=1e-12)


QWEN = dict(weights="fp8", tp=8, prompt=2048, generate=256)
QWEN_ARS = 2 * 48 + 1      # two in each of 48 layers (no expert parallelism), the embedding's
QWEN_LOGITS = 151936 * 2   # B of one token's logits (vocab_size 151,936, 16-bit), all-gathered


def test_mi300x_tp8_batch1_all_reduces_directly():
    """Qwen3-30B-A3B on eight MI300X at batch 1: a 4 KiB message (2048 activations of 2 bytes),
    one-stage: 7 x 4096 / 448e9 + 0.47 us = 0.534 us, 97 a step (2 in each of 48 layers and
    the input embedding's); the ring would take 1.75 x 4096 / 448e9 + 14 x 0.47 us = 6.596 us
    each (0.640 ms a step, the old bound, with the logits' all-gather)."""
    e = estimate("qwen3-30b-a3b", hardware="mi300x", **QWEN)
    msg = 2048 * 2
    assert e.allreduce_algorithm == "direct"
    assert e.allreduce_seconds_per_token == pytest.approx(
        QWEN_ARS * (7 * msg / MI300X_UP + NVLINK_STEP), rel=1e-12)
    assert e.allreduce_seconds_per_token == pytest.approx(51.798e-6, rel=1e-9)
    assert e.allgather_seconds_per_token == pytest.approx(
        gather_direct(QWEN_LOGITS, 8, MI300X_UP, NVLINK_STEP), rel=1e-12)
    r = estimate("qwen3-30b-a3b", hardware="mi300x", allreduce="ring", **QWEN)
    assert r.allreduce_algorithm == "ring"
    assert r.allreduce_seconds_per_token == pytest.approx(
        QWEN_ARS * ring(msg, 8, MI300X_UP, NVLINK_STEP), rel=1e-12)
    assert r.tpot_seconds == pytest.approx(
        0.639812e-3 + gather_ring(QWEN_LOGITS, 8, MI300X_UP, NVLINK_STEP), rel=1e-9)
    # the bound overlaps: the step is the longer of the work and the collectives
    comm = e.allreduce_seconds_per_token + e.allgather_seconds_per_token
    assert e.tpot_seconds == pytest.approx(max(e.tpot_serialized_seconds - comm, comm),
                                           rel=1e-9)
    assert e.tpot_seconds < r.tpot_seconds


def test_mi300x_prefill_all_reduces_in_two_stages():
    """The prompt's 2048 tokens make an 8 MiB message: past the crossing, two stages; the
    last position's logits are all-gathered once."""
    msg = 2048 * 2048 * 2
    comm = (QWEN_ARS * two_stage(msg, 8, MI300X_UP, NVLINK_STEP)
            + gather_direct(QWEN_LOGITS, 8, MI300X_UP, NVLINK_STEP))
    serial = estimate("qwen3-30b-a3b", hardware="mi300x", overlap=False, **QWEN)
    work = estimate("qwen3-30b-a3b", hardware="mi300x", link_latency=0, **QWEN)
    # the serialized TTFT is the work plus the all-reduces: the same work at any latency
    work_only = (work.ttft_serialized_seconds - QWEN_ARS * two_stage(msg, 8, MI300X_UP, 0)
                 - gather_direct(QWEN_LOGITS, 8, MI300X_UP, 0))
    assert serial.ttft_seconds == pytest.approx(work_only + comm, rel=1e-9)


def test_a100_sxm_switch_without_sharp_all_reduces_directly():
    """Llama 3 70B on eight A100 SXM at batch 1: a 16 KiB message, one stage:
    7 x 16384 / 300e9 + 0.47 us = 0.852 us, 161 a step (the embedding's with the blocks')."""
    e = estimate("llama-3-70b", hardware="a100-80gb-sxm", weights="fp8", tp=8, batch=1,
                 context=2048)
    msg = 8192 * 2
    assert e.allreduce_algorithm == "direct"
    assert e.allreduce_seconds_per_token == pytest.approx(
        161 * (7 * msg / A100_UP + NVLINK_STEP), rel=1e-12)


@pytest.mark.parametrize("chip,at_one,at_512", [
    # switches that reduce: the direct all-reduce for one token's message (one latency against
    # the switch's two), the switch for 512 tokens' (9/8 of the message against 7/4)
    ("h100-sxm", "direct", "switch"), ("b200", "direct", "switch"),
    ("tpu-v5e", "ring", "ring"), ("a100-80gb-sxm", "direct", "direct"),
    ("mi300x", "direct", "direct"), ("gaudi3", "direct", "direct")])
def test_the_default_algorithm_follows_the_catalog_topology(chip, at_one, at_512):
    used = [estimate("llama-3-70b", hardware=chip, tp=8, batch=b, context=2048
                     ).allreduce_algorithm for b in (1, 512)]
    assert used == [at_one, at_512]


def test_a_given_link_bandwidth_says_nothing_of_the_topology():
    e = estimate("qwen3-30b-a3b", hardware="mi300x", link_bandwidth=MI300X_UP, **QWEN)
    assert e.allreduce_algorithm == "ring"
    assert e.allreduce_seconds_per_token == pytest.approx(
        QWEN_ARS * ring(2048 * 2, 8, MI300X_UP, NVLINK_STEP), rel=1e-12)
    asked = estimate("qwen3-30b-a3b", hardware="mi300x", link_bandwidth=MI300X_UP,
                     allreduce="direct", **QWEN)
    assert asked.allreduce_algorithm == "direct"


def test_one_chip_in_the_domain_has_nothing_to_reduce():
    e = estimate("qwen3-30b-a3b", hardware="mi300x", weights="fp8", prompt=2048, generate=256)
    assert (e.allreduce_algorithm, e.allreduce_seconds_per_token) == ("ring", 0)


def test_two_domains_reduce_directly_inside_and_ring_the_shards_between():
    """Sixteen MI300X, two platforms joined by PCIe (64 GB/s each way, 1 us a step): inside
    each platform a direct all-reduce of the 4 KiB message, between them a ring of two over the
    512-byte shard: 2 x 1/2 x 512 / 64e9 + 2 x 1 us."""
    e = estimate("qwen3-30b-a3b", hardware="mi300x", weights="fp8", tp=16, prompt=2048,
                 generate=256)
    msg = 2048 * 2
    inside = one_stage(msg, 8, MI300X_UP, NVLINK_STEP)
    between = ring(msg / 8, 2, 64e9, PCIE_STEP)
    assert e.allreduce_algorithm == "direct"
    assert e.allreduce_seconds_per_token == pytest.approx(QWEN_ARS * (inside + between),
                                                          rel=1e-12)


def test_direct_on_a_torus_is_refused_naming_the_option():
    with pytest.raises(InputError, match="allreduce"):
        estimate("llama-3-70b", hardware="tpu-v5e", tp=8, allreduce="direct")
    out = subprocess.run([sys.executable, "-m", "llm_arithmetic", "describe", "llama-3-70b",
                          "--hardware", "tpu-v5e", "--tp", "8", "--allreduce", "direct"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "allreduce" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_command_line_direct_on_mi300x():
    out = subprocess.run([sys.executable, "-m", "llm_arithmetic", "describe", "qwen3-30b-a3b",
                          "--hardware", "mi300x", "--tp", "8", "--weights", "fp8", "--prompt",
                          "2048", "--generate", "256", "--json"],
                         capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["allreduce_algorithm"] == "direct"
    assert got["allreduce_seconds_per_token"] == pytest.approx(51.798e-6, rel=1e-9)


def test_the_command_line_offers_every_algorithm():
    import argparse

    from llm_arithmetic.cli import _add_comm_options
    from llm_arithmetic.layout import ALLREDUCE_ALGORITHMS

    parser = argparse.ArgumentParser()
    _add_comm_options(parser)
    (action,) = [a for a in parser._actions if a.dest == "allreduce"]
    assert tuple(action.choices) == ALLREDUCE_ALGORITHMS


@pytest.mark.parametrize("tp, batch, switch_wins", [
    (2, 512, False),   # two chips: the switch sends 3/2 of the message, the chips 1
    (8, 512, True),    # 8 MB messages: 9/8 of the message against the two-stage 7/4
    (8, 1, False),     # 16 kB messages: latency, the switch's two steps against one stage's one
])
def test_default_allreduce_is_the_fastest_the_domain_can_run(tp, batch, switch_wins):
    """On a domain whose switch adds (an H100 system), the default all-reduce is the least of
    the switch's reduction and the chips' own (direct, every chip reaching every other through
    the switch), as engines pick kernels by size: the switch sends (N+1)/N of the message in two
    latencies, direct all-reduces (N-1) messages in one or 2(N-1)/N in two."""
    kw = dict(hardware="h100-sxm", weights="fp8", tp=tp, context=4096, batch=batch,
              overlap=False)
    by = {alg: estimate("llama-3.3-70b", allreduce=alg, **kw).allreduce_seconds_per_token
          for alg in ("switch", "direct")}
    default = estimate("llama-3.3-70b", **kw).allreduce_seconds_per_token
    assert default == pytest.approx(min(by.values()), rel=1e-12)
    assert (by["switch"] < by["direct"]) == switch_wins
