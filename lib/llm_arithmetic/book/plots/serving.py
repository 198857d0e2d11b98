"""Figures of the part "Serving" (chapters 10-14 and 17): prefill, parallelism, the
latency-throughput frontier, speculative decoding, cost and energy, measured against the bound.

Each function computes through :func:`~llm_arithmetic.estimate.estimate`,
:func:`~llm_arithmetic.sweeps.frontier` and the registered formulas of ``formulas/serving.py``
and ``formulas/parallel.py``.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np

from ... import numeric as N
from ...catalog.formats import bits_per_weight
from ...catalog.hardware import Hardware
from ...catalog.model import Model
from ...core import symbols as sym
from ...core.units import GB
from ...estimate import decode_peak_for, estimate, prefill_peak_for
from ...sweeps import frontier
from ..chapters.prefill import critical_prompt
from ..matplotlib_on_demand import pyplot as plt
from .style import axes_or_new

__all__ = ["prefill_time_vs_prompt", "prefill_attention_share", "chunked_prefill_vs_chunk",
           "tp_step_vs_degree", "pipeline_bubble_vs_microbatches", "serving_frontier",
           "speculative_speedup_vs_draft", "speculative_speedup_vs_batch", "verify_step_ratio",
           "cost_vs_speed", "energy_vs_speed", "measured_vs_bound"]

#: Smallest font of the serving figures [pt] (legends and annotations included).
_SMALL = 9


def _short(chip: Hardware) -> str:
    """A chip's name without the variant in parentheses ("NVIDIA H100 SXM")."""
    return chip.label.split(" (")[0].split(",")[0].strip()


def _prefill_args(model: Model, weights: str, bits_kv: Any, prompt: Any) -> dict[str, Any]:
    """The weight bytes a prefill reads and the cache bytes per prompt token, as
    :func:`~llm_arithmetic.estimate.estimate` passes them to ``time_to_first_token``."""
    bits = bits_per_weight(weights)
    kv = bits_per_weight(bits_kv)
    return dict(weight_bytes=float(model.step_weight_bytes(bits, prompt)),
                kv_cache_bytes_per_token=float(model.kv_cache_bytes(prompt, 1, kv)) / prompt)


def prefill_time_vs_prompt(model: Model, chip: Hardware, weights: str = "fp16",
                           prompts: Iterable[int] | None = None, bits_kv: Any = 16,
                           n_chips: int = 1, ax: plt.Axes | None = None) -> plt.Axes:
    """Time to first token of a prompt alone on ``n_chips`` chips (solid,
    :data:`~llm_arithmetic.formulas.serving.time_to_first_token`) against the prompt length,
    with its memory time (dotted) and its compute time (dashed), each the same formula with the
    other rate made infinite (the FLOPs at the rate the estimate takes them:
    :func:`~llm_arithmetic.estimate.prefill_peak_for`, the weights' products at their format's
    rate, attention's at the cache's); the critical prompt
    (:func:`~llm_arithmetic.book.chapters.prefill.critical_prompt`: the same split) marked.

    >>> from llm_arithmetic import get_model, get_hardware
    >>> ax = prefill_time_vs_prompt(get_model("llama-2-7b"), get_hardware("a100-80gb-sxm"),
    ...                             prompts=[1, 10, 100, 1000])
    >>> len(ax.lines)
    4
    """
    ax = axes_or_new(ax)
    t_prompt = np.unique(np.geomspace(1, 32768, 160).astype(int)) if prompts is None \
        else np.asarray(list(prompts), dtype=int)
    bw = chip.bandwidth
    rates = prefill_peak_for(model, chip, weights, t_prompt, bits_kv)
    total, memory, compute = [], [], []
    for t, rate in zip(t_prompt, rates):
        args = dict(_prefill_args(model, weights, bits_kv, int(t)),
                    prefill_flops=float(model.prefill_flops(int(t))), prompt=int(t),
                    n_chips=n_chips)
        total.append(N.time_to_first_token(bandwidth=bw, peak_flops=rate, **args))
        memory.append(N.time_to_first_token(bandwidth=bw, peak_flops=math.inf, **args))
        compute.append(N.time_to_first_token(bandwidth=math.inf, peak_flops=rate, **args))
    (line,) = ax.plot(t_prompt, np.array(total) * 1e3, label="time to first token (bound)")
    ax.plot(t_prompt, np.array(memory) * 1e3, ls=":", color="0.35", lw=1.2,
            label="memory time: weights and cache")
    ax.plot(t_prompt, np.array(compute) * 1e3, ls="--", color="0.35", lw=1.2,
            label="compute time: prefill FLOPs")
    critical = critical_prompt(model, chip, weights, bits_kv)[0]
    ax.axvline(critical, color=line.get_color(), ls="-.", lw=1,
               label=f"critical prompt T* = {critical:,.0f} tokens")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("prompt length [tokens]")
    ax.set_ylabel("time [ms]")
    ax.legend(fontsize=_SMALL, loc="upper left")
    return ax


