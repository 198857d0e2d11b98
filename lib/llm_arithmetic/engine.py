"""The engine's view: what vLLM, SGLang, TensorRT-LLM or llama.cpp allocates on one chip for a
model, from the engine's own flags, beside the physics (the bound's KV capacity).

The rules, each with its source, are data (``catalog/data/engines.toml``); the arithmetic is the
plan's ``ENGINE_STEPS`` (:mod:`llm_arithmetic.plan.steps`) over registered formulas
(:mod:`llm_arithmetic.formulas.engine`). This module only turns an engine's flags into the
plan's inputs and reads the results.

>>> v = engine_view("qwen3-1.7b", "vllm", kv_memory_gib=18.78)
>>> v.engine_kv_bytes_per_token, v.engine_kv_cache_tokens
(114688, 175808)
>>> v = engine_view("gpt-oss-20b", "llama.cpp", flags={"--ctx-size": 131072})
>>> round(v.engine_kv_cache_bytes / 2**20, 2), v.engine_kv_cache_tokens
(3090.0, 131072)
"""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import asdict, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .catalog.compiled import load
from .catalog.formats import bits_per_weight, plan_format
from .catalog.hardware import get_hardware
from .catalog.model import (ENGINE_INPUTS, GatedDeltaNet, LightningAttention, Mamba2, Model,
                            ShortConv)
from .core.errors import InputError
from .core.records import record
from .core.units import GiB, MiB
from .numeric._runtime import exact_result

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["ENGINES", "SWITCHES", "EngineView", "engine_view", "engine_settings", "engine_flags",
           "check_log_line", "state_bits"]

#: The engines' rules as ``engines.toml`` gives them, by the name ``--engine`` takes.
ENGINES: Mapping[str, Mapping[str, Any]] = load("engines")["engines"]

#: Rules that are switches (a flag without a value).
SWITCHES = ("eager", "swa_full")
#: Rules that are counts of tokens or sequences.
_COUNTS = ("max_model_len", "max_batched_tokens", "max_seqs", "page", "ctx", "ubatch", "seqs")


#: The inputs :func:`engine_view` sets for a hybrid model (state-space or linear-attention
#: layers beside attention) on an engine whose rules have a ``hybrid`` table.
_HYBRID_INPUTS = ("engine_hybrid", "engine_page_align", "engine_bits_conv", "engine_bits_ssm",
                  "engine_state_blocks")
#: The inputs :func:`engine_view` sets for a paged engine (a share of the chip cut into pages;
#: ``engine_free_fraction`` where its rules say ``free_fraction``) or a cells one (llama.cpp).
_PAGED_INPUTS = ("engine_fraction", "engine_free_fraction", "engine_page",
                 "engine_max_model_len", "engine_kv_memory_given")
_CELLS_INPUTS = ("engine_ctx", "engine_ubatch", "engine_seqs", "engine_pad", "engine_swa_full")


def engine_input_needs(names: Sequence[str]) -> str | None:
    """What the user gives for :func:`engine_view` to set the plan's inputs ``names`` (any of
    them), where the view's engine leaves them unset: the engines that set one (``--engine``),
    and for a hybrid's inputs the model they take; None where no engine's kind decides any.
    Read from the engines' rules (``engines.toml``: ``kind``, ``free_fraction``, ``hybrid``),
    as :func:`engine_view` reads them.

    >>> engine_input_needs(["engine_ctx"])
    '--engine llama.cpp'
    >>> engine_input_needs(["engine_page", "engine_hybrid"])
    '--engine vllm with a hybrid model (state-space or linear-attention layers beside attention)'
    """
    def sets(name: str, spec: Mapping[str, Any]) -> bool:
        if name in _HYBRID_INPUTS:
            return "hybrid" in spec
        if name in _CELLS_INPUTS:
            return spec["kind"] != "paged"
        if name in ("engine_fraction", "engine_free_fraction"):
            return spec["kind"] == "paged" and \
                bool(spec.get("free_fraction")) == (name == "engine_free_fraction")
        return name in _PAGED_INPUTS and spec["kind"] == "paged"

    hybrid = [n for n in names if n in _HYBRID_INPUTS]
    engines = [e for e, spec in ENGINES.items() if any(sets(n, spec) for n in hybrid or names)]
    if not engines:
        return None
    listed = ", ".join(engines[:-1]) + " or " + engines[-1] if len(engines) > 1 else engines[0]
    return f"--engine {listed}" + (" with a hybrid model (state-space or linear-attention "
                                   "layers beside attention)" if hybrid else "")


def engine_flags() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every engine flag: the rule it sets (a name of ``engines.toml``, one rule whichever
    engine takes the flag) and the engines that take it, in the catalog's order (for the
    command line).

    >>> engine_flags()["--block-size"], engine_flags()["--enforce-eager"][0] in SWITCHES
    (('page', ('vllm',)), True)
    """
    rules: dict[str, str] = {}
    names: dict[str, list[str]] = {}
    for name, spec in ENGINES.items():
        for flag, rule in spec["flags"].items():
            rules[flag] = rule
            names.setdefault(flag, []).append(name)
    return {flag: (rules[flag], tuple(names[flag])) for flag in rules}


def _engine(name: str) -> Mapping[str, Any]:
    if not isinstance(name, str) or name not in ENGINES:
        raise InputError(f"engine: unknown engine {str(name)[:40]!r}; known: "
                         f"{', '.join(ENGINES)}")
    return ENGINES[name]


def engine_settings(engine: str, flags: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The engine's rules set by ``flags`` (its own flag names, ``"--gpu-memory-utilization"``,
    or the rules' names, ``"fraction"``), the engine's defaults for the others; a flag the
    engine does not take, or a bad value, raises an :class:`InputError` naming it.

    vLLM's defaults (``engines.toml``: blocks of 16 tokens, the model's cache dtype) beside a
    given share of the chip:

    >>> engine_settings("vllm", {"--gpu-memory-utilization": 0.85})  # doctest: +NORMALIZE_WHITESPACE
    {'fraction': 0.85, 'page': 16, 'kv_dtype': 'auto', 'eager': False, 'mamba_mode': 'none',
     'state_dtype': 'auto', 'ssm_dtype': 'auto'}
    >>> engine_settings("vllm", {"--ctx-size": 4096})
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: --ctx-size: not a flag of vllm (a flag of llama.cpp); vllm takes --gpu-memory-utilization, --max-model-len, --max-num-batched-tokens, --max-num-seqs, --block-size, --kv-cache-dtype, --enforce-eager, --mamba-cache-mode, --mamba-cache-dtype, --mamba-ssm-cache-dtype
    """
    spec = _engine(engine)
    out = dict(spec.get("defaults", {}))
    rules = set(spec["flags"].values())
    if flags is not None and not isinstance(flags, Mapping):
        raise InputError(f"flags: a mapping of the engine's flags to their values "
                         f"({{'--gpu-memory-utilization': 0.9}}), got {type(flags).__name__}")
    for key, value in (flags or {}).items():
        if value is None:
            continue
        rule = spec["flags"].get(key, key if key in rules else None)
        if rule is None:
            others = [e for e, s in ENGINES.items() if key in s["flags"]]
            where = f" (a flag of {', '.join(others)})" if others else ""
            raise InputError(f"{key}: not a flag of {engine}{where}; {engine} takes "
                             f"{', '.join(spec['flags'])}")
        out[rule] = _value(key, rule, value, spec)
    return out


