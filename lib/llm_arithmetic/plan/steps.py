"""The plan: every quantity the calculator reports, as an ordered list of named steps, from a
model's record and a chip's to a time per token.

Each step names one operation of :mod:`llm_arithmetic.plan.interpreter` (mostly a registered
formula, or a sum over the layer stack of :mod:`llm_arithmetic.plan.stack`) and binds its
arguments to inputs, to sums or to earlier steps; a formula's argument that is not bound takes
the value of the same name. ``doc`` says what the step is, for the appendix that prints the plan.
:func:`llm_arithmetic.estimate.estimate`, :func:`~llm_arithmetic.sweeps.sweep`, the model
record's counts and the book's pages all evaluate this one list.

Inputs (given by the caller; None where absent): the model's ``blocks`` and scalars (``n_vocab``,
``d_model``, ``tied``, ``n_positions``, ``norm_vecs_final``, ``head_bias``, ``extras_in_total``,
``extras_read`` (parameters outside the stack that every token reads), ``extras_matmul`` (their
weights in matrix products), ``extras_copied`` (those outside the stack that every chip of a
tensor-parallel group holds whole), ``d_ple``, ``n_vocab_ple``, ``altup_num_inputs``,
``native_bits_default``, ``native_bits_experts``, ``native_bits_unread``, ``native_bits_draft``,
``native_bits_draft_experts``, ``native_bits_draft_inputs``, ``native_bits_draft_blocks`` and
``native_bits_draft_copy_*``: a multi-token-prediction module's own, None for the target's;
``native_bits_copy_*``: what a tensor-parallel group copies, by class; ``native_bits_head``: the
output head's, which a module step reads at them; ``native_format`` and ``native_format_draft``,
the formats the model's and the module's products run in, None for 16 bits and for the model's,
``is_moe``); the workload (``context``, ``batch``,
``prompt``, ``generate``, ``overhead``, ``tp``, ``ep``, ``pp``, ``price_per_hour``); the
communication (``given_link_latency``, ``overlap``, ``allreduce_asked``, ``node_limit``,
``dispatch_bits``: None for the defaults); the precision (``bits_weight``, ``weight_format``,
``bits_kv``, ``bits_state``: the state's bits, its convolution window's; ``bits_ssm``: its
recurrent matrix's, None for the bits the checkpoint keeps it in); the chip (``chip_bandwidth``,
``chip_capacity``, ``chip_power``, ``chip_peaks``, ``chip_interconnect``, ``chip_vendor``) and what
the caller gave instead (``given_bandwidth``, ``given_peak_flops``, ``given_capacity``,
``given_power``, ``given_link_bandwidth``); the limits ``context_limit`` and ``crossing_limit``;
speculative decoding's ``draft_len``, ``acceptance`` and ``draft_cost`` (None: no speculation),
``draft_step_blocks`` (the blocks of the model's own module a draft step runs, whose step the plan
prices where no ``draft_cost`` is given; None: no module), ``module_copied_params`` (of that
module's input norms and projection, the parameters a tensor-parallel engine holds whole on every
chip; None: none), ``own_bits_blocks``, ``own_bits_experts``, ``own_inputs_read`` and
``own_bits_inputs`` and ``own_bits_head`` (None: a draft step of the module sets them, to read its
own parts and the shared head at their own bits) and
what the draft holds (``draft_weight_bytes``: a draft model's weights; ``draft_params``: a
multi-token-prediction module's parameters, of them ``draft_embedding_params`` and
``draft_head_params`` in the embedding tables and output heads it stores as its own;
``draft_blocks``: the draft's stack, for its cache and its copies under tensor parallelism; a
draft model's width ``draft_d_model``, ``draft_final_norm_params`` and ``draft_bits_default``,
the bits of its weights but its experts' matrices; None: nothing counted); the
forecast's fitted terms ``forecast_decode`` and ``forecast_prefill`` (None: no forecast) and the
llama.cpp build's age ``build_age`` [year] (None: today's build, no drift); a serving
engine's rules (``engine``, its name; paged engines: ``engine_fraction`` or
``engine_free_fraction``, ``engine_reserve``, ``engine_page``, ``engine_kv_memory_given``;
llama.cpp: ``engine_ctx``, ``engine_ubatch``, ``engine_seqs``, ``engine_pad``, ``engine_swa_full``;
None: no engine); images in the prompt, from the processor's rule
(:func:`llm_arithmetic.media.image_inputs`): ``images``, ``image_tokens_per_image``, the
vision tower's ``vision_prefill_flops`` over them and its ``vision_params`` (tower and merger;
None: no images; the image tokens are already in ``prompt``), and what splits the tower under
tensor parallelism: the prompt's ``vision_patches``, the tower's width ``d_vision`` and blocks
``vision_layers`` (0: not split), its ``vision_mergers`` that all-reduce, the weights it splits
``vision_split_params`` and the FLOPs it keeps whole on every chip ``vision_whole_flops``; a
video in the prompt (:func:`llm_arithmetic.media.video_inputs`): its tokens
``video_tokens`` (None: no video), its frames' work summed into the tower's inputs above
(with a video ``images`` may be None: the tower's steps hold where ``vision_params`` is
given); a cross-attention model's images (Llama 3.2 Vision): the states its cross-attention
layers read, ``image_states`` (one sequence's, all its images'; None: no such images), and
those layers' number ``cross_layers``, query heads ``cross_heads``, key/value heads
``cross_kv_heads`` and head width ``cross_d_head``; audio in the prompt
(:func:`llm_arithmetic.media.audio_inputs`): the audio encoder's ``audio_params`` (None: no
audio), its ``audio_prefill_flops``, the positions its blocks run ``audio_rows`` at its width
``d_audio``, the blocks a tensor-parallel engine splits ``audio_layers`` (0: none), their
weights ``audio_split_params`` and the FLOPs kept whole on every chip ``audio_whole_flops``.

>>> [s["name"] for s in PLAN][:3]
['embedding_params', 'layer_params', 'ple_params']
"""
from __future__ import annotations

from typing import Any

from ..catalog.hardware import DEFAULT_LATENCY, FULLY_CONNECTED

__all__ = ["PLAN", "COPY_CLASSES", "MODEL_STEPS", "ESTIMATE_STEPS", "SPECULATIVE_STEPS", "FORECAST_STEPS",
           "ENGINE_STEPS",
           "INPUTS"]


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


def draft_at(name: str, doc: str, target: str, **more: str) -> dict[str, Any]:
    """The target's step ``target`` evaluated over the draft's stack (``draft_blocks``, and
    any further inputs ``more`` changes); 0 without a draft."""
    return guard(op(name, "at", doc, target=target,
                    **{"with": {"blocks": "draft_blocks", **more}}), "draft_blocks", 0)


LIT = lambda v: {"literal": v}  # noqa: E731
INF = {"inf": True}


def encoder_precision(prefix: str, on: str, who: str) -> list[dict[str, Any]]:
    """An encoder's bits and peak, run before the prefill (the vision tower, ``prefix``
    "vision"; the audio encoder, "audio"), each step only where ``on`` is given: whether the
    weights asked are 32 bits or wider (``<prefix>_wide``), its bits (``<prefix>_bits``: 16,
    or the weights' where wider), the precisions whose peak may apply (``<prefix>_chain``),
    the one taken (``<prefix>_precision``) and the chip's dense peak there
    (``chip_<prefix>_flops``); ``who`` names the encoder in the docs.

    >>> steps = encoder_precision("audio", "audio_params", "the audio encoder")
    >>> [s["name"] for s in steps]
    ['audio_wide', 'audio_bits', 'audio_chain', 'audio_precision', 'chip_audio_flops']
    >>> {s["if"] for s in steps}, steps[1]["then"], steps[1]["otherwise"]
    ({'audio_params'}, 'bits_default', {'literal': 16})
    """
    return [
        guard(op(f"{prefix}_wide", "le", "the weights asked are 32 bits or wider",
                 of=[LIT(32), "bits_default"]), on),
        guard(op(f"{prefix}_bits", "choose", f"bits of {who}'s weights: 16, or the weights' "
                 "where they are wider", when=f"{prefix}_wide", then="bits_default",
                 otherwise=LIT(16)), on),
        guard(op(f"{prefix}_chain", "chain", f"precisions whose peak may apply to {who}, in "
                 "order: the 16-bit chain, fp32's for 32-bit weights", format=LIT(None),
                 bits=f"{prefix}_bits", vendor="chip_vendor", wide_bits=32, wide="fp32",
                 fallbacks=["fp16", "bf16", "fp32"]), on),
        guard(op(f"{prefix}_precision", "precision", f"the precision whose peak {who}'s FLOPs "
                 "take", chain=f"{prefix}_chain", peaks="chip_peaks",
                 unless="given_peak_flops", faster={"fp16": "fp16-acc16"},
                 fallbacks=["fp16", "bf16", "fp32"]), on),
        guard(op(f"chip_{prefix}_flops", "rate", "the chip's dense peak at that precision",
                 peaks="chip_peaks", precision=f"{prefix}_precision"), on),
    ]


def encoder_steps(prefix: str, *, who: str, full: str, over: str, without: str, rows: str,
                  width: str, docs: dict[str, str],
                  other: tuple[str, str, str, str] | None = None) -> list[dict[str, Any]]:
    """The chain of steps of an encoder run before the prefill (the vision tower, ``prefix``
    "vision"; the audio encoder, "audio"), from the inputs ``<prefix>_params`` (each step only
    where it is given), ``<prefix>_prefill_flops``, ``<prefix>_layers``,
    ``<prefix>_split_params`` and ``<prefix>_whole_flops``
    (:func:`llm_arithmetic.media.encoder_split`): its bits and peak
    (:func:`encoder_precision`), its weights' bytes, its time on one chip with its weights read
    once (``<prefix>_whole_seconds``), and on a tensor-parallel group: each chip's weights
    (those kept whole, its share of the split ones) and FLOPs (likewise), its work, the blocks'
    two all-reduces each of the ``rows`` positions at the encoder's ``width`` (both inputs'
    names), then ``<prefix>_prefill_seconds`` (one or the other, as the prefill is split) and
    ``<prefix>_ttft_seconds`` (0 without the encoder's input). ``other``: all-reduces of
    another width, one each of the ``<prefix>_<name>s`` (the vision tower's mergers): (name,
    the input counting their positions at the model's width, the docs of their message and of
    one all-reduce). The docs: ``who`` names the encoder in those the two encoders share,
    ``full`` it and ``over`` what it runs over in its times, ``without`` what is absent when
    it does not run, and ``docs`` gives the rest, keyed by the step's name without the
    prefix."""
    on, flops = f"{prefix}_params", f"{prefix}_prefill_flops"
    precision = encoder_precision(prefix, on, who)
    # vision_prefill_time's own argument takes the input of its name: named only where it differs
    whole_flops = {} if flops == "vision_prefill_flops" else {"vision_prefill_flops": flops}
    messages, allreduces, others = [], [], {}
    if other is not None:
        name, tokens, message_doc, allreduce_doc = other
        messages = [guard(f(f"{prefix}_{name}_message", "tp_allreduce_bytes", message_doc,
                            batch=tokens), on)]
        allreduces = [guard(op(f"{prefix}_{name}_allreduce", "at", allreduce_doc,
                               target="allreduce_one",
                               **{"with": {"allreduce_message": f"{prefix}_{name}_message"}}),
                            f"{prefix}_{name}s", 0)]
        others = {"n_other_allreduces": f"{prefix}_{name}s",
                  "other_allreduce_time": f"{prefix}_{name}_allreduce"}
    return [
        *precision[:2],
        guard(f(f"{prefix}_weight_bytes", "weight_bytes", docs["weight_bytes"], n_params=on,
                bits_weight=f"{prefix}_bits"), on),
        *precision[2:],
        op(f"{prefix}_peak_or_inf", "first", docs["peak_or_inf"],
           of=["given_peak_flops", f"chip_{prefix}_flops", INF]),
        guard(f(f"{prefix}_whole_seconds", "vision_prefill_time", f"{full} over {over} on one "
                "chip, its weights read once", vision_bytes=f"{prefix}_weight_bytes",
                **whole_flops, peak_flops=f"{prefix}_peak_or_inf"), on),
        guard(op(f"{prefix}_split_share", "div", f"{who}'s split weights one chip holds",
                 of=[f"{prefix}_split_params", "tp"]), on),
        guard(op(f"{prefix}_chip_params", "add", docs["chip_params"],
                 plus=[on, f"{prefix}_split_share"], minus=[f"{prefix}_split_params"]), on),
        guard(f(f"{prefix}_chip_bytes", "weight_bytes", docs["chip_bytes"],
                n_params=f"{prefix}_chip_params", bits_weight=f"{prefix}_bits"), on),
        guard(op(f"{prefix}_split_flops", "add", docs["split_flops"], plus=[flops],
                 minus=[f"{prefix}_whole_flops"]), on),
        guard(op(f"{prefix}_split_flops_share", "div", "one chip's share of them",
                 of=[f"{prefix}_split_flops", "tp"]), on),
        guard(op(f"{prefix}_chip_flops", "add", f"{who}'s FLOPs on one chip",
                 plus=[f"{prefix}_whole_flops", f"{prefix}_split_flops_share"]), on),
        guard(f(f"{prefix}_chip_work_seconds", "vision_prefill_time", f"one chip's share of "
                f"{who}: its weights read once against its FLOPs",
                vision_bytes=f"{prefix}_chip_bytes", vision_prefill_flops=f"{prefix}_chip_flops",
                peak_flops=f"{prefix}_peak_or_inf"), on),
        guard(f(f"{prefix}_block_message", "tp_allreduce_bytes", docs["block_message"],
                batch=rows, d_model=width), on),
        *messages,
        guard(op(f"{prefix}_block_allreduce", "at", docs["block_allreduce"],
                 target="allreduce_one",
                 **{"with": {"allreduce_message": f"{prefix}_block_message"}}), on),
        *allreduces,
        guard(op(f"n_{prefix}_allreduces", "mul", docs["n_allreduces"],
                 of=[f"{prefix}_layers", LIT(2)]), on),
        guard(f(f"{prefix}_allreduce_time", "layer_allreduce_time", f"{who}'s all-reduces",
                n_allreduces=f"n_{prefix}_allreduces",
                allreduce_time=f"{prefix}_block_allreduce", **others), "link_bandwidth"),
        op(f"{prefix}_allreduce_seconds", "first", f"{who}'s all-reduces (none without a link)",
           of=[f"{prefix}_allreduce_time", LIT(0.0)]),
        guard(op(f"{prefix}_split_seconds", "add", f"{who} split over the chips: one chip's "
                 "work, then the all-reduces",
                 plus=[f"{prefix}_chip_work_seconds", f"{prefix}_allreduce_seconds"]), on),
        guard(op(f"{prefix}_prefill_seconds", "choose", f"{full} over {over}: on one chip, or "
                 "split over the tensor-parallel group", when="tp_split",
                 then=f"{prefix}_split_seconds", otherwise=f"{prefix}_whole_seconds"), on),
        op(f"{prefix}_ttft_seconds", "first", f"{full}'s time before the prefill (0 without "
           f"{without})", of=[f"{prefix}_prefill_seconds", LIT(0)]),
    ]

