"""Helpers of the batching chapter.

* :func:`frontier` -- the throughput-latency frontier of a model on a chip: the aggregate rate
  against the per-stream rate for every batch from 1 to the largest that fits
  (:func:`frontier_figure`: in a figure of its own);
* :func:`critical_context_expr`, :func:`critical_context_of`, :func:`critical_batch_figure` --
  the context beyond which no batch is compute-bound, and the critical batch against context;
* :func:`largest_free_chunk` -- chunked prefill: the chunk that fits in a decode step's idle
  compute;
* :func:`experts_touched_simulation` -- a seeded simulation of uniform expert routing;
  :func:`moe_step_bytes_expr`, :func:`moe_step_bytes_fn`, :func:`moe_expert_bytes`,
  :func:`moe_bytes_figure`, :func:`moe_critical_batch` -- the bytes of a mixture's step as the
  batch touches more experts, and the batch at which it turns compute-bound;
* :func:`short_chip`, :func:`peak_of`, :func:`attn_of`, :func:`rates_of` -- a chip's name
  without its vendor, its dense peak for a weight format, attention's over a cache, both as the
  estimate takes them; :func:`critical_context_at` -- :math:`S_\\infty` at those rates (also
  chapter 6's).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import numpy as np

from ..catalog.formats import bits_per_weight
from ..formulas import memory, roofline

__all__ = ["frontier", "short_chip", "critical_context_expr", "critical_context_of",
           "moe_step_bytes_expr", "moe_expert_bytes", "moe_step_bytes_fn", "moe_bytes_figure",
           "moe_critical_batch", "request_times",
           "critical_batch_figure", "peak_of", "attn_of", "rates_of", "critical_context_at",
           "frontier_figure", "largest_free_chunk",
           "experts_touched_simulation"]


def frontier(model: Any, chip: Any, contexts: Iterable[int], ax: Any, reserve: int = 0,
             bits: int = 16) -> Any:
    """Aggregate against per-stream tokens/s for B = 1 .. B_max, one line per context (its
    B_max in the legend and marked by a dot), on log axes; fp16 arithmetic.

    >>> import matplotlib.pyplot as plt
    >>> from llm_arithmetic import get_hardware, get_model
    >>> _, ax = plt.subplots()
    >>> ax = frontier(get_model("llama-3-8b"), get_hardware("h100-sxm"), (4096,), ax)
    >>> len(ax.lines)  # the frontier and its end point
    2
    >>> plt.close("all")
    """
    w = float(memory.weight_bytes(n_params=model.decode_read_params, bits_weight=bits))
    kv = float(model.kv_cache_bytes_per_token(bits))
    for s in contexts:
        s_eff = float(model.attended_context(s))
        b_max = memory.max_batch(capacity=chip.capacity,
                                 weight_bytes=memory.weight_bytes(n_params=model.total_params,
                                                                  bits_weight=bits),
                            kv_cache_bytes_per_token=model.kv_cache_bytes_per_token(bits), context=s,
                            overhead=reserve)
        if b_max < 1:
            continue
        b = np.arange(1, b_max + 1, dtype=float)
        t = roofline.decode_step_time(
            weight_bytes=w, kv_cache_bytes_per_token=kv, matmul_params=model.matmul_params,
            n_layers=model.n_layers, n_heads=model.n_heads, d_head=model.d_head, context=s_eff,
            batch=b, bandwidth=chip.bandwidth, peak_flops=peak_of(chip, "fp16"))
        (line,) = ax.plot(1 / t, b / t, label=f"context {s:,} (B_max {b_max})")
        ax.plot([1 / t[-1]], [b[-1] / t[-1]], "o", color=line.get_color(), ms=5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("per-stream rate [tokens/s]")
    ax.set_ylabel("aggregate rate [tokens/s]")
    return ax


def short_chip(chip: Any) -> str:
    """A chip's name without its vendor, for a table's or a caption's tight space.

    >>> from llm_arithmetic import get_hardware
    >>> short_chip(get_hardware("h100-sxm")), short_chip(get_hardware("m2"))
    ('H100 SXM', 'M2')
    """
    from .display import chip_name
    name = chip_name(chip)
    for vendor in ("NVIDIA ", "AMD ", "Apple ", "Google ", "Intel ", "AWS "):
        name = name.removeprefix(vendor)
    return name


def critical_context_expr() -> Any:
    """:math:`S_\\infty`: the context at which the denominator of the critical batch vanishes,
    with the cache per token written out (a sympy expression in the glossary's symbols); it is
    the package's ``critical_context`` with :math:`\\kappa` substituted.

    >>> from llm_arithmetic.core import symbols as sym
    >>> sym.weight_bytes in critical_context_expr().free_symbols
    False
    """
    import sympy as sp

    from ..core import symbols as sym
    finite = roofline.critical_batch_size.expr.args[1].expr
    _, den = sp.fraction(finite)
    den_kv = den.subs(sym.kv_cache_bytes_per_token, memory.kv_cache_bytes_per_token.expr)
    return sp.solve(sp.Eq(den_kv, 0), sym.context)[0]


def critical_context_of(s_inf: Any, model: Any, chip: Any, peak: float | None,
                        bits_kv: int = 16, attn_peak: float | None = None) -> float:
    """:math:`S_\\infty` [tokens] of ``model`` on ``chip`` with the weights' products at the
    dense peak ``peak`` [FLOP/s] and a ``bits_kv``-bit cache, from the expression
    :func:`critical_context_expr`; attention's products at ``attn_peak`` [FLOP/s], by default
    the rate the estimate gives them over that cache (:func:`rates_of`). A chip without either
    rate: 0 (:func:`critical_context_at`)."""
    import sympy as sp

    from ..core import symbols as sym
    values = {sym.matmul_params: model.matmul_params, sym.n_layers: model.n_layers,
              sym.d_head: model.d_head, sym.n_heads: model.n_heads,
              sym.n_kv_heads: model.n_kv_heads, sym.bits_kv: bits_kv,
              sym.bandwidth: sp.Float(chip.bandwidth)}
    return critical_context_at(
        lambda r, a: s_inf.subs({**values, sym.peak_flops: sp.Float(r),
                                 sym.attn_peak_flops: sp.Float(a)}),
        chip, peak, bits_kv, attn_peak)


def critical_context_at(s_inf: Callable[[float, float], Any], chip: Any, peak: float | None,
                        bits_kv: Any = 16, attn_peak: float | None = None) -> float:
    """:math:`S_\\infty` [tokens] on ``chip``: ``s_inf(R_peak, R_attn)`` at the rates
    :func:`rates_of` gives for the weights' peak ``peak`` and a ``bits_kv``-bit cache
    (attention's at ``attn_peak`` where given). Where the chip lists neither rate, the
    estimate's step FLOPs take no time (its critical batch is None: no batch turns a decode
    step compute-bound), so every context is past :math:`S_\\infty`: 0, the limit of the
    closed form, which reads inf/inf there.

    >>> from llm_arithmetic import get_hardware
    >>> critical_context_at(lambda r, a: 1.0, get_hardware("vera-rubin"), peak_of(
    ...     get_hardware("vera-rubin"), "fp16"))   # fp4 alone: no 16-bit rate
    0.0
    """
    r, a = rates_of(chip, peak, bits_kv)
    if attn_peak is not None:
        a = float(attn_peak)
    if math.isinf(r) and math.isinf(a):
        return 0.0
    return float(s_inf(r, a))


def critical_batch_figure(models: Iterable[Any], chip: Any, s_inf: dict, weights: str = "fp16",
                          max_context: int = 4096) -> Any:
    """The critical batch against the context, one line per model on ``chip``, each ending at a
    dotted line at its :math:`S_\\infty` (``s_inf[model.name]``); log axes.

    >>> import matplotlib.pyplot as plt
    >>> from llm_arithmetic import get_hardware, get_model
    >>> m = get_model("llama-2-7b")
    >>> fig = critical_batch_figure([m], get_hardware("h100-sxm"), {m.name: 150.0})
    >>> len(fig.axes[0].lines)
    2
    >>> plt.close("all")
    """
    from .display import model_name
    from .matplotlib_on_demand import pyplot as plt
    from .cases import read_bytes
    fig, ax = plt.subplots()
    s_grid = np.unique(np.logspace(0, np.log10(max_context), 400).astype(int)).astype(float)
    for m in models:
        cb = roofline.critical_batch_size(
            weight_bytes=float(read_bytes(m, bits_per_weight(weights))),
            kv_cache_bytes_per_token=float(m.kv_cache_bytes_per_token()),
            matmul_params=m.matmul_params, n_layers=m.n_layers, n_heads=m.n_heads,
            d_head=m.d_head, context=s_grid, bandwidth=chip.bandwidth,
            peak_flops=peak_of(chip, weights), attn_peak_flops=attn_of(chip, weights=weights))
        cb = np.where(np.isfinite(cb) & (cb > 0), cb, np.nan)
        kind = "MHA" if m.n_kv_heads == m.n_heads else f"GQA {m.n_heads // m.n_kv_heads}x"
        (line,) = ax.plot(s_grid, cb, label=f"{model_name(m)} ({kind})")
        ax.axvline(s_inf[m.name], color=line.get_color(), ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("context S [tokens]")
    ax.set_ylabel("critical batch B* [sequences]")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    return fig


def peak_of(chip: Any, weights: Any) -> float:
    """The dense peak the estimate uses for weights of the format ``weights`` [FLOP/s]
    (:func:`~llm_arithmetic.layout.peak_for`), infinite where the chip lists none (the
    chapters' helpers and plots divide by it)."""
    from ..layout import peak_for
    rate = peak_for(chip, weights)
    return float("inf") if rate is None else rate


def rates_of(chip: Any, peak: float | None, bits_kv: Any = 16) -> tuple[float, float]:
    """(the weights' rate, attention's) [FLOP/s] on ``chip`` as the estimate's plan takes them:
    the weights' products at ``peak`` (None or infinite: the chip lists none); attention's at
    the chip's rate at the cache's precision (:func:`~llm_arithmetic.layout.
    attention_peak_for`), else at the weights' rate (the plan's ``attention_peak_flops``
    step); a rate listed neither way is infinite (the plan's ``decode_peak_or_inf``: those
    FLOPs take no time), as :func:`peak_of`.

    >>> from llm_arithmetic import get_hardware
    >>> arc = get_hardware("arc-pro-b70")   # an int8 rate alone: attention takes it too
    >>> [r / 1e12 for r in rates_of(arc, peak_of(arc, "int8"))], rates_of(arc, None)
    ([367.0, 367.0], (inf, inf))
    """
    from ..layout import attention_peak_for
    weights = float("inf") if peak is None else float(peak)
    rate = attention_peak_for(chip, bits_kv)
    return weights, (weights if rate is None else float(rate))


def attn_of(chip: Any, bits_kv: Any = 16, weights: Any = "fp16") -> float:
    """The dense peak the estimate gives attention's products over a ``bits_kv``-bit cache
    [FLOP/s] (:func:`~llm_arithmetic.layout.attention_peak_for`: the cache's precision,
    whatever the weights'), else the peak of weights of the format ``weights``, else infinite
    (:func:`rates_of`).

    >>> from llm_arithmetic import get_hardware
    >>> h100 = get_hardware("h100-sxm")
    >>> attn_of(h100) == peak_of(h100, "fp16"), attn_of(h100) == peak_of(h100, "q4_0")
    (True, False)
    """
    return rates_of(chip, peak_of(chip, weights), bits_kv)[1]


def frontier_figure(model: Any, chip: Any, contexts: Iterable[int], reserve: int,
                    full_rate: float, bits: Any = 16) -> Any:
    """:func:`frontier` in a figure of its own, with a dotted line at the full-memory per-stream
    rate ``full_rate`` [tokens/s], plain tick labels and the legend below."""
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    from .matplotlib_on_demand import pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.6))
    frontier(model, chip, contexts, ax, reserve=reserve, bits=bits)
    ax.axvline(full_rate, color="0.5", ls=":", lw=1)
    lo, hi = ax.get_xlim()
    ax.set_xticks([t for t in (1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000, 2000,
                               3000, 5000, 10000) if lo / 1.5 <= t <= hi])
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    return fig


