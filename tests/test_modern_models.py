"""The architectures of 2025-2026 (issue 14, items 3 to 5), read from their real config.json files.

1. **Relabelled files are refused with the key named.** A practitioner whose tool does not know
   a model_type relabels the file (``qwen3_moe`` -> ``mixtral``, ``deepseek_v2`` -> ``llama``,
   ``gpt_oss`` -> ``mixtral``). Every such file, taken from the vendored configs, must be refused
   with a ConfigError that names a key the target family does not read (or a field it needs),
   never read as a different model. Each case says what the silently different model would have
   been (issue 14: Qwen3-30B-A3B as Mixtral gave 233.5B parameters, DeepSeek-V2-Lite as Llama
   2.69B, gpt-oss as Mixtral a window on all 24 layers).
2. **Omitted keys take the family's defaults**, as the reference implementation's config class
   defines them (tests/configs/FAMILIES.md quotes each default with its source): Gemma 3 4B's
   six-key ``text_config``, gpt-oss without ``layer_types``, Llama 4 without ``no_rope_layers``,
   Falcon 7B without ``num_kv_heads``, DeepSeek-V2-Lite's null ``q_lora_rank``.
3. **KV-cache bytes against independent figures.** Expected values come from what runtimes
   printed and papers stated, never from the package:

   * vLLM, DeepSeek-V2-Lite-Chat at a max_model_len of 32,768: "0.95 GiB KV cache is needed"
     (vllm-project/vllm issue 15871, log of 2025-04-02): MLA's latent and rotary key.
   * llama.cpp, DeepSeek-V2-Lite in a build that decompresses MLA: "size = 1080.00 MiB
     (4096 cells, 27 layers, 1/1 seqs), K (f16): 648.00 MiB, V (f16): 432.00 MiB" (a
     llama.cpp log of the model, n_ctx_train 163840, freq_scale 0.025; search index file id
     60665970451): per-head keys and values, what MLA avoids storing.
   * llama.cpp, gpt-oss-20b (general.name "Gpt Oss 20b", n_swa 128) at n_ctx 131072, n_ubatch
     512: "size = 3072.00 MiB (131072 cells, 12 layers, 1/1 seqs)" for the full-attention layers
     and "size = 18.00 MiB (768 cells, 12 layers, 1/1 seqs)" for the SWA cache (search index
     file id 38767054125).
   * SGLang, Qwen3-30B-A3B in bf16: "KV Cache is allocated. #tokens: 122420, K size: 5.60 GB,
     V size: 5.60 GB" (kvcache-ai/ktransformers issue 1971; SGLang's "GB" divides by 2^30).
   * DeepSeek-V2 paper (arXiv:2405.04434): MLA caches as much as "GQA with only 2.25 groups"
     (section 2.1.4, Table 1, with d_c = 4 d_h and d_h^R = d_h / 2; quoted on
     https://hmellor.github.io/ml-notes/models/deepseek/DeepSeek-V2); and "reduces the KV
     cache by 93.3%" against DeepSeek 67B, with the deployed cache "compressed ... into 6 bits
     on average" (section 3.2.3; search index file id 62328978625). DeepSeek 67B: 95 layers,
     8 KV heads of 128 (DeepSeek LLM paper, arXiv:2401.02954, Table 2, "67B & 95 & 8192 & 64 &
     8", as quoted in search index file id 68296221970).

   No runtime figure was found for Gemma 3, Llama 4 Scout or Nemotron-H: their tests use the
   hand derivations of tests/configs/FAMILIES.md (sections 3, 10, 11), which say so.
"""
from __future__ import annotations

import json
import re

import pytest

from llm_arithmetic import ConfigError, Model, get_model, read_config
from llm_arithmetic.catalog.model_catalog import DATA_PATH
from llm_arithmetic.formulas import memory as M

MiB, GiB = 2**20, 2**30
CONFIGS = DATA_PATH.parent / "models"


