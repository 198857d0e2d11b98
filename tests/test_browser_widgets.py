"""The book's calculators (widgets, issue 18) in Chromium, on their built pages: a file of its own
so that pytest-xdist runs it beside the pages of tests/test_browser.py (whose server, browser and
helpers it uses; same requirements: a built book, Debian's Chromium). Each calculator's check
over HTTP (`follow_controls`) runs in that file's load of the page (test_browser.py and
test_browser_pages_second.py: test_widget_follows_its_controls); this file opens each from disk
at 390 px, and checks the forecast's caveat.
"""
import json as _json
import math as _math
import re
import warnings as _warnings
from pathlib import Path
from urllib.parse import urljoin

import pytest

from conftest import REPO
from test_widgets import widget_cells


# --------------------------------------------------------------------------------------------
# The widgets (issue 18): the in-page calculators of the chapters and the explorer
#
# Every widget cell of the notebooks (a Markdown cell with <div data-llm-widget=...>) is found on
# its built page and checked: its numbers equal llm_arithmetic.estimate for its starting choice
# and after each control moves (selects chosen by click and by keyboard, sliders moved with the
# arrow keys, numbers typed, custom model and chip); its plot's marker sits at the Python value;
# it fits a 390 px wide screen and every control is reached with Tab; it works from file://
# (no server); the explorer widget's table is the Python explorer's for the notebook's defaults.
# Formulas, stacks and estimate() themselves are compared with Python in tests/test_widgets.py.


def widget_pages() -> list[tuple[str, str]]:
    """(page, widget) for every widget cell in the notebooks (test_widgets.widget_cells)."""
    return [(path.relative_to(REPO).with_suffix(".html").as_posix(), name)
            for path, cell in widget_cells()
            for name in re.findall(r'data-llm-widget="([\w-]+)"', "".join(cell["source"]))]


WIDGET_PAGES = widget_pages()

READ_WIDGET = """
(el) => ({
  state: JSON.parse(el.dataset.state || "null"),
  message: (el.querySelector('.lla-message') || {}).textContent || '',
  outputs: [...el.querySelectorAll('output[data-key]')].map((o) => ({
    key: o.dataset.key, value: o.dataset.value, scale: Number(o.dataset.scale || 1),
    low: o.dataset.low ?? null, high: o.dataset.high ?? null,
    text: o.textContent, noFit: o.dataset.doesNotFit === "1",
    unit: o.nextElementSibling?.classList.contains('lla-unit')
      ? o.nextElementSibling.textContent : null,
    summary: !!o.closest('.lla-summary')})),
  points: [...el.querySelectorAll('circle[data-series="step"]')].map((c) => ({
    view: c.closest('[data-view]').dataset.view, x: Number(c.dataset.x),
    y: Number(c.dataset.y), fill: c.getAttribute('fill')})),
  bars: [...el.querySelectorAll('rect.lla-bar')].map((r) => [r.dataset.part,
    Number(r.dataset.value)]),
  curves: Object.fromEntries([...el.querySelectorAll('path[data-points]')].map((p) => [
    p.dataset.series, JSON.parse(p.dataset.points)])),
})
"""


