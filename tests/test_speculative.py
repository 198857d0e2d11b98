"""Speculative decoding in the estimate (issue 30, item 4): the plan's speculative steps against
Leviathan et al.'s speed-up (Theorem 3.8) while the verify step is memory-bound, against the
book's own verify-step ratio (chapter 13, a second implementation) once it is compute-bound, the
DeepSeek-V3 MTP workload by hand, the inputs' errors, and the forecast under the new bound."""
from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import pytest

from llm_arithmetic import estimate, get_hardware, get_model
from llm_arithmetic import numeric as N
from llm_arithmetic.book.plots import verify_step_ratio
from llm_arithmetic.cli import main
from llm_arithmetic.core.errors import InputError
from llm_arithmetic.forecast import SPECULATIVE_BOUND_KEYS, forecast

CONFIGS = Path(__file__).resolve().parent / "configs"

A, K = 0.8, 4


def test_batch_one_speedup_is_leviathans_theorem():
    """Memory-bound verify step: speculative / plain = (1 - a^(k+1)) / ((1 - a)(k c + 1))."""
    e = estimate("qwen3-8b", hardware="h100-sxm", context=512, draft_len=K, acceptance=A,
                 draft_cost=0.05)
    assert e.spec_tokens_per_step == pytest.approx(1 + 0.8 + 0.64 + 0.512 + 0.4096)
    got = e.speculative_tokens_per_second / e.decode_tokens_per_second
    assert got == pytest.approx(3.3616 / 1.2, rel=1e-12)
    assert got == pytest.approx(N.speculative_speedup(acceptance=A, draft_len=K,
                                                      draft_cost=0.05), rel=1e-12)


@pytest.mark.parametrize("batch", [1, 64, 1024])
def test_batched_speedup_matches_chapter_13(batch):
    """The chapter's n / (k c_d + r), r from book.plots.verify_step_ratio, c_d from the draft's
    and the target's bounds on the same chip at the same batch and context (the draft reads a
    cache of its own: its share grows with the batch)."""
    target, chip = get_model("qwen3-8b"), get_hardware("h100-sxm")
    e = estimate(target, hardware=chip, context=512, batch=batch, draft_len=K, acceptance=A,
                 draft="qwen3-0.6b")
    c_d = (estimate("qwen3-0.6b", hardware=chip, context=512, batch=batch)
           .decode_seconds_per_token
           / estimate(target, hardware=chip, context=512, batch=batch).decode_seconds_per_token)
    assert e.draft_cost == pytest.approx(c_d, rel=1e-12)
    # by hand at batch 1: bytes over the same bandwidth, each model's 16-bit weights a step
    # reads and its cache of 512 tokens (layers x 2 x KV heads x head size x 2 B, config.json)
    if batch == 1:
        by_hand = [m.decode_read_params * 2 + 512 * m.n_layers * 2 * m.n_kv_heads * m.d_head * 2
                   for m in (get_model("qwen3-0.6b"), target)]
        assert e.draft_cost == pytest.approx(by_hand[0] / by_hand[1], rel=1e-6)
    r = float(verify_step_ratio(target, chip, "fp16", 512, [batch], K)[0])
    n = N.speculative_tokens_per_step(acceptance=A, draft_len=K)
    want = n / (K * c_d + r)
    assert e.speculative_tokens_per_second / e.decode_tokens_per_second == pytest.approx(
        want, rel=1e-9)
    if batch == 1024:
        assert r > 1.5     # the verify step is compute-bound: the gain shrinks


# DeepSeek-V3's MTP module step by hand, from its config.json (hidden_size d = 7168,
# vocab_size V = 129280, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128,
# qk_rope_head_dim 64, v_head_dim 128, num_attention_heads 128, n_routed_experts 256,
# num_experts_per_tok 8, n_shared_experts 1, moe_intermediate_size 2048) and the module's layout
# in DeepSeek's inference code (the report's section 2.2): enorm and hnorm (d each), eh_proj
# (2d x d), one decoder block, shared_head.norm (d) and the output head (V x d); the token's
# embedding is one gathered row (d).
D, V = 7168, 129_280
MTP_HEAD = V * D                                       # 926,679,040: the 0.93 B of the head
MTP_PROJ = 2 * D * D + 2 * D                           # eh_proj, enorm, hnorm
MTP_OUTSIDE = D + D                                    # shared_head.norm, the embedding row
MTP_ATTN = (D * 1536 + 1536                            # q_a_proj, q_a_layernorm
            + 1536 * 128 * (128 + 64)                  # q_b_proj
            + D * (512 + 64) + 512                     # kv_a_proj_with_mqa, kv_a_layernorm
            + 512 * 128 * (128 + 128)                  # kv_b_proj
            + 128 * 128 * D)                           # o_proj
MTP_EXPERT = 3 * D * 2048                              # gate, up, down of one expert
MTP_ROUTER = 256 * D + 256                             # gate and its e_score_correction_bias
MTP_NORMS = 2 * D                                      # the block's two norms
MTP_CACHE = 512 + 64                                   # latent and rope key, a token


def mtp_step_bytes(batch, context, experts, bytes_per_weight=2, cache_bytes=2):
    """What one step of the module reads for ``batch`` sequences at ``context``: its weights
    (``experts`` routed experts read, the shared one always) and its cache (``cache_bytes`` an
    element)."""
    weights = (MTP_HEAD + MTP_PROJ + MTP_OUTSIDE + MTP_ATTN + MTP_ROUTER + MTP_NORMS
               + (experts + 1) * MTP_EXPERT)
    return weights * bytes_per_weight + batch * context * MTP_CACHE * cache_bytes


