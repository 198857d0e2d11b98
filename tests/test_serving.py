"""Serving, parallelism and the measured-vs-bound table (issue 15).

Expected values come from independent definitions or second derivations, never from the code
under test:

* the ring all-reduce time against NCCL's definition of bus bandwidth (nccl-tests,
  doc/PERFORMANCE.md: busBw = algBw x 2(n-1)/n for all-reduce, algBw = S / t);
* speculative decoding against Leviathan et al. 2023 (arXiv 2211.17192): the expected number of
  tokens per step is the sum 1 + a + ... + a^k (their Eq. 1 summed term by term here), the
  improvement factor (1 - a^(k+1)) / ((1 - a)(k c + 1)) (their Theorem 3.8);
* the GPipe bubble (Huang et al. 2019): (K - 1) / (M + K - 1);
* cost and energy by hand; paged waste and chunked prefill by explicit loops; the critical
  prompt and the best TP degree by the conditions that define them;
* llama.cpp file sizes: TheBloke's published GGUF files (byte sizes as recorded in
  dynaboard/ai-studio src/providers/models/model-list.ts) minus a per-model header that is the
  same for every file type of a model;
* one measured-vs-bound row recomputed by hand from the catalog's datasheet figures.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from llm_arithmetic import get_model, numeric as N
from llm_arithmetic.catalog.formats import MIXES, mix_bits, mix_tensors
from llm_arithmetic.cli import main
from llm_arithmetic.core.errors import InputError
from llm_arithmetic.estimate import estimate
from llm_arithmetic.sweeps import frontier
from llm_arithmetic.lab import serving as S

REPO = Path(__file__).resolve().parents[1]
ACCEPTANCE = ["describe", "llama-3-70b", "--hardware", "h100-sxm", "--weights", "fp8", "--tp",
              "8", "--prompt", "2048", "--generate", "256", "--batch", "64",
              "--price-per-hour", "2.5", "--json"]
SERVING_KEYS = {"ttft_seconds", "tpot_seconds", "request_seconds", "tokens_per_second_per_user",
                "tokens_per_second_per_chip", "cost_per_million_tokens",
                "energy_joules_per_token", "allreduce_seconds_per_token"}


# ---- formulas against independent definitions ---------------------------------------------------
@pytest.mark.parametrize("n", [2, 4, 8, 72])
def test_ring_allreduce_matches_nccl_bus_bandwidth(n):
    # nccl-tests: algBw = S / t and busBw = algBw * 2(n-1)/n; a ring runs at busBw = link bw
    size, link = 256 * 2**20, 450e9
    t = N.ring_allreduce_time(message_bytes=size, n_chips=n, link_bandwidth=link)
    alg_bw = size / t
    assert alg_bw * 2 * (n - 1) / n == pytest.approx(link, rel=1e-12)


def test_ring_allreduce_latency_is_two_n_minus_one_hops():
    t0 = N.ring_allreduce_time(message_bytes=1000, n_chips=8, link_bandwidth=1e9)
    t1 = N.ring_allreduce_time(message_bytes=1000, n_chips=8, link_bandwidth=1e9,
                               link_latency=1e-6)
    assert t1 - t0 == pytest.approx(14e-6)


def test_tp_comm_time_is_two_allreduces_per_layer():
    # Llama 3 70B, batch 64, bf16 activations: 64 x 8192 x 2 B each, 2 x 80 of them
    one = N.ring_allreduce_time(message_bytes=64 * 8192 * 2, n_chips=8, link_bandwidth=450e9)
    assert N.tp_comm_time(n_layers=80, batch=64, d_model=8192, tp=8,
                          link_bandwidth=450e9) == pytest.approx(160 * one)


@pytest.mark.parametrize("a,k,c", [(0.8, 4, 0.05), (0.6, 3, 0.0), (0.9, 7, 0.1), (0.5, 1, 0.2)])
def test_speculative_decoding_against_leviathan(a, k, c):
    expected_tokens = sum(a**i for i in range(k + 1))  # 1 + a + ... + a^k, term by term
    assert N.speculative_tokens_per_step(acceptance=a, draft_len=k) == pytest.approx(
        expected_tokens, rel=1e-12)
    improvement = (1 - a ** (k + 1)) / ((1 - a) * (k * c + 1))  # Theorem 3.8
    assert N.speculative_speedup(acceptance=a, draft_len=k, draft_cost=c) == pytest.approx(
        improvement, rel=1e-12)


def test_speculative_speedup_at_least_one_token_per_step():
    # with no draft tokens accepted the step still yields the target's own token
    assert N.speculative_tokens_per_step(acceptance=1e-9, draft_len=5) == pytest.approx(1.0)


def test_gpipe_bubble():
    # GPipe: (K - 1) / (M + K - 1); with M = 4K microbatches about 1/5 for large K
    assert N.pipeline_bubble(pp=4, microbatches=4) == pytest.approx(3 / 7)
    assert N.pipeline_bubble(pp=1, microbatches=8) == 0
    t = N.pipeline_time(stage_time=2.0, pp=4, microbatches=12)
    idle = N.pipeline_bubble(pp=4, microbatches=12)
    assert t * (1 - idle) == pytest.approx(12 * 2.0)  # busy time: every microbatch once


def test_cost_and_energy_by_hand():
    # 8 chips at $2.50/h = $20/h; 5000 tokens/s = 18e6 tokens/h -> $1.111 per million
    assert N.cost_per_million_tokens(price_per_hour=2.5, n_chips=8,
                                     tokens_per_second=5000) == pytest.approx(20 / 18)
    # 8 x 700 W = 5600 J/s over 5000 tokens/s
    assert N.energy_per_token(power=700, n_chips=8, tokens_per_second=5000) == \
        pytest.approx(1.12)


@pytest.mark.parametrize("context,block", [(1000, 16), (1024, 16), (1, 256), (4097, 4096)])
def test_paged_waste_by_counting_blocks(context, block):
    blocks = 0
    while blocks * block < context:
        blocks += 1
    waste_tokens = blocks * block - context
    assert N.paged_waste(kv_cache_bytes_per_token=131072, context=context, page_tokens=block,
                         batch=3) == 3 * 131072 * waste_tokens


@pytest.mark.parametrize("prompt,chunk", [(8192, 2048), (1000, 300), (100, 4096), (7, 1)])
def test_chunked_prefill_bytes_by_a_loop_over_chunks(prompt, chunk):
    W, head, kappa = 10**9, 10**8, 1000
    total, done = 0, 0
    while done < prompt:
        this = min(chunk, prompt - done)
        last = done + this == prompt  # only the last chunk computes logits: it reads the head
        total += W - head + (head if last else 0) + kappa * done + kappa * this
        done += this
    assert N.chunked_prefill_bytes(weight_bytes=W, head_bytes=head, kv_cache_bytes_per_token=kappa,
                                   prompt=prompt, prefill_chunk=chunk) == total


def test_critical_prompt_balances_memory_and_compute():
    head = 32000 * 4096  # Llama 2 7B's output head, V x d
    kw = dict(weight_bytes=13_476_831_232, kv_cache_bytes_per_token=524288, matmul_params=6_738_415_616,
              head_params=head, n_layers=32, n_heads=32, d_head=128)
    beta, R = 1935e9, 312e12
    t = N.critical_prompt(bandwidth=beta, peak_flops=R, attn_peak_flops=R, **kw)
    memory = (kw["weight_bytes"] + kw["kv_cache_bytes_per_token"] * t) / beta
    flops = N.prefill_flops(matmul_params=kw["matmul_params"], head_params=head, n_layers=32,
                            n_heads=32, d_head=128, prompt=t)
    assert memory == pytest.approx(flops / R, rel=1e-9)
    # attention at half the weights' rate: the weights' FLOPs, 2 (P_mm - P_head) T + 2 P_head,
    # at 2R and the causal attention's, 4 L H d_head T (T + 1) / 2, at R, by hand
    t2 = N.critical_prompt(bandwidth=beta, peak_flops=2 * R, attn_peak_flops=R, **kw)
    weights = 2 * (kw["matmul_params"] - head) * t2 + 2 * head
    attention = 4 * 32 * 32 * 128 * t2 * (t2 + 1) / 2
    memory2 = (kw["weight_bytes"] + kw["kv_cache_bytes_per_token"] * t2) / beta
    assert memory2 == pytest.approx(weights / (2 * R) + attention / R, rel=1e-9)
    assert t < t2 < N.critical_prompt(bandwidth=beta, peak_flops=2 * R, attn_peak_flops=2 * R,
                                      **kw)
    # and near the chip's ops:byte ratio scaled by the weights over those that run every
    # prompt token (the head runs once; the attention and cache terms are small)
    ratio = R / beta * kw["weight_bytes"] / (2 * (kw["matmul_params"] - head))
    assert t == pytest.approx(ratio, rel=0.01)


def test_best_tp_degree_minimizes_the_step():
    kw = dict(decode_time=0.020, n_layers=80, message_bytes=1048576, link_bandwidth=450e9,
              link_latency=5e-6)
    best = N.tp_best_degree(**kw)
    grid = np.linspace(1, 20, 200001)
    step = kw["decode_time"] / grid + 2 * kw["n_layers"] * N.ring_allreduce_time(
        message_bytes=kw["message_bytes"], n_chips=grid, link_bandwidth=kw["link_bandwidth"],
        link_latency=kw["link_latency"])
    assert best == pytest.approx(grid[np.argmin(step)], abs=1e-3)
    assert N.tp_best_degree(**{**kw, "link_latency": 0}) == math.inf
    assert N.tp_best_degree(**{**kw, "decode_time": 1e-4}) == 1  # TP never pays


def test_tp_speedup_and_step_time_agree():
    t1, comm = 0.02, 0.00065
    step = N.tp_step_time(step_bytes=t1 * 3.35e12, step_flops=0, tp=8, bandwidth=3.35e12,
                          peak_flops=1e15, comm_time=comm)
    assert N.tp_speedup(decode_time=t1, tp=8, comm_time=comm) == pytest.approx(t1 / step)


def test_alltoall_bytes_by_hand():
    # 128 tokens x 8 experts, 31 of 32 remote, 7168 values of 2 bytes, there and back
    assert N.alltoall_bytes(batch=128, d_model=7168, n_active_experts=8, ep=32) == \
        2 * 128 * 8 * 31 * 7168 * 2 // 32
    assert N.alltoall_bytes(batch=128, d_model=7168, n_active_experts=8, ep=1) == 0


def test_ttft_is_the_roofline_prefill_time_for_a_uniform_decoder():
    m = get_model("llama-2-7b")
    a = m.arch()
    W = m.weight_bytes(16)
    kw = dict(weight_bytes=W, kv_cache_bytes_per_token=m.kv_cache_bytes_per_token(), prompt=350,
              bandwidth=600e9, peak_flops=125e12)
    second = N.prefill_time(matmul_params=m.matmul_params, head_params=a["n_vocab"] * a["d_model"],
                            n_layers=a["n_layers"], n_heads=a["n_heads"], d_head=a["d_head"],
                            **kw)
    assert N.time_to_first_token(prefill_flops=m.prefill_flops(350), **kw) == \
        pytest.approx(second, rel=1e-12)


def test_prefix_savings():
    m = get_model("llama-3.1-8b")
    assert N.prefix_bytes_saved(kv_cache_bytes_per_token=m.kv_cache_bytes_per_token(), prefix=1000, batch=8) \
        == 7 * 1000 * 131072
    head = 128256 * 4096  # V x d: every request still runs it once, after its own suffix
    assert N.prefix_flops_saved(matmul_params=m.matmul_params, head_params=head, n_layers=32,
                                n_heads=32, d_head=128, prefix=1000, batch=8) \
        == 7 * (m.prefill_flops(1000) - 2 * head)


def test_request_time_and_frontier_points():
    assert N.request_time(ttft=0.2, tpot=0.02, generated=256) == pytest.approx(0.2 + 5.12)
    assert N.tokens_per_user(tpot=0.02) == pytest.approx(50)
    assert N.tokens_per_chip(batch=64, tpot=0.005, n_chips=8) == pytest.approx(64 / 0.04)


# ---- llama.cpp file types ------------------------------------------------------------------------
def test_q4_k_m_worked_example_of_formats_toml():
    assert round(float(mix_bits(get_model("llama-2-7b"), "q4_k_m")), 4) == 4.8442


# TheBloke's GGUF files (sizeBytes as recorded in dynaboard/ai-studio
# src/providers/models/model-list.ts): Llama-2-7B-GGUF and Mistral-7B-Instruct-v0.1-GGUF.
GGUF_FILES = {
    "llama-2-7b": {"q4_k_m": 4_081_004_224, "q5_k_m": 4_783_156_928, "q8_0": 7_161_089_728},
    "mistral-7b": {"q4_k_m": 4_368_438_944, "q5_k_m": 5_131_409_056},
}


@pytest.mark.parametrize("name", sorted(GGUF_FILES))
def test_mix_bytes_match_published_gguf_files(name):
    m = get_model(name)
    headers = {fmt: size - mix_bits(m, fmt) * m.language_model_params / 8
               for fmt, size in GGUF_FILES[name].items()}
    # the tensors account for every byte but a header (metadata, vocabulary) that does not
    # depend on the file type, and is under a megabyte for a 32,000-token vocabulary
    assert len(set(headers.values())) == 1, headers
    assert 0 < next(iter(headers.values())) < 1_000_000


def test_mix_tensors_cover_the_decoder():
    for name in ("llama-2-7b", "mixtral-8x7b", "deepseek-v3", "qwen3-30b-a3b", "gemma-2-9b",
                 "llama-4-maverick", "nemotron-h-56b", "phi-3-mini"):
        m = get_model(name)
        assert sum(p for _, p, _ in mix_tensors(m, "q4_k_m")) == m.language_model_params


def test_mixtral_attention_v_and_k_are_q8_0():
    # llama.cpp: 8-expert models get Q8_0 attn_v and attn_k whatever the mix
    tensors = mix_tensors(get_model("mixtral-8x7b"), "q4_k_m")
    types = {name: bits for name, _, bits in tensors if name in ("attn_v", "attn_k")}
    assert set(types.values()) == {8.5}


def test_q4_0_file_of_gpt2_keeps_its_position_table_at_16_bits():
    # llama.cpp's quantizer never quantizes a learned position table (llama-quant.cpp: "do not
    # quantize positional embeddings"). GPT-2 (124M) from its config.json, by hand: 12 layers,
    # d = 768, 1024 positions, vocabulary 50257, tied head. In a Q4_0 file the tied table takes
    # the output rule (Q6_K, 105/16 bits), the position table stays F16, the four matrices of a
    # layer (768 x 2304, 768 x 768, 768 x 3072, 3072 x 768) are Q4_0 (9/2 bits) and every norm
    # and bias vector (9,984 per layer, 1,536 in the final norm) is F32.
    matrices = 12 * (768 * 2304 + 768 * 768 + 2 * 768 * 3072)
    vectors = 12 * (4 * 768 + 2304 + 768 + 3072 + 768) + 2 * 768
    expected_bits = (50257 * 768 * 105 / 16 + 1024 * 768 * 16 + matrices * 9 / 2 + vectors * 32)
    tensors = mix_tensors(get_model("gpt2"), "q4_0")
    assert sum(p * b for _, p, b in tensors) / 8 == pytest.approx(expected_bits / 8, abs=1)
    assert {name: b for name, _, b in tensors}["position_embd"] == 16


def test_mix_as_weights_in_estimate():
    e = estimate("llama-2-7b", weights="q4_k_m")
    assert e.bits_weight == pytest.approx(float(mix_bits(get_model("llama-2-7b"), "q4_k_m")))
    assert set(MIXES) >= {"q3_k_m", "q4_k_m", "q5_k_m", "q6_k"}


# llama.cpp prints these files' sizes (llama-bench's "size" column, GiB) in discussion 15396's
# tables: ggml-org/gpt-oss-20b-GGUF and gpt-oss-120b-GGUF, file type MXFP4_MOE.
GPT_OSS_GIB = {"gpt-oss-20b": 11.27, "gpt-oss-120b": 59.02}
#: ggml-org/gpt-oss-20b-GGUF@ef9b12f2ff56c69cf32153a02784e7a3c88bf524 gpt-oss-20b-MXFP4.gguf
#: [B], SHA-256 27cd6c43...; the same figure in several independent download manifests (search
#: index file ids 70107269760, 71074404938, 59699160537)
GPT_OSS_20B_FILE = 12_109_566_624


def _gpt_oss_gguf(name: str) -> tuple[int, int]:
    """ggml-org's MXFP4_MOE file of gpt-oss by hand from config.json and llama.cpp's rules
    (src/llama-quant.cpp @007dbbf3: llama_tensor_get_type_impl gives a tensor with ne[2] > 1
    MXFP4 and every other quantized one, token_embd and output included, Q8_0;
    tensor_allows_quantization leaves 1-D tensors and ffn_gate_inp as converted, the converter
    writing them F32, conversion/base.py @2bbcf7fc): its tensor bytes, and those one decode step
    of one token reads (the 4 routed experts of each layer, one embedding row) [B]."""
    c = json.loads((REPO / "lib/llm_arithmetic/catalog/data/models" / name / "config.json")
                   .read_text())
    d, L, E, k = c["hidden_size"], c["num_hidden_layers"], c["num_local_experts"], \
        c["num_experts_per_tok"]
    ff, H, K, dh, V = c["intermediate_size"], c["num_attention_heads"], \
        c["num_key_value_heads"], c["head_dim"], c["vocab_size"]
    q8, mx, f32 = Fraction(34, 32), Fraction(17, 32), 4  # bytes a weight
    attn = (2 * H * dh * d + 2 * K * dh * d) * q8 + (H * dh + 2 * K * dh + d + H) * f32
    layer = attn + 2 * d * f32 + (E * d + E) * f32  # + two norms, the router and its bias
    expert = 3 * ff * d * mx + (2 * ff + d) * f32  # gate, up, down and their biases
    whole = L * (layer + E * expert) + 2 * V * d * q8 + d * f32
    step = L * (layer + k * expert) + V * d * q8 + d * q8 + d * f32
    return whole, step


@pytest.mark.parametrize("name", sorted(GPT_OSS_GIB))
def test_mxfp4_moe_file_is_the_published_gguf(name):
    """The file type's parts (weights.weight_inputs, mix_parts) give the file's tensor bytes
    by hand: llama.cpp's printed size to its two decimals, and for the 20B a header of 13 MB
    below the published file (the tokenizer of 201,088 tokens, the metadata)."""
    m = get_model(name)
    whole, _ = _gpt_oss_gguf(name)
    e = estimate(m, weights="mxfp4_moe")
    assert e.weight_bytes == whole
    assert round(float(mix_bits(m, "mxfp4_moe")) * m.language_model_params / 8 / 2**30, 2) \
        == round(float(whole) / 2**30, 2) == GPT_OSS_GIB[name]
    if name == "gpt-oss-20b":
        assert 0 < GPT_OSS_20B_FILE - whole < 16e6


def test_mxfp4_moe_decode_reads_each_part_at_its_type_in_the_file():
    # a second derivation from the config: the active experts at MXFP4 with their F32 biases,
    # attention, head and one embedding row at Q8_0, the routers and 1-D tensors F32 (not the
    # file's mean 4.63 bits, nor 8.5 for every weight that is not an expert's)
    m = get_model("gpt-oss-20b")
    _, step = _gpt_oss_gguf("gpt-oss-20b")
    e = estimate(m, weights="mxfp4_moe", bandwidth=1e12)
    assert e.decode_bytes_per_token - e.kv_cache_bytes == pytest.approx(float(step), rel=1e-12)
    assert 5.6 < 8 * float(step) / m.decode_read_params < 5.8
    # a dense model has no experts: every matrix is Q8_0, its norms F32
    assert 8.5 < estimate("llama-3-8b", weights="mxfp4_moe").bits_weight < 8.51


# ---- estimate and the command line ----------------------------------------------------------------
def test_acceptance_command_answers_every_key():
    r = subprocess.run([sys.executable, "-m", "llm_arithmetic", *ACCEPTANCE],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert SERVING_KEYS <= out.keys()
    assert all(isinstance(out[k], float) and out[k] > 0 for k in SERVING_KEYS)
    assert out["n_chips"] == 8
    # by hand from the JSON's own TPOT: 1/TPOT, 64/TPOT/8, $2.5 x 8 per hour over the tokens
    tpot = out["tpot_seconds"]
    assert out["tokens_per_second_per_user"] == pytest.approx(1 / tpot)
    assert out["tokens_per_second_per_chip"] == pytest.approx(64 / tpot / 8)
    assert out["cost_per_million_tokens"] == pytest.approx(2.5 * 8 / 3600 / (64 / tpot) * 1e6)
    assert out["energy_joules_per_token"] == pytest.approx(700 * 8 / (64 / tpot))
    assert out["request_seconds"] == pytest.approx(out["ttft_seconds"] + 256 * tpot)
    # the all-reduces: 2 per layer, 80 layers, and the input embedding's (its table split by
    # vocabulary), 64 x 8192 x 2 bytes each, 450 GB/s NVLink, reduced in the NVSwitch (each
    # chip sends (8 + 1)/8 of the message), two steps of NCCL's 0.47 us NVLink latency each
    assert out["allreduce_seconds_per_token"] == pytest.approx(
        161 * (9 / 8 * 64 * 8192 * 2 / 450e9 + 2 * 0.47e-6))


def test_tpot_by_hand_for_the_acceptance_case():
    # Llama 3 70B at fp8 on 8 H100s, batch 64 at the mean context 2048 + 257/2 tokens:
    # weights read (all but 128,255 unread embedding rows of 8192) + 64 caches of 327,680 B a
    # token, over 8 x 3.35 TB/s; the ring all-reduces (2 a block and the input embedding's)
    # and the ring all-gather of the 64 tokens' logits (V = 128,256, 16-bit, each chip sending
    # 7/8 of them), without latency, after it (serialized), or under it (the bound). Every chip reads its own copy of the norms (two vectors of 8192
    # a block, 80 blocks, and the final one: 7 copies more than the model's, 1 byte each at
    # fp8); 8 KV heads on 8 chips are split, none copied.
    e = estimate("llama-3-70b", hardware="h100-sxm", weights="fp8", tp=8, prompt=2048,
                 generate=256, batch=64, allreduce="ring", link_latency=0)
    read = 70_553_706_496 - 128_255 * 8192 + 7 * (2 * 80 + 1) * 8192
    cache = 64 * (2048 + 257 / 2) * 80 * 8 * 128 * 2 * 2
    allreduce = 161 * 2 * 7 / 8 * 64 * 8192 * 2 / 450e9
    allgather = 7 / 8 * 64 * 128_256 * 2 / 450e9
    comm = allreduce + allgather
    assert e.tpot_serialized_seconds == pytest.approx((read + cache) / (8 * 3.35e12) + comm)
    assert e.tpot_seconds == pytest.approx(max((read + cache) / (8 * 3.35e12), comm))


def test_existing_keys_keep_their_one_chip_meaning():
    one = estimate("llama-3-70b", hardware="h100-sxm", weights="fp8", context=2048, batch=64)
    many = estimate("llama-3-70b", hardware="h100-sxm", weights="fp8", context=2048, batch=64,
                    tp=8, pp=2, prompt=2048, generate=256, price_per_hour=2.5)
    d1, d2 = one.as_dict(), many.as_dict()
    for k in ("weight_bytes", "kv_cache_bytes", "decode_seconds_per_token", "fits",
              "max_batch", "critical_batch_size", "memory_required_bytes"):
        assert d1[k] == d2[k], k
    assert one.tpot_seconds == pytest.approx(one.decode_seconds_per_token)


def test_pipeline_parallelism_does_not_speed_up_a_token():
    kw = dict(hardware="h100-sxm", weights="fp8", batch=1, prompt=100, generate=10)
    one = estimate("llama-3-70b", **kw)
    pp = estimate("llama-3-70b", pp=4, **kw)
    assert pp.n_chips == 4
    assert pp.tpot_seconds == pytest.approx(one.tpot_seconds)
    assert pp.memory_per_chip_bytes < one.memory_per_chip_bytes / 3


def test_frontier_is_a_tradeoff():
    pts = frontier("llama-3-70b", hardware="h100-sxm", weights="fp8", tp=8, prompt=2048,
                   generate=256)
    users = [p["tokens_per_second_per_user"] for p in pts]
    chips = [p["tokens_per_second_per_chip"] for p in pts]
    assert users == sorted(users, reverse=True) and chips == sorted(chips)
    assert pts[-1]["fits"] is False and all(p["fits"] for p in pts[:-1])



@pytest.mark.parametrize("name,kw", [
    ("llama-3-70b", dict(hardware="h100-sxm", weights="fp8", tp=8, prompt=2048, generate=256,
                         price_per_hour=2.5)),
    ("mixtral-8x7b", dict(hardware="h200", tp=4, prompt=4096, generate=512, draft_len=4,
                          acceptance=0.6)),
    ("llama-3.1-8b", dict(bandwidth=8e11, peak_flops=9e13, capacity=48_000_000_000))])
def test_frontier_points_are_the_estimates_at_each_batch(name, kw):
    """frontier reads each point's keys from the estimate's plan without building the whole
    estimate: every value (and the point's batch) is the estimate's at that batch, to the bit."""
    keys = {"tokens_per_second_per_user": "tokens_per_second_per_user",
            "tokens_per_second_per_chip": "tokens_per_second_per_chip",
            "tpot_seconds": "tpot_seconds", "fits": "fits_per_chip",
            "memory_per_chip_bytes": "memory_per_chip_bytes",
            "cost_per_million_tokens": "cost_per_million_tokens",
            "energy_joules_per_token": "energy_joules_per_token"}
    pts = frontier(name, batches=[1, 3, 48, 4096], **kw)
    assert [p["batch"] for p in pts] == [1, 3, 48, 4096]
    for p in pts:
        e = estimate(name, batch=p["batch"], **kw)
        assert set(p) == {"batch", *keys}
        for key, field in keys.items():
            assert p[key] == getattr(e, field) and type(p[key]) is type(getattr(e, field)), key

def test_frontier_command_json(capsys):
    assert main(["frontier", "llama-3-70b", "--hardware", "h200", "--weights", "fp8",
                 "--tp", "8", "--prompt", "2048", "--generate", "256", "--batch", "64",
                 "--json"]) == 0
    pts = json.loads(capsys.readouterr().out)
    assert [p["batch"] for p in pts] == [1, 2, 4, 8, 16, 32, 64]
    assert {"batch", "tokens_per_second_per_user", "tokens_per_second_per_chip",
            "fits"} <= pts[0].keys()


def test_frontier_command_table(capsys):
    assert main(["frontier", "llama-3.1-8b", "--hardware", "h100-sxm", "--batch", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:3] == ["batch", "TPOT", "(ms)"] and len(out) == 2 + 3


@pytest.mark.parametrize("args,message", [
    (["--tp", "0"], "must be positive"),
    (["--tp", "3"], "does not divide"),
    (["--tp", "128"], "exceeds the 64 attention heads"),
    (["--ep", "2"], "needs a mixture of experts"),
    (["--pp", "81"], "exceeds the 80 layers"),
    (["--prompt", "-5"], "must be positive"),
    (["--generate", "10"], "--generate needs --prompt"),
    (["--price-per-hour", "abc"], "expected a positive number"),
    (["--price-per-hour", "1e6"], "plausibility limit"),
    (["--power-watts", "1e9"], "plausibility limit"),
    (["--link-gbps", "-1"], "must be positive"),
])
def test_bad_serving_options_exit_2_with_one_line(args, message):
    r = subprocess.run([sys.executable, "-m", "llm_arithmetic", "describe", "llama-3-70b",
                        "--hardware", "h100-sxm", *args], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr


def test_a_price_needs_the_chips_speed(capsys):
    """A price with nothing to price (no chip: no time per token) is refused in one line, not
    ignored; a bandwidth alone is priced, at its memory-bound time per token: Llama 3.1 8B
    (8,030,261,248 parameters, the 128,256 x 4,096 embedding table not read) at 2 B a weight
    and one token of cache (32 layers x 8 KV heads x 128 x 2 x 2 B) over 1 TB/s is 15.0099 ms a
    token, so $2 per hour is 2 / 3,600 x 15.0099e-3 x 1e6 = $8.339 per million tokens."""
    assert main(["describe", "llama-3.1-8b", "--price-per-hour", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--price-per-hour needs the chip's speed" in err[0]
    read = (8_030_261_248 - 128_256 * 4096) * 2 + 32 * 8 * 128 * 2 * 2
    cost = 2 / 3600 * read / 1e12 * 1e6
    assert f"${cost:.3f} at $2 per chip-hour" == "$8.339 at $2 per chip-hour"
    for speed in (["--bandwidth-gbps", "1000"], ["--bandwidth-gbps", "1000", "--tflops", "100"]):
        assert main(["describe", "llama-3.1-8b", *speed, "--price-per-hour", "2"]) == 0
        # memory-bound at 100 TFLOP/s too: the same price
        assert f"${cost:.3f} at $2 per chip-hour" in capsys.readouterr().out


def test_frontier_needs_a_chip():
    r = subprocess.run([sys.executable, "-m", "llm_arithmetic", "frontier", "llama-3-70b"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_estimate_refuses_bad_serving_arguments():
    with pytest.raises(InputError, match="ep = 3 must divide"):
        estimate("mixtral-8x7b", tp=2, ep=3)
    with pytest.raises(InputError, match="price_per_hour"):
        estimate("llama-2-7b", price_per_hour=-1)
    with pytest.raises(InputError, match="link_latency"):
        estimate("llama-2-7b", link_latency=5)


# ---- measured against bound ------------------------------------------------------------------------
COMPARISONS = S.comparisons()
BOUNDED = [c for c in COMPARISONS if c.bound is not None]


def test_dataset_loads_every_row():
    assert len(COMPARISONS) == 194
    assert all(c.bound is not None or c.excluded for c in COMPARISONS)


def test_at_least_thirty_rows_have_a_bound():
    assert len(BOUNDED) >= 30
    assert {c.row.source_kind for c in BOUNDED} >= {"mlperf", "vendor-doc", "vendor-blog"}


@pytest.mark.parametrize("c", BOUNDED, ids=lambda c: c.row.id)
def test_no_measurement_beats_its_bound(c):
    assert 0 < c.efficiency <= 1, (c.row.id, c.row.value, c.bound)


def test_speculative_rows_are_excluded():
    spec = [c for c in COMPARISONS if c.row.speculative not in ("no", "")]
    assert spec and all(c.bound is None and "speculative" in c.excluded for c in spec)


def test_one_row_by_hand():
    # TensorRT-LLM table: Llama 3.1 8B, fp8, one H100, 128 in / 2048 out, 22,714 tokens/s.
    # Batch: (80 GiB - 8,030,261,248 B of fp8 weights) over the fp8 cache of 128 + 1024 tokens
    # (65,536 B a token): 1031. A step at the mean context 128 + 2049/2 reads the weights
    # (less 128,255 unread embedding rows of 4096) and 1031 caches: memory-bound.
    (c,) = [c for c in BOUNDED if c.row.id == "trtllm-perf-llama31-8b-h100-tp1-fp8-128-2048"]
    batch = (80 * 2**30 - 8_030_261_248) // (65_536 * (128 + 1024))
    assert c.batch == batch == 1031
    read = 8_030_261_248 - 128_255 * 4096
    step = (read + batch * 65_536 * (128 + 2049 / 2)) / 3.35e12
    assert c.limit == "memory"
    assert c.bound == pytest.approx(batch / step, rel=1e-9)
    assert c.efficiency == pytest.approx(22_714 / (batch / step))


def test_tpot_rows_use_littles_law():
    (c,) = [c for c in BOUNDED if c.row.id == "mlperf51-amd-8xmi300x-llama2-70b-interactive-tpot"]
    # 8840.42 tokens/s over 8 replicas, 32.1 ms between tokens: 35.5 sequences decoding
    assert c.batch == pytest.approx(8840.42 / 8 * 0.0321)
    assert c.bound < c.row.value


def test_prompt_sets_the_default_context(capsys):
    """With --prompt and no --context, the decode rows describe the step right after the
    prefill (its cache holds the prompt), not a one-token context."""
    assert main(["describe", "llama-3-8b", "--prompt", "2000", "--json"]) == 0
    with_prompt = json.loads(capsys.readouterr().out)
    assert main(["describe", "llama-3-8b", "--context", "2000", "--json"]) == 0
    with_context = json.loads(capsys.readouterr().out)
    assert with_prompt["context"] == 2000
    assert with_prompt["kv_cache_bytes"] == with_context["kv_cache_bytes"] == 2000 * 131072
    assert main(["describe", "llama-3-8b", "--prompt", "2000", "--context", "10",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["context"] == 10


@pytest.mark.parametrize("model, tp, per_chip_token_bytes, copies", [
    # Llama 3.3 70B (config.json: 80 layers, d = 8192, 8 key/value heads of 128): at tp 8 each
    # chip keeps one head's K and V, and at tp 16 still one (vLLM copies a head to the chips
    # beyond 8). Weights every chip holds whole: the norms (two of 8192 a layer and the final
    # one); at tp 16 also the 8 heads' K and V projections copied to 8 more chips.
    ("llama-3.3-70b", 8, 80 * 2 * 1 * 128 * 2, 7 * (2 * 80 + 1) * 8192),
    ("llama-3.3-70b", 16, 80 * 2 * 1 * 128 * 2,
     8 * 2 * 128 * 8192 * 80 + 15 * (2 * 80 + 1) * 8192),
    # DeepSeek-V3 (61 layers, kv_lora_rank 512 + qk_rope_head_dim 64): the latent is shared by
    # every head, so every chip of the group keeps all of it; and every chip holds the latent
    # down-projections (7168 x (1536 + 512 + 64)) and their norms (1536 + 512), the 58 MoE
    # layers' routers (256 x 7168 and 256 biases) and the norms (2 x 61 + 1 of 7168) whole
    ("deepseek-v3", 8, 61 * (512 + 64) * 2,
     7 * (61 * (7168 * (1536 + 512 + 64) + 1536 + 512) + 58 * (256 * 7168 + 256)
          + (2 * 61 + 1) * 7168)),
])
def test_tensor_parallel_cache_is_copied_where_heads_run_out(model, tp, per_chip_token_bytes,
                                                             copies):
    """Memory per chip under tensor parallelism: the weights split over the chips, those every
    chip holds whole counted once a chip, and on each chip its own cache, counted by hand from
    the configs: a chip keeps at least one key/value head, and a latent cache whole, not 1/tp of
    the cache. At fp8 a parameter is a byte."""
    from llm_arithmetic import estimate

    prompt, generate, batch = 2000, 500, 16
    e = estimate(model, hardware="h100-sxm", weights="fp8", tp=tp, prompt=prompt,
                 generate=generate, batch=batch)
    cache_per_chip = per_chip_token_bytes * (prompt + generate) * batch
    assert e.weight_bytes_held == e.weight_bytes + copies
    assert e.memory_per_chip_bytes == pytest.approx((e.weight_bytes + copies) / tp
                                                    + cache_per_chip, rel=1e-12)


def _head_from_config(name: str) -> int:
    """V x d of a catalog model, read from its config.json here, not from the library."""
    from pathlib import Path
    path = (Path(__file__).resolve().parents[1] / "lib" / "llm_arithmetic" / "catalog" / "data"
            / "models" / name / "config.json")
    cfg = json.loads(path.read_text())
    cfg = cfg.get("text_config", cfg)
    return cfg["vocab_size"] * cfg["hidden_size"]


@pytest.mark.parametrize("name, prompts", [
    ("llama-3.1-8b", (1, 100, 4096)),       # untied head
    ("gemma-3-1b", (1, 300, 2000)),         # tied head, sliding-window layers (512)
    ("gpt-oss-20b", (1, 64, 8192)),         # MoE, windows of 128 and sinks
])
def test_prefill_runs_the_output_head_once(name, prompts):
    # A second derivation: a prompt one token longer adds one token's pass through the blocks
    # and its attention, which is a decode step at that context less its output head (runtimes
    # compute logits for the last position only: vLLM gathers logits_indices, llama.cpp
    # build_inp_out_ids); one token of prefill is one decode step, head included.
    m, head = get_model(name), _head_from_config(name)
    assert m.head_params == head
    for t in prompts:
        if t == 1:
            assert m.prefill_flops(1) == m.decode_flops_per_token(1)
        else:
            assert m.prefill_flops(t) - m.prefill_flops(t - 1) == \
                m.decode_flops_per_token(t) - 2 * head


def test_ttft_bound_falls_below_the_head_per_token_count():
    # gpt-oss-20b, an 8192-token prompt on an RTX 4090: compute-bound; charging the head for
    # every prompt token (the count before) overstates the bound by 2 V d (T - 1) FLOPs, some
    # 16% of its weights' FLOPs (V d of its 3.6e9 matrix weights).
    from llm_arithmetic import estimate, get_hardware
    m, t = get_model("gpt-oss-20b"), 8192
    e = estimate(m, hardware=get_hardware("rtx-4090"), prompt=t)
    head = _head_from_config("gpt-oss-20b")
    before = (m.prefill_flops(t) + 2 * head * (t - 1)) / e.peak_flops
    assert e.ttft_seconds == pytest.approx(m.prefill_flops(t) / e.peak_flops, rel=1e-9)
    assert before - e.ttft_seconds == pytest.approx(2 * head * (t - 1) / e.peak_flops)
    # the head alone, run per token, would add a sixth to the prompt's FLOPs (whatever the peak)
    assert 2 * head * (t - 1) / m.prefill_flops(t) > 0.15
