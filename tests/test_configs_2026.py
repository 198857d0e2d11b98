"""Real config.json files of 2025-2026 families (issue 26), read by what their layers are.

Three independent sources for every answered file:

* the meta-device count of ``tests/data/ground_truth.json``: the transformers release that
  defines the family instantiated the file on PyTorch's meta device
  (``scripts/ground_truth/count.py``, its own environment, not run here); each file says which
  of parameters alone or parameters + persistent buffers the library's count equals;
* the published count (model card or repository name, ``tests/configs/SOURCES.md`` section 7);
* the KV bytes per token of the hand derivations in ``tests/configs/FAMILIES.md`` section 14.

Files whose layers the library lacks are refused in one line naming the first missing layer
kind and the key that declares it (FAMILIES.md section 14.6); relabelled or contradicted files
are refused naming the key. The catalog's own configs are compared with the same ground truth.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from llm_arithmetic import get_model as get_model_by_name
from llm_arithmetic.catalog.readers import read_config
from llm_arithmetic.core.errors import ConfigError, InputError

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "tests" / "configs"
CATALOG = ROOT / "lib" / "llm_arithmetic" / "catalog" / "data" / "models"
TRUTH = json.loads((ROOT / "tests" / "data" / "ground_truth.json").read_text(encoding="utf-8"))


def truth(path: Path) -> dict:
    return TRUTH["models"][path.relative_to(ROOT).as_posix()]


def config(name: str) -> dict:
    return json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))


# file -> (which meta count the library equals, KV bytes per token from FAMILIES.md section 14)
ANSWERED = {
    "qwen3-coder-480b-a35b-instruct": ("params", 253_952),
    "kimi-k2-instruct": ("params+buffers", 70_272),
    "nvidia-nemotron-3-nano-30b-a3b-bf16": ("params+buffers", 6_144),
    "qwen3-vl-8b-instruct": ("params", 147_456),
    "qwen3-vl-30b-a3b-instruct": ("params", 98_304),
    "meta-llama-3.1-405b": ("params", 516_096),
    "qwen3-32b": ("params", 262_144),
    "minimax-m2.5": ("params+buffers", 253_952),
    "kimi-k2.5": ("params+buffers", 70_272),
    # Gated DeltaNet hybrids: the full-attention layers alone cache keys and values
    "qwen3.5-27b": ("params", 65_536),
    "qwen3.5-35b-a3b": ("params", 20_480),
    "qwen3.5-397b-a17b": ("params", 30_720),
    "qwen3-next-80b-a3b-thinking": ("params", 12 * 2 * 2 * 256 * 2),
    # Kimi delta attention hybrid: 7 MLA layers cache the latent and the rotary key (14.19)
    "kimi-linear-48b-a3b-instruct": ("params+buffers", 7 * (512 + 64) * 2),
    # sparse attention: MLA's latent and rotary key, and the indexer's key (FAMILIES.md 14.11)
    "deepseek-v3.2": ("params+buffers", 61 * (512 + 64 + 128) * 2),
    "glm-5": ("params+buffers", 78 * (512 + 64 + 128) * 2),
    # GLM-5.2: the 21 'full' layers cache the indexer's key as GLM-5's do; the 57 'shared' ones
    # (indexer_types) reuse an earlier layer's top-k and cache MLA's latent and rotary key only
    "glm-5.2": ("params+buffers", 21 * (512 + 64 + 128) * 2 + 57 * (512 + 64) * 2),
    # per-layer geometry: 48 heads on full, 64 on sliding layers, 8 KV heads of 128 in all 40
    "laguna-xs.2-fp8": ("params", 40 * 2 * 8 * 128 * 2),
    # windows with their own heads, values narrower than keys: 9 full layers with 4 KV heads,
    # 39 sliding with 8, keys of 192 and values of 128
    "mimo-v2-flash": ("params+buffers", 9 * 4 * (192 + 128) * 2 + 39 * 8 * (192 + 128) * 2),
    # latent MoE: 8 attention layers with 2 KV heads of 128 (FAMILIES.md 14.14)
    "nvidia-nemotron-3-super-120b-a12b-fp8": ("params+buffers", 8 * 2 * 2 * 128 * 2),
    # the pattern as transformers' NemotronHConfig writes it, a layers_block_type list (Ultra's
    # file has no num_hidden_layers): 6 and 12 'attention' entries with 2 KV heads of 128
    "nvidia-nemotron-3.5-lightning-30b-a3b-nvfp4": ("params+buffers", 6 * 2 * 2 * 128 * 2),
    "nvidia-nemotron-3-ultra-550b-a55b-bf16": ("params+buffers", 12 * 2 * 2 * 128 * 2),
    # per-layer geometry (FAMILIES.md 14.16): sliding layers 8 (16) KV heads of 256, global
    # layers 2 (4) KV heads of 512 whose values are the key projection, still cached apart
    "gemma-4-26b-a4b": ("params", 25 * 2 * 8 * 256 * 2 + 5 * 2 * 2 * 512 * 2),
    "gemma-4-31b-it-nvfp4": ("params", 50 * 2 * 16 * 256 * 2 + 10 * 2 * 4 * 512 * 2),
    # block-sparse attention (FAMILIES.md 14.6): 60 layers of 4 KV heads of 128, and an index
    # key of 128 in the 57 sparse ones
    "minimax-m3": ("params+buffers", 60 * 2 * 4 * 128 * 2 + 57 * 128 * 2),
    # FAMILIES.md section 17: MLA's latent and rotary key in 47 layers; 64 layers of 8 KV heads
    "glm-4.7-flash": ("params+buffers", 47 * (512 + 64) * 2),
    "seed-oss-36b-instruct": ("params", 64 * 2 * 8 * 128 * 2),
    "hunyuan-a13b": ("params", 32 * 2 * 8 * 128 * 2),
    "dots-llm1-inst": ("params+buffers", 62 * 2 * 32 * 128 * 2),
    "ernie-4.5-0.3b": ("params", 18 * 2 * 2 * 128 * 2),
    "hunyuan-mt-7b": ("params", 32 * 2 * 8 * 128 * 2),
    # FAMILIES.md 17.11: Granite-4.0-H-Tiny's 4 attention layers of 4 KV heads of 128
    "granite-4.0-h-tiny": ("params", 4 * 2 * 4 * 128 * 2),
    # FAMILIES.md 17.13: an LFM2.5-1.2B's 6 attention layers of 8 KV heads of 64
    "lfm2.5-1.2b-distilled": ("params", 6 * 2 * 8 * 64 * 2),
    # and LFM2-8B-A1B's (its routers' expert_bias buffers counted as their biases)
    "lfm2-8b-a1b": ("params+buffers", 6 * 2 * 8 * 64 * 2),
    # FAMILIES.md 17.14: MiniMax-M1's 10 softmax layers of 8 KV heads of 128 (the 70 lightning
    # attention layers keep a constant state instead)
    "minimax-m1-80k": ("params", 10 * 2 * 8 * 128 * 2),
    # FAMILIES.md 17.17: Trinity's every layer caches 4 (Nano: 2) KV heads of 128; 3 in 4 of
    # them windowed at 2,048 tokens, which a token-count this short does not reach
    "trinity-mini": ("params", 32 * 2 * 4 * 128 * 2),
    "trinity-nano-preview": ("params", 56 * 2 * 2 * 128 * 2),
    # FAMILIES.md 17.18: AFM-4.5B's 36 layers of 4 KV heads of 128
    "afm-4.5b": ("params", 36 * 2 * 4 * 128 * 2),
    # FAMILIES.md 17.32: InternLM3-8B-Instruct's 48 layers of 2 KV heads of 128
    "internlm3-8b-instruct": ("params", 48 * 2 * 2 * 128 * 2),
    # FAMILIES.md 17.41: EXAONE-3.5-32B's 64 layers of 8 KV heads of 128
    "exaone-3.5-32b-instruct": ("params", 64 * 2 * 8 * 128 * 2),
    # FAMILIES.md 17.42: Minitron's 32 layers and Nemotron-4-340B's 96, each of 8 KV heads
    "minitron-8b-base": ("params", 32 * 2 * 8 * 128 * 2),
    "minitron-4b-base": ("params", 32 * 2 * 8 * 128 * 2),
    "nemotron-4-340b-base-hf": ("params", 96 * 2 * 8 * 192 * 2),
    # FAMILIES.md 17.43: 32 (16) layers of 32 (16) KV heads of 128
    "olmo-1.7-7b": ("params", 32 * 2 * 32 * 128 * 2),
    "olmo-7b-hf": ("params", 32 * 2 * 32 * 128 * 2),
    "olmo-1b-hf": ("params", 16 * 2 * 16 * 128 * 2),
    # FAMILIES.md 17.44: StableLM 2 1.6B's 24 layers of 32 KV heads of 64
    "stablelm-2-1_6b-chat": ("params", 24 * 2 * 32 * 64 * 2),
}

# file -> persistent buffers the meta count holds that no checkpoint weight is, by hand:
# Gemma 4's layer_scalar (one per decoder layer) and its vision tower's standardization
# (std_bias, std_scale of the tower's width)
# MiniMax-M1's lightning attention decay tables, computed from each head's slope (64 heads, blocks
# of 256: slope_rate H, query_decay and key_decay H x 256, diagonal_decay H x 256 x 256, in each of
# the 70 lightning layers), which the checkpoint does not ship
BUFFERS_NOT_COUNTED = {"gemma-4-26b-a4b": 30 + 2 * 1152, "gemma-4-31b-it-nvfp4": 60 + 2 * 1152,
                       "minimax-m1-80k": 70 * (64 + 2 * 64 * 256 + 64 * 256 * 256)}

# file -> the key the refusal names (FAMILIES.md section 14.6): none since GLM-5.2's shared
# indexers are read; the refusal of layer kinds is tested on relabelled copies
REFUSED: dict[str, str] = {}
# read, with no meta count of transformers (5.24.0 defines neither `mimo`, `nemotron-nas`,
# `kimi_k3`, `phi4flash` nor `bailing_moe_v2`): FAMILIES.md sections 14.22, 14.23, 14.24, 17.15
# and 17.16 (Ling 2.0: checked against inclusionAI's own code on the meta device)
BY_HAND = {"mimo-7b-base", "llama-3_3-nemotron-super-49b-v1", "kimi-k3",
           "phi-4-mini-flash-reasoning", "ling-mini-2.0",
           "minicpm-2b-dpo-bf16"}  # FAMILIES.md 17.31: OpenBMB's remote code, by hand
# read, and compared with a meta count transformers built from its own defaults (the file is
# flat, its class multimodal): FAMILIES.md section 14.21
FROM_DEFAULTS = {"step-3.7-flash"}
# families vendored for tests/test_families.py, which reads them all (SOURCES.md section 8)
FAMILY_FILES = {"qwen2.5-0.5b-instruct", "mixtral-8x7b-v0.1", "gpt-oss-20b", "c4ai-command-r-v01",
                "deepseek-r1", "glm-4.5", "olmoe-1b-7b-0125-instruct", "starcoder2-7b",
                "starcoderbase-7b"}
# parameters and the persistent buffers the checkpoint stores (routing tables, correction biases)
# exact against the meta count, the cache by hand (FAMILIES.md section 14.18)
PARAMS_ONLY = {"deepseek-v4-flash", "deepseek-v4-pro"}
# read; the meta count holds tensors the checkpoint lacks: transformers builds Hunyuan-Large
# without cross-layer attention, so with the k_proj and v_proj its sharing layers lack
# (FAMILIES.md section 17.4), and StableLM 2 12B with the block norms' biases its file's
# use_norm_bias (false) drops (FAMILIES.md section 17.44)
META_EXCEEDS_CHECKPOINT = {"hunyuan-a52b-pretrain", "stablelm-2-12b"}


def test_every_vendored_file_is_classified_and_has_ground_truth():
    names = {p.stem for p in CONFIGS.glob("*.json")}
    assert names == (set(ANSWERED) | set(REFUSED) | BY_HAND | FAMILY_FILES | PARAMS_ONLY
                     | FROM_DEFAULTS | META_EXCEEDS_CHECKPOINT)
    for p in CONFIGS.glob("*.json"):
        assert truth(p)["model_type"] == json.loads(p.read_text())["model_type"], p.name
    assert TRUTH["transformers"] == "5.24.0"
    # a count transformers built from its own defaults instead of the file's sizes is flagged in
    # the data (Step-3.7-Flash's flat file read as a multimodal class) and compared only after
    # the flagged difference is accounted for (test_step_3_7_flash_...)
    flagged = {p for p, t in TRUTH["models"].items() if "config_mismatch" in t}
    assert flagged == {"tests/configs/step-3.7-flash.json"}
    sources = (CONFIGS / "SOURCES.md").read_text(encoding="utf-8")
    assert all(f"`{name}.json`" in sources for name in names)


@pytest.mark.parametrize("name", sorted(ANSWERED))
def test_count_equals_the_meta_device_count(name):
    which, _ = ANSWERED[name]
    t = truth(CONFIGS / f"{name}.json")
    expected = t["params"] + (t["persistent_buffers"] if which == "params+buffers" else 0)
    assert read_config(CONFIGS / f"{name}.json").total_params == expected
    if which == "params":  # the statement is unambiguous
        assert t["persistent_buffers"] == BUFFERS_NOT_COUNTED.get(name, 0)
    if name.startswith("gemma-4"):  # which buffers: one scalar per layer, the standardization
        layers = config(name)["text_config"]["num_hidden_layers"]
        assert t["persistent_buffer_names"] == {"layer_scalar": layers, "std_bias": 1152,
                                                "std_scale": 1152}


@pytest.mark.parametrize("name", sorted(ANSWERED))
def test_kv_bytes_per_token_equal_the_hand_derivation(name):
    assert read_config(CONFIGS / f"{name}.json").kv_cache_bytes_per_token() == ANSWERED[name][1]


@pytest.mark.parametrize("name, published, digits", [
    # SOURCES.md section 7: model cards and repository names, rounded as published
    ("qwen3-coder-480b-a35b-instruct", 480e9, 0),
    ("kimi-k2-instruct", 1e12, 0),
    ("nvidia-nemotron-3-nano-30b-a3b-bf16", 31.6e9, 1),
    ("qwen3-32b", 32.8e9, 1),
])
def test_count_rounds_to_the_published_one(name, published, digits):
    total = read_config(CONFIGS / f"{name}.json").total_params
    scale = 1e12 if published >= 1e12 else 1e9
    assert round(total / scale, digits) == round(published / scale, digits)


def test_gemma4_language_models_round_to_the_published_counts():
    # SOURCES.md section 7: 25.2B total and 3.8B active (26B-A4B), 30.7B (31B): the language
    # model alone, the vision tower apart; active with the tied embedding once, 8 of 128 experts
    m = read_config(CONFIGS / "gemma-4-26b-a4b.json")
    text = m.total_params - sum(e.params for e in m.extras if e.in_total)
    assert (round(text / 1e9, 1), round(m.active_params / 1e9, 1)) == (25.2, 3.8)
    m = read_config(CONFIGS / "gemma-4-31b-it-nvfp4.json")
    assert round((m.total_params - sum(e.params for e in m.extras if e.in_total)) / 1e9, 1) == 30.7


def test_llama_405b_truncates_to_the_paper():
    assert int(read_config(CONFIGS / "meta-llama-3.1-405b.json").total_params / 1e9) == 405


@pytest.mark.parametrize("name, towers", [
    ("qwen3-vl-8b-instruct", ["model.visual"]),
    ("qwen3-vl-30b-a3b-instruct", ["model.visual"]),
    ("kimi-k2.5", ["model.vision_tower", "model.mm_projector"]),
    ("qwen3.5-27b", ["model.visual"]),
    ("qwen3.5-35b-a3b", ["model.visual"]),
    ("qwen3.5-397b-a17b", ["model.visual"]),
    ("gemma-4-26b-a4b", ["model.vision_tower", "model.embed_vision"]),
    ("gemma-4-31b-it-nvfp4", ["model.vision_tower", "model.embed_vision"]),
])
def test_multimodal_language_model_and_tower_split_as_transformers_builds_them(name, towers):
    m = read_config(CONFIGS / f"{name}.json")
    t = truth(CONFIGS / f"{name}.json")
    tower = sum(e.params for e in m.extras if e.in_total)
    assert tower == sum(t["by_prefix"][p] for p in towers)
    buffers = t["persistent_buffers"] if ANSWERED[name][0] == "params+buffers" else 0
    assert m.total_params - tower == (t["by_prefix"]["model.language_model"]
                                      + t["by_prefix"].get("lm_head.weight", 0) + buffers)


def test_kimi_k2_5_language_model_is_kimi_k2():
    k25 = read_config(CONFIGS / "kimi-k2.5.json")
    k2 = read_config(CONFIGS / "kimi-k2-instruct.json")
    assert k25.total_params - sum(e.params for e in k25.extras if e.in_total) == k2.total_params


def test_qwen3_vl_moe_language_model_is_qwen3_30b_a3b():
    vl = read_config(CONFIGS / "qwen3-vl-30b-a3b-instruct.json")
    text = read_config(CATALOG / "qwen3-30b-a3b" / "config.json")
    assert vl.total_params - sum(e.params for e in vl.extras if e.in_total) == text.total_params
    assert vl.kv_cache_bytes_per_token() == text.kv_cache_bytes_per_token()


# file -> the Gated DeltaNet state of one sequence at 16 bits (FAMILIES.md section 14.10):
# linear layers x (H_v d_k d_v + (2 H_qk d_k + H_v d_v)(k_conv - 1)) x 2 B
# Gated DeltaNet layers x (recurrent matrices H_v d_k d_v, convolution window (2 H_qk d_k +
# H_v d_v) (k_conv - 1)) elements per sequence (FAMILIES.md section 14)
GDN_ELEMENTS = {
    "qwen3.5-27b": (48 * 48 * 128 * 128, 48 * (2 * 16 * 128 + 48 * 128) * 3),
    "qwen3.5-35b-a3b": (30 * 32 * 128 * 128, 30 * (2 * 16 * 128 + 32 * 128) * 3),
    "qwen3.5-397b-a17b": (45 * 64 * 128 * 128, 45 * (2 * 16 * 128 + 64 * 128) * 3),
    "qwen3-next-80b-a3b-thinking": (36 * 32 * 128 * 128, 36 * (2 * 16 * 128 + 32 * 128) * 3),
}
#: Bytes per element of the recurrent matrices as the file names them (Qwen3.5's
#: text_config.mamba_ssm_dtype: float32, as vLLM keeps them; Qwen3-Next names none: the state's
#: own 2 bytes at the default 16 bits).
_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, None: 2}


def _gdn_matrix_bytes(name: str) -> int:
    config = json.loads((CONFIGS / f"{name}.json").read_text())
    return _DTYPE_BYTES[config.get("text_config", config).get("mamba_ssm_dtype")]


@pytest.mark.parametrize("name", sorted(GDN_ELEMENTS))
def test_gated_deltanet_state_equals_the_hand_derivation_and_stays_constant(name):
    m = read_config(CONFIGS / f"{name}.json")
    matrix, conv = GDN_ELEMENTS[name]
    state = matrix * _gdn_matrix_bytes(name) + conv * 2
    assert m.state_bytes() == state
    # every element at 16 bits, or at 32, when the matrices' bits are asked
    assert m.state_bytes(bits_ssm=16) == (matrix + conv) * 2
    assert m.state_bytes(bits_state=32, bits_ssm=32) == (matrix + conv) * 4
    # a decode step reads the cache of the full-attention layers and the state, read and
    # written: only the cache grows with the context
    kv = m.kv_cache_bytes_per_token()
    for s in (1, 4096, 262_144):
        assert m.seq_bytes(s) == kv * s + 2 * state


# Kimi-Linear-48B-A3B (FAMILIES.md section 14.19): 20 KDA layers x (H d_k d_k + 3 H d_k
# (k_conv - 1)) x 2 B, 32 heads of 128, k_conv = 4
KDA_STATE = 20 * (32 * 128 * 128 + 3 * 32 * 128 * 3) * 2


def test_kimi_delta_attention_state_equals_the_hand_derivation_and_stays_constant():
    """The recurrent matrices in float32 whatever the cache's bits (vLLM's
    MambaStateDtypeCalculator.kda_state_dtype; transformers keeps them at 32 bits too), the
    convolution windows at the cache's 16; every value at 16 bits when the matrices' bits are
    asked."""
    m = read_config(CONFIGS / "kimi-linear-48b-a3b-instruct.json")
    matrix, conv = 20 * 32 * 128 * 128, 20 * 3 * 32 * 128 * 3
    state = matrix * 4 + conv * 2
    assert m.state_bytes(bits_ssm=16) == KDA_STATE == 22_446_080
    assert m.state_bytes() == state == 43_417_600
    assert m.state_bytes(bits_state=32) == 2 * KDA_STATE
    kv = m.kv_cache_bytes_per_token()
    for s in (1, 4096, 1_048_576):
        assert m.seq_bytes(s) == kv * s + 2 * state
    # the layout: layers 4, 8, ..., 24 and 27 (1-indexed) are MLA, the first block dense
    kinds = [("mla" if run.attention else "kda", run.mlp.is_moe) for run in m.layers
             for _ in range(run.count)]
    assert [i + 1 for i, (k, _) in enumerate(kinds) if k == "mla"] == [4, 8, 12, 16, 20, 24, 27]
    assert [i for i, (_, moe) in enumerate(kinds) if not moe] == [0]


def test_kimi_delta_attention_layer_by_hand():
    # transformers 5.24.0 KimiLinearDeltaAttention, d = 2304, 32 heads of 128 (W = 4096), k = 4
    d, h, dk, w, k = 2304, 32, 128, 4096, 4
    kda = next(run.mixer for run in read_config(
        CONFIGS / "kimi-linear-48b-a3b-instruct.json").layers if run.mixer is not None)
    projections = (3 * d * w          # q_proj, k_proj, v_proj
                   + d * h            # b_proj (beta)
                   + d * dk + dk * w  # f_a_proj, f_b_proj (forget gate)
                   + d * dk + dk * w  # g_a_proj, g_b_proj (output gate)
                   + w * d)           # o_proj
    assert kda.matmul_params(d) == projections
    # + the three depthwise convolutions, dt_bias (W), A_log (H), o_norm (d_k)
    assert kda.params(d) == projections + 3 * w * k + w + h + dk == 39_514_272
    # per token: the convolutions (a multiply-add per tap) and on each 128 x 128 state the
    # decay (1 per element), the read S^T k (2), the delta write (2) and the read-out (2)
    assert kda.decode_flops() == 2 * 3 * w * k + 7 * h * dk * dk


def test_kimi_linear_rounds_to_the_published_48b_and_3b_active():
    # README of MoonshotAI/Kimi-Linear: 48B total, 3B activated; 48B is the count without the
    # embedding table and the head (0.75B), which the meta-device count includes
    m = read_config(CONFIGS / "kimi-linear-48b-a3b-instruct.json")
    assert round((m.total_params - 2 * 163_840 * 2304) / 1e9) == 48
    assert round(m.active_params / 1e9) == 3


def test_a_full_rank_output_gate_replaces_the_two_factors_in_every_kda_layer():
    # Kimi K3's use_full_rank_gate on Kimi Linear's shapes: g_proj d x H d_k instead of
    # g_a_proj d x d_k and g_b_proj d_k x H d_k (FAMILIES.md section 14.24), in its 20 KDA layers
    d, h, dk = 2304, 32, 128
    cfg = config("kimi-linear-48b-a3b-instruct")
    base = read_config(cfg).total_params
    cfg["linear_attn_config"]["use_full_rank_gate"] = True
    assert read_config(cfg).total_params - base == 20 * (d * h * dk - (d * dk + dk * h * dk))


@pytest.mark.parametrize("change, pattern", [
    ({"kda_layers": [1, 2, 3]}, r"layer 5 is in neither"),
    ({"expand_v": 2}, r"'linear_attn_config.expand_v' is not understood"),
])
def test_kimi_linear_layouts_not_modelled_are_refused_naming_the_key(change, pattern):
    cfg = config("kimi-linear-48b-a3b-instruct")
    cfg["linear_attn_config"].update(change)
    with pytest.raises(ConfigError, match=pattern):
        read_config(cfg)


def test_gated_deltanet_layers_in_the_33_to_1_pattern():
    m = read_config(CONFIGS / "qwen3.5-35b-a3b.json")
    mixers = sum(run.count for run in m.layers if run.mixer is not None)
    attention = sum(run.count for run in m.layers if run.attention is not None)
    assert (mixers, attention) == (30, 10)
    assert all(run.attention.gate == run.attention.d_head for run in m.layers
               if run.attention is not None)


def test_qwen3_5_without_the_output_gate_is_refused():
    cfg = config("qwen3.5-35b-a3b")
    cfg["text_config"]["attn_output_gate"] = False
    with pytest.raises(ConfigError, match=r"field 'attn_output_gate' = false contradicts"):
        read_config(cfg)


@pytest.mark.parametrize("name, layers", [("deepseek-v3.2", 61), ("glm-5", 78)])
def test_sparse_attention_reads_the_indexer_keys_and_only_the_top_k_latents(name, layers):
    m = read_config(CONFIGS / f"{name}.json")
    latent, key, top = (512 + 64) * 2, 128 * 2, 2048  # bytes per token at 16 bits; index_topk
    for s in (1, 2048, 4096, 131_072):
        # stored: every token's latent, rotary key and indexer key
        assert m.kv_cache_bytes(s) == layers * s * (latent + key)
        # read by one decode step: every indexer key, the latents of min(S, k) positions
        assert m.seq_bytes(s) == layers * (min(s, top) * latent + s * key)
    # past k tokens a step reads d_I per token more, not the whole cache entry
    assert m.seq_bytes(8193) - m.seq_bytes(8192) == layers * key
    assert m.attended_context(131_072) == top


def test_sparse_attention_indexer_parameters_equal_the_meta_count_difference():
    # DeepSeek-V3.2 is DeepSeek-V3 with an indexer in each of its 61 layers: the meta-device
    # counts differ by exactly the indexer's tensors (wq_b, wk, k_norm weight and bias,
    # weights_proj)
    v32 = truth(CONFIGS / "deepseek-v3.2.json")["params"]
    v3 = truth(CATALOG / "deepseek-v3" / "config.json")["params"]
    assert v32 - v3 == 61 * (1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64)
    assert read_config(CONFIGS / "deepseek-v3.2.json").total_params - read_config(
        CATALOG / "deepseek-v3" / "config.json").total_params == v32 - v3


def test_laguna_heads_per_layer_and_windowed_cache():
    m = read_config(CONFIGS / "laguna-xs.2-fp8.json")
    heads = {(run.attention.span, run.attention.n_heads) for run in m.layers}
    assert heads == {("full", 48), ("sliding", 64)}
    # 10 full layers keep every token, 30 sliding layers the last 512 (FAMILIES.md 14.12)
    assert m.kv_cache_bytes(131_072) == 10 * 4096 * 131_072 + 30 * 4096 * 512


def test_mimo_v2_flash_windowed_heads_and_narrow_values():
    m = read_config(CONFIGS / "mimo-v2-flash.json")
    kinds = {(run.attention.span, run.attention.n_kv_heads, run.attention.d_head,
              run.attention.d_v, run.attention.sinks) for run in m.layers}
    assert kinds == {("full", 4, 192, 128, False), ("sliding", 8, 192, 128, True)}
    assert m.kv_cache_bytes(131_072) == 9 * 2560 * 131_072 + 39 * 5120 * 128
    cfg = config("mimo-v2-flash")
    cfg["attention_chunk_size"] = 256
    with pytest.raises(ConfigError, match="field 'attention_chunk_size' differs"):
        read_config(cfg)


def test_latent_moe_routed_experts_work_in_the_latent():
    m = read_config(CONFIGS / "nvidia-nemotron-3-super-120b-a12b-fp8.json")
    moe = [run for run in m.layers if run.mlp is not None and run.mlp.is_moe]
    assert sum(run.count for run in moe) == 40 and {run.mlp.latent for run in moe} == {1024}
    # 512 plain experts of 2,688 on a latent of 1,024 (not on d = 4,096), per MoE block
    assert m.expert_params == 40 * 512 * 2 * 1024 * 2688
    assert round(m.active_params / 1e9) == 13  # the name's A12B: 12.77B with both embeddings


def test_gemma4_geometry_per_layer_kind_and_windowed_cache():
    m = read_config(CONFIGS / "gemma-4-26b-a4b.json")
    kinds = {(run.attention.span, run.attention.n_kv_heads, run.attention.d_head,
              run.attention.kv_tied) for run in m.layers}
    assert kinds == {("sliding", 8, 256, False), ("full", 2, 512, True)}
    # 5 global layers keep every token, 25 sliding ones the last 1,024
    assert m.kv_cache_bytes(131_072) == 5 * 4096 * 131_072 + 25 * 8192 * 1024
    # values = keys: the global layers have no v_proj (2 heads x 512 x d each)
    cfg = config("gemma-4-26b-a4b")
    cfg["text_config"]["attention_k_eq_v"] = False  # then global layers keep 8 KV heads
    cfg["text_config"]["num_global_key_value_heads"] = 8
    untied = read_config(cfg)
    assert untied.total_params - m.total_params == 5 * 2816 * (2 * 8 - 1 * 2) * 512
    # the parallel dense MLP and mixture: one token uses the MLP, 8 of 128 experts, the router
    moe = m.layers[0].mlp
    assert (moe.n_experts, moe.top_k, moe.d_ff, moe.n_shared, moe.d_shared) == (128, 8, 704, 1,
                                                                                 2112)


@pytest.mark.parametrize("key, value, pattern", [
    ("num_kv_shared_layers", 4,
     r"field 'num_kv_shared_layers' \(4\) together with 'attention_k_eq_v' is not modelled"),
    ("use_bidirectional_attention", "all", r"field 'use_bidirectional_attention' = 'all'"),
])
def test_gemma4_layouts_not_modelled_are_refused_naming_the_key(key, value, pattern):
    cfg = config("gemma-4-26b-a4b")
    cfg["text_config"][key] = value
    with pytest.raises(ConfigError, match=pattern) as err:
        read_config(cfg)
    assert "\n" not in str(err.value)


# ---- Gemma 4 E2B and E4B: per-layer embeddings, KV-sharing layers, an audio tower -------------
#: key -> (the Hub's safetensors total, its stored layer scalars; SOURCES.md section 13)
HUB_TOTAL = {"gemma-4-e2b": (5_123_178_051, 35), "gemma-4-e4b": (7_996_156_490, 42)}


def e_model(name: str) -> dict:
    return json.loads((CATALOG / name / "config.json").read_text(encoding="utf-8"))


def unused_kv_by_hand(name: str) -> int:
    """k, v (H_kv x d_head x d each) and k norm (d_head) of every KV-sharing layer, which the
    checkpoint stores and transformers 5.24.0 does not build (FAMILIES.md section 14.20)."""
    t = e_model(name)["text_config"]
    n, shared, d = t["num_hidden_layers"], t["num_kv_shared_layers"], t["hidden_size"]
    widths = [t["head_dim"] if kind == "sliding_attention" else t["global_head_dim"]
              for kind in t["layer_types"][n - shared:]]
    return sum(2 * t["num_key_value_heads"] * w * d + w for w in widths)


@pytest.mark.parametrize("name", sorted(HUB_TOTAL))
def test_gemma4_e_total_is_the_hub_total_less_its_layer_scalars(name):
    m = read_config(CATALOG / name / "config.json")
    hub, scalars = HUB_TOTAL[name]
    assert m.total_params + scalars == hub
    t = TRUTH["models"][f"lib/llm_arithmetic/catalog/data/models/{name}/config.json"]
    assert t["persistent_buffer_names"]["layer_scalar"] == scalars
    # the meta count plus the stored but unbuilt weights of the KV-sharing layers
    assert m.total_params == t["params"] + unused_kv_by_hand(name)
    # the towers as transformers builds them, and the language model alone
    extras = {x.name: x.params for x in m.extras}
    by = t["by_prefix"]
    assert extras["vision tower and projector"] == by["model.vision_tower"] + by["model.embed_vision"]
    assert extras["audio tower and projector"] == by["model.audio_tower"] + by["model.embed_audio"]
    assert m.language_model_params == by["model.language_model"]


@pytest.mark.parametrize("name, kv, cache_128k, again", [
    # E2B: 15 layers own a cache, 12 sliding (1 KV head of 256) and 3 global (1 of 512); the 20
    # sharing layers (15-34) are 16 sliding and 4 global
    ("gemma-4-e2b", 12 * 2 * 256 * 2 + 3 * 2 * 512 * 2,
     12 * 2 * 256 * 2 * 512 + 3 * 2 * 512 * 2 * 131_072,
     16 * 2 * 256 * 2 * 512 + 4 * 2 * 512 * 2 * 131_072),
    # E4B: 24 layers own a cache, 20 sliding (2 KV heads of 256) and 4 global (2 of 512); the 18
    # sharing layers (24-41) are 15 sliding and 3 global
    ("gemma-4-e4b", 20 * 2 * 2 * 256 * 2 + 4 * 2 * 2 * 512 * 2,
     20 * 2 * 2 * 256 * 2 * 512 + 4 * 2 * 2 * 512 * 2 * 131_072,
     15 * 2 * 2 * 256 * 2 * 512 + 3 * 2 * 2 * 512 * 2 * 131_072),
])
def test_gemma4_e_kv_sharing_layers_add_no_cache(name, kv, cache_128k, again):
    m = read_config(CATALOG / name / "config.json")
    assert m.kv_cache_bytes_per_token() == kv
    assert m.kv_cache_bytes(131_072) == cache_128k
    # a decode step still reads the earlier layers' cache once more in every sharing layer (the
    # sliding ones up to the 512-token window), counted by hand from the layer pattern
    assert m.seq_bytes(131_072) == cache_128k + again


@pytest.mark.parametrize("name", sorted(HUB_TOTAL))
def test_gemma4_e_decode_gathers_one_row_of_the_per_layer_table(name):
    m = read_config(CATALOG / name / "config.json")
    t = e_model(name)["text_config"]
    n, w, rows = t["num_hidden_layers"], t["hidden_size_per_layer_input"], \
        t["vocab_size_per_layer_input"]
    lm = TRUTH["models"][f"lib/llm_arithmetic/catalog/data/models/{name}/config.json"][
        "by_prefix"]["model.language_model"]
    # the language model as built, less every row of the table but one (the tied token table
    # is read whole, as the head)
    assert m.decode_read_params == lm - (rows - 1) * n * w
    parts = m.params_breakdown()
    assert parts["per-layer embeddings (table, projections, gates)"] == (
        rows * n * w + n * w * t["hidden_size"] + w + n * (2 * t["hidden_size"] * w
                                                         + t["hidden_size"]))


@pytest.mark.parametrize("name", sorted(HUB_TOTAL))
def test_gemma4_e_unused_kv_weights_are_stored_but_not_read(name):
    """The KV-sharing layers' k, v and k-norm weights: in the checkpoint (the Hub's total
    counts them) and so in the weight bytes, but in no decode step's bytes. transformers builds
    no k_proj, v_proj, k_norm or v_norm in a layer with ``is_kv_shared_layer`` (layer_idx >=
    num_hidden_layers - num_kv_shared_layers), takes its keys and values from
    ``shared_kv_states`` of the last earlier layer of its kind, and lists those checkpoint keys
    in ``_keys_to_ignore_on_load_unexpected`` (huggingface/transformers@c308a309e651a7e033f683
    353f3f75aa66d29502 src/transformers/models/gemma4/modeling_gemma4.py, Gemma4TextAttention
    and Gemma4TextModel.__init__). By hand at 16 bits, from the config and the meta-device
    count of the language model as transformers builds it (tests/data/ground_truth.json)."""
    from llm_arithmetic.estimate import estimate

    m = read_config(CATALOG / name / "config.json")
    t = e_model(name)["text_config"]
    n, w, rows = t["num_hidden_layers"], t["hidden_size_per_layer_input"], \
        t["vocab_size_per_layer_input"]
    truth = TRUTH["models"][f"lib/llm_arithmetic/catalog/data/models/{name}/config.json"]
    hub, scalars = HUB_TOTAL[name]
    unused = unused_kv_by_hand(name)
    assert unused > 0 and truth["params"] + unused + scalars == hub
    e = estimate(m, bits_weight=16, context=1)
    # stored: every parameter of the Hub's total but the layer scalars (buffers), 2 B each
    assert e.weight_bytes == 2 * (hub - scalars)
    # read by one decode step of one token: the language model as built (no unused weight),
    # but one row of the per-layer table, and each layer's one cached key and value (a sharing
    # layer reads its producer's, same heads and width)
    widths = [t["head_dim"] if k == "sliding_attention" else t["global_head_dim"]
              for k in t["layer_types"]]
    kv_read = sum(2 * t["num_key_value_heads"] * x * 2 for x in widths)
    lm = truth["by_prefix"]["model.language_model"]
    assert e.decode_bytes_per_token == 2 * (lm - (rows - 1) * n * w) + kv_read


@pytest.mark.parametrize("name", ["gemma-4-26b-a4b", "gemma-4-31b"])
def test_gemma4_null_per_layer_input_width_builds_no_per_layer_embeddings(name):
    """transformers' and mlx-lm's Gemma 4 layers build the per-layer embeddings only when
    hidden_size_per_layer_input is truthy, so a file that sets it to null (as the 26B and 31B
    text_configs in ollama's Go tests do, search index file id 52072569703) has none: the count of
    the catalog's file, which says 0 (the Hub's totals, SOURCES.md section 11), not tables of
    262,144 rows x (layers x 256) (2.1 and 4.3 billion parameters more before this test)."""
    cfg = e_model(name)
    text = cfg.get("text_config", cfg)
    assert text["hidden_size_per_layer_input"] == 0
    total = read_config(CATALOG / name / "config.json").total_params
    text["hidden_size_per_layer_input"] = None
    assert read_config(cfg).total_params == total


@pytest.mark.parametrize("empty", [None, 0])
def test_gemma4_null_global_head_width_is_the_sliding_one(empty):
    """Gemma4TextAttention sets ``head_dim = config.global_head_dim if not self.is_sliding and
    config.global_head_dim else config.head_dim`` (transformers' modeling_gemma4.py, as quoted
    in a reading of it, search index file id 62674771407): a file whose global_head_dim is null
    or 0 gives its global layers the sliding layers' width (256 here), not the class default's
    512. Counted by hand: each of the 5 global layers of 26B-A4B then has q (16 heads) and k (2
    KV heads, values = keys) of 256 instead of 512, and q and k norms of 256 instead of 512."""
    cfg = config("gemma-4-26b-a4b")
    text = cfg["text_config"]
    before = read_config(cfg)
    text["global_head_dim"] = empty
    after = read_config(cfg)
    assert {(run.attention.span, run.attention.d_head) for run in after.layers} == \
        {("sliding", 256), ("full", 256)}
    d, h, kv = text["hidden_size"], text["num_attention_heads"], text["num_global_key_value_heads"]
    per_layer = (2 * h * d + kv * d) * (512 - 256) + 2 * (512 - 256)  # q, o; k; q and k norms
    assert before.total_params - after.total_params == 5 * per_layer


@pytest.mark.parametrize("change, pattern", [
    ({"num_kv_shared_layers": 35},
     r"field 'num_kv_shared_layers' \(35\) must be less than 'num_hidden_layers' \(35\)"),
    ({"num_kv_shared_layers": 40},
     r"field 'num_kv_shared_layers' \(40\) must be less than 'num_hidden_layers'"),
    ({"num_kv_shared_layers": 32}, r"field 'num_kv_shared_layers' \(32\) leaves no earlier "
                                   r"layer of kind \['full_attention'\]"),
    ({"vocab_size_per_layer_input": None}, r"field 'vocab_size_per_layer_input' is None while "
                                           r"'hidden_size_per_layer_input' is 256"),
    ({"vocab_size_per_layer_input": 0}, r"field 'vocab_size_per_layer_input' is 0"),
    ({"hidden_size_per_layer_input": -1}, r"field 'hidden_size_per_layer_input' must be at "
                                          r"least 0"),
])
def test_gemma4_e_bad_input_is_refused_naming_the_field(change, pattern):
    cfg = e_model("gemma-4-e2b")
    cfg["text_config"].update(change)
    with pytest.raises(ConfigError, match=pattern) as err:
        read_config(cfg)
    assert "\n" not in str(err.value)


# file -> one MTP module by hand (FAMILIES.md section 14.17, vLLM's layouts): its blocks, a
# 2d x d projection, three norms of d; embeddings and head shared with the model
MTP = {
    # a gated full-attention block (q 2 H dh d, k and v K dh d, o, q/k norms) with the MLP
    "qwen3.5-27b": (2 * 24 * 256 + 2 * 4 * 256 + 24 * 256) * 5120 + 2 * 256
                   + 3 * 5120 * 17408 + 2 * 5120 + 2 * 5120**2 + 3 * 5120,
    # ... with the mixture: router, 256 experts and a gated shared expert of 512
    "qwen3.5-35b-a3b": (2 * 16 * 256 + 2 * 2 * 256 + 16 * 256) * 2048 + 2 * 256
                       + 256 * 2048 + 256 * 3 * 2048 * 512 + 3 * 2048 * 512 + 2048
                       + 2 * 2048 + 2 * 2048**2 + 3 * 2048,
    # '*E': an attention block (32/2 heads of 128) and a latent mixture block (512 experts of
    # 2,688 on a latent of 1,024, its router with the score-correction bias, a shared expert
    # of 5,376), one norm each
    "nvidia-nemotron-3-super-120b-a12b-fp8": (2 * 32 + 2 * 2) * 128 * 4096
    + 512 * 2 * 1024 * 2688 + 2 * 4096 * 1024 + 512 * 4096 + 512 + 2 * 4096 * 5376
    + 2 * 4096 + 2 * 4096**2 + 3 * 4096,
}


@pytest.mark.parametrize("name", sorted(MTP))
def test_mtp_module_is_reported_apart_by_hand(name):
    m = read_config(CONFIGS / f"{name}.json")
    mtp = [e for e in m.extras if e.name == "multi-token prediction"]
    assert [(e.params, e.in_total) for e in mtp] == [(MTP[name], False)]
    # not in the total: the meta count (transformers builds no MTP layer) is unchanged
    t = truth(CONFIGS / f"{name}.json")
    assert m.total_params in (t["params"], t["params"] + t["persistent_buffers"])


def test_mtp_keys_are_read_not_assumed():
    # Qwen3-Next's file declares no MTP key: nothing is reported; a dedicated embedding or an
    # unknown MTP block is refused naming the key
    assert read_config(CONFIGS / "qwen3-next-80b-a3b-thinking.json").extras == ()
    cfg = config("qwen3.5-27b")
    cfg["text_config"]["mtp_use_dedicated_embeddings"] = True
    with pytest.raises(ConfigError, match=r"field 'mtp_use_dedicated_embeddings' = True"):
        read_config(cfg)
    cfg = config("nvidia-nemotron-3-super-120b-a12b-fp8")
    cfg["mtp_hybrid_override_pattern"] = "*M"
    with pytest.raises(ConfigError, match=r"field 'mtp_hybrid_override_pattern' must be"):
        read_config(cfg)


def test_nemotron_h_layers_block_type_is_the_pattern():
    # transformers' NemotronHConfig spells the pattern as a list of block names (legacy
    # "mamba"/"attention", current "linear_attention"/"full_attention", and "moe", "mlp") and
    # derives the depth from it: Lightning's list is Nano's hybrid_override_pattern, block for
    # block, and the two files count the same (their other sizes are equal)
    lightning = config("nvidia-nemotron-3.5-lightning-30b-a3b-nvfp4")
    nano = config("nvidia-nemotron-3-nano-30b-a3b-bf16")
    letters = {"mamba": "M", "moe": "E", "attention": "*"}
    assert "".join(letters[b] for b in lightning["layers_block_type"]) == \
        nano["hybrid_override_pattern"]
    a, b = read_config(lightning), read_config(nano)
    assert (a.total_params, a.active_params) == (b.total_params, b.active_params)
    # its MTP module is the default block list, attention then the mixture (as Super's "*E")
    super_ = config("nvidia-nemotron-3-super-120b-a12b-fp8")
    assert super_["mtp_hybrid_override_pattern"] == "*E"
    assert lightning["mtp_layers_block_type"] == ["attention", "moe"]
    assert [e.name for e in a.extras] == ["multi-token prediction"]
    current = dict(lightning, layers_block_type=[
        {"mamba": "linear_attention", "attention": "full_attention"}.get(x, x)
        for x in lightning["layers_block_type"]])
    assert read_config(current).total_params == a.total_params
    # the string and the list together must agree; the depth, where stated, must match; an
    # unknown block name is refused naming the field
    with pytest.raises(ConfigError, match=r"fields 'hybrid_override_pattern' and "
                                          r"'layers_block_type' describe different"):
        read_config(dict(lightning, hybrid_override_pattern="M" * 52))
    with pytest.raises(ConfigError, match=r"field 'num_hidden_layers' \(51\) disagrees"):
        read_config(dict(lightning, num_hidden_layers=51))
    with pytest.raises(ConfigError, match=r"field 'layers_block_type' must be a list of block"):
        read_config(dict(lightning, layers_block_type=["mamba", "ssm"]))
    with pytest.raises(ConfigError, match=r"field 'mtp_layers_block_type' must be a list"):
        read_config(dict(lightning, mtp_layers_block_type="*E"))
    # an empty list is no model; an MTP list is named as the file spells it
    with pytest.raises(ConfigError, match=r"empty layer pattern in field 'layers_block_type'"):
        read_config(dict(lightning, layers_block_type=[], num_hidden_layers=None))
    with pytest.raises(ConfigError, match=r"field 'mtp_layers_block_type' must be a list of "
                                          r"'attention' and 'moe' blocks"):
        read_config(dict(lightning, mtp_layers_block_type=["attention", "mamba"]))
    # a file with neither spelling is told that the pattern is missing, not how to write it
    del lightning["layers_block_type"]
    with pytest.raises(ConfigError, match=r"missing field 'layers_block_type' \(or "
                                          r"'hybrid_override_pattern'\)"):
        read_config(lightning)


def test_glm_5_2_shared_indexers_hold_no_indexer():
    # GLM-5.2 is GLM-5's file plus indexer_types: its 'shared' layers reuse an earlier layer's
    # top-k selection and hold no indexer. The meta-device counts differ by exactly those
    # layers' indexers, from the file's sizes: wq_b (q_lora_rank -> index_n_heads x
    # index_head_dim), wk (d -> index_head_dim), k_norm (weight and bias of index_head_dim),
    # weights_proj (d -> index_n_heads); the library's two counts differ by the same
    cfg = config("glm-5.2")
    shared = cfg["indexer_types"].count("shared")
    full = cfg["num_hidden_layers"] - shared
    assert (shared, full) == (57, 21)
    heads, width, d = cfg["index_n_heads"], cfg["index_head_dim"], cfg["hidden_size"]
    r_q, r_kv, d_rope = cfg["q_lora_rank"], cfg["kv_lora_rank"], cfg["qk_rope_head_dim"]
    per_layer = r_q * heads * width + d * width + 2 * width + d * heads
    assert per_layer == 9_371_904 and shared * per_layer == 534_198_528
    assert (truth(CONFIGS / "glm-5.json")["params"] - truth(CONFIGS / "glm-5.2.json")["params"]
            == shared * per_layer)
    glm52, glm5 = read_config(cfg), read_config(config("glm-5"))
    assert glm5.total_params - glm52.total_params == shared * per_layer
    shared_runs = [run for run in glm52.layers if run.attention.index_shared]
    assert sum(run.count for run in shared_runs) == shared
    assert "earlier layer's indexer" in shared_runs[0].attention.describe()
    # what a decode step at S = 32,768 tokens (top 2,048) saves on each shared layer, by hand:
    # the indexer's scoring (2 H_I d_I per cached key) and its matrix products (2 per weight;
    # the LayerNorm's 2 d_I are no matrix), the index keys read (d_I each, 16 bits) and the
    # indexer's weights read (its LayerNorm too); the top-k read of the latent cache stays
    from llm_arithmetic.estimate import estimate
    s, top = 32_768, cfg["index_topk"]
    matmul = r_q * heads * width + d * width + d * heads
    e52, e5 = estimate(glm52, context=s), estimate(glm5, context=s)
    assert e5.decode_flops_per_token - e52.decode_flops_per_token == shared * (
        2 * heads * width * s + 2 * matmul)
    assert e5.decode_bytes_per_token - e52.decode_bytes_per_token == shared * (
        s * width * 2 + per_layer * 2)
    # the cache one decode step reads, by hand: the full layers read every index key and the
    # latent and rotary key of the top 2,048 positions; the shared ones the latter alone
    kv_read = full * (top * (r_kv + d_rope) + s * width) * 2 + shared * top * (r_kv + d_rope) * 2
    assert kv_read == 360_185_856
    assert e52.decode_bytes_per_token - 2 * e52.params_read_per_token == kv_read
    assert e52.kv_cache_bytes_per_token == 95_232
    # without the list, the schedule transformers derives it from (index_topk_freq 4 after
    # index_skip_topk_offset 3) gives the same 57 shared layers, refused naming that key; so
    # does a pattern of 'F' and 'S'
    del cfg["indexer_types"]
    assert read_config(cfg).total_params == glm52.total_params
    pattern = "".join("F" if t == "full" else "S" for t in config("glm-5.2")["indexer_types"])
    assert read_config(dict(cfg, index_topk_pattern=pattern)).total_params == \
        glm52.total_params
    # a first layer 'shared' has no earlier selection to reuse (transformers raises at run time)
    with pytest.raises(ConfigError, match=r"field 'index_topk_pattern' makes the first layer"):
        read_config(dict(cfg, index_topk_pattern="S" + pattern[1:]))
    # every layer 'full' (NVIDIA's GLM-5.1-NVFP4 file says so) is GLM-5's layout, read as such
    glm5 = config("glm-5")
    n = glm5["num_hidden_layers"]
    assert read_config(dict(glm5, indexer_types=["full"] * n)).total_params == \
        read_config(glm5).total_params
    # GLM-5.2's mlp_layer_types (3 dense, then MoE) agree with first_k_dense_replace; a list
    # that does not is refused naming it
    kinds = config("glm-5.2")["mlp_layer_types"]
    assert kinds == ["dense"] * glm5["first_k_dense_replace"] + ["sparse"] * (n - 3)
    assert read_config(dict(glm5, mlp_layer_types=kinds)).total_params == \
        read_config(glm5).total_params
    with pytest.raises(ConfigError, match=r"field 'mlp_layer_types' disagrees"):
        read_config(dict(glm5, mlp_layer_types=["dense"] * 4 + ["sparse"] * (n - 4)))


def test_missing_layer_kind_is_refused_naming_its_key():
    # MiniMax-M3 relabelled as a family no reader knows: its block-sparse attention is then a
    # layer kind the library lacks, named by the key that declares it
    cfg = config("minimax-m3")
    cfg.update(model_type="minimax_m9", architectures=["MiniMaxM9ForCausalLM"])
    with pytest.raises(ConfigError) as err:
        read_config(cfg)
    message = str(err.value)
    assert "\n" not in message
    assert "field 'sparse_attention_config'" in message, message
    assert "declare" in message, message


def test_minimax_m3_text_tower_and_vision_tower_are_the_published_checkpoint():
    """MiniMax-M3 (FAMILIES.md section 14.6): the vendored file is the checkpoint's text tower.
    Its meta count (transformers 5.24.0, ``minimax_m3_vl_text``) plus the vision tower and the
    two projectors by hand from the Hub checkpoint's ``vision_config`` is the Hugging Face API's
    ``safetensors.parameters`` of MiniMaxAI/MiniMax-M3 (BF16 426,993,800,960 + F32 46,339,200;
    SOURCES.md section 7), and at 2 B per BF16 and 4 B per F32 element the checkpoint's
    tensor payload (854,172,958,720 B). The library counts the text tower."""
    t = truth(CONFIGS / "minimax-m3.json")
    text = t["params"] + t["persistent_buffers"]  # the routers' biases are checkpoint tensors
    # vision_config: a CLIP ViT of width 1280, 32 blocks, MLP 5120, 3 channels, 2-frame 14 x 14
    # patches; projector_hidden_size 6144 (the text width d), 2 x 2 spatial merge
    w, blocks, ff, channels, frames, patch, d, merge = 1280, 32, 5120, 3, 2, 14, 6144, 2
    patch_embedding = w * channels * frames * patch * patch  # Conv3d without bias
    block = (4 * (w * w + w)  # q, k, v, out with biases
             + (w * ff + ff) + (ff * w + w)  # fc1, fc2 with biases
             + 2 * 2 * w)  # two LayerNorms, weight and bias
    vision = patch_embedding + 2 * w + blocks * block  # + pre_layrnorm
    projector = (w * d + d) + (d * d + d)  # multi_modal_projector: w -> d -> d
    patch_merge = (merge ** 2 * d * d + d) + (d * d + d)  # patch_merge_mlp: 4 d -> d -> d
    assert (vision, projector + patch_merge) == (631_185_920, 234_381_312)
    total = text + vision + projector + patch_merge
    assert total == 426_993_800_960 + 46_339_200 == 427_040_140_160
    # float32 in the checkpoint: the 57 routers and their biases, the patch embedding
    f32 = 57 * (128 * d + 128) + patch_embedding
    assert f32 == 46_339_200
    assert 2 * total + 2 * f32 == 854_172_958_720
    # the index's metadata.total_size (869,157,697,024 B) exceeds that payload by one MTP module
    # at the same precisions, none of whose tensors the checkpoint holds: eh_proj 2d x d, three
    # norms, one sparse layer (attention, indexer, mixture, two norms) = FAMILIES.md's 7,491,582,592
    H, K, dh, index_heads, E, d_e = 64, 4, 128, 4, 128, 3072
    attention = 2 * d * H * dh + 2 * d * K * dh + 2 * dh  # q, o; k, v; per-head q/k norms
    indexer = d * index_heads * dh + d * dh + 2 * dh  # index q (4 heads), index k (one), norms
    mixture = E * 3 * d * d_e + 3 * d * d_e + E * d + E  # experts, shared expert, router, bias
    mtp = 2 * d * d + 3 * d + attention + indexer + mixture + 2 * d
    assert mtp == 7_491_582_592
    assert 869_157_697_024 - 854_172_958_720 == 2 * mtp + 2 * (128 * d + 128)
    m = read_config(CONFIGS / "minimax-m3.json")
    assert m.total_params == text
    # the checkpoint ships no MTP module: none counted, the 7 declared kept so that the
    # speculation workload 'mtp' refuses the model naming the field
    assert not m.extras and (m.mtp_modules, m.mtp_field) == (7, "num_mtp_modules")
    # active: 4 of 128 experts; without the two vocabulary tables, the card's "~23B" (truncated)
    active = m.active_params - 2 * m.n_vocab * d
    assert active == 23_504_087_424 and int(active / 1e9) == 23


def test_minimax_m3_routers_are_counted_at_their_stored_fp32():
    """MiniMax-M3's bf16 release stores each MoE block's router (``mlp.gate``, experts x d) and
    its ``e_score_correction_bias`` in float32 (the Hub's F32 count above: 57 x 128 x (6,144 +
    1) of routers and the vision tower's patch embedding; vLLM allocates the router in fp32,
    vllm-project/vllm@0b6da709 vllm/models/minimax_m3/amd/model.py). From the config: 60
    layers, the first 3 dense (first_k_dense_replace), 128 experts (num_local_experts) of
    hidden_size 6,144. The text tower's bytes are then the checkpoint's payload less the
    vision tower and projectors (2 B each, the patch embedding 4 B), and a decode step reads
    the routers' extra 2 B a parameter (all but one row of the input table aside, unread)."""
    from llm_arithmetic.estimate import estimate

    cfg = config("minimax-m3")
    moe_blocks = cfg["num_hidden_layers"] - cfg["first_k_dense_replace"]
    E, d = cfg["num_local_experts"], cfg["hidden_size"]
    assert (moe_blocks, E, d, cfg["torch_dtype"]) == (57, 128, 6144, "bfloat16")
    routers = moe_blocks * (E * d + E)
    patch_embedding = 1280 * 3 * 2 * 14 * 14
    vision_and_projectors = 631_185_920 + 234_381_312
    m = read_config(CONFIGS / "minimax-m3.json")
    want = 854_172_958_720 - 2 * vision_and_projectors - 2 * patch_embedding
    assert m.weight_bytes() == 2 * m.total_params + 2 * routers == want
    assert m.scheme.label == "bf16, fp32 routers"
    kw = dict(context=1, batch=1)
    extra = (estimate(m, **kw).decode_bytes_per_token
             - estimate(m, bits_weight=16, **kw).decode_bytes_per_token)
    assert abs(extra - 2 * routers) < 100  # the one input row read, at the mean of the rest
    # a copy of the file with another dtype is not this release: refused naming the field
    with pytest.raises(ConfigError, match="torch_dtype"):
        read_config({**cfg, "torch_dtype": "float16"})


