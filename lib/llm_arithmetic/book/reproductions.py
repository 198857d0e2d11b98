"""Helpers of the reproduction pages: computations and figures that one article's page needs and
that are not a formula of the package (those are in :mod:`llm_arithmetic.articles`).

* :func:`article_figures` -- every value an article used for a chip's quantity;
* :func:`sig_tol` -- the tolerance a published "~" value implies (Karpathy's page);
* :func:`usable_capacity`, :func:`request_times`, :func:`step_intensity`,
  :func:`tex_cell` -- Baseten's page;
* :func:`calm_curve`, :func:`package_curve`, :func:`calm_panel` -- the calm notebook's latency
  model against the package's roofline, one panel of its figures at a time (Kapoulkine's page);
* :func:`finbarr_tps`, :func:`finbarr_tps_printed`, :func:`mac_usable`,
  :func:`finbarr_estimate` -- finbarr's page (:func:`mac_usable` Karpathy's too).
"""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any, Mapping

import matplotlib.pyplot as plt
import numpy as np

from ..articles import zeux as Z
from ..catalog.hardware import get_hardware
from ..catalog.macos import macos_gpu_share
from ..catalog.model import Model
from ..catalog.model_catalog import get_model
from ..estimate import estimate
from ..core import symbols as sym
from ..formulas import memory, roofline

__all__ = ["article_figures", "sig_tol", "usable_capacity", "fp16_step_args", "request_times",
           "step_intensity", "tex_cell", "decode_step_time", "calm_curve", "package_curve", "calm_panel",
           "finbarr_tps", "finbarr_tps_printed", "mac_usable",
           "finbarr_estimate"]


def article_figures(chip: Any, article: str, quantity: str) -> list[float]:
    """The values ``article`` used for ``quantity`` of ``chip`` (a name or a Hardware), in the
    catalog's order (an article may give two, e.g. two bandwidths for one chip).

    >>> article_figures("rtx-4090", "kapoulkine2024sol", "bandwidth")
    [1008000000000.0]
    """
    chip = get_hardware(chip) if isinstance(chip, str) else chip
    return [f.value for f in chip.article_figures
            if f.article == article and f.quantity == quantity]


def sig_tol(published: str, significant: int) -> float:
    """Relative half-width of the last significant digit of a published "~" value: "~200" read
    at one significant figure covers 150 to 250, a tolerance of 50 / 200.

    >>> sig_tol("200", 1), sig_tol("160", 2)
    (0.25, 0.03125)
    """
    d = Decimal(published)
    step = Decimal(1).scaleb(d.adjusted() - significant + 1)
    return float(step / 2 / d)


def decode_step_time(model: Model, *, bits_weight: Any = 16, bits_kv: Any = 16,
                     context: Any = 1, batch: Any = 1, bandwidth: float,
                     peak_flops: float, attn_peak_flops: float | None = None) -> Any:
    """The package's roofline bound on one decode step of a uniform ``model`` [s]
    (:func:`llm_arithmetic.formulas.roofline.decode_step_time`), the weights read as
    ``decode_read_params``; as :func:`llm_arithmetic.estimate` does, sliding-window layers read
    only their window of the cache. ``batch`` may be an array. Attention's products run at
    ``attn_peak_flops``, by default at ``peak_flops``.

    >>> t = decode_step_time(get_model("mistral-7b"), bandwidth=1008e9, peak_flops=165.2e12)
    >>> round(t * 1e3, 2)
    14.11
    """
    return roofline.decode_step_time(
        weight_bytes=memory.weight_bytes(n_params=model.decode_read_params,
                                         bits_weight=bits_weight),
        kv_cache_bytes_per_token=model.kv_cache_bytes_per_token(bits_kv), matmul_params=model.matmul_params,
        n_layers=model.n_layers, n_heads=model.n_heads, d_head=model.d_head,
        context=model.attended_context(context), batch=batch, bandwidth=bandwidth,
        peak_flops=peak_flops, attn_peak_flops=attn_peak_flops)


def _datasheet_rates(dev: str) -> dict[str, float]:
    hw = get_hardware(dev)
    return {"flops": hw.peak("fp32"), "tensorops": hw.peak("tf32")}


