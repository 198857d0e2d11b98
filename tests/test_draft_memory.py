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

import json
from fractions import Fraction

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
    each of 36 layers, and the final one: 3 copies more than the model's, 2 B each), and the
    draft's the same way, as vLLM runs a draft model at the target's tensor-parallel size
    (Qwen3-0.6B: two of 1024 and the q/k norms of 128 in each of 28 layers, and the final one;
    its 8 key/value heads split over 4 chips, none copied)."""
    copies = 3 * (36 * (2 * 4096 + 2 * 128) + 4096) * 2
    copies += 3 * (28 * (2 * 1024 + 2 * 128) + 1024) * 2
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
    from llm_arithmetic.speculative import draft_memory_inputs

    m = get_model("step-3.7-flash")
    held = draft_memory_inputs(m, module=True)
    assert held["draft_head_params"] == 3 * 128_896 * 4096 == 1_583_874_048
    assert held["draft_embedding_params"] == 0
    e = estimate("step-3.7-flash", hardware="h200", weights="fp8", tp=8, speculation="mtp")
    # and one token of the 3 layers' cache: K and V of 8 heads of 128 (num_key_value_heads,
    # head_dim), 2 B each
    cache = 3 * 2 * 8 * 128 * 2
    assert e.draft_memory_bytes == held["draft_params"] - 1_583_874_048 + cache


# ---- the module's own precision, as its checkpoint stores it ------------------------------------
# DeepSeek-V3's module (layer 61 of its checkpoint; tests/configs/FAMILIES.md, DeepSeek-V3), each
# matrix rows x cols (outputs x inputs) from config.json: d = 7168, q_lora_rank 1536, 128 heads of
# nope 128 + rope 64 and v 128, kv_lora_rank 512, 256 routed experts and 1 shared of 2,048.
D, V = 7168, 129_280
MLA_MATS = [(1536, D), (128 * 192, 1536), (512 + 64, D), (128 * 256, 512), (D, 128 * 128)]
EXPERT_MATS = [(2048, D), (2048, D), (D, 2048)]     # gate_proj, up_proj, down_proj
PLAIN_MODULE = (3 * D                               # enorm, hnorm, shared_head.norm
                + 1536 + 512 + 2 * D                # q_a and kv_a layernorms, the block's two
                + 2 * D * D                         # eh_proj (2d -> d)
                + 256 * D)                          # the router's matrix
ROUTER_BIAS = 256                                   # e_score_correction_bias, fp32
TABLE = V * D                                       # 926,679,040: embed_tokens, shared_head.head


def _fp8(rows, cols):
    """A matrix in DeepSeek's fp8: one byte an element and a 4-byte fp32 scale per 128 x 128
    block (ceil(rows/128) x ceil(cols/128)), as README_WEIGHTS.md describes it."""
    return rows * cols + 4 * -(-rows // 128) * -(-cols // 128)


def _module_held():
    """What vLLM holds of DeepSeek-V3's module at pp 1 as its fp8 checkpoint ships it: the
    block's matrices in fp8 with their scales, eh_proj, norms and router in bf16, the router's
    bias in fp32; its embed_tokens and shared_head.head shared with the model's."""
    matrices = sum(_fp8(r, c) for r, c in MLA_MATS + EXPERT_MATS)   # MLA and the shared expert
    experts = 256 * sum(_fp8(r, c) for r, c in EXPERT_MATS)
    return matrices + experts + 2 * PLAIN_MODULE + 4 * ROUTER_BIAS


def test_deepseek_v3_1_nvfp4_holds_its_mtp_module_in_bf16():
    """NVIDIA's DeepSeek-V3.1-NVFP4 leaves its MTP layer out of NVFP4 (exclude_modules
    'model.layers.61*' in hf_quant_config.json), so the module ships in bf16: its
    13,463,426,304 parameters less the two vocabulary tables vLLM shares, at 2 B each,
    23,220,136,448 B; not at the model's NVFP4 bits (6.69 GB). Asked for fp8 weights, the
    module follows them, one byte each."""
    import json
    from pathlib import Path

    folder = Path(__file__).parent / "configs" / "modelopt" / "deepseek-v3.1-nvfp4"
    quant = json.loads((folder / "hf_quant_config.json").read_text())["quantization"]
    assert "model.layers.61*" in quant["exclude_modules"] and quant["quant_algo"] == "NVFP4"
    held = (13_463_426_304 - 2 * TABLE) * 2
    assert held == 23_220_136_448
    at = dict(hardware="h200", tp=8, context=PROMPT, speculation="mtp")
    e = estimate(str(folder / "config.json"), **at)
    mla_token = 512 + 64                            # the checkpoint's fp8 cache, 1 B an element
    assert e.draft_memory_bytes == held + PROMPT * mla_token
    asked = estimate(str(folder / "config.json"), **at, weights="fp8")
    assert asked.draft_memory_bytes == held // 2 + PROMPT * mla_token


