"""The all-reduces a tensor-parallel decode step issues, per block, against a hand reading of
vLLM's layers (each all-reduce is a ``RowParallelLinear`` with its default ``reduce_results``
or an explicit ``tensor_model_parallel_all_reduce``):

* a dense block: attention's ``o_proj`` and the MLP's ``down_proj``, the hidden state each;
* Nemotron-H: one mixer per block (``NemotronHMambaDecoderLayer``, ``NemotronHAttention``,
  ``NemotronHMLPDecoderLayer``), one all-reduce per block
  (vllm-project/vllm @ 00b08dc44519a82cbdd9061d92d1226985094622,
  vllm/model_executor/models/nemotron_h.py);
* Mamba-1 (``MambaMixer``, vllm-project/vllm @ 00f8d4456f506c4885a122c993796a6abc319af8,
  vllm/model_executor/layers/mamba/mamba_mixer.py): ``x_proj`` is a ``RowParallelLinear``
  from d_inner to dt_rank + 2 d_state, all-reduced before ``dt_proj``, besides ``out_proj``;
* lightning attention (``MiniMaxText01LinearAttention`` and ``MiniMaxText01RMSNormTP``,
  vllm-project/vllm @ d29a69a5f9eac41579524a0c22bcd68dd15b9ba7,
  vllm/model_executor/layers/mamba/linear_attn.py): the norm over the heads split across the
  chips all-reduces each token's variance, one float32 (``keepdim=True``), besides ``out_proj``;
  the MoE (``FusedMoE(reduce_results=True)``) one all-reduce of the hidden state;
* a latent MoE (``MoERunner.forward``, vllm-project/vllm @
  01cb3084506318d5a2d4c40f0798b0db04498b42,
  vllm/model_executor/layers/fused_moe/runner/moe_runner.py): the routed sum all-reduced in the
  latent before ``fc2_latent_proj``, then the shared experts' output on its own.

Each time is NCCL's ring (nccl-tests doc/PERFORMANCE.md: each of n chips moves 2(n - 1)/n of
the message, 2(n - 1) steps of latency), written out here, with a given link bandwidth (the
ring being the algorithm where only a bandwidth is given).
"""
from __future__ import annotations

import pytest

from llm_arithmetic import numeric as N
from llm_arithmetic.estimate import estimate

BW, LAT, BATCH = 450e9, 2e-6, 16
#: The input embedding's all-reduce of the hidden state, once a step outside the stack (vLLM's
#: VocabParallelEmbedding; tests/test_serving_vocab.py derives it)
EMBEDDING = 1


def ring(message_bytes: float, n: int) -> float:
    return 2 * (n - 1) / n * message_bytes / BW + 2 * (n - 1) * LAT


def comm(model: str, tp: int, **kw) -> float:
    return estimate(model, hardware="h100-sxm", tp=tp, batch=BATCH, context=1024,
                    link_bandwidth=BW, link_latency=LAT, **kw).allreduce_seconds_per_token


def test_dense_model_two_per_layer_unchanged():
    # Llama 3 70B: 80 layers, d = 8192 (config.json), 16-bit activations; and one more, the
    # input embedding's (EMBEDDING, below)
    assert comm("llama-3-70b", 8) == pytest.approx((160 + EMBEDDING) * ring(BATCH * 8192 * 2, 8),
                                                   rel=1e-12)


def test_phi4_mini_flash_mamba1_x_proj_at_tp2():
    # config.json: 32 layers, d = 2560, mb_per_layer 2; Mamba-1 on the even layers of the
    # self-decoder and on the cross-decoder's first (layers 0, 2, ..., 16: 9), d_state 16 and
    # dt_rank ceil(2560 / 16) = 160 (Phi4FlashConfig's defaults). Every block has an MLP and one
    # mixer or attention: 64 all-reduces of the hidden state, and 9 of x_proj's 160 + 2 x 16
    # outputs, 16-bit, per token
    wide = (64 + EMBEDDING) * ring(BATCH * 2560 * 2, 2)
    x_proj = 9 * ring(BATCH * 192 * 2, 2)
    assert comm("phi-4-mini-flash-reasoning", 2) == pytest.approx(wide + x_proj, rel=1e-12)
    assert N.mamba1_xproj_allreduce_bytes(batch=1, dt_rank=160, d_state=16) == 384


def test_minimax_m1_lightning_norm_variance_at_tp2():
    # config.json: 80 layers, d = 6144, attn_type_list with 10 softmax (1) and 70 lightning (0)
    # layers, 32 experts in every block (no shared expert): 2 x 80 all-reduces of the hidden
    # state and 70 of one float32 variance per token
    wide = (160 + EMBEDDING) * ring(BATCH * 6144 * 2, 2)
    variance = 70 * ring(BATCH * 4, 2)
    assert comm("minimax-m1", 2) == pytest.approx(wide + variance, rel=1e-12)
    # the variances are a latency: 70 x 2 steps of 2 us, against 64 bytes a message
    assert variance == pytest.approx(70 * 2 * LAT, rel=1e-4)


