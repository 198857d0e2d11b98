"""The book's JavaScript: the generated formulas, the catalogs as JSON, and the widgets' script.

The HTML book's interactive widgets run the package's formulas in the reader's browser, with
no kernel. Nothing there is a formula typed in JavaScript:

* ``formulas.js`` is the ES module that :mod:`llm_arithmetic.numeric.generate` prints from the
  registry's sympy expressions (the committed ``numeric/formulas.js``, which
  ``tests/test_formulas.py`` regenerates and compares);
* ``catalog.json`` is :func:`catalog_data`: every catalog model's layer stack (runs of blocks
  with their attention, mixer and MLP, as :mod:`llm_arithmetic.catalog.model` holds them), every
  chip (bandwidth, capacity, dense peaks by precision, interconnect) and every weight format
  (bits per weight, compute precision);
* ``widgets.js`` is one *classic* script (:func:`bundle_source`): the functions of
  ``formulas.js`` unchanged inside a function scope, the catalog, and the hand-written parts in
  ``book/widgets/``: ``stack.js`` (each stack-level count as a loop over the runs that calls
  only generated per-layer formulas, mirroring ``catalog/model.py``), ``estimate.js``
  (mirroring :func:`llm_arithmetic.estimate`), ``svgplot.js`` (log-scale SVG plots) and
  ``ui.js`` (the controls and the widgets). A classic script, not a module, because Chromium
  refuses ES modules on pages opened from disk (``file://``): one script works from disk and
  from a server.

:mod:`llm_arithmetic.book.sphinx_widgets` writes the three files into the built book's
``_static/llm-arithmetic/`` at every build, so they cannot be stale. By hand::

    python -m llm_arithmetic.book.export DIR

A page embeds a widget with :func:`widget_cell`'s HTML (see ``book/widgets/README.md``).

>>> data = catalog_data()
>>> data["models"]["llama-2-7b"]["layers"][0]["count"], data["formats"]["q4_0"]["bits"]
(32, 4.5)
"""
from __future__ import annotations

import argparse
import dataclasses
import html
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..catalog.formats import FORMATS
from ..catalog.hardware import HARDWARE
from ..catalog.models import CATALOG
from ..estimate import _SERVING_RANGES, CROSSING_LIMIT, FIELD_STEPS, FRONTIER_MAX_BATCH, LIMITS
from ..plan import plan_data

__all__ = ["catalog_data", "formulas_classic_source", "bundle_source", "write_static",
           "widget_cell", "WIDGETS", "WIDGET_OPTIONS", "STATIC_DIR", "JS_SOURCES"]

HERE = Path(__file__).resolve().parent
#: The generated ES module (written by ``python -m llm_arithmetic.numeric.generate``).
JS_PATH = HERE.parent / "numeric" / "formulas.js"
#: The hand-written JavaScript and CSS, in the order the bundle concatenates them.
JS_SOURCES = ("interpreter.js", "model.js", "calculator.js", "svgplot.js", "ui.js")
CSS_SOURCE = "widgets.css"
#: Where the files go, relative to the HTML book's root.
STATIC_DIR = "_static/llm-arithmetic"
#: The widgets ``ui.js`` defines (``data-llm-widget`` values); a test checks the two agree.
WIDGETS = ("puzzle", "kv-cache", "roofline", "batching", "explorer", "serving", "estimate")
#: ``data-*`` options a widget's container may carry (``widget_cell``'s keywords).
WIDGET_OPTIONS = ("model", "chip", "weights", "kv", "context", "batch", "tp", "prompt",
                  "generate", "price", "controls", "show", "plots", "title")


def _number(x: Any) -> Any:
    """JSON-ready: Fractions as int where whole, else float."""
    if isinstance(x, Fraction):
        return int(x) if x.denominator == 1 else float(x)
    return x


