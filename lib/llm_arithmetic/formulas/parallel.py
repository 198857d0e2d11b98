r"""Many chips: tensor, expert and pipeline parallelism.

A model too large or too slow for one chip is split. Each way of splitting trades memory and
bandwidth for communication, and each has one formula for what it moves and one for what it
costs in time.

* Memory: :data:`memory_per_chip` -- the weights and the cache split over the chips of a
  replica.
* Tensor parallelism (TP) over N_tp chips: every large matrix is split N_tp ways, so every chip
  reads 1/N_tp of the weights (besides the small ones every chip keeps whole,
  :data:`~llm_arithmetic.formulas.engine.held_params`) and of the cache in a step, and each layer ends its attention and its
  MLP with an all-reduce of the activations: :data:`tp_allreduce_bytes` (one all-reduce's
  message), :data:`ring_allreduce_time` (a ring all-reduce of it), :data:`tp_comm_time` (the two
  per layer, every layer), :data:`tp_step_time` (the step bound with that communication on the
  critical path), :data:`tp_speedup` and :data:`tp_best_degree` (when TP pays, and up to which
  degree).
* Expert parallelism (EP): the routed experts live on different chips and tokens travel to
  them and back: :data:`alltoall_bytes`, :data:`alltoall_time`; a decode step's
  communication with both: :data:`decode_allreduce_time`, :data:`decode_alltoall_time`.
* Pipeline parallelism (PP): consecutive layers on consecutive chips, work flowing through
  them in microbatches: :data:`pipeline_bubble`, :data:`pipeline_time`.
* Two tiers (issue 27): a scale-up domain (NVLink, Infinity Fabric, ICI) inside a scale-out
  network, each with its bandwidth and a latency per collective step.
  :data:`switch_allreduce_time` (in-switch reduction, NVLink SHARP),
  :data:`direct_allreduce_time` (one- or two-stage direct all-reduces where every chip reaches
  every other: a switch without in-switch reduction, a full mesh),
  :data:`two_tier_allreduce_time` (a group larger than one domain: reduce inside each domain,
  all-reduce a 1/N_dom shard between the domains, gather inside; the plan composes the same
  with the switch inside), :data:`layer_allreduce_time` (a step's all-reduces, of the hidden state and of other
  widths: :data:`mamba1_xproj_allreduce_bytes`, :data:`latent_moe_allreduces`);
  :data:`alltoall_copies` (one copy per destination, node-limited routing),
  :data:`dispatch_combine_bytes` (dispatch and combine in their own formats),
  :data:`layer_alltoall_time`; :data:`overlapped_time` (communication hidden under the work).
* Outside the layer stack (vLLM's vocabulary-parallel embedding and output head): the input
  embedding's all-reduce of the hidden state (one more of :data:`tp_allreduce_bytes`), a per-layer
  embedding's all-reduce and its projection's all-gather (:data:`ple_collective_bytes`), and the
  output head's all-gather of the sampled positions' logits (:data:`logits_gather_bytes`), priced
  by :data:`ring_allgather_time` or :data:`direct_allgather_time`.

Units: bytes [B], seconds [s], link bandwidths per chip and per direction [B/s].
"""
from __future__ import annotations

import sympy as sp

from ..core.registry import formula
from .roofline import roofline_time

__all__ = [
    "memory_per_chip", "tp_allreduce_bytes", "ring_allreduce_time", "tp_comm_time",
    "tp_step_time", "tp_speedup", "tp_best_degree", "alltoall_bytes", "alltoall_time",
    "decode_allreduce_time", "decode_alltoall_time", "pipeline_bubble", "pipeline_time",
    "switch_allreduce_time", "direct_allreduce_time", "two_tier_allreduce_time",
    "layer_allreduce_time", "mamba1_xproj_allreduce_bytes", "latent_moe_allreduces",
    "alltoall_copies", "dispatch_combine_bytes", "layer_alltoall_time",
    "overlapped_time", "ring_allgather_time", "direct_allgather_time", "logits_gather_bytes",
    "ple_collective_bytes",
]


@formula("memory_per_chip")
def memory_per_chip(*, weight_bytes, kv_cache, n_chips):
    """Bytes each chip of a replica holds when the weights and the cache are split evenly over
    its N chips (tensor and pipeline parallelism both split them; so does expert parallelism,
    for the experts).

    The weights and the cache are the replica's with every copy counted: under tensor
    parallelism a chip keeps at least one key/value head (more chips than heads copy them, and
    their key and value projections) and a latent cache whole, so the estimate passes N_tp times
    one chip's cache; and every chip holds whole what the engine does not split (norms, routers,
    latent down-projections, an indexer: :data:`~llm_arithmetic.formulas.engine.held_params`),
    so the estimate passes the weights with N_tp - 1 more copies of those. A chip also keeps
    activations and workspace, which this leaves to the reserve.

    Examples
    --------
    Llama 3 70B at fp8 (70,553,706,496 weights, one byte each) and 20 GB of cache on 8 chips:
    (70.55 + 20) / 8 = 11.32 GB each.

    >>> memory_per_chip(weight_bytes=70_553_706_496, kv_cache=20_000_000_000, n_chips=8)
    11319213312
    """
    return (weight_bytes + kv_cache) / n_chips


