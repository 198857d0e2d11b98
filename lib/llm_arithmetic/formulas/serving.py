r"""Serving: prefill and the first token, a request's time, the latency-throughput frontier,
speculative decoding, cache management, and what a token costs.

A request is a prefill of T prompt tokens, then G decode steps. Every quantity here is a bound
(a least time, a most tokens per second) built from the roofline of
:mod:`~llm_arithmetic.formulas.roofline` and, over several chips, the parallel step of
:mod:`~llm_arithmetic.formulas.parallel`.

* Prefill: :data:`time_to_first_token` (a prompt alone on the chips that serve it),
  :data:`critical_prompt` (the prompt length at which a prefill turns compute-bound, solved by
  sympy), :data:`chunked_prefill_bytes` and :data:`chunked_prefill_time` (a prompt processed in
  chunks of C tokens). The FLOPs, with their quadratic attention term, are
  :data:`~llm_arithmetic.formulas.flops.prefill_flops`.
* A request: :data:`time_per_output_token` (the decode step bound at a batch, on the chips),
  :data:`request_time` (first token, then G more), :data:`mean_decode_context` (the context of
  its average decode step).
* The frontier: :data:`tokens_per_user` and :data:`tokens_per_chip`, one point per batch size.
* Speculative decoding: :data:`speculative_tokens_per_step`, :data:`speculative_step_cost`,
  :data:`speculative_speedup`.
* The cache: :data:`paged_waste` (paged KV), :data:`prefix_bytes_saved` and
  :data:`prefix_flops_saved` (a shared prefix), :data:`kv_transfer_bytes` and
  :data:`kv_transfer_time` (prefill and decode on different machines).
* Money and energy: :data:`cost_per_million_tokens`, :data:`energy_per_token`.
"""
from __future__ import annotations

import sympy as sp

from ..core.registry import formula
from . import flops as _flops
from .parallel import tp_step_time
from .roofline import batched_step_bytes, roofline_time, split_compute_time

__all__ = [
    "time_to_first_token", "critical_prompt", "chunked_prefill_bytes", "chunked_prefill_time",
    "time_per_output_token", "request_time", "mean_decode_context", "tokens_per_user",
    "tokens_per_chip", "speculative_tokens_per_step", "speculative_step_cost",
    "speculative_speedup",
    "paged_waste", "prefix_bytes_saved", "prefix_flops_saved", "kv_transfer_bytes",
    "kv_transfer_time", "cost_per_million_tokens", "energy_per_token", "forecast_step_time",
    "forecast_end_time",
]


# ---- prefill ---------------------------------------------------------------------------------
@formula("ttft")
def time_to_first_token(*, weight_bytes, kv_cache_bytes_per_token, prefill_flops, prompt, n_chips=1,
                        bandwidth, peak_flops, comm_time=0):
    """Lower bound on the time to first token of a prompt served alone: the prefill's roofline
    on N chips sharing its work evenly (the weights read once, the prompt's cache written,
    against its FLOPs), then its communication (a tensor-parallel prefill all-reduces T
    activation vectors twice a layer). Work that every chip repeats (copies of an indexer's
    heads) is counted in F_pre once per copy, so that F_pre / N is one chip's.

    The first token comes out of the prefill: the last prompt position's logits give it.

    Examples
    --------
    Llama 2 7B at fp16 (6,738,415,616 weights, of them the 32,000 x 4096 output head; 512 kB of
    cache a token), a 350-token prompt on an A10 (600 GB/s, 125 TFLOP/s fp16). By hand:
    2 x (6,738,415,616 - 131,072,000) x 350 + 2 x 131,072,000 = 4.6254 TFLOP for the weights
    (the head runs for the last position only), 32 layers x 4 x 32 heads x 128 x (350 x 351 / 2)
    = 0.0322 TFLOP for attention; 4.6576 TFLOP / 125 TFLOP/s = 37.3 ms, more than the 22.8 ms of
    its 13.66 GB: compute-bound.

    >>> t = time_to_first_token(weight_bytes=13_476_831_232, kv_cache_bytes_per_token=524288,
    ...                         prefill_flops=4_657_607_065_600, prompt=350,
    ...                         bandwidth=600e9, peak_flops=125e12)
    >>> round(t * 1e3, 1)
    37.3
    """
    step_bytes = batched_step_bytes(weight_bytes=weight_bytes,
                                    seq_bytes=kv_cache_bytes_per_token * prompt, batch=1)
    return roofline_time(step_bytes=step_bytes / n_chips, step_flops=prefill_flops / n_chips,
                         bandwidth=bandwidth, peak_flops=peak_flops) + comm_time


