"""Weights as shipped against real checkpoints: byte totals (``metadata.total_size`` of
``model.safetensors.index.json``, or the files' bytes), the Hub's element count, and the tensor
lists that say which modules are quantized (``tests/data/shipped_weights.json``, sources in
``tests/data/SOURCES.md``)."""
from __future__ import annotations

import json
import math
from pathlib import Path

from llm_arithmetic import get_model
from llm_arithmetic.catalog.model import Layers, Model
from llm_arithmetic.catalog.quantization import read_scheme, shipped_bytes, tensors

DATA = json.loads((Path(__file__).parent / "data" / "shipped_weights.json").read_text())
DTYPE_BYTES = {"BF16": 2, "F16": 2, "F32": 4, "I32": 4, "F8_E4M3": 1, "U8": 1}


def _bytes(shape: list[int], dtype: str) -> int:
    return math.prod(shape) * DTYPE_BYTES[dtype]


# ---- byte totals of real checkpoints -------------------------------------------------------------
def test_gpt_oss_total_size_equals_the_index():
    assert get_model("gpt-oss-20b").weight_bytes() == DATA["gpt-oss-20b"]["total_size"]
    assert get_model("gpt-oss-120b").weight_bytes() == DATA["gpt-oss-120b"]["tensor_bytes"]


def _deepseek_mtp(m: Model) -> tuple[Model, int]:
    """DeepSeek-V3's MTP module as a one-block model (its embedding table, head, final norm
    and block), and the parameters it adds besides (enorm, hnorm, eh_proj 2d -> d), which the
    checkpoint stores in bf16."""
    last = m.layers[-1]
    one = Model(name="mtp", n_vocab=m.n_vocab, d_model=m.d_model,
                layers=(Layers(1, last.attention, mlp=last.mlp, norms=last.norms),))
    return one, 2 * m.d_model + 2 * m.d_model ** 2


def test_deepseek_checkpoint_elements_equal_the_hub_count():
    """Parameters, MTP module and one fp32 scale per 128 x 128 block of every fp8 matrix: the
    Hub's element count of the checkpoint (an independent total)."""
    m = get_model("deepseek-v3")
    one, besides = _deepseek_mtp(m)
    assert one.total_params + besides == m.extras[0].params
    scales = sum(t.count * math.ceil(t.rows / 128) * math.ceil(t.cols / 128)
                 for model in (m, one) for t in tensors(model) if t.quantizable)
    assert (m.total_params + m.extras[0].params + scales
            == DATA["deepseek-r1"]["hub_total_elements"])


def test_deepseek_checkpoint_bytes_against_its_files():
    """The index's total_size was not found; the files' sizes were. They hold the tensors and,
    per shard, a JSON header of tensor names, dtypes, shapes and offsets: the files exceed the
    tensors by the headers alone (under 12 MB for about 91,000 tensors in 163 shards)."""
    m = get_model("deepseek-v3")
    one, besides = _deepseek_mtp(m)
    b = shipped_bytes(one, m.scheme)
    total = m.weight_bytes() + b["experts"] + b["other"] + 2 * besides
    assert total == 688_574_839_360  # FAMILIES.md section 5, derived by hand from the shapes
    headers = DATA["deepseek-r1"]["artifact_bytes"] - total
    assert 0 < headers < 12e6


# ---- tensor lists of real checkpoints ------------------------------------------------------------
def test_deepseek_tensor_kinds_match_the_checkpoint():
    """Each matrix kind: fp8 with a [ceil(out/128), ceil(in/128)] fp32 scale, or bf16 (the
    router); the router's correction bias in fp32."""
    listed = DATA["deepseek-r1"]["tensors"]
    m = get_model("deepseek-v3")
    seen = set()
    for t in tensors(m):
        key = (t.name.split(".self_attn.")[-1] if ".self_attn." in t.name
               else t.name.split(".mlp.experts.0.")[-1] if t.expert
               else t.name.split(".mlp.")[-1])
        key = ("experts." + key if t.expert else
               "mlp." + key if key in ("gate_proj", "up_proj", "down_proj") else key)
        if key + ".weight" not in listed:
            continue
        seen.add(key)
        shape, dtype = listed[key + ".weight"]
        assert shape == [t.rows, t.cols], key
        quantized = t.quantizable and not m.scheme.kept(t.name)
        assert (dtype == "F8_E4M3") == quantized, key
        if quantized:
            assert listed[key + ".weight_scale_inv"] == [
                [math.ceil(t.rows / 128), math.ceil(t.cols / 128)], "F32"], key
    assert {"q_a_proj", "kv_a_proj_with_mqa", "o_proj", "gate", "experts.down_proj",
            "shared_experts.gate_proj", "mlp.gate_proj"} <= seen
    assert listed["gate.e_score_correction_bias"][1] == "F32"
    assert m.scheme.router_bias_bits == 32


