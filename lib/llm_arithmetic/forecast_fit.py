r"""The forecast's fit: a first forecast of single-stream decode speed, on top of the bound.

The bound (:func:`~llm_arithmetic.estimate.estimate`) says how fast a decode step *could* be:
the bytes it must read over the chip's peak bandwidth, :math:`t_{bound}`. Real runtimes are
slower, for reasons a few terms with units can carry:

.. math::

    t_{forecast} = t_{bound}\,(1 + k) + \delta\,t_{16} + \tau + \lambda\,L

(the registered formula :func:`~llm_arithmetic.formulas.serving.forecast_step_time`)

* :math:`k \ge 0` [-]: the time a runtime spends per unit of bound time on a chip class beyond
  the bound; :math:`1/(1+k)` is the fraction of peak bandwidth the weight streaming reaches
  (kernels that do not saturate memory, attention);
* :math:`\delta \ge 0` [-]: dequantization, a cost per weight the step unpacks, in units of the
  time to read that weight at 16 bits; its regressor :math:`t_{16}` (:func:`dequant_seconds`) is
  the time to read the step's weights at 16 bits when they are stored in fewer, else 0. It
  counts weights, not bytes: at 4 bits a weight costs the same arithmetic in a quarter of the
  bytes, which is why 4-bit rows reach a smaller fraction of the bound than 16-bit rows of the
  same runtime and chip;
* :math:`\tau \ge 0` [s]: a fixed cost per token (sampling, host work, synchronisation);
* :math:`\lambda \ge 0` [s/layer]: a cost per layer and token (kernel launches, small ops),
  times the model's :math:`L` layers.

Which chip class or runtime each term is kept per is data (:data:`MODELS`, stored with each
fit, chosen by cross-validation and re-chosen when the data change): with a runtime named, at
present k per (chip class, runtime), :math:`\lambda` per (chip class, runtime) (the launch path
differs between CUDA, Metal and CPU threads), :math:`\tau` per runtime and :math:`\delta` per
chip class; llama.cpp's CUDA runs without CUDA graphs (builds before May 2024, builds
compiled without them, chips before Ampere) are a runtime of their own,
``llama.cpp@no-cuda-graphs`` (``builds``: :func:`named_rows`; one launch per kernel instead of
one graph per token costs time per layer); the fit also dates llama.cpp's other rows by
their build and gives them a non-negative **build drift**, a time per layer and per token per
year of the build's age (:data:`DRIFT_TERMS`), which a forecast for today's build does not pay
and one asked for an older build does (:func:`~llm_arithmetic.forecast.expected`'s
``build_date``). k, :math:`\tau` and :math:`\lambda` are **partially pooled**: every runtime
with a fit row has its own, pulled towards the runtime-agnostic value by the weight of a few of
its rows (:func:`fit`'s ``shrink``), so a runtime seen in two rows is named and forecast from
them, but not fitted to them alone; another term falls back to a pooled key (``*``) below
:data:`MIN_ROWS` rows. All terms are non-negative, so :math:`t_{forecast} \ge t_{bound}`:
**the forecast is never above the bound**. They are fitted by non-negative least squares
(:func:`nnls`, Lawson and Hanson) on the relative error of the time per token, on the ``fit``
rows of :mod:`llm_arithmetic.lab.measurements` only: single chip, batch 1, a catalogued model and a
sourced bandwidth. A key with fewer than :data:`MIN_ROWS` rows shares a pooled term (key ``*``).
A second, runtime-agnostic fit answers when no runtime is named, with its own interval (wider
than a named runtime's on GPUs; on Apple chips llama.cpp's leave-one-chip-out interval over
four chip generations is as wide): every runtime pooled, each row weighing the same, k per chip
class, one :math:`\tau` and one :math:`\lambda`, no dequantization term (refitted with the rows of
issue 30 item 5, this structure forecast a left-out runtime best; weighing each runtime the same
no longer did). Both structures were chosen on the fit rows alone, by the mean of the
leave-one-source-out and leave-one-chip-out errors for the named runtime and by
leave-one-runtime-out error (each runtime's mean error weighted equally) for the agnostic fit;
the numbers are in ``lab/data/runtime_README.md``. Every cross-validation serves a left-out row
as the interface would (:func:`cross_validate`): by the named-runtime fit if the fit without it
still knows its runtime, else by the runtime-agnostic one.

The 80% interval is a conformal one, per regime: the 10th and 90th percentiles of measured /
forecast speed over fit rows that a fit without them predicted, the left-out group chosen to
match the question asked (:func:`intervals`):

* a named runtime (it has its own terms): **leave one chip out**, per (chip class, runtime)
  with at least :data:`MIN_INTERVAL_ROWS` rows, else per chip class, else pooled, each runtime
  weighing the same in a pool (:func:`_seen_intervals`). The chip asked about may be one the fit
  never saw; the runtime is one it knows. A runtime measured on one chip only has no such
  ratio (without its chip the fit does not know it) and takes the unseen runtime's interval.
* no runtime named, or a runtime without its own terms: **leave one runtime out**, each runtime
  weighted equally (a runtime with 332 of the 448 rows must not decide alone how far an unseen
  one lands from the forecast). Leave-one-source-out is reported but not used for the interval:
  here a source is nearly always one runtime (one page holds 235 of the 332 llama.cpp rows), so
  it mixes the two questions.

Its upper end is capped at the bound. The stored parameters
(``lab/data/forecast_decode.json``) are written by ``scripts/fit_forecast.py``, which also
reports the error on the reserved validation rows
(:func:`~llm_arithmetic.forecast_validation.build_params`); a test refits and compares. How well
the forecast does on the measured rows, by source, regime and build, and the error table against
its targets, are :mod:`llm_arithmetic.forecast_validation`'s.

This module holds what the stored fit is made of and how it is looked up: the rows
(:class:`Row`, :func:`decode_fit_rows`, :func:`prefill_fit_rows`), the terms' structures
(:data:`MODELS`) and regressors, the fit, the terms and intervals a stored fit gives for a chip
class and a runtime (:func:`terms_for`, :func:`interval_for`) and the time they predict
(:func:`predict_seconds`). Serving a forecast (a runtime's name resolved, a build's day, the
caveats, the time to first token, the book's calculators) is :mod:`llm_arithmetic.forecast`'s.

>>> p = load_params()["by_runtime"]
>>> t = terms_for(p, "consumer-gpu", "llama.cpp")
>>> sorted(t) == ["delta", "k", "lambda_s_per_layer", "tau_s"] and min(t.values()) >= 0
True
"""
from __future__ import annotations

import json
import math
import os
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import numpy as np

from . import numeric as N
from .catalog.model_catalog import get_model
from .core.errors import InputError
from .core.paths import data_file, lazy_paths
from .core.records import record
from .core.units import GB_S
from .estimate import estimate

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["PARAMS_PATH", "MIN_ROWS", "MIN_INTERVAL_ROWS", "INTERVAL_LEVELS", "nnls", "Row",
           "FILE_TYPES", "row_weights", "data_state", "decode_fit_rows", "prefill_fit_rows",
           "MODELS", "INT8", "DRIFT_TERMS", "dequant_seconds", "estimate_dequant_seconds",
           "BUILD_SPLITS", "NO_CUDA_GRAPHS", "with_builds", "with_kernels", "named_rows",
           "layer_time_by_build", "base_runtime", "fit", "terms_for", "has_drift",
           "drift_terms_for", "pooled_terms", "terms_with_errors", "predict_seconds",
           "speed_ratios", "cross_validate", "served_ratios", "cross_validate_served",
           "error_summary", "weighted_quantiles", "has_own_terms", "intervals", "interval_for",
           "row_intervals", "load_params"]