def prefill_attention_share(models: Sequence[Model], prompts: Iterable[int] | None = None,
                            ax: plt.Axes | None = None) -> plt.Axes:
    """Share of a prefill's FLOPs spent in attention (the quadratic term of
    :data:`~llm_arithmetic.formulas.flops.prefill_flops`) against the prompt length, one line
    per model: one minus the weight term (the same formula with no attention layer) over the
    whole.

    >>> from llm_arithmetic import get_model
    >>> ax = prefill_attention_share([get_model("llama-3-8b")], prompts=[1, 1000])
    >>> [round(float(y), 2) for y in ax.lines[0].get_ydata()]
    [0.0, 1.85]
    """
    ax = axes_or_new(ax)
    t = np.unique(np.geomspace(1, 131072, 200).astype(int)) if prompts is None \
        else np.asarray(list(prompts), dtype=int)
    for m in models:
        total = np.array([float(m.prefill_flops(int(x))) for x in t])
        weights_only = N.prefill_flops(matmul_params=m.matmul_params, head_params=m.head_params,
                                       n_layers=0, n_heads=0, d_head=0, prompt=t.astype(float))
        ax.plot(t, 100 * (1 - weights_only / total), label=m.label or m.name)
    ax.set_xscale("log")
    ax.set_xlabel("prompt length [tokens]")
    ax.set_ylabel("attention's share of prefill FLOPs [%]")
    ax.legend(fontsize=_SMALL, loc="upper left")
    return ax


def chunked_prefill_vs_chunk(model: Model, chip: Hardware, prompt: int, weights: str = "fp16",
                             chunks: Iterable[int] | None = None, bits_kv: Any = 16,
                             ax: plt.Axes | None = None) -> plt.Axes:
    """Bound on a chunked prefill of ``prompt`` tokens against the chunk size
    (:data:`~llm_arithmetic.formulas.serving.chunked_prefill_time`, solid), with its memory
    time (dotted: the chunks' weight and cache reads) and its compute time (dashed).

    >>> from llm_arithmetic import get_model, get_hardware
    >>> ax = chunked_prefill_vs_chunk(get_model("llama-3-8b"), get_hardware("h100-sxm"), 8192,
    ...                               chunks=[64, 2048])
    >>> len(ax.lines)
    3
    """
    ax = axes_or_new(ax)
    c = np.unique(np.geomspace(16, prompt, 120).astype(int)) if chunks is None \
        else np.asarray(list(chunks), dtype=int)
    bw, peak = chip.bandwidth, prefill_peak_for(model, chip, weights, prompt, bits_kv)
    args = dict(_prefill_args(model, weights, bits_kv, prompt),
                head_bytes=float(N.weight_bytes(n_params=model.head_params,
                                                bits_weight=bits_per_weight(weights))),
                prefill_flops=float(model.prefill_flops(prompt)), prompt=prompt)
    total = [N.chunked_prefill_time(prefill_chunk=int(x), bandwidth=bw, peak_flops=peak, **args)
             for x in c]
    memory = [N.chunked_prefill_time(prefill_chunk=int(x), bandwidth=bw, peak_flops=math.inf,
                                     **args) for x in c]
    compute = [N.chunked_prefill_time(prefill_chunk=int(x), bandwidth=math.inf, peak_flops=peak,
                                      **args) for x in c]
    ax.plot(c, np.array(total) * 1e3, label="chunked prefill (bound)")
    ax.plot(c, np.array(memory) * 1e3, ls=":", color="0.35", lw=1.2,
            label="memory time: weights read once per chunk")
    ax.plot(c, np.array(compute) * 1e3, ls="--", color="0.35", lw=1.2,
            label="compute time: the prompt's FLOPs")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("chunk size [tokens]")
    ax.set_ylabel("prefill time [ms]")
    ax.legend(fontsize=_SMALL, loc="upper right")
    return ax