def largest_free_chunk(model: Any, chip: Any, prompt: int, context: int, batch: int,
                       weights: str = "fp16") -> tuple[int, float]:
    """Chunked prefill: the largest chunk of a ``prompt``-token prefill whose compute time fits
    in the compute a memory-bound decode step of ``batch`` sequences at ``context`` leaves idle
    (plus the time the chunk's cache writes add), and the share of the step's memory time
    that its compute leaves idle [%]. The chunk is the last, most expensive one of the causal
    prefill. Both compute times are the estimate's
    (:data:`~llm_arithmetic.formulas.roofline.split_compute_time`): the weights' products at
    their format's rate, attention's at the 16-bit cache's, the step's
    (``decode_compute_seconds``) and the chunk's, whose attention share is its own.

    >>> from llm_arithmetic import get_hardware, get_model
    >>> chunk, idle = largest_free_chunk(get_model("llama-3-8b"), get_hardware("h100-sxm"),
    ...                                  2000, 4096, 64)
    >>> chunk > 0, 0 < idle < 100
    (True, True)
    """
    from ..estimate import estimate
    from ..formulas import flops
    e = estimate(model, hardware=chip, weights=weights, context=context, batch=batch)
    idle = e.decode_memory_seconds - e.decode_compute_seconds   # seconds of compute left over
    pf = dict(matmul_params=model.matmul_params, head_params=model.head_params,
              n_layers=model.n_layers, n_heads=model.n_heads, d_head=model.d_head)
    # attention's part alone: the same FLOPs with no weight (prefill_flops less its weight term)
    attn = dict(pf, matmul_params=0, head_params=0)
    full, full_attn = flops.prefill_flops(prompt=prompt, **pf), \
        flops.prefill_flops(prompt=prompt, **attn)
    chunk = 0
    for c in range(1, prompt + 1):
        # the last c tokens: the difference of two prefills holds their blocks and attention,
        # not the head (both prefills run it once); the last chunk runs it
        before = max(prompt - c, 0)
        chunk_flops = (full - flops.prefill_flops(prompt=before, **pf)
                       + 2 * model.head_params)
        chunk_attn = full_attn - flops.prefill_flops(prompt=before, **attn)
        t = roofline.split_compute_time(step_flops=chunk_flops, step_attn_flops=chunk_attn,
                                        peak_flops=e.peak_flops,
                                        attn_peak_flops=e.attention_peak_flops)
        if t <= idle + c * model.kv_cache_bytes_per_token() / chip.bandwidth:
            chunk = c
    return chunk, 100 * idle / e.decode_memory_seconds


