"""Gemma 3n E2B and E4B (``gemma3n``, ``gemma3n_text``): AltUp, LAuReL, KV-sharing layers, a
width per layer, per-layer input embeddings (tests/configs/FAMILIES.md section 14.25).

Independent sources: the meta-device count of the language model in
``tests/data/ground_truth.json`` (transformers 5.24.0, ``Gemma3nForCausalLM`` built from the
file's ``text_config``: ``scripts/ground_truth/count.py`` counts it there because the wrapper's
timm vision tower cannot be built in that environment), the module list of
``modeling_gemma3n.py`` read by hand (the terms below), and the configs' own sizes. The KV
figures are multiplied out from the config in each test.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_arithmetic.catalog.readers import read_config
from llm_arithmetic.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
FILES = {name: ROOT / "tests" / "configs" / "reconstructed" / f"gemma-3n-{name}-it.json"
         for name in ("e2b", "e4b")}
TRUTH = json.loads((ROOT / "tests" / "data" / "ground_truth.json").read_text(encoding="utf-8"))


def text_config(name: str) -> dict:
    return json.loads(FILES[name].read_text(encoding="utf-8"))["text_config"]


def meta(name: str) -> dict:
    """The meta-device count of the language model (transformers 5.24.0)."""
    return TRUTH["models"][FILES[name].relative_to(ROOT).as_posix()]["text_config"]


def unused_kv_by_hand(t: dict) -> int:
    """k, v (H_kv x d_head x d each) and k norm (d_head) of every KV-sharing layer: the
    checkpoint stores them (the first transformers release of the family built them in every
    layer), transformers 5.24.0 builds none (FAMILIES.md section 14.25)."""
    per_layer = 2 * t["num_key_value_heads"] * t["head_dim"] * t["hidden_size"] + t["head_dim"]
    return t["num_kv_shared_layers"] * per_layer


def altup_laurel_by_hand(t: dict) -> int:
    """Module by module (modeling_gemma3n.py): per layer Gemma3nTextLaurelBlock (linear_left
    d x r, linear_right r x d, post_laurel_norm d) and Gemma3nTextAltUp (correct_output_scale
    d, correction_coefs n x n, prediction_coefs n x n^2, modality_router d x n, router_norm d);
    once, altup_projections and altup_unembed_projections, n - 1 matrices d x d each."""
    d, n, r, L = t["hidden_size"], t["altup_num_inputs"], t["laurel_rank"], \
        t["num_hidden_layers"]
    laurel = d * r + r * d + d
    altup = d + n * n + n * n * n + d * n + d
    return L * (laurel + altup) + 2 * (n - 1) * d * d


@pytest.mark.parametrize("name", sorted(FILES))
def test_total_is_the_meta_count_plus_the_stored_kv_weights_of_the_sharing_layers(name):
    t = text_config(name)
    m = read_config(t)
    truth = meta(name)
    assert truth["persistent_buffers"] == 0
    assert m.total_params == truth["params"] + unused_kv_by_hand(t)
    extras = {x.name: x.params for x in m.extras}
    assert extras["unused k, v and k-norm weights of the KV-sharing layers"] == \
        unused_kv_by_hand(t)
    # what transformers 5.24.0 builds, to the parameter
    assert m.total_params - unused_kv_by_hand(t) == truth["params"]
    by = truth["by_prefix"]
    assert extras["AltUp and LAuReL"] == altup_laurel_by_hand(t)
    assert by["model.altup_projections"] == by["model.altup_unembed_projections"] == \
        (t["altup_num_inputs"] - 1) * t["hidden_size"] ** 2
    # the per-layer table, apart as for Gemma 4 E2B
    n, w = t["num_hidden_layers"], t["hidden_size_per_layer_input"]
    assert by["model.embed_tokens_per_layer"] == t["vocab_size_per_layer_input"] * n * w


def test_published_sizes():
    """The Hugging Face blog's sizes (huggingface.co/blog/gemma3n, 2025-06-26): "E2B" and
    "E4B" are effective sizes, what must sit in accelerator memory, while "their actual
    parameter counts are 5B and 8B". The effective size is the language model without its
    two embedding tables (the per-layer table and the token table, both gathered a row per
    token); the actual counts include the vision and audio towers, which the language model
    alone does not."""
    for name, effective, raw in (("e2b", 2e9, 5e9), ("e4b", 4e9, 8e9)):
        t = text_config(name)
        m = read_config(t)
        tables = t["vocab_size_per_layer_input"] * t["num_hidden_layers"] * \
            t["hidden_size_per_layer_input"] + t["vocab_size"] * t["hidden_size"]
        assert abs(m.total_params - tables - effective) < 0.05 * effective
        assert 0.8 * raw < m.total_params < raw


@pytest.mark.parametrize("name", sorted(FILES))
def test_kv_cache_counts_the_sharing_layers_once_and_caps_the_windows(name):
    t = text_config(name)
    m = read_config(t)
    n, shared, window = t["num_hidden_layers"], t["num_kv_shared_layers"], t["sliding_window"]
    owners = t["layer_types"][:n - shared]
    sharers = t["layer_types"][n - shared:]
    per_layer = 2 * t["num_key_value_heads"] * t["head_dim"] * 2  # K and V, 16-bit [B/token]
    # E2B: 20 layers own a cache (16 sliding, 4 full), the last 10 share; E4B: 20 own it
    # (16 sliding, 4 full), the last 15 share
    assert (owners.count("sliding_attention"), owners.count("full_attention")) == (16, 4)
    assert m.kv_cache_bytes_per_token() == 20 * per_layer == 40_960
    s = 32_768
    cache = 16 * per_layer * min(s, window) + 4 * per_layer * s
    assert m.kv_cache_bytes(s) == cache == 285_212_672
    assert m.kv_cache_bytes(s, batch=3) == 3 * cache
    assert m.kv_cache_bytes(100) == 20 * per_layer * 100
    # a decode step reads the producers' cache again in every sharing layer
    again = sharers.count("sliding_attention") * per_layer * min(s, window) + \
        sharers.count("full_attention") * per_layer * s
    assert m.seq_bytes(s) == cache + again


@pytest.mark.parametrize("name", sorted(FILES))
def test_decode_reads_one_row_of_the_per_layer_table_and_no_unused_kv(name):
    from llm_arithmetic.estimate import estimate

    t = text_config(name)
    m = read_config(t)
    n, w, rows = t["num_hidden_layers"], t["hidden_size_per_layer_input"], \
        t["vocab_size_per_layer_input"]
    built = meta(name)["params"]
    # the model as built, less every row of the per-layer table but one; the tied token
    # table is read whole, as the head; AltUp and LAuReL are read
    assert m.decode_read_params == built - (rows - 1) * n * w
    e = estimate(m, bits_weight=16, context=1)
    assert e.weight_bytes == 2 * (built + unused_kv_by_hand(t))
    per_layer = 2 * t["num_key_value_heads"] * t["head_dim"] * 2
    assert e.decode_bytes_per_token == 2 * (built - (rows - 1) * n * w) + n * per_layer


def test_widths_per_layer_and_activation_sparsity():
    """A list of widths builds one MLP per layer (MatFormer slices); the sparsity pattern (a
    statistical top-k of the gate activations) changes neither the count nor the FLOPs: the
    gate and up products are computed in full before it and the down product takes the full
    width (transformers' Gemma3nTextMLP.forward, vLLM's Gemma3nMLP with GeluAndMulSparse)."""
    t = text_config("e2b")
    base = read_config(t)
    wide = dict(t, intermediate_size=[8192] * 20 + [4096] * 10)
    m = read_config(wide)
    d = t["hidden_size"]
    assert base.total_params - m.total_params == 10 * 3 * d * (8192 - 4096)
    dense = read_config(dict(t, activation_sparsity_pattern=[0.0] * 30))
    assert dense.total_params == base.total_params
    assert dense.decode_flops_per_token(4096) == base.decode_flops_per_token(4096)
    # a scalar width is every layer's
    assert read_config(dict(t, intermediate_size=8192)).total_params == base.total_params


def test_altup_and_laurel_are_read_and_multiplied():
    t = text_config("e2b")
    m = read_config(t)
    x = next(x for x in m.extras if x.name == "AltUp and LAuReL")
    assert x.read and x.in_total
    d, n, r, L = 2048, 4, 64, 30
    assert x.matmul == L * (2 * d * r + d * n + n ** 3 + n ** 2) + 2 * (n - 1) * d * d
    # two FLOPs per weight in a product, beside the others
    plain = read_config(dict(t, altup_num_inputs=1, laurel_rank=1))
    assert m.matmul_params - plain.matmul_params == x.matmul - next(
        y.matmul for y in plain.extras if y.name == "AltUp and LAuReL")


def test_the_wrapper_is_refused_for_its_timm_vision_tower():
    with pytest.raises(ConfigError, match=r"field 'vision_config.architecture' = "
                       r"'mobilenetv5_300m_enc' names a timm vision network.*'text_config' "
                       r"\(model_type 'gemma3n_text'\)"):
        read_config(FILES["e2b"])


@pytest.mark.parametrize("change, pattern", [
    ({"num_kv_shared_layers": 30},
     r"field 'num_kv_shared_layers' \(30\) must be less than 'num_hidden_layers' \(30\)"),
    ({"num_kv_shared_layers": 27}, r"field 'num_kv_shared_layers' \(27\) leaves no earlier "
                                   r"layer of kind \['full_attention'\]"),
    ({"altup_active_idx": 4}, r"field 'altup_active_idx' \(4\) must be less than "
                              r"'altup_num_inputs' \(4\)"),
    ({"intermediate_size": [8192] * 29}, r"field 'intermediate_size' has 29 entries for 30"),
    ({"activation_sparsity_pattern": [0.95] * 10}, r"field 'activation_sparsity_pattern'"),
    ({"laurel_rank": 0}, r"field 'laurel_rank' must be positive"),
])
def test_bad_input_is_refused_naming_the_field(change, pattern):
    with pytest.raises(ConfigError, match=pattern):
        read_config(dict(text_config("e2b"), **change))


@pytest.mark.parametrize("key, value", [("altup_num_inputs", 4), ("laurel_rank", 64),
                                        ("num_kv_shared_layers", 10)])
def test_other_families_refuse_gemma3n_keys(key, value):
    cfg = {"model_type": "gemma3_text", "vocab_size": 1000, "hidden_size": 64,
           "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
           "intermediate_size": 128, "head_dim": 16,
           key: value}
    with pytest.raises(ConfigError, match=f"field '{key}'"):
        read_config(cfg)
