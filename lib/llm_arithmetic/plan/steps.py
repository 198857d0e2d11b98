"""The plan: every quantity the calculator reports, as an ordered list of named steps, from a
model's record and a chip's to a time per token.

Each step names one operation of :mod:`llm_arithmetic.plan.interpreter` (mostly a registered
formula, or a sum over the layer stack of :mod:`llm_arithmetic.plan.stack`) and binds its
arguments to inputs, to sums or to earlier steps; a formula's argument that is not bound takes
the value of the same name. ``doc`` says what the step is, for the appendix that prints the plan.
:func:`llm_arithmetic.estimate.estimate`, :func:`~llm_arithmetic.estimate.sweep`, the model
record's counts and the book's pages all evaluate this one list.

Inputs (given by the caller; None where absent): the model's ``blocks`` and scalars
(``n_vocab``, ``d_model``, ``tied``, ``n_positions``, ``norm_vecs_final``, ``head_bias``,
``extras_in_total``, ``native_bits_default``, ``native_bits_experts``, ``is_moe``); the
workload (``context``, ``batch``, ``prompt``, ``generate``, ``overhead``, ``tp``, ``ep``, ``pp``,
``link_latency``, ``price_per_hour``); the precision (``bits_weight``, ``weight_format``,
``bits_kv``, ``bits_state``); the chip (``chip_bandwidth``, ``chip_capacity``, ``chip_power``,
``chip_peaks``, ``chip_interconnect``) and what the caller gave instead (``given_bandwidth``,
``given_peak_flops``, ``given_capacity``, ``given_power``, ``given_link_bandwidth``); the limits
``context_limit`` and ``crossing_limit``.

>>> [s["name"] for s in PLAN][:3]
['embedding_params', 'layer_params', 'language_model_params']
"""
from __future__ import annotations

from typing import Any

__all__ = ["PLAN", "MODEL_STEPS", "ESTIMATE_STEPS", "INPUTS"]


def f(name: str, formula: str, doc: str, **args: Any) -> dict[str, Any]:
    """A step that evaluates a registered formula."""
    return {"name": name, "op": "formula", "formula": formula, "args": args, "doc": doc}


def s(name: str, term: str, doc: str, **kw: Any) -> dict[str, Any]:
    """A step that sums a term over the layer stack."""
    return {"name": name, "op": "sum", "term": term, "doc": doc, **kw}


def op(name: str, kind: str, doc: str, **kw: Any) -> dict[str, Any]:
    """Any other operation."""
    return {"name": name, "op": kind, "doc": doc, **kw}


def guard(step: dict[str, Any], when: str, otherwise: Any = None) -> dict[str, Any]:
    """The step only when ``when`` holds (is given and not false or zero), else ``otherwise``."""
    return {**step, "if": when, "else": otherwise}


LIT = lambda v: {"literal": v}  # noqa: E731
INF = {"inf": True}

