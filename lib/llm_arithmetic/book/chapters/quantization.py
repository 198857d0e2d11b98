"""Chapter 7, quantization (``notebooks/07-quantization.ipynb``): weight bytes by format, the
bound against bits per weight, the cache's share of a step, the output head's precision, what
fits (a GGUF file's bytes come from ``catalog.formats.mix_tensors``)."""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ...catalog.formats import bits_per_weight
from ...core.units import GB, GiB
from ...estimate import estimate
from ...formulas import memory
from ..display import chip_name, model_name
from ..matplotlib_on_demand import pyplot as plt
from ..plots import decode_bytes_breakdown, time_per_token_vs_batch


def weight_rows(models: Mapping[str, Any], formats: Sequence[str]
                ) -> tuple[list[list[str]], dict[str, list[float]]]:
    """Per model: P [billions] and the weight bytes in each format [GB]; also {key: bytes}."""
    rows, sizes = [], {}
    for key, m in models.items():
        sizes[key] = [memory.weight_bytes(n_params=m.total_params, bits_weight=bits_per_weight(f))
                      for f in formats]
        rows.append([model_name(m), f"{m.total_params / 1e9:.2f}"]
                    + [f"{s / GB:.2f}" for s in sizes[key]])
    return rows, sizes


def speed_figure(models: Sequence[Any], formats: Sequence[str], chips: Sequence[Any],
                 context: int) -> Any:
    """The bound on tokens per second against bits per weight, one panel per chip (stacked),
    one line per model; open markers where weights and cache do not fit."""
    fig, axes = plt.subplots(len(chips), 1, figsize=(7.0, 8.0), sharex=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, h in zip(axes, chips):
        for m, color in zip(models, colors):
            pts = [estimate(m, hardware=h, weights=f, context=context) for f in formats]
            order = np.argsort([p.bits_weight for p in pts])
            ax.plot(np.array([float(p.bits_weight) for p in pts])[order],
                    np.array([p.decode_tokens_per_second for p in pts])[order], "-",
                    color=color, lw=1, label=model_name(m))
            for p in pts:
                ax.plot(float(p.bits_weight), p.decode_tokens_per_second, "o", color=color,
                        mfc=color if p.fits else "white")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_ylabel("bound on tokens/s [tokens/s]")
        ax.text(0.98, 0.95, f"{chip_name(h)}, {h.capacity / GiB:.0f} GiB",
                transform=ax.transAxes, ha="right", va="top")
    axes[-1].set_xticks([4, 4.5, 5, 8, 8.5, 16], ["4", "4.5", "5", "8", "8.5", "16"])
    axes[-1].minorticks_off()
    axes[-1].set_xlabel("bits per weight, scales included [bit]")
    axes[-1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3)
    return fig


def speedup(model: Any, chip: Any, weights: str, context: int) -> float:
    """How many times faster the bound is with ``weights`` than with fp16 weights."""
    fast = estimate(model, hardware=chip, weights=weights, context=context)
    slow = estimate(model, hardware=chip, weights="fp16", context=context)
    return fast.decode_tokens_per_second / slow.decode_tokens_per_second


def bytes_figure(models: Sequence[Any], context: int, formats: Sequence[str]) -> Any:
    """What a decode step reads at ``context``, weights and cache, one panel per weight format
    (stacked)."""
    fig, axes = plt.subplots(len(formats), 1, figsize=(7.0, 7.0), sharex=True)
    for ax, w in zip(axes, formats):
        decode_bytes_breakdown(models, context=context, weights=w, ax=ax)
        ax.text(0.02, 0.95, f"{w} weights", transform=ax.transAxes, ha="left", va="top")
        ax.get_legend().remove()
        ax.set_xlabel("")
        ax.set_title("")
    handles, labels = axes[0].get_legend_handles_labels()
    axes[-1].legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    return fig


def cache_shares(models: Iterable[Any], context: int, formats: Sequence[str]
                 ) -> dict[str, list[float]]:
    """{model key: the 16-bit cache's share of a decode step's bytes, per weight format}."""
    out = {}
    for m in models:
        out[m.name] = []
        for w in formats:
            e = estimate(m, weights=w, context=context)
            out[m.name].append(e.kv_cache_bytes / e.decode_bytes_per_token)
    return out


def head_rows(models: Iterable[Any], body: str, head_formats: Mapping[str, Any]
              ) -> tuple[list[list[str]], dict[str, tuple[float, dict[str, float]]]]:
    """Bits per weight read by a decode step with the body in ``body`` and the output head (the
    shared table when tied) in each of ``head_formats`` ({label: bits}); also {model key: (the
    head's share of the weights read, {label: bytes per token})}."""
    b = bits_per_weight(body)
    rows, out = [], {}
    for m in models:
        head = m.n_vocab * m.d_model
        rest = m.decode_read_params - head
        per_token = {k: float(rest * b / 8 + head * hb / 8) for k, hb in head_formats.items()}
        out[m.name] = (100 * head / m.decode_read_params, per_token)
        rows.append([model_name(m), f"{m.n_vocab:,}", "tied" if m.tied else "untied",
                     f"{100 * head / m.decode_read_params:.1f}"]
                    + [f"{8 * per_token[k] / m.decode_read_params:.2f}" for k in head_formats])
    return rows, out


def room(capacity: float, needed: float) -> str:
    """Memory left (+) or missing (-) [GiB], with digits enough to show a small margin."""
    r = (capacity - needed) / GiB
    digits = 1 if abs(r) >= 0.1 else 2 if abs(r) >= 0.01 else 3
    return f"{r:+.{digits}f}"


def fit_rows(models: Iterable[Any], formats: Sequence[str], chips: Sequence[Any], context: int
             ) -> list[list[str]]:
    """Per model and weight format: the memory one sequence of ``context`` tokens needs [GiB]
    and what is left on each chip."""
    rows = []
    for m in models:
        for w in formats:
            need = estimate(m, weights=w, context=context).memory_required_bytes
            cells = [room(h.capacity, estimate(m, hardware=h, weights=w,
                                                context=context).memory_required_bytes)
                     for h in chips]
            rows.append([model_name(m), w, f"{need / GiB:.1f}"] + cells)
    return rows


def critical_batch_figure(model: Any, chip: Any, formats: Sequence[str]
                          ) -> tuple[Any, dict[str, float]]:
    """Time per decode step against batch at context 1, one line per weight format, each with
    its critical batch dashed; also {format: critical batch} (infinity where a step never turns
    compute-bound)."""
    fig, ax = plt.subplots(figsize=(7.0, 4.4))
    crit = {}
    for w in formats:
        time_per_token_vs_batch(model, chip, batches=range(1, 513), contexts=(1,), weights=w,
                                ax=ax)
        solid = [ln for ln in ax.lines if ln.get_linestyle() == "-"][-1]
        solid.set_label(f"{w} weights")
        b = estimate(model, hardware=chip, weights=w, context=1).critical_batch_size
        crit[w] = float("inf") if b is None else b
        if b is not None and b != float("inf"):
            ax.axvline(b, color=solid.get_color(), ls="--", lw=1)
    ax.set_title("")
    ax.legend(loc="center right")
    return fig, crit


def block_bits(layouts: Mapping[str, tuple[int, int, int, int]], expr: Any,
               symbols: Sequence[Any]) -> tuple[list[list], dict[str, Any]]:
    """Bits per weight of block layouts ({format: (weights per block, bits per integer, bits of
    the scale, bits of the offset)}) from ``expr`` in the block ``symbols`` (n_blk, b_q, b_s,
    b_m), checked against the catalog's value where the format is one of its names; table
    rows and {format: bits (exact)}."""
    rows, out = [], {}
    for fmt, values in layouts.items():
        bits = expr.subs(dict(zip(symbols, values)))
        if " " not in fmt:
            assert Fraction(bits.p, bits.q) == bits_per_weight(fmt)  # the catalog's value
        out[fmt] = bits
        rows.append([fmt, *values, f"{bits} = {float(bits):g}"])
    return rows, out


def super_block_rows(super_blocks: Mapping[str, Mapping[str, int]], weights: int
                     ) -> list[list]:
    """The k-quants' super-blocks of ``weights`` weights, field by field [bytes], with the bits
    per weight they give, checked against the catalog's value."""
    rows = []
    for fmt, fields in super_blocks.items():
        size = sum(fields.values())
        bits = Fraction(8 * size, weights)
        assert bits == bits_per_weight(fmt)
        rows.append([fmt, " + ".join(f"{v} ({k})" for k, v in fields.items()), size,
                     f"{bits} = {float(bits):g}"])
    return rows


def kv_format_rows(model: Any, chip: Any, weights: str, kv_formats: Sequence[str],
                   context: int) -> tuple[list[list[str]], dict[str, Any]]:
    """One sequence of ``context`` tokens by the format of its cache: bits, cache [GB], weights
    and cache [GiB], whether it fits on ``chip``, the longest context that fits, the bound;
    also {format: estimate}."""
    rows, out = [], {}
    for kv in kv_formats:
        e = estimate(model, hardware=chip, weights=weights, bits_kv=kv, context=context)
        out[kv] = e
        rows.append([kv, f"{float(e.bits_kv):g}", f"{e.kv_cache_bytes / GB:.1f}",
                     f"{e.memory_required_bytes / GiB:.1f}", "yes" if e.fits else "no",
                     f"{e.max_context:,}", f"{e.decode_tokens_per_second:.2f}"])
    return rows, out
