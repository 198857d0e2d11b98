"""estimate(): model x chip x precision, checked against the articles' own derivations."""
from __future__ import annotations

import pytest

from llm_arithmetic import InputError, estimate, get_hardware, get_model, sweep


def test_zeux_mistral_on_rtx_4090():
    # zeux: ~7111M weights in matrix products; fp16 -> ~14.2 GB -> ~14.1 ms at 1008 GB/s;
    # 8-bit -> ~7.1 GB -> ~7.0 ms (rounded figures in the article)
    m, h = get_model("mistral-7b"), get_hardware("rtx-4090")
    fp16 = estimate(m, hardware=h, weights="fp16", context=1)
    int8 = estimate(m, hardware=h, weights="int8", context=1)
    assert fp16.params_matmul == pytest.approx(7111e6, abs=1e6)
    assert fp16.decode_bytes_per_token == pytest.approx(14.2e9, abs=0.05e9)
    assert fp16.decode_seconds_per_token == pytest.approx(14.1e-3, abs=0.05e-3)
    assert int8.decode_seconds_per_token == pytest.approx(7.0e-3, abs=0.06e-3)
    assert fp16.bound == int8.bound == "memory"


def test_zeux_kv_cache_per_token():
    # zeux: Mistral 32*128*8*2 = 65K elements/token, ~130 KB at fp16; Command-R 655K, ~1.3 MB
    assert get_model("mistral-7b").kv_cache_bytes_per_token() == 2 * 32 * 128 * 8 * 2
    assert get_model("command-r").kv_cache_bytes_per_token() == 2 * 40 * 128 * 64 * 2


def test_baseten_a10_batch_of_four():
    # Baseten: 24 GB A10, Llama 2 7B fp16 (~14 GB), 4096-token sequences: a batch of 4
    e = estimate(get_model("llama-2-7b"), bandwidth=600e9, peak_flops=125e12, capacity=24 * 10**9,
                 context=4096)
    assert e.max_batch == 4
    assert e.ops_per_byte == pytest.approx(208.3, abs=0.05)


def test_batching_amortizes_weights_not_cache():
    m, h = get_model("llama-2-7b"), get_hardware("a100-80gb-sxm")
    one = estimate(m, hardware=h, context=1, batch=1)
    many = estimate(m, hardware=h, context=1, batch=64)
    assert many.throughput_tokens_per_second > 40 * one.throughput_tokens_per_second
    long1 = estimate(m, hardware=h, context=32768, batch=1)
    long8 = estimate(m, hardware=h, context=32768, batch=8)
    # each added sequence brings its own cache: bytes per step grow by exactly that cache
    assert long8.decode_step_bytes - long1.decode_step_bytes == 7 * long1.kv_cache_bytes


def test_fit_and_capacity():
    e = estimate(get_model("llama-65b"), hardware=get_hardware("rtx-4090"), weights="int4")
    assert e.fits is False and e.max_batch == 0
    e = estimate(get_model("llama-7b"), hardware=get_hardware("rtx-4090"), weights="int4")
    assert e.fits is True


def test_bad_estimate_inputs():
    m = get_model("llama-2-7b")
    with pytest.raises(ValueError, match="context must be a positive integer"):
        estimate(m, context=0)
    with pytest.raises(ValueError, match="bandwidth must be a positive"):
        estimate(m, bandwidth=-1.0)
    with pytest.raises(ValueError, match="either weights"):
        estimate(m, weights="fp16", bits_weight=16)


def test_sliding_window_caps_the_cache_read():
    # zeux: Mistral 7B's windowed attention "limits the bandwidth consumed to a window of 4096
    # tokens": decoding at 32K reads the same cache as at 4096, and a window-aware cache (vLLM,
    # llama.cpp's SWA cache) stores no more; a runtime that keeps every token stores 8 times as
    # much.
    m = get_model("mistral-7b")
    at4k, at32k = estimate(m, context=4096), estimate(m, context=32768)
    assert at32k.decode_bytes_per_token == at4k.decode_bytes_per_token
    assert at32k.kv_cache_bytes == at4k.kv_cache_bytes == 32 * 8 * 128 * 2 * 2 * 4096
    assert at32k.kv_cache_bytes_full_storage == 8 * at4k.kv_cache_bytes_full_storage
    assert at32k.attended_context == 4096