def vendored(name: str) -> dict:
    """A vendored config.json (provenance: tests/configs/SOURCES.md)."""
    return json.loads((CONFIGS / name / "config.json").read_text(encoding="utf-8"))


def relabelled(name: str, model_type: str, drop=(), rename=None) -> dict:
    cfg = vendored(name)
    cfg["model_type"] = model_type
    for key in drop:
        cfg.pop(key)
    for old, new in (rename or {}).items():
        cfg[new] = cfg.pop(old)
    return cfg


# ---- 1. relabelled files -----------------------------------------------------------------------
MOE_KEYS = r"moe_intermediate_size|n_routed_experts|n_shared_experts|num_experts_per_tok|" \
           r"first_k_dense_replace|moe_layer_freq"
MLA_KEYS = r"kv_lora_rank|q_lora_rank|qk_rope_head_dim|qk_nope_head_dim|v_head_dim"
NOT_UNDERSTOOD = r"is not understood by the '{family}' reader.*is the model_type right\?"


@pytest.mark.parametrize("name, as_type, drop, rename, key", [
    # Qwen3-30B-A3B as Mixtral: the experts' own width (768) would be replaced by the dense
    # intermediate_size (6144), eight times too wide (issue 14: 233.5B instead of 30.5B). After
    # renaming num_experts to Mixtral's num_local_experts, as a user answering the first error
    # would, the width is what is named.
    ("qwen3-30b-a3b", "mixtral", (), {"num_experts": "num_local_experts"},
     "moe_intermediate_size"),
    # ... and as its dense sibling qwen3 or as qwen2
    ("qwen3-30b-a3b", "qwen3", (), None, "moe_intermediate_size"),
    ("qwen3-30b-a3b", "qwen2", (), None, "attention_bias"),  # Qwen2 always has q/k/v biases
    # DeepSeek-V2-Lite as Llama (issue 14: 2.69B instead of 15.7B): the MoE keys first...
    ("deepseek-v2-lite", "llama", (), None, MOE_KEYS),
    # ... and with every MoE key deleted, the latent attention
    ("deepseek-v2-lite", "llama", ("moe_intermediate_size", "n_routed_experts",
                                   "n_shared_experts", "num_experts_per_tok",
                                   "first_k_dense_replace", "moe_layer_freq"), None, MLA_KEYS),
    ("deepseek-v2-lite", "mistral", (), None, MOE_KEYS),
    # DeepSeek-V3 as V2: the multi-token-prediction module the V2 reader does not know
    ("deepseek-v3", "deepseek_v2", (), None, "num_nextn_predict_layers"),
    ("deepseek-v3", "llama", (), None, MOE_KEYS),
    # gpt-oss as Mixtral: the attention biases Mixtral does not have (with them the sinks and
    # the expert and router biases would vanish, and without layer_types Mixtral's rule would
    # window all 24 layers); without the biases key, the legacy experts_per_token
    ("gpt-oss-20b", "mixtral", (), None, "attention_bias"),
    ("gpt-oss-120b", "mixtral", (), None, "attention_bias"),
    ("gpt-oss-20b", "mixtral", ("attention_bias",), None, "experts_per_token"),
    # gpt-oss as Llama: the experts; with every expert key deleted, the per-layer windows that a
    # reader of uniform layers would ignore
    ("gpt-oss-20b", "llama", (), None, "num_local_experts"),
    ("gpt-oss-20b", "llama", ("num_local_experts", "num_experts_per_tok", "experts_per_token"),
     None, "layer_types"),
    # Gemma 3 as Gemma 2 or Gemma: the 5:1 pattern (Gemma 2 alternates 1:1)
    ("gemma-3-1b", "gemma2", (), None, "sliding_window_pattern"),
    ("gemma-3-1b", "gemma", (), None, "sliding_window_pattern"),
    # Qwen3 as Qwen2: Qwen2's attention always has q/k/v biases, Qwen3's file says it has none
    ("qwen3-8b", "qwen2", (), None, "attention_bias"),
    # Phi-3.5-MoE as Mixtral: the attention's biases, then the head's
    ("phi-3.5-moe", "mixtral", (), None, "attention_bias"),
    ("phi-3.5-moe", "mixtral", ("attention_bias",), None, "lm_head_bias"),
    # Nemotron-H as Llama: the hybrid pattern of state-space, attention and MLP blocks
    ("nemotron-h-56b", "llama", (), None, "hybrid_override_pattern"),
])
def test_relabelled_config_is_refused_with_the_key_named(name, as_type, drop, rename, key):
    cfg = relabelled(name, as_type, drop, rename)
    with pytest.raises(ConfigError) as err:
        read_config(cfg, name=name)
    message = str(err.value)
    assert re.search(rf"field '({key})'", message), message
    assert "is the model_type right?" in message, message