def widget_model(state):
    """The model a widget's state names, built in Python as the page builds it."""
    from llm_arithmetic import Model, get_model

    if state["model"] == "custom":
        c = state["custom_model"]
        m = Model.transformer(name="custom", **{k: int(v) for k, v in c.items()})
    else:
        m = get_model(state["model"])
    if state.get("group"):
        m = m.with_(n_kv_heads=m.n_heads // state["group"])
    return m


def python_arguments(state) -> tuple:
    """(model, keyword arguments of llm_arithmetic.estimate) for a widget's state."""
    m = widget_model(state)
    kw = dict(weights=state["weights"], bits_kv=state["kv"], context=state["context"],
              batch=state["batch"], tp=state.get("tp") or 1, prompt=state.get("prompt"),
              generate=state.get("generate"), price_per_hour=state.get("price"))
    # the draft chosen, as describe takes it: --speculation mtp (the draft length and the
    # acceptance as the reader left them), --draft-cost, or --draft MODEL
    kind = state.get("speculation")
    if kind:
        kw.update(draft_len=state["draft"], acceptance=state["acceptance"])
        kw.update({"mtp": dict(speculation="mtp"), "cost": dict(draft_cost=state["draft_cost"]),
                   "draft": dict(draft=state["draft_model"])}[kind])
    # images in the prompt, as describe's --images N --image-size WxH (none: 0 or absent)
    if state.get("images"):
        kw.update(images=state["images"],
                  image_size=tuple(int(v) for v in state["image_size"].split("x")))
    # a video and audio in the prompt, as describe's --video-seconds S (the menu's 2 fps and
    # 1280 x 720 px, its defaults) and --audio-seconds S (none: 0 or absent)
    if state.get("video"):
        kw["video_seconds"] = state["video"]
    if state.get("audio"):
        kw["audio_seconds"] = state["audio"]
    if state["chip"] == "custom":
        c = state["custom_chip"]
        kw.update(bandwidth=c["bandwidth_gbps"] * 1e9, peak_flops=c["peak_tflops"] * 1e12,
                  capacity=round(c["capacity_gb"] * 1e9))
    else:
        kw["hardware"] = state["chip"]
    return m, kw


def build_date(state) -> str | None:
    """The day of the llama.cpp build a widget's state chose (None: today's build), as
    describe's --llama-cpp-build resolves it."""
    from llm_arithmetic.forecast import llama_cpp_build_date

    return llama_cpp_build_date(state["build"]) if state.get("build") else None


def python_values(state) -> dict:
    """What the widget must show for its state, from llm_arithmetic.estimate (the serving
    keys included: a replica of tp chips, a request of prompt and generate tokens)."""
    from llm_arithmetic import estimate, numeric

    from llm_arithmetic.forecast import expected

    m, kw = python_arguments(state)
    with _warnings.catch_warnings(record=True) as said:
        _warnings.simplefilter("always")
        e = estimate(m, **kw)
    d = dict(e.as_dict())
    # what Python warns of (the page shows a clip's truncation in its words)
    d["python_warnings"] = [str(w.message) for w in said]
    d.update(expected(e, m.n_layers, state.get("runtime"), build_date=build_date(state)))
    d.update({k: getattr(e, k) for k in ("critical_batch_size", "max_batch", "max_context")})
    step_flops = numeric.batched_step_flops(seq_flops=e.decode_flops_per_token, batch=e.batch)
    d.update(decode_step_flops=step_flops,
             step_intensity=float(step_flops) / float(e.decode_step_bytes),
             attained_flops=float(step_flops) / e.decode_seconds_per_token,
             compute_tokens_per_second=1 / e.decode_compute_seconds,
             bound=f"{e.bound}-bound", fits=_fit_text(e.fits, e.fits_without_draft),
             fits_per_chip=_fit_text(e.fits_per_chip, e.fits_per_chip_without_draft),
             fit_flags={"fits": e.fits, "fits_per_chip": e.fits_per_chip},
             breakdown=m.decode_bytes_breakdown(e.context, _bits(state["weights"]),
                                                _bits(state["kv"])))
    return d


def _fit_text(fits, without_draft):
    """The page's fit row: yes, no, or, where only the draft does not fit beside the target,
    that (describe's 'without the draft it fits')."""
    return "yes" if fits else "no: with the draft; yes without it" if without_draft else "no"


def _bits(fmt):
    from llm_arithmetic.catalog.formats import bits_per_weight

    return None if fmt is None else bits_per_weight(fmt)


#: Speeds and costs, and the memory check that must pass for a run to reach them (issue 28: a
#: setup that does not fit shows no speed as achievable): one chip's, or the replica's.
NEEDS = {**dict.fromkeys(("decode_seconds_per_token", "decode_tokens_per_second",
                          "throughput_tokens_per_second", "speculative_tokens_per_second",
                          "expected_decode_tokens_per_second"), "fits"),
         **dict.fromkeys(("ttft_seconds", "tpot_seconds", "request_seconds",
                          "tokens_per_second_per_user", "tokens_per_second_per_chip",
                          "cost_per_million_tokens", "energy_joules_per_token",
                          "speculative_tpot_seconds", "expected_ttft_seconds",
                          "expected_tpot_seconds", "expected_tokens_per_second_per_chip"),
                         "fits_per_chip")}

FIRST_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")


def check_widget(r: dict, where: str, words: dict[str, str] | None = None) -> list[str]:
    """The widget's numbers, text and plot markers against Python; a list of problems.
    `words`: the edition's translations of the widget's texts (the Chinese edition's
    locale/zh_CN/widgets.json), by which a word such as "memory-bound" is shown."""
    problems = []
    state = r["state"]
    if not state:
        return [f"{where}: the widget did not render (no state)"]
    want = python_values(state)
    # a note that is Python's own warning (a clip cut at its processor's limit) is no problem
    message = r["message"]
    for w in want["python_warnings"]:
        message = message.replace(w, "").strip()
    if message and "beyond" not in message:
        problems.append(f"{where}: the widget says {r['message']!r}")
    for o in r["outputs"]:
        k, w = o["key"], want.get(o["key"])
        label = f"{where} {k} (state {state})"
        if k in ("bound", "fits", "fits_per_chip"):
            w = (words or {}).get(w, w)
            if o["text"] != w:
                problems.append(f"{label}: shows {o['text']!r}, Python {w!r}")
            continue
        if w is None or (isinstance(w, float) and _math.isinf(w)):
            if o["value"] != "":
                problems.append(f"{label}: value {o['value']!r}, Python None")
            # a cache not proportional to the context: describe's sentence, the mean at the
            # context asked (or its translation, filled by the edition's translator)
            if k == "kv_cache_bytes_per_token" and want.get("kv_cache_bytes") is not None:
                from types import SimpleNamespace

                from llm_arithmetic.cli.tables import _per_token
                from llm_arithmetic.plan.stack import KV_PER_TOKEN_MEAN

                said = _per_token(SimpleNamespace(**want))
                if KV_PER_TOKEN_MEAN not in (words or {}) and o["text"] != said:
                    problems.append(f"{label}: shows {o['text']!r}, describe {said!r}")
            continue
        got = float(o["value"])
        if not abs(got - float(w)) <= 1e-9 * abs(float(w)):
            problems.append(f"{label}: value {got!r}, Python {float(w)!r}")
        # a catalog chip's int8 peak counts integer operations (TOP/s, OP/B), as the CLI says
        if k in ("peak_flops", "ops_per_byte", "attained_flops", "step_intensity") \
                and o["unit"]:
            precision = str(want.get("compute_precision"))
            ops = state["chip"] != "custom" and precision.startswith("int")
            if ("OP" in o["unit"].replace("FLOP", "")) != ops:
                problems.append(f"{label}: unit {o['unit']!r} at {precision}")
            # the step's rate and intensity mix the weights' products and attention's: where
            # one counts integer operations and the other FLOPs, the unit names both
            if k in ("attained_flops", "step_intensity") and state["chip"] != "custom":
                from llm_arithmetic.core.units import mixed_rate_unit

                unit = mixed_rate_unit(precision, want.get("attention_precision"),
                                        "FLOP/s" if k == "attained_flops" else "FLOP/B")
                if o["unit"].strip() not in (unit, "T" + unit):
                    problems.append(f"{label}: unit {o['unit']!r}, Python {unit!r}")
        # a forecast's 80% interval beside it (data-low, data-high)
        rng = want.get(k + "_range")
        if (o["low"] is None) != (rng is None) or rng is not None and not all(
                _math.isclose(float(a), b, rel_tol=1e-9) for a, b in
                zip((o["low"], o["high"]), rng)):
            problems.append(f"{label}: range ({o['low']}, {o['high']}), Python {rng}")
        # (the explorer's summary table is the notebook's summary(): its memory row says
        # whether the setup fits, its bound per step keeps its number, and its tokens/s row
        # shows describe's "- (does not fit in memory)" where the setup does not fit)
        fits = (o["summary"] and k != "decode_tokens_per_second") \
            or want["fit_flags"].get(NEEDS.get(k)) is not False
        if o["noFit"] == fits:
            problems.append(f"{label}: shows {o['text']!r} where Python's fit is {fits}")
        if not fits:
            continue
        # the number shown is the Python value rounded to the digits shown
        m = FIRST_NUMBER.search(o["text"])
        if m is None:
            problems.append(f"{label}: shows no number ({o['text']!r})")
            continue
        mant, _, exp = m.group().replace(",", "").partition("e")
        decimals = len(mant.partition(".")[2])
        half = 0.5 * 10 ** (int(exp or 0) - decimals) * o["scale"]
        if abs(float(m.group().replace(",", "")) * o["scale"] - float(w)) > \
                half * (1 + 1e-9) + 1e-9 * abs(float(w)):
            problems.append(f"{label}: shows {o['text']!r} x {o['scale']:g}, Python {w!r}")
    for p in r["points"]:
        hollow = want["fit_flags"]["fits_per_chip"] is False
        if p["view"] == "frontier" and (p["fill"] == "white") != hollow:
            problems.append(f"{where}: the frontier's selected batch is drawn with fill "
                            f"{p['fill']!r}, fits {not hollow} (hollow: it does not fit)")
        x, y = {"roofline": (want["step_intensity"], want["attained_flops"]),
                "batching": (state["batch"], None),
                "kv": (state["context"], want["kv_cache_bytes"] / 1e9),
                "frontier": (want["tokens_per_second_per_user"],
                             want["tokens_per_second_per_chip"])}[p["view"]]
        if not _math.isclose(p["x"], x, rel_tol=1e-9) or (
                y is not None and not _math.isclose(p["y"], y, rel_tol=1e-9)):
            problems.append(f"{where}: the {p['view']} plot's marker is at ({p['x']}, {p['y']}),"
                            f" Python ({x}, {y})")
    if r["bars"]:
        got = dict(r["bars"])
        for k, v in want["breakdown"].items():
            if not _math.isclose(got.get(k, -1), float(v), rel_tol=1e-9):
                problems.append(f"{where}: bar {k!r} is {got.get(k)}, Python {float(v)}")
    if "step-time" in r["curves"] and state["chip"] != "custom" and state["weights"]:
        from llm_arithmetic import sweep

        pts = r["curves"]["step-time"]
        batches = [int(b) for b, _ in pts]
        m = widget_model(state)
        s = sweep(m, hardware=state["chip"], weights=state["weights"], context=state["context"],
                  batch=batches, bits_kv=state["kv"])
        for (b, ms), t in zip(pts, s.seconds_per_token[0, 0, 0]):
            if not _math.isclose(ms, t * 1e3, rel_tol=1e-9):
                problems.append(f"{where}: the step-time curve at batch {b} is {ms} ms, "
                                f"Python's sweep {t * 1e3} ms")
                break
    if "forecast-band" in r["curves"]:
        for b, tpot, per_chip in r["curves"]["forecast-band"]:
            f = _band_forecast(state, b)
            if not all(_math.isclose(a, c, rel_tol=1e-9) for a, c in zip(
                    tpot + per_chip, f["expected_tpot_seconds_range"]
                    + f["expected_tokens_per_second_per_chip_range"])):
                problems.append(f"{where}: the forecast band at batch {b} is {tpot, per_chip}, "
                                f"Python {f['expected_tpot_seconds_range']}, "
                                f"{f['expected_tokens_per_second_per_chip_range']}")
                break
    if "frontier" in r["curves"]:
        pts = _frontier(state)
        got = r["curves"]["frontier"]  # [batch, per user, per chip, fits]
        if [g[0] for g in got] != [p["batch"] for p in pts]:
            problems.append(f"{where}: the frontier's batches are {[g[0] for g in got]}, "
                            f"Python's {[p['batch'] for p in pts]}")
        for g, p in zip(got, pts):
            if g[3] != p["fits"] or not (
                    _math.isclose(g[1], p["tokens_per_second_per_user"], rel_tol=1e-9)
                    and _math.isclose(g[2], p["tokens_per_second_per_chip"], rel_tol=1e-9)):
                keys = ("tokens_per_second_per_user", "tokens_per_second_per_chip", "fits")
                problems.append(f"{where}: the frontier at batch {g[0]} is {g[1:]}, Python "
                                f"{[p[k] for k in keys]}")
                break
    return problems


#: Python's forecast at one batch of a widget's band and its frontier, by the state without
#: its batch (which neither reads: the band's batch is its own, the frontier sweeps them) and
#: the band's batch: a check after a move that changes neither (the batch itself, or nothing
#: they read) takes them from here, as do the checks of another page with that state (the
#: serving calculator's band is ~500 forecasts a follow, a sixth of them repeated).
_FORECASTS: dict[tuple[str, int], dict] = {}
_FRONTIERS: dict[str, list] = {}


def _without_batch(state) -> str:
    return _json.dumps({**state, "batch": None}, sort_keys=True)


def _band_forecast(state, batch) -> dict:
    key = (_without_batch(state), batch)
    if key not in _FORECASTS:
        from llm_arithmetic.forecast import forecast

        m, kw = python_arguments(state)
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")
            _FORECASTS[key] = forecast(m, runtime=state.get("runtime"),
                                       build_date=build_date(state), **{**kw, "batch": batch})
    return _FORECASTS[key]


def _frontier(state) -> list:
    key = _without_batch(state)
    if key not in _FRONTIERS:
        from llm_arithmetic.sweeps import frontier

        m, kw = python_arguments(state)
        kw.pop("batch")
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")
            _FRONTIERS[key] = frontier(m, **kw)
    return _FRONTIERS[key]


@pytest.fixture(scope="module")
def widget_tab(browser):  # noqa: F811
    """One tab for a module's widget checks, going from page to page as a reader does: its
    renderer is started once, not per check (a new tab per check, as before, cost the Chinese
    edition's file about a tenth more CPU, in Chromium and in this process). Its console errors
    and uncaught exceptions are collected in page.errors."""
    page = browser.context.new_page()
    page.errors = []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(f"uncaught: {e}"))
    yield page
    page.close()