MSA_LAYER = dict(n_heads=64, n_kv_heads=4, d_head=128, index_heads=4, index_dim=128,
                 index_topk=2048, index_block=128)


@pytest.mark.parametrize("context", [1_000, 2_048, 131_072, 1_048_576])
def test_minimax_m3_cache_read_and_flops_by_hand(context):
    """FAMILIES.md section 14.6: 3 full-attention layers read every key and value; the 57
    sparse layers read every index key (128 values a token) and, per KV head, keys and values
    at min(S, 16 x 128) positions; 16-bit cache. The indexer scores every key with its 4 heads
    (2 x 128 FLOPs each) before GQA runs over the selected positions."""
    m = read_config(CONFIGS / "minimax-m3.json")
    kv, idx, attended = 2 * 4 * 128 * 2, 128 * 2, min(context, 16 * 128)
    assert m.kv_cache_bytes(context) == 60 * kv * context + 57 * idx * context
    assert m.seq_bytes(context) == 3 * kv * context + 57 * (kv * attended + idx * context)
    assert m.attended_context(context) == pytest.approx((3 * context + 57 * attended) / 60)

    def attention(s: int) -> int:  # score and weighted value: 4 d_h per query head and position
        return 3 * 4 * 64 * 128 * s + 57 * (4 * 64 * 128 * min(s, 2048) + 2 * 4 * 128 * s)
    # the weights' FLOPs do not change with the context
    assert (m.decode_flops_per_token(context) - m.decode_flops_per_token(1)
            == attention(context) - attention(1))


def test_minimax_m3_layer_parameters_by_hand():
    from llm_arithmetic.catalog.model import Attention
    a = Attention(**MSA_LAYER, qk_norm="head")
    d = 6144
    gqa = 2 * d * 64 * 128 + 2 * d * 4 * 128 + 2 * 128  # q, o; k, v; per-head q/k norms
    assert a.params(d) == gqa + d * 4 * 128 + d * 128 + 2 * 128  # index q, index k, norms
    assert a.matmul_params(d) == gqa - 2 * 128 + d * 4 * 128 + d * 128
    assert a.kv_cache_bytes_per_token() == 2 * 4 * 128 * 2 + 128 * 2
    assert "16 blocks of 128 per KV head" in a.describe()


@pytest.mark.parametrize("change, pattern", [
    ({"index_block": 100}, "not a whole number of blocks"),
    ({"window": 4096}, "plain grouped-query attention over the whole context"),
    ({"index_dim": 0}, "index_dim"),
])
def test_block_sparse_attention_record_checks(change, pattern):
    from llm_arithmetic.catalog.model import Attention
    with pytest.raises(ConfigError, match=pattern):
        Attention(**{**MSA_LAYER, **change}).validate("layer")


@pytest.mark.parametrize("change, pattern", [
    ({"qk_norm_type": "per_layer"}, r"field 'qk_norm_type' = 'per_layer'"),
    ({"attention_output_gate": True}, r"field 'attention_output_gate'"),
    ({"shared_intermediate_size": 1536}, r"field 'shared_intermediate_size'"),
    ({"moe_intermediate_size": 1536}, r"field 'moe_intermediate_size'"),
    ({"first_k_dense_replace": 2}, r"field 'first_k_dense_replace'"),
    ({"sparse_attention_config": {"sparse_disable_index_value": [0] * 60}},
     r"sparse_disable_index_value' is 0 on sparse layer 3"),
    ({"sparse_attention_config": {"sparse_init_block": 1}}, r"sparse_init_block"),
    ({"sparse_attention_config": {"sparse_local_block": 17}}, r"sparse_local_block"),
    ({"sparse_attention_config": {"sparse_index_heads": 4}},
     r"'sparse_attention_config.sparse_index_heads' is not understood"),
    ({"sparse_attention_config": {"sparse_attention_freq": [1] * 59}},
     r"'sparse_attention_freq' has 59 entries for 60 layers"),
])
def test_minimax_m3_layouts_not_modelled_are_refused_naming_the_field(change, pattern):
    cfg = config("minimax-m3")
    for key, value in change.items():
        if key == "sparse_attention_config":
            cfg[key] = {**cfg[key], **value}
        else:
            cfg[key] = value
    with pytest.raises(ConfigError, match=pattern):
        read_config(cfg)


def test_minimax_m3_sparse_layers_as_vllm_builds_them_or_refused_naming_the_field():
    """vLLM makes layer i sparse where sparse_attention_config.sparse_attention_freq[i] is
    nonzero, and none without the list, whatever use_sparse_attention says
    (_sparse_attention_layer_ids in vllm/models/minimax_m3/nvidia/model.py @0443308a). The
    reader took a missing list as every layer sparse (60 indexers where vLLM builds none) and
    use_sparse_attention false as none (where vLLM builds 57): both are refused, naming the
    field; a missing key inside the object is named with the object."""
    for change, pattern in (
            ({"sparse_attention_freq": None},
             r"field 'sparse_attention_config.sparse_attention_freq' is missing"),
            ({"use_sparse_attention": False},
             r"field 'sparse_attention_config.use_sparse_attention' is not true"),
            ({"use_sparse_attention": None},
             r"field 'sparse_attention_config.use_sparse_attention' is not true"),
            ({"sparse_block_size": None},
             r"sparse_attention_config: missing field 'sparse_block_size'")):
        cfg = config("minimax-m3")
        sparse = {**cfg["sparse_attention_config"], **change}
        cfg["sparse_attention_config"] = {k: v for k, v in sparse.items() if v is not None}
        with pytest.raises(ConfigError, match=pattern):
            read_config(cfg)


def test_minimax_m3_without_sparse_attention_is_gqa_everywhere():
    cfg = config("minimax-m3")
    cfg["sparse_attention_config"] = {**cfg["sparse_attention_config"],
                                      "use_sparse_attention": False,
                                      "sparse_attention_freq": [0] * 60}
    m = read_config(cfg)
    assert m.total_params == read_config(CONFIGS / "minimax-m3.json").total_params \
        - 57 * (6144 * 4 * 128 + 6144 * 128 + 2 * 128)
    assert m.kv_cache_bytes_per_token() == 60 * 2 * 4 * 128 * 2


def test_refusal_names_every_missing_layer_kind_in_order():
    # FAMILIES.md section 14.6: every layer kind the file declares that the library lacks, in
    # FEATURES order. Kimi K3 relabelled as families no reader knows (wrapper and language
    # model): none of its layer kinds is then modelled by the wrapped model's family
    cfg = config("kimi-k3")
    cfg.update(model_type="kimi_k9", architectures=["KimiK9ForConditionalGeneration"])
    cfg["text_config"]["model_type"] = "kimi_linear_9"
    with pytest.raises(ConfigError) as err:
        read_config(cfg)
    named = re.findall(r"field '([^']+)'", str(err.value))
    assert named == ["text_config." + k for k in (
        "linear_attn_config", "linear_attn_config.use_full_rank_gate", "attn_res_block_size",
        "mla_use_output_gate", "routed_expert_hidden_size")]
    # with its language model still a kimi_linear file, every layer kind is one the library
    # models: what it lacks is a reader of the wrapper (and so of its vision tower)
    cfg["text_config"]["model_type"] = "kimi_linear"
    with pytest.raises(ConfigError, match="it needs a vision tower the library does not count"):
        read_config(cfg)


def test_kimi_k3_rounds_to_the_published_2_78t_total_and_104_2b_activated():
    """Kimi K3 (FAMILIES.md section 14.24): the technical report's Table 1 (arXiv 2607.24653)
    gives 2.78T parameters and 104.2B activated; transformers defines no kimi_k3, so the
    per-layer counts are the hand derivation's, from the layout vLLM's and mlx-lm's K3 modules
    agree on."""
    m = read_config(CONFIGS / "kimi-k3.json")
    d, v, h, dk, conv = 7168, 163_840, 96, 128, 4
    w = h * dk
    # KDA: q, k, v and the full-rank output gate d x H d_k; the three convolutions; beta
    # d x H; the forget gate's factors d x d_k, d_k x H d_k; dt_bias, A_log (per head), the
    # gated norm d_k; o_proj
    kda = 4 * d * w + 3 * w * conv + d * h + d * dk + dk * w + w + h + dk + w * d
    # gated MLA: q_a d x 1536, its norm, q_b 1536 x H (128 + 64); kv_a d x (512 + 64), its
    # norm, kv_b 512 x H (128 + 128); o_proj H 128 x d; g_proj d x H 128
    mla = (d * 1536 + 1536 + 1536 * h * 192 + d * 576 + 512 + 512 * h * 256 + h * 128 * d
           + d * h * 128)
    # Stable LatentMoE: router d x 896 and its score-correction bias; 896 experts of three
    # 3584 x 3072 matrices in the latent; the down- and up-projections d x 3584 and the
    # latent's norm; two shared experts, one gated MLP of 2 x 3072 on d
    moe = (896 * d + 896 + 896 * 3 * 3584 * 3072 + 2 * d * 3584 + 3584
           + 3 * d * 2 * 3072)
    dense = 3 * d * 33_792
    blocks = {(type(r.mixer).__name__ if r.mixer else "MLA", r.mlp.is_moe) for r in m.layers}
    assert blocks == {("KimiDeltaAttention", False), ("KimiDeltaAttention", True),
                      ("MLA", True)}
    for run in m.layers:
        mixing = kda if run.mixer is not None else mla
        assert run.params(d) == mixing + (moe if run.mlp.is_moe else dense) + 6 * d
    assert sum(r.count for r in m.layers if r.mixer is not None) == 69
    # norms 2 d per block; attention residuals 2 norms and 2 pseudo-queries of d per block
    # and one of each after the stack; final norm; embedding and untied head
    text = 69 * kda + 24 * mla + dense + 92 * moe + 93 * 6 * d + 3 * d + 2 * v * d
    # MoonViT3d: patch embedding, 64 x 64 position table, 27 blocks (two norms, wqkv
    # 1024 x 3 x 1536, wo, MLP 1024 -> 4096 -> 1024), final norm; PatchMergerV2 4096 x 4096,
    # 4096 x 7168 and its norm
    vision = (3 * 14 * 14 * 1024 + 64 * 64 * 1024
              + 27 * (2 * 1024 + 1024 * 3 * 1536 + 1536 * 1024 + 2 * 1024 * 4096) + 1024
              + 4096 * 4096 + 4096 * 7168 + 7168)
    assert [(e.name, e.params) for e in m.extras] == [("vision tower and projector", vision)]
    assert m.total_params == text + vision
    assert text == 2_779_484_476_000  # the same digits as third-party enumerations (14.24)
    assert round(m.total_params / 1e10) == 278  # 2.78T, with or without the 0.45B tower
    # activated: the decode step's weights, the head but not the embedding table (one row)
    active = m.active_params - v * d
    assert round(active / 1e8) == 1042  # 104.2B
    # the cache: 24 MLA layers of a 512 latent and a 64 rotary key at 16 bits
    assert m.kv_cache_bytes_per_token() == 24 * (512 + 64) * 2


def test_kimi_k3_ships_its_experts_in_mxfp4_and_the_rest_in_bf16():
    # AMD's table of the checkpoint (FAMILIES.md section 14.24): routed experts' packed values
    # and scales 1,446.456 GB (4-bit elements, an 8-bit scale per 32), 1.5609 TB in all
    from llm_arithmetic.catalog.quantization import shipped_bytes
    m = read_config(CONFIGS / "kimi-k3.json")
    b = shipped_bytes(m)
    experts = 92 * 896 * 3 * 3584 * 3072
    assert (b["expert_params"], b["experts"]) == (experts, experts * (4 + 8 / 32) / 8)
    assert round(b["experts"] / 1e6) == 1_446_456
    assert round((b["experts"] + b["other"]) / 1e9) == 1561


def test_deepseek_v4_parameters_exact_and_its_cache_per_token_refused_naming_the_part():
    m = read_config(CONFIGS / "deepseek-v4-flash.json")
    t = truth(CONFIGS / "deepseek-v4-flash.json")
    # parameters and the persistent buffers: the hash-routing tables (3 layers x V x k token ->
    # expert ids) and 40 score-correction biases of E, both tensors of the checkpoint
    # (layers.0-2.ffn.gate.tid2eid, layers.3-42.ffn.gate.bias) and parameters of DeepSeek's and
    # vLLM's models
    assert m.total_params == t["params"] + t["persistent_buffers"]
    assert t["persistent_buffer_names"] == {"tid2eid": 3 * 129_280 * 6,
                                            "e_score_correction_bias": 40 * 256}
    # the split as transformers builds it: decoder, its hyper-connection head, the head; the
    # routing tables apart; the MTP module transformers does not build is reported apart
    # (test_deepseek_v4_mtp_module_...)
    assert [(e.name, e.params) for e in m.extras][:2] == [
        ("hyper-connection head", 4 * 4 * 4096 + 4 + 1), ("hash-routing tables", 3 * 129_280 * 6)]
    assert [e.name for e in m.extras[2:]] == ["multi-token prediction"]
    assert t["by_prefix"]["model.hc_head"] == m.extras[0].params
    # 2 window-only layers, 21 CSA (overlapping, with the indexer selecting 512), 20 HCA
    kinds = {(run.attention.compress, run.attention.overlap, run.attention.index_heads,
              run.attention.index_topk) for run in m.layers}
    assert kinds == {(0, 0, 0, 0), (4, 2, 64, 512), (128, 1, 0, 0)}
    assert sum(run.count for run in m.layers if run.attention.compress == 4) == 21
    # the cache is not proportional to the context: no figure per token, refused naming why,
    # in one line (the cache at a context is counted: FAMILIES.md section 14.18, below)
    with pytest.raises(ConfigError, match=r"not counted: it needs a cache per token of "
                                          r"DeepSeek-V4's compressed attention") as err:
        m.kv_cache_bytes_per_token()
    assert "\n" not in str(err.value)
    # the old refusal is gone: no warning that the cache and what needs it are not counted
    import warnings

    from llm_arithmetic.estimate import estimate
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = estimate(m, context=4096)
    assert m.cache_uncounted == "" and "compressed" in m.uncounted
    assert (e.params_total, e.kv_cache_bytes_per_token) == (t["params"] + t["persistent_buffers"],
                                                            None)
    assert e.kv_cache_bytes == m.kv_cache_bytes(4096) and e.decode_seconds_per_token is None
    # served on a tensor-parallel group: one key-value head, the whole cache on every chip
    s = estimate(m, hardware="h200", tp=8, prompt=1000, generate=10, batch=4)
    assert s.memory_per_chip_bytes is not None and s.tpot_seconds is not None


# ---- DeepSeek-V4-Flash's hyper-connection head, read by every token (FAMILIES.md 14.18) ----------
# DeepseekV4HyperHead (hc_fn n_hc x n_hc d, hc_base n_hc, hc_scale 1) merges the four residual
# streams before the final norm on every token. By hand from the config fields (V 129,280,
# d 4,096, 43 layers: 2 window-only, 21 CSA, 20 HCA; E 256 of 2,048, top-6, one shared):
# attention 43 x 106,956,352 + 20 x 4,260,352 + 21 x (8,393,216 + 10,749,056); MoE 43 x (d E +
# 7 x 3 d 2,048) and the 40 score-routed blocks' correction biases of E (the first 3 route by
# the token's id, a table no step reads but a row of); two norms and two mixers a layer and the
# final norm; both embedding matrices 2 V d; the head 16 d + 5.
V4_D, V4_V = 4096, 129_280
V4_HEAD = 4 * 4 * V4_D + 4 + 1
V4_ACTIVE = (43 * 106_956_352 + 20 * 4_260_352 + 21 * (8_393_216 + 10_749_056)
             + 43 * (V4_D * 256 + 7 * 3 * V4_D * 2048) + 40 * 256
             + 43 * (2 * V4_D + 2 * ((2 + 4) * 4 * 4 * V4_D + (2 + 4) * 4 + 3)) + V4_D
             + 2 * V4_V * V4_D + V4_HEAD)
# a decode step reads all but V - 1 rows of the input table
V4_READ = V4_ACTIVE - (V4_V - 1) * V4_D


def test_deepseek_v4_active_parameters_count_the_hyper_connection_head():
    """5,086,317,888 (attention) + 7,620,012,032 (MoE, 10,240 correction biases) + 34,175,250
    (norms, mixers) + 1,059,061,760 (embeddings) + 65,541 (the head) = 13,799,632,471; Pro's in
    test_deepseek_v4_pro_parameters_by_hand_equal_the_meta_count."""
    from llm_arithmetic.estimate import estimate

    m = read_config(CONFIGS / "deepseek-v4-flash.json")
    assert V4_HEAD == 65_541 == m.extras[0].params
    assert V4_ACTIVE == 13_799_632_471 == m.active_params
    assert estimate(m).params_active == V4_ACTIVE


def test_an_extra_every_token_reads_is_in_the_total_and_its_products_are_its_own():
    """An extra a token reads is part of the decoder (in the total), and its weights in matrix
    products are at most its parameters; an extra no token reads has none."""
    from llm_arithmetic.catalog.model import Extra

    assert Extra("head", 65_541, True, read=True, matmul=65_536).matmul == 65_536
    with pytest.raises(ConfigError, match="in_total"):
        Extra("head", 65_541, False, read=True)
    for bad in (dict(read=True, matmul=65_542), dict(matmul=1)):
        with pytest.raises(ConfigError, match="matrix products"):
            Extra("head", 65_541, True, **bad)