#: The model's counts: parameters, bytes, cache and FLOPs, summed over the stack.
MODEL_STEPS: list[dict[str, Any]] = [
    f("embedding_params", "embedding_params", "embeddings, final norm and output head"),
    s("layer_params", "params", "parameters of every block (every expert)"),
    guard(f("ple_params", "per_layer_embedding_params",
            "per-layer input embeddings: the table, its projection and every block's gate"),
          "d_ple", 0),
    op("language_model_params", "add", "the decoder: embeddings and every block",
       plus=["embedding_params", "ple_params", "layer_params"]),
    op("total_params", "add", "the published total: the decoder and the extras it counts",
       plus=["language_model_params", "extras_in_total"]),
    s("layer_active_params", "active_params", "parameters of every block one token uses"),
    op("active_params", "add", "parameters one token uses",
       plus=["embedding_params", "ple_params", "layer_active_params", "extras_read"]),
    s("routed_params", "routed_params", "parameters of every routed expert"),
    f("head_matmul_params", "head_matmul_params", "the output head's weights"),
    s("layer_matmul_params", "matmul_params", "weights of the blocks in matrix products"),
    guard(f("ple_matmul_params", "per_layer_embedding_matmul_params",
            "per-layer embeddings' projection and gates"), "d_ple", 0),
    op("matmul_params", "add", "weights in matrix products for one token (2 FLOPs each)",
       plus=["head_matmul_params", "ple_matmul_params", "layer_matmul_params",
             "extras_matmul"]),
    f("unread_token_params", "unread_embedding_params",
      "token and position embedding rows a decode step does not read"),
    guard(f("unread_ple_params", "unread_per_layer_embedding_params",
            "per-layer embedding rows a decode step does not read (it gathers one)"),
          "d_ple", 0),
    op("unread_embedding_params", "add", "embedding rows a decode step does not read",
       plus=["unread_token_params", "unread_ple_params"]),
    op("decode_read_params", "add", "parameters one decode step of one token reads",
       plus=["active_params"], minus=["unread_embedding_params"]),
    s("layer_read_params", "read_params", "parameters of the blocks a step of B tokens reads"),
    op("read_params", "add", "parameters a decode step of B tokens reads",
       plus=["embedding_params", "ple_params", "layer_read_params", "extras_read"],
       minus=["unread_embedding_params"]),
    op("bits_default", "first", "bits per weight of every weight but the routed experts' "
       "matrices and the embedding rows a step does not read: as asked, or as the checkpoint "
       "or the llama.cpp file type stores them", of=["bits_weight", "native_bits_default"]),
    op("bits_experts", "first", "bits per weight of the routed experts' matrices",
       of=["bits_weight", "native_bits_experts"]),
    op("bits_unread", "first", "bits per weight of the embedding rows a step does not read",
       of=["bits_weight", "native_bits_unread"]),
    s("expert_matrices", "expert_matrices", "weights of every routed expert's matrices"),
    op("other_params", "add", "every parameter but the routed experts' matrices and the "
       "embedding rows a step does not read",
       plus=["total_params"], minus=["expert_matrices", "unread_embedding_params"]),
    f("weight_bytes_other", "weight_bytes", "bytes of everything but the experts' matrices "
      "and the unread embedding rows", n_params="other_params", bits_weight="bits_default"),
    f("weight_bytes_unread", "weight_bytes", "bytes of the embedding rows a step does not read",
      n_params="unread_embedding_params", bits_weight="bits_unread"),
    f("weight_bytes_experts", "weight_bytes", "bytes of the experts' matrices",
      n_params="expert_matrices", bits_weight="bits_experts"),
    op("weight_bytes", "add", "bytes of all the weights",
       plus=["weight_bytes_other", "weight_bytes_unread", "weight_bytes_experts"]),
    s("expert_matrices_read", "expert_matrices_read",
      "weights of the experts' matrices a step of B tokens reads"),
    # A draft step of a multi-token-prediction module (SPECULATIVE_STEPS, MODULE_STEP) reads its
    # own weights at the module's own bits, as its checkpoint stores it (own_bits_blocks,
    # own_bits_experts; its input norms and projection, own_inputs_read, at own_bits_inputs),
    # and what it shares with the model at the model's: the output head at the bits the
    # checkpoint stores it in (own_bits_head: DeepSeek-V3.1-NVFP4's bf16 lm_head), its norm,
    # the embedding row and the model's extras at those of the weights but the experts'; none
    # of these is given for the model's own step.
    guard(op("own_blocks_read", "add", "of what a module step reads of its blocks, the "
             "weights but the experts' matrices, read at the module's bits (none for the "
             "model's step)", plus=["layer_read_params"], minus=["expert_matrices_read"]),
          "own_bits_blocks", 0),
    guard(op("own_head_read", "first", "of what a module step reads, the output head's "
             "weights, read at the head's own bits (none for the model's step)",
             of=["head_matmul_params"]), "own_bits_head", 0),
    op("read_other_params", "add", "what a step reads but the experts' matrices (and a module "
       "step's own blocks and head)", plus=["read_params"],
       minus=["expert_matrices_read", "own_blocks_read", "own_head_read"]),
    f("step_weight_read_other", "weight_bytes", "bytes of what a step reads but the experts",
      n_params="read_other_params", bits_weight="bits_default"),
    op("bits_experts_read", "first", "bits of the experts' matrices a step reads: the model's, "
       "or a module step's own", of=["own_bits_experts", "bits_experts"]),
    f("step_weight_read_experts", "weight_bytes", "bytes of the experts' matrices a step reads",
      n_params="expert_matrices_read", bits_weight="bits_experts_read"),
    guard(f("step_weight_read_own", "weight_bytes", "bytes of a module step's own blocks but "
            "the experts' matrices, at the module's bits", n_params="own_blocks_read",
            bits_weight="own_bits_blocks"), "own_bits_blocks", 0),
    guard(f("step_weight_read_inputs", "weight_bytes", "bytes of a module step's input norms "
            "and projection, at their own bits", n_params="own_inputs_read",
            bits_weight="own_bits_inputs"), "own_inputs_read", 0),
    guard(f("step_weight_read_head", "weight_bytes", "bytes of the output head a module step "
            "reads, at the head's own bits", n_params="own_head_read",
            bits_weight="own_bits_head"), "own_bits_head", 0),
    op("step_weight_bytes", "add", "weight bytes one decode step of B tokens reads",
       plus=["step_weight_read_other", "step_weight_read_experts", "step_weight_read_own",
             "step_weight_read_inputs", "step_weight_read_head"]),
    s("kv_cache_bytes_per_token", "kv_layer", "cache one token adds, every attention layer"),
    s("kv_cache_bytes", "kv_stored", "cache of B sequences of S tokens as runtimes store it"),
    s("kv_cache_bytes_full_storage", "kv_full", "the cache if every layer kept every token"),
    s("seq_kv_bytes", "kv_stored", "cache of one sequence of S tokens", args={"batch": 1}),
    # the state of a constant-state layer: its convolution window at the state's bits (16,
    # estimate.STATE_WINDOW_BITS, whatever the cache's), its recurrent matrix at the bits it is
    # kept in (the checkpoint's dtype, else the state's bits; bits_ssm where asked), as the
    # engine's steps split it
    s("state_at_state_bits", "state", "state of the state-space layers, one sequence, every "
      "element at the state's bits"),
    s("state_matrix_at_state_bits", "state_matrix", "their recurrent matrices at the state's "
      "bits"),
    s("state_matrix_at_checkpoint", "state_matrix_kept", "their recurrent matrices at the bits "
      "the checkpoint keeps them in (float32 for Kimi delta attention; the state's bits where "
      "its config names none)"),
    guard(s("state_matrix_at_asked", "state_matrix", "their recurrent matrices at the bits "
            "asked", args={"bits_state": "bits_ssm"}), "bits_ssm"),
    op("state_matrix_bytes", "first", "the recurrent matrices at the bits asked, else at the "
       "checkpoint's", of=["state_matrix_at_asked", "state_matrix_at_checkpoint"]),
    op("state_bytes", "add", "state of the state-space layers, one sequence: the convolution "
       "windows at the state's bits, the recurrent matrices at theirs",
       plus=["state_at_state_bits", "state_matrix_bytes"], minus=["state_matrix_at_state_bits"]),
    s("seq_kv_read", "kv_read", "cache one decode step of one sequence reads"),
    # A cross-attention model's images (Llama 3.2 Vision, media.image_inputs): its
    # cross-attention layers' keys and values of the images' states, computed once at the
    # prefill and cached for the sequence (vLLM's encoder-decoder cross-attention cache:
    # vllm/model_executor/models/mllama.py @ 6f0b37b889781873e3e766bdf24c95e2052ce081, the
    # encoder prompt of tiles x 1,601 tokens its block manager allocates), then read by every
    # decode step; they do not grow with the text. 0 without such images.
    guard(f("image_kv_bytes", "kv_cache_bytes", "the cross-attention layers' keys and values of one "
            "sequence's image states (a cross-attention model's images; 0 without)",
            n_layers="cross_layers", n_kv_heads="cross_kv_heads", d_head="cross_d_head",
            context="image_states", batch=1), "image_states", 0),
    op("seq_read_with_images", "add", "cache one decode step of one sequence reads: the "
       "text's, and the images' keys and values", plus=["seq_kv_read", "image_kv_bytes"]),
    f("seq_bytes", "decode_seq_bytes", "bytes a decode step moves for one sequence",
      kv_cache="seq_read_with_images"),
    op("attended_context", "mean", "cached positions a step reads per attention layer",
       term="attended"),
    op("experts_read", "mean", "routed experts per MoE block a step of B tokens reads",
       term="experts_read", empty=1),
    s("layer_decode_flops", "layer_decode_flops", "attention and recurrence FLOPs of a token"),
    guard(f("image_attention_flops", "cross_attention_flops", "one token's cross-attention "
            "over the images' states (0 without)", n_layers="cross_layers",
            n_heads="cross_heads", d_head="cross_d_head"), "image_states", 0),
    op("layer_decode_flops_images", "add", "attention and recurrence FLOPs of a token, its "
       "cross-attention over the images' states with them",
       plus=["layer_decode_flops", "image_attention_flops"]),
    f("decode_flops", "stack_decode_flops", "FLOPs to decode one token at S cached tokens",
      layer_flops="layer_decode_flops_images"),
    # YOCO (Phi-4-mini-flash's cross-decoder, Layers.prefill_last): a prefill runs those blocks
    # for the last prompt token only, one decode step over the T cached tokens; their weights
    # count once, as the output head's do. The rule is SambaY's (arXiv 2507.06607, "linear
    # pre-filling": the cross-decoder's keys and values and memory come from the
    # self-decoder); vLLM's SambaYModel.forward keeps only each prompt's last position from
    # block n/2 + 2 on (vllm/model_executor/models/phi4flash.py @
    # 03356f8cb59ba27f3d0ce8866d7516b5e32cff65, its V0 path)
    s("layer_prefill_each_flops", "layer_prefill_flops", "attention and recurrence FLOPs of a "
      "prompt in the blocks that run every prompt token", where="!prefill"),
    s("layer_prefill_last_flops", "layer_decode_flops", "attention and recurrence FLOPs of the "
      "blocks a prefill runs for its last token only (YOCO's cross-decoder): one step over the "
      "T prompt tokens", where="prefill", args={"context": "prompt"}),
    guard(op("image_prompt_attention_flops", "mul", "the prompt's cross-attention over the "
             "images' states (0 without)", of=["image_attention_flops", "prompt"]),
          "image_states", 0),
    op("layer_prefill_flops", "add", "attention and recurrence FLOPs of a prompt",
       plus=["layer_prefill_each_flops", "layer_prefill_last_flops",
             "image_prompt_attention_flops"]),
    s("prefill_last_matmul_params", "matmul_params", "weights in matrix products of the blocks "
      "a prefill runs for its last token only", where="prefill"),
    op("prefill_once_params", "add", "weights a prefill multiplies once, not per prompt token: "
       "the output head's and those of the blocks run for the last token only",
       plus=["head_matmul_params", "prefill_last_matmul_params"]),
    f("prefill_flops", "stack_prefill_flops", "FLOPs to prefill a prompt of T tokens (the "
      "output head once, for the last position's logits)",
      head_params="prefill_once_params", layer_flops="layer_prefill_flops"),
    s("n_layers", "block", "blocks in the stack"),
    s("n_moe_layers", "moe_layer", "mixture-of-experts blocks"),
    s("n_residual_allreduces", "residual_allreduces", "all-reduces of the hidden state the "
      "blocks' residual branches issue (Gemma 3n's LAuReL)"),
    # vLLM's VocabParallelEmbedding splits the token table by vocabulary: each chip looks up
    # the ids in its rows (zeros elsewhere) and the hidden state is all-reduced, once a step
    # (vllm/model_executor/layers/vocab_parallel_embedding.py @
    # 7f5d141a0abde5fdedc220f55d9f19831c9a5b9e, VocabParallelEmbedding.forward); a tied head
    # shares the table but not this lookup
    op("n_embedding_allreduces", "first", "all-reduces of the hidden state the input "
       "embedding issues (its table split by vocabulary): one a step", of=[LIT(1)]),
    s("n_tp_allreduces", "tp_allreduces", "all-reduces of the hidden state one tensor-parallel "
      "step issues", plus=["n_residual_allreduces", "n_embedding_allreduces"]),
    s("n_ep_allreduces", "ep_allreduces", "the same where experts are split",
      plus=["n_residual_allreduces", "n_embedding_allreduces"]),
    s("n_tp_other_allreduces", "other_allreduces", "all-reduces of another width one "
      "tensor-parallel step issues"),
    s("n_ep_other_allreduces", "ep_other_allreduces", "the same where experts are split"),
    op("other_allreduce_token_bytes", "mean", "bytes per token of one such all-reduce's "
       "message (the mean over the blocks that issue one)", term="other_allreduce_bytes",
       empty=0),
]

#: From the counts, a chip and a workload to the bounds.
#: The classes a tensor-parallel group's copies are priced by (catalog.quantization.copy_bits):
#: the class, what its bits are of, what its bytes are of.
COPY_CLASSES = (("heads", "key/value heads' projections", "heads' projections"),
                ("matrices", "matrices", "matrices"), ("router", "routers", "routers"),
                ("plain", "norms and biases", "norms and biases"))

