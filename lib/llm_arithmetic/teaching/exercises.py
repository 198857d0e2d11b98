"""Answer checking for the exercise notebooks (``notebooks/exercises/``): ``check(label, value)``.

Each exercise label (``ex-nb-<chapter>-<slug>``) maps to an :class:`Answer`: a function that
computes the right value with the package (never a typed number, except where the number is a
definition or an input the question states), a relative tolerance, a unit and a hint.
:func:`check` prints ``correct`` or ``not yet`` with the hint, and never shows the answer.
``None`` and ``...`` (the stub of the student edition) count as "no answer given".

>>> check("ex-nb-kv-llama2", 524288)
✔ ex-nb-kv-llama2: correct.
True
>>> check("ex-nb-kv-llama2", 262144)
✘ ex-nb-kv-llama2: not yet. Hint: count both keys and values, in every layer, at 2 bytes each. Give it in B.
False
>>> check("ex-nb-kv-llama2", None)
✘ ex-nb-kv-llama2: not yet (no answer given).
False
>>> check("ex-nb-kv-llama2", ...)
✘ ex-nb-kv-llama2: not yet (no answer given).
False
>>> check("ex-nb-kv-llama2", "half a megabyte")
✘ ex-nb-kv-llama2: not yet (expected a number in B).
False
>>> expected("ex-nb-kv-70b-32k"), expected("ex-nb-params-llama2-7b")
('in GiB, within 1%', 'as a count of parameters, exactly')
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from ..catalog.formats import bits_per_weight
from ..catalog.hardware import Hardware, get_hardware
from ..catalog.model import Model
from ..catalog.models import get_model
from ..core.units import GB, GiB
from ..formulas import flops, memory, params, roofline

__all__ = ["Answer", "ANSWERS", "Verdict", "check", "answer_for", "expected"]


@dataclass(frozen=True)
class Answer:
    compute: Callable[[], float]
    unit: str
    hint: str
    rel_tol: float = 0.01  #: accepted relative error (1% unless stated)
    question: str = ""


# ---- helpers: each answer is computed by the package's functions -----------------------------
def _est(model: str, chip: str | None = None, **kw: Any):
    from ..estimate import estimate

    return estimate(get_model(model), hardware=get_hardware(chip) if chip else None, **kw)


def _dec_tps(model: str, chip: str, fmt: str) -> float:
    return _est(model, chip, weights=fmt).decode_tokens_per_second


def _kv_gib(model: str, context: int, batch: int = 1, bits: int = 16) -> float:
    m = get_model(model)
    return memory.kv_cache_bytes(n_layers=m.n_layers, n_kv_heads=m.n_kv_heads, d_head=m.d_head,
                                 context=context, batch=batch, bits_kv=bits) / GiB


def _crit(model: str, chip: str) -> float:
    return _est(model, chip, context=1).critical_batch_size


def _read_bytes(m: Model, bits: Any = 16) -> Any:
    """Weight bytes one decode step of one sequence reads [B]."""
    return memory.weight_bytes(n_params=m.decode_read_params, bits_weight=bits)


def _step_args(m: Model, h: Hardware, bits: Any = 16) -> dict[str, Any]:
    """Keyword arguments of the roofline functions for a model on a chip, fp16 arithmetic."""
    return dict(weight_bytes=_read_bytes(m, bits), kv_bytes_token=m.kv_bytes_per_token(),
                matmul_params=m.matmul_params, n_layers=m.n_layers, n_heads=m.n_heads,
                d_head=m.d_head, bandwidth=h.bandwidth, peak_flops=h.peak("fp16"))


def _smallest_n(mat: int, chip: str) -> int:
    """Smallest n at which an fp16 mat x mat matrix times n vectors reaches the chip's ridge."""
    ridge = get_hardware(chip).ops_per_byte("fp16")
    n = 1
    while flops.matmul_intensity(mat_m=mat, mat_k=mat, mat_n=n, bits=16) < ridge:
        n += 1
    return n


def _cost_per_million(model: str, chip: str, context: int, batch: int, price_per_hour: float):
    throughput = _est(model, chip, context=context, batch=batch).throughput_tokens_per_second
    return price_per_hour / 3600 / throughput * 1e6


def _prefill_flops(model: str, prompt: int) -> Any:
    m = get_model(model)
    return flops.prefill_flops(matmul_params=m.matmul_params, n_layers=m.n_layers,
                               n_heads=m.n_heads, d_head=m.d_head, prompt=prompt)


def _attn_intensity(model: str, context: int) -> Any:
    m = get_model(model)
    return flops.attention_decode_intensity(n_heads=m.n_heads, n_kv_heads=m.n_kv_heads,
                                            d_head=m.d_head, context=context, bits=16)


