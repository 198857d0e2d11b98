"""Families the library reads, each from a real ``config.json`` (``tests/configs``, SOURCES.md
section 8), checked against two independent sources:

* the meta-device count of ``tests/data/ground_truth.json`` (the transformers release that
  defines the family instantiated the file on PyTorch's meta device,
  ``scripts/ground_truth/count.py``); each file says whether the library's count equals the
  parameters alone or the parameters plus the persistent buffers a checkpoint stores;
* the hand derivations of ``tests/configs/FAMILIES.md`` section 15: the KV bytes per token below
  are written as the products of the config's own numbers, and the published counts (model cards)
  are compared at the precision they are published with.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from llm_arithmetic.catalog.readers import read_config
from llm_arithmetic.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "tests" / "configs"
TRUTH = json.loads((ROOT / "tests" / "data" / "ground_truth.json").read_text(encoding="utf-8"))

# file -> (which meta count the library equals, KV bytes per token at 16 bits: layers x K and V x
# KV heads x head width x 2 bytes, or MLA's latent and rotary key per layer)
READ = {
    "qwen2.5-0.5b-instruct": ("params", 24 * 2 * 2 * 64 * 2),
    "mixtral-8x7b-v0.1": ("params", 32 * 2 * 8 * 128 * 2),
    "gpt-oss-20b": ("params", 24 * 2 * 8 * 64 * 2),
    "c4ai-command-r-v01": ("params", 40 * 2 * 64 * 128 * 2),
    "deepseek-r1": ("params+buffers", 61 * (512 + 64) * 2),
    "glm-4.5": ("params+buffers", 92 * 2 * 8 * 128 * 2),
    "olmoe-1b-7b-0125-instruct": ("params", 16 * 2 * 16 * 128 * 2),
    # grouped-query (4 KV heads of 128), every layer windowed: the bytes before the window fills
    "starcoder2-7b": ("params", 32 * 2 * 4 * 128 * 2),
    # multi-query: one key and one value head per layer
    "starcoderbase-7b": ("params", 42 * 2 * 1 * 128 * 2),
}
# a family no reader knows: a vendored file relabelled as a type that transformers 5.24.0 does
# not define either (every vendored family file has a reader since issue 30)
RELABELLED = {
    "starcoder2-7b": ("starcoder3", "Starcoder3ForCausalLM"),
    "olmoe-1b-7b-0125-instruct": ("olmoe2", "Olmoe2ForCausalLM"),
    "mimo-7b-base": ("mimo3", "MiMo3ForCausalLM"),
    "step-3.7-flash": ("step4", "Step4ForCausalLM"),
}


def truth(name: str) -> dict:
    return TRUTH["models"][f"tests/configs/{name}.json"]


def test_at_least_thirty_families_are_vendored():
    types = {json.loads(p.read_text(encoding="utf-8"))["model_type"]
             for p in CONFIGS.glob("*.json")}
    assert len(types) >= 30, sorted(types)


@pytest.mark.parametrize("name", sorted(READ))
def test_count_equals_the_meta_device_count(name):
    which, _ = READ[name]
    t = truth(name)
    assert "config_mismatch" not in t and t["model_type"] is not None
    expected = t["params"] + (t["persistent_buffers"] if which == "params+buffers" else 0)
    assert read_config(CONFIGS / f"{name}.json").total_params == expected
    if which == "params":
        assert t["persistent_buffers"] == 0
    else:  # the router's e_score_correction_bias, one per expert and MoE layer
        assert set(t["persistent_buffer_names"]) == {"e_score_correction_bias"}


@pytest.mark.parametrize("name", sorted(READ))
def test_kv_bytes_per_token_equal_the_hand_derivation(name):
    assert read_config(CONFIGS / f"{name}.json").kv_cache_bytes_per_token() == READ[name][1]


def _without_both_embeddings(m):
    return m.active_params - 2 * m.n_vocab * m.d_model


@pytest.mark.parametrize("name, published, scale, digits", [
    # SOURCES.md section 8: exact where an index total_size gives it, else as the card rounds
    ("mixtral-8x7b-v0.1", 46_702_792_704, 1, 0),
    ("gpt-oss-20b", 20_914_757_184, 1, 0),
    ("qwen2.5-0.5b-instruct", 0.49e9, 1e9, 2),
    ("c4ai-command-r-v01", 35e9, 1e9, 0),
    ("deepseek-r1", 671e9, 1e9, 0),
    ("olmoe-1b-7b-0125-instruct", 6.9e9, 1e9, 1),
    ("starcoder2-7b", 7e9, 1e9, 0),
    ("starcoderbase-7b", 7e9, 1e9, 0),
])
def test_count_rounds_to_the_published_one(name, published, scale, digits):
    total = read_config(CONFIGS / f"{name}.json").total_params
    assert round(total / scale, digits) == round(published / scale, digits)


def test_qwen2_5_non_embedding_count_rounds_to_the_card():
    # tied: the card's 0.36B non-embedding leaves out the one V x d table
    m = read_config(CONFIGS / "qwen2.5-0.5b-instruct.json")
    assert round((m.total_params - m.n_vocab * m.d_model) / 1e9, 2) == 0.36


def test_olmoe_active_against_the_hand_derivation_and_the_paper():
    # FAMILIES.md 15.7: top-8 of 64 experts leaves out 16 layers x 56 experts x 3 d ff; the
    # card's 1.3B active counts both tables, the paper's "1B per input token" neither
    m = read_config(CONFIGS / "olmoe-1b-7b-0125-instruct.json")
    assert m.active_params == 6_919_161_856 - 16 * 56 * 3 * 2048 * 1024
    assert round(m.active_params / 1e9, 1) == 1.3
    assert round(_without_both_embeddings(m) / 1e9) == 1
    # the q/k norms span the whole projections (hidden_size wide): a head_dim that makes
    # H x head_dim differ from it is refused naming the field
    cfg = json.loads((CONFIGS / "olmoe-1b-7b-0125-instruct.json").read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=r"field 'head_dim' \(64\)"):
        read_config({**cfg, "head_dim": 64})


def test_glm_4_5_active_and_total_against_the_card():
    m = read_config(CONFIGS / "glm-4.5.json")
    # the card's 32B active leaves out both embedding matrices, as GLM-4.5-Air's 12B does
    assert round(_without_both_embeddings(m) / 1e9) == 32
    # its 355B total is not the decoder transformers builds (352.80B) nor that plus the MTP
    # layer the library reports apart (FAMILIES.md 15.6): the card rounds neither
    assert round(m.total_params / 1e9, 1) == 352.8
    assert [(e.name, e.in_total) for e in m.extras] == [("multi-token prediction", False)]


@pytest.mark.parametrize("name", sorted(RELABELLED))
def test_family_without_a_reader_is_refused_in_one_line(name):
    model_type, arch = RELABELLED[name]
    cfg = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    cfg.update(model_type=model_type, architectures=[arch])
    with pytest.raises(ConfigError, match=rf"unsupported model_type '{model_type}', "
                                          rf"architectures \['{arch}'\]: no reader knows its "
                                          r"layout") as err:
        read_config(cfg)
    assert "\n" not in str(err.value)


def test_starcoder2_keeps_the_window_and_ties_its_head():
    # FAMILIES.md 15.8: every layer keeps the last 4,096 tokens; the head is the embedding
    # table (Starcoder2Config ties it by default), so a decode step reads the whole table
    m = read_config(CONFIGS / "starcoder2-7b.json")
    assert m.kv_cache_bytes(16_384) == 32 * 4096 * 2 * 4 * 128 * 2
    assert m.kv_cache_bytes_full_storage(16_384) == 32 * 16_384 * 2 * 4 * 128 * 2
    assert m.tied and m.decode_read_params == 7_173_923_840
    # without use_bias: no bias on q, k, v, o (d + 2 K dh + d) nor on c_fc, c_proj (ff + d)
    cfg = json.loads((CONFIGS / "starcoder2-7b.json").read_text(encoding="utf-8"))
    plain = read_config({**cfg, "use_bias": False}).total_params
    assert m.total_params - plain == 32 * (2 * 4608 + 2 * 4 * 128 + 18432 + 4608)


def test_starcoderbase_is_multi_query_with_learned_positions():
    # FAMILIES.md 15.8: one key and one value head of 128 (c_attn d -> d + 2 d_head); a decode
    # step reads one row of the 8,192 learned positions; without multi_query, 32 KV heads
    m = read_config(CONFIGS / "starcoderbase-7b.json")
    assert {(run.attention.n_heads, run.attention.n_kv_heads) for run in m.layers} == {(32, 1)}
    assert m.decode_read_params == 7_327_263_232 - (8192 - 1) * 4096
    cfg = json.loads((CONFIGS / "starcoderbase-7b.json").read_text(encoding="utf-8"))
    mha = read_config({**cfg, "multi_query": False})
    assert mha.total_params - m.total_params == 42 * 2 * (31 * 128) * (4096 + 1)
    with pytest.raises(ConfigError, match=r"field 'add_cross_attention' = True is not "
                                          r"supported"):
        read_config({**cfg, "add_cross_attention": True})


def test_deepseek_r1_is_deepseek_v3_shapes():
    # R1's file differs from V3's in transformers_version only
    r1 = json.loads((CONFIGS / "deepseek-r1.json").read_text(encoding="utf-8"))
    v3 = json.loads((ROOT / "lib/llm_arithmetic/catalog/data/models/deepseek-v3/config.json")
                    .read_text(encoding="utf-8"))
    assert {k for k in r1 if r1[k] != v3.get(k)} == {"transformers_version"}
    assert truth("deepseek-r1")["params"] == TRUTH["models"][
        "lib/llm_arithmetic/catalog/data/models/deepseek-v3/config.json"]["params"]


def test_chapter_3_meta_counts_are_the_ground_truth():
    # chapter 3 types the two meta-device counts as published inputs (the book needs no
    # PyTorch); they must be this file's
    nb = json.loads((ROOT / "notebooks" / "03-counting-parameters.ipynb").read_text("utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    typed = {name: int(value.replace("_", "")) for name, value in
             re.findall(r"^(META_COUNT_\w+) = ([\d_]+)$", code, re.M)}
    catalog = TRUTH["models"]["lib/llm_arithmetic/catalog/data/models/command-r/config.json"]
    assert typed == {"META_COUNT_COMMAND_R": catalog["params"],
                     "META_COUNT_OLMOE": truth("olmoe-1b-7b-0125-instruct")["params"]}


def test_mistral3_reads_pixtral_and_refuses_what_it_does_not_build():
    # Mistral Small 3.1 (mistral3): Pixtral's heads are hidden_size / num_attention_heads wide
    # whatever head_dim says, and the projector's biases follow multimodal_projector_bias
    path = ROOT / "lib/llm_arithmetic/catalog/data/models/mistral-small-3.1-24b/config.json"
    cfg = json.loads(path.read_text(encoding="utf-8"))
    base = read_config(cfg).total_params
    biased = {**cfg, "multimodal_projector_bias": True}
    assert read_config(biased).total_params - base == 2 * 5120  # linear_1 and linear_2 biases
    wide = {**cfg, "vision_config": {**cfg["vision_config"], "head_dim": 128}}
    with pytest.raises(ConfigError, match=r"field 'head_dim' = 128 is not supported"):
        read_config(wide)


@pytest.mark.parametrize("value", ["-1", 1.5, True, [], [-1, "-2"], {"layer": -1}])
def test_mistral3_vision_feature_layer_is_a_layer_choice(value):
    # Mistral3MultiModalProjector (transformers modeling_mistral3.py): linear_1 reads
    # vision hidden_size x (1 for an int index, len(list) for a list) inputs, so two listed
    # layers add one 1,024 x 5,120 block; anything else is refused naming the field
    path = ROOT / "lib/llm_arithmetic/catalog/data/models/mistral-small-3.1-24b/config.json"
    cfg = json.loads(path.read_text(encoding="utf-8"))
    two = read_config({**cfg, "vision_feature_layer": [-1, -2]}).total_params
    assert two - read_config(cfg).total_params == 1024 * 5120
    with pytest.raises(ConfigError, match=r"field 'vision_feature_layer' must be") as err:
        read_config({**cfg, "vision_feature_layer": value})
    assert "\n" not in str(err.value)


def test_smollm3_reads_nope_layers_and_refuses_a_window():
    # SmolLM3 3B: NoPE layers change no count; the file leaves the tie to SmolLM3Config (true)
    path = ROOT / "lib/llm_arithmetic/catalog/data/models/smollm3-3b/config.json"
    cfg = json.loads(path.read_text(encoding="utf-8"))
    m = read_config(cfg)
    assert m.tied and "tie_word_embeddings" not in cfg
    assert m.total_params == read_config({**cfg, "no_rope_layers": [1] * 36}).total_params
    with pytest.raises(ConfigError, match=r"field 'sliding_window' = 4096 is not supported"):
        read_config({**cfg, "use_sliding_window": True, "sliding_window": 4096})


@pytest.mark.parametrize("name, key, value", [
    # SmolLM3Config: no_rope_layers holds 1 (rotary) or 0 (NoPE) per layer
    ("smollm3-3b", "no_rope_layers", [2] * 36),
    # GPTNeoXConfig: rotary_pct is the fraction of each head's width that is rotated
    ("pythia-2.8b", "rotary_pct", "0.25"),
    ("pythia-2.8b", "rotary_pct", 4),
    ("pythia-2.8b", "rotary_pct", 0),
])
def test_issue_30_readers_refuse_a_wrong_position_field(name, key, value):
    path = ROOT / f"lib/llm_arithmetic/catalog/data/models/{name}/config.json"
    cfg = json.loads(path.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError, match=rf"field '{key}' must") as err:
        read_config({**cfg, key: value})
    assert "\n" not in str(err.value)