def _model(entry: Any) -> dict[str, Any]:
    m = entry.model
    layers = []
    for run in m.layers:
        d = {"count": run.count, "norms": run.norms,
             "attention": dataclasses.asdict(run.attention) if run.attention else None,
             "mlp": dataclasses.asdict(run.mlp) if run.mlp else None, "mixer": None}
        if run.mixer is not None:
            d["mixer"] = dataclasses.asdict(run.mixer)
            # The one count catalog/model.py computes outside the formula registry (the input
            # and output projections of a Mamba-2 mixer): shipped as data, not retyped.
            d["mixer"]["matmul_params"] = run.mixer.matmul_params(m.d_model)
        layers.append(d)
    return {
        "name": m.name, "label": entry.label or m.label or m.name, "family": m.family,
        "group": entry.group, "url": entry.url, "n_vocab": m.n_vocab, "d_model": m.d_model,
        "tied": m.tied, "n_positions": m.n_positions, "head_bias": m.head_bias,
        "norm_vecs_final": m.norm_vecs_final, "trained_context": m.trained_context,
        "native_bits": {k: _number(v) for k, v in m.native_bits.items()},
        "extras": [{"name": x.name, "params": x.params, "in_total": x.in_total}
                   for x in m.extras],
        "layers": layers,
    }


def _chip(h: Any) -> dict[str, Any]:
    peaks = {}
    for key, p in h.peaks.items():
        if key.endswith("-sparse"):
            continue
        if not p.dense:  # estimate() would use it under this key: refuse to export a doubt
            raise ValueError(f"{h.name}: peak {key!r} is not dense but its key has no -sparse")
        peaks[key] = {"rate": p.rate, "unit": p.unit, "engine": p.engine}
    return {"name": h.name, "label": h.label, "kind": h.kind, "vendor": h.vendor,
            "year": h.year, "bandwidth": h.bandwidth, "capacity": h.capacity,
            "power": h.power, "source": h.source, "peaks": peaks,
            "interconnect": dataclasses.asdict(h.interconnect)}


def catalog_data() -> dict[str, Any]:
    """The catalogs as one JSON-ready dict: ``models``, ``hardware``, ``formats``, ``limits``
    (with ``serving_ranges`` and ``frontier_max_batch``, :mod:`llm_arithmetic.estimate`'s).

    Models keep the fields of :class:`~llm_arithmetic.catalog.model.Model` (the stack as runs
    of :class:`~llm_arithmetic.catalog.model.Layers`, with their parts' fields by name); chips
    keep their dense peaks only, by precision key.
    """
    return {
        "models": {name: _model(entry) for name, entry in CATALOG.items()},
        "hardware": {name: _chip(h) for name, h in HARDWARE.items()},
        "formats": {name: {"name": name, "bits": _number(f.bits),
                           "bits_exact": str(f.bits), "layout": f.layout,
                           "compute": f.compute, "compute_fallback": f.compute_fallback,
                           "source": f.source}
                    for name, f in FORMATS.items()},
        "limits": dict(LIMITS),
        # estimate()'s plausible ranges of the serving figures [low, high, unit], and the
        # largest batch of a frontier
        "serving_ranges": {k: [lo, hi, unit] for k, (lo, hi, unit, _) in
                           _SERVING_RANGES.items()},
        "frontier_max_batch": FRONTIER_MAX_BATCH,
        # the plan and the stack's terms, which interpreter.js evaluates as estimate.py does
        "plan": plan_data(),
        "field_steps": dict(FIELD_STEPS),
        "crossing_limit": CROSSING_LIMIT,
    }


_EXPORT = re.compile(r"^export (function|const) ([A-Za-z_$][\w$]*)", re.M)


