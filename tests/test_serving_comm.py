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


def _copies_by_enumeration(k: int, destinations: int, limit: int) -> float:
    """Mean remote destinations of a token whose k experts each sit on one of ``limit``
    destinations (uniform, independent) chosen uniformly among ``destinations``, chip 0's own
    being one: enumerate every choice."""
    from itertools import combinations, product
    total, n = 0.0, 0
    for allowed in combinations(range(destinations), limit):
        for picks in product(allowed, repeat=k):
            total += len(set(picks) - {0})
            n += 1
    return total / n


@pytest.mark.parametrize("k,dest,limit", [(2, 8, 8), (8, 4, 4), (8, 8, 4), (3, 5, 2)])
def test_alltoall_copies_by_enumeration(k, dest, limit):
    assert N.alltoall_copies(n_active_experts=k, n_nodes=dest, node_limit=limit) == \
        pytest.approx(_copies_by_enumeration(k, dest, limit), rel=1e-12)


def test_estimate_counts_one_allreduce_per_expert_parallel_moe_layer():
    """Mixtral 8x7B (32 MoE layers) on tp = ep = 8: 32 all-reduces (and the input embedding's)
    and 32 all-to-alls of 8 of the 64 tokens per chip; with ep = 1, 64 all-reduces (and the
    embedding's) and no all-to-all. Ring, no latency, serialized: the bytes alone."""
    m = get_model("mixtral-8x7b")
    bw = 450e9
    one = 2 * 7 / 8 * (64 * m.d_model * 2) / bw
    kw = dict(hardware="h100-sxm", tp=8, batch=64, link_bandwidth=bw, link_latency=0,
              allreduce="ring")
    e = estimate(m, ep=8, **kw)
    assert e.allreduce_seconds_per_token == pytest.approx(33 * one, rel=1e-12)
    a2a = 8 * _copies_by_enumeration(2, 8, 8) * m.d_model * (2 + 2) / bw
    assert e.alltoall_seconds_per_token == pytest.approx(32 * a2a, rel=1e-12)
    e1 = estimate(m, **kw)
    assert e1.allreduce_seconds_per_token == pytest.approx(65 * one, rel=1e-12)
    assert e1.alltoall_seconds_per_token == 0


def test_two_tier_allreduce_by_hand():
    """Llama 3.1 405B (126 layers, d = 16384) on two nodes of eight H100s, batch 1, ring: 28
    NVLink steps and 2 network steps per all-reduce (NCCL's own count in tuning.cc:
    nsteps - nInterSteps intra, 2 (nNodes - 1) inter); the network carries an eighth of the
    message."""
    m = get_model("llama-3.1-405b")
    msg = 1 * 16384 * 2
    up, out, a_up, a_out = 450e9, 50e9, 1e-6, 3e-6
    one = (2 * 7 / 8 * msg / up + 14 * a_up) + (2 * 1 / 2 * (msg / 8) / out + 2 * a_out)
    e = estimate(m, hardware="h100-sxm", weights="fp8", tp=16, batch=1, context=4096,
                 allreduce="ring")
    assert (e.scale_up_bandwidth, e.scale_out_bandwidth) == (up, out)
    t = N.two_tier_allreduce_time(message_bytes=msg, domain_chips=8, n_nodes=2,
                                  link_bandwidth=up, link_latency=a_up, out_bandwidth=out,
                                  out_latency=a_out)
    assert t == pytest.approx(one, rel=1e-12)
    lat = e.scale_up_latency, e.scale_out_latency
    one_default = (2 * 7 / 8 * msg / up + 14 * lat[0]) + (msg / 8 / out + 2 * lat[1])
    # 2 a layer and the input embedding's
    assert e.allreduce_seconds_per_token == pytest.approx(253 * one_default, rel=1e-12)


def test_switch_allreduce_sends_n_plus_one_over_n():
    """In-switch reduction: each chip sends its message once (the switch reads it) and its
    reduced 1/N share once (the multicast store): (N + 1)/N of the message."""
    t = N.switch_allreduce_time(message_bytes=8e6, n_chips=8, link_bandwidth=400e9,
                                link_latency=0)
    assert t == pytest.approx((8e6 + 1e6) / 400e9, rel=1e-12)
    ring = N.ring_allreduce_time(message_bytes=8e6, n_chips=8, link_bandwidth=400e9)
    assert t < ring


