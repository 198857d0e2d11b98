r"""Published serving measurements against their roofline bounds.

``data/serving_measurements.csv`` holds 194 published measurements of batched, multi-GPU LLM
serving (MLPerf Inference v4.1 and v5.1 closed, TensorRT-LLM's performance tables, SGLang's and
DeepSeek's published figures; provenance and caveats in ``data/serving_README.md``). This module
loads the rows (:func:`load_measurements`), maps each to a catalog model and chip, computes the
bound the roofline puts on it under the row's stated parallelism and lengths (:func:`compare`,
:func:`comparisons`) and the efficiency: measured over bound for a rate, bound over measured
for a time. Every efficiency is at most 1 (``tests/test_serving.py`` asserts it): a bound is
what no implementation can beat.

The bound of a replica of N chips running a batch of B sequences
------------------------------------------------------------------
A replica's decode step of B sequences moves the weights it reads (the experts the batch
touches, uniform routing) and each sequence's cache at the mean decode context
S = T + (G + 1) / 2, and does each sequence's decode FLOPs plus its share of the prefill of its
prompt, F_pre(T) / G (continuous batching interleaves prefills with decode steps, so over a
request's G steps the replica also does its prefill). The step takes at least the roofline of
those bytes and FLOPs over the N chips (:data:`~llm_arithmetic.formulas.serving.
time_per_output_token`, no communication), and yields B tokens:

* throughput rows: output tokens/s <= replicas x B / t_step(B);
* TPOT rows (MLPerf's mean time per output token): TPOT >= t_step(B_run), with B_run the mean
  number of sequences decoding, from Little's law: the replica's measured output rate (the
  row measured at the same time, named in its notes) times the measured TPOT;
* per-user rows: tokens/s per user <= (output tokens/s bound at the stated concurrency) /
  concurrency (Little's law again: each of the concurrent requests gets its share);
* decode-only rows (a disaggregated decode pool): output tokens/s per node <= 8 x (the
  replica's bound / N), at the stated KV length and per-GPU batch, no prefill charged;
* prefill-only rows: input tokens/s per node <= 8 x R / (F_pre(T) / T), compute alone.

Assumptions (each one can only raise a bound, so that a bound stays a bound)
----------------------------------------------------------------------------
1. **Batch.** Where a row states a batch (MLPerf ``gpu_batch_size`` or ``max_num_seqs``, a
   concurrency), it is a cap: the running batch is the smaller of the cap and what fits. Where
   none is stated (the TensorRT-LLM tables), the batch is what fits: the replica's memory (N x
   the chip's capacity, nothing reserved) less the weights, over each sequence's cache at its
   mean length over a request, T + G/2. A bound grows with B, so the largest batch gives the
   largest bound.
2. **Formats.** ``fp8`` weights are 8 bits; ``fp4`` is NVFP4, 4.5 bits for every weight (the
   sources do not say which layers stay at higher precision); ``fp4+fp8`` (the v4.1 B200
   preview) is counted as all NVFP4; SGLang's unstated precision is the FP8 checkpoint. A
   product with the weights runs at the peak of its format's precision (:func:`~llm_arithmetic.
   catalog.formats.compute_chain`), attention's at the cache's, as the estimate takes them
   (:func:`~llm_arithmetic.layout.attention_peak_for`). An unstated KV-cache format is taken
   as fp8.
3. **Chips.** Datasheet peaks and bandwidths of the hardware catalog, dense. H200 "CTS" is the
   H200. The SGLang blog's "H100" is the H100 SXM. Rows on chips the catalog lacks (H800, GH200,
   GB300) get no bound.
4. **Models.** DeepSeek-R1 (and R1-0528) has DeepSeek-V3's architecture (R1 is trained from
   V3-Base): the catalog's ``deepseek-v3``. Llama 2 70B chat has Llama 2 70B's shapes.
5. **Parallelism.** A replica's chips share its bytes and FLOPs evenly and their communication
   is left out (it may overlap); pipeline bubbles, replicated KV heads and DP-attention's
   replicated weights are left out too. An MLPerf result sums ``dp`` replicas of tp x pp chips;
   a row whose parallelism is not stated is one replica of all its chips (pooling memory gives
   the largest batch).
6. **Lengths.** Where the mean prompt length is not stated (every MLPerf row; the TensorRT-LLM
   DeepSeek FP8-KV row), no prefill is charged and the cache holds the generated tokens only:
   the bound is looser, never lower. SGLang's "1K" and "2K" prompts are read as 1,000 and 2,000
   tokens (fewer FLOPs per token than 1,024...); its "4K" row carries the 4,096 tokens the blog's
   prefill profile table states for the same run.
7. **Excluded.** Speculative rows (MTP; SGLang's simulated MTP; DeepSeek's profile, which
   includes MTP): a step can yield several tokens. Rows without a workload (``bound_ready =
   no``). Production averages on H800 (no catalog chip; see 3).

>>> rows = load_measurements()
>>> len(rows)
194
>>> c = compare(rows[2])                       # AMD 8 x MI300X, Llama 2 70B, Offline
>>> c.hardware, c.replicas, c.chips_per_replica, c.batch_basis
('mi300x', 8, 1, 'stated cap')
>>> 0 < c.efficiency <= 1
True
"""
from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from .. import numeric as N
from ..catalog.formats import bits_per_weight
from ..catalog.hardware import Hardware, get_hardware
from ..catalog.model import Model
from ..catalog.model_catalog import get_model
from ..layout import attention_peak_for, peak_for