@formula("critical_prompt", exact=False)
def critical_prompt(*, weight_bytes, kv_cache_bytes_per_token, matmul_params, head_params, n_layers,
                    n_heads, d_head, bandwidth, peak_flops, attn_peak_flops):
    """Prompt length at which a prefill of a uniform decoder turns from memory-bound to
    compute-bound: the T at which the memory time of its bytes, W + kappa T, equals the compute
    time of its FLOPs (:data:`~llm_arithmetic.formulas.flops.prefill_flops`, quadratic in T
    through attention), solved by sympy; the positive root of the quadratic. The compute time is
    :data:`~llm_arithmetic.formulas.roofline.split_compute_time`, as every roofline of the
    estimate takes it: the weights' products at their rate R, attention's (the quadratic term)
    at the cache's R_attn. It stays a quadratic in T, so T* stays a closed form; with one rate
    for both (R_attn = R) it is the root of W + kappa T = F_pre R / beta.

    Shorter prompts cost about as much as the weights take to read; longer ones cost in
    proportion to their FLOPs. Without the attention and cache terms, T* is W R / (2 P beta):
    the chip's ops:byte ratio times the bytes per weight over 2.

    Examples
    --------
    Llama 2 7B at fp16 on an A100 (1935 GB/s, 312 TFLOP/s for both parts). Without the
    attention, cache and head terms T* is the ops:byte ratio, 312e12 / 1935e9 = 161.2. With them,
    a T^2 + b T = c with a = 2 L H d_head = 262,144, b = 2 (P_mm - P_head) + a - kappa R / beta
    = 13,130,413,016 (the 32,000 x 4096 head runs once, not per token) and
    c = W R / beta - 2 P_head = 2.1727e12: T* = 164.9. With the weights' products twice as fast
    (624e12, as 8-bit integer weights would run on that chip; their bytes kept at 16 bits to
    isolate the rates) and attention still at 312e12, the equation times R has a = 2 x 262,144 =
    524,288 (attention takes twice the weights' time per FLOP), b = 2 (P_mm - P_head) + a -
    kappa R / beta = 13,046,138,801 and c = W R / beta - 2 P_head = 4.3458e12: T* = 328.8, a little
    under the 330.9 of a single 624e12 rate.

    >>> kw = dict(weight_bytes=13_476_831_232, kv_cache_bytes_per_token=524288,
    ...           matmul_params=6_738_415_616, head_params=32000 * 4096, n_layers=32,
    ...           n_heads=32, d_head=128, bandwidth=1935e9)
    >>> round(critical_prompt(peak_flops=312e12, attn_peak_flops=312e12, **kw), 1)
    164.9
    >>> round(critical_prompt(peak_flops=624e12, attn_peak_flops=312e12, **kw), 1)
    328.8
    """
    t = sp.Dummy("T", positive=True)
    memory = batched_step_bytes(weight_bytes=weight_bytes, seq_bytes=kv_cache_bytes_per_token * t,
                                batch=1) / bandwidth
    attention = n_layers * _flops.attention_prefill_flops(
        n_heads=n_heads, d_head=d_head, causal_pairs=_flops.causal_pairs(prompt=t))
    compute = split_compute_time(
        step_flops=_flops.prefill_flops(matmul_params=matmul_params, head_params=head_params,
                                        n_layers=n_layers, n_heads=n_heads, d_head=d_head,
                                        prompt=t),
        step_attn_flops=attention, peak_flops=peak_flops, attn_peak_flops=attn_peak_flops)
    roots = sp.solve(sp.Eq(memory, compute), t)
    # The quadratic's roots multiply to -c/a (a: attention's T^2 coefficient, c: the weights'
    # memory time in FLOPs at the weights' rate, W R / beta, less the head's one pass, 2 P_head),
    # negative wherever R / beta > 2 P_head / W: then exactly one root is positive. That holds on
    # every real chip (ops:byte ratios of tens to hundreds of FLOPs a byte; 2 P_head / W is about
    # 1 at most, for 4-bit weights and a head a third of them), not for any positive input (at
    # an ops:byte ratio of 1 a 4-bit Gemma 3 1B gets a negative root). Attention's rate only
    # scales a. The positive branch is the same everywhere it exists, found at one such point
    # (ones, the head empty).
    ones = {s: 1 for s in memory.free_symbols | compute.free_symbols if s != t}
    ones[head_params] = 0
    (root,) = [r for r in roots if r.xreplace(ones).evalf() > 0]
    return root


