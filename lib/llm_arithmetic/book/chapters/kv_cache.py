"""Chapter 4, the KV cache (``notebooks/04-kv-cache.ipynb``): what the cache saves, its size per
token and per sequence across a catalog, where it outweighs the weights, and what fits."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import sympy as sp

from ...catalog.formats import bits_per_weight
from ...core import symbols as sym
from ...core.units import GiB
from ...formulas import flops, memory
from ..display import chip_name, model_name
from ..matplotlib_on_demand import pyplot as plt


def recompute_rows(model: Any, contexts: Iterable[int]) -> tuple[list[list[str]], dict[int, float]]:
    """For each context S: the FLOPs of a decode step with the cache [GFLOP], of a prefill of S
    tokens (recomputing the prefix) [TFLOP], and their ratio; also {S: ratio}."""
    shape = dict(matmul_params=model.matmul_params, n_layers=model.n_layers,
                 n_heads=model.n_heads, d_head=model.d_head)
    rows, ratios = [], {}
    for s in contexts:
        with_cache = flops.decode_flops_per_token(context=s, **shape)
        without = flops.prefill_flops(prompt=s, head_params=model.head_params, **shape)
        ratios[s] = without / with_cache
        rows.append([f"{s:,}", f"{with_cache / 1e9:,.1f}", f"{without / 1e12:,.1f}",
                     f"{ratios[s]:,.0f}"])
    return rows, ratios


def attention_kind(m: Any) -> str:
    """MHA, MQA or GQA, from the numbers of query and key-value heads."""
    return "MHA" if m.n_kv_heads == m.n_heads else "MQA" if m.n_kv_heads == 1 else "GQA"


def layout_rows(models: Iterable[Any]) -> list[list]:
    """Attention layout and 16-bit cache per token, as released and with MHA, per model."""
    return [[model_name(m), attention_kind(m), m.n_heads, m.n_kv_heads, m.n_heads // m.n_kv_heads,
             m.d_head, f"{m.kv_cache_bytes_per_token():,}",
             f"{m.with_(n_kv_heads=m.n_heads).kv_cache_bytes_per_token():,}"] for m in models]


def long_context_rows(models: Iterable[Any], context: int) -> list[list[str]]:
    """One sequence's 16-bit cache at ``context`` (every layer keeping every token) against the
    16-bit weights [GiB]."""
    rows = []
    for m in models:
        kv = m.kv_cache_bytes_full_storage(context)
        w = memory.weight_bytes(n_params=m.total_params, bits_weight=16)
        rows.append([model_name(m), f"{m.trained_context:,}", f"{kv / GiB:,.1f}",
                     f"{w / GiB:,.1f}", f"{kv / w:.2f}"])
    return rows


def catalog_rows(models: Iterable[Any], short: int = 4096, long: int = 32768) -> list[list[str]]:
    """Cache per token, one sequence at ``short`` and ``long`` tokens every layer keeping every
    token, the sliding window, and the cache at ``long`` with the window [GiB]."""
    rows = []
    for m in models:
        win = (f"{m.sliding_window:,} ({m.n_window_layers}/{m.n_layers})" if m.sliding_window
               else "none")
        rows.append([model_name(m), f"{m.kv_cache_bytes_per_token():,}",
                     f"{m.kv_cache_bytes_full_storage(short) / GiB:.2f}",
                     f"{m.kv_cache_bytes_full_storage(long) / GiB:.2f}", win,
                     f"{m.kv_cache_bytes(long) / GiB:.2f}", f"{m.trained_context:,}"])
    return rows


def crossovers(models: Mapping[str, Any], crossover: sp.Expr,
               low_weights: str = "q4_0", low_kv_bits: int = 8) -> dict[str, tuple]:
    """{key: (context at which one sequence's 16-bit cache equals the 16-bit weights held, the
    same with ``low_weights`` and a ``low_kv_bits`` cache, the trained context, the context at
    which it equals the 16-bit weights a decode step reads)}, from the solved ``crossover``."""
    at = sp.lambdify((sym.weight_bytes, sym.n_layers, sym.n_kv_heads, sym.d_head, sym.bits_kv),
                     crossover)
    low = bits_per_weight(low_weights)
    out = {}
    for key, m in models.items():
        shape = (m.n_layers, m.n_kv_heads, m.d_head)
        held = float(at(memory.weight_bytes(n_params=m.total_params), *shape, 16))
        read = float(at(memory.weight_bytes(n_params=m.decode_read_params), *shape, 16))
        small = float(at(memory.weight_bytes(n_params=m.total_params, bits_weight=low),
                         *shape, low_kv_bits))
        out[key] = (held, small, m.trained_context, read)
    return out


def crossover_rows(cross: Mapping[str, tuple]) -> list[list[str]]:
    """Table rows of :func:`crossovers`."""
    return [[model_name(k), f"{held:,.0f}", f"{read:,.0f}", f"{small:,.0f}", f"{ctx:,}"]
            for k, (held, small, ctx, read) in cross.items()]


def crossover_figure(cross: Mapping[str, tuple], low_label: str) -> Any:
    """Horizontal bars of the crossover contexts of :func:`crossovers`, with each model's
    trained context marked."""
    names = list(cross)
    y = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(7.0, 6.0))
    ax.barh(y - 0.2, [cross[n][0] for n in names], height=0.4, label="fp16 weights, fp16 cache")
    ax.barh(y + 0.2, [cross[n][1] for n in names], height=0.4, label=low_label)
    ax.plot([cross[n][2] for n in names], y, "k|", ms=12, mew=2, label="max context (config)")
    ax.set_yticks(y, [model_name(n) for n in names])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("context at which the cache equals the weights [tokens]")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize=9)
    return fig


def fit_rows(models: Sequence[Any], chips: Sequence[Any], context: int
             ) -> tuple[list[list], dict[tuple[str, str], int]]:
    """How many sequences of ``context`` tokens, and how many tokens of one sequence, fit beside
    16-bit weights with a 16-bit cache (no reserve), per model and chip; an asterisk marks a
    context beyond the model's trained one. Also {(model key, chip key): max batch}."""
    rows, batches = [], {}
    for m in models:
        w = memory.weight_bytes(n_params=m.total_params, bits_weight=16)
        for h in chips:
            fit = dict(capacity=h.capacity, weight_bytes=w,
                       kv_cache_bytes_per_token=m.kv_cache_bytes_per_token())
            b_max = memory.max_batch(context=context, **fit)
            s_max = memory.max_context(batch=1, **fit)
            star = "*" if s_max > m.trained_context else ""
            batches[(m.name, h.name)] = b_max
            rows.append([model_name(m), chip_name(h), f"{h.capacity / GiB:.0f}",
                         f"{w / GiB:.1f}", b_max, f"{s_max:,}{star}"])
    return rows, batches