#: The stored fit (written by ``scripts/fit_forecast.py``); ``PARAMS_PATH``, its
#: :class:`pathlib.Path`, is made when first asked for.
PARAMS_FILE = data_file(__file__, "lab", "data", "forecast_decode.json")


__getattr__ = lazy_paths(globals(), PARAMS_PATH=PARAMS_FILE)


#: Fewest fit rows for a (class, runtime) pair or a runtime to get its own term.
MIN_ROWS = 5


#: Fewest left-out rows of a chip class for it to get its own interval (else the pooled one).
MIN_INTERVAL_ROWS = 20


#: The interval's probability (an 80% prediction interval: the 10th to the 90th percentile).
INTERVAL_LEVELS = (0.1, 0.9)


def nnls(a: np.ndarray, b: np.ndarray, max_iter: int | None = None) -> np.ndarray:
    """Non-negative least squares, :math:`\\min_x \\|Ax - b\\|_2` with :math:`x \\ge 0`
    (Lawson and Hanson's active-set method).

    >>> x = nnls(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([2.0, -1.0, 1.0]))
    >>> [round(float(v), 6) for v in x]
    [1.5, 0.0]
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    m, n = a.shape
    x = np.zeros(n)
    passive = np.zeros(n, dtype=bool)
    tol = 10 * np.finfo(float).eps * np.abs(a).sum(axis=0).max() * max(m, n)
    w = a.T @ (b - a @ x)
    for _ in range(max_iter or 3 * n):
        if passive.all() or w[~passive].max() <= tol:
            break
        j = int(np.argmax(np.where(passive, -np.inf, w)))
        passive[j] = True
        while True:
            s = np.zeros(n)
            s[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if s[passive].min() > tol:
                break
            neg = passive & (s <= tol)
            alpha = np.min(x[neg] / (x[neg] - s[neg]))
            x = x + alpha * (s - x)
            passive &= x > tol
            x[~passive] = 0.0
        x = s
        w = a.T @ (b - a @ x)
    return x


@record
class Row:
    """One fit or validation row: what the forecast needs, and the bound [s] and measured
    time [s] per token; ``t_dequant`` [s] is the dequantization term's regressor
    (:func:`dequant_seconds`); ``precision`` the peak a prefill row's bound took (the plan's
    ``compute_precision``; empty for decode rows, which are memory-bound); ``age_years`` [year]
    how much older a llama.cpp row's build is than the data's newest
    (:func:`~llm_arithmetic.lab.measurements.llama_cpp_age_years`; 0 for other runtimes), the
    regressor of a candidate build-drift term (:data:`DRIFT_TERMS`)."""

    id: str
    source: str
    device: str
    chip_class: str
    runtime: str
    n_layers: int
    t_bound: float
    t_measured: float
    bits: float = 16.0
    batch: int = 1
    t_dequant: float = 0.0
    precision: str = ""
    age_years: float = 0.0


#: Weight formats of the data that name a llama.cpp file type with a type of its own for the
#: routed experts (:func:`~llm_arithmetic.weights.weight_inputs`): a gpt-oss GGUF's routed experts
#: are MXFP4 and every other matrix Q8_0, so a decode step reads 5.7 bits per weight where the
#: file's mean is 4.6. Its row's bound counts every part at its types in the file (the routers
#: and 1-D tensors F32), as served.
FILE_TYPES = {"MXFP4": "mxfp4_moe"}


def row_weights(model_key: str, weight_format: str, bits_per_weight: float) -> dict[str, Any]:
    """The plan's weight inputs of a data row's bound (``bits_weight`` and, for a file whose
    parts are counted apart, ``native_bits_default``, ``_experts`` and ``_unread``) [bit]:

    - a format of :data:`FILE_TYPES` (``MXFP4``): the file type's parts, each at its types in
      the file, as served (:func:`~llm_arithmetic.weights.weight_inputs`);
    - any other llama.cpp file type that :mod:`~llm_arithmetic.catalog.formats` models for the
      model (``Q4_K_M``, ``Q4_0``, ``Q8_0``, ``Q6_K`` ...): the file split in the proportions
      llama.cpp's rules give (:func:`~llm_arithmetic.catalog.formats.mix_parts`: the embedding
      rows a step does not read, the routed experts, the rest), every part's bits times one
      factor, the row's bits over the rules' mean bits
      (:func:`~llm_arithmetic.catalog.formats.mix_bits`), so that the file holds the row's bits
      per weight over the model's parameters, as the row's bits were computed (a file size over
      the parameter count). A row whose bits
      are the block type's nominal figure (Q4_0 4.5, Q8_0 8.5: no file size, the output head
      at Q6_K not counted) takes the rules' parts as they are (factor 1): that is the file;
    - any other format, or a model whose tensors the rules do not model: one
      ``bits_weight``, the row's bits, for every weight.

    A decode step then reads each part at its own bits, as an estimate given the file type
    counts them (``weights="q4_k_m"``), while the file keeps the row's size.

    >>> row_weights("llama-2-7b", "GPTQ int4 g128", 4.156)
    {'bits_weight': Fraction(1039, 250)}
    >>> w = row_weights("mixtral-8x7b", "Q6_K", 6.574)   # attention Q6_K/Q8_0, experts Q6_K
    >>> round(float(w["native_bits_default"]), 3), round(float(w["native_bits_experts"]), 3)
    (6.927, 6.563)
    >>> w = row_weights("mixtral-8x7b", "Q4_0", 4.5)      # nominal: the rules' file
    >>> round(float(w["native_bits_default"]), 3), float(w["native_bits_experts"])
    (5.425, 4.5)
    """
    from .catalog.formats import BITS_PER_WEIGHT, FILE_TYPE_PREFIX, MIXES, mix_bits
    from .catalog.formats import bits_per_weight as exact_bits
    from .weights import weight_inputs

    m = get_model(model_key)
    if weight_format in FILE_TYPES:
        return weight_inputs(m, FILE_TYPES[weight_format])
    mix = weight_format.strip().lower()
    if mix in MIXES and MIXES[mix].experts is None:
        try:  # the file type by its llama.cpp name ("q4_0" alone is the block format)
            parts, mean = weight_inputs(m, FILE_TYPE_PREFIX + mix), mix_bits(m, mix)
        except InputError:  # a family whose llama.cpp tensors are not modelled
            parts = None
        if parts is not None:
            bits = exact_bits(bits_per_weight)
            scale = 1 if BITS_PER_WEIGHT.get(mix) == bits else bits / mean
            # every part's bits times the factor (a module's own bits, None, follow them)
            return {k: v * scale if k.startswith("native_bits_") and v is not None else v
                    for k, v in parts.items()}
    return weight_inputs(m, None, bits_per_weight)


def _bound_seconds(model_key: str, weights: dict[str, Any], bits_kv: int, context: int | None,
                   bandwidth: float) -> float:
    """The memory-time bound of one decode step of one sequence for the plan's weight inputs
    ``weights`` (:func:`row_weights`) [s]: :func:`~llm_arithmetic.estimate.estimate`'s, with
    the weights' parts given as the plan's inputs."""
    from .arguments import resolve_model
    from .estimate import plan_inputs
    from .layout import chip_inputs

    m = resolve_model(model_key)
    g = plan_inputs(m, bits_weight=16, bits_kv=bits_kv, context=max(1, context or 0), batch=1,
                    bandwidth=bandwidth)
    g.update(weights)
    return float(m.plan.child(**chip_inputs(None), **g).get("decode_seconds_per_token"))


#: :func:`decode_fit_rows` by split: (the data files' state, the rows).
_DECODE_ROWS: dict[str, tuple[tuple[tuple[int, int], ...], tuple[Row, ...]]] = {}


def data_state() -> tuple[tuple[int, int], ...]:
    """(modification time [ns], size [B]) of each file the rows are read from
    (``runtime_measurements.csv``, ``calibration_measurements.csv``): the key under which what
    is computed from them is kept for the process (the decode rows,
    :func:`~llm_arithmetic.forecast.unmeasured_kinds`) and computed again when a file changes."""
    from .lab import CALIBRATION_CSV_FILE, RUNTIME_CSV_FILE

    return tuple((s.st_mtime_ns, s.st_size)
                 for s in (os.stat(RUNTIME_CSV_FILE), os.stat(CALIBRATION_CSV_FILE)))


def decode_fit_rows(split: str = "fit") -> list[Row]:
    """The decode rows a fit (``split="fit"``) or the validation (``"validation"``) uses:
    single chip, batch 1, a catalogued model and a sourced bandwidth. The bound is the public
    :func:`~llm_arithmetic.estimate.estimate`'s plan at the row's weights (:func:`row_weights`:
    its bits, or a llama.cpp file's parts at the file's size), KV format, context and bandwidth
    (memory time only: no peak is given).

    Each split's rows are computed once per process (an estimate a row, a few hundred rows,
    asked for again by the fit, the cross-validation, the intervals, the chapters and the
    tests) and again when a data file has changed since (its modification time or size); each
    call returns a new list of the same rows.
    """
    state = data_state()
    kept = _DECODE_ROWS.get(split)
    if kept is None or kept[0] != state:
        kept = _DECODE_ROWS[split] = (state, tuple(_decode_fit_rows(split)))
    return list(kept[1])


def _decode_fit_rows(split: str) -> list[Row]:
    from .lab import measurements as M

    src = M.fit_rows("decode") if split == "fit" else M.validation_rows("decode")
    out = []
    for r in src:
        if r.chips != 1 or r.batch != 1 or not r.model_key or r.bandwidth_gbps is None:
            continue
        kv = 8 if r.kv_format == "fp8" else 16
        m = get_model(r.model_key)
        bw = r.bandwidth_gbps * GB_S
        out.append(Row(r.id, r.source, r.device, r.device_class, r.runtime, m.n_layers,
                       _bound_seconds(r.model_key, row_weights(r.model_key, r.weight_format,
                                                               r.bits_per_weight),
                                      kv, r.context, bw),
                       1.0 / r.si_value, r.bits_per_weight, r.batch,
                       dequant_seconds(m.decode_read_params, r.bits_per_weight, bw),
                       age_years=M.llama_cpp_age_years(r)))
    return out


def prefill_fit_rows() -> list[Row]:
    """The prefill and time-to-first-token rows a prefill fit uses (all ``fit`` split: no
    reserved source publishes prefill): one chip, batch 1, a catalogued model and chip (the
    bound needs its peak). The bound is :func:`~llm_arithmetic.estimate.estimate`'s
    ``ttft_seconds`` for the row's prompt; a prompt rate (tokens/s) is read as prompt / rate.
    The row's weights are counted as a decode row's (:func:`row_weights`: its bits, or a
    llama.cpp file's parts at the file's size); its format or file type ("Q4_K_M") names the
    precision the weights' products take (the int8 rate of a llama.cpp block format on NVIDIA
    and AMD chips), and attention's take the cache's, as
    :func:`~llm_arithmetic.estimate.estimate` with that format takes them
    (:func:`_prefill_bound`)."""
    from .catalog.hardware import HARDWARE
    from .lab import measurements as M

    out = []
    for r in M.fit_rows():
        if (r.metric not in ("prefill", "ttft") or r.chips != 1 or r.batch != 1
                or not r.model_key or not r.hardware_key or not r.prompt_tokens):
            continue
        chip, fmt = HARDWARE[r.hardware_key], r.weight_format.lower()
        bits_kv = 8 if r.kv_format == "fp8" else 16
        if fmt in ("fp16", "bf16", "fp8"):
            e = estimate(r.model_key, hardware=r.hardware_key, weights=fmt, bits_kv=bits_kv,
                         prompt=r.prompt_tokens, context=r.prompt_tokens)
            bound, precision = e.ttft_seconds, e.compute_precision
        else:
            bound, precision = _prefill_bound(
                r.model_key, chip, row_weights(r.model_key, r.weight_format, r.bits_per_weight),
                fmt, bits_kv, r.prompt_tokens)
        t = r.si_value if r.metric == "ttft" else r.prompt_tokens / r.si_value
        out.append(Row(r.id, r.source, r.device, r.device_class, r.runtime,
                       get_model(r.model_key).n_layers, float(bound), t,
                       precision=precision))
    return out


def _prefill_bound(model_key: str, chip: Any, weights: dict[str, Any], fmt: str, bits_kv: int,
                   prompt: int) -> tuple[float, str]:
    """The time-to-first-token bound of one prompt on one chip for the plan's weight inputs
    ``weights`` (:func:`row_weights`: the file's bits, or a file type's parts) whose products
    run at the compute precision of the format ``fmt`` names (none for a format without a
    record: the weights' bits then decide), attention's at the cache's: the estimate's plan
    with the format's record beside the file's bits or parts (``estimate`` takes a format or
    bits, not both) [s], and the weights' precision."""
    from .catalog.format_compute import plan_format
    from .arguments import resolve_model
    from .estimate import plan_inputs
    from .layout import chip_inputs

    m = resolve_model(model_key)
    g = plan_inputs(m, bits_weight=16, bits_kv=bits_kv, context=prompt, prompt=prompt)
    g.update(weights)
    g["weight_format"] = plan_format(fmt)
    ev = m.plan.child(**chip_inputs(chip), **g)
    return ev.get("ttft_seconds"), ev.get("compute_precision")


#: Which chip class or runtime each term is kept per (its key; a key with fewer than
#: :data:`MIN_ROWS` rows is pooled into the next one, ``*`` meaning all):
#: ``"class|runtime"`` (then ``"class|*"``), ``"class"`` (then ``"*"``), ``"runtime"`` (then
#: ``"*"``) or ``"*"``. ``weighting`` ``"runtime"`` gives each runtime's rows the same total weight
#: in the least squares (else each row weighs the same). Chosen on the fit rows alone (see
#: ``runtime_README.md``): the per-layer cost of a named runtime depends on the chip class (the
#: launch path differs between CUDA, Metal and CPU threads), one dequantization cost per chip
#: class shared by every runtime (the pick on 433 and 435 fit rows; one for all before); the
#: runtime-agnostic fit weighs each row the same, keeps k per chip class and pools the per-token
#: and per-layer costs, without a dequantization term, which forecast a runtime the fit never saw
#: best (leave one runtime out, on the 329 fit rows of issue 30 item 5). ``shrink`` (named fit
#: only): the terms kept for every runtime of the rows and partially pooled, with the weight in
#: rows of the pull towards the agnostic fit (:func:`_with_prior`); chosen on the fit rows by
#: the mean of leave-one-source-out and leave-one-chip-out error among the structures that can
#: name every runtime (``scripts/fit_forecast.py --select``; the pick moves between structures
#: whose errors differ by less than their noise, see ``runtime_README.md``). A named structure
#: may set ``builds`` (some of llama.cpp's rows a runtime of their own, :func:`named_rows`,
#: sharing the terms of ``shared_across_builds`` with the rest): by era of build, a candidate
#: the selection picked once and dropped; by CUDA graphs, every term split, the pick on 438 rows
#: (the seventh sitting of 2026-11-28, once the data stated XiongjieDai's builds). The drift
#: terms (:data:`DRIFT_TERMS`, one pooled key each) were the pick on the same 448 rows (the
#: twenty-second sitting, 2026-11-30), by a margin inside the noise; they are fitted and
#: cross-validated at each row's build age and served at the age asked (``build_date``; none:
#: age 0, today's build).
MODELS: dict[str, dict[str, Any]] = {
    "by_runtime": {"terms": {"k": "class|runtime", "delta": "class", "tau_s": "runtime",
                             "lambda_s_per_layer": "runtime|class",
                             "mu_s_per_layer_year": "*", "nu_s_per_year": "*"},
                   "weighting": "rows",
                   "shrink": {"k": 3.0, "tau_s": 3.0, "lambda_s_per_layer": 3.0},
                   "builds": "cuda-graphs"},
    "agnostic": {"terms": {"k": "class|runtime", "tau_s": "runtime",
                           "lambda_s_per_layer": "runtime"}, "weighting": "rows"},
    "prefill": {"terms": {"k": "class|runtime", "tau_s": "runtime",
                          "lambda_s_per_layer": "runtime"}, "weighting": "rows",
                "kernels": "int8"},
}


#: A structure's ``kernels`` (``"int8"``): the named fit takes a runtime's rows whose bound took
#: the int8 rate (llama.cpp's block formats on NVIDIA and AMD GPUs: its MMQ kernels) as a
#: runtime of their own, ``<runtime>@int8``, every term split (:func:`with_kernels`): those
#: kernels reach a smaller share of their roof than the 16-bit products of the same runtime
#: reach of theirs. Chosen for the prefill fit on its fit rows (``scripts/fit_forecast.py
#: --select``, PREFILL_CANDIDATES); the interface serves the split terms where the estimate's
#: ``compute_precision`` is int8 (:func:`~llm_arithmetic.forecast.prefill_runtime_for`, the
#: plan's ``prefill_terms``).
INT8 = "@int8"


#: The terms' regressors (times the term's value: seconds), and their scale in the fit.
_SCALE = {"k": 1.0, "delta": 1.0, "tau_s": 1e-3, "lambda_s_per_layer": 1e-6,
          "mu_s_per_layer_year": 1e-6, "nu_s_per_year": 1e-3}


#: Build-drift terms (candidates of ``scripts/fit_forecast.py --select``, issue 30's twenty-second
#: sitting): a cost per layer and token per year of a llama.cpp build's age, ``mu`` [s/layer/year],
#: and per token per year, ``nu`` [s/year], with regressors :math:`L\,a` and :math:`a`, where
#: :math:`a` is how much older the row's build is than the data's newest (``Row.age_years``).
#: Only rows of the runtime ``llama.cpp`` carry them: in a structure that splits off
#: :data:`NO_CUDA_GRAPHS`, its runs with CUDA graphs and its Metal and CPU runs; the runs without
#: graphs keep terms fitted to their own builds. A forecast served for today's build has age 0:
#: no drift (:func:`terms_for` leaves the terms out); one asked for an older build
#: (``build_date``, ``--build-date``) pays them (:func:`drift_terms_for`, the plan's
#: ``fc_drift``).
DRIFT_TERMS = ("mu_s_per_layer_year", "nu_s_per_year")


def dequant_seconds(read_params: Any, bits_weight: Any, bandwidth: Any) -> Any:
    """The dequantization term's regressor [s]: the time to read a step's weights at 16 bits,
    for weights stored in fewer bits (0 for 16-bit weights). Unpacking and scaling costs the
    same arithmetic per weight whatever the chip's bandwidth, so the term
    :math:`\\delta\\,t_{16}` counts weights, not bytes; :math:`\\delta` [-] is that cost per
    weight in units of the time to read two bytes.

    >>> dequant_seconds(7e9, 4.5, 1e12), dequant_seconds(7e9, 16, 1e12)
    (0.014, 0.0)
    """
    t16 = N.memory_time(step_bytes=N.weight_bytes(n_params=read_params, bits_weight=16),
                        bandwidth=bandwidth)
    out = np.where(np.asarray(bits_weight) < 16, t16, 0.0)
    return float(out) if out.ndim == 0 else out


def estimate_dequant_seconds(e: Any) -> float:
    """:func:`dequant_seconds` of an :class:`~llm_arithmetic.estimate.Estimate`: the weights one
    decode step of one token reads, at the estimate's bits per weight, on one chip of its
    tensor-parallel group (each dequantizes its 1/tp share); 0 without a bandwidth."""
    if e.bandwidth is None:
        return 0.0
    return dequant_seconds(e.params_read_per_token, e.bits_weight, e.bandwidth) / e.tp


def _chain(kind: str, chip_class: str, runtime: str) -> list[str]:
    """A term's keys for a row, most specific first (:data:`MODELS`)."""
    return {"class|runtime": [f"{chip_class}|{runtime}", f"{chip_class}|*"],
            "runtime|class": [f"{chip_class}|{runtime}", runtime, "*"],
            "class": [chip_class, "*"], "runtime": [runtime, "*"], "*": ["*"]}[kind]


def _regressor(term: str, r: Row) -> float:
    if term in DRIFT_TERMS:
        age = r.age_years if r.runtime == "llama.cpp" else 0.0
        return age * (float(r.n_layers) if term == "mu_s_per_layer_year" else 1.0) * _SCALE[term]
    return {"k": r.t_bound, "delta": r.t_dequant, "tau_s": 1.0,
            "lambda_s_per_layer": float(r.n_layers)}[term] * _SCALE[term]


def _drift_seconds(params: dict[str, Any], r: Row) -> float:
    """A fit's build-drift time for a row [s] (:data:`DRIFT_TERMS`): :math:`(\\mu L + \\nu)\\,a`
    with the row's build age, computed as a forecast served for that build computes it
    (:func:`drift_terms_for`, :func:`~llm_arithmetic.forecast.expected`'s ``build_date``); 0
    without such terms, for a runtime other than llama.cpp, or for a build of the reference
    day."""
    d = drift_terms_for(params, r.chip_class, r.runtime)
    return (d["mu"] * r.n_layers + d["nu"]) * r.age_years


#: What a structure's ``builds`` splits llama.cpp's rows by: ``"era"`` (``True`` in older
#: specs), the year of the build; ``"cuda-graphs"``, whether a CUDA run used CUDA graphs;
#: ``"cuda-graphs+era"``, both (the runs with graphs split again by era).
BUILD_SPLITS = ("era", "cuda-graphs", "cuda-graphs+era")


#: The runtime name of llama.cpp's CUDA rows without CUDA graphs (a ``"cuda-graphs"`` split).
NO_CUDA_GRAPHS = "llama.cpp@no-cuda-graphs"


def with_builds(rows: Sequence[Row], current: str = "2025-26", by: str = "era") -> list[Row]:
    """``rows`` with some of llama.cpp's rows named as a runtime of their own: by ``"era"``,
    its rows of older builds as ``llama.cpp@era``
    (:data:`~llm_arithmetic.lab.measurements.LLAMA_CPP_BUILDS`, the one runtime whose builds
    the data date); by ``"cuda-graphs"``, its CUDA rows run without CUDA graphs (an older
    build, a build compiled without them or a chip before Ampere:
    :func:`~llm_arithmetic.lab.measurements.uses_cuda_graphs`) as :data:`NO_CUDA_GRAPHS`. The
    rest keep the plain name. These are candidate structures of
    ``scripts/fit_forecast.py --select`` that ask whether a runtime's version should be a
    term; a spec's ``shared_across_builds`` lists the terms the two still share.

    >>> rows = decode_fit_rows("fit")
    >>> sorted({r.runtime for r in with_builds(rows) if r.runtime.startswith("llama.cpp")})
    ['llama.cpp', 'llama.cpp@2023-24']
    >>> sorted({r.runtime for r in with_builds(rows, by="cuda-graphs")
    ...         if r.runtime.startswith("llama.cpp")})
    ['llama.cpp', 'llama.cpp@no-cuda-graphs']
    """
    from .lab import measurements as M

    if by not in BUILD_SPLITS:
        raise ValueError(f"builds: unknown split {by!r}; known: {', '.join(BUILD_SPLITS)}")
    out = list(rows)
    for step in by.split("+"):          # "cuda-graphs+era": the graphs split, then the era one
        if step == "cuda-graphs":
            off = {m.id for m in M.all_rows() if M.uses_cuda_graphs(m) is False}
            out = [replace(r, runtime=NO_CUDA_GRAPHS)
                   if r.runtime == "llama.cpp" and r.id in off else r for r in out]
        else:
            out = [replace(r, runtime=f"llama.cpp@{M.LLAMA_CPP_BUILDS[r.source]}")
                   if r.runtime == "llama.cpp" and M.LLAMA_CPP_BUILDS[r.source] != current
                   else r for r in out]
    return out


def with_kernels(rows: Sequence[Row]) -> list[Row]:
    """``rows`` with each row whose bound took the int8 rate (``precision``) named as a runtime
    of its own, ``<runtime>@int8`` (a structure's ``kernels``).

    >>> rows = prefill_fit_rows()
    >>> sorted({r.runtime for r in with_kernels(rows) if r.runtime.endswith(INT8)})
    ['llama.cpp@int8']
    """
    return [replace(r, runtime=r.runtime + INT8) if r.precision == "int8" else r for r in rows]


def named_rows(rows: Sequence[Row], spec: dict[str, Any] | None = None) -> list[Row]:
    """``rows`` as the named-runtime fit ``spec`` (a structure of :data:`MODELS` or a stored
    fit; default the named structure) sees them: with some of llama.cpp's rows a runtime of their
    own (:func:`with_builds`: the present structure, its CUDA runs without CUDA graphs) when
    it keeps ``builds`` apart, else unchanged. The runtime-agnostic fit and the question "a
    runtime never seen" take the rows as they are: every build of a runtime is the same runtime
    there.

    >>> rows = decode_fit_rows("fit")
    >>> sorted({r.runtime for r in named_rows(rows) if r.runtime.startswith("llama.cpp")})
    ['llama.cpp', 'llama.cpp@no-cuda-graphs']
    >>> sorted({r.runtime for r in named_rows(rows, {"builds": True})
    ...         if r.runtime.startswith("llama.cpp")})
    ['llama.cpp', 'llama.cpp@2023-24']
    >>> named_rows(rows, {}) == rows
    True
    """
    spec = MODELS["by_runtime"] if spec is None else spec
    builds = spec.get("builds")
    out = with_builds(rows, by="era" if builds is True else builds) if builds else list(rows)
    return with_kernels(out) if spec.get("kernels") == "int8" else out


def layer_time_by_build(chip_class: str = "consumer-gpu") -> dict[str, tuple[int, float]]:
    """What llama.cpp's dense-model fit rows on a chip class spend per layer beyond the bound,
    by era of build (:func:`with_builds`): ``{runtime: (rows, median [s])}`` of
    :math:`(t_{meas} - t_{bound}) / L`. Fit rows only (the reserved sources never enter); a
    mixture-of-experts model is left out, since its layers hold more kernels.

    >>> t = layer_time_by_build("consumer-gpu")
    >>> sorted(t), t["llama.cpp"][1] < t["llama.cpp@2023-24"][1]
    (['llama.cpp', 'llama.cpp@2023-24'], True)
    """
    from .lab import measurements as M

    dense = {r.id for r in M.fit_rows("decode")
             if r.model_key and not get_model(r.model_key).is_moe}
    out: dict[str, list[float]] = {}
    for r in with_builds(decode_fit_rows("fit")):
        if base_runtime(r.runtime) == "llama.cpp" and r.chip_class == chip_class and r.id in dense:
            out.setdefault(r.runtime, []).append((r.t_measured - r.t_bound) / r.n_layers)
    return {rt: (len(v), float(np.median(v))) for rt, v in sorted(out.items())}


def base_runtime(runtime: str) -> str:
    """A runtime's name without its build era (``llama.cpp@2023-24`` is llama.cpp).

    >>> base_runtime("llama.cpp@2023-24"), base_runtime("vLLM")
    ('llama.cpp', 'vLLM')
    """
    return runtime.split("@")[0]


def _runtime_for(spec: dict[str, Any], term: str, runtime: str) -> str:
    """The runtime name a term is keyed by: without its build (``@era``) for a term the spec
    shares across builds."""
    return base_runtime(runtime) if term in spec.get("shared_across_builds", ()) else runtime


def _spec(agnostic: bool, spec: dict[str, Any] | None) -> dict[str, Any]:
    return spec or MODELS["agnostic" if agnostic else "by_runtime"]


def fit(rows: Sequence[Row], agnostic: bool = False, spec: dict[str, Any] | None = None,
        prior: dict[str, Any] | None = None) -> dict[str, Any]:
    """Fit the terms of ``spec`` (default: :data:`MODELS`' decode fit, runtime-agnostic when
    ``agnostic``) by NNLS on the relative error of the time per token.

    Each row contributes :math:`(t - t_{bound})/t = \\sum_j x_j\\,g_j/t` over its terms
    :math:`x_j` (k, delta, tau, lambda) with regressors :math:`g_j` (:math:`t_{bound}`,
    :math:`t_{16}`, 1, :math:`L`); tau is fitted in ms and lambda in microseconds for
    conditioning. Returns ``{term: {key: value}, "rows": n, "terms": ..., "weighting": ...}``.

    A term in the spec's ``shrink`` (``{term: alpha}``, named-runtime fits only) is kept for
    every runtime of the rows, however few, and partially pooled: ``alpha`` pseudo-rows pull
    it towards the runtime-agnostic fit's value (``prior``; fitted here when not given), see
    :func:`_with_prior`; such a fit also stores its ``runtimes`` (those it can name) and the
    pooled values under the pooled keys, for a runtime on a chip class its rows lack.
    """
    spec = _spec(agnostic, spec)
    terms = spec["terms"]
    shrink = {} if agnostic else spec.get("shrink", {})
    rts = [("*" if agnostic else r.runtime) for r in rows]
    counts: dict[tuple[str, str], int] = {}
    for r, rt in zip(rows, rts):
        for term, kind in terms.items():
            if _regressor(term, r) != 0:
                for key in _chain(kind, r.chip_class, _runtime_for(spec, term, rt)):
                    counts[(term, key)] = counts.get((term, key), 0) + 1
    cols: dict[tuple[str, str], int] = {}
    keys = []
    for r, rt in zip(rows, rts):
        row = {}
        for term, kind in terms.items():
            chain = _chain(kind, r.chip_class, _runtime_for(spec, term, rt))
            row[term] = chain[0] if term in shrink else \
                next((k for k in chain if counts.get((term, k), 0) >= MIN_ROWS), chain[-1])
            cols.setdefault((term, row[term]), len(cols))
        keys.append(row)
    a = np.zeros((len(rows), len(cols)))
    b = np.zeros(len(rows))
    for i, (r, row) in enumerate(zip(rows, keys)):
        for term, key in row.items():
            a[i, cols[(term, key)]] = _regressor(term, r) / r.t_measured
        b[i] = (r.t_measured - r.t_bound) / r.t_measured
    if spec["weighting"] == "runtime":
        n = {rt: sum(1 for r in rows if r.runtime == rt) for rt in {r.runtime for r in rows}}
        w = np.sqrt([1.0 / n[r.runtime] for r in rows])
        a, b = a * w[:, None], b * w
    if shrink:
        prior = prior or fit(rows, True)
        a, b = _with_prior(a, b, cols, shrink, prior)
    x = nnls(a, b)
    out: dict[str, Any] = {term: {} for term in terms}
    for (term, key), j in sorted(cols.items(), key=lambda c: c[1]):
        out[term][key] = float(x[j]) * _SCALE[term]
    out = {term: dict(sorted(v.items())) for term, v in out.items()}
    extra = {}
    if shrink:   # a known runtime on a chip class its rows lack: the pooled value
        for term in shrink:
            out[term] = {**prior[term], **out[term]}
        extra = {"shrink": dict(shrink), "runtimes": sorted({r.runtime for r in rows})}
    if spec.get("builds"):
        extra["builds"] = spec["builds"]
    if spec.get("kernels") and not agnostic:
        extra["kernels"] = spec["kernels"]
    if spec.get("shared_across_builds"):
        extra["shared_across_builds"] = list(spec["shared_across_builds"])
    return {**out, "rows": len(rows), "terms": dict(terms), "weighting": spec["weighting"],
            **extra}


def _with_prior(a: np.ndarray, b: np.ndarray, cols: dict[tuple[str, str], int],
                shrink: dict[str, float], prior: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Partial pooling: for each shrunk term's column (a runtime's own key, however few its
    rows), ``alpha`` pseudo-rows that pull it towards the runtime-agnostic fit's value for the
    chip class (``prior``), each as heavy as a typical row of that column. A runtime with many
    rows is fitted by its rows; one with a few lands between its rows and the pool, which is
    what the forecast of a runtime the fit has barely seen should do."""
    extra_a, extra_b = [], []
    for (term, key), j in cols.items():
        if term not in shrink:
            continue
        used = a[:, j][a[:, j] != 0]
        if not used.size:
            continue
        w = math.sqrt(shrink[term]) * float(np.sqrt(np.mean(used ** 2)))
        row = np.zeros(a.shape[1])
        row[j] = w
        extra_a.append(row)
        extra_b.append(w * terms_for(prior, key.split("|")[0], None)[term] / _SCALE[term])
    if not extra_a:
        return a, b
    return np.vstack([a, *extra_a]), np.concatenate([b, extra_b])


#: The terms of a fit stored before the dequantization term existed.
_OLD_TERMS = MODELS["prefill"]["terms"]


def _value(params: dict[str, Any], term: str, kind: str, chip_class: str, runtime: str) -> float:
    table = params.get(term, {})
    for key in _chain(kind, chip_class, _runtime_for(params, term, runtime)):
        if key in table:
            return table[key]
    return float(np.median(list(table.values()))) if table else 0.0


def has_own_terms(params: dict[str, Any], runtime: str) -> bool:
    """Whether a fit has terms of its own for ``runtime``: every runtime of its rows when a term
    is partially pooled (``shrink``), else the runtimes with their own per-token cost; never
    ``"*"`` (no runtime named).

    >>> p = load_params()
    >>> has_own_terms(p["by_runtime"], "llama.cpp"), has_own_terms(p["agnostic"], "llama.cpp")
    (True, False)
    """
    return runtime != "*" and runtime in params.get("runtimes", params["tau_s"])


def terms_for(params: dict[str, Any], chip_class: str, runtime: str | None) -> dict[str, float]:
    """The values of a fit's terms for a chip class and a runtime (None or ``"*"``: not named;
    a runtime without its own terms uses the pooled ones): ``{"k", "delta", "tau_s",
    "lambda_s_per_layer"}``, what :func:`predict_seconds` and the book's calculators use."""
    rt = runtime if runtime and has_own_terms(params, runtime) else "*"
    terms = params.get("terms", _OLD_TERMS)
    out = {t: 0.0 for t in ("k", "delta", "tau_s", "lambda_s_per_layer")}
    for term, kind in terms.items():
        if term not in DRIFT_TERMS:      # today's build: no drift
            out[term] = _value(params, term, kind, chip_class, rt)
    return out