def formulas_classic_source(module_text: str | None = None) -> str:
    """``formulas.js`` as a classic-script expression: its text with ``export`` dropped, in a
    function that returns every exported name (the module's own code, unchanged otherwise)."""
    text = JS_PATH.read_text(encoding="utf-8") if module_text is None else module_text
    names = [m.group(2) for m in _EXPORT.finditer(text)]
    if not names:
        raise ValueError("formulas.js exports nothing")
    body = _EXPORT.sub(r"\1 \2", text)
    if "export " in re.sub(r"//.*|/\*.*?\*/", "", body, flags=re.S):
        raise ValueError("formulas.js has an export form this bundler does not know")
    return ("(function () {\n" + body + "\nreturn {" + ", ".join(names) + "};\n})()")


def _read(name: str) -> str:
    return (HERE / "widgets" / name).read_text(encoding="utf-8")


def bundle_source() -> str:
    """The text of ``widgets.js``: formulas, catalog and widgets in one classic script that
    defines ``window.LLMArithmetic`` and mounts every ``[data-llm-widget]`` element."""
    parts = [
        "// LLM Inference Arithmetic: the book's widgets. GENERATED by",
        "// llm_arithmetic.book.export from numeric/formulas.js (itself generated from the",
        "// package's sympy expressions), the catalogs and book/widgets/*.js. Do not edit.",
        "(function () {",
        '"use strict";',
        "if (window.LLMArithmetic) { window.LLMArithmetic.mountAll(); return; }",
        "const F = " + formulas_classic_source() + ";",
        "const CATALOG = " + json.dumps(catalog_data(), sort_keys=True,
                                         separators=(",", ":")) + ";",
        "const WIDGET_CSS = " + json.dumps(_read(CSS_SOURCE)) + ";",
    ]
    for name in JS_SOURCES:
        parts += [f"// ---- book/widgets/{name}", _read(name)]
    parts += ["})();", ""]
    return "\n".join(parts)


def write_static(root: str | Path) -> list[Path]:
    """Write ``formulas.js``, ``catalog.json`` and ``widgets.js`` into ``root`` (a folder, made
    if missing); returns their paths."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    out = {"formulas.js": JS_PATH.read_text(encoding="utf-8"),
           "catalog.json": json.dumps(catalog_data(), sort_keys=True, indent=1) + "\n",
           "widgets.js": bundle_source()}
    paths = []
    for name, text in out.items():
        path = root / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def widget_cell(widget: str, *, static: str = "../_static", intro: str = "",
                **options: Any) -> str:
    """The Markdown (raw HTML) that embeds ``widget`` in a page: a container ``div`` naming it,
    the fallback text a reader without JavaScript (or a live notebook) sees, and the script.

    ``static`` is the path from the page to the book's ``_static`` folder (``../_static`` from
    ``notebooks/``); ``options`` become ``data-*`` attributes (:data:`WIDGET_OPTIONS`).

    >>> print(widget_cell("kv-cache"))
    <div class="llm-widget" data-llm-widget="kv-cache">
    <p class="llm-widget-fallback">An interactive widget runs here in the HTML book.</p>
    </div>
    <script src="../_static/llm-arithmetic/widgets.js"></script>
    """
    if widget not in WIDGETS:
        raise ValueError(f"unknown widget {widget!r}; known: {', '.join(WIDGETS)}")
    unknown = set(options) - set(WIDGET_OPTIONS)
    if unknown:
        raise ValueError(f"unknown widget option(s) {sorted(unknown)}; known: "
                         f"{', '.join(WIDGET_OPTIONS)}")
    attrs = "".join(f' data-{k}="{html.escape(str(v))}"' for k, v in options.items())
    lines = [intro, ""] if intro else []
    lines += [f'<div class="llm-widget" data-llm-widget="{widget}"{attrs}>',
              '<p class="llm-widget-fallback">An interactive widget runs here in the HTML '
              'book.</p>',
              "</div>",
              f'<script src="{static}/llm-arithmetic/widgets.js"></script>']
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_arithmetic.book.export",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", help="folder to write formulas.js, catalog.json, widgets.js into")
    args = parser.parse_args(argv)
    for path in write_static(args.dir):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