#: Rules whose value is a name of one of the engine's tables: rule -> (table, what it names).
_CHOICES = {"kv_dtype": ("kv_dtypes", "cache dtype"), "mamba_mode": ("mamba_modes", "mode"),
            "state_dtype": ("state_dtypes", "state dtype"),
            "ssm_dtype": ("state_dtypes", "state dtype"),
            "type_k": ("cache_types", "cache type"), "type_v": ("cache_types", "cache type")}


def _value(key: str, rule: str, value: Any, spec: Mapping[str, Any]) -> Any:
    if rule in SWITCHES:
        if not isinstance(value, bool):
            raise InputError(f"{key} is a switch (True or False), got {value!r:.40}")
        return value
    if rule in _COUNTS:
        if not _real(value) or not math.isfinite(value) or value != int(value) \
                or value < (0 if rule == "ctx" else 1):
            raise InputError(f"{key} must be a positive whole number, got {value!r:.40}")
        return int(value)
    if rule == "fraction":
        if not _real(value) or not 0 < value <= 1:
            raise InputError(f"{key} must be a fraction in (0, 1], got {value!r:.40}")
        return float(value)
    if rule in _CHOICES:
        table, what = _CHOICES[rule]
        if value not in spec[table]:
            raise InputError(f"{key}: unknown {what} {str(value)[:30]!r}; known: "
                             f"{', '.join(spec[table])}")
        return value
    raise InputError(f"{key}: no rule {rule!r}")  # pragma: no cover - the TOML's own error