def test_minimax_m1_expert_parallel_keeps_the_norms():
    # tp = ep = 2: the MoE blocks' outputs come back by the all-to-all's combine, so 80 (attention
    # and lightning) all-reduces of the hidden state remain, and the 70 variances
    wide = (80 + EMBEDDING) * ring(BATCH * 6144 * 2, 2)
    variance = 70 * ring(BATCH * 4, 2)
    assert comm("minimax-m1", 2, ep=2) == pytest.approx(wide + variance, rel=1e-12)


def test_nemotron_h_one_per_block():
    # hybrid_override_pattern of Nemotron-H 56B: 54 Mamba-2 (M), 54 MLP (-), 10 attention (*)
    # blocks, one mixer each: 118 all-reduces of d = 8192; n_groups 8 divides tp 2, so the gated
    # norm of each chip's groups needs no all-reduce
    assert comm("nemotron-h-56b", 2) == pytest.approx(
        (118 + EMBEDDING) * ring(BATCH * 8192 * 2, 2), rel=1e-12)


def test_nemotron_3_super_latent_moe_two_widths():
    # 40 Mamba-2 (8 groups), 40 latent MoE (latent 1024, one shared expert), 8 attention blocks:
    # 88 all-reduces of d = 4096 (each block's, the MoE's being its shared experts') and 40 of the
    # routed sum in the 1024-wide latent
    wide = (88 + EMBEDDING) * ring(BATCH * 4096 * 2, 2)
    latent = 40 * ring(BATCH * 1024 * 2, 2)
    assert comm("nemotron-3-super", 2) == pytest.approx(wide + latent, rel=1e-12)


def test_mamba2_one_group_all_reduces_its_norm():
    """A Mamba-2 mixer of one group normalizes over the whole d_inner, split across the chips:
    Mixer2RMSNormGated all-reduces each token's float32 sum of squares (vllm-project/vllm @
    004d4e4cf6dbbc83ba15f889d76c213c94c7207b, vllm/model_executor/layers/mamba/mamba_mixer2.py);
    without its norm, or with several groups, nothing more."""
    from llm_arithmetic.plan.interpreter import fold

    def counts(**mixer):
        raw = {"d_inner": 4096, "d_state": 128, "n_heads": 64, "d_conv": 4, **mixer}
        blocks = ((10, {"mixer": raw, "norms": {"norms": 1}}),)
        look = lambda name, default=False: pytest.fail(f"reads {name}")  # noqa: E731
        return (fold(blocks, "tp_allreduces", look), fold(blocks, "other_allreduces", look),
                fold(blocks, "other_allreduce_bytes", look, mean=True))

    assert counts(n_groups=1, norm=True) == (10, 10, 4)
    assert counts(n_groups=8, norm=True) == (10, 0, None)
    assert counts(n_groups=1, norm=False) == (10, 0, None)


def test_minimax_m2_split_qk_norms_one_variance_all_reduce():
    # MiniMax-M2.5: 62 attention + MoE blocks, d = 3072; MiniMaxText01RMSNormTP.forward_qk
    # (vllm-project/vllm @ d29a69a5f9eac41579524a0c22bcd68dd15b9ba7,
    # vllm/model_executor/layers/mamba/linear_attn.py) concatenates each token's q and k
    # variances and all-reduces them at once: 2 float32 per token; the MoE
    # (maybe_all_reduce_tensor_model_parallel) and o_proj one hidden state each
    wide = (124 + EMBEDDING) * ring(BATCH * 3072 * 2, 2)
    variances = 62 * ring(BATCH * 8, 2)
    assert comm("minimax-m2.5", 2) == pytest.approx(wide + variances, rel=1e-12)


def test_olmo2_whole_qk_norms_add_no_all_reduce():
    # OLMo 2 holds its whole-projection q/k norms on every chip and all-gathers q and k (not an
    # all-reduce, not counted): 32 layers, d = 4096, two all-reduces each
    assert comm("olmo-2-7b", 2) == pytest.approx((64 + EMBEDDING) * ring(BATCH * 4096 * 2, 2),
                                                 rel=1e-12)


def test_gemma3n_laurel_adds_one_per_block():
    # Gemma 3n E2B: 30 layers, d = 2048 (config.json's text_config); vLLM's Gemma3nDecoderLayer
    # (vllm-project/vllm @ 034f08e65e596139d8da7fe53c8a892209b64ba3,
    # vllm/model_executor/models/gemma3n.py): o_proj, down_proj and LAuReL's linear_right,
    # three RowParallelLinear to the hidden state a block (AltUp's and the per-layer input's
    # projections are replicated); one more for the input embedding, and the per-layer
    # embedding's own all-reduce of 30 x 256 values a token (test_serving_vocab.py)
    assert comm("gemma-3n-e2b", 2) == pytest.approx(
        (90 + EMBEDDING) * ring(BATCH * 2048 * 2, 2) + ring(BATCH * 30 * 256 * 2, 2), rel=1e-12)
