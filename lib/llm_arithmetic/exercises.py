"""Answer checking for the exercise notebooks: ``check(label, value)``.

Each exercise label maps to an :class:`Answer`: a function that computes the right value with
the package, a relative tolerance, a unit and a hint. :func:`check` says ``correct`` or
``not yet`` with the hint, and never shows the answer itself.

>>> check("ex-nb-kv-llama2", 524288)
✔ ex-nb-kv-llama2: correct.
True
>>> check("ex-nb-kv-llama2", 262144)
✘ ex-nb-kv-llama2: not yet. Hint: count both keys and values, in every layer, at 2 bytes each. Give it in B.
False
>>> check("ex-nb-kv-llama2", None)
✘ ex-nb-kv-llama2: not yet (no answer given).
False
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from . import flops, memory, roofline
from .hardware import get_hardware
from .model_catalog import get_model
from .units import GB, GiB, bits_per_weight

__all__ = ["Answer", "ANSWERS", "check", "answer_for"]


@dataclass(frozen=True)
class Answer:
    compute: Callable[[], float]
    unit: str
    hint: str
    rel_tol: float = 0.01  #: accepted relative error (1% unless stated)
    question: str = ""


def _dec_tps(model: str, chip: str, fmt: str) -> float:
    from .estimate import estimate

    return estimate(get_model(model), hardware=get_hardware(chip), weights=fmt).decode_tokens_per_second


def _kv_gib(model: str, context: int, batch: int = 1, bits: int = 16) -> float:
    m = get_model(model)
    return memory.kv_cache_bytes(n_layers=m.n_layers, n_kv_heads=m.n_kv_heads, d_head=m.d_head,
                                 context=context, batch=batch, bits_kv=bits) / GiB


def _crit(model: str, chip: str) -> float:
    from .estimate import estimate

    return estimate(get_model(model), hardware=get_hardware(chip), context=1).critical_batch_size


ANSWERS: dict[str, Answer] = {
    # ---- chapter 1: the puzzle
    "ex-nb-puzzle-m2-q4": Answer(lambda: _dec_tps("llama-7b", "m2", "q4_0"), "tokens/s",
                                 "tokens/s <= bandwidth / bytes read per token; Q4_0 is 4.5 bits",
                                 question="LLaMA-7B in Q4_0 on an M2: upper bound on tokens/s"),
    "ex-nb-puzzle-a100-ratio": Answer(
        lambda: get_hardware("a100-80gb-pcie").bandwidth / get_hardware("m2").bandwidth, "x",
        "at batch 1 the speed ratio is the bandwidth ratio", question="A100 80GB PCIe / M2"),
    # ---- chapter 2: spec sheets
    "ex-nb-specs-a10-ratio": Answer(lambda: get_hardware("a10").ops_per_byte("fp16"), "FLOP/B",
                                    "dense fp16 peak divided by bandwidth, both in base units"),
    "ex-nb-specs-80gb-gib": Answer(lambda: 80 * GiB / GB, "GB",
                                   "an '80 GB' HBM card holds 80 GiB; convert GiB to GB"),
    # ---- chapter 3: parameters
    "ex-nb-params-llama2-7b": Answer(lambda: get_model("llama-2-7b").total_params, "params",
                                     "gated MLP (3 matrices of d x d_ff), untied head, 2 norms "
                                     "per layer plus a final one", rel_tol=0.0),
    "ex-nb-params-mixtral-active": Answer(lambda: get_model("mixtral-8x7b").active_params / 1e9,
                                          "billion", "2 of 8 experts per token; attention, "
                                          "embeddings and router are always used", rel_tol=0.001),
    # ---- chapter 4: KV cache
    "ex-nb-kv-llama2": Answer(lambda: get_model("llama-2-7b").kv_bytes_per_token(), "B",
                              "count both keys and values, in every layer, at 2 bytes each.",
                              rel_tol=0.0),
    "ex-nb-kv-70b-32k": Answer(lambda: _kv_gib("llama-2-70b", 32768), "GiB",
                               "Llama 2 70B has 8 KV heads (GQA), not 64"),
    # ---- chapter 5: FLOPs
    "ex-nb-flops-matvec": Answer(lambda: flops.matvec_intensity(mat_m=4096, mat_k=4096, bits=16),
                                 "FLOP/B", "2 FLOPs per matrix element over the bytes of the "
                                 "matrix, the input and the output vectors", rel_tol=0.001),
    "ex-nb-flops-decode-mistral": Answer(
        lambda: 2 * get_model("mistral-7b").matmul_params / 1e9, "GFLOP",
        "2 FLOPs per weight in matrix products; the embedding lookup is not a product",
        rel_tol=0.005),
    # ---- chapter 6: roofline
    "ex-nb-roofline-crit-a100": Answer(lambda: _crit("llama-2-7b", "a100-80gb-pcie"), "sequences",
                                       "set memory time equal to compute time and solve for B",
                                       rel_tol=0.02),
    "ex-nb-roofline-4090-mistral": Answer(lambda: 1e3 / _dec_tps("mistral-7b", "rtx-4090", "fp16"),
                                          "ms", "bytes read per token over 1008 GB/s"),
    # ---- chapter 7: quantization
    "ex-nb-quant-q4-bits": Answer(lambda: float(bits_per_weight("q4_0")), "bits",
                                  "32 four-bit weights share one fp16 scale", rel_tol=0.0),
    "ex-nb-quant-70b-q4-gib": Answer(
        lambda: memory.weight_bytes(n_params=get_model("llama-2-70b").total_params,
                                    bits_weight=bits_per_weight("q4_0")) / GiB, "GiB",
        "parameters x 4.5 bits / 8, then divide by 2^30"),
    # ---- chapter 8: batching
    "ex-nb-batch-a10-fit": Answer(
        lambda: memory.max_batch(capacity=24 * GB, weight_bytes=2 * get_model("llama-2-7b").total_params,
                                 kv_bytes_token=get_model("llama-2-7b").kv_bytes_per_token(),
                                 context=4096), "sequences",
        "(capacity - weights) / (KV bytes per token x context), rounded down", rel_tol=0.0),
    "ex-nb-batch-throughput": Answer(
        lambda: 32 / roofline.decode_step_time(
            weight_bytes=2 * get_model("llama-2-7b").decode_read_params,
            kv_bytes_token=get_model("llama-2-7b").kv_bytes_per_token(),
            matmul_params=get_model("llama-2-7b").matmul_params, n_layers=32, n_heads=32,
            d_head=128, context=1024, batch=32, bandwidth=2039e9, peak_flops=312e12),
        "tokens/s", "one step serves all 32 sequences; the step reads the weights once and 32 caches"),
    # ---- chapter 9: case studies
    "ex-nb-cases-commandr-128k": Answer(lambda: _kv_gib("command-r", 131072), "GiB",
                                        "Command-R has no GQA: 64 KV heads in 40 layers"),
    "ex-nb-cases-pi-fit": Answer(
        lambda: memory.weight_bytes(n_params=get_model("llama-7b").total_params,
                                    bits_weight=bits_per_weight("q4_0")) / GiB, "GiB",
        "LLaMA-7B at 4.5 bits per weight, in GiB"),
    # ---- chapter 10: mistakes
    "ex-nb-mistakes-gemma-dhead": Answer(lambda: get_model("gemma-2-9b").d_head, "", 
                                         "read head_dim from the config, do not divide", rel_tol=0.0),
    "ex-nb-mistakes-mha-factor": Answer(
        lambda: get_model("llama-2-70b").n_heads / get_model("llama-2-70b").n_kv_heads, "x",
        "how many query heads share one KV head?", rel_tol=0.0),
}


def answer_for(label: str) -> float:
    """The value :func:`check` compares with (for instructors and tests; not shown by check)."""
    return float(ANSWERS[label].compute())


def check(label: str, value: Any) -> bool:
    """Print whether ``value`` answers exercise ``label`` within its tolerance; return it.

    Unknown labels raise ``KeyError`` naming close labels. The answer is never printed.
    """
    if label not in ANSWERS:
        import difflib
        close = difflib.get_close_matches(label, ANSWERS, n=3)
        raise KeyError(f"no checked exercise {label!r}"
                       + (f"; did you mean {', '.join(close)}?" if close else ""))
    a = ANSWERS[label]
    if value is None or value is Ellipsis:
        print(f"✘ {label}: not yet (no answer given).")
        return False
    try:
        v = float(value)
    except (TypeError, ValueError):
        print(f"✘ {label}: not yet (expected a number{f' in {a.unit}' if a.unit else ''}).")
        return False
    target = answer_for(label)
    ok = math.isclose(v, target, rel_tol=a.rel_tol, abs_tol=1e-12)
    if ok:
        print(f"✔ {label}: correct.")
    else:
        unit = f" Give it in {a.unit}." if a.unit and a.unit not in a.hint else ""
        print(f"✘ {label}: not yet. Hint: {a.hint.rstrip('.')}.{unit}")
    return ok