def _real(value: Any) -> bool:
    """Whether ``value`` is a plain number (an int or a float, not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


#: Why the view refuses DeepSeek-V4's compressed attention (one line; FAMILIES.md section
#: 14.18). What was read of vLLM: vllm/model_executor/layers/deepseek_v4_attention.py @
#: b92a330e057db9b8c2895ba862de2a03589adce8 (a row of d_h = 512 in 584 B, fp8 only; the
#: indexer's cache an ``MLAAttentionSpec`` with ``compress_ratio`` and ``alignment=576``, a key
#: in 132 B), vllm/v1/attention/backends/mla/sparse_swa.py @
#: 03dc564956172b5b2835be7a84ddde5de1d5dba6 (``DeepseekV4SWACache``: the window a
#: ``SlidingWindowMLASpec`` in blocks of 64 tokens, sized so that a window page equals a CSA
#: page of 256 // 4 entries, aligned to 576 B) and vllm/model_executor/layers/
#: deepseek_compressor.py @ bbd1024110933d0f97a35c527de2f8b6da23bfa8 (the float32 compressor
#: state). Not read: how vLLM's KV cache manager puts groups of unequal pages (window, CSA,
#: HCA, indexer, compressor state) into one pool and how many blocks of each a request holds,
#: which the pool's tokens and concurrency follow from; the engine plan (ENGINE_STEPS) has one
#: page per token for attention and one state page per layer, no such groups.
_COMPRESSED_UNMODELLED = {
    "": "the engine view does not model what {engine} allocates for DeepSeek-V4's compressed "
        "attention: how {engine} stores it was not read; the cache at a given context is "
        "counted (describe without --engine)",
    "vllm": "the engine view does not model what vllm allocates for DeepSeek-V4's compressed "
            "attention: vLLM keeps the window (blocks of 64 tokens), the compressed entries "
            "(blocks of block_size / m_c entries), the CSA indexer keys and the compressors' "
            "float32 state in cache groups whose pages differ (rows of 584 B, keys of 132 B, "
            "pages aligned to 576 B), and how its KV cache manager fits such groups into one "
            "pool, and so the tokens and requests the pool holds, is not modelled; the cache "
            "at a given context is counted (describe without --engine)"}


#: Hunyuan families whose cross-layer attention (``use_cla``: the ``kv_shared`` blocks of
#: :func:`~llm_arithmetic.catalog.readers.moe._hunyuan_cla`) vLLM cannot serve, and why (one line).
#: What was read of vLLM: vllm/model_executor/models/hunyuan_v1.py @
#: e87ba1e186a90f9d0d2d36c9ff44551d1cdbda04 (and the same lines @
#: 00f8d4456f506c4885a122c993796a6abc319af8): HunYuanDecoderLayer makes a block with
#: ``layer_id % cla_factor != 0`` a HunYuanCrossAttention, which owns q_proj, o_proj and the
#: q/k norms and builds ``Attention(..., attn_type=AttentionType.ENCODER_DECODER)`` with no
#: ``kv_sharing_target_layer_name``; vllm/v1/worker/gpu_model_runner.py @
#: 000fc94b754f66aeb60ef5acf1ea2e94cdc65164, ``get_kv_cache_spec``, skips only the layers that
#: name a sharing target and calls ``attn_module.get_kv_cache_spec`` for every other one; and
#: ``Attention.get_kv_cache_spec`` returns None for encoder-only attention and otherwise
#: ``assert self.attn_type == AttentionType.DECODER`` ("Should not be called for enc-dec
#: attention": vllm/model_executor/layers/attention/attention.py @
#: 0014ca6b9929614f1b72c4bb11e5238de49cba89; the same assert in vllm/attention/layer.py @
#: 004a5da023623f6fa8522449b561eb827129b018, the class hunyuan_v1.py imports). So vLLM caches
#: neither the 32 layers the checkpoint needs nor all 64: it stops before allocating. Besides,
#: Hunyuan-Large's own file names ``HunYuanForCausalLM``, which vLLM's registry does not list
#: (only HunYuanDenseV1ForCausalLM and HunYuanMoEV1ForCausalLM: vllm/model_executor/models/
#: registry.py @ 0002bff0b6cb36a3c8a17364de3303664463c412).
_VLLM_CLA_FAMILIES = frozenset({"hunyuan_v1_moe", "hunyuan_v1_dense"})
_VLLM_CLA_REFUSED = (
    "vLLM allocates no cache for Hunyuan's cross-layer attention, it stops first: its "
    "hunyuan_v1.py builds each block that reuses the previous block's keys and values as "
    "an ENCODER_DECODER-type Attention with no KV-sharing target, and Attention."
    "get_kv_cache_spec, which the model runner calls for every such layer, asserts a decoder "
    "layer; the checkpoint's cache (the blocks with keys and values of their own) is counted "
    "without --engine")

#: Families whose MoE router vLLM holds in float32 whatever the checkpoint stores: MiniMax-Text-01
#: and MiniMax-M1 (vLLM's registry maps MiniMaxForCausalLM, MiniMaxText01ForCausalLM and
#: MiniMaxM1ForCausalLM to minimax_text_01.py: registry.py @
#: 0002bff0b6cb36a3c8a17364de3303664463c412). MiniMaxText01MoE builds ``self.gate =
#: ReplicatedLinear(hidden_size, num_experts, bias=False, params_dtype=torch.float32,
#: quant_config=None)``, loads it with ``gate_weight_loader`` (``loaded_weight.to(torch.float32)``)
#: and runs it on fp32 activations (vllm/model_executor/models/minimax_text_01.py @
#: 98370df70c1813f5f9c9c127e8baed660cd09280): 4 bytes a weight on every chip. The checkpoint's
#: own dtype for the router is not known here, so the estimate (describe without --engine)
#: keeps the checkpoint's 16 bits.
_VLLM_FP32_ROUTERS = frozenset({"minimax", "minimax_m1", "minimax_text_01"})


def _copy_bits_kept(m: Model, base: Fraction, *classes: str) -> dict[str, Fraction]:
    """The plan's ``native_bits_copy_<class>`` inputs pinned at the checkpoint's bits (else
    ``base``, the mean of "every other weight"), for an adjustment that moves that mean: the
    copied classes without bits of their own would otherwise follow it."""
    return {f"native_bits_copy_{c}": Fraction(m.native_bits.get(f"copy_{c}", base))
            for c in classes}


def _vllm_router_inputs(m: Model, weights: Any, bits_weight: Any) -> dict[str, Any]:
    """The plan's weight inputs that put ``m``'s routers at 32 bits, as vLLM holds them for
    the families of :data:`_VLLM_FP32_ROUTERS`, for the checkpoint's own weights ({}
    elsewhere, and where a format or bits are asked: every weight is then at those bits).

    The routers are priced in the bits of "every other weight" (``native_bits_default``): that
    class's mean is raised by R (32 - r) / N (R the routers' parameters, r the bits the
    checkpoint's scheme gives them, N the class's parameters), and a tensor-parallel group's
    copies of them are at 32 (``native_bits_copy_router``); the other copied classes keep the
    checkpoint's bits.

    >>> from llm_arithmetic import get_model
    >>> i = _vllm_router_inputs(get_model("minimax-m1"), None, None)
    >>> i["native_bits_copy_router"], i["native_bits_default"] - 16 == Fraction(
    ...     80 * 32 * 6144 * 16, 19995029504)
    (Fraction(32, 1), True)
    """
    if m.family not in _VLLM_FP32_ROUTERS or weights is not None or bits_weight is not None:
        return {}
    routers = m.evaluate("layer_copied_router")
    if not routers:
        return {}
    base = Fraction(m.native_bits.get("default", 16))
    own = Fraction(m.scheme.router_bits if m.scheme is not None else 16)
    return {**_copy_bits_kept(m, base, "heads", "matrices", "plain"),
            "native_bits_default": base + Fraction(routers) * (32 - own)
            / m.evaluate("other_params"), "native_bits_copy_router": Fraction(32)}


def _vllm_held(m: Model) -> Model:
    """``m`` with the weights vLLM allocates for it where they differ from the checkpoint's
    layout: Gemma 4's attention blocks whose values are their keys' projection
    (``attention_k_eq_v``, the ``kv_tied`` form) as plain blocks with a value projection of
    their own; ``m`` itself elsewhere. The cache is the same (a tied block caches keys and
    values apart, as a plain one).

    vllm/model_executor/models/gemma4.py @ 001cabc1be16a59a70d720ed61a13b678c060a18:
    Gemma4Attention builds ``QKVParallelLinear(hidden_size, head_dim, total_num_heads,
    total_num_kv_heads)`` for every block ("k_eq_v layers load K weights into both K and V
    slots"), Gemma4DecoderLayer gives a k_eq_v block ``num_global_key_value_heads``, and
    Gemma4Model.load_weights yields each such block's k_proj a second time as its v_proj
    ("duplicate k_proj as v_proj so V gets identical weights to K"): vLLM holds H_kv d_h d
    more weights a global block than the checkpoint stores.

    Gemma 3n's and Gemma 4's KV-sharing blocks need nothing here: vLLM builds their k/v
    projections and key norm as any block's (gemma4.py above; vllm/model_executor/models/
    gemma3n.py @ 7bbfbc7f867c5ea3e67544d302b6f6c73667b11b, Gemma3nAttention) and gives their
    Attention a ``kv_sharing_target_layer_name``, so that the model runner allocates them no
    cache (vllm/v1/worker/gpu_model_runner.py @ 000fc94b754f66aeb60ef5acf1ea2e94cdc65164,
    ``get_kv_cache_spec``: "doesn't allocate KV cache for the layer"), which the library
    counts already: the checkpoints store those weights (the reader's extra "unused k, v and
    k-norm weights of the KV-sharing layers", in the total) and the ``reuse`` form has no
    cache.

    >>> from llm_arithmetic import get_model
    >>> m = get_model("gemma-4-26b-a4b")
    >>> _vllm_held(m).total_params - m.total_params == 5 * 2 * 512 * 2816
    True
    """
    if not any(run.attention is not None and run.attention.kv_tied for run in m.layers):
        return m
    return replace(m, layers=tuple(
        replace(run, attention=replace(run.attention, kv_tied=False))
        if run.attention is not None and run.attention.kv_tied else run for run in m.layers))


def _vllm_value_slot_inputs(m: Model, held: Model, weights: Any,
                            bits_weight: Any) -> dict[str, Any]:
    """The plan's weight inputs that price the value slots :func:`_vllm_held` adds at the bits
    of the checkpoint's key/value projections (``copy_heads``; vLLM fills a slot with the
    block's k_proj as stored), where those differ from the mean of "every other weight" the
    slots would otherwise take; {} where they do not (a 16-bit checkpoint), for a model
    without slots, or where a format or bits are asked. The copied classes keep their own
    bits.

    (nvidia/Gemma-4-31B-IT-NVFP4, whose key/value projections stay in bf16 beside NVFP4
    matrices, is checked in tests/test_engine.py.)

    >>> from llm_arithmetic import get_model
    >>> m = get_model("gemma-4-31b")
    >>> _vllm_value_slot_inputs(m, _vllm_held(m), None, None)
    {}
    """
    added = held.total_params - m.total_params
    if not added or weights is not None or bits_weight is not None:
        return {}
    base = Fraction(m.native_bits.get("default", 16))
    heads = Fraction(m.native_bits.get("copy_heads", base))
    if heads == base:
        return {}
    other = m.evaluate("other_params")
    return {**_copy_bits_kept(m, base, "heads", "matrices", "router", "plain"),
            "native_bits_default": (base * other + heads * added) / (other + added)}


#: The reader's extra that holds the KV-sharing blocks' k/v projections and key norms (Gemma 3n,
#: Gemma 4 E2B/E4B), which the checkpoints store and no decode step reads.
_UNUSED_KV_EXTRA = "unused k, v and k-norm weights of the KV-sharing layers"


def _vllm_shared_kv_inputs(m: Model, tp: int) -> dict[str, Any]:
    """The plan's ``extras_copied`` raised so that a tensor-parallel group holds the KV-sharing
    blocks' k/v projections and key norms as vLLM does ({} at tp 1, or for a model without
    that extra): vLLM builds them as any block's (:func:`_vllm_held`), so each chip holds
    max(1, H_kv / tp) key/value heads of each and the whole key norm, the group max(tp, H_kv)
    heads and tp norms, where the reader's extra is one set split over the chips. The copies
    beyond that one set are (max(tp, H_kv) / H_kv - 1) 2 d H_kv d_h + (tp - 1) d_h a block,
    which ``extras_copied`` x (tp - 1) gives (the plan's ``extras_copies``, priced as the
    copied norms and biases). Applied only where the extra equals the count of the blocks'
    k, v and key norm (2 d H_kv d_h + d_h each).

    Gemma 4 E2B (one KV head) on two chips holds every sharing block's k and v on both:

    >>> from llm_arithmetic import get_model
    >>> i = _vllm_shared_kv_inputs(get_model("gemma-4-e2b"), 2)
    >>> i["extras_copied"] - get_model("gemma-4-e2b").plan_inputs["extras_copied"]
    Fraction(18880512, 1)
    """
    extra = next((x for x in m.extras if x.name == _UNUSED_KV_EXTRA and not x.copied), None)
    if tp <= 1 or extra is None:
        return {}
    own = more = 0
    for run in m.layers:
        a = run.attention
        if a is None or not a.kv_shared:
            continue
        kv = 2 * m.d_model * a.n_kv_heads * a.d_head
        own += run.count * (kv + a.d_head)
        more += run.count * (Fraction(kv * max(tp, a.n_kv_heads), a.n_kv_heads) - kv
                             + (tp - 1) * a.d_head)
    if own != extra.params:
        return {}
    return {"extras_copied": m.plan_inputs["extras_copied"] + Fraction(more, tp - 1)}


def _vllm_weight_inputs(m: Model, held: Model, weights: Any, bits_weight: Any,
                        tp: int) -> dict[str, Any]:
    """The plan's weight inputs for the weights as vLLM allocates them (``held``:
    :func:`_vllm_held`): MiniMax-01's routers in float32 (:func:`_vllm_router_inputs`), Gemma
    4's added value slots at the key/value projections' bits (:func:`_vllm_value_slot_inputs`),
    and Gemma 3n's and Gemma 4's KV-sharing blocks' k/v split and copied as any block's
    (:func:`_vllm_shared_kv_inputs`). The three concern different families; an input two of
    them set is refused rather than one silently overriding the other.

    >>> from llm_arithmetic import get_model
    >>> m = get_model("llama-3-8b")
    >>> _vllm_weight_inputs(m, _vllm_held(m), None, None, 2)
    {}
    """
    out: dict[str, Any] = {}
    for part in (_vllm_router_inputs(m, weights, bits_weight),
                 _vllm_value_slot_inputs(m, held, weights, bits_weight),
                 _vllm_shared_kv_inputs(m, tp)):
        both = sorted(out.keys() & part.keys())
        if both:
            raise InputError(f"engine: {m.name}: vLLM's adjustments overlap on {', '.join(both)}"
                             " (not modelled)")
        out.update(part)
    return out


def _gib(label: str, value: Any) -> float:
    """A non-negative, finite size in GiB, or an :class:`InputError` naming ``label``."""
    if not _real(value) or not 0 <= value < math.inf:
        raise InputError(f"{label} must be a non-negative number of GiB, got {value!r:.40}")
    return float(value)


@record
class EngineView:
    """What an engine allocates on one chip of a replica.

    Attributes
    ----------
    engine_weights_bytes : number
        The weights as loaded on one chip (the replica's weights over its chips) [B].
    engine_reserved_bytes : float or None
        The reserve beside weights and cache: activation peak, CUDA graphs, communication
        buffers (empirical; None where not modelled, llama.cpp) [B].
    engine_kv_memory_bytes : float or None
        Memory of a paged engine's pool, before cutting it into blocks [B].
    engine_kv_bytes_per_token : int
        Cache one token takes on one chip, every attention layer counted whole [B].
    engine_kv_cache_bytes : number
        The cache the engine allocates on one chip [B].
    engine_kv_cache_tokens : int
        Tokens of cache: a paged pool's tokens, llama.cpp's cells [token].
    physics_kv_tokens : int or None
        The bound's capacity: tokens whose cache fits beside the weights, no reserve, each
        layer stored as the engine stores it (llama.cpp: windowed layers at their window and
        a micro-batch, unless ``--swa-full``; a paged engine: every layer whole); None where
        the context limit still fits (every layer windowed) [token].
    max_concurrency : float or None
        Requests of ``max_model_len`` tokens the pool holds at once (paged engines).
    engine_state_bytes : number or None
        The state of the state-space layers llama.cpp keeps beside the cache, every sequence's
        (0 for a model without such layers; None for a paged engine, whose state is in pages
        of its pool) [B].
    engine_block_tokens : int or None
        vLLM's attention block size for a hybrid model (state-space or linear-attention
        layers): the block raised until one attention page holds one layer's state, as its
        log prints it ('Setting attention block size to N tokens'); None otherwise [token].
    engine_state_page_bytes : int or None
        One state layer's page before padding (vLLM's mamba page size) [B].
    engine_page_bytes : int or None
        One layer's page: the attention page, the state page padded to it [B].
    engine_kv_groups : int or None
        KV cache groups of a hybrid's pool (attention groups and state groups).
    engine_pool_blocks : int or None
        Blocks of a hybrid's pool (each one page of every layer of a group).
    engine_draft_weights_bytes : number or None
        A speculative draft's weights on one chip (a draft model's, or the model's MTP
        module's), counted in ``engine_weights_bytes``; None without a draft [B].
    engine_draft_kv_bytes_per_token : number or None
        Cache one token adds to the draft's layers on one chip, counted in
        ``engine_kv_bytes_per_token`` (vLLM); None without a draft, or where the engine's
        handling of the draft's cache was not read [B].
    """

    engine: str
    model: str
    hardware: str | None
    tp: int
    pp: int
    settings: dict[str, Any]
    bits_kv: float
    engine_weights_bytes: Any
    engine_reserved_bytes: float | None
    engine_kv_memory_bytes: float | None
    engine_kv_bytes_per_token: Any
    engine_kv_cache_bytes: Any
    engine_kv_cache_tokens: Any
    physics_kv_tokens: Any
    max_concurrency: float | None
    windowed_layers_whole: bool
    rules: tuple[str, ...] = field(repr=False)
    reserve_source: str | None = field(repr=False)
    engine_state_bytes: Any = None
    engine_block_tokens: Any = None
    engine_state_page_bytes: Any = None
    engine_page_bytes: Any = None
    engine_kv_groups: Any = None
    engine_pool_blocks: Any = None
    engine_draft_weights_bytes: Any = None
    engine_draft_kv_bytes_per_token: Any = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields (exact numbers as int or float)."""
        d = {k: exact_result(v) for k, v in asdict(self).items()}
        d["rules"] = list(self.rules)
        return d