# The same module's FLOPs for one token, 2 a weight of its matrix products: the output head,
# the projection eh_proj (2d x d; its two input norms and the head's norm multiply nothing), its
# block's attention matrices (MLA's without the two norms of its latents, 1536 and 512) and its
# MoE's router gate (256 x d), 8 routed experts and the shared one; plus the attention over S
# cached latents in the absorbed form (DeepSeek-V2 report, arXiv 2405.04434, section 2.1: the
# key and value up-projections folded into the query's and the output's), each of the 128 heads
# 2 (512 + 64) FLOPs a position for the scores and 2 x 512 for the weighted latents.
MTP_ATTN_MATMUL = MTP_ATTN - 1536 - 512
MTP_MOE_MATMUL = 256 * D + 9 * MTP_EXPERT
MTP_MATMUL = MTP_HEAD + 2 * D * D + MTP_ATTN_MATMUL + MTP_MOE_MATMUL
# a plain step of DeepSeek-V3 (config.json: 61 layers, the first 3 with a dense MLP of
# intermediate_size 18432, the other 58 MoE as the module's block; untied head)
TARGET_MATMUL = MTP_HEAD + 61 * MTP_ATTN_MATMUL + 3 * 3 * D * 18432 + 58 * MTP_MOE_MATMUL


def mla_attention_flops(context):
    """Attention FLOPs of one DeepSeek-V3 layer for one token over ``context`` cached latents."""
    return 128 * context * 2 * ((512 + 64) + 512)


def test_mtp_module_step_reads_its_projection_block_and_head():
    """A draft step of DeepSeek-V3's MTP module reads the module's projection, its block (the
    MoE's active experts only) and the shared output head, ~1.6 GB at 8 bits against a plain
    step's ~36.6 GB: 0.044 of a step, not one block of the 61 (1/61 = 0.016). Its cost is that
    ratio at the call's bits, context and batch (at batch 8 the module's MoE reads the experts 8
    tokens route to, 256 (1 - (248/256)^8), and the cache of 8 sequences)."""
    e = estimate("deepseek-v3", bits_weight=16, speculation="mtp")
    got = e._plan.get("module_step_bytes")
    assert got == mtp_step_bytes(1, 1, 8) == 3_229_574_784
    assert e.draft_cost == pytest.approx(got / e.decode_step_bytes, rel=1e-12)
    assert e.draft_layers == 1
    e8 = estimate("deepseek-v3", bits_weight=16, speculation="mtp", context=4096, batch=8)
    want = mtp_step_bytes(8, 4096, 256 * (1 - (248 / 256) ** 8))
    assert e8._plan.get("module_step_bytes") == pytest.approx(want, rel=1e-12)
    assert e8.draft_cost == pytest.approx(want / e8.decode_step_bytes, rel=1e-12)
    fp8 = estimate("deepseek-v3", weights="fp8", speculation="mtp")
    assert round(mtp_step_bytes(1, 1, 8, bytes_per_weight=1) / 1e9, 2) == 1.61
    assert round(fp8.decode_step_bytes / 1e9, 1) == 36.6
    assert round(fp8.draft_cost, 3) == 0.044 > round(1 / 61, 3)


def test_nemotron_3_super_module_is_two_layers():
    """Nemotron 3 Super's module is mtp_hybrid_override_pattern "*E": an attention layer and a
    latent MoE layer, each with one norm (config.json: hidden_size d = 4096, vocab_size
    131072, 32 heads and 2 key/value heads of 128, 512 routed experts of 2688 in a latent of
    1024, 22 a token, relu2 (two matrices), a shared expert of 5376). A draft step runs both
    (draft_layers 2, which the forecast charges) and reads them with the projection and the
    head: by hand at 16 bits, one sequence, one cached token."""
    d = 4096
    head, proj, outside = 131_072 * d, 2 * d * d + 2 * d, d + d
    attention = d * 32 * 128 + 2 * d * 2 * 128 + 32 * 128 * d + d
    moe = (22 * 2 * 1024 * 2688            # the routed experts a token reads, in the latent
           + 2 * d * 5376                  # the shared expert
           + 2 * d * 1024                  # the projections into the latent and back
           + 512 * d + 512 + d)            # router, its bias, the norm
    cache = 2 * 2 * 128 * 2                # the attention layer's K and V, 16-bit, a token
    e = estimate("nemotron-3-super", bits_weight=16, speculation="mtp")
    assert e._plan.get("module_step_bytes") == 2 * (head + proj + outside + attention + moe) \
        + cache == 1_563_478_016
    assert e.draft_layers == 2
    assert e.draft_cost == pytest.approx(1_563_478_016 / e.decode_step_bytes, rel=1e-12)
    assert e.draft_cost > 2 / 88


def test_mtp_draft_cost_is_the_module_steps_roofline_time():
    """A draft step of the module is charged its own roofline time over a plain step's: on an
    H200 (4.8 TB/s, NVIDIA's H200 page; fp8 weights and an 8-bit cache, so every product runs
    at the fp8 rate, 1,978.9 TFLOP/s dense, the Hopper whitepaper's figure for the H100 SXM
    whose compute the H200 shares), at 1,024 tokens of context. One sequence: both steps are memory-bound, and the cost is the ratio of their bytes
    (0.044, chapter 13's figure). 8,192 sequences: both are compute-bound, and the cost is the
    ratio of their FLOPs (0.039), twice the ratio of their bytes (0.018): half the module's
    FLOPs are the output head's, which a plain step does once beside 61 layers'."""
    bw, peak, s = 4.8e12, 1978.9e12, 1024
    module_flops = 2 * MTP_MATMUL + mla_attention_flops(s)
    target_flops = 2 * TARGET_MATMUL + 61 * mla_attention_flops(s)
    at = dict(hardware="h200", weights="fp8", bits_kv=8, context=s, speculation="mtp")
    one = estimate("deepseek-v3", **at)
    module_bytes = mtp_step_bytes(1, s, 8, bytes_per_weight=1, cache_bytes=1)
    assert one._plan.get("module_step_flops") == module_flops == 3_514_695_680
    assert module_flops / peak < module_bytes / bw            # memory-bound
    assert one.bound == "memory"
    assert one.draft_cost == pytest.approx(module_bytes / one.decode_step_bytes, rel=1e-12)
    assert round(one.draft_cost, 3) == 0.044
    b = 8192
    big = estimate("deepseek-v3", batch=b, **at)
    # the module's MoE reads every expert the 8,192 tokens route to: 256 (1 - (248/256)^8192)
    module_bytes = mtp_step_bytes(b, s, 256 * (1 - (248 / 256) ** b), bytes_per_weight=1,
                                  cache_bytes=1)
    assert big._plan.get("module_step_flops") == b * module_flops
    assert big._plan.get("decode_step_flops") == b * target_flops
    assert b * module_flops / peak > module_bytes / bw        # compute-bound
    assert big.bound == "compute"
    assert big.draft_cost == pytest.approx(module_flops / target_flops, rel=1e-12)
    assert round(big.draft_cost, 4) == 0.0388
    bytes_ratio = module_bytes / big.decode_step_bytes
    assert round(bytes_ratio, 3) == 0.018 and big.draft_cost > 2 * bytes_ratio
    # the drafts of a speculative step take that share of a plain step's bound
    assert big.speculative_seconds_per_token * big.spec_tokens_per_step == pytest.approx(
        big.draft_cost * big.decode_seconds_per_token
        + big._plan.get("verify_seconds"), rel=1e-12)


