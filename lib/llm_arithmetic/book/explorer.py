"""The explorer lab (``notebooks/lab-explorer.ipynb``): one model on one chip, as a figure and a
table, and its ipywidgets controls for a live notebook.

The HTML book's in-page explorer (``data-llm-widget="explorer"``, ``widgets/ui.js``) shows the
same table, row for row, computed in the browser; ``tests/test_browser.py`` compares the two for
:data:`DEFAULTS`.

>>> e = explore(**DEFAULTS)
>>> e.bound, round(step_intensity(e), 1)
('memory', 1.1)
>>> parse_config('{"model_type": "llama"')[1]
"not valid JSON: Expecting ',' delimiter (line 1, column 23)"
"""
from __future__ import annotations

import html
import json
import os
import sys
from typing import Any

import matplotlib.pyplot as plt

from ..estimate import estimate
from ..core.units import mixed_rate_unit  # the unit --explain and the page give a step's rate
from ..catalog.formats import BITS_PER_WEIGHT
from ..catalog.hardware import HARDWARE, get_hardware
from ..catalog.model import Model
from ..catalog.model_catalog import MODELS, get_model
from ..catalog.readers import read_config
from ..core.errors import ConfigError
from ..core.units import GB, GiB
from . import plots
from .display import chip_name, md_table, model_name

__all__ = ["DEFAULTS", "explore", "explorer_figure", "summary", "parse_config", "launch",
           "step_intensity"]

WEIGHT_FORMATS = list(BITS_PER_WEIGHT)
KV_FORMATS = ["fp16", "fp8", "q8_0", "q4_0"]
CONTEXTS = [1, 128, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
#: What the table shows instead of a speed where the setup does not fit in memory (the words
#: of ``describe``'s table, :func:`llm_arithmetic.cli.tables._speed_rows`).
NO_FIT = "- (does not fit in memory)"
#: The explorer's starting choice (the in-page widget starts from the same one).
DEFAULTS = dict(model="llama-3-8b", chip="rtx-4090", weights="fp16", bits_kv="fp16",
                context=4096, batch=1)


def parse_config(text: str) -> tuple[Model | None, str]:
    """A Model from the text of a Hugging Face config.json: (model, "") or (None, message)."""
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as err:
        return None, f"not valid JSON: {err.msg} (line {err.lineno}, column {err.colno})"
    if not isinstance(cfg, dict):
        return None, "expected a JSON object, {...}"
    name = cfg.get("_name_or_path") if isinstance(cfg.get("_name_or_path"), str) else None
    try:
        return read_config(cfg, name=name or "pasted config"), ""
    except (ConfigError, ValueError, TypeError) as err:
        return None, str(err)


def _resolve(model: Any, chip: Any) -> tuple[Model, Any]:
    model = get_model(model) if isinstance(model, str) else model
    chip = get_hardware(chip) if isinstance(chip, str) else chip
    return model, chip


def explore(model: Any, chip: Any, weights: str = "fp16", bits_kv: Any = "fp16",
            context: int = 4096, batch: int = 1) -> Any:
    """The estimate of one choice; ``model`` and ``chip`` are catalog names or objects."""
    model, chip = _resolve(model, chip)
    return estimate(model, hardware=chip, weights=weights, bits_kv=bits_kv, context=context,
                    batch=batch)


def step_intensity(e: Any) -> float:
    """Arithmetic intensity of the whole decode step, FLOPs over bytes [FLOP/B]."""
    return e.batch * e.decode_flops_per_token / float(e.decode_step_bytes)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.3g} ms"