__all__ = ["DATA_PATH", "MODEL_MAP", "Measurement", "Comparison", "load_measurements",
           "catalog_model", "catalog_chip", "replica_step", "fit_batch", "compare",
           "comparisons", "table", "SOURCE_GROUPS", "why_excluded", "efficiency_groups"]

#: The dataset (package data); provenance in ``serving_README.md`` beside it.
DATA_PATH: Path = Path(__file__).resolve().parent / "data" / "serving_measurements.csv"

#: Hugging Face repository of a row's model -> catalog name.
MODEL_MAP: Mapping[str, str] = {
    "meta-llama/Llama-2-70b-chat-hf": "llama-2-70b",
    "meta-llama/Llama-3.1-405B-Instruct": "llama-3.1-405b",
    "meta-llama/Llama-3.3-70B-Instruct": "llama-3.3-70b",
    "meta-llama/Llama-3.1-8B-Instruct": "llama-3.1-8b",
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "mixtral-8x7b",
    "Qwen/Qwen3-235B-A22B": "qwen3-235b-a22b",
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct": "llama-4-maverick",
    "deepseek-ai/DeepSeek-V3": "deepseek-v3",
    "deepseek-ai/DeepSeek-R1": "deepseek-v3",   # same architecture (assumption 4)
}

#: A row's device name -> catalog chip, by the first pattern found in it (assumption 3).
_CHIPS: tuple[tuple[str, str | None], ...] = (
    ("GH200", None), ("GB300", None), ("H800", None), ("GB200", "gb200"), ("B200", "b200"),
    ("H200", "h200"), ("H100", "h100-sxm"), ("MI325X", "mi325x"), ("MI300X", "mi300x"),
)

#: A row's weight format -> catalog format (assumption 2).
_WEIGHTS = {"fp8": "fp8", "fp4": "nvfp4", "fp4+fp8": "nvfp4", "fp16": "fp16", "": "fp8"}
_KV_BITS = {"fp8": 8, "fp16": 16, "": 8}
#: SGLang's rounded prompt lengths, read low (assumption 6).
_ROUNDED_PROMPTS = {"1k": 1000, "2k": 2000, "4k": 4000}
#: GPUs behind a "per node" figure.
NODE_GPUS = 8


def _int(text: str) -> int | None:
    return int(text) if text.strip() else None


def _float(text: str) -> float | None:
    return float(text) if text.strip() else None