def test_mtp_draft_cost_without_a_bandwidth_is_the_bytes_ratio():
    """Without a chip the steps have no time: the cost is the ratio of their bytes, what the
    roofline gives wherever both are memory-bound; a bandwidth alone (no peak) gives the same."""
    kw = dict(bits_weight=8, context=1024, batch=8192, speculation="mtp")
    no_chip = estimate("deepseek-v3", **kw)
    bytes_ratio = no_chip._plan.get("module_step_bytes") / no_chip.decode_step_bytes
    assert no_chip.draft_cost == pytest.approx(bytes_ratio, rel=1e-12)
    assert estimate("deepseek-v3", bandwidth=4.8e12, **kw).draft_cost == pytest.approx(
        bytes_ratio, rel=1e-12)
    assert estimate("deepseek-v3", hardware="h200", **kw).draft_cost > 2 * bytes_ratio


def test_mtp_workload_by_hand():
    """DeepSeek-V3's MTP: one drafted token accepted with 0.85 (its report's lower end), the
    module's step (its projection, block and the output head) as the draft: with a prompt, at
    the request's mean decode context 1024 + (2048 + 1)/2, as TPOT's step."""
    e = estimate("deepseek-v3", hardware="h200", weights="fp8", tp=8, prompt=1024,
                 generate=2048, speculation="mtp")
    assert (e.draft_len, e.acceptance) == (1, 0.85)
    # a plain step's bytes are linear in the context (MLA, no window): the mean of 2048 and 2049
    plain = sum(estimate("deepseek-v3", weights="fp8", context=s).decode_step_bytes
                for s in (2048, 2049)) / 2
    module = mtp_step_bytes(1, 2048.5, 8, bytes_per_weight=1)
    assert e.draft_cost == pytest.approx(module / plain, rel=1e-12)
    c = e.draft_cost
    assert e.spec_tokens_per_step == pytest.approx(1.85)
    # batch 1 stays memory-bound, but the verify step runs 2 tokens, which route as a batch of
    # 2 does (decision 3: E (1 - (1 - k/E)^B) experts a layer): 256 (1 - (248/256)^2) = 15.75
    # of the 256 routed experts in each of the 58 MoE layers (config.json: 61 layers, the
    # first 3 dense), not 8, each 3 x 7168 x 2048 weights of one byte (fp8); the cache is
    # read once. On one chip (4.8 TB/s; the bound, though it does not hold the model):
    extra = (256 * (1 - (248 / 256) ** 2) - 8) * 58 * 3 * 7168 * 2048 * 1
    verify = (e.decode_step_bytes + extra) / 4.8e12
    assert e.speculative_seconds_per_token == pytest.approx(
        (e.decode_seconds_per_token * c + verify) / 1.85, rel=1e-12)
    # on 8 chips the verify step costs 1.44 plain steps, not one; there each chip also reads
    # its own copy of what vLLM holds whole (tests/test_tp_copies.py): per layer the latent
    # down-projections 7168 x (1536 + 512 + 64) and their norms, per MoE layer the router and
    # its biases, the norms: 7 copies more in the group, one byte each
    copies = 7 * (61 * (7168 * 2112 + 2048) + 58 * (256 * 7168 + 256) + 123 * 7168)
    # (the drafts at the module's share of a step on one chip of the 8, module_chip_cost:
    # test_mtp_draft_cost_on_a_replica_is_one_chips_ratio)
    ratio = e.speculative_tpot_seconds * 1.85 / e.tpot_seconds - e._plan.get("module_chip_cost")
    assert ratio == pytest.approx((e.decode_step_bytes + copies + extra)
                                  / (e.decode_step_bytes + copies), rel=0.02)
    assert e.speculative_tokens_per_second_per_chip == pytest.approx(
        1 / e.speculative_tpot_seconds / 8)


