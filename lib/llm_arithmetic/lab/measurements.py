r"""Published runtime measurements: decode, prefill, time to first token and batched throughput.

``data/runtime_measurements.csv`` (package data; provenance, units and caveats in
``data/runtime_README.md``) holds published measurements of real inference runtimes (llama.cpp,
exllamav2, TensorRT-LLM, calm, gpt-fast, ...) on many chips, each with its runtime and version,
model (a catalog key where the model is catalogued), weight and KV formats, prompt and generated
lengths, batch, chip count, the value in the unit its page publishes, the page and where on it.
Together with the single-stream rows of ``data/calibration_measurements.csv`` (read by
:mod:`llm_arithmetic.lab.calibration` and converted here by :func:`calibration_rows`) they are the
data a forecast on top of the bound is fitted to and checked against.

Every row carries a ``split``: ``"validation"`` for the **reserved sources**
(:data:`RESERVED_SOURCES`), which no fit may use, ``"fit"`` for the rest. :func:`fit_rows` and
:func:`validation_rows` are the only doors a fit should use.

Units. ``value`` is kept as published; :attr:`RuntimeMeasurement.si_value` converts it to one unit
per metric (:data:`SI_UNITS`):

========== =============================== ================================================
metric     published units                 ``si_value``
========== =============================== ================================================
decode     ``token/s``, ``ms/token``        tokens/s of one stream (1000 / ms per token)
prefill    ``token/s``                      prompt tokens/s
ttft       ``ms``, ``s``                    seconds to the first token
throughput ``output token/s``,              output tokens/s of the whole deployment
           ``output token/s per GPU``       (per GPU x chips)
========== =============================== ================================================

>>> rows = load_runtime_measurements()
>>> r = next(r for r in rows if r.metric == "ttft")
>>> r.unit, r.value, r.si_value == r.value / 1000
('ms', 5.0, True)
>>> any(r.split == "fit" and is_reserved(r.measurement_url) for r in all_rows())
False
"""
from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from . import RUNTIME_CSV, calibration

__all__ = ["DATA_PATH", "METRICS", "UNITS", "SI_UNITS", "SPLITS", "RESERVED_SOURCES", "COLUMNS",
           "RuntimeMeasurement", "is_reserved", "load_runtime_measurements", "calibration_rows",
           "all_rows", "fit_rows", "validation_rows", "count_by", "LLAMA_CPP_BUILDS",
           "CUDA_GRAPHS_FIRST_BUILD", "CUDA_GRAPHS_FIRST_DATE", "PRE_AMPERE", "llama_cpp_build",
           "uses_cuda_graphs", "LLAMA_CPP_BUILD_DATES", "LLAMA_CPP_SOURCE_DATES",
           "LLAMA_CPP_REFERENCE_DATE", "llama_cpp_date", "llama_cpp_age_years",
           "age_years_of", "SCOREBOARD_15013_SPAN"]

#: Where the dataset lives (package data).
DATA_PATH: Path = RUNTIME_CSV

#: What a row measures.
METRICS: tuple[str, ...] = ("decode", "prefill", "ttft", "throughput")

#: The published units each metric may carry, with the factor to :data:`SI_UNITS` (a callable
#: of (value, chips), since a per-GPU throughput scales with the chip count).
UNITS: dict[str, dict[str, Callable[[float, int], float]]] = {
    "decode": {"token/s": lambda v, n: v, "ms/token": lambda v, n: 1000.0 / v},
    "prefill": {"token/s": lambda v, n: v},
    "ttft": {"ms": lambda v, n: v / 1000.0, "s": lambda v, n: v},
    "throughput": {"output token/s": lambda v, n: v,
                   "output token/s per GPU": lambda v, n: v * n},
}

#: The unit of :attr:`RuntimeMeasurement.si_value` per metric.
SI_UNITS: dict[str, str] = {"decode": "token/s (one stream)", "prefill": "token/s (prompt)",
                            "ttft": "s", "throughput": "token/s (output, all chips)"}

SPLITS: tuple[str, ...] = ("fit", "validation")

