"""Build code of the prefill chapter (``notebooks/10-prefill.ipynb``): the critical prompt of a
model on a chip, the time to first token on 1 to 8 tensor-parallel chips, and the smallest
prefill chunk that keeps a prefill near its unchunked bound.
"""
from __future__ import annotations

from typing import Any, Iterable

from ... import numeric as N
from ...estimate import estimate, prefill_peak_for


def critical_prompt(model: Any, chip: Any, weights: str, bits_kv: Any = 16) -> tuple[float, Any]:
    """The prompt length [tokens] at which a prefill of ``model`` on ``chip`` with weights in
    ``weights`` (and a ``bits_kv`` cache) turns compute-bound, and the estimate (at a one-token
    prompt) it is read from.

    T* is the closed form the chapter prints (the positive root of a quadratic in T:
    :data:`~llm_arithmetic.formulas.serving.critical_prompt`), not a search over the plan: the
    formula is a uniform decoder's (every layer attends over the whole prompt), the chapter's
    models are. Its compute time is the estimate's, :data:`~llm_arithmetic.formulas.roofline.
    split_compute_time`: the weights' products at ``e.peak_flops``, attention's at
    ``e.attention_peak_flops`` (the cache's precision), so T* lies where the estimate's own
    prefill turns compute-bound.

    >>> from llm_arithmetic import get_hardware, get_model
    >>> t, e = critical_prompt(get_model("llama-3.3-70b"), get_hardware("h100-sxm"), "fp8")
    >>> 100 < t < 1000, e.compute_precision, e.attention_precision
    (True, 'fp8', 'fp16')
    """
    e = estimate(model, hardware=chip, weights=weights, bits_kv=bits_kv, prompt=1)
    t = N.critical_prompt(
        weight_bytes=float(model.step_weight_bytes(e.bits_weight, 1)),
        kv_cache_bytes_per_token=float(model.kv_cache_bytes_per_token(e.bits_kv)),
        matmul_params=model.matmul_params, head_params=model.head_params,
        n_layers=model.n_layers, n_heads=model.n_heads, d_head=model.d_head,
        bandwidth=e.bandwidth, peak_flops=e.peak_flops, attn_peak_flops=e.attention_peak_flops)
    return t, e


def ttft_by_chips(model: Any, chip: Any, weights: str, prompt: int, generate: int,
                  degrees: Iterable[int] = (1, 2, 4, 8)) -> dict[int, dict[str, float]]:
    """Time to first token of a ``prompt``-token prompt on n tensor-parallel chips, for each n
    of ``degrees`` that splits the model's attention heads evenly [s]: the bound (all-reduces overlapped), the serialized sum, its arithmetic
    (with an ideal link) and all-reduce parts, and the time per output token at batch 1.

    >>> from llm_arithmetic import get_hardware, get_model
    >>> t = ttft_by_chips(get_model("llama-3.1-8b"), get_hardware("h100-sxm"), "fp16", 1024, 16)
    >>> t[8]["ttft"] < t[1]["ttft"], t[8]["ttft"] <= t[8]["serialized"]
    (True, True)
    """
    out = {}
    for n in (d for d in degrees if model.n_heads % d == 0):
        e = estimate(model, hardware=chip, weights=weights, tp=n, prompt=prompt,
                     generate=generate)
        work = estimate(model, hardware=chip, weights=weights, tp=n, prompt=prompt,
                        link_bandwidth=1e15, link_latency=0).ttft_seconds
        out[n] = dict(ttft=e.ttft_seconds, comm=e.ttft_serialized_seconds - work,
                      tpot=e.tpot_seconds, serialized=e.ttft_serialized_seconds, work=work)
    return out


def chunked_prefill_args(model: Any, chip: Any, weights: str, prompt: int) -> dict[str, float]:
    """The arguments of ``chunked_prefill_time`` but the chunk, for a ``prompt``-token prefill
    of ``model`` on ``chip`` with weights in ``weights``: its FLOPs at the rate the estimate
    takes them (the weights' at their format's, attention's at the 16-bit cache's)."""
    e = estimate(model, hardware=chip, weights=weights)
    return dict(weight_bytes=float(model.step_weight_bytes(e.bits_weight, prompt)),
                head_bytes=float(N.weight_bytes(n_params=model.head_params,
                                                bits_weight=e.bits_weight)),
                kv_cache_bytes_per_token=float(model.kv_cache_bytes_per_token()),
                prefill_flops=float(model.prefill_flops(prompt)), prompt=prompt,
                bandwidth=chip.bandwidth,
                peak_flops=prefill_peak_for(model, chip, weights, prompt))


def smallest_chunk(args: dict[str, float], chunks: Iterable[int], tolerance: float) -> int:
    """The smallest of ``chunks`` whose chunked prefill (``args``: :func:`chunked_prefill_args`)
    stays within ``tolerance`` (a fraction) of the unchunked bound; the whole prompt if none.

    >>> from llm_arithmetic import get_hardware, get_model
    >>> a = chunked_prefill_args(get_model("llama-3.3-70b"), get_hardware("h100-sxm"), "fp8", 8192)
    >>> c = smallest_chunk(a, [2 ** i for i in range(4, 14)], 0.05)
    >>> c < 8192, 2 * c > critical_prompt(get_model("llama-3.3-70b"), get_hardware("h100-sxm"),
    ...                                   "fp8")[0]
    (True, True)
    """
    whole = N.chunked_prefill_time(prefill_chunk=args["prompt"], **args)
    ok = [c for c in chunks if N.chunked_prefill_time(prefill_chunk=c, **args)
          <= whole * (1 + tolerance)]
    return min(ok) if ok else int(args["prompt"])


def image_prompts(models: Iterable[Any], chip: Any, weights: str,
                  image_size: tuple[int, int]) -> list[dict[str, Any]]:
    """For each of ``models``, a prompt that is one ``image_size`` (width, height) [px] image on
    one ``chip`` with weights in ``weights``: the prompt tokens the image adds (separators
    included), the patches its tower runs, the tower's FLOPs, the tower's time and the language
    model's prefill of those tokens alone [s], and the time to first token (the two in turn).

    >>> from llm_arithmetic import get_hardware, get_model
    >>> (r,) = image_prompts([get_model("llava-1.5-7b-hf")], get_hardware("h100-sxm"), "bf16",
    ...                      (1000, 700))
    >>> r["tokens"], r["patches"], r["tower"] < r["prefill"]
    (576, 577, True)
    """
    out = []
    for m in models:
        e = estimate(m, hardware=chip, weights=weights, images=1, image_size=image_size)
        text = estimate(m, hardware=chip, weights=weights, prompt=e.prompt)
        out.append(dict(model=m, tokens=e.prompt, patches=e.vision_patches_per_image,
                        flops=e.vision_prefill_flops, tower=e.vision_prefill_seconds,
                        prefill=text.ttft_seconds, ttft=e.ttft_seconds))
    return out
