"""The answers of the exercise notebooks: the instructor's copy only.

Each label (``ex-nb-<chapter>-<slug>``) maps to an :class:`Answer`: a function that computes the
value (no typed result; a typed number is an input the question states), a relative tolerance,
a unit and a hint about the method. The function takes another path than the notebook's
solution cell, so that each checks the other: by hand from the question's numbers and the
catalog's fields where the solution calls a registered formula, through ``estimate`` where the
solution composes the formulas itself. The student edition (``make student``)
leaves this file out and ships only salted hashes of the answers
(:func:`llm_arithmetic.teaching.exercises.hash_table`).

The exercises use models, chips and sizes that the chapters do not print results for, so that no
checked answer can be read off a chapter (tests/test_student_edition.py scans the student edition
for every answer).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..catalog.formats import bits_per_weight
from ..catalog.hardware import get_hardware
from ..catalog.model_catalog import get_model
from ..core.units import GB, GiB
from ..formulas import flops, memory, params, roofline

__all__ = ["Answer", "ANSWERS"]


#: Bits per weight of llama.cpp's blocks of 32 weights, from their layout in ggml's
#: ``ggml-common.h`` (ggml-org/llama.cpp): block_q4_0 is an fp16 scale and 16 bytes of 4-bit
#: weights, block_q5_0 an fp16 scale, 4 bytes of fifth bits and 16 bytes of 4-bit weights.
_Q4_0_BITS = (2 + 16) * 8 / 32
_Q5_0_BITS = (2 + 4 + 16) * 8 / 32


@dataclass(frozen=True)
class Answer:
    compute: Callable[[], float]
    unit: str
    hint: str
    rel_tol: float = 0.01  #: accepted relative error (1% unless stated)
    question: str = ""


def _est(model: str, chip: str | None = None, **kw: Any):
    from ..estimate import estimate

    return estimate(get_model(model), hardware=get_hardware(chip) if chip else None, **kw)


def _weights(model: str, fmt: str, read: bool = False) -> Any:
    m = get_model(model)
    return memory.weight_bytes(n_params=m.decode_read_params if read else m.total_params,
                               bits_weight=bits_per_weight(fmt))


def _step_args(model: str, chip: str, fmt: str = "fp16") -> dict[str, Any]:
    m, h = get_model(model), get_hardware(chip)
    return dict(weight_bytes=_weights(model, fmt, read=True), kv_cache_bytes_per_token=m.kv_cache_bytes_per_token(),
                matmul_params=m.matmul_params, n_layers=m.n_layers, n_heads=m.n_heads,
                d_head=m.d_head, bandwidth=h.bandwidth, peak_flops=h.peak("fp16"))


def _ratio_pct(part: float, whole: float) -> float:
    return 100 * part / whole


ANSWERS: dict[str, Answer] = {
    # ---- chapter 1: the puzzle (Qwen3 8B on an M4 Pro) ------------------------------------------
    "ex-nb-puzzle-qwen3-bytes": Answer(
        lambda: _est("qwen3-8b", weights="q8_0", context=1).decode_bytes_per_token / GB, "GB",
        "the weights used in matrix products and one row of the embedding table, at 8.5 bits "
        "each, plus the 16-bit cache of one token; 1 GB is 10^9 bytes",
        question="bytes one decode step of Qwen3 8B in Q8_0 reads"),
    "ex-nb-puzzle-m4pro-bound": Answer(
        lambda: _est("qwen3-8b", "m4-pro", weights="q8_0", context=1).decode_tokens_per_second,
        "tokens/s", "tokens/s <= bandwidth / bytes read per token, unless the compute time of a "
        "step is longer", question="Qwen3 8B in Q8_0 on an M4 Pro, batch 1"),
    "ex-nb-puzzle-m4pro-compute": Answer(
        lambda: get_hardware("m4-pro").peak("fp16")
        / _est("qwen3-8b", weights="q8_0", context=1).decode_flops_per_token, "tokens/s",
        "peak FLOP/s divided by the FLOPs of one token: 2 per weight in a matrix product, plus "
        "attention over a one-token context", question="Qwen3 8B on an M4 Pro if arithmetic "
        "were the limit"),
    "ex-nb-puzzle-5090-ratio": Answer(
        lambda: (_est("qwen3-8b", "rtx-5090", weights="q8_0", context=1).decode_tokens_per_second
                 / _est("qwen3-8b", "m4-pro", weights="q8_0", context=1).decode_tokens_per_second),
        "x", "both are memory-bound at batch 1, so the ratio of the bounds is a ratio of two "
        "catalog figures", question="RTX 5090 / M4 Pro"),
    "ex-nb-puzzle-long-context": Answer(
        lambda: _est("qwen3-8b", "m4-pro", weights="q8_0",
                     context=12_000).decode_tokens_per_second, "tokens/s",
        "add the bytes of 12,000 tokens of 16-bit cache to the weights a step reads",
        question="Qwen3 8B in Q8_0 on an M4 Pro at 12,000 tokens"),
    # ---- chapter 2: spec sheets -------------------------------------------------------------------
    "ex-nb-specs-l40s-fp8": Answer(
        lambda: get_hardware("l40s").ops_per_byte("fp8"), "FLOP/B",
        "a 'with sparsity' figure is twice the dense rate; divide the dense rate by the "
        "bandwidth, both in base units", question="L40S ops:byte at dense fp8"),
    "ex-nb-specs-b200-fp4": Answer(
        lambda: get_hardware("b200").ops_per_byte("fp4"), "FLOP/B",
        "the dense fp4 rate (not the sparse one) in FLOP/s over the bandwidth in B/s",
        question="B200 ops:byte at dense fp4"),
    "ex-nb-specs-b200-gb": Answer(
        lambda: 8 * get_hardware("b200").capacity / GB, "GB",
        "HBM comes in binary sizes: each card holds 180 GiB; convert GiB (2^30 B) to GB "
        "(10^9 B) and count eight cards",
        question="HGX B200 (eight B200s) memory in decimal GB"),
    "ex-nb-specs-h200-gibs": Answer(
        lambda: get_hardware("h200").bandwidth / GiB, "GiB/s",
        "a bandwidth in TB/s is decimal: 10^12 B/s; divide by 2^30 for GiB/s",
        question="H200 bandwidth in GiB/s"),
    "ex-nb-specs-mi325x-sweep": Answer(
        lambda: 1e3 * 256 * 2**30 / 6e12, "ms",  # the question's figures (AMD's datasheet)
        "capacity in bytes (binary) over bandwidth in bytes per second (decimal)",
        question="time to read all of an MI325X's memory once"),
    # ---- chapter 3: parameters --------------------------------------------------------------------
    "ex-nb-params-hypothetical": Answer(
        lambda: params.total_params(n_vocab=65_536, d_model=3072, n_layers=28, n_heads=24,
                                    n_kv_heads=8, d_head=128, d_ff=8192, n_mlp_mats=3, tied=0),
        "params", "embedding table, per block the four attention matrices (K and V are narrower "
        "with 8 key/value heads), three MLP matrices and two norm vectors, then a final norm and "
        "an untied head", rel_tol=0.0, question="exact count of a hypothetical model"),
    "ex-nb-params-gpt-solve-d": Answer(
        lambda: _solve_gpt_width(), "", "solve 12 L d^2 + V d = P for the positive d",
        # 0.01%: the root rounded to an integer passes, rounded to a multiple of 128 (7168,
        # 0.08% low) does not: the question asks for the unrounded root
        rel_tol=0.0001, question="d_model of a 30-billion GPT-style model with 48 layers"),
    "ex-nb-params-mixtral-top3": Answer(
        lambda: get_model("mixtral-8x22b").with_(n_active_experts=3).active_params / 1e9,
        "billion", "one more expert per block is one more MLP of 3 d d_ff weights in each of the "
        "blocks; attention, embeddings and router are always used", rel_tol=0.001,
        question="active parameters of Mixtral 8x22B with 3 of 8 experts"),
    "ex-nb-params-gemma1b-embedding": Answer(
        lambda: _ratio_pct(get_model("gemma-3-1b").n_vocab * get_model("gemma-3-1b").d_model,
                           get_model("gemma-3-1b").total_params), "%",
        "one V x d table (the head is tied to it) over all the parameters",
        question="share of the embedding table in Gemma 3 1B"),
    # ---- chapter 4: KV cache ----------------------------------------------------------------------
    "ex-nb-kv-qwen3-batch": Answer(
        lambda: memory.kv_cache_bytes(n_layers=36, n_kv_heads=8, d_head=128, context=6000,
                                      batch=12, bits_kv=8) / GB, "GB",
        "count keys and values in every layer, at 1 byte each, for every token of every sequence",
        question="8-bit cache of 12 Qwen3 8B sequences of 6,000 tokens"),
    "ex-nb-kv-falcon-mqa": Answer(
        lambda: get_model("falcon-7b").kv_cache_bytes_per_token() * 10_000 / 1e6, "MB",
        "multi-query attention keeps one key/value head of width 64 per layer",
        question="Falcon 7B's cache for 10,000 tokens"),
    "ex-nb-kv-gemma3-window": Answer(
        lambda: _est("gemma-3-4b", context=32_768).kv_cache_bytes / GiB, "GiB",
        "a sliding-window layer keeps only its last 1024 positions; a global layer keeps all",
        question="Gemma 3 4B's cache at 32,768 tokens"),
    "ex-nb-kv-nemo-context": Answer(
        lambda: memory.max_context(capacity=get_hardware("l40s").capacity,
                                   weight_bytes=_weights("mistral-nemo-12b", "fp16"),
                                   kv_cache_bytes_per_token=get_model("mistral-nemo-12b").kv_cache_bytes_per_token(),
                                   batch=8), "tokens",
        "capacity = weights + B S kappa; solve for S and round down", rel_tol=0.0,
        question="longest context of 8 Mistral NeMo sequences on an L40S"),
    # ---- chapter 5: FLOPs and intensity ------------------------------------------------------------
    "ex-nb-flops-prefill-qwen3": Answer(
        lambda: _prefill_flops_by_hand("qwen3-8b", 3500) / 1e12,
        "TFLOP", "2 FLOPs per matrix weight of the blocks per prompt token, 2 per weight of the "
        "V x d output head once (the last position's logits only), plus causal attention: token "
        "i attends to i positions", question="prefill FLOPs of 3,500 tokens of Qwen3 8B"),
    "ex-nb-flops-attn-share": Answer(
        lambda: _ratio_pct(4 * 32 * 32 * 128 * 100_000,
                           _est("llama-3.1-8b", context=100_000).decode_flops_per_token), "%",
        "attention does 4 H d_head FLOPs per cached token in each layer; divide by all the FLOPs "
        "of the token", question="attention's share of a Llama 3.1 8B token at 100,000 tokens"),
    "ex-nb-flops-solve-n": Answer(
        lambda: _solve_matmul_n(5120, "l40s"), "vectors",
        "set the intensity 2MKn / (b/8 (MK + Kn + Mn)) equal to the chip's dense fp16 ops:byte "
        "ratio and solve for n", rel_tol=0.001,
        question="n at which a 5120^2 fp16 product reaches the L40S ridge"),
    "ex-nb-flops-olmo-token": Answer(
        lambda: _est("olmo-2-7b", context=4096).decode_flops_per_token / 1e9, "GFLOP",
        "2 FLOPs per matrix weight, plus attention: 4 H d_head per cached token in every layer",
        rel_tol=0.005, question="FLOPs of one OLMo 2 7B token at 4096 tokens"),
    # ---- chapter 6: roofline ----------------------------------------------------------------------
    "ex-nb-roofline-l40s-step": Answer(
        lambda: 1e3 * _est("qwen3-8b", "l40s", context=2048).decode_seconds_per_token, "ms",
        "the larger of bytes / bandwidth and FLOPs / peak; the bytes are the weights read plus "
        "2048 tokens of cache, keys and values",
        # 0.5%: a cache without its values (half of it) lands 0.98% low and is refused
        rel_tol=0.005, question="decode step of Qwen3 8B on an L40S at 2048 tokens"),
    "ex-nb-roofline-solve-batch": Answer(
        lambda: _est("mistral-nemo-12b", "h100-pcie", context=128).critical_batch_size,
        "sequences", "set the memory time of a step (the weights once, and 128 tokens of cache "
        "per sequence) equal to its compute time and solve for B",
        rel_tol=0.01, question="critical batch of Mistral NeMo 12B on an H100 PCIe at 128 "
                               "tokens"),
    "ex-nb-roofline-l40s-prefill": Answer(
        lambda: 1e3 * _tp_prefill("qwen3-8b", "l40s", 16, tp=1, prompt=1800), "ms",
        "a prefill reads the weights once but does the matrix FLOPs of every prompt token: "
        "compare both times", question="prefill of 1,800 tokens of Qwen3 8B on an L40S"),
    "ex-nb-roofline-l40s-prefill-regime": Answer(
        lambda: (lambda memory_s, compute_s: compute_s / memory_s)(
            *_prefill_times("qwen3-8b", "l40s", 16, prompt=1800)), "x",
        "divide the compute time (the prompt's FLOPs over the peak) by the memory time (the "
        "weights and the prompt's cache over the bandwidth); above 1 the prefill is "
        "compute-bound", question="compute time over memory time of the same prefill"),
    "ex-nb-roofline-l40s-request": Answer(
        lambda: _tp_prefill("qwen3-8b", "l40s", 16, tp=1, prompt=1800)
        + 400 * _tp_decode_step("qwen3-8b", "l40s", 16, tp=1, batch=1,
                                context=1800 + (400 + 1) / 2), "s",
        "the prefill, then 400 decode steps at the mean context",
        # 0.05%: either mean (2000 or 2000.5 tokens) passes; the prompt's 1800 or the last
        # context, 2200, each 0.19% off, do not
        rel_tol=0.0005, question="whole request"),
    "ex-nb-roofline-solve-context": Answer(
        lambda: roofline.critical_context(**{k: v for k, v in _step_args("qwen3-8b", "h100-pcie").items()
                                             if k != "weight_bytes"}), "tokens",
        "the critical batch is infinite where its denominator vanishes: solve that for S",
        rel_tol=0.01, question="S-dagger of Qwen3 8B on an H100 PCIe"),
    # ---- chapter 7: quantization --------------------------------------------------------------------
    "ex-nb-quant-block48": Answer(
        lambda: (48 * 3 + 16) / 48, "bits", "count every bit of one block (weights and scale) and "
        "divide by the weights in it", rel_tol=0.001,
        question="bits per weight of 3-bit blocks of 48 with an fp16 scale"),
    "ex-nb-quant-nemo-q5": Answer(
        lambda: get_model("mistral-nemo-12b").total_params * _Q5_0_BITS / 8 / GiB, "GiB",
        "all the parameters at 5.5 bits, / 8, then divide by 2^30",
        question="Mistral NeMo 12B in Q5_0"),
    "ex-nb-quant-l4-ratio": Answer(
        lambda: (_est("qwen3-8b", "l4", weights="q4_0", context=4096).decode_tokens_per_second
                 / _est("qwen3-8b", "l4", weights="q8_0", context=4096).decode_tokens_per_second),
        "x", "the cache bytes do not shrink with the weights: compare the whole bytes of each step",
        question="Q4_0 / Q8_0 speed of Qwen3 8B on an L4 at 4096 tokens"),
    "ex-nb-quant-4080-context": Answer(
        lambda: memory.max_context(capacity=get_hardware("rtx-4080").capacity,
                                   weight_bytes=_weights("qwen3-8b", "q4_0"),
                                   kv_cache_bytes_per_token=get_model("qwen3-8b").kv_cache_bytes_per_token(bits_kv=8)),
        "tokens", "capacity = weights + S kappa with kappa at 8 bits; solve for S and round down",
        rel_tol=0.0, question="longest context of Qwen3 8B Q4_0 with an 8-bit cache on a 4080"),
    # ---- chapter 8: after GQA (latent attention, windows, state-space layers, experts) --------
    "ex-nb-modern-mla-token-fp8": Answer(
        lambda: get_model("deepseek-v2.5").n_layers * memory.mla_kv_layer_bytes(
            kv_lora_rank=get_model("deepseek-v2.5").layers[-1].attention.kv_lora_rank,
            d_rope=get_model("deepseek-v2.5").layers[-1].attention.d_rope, bits_kv=8),
        "B", "per layer the latent (kv_lora_rank) and the rotary key (qk_rope_head_dim), one byte "
        "each and no per-head keys; times the layers", rel_tol=0.0,
        question="DeepSeek-V2.5's cache per token at 8 bits"),
    "ex-nb-modern-v25-100k": Answer(
        lambda: get_model("deepseek-v2.5").kv_cache_bytes(100_000) / GiB, "GiB",
        "bytes per layer and token, times 60 layers, times the tokens, divided by 2^30",
        question="DeepSeek-V2.5's cache for one sequence of 100,000 tokens"),
    "ex-nb-modern-gemma1b-stored": Answer(
        lambda: get_model("gemma-3-1b").kv_cache_bytes(100_000) / GiB, "GiB",
        "the 4 global layers keep every token, the 22 sliding layers only the last 512",
        question="Gemma 3 1B's cache at 100,000 tokens, windows applied"),
    "ex-nb-modern-nemotron-24": Answer(
        lambda: 24 * get_model("nemotron-h-56b").state_bytes(16) / GB, "GB",
        "per Mamba-2 layer: d_inner x d_state for the recurrence plus (d_inner + 2 n_groups "
        "d_state) x (conv_kernel - 1) for the convolution, 2 bytes each, times the 54 layers and "
        "the 24 sequences", rel_tol=0.001,
        question="the state-space state of 24 Nemotron-H 56B sequences"),
    "ex-nb-modern-experts-20": Answer(
        lambda: 128 * (1 - (1 - 8 / 128) ** 20), "experts",
        "E (1 - (1 - k/E)^B): the expected number of experts that at least one of the B tokens "
        "chooses", rel_tol=0.001,
        question="experts per MoE layer that a step of 20 tokens reads in Qwen3 235B-A22B"),
    # ---- chapter 9: batching ---------------------------------------------------------------------
    "ex-nb-batch-l40s-fit": Answer(
        lambda: memory.max_batch(capacity=get_hardware("l40s").capacity,
                                 weight_bytes=_weights("qwen3-8b", "fp16"),
                                 kv_cache_bytes_per_token=get_model("qwen3-8b").kv_cache_bytes_per_token(),
                                 context=1280, overhead=get_hardware("l40s").capacity // 10),
        "sequences", "(capacity - reserve - weights) / (cache bytes per token x context), "
        "rounded down", rel_tol=0.0, question="1280-token Qwen3 8B sequences on an L40S"),
    "ex-nb-batch-l40s-rate": Answer(
        lambda: _est("qwen3-8b", "l40s", context=8192, batch=14).throughput_tokens_per_second,
        "tokens/s", "one step serves all 14 sequences: it reads the weights once and 14 caches",
        question="aggregate rate of 14 Qwen3 8B streams on an L40S"),
    "ex-nb-batch-solve-ceiling": Answer(
        lambda: get_hardware("h200").bandwidth
        / (get_model("mistral-nemo-12b").kv_cache_bytes_per_token() * 16_384), "tokens/s",
        "take the limit of B / step time as B grows: the weights' share vanishes",
        question="aggregate ceiling of Mistral NeMo on an H200 at 16,384 tokens"),
    "ex-nb-batch-l40s-cost": Answer(
        lambda: 0.9 / 3600 / _est("qwen3-8b", "l40s", context=8192,
                                  batch=14).throughput_tokens_per_second * 1e6, "USD",
        "price per second divided by tokens per second, times a million", question="cost"),
    "ex-nb-batch-qwen-moe-experts": Answer(
        lambda: float(params.experts_read(n_experts=128, n_active_experts=8, batch=18)), "experts",
        "E (1 - (1 - k/E)^B) with E = 128, k = 8: the expected number of experts that at least "
        "one of the B tokens chooses", rel_tol=0.001,
        question="experts of a Qwen3-30B-A3B layer a batch of 18 reads"),
    # ---- chapter 15: case studies ----------------------------------------------------------------
    "ex-nb-cases-epyc-70b": Answer(
        lambda: _memory_bound_rate("llama-3.1-70b", "epyc-9755", 8.5, 4096), "tokens/s",
        "the weights read at 8.5 bits plus 4096 tokens of 16-bit cache, over the bandwidth; "
        "check that the CPU's fp32 peak is not the limit",
        # 0.5%: a cache without its values (half of it) lands 0.9% high and is refused
        rel_tol=0.005, question="Llama 3.1 70B Q8_0 on an EPYC 9755"),
    "ex-nb-cases-deepseek-gib": Answer(
        lambda: get_model("deepseek-v3").total_params * _Q4_0_BITS / 8 / GiB, "GiB",
        "all the parameters (every expert) at 4.5 bits", question="DeepSeek-V3 in Q4_0"),
    "ex-nb-cases-deepseek-tps": Answer(
        lambda: _est("deepseek-v3", "m3-ultra", weights="q4_0",
                     context=1).decode_tokens_per_second, "tokens/s",
        "a step reads only the active experts (and one embedding row), at 4.5 bits",
        question="DeepSeek-V3 Q4_0 on an M3 Ultra, batch 1"),
    "ex-nb-cases-5090-moe": Answer(
        lambda: _est("qwen3-30b-a3b", "rtx-5090", weights="q4_0",
                     context=1).decode_tokens_per_second, "tokens/s",
        "only 8 of 128 experts per layer are read at batch 1",
        question="Qwen3-30B-A3B Q4_0 on an RTX 5090, batch 1"),
    # ---- chapter 16: common mistakes -------------------------------------------------------------
    "ex-nb-mistakes-t4-critical": Answer(
        lambda: _est("phi-3-mini", "t4", context=1).critical_batch_size, "sequences",
        "use the dense fp16 rate and the bandwidth in base units, and the weights a step reads",
        # 0.1%: the one-token cache without its values lands 0.54% low, and the ops:byte ratio
        # alone 1.1% low; both are refused
        rel_tol=0.001, question="critical batch of Phi-3 mini on a T4"),
    "ex-nb-mistakes-mha-qwen": Answer(
        lambda: 2 * 36 * 32 * 128 * 2 * 50_000 / GiB, "GiB",
        "the calculator uses all 32 query heads as key/value heads",
        question="what a GQA-blind calculator reports for Qwen3 8B at 50,000 tokens"),
    "ex-nb-mistakes-moe-qwen": Answer(
        lambda: get_model("phi-3.5-moe").total_params / get_model("phi-3.5-moe").decode_read_params,
        "x", "a step reads the active experts only, and one row of the embedding table",
        rel_tol=0.005, question="overstatement of Phi-3.5-MoE's bytes per token"),
    "ex-nb-mistakes-tib": Answer(
        lambda: 1e3 * _est("qwen3-8b", context=1).decode_bytes_per_token
        / (get_hardware("h100-sxm").bandwidth / 1e12 * 2**40), "ms",
        "the calculator divides the bytes of a step by 3.35 x 2^40 B/s instead of 3.35 x 10^12",
        question="the step time a calculator gets by reading TB/s as TiB/s"),
}


def _memory_bound_rate(model: str, chip: str, bits: float, context: int) -> float:
    """Bandwidth over the bytes of one step at batch 1 (the weights a step reads and the 16-bit
    cache), by hand; it asserts that arithmetic at the chip's dense fp16 peak (fp32 on a CPU
    that lists none) is not the limit, so that the memory-bound rate is the bound."""
    m, h = get_model(model), get_hardware(chip)
    step_bytes = m.decode_read_params * bits / 8 + m.kv_cache_bytes_per_token() * context
    step_flops = 2 * m.matmul_params + 4 * m.n_layers * m.n_heads * m.d_head * context
    peak = h.peak("fp16" if "fp16" in h.peaks else "fp32")
    assert step_flops / peak < step_bytes / h.bandwidth, (model, chip)
    return h.bandwidth / step_bytes


def _solve_gpt_width() -> float:
    """Positive root of 12 L d^2 + V d = P (the quadratic formula, a second derivation)."""
    L, V, P = 48, 50_000, 3 * 10**10
    a, b, c = 12 * L, V, -P
    return (-b + (b * b - 4 * a * c) ** 0.5) / (2 * a)


def _solve_matmul_n(size: int, chip: str) -> float:
    """n with 2 M K n / (2 (M K + K n + M n)) = ridge, for M = K = size at 16 bits (by hand)."""
    r = get_hardware(chip).ops_per_byte("fp16")
    mk, m_plus_k = size * size, 2 * size
    # M K n = r (M K + (M + K) n)  =>  n = r M K / (M K - r (M + K))
    return r * mk / (mk - r * m_plus_k)


# ---- chapters 10-14 (issue 15): prefill, parallelism, serving, speculative decoding, cost -----
def _peak_for(chip: str, bits: int) -> float:
    """The dense peak at the weights' precision (fp8 weights: fp8, else fp16)."""
    return get_hardware(chip).peak("fp8" if bits == 8 else "fp16")