#: Engines whose default cache dtype ("auto") is the one the checkpoint's quantization asks for
#: (:attr:`~llm_arithmetic.catalog.model.Model.native_kv_bits`: a ModelOpt file's FP8 cache),
#: else the model's 16 bits: vLLM (``resolve_kv_cache_dtype_string`` and
#: ``get_kv_cache_quant_algo_string``, vllm-project/vllm ``vllm/utils/torch_utils.py`` @
#: 959009b402c329c7b885afe7d459726db919a41f) and TensorRT-LLM, which takes
#: ``kv_cache_quant_algo`` from a ModelOpt ``hf_quant_config.json`` (index file id 352784685),
#: and SGLang: ``configure_kv_cache_dtype`` resolves ``--kv-cache-dtype auto`` to fp8_e4m3 where
#: the model's quantization config has ``kv_cache_quant_algo`` "FP8", else to the model's dtype
#: (sgl-project/sglang ``python/sglang/srt/mem_cache/kv_cache_dtype.py`` @
#: aff0d58aaf0f0e7230b480ba1bc2433ee8b74b43; before, the same code in
#: ``ModelRunner.configure_kv_cache_dtype`` of ``model_runner.py``), and only ModelOpt's configs
#: set that attribute: from ``hf_quant_config.json``'s ``kv_cache_quant_algo``, or "FP8" from a
#: ``config.json`` ``kv_cache_scheme`` of 8-bit floats (``ModelOptQuantConfig`` and
#: ``ModelOptFp8Config.from_config`` in ``python/sglang/srt/layers/quantization/
#: modelopt_quant.py``, index file id 3749305510), the two forms
#: :attr:`~llm_arithmetic.catalog.quantization.Scheme.kv_bits` reads.
_AUTO_READS_CHECKPOINT = frozenset({"vllm", "tensorrt-llm", "sglang"})