def has_drift(params: dict[str, Any], runtime: str | None) -> bool:
    """Whether a forecast for ``runtime`` (its stored name,
    :func:`~llm_arithmetic.forecast.resolve_runtime`) pays a build drift for an older build:
    the named fit (``params``: the stored file or its ``by_runtime`` fit) has drift terms
    (:data:`DRIFT_TERMS`) and the runtime is ``llama.cpp``, the one whose rows carry them (not
    ``llama.cpp@no-cuda-graphs``, whose terms are fitted to its own builds, nor the
    runtime-agnostic forecast).

    >>> p = load_params()
    >>> has_drift(p, "llama.cpp"), has_drift(p, "llama.cpp@no-cuda-graphs"), has_drift(p, None)
    (True, False, False)
    """
    fit_ = params.get("by_runtime", params)
    return runtime == "llama.cpp" and any(t in fit_.get("terms", {}) for t in DRIFT_TERMS)


def drift_terms_for(params: dict[str, Any], chip_class: str,
                    runtime: str | None) -> dict[str, float]:
    """The build drift a forecast of the named fit ``params`` pays per year of the build's age:
    ``{"mu": [s/layer/year], "nu": [s/year]}``, the plan's ``forecast_decode`` record's ``mu``
    and ``nu``; both 0 where :func:`has_drift` is false. A step of :math:`L` blocks of a build
    :math:`a` years older than the reference day pays :math:`(\\mu L + \\nu)\\,a` more.

    >>> fit = {"terms": {"mu_s_per_layer_year": "*", "nu_s_per_year": "*"},
    ...        "mu_s_per_layer_year": {"*": 2e-6}, "nu_s_per_year": {"*": 4e-4}}
    >>> d = drift_terms_for(fit, "gpu", "llama.cpp")
    >>> d
    {'mu': 2e-06, 'nu': 0.0004}
    >>> round((d["mu"] * 32 + d["nu"]) * 2 * 1e3, 3)   # 32 blocks, a build 2 years old [ms]
    0.928
    >>> drift_terms_for(fit, "gpu", "llama.cpp@no-cuda-graphs"), drift_terms_for(fit, "gpu", None)
    ({'mu': 0.0, 'nu': 0.0}, {'mu': 0.0, 'nu': 0.0})
    """
    terms = params.get("terms", {})
    if not has_drift(params, runtime):
        return {"mu": 0.0, "nu": 0.0}
    return {key: _value(params, t, terms[t], chip_class, runtime) if t in terms else 0.0
            for key, t in zip(("mu", "nu"), DRIFT_TERMS)}