def test_plain_relabel_to_mixtral_is_refused_before_any_count():
    # Qwen3-30B-A3B relabelled without renaming anything: Mixtral's own experts field is missing
    cfg = relabelled("qwen3-30b-a3b", "mixtral")
    with pytest.raises(ConfigError, match="missing field 'num_local_experts'"):
        read_config(cfg)


def test_unread_count_key_names_its_meaning():
    cfg = relabelled("qwen3-30b-a3b", "mixtral", rename={"num_experts": "num_local_experts"})
    with pytest.raises(ConfigError, match=r"'moe_intermediate_size' = 768 \(the width of each "
                                          r"routed expert\) " + NOT_UNDERSTOOD.format(
                                              family="mixtral")):
        read_config(cfg, name="qwen3-30b-a3b")


def test_what_the_relabelled_files_would_have_miscounted():
    # Why refusing matters: the same shapes read with the target family's conventions differ
    # from the published counts (tests/configs/SOURCES.md) by large factors.
    q = vendored("qwen3-30b-a3b")
    as_mixtral = Model.transformer(
        name="x", n_vocab=q["vocab_size"], d_model=q["hidden_size"],
        n_layers=q["num_hidden_layers"], n_heads=q["num_attention_heads"],
        n_kv_heads=q["num_key_value_heads"], d_head=q["head_dim"],
        d_ff=q["intermediate_size"], n_experts=q["num_experts"],
        n_active_experts=q["num_experts_per_tok"])
    assert as_mixtral.total_params > 7 * 30_532_122_624  # published: 30,532,122,624
    d = vendored("deepseek-v2-lite")
    as_llama = Model.transformer(
        name="x", n_vocab=d["vocab_size"], d_model=d["hidden_size"],
        n_layers=d["num_hidden_layers"], n_heads=d["num_attention_heads"],
        n_kv_heads=d["num_key_value_heads"], d_head=d["hidden_size"] // d["num_attention_heads"],
        d_ff=d["intermediate_size"])
    assert as_llama.total_params < 15_706_484_224 / 4  # published: 15,706,484,224


# ---- 2. omitted keys take the family's defaults ------------------------------------------------
def test_gemma3_text_config_of_six_keys_takes_the_class_defaults():
    cfg = vendored("gemma-3-4b")
    assert set(cfg["text_config"]) == {"hidden_size", "intermediate_size", "model_type",
                                       "num_hidden_layers", "rope_scaling", "sliding_window"}
    m = get_model("gemma-3-4b")
    # Gemma3TextConfig defaults (FAMILIES.md section 3): 8 heads, 4 KV heads of 256, vocabulary
    # 262,208, tied head, one global layer in six
    attn = {run.attention for run in m.layers}
    assert {(a.n_heads, a.n_kv_heads, a.d_head) for a in attn} == {(8, 4, 256)}
    assert (m.n_vocab, m.tied) == (262208, True)
    assert (m.sliding_window, m.n_window_layers, m.n_layers) == (1024, 29, 34)
    # the text split of FAMILIES.md: 671,252,480 + 3,209,010,688
    assert m.language_model_params == 3_880_263_168
    # the same file with the defaults written out is the same model
    explicit = dict(cfg)
    explicit["text_config"] = dict(cfg["text_config"], num_attention_heads=8,
                                   num_key_value_heads=4, head_dim=256, vocab_size=262208,
                                   tie_word_embeddings=True, sliding_window_pattern=6)
    spelled = read_config(explicit, name="gemma-3-4b")
    assert spelled.layers == m.layers and spelled.total_params == m.total_params