@formula("step_bytes")
def chunked_prefill_bytes(*, weight_bytes, head_bytes, kv_cache_bytes_per_token, prompt,
                          prefill_chunk):
    """Bytes a prefill of T tokens moves when processed in chunks of C tokens (chunked
    prefill): each of the ceil(T / C) chunks reads the weights again, but the output head's
    W_head bytes only in the last chunk (the only one whose logits are computed), and the cache
    of the chunks before it, and writes its own. Every chunk but the last is full, so chunk i
    starts after (i - 1) C cached tokens.

    Chunks bound the memory and the latency a prefill takes from the decode steps it shares
    the chips with; they cost weight reads (and cache reads), not FLOPs.

    Examples
    --------
    Llama 3 8B at fp16 (16,060,522,496 bytes of weights a step reads, 1,050,673,152 of them the
    128,256 x 4096 head; 128 kB of cache a token), 8192 tokens in chunks of 2048: 4 reads of the
    blocks and 1 of the head, 8192 tokens written, 2048 x (0 + 1 + 2 + 3) = 12,288 tokens read:
    4 x 15,009,849,344 + 1,050,673,152 + 20,480 x 131,072 B.

    >>> chunked_prefill_bytes(weight_bytes=16_060_522_496, head_bytes=1_050_673_152,
    ...                       kv_cache_bytes_per_token=131072, prompt=8192, prefill_chunk=2048)
    63774425088
    >>> chunked_prefill_bytes(weight_bytes=10**9, head_bytes=10**8, kv_cache_bytes_per_token=1000,
    ...                       prompt=100, prefill_chunk=4096)  # one chunk: the plain prefill
    1000100000
    """
    chunks = sp.ceiling(prompt / prefill_chunk)
    return (chunks * (weight_bytes - head_bytes) + head_bytes + kv_cache_bytes_per_token * prompt
            + kv_cache_bytes_per_token * prefill_chunk * chunks * (chunks - 1) / 2)


@formula("prefill_time")
def chunked_prefill_time(*, weight_bytes, head_bytes, kv_cache_bytes_per_token, prefill_flops,
                         prompt, prefill_chunk, n_chips=1, bandwidth, peak_flops):
    """Lower bound on the time of a chunked prefill on N chips: the roofline of the chunks'
    total bytes (:data:`chunked_prefill_bytes`) and the prompt's FLOPs (unchanged by chunking:
    the output head runs once, on the last chunk's last position).

    Each chunk takes at least its own roofline time, and a sum of maxima is at least the
    maximum of the sums, so this is a lower bound on the chunks one after the other.

    Examples
    --------
    Llama 3 8B at fp16, 8192 tokens in chunks of 2048 on an H100 (3.35 TB/s, 989.4 TFLOP/s
    fp16). The FLOPs: 2 x (7,504,658,432 - 525,336,576) x 8192 for the blocks' weights, 2 x
    525,336,576 for the 128,256 x 4096 head (once) and 32 x 4 x 32 x 128 x (8192 x 8193 / 2)
    for attention, 1.3194e14 in all; they take 133.4 ms, the 63.8 GB 19.0 ms.

    >>> t = chunked_prefill_time(weight_bytes=16_060_522_496, head_bytes=1_050_673_152,
    ...                          kv_cache_bytes_per_token=131072,
    ...                          prefill_flops=131_944_593_489_920, prompt=8192,
    ...                          prefill_chunk=2048, bandwidth=3.35e12, peak_flops=989.4e12)
    >>> round(t * 1e3, 1)
    133.4
    """
    step_bytes = chunked_prefill_bytes(weight_bytes=weight_bytes, head_bytes=head_bytes,
                                       kv_cache_bytes_per_token=kv_cache_bytes_per_token,
                                       prompt=prompt, prefill_chunk=prefill_chunk)
    return roofline_time(step_bytes=step_bytes / n_chips, step_flops=prefill_flops / n_chips,
                         bandwidth=bandwidth, peak_flops=peak_flops)


