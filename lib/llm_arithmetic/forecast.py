r"""The forecast served: the speed a runtime can be expected to reach under the bound, with its
80% interval, for a model on a chip, from the stored fit.

A decode step's forecast time over its bound :math:`t_{bound}` (the registered formula
:func:`~llm_arithmetic.formulas.serving.forecast_step_time`),

.. math::

    t_{forecast} = t_{bound}\,(1 + k) + \delta\,t_{16} + \tau + \lambda\,L,

takes the terms and the 80% interval of ratios that :mod:`llm_arithmetic.forecast_fit` fitted on
the measured rows and stored (``lab/data/forecast_decode.json``: which terms there are, how they
were fitted and chosen, how the intervals were made). This module answers a question with them:
the runtime's name as the user spells it (:func:`resolve_runtime`; none: the runtime-agnostic
fit, with its wider interval), a llama.cpp build asked for by its day or number, whose age pays
the build drift (:func:`build_age_years`, :func:`llama_cpp_build_date`), the chip class of a
catalogued chip (:data:`CHIP_CLASSES`), the caveat where a forecast borrows pooled terms or a
chip is of a kind no row measured (:func:`forecast_caveat`); then the forecast keys of an
estimate (:func:`expected`: decode, time to first token by the prefill fit, time per output
token, tokens per chip, each with its interval, the upper end capped at the bound), a decode
forecast alone (:func:`forecast_decode`), the estimate's keys with them (:func:`forecast`, what
``describe --json --runtime NAME`` prints) and what the book's calculators need
(:func:`forecast_inputs`, :func:`forecast_catalog`, :func:`caveat_catalog`).

>>> f = forecast_decode("llama-3-8b", hardware="rtx-4090", weights="q4_k_m", context=256,
...                     runtime="llama.cpp")
>>> f.expected_tokens_per_second < f.bound_tokens_per_second
True
>>> lo, hi = f.expected_tokens_per_second_range
>>> lo < f.expected_tokens_per_second <= hi <= f.bound_tokens_per_second
True
"""
from __future__ import annotations

import functools
import math
import re
from typing import Any

from . import numeric as N
from .catalog.hardware import CLASS_OF_KIND, class_label, get_hardware
from .catalog.model_catalog import get_model
from .core.errors import InputError
from .core.records import record
from .estimate import estimate
from .forecast_fit import (INT8, NO_CUDA_GRAPHS, data_state, drift_terms_for,
                           estimate_dequant_seconds, has_drift, has_own_terms, interval_for,
                           load_params, pooled_terms, predict_seconds, terms_for)

__all__ = ["CHIP_CLASSES", "llama_cpp_build_date", "build_age_years", "oldest_build_day",
           "unmeasured_kinds", "CAVEAT_TEMPLATES", "caveat_catalog", "forecast_caveat",
           "chip_caveat", "known_runtimes", "resolve_runtime", "DecodeForecast",
           "forecast_decode", "EXPECTED_KEYS", "SPECULATIVE_BOUND_KEYS", "chip_class_of",
           "prefill_fit_for", "prefill_runtime_for", "forecast_inputs", "PAGE_BUILDS",
           "forecast_catalog", "expected", "forecast"]

#: Chip classes of the forecast, and the hardware catalog's kinds they come from: chapter 17's
#: calibration classes (:data:`~llm_arithmetic.catalog.hardware.CLASS_OF_KIND`; an
#: accelerator, TPU, Trainium or Gaudi, with HBM and a datacenter's runtimes, is a datacenter
#: GPU), but for a system on a chip (DGX Spark, Jetson, Ryzen AI Max), which the forecast treats
#: as a consumer GPU: its GPU runs the same CUDA, ROCm or Vulkan kernels of the same runtimes
#: from LPDDR memory, without HBM (decided before any SoC row was compared with a forecast);
#: the calibration classes put it with Apple's unified memory.
CHIP_CLASSES = {**CLASS_OF_KIND, "soc": "consumer-gpu"}