def test_gemma3_default_window_applies_when_the_file_omits_it():
    # Gemma3TextConfig's sliding_window default is 4096 (FAMILIES.md section 3); the 4B file
    # sets 1024. Dropping the key must change the model: the default is really read.
    cfg = vendored("gemma-3-4b")
    cfg["text_config"] = {k: v for k, v in cfg["text_config"].items() if k != "sliding_window"}
    m = read_config(cfg, name="gemma-3-4b-default-window")
    assert m.sliding_window == 4096
    assert m.kv_cache_bytes(131072) > get_model("gemma-3-4b").kv_cache_bytes(131072)


def test_gemma3_null_window_is_refused_not_defaulted():
    """A null sliding_window is not the 4096 default: Gemma3TextConfig stores None as given
    (configuration_gemma3.py at huggingface/transformers@008f5c8c29be84d4721dc6d1e0fcd72300580be4:
    ``self.sliding_window = sliding_window``) and create_sliding_window_causal_mask
    (masking_utils.py at @00c4411cbe15d4c56d54d3b56d4d171e9c289dac) raises "Could not find a
    `sliding_window` argument in the config, or it is not set" for the sliding layers. The
    reader refuses it, naming the field; with layer_types that name no sliding layer the null
    window is never used, and every layer is full attention."""
    cfg = vendored("gemma-3-4b")
    cfg["text_config"] = dict(cfg["text_config"], sliding_window=None)
    with pytest.raises(ConfigError, match="field 'sliding_window' is null"):
        read_config(cfg, name="gemma-3-4b-null-window")
    n = cfg["text_config"]["num_hidden_layers"]
    cfg["text_config"]["layer_types"] = ["full_attention"] * n
    m = read_config(cfg, name="gemma-3-4b-no-sliding-layer")
    assert m.n_window_layers == 0 and m.n_layers == n


def test_gpt_oss_default_layer_types_alternate():
    # GptOssConfig: layer_types[i] = "sliding_attention" if (i + 1) % 2 else "full_attention"
    cfg = vendored("gpt-oss-20b")
    listed = cfg.pop("layer_types")
    m = read_config(cfg, name="gpt-oss-20b")
    assert m.layers == get_model("gpt-oss-20b").layers
    windows = [run.attention.window for run in m.layers for _ in range(run.count)]
    assert [w == 128 for w in windows] == [t == "sliding_attention" for t in listed]


def test_llama4_default_chunked_and_global_layers():
    # Llama4TextConfig: no_rope_layers[i] = int((i + 1) % 4 != 0); RoPE layers attend within
    # chunks of attention_chunk_size, the NoPE layers (i = 3, 7, ..., 47) to the whole context
    m = get_model("llama-4-scout")
    assert "no_rope_layers" not in vendored("llama-4-scout")["text_config"]
    chunks = [run.attention.chunk for run in m.layers for _ in range(run.count)]
    assert [i for i, c in enumerate(chunks) if c is None] == list(range(3, 48, 4))
    assert set(chunks) - {None} == {8192}