def experts_touched_simulation(n_experts: int, n_active: int, batches: Iterable[int],
                               trials: int = 20000, seed: int = 1) -> dict[int, float]:
    """Mean number of distinct experts of one layer that ``b`` tokens touch, each choosing
    ``n_active`` distinct experts of ``n_experts`` uniformly at random (seeded), for each ``b``.

    >>> sim = experts_touched_simulation(8, 2, (1, 4), trials=2000)
    >>> float(sim[1]), bool(5 < sim[4] < 6)
    (2.0, True)
    """
    rng = np.random.default_rng(seed)
    out = {}
    for b in batches:
        choice = np.argsort(rng.random((trials, b, n_experts)), axis=2)[..., :n_active]
        hit = np.zeros((trials, b, n_experts), dtype=bool)
        np.put_along_axis(hit, choice, True, axis=2)
        out[b] = hit.any(axis=1).sum(axis=1).mean()
    return out


def moe_step_bytes_expr() -> Any:
    """The bytes of a decode step of a mixture of experts (sympy, glossary symbols): the weights
    one token reads (:math:`k` experts a layer), plus the further :math:`\\bar{E}_B - k` expert
    MLPs a batch brings into every layer, plus the caches.

    >>> from llm_arithmetic.core import symbols as sym
    >>> sym.experts_read in moe_step_bytes_expr().free_symbols
    True
    """
    from ..core import symbols as sym
    return (sym.weight_bytes + sym.n_layers * (sym.experts_read - sym.n_active_experts)
            * sym.mlp_params * sym.bits_weight / 8
            + sym.kv_cache_bytes_per_token * sym.context * sym.batch)