@pytest.fixture
def widget_page(widget_tab):
    """The module's tab as a new one starts: no error recorded yet, the context's viewport;
    after the test, none of the routes it set. Each check then loads its page (``goto``: a new
    document, whose scripts, storage of the page and focus start anew)."""
    page = widget_tab
    if page.viewport_size != VIEWPORT:  # (left blank first: the last page is not laid out again)
        page.goto("about:blank")
        page.set_viewport_size(VIEWPORT)
    page.errors.clear()
    yield page
    page.unroute_all()


def open_widget(page, url, name):
    page.goto(url, wait_until="load")
    return mounted_widget(page, name)


def mounted_widget(page, name):
    """The widget `name` of the page loaded in `page`, once its script has mounted it."""
    el = page.locator(f'[data-llm-widget="{name}"]').first
    el.wait_for()
    page.wait_for_function("(el) => !!el.dataset.state", arg=el.element_handle())
    return el


def moves_for(controls: set[str]) -> list[tuple]:
    """The control changes the test makes, in order (the custom ones last)."""
    moves = [("model", "keyboard"), ("model", "select", ["gpt-oss-20b", "mixtral-8x7b"]),
             ("chip", "select", ["h200", "a100-80gb-sxm"]), ("weights", "select", ["q4_0", "fp8"]),
             ("kv", "select", ["fp8", "q4_0"]), ("context-slider", "key", "ArrowRight"),
             ("context", "fill", "3000"), ("batch-slider", "key", "ArrowRight"),
             ("batch", "fill", "4096"), ("batch", "fill", "48"), ("group", "select", None), ("tp", "select", None),
             ("prompt-slider", "key", "ArrowRight"), ("prompt", "fill", "3000"),
             ("generate-slider", "key", "ArrowLeft"), ("generate", "fill", "100"),
             ("price", "fill", "3.5"), ("runtime", "select", ["llama.cpp", "exllamav2"]),
             ("build", "select", ["4423"]),
             ("speculation", "select", ["cost"]), ("draft_cost", "fill", "0.05"),
             ("draft", "select", ["4", "2"]), ("acceptance", "fill", "0.6"),
             # a draft model needs a target of its vocabulary (estimate.check_draft), which
             # gpt-oss-20b has none smaller of: Mixtral 8x7B, drafted by Mistral 7B (32,000
             # ids both), or else Llama 3 70B, by Llama 3.2 1B (128,256 both)
             ("model", "select", ["mixtral-8x7b", "llama-3-70b"]),
             ("speculation", "select", ["draft:mistral-7b", "draft:llama-3.2-1b"]),
             ("runtime", "select", [""]),
             ("chip", "custom", {"bandwidth_gbps": "800", "peak_tflops": "90",
                                 "capacity_gb": "48"}),
             ("model", "custom", {"n_layers": "30", "d_model": "3000", "n_heads": "24",
                                  "n_kv_heads": "6", "d_head": "125", "d_ff": "9000",
                                  "n_vocab": "50000", "n_experts": "4",
                                  "n_active_experts": "2"})]
    return [m for m in moves if m[0] in controls]