@formula("message_bytes")
def tp_allreduce_bytes(*, batch, d_model, bits=16):
    """Bytes of one tensor-parallel all-reduce: the output of an attention block (or of an
    MLP) for the B tokens of a step, a vector of d_model activations each, which every chip
    holds a partial sum of.

    Examples
    --------
    Llama 3 70B (d = 8192) decoding a batch of 64 with 16-bit activations: 64 x 8192 x 2 bytes
    = 1 MiB.

    >>> tp_allreduce_bytes(batch=64, d_model=8192)
    1048576
    """
    return batch * d_model * bits / 8


@formula("allreduce_time")
def ring_allreduce_time(*, message_bytes, n_chips, link_bandwidth, link_latency=0):
    """Time of a ring all-reduce of M bytes over N chips: a reduce-scatter and an all-gather,
    each N - 1 steps in which every chip sends a 1/N share of the message to its neighbour, so
    each chip sends 2(N - 1)/N x M bytes; and each of the 2(N - 1) steps pays one hop's latency.

    NCCL reports an all-reduce's "bus bandwidth" as (M / t) x 2(N - 1)/N for exactly this
    reason: it is the link bandwidth a ring all-reduce achieves, whatever N.

    Examples
    --------
    1 MiB over 8 H100s on NVLink 4 (450 GB/s per direction), no latency:
    1.75 x 1,048,576 B / 450 GB/s = 4.08 us.

    >>> t = ring_allreduce_time(message_bytes=1048576, n_chips=8, link_bandwidth=450e9)
    >>> round(t * 1e6, 2)
    4.08
    >>> ring_allreduce_time(message_bytes=1048576, n_chips=1, link_bandwidth=450e9)
    0.0
    """
    return (2 * (n_chips - 1) / n_chips * message_bytes / link_bandwidth
            + 2 * (n_chips - 1) * link_latency)


@formula("comm_time")
def tp_comm_time(*, n_layers, batch, d_model, tp, link_bandwidth, link_latency=0, bits=16):
    """Communication time of one tensor-parallel step: two ring all-reduces per layer (after
    attention and after the MLP), each of the step's B activation vectors.

    In decode these all-reduces are on the critical path: the next layer needs the reduced
    output of this one, so a step's communication adds to its memory or compute time (unless
    two microbatches take turns, one computing while the other communicates).

    Examples
    --------
    Llama 3 70B (80 layers, d = 8192) on 8 H100s at batch 64: 2 x 80 x 4.08 us = 0.65 ms.

    >>> t = tp_comm_time(n_layers=80, batch=64, d_model=8192, tp=8, link_bandwidth=450e9)
    >>> round(t * 1e3, 3)
    0.652
    """
    return 2 * n_layers * ring_allreduce_time(
        message_bytes=tp_allreduce_bytes(batch=batch, d_model=d_model, bits=bits),
        n_chips=tp, link_bandwidth=link_bandwidth, link_latency=link_latency)


@formula("decode_time")
def tp_step_time(*, step_bytes, step_flops, tp, bandwidth, peak_flops, comm_time=0):
    """Lower bound on a decode step split over N_tp chips: each chip moves 1/N_tp of the
    step's bytes and does 1/N_tp of its FLOPs (the roofline of its share), then the step's
    communication, serialized after it because each layer waits for its all-reduce. The bytes
    and FLOPs are the group's with every chip's copy counted (weights every chip keeps whole, a
    key/value head's cache on several chips), so that 1/N_tp of them is one chip's.

    Examples
    --------
    Llama 3 70B at fp8 on 8 H100s (3.35 TB/s, 1979 TFLOP/s fp8), batch 64 at 2,304 tokens of
    context: 70.55 GB of weights and 64 x 2304 x 327,680 B of cache is 118.9 GB, 4.44 ms over
    8 x 3.35 TB/s; 9.1 TFLOP take 0.57 ms over 8 x 1979 TFLOP/s; plus 0.65 ms of all-reduces:
    5.09 ms.

    >>> t = tp_step_time(step_bytes=118_872_000_000, step_flops=9.1e12, tp=8,
    ...                  bandwidth=3.35e12, peak_flops=1979e12, comm_time=0.000652)
    >>> round(t * 1e3, 2)
    5.09
    """
    return roofline_time(step_bytes=step_bytes / tp, step_flops=step_flops / tp,
                         bandwidth=bandwidth, peak_flops=peak_flops) + comm_time