@pytest.mark.parametrize("bits", [16, 8])
def test_deepseek_v4_a_decode_step_reads_the_hyper_connection_head(bits):
    """13,799,632,471 - 129,279 x 4,096 = 13,270,105,687 weights a step: 26,540,211,374 B at 16
    bits, 13,270,105,687 B at 8; at 4,096 tokens a step also reads 22,806,528 B of 16-bit cache
    (test_deepseek_v4_cache_stored_and_read_by_hand)."""
    from llm_arithmetic.estimate import estimate

    m = read_config(CONFIGS / "deepseek-v4-flash.json")
    assert V4_READ == 13_270_105_687 == m.decode_read_params == m.read_params(1)
    assert m.step_weight_bytes(bits) == V4_READ * bits // 8
    assert (V4_READ * 16 // 8, V4_READ * 8 // 8) == (26_540_211_374, 13_270_105_687)
    e = estimate(m, context=4096, bits_weight=bits)
    assert e.decode_bytes_per_token == V4_READ * bits // 8 + 22_806_528


def test_deepseek_v4_flops_count_the_hyper_connection_products():
    """The head's one product, F.linear of the n_hc d streams by hc_fn, is 16 d = 65,536 weights
    a token (2 FLOPs each; its bias and scale act on the four mixing weights); each block's two
    mixers (attn_hc, ffn_hc: DeepseekV4HyperConnection.forward, F.linear of the n_hc d streams
    by fn, (2 + n_hc) n_hc x n_hc d) are 2 x 24 x 16,384 = 786,432 more a layer. Weights in
    matrix products by hand: per layer q_a, q_b, kv, o_a (grouped), o_b; an HCA compressor's kv
    and gate d x d_h; a CSA compressor's d x 2 d_h and its indexer's d x 2 d_I, q_b r_q x 64 x
    128 and weights d x 64; the router and 7 experts; the two mixers; the output head; the
    hyper-connection head. At 4,096 tokens the attention adds 4 d_h FLOPs a row in 64 heads
    (2 x 128 + 21 x 640 + 20 x 160 rows) and 2 d_I a key in the indexer's 64 heads (21 x 1,024
    keys)."""
    from llm_arithmetic.estimate import estimate

    m = read_config(CONFIGS / "deepseek-v4-flash.json")
    d = V4_D
    base = d * 1024 + 1024 * 64 * 512 + d * 512 + 64 * 512 * 1024 + 8 * 1024 * d
    hca, csa = 2 * 512 * d, 2 * 2 * 512 * d + 2 * 2 * 128 * d + 1024 * 64 * 128 + d * 64
    mixers = 2 * (2 + 4) * 4 * 4 * d
    assert mixers == 786_432
    matmul = (43 * (base + mixers) + 20 * hca + 21 * csa + 43 * (d * 256 + 7 * 3 * d * 2048)
              + V4_V * d + 4 * 4 * d)
    assert matmul == 13_268_221_952 == m.matmul_params
    attention = 4 * 512 * 64 * (2 * 128 + 21 * 640 + 20 * 160) + 2 * 128 * 64 * 21 * 1024
    e = estimate(m, context=4096)
    assert e.decode_flops_per_token == 2 * matmul + attention == 29_103_357_952
    # a prefill runs the mixers and the head on every prompt token, the output head once
    prompt = 10
    assert m.evaluate("prefill_flops", prompt=prompt) == (
        2 * prompt * (matmul - V4_V * d) + 2 * V4_V * d
        + m.evaluate("layer_prefill_flops", prompt=prompt))


# ---- DeepSeek-V4-Flash's cache, by hand (FAMILIES.md section 14.18) ------------------------------
# From the config: window W = sliding_window = 128, one key-value head of d_h = head_dim = 512
# (keys are values), indexer keys of d_I = index_head_dim = 128, index_topk 512; compress_ratios
# 0, 0, then 4 and 128 alternating: 2 window-only, 21 CSA (m = 4, two series), 20 HCA (m = 128,
# one series). Rows per layer at S tokens: min(S, W) window rows of d_h; floor(S / m) entries
# of d_h, and in a CSA layer as many indexer keys of d_I; all at b bits. The compressors'
# pending state (vLLM: c m tokens x 2 c d in fp32, for the attention's compressor and a CSA
# layer's indexer's) is 8 c^2 m (d_h + d_I) bytes whatever b: CSA 8 * 4 * 4 * (512 + 128) =
# 81,920, HCA 8 * 1 * 128 * 512 = 524,288.
V4_PENDING = {"csa": 8 * 4 * 4 * (512 + 128), "hca": 8 * 1 * 128 * 512}
# values (elements) stored per layer: (window-only, CSA, HCA)
V4_STORED_VALUES = {
    4096: (128 * 512, 128 * 512 + 1024 * (512 + 128), 128 * 512 + 32 * 512),
    131_072: (128 * 512, 128 * 512 + 32_768 * (512 + 128), 128 * 512 + 1024 * 512),
}
# values one decode step reads per layer: the window, the selected entries (CSA: min(S/4,
# 512); HCA: all S/128), and every CSA indexer key
V4_READ_VALUES = {
    4096: (128 * 512, (128 + 512) * 512 + 1024 * 128, (128 + 32) * 512),
    131_072: (128 * 512, (128 + 512) * 512 + 32_768 * 128, (128 + 1024) * 512),
}


@pytest.mark.parametrize("context, bits, stored, read", [
    (4096, 16, 46_022_656, 22_806_528), (4096, 8, 29_114_368, 11_403_264),
    (131_072, 16, 919_617_536, 213_778_432), (131_072, 8, 465_911_808, 106_889_216)])
def test_deepseek_v4_cache_stored_and_read_by_hand(context, bits, stored, read):
    """The totals are FAMILIES.md section 14.18's, summed by hand: e.g. at 4,096 tokens and 16
    bits 2 x 131,072 + 21 x (1,441,792 + 81,920) + 20 x (163,840 + 524,288) = 46,022,656."""
    m = read_config(CONFIGS / "deepseek-v4-flash.json")
    window, csa, hca = V4_STORED_VALUES[context]
    by_rows = (2 * window + 21 * csa + 20 * hca) * bits // 8
    assert by_rows + 21 * V4_PENDING["csa"] + 20 * V4_PENDING["hca"] == stored
    window, csa, hca = V4_READ_VALUES[context]
    assert (2 * window + 21 * csa + 20 * hca) * bits // 8 == read
    assert m.kv_cache_bytes(context, 1, bits) == stored
    assert m.kv_cache_bytes(context, 3, bits) == 3 * stored
    assert m.evaluate("seq_kv_read", context=context, bits_kv=bits) == read
    # no runtime keeps every token of a compressed layer: the full-storage figure is the same
    assert m.evaluate("kv_cache_bytes_full_storage", context=context, bits_kv=bits) == stored


def test_deepseek_v4_tokens_that_fit_follow_the_cache_not_a_figure_per_token():
    """How many tokens fit is found on the cache itself (it grows in steps: an entry per 4
    tokens in CSA, per 128 in HCA, a window that stops at 128): with room for exactly the cache
    at 100,000 tokens beside the weights, 100,003 fit (floor(S / 4) = 25,000 and
    floor(S / 128) = 781 up to S = 100,003), and 1 sequence of 100,000. By hand at 16 bits:
    (2 x 128 x 512 + 21 x (128 x 512 + 25,000 x 640) + 20 x (128 x 512 + 781 x 512)) x 2 B plus
    the pending states 21 x 81,920 + 20 x 524,288 B = 705,837,056 B."""
    from llm_arithmetic.estimate import estimate

    path = CONFIGS / "deepseek-v4-flash.json"
    rows = 2 * 128 * 512 + 21 * (128 * 512 + 25_000 * 640) + 20 * (128 * 512 + 781 * 512)
    kv = rows * 2 + 21 * 81_920 + 20 * 524_288
    assert kv == 705_837_056
    weights = estimate(path, overhead=0).weight_bytes
    e = estimate(path, context=100_000, overhead=0, capacity=weights + kv, bandwidth=1e12)
    assert (e.kv_cache_bytes, e.max_context, e.max_batch, e.fits) == (kv, 100_003, 1, True)


def test_deepseek_v4_attention_flops_and_prefill_pairs_by_hand():
    """Per decoded token: 4 d_h FLOPs a row attended in each of the 64 heads, and the CSA
    indexer's 2 d_I per key in each of its 64 heads; a prefill of T = 1,000: the window's pairs
    (W (W + 1) / 2 + (T - W) W = 8,256 + 111,616 = 119,872), a CSA layer's entries
    (sum of min(floor(i / 4), 512) = 4 * 250 * 249 / 2 + 250 * 1 = 124,750: none capped below
    T = 2,048) and an HCA layer's (sum of floor(i / 128) = 128 * 7 * 6 / 2 + 7 * 105 = 3,423)."""
    m = read_config(CONFIGS / "deepseek-v4-flash.json")
    kind = {run.attention.compress: run.attention for run in m.layers}
    window, csa, hca = kind[0], kind[4], kind[128]
    assert csa.tokens(4096) == 128 + 512 and hca.tokens(4096) == 128 + 32
    assert window.tokens(100) == 100 and csa.tokens(100) == 100 + 25
    assert csa.decode_flops(4096) == 4 * 64 * 512 * 640 + 2 * 64 * 128 * 1024
    assert hca.decode_flops(4096) == 4 * 64 * 512 * 160
    assert window.decode_flops(4096) == 4 * 64 * 512 * 128
    pairs = 128 * 129 // 2 + (1000 - 128) * 128
    assert pairs == 119_872
    assert csa.prefill_flops(1000) == (4 * 64 * 512 * (pairs + 124_750)
                                       + 2 * 64 * 128 * 124_750)
    assert hca.prefill_flops(1000) == 4 * 64 * 512 * (pairs + 3423)
    # past 4 x 512 tokens a CSA query reads 512 entries: T = 3,000 adds 512 for each token
    # after the 2,048th (sum to 2,048: 4 * 512 * 511 / 2 + 512 * 1 = 523,776)
    capped = 523_776 + 512 * (3000 - 2048)
    uncapped = 4 * 750 * 749 // 2 + 750 * 1
    window_pairs = 128 * 129 // 2 + (3000 - 128) * 128
    assert csa.prefill_flops(3000) == (4 * 64 * 512 * (window_pairs + capped)
                                       + 2 * 64 * 128 * uncapped)


def test_deepseek_v4_cache_at_a_million_tokens_against_the_published_ratio():
    """DeepSeek's figure: at 1M tokens DeepSeek-V4-Flash needs 7% of DeepSeek-V3.2's KV cache
    (FAMILIES.md section 14.18 gives the sources). By hand at S = 2^20 and 16 bits: V4's rows
    2 x 128 x 512 + 21 x (128 x 512 + 262,144 x 640) + 20 x (128 x 512 + 8,192 x 512) values,
    x 2 B, plus the pending states 21 x 81,920 + 20 x 524,288 B: 7,232,045,056 B; V3.2's
    61 layers x (512 + 64 + 128) values x 2 B = 85,888 B a token: 90,060,095,488 B. The ratio
    is 8.0% at one width for every row; with V4's indexer keys at 4 bits (FP4, as DeepSeek's
    report describes) against V3.2's at 8 and every other row at 8 bits, 7.3%: the 7%."""
    v4 = read_config(CONFIGS / "deepseek-v4-flash.json")
    v32 = read_config(CONFIGS / "deepseek-v3.2.json")
    s = 2 ** 20
    rows = 2 * 128 * 512 + 21 * (128 * 512 + s // 4 * 640) + 20 * (128 * 512 + s // 128 * 512)
    by_hand = rows * 2 + 21 * 81_920 + 20 * 524_288
    assert by_hand == 7_232_045_056 == v4.kv_cache_bytes(s)
    assert 61 * 704 * 2 * s == 90_060_095_488 == v32.kv_cache_bytes(s)
    assert round(by_hand / 90_060_095_488, 3) == 0.080
    # the published 7%: every row at 8 bits, V4's indexer keys at 4 (no scales either side)
    fp4_indexer = (2 * 128 * 512 + 21 * (128 * 512 + s // 4 * (512 + 64))
                   + 20 * (128 * 512 + s // 128 * 512)) + 21 * 81_920 + 20 * 524_288
    assert fp4_indexer == 3_269_804_032 and round(fp4_indexer / (61 * 704 * s), 3) == 0.073


def test_deepseek_v4_pro_parameters_by_hand_equal_the_meta_count():
    """DeepSeek-V4-Pro (FAMILIES.md section 14.18, "DeepSeek-V4-Pro"): V 129,280, d 7,168,
    61 layers, 128 heads of 512, one key-value head, r_q 1,536, 16 output groups of 1,024,
    384 experts of 3,072 (top-6) and one shared, n_hc 4, indexer 64 x 128 selecting 1,024.
    compress_ratios 128, 128, then 4 and 128 alternating (62 entries, the first 61 kept): no
    window-only layer, 30 CSA (layers 2, 4, ..., 60) and 31 HCA, as the checkpoint's tensor
    listing shows (compressor.ape 128 x 512 in 31 layers, 4 x 1,024 in 30)."""
    m = read_config(CONFIGS / "deepseek-v4-pro.json")
    t = truth(CONFIGS / "deepseek-v4-pro.json")
    d, hd = 7168, 128 * 512
    base = (d * 1536 + 1536 + 1536 * hd) + (d * 512 + 512) + (hd * 1024 + 16 * 1024 * d) + 128
    assert base == 299_894_912
    hca = 2 * d * 512 + 128 * 512 + 512
    csa = 2 * d * 1024 + 4 * 1024 + 512
    indexer = 2 * d * 256 + 4 * 256 + 128 + 1536 * 64 * 128 + d * 64
    assert (hca, csa, indexer) == (7_406_080, 14_684_672, 16_712_832)
    expert = 3 * d * 3072
    moe = d * 384 + 384 * expert + expert
    hyper = 2 * ((2 + 4) * 4 * 4 * d + (2 + 4) * 4 + 3)
    head = 4 * 4 * d + 4 + 1
    total = (61 * base + 31 * hca + 30 * (csa + indexer) + 61 * moe + 61 * (2 * d + hyper) + d
             + 2 * 129_280 * d + head)
    assert total == 1_572_997_179_491 == t["params"]
    assert t["by_prefix"]["model.hc_head"] == head == m.extras[0].params
    # persistent buffers in transformers, tensors of the checkpoint (layers.0-2.ffn.gate.tid2eid,
    # layers.3-60.ffn.gate.bias) and counted: tid2eid in the 3 hash-routed layers, the score
    # correction bias of E in the other 58
    assert t["persistent_buffer_names"] == {"tid2eid": 3 * 129_280 * 6,
                                            "e_score_correction_bias": 58 * 384}
    assert m.total_params == total + 3 * 129_280 * 6 + 58 * 384 == 1_572_999_528_803
    kinds = {(run.attention.compress, run.attention.overlap, run.attention.index_heads,
              run.attention.index_topk): 0 for run in m.layers}
    for run in m.layers:
        kinds[(run.attention.compress, run.attention.overlap, run.attention.index_heads,
               run.attention.index_topk)] += run.count
    assert kinds == {(4, 2, 64, 1024): 30, (128, 1, 0, 0): 31}
    # DeepSeek's figures: 1.6T total, 49B activated. The library's active count takes both
    # embedding matrices and the hyper-connection head, which every token runs (like Flash's);
    # without the input table (one row read a token) it is the published 49B
    active = 61 * base + 31 * hca + 30 * (csa + indexer) + 61 * (d * 384 + 7 * expert) \
        + 58 * 384 + 61 * (2 * d + hyper) + d + 2 * 129_280 * d + head
    assert active == 49_779_081_059 == m.active_params
    assert m.decode_read_params == active - (129_280 - 1) * d == 48_852_409_187
    assert round(total / 1e11) == 16 and round((active - 129_280 * d) / 1e9) == 49


# ---- DeepSeek-V4's multi-token-prediction module (FAMILIES.md section 14.18, "The MTP module") ---
# DeepSeek's inference code (inference/model.py of the Hub repositories, as copied in
# Mockingjay1316/deepseek-v4-flash-spark @ 0825add42734731a285e30f657b0ccfc5bad74c9, Flash, and
# Nicooo-Wang/DeepSeek-V4-Pro-code @ 0ec3a03c2fc34f29b2e72696ceaed9ae7a373aeb, Pro; the classes
# are the same): Transformer builds num_nextn_predict_layers MTPBlock(n + i), each a Block
# (Attention with compress_ratios[n + i], MoE with Gate, two RMSNorms, the hc_attn_* and hc_ffn_*
# mixers) plus e_proj and h_proj (d x d each), enorm, hnorm and norm (d each) and its own
# hyper-connection head (hc_head_fn n_hc x n_hc d, hc_head_base n_hc, hc_head_scale 1); its
# embed and head are the model's (self.mtp[-1].embed = self.embed). compress_ratios[43] = 0 in
# Flash's file and [61] = 0 in Pro's: the module's attention is window-only (no compressor, no
# indexer). Layer 43 (61) is past num_hash_layers = 3: its Gate keeps a bias of E in float32 in
# place of tid2eid, counted as the decoder's 40 (58) score-correction biases are.
def _v4_mtp_by_hand(d, heads, r_q, groups, r_o, experts, width, n_hc=4, d_h=512):
    attention = (d * r_q + r_q + r_q * heads * d_h      # wq_a, q_norm, wq_b
                 + d * d_h + d_h                        # wkv, kv_norm (one head, keys = values)
                 + heads * d_h // groups * groups * r_o  # wo_a, grouped
                 + groups * r_o * d + heads)            # wo_b, attn_sink
    moe = experts * (d + 1) + experts * 3 * d * width + 3 * d * width  # gate, bias, experts
    block = attention + moe + 2 * d + 2 * ((2 + n_hc) * n_hc * n_hc * d + (2 + n_hc) * n_hc + 3)
    own = 2 * d * d + 3 * d + n_hc * n_hc * d + n_hc + 1  # e_proj, h_proj, 3 norms, hc_head
    return block + own


def test_deepseek_v4_mtp_module_is_reported_apart_by_hand():
    """Flash: attention 106,956,352 (the window-only layers' count), MoE 6,468,665,344, norms
    8,192, mixers 786,486, e_proj and h_proj 33,554,432, three norms 12,288, the head 65,541, the
    router's correction bias 256: 6,610,048,891. Pro: 25,840,145,979, which is also the sum of
    the mtp.0.* shapes in the checkpoint's tensor listing (SOURCES.md section 7, index file id
    62525154746; an int8 byte of the experts holds two FP4 values). Not in the total (the published 284B
    is the decoder's 284.33B: with the module it would be 290.94B), not read by a plain decode
    step; it makes the speculation workload 'mtp' apply, as DeepSeek-V3's does."""
    from llm_arithmetic.estimate import estimate

    flash = _v4_mtp_by_hand(4096, 64, 1024, 8, 1024, 256, 2048)
    pro = _v4_mtp_by_hand(7168, 128, 1536, 16, 1024, 384, 3072)
    assert (flash, pro) == (6_610_048_891, 25_840_145_979)
    listing = (128 + 512 + 1536 + 512 * 7168 + 16384 * 4096 + 7168 * 16384 + 1536 * 7168
               + 65536 * 1536 + 7168                                  # attn.*, attn_norm
               + 384 * (2 * 3072 * 3584 * 2 + 7168 * 1536 * 2)        # ffn.experts.*, int8
               + 384 * 7168 + 384 + 3 * 3072 * 7168 + 7168      # gate, bias, shared, ffn_norm
               + 2 * 7168 * 7168 + 3 * 7168                           # e_proj, h_proj, norms
               + 2 * (24 * 28672 + 24 + 3) + 4 * 28672 + 4 + 1)       # hc_attn/ffn, hc_head
    assert listing == pro
    for name, by_hand in (("deepseek-v4-flash", flash), ("deepseek-v4-pro", pro)):
        m = read_config(CONFIGS / f"{name}.json")
        t = truth(CONFIGS / f"{name}.json")
        assert [(e.name, e.params, e.in_total, e.read) for e in m.extras] == [
            ("hyper-connection head", 4 * 4 * m.d_model + 4 + 1, True, True),
            ("hash-routing tables", 3 * 129_280 * 6, True, False),
            ("multi-token prediction", by_hand, False, False)]
        assert m.total_params == t["params"] + t["persistent_buffers"] and m.has_mtp()
    m = read_config(CONFIGS / "deepseek-v4-flash.json")
    assert round(m.total_params / 1e9, 2) == 284.33
    assert round((m.total_params + flash) / 1e9, 2) == 290.94
    # a plain step reads none of it; speculation with the module drafts a token a step
    plain = estimate(m, hardware="h200", context=4096)
    spec = estimate(m, hardware="h200", context=4096, speculation="mtp")
    assert spec.params_active == plain.params_active == 13_799_632_471
    assert spec.decode_bytes_per_token == plain.decode_bytes_per_token
    assert spec.speculative_tokens_per_second > plain.decode_tokens_per_second


def test_deepseek_v4_mtp_module_attention_follows_its_compress_ratio():
    """The module's attention is compress_ratios[n + i], as DeepSeek's Attention(layer_id)
    reads it: a file whose 44th entry is 4 gives the module a CSA layer's compressor (kv and gate
    d x 2 d_h, position bias 4 x 2 d_h, norm d_h: 8,393,216) and indexer (10,749,056); without a
    44th entry (a file in transformers' layer_types form) the module is window-only, as in both
    published checkpoints; a ratio outside 0, 4, 128 is refused naming the field."""
    base = read_config(CONFIGS / "deepseek-v4-flash.json").mtp_extras()[0].params
    cfg = config("deepseek-v4-flash")
    cfg["compress_ratios"] = cfg["compress_ratios"][:43] + [4]
    assert read_config(cfg).mtp_extras()[0].params == base + 8_393_216 + 10_749_056
    cfg["compress_ratios"] = cfg["compress_ratios"][:43]
    assert read_config(cfg).mtp_extras()[0].params == base
    cfg["num_nextn_predict_layers"] = 2
    assert read_config(cfg).mtp_extras()[0].params == 2 * base
    cfg["compress_ratios"] = cfg["compress_ratios"][:43] + [0, 64]
    with pytest.raises(ConfigError, match=r"field 'compress_ratios'"):
        read_config(cfg)
    cfg["num_nextn_predict_layers"] = 0
    assert [e.name for e in read_config(cfg).extras] == ["hyper-connection head",
                                                        "hash-routing tables"]


def test_deepseek_v4_pro_cache_at_a_million_tokens_against_the_published_ratio():
    """DeepSeek's figure for V4-Pro: 10% of DeepSeek-V3.2's KV cache at 1M tokens (model card;
    FAMILIES.md section 14.18). By hand at S = 2^20 and 16 bits: 30 CSA layers of
    128 x 512 + 262,144 x (512 + 128) values and 31 HCA layers of 128 x 512 + 8,192 x 512,
    x 2 B, plus the pending states 30 x 81,920 + 31 x 524,288 B = 10,353,082,368 B against
    V3.2's 90,060,095,488 B: 11.5% at one width for every row; with the indexer keys at 4 bits
    and every other row at 8 (V3.2 at 8), 10.4%: the published 10%."""
    pro = read_config(CONFIGS / "deepseek-v4-pro.json")
    s = 2 ** 20
    pending = 30 * 8 * 4 * 4 * (512 + 128) + 31 * 8 * 1 * 128 * 512
    assert pending == 18_710_528
    rows = 30 * (128 * 512 + s // 4 * 640) + 31 * (128 * 512 + s // 128 * 512)
    by_hand = rows * 2 + pending
    assert by_hand == 10_353_082_368 == pro.kv_cache_bytes(s)
    assert round(by_hand / 90_060_095_488, 3) == 0.115
    fp4_indexer = 30 * (128 * 512 + s // 4 * (512 + 64)) + 31 * (128 * 512 + s // 128 * 512) \
        + pending
    assert round(fp4_indexer / (61 * 704 * s), 3) == 0.104
    # at 4,096 tokens and 8 bits: 30 x (65,536 + 1,024 x 640 + 81,920) = 30 x 802,816 =
    # 24,084,480 and 31 x (65,536 + 32 x 512 + 524,288) = 31 x 606,208 = 18,792,448
    assert pro.kv_cache_bytes(4096, 1, 8) == 24_084_480 + 18_792_448 == 42_876_928


@pytest.mark.parametrize("ratios", [[0, 0] + [7] * 42, [0, 0, 4, 128], "4,128"])
def test_deepseek_v4_a_garbled_compress_ratios_is_refused_naming_the_field(ratios):
    """A ratio other than 0, 4 and 128 (each a layer kind of transformers' table), too few of
    them or not a list: refused in one line naming compress_ratios."""
    cfg = config("deepseek-v4-flash")
    cfg["compress_ratios"] = ratios
    with pytest.raises(ConfigError, match=r"field 'compress_ratios' must list at least 43 "
                                          r"ratios from \[0, 4, 128\]") as err:
        read_config(cfg)
    assert "\n" not in str(err.value)


# a family no reader knows: tests/test_families.py's relabelled copies (mimo3, step4 among them)


# ---- MiMo-7B-Base (FAMILIES.md section 14.22) ------------------------------------------------------
def test_mimo_7b_is_qwen2_with_an_mtp_layer_by_hand():
    m = read_config(CONFIGS / "mimo-7b-base.json")
    v, d, layers, h, kv, dh, ff = 151_680, 4096, 36, 32, 8, 128, 11_008
    # q and o, k and v, the q/k/v biases, the gated MLP, two norms
    block = (2 * h + 2 * kv) * dh * d + (h + 2 * kv) * dh + 3 * d * ff + 2 * d
    assert m.total_params == 2 * v * d + layers * block + d
    # the MTP layer: token and hidden norms, input_proj 2d x d, a Qwen2 block, a final norm
    assert [(e.name, e.params, e.in_total) for e in m.extras] == [
        ("multi-token prediction", 3 * d + 2 * d * d + block, False)]
    # the decoder is Qwen2's (a reader held to meta counts) on the same sizes
    qwen2 = {k: val for k, val in config("mimo-7b-base").items()
             if k != "num_nextn_predict_layers"}
    qwen2.update(model_type="qwen2", architectures=["Qwen2ForCausalLM"])
    assert read_config(qwen2).total_params == m.total_params
    # use_sliding_window false: every layer keeps every token
    assert m.kv_cache_bytes_per_token() == layers * 2 * kv * dh * 2
    assert m.kv_cache_bytes(32_768) == 32_768 * layers * 2 * kv * dh * 2


def test_mimo_7b_checkpoint_holds_the_decoder_and_its_mtp_layer():
    # SOURCES.md section 7: a bf16 checkpoint of this layout (a fine-tune of MiMo-7B-Base,
    # model_type mimo) ships four shards of 4.99, 4.97, 4.47 and 1.24 GB: the decoder and its
    # MTP layer at 2 bytes each, not the decoder alone
    m = read_config(CONFIGS / "mimo-7b-base.json")
    shards = 4.99 + 4.97 + 4.47 + 1.24
    assert round(2 * (m.total_params + m.extras[0].params) / 1e9, 2) == round(shards, 2)
    assert shards - 2 * m.total_params / 1e9 > 0.4


# ---- Llama-3.3-Nemotron-Super-49B-v1 (FAMILIES.md section 14.23) ------------------------------------
NAS = CONFIGS / "llama-3_3-nemotron-super-49b-v1.json"
# ffn_mult -> the MLP width vLLM's nemotron_nas.py builds (int(2 m d / 3), up to a multiple of
# 256), worked by hand for d = 8192: 2/3 of 8192 m is 2730.7, 5461.3, 7168, 14336, 17920, 28672
NAS_WIDTHS = {0.5: 2816, 1.0: 5632, 1.3125: 7168, 2.625: 14336, 3.28125: 17920, 5.25: 28672}


def test_nemotron_super_49b_by_hand_from_its_block_configs():
    m = read_config(NAS)
    v, d, h, dh = 128_256, 8192, 64, 128
    blocks = config("llama-3_3-nemotron-super-49b-v1")["block_configs"]
    attn = [b for b in blocks if not b["attention"]["no_op"]]
    assert len(blocks) == 80 and len(attn) == 49
    assert {b["attention"]["n_heads_in_group"] for b in attn} == {8}
    kv = h // 8
    # embeddings and untied head; q and o (d x d), k and v (d x 8 heads of 128) in the 49
    # attention layers; three matrices d x width in all 80 MLPs; a norm per present part + final
    mlp = sum(3 * d * NAS_WIDTHS[b["ffn"]["ffn_mult"]] for b in blocks)
    assert mlp == 3 * d * (6 * 2816 + 8 * 5632 + 10 * 7168 + 6 * 14336 + 17920 + 49 * 28672)
    total = 2 * v * d + 49 * (2 * d * d + 2 * d * kv * dh) + mlp + (49 + 80 + 1) * d
    assert m.total_params == total == 49_867_145_216
    assert m.active_params == m.total_params
    # only the 49 attention layers cache, each with its own 64 / 8 key/value heads
    assert m.kv_cache_bytes_per_token() == 49 * 2 * kv * dh * 2 == 200_704
    assert m.kv_cache_bytes(131_072) == 131_072 * 200_704


def test_nemotron_super_49b_against_published_sizes():
    total = read_config(NAS).total_params
    # the Hub's safetensors count, 49.9B (SOURCES.md section 7), at its precision
    assert round(total / 1e9, 1) == 49.9
    # bartowski's bf16 GGUF of the checkpoint is 99.74 GB (SOURCES.md section 7): 2 B a weight
    # (99.734 GB) plus the file's tokenizer metadata and its norms kept in fp32, a few MB; the
    # 2.1 GB of a tied head or the 25 MB of widths not rounded up to 256 would show
    low, high = 99.735 - 2 * total / 1e9, 99.745 - 2 * total / 1e9  # what the file adds [GB]
    assert high > 0 and low < 0.011


def test_nemotron_nas_with_uniform_blocks_is_llama_3_70b():
    # every block Llama 3.3 70B's (8 KV heads, ffn_mult 5.25: width 28,672): the llama
    # reader's count of the same sizes, Llama 3.1/3.3 70B's 70,553,706,496 parameters
    cfg = config("llama-3_3-nemotron-super-49b-v1")
    cfg["block_configs"] = [{"attention": {"n_heads_in_group": 8, "no_op": False},
                             "ffn": {"ffn_mult": 5.25, "no_op": False}}] * 80
    llama = {k: val for k, val in cfg.items() if k != "block_configs"}
    llama.update(model_type="llama", architectures=["LlamaForCausalLM"], num_key_value_heads=8,
                 intermediate_size=28_672)
    assert read_config(cfg).total_params == read_config(llama).total_params == 70_553_706_496
    # a block with both parts no-ops is the identity: nothing to count
    cfg["block_configs"] = cfg["block_configs"][:79] + [
        {"attention": {"no_op": True}, "ffn": {"no_op": True}}]
    assert read_config(cfg).total_params == 70_553_706_496 - (
        2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28_672 + 2 * 8192)


@pytest.mark.parametrize("path, value, message", [
    (("attention", "replace_with_linear"), True,
     r"block_configs\[3\]\.attention: field 'replace_with_linear' = True is not supported"),
    (("ffn", "replace_with_linear"), True,
     r"block_configs\[3\]\.ffn: field 'replace_with_linear' = True is not supported"),
    (("attention", "window_length"), 4096,
     r"block_configs\[3\]\.attention: field 'window_length' = 4096 is not supported"),
    (("attention", "num_sink_tokens"), 4,
     r"block_configs\[3\]\.attention: field 'num_sink_tokens' = 4 is not supported"),
    (("attention", "n_heads_in_group"), 7,
     r"block_configs\[3\]\.attention: field 'n_heads_in_group' \(7\) does not divide"),
    (("attention", "n_heads_in_group"), None,
     r"block_configs\[3\]\.attention: missing field 'n_heads_in_group'"),
    (("ffn", "ffn_mult"), -1.0, r"block_configs\[3\]\.ffn: field 'ffn_mult' must be a positive"),
    (("ffn", "ffn_mult"), "5.25", r"block_configs\[3\]\.ffn: field 'ffn_mult' must be a "),
    (("ffn", "ffn_mult"), 1e6, r"field 'ffn_mult' = 1000000.0 makes an MLP"),
    (("ffn", "experts"), 8, r"block_configs\[3\]\.ffn: field 'experts' = 8 is not understood"),
])
def test_nemotron_nas_block_it_cannot_count_is_refused_naming_the_field(path, value, message):
    cfg = config("llama-3_3-nemotron-super-49b-v1")
    cfg["block_configs"][3][path[0]][path[1]] = value
    with pytest.raises(ConfigError, match=message) as err:
        read_config(cfg)
    assert "\n" not in str(err.value)


def test_nemotron_nas_block_list_must_match_the_layers():
    cfg = config("llama-3_3-nemotron-super-49b-v1")
    cfg["block_configs"] = cfg["block_configs"][:79]
    with pytest.raises(ConfigError, match=r"field 'block_configs' must be a list of 80 blocks"):
        read_config(cfg)
    cfg["block_configs"] = [{"attention": {"no_op": True}, "ffn": {"no_op": True}}] * 80
    with pytest.raises(ConfigError, match=r"makes every block a no-op"):
        read_config(cfg)


def test_per_layer_block_shapes_of_an_unknown_family_are_refused_naming_the_key():
    # the vendored file is read since section 14.23: a relabelled copy stands for a family no
    # reader knows that declares DeciLM's block shapes
    cfg = {**config("llama-3_3-nemotron-super-49b-v1"), "model_type": "deci2",
           "architectures": ["Deci2ForCausalLM"]}
    with pytest.raises(ConfigError, match=r"it needs per-layer block shapes .*declared by "
                                          r"field 'block_configs'") as err:
        read_config(cfg)
    assert "\n" not in str(err.value)


# ---- Step 3.7 Flash (FAMILIES.md section 14.21) ---------------------------------------------------
STEP = CONFIGS / "step-3.7-flash.json"


def test_step_3_7_flash_equals_the_meta_count_with_the_files_vocabulary():
    # transformers read the flat file as Step3p7ForConditionalGeneration and built its language
    # model from Step3p7TextConfig's defaults, which equal the file's sizes but for the
    # vocabulary (flagged in the data): the file's model is that language model and head with
    # 81 more rows in each V x d table, plus the router's e_score_correction_bias buffers (E per
    # MoE layer, stored in the checkpoint); the default vision tower and projector are not the
    # file's (it declares none)
    t = truth(STEP)
    assert t["config_mismatch"] == {"vocab_size": [128_896, 128_815]}
    assert t["persistent_buffer_names"] == {"e_score_correction_bias": 42 * 288}
    lm = t["by_prefix"]["model.language_model"] + t["by_prefix"]["lm_head.weight"]
    m = read_config(STEP)
    assert m.total_params == lm + 2 * (128_896 - 128_815) * 4096 + t["persistent_buffers"]


def test_step_3_7_flash_cache_keeps_the_window_on_sliding_layers():
    m = read_config(STEP)
    # 45 layers x K and V x 8 KV heads x 128 x 2 B; 12 full layers keep every token, 33 sliding
    # layers the last 512
    assert m.kv_cache_bytes_per_token() == 45 * 2 * 8 * 128 * 2
    assert m.kv_cache_bytes(65_536) == (12 * 65_536 + 33 * 512) * 2 * 8 * 128 * 2
    assert m.kv_cache_bytes_full_storage(65_536) == 45 * 65_536 * 2 * 8 * 128 * 2


def test_step_3_7_flash_rounds_to_the_published_counts_and_reports_its_mtp_apart():
    # SOURCES.md section 7: a 196B language backbone, about 11B active per token (top-8 of 288)
    m = read_config(STEP)
    assert (round(m.total_params / 1e9), round(m.active_params / 1e9)) == (196, 11)
    # three MTP layers, each: enorm, hnorm, eh_proj 2d x d, a block of sliding attention (q, k,
    # v, o, a gate per head, q/k norms) with a dense MLP and two norms, shared_head.norm and an
    # output head V x d; outside the total and read by no decode step
    d, block = 4096, (2 * 64 + 2 * 8) * 128 * 4096 + 4096 * 64 + 2 * 128 + 3 * 4096 * 11264
    per = 3 * d + 2 * d * d + block + 2 * d + 128_896 * d
    assert [(e.name, e.params, e.in_total) for e in m.extras] == [
        ("multi-token prediction", 3 * per, False)]


@pytest.mark.parametrize("change, pattern", [
    ({"attention_other_setting": {"num_attention_heads": 64, "num_attention_groups": 4}},
     r"field 'attention_other_setting.num_attention_groups' = 4 is not supported"),
    ({"first_k_dense_replace": 4}, r"field 'first_k_dense_replace' \(4\) contradicts"),
    ({"n_shared_experts": 2}, r"field 'n_shared_experts' must be 1"),
    ({"moe_num_experts": 256}, r"fields 'moe_num_experts' \(256\) and 'num_experts' \(288\)"),
    ({"gating": "per-channel"}, r"field 'gating' must be"),
    ({"mlp_bias": True}, r"field 'mlp_bias' = True is not supported"),
])
def test_step_3_7_layouts_not_modelled_are_refused_naming_the_key(change, pattern):
    with pytest.raises(ConfigError, match=pattern) as err:
        read_config({**config("step-3.7-flash"), **change})
    assert "\n" not in str(err.value)


def test_step_3_7_reads_the_hub_layout_keys():
    # the Hub's file pads layer_types with its three MTP layers and may give the sliding
    # layers their own query heads (attention_other_setting): 96 heads add 32 x 128 columns
    # to q and o and 32 gates per sliding layer
    cfg = config("step-3.7-flash")
    base = read_config(cfg).total_params
    padded = {**cfg, "layer_types": cfg["layer_types"] + ["sliding_attention"] * 3}
    assert read_config(padded).total_params == base
    wide = {**cfg, "attention_other_setting": {"num_attention_heads": 96}}
    assert read_config(wide).total_params - base == 33 * (2 * 32 * 128 * 4096 + 32 * 4096)


def test_unknown_wrapper_with_a_vision_tower_is_refused_naming_it():
    cfg = config("kimi-k2.5")
    cfg["model_type"], cfg["architectures"] = "kimi_k26", ["KimiK26ForConditionalGeneration"]
    with pytest.raises(ConfigError, match="it needs a vision tower the library does not count"):
        read_config(cfg)


# ---- a reconstructed file (tests/configs/SOURCES.md section 7, FAMILIES.md section 14.7) ----------
GLM_AIR = CONFIGS / "reconstructed" / "glm-4.5-air.json"


def test_glm4_moe_equals_the_meta_device_count_with_its_router_buffers():
    t = truth(GLM_AIR)
    m = read_config(GLM_AIR)
    assert m.total_params == t["params"] + t["persistent_buffers"]
    assert t["persistent_buffer_names"] == {"e_score_correction_bias": t["persistent_buffers"]}
    assert m.kv_cache_bytes_per_token() == 188_416


def test_glm4_moe_rounds_to_the_published_106b_and_12b_active():
    m = read_config(GLM_AIR)
    assert int(m.total_params / 1e9) == 106  # 106.85B: the card truncates
    # the card's 12B active leaves out both embedding matrices
    assert round((m.active_params - 2 * m.n_vocab * m.d_model) / 1e9) == 12
    # the MTP layer transformers does not build is reported apart, outside the total
    assert [(e.name, e.in_total) for e in m.extras] == [("multi-token prediction", False)]


def test_glm4_moe_qk_norms_follow_use_qk_norm():
    cfg = json.loads(GLM_AIR.read_text(encoding="utf-8"))
    plain = read_config(cfg).total_params
    cfg["use_qk_norm"] = True  # GLM-4.5's own setting: q_norm and k_norm of head_dim per layer
    assert read_config(cfg).total_params - plain == 46 * 2 * 128


# ---- relabelled and contradicted files ---------------------------------------------------------
def _without_architectures(cfg):
    del cfg["architectures"]


def _pattern_with_unknown_block(cfg):
    cfg["hybrid_override_pattern"] = "X" + cfg["hybrid_override_pattern"][1:]


@pytest.mark.parametrize("name, change, pattern", [
    # Kimi K2 is read through the architecture it names, and only through it
    ("kimi-k2-instruct", _without_architectures, r"unsupported model_type 'kimi_k2'"),
    # a known model_type wins over architectures: DeepSeek-V3.2 relabelled as deepseek_v3 meets
    # that reader's refusal of the indexer's key
    ("deepseek-v3.2", {"model_type": "deepseek_v3"},
     r"field 'index_topk' = 2048 declares sparse attention with an indexer"),
    # keys that restate the qwen3_moe layout are accepted only when they agree with it
    ("qwen3-coder-480b-a35b-instruct", {"use_qk_norm": False},
     r"field 'use_qk_norm' = false contradicts the 'qwen3_moe' layout"),
    ("qwen3-coder-480b-a35b-instruct", {"qkv_bias": True},
     r"field 'qkv_bias' = true contradicts the 'qwen3_moe' layout"),
    # MiniMax-M2's q/k norms are counted over whole projections only; no shared expert
    ("minimax-m2.5", {"qk_norm_type": "per_head"}, r"field 'qk_norm_type' = 'per_head'"),
    ("minimax-m2.5", {"shared_intermediate_size": 1536}, r"field 'shared_intermediate_size'"),
    # the dense Qwen3-VL wrapper does not read a mixture of experts
    ("qwen3-vl-30b-a3b-instruct", {"model_type": "qwen3_vl"},
     r"text_config: field '(num_experts|moe_intermediate_size)'.*'qwen3' reader"),
    # Nemotron 3's MoE block has at most one shared expert; unknown block letters are refused
    ("nvidia-nemotron-3-nano-30b-a3b-bf16", {"n_shared_experts": 2},
     r"field 'n_shared_experts' = 2"),
    ("nvidia-nemotron-3-nano-30b-a3b-bf16", _pattern_with_unknown_block,
     r"field 'hybrid_override_pattern' must be"),
    # Kimi Linear relabelled as DeepSeek-V3 (whose MLA and MoE it shares) meets that reader's
    # refusal of the linear-attention layers; a K3 key outside a kimi_linear file is refused
    ("kimi-linear-48b-a3b-instruct", {"model_type": "deepseek_v3"},
     r"field 'linear_attn_config' = .* declares linear attention"),
    ("deepseek-r1", {"mla_use_output_gate": True},
     r"field 'mla_use_output_gate' = True declares an output gate on latent attention"),
])
def test_relabelled_or_contradicted_file_is_refused_naming_the_key(name, change, pattern):
    cfg = config(name)
    if callable(change):
        change(cfg)
    else:
        cfg.update(change)
    with pytest.raises(ConfigError, match=pattern):
        read_config(cfg)


def test_qwen3_5_text_config_relabelled_as_qwen3_is_refused():
    cfg = config("qwen3.5-27b")["text_config"]
    cfg["model_type"] = "qwen3"
    with pytest.raises(ConfigError, match=r"field 'linear_num_value_heads' = \d+ declares linear "
                                          r"attention"):
        read_config(cfg)


# ---- the catalog against the same ground truth -------------------------------------------------
def vendored_copy(path: Path) -> Path | None:
    """The file of tests/configs that a catalog config is a byte copy of, if any (the 2025-26
    flagships entered the catalog as copies of the files this module reads and checks)."""
    data = path.read_bytes()
    files = sorted(CONFIGS.glob("*.json")) + sorted((CONFIGS / "reconstructed").glob("*.json"))
    return next((p for p in files if p.read_bytes() == data), None)


#: reconstructed files whose counts tests/test_gemma3n.py holds to the language model's meta count
#: (tests/data/ground_truth.json), timm's meta count of the vision network and the hand count of
#: the audio tower (FAMILIES.md section 14.25)
CHECKED_IN_TEST_GEMMA3N = {"gemma-3n-e2b-it", "gemma-3n-e4b-it"}
#: reconstructed files whose counts this module holds to a hand count and to the meta count (less
#: what transformers builds and the checkpoint lacks: LongCat-Flash's identity experts' gate_up
#: rows, FAMILIES.md section 17.19; Kimi-VL: its text_config's meta count and its tower by hand,
#: FAMILIES.md section 17.35; the catalog's Grok-2, Qwen2-57B-A14B, DBRX Instruct and Granite
#: 3.3 8B are byte copies of the reconstructed files whose tests below hold them to the hand
#: count and, but Grok-2's, the meta count)
CHECKED_BY_HAND_HERE = {"longcat-flash-chat", "c4ai-command-a-03-2025", "glm-4-9b-0414",
                        "step3", "minicpm3-4b", "kimi-vl-a3b-instruct", "grok-2",
                        "qwen2-57b-a14b", "dbrx-instruct", "granite-3.3-8b-instruct"}


#: Catalog configs with an entry of their own in the ground truth; the others are byte copies of
#: a vendored file, whose count this module already holds to its meta count or hand derivation.
CATALOG_FILES = sorted(p for p in CATALOG.glob("*/config.json")
                       if p.relative_to(ROOT).as_posix() in TRUTH["models"])
CATALOG_COPIES = sorted(p for p in CATALOG.glob("*/config.json")
                        if p.relative_to(ROOT).as_posix() not in TRUTH["models"])


@pytest.mark.parametrize("path", CATALOG_COPIES, ids=[p.parent.name for p in CATALOG_COPIES])
def test_a_catalog_config_without_ground_truth_is_a_checked_vendored_file(path):
    """Its bytes are a vendored file's, and that file's count is checked here: by its meta
    count (ANSWERED, FROM_DEFAULTS, FAMILY_FILES, PARAMS_ONLY: DeepSeek-V4-Flash, whose cache
    is checked by hand; META_EXCEEDS_CHECKPOINT: Hunyuan-Large against its remote code's meta
    count, StableLM 2 12B less its dropped norm biases), by hand (BY_HAND, CHECKED_BY_HAND_HERE),
    or in tests/test_gemma3n.py (Gemma 3n's reconstructed files)."""
    copy = vendored_copy(path)
    assert copy is not None, f"{path.parent.name}: no ground truth and no vendored original"
    assert copy.stem in (set(ANSWERED) | BY_HAND | FROM_DEFAULTS | FAMILY_FILES | PARAMS_ONLY
                         | META_EXCEEDS_CHECKPOINT | CHECKED_IN_TEST_GEMMA3N
                         | CHECKED_BY_HAND_HERE), copy.stem
    assert read_config(path).total_params == read_config(copy).total_params

#: Catalog files that transformers 5.24.0 builds as a different model than the checkpoint's.
#: Mistral Small 3.1 (written by 4.50): 5.24.0's Mistral3Config ties the output head by its
#: own default (tie_word_embeddings True at the top level) where 4.x read the tie from the
#: text_config (MistralConfig: False); the checkpoint stores lm_head.weight and its published
#: total (24,011,361,280, SOURCES.md section 11) counts it, so the library's count is the meta
#: count plus one vocabulary x width head. InternVL3-1B: its file names no tie at the top
#: level, so 5.24.0's InternVLConfig ties the head by its own default, where the text_config
#: (Qwen2Config: untied) and the checkpoint do not.
HEAD_TIED_BY_TRANSFORMERS_5 = {"mistral-small-3.1-24b", "internvl3-1b"}
#: Catalog files whose checkpoints store weights transformers 5.24.0 does not build: Gemma 4
#: E2B/E4B's KV-sharing layers keep k, v and k-norm weights that no layer uses (counted in the
#: total, as the Hub's safetensors total does).
UNUSED_KV_STORED = set(HUB_TOTAL)


@pytest.mark.parametrize("path", CATALOG_FILES, ids=[p.parent.name for p in CATALOG_FILES])
def test_catalog_config_equals_the_meta_device_count(path):
    t = truth(path)
    total = read_config(path).total_params
    if path.parent.name in HEAD_TIED_BY_TRANSFORMERS_5:
        text = json.loads(path.read_text(encoding="utf-8"))["text_config"]
        assert not any(k.startswith("lm_head") for k in t["by_prefix"])
        total -= text["vocab_size"] * text["hidden_size"]
    if path.parent.name in UNUSED_KV_STORED:
        total -= unused_kv_by_hand(path.parent.name)
    # parameters alone, or with the persistent buffers a checkpoint stores (DeepSeek-V3's
    # e_score_correction_bias), never anything else
    assert total in (t["params"], t["params"] + t["persistent_buffers"]), (total, t)
    assert re.fullmatch(r"\d+\.\d+\.\d+", TRUTH["transformers"])


@pytest.mark.parametrize("name, key", [
    ("gemma-4-26b-a4b", "text_config.layer_types"),
    ("qwen3.5-27b", "text_config.layer_types"),
    ("gpt-oss-20b", "layer_types"),
    ("kimi-linear-48b-a3b-instruct", "layer_types"),
    ("kimi-linear-48b-a3b-instruct", "mlp_layer_types"),
    ("deepseek-v4-flash", "layer_types"),
])
def test_an_unknown_layer_kind_is_refused_naming_the_field(name, key):
    cfg = config(name)
    scope = cfg["text_config"] if key.startswith("text_config.") else cfg
    field = key.rsplit(".", 1)[-1]
    scope[field] = ["mystery_attention"] * scope["num_hidden_layers"]
    with pytest.raises(ConfigError, match=rf"field '{field}' has unknown kinds "
                                          r"\['mystery_attention'\]") as err:
        read_config(cfg)
    assert "\n" not in str(err.value)


def test_issue_30_catalog_copies_are_the_vendored_files():
    # tests/configs/SOURCES.md section 11: the catalog's Qwen3.5-27B is the vendored file, and its
    # Gemma 4 31B is NVIDIA's NVFP4 file of google/gemma-4-31B-it without quantization_config
    def catalog(name: str) -> dict:
        return json.loads((CATALOG / name / "config.json").read_text(encoding="utf-8"))

    assert catalog("qwen3.5-27b") == config("qwen3.5-27b")
    nvfp4 = config("gemma-4-31b-it-nvfp4")
    del nvfp4["quantization_config"]
    assert catalog("gemma-4-31b") == nvfp4


def test_mamba2_state_at_the_bits_the_checkpoint_keeps_it_in():
    """Nemotron 3 Nano's state per sequence, derived from the file's fields: each of the
    Mamba-2 blocks (``M`` in hybrid_override_pattern) keeps a recurrent matrix of
    heads x head_dim x state_size values at the file's mamba_ssm_cache_dtype (float32: 4 B)
    and a convolution window of (conv_kernel - 1) x (heads x head_dim + 2 x n_groups x
    state_size) values at the cache's bits (2 B). vLLM's pool agrees: a state page of
    2,134,016 B a layer gives its log's 'attention block size to 4176 tokens' at an fp8 cache
    of 512 B a token a layer (16 x ceil(2,134,016 / (16 x 512)) = 4,176; 'Padding mamba page
    size by 0.19%': 4,176 x 512 / 2,134,016 - 1 = 0.19%; tests/data/engine_logs.toml)."""
    from llm_arithmetic.estimate import estimate

    path = CONFIGS / "nvidia-nemotron-3-nano-30b-a3b-bf16.json"
    c = json.loads(path.read_text())
    layers = c["hybrid_override_pattern"].count("M")
    heads, width, n = c["mamba_num_heads"], c["mamba_head_dim"], c["ssm_state_size"]
    matrix = layers * heads * width * n
    conv = layers * (c["conv_kernel"] - 1) * (heads * width + 2 * c["n_groups"] * n)
    assert c["mamba_ssm_cache_dtype"] == "float32"
    per_layer = (matrix * 4 + conv * 2) // layers
    assert per_layer == 2_134_016 and 16 * -(-per_layer // (16 * 512)) == 4176
    assert f"{100 * (4176 * 512 / per_layer - 1):.2f}" == "0.19"
    m = read_config(path)
    assert m.state_bytes() == matrix * 4 + conv * 2 == 49_082_368
    # the matrix at the bits asked; the window at the state's bits the model is asked for
    assert m.state_bytes(bits_ssm=16) == (matrix + conv) * 2 == 24_965_120
    assert m.state_bytes(bits_state=8) == matrix * 4 + conv
    e = estimate(str(path), batch=3)
    assert e.state_bytes == 3 * 49_082_368
    # the estimate keeps the window at 16 bits whatever the KV cache's (vLLM's default)
    assert estimate(str(path), bits_kv=8, bits_ssm="bf16").state_bytes == (matrix + conv) * 2
    assert estimate(str(path), bits_kv=8).state_bytes == 49_082_368
    with pytest.raises(InputError, match="^bits_ssm"):
        estimate(str(path), bits_ssm=-1)


def test_a_wrapped_language_model_named_by_architectures_only_is_not_blamed_for_its_layers():
    """NVIDIA's MiniMax-M3 NVFP4 file (model_type minimax_m3_vl) wraps the language model in a
    text_config that names it by ``architectures`` (``MiniMaxM3SparseForCausalLM``) and not by
    ``model_type``; the library models its block-sparse attention, so the refusal names the
    wrapper's vision tower, not the attention (it did until this test)."""
    text = json.loads((CONFIGS / "minimax-m3.json").read_text(encoding="utf-8"))
    text.pop("model_type", None)
    text["architectures"] = ["MiniMaxM3SparseForCausalLM"]
    cfg = {"model_type": "minimax_m3_vl",
           "architectures": ["MiniMaxM3SparseForConditionalGeneration"],
           "text_config": text, "vision_config": {"hidden_size": 1024}}
    with pytest.raises(ConfigError, match="it needs a vision tower the library does not count"):
        read_config(cfg)
# ---- families added after the practitioner's audit (FAMILIES.md section 17, SOURCES.md section 15)
ERNIE = CONFIGS / "reconstructed" / "ernie-4.5-21b-a3b.json"


@pytest.mark.parametrize("path", [CONFIGS / "glm-4.7-flash.json", ERNIE,
                                  CONFIGS / "hunyuan-a13b.json", CONFIGS / "dots-llm1-inst.json",
                                  CONFIGS / "trinity-mini.json",
                                  CONFIGS / "trinity-nano-preview.json"])
def test_active_parameters_equal_the_meta_count_less_the_unused_routed_experts(path):
    """The meta count's routed experts (tensors under a module named ``experts``) hold E
    experts a layer, of which a token uses k: active = meta count - (E - k)/E of them."""
    t, cfg, m = truth(path), json.loads(path.read_text()), read_config(path)
    e = next(cfg[key] for key in ("n_routed_experts", "moe_num_experts", "num_experts")
             if key in cfg)
    k = next(cfg[key] for key in ("num_experts_per_tok", "moe_k", "moe_topk") if key in cfg)
    k = k[0] if isinstance(k, list) else k
    routed = t["routed_expert_params"]
    assert routed % e == 0 and m.expert_params == routed
    total = t["params"] + t["persistent_buffers"]
    assert m.total_params == total
    assert m.active_params == total - routed // e * (e - k)


def test_glm_4_7_flash_rounds_to_the_published_30b_a3b():
    m = read_config(CONFIGS / "glm-4.7-flash.json")
    # Ollama's listing: 29.9B; the name and NVIDIA's Megatron Bridge page: 30B total, 3B active
    assert round(m.total_params / 1e8) == 299 and round(m.total_params / 1e9) == 30
    assert m.active_params == 3_896_766_080
    assert round((m.active_params - 2 * m.n_vocab * m.d_model) / 1e9) == 3
    # the MTP layer (DeepSeek-V3's layout) apart; with it, Fireworks' "31B"
    (mtp,) = m.extras
    assert (mtp.name, mtp.in_total, round((m.total_params + mtp.params) / 1e9)) == \
        ("multi-token prediction", False, 31)


def test_glm_4_7_flash_layer_by_hand():
    """GLM-4.7-Flash's first block (dense) and a mixture block from the file's sizes."""
    c = config("glm-4.7-flash")
    d, h, v = c["hidden_size"], c["num_attention_heads"], c["vocab_size"]
    q, kv, nope, rope, dv = (c["q_lora_rank"], c["kv_lora_rank"], c["qk_nope_head_dim"],
                             c["qk_rope_head_dim"], c["v_head_dim"])
    attn = (d * q + q + q * h * (nope + rope) + d * (kv + rope) + kv + kv * h * (nope + dv)
            + h * dv * d)
    e, w = c["n_routed_experts"], c["moe_intermediate_size"]
    dense = attn + 3 * d * c["intermediate_size"] + 2 * d
    moe = attn + e * 3 * d * w + 3 * d * w * c["n_shared_experts"] + e * d + e + 2 * d
    total = dense + (c["num_hidden_layers"] - 1) * moe + 2 * v * d + d
    assert read_config(CONFIGS / "glm-4.7-flash.json").total_params == total


def test_glm_4_7_flash_dense_layers_follow_transformers_or_are_refused():
    cfg = config("glm-4.7-flash")
    cfg["first_k_dense_replace"] = 3  # transformers would build one dense layer, vLLM three
    with pytest.raises(ConfigError, match="'first_k_dense_replace' = 3 without 'mlp_layer_types'"):
        read_config(cfg)
    cfg["mlp_layer_types"] = ["dense"] * 3 + ["sparse"] * 44  # the list decides, as in both
    del cfg["first_k_dense_replace"]
    plain = read_config(config("glm-4.7-flash")).total_params
    w, d, e = 1536, 2048, 64
    moe_mlp = e * 3 * d * w + 3 * d * w + e * d + e
    assert read_config(cfg).total_params - plain == 2 * (3 * d * 10240 - moe_mlp)
    cfg["mlp_layer_types"] = ["sparse", "dense"] + ["sparse"] * 45
    with pytest.raises(ConfigError, match="'mlp_layer_types' disagrees"):
        read_config(cfg)
    cfg = config("glm-4.7-flash")
    cfg["attention_bias"] = True
    with pytest.raises(ConfigError, match="'attention_bias'"):
        read_config(cfg)


def test_seed_oss_biases_on_q_k_v_only_and_its_defaults():
    c = config("seed-oss-36b-instruct")
    m = read_config(c)
    assert round(m.total_params / 1e9) == 36  # the name's 36B
    d, layers = c["hidden_size"], c["num_hidden_layers"]
    q_kv = c["num_attention_heads"] * c["head_dim"] + 2 * c["num_key_value_heads"] * c["head_dim"]
    with_o = dict(c, attention_out_bias=True)
    assert read_config(with_o).total_params - m.total_params == layers * d
    without = dict(c, attention_bias=False)
    assert m.total_params - read_config(without).total_params == layers * q_kv
    # SeedOssConfig's defaults: q/k/v biases, none on o_proj, head_dim 128 (not 5120 / 80 = 64)
    bare = {k: v for k, v in c.items() if k not in ("attention_bias", "attention_out_bias",
                                                    "head_dim")}
    assert read_config(bare).total_params == m.total_params
    with pytest.raises(ConfigError, match="'sliding_window'|'layer_types'"):
        read_config(dict(c, layer_types=["sliding_attention"] * layers, sliding_window=4096))


def test_ernie_4_5_moe_layers_and_published_counts():
    c = json.loads(ERNIE.read_text())
    m = read_config(ERNIE)
    # the name's 21B (truncated) and A3B; the Hub's listing of its quantized copies: 22B
    assert (int(m.total_params / 1e9), round(m.total_params / 1e9)) == (21, 22)
    assert round((m.active_params - m.n_vocab * m.d_model) / 1e9) == 3  # tied: one table
    d, e, w = c["hidden_size"], c["moe_num_experts"], c["moe_intermediate_size"]
    # layer 0 dense, layers 1..27 mixtures: 64 experts, 2 shared of the same width, a router
    # and its e_score_correction_bias (a parameter here)
    dense = 3 * d * c["intermediate_size"]
    moe = e * 3 * d * w + 3 * d * (2 * w) + e * d + e
    assert read_config(dict(c, moe_layer_start_index=2)).total_params - m.total_params \
        == dense - moe
    assert read_config(dict(c, moe_layer_end_index=-1)).total_params == m.total_params
    assert read_config(dict(c, moe_layer_end_index=26)).total_params - m.total_params \
        == dense - moe
    assert m.kv_cache_bytes_per_token() == 28 * 2 * 4 * 128 * 2
    with pytest.raises(ConfigError, match="'use_bias' = true"):
        read_config(dict(c, use_bias=True))
    # MTP layers are declared, not counted: a speculation workload refuses naming the field
    mtp = read_config(dict(c, num_nextn_predict_layers=1))
    assert (mtp.total_params, mtp.mtp_modules, mtp.mtp_field) == \
        (m.total_params, 1, "num_nextn_predict_layers")


@pytest.mark.parametrize("family, key, value", [
    ("qwen3_moe", "moe_num_experts", 64), ("llama", "attention_out_bias", True),
    ("mixtral", "moe_layer_start_index", 1), ("qwen3_moe", "moe_k", 6)])
def test_keys_of_the_new_families_are_refused_elsewhere(family, key, value):
    cfg = {"model_type": family, "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128,
           "num_hidden_layers": 2, "num_attention_heads": 4, key: value}
    if family == "qwen3_moe":
        cfg.update(num_experts=8, num_experts_per_tok=2, moe_intermediate_size=32)
    if family == "mixtral":
        cfg.update(num_local_experts=8, num_experts_per_tok=2)
    with pytest.raises(ConfigError, match=f"field '{key}'"):
        read_config(cfg)


HUNYUAN = CONFIGS / "hunyuan-a13b.json"


def test_hunyuan_a13b_rounds_to_the_published_80b_and_13b_active():
    m = read_config(HUNYUAN)
    # Tencent's README: 80B total, 13B active (Top-8 of 64, one shared expert, tied table)
    assert (round(m.total_params / 1e9), round(m.active_params / 1e9)) == (80, 13)
    assert (m.total_params, m.active_params) == (80_393_183_232, 12_747_448_320)


def test_hunyuan_a13b_layer_by_hand():
    c = config("hunyuan-a13b")
    d, h, kv, dh, ff, e = (c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"],
                           c["attention_head_dim"], c["intermediate_size"], c["num_experts"])
    attn = 2 * d * h * dh + 2 * d * kv * dh + 2 * dh  # q, o; k, v; the query and key norms
    block = attn + e * 3 * d * ff + 3 * d * ff + e * d + 2 * d  # experts, shared MLP, router
    total = c["num_hidden_layers"] * block + d + c["vocab_size"] * d  # final norm, tied table
    assert read_config(HUNYUAN).total_params == total


@pytest.mark.parametrize("change, pattern", [
    ({"use_mla": True}, "'use_mla' = True is not supported"),
    ({"use_qk_norm": False}, "'use_qk_norm' = false contradicts"),
    ({"use_mixed_mlp_moe": False}, "'use_mixed_mlp_moe' = false contradicts"),
    ({"moe_layer_num_skipped": 2}, "'moe_layer_num_skipped' = 2 is not counted"),
    ({"moe_intermediate_size": 2048}, "'moe_intermediate_size' .2048. differs from"),
    ({"moe_intermediate_size": [3072] * 31 + [2048]}, "'moe_intermediate_size' differs from "
                                                      "layer to layer"),
    ({"num_shared_expert": [2] * 32}, "'num_shared_expert' = 2 is not counted"),
    ({"moe_topk": [8] * 31}, "'moe_topk' must be an integer or one integer for each of the 32"),
    ({"moe_topk": 65}, "'moe_topk' .65. must be given and at most 'num_experts'"),
    ({"head_dim": 64}, "'head_dim' .64. differs from 'attention_head_dim' .128."),
    ({"mlp_bias": True}, "'mlp_bias' = true contradicts"),
])
def test_hunyuan_layouts_transformers_does_not_build_are_refused_naming_the_key(change, pattern):
    with pytest.raises(ConfigError, match=pattern):
        read_config({**config("hunyuan-a13b"), **change})


def test_hunyuan_file_of_transformers_spelling_reads_the_same():
    """transformers' own spelling of the family (hunyuan_v1_moe, head_dim, integers for the
    per-layer lists) gives the same model as Tencent's remote-code file."""
    c = config("hunyuan-a13b")
    own = {**c, "model_type": "hunyuan_v1_moe", "head_dim": c["attention_head_dim"],
           "moe_topk": 8, "num_shared_expert": 1, "moe_intermediate_size": 3072}
    del own["attention_head_dim"], own["architectures"], own["auto_map"]
    a, b = read_config(c), read_config(own)
    assert (a.family, b.family) == ("hunyuan_v1_moe", "hunyuan_v1_moe")
    assert (a.total_params, a.active_params) == (b.total_params, b.active_params)


HUNYUAN_LARGE = CONFIGS / "hunyuan-a52b-pretrain.json"


def test_hunyuan_large_cross_layer_attention_counts_the_checkpoint():
    """Hunyuan-Large (FAMILIES.md section 17.4): with use_cla and cla_share_factor 2 the odd
    layers reuse the keys and values of the layer before them. transformers 5.24.0 builds the
    family without that (k_proj and v_proj in all 64 layers); a weight map of the checkpoint
    (fblissjr/Tencent-Hunyuan-Large metadata/pytorch_model.bin.index.json @ 29a32948) lists
    k_proj and v_proj for layers 0, 2, ..., 62 only and key_layernorm in all 64, as Tencent's
    remote code builds it (its meta-device count, scripts/ground_truth/hunyuan_remote.py:
    388,698,128,640)."""
    c, t, m = config("hunyuan-a52b-pretrain"), truth(HUNYUAN_LARGE), read_config(HUNYUAN_LARGE)
    d, h, kv, n = (c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"],
                   c["num_hidden_layers"])
    dh = d // h  # no head_dim in the file: the remote code's hidden_size // num_heads
    sharing = n // c["cla_share_factor"]
    assert t["persistent_buffers"] == 0
    assert m.total_params == t["params"] - sharing * 2 * d * kv * dh == 388_698_128_640
    # the card: 389 billion parameters, 52 billion active (Tencent-Hunyuan-Large README); the
    # 52B is met counting the tied table twice, as input embedding and as output head
    assert round(m.total_params / 1e9) == 389
    assert round((m.active_params + c["vocab_size"] * d) / 1e9) == 52
    # active: 1 of 16 routed experts (moe_topk 1), from the meta count's routed parameters
    e = c["num_experts"]
    assert m.active_params == m.total_params - t["routed_expert_params"] // e * (e - 1) \
        == 51_318_800_640
    # the cache: only the 32 layers that own keys and values store them, 8 heads of 80 at 16
    # bits; each sharing layer still reads its owner's cache in a decode step
    per_layer = 2 * kv * dh * 2
    assert m.kv_cache_bytes_per_token() == (n - sharing) * per_layer == 81_920
    from llm_arithmetic.estimate import estimate
    s = 32_768
    e = estimate(m, context=s)
    assert e.kv_cache_bytes_per_token == 81_920
    assert e.decode_bytes_per_token - 2 * e.params_read_per_token == n * s * per_layer
    runs = [run for run in m.layers if run.attention.kv_shared]
    assert sum(run.count for run in runs) == sharing
    assert "keys and values of an earlier layer, a key norm of its own" in \
        runs[0].attention.describe()
    # without use_cla the file is what transformers builds: every layer with k and v
    no_cla = read_config({**c, "use_cla": False})
    assert no_cla.total_params == t["params"]
    assert no_cla.kv_cache_bytes_per_token() == n * per_layer
    # a share factor of 1 shares nothing (the remote code's layer_idx % 1 is never nonzero)
    assert read_config({**c, "cla_share_factor": 1}).total_params == t["params"]
    # a dense file under Tencent's HunYuanForCausalLM (num_experts 1) is not this reader's
    with pytest.raises(ConfigError, match=r"field 'num_experts' < 2 under 'HunYuanForCausalLM'"):
        read_config({**c, "num_experts": 1})
    # Hunyuan-A13B (cla_share_factor 2) and Hunyuan-MT-7B (no factor: the remote config class's
    # default 1) set use_cla false; set true with a factor of 2, their odd layers lose k and v
    for name, kv_a, dh_a in (("hunyuan-a13b", 8, 128), ("hunyuan-mt-7b", 8, 128)):
        a = config(name)
        diff = (read_config(a).total_params
                - read_config({**a, "use_cla": True, "cla_share_factor": 2}).total_params)
        assert diff == a["num_hidden_layers"] // 2 * 2 * a["hidden_size"] * kv_a * dh_a


def test_hunyuan_large_in_the_page_interpreter(tmp_path):
    # the page's interpreter sums Hunyuan-Large's stack as Python's does: the sharing layers'
    # key norm (reuse_k_norm, a 'flag' field), no cache of their own, their owner's cache read
    m = read_config(HUNYUAN_LARGE)
    page = _page_terms_match_python(tmp_path, m, ["params", "matmul_params", "kv_layer",
                                                  "kv_read", "kv_stored", "layer_decode_flops",
                                                  "layer_prefill_flops"])
    assert page["kv_layer"] == 81_920
    # the layers' parameters: the total less the tied table and the final norm
    assert page["params"] == m.total_params - m.n_vocab * m.d_model - m.d_model


def test_glm_5_2_mtp_module_holds_its_indexer_and_not_the_tables():
    """GLM-5.2's MTP module (checkpoint layer 78, FAMILIES.md section 14.6): a full block with
    its own indexer, enorm, hnorm, eh_proj (2d -> d) and shared_head.norm, and no
    embed_tokens or shared_head.head of its own. Two readings of the checkpoint's weight map
    (search index file ids 60942919614 and 59712432702) say so; the first sums every stored
    tensor of the BF16/FP8 build to 753,329,921,024 parameters, its F32 router biases apart.
    Less transformers' meta count of the decoder (parameters alone), that leaves the module;
    the library counts the module's e_score_correction_bias (256) with it."""
    cfg = config("glm-5.2")
    module = 753_329_921_024 - truth(CONFIGS / "glm-5.2.json")["params"] + cfg["n_routed_experts"]
    mtp = [e for e in read_config(cfg).extras if e.name == "multi-token prediction"]
    assert len(mtp) == 1 and mtp[0].modules == 1
    assert mtp[0].params == module == 9_952_920_576
    assert mtp[0].embeddings == mtp[0].heads == 0
    # the module's block keeps an indexer (the listing has self_attn.indexer.* for layer 78)
    assert mtp[0].layers[0].attention.index_topk and not mtp[0].layers[0].attention.index_shared
    # GLM-5's file builds the same module (same sizes); DeepSeek-V3.2's stores its own tables
    glm5 = [e for e in read_config(config("glm-5")).extras if e.name == "multi-token prediction"]
    assert glm5[0].params == module
    v32 = [e for e in read_config(config("deepseek-v3.2")).extras
           if e.name == "multi-token prediction"]
    assert v32[0].embeddings == v32[0].heads > 0


DOTS = CONFIGS / "dots-llm1-inst.json"


def test_dots_llm1_rounds_to_the_published_142b_and_14b_active():
    m = read_config(DOTS)
    # rednote-hilab/dots.llm1 README: "activates 14B parameters out of a total of 142B"
    assert (int(m.total_params / 1e9), round(m.active_params / 1e9)) == (142, 14)
    assert (m.total_params, m.active_params) == (142_774_381_696, 14_016_588_928)


def test_dots_llm1_layer_by_hand_and_its_windows():
    c = config("dots-llm1-inst")
    d, h, dh, e, w = (c["hidden_size"], c["num_attention_heads"], 128, c["n_routed_experts"],
                      c["moe_intermediate_size"])
    attn = 4 * d * h * dh + 2 * dh  # 32 heads of 128 for queries, keys and values; q/k norms
    moe = e * 3 * d * w + 3 * d * w * c["n_shared_experts"] + e * d + e
    total = (c["num_hidden_layers"] * (attn + 2 * d) + 3 * d * c["intermediate_size"]
             + 61 * moe + d + 2 * c["vocab_size"] * d)
    m = read_config(c)
    assert m.total_params == total
    # Dots1Config's window rule: sliding from max_window_layers on (default 62: none here)
    assert all(run.attention.window is None for run in m.layers)
    windowed = read_config({**c, "max_window_layers": 60})
    assert [run.attention.window for run in windowed.layers][-1] == 4096
    # layers 60 and 61 keep 4,096 tokens of a 8,192-token context: two layers' half less
    per_layer = 2 * 32 * 128 * 2
    assert m.kv_cache_bytes(8192) - windowed.kv_cache_bytes(8192) == 2 * per_layer * 4096
    assert all(run.attention.window is None
               for run in read_config({**c, "max_window_layers": 60,
                                        "sliding_window": None}).layers)
    with pytest.raises(ConfigError, match="'use_sliding_window' = false"):
        read_config({**c, "max_window_layers": 60, "use_sliding_window": False})


EXAONE = CONFIGS / "reconstructed" / "exaone-4.0-1.2b.json"


def test_exaone4_equals_the_meta_count_and_the_published_1_2b():
    t, m = truth(EXAONE), read_config(EXAONE)
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    assert int(m.total_params / 1e8) == 12  # the name's 1.2B (1.279B, truncated)
    c = json.loads(EXAONE.read_text())
    d, dh = c["hidden_size"], c["head_dim"]
    attn = d * 32 * dh * 2 + d * 8 * dh * 2 + 2 * dh  # q, o; k, v; q_norm, k_norm
    block = attn + 3 * d * c["intermediate_size"] + 2 * d  # two post-norms
    assert m.total_params == 30 * block + d + c["vocab_size"] * d  # final norm, tied table
    assert m.kv_cache_bytes_per_token() == 30 * 2 * 8 * 64 * 2


@pytest.mark.parametrize("change, sliding", [
    ({}, []),
    ({"layer_types": None, "sliding_window": 4096, "sliding_window_pattern": 4},
     [i for i in range(30) if (i + 1) % 4]),
    ({"layer_types": None, "sliding_window": 4096, "sliding_window_pattern": "LLLG"},
     [i for i in range(30) if (i + 1) % 4]),
    ({"layer_types": None, "sliding_window": 4096, "sliding_window_pattern": "LG"},
     list(range(0, 30, 2))),
    ({"layer_types": None, "sliding_window": None, "sliding_window_pattern": "LLLG"}, []),
    ({"layer_types": None}, []),  # the file's null window: no windowed layer
])
def test_exaone4_windowed_layers_follow_the_config(change, sliding):
    m = read_config({**json.loads(EXAONE.read_text()), **change})
    layers = [run.attention.window for run in m.layers for _ in range(run.count)]
    assert [i for i, w in enumerate(layers) if w] == sliding
    assert all(w in (None, 4096) for w in layers)


@pytest.mark.parametrize("change, pattern", [
    ({"layer_types": None, "sliding_window": 4096, "sliding_window_pattern": "LLXG"},
     "'sliding_window_pattern' = 'LLXG' must be"),
    ({"layer_types": None, "sliding_window": 4096, "sliding_window_pattern": None},
     "'sliding_window_pattern' = None must be"),
    ({"layer_types": ["sliding_attention"] * 30}, "names sliding layers but 'sliding_window'"),
    ({"attention_bias": True}, "field 'attention_bias'"),
])
def test_exaone4_bad_windows_are_refused_naming_the_field(change, pattern):
    with pytest.raises(ConfigError, match=pattern):
        read_config({**json.loads(EXAONE.read_text()), **change})


OLMO3 = CONFIGS / "reconstructed" / "olmo-3-7b.json"


def test_olmo3_equals_the_meta_count_and_keeps_a_window_in_three_layers_of_four():
    t, m = truth(OLMO3), read_config(OLMO3)
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    assert round(m.total_params / 1e9) == 7  # the name's 7B
    c = json.loads(OLMO3.read_text())
    d, v = c["hidden_size"], c["vocab_size"]
    block = 4 * d * d + 2 * d + 3 * d * c["intermediate_size"] + 2 * d  # q/k norms of d, 2 norms
    assert m.total_params == 32 * block + d + 2 * v * d
    per_layer = 2 * 32 * 128 * 2
    for context in (1024, 4096, 65536):  # 8 full layers, 24 keeping min(S, 4096) tokens
        assert m.kv_cache_bytes(context) == per_layer * (8 * context + 24 * min(context, 4096))
    # without layer_types, Olmo3Config's rule gives the same layers
    bare = {k: v for k, v in c.items() if k != "layer_types"}
    assert read_config(bare).kv_cache_bytes(65536) == m.kv_cache_bytes(65536)
    with pytest.raises(ConfigError, match="'sliding_window' is null"):
        read_config({**c, "sliding_window": None})
    assert read_config({**c, "sliding_window": None,
                        "layer_types": ["full_attention"] * 32}).kv_cache_bytes(65536) \
        == per_layer * 32 * 65536


def test_ernie_4_5_dense_biases_follow_use_bias():
    c = config("ernie-4.5-0.3b")
    m = read_config(c)
    assert int(m.total_params / 1e8) == 3  # the name's 0.3B (0.36B, truncated)
    d, ff, qkv = c["hidden_size"], c["intermediate_size"], (16 + 2 * 2) * 128
    biased = read_config({**c, "use_bias": True})
    assert biased.total_params - m.total_params == 18 * (qkv + d + 2 * ff + d)
    # Ernie4_5Config's defaults: head_dim 128 (16 x 128 = 2048, not the width 1024), tied
    bare = {k: v for k, v in c.items() if k not in ("head_dim", "tie_word_embeddings")}
    assert read_config(bare).total_params == m.total_params
    with pytest.raises(ConfigError, match="'attention_bias' = true contradicts"):
        read_config({**c, "attention_bias": True})


def test_hunyuan_dense_layer_by_hand_and_refusals():
    c = config("hunyuan-mt-7b")
    m = read_config(c)
    assert int(m.total_params / 1e9) == 7  # the name's 7B (7.50B, truncated)
    d, ff = c["hidden_size"], c["intermediate_size"]
    block = 2 * d * 32 * 128 + 2 * d * 8 * 128 + 2 * 128 + 3 * d * ff + 2 * d
    assert m.total_params == 32 * block + d + c["vocab_size"] * d
    for change, pattern in [({"use_qk_norm": False}, "'use_qk_norm' = false contradicts"),
                            ({"attention_head_dim": 64}, "'head_dim' .128. differs")]:
        with pytest.raises(ConfigError, match=pattern):
            read_config({**c, **change})


# ---- Mamba-2 hybrids of the audit (FAMILIES.md 17.11, 17.12; SOURCES.md section 15) -----------
GRANITE = CONFIGS / "granite-4.0-h-tiny.json"
FALCON_H1 = CONFIGS / "reconstructed" / "falcon-h1-0.5b-base.json"


def test_granite_4_active_parameters_are_the_meta_count_less_the_unused_routed_experts():
    t, m = truth(GRANITE), read_config(GRANITE)
    # 64 experts a layer, 6 per token (num_local_experts, num_experts_per_tok of the file)
    routed = t["routed_expert_params"]
    assert routed % 64 == 0 and m.expert_params == routed
    assert m.total_params == t["params"] == 6_939_037_248
    assert m.active_params == t["params"] - routed // 64 * (64 - 6) == 1_465_470_528
    # IBM's table (ibm.com/granite/docs): 7B total, 1B activated; active without the tied
    # vocabulary table 1.31B
    assert round(m.total_params / 1e9) == 7
    assert round((m.active_params - m.n_vocab * m.d_model) / 1e9) == 1


def test_granite_4_state_and_cache_by_hand():
    m = read_config(GRANITE)
    kinds = [(run.count, run.attention is not None, run.mixer is not None) for run in m.layers]
    assert sum(c for c, a, _ in kinds if a) == 4 and sum(c for c, _, x in kinds if x) == 36
    # 36 Mamba-2 layers: d_in = 2 x 1536 = 3072, state 128, 1 group, kernel 4, 16-bit
    state = 36 * (3072 * 128 + (3072 + 2 * 1 * 128) * (4 - 1)) * 2
    assert m.state_bytes() == state == 29_030_400
    assert m.kv_cache_bytes_per_token() == 4 * 2 * 4 * 128 * 2 == 8_192


def test_falcon_h1_parallel_block_equals_the_meta_count_without_the_mixer_norm():
    t, m = truth(FALCON_H1), read_config(FALCON_H1)
    assert m.total_params == m.active_params == t["params"] == 521_411_104
    assert t["persistent_buffers"] == 0  # the mup vector is a non-persistent buffer
    (run,) = m.layers
    assert run.count == 36 and run.attention is not None and run.mixer is not None
    assert run.mixer.norm is False and run.mixer.d_inner == 1536
    # per layer by hand: GQA 8/2 x 64, the mixer without its gated norm, a gated MLP, two norms
    d = 1024
    attention = d * 8 * 64 + 2 * d * 2 * 64 + 8 * 64 * d
    mixer = (d * (2 * 1536 + 2 * 128 + 24) + (1536 + 2 * 128) * (4 + 1) + 3 * 24
             + 1536 * d)
    assert run.params(d) == attention + mixer + 3 * d * 2048 + 2 * d
    assert m.total_params == 36 * run.params(d) + d + 2 * 32784 * d
    # with mamba_rms_norm the gated norm (d_in weights) joins each mixer, as transformers builds it
    normed = read_config({**config_path(FALCON_H1), "mamba_rms_norm": True})
    assert normed.total_params - m.total_params == 36 * 1536
    # the published size: 0.5B (the repository name, tiiuae/Falcon-H1-0.5B-Base)
    assert round(m.total_params / 1e8) == 5


def test_falcon_h1_cache_and_state_by_hand():
    m = read_config(FALCON_H1)
    # every block keeps a GQA cache (2 KV heads of 64) and a Mamba-2 state (d_in 1536, state 128)
    assert m.kv_cache_bytes_per_token() == 36 * 2 * 2 * 64 * 2 == 18_432
    assert m.state_bytes() == 36 * (1536 * 128 + (1536 + 2 * 128) * 3) * 2 == 14_542_848


def config_path(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path, change, pattern", [
    (GRANITE, {"layer_types": ["mamba"] * 39 + ["hybrid"]}, "field 'layer_types' has unknown"),
    (GRANITE, {"layer_types": ["mamba"] * 39}, "field 'layer_types' has 39 entries for 40"),
    (GRANITE, {"mamba_d_head": 32}, "'mamba_n_heads' x 'mamba_d_head' \\(48 x 32\\)"),
    (GRANITE, {"num_experts_per_tok": 65}, "field 'num_experts_per_tok' \\(65\\) exceeds"),
    (GRANITE, {"moe_intermediate_size": 256}, "field 'moe_intermediate_size' = 256"),
    (GRANITE, {"mamba_d_ssm": 2048}, "field 'mamba_d_ssm' = 2048"),
    (FALCON_H1, {"projectors_bias": True}, "field 'projectors_bias' = true differs"),
    (FALCON_H1, {"attn_layer_indices": [0, 9]}, "field 'attn_layer_indices' = \\[0, 9\\]"),
    (FALCON_H1, {"mamba_use_mlp": False}, "field 'mamba_use_mlp' = false"),
    (FALCON_H1, {"mamba_d_ssm": 1024}, "'mamba_n_heads' x 'mamba_d_head' \\(24 x 64\\)"),
    (FALCON_H1, {"shared_intermediate_size": 512}, "field 'shared_intermediate_size' = 512"),
])
def test_mamba_hybrids_refuse_what_they_do_not_model_naming_the_field(path, change, pattern):
    with pytest.raises(ConfigError, match=pattern):
        read_config({**config_path(path), **change})


def test_granite_4_layer_names_and_a_dense_hybrid():
    cfg = config_path(GRANITE)
    # transformers' names for the blocks (linear_attention, full_attention) read as IBM's
    renamed = [{"mamba": "linear_attention", "attention": "full_attention"}[t]
               for t in cfg["layer_types"]]
    assert read_config({**cfg, "layer_types": renamed}).total_params == \
        read_config(cfg).total_params
    # no experts (Granite-4.0-H-Micro's form): the shared MLP alone, a gated d x w MLP
    dense = read_config({**cfg, "num_local_experts": 0, "num_experts_per_tok": 0})
    experts = 64 * 3 * 1536 * 512 + 64 * 1536
    assert read_config(cfg).total_params - dense.total_params == 40 * experts
    assert dense.total_params == dense.active_params


def test_short_convolutions_in_another_family_are_refused_naming_the_key():
    # a relabelled LFM2 file: the llama reader does not model gated short convolutions
    cfg = {**config("lfm2.5-1.2b-distilled"), "model_type": "llama",
           "architectures": ["LlamaForCausalLM"]}
    with pytest.raises(ConfigError, match="field 'conv_L_cache' = 3 declares gated short "
                                          "convolutions"):
        read_config(cfg)


def test_lfm2_moe_by_hand_and_the_model_card():
    """LFM2-8B-A1B (trimmed file, SOURCES.md section 16): the blocks of LFM2 (18 convolutions,
    6 attention layers), two dense MLPs of 7,168, then 22 mixtures of 32 gated experts of
    1,792 (top 4) with a d x 32 router and 32 routing biases (modeling_lfm2_moe.py). Its card:
    8.3B total, 1.5B active (truncated: 1.56B with the embedding table)."""
    m = read_config(CONFIGS / "lfm2-8b-a1b.json")
    d, e, w = LFM2_D, 32, 1792
    experts = e * 3 * d * w
    moe = experts + e * d + e
    hand = (18 * LFM2_CONV + 6 * LFM2_ATTN + 2 * 3 * d * 7168 + 22 * moe + 49 * d
            + LFM2_V * d)
    assert m.total_params == hand == 8_339_930_560
    assert m.active_params == hand - 22 * experts * 28 // 32
    assert round(m.total_params / 1e9, 1) == 8.3 and int(m.active_params / 1e8) == 15
    assert m.state_bytes() == 18 * 2 * d * 2


# LFM2-1.2B's shapes (FAMILIES.md 17.13): d = 2048, 16 blocks (10 gated short convolutions of
# 3 taps, 6 GQA layers of 32/8 heads of 64 with per-head q/k norms), MLP 12,288 -> 8,192
LFM2_D, LFM2_FF, LFM2_V = 2048, 8192, 65536
LFM2_CONV = 3 * LFM2_D * LFM2_D + 3 * LFM2_D + LFM2_D * LFM2_D   # in_proj, kernel, out_proj
LFM2_ATTN = 2 * LFM2_D * LFM2_D + 2 * LFM2_D * 8 * 64 + 2 * 64   # q, out; k, v; q/k norms
LFM2_HAND = (10 * LFM2_CONV + 6 * LFM2_ATTN + 16 * 3 * LFM2_D * LFM2_FF
             + (2 * 16 + 1) * LFM2_D + LFM2_V * LFM2_D)            # norms; the tied table


def test_lfm2_count_equals_the_hand_count_and_the_model_card():
    """The vendored LFM2.5-1.2B fine-tune (SOURCES.md section 16) has LFM2-1.2B's shapes: the
    meta count (ANSWERED), the hand count and LiquidAI/LFM2-1.2B's model card (1,170,340,608)
    agree."""
    m = read_config(CONFIGS / "lfm2.5-1.2b-distilled.json")
    assert m.total_params == LFM2_HAND == 1_170_340_608
    assert m.tied and m.active_params == m.total_params
    kinds = ["conv" if run.mixer is not None else "attn" for run in m.layers
             for _ in range(run.count)]
    assert [i for i, k in enumerate(kinds) if k == "attn"] == [2, 5, 8, 10, 12, 14]
    assert {run.mlp.d_ff for run in m.layers} == {LFM2_FF}


def test_lfm2_short_convolution_by_hand():
    """One gated short convolution block (transformers 5.24.0 Lfm2ShortConv): its state is the
    last k - 1 = 2 gated inputs of d channels (vLLM's short_conv_state_shape), no recurrent
    matrix, at the cache's 16 bits; per token 2 FLOPs per tap and channel and the two gates."""
    m = read_config(CONFIGS / "lfm2.5-1.2b-distilled.json")
    conv = next(run.mixer for run in m.layers if run.mixer is not None)
    d = LFM2_D
    assert conv.params(d) == LFM2_CONV == 16_783_360
    assert conv.matmul_params(d) == 4 * d * d
    assert conv.state_bytes() == 2 * d * 2 == 8192
    assert conv.decode_flops() == 2 * 3 * d + 2 * d
    assert m.state_bytes() == 10 * 2 * d * 2 == 81_920
    assert m.state_bytes(bits_ssm=32) == m.state_bytes()  # nothing is kept at other bits
    assert m.state_bytes(bits_state=32) == 2 * 81_920
    kv = m.kv_cache_bytes_per_token()
    for s in (1, 4096, 32_768):
        assert m.seq_bytes(s) == kv * s + 2 * 81_920


def test_lfm2_decode_bytes_and_flops_by_hand():
    from llm_arithmetic.estimate import estimate
    e = estimate(read_config(CONFIGS / "lfm2.5-1.2b-distilled.json"), context=4096)
    weights = 2 * 1_170_340_608                       # 16 bits, the tied table read as the head
    kv = 6 * 2 * 8 * 64 * 2 * 4096
    assert e.decode_bytes_per_token == weights + kv + 2 * 81_920  # the state read and written
    matmul = 1_170_340_608 - 33 * LFM2_D - 10 * 3 * LFM2_D - 6 * 128
    attention = 6 * 4 * 32 * 64 * 4096                # q.k and p.v over 4096 positions
    assert e.decode_flops_per_token == 2 * matmul + attention + 10 * (2 * 3 + 2) * LFM2_D


LFM2_TYPES = ["conv", "conv", "full_attention", "conv", "conv", "full_attention", "conv", "conv",
              "full_attention", "conv", "full_attention", "conv", "full_attention", "conv",
              "full_attention", "conv"]


@pytest.mark.parametrize("cfg, meta", [
    # LFM2-1.2B's original form (block_ff_dim, full_attn_idxs, tie_embedding), as the Rust test
    # of search index file id 59124207504 copies the Hub file
    ({"hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 32,
      "num_key_value_heads": 8, "block_ff_dim": 12288, "full_attn_idxs": [2, 5, 8, 10, 12, 14],
      "vocab_size": 65536, "conv_L_cache": 3, "block_multiple_of": 256,
      "block_ffn_dim_multiplier": 1.0, "block_auto_adjust_ff_dim": True, "tie_embedding": True},
     1_170_340_608),
    # LFM2-350M's shapes (d = 1024, 16 heads, 6,656 -> 4,608): its model card's 354,483,968
    ({"hidden_size": 1024, "num_hidden_layers": 16, "num_attention_heads": 16,
      "num_key_value_heads": 8, "block_ff_dim": 6656, "layer_types": LFM2_TYPES,
      "vocab_size": 65536, "conv_L_cache": 3}, 354_483_968),
    # a multiplier and a multiple (1,000 -> 666 -> 999 -> 1,024), biases, 4 taps, untied
    ({"hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
      "num_key_value_heads": 2, "intermediate_size": 1000,
      "layer_types": ["conv", "full_attention", "conv", "conv"], "vocab_size": 1000,
      "conv_L_cache": 4, "block_ffn_dim_multiplier": 1.5, "block_multiple_of": 64,
      "conv_bias": True, "tie_word_embeddings": False}, 4_650_112),
    # the width as given when block_auto_adjust_ff_dim is false
    ({"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 4, "intermediate_size": 1000,
      "layer_types": ["conv", "full_attention"], "vocab_size": 1000,
      "block_auto_adjust_ff_dim": False}, 2_318_464),
], ids=["lfm2-1.2b-original", "lfm2-350m", "multiplier-biases", "no-adjust"])
def test_lfm2_variants_equal_the_meta_device_count(cfg, meta):
    """Meta-device counts of Lfm2Config(**cfg) under transformers 5.24.0 (FAMILIES.md 17.13);
    the 1.2B and 350M ones are also their model cards' (SOURCES.md section 16)."""
    assert read_config({"model_type": "lfm2", **cfg}).total_params == meta


@pytest.mark.parametrize("change, message", [
    ({"conv_dim": 1024}, r"field 'conv_dim' = 1024 differs from 'hidden_size'"),
    ({"num_heads": 16}, r"field 'num_heads' \(16\) differs"),
    ({"block_use_swiglu": False}, r"'block_use_swiglu' = false is not supported"),
    ({"layer_types": ["conv"] * 15 + ["mamba"]}, r"'layer_types' has unknown kinds"),
    ({"layer_types": None, "full_attn_idxs": [2, 16]}, r"'full_attn_idxs' names layer 16"),
])
def test_lfm2_refuses_what_transformers_would_build_otherwise(change, message):
    cfg = {**config("lfm2.5-1.2b-distilled"), **change}
    with pytest.raises(ConfigError, match=message):
        read_config(cfg)


NODE_FOLD = r"""
const fs = require("fs"), vm = require("vm"), path = require("path");
const [dir, data] = [process.argv[2], JSON.parse(fs.readFileSync(process.argv[3], "utf8"))];
import(path.join(dir, "formulas.mjs")).then((F) => {
  globalThis.F = F;
  globalThis.CATALOG = {plan: data.plan};
  vm.runInThisContext(fs.readFileSync(data.interpreter, "utf8") + "\nglobalThis.Plan = Plan;");
  const lookup = (name) => (name in data.inputs ? data.inputs[name] : null);
  const blocks = Plan.blocksOf(data.layers);
  const out = {};
  for (const term of data.terms) out[term] = Plan.fold(blocks, term, lookup);
  process.stdout.write(JSON.stringify(out));
});
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_glm_5_2_shared_layers_in_the_page_interpreter(tmp_path):
    # the page's interpreter sums GLM-5.2's stack as Python's does: its 'unless' field rule
    # drops a shared layer's indexer from parameters, cache, reads and FLOPs
    m = read_config(config("glm-5.2"))
    assert len(m.blocks) == 3  # dense layers (all full), MoE layers with and without an indexer
    page = _page_terms_match_python(tmp_path, m, ["params", "matmul_params", "kv_layer",
                                                  "kv_read", "kv_stored", "layer_decode_flops",
                                                  "layer_prefill_flops", "index_heads_held"])
    assert page["kv_layer"] == 95_232


def _page_terms_match_python(tmp_path: Path, m, terms: list[str]) -> dict:
    """The page's interpreter (widgets/interpreter.js, run by Node.js on the generated
    formulas.js) folds ``terms`` over the model's stack (32,768 tokens, batch 1, tp 2, a prompt
    of 4,096) and equals Python's fold; returns the page's values."""
    from llm_arithmetic.book.export import _runs
    from llm_arithmetic.plan import fold, plan_data

    pkg = ROOT / "lib" / "llm_arithmetic"
    inputs = {"d_model": m.d_model, "bits_kv": 16, "context": 32_768, "batch": 1, "tp": 2}
    shutil.copy(pkg / "numeric" / "formulas.js", tmp_path / "formulas.mjs")
    data = {"plan": plan_data(), "interpreter": str(pkg / "book" / "widgets" / "interpreter.js"),
            "layers": _runs(m.layers, m.d_model), "inputs": {**inputs, "prompt": 4096},
            "terms": terms}
    (tmp_path / "data.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "fold.cjs").write_text(NODE_FOLD, encoding="utf-8")
    run = subprocess.run(["node", str(tmp_path / "fold.cjs"), str(tmp_path),
                          str(tmp_path / "data.json")], capture_output=True, text=True,
                         timeout=120, check=True)
    page = json.loads(run.stdout)
    values = {**inputs, "prompt": 4096}
    for term in terms:
        want = fold(m.blocks, term, lambda name, default=False: values.get(name))
        assert page[term] == pytest.approx(float(want), rel=1e-12), term
    return page


# ---- Apertus: xIELU's learned scalars (SOURCES.md section 15, FAMILIES.md section 17.10) -------
APERTUS = CONFIGS / "reconstructed" / "apertus-8b-2509.json"


def test_apertus_counts_xielu_scalars_and_an_ungated_mlp():
    # transformers 5.24.0's meta count, parameters alone: the buffers (beta and eps of each
    # layer's XIELU, 2 x 32) are constants, not weights
    t, m = truth(APERTUS), read_config(APERTUS)
    assert m.total_params == t["params"] == 8_053_338_176
    assert t["persistent_buffer_names"] == {"beta": 32, "eps": 32}
    assert round(m.total_params / 1e9) == 8  # the card's "8B"
    # by hand from the file's sizes: q and o of d x H d_h, k and v of d x K d_h, a q and a k norm
    # of d_h, up and down d x ff (no gate), two norms of d, alpha_p and alpha_n
    c = json.loads(APERTUS.read_text())
    d, ff, v, n = c["hidden_size"], c["intermediate_size"], c["vocab_size"], 32
    block = 2 * d * 32 * 128 + 2 * d * 8 * 128 + 2 * 128 + 2 * d * ff + 2 * d + 2
    assert m.total_params == n * block + d + 2 * v * d
    # the scalars are read by every decoded token, as the norms are; no matrix product uses them
    gated = read_config({**c, "model_type": "llama", "architectures": ["LlamaForCausalLM"]})
    assert m.total_params - (gated.total_params - n * d * ff) == n * (2 * 128 + 2)
    from llm_arithmetic.estimate import estimate
    e = estimate(m, context=4096)
    assert e.params_read_per_token - e.params_matmul == n * (2 * d + 2 * 128 + 2) + d + d
    assert e.kv_cache_bytes_per_token == 2 * n * 8 * 128 * 2 == 131_072
    # a file that says otherwise than ApertusConfig builds is another model, refused by name
    for change, pattern in [({"qk_norm": False}, "'qk_norm' = false contradicts"),
                            ({"post_norm": True}, "'post_norm' = true contradicts"),
                            ({"mlp_bias": True}, "'mlp_bias' = true contradicts"),
                            ({"hidden_act": "silu"}, "'hidden_act' = 'silu' is not supported")]:
        with pytest.raises(ConfigError, match=pattern):
            read_config({**c, **change})


# MiniMax-M1's shapes (FAMILIES.md 17.14): d = 6144, 80 blocks (70 lightning attention layers of 64
# heads of 128, 10 GQA layers of 64/8 heads of 128 after every seventh), each a mixture of 32 gated
# experts of 9,216 (top 2), vocabulary 200,064, untied
MM_D, MM_H, MM_DH, MM_V = 6144, 64, 128, 200_064
MM_LIGHTNING = 3 * MM_D * MM_H * MM_DH + MM_D * MM_H * MM_DH + MM_H * MM_DH + MM_H * MM_DH * MM_D
MM_SOFTMAX = 2 * MM_D * MM_H * MM_DH + 2 * MM_D * 8 * MM_DH          # q, o; k, v
MM_EXPERTS = 32 * 3 * MM_D * 9216
MM_BLOCK = MM_EXPERTS + 32 * MM_D + 2 * MM_D                           # experts, router, norms
MM_HAND = 70 * MM_LIGHTNING + 10 * MM_SOFTMAX + 80 * MM_BLOCK + MM_D + 2 * MM_V * MM_D
MM_STATE = 70 * MM_H * MM_DH * MM_DH * 2                               # 16 bits


def test_minimax_m1_by_hand_and_the_model_card():
    """MiniMax-M1 (SOURCES.md section 17): the meta count (ANSWERED), the hand count from
    transformers 5.24.0's MiniMaxLightningAttention / MiniMaxAttention / MiniMaxSparseMoeBlock
    agree; the card's 456B total rounds it, and its 45.9B activated is the top-2 count without
    the input embedding and the output head (45,944,920,064; with them 48.4B)."""
    m = read_config(CONFIGS / "minimax-m1-80k.json")
    assert m.total_params == MM_HAND == 456_089_655_296
    active = MM_HAND - 80 * MM_EXPERTS * 30 // 32
    assert m.active_params == active == 48_403_306_496
    assert round(m.total_params / 1e9) == 456
    assert round((active - 2 * MM_V * MM_D) / 1e9, 1) == 45.9
    kinds = ["la" if run.mixer is not None else "attn" for run in m.layers
             for _ in range(run.count)]
    assert [i for i, k in enumerate(kinds) if k == "attn"] == list(range(7, 80, 8))


def test_minimax_lightning_attention_by_hand():
    """One lightning attention layer: q/k/v, gate and output projections and one norm over the
    64 x 128 output channels; its state one 128 x 128 matrix per head at the cache's 16 bits
    (vLLM's linear_attention_state_shape and _dtype, FAMILIES.md 17.14), nothing else; per
    token 5 FLOPs per state element (decay, write, read-out)."""
    m = read_config(CONFIGS / "minimax-m1-80k.json")
    la = next(run.mixer for run in m.layers if run.mixer is not None)
    assert la.params(MM_D) == MM_LIGHTNING == 251_666_432
    assert la.matmul_params(MM_D) == 5 * MM_D * MM_H * MM_DH
    assert la.state_bytes() == MM_H * MM_DH * MM_DH * 2 == 2_097_152
    assert la.decode_flops() == 5 * MM_H * MM_DH * MM_DH
    assert m.state_bytes() == MM_STATE == 146_800_640
    assert m.state_bytes(bits_ssm=32) == 2 * MM_STATE  # all of it is the recurrent matrix
    kv = m.kv_cache_bytes_per_token()
    for s in (1, 4096, 1_000_000):
        assert m.seq_bytes(s) == kv * s + 2 * MM_STATE


def test_minimax_m1_decode_bytes_and_flops_by_hand():
    from llm_arithmetic.estimate import estimate
    e = estimate(read_config(CONFIGS / "minimax-m1-80k.json"), context=4096)
    active = 48_403_306_496
    weights = 2 * (active - MM_V * MM_D + MM_D)          # the input table: one row read
    kv = 10 * 2 * 8 * MM_DH * 2 * 4096
    assert e.decode_bytes_per_token == weights + kv + 2 * MM_STATE
    matmul = active - MM_V * MM_D - 161 * MM_D - 70 * MM_H * MM_DH   # less norms
    attention = 10 * 4 * MM_H * MM_DH * 4096
    assert e.decode_flops_per_token == (2 * matmul + attention
                                        + 70 * 5 * MM_H * MM_DH * MM_DH)


def _minimax_hf(cfg: dict) -> dict:
    """The remote-code file in transformers' form (MiniMaxAI/MiniMax-Text-01-hf's keys):
    layer_types for attn_type_list, the residual scales renamed."""
    out = {k: v for k, v in cfg.items() if k not in ("attn_type_list", "auto_map")}
    out.update(model_type="minimax", architectures=["MiniMaxForCausalLM"],
               layer_types=["full_attention" if c else "linear_attention"
                            for c in cfg["attn_type_list"]])
    for part in ("full_attention", "linear_attention", "mlp"):
        for ab in ("alpha", "beta"):
            short = {"full_attention": "full_attn", "linear_attention": "linear_attn"}.get(part,
                                                                                          part)
            out[f"{short}_{ab}_factor"] = out.pop(f"layernorm_{part}_{ab}")
    return out


def test_minimax_transformers_form_reads_as_the_remote_code_file():
    cfg = config("minimax-m1-80k")
    for form in (_minimax_hf(cfg), {**cfg, "model_type": "minimax_text_01",
                                    "architectures": ["MiniMaxText01ForCausalLM"]},
                 {**cfg, "shared_intermediate_size": [0] * 80},  # one width per layer, all 0
                 {**_minimax_hf(cfg), "attn_type_list": cfg["attn_type_list"]}):
        assert read_config(form).total_params == MM_HAND


_MM_SMALL = {"model_type": "minimax", "hidden_size": 256, "num_hidden_layers": 4,
             "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 512,
             "num_local_experts": 4, "num_experts_per_tok": 2, "vocab_size": 1000}


@pytest.mark.parametrize("change, meta", [
    # no layer_types: MiniMaxConfig alternates, softmax on the even blocks
    ({}, 7_858_944),
    ({"layer_types": ["linear_attention", "linear_attention", "full_attention",
                      "linear_attention"]}, 7_990_272),
    ({"tie_word_embeddings": True, "head_dim": 48}, 7_340_672),
], ids=["alternating", "layer-types", "tied-head-dim"])
def test_minimax_small_files_equal_the_meta_device_count(change, meta):
    """Meta-device counts of MiniMaxConfig(**cfg) under transformers 5.24.0 (FAMILIES.md
    17.14)."""
    assert read_config({**_MM_SMALL, **change}).total_params == meta


@pytest.mark.parametrize("change, message", [
    ({"shared_intermediate_size": 2048}, r"field 'shared_intermediate_size' = 2048 is not "
                                         "supported"),
    ({"shared_intermediate_size": [0] * 79 + [512]}, r"'shared_intermediate_size' = \[0, 0"),
    ({"sliding_window": 4096}, r"field 'sliding_window' = 4096 is not supported"),
    ({"attn_type_list": [0] * 79 + [2]}, r"'attn_type_list' has unknown kinds \[2\]"),
    ({"attn_type_list": [0] * 79}, r"'attn_type_list' has 79 entries for 80 layers"),
    ({"attn_type_list": None}, r"missing field 'attn_type_list'"),
    ({"layer_types": ["full_attention"] * 80}, r"'layer_types' and 'attn_type_list' disagree"),
    ({"use_qk_norm": True}, r"field 'use_qk_norm' = True \(query and key norms\) is not "
                            "understood by the 'minimax_m1' reader"),
])
def test_minimax_refuses_what_it_does_not_count_naming_the_field(change, message):
    cfg = {**config("minimax-m1-80k"), **change}
    with pytest.raises(ConfigError, match=message):
        read_config(cfg)


def test_lightning_attention_in_another_family_is_refused_naming_the_key():
    # a relabelled MiniMax-M1 file: the mixtral reader does not model lightning attention
    cfg = {**config("minimax-m1-80k"), "model_type": "mixtral",
           "architectures": ["MixtralForCausalLM"]}
    with pytest.raises(ConfigError, match="field 'attn_type_list' = .* declares lightning "
                                          "attention"):
        read_config(cfg)



def test_minimax_lightning_layers_get_vllm_hybrid_pages():
    # vLLM's hybrid page rule for lightning layers (tests/test_engine.py checks the figures);
    # with tensor parallelism it is still not modelled, and the warning says so
    import warnings

    from llm_arithmetic.engine import engine_view
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = engine_view(CONFIGS / "minimax-m1-80k.json", "vllm", kv_memory_gib=20)
    assert v.engine_block_tokens == 512
    with pytest.warns(UserWarning, match="tensor or pipeline parallelism"):
        engine_view(CONFIGS / "minimax-m1-80k.json", "vllm", kv_memory_gib=20, tp=8)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_files_name_the_key_that_declares_what_is_missing(name):
    with pytest.raises(ConfigError) as err:
        read_config(CONFIGS / f"{name}.json")
    message = str(err.value)
    assert "\n" not in message
    assert f"declared by field '{REFUSED[name]}'" in message, message


# Phi-4-mini-flash-reasoning's layers by hand (FAMILIES.md 17.15: the remote code's modules as
# vLLM's phi4flash.py builds them): d = 2560, d_in = 5120, N = 16, k = 4, r = ceil(2560 / 16)
PF_D, PF_IN, PF_N, PF_R = 2560, 5120, 16, 160
PF_MAMBA = (2 * PF_D * PF_IN + PF_IN * 4 + PF_IN + PF_IN * (PF_R + 2 * PF_N) + PF_R * PF_IN
            + PF_IN + PF_IN * PF_N + PF_IN + PF_IN * PF_D)      # in, conv, x, dt, A_log, D, out
PF_ATTN = PF_D * (PF_D + 2 * 20 * 64) + PF_D + 2 * 20 * 64 + PF_D * PF_D + PF_D + 6 * 64
PF_CROSS = 2 * (PF_D * PF_D + PF_D) + 6 * 64                    # q and out with biases
PF_GMU = 2 * PF_D * PF_IN
PF_BLOCK = 3 * PF_D * 10240 + 4 * PF_D                          # fc1 (2 ff), fc2; 2 LayerNorms
PF_HAND = (9 * PF_MAMBA + 9 * PF_ATTN + 7 * PF_GMU + 7 * PF_CROSS + 32 * PF_BLOCK
           + 200_064 * PF_D + 2 * PF_D)


def test_phi4flash_size_by_hand_equals_the_checkpoint():
    """The sizing of FAMILIES.md 17.15: the hand count, 3,852,562,944, stored as bf16 but for
    A_log (9 x 5120 x 16) and the differential attention's four lambdas (16 x 4 x 64) in fp32,
    is the checkpoint's model.safetensors.index.json total_size, 7,706,608,640 B (SOURCES.md
    section 18); the card says 3.8B."""
    assert PF_HAND == 3_852_562_944
    fp32 = 9 * PF_IN * PF_N + 16 * 4 * 64
    assert 2 * PF_HAND + 2 * fp32 == 7_706_608_640
    assert int(PF_HAND / 1e8) == 38


PF_FILE = CONFIGS / "phi-4-mini-flash-reasoning.json"
PF_KV = 2 * 20 * 64 * 2                         # one self-decoder attention layer, 16 bits


def test_phi4flash_reader_total_is_the_checkpoint_count():
    # the checkpoint's index: bf16 bytes but A_log and the lambdas (fp32), halved
    fp32 = 9 * PF_IN * PF_N + 16 * 4 * 64
    m = read_config(PF_FILE)
    assert m.total_params == (7_706_608_640 - 2 * fp32) // 2 == PF_HAND
    assert m.active_params == PF_HAND                 # dense, tied head
    assert m.n_layers == 32


def test_phi4flash_cache_is_the_self_decoders_and_state_is_mamba1():
    m = read_config(PF_FILE)
    # 8 windowed layers (512) and block 17 over the whole context; the cross-decoder owns none
    for context in (100, 512, 4096, 262_144):
        assert m.kv_cache_bytes(context=context, batch=1) == \
            PF_KV * (8 * min(context, 512) + context)
    # 9 Mamba layers: d_in x N recurrent state and k - 1 convolution inputs, 16 bits (vLLM's
    # MambaCacheManager given lm_head's dtype for both)
    assert m.state_bytes() == 9 * PF_IN * (PF_N + 4 - 1) * 2 == 1_751_040


def test_phi4flash_decode_flops_by_hand():
    # 2 per matrix weight (the tied head read as the output projection), then per layer:
    # Mamba-1 2 d_in k + 6 d_in N; GMU d_in; differential attention 6 H d_head per attended key
    # (two score maps a pair of heads, each weighing 2 d_head of values), the cross-decoder's
    # 7 layers over block 17's whole cache
    m = read_config(PF_FILE)
    matmul = (9 * (2 * PF_D * PF_IN + PF_IN * (PF_R + 2 * PF_N) + PF_R * PF_IN + PF_IN * PF_D)
              + 9 * (PF_D * (PF_D + 2 * 20 * 64) + PF_D * PF_D) + 7 * 2 * PF_D * PF_IN
              + 7 * 2 * PF_D * PF_D + 32 * 3 * PF_D * 10240 + 200_064 * PF_D)
    assert m.matmul_params == matmul
    for context in (300, 4096):
        attn = 6 * 40 * 64 * (8 * min(context, 512) + 8 * context)
        hand = 2 * matmul + 9 * (2 * PF_IN * 4 + 6 * PF_IN * PF_N) + 7 * PF_IN + attn
        assert m.decode_flops_per_token(context=context) == hand


def test_phi4flash_prefill_runs_the_cross_decoder_for_the_last_token_only():
    # YOCO (arXiv 2507.06607; vLLM's SambaYModel.forward keeps the last prompt token from block
    # n/2 + 2 on): blocks 18-31 cost one decode step over the T prompt tokens, their weights
    # counted once like the head's
    m = read_config(PF_FILE)
    each = (9 * (2 * PF_D * PF_IN + PF_IN * (PF_R + 2 * PF_N) + PF_R * PF_IN + PF_IN * PF_D)
            + 9 * (PF_D * (PF_D + 2 * 20 * 64) + PF_D * PF_D) + 18 * 3 * PF_D * 10240)
    once = 200_064 * PF_D + 7 * 2 * PF_D * PF_IN + 7 * 2 * PF_D * PF_D + 14 * 3 * PF_D * 10240
    for t in (1, 100, 4096):
        window_pairs = min(t, 512) * (min(t, 512) + 1) // 2 + max(t - 512, 0) * 512
        hand = (2 * each * t + 2 * once + 9 * (2 * PF_IN * 4 + 6 * PF_IN * PF_N) * t
                + 6 * 40 * 64 * (8 * window_pairs + t * (t + 1) // 2)
                + 7 * PF_IN + 7 * 6 * 40 * 64 * t)
        assert m.prefill_flops(prompt=t) == hand
    # one prompt token is one decode step at S = 1
    assert m.prefill_flops(prompt=1) == m.decode_flops_per_token(context=1)


def test_phi4flash_refuses_what_it_does_not_read(tmp_path):
    import json
    base = json.loads(PF_FILE.read_text())
    for key, value in (("mb_per_layer", 3), ("num_hidden_layers", 30), ("mlp_bias", True),
                       ("mamba_conv_bias", False), ("lm_head_bias", True)):
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps({**base, key: value}))
        with pytest.raises(ConfigError, match=key):
            read_config(path)


def test_minimax_describe_names_no_convolution_window():
    # the state row of describe: MiniMax-M1's state is all recurrent matrix, at the cache's 16
    # bits (its config names no dtype for it), and no convolution window is mentioned
    import sys
    out = subprocess.run([sys.executable, "-m", "llm_arithmetic", "describe",
                          str(CONFIGS / "minimax-m1-80k.json")], capture_output=True, text=True,
                         check=True).stdout
    row = next(line for line in out.splitlines() if "of which recurrent matrices" in line)
    assert "146,800,640 B" in row and "at 16 bits, the state's" in row, row
    assert "convolution" not in row, row



def test_minimax_m2_files_restating_attn_type_list_all_softmax():
    """MiniMax-M2.x files keep MiniMax-01's ``attn_type_list`` with every layer 1 (softmax):
    MiniMaxAI/MiniMax-M2.7's config as ai-dynamo/aiconfigurator @ 095f58a51 stores it carries 62
    ones for its 62 layers. Restated, it counts the same as the catalog's MiniMax-M2.5 file
    without it (the same shapes); a 0 (a lightning layer, MiniMax-01's layout) is refused naming
    the field."""
    cfg = json.loads((CATALOG / "minimax-m2.5" / "config.json").read_text(encoding="utf-8"))
    plain = read_config(cfg).total_params
    n = cfg["num_hidden_layers"]
    assert n == 62
    assert read_config({**cfg, "attn_type_list": [1] * n}).total_params == plain
    with pytest.raises(ConfigError, match="field 'attn_type_list' marks lightning"):
        read_config({**cfg, "attn_type_list": [0] + [1] * (n - 1)})
    with pytest.raises(ConfigError, match="field 'attn_type_list' has 61 entries"):
        read_config({**cfg, "attn_type_list": [1] * (n - 1)})


def test_deepseek_v4_routing_tables_and_correction_biases_as_the_checkpoint_stores_them():
    """The first num_hash_layers blocks route by a token -> experts table (V x k), the others
    by score with a correction bias of E: DeepSeek-V4-Pro's checkpoint lists layers.0-2.ffn.gate.
    tid2eid [129280, 6] and layers.3-60.ffn.gate.bias [384] (SOURCES.md section 7, index file id
    62525154746). Without hash-routed blocks every block has its bias and there is no table; a
    count past the layers, or another topk_method, is refused naming the field."""
    cfg = config("deepseek-v4-flash")
    m = read_config(cfg)
    biased = [run.count for run in m.layers if run.mlp.router_bias]
    assert sum(biased) == 40 and sum(run.count for run in m.layers) == 43
    per_layer = [run.mlp.router_bias for run in m.layers for _ in range(run.count)]
    assert per_layer == [False] * 3 + [True] * 40
    cfg["num_hash_layers"] = 0
    m0 = read_config(cfg)
    assert "hash-routing tables" not in [x.name for x in m0.extras]
    assert m0.total_params == m.total_params - 3 * 129_280 * 6 + 3 * 256
    for key, value in (("num_hash_layers", 44), ("topk_method", "greedy")):
        bad = dict(cfg, **{key: value})
        with pytest.raises(ConfigError, match=f"field '{key}'"):
            read_config(bad)


LING_MINI = CONFIGS / "ling-mini-2.0.json"


def test_ling_mini_equals_inclusionai_code_on_the_meta_device():
    """Ling-mini-2.0 (FAMILIES.md section 17.16): inclusionAI's modeling_bailing_moe_v2.py
    (Ling-V2 @ af8837e6) on the meta device builds 16,255,638,528 parameters and 4,864 buffer
    elements (the gates' expert_bias, 256 in each of the 19 mixture layers) and 15,300,820,992
    in routed experts (scripts/ground_truth/bailing_remote.py); the README: "1.43B activated
    of 16.26B total params", "non-embedding 789M"."""
    m = read_config(LING_MINI)
    assert (m.family, m.total_params) == ("bailing_moe_v2", 16_255_638_528 + 4_864)
    routed, e, k = 15_300_820_992, 256, 8
    assert m.active_params == m.total_params - routed // e * (e - k) == 1_432_973_056
    assert (round(m.total_params / 1e9, 2), round(m.active_params / 1e9, 2)) == (16.26, 1.43)
    tables = 2 * 157_184 * 2_048  # untied embedding and head
    assert round((m.active_params - tables) / 1e6) == 789
    assert m.extras == ()  # no MTP layer in the chat model's file


def test_ling_mini_by_hand_and_its_cache():
    c = config("ling-mini-2.0")
    d, n, v, w, e = (c["hidden_size"], c["num_hidden_layers"], c["vocab_size"],
                     c["moe_intermediate_size"], c["num_experts"])
    attn = d * (16 + 2 * 4) * 128 + 16 * 128 * d + 2 * 128  # fused qkv, dense, q/k norms
    moe = e * 3 * d * w + 3 * d * w + e * d + e  # experts, one shared, gate and expert_bias
    total = n * (attn + 2 * d) + 3 * d * c["intermediate_size"] + (n - 1) * moe + d + 2 * v * d
    m = read_config(c)
    assert m.total_params == total
    # GQA: 4 KV heads of 128 in all 20 layers, keys and values at 16 bits
    assert m.kv_cache_bytes_per_token() == 2 * 20 * 4 * 128 * 2 == 40_960
    # the same file under the family's own name (and without its architectures) reads the same
    own = {key: val for key, val in c.items() if key != "architectures"}
    assert read_config({**own, "model_type": "bailing_moe_v2"}).total_params == total


def test_ling_mtp_layer_tied_tables_and_biases_equal_the_remote_code():
    """With num_nextn_predict_layers 1, tied tables, use_qkv_bias and use_bias, the remote code
    on the meta device builds 16,761,694,464 parameters and 5,120 buffer elements, 827,866,368
    and 256 of them in the MTP layer (model.layers.20): reported apart here."""
    m = read_config({**config("ling-mini-2.0"), "num_nextn_predict_layers": 1,
                     "tie_word_embeddings": True, "use_qkv_bias": True, "use_bias": True})
    (mtp,) = m.extras
    assert (mtp.params, mtp.modules, mtp.in_total) == (827_866_368 + 256, 1, False)
    assert m.total_params == 16_761_694_464 - 827_866_368 + 5_120 - 256
    # the module's own parts beside its block: enorm, hnorm, final_layernorm, eh_proj 2d x d
    d = 2_048
    assert mtp.params - sum(b.params(d) for b in mtp.layers) == 3 * d + 2 * d * d


@pytest.mark.parametrize("change, field", [
    ({"moe_shared_expert_intermediate_size": 1024}, "moe_shared_expert_intermediate_size"),
    ({"moe_router_enable_expert_bias": False}, "moe_router_enable_expert_bias"),
    ({"n_group": 3}, "n_group"),
    ({"topk_group": 9}, "topk_group"),
    ({"topk_group": 1, "n_group": 64}, "topk_group"),
    ({"num_experts_per_tok": 300}, "num_experts_per_tok"),
    ({"kv_lora_rank": 512}, "kv_lora_rank"),
    ({"layer_types": ["sliding_attention"] * 20}, "layer_types"),
])
def test_ling_refuses_what_it_does_not_read_naming_the_field(change, field):
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**config("ling-mini-2.0"), **change})


def test_ling_1_0_files_stay_an_unknown_family():
    """Ling 1.0 shares the model_type "bailing_moe" with BailingMoeForCausalLM, another
    layout (no q/k norms, no expert bias): not read as Ling 2.0."""
    c = {**config("ling-mini-2.0"), "architectures": ["BailingMoeForCausalLM"]}
    with pytest.raises(ConfigError, match="unsupported model_type 'bailing_moe'"):
        read_config(c)


TRINITY_MINI = CONFIGS / "trinity-mini.json"
TRINITY_NANO = CONFIGS / "trinity-nano-preview.json"


def test_trinity_rounds_to_the_cards():
    """The model cards (huggingface.co/arcee-ai/Trinity-Mini and Trinity-Nano-Preview): "26B,
    3B active" and "6B, 1B active", Nano's "800M non-embedding parameters active per token"
    (the input table left out, the output head kept)."""
    mini, nano = read_config(TRINITY_MINI), read_config(TRINITY_NANO)
    assert (round(mini.total_params / 1e9), round(mini.active_params / 1e9)) == (26, 3)
    assert (round(nano.total_params / 1e9), round(nano.active_params / 1e9)) == (6, 1)
    assert round((nano.active_params - 200_192 * 1_024) / 1e8) == 8


def test_trinity_mini_by_hand():
    """FAMILIES.md 17.17: q, k, v, o and the attention's output gate (d -> H d_h, a sigmoid
    per channel), per-head q/k norms, four norms a block, two dense layers, then 128 experts
    of 1,024 with one shared expert, a router and its expert_bias Parameter."""
    c = config("trinity-mini")
    d, n, v, e, w = 2_048, 32, 200_192, 128, 1_024
    h, kv, dh = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    attn = d * h * dh + 2 * d * kv * dh + h * dh * d + d * h * dh + 2 * dh
    moe = e * 3 * d * w + 3 * d * w + e * d + e
    total = n * (attn + 4 * d) + 2 * 3 * d * c["intermediate_size"] + (n - 2) * moe + d \
        + 2 * v * d
    m = read_config(c)
    assert m.total_params == total == truth(TRINITY_MINI)["params"] == 26_123_974_400
    # the gate is the attention's fourth d x H d_h matrix, all of it read in a decode step
    assert m.layers[0].attention.gate == dh


def test_trinity_windows_and_the_cache_at_long_context():
    """Three sliding layers (2,048 tokens) then one full, from layer_types (Mini) or from
    global_attn_every_n_layers (Nano's file has no list): at 131,072 tokens Mini stores 8 full
    layers of 131,072 tokens and 24 of 2,048, 2,048 B a token a layer."""
    mini, nano = read_config(TRINITY_MINI), read_config(TRINITY_NANO)
    for m, n in ((mini, 32), (nano, 56)):
        windows = [run.attention.window for run in m.layers for _ in range(run.count)]
        assert windows == [None if (i + 1) % 4 == 0 else 2_048 for i in range(n)]
    per_layer = 2 * 4 * 128 * 2
    assert mini.kv_cache_bytes(131_072) == (8 * 131_072 + 24 * 2_048) * per_layer \
        == 2_248_146_944
    every_other = read_config({**config("trinity-nano-preview"), "global_attn_every_n_layers": 2})
    assert sum(run.count for run in every_other.layers if run.attention.window is None) == 28


@pytest.mark.parametrize("change, field", [
    ({"head_dim": None}, "head_dim"),
    ({"sliding_window": None}, "sliding_window"),
    ({"layer_types": ["chunked_attention"] * 56}, "layer_types"),
    ({"num_experts_per_tok": 200}, "num_experts_per_tok"),
    ({"kv_lora_rank": 512}, "kv_lora_rank"),
    ({"num_nextn_predict_layers": 1}, "num_nextn_predict_layers"),
])
def test_trinity_refuses_what_it_does_not_read_naming_the_field(change, field):
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**config("trinity-nano-preview"), **change})


AFM = CONFIGS / "afm-4.5b.json"


def test_afm_by_hand_two_matrix_mlp():
    """AFM-4.5B (FAMILIES.md 17.18): Llama's attention (20 query heads, 4 KV heads of 128) and
    an MLP of two matrices (up and down around ReLU^2), not three; 4.6B on the Hub's listing
    (the name's 4.5B is a rounder figure)."""
    c = config("afm-4.5b")
    d, n, w, v = c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"], c["vocab_size"]
    attn = 2 * d * 20 * 128 + 2 * d * 4 * 128
    total = n * (attn + 2 * d * w + 2 * d) + d + 2 * v * d
    m = read_config(c)
    assert m.total_params == m.active_params == total == truth(AFM)["params"] == 4_619_189_760
    assert round(m.total_params / 1e8) == 46
    assert all(run.mlp.n_mats == 2 for run in m.layers)
    # biases on every projection (attention_bias, mlp_bias): transformers 5.24.0 on the meta
    # device builds 4,620,166,656
    biased = read_config({**c, "attention_bias": True, "mlp_bias": True})
    assert biased.total_params == 4_620_166_656 == total + n * (2 * d + 2 * 4 * 128 + w + d)
    assert m.kv_cache_bytes_per_token() == 36 * 2 * 4 * 128 * 2 == 73_728


@pytest.mark.parametrize("change, field", [
    ({"num_experts": 8}, "num_experts"),
    ({"sliding_window": 4096, "layer_types": ["sliding_attention"] * 36}, "layer_types"),
    ({"use_qk_norm": True}, "use_qk_norm"),
])
def test_afm_refuses_what_it_does_not_read_naming_the_field(change, field):
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**config("afm-4.5b"), **change})
# ---- LongCat-Flash: shortcut-connected MoE with zero-computation experts (FAMILIES.md 17.19) --
LONGCAT = CONFIGS / "reconstructed" / "longcat-flash-chat.json"