def moe_expert_bytes(model: Any, bits: Any = 16) -> tuple[float, float, float]:
    """A mixture's weight bytes at ``bits`` per weight [B]: those one token reads per step
    (``k`` experts a layer), those every token reads (all but the routed experts), and all of
    them."""
    from ..formulas import params
    from .cases import read_bytes
    expert = params.mlp_params(d_model=model.d_model, d_ff=model.d_ff,
                               n_mlp_mats=model.n_mlp_mats) * bits / 8
    active = float(read_bytes(model, bits))
    shared = active - model.n_layers * model.n_active_experts * expert
    return active, shared, float(shared + model.n_layers * model.n_experts * expert)


def moe_step_bytes_fn(model: Any, bits: Any = 16) -> Any:
    """:func:`moe_step_bytes_expr` for ``model`` at context 1, with the expected experts of
    uniform routing (``experts_read``), as a NumPy function of the batch [B].

    >>> from llm_arithmetic import estimate, get_model
    >>> f = moe_step_bytes_fn(get_model("mixtral-8x7b"))
    >>> e = estimate("mixtral-8x7b", context=1, batch=8)
    >>> abs(f(8.0) / e.decode_step_bytes - 1) < 1e-9
    True
    """
    import sympy as sp

    from ..core import symbols as sym
    from ..formulas import params
    touched = params.experts_read.expr.subs({sym.n_experts: model.n_experts,
                                             sym.n_active_experts: model.n_active_experts})
    return sp.lambdify(sym.batch, moe_step_bytes_expr().subs({
        sym.experts_read: touched, sym.n_active_experts: model.n_active_experts,
        sym.weight_bytes: moe_expert_bytes(model, bits)[0],
        sym.mlp_params: params.mlp_params(d_model=model.d_model, d_ff=model.d_ff,
                                          n_mlp_mats=model.n_mlp_mats),
        sym.n_layers: model.n_layers, sym.bits_weight: bits,
        sym.kv_cache_bytes_per_token: model.kv_cache_bytes_per_token(), sym.context: 1}),
        "numpy")


