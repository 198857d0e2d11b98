"""A model as a stack of layer kinds, and every count that sums over the stack.

A :class:`Model` holds the embeddings and a tuple of :class:`Layers`, each a run of identical
blocks: an :class:`Attention` (multi-head, grouped-query or multi-query; or DeepSeek's latent
attention, MLA; over the full context, a sliding window or a chunk; with or without biases, q/k
norms, attention sinks and an output gate), a :class:`Mamba2` state-space mixer or a
:class:`GatedDeltaNet`, :class:`KimiDeltaAttention` or :class:`LightningAttention`
linear-attention mixer (a constant-size state instead of a cache), a :class:`Mamba1` mixer or
SambaY's stateless :class:`GatedMemoryUnit`, a :class:`ShortConv` gated
short convolution (LFM2), or
attention and a mixer side by side, and an :class:`MLP` (dense, plain or gated; or a mixture
of experts with routed and shared experts of their own widths). Readers of Hugging Face
``config.json`` files (:mod:`llm_arithmetic.catalog.readers`) build them.

Every quantity is the sum over the stack of one formula per layer kind (the formulas of
:mod:`llm_arithmetic.formulas`, evaluated by their generated numeric functions, so nothing here
imports sympy). For a stack whose blocks are all alike, the sums equal the closed forms of a
uniform decoder (:data:`~llm_arithmetic.formulas.params.total_params` and the others), which
the tests check.

>>> m = Model.transformer(name="llama-2-7b", n_vocab=32000, d_model=4096, n_layers=32,
...                       n_heads=32, n_kv_heads=32, d_head=128, d_ff=11008)
>>> m.total_params, m.kv_cache_bytes_per_token()
(6738415616, 524288)
"""
from __future__ import annotations

from dataclasses import asdict, field, fields, replace
from functools import cached_property
from fractions import Fraction
from numbers import Integral
from types import MappingProxyType
from typing import Any, Mapping

from .. import numeric as N
from ..core.errors import ConfigError
from ..core.records import record
from ..plan.interpreter import (DEFAULT, PLAN_STEPS, Evaluator, MissingTerm, part_scope,
                                part_term)
from ..plan.stack import PARTS, TERMS, UNCOUNTED
from ..plan.steps import INPUTS
from .format_compute import plan_format

#: The plan's inputs that describe a serving engine (None: no engine).
ENGINE_INPUTS = tuple(name for name in INPUTS if name.startswith("engine"))

__all__ = ["Attention", "MLP", "Mamba2", "GatedDeltaNet", "KimiDeltaAttention", "ShortConv",
           "LightningAttention", "Mamba1", "GatedMemoryUnit", "Layers", "Extra", "ImageRule",
           "MTP_EXTRA", "HASH_EXTRA", "Model", "ConfigError"]