def test_compute_precision_names_the_peak_used():
    """A chip without fp8 units computes fp8 weights at its fp16 peak, and says so; a CPU with
    an fp32 figure only reports fp32 (NVIDIA A100 datasheet: no fp8; Pi 4: fp32 only)."""
    from llm_arithmetic import get_hardware
    a100 = get_hardware("a100-80gb-sxm")
    e = estimate(get_model("llama-2-7b"), hardware=a100, weights="fp8")
    assert (e.compute_precision, e.peak_flops) == ("fp16", 312e12)
    pi = get_hardware("raspberry-pi-4")
    e = estimate(get_model("llama-2-7b"), hardware=pi, weights="fp16")
    assert (e.compute_precision, e.peak_flops) == ("fp32", pi.peaks["fp32"].rate)


@pytest.mark.parametrize("chip, weights, precision, tera", [
    # GeForce RTX 4090, Ada whitepaper appendix (Table 2): Peak INT8 Tensor TOPS 660.6 dense
    # (1321.2 with sparsity). llama.cpp's MMQ kernels multiply Q4_0 and the k-quants in int8 on
    # Turing and later (ggml_cuda_should_use_mmq), so the bound takes that rate.
    ("rtx-4090", "q4_0", "int8", 660.6),
    ("rtx-4090", "q4_k_m", "int8", 660.6),   # a file type reads as its default type (q4_k)
    # A100 80GB SXM datasheet: INT8 Tensor Core 624 TOPS dense (1,248 with sparsity)
    ("a100-80gb-sxm", "q8_0", "int8", 624),
    # Apple M2: Metal's mul_mm dequantizes to half; the M2's 3.6 TFLOPS fp16 (= fp32, the
    # 10-core GPU's ALU rate: 10 cores x 128 ALUs x 2 FLOP x 1.398 GHz = 3.579 TFLOP/s)
    ("m2", "q4_0", "fp16", 3.579),
    # Google TPU v5e: 197 TFLOPS bf16, 393 TOPS int8 (Cloud TPU v5e page); no llama.cpp backend,
    # so a block format never takes the int8 rate there: the 16-bit one, which is bf16
    ("tpu-v5e", "q4_0", "bf16", 197),
])
def test_a_block_format_takes_the_rate_of_its_kernels(chip, weights, precision, tera):
    from llm_arithmetic import get_hardware
    h = get_hardware(chip)
    e = estimate(get_model("llama-2-7b"), hardware=h, weights=weights)
    assert e.compute_precision == precision
    assert e.peak_flops == pytest.approx(tera * 1e12, rel=1e-3)


def test_a_chip_listing_none_of_the_chain_is_labelled_16_bit(capsys):
    """Vera Rubin's entry lists one rate, fp4 (hardware.toml); a q4_0 weight multiplies at int8
    only where the chip lists an int8 rate, else at fp16 (formats.toml, compute_vendors: "a
    chip of those vendors whose entry lists no int8 rate ... also falls back to fp16"). Without
    a peak nothing is computed, but the label follows that rule, and a --tflops given there is
    named a 16-bit peak; a chip that lists int8 (H100) keeps it, given peak or not."""
    from llm_arithmetic import get_hardware
    from llm_arithmetic.cli import main

    assert set(get_hardware("vera-rubin").peaks) == {"fp4"}
    e = estimate("llama-3-8b", hardware="vera-rubin", weights="q4_0")
    assert (e.compute_precision, e.peak_flops) == ("fp16", None)
    assert estimate("llama-3-8b", hardware="vera-rubin", weights="q4_0",
                    peak_flops=1e14).compute_precision == "fp16"
    for given in (None, 1e14):
        assert estimate("llama-3-8b", hardware="h100-sxm", weights="q4_0",
                        peak_flops=given).compute_precision == "int8"
    assert main(["describe", "llama-3-8b", "--hardware", "vera-rubin", "--weights", "q4_0",
                 "--tflops", "100"]) == 0
    assert "dense peak (fp16)" in capsys.readouterr().out