def llama_cpp_build_date(build: Any) -> str:
    """The day (ISO) of a llama.cpp build number the data date
    (:data:`~llm_arithmetic.lab.measurements.LLAMA_CPP_BUILD_DATES`), for a user who knows the
    build (``llama-cli --version`` prints it) rather than its day. A build the data do not date,
    or one dated only by the page that used it later than a higher build's day (build 1026,
    dated by its December 2023 table though it predates build 1300 of 2 October 2023), is an
    :class:`InputError`: give the day (the release page ``github.com/ggml-org/llama.cpp/
    releases/tag/b<N>`` states it).

    >>> llama_cpp_build_date(2824), llama_cpp_build_date("b4423")
    ('2024-05-09', '2025-01-02')
    """
    from .lab.measurements import LLAMA_CPP_BUILD_DATES as DATES

    text = str(build).strip()
    n = int(text.lstrip("bB")) if re.fullmatch(r"[bB]?\d{1,7}", text) else None
    if n is None:
        raise InputError(f"llama.cpp build {text[:40]!r}: a build number (2824 or b2824)")
    day = DATES.get(n)
    if day is None or any(d < day for b, d in DATES.items() if b > n):
        known = ", ".join(str(b) for b in sorted(DATES)
                          if not any(d < DATES[b] for c, d in DATES.items() if c > b))
        raise InputError(f"llama.cpp build {n}: its day is not in the data (known: {known}); "
                         f"give its day instead (github.com/ggml-org/llama.cpp/releases/tag/b{n})")
    return day


def build_age_years(build_date: Any, runtime: str | None, params: dict[str, Any] | None = None,
                    name: str = "build_date", hardware: Any = None) -> float:
    """The age [year] of a llama.cpp build of day ``build_date`` (ISO ``YYYY-MM-DD`` or a
    :class:`datetime.date`) before the fit's reference day
    (:data:`~llm_arithmetic.lab.measurements.LLAMA_CPP_REFERENCE_DATE`, the newest llama.cpp fit
    row's): days / 365.25, 0 for a build of that day or later (today's build: no drift) and for
    None. A build date for a runtime without a build drift
    (:func:`~llm_arithmetic.forecast_fit.has_drift`: any runtime but ``llama.cpp``, or none
    named) is an :class:`InputError` naming ``name`` (the keyword, or the
    command line's option), and so is a day before the oldest llama.cpp build the data date
    (:func:`oldest_build_day`): the drift is fitted on builds from that day on, and a line
    drawn back past it would reach years before llama.cpp existed. With ``hardware`` an NVIDIA
    GPU, a build before CUDA graphs
    (:data:`~llm_arithmetic.lab.measurements.CUDA_GRAPHS_FIRST_DATE`) is refused too: its runs
    are the runtime ``llama.cpp@no-cuda-graphs``, whose terms were fitted on such builds.

    >>> round(build_age_years("2025-01-29", "llama.cpp"), 3), build_age_years(None, "vLLM")
    (1.495, 0.0)
    >>> build_age_years("2027-01-01", "llama.cpp")
    0.0
    >>> build_age_years("1999-01-01", "llama.cpp")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: build_date: 1999-01-01 is before the oldest llama.cpp build the data date, of 2023-10-02: the build drift is not known there
    """
    if build_date is None:
        return 0.0
    from datetime import date

    from .lab.measurements import LLAMA_CPP_REFERENCE_DATE, age_years_of

    p = params or load_params()
    if not has_drift(p, runtime):
        which = f"the runtime {runtime!r}" if runtime else "a forecast with no runtime named"
        raise InputError(f"{name}: only llama.cpp's forecast has a build drift, {which} has "
                         "none; name the runtime llama.cpp or leave the build out")
    if isinstance(build_date, date):
        day = build_date.strftime("%Y-%m-%d")
    else:
        day = str(build_date).strip()
        try:
            day = date.fromisoformat(day).isoformat() if re.fullmatch(
                r"\d{4}-\d{2}-\d{2}", day) else None
        except ValueError:
            day = None
        if day is None:
            raise InputError(f"{name}: {str(build_date)[:40]!r} is not a day YYYY-MM-DD "
                             f"(a build of {LLAMA_CPP_REFERENCE_DATE} or later has no drift)")
    oldest = oldest_build_day()
    if day < oldest:  # ISO days order as strings
        raise InputError(f"{name}: {day} is before the oldest llama.cpp build the data date, "
                         f"of {oldest}: the build drift is not known there")
    from .lab.measurements import CUDA_GRAPHS_FIRST_DATE

    if hardware is not None and day < CUDA_GRAPHS_FIRST_DATE \
            and get_hardware(hardware).vendor == "NVIDIA":
        raise InputError(f"{name}: a llama.cpp CUDA build of {day} ran without CUDA graphs "
                         f"(they came on {CUDA_GRAPHS_FIRST_DATE}): ask for the runtime "
                         f"{NO_CUDA_GRAPHS} instead, whose terms were fitted on such builds")
    return age_years_of(day)