def test_falcon_7b_multi_query_without_num_kv_heads():
    # FalconConfig: num_kv_heads defaults to num_attention_heads (71), but multi_query makes
    # the model MQA; the file has no num_kv_heads key (FAMILIES.md section 9)
    assert "num_kv_heads" not in vendored("falcon-7b")
    m = get_model("falcon-7b")
    assert (m.n_heads, m.n_kv_heads, m.d_head) == (71, 1, 64)
    assert m.kv_cache_bytes_per_token() == 8192  # FAMILIES.md: 2 * 32 * 1 * 64 * 2


def test_gpt_neox_attention_bias_and_architecture_fallback():
    # GPTNeoXConfig (transformers configuration_gpt_neox.py, FAMILIES.md section 16):
    # attention_bias (default true) puts biases on query_key_value (3d) and dense (d); the MLP
    # keeps its biases; rotary_pct and use_parallel_residual own no parameters
    cfg = vendored("pythia-2.8b")
    m = read_config(cfg)
    assert (m.n_heads, m.n_kv_heads, m.d_head, m.n_layers) == (32, 32, 80, 32)
    assert m.kv_cache_bytes_per_token() == 2 * 32 * 2560 * 2  # K and V, 32 layers, 16-bit
    # llama.cpp's CI log of the model (ggml-org/ci, llama.cpp commit 57684331, V100 node,
    # pythia_2_8b-tg-f16.log): "n_ctx = 512", "KV self size = 160.00 MiB, K (f16): 80.00 MiB,
    # V (f16): 80.00 MiB"; its perplexity run at n_ctx 2048: "640.00 MiB"
    assert m.kv_cache_bytes(512) == 160 * 2**20 and m.kv_cache_bytes(2048) == 640 * 2**20
    nobias = read_config({**cfg, "attention_bias": False})
    assert m.total_params - nobias.total_params == 32 * (3 * 2560 + 2560)
    for key, value in [("rotary_pct", 1.0), ("use_parallel_residual", False)]:
        assert read_config({**cfg, key: value}).total_params == m.total_params
    # a file of an unknown model_type that names GPTNeoXForCausalLM reads as gpt_neox
    other = {**cfg, "model_type": "pythia_fork"}
    assert read_config(other).total_params == m.total_params


def test_deepseek_v2_lite_null_q_lora_rank_means_a_plain_query_projection():
    # DeepseekV2Config's default q_lora_rank is 1536; the Lite file sets null: q_proj d x H*192
    assert vendored("deepseek-v2-lite")["q_lora_rank"] is None
    a = get_model("deepseek-v2-lite").layers[0].attention
    assert (a.q_lora_rank, a.kv_lora_rank, a.d_nope, a.d_rope, a.d_v) == (0, 512, 128, 64, 128)
    # FAMILIES.md section 4: q_proj, kv_a_proj_with_mqa + kv_a_layernorm + kv_b_proj, o_proj
    assert 27 * a.params(2048) == 169_869_312 + 88_487_424 + 113_246_208


def test_qwen3_moe_head_dim_is_read_not_divided():
    # Qwen3MoeConfig declares no head_dim; the attention falls back to hidden / heads = 64,
    # but both real files set 128 (the SGLang figure below confirms 128)
    cfg = vendored("qwen3-30b-a3b")
    assert cfg["head_dim"] == 128 != cfg["hidden_size"] // cfg["num_attention_heads"]
    cfg.pop("head_dim")
    assert read_config(cfg).d_head == 64


# ---- 3. KV bytes per token against runtimes and papers ------------------------------------------
def test_deepseek_v2_lite_latent_cache_as_vllm_reserves_it():
    # vLLM issue 15871: "To serve at least one request with the models's max seq len (32768),
    # (0.95 GiB KV cache is needed ..."
    m = get_model("deepseek-v2-lite")
    assert round(m.kv_cache_bytes(32768) / GiB, 2) == 0.95
    # the latent and the rotary key, 512 + 64 numbers per layer (FAMILIES.md section 4)
    assert m.kv_cache_bytes_per_token() == 27 * (512 + 64) * 2