def _bits_kv(spec: Mapping[str, Any], settings: Mapping[str, Any], engine: str = "",
             model: Any = None) -> Fraction:
    if spec["kind"] == "cells":
        k, v = (bits_per_weight(spec["cache_types"][settings[t]]) for t in ("type_k", "type_v"))
        return (k + v) / 2
    dtype = spec["kv_dtypes"][settings.get("kv_dtype", "auto")]
    if dtype != "model":
        return bits_per_weight(dtype)
    if engine in _AUTO_READS_CHECKPOINT and model is not None:
        return Fraction(model.native_kv_bits)
    return Fraction(16)


def _reserve(spec: Mapping[str, Any], settings: Mapping[str, Any],
             reserve_gib: Any) -> float | None:
    if reserve_gib is not None:
        return _gib("reserve_gib", reserve_gib) * GiB
    parts = dict(spec.get("reserve", {}))
    if not parts:
        return None
    if settings.get("eager"):
        parts.pop("cuda_graph_gib", None)
    return sum(parts.values()) * GiB


def state_bits(spec: Mapping[str, Any], dtype: str, auto: Any) -> Any:
    """Bits of a state dtype of ``spec["state_dtypes"]``; ``auto`` for "auto".

    >>> vllm = ENGINES["vllm"]
    >>> int(state_bits(vllm, "float32", None)), state_bits(vllm, "auto", 16)
    (32, 16)
    """
    name = spec["state_dtypes"][dtype]
    return auto if name == "auto" else bits_per_weight(name)


def _checkpoint_ssm_bits(m: Model) -> int | None:
    """Bits of the recurrent state the checkpoint asks for, as its family's reader read them
    from ``config.json`` into the state layers (``ssm_bits``: Qwen3.5's ``mamba_ssm_dtype``,
    Nemotron-H's ``mamba_ssm_cache_dtype``), or None where the config names none.

    >>> from llm_arithmetic import get_model
    >>> _checkpoint_ssm_bits(get_model("qwen3.5-27b")), _checkpoint_ssm_bits(get_model("gpt2"))
    (32, None)
    """
    bits = {getattr(b.mixer, "ssm_bits", None) for b in m.layers if b.mixer is not None}
    bits.discard(None)
    return bits.pop() if len(bits) == 1 else None


def _auto_ssm_bits(spec: Mapping[str, Any], m: Model, conv: Any) -> Any:
    """Bits of the recurrent state under ``--mamba-ssm-cache-dtype auto``: the checkpoint's,
    else the engine's default for the model's family (vLLM: float32 for Nemotron-H), else the
    convolution state's."""
    own = _checkpoint_ssm_bits(m)
    if own is not None:
        return Fraction(own)
    family = spec["hybrid"].get("ssm_auto", {}).get(m.family)
    return conv if family is None else state_bits(spec, family, conv)


def _hybrid_modelled(m: Model, tp: int, pp: int) -> str | None:
    """Why vLLM's hybrid pool of ``m`` is not modelled here (None when it is): one chip, every
    attention layer full and alike, every state layer a Gated DeltaNet, Mamba-2, gated short
    convolution or lightning attention mixer and alike, none sharing a block."""
    if max(tp, pp) > 1:
        return "with tensor or pipeline parallelism (the state split over chips)"
    attention = {repr(b.attention) for b in m.layers if b.attention is not None}
    mixers = {repr(b.mixer) for b in m.layers if b.mixer is not None}
    if any(b.attention is not None and b.mixer is not None for b in m.layers) \
            or len(attention) != 1 or len(mixers) != 1 \
            or any(b.attention.window or b.attention.chunk for b in m.layers
                   if b.attention is not None):
        return "for a stack whose attention or state layers differ from one another"
    if {type(b.mixer) for b in m.layers if b.mixer is not None} - _POOLED_MIXERS:
        return ("for KDA layers (the rule is checked against published logs of Gated "
                "DeltaNet and Mamba-2 hybrids only)")
    return None