def summary(model: Any, chip: Any, e: Any, weights: str, bits_kv: Any,
            caption: str | None = None, name: str | None = None) -> Any:
    """The estimate as a two-column Markdown table (with ``caption`` and ``name``, numbered).

    The rows and their formatting are those of the in-page explorer's table (``ui.js``)."""
    model, chip = _resolve(model, chip)
    prec = e.compute_precision  # the precision chain's pick: the first the chip has
    unit = chip.peaks[prec].unit
    fits = "fits" if e.fits else "does **not** fit"
    rows = [
        ("model", f"`{model.name}`: {model.total_params / 1e9:,.2f} billion parameters, "
                  f"{model.active_params / 1e9:,.2f} billion active"),
        ("chip", f"{chip.label}: {chip.bandwidth / 1e9:,.0f} GB/s, {chip.capacity / GiB:,.0f} "
                 f"GiB, dense {prec} peak {e.peak_flops / 1e12:,.1f} T{unit}"),
        ("formats", f"weights {weights} ({e.bits_weight:g} bits), KV cache {bits_kv} "
                    f"({e.bits_kv:g} bits)"),
        ("step", f"batch {e.batch:,}, context {e.context:,} tokens"
                 + (f" (attended {float(e.attended_context):,.0f} per layer)"
                    if e.attended_context != e.context else "")),
        ("bytes read per step", f"{e.decode_step_bytes / GB:,.3f} GB"),
        ("FLOPs per step", f"{e.batch * e.decode_flops_per_token / 1e9:,.1f} GFLOP"),
        ("memory time / compute time", f"{_ms(e.decode_memory_seconds)} / "
                                       f"{_ms(e.decode_compute_seconds)}"),
        # a setup that does not fit has no speed a run could reach: its bound per step is
        # said to be of a setup that does not fit, and no speed is shown (describe's words)
        ("**bound per step**", f"**{_ms(e.decode_seconds_per_token)}, {e.bound}-bound**"
                               + ("; does not fit in memory" if e.fits is False else "")),
        ("tokens/s", NO_FIT if e.fits is False else
         f"{e.decode_tokens_per_second:,.1f} per sequence, "
         f"{e.throughput_tokens_per_second:,.0f} in all"),
        ("arithmetic intensity", f"{step_intensity(e):,.1f} "
                                 f"{mixed_rate_unit(prec, e.attention_precision, 'FLOP/B')}; "
                                 "the chip's ridge is at "
                                 f"{e.ops_per_byte:,.0f}"),
        ("critical batch size", "none: never compute-bound at this context"
         if e.critical_batch_size is None else f"{e.critical_batch_size:,.0f}"),
        ("memory", f"{e.memory_required_bytes / GiB:,.2f} GiB of {chip.capacity / GiB:,.0f} "
                   f"GiB: {fits}"),
        ("most sequences at this context", f"{e.max_batch:,}"),
        ("longest context at this batch", f"{e.max_context:,} tokens"),
    ]
    return md_table(["quantity", "value"], rows, "ll", caption=caption, name=name)


def explorer_figure(model: Any, chip: Any, e: Any, weights: str = "fp16",
                    bits_kv: Any = "fp16") -> plt.Figure:
    """Two panels, stacked: the bytes of one sequence's decode step by kind, and the chip's
    roofline with the step (red dot) at its arithmetic intensity."""
    model, chip = _resolve(model, chip)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.0, 8.0),
                                      gridspec_kw={"height_ratios": [1, 1.5]})
    # the bytes of one sequence's step: the cache as far as the step reads it (windows applied)
    plots.decode_bytes_breakdown([model], context=round(float(e.attended_context)),
                                 weights=weights, bits_kv=bits_kv, ax=top)
    top.set_xticks([0], [model_name(model)])
    top.set_title("one sequence: weights and its cache")
    top.set_xlim(-0.8, 2.2)
    top.legend(loc="center left", bbox_to_anchor=(0.42, 0.5), frameon=False)
    intensity = step_intensity(e)
    lo, hi = min(0.1, intensity / 3), max(2000.0, intensity * 3)
    plots.roofline([chip], {f"decode step, batch {e.batch:,}": intensity},
                   precision=e.compute_precision, ax=bottom,
                   intensity_range=(lo, hi))
    # the rate the step attains at its bound, as the page's roofline draws it: its FLOPs over
    # its time (the weights' products at their rate, attention's at the cache's)
    attained = e.batch * e.decode_flops_per_token / e.decode_seconds_per_token
    bottom.plot([intensity], [attained], "o", color="C3", ms=7, zorder=5)
    bottom.set_title(f"{model_name(model)} on {chip_name(chip)}: {e.bound}-bound")
    fig.tight_layout()
    return fig