def test_gpt_oss_quantized_modules_match_the_index():
    """MXFP4 (``_blocks`` and ``_scales``) exactly for the experts' matrices, ``.weight`` for
    the attention projections and the router, as the config's modules_to_not_convert says."""
    names = DATA["gpt-oss-20b"]["layer_0_tensors"]
    blocks = {n[:-len("_blocks")] for n in names if n.endswith("_blocks")}
    plain = {n[:-len(".weight")] for n in names if n.endswith(".weight") and "norm" not in n}
    assert blocks == {"model.layers.0.mlp.experts.gate_up_proj",
                      "model.layers.0.mlp.experts.down_proj"}
    m = get_model("gpt-oss-20b")
    layer0 = [t for t in tensors(m) if t.name.startswith("model.layers.0.")]
    quantized = {t.name for t in layer0 if t.quantizable and t.expert}
    unquantized = {t.name.replace("mlp.gate", "mlp.router") for t in layer0
                   if not (t.quantizable and t.expert)}
    assert {n.rsplit(".", 1)[-1] for n in quantized} == {"gate_proj", "up_proj", "down_proj"}
    assert unquantized == plain
    # the fused gate_up blocks: (E, 2 ff, d / 32, 16) values and (E, 2 ff, d / 32) exponents
    e, rows, groups, half = DATA["gpt-oss-20b"]["expert_block_shapes"]["gate_up_proj_blocks"]
    gate = next(t for t in layer0 if t.name.endswith("experts.0.gate_proj"))
    assert (e, rows, groups * 32) == (gate.count, 2 * gate.rows, gate.cols)
    assert 2 * m.scheme.matrix_bytes(gate.rows, gate.cols) == rows * groups * (half + 1)


def test_gptq_layout_equals_a_real_checkpoints_tensors():
    """Qwen2.5-7B-Instruct-GPTQ-Int4's q_proj: qweight, qzeros, scales and g_idx."""
    s = read_scheme({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False,
                     "sym": True})
    listed = DATA["qwen2.5-7b-instruct-gptq-int4"]["q_proj"]
    stored = sum(_bytes(*listed[k]) for k in ("qweight", "qzeros", "scales", "g_idx"))
    assert s.matrix_bytes(3584, 3584) == stored


def test_nemotron_3_super_fp8_repository_is_counted_at_16_bits_and_says_so():
    """The vendored copy of the FP8 repository's config.json (aiconfigurator's) carries no
    quantization_config; the Hugging Face file declares a ModelOpt FP8 one whose module list was
    not found verbatim (FAMILIES.md section 14.14): the entry counts every weight at 16 bits,
    2 B x the hand count of FAMILIES.md section 14.14 (120,668,707,840 parameters with the
    router buffers), and its notes say so rather than invent a scheme."""
    from llm_arithmetic.catalog.model_catalog import CATALOG
    from llm_arithmetic.weights import weights_as

    entry = CATALOG["nemotron-3-super"]
    path = (Path(__file__).parents[1] / "lib" / "llm_arithmetic" / "catalog" / "data" / "models"
            / "nemotron-3-super" / "config.json")
    assert "quantization_config" not in json.loads(path.read_text())
    assert "NVIDIA-Nemotron-3-Super-120B-A12B-FP8" in entry.url
    m = entry.model
    assert m.scheme is None and weights_as(m) == "as shipped: 16-bit"
    assert m.weight_bytes() == 2 * 120_668_707_840
    assert "Weights counted at 16 bits" in entry.notes


def test_a_vision_tower_is_read_at_the_bits_it_is_shipped_in():
    """Kimi K2.5 ships int4 routed experts and everything else in bf16 (its text_config's
    quantization_config; FAMILIES.md 14.15), its vision tower and projector included: the
    tower's bytes are 2 a parameter, not the model's 4.64-bit average (the experts' int4 pulled
    the tower down to 0.27 GB). The tower by hand from vision_config (FAMILIES.md 14.9):
    MoonViT's patch embedding 3 x 14^2 x 1152 + 1152, a 64 x 64 x 1152 position table, 27
    blocks of q, k, v, proj (1152^2 + 1152 each), fc1 and fc2 (1152 x 4304, biases 4304 and
    1152) and two LayerNorms, a final LayerNorm; the projector's LayerNorm, 4608^2 + 4608 and
    4608 x 7168 + 7168."""
    from llm_arithmetic.catalog.images import image_tower

    h, f = 1152, 4304
    block = 4 * (h * h + h) + 2 * h * f + f + h + 2 * 2 * h
    tower = (3 * 14 ** 2 * h + h) + 64 * 64 * h + 27 * block + 2 * h
    projector = 2 * h + (4608 ** 2 + 4608) + (4608 * 7168 + 7168)
    assert tower + projector == 471_143_920
    m = get_model("kimi-k2.5")
    assert image_tower(m)[0].params == tower + projector
    # the plan's step, asked alone (an estimate would also work out everything else)
    images = dict(images=1, image_tokens_per_image=4, vision_prefill_flops=0,
                  vision_params=tower + projector)
    assert m.plan.child(**images).get("vision_weight_bytes") == 2 * (tower + projector)
    # asked for 8-bit weights, the language model is 8-bit but the tower stays at 16 (its own
    # mmproj file in llama.cpp, an unquantized module in FP8/AWQ checkpoints); fp32 asked: 32
    assert m.plan.child(bits_weight=8, **images).get("vision_weight_bytes") \
        == 2 * (tower + projector)
    assert m.plan.child(bits_weight=32, **images).get("vision_weight_bytes") \
        == 4 * (tower + projector)