def test_deepseek_v2_lite_decompressed_cache_as_llama_cpp_stored_it():
    # A llama.cpp build that caches MLA's per-head keys (nope + rope) and values: 1080 MiB for
    # 4096 cells and 27 layers, K 648 MiB, V 432 MiB. The model's heads and widths give both;
    # the latent cache is what MLA keeps instead.
    m = get_model("deepseek-v2-lite")
    a = m.layers[0].attention
    k_bytes = m.n_layers * a.n_heads * (a.d_nope + a.d_rope) * 2 * 4096
    v_bytes = m.n_layers * a.n_heads * a.d_v * 2 * 4096
    assert (k_bytes, v_bytes) == (648 * MiB, 432 * MiB)
    assert m.kv_cache_bytes_per_token() * 4096 < (1080 * MiB) / 8


def test_gpt_oss_20b_caches_as_llama_cpp_iswa():
    # llama.cpp at n_ctx 131072: full layers 3072.00 MiB for 131072 cells in 12 layers; SWA
    # layers 18.00 MiB for 768 cells in 12 layers (n_swa 128 + n_ubatch 512, padded to 256)
    m = get_model("gpt-oss-20b")
    full = [run for run in m.layers if not run.attention.window]
    swa = [run for run in m.layers if run.attention.window]
    assert sum(r.count for r in full) == sum(r.count for r in swa) == 12
    full_bytes = sum(r.count * r.attention.kv_cache_bytes_per_token() for r in full)
    swa_bytes = sum(r.count * r.attention.kv_cache_bytes_per_token() for r in swa)
    assert full_bytes * 131072 == 3072 * MiB
    assert swa_bytes * 768 == 18 * MiB
    # the package's window-aware store: the full layers as llama.cpp, the windowed layers at
    # their 128 tokens, less than llama.cpp's 768 cells (which hold a micro-batch besides)
    stored = m.kv_cache_bytes(131072)
    assert stored == 3072 * MiB + swa_bytes * 128
    assert 3072 * MiB < stored < (3072 + 18) * MiB
    # a runtime that keeps every layer whole (llama.cpp's --swa-full) stores twice the full part
    assert m.kv_cache_bytes_full_storage(131072) == 2 * 3072 * MiB


def test_qwen3_30b_a3b_cache_as_sglang_allocated_it():
    # SGLang: "#tokens: 122420, K size: 5.60 GB, V size: 5.60 GB" (GiB); with head_dim read as
    # hidden / heads (64) it would be 2.80
    m = get_model("qwen3-30b-a3b")
    assert round(m.kv_cache_bytes_per_token() / 2 * 122420 / GiB, 2) == 5.60


def test_mla_caches_as_much_as_gqa_with_two_and_a_quarter_groups():
    # DeepSeek-V2 paper: with d_c = 4 d_h and d_h^R = d_h / 2, MLA's cache equals GQA's with 2.25
    # groups. GQA with g groups caches 2 g d_h numbers per layer; d_h = 128 in DeepSeek-V2.
    a = get_model("deepseek-v2.5").layers[0].attention  # the shapes of DeepSeek-V2
    assert a.d_nope == a.d_v == 128
    per_layer = a.kv_cache_bytes_per_token(16) / 2  # numbers
    assert per_layer / (2 * 128) == 2.25


def test_deepseek_v2_cache_is_93_3_percent_smaller_than_deepseek_67b():
    # DeepSeek-V2 paper: "reduces the KV cache by 93.3%" against DeepSeek 67B (95 layers, 8 KV
    # heads of 128, a 16-bit cache), with V2's cache "compressed ... into 6 bits on average"
    v2 = get_model("deepseek-v2.5")
    dense_67b = M.kv_cache_bytes_per_token(n_layers=95, n_kv_heads=8, d_head=128, bits_kv=16)
    saved = 1 - v2.kv_cache_bytes_per_token(6) / dense_67b
    assert round(100 * saved, 1) == 93.3


