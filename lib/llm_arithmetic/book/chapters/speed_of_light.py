"""Chapter 6, the roofline and the speed of light (``notebooks/06-roofline.ipynb``): critical
batch sizes and contexts across chips, step time against batch, prefill against decode, and the
steps of a model on the roofline."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from ...core.units import GB, GB_S, TFLOP_S
from ...estimate import estimate
from ...formulas import flops, roofline
from ..batching import critical_context_at
from ..display import chip_name, model_name
from ..matplotlib_on_demand import pyplot as plt
from ..plots import roofline as roofline_plot, time_per_token_vs_batch
from ..prelude import chip_args, fmt_batch, formula_args, model_args


def headline_args(chip: Any) -> dict[str, float]:
    """A chip's bandwidth and the dense 16-bit peak the estimate uses for it (fp16, with fp16
    accumulation where a GeForce card lists that rate), as the step formulas take them: the
    same rate in every table of the chapter."""
    return chip_args(chip)


def short_chip_name(chip: Any) -> str:
    """A chip's name without its vendor where the column is narrow ("H100 SXM")."""
    return chip_name(chip).removeprefix("NVIDIA ")


def critical_batch_rows(m_args: Mapping[str, Any], chips: Iterable[Any],
                        contexts: Sequence[int]) -> list[list[str]]:
    """The critical batch size of a model (its :func:`model_args`) per chip and context."""
    return [[chip_name(h)] + [fmt_batch(roofline.critical_batch_size(context=s, **m_args,
                                                                     **headline_args(h)))
                              for s in contexts] for h in chips]


def critical_context(m_args: Mapping[str, Any], chip: Any, bits_kv: Any = 16) -> float:
    """The critical context S∞ [tokens] of a model (its :func:`model_args`, with a
    ``bits_kv``-bit cache) on ``chip``: the weights' products at the 16-bit rate of
    :func:`headline_args`, attention's at the rate the estimate gives it over that cache
    (:func:`~llm_arithmetic.book.batching.rates_of`: the cache's precision, else the weights'
    rate); 0 on a chip that lists neither (:func:`~llm_arithmetic.book.batching.
    critical_context_at`)."""
    c_args = headline_args(chip)
    return critical_context_at(
        lambda r, a: roofline.critical_context(**formula_args(
            roofline.critical_context, m_args, c_args, peak_flops=r, attn_peak_flops=a)),
        chip, c_args["peak_flops"], bits_kv)


