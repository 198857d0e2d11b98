"""Readers of Hugging Face ``config.json`` files, one per family (``model_type``; for a type the
library does not know, the layout its ``architectures`` names, by :data:`ARCHITECTURES`).

Each reader builds a :class:`~llm_arithmetic.catalog.model.Model` as a stack of layer kinds,
applying the conventions the file leaves implicit: the defaults of the family's configuration
class in ``transformers`` (real files omit defaults: Gemma 3's ``text_config`` lists six keys)
and the layout of its modeling code (biases, norms, q/k norms, which layers are windowed or
mixtures of experts). ``tests/configs/FAMILIES.md`` documents every rule with its source.

Four guarantees:

* **Errors name the field.** A missing, non-integer, non-positive, implausible or
  inconsistent value raises :class:`~llm_arithmetic.core.errors.ConfigError` naming it (and,
  for a plausibility limit, why the limit is there); so do malformed, oversized or too deeply
  nested JSON and an unsupported ``model_type``.
* **A missing layer kind is named.** A file of a family no reader knows is refused naming the
  first layer kind of :data:`FEATURES` it declares (linear attention, an indexer, compressed
  attention, per-layer geometry, ...) and the key that declares it; a known family's file that
  declares one is refused the same way.
* **Never a silently different model.** A key that changes a count but that the family's reader
  does not understand (``moe_intermediate_size`` in a ``mixtral`` file, ``kv_lora_rank`` in a
  ``llama`` file, ``layer_types`` where the reader assumes uniform layers) is an error naming
  the key and what it means.
* **Bounded work.** A config is read up to :data:`MAX_CONFIG_BYTES`; sizes are capped by
  :data:`LIMITS`, so no input makes a count take long or overflow.

>>> m = read_config({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
...     "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008})
>>> m.total_params, m.kv_cache_bytes_per_token()
(6738415616, 524288)
>>> read_config({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
...     "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008,
...     "kv_lora_rank": 512})
Traceback (most recent call last):
...
llm_arithmetic.core.errors.ConfigError: config: field 'kv_lora_rank' = 512 (the latent width of multi-head latent attention) is not understood by the 'llama' reader, and counting without it would describe a different model; is the model_type right?
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ... import numeric as N
from ...core.errors import ConfigError
from ..model import (HASH_EXTRA, MLP, MTP_EXTRA, Attention, Extra, GatedDeltaNet,
                    GatedMemoryUnit, KimiDeltaAttention, Mamba1,
                    Layers, LightningAttention, Mamba2, Model, ShortConv)
from ..quantization import (Scheme, deepseek_v4_scheme, find_scheme, minimax_m3_scheme,
                           native_bits, read_hf_quant)

__all__ = ["read_config", "FAMILIES", "SCHEME_ADJUSTERS", "ARCHITECTURES", "FEATURES", "LIMITS",
           "MAX_CONFIG_BYTES", "COUNT_KEYS"]

#: Largest config file read [B]. Most are a few kB (a Llama 4 config is under 10 kB), but a
#: ModelOpt checkpoint lists its quantization per module: nvidia/MiniMax-M3-NVFP4's is 3.1 MB.
MAX_CONFIG_BYTES = 1 << 24
#: Deepest JSON nesting accepted (real configs nest two or three levels).
MAX_DEPTH = 32

#: Plausibility limits: kind -> (largest value, why). Values beyond them are refused with the
#: reason, so that a typo or a hostile file cannot make a count run long or overflow.
LIMITS: Mapping[str, tuple[int, str]] = {
    "layers": (10_000, "published models have at most a few hundred blocks"),
    "width": (1 << 21, "hidden, MLP and head widths of published models are below 2 million"),
    "vocab": (1 << 24, "vocabularies of published models are below 16.8 million entries"),
    "heads": (1 << 16, "published models have at most a few hundred heads"),
    "experts": (1 << 16, "published mixtures have at most a few hundred experts"),
    "context": (1 << 32, "trained contexts of published models are below 4.3 billion tokens"),
    "count": (1 << 16, "small counts (norms, kernel widths, groups) are below 65,536"),
}

#: Layer kinds, each with a key whose presence declares it (in the order a refusal looks for
#: them: the first found is named). Some are modelled for the families whose readers read them
#: (Gated DeltaNet: qwen3_next, qwen3_5; Kimi delta attention: kimi_linear; gated short
#: convolutions: lfm2, lfm2_moe; lightning attention: minimax, minimax_m1, minimax_text_01;
#: SambaY's Mamba-1 layers, gated memory units and cross-decoder: phi4flash;
#: the indexer:
#: deepseek_v32, glm_moe_dsa; heads per layer: laguna; block shapes per layer: nemotron-nas;
#: windows with their own heads: mimo_v2_flash; global layers with their own
#: head width and values = keys: gemma4), none for the others. A file of
#: an unknown family is refused naming its first one; a known family's file that carries one
#: its reader does not read is refused too (it is one of :data:`COUNT_KEYS`).
FEATURES: tuple[tuple[str, str], ...] = (
    ("compress_ratios", "compressed attention (DeepSeek-V4's per-layer KV compression)"),
    ("linear_attn_config", "linear attention with a constant per-sequence state (Kimi delta "
                           "attention, KDA: a gated delta rule with a head_dim x head_dim state "
                           "per head in the kda_layers)"),
    ("linear_attn_config.use_full_rank_gate", "a full-rank output gate in Kimi delta "
                                              "attention (Kimi K3)"),
    ("linear_num_value_heads", "linear attention with a constant per-sequence state "
                               "(Gated DeltaNet)"),
    ("attn_type_list", "lightning attention (MiniMax-01: linear attention with a fixed decay "
                       "per head and a head_dim x head_dim state per head, on the layers "
                       "marked 0)"),
    ("index_topk", "sparse attention with an indexer (DeepSeek Sparse Attention: the "
                   "indexer's key cache and a top-k read of the main cache)"),
    ("indexer_types", "indexers shared across layers (GLM-5.2: a 'shared' layer reuses an "
                      "earlier layer's top-k selection and holds no indexer weights or index "
                      "keys)"),
    ("sparse_attention_config", "block-sparse attention (MiniMax Sparse Attention: an indexer "
                                "that selects blocks of the cache for each key/value head)"),
    ("global_head_dim", "per-layer attention geometry (other head widths and key/value heads "
                        "on global layers)"),
    ("attention_k_eq_v", "keys shared with values"),
    ("swa_num_attention_heads", "per-layer attention geometry (windowed layers with their own "
                                "heads)"),
    ("num_attention_heads_per_layer", "per-layer attention geometry (a head count per layer)"),
    ("hidden_size_per_layer_input", "per-layer input embeddings"),
    ("block_configs", "per-layer block shapes (DeciLM / Nemotron-NAS: attention and MLP widths "
                      "that change from layer to layer)"),
    ("moe_latent_size", "a latent projection around the experts (LatentMoE)"),
    ("attn_res_block_size", "attention residuals (Kimi K3: each block mixes the outputs of "
                            "earlier blocks with a learned pseudo-query and norm)"),
    ("mla_use_output_gate", "an output gate on latent attention (Kimi K3's gated MLA)"),
    ("routed_expert_hidden_size", "a latent projection around the experts (Kimi K3)"),
    ("hc_mult", "hyper-connections (DeepSeek-V4: several residual streams mixed per block)"),
    ("conv_L_cache", "gated short convolutions (LFM2: a depthwise convolution over the last few "
                     "tokens between two input-dependent gates, with a state of its own)"),
    ("altup_num_inputs", "alternating updates (Gemma 3n's AltUp: several copies of the hidden "
                         "state, one updated by each block and the others predicted)"),
    ("laurel_rank", "a learned low-rank residual in every block (Gemma 3n's LAuReL)"),
    ("mb_per_layer", "SambaY's decoder-hybrid-decoder (Phi-4-mini-flash: Mamba-1 layers, "
                     "differential attention, gated memory units, and a cross-decoder whose "
                     "attention layers reuse one layer's keys and values)"),
    ("cross_attention_layers", "cross-attention layers (Llama 3.2 Vision: layers whose keys "
                               "and values come from an image)"),
)

#: Keys that change a parameter count, a cache size or FLOPs, with what they mean. A file that
#: carries one (with a value other than null, false, 0 or empty) that its family's reader does
#: not read is refused.
COUNT_KEYS: Mapping[str, str] = {
    **{key: feature for key, feature in FEATURES},
    "moe_intermediate_size": "the width of each routed expert",
    "shared_expert_intermediate_size": "the width of the shared expert",
    "n_shared_experts": "shared experts per MoE layer",
    "n_routed_experts": "routed experts per MoE layer",
    "num_experts": "routed experts per MoE layer",
    "num_local_experts": "routed experts per MoE layer",
    "num_experts_per_tok": "experts per token",
    "experts_per_token": "experts per token",
    "kv_lora_rank": "the latent width of multi-head latent attention",
    "q_lora_rank": "the low rank of latent attention's query projection",
    "qk_rope_head_dim": "the rotary key width of latent attention",
    "qk_nope_head_dim": "the non-rotary query/key width of latent attention",
    "v_head_dim": "the value head width of latent attention",
    "first_k_dense_replace": "leading dense layers of a mixture of experts",
    "moe_layer_freq": "which layers are mixtures of experts",
    "decoder_sparse_step": "which layers are mixtures of experts",
    "mlp_only_layers": "layers with a dense MLP in a mixture of experts",
    "interleave_moe_layer_step": "which layers are mixtures of experts",
    "layer_types": "a per-layer list of attention kinds (sliding or full)",
    "sliding_window_pattern": "which layers use the sliding window",
    "attention_chunk_size": "chunked attention",
    "use_qk_norm": "query and key norms",
    "qk_layernorm": "query and key norms",
    "hybrid_override_pattern": "the pattern of state-space, attention and MLP layers",
    "layers_block_type": "which layers are state-space layers",
    "attn_layer_period": "which layers are attention layers",
    "expert_layer_period": "which layers are mixtures of experts",
    "mamba_num_heads": "state-space heads",
    "ssm_state_size": "the state size of state-space layers",
    "num_kv_heads": "key/value heads",
    "multi_query": "multi-query attention",
    "new_decoder_architecture": "Falcon's grouped-query layout with two norms",
    "intermediate_size_mlp": "the width of dense MLP layers",
    "lm_head_bias": "a bias on the output head",
    "vision_config": "a vision tower",
    "num_nextn_predict_layers": "multi-token prediction layers",
    "moe_shared_expert_intermediate_size": "the width of the shared expert",
    "share_expert_dim": "the width of the shared expert",
    "moe_layers_enum": "which layers are mixtures of experts",
    "attention_other_setting": "other query heads on sliding layers",
    "num_sliding_attention_heads": "other query heads on sliding layers",
    "text_config": "a wrapped language model",
    "language_config": "a wrapped language model",
    "llm_config": "a wrapped language model",
    "attention_out_bias": "a bias on the attention output projection",
    "moe_num_experts": "routed experts per MoE layer",
    "moe_k": "experts per token",
    "moe_num_shared_experts": "shared experts per MoE layer",
    "moe_layer_start_index": "which layers are mixtures of experts",
    "moe_layer_end_index": "which layers are mixtures of experts",
    "moe_layer_interval": "which layers are mixtures of experts",
    "use_cla": "cross-layer attention (layers that reuse another layer's keys and values)",
    "use_mla": "multi-head latent attention",
    "moe_topk": "experts per token",
    "num_shared_expert": "shared experts per MoE layer",
    "moe_layer_num_skipped": "leading dense layers of a mixture of experts",
    "shared_intermediate_size": "the width of the shared expert",
    "mamba_n_heads": "state-space heads",
    "mamba_d_state": "the state size of state-space layers",
    "mamba_d_ssm": "the inner width of state-space layers",
    "mamba_expand": "the inner width of state-space layers",
    "mamba_rms_norm": "a norm inside state-space layers",
    "projectors_bias": "a bias on the state-space layers' output projection",
    "attn_layer_indices": "which layers have attention",
    "num_kv_shared_layers": "layers that reuse an earlier layer's keys and values",
    "zero_expert_num": "zero-computation (identity) experts in the routing pool",
    "mtp_num_layers": "multi-token prediction layers",
    "oe_vocab_size_ratio": "n-gram embedding tables (LongCat's over-embedding)",
    "ngram_vocab_size_ratio": "n-gram embedding tables (LongCat's over-embedding)",
    "fa_interval": "a hybrid of linear and full attention layers (LongCat)",
    "mamba_dt_rank": "the rank of the state-space layers' step-size projection",
    "mamba_inner_layernorms": "norms inside Mamba-1 layers (on the step size, B and C)",
    "state_size": "the state size of state-space layers",
    "share_q_dim": "the low rank of the query projection (Step3's multi-matrix factorization "
                   "attention)",
    "num_attention_groups": "key/value heads (Step3's attention groups)",
    "moe_top_k": "experts per token",
    "sparse_config": "sparse attention (MiniCPM4's InfLLM v2)",
    "kv_channels": "the head width (MiniCPM4)",
}

#: Layer kinds of :data:`FEATURES` that a family's reader models: where a wrapped language
#: model of that family declares one (Kimi K3's ``text_config`` is a ``kimi_linear`` file), a
#: refusal of the wrapper names the others, what the library lacks.
MODELLED_BY: Mapping[str, frozenset[str]] = {
    "linear_attn_config": frozenset({"kimi_linear"}),
    "linear_attn_config.use_full_rank_gate": frozenset({"kimi_linear"}),
    "attn_res_block_size": frozenset({"kimi_linear"}),
    "mla_use_output_gate": frozenset({"kimi_linear"}),
    "routed_expert_hidden_size": frozenset({"kimi_linear"}),
    "linear_num_value_heads": frozenset({"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"}),
    "index_topk": frozenset({"deepseek_v32", "glm_moe_dsa"}),
    "indexer_types": frozenset({"deepseek_v32", "glm_moe_dsa"}),
    "sparse_attention_config": frozenset({"minimax_m3"}),
    "block_configs": frozenset({"nemotron-nas"}),
    "conv_L_cache": frozenset({"lfm2", "lfm2_moe"}),
    "altup_num_inputs": frozenset({"gemma3n_text"}),
    "laurel_rank": frozenset({"gemma3n_text"}),
    "attn_type_list": frozenset({"minimax", "minimax_m1", "minimax_text_01"}),
    "mb_per_layer": frozenset({"phi4flash"}),
}

_NEUTRAL = (None, False, 0, "", [], {})
_FEATURE_OF = dict(FEATURES)


def _declared(scope: Mapping[str, Any], key: str) -> Any:
    """The value of a (dotted) key in a config, or None."""
    for part in key.split("."):
        if not isinstance(scope, Mapping):
            return None
        scope = scope.get(part)
    return scope


class _Reader:
    """Typed access to a config dict with errors that name the field; remembers what it read."""

    def __init__(self, cfg: Mapping[str, Any], origin: str, family: str):
        self.cfg = cfg
        self.origin = origin
        self.family = family
        self.read: set[str] = set()

    def has(self, key: str) -> bool:
        self.read.add(key)
        return self.cfg.get(key) not in (None,)

    def raw(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        v = self.cfg.get(key)
        return default if v is None else v

    def int(self, key: str, default: Any = ..., *, kind: str = "width", minimum: int = 1) -> Any:
        self.read.add(key)
        v = self.cfg.get(key)
        if v is None:
            if default is ...:
                raise ConfigError(f"{self.origin}: missing field '{key}'")
            return default
        if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(f"{self.origin}: field '{key}' must be an integer, got {v!r:.60}")
        if v < minimum:
            need = "positive" if minimum == 1 else f"at least {minimum}"
            raise ConfigError(f"{self.origin}: field '{key}' must be {need}, got {v}")
        limit, why = LIMITS[kind]
        if v > limit:
            shown = f"{v:.3g}" if v < 10**300 else f"a {len(str(v))}-digit integer"
            raise ConfigError(f"{self.origin}: field '{key}' = {shown} is beyond the "
                              f"plausibility limit {limit:,} ({why})")
        return v

    def flag(self, key: str, default: bool) -> bool:
        self.read.add(key)
        v = self.cfg.get(key, default)
        if v is None:
            return default
        if not isinstance(v, bool):
            raise ConfigError(f"{self.origin}: field '{key}' must be true or false, got {v!r:.60}")
        return v

    def int_list(self, key: str, default: list[int], *, n: int | None = None) -> list[int]:
        self.read.add(key)
        v = self.cfg.get(key)
        if v is None:
            return list(default)
        if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool)
                                              for x in v):
            raise ConfigError(f"{self.origin}: field '{key}' must be a list of integers")
        if n is not None and len(v) != n:
            raise ConfigError(f"{self.origin}: field '{key}' has {len(v)} entries for {n} layers")
        return v

    def str_list(self, key: str, n: int, kinds: Iterable[str] | None = None) -> list[str] | None:
        """The list of ``n`` strings at ``key`` (one per layer), or None; with ``kinds``, a
        string not among them is an error naming the field."""
        self.read.add(key)
        v = self.cfg.get(key)
        if v is None:
            return None
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ConfigError(f"{self.origin}: field '{key}' must be a list of strings")
        if len(v) != n:
            raise ConfigError(f"{self.origin}: field '{key}' has {len(v)} entries for {n} layers")
        bad = set() if kinds is None else set(v) - set(kinds)
        if bad:
            raise ConfigError(f"{self.origin}: field '{key}' has unknown kinds {sorted(bad)}")
        return v

    def refuse(self, key: str, why: str) -> None:
        """Refuse a feature the counts do not model (better than a wrong count)."""
        self.read.add(key)
        v = self.cfg.get(key)
        if v not in _NEUTRAL:
            raise ConfigError(f"{self.origin}: field '{key}' = {v!r:.60} is not supported: {why}")

    def heads(self, d_model: int, heads_key: str = "num_attention_heads",
              kv_key: str = "num_key_value_heads", head_dim_key: str = "head_dim",
              head_dim_default: int | None = None) -> tuple[int, int, int]:
        h = self.int(heads_key, kind="heads")
        hkv = self.int(kv_key, h, kind="heads")
        if h % hkv:
            raise ConfigError(f"{self.origin}: field '{kv_key}' ({hkv}) does not divide "
                              f"'{heads_key}' ({h})")
        dh = self.int(head_dim_key, head_dim_default)
        if dh is None:
            if d_model % h:
                raise ConfigError(f"{self.origin}: '{heads_key}' ({h}) does not divide the "
                                  f"hidden size ({d_model}) and no '{head_dim_key}' is given")
            dh = d_model // h
        return h, hkv, dh

    def check_unread(self) -> None:
        for key, meaning in COUNT_KEYS.items():
            if key in self.read:
                continue
            v = self.cfg.get(key)
            if v not in _NEUTRAL and key in _FEATURE_OF:
                raise ConfigError(
                    f"{self.origin}: field '{key}' = {v!r:.60} declares {meaning}, which the "
                    f"'{self.family}' reader does not model, and counting without it would "
                    "describe a different model")
            if v not in _NEUTRAL:
                raise ConfigError(
                    f"{self.origin}: field '{key}' = {v!r:.60} ({meaning}) is not understood by "
                    f"the '{self.family}' reader, and counting without it would describe a "
                    "different model; is the model_type right?")


def _runs(layers: list[Layers]) -> tuple[Layers, ...]:
    """Consecutive identical layers merged into runs."""
    out: list[Layers] = []
    for layer in layers:
        if out and replace(out[-1], count=layer.count) == layer:
            last = out.pop()
            out.append(replace(last, count=last.count + layer.count))
        else:
            out.append(layer)
    return tuple(out)


def _bits16() -> dict[str, Fraction]:
    return {"default": Fraction(16)}


# ---- windows ----------------------------------------------------------------------------------
def _window_flags(r: _Reader, n: int, rule: str) -> list[bool]:
    """Which of the n layers use the sliding window, by the family's rule."""
    types = r.str_list("layer_types", n,
                       ("sliding_attention", "full_attention", "chunked_attention"))
    if types is not None:
        return [t == "sliding_attention" for t in types]
    if rule == "all":
        return [True] * n
    if rule == "alternate":  # Gemma 2: layers 0, 2, 4, ... are sliding
        return [i % 2 == 0 for i in range(n)]
    if rule == "olmo3":  # OLMo 3: three sliding layers, then one full
        return [(i + 1) % 4 != 0 for i in range(n)]
    if rule == "cohere2":  # Cohere 2: every sliding_window_pattern-th layer (4) is global
        p = r.int("sliding_window_pattern", 4, kind="count")
        return [(i + 1) % p != 0 for i in range(n)]
    if rule == "pattern":  # Gemma 3: every sliding_window_pattern-th layer is global
        p = r.int("sliding_window_pattern", 6, kind="count")
        return [(i + 1) % p != 0 for i in range(n)]
    if rule == "qwen2":  # layers >= max_window_layers, when use_sliding_window is set
        r.read.add("max_window_layers")
        if not r.flag("use_sliding_window", False):
            return [False] * n
        first = r.int("max_window_layers", n, kind="layers", minimum=0)
        return [i >= first for i in range(n)]
    return [False] * n


def _window(r: _Reader, default: int | None = None) -> int | None:
    return r.int("sliding_window", default, kind="context")


# ---- the llama family and its relatives ---------------------------------------------------------
def _decoder(r: _Reader, *, attention: Callable[[int], Attention],
             mlp: Callable[[int], MLP | None], n_layers: int, norms: int, tied: bool,
             trained_context: int | None, native: Mapping[str, Fraction] | None = None,
             extras: tuple[Extra, ...] = (), n_vocab: int | None = None,
             d_model: int | None = None, head_bias: bool = False, norm_vecs_final: int = 1,
             n_positions: int = 0) -> dict[str, Any]:
    layers = [Layers(1, attention(i), mlp=mlp(i), norms=norms) for i in range(n_layers)]
    return dict(n_vocab=n_vocab if n_vocab is not None else r.int("vocab_size", kind="vocab"),
                d_model=d_model if d_model is not None else r.int("hidden_size"),
                layers=_runs(layers), tied=tied, trained_context=trained_context,
                native_bits=native or _bits16(), extras=extras, head_bias=head_bias,
                norm_vecs_final=norm_vecs_final, n_positions=n_positions)


def _same_blocks(r: _Reader, d: int, n: int, attn: Attention, mlp: MLP, *, norms: int,
                 tied_default: bool = False, norm_vecs_final: int = 1) -> dict[str, Any]:
    """The model's fields for ``n`` identical blocks of width ``d`` (one attention, one MLP,
    ``norms`` norm vectors each), the head tied as ``tie_word_embeddings`` says (else
    ``tied_default``), the trained context ``max_position_embeddings``: what the readers of
    plain decoders (MiniCPM, InternLM3, EXAONE, Nemotron, OLMo, StableLM) give
    :func:`_decoder`."""
    return _decoder(r, n_layers=n, norms=norms,
                    tied=r.flag("tie_word_embeddings", tied_default),
                    trained_context=r.int("max_position_embeddings", None, kind="context"),
                    attention=lambda i: attn, mlp=lambda i: mlp, d_model=d,
                    norm_vecs_final=norm_vecs_final)


def _stack(r: _Reader, d: int, layers: list[Layers], *,
           context_default: int | None = None) -> dict[str, Any]:
    """The model's fields from a reader's list of blocks (one :class:`Layers` each, merged
    into runs): ``vocab_size``, an untied head unless ``tie_word_embeddings``, the trained
    context ``max_position_embeddings`` (else ``context_default``), 16-bit weights; what
    :func:`_decoder` gives for readers that build each block themselves (mixers,
    hyper-connections)."""
    return dict(n_vocab=r.int("vocab_size", kind="vocab"), d_model=d, layers=_runs(layers),
                tied=r.flag("tie_word_embeddings", False),
                trained_context=r.int("max_position_embeddings", context_default,
                                      kind="context"),
                native_bits=_bits16())


def _llama_like(r: _Reader, *, tied: bool = False, qkv_bias: bool | None = None,
                o_bias: bool | None = None, norms: int = 2, window_rule: str = "",
                qk_norm: str = "", head_dim_default: int | None = None,
                window_default: int | None = None) -> dict[str, Any]:
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d, head_dim_default=head_dim_default)
    if qkv_bias is None or o_bias is None:
        attn_bias = r.flag("attention_bias", False)
    else:  # the family fixes the biases: a file that says otherwise is another model
        attn_bias = False
        declared = r.flag("attention_bias", qkv_bias or o_bias)
        if declared != (qkv_bias or o_bias):
            layout = "has q/k/v biases" if qkv_bias or o_bias else "has no biases"
            raise ConfigError(
                f"{r.origin}: field 'attention_bias' = {str(declared).lower()} contradicts the "
                f"'{r.family}' layout (its attention {layout}), and counting without it would "
                "describe a different model; is the model_type right?")
    qkv_b = attn_bias if qkv_bias is None else qkv_bias
    o_b = attn_bias if o_bias is None else o_bias
    window = _window(r, window_default) if window_rule else None
    flags = _window_flags(r, n, window_rule) if window else [False] * n
    mlp = MLP(d_ff=r.int("intermediate_size"), n_mats=3, bias=r.flag("mlp_bias", False))
    return _decoder(
        r, n_layers=n, norms=norms, tied=r.flag("tie_word_embeddings", tied),
        trained_context=r.int("max_position_embeddings", None, kind="context"),
        attention=lambda i: Attention(h, hkv, dh, window=window if flags[i] else None,
                                      qkv_bias=qkv_b, o_bias=o_b, qk_norm=qk_norm),
        mlp=lambda i: mlp, d_model=d)


def _llama(r: _Reader) -> dict[str, Any]:
    return _llama_like(r)


def _mistral(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, qkv_bias=False, o_bias=False, window_rule="all")


def _smollm3(r: _Reader) -> dict[str, Any]:
    # SmolLM3: Llama's layout without biases, the head tied by default (SmolLM3Config), and
    # NoPE layers (no_rope_layers: 0 skips the rotary embedding), which change no count.
    # max_window_layers is a Qwen2 key the model does not read. A window exists only where
    # use_sliding_window and sliding_window are both set, on NoPE layers: not read, refused.
    n = r.int("num_hidden_layers", kind="layers")
    r.int("no_rope_layer_interval", 4, kind="count")
    if set(r.int_list("no_rope_layers", [], n=n)) - {0, 1}:
        raise ConfigError(f"{r.origin}: field 'no_rope_layers' must hold 0 (NoPE) or 1 "
                          "(rotary) per layer")
    types = r.str_list("layer_types", n, ("full_attention", "sliding_attention")) or []
    r.read.add("max_window_layers")
    if r.flag("use_sliding_window", False) or "sliding_attention" in types:
        r.refuse("sliding_window", "SmolLM3's sliding NoPE layers are not read")
    return _llama_like(r, tied=True, qkv_bias=False, o_bias=False)


def _arcee(r: _Reader) -> dict[str, Any]:
    # Arcee (AFM-4.5B; transformers 5.24.0 modeling_arcee.py): Llama's attention (q/k/v/o with
    # biases when attention_bias, head_dim given or d / H) and an ungated MLP, up_proj d -> w and
    # down_proj w -> d (biases when mlp_bias) around ReLU^2: two matrices, not Llama's three;
    # two RMSNorms a block, untied head by default.
    return _with_mlp(_llama_like(r), lambda mlp: replace(mlp, n_mats=2))


def _experts(r: _Reader, *, n_key: str, k_key: str = "num_experts_per_tok",
             defaults: tuple[Any, Any] = (..., ...)) -> tuple[int, int]:
    """The routed experts E (``n_key``) and the experts per token k (``k_key``), each with its
    default (``...``: required); k > E is an error naming both fields."""
    e = r.int(n_key, defaults[0], kind="experts")
    k = r.int(k_key, defaults[1], kind="experts")
    if k > e:
        raise ConfigError(f"{r.origin}: field '{k_key}' ({k}) exceeds '{n_key}' ({e})")
    return e, k


def _mixtral(r: _Reader) -> dict[str, Any]:
    kw = _llama_like(r, qkv_bias=False, o_bias=False, window_rule="all")
    e, k = _experts(r, n_key="num_local_experts")
    return _with_mlp(kw, lambda mlp: MLP(mlp.d_ff, n_experts=e, top_k=k))


def _with_mlp(kw: dict[str, Any], change: Callable[[MLP], MLP]) -> dict[str, Any]:
    kw["layers"] = tuple(Layers(run.count, run.attention, run.mixer, change(run.mlp), run.norms)
                         for run in kw["layers"])
    return kw


def _restated(r: _Reader, key: str, fixed: bool, layout: str) -> None:
    """Accept a key that restates what the family's layout fixes; refuse one that contradicts
    it, naming the key."""
    if r.flag(key, fixed) != fixed:
        raise ConfigError(
            f"{r.origin}: field '{key}' = {str(not fixed).lower()} contradicts the "
            f"'{r.family}' layout ({layout}), and counting without it would describe a "
            "different model; is the model_type right?")


#: The dtypes a config may name for a recurrent state kept at inference, by the format name
#: whose bits they take (catalog/data/formats.toml).
STATE_DTYPES: Mapping[str, str] = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}


def _ssm_bits(r: _Reader, key: str) -> int | None:
    """Bits of the recurrent state the config's ``key`` names (``mamba_ssm_dtype``,
    ``mamba_ssm_cache_dtype``), None where it names none; another value is refused naming
    the key."""
    from .formats import bits_per_weight

    v = r.raw(key)
    if v is None:
        return None
    if not isinstance(v, str) or v not in STATE_DTYPES:
        raise ConfigError(f"{r.origin}: field '{key}' must be one of "
                          f"{', '.join(STATE_DTYPES)}, got {v!r:.40}")
    return int(bits_per_weight(STATE_DTYPES[v]))


def _qwen2(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, qkv_bias=True, o_bias=False, window_rule="qwen2")


def _mimo(r: _Reader) -> dict[str, Any]:
    # MiMo-7B (XiaomiMiMo's remote code, modeling_mimo.py; search index file ids 25354746383,
    # 34248343018): MiMoConfig is Qwen2Config with num_nextn_predict_layers, MiMoModel is
    # Qwen2Model with `mtp_layers`, each token_layernorm, hidden_layernorm (d), input_proj
    # (2d x d), a Qwen2 block (input_layernorm, Qwen2Attention with q/k/v biases, its
    # post_attention_layernorm, Qwen2MLP) and final_layernorm; embeddings and head are the
    # model's. Reported apart, as DeepSeek-V3's MTP module; transformers defines no `mimo`.
    kw = _qwen2(r)
    first = kw["layers"][0]
    kw["extras"] = _mtp(kw, r.int("num_nextn_predict_layers", 0, kind="layers", minimum=0),
                        [Layers(1, replace(first.attention, window=None), mlp=first.mlp,
                                norms=2)],
                        "MiMo's MTP layers: a Qwen2 block each, embeddings and head shared",
                        own_embeddings=False)
    return kw


def _qwen3(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, qk_norm="head", window_rule="qwen2", head_dim_default=128)


def _qwen3_moe(r: _Reader) -> dict[str, Any]:
    # Qwen3MoeConfig declares no head_dim: the attention uses getattr(config, "head_dim",
    # hidden_size // num_attention_heads)
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    # Qwen3-Coder's files restate what every Qwen3-MoE block has (q/k norms) and that its
    # q/k/v carry no bias; Qwen3MoeConfig defines neither key, so a file saying otherwise
    # describes a model this layout does not build.
    _restated(r, "use_qk_norm", True, "its attention always has q/k norms")
    _restated(r, "qkv_bias", False, "its q/k/v biases follow 'attention_bias'")
    window = _window(r)
    flags = _window_flags(r, n, "qwen2") if window else [False] * n
    e, k = _experts(r, n_key="num_experts")
    step = r.int("decoder_sparse_step", 1, kind="count")
    dense = set(r.int_list("mlp_only_layers", []))
    moe = MLP(r.int("moe_intermediate_size"), n_experts=e, top_k=k)
    dense_mlp = MLP(r.int("intermediate_size"))
    return _decoder(
        r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
        trained_context=r.int("max_position_embeddings", None, kind="context"),
        attention=lambda i: Attention(h, hkv, dh, window=window if flags[i] else None,
                                      qkv_bias=bias, o_bias=bias, qk_norm="head"),
        mlp=lambda i: moe if (i not in dense and e > 0 and (i + 1) % step == 0) else dense_mlp,
        d_model=d)


def _gemma(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, tied=True, qkv_bias=False, o_bias=False)


def _gemma2(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, tied=True, qkv_bias=False, o_bias=False, norms=4,
                       window_rule="alternate")


#: transformers' Gemma3TextConfig defaults (what a text_config that omits them means).
GEMMA3_TEXT_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
    "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
    "head_dim": 256, "max_position_embeddings": 131072, "sliding_window": 4096,
    "sliding_window_pattern": 6, "tie_word_embeddings": True, "attention_bias": False,
}
#: transformers' SiglipVisionConfig defaults as Gemma 3 uses them.
SIGLIP_DEFAULTS: Mapping[str, Any] = {
    "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
    "num_attention_heads": 12, "num_channels": 3, "image_size": 224, "patch_size": 16,
}


def _defaulted(cfg: Mapping[str, Any], defaults: Mapping[str, Any], origin: str,
               family: str) -> _Reader:
    """A reader of ``cfg`` over transformers' ``defaults`` for the keys it leaves out or sets
    to null (what the family's configuration class does)."""
    return _Reader({**defaults, **{k: v for k, v in cfg.items() if v is not None}}, origin,
                   family)


def _gemma3_text(r: _Reader) -> dict[str, Any]:
    # a null sliding_window is not the default window: Gemma3TextConfig keeps None as given, and
    # transformers' create_sliding_window_causal_mask (src/transformers/masking_utils.py at
    # huggingface/transformers@00c4411cbe15d4c56d54d3b56d4d171e9c289dac) raises for it, so such
    # a model's sliding layers do not run; with layer_types naming no sliding layer it is unused
    types = r.cfg.get("layer_types")
    if "sliding_window" in r.cfg and r.cfg["sliding_window"] is None \
            and not (isinstance(types, list) and "sliding_attention" not in types):
        raise ConfigError(f"{r.origin}: field 'sliding_window' is null, but Gemma 3's sliding "
                          "layers need a window (transformers raises for them without one); "
                          "give the window, or layer_types without sliding layers")
    inner = _defaulted(r.cfg, GEMMA3_TEXT_DEFAULTS, r.origin, r.family)
    kw = _llama_like(inner, tied=True, qkv_bias=False, o_bias=False, norms=4,
                     window_rule="pattern", qk_norm="head")
    r.read |= inner.read
    return kw


def _vit_block_params(h: int, inter: int) -> int:
    """One vision-transformer encoder block: q, k, v and output projections with biases (fused
    or not), two LayerNorms with biases, an MLP h -> inter -> h with biases."""
    return 4 * (h * h + h) + 2 * 2 * h + (h * inter + inter) + (inter * h + h)


def _siglip_params(r: _Reader) -> int:
    """Parameters of a SigLIP vision tower without its pooling head (Gemma 3)."""
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    r.int("num_attention_heads", kind="heads")
    c = r.int("num_channels", 3, kind="count")
    p = r.int("patch_size", kind="count")
    image = r.int("image_size", kind="width")
    r.refuse("vision_use_head", "the SigLIP pooling head is not counted")
    patches = (image // p) ** 2
    embeddings = c * p * p * h + h + patches * h
    return embeddings + n * _vit_block_params(h, inter) + 2 * h


def _gemma3(r: _Reader) -> dict[str, Any]:
    text = r.raw("text_config", {})
    vision = r.raw("vision_config", {})
    if not isinstance(text, dict) or not isinstance(vision, dict):
        raise ConfigError(f"{r.origin}: 'text_config' and 'vision_config' must be objects")
    tr = _Reader(text, r.origin + ": text_config", "gemma3_text")
    kw = _gemma3_text(tr)
    tr.check_unread()
    vr = _defaulted(vision, SIGLIP_DEFAULTS, r.origin + ": vision_config", "siglip_vision_model")
    tower = _siglip_params(vr)
    # Gemma3MultiModalProjector: a vision_hidden x text_hidden matrix and an RMSNorm
    projector = vr.int("hidden_size") * kw["d_model"] + vr.int("hidden_size")
    kw["extras"] = (Extra("vision tower and projector", tower + projector, True,
                          "SigLIP encoder and Gemma 3's multimodal projector"),)
    return kw


#: transformers' Gemma4TextConfig defaults (5.24.0, ``configuration_gemma4.py``).
GEMMA4_TEXT_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 262144, "hidden_size": 2304, "intermediate_size": 9216,
    "num_hidden_layers": 30, "num_attention_heads": 8, "num_key_value_heads": 4,
    "head_dim": 256, "global_head_dim": 512, "max_position_embeddings": 131072,
    "sliding_window": 512, "tie_word_embeddings": True, "attention_bias": False,
    "hidden_size_per_layer_input": 256, "vocab_size_per_layer_input": 262144,
    "attention_k_eq_v": False, "num_kv_shared_layers": 0, "enable_moe_block": False,
}
#: transformers' Gemma4VisionConfig defaults.
GEMMA4_VISION_DEFAULTS: Mapping[str, Any] = {
    "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 16,
    "num_attention_heads": 12, "num_key_value_heads": 12, "head_dim": 64, "patch_size": 16,
    "position_embedding_size": 10240,
}


def _gemma4_text(r: _Reader) -> dict[str, Any]:
    # Gemma4TextModel (transformers 5.24.0 modeling_gemma4.py): sliding layers with
    # num_key_value_heads x head_dim, global layers with head_dim = global_head_dim and, when
    # attention_k_eq_v, num_global_key_value_heads and no v_proj (values = the key projection);
    # q_norm, k_norm of the layer's head width (v_norm has no weight); four RMSNorms per layer;
    # a dense GeGLU MLP of intermediate_size and, with enable_moe_block, beside it a mixture of
    # num_experts of moe_intermediate_size (top_k_experts), a router (proj E x d, scale d,
    # per_expert_scale E) and three more RMSNorms. FAMILIES.md section 14.16. Per-layer input
    # embeddings (hidden_size_per_layer_input > 0; E2B, E4B): a table of
    # vocab_size_per_layer_input x (layers x width), a projection d -> layers x width and its
    # norm, and per layer a gate, a projection back and a norm (Model.d_ple). The last
    # num_kv_shared_layers layers read the cache of the last earlier layer of their kind: no
    # k/v projections, no k norm (kv_shared); with use_double_wide_mlp their MLP is twice as
    # wide. FAMILIES.md section 14.20.
    given_ple_vocab = r.cfg.get("vocab_size_per_layer_input", ...)
    g = _defaulted(r.cfg, GEMMA4_TEXT_DEFAULTS, r.origin, r.family)
    d = g.int("hidden_size")
    n = g.int("num_hidden_layers", kind="layers")
    h, hkv, dh = g.heads(d)
    d_ple = g.int("hidden_size_per_layer_input", 0, minimum=0)
    if "hidden_size_per_layer_input" in r.cfg and r.cfg["hidden_size_per_layer_input"] is None:
        # an explicit null builds no per-layer embeddings (the modeling code tests the width's
        # truth, `if config.hidden_size_per_layer_input:`), not the class default's 256
        d_ple = 0
    n_vocab_ple = 0
    if d_ple:
        if given_ple_vocab is None or given_ple_vocab == 0:
            raise ConfigError(f"{r.origin}: field 'vocab_size_per_layer_input' is "
                              f"{given_ple_vocab} while 'hidden_size_per_layer_input' is "
                              f"{d_ple}: per-layer input embeddings need both dimensions")
        n_vocab_ple = g.int("vocab_size_per_layer_input", kind="vocab")
    g.read.add("vocab_size_per_layer_input")
    shared = g.int("num_kv_shared_layers", 0, kind="layers", minimum=0)
    if shared >= n:
        raise ConfigError(f"{r.origin}: field 'num_kv_shared_layers' ({shared}) must be less "
                          f"than 'num_hidden_layers' ({n}): some layer must own a cache")
    double_mlp = g.flag("use_double_wide_mlp", False)  # key/value-sharing layers only
    g.refuse("per_layer_config", "an explicit per-layer geometry is not read")
    if g.raw("use_bidirectional_attention") == "all":
        raise ConfigError(f"{r.origin}: field 'use_bidirectional_attention' = 'all' makes the "
                          "model an encoder (no causal cache), which is not modelled")
    types = g.str_list("layer_types", n, ("sliding_attention", "full_attention")) or [
        "sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(n)]
    types[-1] = "full_attention"  # Gemma4TextConfig forces the last layer global
    first_shared = n - shared
    if set(types[:first_shared]) != set(types):
        raise ConfigError(f"{r.origin}: field 'num_kv_shared_layers' ({shared}) leaves no "
                          "earlier layer of kind "
                          f"{sorted(set(types) - set(types[:first_shared]))} to read from")
    window = _window(g)
    tied_kv = g.flag("attention_k_eq_v", False)
    g_heads = (g.int("num_global_key_value_heads", hkv, kind="heads") if tied_kv else hkv)
    g.read.add("num_global_key_value_heads")
    if h % g_heads:
        raise ConfigError(f"{r.origin}: field 'num_global_key_value_heads' ({g_heads}) does not "
                          f"divide 'num_attention_heads' ({h})")
    bias = g.flag("attention_bias", False)
    sliding = Attention(h, hkv, dh, window=window, qkv_bias=bias, o_bias=bias, qk_norm="head")
    # the attention layer takes `config.global_head_dim if not sliding and
    # config.global_head_dim else config.head_dim`: an explicit null (or 0) is head_dim, not the
    # class default's 512
    g_dh = dh if "global_head_dim" in r.cfg and not r.cfg["global_head_dim"] else \
        g.int("global_head_dim")
    g.read.add("global_head_dim")
    full = Attention(h, g_heads, g_dh, qkv_bias=bias, o_bias=bias, qk_norm="head",
                     kv_tied=tied_kv)
    if shared and tied_kv:
        raise ConfigError(f"{r.origin}: field 'num_kv_shared_layers' ({shared}) together with "
                          "'attention_k_eq_v' is not modelled")
    ff = g.int("intermediate_size")
    mlp, norms = MLP(ff), 4
    if g.flag("enable_moe_block", False):
        if shared and double_mlp:
            raise ConfigError(f"{r.origin}: field 'use_double_wide_mlp' with "
                              "'enable_moe_block' is not modelled")
        e, k = _experts(g, n_key="num_experts", k_key="top_k_experts")
        # the dense MLP runs beside the experts on every token: one shared expert of width ff;
        # per_expert_scale is the router's vector of E; router.scale (d) weights the router's
        # RMSNorm and counts with the three extra norms
        mlp = MLP(g.int("moe_intermediate_size"), n_experts=e, top_k=k, n_shared=1, d_shared=ff,
                  router_bias=True)
        norms = 4 + 3 + 1
    else:
        g.read.update({"num_experts", "top_k_experts", "moe_intermediate_size"})
    g.refuse("expert_intermediate_size", "Gemma 4's expert width is 'moe_intermediate_size'")
    wide = MLP(2 * ff) if double_mlp and not mlp.n_experts > 1 else mlp

    def attention(i: int) -> Attention:
        a = sliding if types[i] == "sliding_attention" else full
        return replace(a, kv_shared=True) if i >= first_shared else a

    # the checkpoints of E2B and E4B still store the KV-sharing layers' k and v projections
    # and k norm, which no layer uses (transformers 5.24.0 builds none of them): reported apart
    unused = sum(2 * a.n_kv_heads * a.d_head * d + a.d_head
                 for a in map(attention, range(first_shared, n)))
    extras = (Extra("unused k, v and k-norm weights of the KV-sharing layers", unused, True,
                    "stored in the checkpoint; no decode step reads them"),) if unused else ()
    kw = _decoder(g, n_layers=n, norms=norms, tied=g.flag("tie_word_embeddings", True),
                  trained_context=g.int("max_position_embeddings", None, kind="context"),
                  attention=attention, mlp=lambda i: wide if i >= first_shared else mlp,
                  d_model=d, extras=extras)
    kw.update(d_ple=d_ple, n_vocab_ple=n_vocab_ple)
    r.read |= g.read
    return kw


def _gemma4_vision_params(r: _Reader, d_text: int) -> int:
    """Parameters of Gemma 4's vision encoder (Gemma4VisionModel) and its projection into the
    language model (Gemma4MultimodalEmbedder): a patch projection 3 p^2 -> h and two learned
    position tables (x and y) of position_embedding_size x h; per layer q, o of H d_head, k, v
    of H_kv d_head (no biases), q/k norms of d_head, a GeGLU MLP h -> inter -> h and four
    RMSNorms of h; the pooler has no parameters (the standardization's bias and scale are
    buffers); the embedder one h x d_text matrix (its norm has no weight)."""
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    heads, kv, dh = r.heads(h)
    r.read.add("global_head_dim")  # vision layers are all alike: head_dim applies
    r.refuse("attention_bias", "biases in Gemma 4's vision attention are not counted")
    p = r.int("patch_size", kind="count")
    positions = r.int("position_embedding_size", kind="context")
    r.read.update({"standardize", "use_clipped_linears", "pooling_kernel_size"})  # buffers only
    layer = (2 * heads + 2 * kv) * dh * h + 2 * dh + 3 * h * inter + 4 * h
    tower = 3 * p * p * h + 2 * positions * h + n * layer
    return tower + h * d_text


#: transformers' Gemma4AudioConfig defaults (5.24.0).
GEMMA4_AUDIO_DEFAULTS: Mapping[str, Any] = {
    "hidden_size": 1024, "num_hidden_layers": 12, "num_attention_heads": 8,
    "subsampling_conv_channels": [128, 32], "conv_kernel_size": 5, "output_proj_dims": 1536,
}


def _head_width(r: _Reader, h: int, heads: int, key: str = "num_attention_heads") -> int:
    """The width of one of a tower's ``heads`` attention heads (the field ``key``) over its
    ``hidden_size`` h [-]; an error naming the field when they do not divide."""
    if h % heads:
        raise ConfigError(f"{r.origin}: field '{key}' ({heads}) does not divide "
                          f"'hidden_size' ({h})")
    return h // heads


def _gemma4_audio_params(r: _Reader, d_text: int) -> int:
    """Parameters of Gemma 4's audio encoder (Gemma4AudioModel, a Conformer) and its projection
    into the language model: two 3 x 3 convolutions (1 -> c0 -> c1 channels, each with a norm
    of its channels) and a projection (c0/4) c1 -> h; per layer two macaron feed-forward
    blocks (h -> 4h -> h, two norms each), attention (q, k, v, output and a relative-position
    key projection, h x h each, and a per-dimension scale of h/heads), a light convolution (h ->
    2h gated, a depthwise kernel of k per channel, h -> h, two norms) and three norms; an
    output projection h -> o with bias; the embedder one o x d_text matrix (its norm has no
    weight). The clipped linears' bounds are buffers. FAMILIES.md section 14.20."""
    h = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    heads = r.int("num_attention_heads", kind="heads")
    head = _head_width(r, h, heads)
    c0, c1 = r.int_list("subsampling_conv_channels", [128, 32], n=2)
    k = r.int("conv_kernel_size", kind="count")
    o = r.int("output_proj_dims")
    r.read.update({"use_clipped_linears", "attention_chunk_size", "attention_context_left",
                   "attention_context_right", "gradient_clipping", "residual_weight"})
    subsample = 9 * c0 + c0 + 9 * c0 * c1 + c1 + (c0 // 4) * c1 * h
    layer = 24 * h * h + 9 * h + k * h + head
    return subsample + n * layer + o * h + o + o * d_text


def _gemma4_tower(r: _Reader, key: str, defaults: Mapping[str, Any]) -> _Reader | None:
    tower = r.raw(key, None)
    if tower is None:
        return None
    if not isinstance(tower, dict):
        raise ConfigError(f"{r.origin}: field '{key}' must be an object")
    return _defaulted(tower, defaults, f"{r.origin}: {key}", f"gemma4_{key[:-7]}")


def _gemma4(r: _Reader) -> dict[str, Any]:
    # Gemma4ForConditionalGeneration: the language model in text_config, a vision tower in
    # vision_config, an audio tower in audio_config (E2B, E4B), each with its projection into
    # the text width
    kw = _wrapped_text(r, "gemma4_text")
    towers = []
    vr = _gemma4_tower(r, "vision_config", GEMMA4_VISION_DEFAULTS)
    if vr is not None:
        towers.append(Extra("vision tower and projector",
                            _gemma4_vision_params(vr, kw["d_model"]), True,
                            "Gemma 4's vision encoder and its projection into the text width"))
    ar = _gemma4_tower(r, "audio_config", GEMMA4_AUDIO_DEFAULTS)
    if ar is not None:
        towers.append(Extra("audio tower and projector", _gemma4_audio_params(ar, kw["d_model"]),
                            True, "Gemma 4's audio encoder (a Conformer) and its projection "
                            "into the text width"))
    kw["extras"] = tuple(towers) + tuple(kw.get("extras", ()))
    return kw


#: transformers' Gemma3nTextConfig defaults (5.24.0, ``configuration_gemma3n.py``; the class
#: documents them as google/gemma-3n-E4B's).
GEMMA3N_TEXT_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 262400, "hidden_size": 2048, "intermediate_size": 16384,
    "num_hidden_layers": 35, "num_attention_heads": 8, "num_key_value_heads": 2,
    "head_dim": 256, "max_position_embeddings": 32768, "sliding_window": 512,
    "tie_word_embeddings": True, "attention_bias": False, "hidden_size_per_layer_input": 256,
    "vocab_size_per_layer_input": 262144, "altup_num_inputs": 4, "altup_active_idx": 0,
    "num_kv_shared_layers": 15, "laurel_rank": 64,
}


def altup_laurel_params(*, n_layers: int, d_model: int, n_inputs: int, rank: int) -> int:
    """Parameters of Gemma 3n's AltUp and LAuReL (transformers' Gemma3nTextAltUp,
    Gemma3nTextLaurelBlock, Gemma3nTextModel): per block, LAuReL's low-rank residual d x r
    and r x d with a norm of d, and AltUp's router d x n, its prediction (n x n^2) and
    correction (n x n) coefficients, its router norm and output scale (d each); once, the
    n - 1 projections of the hidden state into the extra streams and the n - 1 back (d x d
    each) [-].

    >>> altup_laurel_params(n_layers=30, d_model=2048, n_inputs=4, rank=64)
    33462624
    """
    per_block = 2 * d_model * rank + d_model + d_model * n_inputs + n_inputs ** 3 \
        + n_inputs ** 2 + 2 * d_model
    return n_layers * per_block + 2 * (n_inputs - 1) * d_model * d_model


def altup_laurel_matmul_params(*, n_layers: int, d_model: int, n_inputs: int,
                               rank: int) -> int:
    """The weights of :func:`altup_laurel_params` in matrix products for one token (every
    linear layer: LAuReL's two, AltUp's router and coefficient matrices, the 2 (n - 1)
    stream projections); the norms and scales are not [-]. The mixing of the n streams by
    the predicted coefficients (about 2 n^2 d per block) multiplies activations, not
    weights, and is not counted, as no elementwise work is.

    >>> altup_laurel_matmul_params(n_layers=30, d_model=2048, n_inputs=4, rank=64)
    33278304
    """
    per_block = 2 * d_model * rank + d_model * n_inputs + n_inputs ** 3 + n_inputs ** 2
    return n_layers * per_block + 2 * (n_inputs - 1) * d_model * d_model


def _gemma3n_text(r: _Reader) -> dict[str, Any]:
    # Gemma3nTextModel (huggingface/transformers, src/transformers/models/gemma3n/
    # modeling_gemma3n.py; FAMILIES.md section 14.25): Gemma 3's attention (q/k norms of the
    # head width, v_norm without weight, four RMSNorms per block; sliding and full layers by
    # layer_types) with one intermediate_size per layer; the last num_kv_shared_layers reuse
    # the cache of the last earlier layer of their kind (no k/v projections, no k norm);
    # per-layer input embeddings as Gemma 4 E2B's; AltUp (altup_num_inputs streams) and LAuReL
    # (laurel_rank) counted apart as an extra every token reads. activation_sparsity_pattern
    # (a statistical top-k on the gate activations of the first layers) changes no count,
    # and the products stay dense in the engines cited (FAMILIES.md 14.25): FLOPs unchanged.
    g = _defaulted(r.cfg, GEMMA3N_TEXT_DEFAULTS, r.origin, r.family)
    d = g.int("hidden_size")
    n = g.int("num_hidden_layers", kind="layers")
    h, hkv, dh = g.heads(d)
    ff = g.raw("intermediate_size")
    if isinstance(ff, list):
        widths = g.int_list("intermediate_size", [], n=n)
        if any(w < 1 for w in widths):
            raise ConfigError(f"{r.origin}: field 'intermediate_size' must hold positive widths")
    else:
        widths = [g.int("intermediate_size")] * n
    d_ple = g.int("hidden_size_per_layer_input")
    n_vocab_ple = g.int("vocab_size_per_layer_input", kind="vocab")
    shared = g.int("num_kv_shared_layers", kind="layers", minimum=0)
    if shared >= n:
        raise ConfigError(f"{r.origin}: field 'num_kv_shared_layers' ({shared}) must be less "
                          f"than 'num_hidden_layers' ({n}): some layer must own a cache")
    types = g.str_list("layer_types", n, ("sliding_attention", "full_attention")) or [
        "full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(n)]
    first_shared = n - shared
    if shared and set(types[:first_shared]) != set(types):
        raise ConfigError(f"{r.origin}: field 'num_kv_shared_layers' ({shared}) leaves no "
                          "earlier layer of kind "
                          f"{sorted(set(types) - set(types[:first_shared]))} to read from")
    streams = g.int("altup_num_inputs", kind="count")
    active = g.int("altup_active_idx", kind="count", minimum=0)
    if active >= streams:
        raise ConfigError(f"{r.origin}: field 'altup_active_idx' ({active}) must be less than "
                          f"'altup_num_inputs' ({streams})")
    rank = g.int("laurel_rank")
    sparsity = g.raw("activation_sparsity_pattern")
    if sparsity is not None and not (isinstance(sparsity, list) and len(sparsity) == n and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x < 1
            for x in sparsity)):
        raise ConfigError(f"{r.origin}: field 'activation_sparsity_pattern' must hold one "
                          f"fraction in [0, 1) per layer ({n})")
    # scalars of the forward pass (clipping, a scale switch): no parameter
    g.read.update({"altup_coef_clip", "altup_correct_scale", "altup_lr_multiplier"})
    window = _window(g)
    bias = g.flag("attention_bias", False)
    sliding = Attention(h, hkv, dh, window=window, qkv_bias=bias, o_bias=bias, qk_norm="head")
    full = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head")

    def attention(i: int) -> Attention:
        a = sliding if types[i] == "sliding_attention" else full
        return replace(a, kv_shared=True) if i >= first_shared else a

    mlps = {w: MLP(w) for w in set(widths)}
    # the released checkpoints store the KV-sharing layers' k, v and k norm, which the first
    # transformers releases built in every layer (modeling_gemma3n.py at huggingface/
    # transformers@b87ecf8c180bf5c0d28b9f94e039c001d9f07701) and 5.24.0 builds in none of
    # them (it lists them in _keys_to_ignore_on_load_unexpected): reported apart, as for
    # Gemma 4 E2B
    unused = sum(2 * a.n_kv_heads * a.d_head * d + a.d_head
                 for a in map(attention, range(first_shared, n)))
    stored = (Extra("unused k, v and k-norm weights of the KV-sharing layers", unused, True,
                    "stored in the checkpoint; no decode step reads them"),) if unused else ()
    extra = Extra("AltUp and LAuReL",
                  altup_laurel_params(n_layers=n, d_model=d, n_inputs=streams, rank=rank), True,
                  "AltUp's router, coefficients and stream projections and LAuReL's low-rank "
                  "residual: every token reads and multiplies them", read=True,
                  matmul=altup_laurel_matmul_params(n_layers=n, d_model=d, n_inputs=streams,
                                                    rank=rank))
    kw = _decoder(g, n_layers=n, norms=4, tied=g.flag("tie_word_embeddings", True),
                  trained_context=g.int("max_position_embeddings", None, kind="context"),
                  attention=attention, mlp=lambda i: mlps[widths[i]], d_model=d,
                  extras=(extra,) + stored)
    # every block carries its LAuReL residual (its parameters in the extra above): vLLM's
    # Gemma3nLaurelBlock splits linear_right by rows, one more all-reduce a block
    kw.update(d_ple=d_ple, n_vocab_ple=n_vocab_ple,
              layers=tuple(replace(run, laurel=rank) for run in kw["layers"]))
    r.read |= g.read
    return kw


#: Parameter counts of the timm vision networks a Gemma 3n file may name in
#: vision_config.architecture (built with num_classes=0, as transformers' TimmWrapperModel
#: builds it), with the width of their output features. MobileNet v5 300M encoder:
#: huggingface/pytorch-image-models@aa4b5850c1543fa488abf260f18390eda46cf85d
#: timm/models/mobilenetv5.py (_gen_mobilenet_v5's arch_def, the same count at
#: @6c5e3ce3d040ce3debe4d655f8f781bb99cd6e61, the commit that loads Gemma 3n's weights):
#: 294,126,912 parameters and no persistent buffer (meta device; summed by hand block by block
#: in tests/test_gemma3n.py; FAMILIES.md section 14.25).
TIMM_VISION_TOWERS: Mapping[str, tuple[int, int]] = {
    "mobilenetv5_300m_enc": (294_126_912, 2048),
}

#: transformers' Gemma3nAudioConfig defaults (5.24.0, ``configuration_gemma3n.py``).
GEMMA3N_AUDIO_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 128, "input_feat_size": 128, "hidden_size": 1536,
    "conf_num_attention_heads": 8, "conf_num_hidden_layers": 12, "conf_conv_kernel_size": 5,
    "sscp_conv_channel_size": [128, 32], "sscp_conv_kernel_size": [[3, 3], [3, 3]],
    "sscp_conv_stride_size": [[2, 2], [2, 2]],
}
#: transformers' Gemma3nVisionConfig defaults (5.24.0).
GEMMA3N_VISION_DEFAULTS: Mapping[str, Any] = {
    "architecture": "mobilenetv5_300m_enc", "hidden_size": 2048, "vocab_size": 128,
}


def gemma3n_embedder_params(*, d_tower: int, n_vocab: int, d_text: int) -> int:
    """Parameters of Gemma 3n's multimodal embedder (transformers' Gemma3nMultimodalEmbedder):
    a table of the modality's n_vocab hard tokens of width d_tower, two RMSNorms of d_tower
    (hard and soft tokens), a projection d_tower -> d_text; the norm after the projection has
    no weight [-].

    >>> gemma3n_embedder_params(d_tower=1536, n_vocab=128, d_text=2048)
    3345408
    """
    return n_vocab * d_tower + 2 * d_tower + d_tower * d_text


def _pairs(r: _Reader, key: str, n: int) -> list[tuple[int, int]]:
    v = r.raw(key)
    if not (isinstance(v, list) and len(v) == n and all(
            isinstance(p, list) and len(p) == 2 and all(
                isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in p)
            for p in v)):
        raise ConfigError(f"{r.origin}: field '{key}' must hold {n} pairs of positive integers")
    return [(p[0], p[1]) for p in v]


def _gemma3n_audio_params(r: _Reader) -> int:
    """Parameters of Gemma 3n's audio encoder (transformers' Gemma3nAudioEncoder, a USM
    Conformer): two convolutions (1 -> c0 -> c1 channels, kernels kh x kw, no bias, each
    with a norm of its channels) over the input_feat_size mel bins, padded by one bin on each
    side; a projection of the c1 channels x remaining bins -> h; per layer two macaron
    feed-forward blocks (h -> 4h -> h, two norms each), attention (q, k, v, the relative
    position projection and the output, h x h each, a per-dimension scale of h / heads, two
    norms), a light convolution (h -> 2h gated, a depthwise kernel of k per channel, h -> h,
    two norms) and a final norm. FAMILIES.md section 14.25."""
    h = r.int("hidden_size")
    n = r.int("conf_num_hidden_layers", kind="layers")
    head = _head_width(r, h, r.int("conf_num_attention_heads", kind="heads"),
                       "conf_num_attention_heads")
    k = r.int("conf_conv_kernel_size", kind="count")
    channels = r.int_list("sscp_conv_channel_size", [128, 32], n=2)
    if any(c < 1 for c in channels):
        raise ConfigError(f"{r.origin}: field 'sscp_conv_channel_size' must hold positive "
                          "channel counts")
    kernels = _pairs(r, "sscp_conv_kernel_size", 2)
    strides = _pairs(r, "sscp_conv_stride_size", 2)
    bins = r.int("input_feat_size", kind="count")
    subsample, c_in = 0, 1
    for c, (kh, kw), (_, sw) in zip(channels, kernels, strides):
        subsample += c_in * c * kh * kw + c
        bins = (bins + 2 - kw) // sw + 1
        if bins < 1:
            raise ConfigError(f"{r.origin}: field 'input_feat_size' leaves no frequency bin "
                              "after the subsampling convolutions")
        c_in = c
    subsample += c_in * bins * h
    # scalars of the forward pass (chunking, clipping, caps, the residual weight): no parameter
    r.read.update({"conf_attention_chunk_size", "conf_attention_context_left",
                   "conf_attention_context_right", "conf_attention_logit_cap",
                   "conf_reduction_factor", "conf_residual_weight", "gradient_clipping",
                   "sscp_conv_group_norm_eps"})
    layer = 24 * h * h + 9 * h + k * h + head
    return subsample + n * layer


def _gemma3n_tower(r: _Reader, key: str, defaults: Mapping[str, Any]) -> _Reader:
    tower = r.raw(key, {})
    if not isinstance(tower, dict):
        raise ConfigError(f"{r.origin}: field '{key}' must be an object")
    return _defaulted(tower, defaults, f"{r.origin}: {key}", f"gemma3n_{key[:-7]}")


def _gemma3n(r: _Reader) -> dict[str, Any]:
    # Gemma3nForConditionalGeneration (transformers 5.24.0 modeling_gemma3n.py, Gemma3nModel):
    # the language model in text_config (gemma3n_text), an audio encoder in audio_config, a
    # timm vision network named by vision_config.architecture (TimmWrapperModel, built with
    # num_classes=0 and vision_config.model_args), and one multimodal embedder per tower into
    # the text width (embed_audio, embed_vision). The timm network's shapes are in timm's code,
    # not in the file: its count is looked up by name (TIMM_VISION_TOWERS), and a name the
    # library does not hold is refused. FAMILIES.md section 14.25.
    kw = _wrapped_text(r, "gemma3n_text")
    d = kw["d_model"]
    vr = _gemma3n_tower(r, "vision_config", GEMMA3N_VISION_DEFAULTS)
    arch = vr.raw("architecture")
    if arch not in TIMM_VISION_TOWERS:
        raise ConfigError(f"{r.origin}: field 'vision_config.architecture' = {arch!r:.40} names "
                          "a timm vision network whose parameter count the library does not "
                          f"hold (it knows {sorted(TIMM_VISION_TOWERS)}), so the total is not "
                          "counted; read the language model alone: the object in "
                          "'text_config' (model_type 'gemma3n_text')")
    vr.refuse("model_args", "arguments passed to timm.create_model change the network")
    tower, width = TIMM_VISION_TOWERS[arch]
    hv = vr.int("hidden_size")
    if hv != width:
        raise ConfigError(f"{r.origin}: field 'vision_config.hidden_size' ({hv}) must be the "
                          f"width of {arch}'s features ({width})")
    # the classifier's labels and the pooling switch build nothing: TimmWrapperModel drops the
    # head (num_classes=0) and pools in forward only
    vr.read.update({"do_pooling", "num_classes", "label_names", "vocab_offset"})
    vision = tower + gemma3n_embedder_params(d_tower=hv, n_vocab=vr.int("vocab_size",
                                                                         kind="vocab"),
                                             d_text=d)
    ar = _gemma3n_tower(r, "audio_config", GEMMA3N_AUDIO_DEFAULTS)
    ar.read.add("vocab_offset")
    audio = _gemma3n_audio_params(ar) + gemma3n_embedder_params(
        d_tower=ar.int("hidden_size"), n_vocab=ar.int("vocab_size", kind="vocab"), d_text=d)
    vr.check_unread()
    ar.check_unread()
    kw["extras"] = (Extra("vision tower and embedder", vision, True,
                          f"timm's {arch} (MobileNet v5) and Gemma 3n's vision embedder into "
                          "the text width"),
                    Extra("audio tower and embedder", audio, True,
                          "Gemma 3n's audio encoder (a USM Conformer) and its embedder into "
                          "the text width")) + tuple(kw.get("extras", ()))
    return kw


def _vision_reader(r: _Reader, family: str) -> _Reader:
    """A reader of the file's required ``vision_config`` object."""
    vision = r.raw("vision_config", None)
    if not isinstance(vision, dict):
        raise ConfigError(f"{r.origin}: field 'vision_config' must be an object")
    return _Reader(vision, r.origin + ": vision_config", family)


def _pixtral_params(r: _Reader, d_text: int, merge: int, features: int, bias: bool) -> int:
    """Parameters of Pixtral's vision encoder (PixtralVisionModel) and Mistral 3's projector
    (Mistral3MultiModalProjector). The encoder: a patch convolution c p^2 -> h without bias, an
    RMSNorm before the blocks, per block q, k, v, o of h x h and a SwiGLU MLP h -> inter -> h,
    all without biases, and two RMSNorms; positions are rotary (no table). The projector: an
    RMSNorm over h, a patch merger (h m^2 -> h, no bias), then features h -> d_text and
    d_text -> d_text, with biases when ``multimodal_projector_bias``. Every size must be in
    the file (the class's defaults are Pixtral 12B's, not Mistral Small's)."""
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    heads = r.int("num_attention_heads", kind="heads")
    head = _head_width(r, h, heads)
    dh = r.int("head_dim", head)
    if dh != head:
        raise ConfigError(f"{r.origin}: field 'head_dim' = {dh} is not supported: Pixtral's "
                          f"heads are hidden_size / num_attention_heads = {head} wide")
    c = r.int("num_channels", 3, kind="count")
    p = r.int("patch_size", kind="count")
    tower = c * p * p * h + h + n * (4 * h * h + 3 * h * inter + 2 * h)
    projector = (h + merge * merge * h * h + features * h * d_text + d_text * d_text
                 + (2 * d_text if bias else 0))
    return tower + projector


def _mistral3(r: _Reader) -> dict[str, Any]:
    # Mistral3ForConditionalGeneration (Mistral Small 3.1/3.2): a Mistral language model in
    # text_config, a Pixtral encoder in vision_config, a patch-merging projector between them
    kw = _wrapped_text(r, "mistral")
    vr = _vision_reader(r, "pixtral")
    # Mistral3MultiModalProjector: linear_1 takes hidden_size x (1 for one layer index, else
    # the number of indices listed); anything else is not a layer choice
    layer = r.raw("vision_feature_layer", -1)
    indices = layer if isinstance(layer, list) else [layer]
    if not indices or not all(isinstance(x, int) and not isinstance(x, bool) for x in indices):
        raise ConfigError(f"{r.origin}: field 'vision_feature_layer' must be a layer index or "
                          f"a non-empty list of them, got {layer!r:.60}")
    tower = _pixtral_params(vr, kw["d_model"], r.int("spatial_merge_size", 2, kind="count"),
                            len(indices), r.flag("multimodal_projector_bias", False))
    kw["extras"] = (Extra("vision tower and projector", tower, True,
                          "Pixtral's vision encoder and Mistral 3's patch-merging projector"),)
    return kw


def _phi3(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, qkv_bias=False, o_bias=False, window_rule="all")


def _olmo2(r: _Reader) -> dict[str, Any]:
    # Olmo2: q_norm over H d_head, k_norm over H_kv d_head; post-attention and post-feedforward
    # norms, no pre-norms: 2 per block.
    return _llama_like(r, qk_norm="full", norms=2)


def _olmo3(r: _Reader) -> dict[str, Any]:
    # Olmo3 (transformers 5.24.0 modeling_olmo3.py): OLMo 2's block (q_norm over H head_dim,
    # k_norm over H_kv head_dim, post-attention and post-feedforward norms, no pre-norms,
    # biases on q/k/v/o when attention_bias) with windows: layer_types, else
    # Olmo3Config's rule, three sliding layers then one full (i + 1) % 4 != 0; sliding_window
    # 4096 by default. A null window with sliding layers is refused (no window to keep).
    _sliding_types(r, r.int("num_hidden_layers", kind="layers"), "OLMo 3")
    return _llama_like(r, qk_norm="full", norms=2, window_rule="olmo3", window_default=4096)


def _sliding_types(r: _Reader, n: int, name: str) -> list[str] | None:
    """``layer_types`` (sliding or full, one per layer), or None; a null ``sliding_window``
    where some layer slides (or the family's rule would make one slide) is refused: the
    family's sliding layers need a window."""
    types = r.str_list("layer_types", n, ("sliding_attention", "full_attention"))
    if "sliding_window" in r.cfg and r.cfg["sliding_window"] is None and (
            types is None or "sliding_attention" in types):
        raise ConfigError(f"{r.origin}: field 'sliding_window' is null, but {name}'s sliding "
                          "layers need a window; give the window, or layer_types without "
                          "sliding layers")
    return types


def _olmoe(r: _Reader) -> dict[str, Any]:
    # OlmoeModel (transformers 5.24.0 modeling_olmoe.py): q/k/v/o (biases if attention_bias);
    # q_norm RMSNorm(d) and k_norm RMSNorm(d/H x H_kv) over the whole projections (OLMo 2's
    # "full" q/k norm); pre-norm blocks (input_layernorm, post_attention_layernorm); every block
    # a mixture of num_experts experts of intermediate_size (gate_up, down, no biases), a router
    # d x E without bias, no shared expert; untied head. clip_qkv clamps, norm_topk_prob
    # rescales: no parameters.
    r.raw("clip_qkv")
    r.read.add("norm_topk_prob")
    kw = _llama_like(r, qkv_bias=None, qk_norm="full")
    h = r.int("num_attention_heads", kind="heads")
    if r.has("head_dim") and r.int("head_dim") * h != kw["d_model"]:
        raise ConfigError(f"{r.origin}: field 'head_dim' ({r.int('head_dim')}) x "
                          f"'num_attention_heads' ({h}) differs from 'hidden_size': OLMoE's "
                          "q/k norms are as wide as hidden_size, which the library does not count")
    e, k = _experts(r, n_key="num_experts")
    return _with_mlp(kw, lambda mlp: MLP(mlp.d_ff, n_experts=e, top_k=k))


def _cohere(r: _Reader) -> dict[str, Any]:
    r.refuse("use_qk_norm", "Cohere's per-head q/k LayerNorms are not counted")
    return _llama_like(r, tied=True, norms=1)


def _cohere2(r: _Reader) -> dict[str, Any]:
    # Cohere2 (Command R7B, Command A; transformers 5.24.0 modeling_cohere2.py): one LayerNorm
    # without bias (a weight of d) feeds attention and the MLP side by side (a parallel block:
    # the same weights, reads and FLOPs as one after the other); q, k, v, o with biases when
    # attention_bias; a gated MLP without biases; a final LayerNorm of d; the head tied by
    # default; logits scaled by logit_scale (no parameter). head_dim is d / H whatever the file
    # says (Cohere2Config.__post_init__ sets it), so a head_dim that differs is refused. Windows:
    # layer_types, else every sliding_window_pattern-th layer (default 4) is global and the
    # others slide over sliding_window (default 4096); the global layers use no positional
    # encoding (NoPE), which changes no count. A null window with sliding layers is refused.
    d = r.int("hidden_size")
    h = r.int("num_attention_heads", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) does not divide "
                          f"'hidden_size' ({d}), which Cohere 2's head width needs")
    if r.has("head_dim") and r.int("head_dim") != d // h:
        raise ConfigError(f"{r.origin}: field 'head_dim' ({r.int('head_dim')}) differs from "
                          f"hidden_size / num_attention_heads ({d // h}): transformers' "
                          "Cohere 2 builds heads of d / H whatever the file says")
    n = r.int("num_hidden_layers", kind="layers")
    types = _sliding_types(r, n, "Cohere 2")
    if types is not None and r.cfg.get("sliding_window_pattern") is not None:
        # both given: transformers reads layer_types and ignores the pattern; they must agree
        p = r.int("sliding_window_pattern", kind="count")
        if [t == "sliding_attention" for t in types] != [(i + 1) % p != 0 for i in range(n)]:
            raise ConfigError(f"{r.origin}: field 'layer_types' disagrees with "
                              f"'sliding_window_pattern' ({p}): give one of them")
    r.refuse("layer_norm_bias", "Cohere 2's LayerNorms have no bias in transformers and vLLM")
    _restated(r, "mlp_bias", False, "its MLP has no biases")
    r.raw("logit_scale")  # scales the logits: no parameter
    return _llama_like(r, tied=True, norms=1, window_rule="cohere2", window_default=4096)


def _phimoe(r: _Reader) -> dict[str, Any]:
    # PhiMoE: q, k, v, o with biases (attention_bias), LayerNorms with bias (2 vectors each,
    # two per block and a final one), experts without biases, an output head with a bias.
    kw = _llama_like(r, norms=4, window_rule="all")
    e, k = _experts(r, n_key="num_local_experts")
    kw["head_bias"] = r.flag("lm_head_bias", False)
    kw["norm_vecs_final"] = 2
    return _with_mlp(kw, lambda mlp: MLP(mlp.d_ff, n_experts=e, top_k=k))


def _phi(r: _Reader) -> dict[str, Any]:
    # PhiModel: q/k/v/dense with biases, fc1/fc2 with biases, one LayerNorm (weight + bias) per
    # block feeding attention and MLP in parallel, final LayerNorm, untied head with a bias.
    r.refuse("qk_layernorm", "Phi's per-head q/k LayerNorms are not counted")
    d = r.int("hidden_size")
    h, hkv, dh = r.heads(d)
    mlp = MLP(r.int("intermediate_size"), n_mats=2, bias=True)
    return _decoder(r, n_layers=r.int("num_hidden_layers", kind="layers"), norms=2,
                    tied=r.flag("tie_word_embeddings", False),
                    trained_context=r.int("max_position_embeddings", None, kind="context"),
                    attention=lambda i: Attention(h, hkv, dh, qkv_bias=True, o_bias=True),
                    mlp=lambda i: mlp, d_model=d, head_bias=True, norm_vecs_final=2)


def _gpt2(r: _Reader, *, multi_query: bool = False) -> dict[str, Any]:
    # GPT2Model: wte, wpe, per block ln_1, ln_2 (weight + bias), c_attn (fused q, k, v with
    # bias), c_proj (bias), c_fc and mlp c_proj (bias), ln_f; the head is tied to wte. With
    # `multi_query` (GPTBigCode), c_attn is d -> d + 2 d_head: one key and one value head.
    d = r.int("n_embd")
    h = r.int("n_head", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'n_head' ({h}) does not divide 'n_embd' ({d})")
    hkv = 1 if multi_query else h
    n_pos = r.int("n_positions", kind="context")
    mlp = MLP(r.int("n_inner", 4 * d), n_mats=2, bias=True)
    return _decoder(r, n_layers=r.int("n_layer", kind="layers"), norms=4,
                    tied=r.flag("tie_word_embeddings", True), trained_context=n_pos,
                    attention=lambda i: Attention(h, hkv, d // h, qkv_bias=True, o_bias=True),
                    mlp=lambda i: mlp, d_model=d, norm_vecs_final=2, n_positions=n_pos)


def _gpt_bigcode(r: _Reader) -> dict[str, Any]:
    # GPTBigCodeModel (transformers 5.24.0 modeling_gpt_bigcode.py, StarCoder): GPT-2's layout
    # (learned positions wpe, LayerNorms with bias, biases on every linear layer, an MLP of
    # n_inner or 4d, the head tied to wte) with multi-query attention when `multi_query`
    # (default true). Cross-attention blocks (add_cross_attention) are not counted.
    r.refuse("add_cross_attention", "GPTBigCode's cross-attention blocks are not counted")
    return _gpt2(r, multi_query=r.flag("multi_query", True))


#: What Apertus's xIELU activation learns per MLP (transformers' activations.XIELU: the
#: parameters alpha_p and alpha_n, one scalar each; beta and eps are buffers, constants).
XIELU_PARAMS = 2
XIELU_EXTRA = "xIELU activation scalars (alpha_p, alpha_n per layer)"


def _apertus(r: _Reader) -> dict[str, Any]:
    # ApertusForCausalLM (transformers 5.24.0 models/apertus/modeling_apertus.py): Llama's
    # attention (q/k/v/o, biases when attention_bias) with a q and a k RMSNorm of head_dim
    # always; an MLP of up_proj d -> ff and down_proj ff -> d, no gate and no biases, whose
    # activation is an XIELU module holding two learned scalars (alpha_p, alpha_n) and two
    # buffers (beta, eps); attention_layernorm and feedforward_layernorm per block, a final
    # norm, the head untied by default. ApertusConfig defines neither post_norm, qk_norm nor
    # mlp_bias: a file restating them (Swiss AI's do) must say what the class builds. The
    # scalars, 2 per layer, are an extra every decoded token reads (no matrix product).
    _restated(r, "qk_norm", True, "its attention always has q/k norms")
    _restated(r, "post_norm", False, "its norms come before attention and the MLP")
    _restated(r, "mlp_bias", False, "its MLP has no biases")
    act = r.raw("hidden_act")
    r.read.add("hidden_act")
    if act not in (None, "xielu"):
        raise ConfigError(f"{r.origin}: field 'hidden_act' = {act!r:.60} is not supported: the "
                          "'apertus' reader models the xIELU activation, with its learned "
                          "scalars, only")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    mlp = MLP(r.int("intermediate_size"), n_mats=2)
    kw = _decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                  trained_context=r.int("max_position_embeddings", 65536, kind="context"),
                  attention=lambda i: Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias,
                                                qk_norm="head"),
                  mlp=lambda i: mlp, d_model=d)
    kw["extras"] = (Extra(XIELU_EXTRA, XIELU_PARAMS * n, True,
                          "Apertus's xIELU: alpha_p and alpha_n in every MLP, read by every "
                          "decoded token", read=True),)
    return kw


def _starcoder2(r: _Reader) -> dict[str, Any]:
    # Starcoder2Model (transformers 5.24.0 modeling_starcoder2.py): q/k/v/o and the plain MLP
    # c_fc d -> ff, c_proj ff -> d (GELU) with biases when `use_bias` (default true); head_dim
    # (else d/H); two LayerNorms (weight + bias) per block and a final one; every layer over
    # the last `sliding_window` tokens when it is set; the head tied by default
    # (Starcoder2Config: tie_word_embeddings true).
    d = r.int("hidden_size")
    h, hkv, dh = r.heads(d)
    bias = r.flag("use_bias", True)
    window = _window(r)
    mlp = MLP(r.int("intermediate_size"), n_mats=2, bias=bias)
    return _decoder(r, n_layers=r.int("num_hidden_layers", kind="layers"), norms=4,
                    tied=r.flag("tie_word_embeddings", True),
                    trained_context=r.int("max_position_embeddings", None, kind="context"),
                    attention=lambda i: Attention(h, hkv, dh, window=window, qkv_bias=bias,
                                                  o_bias=bias),
                    mlp=lambda i: mlp, d_model=d, norm_vecs_final=2)


def _opt(r: _Reader) -> dict[str, Any]:
    # OPTDecoder: embed_tokens, embed_positions with 2 offset rows, per block q/k/v/out_proj
    # with biases, self_attn_layer_norm and final_layer_norm (weight + bias), fc1/fc2 with
    # biases (ReLU), a final LayerNorm; lm_head tied.
    d = r.int("hidden_size")
    if r.int("word_embed_proj_dim", d) != d:
        raise ConfigError(f"{r.origin}: field 'word_embed_proj_dim' differs from hidden_size: "
                          "OPT's embedding projections are not counted")
    if not r.flag("do_layer_norm_before", True):
        raise ConfigError(f"{r.origin}: field 'do_layer_norm_before' = false (OPT-350m's "
                          "layout) is not supported")
    h, hkv, dh = r.heads(d)
    bias = r.flag("enable_bias", True)
    ctx = r.int("max_position_embeddings", kind="context")
    mlp = MLP(r.int("ffn_dim"), n_mats=2, bias=bias)
    return _decoder(r, n_layers=r.int("num_hidden_layers", kind="layers"), norms=4,
                    tied=r.flag("tie_word_embeddings", True), trained_context=ctx,
                    attention=lambda i: Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias),
                    mlp=lambda i: mlp, d_model=d, norm_vecs_final=2, n_positions=ctx + 2)


def _falcon(r: _Reader) -> dict[str, Any]:
    # FalconModel: word_embeddings; per block a fused query_key_value of d x (H + 2 H_kv)
    # d_head and a dense d x d (biases if `bias`), an MLP d -> ffn_hidden_size -> d (plain,
    # biases if `bias`), LayerNorms with bias: ln_attn and ln_mlp (new_decoder_architecture),
    # else input_layernorm, plus post_attention_layernorm when attention and MLP are not
    # parallel; ln_f; lm_head tied to the embeddings.
    r.refuse("alibi", "ALiBi position biases are not counted")
    d = r.int("hidden_size")
    h = r.int("num_attention_heads", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) does not divide "
                          f"'hidden_size' ({d})")
    new = r.flag("new_decoder_architecture", False)
    mq = r.flag("multi_query", True)
    if new:
        hkv = r.int("num_kv_heads", h, kind="heads")
    else:
        r.read.add("num_kv_heads")
        hkv = 1 if mq else h
    if h % hkv:
        raise ConfigError(f"{r.origin}: field 'num_kv_heads' ({hkv}) does not divide "
                          f"'num_attention_heads' ({h})")
    parallel = r.flag("parallel_attn", True)
    if new:
        n_ln = r.int("num_ln_in_parallel_attn", 2, kind="count")
    else:
        r.read.add("num_ln_in_parallel_attn")
        n_ln = 1 if parallel else 2
    bias = r.flag("bias", False)
    mlp = MLP(r.int("ffn_hidden_size", 4 * d), n_mats=2, bias=bias)
    return _decoder(r, n_layers=r.int("num_hidden_layers", kind="layers"), norms=2 * n_ln,
                    tied=r.flag("tie_word_embeddings", True),
                    trained_context=r.int("max_position_embeddings", None, kind="context"),
                    attention=lambda i: Attention(h, hkv, d // h, qkv_bias=bias, o_bias=bias),
                    mlp=lambda i: mlp, d_model=d, norm_vecs_final=2)


def _gpt_neox(r: _Reader) -> dict[str, Any]:
    # GPTNeoXModel (defaults of GPTNeoXConfig: GPT-NeoX-20B's shapes): embed_in; per block
    # input_layernorm and post_attention_layernorm (LayerNorm, weight + bias), a fused
    # query_key_value d x 3d and a dense d x d (biases if `attention_bias`, default true), an MLP
    # dense_h_to_4h / dense_4h_to_h with biases (GELU); final_layer_norm; an untied embed_out
    # without bias. Rotary on `rotary_pct` of each head and the parallel residual
    # (`use_parallel_residual`) own no parameters.
    d = r.int("hidden_size", 6144)
    h = r.int("num_attention_heads", 64, kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) does not divide "
                          f"'hidden_size' ({d})")
    r.flag("use_parallel_residual", True)
    pct = r.raw("rotary_pct", 0.25)
    if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not 0 < pct <= 1:
        raise ConfigError(f"{r.origin}: field 'rotary_pct' must be a fraction in (0, 1], "
                          f"got {pct!r:.60}")
    bias = r.flag("attention_bias", True)
    mlp = MLP(r.int("intermediate_size", 24576), n_mats=2, bias=True)
    return _decoder(r, n_layers=r.int("num_hidden_layers", 44, kind="layers"), norms=4,
                    tied=r.flag("tie_word_embeddings", False),
                    trained_context=r.int("max_position_embeddings", 2048, kind="context"),
                    attention=lambda i: Attention(h, h, d // h, qkv_bias=bias, o_bias=bias),
                    mlp=lambda i: mlp, d_model=d, norm_vecs_final=2,
                    n_vocab=r.int("vocab_size", 50432, kind="vocab"))


# ---- latent attention (DeepSeek) --------------------------------------------------------------
def _deepseek(r: _Reader, *, v3: bool, indexer: bool = False,
              mtp_note: str = "DeepSeek-V3's MTP module (not in the paper's 671B)",
              mtp_tables: bool = True) -> dict[str, Any]:
    # DeepseekV2/V3: MLA (q_a_proj, q_a_layernorm, q_b_proj or q_proj; kv_a_proj_with_mqa,
    # kv_a_layernorm, kv_b_proj; o_proj); the first `first_k_dense_replace` blocks dense
    # (intermediate_size), then an MoE block every `moe_layer_freq` with n_routed_experts of
    # moe_intermediate_size, n_shared_experts shared experts of the same width (one MLP of
    # n_shared x that width), a router d x E; V3 adds e_score_correction_bias (E).
    r.refuse("attention_bias", "biases on latent attention's projections are not counted")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    r.int("num_key_value_heads", h, kind="heads")  # DeepSeek configs set it to H; unused
    attn = Attention(h, h, r.int("qk_nope_head_dim") + r.int("qk_rope_head_dim"),
                     kv_lora_rank=r.int("kv_lora_rank"),
                     q_lora_rank=r.int("q_lora_rank", 0, minimum=0),
                     d_nope=r.int("qk_nope_head_dim"), d_rope=r.int("qk_rope_head_dim"),
                     d_v=r.int("v_head_dim"))
    shared_index = [False] * n
    if indexer:
        index, shared_index = _indexer(r, n)
        attn = replace(attn, **index)
        # GLM-5.2-NVFP4 names every layer's attention "deepseek_sparse_attention", what the
        # indexer's fields already say (vLLM drops the list before transformers validates it:
        # vllm/transformers_utils/configs/glm_moe_dsa.py, index file id 54601010704); another
        # kind is refused naming the field
        r.str_list("layer_types", n, ("deepseek_sparse_attention",))
    # GLM-5.2's layers that reuse an earlier layer's top-k selection: no indexer of their own
    attn_shared = replace(attn, index_shared=True) if any(shared_index) else attn
    # GLM-5.2-NVFP4's file (written by transformers 5.11.0, where zai-org's own GLM-5.2 file,
    # 5.12.0, has no such key) restates the routed experts as num_experts, which engines read
    # as the same count (tokenspeed's GlmMoeDsaConfig: "Some GLM-5 checkpoints ship
    # num_experts for the routed expert count", index file id 59514062319): accepted where it
    # agrees with n_routed_experts, refused naming both where it does not
    aliases = ("n_routed_experts", "num_experts") if r.family == "glm_moe_dsa" \
        else ("n_routed_experts",)
    e = _one_of(r, aliases, None, "experts")
    dense = MLP(r.int("intermediate_size"))
    if e is None:
        mlp_of = lambda i: dense  # noqa: E731
    else:
        k = r.int("num_experts_per_tok", kind="experts")
        if k > e:
            raise ConfigError(f"{r.origin}: field 'num_experts_per_tok' ({k}) exceeds "
                              f"'n_routed_experts' ({e})")
        width = r.int("moe_intermediate_size")
        shared = r.int("n_shared_experts", 0, kind="experts", minimum=0)
        first = r.int("first_k_dense_replace", 0, kind="layers", minimum=0)
        freq = r.int("moe_layer_freq", 1, kind="count")
        r.read.add("topk_method")
        # V3's router keeps an e_score_correction_bias of E entries (stored in the checkpoint)
        moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0,
                  d_shared=width * shared, router_bias=v3)

        def mlp_of(i: int) -> MLP:
            return moe if (i >= first and i % freq == 0) else dense
    # GLM-5's files restate the dense and MoE layers as mlp_layer_types (transformers'
    # GlmMoeDsaConfig takes the list over first_k_dense_replace): it must agree
    kinds = r.str_list("mlp_layer_types", n, ("dense", "sparse"))
    if kinds is not None and kinds != ["dense" if mlp_of(i) is dense else "sparse"
                                       for i in range(n)]:
        raise ConfigError(f"{r.origin}: field 'mlp_layer_types' disagrees with the dense and "
                          "mixture-of-experts layers of 'first_k_dense_replace' and "
                          "'moe_layer_freq'")
    kw = _decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                  trained_context=r.int("max_position_embeddings", None, kind="context"),
                  attention=lambda i: attn_shared if shared_index[i] else attn, mlp=mlp_of,
                  d_model=d)
    if v3:
        kw["extras"] = _mtp_extras(r, kw, Layers(1, attn, mlp=mlp_of(n), norms=2), mtp_note,
                                   own_tables=mtp_tables)
    return kw


def _mtp_extras(r: _Reader, kw: Mapping[str, Any], block: Layers,
                note: str, *, own_tables: bool = True) -> tuple[Extra, ...]:
    """Multi-token prediction layers (``num_nextn_predict_layers``) in DeepSeek-V3's layout,
    which transformers does not build: each module has enorm, hnorm (d each), eh_proj
    (2d x d), one decoder block, shared_head.norm (d), and its checkpoint also stores an
    embedding table and an output head (V x d each) unless ``own_tables`` is false (GLM-5.x:
    the module uses the model's). Reported apart, not in the total."""
    return _mtp(kw, r.int("num_nextn_predict_layers", 0, kind="layers", minimum=0), [block],
                note, own_embeddings=own_tables, names="layers")


def _mtp(kw: Mapping[str, Any], modules: int, blocks: list[Layers], note: str, *,
         own_embeddings: bool, own_head: bool = False, head: int = 0,
         names: str = "") -> tuple[Extra, ...]:
    """``modules`` multi-token-prediction modules, each two input norms of d (the token's
    embedding and the last hidden state), a 2d x d projection of the two (DeepSeek-V4: two
    d x d, e_proj and h_proj), its decoder ``blocks``, a final norm of d, and, when the
    checkpoint stores them per module (DeepSeek-V3), an embedding table and an output head of
    V x d; Qwen3.5's, Nemotron 3's and DeepSeek-V4's share the model's; Step 3.7's store an
    output head of V x d per module and share the embedding (``own_head``); ``head``: the
    parameters of a module's own hyper-connection head (DeepSeek-V4). Reported apart, not in
    the total (transformers builds none); the tables a module stores as its own are recorded
    apart too (``Extra.embeddings``, ``Extra.heads``): vLLM replaces them with the model's.
    ``names``: how the checkpoint names the module's tensors (``Extra.names``)."""
    if not modules:
        return ()
    d = kw["d_model"]
    table = kw["n_vocab"] * d
    embeddings = table if own_embeddings else 0
    heads = table if own_embeddings or own_head else 0
    per = 3 * d + 2 * d * d + sum(b.params(d) for b in blocks) + embeddings + heads + head
    return (Extra(MTP_EXTRA, modules * per, False, note,
                  layers=tuple(blocks) * modules, modules=modules,
                  embeddings=modules * embeddings, heads=modules * heads, names=names),)


def _indexer(r: _Reader, n: int) -> tuple[dict[str, int], list[bool]]:
    """DeepSeek Sparse Attention's indexer (DeepseekV32Indexer: wq_b r_q -> H_I d_I, wk d -> d_I,
    k_norm LayerNorm(d_I), weights_proj d -> H_I; no biases) and its top-k, and per layer
    whether the layer shares an earlier layer's selection instead of running an indexer of its
    own: GLM-5.2's 'shared' layers (``indexer_types``; else 'S' in ``index_topk_pattern``;
    else the schedule of ``index_topk_freq`` and ``index_skip_topk_offset``, as transformers'
    GlmMoeDsaConfig derives it). transformers 5.24.0 builds no indexer on a shared layer
    (GlmMoeDsaAttention: ``self.indexer = None if self.skip_topk``) and passes the previous
    full layer's top-k indices to it; DeepSeek-V3.2's files, which name none of these keys,
    have an indexer on every layer."""
    r.read.update({"indexer_rope_interleave", "index_share_q"})
    types = r.str_list("indexer_types", n, ("full", "shared"))
    key = "indexer_types"
    if types is None and r.raw("index_topk_pattern") is not None:
        key, pattern = "index_topk_pattern", r.raw("index_topk_pattern")
        if not isinstance(pattern, str) or len(pattern) != n or set(pattern) - set("FS"):
            raise ConfigError(f"{r.origin}: field 'index_topk_pattern' must be a string of {n} "
                              "characters 'F' (full) and 'S' (shared)")
        types = ["full" if c == "F" else "shared" for c in pattern]
    if types is None:
        key = "index_topk_freq"
        freq = r.int("index_topk_freq", 1, kind="count")
        offset = r.int("index_skip_topk_offset", 2, kind="layers", minimum=0)
        types = ["full" if max(i - offset + 1, 0) % freq == 0 else "shared" for i in range(n)]
    r.read.update({"index_topk_pattern", "index_topk_freq", "index_skip_topk_offset"})
    if types and types[0] == "shared":
        raise ConfigError(f"{r.origin}: field '{key}' makes the first layer 'shared', which "
                          "has no earlier layer whose top-k selection it could reuse")
    return (dict(index_heads=r.int("index_n_heads", kind="heads"),
                 index_dim=r.int("index_head_dim"),
                 index_topk=r.int("index_topk", kind="context")),
            [t == "shared" for t in types])


def _deepseek_v32(r: _Reader) -> dict[str, Any]:
    # DeepSeek-V3.2 and GLM-5 (glm_moe_dsa): DeepSeek-V3's layout, each MLA block with an indexer.
    # GLM-5.x's MTP module (checkpoint layer num_hidden_layers) is a full block with an indexer
    # of its own (index_share_for_mtp_iteration only reuses its top-k across draft steps) plus
    # enorm, hnorm, eh_proj and shared_head.norm, and stores no embedding table or
    # shared_head.head: it uses the model's (FAMILIES.md section 14.6)
    if r.family == "glm_moe_dsa":
        r.read.add("index_share_for_mtp_iteration")
        return _deepseek(r, v3=True, indexer=True, mtp_tables=False,
                         mtp_note="GLM-5's MTP module (a block with its indexer; the model's "
                                  "embedding and head)")
    return _deepseek(r, v3=True, indexer=True)


def _deepseek_v2(r: _Reader) -> dict[str, Any]:
    return _deepseek(r, v3=False)


def _deepseek_v3(r: _Reader) -> dict[str, Any]:
    return _deepseek(r, v3=True)


# ---- Kimi Linear (Kimi delta attention and MLA) ---------------------------------------------------
#: Keys of ``linear_attn_config`` the kimi_linear reader reads; ``gate_lower_bound`` (a floor on
#: the forget gate's value) changes no count, ``use_full_rank_gate`` (Kimi K3) makes the output
#: gate one d x H d_k matrix.
KDA_KEYS = ("head_dim", "num_heads", "short_conv_kernel_size", "kda_layers", "full_attn_layers",
            "gate_lower_bound", "use_full_rank_gate")


def _kimi_linear_types(r: _Reader, lin: Mapping[str, Any], n: int) -> list[str]:
    """Which blocks are full attention (MLA) and which KDA, as KimiLinearConfig decides: the
    file's ``layer_types``, else ``full_attn_layers`` and ``kda_layers`` (1-indexed, every block
    in exactly one), else every 4th block from the 5th (0-indexed i > 0, i % 4 == 0)."""
    types = r.str_list("layer_types", n, ("linear_attention", "full_attention"))
    if types is not None:
        return types
    full, kda = lin.get("full_attn_layers"), lin.get("kda_layers")
    if full is None or kda is None:
        return ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(n)]
    out: list[str | None] = [None] * n
    for key, lst, kind in (("full_attn_layers", full, "full_attention"),
                           ("kda_layers", kda, "linear_attention")):
        if not isinstance(lst, list) or not all(isinstance(x, int) and not isinstance(x, bool)
                                                for x in lst):
            raise ConfigError(f"{r.origin}: field 'linear_attn_config.{key}' must be a list of "
                              "integers")
        for x in lst:
            if not 1 <= x <= n or out[x - 1] is not None:
                raise ConfigError(f"{r.origin}: field 'linear_attn_config.{key}' names layer {x}, "
                                  f"outside 1..{n} or named twice (the lists are 1-indexed)")
            out[x - 1] = kind
    if None in out:
        raise ConfigError(f"{r.origin}: layer {out.index(None) + 1} is in neither "
                          "'linear_attn_config.full_attn_layers' nor 'kda_layers'")
    return out  # type: ignore[return-value]


def _kimi_linear(r: _Reader) -> dict[str, Any]:
    # KimiLinear (transformers 5.24.0 modeling_kimi_linear.py; FAMILIES.md section 14.19): per
    # block either MLA (KimiLinearAttention = DeepseekV3Attention, no RoPE applied, which
    # changes no count) or a Kimi delta attention mixer (KimiLinearDeltaAttention); the first
    # first_k_dense_replace blocks a dense MLP (intermediate_size), then DeepSeek-V3's MoE
    # (num_experts of moe_intermediate_size, num_shared_experts shared, a router d x E and its
    # e_score_correction_bias); two RMSNorms per block, final norm, untied head.
    r.refuse("attention_bias", "biases on latent attention's projections are not counted")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    r.int("num_key_value_heads", h, kind="heads")  # = H in latent attention; unused
    r.read.update({"head_dim", "mla_use_nope"})  # KimiLinearConfig sets head_dim = d_rope
    lin = r.raw("linear_attn_config", {})
    if not isinstance(lin, dict):
        raise ConfigError(f"{r.origin}: field 'linear_attn_config' must be an object")
    unknown = sorted(set(lin) - set(KDA_KEYS))
    if unknown:
        raise ConfigError(f"{r.origin}: field 'linear_attn_config.{unknown[0]}' is not understood "
                          "by the 'kimi_linear' reader, and counting without it could describe a "
                          "different model")
    lr = _Reader(lin, f"{r.origin}: linear_attn_config", r.family)
    kda = KimiDeltaAttention(kda_heads=lr.int("num_heads", 32, kind="heads"),
                             d_k=lr.int("head_dim", 128),
                             d_conv=lr.int("short_conv_kernel_size", 4, kind="count"),
                             full_gate=lr.flag("use_full_rank_gate", False))
    types = _kimi_linear_types(r, lin, n)
    nope, rope = r.int("qk_nope_head_dim", 128), r.int("qk_rope_head_dim", 64)
    d_v = r.int("v_head_dim", 128)
    # Kimi K3's gated MLA: g_proj d -> H d_v, a sigmoid per channel before o_proj
    attn = Attention(h, h, nope + rope, kv_lora_rank=r.int("kv_lora_rank", 512),
                     q_lora_rank=r.int("q_lora_rank", 0, minimum=0), d_nope=nope, d_rope=rope,
                     d_v=d_v, gate=d_v if r.flag("mla_use_output_gate", False) else 0)
    e, k = _experts(r, n_key="num_experts", k_key="num_experts_per_token", defaults=(256, 8))
    width = r.int("moe_intermediate_size", 1024)
    shared = r.int("num_shared_experts", 1, kind="experts", minimum=0)
    if r.int("moe_layer_freq", 1, kind="count") != 1:  # KimiLinearConfig ignores it
        raise ConfigError(f"{r.origin}: field 'moe_layer_freq' = {r.cfg['moe_layer_freq']} is not "
                          "supported: transformers' kimi_linear makes every block after "
                          "first_k_dense_replace a mixture of experts")
    # Kimi K3's Stable LatentMoE: routed experts in a latent (routed_expert_down_proj d -> d_lat,
    # routed_expert_up_proj d_lat -> d, an RMSNorm of d_lat when latent_moe_use_norm)
    latent = r.int("routed_expert_hidden_size", 0, minimum=0)
    # and vLLM's KimiMoE (Kimi K3) pads each routed expert to at least
    # min_moe_intermediate_per_partition (256 by default) columns a chip under tensor
    # parallelism (formulas/engine.py: expert_pad_params)
    pad = r.int("min_moe_intermediate_per_partition", 256, minimum=0) if latent else 0
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0, d_shared=width * shared,
              router_bias=True, latent=latent,
              latent_norm=bool(latent) and r.flag("latent_moe_use_norm", False), pad_min=pad)
    r.read.add("latent_moe_use_norm")
    dense = MLP(r.int("intermediate_size", 9216))
    kinds = r.str_list("mlp_layer_types", n, ("dense", "sparse"))
    if kinds is None:
        first = r.int("first_k_dense_replace", 1, kind="layers", minimum=0)
        kinds = ["dense" if i < first else "sparse" for i in range(n)]
    r.read.update({"first_k_dense_replace", "num_expert_group", "topk_group",
                   "use_grouped_topk", "moe_renormalize", "moe_router_activation_func",
                   "routed_scaling_factor"})
    # Kimi K3's attention residuals (attn_res_block_size, which sets where block summaries are
    # taken and changes no count): per block two more RMSNorms of d and two pseudo-queries d -> 1
    # (self_attention_res_norm/_proj, mlp_res_norm/_proj), after the stack one of each
    # (output_attn_res_norm/_proj); all d-vectors, counted with the norms
    res = 4 if r.int("attn_res_block_size", 0, kind="layers", minimum=0) else 0
    layers = [Layers(1, attention=attn if t == "full_attention" else None,
                     mixer=kda if t == "linear_attention" else None,
                     mlp=moe if kinds[i] == "sparse" else dense, norms=2 + res)
              for i, t in enumerate(types)]
    ctx = r.int("model_max_length", None, kind="context")
    return {**_stack(r, d, layers, context_default=ctx), "norm_vecs_final": 1 + res // 2}


# ---- DeepSeek-V4 (compressed attention, hyper-connections) -------------------------------------
#: compress ratio -> (layer type, compressor series): transformers 5.24.0's
#: _COMPRESS_RATIO_TO_LAYER_TYPE; CSA's windows overlap (two series), HCA's do not.
V4_LAYER_TYPES: Mapping[str, int] = {"sliding_attention": 0, "compressed_sparse_attention": 2,
                                     "heavily_compressed_attention": 1}
V4_RATIO_TYPES: Mapping[int, str] = {0: "sliding_attention", 4: "compressed_sparse_attention",
                                     128: "heavily_compressed_attention"}


def _deepseek_v4(r: _Reader) -> dict[str, Any]:
    # DeepseekV4 (transformers 5.24.0 modeling_deepseek_v4.py; FAMILIES.md section 14.18): per
    # layer a compressed attention (q_a_proj d x r_q, q_a_norm, q_b_proj r_q x H dh, one
    # key-value head kv_proj d x dh with kv_norm, the grouped output o_a_proj (H dh r_o) and
    # o_b_proj (g r_o x d), sinks H; a CSA layer's compressor (kv and gate d x 2dh, position bias
    # 4 x 2dh, norm dh) and indexer (its own compressor of 2 d_I, q_b_proj r_q x H_I d_I,
    # weights_proj d x H_I), an HCA layer's compressor (dh, position bias 128 x dh)); a mixture of
    # n_routed_experts (gate, up, down) and one shared MLP of moe_intermediate_size, a router
    # d x E (hash-routed in the first layers: same weight, a token -> experts table as buffer);
    # two norms and two hyper-connection mixers per layer; a hyper-connection head, final norm,
    # untied head. Its cache: plan/stack.py (the form "compressed"; FAMILIES.md section 14.18).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    if r.int("num_key_value_heads", 1, kind="heads") != 1:
        raise ConfigError(f"{r.origin}: field 'num_key_value_heads' must be 1: DeepSeek-V4's "
                          "attention has one key-value head shared by keys and values")
    for key in ("attention_bias", "mlp_bias"):
        r.refuse(key, "biases are not counted in the 'deepseek_v4' layout")
    types = r.str_list("layer_types", n, V4_LAYER_TYPES)
    if types is None:
        ratios = r.raw("compress_ratios")
        if not isinstance(ratios, list) or len(ratios) < n or any(
                x not in V4_RATIO_TYPES for x in ratios[:n]):
            raise ConfigError(f"{r.origin}: field 'compress_ratios' must list at least {n} "
                              f"ratios from {sorted(V4_RATIO_TYPES)}")
        types = [V4_RATIO_TYPES[x] for x in ratios[:n]]  # transformers keeps the first n
    r.read.add("compress_ratios")
    rates = {"compressed_sparse_attention": r.int("compress_rate_csa", 4, kind="count"),
             "heavily_compressed_attention": r.int("compress_rate_hca", 128, kind="count")}
    given = r.raw("compress_rates", {})
    if not isinstance(given, dict):
        raise ConfigError(f"{r.origin}: field 'compress_rates' must be an object")
    rates.update(given)
    dh, rq = r.int("head_dim"), r.int("q_lora_rank")
    common = dict(q_lora_rank=rq, o_lora_rank=r.int("o_lora_rank"),
                  o_groups=r.int("o_groups", kind="count"), window=_window(r, 128))
    # a CSA layer's indexer: its heads and key width, and the entries it selects per query
    index = dict(index_heads=r.int("index_n_heads", kind="heads"),
                 index_dim=r.int("index_head_dim"), index_topk=r.int("index_topk", kind="count"))
    r.read.update({"qk_rope_head_dim", "partial_rotary_factor"})

    def attention(t: str) -> Attention:
        overlap = V4_LAYER_TYPES[t]
        return Attention(h, 1, dh, compress=rates.get(t, 0) if overlap else 0, overlap=overlap,
                         **common, **(index if overlap == 2 else {}))

    e, k = _experts(r, n_key="n_routed_experts")
    if r.int("n_shared_experts", 1, kind="experts", minimum=0) != 1:
        raise ConfigError(f"{r.origin}: field 'n_shared_experts' must be 1: transformers' "
                          "DeepseekV4SparseMoeBlock builds one shared MLP")
    width = r.int("moe_intermediate_size")
    # routing: the first num_hash_layers blocks pick their experts from a token -> experts table
    # (tid2eid, V x k), the others by score with a correction bias of E (fp32 gate.bias in the
    # checkpoint, e_score_correction_bias in transformers and vLLM). The checkpoint stores both
    # (DeepSeek-V4-Pro's tensor list, tests/configs/SOURCES.md section 7: layers.0-2.ffn.gate.
    # tid2eid [129280, 6] int64, layers.3-60.ffn.gate.bias [384] float32), and so do the
    # reference codes (DeepSeek's inference/model.py Gate and vLLM's DeepseekV4MoE: both
    # parameters; transformers 5.24.0: persistent buffers). Counted as the checkpoint holds
    # them: the bias with the router, the tables as an extra in the total that no decode step
    # reads whole (a token reads its own row, k ids).
    hashed = r.int("num_hash_layers", 0, kind="layers", minimum=0)
    if hashed > n:
        raise ConfigError(f"{r.origin}: field 'num_hash_layers' ({hashed}) exceeds the "
                          f"{n} layers")
    method = r.raw("topk_method", "noaux_tc")
    if method != "noaux_tc":
        raise ConfigError(f"{r.origin}: field 'topk_method' = {method!r:.40} is not "
                          "DeepSeek-V4's routing (noaux_tc, a correction bias per expert)")
    hashed_moe = MLP(width, n_experts=e, top_k=k, n_shared=1, d_shared=width)
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1, d_shared=width, router_bias=True)
    r.read.add("mlp_layer_types")
    hc = r.int("hc_mult", 4, kind="count")
    layers = [Layers(1, attention(t), mlp=hashed_moe if i < hashed else moe, norms=2, hc=hc)
              for i, t in enumerate(types)]
    # the head (DeepseekV4HyperHead) runs on every token before the final norm: its projection
    # n_hc d -> n_hc is a matrix product, its bias and scale act on the n_hc mixing weights
    # vLLM holds the head (hc_head_fn, _base, _scale: plain fp32 parameters) and the routing
    # tables (the gate's tid2eid) whole on every chip of a tensor-parallel group (copied)
    head = Extra("hyper-connection head", N.hyper_head_params(d_model=d, hc_streams=hc), True,
                 "DeepSeek-V4's merge of its residual streams before the final norm (read by "
                 "every token: 16 d + 5 weights)", read=True,
                 matmul=N.hyper_head_matmul_params(d_model=d, hc_streams=hc), copied=True)
    kw = _stack(r, d, layers)
    tables = (Extra(HASH_EXTRA, hashed * kw["n_vocab"] * k, True,
                    f"DeepSeek-V4's token -> experts tables of its {hashed} hash-routed blocks "
                    f"(V x {k} expert ids each; a token reads its own row)", copied=True),
              ) if hashed else ()
    # MTP (num_nextn_predict_layers; transformers builds none): DeepSeek's inference code
    # (inference/model.py, MTPBlock; FAMILIES.md section 14.18) builds module i as block n + i,
    # its attention of compress_ratios[n + i] (0, window-only, in both published files; a file
    # without that entry, as transformers' layer_types form, is taken as 0), the model's MoE
    # (past the hash-routed layers, so with its Gate's correction bias of E, as the
    # decoder's), two norms and two mixers; plus e_proj and h_proj (2 d^2), enorm, hnorm,
    # norm (3 d) and its own hyper-connection head; embeddings and output head are the model's.
    # Reported apart,
    # not in the total, read only by speculation with the module, as DeepSeek-V3's.
    modules = r.int("num_nextn_predict_layers", 0, kind="layers", minimum=0)
    ratios = r.raw("compress_ratios", [])
    ratios = ratios[n:n + modules] if isinstance(ratios, list) else []
    if any(type(x) is not int or x not in V4_RATIO_TYPES for x in ratios):
        raise ConfigError(f"{r.origin}: field 'compress_ratios' must give the "
                          f"multi-token-prediction module(s) a ratio from "
                          f"{sorted(V4_RATIO_TYPES)} (entries {n + 1} on), got {ratios!r:.60}")
    ratios += [0] * (modules - len(ratios))
    mtp = [_mtp(kw, 1, [Layers(1, attention(V4_RATIO_TYPES[x]), mlp=moe, norms=2, hc=hc)],
                "", own_embeddings=False, head=head.params)[0] for x in ratios]
    return dict(kw, extras=(head,) + tables + ((Extra(
        MTP_EXTRA, sum(x.params for x in mtp), False, "DeepSeek-V4's MTP "
        "module, in DeepSeek's inference code's layout (not in Flash's published 284B)",
        layers=tuple(run for x in mtp for run in x.layers), modules=len(mtp),
        names="mtp"),) if mtp else ()))


# ---- LongCat-Flash (shortcut-connected MoE with zero-computation experts) ------------------------
def _longcat_flash(r: _Reader) -> dict[str, Any]:
    # LongcatFlash (LongCat-Flash-Chat/-Thinking; transformers 5.24.0 modeling_longcat_flash.py,
    # vLLM's longcat_flash.py @ fe441ccfe6a851ce9704eb3ed5a4f5559b89e75f). num_layers blocks, each
    # two sublayers: input_layernorm[j], an MLA attention self_attn[j] (DeepSeek-V3's projections:
    # q_a_proj, q_a_layernorm, q_b_proj, kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj;
    # their biases when attention_bias, refused), post_attention_layernorm[j], a dense gated MLP
    # mlps[j] of ffn_hidden_size; the first sublayer's normed input also feeds the shortcut MoE,
    # whose output joins the residual after the second sublayer. The MoE: n_routed_experts real
    # experts of expert_ffn_hidden_size (gate, up, down, no biases), zero_expert_num identity
    # experts with no weights, a router classifier d x (E + Z) (a bias of E + Z when router_bias)
    # and its e_score_correction_bias of E + Z (a persistent buffer the checkpoint stores), top
    # moe_topk of the E + Z. Counted as two library blocks a layer: [attention 0, the MoE with the
    # dense MLP 0 as its one shared expert (same input, summed into the stream: the same weights,
    # reads and FLOPs)] and [attention 1, dense MLP 1]; the router columns and biases of the
    # zero experts go to an extra read by every token. transformers 5.24.0 allocates gate_up_proj
    # for all E + Z experts (the zero experts' rows are never used or stored): its meta count is
    # larger than the checkpoint by Z x 2 x d_expert x d a layer (FAMILIES.md 17.19). Under
    # tensor parallelism the extra is whole on every chip, as vLLM's router (a ReplicatedLinear
    # with its correction bias) and the library's router_copied_params are.
    d = r.int("hidden_size")
    n = r.int("num_layers", kind="layers")
    hidden = r.int("num_hidden_layers", None, kind="layers")
    if hidden is not None and hidden not in (n, 2 * n):
        raise ConfigError(f"{r.origin}: field 'num_hidden_layers' ({hidden}) is neither "
                          f"'num_layers' ({n}, vLLM's reading) nor twice it ({2 * n}, "
                          "transformers': two attention sublayers a layer)")
    method = r.raw("attention_method", "MLA")
    if not isinstance(method, str) or method.upper() != "MLA":
        raise ConfigError(f"{r.origin}: field 'attention_method' = {method!r:.40} is not "
                          "supported: only LongCat-Flash's latent attention ('MLA') is counted")
    use_mla = r.raw("use_mla")
    if use_mla not in (None, 1, True):
        raise ConfigError(f"{r.origin}: field 'use_mla' = {use_mla!r:.40} is not supported: "
                          "LongCat-Flash's attention is latent attention")
    r.refuse("attention_bias", "biases on latent attention's projections are not counted")
    h = r.int("num_attention_heads", kind="heads")
    r.int("num_key_value_heads", h, kind="heads")  # set to H by the config class; unused
    nope, rope = r.int("qk_nope_head_dim"), r.int("qk_rope_head_dim")
    if r.has("qk_head_dim") and r.int("qk_head_dim") != nope + rope:
        raise ConfigError(f"{r.origin}: field 'qk_head_dim' ({r.int('qk_head_dim')}) differs "
                          f"from 'qk_nope_head_dim' + 'qk_rope_head_dim' ({nope + rope})")
    attn = Attention(h, h, nope + rope, kv_lora_rank=r.int("kv_lora_rank"),
                     q_lora_rank=r.int("q_lora_rank"), d_nope=nope, d_rope=rope,
                     d_v=r.int("v_head_dim"))
    e = r.int("n_routed_experts", kind="experts")
    k = r.int("moe_topk", kind="experts")
    z = r.int("zero_expert_num", 0, kind="experts", minimum=0)
    kind = r.raw("zero_expert_type")
    if z and kind != "identity":
        raise ConfigError(f"{r.origin}: field 'zero_expert_type' = {kind!r:.40} is not "
                          "supported: only identity (zero-computation) experts are counted")
    if k > e + z:
        raise ConfigError(f"{r.origin}: field 'moe_topk' ({k}) exceeds 'n_routed_experts' + "
                          f"'zero_expert_num' ({e + z})")
    bias = r.flag("router_bias", False)
    for key in ("mla_scale_q_lora", "mla_scale_kv_lora", "norm_topk_prob"):
        r.flag(key, False)  # scales and a normalization: no parameters
    r.raw("routed_scaling_factor")
    d_ff = r.int("ffn_hidden_size")
    # the correction bias of the E real experts, and the classifier's bias when router_bias,
    # ride with the router (router_bias counts E entries); the zero experts' go to the extra
    # a token's k slots reach at most min(k, E) real experts: the upper end, counted
    moe = MLP(r.int("expert_ffn_hidden_size"), n_experts=e, top_k=min(k, e), n_shared=1,
              d_shared=d_ff, router_bias=True)
    dense = MLP(d_ff)
    layers = [Layers(1, attn, mlp=moe if j == 0 else dense, norms=2)
              for _ in range(n) for j in (0, 1)]
    kw = _stack(r, d, layers)
    zero_cols = z * d                       # classifier rows of the zero experts
    biases = z + (e + z if bias else 0)     # their correction biases; the classifier's bias
    if z or bias:
        kw["extras"] = (Extra(
            f"zero experts' routing; active: {min(k, e)} real experts (upper end)",
            n * (zero_cols + biases), True,
            f"LongCat-Flash's router scores {e} real and {z} identity experts a layer; the "
            f"identity experts hold no weights, so a token uses between 0 and {min(k, e)} real "
            f"experts; the active parameters, the bytes a step reads and the FLOPs count "
            f"{min(k, e)} (the upper "
            "end; Meituan reports about 27B active on average against 18.6B-31.3B)",
            read=True, matmul=n * zero_cols, copied=True),)
    return kw


# ---- GLM-4-0414 and GLM-Z1 (dense) -------------------------------------------------------------
#: transformers' Glm4Config defaults (configuration_glm4.py in transformers 5.24.0) for the keys that
#: size the model: head_dim 128 whatever d / H is (Glm4Attention reads config.head_dim), q/k/v
#: biases by default, the head untied.
GLM4_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 151552, "hidden_size": 4096, "intermediate_size": 13696,
    "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 2,
    "head_dim": 128, "max_position_embeddings": 131072, "tie_word_embeddings": False,
    "attention_bias": True,
}


def _glm4(r: _Reader) -> dict[str, Any]:
    # Glm4 (GLM-4-9B/32B-0414, GLM-Z1; transformers 5.24.0 modeling_glm4.py): q_proj, k_proj,
    # v_proj with biases when attention_bias, o_proj without; a fused gate_up_proj (d -> 2 d_ff)
    # and down_proj, no biases (the same weights as separate gate and up); four RMSNorms a
    # block: input_layernorm, post_self_attn_layernorm (on the attention's output),
    # post_attention_layernorm (before the MLP), post_mlp_layernorm (on the MLP's output); a
    # final norm; the head untied by default. Partial rotary embedding: no parameters. No
    # window: a layer_types key is refused unread.
    inner = _defaulted(r.cfg, GLM4_DEFAULTS, r.origin, r.family)
    _restated(inner, "mlp_bias", False, "its MLP has no biases")
    inner.raw("partial_rotary_factor")  # how much of each head is rotated: no parameter
    kw = _llama_like(inner, norms=4)
    kw["layers"] = tuple(replace(run, attention=replace(run.attention, o_bias=False))
                         for run in kw["layers"])
    r.read |= inner.read
    return kw


# ---- GLM-4.5 -----------------------------------------------------------------------------------
def _glm4_moe(r: _Reader) -> dict[str, Any]:
    # Glm4Moe: q/k/v with biases (attention_bias), o without; q_norm and k_norm of head_dim when
    # use_qk_norm; the first first_k_dense_replace blocks have a dense MLP of intermediate_size,
    # the others a mixture: n_routed_experts of moe_intermediate_size, one shared MLP of
    # n_shared_experts x moe_intermediate_size, a router d x E and its e_score_correction_bias
    # (E, a persistent buffer the checkpoint stores). Partial rotary embedding: no parameters.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=bias, qk_norm="head" if r.flag("use_qk_norm", False)
                     else "")
    e, k = _experts(r, n_key="n_routed_experts")
    width = r.int("moe_intermediate_size")
    shared = r.int("n_shared_experts", 1, kind="experts", minimum=0)
    first = r.int("first_k_dense_replace", 1, kind="layers", minimum=0)
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0, d_shared=width * shared,
              router_bias=True)
    dense = MLP(r.int("intermediate_size"))
    kw = _decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                  trained_context=r.int("max_position_embeddings", None, kind="context"),
                  attention=lambda i: attn, mlp=lambda i: moe if i >= first else dense,
                  d_model=d)
    kw["extras"] = _mtp_extras(r, kw, Layers(1, attn, mlp=moe, norms=2),
                               "GLM-4.5's MTP layer, counted in DeepSeek-V3's layout")
    return kw


#: transformers' Glm4MoeLiteConfig defaults (configuration_glm4_moe_lite.py in transformers 5.24.0)
#: for the keys that size the model, taken where a file leaves a key out (a null stays null: a
#: null q_lora_rank is a full-rank query projection there too).
GLM4_MOE_LITE_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 154880, "hidden_size": 2048, "intermediate_size": 10240,
    "moe_intermediate_size": 1536, "num_hidden_layers": 47, "num_attention_heads": 20,
    "num_key_value_heads": 20, "n_shared_experts": 1, "n_routed_experts": 64,
    "kv_lora_rank": 512, "q_lora_rank": 768, "qk_rope_head_dim": 64, "v_head_dim": 256,
    "qk_nope_head_dim": 192, "num_experts_per_tok": 4, "max_position_embeddings": 202752,
    "tie_word_embeddings": False, "attention_bias": False, "first_k_dense_replace": 1,
}


def _glm4_moe_lite(r: _Reader) -> dict[str, Any]:
    # Glm4MoeLite (GLM-4.7-Flash; transformers 5.24.0 modeling_glm4_moe_lite.py): DeepSeek-V3's
    # block. MLA (q_a_proj, q_a_layernorm, q_b_proj; kv_a_proj_with_mqa, kv_a_layernorm,
    # kv_b_proj; o_proj; q_a_proj, kv_a_proj_with_mqa and o_proj carry biases when
    # attention_bias, which _deepseek refuses); dense MLP of intermediate_size or a mixture of
    # n_routed_experts of moe_intermediate_size, one shared MLP of n_shared_experts x that width,
    # a router d x E (fp32) and its e_score_correction_bias (E, a persistent buffer). The dense
    # layers are mlp_layer_types, else the first one alone: transformers does not read
    # first_k_dense_replace, so a file whose first_k_dense_replace says otherwise without the
    # list is refused (vLLM would read the key). The MTP layer is not built by transformers.
    inner = _Reader({**GLM4_MOE_LITE_DEFAULTS, **r.cfg}, r.origin, r.family)
    if inner.raw("mlp_layer_types") is None and inner.int(
            "first_k_dense_replace", 1, kind="layers", minimum=0) != 1:
        raise ConfigError(
            f"{r.origin}: field 'first_k_dense_replace' = {inner.cfg['first_k_dense_replace']} "
            "without 'mlp_layer_types': transformers' GLM-4.7-Flash builds one dense layer "
            "whatever the field says, vLLM reads the field; give 'mlp_layer_types'")
    if inner.raw("mlp_layer_types") is not None and "first_k_dense_replace" not in r.cfg:
        inner.cfg = {**inner.cfg, "first_k_dense_replace": _leading_dense(inner)}
    kw = _deepseek(inner, v3=True,
                   mtp_note="GLM-4.7-Flash's MTP layer, counted in DeepSeek-V3's layout")
    r.read |= inner.read
    return kw


def _leading_dense(r: _Reader) -> int:
    """How many layers lead with a dense MLP in ``mlp_layer_types`` ('dense' or 'sparse' per
    layer); the list is checked against that count by :func:`_deepseek`."""
    kinds = r.str_list("mlp_layer_types", r.int("num_hidden_layers", kind="layers"),
                       ("dense", "sparse"))
    return next((i for i, kind in enumerate(kinds or []) if kind != "dense"), len(kinds or []))


#: transformers' SeedOssConfig defaults (configuration_seed_oss.py in transformers 5.24.0) for
#: the keys that size the model: q/k/v biases by default, none on o_proj, head_dim 128 (not
#: hidden/heads: Seed-OSS-36B has 80 heads of 128 over a width of 5120).
SEED_OSS_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 155136, "hidden_size": 4096, "intermediate_size": 27648,
    "num_hidden_layers": 64, "num_attention_heads": 80, "num_key_value_heads": 8,
    "max_position_embeddings": 524288, "tie_word_embeddings": False, "attention_bias": True,
    "attention_out_bias": False, "mlp_bias": False, "head_dim": 128,
}


def _seed_oss(r: _Reader) -> dict[str, Any]:
    # SeedOss (transformers 5.24.0 modeling_seed_oss.py): Llama's block; q_proj, k_proj, v_proj
    # with biases when attention_bias, o_proj with one when attention_out_bias, gate/up/down
    # with biases when mlp_bias; input_layernorm and post_attention_layernorm; untied head by
    # default. No sliding window: a layer_types or sliding_window key is refused unread.
    inner = _defaulted(r.cfg, SEED_OSS_DEFAULTS, r.origin, r.family)
    o_bias = inner.flag("attention_out_bias", False)
    kw = _llama_like(inner)
    kw["layers"] = tuple(replace(run, attention=replace(run.attention, o_bias=o_bias))
                         for run in kw["layers"])
    r.read |= inner.read
    return kw


#: transformers' Ernie4_5Config defaults (configuration_ernie4_5.py in transformers 5.24.0) for
#: the keys that size the model: head_dim 128 (a field), the head tied.
ERNIE4_5_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 103424, "hidden_size": 1024, "intermediate_size": 3072,
    "num_hidden_layers": 18, "num_attention_heads": 16, "num_key_value_heads": 2,
    "max_position_embeddings": 131072, "tie_word_embeddings": True, "use_bias": False,
    "head_dim": 128,
}


def _ernie4_5(r: _Reader) -> dict[str, Any]:
    # Ernie4_5 (ERNIE-4.5-0.3B; transformers 5.24.0 modeling_ernie4_5.py): Llama's block with
    # biases on q/k/v/o and on gate/up/down when use_bias (the output head never has one);
    # two RMSNorms per block; the head tied by default. The class has no attention_bias or
    # mlp_bias: a file whose keys of those names say otherwise than use_bias is refused.
    bias = _defaulted(r.cfg, ERNIE4_5_DEFAULTS, r.origin, r.family).flag("use_bias", False)
    r.read.add("use_bias")
    for key in ("attention_bias", "mlp_bias"):
        _restated(r, key, bias, "its biases follow 'use_bias'")
    inner = _defaulted({**r.cfg, "attention_bias": bias, "mlp_bias": bias}, ERNIE4_5_DEFAULTS,
                       r.origin, r.family)
    kw = _llama_like(inner, tied=True)
    r.read |= inner.read
    return kw


#: transformers' Ernie4_5_MoeConfig defaults (configuration_ernie4_5_moe.py in transformers
#: 5.24.0) for the keys that size the model; moe_layer_end_index -1 is the last layer.
ERNIE4_5_MOE_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 103424, "hidden_size": 2560, "intermediate_size": 12288,
    "num_hidden_layers": 28, "num_attention_heads": 20, "num_key_value_heads": 4,
    "max_position_embeddings": 131072, "tie_word_embeddings": True, "use_bias": False,
    "moe_intermediate_size": 1536, "moe_k": 6, "moe_num_experts": 64,
    "moe_num_shared_experts": 2, "moe_layer_start_index": 1, "moe_layer_end_index": -1,
    "moe_layer_interval": 1,
}


def _ernie_attention(inner: _Reader) -> tuple[int, int, Attention]:
    """ERNIE 4.5's width, layer count and attention (q/k/v/o without biases): ``use_bias``
    true is refused, as it puts biases on attention, the dense and shared MLPs and the head
    but not on the routed experts, which the library's MLP does not tell apart."""
    if inner.flag("use_bias", False):
        raise ConfigError(f"{inner.origin}: field 'use_bias' = true is not counted: ERNIE 4.5 "
                          "puts biases on attention, the dense and shared MLPs and the head "
                          "but not on the routed experts, which the library's MLP does not "
                          "tell apart")
    d = inner.int("hidden_size")
    return d, inner.int("num_hidden_layers", kind="layers"), Attention(*inner.heads(d))


def _ernie4_5_moe(r: _Reader) -> dict[str, Any]:
    # Ernie4_5_Moe (transformers 5.24.0 modeling_ernie4_5_moe.py): q/k/v/o, the dense MLP, the
    # shared experts and the output head carry biases when use_bias (the routed experts never:
    # refused rather than miscounted); head_dim is getattr(config, "head_dim", d / H); layer i
    # is a mixture iff (i + 1) % moe_layer_interval == 0 and moe_layer_start_index <= i <=
    # moe_layer_end_index (-1: the last layer): moe_num_experts of moe_intermediate_size, one
    # shared MLP of moe_num_shared_experts x that width, a router d x E (fp32, no bias) and
    # moe_statics.e_score_correction_bias (E, a parameter); two RMSNorms per block; the head
    # tied by default. The MTP layers (num_nextn_predict_layers) are not built by
    # transformers: declared, not counted, as MiniMax-M2's.
    inner = _defaulted(r.cfg, ERNIE4_5_MOE_DEFAULTS, r.origin, r.family)
    d, n, attn = _ernie_attention(inner)
    e, k = _experts(inner, n_key="moe_num_experts", k_key="moe_k")
    width = inner.int("moe_intermediate_size")
    shared = inner.int("moe_num_shared_experts", kind="experts", minimum=0)
    start = inner.int("moe_layer_start_index", kind="layers", minimum=0)
    end = inner.int("moe_layer_end_index", kind="layers", minimum=-1)
    end = n - 1 if end == -1 else end
    step = inner.int("moe_layer_interval", kind="count")
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0, d_shared=width * shared,
              router_bias=True)
    dense = MLP(inner.int("intermediate_size"))
    mtp = inner.int("num_nextn_predict_layers", 0, kind="layers", minimum=0)
    kw = _decoder(inner, n_layers=n, norms=2, tied=inner.flag("tie_word_embeddings", True),
                  trained_context=inner.int("max_position_embeddings", None, kind="context"),
                  attention=lambda i: attn,
                  mlp=lambda i: moe if ((i + 1) % step == 0 and start <= i <= end) else dense,
                  d_model=d)
    r.read |= inner.read
    return {**kw, "mtp_modules": mtp, "mtp_field": "num_nextn_predict_layers" if mtp else ""}


def _same_per_layer(r: _Reader, key: str, n: int, kind: str) -> Any:
    """A key a Hunyuan file gives as one integer or as one per layer: the value, refused naming
    the key where the layers differ (transformers' class builds one size for every layer)."""
    v = r.raw(key)
    if isinstance(v, list):
        if len(v) != n or not v or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
            raise ConfigError(f"{r.origin}: field '{key}' must be an integer or one integer for "
                              f"each of the {n} layers")
        if len(set(v)) != 1:
            raise ConfigError(f"{r.origin}: field '{key}' differs from layer to layer, which "
                              f"the '{r.family}' reader does not count (transformers builds one "
                              "size for every layer)")
        return _single(r, key, v[0], kind)
    return r.int(key, None, kind=kind)


def _single(r: _Reader, key: str, value: int, kind: str) -> int:
    """One entry of a per-layer list, checked as :meth:`_Reader.int` checks a field."""
    return _Reader({key: value}, r.origin, r.family).int(key, kind=kind)


def _hunyuan_attention(r: _Reader, d: int) -> Attention:
    """Hunyuan's attention as transformers 5.24.0 builds it (modeling_hunyuan_v1_dense.py and
    _moe.py): q/k/v/o with biases when attention_bias, query_layernorm and key_layernorm of
    head_dim in every layer, head_dim = getattr(config, "head_dim", d / H) (Tencent's
    remote-code files name it attention_head_dim; both given and different is refused);
    latent attention (use_mla) is refused (no released file sets it), use_qk_norm false and
    mlp_bias true contradict the layout. Cross-layer attention (use_cla) is
    :func:`_hunyuan_cla`'s."""
    r.refuse("use_mla", "Hunyuan's latent attention is not counted (no released checkpoint "
                        "sets it)")
    head_dim = r.int("head_dim", None)
    alias = r.int("attention_head_dim", None)
    if head_dim is not None and alias is not None and head_dim != alias:
        raise ConfigError(f"{r.origin}: field 'head_dim' ({head_dim}) differs from "
                          f"'attention_head_dim' ({alias})")
    h, hkv, dh = r.heads(d, head_dim_default=head_dim if head_dim is not None else alias)
    _restated(r, "use_qk_norm", True, "its attention always has query and key norms")
    _restated(r, "mlp_bias", False, "its MLPs have no biases")
    bias = r.flag("attention_bias", False)
    return Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head")


def _hunyuan_cla(r: _Reader, n: int) -> list[bool]:
    """Per layer, whether it reads an earlier layer's keys and values: Hunyuan's cross-layer
    attention (Tencent's remote code for Hunyuan-Large, modeling_hunyuan.py: HunYuanAttention
    is 'cross' when use_cla and layer_idx % cla_share_factor != 0, and then builds q_proj,
    o_proj, query_layernorm and key_layernorm but no k_proj or v_proj; HunYuanModel hands it
    the keys and values of the last layer with layer_idx % cla_share_factor == 0; vLLM's
    hunyuan_v1.py builds such a layer as HunYuanCrossAttention with the same tensors).
    transformers 5.24.0's hunyuan_v1_* classes read neither key (they build k and v in every
    layer), so a file that sets use_cla describes a model they do not build."""
    if not r.flag("use_cla", False):
        r.read.add("cla_share_factor")
        return [False] * n
    f = r.int("cla_share_factor", 1, kind="layers")
    return [i % f != 0 for i in range(n)]


def _hunyuan(r: _Reader, mlp_of: Callable[[_Reader, int], MLP]) -> dict[str, Any]:
    """A Hunyuan stack: Hunyuan's attention (:func:`_hunyuan_attention`; with cross-layer
    attention, :func:`_hunyuan_cla`, the sharing layers as ``kv_shared`` blocks that keep
    their own key norm) and the MLP ``mlp_of(r, n_layers)`` in every block, input_layernorm
    and post_attention_layernorm, the head untied by default."""
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    attn = _hunyuan_attention(r, d)
    shared = _hunyuan_cla(r, n)
    reuse = replace(attn, kv_shared=True, reuse_k_norm=True)
    mlp = mlp_of(r, n)
    return _decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                    trained_context=r.int("max_position_embeddings", None, kind="context"),
                    attention=lambda i: reuse if shared[i] else attn, mlp=lambda i: mlp,
                    d_model=d)


def _hunyuan_v1_dense(r: _Reader) -> dict[str, Any]:
    # HunYuanDenseV1 (Hunyuan-7B, Hunyuan-MT-7B; transformers 5.24.0
    # modeling_hunyuan_v1_dense.py): gate/up/down of intermediate_size without biases.
    return _hunyuan(r, lambda r, n: MLP(r.int("intermediate_size")))


def _hunyuan_moe_mlp(r: _Reader, n: int) -> MLP:
    # HunYuanMoEV1 (Hunyuan-A13B; transformers 5.24.0 modeling_hunyuan_v1_moe.py): every block
    # a mixture: a router wg d x E (fp32, no bias), num_experts experts of intermediate_size and
    # one shared MLP (shared_mlp) of intermediate_size, no MLP biases. The remote-code keys
    # that vLLM also reads are accepted where they say what transformers builds
    # (moe_intermediate_size = intermediate_size and num_shared_expert 1 in every layer,
    # use_mixed_mlp_moe, no skipped layers) and refused naming the key otherwise.
    _restated(r, "use_mixed_mlp_moe", True, "every block has a shared MLP beside the experts")
    if r.int("moe_layer_num_skipped", 0, kind="layers", minimum=0):
        raise ConfigError(f"{r.origin}: field 'moe_layer_num_skipped' = "
                          f"{r.cfg['moe_layer_num_skipped']} is not counted (transformers builds "
                          "a mixture in every layer)")
    ff = r.int("intermediate_size")
    width = _same_per_layer(r, "moe_intermediate_size", n, "width")
    if width is not None and width != ff:
        raise ConfigError(f"{r.origin}: field 'moe_intermediate_size' ({width}) differs from "
                          f"'intermediate_size' ({ff}): transformers' experts are "
                          "intermediate_size wide, vLLM's moe_intermediate_size")
    shared = _same_per_layer(r, "num_shared_expert", n, "experts")
    if shared is not None and shared != 1:
        raise ConfigError(f"{r.origin}: field 'num_shared_expert' = {shared} is not counted "
                          "(transformers builds one shared MLP of intermediate_size)")
    e = r.int("num_experts", kind="experts")
    k = _same_per_layer(r, "moe_topk", n, "experts")
    if k is None or k > e:
        raise ConfigError(f"{r.origin}: field 'moe_topk' ({k}) must be given and at most "
                          f"'num_experts' ({e})")
    return MLP(ff, n_experts=e, top_k=k, n_shared=1, d_shared=ff)


def _hunyuan_v1_moe(r: _Reader) -> dict[str, Any]:
    # Tencent's HunYuanForCausalLM (Hunyuan-Large's remote code) builds this mixture when
    # num_experts > 1 and a dense MLP otherwise: a dense file under that name is refused
    if "HunYuanForCausalLM" in _architectures(r.cfg) and r.int("num_experts", 1,
                                                             kind="experts") < 2:
        raise ConfigError(f"{r.origin}: field 'num_experts' < 2 under 'HunYuanForCausalLM' "
                          "is a dense Hunyuan model, which the 'hunyuan_v1_moe' reader does "
                          "not count")
    return _hunyuan(r, _hunyuan_moe_mlp)


def _dots1(r: _Reader) -> dict[str, Any]:
    # Dots1 (dots.llm1; transformers 5.24.0 modeling_dots1.py): Qwen3's attention (q/k/v/o with
    # biases when attention_bias, q_norm and k_norm RMSNorm(head_dim), head_dim =
    # getattr(config, "head_dim", d / H)) and DeepSeek-V3's mixture: the first
    # first_k_dense_replace blocks dense (intermediate_size), then n_routed_experts of
    # moe_intermediate_size, one shared MLP of n_shared_experts x that width, a router d x E
    # (fp32) and its e_score_correction_bias (E, a persistent buffer); two RMSNorms per block.
    # Windows: layer_types, else a layer is sliding iff sliding_window is not null and its index
    # is at least max_window_layers (Dots1Config's defaults 4096 and 62; no use_sliding_window
    # switch, so a file that sets that key false while the rule windows some layers is refused).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    window = r.int("sliding_window", None, kind="context") if "sliding_window" in r.cfg \
        else 4096
    r.read.add("sliding_window")
    types = r.str_list("layer_types", n, ("sliding_attention", "full_attention"))
    if types is None:
        first = r.int("max_window_layers", 62, kind="layers", minimum=0)
        types = ["sliding_attention" if window is not None and i >= first else "full_attention"
                 for i in range(n)]
        if "sliding_attention" in types and r.cfg.get("use_sliding_window") is False:
            raise ConfigError(f"{r.origin}: field 'use_sliding_window' = false, but transformers' "
                              "dots1 windows the layers from 'max_window_layers' on whatever it "
                              "says; give 'layer_types'")
    r.read.update({"max_window_layers", "use_sliding_window"})
    if "sliding_attention" in types and window is None:
        raise ConfigError(f"{r.origin}: field 'layer_types' names sliding layers but "
                          "'sliding_window' is null")
    e, k = _experts(r, n_key="n_routed_experts")
    width = r.int("moe_intermediate_size")
    shared = r.int("n_shared_experts", kind="experts", minimum=0)
    first = r.int("first_k_dense_replace", 0, kind="layers", minimum=0)
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0, d_shared=width * shared,
              router_bias=True)
    dense = MLP(r.int("intermediate_size"))
    return _decoder(
        r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
        trained_context=r.int("max_position_embeddings", None, kind="context"),
        attention=lambda i: Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head",
                                      window=window if types[i] == "sliding_attention" else None),
        mlp=lambda i: moe if i >= first else dense, d_model=d)


def _exaone4_sliding(r: _Reader, n: int, window: int | None) -> list[bool]:
    """EXAONE 4's windowed layers: ``layer_types``; else none without a window; else by
    ``sliding_window_pattern`` (default 4): an integer p windows layer i iff (i + 1) % p != 0
    (Exaone4Config), a string of L (local) and G (global) repeats from layer 0 (its
    docstring: "LLLG" is 4)."""
    types = r.str_list("layer_types", n, ("sliding_attention", "full_attention"))
    pattern = r.cfg.get("sliding_window_pattern", 4)  # absent: the default; null: none
    r.read.add("sliding_window_pattern")
    if types is not None:
        flags = [t == "sliding_attention" for t in types]
    elif window is None:
        flags = [False] * n
    elif isinstance(pattern, str) and pattern and set(pattern) <= {"L", "G"}:
        flags = [pattern[i % len(pattern)] == "L" for i in range(n)]
    elif isinstance(pattern, int) and not isinstance(pattern, bool) and pattern > 0:
        flags = [(i + 1) % pattern != 0 for i in range(n)]
    else:
        raise ConfigError(f"{r.origin}: field 'sliding_window_pattern' = {pattern!r:.40} must be "
                          "a positive integer or a string of L and G when 'sliding_window' is "
                          "set and 'layer_types' is not given")
    if any(flags) and window is None:
        raise ConfigError(f"{r.origin}: field 'layer_types' names sliding layers but "
                          "'sliding_window' is null")
    return flags


def _exaone4(r: _Reader) -> dict[str, Any]:
    # Exaone4 (EXAONE 4.0; transformers 5.24.0 modeling_exaone4.py): q/k/v/o without biases,
    # q_norm and k_norm RMSNorm(head_dim) with head_dim = getattr(config, "head_dim", d / H);
    # no input norm: post_attention_layernorm and post_feedforward_layernorm (two per block,
    # OLMo 2's placement); gate/up/down without biases; the head untied by default. Windows:
    # _exaone4_sliding (sliding_window 4096 by default; a null one windows nothing). The
    # global layers of the 32B skip the rotary embedding, which changes no count.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    window = r.int("sliding_window", None, kind="context") if "sliding_window" in r.cfg \
        else 4096
    r.read.add("sliding_window")
    flags = _exaone4_sliding(r, n, window)
    _restated(r, "attention_bias", False, "its attention projections have no biases")
    _restated(r, "mlp_bias", False, "its MLP has no biases")
    mlp = MLP(r.int("intermediate_size"))
    return _decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                    trained_context=r.int("max_position_embeddings", None, kind="context"),
                    attention=lambda i: Attention(h, hkv, dh, qk_norm="head",
                                                  window=window if flags[i] else None),
                    mlp=lambda i: mlp, d_model=d)


# ---- MiniMax-Text-01 and MiniMax-M1 (lightning attention) --------------------------------------
#: The two layer kinds of MiniMax-01's stack, as transformers' ``layer_types`` names them and as
#: the remote-code files' ``attn_type_list`` codes them (vLLM's minimax_text_01.py reads 0 as
#: "linear_attention" and 1 as "full_attention").
_MINIMAX_KINDS = {0: "linear_attention", 1: "full_attention"}


def _minimax_types(r: _Reader, n: int) -> list[str]:
    """The kind of each of the ``n`` blocks: ``layer_types``, else ``attn_type_list`` (0 or 1
    per block); where both are given they must agree. Without either, transformers'
    ``MiniMaxConfig`` alternates (full attention on even blocks); the remote-code families
    (minimax_m1, minimax_text_01) require the list."""
    types = r.str_list("layer_types", n, _MINIMAX_KINDS.values())
    codes = r.int_list("attn_type_list", [], n=n if r.has("attn_type_list") else None)
    bad = sorted(set(codes) - set(_MINIMAX_KINDS))
    if bad:
        raise ConfigError(f"{r.origin}: field 'attn_type_list' has unknown kinds {bad} "
                          "(0: lightning attention, 1: softmax attention)")
    listed = [_MINIMAX_KINDS[c] for c in codes] if codes else None
    if types is not None and listed is not None and types != listed:
        raise ConfigError(f"{r.origin}: fields 'layer_types' and 'attn_type_list' disagree")
    if types is None and listed is None and r.family != "minimax":
        raise ConfigError(f"{r.origin}: missing field 'attn_type_list'")
    return types or listed or ["linear_attention" if i % 2 else "full_attention"
                               for i in range(n)]


def _minimax(r: _Reader) -> dict[str, Any]:
    # MiniMax-Text-01 and MiniMax-M1 (transformers 5.24.0 modeling_minimax.py; vLLM's
    # minimax_text_01.py with MiniMaxText01LinearAttention): every block an input RMSNorm, a
    # mixer, a post-attention RMSNorm and a mixture of num_local_experts gated experts of
    # intermediate_size (top num_experts_per_tok, a bias-free d x E router, no shared expert).
    # The mixer is lightning attention (MiniMaxLightningAttention: qkv_proj d -> 3 H head_dim,
    # output_gate d -> H head_dim, an RMSNorm of H head_dim, out_proj; its decay slopes are
    # buffers computed from the head and the depth, not weights) on the blocks layer_types
    # marks "linear_attention" (attn_type_list 0), softmax GQA without biases elsewhere. The
    # residual scales (*_alpha_factor, layernorm_*_alpha), postnorm, rotary_dim and block_size
    # change no count. A shared expert (shared_intermediate_size, which the remote code
    # declares) and a sliding window on the softmax layers are refused.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    shared = r.raw("shared_intermediate_size", 0)  # one width, or one per layer (vLLM reads both)
    if shared != 0 and not (isinstance(shared, list) and not any(shared)):
        r.refuse("shared_intermediate_size", "a shared expert beside MiniMax's routed experts is "
                 "not in the layout transformers and vLLM build")
    r.read.add("shared_intermediate_size")
    r.refuse("sliding_window", "a window on MiniMax's softmax layers is not counted")
    e, k = _experts(r, n_key="num_local_experts")
    moe = MLP(r.int("intermediate_size"), n_mats=3, n_experts=e, top_k=k)
    attn = Attention(h, hkv, dh)
    lightning = LightningAttention(h, dh)
    layers = [Layers(1, attention=None if t == "linear_attention" else attn,
                     mixer=lightning if t == "linear_attention" else None, mlp=moe, norms=2)
              for t in _minimax_types(r, n)]
    return _stack(r, d, layers)


# ---- Ling 2.0 (Bailing MoE V2) -------------------------------------------------------------------
#: inclusionAI's BailingMoeV2Config defaults (github.com/inclusionAI/Ling-V2 @ af8837e677a1aa368958
#: 45da084f9c91acf4fed2, models/configuration_bailing_moe_v2.py) for the keys that size the model;
#: transformers 5.24.0 defines no such class (the files run inclusionAI's remote code).
BAILING_MOE_V2_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 157184, "hidden_size": 2048, "intermediate_size": 5120,
    "num_hidden_layers": 20, "num_attention_heads": 16, "num_key_value_heads": 4,
    "use_qkv_bias": False, "use_bias": False, "tie_word_embeddings": False,
    "max_position_embeddings": 32768, "num_experts": 256, "num_shared_experts": 1,
    "num_experts_per_tok": 8, "n_group": 8, "topk_group": 4, "moe_intermediate_size": 512,
    "first_k_dense_replace": 1, "use_qk_norm": True, "num_nextn_predict_layers": 0,
    "moe_router_enable_expert_bias": True,
}


def _group_limited(r: _Reader, e: int, k: int) -> None:
    """Group-limited routing (DeepSeek-V3's, in Ling 2.0's gate): the E experts in ``n_group``
    groups, a token's top-k taken from the ``topk_group`` groups of best two-expert score. It
    changes which experts a token reads, not how many, so no count; a file whose groups cannot
    hold the routing (E not a multiple of n_group, groups of fewer than two experts, more
    groups picked than exist, or fewer experts in them than k) is refused naming the field."""
    groups = r.int("n_group", kind="count")
    picked = r.int("topk_group", kind="count")
    if e % groups or e // groups < 2:
        raise ConfigError(f"{r.origin}: field 'n_group' ({groups}) must divide the {e} experts "
                          "into groups of at least two (the gate scores a group by its best two)")
    if picked > groups or picked * (e // groups) < k:
        raise ConfigError(f"{r.origin}: field 'topk_group' ({picked}) must pick at most "
                          f"'n_group' ({groups}) groups holding at least 'num_experts_per_tok' "
                          f"({k}) experts")


def _bailing_moe_v2(r: _Reader) -> dict[str, Any]:
    # BailingMoeV2 (Ling 2.0: Ling-mini/flash-2.0, Ling-1T, Ring-2.0; inclusionAI's
    # modeling_bailing_moe_v2.py, Ling-V2 @ af8837e6, models/): one fused query_key_value
    # d x (H + 2 H_kv) d_h (bias when use_qkv_bias), dense H d_h x d (bias when use_bias),
    # query_layernorm and key_layernorm RMSNorm(d_h) when use_qk_norm; head_dim 128 by default
    # (d / H when the file sets it null); partial rotary embedding (no parameters). The first
    # first_k_dense_replace blocks have a gated MLP of intermediate_size, the others
    # num_experts gated experts of moe_intermediate_size, one shared MLP of num_shared_experts x
    # moe_intermediate_size, and a sigmoid gate: weight E x d and expert_bias (E, a persistent
    # buffer the checkpoint stores); no biases in any MLP; two RMSNorms a block, one final.
    # The MTP layers (num_nextn_predict_layers) are built after the main stack as
    # model.layers.{n + j}: enorm, hnorm, eh_proj 2d x d, a block with the mixture whatever
    # first_k_dense_replace says, final_layernorm; they use the model's embedding and head.
    # Real files say model_type "bailing_moe" (Ling 1.0's) with BailingMoeV2ForCausalLM: read
    # through ARCHITECTURES.
    inner = _Reader({**BAILING_MOE_V2_DEFAULTS, **r.cfg}, r.origin, r.family)
    d = inner.int("hidden_size")
    n = inner.int("num_hidden_layers", kind="layers")
    null_head = "head_dim" in r.cfg and r.cfg["head_dim"] is None
    h, hkv, dh = inner.heads(d, head_dim_default=None if null_head else 128)
    attn = Attention(h, hkv, dh, qkv_bias=inner.flag("use_qkv_bias", False),
                     o_bias=inner.flag("use_bias", False),
                     qk_norm="head" if inner.flag("use_qk_norm", True) else "")
    e, k = _experts(inner, n_key="num_experts")
    _group_limited(inner, e, k)
    width = inner.int("moe_intermediate_size")
    shared = inner.int("num_shared_experts", kind="experts", minimum=0)
    # vLLM and SGLang size the shared MLP from moe_shared_expert_intermediate_size (times
    # num_shared_experts) where the file has it; the reference code from moe_intermediate_size:
    # read where the two agree, refused naming the field where they do not
    own = inner.int("moe_shared_expert_intermediate_size", width)
    if own != width:
        raise ConfigError(
            f"{r.origin}: field 'moe_shared_expert_intermediate_size' ({own}) differs from "
            f"'moe_intermediate_size' ({width}): inclusionAI's code sizes the shared expert "
            "from the latter, vLLM from the former, so the count would depend on the runtime")
    # the reference code registers expert_bias whatever this says; vLLM builds none without it
    _restated(inner, "moe_router_enable_expert_bias", True,
              "its gate keeps an expert_bias of num_experts entries")
    first = inner.int("first_k_dense_replace", kind="layers", minimum=0)
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0,
              d_shared=width * shared, router_bias=True)
    dense = MLP(inner.int("intermediate_size"))
    kw = _decoder(inner, n_layers=n, norms=2, tied=inner.flag("tie_word_embeddings", False),
                  trained_context=inner.int("max_position_embeddings", kind="context"),
                  attention=lambda i: attn, mlp=lambda i: moe if i >= first else dense,
                  d_model=d)
    kw["extras"] = _mtp(kw, inner.int("num_nextn_predict_layers", kind="layers", minimum=0),
                        [Layers(1, attn, mlp=moe, norms=2)],
                        "Ling 2.0's MTP layer (a block with the mixture; the model's embedding "
                        "and head)", own_embeddings=False, names="layers")
    r.read |= inner.read
    return kw


# ---- AFMoE (Arcee Trinity) ----------------------------------------------------------------------
def _afmoe(r: _Reader) -> dict[str, Any]:
    # Afmoe (Trinity Nano/Mini; transformers 5.24.0 modeling_afmoe.py): q/k/v/o (biases when
    # attention_bias), q_norm and k_norm RMSNorm(head_dim), and gate_proj d -> H d_h (no bias):
    # a sigmoid gate per channel on the attention output before o_proj; head_dim 128 by
    # default (a null one is refused: the class would take None). Windows by layer_types, else
    # every global_attn_every_n_layers-th layer full and the others sliding (AfmoeConfig's rule,
    # window sliding_window, 1024 by default). Four RMSNorms a block (input, post-attention,
    # pre-MLP, post-MLP), one final. The first num_dense_layers blocks have a gated MLP of
    # intermediate_size, the others num_experts packed gated experts of moe_intermediate_size,
    # one shared MLP of num_shared_experts x that width, a router d x E without bias and an
    # expert_bias Parameter of E (fp32). muP's input scaling (mup_enabled), route_scale and
    # route_norm are multipliers: no parameters. The remote code's grouped-routing keys (n_group,
    # topk_group, num_expert_groups, num_limited_groups; 1 in the released files) choose which
    # experts a token reads, not how many: read, no count.
    d = r.int("hidden_size", 2048)
    n = r.int("num_hidden_layers", 32, kind="layers")
    if "head_dim" in r.cfg and r.cfg["head_dim"] is None:
        raise ConfigError(f"{r.origin}: field 'head_dim' is null: transformers' AfmoeAttention "
                          "takes it as it is (no hidden_size / num_attention_heads fallback)")
    h, hkv, dh = r.heads(d, head_dim_default=128)
    bias = r.flag("attention_bias", False)
    every = r.int("global_attn_every_n_layers", 4, kind="count")
    types = r.str_list("layer_types", n, ("sliding_attention", "full_attention")) or [
        "sliding_attention" if (i + 1) % every else "full_attention" for i in range(n)]
    window = r.int("sliding_window", 1024, kind="context") if "sliding_window" not in r.cfg \
        or r.cfg["sliding_window"] is not None else None
    r.read.add("sliding_window")
    if window is None and "sliding_attention" in types:
        raise ConfigError(f"{r.origin}: field 'sliding_window' is null but the layer types "
                          "name sliding layers")
    r.read.update({"n_group", "topk_group", "num_expert_groups", "num_limited_groups"})
    e, k = _experts(r, n_key="num_experts", defaults=(64, 6))
    width = r.int("moe_intermediate_size", 1408)
    shared = r.int("num_shared_experts", 2, kind="experts", minimum=0)
    first = r.int("num_dense_layers", 1, kind="layers", minimum=0)
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0,
              d_shared=width * shared, router_bias=True)
    dense = MLP(r.int("intermediate_size", 6144))
    return _decoder(
        r, n_layers=n, norms=4, tied=r.flag("tie_word_embeddings", False),
        trained_context=r.int("max_position_embeddings", 16384, kind="context"),
        attention=lambda i: Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head",
                                      gate=dh, window=window if types[i] == "sliding_attention"
                                      else None),
        mlp=lambda i: moe if i >= first else dense, d_model=d,
        n_vocab=r.int("vocab_size", 200192, kind="vocab"))


# ---- MiniMax-M2 -----------------------------------------------------------------------------------
def _minimax_qk_norm(r: _Reader, known: str, qk_norm: str) -> str:
    """MiniMax's q/k norms: none without ``use_qk_norm``; else ``qk_norm_type``, which must be
    the one kind the family's layout has (``known``, its default), read as the library's
    ``qk_norm`` (M2's "per_layer": norms over whole projections; M3's "per_head")."""
    if not r.flag("use_qk_norm", False):
        return ""
    kind = r.raw("qk_norm_type", known)
    if kind != known:
        raise ConfigError(f"{r.origin}: field 'qk_norm_type' = {kind!r:.40} is not counted "
                          f"(the '{r.family}' reader knows '{known}' q/k norms)")
    return qk_norm


def _minimax_m2(r: _Reader) -> dict[str, Any]:
    # MiniMaxM2: q/k/v/o without biases; with use_qk_norm and qk_norm_type "per_layer", q_norm
    # over all H head_dim query channels and k_norm over the H_kv head_dim key channels; every
    # block a mixture of num_local_experts gated experts of intermediate_size, a router d x E
    # and, with use_routing_bias, its e_score_correction_bias (E, a persistent buffer). The MTP
    # modules (use_mtp, num_mtp_modules) are not built by transformers and not counted.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    qk = _minimax_qk_norm(r, "per_layer", "full")
    r.refuse("shared_intermediate_size", "MiniMax-M2's layout has no shared expert")
    # MiniMax-M2.x files keep MiniMax-01's remote-code key with every layer softmax (1):
    # restated, read; a lightning layer (0) is MiniMax-01's layout, not M2's
    if 0 in r.int_list("attn_type_list", [], n=n if r.has("attn_type_list") else None):
        raise ConfigError(f"{r.origin}: field 'attn_type_list' marks lightning attention layers "
                          "(0), which MiniMax-M2's layout does not have (model_type 'minimax' "
                          "reads MiniMax-01's)")
    e, k = _experts(r, n_key="num_local_experts")
    moe = MLP(r.int("intermediate_size"), n_experts=e, top_k=k,
              router_bias=r.flag("use_routing_bias", False))
    # declared, not counted (no reference implementation of their layout was found): the
    # speculation workload 'mtp' refuses the model, naming the field, rather than count nothing
    mtp = r.int("num_mtp_modules", 0, kind="layers", minimum=0) \
        if r.flag("use_mtp", False) else 0
    r.read.update({"num_mtp_modules", "mtp_transformer_layers"})
    # vLLM splits M2's whole-projection norms with the heads (MiniMaxText01RMSNormTP,
    # formulas/engine.py): no copy on every chip
    attn = Attention(h, hkv, dh, qk_norm=qk, qk_norm_split=qk == "full")
    return {**_decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                       trained_context=r.int("max_position_embeddings", None, kind="context"),
                       attention=lambda i: attn, mlp=lambda i: moe, d_model=d),
            "mtp_modules": mtp, "mtp_field": "num_mtp_modules" if mtp else ""}


# ---- MiniMax-M3 -----------------------------------------------------------------------------------
#: Keys of ``sparse_attention_config`` the minimax_m3 reader reads (vLLM's MiniMaxM3TextConfig);
#: ``sparse_score_type`` (how block scores pool) changes no count.
MSA_KEYS = ("use_sparse_attention", "sparse_attention_freq", "sparse_disable_index_value",
            "sparse_num_index_heads", "sparse_index_dim", "sparse_block_size",
            "sparse_topk_blocks", "sparse_init_block", "sparse_local_block", "sparse_score_type")


def _minimax_m3(r: _Reader) -> dict[str, Any]:
    # MiniMax-M3's text tower (FAMILIES.md section 14.6; vLLM's vllm/models/minimax_m3/nvidia/
    # model.py, transformers' minimax_m3_vl_text): q/k/v/o without biases, per-head q/k norms
    # (qk_norm_type "per_head", Gemma-style weights: the same count), two norms per block; the
    # layers sparse_attention_freq marks add MiniMax Sparse Attention's indexer (index_q_proj
    # d -> H_I d_I, index_k_proj d -> d_I, a norm of d_I on each; no index value or output
    # projection where sparse_disable_index_value is set), which picks sparse_topk_blocks
    # blocks of sparse_block_size tokens per key/value head, the current block among them;
    # the layers moe_layer_freq marks a mixture of num_local_experts gated experts of
    # intermediate_size (top num_experts_per_tok, no biases), one shared expert of
    # shared_intermediate_size, a router d x E and its e_score_correction_bias; the others a
    # dense gated MLP of dense_intermediate_size. The checkpoint ships no MTP module
    # (num_mtp_modules, num_nextn_predict_layers: read, not counted).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    qk = _minimax_qk_norm(r, "per_head", "head")
    r.refuse("attention_output_gate", "an output gate on MiniMax-M3's attention is not counted")
    sparse = r.raw("sparse_attention_config", {})
    if not isinstance(sparse, Mapping):
        raise ConfigError(f"{r.origin}: field 'sparse_attention_config' must be an object")
    unknown = sorted(set(sparse) - set(MSA_KEYS))
    if unknown:
        raise ConfigError(f"{r.origin}: field 'sparse_attention_config.{unknown[0]}' is not "
                          "understood by the 'minimax_m3' reader, and counting without it would "
                          "describe a different model")
    # errors name the object and the key inside it
    s = _Reader(sparse, f"{r.origin}: sparse_attention_config", r.family)
    sparse_layers = [False] * n
    index: dict[str, int] = {}
    # vLLM builds a sparse layer where sparse_attention_freq is nonzero and none without it,
    # whatever use_sparse_attention says (_sparse_attention_layer_ids, vllm/models/minimax_m3/
    # nvidia/model.py @0443308a): a file where the two disagree is refused, not guessed
    use, listed = s.flag("use_sparse_attention", False), s.has("sparse_attention_freq")
    if use and not listed:
        raise ConfigError(f"{r.origin}: field 'sparse_attention_config.sparse_attention_freq' "
                          "is missing: use_sparse_attention is true, but vLLM makes a layer "
                          "sparse only where this list says so (without it, none)")
    if not use and any(s.int_list("sparse_attention_freq", [], n=n)):
        raise ConfigError(f"{r.origin}: field 'sparse_attention_config.use_sparse_attention' "
                          "is not true, but 'sparse_attention_freq' marks sparse layers, which "
                          "vLLM builds from that list alone")
    if use:
        freq = s.int_list("sparse_attention_freq", [], n=n)
        no_value = s.int_list("sparse_disable_index_value", [1] * n, n=n)
        sparse_layers = [f != 0 for f in freq]
        valued = [i for i in range(n) if sparse_layers[i] and not no_value[i]]
        if valued:
            raise ConfigError(f"{r.origin}: field 'sparse_attention_config."
                              f"sparse_disable_index_value' is 0 on sparse layer {valued[0]}: "
                              "an index value and output projection are not counted")
        if s.int("sparse_init_block", 0, kind="count", minimum=0):
            raise ConfigError(f"{r.origin}: field 'sparse_attention_config.sparse_init_block' "
                              "> 0: blocks kept at the start of the context are not counted")
        block = s.int("sparse_block_size", kind="context")
        blocks = s.int("sparse_topk_blocks", kind="count")
        if s.int("sparse_local_block", 0, kind="count", minimum=0) > blocks:
            raise ConfigError(f"{r.origin}: field 'sparse_attention_config.sparse_local_block' "
                              "exceeds 'sparse_topk_blocks' (the local blocks are among them)")
        s.raw("sparse_score_type")
        index = dict(index_heads=s.int("sparse_num_index_heads", kind="heads"),
                     index_dim=s.int("sparse_index_dim"), index_topk=blocks * block,
                     index_block=block)
    moe_flags = [f != 0 for f in r.int_list("moe_layer_freq", [1] * n, n=n)]
    first = r.int("first_k_dense_replace", None, kind="layers", minimum=0)
    if first is not None and moe_flags != [i >= first for i in range(n)]:
        raise ConfigError(f"{r.origin}: field 'first_k_dense_replace' ({first}) contradicts "
                          "'moe_layer_freq'")
    e, k = _experts(r, n_key="num_local_experts")
    d_e = r.int("intermediate_size")
    if r.int("moe_intermediate_size", d_e) != d_e:
        raise ConfigError(f"{r.origin}: field 'moe_intermediate_size' differs from "
                          "'intermediate_size' (MiniMax-M3's experts are intermediate_size wide)")
    n_shared = r.int("n_shared_experts", 0, kind="experts", minimum=0)
    d_shared = r.int("shared_intermediate_size", 0, minimum=0)
    if d_shared != n_shared * d_e:  # vLLM builds n_shared x intermediate_size, transformers
        raise ConfigError(           # shared_intermediate_size: the file must agree
            f"{r.origin}: field 'shared_intermediate_size' ({d_shared}) is not "
            f"'n_shared_experts' x 'intermediate_size' ({n_shared} x {d_e})")
    moe = MLP(d_e, n_experts=e, top_k=k, n_shared=1 if n_shared else 0, d_shared=d_shared,
              router_bias=r.flag("use_routing_bias", False))
    dense = MLP(r.int("dense_intermediate_size"))
    # declared, not counted (the checkpoint ships none): kept so that the speculation workload
    # 'mtp' refuses the model naming the field, not as a model without a module
    declared = {k: r.int(k, 0, kind="layers", minimum=0)
                for k in ("num_mtp_modules", "num_nextn_predict_layers")}
    field = next((k for k, v in declared.items() if v), "")
    full, msa = Attention(h, hkv, dh, qk_norm=qk), Attention(h, hkv, dh, qk_norm=qk, **index)
    return {**_decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                       trained_context=r.int("max_position_embeddings", None, kind="context"),
                       attention=lambda i: msa if sparse_layers[i] else full,
                       mlp=lambda i: moe if moe_flags[i] else dense, d_model=d),
            "mtp_modules": declared.get(field, 0), "mtp_field": field}


# ---- gpt-oss ------------------------------------------------------------------------------------
def _gpt_oss(r: _Reader) -> dict[str, Any]:
    # GptOss: q/k/v/o with biases (attention_bias), a learned sink per head, layer_types
    # (sliding_attention / full_attention), MoE of num_local_experts with biases on every
    # expert matrix (gate_up 2 d_ff, down d) and a router with a bias; 2 norms per block.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d, head_dim_default=64)
    bias = r.flag("attention_bias", True)
    window = _window(r, 128)
    flags = _window_flags(r, n, "alternate")
    e, k = _experts(r, n_key="num_local_experts")
    r.read.add("experts_per_token")
    if r.int("experts_per_token", k, kind="experts") != k:
        raise ConfigError(f"{r.origin}: 'experts_per_token' and 'num_experts_per_tok' differ")
    mlp = MLP(r.int("intermediate_size"), bias=True, n_experts=e, top_k=k, router_bias=True)
    return _decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                    trained_context=r.int("max_position_embeddings", None, kind="context"),
                    attention=lambda i: Attention(h, hkv, dh,
                                                  window=window if flags[i] else None,
                                                  qkv_bias=bias, o_bias=bias, sinks=True),
                    mlp=lambda i: mlp, d_model=d)


# ---- Llama 4 ------------------------------------------------------------------------------------
def _llama4_text(r: _Reader) -> dict[str, Any]:
    # Llama4Text: q/k/v/o (attention_bias); the L2 q/k norm has no weights; layers with RoPE use
    # chunked attention, every no_rope_layer_interval-th layer (NoPE) full attention; MoE layers
    # every interleave_moe_layer_step (num_local_experts of intermediate_size, one shared
    # expert of intermediate_size, router d x E), dense layers of intermediate_size_mlp.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    r.flag("use_qk_norm", True)  # weightless L2 norm: no parameters
    chunk = r.int("attention_chunk_size", 8192, kind="context")
    nope = r.int_list("no_rope_layers", [], n=None)
    interval = r.int("no_rope_layer_interval", 4, kind="count")
    if not nope:
        nope = [int((i + 1) % interval != 0) for i in range(n)]  # 1: uses RoPE
    if len(nope) != n:
        raise ConfigError(f"{r.origin}: field 'no_rope_layers' has {len(nope)} entries for "
                          f"{n} layers")
    step = r.int("interleave_moe_layer_step", 1, kind="count")
    moe_layers = set(r.int_list("moe_layers", list(range(step - 1, n, step))))
    e, k = _experts(r, n_key="num_local_experts")
    width = r.int("intermediate_size")
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1, d_shared=width)
    dense = MLP(r.int("intermediate_size_mlp"))
    return _decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                    trained_context=r.int("max_position_embeddings", None, kind="context"),
                    attention=lambda i: Attention(h, hkv, dh, chunk=chunk if nope[i] else None,
                                                  qkv_bias=bias, o_bias=bias),
                    mlp=lambda i: moe if i in moe_layers else dense, d_model=d)


def _llama4(r: _Reader) -> dict[str, Any]:
    text = r.raw("text_config", None)
    if text is None:
        return _llama4_text(r)
    if not isinstance(text, dict):
        raise ConfigError(f"{r.origin}: 'text_config' must be an object")
    tr = _Reader(text, r.origin + ": text_config", "llama4_text")
    kw = _llama4_text(tr)
    tr.check_unread()
    vision = r.raw("vision_config", None)
    if vision is not None:
        if not isinstance(vision, dict):
            raise ConfigError(f"{r.origin}: 'vision_config' must be an object")
        vr = _Reader(vision, r.origin + ": vision_config", "llama4_vision_model")
        kw["extras"] = (Extra("vision tower and projector",
                              _llama4_vision_params(vr, kw["d_model"]), True,
                              "Llama 4's vision encoder, pixel-shuffle adapter and projector"),)
    return kw


def _llama4_vision_params(r: _Reader, d_text: int) -> int:
    """Parameters of Llama 4's vision encoder, adapter and projector. The config class's
    vision defaults are not Scout's, so every size must be in the file."""
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    r.int("num_attention_heads", kind="heads")
    c = r.int("num_channels", 3, kind="count")
    p = r.int("patch_size", kind="count")
    image = r.int("image_size")
    ratio = r.raw("pixel_shuffle_ratio")
    if not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
        raise ConfigError(f"{r.origin}: field 'pixel_shuffle_ratio' must be in (0, 1]")
    proj_in = r.int("projector_input_dim")
    proj_out = r.int("projector_output_dim")
    out_dim = r.int("vision_output_dim")
    if r.flag("multi_modal_projector_bias", False):
        raise ConfigError(f"{r.origin}: field 'multi_modal_projector_bias' = true is not counted")
    embeddings = c * p * p * h + h + ((image // p) ** 2 + 1) * h + 2 * 2 * h
    layer = _vit_block_params(h, inter)
    adapter = round(h / (ratio * ratio)) * proj_in + proj_in * proj_out
    return embeddings + n * layer + adapter + out_dim * d_text


# ---- Nemotron-H (Mamba-2 hybrid) ---------------------------------------------------------------
def _nemotron_h(r: _Reader) -> dict[str, Any]:
    # NemotronH: each block is one RMSNorm and one mixer, by hybrid_override_pattern: "M" a
    # Mamba-2 mixer, "*" attention (no RoPE), "-" an MLP (up, down; ReLU^2), "E" a mixture of
    # experts (Nemotron 3): n_routed_experts plain experts (up, down) of moe_intermediate_size,
    # one shared expert of moe_shared_expert_intermediate_size, a router d x E and its
    # e_score_correction_bias (E, a persistent buffer). Final norm_f, untied lm_head.
    d = r.int("hidden_size")
    pattern = _nemotron_pattern(r, "hybrid_override_pattern", "layers_block_type")
    if not pattern:
        state = "missing field" if pattern is None else "empty layer pattern in field"
        raise ConfigError(f"{r.origin}: {state} 'layers_block_type' (or "
                          "'hybrid_override_pattern'): which blocks are Mamba-2, attention, MLP "
                          "or mixture of experts")
    n = r.int("num_hidden_layers", None if pattern is None else len(pattern), kind="layers")
    if pattern is not None and len(pattern) != n:
        raise ConfigError(f"{r.origin}: field 'num_hidden_layers' ({n}) disagrees with the "
                          f"{len(pattern)} blocks of the layer pattern")
    if not isinstance(pattern, str) or len(pattern) != n or set(pattern) - set("M*-E"):
        raise ConfigError(f"{r.origin}: field 'hybrid_override_pattern' must be a string of "
                          f"{n} characters from 'M' (Mamba-2), '*' (attention), '-' (MLP), "
                          "'E' (mixture of experts)")
    moe = _nemotron_h_moe(r) if "E" in pattern else None
    h = r.int("num_attention_heads", kind="heads")
    hkv = r.int("num_key_value_heads", h, kind="heads")
    dh = r.int("attention_head_dim", None) or r.int("head_dim", d // h)
    attn = Attention(h, hkv, dh, qkv_bias=r.flag("attention_bias", False),
                     o_bias=r.flag("attention_bias", False))
    mheads = r.int("mamba_num_heads", kind="heads")
    mixer = Mamba2(d_inner=mheads * r.int("mamba_head_dim"), d_state=r.int("ssm_state_size"),
                   n_groups=r.int("n_groups", kind="count"), n_heads=mheads,
                   d_conv=r.int("conv_kernel", 4, kind="count"),
                   conv_bias=r.flag("use_conv_bias", True), bias=r.flag("use_bias", False),
                   ssm_bits=_ssm_bits(r, "mamba_ssm_cache_dtype"))
    mlp = MLP(r.int("intermediate_size"), n_mats=2, bias=r.flag("mlp_bias", False))
    r.read.add("mamba_proj_bias")
    def block(c: str) -> Layers:
        return Layers(1, attention=attn if c == "*" else None, mixer=mixer if c == "M" else None,
                      mlp={"-": mlp, "E": moe}.get(c), norms=1)

    kw = _stack(r, d, [block(c) for c in pattern])
    # MTP (vLLM's nemotron_h_mtp.py; transformers builds none): num_nextn_predict_layers
    # modules, each the blocks of mtp_hybrid_override_pattern ('*' attention, 'E' the mixture),
    # the first with enorm, hnorm and eh_proj, the last with a final norm; embeddings and head
    # shared with the model
    modules = r.int("num_nextn_predict_layers", 0, kind="layers", minimum=0)
    mtp_pattern = _nemotron_pattern(r, "mtp_hybrid_override_pattern", "mtp_layers_block_type")
    mtp_pattern = "" if mtp_pattern is None else mtp_pattern
    if modules and (not isinstance(mtp_pattern, str) or not mtp_pattern
                    or set(mtp_pattern) - set("*E") or ("E" in mtp_pattern and moe is None)):
        listed = r.cfg.get("mtp_layers_block_type") is not None
        key, form = (("mtp_layers_block_type", "a list of 'attention' and 'moe'") if listed else
                     ("mtp_hybrid_override_pattern",
                      "a string of '*' (attention) and 'E' (mixture of experts)"))
        raise ConfigError(f"{r.origin}: field '{key}' must be {form} blocks for the {modules} "
                          "multi-token-prediction module(s)" + (", and the model has no "
                                                               "mixture-of-experts block"
                                                               if moe is None else ""))
    kw["extras"] = _mtp(kw, modules, [block(c) for c in mtp_pattern or ""],
                        "Nemotron 3's MTP module (vLLM's layout)", own_embeddings=False)
    return kw


#: The block names of a Nemotron-H ``layers_block_type`` list (the in-library
#: ``NemotronHConfig``'s spelling of the pattern; "mamba" and "attention" are its legacy names)
#: -> the character of ``hybrid_override_pattern``.
_NEMOTRON_BLOCKS: Mapping[str, str] = {"mamba": "M", "linear_attention": "M", "attention": "*",
                                       "full_attention": "*", "mlp": "-", "moe": "E"}


def _nemotron_pattern(r: _Reader, key: str, list_key: str) -> str | None:
    """A Nemotron-H layer pattern as a string of ``M*-E`` from ``key`` (the remote code's
    string) or ``list_key`` (a list of block names, as transformers' own ``NemotronHConfig``
    writes it, with no ``num_hidden_layers`` needed); None when the file has neither. A list
    with another name, or both fields disagreeing, is an error naming the field."""
    pattern = r.raw(key)
    blocks = r.raw(list_key)
    if blocks is None:
        return pattern
    if not isinstance(blocks, list) or not all(isinstance(b, str) and b in _NEMOTRON_BLOCKS
                                               for b in blocks):
        raise ConfigError(f"{r.origin}: field '{list_key}' must be a list of block names from "
                          f"{', '.join(repr(b) for b in _NEMOTRON_BLOCKS)}")
    listed = "".join(_NEMOTRON_BLOCKS[b] for b in blocks)
    if pattern is not None and pattern != listed:
        raise ConfigError(f"{r.origin}: fields '{key}' and '{list_key}' describe different "
                          "layer patterns")
    return listed


def _nemotron_h_moe(r: _Reader) -> MLP:
    """The mixture-of-experts block of a Nemotron 3 pattern ("E")."""
    e, k = _experts(r, n_key="n_routed_experts")
    # NemotronHMOE builds one shared expert of moe_shared_expert_intermediate_size whatever
    # n_shared_experts says; a file with another number is not that layout
    shared = r.int("n_shared_experts", 1, kind="experts", minimum=0)
    if shared > 1:
        raise ConfigError(f"{r.origin}: field 'n_shared_experts' = {shared}: the 'nemotron_h' "
                          "layout has at most one shared expert")
    d_shared = r.int("moe_shared_expert_intermediate_size") if shared else 0
    # Nemotron 3 Super's LatentMoE: the routed experts work in moe_latent_size, between
    # fc1_latent_proj (d -> latent) and fc2_latent_proj (latent -> d), no biases; router and
    # shared expert on d. Its MTP layers: _nemotron_h.
    return MLP(r.int("moe_intermediate_size"), n_mats=2, bias=r.flag("mlp_bias", False),
               n_experts=e, top_k=k, n_shared=shared, d_shared=d_shared, router_bias=True,
               latent=r.int("moe_latent_size", 0, minimum=0))


# ---- Mamba-2 hybrids named by "mamba_*" keys (Granite 4.0, Falcon-H1) ------------------------
def _mamba_mixer(r: _Reader, d_inner: int, *, norm: bool, out_bias_key: str) -> Mamba2:
    """The Mamba-2 mixer of a ``mamba_*`` config (transformers' ``GraniteMoeHybridMambaLayer``,
    ``FalconH1Mixer``): ``mamba_n_heads`` heads of ``mamba_d_head`` ("auto": d_inner / heads; the
    two must multiply to d_inner, as the classes' ``validate_architecture`` requires),
    ``mamba_d_state``, ``mamba_n_groups``, a convolution of ``mamba_d_conv`` with a bias iff
    ``mamba_conv_bias``, the input projection's bias ``mamba_proj_bias`` and the output
    projection's ``out_bias_key`` (one bias flag for both in the library: different values are
    refused naming the key); the defaults are both classes'."""
    heads = r.int("mamba_n_heads", 128, kind="heads")
    d_head = r.raw("mamba_d_head", "auto")
    if d_head == "auto":
        if d_inner % heads:
            raise ConfigError(f"{r.origin}: field 'mamba_n_heads' ({heads}) does not divide the "
                              f"mixer's inner width ({d_inner})")
        d_head = d_inner // heads
    else:
        d_head = r.int("mamba_d_head")
    if heads * d_head != d_inner:
        raise ConfigError(f"{r.origin}: fields 'mamba_n_heads' x 'mamba_d_head' ({heads} x "
                          f"{d_head}) must equal the mixer's inner width ({d_inner})")
    in_bias = r.flag("mamba_proj_bias", False)
    if out_bias_key != "mamba_proj_bias" and r.flag(out_bias_key, False) != in_bias:
        raise ConfigError(f"{r.origin}: field '{out_bias_key}' = "
                          f"{str(not in_bias).lower()} differs from 'mamba_proj_bias': a bias on "
                          "one of the mixer's projections only is not modelled")
    return Mamba2(d_inner=d_inner, d_state=r.int("mamba_d_state", 256),
                  n_groups=r.int("mamba_n_groups", 1, kind="count"), n_heads=heads,
                  d_conv=r.int("mamba_d_conv", 4, kind="count"),
                  conv_bias=r.flag("mamba_conv_bias", True), bias=in_bias, norm=norm)


#: Block names of a granitemoehybrid ``layer_types`` (``layers_block_type``): the names IBM's
#: files use and the ones transformers remaps them to (``_LEGACY_LAYER_TYPE_REMAP`` in
#: ``configuration_utils.py``).
_GRANITE_BLOCKS: Mapping[str, bool] = {"mamba": True, "linear_attention": True,
                                       "attention": False, "full_attention": False}


def _granitemoehybrid(r: _Reader) -> dict[str, Any]:
    # Granite 4.0 (transformers 5.24.0, modeling_granitemoehybrid.py): each block is an RMSNorm,
    # a Mamba-2 mixer or GQA attention (by layer_types; none given: every block Mamba-2, the
    # class's default), an RMSNorm and, in every block, a gated shared MLP of
    # shared_intermediate_size (input_linear d -> 2w, output_linear) beside a mixture of
    # num_local_experts gated experts of intermediate_size with a bias-free router (none when 0).
    # The mup multipliers (embedding, residual, attention, logits) and position_embedding_type
    # change no count. Final norm; the head is tied when tie_word_embeddings.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    key = "layer_types" if r.cfg.get("layer_types") is not None else "layers_block_type"
    types = r.str_list(key, n, _GRANITE_BLOCKS)
    r.read.update({"layer_types", "layers_block_type"})
    mamba = [True] * n if types is None else [_GRANITE_BLOCKS[t] for t in types]
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias)
    expand = r.int("mamba_expand", 2, kind="count")
    mixer = _mamba_mixer(r, expand * d, norm=True, out_bias_key="mamba_proj_bias")
    e = r.int("num_local_experts", 8, kind="experts", minimum=0)
    shared = r.int("shared_intermediate_size", 1024)
    if e:
        _, k = _experts(r, n_key="num_local_experts", defaults=(8, 2))
        mlp = MLP(r.int("intermediate_size", 11008), n_experts=e, top_k=k, n_shared=1,
                  d_shared=shared)
    else:  # a dense hybrid (Granite-4.0-H-Micro, -H-1B): the shared MLP alone
        r.int("num_experts_per_tok", 0, kind="experts", minimum=0)
        r.read.add("intermediate_size")
        mlp = MLP(shared)
    layers = [Layers(1, attention=None if m else attn, mixer=mixer if m else None, mlp=mlp,
                     norms=2) for m in mamba]
    return _stack(r, d, layers)


def _dt_rank(r: _Reader, d: int, key: str = "mamba_dt_rank") -> int:
    """A Mamba-1 mixer's step-size rank: the file's ``key``, or ceil(d / 16) where it is "auto"
    or absent (Mamba's rule, as Phi3Mamba, JambaConfig and FalconMambaConfig apply it)."""
    r.read.add(key)
    rank = r.cfg.get(key, "auto")
    if rank in (None, "auto"):
        return -(-d // 16)
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise ConfigError(f"{r.origin}: field '{key}' must be a positive integer or "
                          f"'auto', got {rank!r:.60}")
    return rank


def _phi4flash(r: _Reader) -> dict[str, Any]:
    # Phi-4-mini-flash (SambaY; the remote code configuration_phi4flash.py and
    # modeling_phi4flash.py as copied in franciskamande-ai/cloned_models @ 711ebe7d7412, and
    # vLLM's phi4flash.py @ 03356f8cb59b; FAMILIES.md 17.15). n blocks (n a multiple of 4), each
    # a LayerNorm with bias, a mixer, a LayerNorm with bias and a gated MLP (fc1 d -> 2 ff, fc2,
    # no biases); a final LayerNorm with bias; the head tied to the embedding. With mb_per_layer
    # 2, even blocks are Mamba-1 mixers (Phi3Mamba: d_in = mamba_expand d, mamba_d_state,
    # mamba_d_conv, dt rank mamba_dt_rank or ceil(d / 16); a convolution bias and no projection
    # biases whatever mamba_conv_bias and mamba_proj_bias say, which the code does not pass on),
    # odd blocks differential attention (Wqkv and out_proj with biases, head width d / H). From
    # block n/2 on the blocks are YOCO's: block n/2 + 1 is full attention (the cache the
    # cross-decoder reads), the sliding window applying to the odd blocks below n/2 only; from
    # block n/2 + 2 on the even blocks are gated memory units (in_proj d -> d_in, out_proj, no
    # biases: the SiLU of the projection times block n/2's Mamba output) and the odd ones read
    # block n/2 + 1's keys and values (a query projection with bias, out_proj, the lambdas and
    # the sub-norm).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    if n % 4:
        raise ConfigError(f"{r.origin}: field 'num_hidden_layers' ({n}) must be a multiple of "
                          "4 for SambaY (modeling_phi4flash.py asserts it)")
    if r.int("mb_per_layer", 2, kind="count", minimum=0) != 2:
        raise ConfigError(f"{r.origin}: field 'mb_per_layer' = {r.cfg['mb_per_layer']} is not "
                          "supported: the reader reads SambaY's alternating layout (2) only")
    h = r.int("num_attention_heads", kind="heads")
    hkv = r.int("num_key_value_heads", h, kind="heads")
    if d % h or h % hkv:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) must divide 'hidden_size' "
                          f"({d}) and be a multiple of 'num_key_value_heads' ({hkv})")
    for key, value in (("mamba_conv_bias", True), ("mamba_proj_bias", False),
                       ("mlp_bias", False), ("lm_head_bias", False)):
        if r.flag(key, value) != value:
            raise ConfigError(f"{r.origin}: field '{key}' = {str(not value).lower()} is not "
                              "supported: the remote code builds Phi-4-mini-flash's layers "
                              f"with {'a' if value else 'no'} bias there")
    expand = r.int("mamba_expand", 2, kind="count")
    rank = _dt_rank(r, d)
    d_in = expand * d
    mamba = Mamba1(d_in, r.int("mamba_d_state", 16, kind="count"), rank,
                   d_conv=r.int("mamba_d_conv", 4, kind="count"))
    window = r.int("sliding_window", None, kind="context")
    attn = Attention(h, hkv, d // h, qkv_bias=True, o_bias=True, diff=True)
    mlp = MLP(r.int("intermediate_size", 9216), n_mats=3)
    layers = []
    for i in range(n):
        if i % 2 == 0:
            part = {"mixer": mamba if i < n // 2 + 2 else GatedMemoryUnit(d_in)}
        elif i < n // 2:
            part = {"attention": replace(attn, window=window)}
        elif i == n // 2 + 1:
            part = {"attention": attn}
        else:
            part = {"attention": replace(attn, kv_shared=True)}
        # YOCO: a prefill runs the cross-decoder (blocks n/2 + 2 on) for the last token only
        # (vLLM's SambaYModel.forward truncates the hidden states to it there)
        layers.append(Layers(1, mlp=mlp, norms=4, prefill_last=i >= n // 2 + 2, **part))
    return {**_stack(r, d, layers), "tied": r.flag("tie_word_embeddings", True),
            "norm_vecs_final": 2}


#: What Jamba's Mamba-1 layers hold besides the mixer the library models: an RMSNorm on the step
#: size (dt_rank) and one each on B and C (d_state), per Mamba layer.
JAMBA_NORMS_EXTRA = "Mamba-1 inner norms (dt, B and C per Mamba layer)"


def _jamba(r: _Reader) -> dict[str, Any]:
    # JambaForCausalLM (transformers 5.24.0 models/jamba/modeling_jamba.py and
    # configuration_jamba.py; FAMILIES.md 17.22). n blocks, block i attention when i %
    # attn_layer_period == attn_layer_offset, else a Mamba-1 mixer; its feed-forward a mixture of
    # num_experts gated experts (top num_experts_per_tok, a router of E x d, no bias) when i %
    # expert_layer_period == expert_layer_offset, else a dense gated MLP of the same width.
    # Attention: q/k/v/o without biases, head width head_dim, else d / H, no positional embedding.
    # Mamba (JambaMambaMixer): in_proj d -> 2 d_in, a depthwise convolution of mamba_d_conv with a
    # bias iff mamba_conv_bias, x_proj d_in -> dt_rank + 2 d_state, dt_proj dt_rank -> d_in with a
    # bias, A_log d_in x d_state, D, out_proj; biases on in/out_proj iff mamba_proj_bias (false in
    # AI21's files; true refused: the Mamba1 record has none); and three RMSNorms that
    # transformers always builds (dt_layernorm of dt_rank, b_ and c_layernorm of d_state), counted
    # as an extra every token reads and every chip holds whole (vLLM's MambaMixer builds plain
    # RMSNorms). AI21's remote code builds them iff mamba_inner_layernorms: false is refused
    # naming it. Two RMSNorms per block, a final one; the head untied unless tie_word_embeddings.
    # The Mamba state, d_in x d_state and the convolution's last d_conv - 1 inputs, replaces a
    # cache in Mamba blocks.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    a_period = r.int("attn_layer_period", 8, kind="layers")
    a_offset = r.int("attn_layer_offset", 4, kind="layers", minimum=0)
    e_period = r.int("expert_layer_period", 2, kind="layers")
    e_offset = r.int("expert_layer_offset", 1, kind="layers", minimum=0)
    for key, offset, period in (("attn_layer_offset", a_offset, a_period),
                                ("expert_layer_offset", e_offset, e_period)):
        if offset >= period:
            raise ConfigError(f"{r.origin}: field '{key}' ({offset}) must be smaller than its "
                              f"period ({period}), as JambaConfig requires")
    _restated(r, "mamba_proj_bias", False, "its Mamba projections have no biases")
    _restated(r, "mamba_inner_layernorms", True,
              "transformers always builds the Mamba layers' inner norms")
    _restated(r, "attention_bias", False, "its attention has no biases")
    _restated(r, "mlp_bias", False, "its MLPs have no biases")
    act = r.raw("hidden_act")
    if act not in (None, "silu"):
        raise ConfigError(f"{r.origin}: field 'hidden_act' = {act!r:.60} is not supported: the "
                          "'jamba' reader models SiLU-gated MLPs and Mamba layers only")
    r.refuse("sliding_window", "Jamba's attention layers attend to the whole context in "
             "transformers' JambaAttention (the key is not read there)")
    rank = _dt_rank(r, d)
    d_state = r.int("mamba_d_state", 16, kind="count")
    mamba = Mamba1(r.int("mamba_expand", 2, kind="count") * d, d_state, rank,
                   d_conv=r.int("mamba_d_conv", 4, kind="count"),
                   conv_bias=r.flag("mamba_conv_bias", True))
    ff = r.int("intermediate_size", 14336)
    n_experts = r.int("num_experts", 16, kind="experts")
    top_k = r.int("num_experts_per_tok", 2, kind="experts")
    if top_k > n_experts:
        raise ConfigError(f"{r.origin}: field 'num_experts_per_tok' ({top_k}) exceeds "
                          f"'num_experts' ({n_experts})")
    dense, moe = MLP(ff, n_mats=3), MLP(ff, n_mats=3, n_experts=n_experts, top_k=top_k)
    attn = Attention(h, hkv, dh)
    layers = []
    for i in range(n):
        part = ({"attention": attn} if i % a_period == a_offset else {"mixer": mamba})
        # JambaConfig.layers_num_experts: one expert is JambaMLP, a dense block
        mlp = moe if i % e_period == e_offset and n_experts > 1 else dense
        layers.append(Layers(1, mlp=mlp, norms=2, **part))
    n_mamba = sum(1 for i in range(n) if i % a_period != a_offset)
    kw = _stack(r, d, layers)
    if r.cfg.get("max_position_embeddings") is None:
        kw["trained_context"] = r.int("n_ctx", 262144, kind="context")
    r.read.add("n_ctx")
    kw["extras"] = (Extra(JAMBA_NORMS_EXTRA, n_mamba * (rank + 2 * d_state), True,
                          "RMSNorms on the step size (dt_rank) and on B and C (d_state each) "
                          "in every Mamba layer, read by every decoded token, held whole on "
                          "every chip", read=True, copied=True),) if n_mamba else ()
    return kw


def _falcon_mamba(r: _Reader) -> dict[str, Any]:
    # FalconMambaForCausalLM (transformers 5.24.0 models/falcon_mamba/modeling_falcon_mamba.py
    # and configuration_falcon_mamba.py; FAMILIES.md 17.23): n blocks, each an RMSNorm (a
    # weight of d) and a Mamba-1 mixer, no MLP; a final RMSNorm; the head tied unless
    # tie_word_embeddings is false (FalconMambaConfig's default is true). The mixer
    # (FalconMambaMixer) is Mamba's: in_proj d -> 2 d_in and out_proj with biases iff use_bias
    # (true refused: the Mamba1 record has none), a depthwise convolution of conv_kernel with a
    # bias iff use_conv_bias, x_proj d_in -> r + 2 state_size, dt_proj r -> d_in with a bias,
    # A_log, D. Its RMS norms on dt, B and C have no weights (FalconMambaWeightlessRMSNorm: a
    # non-persistent buffer of ones), so they add no parameter. d_in is intermediate_size
    # when the file gives it (FalconMambaConfig sets expand x d first, then the file's value
    # over it: tiiuae/falcon-mamba-7b says expand 16 and intermediate_size 8,192, and its
    # checkpoint is 8,192 wide), else expand x d; r is time_step_rank, "auto" = ceil(d / 16).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    _restated(r, "use_bias", False, "its Mamba projections have no biases")
    act = r.raw("hidden_act")
    if act not in (None, "silu"):
        raise ConfigError(f"{r.origin}: field 'hidden_act' = {act!r:.60} is not supported: the "
                          "'falcon_mamba' reader models Mamba's SiLU mixer only")
    expand = r.int("expand", 2, kind="count")
    d_in = r.int("intermediate_size", expand * d)
    mamba = Mamba1(d_in, r.int("state_size", 16, kind="count"), _dt_rank(r, d, "time_step_rank"),
                   d_conv=r.int("conv_kernel", 4, kind="count"),
                   conv_bias=r.flag("use_conv_bias", True))
    return {**_stack(r, d, [Layers(n, mixer=mamba, norms=1)]),
            "tied": r.flag("tie_word_embeddings", True)}


def _bamba(r: _Reader) -> dict[str, Any]:
    # BambaForCausalLM (transformers 5.24.0 models/bamba/modeling_bamba.py and
    # configuration_bamba.py; FAMILIES.md 17.24): n blocks, each an RMSNorm, GQA attention at
    # the indices attn_layer_indices lists (none: every block Mamba-2) else a Mamba-2 mixer
    # (BambaMixer: Granite 4.0's, with a gated output norm of d_in), an RMSNorm and a gated
    # MLP of intermediate_size (biases iff mlp_bias); a final RMSNorm; the head untied unless
    # tie_word_embeddings. Attention biases iff attention_bias; a partial rotary embedding
    # (attn_rotary_emb, partial_rotary_factor) holds no weights. mamba_dt_rank, which IBM's
    # files carry, is not a BambaConfig field and builds nothing: a Mamba-2 mixer's step size
    # is one value per head out of in_proj.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    indices = r.int_list("attn_layer_indices", [])
    if any(not 0 <= i < n for i in indices) or len(set(indices)) != len(indices):
        raise ConfigError(f"{r.origin}: field 'attn_layer_indices' must list distinct layers "
                          f"below 'num_hidden_layers' ({n}), got {indices!r:.80}")
    r.read.add("mamba_dt_rank")
    act = r.raw("hidden_act")
    if act not in (None, "silu"):
        raise ConfigError(f"{r.origin}: field 'hidden_act' = {act!r:.60} is not supported: the "
                          "'bamba' reader models SiLU-gated MLPs and Mamba-2 mixers only")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias)
    mixer = _mamba_mixer(r, r.int("mamba_expand", 2, kind="count") * d, norm=True,
                         out_bias_key="mamba_proj_bias")
    mlp = MLP(r.int("intermediate_size", 14336), n_mats=3, bias=r.flag("mlp_bias", False))
    layers = [Layers(1, mlp=mlp, norms=2,
                     **({"attention": attn} if i in indices else {"mixer": mixer}))
              for i in range(n)]
    return _stack(r, d, layers)


def _falcon_h1(r: _Reader) -> dict[str, Any]:
    # Falcon-H1 (transformers 5.24.0, modeling_falcon_h1.py): every block is an RMSNorm, then
    # GQA attention and a Mamba-2 mixer side by side on the normed input (their outputs summed),
    # an RMSNorm and a gated MLP of intermediate_size (biases iff mlp_bias). The mixer's inner
    # width is mamba_d_ssm (a null one: mamba_expand x d; a missing one: the class's 1024); its
    # gated RMSNorm exists only with mamba_rms_norm (false in TII's checkpoints); the input
    # projection's bias is mamba_proj_bias, the output projection's projectors_bias. The mup
    # multipliers (embedding, lm_head, key, attention/ssm in/out, mlp_multipliers,
    # ssm_multipliers) scale activations and change no count; the mup vector is a
    # non-persistent buffer. The class reads neither attn_layer_indices nor mamba_use_mlp
    # (TII's code could drop attention or the MLP in some layers): a file that sets them is
    # refused naming the key. Final norm, untied head unless tie_word_embeddings.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    r.refuse("attn_layer_indices", "attention in some layers only (TII's code); transformers "
             "builds attention in every Falcon-H1 block")
    if not r.flag("mamba_use_mlp", True):
        raise ConfigError(f"{r.origin}: field 'mamba_use_mlp' = false is not supported: "
                          "transformers builds an MLP in every Falcon-H1 block")
    h, hkv, dh = r.heads(d)
    bias = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias)
    r.read.add("mamba_d_ssm")
    if "mamba_d_ssm" not in r.cfg:
        d_inner = 1024
    elif r.cfg["mamba_d_ssm"] is None:
        d_inner = r.int("mamba_expand", 2, kind="count") * d
    else:
        d_inner = r.int("mamba_d_ssm")
    r.read.add("mamba_expand")
    mixer = _mamba_mixer(r, d_inner, norm=r.flag("mamba_rms_norm", False),
                         out_bias_key="projectors_bias")
    mlp = MLP(r.int("intermediate_size", 14336), bias=r.flag("mlp_bias", False))
    return _stack(r, d, [Layers(n, attention=attn, mixer=mixer, mlp=mlp, norms=2)])


def _lfm2_ff_width(r: _Reader) -> int:
    """The MLP width Lfm2MLP builds (transformers 5.24.0): the file's ``block_ff_dim`` (which
    Lfm2Config takes over ``intermediate_size``), and with ``block_auto_adjust_ff_dim`` (default
    true) int(2 ff / 3), then, unless ``block_ffn_dim_multiplier`` is null, int(multiplier x
    that) rounded up to a multiple of ``block_multiple_of`` (LFM2-1.2B: 12,288 -> 8,192)."""
    key = "block_ff_dim" if r.cfg.get("block_ff_dim") is not None else "intermediate_size"
    r.read.update({"block_ff_dim", "intermediate_size"})
    ff = r.int(key, 12288)
    r.read.add("block_auto_adjust_ff_dim")
    adjust = r.cfg.get("block_auto_adjust_ff_dim", True)
    if adjust not in (True, False, None):
        raise ConfigError(f"{r.origin}: field 'block_auto_adjust_ff_dim' must be true or false, "
                          f"got {adjust!r:.60}")
    if not adjust:
        return ff
    ff = int(2 * ff / 3)
    r.read.add("block_ffn_dim_multiplier")
    mult = r.cfg.get("block_ffn_dim_multiplier", 1.0)
    if mult is None:
        return ff
    if isinstance(mult, bool) or not isinstance(mult, (int, float)) or mult <= 0:
        raise ConfigError(f"{r.origin}: field 'block_ffn_dim_multiplier' must be a positive "
                          f"number, got {mult!r:.60}")
    ff = int(mult * ff)
    step = r.int("block_multiple_of", 256, kind="count")
    return step * ((ff + step - 1) // step)


#: LFM2's block kinds in ``layer_types`` -> whether the block is a short convolution.
_LFM2_BLOCKS = {"conv": True, "full_attention": False}


def _lfm2_of(moe: bool) -> Callable[[_Reader], dict[str, Any]]:
    """The reader of LFM2 (``lfm2``) or of its mixture of experts (``lfm2_moe``)."""

    def read(r: _Reader) -> dict[str, Any]:
        return _lfm2(r, moe=moe)
    return read


def _lfm2(r: _Reader, *, moe: bool) -> dict[str, Any]:
    # LFM2 (transformers 5.24.0, modeling_lfm2.py): each block is an RMSNorm (operator_norm),
    # GQA attention (per-head q/k RMSNorms, no biases) or a gated short convolution
    # (Lfm2ShortConv: in_proj d -> 3d, a depthwise conv of conv_L_cache taps over B x, C times
    # it, out_proj d -> d; biases iff conv_bias), an RMSNorm (ffn_norm) and a gated MLP of the
    # width _lfm2_ff_width gives. The blocks are layer_types, else full_attn_idxs (attention
    # there, convolutions elsewhere; neither: every block attention, as Lfm2Config fills it).
    # Final norm (embedding_norm); the head is tied unless tie_embedding (which Lfm2Config takes
    # over tie_word_embeddings) or tie_word_embeddings says otherwise. The convolution and the
    # blocks are hidden_size wide whatever conv_dim, conv_dim_out and block_dim say (Liquid's
    # own keys, which transformers does not read): a file where they differ is refused.
    # LFM2-MoE (modeling_lfm2_moe.py): the same blocks (layer_types required), the first
    # num_dense_layers with a gated MLP of intermediate_size as given (no width rule), the
    # others a mixture of num_experts gated experts of moe_intermediate_size, top
    # num_experts_per_tok, a bias-free d x E router and, with use_expert_bias, a persistent
    # buffer of E routing biases (counted as the router's bias, as DeepSeek-V3's).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    for key in ("conv_dim", "conv_dim_out", "block_dim"):
        if r.int(key, d) != d:
            raise ConfigError(f"{r.origin}: field '{key}' = {r.cfg[key]} differs from "
                              f"'hidden_size' ({d}): transformers builds LFM2's blocks and "
                              "convolutions hidden_size wide, and counting either would describe "
                              "a different model")
    types = r.str_list("layer_types", n, _LFM2_BLOCKS)
    if types is None and moe:
        raise ConfigError(f"{r.origin}: missing field 'layer_types'")
    if types is None:
        idxs = r.int_list("full_attn_idxs", list(range(n)))
        bad = [i for i in idxs if not 0 <= i < n]
        if bad:
            raise ConfigError(f"{r.origin}: field 'full_attn_idxs' names layer {bad[0]} of "
                              f"{n} layers")
        types = ["full_attention" if i in idxs else "conv" for i in range(n)]
    r.read.add("full_attn_idxs")
    h, hkv, dh = r.heads(d, head_dim_default=None)
    if r.int("num_heads", h, kind="heads") != h:
        raise ConfigError(f"{r.origin}: field 'num_heads' ({r.cfg['num_heads']}) differs from "
                          f"'num_attention_heads' ({h})")
    if not r.flag("block_use_swiglu", True):
        raise ConfigError(f"{r.origin}: field 'block_use_swiglu' = false is not supported: "
                          "transformers builds LFM2's MLP gated (w1, w3, w2)")
    attn = Attention(h, hkv, dh, qk_norm="head")
    conv = ShortConv(d, d_conv=r.int("conv_L_cache", 3, kind="count"),
                     conv_bias=r.flag("conv_bias", False))
    if moe:
        dense = MLP(r.int("intermediate_size", 7168), n_mats=3)
        first = r.int("num_dense_layers", 2, kind="layers", minimum=0)
        e, k = _experts(r, n_key="num_experts", defaults=(32, 4))
        experts = MLP(r.int("moe_intermediate_size", 1792), n_mats=3, n_experts=e, top_k=k,
                      router_bias=r.flag("use_expert_bias", True))
        mlps = [dense if i < first else experts for i in range(n)]
    else:
        mlps = [MLP(_lfm2_ff_width(r), n_mats=3)] * n
    layers = [Layers(1, attention=None if _LFM2_BLOCKS[t] else attn,
                     mixer=conv if _LFM2_BLOCKS[t] else None, mlp=mlp, norms=2)
              for t, mlp in zip(types, mlps)]
    kw = _stack(r, d, layers)
    r.read.add("tie_embedding")
    kw["tied"] = r.flag("tie_embedding", r.flag("tie_word_embeddings", True))
    return kw


# ---- Nemotron-NAS (DeciLM: a block shape per layer) --------------------------------------------
#: Keys of a ``block_configs`` entry's parts the reader understands: part -> key -> the value that
#: leaves a Llama block unchanged (``...``: read below). Any other key, or one of these with
#: another value, is refused naming it.
_DECI_KEYS: Mapping[str, Mapping[str, Any]] = {
    "attention": {"n_heads_in_group": ..., "no_op": ..., "replace_with_linear": False,
                  "sparsify": None, "num_sink_tokens": None, "window_length": None,
                  "unshifted_sink": False, "use_prefill_window_in_sink_attention": False,
                  "llama4": None},
    "ffn": {"ffn_mult": ..., "intermediate_size": ..., "no_op": ..., "replace_with_linear": False,
            "sparsify": None, "hidden_act": None, "moe": None},
}


def _deci_ffn_width(ffn_mult: float, d: int) -> int:
    """The MLP width of a DeciLM block from its ``ffn_mult``, as the modeling code computes it
    (vLLM's ``nemotron_nas.py`` ``_ffn_mult_to_intermediate_size``): int(2 ffn_mult d / 3) in
    floating point, rounded up to a multiple of 256.

    >>> [_deci_ffn_width(m, 8192) for m in (0.5, 1.0, 1.3125, 2.625, 3.28125, 5.25)]
    [2816, 5632, 7168, 14336, 17920, 28672]
    """
    width = int(2 * ffn_mult * d / 3)
    return width + (-width) % 256


def _deci_part(r: _Reader, i: int, entry: Any, part: str) -> _Reader:
    """A reader of ``block_configs[i].<part>`` whose errors name that path; keys other than
    :data:`_DECI_KEYS`, or those with a value that changes the block, are refused."""
    where = f"{r.origin}: block_configs[{i}].{part}"
    scope = entry.get(part) if isinstance(entry, Mapping) else None
    if not isinstance(scope, Mapping):
        raise ConfigError(f"{r.origin}: field 'block_configs' entry {i} needs an object "
                          f"'{part}'")
    for key, value in scope.items():
        if key not in _DECI_KEYS[part]:
            if value not in _NEUTRAL:
                raise ConfigError(f"{where}: field '{key}' = {value!r:.60} is not understood "
                                  "by the 'nemotron-nas' reader, and counting without it would "
                                  "describe a different model")
        elif _DECI_KEYS[part][key] is not ... and value != _DECI_KEYS[part][key] \
                and value not in _NEUTRAL:
            raise ConfigError(f"{where}: field '{key}' = {value!r:.60} is not supported: the "
                              "'nemotron-nas' reader reads no-op and Llama blocks only (a "
                              "linear replacement, sinks, windows or sparsity change the count)")
    return _Reader(scope, where, "nemotron-nas")


def _nemotron_nas(r: _Reader) -> dict[str, Any]:
    # DeciLM / Nemotron-NAS (Llama-3.3-Nemotron-Super-49B-v1; vLLM's nemotron_nas.py,
    # DeciLMDecoderLayer): Llama 3's block, one shape per layer from block_configs[i]. Attention,
    # unless attention.no_op: input_layernorm and Llama attention with num_attention_heads query
    # heads of hidden_size / num_attention_heads and num_attention_heads / n_heads_in_group
    # key/value heads (each layer its own). MLP, unless ffn.no_op: post_attention_layernorm and
    # Llama's gated MLP of _deci_ffn_width(ffn_mult) (or ffn.intermediate_size). A no-op part has
    # no norm either. Final norm; head untied unless tie_word_embeddings. The top-level
    # num_key_value_heads and intermediate_size (null in the files) are not read by the model.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) does not divide the hidden "
                          f"size ({d})")
    r.read.update({"num_key_value_heads", "intermediate_size"})
    blocks = r.raw("block_configs")
    if not isinstance(blocks, list) or len(blocks) != n:
        raise ConfigError(f"{r.origin}: field 'block_configs' must be a list of "
                          f"{n} blocks (num_hidden_layers), one per layer")
    attn_bias = r.flag("attention_bias", False)
    mlp_bias = r.flag("mlp_bias", False)
    layers = []
    for i, entry in enumerate(blocks):
        a, f = _deci_part(r, i, entry, "attention"), _deci_part(r, i, entry, "ffn")
        attention = None
        if not a.flag("no_op", False):
            group = a.int("n_heads_in_group", kind="heads")
            if h % group:
                raise ConfigError(f"{a.origin}: field 'n_heads_in_group' ({group}) does not "
                                  f"divide 'num_attention_heads' ({h})")
            attention = Attention(h, h // group, d // h, qkv_bias=attn_bias, o_bias=attn_bias)
        mlp = None
        if not f.flag("no_op", False):
            if f.has("ffn_mult"):
                mult = f.raw("ffn_mult")
                limit, why = LIMITS["width"]
                if isinstance(mult, bool) or not isinstance(mult, (int, float)) \
                        or not 0 < mult < limit:
                    raise ConfigError(f"{f.origin}: field 'ffn_mult' must be a positive number "
                                      f"below {limit:,} ({why}), got {mult!r:.60}")
                width = _deci_ffn_width(mult, d)
                if width > limit:
                    raise ConfigError(f"{f.origin}: field 'ffn_mult' = {mult} makes an MLP "
                                      f"{width:,} wide, beyond the plausibility limit "
                                      f"{limit:,} ({why})")
            else:
                width = f.int("intermediate_size")
            mlp = MLP(width, n_mats=3, bias=mlp_bias)
        if attention is None and mlp is None:
            continue  # an identity block: no weights, no cache, no arithmetic
        layers.append(Layers(1, attention, mlp=mlp,
                             norms=(attention is not None) + (mlp is not None)))
    if not layers:
        raise ConfigError(f"{r.origin}: field 'block_configs' makes every block a no-op")
    return _stack(r, d, layers)


# ---- Qwen3-Next and Qwen3.5 (Gated DeltaNet hybrids) -----------------------------------------
def _qwen3_next_of(moe: bool) -> Callable[[_Reader], dict[str, Any]]:
    """Qwen3-Next (``qwen3_next``) and the language models of Qwen3.5 (``qwen3_5_text``,
    ``qwen3_5_moe_text``): by ``layer_types`` (or every ``full_attention_interval``-th layer)
    a gated full-attention block (Qwen3NextAttention: q/k norms of head_dim, a query
    projection twice as wide whose second half gates the output) or a Gated DeltaNet mixer;
    then an MLP or a mixture of experts with one gated shared expert (Qwen2-MoE's block:
    router d x E without bias, shared_expert, shared_expert_gate d x 1); two RMSNorms per
    block, final norm, untied head. Multi-token-prediction layers (``mtp_num_hidden_layers``),
    which transformers does not build, are reported apart."""
    def read(r: _Reader) -> dict[str, Any]:
        d = r.int("hidden_size")
        n = r.int("num_hidden_layers", kind="layers")
        h, hkv, dh = r.heads(d)
        bias = r.flag("attention_bias", False)
        _restated(r, "attn_output_gate", True, "its full attention always gates its output")
        every = r.int("full_attention_interval", 4, kind="count")
        types = r.str_list("layer_types", n, ("linear_attention", "full_attention")) or [
            "linear_attention" if (i + 1) % every else "full_attention" for i in range(n)]
        gdn = GatedDeltaNet(n_qk_heads=r.int("linear_num_key_heads", kind="heads"),
                            n_v_heads=r.int("linear_num_value_heads", kind="heads"),
                            d_k=r.int("linear_key_head_dim"),
                            d_v=r.int("linear_value_head_dim"),
                            d_conv=r.int("linear_conv_kernel_dim", 4, kind="count"),
                            ssm_bits=_ssm_bits(r, "mamba_ssm_dtype"))
        attn = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head",
                         gate=dh)
        dense = MLP(r.int("intermediate_size")) if not moe or r.has("intermediate_size") \
            else None
        if moe:
            e, k = _experts(r, n_key="num_experts")
            shared = r.int("shared_expert_intermediate_size", 0, minimum=0)
            expert = MLP(r.int("moe_intermediate_size"), n_experts=e, top_k=k,
                         n_shared=1 if shared else 0, d_shared=shared, shared_gate=bool(shared))
            step = r.int("decoder_sparse_step", 1, kind="count")
            only = set(r.int_list("mlp_only_layers", []))
            if only and dense is None:
                raise ConfigError(f"{r.origin}: field 'mlp_only_layers' names dense layers "
                                  "but no 'intermediate_size' gives their width")
        r.read.add("norm_topk_prob")

        def mlp_of(i: int) -> MLP:
            if moe and i not in only and (i + 1) % step == 0:
                return expert
            if dense is None:
                raise ConfigError(f"{r.origin}: layer {i} is dense but no "
                                  "'intermediate_size' gives its width")
            return dense

        layers = [Layers(1, attention=attn if t == "full_attention" else None,
                         mixer=gdn if t == "linear_attention" else None, mlp=mlp_of(i), norms=2)
                  for i, t in enumerate(types)]
        kw = _stack(r, d, layers)
        # MTP (vLLM's qwen3_next_mtp.py; transformers builds none): one module of
        # mtp_num_hidden_layers full-attention blocks with the model's MLP, fc (2d x d),
        # pre_fc_norm_embedding, pre_fc_norm_hidden and norm; embeddings and head shared
        r.refuse("mtp_use_dedicated_embeddings", "an MTP module with its own embeddings is not "
                 "counted")
        n_mtp = r.int("mtp_num_hidden_layers", 0, kind="layers", minimum=0)
        kw["extras"] = _mtp(kw, 1 if n_mtp else 0,
                            [Layers(1, attention=attn, mlp=mlp_of(n), norms=2)] * n_mtp,
                            "Qwen3.5's MTP module (vLLM's layout)", own_embeddings=False,
                            names="mtp.layers")
        return kw
    return read


# ---- Laguna (per-layer attention geometry) -------------------------------------------------
def _laguna(r: _Reader) -> dict[str, Any]:
    # Laguna (transformers' modular_laguna.py): per layer, by `layer_types`, full or sliding
    # attention with its own head count (`num_attention_heads_per_layer`), K/V heads and head_dim
    # shared; q/k norms of head_dim; a per-head output gate g_proj d -> H when `gating` (a
    # softplus); by `mlp_layer_types`, a dense MLP of intermediate_size or a MoE block (router
    # d x E with an e_score_correction_bias Parameter of E, routed experts of
    # moe_intermediate_size, one ungated shared expert); two RMSNorms per layer; untied head.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    heads = r.int_list("num_attention_heads_per_layer", [h] * n, n=n)
    for i, hi in enumerate(heads):
        if hi < 1 or hi % hkv:
            raise ConfigError(f"{r.origin}: field 'num_attention_heads_per_layer' entry {i} "
                              f"({hi}) is not a positive multiple of 'num_key_value_heads'")
    bias = r.flag("attention_bias", False)
    gate = 1 if r.flag("gating", True) else 0
    window = _window(r)
    flags = _window_flags(r, n, "") if window else [False] * n
    kinds = r.str_list("mlp_layer_types", n) or ["sparse"] * n
    if set(kinds) - {"dense", "sparse"}:
        raise ConfigError(f"{r.origin}: field 'mlp_layer_types' has kinds other than 'dense' "
                          "and 'sparse'")
    e, k = _experts(r, n_key="num_experts")
    shared = r.int("shared_expert_intermediate_size", 0, minimum=0)
    moe = MLP(r.int("moe_intermediate_size"), n_experts=e, top_k=k, n_shared=1 if shared else 0,
              d_shared=shared, router_bias=True)
    dense = MLP(r.int("intermediate_size"))
    r.read.update({"moe_apply_router_weight_on_input", "moe_routed_scaling_factor",
                   "partial_rotary_factor", "use_bidirectional_attention"})
    return _decoder(
        r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
        trained_context=r.int("max_position_embeddings", None, kind="context"),
        attention=lambda i: Attention(heads[i], hkv, dh, window=window if flags[i] else None,
                                      qkv_bias=bias, o_bias=bias, qk_norm="head", gate=gate),
        mlp=lambda i: moe if kinds[i] == "sparse" else dense, d_model=d)


# ---- Step 3.7 (sliding layers, a per-head output gate, a shared expert, MTP) ------------------
def _one_of(r: _Reader, keys: tuple[str, ...], default: Any, kind: str) -> int:
    """The integer the config gives under any of ``keys`` (the family's aliases of one field),
    ``default`` when none is given; two aliases that disagree are an error naming both."""
    given = [(key, r.int(key, None, kind=kind)) for key in keys]
    given = [(key, v) for key, v in given if v is not None]
    if any(v != given[0][1] for _, v in given):
        (a, va), (b, vb) = given[0], next((k, v) for k, v in given if v != given[0][1])
        raise ConfigError(f"{r.origin}: fields '{a}' ({va}) and '{b}' ({vb}) give one size "
                          "two values")
    if given:
        return given[0][1]
    if default is ...:
        raise ConfigError(f"{r.origin}: missing field '{keys[0]}'")
    return default


def _per_layer(r: _Reader, key: str, n: int, mtp: int, kinds: tuple[str, ...]) -> list[str] | None:
    """A per-layer list of ``n`` kinds, or None; a hub file's list padded with one entry per
    MTP layer (n + mtp entries) is trimmed to the decoder's n, as Step3p7TextConfig does."""
    v = r.raw(key)
    if isinstance(v, list) and mtp and len(v) == n + mtp:
        return r.str_list(key, n + mtp, kinds)[:n]  # type: ignore[index]
    return r.str_list(key, n, kinds)


def _step3p7(r: _Reader) -> dict[str, Any]:
    # Step3p7TextConfig / Step3p7TextModel (transformers 5.24.0, models/step3p7): per layer q, k,
    # v, o (biases if attention_bias), q_norm and k_norm of head_dim, g_proj d -> H (a sigmoid
    # gate per head when `gating` is true or "per-head", else d -> H d_head); sliding or full
    # attention by `layer_types` (sliding layers keep `sliding_window` tokens and may have
    # their own query heads, `num_sliding_attention_heads` or the hub's
    # `attention_other_setting`); by `mlp_layer_types` (else `moe_layers_enum`, else layers
    # 3..L-1) a dense MLP of intermediate_size or a MoE block: router d x E with its
    # e_score_correction_bias buffer of E, E routed experts of moe_intermediate_size, one
    # shared expert of share_expert_dim (no gate); two RMSNorms per layer, final norm, untied
    # head. `num_nextn_predict_layers` MTP layers are not built by transformers: reported apart.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    mtp = _one_of(r, ("num_nextn_predict_layers", "num_mtp_layers"), 0, "layers")
    bias = r.flag("attention_bias", False)
    r.refuse("mlp_bias", "biases on Step 3.7's dense and shared-expert MLPs are not counted")
    r.refuse("per_layer_config", "an explicit per-layer geometry is not read")
    _restated(r, "use_qk_norm", True, "its attention always has q/k norms of head_dim")
    _restated(r, "use_head_wise_attn_gate", True, "its attention always has an output gate")
    gating = r.raw("gating", True)
    if gating not in (True, False, "per-head"):
        raise ConfigError(f"{r.origin}: field 'gating' must be true, false or 'per-head', got "
                          f"{gating!r:.40}")
    gate = 1 if gating in (True, "per-head") else dh
    other = r.raw("attention_other_setting", {})
    if not isinstance(other, dict):
        raise ConfigError(f"{r.origin}: field 'attention_other_setting' must be an object")
    for key, same in (("num_attention_groups", hkv), ("head_dim", dh)):
        if other.get(key, same) != same:
            raise ConfigError(f"{r.origin}: field 'attention_other_setting.{key}' = "
                              f"{other[key]!r:.40} is not supported: Step3p7Attention builds "
                              "sliding layers with the model's key/value heads and head width")
    h_swa = r.int("num_sliding_attention_heads", None, kind="heads")
    if h_swa is None:
        h_swa = other.get("num_attention_heads", h)
        if isinstance(h_swa, bool) or not isinstance(h_swa, int) or h_swa < 1:
            raise ConfigError(f"{r.origin}: field 'attention_other_setting.num_attention_heads' "
                              "must be a positive integer")
    if h_swa % hkv:
        raise ConfigError(f"{r.origin}: the sliding layers' {h_swa} query heads are not a "
                          f"multiple of 'num_key_value_heads' ({hkv})")
    types = _per_layer(r, "layer_types", n, mtp, ("full_attention", "sliding_attention")) \
        or ["full_attention"] * n
    window = _window(r)
    if window is None and "sliding_attention" in types:
        raise ConfigError(f"{r.origin}: field 'layer_types' has sliding layers but no "
                          "'sliding_window' gives their window")
    kinds = _per_layer(r, "mlp_layer_types", n, mtp, ("dense", "sparse"))
    if kinds is None:
        enum = r.raw("moe_layers_enum")
        if enum is None:
            moe_at = set(range(3, n))
        else:
            items = enum.split(",") if isinstance(enum, str) else enum
            try:
                moe_at = {int(i) for i in items if str(i).strip()}
            except (TypeError, ValueError):
                raise ConfigError(f"{r.origin}: field 'moe_layers_enum' must list layer "
                                  "indices") from None
        kinds = ["sparse" if i in moe_at else "dense" for i in range(n)]
    first = r.int("first_k_dense_replace", None, kind="layers", minimum=0)
    if first is not None and kinds != ["dense"] * first + ["sparse"] * (n - first):
        raise ConfigError(f"{r.origin}: field 'first_k_dense_replace' ({first}) contradicts "
                          "the dense layers Step3p7TextConfig derives (mlp_layer_types, "
                          "moe_layers_enum, or layers 0-2)")
    e = _one_of(r, ("n_routed_experts", "moe_num_experts", "num_experts", "num_local_experts"),
                288, "experts")
    k = _one_of(r, ("num_experts_per_tok", "moe_top_k"), 8, "experts")
    if k > e:
        raise ConfigError(f"{r.origin}: {k} experts per token exceed the {e} routed experts")
    if r.int("n_shared_experts", 1, kind="experts", minimum=0) != 1:
        raise ConfigError(f"{r.origin}: field 'n_shared_experts' must be 1: every Step 3.7 MoE "
                          "block has one shared expert")
    moe = MLP(r.int("moe_intermediate_size", 1280), n_experts=e, top_k=k, n_shared=1,
              d_shared=_one_of(r, ("share_expert_dim", "share_expert_dims"), 1280, "width"),
              router_bias=r.flag("use_moe_router_bias", True))
    dense = MLP(r.int("intermediate_size"))
    r.read.update({"moe_router_scaling_factor", "swiglu_limits", "swiglu_limits_shared",
                   "partial_rotary_factors", "query_pre_attn_scalar", "scoring_func",
                   "use_rope_layers", "yarn_only_types", "norm_expert_weight"})
    full = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias, qk_norm="head", gate=gate)
    swa = Attention(h_swa, hkv, dh, window=window, qkv_bias=bias, o_bias=bias, qk_norm="head",
                    gate=gate)
    kw = _decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
                  trained_context=r.int("max_position_embeddings", None, kind="context"),
                  attention=lambda i: swa if types[i] == "sliding_attention" else full,
                  mlp=lambda i: moe if kinds[i] == "sparse" else dense, d_model=d)
    # each MTP layer (checkpoint layers L..L+2; an MLX port, search index file id 45708974791,
    # and the 17 tensors per layer a pruned copy's card counts): enorm, hnorm, eh_proj, one
    # block of sliding attention and a dense MLP, shared_head.norm and its own output head
    kw["extras"] = _mtp(kw, mtp, [Layers(1, swa, mlp=dense, norms=2)],
                        "Step 3.7's MTP layers: a sliding-attention block with a dense MLP and "
                        "an output head each", own_embeddings=False, own_head=True)
    return kw


# ---- Step3 (multi-matrix factorization attention: a low-rank query, one key/value head) --------
def _step3_moe_layers(r: _Reader, n: int) -> set[int]:
    """The MoE layers of a Step3 file: ``moe_layers_enum``, comma-separated indices (the Hub's
    form, which vLLM's ``Step3TextDecoderLayer`` splits) or a list. Required: without it vLLM's
    decoder would split Step3TextConfig's default tuple, so no default is assumed."""
    v = r.raw("moe_layers_enum")
    if v is None:
        raise ConfigError(f"{r.origin}: missing field 'moe_layers_enum' (which layers are "
                          "mixtures of experts)")
    items = v.split(",") if isinstance(v, str) else v
    try:
        at = [int(str(i).strip()) for i in items if str(i).strip()]
    except (TypeError, ValueError):
        raise ConfigError(f"{r.origin}: field 'moe_layers_enum' must list layer indices, got "
                          f"{v!r:.60}") from None
    if any(i < 0 or i >= n for i in at) or len(set(at)) != len(at):
        raise ConfigError(f"{r.origin}: field 'moe_layers_enum' must list distinct layer "
                          f"indices below 'num_hidden_layers' ({n})")
    return set(at)


def _step3_text(r: _Reader) -> dict[str, Any]:
    # Step3TextForCausalLM (vLLM vllm/model_executor/models/step3_text.py @
    # 0169d3962ccac3798b508b16f74aafb8106d19fa; Step3TextConfig in
    # vllm/transformers_utils/configs/step3_vl.py @ fb6c0501838195b3f6d715e5a1cf0be42546d27a;
    # transformers 5.24.0 has no step3 model): per layer one ReplicatedLinear qkv_proj
    # d -> share_q_dim + 2 head_dim (no bias), inter_norm RMSNorm(share_q_dim), wq
    # share_q_dim -> H head_dim, o_proj H head_dim -> d; one key/value head (vLLM refuses
    # another); on the layers moe_layers_enum lists, a router d x E (no bias, no correction
    # bias), E experts of moe_intermediate_size (gated SiLU) and one shared expert of
    # share_expert_dim (no gate); elsewhere a gated MLP of intermediate_size; two RMSNorms a
    # layer, a final norm, an untied head (ParallelLMHead).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    for key in ("num_attention_groups", "num_key_value_heads"):
        if r.int(key, 1, kind="heads") != 1:
            raise ConfigError(f"{r.origin}: field '{key}' must be 1: Step3's attention has "
                              "one key/value head (vLLM's Step3TextAttention refuses another)")
    dh = r.int("head_dim", 256)  # Step3TextConfig's default
    # the query's rank: Step3TextConfig's default 2048 when absent; null: vLLM's q_size falls
    # back to head_dim
    rank = r.int("share_q_dim", dh) if "share_q_dim" in r.cfg else 2048
    r.read.add("share_q_dim")
    if r.raw("hidden_act", "silu") != "silu":
        raise ConfigError(f"{r.origin}: field 'hidden_act' must be 'silu' (vLLM's Step3TextMLP "
                          "refuses another)")
    r.refuse("attention_bias", "Step3's projections have no biases")
    r.refuse("mlp_bias", "Step3's MLPs have no biases")
    if r.flag("tie_word_embeddings", False):
        raise ConfigError(f"{r.origin}: field 'tie_word_embeddings' = true is not supported: "
                          "Step3TextForCausalLM builds its own output head")
    moe_at = _step3_moe_layers(r, n)
    moe = dense = None
    if moe_at:
        e = r.int("moe_num_experts", kind="experts")
        k = r.int("moe_top_k", kind="experts")
        if k > e:
            raise ConfigError(f"{r.origin}: field 'moe_top_k' ({k}) exceeds 'moe_num_experts' "
                              f"({e})")
        moe = MLP(r.int("moe_intermediate_size"), n_experts=e, top_k=k, n_shared=1,
                  d_shared=r.int("share_expert_dim"))
    if len(moe_at) < n:
        dense = MLP(r.int("intermediate_size"))
    context = r.int("max_position_embedding", None, kind="context")
    if context is None:
        context = r.int("max_seq_len", None, kind="context")
    r.read.update({"max_seq_len", "max_position_embeddings", "norm_expert_weight"})
    attn = Attention(h, 1, dh, q_lora_rank=rank)
    return _decoder(r, n_layers=n, norms=2, tied=False, trained_context=context,
                    attention=lambda i: attn, mlp=lambda i: moe if i in moe_at else dense,
                    d_model=d)


# ---- MiniCPM3 (latent attention with muP scalings, tied embeddings) ---------------------------
def _minicpm3(r: _Reader) -> dict[str, Any]:
    # MiniCPM3Config / MiniCPM3ForCausalLM (transformers 5.24.0, models/minicpm3): DeepSeek-V2's
    # latent attention (q_a_proj d -> q_lora_rank, q_a_layernorm, q_b_proj -> H (nope + rope);
    # a full q_proj where q_lora_rank is null; kv_a_proj_with_mqa d -> kv_lora_rank + rope,
    # kv_a_layernorm, kv_b_proj -> H (nope + v); o_proj H v -> d), v_head_dim d / H unless
    # given; a gated MLP of intermediate_size; two RMSNorms a block, a final norm; the head tied
    # by default. scale_emb, scale_depth and dim_model_base scale activations (muP): no
    # parameter. head_dim is overwritten with qk_rope_head_dim by the config class: no count.
    r.refuse("attention_bias", "biases on MiniCPM3's q_a, kv_a and output projections are not "
                               "counted")
    r.refuse("mlp_bias", "biases on MiniCPM3's MLP are not counted")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h = r.int("num_attention_heads", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) does not divide the hidden "
                          f"size ({d})")
    r.int("num_key_value_heads", h, kind="heads")  # latent attention forms K and V per head
    nope, rope = r.int("qk_nope_head_dim", 64), r.int("qk_rope_head_dim", 32)
    # absent: MiniCPM3Config's 768; null: a full-rank query projection
    rank = r.int("q_lora_rank", 0, minimum=0) if "q_lora_rank" in r.cfg else 768
    attn = Attention(h, h, nope + rope, kv_lora_rank=r.int("kv_lora_rank", 256),
                     q_lora_rank=rank, d_nope=nope, d_rope=rope,
                     d_v=r.int("v_head_dim", d // h))
    r.read.update({"head_dim", "scale_emb", "scale_depth", "dim_model_base"})
    return _decoder(r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", True),
                    trained_context=r.int("max_position_embeddings", None, kind="context"),
                    attention=lambda i: attn, mlp=lambda i: MLP(r.int("intermediate_size")),
                    d_model=d)


# ---- MiniCPM 1, 2 and 4 (Llama's block with muP scalings; MiniCPM-MoE's experts) -------------
def _minicpm(r: _Reader) -> dict[str, Any]:
    # OpenBMB's remote MiniCPMForCausalLM (transformers 5.24.0 has no minicpm; read by hand in
    # vLLM's vllm/model_executor/models/minicpm.py @ 00db0119c37674b956dec4228d4e571549020976):
    # q, k, v, o of d / H per head (biases with attention_bias), GQA by num_key_value_heads; a
    # gated SiLU MLP of intermediate_size, or with num_experts a router d x E (no bias) and E
    # experts of intermediate_size, num_experts_per_tok a token; two RMSNorms a block, a final
    # norm; the head tied unless tie_word_embeddings is false (MiniCPMConfig's default true).
    # scale_emb, scale_depth, dim_model_base (muP) scale activations: no parameter.
    r.refuse("sparse_config", "MiniCPM4's InfLLM v2 sparse attention (a top-k of key blocks "
                              "chosen per token from compressed keys) is not modelled")
    r.refuse("use_sliding_window", "windowed MiniCPM layers are not modelled")
    r.refuse("mlp_bias", "biases on MiniCPM's MLP are not counted")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d, head_dim_key="kv_channels")
    if dh * h != d:
        raise ConfigError(f"{r.origin}: field 'kv_channels' ({dh}) is not supported: MiniCPM's "
                          "attention heads are d / H wide")
    if r.raw("hidden_act", "silu") != "silu":
        raise ConfigError(f"{r.origin}: field 'hidden_act' must be 'silu' (vLLM's MiniCPMMLP "
                          "refuses another; ProSparse's fatrelu is not read)")
    bias = r.flag("attention_bias", False)
    width = r.int("intermediate_size")
    e = r.int("num_experts", 0, kind="experts", minimum=0)
    if e:
        k = r.int("num_experts_per_tok", kind="experts")
        if k > e:
            raise ConfigError(f"{r.origin}: field 'num_experts_per_tok' ({k}) exceeds "
                              f"'num_experts' ({e})")
        mlp = MLP(width, n_experts=e, top_k=k)
    else:
        mlp = MLP(width)
    attn = Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias)
    r.read.update({"scale_emb", "scale_depth", "dim_model_base"})
    return _same_blocks(r, d, n, attn, mlp, norms=2, tied_default=True)


# ---- InternLM3 (Llama's block; biases by qkv_bias and bias) -------------------------------------
def _internlm3(r: _Reader) -> dict[str, Any]:
    # InternLM3Config (transformers 5.24.0, models/internlm3: the Llama implementation): q, k, v,
    # o of head_dim (default d / H), GQA; a gated MLP; two RMSNorms a block, a final norm; the
    # head untied by default. The Hub file's `qkv_bias` and `bias` are aliases of
    # attention_bias (q, k, v and o) and mlp_bias (gate, up, down), which the config class
    # requires equal.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    biases = {}
    for key, alias in (("attention_bias", "qkv_bias"), ("mlp_bias", "bias")):
        given = {k: r.flag(k, False) for k in (key, alias) if r.cfg.get(k) is not None}
        if len(set(given.values())) > 1:
            raise ConfigError(f"{r.origin}: fields '{key}' and '{alias}' disagree")
        biases[key] = any(given.values())
        r.read.update({key, alias})
    if biases["attention_bias"] != biases["mlp_bias"]:
        raise ConfigError(f"{r.origin}: field 'qkv_bias' ({biases['attention_bias']}) differs "
                          f"from 'bias' ({biases['mlp_bias']}): InternLM3Config refuses it "
                          "(the Llama implementation biases q, k, v, o and the MLP alike)")
    b = biases["attention_bias"]
    attn = Attention(h, hkv, dh, qkv_bias=b, o_bias=b)
    mlp = MLP(r.int("intermediate_size"), bias=b)
    return _same_blocks(r, d, n, attn, mlp, norms=2)


# ---- MiMo-V2-Flash (windowed layers with their own heads, narrower values) --------------------
def _mimo_v2_flash(r: _Reader) -> dict[str, Any]:
    # MiMoV2FlashAttention (transformers-style ports, index file ids 53502381580, 53782473961,
    # 52549528620): by `hybrid_layer_pattern`, 1 a sliding-window layer with its own heads
    # (swa_num_attention_heads, swa_num_key_value_heads, swa_head_dim, swa_v_head_dim), 0 a
    # full-attention layer; q and k of head_dim, v of v_head_dim, o from H v_head_dim, no
    # q/k norms; an attention-sink logit per head where `add_*_attention_sink_bias`; by
    # `moe_layer_freq`, a dense MLP or DeepSeek-V3's MoE block (router d x E and its
    # e_score_correction_bias buffer, routed experts, shared experts if any).
    r.refuse("attention_bias", "biases on MiMo-V2-Flash's projections are not counted")
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    pattern = r.int_list("hybrid_layer_pattern", [0] * n, n=n)
    if set(pattern) - {0, 1}:
        raise ConfigError(f"{r.origin}: field 'hybrid_layer_pattern' must hold 0 (full) and 1 "
                          "(sliding window) per layer")
    window = _window(r)
    for key in ("sliding_window_size", "attention_chunk_size"):
        if r.int(key, window, kind="context") != window:
            raise ConfigError(f"{r.origin}: field '{key}' differs from 'sliding_window': only "
                              "one window length is modelled")

    def attention(prefix: str, sinks: bool, win: int | None) -> Attention:
        h = r.int(prefix + "num_attention_heads", kind="heads")
        hkv = r.int(prefix + "num_key_value_heads", kind="heads")
        if h % hkv:
            raise ConfigError(f"{r.origin}: field '{prefix}num_key_value_heads' ({hkv}) does "
                              f"not divide '{prefix}num_attention_heads' ({h})")
        return Attention(h, hkv, r.int(prefix + "head_dim"), window=win, sinks=sinks,
                         d_v=r.int(prefix + "v_head_dim"))
    full = attention("", r.flag("add_full_attention_sink_bias", False), None)
    swa = attention("swa_", r.flag("add_swa_attention_sink_bias", False), window)
    moe_at = r.int_list("moe_layer_freq", [1] * n, n=n)
    e, k = _experts(r, n_key="n_routed_experts")
    shared = r.int("n_shared_experts", 0, kind="experts", minimum=0)
    width = r.int("moe_intermediate_size")
    moe = MLP(width, n_experts=e, top_k=k, n_shared=1 if shared else 0, d_shared=width * shared,
              router_bias=True)
    dense = MLP(r.int("intermediate_size"))
    r.read.update({"topk_method", "swa_rope_theta", "partial_rotary_factor",
                   "attention_value_scale"})
    return _decoder(
        r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
        trained_context=r.int("max_position_embeddings", None, kind="context"),
        attention=lambda i: swa if pattern[i] else full,
        mlp=lambda i: moe if moe_at[i] else dense, d_model=d)


# ---- multimodal wrappers ------------------------------------------------------------------------
def _wrapped_text(r: _Reader, family: str, key: str = "text_config") -> dict[str, Any]:
    """The language model of a multimodal file, read by its family's reader. What decodes a
    token is this model; the wrapper's other towers are added as extras. A tie of the output
    head stated at the top level (Qwen3-VL's files) applies to the language model."""
    text = r.raw(key, None)
    if not isinstance(text, dict):
        raise ConfigError(f"{r.origin}: field '{key}' must be an object holding the language "
                          "model's configuration")
    inner = dict(text)
    if "tie_word_embeddings" in r.cfg:
        inner["tie_word_embeddings"] = r.flag("tie_word_embeddings", False)
    tr = _Reader(inner, f"{r.origin}: {key}", family)
    kw = FAMILIES[family](tr)
    tr.check_unread()
    return kw


def _qwen3_vl_vision_params(r: _Reader, d_text: int) -> int:
    """Parameters of Qwen3-VL's vision encoder and its mergers (Qwen3VLVisionModel): a
    Conv3d patch embedding (c x t x p x p -> h, with bias), a learned position table, ``depth``
    blocks (LayerNorms with bias, fused qkv and proj with biases, fc1/fc2 with biases), a
    merger (LayerNorm over h, then (h m^2) -> (h m^2) -> out with biases), and one more merger
    per deepstack index, whose LayerNorm is over h m^2."""
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    depth = r.int("depth", kind="layers")
    r.int("num_heads", kind="heads")
    c = r.int("in_channels", 3, kind="count")
    t = r.int("temporal_patch_size", kind="count")
    p = r.int("patch_size", kind="count")
    m = r.int("spatial_merge_size", kind="count")
    n_pos = r.int("num_position_embeddings", kind="context")
    out = r.int("out_hidden_size")
    if out != d_text:
        raise ConfigError(f"{r.origin}: field 'out_hidden_size' ({out}) differs from the "
                          f"language model's hidden size ({d_text})")
    deep = r.int_list("deepstack_visual_indexes", [])
    hm = h * m * m
    embeddings = c * t * p * p * h + h + n_pos * h
    merger = (hm * hm + hm) + (out * hm + out)
    return (embeddings + depth * _vit_block_params(h, inter) + (2 * h + merger)
            + len(deep) * (2 * hm + merger))


def _qwen3_vl_of(family: str, note: str = "Qwen3-VL's vision encoder, merger and deepstack "
                 "mergers") -> Callable[[_Reader], dict[str, Any]]:
    def read(r: _Reader) -> dict[str, Any]:
        kw = _wrapped_text(r, family)
        vision = r.raw("vision_config", None)
        if not isinstance(vision, dict):
            raise ConfigError(f"{r.origin}: field 'vision_config' must be an object")
        vr = _Reader(vision, r.origin + ": vision_config", "qwen3_vl_vision")
        kw["extras"] = (*kw.get("extras", ()), Extra("vision tower and mergers",
                        _qwen3_vl_vision_params(vr, kw["d_model"]), True, note))
        return kw
    return read


def _moonvit_grid(r: _Reader, h: int, d_text: int) -> tuple[int, int]:
    """What Kimi's MoonViT towers share: the learned position table's rows (height x width)
    and the width of a merged patch (h k_h k_w, the projector's input), the tower feeding the
    language model's width."""
    if r.int("mm_hidden_size", h) != h or r.int("text_hidden_size", d_text) != d_text:
        raise ConfigError(f"{r.origin}: fields 'mm_hidden_size' and 'text_hidden_size' must be "
                          "the tower's and the language model's widths")
    merge = r.int_list("merge_kernel_size", [2, 2])
    if len(merge) != 2 or min(merge) < 1:
        raise ConfigError(f"{r.origin}: field 'merge_kernel_size' must be two positive sizes")
    positions = r.int("init_pos_emb_height", kind="count") * r.int("init_pos_emb_width",
                                                                    kind="count")
    return positions, h * merge[0] * merge[1]


def _moonvit_params(r: _Reader, d_text: int) -> int:
    """Parameters of Kimi K2.5's vision tower (MoonViT) and its patch-merger projector: a
    Conv2d patch embedding (3 p p -> h, with bias), a learned height x width x h position table
    (the temporal one is fixed, not a parameter), ViT blocks, a final LayerNorm; the projector
    a LayerNorm over h, then (h k_h k_w) -> (h k_h k_w) -> the text width, with biases."""
    h = r.int("vt_hidden_size")
    inter = r.int("vt_intermediate_size")
    n = r.int("vt_num_hidden_layers", kind="layers")
    r.int("vt_num_attention_heads", kind="heads")
    p = r.int("patch_size", kind="count")
    for key, known in (("pos_emb_type", "divided_fixed"), ("mm_projector_type", "patchmerger")):
        if r.raw(key, known) != known:
            raise ConfigError(f"{r.origin}: field '{key}' = {r.raw(key)!r:.40} is not counted "
                              f"(the 'kimi_k25' reader knows {known!r})")
    r.read.add("merge_type")  # temporal pooling: no parameters
    positions, hm = _moonvit_grid(r, h, d_text)
    tower = 3 * p * p * h + h + positions * h + n * _vit_block_params(h, inter) + 2 * h
    return tower + 2 * h + (hm * hm + hm) + (d_text * hm + d_text)


def _moonvit3d_params(r: _Reader, d_text: int) -> int:
    """Parameters of Kimi K3's vision tower (MoonViT3d) and its PatchMergerV2 projector: a
    patch embedding 3 p p -> h without bias, a learned height x width x h position table (the
    temporal one is fixed), blocks of RMSNorm, fused qkv h -> 3 q (q = ``qkv_hidden_size``), an
    output projection q -> h and an MLP h -> inter -> h, all without biases; a final RMSNorm;
    the projector (h k_h k_w) -> (h k_h k_w) -> the text width without biases, then an RMSNorm
    of the text width."""
    h = r.int("vt_hidden_size")
    inter = r.int("vt_intermediate_size")
    n = r.int("vt_num_hidden_layers", kind="layers")
    heads = r.int("vt_num_attention_heads", kind="heads")
    q = r.int("qkv_hidden_size", h)
    if q % heads:
        raise ConfigError(f"{r.origin}: field 'qkv_hidden_size' ({q}) must be a multiple of "
                          f"'vt_num_attention_heads' ({heads})")
    p = r.int("patch_size", kind="count")
    for key, known in (("pos_emb_type", "divided_fixed"), ("mm_projector_type", "patchmergerv2"),
                       ("norm_type", "rmsnorm"), ("mlp_type", "mlp2"),
                       ("merge_type", "sd2_tpool")):
        if r.raw(key, known) != known:
            raise ConfigError(f"{r.origin}: field '{key}' = {r.raw(key)!r:.40} is not counted "
                              f"(the 'kimi_k3' reader knows {known!r})")
    for key in ("attn_bias", "linear_bias", "patch_embed_proj_bias"):
        if r.flag(key, False):
            raise ConfigError(f"{r.origin}: field '{key}' = true is not counted (Kimi K3's "
                              "tower has no biases)")
    r.int("init_pos_emb_time", 4, kind="count")  # the fixed temporal table: no parameters
    positions, hm = _moonvit_grid(r, h, d_text)
    block = 2 * h + h * 3 * q + q * h + 2 * h * inter
    return 3 * p * p * h + positions * h + n * block + h + hm * hm + hm * d_text + d_text


def _kimi_k3(r: _Reader) -> dict[str, Any]:
    # KimiK3: a kimi_linear language model in text_config (Kimi delta attention with a
    # full-rank output gate, gated MLA, Stable LatentMoE, attention residuals; FAMILIES.md
    # section 14.24), MoonViT3d and a PatchMergerV2 projector in vision_config.
    kw = _wrapped_text(r, "kimi_linear")
    vr = _vision_reader(r, "kimi_k3_vision")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and projector", _moonvit3d_params(vr, kw["d_model"]),
                          True, "Kimi K3's MoonViT3d encoder and PatchMergerV2 projector"))
    return kw


def _kimi_k25(r: _Reader) -> dict[str, Any]:
    # KimiK25: a Kimi K2 (DeepSeek-V3 layout) language model in text_config, MoonViT and a
    # patch-merger projector in vision_config.
    kw = _wrapped_text(r, "deepseek_v3")
    vr = _vision_reader(r, "kimi_k25_vision")
    kw["extras"] += (Extra("vision tower and projector", _moonvit_params(vr, kw["d_model"]),
                           True, "Kimi K2.5's MoonViT encoder and patch-merger projector"),)
    return kw



# ---- GLM-4.5V / GLM-4.6V (glm4v_moe) -----------------------------------------------------------
def _glm4v_moe_text(r: _Reader) -> dict[str, Any]:
    # Glm4vMoeTextModel (transformers 5.24.0 models/glm4v_moe/modeling_glm4v_moe.py): GLM-4.5's
    # block as the glm4_moe reader counts it (q/k/v biases, o without; leading dense blocks; 128
    # routed experts, one shared MLP, the router and its e_score_correction_bias), but its
    # attention builds no q_norm or k_norm whatever use_qk_norm says, and the class builds no
    # multi-token-prediction layer (it drops a checkpoint's layer 46 on load; GLM-4.5V's
    # checkpoint stores none). Both keys are refused by name when set; the rotary sections of
    # the 3D position (mrope_section) have no weights.
    r.refuse("use_qk_norm", "Glm4vMoeTextAttention builds no q/k norms")
    r.refuse("num_nextn_predict_layers", "Glm4vMoeTextModel builds no multi-token prediction "
             "layer and GLM-4.5V's checkpoint stores none")
    r.raw("rope_parameters")  # rope theta, partial factor and mrope sections: no parameters
    return _glm4_moe(r)


def _aliased(r: _Reader, key: str, alias: str, kind: str) -> int:
    """An integer a config class reads under two names (``key`` and its attribute-map
    ``alias``): either one, the same value if both; two values are an error naming both."""
    a, b = r.int(key, None, kind=kind), r.int(alias, None, kind=kind)
    if a is not None and b is not None and a != b:
        raise ConfigError(f"{r.origin}: fields '{key}' ({a}) and '{alias}' ({b}) name the same "
                          "size and disagree")
    v = a if a is not None else b
    if v is None:
        raise ConfigError(f"{r.origin}: missing field '{key}'")
    return v


def _vision_depth(r: _Reader) -> tuple[int, int]:
    """A Qwen2-VL-style tower's width and depth: ``depth`` and ``num_heads``, which the config
    classes' attribute_map also reads as ``num_hidden_layers`` and ``num_attention_heads``
    (either spelling; two that disagree are refused), the heads dividing ``hidden_size``."""
    h = r.int("hidden_size")
    depth, heads = (_aliased(r, key, alias, kind) for key, alias, kind in (
        ("depth", "num_hidden_layers", "layers"), ("num_heads", "num_attention_heads", "heads")))
    if h % heads:
        raise ConfigError(f"{r.origin}: field 'num_heads' ({heads}) does not divide "
                          f"'hidden_size' ({h})")
    return h, depth


def _glm4v_vision_params(r: _Reader, d_text: int) -> int:
    """Parameters of GLM-4.5V's vision encoder and merger (Glm4vMoeVisionModel): a learned
    position table of (image_size / patch_size)^2 rows of h; a Conv3d patch embedding
    (c t p p -> h, with bias); ``depth`` blocks of two RMSNorms, a fused qkv h -> 3h (biases iff
    ``attention_bias``), an output projection h -> h and a gated MLP h -> o -> h (o =
    ``out_hidden_size``), all without biases; an RMSNorm after the blocks, a Conv2d
    downsample (h m m -> o, with bias) and an RMSNorm after the convolution; the merger: o -> o,
    a LayerNorm with bias, and a gated MLP o -> ``intermediate_size`` -> o without biases.

    >>> _glm4v_vision_params(_Reader({"hidden_size": 1536, "depth": 24, "num_heads": 12,
    ...     "out_hidden_size": 4096, "intermediate_size": 10944, "image_size": 336,
    ...     "patch_size": 14, "temporal_patch_size": 2, "spatial_merge_size": 2}, "v", "v"), 4096)
    858681856
    """
    h, depth = _vision_depth(r)
    out = r.int("out_hidden_size")
    if out != d_text:
        raise ConfigError(f"{r.origin}: field 'out_hidden_size' ({out}) differs from the "
                          f"language model's hidden size ({d_text})")
    inter = r.int("intermediate_size")
    c = r.int("in_channels", 3, kind="count")
    t = r.int("temporal_patch_size", 2, kind="count")
    p = r.int("patch_size", 14, kind="count")
    m = r.int("spatial_merge_size", 2, kind="count")
    image = r.int("image_size", 336)
    bias = r.flag("attention_bias", False)
    r.raw("hidden_act")  # the MLPs' activation: no parameters
    positions = (image // p) ** 2
    block = 2 * h + h * 3 * h + (3 * h if bias else 0) + h * h + 3 * h * out
    merger = out * out + 2 * out + 3 * out * inter
    return (positions * h + c * t * p * p * h + h + depth * block + h
            + h * m * m * out + out + h + merger)


def _glm4v_moe(r: _Reader) -> dict[str, Any]:
    # Glm4vMoeForConditionalGeneration: the language model in text_config (glm4v_moe_text, read
    # above), the vision encoder and merger in vision_config; the output head is tied when
    # either the wrapper's or the language model's tie_word_embeddings says so (Glm4vMoeConfig
    # sets the wrapper's from the text config's true).
    text = r.raw("text_config", None)
    tied = r.flag("tie_word_embeddings", False) or (
        isinstance(text, dict) and text.get("tie_word_embeddings") is True)
    wr = _Reader({**r.cfg, "tie_word_embeddings": tied}, r.origin, r.family)
    kw = _wrapped_text(wr, "glm4v_moe_text")
    r.read |= wr.read
    vr = _vision_reader(r, "glm4v_moe_vision")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and merger", _glm4v_vision_params(vr, kw["d_model"]),
                          True, "GLM-4.5V's vision encoder, downsampling convolution and merger"))
    vr.check_unread()
    return kw



# ---- ERNIE-4.5-VL (ernie4_5_vl_moe) ------------------------------------------------------------
#: transformers' Ernie4_5_VLMoeTextConfig defaults (configuration_ernie4_5_vl_moe.py in
#: transformers 5.24.0, whose docstring names baidu/ERNIE-4.5-VL-28B-A3B-PT) for the keys that
#: size the language model; mlp_layer_types defaults to one dense layer, then mixtures.
#: They are the text model's (ERNIE4_5_MOE_DEFAULTS) with two expert widths and no placement keys.
ERNIE4_5_VL_TEXT_DEFAULTS: Mapping[str, Any] = {
    **{k: v for k, v in ERNIE4_5_MOE_DEFAULTS.items() if not k.startswith("moe_layer_")},
    "moe_intermediate_size": [1536, 512],
}


def _ernie4_5_vl_moe_text(r: _Reader) -> dict[str, Any]:
    # Ernie4_5_VLMoeTextModel (transformers 5.24.0 modeling_ernie4_5_vl_moe.py): ERNIE 4.5's
    # attention (q/k/v/o, biases iff use_bias, refused as the ernie4_5_moe reader refuses them),
    # two RMSNorms a block, a dense MLP where mlp_layer_types says "dense", else
    # Ernie4_5_VLMoeMoeBlock: a text pool (text_moe: a router d x E in fp32 and its
    # e_score_correction_bias of E, E experts of moe_intermediate_size[0]), a vision pool
    # (vision_moe: its own router and bias, E experts of moe_intermediate_size[1]) and one
    # shared MLP of moe_num_shared_experts x moe_intermediate_size[0] that every token runs. A
    # token uses the pool of its modality (moe_mm_token_type_ids): the library's convention is a
    # text token's, as every generated token is text, so the text pool is the layer's mixture
    # and the vision pools are an extra counted in the total and read by no generated token.
    inner = _defaulted(r.cfg, ERNIE4_5_VL_TEXT_DEFAULTS, r.origin, r.family)
    d, n, attn = _ernie_attention(inner)
    e = _aliased(inner, "moe_num_experts", "num_experts", "experts")
    k = _aliased(inner, "moe_k", "num_experts_per_tok", "experts")
    if k > e:
        raise ConfigError(f"{r.origin}: field 'moe_k' ({k}) exceeds 'moe_num_experts' ({e})")
    widths = inner.raw("moe_intermediate_size")
    if not (isinstance(widths, list) and len(widths) == 2 and all(
            isinstance(w, int) and not isinstance(w, bool) and w > 0 for w in widths)):
        raise ConfigError(f"{r.origin}: field 'moe_intermediate_size' must list two positive "
                          f"widths (the text and the vision experts'), got {widths!r:.60}")
    text_w, vision_w = widths
    shared = inner.int("moe_num_shared_experts", kind="experts", minimum=0)
    types = inner.str_list("mlp_layer_types", n, ("dense", "sparse")) or (
        ["dense"] + ["sparse"] * (n - 1))
    for key in ("moe_layer_start_index", "moe_layer_end_index", "moe_layer_interval"):
        inner.refuse(key, "Ernie4_5_VLMoeTextModel places its mixtures by mlp_layer_types")
    moe = MLP(text_w, n_experts=e, top_k=k, n_shared=1 if shared else 0,
              d_shared=text_w * shared, router_bias=True)
    dense = MLP(inner.int("intermediate_size"))
    inner.raw("rope_parameters")  # rope theta and the 3D sections: no parameters
    inner.raw("moe_norm_min")  # a clamp in the routing: no parameters
    kw = _decoder(inner, n_layers=n, norms=2, tied=inner.flag("tie_word_embeddings", True),
                  trained_context=inner.int("max_position_embeddings", None, kind="context"),
                  attention=lambda i: attn,
                  mlp=lambda i: moe if types[i] == "sparse" else dense, d_model=d)
    pools = types.count("sparse") * (d * e + e + e * 3 * d * vision_w)
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision experts and routers; active: a text token's experts", pools,
                          True, "ERNIE-4.5-VL's vision expert pools: image and video tokens "
                          "only; a generated (text) token reads the text pool"))
    r.read |= inner.read
    return kw


def _ernie_vl_vision_params(r: _Reader, d_text: int) -> int:
    """Parameters of ERNIE-4.5-VL's vision encoder and resampler
    (Ernie4_5_VLMoeVisionTransformerPretrainedModel and
    Ernie4_5_VLMoeVariableResolutionResamplerModel): a patch embedding c p^2 -> h without
    bias, ``depth`` ViT blocks (LayerNorms, fused qkv, proj and fc1/fc2, all with biases), a
    final LayerNorm; the resampler over s = h m^2: a spatial MLP s -> s -> s with biases and a
    LayerNorm, a temporal one (s t_m) -> s -> s likewise, a projection s -> the text width with
    bias, and an RMSNorm of that width.

    >>> _ernie_vl_vision_params(_Reader({"hidden_size": 1280, "depth": 32, "num_heads": 16,
    ...     "intermediate_size": 5120, "patch_size": 14, "spatial_merge_size": 2,
    ...     "temporal_merge_size": 2}, "v", "v"), 2560)
    774658560
    """
    h, depth = _vision_depth(r)
    inter = r.int("intermediate_size")
    c = r.int("in_channels", 3, kind="count")
    p = r.int("patch_size", 14, kind="count")
    m = r.int("spatial_merge_size", 2, kind="count")
    tm = r.int("temporal_merge_size", 2, kind="count")
    r.raw("hidden_act")  # the blocks' activation: no parameters
    r.raw("rope_parameters")  # the tower's rotary positions: no parameters
    s = h * m * m
    tower = c * p * p * h + depth * _vit_block_params(h, inter) + 2 * h
    resampler = ((s * s + s) * 2 + 2 * s) + ((s * tm * s + s) + (s * s + s) + 2 * s) \
        + (s * d_text + d_text) + d_text
    return tower + resampler


def _ernie4_5_vl_moe(r: _Reader) -> dict[str, Any]:
    # Ernie4_5_VLMoeForConditionalGeneration: the language model in text_config (read above),
    # the vision encoder and resampler in vision_config; the head tied to the input table by
    # the wrapper's tie_word_embeddings (default true).
    wr = _Reader({**r.cfg, "tie_word_embeddings": r.flag("tie_word_embeddings", True)},
                 r.origin, r.family)
    kw = _wrapped_text(wr, "ernie4_5_vl_moe_text")
    r.read |= wr.read
    vr = _vision_reader(r, "ernie4_5_vl_moe_vision")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and resampler", _ernie_vl_vision_params(vr, kw["d_model"]),
                          True, "ERNIE-4.5-VL's vision encoder and variable-resolution resampler"))
    vr.check_unread()
    return kw



# ---- Kimi-VL (kimi_vl) -------------------------------------------------------------------------
def _kimi_vl_vision_params(r: _Reader, d_text: int) -> int:
    """Parameters of Kimi-VL's MoonViT and its projector, as Moonshot's remote code builds them
    (read in vLLM's port, vllm-project/vllm@dff4cad35b4faadb49e7a7e239dd27fe79c3e289
    vllm/model_executor/models/kimi_vl.py and moonvit.py): a Conv2d patch embedding (3 p p ->
    h, with bias), a learned height x width x h position table, ViT blocks (two LayerNorms,
    fused wqkv and wo with biases, an MLP h -> inter -> h with biases), a final LayerNorm;
    the projector a LayerNorm over h, then (h k_h k_w) -> (h k_h k_w) -> the text width, with
    biases. Kimi K2.5's tower (:func:`_moonvit_params`) under the remote code's plain names.

    >>> _kimi_vl_vision_params(_Reader({"hidden_size": 1152, "intermediate_size": 4304,
    ...     "num_hidden_layers": 27, "num_attention_heads": 16, "patch_size": 14,
    ...     "init_pos_emb_height": 64, "init_pos_emb_width": 64}, "v", "v"), 2048)
    447545840
    """
    h = r.int("hidden_size")
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    heads = r.int("num_attention_heads", kind="heads")
    if h % heads:
        raise ConfigError(f"{r.origin}: field 'num_attention_heads' ({heads}) does not divide "
                          f"'hidden_size' ({h})")
    p = r.int("patch_size", 14, kind="count")
    positions, hm = _moonvit_grid(r, h, d_text)
    tower = 3 * p * p * h + h + positions * h + n * _vit_block_params(h, inter) + 2 * h
    return tower + 2 * h + (hm * hm + hm) + (d_text * hm + d_text)


def _kimi_vl(r: _Reader) -> dict[str, Any]:
    # KimiVLForConditionalGeneration (Moonshot's remote code; transformers 5.24.0 does not
    # define it): a DeepSeek-V3-layout language model in text_config (Moonlight's: MLA without
    # a query LoRA, a dense first layer, 64 routed experts with 2 shared, sigmoid routing and
    # its score-correction bias), MoonViT and a two-layer projector in vision_config.
    kw = _wrapped_text(r, "deepseek_v3")
    vr = _vision_reader(r, "kimi_vl_vision")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and projector", _kimi_vl_vision_params(vr, kw["d_model"]),
                          True, "Kimi-VL's MoonViT encoder and multimodal projector"))
    vr.check_unread()
    return kw



# ---- Qwen2.5-VL and Qwen2-VL (qwen2_5_vl, qwen2_vl) ---------------------------------------------
#: the language model's keys a Qwen2-VL or Qwen2.5-VL file may carry at its top level (the Hub's
#: files are flat; Qwen2_5_VLConfig moves them into its text_config), read with the text model
QWEN2_VL_TEXT_KEYS = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
                      "num_attention_heads", "num_key_value_heads", "head_dim",
                      "max_position_embeddings", "use_sliding_window", "sliding_window",
                      "max_window_layers", "layer_types", "attention_bias")


def _qwen2_vl_text(r: _Reader) -> dict[str, Any]:
    # Qwen2_5_VLTextModel, Qwen2VLTextModel (transformers 5.24.0 modeling_qwen2_5_vl.py and
    # modeling_qwen2_vl.py, the same block):
    # Qwen2's block (q/k/v with biases, o without, two RMSNorms, a gated MLP without biases)
    # under the Qwen2 reader, windows by use_sliding_window and max_window_layers. The
    # attention's heads are always hidden_size / num_attention_heads wide (the class reads no
    # head_dim): a head_dim other than that is refused by name. The rotary sections of the 3D
    # position (rope_scaling's mrope_section) weigh nothing.
    d = r.int("hidden_size")
    h = r.int("num_attention_heads", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: field 'num_attention_heads' ({h}) does not divide "
                          f"'hidden_size' ({d}), as the '{r.family}' attention requires")
    if r.int("head_dim", d // h) != d // h:
        raise ConfigError(f"{r.origin}: field 'head_dim' = {r.int('head_dim')} is not supported: "
                          f"the '{r.family}' attention's heads are hidden_size / "
                          f"num_attention_heads = {d // h} wide")
    r.read.update({"rope_scaling", "rope_parameters", "rope_theta"})
    # transformers writes layer_types on saving; with windows off every entry must be full
    # (with windows on, the qwen2 reader reads the list as each layer's kind)
    n = r.int("num_hidden_layers", kind="layers")
    types = r.str_list("layer_types", n, ("full_attention", "sliding_attention"))
    windows = r.flag("use_sliding_window", False) and r.raw("sliding_window") is not None
    if types is not None and not windows and "sliding_attention" in types:
        raise ConfigError(f"{r.origin}: field 'layer_types' lists sliding layers, but "
                          "'use_sliding_window' and 'sliding_window' set no window")
    return _qwen2(r)


def _vision_io(r: _Reader, d_text: int, out_key: str) -> tuple[int, int, int, int, int]:
    """The input side of the Qwen2-VL and Qwen2.5-VL towers and their merger's output: input channels
    (``in_channels``; the legacy ``in_chans`` the class ignores must agree), the temporal and
    spatial patch sizes (``spatial_patch_size``, legacy, must agree with ``patch_size``), the
    spatial merge size, and the merger's output width (``out_key``), which must be the language
    model's."""
    c = r.int("in_channels", 3, kind="count")
    if r.int("in_chans", c, kind="count") != c:
        raise ConfigError(f"{r.origin}: fields 'in_chans' ({r.int('in_chans', kind='count')}) "
                          f"and 'in_channels' ({c}) disagree (the class builds in_channels)")
    p = r.int("patch_size", 14, kind="count")
    if r.int("spatial_patch_size", p, kind="count") != p:
        raise ConfigError(f"{r.origin}: fields 'spatial_patch_size' and 'patch_size' ({p}) "
                          "disagree (the class builds patch_size)")
    t = r.int("temporal_patch_size", 2, kind="count")
    m = r.int("spatial_merge_size", 2, kind="count")
    out = r.int(out_key)
    if out != d_text:
        raise ConfigError(f"{r.origin}: field '{out_key}' ({out}) differs from the language "
                          f"model's hidden size ({d_text})")
    # the tower's activation, its windowed-attention layout and the video time scale: no weights
    r.read.update({"hidden_act", "window_size", "fullatt_block_indexes", "tokens_per_second",
                   "rope_parameters"})
    return c, t, p, m, out


def _qwen2_5_vl_vision_params(r: _Reader, d_text: int) -> int:
    """Parameters of Qwen2.5-VL's vision encoder and patch merger
    (Qwen2_5_VisionTransformerPretrainedModel, transformers 5.24.0): a Conv3d patch embedding
    c t p p -> h without bias (positions are rotary: no table); ``depth`` blocks of two RMSNorms
    (h each), a fused qkv h -> 3h and proj h -> h with biases, and a gated MLP h -> inter -> h
    with biases (gate, up, down); the merger: an RMSNorm over h, then (h m^2) -> (h m^2) ->
    ``out_hidden_size`` with biases. Windowed or full attention per block (window_size,
    fullatt_block_indexes) changes no weight.

    >>> _qwen2_5_vl_vision_params(_Reader({"hidden_size": 1280, "depth": 32, "num_heads": 16,
    ...     "intermediate_size": 3420, "out_hidden_size": 2048}, "v", "v"), 2048)
    668684288
    """
    h, depth = _vision_depth(r)
    inter = r.int("intermediate_size")
    c, t, p, m, out = _vision_io(r, d_text, "out_hidden_size")
    # Qwen3-VL's tower has a learned position table and deepstack mergers; this one neither
    for key in ("num_position_embeddings", "deepstack_visual_indexes"):
        r.refuse(key, "Qwen2.5-VL's tower has no position table and no deepstack mergers "
                 "(a Qwen3-VL tower: model_type 'qwen3_vl')")
    for key in ("embed_dim", "mlp_ratio"):
        r.refuse(key, "Qwen2.5-VL's tower is sized by hidden_size and intermediate_size "
                 "(a Qwen2-VL tower: model_type 'qwen2_vl')")
    hm = h * m * m
    block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + 2 * (h * inter + inter) + (inter * h + h)
    return c * t * p * p * h + depth * block + h + (hm * hm + hm) + (hm * out + out)


def _qwen2_vl_vision_params(r: _Reader, d_text: int) -> int:
    """Parameters of Qwen2-VL's vision encoder and patch merger
    (Qwen2VisionTransformerPretrainedModel, transformers 5.24.0), whose width is ``embed_dim``
    (e; ``hidden_size`` is the merger's output, the language model's width): a Conv3d patch
    embedding c t p p -> e without bias (rotary positions: no table); ``depth`` ViT blocks of
    two LayerNorms with biases, a fused qkv and proj with biases, and an MLP e -> e mlp_ratio ->
    e with biases (fc1, fc2); the merger: a LayerNorm over e with bias, then (e m^2) ->
    (e m^2) -> ``hidden_size`` with biases.

    >>> _qwen2_vl_vision_params(_Reader({"embed_dim": 1280, "depth": 32, "num_heads": 16,
    ...     "mlp_ratio": 4, "hidden_size": 3584}, "v", "v"), 3584)
    675759104
    """
    e = r.int("embed_dim", 1280)
    depth = _aliased(r, "depth", "num_hidden_layers", "layers")
    heads = _aliased(r, "num_heads", "num_attention_heads", "heads")
    if e % heads:
        raise ConfigError(f"{r.origin}: field 'num_heads' ({heads}) does not divide "
                          f"'embed_dim' ({e})")
    ratio = r.raw("mlp_ratio", 4)
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or ratio <= 0 \
            or e * ratio != int(e * ratio):
        raise ConfigError(f"{r.origin}: field 'mlp_ratio' must be a positive number giving a "
                          f"whole MLP width (embed_dim x mlp_ratio), got {ratio!r:.40}")
    c, t, p, m, out = _vision_io(r, d_text, "hidden_size")
    for key in ("num_position_embeddings", "deepstack_visual_indexes", "intermediate_size",
                "out_hidden_size"):
        r.refuse(key, "Qwen2-VL's tower sizes its MLP by embed_dim x mlp_ratio and its "
                 "output by hidden_size, with no position table (another Qwen tower?)")
    em = e * m * m
    return (c * t * p * p * e + depth * _vit_block_params(e, int(e * ratio)) + 2 * e
            + (em * em + em) + (em * out + out))


def _qwen2_vl_of(text_family: str, vision_family: str, vision: Callable[[_Reader, int], int],
                 note: str) -> Callable[[_Reader], dict[str, Any]]:
    """A reader of Qwen2_5_VLForConditionalGeneration and Qwen2VLForConditionalGeneration files:
    the language model in ``text_config`` or, as the Hub's files have it, at the top level beside
    ``vision_config`` (top-level copies of text keys beside a ``text_config`` must agree with
    it); the head tied when the wrapper's or the text model's tie_word_embeddings says so (the
    config class forwards the text config's true); the tower and merger an extra in the total
    that no decode step reads."""
    def read(r: _Reader) -> dict[str, Any]:
        text = r.raw("text_config", None)
        if text is None:
            tr = _Reader(r.cfg, r.origin, text_family)
            tr.read = r.read
            kw = _qwen2_vl_text(tr)
        else:
            if not isinstance(text, dict):
                raise ConfigError(f"{r.origin}: field 'text_config' must be an object")
            windows = text.get("use_sliding_window") is True
            for key in QWEN2_VL_TEXT_KEYS:
                if key in r.cfg:
                    r.read.add(key)
                    # a window size is read only where windows are on (Qwen-Image's copy of
                    # the 7B file says 32768 at the top and null in text_config, both off)
                    if key == "sliding_window" and not windows:
                        continue
                    if key in text and text[key] != r.cfg[key]:
                        raise ConfigError(
                            f"{r.origin}: field '{key}' ({r.cfg[key]!r:.40}) disagrees with "
                            f"'text_config.{key}' ({text[key]!r:.40}), which the model is built "
                            "from")
            tied = r.flag("tie_word_embeddings", False) or text.get("tie_word_embeddings") is True
            wr = _Reader({**r.cfg, "tie_word_embeddings": tied}, r.origin, r.family)
            kw = _wrapped_text(wr, text_family)
            r.read |= wr.read
        vr = _vision_reader(r, vision_family)
        kw["extras"] = (*kw.get("extras", ()),
                        Extra("vision tower and merger", vision(vr, kw["d_model"]), True, note))
        vr.check_unread()
        return kw
    return read


#: model_type -> reader.
# ---- Grok-1 / Grok-2 (xAI; SGLang's Grok1ForCausalLM) -------------------------------------------
def _grok(r: _Reader) -> dict[str, Any]:
    # SGLang python/sglang/srt/models/grok.py (sgl-project/sglang @ 031ad4ce), the layout xAI's
    # Grok-2 release is served with (its config.json says model_type "git", which transformers
    # uses for another model: the file is read by its architectures, Grok1ForCausalLM). Each
    # block: pre_attn_norm, attention (qkv_proj and o_proj without biases; head_dim 128 unless
    # given), post_attn_norm, pre_moe_norm, a mixture (a bias-free router of d x E, E experts of
    # moe_intermediate_size, else intermediate_size, gated GELU: w1, w3, w2), post_moe_norm:
    # four RMSNorms. With residual_moe a dense gated MLP of intermediate_size runs beside the
    # mixture on the same input, the sum scaled by 1/sqrt(2): every token uses it, a shared
    # expert of that width. Embedding and lm_head apart (SGLang always builds and loads its own
    # lm_head), a final norm. The multipliers (embedding, output, attention temperature) and the
    # soft caps (attention, router, final logits) change no count. SGLang builds no window.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d, head_dim_default=128)
    e, k = _experts(r, n_key="num_local_experts")
    d_moe = r.int("moe_intermediate_size", None)
    residual = r.flag("residual_moe", False)
    d_ff = r.int("intermediate_size", None if (d_moe and not residual) else ...)
    mlp = MLP(d_moe or d_ff, n_experts=e, top_k=k, n_shared=int(residual),
              d_shared=d_ff if residual else 0)
    _restated(r, "tie_word_embeddings", False, "SGLang loads a separate lm_head")
    _restated(r, "attention_bias", False, "its q/k/v and output projections have no biases")
    for key, plain in (("sliding_window_size", -1), ("global_attn_every_n", 1)):
        v = r.raw(key, plain)
        if v != plain:
            raise ConfigError(f"{r.origin}: field '{key}' = {v!r:.60} is not supported: SGLang's "
                              "Grok1ForCausalLM attends to the whole context in every layer")
    return _decoder(
        r, n_layers=n, norms=4, tied=False,
        trained_context=r.int("max_position_embeddings", None, kind="context"),
        attention=lambda i: Attention(h, hkv, dh), mlp=lambda i: mlp, d_model=d)


# ---- Qwen1.5-MoE and Qwen2-MoE (qwen2_moe) ---------------------------------------------------------
def _qwen2_moe(r: _Reader) -> dict[str, Any]:
    # Qwen2Moe (transformers 5.24.0 modeling_qwen2_moe.py, configuration_qwen2_moe.py): q, k, v
    # with biases when qkv_bias (default true), o_proj without; head_dim from the file, else
    # d / H. Layer i is a mixture unless i is in mlp_only_layers or (i + 1) % decoder_sparse_step
    # is not 0 (then a dense gated MLP of intermediate_size). The mixture: a bias-free router
    # d x E, E experts of moe_intermediate_size, one shared expert of
    # shared_expert_intermediate_size whose output is scaled by sigmoid(shared_expert_gate(x)),
    # a d -> 1 linear without bias (d parameters). Two RMSNorms a block, a final norm, the head
    # untied by default. Qwen2MoeConfig's window rule (every other layer below
    # max_window_layers when use_sliding_window) is refused rather than guessed: no released
    # file sets it and runtimes build it differently.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    qkv_bias = r.flag("qkv_bias", True)
    if r.flag("use_sliding_window", False):
        raise ConfigError(f"{r.origin}: field 'use_sliding_window' = true is not supported: "
                          "Qwen2-MoE's window rule is not modelled (no released file sets it)")
    r.read |= {"sliding_window", "max_window_layers"}  # unused without use_sliding_window
    types = r.str_list("layer_types", n, ("full_attention", "sliding_attention"))
    if types is not None and "sliding_attention" in types:
        raise ConfigError(f"{r.origin}: field 'layer_types' lists sliding layers: Qwen2-MoE's "
                          "window rule is not modelled (no released file sets it)")
    e, k = _experts(r, n_key="num_experts", defaults=(60, 4))
    step = r.int("decoder_sparse_step", 1, kind="count")
    dense = set(r.int_list("mlp_only_layers", []))
    if not dense <= set(range(n)):
        raise ConfigError(f"{r.origin}: field 'mlp_only_layers' names layers outside 0-{n - 1}")
    shared = r.int("shared_expert_intermediate_size", 5632)
    moe = MLP(r.int("moe_intermediate_size", 1408), n_experts=e, top_k=k, n_shared=1,
              d_shared=shared, shared_gate=True)
    dense_mlp = MLP(r.int("intermediate_size", 5632))
    return _decoder(
        r, n_layers=n, norms=2, tied=r.flag("tie_word_embeddings", False),
        trained_context=r.int("max_position_embeddings", None, kind="context"),
        attention=lambda i: Attention(h, hkv, dh, qkv_bias=qkv_bias, o_bias=False),
        mlp=lambda i: moe if (i not in dense and (i + 1) % step == 0) else dense_mlp,
        d_model=d)


# ---- DBRX (dbrx) ------------------------------------------------------------------------------
#: transformers' DbrxConfig defaults (configuration_dbrx.py in transformers 5.24.0) for the keys
#: that size the model, at the top level and in its two sub-configurations.
DBRX_DEFAULTS: Mapping[str, Any] = {"d_model": 2048, "n_heads": 16, "n_layers": 24,
                                    "max_seq_len": 2048, "vocab_size": 32000}
DBRX_ATTN_DEFAULTS: Mapping[str, Any] = {"kv_n_heads": 1}
DBRX_FFN_DEFAULTS: Mapping[str, Any] = {"ffn_hidden_size": 3584, "moe_num_experts": 4,
                                        "moe_top_k": 1}
#: DbrxConfig's attribute_map: the generic name a file may use for each of its own keys.
DBRX_ALIASES: Mapping[str, str] = {"hidden_size": "d_model", "num_attention_heads": "n_heads",
                                   "num_hidden_layers": "n_layers",
                                   "max_position_embeddings": "max_seq_len"}


def _dbrx_part(r: _Reader, key: str, defaults: Mapping[str, Any]) -> _Reader:
    """A reader of the sub-configuration ``key`` (``attn_config``, ``ffn_config``) over
    transformers' defaults, its errors naming ``key``."""
    scope = r.raw(key, {})
    if not isinstance(scope, Mapping):
        raise ConfigError(f"{r.origin}: field '{key}' must be an object")
    return _defaulted(scope, defaults, f"{r.origin}: {key}", r.family)


def _dbrx(r: _Reader) -> dict[str, Any]:
    # Dbrx (transformers 5.24.0 modeling_dbrx.py): each block is norm_1, attention (one fused
    # Wqkv d -> d + 2 kv_n_heads d_head and out_proj, no biases; clip_qkv clamps the
    # projections: no parameter), norm_2, then a mixture (DbrxRouter: a bias-free d x E linear;
    # DbrxExpertGLU: E experts each w1, v1, w2 of ffn_hidden_size x d, a gated MLP whatever
    # ffn_act_fn names), top moe_top_k. Both norms and the final norm_f are LayerNorms without
    # bias (d each). wte and lm_head apart: DbrxConfig refuses a tied head.
    cfg = dict(r.cfg)
    for alias, key in DBRX_ALIASES.items():
        if cfg.get(alias) is not None:
            r.read.add(alias)
            if cfg.get(key) is not None and cfg[key] != cfg[alias]:
                raise ConfigError(f"{r.origin}: field '{alias}' ({cfg[alias]!r:.40}) disagrees "
                                  f"with '{key}' ({cfg[key]!r:.40}), which DbrxConfig maps it to")
            cfg[key] = cfg[alias]
    inner = _defaulted(cfg, DBRX_DEFAULTS, r.origin, r.family)
    _restated(inner, "tie_word_embeddings", False, "DbrxConfig refuses a tied head")
    d = inner.int("d_model")
    n = inner.int("n_layers", kind="layers")
    attn = _dbrx_part(inner, "attn_config", DBRX_ATTN_DEFAULTS)
    ffn = _dbrx_part(inner, "ffn_config", DBRX_FFN_DEFAULTS)
    h = inner.int("n_heads", kind="heads")
    hkv = attn.int("kv_n_heads", kind="heads")
    if d % h or h % hkv:  # DbrxAttention: head_dim = d_model // n_heads
        raise ConfigError(f"{r.origin}: field 'n_heads' ({h}) must divide 'd_model' ({d}) and "
                          f"be a multiple of 'attn_config.kv_n_heads' ({hkv})")
    attn.raw("clip_qkv")  # clamps q, k and v: no parameter
    e, k = _experts(ffn, n_key="moe_num_experts", k_key="moe_top_k")
    ffn.raw("ffn_act_fn")  # the GLU's activation: three matrices whatever it is
    mlp = MLP(ffn.int("ffn_hidden_size"), n_experts=e, top_k=k)
    attn.check_unread()
    ffn.check_unread()
    kw = _decoder(
        inner, n_layers=n, norms=2, tied=False,
        trained_context=inner.int("max_seq_len", kind="context"),
        attention=lambda i: Attention(h, hkv, d // h), mlp=lambda i: mlp, d_model=d)
    r.read |= inner.read
    return kw


# ---- IBM Granite 3.x dense (granite) ---------------------------------------------------------
def _granite(r: _Reader) -> dict[str, Any]:
    # Granite (transformers 5.24.0 modeling_granite.py): Llama's block, q/k/v/o biases when
    # attention_bias, MLP biases when mlp_bias, head_dim from the file else d / H, two RMSNorms,
    # the head tied when tie_word_embeddings (false by default; IBM's files say true). Four muP
    # scalars multiply activations and weigh nothing: the embedding output, the attention
    # scores (in place of 1/sqrt(d_head)), each residual branch, and the logits (divided).
    for key in ("embedding_multiplier", "attention_multiplier", "residual_multiplier",
                "logits_scaling"):
        r.raw(key)
    return _llama_like(r)


# ---- Llama 3.2 Vision (mllama) ------------------------------------------------------------------
def _mllama_cross_layers(r: _Reader, n: int) -> list[int]:
    """The indices of ``cross_attention_layers``: distinct, each in [0, n), not all of them."""
    idx = r.int_list("cross_attention_layers", [3, 8, 13, 18, 23, 28, 33, 38])
    if len(set(idx)) != len(idx) or any(not 0 <= i < n for i in idx):
        raise ConfigError(f"{r.origin}: field 'cross_attention_layers' must hold distinct layer "
                          f"indices below 'num_hidden_layers' ({n})")
    if len(idx) >= n:
        raise ConfigError(f"{r.origin}: field 'cross_attention_layers' leaves no self-attention "
                          "layer")
    return idx


def _mllama_cross_block(d: int, h: int, hkv: int, dh: int, ff: int) -> dict[str, int]:
    """One MllamaCrossAttentionDecoderLayer's parameters by part: ``kv``, its k and v (applied
    to the image's states, once per image); ``token``, the rest (q, o, the q/k RMSNorms over
    dh, the SwiGLU MLP, two RMSNorms and two scalar tanh gates), what a text token runs."""
    return {"kv": 2 * d * hkv * dh, "token": 2 * d * h * dh + 2 * dh + 3 * d * ff + 2 * d + 2}


def _mllama_text(r: _Reader) -> dict[str, Any]:
    # MllamaTextModel (transformers 5.24.0 models/mllama/modeling_mllama.py): num_hidden_layers
    # blocks, those at cross_attention_layers MllamaCrossAttentionDecoderLayer, the others
    # Llama 3.1's self-attention block (q/k/v/o without biases, SwiGLU MLP, two RMSNorms). The
    # embedding table has vocab_size + 8 rows, the head vocab_size.
    #
    # Convention (named in describe through the extras' notes): the stack is the self-attention
    # layers a text token runs; the cross-attention layers are an extra in the total read by no
    # text-only decode step (MllamaTextModel skips a cross-attention layer that holds no image
    # states). Their keys and values are the image's, computed once per image: that cache grows
    # with images, not with text tokens, so the KV cache per token counts the self-attention
    # layers only. A decode with images also reads, each step, every cross-attention layer's
    # parameters but k and v, and the images' cache: mllama_image_decode.
    n = r.int("num_hidden_layers", kind="layers")
    cross = _mllama_cross_layers(r, n)
    if r.flag("tie_word_embeddings", False):
        raise ConfigError(f"{r.origin}: field 'tie_word_embeddings' = True is not supported: "
                          "Mllama's embedding table has vocab_size + 8 rows and its head "
                          "vocab_size, so the two cannot be one tensor")
    r.refuse("mlp_bias", "MllamaTextMLP builds no biases")
    r.refuse("attention_bias", "Mllama's attention builds no biases")
    r.refuse("head_dim", "Mllama's heads are hidden_size / num_attention_heads wide")
    inner = {k: v for k, v in r.cfg.items() if k != "cross_attention_layers"}
    inner["num_hidden_layers"] = n - len(cross)
    tr = _Reader(inner, r.origin, r.family)
    kw = _llama_like(tr, qkv_bias=False, o_bias=False)
    r.read |= tr.read
    d = r.int("hidden_size")
    block = _mllama_cross_block(d, *r.heads(d), r.int("intermediate_size"))
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("cross-attention layers; active and KV: a text-only step", len(cross) * sum(block.values()), True,
                          f"the {len(cross)} gated cross-attention layers (at "
                          f"{', '.join(map(str, cross))}); a text-only decode skips them; with "
                          "an image each step also reads their weights but k and v, and the "
                          "image's keys and values (a cache per image, not per text token)"),
                    Extra("image-token embedding rows", 8 * d, True,
                          "the 8 rows past vocab_size in Mllama's embedding table"))
    return kw


def _mllama_vision_params(r: _Reader, d_text: int) -> int:
    """Parameters of Llama 3.2 Vision's image encoder and projector (MllamaVisionModel and
    ``multi_modal_projector``): a Conv2d patch embedding (c p p -> h, no bias), a class
    embedding of h; a gated position embedding (one gate, a table of n = (image / p)^2 + 1 rows
    of h, and a tile table of A + 1 rows of T n h, A = len(supported_aspect_ratios), T =
    max_num_tiles); a pre- and a post-tile embedding (A + 1 rows of T h and one gate each);
    two LayerNorms with bias; ``num_hidden_layers`` local and ``num_global_layers`` global
    encoder layers (two LayerNorms with bias, q/k/v/o of h x h without biases, fc1 h -> i and
    fc2 i -> h with biases), each global layer with two scalar gates; the projector
    ``vision_output_dim`` -> d_text with bias.

    >>> _mllama_vision_params(_Reader({"hidden_size": 1280, "num_hidden_layers": 32,
    ...     "num_global_layers": 8, "attention_heads": 16, "intermediate_size": 5120,
    ...     "vision_output_dim": 7680, "image_size": 560, "patch_size": 14,
    ...     "max_num_tiles": 4}, "v", "v"), 4096)
    895028755
    """
    h = r.int("hidden_size")
    heads = _aliased(r, "attention_heads", "num_attention_heads", "heads")
    if h % heads:
        raise ConfigError(f"{r.origin}: field 'attention_heads' ({heads}) does not divide "
                          f"'hidden_size' ({h})")
    inter = r.int("intermediate_size")
    local = r.int("num_hidden_layers", kind="layers")
    glob = r.int("num_global_layers", kind="layers")
    c = r.int("num_channels", 3, kind="count")
    p = r.int("patch_size", 14, kind="count")
    image = r.int("image_size", 448)
    tiles = r.int("max_num_tiles", 4, kind="count")
    ratios = r.raw("supported_aspect_ratios",
                   [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]])
    if not isinstance(ratios, list) or not ratios:
        raise ConfigError(f"{r.origin}: field 'supported_aspect_ratios' must be a list of pairs")
    layers = r.int_list("intermediate_layers_indices", [3, 7, 15, 23, 30])
    if any(not 0 <= i < local for i in layers):
        raise ConfigError(f"{r.origin}: field 'intermediate_layers_indices' must index the "
                          f"{local} local layers")
    out = r.int("vision_output_dim")
    if out != (len(layers) + 1) * h:
        raise ConfigError(f"{r.origin}: field 'vision_output_dim' ({out}) is not hidden_size "
                          f"times one more than the intermediate layers ({len(layers) + 1} x "
                          f"{h}), the width of MllamaVisionModel's output")
    r.raw("hidden_act")  # the MLPs' activation: no parameters
    ids = len(ratios) + 1
    n = (image // p) ** 2 + 1
    embed = c * p * p * h + h + (1 + n * h + ids * tiles * n * h) + 2 * (ids * tiles * h + 1)
    layer = 4 * h * h + 4 * h + 2 * h * inter + inter + h
    tower = embed + 4 * h + (local + glob) * layer + 2 * glob
    return tower + out * d_text + d_text


def _mllama(r: _Reader) -> dict[str, Any]:
    # MllamaForConditionalGeneration: the language model in text_config (mllama_text_model,
    # read above), the vision encoder and projector in vision_config.
    kw = _wrapped_text(r, "mllama_text_model")
    vr = _vision_reader(r, "mllama_vision_model")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and projector", _mllama_vision_params(vr, kw["d_model"]),
                          True, "Llama 3.2 Vision's tiled image encoder (local and gated global "
                          "layers) and its projector to the text width"))
    vr.check_unread()
    return kw


def mllama_image_decode(config: Mapping[str, Any], *, images: int = 1,
                        tiles: int | None = None, kv_bits: int = 16) -> dict[str, int]:
    """What a decode step of Llama 3.2 Vision reads besides the text-only step, with
    ``images`` images in the context, each of ``tiles`` tiles (max_num_tiles by default, as
    the processor pads them): ``image_tokens``, (image / patch)^2 + 1 a tile; ``cache_bytes``,
    the cross-attention layers' keys and values of those tokens (every cross-attention layer,
    K and V, key/value heads x head width), held once per sequence whatever its length;
    ``weights``, the parameters read per token by the cross-attention layers (all but k and
    v, which are applied to the image once, at its prefill). ``config``: a whole ``mllama``
    file (its text_config and vision_config, read by the reader's rules).

    >>> mllama_image_decode({"text_config": {}, "vision_config": {"image_size": 560}})
    {'image_tokens': 6404, 'cache_bytes': 209846272, 'weights': 1677789200}
    """
    text = config.get("text_config")
    vision = config.get("vision_config")
    if not isinstance(text, dict) or not isinstance(vision, dict):
        raise ConfigError("mllama_image_decode: the file needs 'text_config' and "
                          "'vision_config' objects")
    tr = _Reader(text, "text_config", "mllama_text_model")
    n = tr.int("num_hidden_layers", 40, kind="layers")
    cross = len(_mllama_cross_layers(tr, n))
    d = tr.int("hidden_size", 4096)
    h = tr.int("num_attention_heads", 32, kind="heads")
    hkv = tr.int("num_key_value_heads", 8, kind="heads")
    dh = d // h
    block = _mllama_cross_block(d, h, hkv, dh, tr.int("intermediate_size", 14336))
    vr = _Reader(vision, "vision_config", "mllama_vision_model")
    t = tiles if tiles is not None else vr.int("max_num_tiles", 4, kind="count")
    per_tile = (vr.int("image_size", 448) // vr.int("patch_size", 14, kind="count")) ** 2 + 1
    tokens = images * t * per_tile
    # the image's keys and values: the cache formula over the cross-attention layers only, with
    # the image's tokens as the context of one sequence
    cache = N.kv_cache_bytes(n_layers=cross, n_kv_heads=hkv, d_head=dh, context=tokens,
                             bits_kv=kv_bits)
    return {"image_tokens": tokens, "cache_bytes": int(cache),
            "weights": cross * block["token"]}


# ---- InternVL 3 / 3.5 (internvl) ---------------------------------------------------------------
def _pair(r: _Reader, key: str, default: int) -> tuple[int, int]:
    """A size given as one integer or as [height, width] (InternVLVisionConfig's image and
    patch sizes)."""
    v = r.raw(key, default)
    if isinstance(v, list) and len(v) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v):
        return v[0], v[1]
    n = r.int(key, default)
    return n, n


def _tower_width(r: _Reader) -> int:
    """A vision tower's ``hidden_size``, checked against its ``num_attention_heads``."""
    h = r.int("hidden_size")
    heads = r.int("num_attention_heads", kind="heads")
    if h % heads:
        raise ConfigError(f"{r.origin}: field 'num_attention_heads' ({heads}) does not divide "
                          f"'hidden_size' ({h})")
    return h


def _internvl_vision_params(r: _Reader, d_text: int, downsample: int) -> int:
    """Parameters of InternViT (InternVLVisionModel) and InternVL's projector
    (InternVLMultiModalProjector). The tower: a class token of h (and a mask token when
    ``use_mask_token``), a Conv2d patch embedding c p p -> h with bias, a position table of
    (patches + 1) rows of h when ``use_absolute_position_embeddings``; per layer two norms
    (LayerNorms with bias, or RMSNorms when ``norm_type`` is rms_norm), q, k, v of h x h
    (biases when ``attention_bias``), RMSNorms over h on q and k when ``use_qk_norm``, an output
    projection h x h with bias, fc1 h -> i and fc2 i -> h with biases and two layer-scale
    vectors of h; a final LayerNorm unless ``use_mean_pooling``. The projector: a LayerNorm
    over h m^2 (m = 1 / downsample_ratio, the pixel shuffle), h m^2 -> d_text and d_text ->
    d_text, each with bias.

    >>> _internvl_vision_params(_Reader({"hidden_size": 1024, "num_hidden_layers": 24,
    ...     "num_attention_heads": 16, "intermediate_size": 4096, "attention_bias": True,
    ...     "image_size": [448, 448], "patch_size": [14, 14]}, "v", "v"), 896, 2)
    308495104
    """
    h = _tower_width(r)
    n = r.int("num_hidden_layers", kind="layers")
    inter = r.int("intermediate_size")
    c = r.int("num_channels", 3, kind="count")
    ih, iw = _pair(r, "image_size", 448)
    ph, pw = _pair(r, "patch_size", 14)
    norm = r.raw("norm_type", "layer_norm")
    if norm not in ("layer_norm", "rms_norm"):
        raise ConfigError(f"{r.origin}: field 'norm_type' = {norm!r:.40} is not layer_norm or "
                          "rms_norm")
    nw = 2 * h if norm == "layer_norm" else h
    bias = r.flag("attention_bias", False)
    qk = r.flag("use_qk_norm", False)
    for key in ("hidden_act", "layer_norm_eps", "layer_scale_init_value"):
        r.raw(key)  # activations, epsilons and the layer scales' initial value: no count
    embed = (h + (h if r.flag("use_mask_token", False) else 0) + c * ph * pw * h + h
             + ((ih // ph) * (iw // pw) + 1) * h
             * (1 if r.flag("use_absolute_position_embeddings", True) else 0))
    layer = 2 * nw + 3 * h * h + (3 * h if bias else 0) + (2 * h if qk else 0) + h * h + h \
        + 2 * h * inter + inter + h + 2 * h
    final = 0 if r.flag("use_mean_pooling", True) else 2 * h
    wide = h * downsample * downsample
    projector = 2 * wide + wide * d_text + d_text + d_text * d_text + d_text
    return embed + n * layer + final + projector


def _internvl(r: _Reader) -> dict[str, Any]:
    # InternVLForConditionalGeneration (transformers 5.24.0 models/internvl/modeling_internvl.py):
    # the language model in text_config, read by its own family's reader (InternVL 3: qwen2;
    # InternVL 3.5: qwen3, qwen3_moe, gpt_oss; qwen2 when the file names none, as InternVLConfig
    # defaults), InternViT and the projector in vision_config. The output head follows the
    # text_config's tie unless the wrapper states one (see FAMILIES.md 17.39: transformers 5
    # ties by the wrapper's own default instead).
    text = r.raw("text_config", None)
    family = text.get("model_type", "qwen2") if isinstance(text, dict) else "qwen2"
    if family not in FAMILIES or family in ("internvl", "mllama"):
        raise ConfigError(f"{r.origin}: text_config's model_type {family!r:.40} is not a "
                          "language model family the library reads")
    kw = _wrapped_text(r, family)
    ratio = r.raw("downsample_ratio", 0.5)
    if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or not 0 < ratio <= 1 \
            or abs(1 / ratio - round(1 / ratio)) > 1e-9:
        raise ConfigError(f"{r.origin}: field 'downsample_ratio' = {ratio!r:.40} is not one "
                          "over a whole number (the pixel shuffle's factor)")
    for key in ("image_seq_length", "vision_feature_layer", "vision_feature_select_strategy",
                "projector_hidden_act", "image_token_id", "image_token_index"):
        r.raw(key)  # token counts and layer choices of the image path: no parameters
    vr = _vision_reader(r, "internvl_vision")
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and projector",
                          _internvl_vision_params(vr, kw["d_model"], round(1 / ratio)), True,
                          "InternViT and the pixel-shuffle MLP projector"))
    vr.check_unread()
    return kw


# ---- LLaVA (llava) -----------------------------------------------------------------------------
#: transformers' LlamaConfig defaults (5.24.0, ``configuration_llama.py``), which a LLaVA file's
#: sparse ``text_config`` (written as a diff from them) leaves out.
LLAVA_LLAMA_DEFAULTS: Mapping[str, Any] = {
    "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
    "num_hidden_layers": 32, "num_attention_heads": 32, "max_position_embeddings": 2048,
}
#: transformers' CLIPVisionConfig defaults (5.24.0, ``configuration_clip.py``).
CLIP_VISION_DEFAULTS: Mapping[str, Any] = {
    "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
    "num_attention_heads": 12, "num_channels": 3, "image_size": 224, "patch_size": 32,
}


def _clip_vision_params(r: _Reader) -> int:
    """Parameters of CLIP's vision tower (CLIPVisionModel, no projection): a class embedding
    of h, a Conv2d patch embedding c p p -> h without bias, a position table of (image / p)^2
    + 1 rows of h, a LayerNorm before the blocks (``pre_layrnorm``) and one after
    (``post_layernorm``), both with biases, and ViT blocks with biases.

    >>> _clip_vision_params(_defaulted({"hidden_size": 1024, "intermediate_size": 4096,
    ...     "num_hidden_layers": 24, "num_attention_heads": 16, "image_size": 336,
    ...     "patch_size": 14}, CLIP_VISION_DEFAULTS, "v", "clip_vision_model"))
    303507456
    """
    h = _tower_width(r)
    inter = r.int("intermediate_size")
    n = r.int("num_hidden_layers", kind="layers")
    c = r.int("num_channels", kind="count")
    p = r.int("patch_size", kind="count")
    image = r.int("image_size")
    for key in ("projection_dim", "hidden_act", "layer_norm_eps", "vocab_size"):
        r.raw(key)  # the CLIP model's projection and text vocabulary: not in CLIPVisionModel
    return h + c * p * p * h + ((image // p) ** 2 + 1) * h + 2 * 2 * h \
        + n * _vit_block_params(h, inter)


def _siglip_no_head_params(r: _Reader) -> int:
    """A SigLIP vision tower as LLaVA-OneVision builds it, whose files must say
    ``vision_use_head`` false: absent, SiglipVisionConfig's default (true) builds the pooling
    head, which the library does not count."""
    if r.cfg.get("vision_use_head") is not False:
        raise ConfigError(f"{r.origin}: field 'vision_use_head' must be false: absent or true, "
                          "SiglipVisionModel builds the attention-pooling head, which the "
                          "library does not count")
    for key in ("hidden_act", "layer_norm_eps"):
        r.raw(key)  # no parameters
    _tower_width(r)
    return _siglip_params(r)


#: LLaVA wrappers' vision towers: model_type -> (transformers' defaults, counter).
LLAVA_TOWERS: Mapping[str, tuple[Mapping[str, Any], Callable[[_Reader], int]]] = {
    "clip_vision_model": (CLIP_VISION_DEFAULTS, _clip_vision_params),
    "siglip_vision_model": (SIGLIP_DEFAULTS, _siglip_no_head_params),
}


def _llava_like(r: _Reader, *, text_default: str, towers: tuple[str, ...], feature_default: int,
                newline: bool) -> dict[str, Any]:
    """The LLaVA wrappers (transformers 5.24.0 models/llava and models/llava_onevision): the
    language model in text_config, read by its own family's reader (``text_default`` when the
    file names none; a llama text_config at LlamaConfig's defaults where the file leaves sizes
    out, as LLaVA-1.5's files do); the vision tower AutoModel.from_config(vision_config), one
    of ``towers`` (others refused by name); the projector linear_1 (h x the number of
    vision_feature_layer entries -> d) and linear_2 (d -> d), biases when
    multimodal_projector_bias (default true); LLaVA-OneVision's ``image_newline`` vector of d
    when ``newline``. The head is tied when either config says so (the configs'
    __post_init__)."""
    text = r.raw("text_config", None)
    if not isinstance(text, dict):
        raise ConfigError(f"{r.origin}: field 'text_config' must be an object holding the "
                          "language model's configuration")
    family = text.get("model_type", text_default)
    if family not in FAMILIES or family in ("llava", "llava_onevision", "internvl", "mllama"):
        raise ConfigError(f"{r.origin}: text_config's model_type {family!r:.40} is not a "
                          "language model family the library reads")
    inner = {**LLAVA_LLAMA_DEFAULTS, **{k: v for k, v in text.items() if v is not None}} \
        if family == "llama" else dict(text)
    tied = r.flag("tie_word_embeddings", False) or inner.get("tie_word_embeddings") is True
    wr = _Reader({**r.cfg, "text_config": inner, "tie_word_embeddings": tied}, r.origin,
                 r.family)
    kw = _wrapped_text(wr, family)
    r.read |= wr.read
    top_vocab = r.int("vocab_size", None, kind="vocab")  # LLaVA-1.5's files repeat it here
    if top_vocab is not None and top_vocab != kw["n_vocab"]:
        raise ConfigError(f"{r.origin}: field 'vocab_size' ({top_vocab}) differs from the "
                          f"text_config's ({kw['n_vocab']})")
    layers = r.raw("vision_feature_layer", feature_default)
    if isinstance(layers, list) and layers and all(
            isinstance(x, int) and not isinstance(x, bool) for x in layers):
        n_layers = len(layers)
    elif isinstance(layers, int) and not isinstance(layers, bool):
        n_layers = 1
    else:
        raise ConfigError(f"{r.origin}: field 'vision_feature_layer' must be an integer or a "
                          "list of integers")
    bias = r.flag("multimodal_projector_bias", True)
    for key in ("image_token_index", "image_token_id", "image_seq_length", "ignore_index",
                "projector_hidden_act", "vision_feature_select_strategy", "pad_token_id",
                "video_token_index", "video_token_id", "image_grid_pinpoints",
                "vision_aspect_ratio", "use_image_newline_parameter"):
        r.raw(key)  # token ids, counts, grids and choices of the image path: no parameters
    vision = r.raw("vision_config", None)
    if not isinstance(vision, dict):
        raise ConfigError(f"{r.origin}: field 'vision_config' must be an object")
    tower = vision.get("model_type", towers[0])
    if tower not in towers:
        raise ConfigError(f"{r.origin}: vision_config's model_type {tower!r:.40} is not "
                          f"supported: the {r.family} reader counts {' or '.join(towers)}")
    defaults, count = LLAVA_TOWERS[tower]
    vr = _defaulted(vision, defaults, r.origin + ": vision_config", tower)
    d = kw["d_model"]
    h = vr.int("hidden_size")
    projector = h * n_layers * d + d * d + (2 * d if bias else 0) + (d if newline else 0)
    kw["extras"] = (*kw.get("extras", ()),
                    Extra("vision tower and projector", count(vr) + projector, True,
                          f"the {tower} tower and the two-layer projector"))
    vr.check_unread()
    return kw


def _llava(r: _Reader) -> dict[str, Any]:
    # LlavaForConditionalGeneration: llama by default, CLIP's tower, features of layer -2.
    return _llava_like(r, text_default="llama", towers=("clip_vision_model",),
                       feature_default=-2, newline=False)


def _llava_onevision(r: _Reader) -> dict[str, Any]:
    # LlavaOnevisionForConditionalGeneration: qwen2 by default, SigLIP's tower without its
    # pooling head, features of layer -1, and the image_newline vector of d.
    return _llava_like(r, text_default="qwen2", towers=("siglip_vision_model",),
                       feature_default=-1, newline=True)


# ---- EXAONE 3.0 / 3.5 / Deep (exaone: the Llama implementation under EXAONE's key names) --------
def _alias_int(r: _Reader, key: str, alias: str, **kw: Any) -> int:
    """An integer the file may give under ``key`` or under the configuration class's alias
    ``alias`` (``attribute_map``); both given and unequal is an error naming both."""
    given = {k: r.int(k, None, **kw) for k in (key, alias) if r.cfg.get(k) is not None}
    if len(set(given.values())) > 1:
        raise ConfigError(f"{r.origin}: fields '{key}' ({given[key]}) and '{alias}' "
                          f"({given[alias]}) disagree")
    r.read.update({key, alias})
    if not given:
        raise ConfigError(f"{r.origin}: missing field '{key}' (or its alias '{alias}')")
    return next(iter(given.values()))


def _exaone(r: _Reader) -> dict[str, Any]:
    # ExaoneConfig (transformers 5.24.0 models/exaone: a LlamaConfig built by LlamaForCausalLM;
    # attribute_map num_layers -> num_hidden_layers, layer_norm_epsilon -> rms_norm_eps,
    # activation_function -> hidden_act). LG's remote code names the same tensors otherwise
    # (wte, h.i.ln_1, attn.attention.q/k/v/out_proj, ln_2, mlp.c_fc_0/c_fc_1/c_proj, ln_f):
    # q, k, v, o of head_dim (default d / H; GQA) without biases unless attention_bias, a gated
    # MLP of three matrices (mlp_bias), two RMSNorms a block and a final one; the head untied
    # by default (EXAONE 3.5 2.4B ties it). EXAONE Deep's `ln_no_scale` (false in its files)
    # would drop the norms' weights; no class here reads it, so true is refused by name.
    d = r.int("hidden_size")
    n = _alias_int(r, "num_hidden_layers", "num_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    _restated(r, "ln_no_scale", False, "its norms carry a weight vector")
    b_attn, b_mlp = r.flag("attention_bias", False), r.flag("mlp_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=b_attn, o_bias=b_attn)
    mlp = MLP(r.int("intermediate_size"), bias=b_mlp)
    return _same_blocks(r, d, n, attn, mlp, norms=2)


# ---- Nemotron-4 and Minitron (nemotron: squared ReLU, LayerNorm1P with bias, partial rotary) ---
def _nemotron(r: _Reader) -> dict[str, Any]:
    # NemotronConfig / modeling_nemotron.py (transformers 5.24.0): q, k, v, o of head_dim
    # (default d / H; GQA), all four biased when attention_bias; an ungated MLP, up_proj d -> w
    # and down_proj w -> d (biases when mlp_bias) around hidden_act (relu2: squared ReLU), two
    # matrices; input_layernorm and post_attention_layernorm are NemotronLayerNorm1P (a
    # LayerNorm whose weight is stored minus one, with a bias: two vectors each), so is the
    # final norm; the head untied by default. The rotary fraction (partial_rotary_factor, or
    # the older files' rope_percent / rope_percentage) rotates part of each head and holds no
    # weight. NVIDIA's Nemotron-Mini file gives the head width as Megatron's `kv_channels`,
    # which NemotronConfig does not read (it takes head_dim or d / H): read where it equals
    # that width, refused by name where it does not (transformers would build other heads).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    channels = r.int("kv_channels", None)
    built = r.int("head_dim", None)
    if built is None and channels is not None:
        heads = r.int("num_attention_heads", kind="heads")
        built = d // heads if d % heads == 0 else None
    if channels is not None and channels != built:
        raise ConfigError(f"{r.origin}: field 'kv_channels' ({channels}) differs from the head "
                          f"width NemotronConfig builds ({built}: 'head_dim', else hidden_size / "
                          "num_attention_heads), which transformers and vLLM use")
    h, hkv, dh = r.heads(d)
    r.read.update({"partial_rotary_factor", "rope_percent", "rope_percentage"})
    b = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=b, o_bias=b)
    mlp = MLP(r.int("intermediate_size"), n_mats=2, bias=r.flag("mlp_bias", False))
    return _same_blocks(r, d, n, attn, mlp, norms=4, norm_vecs_final=2)


# ---- OLMo 1 and 1.7 (olmo: non-parametric LayerNorm, optional q/k/v clipping) -----------------
def _olmo(r: _Reader) -> dict[str, Any]:
    # OlmoConfig / modeling_olmo.py (transformers 5.24.0): q, k, v, o of head_dim (a head_dim
    # key, else d / H; GQA), all four biased when attention_bias; a gated MLP without biases;
    # input_layernorm, post_attention_layernorm and the final norm are OlmoLayerNorm, a
    # LayerNorm with neither weight nor bias: no parameter; the head untied by default (OLMo
    # 1B ties it). clip_qkv (OLMo 1.7: 8.0) clamps the q, k, v activations: no weight, and a
    # comparison per element that the FLOP counts leave out; it must be null or positive.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    clip = r.raw("clip_qkv")
    if clip is not None and (isinstance(clip, bool) or not isinstance(clip, (int, float))
                             or not clip > 0):
        raise ConfigError(f"{r.origin}: field 'clip_qkv' must be null or a positive number, "
                          f"got {clip!r:.40}")
    _restated(r, "mlp_bias", False, "its MLP has no biases")
    b = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=b, o_bias=b)
    mlp = MLP(r.int("intermediate_size"))
    return _same_blocks(r, d, n, attn, mlp, norms=0, norm_vecs_final=0)


# ---- StableLM 2 (stablelm: partial rotary, parallel residual, per-head q/k LayerNorms) ----------
def _stablelm(r: _Reader) -> dict[str, Any]:
    # StableLmConfig / modeling_stablelm.py (transformers 5.24.0): q, k, v of d / H per head
    # (no head_dim key: another value is refused by name) with biases when use_qkv_bias, o
    # without; with qk_layernorm, StableLmLayerNormPerHead: one weight-only LayerNorm of d_head
    # per query head and per key/value head (H d_head + H_kv d_head weights, the count of
    # whole-projection norms; each head's norm goes with its head under tensor parallelism);
    # a gated MLP without biases; input_layernorm, and post_attention_layernorm unless
    # use_parallel_residual (attention and MLP then read the same normed input), and the
    # final norm are LayerNorms with bias; the head untied by default. Stability's
    # `use_norm_bias` (false in StableLM 2 12B's file), which transformers does not read,
    # drops the blocks' norm biases: the port that loads that checkpoint (search index file
    # id 45310748995, an MLX StableLM) builds input_layernorm with bias=use_norm_bias and the
    # final norm with a bias, so the library counts what the checkpoint holds and the meta
    # count exceeds it by one d-vector per block norm. The rotary fraction
    # (partial_rotary_factor, the older rope_pct) holds no weight.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    if d % h or dh != d // h:
        raise ConfigError(f"{r.origin}: field 'head_dim' ({dh}) differs from hidden_size / "
                          f"num_attention_heads, the only head width StableLM builds")
    r.read.update({"partial_rotary_factor", "rope_pct"})
    parallel = r.flag("use_parallel_residual", False)
    norm_vecs = 2 if r.flag("use_norm_bias", True) else 1
    attn = Attention(h, hkv, dh, qkv_bias=r.flag("use_qkv_bias", False),
                     qk_norm="full" if r.flag("qk_layernorm", False) else "",
                     qk_norm_split=r.flag("qk_layernorm", False))
    _restated(r, "attention_bias", False, "its output projection has no bias; q, k and v "
              "take theirs from use_qkv_bias")
    _restated(r, "mlp_bias", False, "its MLP has no biases")
    mlp = MLP(r.int("intermediate_size"))
    return _same_blocks(r, d, n, attn, mlp, norms=norm_vecs * (1 if parallel else 2),
                        norm_vecs_final=2)


FAMILIES: Mapping[str, Callable[[_Reader], dict[str, Any]]] = {
    "llama": _llama, "mistral": _mistral, "mixtral": _mixtral, "qwen2": _qwen2, "mimo": _mimo,
    "qwen3": _qwen3, "qwen3_moe": _qwen3_moe, "gemma": _gemma, "gemma2": _gemma2,
    "gemma3": _gemma3, "gemma3_text": _gemma3_text, "phi3": _phi3, "phimoe": _phimoe,
    "longcat_flash": _longcat_flash, "glm4": _glm4,
    "phi": _phi, "olmo2": _olmo2, "olmoe": _olmoe, "cohere": _cohere, "cohere2": _cohere2,
    "gpt2": _gpt2, "opt": _opt,
    "falcon": _falcon, "gpt_neox": _gpt_neox, "gpt_bigcode": _gpt_bigcode,
    "starcoder2": _starcoder2, "deepseek_v2": _deepseek_v2,
    "deepseek_v3": _deepseek_v3,
    "gpt_oss": _gpt_oss, "llama4": _llama4, "llama4_text": _llama4_text,
    "nemotron_h": _nemotron_h, "glm4_moe": _glm4_moe, "minimax_m2": _minimax_m2,
    "minimax_m3": _minimax_m3, "minimax": _minimax, "minimax_m1": _minimax,
    "minimax_text_01": _minimax,
    "kimi_k25": _kimi_k25, "kimi_linear": _kimi_linear, "kimi_k3": _kimi_k3,
    "deepseek_v32": _deepseek_v32, "glm_moe_dsa": _deepseek_v32,
    "laguna": _laguna, "mimo_v2_flash": _mimo_v2_flash, "step3p7": _step3p7,
    "gemma4": _gemma4, "gemma4_text": _gemma4_text, "gemma3n": _gemma3n,
    "gemma3n_text": _gemma3n_text, "deepseek_v4": _deepseek_v4,
    "mistral3": _mistral3, "smollm3": _smollm3, "nemotron-nas": _nemotron_nas,
    "glm4_moe_lite": _glm4_moe_lite, "seed_oss": _seed_oss, "ernie4_5_moe": _ernie4_5_moe,
    "ernie4_5": _ernie4_5,
    "hunyuan_v1_moe": _hunyuan_v1_moe, "hunyuan_v1_dense": _hunyuan_v1_dense, "dots1": _dots1, "bailing_moe_v2": _bailing_moe_v2, "afmoe": _afmoe, "arcee": _arcee, "exaone4": _exaone4, "olmo3": _olmo3,
    "apertus": _apertus,
    "granitemoehybrid": _granitemoehybrid, "falcon_h1": _falcon_h1, "lfm2": _lfm2_of(moe=False),
    "lfm2_moe": _lfm2_of(moe=True), "phi4flash": _phi4flash, "jamba": _jamba,
    "falcon_mamba": _falcon_mamba, "bamba": _bamba,
    "step3_text": _step3_text,
    "minicpm3": _minicpm3,
    "minicpm": _minicpm,
    "internlm3": _internlm3,
    "qwen3_vl": _qwen3_vl_of("qwen3"),
    "qwen3_vl_moe": _qwen3_vl_of("qwen3_moe"),
    "qwen3_next": _qwen3_next_of(moe=True),
    "qwen3_5_text": _qwen3_next_of(moe=False),
    "qwen3_5_moe_text": _qwen3_next_of(moe=True),
    "qwen3_5": _qwen3_vl_of("qwen3_5_text", "Qwen3.5's vision encoder and merger (Qwen3-VL's, "
                            "without deepstack mergers)"),
    "qwen3_5_moe": _qwen3_vl_of("qwen3_5_moe_text", "Qwen3.5's vision encoder and merger "
                                "(Qwen3-VL's, without deepstack mergers)"),
    "grok-1": _grok, "qwen2_moe": _qwen2_moe, "dbrx": _dbrx,
    "granite": _granite,
    "glm4v_moe": _glm4v_moe, "glm4v_moe_text": _glm4v_moe_text,
    "ernie4_5_vl_moe": _ernie4_5_vl_moe, "ernie4_5_vl_moe_text": _ernie4_5_vl_moe_text,
    "kimi_vl": _kimi_vl,
    "qwen2_5_vl": _qwen2_vl_of("qwen2_5_vl_text", "qwen2_5_vl_vision", _qwen2_5_vl_vision_params,
                               "Qwen2.5-VL's window-attention vision encoder and patch merger"),
    "qwen2_5_vl_text": _qwen2_vl_text,
    "qwen2_vl": _qwen2_vl_of("qwen2_vl_text", "qwen2_vl_vision", _qwen2_vl_vision_params,
                             "Qwen2-VL's vision encoder and patch merger"),
    "qwen2_vl_text": _qwen2_vl_text,
    "mllama": _mllama, "mllama_text_model": _mllama_text,
    "internvl": _internvl,
    "llava": _llava,
    "llava_onevision": _llava_onevision,
    "exaone": _exaone,
    "nemotron": _nemotron,
    "olmo": _olmo,
    "stablelm": _stablelm,
}

#: model_type -> what completes its checkpoint's scheme (the one :func:`find_scheme` read from
#: ``quantization_config``, None for a file without one) from the file's other fields and
#: what is known of its release, called as ``adjust(scheme, cfg, origin)`` by
#: :func:`read_config`: DeepSeek-V4's ``expert_dtype`` (MXFP4 experts beside fp8 blocks, E8M0
#: scales, fp32 mixers); MiniMax-M3's bf16 release with its routers in fp32. A family not
#: listed ships what its ``quantization_config`` says, or 16-bit weights without one.
SCHEME_ADJUSTERS: Mapping[str, Callable[[Scheme | None, Mapping[str, Any], str],
                                        Scheme | None]] = {
    "deepseek_v4": deepseek_v4_scheme,
    "minimax_m3": minimax_m3_scheme,
}

#: ``architectures`` (the class a runtime loads) -> the reader of the layout it builds, used
#: when the library does not know the file's ``model_type``: Kimi K2 says ``kimi_k2`` and
#: ``DeepseekV3ForCausalLM`` (DeepSeek-V3's layout with 384 experts), and runtimes dispatch
#: on the architecture. A known ``model_type`` wins, so that a relabelled file still meets its
#: reader's refusals.
ARCHITECTURES: Mapping[str, str] = {
    "LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral",
    "MixtralForCausalLM": "mixtral", "Qwen2ForCausalLM": "qwen2", "Qwen3ForCausalLM": "qwen3",
    "Qwen3MoeForCausalLM": "qwen3_moe", "GemmaForCausalLM": "gemma",
    "Gemma2ForCausalLM": "gemma2", "Gemma3ForCausalLM": "gemma3_text",
    "Gemma3ForConditionalGeneration": "gemma3", "Phi3ForCausalLM": "phi3",
    "PhiMoEForCausalLM": "phimoe", "Olmo2ForCausalLM": "olmo2", "OlmoeForCausalLM": "olmoe",
    "DeepseekV2ForCausalLM": "deepseek_v2", "DeepseekV3ForCausalLM": "deepseek_v3",
    "GptOssForCausalLM": "gpt_oss", "Llama4ForConditionalGeneration": "llama4",
    "NemotronHForCausalLM": "nemotron_h", "Glm4MoeForCausalLM": "glm4_moe",
    "MiniMaxM2ForCausalLM": "minimax_m2", "KimiK25ForConditionalGeneration": "kimi_k25",
    "MiniMaxM3ForCausalLM": "minimax_m3", "MiniMaxM3SparseForCausalLM": "minimax_m3",
    "MiniMaxForCausalLM": "minimax", "MiniMaxM1ForCausalLM": "minimax_m1",
    "MiniMaxText01ForCausalLM": "minimax_text_01",
    "KimiK3ForConditionalGeneration": "kimi_k3",
    "Qwen3VLForConditionalGeneration": "qwen3_vl",
    "Qwen3VLMoeForConditionalGeneration": "qwen3_vl_moe",
    "DeepseekV32ForCausalLM": "deepseek_v32", "GlmMoeDsaForCausalLM": "glm_moe_dsa",
    "LagunaForCausalLM": "laguna", "MiMoV2FlashForCausalLM": "mimo_v2_flash",
    "Qwen3NextForCausalLM": "qwen3_next", "Qwen3_5ForConditionalGeneration": "qwen3_5",
    "Qwen3_5MoeForConditionalGeneration": "qwen3_5_moe",
    "Gemma4ForConditionalGeneration": "gemma4", "Gemma4ForCausalLM": "gemma4_text",
    "Gemma3nForConditionalGeneration": "gemma3n", "Gemma3nForCausalLM": "gemma3n_text",
    "DeepseekV4ForCausalLM": "deepseek_v4", "KimiLinearForCausalLM": "kimi_linear",
    "Mistral3ForConditionalGeneration": "mistral3", "SmolLM3ForCausalLM": "smollm3",
    "GPTNeoXForCausalLM": "gpt_neox", "Step3p7FlashForCausalLM": "step3p7",
    "GPTBigCodeForCausalLM": "gpt_bigcode", "Starcoder2ForCausalLM": "starcoder2",
    "MiMoForCausalLM": "mimo", "DeciLMForCausalLM": "nemotron-nas",
    "Glm4MoeLiteForCausalLM": "glm4_moe_lite", "SeedOssForCausalLM": "seed_oss",
    "Ernie4_5_MoeForCausalLM": "ernie4_5_moe", "HunYuanMoEV1ForCausalLM": "hunyuan_v1_moe",
    "HunYuanForCausalLM": "hunyuan_v1_moe",
    "Ernie4_5ForCausalLM": "ernie4_5", "Ernie4_5_ForCausalLM": "ernie4_5",
    "HunYuanDenseV1ForCausalLM": "hunyuan_v1_dense",
    "Dots1ForCausalLM": "dots1", "Exaone4ForCausalLM": "exaone4", "Olmo3ForCausalLM": "olmo3",
    "ApertusForCausalLM": "apertus",
    "GraniteMoeHybridForCausalLM": "granitemoehybrid", "FalconH1ForCausalLM": "falcon_h1",
    "Lfm2ForCausalLM": "lfm2", "Lfm2MoeForCausalLM": "lfm2_moe",
    "Phi4FlashForCausalLM": "phi4flash", "BailingMoeV2ForCausalLM": "bailing_moe_v2",
    "AfmoeForCausalLM": "afmoe", "ArceeForCausalLM": "arcee", "JambaForCausalLM": "jamba",
    "FalconMambaForCausalLM": "falcon_mamba", "BambaForCausalLM": "bamba",
    "Grok1ForCausalLM": "grok-1", "Grok1ModelForCausalLM": "grok-1",
    "Qwen2MoeForCausalLM": "qwen2_moe", "DbrxForCausalLM": "dbrx",
    "GraniteForCausalLM": "granite",
    "Step3TextForCausalLM": "step3_text",
    "MiniCPM3ForCausalLM": "minicpm3",
    "MiniCPMForCausalLM": "minicpm",
    "InternLM3ForCausalLM": "internlm3",
    "Glm4vMoeForConditionalGeneration": "glm4v_moe",
    "Ernie4_5_VLMoeForConditionalGeneration": "ernie4_5_vl_moe",
    "KimiVLForConditionalGeneration": "kimi_vl",
    "Qwen2_5_VLForConditionalGeneration": "qwen2_5_vl",
    "Qwen2VLForConditionalGeneration": "qwen2_vl",
    "MllamaForConditionalGeneration": "mllama",
    "InternVLForConditionalGeneration": "internvl",
    "LlavaForConditionalGeneration": "llava",
    "LlavaOnevisionForConditionalGeneration": "llava_onevision",
    "ExaoneForCausalLM": "exaone",
    "NemotronForCausalLM": "nemotron",
    "OlmoForCausalLM": "olmo",
    "StableLmForCausalLM": "stablelm",
}


def _scope_family(scope: Mapping[str, Any]) -> str | None:
    """The family a config (or a wrapped language model's config) names: its ``model_type``, or
    else the family of its first ``architectures`` entry (a wrapper's text_config may name only
    that: MiniMax-M3-VL's ``MiniMaxM3SparseForCausalLM``)."""
    if isinstance(scope.get("model_type"), str):
        return scope["model_type"]
    archs = _architectures(scope)
    return ARCHITECTURES.get(archs[0]) if archs else None


def _architectures(scope: Mapping[str, Any]) -> list[str]:
    """The class names a config's ``architectures`` lists (its strings; [] without the list)."""
    archs = scope.get("architectures")
    return [a for a in archs if isinstance(a, str)] if isinstance(archs, list) else []


def _missing_feature(cfg: Mapping[str, Any]) -> str:
    """The layer kinds of :data:`FEATURES` the file (or a wrapped language model) declares,
    in that order, as "it needs <feature>, declared by field 'key'" (the first one; the others
    follow, "; and <feature>, field 'key'"), or what else it lacks."""
    scopes = [("", cfg)] + [(f"{k}.", cfg[k]) for k in ("text_config", "language_config",
                                                       "llm_config")
                            if isinstance(cfg.get(k), dict)]
    found: list[str] = []
    for key, feature in FEATURES:
        for prefix, scope in scopes:
            if _scope_family(scope) in MODELLED_BY.get(key, ()):
                continue
            if _declared(scope, key) not in _NEUTRAL:
                found.append(f"{feature}, declared by field '{prefix}{key}'" if not found
                             else f"{feature}, field '{prefix}{key}'")
                break
        types = [scope.get("layer_types") for _, scope in scopes]
        if key == "linear_num_value_heads" and not found and any(
                isinstance(t, list) and "linear_attention" in t for t in types):
            found.append(f"{feature}, declared by 'linear_attention' in field 'layer_types'")
    if found:
        return "it needs " + "; and ".join(found)
    for prefix, scope in scopes:
        if isinstance(scope.get("vision_config"), dict) and prefix == "":
            return "it needs a vision tower the library does not count"
    return "no reader knows its layout"


# ---- reading files ------------------------------------------------------------------------------
def _depth(obj: Any, limit: int = MAX_DEPTH) -> int:
    stack = [(obj, 1)]
    deepest = 0
    while stack:
        o, dpt = stack.pop()
        deepest = max(deepest, dpt)
        if deepest > limit:
            return deepest
        if isinstance(o, dict):
            stack.extend((v, dpt + 1) for v in o.values())
        elif isinstance(o, list):
            stack.extend((v, dpt + 1) for v in o)
    return deepest


def _parse(text: str, origin: str) -> dict[str, Any]:
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"malformed JSON in {origin}: {e.msg} at line {e.lineno} column "
                          f"{e.colno}") from None
    except RecursionError:
        raise ConfigError(f"{origin}: JSON nested too deeply (real configs nest a few "
                          "levels)") from None
    except ValueError as e:  # e.g. an integer of thousands of digits
        raise ConfigError(f"{origin}: unreadable JSON value ({str(e)[:80]})") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{origin}: expected a JSON object, got {type(cfg).__name__}")
    if _depth(cfg) > MAX_DEPTH:
        raise ConfigError(f"{origin}: JSON nested more than {MAX_DEPTH} levels deep")
    return cfg


def _read_text(config: str | os.PathLike[str]) -> tuple[str, str]:
    if str(config) == "-":
        data = sys.stdin.buffer.read(MAX_CONFIG_BYTES + 1) if hasattr(sys.stdin, "buffer") \
            else sys.stdin.read(MAX_CONFIG_BYTES + 1).encode()
        origin = "<stdin>"
    else:
        path = Path(config)
        origin = str(path)
        if path.is_dir():
            if not (path / "config.json").is_file():
                raise ConfigError(f"{path} is a folder with no config.json in it")
            path = path / "config.json"
            origin = str(path)
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_CONFIG_BYTES + 1)
        except FileNotFoundError:
            raise ConfigError(f"no such config file: {path}") from None
        except (OSError, ValueError) as e:
            raise ConfigError(f"cannot read {path}: {e}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{origin}: larger than {MAX_CONFIG_BYTES >> 20} MiB; a config.json "
                          "is a few kB, a few MB with a per-module quantization list")
    try:
        return data.decode("utf-8"), origin
    except UnicodeDecodeError:
        raise ConfigError(f"{origin}: not UTF-8 text (is it a config.json?)") from None


def _hf_quant_scheme(text: str, origin: str) -> Scheme:
    """The scheme of a ModelOpt ``hf_quant_config.json`` (its text, its path), read as the
    ``quantization_config`` it stands for (:func:`~llm_arithmetic.catalog.quantization.
    read_hf_quant`); an error names the field as the file spells it (``quantization.X``).
    """
    return read_hf_quant(_parse(text, origin), origin)


def read_config(config: Any, name: str | None = None, source: str = "") -> Model:
    """A :class:`Model` from a Hugging Face config: a path (or a folder holding
    ``config.json``), ``"-"`` for standard input, or the parsed dict. A ``config.json`` without
    a ``quantization_config`` beside a ModelOpt ``hf_quant_config.json`` (NVIDIA's NVFP4
    checkpoints) takes its scheme from that file, as vLLM and TensorRT-LLM load it.

    Raises :class:`ConfigError` naming the field for a missing, non-integer, non-positive,
    implausible or inconsistent value, for a key its family's reader does not understand, for
    malformed, oversized or too deeply nested JSON and for an unsupported ``model_type``.
    """
    quant_file = None
    if isinstance(config, Mapping):
        cfg = dict(config)
        origin = name or "config"
    else:
        text, origin = _read_text(config)
        cfg = _parse(text, origin)
        beside = Path(origin).with_name("hf_quant_config.json")
        if origin != "<stdin>" and Path(origin).name == "config.json" and beside.is_file():
            quant_file = _read_text(beside)
        if not source and origin != "<stdin>":
            source = origin
        if name is None:
            p = Path(origin)
            name = p.parent.name if p.name == "config.json" else p.stem
    family = cfg.get("model_type")
    if family is None:
        raise ConfigError(f"{origin}: missing field 'model_type'")
    if not isinstance(family, str):
        raise ConfigError(f"{origin}: field 'model_type' must be a string, got {family!r:.40}")
    archs = _architectures(cfg)
    if family not in FAMILIES:
        family = next((ARCHITECTURES[a] for a in archs if a in ARCHITECTURES), family)
    if family not in FAMILIES:
        named = f", architectures {archs!r:.80}" if archs else ""
        raise ConfigError(f"{origin}: unsupported model_type {family!r:.60}{named}: "
                          f"{_missing_feature(cfg)} (supported: {', '.join(sorted(FAMILIES))})")
    reader = _Reader(cfg, origin, family)
    kw = FAMILIES[family](reader)
    reader.check_unread()
    scheme = find_scheme(cfg, origin)
    listed_in = None  # the file that holds the scheme's record, where not config.json
    if scheme is None and quant_file is not None:
        scheme = _hf_quant_scheme(*quant_file)
        listed_in = quant_file[1]
    adjust = SCHEME_ADJUSTERS.get(family)
    if adjust is not None:
        scheme = adjust(scheme, cfg, origin)
    model = Model(name=name or family, family=family, source=source, **kw)
    if scheme is None:
        return model
    try:
        bits = native_bits(model, scheme)
    except ConfigError as e:
        if listed_in is None:
            raise
        # a refusal of hf_quant_config.json's lists names that file and its fields as it spells
        # them (quantization.X), as _hf_quant_scheme's errors do
        text = str(e).removeprefix(f"{model.name}: ")
        raise ConfigError(f"{listed_in}: " + text.replace("'quantization_config.",
                                                          "'quantization.")) from None
    return replace(model, native_bits=bits, scheme=scheme)
