"""Bad model input: a clear ConfigError that names the field, never a number from nonsense."""
from __future__ import annotations

import json

import pytest

from llm_arithmetic import ConfigError, Model, read_config

BASE = {"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 11008}


def _with(**changes):
    cfg = dict(BASE)
    for k, v in changes.items():
        if v is ...:
            cfg.pop(k)
        else:
            cfg[k] = v
    return cfg


@pytest.mark.parametrize("field", ["vocab_size", "hidden_size", "num_hidden_layers",
                                   "num_attention_heads", "intermediate_size", "model_type"])
def test_missing_field_is_named(field):
    with pytest.raises(ConfigError, match=f"missing field '{field}'"):
        read_config(_with(**{field: ...}))


@pytest.mark.parametrize("value", ["4096", 4096.5, True, [4096]])
def test_non_integer_field_is_named(value):
    with pytest.raises(ConfigError, match="'hidden_size' must be an integer"):
        read_config(_with(hidden_size=value))


@pytest.mark.parametrize("value", [0, -4096])
def test_non_positive_field_is_named(value):
    with pytest.raises(ConfigError, match="'hidden_size' must be positive"):
        read_config(_with(hidden_size=value))


def test_kv_heads_that_do_not_divide():
    with pytest.raises(ConfigError, match="'num_key_value_heads' \\(7\\) does not divide"):
        read_config(_with(num_key_value_heads=7))


def test_heads_that_do_not_divide_hidden_without_head_dim():
    with pytest.raises(ConfigError, match="does not divide the hidden size"):
        read_config(_with(num_attention_heads=48, num_key_value_heads=48))
    # an explicit head_dim makes it legal (Gemma-style)
    m = read_config(_with(num_attention_heads=48, num_key_value_heads=48, head_dim=64))
    assert m.d_head == 64


def test_unsupported_model_type_lists_supported():
    with pytest.raises(ConfigError, match="unsupported model_type 't5'.*llama"):
        read_config(_with(model_type="t5"))


def test_moe_with_more_active_than_total():
    cfg = _with(model_type="mixtral", num_local_experts=2, num_experts_per_tok=4)
    with pytest.raises(ConfigError, match="'num_experts_per_tok' \\(4\\) exceeds"):
        read_config(cfg)


def test_unmodelled_feature_is_refused_not_miscounted():
    cfg = _with(model_type="cohere", use_qk_norm=True)
    with pytest.raises(ConfigError, match="use_qk_norm"):
        read_config(cfg)


def test_malformed_json_names_the_position(tmp_path):
    p = tmp_path / "config.json"
    p.write_text('{"model_type": "llama", "hidden_size": 4096,,}')
    with pytest.raises(ConfigError, match="malformed JSON .* line 1 column"):
        read_config(p)


def test_json_that_is_not_an_object(tmp_path):
    p = tmp_path / "config.json"
    p.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="expected a JSON object"):
        read_config(p)


def test_missing_file():
    with pytest.raises(ConfigError, match="no such config file"):
        read_config("/nonexistent/config.json")


def test_name_from_the_folder_of_a_config_json(tmp_path):
    d = tmp_path / "my-model"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(BASE))
    assert read_config(d / "config.json").name == "my-model"


@pytest.mark.parametrize("field,value,msg", [
    ("n_layers", 0, "must be positive"), ("d_model", 2.5, "must be an integer"),
    ("n_mlp_mats", 4, "must be 2 or 3"), ("n_kv_heads", 3, "does not divide"),
    ("n_active_experts", 2, "exceeds"), ("n_positions", -1, "non-negative"),
])
def test_model_validates_its_fields(field, value, msg):
    kw = dict(name="x", n_vocab=10, d_model=8, n_layers=2, n_heads=4, n_kv_heads=2, d_head=2,
              d_ff=16)
    kw[field] = value
    with pytest.raises(ConfigError, match=f"x: {field} .*{msg}"):
        Model.transformer(**kw)


def test_sliding_window_layers_per_family():
    from llm_arithmetic import get_model
    # Mistral 7B v0.1: every layer windowed at 4096 (Jiang et al. 2023, "sliding window attention")
    m = get_model("mistral-7b")
    assert (m.sliding_window, m.n_window_layers) == (4096, 32)
    # Gemma 2: local and global layers alternate (Gemma 2 report, section 2)
    g = get_model("gemma-2-9b")
    assert (g.sliding_window, g.n_window_layers) == (4096, 21)
    # Qwen2: a window only when use_sliding_window is set, from layer max_window_layers on
    q = read_config(_with(model_type="qwen2", sliding_window=4096,
                                   use_sliding_window=True, max_window_layers=28))
    assert q.n_window_layers == 32 - 28
    assert read_config(_with(model_type="qwen2", sliding_window=4096)).n_window_layers == 0
    # Llama has no window, whatever stray field a config carries
    assert read_config(_with(sliding_window=4096)).n_window_layers == 0


def test_window_fields_are_validated():
    kw = dict(name="x", n_vocab=10, d_model=8, n_layers=2, n_heads=4, n_kv_heads=2, d_head=2,
              d_ff=16)
    with pytest.raises(ConfigError, match="n_window_layers \\(3\\) exceeds n_layers"):
        Model.transformer(sliding_window=4, n_window_layers=3, **kw)
    with pytest.raises(ConfigError, match="no sliding_window"):
        Model.transformer(n_window_layers=1, **kw)