def test_deepseek_v3_fp8_quantizes_its_mtp_module_as_the_rest():
    """DeepSeek-V3's quantization_config names no module to keep, so layer 61's block is fp8
    with its block scales as every other layer's: 702,264 scales (the Hub's element count,
    tests/configs/FAMILIES.md), and the module whole, with its two bf16 tables, is the
    15,424,227,552 B derived there; vLLM holds it without the tables."""
    from llm_arithmetic import get_model

    assert not get_model("deepseek-v3").scheme.keep
    scales = sum(-(-r // 128) * -(-c // 128) for r, c in MLA_MATS + EXPERT_MATS) \
        + 256 * sum(-(-r // 128) * -(-c // 128) for r, c in EXPERT_MATS)
    assert scales == 702_264
    held = _module_held()
    assert held + 2 * TABLE * 2 == 15_424_227_552
    e = estimate("deepseek-v3", hardware="h200", tp=8, context=PROMPT, speculation="mtp")
    assert e.draft_memory_bytes == held + PROMPT * (512 + 64) * 2   # 16-bit cache
    # under pipeline parallelism vLLM loads the module's own embedding table, in bf16
    two = estimate("deepseek-v3", hardware="h200", tp=8, pp=2, context=PROMPT,
                   speculation="mtp")
    assert two.draft_memory_bytes - e.draft_memory_bytes == TABLE * 2


def test_deepseek_v3_2_module_adds_its_indexer_in_fp8():
    """DeepSeek-V3.2's module is V3's with the block's DeepSeek Sparse Attention indexer
    (config.json: index_n_heads 64, index_head_dim 128): wq_b (64 x 128 rows, q_lora_rank
    1536 columns) and wk (128 x d) in fp8 with their scales, weights_proj (64 x d) and the
    LayerNorm k_norm (weight and bias of 128) in bf16; its quantization_config keeps nothing."""
    indexer = _fp8(64 * 128, 1536) + _fp8(128, D) + 2 * (64 * D) + 2 * (2 * 128)
    e = estimate("deepseek-v3.2", hardware="h200", tp=8, context=PROMPT, speculation="mtp")
    cache = PROMPT * (512 + 64) * 2 + PROMPT * 128 * 2      # the MLA latent and indexer keys
    assert e.draft_memory_bytes - cache == _module_held() + indexer


def test_a_file_type_the_module_follows():
    """A llama.cpp file type asked for DeepSeek-V3 gives each part its bits; the module's parts
    take the file's, not the checkpoint's fp8."""
    from llm_arithmetic import get_model
    from llm_arithmetic.speculative import draft_memory_inputs
    from llm_arithmetic.weights import weight_inputs

    m = get_model("deepseek-v3")
    held = draft_memory_inputs(m, module=True)
    parts = weight_inputs(m, "q4_k_m")
    experts = 256 * sum(r * c for r, c in EXPERT_MATS)
    other = 13_463_426_304 - 2 * TABLE - experts
    got = m.evaluate("draft_module_bytes", **held, **parts, pp=1)
    assert got == pytest.approx(other * parts["native_bits_default"] / 8
                                + experts * parts["native_bits_experts"] / 8, rel=1e-12)


@pytest.mark.parametrize("keep, module_bits", [([], None), (["model.layers.92"], 16)])
def test_glm_4_5_module_bits_follow_the_keep_list_by_name(keep, module_bits):
    """GLM-4.5 (tests/configs/glm-4.5.json: 92 layers, d 5120, 160 routed experts of 1,536)
    stores its MTP module as layer 92, as vLLM's glm4_moe_mtp.py loads it. Given an fp8
    record with 128 x 128 blocks (constructed here: the FP8 repository's own record was not
    found in a stored copy), a module listed in modules_to_not_convert ships in bf16, every
    part of it 16 bits; one not listed has its routed experts' matrices in fp8, each
    1,536 x 5,120 matrix with 12 x 40 fp32 scales: 8 + 32 x 480 / (1,536 x 5,120) bits =
    8 + 1/512."""
    import json
    from fractions import Fraction
    from pathlib import Path

    from llm_arithmetic.catalog.readers import read_config

    cfg = json.loads((Path(__file__).parent / "configs" / "glm-4.5.json").read_text())
    cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic",
                                  "fmt": "e4m3", "weight_block_size": [128, 128],
                                  "modules_to_not_convert": keep}
    m = read_config(cfg, name="glm-4.5-fp8")
    if module_bits is None:
        assert m.native_bits["draft_experts"] == 8 + Fraction(32 * 12 * 40, 1536 * 5120)
        assert 8 < m.native_bits["draft"] < 16
    else:
        # every tensor at 16 bits but the router's 160 correction biases, which an fp8 record
        # keeps in fp32 (as DeepSeek-V3's): 16 more bits each over the module's parameters
        # outside its routed experts and vocabulary tables
        d, h, kv, dh = 5120, 96, 8, 128
        attention = (h * dh * d + h * dh) + 2 * (kv * dh * d + kv * dh) + d * h * dh + 2 * dh
        other = (3 * d + 2 * d * d                  # enorm, hnorm, shared_head.norm; eh_proj
                 + attention + 2 * d                # GQA with biases and q/k norms; 2 norms
                 + 160 * d + 160                    # router and its correction bias
                 + 3 * 1536 * d)                    # the shared expert
        assert m.native_bits["draft_experts"] == module_bits
        assert m.native_bits["draft"] == module_bits + Fraction(16 * 160, other)
    # the model's own layers are fp8 either way
    assert m.native_bits["experts"] == 8 + Fraction(1, 512)


T4 = 16 * GIB                                   # NVIDIA T4, 16 GB GDDR6: 17,179,869,184 B


def test_plan_says_which_layouts_the_draft_excluded(capsys):
    """plan qwen3-8b --draft qwen3-0.6b on a T4 at fp16: one chip holds Qwen3-8B and its cache
    at the end of a request (16,381,470,720 + 1,200 x 147,456 = 16,558,417,920 B of
    17,179,869,184), but not with the draft beside it (its 1,192,099,840 B of weights alone
    take it to 17,573,570,560 B). The layout is dropped, and plan says the draft is why; at
    more chips both fit and nothing is said of them."""
    from llm_arithmetic.cli import main

    alone = TARGET_W + FINAL * TARGET_KV
    assert alone == 16_558_417_920 < T4 < TARGET_W + DRAFT_W == 17_573_570_560
    kw = dict(ttft=10.0, tpot=1.0, hardware=["t4"], weights=["fp16"], kv_bits=[16],
              degrees=[1, 2], max_batch=4, prompt=PROMPT, generate=GENERATE,
              price_per_hour=1.0)
    plain = search("qwen3-8b", **kw)
    assert 1 in {c["n_chips"] for c in plain.configurations}
    assert plain.excluded_by_draft == []
    spec = search("qwen3-8b", **kw, draft="qwen3-0.6b", draft_len=4, acceptance=0.8)
    assert spec.configurations and 1 not in {c["n_chips"] for c in spec.configurations}
    assert spec.excluded_by_draft == [{"hardware": "t4", "weights": "fp16", "kv_bits": 16,
                                       "tp": 1, "ep": 1, "pp": 1}]
    args = ["plan", "qwen3-8b", "--hardware", "t4", "--weights", "fp16", "--prompt",
            str(PROMPT), "--generate", str(GENERATE), "--ttft-ms", "10000", "--tpot-ms",
            "1000", "--price-per-hour", "1", "--draft", "qwen3-0.6b", "--draft-len", "4",
            "--acceptance", "0.8"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "the draft is what excluded" in out and "t4 fp16 16-bit KV 1/1/1" in out
    assert main(args + ["--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    # the CLI searches every cache width and layout: the T4's fp16 tp 1 layouts at each
    assert got["excluded_by_draft"] == len(got["excluded_by_draft_layouts"]) >= 1
    assert {(c["hardware"], c["weights"], c["tp"], c["ep"], c["pp"])
            for c in got["excluded_by_draft_layouts"]} == {("t4", "fp16", 1, 1, 1)}


# ---- modules a quantized file names (task h-mtpx) ----------------------------------------------
def _module_bytes(m):
    """The module's bytes as the plan holds them: its parameters outside its own tables at the
    checkpoint's bits for the module (``native_bits`` "draft", "draft_experts") [B]."""
    from llm_arithmetic.speculative import draft_memory_inputs
    from llm_arithmetic.weights import weight_inputs

    return m.evaluate("draft_module_bytes", **draft_memory_inputs(m, module=True),
                      **weight_inputs(m), pp=1)


def _modelopt(name):
    from pathlib import Path

    from llm_arithmetic.catalog.readers import read_config

    return read_config(Path(__file__).parent / "configs" / "modelopt" / name / "config.json")


def test_qwen3_6_27b_nvfp4_module_in_bf16_as_its_index_stores_it():
    """nvidia/Qwen3.6-27B-NVFP4 excludes "mtp*" and "mtp.layers.0*": its index (revision
    0893e160, read by a third party, search index file id 61871879195; tests/test_quantization.py
    QWEN36_TOTAL_SIZE) lists 15 mtp.* tensors in bf16: fc (d x 2d), one gated attention block
    (q_proj 2 x 24 x 256 rows, k_proj and v_proj 4 x 256, o_proj d x 6,144, q_norm and k_norm
    of 256), an MLP of 17,408 and five norms of d. The module is held at 2 bytes a weight; it
    was held at the target's 5.68 bits (fp8 attention, NVFP4 MLPs)."""
    d, ff = 5120, 17408
    index = 2 * (2 * d * d + 2 * 24 * 256 * d + 2 * 4 * 256 * d + d * 24 * 256 + 3 * ff * d
                 + 5 * d + 2 * 256)
    m = _modelopt("qwen3.6-27b-nvfp4")
    assert m.native_bits["draft"] == 16 and "draft_experts" not in m.native_bits
    assert _module_bytes(m) == index


@pytest.mark.parametrize("name", ["qwen3.5-122b-a10b-nvfp4", "qwen3.6-35b-a3b-nvfp4"])
def test_qwen3_5_moe_nvfp4_modules_follow_the_exclusion_by_name(name):
    """nvidia/Qwen3.5-122B-A10B-NVFP4 (and Qwen3.6-35B-A3B's) exclude "mtp.layers.0*" and
    "mtp*": the module's routed experts and every other weight at 16 bits, where the target's
    experts are NVFP4 (4 + 8/16 bits and two fp32 scalars a matrix). Without those entries the
    122B file's NVFP4 converts the module's experts too (their names, mtp.layers.0.mlp.experts,
    are matched as the checkpoint spells them)."""
    import json
    from pathlib import Path

    from llm_arithmetic.catalog.readers import read_config

    m = _modelopt(name)
    assert m.native_bits["draft"] == m.native_bits["draft_experts"] == 16
    assert m.native_bits["experts"] < 5
    if name != "qwen3.5-122b-a10b-nvfp4":
        return
    cfg = json.loads((Path(__file__).parent / "configs" / "modelopt" / name
                      / "config.json").read_text())
    q = cfg["quantization_config"]
    q["ignore"] = [x for x in q["ignore"] if not x.startswith("mtp")]
    quantized = read_config(cfg)
    # 256 experts x 3 matrices of 1,024 x 3,072: NVFP4 by hand, 16 B of fp32 scalars each
    per = 1024 * 3072
    assert quantized.native_bits["draft_experts"] == \
        Fraction(8 * 256 * 3 * (per // 2 + per // 16 + 8), 256 * 3 * per)


def test_glm_5_2_nvfp4_module_is_layer_78_in_bf16():
    """nvidia/GLM-5.2-NVFP4 excludes "model.layers.78*": its module (DeepSeek-V3's layout, layer
    78 of a 78-layer model, with no tables of its own) ships in bf16, 2 bytes a weight, where
    the target's experts are NVFP4. By hand: the module's 9,952,920,576 parameters (the
    weight-map sum less the meta count, tests/configs/FAMILIES.md) at 2 bytes."""
    m = _modelopt("glm-5.2-nvfp4")
    assert m.mtp_extras()[0].params == 9_952_920_576
    assert m.native_bits["draft"] == m.native_bits["draft_experts"] == 16
    assert _module_bytes(m) == 2 * 9_952_920_576


def test_deepseek_v4_pro_module_as_its_tensor_list_stores_it():
    """DeepSeek-V4-Pro's module, mtp.0.* in its tensor list (tests/configs/SOURCES.md section 7,
    index file id 62525154746; shapes and dtypes): e_proj, h_proj and the attention's and
    shared expert's matrices fp8 with E8M0 scales a 128 x 128 block, 384 experts' w1/w3
    (3,072 x 7,168) and w2 (7,168 x 3,072) MXFP4 (int8 holding two values, an E8M0 scale per
    32 inputs), the router bf16 and its bias fp32, the sinks and the hyper-connection mixers
    and head fp32, norms bf16: the module holds the list's bytes exactly (the router's fp32
    correction bias included, as the reader counts it in every score-routed block)."""
    from pathlib import Path

    from llm_arithmetic.catalog.readers import read_config

    d, hc = 7168, 4 * 7168
    fp8 = lambda r, c: r * c + -(-r // 128) * -(-c // 128)          # noqa: E731
    mx = lambda r, c: r * c // 2 + r * c // 32                       # noqa: E731
    listed = (4 * 128                                                # attn_sink fp32
              + 2 * (512 + 1536 + d)                                 # kv_norm, q_norm, attn_norm
              + fp8(512, d) + fp8(16384, 4096) + fp8(d, 16384)      # wkv, wo_a, wo_b
              + fp8(1536, d) + fp8(65536, 1536)                      # wq_a, wq_b
              + 2 * fp8(d, d)                                        # e_proj, h_proj
              + 384 * (2 * mx(3072, d) + mx(d, 3072))                # experts
              + 4 * 384 + 2 * 384 * d                                # gate bias fp32, gate bf16
              + 2 * fp8(3072, d) + fp8(d, 3072)                      # shared expert
              + 2 * 4 * (24 + 24 * hc + 3)                           # hc_attn, hc_ffn fp32
              + 4 * (4 + 4 * hc + 1)                                 # hc_head fp32
              + 2 * 4 * d)                                           # ffn_norm, enorm, hnorm, norm
    assert listed == 13_956_587_692
    m = read_config(Path(__file__).parent / "configs" / "deepseek-v4-pro.json")
    assert m.native_bits["draft_experts"] == Fraction(17, 4)
    assert _module_bytes(m) == listed


def test_deepseek_v4_flash_nvfp4_module_keeps_mxfp4_experts():
    """nvidia/DeepSeek-V4-Flash-NVFP4 converts the routed experts its quantized_layers names
    (layers.0-42.ffn.experts) to NVFP4 and ignores "mtp.*": the module stays as deepseek-ai's
    file ships it, MXFP4 experts (4 + 8/32 bits) and fp8 blocks, so it holds the bytes the base
    file's module holds. Listing the module's experts in quantized_layers converts them too
    (4 + 8/16 bits and two fp32 scalars a 2,048 x 4,096 matrix)."""
    import json
    from pathlib import Path

    from llm_arithmetic.catalog.readers import read_config

    m = _modelopt("deepseek-v4-flash-nvfp4")
    base = read_config(Path(__file__).parent / "configs" / "deepseek-v4-flash.json")
    assert m.native_bits["experts"] == Fraction(9, 2) + Fraction(8 * 8, 2048 * 4096)
    assert m.native_bits["draft_experts"] == base.native_bits["draft_experts"] == Fraction(17, 4)
    assert _module_bytes(m) == _module_bytes(base)
    cfg = json.loads((Path(__file__).parent / "configs" / "modelopt" / "deepseek-v4-flash-nvfp4"
                      / "config.json").read_text())
    cfg["quantization_config"]["quantized_layers"]["mtp.0.ffn.experts"] = {
        "quant_algo": "NVFP4", "group_size": 16}
    assert read_config(cfg).native_bits["draft_experts"] == m.native_bits["experts"]