def _attention_peak(chip: str) -> float:
    """The dense peak attention's products take over a 16-bit cache: fp16, whatever the
    weights' precision (attention multiplies activations by the cache, not by weights)."""
    return get_hardware(chip).peak("fp16")


def _tp_decode_step(model: str, chip: str, bits: int, tp: int, batch: int,
                    context: float) -> float:
    """One decode step of a tensor-parallel replica, by hand: each chip reads 1/tp of the
    weights and of the batch's cache and does 1/tp of its FLOPs; the all-reduces overlap, so the
    step is the longest of the three times."""
    m, h = get_model(model), get_hardware(chip)
    step_bytes = m.decode_read_params * bits / 8 + batch * m.kv_cache_bytes_per_token() * context
    weights = batch * 2 * m.matmul_params
    attention = batch * 4 * m.n_layers * m.n_heads * m.d_head * context
    compute = weights / _peak_for(chip, bits) + attention / _attention_peak(chip)
    return max(step_bytes / tp / h.bandwidth, compute / tp,
               _switch_allreduces(model, chip, batch=batch, tp=tp))


def _prefill_times(model: str, chip: str, bits: int, prompt: int) -> tuple[float, float]:
    """A prefill's memory time and compute time on one chip, by hand [s]: the weights and the
    prompt's cache over the bandwidth, the matrix FLOPs over the weights' peak and the
    causal-attention FLOPs over the 16-bit cache's."""
    m, h = get_model(model), get_hardware(chip)
    step_bytes = m.decode_read_params * bits / 8 + prompt * m.kv_cache_bytes_per_token()
    weights, attention = _prefill_flop_parts(model, prompt)
    return (step_bytes / h.bandwidth,
            weights / _peak_for(chip, bits) + attention / _attention_peak(chip))