WIDGET_IDS = [f"{p.split('/')[-1]}:{n}" for p, n in WIDGET_PAGES]

MODULE_CHECK = """async () => {
  const mod = await import(new URL('../_static/llm-arithmetic/formulas.js', location).href);
  const bundled = window.LLMArithmetic.formulas;
  const names = Object.keys(mod.FORMULAS);
  const diff = [];
  for (const name of names) {
    const args = Object.fromEntries(mod.FORMULAS[name].params.map((p, i) => [p, 3 + i]));
    const a = mod[name](args), b = bundled[name](args);
    if (!(a === b || (Number.isNaN(a) && Number.isNaN(b)))) diff.push([name, a, b]);
  }
  return {n: names.length, diff};
}"""


def move_control(page, el, move):
    ctl = el.locator(f'[data-control="{move[0]}"]')
    if move[1] == "keyboard":
        ctl.focus()
        page.keyboard.press("ArrowDown")
    elif move[1] == "select":
        # the first candidate offered (or else the first option) that differs from the current
        offered = ctl.evaluate("(s) => [...s.options].map((o) => o.value)")
        current = ctl.input_value()
        opts = [v for v in move[2] or () if v in offered and v != current] or offered
        ctl.select_option(next(v for v in opts if v != current))
    elif move[1] == "key":
        ctl.focus()
        page.keyboard.press(move[2])
    elif move[1] == "fill":
        ctl.fill(move[2])
    elif move[1] == "custom":
        ctl.select_option("custom")
        box = el.locator(f'[data-custom="{move[0]}"]')
        assert box.is_visible(), f"the custom {move[0]} fields did not appear"
        # the first field typed, the others set in one go (each sends an input event)
        (first, v0), *rest = move[2].items()
        box.locator(f'[data-field="{first}"]').fill(v0)
        box.evaluate("""(box, values) => { for (const [k, v] of values) {
            const inp = box.querySelector(`[data-field="${k}"]`);
            inp.value = v; inp.dispatchEvent(new Event('input', {bubbles: true})); } }""", rest)