def pooled_terms(params: dict[str, Any], chip_class: str, runtime: str | None) -> list[str]:
    """The terms a named runtime takes from the pool on a chip class where it has no fit rows:
    each term the fit keeps per chip class and runtime (``"class|runtime"``,
    ``"runtime|class"``) with no key for this pair, so that :func:`terms_for` falls back to a
    pooled key (``"class|*"``, ``"*"``). Empty for a runtime not named or not known (the
    runtime-agnostic fit, pooled throughout, with its own wider interval).

    >>> p = load_params()["by_runtime"]
    >>> pooled_terms(p, "datacenter-gpu", "mlx-lm"), pooled_terms(p, "apple", "mlx-lm")
    (['k', 'lambda_s_per_layer'], [])
    """
    if runtime is None or not has_own_terms(params, runtime):
        return []
    return [term for term, kind in params.get("terms", _OLD_TERMS).items()
            if kind in ("class|runtime", "runtime|class")
            and _chain(kind, chip_class, _runtime_for(params, term, runtime))[0]
            not in params.get(term, {})]


def terms_with_errors(params: dict[str, Any], fit_name: str, chip_class: str,
                      runtime: str | None) -> dict[str, tuple[float, float]]:
    """Each term of the stored fit ``fit_name`` (``"by_runtime"`` or ``"agnostic"``) for a chip
    class and a runtime, with its bootstrap standard error: ``{term: (value, error)}``, the
    keys looked up as :func:`terms_for` does.

    >>> t = terms_with_errors(load_params(), "by_runtime", "consumer-gpu", "llama.cpp")
    >>> sorted(t) == ["delta", "k", "lambda_s_per_layer", "tau_s"] and t["k"][1] >= 0
    True
    """
    fit = params[fit_name]
    values = terms_for(fit, chip_class, runtime)
    errors = terms_for({**params[f"{fit_name}_stderr"], "terms": fit.get("terms", _OLD_TERMS)},
                       chip_class, runtime)
    return {term: (values[term], errors[term]) for term in values}