ESTIMATE_STEPS: list[dict[str, Any]] = [
    # ---- the chip -------------------------------------------------------------------------
    op("chain_bits", "first", "bits the precision chain looks at",
       of=["bits_weight", LIT(16)]),
    op("shipped_format", "choose", "the checkpoint's own format where the weights are as "
       "shipped (none once bits are asked)", when="bits_weight", then=LIT(None),
       otherwise="native_format"),
    op("chain_format", "first", "the format asked for, else the checkpoint's own",
       of=["weight_format", "shipped_format"]),
    op("precision_chain", "chain", "precisions whose peak may apply, in order",
       format="chain_format", bits="chain_bits", vendor="chip_vendor", wide_bits=32,
       wide="fp32",
       fallbacks=["fp16", "bf16", "fp32"]),
    # A bound holds for every runtime, so a 16-bit product takes the fastest 16-bit tensor rate
    # the chip offers for those inputs: on GeForce cards fp16 with fp16 accumulation, twice the
    # fp32-accumulate "fp16" rate, which llama.cpp's cuBLAS path reaches (CUBLAS_COMPUTE_16F).
    # A chip that lists none of the chain's rates (Vera Rubin lists fp4 alone) is labelled by
    # the chain's first fallback, not the format's own precision (formats.toml: a chip without
    # an int8 rate falls back to fp16); a given peak takes the label of the first rate the chip
    # lists (no faster mode: the rate is the one given).
    op("compute_precision", "precision", "the precision whose peak applies: the first the chip "
       "has, or its faster mode for the same inputs where the chip lists one",
       chain="precision_chain", peaks="chip_peaks", unless="given_peak_flops",
       faster={"fp16": "fp16-acc16"}, fallbacks=["fp16", "bf16", "fp32"]),
    op("chip_peak_flops", "rate", "the chip's dense peak at that precision",
       peaks="chip_peaks", precision="compute_precision"),
    op("peak_flops", "first", "the peak rate used", of=["given_peak_flops", "chip_peak_flops"]),
    # Attention multiplies activations by the cached keys and values, never by a weight: its
    # products run at the cache's precision, whatever the weights'. A 16-bit cache takes the
    # 16-bit chain (with the chip's faster mode for the same inputs, as the weights' does: the
    # faster plausible rate keeps the bound a bound). A cache of 8 bits or fewer may run at fp8
    # where the chip has an fp8 rate: vLLM's FlashAttention 3 backend quantizes the queries to
    # fp8 and multiplies in fp8 over an fp8 cache
    # (https://docs.vllm.ai/en/v0.25.0/features/quantization/quantized_kvcache/); runtimes that
    # dequantize the cache first run 16-bit products, slower, which the bound allows. llama.cpp's
    # q8_0 cache (8.5 bits) is converted to f16 for its tensor-core FlashAttention kernels
    # (ggml-org/llama.cpp@00a2d60921595ea66853568270b3060490040dea, ggml/src/ggml-cuda/fattn.cu:
    # the MMA and tile kernels set need_f16_K and need_f16_V): 16-bit.
    op("kv_fp8_capable", "le", "the cache holds at most 8 bits an element",
       of=["bits_kv", LIT(8)]),
    op("kv_chain_format", "choose", "the cache's own compute precision where one applies: fp8 "
       "for a cache of at most 8 bits, else none (the chain of its bits)",
       when="kv_fp8_capable", then=LIT({"compute": "fp8", "compute_fallback": "fp16"}),
       otherwise=LIT(None)),
    op("attention_chain", "chain", "precisions whose peak may apply to attention's products "
       "(scores and weighted values over the cache), in order", format="kv_chain_format",
       bits="bits_kv", vendor="chip_vendor", wide_bits=32, wide="fp32",
       fallbacks=["fp16", "bf16", "fp32"]),
    op("attention_precision", "precision", "the precision whose peak applies to attention's "
       "products: the first of its chain the chip has, or its faster mode for the same inputs",
       chain="attention_chain", peaks="chip_peaks", unless="given_peak_flops",
       faster={"fp16": "fp16-acc16"}),
    op("chip_attention_flops", "rate", "the chip's dense peak at that precision",
       peaks="chip_peaks", precision="attention_precision"),
    guard(op("attention_peak_flops", "first", "the peak rate of attention's products (the "
             "given peak, else the chip's at the cache's precision, else the weights')",
             of=["given_peak_flops", "chip_attention_flops", "peak_flops"]), "peak_flops"),
    op("rate_gap", "add", "how far the weights' rate is from attention's (0: one rate for both)",
       plus=["peak_flops"], minus=["attention_peak_flops"]),
    guard(f("decode_split_peak", "step_peak_flops", "a decode step's effective peak: the "
            "weights' products at their rate, attention's at its own", step_flops="decode_flops",
            step_attn_flops="layer_decode_flops", attn_peak_flops="attention_peak_flops"),
          "rate_gap"),
    op("decode_peak_flops", "first", "the peak a decode step's FLOPs take (the weights' where "
       "attention runs at the same rate)", of=["decode_split_peak", "peak_flops"]),
    op("decode_peak_or_inf", "first", "that peak, or none", of=["decode_peak_flops", INF]),
    guard(f("prefill_split_peak", "step_peak_flops", "a prefill's effective peak: the weights' "
            "products at their rate, attention's at its own", step_flops="prefill_flops",
            step_attn_flops="layer_prefill_flops", attn_peak_flops="attention_peak_flops"),
          "rate_gap"),
    op("prefill_peak_flops", "first", "the peak a prefill's FLOPs take",
       of=["prefill_split_peak", "peak_flops"]),
    op("prefill_peak_or_inf", "first", "that peak, or none", of=["prefill_peak_flops", INF]),
    # A tensor-parallel group's FLOPs with every chip's copy counted: a chip computes 1/tp of
    # them. They exceed the model's where an engine computes an indexer's heads on more chips
    # than split them (MiniMax Sparse Attention's 4 heads on 8 chips: one a chip; DeepSeek
    # Sparse Attention's indexer on every chip); elsewhere, and at tp 1, they are the model's.
    s("layer_decode_flops_held", "layer_decode_flops_held", "attention and recurrence FLOPs of "
      "a token on the tensor-parallel group, every copy of an indexer's heads counted"),
    # the padded experts' zero columns go through the GEMM: 2 FLOPs per padded weight of the k
    # experts each token routes to (Kimi K3 under tensor parallelism, expert_pad_params)
    s("expert_pad_active_params", "expert_pad_active", "zero parameters of the routed experts' "
      "padding one token multiplies on the tensor-parallel group"),
    op("expert_pad_token_flops", "mul", "FLOPs one token spends on the padding",
       of=["expert_pad_active_params", LIT(2)]),
    op("layer_decode_flops_padded", "add", "attention and recurrence FLOPs of a token on the "
       "group, with the padded experts' zero products",
       plus=["layer_decode_flops_held", "expert_pad_token_flops", "image_attention_flops"]),
    f("decode_flops_held", "stack_decode_flops", "FLOPs of one token on the tensor-parallel "
      "group, every copy counted", layer_flops="layer_decode_flops_padded"),
    s("layer_prefill_each_flops_held", "layer_prefill_flops_held", "attention and recurrence "
      "FLOPs of a prompt on the tensor-parallel group, every copy of an indexer's heads "
      "counted, in the blocks that run every prompt token", where="!prefill"),
    s("layer_prefill_last_flops_held", "layer_decode_flops_held", "the same of the blocks a "
      "prefill runs for its last token only", where="prefill", args={"context": "prompt"}),
    op("layer_prefill_flops_held", "add", "attention and recurrence FLOPs of a prompt on the "
       "tensor-parallel group, every copy of an indexer's heads counted",
       plus=["layer_prefill_each_flops_held", "layer_prefill_last_flops_held"]),
    op("expert_pad_prompt_flops", "mul", "FLOPs a prefill spends on the padding",
       of=["expert_pad_token_flops", "prompt"]),
    op("layer_prefill_flops_padded", "add", "attention and recurrence FLOPs of a prompt on the "
       "group, with the padded experts' zero products",
       plus=["layer_prefill_flops_held", "expert_pad_prompt_flops",
             "image_prompt_attention_flops"]),
    f("prefill_flops_held", "stack_prefill_flops", "FLOPs of a prefill on the tensor-parallel "
      "group, every copy counted", head_params="prefill_once_params",
      layer_flops="layer_prefill_flops_padded"),
    guard(f("decode_split_peak_held", "step_peak_flops", "the effective peak of those FLOPs of "
            "a decode step", step_flops="decode_flops_held",
            step_attn_flops="layer_decode_flops_held", attn_peak_flops="attention_peak_flops"),
          "rate_gap"),
    op("decode_peak_held_or_inf", "first", "the peak a decode step's FLOPs on the group take, "
       "or none", of=["decode_split_peak_held", "peak_flops", INF]),
    guard(f("prefill_split_peak_held", "step_peak_flops", "the effective peak of those FLOPs "
            "of a prefill", step_flops="prefill_flops_held",
            step_attn_flops="layer_prefill_flops_held", attn_peak_flops="attention_peak_flops"),
          "rate_gap"),
    op("prefill_peak_held_or_inf", "first", "the peak a prefill's FLOPs on the group take, or "
       "none", of=["prefill_split_peak_held", "peak_flops", INF]),
    op("serving_peak_or_inf", "at", "the peak of a decode step on the group at the serving "
       "context", target="decode_peak_held_or_inf", **{"with": {"context": "serving_context"}}),
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
    op("batch_state_matrix_bytes", "mul", "the recurrent matrices of every sequence's state, "
       "at the bits they are kept in", of=["state_matrix_bytes", "batch"]),
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
    f("decode_compute_seconds", "compute_time", "time to do the step's FLOPs (the weights' "
      "products at their rate, attention's at its own)", step_flops="decode_step_flops",
      peak_flops="decode_peak_flops"),
    f("roofline_seconds", "roofline_time", "the roofline bound on the step",
      step_bytes="decode_step_bytes", step_flops="decode_step_flops",
      peak_flops="decode_peak_flops"),
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
            seq_flops="decode_flops", peak_flops="decode_peak_flops"), "peak_flops"),
    op("critical_batch_dense", "finite", "that batch, where it exists",
       of="critical_batch_closed"),
    guard(op("critical_batch_moe", "solve", "for a mixture, where compute time meets memory "
             "time as the experts read grow with B", solver="crossing", var="batch",
             rises="decode_compute_seconds", falls="decode_memory_seconds",
             limit="crossing_limit"), "critical_batch_dense"),
    op("critical_batch_size", "choose", "batch at which decode turns compute-bound",
       when="is_moe", then="critical_batch_moe", otherwise="critical_batch_dense"),
    # ---- the draft's memory (speculative decoding) ----------------------------------------------
    # A draft model, or the model's own multi-token-prediction module, is held beside the
    # target on the same chips: its weights (a draft model's at its own bits, draft_weight_bytes;
    # a module's parameters, draft_params, at the module's own bits, less the copies
    # of the target's vocabulary tables the engine shares, below) and, for every
    # sequence, its own cache and state at the same context (its stack, draft_blocks). It is
    # split over a replica's chips as the target is, since its time is charged as a share of
    # the target's step on the replica (draft_tpot_seconds); each chip keeps its share of the
    # draft's key/value heads, at least one, as of the target's. A draft given by its cost
    # alone holds nothing counted. Each term below is the target's step evaluated on the
    # draft's stack.
    draft_at("draft_module_experts", "weights of the module's routed experts' matrices",
             "expert_matrices"),
    # The embedding table and output head a module stores as its own (DeepSeek-V3's layer 61
    # embed_tokens and shared_head.head) are copies of the target's, and vLLM does not hold
    # them: loading an MTP draft it replaces the module's embedding with the target's on one
    # pipeline stage (under pipeline parallelism it loads the module's own apart) and every
    # module's shared_head.head with the target's lm_head (_maybe_share_embeddings,
    # _maybe_share_lm_head, vllm-project/vllm@82720b1ed4712ddebb597acdbcff752db48a76c1,
    # vllm/v1/spec_decode/llm_base_proposer.py). A kept embedding counts at the bits of the
    # target's embedding rows (bf16 as DeepSeek-V3's checkpoint stores both).
    op("draft_embedding_tables", "first", "the embedding tables the module stores as its own",
       of=["draft_embedding_params", LIT(0)]),
    op("draft_head_tables", "first", "the output heads the module stores as its own",
       of=["draft_head_params", LIT(0)]),
    guard(op("draft_module_other", "add", "the module's other parameters (its own embedding "
             "tables and heads apart)", plus=["draft_params"],
             minus=["draft_module_experts", "draft_embedding_tables", "draft_head_tables"]),
          "draft_params"),
    # The module's own bits, as its checkpoint stores it (NVIDIA's DeepSeek-V3.1-NVFP4 keeps
    # its layer 61 in bf16, DeepSeek-V3's fp8 quantizes it as the rest; catalog.quantization.
    # mtp_bits), else the target's; bits asked for the weights (a format, a number, a llama.cpp
    # file type's parts) apply to the module as to the rest.
    op("bits_draft", "first", "bits per weight of the module's parameters but its routed "
       "experts' matrices: as asked, or as the checkpoint stores the module, else as the "
       "target's", of=["bits_weight", "native_bits_draft", "bits_default"]),
    op("bits_draft_experts", "first", "bits per weight of the module's routed experts' "
       "matrices: as asked, or as the checkpoint stores them, else as the target's",
       of=["bits_weight", "native_bits_draft_experts", "bits_experts"]),
    # a draft step reads the module's parts at their own bits: its blocks' weights but the
    # experts' matrices, and its input norms and projection (DeepSeek-V3's eh_proj in bf16 in
    # an fp8 module: catalog.quantization.mtp_bits), each else at the module's mean
    op("bits_draft_blocks", "first", "bits per weight of the module's blocks but their routed "
       "experts' matrices: as asked, or as the checkpoint stores them, else as the module's "
       "other parameters", of=["bits_weight", "native_bits_draft_blocks", "bits_draft"]),
    op("bits_draft_inputs", "first", "bits per weight of the module's input norms and "
       "projection: as asked, or as the checkpoint stores them, else as the module's other "
       "parameters", of=["bits_weight", "native_bits_draft_inputs", "bits_draft"]),
    # the output head the module shares, at the bits the checkpoint stores it in (bf16 where
    # a quantized file keeps lm_head unquantized: catalog.quantization.head_bits), else at
    # those of the weights but the experts'
    op("bits_head", "first", "bits per weight of the output head: as asked, or as the "
       "checkpoint stores it, else as every weight but the experts' matrices",
       of=["bits_weight", "native_bits_head", "bits_default"]),
    # what a tensor-parallel group copies of the module's blocks, class by class, at the bits
    # the checkpoint stores the module's (catalog.quantization.copy_bits with module: a bf16
    # module in an fp8 file copies bf16 heads), else at the model's; bits asked apply to both
    *[op(f"bits_draft_copy_{c}", "first", f"bits of the module's copied {what}: as asked, "
         "or as its checkpoint stores them, else as the model's",
         of=["bits_weight", f"native_bits_draft_copy_{c}", f"native_bits_copy_{c}",
             "bits_default"])
      for c, what, _ in COPY_CLASSES],
    # the format the module's products run in: 16 bits where the checkpoint keeps every matrix
    # of the module unquantized (Model.draft_format), else the model's (a 16-bit model's chain
    # as a format: fp16 first, as a checkpoint of no format reads)
    op("draft_format", "first", "the format a module step multiplies in: 16-bit where the "
       "checkpoint keeps the module unquantized, else the model's",
       of=["native_format_draft", "native_format",
           LIT({"compute": "fp16", "compute_fallback": None})]),
    f("draft_module_other_bytes", "weight_bytes", "bytes of the module's other parameters, at "
      "the module's bits", n_params="draft_module_other", bits_weight="bits_draft"),
    f("draft_module_expert_bytes", "weight_bytes", "bytes of the module's experts' matrices, "
      "at their bits", n_params="draft_module_experts",
      bits_weight="bits_draft_experts"),
    op("pipeline_split", "gt", "pipeline parallelism", of=["pp", LIT(1)]),
    op("draft_embedding_kept", "choose", "the module's own embedding tables the engine holds: "
       "none on one pipeline stage (the target's shared), its own under pipeline parallelism",
       when="pipeline_split", then="draft_embedding_tables", otherwise=LIT(0)),
    f("draft_embedding_kept_bytes", "weight_bytes", "their bytes, at the bits of the target's "
      "embedding rows", n_params="draft_embedding_kept", bits_weight="bits_unread"),
    guard(op("draft_module_bytes", "add", "the multi-token-prediction module's weights as the "
             "engine holds them (its copies of the target's head never, of its embedding "
             "table under pipeline parallelism only)",
             plus=["draft_module_other_bytes", "draft_module_expert_bytes",
                   "draft_embedding_kept_bytes"]), "draft_params"),
    op("draft_weights", "first", "the draft's weights: a draft model's, or the module's (none "
       "without a draft)", of=["draft_weight_bytes", "draft_module_bytes", LIT(0)]),
    op("resident_weight_bytes", "add", "weights held: the target's and the draft's",
       plus=["weight_bytes", "draft_weights"]),
    op("batch_image_kv", "mul", "the images' keys and values of B sequences",
       of=["image_kv_bytes", "batch"]),
    op("batch_cache_bytes", "add", "cache and state of B sequences of S tokens",
       plus=["kv_cache_bytes", "batch_state_bytes", "batch_image_kv"]),
    draft_at("draft_batch_cache", "the draft's cache and state of B sequences of S "
             "tokens", "batch_cache_bytes"),
    op("sequence_bytes", "add", "cache and state of one sequence",
       plus=["seq_kv_bytes", "state_bytes", "image_kv_bytes"]),
    draft_at("draft_sequence_bytes", "the draft's cache and state of one sequence",
             "sequence_bytes"),
    op("sequence_bytes_all", "add", "cache and state of one sequence, the draft's with the "
       "target's", plus=["sequence_bytes", "draft_sequence_bytes"]),
    # ---- memory -------------------------------------------------------------------------------
    op("kv_cache_with_images", "add", "cache of B sequences of S tokens and of their images",
       plus=["kv_cache_bytes", "batch_image_kv"]),
    f("memory_required_target", "memory_required", "the target's weights, cache, state and "
      "the reserve", kv_cache="kv_cache_with_images"),
    op("draft_held_bytes", "add", "what the draft holds on one chip: its weights, its cache "
       "and state of B sequences of S tokens (0 without a draft)",
       plus=["draft_weights", "draft_batch_cache"]),
    # the draft's figures are none (not 0) where no draft is held, as the engine view's are
    guard(op("draft_memory_bytes", "first", "what the draft holds on one chip, where a draft "
             "is held (none without one, or for a draft given by its cost alone)",
             of=["draft_held_bytes"]), "draft_weights"),
    op("memory_required_bytes", "add", "weights, cache, state and the reserve, the draft's "
       "with the target's", plus=["memory_required_target", "draft_held_bytes"]),
    op("fits", "le", "it fits in the chip's memory", of=["memory_required_bytes", "capacity"]),
    # whether the target alone fits, where a draft is held: a setup that fits only without
    # its draft is said to (the draft, not the model, is what does not fit)
    guard(op("fits_without_draft", "le", "the target alone fits in the chip's memory (none "
             "without a draft)", of=["memory_required_target", "capacity"]), "draft_weights"),
    guard(f("max_sequences_raw", "max_sequences", "sequences that fit beside the weights",
            weight_bytes="resident_weight_bytes", seq_bytes="sequence_bytes_all"), "capacity"),
    op("max_batch", "finite", "sequences of S tokens that fit", of="max_sequences_raw",
       integer=True),
    draft_at("draft_batch_state", "the draft's state of B sequences", "batch_state_bytes"),
    op("free_memory", "add", "memory left for the cache",
       plus=["capacity"], minus=["overhead", "resident_weight_bytes", "batch_state_bytes",
                                 "draft_batch_state", "batch_image_kv"]),
    draft_at("draft_kv_cache", "the draft's cache of B sequences of S tokens",
             "kv_cache_bytes"),
    op("kv_cache_all", "add", "cache of B sequences of S tokens, the draft's with the "
       "target's", plus=["kv_cache_bytes", "draft_kv_cache"]),
    guard(op("max_context", "solve", "tokens per sequence that fit at B", solver="largest",
             var="context", value="kv_cache_all", budget="free_memory",
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
    # ---- the weights on a replica: what tensor parallelism splits and what it copies ---------
    # Each chip of a tensor-parallel group holds its share of what the engine splits and a whole
    # copy of what it does not (formulas/engine.py: held_params and the copied rules, after
    # vLLM): the group holds the model's weights and tp - 1 more copies of those. weight_bytes
    # stays the model's (one copy); the *_held keys are the replica's, every copy counted; the
    # *_per_chip keys and the serving bounds' memory and decode bytes are one chip's share of
    # those. At tp 1 both are the model's.
    s("layer_params_held_split", "params_held", "parameters of every block the "
      "tensor-parallel group holds, every chip's copy counted, but one copy of the "
      "whole-projection q/k norms"),
    s("layer_norm_full", "params_norm_full", "whole-projection q/k norms of every block"),
    op("layer_params_held", "add", "parameters of every block the tensor-parallel group holds, "
       "every chip's copy counted", plus=["layer_params_held_split", "layer_norm_full"]),
    op("final_norm_params", "mul", "the final norm's vectors", of=["norm_vecs_final",
                                                                   "d_model"]),
    # the final norm is copied whole on every chip: the group holds tp - 1 copies beyond the
    # model's (held_params of a part that splits nothing and copies the norm)
    f("final_norm_copies", "held_params", "the final norm's copies beyond the model's: a whole "
      "one on every chip but one", n_params=LIT(0), params_copied="final_norm_params"),
    # parts outside the stack that every chip holds whole (DeepSeek-V4's hyper-connection head
    # and hash-routing tables: vLLM's plain parameters, neither split): tp - 1 more copies
    f("extras_copies", "held_params", "copies beyond the model's of the parts outside the "
      "stack that every chip holds whole", n_params=LIT(0), params_copied="extras_copied"),
    op("layer_copy_params", "add", "parameters of the blocks the tensor-parallel group holds "
       "beyond the model's", plus=["layer_params_held"], minus=["layer_params"]),
    op("tp_copy_params", "add", "parameters the tensor-parallel group holds beyond the model's: "
       "the extra copies of what every chip holds whole",
       plus=["layer_copy_params", "final_norm_copies", "extras_copies"]),
    # their bytes, each class at its own bits as the checkpoint stores it (native_bits_copy_*:
    # catalog.quantization.copy_bits), or all at the bits asked, or, where the checkpoint's
    # classes are not modelled, at the bits of every weight but the experts' matrices: the
    # key/value (and index query) heads copied past one a chip in the format of the key and
    # value projections; the matrices copied whole (latent down-projections, an indexer's) in
    # theirs; routers at the router's bits; the rest (norms, biases) 16-bit
    s("layer_params_heads_held", "params_heads_held", "parameters of every block with its "
      "key/value heads as the tensor-parallel group holds them"),
    s("layer_params_copied", "params_copied", "parameters of every block that each chip "
      "holds whole"),
    s("layer_copied_matrices", "params_copied_matrices", "matrices of every block that each "
      "chip holds whole"),
    s("layer_copied_router", "params_copied_router", "routers of every block that each chip "
      "holds whole"),
    op("tp_more_copies", "add", "copies beyond the first of what every chip holds whole",
       plus=["tp"], minus=[LIT(1)]),
    op("copies_heads", "add", "parameters of the key/value heads copied past one a chip",
       plus=["layer_params_heads_held", "layer_norm_full"], minus=["layer_params"]),
    op("copies_matrices", "mul", "the extra copies of the matrices held whole",
       of=["layer_copied_matrices", "tp_more_copies"]),
    op("copies_router", "mul", "the extra copies of the routers",
       of=["layer_copied_router", "tp_more_copies"]),
    op("copies_plain", "add", "the extra copies of the norms and biases",
       plus=["tp_copy_params"], minus=["copies_heads", "copies_matrices", "copies_router"]),
    *[op(f"bits_copy_{c}", "first", f"bits of the copied {what}",
         of=["bits_weight", f"native_bits_copy_{c}", "bits_default"])
      for c, what, _ in COPY_CLASSES],
    *[f(f"copy_bytes_{c}", "weight_bytes", f"bytes of the copied {what}",
        n_params=f"copies_{c}", bits_weight=f"bits_copy_{c}")
      for c, _, what in COPY_CLASSES],
    op("weight_bytes_copies", "add", "bytes of the copies, each class at its own bits",
       plus=[f"copy_bytes_{c}" for c, _, _ in COPY_CLASSES]),
    # Kimi K3's routed experts padded to w_pad a chip (vLLM's KimiMoE zeros the padding): held
    # at the experts' bits, and read for the experts a step reads
    s("expert_pad_params", "expert_pad", "zero parameters of the routed experts' padding the "
      "tensor-parallel group holds"),
    f("expert_pad_bytes", "weight_bytes", "bytes of the routed experts' padding",
      n_params="expert_pad_params", bits_weight="bits_experts"),
    s("expert_pad_read_params", "expert_pad_read", "zero parameters of the routed experts' "
      "padding a decode step of B tokens reads on the group"),
    f("expert_pad_read_bytes", "weight_bytes", "bytes of the routed experts' padding a decode "
      "step reads", n_params="expert_pad_read_params", bits_weight="bits_experts"),
    op("weight_bytes_held", "add", "bytes of the model's weights on one replica, every chip's "
       "copy counted", plus=["weight_bytes", "weight_bytes_copies", "expert_pad_bytes"]),
    # a draft's blocks are split and copied as the model's are, a multi-token-prediction
    # module's or a draft model's (vLLM runs a draft model at the target's tensor-parallel
    # size unless told 1: vllm-project/vllm@f19b16d95e4395790661f4835e4436bc3dd5d9c7,
    # vllm/config/speculative.py, SpeculativeConfig._verify_and_get_draft_tp); a draft model's
    # final norm is copied whole on every chip, as the target's is, and its copies are at its
    # own bits (draft_bits_default); a module's, class by class at the bits its checkpoint
    # stores the module's (bits_draft_copy_*), as its draft step moves them
    op("draft_width", "first", "the draft's width: a draft model's own, else the target's",
       of=["draft_d_model", "d_model"]),
    draft_at("draft_stack_copy_params", "parameters the group holds beyond the draft's "
             "own in its blocks: the extra copies of what every chip holds whole",
             "layer_copy_params", d_model="draft_width"),
    op("draft_final_norm", "first", "a draft model's final norm (none for a module)",
       of=["draft_final_norm_params", LIT(0)]),
    f("draft_final_norm_copies", "held_params", "the draft's final norm's copies beyond its "
      "own: a whole one on every chip but one", n_params=LIT(0),
      params_copied="draft_final_norm"),
    op("draft_copy_params", "add", "parameters the group holds beyond the draft's own: the "
       "extra copies of what every chip holds whole",
       plus=["draft_stack_copy_params", "draft_final_norm_copies"]),
    guard(f("draft_model_copy_bytes", "weight_bytes", "a draft model's copies' bytes, at the "
            "bits of its weights", n_params="draft_copy_params",
            bits_weight="draft_bits_default"), "draft_bits_default"),
    *[draft_at(f"draft_copies_{c}", f"of a module's copies, those of its {what}",
               f"copies_{c}", d_model="draft_width")
      for c, _, what in COPY_CLASSES if c != "plain"],
    op("draft_copies_plain", "add", "of a module's copies, those of its norms and biases",
       plus=["draft_stack_copy_params"],
       minus=[f"draft_copies_{c}" for c, _, _ in COPY_CLASSES if c != "plain"]),
    *[f(f"draft_copy_bytes_{c}", "weight_bytes", f"bytes of a module's copied {what}, at the "
        "module's bits", n_params=f"draft_copies_{c}", bits_weight=f"bits_draft_copy_{c}")
      for c, _, what in COPY_CLASSES],
    op("module_copy_bytes", "add", "a module's copies' bytes, each class at its bits",
       plus=[f"draft_copy_bytes_{c}" for c, _, _ in COPY_CLASSES]),
    op("draft_copy_bytes", "first", "the draft's copies' bytes: a draft model's at its bits, "
       "else a module's class by class (0 without a draft)",
       of=["draft_model_copy_bytes", "module_copy_bytes"]),
    op("draft_weights_held", "add", "the draft's weights on one replica, every chip's copy "
       "counted", plus=["draft_weights", "draft_copy_bytes"]),
    op("resident_weight_bytes_held", "add", "weights held on one replica, every chip's copy "
       "counted: the target's and the draft's", plus=["weight_bytes_held",
                                                      "draft_weights_held"]),
    op("weight_bytes_per_chip", "div", "weights one chip of the replica holds (the target's "
       "and the draft's), on average over its pipeline stages",
       of=["resident_weight_bytes_held", "n_chips"]),
    op("step_weight_bytes_held", "add", "weight bytes a decode step of B tokens reads on the "
       "tensor-parallel group, every chip's copy counted (each chip reads what it holds)",
       plus=["step_weight_bytes", "weight_bytes_copies", "expert_pad_read_bytes"]),
    # under tensor parallelism each chip caches its share of the key/value heads, but at
    # least one head, and a latent cache whole: the replica holds tp x one chip's cache
    s("kv_cache_chip", "kv_stored_chip", "cache of B sequences of S tokens on one chip of the "
      "tensor-parallel group"),
    op("kv_cache_held", "mul", "the replica's cache, every copy counted",
       of=["kv_cache_chip", "tp"]),
    s("seq_kv_chip", "kv_stored_chip", "cache of one sequence on one chip of the group",
      args={"batch": 1}),
    op("seq_kv_held", "mul", "one sequence's cache in the replica, every copy counted",
       of=["seq_kv_chip", "tp"]),
    # the state as the group holds it: a lone Mamba-2 group's convolution channels on every
    # chip (the recurrent matrices split with the heads, unchanged)
    s("state_held_at_state_bits", "state_held", "state of the state-space layers, one "
      "sequence, as the tensor-parallel group holds it, every element at the state's bits"),
    op("state_bytes_held", "add", "state of one sequence in the replica, every chip's share "
       "counted", plus=["state_bytes", "state_held_at_state_bits"],
       minus=["state_at_state_bits"]),
    op("batch_state_bytes_held", "mul", "state of every sequence in the replica",
       of=["state_bytes_held", "batch"]),
    op("sequence_bytes_held", "add", "cache and state of one sequence in the replica",
       plus=["seq_kv_held", "state_bytes_held", "image_kv_bytes"]),
    s("seq_kv_read_chip", "kv_read_chip", "cache one decode step of one sequence reads on one "
      "chip of the group"),
    op("seq_kv_read_held", "mul", "cache a decode step of one sequence reads on the whole "
       "group, every copy counted", of=["seq_kv_read_chip", "tp"]),
    # the images' keys and values split with their heads (estimate refuses a tensor-parallel
    # degree above the cross-attention layers' key/value heads with such images)
    op("seq_read_held_with_images", "add", "cache a decode step of one sequence reads on the "
       "group: the text's, and the images' keys and values",
       plus=["seq_kv_read_held", "image_kv_bytes"]),
    f("seq_bytes_held", "decode_seq_bytes", "bytes a decode step moves for one sequence on the "
      "whole group", kv_cache="seq_read_held_with_images",
      state_bytes="state_bytes_held"),
    op("kv_final_cache", "at", "cache of the batch at the end", target="kv_cache_held",
       **{"with": {"context": "final_context"}}),
    op("kv_final", "add", "cache and state of the batch at the end",
       plus=["kv_final_cache", "batch_state_bytes_held", "batch_image_kv"]),
    draft_at("draft_kv_final", "the draft's cache and state of the batch at the end, "
             "every copy counted", "kv_final"),
    op("kv_final_all", "add", "cache and state of the batch at the end, the draft's with the "
       "target's", plus=["kv_final", "draft_kv_final"]),
    f("memory_per_chip_raw", "memory_per_chip", "weights and cache, the draft's with the "
      "target's, over the chips, every copy counted", weight_bytes="resident_weight_bytes_held",
      kv_cache="kv_final_all"),
    op("memory_per_chip_bytes", "add", "memory per chip with the reserve",
       plus=["memory_per_chip_raw", "overhead"]),
    op("fits_per_chip", "le", "the replica holds it", of=["memory_per_chip_bytes", "capacity"]),
    guard(f("memory_per_chip_target", "memory_per_chip", "the target's weights and cache "
            "alone, over the chips, every copy counted", weight_bytes="weight_bytes_held",
            kv_cache="kv_final"), "draft_weights"),
    guard(op("memory_per_chip_target_bytes", "add", "that with the reserve",
             plus=["memory_per_chip_target", "overhead"]), "draft_weights"),
    guard(op("fits_per_chip_without_draft", "le", "the replica holds the target alone (none "
             "without a draft)", of=["memory_per_chip_target_bytes", "capacity"]),
          "draft_weights"),
    op("sequence_bytes_final", "at", "cache and state of one sequence at the end",
       target="sequence_bytes_held", **{"with": {"context": "final_context"}}),
    draft_at("draft_sequence_final", "the draft's cache and state of one sequence at "
             "the end, every copy counted", "sequence_bytes_final"),
    op("sequence_bytes_final_all", "add", "cache and state of one sequence at the end, the "
       "draft's with the target's", plus=["sequence_bytes_final", "draft_sequence_final"]),
    op("replica_capacity", "mul", "memory of the replica", of=["n_chips", "capacity"]),
    op("replica_overhead", "mul", "reserve of the replica", of=["n_chips", "overhead"]),
    guard(f("max_sequences_replica", "max_sequences", "sequences the replica holds",
            capacity="replica_capacity", weight_bytes="resident_weight_bytes_held",
            seq_bytes="sequence_bytes_final_all", overhead="replica_overhead"), "capacity"),
    op("max_batch_per_replica", "finite", "sequences the replica holds",
       of="max_sequences_replica", integer=True),
    f("micro", "micro_batch", "sequences per microbatch"),
    op("step_weight_bytes_micro", "at", "weight bytes a microbatch's step reads on the group, "
       "every copy counted", target="step_weight_bytes_held", **{"with": {"batch": "micro"}}),
    op("seq_bytes_serving", "at", "bytes per sequence at the serving context",
       target="seq_bytes_held", **{"with": {"context": "serving_context"}}),
    op("seq_flops_serving", "at", "FLOPs per sequence at the serving context on the group, "
       "every copy counted", target="decode_flops_held",
       **{"with": {"context": "serving_context"}}),
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
    # ---- communication: a scale-up domain in a scale-out network ------------------------------
    op("chip_domain", "field", "chips of the chip's scale-up domain", of="chip_interconnect",
       key="scale_up_domain"),
    op("domain_or_one", "first", "chips of one scale-up domain (1 without one)",
       of=["chip_domain", LIT(1)]),
    op("domain", "choose", "chips of one domain: every chip of the group where one link "
       "bandwidth is given", when="given_link_bandwidth", then="tp_or_ep",
       otherwise="domain_or_one"),
    op("chip_up_bandwidth", "field", "the chip's scale-up bandwidth", of="chip_interconnect",
       key="scale_up_bandwidth"),
    op("chip_pcie_bandwidth", "field", "the chip's host link", of="chip_interconnect",
       key="pcie_bandwidth"),
    op("chip_out_bandwidth", "field", "the chip's share of the node network",
       of="chip_interconnect", key="scale_out_bandwidth"),
    op("up_link", "first", "per-direction bandwidth inside a domain (PCIe where a card has "
       "no other link)", of=["given_link_bandwidth", "chip_up_bandwidth", "chip_pcie_bandwidth",
                             "chip_link_bandwidth"]),
    op("up_bandwidth", "first", "that bandwidth (none needed for a domain of one)",
       of=["up_link", INF]),
    op("out_link", "first", "per-direction bandwidth between domains (PCIe where the card has "
       "no network of its own)", of=["given_link_bandwidth", "chip_out_bandwidth",
                                     "chip_pcie_bandwidth"]),
    op("out_bandwidth", "first", "that bandwidth (none needed within one domain)",
       of=["out_link", INF]),
    op("chip_up_latency", "field", "the catalog's sourced scale-up latency",
       of="chip_interconnect", key="scale_up_latency"),
    op("chip_out_latency", "field", "the catalog's sourced scale-out latency",
       of="chip_interconnect", key="scale_out_latency"),
    op("default_out_latency", "choose", "the stated default between domains: the network's, "
       "or PCIe's where the card has no network", when="chip_out_bandwidth",
       then=LIT(DEFAULT_LATENCY["scale_out"]), otherwise=LIT(DEFAULT_LATENCY["pcie"])),
    op("default_up_latency", "choose", "the stated default inside a domain: the scale-up "
       "link's, or PCIe's where the card has no other link", when="chip_up_bandwidth",
       then=LIT(DEFAULT_LATENCY["scale_up"]), otherwise=LIT(DEFAULT_LATENCY["pcie"])),
    op("up_latency", "first", "latency of one collective step inside a domain: as given, the "
       "catalog's, or the stated default", of=["given_link_latency", "chip_up_latency",
                                               "default_up_latency"]),
    op("out_latency", "first", "latency of one collective step between domains",
       of=["given_link_latency", "chip_out_latency", "default_out_latency"]),
    op("crosses_domains", "gt", "the group spans more than one domain",
       of=["tp_or_ep", "domain"]),
    op("link_latency", "choose", "latency of a step on the slowest link the group uses",
       when="crosses_domains", then="out_latency", otherwise="up_latency"),
    # ---- all-reduces of tensor parallelism ------------------------------------------------------
    op("tp_over_domain", "gt", "the tensor-parallel group spans domains", of=["tp", "domain"]),
    op("domain_chips", "choose", "tensor-parallel chips inside one domain",
       when="tp_over_domain", then="domain", otherwise="tp"),
    op("n_nodes", "div", "domains the tensor-parallel group spans", of=["tp", "domain_chips"]),
    op("chip_in_switch", "field", "the chip's switches reduce in the network",
       of="chip_interconnect", key="scale_up_in_switch_reduction"),
    op("switch_capable", "choose", "an in-switch reduction is possible inside the domain",
       when="given_link_bandwidth", then=LIT(False), otherwise="chip_in_switch"),
    op("chip_topology", "field", "how the chip's scale-up domain is wired",
       of="chip_interconnect", key="scale_up_topology"),
    op("chip_fully_connected", "among", "every chip of the domain reaches every other directly "
       "(a switch, or a link to each peer)", of="chip_topology", values=list(FULLY_CONNECTED)),
    op("direct_capable", "choose", "direct all-reduces are possible inside the domain (a given "
       "link bandwidth says nothing of the wiring)", when="given_link_bandwidth",
       then=LIT(False), otherwise="chip_fully_connected"),
    op("direct_or_ring", "choose", "direct all-reduces where the chips are fully connected, else "
       "the ring", when="direct_capable", then=LIT("direct"), otherwise=LIT("ring")),
    op("domain_default", "choose", "the algorithm a domain uses unless asked: in-switch where "
       "the switches reduce (the faster of it and the chips' own, below), else direct or ring",
       when="switch_capable", then=LIT("switch"), otherwise="direct_or_ring"),
    op("algorithm_asked", "first", "the all-reduce asked for, or the domain's default",
       of=["allreduce_asked", "domain_default"]),
    op("domain_split", "gt", "more than one chip inside the domain", of=["domain_chips", LIT(1)]),
    op("allreduce_algorithm", "choose", "how a domain all-reduces (the ring for a domain of one, "
       "which has nothing to reduce)", when="domain_split", then="algorithm_asked",
       otherwise=LIT("ring")),
    op("use_switch", "among", "the domain reduces in its switch", of="allreduce_algorithm",
       values=["switch"]),
    op("use_direct", "among", "the domain's chips all-reduce directly",
       of="allreduce_algorithm", values=["direct"]),
    op("comm_tokens", "first", "tokens whose activations one step all-reduces",
       of=["micro"]),
    f("allreduce_message", "tp_allreduce_bytes", "bytes of one all-reduce's message",
      batch="comm_tokens"),
    f("allreduce_intra_ring", "ring_allreduce_time", "a ring all-reduce inside one domain",
      message_bytes="allreduce_message", n_chips="domain_chips", link_bandwidth="up_bandwidth",
      link_latency="up_latency"),
    f("allreduce_intra_switch", "switch_allreduce_time", "an all-reduce reduced in the domain's "
      "switch", message_bytes="allreduce_message", n_chips="domain_chips",
      link_bandwidth="up_bandwidth", link_latency="up_latency"),
    f("allreduce_intra_direct", "direct_allreduce_time", "a direct all-reduce inside one domain "
      "(one stage or two, the faster)", message_bytes="allreduce_message",
      n_chips="domain_chips", link_bandwidth="up_bandwidth", link_latency="up_latency"),
    op("allreduce_shard", "div", "the share of the message each chip all-reduces between "
       "domains", of=["allreduce_message", "domain_chips"]),
    f("allreduce_inter", "ring_allreduce_time", "a ring all-reduce of the shards between the "
      "domains (none within one)", message_bytes="allreduce_shard", n_chips="n_nodes",
      link_bandwidth="out_bandwidth", link_latency="out_latency"),
    op("allreduce_chips", "choose", "the all-reduce inside each domain where no switch reduces",
       when="use_direct", then="allreduce_intra_direct", otherwise="allreduce_intra_ring"),
    op("allreduce_no_switch", "choose", "the chips' own all-reduce where the switch could "
       "add: direct where they are fully connected, else the ring", when="direct_capable",
       then="allreduce_intra_direct", otherwise="allreduce_intra_ring"),
    f("allreduce_switch_best", "switch_or_chips_allreduce_time", "in the switch or by the "
      "chips, the faster (engines pick the kernel by size)",
      switch_time="allreduce_intra_switch", chips_time="allreduce_no_switch"),
    op("allreduce_switch_used", "choose", "the switch's reduction as asked, else the faster",
       when="allreduce_asked", then="allreduce_intra_switch", otherwise="allreduce_switch_best"),
    op("allreduce_intra", "choose", "the all-reduce inside each domain, by the algorithm in "
       "use", when="use_switch", then="allreduce_switch_used", otherwise="allreduce_chips"),
    op("switch_not_slower", "le", "the switch's reduction takes no longer than the chips' own",
       of=["allreduce_intra_switch", "allreduce_no_switch"]),
    op("switch_or_chips", "choose", "which of the two the bound took (one batch)",
       when="switch_not_slower", then=LIT("switch"), otherwise="direct_or_ring"),
    op("switch_choice", "choose", "the switch as asked, else the faster",
       when="allreduce_asked", then=LIT("switch"), otherwise="switch_or_chips"),
    op("allreduce_used", "choose", "the algorithm of the bound's all-reduce inside a domain",
       when="use_switch", then="switch_choice", otherwise="allreduce_algorithm"),
    op("allreduce_one", "add", "one all-reduce: inside the domains, then between them "
       "(two_tier_allreduce_time for rings)", plus=["allreduce_intra", "allreduce_inter"]),
    op("n_allreduces_step", "choose", "all-reduces of the hidden state in one step",
       when="ep_split", then="n_ep_allreduces", otherwise="n_tp_allreduces"),
    op("n_other_step", "choose", "all-reduces of another width in one step",
       when="ep_split", then="n_ep_other_allreduces", otherwise="n_tp_other_allreduces"),
    op("other_allreduce_message", "mul", "bytes of one such all-reduce's message",
       of=["comm_tokens", "other_allreduce_token_bytes"]),
    guard(op("other_allreduce_one", "at", "one such all-reduce, by the same algorithm and "
             "tiers", target="allreduce_one",
             **{"with": {"allreduce_message": "other_allreduce_message"}}), "n_other_step", 0),
    f("allreduce_layers", "layer_allreduce_time", "all-reduces of one step of the hidden "
      "state and of other widths", n_allreduces="n_allreduces_step",
      allreduce_time="allreduce_one", n_other_allreduces="n_other_step",
      other_allreduce_time="other_allreduce_one"),
    guard(f("ple_message", "ple_collective_bytes", "bytes of the per-layer embedding's "
            "all-reduce and of its projection's all-gather", batch="comm_tokens"), "d_ple", 0),
    guard(op("ple_allreduce_one", "at", "the per-layer embedding's all-reduce (its table "
             "split by vocabulary), by the same algorithm and tiers", target="allreduce_one",
             **{"with": {"allreduce_message": "ple_message"}}), "d_ple", 0),
    op("allreduce_time", "add", "all-reduces of one step", plus=["allreduce_layers",
                                                                  "ple_allreduce_one"]),
    guard(op("allreduce_linked", "choose", "all-reduces, where tp splits the matrices",
             when="tp_split", then="allreduce_time", otherwise=LIT(0.0)), "link_bandwidth"),
    guard(op("allreduce_seconds_per_token", "choose", "all-reduces inside one TPOT",
             when="link_needed", then="allreduce_linked", otherwise=LIT(0.0)), "bandwidth"),
    # ---- all-gathers of tensor parallelism: the output head's logits (vLLM's LogitsProcessor,
    # formulas.parallel.logits_gather_bytes) and a per-layer embedding's projection ------------
    op("gather_in_ring", "among", "the domain all-gathers in a ring where it all-reduces in one "
       "(else each chip reads its peers' shares directly)", of="allreduce_algorithm",
       values=["ring"]),
    f("logits_message", "logits_gather_bytes", "bytes of the logits one step all-gathers: "
      "every token's, over the whole vocabulary", batch="comm_tokens"),
    f("allgather_intra_ring", "ring_allgather_time", "a ring all-gather inside one domain",
      message_bytes="logits_message", n_chips="domain_chips", link_bandwidth="up_bandwidth",
      link_latency="up_latency"),
    f("allgather_intra_direct", "direct_allgather_time", "a direct all-gather inside one "
      "domain", message_bytes="logits_message", n_chips="domain_chips",
      link_bandwidth="up_bandwidth", link_latency="up_latency"),
    op("allgather_intra", "choose", "the all-gather inside each domain",
       when="gather_in_ring", then="allgather_intra_ring", otherwise="allgather_intra_direct"),
    op("allgather_shard", "div", "the share of the message each chip's domain gathers from "
       "the other domains", of=["logits_message", "domain_chips"]),
    f("allgather_inter", "ring_allgather_time", "a ring all-gather of those shares between "
      "the domains, before the one inside (none within one)", message_bytes="allgather_shard",
      n_chips="n_nodes", link_bandwidth="out_bandwidth", link_latency="out_latency"),
    op("allgather_one", "add", "the logits' all-gather: between the domains, then inside",
       plus=["allgather_intra", "allgather_inter"]),
    guard(op("ple_allgather_one", "at", "the per-layer embedding projection's all-gather, "
             "by the same algorithm and tiers", target="allgather_one",
             **{"with": {"logits_message": "ple_message"}}), "d_ple", 0),
    # Gemma 3n's AltUp: altup_num_inputs - 1 projections of the embedded tokens (the first
    # stage's) and as many of the last block's output (the last stage's), each a column split
    # with gather_output=True: an all-gather of d values a token, once a step, not per block
    # (formulas.parallel.altup_gather_bytes)
    guard(f("altup_message", "altup_gather_bytes", "bytes of one AltUp projection's "
            "all-gather: d values of every token", batch="comm_tokens"), "altup_num_inputs", 0),
    guard(op("altup_projections", "add", "AltUp projections on each side of the stack: one "
             "per stream but the active one", plus=["altup_num_inputs"], minus=[LIT(1)]),
          "altup_num_inputs", 0),
    guard(op("altup_allgather_one", "at", "one AltUp projection's all-gather, by the same "
             "algorithm and tiers", target="allgather_one",
             **{"with": {"logits_message": "altup_message"}}), "altup_num_inputs", 0),
    guard(op("altup_embed_allgathers", "mul", "the all-gathers of AltUp's projections of the "
             "embedded tokens (the first stage's)", of=["altup_projections",
                                                      "altup_allgather_one"]),
          "altup_num_inputs", 0),
    guard(op("altup_unembed_allgathers", "mul", "the all-gathers of AltUp's projections of "
             "the last block's output (the last stage's)", of=["altup_projections",
                                                             "altup_allgather_one"]),
          "altup_num_inputs", 0),
    op("allgather_time", "add", "all-gathers of one step", plus=["allgather_one",
                                                                  "ple_allgather_one",
                                                                  "altup_embed_allgathers",
                                                                  "altup_unembed_allgathers"]),
    guard(op("allgather_linked", "choose", "all-gathers, where tp splits the matrices",
             when="tp_split", then="allgather_time", otherwise=LIT(0.0)), "link_bandwidth"),
    guard(op("allgather_seconds_per_token", "choose", "all-gathers inside one TPOT",
             when="link_needed", then="allgather_linked", otherwise=LIT(0.0)), "bandwidth"),
    # ---- all-to-alls of expert parallelism ------------------------------------------------------
    op("micro_per_ep", "div", "tokens per expert-parallel chip", of=["micro", "ep"]),
    op("ep_over_domain", "gt", "the expert-parallel group spans domains", of=["ep", "domain"]),
    op("ep_nodes", "div", "domains the expert-parallel group spans", of=["ep", "domain"]),
    op("a2a_destinations", "choose", "where a token is sent once: each node beyond a domain, "
       "each chip inside one", when="ep_over_domain", then="ep_nodes", otherwise="ep"),
    op("limit_binds", "gt", "the node limit is below the destinations",
       of=["a2a_destinations", "node_limit"]),
    op("a2a_limit", "choose", "destinations a token may reach", when="limit_binds",
       then="node_limit", otherwise="a2a_destinations"),
    f("a2a_copies", "alltoall_copies", "copies of a token a chip sends per phase",
      n_nodes="a2a_destinations", node_limit="a2a_limit"),
    op("dispatch_bits_used", "first", "bits of a dispatched activation",
       of=["dispatch_bits", LIT(16)]),
    f("a2a_bytes", "dispatch_combine_bytes", "bytes a chip sends per MoE layer",
      batch="micro_per_ep", alltoall_copies="a2a_copies", bits_dispatch="dispatch_bits_used"),
    op("a2a_bandwidth", "choose", "the link the all-to-all crosses", when="ep_over_domain",
       then="out_bandwidth", otherwise="up_bandwidth"),
    op("a2a_latency", "choose", "latency of one all-to-all phase", when="ep_over_domain",
       then="out_latency", otherwise="up_latency"),
    f("alltoall_time", "layer_alltoall_time", "all-to-alls of one step",
      n_ep_layers="n_moe_layers", alltoall_bytes="a2a_bytes", link_bandwidth="a2a_bandwidth",
      link_latency="a2a_latency"),
    guard(op("alltoall_linked", "choose", "all-to-alls, where experts are split",
             when="n_ep_layers", then="alltoall_time", otherwise=LIT(0.0)), "link_bandwidth"),
    guard(op("alltoall_seconds_per_token", "choose", "all-to-alls inside one TPOT",
             when="link_needed", then="alltoall_linked", otherwise=LIT(0.0)), "bandwidth"),
    op("comm_total", "add", "communication of one step",
       plus=["allreduce_seconds_per_token", "alltoall_seconds_per_token",
             "allgather_seconds_per_token"]),
    # Under pipeline parallelism the layers' collectives split over the stages, but the input
    # embedding's all-reduce happens on the first stage only and the logits' all-gather on the
    # last only (vllm-project/vllm e06c9ba2a6ea923a84add30f5dafaea126429b81
    # vllm/model_executor/models/llama.py: LlamaModel looks up embed_tokens where
    # get_pp_group().is_first_rank, LlamaForCausalLM builds lm_head where is_last_rank; the
    # other models follow it): a token pays each once on
    # its way through the stages, on top of its stage's share of the layers'. A per-layer
    # embedding (Gemma 3n, Gemma 4 E2B/E4B) is looked up, and its projection all-gathered, once
    # a step before the first block, for every layer at once: its all-reduce and all-gather
    # are the first stage's too (vllm-project/vllm@001cabc1be16a59a70d720ed61a13b678c060a18
    # vllm/model_executor/models/gemma4.py: Gemma4Model.forward computes per_layer_inputs
    # where get_pp_group().is_first_rank and the later stages receive them in the
    # IntermediateTensors; @034f08e65e596139d8da7fe53c8a892209b64ba3 gemma3n.py:
    # Gemma3nTextModel.forward computes them before the blocks' loop), as are AltUp's
    # projections of the embedded tokens. The stage time below is a middle stage's; the first
    # and last add theirs (pipeline_edges)
    op("comm_no_embedding", "at", "communication of one step without the first stage's own: "
       "the embedding's all-reduce, the per-layer embedding's all-reduce and all-gather, "
       "AltUp's all-gathers of the embedded tokens", target="comm_total",
       **{"with": {"n_embedding_allreduces": LIT(0), "altup_embed_allgathers": LIT(0.0),
                   "ple_allreduce_one": LIT(0.0), "ple_allgather_one": LIT(0.0)}}),
    op("comm_layers", "at", "communication of one step without the first stage's own nor the "
       "last stage's (the logits' all-gather, AltUp's all-gathers of the last block's output): "
       "the layers' own", target="comm_total",
       **{"with": {"n_embedding_allreduces": LIT(0), "allgather_one": LIT(0.0),
                   "altup_embed_allgathers": LIT(0.0), "altup_unembed_allgathers": LIT(0.0),
                   "ple_allreduce_one": LIT(0.0), "ple_allgather_one": LIT(0.0)}}),
    op("comm_embedding_linked", "add", "the embedding's all-reduce, with the per-layer "
       "embedding's all-reduce and all-gather and AltUp's all-gathers of the embedded tokens "
       "(the first stage's)", plus=["comm_total"], minus=["comm_no_embedding"]),
    op("comm_embedding", "first", "the first stage's own collectives: the embedding's "
       "all-reduce, a per-layer embedding's all-reduce and all-gather, AltUp's all-gathers of "
       "the embedded tokens (none without a link)", of=["comm_embedding_linked", LIT(0.0)]),
    op("comm_head_linked", "add", "the logits' all-gather, with AltUp's all-gathers of the "
       "last block's output (the last stage's)",
       plus=["comm_no_embedding"], minus=["comm_layers"]),
    op("comm_head", "first", "the last stage's own collectives: the logits' all-gather and "
       "AltUp's all-gathers of the last block's output (none without a link)",
       of=["comm_head_linked", LIT(0.0)]),
    op("comm_layers_stage", "div", "a stage's share of the layers' communication",
       of=["comm_layers", "pp"]),
    op("comm_stage", "choose", "one stage's communication: the whole step's on one stage, a "
       "share of the layers' on each of several", when="pipeline_split",
       then="comm_layers_stage", otherwise="comm_total"),
    op("comm_time", "first", "communication of one stage's step", of=["comm_stage", LIT(0.0)]),
    op("comm_first_stage", "add", "the first stage's: its share of the layers' and its own "
       "(the embedding's all-reduce, a per-layer embedding's all-reduce and all-gather, "
       "AltUp's all-gathers of the embedded tokens)", plus=["comm_time", "comm_embedding"]),
    op("comm_last_stage", "add", "the last stage's: its share of the layers' and its own (the "
       "logits' all-gather, AltUp's all-gathers of the last block's output)",
       plus=["comm_time", "comm_head"]),
    f("peak_compute_seconds", "compute_time", "compute time (none without a peak)",
      step_flops="decode_step_flops", peak_flops="decode_peak_or_inf"),
    f("peak_seconds_per_token", "roofline_time", "the roofline bound (memory alone without a "
      "peak)", step_bytes="decode_step_bytes", step_flops="decode_step_flops",
      peak_flops="decode_peak_or_inf"),
    # ---- the step: communication overlapped (the bound) or serialized (labelled so) ---------
    f("stage_work_seconds", "tp_step_time", "one stage's memory traffic and arithmetic",
      step_bytes="stage_step_bytes", step_flops="stage_step_flops",
      peak_flops="serving_peak_or_inf", comm_time=LIT(0)),
    f("stage_serialized_seconds", "tp_step_time", "one stage's step, communication after the "
      "work", step_bytes="stage_step_bytes", step_flops="stage_step_flops",
      peak_flops="serving_peak_or_inf"),
    f("stage_overlapped_seconds", "overlapped_time", "one stage's step, communication under "
      "the work", work_time="stage_work_seconds"),
    op("overlapping", "first", "communication overlaps the work (the default)",
       of=["overlap", LIT(True)]),
    op("stage_seconds", "choose", "time of one stage's step", when="overlapping",
       then="stage_overlapped_seconds", otherwise="stage_serialized_seconds"),
    f("tpot_stages_seconds", "pipeline_time", "a token through the stages, each a middle "
      "stage's time", stage_time="stage_seconds", microbatches=1),
    op("step_first_stage", "at", "the step on the first stage", target="stage_seconds",
       **{"with": {"comm_time": "comm_first_stage"}}),
    op("step_last_stage", "at", "the step on the last stage", target="stage_seconds",
       **{"with": {"comm_time": "comm_last_stage"}}),
    op("tpot_edges_seconds", "add", "a token through the stages: the first and last stages' "
       "own times in place of two middle ones'", plus=["tpot_stages_seconds", "step_first_stage",
                                                       "step_last_stage"],
       minus=["stage_seconds", "stage_seconds"]),
    op("tpot_seconds", "choose", "time per output token", when="pipeline_split",
       then="tpot_edges_seconds", otherwise="tpot_stages_seconds"),
    f("tpot_serialized_stages", "pipeline_time", "a token through the stages, communication "
      "serialized, each a middle stage's", stage_time="stage_serialized_seconds",
      microbatches=1),
    op("tpot_serialized_edges", "add", "with the first and last stages' own collectives (the "
       "embedding's all-reduce and the logits' all-gather, with a per-layer embedding's and "
       "AltUp's) paid once", plus=["tpot_serialized_stages", "comm_embedding", "comm_head"]),
    op("tpot_serialized_seconds", "choose", "time per output token, communication serialized",
       when="pipeline_split", then="tpot_serialized_edges", otherwise="tpot_serialized_stages"),
    op("prefill_allreduce", "at", "all-reduces of a prefill: the step's, for the prompt's "
       "tokens", target="allreduce_time", **{"with": {"batch": "prompt", "pp": LIT(1)}}),
    op("prefill_comm_linked", "choose", "all-reduces of a prefill, where tp splits",
       when="tp_split", then="prefill_allreduce", otherwise=LIT(0)),
    op("prefill_alltoall", "at", "all-to-alls of a prefill: the step's, for the prompt's "
       "tokens", target="alltoall_time", **{"with": {"batch": "prompt", "pp": LIT(1)}}),
    op("prefill_a2a_linked", "choose", "all-to-alls of a prefill, where experts are split",
       when="n_ep_layers", then="prefill_alltoall", otherwise=LIT(0)),
    f("prefill_logits_message", "logits_gather_bytes", "bytes of the logits a prefill "
      "all-gathers: its last position's", batch=1),
    op("prefill_allgather", "at", "all-gathers of a prefill: a per-layer embedding's for the "
       "prompt's tokens, the logits of its last position only", target="allgather_time",
       **{"with": {"batch": "prompt", "pp": LIT(1), "logits_message": "prefill_logits_message"}}),
    op("prefill_gather_linked", "choose", "all-gathers of a prefill, where tp splits",
       when="tp_split", then="prefill_allgather", otherwise=LIT(0)),
    op("prefill_comm_sum", "add", "communication of the prefill",
       plus=["prefill_comm_linked", "prefill_a2a_linked", "prefill_gather_linked"]),
    op("prefill_comm", "first", "communication of the prefill (none without a link)",
       of=["prefill_comm_sum", LIT(0.0)]),
    op("prompt_kv_bytes", "at", "cache of the prompt, every copy counted",
       target="seq_kv_held", **{"with": {"context": "prompt"}}),
    op("prompt_kv_per_token", "div", "cache per prompt token",
       of=["prompt_kv_bytes", "prompt"]),
    op("prefill_weight_bytes", "at", "weight bytes the prefill reads on the group, every copy "
       "counted", target="step_weight_bytes_held", **{"with": {"batch": "prompt"}}),
    guard(f("ttft_work_seconds", "time_to_first_token", "the prefill's memory traffic and "
            "arithmetic", weight_bytes="prefill_weight_bytes",
            kv_cache_bytes_per_token="prompt_kv_per_token", prefill_flops="prefill_flops_held",
            n_chips="tp", peak_flops="prefill_peak_held_or_inf", comm_time=LIT(0)), "prompt"),
    guard(f("prefill_serialized_seconds", "time_to_first_token", "the prompt's prefill, "
            "communication after the work", weight_bytes="prefill_weight_bytes",
            kv_cache_bytes_per_token="prompt_kv_per_token", prefill_flops="prefill_flops_held",
            n_chips="tp", peak_flops="prefill_peak_held_or_inf", comm_time="prefill_comm"),
          "prompt"),
    f("ttft_overlapped_seconds", "overlapped_time", "the prompt's prefill, communication under "
      "the work", work_time="ttft_work_seconds", comm_time="prefill_comm"),
    op("prefill_seconds", "choose", "the prompt's prefill", when="overlapping",
       then="ttft_overlapped_seconds", otherwise="prefill_serialized_seconds"),
    # Images in the prompt (media.image_inputs): the processor's rule, in Python, gives the
    # tokens an image adds (already in ``prompt``) and the tower's FLOPs; the tower (and its
    # merger or projector) runs on one chip, before the prefill. The tower stays 16-bit
    # whatever the language model's format: llama.cpp runs a VL model's tower from its own
    # projector file, given apart from the language model's (`-m model.gguf --mmproj
    # file.gguf`, ggml-org/llama.cpp@5d0b43211f449560e9b62062059d8c3ade801eb1
    # docs/multimodal.md) and published at f16 beside a Q4_K_M language model, and FP8, NVFP4
    # and AWQ checkpoints leave the vision tower among their unquantized modules (Kimi K2.5's
    # int4 quantizes only its experts). So the tower's weights
    # are counted at 16 bits and its FLOPs take the chip's 16-bit peak (the faster mode for
    # the same inputs, as the weights' chain takes it), unless the weights asked are wider
    # (fp32: 32 bits, the fp32 peak)
    guard(op("image_tokens", "mul", "tokens the images add to the prompt",
             of=["images", "image_tokens_per_image"]), "images"),
    # a video's tokens (video_tokens, media.video_inputs) are merged by the same mergers
    guard(op("image_and_video_tokens", "add", "tokens the images and the video add",
             plus=["image_tokens", "video_tokens"]), "vision_params"),
    guard(op("vision_tokens", "first", "tokens the vision tower's mergers give: the images' "
             "and the video's", of=["image_and_video_tokens", "image_tokens", "video_tokens"]),
          "vision_params"),
    # Under tensor parallelism the tower runs as vLLM's default mm_encoder_tp_mode "weights"
    # runs it (vllm-project/vllm 01230b40128e570a58e54e75f7e55c4d5cd9246d vllm/config/
    # multimodal.py; fb33ec8cf0a73c82af00a2128dee4ad058d16e9b vllm/model_executor/models/
    # qwen2_5_vl.py, whose supports_encoder_tp_data opts into the other mode, "data", which
    # is not modelled): every block's qkv, proj and MLP and
    # the mergers' matrices split over the chips (column-, then row-parallel), the patch
    # embedding, norms and biases whole on each; two all-reduces a block of the prompt's
    # patches x d_vis values and one a merger of its image tokens x d_model, each block
    # waiting for them (one forward, nothing to overlap). A degree that does not divide the
    # tower's heads is refused before the plan runs, as vLLM refuses it
    # (estimate.encoder_degrees); a tower vLLM runs unsplit (Gemma 4's, built through
    # transformers' AutoModel; a convolutional one) comes with vision_layers 0 and all its
    # FLOPs in vision_whole_flops: whole on every chip
    *encoder_steps(
        "vision", who="the tower", full="the vision tower", over="the prompt's images and video",
        without="images or a video", rows="vision_patches", width="d_vision",
        docs={"weight_bytes": "the vision tower's and merger's weights at the tower's bits",
              "peak_or_inf": "the peak the tower's FLOPs take (the given peak, else the chip's "
                             "at the tower's precision), or none",
              "chip_params": "the tower's weights on one chip: what it keeps whole, and its "
                             "share of the split matrices",
              "chip_bytes": "the tower's weights one chip reads, at the tower's bits",
              "split_flops": "the tower's FLOPs that split over the chips (all but the patch "
                             "embedding's)",
              "block_message": "bytes of a tower block's all-reduce: the prompt's patches at "
                               "the tower's width",
              "block_allreduce": "one of a block's all-reduces, by the algorithm and tiers of "
                                 "the model's",
              "n_allreduces": "the tower's all-reduces of its width: two a block (after "
                              "attention, after the MLP)"},
        other=("merger", "vision_tokens", "bytes of a merger's all-reduce: the image and video "
               "tokens at the model's width", "a merger's all-reduce, likewise")),
    # Audio in the prompt (media.audio_inputs, catalog.audio): the processor's rule gives
    # the clip's tokens (already in ``prompt``) and the encoder's FLOPs; the encoder runs
    # before the prefill, at 16 bits as the vision tower does, through the same chain of
    # steps (encoder_steps).
    # Under tensor parallelism vLLM splits Qwen3-Omni's encoder blocks over the chips (two
    # all-reduces a block of its positions x its width; the convolutions and projections
    # whole on each chip) and runs Qwen2.5-Omni's whole on every chip (audio_layers 0, all
    # its FLOPs in audio_whole_flops)
    *encoder_steps(
        "audio", who="the audio encoder", full="the audio encoder", over="the prompt's audio",
        without="audio", rows="audio_rows", width="d_audio",
        docs={"weight_bytes": "the audio encoder's weights at its bits",
              "peak_or_inf": "the peak the audio encoder's FLOPs take (the given peak, else the "
                             "chip's at its precision), or none",
              "chip_params": "the audio encoder's weights on one chip",
              "chip_bytes": "the audio encoder's weights one chip reads",
              "split_flops": "the audio encoder's FLOPs that split over the chips (its blocks')",
              "block_message": "bytes of an audio encoder block's all-reduce: its positions at "
                               "its width",
              "block_allreduce": "one of an audio block's all-reduces, by the algorithm and "
                                 "tiers of the model's",
              "n_allreduces": "the audio encoder's all-reduces: two a split block"}),
    # the encoders a prompt runs before its prefill, listed once: the bound's time to first
    # token adds them to the prefill, the forecast's to the prefill's forecast (their bound
    # time as it is: forecast.expected through the estimate's encoders_ttft_seconds;
    # expected_ttft_seconds below)
    op("encoders_ttft_seconds", "add", "the encoders' time before the prefill: the vision "
       "tower's and the audio encoder's (0 without images, video or audio)",
       plus=["vision_ttft_seconds", "audio_ttft_seconds"]),
    op("ttft_serialized_seconds", "add", "time to first token, communication after the work: "
       "the encoders, then the prefill", plus=["prefill_serialized_seconds",
                                               "encoders_ttft_seconds"]),
    op("ttft_seconds", "add", "time to first token: the encoders (the vision tower, the audio "
       "encoder), then the prefill", plus=["prefill_seconds", "encoders_ttft_seconds"]),
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

#: The inputs a draft step of a multi-token-prediction module changes in the target's steps: its
#: blocks for the stack, the context TPOT bounds, and its input norms and projection beside the
#: target's extras (SPECULATIVE_STEPS).
MODULE_STEP = {"blocks": "draft_step_blocks", "context": "serving_context",
               "extras_matmul": "module_extras_matmul", "own_inputs_read": "module_input_params",
               "own_bits_blocks": "bits_draft_blocks", "own_bits_experts": "bits_draft_experts",
               "own_bits_inputs": "bits_draft_inputs", "own_bits_head": "bits_head",
               "native_format": "draft_format",
               **{f"native_bits_copy_{c}": f"bits_draft_copy_{c}" for c, _, _ in COPY_CLASSES}}

#: Speculative decoding (chapter 13): with a draft length k, an acceptance rate a and a draft
#: step's cost c_d relative to a plain step, a step drafts k tokens and verifies them in one
#: target step over k + 1 positions per sequence (k + 1 times its FLOPs; the cache read once a
#: sequence, and the weights a step of B (k + 1) tokens reads: the same for a dense model, more
#: experts for a mixture, whose B (k + 1) tokens route as a batch of that many does); the bound
#: per token is (k c_d t_plain + t_verify) / n_acc, with n_acc the tokens a step yields.
SPECULATIVE_STEPS: list[dict[str, Any]] = [
    guard(f("spec_tokens_per_step", "speculative_tokens_per_step", "tokens a speculative step "
            "yields on average"), "draft_len"),
    guard(op("verify_positions", "add", "positions of each sequence the verify step runs",
             plus=["draft_len", LIT(1)]), "draft_len"),
    # The model's own multi-token-prediction module as the draft (the mtp workload,
    # draft_step_blocks: the blocks of the one module a draft step runs). Its step reads the
    # module's two input norms and the projection of their concatenation (2d x d, DeepSeek-V3's
    # eh_proj), its blocks (a mixture's experts as the batch routes them) with their cache of
    # the batch, and the output head with its norm (the target's own, or the copy a checkpoint
    # stores), gathering one embedding row; it does 2 FLOPs per weight of its matrix products
    # (the projection, the blocks', the head) and its blocks' attention over their cache. That
    # is a plain step through the module's blocks, with the input norms and the projection as
    # parameters outside the stack that every token reads (extras_read; the projection in a
    # matrix product, extras_matmul), evaluated by the target's own steps. Its cost is that
    # step's roofline time over a plain step's (each the larger of its bytes at the bandwidth
    # and its FLOPs at its effective peak), at the call's bits and batch, at the context TPOT
    # bounds (the request's mean decode context with a prompt, as a draft model's cost is its
    # bound over the target's there). Where both steps are memory-bound (one sequence) that is
    # the ratio of their bytes, which stands in where no bandwidth is known; at a batch where
    # the module's step is compute-bound it follows the module's FLOPs.
    guard(op("module_width", "add", "d + 1", plus=["d_model", LIT(1)]), "draft_step_blocks"),
    guard(op("module_input_params", "mul", "the module's two input norms and its projection "
             "of the two: 2d(d + 1)", of=[LIT(2), "d_model", "module_width"]),
          "draft_step_blocks"),
    guard(op("module_projection_params", "mul", "the projection's weights, a matrix product "
             "for every token: 2d x d", of=[LIT(2), "d_model", "d_model"]),
          "draft_step_blocks"),
    guard(op("module_extras_matmul", "add", "of them, the weights in matrix products: the "
             "target's extras' and the projection",
             plus=["extras_matmul", "module_projection_params"]), "draft_step_blocks"),
    guard(op("module_step_bytes", "at", "bytes one draft step of the module reads: a step of "
             "the batch through the module's blocks (the output head and its norm, one "
             "embedding row, the blocks' weights and their cache) and its input norms and "
             "projection", target="decode_step_bytes", **{"with": dict(MODULE_STEP)}),
          "draft_step_blocks"),
    guard(op("module_step_flops", "at", "FLOPs of that step: 2 a weight of the projection, the "
             "blocks and the head, and the blocks' attention, for every sequence",
             target="decode_step_flops", **{"with": dict(MODULE_STEP)}), "draft_step_blocks"),
    guard(op("module_step_seconds", "at", "the roofline bound on one draft step of the module: "
             "the larger of its bytes at the bandwidth and its FLOPs at their effective peak "
             "(the weights' products at their rate, attention's at its own), as a plain step's",
             target="peak_seconds_per_token", **{"with": dict(MODULE_STEP)}),
          "draft_step_blocks"),
    guard(op("target_step_bytes_serving", "at", "bytes a plain step of the batch reads at "
             "that context", target="decode_step_bytes",
             **{"with": {"context": "serving_context"}}), "draft_step_blocks"),
    guard(op("target_step_seconds_serving", "at", "the roofline bound on a plain step of the "
             "batch at that context", target="peak_seconds_per_token",
             **{"with": {"context": "serving_context"}}), "draft_step_blocks"),
    guard(op("module_time_ratio", "div", "a module step's roofline time over a plain step's",
             of=["module_step_seconds", "target_step_seconds_serving"]), "draft_step_blocks"),
    guard(op("module_bytes_ratio", "div", "a module step's bytes over a plain step's",
             of=["module_step_bytes", "target_step_bytes_serving"]), "draft_step_blocks"),
    guard(op("module_draft_cost", "first", "a module step's cost: its roofline time over a "
             "plain step's (its bytes over a plain step's without a bandwidth)",
             of=["module_time_ratio", "module_bytes_ratio"]), "draft_step_blocks"),
    guard(op("draft_cost_used", "first", "a draft step's time relative to a plain step (given, "
             "else the module's; none: free)", of=["draft_cost", "module_draft_cost", LIT(0)]),
          "draft_len"),
    # On a replica the module's step is split over the tensor-parallel group as the model's
    # blocks are (vLLM runs it at the target's tp), and each chip reads its share with its own
    # copies of what it holds whole (the latent down-projections, routers, norms; the module's
    # input projection where the engine builds it unsplit, module_copied_params) and, for a
    # cache every chip keeps whole (MLA's latent), the whole cache of the module's block: its
    # share of a replica's step is one chip's roofline time of that step over one chip's of a
    # plain step, both on the whole group (pp 1: one step's work, not one stage's share).
    guard(op("module_blocks_chip_bytes", "at", "bytes one draft step of the module moves on "
             "the group, every copy of its blocks counted", target="stage_step_bytes",
             **{"with": {**MODULE_STEP, "pp": LIT(1)}}), "draft_step_blocks"),
    op("module_copied", "first", "the module's input parameters every chip holds whole (none: "
       "split as the blocks are)", of=["module_copied_params", LIT(0)]),
    op("module_input_copies", "mul", "their copies beyond the module's own",
       of=["module_copied", "tp_more_copies"]),
    f("module_input_copy_bytes", "weight_bytes", "their bytes, at the bits the module step "
      "reads them", n_params="module_input_copies", bits_weight="bits_draft_inputs"),
    guard(op("module_chip_bytes", "add", "bytes one draft step of the module moves on the "
             "group, every copy counted", plus=["module_blocks_chip_bytes",
                                                "module_input_copy_bytes"]),
          "draft_step_blocks"),
    guard(op("module_chip_flops", "at", "FLOPs of that step on the group",
             target="stage_step_flops", **{"with": {**MODULE_STEP, "pp": LIT(1)}}),
          "draft_step_blocks"),
    guard(op("module_chip_peak", "at", "the peak those FLOPs take",
             target="serving_peak_or_inf", **{"with": dict(MODULE_STEP)}), "draft_step_blocks"),
    guard(f("module_chip_seconds", "tp_step_time", "the roofline bound on one draft step of the "
            "module on one chip of the tensor-parallel group: its bytes and FLOPs on the group, "
            "every copy counted, over tp", step_bytes="module_chip_bytes",
            step_flops="module_chip_flops", peak_flops="module_chip_peak", comm_time=LIT(0)),
          "draft_step_blocks"),
    guard(op("target_chip_seconds", "at", "the roofline bound on a plain step of the batch on "
             "one chip of the group", target="stage_work_seconds",
             **{"with": {"pp": LIT(1)}}), "draft_step_blocks"),
    guard(op("target_chip_bytes", "at", "bytes a plain step of the batch moves on the group, "
             "every copy counted", target="stage_step_bytes", **{"with": {"pp": LIT(1)}}),
          "draft_step_blocks"),
    guard(op("module_chip_time_ratio", "div", "one chip's time of a module step over one chip's "
             "of a plain step", of=["module_chip_seconds", "target_chip_seconds"]),
          "draft_step_blocks"),
    guard(op("module_chip_bytes_ratio", "div", "one chip's bytes of a module step over one "
             "chip's of a plain step", of=["module_chip_bytes", "target_chip_bytes"]),
          "draft_step_blocks"),
    guard(op("module_chip_cost", "first", "a module step's cost on the replica: one chip's "
             "roofline time of it over one chip's of a plain step (its bytes without a "
             "bandwidth)", of=["module_chip_time_ratio", "module_chip_bytes_ratio"]),
          "draft_step_blocks"),
    guard(op("draft_chip_cost_used", "first", "a draft step's time relative to a plain step on "
             "the replica (given, else the module's on one chip of the group; none: free)",
             of=["draft_cost", "module_chip_cost", LIT(0)]), "draft_len"),
    op("verify_step_flops", "mul", "FLOPs of the verify step of the batch",
       of=["decode_step_flops", "verify_positions"]),
    guard(op("verify_tokens", "mul", "tokens the verify step runs: k + 1 positions of each "
             "sequence", of=["batch", "verify_positions"]), "draft_len"),
    op("verify_weight_bytes", "at", "weight bytes the verify step reads: a mixture's experts "
       "routed by all its tokens", target="step_weight_bytes",
       **{"with": {"batch": "verify_tokens"}}),
    f("verify_step_bytes", "batched_step_bytes", "bytes of the verify step: those weights, and "
      "each sequence's cache read once", weight_bytes="verify_weight_bytes"),
    f("verify_seconds", "roofline_time", "the verify step's roofline: its bytes, k + 1 times "
      "the plain step's FLOPs", step_bytes="verify_step_bytes", step_flops="verify_step_flops",
      peak_flops="decode_peak_or_inf"),
    op("draft_seconds", "mul", "the gamma draft steps of one speculative step",
       of=["draft_len", "draft_cost_used", "peak_seconds_per_token"]),
    op("spec_step_seconds", "add", "one speculative step: drafts, then the verify step",
       plus=["draft_seconds", "verify_seconds"]),
    op("speculative_seconds_per_token", "div", "bound on the time per token of one stream with "
       "speculation", of=["spec_step_seconds", "spec_tokens_per_step"]),
    f("speculative_tokens_per_second", "tokens_per_user", "tokens/s of one stream with "
      "speculation", tpot="speculative_seconds_per_token"),
    op("verify_stage_flops", "mul", "FLOPs of one stage's verify step",
       of=["stage_step_flops", "verify_positions"]),
    guard(op("verify_micro_tokens", "mul", "tokens a microbatch's verify step runs",
             of=["micro", "verify_positions"]), "draft_len"),
    op("verify_weight_bytes_micro", "at", "weight bytes a microbatch's verify step reads on "
       "the group, every copy counted", target="step_weight_bytes_held",
       **{"with": {"batch": "verify_micro_tokens"}}),
    f("verify_micro_bytes", "batched_step_bytes", "bytes of a microbatch's verify step",
      weight_bytes="verify_weight_bytes_micro", seq_bytes="seq_bytes_serving", batch="micro"),
    f("verify_stage_bytes", "stage_bytes", "one stage's share of them",
      step_bytes="verify_micro_bytes"),
    f("verify_stage_work", "tp_step_time", "one stage's verify step: its memory traffic and "
      "arithmetic", step_bytes="verify_stage_bytes", step_flops="verify_stage_flops",
      peak_flops="serving_peak_or_inf", comm_time=LIT(0)),
    f("verify_stage_serialized", "tp_step_time", "one stage's verify step, communication after "
      "the work", step_bytes="verify_stage_bytes", step_flops="verify_stage_flops",
      peak_flops="serving_peak_or_inf"),
    f("verify_stage_overlapped", "overlapped_time", "one stage's verify step, communication "
      "under the work", work_time="verify_stage_work"),
    op("verify_stage_seconds", "choose", "time of one stage's verify step, as the plain step's",
       when="overlapping", then="verify_stage_overlapped", otherwise="verify_stage_serialized"),
    f("verify_stages_seconds", "pipeline_time", "the replica's verify step, each stage a "
      "middle stage's", stage_time="verify_stage_seconds", microbatches=1),
    op("verify_first_stage", "at", "the verify step on the first stage", target="verify_stage_seconds",
       **{"with": {"comm_time": "comm_first_stage"}}),
    op("verify_last_stage", "at", "the verify step on the last stage", target="verify_stage_seconds",
       **{"with": {"comm_time": "comm_last_stage"}}),
    op("verify_edges_seconds", "add", "the first and last stages' own times in place of two "
       "middle ones'", plus=["verify_stages_seconds", "verify_first_stage", "verify_last_stage"],
       minus=["verify_stage_seconds", "verify_stage_seconds"]),
    op("verify_tpot_seconds", "choose", "the replica's verify step", when="pipeline_split",
       then="verify_edges_seconds", otherwise="verify_stages_seconds"),
    op("draft_tpot_seconds", "mul", "the gamma draft steps on the replica",
       of=["draft_len", "draft_chip_cost_used", "tpot_seconds"]),
    op("spec_tpot_step", "add", "one speculative step on the replica",
       plus=["draft_tpot_seconds", "verify_tpot_seconds"]),
    op("speculative_tpot_seconds", "div", "time per output token with speculation",
       of=["spec_tpot_step", "spec_tokens_per_step"]),
    f("speculative_tokens_per_second_per_chip", "tokens_per_chip", "tokens/s per chip with "
      "speculation", tpot="speculative_tpot_seconds"),
    f("speculative_request_seconds", "request_time", "time of the whole request with "
      "speculation", ttft="ttft_seconds", tpot="speculative_tpot_seconds",
      generated="generate"),
    op("spec_replica_rate", "mul", "tokens/s of the replica with speculation",
       of=["speculative_tokens_per_second_per_chip", "n_chips"]),
    f("speculative_cost_per_million_tokens", "cost_per_million_tokens", "price of a million "
      "tokens with speculation", tokens_per_second="spec_replica_rate"),
    f("speculative_energy_joules_per_token", "energy_per_token", "energy per generated token "
      "with speculation", tokens_per_second="spec_replica_rate"),
]

def _forecast_of(name: str, plain: str, speculative: str, what: str) -> list[dict[str, Any]]:
    """The forecast of a step under a bound per token (``plain``, or ``speculative`` with a draft
    length): the bound of one step (the tokens it yields x the bound per token), its forecast
    time with the decode fit's terms, and the fast and slow ends of its 80% interval."""
    return [
        op(f"{name}_token", "choose", f"{what} per token the forecast sits under",
           when="draft_len", then=speculative, otherwise=plain),
        op(f"{name}_bound", "mul", "the bound of one step", of=[f"{name}_token", "fc_tokens"]),
        guard(f(f"{name}_step", "forecast_step_time", "the forecast time of that step",
                step_time=f"{name}_bound", overhead_fraction="fc_k",
                dequant_fraction="fc_delta", dequant_time="forecast_dequant_time",
                fixed_time="fc_fixed", layer_time="fc_lambda", n_layers="fc_layers"),
              "forecast_decode"),
        f(f"{name}_fast", "forecast_end_time", "the fast end of its interval, never faster "
          "than the bound", forecast_time=f"{name}_step", interval_ratio="fc_high",
          step_time=f"{name}_bound"),
        f(f"{name}_slow", "forecast_end_time", "the slow end of its interval",
          forecast_time=f"{name}_step", interval_ratio="fc_low", step_time=f"{name}_bound"),
    ]


#: The forecast under the bounds (:mod:`llm_arithmetic.forecast`): the fitted terms of a chip
#: class and a runtime come as two records, ``forecast_decode`` (``k``, ``delta``, ``tau``,
#: ``lambda``, and the 80% interval's ratios ``low``, ``high``), ``forecast_prefill`` (the
#: same without ``delta``) and ``forecast_prefill_int8`` (a prefill at the int8 rate), which :func:`llm_arithmetic.forecast.forecast_inputs` looks up;
#: without them every step is None. With speculation the decode and TPOT forecasts are of a
#: speculative step's bound, over the tokens it yields.
FORECAST_STEPS: list[dict[str, Any]] = [
    op("quantized", "gt", "weights stored in fewer than 16 bits",
       of=[LIT(16), "bits_weight_effective"]),
    f("dequant_bytes", "weight_bytes", "the weights one decode step of one token reads, at 16 "
      "bits", n_params="decode_read_params", bits_weight=LIT(16)),
    guard(f("dequant_read_seconds", "memory_time", "time to read them at 16 bits",
            step_bytes="dequant_bytes"), "bandwidth"),
    op("dequant_chip_seconds", "div", "one tensor-parallel chip's share",
       of=["dequant_read_seconds", "tp"]),
    op("forecast_dequant_time", "choose", "the dequantization term's regressor t_16: that time "
       "for quantized weights, else 0", when="quantized", then="dequant_chip_seconds",
       otherwise=LIT(0.0)),
] + [op(f"fc_{key}", "field", f"the decode fit's {key}", of="forecast_decode", key=key)
     for key in ("k", "delta", "tau", "lambda", "low", "high", "mu", "nu")] + [
    # llama.cpp's int8 kernels (its block formats on NVIDIA and AMD GPUs) reach a smaller share
    # of their roof than 16-bit products do of theirs: a prefill whose bound took the int8 rate
    # takes the runtime's int8 terms where the fit has them (forecast.prefill_runtime_for)
    op("prefill_int8", "among", "the prefill bound took the int8 rate",
       of="compute_precision", values=["int8"]),
    op("prefill_int8_terms", "first", "the runtime's int8 prefill terms, else its own",
       of=["forecast_prefill_int8", "forecast_prefill"]),
    op("prefill_terms", "choose", "the prefill fit's terms for the rate the bound took",
       when="prefill_int8", then="prefill_int8_terms", otherwise="forecast_prefill"),
] + [
    op(f"fp_{key}", "field", f"the prefill fit's {key}", of="prefill_terms", key=key)
    for key in ("k", "tau", "lambda", "low", "high")] + [
    op("fc_tokens", "first", "tokens a step yields (1 without speculation)",
       of=["spec_tokens_per_step", LIT(1)]),
    # the per-layer term is kernel launches: a speculative step also runs the draft's blocks,
    # gamma times (none charged where only a draft cost was given)
    op("draft_layers_used", "first", "blocks one draft step runs (none given: none charged)",
       of=["draft_layers", LIT(0)]),
    guard(op("draft_layer_passes", "mul", "blocks the drafts of one speculative step run",
             of=["draft_len", "draft_layers_used"]), "draft_len"),
    guard(op("spec_layer_passes", "add", "blocks a speculative step runs: the verify step's "
             "and the drafts'", plus=["n_layers", "draft_layer_passes"]), "draft_len"),
    op("fc_layers", "choose", "blocks whose per-layer cost a forecast step pays",
       when="draft_len", then="spec_layer_passes", otherwise="n_layers"),
    # an older llama.cpp build pays the build drift (mu L + nu) a beside the fixed cost
    # (forecast_fit.DRIFT_TERMS; mu and nu are 0 for a runtime without one, a is 0 for today's
    # build)
    op("fc_age", "first", "the build's age before the fit's reference day (none given: 0, "
       "today's build)", of=["build_age", LIT(0.0)]),
    op("fc_drift_layers", "mul", "the build drift's part per layer, per year of age",
       of=["fc_mu", "fc_layers"]),
    op("fc_drift_rate", "add", "the build drift per year of age",
       plus=["fc_drift_layers", "fc_nu"]),
    op("fc_drift", "mul", "the build drift of one step", of=["fc_drift_rate", "fc_age"]),
    op("fc_fixed", "add", "the fixed cost of one step: the runtime's and the build drift",
       plus=["fc_tau", "fc_drift"]),
] + _forecast_of("fc_decode", "decode_seconds_per_token", "speculative_seconds_per_token",
                 "the decode bound") + [
    op("expected_decode_tokens_per_second", "div", "expected tokens/s of one stream",
       of=["fc_tokens", "fc_decode_step"]),
    op("expected_decode_tokens_per_second_low", "div", "the interval's low end",
       of=["fc_tokens", "fc_decode_slow"]),
    op("expected_decode_tokens_per_second_high", "div", "the interval's high end",
       of=["fc_tokens", "fc_decode_fast"]),
    # The prefill fit was fitted on text prompts only (no measured row has an image or audio):
    # it forecasts the prompt's prefill, and the encoders' bound times are added as they are,
    # bounds, outside the fit's terms and its interval
    guard(f("expected_prefill_seconds", "forecast_step_time", "expected time of the prompt's "
            "prefill", step_time="prefill_seconds", overhead_fraction="fp_k",
            dequant_fraction=LIT(0), dequant_time=LIT(0), fixed_time="fp_tau",
            layer_time="fp_lambda"), "forecast_prefill"),
    f("expected_prefill_seconds_low", "forecast_end_time", "its interval's fast end",
      forecast_time="expected_prefill_seconds", interval_ratio="fp_high",
      step_time="prefill_seconds"),
    f("expected_prefill_seconds_high", "forecast_end_time", "its interval's slow end",
      forecast_time="expected_prefill_seconds", interval_ratio="fp_low",
      step_time="prefill_seconds"),
    op("expected_ttft_seconds", "add", "expected time to first token: the encoders' bounds, "
       "then the prefill's forecast", plus=["expected_prefill_seconds", "encoders_ttft_seconds"]),
    op("expected_ttft_seconds_low", "add", "its interval's fast end",
       plus=["expected_prefill_seconds_low", "encoders_ttft_seconds"]),
    op("expected_ttft_seconds_high", "add", "its interval's slow end",
       plus=["expected_prefill_seconds_high", "encoders_ttft_seconds"]),
] + _forecast_of("fc_tpot", "tpot_seconds", "speculative_tpot_seconds",
                 "the TPOT bound") + [
    op("expected_tpot_seconds", "div", "expected time per output token",
       of=["fc_tpot_step", "fc_tokens"]),
    op("expected_tpot_seconds_low", "div", "the interval's fast end",
       of=["fc_tpot_fast", "fc_tokens"]),
    op("expected_tpot_seconds_high", "div", "the interval's slow end",
       of=["fc_tpot_slow", "fc_tokens"]),
    f("expected_tokens_per_second_per_chip", "tokens_per_chip", "expected tokens/s per chip",
      tpot="expected_tpot_seconds"),
    f("expected_tokens_per_second_per_chip_low", "tokens_per_chip", "its interval's low end",
      tpot="expected_tpot_seconds_high"),
    f("expected_tokens_per_second_per_chip_high", "tokens_per_chip", "its interval's high end",
      tpot="expected_tpot_seconds_low"),
]


#: What a serving engine allocates on one chip (:mod:`llm_arithmetic.engine` gives the
#: engine's rules as inputs): a paged engine (vLLM, SGLang) cuts the memory its share of the
#: chip leaves beside the weights and its reserve into blocks of tokens, every layer counted
#: whole; llama.cpp allocates a number of cells per layer, windowed layers only their window.
ENGINE_STEPS: list[dict[str, Any]] = [
    guard(s("engine_target_kv_bytes_per_token", "kv_layer_chip", "cache one token adds to the "
            "target's layers on one chip: every attention layer, its key/value heads split over "
            "tp (at least one a chip)"), "engine"),
    # A speculative draft (a draft model, or the model's MTP module) on vLLM: its weights are
    # loaded in the same memory profile as the target's, and its attention layers take pages
    # of the same pool (vllm/v1/worker/gpu_model_runner.py, load_model and get_kv_cache_spec;
    # engines.toml says where); engine.py gives the draft's stack only where that was read
    guard(op("engine_draft_kv_bytes_per_token", "at", "cache one token adds to the draft's "
             "layers on one chip (its stack in the target's terms)",
             target="engine_target_kv_bytes_per_token", **{"with": {"blocks": "draft_blocks"}}),
          "draft_blocks", 0),
    guard(op("engine_kv_bytes_per_token", "add", "cache one token adds on one chip: the "
             "target's layers and the draft's", plus=["engine_target_kv_bytes_per_token",
                                                      "engine_draft_kv_bytes_per_token"]),
          "engine"),
    guard(op("engine_weights_bytes", "div", "weights as loaded on one chip: the replica's "
             "weights, the draft's with the target's, every copy counted, over its chips",
             of=["resident_weight_bytes_held", "n_chips"]), "engine"),
    guard(op("engine_draft_weights_bytes", "div", "the draft's weights as loaded on one chip "
             "(in the weights above), every copy counted",
             of=["draft_weights_held", "n_chips"]), "engine"),
    guard(f("engine_kv_budget", "engine_kv_memory", "memory the engine's share of the chip "
            "leaves for the cache beside the weights and its reserve",
            mem_fraction="engine_fraction", weight_bytes="engine_weights_bytes",
            overhead="engine_reserve"), "engine_fraction"),
    guard(f("engine_free_budget", "engine_kv_memory", "memory a share of what is free after "
            "the weights and the reserve leaves for the cache (TensorRT-LLM)",
            capacity="engine_free_memory", mem_fraction="engine_free_fraction", weight_bytes=0,
            overhead=0), "engine_free_fraction"),
    guard(op("engine_free_memory", "add", "memory free on one chip after the weights and the "
             "reserve", plus=["capacity"], minus=["engine_weights_bytes", "engine_reserve"]),
          "engine_free_fraction"),
    op("engine_pool_memory", "first", "memory of the cache pool: as the engine printed it, or "
       "by its rule", of=["engine_kv_memory_given", "engine_kv_budget", "engine_free_budget"]),
    guard(f("engine_paged_tokens", "pool_tokens", "tokens the paged pool holds, in whole "
            "blocks", kv_budget="engine_pool_memory",
            kv_cache_bytes_per_token="engine_kv_bytes_per_token", page_tokens="engine_page"),
          "engine_page"),
    # vLLM's pool for a hybrid model (engine_hybrid): the state in pages of the same pool
    guard(s("engine_attn_layers", "attention_layer", "attention layers of the stack"),
          "engine_hybrid"),
    guard(s("engine_state_layers", "state_layer", "constant-state layers of the stack"),
          "engine_hybrid"),
    guard(op("engine_kv_layer_bytes", "mean", "cache one token adds to one attention layer on "
             "one chip", term="kv_layer_chip"), "engine_hybrid"),
    guard(op("engine_state_at_conv", "mean", "one state layer's state, every element at the "
             "convolution state's bits", term="state", args={"bits_state": "engine_bits_conv"}),
          "engine_hybrid"),
    guard(op("engine_matrix_at_ssm", "mean", "one state layer's recurrent matrix at the bits "
             "the engine keeps it in (--mamba-ssm-cache-dtype; none for a short convolution or "
             "lightning layer, kept whole at the convolution state's bits)",
             term="engine_ssm_matrix",
             args={"bits_state": "engine_bits_ssm"}), "engine_hybrid"),
    guard(op("engine_matrix_at_conv", "mean", "one state layer's recurrent matrix at the "
             "convolution state's bits", term="engine_ssm_matrix",
             args={"bits_state": "engine_bits_conv"}), "engine_hybrid"),
    op("engine_state_page", "add", "one state layer's page before padding: its convolution "
       "window and its matrix, each at its own bits (vLLM's mamba page size)",
       plus=["engine_state_at_conv", "engine_matrix_at_ssm"], minus=["engine_matrix_at_conv"]),
    f("engine_block_tokens", "hybrid_page_tokens", "attention block size: the attention page "
      "raised to hold one state page", state_bytes="engine_state_page",
      kv_layer_bytes="engine_kv_layer_bytes", page_tokens="engine_page",
      page_align="engine_page_align"),
    op("engine_page_bytes", "mul", "one page of one layer: the attention page, the state page "
       "padded to it", of=["engine_block_tokens", "engine_kv_layer_bytes"]),
    f("engine_group_layers", "group_layers", "layers of one KV cache group",
      n_attn_layers="engine_attn_layers", n_state_layers="engine_state_layers"),
    f("engine_attn_groups", "kv_groups", "KV cache groups of the attention layers",
      n_layers="engine_attn_layers", group_layers="engine_group_layers"),
    f("engine_state_groups", "kv_groups", "KV cache groups of the state layers",
      n_layers="engine_state_layers", group_layers="engine_group_layers"),
    op("engine_kv_groups", "add", "KV cache groups of the pool",
       plus=["engine_attn_groups", "engine_state_groups"]),
    op("engine_group_token_bytes", "mul", "bytes one token of a block takes in one group's "
       "layers", of=["engine_kv_layer_bytes", "engine_group_layers"]),
    f("engine_pool_slots", "pool_tokens", "the pool's blocks times the block size",
      kv_budget="engine_pool_memory", kv_cache_bytes_per_token="engine_group_token_bytes",
      page_tokens="engine_block_tokens"),
    op("engine_pool_blocks", "div", "blocks of the pool, each one page of every layer of a "
       "group", of=["engine_pool_slots", "engine_block_tokens"]),
    f("engine_hybrid_tokens", "hybrid_tokens", "tokens vLLM prints for a hybrid's pool",
      pool_blocks="engine_pool_blocks", kv_groups="engine_kv_groups",
      page_tokens="engine_block_tokens"),
    op("engine_hybrid_bytes", "mul", "bytes of a hybrid's pool",
       of=["engine_pool_slots", "engine_group_token_bytes"]),
    f("engine_hybrid_concurrency", "hybrid_concurrency", "requests of the longest length a "
      "hybrid's pool holds at once", pool_blocks="engine_pool_blocks",
      attn_groups="engine_attn_groups", state_groups="engine_state_groups",
      max_model_len="engine_max_model_len", page_tokens="engine_block_tokens",
      state_blocks="engine_state_blocks"),
    op("engine_pool_tokens", "first", "tokens of the paged pool as the engine prints them",
       of=["engine_hybrid_tokens", "engine_paged_tokens"]),
    op("engine_paged_bytes", "mul", "bytes of a pool of whole blocks of every layer",
       of=["engine_paged_tokens", "engine_kv_bytes_per_token"]),
    op("engine_pool_bytes", "first", "bytes of the paged pool",
       of=["engine_hybrid_bytes", "engine_paged_bytes"]),
    guard(f("engine_ctx_cells", "padded_cells", "cells llama.cpp allocates per full layer",
            context="engine_ctx", cell_pad="engine_pad"), "engine_ctx"),
    guard(s("engine_cells_bytes", "engine_kv_stored", "llama.cpp's cache: every layer's cells, "
            "windowed layers their window and a micro-batch"), "engine_ctx"),
    op("engine_kv_cache_bytes", "first", "bytes of the cache the engine allocates on one chip",
       of=["engine_pool_bytes", "engine_cells_bytes"]),
    guard(op("engine_state_bytes", "mul", "recurrent state llama.cpp keeps beside the cache: "
             "every sequence's state of the state-space layers", of=["state_bytes",
                                                                      "engine_seqs"]),
          "engine_ctx"),
    op("engine_kv_cache_tokens", "first", "tokens of cache the engine has (a paged pool's "
       "tokens, llama.cpp's cells)", of=["engine_pool_tokens", "engine_ctx_cells"]),
    guard(op("engine_paged_concurrency", "div", "requests of the longest length a pool of "
             "every layer holds at once", of=["engine_paged_tokens", "engine_max_model_len"]),
          "engine_max_model_len"),
    op("engine_max_concurrency", "first", "requests of the longest length the paged pool "
       "holds at once (the 'maximum concurrency' vLLM prints)",
       of=["engine_hybrid_concurrency", "engine_paged_concurrency"]),
    guard(f("physics_kv_memory", "engine_kv_memory", "the bound's memory for the cache on one "
            "chip: all of it beside the weights, no reserve", mem_fraction=1,
            weight_bytes="engine_weights_bytes", overhead=0), "engine"),
    guard(f("physics_pool_tokens", "pool_tokens", "tokens of cache the bound fits on one chip, "
            "every layer counted whole", kv_budget="physics_kv_memory",
            kv_cache_bytes_per_token="engine_kv_bytes_per_token", page_tokens=1), "engine"),
    # llama.cpp allocates a windowed layer's cells at its window and a micro-batch, whatever the
    # context (swa_cells; ggml-org/llama.cpp@2aef9767d982beb7ab61b3ae359366f627eb74dd
    # src/llama-kv-cache-iswa.cpp: size_swa = GGML_PAD(min(size_base, n_swa*n_seq_max +
    # n_ubatch), 256), size_base unless --swa-full): its capacity is the largest context whose
    # cells, every layer as llama.cpp allocates it, fit in that memory
    guard(s("engine_capacity_bytes", "engine_kv_stored", "the cache llama.cpp allocates at a "
            "context of engine_capacity_cells cells",
            args={"engine_ctx_cells": "engine_capacity_cells"}),
          "engine_ctx"),
    guard(op("physics_cells_tokens", "solve", "tokens of cache the bound fits on one chip, "
             "every layer as llama.cpp allocates it (windowed layers their window)",
             solver="largest", var="engine_capacity_cells", value="engine_capacity_bytes",
             budget="physics_kv_memory", limit=LIT(1 << 32)), "engine_ctx"),
    op("physics_kv_tokens", "first", "tokens of cache the bound fits on one chip beside the "
       "weights, no reserve, as the engine allocates each layer",
       of=["physics_cells_tokens", "physics_pool_tokens"]),
]

PLAN: list[dict[str, Any]] = (MODEL_STEPS + ESTIMATE_STEPS + SPECULATIVE_STEPS + FORECAST_STEPS
                              + ENGINE_STEPS)

#: Every input the plan reads.
INPUTS = ("blocks", "n_vocab", "d_model", "tied", "n_positions", "norm_vecs_final",
          "head_bias", "extras_in_total", "extras_read", "extras_matmul", "extras_copied",
          "d_ple", "n_vocab_ple", "altup_num_inputs", "native_format", "native_bits_default",
          "native_bits_experts", "native_bits_unread", "native_bits_draft",
          "native_bits_draft_experts", "native_bits_draft_inputs", "native_bits_draft_blocks",
          "native_bits_copy_heads", "native_bits_copy_matrices",
          "native_bits_copy_router", "native_bits_copy_plain", "native_format_draft",
          "native_bits_head", "native_bits_draft_copy_heads", "native_bits_draft_copy_matrices",
          "native_bits_draft_copy_router", "native_bits_draft_copy_plain", "is_moe",
          "n_active_experts",
          "context", "batch", "prompt", "generate", "overhead", "tp", "ep", "pp",
          "given_link_latency", "overlap", "allreduce_asked", "node_limit", "dispatch_bits",
          "price_per_hour", "bits_weight", "weight_format", "bits_kv", "bits_state",
          "bits_ssm", "chip_bandwidth", "chip_capacity", "chip_power", "chip_peaks",
          "chip_interconnect", "chip_vendor",
          "given_bandwidth", "given_peak_flops", "given_capacity", "given_power",
          "given_link_bandwidth", "context_limit", "crossing_limit",
          "draft_len", "acceptance", "draft_cost", "draft_layers", "draft_step_blocks",
          "module_copied_params", "own_bits_blocks", "own_bits_experts", "own_inputs_read",
          "own_bits_inputs", "own_bits_head", "draft_weight_bytes",
          "draft_params", "draft_embedding_params", "draft_head_params", "draft_blocks",
          "draft_d_model", "draft_final_norm_params", "draft_bits_default",
          "forecast_decode",
          "forecast_prefill", "forecast_prefill_int8", "build_age",
          "engine", "engine_fraction", "engine_free_fraction", "engine_reserve", "engine_page",
          "engine_kv_memory_given", "engine_ctx", "engine_ubatch", "engine_seqs", "engine_pad",
          "engine_swa_full", "engine_capacity_cells", "engine_max_model_len", "engine_hybrid",
          "engine_page_align",
          "engine_bits_conv", "engine_bits_ssm", "engine_state_blocks",
          "images", "image_tokens_per_image", "vision_prefill_flops", "vision_params",
          "vision_patches", "d_vision", "vision_layers", "vision_mergers", "vision_split_params",
          "vision_whole_flops", "video_tokens", "image_states", "cross_layers", "cross_heads",
          "cross_kv_heads", "cross_d_head",
          "audio_params", "audio_prefill_flops", "audio_rows", "d_audio", "audio_layers",
          "audio_split_params", "audio_whole_flops")