def _tp_prefill(model: str, chip: str, bits: int, tp: int, prompt: int) -> float:
    """A prefill's roofline on tp chips, by hand (its all-reduces apart): each chip reads 1/tp
    of the bytes and does 1/tp of the FLOPs of :func:`_prefill_times`."""
    return max(_prefill_times(model, chip, bits, prompt)) / tp


def _head_by_hand(m: Any) -> int:
    """The output head's weights from the config's fields, V x d (tied or not: a matrix
    product either way), not the library's head_params."""
    return m.n_vocab * m.d_model


def _prefill_flops_by_hand(model: str, prompt: int) -> float:
    """2 FLOPs per matrix weight of the blocks per prompt token, 2 per weight of the V x d
    output head once (only the last position's logits are computed), plus causal attention:
    token i attends to i positions, 4 H d_head FLOPs each in every layer (summed, not the
    library's expression)."""
    return sum(_prefill_flop_parts(model, prompt))


def _prefill_flop_parts(model: str, prompt: int) -> tuple[int, int]:
    """:func:`_prefill_flops_by_hand` in its two parts: the weights' products, attention's."""
    m = get_model(model)
    head = _head_by_hand(m)
    attended = prompt * (prompt + 1) // 2
    return (2 * (m.matmul_params - head) * prompt + 2 * head,
            4 * m.n_layers * m.n_heads * m.d_head * attended)