#: State layers whose pages in vLLM's hybrid pool the view models. Each is one MambaSpec whose
#: page is the sum over its state tensors of elements x dtype size
#: (vllm/v1/kv_cache_interface.py, MambaSpec.page_size_bytes), with the shapes and dtypes of
#: vllm/model_executor/layers/mamba/mamba_utils.py @ 02d710837549a368073552333f66d714477415d2
#: (MambaStateShapeCalculator, MambaStateDtypeCalculator), as the models ask for them:
#: * Mamba-2 and Gated DeltaNet: a convolution window in --mamba-cache-dtype and a recurrent
#:   matrix in --mamba-ssm-cache-dtype;
#: * a gated short convolution (LFM2, LFM2-MoE): one window of (conv_L_cache - 1) x conv_dim
#:   (LFM2-MoE: hidden_size) in --mamba-cache-dtype, short_conv_state_shape and
#:   short_conv_state_dtype (Lfm2ForCausalLM, vllm/model_executor/models/lfm2.py @
#:   6b06599499a6f9d6f140ae26ff95b3cbd2e7e75c; Lfm2MoeForCausalLM, lfm2_moe.py @
#:   26305e9d9d3d36faadb54c859a65ef8cde4b0df7);
#: * lightning attention (MiniMax-Text-01, MiniMax-M1): one (num_attention_heads, head_dim,
#:   head_dim) matrix in --mamba-cache-dtype, linear_attention_state_shape and
#:   linear_attention_state_dtype (MiniMaxText01ForCausalLM, vllm/model_executor/models/
#:   minimax_text_01.py @ 98370df70c1813f5f9c9c127e8baed660cd09280).
#: --mamba-ssm-cache-dtype changes neither of the last two. The attention block then grows to
#: hold one page, as for the others (HybridAttentionMambaModelConfig.verify_and_update_config,
#: vllm/model_executor/models/config.py @ 1936cf3841edb9781b06c50fc4daf4bac9d3b23e).
_POOLED_MIXERS = frozenset({GatedDeltaNet, Mamba2, ShortConv, LightningAttention})


def _hybrid_refusals(m: Model, engine: str, settings: Mapping[str, Any]) -> list[str]:
    """Setups of the modelled hybrid pool that some vLLM versions refuse for ``m``'s state
    layers, one line each (the view still counts them by vLLM's rule):

    * LFM2 and LFM2-MoE with prefix caching (``--mamba-cache-mode align``, the mode vLLM takes
      for it): ``Lfm2ForCausalLM`` and ``Lfm2MoeForCausalLM`` assert it off ("Lfm2 currently
      does not support prefix caching", lfm2.py @ 6b06599499a6f9d6f140ae26ff95b3cbd2e7e75c;
      "Lfm2Moe currently ...", lfm2_moe.py @ 26305e9d9d3d36faadb54c859a65ef8cde4b0df7);
    * lightning attention with a float32 state (``--mamba-cache-dtype float32``):
      ``linear_attention_state_dtype`` raises "fp32 state for minimax is not yet supported" at
      vllm/model_executor/layers/mamba/mamba_utils.py @
      2afe1e8573cf51b73569ae1d35f59078a2032a91 (the check is gone @
      02d710837549a368073552333f66d714477415d2).
    """
    kinds = {type(b.mixer) for b in m.layers if b.mixer is not None}
    out = []
    if ShortConv in kinds and settings.get("mamba_mode") == "align":
        out.append(f"{engine}: {m.name}: vLLM versions whose LFM2 model asserts prefix caching "
                   "off ('Lfm2 currently does not support prefix caching') refuse "
                   "--mamba-cache-mode align; the pool is counted as align mode would take it")
    if LightningAttention in kinds and settings.get("state_dtype") == "float32":
        out.append(f"{engine}: {m.name}: vLLM versions that raise 'fp32 state for minimax is "
                   "not yet supported' refuse --mamba-cache-dtype float32 for lightning "
                   "attention layers; the pool is counted with a float32 state")
    return out


