"""Weights as shipped: the bytes a checkpoint's ``quantization_config`` implies (block-scaled
fp8, MXFP4, NVFP4, integer groups of compressed-tensors, AWQ and GPTQ), each layout against the
tensors its quantizer writes; refusals; the asked format overriding the shipped one."""
from __future__ import annotations

import dataclasses
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import pytest

from llm_arithmetic import estimate, get_model
from llm_arithmetic.catalog.quantization import find_scheme, read_scheme, shipped_bytes
from llm_arithmetic.catalog.readers import read_config
from llm_arithmetic.core.errors import ConfigError

CONFIGS = Path(__file__).parent / "configs"
MODELS = Path(__file__).resolve().parents[1] / "lib" / "llm_arithmetic" / "catalog" / "data" / \
    "models"


# ---- layouts ------------------------------------------------------------------------------------
def test_compressed_tensors_int4_layout():
    """pack_quantized.py: weight_packed (rows, cols / 8) int32, weight_shape 2 x int32, one
    16-bit scale per group; asymmetric groups add weight_zero_point (rows / 8, groups) int32."""
    q = {"quant_method": "compressed-tensors", "format": "pack-quantized",
         "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
             "num_bits": 4, "type": "int", "strategy": "group", "group_size": 32,
             "symmetric": True}}}}
    rows, cols = 7168, 2048
    s = read_scheme(q)
    assert s.matrix_bytes(rows, cols) == (rows * cols // 8 * 4 + 2 * 4
                                          + rows * (cols // 32) * 2)
    q["config_groups"]["group_0"]["weights"]["symmetric"] = False
    assert read_scheme(q).matrix_bytes(rows, cols) == (s.matrix_bytes(rows, cols)
                                                       + rows // 8 * (cols // 32) * 4)


#: his0si/EXAONE-4.0-1.2B @ 1840ff905c28f1484fa9321ba9535d525ecfe998 ``model/config.json``'s
#: ``quantization_config`` (search index file id 18524203130; tests/configs/SOURCES.md section
#: 15, where the rest of that file is vendored as ``reconstructed/exaone-4.0-1.2b.json``),
#: written by compressed-tensors 0.13.0: int4 groups of 128, symmetric, ``actorder`` "static".
EXAONE_INT4 = {
    "config_groups": {"group_0": {
        "format": "pack-quantized", "input_activations": None, "output_activations": None,
        "targets": ["Linear"],
        "weights": {"actorder": "static", "block_structure": None, "dynamic": False,
                    "group_size": 128, "num_bits": 4, "observer": "minmax",
                    "observer_kwargs": {}, "scale_dtype": None, "strategy": "group",
                    "symmetric": True, "type": "int", "zp_dtype": None}}},
    "format": "pack-quantized", "global_compression_ratio": None, "ignore": ["lm_head"],
    "kv_cache_scheme": None, "quant_method": "compressed-tensors",
    "quantization_status": "compressed", "sparsity_config": {}, "transform_config": {},
    "version": "0.13.0"}


@pytest.mark.parametrize("actorder, g_idx", [("static", False), ("weight", False),
                                             (None, False), ("group", True),
                                             ("dynamic", True), (True, True)])
def test_compressed_tensors_actorder_stores_a_group_index_only_for_group(actorder, g_idx):
    """EXAONE-4.0-1.2B in int4 groups of 128 (its derivative's record above), by hand from
    the shapes (d 2,048, 30 layers, 32 heads and 8 KV heads of 64, MLP 4,096, vocabulary
    102,400, tied): each of q, k, v, o, gate, up (out x 2,048) and down (2,048 x 4,096) stores
    out x in / 2 bytes of int4, one bf16 scale per 128 inputs of each output and the
    2 x int32 weight_shape; the embedding, q/k norms (64), two norms a layer and the final
    norm at 2 bytes. Only group ordering ("group", its alias "dynamic", or true) registers
    weight_g_idx, int32 per input column (compressed-tensors ``initialize_qparams`` @
    4cff614); "static" is an alias of "weight", which reorders while quantizing and stores
    no index (llm-compressor ``gptq_quantize.py`` @ 907a562). The file says "static":
    971,175,056 B; with group ordering 1,966,080 B more (30 x (6 x 2,048 + 4,096) x 4)."""
    cfg = json.loads((CONFIGS / "reconstructed" / "exaone-4.0-1.2b.json").read_text())
    q = json.loads(json.dumps(EXAONE_INT4))
    q["config_groups"]["group_0"]["weights"]["actorder"] = actorder
    cfg["quantization_config"] = q
    d, L, H, Hkv, dh, ff, V = 2048, 30, 32, 8, 64, 4096, 102400
    shapes = [(H * dh, d), (Hkv * dh, d), (Hkv * dh, d), (d, H * dh), (ff, d), (ff, d), (d, ff)]
    per = sum(o * i // 2 + o * (i // 128) * 2 + 8 + 4 * i * g_idx for o, i in shapes)
    rest = V * d + L * (2 * dh + 2 * d) + d
    total = L * per + 2 * rest
    assert total == (973_141_136 if g_idx else 971_175_056)
    m = read_config(cfg, name="exaone-4.0-1.2b-int4")
    assert m.weight_bytes() == total
    assert m.scheme.label == "int4 groups of 128" + (" and a group index" if g_idx else "")


def test_compressed_tensors_unknown_actorder_is_refused():
    q = json.loads(json.dumps(EXAONE_INT4))
    q["config_groups"]["group_0"]["weights"]["actorder"] = "random"
    with pytest.raises(ConfigError, match=r"'quantization_config\.config_groups\.group_0\."
                                          r"weights\.actorder' = 'random'"):
        read_scheme(q)


def test_awq_gemm_layout():
    """AutoAWQ's WQLinear_GEMM: qweight (in, out / 8) int32, qzeros (in / g, out / 8) int32,
    scales (in / g, out) fp16."""
    s = read_scheme({"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm",
                     "zero_point": True})
    out, inp = 14336, 4096
    assert s.matrix_bytes(out, inp) == (inp * out // 8 * 4 + inp // 128 * out // 8 * 4
                                        + inp // 128 * out * 2)
    # "version": null (no packing named) is read as the default, as vLLM's loader does
    none = read_scheme({"quant_method": "awq", "bits": 4, "group_size": 128, "version": None,
                        "zero_point": True})
    assert none.matrix_bytes(out, inp) == s.matrix_bytes(out, inp)


def test_nvfp4_layouts():
    """NVFP4: two E2M1 values a byte, an fp8 scale per 16 inputs, fp32 global scales
    (ModelOpt: weight_scale_2 and input_scale; compressed-tensors: weight_global_scale, and
    input_global_scale for static input scales)."""
    rows, cols = 5120, 25600
    body = rows * cols // 2 + rows * cols // 16
    mo = read_scheme({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
                      "exclude_modules": ["lm_head"]})
    assert mo.matrix_bytes(rows, cols) == body + 8
    cfg = json.loads((CONFIGS / "gemma-4-31b-it-nvfp4.json").read_text())
    ct = find_scheme(cfg)
    assert ct.label.startswith("NVFP4") and ct.matrix_bytes(rows, cols) == body + 8
    assert ct.kept("model.language_model.layers.0.self_attn.q_proj")
    assert not ct.kept("model.language_model.layers.0.mlp.gate_proj")


def test_gemma_4_nvfp4_keeps_attention_named_under_the_wrapper_in_16_bits():
    """nvidia/Gemma-4-31B-IT-NVFP4 lists its kept modules under the multimodal wrapper's names
    (``model.language_model.layers.N.self_attn*``): every attention layer stays bf16, only the
    60 x 3 MLP matrices of 21,504 x 5,376 are NVFP4 (two values a byte, an fp8 scale per 16,
    two fp32 global scales). By hand from the config: those matrices, every other parameter at
    2 B: 32,633,250,304 B, as the repository's 32.7 GB (its file tree on the Hub,
    https://huggingface.co/nvidia/Gemma-4-31B-IT-NVFP4/tree/main, tokenizer included); read
    as NVFP4 the attention gave 20.3 GB."""
    m = read_config(CONFIGS / "gemma-4-31b-it-nvfp4.json")
    rows, cols, n = 21504, 5376, 60 * 3
    mlp = n * (rows * cols // 2 + rows * cols // 16 + 8)
    assert m.weight_bytes() == mlp + (m.total_params - n * rows * cols) * 2 == 32_633_250_304
    assert m.scheme.kept("model.layers.59.self_attn.o_proj")
    assert not m.scheme.kept("model.layers.59.mlp.down_proj")


def test_block_fp8_scale_rounds_up_at_an_edge():
    s = read_scheme({"quant_method": "fp8", "weight_block_size": [128, 128]})
    # kv_a_proj_with_mqa: 576 = 4.5 blocks of rows, five scales per column of blocks
    assert s.matrix_bytes(576, 7168) == 576 * 7168 + 5 * 56 * 4


# ---- every quantized file the library reads ------------------------------------------------------
QUANTIZED = ["kimi-k2-instruct", "kimi-k2.5", "laguna-xs.2-fp8", "mimo-v2-flash",
             "minimax-m2.5", "deepseek-v3.2", "deepseek-v4-flash", "deepseek-v4-pro"]


@pytest.mark.parametrize("name", QUANTIZED)
def test_shipped_bytes_of_quantized_files(name):
    m = read_config(CONFIGS / f"{name}.json")
    assert m.scheme is not None
    b = shipped_bytes(m)
    assert m.weight_bytes() == b["experts"] + b["other"]
    assert m.weight_bytes(16) == 2 * m.total_params
    # a quantized checkpoint is smaller than its 16-bit count, larger than its elements alone
    assert m.weight_bytes() < m.weight_bytes(16)
    assert m.weight_bytes() > m.total_params * m.scheme.bits_int / 8 * (m.scheme.bits_int < 8)


def test_kimi_k2_5_keeps_attention_and_shared_experts_in_16_bits():
    m = read_config(CONFIGS / "kimi-k2.5.json")
    assert m.scheme.label == "int4 groups of 32"
    assert m.native_bits["default"] == 16
    # int4 + a bf16 scale per 32 + the packed shape, 2 x int32 per matrix
    assert float(m.native_bits["experts"]) == pytest.approx(4.5, abs=1e-5)


def test_minimax_keeps_its_router_not_its_gate_proj():
    m = read_config(CONFIGS / "minimax-m2.5.json")
    assert m.scheme.kept("model.layers.0.mlp.gate")
    assert not m.scheme.kept("model.layers.0.mlp.experts.0.gate_proj")
    assert m.native_bits["experts"] == 8 + 32 / 128 ** 2


# ---- DeepSeek-V4: fp8 blocks with E8M0 scales, MXFP4 experts (expert_dtype), fp32 mixers ---------
#: DeepSeek-V4-Pro's checkpoint as a public report lists it tensor by tensor (tests/configs/
#: SOURCES.md section 7, index file id 62525154746): (tensors, shape, bytes an element), the
#: multi-token-prediction module (mtp.0.*) left out. int8 experts hold two FP4 values a byte; the
#: scales are float8_e8m0fnu (1 B).
V4_PRO_LISTING = [
    (1, (129280, 7168), 2), (1, (129280, 7168), 2), (1, (7168,), 2),  # embed, head, norm
    (1, (4,), 4), (1, (4, 28672), 4), (1, (1,), 4),                    # hc_head base, fn, scale
    (61, (128,), 4), (61, (512,), 2), (61, (512,), 2), (61, (1536,), 2),  # sink, 3 norms
    (61, (4, 56), 1), (61, (512, 7168), 1),                            # wkv scale, weight
    (61, (128, 32), 1), (61, (16384, 4096), 1),                        # wo_a
    (61, (56, 128), 1), (61, (7168, 16384), 1),                        # wo_b
    (61, (12, 56), 1), (61, (1536, 7168), 1),                          # wq_a
    (61, (512, 12), 1), (61, (65536, 1536), 1),                        # wq_b
    (61, (7168,), 2), (61, (7168,), 2), (61, (384, 7168), 2),          # attn/ffn norm, gate
    (61 * 384, (3072, 224), 1), (61 * 384, (3072, 3584), 1),           # experts w1
    (61 * 384, (7168, 96), 1), (61 * 384, (7168, 1536), 1),            # w2
    (61 * 384, (3072, 224), 1), (61 * 384, (3072, 3584), 1),           # w3
    (61, (24, 56), 1), (61, (3072, 7168), 1), (61, (56, 24), 1),       # shared w1, w2
    (61, (7168, 3072), 1), (61, (24, 56), 1), (61, (3072, 7168), 1),   # w2, w3
    (2 * 61, (24,), 4), (2 * 61, (24, 28672), 4), (2 * 61, (3,), 4),   # hc_attn, hc_ffn
    (31, (128, 512), 4), (31, (512, 7168), 2), (31, (512, 7168), 2),   # HCA compressor
    (30, (4, 1024), 4), (30, (1024, 7168), 2), (30, (1024, 7168), 2),  # CSA compressor
    (30, (4, 256), 4), (30, (128,), 2), (30, (256, 7168), 2),          # indexer compressor
    (30, (256, 7168), 2), (30, (64, 7168), 2),                         # ..., weights_proj
    (30, (64, 12), 1), (30, (8192, 1536), 1),                          # indexer wq_b
    (3, (129280, 6), 8), (58, (384,), 4),                              # tid2eid, gate.bias
]


def test_deepseek_v4_pro_weights_are_its_checkpoints_tensors():
    """Every tensor of the list above, shapes times element bytes: 850,748,205,004 B, the
    hash-routing tables (int64) and the routers' fp32 correction biases included (18,705,408 B;
    850,729,499,596 before they were counted). The report's own total, 805.32 GB (GiB: the
    embedding's 129,280 x 7,168 x 2 B it prints as 1.73 GB), is this plus the MTP module
    (13.00 GiB, its experts in the same MXFP4); its element count, 861,608,274,846, is the
    list's elements plus the module's (13,949,322,747), so no tensor is missing from it. The
    library read 1,537,202,650,822 B before (every expert in fp8, and query and output
    projections of a shape the checkpoint does not have)."""
    listed = sum(n * math.prod(shape) * size for n, shape, size in V4_PRO_LISTING)
    assert listed == 850_748_205_004
    elements = sum(n * math.prod(shape) for n, shape, _ in V4_PRO_LISTING)
    assert elements + 13_949_322_747 == 861_608_274_846
    m = read_config(CONFIGS / "deepseek-v4-pro.json")
    assert m.weight_bytes() == listed
    assert m.scheme.label == "fp8 block-scaled 128x128 (E8M0 scales), MXFP4 experts"
    assert m.native_bits["experts"] == 4 + 8 / 32


def test_deepseek_v4_flash_weights_by_hand():
    """Flash's checkpoint by the same layout, from its config's fields (FAMILIES.md 14.18):
    fp8 e4m3 with one E8M0 byte a 128 x 128 block, MXFP4 experts (half a byte a value, one
    byte a 32), the compressors, router, norms and tables in bf16, sinks, position biases and
    hyper-connections in fp32, the three hash-routing tables (V x 6) in int64 and the other 40
    routers' correction biases (256) in fp32: 156,015,698,140 B (145.3 GiB; a native FP4/FP8 GGUF of the
    checkpoint is listed at about 146 GB, huggingface.co/nsparks/DeepSeek-V4-Flash-FP4-FP8-GGUF
    as a mirror stores it)."""
    V, d, L, H, dh, rq, g, ro, E, ff, n = 129280, 4096, 43, 64, 512, 1024, 8, 1024, 256, 2048, 4

    def fp8(r, c):
        return r * c + -(-r // 128) * -(-c // 128)

    def mxfp4(r, c):
        return r * c // 2 + r * (c // 32)

    attn = (fp8(rq, d) + fp8(H * dh, rq) + fp8(dh, d) + fp8(g * ro, H * dh // g) + fp8(d, g * ro)
            + 2 * (rq + dh) + 4 * H)
    hca = 2 * 2 * dh * d + 4 * 128 * dh + 2 * dh
    csa = 2 * 2 * 2 * dh * d + 4 * 4 * 2 * dh + 2 * dh
    indexer = 2 * 2 * 2 * 128 * d + 4 * 4 * 2 * 128 + 2 * 128 + fp8(64 * 128, rq) + 2 * 64 * d
    moe = 3 * E * mxfp4(ff, d) + 3 * fp8(ff, d) + 2 * E * d
    block = 2 * 2 * d + 2 * 4 * ((2 + n) * n * n * d + (2 + n) * n + 3)
    total = (L * (attn + moe + block) + 20 * hca + 21 * (csa + indexer)
             + 2 * 2 * V * d + 2 * d + 4 * (n * n * d + n + 1) + 8 * 3 * V * 6 + 4 * 40 * E)
    assert total == 156_015_698_140
    assert read_config(CONFIGS / "deepseek-v4-flash.json").weight_bytes() == total


def test_deepseek_v4_expert_dtype():
    """Without ``expert_dtype`` (or with ``fp8``: DeepSeek-V4-Flash-Base's layout) the file's
    fp8 scheme as read, the experts in fp8 blocks with fp32 scales; another value is refused
    naming the field."""
    cfg = json.loads((CONFIGS / "deepseek-v4-flash.json").read_text())
    for value in (None, "fp8"):
        c = {k: v for k, v in cfg.items() if k != "expert_dtype"}
        if value:
            c["expert_dtype"] = value
        m = read_config(c)
        assert m.scheme.label == "fp8 block-scaled 128x128"
        assert m.native_bits["experts"] == 8 + 32 / 128 ** 2
    with pytest.raises(ConfigError, match=r"field 'expert_dtype' = 'nvfp4'"):
        read_config({**cfg, "expert_dtype": "nvfp4"})


def test_scheme_adjusters_are_declared_per_family(monkeypatch):
    """What completes a checkpoint's scheme from fields outside ``quantization_config`` is a
    table keyed by family beside the readers (DeepSeek-V4's ``expert_dtype``), not a test of
    one family's name inside read_config: read_config applies whatever the table declares for
    the file's family, to the scheme it read or to None for a file without one (MiniMax-M3's
    bf16 release, whose routers are fp32)."""
    from dataclasses import replace

    from llm_arithmetic.catalog import readers
    from llm_arithmetic.catalog.quantization import deepseek_v4_scheme, minimax_m3_scheme

    assert dict(readers.SCHEME_ADJUSTERS) == {"deepseek_v4": deepseek_v4_scheme,
                                              "minimax_m3": minimax_m3_scheme}
    cfg = json.loads((CONFIGS / "deepseek-v4-flash.json").read_text())
    assert read_config(cfg).scheme.label == ("fp8 block-scaled 128x128 (E8M0 scales), MXFP4 "
                                             "experts")
    # the table decides: without V4's entry its file ships the fp8 scheme as read ...
    monkeypatch.setattr(readers, "SCHEME_ADJUSTERS", {})
    assert read_config(cfg).scheme.label == "fp8 block-scaled 128x128"
    # ... and an entry for another family is applied to that family's files, a file without a
    # scheme given None (which the entry may leave None)
    seen = []

    def mark(scheme, c, origin):
        seen.append(scheme)
        return None if scheme is None else replace(scheme, label=scheme.label + " (adjusted)")

    monkeypatch.setattr(readers, "SCHEME_ADJUSTERS", {"qwen3": mark})
    q = json.loads((CONFIGS / "qwen3-32b.json").read_text())
    assert read_config(q).scheme is None and seen == [None]
    q["quantization_config"] = {"quant_method": "fp8", "weight_block_size": [128, 128]}
    assert read_config(q, name="q").scheme.label == "fp8 block-scaled 128x128 (adjusted)"
    assert seen[0] is None and seen[1].label == "fp8 block-scaled 128x128" and len(seen) == 2


# ---- refusals, overrides, describe ---------------------------------------------------------------
@pytest.mark.parametrize("q, key", [
    ({"quant_method": "bitnet"}, "quantization_config.quant_method"),
    ({"quant_method": "fp8", "weight_block_size": [128, 128], "fmt": "e4m3",
      "scale_layout": "rows"}, "quantization_config.scale_layout"),
    ({"quant_method": "fp8", "activation_scheme": "static"},
     "quantization_config.activation_scheme"),
    ({"quant_method": "gptq", "bits": 4, "group_size": 128,
      "modules_in_block_to_quantize": [["self_attn.q_proj"]]},
     "quantization_config.modules_in_block_to_quantize"),
    ({"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemv"},
     "quantization_config.version"),
    ({"quant_method": "fp8", "weight_block_size": [True, 128]},
     "quantization_config.weight_block_size"),
    ({"quant_method": "compressed-tensors", "config_groups": {"group_0": {
        "targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "block",
                                           "block_structure": [True, 128]}}}},
     "quantization_config.config_groups.group_0.weights.block_structure"),
    ({"quant_method": "compressed-tensors", "config_groups": {"group_0": {
        "targets": ["Linear"], "input_activations": "dynamic", "weights": {
            "num_bits": 4, "type": "int", "strategy": "group", "group_size": 128}}}},
     "quantization_config.config_groups.group_0.input_activations"),
    # int4 activations (W4A4 in integers): no activation format the library knows
    ({"quant_method": "compressed-tensors", "config_groups": {"group_0": {
        "targets": ["Linear"], "input_activations": {"num_bits": 4, "type": "int",
                                                     "dynamic": True},
        "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128}}},
      "format": "pack-quantized"},
     "quantization_config.config_groups.group_0.input_activations"),
    ({"quant_method": "compressed-tensors", "transform_config": ["hadamard"]},
     "quantization_config.transform_config"),
    ({"quant_method": "modelopt", "quant_algo": "FP8", "config_groups": ["fp8"]},
     "quantization_config.config_groups"),
    # ModelOpt's NVFP4 quantizes the activations to NVFP4 (W4A4, computed at fp4): a group
    # restating it with 16-bit activations (none) or fp8 ones contradicts quant_algo
    ({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "config_groups": {
        "group_0": {"targets": ["Linear"], "input_activations": None,
                    "weights": {"num_bits": 4, "type": "float", "group_size": 16}}}},
     "quantization_config.config_groups.group_0"),
    ({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "config_groups": {
        "group_0": {"targets": ["Linear"], "input_activations": {"num_bits": 8, "type": "float"},
                    "weights": {"num_bits": 4, "type": "float", "group_size": 16}}}},
     "quantization_config.config_groups.group_0"),
    # a JSON list or object where a name belongs (each was a TypeError traceback)
    ({"quant_method": ["fp8"]}, "quantization_config.quant_method"),
    ({"quant_method": "modelopt", "quant_algo": {}}, "quantization_config.quant_algo"),
    ({"quant_method": "compressed-tensors", "config_groups": {"group_0": {
        "targets": ["Linear"], "input_activations": {"num_bits": 8, "type": ["float"]},
        "weights": {"num_bits": 8, "type": "float", "strategy": "block",
                    "block_structure": [128, 128]}}}},
     "quantization_config.config_groups.group_0.input_activations"),
    ({"quant_method": "compressed-tensors", "config_groups": {"group_0": {
        "targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "block",
                                           "block_structure": [128, 128],
                                           "scale_dtype": {}}}}},
     "quantization_config.config_groups.group_0.weights.scale_dtype"),
])
def test_refusals_name_the_key(q, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")) as err:
        read_scheme(q)
    assert "\n" not in str(err.value)


def test_a_refusal_stops_the_read():
    cfg = json.loads((CONFIGS / "kimi-k2-instruct.json").read_text())
    cfg["quantization_config"] = dict(cfg["quantization_config"], quant_method="hqq")
    with pytest.raises(ConfigError, match="quant_method"):
        read_config(cfg)


def test_asked_format_overrides_the_shipped_one():
    e = estimate("deepseek-v3", weights="fp8")
    assert e.weights_as == "as asked: fp8"
    assert e.weight_bytes == get_model("deepseek-v3").total_params
    shipped = estimate("deepseek-v3")
    assert shipped.weights_as == "as shipped: fp8 block-scaled 128x128"
    assert shipped.weight_bytes == get_model("deepseek-v3").weight_bytes()
    assert estimate("llama-3-8b").weights_as == "as shipped: 16-bit"


def test_decode_reads_the_head_at_16_bits_and_skips_the_table():
    """DeepSeek-V3's decode step: the fp8 matrices of 8 experts and everything shared, the head
    in bf16; the embedding table (bf16) is not read."""
    m = get_model("deepseek-v3")
    b = shipped_bytes(m)
    unread = m.evaluate("unread_embedding_params")
    read_shared = b["other"] - 2 * unread
    experts = m.evaluate("step_weight_read_experts")
    assert m.step_weight_bytes() == read_shared + experts


@pytest.mark.parametrize("model, chip, kwargs, precision", [
    # DeepSeek-V3 ships block-scaled fp8 (config.json quantization_config: fp8, 128 x 128);
    # engines multiply it on fp8 tensor cores where the chip has them (DeepGEMM on Hopper) ...
    ("deepseek-v3", "h100-sxm", {}, "fp8"),
    # ... and dequantize it to 16 bits where it has none (weight-only fp8 on Ampere)
    ("deepseek-v3", "a100-80gb-sxm", {}, "fp16"),
    # asked for other weights, the checkpoint's own format no longer applies
    ("deepseek-v3", "h100-sxm", {"weights": "bf16"}, "bf16"),
    ("deepseek-v3", "h100-sxm", {"bits_weight": 4}, "fp16"),
    # gpt-oss quantizes its experts alone (MXFP4): most chips' kernels multiply at 16 bits
    ("gpt-oss-120b", "b200", {}, "fp16"),
    ("llama-3.1-8b", "h100-sxm", {}, "fp16"),
])
def test_weights_as_shipped_compute_at_the_checkpoints_precision(model, chip, kwargs, precision):
    assert estimate(model, hardware=chip, **kwargs).compute_precision == precision


@pytest.mark.parametrize("name, chip, precision", [
    # ModelOpt NVFP4 with NVFP4 input activations (config_groups.group_0.input_activations:
    # float, 4 bits, groups of 16): W4A4, the fp4 tensor cores of a Blackwell chip ...
    ("gemma-4-31b-it-nvfp4", "b200", "fp4"),
    # ... none on Hopper: the weights are widened to 16 bits
    ("gemma-4-31b-it-nvfp4", "h100-sxm", "fp16"),
    # compressed-tensors fp8 blocks with dynamic fp8 input activations (groups of 128): W8A8
    ("laguna-xs.2-fp8", "h100-sxm", "fp8"),
    ("laguna-xs.2-fp8", "a100-80gb-sxm", "fp16"),
    # compressed-tensors int4 groups, input_activations null: a weight-only (W4A16) kernel
    # (vLLM's CompressedTensorsWNA16) multiplies at 16 bits on any chip
    ("kimi-k2.5", "h200", "fp16"),
    ("kimi-k2.5", "b200", "fp16"),
])
def test_shipped_activations_decide_the_compute_precision(name, chip, precision):
    """The products run in the activations' format where the checkpoint quantizes them, at 16
    bits where it quantizes the weights alone (vLLM's compressed-tensors dispatch,
    ``_get_scheme_from_parts``); the expected precisions are read off each config by hand."""
    m = read_config(json.loads((CONFIGS / f"{name}.json").read_text()), name=name)
    assert estimate(m, hardware=chip).compute_precision == precision


def test_llama_cpp_file_types_give_a_mean_between_their_tensor_types():
    """A llama.cpp file type's bits per weight are a mean over the file's tensors, so they lie
    between the narrowest type the mix uses and F32 (32 bits, its norms). Nemotron 3 Super and
    Kimi K3 (a latent mixture of experts: the routed experts work in a latent narrower than
    the model) came out at -67.81 bits a weight in q4_k_m (describe: weight bytes
    -1,022,784,016,384 B, 'fits in memory: yes'): the per-tensor rules counted each expert at
    the model's width and a remainder went negative. Their experts are now counted in the
    latent, with the shared projections into and out of it as tensors of their own: every
    tensor is counted once (the tensors add up to the decoder's parameters: Nemotron 3 Super's
    total, 120,668,707,840, the model card's 120B) and every catalogued model and test config
    keeps a mean within those bounds."""
    import warnings

    from llm_arithmetic import model_names
    from llm_arithmetic.catalog.formats import mix_tensors
    from llm_arithmetic.core.errors import InputError
    from llm_arithmetic.arguments import resolve_model
    from llm_arithmetic.weights import weight_bits

    configs = Path(__file__).parent / "configs"
    paths = [*model_names(), *sorted(configs.glob("*.json")),
             *sorted(configs.glob("reconstructed/*.json"))]
    latent, checked = [], 0
    for p in paths:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = resolve_model(p)
        except (InputError, ValueError):
            continue  # a family the library refuses (its own tests)
        for mix in ("q4_k_m", "q3_k_m", "q5_k_m"):
            if m.family in ("falcon", "deepseek_v4", "step3_text"):
                continue  # refused (formats.py): test_llama_cpp_mixes_refuse_deepseek_v4,
                # test_llama_cpp_mixes_refuse_a_low_rank_query
            # every tensor counted once: the tensors add up to the decoder (mix_tensors
            # refuses a model whose tensors it does not know, which fails here)
            tensors = mix_tensors(m, mix)
            assert all(n > 0 for _, n, _ in tensors), m.name
            assert sum(n for _, n, _ in tensors) == m.language_model_params, (m.name, mix)
            if any(r.mlp is not None and r.mlp.latent for r in m.layers):
                latent.append(m.name)
            b = float(weight_bits(m, mix))
            assert 3.4375 <= b <= 32, (m.name, mix, b)   # Q3_K (110 B a 256-block) to F32
            checked += 1
    assert {"nemotron-3-super", "kimi-k3"} <= set(latent)
    assert checked > 200
    n3 = resolve_model("nemotron-3-super")
    assert sum(n for _, n, _ in mix_tensors(n3, "q4_k_m")) == n3.total_params == 120_668_707_840


def test_llama_cpp_tensors_of_the_2025_26_families_add_up_to_the_decoder():
    """The tensors of a llama.cpp file fell short of, or beyond, the decoder for the Qwen3.5,
    Qwen3-Next, Gemma 4, Step 3.7 and MiMo-V2-Flash families (Qwen3.5-27B: 26,392,681,984
    against 26,895,998,464; Gemma 4 E2B: 2,257,291,776 against 4,628,569,344), so
    ``mix_bits`` divided by the wrong count. Each shape below is read off the family's
    config.json by hand:

    - gated attention (Qwen3.5-27B: d 5,120, 24 heads of 256, ``attn_output_gate``): the
      query projection carries the gate, 2 x 5,120 x 24 x 256 = 62,914,560 weights, in each
      of the 16 full-attention layers (every 4th of 64);
    - per-head gates (Step 3.7 Flash: 64 heads, d 4,096): a d x 64 = 262,144 gate a layer;
    - values narrower than keys (MiMo-V2-Flash: 64 heads, values of 128, d 4,096): an
      output projection of 64 x 128 x 4,096 = 33,554,432;
    - values = keys (Gemma 4 31B, ``attention_k_eq_v``): no attn_v in its 10 global layers
      (60 layers, every 6th global), so 50 value projections;
    - per-layer embeddings (Gemma 4 E2B: vocabulary 262,144 x 35 layers x 256) and
      keys/values shared from earlier layers (the last 20 of 35, ``num_kv_shared_layers``):
      a per_layer_token_embd of 2,348,810,240 and 15 key projections."""
    from llm_arithmetic.catalog.formats import mix_tensors

    def tensors(name):
        m = get_model(name)
        out = mix_tensors(m, "q4_k_m")
        assert sum(n for _, n, _ in out) == m.language_model_params, name
        return out

    def sizes(out, prefix):
        return [n for name, n, _ in out if name.startswith(prefix)]

    assert sizes(tensors("qwen3.5-27b"), "attn_q (with") == [62_914_560] * 16
    assert sizes(tensors("step-3.7-flash"), "attn_gate") == [262_144] * 45
    assert set(sizes(tensors("mimo-v2-flash"), "attn_output")) == {33_554_432}
    assert len(sizes(tensors("gemma-4-31b"), "attn_v")) == 50
    e2b = tensors("gemma-4-e2b")
    assert sizes(e2b, "per_layer_token_embd") == [2_348_810_240]
    assert len(sizes(e2b, "attn_k")) == 15
    for name in ("qwen3.5-35b-a3b", "qwen3.5-397b-a17b", "qwen3-next-80b-a3b",
                 "gemma-4-26b-a4b", "gemma-4-e4b"):
        tensors(name)


def test_llama_cpp_tensors_match_a_published_file_size():
    """sokann/Qwen3.5-27B-GGUF-4.165bpw (stored page https://hugingapi.com/sokann/
    Qwen3.5-27B-GGUF-4.165bpw) publishes its recipe, every tensor q4_K except the FFN of the
    layers not in a list at q3_K, and llama.cpp's load report: model size 13.040 GiB
    (4.165 BPW), repeating layers 24.353 B parameters. The tensors here, typed by that
    recipe (norms, convolutions and other 1-D tensors F32), give the same size to the
    three decimals printed (+-0.0005 GiB, about 0.5 MB; the file's metadata is not in
    llama.cpp's model size), and the layers' parameters to the digits printed."""
    from fractions import Fraction

    from llm_arithmetic.catalog.formats import mix_tensors

    m = get_model("qwen3.5-27b")
    high = {*range(16), *range(18, 64, 3)}
    layer, bits, n = 0, Fraction(0), 0
    for name, p, b in mix_tensors(m, "q4_k_m"):
        n += p
        if b == 32:
            t = Fraction(32)
        elif name.startswith("ffn"):
            t = Fraction(144, 32) if layer in high else Fraction(110, 32)   # q4_K, q3_K
        else:
            t = Fraction(144, 32)
        bits += p * t
        layer += name == "norms"
    assert abs(float(bits / 8) / 2**30 - 13.040) <= 0.0005
    assert round(float(bits / n), 3) == 4.165
    head = 2 * 248_320 * 5_120 + 5_120   # token_embd, output, output_norm (config.json)
    assert round((n - head) / 1e9, 3) == 24.353


# llama.cpp's block sizes (ggml-common.h): bytes per 256 weights, and the use_more_bits rule
# (src/llama-quant.cpp), written out here rather than read from formats.toml or formats.py
_Q4K, _Q6K = Fraction(144, 256), Fraction(210, 256)


def _more_bits(i, n):
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def test_llama_cpp_gated_deltanet_tensors_match_a_published_q4_k_m_file():
    """A Q4_K_M file of Qwen3.5-27B as llama.cpp (src/llama-quant.cpp at commit
    007dbbf3fd17eefe9b47fee45f48f7ba5e62b714) writes it. Each of its 48 Gated DeltaNet layers
    has an attn_qkv of 5,120 x (2 x 16 x 128 + 48 x 128) = 52,428,800 weights, which
    llama.cpp counts with the 16 attention layers' attn_v (one such tensor a layer, 64 in
    all) and types by the attn_v rule: Q6_K where use_more_bits(layer, 64) holds (24 of the
    linear layers, 8 of the attention layers), else Q4_K. Before this, the linear layers
    were typed at Q4_K throughout: 15.099 GiB, 4.822 bits a weight.

    Published: mradermacher's i1-Q4_K_M of Qwen3.6-27B (the same shapes: 64 layers, 24.353 B
    parameters in the repeating layers) loads in llama.cpp as 15.401 GiB (4.919 BPW)
    (table on the stored page http://kk6lht.com/sokann/Qwen3.6-27B-GGUF-5.076bpw).
    llama.cpp's model size counts the tensors only, not the file's metadata, so the bytes
    here agree to the digits printed (+-0.0005 GiB, about 0.5 MB). Files of Qwen3.5-27B made
    in March 2026 (mradermacher's i1-Q4_K_M: a 15.404 GiB file, which holds about 11 MB of
    metadata) predate the llama.cpp change that gave attn_qkv the attn_v rule; they typed
    every attn_qkv Q5_K, 7.1 MB less."""
    from llm_arithmetic.catalog.formats import mix_tensors

    m = get_model("qwen3.5-27b")
    out = mix_tensors(m, "q4_k_m")
    qkv = [(n, b) for name, n, b in out if name.startswith("attn_qkv")]
    v = [b for name, _, b in out if name == "attn_v"]
    linear = [i for i in range(64) if i % 4 != 3]
    full = [i for i in range(64) if i % 4 == 3]
    assert [n for n, _ in qkv] == [52_428_800] * 48
    assert [b for _, b in qkv] == [8 * (_Q6K if _more_bits(i, 64) else _Q4K) for i in linear]
    assert v == [8 * (_Q6K if _more_bits(i, 64) else _Q4K) for i in full]
    assert sum(b == 8 * _Q6K for _, b in qkv) == 24 and sum(b == 8 * _Q6K for b in v) == 8
    n = sum(p for _, p, _ in out)
    size = sum(p * b for _, p, b in out) / 8
    assert abs(float(size) / 2**30 - 15.401) <= 0.0005
    assert round(float(size * 8 / n), 3) == 4.919


def test_llama_cpp_gemma4_per_layer_embeddings_match_published_q4_k_m_files():
    """Gemma 4 E2B/E4B in llama.cpp's Q4_K_M (src/llama-quant.cpp at commit
    007dbbf3fd17eefe9b47fee45f48f7ba5e62b714): per_layer_token_embd is in the token-embedding
    category, which takes the output head's Q6_K when the file has no output.weight (tied
    embeddings); per_layer_model_proj is never quantized (16 bits). The files also keep the
    key and value projections of the layers that read an earlier layer's cache, with their
    key norms, plus the rope frequencies (global head width / 2) and one scale a layer, all
    unread: mix_tensors lists the decoder only, and those extra tensors' attn_v count in
    llama.cpp's attn_v counter (one a layer). The extra tensors are typed here from the
    config by the same rules, independently of the library.

    Published: ggml-org/gemma-4-E4B-it-GGUF's Q4_K_M
    (https://huggingface.co/ggml-org/gemma-4-E4B-it-GGUF/blob/2714b5519c6c3516b1000e7c5e1eba998dfe1fe8/gemma-4-E4B-it-Q4_K_M.gguf)
    loads in llama.cpp (b8967) as 5,319,465,128 bytes of tensors: equal to the byte.
    A plain Q4_K_M of E2B is 3.412 GB (stored page
    https://huggingface.co/Asystemoffields/gemma-4-E2B-it-PMRA-GGUF): to the digits printed.
    This module typed both at the default Q4_K before: E4B's decoder came to 4.210 GiB (4.845
    bits a weight), now 4.922 GiB (5.665)."""
    from llm_arithmetic.catalog.formats import mix_tensors

    def file_bytes(name):
        m = get_model(name)
        out = mix_tensors(m, "q4_k_m")
        assert [b for n, _, b in out if n == "per_layer_token_embd"] == [8 * _Q6K]
        assert [b for n, _, b in out if n == "per_layer_model_proj"] == [16]
        return sum(p * b for _, p, b in out) / 8 + _gemma4_unlisted_bytes(name)

    assert file_bytes("gemma-4-e4b") == 5_319_465_128
    assert round(float(file_bytes("gemma-4-e2b")) / 1e9, 3) == 3.412


def _gemma4_unlisted_bytes(name):
    """Bytes of the tensors a Gemma 4 E2B/E4B Q4_K_M file holds beyond the decoder's (see the
    test above), typed from the config by llama.cpp's rules: the unread keys, values and key
    norms of the layers that read an earlier layer's cache, the rope frequencies and the
    layer scales."""
    t = json.loads((MODELS / name / "config.json").read_text())
    t = t.get("text_config", t)
    d, L, kv = t["hidden_size"], t["num_hidden_layers"], t["num_key_value_heads"]
    extra = Fraction(4) * (t["global_head_dim"] // 2 + L)   # rope_freqs, layer scales
    for i in range(L - t["num_kv_shared_layers"], L):     # unread k, v, k_norm
        hd = t["global_head_dim"] if t["layer_types"][i] == "full_attention" \
            else t["head_dim"]
        extra += d * kv * hd * (_Q4K + (_Q6K if _more_bits(i, L) else _Q4K)) + 4 * hd
    return extra


# ---- a llama.cpp file's parts in an estimate ----------------------------------------------------
# A llama.cpp file type reaches the plan as three parts (weights.weight_inputs,
# formats.mix_parts): the embedding rows a step does not read, the routed experts' matrices and
# the rest, each at the mean bits of its own tensors; the storage counts all three, a decode
# step what it reads. Models: dense untied (Llama 3 8B), dense tied (Llama 3.2 1B, Gemma 3 1B),
# MoE (Qwen3-30B-A3B; Mixtral, 8 experts: attn_v and attn_k Q8_0; gpt-oss, routed experts with
# biases), Gemma 4 E2B/E4B (per-layer embeddings), hybrids (Qwen3-Next: Gated DeltaNet;
# Nemotron 3 Super: Mamba-2 and a latent mixture).
_FILE_MODELS = ["llama-3-8b", "llama-3.2-1b", "gemma-3-1b", "qwen3-30b-a3b", "mixtral-8x7b",
                "gpt-oss-20b", "gemma-4-e2b", "gemma-4-e4b", "qwen3-next-80b-a3b",
                "nemotron-3-super"]


def _file_plan(m, mix, **inputs):
    from llm_arithmetic.estimate import plan_inputs

    return m.plan.child(**plan_inputs(m, weights=mix), **inputs)


@pytest.mark.parametrize("name", _FILE_MODELS)
@pytest.mark.parametrize("mix", ["q4_k_m", "q3_k_m"])
def test_llama_cpp_file_weight_bytes_are_its_tensors_bytes(name, mix):
    """The plan's weight bytes for a file are its tensors' bytes (mix_tensors, checked against
    published files above), exactly, as integers. Gemma 4 E2B/E4B count their vision and audio
    encoders in the published total, which a GGUF leaves to a separate file (mmproj): the
    decoder alone (no extras) is the file; the estimate adds the encoders at the default's
    bits."""
    from llm_arithmetic.catalog.formats import mix_bits, mix_tensors

    m = get_model(name)
    tensors = sum(p * b for _, p, b in mix_tensors(m, mix)) / 8
    assert tensors.denominator == 1
    ev = _file_plan(m, mix, extras_in_total=0)
    assert ev.get("bits_weight") is None
    assert ev.get("weight_bytes") == int(tensors)
    e = estimate(m, weights=mix)
    if m.plan_inputs["extras_in_total"] == 0:
        assert e.weight_bytes == int(tensors)
        # the estimate's mean bits stay the file's
        assert e.bits_weight == pytest.approx(float(mix_bits(m, mix)), rel=1e-12)


def test_gemma_4_e4b_file_in_the_plan_is_the_published_file():
    """The plan's weight bytes for Gemma 4 E4B's decoder at Q4_K_M, with the tensors it
    does not model (_gemma4_unlisted_bytes), are ggml-org's published file to the byte."""
    m = get_model("gemma-4-e4b")
    ev = _file_plan(m, "q4_k_m", extras_in_total=0)
    assert ev.get("weight_bytes") + _gemma4_unlisted_bytes("gemma-4-e4b") == 5_319_465_128


def test_gemma_4_e4b_q4_k_m_decode_reads_each_tensor_at_its_type():
    """One decode step of Gemma 4 E4B in ggml-org's Q4_K_M reads these tensors, typed by
    llama.cpp's rules (src/llama-quant.cpp at 007dbbf3; Q4_K 144 B and Q6_K 210 B a 256-block)
    from the config.json (d 2,560; 42 layers, every 6th full attention with heads of 512, the
    others sliding with heads of 256; 8 query and 2 key/value heads; the last 18 layers read
    the keys and values of an earlier one; FFN 10,240; per-layer inputs of 256; vocabulary
    262,144, tied embeddings), summed by hand. It does not read per_layer_token_embd (one row
    of 42 x 256 a token) and, the table being tied, reads token_embd whole as the output head.
    With the file's mean bits (5.665) for every weight the estimate read about 10% more:
    per_layer_token_embd is Q6_K and unread."""
    q4, q6 = _Q4K * 8, _Q6K * 8
    d, L, ffn, ple, vocab = 2_560, 42, 10_240, 256, 262_144
    full = [i for i in range(L) if i % 6 == 5]                  # 5, 11, ..., 41
    hd = [512 if i in full else 256 for i in range(L)]
    own_kv = range(L - 18)                                       # layers 0..23
    n_v = L   # llama.cpp's attn_v counter counts the shared layers' unread projections too
    bits = (vocab * d * q6                                       # token_embd = output head
            + L * ple * q6                                       # one per_layer_token_embd row
            + d * L * ple * 16 + ple * 32                        # per_layer_model_proj, norm
            + sum(d * 8 * hd[i] * q4 * 2 for i in range(L))     # attn_q, attn_output
            + sum(d * 2 * hd[i] * q4 for i in own_kv)            # attn_k
            + sum(d * 2 * hd[i] * (q6 if _more_bits(i, n_v) else q4) for i in own_kv)
            + sum(hd[i] for i in range(L)) * 32                  # q_norm
            + sum(hd[i] for i in own_kv) * 32                    # k_norm
            + L * 2 * d * ffn * q4                               # ffn_gate, ffn_up
            + sum(ffn * d * (q6 if _more_bits(i, L) else q4) for i in range(L))   # ffn_down
            + L * 4 * d * 32                                     # the block's four norms
            + L * 2 * d * ple * q4 + L * d * 32                  # inp_gate, proj, post_norm
            + d * 32)                                            # output_norm
    read = bits / 8
    ev = _file_plan(get_model("gemma-4-e4b"), "q4_k_m")
    assert ev.get("step_weight_bytes") == read
    e = estimate("gemma-4-e4b", weights="q4_k_m", bandwidth=1e12)
    assert e.decode_bytes_per_token - float(ev.get("seq_kv_read")) == pytest.approx(
        float(read), rel=1e-12)
    mean = estimate("gemma-4-e4b", bits_weight=e.bits_weight, bandwidth=1e12)
    assert 1.09 < mean.decode_bytes_per_token / e.decode_bytes_per_token < 1.12


@pytest.mark.parametrize("name", ["gpt-oss-20b", "qwen3-30b-a3b"])
def test_llama_cpp_file_moe_step_reads_the_active_experts_at_their_bits(name):
    """A MoE file at Q4_K_M: a step of one token reads every tensor but the unread embedding
    rows and the inactive experts' matrices and (gpt-oss) their F32 biases, at each tensor's
    type; the whole file is stored."""
    from llm_arithmetic.catalog.formats import mix_tensors

    m = get_model(name)
    rows = mix_tensors(m, "q4_k_m")
    t = json.loads((MODELS / name / "config.json").read_text())
    n_e, k = t.get("num_local_experts") or t["num_experts"], t.get("num_experts_per_tok")
    # the routed experts' matrices: the rows named ffn_* that are not the shared experts'
    # (neither model has any) and not the router; their biases (gpt-oss) are F32
    experts = sum(p * b for name_, p, b in rows if name_ in ("ffn_gate/up", "ffn_down"))
    biases = (t["num_hidden_layers"] * n_e * (2 * t["intermediate_size"] + t["hidden_size"])
              if t.get("model_type") == "gpt_oss" else 0)
    embd = [b for name_, _, b in rows if name_ == "token_embd"][0]
    unread = (t["vocab_size"] - 1) * t["hidden_size"] * embd
    total = sum(p * b for _, p, b in rows)
    read = (total - unread - (experts + 32 * biases) * (1 - Fraction(k, n_e))) / 8
    ev = _file_plan(m, "q4_k_m")
    assert ev.get("weight_bytes") == total / 8
    assert ev.get("step_weight_bytes") == pytest.approx(float(read), rel=1e-12)


def test_mxfp4_moe_parts_are_the_files():
    """MXFP4_MOE's parts are its file's (mix_parts), not its types' nominal bits: gpt-oss-20b's
    routed experts' matrices MXFP4 (4.25 bits) with their F32 biases, every other matrix Q8_0
    (8.5), the routers, norms, attention biases and sinks F32 (ggml-org's files; the sizes in
    tests/test_serving.py). By hand from config.json: 24 layers of 32 experts, 4 active,
    gate/up/down 2,880 x 2,880 and biases of 2 x 2,880 + 2,880 each; a vocabulary of 201,088."""
    from llm_arithmetic.weights import weight_inputs

    m = get_model("gpt-oss-20b")
    experts, biases = 24 * 32 * 3 * 2880 * 2880, 24 * 32 * 3 * 2880
    parts = weight_inputs(m, "mxfp4_moe")
    assert parts["bits_weight"] is None and parts["native_bits_unread"] == Fraction(17, 2)
    assert parts["native_bits_experts"] * experts == (experts * Fraction(17, 4) + biases * 32
                                                      - biases * parts["native_bits_default"])
    ev = _file_plan(m, "mxfp4_moe")
    unread = (201088 - 1) * 2880  # the input table but the row a step reads, Q8_0
    rest = m.total_params - experts - biases - unread
    assert ev.get("weight_bytes") == (experts * Fraction(17, 4) + biases * 32
                                      + unread * Fraction(17, 2)
                                      + rest * parts["native_bits_default"]) / 8
    assert Fraction(17, 2) < parts["native_bits_default"] < Fraction(86, 10)


def test_llama_cpp_mixes_refuse_what_they_do_not_model(monkeypatch):
    """A model whose tensors do not add up to its decoder is refused with one line naming
    it, rather than given bits per weight over the wrong count."""
    from llm_arithmetic.catalog import formats
    from llm_arithmetic.catalog.model import Model
    from llm_arithmetic.core.errors import InputError

    # a fresh instance: the catalog's keeps the tensors other tests have worked out (Model.memo)
    m = dataclasses.replace(get_model("llama-2-7b"))
    true = m.language_model_params
    monkeypatch.setattr(Model, "language_model_params", property(lambda self: true + 1))
    with pytest.raises(InputError, match=r"^llama-2-7b: its llama.cpp tensors are not "
                                         r"modelled here .*\)$"):
        formats.mix_tensors(m, "q4_k_m")


def test_llama_cpp_mixes_refuse_deepseek_v4():
    """A llama.cpp file type's tensors are a plain attention's (d x H d_h queries and output,
    separate keys and values): DeepSeek-V4-Flash's low-rank queries are d r_q + r_q H d_h =
    4,096 x 1,024 + 1,024 x 32,768 = 37,748,736 weights a layer, not 4,096 x 64 x 512 =
    134,217,728, and its compressors, indexer and hyper-connection mixers have no tensor
    there (FAMILIES.md 14.18): the mix is refused, not counted from the wrong shapes."""
    from llm_arithmetic.catalog.formats import mix_bits, mix_tensors
    from llm_arithmetic.core.errors import InputError

    for name in ("deepseek-v4-flash", CONFIGS / "deepseek-v4-pro.json"):
        m = get_model(name) if isinstance(name, str) else read_config(name)
        for call in (lambda: mix_tensors(m, "q4_k_m"), lambda: mix_bits(m, "q4_k_m"),
                     lambda: estimate(m, weights="q4_k_m")):
            with pytest.raises(InputError, match="compressed attention"):
                call()


# ---- ModelOpt: hf_quant_config.json, the fp8 cache it asks for, quantized_layers ---------------
#: NVIDIA's ModelOpt checkpoints, config.json and hf_quant_config.json as the repository holds them
#: (tests/configs/SOURCES.md section 14).
MODELOPT = CONFIGS / "modelopt"


def _nvfp4(rows, cols):
    """One NVFP4 matrix by hand: two E2M1 values a byte, one fp8 E4M3 scale a 16 inputs, two
    fp32 scalars (weight_scale_2, input_scale)."""
    return rows * cols // 2 + rows * cols // 16 + 8


def test_nvfp4_element_bits_are_the_catalogs_format():
    """The NVFP4 layout read from a ModelOpt file stores 4 + 8/16 = 4.5 bits an element, the
    formats' catalog's ``nvfp4`` (formats.toml: (16 x 4 + 8) / 16), plus 64 bits a matrix."""
    from llm_arithmetic.catalog.formats import bits_per_weight

    s = read_scheme({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16})
    rows, cols = 2048, 7168
    assert Fraction(8 * (s.matrix_bytes(rows, cols) - 8), rows * cols) == bits_per_weight("nvfp4")


def test_deepseek_v3_1_nvfp4_reads_hf_quant_config_beside_config_json():
    """nvidia/DeepSeek-V3.1-NVFP4's config.json has no quantization_config; its
    hf_quant_config.json says NVFP4 in groups of 16 with lm_head and every layer's q_a, q_b,
    kv_a and kv_b projections (and the MTP layer, model.layers.61*) kept in bf16, and an fp8
    KV cache. By hand from the config (d 7,168, 61 blocks of which 3 dense of 18,432, 128 heads,
    ranks 1,536 and 512, 256 experts of 2,048 and one shared, vocabulary 129,280): NVFP4 for
    o_proj (7,168 x 16,384) in 61 blocks, the dense MLPs (3 x 3 of 18,432 x 7,168) and the
    58 x 257 x 3 expert matrices of 2,048 x 7,168; 2 bytes for everything else (embedding and
    head, the four low-rank projections and their two norms, the routers with their bias,
    the block norms): 386,380,112,800 B, 386.4 GB (1.342 TB before, every weight at 16 bits).
    The cache: 61 x (512 + 64) one-byte elements a token, 35,136 B."""
    V, d, L, k, H, rq, rkv, nope, rope, dv, E, ffe, ffd = (129280, 7168, 61, 3, 128, 1536, 512,
                                                           128, 64, 128, 256, 2048, 18432)
    low_rank = rq * d + H * (nope + rope) * rq + (rkv + rope) * d + H * (nope + dv) * rkv
    attn = _nvfp4(d, H * dv) + 2 * (low_rank + rq + rkv) + 2 * 2 * d
    dense = 3 * _nvfp4(ffd, d)
    moe = 3 * (E + 1) * _nvfp4(ffe, d) + 2 * (E * d + E)
    total = L * attn + k * dense + (L - k) * moe + 2 * 2 * V * d + 2 * d
    assert total == 386_380_112_800
    m = read_config(MODELOPT / "deepseek-v3.1-nvfp4" / "config.json")
    assert m.scheme.label == "NVFP4 (16 values per fp8 scale, fp32 global scales)"
    assert m.weight_bytes() == total
    assert m.native_kv_bits == 8 and m.native_format["compute"] == "fp4"
    e = estimate(m, hardware="b200", context=1)
    assert e.bits_kv == 8 and e.kv_cache_bytes_per_token == 61 * (512 + 64)
    assert estimate(m, hardware="b200", bits_kv=16).kv_cache_bytes_per_token == 2 * 61 * 576
    # the folder holding both files reads the same
    assert read_config(MODELOPT / "deepseek-v3.1-nvfp4").weight_bytes() == total


def test_qwen3_235b_nvfp4_by_hand():
    """nvidia/Qwen3-235B-A22B-NVFP4 keeps only the 94 routers (model.layers.N.mlp.gate) and
    lm_head: NVFP4 for q, k, v, o (8,192, 512, 512 x 4,096 and 4,096 x 8,192) and the
    94 x 128 x 3 expert matrices of 1,536 x 4,096; 2 bytes for the rest (embedding, head,
    routers, q/k norms, block norms): 134,101,651,392 B, the "complete 134 GB model" a
    project loading this checkpoint (revision 21cfa2c9e152032eb60647ee7b46a2bbcd8d76d2)
    describes, with the same four tensors a matrix (uint8 weight, fp8 weight_scale, fp32
    weight_scale_2 and input_scale; index file id 57945649011)."""
    V, d, L, H, Hkv, dh, E, ff = 151936, 4096, 94, 64, 4, 128, 128, 1536
    attn = _nvfp4(H * dh, d) + 2 * _nvfp4(Hkv * dh, d) + _nvfp4(d, H * dh) + 2 * 2 * dh
    moe = 3 * E * _nvfp4(ff, d) + 2 * E * d
    total = L * (attn + moe + 2 * 2 * d) + 2 * 2 * V * d + 2 * d
    assert total == 134_101_651_392 and round(total / 1e9) == 134
    m = read_config(MODELOPT / "qwen3-235b-a22b-nvfp4" / "config.json")
    assert m.weight_bytes() == total and m.native_kv_bits == 8


def test_gemma_4_26b_nvfp4_quantizes_its_experts_not_its_dense_mlp(tmp_path):
    """nvidia/Gemma-4-26B-A4B-NVFP4 keeps each layer's dense ``mlp*``, ``router*`` and
    ``self_attn*`` in bf16; Gemma 4 holds its routed ``experts`` beside the dense ``mlp`` in the
    layer (not under it), so only the experts are NVFP4: 30 x 128 x 3 matrices of 704 x 2,816.
    The rest at 2 bytes: the published 25,805,936,206 of google/gemma-4-26B-A4B-it less its
    2,334 buffers (SOURCES.md section 11) and less those matrices. 18,782,356,064 B; before,
    the experts were named under ``mlp`` and kept: 51.6 GB, all 16-bit. The config.json's own
    record and the hf_quant_config.json beside it say the same."""
    params = 25_805_936_206 - 2_334
    experts = 30 * 128 * 3
    total = 2 * (params - experts * 704 * 2816) + experts * _nvfp4(704, 2816)
    assert total == 18_782_356_064
    m = read_config(MODELOPT / "gemma-4-26b-a4b-nvfp4" / "config.json")
    assert m.total_params == params and m.weight_bytes() == total
    cfg = json.loads((MODELOPT / "gemma-4-26b-a4b-nvfp4" / "config.json").read_text())
    del cfg["quantization_config"]
    assert read_config(_copy(tmp_path, "gemma-4-26b-a4b-nvfp4", cfg)).weight_bytes() == total


def _copy(tmp_path, name, config=None, quant=None):
    """The checkpoint ``name``'s two files in a folder of their own, either replaced."""
    src = MODELOPT / name
    (tmp_path / "config.json").write_text(
        json.dumps(config) if config is not None else (src / "config.json").read_text())
    (tmp_path / "hf_quant_config.json").write_text(
        json.dumps(quant) if quant is not None else (src / "hf_quant_config.json").read_text())
    return tmp_path / "config.json"


def test_hf_quant_config_is_read_only_where_vllm_reads_it(tmp_path):
    """vLLM takes hf_quant_config.json only for a config.json without a quantization_config
    (vllm/transformers_utils/config.py, get_config); a file named otherwise than config.json
    (a folder of many configs) does not read a neighbour."""
    cfg = json.loads((MODELOPT / "deepseek-v3.1-nvfp4" / "config.json").read_text())
    own = {**cfg, "quantization_config": {"quant_method": "fp8", "fmt": "e4m3",
                                          "activation_scheme": "dynamic",
                                          "weight_block_size": [128, 128]}}
    assert read_config(_copy(tmp_path, "deepseek-v3.1-nvfp4", own)).scheme.method == "fp8"
    other = tmp_path / "deepseek.json"
    other.write_text(json.dumps(cfg))
    assert read_config(other).scheme is None


@pytest.mark.parametrize("quant, field", [
    ({"producer": {"name": "llm-compressor"}, "quantization": {"quant_algo": "NVFP4"}},
     "'producer.name'"),
    ({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4",
                                                         "kv_cache_quant_algo": "NVFP4"}},
     "'quantization.kv_cache_quant_algo'"),
    ({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "INT4_AWQ"}},
     "'quantization.quant_algo'"),
    ({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4",
                                                         "awq_block_size": 128}},
     "'quantization.awq_block_size'"),
    ({"producer": {"name": "modelopt"}, "quantisation": {}}, "'quantisation'"),
])
def test_hf_quant_config_refusals_name_the_field(tmp_path, quant, field):
    path = _copy(tmp_path, "deepseek-v3.1-nvfp4", quant=quant)
    with pytest.raises(ConfigError, match="hf_quant_config.json: field " + re.escape(field)):
        read_config(path)


def _nested(name):
    """The checkpoint ``name``'s config.json with its hf_quant_config.json written inside it, as
    ``quantization_config`` in ModelOpt's nested shape (``producer`` and ``quantization``).
    No real config.json of that shape was found in a stored copy (``find_string`` on
    ``"quantization_config": {"producer": {`` and its indented forms, ``search`` on the
    NVIDIA repositories' config.json pages: only hf_quant_config.json files, documents and
    writers' code), so the vendored files of SOURCES.md section 14 are rewritten into it."""
    cfg = json.loads((MODELOPT / name / "config.json").read_text())
    cfg.pop("quantization_config", None)
    cfg["quantization_config"] = json.loads((MODELOPT / name / "hf_quant_config.json").read_text())
    return cfg


@pytest.mark.parametrize("name, total", [("deepseek-v3.1-nvfp4", 386_380_112_800),
                                         ("qwen3-235b-a22b-nvfp4", 134_101_651_392)])
def test_modelopt_nested_record_inside_config_json(tmp_path, name, total):
    """ModelOpt's nested record inside config.json (vLLM sets the method from the producer
    and reads the ``quantization`` object, vllm/config/model.py ``_parse_quant_hf_config`` @
    18ec6629253632af0a384f2ffbb8c6b28af322e7 and modelopt.py ``from_config`` @
    c9a59901113ccfe729e9c2be54062abee99b37f7) reads as the side file does: the totals
    worked by hand in the two tests above, the fp8 cache, with no side file beside it."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_nested(name)))
    m = read_config(path)
    assert m.scheme.label == "NVFP4 (16 values per fp8 scale, fp32 global scales)"
    assert m.weight_bytes() == total and m.native_kv_bits == 8
    # the same record with quant_method "modelopt" beside it (vLLM's from_config reads it too)
    cfg = _nested(name)
    cfg["quantization_config"]["quant_method"] = "modelopt"
    assert read_config(cfg).weight_bytes() == total


@pytest.mark.parametrize("change, field", [
    (lambda q: q["quantization"].update(quant_algo="INT4_AWQ"),
     "'quantization_config.quantization.quant_algo'"),
    (lambda q: q["quantization"].update(awq_block_size=128),
     "'quantization_config.quantization.awq_block_size'"),
    (lambda q: q.update(layers={}), "'quantization_config.layers'"),
    (lambda q: q.update(quant_method="modelopt", producer={"name": "other"}),
     "'quantization_config.producer.name'"),
])
def test_modelopt_nested_refusals_name_the_field(change, field):
    cfg = _nested("deepseek-v3.1-nvfp4")
    change(cfg["quantization_config"])
    with pytest.raises(ConfigError, match="field " + re.escape(field)):
        read_config(cfg)


def _fp8_tensor(rows, cols):
    """One ModelOpt FP8 matrix by hand: one byte an element, two fp32 scalars (weight_scale,
    input_scale)."""
    return rows * cols + 8


#: nvidia/Qwen3.6-27B-NVFP4 at revision 0893e1606ff3d5f97a441f405d5fc541a6bdf404, read from
#: its safetensors headers and index by a third party (search index file id 61871879195):
#: ``metadata.total_size`` 21,921,428,072 bytes; per matrix, fp8 ``weight`` F8_E4M3 with
#: ``weight_scale`` and ``input_scale`` F32 scalars (``linear_attn.in_proj_qkv`` [10240,
#: 5120]), NVFP4 ``weight`` U8 [out, in/2] with ``weight_scale`` F8_E4M3 [out, in/16] and
#: ``weight_scale_2``, ``input_scale`` F32 scalars (``mlp.down_proj`` [5120, 8704] and
#: [5120, 1088]); ``in_proj_a`` and ``in_proj_b`` BF16 [48, 5120]; ``lm_head`` U8
#: [248320, 2560]; 15 ``mtp.*`` tensors, kept in bf16 by the file's ignore list ``mtp*``.
QWEN36_TOTAL_SIZE = 21_921_428_072


def test_qwen3_6_27b_counts_each_module_in_its_own_layout(tmp_path):
    """nvidia/Qwen3.6-27B-NVFP4 (MIXED_PRECISION) stores its attention and Gated DeltaNet
    projections in fp8 (W8A8) and its MLPs and lm_head in W4A16 NVFP4. Counted module by
    module, the checkpoint plus its MTP module (which the library reports apart) is the
    index's total_size. The MTP module's 15 tensors are bf16: fc (d x 2d), one gated
    attention block (q_proj 2 x 24 x 256 rows, k_proj and v_proj 4 x 256, o_proj d x 6144),
    one MLP of 17,408 and seven norms (five of d, q_norm and k_norm of 256)."""
    d, ff = 5120, 17408
    mtp = 2 * (2 * d * d + 2 * 24 * 256 * d + 2 * 4 * 256 * d + d * 24 * 256 + 3 * ff * d
               + 5 * d + 2 * 256)
    m = read_config(MODELOPT / "qwen3.6-27b-nvfp4" / "config.json")
    assert m.weight_bytes() + mtp == QWEN36_TOTAL_SIZE
    s = m.scheme
    p = "model.layers.0."
    assert s.layout(p + "linear_attn.in_proj_qkv").matrix_bytes(10240, d) == \
        _fp8_tensor(10240, d)
    assert s.layout(p + "mlp.down_proj").matrix_bytes(d, ff) == d * 8704 + d * 1088 + 8
    assert s.layout("lm_head").matrix_bytes(248320, d) == _nvfp4(248320, d)
    assert not s.quantizes(p + "linear_attn.in_proj_a")
    # fp8 and weight-only NVFP4: the products counted at 16 bits; the fp8 cache
    assert m.native_format is None and m.native_kv_bits == 8
    # the same from hf_quant_config.json alone, for a config.json without its own record
    cfg = json.loads((MODELOPT / "qwen3.6-27b-nvfp4" / "config.json").read_text())
    del cfg["quantization_config"]
    assert read_config(_copy(tmp_path, "qwen3.6-27b-nvfp4", cfg)).weight_bytes() + mtp == \
        QWEN36_TOTAL_SIZE


def test_qwen3_5_gated_deltanet_matrices_by_the_ignore_list(tmp_path):
    """nvidia/Qwen3.5-122B-A10B-NVFP4 keeps every layer's linear_attn* (and self_attn*,
    shared_expert*, lm_head) at 16 bits: its Gated DeltaNet projections count 2 bytes a
    weight. Dropping the linear_attn entries from the ignore list quantizes the mixers' five
    matrices in NVFP4 (ModelOpt's NVFP4 converts every linear layer it is not told to keep):
    in_proj_qkv (2 x 16 x 128 + 64 x 128 rows), in_proj_z (64 x 128), in_proj_b and in_proj_a
    (64 each), all of d = 3,072 inputs, and out_proj (d x 64 x 128), in each of the 36
    linear-attention layers."""
    path = MODELOPT / "qwen3.5-122b-a10b-nvfp4" / "config.json"
    m = read_config(path)
    assert m.scheme.label == "NVFP4 (16 values per fp8 scale, fp32 global scales)"
    cfg = json.loads(path.read_text())
    q = cfg["quantization_config"]
    q["ignore"] = [x for x in q["ignore"] if ".linear_attn" not in x]
    quantized = read_config(_copy(tmp_path, "qwen3.5-122b-a10b-nvfp4", cfg))
    d, v = 3072, 64 * 128
    mats = [(2 * 16 * 128 + v, d), (v, d), (64, d), (64, d), (d, v)]
    saved = 36 * sum(2 * r * c - _nvfp4(r, c) for r, c in mats)
    assert m.weight_bytes() - quantized.weight_bytes() == saved


def test_qwen3_6_35b_shared_expert_by_its_own_name():
    """nvidia/Qwen3.6-35B-A3B-NVFP4 lists its shared expert as ``mlp.shared_expert.*``
    (Qwen3.5's singular name) in W4A16 NVFP4: each of its 40 layers' three 512 x 2048 matrices
    is counted in NVFP4; without those entries (in quantized_layers and in the config_groups
    that restate them), at 2 bytes a weight."""
    path = MODELOPT / "qwen3.6-35b-a3b-nvfp4" / "config.json"
    m = read_config(path)
    assert m.scheme.quantizes("model.layers.0.mlp.shared_expert.up_proj")
    cfg = json.loads(path.read_text())
    q = cfg["quantization_config"]
    q["quantized_layers"] = {k: v for k, v in q["quantized_layers"].items()
                             if ".shared_expert." not in k}
    for g in q["config_groups"].values():
        g["targets"] = [t for t in g["targets"] if ".shared_expert." not in t]
    kept = read_config(cfg)
    assert kept.weight_bytes() - m.weight_bytes() == 40 * 3 * (2 * 512 * 2048
                                                               - _nvfp4(512, 2048))
    assert m.native_format is None


def _qwen3_235b_mixed(layers):
    cfg = json.loads((MODELOPT / "qwen3-235b-a22b-nvfp4" / "config.json").read_text())
    return {**cfg, "quantization_config": {
        "quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "kv_cache_quant_algo": "FP8",
        "exclude_modules": ["lm_head"], "quantized_layers": layers}}


def test_mixed_scheme_with_one_layout_a_part():
    """Qwen3-235B-A22B with its fused experts listed module by module (NVFP4, as the
    Qwen3.6-35B-A3B file lists model.language_model.layers.N.mlp.experts) and nothing else:
    the experts as in the NVFP4 file, every other matrix at 2 bytes."""
    V, d, L, H, Hkv, dh, E, ff = 151936, 4096, 94, 64, 4, 128, 128, 1536
    m = read_config(_qwen3_235b_mixed({f"model.layers.{i}.mlp.experts": {
        "quant_algo": "NVFP4", "group_size": 16} for i in range(L)}))
    attn = 2 * (2 * H * dh * d + 2 * Hkv * dh * d + 2 * dh)
    total = L * (attn + 3 * E * _nvfp4(ff, d) + 2 * E * d + 2 * 2 * d) + 2 * 2 * V * d + 2 * d
    assert m.weight_bytes() == total
    assert m.native_bits["default"] == 16 and m.native_kv_bits == 8
    # the experts alone quantized: multiplied at 16 bits, as gpt-oss's MXFP4 experts
    assert m.native_format is None
    # the same experts in W4A16 (the activations at 16 bits): the same bytes, no fp4 products
    w4a16 = read_config(_qwen3_235b_mixed({f"model.layers.{i}.mlp.experts": {
        "quant_algo": "W4A16_NVFP4", "group_size": 16} for i in range(L)}))
    assert w4a16.weight_bytes() == total and w4a16.native_format is None


def test_mixed_scheme_refusals():
    """Experts and the rest multiplied in different formats (NVFP4 and FP8), and a module
    this library does not list (another family's names): each refused naming the field."""
    nvfp4 = {"quant_algo": "NVFP4", "group_size": 16}
    with pytest.raises(ConfigError, match=r"'quantization_config.quantized_layers' = "
                                          r"'2 modules' multiplies its matrices in 2 "
                                          r"low-precision formats"):
        read_config(_qwen3_235b_mixed({"model.layers.0.mlp.experts": nvfp4,
                                       "model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"}}))
    with pytest.raises(ConfigError, match=r"'quantization_config.quantized_layers' names 1 "
                                          r"module\(s\) .*'model.layers.0.block_sparse_moe"):
        read_config(_qwen3_235b_mixed({"model.layers.0.mlp.experts": nvfp4,
                                       "model.layers.0.block_sparse_moe.experts": nvfp4}))
    with pytest.raises(ConfigError, match=r"'quantization_config.quantized_layers.model.layers"
                                          r"\.0\.mlp\.experts.quant_algo' = 'MXFP8'"):
        read_config(_qwen3_235b_mixed({"model.layers.0.mlp.experts": {"quant_algo": "MXFP8"}}))


def test_describe_defaults_to_the_checkpoints_fp8_cache():
    """describe without --kv-bits counts the cache the checkpoint asks for (8 bits), with it
    the bits asked."""
    import contextlib
    import io

    from llm_arithmetic.cli import main

    path = str(MODELOPT / "deepseek-v3.1-nvfp4" / "config.json")
    for extra, per_token in (([], 35_136), (["--kv-bits", "16"], 70_272)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["describe", path, "--hardware", "b200", "--json", *extra]) in (0, None)
        d = json.loads(out.getvalue())
        assert d["kv_cache_bytes_per_token"] == per_token
        assert d["weight_bytes"] == 386_380_112_800
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["describe", path, "--hardware", "b200"])
    assert "KV cache 8 bits/element (the checkpoint's)" in out.getvalue()


def test_engines_default_cache_is_the_checkpoints_where_they_read_it():
    """vLLM resolves its default cache dtype (auto) to a ModelOpt checkpoint's FP8 cache
    (vllm/utils/torch_utils.py, get_kv_cache_quant_algo_string), and TensorRT-LLM takes the
    file's kv_cache_quant_algo; asked for bfloat16, vLLM keeps 16 bits. SGLang's auto is fp8_e4m3
    where the quantization config's kv_cache_quant_algo is "FP8" (sglang
    python/sglang/srt/mem_cache/kv_cache_dtype.py @ aff0d58a, configure_kv_cache_dtype), which its
    ModelOpt config reads from hf_quant_config.json; asked for bf16, 16 bits. DeepSeek-V3.1's
    latent cache: 61 x 576 elements a token."""
    from llm_arithmetic.engine import engine_view

    m = read_config(MODELOPT / "deepseek-v3.1-nvfp4" / "config.json")
    for engine, flags, per_token in (("vllm", {}, 61 * 576),
                                     ("tensorrt-llm", {}, 61 * 576),
                                     ("sglang", {}, 61 * 576),
                                     ("sglang", {"--kv-cache-dtype": "bf16"}, 2 * 61 * 576),
                                     ("vllm", {"--kv-cache-dtype": "bfloat16"}, 2 * 61 * 576)):
        v = engine_view(m, engine, hardware="b200", tp=8, flags=flags, kv_memory_gib=10)
        assert v.engine_kv_bytes_per_token == per_token, (engine, flags)


# ---- ModelOpt files the audit found refused (SOURCES.md section 14) -----------------------------
def test_glm_5_2_nvfp4_restates_the_routed_experts():
    """nvidia/GLM-5.2-NVFP4's config.json carries num_experts = 256 beside n_routed_experts =
    256 and names every layer's attention "deepseek_sparse_attention": both restate what the
    file already says, so it counts as zai-org's GLM-5.2 (the same geometry); a num_experts
    that differs, or another attention kind, is refused naming the fields."""
    path = MODELOPT / "glm-5.2-nvfp4" / "config.json"
    m = read_config(path)
    assert m.total_params == read_config(CONFIGS / "glm-5.2.json").total_params
    cfg = json.loads(path.read_text())
    with pytest.raises(ConfigError, match=r"fields 'n_routed_experts' \(256\) and "
                                          r"'num_experts' \(128\) give one size two values"):
        read_config({**cfg, "num_experts": 128})
    with pytest.raises(ConfigError, match=r"field 'layer_types' has unknown kinds "
                                          r"\['full_attention'\]"):
        read_config({**cfg, "layer_types": ["full_attention"] * cfg["num_hidden_layers"]})


def test_deepseek_v4_flash_nvfp4_experts_beside_fp8_blocks():
    """nvidia/DeepSeek-V4-Flash-NVFP4 keeps DeepSeek-V4's fp8 record (128 x 128 blocks, E8M0
    scales) and adds ModelOpt's: its routed experts (43 layers x 256 x 3 matrices of
    2048 x 4096) in NVFP4 instead of MXFP4; everything else as deepseek-ai's file ships it.
    Per expert weight an NVFP4 matrix adds one byte per 16 (an fp8 scale) where MXFP4 adds one
    per 32 (an E8M0 scale), and two fp32 scalars a matrix."""
    m = read_config(MODELOPT / "deepseek-v4-flash-nvfp4" / "config.json")
    base = read_config(CONFIGS / "deepseek-v4-flash.json")
    matrices = 43 * 256 * 3
    weights = matrices * 2048 * 4096
    assert m.weight_bytes() - base.weight_bytes() == weights // 16 - weights // 32 + 8 * matrices
    assert m.scheme.label == "fp8 block-scaled 128x128 (E8M0 scales), NVFP4 experts"
    assert m.native_format == base.native_format


@pytest.mark.parametrize("change, field", [
    (lambda q: q.update(moe_quant_algo="MXFP8"), "'quantization_config.moe_quant_algo'"),
    (lambda q: q["quantized_layers"].update({"layers.0.attn.wq_a": {"quant_algo": "NVFP4"}}),
     "'quantization_config.quantized_layers.layers.0.attn.wq_a'"),
    (lambda q: q.update(kv_cache_quant_algo="FP8"), "'quantization_config.kv_cache_quant_algo'"),
    (lambda q: q.update(quant_algo="NVFP4"), "'quantization_config.quant_algo'"),
])
def test_deepseek_v4_nvfp4_refusals_name_the_field(change, field):
    cfg = json.loads((MODELOPT / "deepseek-v4-flash-nvfp4" / "config.json").read_text())
    change(cfg["quantization_config"])
    with pytest.raises(ConfigError, match="field " + re.escape(field)):
        read_config(cfg)


def test_modelopt_flat_record_without_quant_method():
    """Qwen3-32B-FP8-Static-PerTensor's config.json holds the record ModelOpt 0.31's exporter
    writes (producer, quant_algo FP8, config_groups without targets, kv_cache_scheme "FP8", no
    quant_method), the same layout as its hf_quant_config.json: fp8 per-tensor weights with
    fp32 weight and input scales for every linear layer but lm_head, an fp8 cache. By hand from
    Qwen3-32B's published 32,762,123,264 parameters (SOURCES.md section 7): its 64 x 7 matrices
    (q and o 8,192 x 5,120, k and v 1,024 x 5,120, three of 25,600 x 5,120) at one byte and
    8 bytes of scales each, the rest at two."""
    m = read_config(MODELOPT / "qwen3-32b-fp8-static-pertensor" / "config.json")
    per_layer = 2 * 8192 * 5120 + 2 * 1024 * 5120 + 3 * 25600 * 5120
    assert m.weight_bytes() == 2 * 32_762_123_264 - 64 * per_layer + 64 * 7 * 8
    assert m.scheme.label == "fp8 per-tensor" and m.native_kv_bits == 8
    assert m.native_format == {"compute": "fp8", "compute_fallback": "fp16"}
    cfg = json.loads((MODELOPT / "qwen3-32b-fp8-static-pertensor" / "config.json").read_text())
    q = cfg["quantization_config"]
    with pytest.raises(ConfigError, match=r"field 'quantization_config.kv_cache_scheme' = "
                                          r"'INT8'"):
        read_config({**cfg, "quantization_config": {**q, "kv_cache_scheme": "INT8"}})
    del q["producer"]
    with pytest.raises(ConfigError, match=r"missing field 'quantization_config.quant_method': "
                                          r"the record names no method and no ModelOpt "
                                          r"producer"):
        read_config(cfg)


def test_nemotron_3_5_lightning_mamba_and_experts_by_their_own_layouts():
    """nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4 (MIXED_PRECISION, its
    hf_quant_config.json) names its modules as Nemotron-H does (backbone.layers.N.mixer.*):
    the 23 Mamba-2 mixers' in_proj (2 x 4,096 + 2 x 8 x 128 + 64 = 10,304 rows) and out_proj
    (4,096 inputs) in fp8, each of the 23 x 128 routed experts (up and down, 1,856 x 2,688)
    listed one by one, the 23 shared experts (3,712 x 2,688) and lm_head (131,072 x 2,688) in
    W4A16 NVFP4; attention and routers kept in bf16. Against the same config.json read as
    16-bit weights, each of those matrices saves its 2 bytes a weight less its layout's.
    A third party's reading of the same checkpoint gives 5.612 MB an NVFP4 expert and 16.5 GB
    of expert banks (search index file id 57369127849)."""
    d = 2688
    m = read_config(MODELOPT / "nemotron-3.5-lightning-30b-a3b-nvfp4" / "config.json")
    plain = read_config(CONFIGS / "nvidia-nemotron-3.5-lightning-30b-a3b-nvfp4.json")
    assert plain.scheme is None
    nvfp4 = [(23 * 128 * 2, 1856, d), (23 * 2, 3712, d), (1, 131072, d)]
    fp8 = [(23, 10304, d), (23, d, 4096)]
    saved = sum(k * (2 * r * c - _nvfp4(r, c)) for k, r, c in nvfp4) \
        + sum(k * (2 * r * c - _fp8_tensor(r, c)) for k, r, c in fp8)
    assert plain.weight_bytes() - m.weight_bytes() == saved
    expert = 2 * _nvfp4(1856, d)
    assert 5.612e6 <= expert < 5.613e6 and round(23 * 128 * expert / 1e9, 1) == 16.5
    assert m.native_format is None and m.native_kv_bits == 8
    assert m.scheme.layout("backbone.layers.0.mixer.in_proj").label == "fp8 per-tensor"


def test_other_mamba_families_stay_refused():
    """Granite 4.0-H names its Mamba-2 mixers otherwise (model.layers.N.mamba): a quantized
    file of it is still refused, naming the mixer."""
    cfg = json.loads((CONFIGS / "granite-4.0-h-tiny.json").read_text())
    cfg["quantization_config"] = {"quant_method": "fp8", "weight_block_size": [128, 128]}
    with pytest.raises(ConfigError, match="a Mamba2 mixer in a quantized checkpoint"):
        read_config(cfg)


def test_experts_listed_in_part_are_refused(tmp_path):
    """A list that names some of a block's experts one by one (Lightning's list without expert
    5 of layer 1) is refused naming the first one missing: the library counts a block's
    experts together."""
    quant = json.loads((MODELOPT / "nemotron-3.5-lightning-30b-a3b-nvfp4" /
                        "hf_quant_config.json").read_text())
    del quant["quantization"]["quantized_layers"]["backbone.layers.1.mixer.experts.5.up_proj"]
    with pytest.raises(ConfigError, match=r"names 'backbone.layers.1.mixer.experts.0.up_proj' "
                                          r"but not 'backbone.layers.1.mixer.experts.5.up_proj'"):
        read_config(_copy(tmp_path, "nemotron-3.5-lightning-30b-a3b-nvfp4", quant=quant))


def test_a_list_refused_after_reading_names_the_field_of_its_own_file(tmp_path):
    """The list that a check of the model's matrices refuses (experts named in part, a module
    that is none of the model's) is hf_quant_config.json's: the error names that file and its
    field as it spells it (quantization.quantized_layers), as errors met while reading it do,
    not a quantization_config the folder's config.json does not hold."""
    quant = json.loads((MODELOPT / "nemotron-3.5-lightning-30b-a3b-nvfp4" /
                        "hf_quant_config.json").read_text())
    layers = quant["quantization"]["quantized_layers"]
    del layers["backbone.layers.1.mixer.experts.5.up_proj"]
    path = _copy(tmp_path, "nemotron-3.5-lightning-30b-a3b-nvfp4", quant=quant)
    assert "quantization_config" not in json.loads(path.read_text())
    with pytest.raises(ConfigError) as e:
        read_config(path)
    assert str(e.value).startswith(f"{tmp_path / 'hf_quant_config.json'}: field "
                                   "'quantization.quantized_layers' names ")
    layers["backbone.layers.1.mixer.experts.5.up_proj"] = {"quant_algo": "W4A16_NVFP4",
                                                           "group_size": 16}
    layers["backbone.layers.1.mixer.nowhere"] = {"quant_algo": "FP8"}
    with pytest.raises(ConfigError, match=r"hf_quant_config.json: field "
                                          r"'quantization.quantized_layers' names 1 module"):
        read_config(_copy(tmp_path, "nemotron-3.5-lightning-30b-a3b-nvfp4", quant=quant))


def test_nemotron_h_latent_projections_by_their_own_names(tmp_path):
    """Nemotron-H's latent mixture names its projections into and out of the experts' latent
    ``fc1_latent_proj`` (d -> latent) and ``fc2_latent_proj`` (latent -> d), as vLLM's
    nemotron_h.py builds them (ReplicatedLinear with the model's quant_config and those
    prefixes, vllm-project/vllm@8744bb0924a53c0d16867426b8b17428d41e4002), not Kimi K3's
    ``routed_expert_*``. A ModelOpt list naming layer 1's two of Nemotron 3 Super
    (d 4,096, moe_latent_size 1,024) in FP8 is read, each at a byte a weight and two fp32
    scalars, where it was refused as naming modules none of the model's; Kimi K3's names in a
    Nemotron-H list are refused."""
    cfg = json.loads((Path(__file__).parents[1] / "lib" / "llm_arithmetic" / "catalog" / "data"
                      / "models" / "nemotron-3-super" / "config.json").read_text())
    cfg.pop("quantization_config", None)
    assert cfg["hidden_size"] == 4096 and cfg["moe_latent_size"] == 1024
    assert cfg["hybrid_override_pattern"][1] == "E"     # layer 1: a mixture of experts
    plain = read_config(cfg)

    def folder(names, sub):
        quant = {"producer": {"name": "modelopt", "version": "0.44.0rc5"},
                 "quantization": {"quant_algo": "MIXED_PRECISION", "kv_cache_quant_algo": None,
                                  "quantized_layers": {f"backbone.layers.1.mixer.{n}":
                                                       {"quant_algo": "FP8"} for n in names},
                                  "exclude_modules": []}}
        d = tmp_path / sub
        d.mkdir()
        (d / "config.json").write_text(json.dumps(cfg))
        (d / "hf_quant_config.json").write_text(json.dumps(quant))
        return d / "config.json"

    m = read_config(folder(["fc1_latent_proj", "fc2_latent_proj"], "nemotron"))
    saved = 2 * (2 * 1024 * 4096 - _fp8_tensor(1024, 4096))
    assert plain.weight_bytes() - m.weight_bytes() == saved
    with pytest.raises(ConfigError, match="routed_expert_down_proj"):
        read_config(folder(["routed_expert_down_proj", "routed_expert_up_proj"], "kimi"))


@pytest.mark.parametrize("folder, kept", [
    ("deepseek-v3.1-nvfp4", True), ("glm-5.2-nvfp4", True), ("qwen3.5-122b-a10b-nvfp4", True),
    ("qwen3.6-27b-nvfp4", True), ("qwen3.6-35b-a3b-nvfp4", True),
    ("deepseek-v4-flash-nvfp4", False), ("nemotron-3.5-lightning-30b-a3b-nvfp4", None)])
def test_which_modules_the_checkpoints_keep_unquantized(folder, kept):
    """Whether a ModelOpt file keeps its multi-token-prediction module out of its formats, as
    its lists say (tests/configs/SOURCES.md section 14, the files vendored from
    ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce): DeepSeek-V3.1
    excludes ``model.layers.61*``, GLM-5.2 ``model.layers.78*``, the Qwen3.5/3.6 files
    ``mtp*``; DeepSeek-V4-Flash's ignores ``mtp.*`` only from NVFP4, its module left in
    DeepSeek-V4's fp8 blocks; Nemotron 3.5 Lightning's module is not named here. A kept module
    multiplies at 16 bits (``Model.draft_format``)."""
    from llm_arithmetic.catalog.quantization import mtp_format_kept
    from llm_arithmetic.arguments import resolve_model

    m = resolve_model(Path(__file__).parent / "configs" / "modelopt" / folder / "config.json")
    assert mtp_format_kept(m, m.scheme) is kept
    assert (m.draft_format is not None) is bool(kept)


def test_llama_cpp_mixes_refuse_a_low_rank_query():
    """Step3's attention takes its query through a rank of 2,048 and a norm (d r_q + r_q +
    r_q H d_h = 7,168 x 2,048 + 2,048 + 2,048 x 16,384 weights a layer, not d H d_h =
    117,440,512): no llama.cpp tensor names or rules for it are known here, so a mix is
    refused rather than typed from a plain attention's shapes (FAMILIES.md 17.29)."""
    from llm_arithmetic.catalog.formats import mix_tensors
    from llm_arithmetic.core.errors import InputError

    m = get_model("step3")
    for call in (lambda: mix_tensors(m, "q4_k_m"), lambda: estimate(m, weights="q4_k_m")):
        with pytest.raises(InputError, match="low-rank-query"):
            call()
