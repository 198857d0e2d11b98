"""Estimates for a model on a chip: everything the command line reports, from the formulas.

:func:`estimate` joins a model, a precision, a workload and (optionally) a chip into an
:class:`Estimate`: exact counts, bytes and FLOPs of a decode step, and the roofline bounds.
Without a bandwidth there are no times; without a peak rate there is no compute time and no
critical batch size; without a capacity, no fit. :func:`~llm_arithmetic.sweeps.sweep` evaluates
the same bounds over arrays of contexts and batches, for several formats and chips at once, and
:func:`~llm_arithmetic.sweeps.frontier` over batch sizes.

Its parts live beside it, each in a module of its own: the checks of the arguments
(:mod:`llm_arithmetic.arguments`), the weights counted (:mod:`~llm_arithmetic.weights`), the
layout on chips and the chip's figures (:mod:`~llm_arithmetic.layout`), speculative decoding's
drafts (:mod:`~llm_arithmetic.speculative`) and the images, video and audio in a prompt
(:mod:`~llm_arithmetic.media`).

Units are those of the package everywhere: bytes [B], bandwidth [B/s], arithmetic [FLOP/s],
time [s], memory capacity [B]. A bandwidth, peak or capacity that is implausibly small for its
unit (a figure in GB/s passed as B/s, say) is refused with a message that says so.

>>> e = estimate("llama-2-7b", bandwidth=1935e9, peak_flops=312e12, context=1)
>>> e.weight_bytes, round(e.decode_seconds_per_token * 1e3, 2)
(13476831232, 6.83)
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, fields
from fractions import Fraction
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np

from .arguments import (LIMITS, ContextWarning, count_argument, generated_argument,
                        number_argument, rate_argument, resolve_model, serving_argument,
                        warn_past_trained_context)
from .catalog.formats import bits_per_weight, plan_format
from .catalog.hardware import Hardware, get_hardware
from .catalog.model import Model, stack_blocks
from .core.errors import InputError
from .core.records import record
from .layout import (check_direct, chip_inputs, comm_options, latency_argument,
                     parallel_degrees)
from .media import (AUDIO_FIELDS, VIDEO_FIELDS, cross_inputs, encoder_degrees,
                    prompt_with_images, vision_plan_inputs)
from .numeric._runtime import exact_result
from .plan.interpreter import Evaluator
from .speculative import (NOTHING_HELD, SPECULATIVE_WORKLOADS, draft_held,
                          module_copied_params, speculative_workload)
from .weights import warn_block_format, weight_inputs, weights_as

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Estimate", "estimate", "STATE_WINDOW_BITS", "INPUT_FIELDS", "FIELD_STEPS",
           "CROSSING_LIMIT", "prefill_peak_for", "decode_peak_for", "plan_inputs",
           "draft_step_ratio", "speculative_inputs", "evaluated_plan"]

#: Bits of a constant-state layer's convolution window (Mamba-2, Gated DeltaNet, KDA): the
#: model's 16-bit dtype, whatever the KV cache's bits: vLLM keeps it in --mamba-cache-dtype,
#: whose "auto" is the model's dtype, not the KV cache's (MambaStateDtypeCalculator,
#: references.bib vllm2026mambastatedtype); the recurrent matrix has its own bits (bits_ssm).
STATE_WINDOW_BITS = 16


@record
class Estimate:
    """What :func:`estimate` computes; field names are the command line's JSON keys.

    Units: counts [-], bytes [B], FLOPs [FLOP], rates [B/s] and [FLOP/s], times [s], tokens
    [token].

    Attributes
    ----------
    model, hardware : str
        Catalog names (or the names given).
    bits_weight : float
        Bits per weight [bit]; the effective average where parts of the model are stored at
        different precisions (gpt-oss's MXFP4 experts).
    bits_kv : float
        Bits per cached element [bit].
    context, batch : int
        Tokens in each sequence's cache at the decode step [token]; sequences decoded
        together [-].
    attended_context : int or float
        Cached positions a step reads per attention layer, on average (windows applied) [token].
    experts_read : int or float
        Routed experts per MoE block the step reads (uniform routing) [-]; 1 for a dense model.
    bandwidth, peak_flops : float or None
        Memory bandwidth [B/s] and the dense peak used [FLOP/s].
    compute_precision : str
        The precision whose peak ``peak_flops`` is: the weights' products run at it.
    attention_precision : str
        The precision whose peak attention's products (scores and weighted values over the
        cache, a layer's recurrence) run at: the cache's (16-bit for a 16-bit cache; fp8 for a
        cache of at most 8 bits on a chip with an fp8 rate), not the weights'.
    attention_peak_flops : float or None
        Its dense peak [FLOP/s]; every compute time takes the weights' FLOPs at ``peak_flops``
        and attention's at this rate.
    capacity : int or None
        Memory [B].
    params_total : int
        The published total: the decoder and what the published figure counts besides
        (Gemma 3's vision tower) [-].
    params_language_model : int
        The decoder alone: what decoding a token reads from, besides an extra every token
        reads (DeepSeek-V4's hyper-connection head) [-].
    params_extra : dict
        Parameters beyond the decoder, by name (in the total or not, as each says) [-].
    params_extra_in_total : dict
        For each of ``params_extra``, whether ``params_total`` counts it (a vision tower the
        published total includes: True; a multi-token-prediction module: False) [-].
    weights_as : str
        Which weights were counted: ``"as shipped: fp8 block-scaled 128x128"`` (the
        checkpoint's ``quantization_config``), ``"as shipped: 16-bit"``, or the format or bits
        asked for.
    params_active, params_matmul, params_read_per_token : int
        Used per token; in matrix products per token; read by one decode step of one token [-].
    weight_bytes : int or float
        All the weights [B].
    kv_cache_bytes_per_token : int or float
        Cache one token adds before any window fills, all layers, K and V [B].
    kv_cache_bytes : int or float
        Cache of ``batch`` sequences of ``context`` tokens as runtimes store it (a windowed layer
        keeps its window, latent attention its latent) [B].
    kv_cache_bytes_full_storage : int or float
        The same if every layer kept every token [B].
    state_bytes : int or float
        State of the state-space layers, all sequences [B].
    state_matrix_bytes : int or float
        The recurrent matrices' part of ``state_bytes``, at the bits they are kept in: the
        dtype the checkpoint's config.json names (Nemotron-H's ``mamba_ssm_cache_dtype``,
        Qwen3.5's ``mamba_ssm_dtype``), float32 for Kimi delta attention, else the state's 16
        bits; ``bits_ssm`` where asked. The rest of ``state_bytes`` is the convolution windows,
        at 16 bits [B].
    decode_bytes_per_token : int or float
        Bytes one decode step of one sequence reads: the weights it uses and its cache [B].
    decode_step_bytes, decode_flops_per_token : int or float
        Bytes of one step of the whole batch [B]; FLOPs per token [FLOP].
    decode_memory_seconds, decode_compute_seconds, decode_seconds_per_token : float or None
        Memory time, compute time and their maximum, the bound on one step [s].
    decode_tokens_per_second, throughput_tokens_per_second : float or None
        Tokens/s of one stream and of the whole batch at that bound [token/s].
    bound : str or None
        ``"memory"`` or ``"compute"``.
    ops_per_byte : float or None
        The chip's ops:byte ratio at ``compute_precision`` [FLOP/B].
    critical_batch_size : float or None
        Batch at which decode turns compute-bound; None when it never does [-].
    memory_required_bytes : int or float
        Weights, cache, state and the reserve [B].
    fits : bool or None
    max_batch : int or None
        Sequences of ``context`` tokens that fit [-].
    max_context : int or None
        Tokens per sequence that fit at ``batch`` (None: unbounded, every layer windowed)
        [token].
    trained_context : int or None
        The context the model was trained for [token].

    Serving (a replica of ``n_chips`` = tp x pp chips; every key above keeps its one-chip
    meaning):

    tp, ep, pp, n_chips : int
        Tensor-, expert- and pipeline-parallel degrees; chips of the replica (tp x pp; the
        experts are split ep ways over the same chips).
    prompt, generate : int or None
        Prompt tokens, and tokens generated after the first (the decode steps) [token].
    serving_context : int or float
        Tokens in each sequence's cache at the decode step that ``tpot_seconds`` bounds: the mean
        over the request's decode steps, prompt + (generate + 1) / 2, with a prompt; else
        ``context`` [token].
    link_bandwidth, link_latency : float or None
        The slowest link the chips use, per direction [B/s], and the latency of one collective
        step on it [s].
    scale_up_bandwidth, scale_out_bandwidth : float or None
        Per-direction bandwidth inside one scale-up domain and between domains [B/s] (both the
        given ``link_bandwidth`` where one is given).
    scale_up_latency, scale_out_latency : float or None
        Latency of one collective step on each tier: as given, the catalog's sourced figure,
        or the stated default :data:`~llm_arithmetic.catalog.hardware.DEFAULT_LATENCY` [s].
    allreduce_algorithm : str
        The algorithm of the bound's all-reduces inside a scale-up domain: ``"switch"``
        (in-switch reduction, NVLink SHARP), ``"direct"`` (one- or two-stage direct
        all-reduces on a fully connected domain) or ``"ring"``. Where the switch reduces and
        none is asked, the faster of the switch and direct at this batch.
    overlap : bool
        Whether the bounds overlap communication with the work (the default) or add it.
    node_limit, dispatch_bits : int, float or None
        Most destinations (nodes) a token's experts may be on; bits of a dispatched
        activation (the combine is 16-bit).
    ttft_seconds : float or None
        Lower bound on the time to first token of a prompt alone on the replica: its prefill
        split over tp chips (the pipeline's stages take turns), its all-reduces and
        all-to-alls overlapped with the work (``overlap``) or after it [s].
    tpot_seconds : float or None
        Lower bound on the time per output token at ``batch``, communication overlapped with
        the work (or after it when ``overlap`` is false) [s].
    ttft_serialized_seconds, tpot_serialized_seconds : float or None
        The same with the communication after the work: the serialized sum, not a bound on an
        engine that overlaps [s].
    request_seconds : float or None
        ``ttft_seconds`` + ``generate`` x ``tpot_seconds`` [s].
    tokens_per_second_per_user, tokens_per_second_per_chip : float or None
        1 / TPOT, and batch / TPOT / n_chips [token/s].
    cost_per_million_tokens : float or None
        Price of a million generated tokens at ``price_per_hour`` per chip [USD].
    energy_joules_per_token : float or None
        Board energy per generated token, at ``power_watts`` per chip [J].
    allreduce_seconds_per_token, alltoall_seconds_per_token : float or None
        Tensor-parallel all-reduces, and expert-parallel all-to-alls, inside one TPOT (0 on one
        chip; None when no link bandwidth is known, TPOT then leaving them out) [s].
    allgather_seconds_per_token : float or None
        Tensor-parallel all-gathers inside one TPOT: the output head's logits over the
        vocabulary for every token of the step, and a per-layer embedding projection's (0 on one
        chip; None as above) [s].
    price_per_hour, power_watts : float or None
        [USD/h] per chip, [W] per chip.
    draft_len, acceptance, draft_cost : int, float, float or None
        Speculative decoding's inputs: tokens drafted per step, the probability that the target
        accepts each, a draft step's time relative to a plain step (None: no speculation;
        the ``mtp`` workload's: the roofline time of one step of the module, its projection,
        blocks and the output head, over a plain step's, each the larger of its bytes over the
        bandwidth and its FLOPs over the peak, at the call's bits, context and batch; the ratio
        of their bytes where both are memory-bound, or where no bandwidth is known).
    draft_chip_cost : float or None
        The share of a plain step a draft step takes on the replica, which
        ``speculative_tpot_seconds`` charges: ``draft_cost`` where given; the ``mtp`` workload's,
        one chip's roofline time of the module's step over one chip's of a plain step, each on
        the whole tensor-parallel group with every chip's copies and cache counted (the
        module's input projection whole on every chip where the engine does not split it,
        :data:`~llm_arithmetic.speculative.MODULE_INPUTS_COPIED`); ``draft_cost`` at tp 1.
    draft_layers : int or None
        Blocks one draft step runs [block]: a ``draft`` model's layers, one module's blocks for
        MTP; None where only a cost was given. The forecast charges each its per-layer time.
    draft_memory_bytes : int or float or None
        What the draft holds on one chip beside the target: a draft model's weights (at its
        own bits) and its cache and state of ``batch`` sequences at ``context``; the ``mtp``
        workload's module weights and cache; None without a draft, or for a draft given by its
        cost alone (nothing held is counted), as the engine view's draft keys are.
        ``memory_required_bytes``, ``fits``, ``max_batch``, ``max_context`` and the replica's
        memory count it (the replica's split over its chips as the target's) [B].
    fits_without_draft, fits_per_chip_without_draft : bool or None
        Where a draft is held: whether the target alone fits on the chip, and on the replica's
        chips (``fits`` and ``fits_per_chip`` count the draft); a setup whose ``fits`` is
        False and ``fits_without_draft`` True does not fit only because of its draft. None
        without a draft held, or without a chip.
    spec_tokens_per_step : float or None
        Tokens a speculative step yields on average [token].
    speculative_seconds_per_token, speculative_tokens_per_second : float or None
        The decode bound with speculation: (k drafts + the verify step) over the tokens a step
        yields, the verify step's roofline charged k + 1 times the FLOPs [s], [token/s].
    speculative_tpot_seconds, speculative_tokens_per_second_per_chip : float or None
        The same on the replica [s], [token/s].
    speculative_request_seconds, speculative_cost_per_million_tokens, \
speculative_energy_joules_per_token : float or None
        ``request_seconds``, ``cost_per_million_tokens`` and ``energy_joules_per_token`` at the
        speculative time per output token (the plain keys keep the plain one) [s], [USD], [J].
    images, image_size : int and (int, int), or None
        Images in the prompt and the size of each, width x height [px] (None: no images).
    image_tokens_per_image, image_tokens : int or None
        Tokens one image adds to the prompt, by the model's processor's rule
        (:mod:`llm_arithmetic.catalog.images`), and all the images' (included in ``prompt``)
        [token].
    vision_patches_per_image : int or None
        Tokens the vision tower runs for one image (patches of every crop, class tokens) [token].
    vision_prefill_flops, vision_weight_bytes, vision_prefill_seconds : number or None
        The tower's and merger's FLOPs over the images
        (:data:`~llm_arithmetic.formulas.vision.vision_prefill_flops`) [FLOP], their weights at
        16 bits (32 for fp32 weights; a quantized checkpoint keeps its tower at 16), read once
        [B], and the roofline of the two at the chip's 16-bit peak
        (:data:`~llm_arithmetic.formulas.vision.vision_prefill_time`; None without a
        bandwidth), which ``ttft_seconds`` (and every key built on it) includes [s]. With a
        video in the prompt they count its frames too.
    video_seconds, video_fps, video_size : float, float and (int, int), or None
        A video in the prompt: its length [s], the frames sampled a second [1/s] and the frame
        size, width x height [px] (None: no video).
    video_frames, video_tokens, video_separator_tokens, video_patches : int or None
        The frames the processor samples, the video's placeholder tokens (included in
        ``prompt``), the text tokens it writes between frame groups (Qwen3-VL's and GLM-4.5V's
        timestamps and delimiters; 0 for Qwen2-VL; the omni processors' ``<|audio_bos|>`` and
        ``<|audio_eos|>`` around a video interleaved with its audio track; included in
        ``prompt``) and the patches the tower runs (:mod:`llm_arithmetic.catalog.video`) [token].
    video_audio : bool or None
        Whether the video's audio track joins the prompt (omni models; its tokens and frames
        count in ``audio_tokens`` and ``audio_frames``, the encoder's work in the audio
        encoder's keys; ``audio_seconds`` stays the prompt's own clips) (None: no video).
    audio_seconds, audio_frames, audio_tokens : float (a tuple for several clips), int and int, or None
        Audio in the prompt: its length [s] as given (one clip's, or each clip's), the mel
        frames the feature extractor makes of it and the tokens it adds (included in
        ``prompt``), summed over the clips, by the model's processor's rule
        (:mod:`llm_arithmetic.catalog.audio`) [token] (None: no audio).
    audio_prefill_flops, audio_weight_bytes, audio_prefill_seconds : number or None
        The audio encoder's FLOPs over the clips [FLOP], its weights at 16 bits [B] and the
        roofline of the two (split over a tensor-parallel group as vLLM splits it), which
        ``ttft_seconds`` includes [s].
    image_states, cross_kv_flops, image_kv_bytes : int or None
        A cross-attention model's images (Llama 3.2 Vision,
        :func:`~llm_arithmetic.media.cross_image_inputs`): the tower's states of the images' own
        tiles that the language model's cross-attention layers read [token], those layers' key and
        value projections of them, run once a sequence in the language model (included in
        ``vision_prefill_flops``) [FLOP], and the keys and values one sequence caches, at
        ``bits_kv`` [B] (None: no such images).
    memory_per_chip_bytes : float
        Weights and state split over the chips, the cache (at the end of the request, or at
        ``context``) as each chip stores it (under tensor parallelism at least one key/value head
        per layer, and a latent cache whole), plus the reserve [B]. The weights are counted as
        ``weight_bytes_per_chip``.
    weight_bytes_held : float
        The model's weights on one replica with every chip's copy counted: ``weight_bytes``
        (one copy) plus the extra copies of what tensor parallelism holds whole on every chip
        (key/value heads past one a chip, latent down-projections, an indexer, routers, norms;
        :data:`llm_arithmetic.formulas.engine.held_params`); ``weight_bytes`` at tp 1 [B].
    draft_copy_bytes : float
        The draft's extra copies on one replica, as ``weight_bytes_held`` counts the model's:
        what tensor parallelism holds whole on every chip of a draft model's or a
        multi-token-prediction module's blocks (and a draft model's final norm), at the draft's
        bits; 0 without a draft or at tp 1 [B].
    weight_bytes_per_chip : float
        The weights one chip of the replica holds, the draft's with the target's: the replica's,
        every copy counted, over its chips (on average over the pipeline stages) [B].
    fits_per_chip : bool or None
    max_batch_per_replica : int or None
        Sequences that fit on the replica at that context [-].
    """

    model: str
    hardware: str | None
    bits_weight: float
    bits_kv: float
    context: int
    attended_context: int | float
    batch: int
    experts_read: int | float
    bandwidth: float | None
    peak_flops: float | None
    compute_precision: str
    attention_precision: str
    attention_peak_flops: float | None
    capacity: int | None
    params_total: int
    params_language_model: int
    params_extra: dict
    params_extra_in_total: dict
    params_active: int
    params_matmul: int
    params_read_per_token: int
    weight_bytes: int | float
    kv_cache_bytes_per_token: int | float
    kv_cache_bytes: int | float
    kv_cache_bytes_full_storage: int | float
    state_bytes: int | float
    state_matrix_bytes: int | float
    decode_bytes_per_token: int | float
    decode_step_bytes: int | float
    decode_flops_per_token: int | float
    decode_memory_seconds: float | None
    decode_compute_seconds: float | None
    decode_seconds_per_token: float | None
    decode_tokens_per_second: float | None
    throughput_tokens_per_second: float | None
    bound: str | None
    ops_per_byte: float | None
    critical_batch_size: float | None
    memory_required_bytes: int | float
    fits: bool | None
    max_batch: int | None
    max_context: int | None
    trained_context: int | None
    tp: int = 1
    ep: int = 1
    pp: int = 1
    n_chips: int = 1
    prompt: int | None = None
    generate: int | None = None
    serving_context: int | float = 1
    link_bandwidth: float | None = None
    link_latency: float | None = None
    scale_up_bandwidth: float | None = None
    scale_out_bandwidth: float | None = None
    scale_up_latency: float | None = None
    scale_out_latency: float | None = None
    allreduce_algorithm: str = "ring"
    overlap: bool = True
    node_limit: int | None = None
    dispatch_bits: float | None = None
    ttft_serialized_seconds: float | None = None
    tpot_serialized_seconds: float | None = None
    ttft_seconds: float | None = None
    tpot_seconds: float | None = None
    request_seconds: float | None = None
    tokens_per_second_per_user: float | None = None
    tokens_per_second_per_chip: float | None = None
    cost_per_million_tokens: float | None = None
    energy_joules_per_token: float | None = None
    allreduce_seconds_per_token: float | None = None
    alltoall_seconds_per_token: float | None = None
    allgather_seconds_per_token: float | None = None
    price_per_hour: float | None = None
    power_watts: float | None = None
    memory_per_chip_bytes: int | float = 0
    weight_bytes_held: int | float | None = None
    draft_copy_bytes: int | float | None = None
    weight_bytes_per_chip: int | float | None = None
    fits_per_chip: bool | None = None
    max_batch_per_replica: int | None = None
    draft_len: int | None = None
    acceptance: float | None = None
    draft_cost: float | None = None
    draft_chip_cost: float | None = None
    draft_layers: int | None = None
    draft_memory_bytes: int | float | None = None
    fits_without_draft: bool | None = None
    fits_per_chip_without_draft: bool | None = None
    spec_tokens_per_step: float | None = None
    speculative_seconds_per_token: float | None = None
    speculative_tokens_per_second: float | None = None
    speculative_tpot_seconds: float | None = None
    speculative_tokens_per_second_per_chip: float | None = None
    speculative_request_seconds: float | None = None
    speculative_cost_per_million_tokens: float | None = None
    speculative_energy_joules_per_token: float | None = None
    weights_as: str = ""
    images: int | None = None
    image_size: tuple | None = None
    image_tokens_per_image: int | None = None
    image_tokens: int | None = None
    vision_patches_per_image: int | None = None
    vision_prefill_flops: int | float | None = None
    vision_weight_bytes: int | float | None = None
    vision_prefill_seconds: float | None = None
    video_seconds: float | None = None
    video_fps: float | None = None
    video_size: tuple | None = None
    video_frames: int | None = None
    video_tokens: int | None = None
    video_separator_tokens: int | None = None
    video_patches: int | None = None
    video_audio: bool | None = None
    audio_seconds: float | tuple[float, ...] | None = None
    audio_frames: int | None = None
    audio_tokens: int | None = None
    audio_prefill_flops: int | None = None
    audio_weight_bytes: int | float | None = None
    audio_prefill_seconds: float | None = None
    image_states: int | None = None
    cross_kv_flops: int | None = None
    image_kv_bytes: int | float | None = None

    @property
    def encoders_ttft_seconds(self) -> Any:
        """The time the prompt's encoders run before its prefill, which ``ttft_seconds``
        includes: the vision tower's (``vision_prefill_seconds``) and the audio encoder's
        (``audio_prefill_seconds``), 0 without images, video or audio [s]. The plan's step of
        that name, which lists the encoders once; not a field (the JSON keys are each
        encoder's): a forecast of the time to first token forecasts the rest, the prefill, and
        adds this as it is (:func:`~llm_arithmetic.forecast.expected`).

        >>> e = estimate("qwen2.5-vl-3b-instruct", hardware="h100-sxm", images=1)
        >>> e.encoders_ttft_seconds == e.vision_prefill_seconds > 0
        True
        >>> estimate("llama-3.1-8b", hardware="h100-sxm", prompt=100).encoders_ttft_seconds
        0
        """
        return self._plan.get("encoders_ttft_seconds")

    def as_dict(self) -> dict[str, Any]:
        """The fields as JSON-ready values (exact numbers as int or float, inf as None)."""
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, Fraction):
                d[k] = exact_result(v)
            elif isinstance(v, float) and math.isinf(v):
                d[k] = None
        return d


#: Estimate fields that are the caller's inputs, checked, rather than steps of the plan (and a
#: cross-attention model's images' values, set only where such images are: None, not the
#: plan's 0, without them).
INPUT_FIELDS = ("model", "hardware", "bits_kv", "context", "batch", "params_extra",
                "params_extra_in_total", "weights_as",
                "trained_context", "tp", "ep", "pp", "prompt", "generate", "price_per_hour",
                "node_limit", "dispatch_bits", "draft_len", "acceptance", "draft_layers",
                "images", "image_size", "image_tokens_per_image", "vision_patches_per_image",
                "vision_prefill_flops", "video_tokens", "video_seconds", "video_fps",
                "video_size", "video_frames", "video_separator_tokens", "video_patches",
                "video_audio", "audio_seconds", "audio_frames", "audio_tokens", "audio_prefill_flops",
                "image_states", "cross_kv_flops", "image_kv_bytes")


#: Estimate fields whose step of the plan has another name.
_STEP_NAMES = {"bits_weight": "bits_weight_effective", "params_total": "total_params",
               "params_language_model": "language_model_params",
               "params_active": "active_params", "params_matmul": "matmul_params",
               "params_read_per_token": "decode_read_params", "state_bytes": "batch_state_bytes",
               "state_matrix_bytes": "batch_state_matrix_bytes",
               "decode_flops_per_token": "decode_flops", "power_watts": "power",
               "scale_up_bandwidth": "up_link", "scale_out_bandwidth": "out_link",
               "scale_up_latency": "up_latency", "scale_out_latency": "out_latency",
               "overlap": "overlapping", "allreduce_algorithm": "allreduce_used",
               "draft_cost": "draft_cost_used", "draft_chip_cost": "draft_chip_cost_used"}


#: Estimate field -> the plan's step that gives it.
FIELD_STEPS = {f.name: _STEP_NAMES.get(f.name, f.name) for f in fields(Estimate)
               if f.name not in INPUT_FIELDS}


#: Largest batch the critical-batch search tries before it says there is none.
CROSSING_LIMIT = 1e12


def _step_peak(step: str, model: Any, chip: Hardware, weights: Any, bits_kv: Any, name: str,
               at: Any) -> Any:
    """The plan's effective rate ``step`` of one step (``prefill_peak_or_inf``,
    ``decode_peak_or_inf``) on ``chip``, with the plan's input ``name`` (``prompt``,
    ``context``) at ``at``, checked as :func:`estimate` checks it: one rate for a number, an
    ndarray of one rate each for a sequence [FLOP/s]."""
    ev = estimate(model, hardware=chip, weights=weights, bits_kv=bits_kv)._plan
    rate = (lambda x: float(ev.child(**{name: count_argument(name, x)}).get(step)))
    return rate(at) if np.ndim(at) == 0 else np.array([rate(x) for x in at])


def prefill_peak_for(model: Any, chip: Hardware, weights: Any, prompt: Any,
                     bits_kv: Any = 16) -> Any:
    """The rate a prefill of ``prompt`` tokens takes its FLOPs at on ``chip``, as the estimate
    times it (the plan's ``prefill_peak_or_inf``): the weights' products at their format's rate
    and attention's at the cache's (:data:`~llm_arithmetic.formulas.roofline.step_peak_flops`);
    infinite where the chip lists no peak [FLOP/s]. For a sequence of prompts, one rate each
    (an ndarray). A chunked prefill has the same FLOPs, so the same rate.

    >>> r = prefill_peak_for("llama-3.1-8b", get_hardware("rtx-4090"), "q4_0", [1, 8192])
    >>> [round(float(x) / 1e12, 1) for x in r]
    [660.6, 582.9]
    """
    return _step_peak("prefill_peak_or_inf", model, chip, weights, bits_kv, "prompt", prompt)


def decode_peak_for(model: Any, chip: Hardware, weights: Any, context: Any,
                    bits_kv: Any = 16) -> Any:
    """The rate a decode step at ``context`` cached tokens takes its FLOPs at on ``chip``, as
    the estimate times it (the plan's ``decode_peak_or_inf``): the weights' products at their
    format's rate and attention's at the cache's
    (:data:`~llm_arithmetic.formulas.roofline.step_peak_flops`); infinite where the chip lists
    no peak [FLOP/s]. For a sequence of contexts, one rate each (an ndarray). Attention's share
    of a step's FLOPs does not depend on the batch, nor on how many tokens of each sequence a
    step verifies, so neither changes the rate.

    >>> round(decode_peak_for("llama-3.1-8b", get_hardware("rtx-4090"), "q4_0", 16384) / 1e12, 1)
    484.3
    """
    return _step_peak("decode_peak_or_inf", model, chip, weights, bits_kv, "context", context)


def plan_inputs(model: str | Path | Model, *, weights: Any = None, bits_weight: Any = None,
                bits_kv: Any = None, context: Any = 1, batch: Any = 1, bandwidth: Any = None,
                peak_flops: Any = None, capacity: Any = None, overhead: Any = 0, tp: Any = 1,
                ep: Any = 1, pp: Any = 1, prompt: Any = None, generate: Any = None,
                price_per_hour: Any = None, power_watts: Any = None, link_bandwidth: Any = None,
                link_latency: Any = None, overlap: Any = True, allreduce: Any = None,
                node_limit: Any = None, dispatch_bits: Any = None,
                bits_ssm: Any = None) -> dict[str, Any]:
    """:func:`estimate`'s arguments (its defaults, but no chip and no speculation) checked as
    it checks them (an :class:`InputError` naming a bad one; a
    :class:`~llm_arithmetic.arguments.ContextWarning` beyond the trained context) and named as the
    inputs of the model's plan, to which :func:`~llm_arithmetic.layout.chip_inputs` adds a chip's:
    what a caller that evaluates the plan itself starts from (a search over many points, or an
    input the estimate does not take, such as a format's compute precision beside a file's own
    bits: set ``weight_format`` to :func:`~llm_arithmetic.catalog.format_compute.plan_format`'s
    record).

    >>> from llm_arithmetic import get_model
    >>> m = get_model("llama-3.1-8b")
    >>> g = plan_inputs(m, weights="q4_0", context=4096)
    >>> g["context"], g["batch"], g["bits_weight"], g["weight_format"]["compute"]
    (4096, 1, Fraction(9, 2), 'int8')
    >>> t = m.plan.child(**chip_inputs(get_hardware("rtx-4090")), **g).get(
    ...     "decode_seconds_per_token")
    >>> t == estimate(m, hardware="rtx-4090", weights="q4_0", context=4096
    ...              ).decode_seconds_per_token
    True
    >>> plan_inputs(m, context=0)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: context must be a positive integer, got 0
    """
    m = resolve_model(model)
    context = count_argument("context", context)
    batch = count_argument("batch", batch)
    tp, ep, pp = parallel_degrees(m, tp, ep, pp)
    prompt = None if prompt is None else count_argument("prompt", prompt)
    generate = None if generate is None else generated_argument(generate)
    link_latency = latency_argument(link_latency)
    comm = comm_options(overlap=overlap, allreduce=allreduce, node_limit=node_limit,
                         dispatch_bits=dispatch_bits)
    if not isinstance(overhead, (Integral, np.integer)) or overhead < 0:
        raise InputError(f"overhead must be a non-negative integer [B], got {overhead!r:.40}")
    if capacity is not None:
        rate_argument("capacity", capacity)
        capacity = int(capacity)
    if m.cache_uncounted:  # the figures that need it come back missing (None): say why here
        warnings.warn(f"{m.name}: the KV cache and every figure that needs it are not counted "
                      f"(null): they need {m.cache_uncounted}", stacklevel=3)
    if m.trained_context and context > m.trained_context:
        warnings.warn(f"context {context:,} is beyond {m.name}'s trained context "
                      f"{m.trained_context:,} tokens", ContextWarning, stacklevel=3)
    warn_past_trained_context(m, prompt, generate, stacklevel=4)
    if bits_weight is None:
        warn_block_format(m, weights, stacklevel=3)
    kv_bits = bits_per_weight(m.native_kv_bits if bits_kv is None else bits_kv)
    if bits_ssm is not None:
        try:
            bits_ssm = bits_per_weight(bits_ssm)
        except InputError as err:
            raise InputError(f"bits_ssm: {err}") from None
    return dict(
        context=context, batch=batch, prompt=prompt, generate=generate, overhead=overhead,
        tp=tp, ep=ep, pp=pp, given_link_latency=link_latency, **comm,
        price_per_hour=serving_argument("price_per_hour", price_per_hour),
        **weight_inputs(m, weights, bits_weight), weight_format=plan_format(weights),
        bits_kv=kv_bits, bits_state=STATE_WINDOW_BITS, bits_ssm=bits_ssm,
        given_bandwidth=rate_argument("bandwidth", bandwidth),
        given_peak_flops=rate_argument("peak_flops", peak_flops), given_capacity=capacity,
        given_power=serving_argument("power_watts", power_watts),
        given_link_bandwidth=serving_argument("link_bandwidth", link_bandwidth),
        context_limit=LIMITS["context"], crossing_limit=CROSSING_LIMIT)


def draft_step_ratio(draft: Model, target: Model, **at: Any) -> float:
    """A draft model's step time over the target's, both on one chip at the workload ``at``
    (:func:`estimate`'s arguments): the bound of one decode step at ``context``, or, where
    ``at`` has a ``prompt``, the time per output token of a request (the step at the mean
    decode context P + (G + 1)/2) [-].

    >>> r1 = draft_step_ratio(resolve_model("qwen3-0.6b"), resolve_model("qwen3-8b"),
    ...                       hardware="h100-sxm", batch=64, context=1)
    >>> r2 = draft_step_ratio(resolve_model("qwen3-0.6b"), resolve_model("qwen3-8b"),
    ...                       hardware="h100-sxm", batch=64, prompt=8192, generate=256)
    >>> round(r1, 3) < round(r2, 3)    # the draft's own cache weighs more at a long context
    True
    """
    key = "tpot_seconds" if at.get("prompt") is not None else "decode_seconds_per_token"
    t = [getattr(estimate(x, **at), key) for x in (draft, target)]
    return t[0] / t[1]


def speculative_inputs(m: Model, *, speculation: str | None = None, draft_len: Any = None,
                       acceptance: Any = None, draft_cost: Any = None,
                       draft: Any = None, hardware: Any = None,
                       bandwidth: Any = None, at: dict[str, Any] | None = None,
                       tp: Any = 1, pp: Any = 1) -> dict[str, Any]:
    """Checked speculative-decoding inputs of the plan: a named workload
    (:data:`~llm_arithmetic.speculative.SPECULATIVE_WORKLOADS`), or a draft length with an
    acceptance rate and a draft cost (or a ``draft`` model, whose cost is its decode bound over the
    target's plain one on the same chip, both at the workload ``at`` of the call: its weights,
    cache format, context, batch and peak, on one chip; the draft keeps a cache of its own, so at a
    large batch or a long context its share grows, as chapter 13 shows). Where ``at`` has a
    ``prompt``, both bounds are a request's time per output token (:func:`draft_step_ratio`): the
    context is the request's mean decode context, the one the speculative TPOT multiplies. Explicit
    values override the workload's. All None: no speculation.

    What the draft holds beside the target
    (:func:`~llm_arithmetic.speculative.draft_memory_inputs`): a draft model's weights at its own
    bits (``weights``, ``bits_weight`` of ``at``) and its stack; the multi-token-prediction module
    of the ``mtp`` workload its parameters and blocks; a draft given by its cost alone nothing
    counted. A draft model is split over the replica's ``tp`` x ``pp`` chips as the target is,
    so those degrees must suit it too (:func:`~llm_arithmetic.speculative.draft_degrees`)."""
    draft_layers = None
    step_blocks = None
    w = speculative_workload(m, speculation, module_held=draft is None)
    if w is not None:
        draft_len = w["draft_len"] if draft_len is None else draft_len
        acceptance = w["acceptance"] if acceptance is None else acceptance
        if draft_cost is None and draft is None:
            if w["draft_cost"] == "module":
                # the plan prices one module's step (module_draft_cost) from its blocks
                layers = m.mtp_step_layers()
                step_blocks = stack_blocks(layers) if layers else None
                draft_layers = sum(run.count for run in layers) or None
            else:
                draft_cost = w["draft_cost"]
    if draft_len is None:
        if acceptance is not None or draft_cost is not None or draft is not None:
            raise InputError("draft_len: speculative decoding needs the draft length")
        return dict(draft_len=None, acceptance=None, draft_cost=None, draft_layers=None,
                    draft_step_blocks=None, module_copied_params=None, **NOTHING_HELD)
    draft_len = count_argument("draft_len", draft_len)
    if acceptance is None:
        raise InputError("acceptance: give the acceptance rate (0 <= a < 1) with the draft "
                         "length, or a workload with a published one: "
                         + ", ".join(f"{k} ({v['acceptance']})"
                                     for k, v in SPECULATIVE_WORKLOADS.items()))
    acceptance = number_argument("acceptance", acceptance)
    if not 0 <= acceptance < 1:  # also NaN
        raise InputError(f"acceptance must be in [0, 1), got {acceptance:g}")
    if draft is not None:
        if draft_cost is not None:
            raise InputError("give either draft_cost or a draft model, not both")
        if hardware is None and bandwidth is None:
            raise InputError("draft: a draft model's cost needs a chip or a bandwidth")
    draft, held = draft_held(m, w, draft, tp=tp, pp=pp, weights=(at or {}).get("weights"),
                             bits_weight=(at or {}).get("bits_weight"))
    held = dict(NOTHING_HELD) if held is None else held
    if draft is not None:
        draft_cost = draft_step_ratio(draft, m, hardware=hardware, bandwidth=bandwidth,
                                      **(at or {}))
        draft_layers = draft.n_layers
    if draft_cost is not None or step_blocks is None:
        draft_cost = 0.0 if draft_cost is None else number_argument("draft_cost", draft_cost)
        if not 0 <= draft_cost < math.inf:
            raise InputError(f"draft_cost must be non-negative, got {draft_cost:g}")
    return dict(draft_len=draft_len, acceptance=acceptance, draft_cost=draft_cost,
                draft_layers=draft_layers, draft_step_blocks=step_blocks,
                module_copied_params=module_copied_params(m) if step_blocks else None, **held)


def evaluated_plan(model: str | Path | Model, *, hardware: Any = None, weights: Any = None,
               bits_weight: Any = None, bits_kv: Any = None, bits_ssm: Any = None,
               context: Any = 1, batch: Any = 1, bandwidth: Any = None,
               peak_flops: Any = None, capacity: Any = None, overhead: Any = 0, tp: Any = 1,
               ep: Any = 1, pp: Any = 1, prompt: Any = None, generate: Any = None,
               price_per_hour: Any = None, power_watts: Any = None,
               link_bandwidth: Any = None, link_latency: Any = None, overlap: Any = True,
               allreduce: Any = None, node_limit: Any = None, dispatch_bits: Any = None,
               speculation: Any = None, draft_len: Any = None, acceptance: Any = None,
               draft_cost: Any = None, draft: Any = None, vision: Any = None
               ) -> tuple[Model, Hardware | None, dict[str, Any], Evaluator]:
    """:func:`estimate`'s arguments checked as it checks them: (the model, the chip, the plan's
    inputs with the speculative ones, the evaluator of the model's plan on them), from which
    :func:`estimate` reads every field and :func:`~llm_arithmetic.sweeps.frontier` the few a point
    needs (each value computed on demand, so a frontier's point does not pay for the critical batch
    or the longest context). ``vision``: :func:`~llm_arithmetic.media.prompt_with_images`'s values
    (None: no images and no video), whose counts, tokens, FLOPs and tower parameters join the
    plan's inputs."""
    m = resolve_model(model)
    chip = get_hardware(hardware) if hardware is not None else None
    check_direct(allreduce, chip)
    if bits_kv is None:  # the checkpoint's cache, for the draft's estimate too
        bits_kv = m.native_kv_bits
    given = plan_inputs(m, weights=weights, bits_weight=bits_weight, bits_kv=bits_kv,
                        context=context, batch=batch, bandwidth=bandwidth,
                        peak_flops=peak_flops, capacity=capacity, overhead=overhead, tp=tp,
                        ep=ep, pp=pp, prompt=prompt, generate=generate,
                        price_per_hour=price_per_hour, power_watts=power_watts,
                        link_bandwidth=link_bandwidth, link_latency=link_latency,
                        overlap=overlap, allreduce=allreduce, node_limit=node_limit,
                        dispatch_bits=dispatch_bits, bits_ssm=bits_ssm)
    spec = speculative_inputs(m, speculation=speculation, draft_len=draft_len,
                              acceptance=acceptance, draft_cost=draft_cost, draft=draft,
                              hardware=chip, bandwidth=bandwidth,
                              at=dict(weights=weights, bits_weight=bits_weight, bits_kv=bits_kv,
                                      context=context, batch=batch, peak_flops=peak_flops,
                                      prompt=prompt, generate=generate), tp=tp, pp=pp)
    if vision is not None:
        encoder_degrees(m, given["tp"], vision)
        given.update(vision_plan_inputs(vision))
        if vision.get("image_states"):
            cross_inputs(m, vision, given)
    ev = m.plan.child(**chip_inputs(chip), **given, **spec)
    given.update(spec)
    return m, chip, given, ev


def estimate(model: str | Path | Model, *, hardware: str | Hardware | None = None,
             weights: str | None = None, bits_weight: Any = None, bits_kv: Any = None,
             bits_ssm: Any = None,
             context: int = 1, batch: int = 1, bandwidth: float | None = None,
             peak_flops: float | None = None, capacity: int | None = None,
             overhead: int = 0, tp: int = 1, ep: int = 1, pp: int = 1,
             prompt: int | None = None, generate: int | None = None,
             price_per_hour: float | None = None, power_watts: float | None = None,
             link_bandwidth: float | None = None, link_latency: float | None = None,
             overlap: bool = True, allreduce: str | None = None, node_limit: int | None = None,
             dispatch_bits: Any = None, speculation: str | None = None,
             draft_len: int | None = None, acceptance: float | None = None,
             draft_cost: float | None = None,
             draft: str | Path | Model | None = None, images: int | None = None,
             image_size: tuple[int, int] | None = None, video_seconds: float | None = None,
             video_fps: float | None = None,
             video_size: tuple[int, int] | None = None,
             audio_seconds: float | Sequence[float] | None = None,
             video_audio: bool = False) -> Estimate:
    """Bytes, FLOPs and roofline bounds of decoding ``model``; with the serving arguments, the
    bounds of a replica of tp x pp chips serving requests; with speculative decoding's
    arguments (:func:`speculative_inputs`), the bounds with speculation beside the plain ones.

    Parameters
    ----------
    model : Model, str or Path
        A model, a catalog name (``"llama-2-7b"``) or a path to a ``config.json``.
    hardware : Hardware or str, optional
        A chip or its catalog name; supplies bandwidth, the dense peak at the compute
        precision, capacity, board power and the interconnect, unless given.
    weights : str, optional
        A named weight format (``"fp16"``, ``"q4_0"``, ``"nvfp4"``, ...) or a llama.cpp file
        type (``"q4_k_m"``, bits computed for this model); default: as the checkpoint ships
        (16 bits; block-scaled fp8, computed at the chip's fp8 peak where it has one; or
        gpt-oss's MXFP4 experts, computed at 16 bits).
    bits_weight : number, optional
        Bits per weight, instead of ``weights`` [bit].
    bits_kv : number, optional
        Bits per KV-cache element [bit]; default the checkpoint's (8 where a ModelOpt file
        asks for an fp8 cache, as vLLM then allocates it; else 16,
        :attr:`~llm_arithmetic.catalog.model.Model.native_kv_bits`). The constant-state layers
        (Mamba-2, Gated DeltaNet, KDA) keep their convolution window at 16 bits whatever this is
        (:data:`STATE_WINDOW_BITS`, as vLLM does).
    bits_ssm : number or str, optional
        Bits (or a format, ``"fp32"``) of those layers' recurrent matrices [bit]; default the
        dtype the checkpoint's ``config.json`` names for them (Nemotron-H's
        ``mamba_ssm_cache_dtype``, Qwen3.5's ``mamba_ssm_dtype``: float32, as vLLM keeps
        them), 32 for a Kimi delta attention layer's (vLLM's float32 whatever is asked), else
        16, the window's (where vLLM's own default for the family may differ: float32 for a
        Nemotron-H file that names none, which :func:`~llm_arithmetic.engine.engine_view`
        follows).
    context : int
        Tokens in each sequence's cache at the decode step [token].
    batch : int
        Sequences decoded together (on the replica) [-].
    bandwidth : float, optional
        Memory bandwidth [B/s] (not GB/s).
    peak_flops : float, optional
        Dense peak rate [FLOP/s] (not TFLOP/s).
    capacity : int, optional
        Device memory [B].
    overhead : int
        Memory reserved beside weights and cache [B] (per chip).
    tp, ep, pp : int
        Tensor-, expert- and pipeline-parallel degrees; the replica has tp x pp chips.
    prompt : int, optional
        Prompt tokens of a request [token].
    generate : int, optional
        Tokens generated after the first (the decode steps) [token].
    price_per_hour : float, optional
        Price of one chip for one hour [USD/h].
    power_watts : float, optional
        Power of one chip [W]; default the catalog's board power.
    link_bandwidth : float, optional
        Per-direction bandwidth of a chip's link to its peers [B/s]; default the catalog's
        interconnect for a group of ``tp`` chips.
    link_latency : float, optional
        Latency of one collective step on every link [s]; default each tier's from the
        catalog, or :data:`~llm_arithmetic.catalog.hardware.DEFAULT_LATENCY` (NCCL's figures)
        where it has none. 0 leaves latency out.
    overlap : bool
        Overlap communication with the work (the default: each bound is the longer of the two)
        or add it after the work (the serialized sum, which the ``*_serialized_seconds`` keys
        always report).
    allreduce : str, optional
        ``"ring"``, ``"switch"`` (in-switch reduction, NVLink SHARP) or ``"direct"`` (one- or
        two-stage direct all-reduces, where every chip reaches every other) inside a scale-up
        domain; default where the chip's switches reduce: the faster of the switch's reduction
        and direct all-reduces (the switch sends more at two chips, and pays two latencies
        against one stage's one); else direct where the catalog's topology is a switch or a
        full mesh (and no ``link_bandwidth`` is given), else the ring. ``"direct"`` on a ring
        or torus is an error.
    node_limit : int, optional
        Node-limited routing: a token's experts lie on at most this many destinations
        (DeepSeek-V3: 4 nodes); default no limit.
    dispatch_bits : number or str, optional
        Bits (or a format, ``"fp8"``) of the activations an expert-parallel dispatch sends;
        default 16. The combine is 16-bit.
    images : int, optional
        Images in the prompt (a vision-language model whose tower's rule is modelled,
        :func:`~llm_arithmetic.media.image_inputs`): their tokens, and the separators written
        between their rows or tiles, join ``prompt`` (its text tokens, 0 where not given), and the
        tower's time joins the time to first token.
    image_size : (int, int), optional
        Width and height of each image [px]; default
        :data:`~llm_arithmetic.catalog.images.DEFAULT_IMAGE_SIZE` (1024 x 1024).
    video_seconds, video_fps, video_size : number, number and (int, int), optional
        A video in the prompt, beside any images (a model whose video rule is modelled,
        :func:`~llm_arithmetic.media.video_inputs`): its length [s], the frames sampled a second
        (default 2) and the frame size, width x height [px] (default 1280 x 720); its tokens and
        the text the processor writes between its frame groups join ``prompt``, the tower's time
        over its frames joins the time to first token.
    video_audio : bool, optional
        With ``video_seconds`` on Qwen2.5-Omni or Qwen3-Omni: the video's audio track joins the
        prompt as its processor interleaves it with the frames (``load_audio_from_video``): the
        tokens of a clip of the video's length, after any ``audio_seconds`` clips, and the two
        ``<|audio_bos|>`` / ``<|audio_eos|>`` markers the processor writes around the video
        (:func:`~llm_arithmetic.media.video_audio_inputs`). Refused without a video, and on a
        model whose processor does not.
    audio_seconds : number or sequence of numbers, optional
        Audio in the prompt, beside any images or video (a model whose audio encoder is
        modelled, :func:`~llm_arithmetic.media.audio_inputs`): its length [s], or each clip's
        length for several clips (a conversation's voice turns, each with its own tokens);
        its tokens join ``prompt``, the encoder's time joins the time to first token.

    A context beyond the model's trained context gives a
    :class:`~llm_arithmetic.arguments.ContextWarning`.

    >>> e = estimate("llama-3-70b", hardware="h100-sxm", weights="fp8", tp=8, prompt=2048,
    ...              generate=256, batch=64, price_per_hour=2.5)
    >>> e.n_chips, round(e.tpot_seconds * 1e3, 2), round(e.tokens_per_second_per_chip)
    (8, 4.3, 1862)
    """
    model, prompt, vision = prompt_with_images(model, prompt, images, image_size,
                                               video_seconds, video_fps, video_size,
                                               audio_seconds, video_audio or None)
    m, chip, given, ev = evaluated_plan(
        model, hardware=hardware, weights=weights, bits_weight=bits_weight, bits_kv=bits_kv,
        bits_ssm=bits_ssm, context=context, batch=batch, bandwidth=bandwidth,
        peak_flops=peak_flops, capacity=capacity, overhead=overhead, tp=tp, ep=ep, pp=pp,
        prompt=prompt, generate=generate, price_per_hour=price_per_hour,
        power_watts=power_watts, link_bandwidth=link_bandwidth, link_latency=link_latency,
        overlap=overlap, allreduce=allreduce, node_limit=node_limit,
        dispatch_bits=dispatch_bits, speculation=speculation, draft_len=draft_len,
        acceptance=acceptance, draft_cost=draft_cost, draft=draft, vision=vision)
    out = {field: ev.get(step) for field, step in FIELD_STEPS.items()}
    out["bits_weight"] = float(out["bits_weight"])
    if vision is not None:  # the caller's size and the rule's patches, beside the plan's inputs
        out.update({k: vision.get(k) for k in ("image_size", "vision_patches_per_image",
                                               "cross_kv_flops", *VIDEO_FIELDS, *AUDIO_FIELDS)})
        if vision.get("image_states"):  # the images' keys and values one sequence caches
            out["image_kv_bytes"] = exact_result(ev.get("image_kv_bytes"))
    keep = [k for k in INPUT_FIELDS if k in given and k != "bits_kv"]
    result = Estimate(model=m.name, hardware=chip.name if chip is not None else None,
                    bits_kv=float(given["bits_kv"]), trained_context=m.trained_context,
                    params_extra={x.name: x.params for x in m.extras},
                    params_extra_in_total={x.name: x.in_total for x in m.extras},
                    weights_as=weights_as(m, weights, bits_weight),
                    **{k: given[k] for k in keep}, **out)
    # the plan's values, kept beside the record (not a field: no key, no comparison) for
    # :func:`llm_arithmetic.explain.explain` (a floor above), which shows the step behind a key
    object.__setattr__(result, "_plan", ev)
    return result