def engine_view(model: str | Path | Model, engine: str, *, hardware: Any = None,
                capacity: int | None = None, tp: int = 1, pp: int = 1,
                weights: str | None = None, bits_weight: Any = None,
                flags: Mapping[str, Any] | None = None, reserve_gib: float | None = None,
                kv_memory_gib: float | None = None, speculation: str | None = None,
                draft: Any = None) -> EngineView:
    """What ``engine`` allocates on one chip for ``model`` with the engine's ``flags``.

    Parameters
    ----------
    model : Model, str or Path
        A model, a catalog name or a path to a ``config.json``.
    engine : str
        ``"vllm"``, ``"sglang"``, ``"tensorrt-llm"`` or ``"llama.cpp"``.
    hardware : str or Hardware, optional
        The chip (its memory sizes a paged engine's pool).
    capacity : int, optional
        The chip's memory [B], instead of the catalog's (what the engine sees: vLLM's
        ``total_gpu_memory``).
    tp, pp : int
        Tensor- and pipeline-parallel degrees (vLLM's ``--tensor-parallel-size``).
    weights, bits_weight : optional
        The weights as loaded (a format name, a llama.cpp file type, or bits); default as the
        checkpoint ships.
    flags : mapping, optional
        The engine's flags, by its own names (``{"--gpu-memory-utilization": 0.9}``).
    reserve_gib : float, optional
        The engine's reserve beside weights and cache [GiB], as its log prints it; default the
        empirical figure of ``engines.toml``.
    kv_memory_gib : float, optional
        The pool's memory as the engine printed it ("Available KV cache memory") [GiB]: the
        tokens then follow from the engine's own arithmetic, whatever the reserve.
    speculation, draft : optional
        A speculative draft held beside the model (as :func:`~llm_arithmetic.estimate`
        takes them): the workload ``"mtp"`` (the model's own MTP module) or a draft model
        (a Model, a catalog name or a config.json; its weights in the format of ``weights``).
        vLLM loads the draft's weights in the same memory profile as the target's, so they
        come out of the pool's memory, and gives the draft's attention layers pages of the
        same pool, so a token takes the draft's cache too (``engines.toml`` gives the
        source). SGLang and TensorRT-LLM: the draft's weights are taken from the memory left
        and its cache is not counted (not read; a warning says so). llama.cpp, and vLLM's
        hybrid pool, with a draft: refused.

    Notes
    -----
    A hybrid model (state-space or linear-attention layers beside attention) on vLLM keeps
    each layer's state in pages of the same pool: the attention block grows until a page holds
    one layer's state, and the tokens and the concurrency are those vLLM prints (up to 0.20.0;
    the printed tokens count the state groups' blocks too). That is modelled for Gated DeltaNet
    hybrids (Qwen3.5, Qwen3-Next) and Mamba-2 hybrids (Nemotron-H, Nemotron 3) on one chip, the
    state's dtypes from ``--mamba-cache-dtype`` and ``--mamba-ssm-cache-dtype`` (auto: the
    dtype the checkpoint names, read by its family's reader into the state layers'
    ``ssm_bits``; else vLLM's default for the family), and checked against published logs;
    and, by the same rule from vLLM's code (no published log checked), for gated short
    convolution hybrids (LFM2) and lightning attention hybrids (MiniMax-M1), whose state is
    one tensor in ``--mamba-cache-dtype`` (a setup some vLLM versions refuse is named in a
    warning); elsewhere (KDA layers, tensor parallelism, SGLang, TensorRT-LLM) the view counts
    the attention layers alone and warns.

    >>> v = engine_view("qwen3.5-35b-a3b", "vllm", kv_memory_gib=55.72,
    ...                 flags={"--max-model-len": 262144, "--mamba-cache-mode": "align"})
    >>> v.engine_block_tokens, v.engine_kv_cache_tokens, round(v.max_concurrency, 2)
    (1056, 729696, 10.85)
    """
    from .arguments import resolve_model
    from .estimate import STATE_WINDOW_BITS
    from .layout import chip_inputs, parallel_degrees
    from .weights import weight_inputs

    spec = _engine(engine)
    settings = engine_settings(engine, flags)
    m = resolve_model(model)
    if m.has_compressed_attention:
        why = _COMPRESSED_UNMODELLED.get(engine, _COMPRESSED_UNMODELLED[""])
        raise InputError(f"{m.name}: {why.format(engine=engine)}")
    if m.uncounted:  # the plan's engine terms would count such a layer's cache as 0
        raise InputError(f"{m.name}: the engine view is of the KV cache an engine allocates, "
                         f"which is not counted: it needs {m.uncounted}")
    chip = get_hardware(hardware) if hardware is not None else None
    tp, _, pp = parallel_degrees(m, tp, 1, pp)
    if engine == "vllm" and m.family == "phi4flash" and tp > 1:
        # vllm-project/vllm @ 03356f8c vllm/model_executor/models/phi4flash.py: plain nn.Linear
        # layers, A and D at the whole d_inner, weights loaded whole (load_state_dict)
        raise InputError(f"tp: {m.name}: vLLM's phi4flash.py builds its layers unsplit and "
                         "loads whole weights, so it runs the model on one chip only; the "
                         "estimate without --engine follows vLLM's tensor-parallel layers of the "
                         "same kinds")
    if engine == "vllm" and m.family in _VLLM_CLA_FAMILIES \
            and any(b.attention is not None and b.attention.kv_shared for b in m.layers):
        raise InputError(f"engine: {m.name}: {_VLLM_CLA_REFUSED}")
    if spec["kind"] == "cells" and max(tp, pp) > 1:
        raise InputError(f"{'tp' if tp > 1 else 'pp'}: the llama.cpp view is of one device "
                         "(its layers split over devices keep the whole cache of their layers)")
    if capacity is not None and (isinstance(capacity, bool)
                                 or not isinstance(capacity, numbers.Real) or not capacity > 0):
        raise InputError(f"capacity must be a positive number of bytes, got {capacity!r:.40}")
    kv_memory = None
    if kv_memory_gib is not None:
        kv_memory = int(round(_gib("kv_memory_gib", kv_memory_gib) * GiB))
    paged = spec["kind"] == "paged"
    reserve = _reserve(spec, settings, reserve_gib)
    fraction = settings.get("fraction")
    if paged and fraction is None and kv_memory is None:
        raise InputError(f"{engine}: give {_flag(spec, 'fraction')} (the engine picks it from "
                         "the chip when it is not given; its log prints it)")
    bits_kv = _bits_kv(spec, settings, engine, m)
    # llama.cpp keeps the whole recurrent state (window and matrix) in its own type whatever
    # the checkpoint names; elsewhere the window is at the model's 16 bits (STATE_WINDOW_BITS)
    # and the matrix at the checkpoint's bits (bits_ssm None)
    bits_state = bits_per_weight(spec["cache_types"][spec["state_type"]]) \
        if "state_type" in spec else STATE_WINDOW_BITS
    bits_ssm = bits_state if "state_type" in spec else None
    inputs = {name: None for name in ENGINE_INPUTS}
    inputs.update(engine=engine, engine_kv_memory_given=kv_memory, engine_reserve=reserve)
    if paged:
        key = "engine_free_fraction" if spec.get("free_fraction") else "engine_fraction"
        inputs.update({key: fraction, "engine_page": settings["page"],
                       "engine_max_model_len": settings.get("max_model_len")})
    else:
        inputs.update(engine_ctx=settings["ctx"] or m.trained_context,
                      engine_ubatch=settings["ubatch"], engine_seqs=settings["seqs"],
                      engine_pad=settings["pad"], engine_swa_full=int(settings["swa_full"]))
    hybrid = paged and bool(m.state_bytes(16)) and "hybrid" in spec
    why_not = _hybrid_modelled(m, tp, pp) if hybrid else None
    held = _draft_held(m, engine, spec, speculation, draft, weights, bits_weight,
                       hybrid=hybrid and why_not is None, tp=tp, pp=pp)
    if hybrid and why_not is None:
        bits_conv = state_bits(spec, settings["state_dtype"], Fraction(16))
        bits_ssm = state_bits(spec, settings["ssm_dtype"], _auto_ssm_bits(spec, m, bits_conv))
        for line in _hybrid_refusals(m, engine, settings):
            warnings.warn(line, stacklevel=2)
        inputs.update(engine_hybrid=1, engine_page_align=spec["hybrid"]["page_align"],
                      engine_bits_conv=bits_conv, engine_bits_ssm=bits_ssm,
                      engine_state_blocks=spec["mamba_modes"][settings["mamba_mode"]])
    held_model = _vllm_held(m) if engine == "vllm" else m
    ev = held_model.plan.child(
        **chip_inputs(chip), given_capacity=capacity, tp=tp, ep=1, pp=pp,
        **weight_inputs(m, weights, bits_weight),
        **(_vllm_weight_inputs(m, held_model, weights, bits_weight, tp) if engine == "vllm"
           else {}),
        weight_format=plan_format(weights), bits_kv=bits_kv, bits_state=bits_state,
        bits_ssm=bits_ssm, **inputs, **held)
    if paged and kv_memory is None and ev.get("capacity") is None:
        raise InputError(f"{engine}: the pool is a share of the chip's memory: give a "
                         "hardware or its capacity, or the memory the log prints")
    if paged and m.state_bytes(16) and (not hybrid or why_not):
        where = f"{engine} {why_not}" if why_not else engine
        warnings.warn(f"{engine}: {m.name} has state-space or linear-attention layers, whose "
                      "recurrent state a paged engine keeps in pages of the same pool (vLLM "
                      "widens the attention pages to the state's page size); that is not "
                      f"modelled for {where}: the tokens here are the attention layers' alone "
                      "and differ from what the engine prints", stacklevel=2)
    tokens = _whole(ev.get("engine_kv_cache_tokens"))
    view = EngineView(
        engine=engine, model=m.name, hardware=chip.name if chip is not None else None, tp=tp,
        pp=pp, settings=settings, bits_kv=float(bits_kv),
        engine_weights_bytes=ev.get("engine_weights_bytes"), engine_reserved_bytes=reserve,
        engine_kv_memory_bytes=ev.get("engine_pool_memory"),
        engine_kv_bytes_per_token=ev.get("engine_kv_bytes_per_token"),
        engine_kv_cache_bytes=_whole(ev.get("engine_kv_cache_bytes")),
        engine_kv_cache_tokens=tokens,
        physics_kv_tokens=_whole(ev.get("physics_kv_tokens")) if ev.get("capacity") else None,
        max_concurrency=ev.get("engine_max_concurrency"),
        windowed_layers_whole=paged or bool(settings.get("swa_full")),
        rules=tuple(spec["rules"]), reserve_source=spec.get("reserve_source"),
        engine_state_bytes=_whole(ev.get("engine_state_bytes")),
        engine_block_tokens=ev.get("engine_block_tokens"),
        engine_state_page_bytes=_whole(ev.get("engine_state_page")),
        engine_page_bytes=_whole(ev.get("engine_page_bytes")),
        engine_kv_groups=ev.get("engine_kv_groups"),
        engine_pool_blocks=_whole(ev.get("engine_pool_blocks")),
        engine_draft_weights_bytes=(ev.get("engine_draft_weights_bytes")
                                    if any(v is not None for v in held.values()) else None),
        engine_draft_kv_bytes_per_token=(ev.get("engine_draft_kv_bytes_per_token")
                                         if held["draft_blocks"] is not None else None))
    # the plan's values, kept beside the record as the estimate keeps them, for
    # :func:`llm_arithmetic.explain.explain` (the step behind each row of the engine's table)
    object.__setattr__(view, "_plan", ev)
    return view