#: The model's counts: parameters, bytes, cache and FLOPs, summed over the stack.
MODEL_STEPS: list[dict[str, Any]] = [
    f("embedding_params", "embedding_params", "embeddings, final norm and output head"),
    s("layer_params", "params", "parameters of every block (every expert)"),
    op("language_model_params", "add", "the decoder: embeddings and every block",
       plus=["embedding_params", "layer_params"]),
    op("total_params", "add", "the published total: the decoder and the extras it counts",
       plus=["language_model_params", "extras_in_total"]),
    s("layer_active_params", "active_params", "parameters of every block one token uses"),
    op("active_params", "add", "parameters one token uses",
       plus=["embedding_params", "layer_active_params"]),
    s("routed_params", "routed_params", "parameters of every routed expert"),
    f("head_matmul_params", "head_matmul_params", "the output head's weights"),
    s("layer_matmul_params", "matmul_params", "weights of the blocks in matrix products"),
    op("matmul_params", "add", "weights in matrix products for one token (2 FLOPs each)",
       plus=["head_matmul_params", "layer_matmul_params"]),
    f("unread_embedding_params", "unread_embedding_params",
      "embedding rows a decode step does not read"),
    op("decode_read_params", "add", "parameters one decode step of one token reads",
       plus=["active_params"], minus=["unread_embedding_params"]),
    s("layer_read_params", "read_params", "parameters of the blocks a step of B tokens reads"),
    op("read_params", "add", "parameters a decode step of B tokens reads",
       plus=["embedding_params", "layer_read_params"], minus=["unread_embedding_params"]),
    op("bits_default", "first", "bits per weight: as asked, or as the checkpoint ships",
       of=["bits_weight", "native_bits_default"]),
    op("bits_experts", "first", "bits per weight of the routed experts' matrices",
       of=["bits_weight", "native_bits_experts"]),
    s("expert_matrices", "expert_matrices", "weights of every routed expert's matrices"),
    op("other_params", "add", "every parameter but the routed experts' matrices",
       plus=["total_params"], minus=["expert_matrices"]),
    f("weight_bytes_other", "weight_bytes", "bytes of everything but the experts' matrices",
      n_params="other_params", bits_weight="bits_default"),
    f("weight_bytes_experts", "weight_bytes", "bytes of the experts' matrices",
      n_params="expert_matrices", bits_weight="bits_experts"),
    op("weight_bytes", "add", "bytes of all the weights",
       plus=["weight_bytes_other", "weight_bytes_experts"]),
    s("expert_matrices_read", "expert_matrices_read",
      "weights of the experts' matrices a step of B tokens reads"),
    op("read_other_params", "add", "what a step reads but the experts' matrices",
       plus=["read_params"], minus=["expert_matrices_read"]),
    f("step_weight_read_other", "weight_bytes", "bytes of what a step reads but the experts",
      n_params="read_other_params", bits_weight="bits_default"),
    f("step_weight_read_experts", "weight_bytes", "bytes of the experts' matrices a step reads",
      n_params="expert_matrices_read", bits_weight="bits_experts"),
    op("step_weight_bytes", "add", "weight bytes one decode step of B tokens reads",
       plus=["step_weight_read_other", "step_weight_read_experts"]),
    s("kv_cache_bytes_per_token", "kv_layer", "cache one token adds, every attention layer"),
    s("kv_cache_bytes", "kv_stored", "cache of B sequences of S tokens as runtimes store it"),
    s("kv_cache_bytes_full_storage", "kv_full", "the cache if every layer kept every token"),
    s("seq_kv_bytes", "kv_stored", "cache of one sequence of S tokens", args={"batch": 1}),
    s("state_bytes", "state", "state of the state-space layers, one sequence"),
    s("seq_kv_read", "kv_read", "cache one decode step of one sequence reads"),
    f("seq_bytes", "decode_seq_bytes", "bytes a decode step moves for one sequence",
      kv_cache="seq_kv_read"),
    op("attended_context", "mean", "cached positions a step reads per attention layer",
       term="attended"),
    op("experts_read", "mean", "routed experts per MoE block a step of B tokens reads",
       term="experts_read", empty=1),
    s("layer_decode_flops", "layer_decode_flops", "attention and recurrence FLOPs of a token"),
    f("decode_flops", "stack_decode_flops", "FLOPs to decode one token at S cached tokens",
      layer_flops="layer_decode_flops"),
    s("layer_prefill_flops", "layer_prefill_flops", "attention and recurrence FLOPs of a prompt"),
    f("prefill_flops", "stack_prefill_flops", "FLOPs to prefill a prompt of T tokens",
      layer_flops="layer_prefill_flops"),
    s("n_layers", "block", "blocks in the stack"),
    s("n_moe_layers", "moe_layer", "mixture-of-experts blocks"),
]