#: Sources reserved for validation (issue 30): name -> fragments of the URLs that point to them.
#: A row whose page matches one of them is in the validation split and in no fit.
RESERVED_SOURCES: dict[str, tuple[str, ...]] = {
    "llama.cpp discussion 4167 (Apple Silicon)": ("llama.cpp/discussions/4167",),
    "llama.cpp discussion 15013": ("llama.cpp/discussions/15013",),
    # the repository's benches/dgx-spark.md at any commit (rows cite a pinned one)
    "llama.cpp DGX Spark bench page": ("llama.cpp/blob/master/benches/dgx-spark",
                                       "llama.cpp/tree/master/benches/dgx-spark",
                                       "/benches/dgx-spark.md", "llama.cpp/discussions/16578"),
    "calm README": ("github.com/zeux/calm",),
    "gpt-fast README": ("/gpt-fast",),
}

#: Columns of ``runtime_measurements.csv``, in order.
COLUMNS: tuple[str, ...] = (
    "id", "split", "source", "metric", "runtime", "runtime_version", "device", "device_class",
    "hardware_key", "chips", "tp", "bandwidth_gbps", "bandwidth_source", "model", "model_key",
    "weight_format", "bits_per_weight", "kv_format", "prompt_tokens", "generated_tokens",
    "context", "batch", "value", "unit", "measurement_url", "location", "note")


def is_reserved(url: str) -> bool:
    """True when ``url`` points to a reserved validation source.

    >>> is_reserved("https://github.com/ggml-org/llama.cpp/discussions/4167")
    True
    >>> is_reserved("https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference")
    False
    """
    return any(f in url for frags in RESERVED_SOURCES.values() for f in frags)


@dataclass(frozen=True)
class RuntimeMeasurement:
    """One published measurement (column meanings in ``data/runtime_README.md``).

    Attributes
    ----------
    chips : int
        Chips the measured deployment uses (tensor parallel degree ``tp`` where stated).
    bandwidth_gbps : float or None
        Peak memory bandwidth of one chip [GB/s] (decimal); None where no source was read.
    bits_per_weight : float
        Effective bits per weight, scales included [bit].
    prompt_tokens, generated_tokens : int or None
        Prompt length and tokens generated per request [token]; None when not stated.
    context : int or None
        Mean tokens in the KV cache during a decode measurement [token]; None when not stated.
    batch : int
        Sequences processed together (1 for single-stream decode, prefill and TTFT rows).
    value : float
        The measurement in its published ``unit``; :attr:`si_value` in :data:`SI_UNITS`.
    """

    id: str
    split: str
    source: str
    metric: str
    runtime: str
    runtime_version: str
    device: str
    device_class: str
    hardware_key: str
    chips: int
    tp: int | None
    bandwidth_gbps: float | None
    bandwidth_source: str
    model: str
    model_key: str
    weight_format: str
    bits_per_weight: float
    kv_format: str
    prompt_tokens: int | None
    generated_tokens: int | None
    context: int | None
    batch: int
    value: float
    unit: str
    measurement_url: str
    location: str
    note: str

    @property
    def si_value(self) -> float:
        """The value in the metric's common unit (:data:`SI_UNITS`)."""
        return UNITS[self.metric][self.unit](self.value, self.chips)


def _int(s: str) -> int | None:
    return int(s) if s.strip() else None


def _float(s: str) -> float | None:
    return float(s) if s.strip() else None


