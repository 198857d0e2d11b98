"""Problem sets to hand out: one variant per student, drawn from the catalogs, with a key.

``python -m llm_arithmetic problems --roster roster.csv --key KEYFILE --out DIR [--pdf]``

* The roster is a CSV file with a header row and the columns ``id`` and ``name``.
* The key file holds the instructor's secret (created, 256 random bits, when it does not exist).
  It must lie outside the book's repository. Each student's variant is drawn with a seed that is
  an HMAC-SHA256 of the student's id under that key, and the set carries only an opaque code (a
  second HMAC): nothing printed on a student's sheet lets anyone regenerate it or its answers.
* ``DIR/sets/<code>.md`` (and ``.pdf`` with ``--pdf``: Chromium's print to PDF through
  Playwright) is the student's sheet; ``DIR/keys/<code>.md`` the answer key of that variant with
  the steps; ``DIR/keys/roster.csv`` maps ids and names to codes, and ``DIR/keys/answers.csv``
  lists every answer with its tolerance for grading. Hand out ``sets/``, keep ``keys/``.

Every set has one problem per template (:data:`TEMPLATES`), at least one for every chapter.
Each problem states every number it needs, so it can be solved with a calculator from the
statement alone; its answer is computed by the package. A scenario is drawn again until the
package accepts it: the model fits in the memory of the device where the problem says it runs,
and every number (speeds, times, batches) lies in a realistic range.

>>> key = b"k" * 32
>>> a = draw(key, "s001", "Ada Lovelace")
>>> a.code == draw(key, "s001", "Someone else").code != draw(key, "s002", "Ada").code
True
>>> len(a.problems) == len(TEMPLATES) >= 12
True
>>> draw(b"x" * 32, "s001", "Ada").problems != a.problems
True
"""
from __future__ import annotations

import base64
import csv
import hashlib
import hmac
import math
import os
import random
import re
import secrets
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

from ..catalog.formats import BITS_PER_WEIGHT
from ..catalog.hardware import HARDWARE, Hardware
from ..catalog.model import Model
from ..catalog.model_catalog import CATALOG, MODELS
from ..core.units import GB, GiB
from ..formulas import flops, memory, parallel, params, roofline, serving

__all__ = ["Problem", "ProblemSet", "TEMPLATES", "draw", "read_key", "read_roster", "write_sets",
           "wording_problems"]

#: Book chapters (notebook stems) each template practises.
CHAPTERS = ("01-puzzle", "02-spec-sheets", "03-counting-parameters", "04-kv-cache",
            "05-flops-intensity", "06-roofline", "07-quantization", "08-modern-architectures",
            "09-batching", "10-prefill", "11-parallelism", "12-serving",
            "13-speculative-decoding", "14-cost", "15-case-studies", "16-common-mistakes",
            "17-predicted-vs-measured", "17b-forecast")


@dataclass(frozen=True)
class Problem:
    chapter: str      #: the chapter it practises (a notebook stem)
    title: str
    statement: str
    answer: float
    unit: str
    solution: str     #: the steps, for the key
    rel_tol: float = 0.01

    def answer_text(self) -> str:
        if self.rel_tol == 0:
            return f"{int(self.answer):,} {self.unit}"
        return f"{_sig(self.answer, 4)} {self.unit}"


@dataclass(frozen=True)
class ProblemSet:
    code: str
    student_id: str
    name: str
    problems: tuple[Problem, ...]

    def markdown(self) -> str:
        lines = [f"# Problem set {self.code}", "", f"**Name:** {self.name}", "",
                 "Every number you need is in the statement. Units: GB = 10^9 B, GiB = 2^30 B, "
                 "GB/s = 10^9 B/s, TFLOP/s = 10^12 FLOP/s (a rate); a FLOP count is not a rate. "
                 "A multiply-add counts as 2 FLOPs. Give each answer in the unit asked, to at least "
                 "three significant digits.", ""]
        # each problem in a block the printed sheet keeps on one page, with room to answer
        for i, p in enumerate(self.problems, 1):
            lines += ['<section class="problem">', "", f"## {i}. {p.title}", "", p.statement, "",
                      '<div class="answer">Working and answer:</div>', "", "</section>", ""]
        return "\n".join(lines)

    def key_markdown(self) -> str:
        lines = [f"# Answer key of problem set {self.code}", "",
                 f"Student: {self.name} (id {self.student_id}). Answers computed by "
                 "llm_arithmetic; accept within the tolerance given.", ""]
        for i, p in enumerate(self.problems, 1):
            tol = "exactly" if p.rel_tol == 0 else f"within {100 * p.rel_tol:g}%"
            lines += [f"{i}. **{p.answer_text()}** ({tol}; chapter {p.chapter}). {p.solution}", ""]
        return "\n".join(lines)


