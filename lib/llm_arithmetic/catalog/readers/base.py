"""What every config reader shares: typed access to a config with errors that name the field
(:class:`Reader`), the plausibility limits (:data:`LIMITS`), the layer kinds and keys a reader
must understand or refuse (:data:`FEATURES`, :data:`COUNT_KEYS`), and the helpers that turn a
family's blocks into a :class:`~llm_arithmetic.catalog.model.Model`'s fields (:func:`decoder`,
:func:`same_blocks`, :func:`stack_fields`), with the pieces several families use: sliding
windows, routed experts, multi-token prediction modules, a wrapped language model and a vision
tower's blocks. The family modules beside it (``dense``, ``classic``, ``gemma``, ``moe``,
``latent``, ``hybrid``, ``per_layer``, ``multimodal``) build on these; the package's
``__init__`` lists them in :data:`FAMILIES`.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping

from ...core.errors import ConfigError
from ..model import MLP, MTP_EXTRA, Attention, Extra, Layers


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

NEUTRAL = (None, False, 0, "", [], {})

_FEATURE_OF = dict(FEATURES)


class Reader:
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
        if v not in NEUTRAL:
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
            if v not in NEUTRAL and key in _FEATURE_OF:
                raise ConfigError(
                    f"{self.origin}: field '{key}' = {v!r:.60} declares {meaning}, which the "
                    f"'{self.family}' reader does not model, and counting without it would "
                    "describe a different model")
            if v not in NEUTRAL:
                raise ConfigError(
                    f"{self.origin}: field '{key}' = {v!r:.60} ({meaning}) is not understood by "
                    f"the '{self.family}' reader, and counting without it would describe a "
                    "different model; is the model_type right?")


#: model_type -> the reader of its family: a function of a :class:`Reader` that returns the
#: model's fields. The package (``readers/__init__.py``) fills it once every family's module is
#: loaded; it is declared here so that the readers of wrappers (a multimodal file's language
#: model in ``text_config``) find the reader of the family they wrap without importing the
#: package that imports them.
FAMILIES: dict[str, Callable[[Reader], dict[str, Any]]] = {}


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


def read_context(r: Reader, default: Any = None) -> int | None:
    """The trained context, ``max_position_embeddings`` [tokens], checked against the
    "context" limit of :data:`LIMITS`; ``default`` where the file leaves it out (``...``: the
    field is required)."""
    return r.int("max_position_embeddings", default, kind="context")


# ---- windows ----------------------------------------------------------------------------------
def window_flags(r: Reader, n: int, rule: str) -> list[bool]:
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


def read_window(r: Reader, default: int | None = None) -> int | None:
    return r.int("sliding_window", default, kind="context")


# ---- a family's blocks as the model's fields ----------------------------------------------------
def decoder(r: Reader, *, attention: Callable[[int], Attention],
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


def same_blocks(r: Reader, d: int, n: int, attn: Attention, mlp: MLP, *, norms: int,
                tied_default: bool = False, norm_vecs_final: int = 1) -> dict[str, Any]:
    """The model's fields for ``n`` identical blocks of width ``d`` (one attention, one MLP,
    ``norms`` norm vectors each), the head tied as ``tie_word_embeddings`` says (else
    ``tied_default``), the trained context ``max_position_embeddings``: what the readers of
    plain decoders (MiniCPM, InternLM3, EXAONE, Nemotron, OLMo, StableLM) give
    :func:`decoder`."""
    return decoder(r, n_layers=n, norms=norms,
                   tied=r.flag("tie_word_embeddings", tied_default),
                   trained_context=read_context(r),
                   attention=lambda i: attn, mlp=lambda i: mlp, d_model=d,
                   norm_vecs_final=norm_vecs_final)


def stack_fields(r: Reader, d: int, layers: list[Layers], *,
                 context_default: int | None = None) -> dict[str, Any]:
    """The model's fields from a reader's list of blocks (one :class:`Layers` each, merged
    into runs): ``vocab_size``, an untied head unless ``tie_word_embeddings``, the trained
    context ``max_position_embeddings`` (else ``context_default``), 16-bit weights; what
    :func:`decoder` gives for readers that build each block themselves (mixers,
    hyper-connections)."""
    return dict(n_vocab=r.int("vocab_size", kind="vocab"), d_model=d, layers=_runs(layers),
                tied=r.flag("tie_word_embeddings", False),
                trained_context=read_context(r, context_default),
                native_bits=_bits16())


def routed_experts(r: Reader, *, n_key: str, k_key: str = "num_experts_per_tok",
                   defaults: tuple[Any, Any] = (..., ...)) -> tuple[int, int]:
    """The routed experts E (``n_key``) and the experts per token k (``k_key``), each with its
    default (``...``: required); k > E is an error naming both fields."""
    e = r.int(n_key, defaults[0], kind="experts")
    k = r.int(k_key, defaults[1], kind="experts")
    if k > e:
        raise ConfigError(f"{r.origin}: field '{k_key}' ({k}) exceeds '{n_key}' ({e})")
    return e, k


def with_mlp(kw: dict[str, Any], change: Callable[[MLP], MLP]) -> dict[str, Any]:
    kw["layers"] = tuple(Layers(run.count, run.attention, run.mixer, change(run.mlp), run.norms)
                         for run in kw["layers"])
    return kw


def restated(r: Reader, key: str, fixed: bool, layout: str) -> None:
    """Accept a key that restates what the family's layout fixes; refuse one that contradicts
    it, naming the key."""
    if r.flag(key, fixed) != fixed:
        raise ConfigError(
            f"{r.origin}: field '{key}' = {str(not fixed).lower()} contradicts the "
            f"'{r.family}' layout ({layout}), and counting without it would describe a "
            "different model; is the model_type right?")


def defaulted(cfg: Mapping[str, Any], defaults: Mapping[str, Any], origin: str,
              family: str) -> Reader:
    """A reader of ``cfg`` over transformers' ``defaults`` for the keys it leaves out or sets
    to null (what the family's configuration class does)."""
    return Reader({**defaults, **{k: v for k, v in cfg.items() if v is not None}}, origin,
                  family)


def one_of(r: Reader, keys: tuple[str, ...], default: Any, kind: str) -> int:
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


def architectures_of(scope: Mapping[str, Any]) -> list[str]:
    """The class names a config's ``architectures`` lists (its strings; [] without the list)."""
    archs = scope.get("architectures")
    return [a for a in archs if isinstance(a, str)] if isinstance(archs, list) else []


# ---- multi-token prediction modules ------------------------------------------------------------
def mtp_extras(r: Reader, kw: Mapping[str, Any], block: Layers,
               note: str, *, own_tables: bool = True) -> tuple[Extra, ...]:
    """Multi-token prediction layers (``num_nextn_predict_layers``) in DeepSeek-V3's layout,
    which transformers does not build: each module has enorm, hnorm (d each), eh_proj
    (2d x d), one decoder block, shared_head.norm (d), and its checkpoint also stores an
    embedding table and an output head (V x d each) unless ``own_tables`` is false (GLM-5.x:
    the module uses the model's). Reported apart, not in the total."""
    return with_mtp(kw, r.int("num_nextn_predict_layers", 0, kind="layers", minimum=0), [block],
                    note, own_embeddings=own_tables, names="layers")


def with_mtp(kw: Mapping[str, Any], modules: int, blocks: list[Layers], note: str, *,
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


# ---- wrapped language models and vision towers ---------------------------------------------------
def wrapped_text(r: Reader, family: str, key: str = "text_config") -> dict[str, Any]:
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
    tr = Reader(inner, f"{r.origin}: {key}", family)
    kw = FAMILIES[family](tr)
    tr.check_unread()
    return kw


def vision_reader(r: Reader, family: str) -> Reader:
    """A reader of the file's required ``vision_config`` object."""
    vision = r.raw("vision_config", None)
    if not isinstance(vision, dict):
        raise ConfigError(f"{r.origin}: field 'vision_config' must be an object")
    return Reader(vision, r.origin + ": vision_config", family)


def vit_block_params(h: int, inter: int) -> int:
    """One vision-transformer encoder block: q, k, v and output projections with biases (fused
    or not), two LayerNorms with biases, an MLP h -> inter -> h with biases."""
    return 4 * (h * h + h) + 2 * 2 * h + (h * inter + inter) + (inter * h + h)


def vit_matmul_params(r: Reader, patch: int) -> int:
    """A plain ViT's weights in matrix products for one patch (CLIP, SigLIP, InternViT): the
    patch embedding c p^2 -> h and per layer q, k, v, o (4 h^2) and the MLP (2 h i), from the
    tower's ``num_channels``, ``hidden_size``, ``num_hidden_layers``, ``intermediate_size``."""
    h, n = r.int("hidden_size"), r.int("num_hidden_layers", kind="layers")
    return (r.int("num_channels", 3, kind="count") * patch * patch * h
            + n * (4 * h * h + 2 * h * r.int("intermediate_size")))


def vit_patch_params(r: Reader, patch: int) -> int:
    """Of :func:`vit_matmul_params`, the patch embedding's c p^2 h weights."""
    return r.int("num_channels", 3, kind="count") * patch * patch * r.int("hidden_size")


def head_width(r: Reader, h: int, heads: int, key: str = "num_attention_heads") -> int:
    """The width of one of a tower's ``heads`` attention heads (the field ``key``) over its
    ``hidden_size`` h [-]; an error naming the field when they do not divide."""
    if h % heads:
        raise ConfigError(f"{r.origin}: field '{key}' ({heads}) does not divide "
                          f"'hidden_size' ({h})")
    return h // heads