def follow_controls(page_path: str, name: str, site: str, page, words: dict | None = None,
                    loaded: bool = False):
    """The calculator `name` on its page, served over HTTP: the starting numbers, then each
    control moved in turn, against Python; the ES module formulas.js imports and equals the
    page's script; the explorer's table is the Python explorer's. On any edition's page
    (`words`: check_widget's); `loaded`: the page is already loaded in `page` (nothing clicked
    or typed there yet). The English pages' test_widget_follows_its_controls runs it in
    tests/test_browser.py's load of each page (and tests/test_browser_pages_second.py's), the
    Chinese ones in tests/test_browser_chinese.py's; `page.errors`: the page's JavaScript
    errors."""
    el = (mounted_widget(page, name) if loaded
          else open_widget(page, urljoin(site, page_path), name))
    read = lambda: el.evaluate(READ_WIDGET)  # noqa: E731
    r = read()
    problems = check_widget(r, f"{page_path} {name} (start)", words)
    module = page.evaluate(MODULE_CHECK)
    assert module["n"] >= 60 and not module["diff"], module
    if name == "explorer":
        problems += explorer_agrees(el, r)
    controls = set(el.evaluate(
        "(el) => [...el.querySelectorAll('[data-control]')].map((c) => c.dataset.control)"))
    moved = []
    for move in moves_for(controls):
        before = r["state"]
        move_control(page, el, move)
        r = read()
        key = move[0].removesuffix("-slider")
        changed = {k for k in r["state"] if r["state"][k] != before.get(k)}
        if key not in changed and not (move[1] == "custom" and f"custom_{key}" in changed):
            problems.append(f"{name}: {move} did not change the state's {key}")
        moved.append(move[:2])
        problems += check_widget(r, f"{page_path} {name} after {move[:2]}", words)
    problems += [f"JavaScript error: {e}" for e in page.errors]
    assert not problems, "\n".join(problems[:15])
    assert len(moved) >= 4, moved