def _row(d: dict[str, str]) -> RuntimeMeasurement:
    name = d.get("id", "?")
    if d["metric"] not in METRICS:
        raise ValueError(f"row {name}: metric {d['metric']!r} is not one of {METRICS}")
    if d["unit"] not in UNITS[d["metric"]]:
        known = sorted(UNITS[d["metric"]])
        raise ValueError(f"row {name}: unit {d['unit']!r} is not one of {known}")
    if d["split"] not in SPLITS:
        raise ValueError(f"row {name}: split {d['split']!r} is not one of {SPLITS}")
    return RuntimeMeasurement(
        id=d["id"], split=d["split"], source=d["source"], metric=d["metric"],
        runtime=d["runtime"], runtime_version=d["runtime_version"], device=d["device"],
        device_class=d["device_class"], hardware_key=d["hardware_key"], chips=int(d["chips"]),
        tp=_int(d["tp"]), bandwidth_gbps=_float(d["bandwidth_gbps"]),
        bandwidth_source=d["bandwidth_source"], model=d["model"], model_key=d["model_key"],
        weight_format=d["weight_format"], bits_per_weight=float(d["bits_per_weight"]),
        kv_format=d["kv_format"], prompt_tokens=_int(d["prompt_tokens"]),
        generated_tokens=_int(d["generated_tokens"]), context=_int(d["context"]),
        batch=int(d["batch"]), value=float(d["value"]), unit=d["unit"],
        measurement_url=d["measurement_url"], location=d["location"], note=d["note"])


def load_runtime_measurements(path: str | Path | None = None) -> list[RuntimeMeasurement]:
    """Rows of ``runtime_measurements.csv`` in file order; a bad metric, unit or split raises
    :class:`ValueError` naming the row and the field.

    >>> rows = load_runtime_measurements()
    >>> sorted({r.metric for r in rows})
    ['decode', 'prefill', 'throughput', 'ttft']
    """
    with open(path or DATA_PATH, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"{path or DATA_PATH}: columns {reader.fieldnames} are not {COLUMNS}")
        return [_row(d) for d in reader]


# the calibration CSV names its pages by URL; these are the short source keys used here
_CAL_SOURCES = {
    "XiongjieDai/GPU-Benchmarks-on-LLM-Inference": "xiongjiedai-gpu-benchmarks",
    "llama.cpp/pull/4406": "llama.cpp-pr-4406",
    "zeux.io": "zeux-speed-of-light-blog",
    "mlc-ai/llm-perf-bench": "mlc-llm-perf-bench",
    "llama.cpp/issues/4716": "llama.cpp-issue-4716",
    "llama.cpp/discussions/4167": "llama.cpp-discussion-4167",
}


def calibration_rows() -> list[RuntimeMeasurement]:
    """The single-stream decode rows of ``calibration_measurements.csv`` as records of this
    module (metric ``decode``, batch 1, one chip, fp16 KV cache, unit token/s).

    >>> rows = calibration_rows()
    >>> {r.metric for r in rows}, {r.batch for r in rows}
    ({'decode'}, {1})
    >>> sorted({r.split for r in rows if "4167" in r.source})
    ['validation']
    """
    out = []
    for m in calibration.load_measurements():
        source = next((v for k, v in _CAL_SOURCES.items() if k in m.measurement_url),
                      m.measurement_url)
        out.append(RuntimeMeasurement(
            id=m.id, split=m.split, source=source, metric="decode",
            runtime=m.software.split(" (")[0], runtime_version=m.software, device=m.device,
            device_class=m.device_class, hardware_key=m.hardware_key, chips=1, tp=1,
            bandwidth_gbps=m.bandwidth_gbps, bandwidth_source=m.bandwidth_source, model=m.model,
            model_key=m.model_key, weight_format=m.weight_format,
            bits_per_weight=m.bits_per_weight, kv_format="fp16", prompt_tokens=None,
            generated_tokens=None, context=m.context, batch=1, value=m.measured_tps,
            unit="token/s", measurement_url=m.measurement_url, location="", note=m.note))
    return out


def all_rows() -> list[RuntimeMeasurement]:
    """Every measurement: the calibration rows, then ``runtime_measurements.csv``."""
    return calibration_rows() + load_runtime_measurements()