@dataclass(frozen=True)
class Measurement:
    """One row of ``serving_measurements.csv`` (columns as in ``serving_README.md``; empty
    cells are None or "")."""

    id: str
    model: str
    weights: str
    kv_dtype: str
    device: str
    chips: int | None
    tp: int | None
    pp: int | None
    ep: int | None
    dp: int | None
    framework: str
    scenario: str
    phase: str
    input_len: float | None
    output_len: float | None
    kv_len_mean: float | None
    batch_or_concurrency: int | None
    batch_kind: str
    metric: str
    value: float
    unit: str
    speculative: str
    disaggregated: str
    bound_ready: str
    source_kind: str
    source: str
    notes: str


def load_measurements(path: str | Path | None = None) -> list[Measurement]:
    """The rows of the dataset, typed.

    >>> rows = load_measurements()
    >>> rows[0].metric, rows[0].value, rows[0].chips
    ('output_tokens_per_s_total', 8840.42, 8)
    """
    path = Path(path) if path is not None else DATA_PATH
    with path.open(newline="", encoding="utf-8") as f:
        out = []
        for d in csv.DictReader(f):
            out.append(Measurement(
                id=d["id"], model=d["model"], weights=d["weights"], kv_dtype=d["kv_dtype"],
                device=d["device"], chips=_int(d["chips"]), tp=_int(d["tp"]), pp=_int(d["pp"]),
                ep=_int(d["ep"]), dp=_int(d["dp"]), framework=d["framework"],
                scenario=d["scenario"], phase=d["phase"], input_len=_float(d["input_len"]),
                output_len=_float(d["output_len"]), kv_len_mean=_float(d["kv_len_mean"]),
                batch_or_concurrency=_int(d["batch_or_concurrency"]),
                batch_kind=d["batch_kind"], metric=d["metric"], value=float(d["value"]),
                unit=d["unit"], speculative=d["speculative"],
                disaggregated=d["disaggregated"], bound_ready=d["bound_ready"],
                source_kind=d["source_kind"], source=d["source"], notes=d["notes"]))
    return out


def catalog_model(row: Measurement) -> str | None:
    """The catalog model of a row, or None."""
    return MODEL_MAP.get(row.model)


def catalog_chip(row: Measurement) -> str | None:
    """The catalog chip of a row's device (assumption 3), or None."""
    for pattern, name in _CHIPS:
        if pattern in row.device:
            return name
    return None


@dataclass(frozen=True)
class Comparison:
    """A measurement beside its bound.

    Attributes
    ----------
    row : Measurement
    model, hardware, weights : str or None
        Catalog model, chip and weight format used.
    bits_kv : int
    replicas, chips_per_replica : int
    batch : float or None
        Sequences decoding together on one replica [-].
    batch_basis : str
        Where the batch comes from: ``"stated cap"``, ``"memory fit"``, ``"Little's law"``,
        ``"stated per GPU"``, ``"stated concurrency"``, ``""``.
    prompt, generated : float
        Prompt tokens charged, output tokens per request [token].
    context : float
        Cache length per sequence at the mean decode step [token].
    peak_flops, bandwidth : float or None
        Per chip [FLOP/s], [B/s].
    bound : float or None
        The bound in the row's unit: an upper bound for a rate, a lower bound for a time.
    limit : str
        ``"memory"`` or ``"compute"``: which side of the roofline binds.
    efficiency : float or None
        Measured / bound (rates) or bound / measured (times): at most 1.
    excluded : str
        Why there is no bound ("" when there is one).
    assumptions : tuple of str
        What the bound had to assume for this row, beyond the module's rules.
    """

    row: Measurement
    model: str | None = None
    hardware: str | None = None
    weights: str | None = None
    bits_kv: int = 8
    replicas: int = 1
    chips_per_replica: int = 1
    batch: float | None = None
    batch_basis: str = ""
    prompt: float = 0
    generated: float = 0
    context: float = 0
    peak_flops: float | None = None
    bandwidth: float | None = None
    bound: float | None = None
    limit: str = ""
    efficiency: float | None = None
    excluded: str = ""
    assumptions: tuple[str, ...] = field(default_factory=tuple)

    @property
    def measured(self) -> float:
        return self.row.value


