"""Chapter 5, FLOPs and arithmetic intensity (``notebooks/05-flops-intensity.ipynb``): where
chips turn compute-bound, the FLOPs of a token against the 2P rule, and the intensity of
prefills, decode steps and attention."""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import sympy as sp

from ...core import symbols as sym
from ...core.units import GB_S, TFLOP_S
from ...layout import peak_for
from ...formulas import flops, memory, roofline
from ..display import chip_name, model_name
from ..matplotlib_on_demand import pyplot as plt


def _shape(m: Any) -> dict[str, Any]:
    return dict(matmul_params=m.matmul_params, n_layers=m.n_layers, n_heads=m.n_heads,
                d_head=m.d_head)


def ridge_rows(chips: Sequence[Any], n_star: sp.Expr, width: int, bits: int = 16
               ) -> tuple[list[list[str]], dict[str, tuple[float, float]]]:
    """Per chip: the dense 16-bit peak the estimate uses (``estimate.peak_for``), bandwidth,
    ops:byte ratio and the first whole number of vectors n at which a square ``width`` matrix
    product turns compute-bound (``n_star`` solved for n, rounded up); also
    {chip key: (ops:byte, n)}."""
    rows, out = [], {}
    for h in chips:
        peak = peak_for(h, "fp16")  # the estimate's 16-bit rate (a GeForce card's fp16-acc16)
        r = roofline.ops_per_byte(peak_flops=peak, bandwidth=h.bandwidth)
        n = math.ceil(float(n_star.subs({sym.mat_m: width, sym.bits: bits, sym.ops_per_byte: r})))
        out[h.name] = (r, n)
        rows.append([chip_name(h), f"{peak / TFLOP_S:,.1f}",
                     f"{h.bandwidth / GB_S:,.0f}", f"{r:,.1f}", f"{n:,d}"])
    return rows, out


def matmul_intensity_figure(width: int, chips: Sequence[Any]) -> Any:
    """Intensity of a square ``width`` product against the number of vectors n, at 16 and 4
    bits, with the fp16 ridges of ``chips``."""
    n = np.logspace(0, 4.5, 300)
    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    for bits, style in ((16, "-"), (4, "--")):
        ax.plot(n, flops.matmul_intensity(mat_m=width, mat_k=width, mat_n=n, bits=bits), style,
                color="k", label=f"{width} × {width} product, {bits}-bit operands")
    for h, color in zip(chips, ("tab:green", "tab:blue", "tab:red")):
        ax.axhline(h.ops_per_byte("fp16"), color=color, lw=1.2, ls=":",
                   label=f"{chip_name(h)} ridge (fp16)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("vectors multiplied at once, n [tokens]")
    ax.set_ylabel("arithmetic intensity [FLOP/B]")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=9)
    return fig


def catch_up_rows(models: Mapping[str, Any], s_f: sp.Expr) -> tuple[list[list], dict[str, float]]:
    """Per model: P_mm, L, H, d_head and the context at which attention's FLOPs equal the
    matrix products' (``s_f``); also {key: that context}."""
    rows, out = [], {}
    for key, m in models.items():
        val = float(s_f.subs({getattr(sym, k): v for k, v in _shape(m).items()}))
        out[key] = val
        rows.append([model_name(m), f"{m.matmul_params / 1e9:,.2f}", m.n_layers, m.n_heads,
                     m.d_head, f"{val:,.0f}"])
    return rows, out


def two_p_rule_rows(models: Mapping[str, Any]) -> tuple[list[list[str]], dict[str, float]]:
    """Per model: P, P_mm, the exact FLOPs of a token with an empty cache and the error of 2P
    [%]; also {key: relative error}."""
    rows, err = [], {}
    for key, m in models.items():
        exact = m.decode_flops_per_token(0)
        err[key] = 2 * m.total_params / exact - 1
        rows.append([model_name(m), f"{m.total_params / 1e9:.2f}",
                     f"{m.matmul_params / 1e9:.2f}", f"{exact / 1e9:.2f}",
                     f"{100 * err[key]:+.1f}"])
    return rows, err


def step_intensities(model: Any, weights: Any, prompts: Iterable[int], batches: Iterable[int],
                     contexts: Sequence[int], limit: sp.Expr) -> dict[tuple, float]:
    """Arithmetic intensity [FLOP/B] of prefills of T tokens, keyed ("prefill", T), of decode
    steps of B sequences at context S, ("decode", B, S), and of the limit ``limit`` of a decode
    step as B grows, ("decode", inf, S); the weights at ``weights`` bits, a 16-bit cache."""
    shape = _shape(model)
    w = memory.weight_bytes(n_params=model.decode_read_params, bits_weight=weights)
    kappa = model.kv_cache_bytes_per_token()
    out = {}
    for t in prompts:
        out[("prefill", t)] = flops.prefill_flops(prompt=t, head_params=model.head_params,
                                                     **shape) / (w + kappa * t)
    for b in batches:
        for s in contexts:
            out[("decode", b, s)] = (roofline.decode_step_flops(context=s, batch=b, **shape)
                                     / roofline.decode_step_bytes(
                                         weight_bytes=w, kv_cache_bytes_per_token=kappa,
                                         context=s, batch=b))
    for s in contexts:
        out[("decode", float("inf"), s)] = float(limit.subs(
            {sym.context: s, sym.kv_cache_bytes_per_token: kappa, sym.weight_bytes: w,
             **{getattr(sym, k): v for k, v in shape.items()}}))
    return out


def step_rows(intensities: Mapping[tuple, float]) -> list[list[str]]:
    """Table rows of :func:`step_intensities`."""
    rows = []
    for k, v in intensities.items():
        if k[0] == "prefill":
            size = f"T = {k[1]:,}"
        elif k[1] == float("inf"):
            size = f"B → ∞, S = {k[2]:,}"
        else:
            size = f"B = {k[1]}, S = {k[2]:,}"
        rows.append([k[0], size, f"{v:,.1f}"])
    return rows


def attention_rows(models: Iterable[Any], context: int) -> list[list]:
    """The intensity of decode attention at ``context`` with a 16-bit and an 8-bit cache, for
    the first model of each group size H / H_kv."""
    rows, seen = [], set()
    for m in models:
        g = m.n_heads // m.n_kv_heads
        if g in seen:
            continue
        seen.add(g)
        heads = dict(n_heads=m.n_heads, n_kv_heads=m.n_kv_heads, d_head=m.d_head,
                     context=context)
        rows.append([model_name(m), m.n_heads, m.n_kv_heads, g,
                     flops.attention_decode_intensity(bits=16, **heads),
                     flops.attention_decode_intensity(bits=8, **heads)])
    return rows