@formula("tp_speedup")
def tp_speedup(*, decode_time, tp, comm_time):
    """Speed-up of a decode step on N_tp chips over one chip whose step takes t_dec: the
    step's share shrinks as 1/N_tp, the communication does not. TP pays while the speed-up
    exceeds 1, that is while the communication costs less than the (1 - 1/N_tp) of the step it
    saves.

    Examples
    --------
    A 20 ms step split 8 ways with 0.65 ms of all-reduces: 20 / (2.5 + 0.65) = 6.35.

    >>> round(tp_speedup(decode_time=0.020, tp=8, comm_time=0.00065), 2)
    6.35
    """
    return decode_time / (decode_time / tp + comm_time)


@formula("tp_best", exact=False)
def tp_best_degree(*, decode_time, n_layers, message_bytes, link_bandwidth, link_latency):
    """The tensor-parallel degree that makes a decode step fastest: the N that minimizes
    t_dec / N + (its all-reduces), solved by sympy from the derivative of the step time.

    The latency of the 2(N - 1) hops of every all-reduce grows with N while the share of the
    step shrinks as 1/N, so there is a best N when the latency is not zero: 1 when the
    solution is below 1 (TP never pays), infinite without latency (only the bandwidth term,
    which approaches 4 L M / beta_link, is left).

    Examples
    --------
    A 20 ms step, 80 layers of 1 MiB all-reduces at 450 GB/s and 5 us per hop:
    N* = sqrt((t - 4 L M / beta) / (4 L alpha)) = sqrt(0.019254 / 0.0016) = 3.47.

    >>> round(tp_best_degree(decode_time=0.020, n_layers=80, message_bytes=1048576,
    ...                      link_bandwidth=450e9, link_latency=5e-6), 2)
    3.47
    """
    n = sp.Dummy("n", positive=True)
    step = decode_time / n + 2 * n_layers * ring_allreduce_time(
        message_bytes=message_bytes, n_chips=n, link_bandwidth=link_bandwidth,
        link_latency=link_latency)
    # d(step)/dn = 0 is linear in n^2: solve for n^2, then take the positive square root
    slope, _ = sp.fraction(sp.together(sp.diff(step, n)))
    n2 = sp.Dummy("n2", positive=True)
    (square,) = sp.solve(sp.expand(slope).subs(n**2, n2), n2)
    numerator, denominator = sp.fraction(sp.together(square))
    if denominator.could_extract_minus_sign():
        numerator, denominator = -numerator, -denominator
    root = sp.Pow(numerator / denominator, sp.Rational(1, 2), evaluate=False)
    # N* <= 1 (numerator <= denominator; the denominator is positive): one chip is best
    return sp.Piecewise((1, sp.Le(numerator, denominator)), (sp.oo, sp.Eq(link_latency, 0)),
                        (root, True), evaluate=False)


@formula("alltoall_bytes")
def alltoall_bytes(*, batch, d_model, n_active_experts, ep, bits=16):
    """Bytes one chip sends in the all-to-alls of one expert-parallel MoE layer: each of its B
    tokens goes to its k experts, of which a share (N_ep - 1)/N_ep lives on other chips
    (uniform routing), once to dispatch the token's activations and once to combine the
    experts' outputs.

    Examples
    --------
    DeepSeek-V3 (d = 7168, 8 experts per token) with 128 tokens per chip on EP 32, 16-bit
    activations: 2 x 128 x 8 x 31/32 x 7168 x 2 B = 28.4 MB.

    >>> alltoall_bytes(batch=128, d_model=7168, n_active_experts=8, ep=32)
    28442624
    """
    return 2 * batch * n_active_experts * (ep - 1) / ep * d_model * bits / 8


@formula("comm_time")
def alltoall_time(*, alltoall_bytes, link_bandwidth, link_latency=0):
    """Time of the all-to-alls of one MoE layer on one chip: its bytes over its link, and one
    latency for each of the two phases (dispatch, combine).

    Examples
    --------
    28.4 MB over a 50 GB/s network link (400 Gb/s InfiniBand): 0.57 ms a layer.

    >>> round(alltoall_time(alltoall_bytes=28442624, link_bandwidth=50e9) * 1e3, 2)
    0.57
    """
    return alltoall_bytes / link_bandwidth + 2 * link_latency