def test_the_bound_overlaps_and_the_serialized_sum_is_labelled():
    kw = dict(hardware="h100-sxm", weights="fp8", tp=8, prompt=2048, generate=256, batch=16)
    e = estimate("llama-3.3-70b", **kw)
    s = estimate("llama-3.3-70b", overlap=False, **kw)
    work = estimate("llama-3.3-70b", link_bandwidth=1e15, link_latency=0, **kw)
    comm = e.allreduce_seconds_per_token + e.allgather_seconds_per_token
    assert e.tpot_seconds == pytest.approx(max(work.tpot_seconds, comm), rel=1e-12)
    assert e.tpot_serialized_seconds == pytest.approx(s.tpot_seconds, rel=1e-12)
    assert s.tpot_seconds == pytest.approx(work.tpot_seconds + comm, rel=1e-9)
    assert e.ttft_seconds <= e.ttft_serialized_seconds == s.ttft_seconds
    assert (e.overlap, s.overlap, e.allreduce_algorithm) == (True, False, "switch")


def test_latency_defaults_are_never_zero_unless_asked():
    from llm_arithmetic.catalog.hardware import DEFAULT_LATENCY
    e = estimate("llama-3.3-70b", hardware="h100-sxm", tp=8)
    assert e.scale_up_latency == DEFAULT_LATENCY["scale_up"] > 0
    assert e.scale_out_latency == DEFAULT_LATENCY["scale_out"] > 0
    z = estimate("llama-3.3-70b", hardware="h100-sxm", tp=8, link_latency=0)
    assert (z.scale_up_latency, z.scale_out_latency, z.link_latency) == (0, 0, 0)


def test_a_card_without_a_scale_up_link_gets_pcies_latency_on_both_tiers():
    """An RTX 4090 has no NVLink: its peers are over PCIe, whose NCCL step latency is 1.0 us
    (src/graph/tuning.cc hwLat, as the --link-latency-us help states: 0.47 us NVLink, 1 us
    PCIe). The table printed 'scale-up link 32.0 GB/s per direction, 0.47 us a step', NVLink's
    latency on a PCIe link (the all-reduce itself already paid PCIe's: a domain of one chip)."""
    e = estimate("llama-3.1-8b", hardware="rtx-4090", tp=2, prompt=500)
    assert (e.scale_up_latency, e.scale_out_latency, e.link_latency) == (1.0e-6,) * 3
    assert estimate("llama-3.1-8b", hardware="h100-sxm", tp=2).scale_up_latency == 0.47e-6


def test_deepseek_v3_alltoall_with_node_limited_routing():
    """DeepSeek-V3 on four nodes of eight H100s (ep = tp = 32), 128 tokens per chip: at most
    4 nodes a token (topk_group = 4 of its config), one copy per node, fp8 dispatch and bf16
    combine, against once per expert at 16 bits both ways."""
    m = get_model("deepseek-v3")
    kw = dict(hardware="h100-sxm", weights="fp8", tp=32, ep=32, batch=128 * 32, context=4096,
              link_latency=0)
    e = estimate(m, node_limit=4, dispatch_bits="fp8", **kw)
    moe = sum(r.count for r in m.layers if r.mlp is not None and r.mlp.is_moe)
    naive = moe * 2 * 128 * 8 * 31 / 32 * m.d_model * 2 / 50e9
    copies = _copies_by_enumeration(8, 4, 4)
    assert e.alltoall_seconds_per_token == pytest.approx(
        moe * 128 * copies * m.d_model * (1 + 2) / 50e9, rel=1e-12)
    assert 2.5 < naive / e.alltoall_seconds_per_token < 4.5


@pytest.mark.parametrize("kw,field", [(dict(overlap="yes"), "overlap"),
                                      (dict(allreduce="tree"), "allreduce"),
                                      (dict(node_limit=0), "node_limit"),
                                      (dict(dispatch_bits="fp7"), "dispatch_bits"),
                                      (dict(link_latency=-1e-6), "link_latency")])
def test_bad_communication_options_name_the_field(kw, field):
    from llm_arithmetic.core.errors import InputError
    with pytest.raises(InputError, match=field):
        estimate("llama-3.3-70b", hardware="h100-sxm", tp=8, **kw)