def _longcat_by_hand(c: dict) -> dict:
    """LongCat-Flash's parts from the config alone (vLLM's longcat_flash.py @ fe441ccf: two MLA
    sublayers, two dense MLPs and one MoE of E real experts a layer; a router over E + Z)."""
    d, h, layers = c["hidden_size"], c["num_attention_heads"], c["num_layers"]
    rq, rkv, nope, rope, dv = (c["q_lora_rank"], c["kv_lora_rank"], c["qk_nope_head_dim"],
                               c["qk_rope_head_dim"], c["v_head_dim"])
    mla = (d * rq + rq + rq * h * (nope + rope) + d * (rkv + rope) + rkv
           + rkv * h * (nope + dv) + h * dv * d)
    dense = 3 * d * c["ffn_hidden_size"]
    expert = 3 * d * c["expert_ffn_hidden_size"]
    e, z = c["n_routed_experts"], c["zero_expert_num"]
    router = d * (e + z) + (e + z)  # classifier, e_score_correction_bias
    shared = 2 * mla + 2 * dense + 4 * d + router
    table = c["vocab_size"] * d
    return dict(total=layers * (shared + e * expert) + d + 2 * table,
                least=layers * shared + d + table,  # no real expert: the head, not the table
                expert=expert, layers=layers, table=table, e=e, z=z)