@formula("comm_time")
def decode_allreduce_time(*, n_layers, n_ep_layers, batch, d_model, tp, link_bandwidth,
                          link_latency=0, bits=16):
    """All-reduce time of one tensor-parallel decode step of B tokens when L_ep of the L layers
    are expert-parallel MoE blocks: two ring all-reduces per layer (after attention and after
    the MLP), except that an expert-parallel MoE block gathers its experts' outputs with the
    all-to-all of :data:`decode_alltoall_time` instead, so 2 L - L_ep of them. Without expert
    parallelism (L_ep = 0) this is :data:`tp_comm_time`.

    Examples
    --------
    Llama 3 70B (80 dense layers, d = 8192) on 8 H100s at batch 64: 160 all-reduces of 4.08 us.

    >>> t = decode_allreduce_time(n_layers=80, n_ep_layers=0, batch=64, d_model=8192, tp=8,
    ...                           link_bandwidth=450e9)
    >>> round(t * 1e3, 3)
    0.652

    Mixtral 8x7B (32 MoE layers, d = 4096) on tp = ep = 8 at batch 64: 32 all-reduces (the
    attention outputs) of 2.04 us.

    >>> t = decode_allreduce_time(n_layers=32, n_ep_layers=32, batch=64, d_model=4096, tp=8,
    ...                           link_bandwidth=450e9)
    >>> round(t * 1e6, 1)
    65.2
    """
    return (2 * n_layers - n_ep_layers) * ring_allreduce_time(
        message_bytes=tp_allreduce_bytes(batch=batch, d_model=d_model, bits=bits),
        n_chips=tp, link_bandwidth=link_bandwidth, link_latency=link_latency)


@formula("comm_time")
def decode_alltoall_time(*, n_ep_layers, batch, d_model, n_active_experts, ep, link_bandwidth,
                         link_latency=0, bits=16):
    """All-to-all time of one decode step on one chip that holds B of the step's tokens: the
    dispatch and combine of :data:`alltoall_time` in each of the L_ep expert-parallel MoE
    blocks.

    Examples
    --------
    Mixtral 8x7B (32 MoE layers, d = 4096, 2 experts per token) on ep = 8, 8 of a batch of 64
    tokens on each chip, over 450 GB/s links: 32 x 0.51 us (229,376 bytes each).

    >>> t = decode_alltoall_time(n_ep_layers=32, batch=8, d_model=4096, n_active_experts=2,
    ...                          ep=8, link_bandwidth=450e9)
    >>> round(t * 1e6, 2)
    16.31
    """
    return n_ep_layers * alltoall_time(
        alltoall_bytes=alltoall_bytes(batch=batch, d_model=d_model,
                                      n_active_experts=n_active_experts, ep=ep, bits=bits),
        link_bandwidth=link_bandwidth, link_latency=link_latency)


@formula("bubble")
def pipeline_bubble(*, pp, microbatches):
    """Fraction of a pipeline's time its stages sit idle when m microbatches go through N_pp
    stages: the first stage waits for nothing but the last starts N_pp - 1 stage-times late,
    and as long after the first finishes (GPipe's bubble).

    Examples
    --------
    4 stages, 12 microbatches: 3 / 15.

    >>> pipeline_bubble(pp=4, microbatches=12)
    0.2
    """
    return (pp - 1) / (microbatches + pp - 1)


@formula("step_time")
def pipeline_time(*, stage_time, pp, microbatches):
    """Time for m microbatches to pass through N_pp stages of t_stage each: N_pp stage-times to
    fill the pipeline with the first, then one more for each of the others.

    With one microbatch it is N_pp t_stage: a token crosses every stage in turn. That is why a
    decoded token takes as long with pipeline parallelism as without it (the stages only take
    turns), while the pipeline holds more weights and cache.

    Examples
    --------
    >>> pipeline_time(stage_time=0.001, pp=4, microbatches=12)
    0.015
    >>> pipeline_time(stage_time=1, pp=4, microbatches=1)
    4
    """
    return (microbatches + pp - 1) * stage_time


# ---- two tiers: a scale-up domain in a scale-out network (issue 27) -----------------------------


@formula("allreduce_time")
def switch_allreduce_time(*, message_bytes, n_chips, link_bandwidth, link_latency=0):
    """Time of an all-reduce of M bytes over N chips whose switch adds in the network (NVLink
    SHARP on third-generation NVSwitch and later): each chip lets the switch read its whole
    message once (the switch adds the N copies of each 1/N share as it reads them), reads back
    its reduced share (M/N), and stores that share once to a multicast address that the switch
    copies to every chip (M/N out, M in). Each chip therefore sends and receives (N + 1)/N x M,
    against the ring's 2(N - 1)/N x M: the ring's figure is the least a chip must send when
    chips add, not when the network does. Two steps pay a latency (reduce, multicast).

    Examples
    --------
    1 MiB over 8 H100s (450 GB/s per direction), no latency: 1.125 x 1,048,576 B / 450 GB/s =
    2.62 us, against 4.08 us for the ring.

    >>> t = switch_allreduce_time(message_bytes=1048576, n_chips=8, link_bandwidth=450e9)
    >>> round(t * 1e6, 2)
    2.62
    """
    return (n_chips + 1) / n_chips * message_bytes / link_bandwidth + 2 * link_latency