def show(model: Any, chip: Any, weights: str = "fp16", bits_kv: Any = "fp16",
         context: int = 4096, batch: int = 1) -> Any:
    """Estimate, draw and tabulate one choice in a live notebook; returns the estimate."""
    from IPython.display import display

    model, chip = _resolve(model, chip)
    e = explore(model, chip, weights, bits_kv, context, batch)
    explorer_figure(model, chip, e, weights, bits_kv)
    plt.show()
    display(summary(model, chip, e, weights, bits_kv))
    return e


def live_frontend() -> bool:
    """Whether this kernel serves a notebook frontend that can display widgets.

    jupyter_server (JupyterLab, Notebook, Binder) names the notebook in JPY_SESSION_NAME when it
    starts a kernel; Colab's kernel has google.colab loaded. Headless runs (nbclient, nbval) have
    neither. LLM_ARITHMETIC_WIDGETS=1 or 0 overrides the check.
    """
    forced = os.environ.get("LLM_ARITHMETIC_WIDGETS")
    if forced in ("0", "1"):
        return forced == "1"
    return "google.colab" in sys.modules or bool(os.environ.get("JPY_SESSION_NAME"))


def build_ui(model: str = "llama-3-8b", chip: str = "rtx-4090", weights: str = "fp16",
             bits_kv: str = "fp16", context: int = 4096, batch: int = 1,
             config: str = "") -> tuple[Any, Any]:
    """The controls and the output area; returns (the widget box, its update callback)."""
    import ipywidgets as w

    source = w.ToggleButtons(options=["catalog", "pasted config.json"], description="model")
    model_dd = w.Dropdown(options=list(MODELS), value=model, description="catalog")
    config_box = w.Textarea(value=config, description="config.json",
                            layout=w.Layout(width="95%", height="11em"))
    config_msg = w.HTML()
    chip_dd = w.Dropdown(options=[(h.label, h.name) for h in HARDWARE.values()], value=chip,
                         description="chip", layout=w.Layout(width="28em"))
    weights_dd = w.Dropdown(options=WEIGHT_FORMATS, value=weights, description="weights")
    kv_dd = w.Dropdown(options=KV_FORMATS, value=bits_kv, description="KV cache")
    context_sl = w.SelectionSlider(options=CONTEXTS, value=context, description="context")
    batch_sl = w.SelectionSlider(options=BATCHES, value=batch, description="batch")
    out = w.Output()

    def update(change: Any = None) -> None:
        config_box.layout.display = "" if source.value != "catalog" else "none"
        model_dd.disabled = source.value != "catalog"
        if source.value == "catalog":
            m, config_msg.value = get_model(model_dd.value), ""
        else:
            m, message = parse_config(config_box.value)
            config_msg.value = ("" if m else
                                f"<pre style='color:#b00'>{html.escape(message)}</pre>")
        with out:
            out.clear_output(wait=True)
            if m is None:
                print("no model: fix the configuration above")
                return
            try:
                show(m, chip_dd.value, weights_dd.value, kv_dd.value, context_sl.value,
                     batch_sl.value)
            except (ValueError, KeyError) as err:
                print(f"cannot estimate: {err}")

    controls = [source, model_dd, config_box, chip_dd, weights_dd, kv_dd, context_sl, batch_sl]
    for c in controls:
        c.observe(update, names="value")
    update()
    box = w.VBox([source, model_dd, config_box, config_msg,
                  w.HBox([chip_dd, weights_dd, kv_dd]), w.HBox([context_sl, batch_sl]), out])
    return box, update


def launch(force: bool = False, config: str = "", **choice: Any) -> None:
    """Display the explorer's controls in a live notebook (see :func:`live_frontend`);
    ``config``: the text a pasted config.json box starts with."""
    from IPython.display import display

    if not (force or live_frontend()):
        print("No live notebook frontend, so no controls: open this notebook on Binder or "
              "Colab (rocket icon), or in Jupyter, and run all cells; or call "
              "launch(force=True).")
        return
    box, _ = build_ui(**{**DEFAULTS, **choice}, config=config)
    display(box)