def tp_step_vs_degree(model: Model, chip: Hardware, weights: str = "fp16",
                      batches: Sequence[int] = (1, 64), context: int = 4096,
                      degrees: Sequence[int] | None = None, link_latency: float | None = None,
                      ax: plt.Axes | None = None) -> plt.Axes:
    """Time per output token of a decode step split over N_tp chips, against N_tp, one colour
    per batch (``estimate(..., tp=N)``): with ring all-reduces at ``link_latency`` [s] per step
    (None: the estimate's own latency on each tier, 0: none) serialized after the work (solid: the sum of ``tp_step_time``), and without any
    communication (dotted). Beyond the chip's scale-up domain the all-reduces are two-tier:
    rings inside each domain and a ring of shards over the node network (the catalog's
    interconnect).

    >>> from llm_arithmetic import get_model, get_hardware
    >>> ax = tp_step_vs_degree(get_model("llama-3-70b"), get_hardware("h100-sxm"), "fp8",
    ...                        batches=[1], degrees=[1, 8])
    >>> len(ax.lines)
    2
    """
    ax = axes_or_new(ax)
    heads = model.n_heads
    n = [d for d in (1, 2, 4, 8, 16, 32, 64) if d <= heads and heads % d == 0] \
        if degrees is None else list(degrees)
    for b in batches:
        kw = dict(hardware=chip, weights=weights, context=context, batch=b)
        t = [estimate(model, tp=d, link_latency=link_latency, allreduce="ring",
                      overlap=False, **kw).tpot_seconds for d in n]
        alone = [estimate(model, tp=d, link_bandwidth=1e15, link_latency=0.0, **kw).tpot_seconds
                 for d in n]
        (line,) = ax.plot(n, np.array(t) * 1e3, "o-", ms=4, label=f"batch {b}")
        ax.plot(n, np.array(alone) * 1e3, ":", color=line.get_color(), lw=1.2,
                label="_nolegend_")
    domain = chip.interconnect.scale_up_domain
    if domain > 1 and max(n) > domain:
        ax.axvline(domain, color="0.5", lw=1, ls="--")
        ax.text(domain, 0.97, " node boundary", transform=ax.get_xaxis_transform(),
                va="top", fontsize=_SMALL, color="0.3")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(n)
    ax.set_xticklabels([str(d) for d in n])
    ax.set_xlabel(f"tensor-parallel degree ${sym.tp.name}$ [chips]")
    ax.set_ylabel("time per output token [ms]")
    ax.legend(fontsize=_SMALL, loc="lower left", title="dotted: no communication",
              title_fontsize=_SMALL)
    return ax


def pipeline_bubble_vs_microbatches(stages: Sequence[int] = (2, 4, 8),
                                    microbatches: Iterable[int] | None = None,
                                    ax: plt.Axes | None = None) -> plt.Axes:
    """The share of a pipeline's time its stages sit idle
    (:data:`~llm_arithmetic.formulas.parallel.pipeline_bubble`) against the microbatches in
    flight, one line per number of stages.

    >>> ax = pipeline_bubble_vs_microbatches(stages=[4], microbatches=[1, 12])
    >>> [round(float(y), 1) for y in ax.lines[0].get_ydata()]
    [75.0, 20.0]
    """
    ax = axes_or_new(ax)
    m = np.arange(1, 65) if microbatches is None else np.asarray(list(microbatches))
    for p in stages:
        ax.plot(m, 100 * N.pipeline_bubble(pp=p, microbatches=m.astype(float)),
                label=f"{p} stages")
    ax.set_xlabel("microbatches in flight [-]")
    ax.set_ylabel("idle share of the pipeline [%]")
    ax.legend(fontsize=_SMALL)
    return ax