@formula("allreduce_time")
def direct_allreduce_time(*, message_bytes, n_chips, link_bandwidth, link_latency=0):
    """Time of a direct all-reduce of M bytes over N chips that all reach one another (a switch
    without in-switch reduction, or a full mesh of links): the lesser of the two kernels an
    engine picks between on such a domain (vLLM's custom all-reduce,
    ``csrc/custom_all_reduce.cuh``: ``cross_device_reduce_1stage`` and ``_2stage``).

    * One stage: every chip reads the whole message of each of its N - 1 peers and adds them,
      so each chip receives (N - 1) x M bytes; one synchronization, one latency.
    * Two stages: a reduce-scatter (each chip reads its 1/N share from each of the N - 1 peers
      and adds: (N - 1)/N x M) then an all-gather (each chip reads the N - 1 reduced shares it
      lacks: (N - 1)/N x M again); two synchronizations, two latencies.

    B is the chip's scale-up bandwidth per direction summed over all its links (the catalog's
    ``scale_up_bandwidth``: an MI300X's 7 links of 64 GB/s each way are 448 GB/s). Both kernels
    move every peer's part at once: on a full mesh each of the N - 1 parts has its own link of
    B/(N - 1), so (N - 1) parts of X bytes take X / (B/(N - 1)) = (N - 1) X / B; through a
    switch the chip's one port of B carries the (N - 1) X bytes. Either way the time is the
    bytes a chip receives over B, not over one link's B/(N - 1). The two-stage kernel moves the
    ring's 2(N - 1)/N x M in 2 steps instead of the ring's 2(N - 1), so the direct all-reduce
    is never slower than the ring; the one-stage kernel wins on small messages, where the
    latency dominates. For N >= 2 (a domain of one chip has nothing to reduce).

    Examples
    --------
    A 4 KiB message (one token, d = 2048, 16 bits) over 8 MI300X (448 GB/s, 0.47 us a step):
    one stage 7 x 4096 B / 448 GB/s + 0.47 us = 0.064 + 0.47 = 0.534 us; two stages
    1.75 x 4096 B / 448 GB/s + 0.94 us = 0.016 + 0.94 = 0.956 us; the ring's 14 steps would
    take 0.016 + 6.58 = 6.596 us.

    >>> t = direct_allreduce_time(message_bytes=4096, n_chips=8, link_bandwidth=448e9,
    ...                           link_latency=0.47e-6)
    >>> round(t * 1e6, 3)
    0.534

    1 MiB over 8 H100-class chips (450 GB/s), no latency: the two-stage kernel's
    1.75 x 1,048,576 B / 450 GB/s = 4.08 us (the one stage's 7 x would be 16.3 us).

    >>> t = direct_allreduce_time(message_bytes=1048576, n_chips=8, link_bandwidth=450e9)
    >>> round(t * 1e6, 2)
    4.08
    """
    one_stage = (n_chips - 1) * message_bytes / link_bandwidth + link_latency
    two_stage = (2 * (n_chips - 1) / n_chips * message_bytes / link_bandwidth
                 + 2 * link_latency)
    return sp.Min(one_stage, two_stage, evaluate=False)


@formula("allreduce_time")
def switch_or_chips_allreduce_time(*, switch_time, chips_time):
    """Time of one all-reduce in a domain whose switch can add: the faster of the switch's
    reduction and the chips' own (direct, or a ring). Engines pick the kernel by the message
    and the group (NCCL's tuner, vLLM's custom all-reduce for small messages), and a bound takes
    the least. The switch sends (N + 1)/N of the message and the chips 2(N - 1)/N: the switch
    wins from four chips, ties at three and loses at two.

    Examples
    --------
    1 MiB over 2 H100s (450 GB/s), no latency: the switch's 1.5 x 1,048,576 B / 450 GB/s =
    3.50 us against the ring's 1 x 1,048,576 B / 450 GB/s = 2.33 us.

    >>> round(switch_or_chips_allreduce_time(switch_time=3.50e-6, chips_time=2.33e-6) * 1e6, 2)
    2.33
    """
    return sp.Min(switch_time, chips_time, evaluate=False)


@formula("allreduce_time")
def two_tier_allreduce_time(*, message_bytes, domain_chips, n_nodes, link_bandwidth,
                            link_latency, out_bandwidth, out_latency):
    """Time of a hierarchical all-reduce over N_node scale-up domains of N_dom chips each: a
    ring reduce-scatter inside each domain leaves every chip with one 1/N_dom share summed over
    its domain; the chips holding the same share all-reduce it over the scale-out network, a
    ring of N_node (every chip has its own network port); a ring all-gather inside each domain
    spreads the result. The two phases inside the domain make one ring all-reduce of the
    message; the network carries only 1/N_dom of it.

    With one domain (N_node = 1) this is :data:`ring_allreduce_time` over N_dom chips.

    Examples
    --------
    1 MiB over two nodes of 8 H100s (NVLink 450 GB/s, 0.47 us a step; 50 GB/s of network per
    chip, 2.7 us a step): inside, 4.08 us of transfer and 14 x 0.47 = 6.58 us of latency;
    outside, a 128 KiB shard between two nodes, 2.62 us and 2 x 2.7 = 5.4 us: 18.7 us.

    >>> t = two_tier_allreduce_time(message_bytes=1048576, domain_chips=8, n_nodes=2,
    ...     link_bandwidth=450e9, link_latency=0.47e-6, out_bandwidth=50e9, out_latency=2.7e-6)
    >>> round(t * 1e6, 1)
    18.7
    """
    return (ring_allreduce_time(message_bytes=message_bytes, n_chips=domain_chips,
                                link_bandwidth=link_bandwidth, link_latency=link_latency)
            + ring_allreduce_time(message_bytes=message_bytes / domain_chips, n_chips=n_nodes,
                                  link_bandwidth=out_bandwidth, link_latency=out_latency))