def test_longcat_flash_total_by_hand_and_against_the_meta_count():
    c, t, m = json.loads(LONGCAT.read_text()), truth(LONGCAT), read_config(LONGCAT)
    hand = _longcat_by_hand(c)
    assert m.total_params == hand["total"] == 560_664_980_480
    # transformers 5.24.0 allocates gate_up_proj for all E + Z experts (modeling_longcat_flash.py
    # LongcatFlashExperts: torch.empty(total_experts, 2 * intermediate, hidden)); the zero
    # experts' rows are never used, and vLLM's FusedMoE holds E experts only
    unused = hand["layers"] * hand["z"] * 2 * c["expert_ffn_hidden_size"] * c["hidden_size"]
    assert m.total_params == t["params"] + t["persistent_buffers"] - unused
    assert t["persistent_buffers"] == hand["layers"] * (hand["e"] + hand["z"])


def test_longcat_flash_rounds_to_the_cards_560b_and_its_active_range():
    # the LongCat-Flash-Chat card: 560B total, 18.6B-31.3B active (about 27B on average), the
    # figures truncated to a tenth and without the input embedding table
    c, m = json.loads(LONGCAT.read_text()), read_config(LONGCAT)
    hand = _longcat_by_hand(c)
    assert int(m.total_params / 1e9) == 560
    assert int(hand["least"] / 1e8) == 186
    # the library's convention: every one of the 12 routed slots is a real expert (the upper
    # end), the input table counted as the library counts it for every model
    upper = hand["least"] + hand["layers"] * c["moe_topk"] * hand["expert"]
    assert m.active_params == upper + hand["table"]
    assert int(upper / 1e8) == 313
    (extra,) = m.extras
    assert "upper end" in extra.name and extra.read and extra.in_total
    assert extra.matmul == hand["layers"] * hand["z"] * c["hidden_size"]