def test_request_cost_and_energy_at_the_speculative_rate():
    """With speculation the request, its cost and its energy have speculative twins, by hand
    from the speculative TPOT t_s of one stream on 8 chips at $3 per chip-hour and P W each:
    the request is TTFT + 2048 t_s, a million tokens take 10^6 t_s seconds of 8 chip-hours'
    worth of $3/3600 a second, and a token takes 8 P t_s joules. The plain keys keep the plain
    TPOT. ``plan`` prices a speculative point at this same rate (deploy.search's cost)."""
    from llm_arithmetic.deploy import search

    e = estimate("deepseek-v3", hardware="h200", weights="fp8", tp=8, prompt=1024,
                 generate=2048, speculation="mtp", price_per_hour=3.0)
    t_s = e.speculative_tpot_seconds
    assert e.speculative_request_seconds == pytest.approx(e.ttft_seconds + 2048 * t_s,
                                                          rel=1e-12)
    assert e.speculative_cost_per_million_tokens == pytest.approx(8 * 3.0 / 3600 * 1e6 * t_s,
                                                                  rel=1e-12)
    assert e.speculative_energy_joules_per_token == pytest.approx(8 * e.power_watts * t_s,
                                                                  rel=1e-12)
    assert e.cost_per_million_tokens == pytest.approx(8 * 3.0 / 3600 * 1e6 * e.tpot_seconds,
                                                      rel=1e-12)
    plain = estimate("deepseek-v3", hardware="h200", weights="fp8", tp=8, prompt=1024,
                     generate=2048, price_per_hour=3.0)
    assert plain.speculative_cost_per_million_tokens is None
    assert plain.speculative_request_seconds is None
    kw = dict(hardware="h100-sxm", weights="bf16", prompt=1024, generate=256)
    s = search("qwen3-8b", ttft=1.0, tpot=0.05, hardware=["h100-sxm"], weights=["bf16"],
               kv_bits=[16], degrees=[1], max_batch=16, price_per_hour=2.0, prompt=1024,
               generate=256, draft_len=3, acceptance=0.7, draft_cost=0.05)
    c, = s.configurations
    q = estimate("qwen3-8b", batch=c["batch"], context=1024, price_per_hour=2.0,
                 draft_len=3, acceptance=0.7, draft_cost=0.05, **kw)
    assert c["cost_per_million_tokens"] == pytest.approx(q.speculative_cost_per_million_tokens,
                                                         rel=1e-12)
    rc, out, _ = _cli("describe", "qwen3-8b", "--hardware", "h100-sxm", "--prompt", "1024",
                      "--generate", "256", "--batch", str(c["batch"]), "--price-per-hour", "2",
                      "--draft-len", "3", "--acceptance", "0.7", "--draft-cost", "0.05")
    row, = [r for r in out.splitlines() if r.startswith("cost per million tokens, speculative")]
    assert rc == 0 and row.split()[-1] == f"${c['cost_per_million_tokens']:,.3f}"


def test_a_draft_whose_bound_is_not_counted_is_refused_in_one_line(uncounted_cache):
    """A model whose cache is not modelled (DeepSeek-V4 Flash as it was, see the fixture) has
    no bound (null), and a draft cost relative to it cannot be: describe raised a TypeError
    (None / float) for it as the draft or the target, and plan found 'no configuration' (a
    NaN cost at every point). Both refuse it, naming the model."""
    from llm_arithmetic.deploy import search

    v4 = uncounted_cache
    for target, draft, role in (("qwen3-8b", v4, "the draft's"), (v4, "qwen3-0.6b",
                                                                  "the target's")):
        with pytest.raises(InputError, match=f"{role} \\(deepseek-v4-flash\\) is not counted"), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")   # the target's own 'not counted' warning
            estimate(target, hardware="h200", prompt=100, draft=draft, draft_len=2,
                     acceptance=0.5)
    with pytest.raises(InputError, match="the draft's \\(deepseek-v4-flash\\) is not counted"):
        search("qwen3-8b", ttft=1.0, tpot=0.1, hardware=["h200"], draft=v4, draft_len=2,
               acceptance=0.5)
    rc, out, err = _cli("describe", str(v4), "--hardware", "h200", "--prompt", "100",
                        "--draft", "qwen3-0.6b", "--draft-len", "2", "--acceptance", "0.5")
    assert rc == 2 and out == "" and "Traceback" not in err
    assert err.splitlines()[-1].startswith("llm_arithmetic: error: --draft: ")


def test_no_speculation_no_keys_and_bound_keys_unchanged():
    plain = estimate("llama-2-7b", hardware="a100-80gb-sxm", context=1000)
    spec = estimate("llama-2-7b", hardware="a100-80gb-sxm", context=1000, draft_len=3,
                    acceptance=0.6)
    assert plain.speculative_tokens_per_second is None and plain.spec_tokens_per_step is None
    for k in ("decode_seconds_per_token", "decode_tokens_per_second", "tpot_seconds"):
        assert getattr(plain, k) == getattr(spec, k)


@pytest.mark.parametrize("kwargs, match", [
    (dict(draft_len=4), "acceptance: give the acceptance rate"),
    (dict(draft_len=4, acceptance=1.0), "acceptance must be in"),
    (dict(draft_len=4, acceptance=float("nan")), "acceptance must be in"),
    (dict(acceptance=0.5), "draft_len"),
    (dict(draft_len=0, acceptance=0.5), "draft_len must be a positive integer"),
    (dict(draft_len=4, acceptance=0.5, draft_cost=-1), "draft_cost must be non-negative"),
    (dict(draft_len=4, acceptance=0.5, draft_cost=0.1, draft="qwen3-0.6b"), "not both"),
    (dict(speculation="medusa"), "unknown workload 'medusa'; known: mtp"),
    (dict(speculation=["mtp"]), "speculation: unknown workload .*; known: mtp"),
])
def test_bad_speculative_inputs_name_the_field(kwargs, match):
    with pytest.raises(InputError, match=match):
        estimate("qwen3-8b", hardware="h100-sxm", **kwargs)


def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return rc, out.getvalue(), err.getvalue()


def test_cli_speculative_options():
    rc, out, _ = _cli("describe", "qwen3-8b", "--hardware", "h100-sxm", "--draft-len", "4",
                      "--acceptance", "0.8", "--draft", "qwen3-0.6b", "--prompt", "512")
    assert rc == 0 and "tokens/s per sequence, speculative (bound)" in out
    assert "time per output token, speculative" in out
    for bad in (["--acceptance", "1"], ["--draft-len", "0"], ["--draft-len", "2"],
                ["--speculation", "eagle"]):
        rc, _, err = _cli("describe", "qwen3-8b", "--hardware", "h100-sxm", *bad)
        assert rc == 2 and err.count("\n") == 1, bad