@formula("comm_time")
def layer_allreduce_time(*, n_allreduces, allreduce_time, n_other_allreduces=0,
                         other_allreduce_time=0):
    """All-reduces of one tensor-parallel step: N_ar whose message is the hidden state (one
    after attention or a mixer, one after an MLP, where each ends in a row-split projection;
    none after an expert-parallel MoE block, whose experts' outputs come back by the
    all-to-all's combine), each taking t_ar, and N_ar,x of another width, each taking t_ar,x
    (Mamba-1's x_proj output, a norm's variance over heads split across the chips, a latent
    MoE's routed sum): the plan counts both per block from its parts' forms
    (:data:`~llm_arithmetic.plan.stack.TERMS` ``tp_allreduces`` and ``other_allreduces``).

    Examples
    --------
    80 dense layers, two all-reduces each at 4.08 us: 0.65 ms. MiniMax-M1 (80 blocks; 70 of
    them lightning attention, whose norm all-reduces one float32 variance per token besides
    its output projection): 160 at 4.08 us and 70 latency-bound ones at, say, 1.9 us: 0.79 ms.

    >>> round(layer_allreduce_time(n_allreduces=160, allreduce_time=4.08e-6) * 1e3, 2)
    0.65
    >>> round(layer_allreduce_time(n_allreduces=160, allreduce_time=4.08e-6,
    ...                            n_other_allreduces=70, other_allreduce_time=1.9e-6) * 1e3, 2)
    0.79
    """
    return n_allreduces * allreduce_time + n_other_allreduces * other_allreduce_time


@formula("message_bytes")
def mamba1_xproj_allreduce_bytes(*, batch, dt_rank, d_state, bits=16):
    """Bytes of the second all-reduce of a tensor-parallel Mamba-1 layer. vLLM's ``MambaMixer``
    splits the inner width d_inner over the chips, so ``x_proj``, which maps the d_inner
    channels to the step-size rank and B and C, is split by rows (a ``RowParallelLinear``):
    each chip holds a partial sum of its r_dt + 2 d_state outputs, all-reduced before
    ``dt_proj`` (vllm-project/vllm @ 00f8d4456f506c4885a122c993796a6abc319af8,
    vllm/model_executor/layers/mamba/mamba_mixer.py), in the activations' 16 bits.

    Examples
    --------
    Phi-4-mini-flash-reasoning (r_dt = 160, d_state = 16) decoding a batch of 64:
    64 x (160 + 32) x 2 bytes = 24,576 bytes, against 64 x 2560 x 2 = 327,680 for the hidden
    state.

    >>> mamba1_xproj_allreduce_bytes(batch=64, dt_rank=160, d_state=16)
    24576
    """
    return batch * (dt_rank + 2 * d_state) * bits / 8


@formula("n_allreduces")
def latent_moe_allreduces(*, n_shared_experts):
    """All-reduces of the hidden state a tensor-parallel latent MoE block issues: its routed
    experts' sum is all-reduced in the latent, before the up-projection (an all-reduce of
    another width), so the shared experts' output is all-reduced on its own, one where there
    are shared experts and none without (vLLM's ``MoERunner.forward``:
    ``_maybe_reduce_routed_output_before_transform``, then
    ``_maybe_reduce_shared_expert_output``; vllm-project/vllm @
    01cb3084506318d5a2d4c40f0798b0db04498b42,
    vllm/model_executor/layers/fused_moe/runner/moe_runner.py).

    Examples
    --------
    Nemotron 3 Super (one shared expert): 1.

    >>> latent_moe_allreduces(n_shared_experts=1)
    1
    """
    return sp.Min(1, n_shared_experts, evaluate=False)


@formula("alltoall_copies", exact=False)
def alltoall_copies(*, n_active_experts, n_nodes, node_limit):
    """Copies of one token's activations a chip sends away in one phase of an expert-parallel
    all-to-all, when a token goes once to each destination that holds any of its k experts (a
    node forwards it to its own chips) and routing may use at most M_node of the N_node
    destinations (DeepSeek-V3: 4 nodes). With uniform routing over the M_node destinations
    chosen, each holds at least one of the k experts with probability 1 - (1 - 1/M_node)^k,
    and one destination in N_node is the chip's own.

    Without a node limit (M_node = N_node) this is (N_node - 1)(1 - (1 - 1/N_node)^k), less
    than the k (N_node - 1)/N_node copies of sending once per expert.

    Examples
    --------
    DeepSeek-V3 (k = 8) over 4 nodes, at most 4 per token: 3/4 x 4 x (1 - (3/4)^8) = 2.70
    copies, against 8 x 3/4 = 6 sent once per expert.

    >>> round(alltoall_copies(n_active_experts=8, n_nodes=4, node_limit=4), 2)
    2.7
    """
    return ((n_nodes - 1) / n_nodes * node_limit
            * (1 - (1 - 1 / node_limit) ** n_active_experts))