def predict_seconds(params: dict[str, Any], t_bound: Any, chip_class: str, runtime: str,
                    n_layers: int, t_dequant: Any = 0.0, drift_time: Any = 0.0) -> Any:
    """Forecast time per token [s] (never below ``t_bound``); unknown pairs use pooled terms.
    ``t_dequant``: the step's dequantization regressor (:func:`dequant_seconds`);
    ``drift_time``: an older build's drift [s] (:func:`drift_terms_for`), paid beside the fixed
    cost as the plan's ``fc_fixed`` adds it (0: today's build, the time unchanged)."""
    v = terms_for(params, chip_class, runtime)
    return N.forecast_step_time(step_time=t_bound, overhead_fraction=v["k"],
                                dequant_fraction=v["delta"], dequant_time=t_dequant,
                                fixed_time=v["tau_s"] + drift_time,
                                layer_time=v["lambda_s_per_layer"], n_layers=n_layers)


def speed_ratios(params: dict[str, Any], rows: Iterable[Row]) -> list[tuple[Row, float]]:
    """(row, measured speed / forecast speed) for each of ``rows``, forecast by the fit
    ``params`` (its terms for the row's chip class and runtime, the row's build drift) [-]:
    below 1 where the row ran slower than forecast."""
    out = []
    for r in rows:
        t = predict_seconds(params, r.t_bound, r.chip_class, r.runtime, r.n_layers,
                            r.t_dequant, _drift_seconds(params, r))
        out.append((r, t / r.t_measured))
    return out


