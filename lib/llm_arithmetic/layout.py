"""A model laid out on chips: the tensor-, expert- and pipeline-parallel degrees checked
against the model, the communication options (all-reduce algorithm, overlap, node limit,
dispatch bits, a collective step's latency) checked and named as the plan's inputs, and a chip's
figures and dense peaks as the plan reads them.

Units: degrees [-], bandwidth [B/s], rates [FLOP/s], latency [s], memory [B], power [W].

>>> from llm_arithmetic import get_model
>>> parallel_degrees(get_model("llama-3-70b"), 8, 1, 2)
(8, 1, 2)
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .arguments import count_argument
from .catalog.formats import attention_precision, bits_per_weight, compute_precision
from .catalog.hardware import FULLY_CONNECTED, Hardware
from .catalog.model import GatedMemoryUnit, LightningAttention, Mamba1, Mamba2, Model
from .core.errors import InputError

__all__ = ["parallel_degrees", "latency_argument", "ALLREDUCE_ALGORITHMS", "comm_options",
           "check_direct", "chip_inputs", "peak_for", "attention_peak_for"]

def parallel_degrees(model: Model, tp: Any, ep: Any, pp: Any) -> tuple[int, int, int]:
    """The tensor-, expert- and pipeline-parallel degrees as
    :func:`~llm_arithmetic.estimate.estimate` checks them for ``model``: each a positive integer
    (:func:`~llm_arithmetic.arguments.count_argument`); tp divides every attention layer's heads,
    and divides its KV heads or is a multiple of them (vLLM's ``QKVParallelLinear``: fewer KV heads
    than chips are copied, whole), divides a Mamba-2 mixer's heads, and its B/C groups unless it
    has one (``MambaMixer2``: a lone group is copied to every chip), divides a lightning attention
    mixer's heads and a Mamba-1 mixer's or a gated memory unit's channels, pp is at most the
    layers, and ep > 1 needs a mixture whose experts it divides among the replica's tp x pp chips;
    else an :class:`InputError` saying which.

    >>> from llm_arithmetic import get_model
    >>> m = get_model("mixtral-8x7b")
    >>> parallel_degrees(m, 4, 4, 2)
    (4, 4, 2)
    >>> parallel_degrees(m, 3, 1, 1)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 3 does not divide the 32 attention heads of mixtral-8x7b's layers (tensor parallelism gives each chip whole heads)
    >>> parallel_degrees(get_model("qwen2.5-7b"), 14, 1, 1)   # 28 heads, 4 KV heads
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 14 neither divides the 4 KV heads of qwen2.5-7b's layers nor is a multiple of them (each chip holds whole KV heads, or one head copied on tp / KV heads chips)
    >>> parallel_degrees(get_model("nemotron-h-56b"), 16, 1, 1)   # 8 groups
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: tp = 16 does not divide the 8 B/C groups of nemotron-h-56b's Mamba-2 mixers (vLLM splits the groups, or copies a single group to every chip)
    """
    tp, ep, pp = count_argument("tp", tp), count_argument("ep", ep), count_argument("pp", pp)
    heads = [run.attention.n_heads for run in model.layers if run.attention is not None]
    if heads and tp > min(heads):
        raise InputError(f"tp = {tp} exceeds the {min(heads)} attention heads of {model.name}'s "
                         "layers: tensor parallelism splits heads, not parts of one")
    if any(h % tp for h in heads):
        raise InputError(f"tp = {tp} does not divide the {min(heads)} attention heads of "
                         f"{model.name}'s layers (tensor parallelism gives each chip whole heads)")
    kv = sorted({run.attention.n_kv_heads for run in model.layers if run.attention is not None})
    odd = [k for k in kv if k % tp and tp % k]
    if odd:
        raise InputError(f"tp = {tp} neither divides the {odd[0]} KV heads of {model.name}'s "
                         "layers nor is a multiple of them (each chip holds whole KV heads, or "
                         "one head copied on tp / KV heads chips)")
    # vLLM's MambaMixer2 splits a Mamba-2 mixer's heads and its B/C groups, copying a lone
    # group to every chip (formulas/engine.py): tp must divide the heads, and the groups unless
    # there is one
    for mx in sorted({(run.mixer.n_heads, run.mixer.n_groups) for run in model.layers
                      if isinstance(run.mixer, Mamba2)}):
        if mx[0] % tp:
            raise InputError(f"tp = {tp} does not divide the {mx[0]} heads of {model.name}'s "
                             "Mamba-2 mixers (tensor parallelism gives each chip whole heads)")
        if mx[1] % tp and mx[1] != 1:
            raise InputError(f"tp = {tp} does not divide the {mx[1]} B/C groups of "
                             f"{model.name}'s Mamba-2 mixers (vLLM splits the groups, or "
                             "copies a single group to every chip)")
    # vLLM splits a lightning attention mixer by heads (asserting tp divides them), a Mamba-1
    # mixer and a gated memory unit by channels (column-parallel projections: tp divides
    # d_inner, d_gmu); formulas/engine.py pins the files
    for kind, what, width in (
            (LightningAttention, "heads of {}'s lightning attention mixers", "la_heads"),
            (Mamba1, "inner channels of {}'s Mamba-1 mixers", "d_inner"),
            (GatedMemoryUnit, "channels of {}'s gated memory units", "memory_width")):
        for n in sorted({getattr(run.mixer, width) for run in model.layers
                         if isinstance(run.mixer, kind)}):
            if n % tp:
                raise InputError(f"tp = {tp} does not divide the {n} "
                                 + what.format(model.name)
                                 + " (tensor parallelism gives each chip whole ones)")
    if pp > model.n_layers:
        raise InputError(f"pp = {pp} exceeds the {model.n_layers} layers of {model.name}")
    if ep > 1:
        if not model.is_moe:
            raise InputError(f"ep = {ep} needs a mixture of experts; {model.name} is dense")
        if ep > model.n_experts:
            raise InputError(f"ep = {ep} exceeds the {model.n_experts} experts of {model.name}")
        if (tp * pp) % ep:
            raise InputError(f"ep = {ep} must divide the replica's tp x pp = {tp * pp} chips "
                             "(the experts are split over the same chips)")
    return tp, ep, pp


def latency_argument(link_latency: Any) -> float | None:
    """A given latency of one collective step [s] (None: the catalog's, or the default)."""
    if link_latency is None:
        return None
    try:
        link_latency = float(link_latency)
    except (TypeError, ValueError):
        raise InputError(f"link_latency must be a number [s], got {link_latency!r:.40}") from None
    if not (math.isfinite(link_latency) and 0 <= link_latency <= 1):
        raise InputError(f"link_latency is in seconds and must lie in [0, 1], got "
                         f"{link_latency!r:.40}")
    return link_latency


#: The all-reduce algorithms inside a scale-up domain (None: where the chip's switches reduce, the
#: faster of the switch's reduction and direct all-reduces; else direct where every chip reaches
#: every other, else the ring).
ALLREDUCE_ALGORITHMS = ("ring", "switch", "direct")


def comm_options(*, overlap: Any, allreduce: Any, node_limit: Any,
                  dispatch_bits: Any) -> dict[str, Any]:
    """The communication options checked and named as the plan's inputs."""
    if not isinstance(overlap, (bool, np.bool_)):
        raise InputError(f"overlap must be True or False, got {overlap!r:.40}")
    if allreduce is not None and allreduce not in ALLREDUCE_ALGORITHMS:
        raise InputError(f"allreduce must be one of {', '.join(ALLREDUCE_ALGORITHMS)}, got "
                         f"{allreduce!r:.40}")
    if node_limit is not None:
        node_limit = count_argument("node_limit", node_limit)
    if dispatch_bits is not None:
        try:
            dispatch_bits = bits_per_weight(dispatch_bits)
        except InputError as err:
            raise InputError(f"dispatch_bits: {err}") from None
    return dict(overlap=bool(overlap),
                allreduce_asked=allreduce,
                node_limit=node_limit, dispatch_bits=dispatch_bits)


def check_direct(allreduce: Any, chip: Hardware | None) -> None:
    """Direct all-reduces need a domain where every chip reaches every other: an error on a
    chip whose catalog says its domain is a ring or a torus."""
    topology = chip.interconnect.scale_up_topology if chip is not None else ""
    if allreduce == "direct" and topology and topology not in FULLY_CONNECTED:
        raise InputError(f"allreduce='direct' needs chips that all reach one another (a switch "
                         f"or a full mesh); {chip.name}'s scale-up domain is a {topology}")


def chip_inputs(chip: Hardware | None) -> dict[str, Any]:
    """A chip's figures as the plan reads them (all None without a chip)."""
    if chip is None:
        return dict(chip_bandwidth=None, chip_capacity=None, chip_power=None, chip_peaks=None,
                    chip_interconnect=None, chip_vendor=None)
    ic = chip.interconnect
    return dict(chip_bandwidth=chip.bandwidth, chip_capacity=chip.capacity,
                chip_power=chip.power, chip_vendor=chip.vendor,
                chip_peaks={k: {"rate": p.rate} for k, p in chip.peaks.items()},
                chip_interconnect={"scale_up_domain": ic.scale_up_domain,
                                   "scale_up_bandwidth": ic.scale_up_bandwidth,
                                   "pcie_bandwidth": ic.pcie_bandwidth,
                                   "scale_out_bandwidth": ic.scale_out_bandwidth,
                                   "scale_up_in_switch_reduction":
                                       ic.scale_up_in_switch_reduction,
                                   "scale_up_topology": ic.scale_up_topology,
                                   "scale_up_latency": ic.scale_up_latency,
                                   "scale_out_latency": ic.scale_out_latency})


def peak_for(chip: Hardware, weights: Any, bits_weight: Any = None) -> float | None:
    """The dense peak the plan uses on ``chip`` for weights of a format: the rate of its
    ``compute_precision`` step (the first precision of the format's chain that the chip lists,
    or that precision's faster mode where the chip lists one: a GeForce card's fp16-acc16)
    [FLOP/s]."""
    precision = compute_precision(weights, bits_weight, chip.peaks, chip.vendor)
    return chip.peaks[precision].rate if precision in chip.peaks else None


def attention_peak_for(chip: Hardware, bits_kv: Any = 16) -> float | None:
    """The dense peak attention's products take on ``chip`` over a cache of ``bits_kv`` bits
    an element, as the plan takes it (its ``attention_precision``: the cache's precision,
    whatever the weights') [FLOP/s]; None where the chip lists none.

    >>> from llm_arithmetic import get_hardware
    >>> attention_peak_for(get_hardware("rtx-4090")) / 1e12, attention_peak_for(
    ...     get_hardware("h100-sxm"), 8) / 1e12
    (330.3, 1978.9)
    """
    precision = attention_precision(bits_per_weight(bits_kv), chip.peaks, chip.vendor)
    return chip.peaks[precision].rate if precision in chip.peaks else None