@formula("alltoall_bytes")
def dispatch_combine_bytes(*, batch, d_model, alltoall_copies, bits_dispatch, bits=16):
    """Bytes one chip sends in the all-to-alls of one MoE layer: c_a2a copies of each of its B
    tokens' activations out in the dispatch format (DeepSeek's inference system dispatches in
    fp8), and as many expert outputs back in the combine, at b bits (bf16).

    Examples
    --------
    128 tokens of DeepSeek-V3 (d = 7168), 2.70 copies each, fp8 dispatch and bf16 combine:
    128 x 2.70 x 7168 x 3 B = 7.43 MB.

    >>> round(dispatch_combine_bytes(batch=128, d_model=7168, alltoall_copies=2.7,
    ...                              bits_dispatch=8) / 1e6, 2)
    7.43
    """
    return batch * alltoall_copies * d_model * (bits_dispatch + bits) / 8


@formula("comm_time")
def layer_alltoall_time(*, n_ep_layers, alltoall_bytes, link_bandwidth, link_latency=0):
    """All-to-all time of one step on one chip: in each of the L_ep expert-parallel MoE blocks,
    its bytes over its link and a latency for each of the two phases
    (:data:`alltoall_time`).

    Examples
    --------
    58 MoE layers of 7.43 MB over 50 GB/s of network, 2.7 us a phase: 8.93 ms.

    >>> round(layer_alltoall_time(n_ep_layers=58, alltoall_bytes=7.43e6, link_bandwidth=50e9,
    ...                           link_latency=2.7e-6) * 1e3, 2)
    8.93
    """
    return n_ep_layers * alltoall_time(alltoall_bytes=alltoall_bytes,
                                       link_bandwidth=link_bandwidth, link_latency=link_latency)


@formula("step_seconds")
def overlapped_time(*, work_time, comm_time):
    """Lower bound on a step whose communication runs while the chip computes: the longer of
    its work (memory traffic and arithmetic) and its communication. An engine can overlap them
    by splitting a batch or a prompt in two and letting one half compute while the other
    communicates (DeepSeek's two microbatches; a prefill's chunks); the serialized sum
    t_work + t_comm is what a step costs without that, a bound only for an engine that
    waits.

    Examples
    --------
    >>> overlapped_time(work_time=0.018, comm_time=0.021)
    0.021
    """
    return sp.Max(work_time, comm_time)


# ---- outside the layer stack: the vocabulary-parallel embedding and output head ----------------


@formula("allgather_time")
def ring_allgather_time(*, message_bytes, n_chips, link_bandwidth, link_latency=0):
    """Time of a ring all-gather of M bytes over N chips, each of which holds a 1/N share of
    the message and ends with all of it: N - 1 steps in which every chip passes one share to its
    neighbour, so each chip sends (and receives) (N - 1)/N x M bytes and pays N - 1 hops'
    latency. This is the second half of :data:`ring_allreduce_time` (a reduce-scatter, then
    this), hence half its bytes and half its steps: NCCL's performance notes give an all-gather
    of M bytes a bus bandwidth of (M / t) x (N - 1)/N against the all-reduce's 2(N - 1)/N
    (nccl-tests, doc/PERFORMANCE.md), and Thakur, Rabenseifner and Gropp (2005) the same
    (p - 1) alpha + (p - 1)/p n beta for the ring all-gather of MPICH.

    Examples
    --------
    The logits of 64 tokens of Llama 3 70B (V = 128,256, 16 bits: 16,416,768 B) over 8 H100s on
    NVLink 4 (450 GB/s per direction), no latency: 0.875 x 16,416,768 B / 450 GB/s = 31.92 us.

    >>> t = ring_allgather_time(message_bytes=16416768, n_chips=8, link_bandwidth=450e9)
    >>> round(t * 1e6, 2)
    31.92
    >>> ring_allgather_time(message_bytes=16416768, n_chips=1, link_bandwidth=450e9)
    0.0
    """
    return ((n_chips - 1) / n_chips * message_bytes / link_bandwidth
            + (n_chips - 1) * link_latency)