def _attention_crossover(model: str) -> float:
    """T with 2 (P_mm - V d) T + 2 V d = 2 H L d_head T (T + 1): the positive root of
    a T^2 + b T + c, a = H L d_head, b = a - (P_mm - V d), c = -V d, by hand."""
    m = get_model(model)
    head = _head_by_hand(m)
    a = m.n_heads * m.n_layers * m.d_head
    b, c = a - (m.matmul_params - head), -head
    return (-b + (b * b - 4 * a * c) ** 0.5) / (2 * a)


def _critical_prompt(model: str, chip: str) -> float:
    """T with (W + T kappa) / beta = (2 (P_mm - V d) T + 2 V d + 2 H L d_head T (T + 1)) / R
    at 16 bits (the V x d head once): the quadratic formula by hand (a second derivation of
    serving.critical_prompt)."""
    m, h = get_model(model), get_hardware(chip)
    w, kappa = 2 * m.decode_read_params, m.kv_cache_bytes_per_token()
    beta, r = h.bandwidth, h.peak("fp16")
    hld = m.n_heads * m.n_layers * m.d_head
    head = _head_by_hand(m)
    a = 2 * hld / r
    b = (2 * (m.matmul_params - head) + 2 * hld) / r - kappa / beta
    c = 2 * head / r - w / beta
    return (-b + (b * b - 4 * a * c) ** 0.5) / (2 * a)


