"""Exact parameter counts of real Hugging Face configs against the counts their authors published.

Every catalog model is backed by a vendored config.json (lib/llm_arithmetic/catalog/data/models/,
provenance in tests/configs/SOURCES.md) and a published count with its source
(catalog/data/models.toml). The published figures are not produced by this package: each comes
from a checkpoint index, a paper or a model card. Where a figure is rounded ("12.9B"), the test
allows exactly the rounding (or truncation) of its last digit. Other tests below use published
splits (non-embedding counts) and second derivations.
"""
from __future__ import annotations

import pytest

from llm_arithmetic import get_model
from llm_arithmetic.book.tables import rounds_to
from llm_arithmetic.catalog.model_catalog import CATALOG
from llm_arithmetic.formulas.params import gpt_params, total_params


def _published_ok(computed: int, published: int, exact: bool) -> bool:
    if exact:
        return computed == published
    digits = str(published).rstrip("0")
    unit = 10 ** (len(str(published)) - len(digits))
    return rounds_to(computed / unit, str(published // unit))


@pytest.mark.parametrize("name", list(CATALOG))
def test_total_params_equal_the_published_count(name):
    e = CATALOG[name]
    assert e.published_params, f"{name} has no published count"
    assert e.published_params_source, f"{name}: the published count has no source"
    assert _published_ok(e.model.total_params, e.published_params, e.published_params_exact), (
        f"{name}: {e.model.total_params:,} vs published {e.published_params:,} "
        f"({e.published_params_source})")


@pytest.mark.parametrize("name", [n for n, e in CATALOG.items() if e.published_active_params])
def test_active_params_equal_the_published_count(name):
    e = CATALOG[name]
    m = e.model
    active = m.active_params - (m.n_vocab * m.d_model
                                if e.published_active_excludes_input_embedding else 0)
    assert _published_ok(active, e.published_active_params, False), (name, active)


def test_exact_counts_cover_every_new_family():
    families = {e.model.family for e in CATALOG.values() if e.published_params_exact}
    assert {"qwen3", "qwen3_moe", "gemma3", "gemma3_text", "deepseek_v2", "gpt_oss", "olmo2",
            "falcon", "llama4", "llama", "mistral", "mixtral", "qwen2", "gemma2",
            "phi3", "gpt2", "qwen3_5", "gemma4", "mistral3", "smollm3", "gpt_neox",
            "minimax_m1", "phi4flash", "hunyuan_v1_moe"} <= families


def test_mixtral_active_params_second_derivation():
    m = get_model("mixtral-8x7b")
    assert m.n_experts == 8 and m.n_active_experts == 2
    # active = total - (E - k) experts' MLPs in every layer
    expert = 3 * m.d_model * m.d_ff
    assert m.total_params - m.active_params == m.n_layers * (8 - 2) * expert


def test_non_embedding_counts_published_in_reports():
    # Gemma 2 report Table 2: 8,324,201,984 non-embedding (exact); tied, so one table to remove
    g2 = get_model("gemma-2-9b")
    assert g2.total_params - g2.n_vocab * g2.d_model == 8_324_201_984
    # Gemma report Table 2: 7B non-embedding 7,751,248,896 (exact)
    g = get_model("gemma-7b")
    assert g.total_params - g.n_vocab * g.d_model == 7_751_248_896
    # Qwen2.5 card: non-embedding 6.53B, excluding embed_tokens and the untied lm_head
    q = get_model("qwen2.5-7b")
    assert abs(q.total_params - 2 * q.n_vocab * q.d_model - 6.53e9) <= 0.005e9
    # Qwen3-8B: non-embedding 6.95B on its model card (6,946,075,648 exact)
    q3 = get_model("qwen3-8b")
    assert abs(q3.total_params - 2 * q3.n_vocab * q3.d_model - 6.95e9) <= 0.005e9


def test_pythia_non_embedding_count_matches_the_paper():
    # Biderman et al. 2023 (arXiv:2304.01373) Table 1: Pythia 2.8B, 2,517,652,480 non-embedding
    # parameters; the untied embed_in and embed_out are the embedding parameters
    m = get_model("pythia-2.8b")
    assert not m.tied
    assert m.total_params - 2 * m.n_vocab * m.d_model == 2_517_652_480
    # second derivation from the module shapes a user printed for pythia-2.8b-deduped (search
    # index file id 52692317637): query_key_value 2560 -> 7680, dense 2560 -> 2560,
    # dense_h_to_4h 2560 -> 10240, dense_4h_to_h 10240 -> 2560, all with bias; two LayerNorms
    # (weight + bias) per block and a final one; Embedding(50304, 2560) twice
    block = (2560 * 7680 + 7680) + (2560 * 2560 + 2560) + (2560 * 10240 + 10240) \
        + (10240 * 2560 + 2560) + 2 * 2 * 2560
    assert m.total_params == 32 * block + 2 * 2560 + 2 * 50304 * 2560


def test_checkpoint_byte_totals():
    # gpt-oss index total_size: experts in MXFP4 (17 bytes per 32 weights), the rest bf16
    assert get_model("gpt-oss-20b").weight_bytes() == 13_761_264_768
    assert get_model("gpt-oss-120b").weight_bytes() == 65_248_815_744


def test_falcon_checkpoints_store_the_tied_head_twice():
    # the published totals count lm_head.weight, a stored copy of the tied embedding
    for name, stored in [("falcon-7b", 7_217_189_760), ("falcon-40b", 41_835_970_560)]:
        m = get_model(name)
        assert m.tied and m.total_params + m.n_vocab * m.d_model == stored


def test_deepseek_v3_mtp_module_is_reported_apart():
    # README: 685B on the Hub = 671B main + 14B MTP; the Hub's element count adds the fp8
    # scale tensors (41,540,496 elements, derived in tests/configs/FAMILIES.md)
    m = get_model("deepseek-v3")
    (mtp,) = m.extras
    assert not mtp.in_total and abs(mtp.params - 14e9) < 0.55e9
    assert m.total_params + mtp.params + 41_540_496 == 684_531_386_000


def test_multimodal_totals_count_the_vision_tower():
    # the language model is what a decoded token reads; the published total is the checkpoint
    g = get_model("gemma-3-4b")
    assert g.language_model_params == 3_880_263_168  # text split in FAMILIES.md
    assert g.total_params == 4_300_079_472
    scout = get_model("llama-4-scout")
    assert scout.language_model_params == 107_769_861_120
    # Mistral Small 3.1: its language model is Devstral Small 1.1's and Magistral Small's
    # published text-only checkpoint (keras-hub presets "params": 23572403200, the same shapes;
    # llama.cpp's n_params of the GGUF, which leaves the tower to the mmproj file); the
    # difference is the Pixtral tower and projector (tests/configs/SOURCES.md section 11)
    ms = get_model("mistral-small-3.1-24b")
    assert ms.language_model_params == 23_572_403_200
    assert ms.total_params == 24_011_361_280


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


@pytest.mark.parametrize("name", [n for n, e in CATALOG.items() if e.model.is_uniform])
def test_stack_sum_equals_the_uniform_closed_form(name):
    # second derivation: the stack's sum over layer kinds vs the uniform-decoder formulas
    m = get_model(name)
    from llm_arithmetic import numeric as N
    arch = m.arch()
    assert m.total_params == N.total_params(**arch)
    assert m.active_params == N.active_params(**arch)
    assert m.matmul_params == N.matmul_params(**arch)
    assert m.decode_read_params == N.decode_read_params(**arch)
    assert m.kv_cache_bytes_per_token() == N.kv_cache_bytes_per_token(
        n_layers=m.n_layers, n_kv_heads=m.n_kv_heads, d_head=m.d_head)