def calm_curve(model: Model, dev: str, context: int, batches: tuple[int, int],
               tensorcores: bool, rates: Mapping[str, float] | None = None):
    """The calm notebook's latency [s] against the batch size, for batches from
    ``batches[0]`` to ``batches[1]``, cut (as the notebook does) at the first batch whose memory
    estimate exceeds the VRAM. ``rates`` replaces the notebook's ``flops``/``tensorops``.
    Returns (batches, latencies)."""
    g = dict(Z.calm_gpu(dev), **(rates or {}))
    arch = Z.calm_arch(model)
    b = np.arange(batches[0], batches[1] + 1)
    fits = Z.calm_memory(**arch, context=context, batch=b) < g["vram"]
    b = b[fits & (np.cumsum(~fits) == 0)]
    kw = dict(arch, context=context, batch=b, bandwidth=g["bandwidth"], peak_vector=g["flops"])
    return b, Z.calm_latency(tensorcores=tensorcores, peak_tensor=g["tensorops"], **kw)


def package_curve(model: Model, dev: str, context: int, batches: tuple[int, int],
                  tensorcores: bool):
    """The package's roofline (:func:`decode_step_time`) on the datasheet device: the dense FP16
    peak with tensor cores, FP32 without; the batch limited by what fits beside 16-bit weights
    with the notebook's 500 MiB reserve. Returns (batches, step times [s])."""
    hw = get_hardware(dev)
    peak = hw.peak("fp16") if tensorcores else hw.peak("fp32")
    w_all = memory.weight_bytes(n_params=model.total_params, bits_weight=16)
    bmax = memory.max_batch(capacity=hw.capacity, weight_bytes=w_all,
                            kv_cache_bytes_per_token=model.kv_cache_bytes_per_token(), context=context,
                            overhead=Z.CALM_OVERHEAD)
    b = np.arange(batches[0], min(batches[1], bmax) + 1)
    return b, decode_step_time(model, context=context, batch=b, bandwidth=hw.bandwidth,
                               peak_flops=peak)


def calm_panel(spec: Mapping[str, Any], panel: int, ax: plt.Axes | None = None) -> plt.Figure:
    """One panel of a figure of the calm notebook (``spec``, an entry of
    :data:`llm_arithmetic.articles.zeux.CALM_FIGURES`), as one figure of the book: the
    notebook's model with its own rates (solid), with the datasheet rates where they differ
    (dotted), and the package's roofline (dashed), one colour per sequence length, against the
    batch size. Returns the figure."""
    model, dev = get_model(spec["model"]), spec["hardware"]
    kind, tc = spec["panels"][panel]
    differs = tc and not np.isclose(Z.calm_gpu(dev)["tensorops"],
                                    _datasheet_rates(dev)["tensorops"], rtol=0.01)
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.0, 4.6))
    fig = ax.figure
    for i, context in enumerate(spec["contexts"]):
        curves = [(calm_curve(model, dev, context, spec["batches"], tc), "-",
                   f"{context} tokens")]
        if differs:
            curves.append((calm_curve(model, dev, context, spec["batches"], tc,
                                      _datasheet_rates(dev)), ":", None))
        curves.append((package_curve(model, dev, context, spec["batches"], tc), "--", None))
        for (b, t), style, label in curves:
            y = 1e3 * t if kind == "latency" else b / t
            ax.plot(b, y, style, color=f"C{i}", label=label)
    ax.set_xlabel("batch size [sequences]")
    ax.set_ylabel("time per step [ms]" if kind == "latency" else "throughput [token/s]")
    handles, labels = ax.get_legend_handles_labels()
    styles = [plt.Line2D([], [], color="k", ls="-"), plt.Line2D([], [], color="k", ls="--")]
    names = ["calm model, notebook's rates", "package roofline, datasheet"]
    if differs:
        styles.insert(1, plt.Line2D([], [], color="k", ls=":"))
        names.insert(1, "calm model, datasheet rates")
    ax.legend(handles + styles, labels + names, loc="upper center",
              bbox_to_anchor=(0.5, -0.16), ncol=2)
    return fig



# ---- Baseten's guide -----------------------------------------------------------------------

def tex_cell(expr: Any) -> str:
    """A sympy expression, expanded, as inline math for a table cell.

    >>> tex_cell(sym.seq_len * (sym.seq_len + sym.d_head))
    '$N^{2} + N d_{head}$'
    """
    import sympy as sp

    return f"${sp.latex(sp.expand(expr))}$"


def usable_capacity(hw: Any) -> int:
    """Bytes software can allocate on ``hw``: the nvidia-smi total (MiB) the catalog's notes
    quote, else the nominal capacity.

    >>> usable_capacity(get_hardware("a10")) / 2**30
    22.48828125
    """
    import re

    found = re.search(r"([\d,]+) MiB", hw.notes)
    return int(found.group(1).replace(",", "")) * 2**20 if found else hw.capacity