@formula("allgather_time")
def direct_allgather_time(*, message_bytes, n_chips, link_bandwidth, link_latency=0):
    """Time of an all-gather of M bytes over N chips that all reach one another (a switch or a
    full mesh): every chip reads the N - 1 shares of its peers at once, (N - 1)/N x M bytes over
    its scale-up bandwidth B (as in :data:`direct_allreduce_time`, of whose two-stage kernel
    this is the second stage), in one step and one latency. A switch that multicasts (NVLink
    SHARP) does no better: each chip stores its share once and still receives the N - 1 others.

    Examples
    --------
    One token's logits of Llama 3 70B (256,512 B) over 8 chips at 448 GB/s, 0.47 us a step:
    0.875 x 256,512 B / 448 GB/s + 0.47 us = 0.501 + 0.47 = 0.971 us (the ring's 7 steps:
    0.501 + 3.29 = 3.79 us).

    >>> t = direct_allgather_time(message_bytes=256512, n_chips=8, link_bandwidth=448e9,
    ...                           link_latency=0.47e-6)
    >>> round(t * 1e6, 3)
    0.971
    """
    return (n_chips - 1) / n_chips * message_bytes / link_bandwidth + link_latency


@formula("message_bytes")
def logits_gather_bytes(*, batch, n_vocab, bits=16):
    """Bytes of the all-gather of logits that ends a tensor-parallel step. vLLM splits the
    output head by vocabulary (``ParallelLMHead``): each chip computes the logits of its V/N_tp
    rows for the positions it samples, and ``LogitsProcessor`` gathers them into the whole
    vocabulary with ``tensor_model_parallel_all_gather`` (``current_platform.use_all_gather()``
    is true under the V1 engine; a gather to one chip otherwise), in the head's dtype, the
    model's 16 bits unless a float32 head is asked (vllm-project/vllm @
    00db1f124590c3a5655a1781c857334d4a3ce83b, vllm/model_executor/layers/logits_processor.py;
    vllm/platforms/interface.py @ 005e8184209f2036636bcfbcabe565ece9689305). B is the positions
    sampled: every sequence of a decode step, the last position only of a prefill. vLLM pads the
    vocabulary to a multiple of 64 (``pad_vocab_size``) and gathers the padding too; V here is
    the config's, whose padding is then at most 63 rows.

    Examples
    --------
    Llama 3 70B (V = 128,256) decoding a batch of 64: 64 x 128,256 x 2 B = 16,416,768 B, 15.7 times
    one all-reduce of its hidden state (64 x 8192 x 2 B).

    >>> logits_gather_bytes(batch=64, n_vocab=128256)
    16416768
    """
    return batch * n_vocab * bits / 8


@formula("message_bytes")
def ple_collective_bytes(*, batch, n_layers, d_ple, bits=16):
    """Bytes of each of the two collectives of a per-layer input embedding (Gemma 3n, Gemma 4
    E2B/E4B) under tensor parallelism: vLLM splits its table, of L x d_PLE columns, by vocabulary
    (``embed_tokens_per_layer``, a ``VocabParallelEmbedding``: an all-reduce of the L d_PLE
    values of each token) and its projection from the hidden state by columns with
    ``gather_output=True`` (``per_layer_model_projection``: an all-gather of as many), in the
    activations' 16 bits (vllm-project/vllm @ 034f08e65e596139d8da7fe53c8a892209b64ba3,
    vllm/model_executor/models/gemma3n.py; @ 001cabc1be16a59a70d720ed61a13b678c060a18,
    vllm/model_executor/models/gemma4.py).

    Examples
    --------
    Gemma 3n E2B (30 layers, d_PLE = 256) decoding a batch of 64: 64 x 7,680 x 2 B = 983,040 B,
    3.75 times its hidden state's 64 x 2048 x 2 B.

    >>> ple_collective_bytes(batch=64, n_layers=30, d_ple=256)
    983040
    """
    return batch * n_layers * d_ple * bits / 8


@formula("message_bytes")
def altup_gather_bytes(*, batch, d_model, bits=16):
    """Bytes of one all-gather of Gemma 3n's AltUp projections under tensor parallelism: vLLM
    builds each of the n - 1 ``altup_projections`` (applied to the embedded tokens, before the
    first block) and each of the n - 1 ``altup_unembed_projections`` (after the last block,
    before the final norm) as a ``ColumnParallelLinear`` d -> d with ``gather_output=True``, so
    each all-gathers the d outputs of every token of the step, in the activations' 16 bits
    (vllm-project/vllm @ 034f08e65e596139d8da7fe53c8a892209b64ba3,
    vllm/model_executor/models/gemma3n.py: ``Gemma3nTextModel.__init__`` and ``forward``).
    n = ``altup_num_inputs``; a step issues 2 (n - 1) of these, once per step, not per block.

    Examples
    --------
    Gemma 3n E4B (d = 2048) decoding a batch of 64: 64 x 2048 x 2 B = 262,144 B, one hidden
    state's worth; with n = 4 the step all-gathers six of them.

    >>> altup_gather_bytes(batch=64, d_model=2048)
    262144
    """
    return batch * d_model * bits / 8