@pytest.mark.parametrize("runtime", [None, "llama.cpp"])
def test_forecast_sits_under_the_speculative_bound(runtime):
    d = forecast("qwen3-8b", hardware="h100-sxm", context=512, prompt=512, generate=256,
                 draft_len=K, acceptance=A, draft_cost=0.05, runtime=runtime)
    plain = forecast("qwen3-8b", hardware="h100-sxm", context=512, prompt=512, generate=256,
                     runtime=runtime)
    for key, bound in SPECULATIVE_BOUND_KEYS.items():
        lo, hi = d[key + "_range"]
        assert lo <= d[key] <= hi
        if key.endswith("seconds"):
            assert d[bound] <= lo * (1 + 1e-12)
        else:
            assert hi <= d[bound] * (1 + 1e-12)
    # speculation speeds the forecast up too; its fixed costs per step are shared by the n
    # tokens a step yields, so its speed-up may exceed the bound's: (n (t + c)) / (s t + c)
    up = d["expected_decode_tokens_per_second"] / plain["expected_decode_tokens_per_second"]
    assert 1 < up < d["spec_tokens_per_step"]


def test_forecast_charges_the_drafts_blocks():
    """A speculative forecast pays the per-layer cost (kernel launches) of every block a step
    runs: the verify step's L and the drafts' gamma L_d, with L_d from the draft's config.json
    (Qwen3 0.6B: num_hidden_layers 28) and L from the target's (Qwen3 8B: 36). By hand from the
    registered forecast formula with the fitted terms; a draft given by its cost alone charges
    no blocks of its own."""
    import llm_arithmetic.forecast as F
    import llm_arithmetic.forecast_fit as FF
    kw = dict(hardware="rtx-4090", weights="q4_k_m", context=1024, draft_len=K, acceptance=A)
    d = F.forecast("qwen3-8b", runtime="llama.cpp", draft="qwen3-0.6b", **kw)
    assert d["draft_layers"] == 28
    v = FF.terms_for(FF.load_params()["by_runtime"], "consumer-gpu", "llama.cpp")
    e = estimate("qwen3-8b", draft="qwen3-0.6b", **kw)
    n = e.spec_tokens_per_step
    step = N.forecast_step_time(step_time=e.speculative_seconds_per_token * n,
                                overhead_fraction=v["k"], dequant_fraction=v["delta"],
                                dequant_time=FF.estimate_dequant_seconds(e),
                                fixed_time=v["tau_s"], layer_time=v["lambda_s_per_layer"],
                                n_layers=36 + K * 28)
    assert d["expected_decode_tokens_per_second"] == pytest.approx(n / step, rel=1e-12)
    # the same draft cost given as a number: the drafts' blocks are not charged, and the
    # forecast is faster by exactly their launches
    c = F.forecast("qwen3-8b", runtime="llama.cpp", draft_cost=e.draft_cost, **kw)
    assert c["draft_layers"] is None
    gap = n / c["expected_decode_tokens_per_second"] - n / d["expected_decode_tokens_per_second"]
    assert gap == pytest.approx(-K * 28 * v["lambda_s_per_layer"], rel=1e-9)


@pytest.mark.parametrize("model,declares", [
    ("mistral-7b", False), ("qwen3-8b", False),
    # the catalog's config.json files: DeepSeek-V3 num_nextn_predict_layers 1, Qwen3.5 27B
    # text_config.mtp_num_hidden_layers 1, Nemotron 3 Super num_nextn_predict_layers 1
    ("deepseek-v3", True), ("qwen3.5-27b", True), ("nemotron-3-super", True),
    # MiniMax M2.5 (use_mtp true, num_mtp_modules 3) declares modules its reader does not
    # count: refused too, naming the field (tests/test_engine_draft.py)
    ])
def test_mtp_workload_needs_a_model_that_declares_an_mtp_module(model, declares):
    """--speculation mtp takes DeepSeek-V3's published acceptance of its own MTP module and one
    of the target's blocks as the draft; a model whose config.json declares no MTP layers has
    no such module, so the workload is refused (one line naming the config fields and the
    explicit alternatives), not silently applied with a generic one-block draft."""
    import json

    from llm_arithmetic.catalog.model_catalog import DATA_PATH

    cfg = json.loads((DATA_PATH.parent / "models" / model / "config.json").read_text())
    text = cfg.get("text_config", cfg)
    fields = ("num_nextn_predict_layers", "mtp_num_hidden_layers")
    assert (any(text.get(f) for f in fields)
            or bool(text.get("use_mtp") and text.get("num_mtp_modules"))) == declares
    if declares:
        assert estimate(model, hardware="h200", speculation="mtp").draft_len == 1
        return
    with pytest.raises(InputError, match="num_nextn_predict_layers, mtp_num_hidden_layers, "
                                         "num_mtp_modules"):
        estimate(model, hardware="h100-sxm", speculation="mtp")
    rc, out, err = _cli("describe", model, "--hardware", "h100-sxm", "--speculation", "mtp")
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert f"{model} declares none" in err and "--draft-len, --acceptance" in err \
        and "--draft)" in err


# ---- MTP modules the reader does not count --------------------------------------------------
# MiniMax-M2.5's config.json: use_mtp true, num_mtp_modules 3, mtp_transformer_layers 1 (no
# reference implementation of their layout was found: transformers builds none, vLLM has no
# minimax_m2 MTP); MiniMax-M3's: num_mtp_modules 7, num_nextn_predict_layers 1, and the
# checkpoint ships no mtp.* tensor (tests/configs/FAMILIES.md, minimax-m3).