def test_command_line_communication_options():
    import json
    import subprocess
    import sys
    args = [sys.executable, "-m", "llm_arithmetic", "describe", "llama-3.3-70b", "--hardware",
            "h100-sxm", "--weights", "fp8", "--tp", "8", "--batch", "64", "--json"]
    out = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    ring = json.loads(subprocess.run(args + ["--allreduce", "ring", "--serialize",
                                             "--link-latency-us", "1"],
                                     capture_output=True, text=True, check=True).stdout)
    assert (out["allreduce_algorithm"], out["overlap"]) == ("switch", True)
    assert (ring["allreduce_algorithm"], ring["overlap"], ring["scale_up_latency"]) == \
        ("ring", False, 1e-6)
    assert ring["tpot_seconds"] == ring["tpot_serialized_seconds"] > out["tpot_seconds"]


def test_chapter_alltoall_naive_and_deduplicated_pay_the_same_latency():
    """Chapter 11's DeepSeek-V3 all-to-all (32 chips in four nodes of eight H100s, 128 tokens
    each), by hand: 58 MoE layers (61 layers, the first 3 dense, config.json), 8 routed experts
    per token, d = 7168; the node network at 50 GB/s per chip (400 Gb/s) and NCCL's 2.7 us a
    step between nodes, one step per phase. Naive: every token to each of its experts on
    another chip, 16-bit both ways, 2 x 128 x 8 x 31/32 x 7168 x 2 B. One copy per remote node
    that holds any of its experts, 3 x (1 - (3/4)^8) copies, fp8 out and 16-bit back:
    128 x copies x 7168 x 3 B. Both pay the same two latencies per layer."""
    from llm_arithmetic import get_hardware
    from llm_arithmetic.book.chapters.parallelism import expert_alltoall

    a = expert_alltoall(get_model("deepseek-v3"), get_hardware("h100-sxm"),
                        get_hardware("gb200"), 32, 128, 4)
    bw, lat, layers = 50e9, 2.7e-6, 58
    naive = 2 * 128 * 8 * 31 / 32 * 7168 * 2
    dedup = 128 * 3 * (1 - 0.75**8) * 7168 * 3
    assert a["layers"] == layers
    assert a["naive_s"] == pytest.approx(layers * (naive / bw + 2 * lat), rel=1e-9)
    assert a["network_s"] == pytest.approx(layers * (dedup / bw + 2 * lat), rel=1e-9)