def _pi_tps() -> float:
    pi = get_hardware("raspberry-pi-4")  # its only peak is the fp32 vector rate
    return _est("llama-7b", "raspberry-pi-4", weights="q4_0",
                peak_flops=pi.peak("fp32")).decode_tokens_per_second


def _commandr_cache_share() -> float:
    e = _est("command-r", weights="q4_0", bits_kv=8, context=100_000)
    return 100 * e.kv_cache_bytes / e.decode_step_bytes


def _gemma_wrong_kv_ratio() -> float:
    g = get_model("gemma-2-9b")
    wrong = g.with_(d_head=g.d_model // g.n_heads)
    return wrong.kv_bytes_per_token() / g.kv_bytes_per_token()


ANSWERS: dict[str, Answer] = {
    # ---- chapter 1: the puzzle
    "ex-nb-puzzle-m2-q4": Answer(lambda: _dec_tps("llama-7b", "m2", "q4_0"), "tokens/s",
                                 "tokens/s <= bandwidth / bytes read per token; Q4_0 is 4.5 bits",
                                 question="LLaMA-7B in Q4_0 on an M2: upper bound on tokens/s"),
    "ex-nb-puzzle-a100-ratio": Answer(
        lambda: get_hardware("a100-80gb-pcie").bandwidth / get_hardware("m2").bandwidth, "x",
        "at batch 1 the speed ratio is the bandwidth ratio", question="A100 80GB PCIe / M2"),
    "ex-nb-puzzle-gb-per-token": Answer(
        lambda: _est("llama-7b", "m2", weights="q4_0", context=1).decode_bytes_per_token / GB,
        "GB", "the weights used in matrix products plus one row of the embedding table, at 4.5 "
        "bits each, plus the cache of one token; 1 GB is 10^9 bytes",
        question="LLaMA-7B in Q4_0: bytes read per decoded token"),
    "ex-nb-puzzle-compute-tps": Answer(
        lambda: get_hardware("m2").peak("fp16")
        / _est("llama-7b", "m2", weights="q4_0", context=1).decode_flops_per_token,
        "tokens/s", "peak FLOP/s divided by the FLOPs of one token (2 per weight in a matrix "
        "product, plus attention over a one-token context)",
        question="LLaMA-7B on an M2 if arithmetic were the limit"),
    "ex-nb-puzzle-implied-bw": Answer(
        lambda: 16 * _est("llama-7b", "m2", weights="q4_0", context=1).decode_bytes_per_token / GB,
        "GB/s", "every token read its bytes once: tokens per second times bytes per token",
        question="bandwidth implied by 16 tokens/s of LLaMA-7B in Q4_0"),
    # ---- chapter 2: spec sheets
    "ex-nb-specs-a10-ratio": Answer(lambda: get_hardware("a10").ops_per_byte("fp16"), "FLOP/B",
                                    "dense fp16 peak divided by bandwidth, both in base units",
                                    question="ops:byte ratio of the A10 at dense fp16"),
    "ex-nb-specs-80gb-gib": Answer(lambda: 80 * GiB / GB, "GB",
                                   "an '80 GB' HBM card holds 80 GiB; convert GiB to GB",
                                   question="an 80 GiB card in decimal GB"),
    "ex-nb-specs-t4-bus": Answer(lambda: get_hardware("t4").bandwidth / GB, "GB/s",
                                 "bus width in bits times transfers per second per pin, divided "
                                 "by 8 bits per byte", question="T4 bandwidth from its bus"),
    "ex-nb-specs-l4-dense": Answer(lambda: get_hardware("l4").ops_per_byte("fp16"), "FLOP/B",
                                   "a 'with sparsity' figure is twice the dense rate; divide the "
                                   "dense rate by the bandwidth",
                                   question="ops:byte ratio of the L4 at dense fp16"),
    "ex-nb-specs-h100-fp8": Answer(lambda: get_hardware("h100-sxm").ops_per_byte("fp8"), "FLOP/B",
                                   "use the dense fp8 rate, not the sparse one, over the HBM "
                                   "bandwidth", question="ops:byte ratio of the H100 SXM at dense fp8"),
    # ---- chapter 3: parameters
    "ex-nb-params-llama2-7b": Answer(lambda: get_model("llama-2-7b").total_params, "params",
                                     "gated MLP (3 matrices of d x d_ff), untied head, 2 norms "
                                     "per layer plus a final one", rel_tol=0.0,
                                     question="exact parameter count of Llama 2 7B"),
    "ex-nb-params-mixtral-active": Answer(lambda: get_model("mixtral-8x7b").active_params / 1e9,
                                          "billion", "2 of 8 experts per token; attention, "
                                          "embeddings and router are always used", rel_tol=0.001,
                                          question="active parameters of Mixtral 8x7B"),
    "ex-nb-params-gpt-llama7b": Answer(
        lambda: params.gpt_params(n_layers=get_model("llama-7b").n_layers,
                                  d_model=get_model("llama-7b").d_model,
                                  n_vocab=get_model("llama-7b").n_vocab) / 1e9,
        "billion", "12 L d_model^2 for the blocks plus one V x d_model table", rel_tol=0.001,
        question="GPT-style approximation for LLaMA-7B"),
    "ex-nb-params-gqa-saved": Answer(
        lambda: (get_model("llama-2-70b").with_(n_kv_heads=get_model("llama-2-70b").n_heads)
                 .total_params - get_model("llama-2-70b").total_params) / 1e9, "billion",
        "only the key and value projections change: 2 L d_model (H - H_kv) d_head",
        rel_tol=0.001, question="parameters GQA saves in Llama 2 70B"),
    "ex-nb-params-gpt2": Answer(lambda: get_model("gpt2").total_params, "params",
                                "two tables of positions and tokens, then per block: four "
                                "attention matrices and a 4x MLP, all with biases, and two "
                                "LayerNorms with scale and bias; a final LayerNorm; tied head",
                                rel_tol=0.0, question="exact parameter count of GPT-2 small"),
    # ---- chapter 4: KV cache
    "ex-nb-kv-llama2": Answer(lambda: get_model("llama-2-7b").kv_bytes_per_token(), "B",
                              "count both keys and values, in every layer, at 2 bytes each.",
                              rel_tol=0.0, question="KV cache per token of Llama 2 7B at 16 bits"),
    "ex-nb-kv-70b-32k": Answer(lambda: _kv_gib("llama-2-70b", 32768), "GiB",
                               "Llama 2 70B has 8 KV heads (GQA), not 64",
                               question="KV cache of Llama 2 70B at 32,768 tokens"),
    "ex-nb-kv-llama2-4096": Answer(lambda: _kv_gib("llama-2-7b", 4096), "GiB",
                                   "bytes per token times tokens, then divide by 2^30",
                                   question="KV cache of one 4096-token Llama 2 7B sequence"),
    "ex-nb-kv-mistral-window": Answer(
        lambda: get_model("mistral-7b").kv_bytes_per_token()
        * get_model("mistral-7b").attended_context(32768) / GiB, "GiB",
        "every layer reads at most the last W positions of the cache",
        question="cache Mistral 7B reads per decode step at 32,768 tokens"),
    "ex-nb-kv-crossover": Answer(
        lambda: _read_bytes(get_model("llama-2-7b")) / get_model("llama-2-7b").kv_bytes_per_token(),
        "tokens", "weight bytes read per step (not the whole embedding table) divided by the "
        "cache bytes per token", question="context at which Llama 2 7B's cache equals its weights"),
    # ---- chapter 5: FLOPs
    "ex-nb-flops-matvec": Answer(lambda: flops.matvec_intensity(mat_m=4096, mat_k=4096, bits=16),
                                 "FLOP/B", "2 FLOPs per matrix element over the bytes of the "
                                 "matrix, the input and the output vectors", rel_tol=0.001,
                                 question="intensity of a 4096 x 4096 fp16 matrix-vector product"),
    "ex-nb-flops-decode-mistral": Answer(
        lambda: 2 * get_model("mistral-7b").matmul_params / 1e9, "GFLOP",
        "2 FLOPs per weight in matrix products; the embedding lookup is not a product",
        rel_tol=0.005, question="FLOPs of one Mistral 7B token at an empty cache"),
    "ex-nb-flops-prefill-llama3": Answer(
        lambda: _prefill_flops("llama-3-8b", 2048) / 1e12,
        "TFLOP", "2 FLOPs per matrix weight per prompt token, plus causal attention: token i "
        "attends to i positions", question="prefill FLOPs of a 2048-token prompt, Llama 3 8B"),
    "ex-nb-flops-critical-n": Answer(lambda: _smallest_n(8192, "h100-sxm"), "vectors",
                                     "compare matmul_intensity with the chip's dense fp16 "
                                     "ops:byte ratio and step n up; the answer is a bit above "
                                     "the ratio itself", rel_tol=0.0,
                                     question="smallest n for a compute-bound 8192^2 product on an H100"),
    "ex-nb-flops-attn-llama3": Answer(
        lambda: _attn_intensity("llama-3-8b", 4096), "FLOP/B",
        "4 H d_head FLOPs per cached token against 2 H_kv d_head values of 2 bytes",
        rel_tol=0.001, question="intensity of decode attention in Llama 3 8B"),
    # ---- chapter 6: roofline
    "ex-nb-roofline-crit-a100": Answer(lambda: _crit("llama-2-7b", "a100-80gb-pcie"), "sequences",
                                       "set memory time equal to compute time and solve for B",
                                       rel_tol=0.02,
                                       question="critical batch of Llama 2 7B on an A100 80GB PCIe"),
    "ex-nb-roofline-4090-mistral": Answer(lambda: 1e3 / _dec_tps("mistral-7b", "rtx-4090", "fp16"),
                                          "ms", "bytes read per token over 1008 GB/s",
                                          question="time per token, Mistral 7B fp16 on an RTX 4090"),
    "ex-nb-roofline-a10-decode": Answer(
        lambda: 1e3 * _est("llama-2-7b", "a10", context=350).decode_seconds_per_token, "ms",
        "the larger of bytes / bandwidth and FLOPs / peak; the bytes are the weights read plus "
        "350 tokens of cache", question="decode step of Llama 2 7B on an A10 at 350 tokens"),
    "ex-nb-roofline-a10-prefill": Answer(
        lambda: 1e3 * roofline.prefill_time(prompt=350, **_step_args(get_model("llama-2-7b"),
                                                                     get_hardware("a10"))),
        "ms", "a prefill reads the weights once but does the matrix FLOPs of every prompt token: "
        "compare both times", question="prefill of 350 tokens of Llama 2 7B on an A10"),
    "ex-nb-roofline-a10-request": Answer(
        lambda: roofline.generation_time(prompt=350, generated=150, **_step_args(
            get_model("llama-2-7b"), get_hardware("a10"))), "s",
        "the prefill, then 150 decode steps at the mean context", rel_tol=0.01,
        question="whole request: 350-token prompt, 150 generated tokens, on an A10"),
    # ---- chapter 7: quantization
    "ex-nb-quant-q4-bits": Answer(lambda: float(bits_per_weight("q4_0")), "bits",
                                  "32 four-bit weights share one fp16 scale", rel_tol=0.0,
                                  question="bits per weight of Q4_0"),
    "ex-nb-quant-70b-q4-gib": Answer(
        lambda: memory.weight_bytes(n_params=get_model("llama-2-70b").total_params,
                                    bits_weight=bits_per_weight("q4_0")) / GiB, "GiB",
        "parameters x 4.5 bits / 8, then divide by 2^30",
        question="Llama 2 70B in Q4_0"),
    "ex-nb-quant-q5-1-bits": Answer(lambda: (32 * 5 + 16 + 16) / 32, "bits",
                                    "count every bit of one block (weights, scale and minimum) "
                                    "and divide by the weights in it", rel_tol=0.0,
                                    question="bits per weight of Q5_1 (a definition)"),
    "ex-nb-quant-speedup-4090": Answer(
        lambda: _dec_tps("llama-2-7b", "rtx-4090", "q4_0") / _dec_tps("llama-2-7b", "rtx-4090", "fp16"),
        "x", "both are memory-bound: the ratio of the bytes read per token, not exactly 16/4",
        question="speed-up of Q4_0 over fp16, Llama 2 7B on an RTX 4090"),
    "ex-nb-quant-4090-context": Answer(
        lambda: memory.max_context(capacity=get_hardware("rtx-4090").capacity,
                                   weight_bytes=memory.weight_bytes(
                                       n_params=get_model("llama-3-8b").total_params,
                                       bits_weight=bits_per_weight("q8_0")),
                                   kv_bytes_token=get_model("llama-3-8b").kv_bytes_per_token()),
        "tokens", "(capacity - weights) / cache bytes per token, rounded down; the capacity is "
        "24 GiB and Q8_0 is 8.5 bits", rel_tol=0.0,
        question="longest context of Llama 3 8B in Q8_0 on an RTX 4090"),
    # ---- chapter 8: batching
    "ex-nb-batch-a10-fit": Answer(
        lambda: memory.max_batch(capacity=get_hardware("a10").capacity,
                                 weight_bytes=2 * get_model("llama-2-7b").total_params,
                                 kv_bytes_token=get_model("llama-2-7b").kv_bytes_per_token(),
                                 context=4096), "sequences",
        "(capacity - weights) / (KV bytes per token x context), rounded down", rel_tol=0.0,
        question="4096-token sequences of Llama 2 7B that fit on an A10"),
    "ex-nb-batch-throughput": Answer(
        lambda: 32 / roofline.decode_step_time(
            context=1024, batch=32,
            **_step_args(get_model("llama-2-7b"), get_hardware("a100-80gb-sxm"))),
        "tokens/s", "one step serves all 32 sequences; the step reads the weights once and 32 caches",
        question="aggregate rate of 32 Llama 2 7B streams on an A100 80GB SXM"),
    "ex-nb-batch-ceiling": Answer(
        lambda: get_hardware("h100-sxm").bandwidth
        / (get_model("llama-3-8b").kv_bytes_per_token() * 4096), "tokens/s",
        "as B grows the weights' share vanishes; each token still needs its own cache read once",
        question="aggregate ceiling of Llama 3 8B on an H100 at 4096 tokens"),
    "ex-nb-batch-full-memory": Answer(
        lambda: get_hardware("h100-sxm").bandwidth
        / (get_hardware("h100-sxm").capacity - get_hardware("h100-sxm").capacity // 10),
        "tokens/s", "a full chip's step reads everything but the reserve, whatever the model",
        question="per-stream rate of a full H100"),
    "ex-nb-batch-cost": Answer(lambda: _cost_per_million("llama-3-8b", "h100-sxm", 4096, 64, 2.0),
                               "dollars", "price per second divided by tokens per second, times "
                               "a million; use the aggregate rate of the whole batch",
                               question="cost of a million output tokens at 2 $/h"),
    # ---- chapter 9: case studies
    "ex-nb-cases-commandr-128k": Answer(lambda: _kv_gib("command-r", 131072), "GiB",
                                        "Command-R has no GQA: 64 KV heads in 40 layers",
                                        question="Command-R cache at 131,072 tokens"),
    "ex-nb-cases-pi-fit": Answer(
        lambda: memory.weight_bytes(n_params=get_model("llama-7b").total_params,
                                    bits_weight=bits_per_weight("q4_0")) / GiB, "GiB",
        "LLaMA-7B at 4.5 bits per weight, in GiB", question="LLaMA-7B in Q4_0"),
    "ex-nb-cases-pi-tps": Answer(_pi_tps, "tokens/s",
                                 "take the larger of the memory time and the compute time at the "
                                 "Pi's fp32 rate", question="LLaMA-7B Q4_0 bound on a Raspberry Pi 4"),
    "ex-nb-cases-commandr-share": Answer(_commandr_cache_share, "%",
                                         "cache bytes over all the bytes of the step (weights read "
                                         "plus cache), with the cache at 1 byte per element",
                                         question="share of cache in Command-R's step at 100K"),
    "ex-nb-cases-mixtral-gb": Answer(
        lambda: _est("mixtral-8x7b", context=1).decode_bytes_per_token / GB, "GB",
        "only 2 experts per layer are read, plus attention, the head and one embedding row",
        question="bytes Mixtral 8x7B at fp16 reads per token at batch 1"),
    # ---- chapter 10: mistakes
    "ex-nb-mistakes-gemma-dhead": Answer(lambda: get_model("gemma-2-9b").d_head, "",
                                         "read head_dim from the config, do not divide",
                                         rel_tol=0.0, question="d_head of Gemma 2 9B"),
    "ex-nb-mistakes-mha-factor": Answer(
        lambda: get_model("llama-2-70b").n_heads / get_model("llama-2-70b").n_kv_heads, "x",
        "how many query heads share one KV head?", rel_tol=0.0,
        question="overestimate of Llama 2 70B's cache when GQA is ignored"),
    "ex-nb-mistakes-gemma-kv": Answer(_gemma_wrong_kv_ratio, "x",
                                      "the cache is proportional to d_head; compare d_model / H with "
                                      "the config's head_dim", rel_tol=0.001,
                                      question="wrong / right cache of Gemma 2 9B"),
    "ex-nb-mistakes-gib": Answer(
        lambda: memory.weight_bytes(n_params=get_model("llama-2-7b").total_params,
                                    bits_weight=16) / GiB, "GiB",
        "the same bytes divided by 2^30 rather than 10^9", question="Llama 2 7B fp16 in GiB"),
    "ex-nb-mistakes-moe-total": Answer(
        lambda: get_model("mixtral-8x7b").total_params / get_model("mixtral-8x7b").decode_read_params,
        "x", "a step reads the active experts only, and one row of the embedding table",
        rel_tol=0.005, question="overstatement of Mixtral's bytes per token from total params"),
}


class Verdict:
    """What :func:`check` returns: true when correct, shown as ``True``/``False``.

    In a notebook the line that :func:`check` prints is the whole output: a verdict that ends a
    cell displays nothing more (it has an ``_ipython_display_`` that shows nothing).

    >>> Verdict(True), bool(Verdict(False)), Verdict(True) == True
    (True, False, True)
    """

    __slots__ = ("ok",)

    def __init__(self, ok: bool) -> None:
        self.ok = bool(ok)

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other: object) -> bool:
        return self.ok == (other.ok if isinstance(other, Verdict) else other)

    def __hash__(self) -> int:
        return hash(self.ok)

    def __repr__(self) -> str:
        return repr(self.ok)

    def _ipython_display_(self) -> None:
        """Display nothing: the printed line already says correct or not yet."""


def answer_for(label: str) -> float:
    """The value :func:`check` compares with (for instructors and tests; not shown by check)."""
    return float(ANSWERS[label].compute())


#: How a unit is asked for in a question and a hint ("in GB" unless listed).
_UNIT_PHRASES = {"": "as a number", "x": "as a ratio", "billion": "in billions",
                 "%": "in percent", "params": "as a count of parameters"}


def _unit_phrase(unit: str) -> str:
    return _UNIT_PHRASES.get(unit, f"in {unit}")


def expected(label: str) -> str:
    """The unit and tolerance of an answer, as the notebooks state them."""
    a = ANSWERS[label]
    tol = "exactly" if a.rel_tol == 0 else f"within {100 * a.rel_tol:g}%"
    return f"{_unit_phrase(a.unit)}, {tol}"


def check(label: str, value: Any) -> Verdict:
    """Print whether ``value`` answers exercise ``label`` within its tolerance; return it.

    The result is a :class:`Verdict`: true when correct, and silent at the end of a notebook
    cell (only the printed line shows).

    ``None`` and ``...`` mean that no answer was given. Unknown labels raise ``KeyError``
    naming close labels. The answer is never printed.
    """
    if label not in ANSWERS:
        import difflib
        close = difflib.get_close_matches(label, ANSWERS, n=3)
        raise KeyError(f"no checked exercise {label!r}"
                       + (f"; did you mean {', '.join(close)}?" if close else ""))
    a = ANSWERS[label]
    if value is None or value is Ellipsis:
        print(f"✘ {label}: not yet (no answer given).")
        return Verdict(False)
    try:
        v = float(value)
    except (TypeError, ValueError):
        print(f"✘ {label}: not yet (expected a number{f' in {a.unit}' if a.unit else ''}).")
        return Verdict(False)
    if math.isnan(v):
        print(f"✘ {label}: not yet (the answer is NaN).")
        return Verdict(False)
    target = answer_for(label)
    ok = math.isclose(v, target, rel_tol=a.rel_tol, abs_tol=1e-12)
    if ok:
        print(f"✔ {label}: correct.")
    else:
        unit = f" Give it {_unit_phrase(a.unit)}."
        print(f"✘ {label}: not yet. Hint: {a.hint.rstrip('.')}.{unit}")
    return Verdict(ok)


# ---- chapters 10-14 (issue 15): prefill, parallelism, serving, speculative decoding, cost -----
# Registered in ANSWERS like the others; kept in a block of their own at the end of the module.
def _serving_est(model: str, chip: str, **kw: Any):
    from ..estimate import estimate

    return estimate(model, hardware=chip, **kw)


def _critical_prompt(model: str, chip: str, weights: str) -> float:
    from ..formulas import serving

    e = _serving_est(model, chip, weights=weights, prompt=1)
    m = get_model(model)
    return float(serving.critical_prompt(
        weight_bytes=float(m.step_weight_bytes(e.bits_weight, 1)),
        kv_bytes_token=float(m.kv_bytes_per_token()), matmul_params=m.matmul_params,
        n_layers=m.n_layers, n_heads=m.n_heads, d_head=m.d_head, bandwidth=e.bandwidth,
        peak_flops=e.peak_flops))


def _chunked_bytes(model: str, prompt: int, chunk: int) -> float:
    from ..formulas import serving

    m = get_model(model)
    return float(serving.chunked_prefill_bytes(weight_bytes=_read_bytes(m),
                                               kv_bytes_token=m.kv_bytes_per_token(),
                                               prompt=prompt, prefill_chunk=chunk))


def _parallel(name: str, **kw: Any) -> float:
    from ..formulas import parallel

    return float(getattr(parallel, name)(**kw))


def _serving(name: str, **kw: Any) -> float:
    from ..formulas import serving

    return float(getattr(serving, name)(**kw))


def _little() -> float:
    from ..lab.serving import load_measurements

    rows = {r.id: r for r in load_measurements()}
    thr = rows["mlperf51-nv-b200x8-llama2-70b-server"]
    tpot = rows["mlperf51-nv-b200x8-llama2-70b-server-tpot"]
    return thr.value / thr.dp * tpot.value * 1e-3


def _best_draft() -> float:
    speedups = {k: _serving("speculative_speedup", acceptance=0.9, draft_len=k, draft_cost=0.05)
                for k in range(1, 33)}
    return float(max(speedups, key=speedups.get))


_SERVING_ANSWERS: dict[str, Answer] = {
    # ---- chapter 10: prefill
    "ex-nb-prefill-flops-70b": Answer(
        lambda: float(get_model("llama-3.3-70b").prefill_flops(4096)) / 1e12, "TFLOP",
        "2 FLOPs per matrix weight per prompt token, plus causal attention: position i attends "
        "to i positions, in every layer and head", rel_tol=0.005,
        question="prefill FLOPs of a 4096-token prompt, Llama 3.3 70B"),
    "ex-nb-prefill-crossover": Answer(
        lambda: get_model("llama-3.1-8b").matmul_params
        / (get_model("llama-3.1-8b").n_layers * get_model("llama-3.1-8b").n_heads
           * get_model("llama-3.1-8b").d_head) - 1, "tokens",
        "set the weight term 2 P_mm T equal to the attention term 2 H L d_head T (T + 1) and "
        "solve for T", question="prompt at which attention FLOPs equal matrix FLOPs, Llama 3.1 8B"),
    "ex-nb-prefill-critical": Answer(
        lambda: _critical_prompt("llama-3.1-8b", "a100-80gb-sxm", "fp16"), "tokens",
        "solve memory time (weights + T caches) = compute time (prefill FLOPs) for T; without "
        "attention and cache it is the ops:byte ratio times bytes per weight over 2",
        question="critical prompt of Llama 3.1 8B at fp16 on an A100 80GB SXM"),
    "ex-nb-prefill-ttft-tp8": Answer(
        lambda: 1e3 * _serving_est("llama-3.3-70b", "h100-sxm", weights="fp8", tp=8,
                                   prompt=2048).ttft_seconds, "ms",
        "estimate() with tp=8 and prompt=2048: the prefill's roofline split 8 ways, plus two "
        "all-reduces of 2048 activation vectors per layer",
        question="TTFT bound, Llama 3.3 70B fp8 on 8 H100s, 2048-token prompt"),
    "ex-nb-prefill-chunk-bytes": Answer(
        lambda: _chunked_bytes("llama-3.1-8b", 8192, 1024) / GB, "GB",
        "each of the 8 chunks reads the weights, and the cache of the chunks before it; the "
        "prompt's cache is written once", rel_tol=0.005,
        question="bytes of an 8192-token prefill in chunks of 1024, Llama 3.1 8B fp16"),
    # ---- chapter 11: parallelism
    "ex-nb-parallel-message": Answer(
        lambda: _parallel("tp_allreduce_bytes", batch=32,
                          d_model=get_model("llama-3.3-70b").d_model) / 2**20, "MiB",
        "one activation vector of d_model values per token of the step, at 2 bytes each",
        rel_tol=0.0, question="all-reduce message of Llama 3.3 70B at batch 32, 16-bit"),
    "ex-nb-parallel-ring": Answer(
        lambda: 1e6 * _parallel("ring_allreduce_time", message_bytes=4 * 2**20, n_chips=8,
                                link_bandwidth=450e9), "us",
        "each chip sends 2 (N - 1) / N of the message over its link",
        question="ring all-reduce of 4 MiB over 8 chips at 450 GB/s"),
    "ex-nb-parallel-comm": Answer(
        lambda: 1e3 * _serving_est("llama-3.3-70b", "h100-sxm", weights="fp8", tp=8, batch=64,
                                   context=4096).allreduce_seconds_per_token, "ms",
        "two ring all-reduces per layer, 80 layers, each of 64 vectors of 8192 16-bit values, "
        "over NVLink 4 at 450 GB/s per direction",
        question="all-reduce time per step, Llama 3.3 70B, TP 8 on H100, batch 64"),
    "ex-nb-parallel-bubble": Answer(
        lambda: 100 * _parallel("pipeline_bubble", pp=8, microbatches=24), "%",
        "the last stage starts N_pp - 1 stage-times late and finishes as long after the first",
        question="idle share of 8 pipeline stages with 24 microbatches"),
    "ex-nb-parallel-alltoall": Answer(
        lambda: _parallel("alltoall_bytes", batch=256, d_model=get_model("deepseek-v3").d_model,
                          n_active_experts=get_model("deepseek-v3").n_active_experts,
                          ep=64) / 1e6, "MB",
        "dispatch and combine: each token's activations go to its k experts, (N - 1)/N of them "
        "on other chips, and come back", rel_tol=0.005,
        question="all-to-all bytes per MoE layer, DeepSeek-V3, EP 64, 256 tokens per chip"),
    # ---- chapter 12: serving
    "ex-nb-serving-tpot": Answer(
        lambda: 1e3 * _serving_est("llama-3.3-70b", "h200", weights="fp8", tp=8, prompt=2048,
                                   generate=256, batch=128).tpot_seconds, "ms",
        "estimate() with tp, prompt, generate and batch: one decode step of the whole batch on "
        "the replica, at the mean cache length, with its all-reduces",
        question="TPOT of Llama 3.3 70B fp8 on 8 H200s, batch 128, 2048 + 256 tokens"),
    "ex-nb-serving-per-chip": Answer(
        lambda: _serving_est("llama-3.3-70b", "b200", weights="fp8", tp=8, prompt=2048,
                             generate=256, batch=128).tokens_per_second_per_chip, "tokens/s",
        "batch over TPOT over chips", question="tokens/s per chip of the same on 8 B200s"),
    "ex-nb-serving-little": Answer(_little, "sequences",
        "a replica emits one token per decoding sequence per step: its tokens per second times "
        "the time per output token; the published total covers all replicas (dp of them)",
        question="mean sequences decoding per replica, MLPerf v5.1 B200 Llama 2 70B server"),
    "ex-nb-serving-paged": Answer(
        lambda: _serving("paged_waste", kv_bytes_token=get_model("llama-3.1-8b").kv_bytes_per_token(),
                         context=1000, block_tokens=16, batch=64) / 2**20, "MiB",
        "each sequence's last block holds the tokens beyond the last full block; the rest of it "
        "is empty", rel_tol=0.0,
        question="paged-cache waste of 64 sequences of 1000 tokens in blocks of 16"),
    "ex-nb-serving-transfer": Answer(
        lambda: 1e3 * _serving("kv_transfer_time", transfer_bytes=_serving(
            "kv_transfer_bytes", kv_bytes_token=get_model("llama-3.1-8b").kv_bytes_per_token(),
            prompt=8192), link_bandwidth=50e9), "ms",
        "the prompt's whole cache (all layers, K and V, 2 bytes each) over the link",
        question="moving an 8192-token prompt's cache over 50 GB/s, Llama 3.1 8B"),
    # ---- chapter 13: speculative decoding
    "ex-nb-speculative-tokens": Answer(
        lambda: _serving("speculative_tokens_per_step", acceptance=0.7, draft_len=5), "tokens",
        "the accepted prefix plus the target's own token: 1 + a + a^2 + ... + a^k",
        question="expected tokens per speculative step, acceptance 0.7, 5 drafted tokens"),
    "ex-nb-speculative-speedup": Answer(
        lambda: _serving("speculative_speedup", acceptance=0.75, draft_len=3, draft_cost=0.1),
        "x", "tokens per step over the step's cost in target steps, k c_d + 1",
        question="speed-up bound, acceptance 0.75, 3 drafted tokens, draft cost 0.1"),
    "ex-nb-speculative-breakeven": Answer(
        lambda: (_serving("speculative_tokens_per_step", acceptance=0.6, draft_len=4) - 1) / 4,
        "", "the speed-up is 1 when k c_d + 1 equals the tokens per step",
        question="largest draft cost that still pays, acceptance 0.6, 4 drafted tokens"),
    "ex-nb-speculative-draft-cost": Answer(
        lambda: _serving_est("qwen3-0.6b", "h100-sxm", context=512).decode_seconds_per_token
        / _serving_est("qwen3-8b", "h100-sxm", context=512).decode_seconds_per_token, "",
        "both steps are memory-bound at batch 1: the ratio of their decode step bounds",
        question="draft cost of Qwen3 0.6B for Qwen3 8B on an H100 at 512 tokens"),
    "ex-nb-speculative-best-k": Answer(_best_draft, "tokens",
        "evaluate the speed-up for k = 1, 2, ..., 32 and take the k of the largest", rel_tol=0.0,
        question="best draft length, acceptance 0.9, draft cost 0.05"),
    # ---- chapter 14: cost
    "ex-nb-cost-mtok": Answer(
        lambda: _serving("cost_per_million_tokens", price_per_hour=3.0, n_chips=8,
                         tokens_per_second=10_000), "USD",
        "the replica's price per second (8 chips) over its tokens per second, times a million",
        question="cost of a million tokens: 8 chips at 3 USD/h making 10,000 tokens/s"),
    "ex-nb-cost-estimate": Answer(
        lambda: _serving_est("llama-3.3-70b", "h100-sxm", weights="fp8", tp=8, prompt=2048,
                             generate=256, batch=64,
                             price_per_hour=2.5).cost_per_million_tokens, "USD",
        "estimate() with price_per_hour: the replica's tokens per second at the bound, all 8 "
        "chips paid", question="cost per million output tokens, Llama 3.3 70B fp8, 8 H100s, "
                               "batch 64, at 2.5 USD per chip-hour"),
    "ex-nb-cost-energy": Answer(
        lambda: _serving_est("llama-3.3-70b", "h100-sxm", weights="fp8", tp=8, prompt=2048,
                             generate=256, batch=64).energy_joules_per_token, "J",
        "8 chips at the catalog's board power, over the replica's tokens per second",
        question="board energy per output token of the same replica"),
    "ex-nb-cost-joules": Answer(
        lambda: _serving("energy_per_token", power=1000, n_chips=8, tokens_per_second=20_000),
        "J", "watts are joules per second: the replica's power over its tokens per second",
        question="8 chips at 1000 W making 20,000 tokens/s"),
    "ex-nb-cost-prompt": Answer(
        lambda: _serving("cost_per_million_tokens", price_per_hour=2.0, n_chips=1,
                         tokens_per_second=4096 / _serving_est(
                             "llama-3.1-8b", "h100-sxm", prompt=4096).ttft_seconds), "USD",
        "prompt tokens per second of a prefill: the prompt over its time to first token",
        question="cost of a million prompt tokens, Llama 3.1 8B fp16, one H100, 4096-token "
                 "prompts, 2 USD/h"),
}
ANSWERS.update(_SERVING_ANSWERS)
