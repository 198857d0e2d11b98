"""Build code of the parallelism chapter (``notebooks/11-parallelism.ipynb``): the fewest chips
that hold a model, a chip's link bandwidths, the tensor-parallel degree that minimizes the time
per output token, and the all-to-all of an expert-parallel step on two kinds of network.
"""
from __future__ import annotations

import math
from typing import Any, Iterable

from ... import numeric as N
from ...estimate import estimate

#: Tensor-parallel degrees the chapter tries: powers of two.
DEGREES = (1, 2, 4, 8, 16, 32, 64)


def degrees_for(model: Any, degrees: Iterable[int] = DEGREES) -> list[int]:
    """The degrees of ``degrees`` that split ``model``'s attention heads evenly.

    >>> from llm_arithmetic import get_model
    >>> degrees_for(get_model("qwen2.5-7b"))
    [1, 2, 4]
    """
    return [d for d in degrees if d <= model.n_heads and model.n_heads % d == 0]


def fewest_chips(model: Any, chip: Any, weights: str, context: int) -> tuple[int | None, Any]:
    """The fewest chips (a degree of :func:`degrees_for`) whose memory holds ``model``'s weights
    in ``weights`` and one ``context``-token cache (each chip keeping at least one key/value
    head, as the estimate counts it), and that estimate; ``(None, None)`` when no degree does.

    >>> from llm_arithmetic import get_hardware, get_model
    >>> n, e = fewest_chips(get_model("llama-3.3-70b"), get_hardware("h100-sxm"), "fp16", 8192)
    >>> n, e.fits_per_chip
    (2, True)
    """
    for n in degrees_for(model):
        e = estimate(model, hardware=chip, weights=weights, tp=n, context=context)
        if e.fits_per_chip:
            return n, e
    return None, None


def links(chip: Any) -> tuple[float, float]:
    """A chip's link bandwidths per direction [B/s]: (inside a node, between nodes). Inside, its
    scale-up fabric, else its PCIe link; between, its network, else its PCIe link (as the
    estimate takes them), else the same figure; NaN for a chip that lists no link at all (a
    laptop).

    >>> from llm_arithmetic import get_hardware
    >>> [x / 1e9 for x in links(get_hardware("h100-sxm"))]
    [450.0, 50.0]
    >>> links(get_hardware("rtx-4090"))[0] / 1e9, math.isnan(links(get_hardware("m2"))[0])
    (32.0, True)
    >>> [x / 1e9 for x in links(get_hardware("mi300x"))]   # no network listed: PCIe between
    [448.0, 64.0]
    """
    ic = chip.interconnect
    up = (ic.scale_up_bandwidth or ic.pcie_bandwidth) if ic else None
    out = (ic.scale_out_bandwidth or ic.pcie_bandwidth or up) if ic else None
    return (up or math.nan), (out or math.nan)


def best_degree_by_curve(model: Any, chip: Any, weights: str, batch: int, context: int,
                         link_latency: float | None = None) -> int:
    """The tensor-parallel degree of :func:`degrees_for` with the shortest time per output
    token, ring all-reduces at ``link_latency`` [s] per step (None: the estimate's own latency
    on each tier) added after the work."""
    t = {d: estimate(model, hardware=chip, weights=weights, batch=batch, context=context,
                     tp=d, link_latency=link_latency, allreduce="ring",
                     overlap=False).tpot_seconds for d in degrees_for(model)}
    return min(t, key=t.get)


def expert_alltoall(model: Any, node_chip: Any, rack_chip: Any, ep: int, tokens: int,
                    node_limit: int, weights: str = "fp8") -> dict[str, float]:
    """The all-to-all of one decode step of a mixture of experts split over ``ep`` chips,
    ``tokens`` tokens per chip, 8-bit dispatch: bytes per chip and time over all its expert
    layers [s], on nodes of ``node_chip`` joined by their network (routing limited to
    ``node_limit`` nodes) and on one scale-up domain of ``rack_chip``, beside the naive count
    (every token to every chosen expert, 16-bit, over the same network with the same latency
    per phase, so that the two times differ by their bytes alone).

    >>> from llm_arithmetic import get_hardware, get_model
    >>> a = expert_alltoall(get_model("deepseek-v3"), get_hardware("h100-sxm"),
    ...                     get_hardware("gb200"), 32, 128, 4)
    >>> a["nodes"], a["naive_s"] > a["network_s"] > a["rack_s"]
    (4, True)
    """
    layers = sum(run.count for run in model.layers if run.mlp is not None and run.mlp.is_moe)
    k = model.n_active_experts
    naive_bytes = N.alltoall_bytes(batch=tokens, d_model=model.d_model, n_active_experts=k,
                                   ep=ep)
    net = node_chip.interconnect.scale_out_bandwidth
    rack = rack_chip.interconnect.scale_up_bandwidth
    nodes = ep // node_chip.interconnect.scale_up_domain
    lat = estimate(model, hardware=node_chip, weights=weights, tp=ep, ep=ep)
    copies = N.alltoall_copies(n_active_experts=k, n_nodes=nodes, node_limit=node_limit)
    net_bytes = N.dispatch_combine_bytes(batch=tokens, d_model=model.d_model,
                                         alltoall_copies=copies, bits_dispatch=8)
    rack_copies = N.alltoall_copies(n_active_experts=k, n_nodes=ep, node_limit=ep)
    rack_bytes = N.dispatch_combine_bytes(batch=tokens, d_model=model.d_model,
                                          alltoall_copies=rack_copies, bits_dispatch=8)
    return dict(
        layers=layers, nodes=nodes, copies=copies, naive_bytes=naive_bytes,
        network_bytes=net_bytes, network_bandwidth=net, rack_bandwidth=rack,
        naive_s=N.layer_alltoall_time(n_ep_layers=layers, alltoall_bytes=naive_bytes,
                                      link_bandwidth=net, link_latency=lat.scale_out_latency),
        network_s=N.layer_alltoall_time(n_ep_layers=layers, alltoall_bytes=net_bytes,
                                        link_bandwidth=net, link_latency=lat.scale_out_latency),
        rack_s=N.layer_alltoall_time(n_ep_layers=layers, alltoall_bytes=rack_bytes,
                                     link_bandwidth=rack, link_latency=lat.scale_up_latency))