# ---- a request ----------------------------------------------------------------------------
@formula("tpot")
def time_per_output_token(*, step_bytes, step_flops, n_chips=1, bandwidth, peak_flops,
                          comm_time=0):
    """Lower bound on the time per output token of a sequence decoded in a batch: one decode
    step of the whole batch (its bytes and FLOPs, B sequences' worth) on the N chips of the
    replica, with the step's communication (:data:`~llm_arithmetic.formulas.parallel.
    tp_step_time`). Every sequence of the batch gets one token per step.

    Examples
    --------
    One chip, no communication: the roofline of the step. Mistral 7B at fp16 on an RTX 4090
    (14.22 GB read a token, 1008 GB/s): Kapoulkine's 14.1 ms.

    >>> t = time_per_output_token(step_bytes=14_221_328_384, step_flops=14_220_787_712,
    ...                           bandwidth=1008e9, peak_flops=165.2e12)
    >>> round(t * 1e3, 1)
    14.1
    """
    return tp_step_time(step_bytes=step_bytes, step_flops=step_flops, tp=n_chips,
                        bandwidth=bandwidth, peak_flops=peak_flops, comm_time=comm_time)


@formula("request_time")
def request_time(*, ttft, tpot, generated):
    """End-to-end time of a request: its first token, then G more at the time per output
    token.

    Examples
    --------
    0.2 s to the first token, 256 more tokens at 20 ms: 5.32 s.

    >>> request_time(ttft=0.2, tpot=0.02, generated=256)
    5.32
    """
    return ttft + generated * tpot


@formula("context")
def mean_decode_context(*, prompt, generated):
    """Tokens in a sequence's cache at the average decode step of a request: after a prompt of
    T tokens and its first token, the G decode steps see T + 1, T + 2, ..., T + G cached
    tokens, whose mean is T + (G + 1) / 2. Where a decode step's bytes and FLOPs grow linearly
    with its context (no windows), the step at this context costs the request's average step.

    Examples
    --------
    A 2,048-token prompt and 256 tokens after the first: the average step sees 2,176.5 tokens.

    >>> mean_decode_context(prompt=2048, generated=256)
    2176.5
    """
    return prompt + (generated + 1) / sp.Integer(2)


# ---- the latency-throughput frontier --------------------------------------------------------
@formula("tokens_per_user")
def tokens_per_user(*, tpot):
    """Tokens per second one stream sees while it decodes: one per step.

    Examples
    --------
    >>> tokens_per_user(tpot=0.02)
    50.0
    """
    return 1 / tpot


@formula("tokens_per_chip")
def tokens_per_chip(*, batch, tpot, n_chips):
    """Tokens per second each chip of a replica produces: B tokens per step, shared by the N
    chips. With :data:`tokens_per_user`, one point of the latency-throughput frontier per batch
    size.

    Examples
    --------
    A batch of 64 at 5 ms a step on 8 chips: 12,800 tokens/s for the replica, 1,600 per chip.

    >>> tokens_per_chip(batch=64, tpot=0.005, n_chips=8)
    1600.0
    """
    return batch / (tpot * n_chips)


# ---- speculative decoding -----------------------------------------------------------------------
@formula("spec_tokens", exact=False)
def speculative_tokens_per_step(*, acceptance, draft_len):
    """Tokens a speculative step yields on average when a draft proposes k tokens and the
    target accepts each with probability a, independently (Leviathan et al. 2023): the accepted
    prefix of the draft, plus the target's own token after it, 1 + a + ... + a^k.

    Examples
    --------
    a = 0.8 and k = 4: 1 + 0.8 + 0.64 + 0.512 + 0.4096 = 3.3616.

    >>> round(speculative_tokens_per_step(acceptance=0.8, draft_len=4), 4)
    3.3616
    """
    return (1 - acceptance ** (draft_len + 1)) / (1 - acceptance)