# test_browser's server, browser and viewport (its fixtures, shared). Imported here, below
# WIDGET_PAGES and follow_controls, because test_browser's last lines import those two from this
# module: at the top, this file or test_widgets.py run alone (this module imported first) stopped
# on an ImportError of the half-initialized module.
from test_browser import VIEWPORT, browser, site  # noqa: E402, F401


@pytest.mark.parametrize("page_path,name", WIDGET_PAGES, ids=WIDGET_IDS)
def test_widget_from_disk_at_390px_by_keyboard(page_path, name, book_html, widget_page):
    """Opened as a file (file://, no server; Chromium would refuse an ES module there) on a
    390 px wide screen: the numbers are Python's, nothing is wider than the widget, Tab reaches
    every control in order and the arrow keys move a slider."""
    page = widget_page
    page.set_viewport_size({"width": 390, "height": 844})
    el = open_widget(page, (book_html / page_path).as_uri(), name)
    problems = check_widget(el.evaluate(READ_WIDGET), f"file://{page_path} {name}")
    fit = el.evaluate("""(el) => {
      const box = el.getBoundingClientRect();
      const wide = [...el.querySelectorAll('*')].filter((n) => {
        const r = n.getBoundingClientRect();
        return r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1);
      }).map((n) => n.tagName + '.' + n.getAttribute('class'));
      return {width: box.width, scroll: el.scrollWidth, client: el.clientWidth, wide,
              page: document.documentElement.clientWidth};
    }""")
    if not (fit["width"] <= fit["page"] and fit["scroll"] <= fit["client"] + 1):
        problems.append(f"wider than a 390 px screen: {fit}")
    if fit["wide"]:
        problems.append(f"elements wider than the widget at 390 px: {fit['wide'][:5]}")
    controls = el.evaluate("""(el) => [...el.querySelectorAll('select, input')]
      .filter((c) => c.offsetParent !== null)
      .map((c) => c.dataset.control || c.dataset.field)""")
    el.locator("select, input").first.focus()
    reached = []
    for _ in range(len(controls)):
        reached.append(page.evaluate("() => document.activeElement.dataset.control"
                                     " || document.activeElement.dataset.field"))
        page.keyboard.press("Tab")
    if reached != controls:
        problems.append(f"Tab reaches {reached}, not every control in order {controls}")
    if "context-slider" in controls:
        before = el.evaluate("(el) => JSON.parse(el.dataset.state).context")
        el.locator('[data-control="context-slider"]').focus()
        page.keyboard.press("ArrowRight")
        r = el.evaluate(READ_WIDGET)
        if not r["state"]["context"] > before:
            problems.append("ArrowRight on the context slider did not raise the context")
        problems += check_widget(r, f"file://{page_path} {name} after ArrowRight")
    problems += [f"JavaScript error: {e}" for e in page.errors]
    assert not problems, "\n".join(problems[:15])