#: llama.cpp's builds per source: ``"2023-24"`` or ``"2025-26"``, from the build a source
#: states (its number or commit date), else from the page's date (each source's provenance in
#: ``runtime_README.md``). A candidate structure of the forecast gives the older builds terms of
#: their own (``scripts/fit_forecast.py --select``); a test requires every llama.cpp source here.
LLAMA_CPP_BUILDS: dict[str, str] = {
    "xiongjiedai-gpu-benchmarks": "2023-24",          # tables of Dec 2023 and May 2024
    "zeux-speed-of-light-blog": "2023-24",            # the article's runs, early 2024
    "llama.cpp-pr-4406": "2023-24",                   # PR of Dec 2023
    "llama.cpp-issue-4716": "2023-24",                # issue of Jan 2024
    # ggml-org's CI node ggml-4-x86-cuda-v100: OpenLLaMA 7B v2, builds 1300-2971 (Oct 2023-May
    # 2024), then Pythia 2.8B, builds 2992-3854 (May-Oct 2024); its 2025 builds (Pythia 2.8B,
    # build 4423 of Jan 2025) under a key of their own
    "ggml-org-ci-v100": "2023-24",
    "ggml-org-ci-v100-2025": "2025-26",
    # master columns of llama.cpp maintainers' PR tables, PRs opened in 2024 (PR 4766: Jan 2024)
    "llama.cpp-cuda-prs-2024": "2023-24",
    "llama.cpp-discussion-4167": "2023-24",           # build 8e672ef, Nov 2023
    "llama.cpp-discussion-15396": "2025-26",          # builds 6205-6210, Aug 2025
    "llama.cpp-pr-15616": "2025-26",                  # master of 27 Aug 2025
    "llama.cpp-discussion-15013": "2025-26",          # scoreboard opened Aug 2025
    "llama.cpp-dgx-spark-bench": "2025-26",           # build 6918, Nov 2025
    "llm-tracker-rtx-pro-6000": "2025-26",            # build 6413
    # the llm-tracker vault's other pages: builds 1988 and 4006 (Jan and Nov 2024) and a
    # llama-bench run of 13 Nov 2023 (build not stated)
    "llm-tracker-vault-2023-24": "2023-24",
    "perf-analysis-modeling-project": "2025-26",      # build 7199, Nov 2025
    "geerlingguy-beowulf-ai-cluster-17": "2025-26",   # build 7315
    "geerlingguy-ai-benchmarks-readme": "2025-26",    # build 7825
    "calebcoffie-benchmarks": "2025-26",              # commit 3e12fbd, a 2026 harness run
    "llmfit-community-bench": "2025-26",              # llmfit 1.1.3 submissions, 2026
    "pg-inventivehq-lab": "2025-26",                  # a 2026 release
    # the same series' repository (InventiveHQ/speculative-decoding-consumer-gpus, renamed
    # local-llm-benchmarks): release b9789 (June 2026)
    "pw-inventivehq-local-llm-benchmarks": "2025-26",
    # the master (baseline) column of CUDA pull requests' compare-llama-bench tables, PRs opened
    # from January 2025 on; each row's runtime_version names the PR and the day
    "llama.cpp-cuda-prs-2025-26": "2025-26",
    # plain llama-bench tables users and developers paste into GitHub issue and PR threads,
    # builds of 2025-26 (PR 12183's thread: March 2025)
    "llama.cpp-issue-threads-2025-26": "2025-26",
    # llama-bench logs in public repository files (a blog repository's post: build 8828, 2026)
    "llama-bench-repository-files-2025-26": "2025-26",
    # the same rule for builds of May-December 2024 (CUDA graphs, Ampere or later): a blog
    # repository's post of 16 December 2024 (build not printed; each row states its run's date)
    "llama-bench-repository-files-2024": "2023-24",
    # first-hand llama-bench runs of scripts/device/ on a lent H200: build 11312 (0c1e5709, Oct 2026)
    "first-hand-h200-llama.cpp": "2025-26",
}