def cross_validate(rows: Sequence[Row], by: str = "source", agnostic: bool = False,
                   spec: dict[str, Any] | None = None,
                   fallback: dict[str, Any] | None = None) -> list[tuple[Row, float]]:
    """Leave-one-group-out ratios measured / forecast speed: each group (``"source"``,
    ``"device"`` or ``"runtime"``) predicted by a fit on the other rows, as the interface would
    serve it: a row whose runtime the fit without it does not know is forecast by the
    runtime-agnostic fit of the same rows (``fallback``: its structure; default
    :data:`MODELS`' agnostic one, or ``spec`` itself when one is given)."""
    return [(r, q) for r, q, _ in cross_validate_served(rows, by, agnostic, spec, fallback)]


def served_ratios(named: dict[str, Any], agnostic: dict[str, Any], rows: Sequence[Row],
                  names: tuple[str, str] = ("by_runtime", "agnostic")
                  ) -> list[tuple[Row, float, str]]:
    """Each row forecast as the interface serves it: by the named-runtime fit ``named`` where it
    knows the row's runtime, else by the runtime-agnostic fit ``agnostic``: (row, measured /
    forecast speed, the name of the fit that served it)."""
    known = [r for r in rows if has_own_terms(named, r.runtime)]
    other = [r for r in rows if not has_own_terms(named, r.runtime)]
    return [(r, q, names[0]) for r, q in speed_ratios(named, known)] + \
        [(r, q, names[1]) for r, q in speed_ratios(agnostic, other)]


