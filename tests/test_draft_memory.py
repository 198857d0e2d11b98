"""Speculative decoding's memory: the draft model's weights and cache, or the MTP module's, are
held beside the target's and counted in every memory figure (memory per chip, fits, max batch,
max context), as the plan's draft steps compute them.

Every expected value is derived here from the configs' fields and the chips' published
capacities, not read from the code under test:

* Qwen3-8B (https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json): 36 layers, 8
  key/value heads of 128; 8,190,735,360 parameters (HF safetensors metadata, tabulated in
  debaditc/kvfit scripts/build_registry.py @ bd4ccabf; tests/configs/SOURCES.md), bf16.
* Qwen3-0.6B (https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json): 28 layers, 8
  key/value heads of 128; 596,049,920 parameters (keras-hub preset qwen3_0.6b_en metadata;
  tests/configs/SOURCES.md), bf16.
* H100 SXM: 80 GiB = 85,899,345,920 B (NVIDIA's datasheet, 80GB HBM3; nvidia-smi shows
  81,559 MiB, the nominal binary figure is taken). H200: 141 GiB = 151,397,597,184 B.
* DeepSeek-V3 (https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json): its one
  MTP module (num_nextn_predict_layers = 1) is, in DeepSeek's layout (README_WEIGHTS.md; the
  checkpoint's layer 61), enorm and hnorm (d each), eh_proj (2d x d), one MoE decoder block,
  shared_head.norm (d), its own embedding table and output head (V x d each): 13,463,426,304
  parameters, which with the main model's and the fp8 scales' sums to the Hub's element total
  (tests/configs/SOURCES.md, row deepseek-v3.json). Its MLA cache per token and layer is
  (kv_lora_rank + qk_rope_head_dim) x 2 B, kept whole on every tensor-parallel chip. vLLM does
  not hold the module's copies of the embedding table and head: it replaces them with the
  model's (vllm-project/vllm@82720b1ed4712ddebb597acdbcff752db48a76c1,
  vllm/v1/spec_decode/llm_base_proposer.py, _maybe_share_embeddings on one pipeline stage,
  _maybe_share_lm_head always); under pipeline parallelism it loads the module's embedding
  table apart, which the checkpoint stores in bf16: the Hub's element count is matched only with
  fp8 scales for the module's transformer layer (702,264) and none for its embed_tokens or
  shared_head.head (56,560 each if they were fp8; tests/configs/FAMILIES.md, DeepSeek-V3).
"""
from __future__ import annotations

import pytest

from llm_arithmetic import estimate
from llm_arithmetic.deploy import search

GIB = 2 ** 30
H100 = 80 * GIB                                 # 85,899,345,920 B
H200 = 141 * GIB                                # 151,397,597,184 B
TARGET_W = 8_190_735_360 * 2                    # Qwen3-8B, bf16: 16,381,470,720 B
DRAFT_W = 596_049_920 * 2                       # Qwen3-0.6B, bf16: 1,192,099,840 B
TARGET_KV = 36 * 2 * 8 * 128 * 2                # layers x (K, V) x heads x size x 2 B: 147,456
DRAFT_KV = 28 * 2 * 8 * 128 * 2                 # 114,688
PROMPT, GENERATE = 1000, 200
FINAL = PROMPT + GENERATE                       # tokens cached at the end of a request

# the context describe takes with --prompt (the one-chip rows are at the prompt)
EXAMPLE = dict(hardware="h100-sxm", prompt=PROMPT, generate=GENERATE, context=PROMPT)
DRAFT = dict(draft="qwen3-0.6b", draft_len=4, acceptance=0.8)


def test_the_audits_example_counts_the_drafts_weights_and_cache():
    """describe qwen3-8b --hardware h100-sxm --prompt 1000 --generate 200 --draft qwen3-0.6b
    --draft-len 4 --acceptance 0.8 reported 392 sequences, the target's alone."""
    assert TARGET_W == 16_381_470_720 and DRAFT_W == 1_192_099_840
    assert (TARGET_KV, DRAFT_KV) == (147_456, 114_688)
    e = estimate("qwen3-8b", **EXAMPLE, **DRAFT)
    want = (H100 - TARGET_W - DRAFT_W) // (FINAL * (TARGET_KV + DRAFT_KV))
    assert want == 217
    assert e.max_batch_per_replica == want
    assert e.memory_per_chip_bytes == TARGET_W + DRAFT_W + FINAL * (TARGET_KV + DRAFT_KV)
    # one chip at the context the table shows (the prompt) and one sequence
    assert e.draft_memory_bytes == DRAFT_W + PROMPT * DRAFT_KV
    assert e.memory_required_bytes == TARGET_W + DRAFT_W + PROMPT * (TARGET_KV + DRAFT_KV)
    assert e.fits
    assert e.max_batch == (H100 - TARGET_W - DRAFT_W) // (PROMPT * (TARGET_KV + DRAFT_KV))
    assert e.max_context == (H100 - TARGET_W - DRAFT_W) // (TARGET_KV + DRAFT_KV)