@functools.lru_cache(maxsize=1)
def oldest_build_day() -> str:
    """The day (ISO) of the oldest llama.cpp build among the data's rows
    (:func:`~llm_arithmetic.lab.measurements.llama_cpp_date`: by build number, by a stated
    date, else by source): the oldest build whose age the drift was fitted or checked on;
    :func:`build_age_years` refuses an older day.

    >>> oldest_build_day()
    '2023-10-02'
    """
    from .lab.measurements import all_rows, llama_cpp_date

    return min(d for d in map(llama_cpp_date, all_rows()) if d)


#: The terms as the caveat and ``--explain`` name them (the forecast equation's symbols).
_TERM_SYMBOLS = {"k": "k_rt", "delta": "delta", "tau_s": "t_rt", "lambda_s_per_layer": "lambda_rt"}


#: :func:`unmeasured_kinds` by the data files' state.
_UNMEASURED: dict[tuple[tuple[int, int], ...], tuple[str, ...]] = {}


def unmeasured_kinds() -> tuple[str, ...]:
    """The kinds of the hardware catalog's chips that no measured row is of, counted from the
    data (every row of ``runtime_measurements.csv`` and ``calibration_measurements.csv``, any
    split): a row is of its catalogued chip's kind, and of its device class where that is a
    kind too (``cpu``, ``consumer-gpu``, ``datacenter-gpu``: a run on a machine the catalog does
    not hold, or on the CPU cores of an Apple chip). A forecast for a chip of such a kind
    borrows the terms of the class :data:`CHIP_CLASSES` gives it, and says so
    (:func:`forecast_caveat`). Read again when a data file changes.

    >>> unmeasured_kinds()
    ('accelerator', 'sbc')
    """
    state = data_state()
    if state not in _UNMEASURED:
        _scan_kinds(state)
    return _UNMEASURED[state]


def _kind_unmeasured(kind: str) -> bool:
    """``kind in unmeasured_kinds()``, the data read only as far as its first row of that kind
    (``describe`` asks this of one chip once a run: a chip of a measured kind stops within the
    first rows, not after the megabyte of the runtime measurements).

    >>> _kind_unmeasured("accelerator"), _kind_unmeasured("consumer-gpu")
    (True, False)
    """
    state = data_state()
    if state in _UNMEASURED:
        return kind in _UNMEASURED[state]
    return _scan_kinds(state, kind)


def _scan_kinds(state: tuple[tuple[int, int], ...], stop: str | None = None) -> bool:
    """Read the rows' kinds (:func:`unmeasured_kinds`) and keep the catalog's kinds no row is
    of for ``state``; with ``stop``, return False at the first row of that kind (keeping
    nothing). True when every row was read."""
    import csv

    from .catalog.hardware import device_kinds
    from .lab import CALIBRATION_CSV_FILE, RUNTIME_CSV_FILE

    kind_of = device_kinds()
    kinds = set(kind_of.values())
    if stop is not None and stop not in kinds:
        return False
    measured: set[str] = set()
    for path in (CALIBRATION_CSV_FILE, RUNTIME_CSV_FILE):
        # two columns of each file, read as text (describe asks this once per run: building
        # every row's record would cost it more than the rest of a forecast)
        with open(path, encoding="utf8", newline="") as fh:
            rows = csv.reader(fh)
            head = next(rows)
            key, cls = head.index("hardware_key"), head.index("device_class")
            for r in rows:
                if not r:   # a blank line, as csv.DictReader skips it
                    continue
                if r[key]:
                    measured.add(kind_of[r[key]])
                if r[cls] in kinds:
                    measured.add(r[cls])
                if stop in measured:
                    return False
    _UNMEASURED.clear()
    _UNMEASURED[state] = tuple(sorted(kinds - measured))
    return True


#: The caveat's sentences, filled by :func:`forecast_caveat` (``str.format`` fields) and by the
#: page's calculators (exported with the catalog by :func:`caveat_catalog`; the appendix page
#: prints them, so the translated editions translate them in ``book/calculator.po``): a runtime
#: whose per-class terms are pooled (``where``: ``on_class`` or ``no_class``), and a chip of a
#: kind no row measured.
CAVEAT_TEMPLATES = {
    "pooled": "{runtime} has no measured {fits} rows {where}: the forecast borrows the pooled "
              "{terms}",
    "on_class": "on {label} chips",
    "no_class": "without a known chip class",
    "unmeasured": "no measured row is on a chip of this kind ({kind}): the forecast borrows "
                  "the {label} terms",
}


def _pooled_by_fit(params: dict[str, Any], chip_class: str, runtime: str | None,
                   prefill: bool, decode: bool = True) -> dict[str, list[str]]:
    """:func:`~llm_arithmetic.forecast_fit.pooled_terms` by fit: ``decode`` (the named decode
    fit; empty where ``decode`` is false) and, with ``prefill``, ``prefill`` where the named
    prefill fit knows the runtime."""
    out = {"decode": pooled_terms(params["by_runtime"], chip_class, runtime) if decode else []}
    if prefill:
        name, rt = prefill_fit_for(params, runtime)
        if rt is not None:
            out["prefill"] = pooled_terms(params[name], chip_class, rt)
    return out