def serving_frontier(model: Model | str, chips: Sequence[Hardware], label_batches: Sequence[int]
                     = (1, 16, 64, 256), ax: plt.Axes | None = None, **kwargs: Any) -> plt.Axes:
    """The latency-throughput frontier of ``model`` on each chip: tokens per second per chip
    against tokens per second per user, one point per batch size
    (:func:`~llm_arithmetic.sweeps.frontier` with ``kwargs``: weights, tp, prompt,
    generate, ...). A filled point fits in the chips' memory, a hollow one does not.

    >>> from llm_arithmetic import get_hardware
    >>> ax = serving_frontier("llama-3-8b", [get_hardware("h100-sxm")], weights="fp8",
    ...                       prompt=1024, generate=128, batches=[1, 8])
    >>> len(ax.lines)
    1
    """
    ax = axes_or_new(ax)
    for chip in chips:
        pts = frontier(model, hardware=chip, **kwargs)
        x = np.array([p["tokens_per_second_per_user"] for p in pts])
        y = np.array([p["tokens_per_second_per_chip"] for p in pts])
        fits = np.array([p["fits"] is not False for p in pts])
        (line,) = ax.plot(x[fits], y[fits], "o-", ms=5, label=_short(chip))
        if (~fits).any():
            ax.plot(x[~fits], y[~fits], "o", ms=5, mfc="white", color=line.get_color(),
                    label="_nolegend_")
            last = np.flatnonzero(fits)[-1] if fits.any() else None
            if last is not None:
                ax.plot([x[last], x[~fits][0]], [y[last], y[~fits][0]], ":",
                        color=line.get_color(), lw=1, label="_nolegend_")
        for p, xi, yi in zip(pts, x, y):
            if p["batch"] in label_batches:
                ax.annotate(f"B={p['batch']}", (xi, yi), textcoords="offset points",
                            xytext=(4, 5), fontsize=_SMALL, color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens per second per user [token/s]")
    ax.set_ylabel("tokens per second per chip [token/s]")
    ax.legend(fontsize=_SMALL, loc="lower left")
    return ax


def speculative_speedup_vs_draft(acceptances: Sequence[float] = (0.6, 0.8, 0.9),
                                 draft_cost: float = 0.05, max_draft: int = 12,
                                 ax: plt.Axes | None = None) -> plt.Axes:
    """Speed-up bound of speculative decoding
    (:data:`~llm_arithmetic.formulas.serving.speculative_speedup`) against the draft length
    k, one line per acceptance rate, with the best k marked.

    >>> ax = speculative_speedup_vs_draft(acceptances=[0.8], draft_cost=0.05, max_draft=4)
    >>> round(float(ax.lines[0].get_ydata()[-1]), 2)
    2.8
    """
    ax = axes_or_new(ax)
    k = np.arange(0, max_draft + 1)
    for a in acceptances:
        s = N.speculative_speedup(acceptance=a, draft_len=k.astype(float), draft_cost=draft_cost)
        (line,) = ax.plot(k, s, "o-", ms=3, label=f"acceptance {a:g}")
        best = int(np.argmax(s))
        ax.plot([k[best]], [s[best]], "s", ms=8, mfc="none", color=line.get_color(),
                label="_nolegend_")
    ax.axhline(1, color="0.5", lw=1)
    ax.set_xlabel("draft length γ [tokens]")
    ax.set_ylabel("speed-up over plain decoding [-]")
    ax.legend(fontsize=_SMALL, loc="upper left", title="squares: best γ",
              title_fontsize=_SMALL)
    return ax


def verify_step_ratio(model: Model, chip: Hardware, weights: str, context: int, batch: Any,
                      draft_len: int, bits_kv: Any = 16) -> Any:
    """Time of a target step that verifies k + 1 tokens of each of B sequences over a plain
    step of one token each: both rooflines (:data:`~llm_arithmetic.formulas.roofline.roofline_time`)
    read each sequence's cache once, the first does k + 1 times the FLOPs and reads the
    weights a step of B (k + 1) tokens reads (the same for a dense model; a mixture's tokens
    reach more experts), as the plan's ``verify_seconds`` does, the FLOPs of both at the
    estimate's decode rate (:func:`~llm_arithmetic.estimate.decode_peak_for`: the weights'
    products at their format's rate, attention's at the cache's; both steps have the same
    attention share). For a dense model 1 while the verification stays memory-bound; up to
    k + 1 once it is compute-bound.

    >>> from llm_arithmetic import get_model, get_hardware
    >>> r = verify_step_ratio(get_model("llama-3-8b"), get_hardware("h100-sxm"), "fp16", 128,
    ...                       [1, 1024], 4)
    >>> [round(float(x), 2) for x in r]
    [1.0, 5.0]
    """
    bits = bits_per_weight(weights)
    kv = bits_per_weight(bits_kv)
    b = np.asarray(batch, dtype=float)
    bw, peak = chip.bandwidth, decode_peak_for(model, chip, weights, context, bits_kv)
    seq = float(model.seq_bytes(context, kv, kv))
    step_bytes, verify_bytes = (
        N.batched_step_bytes(weight_bytes=np.asarray(model.step_weight_bytes(bits, tokens),
                                                     dtype=float), seq_bytes=seq, batch=b)
        for tokens in (b, b * (draft_len + 1)))
    flops = float(model.decode_flops_per_token(context))
    plain = N.roofline_time(step_bytes=step_bytes,
                            step_flops=N.batched_step_flops(seq_flops=flops, batch=b),
                            bandwidth=bw, peak_flops=peak)
    verify = N.roofline_time(step_bytes=verify_bytes, step_flops=N.batched_step_flops(
        seq_flops=flops, batch=b * (draft_len + 1)), bandwidth=bw, peak_flops=peak)
    return verify / plain


def speculative_speedup_vs_batch(model: Model, chip: Hardware, weights: str = "fp16",
                                 context: int = 2048, acceptance: float = 0.8,
                                 draft_lens: Sequence[int] = (2, 4, 8), draft_cost: float = 0.05,
                                 batches: Iterable[int] | None = None,
                                 ax: plt.Axes | None = None) -> plt.Axes:
    """Speed-up of speculative decoding at batch B when the verification is charged its own
    roofline (k + 1 tokens of each sequence in one target step) instead of one plain step:
    tokens per step (:data:`~llm_arithmetic.formulas.serving.speculative_tokens_per_step`) over
    the draft's k steps plus that verification, in plain steps. The batch-1 bound
    (:data:`~llm_arithmetic.formulas.serving.speculative_speedup`) dotted.

    >>> from llm_arithmetic import get_model, get_hardware
    >>> ax = speculative_speedup_vs_batch(get_model("llama-3-8b"), get_hardware("h100-sxm"),
    ...                                   context=128, draft_lens=[4], batches=[1, 1024])
    >>> [round(float(y), 2) for y in ax.lines[0].get_ydata()]
    [2.8, 0.65]
    """
    ax = axes_or_new(ax)
    b = np.unique(np.geomspace(1, 1024, 80).astype(int)) if batches is None \
        else np.asarray(list(batches), dtype=int)
    for k in draft_lens:
        n_acc = N.speculative_tokens_per_step(acceptance=acceptance, draft_len=k)
        draft = N.speculative_step_cost(draft_len=k, draft_cost=draft_cost) - 1
        ratio = verify_step_ratio(model, chip, weights, context, b, k)
        (line,) = ax.plot(b, n_acc / (draft + ratio), label=f"γ = {k}")
        ax.axhline(N.speculative_speedup(acceptance=acceptance, draft_len=k,
                                         draft_cost=draft_cost), color=line.get_color(),
                   ls=":", lw=1)
    ax.axhline(1, color="0.5", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("batch size B [sequences]")
    ax.set_ylabel("speed-up over plain decoding [-]")
    ax.legend(fontsize=_SMALL, loc="lower left", title="dotted: batch-1 bound",
              title_fontsize=_SMALL)
    return ax


def cost_vs_speed(model: Model | str, chips: Sequence[Hardware], prices: Sequence[float],
                  ax: plt.Axes | None = None, **kwargs: Any) -> plt.Axes:
    """Cost of a million output tokens against tokens per second per user, one line per chip
    at its price per chip-hour (``prices``, inputs the reader chooses), one point per batch
    size that fits (:func:`~llm_arithmetic.sweeps.frontier` with ``price_per_hour``).

    >>> from llm_arithmetic import get_hardware
    >>> ax = cost_vs_speed("llama-3-8b", [get_hardware("h100-sxm")], [2.0], weights="fp8",
    ...                    prompt=1024, generate=128, batches=[1, 8])
    >>> len(ax.lines)
    1
    """
    ax = axes_or_new(ax)
    for chip, price in zip(chips, prices):
        pts = [p for p in frontier(model, hardware=chip, price_per_hour=price, **kwargs)
               if p["fits"] is not False]
        ax.plot([p["tokens_per_second_per_user"] for p in pts],
                [p["cost_per_million_tokens"] for p in pts], "o-", ms=4,
                label=f"{_short(chip)} at ${price:g}/h")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens per second per user [token/s]")
    ax.set_ylabel("cost per million output tokens [USD]")
    ax.legend(fontsize=_SMALL, loc="upper left")
    return ax


def energy_vs_speed(model: Model | str, chips: Sequence[Hardware], ax: plt.Axes | None = None,
                    **kwargs: Any) -> plt.Axes:
    """Board energy per output token against tokens per second per user, one line per chip at
    its catalog board power, one point per batch size that fits
    (:func:`~llm_arithmetic.sweeps.frontier`); a chip whose power the catalog does not
    give is left out.

    >>> from llm_arithmetic import get_hardware
    >>> ax = energy_vs_speed("llama-3-8b", [get_hardware("h100-sxm")], weights="fp8",
    ...                      prompt=1024, generate=128, batches=[1, 8])
    >>> len(ax.lines)
    1
    """
    ax = axes_or_new(ax)
    for chip in chips:
        if chip.power is None:
            continue
        pts = [p for p in frontier(model, hardware=chip, **kwargs) if p["fits"] is not False]
        ax.plot([p["tokens_per_second_per_user"] for p in pts],
                [p["energy_joules_per_token"] for p in pts], "o-", ms=4,
                label=f"{_short(chip)}, {chip.power:g} W")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens per second per user [token/s]")
    ax.set_ylabel("board energy per output token [J]")
    ax.legend(fontsize=_SMALL, loc="upper left")
    return ax


#: How measured_vs_bound draws each metric of the serving dataset.
_METRIC_STYLE = {
    "output_tokens_per_s_total": ("o", "system output"),
    "tpot_ms_mean": ("s", "1 / mean TPOT"),
    "tokens_per_s_per_user": ("^", "per user"),
    "output_tokens_per_s_per_node": ("D", "decode, per node"),
    "input_tokens_per_s_per_node": ("v", "prefill, per node"),
}


def measured_vs_bound(comparisons: Sequence[Any], ax: plt.Axes | None = None) -> plt.Axes:
    """Published serving measurements against their roofline bounds
    (:func:`llm_arithmetic.lab.serving.comparisons`), as rates: a time per output token is
    drawn as its inverse, so every point lies on or below the diagonal (measured = bound);
    grey lines mark 10 % and 1 % of the bound. One marker per metric, one colour per side of
    the roofline that binds.

    >>> from llm_arithmetic.lab.serving import comparisons
    >>> ax = measured_vs_bound(comparisons()[:4])
    >>> len(ax.collections) >= 1
    True
    """
    ax = axes_or_new(ax)
    rows = [c for c in comparisons if c.bound is not None]
    colours = {"memory": "tab:blue", "compute": "tab:orange"}
    lo, hi = math.inf, 0.0
    for metric, (marker, label) in _METRIC_STYLE.items():
        for limit, colour in colours.items():
            sel = [c for c in rows if c.row.metric == metric and c.limit == limit]
            if not sel:
                continue
            if metric == "tpot_ms_mean":
                bound = np.array([1e3 / c.bound for c in sel])
                measured = np.array([1e3 / c.measured for c in sel])
            else:
                bound = np.array([c.bound for c in sel])
                measured = np.array([c.measured for c in sel])
            lo, hi = min(lo, measured.min(), bound.min()), max(hi, bound.max())
            ax.scatter(bound, measured, marker=marker, s=22, color=colour, alpha=0.75,
                       label=f"{label} ({limit})")
    if not rows:
        return ax
    line = np.array([lo / 2, hi * 2])
    ax.plot(line, line, color="k", lw=1)
    for share in (0.1, 0.01):
        ax.plot(line, share * line, color="0.6", lw=0.8, ls="--")
        ax.text(line[1], share * line[1], f" {share:.0%}", fontsize=_SMALL, color="0.4",
                va="center")
    # just past the diagonal's end (the label does not touch its line)
    ax.text(line[1] * 1.05, line[1], " bound", fontsize=_SMALL, va="center")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(lo / 3, hi * 3)
    ax.set_xlabel("roofline bound [token/s]")
    ax.set_ylabel("published measurement [token/s]")
    ax.legend(fontsize=_SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    return ax
