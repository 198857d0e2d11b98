"""Kimi K3's routed experts padded under tensor parallelism, as vLLM's KimiMoE builds them.

vllm-project/vllm@ed51064c4a697d92fb1182b688c988b4b54dcaeb, vllm/models/kimi_k3/nvidia/model.py,
``KimiMoE.__init__``: with tp_size > 1, where ``moe_intermediate_size // tp_size`` is below
``min_moe_intermediate_per_partition`` (a config key, 256 when absent), the fused experts are
built with ``padded_moe_intermediate_size = min_moe_intermediate_per_partition * tp_size`` and
their w13/w2 weights zeroed before loading (the checkpoint fills the first
``moe_intermediate_size`` columns). At that commit the rule does not look at expert
parallelism. The padding is held in the experts' format, read for the experts a step reads, and
multiplied (zeros still go through the GEMM).

Numbers from tests/configs/kimi-k3.json (checked below): 93 blocks, the first dense
(``first_k_dense_replace`` 1), so 92 mixtures; 896 experts, 16 a token, each three matrices of
``routed_expert_hidden_size`` 3,584 x ``moe_intermediate_size`` 3,072; experts in MXFP4
(4-bit elements, an 8-bit scale per 32: 4.25 bits), the rest bf16.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_arithmetic import get_model
from llm_arithmetic.catalog.readers import read_config
from llm_arithmetic.estimate import plan_inputs

CONFIG = Path(__file__).parent / "configs" / "kimi-k3.json"
TEXT = json.loads(CONFIG.read_text())["text_config"]
MOE_LAYERS, EXPERTS, TOP_K, LATENT, WIDTH = 92, 896, 16, 3584, 3072
MXFP4_BITS = 4 + 8 / 32


def _group(cfg=None, **kw):
    m = read_config(cfg if cfg is not None else CONFIG, name="kimi-k3")
    return m.plan.child(**plan_inputs(m, context=4096, **kw))


def test_the_config_as_read():
    assert (TEXT["num_hidden_layers"] - TEXT["first_k_dense_replace"], TEXT["num_experts"],
            TEXT["num_experts_per_token"], TEXT["routed_expert_hidden_size"],
            TEXT["moe_intermediate_size"]) == (MOE_LAYERS, EXPERTS, TOP_K, LATENT, WIDTH)
    assert "min_moe_intermediate_per_partition" not in TEXT  # vLLM's default, 256, applies
    assert TEXT["quantization_config"]["format"] == "mxfp4-pack-quantized"


# at tp 16 a chip would hold 3,072 / 16 = 192 columns of each expert, padded to 256: the group
# holds 16 x 256 = 4,096, 1,024 zero columns in each of the three matrices of every expert
PAD_COLUMNS = 16 * 256 - WIDTH
HELD = MOE_LAYERS * EXPERTS * 3 * LATENT * PAD_COLUMNS
ACTIVE = MOE_LAYERS * TOP_K * 3 * LATENT * PAD_COLUMNS


def test_padding_held_read_and_multiplied_at_tp_16():
    assert PAD_COLUMNS == 1024 and HELD == 907_580_276_736
    ev = _group(tp=16, batch=1, prompt=1000)
    assert ev.get("expert_pad_params") == HELD
    assert ev.get("expert_pad_bytes") == HELD * MXFP4_BITS / 8 == 482_152_022_016
    assert ev.get("weight_bytes_held") == (ev.get("weight_bytes") + ev.get("weight_bytes_copies")
                                           + HELD * MXFP4_BITS / 8)
    # one token reads its 16 experts' padding in every mixture
    assert ev.get("expert_pad_read_params") == ACTIVE == 16_206_790_656
    assert ev.get("step_weight_bytes_held") == (ev.get("step_weight_bytes")
                                                + ev.get("weight_bytes_copies")
                                                + ACTIVE * MXFP4_BITS / 8)
    # 2 FLOPs per padded weight of the k experts, per token; K3 has no indexer, so the group's
    # FLOPs were the model's before the padding
    assert ev.get("decode_flops_held") - ev.get("decode_flops") == 2 * ACTIVE
    assert ev.get("prefill_flops_held") - ev.get("prefill_flops") == 2 * 1000 * ACTIVE


def test_a_batch_reads_the_padding_of_the_experts_it_reads():
    ev = _group(tp=16, batch=4)
    experts = EXPERTS * (1 - (1 - TOP_K / EXPERTS) ** 4)  # uniform routing (design decision 3)
    assert ev.get("expert_pad_read_params") == pytest.approx(
        MOE_LAYERS * experts * 3 * LATENT * PAD_COLUMNS, rel=1e-12)
    assert ev.get("expert_pad_params") == HELD  # held whatever the batch


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_no_padding_where_a_chips_share_is_at_least_256(tp):
    # 3,072 / 8 = 384 >= 256; one chip holds the model as it is
    ev = _group(tp=tp, prompt=100)
    assert ev.get("expert_pad_params") == ev.get("expert_pad_read_params") == 0
    assert ev.get("prefill_flops_held") == ev.get("prefill_flops")


def test_the_least_width_is_read_from_the_config():
    # a file that sets min_moe_intermediate_per_partition 512: at tp 8 a chip's 384 is padded
    # to 512, 8 x 512 - 3,072 = 1,024 zero columns again; 0 turns the padding off
    cfg = json.loads(CONFIG.read_text())
    cfg["text_config"]["min_moe_intermediate_per_partition"] = 512
    assert _group(cfg, tp=8).get("expert_pad_params") == MOE_LAYERS * EXPERTS * 3 * LATENT * (
        8 * 512 - WIDTH)
    cfg["text_config"]["min_moe_intermediate_per_partition"] = 0
    assert _group(cfg, tp=16).get("expert_pad_params") == 0


def test_other_latent_mixtures_are_not_padded():
    # the rule is KimiMoE's (Kimi K3's latent mixture): Nemotron 3 Super's latent experts and
    # Kimi Linear's plain ones are held at their own width
    m = get_model("nemotron-3-super")
    assert {run.mlp.pad_min for run in m.layers if run.mlp} == {0}
    ev = m.plan.child(**plan_inputs(m, tp=8, context=4096))
    assert ev.get("expert_pad_params") == 0
    assert {run.mlp.pad_min for run in get_model("kimi-linear-48b-a3b").layers if run.mlp} == {0}
    assert {run.mlp.pad_min for run in read_config(CONFIG).layers if run.mlp.is_moe} == {256}
