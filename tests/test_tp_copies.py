"""Weights a tensor-parallel group copies instead of splitting: per-chip weight bytes and
per-chip decode bytes count them once a chip.

What vLLM splits and what it holds whole on every chip (formulas/engine.py gives the pinned
files): a chip holds max(1, H_kv // tp) key/value heads' projections (QKVParallelLinear), so
past tp = H_kv the heads are copied; multi-head latent attention's down-projections
(q_a_proj, kv_a_proj_with_mqa, fused unsplit) and their two norms; a mixture's router (gate,
a ReplicatedLinear) with its score-correction bias; DeepSeek Sparse Attention's indexer; every
norm vector (per-head q/k norms, the blocks' norms, the final norm).

Expected values are worked here from the checkpoints' config.json numbers (read below and
shown in each test), with the one-chip figures that do not change (the model's own weight
bytes) taken from the unchanged keys. At fp8 one parameter is one byte; as shipped (bf16) two.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_arithmetic import estimate, get_model
from llm_arithmetic.estimate import plan_inputs

MODELS = Path(__file__).resolve().parents[1] / "lib/llm_arithmetic/catalog/data/models"


def _config(name: str) -> dict:
    cfg = json.loads((MODELS / name / "config.json").read_text())
    return cfg.get("text_config", cfg)


def _group(name: str, **kw):
    m = get_model(name)
    return m.plan.child(**plan_inputs(m, **kw))


def test_configs_as_read():
    # the numbers the hand counts below use, as the files give them
    c = _config("llama-3.1-70b")
    assert (c["num_hidden_layers"], c["hidden_size"], c["num_attention_heads"],
            c["num_key_value_heads"], c["vocab_size"]) == (80, 8192, 64, 8, 128256)
    c = _config("deepseek-v3")
    assert (c["num_hidden_layers"], c["hidden_size"], c["q_lora_rank"], c["kv_lora_rank"],
            c["qk_rope_head_dim"], c["n_routed_experts"], c["first_k_dense_replace"],
            c["topk_method"]) == (61, 7168, 1536, 512, 64, 256, 3, "noaux_tc")
    c = _config("qwen3-235b-a22b")
    assert (c["num_hidden_layers"], c["hidden_size"], c["num_key_value_heads"], c["head_dim"],
            c["num_experts"]) == (94, 4096, 4, 128, 128)


# ---- the copies, by hand ------------------------------------------------------------------------
# Llama 3.1 70B at tp 16: 8 KV heads of 8192 / 64 = 128; each chip holds one head's K and V
# projections (2 x 128 x 8192), 16 in the group against the model's 8; and 15 more copies of
# the 2 x 80 + 1 norm vectors of 8192
LLAMA_TP16 = (16 - 8) * 2 * 128 * 8192 * 80 + 15 * (2 * 80 + 1) * 8192
# DeepSeek-V3 at tp 8: 7 more copies of, per layer (61), the down-projections
# 7168 x (1536 + 512 + 64) and their norms 1536 + 512; per MoE layer (61 - 3) the router
# 256 x 7168 and its 256 score-correction biases; and the 2 x 61 + 1 norms of 7168
V3_MLA = 7168 * (1536 + 512 + 64) + 1536 + 512
V3_ROUTER = 256 * 7168 + 256
V3_TP8 = 7 * (61 * V3_MLA + 58 * V3_ROUTER + (2 * 61 + 1) * 7168)
# Qwen3-235B-A22B at tp 8: 4 KV heads of 128, one a chip: 8 - 4 heads' K and V
# (2 x 128 x 4096) more in each of 94 layers; 7 more copies of the router (128 x 4096), of the
# q and k norms (2 x 128) and of the 2 x 94 + 1 norms of 4096
QWEN_TP8 = ((8 - 4) * 2 * 128 * 4096 * 94
            + 7 * (94 * (128 * 4096 + 2 * 128) + (2 * 94 + 1) * 4096))

# LongCat-Flash-Chat at tp 8 (vLLM's longcat_flash.py @ fe441ccf: DeepseekV2MLAAttention, the router
# a ReplicatedLinear over 512 real + 256 zero experts with its correction bias): 7 more copies of
# 56 MLA blocks' q_a/kv_a projections and norms, of 28 routers of 768 columns with their biases
# (the zero experts' 256 among them, an extra of the model) and of the 4 x 28 + 1 norms
LONGCAT_MLA = 6144 * (1536 + 512 + 64) + 1536 + 512
LONGCAT_TP8 = 7 * (56 * LONGCAT_MLA + 28 * (768 * 6144 + 768) + (4 * 28 + 1) * 6144)


def test_hand_counts():
    assert LLAMA_TP16 == 1_361_960_960          # 1.93% of the model's 70.55 B
    assert V3_MLA == 15_140_864 and 61 * V3_MLA == 923_592_704   # ~0.92 B copied a chip
    assert V3_TP8 == 7_216_437_760
    assert QWEN_TP8 == 744_833_536
    assert LONGCAT_TP8 == 6_017_299_456


@pytest.mark.parametrize("name, tp, copies", [
    ("llama-3.1-70b", 16, LLAMA_TP16), ("deepseek-v3", 8, V3_TP8),
    ("qwen3-235b-a22b", 8, QWEN_TP8), ("longcat-flash-chat", 8, LONGCAT_TP8)])
def test_the_group_holds_the_copies(name, tp, copies):
    ev = _group(name, tp=tp, context=4096, weights="fp8")
    assert ev.get("tp_copy_params") == copies
    # at fp8 a parameter is a byte: the replica's weights and what a step reads grow by as much
    assert ev.get("weight_bytes_held") == ev.get("weight_bytes") + copies
    assert ev.get("step_weight_bytes_held") == ev.get("step_weight_bytes") + copies


@pytest.mark.parametrize("name", ["llama-3.1-70b", "deepseek-v3", "qwen3-235b-a22b",
                                  "deepseek-v3.2", "minimax-m3"])
def test_one_chip_holds_one_copy(name):
    ev = _group(name, tp=1, context=4096)
    assert ev.get("tp_copy_params") == 0
    assert ev.get("weight_bytes_held") == ev.get("weight_bytes")


def test_llama_31_70b_at_tp_16_memory_and_tpot_by_hand():
    """Llama 3.1 70B as shipped (bf16, 2 B a parameter) on 16 chips of 1 TB/s, compute and
    links free: each chip holds 1/16 of the model's 70,553,706,496 parameters and of the
    copies, and reads in a decode step its share of every weight but the 128,255 embedding rows
    a step does not gather, and its one KV head's cache (80 layers x K, V x 128 x 2 B a
    token)."""
    tp, context, bw = 16, 8192, 1e12
    kw = dict(bandwidth=bw, peak_flops=1e18, tp=tp, context=context, batch=1,
              link_bandwidth=1e15, link_latency=0.0)
    e = estimate("llama-3.1-70b", **kw)
    weights = 70_553_706_496 * 2
    assert e.weight_bytes == weights
    assert e.weight_bytes_held == weights + 2 * LLAMA_TP16
    chip_cache = 80 * 2 * 1 * 128 * 2 * context
    assert e.weight_bytes_per_chip == (weights + 2 * LLAMA_TP16) / tp
    assert e.memory_per_chip_bytes == pytest.approx((weights + 2 * LLAMA_TP16) / tp + chip_cache,
                                                    rel=1e-12)
    read = (70_553_706_496 - 128_255 * 8192 + LLAMA_TP16) * 2
    assert e.tpot_seconds == pytest.approx((read / tp + chip_cache) / bw, rel=1e-12)
    # the even split missed 1.9% of a chip's decode bytes here
    even = ((70_553_706_496 - 128_255 * 8192) * 2 / tp + chip_cache) / bw
    assert e.tpot_seconds / even - 1 == pytest.approx(0.0189, abs=0.0005)


def test_deepseek_v3_at_tp_8_per_chip_decode_bytes_by_hand():
    """DeepSeek-V3 at fp8 on 8 chips, one sequence: a decode step reads on each chip its
    eighth of the step's weights and a whole copy of the latent down-projections, routers and
    norms (V3_TP8 / 8 more than the eighth), and the whole latent cache of 61 layers x
    (512 + 64) x 2 B a token."""
    tp, context, bw = 8, 4096, 1e12
    kw = dict(weights="fp8", bandwidth=bw, peak_flops=1e18, tp=tp, context=context, batch=1,
              link_bandwidth=1e15, link_latency=0.0)
    e = estimate("deepseek-v3", **kw)
    step = _group("deepseek-v3", **{k: v for k, v in kw.items()
                                    if k in ("weights", "tp", "context", "batch")}
                  ).get("step_weight_bytes")
    cache = 61 * (512 + 64) * 2 * context
    assert e.tpot_seconds == pytest.approx(((step + V3_TP8) / tp + cache) / bw, rel=1e-12)
    # a fifth more weight bytes a chip than the even split (0.92 B of down-projections alone)
    assert (step + V3_TP8) / step - 1 == pytest.approx(0.196, abs=0.002)


def test_qwen3_235b_at_tp_8_memory_by_hand():
    """Qwen3-235B-A22B at fp8 on 8 chips: each chip holds 1/8 of the model's weights and of
    the copies (its KV head's projections, routers and norms), and one KV head's cache."""
    tp, prompt, generate, batch = 8, 2000, 500, 4
    e = estimate("qwen3-235b-a22b", weights="fp8", hardware="h200", tp=tp, prompt=prompt,
                 generate=generate, batch=batch)
    chip_cache = 94 * 2 * 1 * 128 * 2 * (prompt + generate) * batch
    assert e.weight_bytes_held == e.weight_bytes + QWEN_TP8
    assert e.memory_per_chip_bytes == pytest.approx((e.weight_bytes + QWEN_TP8) / tp
                                                    + chip_cache, rel=1e-12)


def test_deepseek_v32_indexer_weights_are_on_every_chip():
    """DeepSeek-V3.2 adds to DeepSeek-V3's copies its whole indexer in every layer: wq_b
    (1536 x 64 x 128), wk (7168 x 128), the key's LayerNorm (2 x 128) and weights_proj
    (7168 x 64): 13,959,424 a layer, 7 more copies at tp 8."""
    c = _config("deepseek-v3.2")
    assert (c["index_n_heads"], c["index_head_dim"]) == (64, 128)
    indexer = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64
    assert indexer == 13_959_424
    ev = _group("deepseek-v3.2", tp=8, context=4096, weights="fp8")
    assert ev.get("tp_copy_params") == V3_TP8 + 7 * 61 * indexer


def test_layers_reading_an_earlier_layers_cache_copy_their_norms():
    """A block that reads an earlier layer's keys and values holds its query norm (and, in
    Hunyuan's cross-layer attention, its own key norm: vLLM's HunYuanCrossAttention builds
    query_layernorm and key_layernorm as RMSNorm(head_dim)) whole on every chip, as any
    block's per-head norms. Hunyuan-Large (tests/configs/hunyuan-a52b-pretrain.json: d = 6400,
    64 layers, 80 heads of 6400 / 80 = 80, 8 KV heads, 16 experts and one shared, tied head,
    use_cla with cla_share_factor 2) at tp 8: 8 KV heads, one a chip, none copied; 7 more
    copies of, per layer, the q and k norms (2 x 80), the two block norms (2 x 6400) and the
    router (16 x 6400), and of the final norm (6400)."""
    from llm_arithmetic.catalog.readers import read_config

    path = Path(__file__).resolve().parent / "configs" / "hunyuan-a52b-pretrain.json"
    c = json.loads(path.read_text())
    assert (c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"],
            c["num_key_value_heads"], c["num_experts"], c["use_cla"],
            c["cla_share_factor"]) == (6400, 64, 80, 8, 16, True, 2)
    by_hand = 7 * (64 * (2 * 80 + 2 * 6400 + 16 * 6400) + 6400)
    assert by_hand == 51_726_080
    m = read_config(str(path))
    ev = m.plan.child(**plan_inputs(m, tp=8, context=4096))
    assert ev.get("tp_copy_params") == by_hand


def test_nemotron_h_copied_heads_at_their_checkpoints_bits():
    """nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4 (tests/configs/modelopt/, its
    checkpoint's modules named backbone.layers.N.mixer.*) keeps its attention in bf16: its
    hf_quant_config.json excludes every k_proj and v_proj. At tp 8 each of its 6 attention
    layers (layers_block_type) holds 8 KV heads' projections against the model's 2, 6 more of
    2 x 128 x 2688 each (k and v), copied at 2 bytes a weight, not at the mean of the
    checkpoint's other weights (7.1 bits)."""
    from llm_arithmetic.catalog.readers import read_config

    folder = Path(__file__).resolve().parent / "configs" / "modelopt" / \
        "nemotron-3.5-lightning-30b-a3b-nvfp4"
    c = json.loads((folder / "config.json").read_text())
    assert (c["layers_block_type"].count("attention"), c["num_key_value_heads"], c["head_dim"],
            c["hidden_size"]) == (6, 2, 128, 2688)
    excluded = json.loads((folder / "hf_quant_config.json").read_text())["quantization"][
        "exclude_modules"]
    assert sum(x.endswith(("mixer.k_proj", "mixer.v_proj")) for x in excluded) == 12
    copies = 6 * (8 - 2) * 2 * 128 * 2688
    m = read_config(str(folder / "config.json"))
    ev = m.plan.child(**plan_inputs(m, tp=8, context=4096))
    assert ev.get("copies_heads") == copies == 24_772_608
    assert ev.get("copy_bytes_heads") == 2 * copies


# ---- a draft model under tensor parallelism -----------------------------------------------------
# vLLM runs a draft model at the target's tensor-parallel size unless told 1
# (vllm-project/vllm@f19b16d95e4395790661f4835e4436bc3dd5d9c7, vllm/config/speculative.py,
# SpeculativeConfig._verify_and_get_draft_tp), so its blocks are split and copied as the
# target's are. Qwen3 0.6B: 28 layers of width 1024, 8 KV heads of 128, q and k norms of 128,
# two block norms of 1024 and a final norm of 1024. Every chip holds whole, per copy,
# 28 x (2 x 128 + 2 x 1024) + 1024 = 65,536 norm parameters; at tp 8 each chip holds one of the
# 8 KV heads (no head copied), at tp 16 a head is on two chips: 16 - 8 more heads' K and V
# (2 x 128 x 1024) in each of 28 layers.
QWEN06_NORMS = 28 * (2 * 128 + 2 * 1024) + 1024
QWEN06_TP8 = 7 * QWEN06_NORMS
QWEN06_TP16 = (16 - 8) * 2 * 128 * 1024 * 28 + 15 * QWEN06_NORMS


def test_qwen3_06b_config_as_read():
    c = _config("qwen3-0.6b")
    assert (c["num_hidden_layers"], c["hidden_size"], c["num_attention_heads"],
            c["num_key_value_heads"], c["head_dim"]) == (28, 1024, 16, 8, 128)
    assert QWEN06_NORMS == 65_536
    assert (QWEN06_TP8, QWEN06_TP16) == (458_752, 59_703_296)


@pytest.mark.parametrize("tp, copies", [(1, 0), (8, QWEN06_TP8), (16, QWEN06_TP16)])
def test_a_draft_models_copies_by_hand(tp, copies):
    """Qwen3 0.6B as the draft of Qwen3 32B (64 heads, so tp 16 splits both): the target's
    plan counts the draft's copies through the draft's own stack, and its own width."""
    from llm_arithmetic.speculative import draft_memory_inputs
    m = get_model("qwen3-32b")
    ev = m.plan.child(**plan_inputs(m, tp=tp, context=4096),
                      **draft_memory_inputs(get_model("qwen3-0.6b")))
    assert ev.get("draft_copy_params") == copies
    # as shipped (bf16) a parameter is two bytes
    assert ev.get("draft_weights_held") == ev.get("draft_weights") + 2 * copies


@pytest.mark.parametrize("tp, copies", [(8, QWEN06_TP8), (16, QWEN06_TP16)])
def test_a_draft_models_copies_in_the_replicas_weights(tp, copies):
    """The replica holds the target's weights with their copies, and the draft's 596,049,920
    parameters with theirs: tied embeddings 151,936 x 1024, and in each of 28 layers q and o
    (2 x 1024 x 16 x 128), k and v (2 x 1024 x 8 x 128), the MLP (3 x 1024 x 3072) and 2,304
    norm parameters, and the final norm; bf16, 1,192,099,840 B."""
    assert 151_936 * 1024 + 28 * (2 * 1024 * 2048 + 2 * 1024 * 1024 + 3 * 1024 * 3072
                                  + 2304) + 1024 == 596_049_920
    e = estimate("qwen3-32b", hardware="h200", tp=tp, context=8192, prompt=8192, generate=256,
                 batch=8, draft="qwen3-0.6b", draft_len=4, acceptance=0.7)
    draft = 596_049_920 * 2
    assert e.weight_bytes_per_chip * tp == e.weight_bytes_held + draft + 2 * copies


@pytest.mark.parametrize("tp, copies", [(8, QWEN06_TP8), (16, QWEN06_TP16)])
def test_describe_counts_the_drafts_copies(tp, copies, capsys):
    """describe's 'weights per chip' row counts every copy the replica holds, the draft's with
    the target's: Estimate.draft_copy_bytes is the draft's by hand (bf16, 2 B a parameter), and
    the row's total is the replica's weights less one copy of each model's."""
    from llm_arithmetic.cli import main
    e = estimate("qwen3-32b", hardware="h200", tp=tp, context=8192, prompt=8192, generate=256,
                 batch=8, draft="qwen3-0.6b", draft_len=4, acceptance=0.7)
    assert e.draft_copy_bytes == 2 * copies
    total = e.weight_bytes_per_chip * tp - e.weight_bytes - 596_049_920 * 2
    assert main(["describe", "qwen3-32b", "--hardware", "h200", "--tp", str(tp), "--context",
                 "8192", "--prompt", "8192", "--generate", "256", "--batch", "8", "--draft",
                 "qwen3-0.6b", "--draft-len", "4", "--acceptance", "0.7"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines()
               if "weights per chip" in line)
    assert f"with {total / 1e9:,.2f} GB of copies in the replica" in row
    assert f"the draft's {2 * copies / 1e9:,.2f} GB of them" in row
    # without a draft, no draft's share is named
    assert estimate("qwen3-32b", hardware="h200", tp=tp, context=8192).draft_copy_bytes == 0


# ---- row-parallel biases, whole-projection q/k norms, Mamba-2 groups ---------------------------
# vLLM's RowParallelLinear (o_proj, down_proj, a Mamba-2 out_proj) creates its bias of the whole
# output width on every chip and adds it on rank 0 only; gpt-oss's w2_bias (E x d) is loaded whole
# on every chip without expert parallelism; OLMo 2's q_norm (H d_head) and k_norm (H_kv d_head) are
# whole on every chip, the projections gathered for them, while MiniMax-M2 splits its
# (MiniMaxText01RMSNormTP); MambaMixer2 copies a lone B/C group to every chip (formulas/engine.py
# pins the files).

def test_row_parallel_bias_configs_as_read():
    c = _config("gpt-oss-120b")
    assert (c["num_hidden_layers"], c["hidden_size"], c["num_attention_heads"],
            c["num_key_value_heads"], c["head_dim"], c["num_local_experts"],
            c["attention_bias"]) == (36, 2880, 64, 8, 64, 128, True)
    c = _config("olmo-2-7b")
    assert (c["num_hidden_layers"], c["hidden_size"], c["num_attention_heads"],
            c["num_key_value_heads"]) == (32, 4096, 32, 32)
    c = _config("minimax-m2.5")
    assert (c["num_hidden_layers"], c["hidden_size"], c["num_key_value_heads"],
            c["num_local_experts"], c["use_qk_norm"], c["qk_norm_type"],
            c["use_routing_bias"]) == (62, 3072, 8, 256, True, "per_layer", True)


# gpt-oss-120b at tp 8 (8 KV heads, one a chip: none copied): in each of 36 layers o_proj's bias
# (2880), the router (128 x 2880 and its 128 biases), the experts' output biases (128 x 2880)
# and two norms of 2880; the final norm; 7 more copies
GPT_OSS_TP8 = 7 * (36 * (2880 + 128 * 2880 + 128 + 128 * 2880 + 2 * 2880) + 2880)
# OLMo 2 7B at tp 8: per layer its q_norm (32 x 128) and k_norm (32 x 128) and two block norms of
# 4096 (post-attention and post-feedforward); the final norm
OLMO2_TP8 = 7 * (32 * (32 * 128 + 32 * 128 + 2 * 4096) + 4096)
# MiniMax-M2.5 at tp 8: its whole-projection q/k norms are split, not copied: per layer the
# router (256 x 3072 and its 256 correction biases) and two norms of 3072; the final norm
MINIMAX_M25_TP8 = 7 * (62 * (256 * 3072 + 256 + 2 * 3072) + 3072)


def test_row_parallel_hand_counts():
    assert GPT_OSS_TP8 == 188_024_256
    assert OLMO2_TP8 == 3_698_688
    assert MINIMAX_M25_TP8 == 344_110_592


@pytest.mark.parametrize("name, copies", [("gpt-oss-120b", GPT_OSS_TP8),
                                          ("olmo-2-7b", OLMO2_TP8),
                                          ("minimax-m2.5", MINIMAX_M25_TP8)])
def test_biases_and_whole_norms_are_copied(name, copies):
    ev = _group(name, tp=8, context=4096, weights="fp8")
    assert ev.get("tp_copy_params") == copies
    assert ev.get("weight_bytes_held") == ev.get("weight_bytes") + copies


# Granite-4.0-H-Tiny (tests/configs/granite-4.0-h-tiny.json): 40 blocks of width 1536, 36 of
# them Mamba-2 (mamba_n_groups 1, d_state 128, d_conv 4, the convolution's bias on by
# GraniteMoeHybridConfig's default mamba_conv_bias=True, no projection bias), 4 attention (12
# heads, 4 KV heads of 128); every block 64 experts behind a router without bias, a shared MLP and
# two norms; a final norm. At tp N the lone group is held N times: N - 1 more copies of its
# B and C columns of in_proj (2 x 128 x 1536), of conv1d's B and C channels (2 x 128 x 4) and
# their biases (2 x 128); the 4 KV heads are one a chip at tp 4 (none copied).
GRANITE_GROUP = 2 * 128 * 1536 + 2 * 128 * 4 + 2 * 128
GRANITE_WHOLE = 40 * (64 * 1536 + 2 * 1536) + 1536


@pytest.mark.parametrize("tp", [1, 2, 4])
def test_a_lone_mamba_group_is_copied_to_every_chip(tp):
    from llm_arithmetic.catalog.readers import read_config
    c = json.loads((Path(__file__).parent / "configs/granite-4.0-h-tiny.json").read_text())
    assert (c["hidden_size"], c["mamba_n_groups"], c["mamba_d_state"], c["mamba_d_conv"],
            c["num_local_experts"], c["layer_types"].count("mamba")) == (1536, 1, 128, 4, 64, 36)
    assert GRANITE_GROUP == 394_496
    m = read_config(c, name="granite-4.0-h-tiny")
    ev = m.plan.child(**plan_inputs(m, tp=tp, context=4096))
    assert ev.get("tp_copy_params") == (tp - 1) * (36 * GRANITE_GROUP + GRANITE_WHOLE)


def test_mamba_groups_that_tp_does_not_split_are_refused():
    """Nemotron-H 56B's mixers have 8 groups: vLLM's MambaMixer2 refuses tp 16 (neither a
    divisor of the groups nor one group); tp 8 splits them."""
    from llm_arithmetic.core.errors import InputError
    with pytest.raises(InputError, match="tp = 16 does not divide the 8 B/C groups"):
        estimate("nemotron-h-56b", hardware="h200", tp=16, context=4096)
    assert estimate("nemotron-h-56b", hardware="h200", tp=8, context=4096).weight_bytes_held


# ---- copies priced at their own bits --------------------------------------------------------
# DeepSeek-V3 as shipped (fp8, one byte a weight and an fp32 scale per 128 x 128 block; the
# routers in bf16 with an fp32 e_score_correction_bias; norms in bf16) at tp 8: 7 more copies of,
# per layer, q_a_proj (1536 x 7168: 12 x 56 blocks) and kv_a_proj_with_mqa (576 x 7168: 5 x 56
# blocks, 576 = 4.5 x 128 rounded up), per MoE layer the router (256 x 7168 x 2 B and 256 x 4 B)
# and the norms (61 x (1536 + 512) latent norms, 2 x 61 + 1 norms of 7168) at 2 B.
V3_MATRIX_BYTES = (1536 + 576) * 7168 + 4 * (12 * 56 + 5 * 56)
V3_ROUTER_BYTES = 256 * 7168 * 2 + 256 * 4
V3_NORM_BYTES = 2 * (61 * (1536 + 512) + (2 * 61 + 1) * 7168)
V3_TP8_BYTES = 7 * (61 * V3_MATRIX_BYTES + 58 * V3_ROUTER_BYTES + V3_NORM_BYTES)


def test_copies_are_priced_at_their_own_bits():
    assert V3_MATRIX_BYTES == 15_142_624
    assert V3_TP8_BYTES == 7_970_434_976
    ev = _group("deepseek-v3", tp=8, context=4096)
    assert ev.get("tp_copy_params") == V3_TP8        # the same parameters as at fp8 asked
    assert ev.get("weight_bytes_copies") == V3_TP8_BYTES
    held = ev.get("weight_bytes_held")
    assert held == int(held) and held - ev.get("weight_bytes") == V3_TP8_BYTES


def test_copies_follow_the_bits_asked_and_16_bit_checkpoints():
    # asked for 4 bits, every copied parameter is half a byte; a 16-bit checkpoint's copies
    # are two bytes each, whatever their class (Llama 3.1 70B at tp 16: KV heads and norms)
    ev = _group("deepseek-v3", tp=8, context=4096, bits_weight=4)
    assert ev.get("weight_bytes_copies") == V3_TP8 / 2
    ev = _group("llama-3.1-70b", tp=16, context=4096)
    assert ev.get("weight_bytes_copies") == 2 * LLAMA_TP16


# ---- DeepSeek-V4 under tensor parallelism ----------------------------------------------------
# vLLM (formulas/engine.py pins deepseek_v4.py, deepseek_compressor.py, deepseek_v4_attention.py)
# holds whole on every chip: fused_wqa_wkv (wq_a d x r_q and wkv d x d_head), q_norm and kv_norm;
# a compressor's fused_wkv_wgate (d x 2 c_o d_head), its fp32 position bias (m_c x c_o d_head)
# and norm (d_head); an indexer's wq_b (r_q x H_I d_I), weights_proj (d x H_I) and its own
# compressor at d_I; every block's two hyper-connection mixers (fp32: (2 + n) n x n d, (2 + n) n
# and 3 each) and two norms; the router (E x d) with, past the 3 hash-routed blocks, its fp32
# correction bias (E), and in those 3 the token -> experts table tid2eid (V x k, int64 in the
# checkpoint); the hyper-connection head (hc_head_fn, _base, _scale: n x n d, n, 1, fp32); and
# the attention sinks padded to max(H / tp, 64) a chip ("padded to min 64 heads for FlashMLA",
# deepseek_v4.py). DeepSeek-V4-Flash: d 4096, r_q 1024, heads of 512, 64 heads, 4 streams,
# 256 experts, top-6, V 129,280; compress_ratios gives 2 window-only layers, 21 of ratio 4
# (c_o 2, 64 index heads of 128) and 20 of ratio 128 (c_o 1); the 44th entry is the MTP layer.
V4_D, V4_RQ, V4_DH, V4_DI = 4096, 1024, 512, 128
V4_MIX = 2 * ((2 + 4) * 4 * 4 * V4_D + (2 + 4) * 4 + 3)
V4_WINDOW = V4_D * (V4_RQ + V4_DH) + V4_RQ + V4_DH
V4_HCA = V4_WINDOW + 2 * 1 * V4_DH * V4_D + 128 * 1 * V4_DH + V4_DH
V4_CSA = (V4_WINDOW + 2 * 2 * V4_DH * V4_D + 4 * 2 * V4_DH + V4_DH
          + V4_RQ * 64 * V4_DI + V4_D * 64 + 2 * 2 * V4_DI * V4_D + 4 * 2 * V4_DI + V4_DI)
V4_HEAD, V4_TABLES = 4 * 4 * V4_D + 4 + 1, 3 * 129_280 * 6
V4_COPY = (2 * V4_WINDOW + 20 * V4_HCA + 21 * V4_CSA + 43 * (V4_MIX + 2 * V4_D + 256 * V4_D)
           + 40 * 256 + V4_D + V4_HEAD + V4_TABLES)


def v4_sinks_padded(tp, heads=64, layers=43):
    """Sinks the group holds beyond the model's: tp x max(H / tp, 64) a layer, less H."""
    return layers * (tp * max(heads // tp, 64) - heads)
# its bytes as shipped: fp8 matrices with an E8M0 scale (1 B) per 128 x 128 block, the
# compressors' and weights_proj in bf16, routers and norms bf16, mixers and position biases fp32
V4_WQA_WKV = V4_RQ * V4_D + 8 * 32 + V4_DH * V4_D + 4 * 32
V4_COPY_BYTES = (
    2 * (V4_WQA_WKV + 2 * (V4_RQ + V4_DH + 2 * V4_D) + 4 * V4_MIX)
    + 20 * (V4_WQA_WKV + 2 * 2 * V4_DH * V4_D + 2 * (V4_RQ + 2 * V4_DH + 2 * V4_D)
            + 4 * (V4_MIX + 128 * V4_DH))
    + 21 * (V4_WQA_WKV + 2 * 2 * 2 * V4_DH * V4_D + 2 * 2 * 2 * V4_DI * V4_D
            + 64 * V4_DI * V4_RQ + 64 * 8 + 2 * V4_D * 64
            + 2 * (V4_RQ + 2 * V4_DH + V4_DI + 2 * V4_D) + 4 * (V4_MIX + 4 * 2 * V4_DH
                                                               + 4 * 2 * V4_DI))
    + 43 * 2 * 256 * V4_D + 4 * 40 * 256 + 2 * V4_D + 4 * V4_HEAD + 8 * V4_TABLES)


def test_deepseek_v4_copies_by_hand():
    c = _config("deepseek-v4-flash")
    r = c["compress_ratios"]
    assert (c["hidden_size"], c["q_lora_rank"], c["head_dim"], c["hc_mult"],
            c["index_n_heads"], c["index_head_dim"], c["n_routed_experts"],
            c["num_hidden_layers"]) == (4096, 1024, 512, 4, 64, 128, 256, 43)
    assert (r[:43].count(0), r[:43].count(4), r[:43].count(128)) == (2, 21, 20)
    assert (c["num_hash_layers"], c["vocab_size"], c["num_experts_per_tok"],
            c["num_attention_heads"]) == (3, 129_280, 6, 64)
    # 837,057,426 before the head, the tables, the correction biases and the padded sinks
    assert V4_COPY == 837_057_426 + 65_541 + 2_327_040 + 10_240 == 839_460_247
    assert V4_COPY_BYTES == 1_297_923_016 + 4 * 65_541 + 8 * 2_327_040 + 4 * 10_240
    assert (v4_sinks_padded(2), v4_sinks_padded(8)) == (43 * 64, 43 * 448)
    for tp in (2, 8):
        ev = _group("deepseek-v4-flash", tp=tp, context=4096)
        assert ev.get("tp_copy_params") == (tp - 1) * V4_COPY + v4_sinks_padded(tp)
        # the sinks are fp32 in the checkpoint
        assert ev.get("weight_bytes_copies") == ((tp - 1) * V4_COPY_BYTES
                                                 + 4 * v4_sinks_padded(tp))


@pytest.mark.parametrize("tp, padded", [(1, 0), (2, 0), (4, 61 * (4 * 64 - 128)),
                                        (8, 61 * (8 * 64 - 128))])
def test_deepseek_v4_pro_sinks_are_padded_to_64_a_chip(tp, padded):
    """DeepSeek-V4-Pro has 128 heads: 64 a chip at tp 2 (no padding), 32 at tp 4 padded to 64,
    16 at tp 8 padded to 64, in each of 61 layers (vLLM's attn_sink of max(H / tp, 64))."""
    from llm_arithmetic.catalog.readers import read_config
    c = json.loads((Path(__file__).parent / "configs/deepseek-v4-pro.json").read_text())
    assert (c["num_attention_heads"], c["num_hidden_layers"]) == (128, 61)
    assert v4_sinks_padded(tp, heads=128, layers=61) == padded
    m = read_config(c, name="deepseek-v4-pro")
    ev = m.plan.child(**plan_inputs(m, tp=tp, context=4096))
    assert ev.get("copies_heads") == padded


def test_deepseek_v4_head_and_tables_are_whole_on_every_chip():
    """The hyper-connection head (65,541) and the hash-routing tables (3 x 129,280 x 6) are held
    whole on every chip: tp - 1 more copies of each; the other extras (the MTP module, outside the
    total) are not."""
    m = get_model("deepseek-v4-flash")
    assert [(x.name, x.params) for x in m.extras if x.copied] == [
        ("hyper-connection head", V4_HEAD), ("hash-routing tables", V4_TABLES)]
    ev = _group("deepseek-v4-flash", tp=4, context=4096)
    assert ev.get("extras_copies") == 3 * (V4_HEAD + V4_TABLES)


# ---- a latent mixture's projections ------------------------------------------------------------
# vLLM builds Nemotron-H's fc1_latent_proj and fc2_latent_proj (and Kimi K3's routed_expert_down_proj
# and _up_proj) as ReplicatedLinear: whole on every chip. Nemotron 3 Super: 40 MoE layers ("E" in
# hybrid_override_pattern) of width 4096, latent 1024, 512 experts behind a router with a
# correction bias: at tp 8, 7 more copies of 2 x 4096 x 1024 projections and of the router.
def test_latent_projections_are_copied():
    c = _config("nemotron-3-super")
    assert (c["hidden_size"], c["moe_latent_size"], c["n_routed_experts"],
            c["hybrid_override_pattern"].count("E")) == (4096, 1024, 512, 40)
    ev = _group("nemotron-3-super", tp=8, context=4096)
    assert ev.get("copies_matrices") == 7 * 40 * 2 * 4096 * 1024
    assert ev.get("copies_router") == 7 * 40 * (512 * 4096 + 512)


# ---- a lone Mamba-2 group's convolution state on every chip --------------------------------
# vLLM's MambaMixer2 extends one group to tp groups (extra_groups_for_head_shards): each chip's
# conv1d covers its share of x and a whole group's B and C channels, so each chip's convolution
# state holds (d_conv - 1) x 2 x d_state of them. Granite-4.0-H-Tiny (36 Mamba-2 blocks, one group,
# d_state 128, d_conv 4) at 16 bits: tp - 1 more copies of 3 x 2 x 128 values of 2 B a block and
# sequence; the recurrent matrices are split with the heads.
@pytest.mark.parametrize("tp", [1, 2, 4])
def test_a_lone_mamba_groups_conv_state_is_on_every_chip(tp):
    from llm_arithmetic.catalog.readers import read_config
    c = json.loads((Path(__file__).parent / "configs/granite-4.0-h-tiny.json").read_text())
    m = read_config(c, name="granite-4.0-h-tiny")
    batch = 3
    ev = m.plan.child(**plan_inputs(m, tp=tp, context=4096, batch=batch))
    extra = (tp - 1) * 36 * (4 - 1) * 2 * 128 * 2
    assert ev.get("state_bytes_held") - ev.get("state_bytes") == extra
    assert ev.get("batch_state_bytes_held") == ev.get("batch_state_bytes") + batch * extra
    # a mixer whose groups tp splits holds no more: Nemotron-H 56B (8 groups) at tp 8
    n = get_model("nemotron-h-56b")
    ev = n.plan.child(**plan_inputs(n, tp=8, context=4096))
    assert ev.get("state_bytes_held") == ev.get("state_bytes")


# ---- copies under a llama.cpp file type, at the types of the tensors they copy ----------------
# Llama 3.1 70B in Q4_K_M (llama.cpp's src/llama-quant.cpp rules as catalog/formats.py models
# them): attn_k Q4_K (4.5 bits) in all 80 layers; attn_v Q6_K (6.5625) in the 40 layers
# use_more_bits picks (the first and last 10, every third between) and Q5_K (5.5) in the other
# 40 (a 70B model's Q4_K attn_v raised to Q5_K); k and v of the same size. Norms are 1-D tensors,
# F32 in every GGUF file. At tp 16: LLAMA_TP16's heads at their mean, its norms at 32 bits.
def test_copies_under_a_llama_cpp_file_type_take_their_tensors_types():
    heads = (16 - 8) * 2 * 128 * 8192 * 80
    norms = 15 * (2 * 80 + 1) * 8192
    assert heads + norms == LLAMA_TP16
    bits_kv = (80 * 4.5 + 40 * 6.5625 + 40 * 5.5) / 160
    assert bits_kv == 5.265625
    ev = _group("llama-3.1-70b", tp=16, context=4096, weights="q4_k_m")
    assert ev.get("copies_heads") == heads and ev.get("copies_plain") == norms
    assert ev.get("weight_bytes_copies") == heads * bits_kv / 8 + norms * 4 == 962_560_000


# ---- lightning attention, Mamba-1, gated memory units, differential attention ----------------
# vLLM (formulas/engine.py pins linear_attn.py, mamba_mixer.py, phi4flash.py) splits a lightning
# attention mixer by heads (qkv_proj, output_gate column-parallel, its norm MiniMaxText01RMSNormTP
# split, out_proj row-parallel without bias), a Mamba-1 mixer by channels (in_proj, conv1d and its
# bias, dt_proj and its bias column-parallel, x_proj row-parallel without bias, A and D by
# d_in / tp, out_proj row-parallel without bias here) and a gated memory unit likewise (in_proj
# column-, out_proj row-parallel, no bias): none of them copies anything. Differential
# attention's four lambda vectors of d_head and its sub-norm of 2 d_head are plain parameters
# shared by the heads: whole on every chip. The state is split with the heads or channels.
_CONFIGS = Path(__file__).resolve().parent / "configs"


def _read(name: str):
    from llm_arithmetic.catalog.readers import read_config
    cfg = json.loads((_CONFIGS / f"{name}.json").read_text())
    return cfg, read_config(cfg, name=name)


# MiniMax-M1 (minimax-m1-80k.json): 80 blocks of width 6144, 70 lightning (64 heads of 128) and
# 10 softmax (64 heads, 8 KV heads of 128, no biases, no q/k norms), every block 32 experts behind
# a router without bias and two norms; a final norm. At tp 8 each chip holds one of the 8 KV
# heads: only the routers and norms are copied, 7 more times. At tp 16 a KV head is on two chips:
# 16 - 8 more heads' K and V (2 x 128 x 6144) in each softmax layer, and 15 more copies.
M1_WHOLE = 80 * (32 * 6144 + 2 * 6144) + 6144
M1_TP8 = 7 * M1_WHOLE
M1_TP16 = (16 - 8) * 2 * 128 * 6144 * 10 + 15 * M1_WHOLE
# Phi-4-mini-flash (phi-4-mini-flash-reasoning.json): 32 blocks of width 2560, each with two
# LayerNorms (weight and bias: 4 vectors) and an MLP without bias; 9 Mamba-1 blocks, 7 gated
# memory units (d_gmu 5120), 9 attention blocks with keys and values of their own (40 heads, 20
# KV heads of 64, q/k/v and output biases, differential) and 7 cross-decoder blocks reading
# block 17's cache (query and output biases, differential); a final LayerNorm (2 vectors).
# Every chip holds whole: per block the 4 norm vectors, per attention block o_proj's bias
# (2560) and the lambdas and sub-norm (6 x 64); the final norm.
PHI_WHOLE = 32 * 4 * 2560 + 16 * (2560 + 6 * 64) + 2 * 2560


def test_new_mixers_hand_counts():
    assert M1_WHOLE == 16_717_824
    assert (M1_TP8, M1_TP16) == (117_024_768, 376_596_480)
    assert PHI_WHOLE == 379_904


def test_new_mixers_configs_as_read():
    c, _ = _read("minimax-m1-80k")
    assert (c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"],
            c["num_key_value_heads"], c["head_dim"], c["num_local_experts"],
            c["attn_type_list"].count(0)) == (6144, 80, 64, 8, 128, 32, 70)
    c, m = _read("phi-4-mini-flash-reasoning")
    assert (c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"],
            c["num_key_value_heads"], c["mb_per_layer"], c["mlp_bias"]) == (
                2560, 32, 40, 20, 2, False)
    # the file names no Mamba widths: the remote code's defaults (expand 2, d_state 16,
    # d_conv 4), as vLLM's Phi4Mamba takes them
    assert {(r.mixer.d_inner, r.mixer.d_state, r.mixer.d_conv) for r in m.layers
            if type(r.mixer).__name__ == "Mamba1"} == {(5120, 16, 4)}


@pytest.mark.parametrize("name, tp, copies", [
    ("minimax-m1-80k", 1, 0), ("minimax-m1-80k", 8, M1_TP8), ("minimax-m1-80k", 16, M1_TP16),
    ("phi-4-mini-flash-reasoning", 2, PHI_WHOLE), ("phi-4-mini-flash-reasoning", 4, 3 * PHI_WHOLE),
    # at tp 40 the 20 KV heads are on two chips each: 20 more heads' K and V with their biases
    # (2 x 64 x (2560 + 1)) in each of the 9 attention blocks that own a cache
    ("phi-4-mini-flash-reasoning", 40, 20 * 2 * 64 * 2561 * 9 + 39 * PHI_WHOLE)])
def test_new_mixers_copies_by_hand(name, tp, copies):
    _, m = _read(name)
    ev = m.plan.child(**plan_inputs(m, tp=tp, context=4096))
    assert ev.get("tp_copy_params") == copies
    # bf16: two bytes a copied parameter
    assert ev.get("weight_bytes_held") == ev.get("weight_bytes") + 2 * copies


@pytest.mark.parametrize("name, tp, chip_state", [
    # 70 lightning layers, 64 / 8 heads a chip, a 128 x 128 matrix each, bf16
    ("minimax-m1-80k", 8, 70 * (64 // 8) * 128 * 128 * 2),
    # 9 Mamba-1 layers that keep a state, 5120 / 2 channels a chip, a window of 4 - 1 inputs and
    # 16 state values each, bf16
    ("phi-4-mini-flash-reasoning", 2, 9 * (5120 // 2) * (3 + 16) * 2)])
def test_new_mixers_state_is_split(name, tp, chip_state):
    _, m = _read(name)
    ev = m.plan.child(**plan_inputs(m, tp=tp, context=4096))
    assert ev.get("state_bytes_held") == ev.get("state_bytes") == tp * chip_state
    assert (tp * chip_state) in (146_800_640, 1_751_040)


def test_new_mixers_widths_that_tp_does_not_split_are_refused():
    """tp must divide a lightning mixer's heads (vLLM asserts it), a Mamba-1 mixer's inner
    channels and a gated memory unit's channels (column-parallel projections). The vendored
    files meet every tp their attention heads allow, so the widths are changed here."""
    import dataclasses

    from llm_arithmetic.core.errors import InputError
    from llm_arithmetic.layout import parallel_degrees

    def changed(m, **kw):
        return dataclasses.replace(m, layers=tuple(
            dataclasses.replace(r, mixer=dataclasses.replace(r.mixer, **{
                k: v for k, v in kw.items() if hasattr(r.mixer, k)}))
            if r.mixer is not None else r for r in m.layers))

    _, m1 = _read("minimax-m1-80k")
    assert parallel_degrees(m1, 16, 1, 1) == (16, 1, 1)
    with pytest.raises(InputError, match="tp = 32 does not divide the 48 heads of "
                       "minimax-m1-80k's lightning attention mixers"):
        parallel_degrees(changed(m1, la_heads=48), 32, 1, 1)
    _, phi = _read("phi-4-mini-flash-reasoning")
    assert parallel_degrees(phi, 40, 1, 1) == (40, 1, 1)
    with pytest.raises(InputError, match="tp = 40 does not divide the 5100 inner channels of "
                       "phi-4-mini-flash-reasoning's Mamba-1 mixers"):
        parallel_degrees(changed(phi, d_inner=5100), 40, 1, 1)
    with pytest.raises(InputError, match="tp = 40 does not divide the 5100 channels of "
                       "phi-4-mini-flash-reasoning's gated memory units"):
        parallel_degrees(changed(phi, memory_width=5100), 40, 1, 1)


# Jamba v0.1 (catalog jamba-v0.1): 32 blocks of 4,096, each with two RMSNorms; 16 mixtures of 16
# experts behind a router without bias (16 x 4,096, whole on every chip as vLLM's ReplicatedLinear
# gate); 28 Mamba-1 blocks split by channels whose dt, B and C norms (256 + 2 x 16) every chip
# holds whole (vLLM's MambaMixer: plain RMSNorms); 4 attention blocks of 8 KV heads of 128, no
# biases; a final norm. At tp 16 each KV head is on two chips: 8 more heads' K and V.
JAMBA_WHOLE = 16 * 16 * 4096 + 32 * 2 * 4096 + 4096 + 28 * (256 + 2 * 16)
# Falcon Mamba 7B: 64 Mamba-1 blocks split by channels (weightless inner norms), one RMSNorm each
# and a final one, nothing else copied.
FALCON_MAMBA_WHOLE = 64 * 4096 + 4096


@pytest.mark.parametrize("name, tp, copies", [
    ("jamba-v0.1", 2, JAMBA_WHOLE), ("jamba-v0.1", 4, 3 * JAMBA_WHOLE),
    ("jamba-v0.1", 16, (16 - 8) * 2 * 128 * 4096 * 4 + 15 * JAMBA_WHOLE),
    ("falcon-mamba-7b", 2, FALCON_MAMBA_WHOLE), ("falcon-mamba-7b", 8, 7 * FALCON_MAMBA_WHOLE)])
def test_mamba1_families_copies_by_hand(name, tp, copies):
    assert JAMBA_WHOLE == 1_322_880
    m = get_model(name)
    ev = m.plan.child(**plan_inputs(m, tp=tp, context=4096))
    assert ev.get("tp_copy_params") == copies
    assert ev.get("weight_bytes_held") == ev.get("weight_bytes") + 2 * copies


# Step3 (catalog step3; vLLM's step3_text.py @ 0169d3962ccac3798b508b16f74aafb8106d19fa): each of
# the 61 blocks' qkv_proj is a ReplicatedLinear, so every chip holds the query's down-projection
# (7,168 x 2,048) and its inter_norm (2,048) whole, and its one key/value head (K and V, 7,168 x
# 256 each) as any lone head is copied; wq and o_proj split by heads; the two RMSNorms of a block
# and the final norm whole; the 56 routers (7,168 x 48, no bias) whole; experts, shared experts
# and dense MLPs split.
STEP3_WHOLE = 61 * (7168 * 2048 + 2048 + 2 * 7168 + 2 * 7168 * 256) + 56 * 7168 * 48 + 7168


@pytest.mark.parametrize("tp", [2, 8, 16])
def test_step3_low_rank_query_copies_by_hand(tp):
    assert STEP3_WHOLE == 1_139_629_056
    m = get_model("step3")
    ev = m.plan.child(**plan_inputs(m, tp=tp, context=4096))
    assert ev.get("tp_copy_params") == (tp - 1) * STEP3_WHOLE
    assert ev.get("weight_bytes_held") == ev.get("weight_bytes") + 2 * (tp - 1) * STEP3_WHOLE