def critical_context_rows(models: Iterable[Any], chips: Sequence[Any], chip_8bit: Any
                          ) -> tuple[list[list], dict[tuple[str, str], float]]:
    """Per model: H / H_kv and S∞ on each of ``chips`` (16-bit weights and cache), and on
    ``chip_8bit`` with an 8-bit cache (attention at that cache's rate); also
    {(model key, chip key): S∞} of ``chips``."""
    rows, out = [], {}
    for m in models:
        vals = [critical_context(model_args(m), h) for h in chips]
        out.update({(m.name, h.name): v for h, v in zip(chips, vals)})
        vals.append(critical_context(model_args(m, bits_kv=8), chip_8bit, bits_kv=8))
        rows.append([model_name(m), m.n_heads // m.n_kv_heads] + [f"{v:,.0f}" for v in vals])
    return rows, out


def batch_figure(models: Sequence[Any], chip: Any, context: int) -> tuple[Any, dict[str, int]]:
    """Decode step time against batch for each model on ``chip`` at contexts 1, 512 and
    ``context`` (one panel each, stacked), with the most sequences of ``context`` tokens that
    fit; also {model key: that batch}."""
    fig, axes = plt.subplots(len(models), 1, figsize=(7.0, 8.2), sharex=True)
    fit = {}
    for ax, m in zip(axes, models):
        time_per_token_vs_batch(m, chip, batches=range(1, 513), contexts=(1, 512, context),
                                ax=ax)
        fit[m.name] = estimate(m, hardware=chip, context=context).max_batch
        ax.axvline(fit[m.name], color="0.3", ls="--", lw=1,
                   label=f"most sequences of {context:,} tokens that fit")
        ax.set_title(f"{model_name(m)}, fp16, {chip_name(chip)}")
        ax.get_legend().remove()
    for ax in axes[:-1]:
        ax.set_xlabel("")
    handles, labels = axes[0].get_legend_handles_labels()
    handles.append(plt.Line2D([], [], ls=":", color="0.3", lw=1))
    labels.append("memory time alone (dotted)")
    fig.subplots_adjust(bottom=0.17, hspace=0.25)
    fig.legend(handles, labels, loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.0))
    return fig, fit


def prefill_decode_rows(model: Any, weights: str, m_args: Mapping[str, Any],
                        chips: Iterable[Any], prompt: int) -> list[list[str]]:
    """Per chip: fp16 peak, bandwidth, the bound on a prefill of ``prompt`` tokens [ms] and on
    one decode step at that context [ms/token]."""
    rows = []
    for h in chips:
        c_args = headline_args(h)
        p = roofline.prefill_time(prompt=prompt, head_params=model.head_params, **m_args,
                                  **c_args)
        d = estimate(model, hardware=h, weights=weights, context=prompt)
        rows.append([chip_name(h), f"{c_args['peak_flops'] / TFLOP_S:.0f}",
                     f"{h.bandwidth / GB_S:,.0f}", f"{p * 1e3:.1f}",
                     f"{d.decode_seconds_per_token * 1e3:.2f}"])
    return rows


def step_points(m_args: Mapping[str, Any], context: int, batches: Iterable[int],
                prompt: int, head_params: int) -> dict[str, tuple[float, float]]:
    """{step: (FLOPs, bytes)} of decode steps of each batch at ``context`` and of a prefill of
    ``prompt`` tokens (its output head, ``head_params`` weights, run once)."""
    out = {}
    for b in batches:
        fl = roofline.decode_step_flops(context=context, batch=b,
                                        **formula_args(roofline.decode_step_flops, m_args))
        by = roofline.decode_step_bytes(context=context, batch=b,
                                        **formula_args(roofline.decode_step_bytes, m_args))
        out[f"decode, B = {b}"] = (fl, by)
    fl = flops.prefill_flops(prompt=prompt, head_params=head_params,
                             **formula_args(flops.prefill_flops, m_args))
    out["prefill"] = (fl, m_args["weight_bytes"] + m_args["kv_cache_bytes_per_token"] * prompt)
    return out


def steps_figure(steps: Mapping[str, tuple[float, float]], chip: Any, other: Any,
                 context: int, prompt: int) -> tuple[Any, list[list[str]]]:
    """Rooflines of ``chip`` and ``other`` with the intensities of ``steps`` and, on
    ``chip``'s roof, the rate each attains at the bound; also the table rows (intensity,
    attained rate, share of peak, time)."""
    fig, ax = plt.subplots(figsize=(7.0, 5.6))
    roofline_plot([chip, other], {name: fl / by for name, (fl, by) in steps.items()},
                  intensity_range=(0.1, 5000.0), legend="below", ax=ax)
    rows = []
    for name, (fl, by) in steps.items():
        c_args = headline_args(chip)
        t = roofline.roofline_time(step_bytes=float(by), step_flops=float(fl), **c_args)
        ax.plot(fl / by, fl / t, "o", color="tab:red", ms=6)
        label = f"{name}, S = {context:,}" if name != "prefill" else f"prefill, T = {prompt:,}"
        rows.append([label, f"{fl / by:,.1f}", f"{fl / t / TFLOP_S:,.1f}",
                     f"{fl / t / c_args['peak_flops']:.1%}", f"{t * 1e3:.2f}"])
    return fig, rows


def efficiency_rows(model: Any, chip: Any, measured_ms: Mapping[tuple[str, str], float],
                    stated: Mapping[tuple[str, str], str]
                    ) -> tuple[list[list[str]], dict[tuple, float], dict[tuple, float]]:
    """Measured times per token ({(engine, weight format): ms}, one stream) against the bound
    on ``chip``: table rows (engine, format, bits per weight, bytes read, bound, measured,
    efficiency, the share the source states), {(engine, format): bound [ms]} and
    {(engine, format): efficiency}."""
    rows, bound_ms, eff = [], {}, {}
    for (engine, fmt), measured in measured_ms.items():
        e = estimate(model, hardware=chip, weights=fmt, context=1)
        bound_ms[engine, fmt] = e.decode_seconds_per_token * 1e3
        eff[engine, fmt] = roofline.efficiency(measured_tps=1e3 / measured,
                                               tokens_per_second=e.decode_tokens_per_second)
        rows.append([engine, fmt, f"{float(e.bits_weight):g}",
                     f"{e.decode_bytes_per_token / GB:.2f}", f"{bound_ms[engine, fmt]:.2f}",
                     f"{measured}", f"{eff[engine, fmt]:.1%}", stated[engine, fmt]])
    return rows, bound_ms, eff
