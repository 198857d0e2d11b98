"""A sparse-attention indexer on a tensor-parallel group: what each chip computes.

The engine decides how an indexer's query heads are split (vLLM):

* MiniMax Sparse Attention shards them as it shards the key/value heads, at least one a chip
  (vllm-project/vllm@902158949803be74ad6941ee4bd4b08741297fa0,
  vllm/models/minimax_m3/nvidia/model.py: ``num_idx_heads = num_kv_heads = max(1,
  num_key_value_heads // tp_size)``);
* DeepSeek Sparse Attention replicates the whole indexer on every chip
  (vllm-project/vllm@002d6073aa034d4f5545d45021b0e56d1f3c3593,
  vllm/model_executor/models/deepseek_v2.py, ``Indexer``: "no tensor parallel, just
  replicated"; GLM-5's class is DeepseekV2ForCausalLM's).

Expected values are computed here from the checkpoints' config.json files: the indexer's score
FLOPs are 2 x heads x index width per query-key pair (every causal pair of a prefill, every
cached token of a decode step), and a chip that computes h heads of H does h/H of them. The
group's FLOPs with every copy counted exceed the model's by (tp x h - H) heads' worth.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_arithmetic import get_model
from llm_arithmetic.estimate import estimate, plan_inputs

MODELS = Path(__file__).resolve().parents[1] / "lib/llm_arithmetic/catalog/data/models"


def _config(name: str) -> dict:
    cfg = json.loads((MODELS / name / "config.json").read_text())
    return cfg.get("text_config", cfg)


def _m3() -> tuple[int, int, int]:
    """MiniMax-M3: sparse layers (sparse_attention_freq), index heads, index width."""
    s = _config("minimax-m3")["sparse_attention_config"]
    return (sum(1 for f in s["sparse_attention_freq"] if f), s["sparse_num_index_heads"],
            s["sparse_index_dim"])


def _v32() -> tuple[int, int, int]:
    """DeepSeek-V3.2: every layer has the indexer."""
    c = _config("deepseek-v3.2")
    return c["num_hidden_layers"], c["index_n_heads"], c["index_head_dim"]


def _group(name: str, **kw):
    m = get_model(name)
    return m.plan.child(**plan_inputs(m, **kw))


def test_configs_as_read():
    # the numbers the tests below use, as the files give them
    assert _m3() == (57, 4, 128)
    assert _v32() == (61, 64, 128)


@pytest.mark.parametrize("tp, heads_a_chip", [(1, 4), (2, 2), (4, 1), (8, 1), (16, 1)])
def test_minimax_m3_prefill_counts_a_chip_index_heads(tp, heads_a_chip):
    layers, heads, width = _m3()
    prompt = 32768
    pairs = prompt * (prompt + 1) // 2
    ev = _group("minimax-m3", tp=tp, prompt=prompt)
    # by hand: tp chips each scoring every pair with heads_a_chip heads, against the model's
    # `heads`: 57 x 2 x 128 x 536,887,296 x (tp x heads_a_chip - 4)
    extra = layers * 2 * width * pairs * (tp * heads_a_chip - heads)
    assert ev.get("prefill_flops_held") - ev.get("prefill_flops") == extra
    if tp <= heads:
        assert extra == 0  # every chip its own share: nothing copied


@pytest.mark.parametrize("tp", [8, 16])
def test_minimax_m3_decode_counts_a_chip_index_heads(tp):
    layers, heads, width = _m3()
    context = 131072
    ev = _group("minimax-m3", tp=tp, context=context)
    # each chip scores all 131,072 cached index keys with one head
    extra = layers * 2 * width * context * (tp * 1 - heads)
    assert ev.get("decode_flops_held") - ev.get("decode_flops") == extra


@pytest.mark.parametrize("tp", [1, 2, 8])
def test_deepseek_v32_indexer_is_computed_on_every_chip(tp):
    layers, heads, width = _v32()
    prompt, context = 8192, 65536
    ev = _group("deepseek-v3.2", tp=tp, prompt=prompt, context=context)
    pairs = prompt * (prompt + 1) // 2
    assert (ev.get("prefill_flops_held") - ev.get("prefill_flops")
            == layers * 2 * width * pairs * (tp - 1) * heads)
    assert (ev.get("decode_flops_held") - ev.get("decode_flops")
            == layers * 2 * width * context * (tp - 1) * heads)


def test_models_without_an_indexer_split_evenly():
    for name in ("llama-3.1-70b", "deepseek-v3", "qwen3-235b-a22b"):
        ev = _group(name, tp=8, prompt=4096, context=4096)
        assert ev.get("prefill_flops_held") == ev.get("prefill_flops")
        assert ev.get("decode_flops_held") == ev.get("decode_flops")


def test_minimax_m3_ttft_at_tp_8_is_a_chips_share_of_the_copies():
    """The time to first token, compute-bound (a bandwidth no prompt reaches, one peak for
    every product, its all-reduces hidden under the work), is one chip's FLOPs over the peak: the model's prefill FLOPs
    over 8 plus the copies of the indexer's heads, by hand."""
    layers, heads, width = _m3()
    prompt, tp, peak = 131072, 8, 1e15
    kw = dict(bandwidth=1e18, peak_flops=peak, tp=tp, prompt=prompt, generate=1,
              link_bandwidth=1e15, link_latency=0.0)
    e = estimate("minimax-m3", **kw)
    plain = get_model("minimax-m3").evaluate("prefill_flops", prompt=prompt)
    pairs = prompt * (prompt + 1) // 2
    chip_flops = (plain + layers * 2 * width * pairs * (tp * 1 - heads)) / tp
    assert e.ttft_seconds == pytest.approx(chip_flops / peak, rel=1e-9)
    # the share the even split missed (the review's 6.3% at this length)
    assert chip_flops / (plain / tp) - 1 == pytest.approx(0.063, abs=0.001)