def _peak(chip: Hardware, fmt: str) -> float:
    rate = peak_for(chip, fmt, bits_per_weight(fmt))
    if rate is None:
        raise KeyError(f"{chip.name} has no peak for {fmt}")
    return rate


def _step_rate(model: Model, chip: Hardware, fmt: str, bits_kv: Any, flops: float,
               attn_flops: float) -> float:
    """The rate ``flops`` take when ``attn_flops`` of them are attention's: the weights' at
    their format's peak, attention's at the cache's (``step_peak_flops``) [FLOP/s]."""
    peak = _peak(chip, fmt)
    attn = attention_peak_for(chip, bits_kv) or peak
    if attn == peak or flops <= 0:
        return peak
    return float(N.step_peak_flops(step_flops=flops, step_attn_flops=attn_flops,
                                   peak_flops=peak, attn_peak_flops=attn))


def replica_step(model: Model, chip: Hardware, weights: str, bits_kv: Any, *, n_chips: int,
                 batch: float, prompt: float, generated: float,
                 context: float | None = None) -> tuple[float, str]:
    """Lower bound on one decode step of ``batch`` sequences on a replica of ``n_chips`` chips,
    each step also carrying 1/G of every sequence's prefill of ``prompt`` tokens, and which
    side binds: (seconds, ``"memory"`` or ``"compute"``).

    The cache is read at ``context`` (default: the mean decode context, prompt +
    (generated + 1) / 2); communication is left out.
    """
    bits = bits_per_weight(weights)
    if context is None:
        context = prompt + (generated + 1) / 2
    prefill_share = float(model.prefill_flops(prompt)) / generated if prompt and generated \
        else 0.0
    attn_share = float(model.evaluate("layer_prefill_flops", prompt=prompt)) / generated \
        if prompt and generated else 0.0
    seq_flops = float(model.decode_flops_per_token(context)) + prefill_share
    step_bytes = N.batched_step_bytes(
        weight_bytes=float(model.step_weight_bytes(bits, batch)),
        seq_bytes=float(model.seq_bytes(context, bits_kv, bits_kv)), batch=batch)
    step_flops = N.batched_step_flops(seq_flops=seq_flops, batch=batch)
    peak = _step_rate(model, chip, weights, bits_kv, seq_flops,
                      float(model.evaluate("layer_decode_flops", context=context)) + attn_share)
    t = N.time_per_output_token(step_bytes=step_bytes, step_flops=step_flops, n_chips=n_chips,
                                bandwidth=chip.bandwidth, peak_flops=peak)
    limit = "compute" if step_flops / peak > step_bytes / chip.bandwidth else "memory"
    return float(t), limit


def fit_batch(model: Model, chip: Hardware, weights: str, bits_kv: Any, *, n_chips: int,
              context: float) -> int:
    """Sequences whose cache at ``context`` tokens fits in a replica's memory beside the
    weights, nothing reserved (assumption 1) [-]."""
    per_seq = float(model.kv_cache_bytes(context, 1, bits_kv)) + float(model.state_bytes(bits_kv))
    b = N.max_sequences(capacity=n_chips * chip.capacity,
                        weight_bytes=float(model.weight_bytes(bits_per_weight(weights))),
                        seq_bytes=per_seq)
    return int(b)


def _excluded(row: Measurement, reason: str, **kw: Any) -> Comparison:
    return Comparison(row=row, excluded=reason, **kw)