def cross_validate_served(rows: Sequence[Row], by: str, agnostic: bool = False,
                          spec: dict[str, Any] | None = None,
                          fallback: dict[str, Any] | None = None,
                          names: tuple[str, str] = ("by_runtime", "agnostic"),
                          only: Callable[[list[str]], list[str]] | None = None
                          ) -> list[tuple[Row, float, str]]:
    """:func:`cross_validate` with the fit that served each row: (row, ratio, ``names[0]``
    for the named-runtime fit or ``names[1]`` for the runtime-agnostic one). ``only`` picks
    the groups to leave out from the sorted list of all (default: every group)."""
    # a runtime is left out with all its builds: a build era of a seen runtime is not unseen
    group = (lambda r: base_runtime(r.runtime)) if by == "runtime" else \
        (lambda r: getattr(r, by))
    out = []
    groups = sorted({group(r) for r in rows})
    for g in (only(groups) if only else groups):
        train = [r for r in rows if group(r) != g]
        test = [r for r in rows if group(r) == g]
        if agnostic:
            out += [(r, q, names[1]) for r, q in speed_ratios(fit(train, True, spec), test)]
            continue
        pa = fit(train, True, fallback or spec)
        # the agnostic fit is the named fit's prior when both have the default structures
        p = fit(train, False, spec, prior=pa if (fallback or spec) is None else None)
        out += served_ratios(p, pa, test, names)
    return out


