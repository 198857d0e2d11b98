"""Gemma 3n E2B and E4B (``gemma3n``, ``gemma3n_text``): AltUp, LAuReL, KV-sharing layers, a
width per layer, per-layer input embeddings (tests/configs/FAMILIES.md section 14.25).

Independent sources: the meta-device count of the language model in
``tests/data/ground_truth.json`` (transformers 5.24.0, ``Gemma3nForCausalLM`` built from the
file's ``text_config``: ``scripts/ground_truth/count.py`` counts it there because the wrapper's
timm vision tower cannot be built in that environment) and, beside it, of the audio encoder and
the two embedders (``towers``, built without timm); timm's vision network built on the meta
device (``tests/data/ground_truth_timm.json``, ``scripts/ground_truth/count_timm.py``) and
keras-hub's preset table; the module lists of ``modeling_gemma3n.py`` and timm's
``mobilenetv5.py`` read by hand (the terms below), and the configs' own sizes. The KV figures
are multiplied out from the config in each test.
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


def towers(name: str) -> dict:
    """The meta-device counts of what of the wrapper builds without timm (transformers 5.24.0:
    Gemma3nAudioEncoder, embed_audio, embed_vision; ``scripts/ground_truth/count.py``)."""
    return {k: v["params"] for k, v in
            TRUTH["models"][FILES[name].relative_to(ROOT).as_posix()]["towers"].items()}


def audio_by_hand(a: dict) -> int:
    """Gemma3nAudioEncoder read tensor by tensor (modeling_gemma3n.py, transformers 5.24.0):
    subsample_conv_projection.conv_0 (1 -> c0, 3 x 3, no bias) and its norm (c0), conv_1
    (c0 -> c1, 3 x 3) and its norm (c1), input_proj_linear (c1 x F -> h), F the mel bins left
    after two stride-2 convolutions over input_feat_size padded by 1 on each side; per
    conformer block: ffw_layer_start and ffw_layer_end (pre_layer_norm h, ffw_layer_1 h x 4h,
    ffw_layer_2 4h x h, post_layer_norm h), attention (pre_attn_norm h, attn.q/k/v_proj h x h,
    attn.per_dim_scale h / heads, attn.relative_position_embedding.pos_proj h x h, post h x h,
    post_norm h), lconv1d (pre_layer_norm h, linear_start h x 2h, depthwise_conv1d h x 1 x k,
    conv_norm h, linear_end h x h) and norm h."""
    h, c0, c1 = a["hidden_size"], *a["sscp_conv_channel_size"]
    f = a["input_feat_size"]
    for _ in range(2):
        f = (f + 2 - 3) // 2 + 1
    subsample = 1 * c0 * 9 + c0 + c0 * c1 * 9 + c1 + c1 * f * h
    ffw = h + h * 4 * h + 4 * h * h + h
    attention = h + 3 * h * h + h // a["conf_num_attention_heads"] + h * h + h * h + h
    lconv = h + h * 2 * h + h * a["conf_conv_kernel_size"] + h + h * h
    return subsample + a["conf_num_hidden_layers"] * (2 * ffw + attention + lconv + h)


def embedder_by_hand(tower: dict, d_text: int) -> int:
    """Gemma3nMultimodalEmbedder: embedding (vocab x width), hard_embedding_norm and
    soft_embedding_norm (width each), embedding_projection (width x d_text); the
    post-projection norm is built with_scale=False (no weight)."""
    w = tower["hidden_size"]
    return tower["vocab_size"] * w + w + w + w * d_text


def mobilenetv5_300m_enc_by_hand() -> tuple[int, int]:
    """timm's MobileNet v5 300M encoder summed block by block from ``_gen_mobilenet_v5``'s
    arch_def (huggingface/pytorch-image-models@aa4b5850c1543fa488abf260f18390eda46cf85d,
    ``timm/models/mobilenetv5.py``; ``er`` EdgeResidual, ``uir`` UniversalInvertedResidual,
    ``mqa`` MobileAttention, all RmsNorm2d and with layer scale, ``_create_mnv5_encoder``'s
    MSFA). Returns (parameters, output channels of the convolutions followed by a norm in
    the EdgeResidual, UniversalInvertedResidual and MSFA blocks)."""
    biasable = 0

    def er(cin, k, e, cout):  # conv_exp k x k cin -> cin e, norm; conv_pwl 1x1, norm
        nonlocal biasable
        mid = cin * e
        biasable += mid + cout
        return k * k * cin * mid + mid + mid * cout + cout

    def uir(cin, a, k, e, cout, scale=True):  # dw_start a x a; pw_exp; dw_mid k x k; pw_proj
        nonlocal biasable
        mid = cin * e
        n = (a * a * cin + cin) if a else 0
        n += cin * mid + mid + ((k * k * mid + mid) if k else 0) + mid * cout + cout
        biasable += (cin if a else 0) + mid + (mid if k else 0) + cout
        return n + (cout if scale else 0)

    def mqa(cin, heads, d, kv_stride, cout):  # norm; query; key and value (strided dw 3x3
        kv = cin * d + ((9 * cin + cin) if kv_stride > 1 else 0)  # with its norm); output
        return cin + cin * heads * d + 2 * kv + heads * d * cout + cout

    stem = 3 * 3 * 3 * 64 + 64 + 64  # conv_stem: 3 x 3 conv with bias, norm
    def times(n, block):  # n blocks alike (each one's biases counted)
        return sum(block() for _ in range(n))

    s0 = er(64, 3, 4, 128) + times(2, lambda: er(128, 3, 4, 128))
    s1 = uir(128, 3, 5, 6, 256) + times(2, lambda: uir(256, 5, 0, 4, 256)) + \
        times(2, lambda: uir(256, 3, 0, 4, 256))
    s2 = uir(256, 5, 5, 6, 640) + times(7, lambda: uir(640, 5, 0, 4, 640)) + \
        uir(640, 0, 0, 1, 640) + \
        times(14, lambda: mqa(640, 12, 64, 2, 640) + uir(640, 0, 0, 2, 640))
    s3 = uir(640, 5, 5, 6, 1280) + \
        times(19, lambda: mqa(1280, 16, 96, 1, 1280) + uir(1280, 0, 0, 2, 1280))
    # MSFA: a UIR (no layer scale) over the last two stages' outputs concatenated, then a norm
    msfa = uir(640 + 1280, 0, 0, 2, 2048, scale=False) + 2048
    return stem + s0 + s1 + s2 + s3 + msfa, biasable


TIMM = json.loads((ROOT / "tests" / "data" / "ground_truth_timm.json").read_text(
    encoding="utf-8"))


def test_mobilenet_v5_by_hand_meta_and_keras_hub():
    """Three figures for the vision tower: the sum by hand above, timm's network built on the
    meta device (``scripts/ground_truth/count_timm.py``), and keras-hub's port of the same
    weights (keras-team/keras-hub@71453d08f59edc90d276e999319fc51e61cbf82c,
    ``keras_hub/src/models/mobilenetv5/mobilenetv5_presets.py``: "params": 294_284_096 for
    ``mobilenetv5_300m_enc_gemma3n``). keras-hub's blocks give every convolution followed by
    an RMS norm a bias (``use_bias = self.norm_layer == "rms_norm"`` in
    ``mobilenetv5_blocks.py``) that timm's network and the checkpoint do not have (its
    converter ports a bias only where the checkpoint holds one): those biases are the gap."""
    params, biasable = mobilenetv5_300m_enc_by_hand()
    built = TIMM["models"]["mobilenetv5_300m_enc"]
    assert built["persistent_buffers"] == 0 and built["num_features"] == 2048
    assert params == built["params"] == 294_126_912
    assert biasable == 157_184
    assert params + biasable == 294_284_096


@pytest.mark.parametrize("name", sorted(FILES))
def test_the_wrapper_counts_both_towers_and_their_embedders(name):
    cfg = json.loads(FILES[name].read_text(encoding="utf-8"))
    t, a, v = cfg["text_config"], cfg["audio_config"], cfg["vision_config"]
    built = towers(name)
    assert built["audio_tower"] == audio_by_hand(a) == 681_348_640
    assert built["embed_audio"] == embedder_by_hand(a, t["hidden_size"])
    assert built["embed_vision"] == embedder_by_hand(v, t["hidden_size"])
    vision = TIMM["models"][v["architecture"]]["params"]
    m = read_config(FILES[name])
    extras = {x.name: x for x in m.extras}
    assert extras["vision tower and embedder"].params == vision + built["embed_vision"]
    assert extras["audio tower and embedder"].params == \
        built["audio_tower"] + built["embed_audio"]
    # the whole checkpoint: the language model, both towers and both embedders as built,
    # plus the k/v weights of the sharing layers the checkpoint still stores
    whole = meta(name)["params"] + sum(built.values()) + vision
    assert m.total_params == whole + unused_kv_by_hand(t)
    assert m.total_params == {"e2b": 5_439_438_272, "e4b": 7_849_978_192}[name]
    # the Hub's rounded "actual parameter counts" (huggingface.co/blog/gemma3n): 5B and 8B
    assert round(m.total_params / 1e9) == {"e2b": 5, "e4b": 8}[name]
    # a decoded token runs the language model only: the towers are not read
    text = read_config(t)
    assert not extras["vision tower and embedder"].read
    assert m.decode_read_params == text.decode_read_params
    assert m.active_params == text.active_params


def test_an_unknown_timm_network_is_refused_by_name():
    cfg = json.loads(FILES["e2b"].read_text(encoding="utf-8"))
    cfg["vision_config"] = dict(cfg["vision_config"], architecture="mobilenetv5_base")
    with pytest.raises(ConfigError, match=r"field 'vision_config.architecture' = "
                       r"'mobilenetv5_base' names a timm vision network whose parameter count "
                       r"the library does not hold \(it knows \['mobilenetv5_300m_enc'\]\).*"
                       r"'text_config' \(model_type 'gemma3n_text'\)"):
        read_config(cfg)


@pytest.mark.parametrize("tower, change, pattern", [
    ("vision_config", {"model_args": {"depth": 3}}, r"field 'model_args'"),
    ("vision_config", {"hidden_size": 1024},
     r"field 'vision_config.hidden_size' \(1024\) must be the width of "
     r"mobilenetv5_300m_enc's features \(2048\)"),
    ("audio_config", {"conf_num_attention_heads": 7},
     r"field 'conf_num_attention_heads' \(7\) does not divide 'hidden_size' \(1536\)"),
    ("audio_config", {"sscp_conv_kernel_size": [[3, 3]]},
     r"field 'sscp_conv_kernel_size' must hold 2 pairs"),
])
def test_bad_tower_fields_are_refused_naming_them(tower, change, pattern):
    cfg = json.loads(FILES["e2b"].read_text(encoding="utf-8"))
    cfg[tower] = dict(cfg[tower], **change)
    with pytest.raises(ConfigError, match=pattern):
        read_config(cfg)


def test_missing_towers_take_the_configuration_classes_defaults():
    """Gemma3nConfig builds Gemma3nAudioConfig() and Gemma3nVisionConfig() for absent
    objects; their defaults are the released files' towers."""
    cfg = json.loads(FILES["e4b"].read_text(encoding="utf-8"))
    bare = {k: v for k, v in cfg.items() if k not in ("audio_config", "vision_config")}
    assert read_config(bare).total_params == read_config(cfg).total_params


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