def moe_bytes_figure(model: Any, simulated: dict[int, float], bits: Any = 16) -> Any:
    """The bytes a decode step of ``model`` reads against the batch (log axis, to 256): the
    expectation of :func:`moe_step_bytes_fn`, the seeded simulation ``simulated`` (experts
    touched per layer by batch, :func:`experts_touched_simulation`), and the two limits, the
    active experts only (dashed) and all experts (dotted)."""
    from ..core.units import GB
    from .matplotlib_on_demand import pyplot as plt
    from ..formulas import params
    moe_bytes = moe_step_bytes_fn(model, bits)
    active, shared, every = moe_expert_bytes(model, bits)
    expert = params.mlp_params(d_model=model.d_model, d_ff=model.d_ff,
                               n_mlp_mats=model.n_mlp_mats) * bits / 8
    b = np.arange(1, 257)
    fig, ax = plt.subplots()
    ax.plot(b, moe_bytes(b.astype(float)) / GB, label="expected, uniform routing")
    mc_b = np.array(sorted(simulated))
    mc_bytes = [float(shared + model.n_layers * simulated[x] * expert
                      + x * model.kv_cache_bytes_per_token()) for x in mc_b]
    ax.plot(mc_b, np.array(mc_bytes) / GB, "o", ms=4, label="simulated routing")
    ax.axhline(active / GB, color="0.4", ls="--", lw=1, label="k active experts only")
    ax.axhline(every / GB, color="0.4", ls=":", lw=1,
               label=f"all experts (dense {model.total_params / 1e9:.0f}B read)")
    ax.set_xscale("log")
    ax.set_xlabel("batch size B [tokens per step]")
    ax.set_ylabel("bytes read per step [GB]")
    ax.legend(loc="center right")
    return fig