def compare(row: Measurement, rows: Iterable[Measurement] | None = None) -> Comparison:
    """The bound on one row, and its efficiency; or why it has none (``excluded``).

    ``rows`` is the dataset, for a TPOT row's companion throughput row (loaded when None).
    """
    if row.speculative not in ("no", ""):
        return _excluded(row, f"speculative decoding ({row.speculative}): a step may yield "
                              "several tokens")
    if row.bound_ready == "no":
        return _excluded(row, "workload not stated (bound_ready = no)")
    model_name, chip_name = catalog_model(row), catalog_chip(row)
    if model_name is None:
        return _excluded(row, f"model {row.model} not in the catalog")
    if chip_name is None:
        return _excluded(row, f"device {row.device!r} not in the hardware catalog")
    if row.speculative == "" and row.source_kind == "production":
        return _excluded(row, "production average; speculative decoding not stated")
    model, chip = get_model(model_name), get_hardware(chip_name)
    weights = _WEIGHTS.get(row.weights)
    if weights is None:
        return _excluded(row, f"weight format {row.weights!r} not mapped")
    bits_kv = _KV_BITS.get(row.kv_dtype, 8)
    notes: list[str] = []
    if not row.weights:
        notes.append("weights not stated: fp8 assumed")
    if not row.kv_dtype:
        notes.append("KV-cache format not stated: fp8 assumed")

    chips = row.chips or 1
    if row.dp and row.tp:
        replicas = row.dp
        per_replica = chips // replicas
    else:
        replicas, per_replica = 1, chips
        if row.tp is None and chips > 1:
            notes.append("parallelism not stated: one replica of all the chips")
    common = dict(model=model_name, hardware=chip_name, weights=weights, bits_kv=bits_kv,
                  replicas=replicas, chips_per_replica=per_replica,
                  peak_flops=_peak(chip, weights), bandwidth=chip.bandwidth)

    # ---- prefill-only rows: input tokens/s per node, compute alone ------------------------
    if row.metric == "input_tokens_per_s_per_node":
        prompt = row.input_len
        if prompt is None:
            suffix = re.search(r"(\dk)$", row.id)
            prompt = _ROUNDED_PROMPTS.get(suffix.group(1)) if suffix else None
            if prompt is None:
                return _excluded(row, "prompt length not stated", **common)
            notes.append(f"prompt '{suffix.group(1).upper()}' read as {prompt:,} tokens")
        flops = float(model.prefill_flops(prompt))
        rate = _step_rate(model, chip, weights, bits_kv, flops,
                          float(model.evaluate("layer_prefill_flops", prompt=prompt)))
        bound = NODE_GPUS * rate / (flops / prompt)
        return Comparison(row=row, prompt=prompt, bound=bound, limit="compute",
                          efficiency=row.value / bound, assumptions=tuple(notes), **common)

    # ---- the workload of a decode step ----------------------------------------------------
    generated = row.output_len
    prompt = row.input_len
    if row.phase == "decode":
        if row.kv_len_mean is None or row.batch_or_concurrency is None:
            return _excluded(row, "decode-only row without a KV length and batch", **common)
        context = row.kv_len_mean
        batch = row.batch_or_concurrency * per_replica
        t, limit = replica_step(model, chip, weights, bits_kv, n_chips=per_replica,
                                batch=batch, prompt=0, generated=1, context=context)
        bound = NODE_GPUS * batch / t / per_replica
        return Comparison(row=row, batch=batch, batch_basis="stated per GPU", context=context,
                          bound=bound, limit=limit, efficiency=row.value / bound,
                          assumptions=tuple(notes), **common)
    if generated is None:
        return _excluded(row, "output length not stated", **common)
    if prompt is None:
        prompt = 0.0
        notes.append("prompt length not stated: no prefill charged, cache of the output only")
    occupancy = prompt + generated / 2
    fit = fit_batch(model, chip, weights, bits_kv, n_chips=per_replica, context=occupancy)
    if fit < 1:
        return _excluded(row, "the weights leave no room for a sequence's cache", **common)
    context = prompt + (generated + 1) / 2
    kw = dict(prompt=prompt, generated=generated, context=context, **common)

    def step(b: float) -> tuple[float, str]:
        return replica_step(model, chip, weights, bits_kv, n_chips=per_replica, batch=b,
                            prompt=prompt, generated=generated)

    if row.metric == "tpot_ms_mean":
        companion = next((r for r in (rows if rows is not None else load_measurements())
                          if r.id == row.id.removesuffix("-tpot")), None)
        if companion is None or companion.metric != "output_tokens_per_s_total":
            return _excluded(row, "no throughput row measured with it", **kw)
        measured = row.value * 1e-3
        batch = companion.value / replicas * measured
        if batch > fit:
            notes.append(f"Little's-law batch {batch:,.0f} exceeds the {fit:,} that fit")
        t, limit = step(batch)
        bound = t * 1e3
        return Comparison(row=row, batch=batch, batch_basis="Little's law", bound=bound,
                          limit=limit, efficiency=bound / row.value, assumptions=tuple(notes),
                          **kw)

    cap = row.batch_or_concurrency
    batch = min(cap, fit) if cap else fit
    basis = "memory fit" if not cap or fit < cap else "stated cap"
    t, limit = step(batch)
    rate = replicas * batch / t
    if row.metric == "output_tokens_per_s_total":
        bound = rate
    elif row.metric == "tokens_per_s_per_user" and cap:
        bound = rate / cap
        basis = "stated concurrency"
    else:
        return _excluded(row, f"metric {row.metric} not bounded here", **kw)
    return Comparison(row=row, batch=batch, batch_basis=basis, bound=bound, limit=limit,
                      efficiency=row.value / bound, assumptions=tuple(notes), **kw)