@pytest.mark.parametrize("model,n", [("minimax-m2.5", 3), ("minimax-m3", 7)])
def test_mtp_workload_refuses_modules_the_reader_does_not_count(model, n):
    with pytest.raises(InputError, match=rf"the {n} that {model}'s config.json declares "
                                         r"\(field 'num_mtp_modules'\) are not counted"):
        estimate(model, hardware="h200", speculation="mtp")
    rc, out, err = _cli("describe", model, "--hardware", "h200", "--tp", "8",
                        "--speculation", "mtp")
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "field 'num_mtp_modules'" in err and "--draft-len, --acceptance" in err


def test_mtp_workload_with_a_draft_model_does_not_need_the_module_counted():
    """With a draft model the module holds nothing: the workload's acceptance applies and the
    draft's weights are what is held. (The draft was Qwen3-0.6B, whose 151,936-id vocabulary
    cannot be MiniMax-M2.5's 200,064: such a draft is refused now, test_draft_checks.py; the
    draft is MiniMax-M3's smaller sibling M2.5, whose config gives the same vocab_size.)"""
    e = estimate("minimax-m3", hardware="h200", tp=8, speculation="mtp",
                 draft="minimax-m2.5")
    # more than MiniMax-M2.5's 228,689,764,864 published parameters at one byte each (it
    # ships in fp8): its bf16 parts and its cache as well
    assert e.acceptance == 0.85 and e.draft_memory_bytes > 228_689_764_864


def test_mtp_workload_counts_a_module_the_reader_counts():
    """DeepSeek-V3's module (13,463,426,304 parameters, derived in tests/test_draft_memory.py)
    less its copies of the target's embedding table and head, which vLLM shares (129,280 x
    7,168 each), at fp8, one byte each, and one MLA layer's cache of one token: (512 + 64) x
    2 B."""
    e = estimate("deepseek-v3", hardware="h200", tp=8, weights="fp8", speculation="mtp")
    assert e.draft_memory_bytes == 13_463_426_304 - 2 * 129_280 * 7168 + (512 + 64) * 2


def test_mtp_draft_cost_on_a_replica_is_one_chips_ratio():
    """Under tensor parallelism a draft step of the module costs what it costs one chip of the
    group: DeepSeek-V3 at fp8 with an 8-bit cache on 8 H200s, one sequence at 1,024 tokens
    (both steps memory-bound on a chip). Each chip reads 1/8 of what the group holds: the
    weights the step reads (by hand below, one byte each), 7 more copies of what vLLM holds
    whole on every chip (per MLA block the latent down-projections 7168 x (1536 + 512 + 64) and
    their two norms, per MoE block the router and its bias, each block's two norms, the final
    norm; tests/test_tp_copies.py; and the module's enorm, hnorm and eh_proj, 2d + 2d^2, which
    vLLM's deepseek_mtp.py builds unsplit, eh_proj a plain nn.Linear), and the latent cache,
    which every chip keeps whole (576 elements a token a layer). The module's share (its
    projection, one block, the head) is 0.0557 of a plain step's there, where one chip holding
    all gives 0.0441: each chip reads the whole 2d x d projection beside 1/8 of the rest. The
    replica's draft steps take that share of its TPOT."""
    s = 1024
    router, mla = MTP_ROUTER, D * 2112 + 2048
    module_w = MTP_HEAD + MTP_PROJ + MTP_OUTSIDE + MTP_ATTN + router + MTP_NORMS \
        + 9 * MTP_EXPERT
    target_w = (MTP_HEAD + D + D                      # head, an embedding row, the final norm
                + 61 * (MTP_ATTN + MTP_NORMS)         # 61 MLA blocks with their two norms
                + 3 * 3 * D * 18432                   # 3 dense MLPs
                + 58 * (router + 9 * MTP_EXPERT))     # 58 MoE blocks, 8 routed + 1 shared
    cache = MTP_CACHE * s                             # one layer's latent cache, one byte each
    one = estimate("deepseek-v3", hardware="h200", weights="fp8", bits_kv=8, context=s,
                   speculation="mtp")
    assert one.decode_step_bytes == target_w + 61 * cache
    assert one.draft_cost == pytest.approx((module_w + cache) / (target_w + 61 * cache),
                                           rel=1e-12)
    e = estimate("deepseek-v3", hardware="h200", weights="fp8", bits_kv=8, context=s, tp=8,
                 speculation="mtp")
    module_copies = 7 * (mla + router + 3 * D         # its block, its norms, the head's norm
                         + 2 * D + 2 * D * D)         # enorm, hnorm, eh_proj
    target_copies = 7 * (61 * mla + 58 * router + 123 * D)
    module_chip = (module_w + module_copies + 8 * cache) / 8
    target_chip = (target_w + target_copies + 8 * 61 * cache) / 8
    ratio = module_chip / target_chip
    assert e._plan.get("module_chip_cost") == pytest.approx(ratio, rel=1e-12)
    assert round(ratio, 4) == 0.0557 and round(one.draft_cost, 4) == 0.0441
    assert e.draft_cost == pytest.approx(one.draft_cost, rel=1e-12)   # the one-chip bound's
    assert e.speculative_tpot_seconds * e.spec_tokens_per_step == pytest.approx(
        e.draft_len * ratio * e.tpot_seconds + e._plan.get("verify_tpot_seconds"), rel=1e-12)
    # at tp 1 the two ratios are one
    assert one._plan.get("module_chip_cost") == pytest.approx(one.draft_cost, rel=1e-12)


