"""The collectives of a tensor-parallel step outside the layer stack, against a hand reading of
vLLM and a ring derived here:

* the input embedding (``VocabParallelEmbedding.forward``: each chip looks up the ids that fall
  in its rows of the table, zeros the others, and ``tensor_model_parallel_all_reduce`` sums the
  hidden state; vllm-project/vllm @ 7f5d141a0abde5fdedc220f55d9f19831c9a5b9e,
  vllm/model_executor/layers/vocab_parallel_embedding.py): one all-reduce of d values a token,
  16-bit, every step, tied head or not;
* the output head (``ParallelLMHead``, split by vocabulary): ``LogitsProcessor._gather_logits``
  all-gathers each chip's V / N_tp logits (``tensor_model_parallel_all_gather`` where
  ``current_platform.use_all_gather()``, true under the V1 engine; vllm-project/vllm @
  00db1f124590c3a5655a1781c857334d4a3ce83b, vllm/model_executor/layers/logits_processor.py, and
  @ 005e8184209f2036636bcfbcabe565ece9689305, vllm/platforms/interface.py) in the head's dtype,
  the model's 16 bits: V values for every sampled position, every token of a decode step, the
  last position of a prefill;
* a per-layer input embedding (Gemma 3n, vllm-project/vllm @
  034f08e65e596139d8da7fe53c8a892209b64ba3, vllm/model_executor/models/gemma3n.py;
  Gemma 4, @ 001cabc1be16a59a70d720ed61a13b678c060a18, vllm/model_executor/models/gemma4.py):
  ``embed_tokens_per_layer`` is a ``VocabParallelEmbedding`` of L x d_PLE columns (an all-reduce
  of L d_PLE values a token) and ``per_layer_model_projection`` a ``ColumnParallelLinear`` with
  ``gather_output=True`` (an all-gather of as many).
* Gemma 3n's AltUp (same gemma3n.py): ``Gemma3nTextModel`` builds ``altup_num_inputs`` - 1
  ``altup_projections`` and as many ``altup_unembed_projections``, each a ``ColumnParallelLinear``
  d -> d with ``gather_output=True``; ``forward`` applies the first to the embedded tokens before
  the blocks and the second to the streams after them, once a step: 2 (n - 1) all-gathers of d
  values a token, 16-bit (n = 4 in both released configs: six).

A ring all-gather of M bytes over n chips (each holding M / n) takes n - 1 steps in each of which
every chip passes one share on: (n - 1)/n x M bytes and n - 1 latencies (the second half of the
ring all-reduce, whose 2(n - 1)/n x M and 2(n - 1) steps nccl-tests doc/PERFORMANCE.md gives;
its all-gather bus bandwidth factor is (n - 1)/n). Both rings are written out here, with a given
link bandwidth (where the estimate uses rings).
"""
from __future__ import annotations

import pytest

from llm_arithmetic.estimate import estimate

BW, LAT, BATCH = 450e9, 2e-6, 16
#: Llama 3 70B's config.json: 80 layers, hidden_size 8192, vocab_size 128256 (a multiple of 64:
#: vLLM pads nothing); Gemma 3n E2B's text_config: 30 layers, hidden_size 2048,
#: hidden_size_per_layer_input 256, vocab_size 262400, altup_num_inputs 4; Gemma 3n E4B's: the
#: same but 35 layers
LLAMA_L, LLAMA_D, LLAMA_V = 80, 8192, 128256
E2B_L, E2B_D, E2B_PLE, E2B_V = 30, 2048, 256, 262400
E4B_L, ALTUP_GATHERS = 35, 2 * (4 - 1)


def ring_allreduce(message_bytes: float, n: int) -> float:
    return 2 * (n - 1) / n * message_bytes / BW + 2 * (n - 1) * LAT


def ring_allgather(message_bytes: float, n: int) -> float:
    return (n - 1) / n * message_bytes / BW + (n - 1) * LAT


def run(model: str, tp: int, latency: float = LAT, overlap: bool = False, **kw):
    return estimate(model, hardware="h100-sxm", tp=tp, batch=BATCH, context=1024,
                    link_bandwidth=BW, link_latency=latency, prompt=2048, generate=128,
                    overlap=overlap, **kw)


def test_llama3_70b_embedding_all_reduce_and_logits_all_gather_at_tp8():
    e = run("llama-3-70b", 8)
    # 2 x 80 in the blocks and 1 for the input embedding, 16 x 8192 x 2 = 262,144 B each
    assert e.allreduce_seconds_per_token == pytest.approx(
        (2 * LLAMA_L + 1) * ring_allreduce(BATCH * LLAMA_D * 2, 8), rel=1e-12)
    # the logits of the 16 tokens: 16 x 128,256 x 2 = 4,104,192 B, each chip holding 1/8
    assert BATCH * LLAMA_V * 2 == 4_104_192
    gather = ring_allgather(4_104_192, 8)
    assert e.allgather_seconds_per_token == pytest.approx(gather, rel=1e-12)
    # 7/8 x 4,104,192 B / 450 GB/s = 7.98 us of transfer and 7 x 2 us of latency
    assert gather == pytest.approx(7.98e-6 + 14e-6, rel=1e-3)