@pytest.mark.parametrize("chip, weights, precision, tflops", [
    # GeForce RTX 4090, Ada whitepaper appendix: dense FP16 tensor 165.2 TFLOPS with FP32
    # accumulate, 330.3 with FP16 accumulate; BF16 165.2 (FP32 accumulate only)
    ("rtx-4090", "fp16", "fp16-acc16", 330.3),
    ("rtx-4090", "bf16", "bf16", 165.2),
    # H100 SXM datasheet: FP16 tensor 1,979 TFLOPS with sparsity, dense one half (either
    # accumulation: no separate rate)
    ("h100-sxm", "fp16", "fp16", 989.4),
])
def test_a_16_bit_bound_takes_the_fastest_rate_for_its_inputs(chip, weights, precision, tflops):
    """A bound holds for every runtime: fp16 inputs on a GeForce card take the fp16-accumulate
    rate, which llama.cpp's cuBLAS path reaches (CUBLAS_COMPUTE_16F); bf16 inputs keep the
    bf16 rate (llama.cpp multiplies them with CUBLAS_COMPUTE_32F); a datacenter card has one."""
    prompt = 4096  # compute-bound on both chips (the critical prompt is a few hundred tokens)
    e = estimate(get_model("llama-3-8b"), hardware=chip, weights=weights, prompt=prompt,
                 context=prompt)
    assert e.compute_precision == precision
    assert e.peak_flops == pytest.approx(tflops * 1e12, rel=1e-4)
    slower, one_rate = (estimate(get_model("llama-3-8b"), hardware=chip, weights=weights,
                                 prompt=prompt, context=prompt, peak_flops=tflops * 1e12 / k)
                        for k in (2, 1))
    assert slower.ttft_seconds == pytest.approx(2 * one_rate.ttft_seconds, rel=0.01)
    # attention multiplies by the 16-bit cache at the chip's fastest 16-bit rate (a GeForce
    # card's fp16-acc16 even beside bf16 weights: llama.cpp's cache is f16 by default), never
    # slower than the weights' rate
    assert e.ttft_seconds <= one_rate.ttft_seconds * (1 + 1e-12)
    assert (e.ttft_seconds == pytest.approx(one_rate.ttft_seconds, rel=1e-12)) \
        == (e.attention_peak_flops == e.peak_flops)


def test_time_per_token_plot_uses_the_window():
    """Mistral 7B v0.1 (window 4096 in every layer): at 32K tokens a step reads the cache of
    4096 tokens, so its memory time equals the one at context 4096."""
    import matplotlib
    matplotlib.use("Agg")
    from llm_arithmetic import get_hardware
    from llm_arithmetic.book import plots
    m, chip = get_model("mistral-7b"), get_hardware("a100-80gb-sxm")
    ax = plots.time_per_token_vs_batch(m, chip, batches=[1, 8], contexts=[4096, 32768])
    mem_4k, mem_32k = ax.lines[1].get_ydata(), ax.lines[3].get_ydata()
    assert list(mem_32k) == pytest.approx(list(mem_4k), rel=1e-12)
    e = estimate(m, hardware=chip, context=4096, batch=8)
    assert mem_4k[1] == pytest.approx(e.decode_step_bytes / chip.bandwidth * 1e3, rel=1e-12)


def test_moe_batch_reads_the_experts_any_token_chose():
    """Mixtral 8x7B (E = 8, k = 2): the experts a batch reads, checked against a seeded
    simulation of uniform routing, and the step's bytes against a sum built by hand from the
    config's shapes (shared weights + L x experts x one expert MLP + caches)."""
    import numpy as np
    m = get_model("mixtral-8x7b")
    E, k, L, d, dff = m.n_experts, m.n_active_experts, m.n_layers, m.d_model, m.d_ff
    rng = np.random.default_rng(0)
    for b in (1, 3, 8):
        picks = np.argsort(rng.random((20000, b, E)), axis=2)[..., :k]
        hit = np.zeros((20000, b, E), dtype=bool)
        np.put_along_axis(hit, picks, True, axis=2)
        simulated = hit.any(axis=1).sum(axis=1).mean()
        e = estimate(m, context=1, batch=b)
        assert float(e.experts_read) == pytest.approx(simulated, rel=0.01)
        expert_bytes = 3 * d * dff * 2                      # gate, up, down at fp16
        shared = e.decode_bytes_per_token - e.kv_cache_bytes_per_token - L * k * expert_bytes
        by_hand = shared + L * float(e.experts_read) * expert_bytes + b * e.kv_cache_bytes_per_token
        assert float(e.decode_step_bytes) == pytest.approx(by_hand, rel=1e-12)
    # a dense model's step reads its weights once at any batch
    dense = get_model("llama-2-7b")
    e1, e8 = estimate(dense, batch=1), estimate(dense, batch=8)
    assert e8.decode_step_bytes - e1.decode_step_bytes == 7 * e1.kv_cache_bytes_per_token