def _markdown_table(text: str) -> dict[str, str]:
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] and not set(cells[0]) <= set("-"):
            clean = lambda s: re.sub(r"\*\*|`", "", s)  # noqa: E731
            rows[clean(cells[0])] = clean(cells[1])
    return rows


def explorer_agrees(el, r) -> list[str]:
    """The in-page explorer starts from the notebook's DEFAULTS and shows, row for row, the
    table the notebook's Python explorer (explore -> summary, tbl-explorer-default) stored
    for them."""
    import ast

    nb = _json.loads((REPO / "notebooks" / "lab-explorer.ipynb").read_text(encoding="utf8"))
    defaults, table = None, None
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        if "DEFAULTS = dict(" in src:
            for node in ast.walk(ast.parse(src)):
                if isinstance(node, ast.Assign) and \
                        getattr(node.targets[0], "id", "") == "DEFAULTS":
                    defaults = {k.arg: ast.literal_eval(k.value) for k in node.value.keywords}
        for out in cell.get("outputs", []):  # the table of explore(**DEFAULTS)
            md = "".join(out.get("data", {}).get("text/markdown", ""))
            if ":name: tbl-explorer-default" in md:
                table = _markdown_table(md)
    if not (defaults and table):
        return ["the explorer notebook has no DEFAULTS or no stored table"]
    state = r["state"]
    problems = []
    mine = (state["model"], state["chip"], state["weights"], state["kv"], state["context"],
            state["batch"])
    theirs = (defaults["model"], defaults["chip"], defaults["weights"], defaults["bits_kv"],
              defaults["context"], defaults["batch"])
    if mine != theirs:
        problems.append(f"the explorer widget starts at {mine}, the notebook at {theirs}")
    rows = el.evaluate("""(el) => Object.fromEntries([...el.querySelectorAll('tr[data-row]')]
      .map((tr) => [tr.dataset.row, tr.querySelector('td').textContent]))""")
    shared = sorted(set(rows) & set(table))
    if len(shared) < 10:
        problems.append(f"the two explorers share too few rows: {shared}")
    problems += [f"explorer row {k!r}: widget {rows[k]!r}, notebook {table[k]!r}"
                 for k in shared if rows[k] != table[k]]
    return problems