def test_without_a_draft_the_memory_is_the_targets_alone():
    """A draft-free estimate is unchanged, and so is one whose draft is given by its cost
    alone (nothing known of what it holds)."""
    plain = estimate("qwen3-8b", **EXAMPLE)
    want = (H100 - TARGET_W) // (FINAL * TARGET_KV)
    assert want == 392
    assert plain.max_batch_per_replica == want
    assert plain.memory_per_chip_bytes == TARGET_W + FINAL * TARGET_KV
    assert plain.memory_required_bytes == TARGET_W + PROMPT * TARGET_KV
    assert plain.max_context == (H100 - TARGET_W) // TARGET_KV
    # no draft held: the draft's figures are None, as the engine view's draft keys are
    assert plain.draft_memory_bytes is None
    assert plain.fits_without_draft is None and plain.fits_per_chip_without_draft is None
    costed = estimate("qwen3-8b", **EXAMPLE, draft_len=4, acceptance=0.8, draft_cost=0.09)
    assert costed.draft_memory_bytes is None and costed.fits_without_draft is None
    for key in ("memory_per_chip_bytes", "memory_required_bytes", "max_batch",
                "max_context", "max_batch_per_replica", "fits", "fits_per_chip"):
        assert getattr(costed, key) == getattr(plain, key), key


def test_under_tensor_parallelism_the_draft_splits_as_the_target():
    """The draft's time is a share of the target's step on the replica, so its weights split
    over the chips and each chip keeps its share of the draft's 8 key/value heads (2 of 4).
    Every chip holds the target's norms whole (Qwen3-8B: two of 4096 and the q/k norms of 128 in
    each of 36 layers, and the final one: 3 copies more than the model's, 2 B each); a draft
    model's weights are split evenly."""
    copies = 3 * (36 * (2 * 4096 + 2 * 128) + 4096) * 2
    e = estimate("qwen3-8b", **EXAMPLE, **DRAFT, tp=4)
    assert e.memory_per_chip_bytes == (TARGET_W + copies + DRAFT_W
                                       + FINAL * (TARGET_KV + DRAFT_KV)) / 4
    assert e.max_batch_per_replica == (4 * H100 - TARGET_W - copies - DRAFT_W) // (
        FINAL * (TARGET_KV + DRAFT_KV))


def test_mtp_counts_the_modules_weights_and_cache():
    """speculation='mtp' on DeepSeek-V3 holds its MTP module beside the model: at fp8 one byte a
    parameter, and one MLA layer's cache, whole on each of the 8 chips."""
    d, v = 7168, 129_280
    mla = (1536 * d + 1536                          # q_a_proj, q_a_layernorm
           + 1536 * 128 * (128 + 64)                # q_b_proj: heads x (nope + rope)
           + d * (512 + 64) + 512                   # kv_a_proj_with_mqa, kv_a_layernorm
           + 512 * 128 * (128 + 128)                # kv_b_proj: heads x (nope + v)
           + 128 * 128 * d)                         # o_proj
    moe = (256 + 1) * 3 * d * 2048 + 256 * d + 256  # routed + shared experts, router, its bias
    tables = 2 * v * d                              # its own embed_tokens and shared_head.head
    module = 3 * d + 2 * d * d + (mla + moe + 2 * d) + tables
    assert module == 13_463_426_304
    held = module - tables                          # vLLM shares the model's: 11,610,068,224
    mla_token = (512 + 64) * 2                      # B per token, one layer, 16-bit
    # what each of the 8 chips holds whole (vLLM): per MLA layer the latent down-projections
    # and their norms, per MoE layer the router and its bias, per block its two norms; the
    # module's block has one of each, the model's 61 blocks 61, 58 and 61 (and the final norm)
    whole = (d * (1536 + 512 + 64) + 1536 + 512) + (256 * d + 256) + 2 * d
    model_whole = 61 * (d * (1536 + 512 + 64) + 1536 + 512) + 58 * (256 * d + 256) + 123 * d
    at = dict(hardware="h200", weights="fp8", tp=8, prompt=PROMPT, generate=GENERATE,
              context=PROMPT)
    plain, spec = estimate("deepseek-v3", **at), estimate("deepseek-v3", **at, speculation="mtp")
    assert spec.memory_per_chip_bytes - plain.memory_per_chip_bytes == pytest.approx(
        (held + 7 * whole + 8 * FINAL * mla_token) / 8, abs=1e-3)
    assert spec.draft_memory_bytes == held + PROMPT * mla_token
    # the replica's sequences: the main model's 671,026,419,200 parameters at one byte and its
    # 61 MLA layers' cache, whole on each chip (tests/configs/SOURCES.md), and the copies
    seq = 8 * FINAL * (61 + 1) * mla_token
    weights = 671_026_419_200 + 7 * model_whole
    assert spec.max_batch_per_replica == (8 * H200 - weights - held - 7 * whole) // seq
    assert plain.max_batch_per_replica == (8 * H200 - weights) // (8 * FINAL * 61 * mla_token)