#: The first llama.cpp build the data show compiled with CUDA graphs (``-DGGML_CUDA_USE_GRAPHS``
#: in the compile lines of XiongjieDai's LLaMA 3 notebooks, builds 2824-2843 of 9-12 May 2024;
#: their Metal runs of 7 May are builds 2795-2797). CUDA graphs came with llama.cpp PR #6766
#: (commit bc4bba3, merged 8 May 2024: "updated Makefile build to enable CUDA graphs"): one graph
#: launch per token instead of one launch per kernel, used at batch 1 on a single GPU.
CUDA_GRAPHS_FIRST_BUILD = 2824
#: The day PR #6766 was merged (8 May 2024): a row that prints no build number but states the
#: date of its run (``run dated YYYY-MM-DD`` in ``runtime_version``) ran a build with CUDA graphs
#: from that day on (the rule of "llama.cpp CUDA builds of May-December 2024", runtime_README.md).
CUDA_GRAPHS_FIRST_DATE = "2024-05-08"
#: NVIDIA chips of the data older than Ampere (compute capability 7.0 and 6.1,
#: https://developer.nvidia.com/cuda-gpus), on which llama.cpp turns CUDA graphs off
#: (``cc < GGML_CUDA_CC_AMPERE`` in ggml-cuda.cu; lowered to Volta by PR #25749, 16 July 2026,
#: after every row of the data).
PRE_AMPERE = ("V100", "P40")


def llama_cpp_build(r: RuntimeMeasurement) -> int | None:
    """The llama.cpp build number a row states (``build 4423``, ``(2824)``), else None.

    >>> row = next(r for r in all_rows() if r.id == "xd-llama3-4090-8b-q4km")
    >>> llama_cpp_build(row)
    2824
    """
    m = re.search(r"\((\d{3,5})\)|\bbuild (\d{3,5})\b", r.runtime_version)
    return int(m.group(1) or m.group(2)) if m else None


def uses_cuda_graphs(r: RuntimeMeasurement) -> bool | None:
    """Whether a llama.cpp CUDA row ran with CUDA graphs: not when the row states its build
    had them compiled out (``GGML_CUDA_GRAPHS off``: the CMake option that defines
    ``GGML_CUDA_USE_GRAPHS``); else a build from :data:`CUDA_GRAPHS_FIRST_BUILD` on (a row
    without a build number: the date of its run where it states one, ``run dated YYYY-MM-DD``,
    from :data:`CUDA_GRAPHS_FIRST_DATE` on; else its source's era, :data:`LLAMA_CPP_BUILDS`,
    2025-26 counting as after) on a chip of Ampere or later (:data:`PRE_AMPERE`); None for a
    row of another runtime or backend (Metal, CPU).

    >>> rows = {r.id: r for r in all_rows()}
    >>> [uses_cuda_graphs(rows[i]) for i in ("xd-llama1-4090-7b-q4_0", "xd-llama3-4090-8b-q4km",
    ...                                      "xd-llama3-m1-8b-q4km")]
    [False, True, None]
    >>> uses_cuda_graphs(rows["pamp-l40s-qwen3-8b-q5km-tg128"])    # build 7199, graphs off
    False
    >>> uses_cuda_graphs(rows["rf24-yeswearecoding-rtx3060-llama31-8b-q5km-tg512"])  # Dec 2024
    True
    """
    if r.runtime != "llama.cpp" or not r.device.startswith("NVIDIA"):
        return None
    if re.search(r"\bGGML_CUDA_GRAPHS off\b", r.runtime_version, re.IGNORECASE):
        return False
    build = llama_cpp_build(r)
    dated = re.search(r"\brun dated (\d{4}-\d{2}-\d{2})\b", r.runtime_version)
    if build is not None:
        recent = build >= CUDA_GRAPHS_FIRST_BUILD
    elif dated:
        recent = dated.group(1) >= CUDA_GRAPHS_FIRST_DATE      # ISO dates compare as strings
    else:
        recent = LLAMA_CPP_BUILDS[r.source] == "2025-26"
    return recent and not any(chip in r.device for chip in PRE_AMPERE)


def fit_rows(metric: str | None = None) -> list[RuntimeMeasurement]:
    """Rows a fit may use (split ``fit``), of one metric or all; never a reserved source."""
    return [r for r in all_rows() if r.split == "fit" and metric in (None, r.metric)]


def validation_rows(metric: str | None = None) -> list[RuntimeMeasurement]:
    """Rows from the reserved sources (split ``validation``), of one metric or all."""
    return [r for r in all_rows() if r.split == "validation" and metric in (None, r.metric)]