def test_moe_critical_batch_balances_the_two_times():
    """At B* the memory time (with the experts read at B*) equals the compute time."""
    from llm_arithmetic import get_hardware
    from llm_arithmetic.formulas import params as P
    m, chip = get_model("mixtral-8x7b"), get_hardware("h100-sxm")
    b_star = estimate(m, hardware=chip, context=1).critical_batch_size
    e_b = float(P.experts_read(n_experts=8, n_active_experts=2, batch=b_star))
    read = P.decode_read_params(**dict(m.arch(), n_active_experts=e_b))
    t_mem = (2 * read + b_star * m.kv_cache_bytes_per_token()) / chip.bandwidth
    e = estimate(m, hardware=chip, context=1)
    t_cmp = b_star * e.decode_flops_per_token / e.peak_flops
    assert t_cmp == pytest.approx(t_mem, rel=1e-9)
    # far above the closed form with k experts read; equal to the one with all E read, since
    # (3/4)^B vanishes long before B reaches a thousand
    from llm_arithmetic.formulas import roofline as R
    bounds = []
    for experts in (2, 8):
        w = 2 * P.decode_read_params(**dict(m.arch(), n_active_experts=experts))
        bounds.append(R.critical_batch_size(
            weight_bytes=w, kv_cache_bytes_per_token=m.kv_cache_bytes_per_token(), matmul_params=e.params_matmul,
            n_layers=m.n_layers, n_heads=m.n_heads, d_head=m.d_head, context=1,
            bandwidth=chip.bandwidth, peak_flops=e.peak_flops))
    assert bounds[0] < b_star / 3
    assert b_star == pytest.approx(bounds[1], rel=1e-9)


@pytest.mark.parametrize("chip, tflops", [("tpu-v7", 2307), ("tpu-v5e", 197), ("gaudi3", 1835)])
def test_a_bf16_only_chip_computes_a_16_bit_checkpoint_at_its_bf16_peak(chip, tflops):
    """TPUs and Gaudis list bf16, not fp16 (Google's TPU7x page: 2,307 bf16 TFLOP/s; v5e: 197;
    Intel's Gaudi 3: 1,835). A bf16 checkpoint as shipped ran without a compute peak there,
    and its time to first token was the weights' read alone: Qwen3-32B's 4,000-token prompt in
    8.9 ms on a TPU v7, against 2 x 32.0e9 x 4,000 FLOPs / 2,307 TFLOP/s = 111 ms of
    matrix products alone."""
    e = estimate("qwen3-32b", hardware=chip, prompt=4000, generate=1)
    assert e.compute_precision == "bf16" and e.peak_flops == tflops * 1e12
    assert e.ttft_seconds >= 2 * 31_983_534_080 * 4000 / (tflops * 1e12)


def test_sweep_leaves_a_compute_time_without_a_peak_unknown():
    """Vera Rubin's catalog lists an fp4 rate alone: a 16-bit Llama 3.1 8B has no compute
    peak there, so estimate's compute time is None, and sweep's the array's NaN, not 0 s (a
    step that took no time to compute would be an infinite peak). With MXFP4 weights (fp4
    products) and on an H100 (fp16 peak) both give the same compute time."""
    import numpy as np

    from llm_arithmetic import sweep

    s = sweep("llama-3.1-8b", hardware=["vera-rubin", "h100-sxm"], weights=["fp16", "mxfp4"],
              context=[1, 4096], batch=[1, 64])
    for i, chip in enumerate(s.hardware):
        for j, fmt in enumerate(s.weights):
            for k, ctx in enumerate(s.context):
                for n, b in enumerate(s.batch):
                    e = estimate("llama-3.1-8b", hardware=chip, weights=fmt,
                                 context=int(ctx), batch=int(b))
                    got = s.compute_seconds[i, j, k, n]
                    if e.decode_compute_seconds is None:
                        assert np.isnan(got), (chip, fmt)
                    else:
                        assert got == pytest.approx(e.decode_compute_seconds, rel=1e-12)
                    assert s.seconds_per_token[i, j, k, n] == pytest.approx(
                        e.decode_seconds_per_token, rel=1e-12)
    assert np.isnan(s.compute_seconds[0, 0]).all()
    assert not np.isnan(s.compute_seconds[1]).any()


@pytest.mark.parametrize("hardware", [None, 5])
def test_sweep_without_chips_names_the_argument(hardware):
    """sweep(model, hardware=None) raised "TypeError: 'NoneType' object is not iterable"
    (and an int the same): bad input to the API is an InputError naming the argument, as
    sweep's other arguments and estimate's are."""
    with pytest.raises(InputError, match="^hardware: "):
        sweep("llama-3.1-8b", hardware=hardware)


@pytest.mark.parametrize("model,chip,weights,bits_kv", [
    ("llama-3.1-8b", "rtx-4090", "q4_0", 16), ("llama-3.1-8b", "h100-sxm", "fp8", 8),
    ("qwen3-30b-a3b", "m2-max", "fp16", 16)])