def error_summary(ratios: Sequence[tuple[Row, float]],
                  interval: Any = None) -> dict[str, float]:
    """Mean absolute percentage error of the forecast speed against the measured one
    (|forecast / measured - 1|, with ratio q = measured / forecast), share of rows within 20%,
    and, given an interval of ratios (one ``(low, high)`` for every row, or one per row), the
    share of rows inside it (the interval's coverage)."""
    q = np.array([x for _, x in ratios])
    err = np.abs(1.0 / q - 1.0)
    out = {"rows": int(q.size), "mape": float(np.mean(err)),
           "within_20pct": float(np.mean(err <= 0.2))}
    if interval is not None:
        iv = np.broadcast_to(np.asarray(interval, dtype=float).reshape(-1, 2), (q.size, 2))
        out["coverage"] = float(np.mean((q >= iv[:, 0]) & (q <= iv[:, 1])))
    return out


def weighted_quantiles(values: Sequence[float], weights: Sequence[float],
                       levels: Sequence[float] = INTERVAL_LEVELS) -> list[float]:
    """Quantiles of ``values`` where each carries a weight (the weighted empirical distribution,
    each value placed at the midpoint of its share of the cumulative weight, linear in between;
    equal weights give NumPy's 'hazen' percentiles).

    >>> weighted_quantiles([1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1], [0.5])
    [2.5]
    >>> [round(x, 4) for x in weighted_quantiles([1.0, 2.0, 3.0], [1, 1, 2], [0.5])]
    [2.3333]
    """
    v = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    order = np.argsort(v)
    v, w = v[order], w[order]
    cum = (np.cumsum(w) - 0.5 * w) / w.sum()
    return [float(np.interp(level, cum, v)) for level in levels]


def intervals(rows: Sequence[Row], agnostic: bool = False,
              spec: dict[str, Any] | None = None,
              served: dict[str, Sequence[tuple[Row, float, str]]] | None = None
              ) -> dict[str, Any]:
    """The 80% intervals of measured / forecast speed, per regime (see the module's text):
    ``{"unseen_runtime": [lo, hi], "seen_runtime": {chip_class or "*": [lo, hi]},
    "one_chip_runtimes": [...]}`` (a runtime measured on one chip only takes the unseen
    runtime's interval: no left-out chip tests it); the runtime-agnostic fit has only the
    first. ``served``: the leave-one-runtime-out and leave-one-chip-out (row, ratio, fit name)
    triples (:func:`cross_validate_served`, keys ``"runtime"`` and ``"device"``) when they are
    already known, e.g. stored with the fit; else they are computed."""
    served = served or {}

    def left_out(by: str) -> Sequence[tuple[Row, float, str]]:
        return served[by] if by in served else cross_validate_served(rows, by, agnostic, spec)

    out: dict[str, Any] = {
        "unseen_runtime": _quantiles([(r, q) for r, q, _ in left_out("runtime")])}
    if agnostic:
        return out
    loco = [(r, q) for r, q, name in left_out("device") if name == "by_runtime"]
    out["seen_runtime"] = _seen_intervals(loco)
    # a runtime measured on one chip leaves no leave-one-chip-out ratio of its own (without that
    # chip the fit no longer knows it): its interval is the one of an unseen runtime
    chips: dict[str, set[str]] = {}
    for r in rows:
        chips.setdefault(r.runtime, set()).add(r.device)
    out["one_chip_runtimes"] = sorted(rt for rt, d in chips.items() if len(d) == 1)
    return out


def _seen_intervals(loco: Sequence[tuple[Row, float]]) -> dict[str, list[float]]:
    """The named runtimes' intervals from leave-one-chip-out ratios: a (chip class, runtime)
    pair with at least :data:`MIN_INTERVAL_ROWS` rows has its own (key ``"class|runtime"``);
    any other runtime takes its chip class's (at least that many rows), else the pooled one
    (``"*"``), both with **each runtime weighing the same** (weighing rows the same, the
    runtime with most rows would set the interval of every other: on the fit rows such an
    interval covered 59% of the other runtimes' rows, against 80% overall)."""
    seen = {"*": _quantiles(loco)}
    groups: dict[str, list[tuple[Row, float]]] = {}
    for r, q in loco:
        groups.setdefault(r.chip_class, []).append((r, q))
        groups.setdefault(f"{r.chip_class}|{r.runtime}", []).append((r, q))
    for key in sorted(groups):
        if len(groups[key]) >= MIN_INTERVAL_ROWS:
            seen[key] = _quantiles(groups[key], by_runtime="|" not in key)
    return seen


def _quantiles(ratios: Sequence[tuple[Row, float]], by_runtime: bool = True) -> list[float]:
    """The interval's ends (:data:`INTERVAL_LEVELS`) of (row, ratio) pairs, each runtime's rows
    weighing the same in all (``by_runtime``) or each row the same."""
    runtimes = [base_runtime(r.runtime) for r, _ in ratios]
    n = Counter(runtimes)
    return weighted_quantiles([q for _, q in ratios],
                              [1.0 / n[rt] if by_runtime else 1.0 for rt in runtimes])


def interval_for(params: dict[str, Any], name: str, chip_class: str,
                 runtime: str | None) -> tuple[float, float]:
    """The stored interval of ratios for one forecast: model ``name`` (``"by_runtime"`` or
    ``"agnostic"``), the chip class and the runtime (None: not named)."""
    iv = params["interval_" + name]
    if name.endswith("agnostic") or runtime is None or not has_own_terms(params[name], runtime) \
            or runtime in iv.get("one_chip_runtimes", ()):
        return tuple(iv["unseen_runtime"])
    seen = iv["seen_runtime"]
    return tuple(seen.get(f"{chip_class}|{runtime}", seen.get(chip_class, seen["*"])))


def row_intervals(params: dict[str, Any], name: str,
                  rows: Sequence[Row]) -> list[tuple[float, float]]:
    """Each row's interval of ratios as the forecast states it: its regime's, with the upper end
    capped at the bound (bound speed / forecast speed)."""
    out = []
    for r in rows:
        lo, hi = interval_for(params, name, r.chip_class, r.runtime)
        t = predict_seconds(params[name], r.t_bound, r.chip_class, r.runtime, r.n_layers,
                            r.t_dequant, _drift_seconds(params[name], r))
        out.append((lo, min(hi, t / r.t_bound)))
    return out


def load_params(path: str | Path | None = None) -> dict[str, Any]:
    """The stored fit (both models, intervals, errors)."""
    with open(path or PARAMS_FILE, encoding="utf-8") as fh:
        return json.load(fh)