def count_by(rows: Iterable[RuntimeMeasurement],
             key: Callable[[RuntimeMeasurement], str]) -> dict[str, int]:
    """Rows per value of ``key``, most frequent first.

    >>> count_by(all_rows(), lambda r: r.metric)["decode"] >= 300
    True
    """
    return dict(Counter(key(r) for r in rows).most_common())


#: The day of each llama.cpp build of the data, by build number (ISO dates; a test requires one
#: for every llama.cpp decode fit row, from here, its ``runtime_version`` or its source). Which
#: day, in order of preference: the build's commit day (ggml-org/ci's README for the commit, its
#: ``date:`` line, as the rows' notes cite it; the release's page); else the run's day the row's
#: source states (a build is no newer than the run that used it); else the page's. The builds of
#: XiongjieDai's December 2023 tables were not dated one by one: they lie between build 1300
#: (2 Oct 2023) and 1743 (2 Jan 2024) by ggml-org/ci, and take the tables' month (15 Dec 2023);
#: build 1026 (the M1 Max rows) predates build 1300, so that page date understates its age.
LLAMA_CPP_BUILD_DATES: dict[int, str] = {
    # XiongjieDai's LLaMA (1) / Llama 2 tables of December 2023: the page's month
    1026: "2023-12-15", 1619: "2023-12-15", 1620: "2023-12-15", 1671: "2023-12-15",
    1680: "2023-12-15", 1685: "2023-12-15", 1691: "2023-12-15",
    # ggml-org/ci's README for the commit (node ggml-4-x86-cuda-v100), the rows' notes
    1300: "2023-10-02", 1743: "2024-01-02", 2585: "2024-04-01", 2971: "2024-05-22",
    2992: "2024-05-25", 3293: "2024-07-04", 3854: "2024-10-01", 4423: "2025-01-02",
    # the llm-tracker vault's runs: 28 January 2024 (build 1988), 1-2 November 2024 (4006)
    1988: "2024-01-28", 4006: "2024-11-01",
    # XiongjieDai's LLaMA 3 runs (their notebooks): Metal builds 2795-2797 of 7 May 2024, CUDA
    # builds 2824-2843 of 9-12 May 2024 (2824 on the 9th, CUDA_GRAPHS_FIRST_BUILD; the others
    # taken as the 10th: at most two days off)
    2795: "2024-05-07", 2796: "2024-05-07", 2797: "2024-05-07", 2824: "2024-05-09",
    2833: "2024-05-10", 2834: "2024-05-10", 2836: "2024-05-10", 2837: "2024-05-10",
    2843: "2024-05-10",
    # discussion 15396, opened 18 August 2025 (the tables' replies of 18-19 August)
    6205: "2025-08-18", 6208: "2025-08-18", 6210: "2025-08-18",
    6413: "2025-09-08",          # the llm-tracker page's run: vault backups of 8-10 Sep 2025
    6918: "2025-11-02",          # the DGX Spark page as of 2 November 2025 (reserved)
    7199: "2025-11-29",          # perf-analysis's L40S run of 29 Nov 2025 (the A30's: 2 Dec)
    7315: "2025-12-08",          # Geerling's M3 Ultra review week (sbc-reviews issue 95)
    7825: "2026-02-07",          # geerlingguy/ai-benchmarks issue 48's runs
    8828: "2026-04-17",          # release page github.com/ggml-org/llama.cpp/releases/tag/b8828
    9789: "2026-06-26",          # InventiveHQ's experiment 12 run, 'version: 9789'
}
#: The day of a llama.cpp source whose rows name no build number and state no date in
#: ``runtime_version``: the run's day the source states, else the page's (a month or a year
#: only: its 15th, or 1 July).
LLAMA_CPP_SOURCE_DATES: dict[str, str] = {
    "xiongjiedai-gpu-benchmarks": "2023-12-15",        # the appendix rows: the Dec 2023 page
    "zeux-speed-of-light-blog": "2024-03-15",          # the article's date
    "llama.cpp-pr-4406": "2023-12-16",                 # the comment's date
    "llama.cpp-issue-4716": "2023-12-31",              # the date
    "llama.cpp-cuda-prs-2024": "2024-01-10",           # PR 4766's thread, 7-10 January 2024
    "llama.cpp-issue-threads-2025-26": "2025-03-04",   # PR 12183's companion issue 12182
    "calebcoffie-benchmarks": "2026-07-01",            # a 2026 run (driver 595): the year only
    "pg-inventivehq-lab": "2026-07-01",                # "mid-2026" (cites June 2026 results)
    "llama.cpp-discussion-4167": "2023-11-21",         # build 8e672ef (reserved)
    # the scoreboard (reserved) states no build in the copies read: the midpoint of
    # SCOREBOARD_15013_SPAN, a build's age of half a year where the truth lies between 0 and 1
    "llama.cpp-discussion-15013": "2026-01-30",
}
#: The days between which discussion 15013's builds lie, none of which its copies state: the
#: scoreboard's opening (early August 2025; discussion 15396 opened on the 18th) and the
#: earliest copy read (an engine survey researched 30-31 July 2026). Its rows are dated at the
#: midpoint (:data:`LLAMA_CPP_SOURCE_DATES`); ``forecast_validation.reserved_error_at_ages``
#: gives the reserved error at either end.
SCOREBOARD_15013_SPAN = ("2025-08-01", "2026-07-30")
#: The reference day of the forecast's build drift: the newest day of a llama.cpp fit row (the
#: llmfit M4 Pro llama-server run of 29 July 2026); a forecast served for ``llama.cpp`` is for a
#: build of this day or later, with no drift term.
LLAMA_CPP_REFERENCE_DATE = "2026-07-29"