def _chunked_bytes(model: str, prompt: int, chunk: int) -> float:
    """Each chunk reads the weights but the output head, and the cache of the chunks before it;
    the last chunk also reads the head; the prompt's cache is written once (summed chunk by
    chunk)."""
    m = get_model(model)
    w, kappa = 2 * m.decode_read_params, m.kv_cache_bytes_per_token()
    head = 2 * _head_by_hand(m)  # bytes at fp16
    chunks = -(-prompt // chunk)
    return sum(w - head + i * chunk * kappa for i in range(chunks)) + head + prompt * kappa


def _switch_allreduces(model: str, chip: str, batch: int, tp: int) -> float:
    """Two all-reduces per layer, each reduced in the switch: the message out once and the sum
    back, (N + 1)/N of it over the link, and two latency steps (NCCL's default)."""
    from ..catalog.hardware import DEFAULT_LATENCY

    if tp == 1:
        return 0.0
    m, ic = get_model(model), get_hardware(chip).interconnect
    message = batch * m.d_model * 2
    one = message * (tp + 1) / (tp * ic.scale_up_bandwidth) + 2 * DEFAULT_LATENCY["scale_up"]
    return 2 * m.n_layers * one


def _tokens_per_step(acceptance: float, draft_len: int) -> float:
    """1 + a + a^2 + ... + a^k: the target's own token and the accepted prefix."""
    return sum(acceptance ** i for i in range(draft_len + 1))


def _little() -> float:
    from ..lab.serving import load_measurements

    rows = {r.id: r for r in load_measurements()}
    thr = rows["mlperf51-nebius-h200x8-llama2-70b-server"]
    tpot = rows["mlperf51-nebius-h200x8-llama2-70b-server-tpot"]
    return thr.value / thr.dp * tpot.value * 1e-3


def _best_draft() -> float:
    """The largest speed-up over draft lengths 1 to 32, each by hand."""
    return max(_tokens_per_step(0.9, k) / (k * 0.05 + 1) for k in range(1, 33))


_SERVING_ANSWERS: dict[str, Answer] = {
    # ---- chapter 10: prefill
    "ex-nb-prefill-flops-70b": Answer(
        lambda: _prefill_flops_by_hand("llama-3.3-70b", 6000) / 1e12, "TFLOP",
        "2 FLOPs per matrix weight of the blocks per prompt token, 2 per head weight once, plus "
        "causal attention: position i attends to i positions, in every layer and head",
        rel_tol=0.005,
        question="prefill FLOPs of a 6000-token prompt, Llama 3.3 70B"),
    "ex-nb-prefill-crossover": Answer(
        lambda: _attention_crossover("mistral-nemo-12b"), "tokens",
        "set the weight term 2 (P_mm - P_head) T + 2 P_head equal to the attention term "
        "2 H L d_head T (T + 1) and solve the quadratic for T",
        question="prompt at which attention FLOPs equal matrix FLOPs, Mistral NeMo 12B"),
    "ex-nb-prefill-critical": Answer(
        lambda: _critical_prompt("llama-3.1-8b", "l40s"), "tokens",
        "solve memory time (the weights and the T tokens of cache written) = compute time (the "
        "prefill's FLOPs, causal attention included) for T; the ops:byte ratio alone leaves out "
        "the cache and the attention", rel_tol=0.001,
        question="critical prompt of Llama 3.1 8B at fp16 on an L40S"),
    "ex-nb-prefill-ttft-tp4": Answer(
        lambda: 1e3 * (_tp_prefill("llama-3.3-70b", "h200", 8, tp=4, prompt=3000)
                       + _switch_allreduces("llama-3.3-70b", "h200", batch=3000, tp=4)), "ms",
        "estimate() with tp=4 and prompt=3000: the prefill's roofline split 4 ways, plus two "
        "all-reduces of 3000 activation vectors per layer added after it",
        question="serialized TTFT, Llama 3.3 70B fp8 on 4 H200s, 3000-token prompt"),
    "ex-nb-prefill-chunk-bytes": Answer(
        lambda: _chunked_bytes("llama-3.1-8b", 8192, 512) / GB, "GB",
        "each of the 16 chunks reads the weights (the output head only in the last), and the "
        "cache of the chunks before it; the prompt's cache is written once", rel_tol=0.001,
        question="bytes of an 8192-token prefill in chunks of 512, Llama 3.1 8B fp16"),
    # ---- chapter 11: parallelism
    "ex-nb-parallel-message": Answer(
        lambda: 48 * get_model("llama-3.3-70b").d_model * 2 / 2**20, "MiB",
        "one activation vector of d_model values per token of the step, at 2 bytes each",
        rel_tol=0.0, question="all-reduce message of Llama 3.3 70B at batch 48, 16-bit"),
    "ex-nb-parallel-ring": Answer(
        lambda: 1e6 * 2 * (8 - 1) / 8 * (6 * 2**20) / 450e9, "us",
        "each chip sends 2 (N - 1) / N of the message over its link",
        question="ring all-reduce of 6 MiB over 8 chips at 450 GB/s"),
    "ex-nb-parallel-comm": Answer(
        lambda: 1e3 * _switch_allreduces("llama-3.3-70b", "h100-sxm", batch=96, tp=8), "ms",
        "two all-reduces per layer, 80 layers, each of 96 vectors of 8192 16-bit values; the "
        "NVSwitch reduces in the switch, so each chip sends its message once and receives the "
        "sum (N + 1)/N of it at 450 GB/s, plus two latency steps",
        question="all-reduce time per step, Llama 3.3 70B, TP 8 on H100, batch 96"),
    "ex-nb-parallel-bubble": Answer(
        lambda: 100 * (8 - 1) / (24 + 8 - 1), "%",
        "the last stage starts N_pp - 1 stage-times late and finishes as long after the first",
        question="idle share of 8 pipeline stages with 24 microbatches"),
    "ex-nb-parallel-alltoall": Answer(
        lambda: 2 * 256 * get_model("deepseek-v3").n_active_experts
        * get_model("deepseek-v3").d_model * 2 * (64 - 1) / 64 / 1e6, "MB",
        "dispatch and combine: each token's activations go to its k experts, (N - 1)/N of them "
        "on other chips, and come back", rel_tol=0.005,
        question="all-to-all bytes per MoE layer, DeepSeek-V3, EP 64, 256 tokens per chip"),
    # ---- chapter 12: serving
    "ex-nb-serving-tpot": Answer(
        lambda: 1e3 * _tp_decode_step("llama-3.3-70b", "h200", 8, tp=8, batch=128,
                                      context=2048 + (256 + 1) / 2), "ms",
        "estimate() with tp, prompt, generate and batch: one decode step of the whole batch on "
        "the replica, at the mean cache length; the all-reduces overlap the step, so the bound "
        "is the longest of memory, compute and communication time, not their sum",
        question="TPOT of Llama 3.3 70B fp8 on 8 H200s, batch 128, 2048 + 256 tokens"),
    "ex-nb-serving-per-chip": Answer(
        lambda: 128 / _tp_decode_step("llama-3.3-70b", "b200", 8, tp=8, batch=128,
                                      context=2048 + (256 + 1) / 2) / 8, "tokens/s",
        "batch over TPOT over chips", question="tokens/s per chip of the same on 8 B200s"),
    "ex-nb-serving-little": Answer(_little, "sequences",
        "a replica emits one token per decoding sequence per step: its tokens per second times "
        "the time per output token; the published total covers all replicas (dp of them)",
        question="mean sequences decoding per replica, MLPerf v5.1 Nebius H200 Llama 2 70B server"),
    "ex-nb-serving-paged": Answer(
        lambda: 28 * (16 - 1234 % 16) * get_model("llama-3.1-8b").kv_cache_bytes_per_token()
        / 1e6, "MB",
        "each sequence's last block holds the tokens beyond the last full block; the rest of it "
        "is empty", rel_tol=0.001,
        question="paged-cache waste of 28 sequences of 1234 tokens in blocks of 16"),
    "ex-nb-serving-transfer": Answer(
        lambda: 1e3 * 20_000 * get_model("llama-3.1-8b").kv_cache_bytes_per_token() / 50e9, "ms",
        "the prompt's whole cache (all layers, K and V, 2 bytes each) over the link",
        question="moving a 20,000-token prompt's cache over 50 GB/s, Llama 3.1 8B"),
    # ---- chapter 13: speculative decoding
    "ex-nb-speculative-tokens": Answer(
        lambda: _tokens_per_step(0.7, 5), "tokens",
        "the accepted prefix plus the target's own token: 1 + a + a^2 + ... + a^k",
        question="expected tokens per speculative step, acceptance 0.7, 5 drafted tokens"),
    "ex-nb-speculative-speedup": Answer(
        lambda: _tokens_per_step(0.8, 3) / (3 * 0.1 + 1), "x",
        "tokens per step over the step's cost in target steps, k c_d + 1",
        question="speed-up bound, acceptance 0.8, 3 drafted tokens, draft cost 0.1"),
    "ex-nb-speculative-breakeven": Answer(
        lambda: (_tokens_per_step(0.6, 4) - 1) / 4,
        "", "the speed-up is 1 when k c_d + 1 equals the tokens per step",
        question="largest draft cost that still pays, acceptance 0.6, 4 drafted tokens"),
    "ex-nb-speculative-draft-cost": Answer(
        lambda: _memory_bound_rate("qwen3-8b", "h100-sxm", 16, 512)
        / _memory_bound_rate("qwen3-0.6b", "h100-sxm", 16, 512), "",
        "both steps are memory-bound at batch 1: the ratio of their decode step bounds",
        question="draft cost of Qwen3 0.6B for Qwen3 8B on an H100 at 512 tokens"),
    "ex-nb-speculative-best-draft": Answer(_best_draft, "x",
        "evaluate the speed-up for k = 1, 2, ..., 32 and take the largest",
        question="speed-up at the best draft length, acceptance 0.9, draft cost 0.05"),
    # ---- chapter 14: cost
    "ex-nb-cost-mtok": Answer(
        lambda: 8 * 3.0 / 3600 / 10_000 * 1e6, "USD",
        "the replica's price per second (8 chips) over its tokens per second, times a million",
        question="cost of a million tokens: 8 chips at 3 USD/h making 10,000 tokens/s"),
    "ex-nb-cost-estimate": Answer(
        lambda: 8 * 2.5 / 3600 * _tp_decode_step("llama-3.3-70b", "h100-sxm", 8, tp=8, batch=64,
                                                 context=2048 + (256 + 1) / 2) / 64 * 1e6, "USD",
        "estimate() with price_per_hour: the replica's tokens per second at the bound, all 8 "
        "chips paid", question="cost per million output tokens, Llama 3.3 70B fp8, 8 H100s, "
                               "batch 64, at 2.5 USD per chip-hour"),
    "ex-nb-cost-energy": Answer(
        lambda: 8 * get_hardware("h100-sxm").power * _tp_decode_step(
            "llama-3.3-70b", "h100-sxm", 8, tp=8, batch=64, context=2048 + (256 + 1) / 2) / 64, "J",
        "8 chips at the catalog's board power, over the replica's tokens per second",
        question="board energy per output token of the same replica"),
    "ex-nb-cost-joules": Answer(
        lambda: 8 * 1000 / 20_000,
        "J", "watts are joules per second: the replica's power over its tokens per second",
        question="8 chips at 1000 W making 20,000 tokens/s"),
    "ex-nb-cost-prompt": Answer(
        lambda: 2.0 / 3600 * _tp_prefill("llama-3.1-8b", "h100-sxm", 16, tp=1, prompt=4096)
        / 4096 * 1e6, "USD",
        "prompt tokens per second of a prefill: the prompt over its time to first token",
        question="cost of a million prompt tokens, Llama 3.1 8B fp16, one H100, 4096-token "
                 "prompts, 2 USD/h"),
}
ANSWERS.update(_SERVING_ANSWERS)


# ---- chapters 17 and 17b: predicted against measured, from bound to forecast ---------------------
def _measured(row_id: str) -> Any:
    """A row of chapter 17's dataset with its bound (lab.calibration: the catalog's weights read
    per step at the row's bits, the 16-bit cache of the row's context, the row's bandwidth)."""
    from ..lab.calibration import calibrate, load_measurements

    (c,) = calibrate([r for r in load_measurements() if r.id == row_id])
    return c


def _unexplained_ms(row_id: str) -> float:
    c = _measured(row_id)
    return 1e3 / c.row.measured_tps - 1e3 / c.bound_tps


def _reached_bandwidth(row_id: str) -> float:
    c = _measured(row_id)
    return c.row.measured_tps * c.bytes_per_token / GB


def _fixed_cost_ms(small: str, large: str) -> float:
    """t = t_bound (1 + k) + tau through two rows of one runtime on one chip: tau [ms]."""
    (t1, b1), (t2, b2) = [(1 / c.row.measured_tps, 1 / c.bound_tps)
                          for c in (_measured(small), _measured(large))]
    one_plus_k = (t2 - t1) / (b2 - b1)
    return 1e3 * (t1 - b1 * one_plus_k)


def _q6k_head_bound(row_id: str) -> float:
    """A Q4_0 row's bound with its output matrix at Q6_K, as llama.cpp's Q4_0 files store it."""
    from ..articles.zeux import Q6_K_BITS

    c, m = _measured(row_id), get_model(_measured(row_id).row.model_key)
    extra = memory.weight_bytes(n_params=m.n_vocab * m.d_model,
                                bits_weight=Q6_K_BITS - bits_per_weight("q4_0"))
    return roofline.memory_bound_rate(step_bytes=c.bytes_per_token + float(extra),
                                      bandwidth=c.row.bandwidth_gbps * 1e9)


def _speculative_room(row_id: str, acceptance: float, draft_len: int, draft_cost: float) -> float:
    from ..formulas import serving

    c = _measured(row_id)
    gain = serving.speculative_speedup(acceptance=acceptance, draft_len=draft_len,
                                       draft_cost=draft_cost)
    return c.bound_tps * float(gain) / c.row.measured_tps


def _forecast_stated() -> float:
    """The forecast of ex-nb-forecast-stated-terms through the generated numeric function of
    the registered formula (forecast_step_time), the bound and t_16 from the question's numbers
    (t_16 by forecast_fit.dequant_seconds)."""
    from .. import numeric as N
    from ..forecast_fit import dequant_seconds

    read, bits, bw = get_model("mistral-7b").decode_read_params, 8.5, 936e9
    layers = get_model("mistral-7b").n_layers  # 32, as the question states
    t_bound = float(N.memory_time(
        step_bytes=memory.weight_bytes(n_params=read, bits_weight=bits), bandwidth=bw))
    t = N.forecast_step_time(step_time=t_bound, overhead_fraction=0.3, dequant_fraction=0.04,
                             dequant_time=dequant_seconds(read, bits, bw), fixed_time=0.5e-3,
                             layer_time=12e-6, n_layers=layers)
    return 1 / float(t)


def _layer_cost_us(small: str, large: str) -> float:
    """t = t_bound (1 + k) + lambda L through two rows (tau and delta set aside): lambda [us]."""
    rows = [(_measured(r), get_model(_measured(r).row.model_key).n_layers)
            for r in (small, large)]
    (t1, b1, l1), (t2, b2, l2) = [(1 / c.row.measured_tps, 1 / c.bound_tps, n) for c, n in rows]
    # Cramer's rule on [[b1, l1], [b2, l2]] (1 + k, lambda) = (t1, t2)
    det = b1 * l2 - b2 * l1
    return 1e6 * (b1 * t2 - b2 * t1) / det


def _interval_width() -> float:
    """The width of an 80% interval: the forecast speed over the stated ratios, the upper end
    capped at the bound (formula forecast_end_time, in step times)."""
    from .. import numeric as N

    fc, bound, lo_q, hi_q = 1 / 56.0, 1 / 64.0, 0.74, 1.22
    slow = N.forecast_end_time(forecast_time=fc, interval_ratio=lo_q, step_time=bound)
    fast = N.forecast_end_time(forecast_time=fc, interval_ratio=hi_q, step_time=bound)
    return 1 / fast - 1 / slow


def _speculative_forecast() -> float:
    from .. import numeric as N

    t, layers, draft_layers = 20e-3, 32, 16
    a, k, c = 0.8, 3, 0.1
    step = t * float(N.speculative_step_cost(draft_len=k, draft_cost=c))
    time = N.forecast_step_time(step_time=step, overhead_fraction=0.2, fixed_time=0.5e-3,
                                layer_time=10e-6, n_layers=layers + k * draft_layers)
    return float(N.speculative_tokens_per_step(acceptance=a, draft_len=k)) / float(time)


def _mape() -> float:
    from ..forecast_fit import error_summary

    pairs = [(80.0, 72.5), (38.0, 44.0), (126.0, 101.3)]  # (forecast, measured) tokens/s
    return 100 * error_summary([(None, measured / fc) for fc, measured in pairs])["mape"]


_FORECAST_ANSWERS: dict[str, Answer] = {
    # ---- chapter 17: predicted against measured (rows of lab/data/calibration_measurements.csv)
    "ex-nb-calibration-a6000-gap": Answer(
        lambda: _unexplained_ms("xd-llama1-a6000-13b-f16"), "ms",
        "the measured time per token is one over the measured speed; the bound's is the bytes a "
        "step reads (the weights it multiplies by, at 2 bytes each) over the bandwidth; subtract",
        question="time per token beyond the bound, LLaMA 13B fp16 on an RTX A6000"),
    "ex-nb-calibration-m1-bandwidth": Answer(
        lambda: _reached_bandwidth("xd-llama3-m1-8b-q4km"), "GB/s",
        "the bytes one step reads (weights at the file's bits per weight, plus the cache of the "
        "mean context) times the steps per second measured",
        question="bandwidth reached by Llama 3 8B Q4_K_M on an M1 (7-core GPU)"),
    "ex-nb-calibration-solve-fixed": Answer(
        lambda: _fixed_cost_ms("xd-llama1-6000ada-7b-q4_0", "xd-llama1-6000ada-65b-q4_0"), "ms",
        "one equation per row, measured time = bound time x (1 + k) + tau, in seconds; "
        "subtract them to find 1 + k, then tau",
        question="fixed cost per token implied by two RTX 6000 Ada rows"),
    "ex-nb-calibration-q6k-head": Answer(
        lambda: _q6k_head_bound("xd-llama1-4080-13b-q4_0"), "tokens/s",
        "the output matrix (vocabulary x width) is read at 6.5625 bits instead of 4.5: add the "
        "difference, in bytes, to the bytes of the 4.5-bit step", rel_tol=0.001,
        question="bound of LLaMA 13B Q4_0 on an RTX 4080 with the output matrix at Q6_K"),
    "ex-nb-calibration-speculative-room": Answer(
        lambda: _speculative_room("xd-llama3-4090-8b-f16", 0.75, 4, 0.1), "x",
        "the plain bound (weights and the cache of the mean context over the bandwidth) times "
        "chapter 13's speed-up bound, over the measured speed",
        question="speculative bound over the measured speed, Llama 3 8B fp16 on an RTX 4090"),
    # ---- chapter 17b: from bound to forecast
    "ex-nb-forecast-stated-terms": Answer(
        _forecast_stated, "tokens/s",
        "t = t_bound (1 + k) + delta t_16 + tau + lambda L, with t_16 the time to read the same "
        "weights at 16 bits; the speed is one over t",
        question="forecast of Mistral 7B Q8_0 on an RTX 3090 from stated terms"),
    "ex-nb-forecast-solve-layer": Answer(
        lambda: _layer_cost_us("xd-llama1-6000ada-7b-f16", "xd-llama1-6000ada-13b-f16"), "us",
        "one equation per row, measured time = bound time x (1 + k) + lambda L, with each "
        "model's own L; two equations, two unknowns",
        question="cost per layer implied by two RTX 6000 Ada rows"),
    "ex-nb-forecast-interval-width": Answer(
        _interval_width, "tokens/s",
        "each end is the forecast speed times its ratio, but no end may be faster than the bound",
        question="width of an 80% interval, forecast 56, bound 64, ratios 0.74 and 1.22"),
    "ex-nb-forecast-speculative": Answer(
        _speculative_forecast, "tokens/s",
        "the speculative step's bound is the drafts' steps plus one target step; stretch it by "
        "the terms, with the per-layer cost counting the target's layers once and the draft's "
        "layers for every drafted token; divide the tokens a step yields by that time",
        question="forecast of a speculative step, acceptance 0.8, 3 drafts, draft cost 0.1"),
    "ex-nb-forecast-mape": Answer(
        _mape, "%",
        "the error of each row is |forecast speed / measured speed - 1|; average the three",
        question="mean absolute percentage error of three forecasts"),
}
ANSWERS.update(_FORECAST_ANSWERS)