def fp16_step_args(model: Model) -> dict[str, Any]:
    """The arguments of the roofline's step formulas for ``model`` at fp16 (weights read per
    step, cache per token, shape), as Baseten's page uses them."""
    return dict(weight_bytes=memory.weight_bytes(n_params=model.decode_read_params, bits_weight=16),
                kv_cache_bytes_per_token=model.kv_cache_bytes_per_token(16),
                matmul_params=model.matmul_params, n_layers=model.n_layers,
                n_heads=model.n_heads, d_head=model.d_head)


def request_times(model: Model, *, prompt: int, generated: int, bandwidth: float,
                  peak_flops: float, batch: int = 1) -> tuple[float, float, float]:
    """The package's roofline for one request of ``prompt`` + ``generated`` tokens at fp16:
    (prefill, mean time per decode step, total) [s]."""
    kw = dict(fp16_step_args(model), head_params=model.head_params, bandwidth=bandwidth,
              peak_flops=peak_flops, batch=batch)
    pre = roofline.prefill_time(prompt=prompt, **kw)
    total = roofline.generation_time(prompt=prompt, generated=generated, **kw)
    return pre, (total - pre) / generated, total


def step_intensity(model: Model, batch: int, context: int) -> float:
    """FLOPs per byte of one fp16 decode step of ``batch`` sequences with ``context`` cached
    tokens.

    >>> round(step_intensity(get_model("llama-2-7b"), 1, 0), 3)
    1.0
    """
    a = fp16_step_args(model)
    f = roofline.decode_step_flops(matmul_params=a["matmul_params"], n_layers=a["n_layers"],
                             n_heads=a["n_heads"], d_head=a["d_head"], context=context,
                             batch=batch)
    return float(f / roofline.decode_step_bytes(weight_bytes=a["weight_bytes"],
                                          kv_cache_bytes_per_token=a["kv_cache_bytes_per_token"],
                                          context=context, batch=batch))


# ---- finbarr's "How is LLaMa.cpp possible?" ------------------------------------------------

def finbarr_tps(n_params: float, n_bytes: Any, bandwidth: float, peak: float) -> float:
    """Tokens/s at batch 1 with the post's inputs and the factor 2 removed: the package's
    roofline bound, the weights read once per token, ``2 n_params`` FLOPs.

    >>> round(finbarr_tps(7e9, 0.5, 1935e9, 1248e12), 1)
    552.9
    """
    w = float(memory.weight_bytes(n_params=n_params, bits_weight=8 * Fraction(n_bytes)))
    return 1 / roofline.roofline_time(step_bytes=w, step_flops=2.0 * n_params, bandwidth=bandwidth,
                                      peak_flops=peak)


def finbarr_tps_printed(n_params: float, n_bytes: Any, bandwidth: float, peak: float) -> float:
    """Tokens/s at batch 1 with the post's printed formula (factor 2 included).

    >>> round(finbarr_tps_printed(7e9, 0.5, 1935e9, 1248e12), 1)
    276.4
    """
    from ..articles import finbarr as FB

    return 1 / FB.finbarr_latency_model(n_params=n_params, n_bytes=n_bytes, batch=1,
                                        bandwidth=bandwidth, peak_flops=peak)


def mac_usable(dev: Any) -> int:
    """Memory [B] a model may use on ``dev``: on Apple silicon the share of it macOS lets the GPU
    use (:func:`~llm_arithmetic.catalog.macos.macos_gpu_share`; the OS keeps the rest), else all
    of it.

    >>> chips = ("m1", "m2-pro", "m2-max", "h100-sxm")
    >>> [round(mac_usable(get_hardware(k)) / 2**30, 2) for k in chips]
    [5.33, 21.33, 72.0, 80.0]
    """
    if dev.kind == "apple-silicon":
        return int(dev.capacity * macos_gpu_share(dev.capacity))
    return dev.capacity


def finbarr_estimate(key: str, name: str, fmt: str, context: int) -> Any:
    """The package's ``estimate`` of ``name`` on chip ``key`` in format ``fmt``, within the
    memory :func:`mac_usable` allows."""
    dev = get_hardware(key)
    return estimate(get_model(name), hardware=dev, weights=fmt, context=context,
                    overhead=dev.capacity - mac_usable(dev))