@pytest.mark.parametrize("args,option,kw", [
    (["llama-3-8b", "--hardware", "h100-sxm", "--prompt", "512"], "--serialize",
     dict(overlap=False)),
    (["llama-3-8b", "--hardware", "h100-sxm", "--pp", "2", "--prompt", "512"], "--serialize",
     dict(overlap=False)),
    (["deepseek-v3", "--hardware", "h200", "--tp", "8", "--prompt", "512"], "--node-limit",
     dict(node_limit=2)),
    (["deepseek-v3", "--hardware", "h200", "--tp", "8", "--prompt", "512"], "--dispatch",
     dict(dispatch_bits="fp8")),
])
def test_communication_option_without_its_communication_is_refused(capsys, args, option, kw):
    """--serialize, --node-limit and --dispatch change nothing where there is no collective to
    serialize or all-to-all to shape (checked: every key of estimate() but the option's own is
    the same with and without it); describe refuses them there with one line naming the
    option, as it refuses --generate without --prompt, instead of ignoring them."""
    from llm_arithmetic.cli import main

    model, *rest = args
    pairs = dict(zip(rest[::2], rest[1::2]))
    base = dict(hardware=pairs["--hardware"], tp=int(pairs.get("--tp", 1)),
                pp=int(pairs.get("--pp", 1)), prompt=int(pairs["--prompt"]))
    a, b = estimate(model, **base).as_dict(), estimate(model, **base, **kw).as_dict()
    own = {"overlap", "node_limit", "dispatch_bits"}
    assert {k for k in a if a[k] != b[k]} <= own
    value = [] if option == "--serialize" else ["2" if option == "--node-limit" else "fp8"]
    assert main(["describe", *args, option, *value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"error: {option} needs" in err


def test_pipeline_pays_the_embedding_and_the_head_once():
    # Llama 3.1 8B (d_model 4,096, 128,256-token vocabulary, 32 blocks of two all-reduces) at
    # tp 2, pp 2, batch 8: microbatches of 8 / min(8, 2) = 4 sequences. A ring of 2 chips over
    # a given 100 GB/s link, 2 us a hop: an all-reduce of M bytes takes M / bw + 2 hops, an
    # all-gather M / 2 / bw + 1 hop

    bw, lat = 100e9, 2e-6
    kw = dict(bandwidth=2e12, peak_flops=500e12, tp=2, pp=2, batch=8, context=1000,
              link_bandwidth=bw, link_latency=lat)
    block = 4 * 4096 * 2 / bw + 2 * lat                     # 32,768 B of hidden state
    head = 4 * 128_256 * 2 / 2 / bw + lat                   # 1,026,048 B of logits
    for overlap in (False, True):
        e = estimate("llama-3.1-8b", overlap=overlap, **kw)
        ev = e._plan
        assert ev.get("comm_layers") == pytest.approx(64 * block, rel=1e-12)
        assert ev.get("comm_embedding") == pytest.approx(block, rel=1e-12)
        assert ev.get("comm_head") == pytest.approx(head, rel=1e-12)
        # each stage all-reduces its 16 blocks; the first adds the embedding's, the last the
        # logits' all-gather, once each: not (64 + 1) blocks' and the head's over 2 per stage
        assert ev.get("comm_time") == pytest.approx(32 * block, rel=1e-12)
        w = ev.get("stage_work_seconds")
        if overlap:
            t = max(w, 32 * block + block) + max(w, 32 * block + head)
        else:
            t = 2 * (w + 32 * block) + block + head
        assert e.tpot_seconds == pytest.approx(t, rel=1e-12)


def test_pipeline_puts_the_per_layer_embedding_on_the_first_stage():
    # Gemma 3n E2B (d_model 2,048, 262,400-token vocabulary, 30 blocks, d_PLE 256, AltUp's 4
    # streams) at tp 2, pp 2, batch 8: microbatches of 4 sequences, a ring of 2 over a given
    # 100 GB/s link, 2 us a hop. vLLM looks the per-layer embedding up and all-gathers its
    # projection once a step, before the first block (gemma3n.py, Gemma3nTextModel.forward;
    # gemma4.py computes them on the first pipeline rank only): the first stage pays its
    # all-reduce and all-gather, each of 4 x 30 x 256 x 2 B, whole; the other stage none
    bw, lat = 100e9, 2e-6
    kw = dict(bandwidth=2e12, peak_flops=500e12, tp=2, pp=2, batch=8, context=1000,
              link_bandwidth=bw, link_latency=lat)
    hidden = 4 * 2048 * 2                                   # 16,384 B
    ple = 4 * 30 * 256 * 2                                  # 61,440 B
    embedding = hidden / bw + 2 * lat                       # the embedding's all-reduce
    altup = 3 * (hidden / 2 / bw + lat)                     # 3 projections' all-gathers
    per_layer = ple / bw + 2 * lat + ple / 2 / bw + lat     # all-reduce and all-gather
    logits = 4 * 262_400 * 2 / 2 / bw + lat
    for overlap in (False, True):
        e = estimate("gemma-3n-e2b", overlap=overlap, **kw)
        ev = e._plan
        first = embedding + altup + per_layer
        assert ev.get("comm_embedding") == pytest.approx(first, rel=1e-12)
        assert ev.get("comm_head") == pytest.approx(logits + altup, rel=1e-12)
        # the layers' own, half on each stage: what the step all-reduces and all-gathers
        # but the first stage's and the last stage's own
        layers = e.allreduce_seconds_per_token + e.allgather_seconds_per_token \
            - first - logits - altup
        assert ev.get("comm_time") == pytest.approx(layers / 2, rel=1e-12)
        assert ev.get("comm_first_stage") == pytest.approx(layers / 2 + first, rel=1e-12)
        assert ev.get("comm_last_stage") == pytest.approx(layers / 2 + logits + altup,
                                                          rel=1e-12)
        w = ev.get("stage_work_seconds")
        if overlap:
            t = max(w, layers / 2 + first) + max(w, layers / 2 + logits + altup)
        else:
            t = 2 * w + layers + first + logits + altup
        assert e.tpot_seconds == pytest.approx(t, rel=1e-12)
    # without pipeline parallelism every collective is the one stage's, as before
    e = estimate("gemma-3n-e2b", **dict(kw, pp=1))
    assert e._plan.get("comm_time") == pytest.approx(
        e.allreduce_seconds_per_token + e.allgather_seconds_per_token, rel=1e-12)