def test_the_gather_and_the_embedding_are_on_the_critical_path():
    """Serialized, a step's time is its work plus its collectives; overlapped, the longer of
    the two, here the work (without latency the collectives take well under it): the
    difference is the all-reduces and the all-gather, in decode and in prefill (whose
    all-reduces carry the 2048 prompt tokens, and whose all-gather the logits of the last
    position only: 128,256 x 2 = 256,512 B)."""
    e, under = run("llama-3-70b", 8, latency=0), run("llama-3-70b", 8, latency=0, overlap=True)
    comm = ((2 * LLAMA_L + 1) * 2 * 7 / 8 * BATCH * LLAMA_D * 2
            + 7 / 8 * BATCH * LLAMA_V * 2) / BW
    assert e.tpot_serialized_seconds - under.tpot_seconds == pytest.approx(comm, rel=1e-9)
    prefill = ((2 * LLAMA_L + 1) * 2 * 7 / 8 * 2048 * LLAMA_D * 2 + 7 / 8 * LLAMA_V * 2) / BW
    assert e.ttft_serialized_seconds - under.ttft_seconds == pytest.approx(prefill, rel=1e-9)


def test_one_chip_has_nothing_to_gather():
    assert run("llama-3-70b", 1).allgather_seconds_per_token == 0


def test_gemma3n_per_layer_embedding_all_reduce_and_projection_all_gather_at_tp2():
    e = run("gemma-3n-e2b", 2)
    # per token: the hidden state 2048 x 2 B, the per-layer inputs 30 x 256 x 2 = 15,360 B
    ple = BATCH * E2B_L * E2B_PLE * 2
    assert ple == 245_760
    # 3 a block (o_proj, down_proj, LAuReL's linear_right), 1 for the embedding, and the
    # per-layer table's own
    assert e.allreduce_seconds_per_token == pytest.approx(
        (3 * E2B_L + 1) * ring_allreduce(BATCH * E2B_D * 2, 2) + ring_allreduce(ple, 2),
        rel=1e-12)
    # the logits (16 x 262,400 x 2 B), the per-layer projection's output and AltUp's six
    # projections of the hidden state
    assert e.allgather_seconds_per_token == pytest.approx(
        ring_allgather(BATCH * E2B_V * 2, 2) + ring_allgather(ple, 2)
        + ALTUP_GATHERS * ring_allgather(BATCH * E2B_D * 2, 2), rel=1e-12)


def test_gemma3n_e4b_altup_all_gathers_at_tp2_decode_prefill_and_pipeline():
    e = run("gemma-3n-e4b", 2)
    ple = BATCH * E4B_L * E2B_PLE * 2                        # 16 x 35 x 256 x 2 = 286,720 B
    altup = BATCH * E2B_D * 2                                # 16 x 2048 x 2 = 65,536 B
    assert (ple, altup) == (286_720, 65_536)
    assert e.allgather_seconds_per_token == pytest.approx(
        ring_allgather(BATCH * E2B_V * 2, 2) + ring_allgather(ple, 2)
        + 6 * ring_allgather(altup, 2), rel=1e-12)
    # the prefill: the logits of the last position, the rest for all 2,048 prompt tokens
    assert e._plan.get("prefill_allgather") == pytest.approx(
        ring_allgather(E2B_V * 2, 2) + ring_allgather(2048 * E4B_L * E2B_PLE * 2, 2)
        + 6 * ring_allgather(2048 * E2B_D * 2, 2), rel=1e-12)
    # pp 2: microbatches of 8 sequences; the first stage pays the embedding's all-reduce,
    # the per-layer embedding's all-reduce and all-gather (looked up once, before the first
    # block) and AltUp's three gathers of the embedded tokens, the last the logits' and the
    # other three
    ev = run("gemma-3n-e4b", 2, pp=2)._plan
    micro = BATCH // 2
    assert ev.get("comm_embedding") == pytest.approx(
        ring_allreduce(micro * E2B_D * 2, 2) + 3 * ring_allgather(micro * E2B_D * 2, 2)
        + ring_allreduce(micro * E4B_L * E2B_PLE * 2, 2)
        + ring_allgather(micro * E4B_L * E2B_PLE * 2, 2), rel=1e-12)
    assert ev.get("comm_head") == pytest.approx(
        ring_allgather(micro * E2B_V * 2, 2) + 3 * ring_allgather(micro * E2B_D * 2, 2),
        rel=1e-12)


def test_a_tied_head_gathers_as_an_untied_one():
    """Gemma 3 1B ties its head to the embedding table (vLLM's ParallelLMHead.tie_weights shares
    the rows, split by vocabulary as before): the lookup's all-reduce and the logits' all-gather
    both remain. config.json: 26 layers, hidden_size 1152, vocab_size 262144."""
    e = run("gemma-3-1b", 2)
    assert e.allreduce_seconds_per_token == pytest.approx(
        (2 * 26 + 1) * ring_allreduce(BATCH * 1152 * 2, 2), rel=1e-12)
    assert e.allgather_seconds_per_token == pytest.approx(
        ring_allgather(BATCH * 262144 * 2, 2), rel=1e-12)