def _draft_held(m: Model, engine: str, spec: Mapping[str, Any], speculation: Any, draft: Any,
                weights: Any, bits_weight: Any, *, hybrid: bool, tp: int = 1,
                pp: int = 1) -> dict[str, Any]:
    """The plan's inputs for what a speculative draft holds on the engine's chips
    (:func:`~llm_arithmetic.speculative.draft_memory_inputs`), as far as the engine's handling
    of a draft was read: vLLM's whole (weights and cache); SGLang's and TensorRT-LLM's weights
    alone, with a warning; llama.cpp and vLLM's hybrid pool refused."""
    from .speculative import NOTHING_HELD, draft_held, speculative_workload

    which = "draft" if draft is not None else "speculation"
    workload = speculative_workload(m, speculation, module_held=draft is None)
    # a draft model is checked under the engine's rule (vLLM: one vocab_size,
    # estimate.check_draft) and split over the chips as the target (tp: vLLM's default)
    _, held = draft_held(m, workload, draft, engine=engine, tp=tp, pp=pp, weights=weights,
                         bits_weight=bits_weight)
    if held is None:
        return dict(NOTHING_HELD)
    if spec["kind"] == "cells":
        raise InputError(f"{which}: the {engine} view does not model a speculative draft: "
                         "how llama.cpp holds a draft's weights and cache was not read; "
                         "describe without --engine counts the draft's weights and cache")
    if hybrid and held["draft_blocks"] is not None:
        raise InputError(f"{which}: the engine view does not model {engine}'s hybrid pool with a "
                         "speculative draft: the draft's layers join the pool's KV cache "
                         "groups, which is not modelled; describe without --engine counts "
                         "the draft's weights and cache")
    if engine != "vllm":
        warnings.warn(f"{engine}: the draft's weights are taken from the memory left for the "
                      f"cache; how {engine} sizes the draft's own cache was not read, so it is "
                      "not counted and the tokens are an upper end", stacklevel=3)
        held = dict(held, draft_blocks=None)
    return held


def _whole(v: Any) -> Any:
    """A float that is a whole number as an int (a pool's tokens and bytes are counts)."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _flag(spec: Mapping[str, Any], rule: str) -> str:
    return next(flag for flag, r in spec["flags"].items() if r == rule)


def check_log_line(line: Mapping[str, Any], root: Path | None = None) -> tuple[Any, float]:
    """The engine view's figure for one published log line and the line's own, as
    ``tests/data/engine_logs.toml`` records it (``check``: ``tokens_from_memory``,
    ``concurrency_tokens``, ``tokens_from_flags``, ``pool_bytes`` or ``cells_bytes``); a model
    given as a path to a ``config.json`` is read relative to ``root``.

    ``concurrency_tokens`` is the "GPU KV cache size" of the vLLM versions that print
    int(maximum concurrency x max_model_len) (0.20.1 and later) from the memory the log prints.

    >>> check_log_line({"engine": "llama.cpp", "model": "llama-3.1-70b", "check": "cells_bytes",
    ...                 "ctx": 4096, "mib": 1280.0})
    (1342177280, 1342177280.0)
    """
    model = line["model"]
    if model.endswith(".json") and root is not None:
        from pathlib import Path

        model = str(Path(root) / model)
    kw = dict(tp=line.get("tp", 1), weights=line.get("weights"))
    check = line["check"]
    if check in ("tokens_from_memory", "concurrency_tokens"):
        spec = _engine(line["engine"])
        flags = {_flag(spec, rule): line[rule] for rule in
                 ("max_model_len", "mamba_mode", "kv_dtype", "ssm_dtype") if rule in line}
        v = engine_view(model, line["engine"], kv_memory_gib=line["kv_memory_gib"], flags=flags,
                        **kw)
        if check == "concurrency_tokens":
            return int(v.max_concurrency * line["max_model_len"]), float(line["tokens"])
        return v.engine_kv_cache_tokens, float(line["tokens"])
    if check == "tokens_from_flags":
        spec = _engine(line["engine"])
        v = engine_view(model, line["engine"], capacity=int(line["capacity_gib"] * GiB),
                        flags={_flag(spec, "fraction"): line["fraction"]},
                        reserve_gib=line["reserve_gib"], **kw)
        return v.engine_kv_cache_tokens, float(line["tokens"])
    if check == "pool_bytes":
        v = engine_view(model, line["engine"], kv_memory_gib=0, **kw)
        return v.engine_kv_bytes_per_token * line["tokens"], line["pool_gib"] * GiB
    if check == "cells_bytes":
        flags = {"--ctx-size": line["ctx"], "--cache-type-k": line.get("type_k", "f16"),
                 "--cache-type-v": line.get("type_v", "f16")}
        v = engine_view(model, line["engine"], flags=flags)
        return v.engine_kv_cache_bytes, line["mib"] * MiB
    raise InputError(f"check: unknown check {check!r:.40} of log line {line.get('id')!r:.40}")