def comparisons(rows: list[Measurement] | None = None) -> list[Comparison]:
    """:func:`compare` for every row of the dataset."""
    rows = rows if rows is not None else load_measurements()
    return [compare(r, rows) for r in rows]


def table(rows: list[Measurement] | None = None) -> list[dict[str, Any]]:
    """One dict per row: id, model, chip, metric, measured, bound, efficiency, limit, batch
    and its basis, excluded, assumptions (for a table or a plot)."""
    out = []
    for c in comparisons(rows):
        out.append(dict(id=c.row.id, model=c.model or c.row.model, hardware=c.hardware,
                        chips=c.row.chips, replicas=c.replicas,
                        chips_per_replica=c.chips_per_replica, weights=c.weights,
                        metric=c.row.metric, unit=c.row.unit, measured=c.row.value,
                        bound=c.bound, efficiency=c.efficiency, limit=c.limit, batch=c.batch,
                        batch_basis=c.batch_basis, prompt=c.prompt, generated=c.generated,
                        excluded=c.excluded, assumptions="; ".join(c.assumptions)))
    return out


#: How the serving chapter groups the bounded rows by where they were published.
SOURCE_GROUPS: dict[str, tuple[str, ...]] = {
    "MLPerf, prompt length not in the files read": ("mlperf",),
    "TensorRT-LLM tables, offline, batch = what fits": ("vendor-doc",),
    "vendor and framework blogs": ("vendor-blog", "framework-blog"),
}


def why_excluded(c: Comparison) -> str:
    """Why a row has no bound, in a few words: a chip the catalog lacks, speculative decoding,
    or no workload stated.

    >>> reasons = {why_excluded(c) for c in comparisons() if c.bound is None}
    >>> reasons <= {"a chip the catalog lacks", "speculative decoding", "no workload stated"}
    True
    """
    return ("a chip the catalog lacks" if "hardware catalog" in c.excluded
            else "speculative decoding" if "speculative" in c.excluded
            else "no workload stated")


def efficiency_groups(bounded: Sequence[Comparison]) -> dict[str, list[Comparison]]:
    """The bounded rows by source (:data:`SOURCE_GROUPS`), then MLPerf's by scenario
    (``"MLPerf, offline"``, ...), in that order.

    >>> groups = efficiency_groups([c for c in comparisons() if c.bound is not None])
    >>> list(groups)[-3:]
    ['MLPerf, offline', 'MLPerf, server', 'MLPerf, interactive']
    """
    groups = {label: [c for c in bounded if c.row.source_kind in kinds]
              for label, kinds in SOURCE_GROUPS.items()}
    for s in ("offline", "server", "interactive"):
        groups[f"MLPerf, {s}"] = [c for c in bounded
                                  if c.row.source_kind == "mlperf" and c.row.scenario == s]
    return groups