def _check_int(owner: str, name: str, value: Any, *, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ConfigError(f"{owner}: {name} must be an integer, got {value!r:.60}")
    if value < minimum:
        need = {0: "non-negative", 1: "positive"}.get(minimum, f"at least {minimum}")
        raise ConfigError(f"{owner}: {name} must be {need}, got {value}")


def _part(part: str, record: Any, term: str, **inputs: Any) -> Any:
    """One term of :data:`llm_arithmetic.plan.stack.TERMS` for one part of a layer."""
    def lookup(name: str, default: bool = False) -> Any:
        if name in inputs:
            return inputs[name]
        if default:
            return DEFAULT
        raise ConfigError(f"{term} of a {part} needs {name!r}")

    scope = part_scope(part, asdict(record))
    try:
        return part_term(term, scope, lookup, {})
    except MissingTerm:
        why = next((UNCOUNTED[v] for v in scope.values() if v in UNCOUNTED), "")
        raise ConfigError(f"{term} of a {part} is not counted: it needs {why}") from None


@record
class Attention:
    """One attention block.

    Attributes
    ----------
    n_heads, n_kv_heads, d_head : int
        Query heads, key/value heads (= n_heads for MHA, 1 for MQA) and head width. For latent
        attention, ``n_kv_heads`` equals ``n_heads`` (keys and values are formed per head) and
        ``d_head`` is the query/key width d_nope + d_rope.
    window : int or None
        Sliding-window length [token]: the layer attends to (and caches) the last ``window``
        tokens only.
    chunk : int or None
        Chunked attention [token]: a token attends to the earlier tokens of its own chunk.
    qkv_bias, o_bias : bool
        Biases on the q, k, v projections and on the output projection.
    qk_norm : str
        ``""``; ``"head"``: one norm of width d_head each for queries and keys (Qwen3, Gemma 3);
        ``"full"``: norms over the whole projections (OLMo 2, Cohere).
    qk_norm_split : bool
        Whole-projection q/k norms that vLLM splits with the heads under tensor parallelism
        (MiniMax-M2's ``MiniMaxText01RMSNormTP``); without it every chip holds them whole
        (OLMo 2 and 3, OLMoE: ``formulas.engine.gqa_copied_params``). No count changes.
    sinks : bool
        A learned attention-sink logit per head (gpt-oss).
    gate : int
        Width of an output gate per head, a projection of the block's input applied to the
        attention output before the output projection: ``d_head`` (a gate per channel,
        Qwen3-Next and Qwen3.5; ``d_v`` on Kimi K3's gated latent attention), 1 (a gate per
        head, Laguna), 0 (none).
    kv_lora_rank, q_lora_rank, d_nope, d_rope, d_v : int
        Multi-head latent attention (MLA), when ``kv_lora_rank`` > 0: the latent width, the
        query's low rank (0: a full-rank query projection), the query/key widths without and
        with rotary embedding, and the value width. Without latent attention, ``d_v`` > 0 is
        a value width other than ``d_head`` (MiMo-V2-Flash: keys of 192, values of 128).
    index_heads, index_dim, index_topk : int
        A sparse-attention indexer (DeepSeek Sparse Attention), when ``index_topk`` > 0: its
        heads and head width (each token caches one indexer key of ``index_dim``), and how
        many cached positions it selects for the attention to read.
    index_shared : bool
        A sparse-attention layer without an indexer of its own (GLM-5.2's 'shared' layers in
        ``indexer_types``): it reads the ``index_topk`` positions an earlier layer's indexer
        selected, so it holds no indexer weights, caches no indexer key and spends no FLOPs
        scoring; its latent cache and the top-k read of it are as with an indexer.
        ``index_heads`` and ``index_dim`` then describe the indexer it borrows and count for
        nothing in this layer.
    index_block : int
        Block-sparse selection (MiniMax Sparse Attention, MiniMax-M3), when > 0: on
        grouped-query attention, the indexer (``index_heads`` queries of ``index_dim``, one
        index key of ``index_dim`` cached per token, a norm on each) selects, for each
        key/value head, blocks of ``index_block`` tokens, ``index_topk`` tokens in all (the
        top-k blocks times the block size, the current block among them).
    o_lora_rank, o_groups : int
        A grouped low-rank output projection (DeepSeek-V4), when ``o_groups`` > 0: the heads'
        outputs in ``o_groups`` groups, each projected to ``o_lora_rank``, then one projection
        to d. Such a block is DeepSeek-V4's compressed attention: one key-value head shared by
        keys and values (``n_kv_heads`` 1), a window, and with ``compress`` > 0 a compressor
        that adds one cache entry per ``compress`` tokens, from ``overlap`` series (2:
        overlapping windows, with an indexer of ``index_heads`` x ``index_dim`` selecting
        ``index_topk`` entries; 1: disjoint). Its parameters, its cache at a given context and
        its FLOPs are counted; a cache per token is not, the cache not being proportional to
        the context (:data:`~llm_arithmetic.plan.stack.UNCOUNTED`).
    compress, overlap : int
        See ``o_groups``.
    kv_tied : bool
        The values are the key projection's output (no value projection; Gemma 4's global
        layers, ``attention_k_eq_v``). Keys and values are still cached apart (the keys are
        normalized and rotated, the values only normalized), so only the parameters change.
    kv_shared : bool
        The block reads the keys and values an earlier layer of the same kind cached (Gemma 4
        E2B/E4B's last ``num_kv_shared_layers`` layers): no key or value projection, no key
        norm, no cache of its own; a decode step still reads that layer's cache. Hunyuan's
        cross-layer attention (``use_cla``) is the same form, with ``reuse_k_norm``.
    reuse_k_norm : bool
        With ``kv_shared``: the block normalizes the keys it reads with a key norm of its own
        (a weight vector of d_head; Hunyuan-Large's odd layers keep ``key_layernorm``). Only
        the parameters change: the cache read is the earlier layer's.
    diff : bool
        Differential attention (SambaY, Phi-4-mini-flash): the heads taken in pairs, each
        pair's two score maps weighing the values of both its heads and subtracted with a
        learned weight, then a sub-norm. Adds four lambda vectors of ``d_head`` and a sub-norm
        of 2 ``d_head`` per block, and doubles the FLOPs of the weighted sums of values.
    """

    n_heads: int
    n_kv_heads: int
    d_head: int
    window: int | None = None
    chunk: int | None = None
    qkv_bias: bool = False
    o_bias: bool = False
    qk_norm: str = ""
    qk_norm_split: bool = False
    sinks: bool = False
    gate: int = 0
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    d_nope: int = 0
    d_rope: int = 0
    d_v: int = 0
    index_heads: int = 0
    index_dim: int = 0
    index_topk: int = 0
    index_block: int = 0
    index_shared: bool = False
    kv_tied: bool = False
    kv_shared: bool = False
    reuse_k_norm: bool = False
    diff: bool = False
    o_lora_rank: int = 0
    o_groups: int = 0
    compress: int = 0
    overlap: int = 0

    def validate(self, owner: str) -> None:
        for f in ("n_heads", "n_kv_heads", "d_head"):
            _check_int(owner, f, getattr(self, f))
        for f in ("kv_lora_rank", "q_lora_rank", "d_nope", "d_rope", "d_v", "index_heads",
                  "index_dim", "index_topk", "index_block", "gate"):
            _check_int(owner, f, getattr(self, f), minimum=0)
        if self.d_v and self.gate and not self.is_mla:
            raise ConfigError(f"{owner}: an output gate with a separate value width (d_v) is "
                              "not modelled")
        for f in ("o_lora_rank", "o_groups", "compress", "overlap"):
            _check_int(owner, f, getattr(self, f), minimum=0)
        if self.o_groups and (not self.o_lora_rank or not self.q_lora_rank or self.is_mla
                              or (self.n_heads * self.d_head) % self.o_groups
                              or bool(self.compress) != bool(self.overlap)):
            raise ConfigError(f"{owner}: compressed attention (o_groups) needs o_lora_rank, "
                              "q_lora_rank, heads that divide into the groups, and a compress "
                              "ratio exactly when it has an overlap")
        if self.kv_tied and (self.is_mla or self.d_v or self.gate):
            raise ConfigError(f"{owner}: values tied to keys (kv_tied) are modelled for plain "
                              "grouped-query attention only")
        if self.kv_shared and (self.is_mla or self.d_v or self.gate or self.kv_tied
                               or self.o_groups):
            raise ConfigError(f"{owner}: layers that read an earlier layer's keys and values "
                              "(kv_shared) are modelled for plain grouped-query attention only")
        if self.diff and (self.is_mla or self.d_v or self.gate or self.kv_tied or self.o_groups
                          or self.index_topk or self.index_block or self.n_heads % 2
                          or self.n_kv_heads % 2):
            raise ConfigError(f"{owner}: differential attention (diff) is modelled for plain "
                              "grouped-query attention with even head counts only")
        if self.reuse_k_norm and (not self.kv_shared or self.qk_norm != "head"):
            raise ConfigError(f"{owner}: a key norm of its own on the keys a layer reads "
                              "(reuse_k_norm) needs kv_shared and per-head q/k norms "
                              "(qk_norm 'head')")
        if self.index_topk and self.o_groups:  # DeepSeek-V4's CSA: a compressor's indexer
            if not self.compress or not self.index_heads or not self.index_dim:
                raise ConfigError(f"{owner}: an indexer of compressed attention (index_topk) "
                                  "needs a compress ratio, index_heads and index_dim")
        elif self.index_block:  # MiniMax Sparse Attention: blocks per key/value head
            if (self.is_mla or self.o_groups or self.d_v or self.gate or self.kv_tied
                    or self.kv_shared or self.window or self.chunk):
                raise ConfigError(f"{owner}: a block-sparse indexer (index_block) is modelled "
                                  "for plain grouped-query attention over the whole context")
            for f in ("index_heads", "index_dim", "index_topk"):
                _check_int(owner, f, getattr(self, f))
            if self.index_topk % self.index_block:
                raise ConfigError(f"{owner}: index_topk ({self.index_topk}) is not a whole "
                                  f"number of blocks of index_block ({self.index_block})")
        elif self.index_topk:
            if not self.is_mla or not self.q_lora_rank:
                raise ConfigError(f"{owner}: a sparse-attention indexer (index_topk) needs "
                                  "latent attention with a query latent (kv_lora_rank, "
                                  "q_lora_rank)")
            for f in ("index_heads", "index_dim"):
                _check_int(owner, f, getattr(self, f))
        if self.is_lowq and (self.gate or self.d_v or self.kv_tied or self.kv_shared or self.diff
                             or self.qkv_bias or self.o_bias or self.qk_norm or self.sinks
                             or self.index_topk or self.index_block):
            raise ConfigError(f"{owner}: a low-rank query without latent keys and values "
                              "(q_lora_rank without kv_lora_rank: Step3's attention) is "
                              "modelled for plain grouped-query attention without biases, "
                              "q/k norms or sinks only")
        if self.index_shared and (not self.index_topk or self.index_block or self.o_groups):
            raise ConfigError(f"{owner}: a layer that reuses an earlier layer's top-k selection "
                              "(index_shared) is modelled for sparse latent attention "
                              "(index_topk) only")
        for f in ("window", "chunk"):
            if getattr(self, f) is not None:
                _check_int(owner, f, getattr(self, f))
        if self.window is not None and self.chunk is not None:
            raise ConfigError(f"{owner}: a layer cannot have both a sliding window and chunks")
        if self.n_heads % self.n_kv_heads:
            raise ConfigError(f"{owner}: n_kv_heads ({self.n_kv_heads}) does not divide "
                              f"n_heads ({self.n_heads})")
        if self.qk_norm not in ("", "head", "full"):
            raise ConfigError(f"{owner}: qk_norm must be '', 'head' or 'full', "
                              f"got {self.qk_norm!r}")
        if self.qk_norm_split and self.qk_norm != "full":
            raise ConfigError(f"{owner}: qk_norm_split needs whole-projection q/k norms "
                              f"(qk_norm 'full'), got qk_norm {self.qk_norm!r}")
        if self.is_mla:
            for f in ("d_nope", "d_rope", "d_v"):
                _check_int(owner, f, getattr(self, f))

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def is_lowq(self) -> bool:
        """A low-rank query on grouped-query heads (Step3's multi-matrix factorization
        attention): ``q_lora_rank`` without latent keys and values or compressed attention."""
        return self.q_lora_rank > 0 and not self.is_mla and not self.o_groups

    @property
    def kind(self) -> str:
        """``"MLA"``, ``"MHA"``, ``"MQA"`` or ``"GQA"``."""
        if self.is_mla:
            return "MLA"
        if self.n_kv_heads == self.n_heads:
            return "MHA"
        return "MQA" if self.n_kv_heads == 1 else "GQA"

    @property
    def span(self) -> str:
        """``"full"``, ``"sliding"`` or ``"chunked"``."""
        return "sliding" if self.window else "chunked" if self.chunk else "full"

    def params(self, d_model: int) -> int:
        """Parameters of the block [-]."""
        return _part("attention", self, "params", d_model=d_model)

    def matmul_params(self, d_model: int) -> int:
        """Weights in the block's matrix products for one token (no biases, norms, sinks) [-].

        In MLA's absorbed form the key and value up-projections are applied to the query and
        the output instead of the cache, still once per token, so every projection counts.
        """
        return _part("attention", self, "matmul_params", d_model=d_model)

    def kv_cache_bytes_per_token(self, bits_kv: Any = 16) -> Any:
        """Cache bytes one token adds to this layer [B]."""
        return _part("attention", self, "kv_layer", bits_kv=bits_kv)

    def tokens(self, context: Any) -> Any:
        """Cached positions the layer keeps, and reads for the next token, at S tokens."""
        return _part("attention", self, "attended", context=context)

    def decode_flops(self, context: Any) -> Any:
        """Attention FLOPs of the layer for one decoded token at S tokens [FLOP]."""
        return _part("attention", self, "layer_decode_flops", context=context)

    def prefill_flops(self, prompt: Any) -> Any:
        """Attention FLOPs of the layer for a causal prefill of T tokens [FLOP]."""
        return _part("attention", self, "layer_prefill_flops", prompt=prompt)

    def describe(self) -> str:
        text = f"{self.kind} {self.n_heads}"
        if self.is_mla:
            text += (f" heads, latent {self.kv_lora_rank} + rope {self.d_rope}"
                     + (f", q rank {self.q_lora_rank}" if self.q_lora_rank else ""))
            if self.index_topk and self.index_shared:
                text += f", top {self.index_topk:,} from an earlier layer's indexer"
            elif self.index_topk:
                text += (f", indexer {self.index_heads} x {self.index_dim} selecting "
                         f"{self.index_topk:,}")
        elif self.kind == "MHA":
            text += f" x {self.d_head}"
        else:
            text += f"/{self.n_kv_heads} heads x {self.d_head}"
            if self.is_lowq:
                text += f", q rank {self.q_lora_rank}"
        if self.index_block:
            text += (f", indexer {self.index_heads} x {self.index_dim} selecting "
                     f"{self.index_topk // self.index_block} blocks of {self.index_block} "
                     "per KV head")
        if self.d_v and not self.is_mla:
            text += f", values of {self.d_v}"
        if self.o_groups:
            text += (f", output in {self.o_groups} groups of rank {self.o_lora_rank}"
                     + (f", one cache entry per {self.compress} tokens" if self.compress else "")
                     + (f", indexer {self.index_heads} x {self.index_dim}"
                        + (f" selecting {self.index_topk:,}" if self.index_topk else "")
                        if self.index_heads else ""))
        if self.window:
            text += f", window {self.window:,}"
        if self.chunk:
            text += f", chunks of {self.chunk:,}"
        extras = [x for x, on in (("q/k/v bias", self.qkv_bias), ("o bias", self.o_bias),
                                  (f"q/k norm ({self.qk_norm})", self.qk_norm),
                                  ("sinks", self.sinks), ("values = keys", self.kv_tied),
                                  ("keys and values of an earlier layer", self.kv_shared),
                                  ("a key norm of its own", self.reuse_k_norm),
                                  ("differential", self.diff),
                                  (f"output gate {self.gate} per head", self.gate))
                  if on]
        return text + (f" ({', '.join(extras)})" if extras else "")


@record
class MLP:
    """One MLP block: dense (``n_experts`` = 1) or a mixture of experts.

    Attributes
    ----------
    d_ff : int
        Hidden width of the dense MLP, or of one routed expert.
    n_mats : int
        3 for a gated MLP (gate, up, down), 2 for a plain one.
    bias : bool
        Biases on the MLP's (or each expert's) matrices.
    n_experts, top_k : int
        Routed experts, and how many each token uses.
    n_shared, d_shared : int
        Shared experts (every token uses them) and the width of each.
    router_bias : bool
        The router carries a bias vector of ``n_experts`` entries.
    shared_gate : bool
        The shared experts' output is scaled by a learned gate (a d-vector; Qwen2-MoE).
    latent : int
        A latent mixture of experts (Nemotron 3 Super), when > 0: the routed experts work in a
        latent of this width between a shared down- and up-projection.
    latent_norm : bool
        The routed experts' latent sum is normalized (an RMSNorm of the latent width) before
        the up-projection (Kimi K3's ``latent_moe_use_norm``).
    pad_min : int
        Under tensor parallelism the engine pads each routed expert to at least this width a
        chip, with zeros, where ``d_ff / tp`` is less (vLLM's Kimi K3: 256); 0 for no padding.
    """

    d_ff: int
    n_mats: int = 3
    bias: bool = False
    n_experts: int = 1
    top_k: int = 1
    n_shared: int = 0
    d_shared: int = 0
    router_bias: bool = False
    shared_gate: bool = False
    latent: int = 0
    latent_norm: bool = False
    pad_min: int = 0

    def validate(self, owner: str) -> None:
        _check_int(owner, "d_ff", self.d_ff)
        _check_int(owner, "latent", self.latent, minimum=0)
        if self.latent and self.n_experts < 2:
            raise ConfigError(f"{owner}: a latent width needs routed experts")
        if self.latent_norm and not self.latent:
            raise ConfigError(f"{owner}: a latent norm needs a latent width")
        _check_int(owner, "pad_min", self.pad_min, minimum=0)
        _check_int(owner, "n_experts", self.n_experts)
        _check_int(owner, "top_k", self.top_k)
        _check_int(owner, "n_shared", self.n_shared, minimum=0)
        _check_int(owner, "d_shared", self.d_shared, minimum=0)
        if self.n_mats not in (2, 3):
            raise ConfigError(f"{owner}: n_mats must be 2 or 3, got {self.n_mats!r}")
        if self.top_k > self.n_experts:
            raise ConfigError(f"{owner}: top_k ({self.top_k}) exceeds n_experts "
                              f"({self.n_experts})")
        if self.n_shared and not self.d_shared:
            raise ConfigError(f"{owner}: {self.n_shared} shared experts but no d_shared")

    @property
    def is_moe(self) -> bool:
        return self.n_experts > 1

    def params(self, d_model: int) -> int:
        """Parameters of the block (every expert) [-]."""
        return _part("mlp", self, "params", d_model=d_model)

    def active_params(self, d_model: int) -> Any:
        """Parameters one token uses (top-k routed experts) [-]."""
        return _part("mlp", self, "active_params", d_model=d_model)

    def routed_params(self, d_model: int) -> int:
        """Parameters of every routed expert of the block (0 for a dense MLP) [-]."""
        return _part("mlp", self, "routed_params", d_model=d_model) or 0

    def matmul_params(self, d_model: int) -> int:
        """Weights in matrix products for one token: k experts, shared experts, router [-]."""
        return _part("mlp", self, "matmul_params", d_model=d_model)

    def describe(self) -> str:
        gate = "gated" if self.n_mats == 3 else "plain"
        if not self.is_moe and not self.n_shared:
            return f"{gate} MLP {self.d_ff:,}"
        text = f"MoE {self.top_k} of {self.n_experts} experts x {self.d_ff:,}"
        if self.latent:
            text += f" in a latent of {self.latent:,}" + (" (normed)" if self.latent_norm else "")
        if self.n_shared:
            text += f" + {self.n_shared} shared x {self.d_shared:,}"
        return text


class _Mixer:
    """What every constant-state mixer answers, each a term of the plan's stack data."""

    def validate(self, owner: str) -> None:
        """Every whole-number field (a width, a count of heads) is a positive integer."""
        for f in fields(self):
            if f.type == "int":
                _check_int(owner, f.name, getattr(self, f.name))

    def params(self, d_model: int) -> int:
        """Parameters of the mixer [-]."""
        return _part("mixer", self, "params", d_model=d_model)

    def matmul_params(self, d_model: int) -> int:
        """The input and output projections' weights [-]."""
        return _part("mixer", self, "matmul_params", d_model=d_model)

    def state_bytes(self, bits_state: Any = 16) -> Any:
        """Bytes of the mixer's state for one sequence, constant in the context, every element
        (window and recurrent matrix) at ``bits_state`` [B]; :meth:`Model.state_bytes` keeps
        the matrix at the bits the checkpoint names instead."""
        return _part("mixer", self, "state", bits_state=bits_state)

    def decode_flops(self) -> int:
        """FLOPs of the recurrence for one token, besides the projections [FLOP]."""
        return _part("mixer", self, "layer_decode_flops")


@record
class Mamba2(_Mixer):
    """A Mamba-2 mixer: a selective state-space layer whose state does not grow with context.

    Attributes
    ----------
    d_inner, d_state, n_groups, n_heads, d_conv : int
        Inner width (expand x d), state size per channel, groups of the B/C projections,
        heads, convolution width.
    conv_bias, bias : bool
        A bias on the convolution; biases on the input and output projections.
    norm : bool
        A gated RMSNorm of width ``d_inner`` before the output projection (Mamba-2's, Nemotron-H's,
        Granite 4.0's); Falcon-H1's mixers have none (``mamba_rms_norm`` false).
    ssm_bits : int or None
        Bits the checkpoint asks its recurrent state be kept in at inference (Nemotron-H's
        ``mamba_ssm_cache_dtype``: 32 for float32), None where its config names none. It
        changes no parameter count; the state's bytes count the recurrent matrix at these bits
        (``state_matrix_kept`` in :mod:`llm_arithmetic.plan.stack`), as engines keep it
        (:mod:`llm_arithmetic.engine`).
    """

    d_inner: int
    d_state: int
    n_groups: int
    n_heads: int
    d_conv: int = 4
    conv_bias: bool = True
    bias: bool = False
    ssm_bits: int | None = None
    norm: bool = True

    def describe(self) -> str:
        return (f"Mamba-2 {self.n_heads} heads, d_in {self.d_inner:,}, state {self.d_state}, "
                f"{self.n_groups} groups" + ("" if self.norm else ", no output norm"))


@record
class Mamba1(_Mixer):
    """A Mamba-1 mixer (the selective state-space layer of Mamba; Phi-4-mini-flash's
    ``Phi3Mamba``): the input projected to x and a gate z, a depthwise causal convolution over
    x, then B, C and a low-rank step size computed from x, a decay per channel and state
    element, and an output projection. Its state, d_state per channel and the convolution's
    last ``d_conv - 1`` inputs, does not grow with the context.

    Attributes
    ----------
    d_inner, d_state, dt_rank, d_conv : int
        Inner width (expand x d), state size per channel, rank of the step-size projection,
        convolution width.
    conv_bias : bool
        A bias on the convolution.
    """

    d_inner: int
    d_state: int
    dt_rank: int
    d_conv: int = 4
    conv_bias: bool = True

    def describe(self) -> str:
        return (f"Mamba-1 d_in {self.d_inner:,}, state {self.d_state}, dt rank "
                f"{self.dt_rank}")


@record
class GatedMemoryUnit(_Mixer):
    """A gated memory unit (SambaY's cross-decoder, Phi-4-mini-flash): the block's input
    projected to ``memory_width`` channels, its SiLU multiplied channel by channel with the
    output an earlier Mamba layer computed for the same token (the memory, shared by every
    such block), then projected back to d. No state of its own and no convolution.

    Attributes
    ----------
    memory_width : int
        Channels of the gate and of the memory (Phi-4-mini-flash: the Mamba layers' d_in).
    """

    memory_width: int

    def describe(self) -> str:
        return f"gated memory unit {self.memory_width:,} wide"


@record
class GatedDeltaNet(_Mixer):
    """A Gated DeltaNet mixer: linear attention whose per-sequence state, one d_k x d_v matrix
    per value head, is updated by a gated delta rule and does not grow with the context
    (Qwen3-Next, Qwen3.5).

    Attributes
    ----------
    n_qk_heads, n_v_heads : int
        Query/key heads and value heads (each query/key head serves n_v_heads / n_qk_heads
        value heads).
    d_k, d_v : int
        Query/key and value head widths.
    d_conv : int
        Width of the causal convolution over q, k and v.
    ssm_bits : int or None
        Bits the checkpoint asks its recurrent state (the matrices) be kept in at inference
        (Qwen3.5's ``mamba_ssm_dtype``: 32 for float32), None where its config names none. It
        changes no parameter count; the state's bytes count the matrices at these bits
        (``state_matrix_kept`` in :mod:`llm_arithmetic.plan.stack`), as engines keep them
        (:mod:`llm_arithmetic.engine`).
    """

    n_qk_heads: int
    n_v_heads: int
    d_k: int
    d_v: int
    d_conv: int = 4
    ssm_bits: int | None = None

    def validate(self, owner: str) -> None:
        super().validate(owner)
        if self.n_v_heads % self.n_qk_heads:
            raise ConfigError(f"{owner}: n_qk_heads ({self.n_qk_heads}) does not divide "
                              f"n_v_heads ({self.n_v_heads})")

    def describe(self) -> str:
        return (f"Gated DeltaNet {self.n_qk_heads}/{self.n_v_heads} heads x "
                f"{self.d_k}/{self.d_v}")


@record
class KimiDeltaAttention(_Mixer):
    """A Kimi delta attention (KDA) mixer: Gated DeltaNet's linear attention with a decay per
    key channel instead of per head, low-rank forget and output gates (Kimi K3: a full-rank
    output gate), and as many query/key heads as value heads (Kimi Linear; transformers 5.24.0
    ``KimiLinearDeltaAttention``). Its state, one d_k x d_k matrix per head, does not grow with
    the context.

    Attributes
    ----------
    kda_heads : int
        Heads (queries, keys and values alike).
    d_k : int
        Head width (queries, keys and values; the rank of the two gates' factors).
    d_conv : int
        Width of the causal convolutions over q, k and v.
    full_gate : bool
        The output gate is one full-rank projection d x H d_k (Kimi K3's
        ``use_full_rank_gate``) instead of the factors d x d_k and d_k x H d_k.
    """

    kda_heads: int
    d_k: int
    d_conv: int = 4
    full_gate: bool = False

    def describe(self) -> str:
        gate = ", full-rank output gate" if self.full_gate else ""
        return f"Kimi delta attention {self.kda_heads} heads x {self.d_k}{gate}"


@record
class ShortConv(_Mixer):
    """A gated short convolution mixer (LFM2's ``Lfm2ShortConv``, transformers 5.24.0): an
    input projection to two gates B, C and a value x of ``channels`` each, a depthwise causal
    convolution of ``d_conv`` taps over B x, C times its output, an output projection. Its
    state is the convolution's last ``d_conv - 1`` inputs, with no recurrent matrix.

    Attributes
    ----------
    channels : int
        Channels of the gates, the value and the convolution (LFM2: the model width d).
    d_conv : int
        Taps of the convolution (LFM2's ``conv_L_cache``).
    conv_bias : bool
        Biases on the convolution and both projections (LFM2's ``conv_bias``).
    """

    channels: int
    d_conv: int = 3
    conv_bias: bool = False

    def describe(self) -> str:
        bias = ", biases" if self.conv_bias else ""
        return f"gated short convolution {self.channels:,} x {self.d_conv} taps{bias}"


@record
class LightningAttention(_Mixer):
    """A lightning attention mixer (MiniMax-Text-01, MiniMax-M1; transformers 5.24.0
    ``MiniMaxLightningAttention``): linear attention with a fixed decay per head, computed from
    the head and the layer's depth rather than learned. One projection to the queries, keys and
    values of ``la_heads`` heads of ``d_k``, an output gate from the block's input, an RMSNorm
    over all heads' output channels, an output projection; no convolution. Its state, one
    d_k x d_k matrix per head, does not grow with the context.

    Attributes
    ----------
    la_heads : int
        Heads (queries, keys and values alike).
    d_k : int
        Head width.
    """

    la_heads: int
    d_k: int

    def describe(self) -> str:
        return f"lightning attention {self.la_heads} heads x {self.d_k}"


@record
class Layers:
    """A run of ``count`` identical blocks: attention and/or a constant-state mixer (Mamba-2,
    Mamba-1, Gated DeltaNet, Kimi delta attention, lightning attention, a gated short
    convolution, a gated memory unit), an MLP (or none), and ``norms`` normalization vectors of
    width d per block. ``prefill_last``: a prefill runs these blocks for the last prompt token
    only (YOCO's cross-decoder, Phi-4-mini-flash: its keys and values come from an earlier
    layer's cache, so the other positions' outputs are never needed); a decode step runs them
    as any block. ``laurel``: the rank of a learned low-rank residual beside the block (Gemma
    3n's LAuReL), whose parameters its model counts as an :class:`Extra`; here it marks the
    block's third all-reduce under tensor parallelism (vLLM splits its up-projection by rows).
    """

    count: int
    attention: Attention | None = None
    mixer: (Mamba2 | GatedDeltaNet | KimiDeltaAttention | ShortConv | LightningAttention
            | Mamba1 | GatedMemoryUnit
            | None) = None
    mlp: MLP | None = None
    norms: int = 2
    hc: int = 0
    prefill_last: bool = False
    laurel: int = 0

    def validate(self, owner: str) -> None:
        _check_int(owner, "count", self.count)
        _check_int(owner, "norms", self.norms, minimum=0)
        _check_int(owner, "hc", self.hc, minimum=0)
        _check_int(owner, "laurel", self.laurel, minimum=0)
        if self.attention is None and self.mixer is None and self.mlp is None:
            raise ConfigError(f"{owner}: a layer needs attention, a mixer or an MLP")
        for part in (self.attention, self.mixer, self.mlp):
            if part is not None:
                part.validate(owner)

    def params(self, d_model: int) -> int:
        """Parameters of one block of the run [-]."""
        return (sum(p.params(d_model) for p in (self.attention, self.mixer, self.mlp)
                    if p is not None) + self.norm_params(d_model))

    def norm_params(self, d_model: int) -> int:
        """The block's normalization weights [-]."""
        return _part("norms", _Norms(self.norms, self.hc), "params", d_model=d_model)

    def parts(self) -> dict[str, dict[str, Any]]:
        """The block's parts as plain records, the form the plan's fold reads."""
        out = {name: asdict(p) for name, p in (("attention", self.attention),
                                               ("mixer", self.mixer), ("mlp", self.mlp))
               if p is not None}
        # hyper-connections (DeepSeek-V4's residual streams) count with the norms
        out["norms"] = {"norms": self.norms, **({"hc": self.hc} if self.hc else {}),
                        **({"laurel": self.laurel} if self.laurel else {})}
        # not a part: what a prefill runs of the block (the plan's sums select blocks by it)
        if self.prefill_last:
            out["prefill"] = {"last": 1}
        return out

    def describe(self) -> str:
        parts = [p.describe() for p in (self.attention, self.mixer, self.mlp) if p is not None]
        last = " (a prefill runs it for the last token only)" if self.prefill_last else ""
        return " + ".join(parts) + last


@record
class _Norms:
    """A block's normalization weights as the plan's ``norms`` part reads them (a class
    without a docstring would have dataclasses compute one at import, through inspect)."""

    norms: int
    hc: int = 0


#: The name of the :class:`Extra` that holds a model's multi-token-prediction modules (every
#: reader that counts them names it so; :meth:`Model.mtp_extras` finds it by this name).
MTP_EXTRA = "multi-token prediction"
#: The name of DeepSeek-V4's :class:`Extra` of hash-routing tables (token -> experts ids, stored
#: in the checkpoint as int64; :mod:`~llm_arithmetic.catalog.quantization` prices them so).
HASH_EXTRA = "hash-routing tables"


@record
class ImageRule:
    """How a vision tower turns one image into prompt tokens, and what it runs for it: the
    inputs of the model's processor's rule (:mod:`llm_arithmetic.catalog.images`) and of
    :data:`~llm_arithmetic.formulas.vision.vision_prefill_flops`, read from ``config.json``
    (sizes the file leaves to the processor: its class's defaults, transformers 5.24.0).

    ``rule``: ``"qwen2_vl"`` (resize to multiples of ``patch`` x ``merge`` with ``min_pixels``
    <= area <= ``max_pixels``; also ERNIE-4.5-VL), ``"glm4v"`` (the same after raising a side
    under ``patch`` x ``merge``; the limits are one frame's, half the processor's two-frame
    ones), ``"fixed"`` (one ``size`` x ``size`` crop: LLaVA's CLIP, Gemma 3's SigLIP without
    pan and scan), ``"tiles"`` (InternVL: up to ``max_tiles`` tiles of ``size``, and a
    thumbnail when more than one), ``"llama4"`` (Llama 4: a canvas of up to ``max_tiles``
    tiles of ``size``, and a global tile when more than one), ``"pixtral"`` (Mistral 3: scaled
    down to a longest edge of ``size``, sides rounded up to multiples of ``patch`` x
    ``merge``), ``"navit"`` (Kimi K2.5's MoonViT: native resolution scaled down to at most
    ``max_pixels`` / ``patch``^2 patches and ``size`` px a side, padded to multiples of
    ``patch`` x ``merge``), ``"gemma4"`` (Gemma 4: the largest size of the image's aspect
    ratio within ``max_pixels`` / ``patch``^2 patches, sides multiples of ``patch`` x
    ``merge``, the patches padded to that budget). ``patch`` [px]; ``merge``: patches per side
    merged into one token (pooled, pixel-shuffled; 1: none); ``class_token``: tokens the tower
    adds per crop (CLIP's, InternViT's class token); ``keep_class``: whether the image's tokens
    keep it (LLaVA's ``full`` feature strategy). ``width``, ``layers``: the tower's;
    ``window``: the side of a windowed block's window in merged tokens (0: no window), with
    ``full_layers`` the indices of the blocks that attend over the whole image (every block
    where ``window`` is 0). ``tower_matmul``: the tower's weights in matrix products for one
    patch; ``merger_matmul``: the merger's or projector's for one image token;
    ``deepstack_matmul``: those of the extra mergers that Qwen3-VL's deepstack runs on
    intermediate blocks' outputs, for one image token (0: none). ``"mobilenet"`` (Gemma 3n's
    convolutional MobileNet-V5: one ``size`` x ``size`` crop whatever the image, ``patch`` the
    pixels a side of each cell of its output grid, one token a cell); ``conv_flops``: such a
    tower's FLOPs for one image, attention included, worked out from its architecture (0 for
    the ViTs, whose FLOPs come from ``tower_matmul`` and the attention pairs).
    ``"mllama"`` (Llama 3.2 Vision: a canvas of up to ``max_tiles`` tiles of ``size``; the
    image adds one ``<|image|>`` token to the prompt, and its tiles' states, each tile's
    patches and class token, are what the language model's cross-attention layers read).
    ``patch_matmul``: of ``tower_matmul``, the patch embedding's weights (c t p^2 h), which a
    tensor-parallel engine keeps whole on every chip while it splits the blocks' and the
    mergers' matrices (vLLM's default ``mm_encoder_tp_mode="weights"``; 0 where not known).
    ``heads``: the tower's attention heads, which that mode splits over the chips, so that a
    tensor-parallel degree that does not divide them is refused as vLLM refuses it (0: not
    known, not checked), read from the config field ``heads_key``; ``heads_fallback``: where tp
    does not divide them, vLLM runs the tower's attention whole on every chip and still splits
    its MLP (InternViT), which is not modelled (refused, saying so). ``whole``: vLLM runs the
    whole tower on every chip of a tensor-parallel group, unsplit (Gemma 4's, built through
    transformers' ``AutoModel``), as a convolutional tower is counted.
    ``video``: the processor's video rule (:mod:`llm_arithmetic.catalog.video`: ``"qwen2_vl"``,
    ``"qwen3_vl"``, ``"glm4v"``; empty: not modelled), with ``temporal_patch`` the frames a
    temporal patch stacks and ``video_min_pixels``, ``video_max_pixels`` the video's pixel
    limits (one frame's for ``"qwen2_vl"``, the whole video's for ``"qwen3_vl"`` and
    ``"glm4v"``).
    ``cross_*`` (``"mllama"`` only; 0 elsewhere): the language model's cross-attention layers
    that read the images' states: their number, query heads, key/value heads and head width,
    and the parameters (of them, the weights in matrix products) each text token runs through
    them when the prompt holds an image: all but k and v, which run once over the states.
    """

    rule: str
    patch: int
    merge: int
    width: int
    layers: int
    tower_matmul: int
    merger_matmul: int
    size: int = 0
    min_pixels: int = 0
    max_pixels: int = 0
    max_tiles: int = 1
    class_token: int = 0
    keep_class: bool = False
    window: int = 0
    full_layers: tuple = ()
    deepstack_matmul: int = 0
    conv_flops: int = 0
    patch_matmul: int = 0
    heads: int = 0
    heads_key: str = ""
    heads_fallback: bool = False
    whole: bool = False
    video: str = ""
    temporal_patch: int = 2
    video_min_pixels: int = 0
    video_max_pixels: int = 0
    cross_layers: int = 0
    cross_heads: int = 0
    cross_kv_heads: int = 0
    cross_d_head: int = 0
    cross_token_params: int = 0
    cross_token_matmul: int = 0

    def __post_init__(self) -> None:
        if self.video not in VIDEO_RULES:
            raise ConfigError(f"image rule: video rule {self.video!r} is not modelled")
        if self.video and not (self.temporal_patch >= 1
                               and 0 < self.video_min_pixels <= self.video_max_pixels):
            raise ConfigError("image rule: a video rule needs temporal_patch >= 1 and "
                              "0 < video_min_pixels <= video_max_pixels")
        if self.rule not in IMAGE_RULES:
            raise ConfigError(f"image rule {self.rule!r} is not one of {', '.join(IMAGE_RULES)}")
        for key in ("patch", "merge", "width", "layers", "max_tiles"):
            _check_int("image rule", key, getattr(self, key), minimum=1)
        for key in ("tower_matmul", "merger_matmul", "size", "min_pixels", "max_pixels",
                    "class_token", "window", "deepstack_matmul", "conv_flops",
                    "patch_matmul", "heads"):
            _check_int("image rule", key, getattr(self, key), minimum=0)
        if self.rule in ("qwen2_vl", "glm4v") and not 0 < self.min_pixels <= self.max_pixels:
            raise ConfigError("image rule: min_pixels and max_pixels must be 0 < min <= max")
        if self.rule in ("fixed", "tiles", "llama4", "mobilenet", "mllama") and (
                self.size % (self.patch * self.merge) or not self.size):
            raise ConfigError(f"image rule: size {self.size} is not a multiple of patch x merge")
        if self.rule in ("pixtral", "navit") and self.size < self.patch * self.merge:
            raise ConfigError(f"image rule: the longest edge {self.size} is under patch x merge")
        if self.rule in ("navit", "gemma4") and self.max_pixels < (self.patch * self.merge) ** 2:
            raise ConfigError("image rule: max_pixels must hold patch x merge squared")
        if any(not 0 <= i < self.layers for i in self.full_layers):
            raise ConfigError(f"image rule: full-attention blocks {self.full_layers} outside "
                              f"0..{self.layers - 1}")


#: The video rules :class:`ImageRule` knows (:mod:`llm_arithmetic.catalog.video`; "": none).
VIDEO_RULES = ("", "qwen2_vl", "qwen3_vl", "glm4v")
#: The processor rules :class:`ImageRule` knows (:mod:`llm_arithmetic.catalog.images`).
IMAGE_RULES = ("qwen2_vl", "fixed", "tiles", "llama4", "pixtral", "glm4v", "navit", "gemma4",
               "mobilenet", "mllama")


@record
class Extra:
    """Parameters a checkpoint holds besides the decoder (a vision tower, a multi-token
    prediction module), reported on their own.

    ``in_total`` says whether the model's published total counts them (Gemma 3's vision tower:
    yes, the checkpoint's count; DeepSeek-V3's MTP module: no, the paper's 671B leaves it out).
    ``layers``: the blocks of a multi-token-prediction module, as runs of :class:`Layers`
    (every module's, one module's after another), whose cache and state speculation with the
    module keeps beside the target's; () where the reader gives none. ``modules``: how many
    modules ``layers`` holds, each the same number of runs (a draft step runs one,
    :meth:`Model.mtp_step_layers`). A decoded token reads none of them, except one
    marked ``read``: a part outside the stack that every token runs (DeepSeek-V4's
    hyper-connection head). Such a part counts in the
    total, the active parameters and what a decode step reads, and its ``matmul`` weights in
    matrix products count in the FLOPs (2 each). ``embeddings`` and ``heads``: the parameters
    (in ``params``) of the vocabulary tables a multi-token-prediction module stores as its own,
    copies of the model's embedding table (DeepSeek-V3's layer 61 ``embed_tokens``) and output
    head (its ``shared_head.head``; Step 3.7's), which an engine may share with the target
    instead of holding them (the plan's ``draft_module_bytes``). ``copied``: an extra in the
    total that every chip of a tensor-parallel group holds whole (DeepSeek-V4's
    hyper-connection head and hash-routing tables, as vLLM places them), counted in the group's
    copies (the plan's ``extras_copied``); the others are split with the model.
    ``names``: how the checkpoint
    names a multi-token-prediction module's tensors, where its reader knows
    (``catalog.quantization.MTP_NAMES``: ``"layers"``, DeepSeek-V3's layer n + j; ``"mtp.layers"``,
    Qwen3.5's; ``"mtp"``, DeepSeek-V4's), so that a quantized file's lists can be matched
    against them; "" where not modelled. ``image``: a vision tower's :class:`ImageRule`
    (the tokens an image adds and the tower's work), None where not modelled. ``audio``: an
    audio encoder's :class:`~llm_arithmetic.catalog.audio.AudioRule`, None where not
    modelled.
    """

    name: str
    params: int
    in_total: bool
    note: str = ""
    read: bool = False
    matmul: int = 0
    layers: tuple = ()
    modules: int = 1
    embeddings: int = 0
    heads: int = 0
    copied: bool = False
    names: str = ""
    image: ImageRule | None = None
    audio: Any = None

    def __post_init__(self) -> None:
        _check_int(self.name, "params", self.params, minimum=0)
        _check_int(self.name, "matmul", self.matmul, minimum=0)
        _check_int(self.name, "modules", self.modules, minimum=1)
        _check_int(self.name, "embeddings", self.embeddings, minimum=0)
        _check_int(self.name, "heads", self.heads, minimum=0)
        if self.embeddings + self.heads > self.params:
            raise ConfigError(f"{self.name}: its own embedding tables and heads "
                              f"({self.embeddings + self.heads:,}) exceed its parameters "
                              f"({self.params:,})")
        if len(self.layers) % self.modules:
            raise ConfigError(f"{self.name}: {len(self.layers)} runs of blocks cannot be "
                              f"{self.modules} modules of the same number")
        if self.copied and not self.in_total:
            raise ConfigError(f"{self.name}: an extra held whole on every chip is part of the "
                              "served model: it must be counted in the total (in_total)")
        if self.read and not self.in_total:
            raise ConfigError(f"{self.name}: an extra every token reads is part of the "
                              "decoder: it must be counted in the total (in_total)")
        if self.matmul > (self.params if self.read else 0):
            raise ConfigError(f"{self.name}: its weights in matrix products ({self.matmul:,}) "
                              "need read and at most its parameters")


def stack_blocks(layers: Any) -> tuple[tuple[int, dict[str, dict[str, Any]]], ...]:
    """(count, parts) for each distinct block of runs of :class:`Layers`, counts summed over
    the runs: the plan's ``blocks`` (:attr:`Model.blocks`; a multi-token-prediction module's
    ``draft_blocks``)."""
    groups: dict[Layers, int] = {}
    for run in layers:
        key = replace(run, count=1)
        groups[key] = groups.get(key, 0) + run.count
    return tuple((count, key.parts()) for key, count in groups.items())


#: Keys of the classic (uniform) arguments, as :meth:`Model.arch` gives them.
ARCH_KEYS = ("n_vocab", "d_model", "n_layers", "n_heads", "n_kv_heads", "d_head", "d_ff",
             "n_mlp_mats", "n_experts", "n_active_experts", "tied", "n_positions", "qkv_bias",
             "o_bias", "mlp_bias", "norm_vecs_layer", "norm_vecs_final", "head_bias")


@record
class Model:
    """A decoder: embeddings, a stack of :class:`Layers`, a final norm and an output head.

    Attributes
    ----------
    name : str
        Catalog key, or a name given by the caller.
    n_vocab, d_model : int
        Vocabulary size and hidden size.
    layers : tuple of Layers
        The blocks, in order, as runs of identical blocks.
    tied : bool
        The output head reuses the input embedding matrix.
    n_positions : int
        Rows of a learned position-embedding table (0 for rotary models).
    head_bias : bool
        The output head has a bias.
    norm_vecs_final : int
        Normalization vectors of width d after the last block.
    trained_context : int or None
        Context the model was trained for (``max_position_embeddings``) [token].
    extras : tuple of Extra
        Parameters reported apart from the stack (vision tower, multi-token prediction, a
        hyper-connection head that every token reads).
    d_ple, n_vocab_ple : int
        Per-layer input embeddings (Gemma 4 E2B/E4B): each block's slice width of a second
        embedding table, and that table's rows (0, 0: none). A decode step gathers one row of
        the table (every block's slice) and reads the rest of the PLE weights.
    altup_num_inputs : int
        Streams of Gemma 3n's alternating updates (AltUp; 0: none): under tensor parallelism
        its n - 1 embedding and n - 1 unembedding projections all-gather d values a token.
    native_bits : Mapping[str, Fraction]
        Bits per weight of the checkpoint as shipped, by part (``"default"``, and
        ``"experts"`` where the routed experts differ, as gpt-oss's MXFP4, ``"unread"`` for
        the embedding rows a decode step does not read, 16-bit in quantized checkpoints,
        where ``"default"`` would be an average of other widths; ``"draft"`` and
        ``"draft_experts"`` for a multi-token-prediction module reported apart, where its
        checkpoint's names are modelled, as :func:`~llm_arithmetic.catalog.quantization.
        mtp_bits` gives them): exact fractions
        whose products with the counts are the checkpoint's bytes, scales included
        (:mod:`llm_arithmetic.catalog.quantization`).
    scheme : Scheme or None
        How the checkpoint is quantized (its ``quantization_config``), None for 16-bit weights.
    mtp_modules : int
        Multi-token-prediction modules the config declares where the reader does not count
        them as an extra (MiniMax-M2's ``num_mtp_modules``); 0 otherwise (a counted module is
        an extra, :meth:`has_mtp`).
    mtp_field : str
        The config field that declares :attr:`mtp_modules` (``"num_mtp_modules"``), for the
        errors that refuse to count without them; "" where there are none.
    family, source, label : str
        The Hugging Face ``model_type`` it was read as, where it comes from, a proper name.
    """

    name: str
    n_vocab: int
    d_model: int
    layers: tuple[Layers, ...]
    tied: bool = False
    n_positions: int = 0
    head_bias: bool = False
    norm_vecs_final: int = 1
    trained_context: int | None = None
    extras: tuple[Extra, ...] = ()
    d_ple: int = 0
    n_vocab_ple: int = 0
    altup_num_inputs: int = 0
    native_bits: Mapping[str, Fraction] = field(
        default_factory=lambda: MappingProxyType({"default": Fraction(16)}))
    family: str = ""
    source: str = ""
    label: str = ""
    scheme: Any = None
    mtp_modules: int = 0
    mtp_field: str = ""

    def __post_init__(self) -> None:
        _check_int(self.name, "n_vocab", self.n_vocab)
        _check_int(self.name, "d_model", self.d_model)
        _check_int(self.name, "n_positions", self.n_positions, minimum=0)
        _check_int(self.name, "norm_vecs_final", self.norm_vecs_final, minimum=0)
        _check_int(self.name, "d_ple", self.d_ple, minimum=0)
        _check_int(self.name, "n_vocab_ple", self.n_vocab_ple, minimum=0)
        _check_int(self.name, "altup_num_inputs", self.altup_num_inputs, minimum=0)
        _check_int(self.name, "mtp_modules", self.mtp_modules, minimum=0)
        if bool(self.d_ple) != bool(self.n_vocab_ple):
            raise ConfigError(f"{self.name}: per-layer embeddings need both d_ple and "
                              f"n_vocab_ple (got {self.d_ple} and {self.n_vocab_ple})")
        if self.trained_context is not None:
            _check_int(self.name, "trained_context", self.trained_context)
        if not isinstance(self.layers, tuple) or not self.layers:
            raise ConfigError(f"{self.name}: layers must be a non-empty tuple of Layers")
        for run in self.layers:
            if not isinstance(run, Layers):
                raise ConfigError(f"{self.name}: layers must hold Layers, got {run!r:.60}")
            run.validate(self.name)
        object.__setattr__(self, "native_bits", MappingProxyType(dict(self.native_bits)))

    def has_mtp(self) -> bool:
        """Whether the config declares a multi-token-prediction module: counted (an extra of
        that name) or declared alone (:attr:`mtp_modules`)."""
        return bool(self.mtp_modules) or bool(self.mtp_extras())

    def mtp_extras(self) -> tuple:
        """The :class:`Extra` that count the model's multi-token-prediction modules (named
        :data:`MTP_EXTRA`); () where the reader counts none."""
        return tuple(x for x in self.extras if x.name == MTP_EXTRA)

    def mtp_layers(self) -> tuple:
        """Every multi-token-prediction module's blocks, as runs of :class:`Layers` (what the
        modules hold); () where the reader gives none. One draft step runs one module's:
        :meth:`mtp_step_layers`."""
        return tuple(run for x in self.mtp_extras() for run in x.layers)

    def mtp_step_layers(self) -> tuple:
        """The blocks one draft step of the multi-token-prediction module runs, as runs of
        :class:`Layers`: one module's (the first; a draft step runs one module), () where the
        reader gives none.

        >>> from llm_arithmetic.catalog.model_catalog import get_model
        >>> [r.count for r in get_model("nemotron-3-super").mtp_step_layers()]
        [1, 1]
        >>> len(get_model("step-3.7-flash").mtp_step_layers())
        1
        """
        for x in self.mtp_extras():
            if x.layers:
                return x.layers[:len(x.layers) // x.modules]
        return ()

    # ---- constructors ---------------------------------------------------------------------
    @classmethod
    def transformer(cls, *, name: str, n_vocab: int, d_model: int, n_layers: int, n_heads: int,
                    n_kv_heads: int, d_head: int, d_ff: int, n_mlp_mats: int = 3,
                    n_experts: int = 1, n_active_experts: int = 1, tied: bool = False,
                    n_positions: int = 0, qkv_bias: bool = False, o_bias: bool = False,
                    mlp_bias: bool = False, head_bias: bool = False, norm_vecs_layer: int = 2,
                    norm_vecs_final: int = 1, sliding_window: int | None = None,
                    n_window_layers: int = 0, trained_context: int | None = None,
                    family: str = "", source: str = "", label: str = "") -> "Model":
        """A decoder whose blocks are alike (the classic arguments), ``n_window_layers`` of
        them with a sliding window.

        >>> m = Model.transformer(name="x", n_vocab=100, d_model=64, n_layers=4, n_heads=4,
        ...                       n_kv_heads=2, d_head=16, d_ff=256, sliding_window=8,
        ...                       n_window_layers=2)
        >>> [(run.count, run.attention.window) for run in m.layers]
        [(2, 8), (2, None)]
        """
        for f, v, low in (("n_vocab", n_vocab, 1), ("d_model", d_model, 1),
                          ("n_layers", n_layers, 1), ("n_heads", n_heads, 1),
                          ("n_kv_heads", n_kv_heads, 1), ("d_head", d_head, 1), ("d_ff", d_ff, 1),
                          ("n_experts", n_experts, 1), ("n_active_experts", n_active_experts, 1),
                          ("n_positions", n_positions, 0), ("norm_vecs_layer", norm_vecs_layer, 0),
                          ("norm_vecs_final", norm_vecs_final, 0),
                          ("n_window_layers", n_window_layers, 0)):
            _check_int(name, f, v, minimum=low)
        if n_mlp_mats not in (2, 3):
            raise ConfigError(f"{name}: n_mlp_mats must be 2 or 3, got {n_mlp_mats!r}")
        if n_heads % n_kv_heads:
            raise ConfigError(f"{name}: n_kv_heads ({n_kv_heads}) does not divide n_heads "
                              f"({n_heads})")
        if n_active_experts > n_experts:
            raise ConfigError(f"{name}: n_active_experts ({n_active_experts}) exceeds n_experts "
                              f"({n_experts})")
        if n_window_layers > n_layers:
            raise ConfigError(f"{name}: n_window_layers ({n_window_layers}) exceeds n_layers "
                              f"({n_layers})")
        if n_window_layers and sliding_window is None:
            raise ConfigError(f"{name}: n_window_layers is {n_window_layers} but no "
                              "sliding_window is given")
        mlp = MLP(d_ff=d_ff, n_mats=n_mlp_mats, bias=bool(mlp_bias), n_experts=n_experts,
                  top_k=n_active_experts)

        def run(count: int, window: int | None) -> Layers:
            return Layers(count, Attention(n_heads, n_kv_heads, d_head, window=window,
                                           qkv_bias=bool(qkv_bias), o_bias=bool(o_bias)),
                          mlp=mlp, norms=norm_vecs_layer)

        runs = [run(n_window_layers, sliding_window)] if n_window_layers else []
        if n_layers > n_window_layers:
            runs.append(run(n_layers - n_window_layers, None))
        return cls(name=name, n_vocab=n_vocab, d_model=d_model, layers=tuple(runs),
                   tied=bool(tied), n_positions=n_positions, head_bias=bool(head_bias),
                   norm_vecs_final=norm_vecs_final, trained_context=trained_context,
                   family=family, source=source, label=label)

    # ---- the stack ------------------------------------------------------------------------
    @property
    def n_layers(self) -> int:
        """Blocks in the stack [-]."""
        return sum(run.count for run in self.layers)

    @property
    def has_compressed_attention(self) -> bool:
        """Some block has DeepSeek-V4's compressed attention (an attention with ``o_groups`` >
        0, the plan's form ``compressed``), whose cache and tensors the views that read a plain
        attention's refuse."""
        return any(run.attention is not None and run.attention.o_groups for run in self.layers)

    @property
    def has_sparse_indexer(self) -> bool:
        """Some block's attention has an indexer that selects the positions it attends:
        DeepSeek Sparse Attention's top-k tokens (``index_topk``) or MiniMax Sparse
        Attention's top-k blocks (``index_block``), beyond any window."""
        return any(run.attention is not None
                   and (run.attention.index_topk or run.attention.index_block)
                   for run in self.layers)

    def _runs_with(self, part: str) -> list[Layers]:
        return [run for run in self.layers if getattr(run, part) is not None]

    def _uniform(self, part: str, attr: str) -> Any:
        values = {getattr(getattr(run, part), attr) for run in self._runs_with(part)}
        if len(values) == 1:
            return values.pop()
        if not values:
            raise ConfigError(f"{self.name}: no layer has {'an' if part[0] in 'aeiou' else 'a'} "
                              f"{part}, so it has no single {attr}")
        raise ConfigError(f"{self.name}: its layers differ in {attr} ({sorted(values, key=str)});"
                          " use model.layers for the stack")

    @property
    def is_uniform(self) -> bool:
        """Every block alike but for sliding windows: the classic formulas apply."""
        kinds = {(replace(r.attention, window=None) if r.attention else None, r.mixer, r.mlp,
                  r.norms) for r in self.layers}
        return (len(kinds) == 1 and self.layers[0].attention is not None
                and self.layers[0].mixer is None and self.layers[0].mlp is not None
                and not self.layers[0].attention.is_mla and not self.layers[0].attention.chunk
                and not self.layers[0].attention.d_v and not self.layers[0].attention.gate
                and not self.layers[0].attention.qk_norm and not self.layers[0].attention.sinks
                and not self.layers[0].mlp.n_shared and not self.layers[0].mlp.router_bias
                and not self.layers[0].mlp.shared_gate and not self.extras
                and not self.d_ple)

    # classic attributes, where every layer agrees
    n_heads = property(lambda self: self._uniform("attention", "n_heads"),
                       doc="Query heads per layer, where all layers agree [-].")
    n_kv_heads = property(lambda self: self._uniform("attention", "n_kv_heads"),
                          doc="Key/value heads per layer, where all layers agree [-].")
    d_head = property(lambda self: self._uniform("attention", "d_head"),
                      doc="Head width, where all layers agree [-].")
    qkv_bias = property(lambda self: self._uniform("attention", "qkv_bias"))
    o_bias = property(lambda self: self._uniform("attention", "o_bias"))
    d_ff = property(lambda self: self._uniform("mlp", "d_ff"),
                    doc="MLP (or expert) width, where all layers agree [-].")
    n_mlp_mats = property(lambda self: self._uniform("mlp", "n_mats"))
    mlp_bias = property(lambda self: self._uniform("mlp", "bias"))
    norm_vecs_layer = property(lambda self: self._uniform_norms())

    def _uniform_norms(self) -> int:
        values = {run.norms for run in self.layers}
        if len(values) != 1:
            raise ConfigError(f"{self.name}: its layers differ in norms ({sorted(values)})")
        return values.pop()

    @property
    def n_experts(self) -> int:
        """Routed experts of the MoE layers (1 for a dense model) [-]."""
        values = {run.mlp.n_experts for run in self._runs_with("mlp") if run.mlp.is_moe}
        if len(values) > 1:
            raise ConfigError(f"{self.name}: its MoE layers differ in n_experts")
        return values.pop() if values else 1

    @property
    def n_active_experts(self) -> int:
        """Routed experts per token of the MoE layers (1 for a dense model) [-]."""
        values = {run.mlp.top_k for run in self._runs_with("mlp") if run.mlp.is_moe}
        if len(values) > 1:
            raise ConfigError(f"{self.name}: its MoE layers differ in top_k")
        return values.pop() if values else 1

    @property
    def is_moe(self) -> bool:
        return any(run.mlp is not None and run.mlp.is_moe for run in self.layers)

    @property
    def sliding_window(self) -> int | None:
        """The sliding window of the windowed layers, if any [token]."""
        windows = {run.attention.window for run in self._runs_with("attention")
                   if run.attention.window}
        if len(windows) > 1:
            raise ConfigError(f"{self.name}: its layers use different windows {sorted(windows)}")
        return windows.pop() if windows else None

    @property
    def n_window_layers(self) -> int:
        """Blocks whose attention uses a sliding window [-]."""
        return sum(run.count for run in self._runs_with("attention") if run.attention.window)

    def arch(self) -> dict[str, int]:
        """Keyword arguments of the uniform-decoder formulas (:mod:`~llm_arithmetic.formulas.
        params`); a :class:`ConfigError` for a stack whose blocks differ."""
        if not self.is_uniform:
            raise ConfigError(f"{self.name}: its layers are not all alike; the uniform-decoder "
                              "formulas do not apply (use the model's own methods)")
        a, mlp = self.layers[0].attention, self.layers[0].mlp
        return dict(n_vocab=self.n_vocab, d_model=self.d_model, n_layers=self.n_layers,
                    n_heads=a.n_heads, n_kv_heads=a.n_kv_heads, d_head=a.d_head, d_ff=mlp.d_ff,
                    n_mlp_mats=mlp.n_mats, n_experts=mlp.n_experts, n_active_experts=mlp.top_k,
                    tied=int(self.tied), n_positions=self.n_positions,
                    qkv_bias=int(a.qkv_bias), o_bias=int(a.o_bias), mlp_bias=int(mlp.bias),
                    norm_vecs_layer=self.layers[0].norms, norm_vecs_final=self.norm_vecs_final,
                    head_bias=int(self.head_bias))

    @cached_property
    def memo(self) -> dict[Any, Any]:
        """Values other modules derive from the model and keep, each under a key that names
        what it holds (the tensors of a llama.cpp file type, by its name): the fields are
        frozen, so what depends only on them is worked out once per model."""
        return {}

    # ---- the plan's view of the model ------------------------------------------------------
    @cached_property
    def blocks(self) -> tuple[tuple[int, dict[str, dict[str, Any]]], ...]:
        """(count, parts) for each distinct block of the stack, counts summed over its runs:
        what the plan's fold reads (an interleaved stack has a few kinds of block in many
        runs, and every sum needs each kind once)."""
        return stack_blocks(self.layers)

    @property
    def native_format(self) -> dict[str, str | None] | None:
        """The weight format the checkpoint ships in, as the precision chain reads it (its
        compute precision and fallback): the format its matrix products run in
        (:attr:`~llm_arithmetic.catalog.quantization.Scheme.compute`), where the scheme
        quantizes the activations too (DeepSeek-V3's block-scaled fp8 runs on fp8 tensor cores
        where the chip has them); None for 16-bit checkpoints, for weight-only schemes (Kimi
        K2.5's int4 experts and AWQ files are multiplied at 16 bits) and for schemes of the
        experts alone (gpt-oss's MXFP4 experts are multiplied at 16 bits by the kernels of most
        chips).

        >>> from llm_arithmetic import get_model
        >>> get_model("deepseek-v3").native_format, get_model("llama-3.1-8b").native_format
        ({'compute': 'fp8', 'compute_fallback': 'fp16'}, None)
        """
        scheme = self.scheme
        if scheme is None or scheme.experts_only or scheme.compute is None:
            return None
        return plan_format(scheme.compute)

    @cached_property
    def draft_format(self) -> dict[str, str | None] | None:
        """The format a draft step of the model's multi-token-prediction module multiplies in,
        as the precision chain reads it: 16 bits (the chain of a 16-bit checkpoint, from fp16)
        where the checkpoint keeps every matrix of the module unquantized
        (:func:`~llm_arithmetic.catalog.quantization.mtp_format_kept`: NVIDIA's
        DeepSeek-V3.1-NVFP4 runs its model in NVFP4 and its bf16 module at 16 bits); None
        where the module runs in the model's format (:attr:`native_format`), or is not
        modelled.

        >>> from llm_arithmetic import get_model
        >>> get_model("deepseek-v3").draft_format is None
        True
        """
        kept = self.scheme is not None and self.scheme.keeps_module(self)
        return plan_format("fp16") if kept else None

    @property
    def native_kv_bits(self) -> int:
        """Bits of a KV-cache element the checkpoint asks for (its scheme's
        :attr:`~llm_arithmetic.catalog.quantization.Scheme.kv_bits`: 8 for a ModelOpt file's
        fp8 cache, which vLLM then allocates by default), else 16: the cache's default.

        >>> from llm_arithmetic import get_model
        >>> get_model("deepseek-v3").native_kv_bits
        16
        """
        bits = getattr(self.scheme, "kv_bits", None)
        return bits if bits else 16

    @cached_property
    def plan_inputs(self) -> Mapping[str, Any]:
        """The model's inputs to the plan (:mod:`llm_arithmetic.plan.steps`), with the
        workload's defaults: one sequence of one token, 16-bit cache and state, weights as
        shipped."""
        try:
            k = self.n_active_experts
        except ConfigError:
            k = None
        default = self.native_bits["default"]
        return MappingProxyType(dict(
            native_format=self.native_format, native_format_draft=self.draft_format,
            blocks=self.blocks, n_vocab=self.n_vocab, d_model=self.d_model, tied=int(self.tied),
            n_positions=self.n_positions, norm_vecs_final=self.norm_vecs_final,
            head_bias=int(self.head_bias),
            extras_in_total=sum(x.params for x in self.extras if x.in_total),
            extras_read=sum(x.params for x in self.extras if x.read),
            extras_matmul=sum(x.matmul for x in self.extras if x.read),
            extras_copied=sum(x.params for x in self.extras if x.copied),
            d_ple=self.d_ple, n_vocab_ple=self.n_vocab_ple,
            altup_num_inputs=self.altup_num_inputs,
            native_bits_default=default,
            native_bits_experts=self.native_bits.get("experts", default),
            native_bits_unread=self.native_bits.get("unread", default),
            native_bits_draft=self.native_bits.get("draft"),
            native_bits_draft_experts=self.native_bits.get("draft_experts"),
            native_bits_draft_inputs=self.native_bits.get("draft_inputs"),
            native_bits_draft_blocks=self.native_bits.get("draft_blocks"),
            native_bits_head=self.native_bits.get("head"),
            **{f"native_bits_copy_{k}": self.native_bits.get(f"copy_{k}")
               for k in ("heads", "matrices", "router", "plain")},
            **{f"native_bits_draft_copy_{k}": self.native_bits.get(f"draft_copy_{k}")
               for k in ("heads", "matrices", "router", "plain")},
            is_moe=self.is_moe, n_active_experts=k, bits_weight=None, bits_kv=16,
            bits_state=16, bits_ssm=None, context=1, batch=1, prompt=None, draft_len=None,
            acceptance=None, draft_cost=None, draft_layers=None, draft_step_blocks=None,
            module_copied_params=None, own_bits_blocks=None, own_bits_experts=None,
            own_inputs_read=None, own_bits_inputs=None, own_bits_head=None,
            draft_weight_bytes=None,
            draft_params=None, draft_embedding_params=None, draft_head_params=None,
            draft_blocks=None, draft_d_model=None, draft_final_norm_params=None, draft_bits_default=None,
            forecast_decode=None,
            forecast_prefill=None, forecast_prefill_int8=None, build_age=None,
            **{name: None for name in ENGINE_INPUTS},
            images=None, image_tokens_per_image=None, vision_prefill_flops=None,
            vision_params=None, vision_patches=None, d_vision=None, vision_layers=None,
            vision_mergers=None, vision_split_params=None, vision_whole_flops=None,
            video_tokens=None, image_states=None, cross_layers=None, cross_heads=None,
            cross_kv_heads=None, cross_d_head=None,

            audio_params=None, audio_prefill_flops=None, audio_rows=None,
            d_audio=None, audio_layers=None, audio_split_params=None,
            audio_whole_flops=None))

    @cached_property
    def plan(self) -> Evaluator:
        """The plan evaluated for this model at the default inputs; what does not depend on
        the workload (the counts) is computed once and kept."""
        return Evaluator(PLAN_STEPS, self.plan_inputs)

    def evaluate(self, name: str, **inputs: Any) -> Any:
        """One quantity of the plan for this model, with some inputs given; a quantity that
        needs a part the library does not count (:data:`~llm_arithmetic.plan.stack.UNCOUNTED`)
        is refused naming it."""
        value = self.plan.child(**inputs).get(name)
        if value is None and self.uncounted:
            raise ConfigError(f"{self.name}: {name} is not counted: it needs {self.uncounted}")
        return value

    @cached_property
    def uncounted(self) -> str:
        """What of this model the library does not count (its forms in
        :data:`~llm_arithmetic.plan.stack.UNCOUNTED`), or ""."""
        return self.uncounted_for()

    @cached_property
    def cache_uncounted(self) -> str:
        """What of this model's KV cache at a given context the library does not count (its
        forms whose stored cache is missing), or "": where it is "", the cache, the bound and
        the memory are counted even if a figure per token is not."""
        return self.uncounted_for("kv_stored")

    def uncounted_for(self, term: str | None = None) -> str:
        """What of this model the library does not count: its forms in
        :data:`~llm_arithmetic.plan.stack.UNCOUNTED`, those missing ``term`` where given."""
        forms = {v for _, parts in self.blocks for part, raw in parts.items() if part in PARTS
                 for v in part_scope(part, raw).values() if isinstance(v, str)}
        if term is not None:
            forms &= set(TERMS[term].get("missing", ()))
        return "; ".join(UNCOUNTED[f] for f in sorted(forms & set(UNCOUNTED)))

    # ---- parameters -----------------------------------------------------------------------
    @cached_property
    def embedding_params(self) -> int:
        """Embeddings, final norm and output head [-]."""
        return self.evaluate("embedding_params")

    @cached_property
    def language_model_params(self) -> int:
        """Parameters of the decoder: embeddings, every block (every expert), head [-]."""
        return self.evaluate("language_model_params")

    @cached_property
    def total_params(self) -> int:
        """The published total: the decoder and the extras counted in it [-]."""
        return self.evaluate("total_params")

    @cached_property
    def expert_params(self) -> int:
        """Parameters of every routed expert of every block [-]."""
        return self.evaluate("routed_params")

    @cached_property
    def active_params(self) -> int:
        """Parameters one token uses: the decoder with top-k routed experts per block [-]."""
        return self.evaluate("active_params")

    @cached_property
    def matmul_params(self) -> int:
        """Weights in matrix products for one token (2 FLOPs each): projections, active and
        shared experts, routers, mixers' projections, the output head and the extras every
        token reads [-]."""
        return self.evaluate("matmul_params")

    @cached_property
    def head_params(self) -> int:
        """Weights of the output head, V x d (tied or not): a prefill multiplies them once, for
        the last prompt position, a decode step once per token [-]."""
        return self.evaluate("head_matmul_params")

    @cached_property
    def unread_embedding_params(self) -> int:
        """Embedding rows a decode step does not read: all but one of an untied table's (a tied
        table is read whole, as the head), all but one of a learned position table's [-]."""
        return self.evaluate("unread_embedding_params")

    @cached_property
    def decode_read_params(self) -> int:
        """Parameters one decode step of one token reads [-]."""
        return self.evaluate("decode_read_params")

    def experts_read(self, batch: Any = 1) -> Any:
        """Routed experts per MoE block that a step of B tokens reads (uniform routing; the
        top-k at batch 1; 1 for a dense model) [-]."""
        return self.evaluate("experts_read", batch=batch)

    def read_params(self, batch: Any = 1) -> Any:
        """Parameters one decode step of B tokens reads: every shared weight once, and the
        experts the batch's tokens chose (uniform routing, the upper end) [-]."""
        return self.evaluate("read_params", batch=batch)

    def params_breakdown(self) -> dict[str, int]:
        """Where the parameters are: embeddings and head, attention, mixers, MLPs (dense),
        routed experts, shared experts and routers, norms, extras [-]."""
        d = self.d_model
        out = {"embeddings and head": self.embedding_params,
               "per-layer embeddings (table, projections, gates)": self.evaluate("ple_params"),
               "attention": 0,
               "state-space mixers": 0, "dense MLPs": 0, "routed experts": 0,
               "shared experts and routers": 0, "norms": 0}
        for run in self.layers:
            c = run.count
            if run.attention is not None:
                out["attention"] += c * run.attention.params(d)
            if run.mixer is not None:
                out["state-space mixers"] += c * run.mixer.params(d)
            if run.mlp is not None:
                if run.mlp.is_moe or run.mlp.n_shared:
                    experts = run.mlp.routed_params(d)
                    out["routed experts"] += c * experts
                    out["shared experts and routers"] += c * (run.mlp.params(d) - experts)
                else:
                    out["dense MLPs"] += c * run.mlp.params(d)
            out["norms"] += c * run.norm_params(d)
        for x in self.extras:
            out[x.name + (" (in the total)" if x.in_total else " (not in the total)")] = x.params
        return {k: v for k, v in out.items() if v}

    # ---- bytes ----------------------------------------------------------------------------
    def weight_bytes(self, bits_weight: Any = None) -> Any:
        """Bytes of all the weights [B]: at ``bits_weight`` each, or as shipped (the routed
        experts' matrices in their own format where the checkpoint has one)."""
        return self.evaluate("weight_bytes", bits_weight=bits_weight)

    def step_weight_bytes(self, bits_weight: Any = None, batch: Any = 1) -> Any:
        """Weight bytes one decode step of B tokens reads [B] (the experts the batch touches,
        as :meth:`read_params`)."""
        return self.evaluate("step_weight_bytes", bits_weight=bits_weight, batch=batch)

    def kv_cache_bytes_per_token(self, bits_kv: Any = 16) -> Any:
        """Cache bytes one token adds, all attention layers, before any window fills [B]."""
        return self.evaluate("kv_cache_bytes_per_token", bits_kv=bits_kv)

    def kv_cache_bytes(self, context: Any, batch: Any = 1, bits_kv: Any = 16) -> Any:
        """Cache of B sequences of S tokens as runtimes store it: a sliding-window layer keeps
        min(S, window) tokens, a chunked layer its current chunk, latent attention its
        latent and rotary key [B]."""
        return self.evaluate("kv_cache_bytes", context=context, batch=batch, bits_kv=bits_kv)

    def kv_cache_bytes_full_storage(self, context: Any, batch: Any = 1,
                                    bits_kv: Any = 16) -> Any:
        """The cache if every layer kept all S tokens (runtimes without a window-aware cache)
        [B]."""
        return self.evaluate("kv_cache_bytes_full_storage", context=context, batch=batch,
                             bits_kv=bits_kv)

    def state_bytes(self, bits_state: Any = 16, bits_ssm: Any = None) -> Any:
        """Bytes of the state-space layers' state for one sequence (constant in S) [B]: the
        convolution windows at ``bits_state``, the recurrent matrices at ``bits_ssm``, by
        default at the bits the checkpoint keeps them in (its config's ``ssm_bits``; 32 for a
        Kimi delta attention layer's), else at ``bits_state``.

        >>> from llm_arithmetic import get_model
        >>> m = get_model("nemotron-3-super")  # mamba_ssm_cache_dtype: float32
        >>> m.state_bytes(16) > m.state_bytes(16, bits_ssm=16)
        True
        """
        return self.evaluate("state_bytes", bits_state=bits_state, bits_ssm=bits_ssm)

    def seq_bytes(self, context: Any, bits_kv: Any = 16, bits_state: Any = 16,
                  bits_ssm: Any = None) -> Any:
        """Bytes one decode step moves for one sequence besides the weights: the cache it
        reads (windows and chunks applied) and the state-space layers' state (as
        :meth:`state_bytes` counts it), read and written back [B]."""
        return self.evaluate("seq_bytes", context=context, bits_kv=bits_kv,
                             bits_state=bits_state, bits_ssm=bits_ssm)

    def decode_bytes_breakdown(self, context: Any, bits_weight: Any = None, bits_kv: Any = 16,
                               bits_state: Any = 16, bits_ssm: Any = None) -> dict[str, Any]:
        """Where the bytes of one decode step of one sequence go [B]: attention weights,
        state-space mixers, MLP and expert weights used, everything else the step reads (the
        head, one embedding row, norms, routers), the cache (windows applied) and the state.
        The parts add up to :meth:`step_weight_bytes` at batch 1 plus :meth:`seq_bytes` at the
        same bits.

        >>> from llm_arithmetic import get_model
        >>> m = get_model("nemotron-h-56b")
        >>> sum(m.decode_bytes_breakdown(32768, bits_kv=8, bits_state=8).values()) == (
        ...     m.step_weight_bytes(16, 1) + m.seq_bytes(32768, 8, 8))
        True
        """
        ev = self.plan.child(context=context, bits_weight=bits_weight, bits_kv=bits_kv,
                             bits_state=bits_state, bits_ssm=bits_ssm)

        d = self.d_model
        attn = sum(run.count * run.attention.params(d) for run in self._runs_with("attention"))
        mixers = sum(run.count * run.mixer.params(d) for run in self._runs_with("mixer"))
        mlp = sum(run.count * run.mlp.active_params(d) for run in self._runs_with("mlp"))
        expert_used = ev.get("expert_matrices_read")  # at the plan's default batch, 1
        default, experts = ev.get("bits_default"), ev.get("bits_experts")
        ple = ev.get("ple_params") - ev.get("unread_ple_params")
        rest = self.decode_read_params - attn - mixers - mlp - ple
        wb = N.weight_bytes
        out = {
            "attention weights": wb(n_params=attn, bits_weight=default),
            "state-space mixers": wb(n_params=mixers, bits_weight=default),
            "MLP and expert weights used": wb(n_params=mlp - expert_used, bits_weight=default)
            + wb(n_params=expert_used, bits_weight=experts),
            "per-layer embeddings: one table row, projections, gates":
                wb(n_params=ple, bits_weight=default),
            "head, embedding row, norms": wb(n_params=rest, bits_weight=default),
            "KV cache": ev.get("seq_kv_read"),
            "state (read and written)": ev.get("seq_bytes") - ev.get("seq_kv_read"),
        }
        return {k: v for k, v in out.items() if v}

    def attended_context(self, context: Any) -> Any:
        """Cached positions a decode step reads per attention layer, on average [token]."""
        return self.evaluate("attended_context", context=context)

    # ---- FLOPs ----------------------------------------------------------------------------
    def decode_flops_per_token(self, context: Any) -> Any:
        """FLOPs to decode one token at S cached tokens: 2 per matrix weight, attention over
        what each layer attends to, the state-space recurrences [FLOP]."""
        return self.evaluate("decode_flops", context=context)

    def prefill_flops(self, prompt: Any) -> Any:
        """FLOPs to prefill a prompt of T tokens [FLOP]."""
        return self.evaluate("prefill_flops", prompt=prompt)

    # ---- editing and display --------------------------------------------------------------
    _ATTN_FIELDS = {"n_heads": "n_heads", "n_kv_heads": "n_kv_heads", "d_head": "d_head",
                    "qkv_bias": "qkv_bias", "o_bias": "o_bias"}
    _MLP_FIELDS = {"d_ff": "d_ff", "n_mlp_mats": "n_mats", "mlp_bias": "bias",
                   "n_experts": "n_experts", "n_active_experts": "top_k"}

    def with_(self, **changes: Any) -> "Model":
        """A copy with some fields changed (validated again).

        Besides the model's own fields, the classic names apply to every layer:
        ``n_heads``, ``n_kv_heads``, ``d_head``, ``qkv_bias``, ``o_bias`` (attention),
        ``d_ff``, ``n_mlp_mats``, ``mlp_bias``, ``n_experts``, ``n_active_experts`` (MLP),
        ``norm_vecs_layer``; ``sliding_window`` and ``n_window_layers`` and ``n_layers``
        rebuild a uniform decoder.

        >>> m = Model.transformer(name="x", n_vocab=100, d_model=64, n_layers=2, n_heads=4,
        ...                       n_kv_heads=4, d_head=16, d_ff=256)
        >>> m.with_(n_kv_heads=1).kv_cache_bytes_per_token() * 4 == m.kv_cache_bytes_per_token()
        True
        """
        own = {f.name for f in fields(self)}
        rebuild = {"sliding_window", "n_window_layers", "n_layers"} & set(changes)
        if rebuild:
            kw = dict(self.arch(), sliding_window=self.sliding_window,
                      n_window_layers=self.n_window_layers, name=self.name,
                      trained_context=self.trained_context, family=self.family,
                      source=self.source, label=self.label)
            kw.update({k: bool(v) if k in ("tied", "qkv_bias", "o_bias", "mlp_bias",
                                           "head_bias") else v for k, v in kw.items()})
            kw.update(changes)
            return Model.transformer(**kw)
        attn = {self._ATTN_FIELDS[k]: v for k, v in changes.items() if k in self._ATTN_FIELDS}
        mlp = {self._MLP_FIELDS[k]: v for k, v in changes.items() if k in self._MLP_FIELDS}
        norms = changes.get("norm_vecs_layer")
        unknown = set(changes) - own - set(self._ATTN_FIELDS) - set(self._MLP_FIELDS) - {
            "norm_vecs_layer"}
        if unknown:
            raise ConfigError(f"{self.name}: unknown field(s) {', '.join(sorted(unknown))}")
        runs = []
        for run in self.layers:
            a = replace(run.attention, **attn) if attn and run.attention else run.attention
            m = replace(run.mlp, **mlp) if mlp and run.mlp else run.mlp
            runs.append(replace(run, attention=a, mlp=m,
                                norms=run.norms if norms is None else norms))
        own_changes = {k: v for k, v in changes.items() if k in own}
        own_changes.setdefault("layers", tuple(runs))
        return replace(self, **own_changes)

    def describe_layers(self) -> list[str]:
        """One line per run of identical blocks: ``"layers 0-2: MLA ... + gated MLP 18,432"``."""
        out, start = [], 0
        for run in self.layers:
            end = start + run.count - 1
            where = f"layer {start}" if run.count == 1 else f"layers {start}-{end}"
            out.append(f"{where}: {run.describe()}")
            start = end + 1
        return out

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __repr__(self) -> str:
        return (f"Model({self.name!r}, {self.n_layers} layers, d_model={self.d_model}, "
                f"{self.total_params:,} parameters)")
