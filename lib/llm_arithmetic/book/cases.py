"""Helpers of the case-studies chapter: a deployment on n identical chips with a memory reserve.

* :data:`RESERVE_SHARE` -- the share of a device's memory kept back for activations, the runtime
  and the operating system (an assumption of the chapter);
* :func:`reserve_share` -- that share for one chip (on Apple silicon, what macOS withholds from
  the GPU: :func:`~llm_arithmetic.catalog.macos.macos_gpu_share`);
* :func:`on` -- :func:`~llm_arithmetic.estimate` on n chips working as one (:func:`as_one`), with
  the reserve;
* :func:`read_bytes` -- the weight bytes one decode step of one sequence reads;
* :func:`tps` -- a rate in tokens per second with the digits a table needs;
* :func:`laptop_case` -- one chip of the laptop case study: its estimate, prefill and table row;
* :func:`full_batch` -- a deployment at its largest batch, and its table row;
* :func:`grouped_variants` -- a multi-head model and its grouped-query variants;
* :func:`experts_at_full_batch` -- the experts a mixture's full batch touches, and its rate;
* :func:`cache_share`, :func:`bytes_breakdown_figure` -- the weight and cache bytes of a step.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..catalog.macos import macos_gpu_share
from ..catalog.model import Model
from ..estimate import estimate
from ..formulas import memory

__all__ = ["RESERVE_SHARE", "reserve_share", "on", "as_one", "read_bytes",
           "tps", "laptop_case", "full_batch", "grouped_variants", "experts_at_full_batch",
           "bytes_breakdown_figure", "cache_share"]

#: Memory kept back on every device but Apple silicon: an assumption of the chapter.
RESERVE_SHARE = 0.10


def reserve_share(chip: Any, share: float = RESERVE_SHARE) -> float:
    """Share of a chip's memory kept back: on Apple silicon what macOS withholds from the GPU,
    1 - :func:`~llm_arithmetic.catalog.macos.macos_gpu_share` (macOS's default
    ``recommendedMaxWorkingSetSize``), else ``share``.

    >>> from llm_arithmetic import get_hardware
    >>> [round(reserve_share(get_hardware(n)), 3) for n in ("m1", "m2-pro", "m2-max", "h100-sxm")]
    [0.333, 0.333, 0.25, 0.1]
    """
    if chip.kind == "apple-silicon":
        return float(1 - macos_gpu_share(chip.capacity))
    return share


def on(model: Any, chip: Any, n: int = 1, share: float = RESERVE_SHARE, **kw: Any) -> Any:
    """:func:`~llm_arithmetic.estimate` on ``n`` identical chips working as one (ideal tensor
    parallelism: n times the bandwidth, every peak and the memory, no communication), with the
    reserve :func:`reserve_share` kept back; ``kw`` goes to ``estimate`` (weights, context,
    batch...). The n chips are one chip of the catalog's kind (:func:`as_one`), so the estimate
    chooses its rates as for the chip itself: the weights' products at their format's rate,
    attention's at the cache's.

    >>> from llm_arithmetic import get_hardware, get_model
    >>> e = on(get_model("llama-2-70b"), get_hardware("h100-sxm"), 2, context=4096)
    >>> e.fits, e.bandwidth == 2 * get_hardware("h100-sxm").bandwidth
    (True, True)
    """
    return estimate(model, hardware=as_one(chip, n),
                    overhead=int(n * chip.capacity * reserve_share(chip, share)), **kw)


def as_one(chip: Any, n: int) -> Any:
    """``n`` identical chips as one device: n times the bandwidth, the memory and every peak
    (the chip itself for n = 1), named ``"<n>x-<name>"``.

    >>> from llm_arithmetic import get_hardware
    >>> two = as_one(get_hardware("h100-sxm"), 2)
    >>> two.name, two.peak("fp8") / get_hardware("h100-sxm").peak("fp8")
    ('2x-h100-sxm', 2.0)
    """
    if n == 1:
        return chip
    return replace(chip, name=f"{n}x-{chip.name}", label=f"{n} × {chip.label}",
                   bandwidth=n * chip.bandwidth, capacity=n * chip.capacity,
                   peaks={k: replace(p, rate=n * p.rate) for k, p in chip.peaks.items()})


def read_bytes(model: Model, bits: Any = 16) -> Any:
    """Weight bytes one decode step of one sequence reads [B]."""
    return memory.weight_bytes(n_params=model.decode_read_params, bits_weight=bits)


def tps(x: float) -> str:
    """Tokens/s with sensible digits.

    >>> tps(12.345), tps(1234.5)
    ('12.3', '1,234')
    """
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def laptop_case(model: Model, chip: Any, weights: str, context: int, prompt: int,
                family: dict[str, Model]) -> tuple[Any, float, list[Any]]:
    """One chip of the laptop case: the estimate of one stream of ``model`` (weights in
    ``weights``, ``context`` tokens, the reserve kept back), the prefill bound of a
    ``prompt``-token prompt [s], and the row of the chapter's table (chip, bandwidth [GB/s],
    peak [TFLOP/s], decode [tokens/s], critical batch, prefill [s], context that fits, the
    largest model of ``family`` that fits with its full trained context).

    >>> from llm_arithmetic import get_hardware, get_model
    >>> e, ttft, row = laptop_case(get_model("llama-7b"), get_hardware("m2"), "q4_0", 512, 1000,
    ...                            {"llama-7b": get_model("llama-7b")})
    >>> e.bound, row[0], row[-1]
    ('memory', 'Apple M2', 'LLaMA 7B')
    """
    from .display import chip_name, model_name
    e = on(model, chip, weights=weights, context=context)
    # the prefill's bound as the estimate times it (the weights' FLOPs at their rate,
    # attention's at the cache's), the decode fields kept from the estimate without a prompt
    ttft = on(model, chip, weights=weights, context=context, prompt=prompt).ttft_seconds
    largest = [m for m in family.values()
               if on(m, chip, weights=weights, context=m.trained_context).fits]
    row = [chip_name(chip), f"{chip.bandwidth / 1e9:.1f}", f"{e.peak_flops / 1e12:.3f}",
           tps(e.decode_tokens_per_second),
           "∞" if e.critical_batch_size is None else f"{e.critical_batch_size:.1f}",
           f"{ttft:.2f}", f"{e.max_context:,}", model_name(largest[-1]) if largest else "none"]
    return e, ttft, row


def full_batch(model: Model, chip: Any, n: int, weights: str, context: int) -> tuple[Any, list]:
    """A deployment of ``model`` on ``n`` chips at its largest batch of ``context``-token
    sequences (the reserve kept back): the estimate at that batch (None when not one sequence
    fits) and the row of the chapter's table (model, chips, weights, batch, step [ms], per
    stream and aggregate [tokens/s], and the ceiling an unlimited memory would allow).

    >>> from llm_arithmetic import get_hardware, get_model
    >>> e, row = full_batch(get_model("llama-2-7b"), get_hardware("h100-sxm"), 1, "fp16", 4096)
    >>> e.batch > 1, e.critical_batch_size is None, row[:3]
    (True, True, ['Llama 2 7B', '1 × H100 SXM', 'fp16'])
    """
    from .display import chip_name, model_name
    e = on(model, chip, n, weights=weights, context=context)
    row = [model_name(model), f"{n} × {chip_name(chip).removeprefix('NVIDIA ')}", weights]
    if not e.max_batch:
        return None, row + ["does not fit"] + [""] * 4
    ef = on(model, chip, n, weights=weights, context=context, batch=e.max_batch)
    ceiling = ef.bandwidth / (model.kv_cache_bytes_per_token() * context)
    return ef, row + [ef.batch, f"{ef.decode_seconds_per_token * 1e3:.1f}",
                      tps(ef.decode_tokens_per_second), f"{ef.throughput_tokens_per_second:,.0f}",
                      f"{ceiling:,.0f}"]


def grouped_variants(model: Model, name: str, groups: tuple[int, ...] = (4, 8)
                     ) -> dict[str, Model]:
    """``model`` (multi-head attention), called ``name``, and variants with its query heads
    grouped over fewer key/value heads, ``H / g`` of them for each group size ``g``, by label.

    >>> from llm_arithmetic import get_model
    >>> v = grouped_variants(get_model("command-r"), "Command-R")
    >>> list(v), v["GQA 8x (8 KV heads)"].n_kv_heads
    (['Command-R (MHA)', 'GQA 4x (16 KV heads)', 'GQA 8x (8 KV heads)'], 8)
    """
    out = {f"{name} (MHA)": model}
    for g in groups:
        kv = model.n_heads // g
        out[f"GQA {g}x ({kv} KV heads)"] = model.with_(
            name=f"{model.name}-gqa{g}", n_kv_heads=kv, label=f"{name}, {kv} KV heads")
    return out


def experts_at_full_batch(model: Model, chip: Any, n: int, weights: str, context: int
                          ) -> tuple[int, float, float, float]:
    """A mixture of experts on ``n`` chips at its largest batch of ``context``-token sequences:
    the batch, the experts per layer its step is expected to touch (uniform routing), the
    aggregate bound [tokens/s], and the rate counting only the ``k`` active experts would
    claim [tokens/s].

    >>> from llm_arithmetic import get_hardware, get_model
    >>> b, touched, rate, claimed = experts_at_full_batch(get_model("mixtral-8x7b"),
    ...                                                   get_hardware("h100-sxm"), 1, "q4_0", 4096)
    >>> 2 < touched <= 8, claimed > rate
    (True, True)
    """
    from ..formulas import params
    e = on(model, chip, n, weights=weights, context=context)
    expert = params.mlp_params(d_model=model.d_model, d_ff=model.d_ff,
                               n_mlp_mats=model.n_mlp_mats)
    k, bits, b = model.n_active_experts, e.bits_weight, e.max_batch
    shared = float(read_bytes(model, bits)) - model.n_layers * k * expert * bits / 8
    touched = float(params.experts_read(n_experts=model.n_experts, n_active_experts=k, batch=b))
    kv_step = b * float(model.kv_cache_bytes_per_token()) * context
    full = on(model, chip, n, weights=weights, context=context, batch=b)
    # the step's FLOPs count the k experts each token uses whatever the batch touches; their
    # time is the estimate's (the weights' products at their rate, attention's at the cache's)
    rate = {}
    for label, experts in (("touched", touched), ("k", k)):
        step = shared + model.n_layers * experts * expert * bits / 8 + kv_step
        rate[label] = b / max(step / e.bandwidth, full.decode_compute_seconds)
    assert abs(full.throughput_tokens_per_second / rate["touched"] - 1) < 1e-9
    return b, touched, full.throughput_tokens_per_second, rate["k"]


def bytes_breakdown_figure(models: list[Model], figsize: tuple[float, float] | None = None,
                           **kw: Any) -> Any:
    """The chapter's bars of the bytes one decode step reads, by part, for each of ``models``
    (:func:`~llm_arithmetic.book.plots.decode_bytes_breakdown` with ``kw``: context, weights,
    bits_kv), without a title (the caption says it) and with the legend below the bars."""
    from . import plots
    from .matplotlib_on_demand import pyplot as plt
    ax = None
    if figsize is not None:
        _, ax = plt.subplots(figsize=figsize)
    ax = plots.decode_bytes_breakdown(models, ax=ax, **kw)
    ax.set_title("")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    return ax.figure


def cache_share(model: Model, chip: Any, context: int, **kw: Any) -> tuple[Any, float, float]:
    """One sequence of ``model`` at ``context`` tokens on ``chip`` (the reserve kept back;
    ``kw``: weights, bits_kv): the estimate, and the weight and cache bytes a decode step
    reads [B].

    >>> from llm_arithmetic import get_hardware, get_model
    >>> e, w, kv = cache_share(get_model("command-r"), get_hardware("h100-sxm"), 8192,
    ...                        weights="q4_0", bits_kv=8)
    >>> w + kv == e.decode_bytes_per_token, 0 < kv < w
    (True, True)
    """
    e = on(model, chip, context=context, **kw)
    kv = float(e.kv_cache_bytes)
    return e, float(e.decode_bytes_per_token) - kv, kv