def test_longcat_flash_cache_and_layers():
    m = read_config(LONGCAT)
    # 56 latent attention sublayers, each caching the 512 latent and the 64-wide rotary key
    assert m.kv_cache_bytes_per_token() == 2 * 28 * (512 + 64) * 2
    assert sum(run.count for run in m.layers) == 56
    assert sum(run.count for run in m.layers if run.mlp.is_moe) == 28


@pytest.mark.parametrize("change, field", [
    ({"attention_method": "LSA"}, "attention_method"),
    ({"zero_expert_type": "constant"}, "zero_expert_type"),
    ({"mtp_num_layers": 1}, "mtp_num_layers"),
    ({"oe_vocab_size_ratio": 78}, "oe_vocab_size_ratio"),
    ({"index_topk": 2048}, "index_topk"),
    ({"num_hidden_layers": 30}, "num_hidden_layers"),
    ({"attention_bias": True}, "attention_bias"),
    ({"moe_topk": 769}, "moe_topk"),
])
def test_longcat_flash_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(LONGCAT.read_text())
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


def test_longcat_flash_accepts_both_readings_of_num_hidden_layers():
    c = json.loads(LONGCAT.read_text())
    total = read_config(c).total_params
    assert read_config({**c, "num_hidden_layers": 28}).total_params == total  # vLLM's
    assert read_config({**c, "num_hidden_layers": 56}).total_params == total  # transformers'


# ---- Cohere 2: Command R7B and Command A (parallel blocks, 3 windowed layers in 4; 17.20) ------
COMMAND_A = CONFIGS / "reconstructed" / "c4ai-command-a-03-2025.json"
COMMAND_R7B = CONFIGS / "reconstructed" / "c4ai-command-r7b-12-2024.json"


@pytest.mark.parametrize("path", [COMMAND_A, COMMAND_R7B], ids=["command-a", "command-r7b"])
def test_cohere2_equals_the_meta_count_and_a_count_by_hand(path):
    c, t, m = json.loads(path.read_text()), truth(path), read_config(path)
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    d, h, kv, n = (c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"],
                   c["num_hidden_layers"])
    dh = d // h
    # q and o of H d_h, k and v of H_kv d_h, a gated MLP, one bias-free LayerNorm (the block
    # is parallel: attention and MLP read the same normed input)
    block = 2 * d * h * dh + 2 * d * kv * dh + 3 * d * c["intermediate_size"] + d
    assert m.total_params == n * block + d + c["vocab_size"] * d  # final norm, tied table
    assert m.active_params == m.total_params


def test_cohere2_command_a_rounds_to_the_cards_111b_and_its_cache_by_hand():
    # the Command A card (huggingface.co/CohereForAI/c4ai-command-a-03-2025): "Model Size: 111
    # billion parameters"
    m = read_config(COMMAND_A)
    assert round(m.total_params / 1e9) == 111
    # 48 layers slide over 4,096 tokens, 16 are global: K and V of 8 heads of 128 at 2 bytes
    per_layer = 2 * 8 * 128 * 2
    assert m.kv_cache_bytes(32768) == 16 * 32768 * per_layer + 48 * 4096 * per_layer
    assert [run.attention.window for run in m.layers[:2]] == [4096, None]
    assert sum(run.count for run in m.layers if run.attention.window is None) == 16


def test_cohere2_layer_types_and_pattern_decide_the_windows():
    c = json.loads(COMMAND_R7B.read_text())
    full = read_config({**c, "layer_types": ["full_attention"] * 32,
                        "sliding_window_pattern": None})
    assert all(run.attention.window is None for run in full.layers)
    # both given, they must agree (transformers follows layer_types alone)
    same = ["full_attention" if (i + 1) % 4 == 0 else "sliding_attention" for i in range(32)]
    assert read_config({**c, "layer_types": same}).total_params == read_config(c).total_params
    with pytest.raises(ConfigError, match="'layer_types' disagrees"):
        read_config({**c, "layer_types": ["full_attention"] * 32})
    halves = read_config({**c, "sliding_window_pattern": 2})
    assert sum(run.count for run in halves.layers if run.attention.window) == 16
    # transformers' default pattern is 4
    default = {k: v for k, v in c.items() if k != "sliding_window_pattern"}
    assert read_config(default).kv_cache_bytes(8192) == read_config(c).kv_cache_bytes(8192)


@pytest.mark.parametrize("change, field", [
    ({"head_dim": 96}, "head_dim"),
    ({"sliding_window": None}, "sliding_window"),
    ({"layer_norm_bias": True}, "layer_norm_bias"),
    ({"use_qk_norm": True}, "use_qk_norm"),
    ({"mlp_bias": True}, "mlp_bias"),
    ({"layer_types": ["chunked_attention"] * 32}, "layer_types"),
])
def test_cohere2_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(COMMAND_R7B.read_text())
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


# ---- GLM-4-0414: a dense block with four norms and q/k/v biases (FAMILIES.md 17.21) ------------
GLM4_9B = CONFIGS / "reconstructed" / "glm-4-9b-0414.json"


def test_glm4_equals_the_meta_count_and_a_count_by_hand():
    c, t, m = json.loads(GLM4_9B.read_text()), truth(GLM4_9B), read_config(GLM4_9B)
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    d, h, kv, dh = (c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"],
                    c["head_dim"])
    attn = 2 * d * h * dh + 2 * d * kv * dh + h * dh + 2 * kv * dh  # q/k/v biases, o none
    block = attn + 3 * d * c["intermediate_size"] + 4 * d  # fused gate_up, down; four norms
    assert m.total_params == c["num_hidden_layers"] * block + d + 2 * c["vocab_size"] * d
    assert int(m.total_params / 1e9) == 9  # the name's 9B (9.40B)
    # 40 layers, K and V of 2 heads of 128 at 2 bytes
    assert m.kv_cache_bytes_per_token() == 40 * 2 * 2 * 128 * 2


def test_glm4_head_width_and_biases_follow_the_config_class():
    c = json.loads(GLM4_9B.read_text())
    # Glm4Config's head_dim is 128 whatever d / H is: 64 heads of a 4,096 width are 64 x 128
    wide = {k: v for k, v in c.items() if k != "head_dim"}
    assert read_config({**wide, "num_attention_heads": 64}).layers[0].attention.d_head == 128
    plain = read_config({**c, "attention_bias": False})
    assert read_config(c).total_params - plain.total_params == 40 * (32 + 2 * 2) * 128
    assert not read_config(c).layers[0].attention.o_bias


@pytest.mark.parametrize("change, field", [
    ({"layer_types": ["sliding_attention"] * 40}, "layer_types"),
    ({"mlp_bias": True}, "mlp_bias"),
    ({"use_qk_norm": True}, "use_qk_norm"),
    ({"n_routed_experts": 8}, "n_routed_experts"),
])
def test_glm4_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(GLM4_9B.read_text())
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})
# ---- Jamba: Mamba-1 and attention layers, a mixture every second layer (FAMILIES.md 17.22) ----
JAMBA = CATALOG / "jamba-v0.1" / "config.json"


def test_jamba_equals_the_meta_count_and_the_card():
    # transformers 5.24.0's meta count of AI21's own file (parameters; no buffers)
    t, m = truth(JAMBA), read_config(JAMBA)
    assert m.family == "jamba"
    assert m.total_params == t["params"] == 51_570_323_328
    assert t["persistent_buffers"] == 0
    # the card: "12B active parameters and a total of 52B parameters across all experts"
    assert round(m.total_params / 1e9) == 52
    assert round(m.active_params / 1e9) == 12
    # active from the meta count alone: 2 of the 16 routed experts in each MoE layer
    assert m.active_params == t["params"] - t["routed_expert_params"] * 14 // 16


def test_jamba_by_hand_from_the_file():
    c = json.loads(JAMBA.read_text(encoding="utf-8"))
    d, ff, v, n = c["hidden_size"], c["intermediate_size"], c["vocab_size"], 32
    d_in, ds, r, k = 2 * d, c["mamba_d_state"], c["mamba_dt_rank"], c["mamba_d_conv"]
    # attention at i % 8 == 4 (4 layers), Mamba-1 elsewhere (28); experts at odd i (16)
    attn = 2 * d * d + 2 * d * 8 * 128
    mamba = (d * 2 * d_in + d_in * k + d_in + d_in * (r + 2 * ds) + r * d_in + d_in
             + d_in * ds + d_in + d_in * d + r + 2 * ds)  # ... + the dt, B and C norms
    dense, moe = 3 * d * ff, 16 * 3 * d * ff + 16 * d
    total = 4 * attn + 28 * mamba + 16 * dense + 16 * moe + n * 2 * d + d + 2 * v * d
    m = read_config(JAMBA)
    assert m.total_params == total
    assert m.active_params == total - 16 * 14 * 3 * d * ff
    assert sum(x.params for x in m.extras) == 28 * (r + 2 * ds) == 8_064
    from llm_arithmetic.estimate import estimate
    e = estimate(m, context=4096)
    # only the 4 attention layers cache keys and values (8 heads of 128, 16 bits)
    assert e.kv_cache_bytes_per_token == 4 * 2 * 8 * 128 * 2 == 16_384
    # each Mamba layer holds d_in x (d_state + d_conv - 1) values a sequence (16 bits)
    assert e.state_bytes == 28 * d_in * (ds + k - 1) * 2 == 8_716_288
    # a decode step reads every active weight, plus the one embedding row; outside matrix
    # products: the norms, the inner norms, the convolution, its bias, dt's bias, A_log, D
    assert (e.params_read_per_token - e.params_matmul
            == n * 2 * d + d + 8_064 + 28 * d_in * (k + 1 + 1 + ds + 1) + d)


def test_jamba_layer_pattern_follows_the_periods_and_offsets():
    c = json.loads(JAMBA.read_text(encoding="utf-8"))
    small = {**c, "num_hidden_layers": 6, "attn_layer_period": 3, "attn_layer_offset": 0,
             "expert_layer_period": 3, "expert_layer_offset": 2, "num_experts": 4}
    m = read_config(small)
    kinds = [("attn" if run.attention else "mamba", run.mlp.n_experts)
             for run in m.layers for _ in range(run.count)]
    assert kinds == [("attn", 1), ("mamba", 1), ("mamba", 4)] * 2
    # one expert is a dense MLP (JambaConfig.layers_num_experts; JambaMLP, no router)
    assert all(run.mlp.n_experts == 1
               for run in read_config({**c, "num_experts": 1, "num_experts_per_tok": 1}).layers)