def _class_keys() -> list[str]:
    """The chip classes the page's catalogs are keyed by: each of :data:`CHIP_CLASSES`'s, then
    ``"*"`` (another kind, or no chip)."""
    return sorted(set(CHIP_CLASSES.values())) + ["*"]


def caveat_catalog(params: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the page's calculators need to print :func:`forecast_caveat`'s text (exported with
    the catalog, :func:`forecast_catalog`): the templates (:data:`CAVEAT_TEMPLATES`), each chip
    class's label, the terms' symbols, the kinds no row measured (:func:`unmeasured_kinds`) and,
    for every chip class and known runtime, the pooled terms by fit (``decode``, and
    ``prefill`` where the named prefill fit knows the runtime; an empty list where nothing is
    pooled): the page drops ``prefill`` where it forecasts no time to first token.

    >>> c = caveat_catalog()
    >>> c["pooled"]["datacenter-gpu"]["mlx-lm"]["decode"], c["pooled"]["apple"]["mlx-lm"]["decode"]
    (['k', 'lambda_s_per_layer'], [])
    """
    p = params or load_params()
    classes = _class_keys()
    pooled = {c: {rt: _pooled_by_fit(p, c, rt, prefill=True) for rt in known_runtimes(p)}
              for c in classes}
    return {"templates": dict(CAVEAT_TEMPLATES), "unmeasured_kinds": list(unmeasured_kinds()),
            "labels": {c: class_label(c) for c in classes if c != "*"},
            "symbols": dict(_TERM_SYMBOLS), "pooled": pooled}


def forecast_caveat(params: dict[str, Any], chip_class: str, runtime: str | None,
                    prefill: bool = False, kind: str | None = None, decode: bool = True
                    ) -> tuple[str | None, dict[str, list[str]]]:
    """(the caveat's text, its terms by fit) for a forecast of ``runtime`` on ``chip_class``:
    the decode fit's :func:`~llm_arithmetic.forecast_fit.pooled_terms` (``decode``) and, with
    ``prefill`` (a time to first token is forecast), the named prefill fit's where it knows the
    runtime; and, for a chip of a ``kind`` no row measured (:func:`unmeasured_kinds`), that its
    class's terms are borrowed. (None, {}) when there is nothing to say.

    >>> forecast_caveat(load_params(), "datacenter-gpu", "mlx-lm")[0]
    'mlx-lm has no measured decode rows on datacenter GPU chips: the forecast borrows the pooled k_rt, lambda_rt'
    >>> forecast_caveat(load_params(), "datacenter-gpu", "llama.cpp", kind="accelerator")[0]
    'no measured row is on a chip of this kind (accelerator): the forecast borrows the datacenter GPU terms'
    >>> forecast_caveat(load_params(), "cpu", None, kind="sbc")[0]
    'no measured row is on a chip of this kind (sbc): the forecast borrows the CPU terms'
    """
    pooled = {k: v for k, v in _pooled_by_fit(params, chip_class, runtime, prefill, decode).items()
              if v}
    t = CAVEAT_TEMPLATES
    out = []
    if pooled:
        where = t["no_class"] if chip_class == "*" else \
            t["on_class"].format(label=class_label(chip_class))
        terms = ", ".join(dict.fromkeys(_TERM_SYMBOLS[x] for v in pooled.values() for x in v))
        out.append(t["pooled"].format(runtime=runtime, fits=" or ".join(pooled), where=where,
                                      terms=terms))
    if kind is not None and _kind_unmeasured(kind):
        out.append(t["unmeasured"].format(kind=kind, label=class_label(chip_class)))
    return ("; ".join(out) or None), pooled


def chip_caveat(params: dict[str, Any], hardware: Any, runtime: str | None,
                prefill: bool = False, decode: bool = True
                ) -> tuple[str | None, dict[str, list[str]]]:
    """:func:`forecast_caveat` for a forecast on ``hardware`` (a catalogued chip or its name;
    None: no chip), with the chip's class (:func:`chip_class_of`) and kind.

    >>> chip_caveat(load_params(), "h100-sxm", "mlx-lm")[0]
    'mlx-lm has no measured decode rows on datacenter GPU chips: the forecast borrows the pooled k_rt, lambda_rt'
    """
    return forecast_caveat(params, chip_class_of(hardware), runtime, prefill=prefill,
                           kind=get_hardware(hardware).kind if hardware else None, decode=decode)


def known_runtimes(params: dict[str, Any] | None = None) -> list[str]:
    """Runtimes with their own terms in the stored fit."""
    p = params or load_params()
    return sorted(k for k in p["by_runtime"].get("runtimes", p["by_runtime"]["tau_s"])
                  if k != "*")


def _runtime_key(name: str) -> str:
    return re.sub(r"[^a-z0-9@]", "", name.lower())


def resolve_runtime(runtime: str | None, params: dict[str, Any] | None = None) -> str | None:
    """The stored fit's name of ``runtime``: the name itself, or the one known runtime that it
    spells up to case, spaces and punctuation (``vllm`` is ``vLLM``, ``mlc-llm`` is ``MLC
    LLM``); None stays None (the runtime-agnostic forecast). Anything else is an
    :class:`InputError` that lists the known names.

    >>> resolve_runtime("vllm"), resolve_runtime("llama.cpp"), resolve_runtime(None)
    ('vLLM', 'llama.cpp', None)
    >>> resolve_runtime("tensorrt-llm")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: unknown runtime 'tensorrt-llm' (TensorRT-LLM: the data measure its ...
    >>> resolve_runtime("mlx")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: unknown runtime 'mlx' (did you mean Rapid-MLX, mlx-lm or vllm-mlx?); known: ...
    """
    if runtime is None:
        return None
    known = known_runtimes(params)
    if runtime in known:
        return runtime
    asked = _runtime_key(str(runtime))
    matches = [k for k in known if _runtime_key(k) == asked]
    if len(matches) != 1:
        near = [k for k in known if asked and asked in _runtime_key(k)]
        alts = ", ".join(near[:-1]) + (" or " if len(near) > 1 else "") + (near[-1] if near else "")
        hint = f" (did you mean {alts}?)" if near else _measured_elsewhere(asked)
        raise InputError(f"unknown runtime {str(runtime)[:60]!r}{hint}; known: {', '.join(known)}")
    return matches[0]


def _measured_elsewhere(asked: str) -> str:
    """For a runtime the data measure only at other metrics or batches (TensorRT-LLM: prefill and
    batched throughput), why it has no terms of its own; else ''."""
    from .lab import measurements as M

    rows = [r for r in M.fit_rows() if _runtime_key(r.runtime) == asked]
    if not rows:
        return ""
    words = {"throughput": "batched throughput", "ttft": "time to first token",
             "prefill": "prefill", "decode": "decode on several chips or at a batch"}
    metrics = " and ".join(sorted(words[m] for m in {r.metric for r in rows}))
    return (f" ({rows[0].runtime}: the data measure its {metrics}, no single-stream decode, so"
            " it has no terms of its own; leave --runtime out for the runtime-agnostic forecast)")


@record
class DecodeForecast:
    """A bound and the forecast under it [token/s]; ``runtime`` None: runtime-agnostic."""

    bound_tokens_per_second: float
    expected_tokens_per_second: float
    expected_tokens_per_second_range: tuple[float, float]
    runtime: str | None
    chip_class: str


def forecast_decode(model: str, *, hardware: str | None = None, bandwidth: float | None = None,
                    chip_class: str | None = None, runtime: str | None = None,
                    weights: str | None = None, bits_weight: Any = None, bits_kv: Any = 16,
                    context: int = 1, params: dict[str, Any] | None = None,
                    build_date: Any = None) -> DecodeForecast:
    """Expected single-stream decode speed of ``model`` on a chip, with its 80% interval.

    ``hardware`` (catalog name) gives the bandwidth and the chip class; or give ``bandwidth``
    [B/s] and ``chip_class`` (one of ``apple``, ``consumer-gpu``, ``datacenter-gpu``, ``cpu``).
    ``runtime`` must be one of :func:`known_runtimes`; None gives the runtime-agnostic forecast.
    ``build_date``: the day of the llama.cpp build (None: today's; :func:`expected`).
    """
    p = params or load_params()
    runtime = resolve_runtime(runtime, p)
    age = build_age_years(build_date, runtime, p, hardware=hardware)
    if hardware is not None:
        chip = get_hardware(hardware)
        chip_class = chip_class or CHIP_CLASSES.get(chip.kind, "datacenter-gpu")
    elif chip_class is None:
        raise InputError("chip_class: give a hardware name or a chip class with the bandwidth")
    if not isinstance(chip_class, str) or chip_class not in set(CHIP_CLASSES.values()):
        known = sorted(set(CHIP_CLASSES.values()))
        raise InputError(f"chip_class {chip_class!r:.40} is not one of {known}")
    e = estimate(model, hardware=hardware, bandwidth=bandwidth, weights=weights,
                 bits_weight=bits_weight, bits_kv=bits_kv, context=context, batch=1)
    if e.decode_memory_seconds is None:
        raise InputError("bandwidth: a forecast needs a chip or a bandwidth")
    t_bound = float(e.decode_memory_seconds)
    model_ = p["by_runtime"] if runtime is not None else p["agnostic"]
    n_layers = get_model(model).n_layers if isinstance(model, str) else model.n_layers
    d = drift_terms_for(model_, chip_class, runtime)
    t = predict_seconds(model_, t_bound, chip_class, runtime or "*", n_layers,
                        estimate_dequant_seconds(e), (d["mu"] * n_layers + d["nu"]) * age)
    lo_q, hi_q = interval_for(p, "by_runtime" if runtime is not None else "agnostic",
                              chip_class, runtime)
    bound = 1.0 / t_bound
    speed = 1.0 / t
    return DecodeForecast(bound, speed, (speed * lo_q, min(bound, speed * hi_q)), runtime,
                          chip_class)


#: The forecast's keys (each with a ``_range`` key beside it): the bound key each one sits under.
EXPECTED_KEYS = {"expected_decode_tokens_per_second": "decode_tokens_per_second",
                 "expected_ttft_seconds": "ttft_seconds",
                 "expected_tpot_seconds": "tpot_seconds",
                 "expected_tokens_per_second_per_chip": "tokens_per_second_per_chip"}


#: With speculative decoding, the bound key each forecast key sits under instead.
SPECULATIVE_BOUND_KEYS = {"expected_decode_tokens_per_second": "speculative_tokens_per_second",
                          "expected_ttft_seconds": "ttft_seconds",
                          "expected_tpot_seconds": "speculative_tpot_seconds",
                          "expected_tokens_per_second_per_chip":
                              "speculative_tokens_per_second_per_chip"}


def chip_class_of(hardware: Any) -> str:
    """The forecast's chip class of a catalogued chip, ``"*"`` (pooled) for none or another
    kind."""
    if hardware is None:
        return "*"
    return CHIP_CLASSES.get(get_hardware(hardware).kind, "*")


def prefill_fit_for(params: dict[str, Any], runtime: str | None) -> tuple[str, str | None]:
    """(the prefill fit's name, the runtime it knows) for a runtime: its own prefill terms where
    the prefill rows had it, else the runtime-agnostic prefill fit."""
    if runtime is not None and has_own_terms(params["prefill_by_runtime"], runtime):
        return "prefill_by_runtime", runtime
    return "prefill_agnostic", None


def prefill_runtime_for(params: dict[str, Any], runtime: str | None,
                        precision: str | None) -> str | None:
    """The prefill fit's runtime key for a prefill whose bound took ``precision``: the
    runtime's int8-bound terms (``<runtime>@int8``, a structure's ``kernels``) where the bound
    took the int8 rate and the named prefill fit has them, else the runtime itself.

    >>> p = load_params()
    >>> prefill_runtime_for(p, "llama.cpp", "int8"), prefill_runtime_for(p, "llama.cpp", "fp16")
    ('llama.cpp@int8', 'llama.cpp')
    """
    if (runtime is not None and precision == "int8"
            and has_own_terms(params["prefill_by_runtime"], runtime + INT8)):
        return runtime + INT8
    return runtime


def _time_forecast(params: dict[str, Any], name: str, t_bound: float | None, chip_class: str,
                   runtime: str | None, n_layers: int,
                   t_dequant: float = 0.0, age: float = 0.0) -> tuple[Any, Any]:
    """(forecast time [s], [low, high] time range [s]) over a bound time; Nones without one.
    ``age`` [year]: the build's (:func:`build_age_years`), which pays the drift
    :math:`(\\mu L + \\nu)\\,a` as the plan's ``fc_drift`` does (0: none)."""
    if t_bound is None or not math.isfinite(t_bound) or t_bound <= 0:
        return None, None
    d = drift_terms_for(params[name], chip_class, runtime) if age else {"mu": 0.0, "nu": 0.0}
    t = predict_seconds(params[name], t_bound, chip_class, runtime or "*", n_layers, t_dequant,
                        (d["mu"] * n_layers + d["nu"]) * age)
    return t, [N.forecast_end_time(forecast_time=t, interval_ratio=q, step_time=t_bound)
               for q in interval_for(params, name, chip_class, runtime)[::-1]]


def forecast_inputs(chip_class: str, runtime: str | None,
                    params: dict[str, Any] | None = None) -> dict[str, dict[str, float]]:
    """The plan's forecast inputs (:data:`~llm_arithmetic.plan.steps.FORECAST_STEPS`) for a chip
    class (``"*"``: none known) and a runtime (None: not named): ``forecast_decode`` with the
    decode fit's ``k``, ``delta``, ``tau``, ``lambda`` and its interval's ratios ``low``,
    ``high``, and ``forecast_prefill`` with the prefill fit's (no ``delta``), and
    ``forecast_prefill_int8`` with the runtime's terms for a prefill whose bound takes the int8
    rate (:func:`prefill_runtime_for`; None where the fit has none). The decode record also
    holds the build drift per year of age, ``mu`` and ``nu``
    (:func:`~llm_arithmetic.forecast_fit.drift_terms_for`; 0 for a runtime without one), which
    the plan's ``build_age`` input multiplies. The same terms and intervals :func:`expected`
    uses; the book's calculators read them from the exported catalog."""
    p = params or load_params()
    dec = "by_runtime" if runtime is not None else "agnostic"
    pre, pre_rt = prefill_fit_for(p, runtime)

    def record(name: str, rt: str | None, delta: bool) -> dict[str, float]:
        v = terms_for(p[name], chip_class, rt or "*")
        lo, hi = interval_for(p, name, chip_class, rt)
        return {"k": v["k"], **({"delta": v["delta"]} if delta else {}), "tau": v["tau_s"],
                "lambda": v["lambda_s_per_layer"], "low": lo, "high": hi}

    int8_rt = prefill_runtime_for(p, pre_rt, "int8")
    drift = drift_terms_for(p[dec], chip_class, runtime)
    return {"forecast_decode": {**record(dec, runtime, True), **drift},
            "forecast_prefill": record(pre, pre_rt, False),
            "forecast_prefill_int8": record(pre, int8_rt, False) if int8_rt != pre_rt else None}


#: The llama.cpp builds the book's serving calculator offers beside today's (numbers of
#: :data:`~llm_arithmetic.lab.measurements.LLAMA_CPP_BUILD_DATES`, dated by ggml-org/ci and the
#: data's runs): May 2024 (the first with CUDA graphs: an older build on an NVIDIA GPU is the
#: runtime llama.cpp@no-cuda-graphs), January 2025, August 2025
#: and February 2026.
PAGE_BUILDS = (2824, 4423, 6205, 7825)


def forecast_catalog(params: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the book's calculators need to forecast (exported with the catalog): the runtimes
    with their own terms, the chip class of each hardware kind (:data:`CHIP_CLASSES`; another
    kind or no chip is ``"*"``) and :func:`forecast_inputs` for every class and runtime (key
    ``""``: not named); the runtimes with a build drift
    (:func:`~llm_arithmetic.forecast_fit.has_drift`) and the builds the page offers
    (:data:`PAGE_BUILDS`, each with its day and its age [year], :func:`build_age_years`)."""
    p = params or load_params()
    runtimes = known_runtimes(p)
    classes = _class_keys()
    drifting = [rt for rt in runtimes if has_drift(p, rt)]
    builds = [{"build": b, "date": llama_cpp_build_date(b),
               "age_years": build_age_years(llama_cpp_build_date(b), drifting[0], p)}
              for b in PAGE_BUILDS] if drifting else []
    return {"runtimes": runtimes, "classes": dict(CHIP_CLASSES),
            "inputs": {c: {rt or "": forecast_inputs(c, rt, p) for rt in [None, *runtimes]}
                       for c in classes},
            "caveat": caveat_catalog(p), "drift_runtimes": drifting, "builds": builds}


def expected(e: Any, n_layers: int, runtime: str | None = None,
             params: dict[str, Any] | None = None, build_date: Any = None) -> dict[str, Any]:
    """The forecast keys (:data:`EXPECTED_KEYS`, each with its 80% ``_range``) of an
    :class:`~llm_arithmetic.estimate.Estimate` ``e`` of a model of ``n_layers`` blocks; None
    where the bound is None. ``runtime`` None: the runtime-agnostic fit and its wider interval.

    Decode and time per output token use the decode fit (fitted at batch 1 on one chip: at a
    larger batch or over several chips it is an extrapolation, the bound's own step times
    carried through the same terms); the time to first token uses the prefill fit for the
    prompt's prefill and adds the encoders' bound time unscaled where the prompt has images,
    a video or audio (the vision tower's and the audio encoder's, the estimate's
    ``encoders_ttft_seconds``): no measured row had any, so the encoders' part (and the
    interval, which is the prefill's only) is a bound, not a forecast. Each forecast time is
    at least its bound time, so no forecast rate is above its bound. With
    speculative decoding (``e.spec_tokens_per_step``) the decode and TPOT forecasts are of a
    speculative step's bound, over the tokens it yields, and sit under the speculative bounds
    (:data:`SPECULATIVE_BOUND_KEYS`); the per-layer term then counts the blocks the drafts run
    too (``e.draft_layers`` each, ``e.draft_len`` times a step: their kernel launches), as the
    plan's ``fc_layers`` does.

    ``build_date``: the day of the llama.cpp build asked about (ISO ``YYYY-MM-DD``; None:
    today's build). A build :math:`a` years older than the fit's reference day
    (:func:`build_age_years`) pays the build drift :math:`(\\mu L + \\nu)\\,a` in every decode
    and TPOT step (the prefill fit has no drift); a runtime other than ``llama.cpp`` is an
    :class:`InputError`.
    """
    p = params or load_params()
    runtime = resolve_runtime(runtime, p)
    age = build_age_years(build_date, runtime, p, hardware=e.hardware)
    cls = chip_class_of(e.hardware)
    dec = "by_runtime" if runtime is not None else "agnostic"
    pre, prefill_runtime = prefill_fit_for(p, runtime)
    caveat, pooled = chip_caveat(p, e.hardware, runtime, prefill=e.ttft_seconds is not None)
    out: dict[str, Any] = {"runtime": runtime, "forecast_caveat": caveat,
                           "forecast_pooled_terms": pooled}
    # with speculation, the forecast is of a speculative step (drafts and the verify step, its
    # bound k c_d t_plain + t_verify), over the tokens a step yields
    n = e.spec_tokens_per_step or 1
    step = (lambda t: None if t is None else t * n)
    td = step(e.speculative_seconds_per_token if e.spec_tokens_per_step else
              e.decode_seconds_per_token)
    dq = estimate_dequant_seconds(e)
    layers = n_layers + ((e.draft_len or 0) * (e.draft_layers or 0)
                         if e.spec_tokens_per_step else 0)
    t, r = _time_forecast(p, dec, td, cls, runtime, layers, dq, age)
    out["expected_decode_tokens_per_second"] = None if t is None else n / t
    out["expected_decode_tokens_per_second_range"] = \
        None if r is None else [n / r[1], n / r[0]]
    prefill_runtime = prefill_runtime_for(p, prefill_runtime, e.compute_precision)
    # the encoders' bound time (the plan lists the encoders) is added as it is
    encoders = e.encoders_ttft_seconds
    text = e.ttft_seconds if e.ttft_seconds is None or not encoders else \
        e.ttft_seconds - encoders
    t, r = _time_forecast(p, pre, text, cls, prefill_runtime, n_layers)
    if t is not None and encoders:
        t, r = t + encoders, [x + encoders for x in r]
    out["expected_ttft_seconds"], out["expected_ttft_seconds_range"] = t, r
    tt = step(e.speculative_tpot_seconds if e.spec_tokens_per_step else e.tpot_seconds)
    t, r = _time_forecast(p, dec, tt, cls, runtime, layers, dq, age)
    t, r = (None, None) if t is None else (t / n, [x / n for x in r])
    out["expected_tpot_seconds"], out["expected_tpot_seconds_range"] = t, r
    per_chip = (lambda x: e.batch / x / e.n_chips)
    out["expected_tokens_per_second_per_chip"] = None if t is None else per_chip(t)
    out["expected_tokens_per_second_per_chip_range"] = \
        None if r is None else [per_chip(r[1]), per_chip(r[0])]
    return out


def forecast(model: Any, *, runtime: str | None = None, build_date: Any = None,
             **kwargs: Any) -> dict[str, Any]:
    """:func:`~llm_arithmetic.estimate.estimate`'s keys (the bounds, unchanged) and the forecast
    keys of :func:`expected` (``build_date``: a llama.cpp build's day, as there): what
    ``describe --json [--runtime NAME] [--build-date DAY]`` prints, except that describe nulls
    the forecast of a setup that does not fit in memory (its ``fits`` flags).

    >>> d = forecast("llama-2-7b", hardware="rtx-4090", weights="q4_0", runtime="llama.cpp",
    ...              prompt=512, generate=128)
    >>> lo, hi = d["expected_decode_tokens_per_second_range"]
    >>> lo < d["expected_decode_tokens_per_second"] <= hi <= d["decode_tokens_per_second"]
    True
    >>> d["expected_ttft_seconds"] >= d["ttft_seconds"]
    True
    """
    from .arguments import resolve_model

    m = resolve_model(model)
    e = estimate(m, **kwargs)
    return {**e.as_dict(), **expected(e, m.n_layers, runtime, build_date=build_date)}