def moe_critical_batch(model: Any, chip: Any, bits: Any = 16, largest: int = 20000) -> int:
    """The smallest batch at which a decode step of ``model`` at context 1 on ``chip`` (fp16
    arithmetic) is compute-bound, its bytes from :func:`moe_step_bytes_fn`; ``largest`` when no
    batch up to it is.

    >>> from llm_arithmetic import estimate, get_hardware, get_model
    >>> b = moe_critical_batch(get_model("mixtral-8x7b"), get_hardware("h100-sxm"))
    >>> abs(b - estimate("mixtral-8x7b", hardware="h100-sxm", context=1).critical_batch_size) <= 1
    True
    """
    from ..formulas import flops
    b = np.arange(1, largest + 1, dtype=float)
    per_token = flops.decode_flops_per_token(matmul_params=model.matmul_params,
                                             n_layers=model.n_layers, n_heads=model.n_heads,
                                             d_head=model.d_head, context=1)
    bound = b * per_token / peak_of(chip, "fp16") >= moe_step_bytes_fn(model, bits)(b) / chip.bandwidth
    return int(b[np.argmax(bound)]) if bound.any() else largest


def request_times(model: Any, chip: Any, weights: str, prompt: int, generated: int,
                  batches: Iterable[int]) -> dict[int, tuple[float, float, float]]:
    """For each batch of requests prefilled together: the time to first token, the time per
    output token (a decode step at the mean context) and the whole request [s], of a
    ``prompt``-token prompt and ``generated`` tokens of ``model`` on ``chip``.

    >>> from llm_arithmetic import get_hardware, get_model
    >>> t = request_times(get_model("llama-3-8b"), get_hardware("h100-sxm"), "fp16", 2000, 500,
    ...                   (1, 64))
    >>> ttft, tpot, total = t[1]
    >>> abs(total - (ttft + 500 * tpot)) < 1e-9 * total, t[64][0] > t[1][0]
    (True, True)
    """
    from .cases import read_bytes
    args = dict(weight_bytes=read_bytes(model, bits_per_weight(weights)),
                kv_cache_bytes_per_token=model.kv_cache_bytes_per_token(),
                matmul_params=model.matmul_params, n_layers=model.n_layers,
                n_heads=model.n_heads, d_head=model.d_head, bandwidth=chip.bandwidth,
                peak_flops=peak_of(chip, weights),
                attn_peak_flops=attn_of(chip, weights=weights))
    head = dict(head_params=model.head_params)  # the prefill runs it once a prompt
    return {b: (roofline.prefill_time(prompt=prompt, batch=b, **args, **head),
                roofline.decode_step_time(context=prompt + (generated + 1) / 2, batch=b, **args),
                roofline.generation_time(prompt=prompt, generated=generated, batch=b, **args,
                                         **head))
            for b in batches}