def test_step_rates_are_the_flops_over_their_two_rates(model, chip, weights, bits_kv):
    """prefill_peak_for and decode_peak_for (one helper behind both) against a second
    derivation: a step's FLOPs over its compute time, the weights' products (2 x the matmul
    parameters a token, the head once for a prefill's last token) at the catalog's rate for the
    estimate's compute precision and the rest (attention over the cache) at the catalog's rate
    for its attention precision. A sequence gives one rate each; a bad length is an InputError
    naming it."""
    import numpy as np

    from llm_arithmetic.estimate import decode_peak_for, prefill_peak_for

    m, h = get_model(model), get_hardware(chip)
    e = estimate(m, hardware=h, weights=weights, bits_kv=bits_kv)
    peak_w = h.peaks[e.compute_precision].rate
    peak_a = h.peaks[e.attention_precision].rate

    def mixed(total, weights_flops):
        return total / (weights_flops / peak_w + (total - weights_flops) / peak_a)

    prompts, contexts = [1, 512, 8192], [1, 4096, 32768]
    want_prefill = [mixed(float(m.prefill_flops(p)), 2.0 * (e.params_matmul - m.head_params) * p
                          + 2.0 * m.head_params) for p in prompts]
    want_decode = [mixed(float(m.decode_flops_per_token(c)), 2.0 * e.params_matmul)
                   for c in contexts]
    got_prefill = prefill_peak_for(m, h, weights, prompts, bits_kv)
    got_decode = decode_peak_for(m, h, weights, contexts, bits_kv)
    assert isinstance(got_prefill, np.ndarray) and isinstance(got_decode, np.ndarray)
    assert list(got_prefill) == pytest.approx(want_prefill, rel=1e-12)
    assert list(got_decode) == pytest.approx(want_decode, rel=1e-12)
    for p, want in zip(prompts, want_prefill):
        assert prefill_peak_for(m, h, weights, p, bits_kv) == pytest.approx(want, rel=1e-12)
    for c, want in zip(contexts, want_decode):
        assert decode_peak_for(m, h, weights, c, bits_kv) == pytest.approx(want, rel=1e-12)
    with pytest.raises(InputError, match="context must be a positive integer"):
        decode_peak_for(m, h, weights, 0)
    with pytest.raises(InputError, match="prompt must be a positive integer"):
        prefill_peak_for(m, h, weights, [512, -1])


@pytest.mark.parametrize("kw", [
    dict(weights="q4_0", context=4096, batch=8),
    dict(bits_weight=5, bits_kv=8, context=2048, prompt=1024, generate=128, batch=4),
    dict(weights="fp8", tp=8, prompt=2048, generate=256, batch=64, price_per_hour=2.5)])
def test_plan_inputs_are_what_estimate_evaluates(kw):
    """estimate.plan_inputs (public: forecast's prefill bound and deploy's search evaluate the
    plan from it) with the chip's inputs gives the estimate's own figures, and rejects a bad
    argument with the estimate's message."""
    from llm_arithmetic.estimate import plan_inputs
    from llm_arithmetic.layout import chip_inputs

    m, h = get_model("llama-3-70b" if "tp" in kw else "llama-3.1-8b"), get_hardware("h100-sxm")
    e = estimate(m, hardware=h, **kw)
    ev = m.plan.child(**chip_inputs(h), **plan_inputs(m, **kw))
    keys = ["weight_bytes", "decode_seconds_per_token", "compute_precision", "max_batch"]
    keys += ["ttft_seconds", "tpot_seconds", "cost_per_million_tokens"] if "prompt" in kw else []
    for key in keys:
        assert ev.get(key) == getattr(e, key), key
    for bad in (dict(context=0), dict(batch=1.5), dict(weights="q4_0", bits_weight=4),
                dict(tp=3)):
        with pytest.raises(InputError) as want:
            estimate(m, hardware=h, **bad)
        with pytest.raises(InputError) as got:
            plan_inputs(m, **bad)
        assert str(got.value) == str(want.value)


def test_tp_must_split_or_copy_whole_kv_heads():
    """vLLM's QKVParallelLinear gives each chip n_kv / tp KV heads when tp divides them, else one
    head copied on tp / n_kv chips, and refuses any other tp (its ``divide`` asserts). Phi-4's
    config.json: 40 attention heads, 10 KV heads; Llama 3.1 70B's: 64 and 8."""
    with pytest.raises(InputError, match="tp = 4 neither divides the 10 KV heads of phi-4"):
        estimate("phi-4", hardware="h100-sxm", tp=4)
    for tp in (2, 5, 10):      # 10 % tp == 0
        estimate("phi-4", hardware="h100-sxm", tp=tp)
    estimate("llama-3.1-70b", hardware="h100-sxm", tp=16)   # 16 % 8 == 0: copies