def llama_cpp_date(r: RuntimeMeasurement) -> str | None:
    """The day of a llama.cpp row's build (ISO): :data:`LLAMA_CPP_BUILD_DATES` by the build
    number the row states, else a date its ``runtime_version`` states (the run's or the
    master's), else :data:`LLAMA_CPP_SOURCE_DATES`; None for another runtime or an undated row.

    >>> rows = {r.id: r for r in all_rows()}
    >>> [llama_cpp_date(rows[i]) for i in ("xd-llama3-4090-8b-q4km", "zeux-4090-mistral-llamacpp-q4_0",
    ...                                    "prs25-16630-rtx4090-qwen3-0.6b-f16-tg128")]
    ['2024-05-09', '2024-03-15', '2025-10-17']
    """
    if r.runtime != "llama.cpp":
        return None
    build = llama_cpp_build(r)
    if build in LLAMA_CPP_BUILD_DATES:
        return LLAMA_CPP_BUILD_DATES[build]
    stated = re.search(r"\b(20\d\d-\d\d-\d\d)\b", r.runtime_version)
    return stated.group(1) if stated else LLAMA_CPP_SOURCE_DATES.get(r.source)


def llama_cpp_age_years(r: RuntimeMeasurement) -> float:
    """Years from a llama.cpp row's build (:func:`llama_cpp_date`) to
    :data:`LLAMA_CPP_REFERENCE_DATE` (days / 365.25, never below 0); 0 for another runtime or
    an undated row.

    >>> rows = {r.id: r for r in all_rows()}
    >>> round(llama_cpp_age_years(rows["xd-llama3-4090-8b-q4km"]), 3)
    2.22
    """
    day = llama_cpp_date(r)
    return 0.0 if day is None else age_years_of(day)


def age_years_of(day: str) -> float:
    """Years from ``day`` (ISO) to :data:`LLAMA_CPP_REFERENCE_DATE`: days / 365.25, never
    below 0 (a build of the reference day or later pays no drift).

    >>> [round(age_years_of(d), 3) for d in SCOREBOARD_15013_SPAN]
    [0.991, 0.0]
    """
    from datetime import date

    days = (date.fromisoformat(LLAMA_CPP_REFERENCE_DATE) - date.fromisoformat(day)).days
    return max(0.0, days / 365.25)