@pytest.mark.parametrize("weights, embedding_bytes", [("fp8", 1), (None, 2)])
def test_mtp_module_keeps_its_embedding_under_pipeline_parallelism(weights, embedding_bytes):
    """Over two pipeline stages vLLM loads the module's embedding table apart (V x d =
    926,679,040 parameters), at the bits of the model's embedding rows: one byte where fp8 is
    asked for every weight, two as the checkpoint ships it (bf16); the head is still the
    model's. The cache is the same at pp 1 and 2, so the draft's bytes differ by the table
    alone."""
    table = 129_280 * 7168
    at = dict(hardware="h200", weights=weights, tp=8, prompt=PROMPT, generate=GENERATE,
              context=PROMPT, speculation="mtp")
    one, two = estimate("deepseek-v3", **at), estimate("deepseek-v3", **at, pp=2)
    assert two.draft_memory_bytes - one.draft_memory_bytes == table * embedding_bytes


def test_plan_ranks_batches_with_the_draft_held():
    """plan --draft: the cheapest batch on one chip was the target's memory limit, 392
    sequences; with the draft held beside it the limit is 217 (the audit's example), and the
    search stops there (below it, cost still falls with the batch)."""
    args = dict(ttft=10.0, tpot=1.0, hardware=["h100-sxm"], weights=["fp16"], kv_bits=[16],
                degrees=[1], prompt=PROMPT, generate=GENERATE, price_per_hour=2.0, **DRAFT)
    best = {}
    for most in (400, 216):
        found = search("qwen3-8b", max_batch=most, **args)
        best[most] = [(r["n_chips"], r["batch"]) for r in found.configurations]
    assert best == {400: [(1, 217)], 216: [(1, 216)]}


def test_a_draft_whose_heads_the_replicas_tp_does_not_split_is_refused():
    """The draft is split over the replica's chips as the target is, so tp must give each chip
    whole heads of the draft's too: Gemma 3 1B has 4 attention heads
    (https://huggingface.co/google/gemma-3-1b-it/blob/main/config.json, num_attention_heads 4),
    Gemma 3 27B 32; at tp 8 the 27B's heads split (4 a chip) and the 1B's cannot. Estimate,
    describe, the engine view and plan refuse it as they refuse such a tp for the target; at
    tp 4 (one head a chip) it is accepted."""
    from llm_arithmetic.core.errors import InputError
    from llm_arithmetic.engine import engine_view

    kw = dict(hardware="h100-sxm", prompt=PROMPT, generate=GENERATE, draft="gemma-3-1b",
              draft_len=4, acceptance=0.8)
    estimate("gemma-3-27b", tp=8, prompt=PROMPT, generate=GENERATE, hardware="h100-sxm")
    with pytest.raises(InputError, match=r"^draft: tp = 8 exceeds the 4 attention heads of "
                                         r"gemma-3-1b's layers"):
        estimate("gemma-3-27b", tp=8, **kw)
    assert estimate("gemma-3-27b", tp=4, **kw).draft_memory_bytes > 0
    # vLLM refuses this pair before any split: Gemma 3 1B's vocab_size is 262,144, the 27B's
    # 262,208 (their config.json files), and vLLM wants them equal (estimate.check_draft)
    with pytest.raises(InputError, match="^draft: gemma-3-1b's vocab_size .* vLLM refuses"):
        engine_view("gemma-3-27b", "vllm", hardware="h100-sxm", tp=8, draft="gemma-3-1b")
    found = search("gemma-3-27b", ttft=10.0, tpot=1.0, hardware=["h100-sxm"], weights=["fp16"],
                   kv_bits=[16], degrees=[4, 8], max_batch=4, prompt=PROMPT,
                   generate=GENERATE, price_per_hour=2.0, draft="gemma-3-1b", draft_len=4,
                   acceptance=0.8)
    assert {r["tp"] for r in found.configurations} == {4}
    assert any("tp8" in s and "draft: tp = 8" in s for s in found.skipped)


def test_step_37s_own_heads_are_shared_as_vllm_loads_them():
    """Step 3.7 Flash stores an output head in each of its 3 MTP layers (config.json:
    num_nextn_predict_layers 3, vocab_size 128,896, hidden_size 4,096) and shares the
    embedding; vLLM's MTP loader replaces every layer's shared_head.head with the model's
    lm_head (llm_base_proposer.py, above), so the module holds 3 x 128,896 x 4,096 fewer
    parameters than it stores: at fp8, as many bytes fewer than before."""
    from llm_arithmetic import get_model
    from llm_arithmetic.estimate import draft_memory_inputs

    m = get_model("step-3.7-flash")
    held = draft_memory_inputs(m, module=True)
    assert held["draft_head_params"] == 3 * 128_896 * 4096 == 1_583_874_048
    assert held["draft_embedding_params"] == 0
    e = estimate("step-3.7-flash", hardware="h200", weights="fp8", tp=8, speculation="mtp")
    # and one token of the 3 layers' cache: K and V of 8 heads of 128 (num_key_value_heads,
    # head_dim), 2 B each
    cache = 3 * 2 * 8 * 128 * 2
    assert e.draft_memory_bytes == held["draft_params"] - 1_583_874_048 + cache