@formula("spec_step_cost")
def speculative_step_cost(*, draft_len, draft_cost):
    """Time of one speculative step relative to one plain target step: gamma steps of the
    draft, each c_d of a target step, and one target step that verifies the gamma drafted tokens
    at once.

    Verifying gamma + 1 tokens costs one step only while the target's step is memory-bound (its
    weights read once for all of them); a compute-bound target pays for every token.

    Examples
    --------
    >>> speculative_step_cost(draft_len=4, draft_cost=0.05)
    1.2
    """
    return draft_len * draft_cost + 1


@formula("spec_speedup", exact=False)
def speculative_speedup(*, acceptance, draft_len, draft_cost):
    """Speed-up of speculative decoding over plain decoding: tokens per speculative step over
    its relative cost (Leviathan et al. 2023, Theorem 3.8: (1 - a^(k+1)) / ((1 - a)(k c + 1))).
    An upper bound: it assumes the verification costs one target step.

    Examples
    --------
    a = 0.8, k = 4, a draft at 5 % of the target: 3.3616 / 1.2 = 2.80.

    >>> round(speculative_speedup(acceptance=0.8, draft_len=4, draft_cost=0.05), 2)
    2.8
    """
    return (speculative_tokens_per_step(acceptance=acceptance, draft_len=draft_len)
            / speculative_step_cost(draft_len=draft_len, draft_cost=draft_cost))


# ---- the cache ---------------------------------------------------------------------------------
@formula("paged_waste")
def paged_waste(*, kv_cache_bytes_per_token, context, page_tokens, batch=1):
    """Cache bytes lost to paging: a paged cache (vLLM's PagedAttention) allocates blocks of
    n_page tokens, so each sequence's last block is partly empty, by up to n_page - 1 tokens.

    Examples
    --------
    Llama 3 8B at fp16 (131,072 B a token), 1000 tokens in blocks of 16: 63 blocks hold 1008,
    8 tokens wasted, 1 MiB.

    >>> paged_waste(kv_cache_bytes_per_token=131072, context=1000, page_tokens=16)
    1048576
    """
    return batch * kv_cache_bytes_per_token * (page_tokens * sp.ceiling(context / page_tokens) - context)


@formula("bytes_saved")
def prefix_bytes_saved(*, kv_cache_bytes_per_token, prefix, batch):
    """Cache bytes saved when B requests share a prefix of T_p tokens (a system prompt) and the
    runtime keeps its cache once instead of B times (prefix caching).

    Examples
    --------
    8 requests sharing a 1000-token prompt on Llama 3 8B at fp16: 7 x 1000 x 131,072 B.

    >>> prefix_bytes_saved(kv_cache_bytes_per_token=131072, prefix=1000, batch=8)
    917504000
    """
    return (batch - 1) * kv_cache_bytes_per_token * prefix


@formula("flops_saved")
def prefix_flops_saved(*, matmul_params, head_params, n_layers, n_heads, d_head, prefix, batch):
    """Prefill FLOPs saved when B requests share a prefix of T_p tokens and it is prefilled
    once: B - 1 prefills of the prefix's blocks (:data:`~llm_arithmetic.formulas.flops.
    prefill_flops` without the output head, which every request still runs once, at the end of
    its own suffix).

    Examples
    --------
    Llama 3 8B (7,504,658,432 matmul weights, of them the 128,256 x 4096 head; 32 layers of 32
    heads of 128), 8 requests sharing 1000 tokens: 7 x (2 x (7,504,658,432 - 525,336,576) x
    1000 + 32 x 4 x 32 x 128 x 500,500) FLOPs.

    >>> prefix_flops_saved(matmul_params=7_504_658_432, head_params=128256 * 4096, n_layers=32,
    ...                    n_heads=32, d_head=128, prefix=1000, batch=8)
    99547348992000
    """
    return (batch - 1) * _flops.prefill_flops(matmul_params=matmul_params - head_params,
                                              head_params=0, n_layers=n_layers,
                                              n_heads=n_heads, d_head=d_head, prompt=prefix)


@formula("transfer_bytes")
def kv_transfer_bytes(*, kv_cache_bytes_per_token, prompt):
    """KV-cache bytes a disaggregated server moves per request, from the instance that ran the
    prefill to the one that decodes: the prompt's cache.

    Examples
    --------
    Llama 3 70B at fp16 (327,680 B a token), a 2048-token prompt: 671 MB.

    >>> kv_transfer_bytes(kv_cache_bytes_per_token=327680, prompt=2048)
    671088640
    """
    return kv_cache_bytes_per_token * prompt