CAVEAT_PAGE = "notebooks/12-serving.html"
READ_CAVEAT = """(el) => { const c = el.querySelector('[data-caveat]');
  return c ? {hidden: c.hidden, text: c.textContent} : null; }"""


@pytest.mark.parametrize("edition", ["", "zh_CN/"])
def test_the_forecast_says_what_it_borrows(edition, site, widget_page):
    """Under its forecast, the serving calculator prints the caveat describe prints
    (forecast.forecast_caveat, from the same templates) where the runtime chosen has no
    measured rows on the chip's class (mlx-lm on an H100), and none where it has (llama.cpp);
    in the Chinese edition, in the template's translation (book/calculator.po)."""
    from llm_arithmetic import forecast as F
    from llm_arithmetic.forecast_fit import load_params
    from tools.sphinx_widgets import labels, template_labels

    page = widget_page
    el = open_widget(page, urljoin(site, edition + CAVEAT_PAGE), "serving")
    assert el.evaluate("(el) => JSON.parse(el.dataset.state).chip") == "h100-sxm"
    runtime = el.locator('[data-control="runtime"]')
    p = load_params()
    text, pooled = F.forecast_caveat(p, "datacenter-gpu", "mlx-lm", prefill=True)
    assert text and pooled
    if edition:
        # the Chinese templates (book/calculator.po), their words from widgets.json
        zh, words = template_labels("zh_CN"), labels("zh_CN")
        t = F.CAVEAT_TEMPLATES
        assert t["pooled"] in zh and t["on_class"] in zh and pooled == {"decode": [
            "k", "lambda_s_per_layer"]}
        text = zh[t["pooled"]].format(runtime="mlx-lm", fits=words["decode"],
                                      terms="k_rt, lambda_rt", where=zh[t["on_class"]].format(
                                          label=words["datacenter GPU"]))
        assert text == ("mlx-lm 在 数据中心 GPU 上没有实测的 解码 数据行："
                        "预测借用合并的 k_rt, lambda_rt")
    runtime.select_option("mlx-lm")
    page.wait_for_function("(el) => JSON.parse(el.dataset.state).runtime === 'mlx-lm'",
                           arg=el.element_handle())
    page.wait_for_timeout(100)  # the translator's redraw
    got = el.evaluate(READ_CAVEAT)
    assert got == {"hidden": False, "text": text}, got
    runtime.select_option("llama.cpp")
    assert F.forecast_caveat(p, "datacenter-gpu", "llama.cpp", prefill=True)[0] is None
    got = el.evaluate(READ_CAVEAT)
    assert got["hidden"] and got["text"] == "", got
    assert not page.errors, page.errors
