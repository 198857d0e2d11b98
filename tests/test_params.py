"""Exact parameter counts of real Hugging Face configs against the counts their authors published.

Configs are vendored verbatim under tests/configs/ (provenance in tests/configs/SOURCES.md).
Expected values are not produced by this package: each comes from a checkpoint index, a paper or
a model card, named next to it. Where the source is rounded ("12.9B"), the test allows exactly
the rounding of that source.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from llm_arithmetic import Model, get_model
from llm_arithmetic.params import gpt_params, total_params

CONFIGS = Path(__file__).parent / "configs"

# file, published total, half-width of the source's rounding, source
PUBLISHED = [
    ("llama-2-7b.json", 6_738_415_616, 0,
     "HF safetensors index total_size 13,476,839,424 B (fp16) less 8,192 B inv_freq buffers, / 2"),
    ("llama-2-13b.json", 13_015_864_320, 0, "LoRAM paper table, #Orig. Params of LLaMA-2-13B"),
    ("llama-2-70b.json", 68_976_648_192, 0,
     "HF index total_size 137,953,316,864 B (fp16) less 20,480 B buffers, / 2"),
    ("mistral-7b-v0.1.json", 7_241_732_096, 0,
     "HF index total_size 14,483,464,192 B (bf16) / 2 (Instruct-v0.2, same shapes)"),
    ("mixtral-8x7b-v0.1.json", 46_702_792_704, 0, "HF index total_size 93,405,585,408 B (bf16) / 2"),
    ("gemma-2-9b.json", 9_241_705_984, 0, "gemma-2-9b-it HF index total_size 18,483,411,968 B / 2"),
    ("gemma-7b.json", 8_537_680_896, 0,
     "Gemma report Table 2: non-embedding 7,751,248,896 + 256,000 x 3,072 embedding"),
    ("qwen2.5-7b.json", 7_615_616_512, 0, "HF index total_size 15,231,233,024 B (bf16) / 2"),
    ("meta-llama-3-8b.json", 8_030_261_248, 0,
     "HF index total_size 16,060,522,496 B (bf16) / 2 (Llama-3.1-8B, same shapes)"),
    ("phi-3-mini-4k-instruct.json", 3_821_079_552, 0, "HF index total_size 7,642,159,104 B / 2"),
    ("gpt2.json", 124_439_808, 0, "karpathy/llm.c README: num_parameters 124439808"),
    ("c4ai-command-r-v01.json", 35_000_000_000, 500_000_000, "model card: 35 billion"),
]


@pytest.mark.parametrize("fname,expected,tol,source", PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_total_params_of_real_configs(fname, expected, tol, source):
    m = Model.from_hf_config(CONFIGS / fname)
    assert abs(m.total_params - expected) <= tol, source


def test_mixtral_active_params():
    # Mistral AI, "Mixtral of experts" (2023): 46.7B total, 12.9B used per token (rounded to 0.1B)
    m = Model.from_hf_config(CONFIGS / "mixtral-8x7b-v0.1.json")
    assert m.n_experts == 8 and m.n_active_experts == 2
    assert abs(m.active_params - 12.9e9) <= 0.05e9
    assert abs(m.total_params - 46.7e9) <= 0.05e9
    # second derivation: active = total - (E - k) experts' MLPs in every layer
    expert = 3 * m.d_model * m.d_ff
    assert m.total_params - m.active_params == m.n_layers * (8 - 2) * expert


def test_non_embedding_counts_published_in_reports():
    # Gemma 2 report Table 2: 8,324,201,984 non-embedding (exact); tied, so one table to remove
    g2 = Model.from_hf_config(CONFIGS / "gemma-2-9b.json")
    assert g2.total_params - g2.n_vocab * g2.d_model == 8_324_201_984
    # Gemma report Table 2: 7B non-embedding 7,751,248,896 (exact)
    g = Model.from_hf_config(CONFIGS / "gemma-7b.json")
    assert g.total_params - g.n_vocab * g.d_model == 7_751_248_896
    # Qwen2.5 card: non-embedding 6.53B, excluding embed_tokens and the untied lm_head
    q = Model.from_hf_config(CONFIGS / "qwen2.5-7b.json")
    assert abs(q.total_params - 2 * q.n_vocab * q.d_model - 6.53e9) <= 0.005e9


def test_family_conventions_read_from_configs():
    g = Model.from_hf_config(CONFIGS / "gemma-7b.json")
    assert g.d_head == 256 and g.n_heads * g.d_head != g.d_model and g.tied
    q = Model.from_hf_config(CONFIGS / "qwen2.5-7b.json")
    assert q.qkv_bias and not q.o_bias and not q.tied
    gpt = Model.from_hf_config(CONFIGS / "gpt2.json")
    assert gpt.tied and gpt.n_positions == 1024 and gpt.n_mlp_mats == 2
    c = Model.from_hf_config(CONFIGS / "c4ai-command-r-v01.json")
    assert c.tied and c.norm_vecs_layer == 1 and c.n_kv_heads == c.n_heads


def test_catalog_agrees_with_vendored_configs():
    pairs = {"llama-2-7b": "llama-2-7b.json", "llama-2-13b": "llama-2-13b.json",
             "llama-2-70b": "llama-2-70b.json", "mistral-7b": "mistral-7b-v0.1.json",
             "mixtral-8x7b": "mixtral-8x7b-v0.1.json", "gemma-2-9b": "gemma-2-9b.json",
             "qwen2.5-7b": "qwen2.5-7b.json", "llama-3-8b": "meta-llama-3-8b.json",
             "phi-3-mini": "phi-3-mini-4k-instruct.json", "gpt2": "gpt2.json",
             "command-r": "c4ai-command-r-v01.json"}
    for name, fname in pairs.items():
        a, b = get_model(name), Model.from_hf_config(CONFIGS / fname)
        assert a.arch() == b.arch(), name


def test_llama1_sizes_match_the_paper():
    # LLaMA paper (arXiv:2302.13971) Table 2: 6.7B, 13.0B, 32.5B, 65.2B (one decimal)
    for name, published in [("llama-7b", 6.7e9), ("llama-13b", 13.0e9), ("llama-33b", 32.5e9),
                            ("llama-65b", 65.2e9)]:
        assert abs(get_model(name).total_params - published) <= 0.1e9, name


def test_exact_count_reduces_to_gpt_formula_under_gpt_conventions():
    # Second derivation: H d_head = d, d_ff = 4d, plain MLP, tied, no biases/norms/positions.
    for L, d, V, H in [(12, 768, 50257, 12), (32, 4096, 32000, 32), (80, 8192, 32000, 64)]:
        exact = total_params(n_vocab=V, d_model=d, n_layers=L, n_heads=H, n_kv_heads=H,
                             d_head=d // H, d_ff=4 * d, n_mlp_mats=2, tied=1,
                             norm_vecs_layer=0, norm_vecs_final=0)
        assert exact == gpt_params(n_layers=L, d_model=d, n_vocab=V) == 12 * L * d * d + V * d


def test_phi2_and_opt_match_published_counts():
    # microsoft/phi-2 model card: "2.7 billion parameters" (truncated, not rounded: 2.78B)
    assert 2.7e9 <= get_model("phi-2").total_params < 2.8e9
    # OPT paper (Zhang et al. 2022) Table 1: 6.7B
    assert abs(get_model("opt-6.7b").total_params - 6.7e9) <= 0.05e9