def test_mtp_step_reads_the_module_at_its_own_bits():
    """A draft step reads the module's own weights at the bits its checkpoint stores them in,
    the output head it shares with the model at the head's own bits, and the rest it shares
    (the head's norm, one embedding row) at the model's. NVIDIA's DeepSeek-V3.1-NVFP4 excludes
    ``model.layers.61*`` and ``lm_head`` from NVFP4 (nvidia/DeepSeek-V3.1-NVFP4
    ``hf_quant_config.json``, vendored byte for byte in tests/configs/modelopt/ from
    ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce
    ``aic-core/src/aiconfigurator_core/model_configs/``; tests/configs/SOURCES.md section 14):
    its module is bf16, two bytes a weight: eh_proj with enorm and hnorm, the MLA block with
    its norms, the router with its bias, 8 routed experts and the shared one; so is its head.
    On 8 H200s with the checkpoint's fp8 cache, one sequence at 1,024 tokens, the group moves,
    besides those: the head in bf16, its norm and the row at the model's bits for the weights
    but the experts', 7 more copies in bf16 of what every chip holds whole (eh_proj, enorm and
    hnorm, which vLLM builds unsplit; the block's latent down-projections
    7168 x (1536 + 512 + 64) with their norms, the router and bias, the block's two norms and
    the final norm: the module's own, bf16), and the latent cache on each of the 8 chips. The
    module's share of a plain step on a chip is 0.1144 (0.0935 with the head read at the
    model's mean 8.25 bits, 0.0579 with the module read at the model's NVFP4 bits too).
    DeepSeek-V3's fp8 module stores eh_proj in bf16 (tests/configs/FAMILIES.md): its 7 copies
    are 2 bytes a weight."""
    import json
    from fractions import Fraction
    from pathlib import Path

    path = Path(__file__).parent / "configs" / "modelopt" / "deepseek-v3.1-nvfp4"
    quant = json.loads((path / "hf_quant_config.json").read_text())["quantization"]
    assert "model.layers.61*" in quant["exclude_modules"] and "lm_head" in quant["exclude_modules"]
    s = 1024
    e = estimate(str(path / "config.json"), hardware="h200", tp=8, context=s, bits_kv=8,
                 speculation="mtp")
    plan = e._plan
    own = 2 * (MTP_PROJ + MTP_ATTN + MTP_NORMS + MTP_ROUTER + 9 * MTP_EXPERT)
    shared = 2 * MTP_HEAD + Fraction(2 * D) * Fraction(plan.get("native_bits_default")) / 8
    copies = 2 * 7 * (2 * D + 2 * D * D + D * 2112 + 2048 + MTP_ROUTER + 3 * D)
    module_chip = own + shared + copies + 8 * s * MTP_CACHE
    assert plan.get("module_chip_bytes") == pytest.approx(float(module_chip), rel=1e-12)
    share = float(module_chip) / plan.get("target_chip_bytes")
    assert e.draft_chip_cost == pytest.approx(share, rel=1e-12) and round(share, 4) == 0.1144
    # at one chip: one copy and one cache
    one = estimate(str(path / "config.json"), hardware="h200", context=s, bits_kv=8,
                   speculation="mtp")
    assert one._plan.get("module_step_bytes") == pytest.approx(
        float(own + shared + s * MTP_CACHE), rel=1e-12)
    v3 = estimate("deepseek-v3", hardware="h200", tp=8, context=s, speculation="mtp")
    assert v3._plan.get("module_input_copy_bytes") == 7 * (2 * D + 2 * D * D) * 2


def test_describe_prints_the_draft_cost_it_charges():
    """describe's speculation line names the draft cost the speculative figures use: on a
    tensor-parallel replica one chip's share of the group's step (``draft_chip_cost``, which
    ``speculative_tpot_seconds`` charges), beside the one-chip bound's; at one chip the one
    cost. DeepSeek-V3 in fp8 with an 8-bit cache at 1,024 tokens: 0.0557 on a chip of 8 H200s,
    0.0441 on one (test_mtp_draft_cost_on_a_replica_is_one_chips_ratio)."""
    at = ("--hardware", "h200", "--weights", "fp8", "--kv-bits", "8", "--context", "1024",
          "--speculation", "mtp")
    rc, out, _ = _cli("describe", "deepseek-v3", *at, "--tp", "8")
    assert rc == 0
    assert ("draft cost 0.0557 on a chip of the tp 8 group, as charged (0.0441 on one chip "
            "alone)") in out
    rc, out, _ = _cli("describe", "deepseek-v3", *at)
    assert rc == 0 and "draft cost 0.0441: 1.850 tokens a step" in out


def _module_step(e):
    """The plan at a module's draft step (the inputs MODULE_STEP changes), for its parts."""
    from llm_arithmetic.plan.steps import MODULE_STEP

    ev = e._plan
    return ev.child(**{k: ev.get(v) for k, v in MODULE_STEP.items()})