@formula("transfer_time")
def kv_transfer_time(*, transfer_bytes, link_bandwidth, link_latency=0):
    """Time to move a request's cache from the prefill to the decode instance over a link
    (it adds to the time to first token unless it overlaps the prefill, layer by layer).

    Examples
    --------
    671 MB over 400 Gb/s InfiniBand (50 GB/s): 13.4 ms.

    >>> round(kv_transfer_time(transfer_bytes=671088640, link_bandwidth=50e9) * 1e3, 1)
    13.4
    """
    return transfer_bytes / link_bandwidth + link_latency


# ---- money and energy --------------------------------------------------------------------------
@formula("cost_per_mtok")
def cost_per_million_tokens(*, price_per_hour, n_chips, tokens_per_second):
    """Cost of a million tokens on a replica of N chips rented at c_h per chip-hour that
    produces tau tokens per second: the replica's price per second over its tokens per second.

    Examples
    --------
    8 chips at $2.50 an hour cost $20 an hour; at 5000 tokens/s they make 18 million tokens an
    hour: $1.11 per million.

    >>> round(cost_per_million_tokens(price_per_hour=2.5, n_chips=8, tokens_per_second=5000), 3)
    1.111
    """
    return price_per_hour * n_chips / 3600 / tokens_per_second * 10**6


@formula("energy_per_token")
def energy_per_token(*, power, n_chips, tokens_per_second):
    """Energy per token [J] of a replica of N chips drawing P_W watts each that produces tau
    tokens per second. Board power only: the host, the network and cooling come on top.

    Examples
    --------
    8 H100s at 700 W making 5000 tokens/s: 5600 J/s / 5000 tokens/s = 1.12 J a token.

    >>> energy_per_token(power=700, n_chips=8, tokens_per_second=5000)
    1.12
    """
    return power * n_chips / tokens_per_second


# ---- the forecast under the bound ----------------------------------------------------------------
@formula("forecast_time")
def forecast_step_time(*, step_time, overhead_fraction, fixed_time, layer_time, n_layers,
                       dequant_fraction=0, dequant_time=0):
    """Forecast time of a step on a real runtime, over its bound t: the runtime spends k more
    per unit of bound time (kernels that do not reach the peak, attention), delta per weight it
    dequantizes (in units of the time to read that weight at 16 bits, t_16: zero for 16-bit
    weights; 0 by default, the form before the term existed), a fixed cost per step (sampling,
    host work) and a cost per layer (kernel launches, small ops). The terms are fitted to published measurements, non-negative, so the forecast
    is never faster than the bound (:mod:`llm_arithmetic.forecast`).

    Examples
    --------
    A 10 ms bound, k = 0.2, delta = 0.05 over a 16-bit read time of 30 ms, 0.5 ms fixed and
    20 us for each of 32 layers: 10 x 1.2 + 1.5 + 0.5 + 0.64 = 14.64 ms.

    >>> round(forecast_step_time(step_time=0.010, overhead_fraction=0.2, dequant_fraction=0.05,
    ...                          dequant_time=0.030, fixed_time=0.0005, layer_time=20e-6,
    ...                          n_layers=32) * 1e3, 2)
    14.64
    """
    return (step_time * (1 + overhead_fraction) + dequant_fraction * dequant_time + fixed_time
            + layer_time * n_layers)


@formula("forecast_end_time")
def forecast_end_time(*, forecast_time, interval_ratio, step_time):
    """One end of the forecast's 80% interval of step time: the forecast time over a ratio q of
    measured to forecast speed at that end of the interval (its 10th or 90th percentile over
    rows a fit without them predicted), never shorter than the bound t, so that no end of the
    interval is faster than the bound (:mod:`llm_arithmetic.forecast`).

    Examples
    --------
    A forecast of 12 ms over a 10 ms bound, with an interval of speed ratios from 0.8 to 1.25:
    the slow end is 12 / 0.8 = 15 ms; the fast end, 12 / 1.25 = 9.6 ms, is held at the bound.

    >>> [round(forecast_end_time(forecast_time=0.012, interval_ratio=q, step_time=0.010) * 1e3, 2)
    ...  for q in (0.8, 1.25)]
    [15.0, 10.0]
    """
    return sp.Max(step_time, forecast_time / interval_ratio)