def test_deepseek_v3_576_numbers_per_layer():
    # README / FAMILIES.md section 5: 61 layers of kv_lora_rank 512 + qk_rope_head_dim 64
    m = get_model("deepseek-v3")
    assert {run.attention.kv_cache_bytes_per_token(16) for run in m.layers} == {576 * 2}
    assert m.kv_cache_bytes_per_token() == 70_272


# ---- derivations of tests/configs/FAMILIES.md, where no runtime figure was found ---------------
@pytest.mark.parametrize("name, full, windowed, span", [
    ("gemma-3-4b", 20_480, 118_784, 1024),    # section 3: 5 global + 29 sliding layers of 4,096 B
    ("gemma-3-1b", 4_096, 22_528, 512),       # section 3: 4 global + 22 sliding layers of 1,024 B
    ("llama-4-scout", 49_152, 147_456, 8192),  # section 10: 12 NoPE + 36 chunked layers of 4,096 B
    # issue 30, from the shapes in tests/configs/SOURCES.md section 10 (K and V, 16-bit):
    ("gemma-3-12b", 8 * 8_192, 40 * 8_192, 1024),   # 8 global + 40 sliding of 2 x 8 x 256 x 2 B
    ("gemma-3-27b", 10 * 8_192, 52 * 8_192, 1024),  # 10 global + 52 sliding of 2 x 16 x 128 x 2 B
])
def test_window_and_chunk_caches_as_derived_in_families_md(name, full, windowed, span):
    m = get_model(name)
    assert m.kv_cache_bytes_per_token() == full + windowed
    s = 131072  # a multiple of 8192: a chunked layer holds a whole chunk
    assert m.kv_cache_bytes(s) == full * s + windowed * span
    assert m.kv_cache_bytes_full_storage(s) == (full + windowed) * s
    assert m.kv_cache_bytes(100) == (full + windowed) * 100  # before any window fills


def test_issue_30_full_attention_caches_from_the_shapes():
    # K and V, 16-bit, every layer, from the shapes in tests/configs/SOURCES.md section 11
    # (Qwen3.5-27B and Gemma 4 31B are held by tests/test_configs_2026.py's ANSWERED table)
    phi4 = get_model("phi-4")                     # 40 layers x 10 KV heads of 128
    assert phi4.kv_cache_bytes_per_token() == 2 * 40 * 10 * 128 * 2 == 200 * 1024
    assert phi4.kv_cache_bytes(16_384) == 3_200 * 2**20  # 3,200 MiB at the trained 16K
    mistral = get_model("mistral-small-3.1-24b")  # 40 layers x 8 KV heads of 128
    assert mistral.kv_cache_bytes_per_token() == 2 * 40 * 8 * 128 * 2 == 160 * 1024


def test_llama4_chunk_restarts_after_a_boundary():
    m = get_model("llama-4-scout")
    assert m.kv_cache_bytes(8193) == 49_152 * 8193 + 147_456 * 1


def test_nemotron_h_state_does_not_grow():
    # FAMILIES.md section 11: 10 attention layers (40,960 B/token); 54 Mamba-2 layers, each with
    # an SSM state of 4,194,304 numbers and a convolution state of 61,440 numbers per sequence
    m = get_model("nemotron-h-56b")
    assert m.kv_cache_bytes_per_token() == 40_960
    assert m.state_bytes(16) == 54 * (4_194_304 + 61_440) * 2
    # the FAMILIES.md figure with transformers' fp32 SSM state and a 16-bit convolution state
    ssm32 = m.state_bytes(32) - 54 * 61_440 * 4
    assert ssm32 + 54 * 61_440 * 2 == 912_605_184
    # constant: the same at any context; what grows is the attention layers' cache
    assert m.seq_bytes(1000) - m.kv_cache_bytes(1000) == m.seq_bytes(8192) - m.kv_cache_bytes(8192)