def test_jamba_refuses_what_it_does_not_model_by_name():
    c = json.loads(JAMBA.read_text(encoding="utf-8"))
    for change, pattern in [
            ({"mamba_proj_bias": True}, "'mamba_proj_bias' = true contradicts"),
            ({"mamba_inner_layernorms": False}, "'mamba_inner_layernorms' = false contradicts"),
            ({"sliding_window": 4096}, "'sliding_window' = 4096 is not supported"),
            ({"hidden_act": "gelu"}, "'hidden_act' = 'gelu' is not supported"),
            ({"attn_layer_offset": 8}, "'attn_layer_offset' \\(8\\) must be smaller"),
            ({"mamba_dt_rank": "big"}, "'mamba_dt_rank' must be a positive integer"),
            ({"kv_lora_rank": 512}, "'kv_lora_rank' = 512"),
            ({"num_experts_per_tok": 17}, "'num_experts_per_tok' \\(17\\) exceeds")]:
        with pytest.raises(ConfigError, match=pattern):
            read_config({**c, **change})
    # another family's file that carries Jamba's Mamba keys is refused naming them
    llama = {"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
             "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 11008}
    for key, value in (("mamba_dt_rank", 256), ("mamba_inner_layernorms", True),
                       ("attn_layer_period", 8)):
        with pytest.raises(ConfigError, match=f"field '{key}'"):
            read_config({**llama, key: value})


# ---- Falcon Mamba: Mamba-1 layers alone (FAMILIES.md 17.23) -----------------------------------
FALCON_MAMBA = CATALOG / "falcon-mamba-7b" / "config.json"


def test_falcon_mamba_equals_the_meta_count_and_the_hub_figure():
    t, m = truth(FALCON_MAMBA), read_config(FALCON_MAMBA)
    assert m.family == "falcon_mamba"
    assert m.total_params == m.active_params == t["params"] == 7_272_665_088
    # the weightless RMS norms on dt, B and C are non-persistent buffers, not weights
    assert t["persistent_buffers"] == 0
    assert round(m.total_params / 1e7) == 727  # the Hub's "7.27B params"


def test_falcon_mamba_by_hand_and_no_cache():
    c = json.loads(FALCON_MAMBA.read_text(encoding="utf-8"))
    d, v, n = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"]
    # d_in is intermediate_size (8,192), not expand x d (16 x 4,096): FalconMambaConfig writes
    # expand x d first and the file's intermediate_size over it
    d_in, ds, r, k = c["intermediate_size"], c["state_size"], c["time_step_rank"], 4
    assert d_in != c["expand"] * d
    layer = (d * 2 * d_in + d_in * k + d_in + d_in * (r + 2 * ds) + r * d_in + d_in
             + d_in * ds + d_in + d_in * d + d)
    m = read_config(FALCON_MAMBA)
    assert m.total_params == n * layer + d + 2 * v * d
    from llm_arithmetic.estimate import estimate
    e = estimate(m, context=8192, batch=4)
    assert e.kv_cache_bytes_per_token == 0 and e.max_context is None
    assert e.state_bytes == 4 * n * d_in * (ds + k - 1) * 2 == 79_691_776
    # without intermediate_size the width is expand x d, as FalconMambaConfig computes it
    wide = {k2: v2 for k2, v2 in c.items() if k2 != "intermediate_size"}
    assert read_config(wide).layers[0].mixer.d_inner == 16 * d
    # the head is tied unless the file says otherwise (FalconMambaConfig's default)
    untied = {k2: v2 for k2, v2 in c.items() if k2 != "tie_word_embeddings"}
    assert m.total_params - read_config(untied).total_params == v * d


def test_falcon_mamba_refuses_by_name():
    c = json.loads(FALCON_MAMBA.read_text(encoding="utf-8"))
    for change, pattern in [({"use_bias": True}, "'use_bias' = true contradicts"),
                            ({"hidden_act": "gelu"}, "'hidden_act' = 'gelu' is not supported"),
                            ({"time_step_rank": 0}, "'time_step_rank' must be a positive"),
                            ({"num_attention_heads": 32, "attn_layer_period": 8},
                             "'attn_layer_period'")]:
        with pytest.raises(ConfigError, match=pattern):
            read_config({**c, **change})
    llama = {"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
             "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 11008}
    with pytest.raises(ConfigError, match="field 'state_size'"):
        read_config({**llama, "state_size": 16})


# ---- Bamba: Mamba-2 and attention at listed layers (FAMILIES.md 17.24) ------------------------
BAMBA = CATALOG / "bamba-9b" / "config.json"


def test_bamba_equals_the_meta_count_and_the_documented_total():
    t, m = truth(BAMBA), read_config(BAMBA)
    assert m.family == "bamba"
    assert m.total_params == m.active_params == t["params"] == 9_780_235_392
    assert t["persistent_buffers"] == 0
    assert round(m.total_params / 1e7) == 978  # transformers' documentation: "9.78B"


def test_bamba_by_hand():
    c = json.loads(BAMBA.read_text(encoding="utf-8"))
    d, v, n, ff = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"], 14336
    d_in, heads, n_st, g, k = 2 * d, c["mamba_n_heads"], c["mamba_d_state"], 1, 4
    conv = d_in + 2 * g * n_st  # x, B and C go through the convolution
    # in_proj to z, x, B, C and one dt per head; the convolution and its bias; dt_bias, A_log
    # and D per head; the gated norm of d_in; out_proj
    mamba = d * (d_in + conv + heads) + conv * k + conv + 3 * heads + d_in + d_in * d
    attn = 2 * d * d + 2 * d * 8 * 128
    n_attn = len(c["attn_layer_indices"])
    total = (n - n_attn) * mamba + n_attn * attn + n * (3 * d * ff + 2 * d) + d + 2 * v * d
    m = read_config(BAMBA)
    assert m.total_params == total
    from llm_arithmetic.estimate import estimate
    e = estimate(m, context=4096)
    assert e.kv_cache_bytes_per_token == n_attn * 2 * 8 * 128 * 2 == 12_288
    # each Mamba-2 layer: heads x d_head x d_state, and the convolution's last k - 1 inputs
    assert e.state_bytes == (n - n_attn) * (heads * 64 * n_st + conv * (k - 1)) * 2
    # mamba_dt_rank builds nothing in a Mamba-2 mixer: any value counts the same
    assert read_config({**c, "mamba_dt_rank": 1}).total_params == total
    assert read_config({**c, "attn_layer_indices": None}).layers[0].count == n


def test_bamba_refuses_by_name():
    c = json.loads(BAMBA.read_text(encoding="utf-8"))
    for change, pattern in [({"attn_layer_indices": [9, 40]}, "'attn_layer_indices' must list"),
                            ({"mamba_n_heads": 100},
                             "'mamba_n_heads' x 'mamba_d_head' \\(100 x 64\\)"),
                            ({"hidden_act": "gelu"}, "'hidden_act' = 'gelu' is not supported"),
                            ({"num_experts": 8}, "'num_experts' = 8")]:
        with pytest.raises(ConfigError, match=pattern):
            read_config({**c, **change})


# ---- Grok-2: eight experts beside a dense MLP, read by its architecture (FAMILIES.md 17.25) ----
GROK_2 = CONFIGS / "reconstructed" / "grok-2.json"


def test_grok2_equals_a_count_by_hand_and_the_hub_discussions_total():
    # transformers 5.24.0 defines no Grok: the count by hand from SGLang's grok.py (17.25)
    c, m = json.loads(GROK_2.read_text()), read_config(GROK_2)
    assert c["model_type"] == "git" and m.family == "grok-1"  # read by Grok1ForCausalLM
    d, h, kv, dh = (c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"],
                    c["head_dim"])
    attn = 2 * d * h * dh + 2 * d * kv * dh
    expert, dense = 3 * d * c["moe_intermediate_size"], 3 * d * c["intermediate_size"]
    e, k = c["num_local_experts"], c["num_experts_per_tok"]
    block = attn + e * expert + d * e + dense + 4 * d  # router d x E, four norms
    tables = 2 * c["vocab_size"] * d  # embedding and lm_head apart
    assert m.total_params == c["num_hidden_layers"] * block + tables + d
    assert m.total_params == 269_515_497_472  # the Hub discussion's total (SOURCES.md 30)
    active = attn + k * expert + d * e + dense + 4 * d
    assert m.active_params == c["num_hidden_layers"] * active + tables + d
    assert round(m.active_params / 1e9) == 115  # the discussion's ~115B
    # 64 layers, K and V of 8 heads of 128 at 2 bytes
    assert m.kv_cache_bytes_per_token() == 64 * 2 * 8 * 128 * 2


def test_grok_dense_mlp_is_a_shared_expert_only_with_residual_moe():
    c = json.loads(GROK_2.read_text())
    plain = read_config({**c, "residual_moe": False})
    d = c["hidden_size"]
    assert read_config(c).total_params - plain.total_params == 64 * 3 * d * 32768
    assert read_config(c).active_params - plain.active_params == 64 * 3 * d * 32768
    # without moe_intermediate_size the experts take intermediate_size (SGLang's getattr)
    wide = {k: v for k, v in c.items() if k != "moe_intermediate_size"}
    assert read_config(wide).layers[0].mlp.d_ff == 32768
    # SGLang's default head width is 128 whatever d / H is
    assert read_config({k: v for k, v in c.items() if k != "head_dim"}).layers[0].attention.d_head == 128


@pytest.mark.parametrize("change, field", [
    ({"sliding_window_size": 4096}, "sliding_window_size"),
    ({"global_attn_every_n": 4}, "global_attn_every_n"),
    ({"tie_word_embeddings": True}, "tie_word_embeddings"),
    ({"attention_bias": True}, "attention_bias"),
    ({"num_experts": 8}, "num_experts"),
    ({"n_shared_experts": 1}, "n_shared_experts"),
])
def test_grok_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(GROK_2.read_text())
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


# ---- Qwen2-MoE: a gated shared expert beside fine-grained routed ones (FAMILIES.md 17.26) ------
QWEN2_57B = CONFIGS / "reconstructed" / "qwen2-57b-a14b.json"
QWEN15_MOE = CONFIGS / "reconstructed" / "qwen1.5-moe-a2.7b.json"


def _qwen2_moe_by_hand(c: dict) -> tuple[int, int]:
    d, h, kv = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
    dh = d // h
    attn = 2 * d * h * dh + 2 * d * kv * dh + h * dh + 2 * kv * dh  # q/k/v biases, o none
    expert = 3 * d * c["moe_intermediate_size"]
    e, k = c["num_experts"], c["num_experts_per_tok"]
    rest = 3 * d * c["shared_expert_intermediate_size"] + d * e + d + 2 * d  # shared, router,
    n, tables = c["num_hidden_layers"], 2 * c["vocab_size"] * d             # its gate, 2 norms
    return (n * (attn + e * expert + rest) + tables + d,
            n * (attn + k * expert + rest) + tables + d)


@pytest.mark.parametrize("path", [QWEN2_57B, QWEN15_MOE], ids=lambda p: p.stem)
def test_qwen2_moe_equals_the_meta_count_and_a_count_by_hand(path):
    c, t, m = json.loads(path.read_text()), truth(path), read_config(path)
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    total, active = _qwen2_moe_by_hand(c)
    assert (m.total_params, m.active_params) == (total, active)
    # the meta count's routed experts, k of E of them used by a token
    e, k = c["num_experts"], c["num_experts_per_tok"]
    assert m.active_params == t["params"] - t["routed_expert_params"] * (e - k) // e


def test_qwen2_moe_published_sizes_and_cache():
    big, small = read_config(QWEN2_57B), read_config(QWEN15_MOE)
    # the name's 57B total and 14B active (57.41B, 14.25B)
    assert int(big.total_params / 1e9) == 57 and int(big.active_params / 1e9) == 14
    # Qwen1.5-MoE-A2.7B's card: "14.3B parameters in total and 2.7B activated"
    assert round(small.total_params / 1e8) == 143 and round(small.active_params / 1e8) == 27
    # 28 layers, K and V of 4 heads of 128 at 2 bytes; 24 layers of 16 heads of 128
    assert big.kv_cache_bytes_per_token() == 28 * 2 * 4 * 128 * 2
    assert small.kv_cache_bytes_per_token() == 24 * 2 * 16 * 128 * 2


def test_qwen2_moe_sparse_step_and_dense_layers():
    c = json.loads(QWEN15_MOE.read_text())
    dense = 3 * 2048 * 5632
    moe = 60 * 3 * 2048 * 1408 + 3 * 2048 * 5632 + 2048 * 60 + 2048
    base = read_config(c).total_params
    # every second layer a mixture: 12 layers turn dense
    assert base - read_config({**c, "decoder_sparse_step": 2}).total_params == 12 * (moe - dense)
    # mlp_only_layers: those layers dense whatever the step
    assert base - read_config({**c, "mlp_only_layers": [0, 5]}).total_params == 2 * (moe - dense)
    # qkv_bias false drops the q, k and v biases
    assert base - read_config({**c, "qkv_bias": False}).total_params == 24 * 3 * 2048


@pytest.mark.parametrize("change, field", [
    ({"use_sliding_window": True}, "use_sliding_window"),
    ({"layer_types": ["sliding_attention"] * 24}, "layer_types"),
    ({"mlp_only_layers": [24]}, "mlp_only_layers"),
    ({"num_experts_per_tok": 61}, "num_experts_per_tok"),
    ({"n_shared_experts": 2}, "n_shared_experts"),
    ({"use_qk_norm": True}, "use_qk_norm"),
])
def test_qwen2_moe_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(QWEN15_MOE.read_text())
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


# ---- DBRX: fused Wqkv, 16 experts top 4, bias-free LayerNorms (FAMILIES.md 17.27) --------------
DBRX = CONFIGS / "reconstructed" / "dbrx-instruct.json"


def test_dbrx_equals_the_meta_count_and_a_count_by_hand():
    c, t, m = json.loads(DBRX.read_text()), truth(DBRX), read_config(DBRX)
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    d, h, kv = c["d_model"], c["n_heads"], c["attn_config"]["kv_n_heads"]
    dh = d // h
    f, e, k = (c["ffn_config"][key] for key in ("ffn_hidden_size", "moe_num_experts", "moe_top_k"))
    attn = d * (d + 2 * kv * dh) + d * d  # Wqkv, out_proj
    rest = attn + d * e + 2 * d  # router, two bias-free LayerNorms
    n, tables = c["n_layers"], 2 * c["vocab_size"] * d
    assert m.total_params == n * (rest + e * 3 * f * d) + tables + d
    assert m.active_params == n * (rest + k * 3 * f * d) + tables + d
    assert m.active_params == t["params"] - t["routed_expert_params"] * (e - k) // e
    # Databricks: "132B total parameters of which 36B are active" (131.6B, 36.5B)
    assert round(m.total_params / 1e9) == 132 and int(m.active_params / 1e9) == 36
    # 40 layers, K and V of 8 heads of 128 at 2 bytes
    assert m.kv_cache_bytes_per_token() == 40 * 2 * 8 * 128 * 2


def test_dbrx_reads_the_generic_names_dbrx_config_maps():
    c = json.loads(DBRX.read_text())
    same = {k: v for k, v in c.items() if k not in ("d_model", "n_layers")}
    same.update(hidden_size=6144, num_hidden_layers=40)
    assert read_config(same).total_params == read_config(c).total_params


@pytest.mark.parametrize("change, field", [
    ({"tie_word_embeddings": True}, "tie_word_embeddings"),
    ({"hidden_size": 4096}, "hidden_size"),
    ({"n_heads": 40}, "n_heads"),
    ({"ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 17}},
     "moe_top_k"),
    ({"ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 4,
                     "moe_shared_expert_intermediate_size": 1024}},
     "moe_shared_expert_intermediate_size"),
    ({"attn_config": 8}, "attn_config"),
    ({"num_local_experts": 16}, "num_local_experts"),
])
def test_dbrx_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(DBRX.read_text())
# ---- Step3: a low-rank query over one key/value head, a mixture with a shared expert -----------
# (FAMILIES.md 17.29; transformers 5.24.0 has no step3 model: counted by hand from vLLM's code)
STEP3 = CONFIGS / "reconstructed" / "step3.json"


def test_step3_by_hand_from_vllms_modules():
    c, m = json.loads(STEP3.read_text(encoding="utf-8")), read_config(STEP3)
    assert m.family == "step3_text"
    assert "step3_text" in truth(STEP3)["error"]  # no meta count: transformers lacks the family
    d, r, h, dh, v = (c["hidden_size"], c["share_q_dim"], c["num_attention_heads"],
                      c["head_dim"], c["vocab_size"])
    # vLLM's Step3TextAttention: qkv_proj d -> r + 2 dh, inter_norm(r), wq r -> H dh, o_proj
    attn = d * (r + 2 * dh) + r + r * h * dh + h * dh * d
    expert = 3 * d * c["moe_intermediate_size"]
    e, k = c["moe_num_experts"], c["moe_top_k"]
    moe_at = [int(i) for i in c["moe_layers_enum"].split(",")]
    n_moe, n = len(moe_at), c["num_hidden_layers"]
    assert (n_moe, n - n_moe) == (56, 5)  # the card: 61 layers, 5 of them dense
    dense_layer = attn + 3 * d * c["intermediate_size"] + 2 * d
    moe_fixed = attn + d * e + 3 * d * c["share_expert_dim"] + 2 * d  # router, shared expert
    tables = 2 * v * d + d  # embedding, untied head, final norm
    total = (n - n_moe) * dense_layer + n_moe * (moe_fixed + e * expert) + tables
    active = (n - n_moe) * dense_layer + n_moe * (moe_fixed + k * expert) + tables
    assert m.total_params == total == 316_294_538_240
    assert m.active_params == active == 38_841_328_640
    # the card: 316B (LLM), 38B active, the latter without the input table (37.92B)
    assert round(total / 1e9) == 316 and round((active - v * d) / 1e9) == 38
    # one key and one value head of 256 a layer, 2 bytes each
    assert m.kv_cache_bytes_per_token() == n * 2 * dh * 2 == 62_464
    att = m.layers[0].attention
    assert (att.kind, att.q_lora_rank, att.matmul_params(d)) == ("MQA", 2048, attn - r)


def test_step3_query_rank_follows_share_q_dim():
    c = json.loads(STEP3.read_text(encoding="utf-8"))
    full, n, d = read_config(c).total_params, c["num_hidden_layers"], c["hidden_size"]
    per = c["num_attention_heads"] * c["head_dim"]
    # a rank of 1,024: the down-projection, its norm and the up-projection shrink
    assert full - read_config({**c, "share_q_dim": 1024}).total_params == \
        n * 1024 * (d + 1 + per)
    # null: vLLM's q_size falls back to head_dim (256); absent: Step3TextConfig's 2,048
    assert read_config({**c, "share_q_dim": None}).layers[0].attention.q_lora_rank == 256
    rest = {key: val for key, val in c.items() if key != "share_q_dim"}
    assert read_config(rest).total_params == full


@pytest.mark.parametrize("change, field", [
    ({"num_attention_groups": 8}, "num_attention_groups"),
    ({"num_key_value_heads": 8}, "num_key_value_heads"),
    ({"moe_layers_enum": None}, "moe_layers_enum"),
    ({"moe_layers_enum": "4,5,61"}, "moe_layers_enum"),
    ({"hidden_act": "gelu"}, "hidden_act"),
    ({"attention_bias": True}, "attention_bias"),
    ({"tie_word_embeddings": True}, "tie_word_embeddings"),
    ({"moe_top_k": 64}, "moe_top_k"),
    ({"n_shared_experts": 2}, "n_shared_experts"),
    ({"q_lora_rank": 1536}, "q_lora_rank"),
])
def test_step3_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(STEP3.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


# ---- Granite 3.x: Llama's block with muP multipliers (FAMILIES.md 17.28) -----------------------
GRANITE_33_8B = CONFIGS / "reconstructed" / "granite-3.3-8b-instruct.json"


def test_granite_equals_the_meta_count_and_a_count_by_hand():
    c, t, m = json.loads(GRANITE_33_8B.read_text()), truth(GRANITE_33_8B), read_config(GRANITE_33_8B)
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    d, h, kv = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
    dh = d // h
    block = 2 * d * h * dh + 2 * d * kv * dh + 3 * d * c["intermediate_size"] + 2 * d
    assert m.total_params == c["num_hidden_layers"] * block + c["vocab_size"] * d + d  # tied
    assert int(m.total_params / 1e9) == 8  # the name's 8B (8.17B)
    # 40 layers, K and V of 8 heads of 128 at 2 bytes
    assert m.kv_cache_bytes_per_token() == 40 * 2 * 8 * 128 * 2


def test_granite_multipliers_count_nothing_and_biases_do():
    c = json.loads(GRANITE_33_8B.read_text())
    plain = {**c, "embedding_multiplier": 1.0, "attention_multiplier": 1.0,
             "residual_multiplier": 1.0, "logits_scaling": 1.0}
    assert read_config(plain).total_params == read_config(c).total_params
    biased = read_config({**c, "attention_bias": True, "mlp_bias": True})
    # q/k/v/o biases (4,096 + 2 x 1,024 + 4,096) and gate/up/down biases (2 x 12,800 + 4,096)
    assert biased.total_params - read_config(c).total_params == 40 * (10240 + 29696)
    untied = read_config({**c, "tie_word_embeddings": False})
    assert untied.total_params - read_config(c).total_params == 49159 * 4096


@pytest.mark.parametrize("change, field", [
    ({"layer_types": ["sliding_attention"] * 40}, "layer_types"),
    ({"num_local_experts": 8}, "num_local_experts"),
    ({"use_qk_norm": True}, "use_qk_norm"),
])
def test_granite_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(GRANITE_33_8B.read_text())
def test_a_low_rank_query_is_refused_with_what_it_does_not_model():
    from llm_arithmetic.catalog.model import Attention
    for extra in ({"qkv_bias": True}, {"gate": 1}, {"qk_norm": "head"}, {"sinks": True}):
        with pytest.raises(ConfigError, match="low-rank query"):
            Attention(64, 1, 256, q_lora_rank=2048, **extra).validate("x")


# ---- MiniCPM3: latent attention with muP scalings, tied embeddings (FAMILIES.md 17.30) ---------
MINICPM3 = CONFIGS / "reconstructed" / "minicpm3-4b.json"


def test_minicpm3_equals_the_meta_count_and_a_count_by_hand():
    c, t, m = json.loads(MINICPM3.read_text(encoding="utf-8")), truth(MINICPM3), read_config(MINICPM3)
    assert m.family == "minicpm3" and m.tied
    assert m.total_params == t["params"] == 4_073_875_968 and t["persistent_buffers"] == 0
    d, h, n, v = c["hidden_size"], c["num_attention_heads"], c["num_hidden_layers"], c["vocab_size"]
    rq, rkv, nope, rope, dv = (c["q_lora_rank"], c["kv_lora_rank"], c["qk_nope_head_dim"],
                               c["qk_rope_head_dim"], d // h)
    mla = (d * rq + rq + rq * h * (nope + rope) + d * (rkv + rope) + rkv
           + rkv * h * (nope + dv) + h * dv * d)
    block = mla + 3 * d * c["intermediate_size"] + 2 * d
    assert m.total_params == n * block + d + v * d  # one tied table
    assert round(m.total_params / 1e9) == 4  # the name's 4B (4.07B)
    # a latent of 256 and one rotary key of 32 a layer, 2 bytes each
    assert m.kv_cache_bytes_per_token() == n * (rkv + rope) * 2 == 35_712


def test_minicpm3_mup_scalings_change_no_count():
    c = json.loads(MINICPM3.read_text(encoding="utf-8"))
    base = read_config(c).total_params
    for change in ({"scale_emb": 1}, {"scale_depth": None}, {"dim_model_base": 2560},
                   {"head_dim": 96}):
        assert read_config({**c, **change}).total_params == base
    # untied: one more table; a null q_lora_rank: a full-rank query projection
    assert read_config({**c, "tie_word_embeddings": False}).total_params == base + 73448 * 2560
    full = read_config({**c, "q_lora_rank": None}).total_params
    assert full - base == 62 * (2560 * 40 * 96 - (2560 * 768 + 768 + 768 * 40 * 96))


@pytest.mark.parametrize("change, field", [
    ({"attention_bias": True}, "attention_bias"),
    ({"mlp_bias": True}, "mlp_bias"),
    ({"num_experts": 8}, "num_experts"),
    ({"layer_types": ["sliding_attention"] * 62}, "layer_types"),
])
def test_minicpm3_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(MINICPM3.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


# ---- MiniCPM (1, 2, 4): Llama's block with muP scalings, a tied head (FAMILIES.md 17.31) -------
MINICPM_2B = CONFIGS / "minicpm-2b-dpo-bf16.json"


def test_minicpm_by_hand_and_the_cards_non_embedding_count():
    c, m = json.loads(MINICPM_2B.read_text(encoding="utf-8")), read_config(MINICPM_2B)
    assert m.family == "minicpm" and m.tied  # MiniCPMConfig ties the head by default
    assert "minicpm" in truth(MINICPM_2B)["error"]  # transformers 5.24.0 lacks the family
    d, n, v, h, kv = (c["hidden_size"], c["num_hidden_layers"], c["vocab_size"],
                      c["num_attention_heads"], c["num_key_value_heads"])
    dh = d // h
    block = 2 * d * h * dh + 2 * d * kv * dh + 3 * d * c["intermediate_size"] + 2 * d
    assert m.total_params == n * block + d + v * d == 2_724_880_896
    # the card: "only 2.4B parameters excluding embeddings" (2.7B with the one tied table)
    assert round((m.total_params - v * d) / 1e8) == 24
    assert m.kv_cache_bytes_per_token() == n * 2 * kv * dh * 2 == 368_640


def test_minicpm_moe_untied_and_gqa_files_are_read():
    c = json.loads(MINICPM_2B.read_text(encoding="utf-8"))
    base = read_config(c).total_params
    d, ff, n = 2304, 5760, 40
    # MiniCPM-MoE's layout: E experts of intermediate_size and a router, k a token
    moe = read_config({**c, "num_experts": 8, "num_experts_per_tok": 2})
    assert moe.total_params - base == n * (7 * 3 * d * ff + d * 8)
    assert moe.total_params - moe.active_params == n * 6 * 3 * d * ff
    assert read_config({**c, "tie_word_embeddings": False}).total_params == base + 122753 * d
    for change in ({"scale_emb": 1}, {"scale_depth": 1.0}, {"dim_model_base": 1},
                   {"kv_channels": 64}):
        assert read_config({**c, **change}).total_params == base


@pytest.mark.parametrize("change, field", [
    ({"sparse_config": {"kernel_size": 32, "topk": 64, "block_size": 64}}, "sparse_config"),
    ({"use_sliding_window": True}, "use_sliding_window"),
    ({"kv_channels": 128}, "kv_channels"),
    ({"hidden_act": "fatrelu"}, "hidden_act"),
    ({"mlp_bias": True}, "mlp_bias"),
    ({"num_experts": 4, "num_experts_per_tok": 8}, "num_experts_per_tok"),
    ({"q_lora_rank": 768}, "q_lora_rank"),
])
def test_minicpm_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(MINICPM_2B.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


# ---- InternLM3: Llama's block, biases by qkv_bias and bias (FAMILIES.md 17.32) -----------------
INTERNLM3 = CONFIGS / "internlm3-8b-instruct.json"


def test_internlm3_equals_the_meta_count_and_a_count_by_hand():
    c, t, m = json.loads(INTERNLM3.read_text(encoding="utf-8")), truth(INTERNLM3), read_config(INTERNLM3)
    assert m.family == "internlm3" and not m.tied
    assert m.total_params == t["params"] == 8_804_241_408 and t["persistent_buffers"] == 0
    d, h, kv, dh, v = (c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"],
                       c["head_dim"], c["vocab_size"])
    block = 2 * d * h * dh + 2 * d * kv * dh + 3 * d * c["intermediate_size"] + 2 * d
    assert m.total_params == c["num_hidden_layers"] * block + d + 2 * v * d
    assert int(m.total_params / 1e9) == 8  # the name's 8B (8.80B)
    assert m.kv_cache_bytes_per_token() == 48 * 2 * 2 * 128 * 2 == 49_152


def test_internlm3_biases_follow_qkv_bias_and_bias():
    c = json.loads(INTERNLM3.read_text(encoding="utf-8"))
    # transformers 5.24.0's meta count of this file with qkv_bias and bias true (the Llama
    # implementation: biases on q, k, v, o and on gate, up, down), computed once here:
    # 8,805,838,848
    both = read_config({**c, "qkv_bias": True, "bias": True}).total_params
    assert both == 8_805_838_848
    assert both - read_config(c).total_params == 48 * (4096 + 2 * 256 + 4096 + 2 * 10240 + 4096)
    assert read_config({**c, "attention_bias": True, "mlp_bias": True,
                        "qkv_bias": None, "bias": None}).total_params == both


@pytest.mark.parametrize("change, field", [
    ({"qkv_bias": True}, "qkv_bias"),
    ({"qkv_bias": True, "attention_bias": False}, "attention_bias"),
    ({"num_experts": 8}, "num_experts"),
    ({"layer_types": ["sliding_attention"] * 48}, "layer_types"),
])
def test_internlm3_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(INTERNLM3.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})
# ---- GLM-4.5V: GLM-4.5-Air behind a vision encoder (FAMILIES.md 17.33) -------------------------
GLM45V = CATALOG / "glm-4.5v" / "config.json"


def test_glm4v_moe_equals_the_meta_count_and_the_checkpoint():
    t, m = truth(GLM45V), read_config(GLM45V)
    assert m.family == "glm4v_moe"
    assert t["how"] == "Glm4vMoeForConditionalGeneration(config)"
    assert t["persistent_buffer_names"] == {"e_score_correction_bias": 45 * 128}
    assert m.total_params == t["params"] + t["persistent_buffers"]
    # the checkpoint's safetensors tensors summed, as a published report lists them (SOURCES.md
    # section 38): 107,710,933,120
    assert m.total_params == 107_710_933_120
    assert round(m.total_params / 1e9) == 108  # the Hub's listing: 108B
    (tower,) = m.extras
    assert tower.in_total and tower.params == t["by_prefix"]["model.visual"]


def test_glm4v_moe_vision_tower_by_hand():
    c = json.loads(GLM45V.read_text(encoding="utf-8"))["vision_config"]
    h, o, i, n = c["hidden_size"], c["out_hidden_size"], c["intermediate_size"], c["depth"]
    p, t, m = c["patch_size"], c["temporal_patch_size"], c["spatial_merge_size"]
    positions = (c["image_size"] // p) ** 2 * h
    patch = 3 * t * p * p * h + h  # Conv3d with bias
    block = 2 * h + 3 * h * h + h * h + 3 * h * o  # norms, qkv, proj, gated MLP h -> o -> h
    around = h + (h * m * m * o + o) + h  # post_layernorm, downsample Conv2d, post_conv_layernorm
    merger = o * o + 2 * o + 3 * o * i  # proj, LayerNorm with bias, gated MLP o -> i -> o
    tower = positions + patch + n * block + around + merger
    assert tower == 858_681_856
    assert read_config(GLM45V).extras[0].params == tower
    # the attribute map's spellings count the same
    cfg = json.loads(GLM45V.read_text(encoding="utf-8"))
    v = cfg["vision_config"]
    v["num_hidden_layers"], v["num_attention_heads"] = v.pop("depth"), v.pop("num_heads")
    assert read_config(cfg).extras[0].params == tower


def test_glm4v_moe_language_model_is_glm_4_5_air():
    vl = read_config(GLM45V)
    text = json.loads(GLM45V.read_text(encoding="utf-8"))["text_config"]
    air = read_config({**text, "model_type": "glm4_moe"})
    # the tower counts in the total, not in what a generated token reads
    assert vl.total_params - vl.extras[0].params == air.total_params
    assert vl.active_params == air.active_params == 13_424_129_664
    # the card's 12B active leaves out both vocabulary tables (GLM-4.5-Air's convention)
    assert round((vl.active_params - 2 * 151_552 * 4096) / 1e9) == 12
    assert vl.kv_cache_bytes_per_token() == 46 * 2 * 8 * 128 * 2 == 188_416


def test_glm4v_moe_ties_the_head_when_either_config_says_so():
    c = json.loads(GLM45V.read_text(encoding="utf-8"))
    untied = read_config(c).total_params
    c["text_config"]["tie_word_embeddings"] = True  # Glm4vMoeConfig then ties the wrapper too
    assert untied - read_config(c).total_params == 151_552 * 4096


def test_glm4v_moe_refuses_by_name():
    c = json.loads(GLM45V.read_text(encoding="utf-8"))
    for part, change, pattern in [
            ("text_config", {"use_qk_norm": True}, "field 'use_qk_norm' = True"),
            ("text_config", {"num_nextn_predict_layers": 1}, "field 'num_nextn_predict_layers'"),
            ("text_config", {"q_lora_rank": 512}, "field 'q_lora_rank'"),
            ("vision_config", {"out_hidden_size": 2048}, "field 'out_hidden_size' \\(2048\\)"),
            # the class reads num_hidden_layers as depth (its attribute_map): two that disagree
            ("vision_config", {"num_hidden_layers": 30},
             "fields 'depth' \\(24\\) and 'num_hidden_layers' \\(30\\)")]:
        bad = json.loads(json.dumps(c))
        bad[part].update(change)
        with pytest.raises(ConfigError, match=pattern):
            read_config(bad)


# ---- ERNIE-4.5-VL: text and vision expert pools (FAMILIES.md 17.34) -----------------------------
ERNIE_VL = CATALOG / "ernie-4.5-vl-28b-a3b" / "config.json"


def test_ernie4_5_vl_moe_equals_the_meta_count():
    t, m = truth(ERNIE_VL), read_config(ERNIE_VL)
    assert m.family == "ernie4_5_vl_moe"
    assert t["how"] == "Ernie4_5_VLMoeForConditionalGeneration(config)"
    assert m.total_params == t["params"] == 29_399_294_336 and t["persistent_buffers"] == 0
    assert round(m.total_params / 1e9) == 29  # the Hub's listing: 29B
    tower = next(e for e in m.extras if e.name.startswith("vision tower"))
    assert tower.params == t["by_prefix"]["model.vision_tower"] + \
        t["by_prefix"]["model.resampler_model"]


def test_ernie4_5_vl_moe_active_parameters_are_a_text_tokens():
    c = json.loads(ERNIE_VL.read_text(encoding="utf-8"))["text_config"]
    d, v, n, e, k = 2560, c["vocab_size"], c["num_hidden_layers"], 64, 6
    text_w, vision_w = c["moe_intermediate_size"]
    attn = d * 20 * 128 * 2 + d * 4 * 128 * 2
    router = d * e + e  # fp32 weights and the score-correction bias
    shared = 3 * d * 2 * text_w
    moe_layers = c["mlp_layer_types"].count("sparse")
    text_token = (v * d + n * (attn + 2 * d) + d + 3 * d * c["intermediate_size"]
                  + moe_layers * (router + shared + k * 3 * d * text_w))
    m = read_config(ERNIE_VL)
    # the convention: every generated token is text, so it uses the text pool
    assert m.active_params == text_token == 3_352_150_208
    assert round(m.active_params / 1e9) == 3  # "A3B"
    # an image token would use the vision pool instead: the other number, by hand
    image_token = text_token - moe_layers * k * 3 * d * (text_w - vision_w)
    assert image_token == 2_078_130_368
    # the vision pools are in the total, named with the convention, and read by no decode step
    pools = next(x for x in m.extras if x.name.startswith("vision experts"))
    assert "active: a text token's experts" in pools.name and pools.in_total and not pools.read
    assert pools.params == moe_layers * (router + e * 3 * d * vision_w) == 6_799_197_888
    assert m.kv_cache_bytes_per_token() == n * 2 * 4 * 128 * 2 == 57_344


def test_ernie4_5_vl_moe_refuses_by_name():
    c = json.loads(ERNIE_VL.read_text(encoding="utf-8"))
    for part, change, pattern in [
            ("text_config", {"use_bias": True}, "field 'use_bias' = true"),
            ("text_config", {"moe_intermediate_size": 1536}, "'moe_intermediate_size' must list"),
            ("text_config", {"moe_layer_interval": 2}, "field 'moe_layer_interval' = 2"),
            ("text_config", {"num_experts": 32}, "'moe_num_experts' \\(64\\) and 'num_experts'"),
            ("text_config", {"mlp_layer_types": ["dense"] * 27}, "'mlp_layer_types' has 27"),
            ("vision_config", {"num_hidden_layers": 24}, "'depth' \\(32\\) and 'num_hidden")]:
        bad = json.loads(json.dumps(c))
        bad[part].update(change)
        with pytest.raises(ConfigError, match=pattern):
            read_config(bad)
    # the attribute map's names read as the experts' own
    same = json.loads(json.dumps(c))
    t = same["text_config"]
    t["num_experts"], t["num_experts_per_tok"] = t.pop("moe_num_experts"), t.pop("moe_k")
    assert read_config(same).total_params == read_config(c).total_params


# ---- Kimi-VL: MoonViT and a DeepSeek-V3-layout MoE (FAMILIES.md 17.35) ---------------------------
KIMI_VL = CONFIGS / "reconstructed" / "kimi-vl-a3b-instruct.json"


def test_kimi_vl_language_model_equals_the_meta_count_of_its_text_config():
    t, m = truth(KIMI_VL), read_config(KIMI_VL)
    # the catalog's file is a byte copy of this one
    assert (CATALOG / "kimi-vl-a3b-instruct" / "config.json").read_bytes() == KIMI_VL.read_bytes()
    assert m.family == "kimi_vl"
    assert "kimi_vl" in t["error"]  # transformers 5.24.0 has no class: the text model alone
    text = t["text_config"]
    (tower,) = m.extras
    assert m.total_params - tower.params == text["params"] + text["persistent_buffers"]
    assert text["persistent_buffer_names"] == {"e_score_correction_bias": 26 * 64}
    assert m.total_params == 16_407_656_048
    assert round(m.total_params / 1e9) == 16  # the Hub's listing and the README: 16B
    assert round(m.active_params / 1e9) == 3  # "A3B"
    assert m.kv_cache_bytes_per_token() == 27 * (512 + 64) * 2 == 31_104
    # the Thinking checkpoint's seven bf16 shards, as the Hub lists them (0.01 GB each):
    # 4.99 + 5 x 5 + 2.84 = 32.83 GB; a head tied to the input table would be 0.67 GB less
    shards = 4.99 + 5 * 5 + 2.84
    assert abs(2 * m.total_params / 1e9 - shards) < 7 * 0.005
    assert abs(2 * (m.total_params - 163_840 * 2048) / 1e9 - shards) > 0.5


def test_kimi_vl_tower_and_projector_by_hand():
    v = json.loads(KIMI_VL.read_text(encoding="utf-8"))["vision_config"]
    h, i, n, p = v["hidden_size"], v["intermediate_size"], v["num_hidden_layers"], v["patch_size"]
    block = 2 * 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + (h * i + i) + (i * h + h)
    tower = (3 * p * p * h + h) + 64 * 64 * h + n * block + 2 * h
    assert round(tower / 1e8) == 4  # MoonViT-SO-400M: "0.4B"
    hm = h * 2 * 2
    projector = 2 * h + (hm * hm + hm) + (hm * 2048 + 2048)
    assert read_config(KIMI_VL).extras[0].params == tower + projector == 447_545_840


def test_kimi_vl_refuses_by_name():
    c = json.loads(KIMI_VL.read_text(encoding="utf-8"))
    for part, change, pattern in [
            ("vision_config", {"num_attention_heads": 7}, "field 'num_attention_heads' \\(7\\)"),
            ("vision_config", {"merge_kernel_size": [2]}, "'merge_kernel_size' must be two"),
            ("vision_config", {"text_hidden_size": 4096}, "'mm_hidden_size' and 'text_hidden"),
            ("text_config", {"index_topk": 2048}, "field 'index_topk' = 2048")]:
        bad = json.loads(json.dumps(c))
        bad[part].update(change)
        with pytest.raises(ConfigError, match=pattern):
            read_config(bad)


# ---- Qwen2.5-VL: Qwen2.5 behind a window-attention ViT (FAMILIES.md 17.36) --------------------
QWEN25VL_3B = CATALOG / "qwen2.5-vl-3b-instruct" / "config.json"  # the Hub's flat file
QWEN25VL_7B = CONFIGS / "reconstructed" / "qwen2.5-vl-7b-instruct.json"  # text_config form


@pytest.mark.parametrize("path", [QWEN25VL_3B, QWEN25VL_7B], ids=["3b", "7b"])
def test_qwen2_5_vl_equals_the_meta_count(path):
    t, m = truth(path), read_config(path)
    assert m.family == "qwen2_5_vl"
    assert t["how"] == "Qwen2_5_VLForConditionalGeneration(config)"
    assert t["persistent_buffers"] == 0
    assert m.total_params == t["params"]
    (tower,) = m.extras
    assert tower.in_total and tower.params == t["by_prefix"]["model.visual"]
    # the tower counts in the total, not in what a generated token reads
    assert m.active_params == m.total_params - tower.params


def test_qwen2_5_vl_tower_by_hand():
    v = json.loads(QWEN25VL_3B.read_text(encoding="utf-8"))["vision_config"]
    h, i, n, o = v["hidden_size"], v["intermediate_size"], v["depth"], v["out_hidden_size"]
    p, t, m = v["patch_size"], v["temporal_patch_size"], v["spatial_merge_size"]
    patch = 3 * t * p * p * h  # Conv3d without bias; rotary positions, no table
    # two RMSNorms, qkv and proj with biases, a gated MLP with biases (gate, up, down)
    block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + 2 * (h * i + i) + (i * h + h)
    hm = h * m * m
    merger = h + (hm * hm + hm) + (hm * o + o)  # RMSNorm over h, then two linears with biases
    assert block == 19_702_200  # a published layer summary's per-block count (SOURCES.md 41)
    assert merger - h == 36_707_328  # and its merger MLP
    tower = patch + n * block + merger
    assert tower == 668_684_288
    assert read_config(QWEN25VL_3B).extras[0].params == tower
    # the Hub's 0.7B for the tower alone (a checkpoint of the 3B's visual part)
    assert round(tower / 1e8) == 7


def test_qwen2_5_vl_language_model_is_qwen2_5():
    for path, text_model in [(QWEN25VL_3B, "qwen2.5-3b"), (QWEN25VL_7B, "qwen2.5-7b")]:
        vl, lm = read_config(path), get_model_by_name(text_model)
        assert vl.total_params - vl.extras[0].params == lm.total_params
        assert vl.kv_cache_bytes_per_token() == lm.kv_cache_bytes_per_token()
    assert read_config(QWEN25VL_3B).kv_cache_bytes_per_token() == 36 * 2 * 2 * 128 * 2 == 36_864
    assert read_config(QWEN25VL_7B).kv_cache_bytes_per_token() == 28 * 2 * 4 * 128 * 2 == 57_344


def test_qwen2_5_vl_3b_checkpoint_shards():
    m = read_config(QWEN25VL_3B)
    # Qwen/Qwen2.5-VL-3B-Instruct's two bf16 shards as the Hub lists them (0.01 GB each):
    # 3.98 + 3.53 = 7.51 GB, the tied head stored once; an untied head would add 0.62 GB
    assert abs(2 * m.total_params / 1e9 - (3.98 + 3.53)) < 2 * 0.005
    assert m.tied
    assert round(m.total_params / 1e9) == 4  # the Hub's "4B params" for this shape


def test_qwen2_5_vl_flat_and_nested_forms_agree():
    flat = json.loads(QWEN25VL_3B.read_text(encoding="utf-8"))
    keys = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
            "num_attention_heads", "num_key_value_heads", "max_position_embeddings",
            "tie_word_embeddings", "rope_scaling", "use_sliding_window", "max_window_layers")
    nested = {k: v for k, v in flat.items() if k not in keys}
    nested["text_config"] = {k: flat[k] for k in keys if k in flat}
    nested["text_config"]["model_type"] = "qwen2_5_vl_text"
    assert read_config(nested).total_params == read_config(flat).total_params
    # the tie stated in the text config alone still ties (the config class forwards it)
    assert read_config(nested).tied


def test_qwen2_5_vl_refuses_by_name():
    flat = json.loads(QWEN25VL_3B.read_text(encoding="utf-8"))
    nested = json.loads(QWEN25VL_7B.read_text(encoding="utf-8"))
    for cfg, part, change, pattern in [
            (flat, None, {"head_dim": 64}, "field 'head_dim' = 64 is not supported"),
            (flat, None, {"attention_bias": False}, "field 'attention_bias' = false"),
            (flat, None, {"num_experts": 8}, "field 'num_experts' = 8"),
            (flat, None, {"q_lora_rank": 512}, "field 'q_lora_rank'"),
            (flat, "vision_config", {"out_hidden_size": 3584},
             "field 'out_hidden_size' \\(3584\\)"),
            (flat, "vision_config", {"in_channels": 4},
             "fields 'in_chans' \\(3\\) and 'in_channels' \\(4\\)"),
            (flat, "vision_config", {"num_hidden_layers": 30},
             "fields 'depth' \\(32\\) and 'num_hidden_layers' \\(30\\)"),
            (flat, "vision_config", {"num_position_embeddings": 2304},
             "field 'num_position_embeddings'"),
            (nested, None, {"hidden_size": 4096},
             "field 'hidden_size' \\(4096\\) disagrees with 'text_config.hidden_size'"),
            (nested, "text_config", {"layer_types": ["sliding_attention"] * 28},
             "field 'layer_types' lists sliding layers")]:
        bad = json.loads(json.dumps(cfg))
        (bad[part] if part else bad).update(change)
# ---- Llama 3.2 Vision: cross-attention layers and a tiled image encoder (FAMILIES.md 17.38) -----
LLAMA32V = CATALOG / "llama-3.2-11b-vision-instruct" / "config.json"


def test_mllama_equals_the_meta_count():
    t, m = truth(LLAMA32V), read_config(LLAMA32V)
    assert m.family == "mllama"
    assert t["how"] == "MllamaForConditionalGeneration(config)"
    assert t["persistent_buffers"] == 0
    assert m.total_params == t["params"] == 10_670_220_835
    cross, rows, tower = m.extras
    assert all(e.in_total and not e.read for e in m.extras)
    assert tower.params == t["by_prefix"]["model.vision_model"] + t["by_prefix"][
        "model.multi_modal_projector"]
    # the language model: the self-attention stack, the cross-attention layers and the 8 rows
    # the embedding table has past vocab_size
    assert (m.total_params - tower.params - t["by_prefix"]["lm_head.weight"]
            == t["by_prefix"]["model.language_model"])
    assert rows.params == 8 * 4096
    # the card's "11B (10.6)": the name rounds the total, the card's figure cuts it to a tenth
    assert round(m.total_params / 1e9) == 11
    assert int(m.total_params / 1e8) == 106


def test_mllama_by_hand():
    d, hkv, dh, ff, v = 4096, 8, 128, 14336, 128256
    self_layer = 4096 * 4096 * 2 + 2 * 4096 * hkv * dh + 3 * d * ff + 2 * d
    cross_layer = (2 * d * d + 2 * d * hkv * dh  # q, o; k, v (on the image's states)
                   + 2 * dh + 3 * d * ff + 2 * d + 2)  # q/k norms, MLP, two norms, two gates
    text = (v + 8) * d + v * d + d + 32 * self_layer + 8 * cross_layer
    h, i, n = 1280, 5120, (560 // 14) ** 2 + 1  # a tile's 1,600 patches and the class token
    ids = 8 + 1  # supported_aspect_ratios and the padding id
    embed = (3 * 14 * 14 * h + h  # patch convolution, class embedding
             + 1 + n * h + ids * 4 * n * h  # gated positions: gate, table, tile table
             + 2 * (ids * 4 * h + 1)  # pre- and post-tile embeddings with their gates
             + 4 * h)  # layernorm_pre and layernorm_post with biases
    vit_layer = 4 * h * h + 4 * h + h * i + i + i * h + h
    vision = embed + 40 * vit_layer + 2 * 8  # 32 local and 8 global layers, 2 gates each global
    projector = 7680 * d + d
    m = read_config(LLAMA32V)
    assert m.total_params == text + vision + projector
    assert m.extras[0].params == 8 * cross_layer == 1_744_898_064
    assert m.extras[2].params == vision + projector == 895_028_755


def test_mllama_text_only_step_is_llama_3_1_8b():
    m = read_config(LLAMA32V)
    c = json.loads(LLAMA32V.read_text(encoding="utf-8"))["text_config"]
    c = {k: v for k, v in c.items() if k != "cross_attention_layers"}
    c.update(model_type="llama", num_hidden_layers=32)
    llama = read_config(c)
    # a text-only decode skips the cross-attention layers: Llama 3.1 8B's step and cache
    assert m.active_params == llama.total_params == 8_030_261_248
    assert round(m.active_params / 1e9, 2) == 8.03  # Llama 3.1 8B's card: 8.03B
    assert m.kv_cache_bytes_per_token() == 32 * 2 * 8 * 128 * 2 == 131_072


def test_mllama_one_image_decode():
    from llm_arithmetic.catalog.readers import mllama_image_decode
    c = json.loads(LLAMA32V.read_text(encoding="utf-8"))
    one = mllama_image_decode(c)
    # four tiles of 1,600 patches and a class token each (what the processor pads an image to)
    assert one["image_tokens"] == 4 * 1601 == 6404
    # 8 cross-attention layers x K and V x 8 heads x 128 x 6,404 tokens x 2 B, whatever the
    # text's length: 1,600 text tokens' worth of the self-attention cache
    assert one["cache_bytes"] == 8 * 2 * 8 * 128 * 6404 * 2 == 209_846_272
    assert one["cache_bytes"] == 1601 * read_config(c).kv_cache_bytes_per_token()
    # read per token: the cross-attention layers less k and v (applied once, to the image)
    assert one["weights"] == read_config(c).extras[0].params - 8 * 2 * 4096 * 8 * 128
    two = mllama_image_decode(c, images=2, kv_bits=8)
    assert two["cache_bytes"] == one["cache_bytes"] and two["weights"] == one["weights"]
    assert mllama_image_decode(c, tiles=1)["image_tokens"] == 1601


def test_mllama_refuses_by_name():
    c = json.loads(LLAMA32V.read_text(encoding="utf-8"))
    for part, change, pattern in [
            ("text_config", {"tie_word_embeddings": True}, "field 'tie_word_embeddings'"),
            ("text_config", {"mlp_bias": True}, "field 'mlp_bias' = True"),
            ("text_config", {"head_dim": 64}, "field 'head_dim' = 64"),
            ("text_config", {"cross_attention_layers": [3, 40]},
             "field 'cross_attention_layers'"),
            ("text_config", {"num_experts": 8}, "'num_experts' = 8"),
            ("vision_config", {"vision_output_dim": 6400}, "field 'vision_output_dim' \\(6400\\)"),
            ("vision_config", {"num_attention_heads": 20},
             "fields 'attention_heads' \\(16\\) and 'num_attention_heads' \\(20\\)")]:
        bad = json.loads(json.dumps(c))
        bad[part].update(change)
        with pytest.raises(ConfigError, match=pattern):
            read_config(bad)
    # a Llama file that carries cross-attention layers is refused by name, not counted as Llama
    text = {**c["text_config"], "model_type": "llama"}
    with pytest.raises(ConfigError, match="field 'cross_attention_layers'"):
        read_config(text)


# ---- InternVL 3: InternViT, a pixel-shuffle projector and Qwen2.5 (FAMILIES.md 17.39) -----------
INTERNVL3_1B = CATALOG / "internvl3-1b" / "config.json"


def test_internvl_equals_the_meta_count_with_the_checkpoints_head():
    t, m = truth(INTERNVL3_1B), read_config(INTERNVL3_1B)
    assert m.family == "internvl"
    assert t["how"] == "InternVLForConditionalGeneration(config)"
    assert not any(k.startswith("lm_head") for k in t["by_prefix"])  # tied by transformers 5
    head = 151674 * 896
    assert m.total_params == t["params"] + head == 938_193_024
    (tower,) = m.extras
    assert tower.in_total and tower.params == (t["by_prefix"]["model.vision_tower"]
                                               + t["by_prefix"]["model.multi_modal_projector"])
    # the Hub's InternVL3-1B-hf: one model.safetensors of 1.88 GB in bf16 (a tied head would
    # make it 1.60 GB)
    assert round(2 * m.total_params / 1e9, 2) == 1.88
    assert round(2 * (m.total_params - head) / 1e9, 2) == 1.60
    assert round(m.total_params / 1e9) == 1  # the name's 1B


def test_internvl_vision_by_hand():
    h, i, n, p = 1024, 4096, 24, 14
    patches = (448 // p) ** 2
    embed = h + 3 * p * p * h + h + (patches + 1) * h  # cls, Conv2d with bias, positions
    layer = (2 * 2 * h  # two LayerNorms with bias
             + 3 * (h * h + h) + h * h + h  # q, k, v with biases; output projection with bias
             + h * i + i + i * h + h  # fc1, fc2
             + 2 * h)  # the layer-scale vectors lambda_1, lambda_2
    wide = h * 2 * 2  # the pixel shuffle at downsample_ratio 0.5
    projector = 2 * wide + wide * 896 + 896 + 896 * 896 + 896
    tower = embed + n * layer  # use_mean_pooling: no final LayerNorm
    assert tower == 304_012_288
    assert read_config(INTERNVL3_1B).extras[0].params == tower + projector == 308_495_104


def test_internvl_language_model_is_read_by_its_own_family():
    vl = read_config(INTERNVL3_1B)
    text = json.loads(INTERNVL3_1B.read_text(encoding="utf-8"))["text_config"]
    qwen = read_config(text)
    assert vl.total_params - vl.extras[0].params == qwen.total_params == 629_697_920
    assert vl.active_params == qwen.active_params
    assert vl.kv_cache_bytes_per_token() == 24 * 2 * 2 * 64 * 2 == 12_288
    # InternVL2-1B (the same tower and widths) as a checkpoint's tensors count it:
    # "938.2M, ViT 308.5M, LM 629.7M" (OpenExplorer/InternVL2-1B, SOURCES.md section 44)
    assert (round(vl.total_params / 1e5), round(vl.extras[0].params / 1e5),
            round(qwen.total_params / 1e5)) == (9382, 3085, 6297)


def test_internvl_ties_the_head_only_when_a_config_says_so():
    c = json.loads(INTERNVL3_1B.read_text(encoding="utf-8"))
    untied = read_config(c).total_params
    tied = json.loads(json.dumps(c))
    tied["tie_word_embeddings"] = True
    assert untied - read_config(tied).total_params == 151674 * 896
    tied = json.loads(json.dumps(c))
    tied["text_config"]["tie_word_embeddings"] = True
    assert untied - read_config(tied).total_params == 151674 * 896


def test_internvl_vision_options_count():
    c = json.loads(INTERNVL3_1B.read_text(encoding="utf-8"))
    base = read_config(c).extras[0].params
    h, n = 1024, 24
    for change, delta in [({"use_qk_norm": True}, n * 2 * h),  # RMSNorms over h on q and k
                          ({"norm_type": "rms_norm"}, -n * 2 * h),  # no LayerNorm biases
                          ({"attention_bias": False}, -n * 3 * h),
                          ({"use_mean_pooling": False}, 2 * h),  # a final LayerNorm
                          ({"use_mask_token": True}, h),
                          ({"image_size": 224, "patch_size": 14}, -(1024 - 256) * h)]:
        v = json.loads(json.dumps(c))
        v["vision_config"].update(change)
        assert read_config(v).extras[0].params - base == delta, change


def test_internvl_refuses_by_name():
    c = json.loads(INTERNVL3_1B.read_text(encoding="utf-8"))
    for part, change, pattern in [
            (None, {"downsample_ratio": 0.3}, "field 'downsample_ratio'"),
            ("vision_config", {"norm_type": "batch_norm"}, "field 'norm_type'"),
            ("vision_config", {"num_attention_heads": 15}, "field 'num_attention_heads' \\(15\\)"),
            ("vision_config", {"num_experts": 8}, "'num_experts' = 8"),
            ("text_config", {"model_type": "internvl"}, "text_config's model_type"),
            ("text_config", {"num_experts": 8}, "'num_experts' = 8")]:
        bad = json.loads(json.dumps(c))
        (bad if part is None else bad[part]).update(change)
        with pytest.raises(ConfigError, match=pattern):
            read_config(bad)


# ---- Qwen2-VL: Qwen2 behind a LayerNorm ViT (FAMILIES.md 17.37) --------------------------------
QWEN2VL_7B = CATALOG / "qwen2-vl-7b-instruct" / "config.json"


def test_qwen2_vl_equals_the_meta_count_and_the_checkpoint_index():
    t, m = truth(QWEN2VL_7B), read_config(QWEN2VL_7B)
    assert m.family == "qwen2_vl"
    assert t["how"] == "Qwen2VLForConditionalGeneration(config)"
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    # the checkpoint's model.safetensors.index.json: total_size 16,582,751,232 bytes of bf16
    # (SOURCES.md section 42)
    assert 2 * m.total_params == 16_582_751_232
    (tower,) = m.extras
    assert tower.in_total and tower.params == t["by_prefix"]["model.visual"]
    assert m.active_params == m.total_params - tower.params


def test_qwen2_vl_tower_by_hand():
    v = json.loads(QWEN2VL_7B.read_text(encoding="utf-8"))["vision_config"]
    e, n, o = v["embed_dim"], v["depth"], v["hidden_size"]
    i = e * v["mlp_ratio"]
    p, t, m = v["patch_size"], v["temporal_patch_size"], v["spatial_merge_size"]
    patch = 3 * t * p * p * e  # Conv3d without bias
    block = 2 * 2 * e + (3 * e * e + 3 * e) + (e * e + e) + (e * i + i) + (i * e + e)
    em = e * m * m
    merger = 2 * e + (em * em + em) + (em * o + o)  # LayerNorm with bias, two linears
    tower = patch + n * block + merger
    assert tower == 675_759_104
    assert read_config(QWEN2VL_7B).extras[0].params == tower


def test_qwen2_vl_language_model_is_qwen2_7b_shaped():
    vl = read_config(QWEN2VL_7B)
    # Qwen2-7B's shapes are Qwen2.5-7B's (the catalog's qwen2.5-7b): 7,615,616,512
    lm = get_model_by_name("qwen2.5-7b")
    assert vl.total_params - vl.extras[0].params == lm.total_params == 7_615_616_512
    assert vl.kv_cache_bytes_per_token() == 28 * 2 * 4 * 128 * 2 == 57_344
    assert round(vl.total_params / 1e9) == 8  # the Hub's 8B for the checkpoint


def test_qwen2_vl_refuses_by_name():
    c = json.loads(QWEN2VL_7B.read_text(encoding="utf-8"))
    q25 = json.loads(QWEN25VL_3B.read_text(encoding="utf-8"))
    for cfg, part, change, pattern in [
            (c, "vision_config", {"hidden_size": 2048}, "field 'hidden_size' \\(2048\\)"),
            (c, "vision_config", {"mlp_ratio": 4.0001}, "field 'mlp_ratio'"),
            (c, "vision_config", {"intermediate_size": 3420}, "field 'intermediate_size'"),
            (c, "vision_config", {"num_attention_heads": 12},
             "fields 'num_heads' \\(16\\) and 'num_attention_heads' \\(12\\)"),
            (c, None, {"head_dim": 256}, "field 'head_dim' = 256 is not supported"),
            # a Qwen2-VL tower under a qwen2_5_vl file, and the other way round
            (q25, "vision_config", {"embed_dim": 1280}, "field 'embed_dim' = 1280"),
            (c, "vision_config", {"out_hidden_size": 3584}, "field 'out_hidden_size'")]:
        bad = json.loads(json.dumps(cfg))
        (bad[part] if part else bad).update(change)
# ---- LLaVA-1.5: CLIP ViT-L/14-336, a two-layer projector and Vicuna (FAMILIES.md 17.40) ---------
LLAVA15 = CATALOG / "llava-1.5-7b-hf" / "config.json"


def test_llava_equals_the_meta_count():
    t, m = truth(LLAVA15), read_config(LLAVA15)
    assert m.family == "llava"
    assert t["how"] == "LlavaForConditionalGeneration(config)"
    assert m.total_params == t["params"] == 7_063_427_072
    (tower,) = m.extras
    assert tower.in_total and tower.params == (t["by_prefix"]["model.vision_tower"]
                                               + t["by_prefix"]["model.multi_modal_projector"])
    assert round(m.total_params / 1e9) == 7  # the name's 7B


def test_llava_by_hand():
    h, i, p, n = 1024, 4096, 14, 24
    block = 4 * (h * h + h) + 4 * h + h * i + i + i * h + h
    tower = h + 3 * p * p * h + ((336 // p) ** 2 + 1) * h + 4 * h + n * block
    d = 4096
    projector = h * d + d + d * d + d  # linear_1 and linear_2 with biases
    assert tower == 303_507_456  # CLIP ViT-L/14 at 336 pixels, its 0.3B
    m = read_config(LLAVA15)
    assert m.extras[0].params == tower + projector
    # the language model is Vicuna-7B v1.5, Llama 2 7B's shapes (the catalog's llama-2-7b,
    # its meta count 6,738,415,616 at 32,000 tokens) with 64 more rows in the table and the head
    llama2 = truth(CATALOG / "llama-2-7b" / "config.json")["params"]
    assert m.active_params == llama2 + 2 * 64 * 4096 == 6_738_939_904
    assert m.kv_cache_bytes_per_token() == 32 * 2 * 32 * 128 * 2 == 524_288


def test_llava_reads_llama_defaults_and_its_options():
    c = json.loads(LLAVA15.read_text(encoding="utf-8"))
    base = read_config(c)
    full = json.loads(json.dumps(c))
    full["text_config"].update(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                               num_attention_heads=32)
    assert read_config(full).total_params == base.total_params
    two = json.loads(json.dumps(c))
    two["vision_feature_layer"] = [-2, -5]  # features of two layers concatenated
    assert read_config(two).total_params - base.total_params == 1024 * 4096
    nobias = json.loads(json.dumps(c))
    nobias["multimodal_projector_bias"] = False
    assert base.total_params - read_config(nobias).total_params == 2 * 4096
    tied = json.loads(json.dumps(c))
    tied["text_config"]["tie_word_embeddings"] = True  # LlavaConfig then ties the wrapper too
    assert base.total_params - read_config(tied).total_params == 32064 * 4096


def test_llava_refuses_by_name():
    c = json.loads(LLAVA15.read_text(encoding="utf-8"))
    for part, change, pattern in [
            (None, {"vocab_size": 32000}, "field 'vocab_size' \\(32000\\)"),
            (None, {"vision_feature_layer": "last"}, "field 'vision_feature_layer'"),
            ("vision_config", {"model_type": "siglip_vision_model"},
             "vision_config's model_type 'siglip_vision_model'"),
            ("vision_config", {"num_attention_heads": 15}, "field 'num_attention_heads' \\(15\\)"),
            ("text_config", {"num_experts": 8}, "'num_experts' = 8")]:
        bad = json.loads(json.dumps(c))
        (bad if part is None else bad[part]).update(change)
        with pytest.raises(ConfigError, match=pattern):
            read_config(bad)


# ---- LLaVA-OneVision: SigLIP without its pooling head, Qwen2 (FAMILIES.md 17.40) -----------------
ONEVISION = CONFIGS / "reconstructed" / "llava-onevision-qwen2-7b-ov-hf.json"


def test_llava_onevision_equals_the_meta_count_and_a_count_by_hand():
    t, m = truth(ONEVISION), read_config(ONEVISION)
    assert m.family == "llava_onevision"
    assert t["how"] == "LlavaOnevisionForConditionalGeneration(config)"
    assert m.total_params == t["params"] == 8_030_807_584
    h, i, n, d = 1152, 4304, 26, 3584
    block = 4 * (h * h + h) + 4 * h + h * i + i + i * h + h
    tower = 3 * 14 * 14 * h + h + (384 // 14) ** 2 * h + n * block + 2 * h  # no class token
    assert tower == t["by_prefix"]["model.vision_tower"] == 397_747_744
    projector = h * d + d + d * d + d
    assert projector == t["by_prefix"]["model.multi_modal_projector"]
    assert m.extras[0].params == tower + projector + d  # and the image_newline vector
    assert t["by_prefix"]["model.image_newline"] == d
    # a fine-tune of the same architecture on the Hub: "8.03B params" (SOURCES.md section 45)
    assert round(m.total_params / 1e9, 2) == 8.03
    assert m.kv_cache_bytes_per_token() == 28 * 2 * 4 * 128 * 2 == 57_344


def test_llava_onevision_refuses_by_name():
    c = json.loads(ONEVISION.read_text(encoding="utf-8"))
    for part, change, pattern in [
            ("vision_config", {"vision_use_head": True}, "field 'vision_use_head' must be false"),
            ("vision_config", {"vision_use_head": None}, "field 'vision_use_head' must be false"),
            ("vision_config", {"model_type": "clip_vision_model"},
             "vision_config's model_type 'clip_vision_model'"),
            ("text_config", {"num_experts": 8}, "'num_experts' = 8")]:
        bad = json.loads(json.dumps(c))
        bad[part].update(change)
        with pytest.raises(ConfigError, match=pattern):
            read_config(bad)
# ---- EXAONE 3.x: Llama's block under EXAONE's key names (FAMILIES.md 17.41) ---------------------
EXAONE_32B = CONFIGS / "exaone-3.5-32b-instruct.json"
EXAONE_2_4B = CONFIGS / "reconstructed" / "exaone-3.5-2.4b-instruct.json"


@pytest.mark.parametrize("path, layers, tied, kv, published", [
    (EXAONE_32B, 64, False, 64 * 2 * 8 * 128 * 2, 32),  # the README's 32B
    (EXAONE_2_4B, 30, True, 30 * 2 * 8 * 80 * 2, 2.4),  # and its 2.4B
])
def test_exaone_equals_the_meta_count_a_count_by_hand_and_the_readme(path, layers, tied, kv,
                                                                      published):
    c, t, m = json.loads(path.read_text(encoding="utf-8")), truth(path), read_config(path)
    assert m.family == "exaone" and m.tied is tied
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    d, h, hkv, dh, v = (c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"],
                        c["head_dim"], c["vocab_size"])
    block = 2 * d * h * dh + 2 * d * hkv * dh + 3 * d * c["intermediate_size"] + 2 * d
    assert m.total_params == layers * block + d + (1 if tied else 2) * v * d
    assert round(m.total_params / 1e9, 1 if published < 10 else 0) == published
    assert m.kv_cache_bytes_per_token() == kv
    assert m.active_params == m.total_params  # dense


def test_exaone_reads_the_layer_count_under_either_name():
    c = json.loads(EXAONE_32B.read_text(encoding="utf-8"))
    renamed = {**{k: v for k, v in c.items() if k != "num_layers"}, "num_hidden_layers": 64}
    assert read_config(renamed).total_params == read_config(c).total_params
    assert read_config({**c, "num_hidden_layers": 64}).total_params == read_config(c).total_params
    # EXAONE 3.0's file has no head_dim: d / H = 128, the same geometry
    assert read_config({k: v for k, v in c.items() if k != "head_dim"}).total_params == \
        read_config(c).total_params


def test_exaone_biases_follow_llamas_keys():
    c = json.loads(EXAONE_2_4B.read_text(encoding="utf-8"))
    base = read_config(c).total_params
    # q, k, v, o biases: 2,560 + 640 + 640 + 2,560 a layer; gate, up, down: 2 x 7,168 + 2,560
    assert read_config({**c, "attention_bias": True}).total_params - base == 30 * 6400
    assert read_config({**c, "mlp_bias": True}).total_params - base == 30 * (2 * 7168 + 2560)


@pytest.mark.parametrize("change, field", [
    ({"num_hidden_layers": 32}, "num_hidden_layers"),  # disagrees with num_layers (30)
    ({"num_layers": None}, "num_hidden_layers"),
    ({"ln_no_scale": True}, "ln_no_scale"),
    ({"num_local_experts": 8}, "num_local_experts"),
    ({"layer_types": ["sliding_attention"] * 30}, "layer_types"),
    ({"kv_lora_rank": 512}, "kv_lora_rank"),
])
def test_exaone_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(EXAONE_2_4B.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


# ---- Nemotron-4 / Minitron: squared ReLU, LayerNorm1P with bias (FAMILIES.md 17.42) ------------
MINITRON_8B = CONFIGS / "minitron-8b-base.json"


@pytest.mark.parametrize("name, kv, published", [
    ("minitron-8b-base", 32 * 2 * 8 * 128 * 2, 8),  # the names' 8B (8.27B), 4B (4.19B)
    ("minitron-4b-base", 32 * 2 * 8 * 128 * 2, 4),
    ("nemotron-4-340b-base-hf", 96 * 2 * 8 * 192 * 2, 340),  # 341.03B
])
def test_nemotron_equals_the_meta_count_a_count_by_hand_and_the_name(name, kv, published):
    path = CONFIGS / f"{name}.json"
    c, t, m = json.loads(path.read_text(encoding="utf-8")), truth(path), read_config(path)
    assert m.family == "nemotron" and not m.tied
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    d, h, hkv, dh, v = (c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"],
                        c["head_dim"], c["vocab_size"])
    # q, o; k, v; up and down (no gate); two LayerNorm1P of weight and bias
    block = 2 * d * h * dh + 2 * d * hkv * dh + 2 * d * c["intermediate_size"] + 4 * d
    assert m.total_params == c["num_hidden_layers"] * block + 2 * d + 2 * v * d
    assert abs(m.total_params / 1e9 - published) < 1.5
    assert m.kv_cache_bytes_per_token() == kv
    assert m.active_params == m.total_params  # dense


def test_nemotron_biases_and_the_megatron_head_width():
    c = json.loads(MINITRON_8B.read_text(encoding="utf-8"))
    base = read_config(c).total_params
    # q, k, v, o biases: 6,144 + 1,024 + 1,024 + 4,096 a layer; up, down: 16,384 + 4,096
    assert read_config({**c, "attention_bias": True}).total_params - base == 32 * 12288
    assert read_config({**c, "mlp_bias": True}).total_params - base == 32 * 20480
    # the Mini-4B's kv_channels, equal to the head width, changes nothing; the older rotary keys
    # hold no weight
    assert read_config({**c, "kv_channels": 128, "rope_percent": 0.5}).total_params == base
    with pytest.raises(ConfigError, match="'kv_channels'"):
        read_config({**{k: v for k, v in c.items() if k != "head_dim"}, "kv_channels": 128})


@pytest.mark.parametrize("change, field", [
    ({"num_local_experts": 8}, "num_local_experts"),
    ({"layer_types": ["sliding_attention"] * 32}, "layer_types"),
    ({"qk_layernorm": True}, "qk_layernorm"),
    ({"num_key_value_heads": 7}, "num_key_value_heads"),
])
def test_nemotron_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(MINITRON_8B.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


def test_nemotron_reads_the_mini_4bs_kv_channels():
    # Nemotron-Mini-4B-Instruct's file (SOURCES.md 47): Minitron-4B's sizes with kv_channels 128
    # in place of head_dim; 3,072 / 24 = 128, so the same model
    c = json.loads((CONFIGS / "minitron-4b-base.json").read_text(encoding="utf-8"))
    mini = {**{k: v for k, v in c.items() if k != "head_dim"}, "kv_channels": 128}
    assert read_config(mini).total_params == read_config(c).total_params == 4_190_509_056


# ---- OLMo 1 / 1.7: non-parametric LayerNorm, q/k/v clipping (FAMILIES.md 17.43) ----------------
OLMO_17 = CONFIGS / "olmo-1.7-7b.json"


@pytest.mark.parametrize("name, tied, kv, published", [
    ("olmo-1.7-7b", False, 32 * 2 * 32 * 128 * 2, 7),  # the names' 7B (6.89B)
    ("olmo-7b-hf", False, 32 * 2 * 32 * 128 * 2, 7),
    ("olmo-1b-hf", True, 16 * 2 * 16 * 128 * 2, 1),  # and 1B (1.18B)
])
def test_olmo_equals_the_meta_count_a_count_by_hand_and_the_name(name, tied, kv, published):
    path = CONFIGS / f"{name}.json"
    c, t, m = json.loads(path.read_text(encoding="utf-8")), truth(path), read_config(path)
    assert m.family == "olmo" and m.tied is tied
    assert m.total_params == t["params"] and t["persistent_buffers"] == 0
    d, n = c["hidden_size"], c["num_hidden_layers"]
    # q, k, v, o (full heads); a gated MLP; norms without weights, none at the end either
    block = 4 * d * d + 3 * d * c["intermediate_size"]
    assert m.total_params == n * block + (1 if tied else 2) * c["vocab_size"] * d
    assert round(m.total_params / 1e9) == published
    assert m.kv_cache_bytes_per_token() == kv
    assert m.active_params == m.total_params


def test_olmo_clip_and_biases():
    c = json.loads(OLMO_17.read_text(encoding="utf-8"))
    base = read_config(c).total_params
    assert read_config({**c, "clip_qkv": None}).total_params == base  # no weight
    assert read_config({**c, "attention_bias": True}).total_params - base == 32 * 4 * 4096


@pytest.mark.parametrize("change, field", [
    ({"clip_qkv": -1.0}, "clip_qkv"),
    ({"clip_qkv": "8"}, "clip_qkv"),
    ({"mlp_bias": True}, "mlp_bias"),
    ({"qk_layernorm": True}, "qk_layernorm"),
    ({"num_local_experts": 8}, "num_local_experts"),
    ({"layer_types": ["sliding_attention"] * 32}, "layer_types"),
])
def test_olmo_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(OLMO_17.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


# ---- StableLM 2: parallel residual, per-head q/k LayerNorms, use_norm_bias (FAMILIES.md 17.44) --
STABLELM_16 = CONFIGS / "stablelm-2-1_6b-chat.json"
STABLELM_12 = CONFIGS / "stablelm-2-12b.json"


def test_stablelm_2_1_6b_equals_the_meta_count_a_count_by_hand_and_the_name():
    c, t, m = (json.loads(STABLELM_16.read_text(encoding="utf-8")), truth(STABLELM_16),
               read_config(STABLELM_16))
    assert m.family == "stablelm" and not m.tied
    assert m.total_params == t["params"] == 1_644_515_328 and t["persistent_buffers"] == 0
    d, v = c["hidden_size"], c["vocab_size"]
    # q, k, v, o with q/k/v biases; a gated MLP; two LayerNorms of weight and bias
    block = 4 * d * d + 3 * d + 3 * d * c["intermediate_size"] + 2 * 2 * d
    assert m.total_params == 24 * block + 2 * d + 2 * v * d
    assert int(m.total_params / 1e8) == 16  # the name's 1.6B
    assert m.kv_cache_bytes_per_token() == 24 * 2 * 32 * 64 * 2
    # a fine-tune's bf16 model.safetensors, 3,289,069,520 B (SOURCES.md 49), less the tensors:
    # a header of under 64 kB
    assert 0 < 3_289_069_520 - 2 * m.total_params < 65_536


def test_stablelm_2_12b_is_the_meta_count_less_the_dropped_norm_biases():
    c, t, m = (json.loads(STABLELM_12.read_text(encoding="utf-8")), truth(STABLELM_12),
               read_config(STABLELM_12))
    d, h, kv, dh = c["hidden_size"], 32, 8, c["hidden_size"] // 32
    assert t["params"] - m.total_params == 40 * d  # one input_layernorm bias a block
    # by hand: q, o; k, v; per-head q and k norms; a gated MLP; one norm without bias
    block = 2 * d * h * dh + 2 * d * kv * dh + (h + kv) * dh + 3 * d * c["intermediate_size"] + d
    assert m.total_params == 40 * block + 2 * d + 2 * c["vocab_size"] * d == 12_142_981_120
    assert int(m.total_params / 1e9) == 12
    assert m.kv_cache_bytes_per_token() == 40 * 2 * kv * dh * 2
    # where the key is absent, the biases transformers builds are counted: the meta count
    assert read_config({**c, "use_norm_bias": None}).total_params == t["params"]


@pytest.mark.parametrize("change, delta", [
    ({"use_parallel_residual": True}, -24 * 2 * 2048),  # no post_attention_layernorm
    ({"use_norm_bias": False}, -24 * 2 * 2048),  # weights only in the blocks' norms
    ({"qk_layernorm": True}, 24 * (32 + 32) * 64),  # a d_head weight per head, q and k
    ({"use_qkv_bias": False}, -24 * 3 * 2048),
])
def test_stablelm_switches_change_the_count_by_hand(change, delta):
    c = json.loads(STABLELM_16.read_text(encoding="utf-8"))
    assert read_config({**c, **change}).total_params - read_config(c).total_params == delta


@pytest.mark.parametrize("change, field", [
    ({"head_dim": 128}, "head_dim"),
    ({"attention_bias": True}, "attention_bias"),
    ({"mlp_bias": True}, "mlp_bias"),
    ({"num_local_experts": 8}, "num_local_experts"),
    ({"layer_types": ["sliding_attention"] * 24}, "layer_types"),
])
def test_stablelm_refuses_what_it_does_not_count_by_name(change, field):
    c = json.loads(STABLELM_16.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config({**c, **change})


# ---- catalogue additions to families read already (SOURCES.md section 50) -----------------------
def _catalog_file(name: str) -> tuple[dict, dict, object]:
    path = CATALOG / name / "config.json"
    return json.loads(path.read_text(encoding="utf-8")), truth(path), read_config(path)


@pytest.mark.parametrize("name, layers, heads, kv_heads, mlp_matrices, norms, final, total", [
    # an ungated squared-ReLU MLP; two LayerNorm1P a block and a final one, weight and bias each
    ("nemotron-mini-4b-instruct", 32, 24, 8, 2, 4, 2, 4_190_509_056),
    # Llama's block: a gated MLP, two RMSNorms a block
    ("exaone-3.5-7.8b", 32, 32, 8, 3, 2, 1, 7_818_448_896),
    # GLM-4-0414: no biases at 32B, four RMSNorms a block (before and after attention and MLP)
    ("glm-4-32b-0414", 61, 48, 2, 3, 4, 1, 32_566_081_536),
])
def test_catalogue_additions_by_hand_and_by_their_meta_counts(name, layers, heads, kv_heads,
                                                               mlp_matrices, norms, final, total):
    c, t, m = _catalog_file(name)
    d, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    # q and o of the query heads, k and v of the KV heads, all 128 wide; untied embeddings
    block = 2 * d * heads * 128 + 2 * d * kv_heads * 128 + mlp_matrices * d * ff + norms * d
    assert m.total_params == t["params"] == layers * block + final * d + 2 * v * d == total
    assert t["persistent_buffers"] == 0
    assert m.kv_cache_bytes_per_token() == layers * 2 * kv_heads * 128 * 2


def test_nemotron_mini_4b_instruct_is_minitron_4b_base():
    assert (read_config(CATALOG / "nemotron-mini-4b-instruct" / "config.json").total_params
            == read_config(CONFIGS / "minitron-4b-base.json").total_params)


def test_llama_3_2_90b_vision_is_llama_3_1_70b_with_20_cross_layers_and_the_11b_tower():
    from llm_arithmetic.catalog.readers import mllama_image_decode
    c, t, m = _catalog_file("llama-3.2-90b-vision-instruct")
    assert m.total_params == t["params"] == 88_593_355_323
    assert round(m.total_params / 1e9) == 89  # the Hub's listing (SOURCES.md section 50)
    seventy = get_model_by_name("llama-3.1-70b")
    assert m.active_params == seventy.total_params  # a text-only step skips the cross layers
    assert m.kv_cache_bytes_per_token() == seventy.kv_cache_bytes_per_token() == 80 * 4096
    d, ff = 8192, 28672
    # a cross-attention layer: q, o; k, v of 8 heads of 128; q/k RMSNorms of 128; a gated MLP;
    # two norms; two tanh gates
    cross = 2 * d * d + 2 * d * 1024 + 2 * 128 + 3 * d * ff + 2 * d + 2
    extras = {e.name.split(";")[0]: e.params for e in m.extras}
    assert extras["cross-attention layers"] == 20 * cross
    # the 11B's encoder; its projector maps the 7,680 features into 8,192 instead of 4,096
    eleven = {e.name.split(";")[0]: e.params for e in read_config(
        CATALOG / "llama-3.2-11b-vision-instruct" / "config.json").extras}
    assert (extras["vision tower and projector"] - eleven["vision tower and projector"]
            == 7680 * 4096 + 4096)
    one = mllama_image_decode(c)
    assert one["cache_bytes"] == 20 * 2 * 8 * 128 * 2 * 6404
    assert one["weights"] == 20 * (cross - 2 * d * 1024)


# ---- Qwen3-Omni (qwen3_omni_moe; SOURCES.md section 51, FAMILIES.md section 17.46) ---------------
QWEN3_OMNI = CATALOG / "qwen3-omni-30b-a3b-instruct" / "config.json"


def _prefix_sum(t: dict, head: str) -> int:
    return sum(v for k, v in t["by_prefix"].items() if k.startswith(head + "."))


@pytest.mark.parametrize("name, total, speech", [
    # the sum over the Instruct checkpoint's 28,010 tensors (SOURCES.md section 51)
    ("qwen3-omni-30b-a3b-instruct", 35_259_818_545, True),
    # the thinker alone; the Hub lists it as 32B
    ("qwen3-omni-30b-a3b-thinking", 31_719_205_488, False),
])
def test_qwen3_omni_counts_the_checkpoint_and_decodes_the_thinker(name, total, speech):
    c, t, m = _catalog_file(name)
    assert m.total_params == t["params"] == total
    assert t["persistent_buffers"] == 0
    extras = {e.name: e for e in m.extras}
    assert ("talker" in extras, "code2wav" in extras) == (speech, speech)
    if speech:
        # the talker's and the codec decoder's modules as transformers builds them
        assert extras["talker"].params == _prefix_sum(t, "talker") == 3_324_596_480
        assert extras["code2wav"].params == _prefix_sum(t, "code2wav") == 216_016_577
    # the audio encoder by hand from its module tree (the report's print, SOURCES.md 51):
    # conv2d1 1 -> 480, conv2d2/3 480 -> 480 (3 x 3, biases); conv_out 7,680 -> 1,280;
    # 32 blocks (q, k, v, out with biases; fc1/fc2 1,280 <-> 5,120; two LayerNorms);
    # ln_post; proj1 1,280 -> 1,280 and proj2 1,280 -> 2,048 with biases
    block = 4 * (1280 * 1280 + 1280) + 2 * 2 * 1280 + 2 * 1280 * 5120 + 5120 + 1280
    audio = (480 * 9 + 480 + 2 * (480 * 480 * 9 + 480) + 7680 * 1280 + 32 * block + 2 * 1280
             + 1280 * 1280 + 1280 + 1280 * 2048 + 2048)
    assert extras["audio encoder"].params == audio
    # the language model is the thinker's lm_head and model less both encoders
    lm = t["by_prefix"]["thinker.lm_head"] + t["by_prefix"]["thinker.model"] \
        - audio - extras["vision tower and mergers"].params
    assert m.total_params - sum(e.params for e in m.extras) == lm
    # ... which is Qwen3-30B-A3B's meta count with a table of 152,064 rows instead of 151,936
    assert lm == truth(CATALOG / "qwen3-30b-a3b" / "config.json")["params"] \
        + 2 * (152_064 - 151_936) * 2048
    # a text token uses the thinker's language model with 8 of its 128 experts (the
    # library's active count keeps the embedding table); KV of 4 heads of 128
    experts = 48 * 128 * 3 * 2048 * 768
    assert m.active_params == lm - experts + experts * 8 // 128
    assert m.kv_cache_bytes_per_token() == 48 * 2 * 4 * 128 * 2
    assert round(m.total_params / 1e9) == (35 if speech else 32)  # the Hub's listings


def test_qwen3_omni_images_use_its_processors_area_bounds():
    from llm_arithmetic.catalog.images import image_tower, image_work
    tower, rule = image_tower(read_config(QWEN3_OMNI))
    # preprocessor_config.json of Qwen's three Qwen3-Omni repositories (SOURCES.md section 51)
    assert (rule.patch, rule.merge, rule.min_pixels, rule.max_pixels) == (16, 2, 3136, 12845056)
    # 1000 x 700: sides rounded to 32 px, 992 x 704: 31 x 22 tokens (as Qwen3-VL)
    assert image_work(rule, 1000, 700).tokens == 31 * 22
    # 5000 x 3000 = 15.0 Mpx is above 12,845,056: smart_resize scales by sqrt(15e6 / 12845056)
    # and floors to 32 px: 4,608 x 2,752, 144 x 86 tokens (Qwen3-VL's bounds would keep 156 x 94)
    assert image_work(rule, 5000, 3000).tokens == 144 * 86


@pytest.mark.parametrize("change, field", [
    ({"thinker_config": None}, "thinker_config"),
    ({"thinker_config": "x"}, "thinker_config"),
    ({"talker_config": None}, "talker_config"),
    ({"code2wav_config": None}, "code2wav_config"),
    ({"thinker_config": {"text_config": None}}, "text_config"),
    ({"thinker_config": {"audio_config": None}}, "audio_config"),
    ({"thinker_config": {"audio_config": {"output_dim": 3584}}}, "output_dim"),
    ({"talker_config": {"thinker_hidden_size": 4096}}, "thinker_hidden_size"),
    ({"talker_config": {"tie_word_embeddings": True}}, "tie_word_embeddings"),
    ({"talker_config": {"text_config": {"mlp_only_layers": [0]}}}, "mlp_only_layers"),
    ({"talker_config": {"code_predictor_config": None}}, "code_predictor_config"),
    ({"code2wav_config": {"attention_bias": True}}, "attention_bias"),
    ({"code2wav_config": {"upsample_rates": []}}, "upsample_rates"),
])
def test_qwen3_omni_refuses_bad_inputs_by_name(change, field):
    c = json.loads(QWEN3_OMNI.read_text(encoding="utf-8"))

    def merge(base, diff):
        if not isinstance(base, dict) or not isinstance(diff, dict):
            return diff
        out = dict(base)
        for k, v in diff.items():
            out[k] = merge(base.get(k), v) if isinstance(v, dict) and v else v
        return out
    bad = merge(c, change)
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config(bad)


# ---- Qwen2.5-Omni (qwen2_5_omni; SOURCES.md section 52, FAMILIES.md section 17.47) ---------------
QWEN25_OMNI = CATALOG / "qwen2.5-omni-7b" / "config.json"


def test_qwen2_5_omni_7b_counts_the_checkpoint_and_decodes_the_thinker():
    c, t, m = _catalog_file("qwen2.5-omni-7b")
    assert m.total_params == t["params"] == 10_732_225_408
    assert t["persistent_buffers"] == 0
    extras = {e.name: e.params for e in m.extras}
    assert extras["talker"] == _prefix_sum(t, "talker") == 1_351_360_256
    assert extras["token2wav"] == _prefix_sum(t, "token2wav") == 449_051_264
    thinker = t["by_prefix"]["thinker.lm_head"] + t["by_prefix"]["thinker.model"]
    # a thinker-only bf16 fine-tune of this model: index total_size 17,863,627,776 B
    assert thinker == m.total_params - extras["talker"] - extras["token2wav"] \
        == 17_863_627_776 // 2
    # the 7B's index total_size (22,366,403,936 B) with token2wav in fp32 holds one more tensor
    # of 3,850,592 B than transformers 5.24.0 builds (SOURCES.md section 52)
    assert 2 * (thinker + extras["talker"]) + 4 * extras["token2wav"] == 22_366_403_936 - 3_850_592
    # the audio encoder by hand: conv1 128 -> 1,280 and conv2 1,280 -> 1,280 (kernel 3, biases);
    # begin/end embeddings 2 x 3,584; 32 Whisper blocks (k without bias); ln_post; proj -> 3,584
    block = 4 * 1280 * 1280 + 3 * 1280 + 4 * 1280 + 2 * 1280 * 5120 + 5120 + 1280
    audio = (128 * 1280 * 3 + 1280 + 1280 * 1280 * 3 + 1280 + 2 * 3584 + 32 * block + 2 * 1280
             + 1280 * 3584 + 3584)
    assert extras["audio encoder"] == audio
    # a text token is Qwen2.5-7B's step
    assert m.active_params == get_model_by_name("qwen2.5-7b").total_params == 7_615_616_512
    assert m.kv_cache_bytes_per_token() == 28 * 2 * 4 * 128 * 2
    assert round(m.total_params / 1e9) == 11  # the Hub's listing
    # the thinker's tie_word_embeddings (not the text config's) ties its 152,064 x 3,584 head
    tied = json.loads(QWEN25_OMNI.read_text(encoding="utf-8"))
    tied["thinker_config"]["tie_word_embeddings"] = True
    assert read_config(tied).total_params == m.total_params - 152_064 * 3584


def test_qwen2_5_omni_images_follow_qwen2_5_vl():
    from llm_arithmetic.catalog.images import image_tower, image_work
    tower, rule = image_tower(read_config(QWEN25_OMNI))
    assert tower.params == 676_550_144  # Qwen2.5-VL-7B's tower (FAMILIES.md section 17.36)
    assert (rule.patch, rule.merge, rule.min_pixels, rule.max_pixels) == (14, 2, 3136, 12845056)
    assert image_work(rule, 1000, 700).tokens == 36 * 25  # 1008 x 700 px, 28 px tokens


@pytest.mark.parametrize("change, field", [
    ({"thinker_config": None}, "thinker_config"),
    ({"token2wav_config": None}, "token2wav_config"),
    ({"talker_config": {"embedding_size": 4096}}, "embedding_size"),
    ({"talker_config": {"tie_word_embeddings": True}}, "tie_word_embeddings"),
    ({"thinker_config": {"audio_config": {"output_dim": 2048}}}, "output_dim"),
    ({"thinker_config": {"vision_config": {"embed_dim": 1024}}}, "embed_dim"),
    ({"token2wav_config": {"dit_config": None}}, "dit_config"),
    ({"token2wav_config": {"dit_config": {"dim": 2048}}}, "dim"),
    ({"token2wav_config": {"dit_config": {"enc_channels": [256, 256, 256, 256, 512]}}},
     "enc_channels"),
    ({"token2wav_config": {"dit_config": {"enc_kernel_sizes": [5, 3, 3, 1]}}}, "enc_kernel_sizes"),
    ({"token2wav_config": {"bigvgan_config": {"mel_dim": 100}}}, "mel_dim"),
    ({"token2wav_config": {"bigvgan_config": {"resblock_dilation_sizes": [[1, 3]]}}},
     "resblock_dilation_sizes"),
])
def test_qwen2_5_omni_refuses_bad_inputs_by_name(change, field):
    c = json.loads(QWEN25_OMNI.read_text(encoding="utf-8"))

    def merge(base, diff):
        if not isinstance(base, dict) or not isinstance(diff, dict):
            return diff
        return {**base, **{k: merge(base.get(k), v) if isinstance(v, dict) and v else v
                           for k, v in diff.items()}}
    with pytest.raises(ConfigError, match=f"'{field}'"):
        read_config(merge(c, change))


def test_every_towers_heads_key_names_where_its_file_gives_the_heads():
    # ImageRule.heads_key is the field a tp that does not divide the tower's heads is refused
    # by (estimate.vision_degrees): followed through each catalog model's config.json it must
    # reach that number. The omni files keep the vision encoder inside thinker_config (the
    # refusal named 'vision_config.num_heads', which they do not have at the top level)
    from llm_arithmetic.catalog.images import image_tower

    seen = 0
    for path in sorted(CATALOG.glob("*/config.json")):
        text = path.read_text(encoding="utf-8")
        if '"vision_config"' not in text:       # no tower (a cheap look before reading)
            continue
        try:
            _, rule = image_tower(get_model_by_name(path.parent.name))
        except ConfigError:
            continue
        if not rule.heads_key:
            continue
        node = json.loads(text)
        for part in rule.heads_key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        assert node == rule.heads, (path.parent.name, rule.heads_key, node)
        seen += 1
    assert seen >= 19
    with pytest.raises(InputError, match=r"thinker_config\.vision_config\.num_heads"):
        from llm_arithmetic import estimate
        estimate("qwen2.5-omni-7b", images=1, tp=28, bandwidth=3e12)


# ---- 2025-26 files catalogued as byte copies (SOURCES.md section 53) ---------------------------
#: key, vendored file, published total and active as published (rounded: the test allows the
#: rounding or truncation of the last nonzero digit), whether the active figure leaves out the
#: input embedding table, experts E and top-k from the file, routed-expert parameters by hand
#: (None: the meta count's own routed_expert_params) and what a token reads of none of them:
#: DeepSeek-V4-Pro's hash-routing tables (3 layers x 129,280 tokens x 6 expert ids, buffers)
CATALOGUED_2026 = [
    # 61 MoE layers of 384 gated experts, 3 x 7,168 x 3,072 each
    ("deepseek-v4-pro", "deepseek-v4-pro", 1_600_000_000_000, 49_000_000_000, True, 384, 6,
     61 * 384 * 3 * 7168 * 3072, 3 * 129280 * 6),
    # 48 latent MoE blocks of 512 squared-ReLU experts, 2 x 2,048 x 5,120 each
    ("nemotron-3-ultra", "nvidia-nemotron-3-ultra-550b-a55b-bf16", 550_000_000_000,
     55_000_000_000, True, 512, 22, 48 * 512 * 2 * 2048 * 5120, 0),
    # 23 MoE blocks of 128 squared-ReLU experts, 2 x 2,688 x 1,856 each
    ("nemotron-3-nano", "nvidia-nemotron-3-nano-30b-a3b-bf16", 31_600_000_000,
     3_500_000_000, False, 128, 6, 23 * 128 * 2 * 2688 * 1856, 0),
    ("glm-4.7-flash", "glm-4.7-flash", 29_900_000_000, 3_000_000_000, False, 64, 4, None, 0),
    ("dots-llm1", "dots-llm1-inst", 142_000_000_000, 14_000_000_000, False, 128, 6, None, 0),
    ("hunyuan-a13b", "hunyuan-a13b", 80_000_000_000, 13_000_000_000, False, 64, 8, None, 0),
    ("seed-oss-36b", "seed-oss-36b-instruct", 36_000_000_000, None, False, 1, 1, 0, 0),
    ("granite-4.0-h-tiny", "granite-4.0-h-tiny", 7_000_000_000, 1_000_000_000, False, 64, 6,
     None, 0),
]


@pytest.mark.parametrize("key, stem, total, active, no_input_table, experts, top_k, routed, "
                         "unread", CATALOGUED_2026, ids=[r[0] for r in CATALOGUED_2026])
def test_catalogued_2026_copies_meta_counts_round_to_the_published_ones(
        key, stem, total, active, no_input_table, experts, top_k, routed, unread):
    from llm_arithmetic.book.tables import rounds_to

    def rounds(count: int, published: int) -> bool:  # "550B": to tens of billions
        digits = str(published).rstrip("0")
        return rounds_to(count / 10 ** (len(str(published)) - len(digits)), digits)

    path = CATALOG / key / "config.json"
    assert path.read_bytes() == (CONFIGS / f"{stem}.json").read_bytes()
    t, c = truth(CONFIGS / f"{stem}.json"), config(stem)
    meta = t["params"] + t["persistent_buffers"]
    assert rounds(meta, total), (meta, total)
    routed = t["routed_expert_params"] if routed is None else routed
    assert routed * (experts - top_k) % experts == 0
    # what one token uses: all but the idle experts' share and the tables no token reads
    used = meta - routed * (experts - top_k) // experts - unread
    m = read_config(path)
    assert (m.total_params, m.active_params) == (meta, used)
    if active is None:
        assert not m.is_moe
        return
    table = c["vocab_size"] * c["hidden_size"] if no_input_table else 0
    assert rounds(used - table, active), (used - table, active)


def test_qwen3_5_122b_a10b_meta_count_rounds_to_the_published_122b_and_10b_active():
    """SOURCES.md section 53: the catalog's own file; what a text token uses is the meta count
    less the idle experts' share of the routed experts and the vision tower."""
    path = CATALOG / "qwen3.5-122b-a10b" / "config.json"
    t, text = truth(path), json.loads(path.read_text(encoding="utf-8"))["text_config"]
    assert (text["num_experts"], text["num_experts_per_tok"]) == (256, 8)
    used = (t["params"] - t["routed_expert_params"] * (256 - 8) // 256
            - t["by_prefix"]["model.visual"])
    m = read_config(path)
    assert (m.total_params, m.active_params) == (t["params"], used) == (122_562_817_776,
                                                                      9_771_288_576)
    assert int(t["params"] / 1e9) == 122 and round(used / 1e10) == 1
    assert m.kv_cache_bytes_per_token() == 12 * 2 * 2 * 256 * 2