def test_mtp_module_copies_at_its_own_bits():
    """Under tensor parallelism a draft step moves the module's copies at the bits its
    checkpoint stores the module in, not the model's. nvidia/Qwen3.6-27B-NVFP4
    (``hf_quant_config.json`` and ``config.json``, vendored in tests/configs/modelopt/ from
    ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce
    ``aic-core/src/aiconfigurator_core/model_configs/``; tests/configs/SOURCES.md section 14)
    lists the model's attention projections in FP8 (per tensor: a byte a weight, two fp32
    scalars a matrix) and excludes ``mtp*``: its module is bf16 (the 15 ``mtp.*`` tensors of
    the checkpoint's headers, SOURCES.md section 14). Its config: hidden_size 5,120, 4 KV
    heads of head_dim 256, one module (mtp_num_hidden_layers 1) whose block is full attention,
    and a full-attention layer every 4 of 64. On 8 chips each holds one KV head, so the group
    holds the key and value projections (1,024 x 5,120 each) twice: one extra copy, 10,485,760
    parameters, 2 bytes each in the module; the model's 16 such layers' extra copies are 1 byte
    a weight and 8 bytes a matrix. What the replica holds of the module's copies is priced
    so too: those heads, and 7 more copies of the block's norms (two of 5,120, q_norm and
    k_norm of 256), all bf16.

    DeepSeek-V3's fp8 module (tests/configs/FAMILIES.md: every block matrix float8_e4m3 with
    an fp32 scale a 128 x 128 block; norms and routers bf16, the correction bias fp32): on 8
    chips 7 more copies of q_a_proj (1,536 x 7,168: 12 x 56 scales) and kv_a_proj_with_mqa
    (576 x 7,168: 5 x 56), of the router (256 x 7,168) and its bias (256), and of the norms
    (1,536 + 512 + 2 x 7,168)."""
    import json

    path = CONFIGS / "modelopt" / "qwen3.6-27b-nvfp4"
    cfg = json.loads((path / "config.json").read_text())["text_config"]
    quant = json.loads((path / "hf_quant_config.json").read_text())["quantization"]
    assert (cfg["hidden_size"], cfg["num_key_value_heads"], cfg["head_dim"]) == (5120, 4, 256)
    assert (cfg["num_hidden_layers"], cfg["full_attention_interval"]) == (64, 4)
    assert cfg["mtp_num_hidden_layers"] == 1 and "mtp*" in quant["exclude_modules"]
    kv = [k for k in quant["quantized_layers"] if k.endswith(("self_attn.k_proj",
                                                              "self_attn.v_proj"))]
    assert len(kv) == 32 and {quant["quantized_layers"][k]["quant_algo"] for k in kv} == {"FP8"}
    assert not any(".mtp." in k or k.startswith("mtp") for k in quant["quantized_layers"])
    e = estimate(str(path / "config.json"), hardware="h200", tp=8, context=1024,
                 speculation="mtp")
    step = _module_step(e)
    extra = 2 * 1024 * 5120
    assert step.get("copies_heads") == extra
    assert step.get("copy_bytes_heads") == 2 * extra                  # bf16
    assert e._plan.get("copy_bytes_heads") == 16 * (extra + 2 * 8)    # the model's, FP8
    assert e.draft_copy_bytes == 2 * (extra + 7 * (2 * 5120 + 2 * 256))
    v3 = estimate("deepseek-v3", hardware="h200", tp=8, context=1024, speculation="mtp")
    fp8 = (1536 + 576) * D + (12 + 5) * 56 * 4
    router = 256 * D * 2 + 256 * 4
    norms = (1536 + 512 + 2 * D) * 2
    assert v3.draft_copy_bytes == 7 * (fp8 + router + norms) == 131_925_024


def test_mtp_step_runs_at_the_modules_own_peak():
    """A draft step's products run in the format of the module's weights: 16-bit where the
    checkpoint keeps the module unquantized, whatever the model's. nvidia/DeepSeek-V3.1-NVFP4
    runs the model in NVFP4 (weights and activations) and excludes ``model.layers.61*`` (its
    hf_quant_config.json, tests/configs/SOURCES.md section 14): on a B200 the model's products
    take the fp4 dense rate, 9 PFLOP/s, the module's the 16-bit dense rate, 2.25 PFLOP/s
    (NVIDIA's HGX B200 specifications, https://www.nvidia.com/en-us/data-center/hgx/: 18 and
    4.5 PFLOPS sparse a GPU, half dense). DeepSeek-V3's fp8 file quantizes the module's block
    as the model's (tests/configs/FAMILIES.md): both at the fp8 dense rate, 4.5 PFLOP/s. With
    the weights asked at 16 bits both run at 16 bits."""
    path = CONFIGS / "modelopt" / "deepseek-v3.1-nvfp4" / "config.json"
    e = estimate(str(path), hardware="b200", tp=8, context=1024, bits_kv=8, speculation="mtp")
    assert e._plan.get("peak_flops") == 9e15
    step = _module_step(e)
    assert step.get("peak_flops") == 2.25e15
    # the FLOPs of the module's step on the group take the module's rate
    assert e._plan.get("module_chip_peak") == step.get("serving_peak_or_inf")
    v3 = estimate("deepseek-v3", hardware="b200", tp=8, context=1024, speculation="mtp")
    assert v3._plan.get("peak_flops") == _module_step(v3).get("peak_flops") == 4.5e15
    asked = estimate(str(path), hardware="b200", weights="bf16", speculation="mtp")
    assert asked._plan.get("peak_flops") == _module_step(asked).get("peak_flops") == 2.25e15


def test_mtp_shared_head_at_its_own_bits():
    """The output head a draft step shares with the model is read at the bits the checkpoint
    stores it in, not at the mean of the model's weights but the experts'. DeepSeek-V3's fp8
    file keeps lm_head in bf16 (tests/configs/FAMILIES.md: the Hub's element count of
    deepseek-ai/DeepSeek-V3 matches only with no scale tensor for the head): 2 bytes a weight
    of its 129,280 x 7,168. nvidia/Qwen3.6-27B-NVFP4 lists ``lm_head`` in W4A16_NVFP4
    (hf_quant_config.json, SOURCES.md section 14: a U8 weight [out, in/2], an F8_E4M3 scale
    [out, in/16], two F32 scalars): its 248,320 x 5,120 head is V d / 2 + V d / 16 + 8 bytes,
    fewer than at the model's mean 5.68 bits. Bits asked (4) apply to the head too."""
    e = estimate("deepseek-v3", hardware="h200", context=1024, speculation="mtp")
    assert _module_step(e).get("step_weight_read_head") == 2 * MTP_HEAD
    asked = estimate("deepseek-v3", hardware="h200", context=1024, bits_weight=4,
                     speculation="mtp")
    assert _module_step(asked).get("step_weight_read_head") == MTP_HEAD // 2
    # the model's own step reads no head apart
    assert e._plan.get("step_weight_read_head") == 0
    path = CONFIGS / "modelopt" / "qwen3.6-27b-nvfp4" / "config.json"
    q = estimate(str(path), hardware="h200", context=1024, speculation="mtp")
    v, d = 248_320, 5120
    assert _module_step(q).get("step_weight_read_head") == v * d // 2 + v * d // 16 + 8