# ---- numbers as the statements print them ------------------------------------------------------
def _sig(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits, with thousands separators, never in e-notation."""
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{round(x, decimals):,.{decimals}f}"


def _n(k: int, word: str, plural: str | None = None) -> str:
    """``1 sequence``, ``2 sequences``, ``4,096 tokens``."""
    return f"{k:,} {word if k == 1 else (plural or word + 's')}"


# A statement prints a chip's figures rounded, and the answer is computed from what it prints.
def _bw_value(h: Hardware) -> float:
    return round(h.bandwidth / GB, 1) * GB


def _pk_value(h: Hardware, precision: str = "fp16") -> float:
    return round(h.peak(precision) / 1e12, 1) * 1e12


def _bw(h: Hardware) -> str:
    return f"{_bw_value(h) / GB:,.1f} GB/s"


def _peak(h: Hardware, precision: str = "fp16") -> str:
    return f"{_pk_value(h, precision) / 1e12:,.1f} TFLOP/s"


def _cap(h: Hardware) -> str:
    return f"{h.capacity / GiB:,.0f} GiB"


def _bits(fmt: str) -> str:
    return f"{float(BITS_PER_WEIGHT[fmt]):g}"


def _fmt(fmt: str) -> str:
    """A weight format as a statement names it (block formats: scales included)."""
    if fmt.startswith("q"):
        return (f"llama.cpp's {fmt.upper()} format ({_bits(fmt)} bits per weight, block scales "
                "included)")
    return f"{fmt} ({_bits(fmt)} bits per weight)"


# ---- what may be drawn ----------------------------------------------------------------------
# The catalog is fixed for the life of a process, so the models that qualify are found once: a
# set draws from them twenty times and more (rejected scenarios are drawn again), and sorting the
# catalog each time was nine tenths of drawing a set (Model.is_uniform compares every layer).
@cache
def _dense() -> tuple[Model, ...]:
    return tuple(m for m in MODELS.values() if m.is_uniform and m.n_experts == 1
                 and m.attended_context(10**6) == 10**6 and m.n_positions == 0)


@cache
def _moe() -> tuple[Model, ...]:
    return tuple(m for m in MODELS.values() if m.is_uniform and m.n_experts > 1
                 and m.attended_context(10**6) == 10**6)


def _chips(*, fp16: bool = True, kinds: tuple[str, ...] = ()) -> list[Hardware]:
    return [h for h in HARDWARE.values() if h.capacity >= 8 * GiB and h.bandwidth > 50 * GB
            and (not fp16 or "fp16" in h.peaks) and (not kinds or h.kind in kinds)]


class Reject(Exception):
    """The scenario drawn is impossible or unrealistic: draw again."""


def _need(ok: bool) -> None:
    if not ok:
        raise Reject


def _fits(h: Hardware, weight_bytes: float, cache_bytes: float = 0) -> None:
    _need(weight_bytes + cache_bytes <= 0.9 * h.capacity)


def _read_bytes(m: Model, h: Hardware, bits: float = 16, cache_bytes: float = 0) -> float:
    """The weight bytes one decode step of ``m`` reads at ``bits`` per weight, where its
    weights at those bits, and ``cache_bytes``, fit ``h`` (else the problem is drawn again)."""
    _fits(h, memory.weight_bytes(n_params=m.total_params, bits_weight=bits), cache_bytes)
    return memory.weight_bytes(n_params=m.decode_read_params, bits_weight=bits)


def _in(x: float, low: float, high: float) -> float:
    _need(math.isfinite(x) and low <= x <= high)
    return x


def _args(m: Model, h: Hardware, weight_bytes: float) -> dict:
    return dict(weight_bytes=weight_bytes, kv_cache_bytes_per_token=m.kv_cache_bytes_per_token(),
                matmul_params=m.matmul_params, n_layers=m.n_layers, n_heads=m.n_heads,
                d_head=m.d_head, bandwidth=_bw_value(h), peak_flops=_pk_value(h))


def _label(h: Hardware, plural: bool = False) -> str:
    """A chip's name without the catalog label's closing parenthesis ("NVIDIA GH200 Grace
    Hopper Superchip", not "... (144GB HBM3e)"): a statement gives its figures in parentheses
    of its own, and two in a row read badly. Where the entry is one GPU of a rack ("NVIDIA
    GB300 NVL72 (one Blackwell Ultra GPU, 288GB)"), the name is that GPU's, not the rack's,
    whose figures are 72 times as large.

    >>> _label(HARDWARE["h100-sxm"]), _label(HARDWARE["h100-sxm"], plural=True)
    ('NVIDIA H100 SXM', 'NVIDIA H100 SXMs')
    >>> _label(HARDWARE["gb300"]), _label(HARDWARE["gb300"], plural=True)
    ('Blackwell Ultra GPU of an NVIDIA GB300 NVL72', 'Blackwell Ultra GPUs of an NVIDIA GB300 NVL72')
    """
    s = "s" if plural else ""
    part = re.fullmatch(r"(.+?)\s*\(one ([^,()]+)(?:,[^()]*)?\)", h.label)
    if part:
        return f"{part[2]}{s} of an {part[1]}"
    return re.sub(r"\s*\([^()]*\)$", "", h.label) + s


def _name(m: Model) -> str:
    """A model's proper name ("Llama 3 8B"), as the catalog gives it."""
    entry = CATALOG.get(m.name)
    return entry.label if entry is not None and entry.label else m.name


def _shape(m: Model) -> str:
    return (f"L = {m.n_layers} layers, {_n(m.n_heads, 'query head')} and "
            f"{_n(m.n_kv_heads, 'key/value head')} of width {m.d_head}")


# ---- the templates, one function each, in the order of the book --------------------------------
def _decode_bound(rng: random.Random) -> Problem:
    m = rng.choice(_dense())
    h = rng.choice(_chips())
    fmt = rng.choice(["fp16", "q8_0", "q4_0"])
    w = _read_bytes(m, h, BITS_PER_WEIGHT[fmt])
    tps = _in(_bw_value(h) / float(w), 1, 2000)
    return Problem(
        "01-puzzle", "The speed of light at batch 1",
        f"One decode step of {_name(m)}, stored in {_fmt(fmt)}, reads {m.decode_read_params:,} "
        f"weights (ignore the KV cache of the short context). The {_label(h)} moves {_bw(h)}. "
        "What is the upper bound on the tokens per second of one sequence? Answer in tokens/s.",
        tps, "tokens/s",
        f"bytes = {m.decode_read_params:,} x {_bits(fmt)} / 8 = {float(w):,.0f} B; "
        f"tokens/s <= {_bw(h)} / bytes = {_sig(tps)}")


def _ridge(rng: random.Random) -> Problem:
    h = rng.choice([h for h in _chips() if "fp16-sparse" in h.peaks])
    sparse = round(h.peak("fp16", dense=False) / 1e12, 1) * 1e12
    ratio = _in(sparse / 2 / _bw_value(h), 5, 2000)
    return Problem(
        "02-spec-sheets", "Reading a datasheet's asterisk",
        f"The datasheet of the {_label(h)} gives its FP16 tensor rate as "
        f"{sparse / 1e12:,.1f} TFLOP/s \"with sparsity\" (a footnote: 2:4 structured "
        f"sparsity) and its memory bandwidth as {_bw(h)}. What is its ops:byte ratio at dense "
        "fp16? Answer in FLOP/B.",
        ratio, "FLOP/B",
        f"dense = {sparse / 1e12:,.1f} / 2 TFLOP/s; ratio = dense / bandwidth = {_sig(ratio)}")


def _exact_params(rng: random.Random) -> Problem:
    d = rng.choice([2048, 2560, 3072, 4096, 5120])
    heads = d // 128
    kv = rng.choice([h for h in (1, 2, 4, 8, heads) if heads % h == 0])
    L = rng.choice([16, 24, 28, 32, 36, 40])
    V = rng.choice([32_000, 50_304, 65_536, 128_256, 151_936])
    dff = rng.choice([int(8 * d / 3 / 256 + 1) * 256, 3 * d, 4 * d])
    tied = rng.choice([0, 1])
    p = params.total_params(n_vocab=V, d_model=d, n_layers=L, n_heads=heads, n_kv_heads=kv,
                            d_head=128, d_ff=dff, n_mlp_mats=3, tied=tied)
    _in(p / 1e9, 0.3, 40)
    head = "tied to the input embedding" if tied else "not tied to the input embedding"
    return Problem(
        "03-counting-parameters", "Counting parameters exactly",
        f"A decoder has a vocabulary of {V:,} tokens, d_model = {d:,}, L = {L} blocks with "
        f"{_n(heads, 'query head')} and {_n(kv, 'key/value head')} of width 128, and a gated MLP "
        f"(gate, up and down matrices) of width {dff:,}. It has no biases, two RMSNorm vectors of "
        f"width d_model per block and a final one, and an output head {head}. How many "
        "parameters does it have? Answer exactly.",
        float(p), "parameters",
        f"V d{'' if tied else ' x 2'} + L (attention {d:,} x 128 x ({heads} x 2 + {kv} x 2) + MLP "
        f"3 x {d:,} x {dff:,} + 2 x {d:,}) + {d:,} = {p:,}", rel_tol=0.0)


def _kv(rng: random.Random) -> Problem:
    m = rng.choice(_dense())
    s = rng.choice([2048, 4096, 8192, 16_384, 32_768])
    b = rng.choice([1, 4, 8, 16, 32])
    bits = rng.choice([16, 8])
    kv = memory.kv_cache_bytes(n_layers=m.n_layers, n_kv_heads=m.n_kv_heads, d_head=m.d_head,
                               context=s, batch=b, bits_kv=bits)
    _in(kv / GB, 0.05, 2000)
    return Problem(
        "04-kv-cache", "The size of a KV cache",
        f"A model has {_shape(m)}. How large is its KV cache for {_n(b, 'sequence')} of "
        f"{_n(s, 'token')}{' each' if b > 1 else ''}, stored at {bits} bits per element? "
        "Answer in GB.",
        kv / GB, "GB",
        f"2 x {m.n_layers} x {m.n_kv_heads} x {m.d_head} x {bits // 8} B x {s:,} x {b} = "
        f"{kv:,} B")


def _prefill_flops(rng: random.Random) -> Problem:
    m = rng.choice(_dense())
    t = rng.choice([512, 1000, 2048, 3000, 4096, 8192])
    f = flops.prefill_flops(matmul_params=m.matmul_params, head_params=m.head_params,
                            n_layers=m.n_layers, n_heads=m.n_heads, d_head=m.d_head, prompt=t)
    _in(f / 1e12, 0.1, 10_000)
    return Problem(
        "05-flops-intensity", "The FLOPs of a prefill",
        f"A model has {m.matmul_params:,} weights in matrix products, of them the "
        f"{m.head_params:,} of its output head, and {_shape(m)}, with causal attention. How "
        f"many FLOPs does the prefill of a prompt of {_n(t, 'token')} cost, the attention "
        "scores and weighted values included, when the runtime computes the logits of the "
        "last position only? Answer in TFLOP.",
        f / 1e12, "TFLOP",
        f"2 x ({m.matmul_params:,} - {m.head_params:,}) x {t:,} + 2 x {m.head_params:,} + "
        f"4 x {m.n_layers} x {m.n_heads} x {m.d_head} x {t:,} x {t + 1:,} / 2 = {f:,.0f} FLOP")


def _weights_against_arithmetic(rng: random.Random, low: float, high: float) -> tuple:
    """A dense model in fp16 on a GPU that holds it, and the count of tokens at which reading
    its weights once takes as long as 2 FLOPs per matrix weight per token: the critical batch
    of an empty cache (chapter 6). (A prefill runs the output head once, not per token, so its
    critical prompt without attention is a little later: :func:`_prompt_crossover`.)"""
    m = rng.choice(_dense())
    h = rng.choice(_chips(kinds=("datacenter-gpu", "consumer-gpu")))
    w = _read_bytes(m, h)
    n = _in(float(roofline.critical_batch_size(context=0, **_args(m, h, w))), low, high)
    return m, h, w, n


def _critical_batch(rng: random.Random) -> Problem:
    m, h, w, crit = _weights_against_arithmetic(rng, 8, 2000)
    return Problem(
        "06-roofline", "When decoding turns compute-bound",
        f"The {_label(h)} moves {_bw(h)} and computes {_peak(h)} at dense fp16. It decodes "
        f"{_name(m)} in fp16: a decode step reads {float(w):,.0f} bytes of weights, and "
        f"{m.matmul_params:,} of the model's weights are in matrix products. With an empty KV "
        "cache, at which batch size does the memory time of a step equal its compute time? "
        "Answer in sequences, not rounded.",
        crit, "sequences",
        "W / bandwidth = B x 2 P_mm / peak  =>  B* = W x peak / (2 P_mm x bandwidth) = "
        f"{_sig(crit)}")


def _ttft(rng: random.Random) -> Problem:
    m = rng.choice(_dense())
    h = rng.choice(_chips(kinds=("datacenter-gpu", "consumer-gpu")))
    t = rng.choice([256, 512, 1024, 2048, 4096])
    w = _read_bytes(m, h, cache_bytes=m.kv_cache_bytes_per_token() * t)
    pt = _in(float(roofline.prefill_time(prompt=t, head_params=m.head_params,
                                         **_args(m, h, w))) * 1e3, 1, 60_000)
    return Problem(
        "06-roofline", "The time to the first token",
        f"The {_label(h)} moves {_bw(h)} and computes {_peak(h)} at dense fp16. It runs a model "
        f"with {_shape(m)} and causal attention, whose fp16 weights take {float(w):,.0f} bytes "
        f"({m.matmul_params:,} weights in matrix products, of them the {m.head_params:,} of the "
        "output head, which the prefill runs for the last position only) and whose KV cache takes "
        f"{m.kv_cache_bytes_per_token():,} bytes per token. A prompt of {_n(t, 'token')} arrives. "
        "What is the lower bound on the time to the first token? Answer in ms.",
        pt, "ms",
        "max(bytes / bandwidth, FLOPs / peak), bytes = W + T kappa (the cache written), FLOPs = "
        "2 (P_mm - P_head) T + 2 P_head + 4 L H d_head T (T + 1) / 2 (the head once, for the "
        "last position; each token scores itself and every earlier one: "
        f"2 d_head for the score, 2 d_head for the weighted values) = {_sig(pt)} ms")


def _quantized(rng: random.Random) -> Problem:
    m = rng.choice(_dense() + _moe())
    fmt = rng.choice(["q8_0", "q5_0", "q4_0", "fp8", "int4"])
    w = memory.weight_bytes(n_params=m.total_params, bits_weight=BITS_PER_WEIGHT[fmt])
    _in(float(w) / GiB, 0.5, 1000)
    return Problem(
        "07-quantization", "The weights of a quantized model",
        f"{_name(m)} has {m.total_params:,} parameters. How large are its weights stored in "
        f"{_fmt(fmt)}? Answer in GiB.",
        float(w) / GiB, "GiB",
        f"{m.total_params:,} x {_bits(fmt)} / 8 = {float(w):,.0f} B; / 2^30 = "
        f"{_sig(float(w) / GiB)} GiB")


def _max_batch(rng: random.Random) -> Problem:
    m = rng.choice(_dense())
    h = rng.choice([h for h in _chips(fp16=False) if h.capacity >= 16 * GiB])
    fmt = rng.choice(["fp16", "q8_0", "q4_0"])
    s = rng.choice([1024, 2048, 4096, 8192])
    w = memory.weight_bytes(n_params=m.total_params, bits_weight=BITS_PER_WEIGHT[fmt])
    kv = m.kv_cache_bytes_per_token()
    reserve = h.capacity // 10
    nb = memory.max_batch(capacity=h.capacity, weight_bytes=w, kv_cache_bytes_per_token=kv, context=s,
                          overhead=reserve)
    _in(nb, 2, 4096)
    return Problem(
        "09-batching", "How many sequences fit",
        f"A device has {_cap(h)} of memory ({h.capacity:,} B), of which it keeps a tenth "
        f"({reserve:,} B) in reserve. It holds the weights of {_name(m)}, {m.total_params:,} "
        f"parameters in {_fmt(fmt)}, and a 16-bit KV cache of {kv:,} bytes per token. How many "
        f"sequences of {_n(s, 'token')} fit at once? Answer in sequences, rounded down.",
        float(nb), "sequences",
        f"(C - reserve - W) / (kappa S) = ({h.capacity:,} - {reserve:,} - {float(w):,.0f}) / "
        f"({kv:,} x {s:,}), rounded down = {nb}", rel_tol=0.0)


def _throughput(rng: random.Random) -> Problem:
    m = rng.choice(_dense())
    h = rng.choice(_chips(kinds=("datacenter-gpu",)))
    s = rng.choice([1024, 2048, 4096])
    b = rng.choice([8, 16, 32, 64])
    w = _read_bytes(m, h, cache_bytes=m.kv_cache_bytes_per_token() * s * b)
    t = float(roofline.decode_step_time(context=s, batch=b, **_args(m, h, w)))
    rate = _in(b / t, 10, 100_000)
    return Problem(
        "09-batching", "The rate of a batch",
        f"The {_label(h)} ({_bw(h)}, {_peak(h)} at dense fp16) decodes {_n(b, 'sequence')} of a "
        f"model together, each with {_n(s, 'token')} in its KV cache. The model has {_shape(m)}; "
        f"its fp16 weights take {float(w):,.0f} bytes ({m.matmul_params:,} weights in matrix "
        f"products) and its 16-bit KV cache {m.kv_cache_bytes_per_token():,} bytes per token. "
        "What is the upper bound on the aggregate rate of all the streams? Answer in tokens/s.",
        rate, "tokens/s",
        "bytes = W (read once for the whole batch) + B S kappa; FLOPs = B (2 P_mm + "
        f"4 L H d_head S); step time = max(bytes / bandwidth, FLOPs / peak) = {t * 1e3:,.3f} ms; "
        f"rate = B / step = {_sig(rate)}")


def _cost(rng: random.Random) -> Problem:
    m = rng.choice(_dense())
    h = rng.choice(_chips(kinds=("datacenter-gpu",)))
    s, b = rng.choice([2048, 4096]), rng.choice([16, 32, 64])
    price = rng.choice([0.8, 1.2, 2.0, 2.5, 3.5])
    w = _read_bytes(m, h, cache_bytes=m.kv_cache_bytes_per_token() * s * b)
    t = round(float(roofline.decode_step_time(context=s, batch=b, **_args(m, h, w))) * 1e3, 2)
    t /= 1e3  # the step time as the statement prints it
    cost = _in(price / 3600 * t / b * 1e6, 0.01, 100)
    return Problem(
        "09-batching", "The cost of a million tokens",
        f"A GPU rented at {price:.2f} dollars per hour decodes {_n(b, 'sequence')} together; "
        f"at the bound each step takes {t * 1e3:,.2f} ms. What do a million output tokens cost? "
        "Answer in dollars.",
        cost, "dollars",
        f"tokens/s = {b} / {t:.5f} s; cost = price / 3600 / (tokens/s) x 10^6 = {_sig(cost)}")


def _moe_decode(rng: random.Random) -> Problem:
    m = rng.choice(_moe())
    h = rng.choice(_chips(fp16=False))
    fmt = rng.choice(["q8_0", "q4_0"])
    w = _read_bytes(m, h, BITS_PER_WEIGHT[fmt])
    tps = _in(_bw_value(h) / float(w), 1, 2000)
    return Problem(
        "15-case-studies", "A mixture of experts at batch 1",
        f"{_name(m)} has {m.total_params:,} parameters in all, but one decode step of one sequence "
        f"reads only {m.decode_read_params:,} of them ({m.n_active_experts} of its "
        f"{m.n_experts} experts per layer, attention, and one row of the embedding table). "
        f"Stored in {_fmt(fmt)}, it runs on the {_label(h)} ({_cap(h)}, {_bw(h)}). Ignoring the "
        "KV cache, what is the upper bound on tokens per second at batch 1? Answer in tokens/s.",
        tps, "tokens/s",
        f"bytes = {m.decode_read_params:,} x {_bits(fmt)} / 8 = {float(w):,.0f}; "
        f"tokens/s <= bandwidth / bytes = {_sig(tps)}")


def _gqa_mistake(rng: random.Random) -> Problem:
    m = rng.choice([m for m in _dense() if m.n_kv_heads < m.n_heads])
    s = rng.choice([4096, 8192, 32_768])
    right = m.kv_cache_bytes_per_token() * s
    wrong = right * m.n_heads // m.n_kv_heads
    _in(wrong / GiB, 0.1, 1000)
    return Problem(
        "16-common-mistakes", "A calculator that ignores grouped-query attention",
        f"A model has {_shape(m)}. A calculator sizes its KV cache as if every query head had "
        f"its own key and value head. What does it report for one sequence of {_n(s, 'token')} "
        "at 16 bits? Answer in GiB.",
        wrong / GiB, "GiB",
        f"2 x {m.n_layers} x {m.n_heads} (not {m.n_kv_heads}) x {m.d_head} x 2 B x {s:,} = "
        f"{wrong:,} B, {m.n_heads // m.n_kv_heads} times the true {right:,} B")


def _efficiency(rng: random.Random) -> Problem:
    m = rng.choice(_dense())
    h = rng.choice(_chips(fp16=False))
    fmt = rng.choice(["q8_0", "q4_0"])
    w = _read_bytes(m, h, BITS_PER_WEIGHT[fmt])
    bound = _in(_bw_value(h) / float(w), 2, 2000)
    measured = round(bound * rng.uniform(0.45, 0.9), 1)
    eff = _in(100 * measured / bound, 30, 95)
    return Problem(
        "17-predicted-vs-measured", "A measurement against its bound",
        f"Suppose a benchmark measures {measured:,.1f} tokens/s for {_name(m)} in {_fmt(fmt)} at "
        f"batch 1 on the {_label(h)} ({_bw(h)}). A decode step reads {m.decode_read_params:,} "
        "weights (ignore the cache). What fraction of the memory-bandwidth bound does the "
        "benchmark reach? Answer in percent.",
        eff, "%",
        f"bound = bandwidth / ({m.decode_read_params:,} x {_bits(fmt)} / 8 B) = {_sig(bound)} "
        f"tokens/s; efficiency = {measured:,.1f} / bound = {_sig(eff)} %")


def _forecast(rng: random.Random) -> Problem:
    """Chapter 17b's forecast of a step from its terms: t (1 + k) + delta t_16 + tau + lambda L,
    the terms drawn in the ranges the chapter's fit gives (not its values: they change with the
    data), computed by the registered formula and forecast_fit.dequant_seconds."""
    from ..forecast_fit import dequant_seconds

    m = rng.choice(_dense())
    h = rng.choice(_chips(fp16=False))
    fmt = rng.choice(["fp16", "q8_0", "q4_0"])
    bits = BITS_PER_WEIGHT[fmt]
    bw = _bw_value(h)
    t_bound = float(_read_bytes(m, h, bits)) / bw
    k = rng.choice([0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6])
    delta = rng.choice([0.02, 0.03, 0.05, 0.08]) if bits < 16 else 0
    tau_ms = rng.choice([0.1, 0.2, 0.3, 0.5, 0.8])
    lam_us = rng.choice([5, 8, 10, 15, 20, 30])
    t16 = float(dequant_seconds(m.decode_read_params, float(bits), bw))
    t = float(serving.forecast_step_time(
        step_time=t_bound, overhead_fraction=k, dequant_fraction=delta, dequant_time=t16,
        fixed_time=tau_ms * 1e-3, layer_time=lam_us * 1e-6, n_layers=m.n_layers))
    tps = _in(1 / t, 1, 2000)
    unpack = (f"delta = {delta:g} for dequantizing, in units of the time the same weights would "
              "take to read at 16 bits" if bits < 16 else
              "no dequantization (the weights are 16-bit)")
    return Problem(
        "17b-forecast", "A forecast from its terms",
        f"A runtime decodes {_name(m)}, stored in {_fmt(fmt)}, at batch 1 on the {_label(h)} "
        f"({_bw(h)}). One decode step reads {m.decode_read_params:,} weights (ignore the cache "
        f"of the short context) through the model's {m.n_layers} layers. The runtime's forecast "
        f"terms on that chip: k = {k:g} (the time it spends beyond the bound, per unit of bound "
        f"time), {unpack}, tau = {tau_ms:g} ms per token and lambda = {lam_us:g} us per layer. "
        "What speed does the forecast give? Answer in tokens/s.",
        tps, "tokens/s",
        f"bound t = {m.decode_read_params:,} x {_bits(fmt)} / 8 B over {_bw(h)} = "
        f"{t_bound * 1e3:,.3f} ms; t_16 = {t16 * 1e3:,.3f} ms; forecast t (1 + k) + delta t_16 "
        f"+ tau + lambda L = {t * 1e3:,.3f} ms; {_sig(tps)} tokens/s "
        f"(the bound: {_sig(1 / t_bound)} tokens/s)")


def _latent_cache(rng: random.Random) -> Problem:
    # DeepSeek-V2/V3's published shapes: latent rank 512, a decoupled rotary key of 64 (the
    # configs' kv_lora_rank and qk_rope_head_dim); the layer counts and contexts vary
    rank, rope = 512, 64
    n_layers, heads, d_head = rng.choice([(27, 16, 128), (60, 128, 128), (61, 128, 128)])
    s = rng.randrange(2048, 131_073, 1024)  # any multiple of 1,024: classmates' answers differ
    per_layer = memory.mla_kv_layer_bytes(kv_lora_rank=rank, d_rope=rope, bits_kv=16)
    mla = _in(float(per_layer) * n_layers * s / GB, 0.01, 1000)
    mha = 2 * n_layers * heads * d_head * 2 * s / GB
    return Problem(
        "08-modern-architectures", "What a latent cache saves",
        f"A model of {n_layers} layers with {heads} attention heads of width {d_head} uses "
        f"multi-head latent attention; its config gives kv_lora_rank = {rank} and "
        f"qk_rope_head_dim = {rope}. How large is its 16-bit cache for one sequence of "
        f"{_n(s, 'token')}? Answer in GB, then compare it with a cache of every head's own "
        "16-bit keys and values, and say why the latent can be so much smaller.",
        mla, "GB",
        f"({rank} + {rope}) x 2 B x {n_layers} x {s:,} = {float(per_layer) * n_layers * s:,.0f} B; "
        f"per-head keys and values: 2 x {n_layers} x {heads} x {d_head} x 2 B x {s:,} = "
        f"{_sig(mha)} GB, {_sig(mha / mla, 3)} times as much; the heads' keys and values are "
        "recomputed from the one latent by matrices the model learns")


def _prompt_crossover(rng: random.Random) -> Problem:
    m, h, w, _ = _weights_against_arithmetic(rng, 5, 5000)
    # the prefill's weight FLOPs are 2 (P_mm - P_head) T + 2 P_head (flops.prefill_flops without
    # attention): the head runs once, so T solves W / bandwidth = that / peak
    one = flops.prefill_flops(matmul_params=m.matmul_params, head_params=m.head_params,
                              n_layers=0, n_heads=0, d_head=0, prompt=1)
    per_token = one - 2 * m.head_params
    t = _in((float(w) * _pk_value(h) / _bw_value(h) - 2 * m.head_params) / per_token, 5, 5000)
    return Problem(
        "10-prefill", "When a prompt turns compute-bound",
        f"The fp16 weights of {_name(m)} take {float(w):,.0f} bytes, and {m.matmul_params:,} of "
        f"them are in matrix products, {m.head_params:,} of those in the output head, which a "
        f"prefill runs for the last position only. On the {_label(h)} ({_bw(h)}, {_peak(h)} "
        "dense fp16), from how many prompt tokens on does a prefill's arithmetic take longer "
        "than reading the weights? Ignore attention and the cache. Answer in tokens, not "
        "rounded.",
        t, "tokens",
        "reading: W / bandwidth; arithmetic: 2 (P_mm - P_head) T + 2 P_head FLOPs over the peak; "
        f"equal at T = (W x peak / bandwidth - 2 P_head) / (2 (P_mm - P_head)) = {_sig(t)}")


def _allreduce(rng: random.Random) -> Problem:
    m = rng.choice(_dense())
    n = rng.choice([2, 4, 8])
    b = rng.choice([1, 8, 32, 128])
    # a chip's scale-up link, or its PCIe slot, as the hardware catalog gives them (datasheets)
    h = rng.choice([h for h in _chips(kinds=("datacenter-gpu",)) if h.interconnect])
    ic = h.interconnect
    link = rng.choice([(ic.scale_up_bandwidth, ic.scale_up), (ic.pcie_bandwidth, ic.pcie)])
    _need(bool(link[0]) and bool(link[1]))
    name = re.split(r" \(| via|,", link[1])[0]
    link = (link[0], f"{name}, "
                     f"{link[0] / 1e9:,.1f} GB/s per direction, between {_label(h, plural=True)}")
    msg = b * m.d_model * 2  # one 16-bit activation vector per token
    t_one = float(parallel.ring_allreduce_time(message_bytes=msg, n_chips=n,
                                                link_bandwidth=link[0]))
    total = _in(2 * m.n_layers * t_one * 1e6, 0.1, 100_000)
    return Problem(
        "11-parallelism", "The talk inside a tensor-parallel step",
        f"{_name(m)} ({m.n_layers} layers, d_model = {m.d_model:,}) is split over {n} chips by "
        f"tensor parallelism (attention and MLP each split as in Megatron-LM), linked by "
        f"{link[1]}, with 16-bit activations and ring all-reduces. At a batch of "
        f"{_n(b, 'token')}, how long does the communication of one decode step take at the "
        "link's bandwidth, ignoring latency? Answer in us.",
        total, "us",
        f"two all-reduces per layer (after attention, after the MLP); message {b} x "
        f"{m.d_model:,} x 2 B = {msg:,} B; one ring all-reduce moves 2 (N - 1) / N "
        f"of it per chip: {t_one * 1e6:,.3f} us; 2 per layer x {m.n_layers} layers = "
        f"{_sig(total)} us")


def _paged(rng: random.Random) -> Problem:
    m = rng.choice(_dense())
    block = rng.choice([16, 32])
    b = rng.choice([16, 32, 64])
    # the empty share depends on these two alone: drawn from many values, so that classmates'
    # answers differ
    mean_len = rng.randrange(200, 3001, 50)
    per_seq_max = rng.choice([4096, 8192, 16_384, 32_768])
    kv = m.kv_cache_bytes_per_token()
    # contiguous reservation of the maximum length against blocks of `block` tokens, each
    # sequence wasting half a block on average
    reserved = kv * per_seq_max * b
    used = kv * mean_len * b
    paged = used + kv * block / 2 * b
    share = _in(100 * (reserved - used) / reserved, 1, 99.9)
    return Problem(
        "12-serving", "Reserved against paged",
        f"A server holds {b} requests of {_name(m)}, whose KV cache takes {kv:,} bytes per token. "
        f"It must accept requests of up to {per_seq_max:,} tokens, but they average {mean_len:,}. "
        f"Reserving the maximum for each request up front, what share of the cache memory holds "
        f"nothing? Answer in percent, then estimate how much a paged cache in blocks of {block} "
        "tokens loses instead, and say why.",
        share, "%",
        f"reserved {reserved:,} B, used {used:,} B: {_sig(share)} % empty; paged, half a block per "
        f"request on average: about {kv * block // 2 * b:,} B, "
        f"{_sig(100 * (paged - used) / paged, 3)} % of what is held")


def _speculative(rng: random.Random) -> Problem:
    alpha = rng.choice([0.6, 0.7, 0.8, 0.9])
    k = rng.choice([2, 3, 4, 5, 6])
    c = rng.choice([0.02, 0.05, 0.1])
    tokens = float(serving.speculative_tokens_per_step(acceptance=alpha, draft_len=k))
    speed = _in(float(serving.speculative_speedup(acceptance=alpha, draft_len=k, draft_cost=c)),
                0.5, 10)
    return Problem(
        "13-speculative-decoding", "What a draft model buys",
        f"In speculative decoding a draft model proposes {k} tokens and the target model checks "
        f"them in one step that costs as much as one ordinary decode step. Each draft token is "
        f"accepted with probability {alpha}, independently, "
        f"and one draft step costs {c} of a target step. How many tokens does it produce, on "
        "average, in the time of one plain decode step (plain decoding: one)? Answer in tokens, "
        "with the tokens one speculative step yields on the way.",
        speed, "tokens",
        f"P(at least i accepted) = alpha^i: tokens = 1 + alpha + ... + alpha^{k} = {_sig(tokens)}; "
        f"cost = {k} x {c} + 1 = {k * c + 1:g} target steps; speed-up = {_sig(speed)}")


def _energy_cost(rng: random.Random) -> Problem:
    n = rng.choice([1, 2, 4, 8])
    price = rng.choice([1.5, 2.0, 2.5, 3.5])
    tau = rng.choice([800, 1500, 3000, 6000, 12_000])
    cost = _in(float(serving.cost_per_million_tokens(price_per_hour=price, n_chips=n,
                                                     tokens_per_second=tau)), 0.001, 1000)
    return Problem(
        "14-cost", "Dollars per million tokens",
        f"A replica of {_n(n, 'GPU')}, each rented at {price:.2f} dollars per hour, produces "
        f"{tau:,} tokens per second in all when its batch is full. What does a million tokens cost "
        "at that rate? Answer in dollars, and say why that is a lower bound on what an operator "
        "pays.",
        cost, "dollars",
        f"{n} x {price:.2f} $/h = {n * price:.2f} $/h; a million tokens take "
        f"{1e6 / tau:,.1f} s; cost = {_sig(cost)} $ (the rate is an upper bound, and no replica is "
        "full all the time)")


TEMPLATES: tuple[Callable[[random.Random], Problem], ...] = (
    _decode_bound, _ridge, _exact_params, _kv, _prefill_flops, _critical_batch, _ttft,
    _quantized, _latent_cache, _max_batch, _throughput, _cost, _prompt_crossover, _allreduce,
    _paged, _speculative, _energy_cost, _moe_decode, _gqa_mistake, _efficiency, _forecast,
)


def _draw_one(template: Callable[[random.Random], Problem], rng: random.Random) -> Problem:
    for _ in range(500):
        try:
            return template(rng)
        except Reject:
            continue
    raise RuntimeError(f"{template.__name__}: no acceptable scenario in 500 draws")


# ---- keys, codes, rosters ---------------------------------------------------------------------
def _mac(key: bytes, purpose: str, student_id: str) -> bytes:
    return hmac.new(key, f"{purpose}:{student_id}".encode(), hashlib.sha256).digest()


def set_code(key: bytes, student_id: str) -> str:
    """The opaque code printed on a student's set: 8 characters of an HMAC of the id."""
    return base64.b32encode(_mac(key, "code", student_id)[:5]).decode()


def answers_on_sheet(s: ProblemSet) -> list[int]:
    """The problems (1-based) whose answer, to 4 significant digits and with at least three of
    them, is printed as a number of its own on the student's sheet (in another statement)."""
    sheet = s.markdown()
    out = []
    for i, p in enumerate(s.problems, 1):
        shown = _sig(p.answer, 4)
        # as a number of its own: 6,921 may well be the start of 6,921,420,800 on the sheet
        if len(shown.strip("0.,")) >= 3 and re.search(
                rf"(?<![\d.,]){re.escape(shown)}(?![\d]|[.,]\d)", sheet):
            out.append(i)
    return out


def draw(key: bytes, student_id: str, name: str, tries: int = 50) -> ProblemSet:
    """The variant of ``student_id``: one problem per template, seeded by an HMAC of the id. A
    set that would print one of its answers in another statement (:func:`answers_on_sheet`) is
    drawn again from the same stream, so a key still redraws every set byte for byte."""
    rng = random.Random(int.from_bytes(_mac(key, "seed", student_id)[:16], "big"))
    for _ in range(tries):
        s = ProblemSet(set_code(key, student_id), student_id, name,
                       tuple(_draw_one(t, rng) for t in TEMPLATES))
        if not answers_on_sheet(s):
            return s
    raise RuntimeError(f"{student_id}: every draw of {tries} prints an answer on its sheet")


def _repository() -> Path | None:
    """The book's checkout this package runs from, if it runs from one."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / ".git").exists() else None


def _inside(path: Path, root: Path | None) -> bool:
    if root is None:
        return False
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def read_key(path: str | Path, create: bool = True) -> bytes:
    """The instructor's key (hex in a file outside the repository); created when missing."""
    path = Path(path).expanduser()
    if _inside(path, _repository()):
        raise ValueError(f"--key: {path} is inside the book's repository; keep the key file "
                         "outside it (e.g. ~/course/problems.key)")
    if not path.exists():
        if not create:
            raise ValueError(f"--key: {path} does not exist")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32) + "\n", encoding="ascii")
        os.chmod(path, 0o600)
    text = path.read_text(encoding="ascii", errors="replace").strip()
    if not re.fullmatch(r"[0-9a-fA-F]{32,}", text):
        raise ValueError(f"--key: {path} must hold at least 32 hexadecimal digits")
    return bytes.fromhex(text[: len(text) // 2 * 2])


def read_roster(path: str | Path) -> list[tuple[str, str]]:
    """(id, name) rows of a CSV file with a header row naming the columns ``id`` and ``name``."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or not {"id", "name"} <= {c.strip() for c in reader.fieldnames}:
            raise ValueError(f"--roster: {path} needs a header row with the columns id and name "
                             f"(found {reader.fieldnames})")
        rows = [({k.strip(): (v or "").strip() for k, v in r.items() if k}) for r in reader]
    roster, seen = [], set()
    for n, r in enumerate(rows, 2):
        if not r["id"]:
            raise ValueError(f"--roster: {path} line {n}: empty id")
        if r["id"] in seen:
            raise ValueError(f"--roster: {path} line {n}: id {r['id']!r} appears twice")
        seen.add(r["id"])
        roster.append((r["id"], r["name"] or r["id"]))
    if not roster:
        raise ValueError(f"--roster: {path} lists no student")
    return roster


# ---- wording -----------------------------------------------------------------------------------
_COUNTED = r"(?:sequence|token|layer|head|expert|block|weight|parameter|vector|GPU)"


def wording_problems(text: str) -> list[str]:
    """What reads wrong in a rendered statement: a singular after a plural count or the other
    way round, a number in e-notation or with more than four decimals, block scales named for a
    format without blocks, a question without the unit of its answer."""
    problems = []
    for m in re.finditer(rf"(?<![\w.,])1 ({_COUNTED}s)\b", text):
        problems.append(f"plural after 1: {m.group(0)!r}")
    for m in re.finditer(rf"(?<![\w.,])(\d[\d,]*) ({_COUNTED})\b(?![s-])", text):
        if m.group(1) != "1":
            problems.append(f"singular after {m.group(1)}: {m.group(0)!r}")
    for m in re.finditer(r"\d[eE][+-]?\d|\d\.\d{5,}", text):
        problems.append(f"a number printed badly: {m.group(0)!r}")
    for m in re.finditer(r"\b(fp\d+|int\d+)\b[^.]*block scales", text):
        problems.append(f"block scales for {m.group(1)}")
    return problems


# ---- writing -----------------------------------------------------------------------------------
_CSS = """body{font-family:DejaVu Sans,Arial,sans-serif;font-size:11pt;line-height:1.45;margin:0}
h1{font-size:17pt;margin:0 0 6pt}h2{font-size:12.5pt;margin:14pt 0 4pt}p{margin:4pt 0}
code{font-size:10pt}
.problem{break-inside:avoid;page-break-inside:avoid;padding-top:2pt}
.answer{border:0.6pt solid #888;border-radius:3pt;min-height:38mm;margin:6pt 0 12pt;
padding:3pt 5pt;color:#777;font-size:8.5pt}"""

#: The printed sheet's footer: the set's page numbers (Chromium fills the two spans).
_FOOTER = ('<div style="font-size:8pt;width:100%;text-align:center;color:#555">'
           '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


def _html(markdown_text: str, title: str) -> str:
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").render(markdown_text)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>"
            f"<style>{_CSS}</style></head><body>{body}</body></html>")


def _pdfs(pages: list[tuple[str, Path]]) -> None:
    """Print HTML pages to PDF with Debian's Chromium through Playwright (never a downloaded
    browser)."""
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not os.access(chromium, os.X_OK):
        raise OSError(f"--pdf needs Chromium at {chromium} (apt-get install chromium, or set "
                      "CHROMIUM)")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--no-first-run"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=flags)
        try:
            page = browser.new_page()
            for html, out in pages:
                page.set_content(html, wait_until="load")
                page.pdf(path=str(out), format="A4", print_background=True,
                         display_header_footer=True, header_template="<div></div>",
                         footer_template=_FOOTER,
                         margin={"top": "18mm", "bottom": "20mm", "left": "18mm",
                                 "right": "18mm"})
        finally:
            browser.close()


def write_sets(roster: list[tuple[str, str]], key: bytes, out: str | Path,
               pdf: bool = False) -> dict[str, list[Path]]:
    """Write every student's set (and its PDF) to ``out/sets/`` and the keys to ``out/keys/``."""
    out = Path(out).expanduser()
    if _inside(out, _repository()):
        raise ValueError(f"--out: {out} is inside the book's repository; write the sets and "
                         "their keys outside it (e.g. ~/course/problem-sets)")
    sets_dir, keys_dir = out / "sets", out / "keys"
    sets_dir.mkdir(parents=True, exist_ok=True)
    keys_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[Path]] = {"sets": [], "pdfs": [], "keys": []}
    drawn = [draw(key, sid, name) for sid, name in roster]
    if len({s.code for s in drawn}) != len(drawn):
        raise ValueError("two students got the same set code; use a new key")
    pages = []
    for s in drawn:
        md = sets_dir / f"{s.code}.md"
        md.write_text(s.markdown() + "\n", encoding="utf-8")
        written["sets"].append(md)
        k = keys_dir / f"{s.code}.md"
        k.write_text(s.key_markdown() + "\n", encoding="utf-8")
        written["keys"].append(k)
        if pdf:
            pages.append((_html(s.markdown(), f"Problem set {s.code}"), sets_dir / f"{s.code}.pdf"))
    with open(keys_dir / "roster.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "name", "code"])
        w.writerows([s.student_id, s.name, s.code] for s in drawn)
    with open(keys_dir / "answers.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["code", "problem", "chapter", "answer", "unit", "rel_tol"])
        w.writerows([s.code, i, p.chapter, repr(p.answer), p.unit, p.rel_tol]
                    for s in drawn for i, p in enumerate(s.problems, 1))
    written["keys"] += [keys_dir / "roster.csv", keys_dir / "answers.csv"]
    if pages:
        _pdfs(pages)
        written["pdfs"] = [p for _, p in pages]
    return written