#: From the counts, a chip and a workload to the bounds.
ESTIMATE_STEPS: list[dict[str, Any]] = [
    # ---- the chip -------------------------------------------------------------------------
    op("chain_bits", "first", "bits the precision chain looks at",
       of=["bits_weight", LIT(16)]),
    op("precision_chain", "chain", "precisions whose peak may apply, in order",
       format="weight_format", bits="chain_bits", wide_bits=32, wide="fp32",
       fallbacks=["fp16", "fp32"]),
    op("compute_precision", "precision", "the precision whose peak applies: the first the chip "
       "has", chain="precision_chain", peaks="chip_peaks", unless="given_peak_flops"),
    op("chip_peak_flops", "rate", "the chip's dense peak at that precision",
       peaks="chip_peaks", precision="compute_precision"),
    op("peak_flops", "first", "the peak rate used", of=["given_peak_flops", "chip_peak_flops"]),
    op("bandwidth", "first", "the memory bandwidth used",
       of=["given_bandwidth", "chip_bandwidth"]),
    op("capacity", "first", "the memory capacity used", of=["given_capacity", "chip_capacity"]),
    op("power", "first", "board power per chip", of=["given_power", "chip_power"]),
    op("link_needed", "gt", "more than one chip talks", of=["tp_or_ep", LIT(1)]),
    op("tp_or_ep", "choose", "the larger of tp and ep", when="ep_over_tp", then="ep",
       otherwise="tp"),
    op("ep_over_tp", "gt", "ep exceeds tp", of=["ep", "tp"]),
    guard(op("chip_link_bandwidth", "link", "the slowest link a group of chips uses",
             interconnect="chip_interconnect", chips=["tp", "ep"]), "link_needed"),
    op("link_bandwidth", "first", "per-direction link bandwidth used",
       of=["given_link_bandwidth", "chip_link_bandwidth"]),
    f("n_chips", "replica_chips", "chips of one replica"),
    # ---- one decode step --------------------------------------------------------------------
    f("bits_weight_effective", "effective_bits", "bits per weight on average",
      n_params="total_params"),
    op("batch_state_bytes", "mul", "state of every sequence", of=["state_bytes", "batch"]),
    op("step_weight_bytes_one", "at", "weight bytes a step of one token reads",
       target="step_weight_bytes", **{"with": {"batch": LIT(1)}}),
    f("decode_bytes_per_token", "batched_step_bytes", "bytes one step of one sequence reads",
      weight_bytes="step_weight_bytes_one", batch=1),
    f("decode_step_bytes", "batched_step_bytes", "bytes one step of the batch moves",
      weight_bytes="step_weight_bytes"),
    f("decode_step_flops", "batched_step_flops", "FLOPs of one step of the batch",
      seq_flops="decode_flops"),
    f("decode_memory_seconds", "memory_time", "time to move the step's bytes",
      step_bytes="decode_step_bytes"),
    f("decode_compute_seconds", "compute_time", "time to do the step's FLOPs",
      step_flops="decode_step_flops"),
    f("roofline_seconds", "roofline_time", "the roofline bound on the step",
      step_bytes="decode_step_bytes", step_flops="decode_step_flops"),
    op("decode_seconds_per_token", "first", "the bound on one step (memory alone without a "
       "peak)", of=["roofline_seconds", "decode_memory_seconds"]),
    op("compute_bound", "gt", "compute time exceeds memory time",
       of=["decode_compute_seconds", "decode_memory_seconds"]),
    guard(op("bound", "choose", "what bounds the step", when="compute_bound",
             then=LIT("compute"), otherwise=LIT("memory")), "bandwidth"),
    f("decode_tokens_per_second", "tokens_per_user", "tokens/s of one stream",
      tpot="decode_seconds_per_token"),
    f("throughput_tokens_per_second", "tokens_per_chip", "tokens/s of the batch",
      tpot="decode_seconds_per_token", n_chips=1),
    f("ops_per_byte", "ops_per_byte", "the chip's ops:byte ratio"),
    guard(f("critical_batch_closed", "critical_batch", "batch where the step turns "
            "compute-bound, weights read fixed", weight_bytes="step_weight_bytes_one",
            seq_flops="decode_flops"), "peak_flops"),
    op("critical_batch_dense", "finite", "that batch, where it exists",
       of="critical_batch_closed"),
    guard(op("critical_batch_moe", "solve", "for a mixture, where compute time meets memory "
             "time as the experts read grow with B", solver="crossing", var="batch",
             rises="decode_compute_seconds", falls="decode_memory_seconds",
             limit="crossing_limit"), "critical_batch_dense"),
    op("critical_batch_size", "choose", "batch at which decode turns compute-bound",
       when="is_moe", then="critical_batch_moe", otherwise="critical_batch_dense"),
    # ---- memory -------------------------------------------------------------------------------
    f("memory_required_bytes", "memory_required", "weights, cache, state and the reserve",
      kv_cache="kv_cache_bytes"),
    op("fits", "le", "it fits in the chip's memory", of=["memory_required_bytes", "capacity"]),
    op("sequence_bytes", "add", "cache and state of one sequence",
       plus=["seq_kv_bytes", "state_bytes"]),
    guard(f("max_sequences_raw", "max_sequences", "sequences that fit beside the weights",
            seq_bytes="sequence_bytes"), "capacity"),
    op("max_batch", "finite", "sequences of S tokens that fit", of="max_sequences_raw",
       integer=True),
    op("free_memory", "add", "memory left for the cache",
       plus=["capacity"], minus=["overhead", "weight_bytes", "batch_state_bytes"]),
    guard(op("max_context", "solve", "tokens per sequence that fit at B", solver="largest",
             var="context", value="kv_cache_bytes", budget="free_memory",
             limit="context_limit"), "capacity"),
    # ---- serving: a replica of tp x pp chips --------------------------------------------------
    op("generated", "first", "tokens generated after the first", of=["generate", LIT(0)]),
    guard(f("mean_context", "mean_decode_context", "mean context over the request's steps"),
          "prompt"),
    op("serving_context", "first", "context of the decode step TPOT bounds",
       of=["mean_context", "context"]),
    guard(op("request_tokens", "add", "tokens in the cache at the end of the request",
             plus=["prompt", "generated"]), "prompt"),
    op("final_context", "first", "context at the end", of=["request_tokens", "context"]),
    op("kv_final_cache", "at", "cache of the batch at the end", target="kv_cache_bytes",
       **{"with": {"context": "final_context"}}),
    op("kv_final", "add", "cache and state of the batch at the end",
       plus=["kv_final_cache", "batch_state_bytes"]),
    f("memory_per_chip_raw", "memory_per_chip", "weights and cache split over the chips",
      kv_cache="kv_final"),
    op("memory_per_chip_bytes", "add", "memory per chip with the reserve",
       plus=["memory_per_chip_raw", "overhead"]),
    op("fits_per_chip", "le", "the replica holds it", of=["memory_per_chip_bytes", "capacity"]),
    op("sequence_bytes_final", "at", "cache and state of one sequence at the end",
       target="sequence_bytes", **{"with": {"context": "final_context"}}),
    op("replica_capacity", "mul", "memory of the replica", of=["n_chips", "capacity"]),
    op("replica_overhead", "mul", "reserve of the replica", of=["n_chips", "overhead"]),
    guard(f("max_sequences_replica", "max_sequences", "sequences the replica holds",
            capacity="replica_capacity", seq_bytes="sequence_bytes_final",
            overhead="replica_overhead"), "capacity"),
    op("max_batch_per_replica", "finite", "sequences the replica holds",
       of="max_sequences_replica", integer=True),
    f("micro", "micro_batch", "sequences per microbatch"),
    op("step_weight_bytes_micro", "at", "weight bytes a microbatch's step reads",
       target="step_weight_bytes", **{"with": {"batch": "micro"}}),
    op("seq_bytes_serving", "at", "bytes per sequence at the serving context",
       target="seq_bytes", **{"with": {"context": "serving_context"}}),
    op("seq_flops_serving", "at", "FLOPs per sequence at the serving context",
       target="decode_flops", **{"with": {"context": "serving_context"}}),
    f("micro_step_bytes", "batched_step_bytes", "bytes of a microbatch's step",
      weight_bytes="step_weight_bytes_micro", seq_bytes="seq_bytes_serving", batch="micro"),
    f("micro_step_flops", "batched_step_flops", "FLOPs of a microbatch's step",
      seq_flops="seq_flops_serving", batch="micro"),
    f("stage_step_bytes", "stage_bytes", "one stage's share of the bytes",
      step_bytes="micro_step_bytes"),
    f("stage_step_flops", "stage_flops", "one stage's share of the FLOPs",
      step_flops="micro_step_flops"),
    op("tp_split", "gt", "tensor parallelism", of=["tp", LIT(1)]),
    op("ep_split", "gt", "expert parallelism", of=["ep", LIT(1)]),
    op("n_ep_layers", "choose", "layers whose experts are split", when="ep_split",
       then="n_moe_layers", otherwise=LIT(0)),
    f("allreduce_time", "decode_allreduce_time", "all-reduces of one step", batch="micro"),
    guard(op("allreduce_linked", "choose", "all-reduces, where tp splits the matrices",
             when="tp_split", then="allreduce_time", otherwise=LIT(0.0)), "link_bandwidth"),
    guard(op("allreduce_seconds_per_token", "choose", "all-reduces inside one TPOT",
             when="link_needed", then="allreduce_linked", otherwise=LIT(0.0)), "bandwidth"),
    op("micro_per_ep", "div", "tokens per expert-parallel chip", of=["micro", "ep"]),
    f("alltoall_time", "decode_alltoall_time", "all-to-alls of one step", batch="micro_per_ep",
      n_ep_layers="n_moe_layers"),
    guard(op("alltoall_linked", "choose", "all-to-alls, where experts are split",
             when="n_ep_layers", then="alltoall_time", otherwise=LIT(0.0)), "link_bandwidth"),
    guard(op("alltoall_seconds_per_token", "choose", "all-to-alls inside one TPOT",
             when="link_needed", then="alltoall_linked", otherwise=LIT(0.0)), "bandwidth"),
    op("comm_total", "add", "communication of one step",
       plus=["allreduce_seconds_per_token", "alltoall_seconds_per_token"]),
    op("comm_stage", "div", "one stage's share", of=["comm_total", "pp"]),
    op("comm_time", "first", "communication on the critical path", of=["comm_stage", LIT(0.0)]),
    op("peak_or_inf", "first", "the peak, or none", of=["peak_flops", INF]),
    f("peak_compute_seconds", "compute_time", "compute time (none without a peak)",
      step_flops="decode_step_flops", peak_flops="peak_or_inf"),
    f("peak_seconds_per_token", "roofline_time", "the roofline bound (memory alone without a "
      "peak)", step_bytes="decode_step_bytes", step_flops="decode_step_flops",
      peak_flops="peak_or_inf"),
    f("stage_seconds", "tp_step_time", "time of one stage's step",
      step_bytes="stage_step_bytes", step_flops="stage_step_flops", peak_flops="peak_or_inf"),
    f("tpot_seconds", "pipeline_time", "time per output token", stage_time="stage_seconds",
      microbatches=1),
    f("prefill_comm_time", "tp_comm_time", "all-reduces of a prefill", batch="prompt"),
    op("prefill_comm_linked", "choose", "all-reduces of a prefill, where tp splits",
       when="tp_split", then="prefill_comm_time", otherwise=LIT(0)),
    op("prefill_comm", "first", "communication of the prefill",
       of=["prefill_comm_linked", LIT(0.0)]),
    op("prompt_kv_bytes", "at", "cache of the prompt", target="seq_kv_bytes",
       **{"with": {"context": "prompt"}}),
    op("prompt_kv_per_token", "div", "cache per prompt token",
       of=["prompt_kv_bytes", "prompt"]),
    op("prefill_weight_bytes", "at", "weight bytes the prefill reads",
       target="step_weight_bytes", **{"with": {"batch": "prompt"}}),
    guard(f("ttft_seconds", "time_to_first_token", "time to first token",
            weight_bytes="prefill_weight_bytes", kv_cache_bytes_per_token="prompt_kv_per_token",
            n_chips="tp", peak_flops="peak_or_inf",
            comm_time="prefill_comm"), "prompt"),
    f("request_seconds", "request_time", "time of the whole request", ttft="ttft_seconds",
      tpot="tpot_seconds", generated="generate"),
    f("tokens_per_second_per_user", "tokens_per_user", "tokens/s one stream sees",
      tpot="tpot_seconds"),
    f("tokens_per_second_per_chip", "tokens_per_chip", "tokens/s per chip", tpot="tpot_seconds"),
    op("replica_rate", "mul", "tokens/s of the replica",
       of=["tokens_per_second_per_chip", "n_chips"]),
    f("cost_per_million_tokens", "cost_per_million_tokens", "price of a million tokens",
      tokens_per_second="replica_rate"),
    f("energy_joules_per_token", "energy_per_token", "energy per generated token",
      tokens_per_second="replica_rate"),
]

PLAN: list[dict[str, Any]] = MODEL_STEPS + ESTIMATE_STEPS

#: Every input the plan reads.
INPUTS = ("blocks", "n_vocab", "d_model", "tied", "n_positions", "norm_vecs_final",
          "head_bias", "extras_in_total", "native_bits_default", "native_bits_experts", "is_moe",
          "n_active_experts",
          "context", "batch", "prompt", "generate", "overhead", "tp", "ep", "pp", "link_latency",
          "price_per_hour", "bits_weight", "weight_format", "bits_kv", "bits_state",
          "chip_bandwidth", "chip_capacity", "chip_power", "chip_peaks", "chip_interconnect",
          "given_bandwidth", "given_peak_flops", "given_capacity", "given_power",
          "given_link_bandwidth", "context_limit", "crossing_limit")
