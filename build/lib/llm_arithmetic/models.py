"""Models: an architecture record, a reader for Hugging Face ``config.json``, and a catalog.

:class:`Model` holds the sizes the formulas need. :meth:`Model.from_hf_config` reads a
Hugging Face config of the families llama, mistral, mixtral, qwen2, gemma, gemma2, phi3, phi,
cohere and gpt2, applying each family's conventions that the file leaves implicit (the
defaults of the ``transformers`` configuration classes and the layout of their modeling code):

============  ===========  ==========  =====================  ===========  ==================
family        tied default  biases      norm vectors / block   final norm   MLP
============  ===========  ==========  =====================  ===========  ==================
llama         False         attention_bias (q,k,v,o), mlp_bias  2 (RMSNorm)  1    gated (3)
mistral       False         none        2                      1            gated
mixtral       False         none        2                      1            gated experts + router
qwen2         False         q, k, v     2                      1            gated
gemma         True          none        2                      1            gated (GeGLU)
gemma2        True          none        4 (pre/post attn/MLP)  1            gated (GeGLU)
phi3          False         none        2                      1            gated (fused)
phi           False         all + head  2 (one LayerNorm)      2            plain (2)
cohere        True          attention_bias  1 (LayerNorm, no bias; parallel block)  1  gated
gpt2          True          all         4 (two LayerNorms)     2            plain (2)
============  ===========  ==========  =====================  ===========  ==================

Anything missing, non-integer, non-positive or inconsistent raises :class:`ConfigError`
(a ``ValueError``) whose message names the field.

>>> m = Model.from_hf_config({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
...     "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008})
>>> m.total_params, m.kv_bytes_per_token()
(6738415616, 524288)
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from fractions import Fraction
from numbers import Integral
from pathlib import Path
from typing import Any, Mapping

from . import memory, params

__all__ = ["ConfigError", "Model", "FAMILIES"]


class ConfigError(ValueError):
    """A model configuration that cannot describe a model; the message names the field."""


_SIZE_FIELDS = ("n_vocab", "d_model", "n_layers", "n_heads", "n_kv_heads", "d_head", "d_ff")
_FLAG_FIELDS = ("tied", "qkv_bias", "o_bias", "mlp_bias", "head_bias")


@dataclass(frozen=True)
class Model:
    """Architecture of a decoder-only transformer (sizes are integers, flags booleans).

    Attributes
    ----------
    name : str
        Catalog key or a name given by the caller.
    n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_head, d_ff : int
        Sizes; ``d_ff`` is the width of one expert's MLP for a mixture of experts.
    n_mlp_mats : int
        3 for a gated MLP (gate, up, down), 2 for a plain one.
    n_experts, n_active_experts : int
        Experts per block and per token (1, 1 for a dense model).
    tied : bool
        The output head reuses the input embedding matrix.
    n_positions : int
        Rows of a learned position-embedding table (0 for rotary models).
    qkv_bias, o_bias, mlp_bias, head_bias : bool
        Which linear layers carry biases.
    norm_vecs_layer, norm_vecs_final : int
        Normalization vectors of width d_model per block and after the last block.
    sliding_window : int or None
        Attention window in tokens, where the model uses one.
    n_window_layers : int
        How many blocks use that window (all of them for Mistral 7B v0.1, every other one for
        Gemma 2); 0 without a window.
    max_context : int or None
        Context length the model was trained for (``max_position_embeddings``).
    family : str
        The Hugging Face ``model_type`` it was read as.
    source : str
        Where the configuration comes from.
    """

    name: str
    n_vocab: int
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    d_head: int
    d_ff: int
    n_mlp_mats: int = 3
    n_experts: int = 1
    n_active_experts: int = 1
    tied: bool = False
    n_positions: int = 0
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    head_bias: bool = False
    norm_vecs_layer: int = 2
    norm_vecs_final: int = 1
    sliding_window: int | None = None
    n_window_layers: int = 0
    max_context: int | None = None
    family: str = ""
    source: str = ""

    def __post_init__(self) -> None:
        for f in _SIZE_FIELDS + ("n_experts", "n_active_experts"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, Integral):
                raise ConfigError(f"{self.name}: {f} must be an integer, got {v!r}")
            if v <= 0:
                raise ConfigError(f"{self.name}: {f} must be positive, got {v}")
        for f in ("n_positions", "norm_vecs_layer", "norm_vecs_final", "n_window_layers"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, Integral) or v < 0:
                raise ConfigError(f"{self.name}: {f} must be a non-negative integer, got {v!r}")
        for f in ("sliding_window", "max_context"):
            v = getattr(self, f)
            if v is not None and (isinstance(v, bool) or not isinstance(v, Integral) or v <= 0):
                raise ConfigError(f"{self.name}: {f} must be a positive integer or None, got {v!r}")
        if self.n_window_layers > self.n_layers:
            raise ConfigError(f"{self.name}: n_window_layers ({self.n_window_layers}) exceeds "
                              f"n_layers ({self.n_layers})")
        if self.n_window_layers and self.sliding_window is None:
            raise ConfigError(f"{self.name}: n_window_layers is {self.n_window_layers} but no "
                              "sliding_window is given")
        if self.n_mlp_mats not in (2, 3):
            raise ConfigError(f"{self.name}: n_mlp_mats must be 2 or 3, got {self.n_mlp_mats!r}")
        if self.n_heads % self.n_kv_heads:
            raise ConfigError(
                f"{self.name}: n_kv_heads ({self.n_kv_heads}) does not divide "
                f"n_heads ({self.n_heads})"
            )
        if self.n_active_experts > self.n_experts:
            raise ConfigError(
                f"{self.name}: n_active_experts ({self.n_active_experts}) exceeds "
                f"n_experts ({self.n_experts})"
            )

    # ---- derived quantities -----------------------------------------------------------
    def arch(self) -> dict[str, int]:
        """Keyword arguments for the functions of :mod:`llm_arithmetic.params`."""
        kw = {f: int(getattr(self, f)) for f in _SIZE_FIELDS}
        kw.update(n_mlp_mats=self.n_mlp_mats, n_experts=self.n_experts,
                  n_active_experts=self.n_active_experts, n_positions=self.n_positions,
                  norm_vecs_layer=self.norm_vecs_layer, norm_vecs_final=self.norm_vecs_final)
        kw.update({f: int(bool(getattr(self, f))) for f in _FLAG_FIELDS})
        return kw

    @property
    def total_params(self) -> int:
        """All parameters (every expert) [-]."""
        return params.total_params(**self.arch())

    @property
    def active_params(self) -> int:
        """Parameters one token uses (k of E experts) [-]."""
        return params.active_params(**self.arch())

    @property
    def matmul_params(self) -> int:
        """Weights in matrix products for one token [-]."""
        return params.matmul_params(**self.arch())

    @property
    def decode_read_params(self) -> int:
        """Parameters one decode step reads [-] (one row of an untied embedding table)."""
        return params.decode_read_params(**self.arch())

    @property
    def is_moe(self) -> bool:
        return self.n_experts > 1

    def kv_bytes_per_token(self, bits_kv: Any = 16) -> Any:
        """KV-cache bytes per token, all layers, K and V [B]."""
        return memory.kv_cache_bytes_per_token(n_layers=self.n_layers,
                                               n_kv_heads=self.n_kv_heads,
                                               d_head=self.d_head, bits_kv=bits_kv)

    def attended_context(self, context: Any) -> Any:
        """Cached positions a decode step reads per layer on average, windows applied [token]."""
        return memory.attended_context(context=context, n_layers=self.n_layers,
                                       n_window_layers=self.n_window_layers,
                                       window=self.sliding_window or 1)

    def with_(self, **changes: Any) -> "Model":
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    # ---- reading Hugging Face configs --------------------------------------------------
    @classmethod
    def from_hf_config(cls, config: str | os.PathLike[str] | Mapping[str, Any],
                       name: str | None = None, source: str = "") -> "Model":
        """Read a Hugging Face ``config.json`` (a path, or the parsed dict).

        Raises :class:`ConfigError` naming the field for a missing, non-integer, non-positive
        or inconsistent value, for malformed JSON and for an unsupported ``model_type``.
        """
        if isinstance(config, Mapping):
            cfg = dict(config)
            origin = name or "config"
        else:
            path = Path(config)
            origin = str(path)
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                raise ConfigError(f"no such config file: {path}") from None
            except (OSError, UnicodeDecodeError) as e:
                raise ConfigError(f"cannot read {path}: {e}") from None
            try:
                cfg = json.loads(text)
            except json.JSONDecodeError as e:
                raise ConfigError(
                    f"malformed JSON in {path}: {e.msg} at line {e.lineno} column {e.colno}"
                ) from None
            if not isinstance(cfg, dict):
                raise ConfigError(f"{path}: expected a JSON object, got {type(cfg).__name__}")
            source = source or str(path)
            if name is None:
                name = path.parent.name if path.name == "config.json" else path.stem
        reader = _Reader(cfg, origin)
        family = reader.family()
        kw = FAMILIES[family](reader)
        return cls(name=name or family, family=family, source=source, **kw)


# ---------------------------------------------------------------------------------------
class _Reader:
    """Typed access to a config dict with errors that name the field."""

    def __init__(self, cfg: dict[str, Any], origin: str):
        self.cfg = cfg
        self.origin = origin

    def family(self) -> str:
        mt = self.cfg.get("model_type")
        if mt is None:
            raise ConfigError(f"{self.origin}: missing field 'model_type'")
        if not isinstance(mt, str) or mt not in FAMILIES:
            raise ConfigError(
                f"{self.origin}: unsupported model_type {mt!r} "
                f"(supported: {', '.join(sorted(FAMILIES))})"
            )
        return mt

    def int(self, key: str, default: Any = ..., *, positive: bool = True) -> Any:
        if key not in self.cfg or self.cfg[key] is None:
            if default is ...:
                raise ConfigError(f"{self.origin}: missing field '{key}'")
            return default
        v = self.cfg[key]
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(f"{self.origin}: field '{key}' must be an integer, got {v!r}")
        if positive and v <= 0:
            raise ConfigError(f"{self.origin}: field '{key}' must be positive, got {v}")
        return v

    def flag(self, key: str, default: bool) -> bool:
        v = self.cfg.get(key, default)
        if v is None:
            return default
        if not isinstance(v, bool):
            raise ConfigError(f"{self.origin}: field '{key}' must be true or false, got {v!r}")
        return v

    def refuse(self, key: str, why: str) -> None:
        """Refuse a feature the parameter formula does not model (better than a wrong count)."""
        v = self.cfg.get(key)
        if v not in (None, False, 0):
            raise ConfigError(f"{self.origin}: field '{key}' = {v!r} is not supported: {why}")

    def heads(self, d_model: int, heads_key: str = "num_attention_heads",
              kv_key: str = "num_key_value_heads", head_dim_key: str = "head_dim"
              ) -> tuple[int, int, int]:
        h = self.int(heads_key)
        hkv = self.int(kv_key, h)
        if h % hkv:
            raise ConfigError(
                f"{self.origin}: field '{kv_key}' ({hkv}) does not divide '{heads_key}' ({h})"
            )
        dh = self.int(head_dim_key, None)
        if dh is None:
            if d_model % h:
                raise ConfigError(
                    f"{self.origin}: '{heads_key}' ({h}) does not divide the hidden size "
                    f"({d_model}) and no '{head_dim_key}' is given"
                )
            dh = d_model // h
        return h, hkv, dh


def _window(r: _Reader, n_layers: int, which: str) -> dict[str, Any]:
    """sliding_window and how many layers use it: "all", "alternate" (Gemma 2: layers 0, 2, 4,
    ... in transformers' Gemma2 modeling) or "qwen2" (layers >= max_window_layers, when
    use_sliding_window is set)."""
    w = r.int("sliding_window", None)
    if w is None:
        return {}
    if which == "all":
        n = n_layers
    elif which == "alternate":
        n = (n_layers + 1) // 2
    else:  # qwen2
        if not r.flag("use_sliding_window", False):
            return {}
        first = r.int("max_window_layers", n_layers, positive=False)
        n = max(0, n_layers - min(first, n_layers))
    return {"sliding_window": w, "n_window_layers": n} if n else {}


def _llama_like(r: _Reader, *, tied: bool = False, qkv_bias: bool | None = None,
                o_bias: bool | None = None, norm_vecs_layer: int = 2,
                window: str = "") -> dict[str, Any]:
    d = r.int("hidden_size")
    h, hkv, dh = r.heads(d)
    attn_bias = r.flag("attention_bias", False)
    kw: dict[str, Any] = dict(
        n_vocab=r.int("vocab_size"), d_model=d, n_layers=r.int("num_hidden_layers"),
        n_heads=h, n_kv_heads=hkv, d_head=dh, d_ff=r.int("intermediate_size"),
        n_mlp_mats=3, tied=r.flag("tie_word_embeddings", tied),
        qkv_bias=attn_bias if qkv_bias is None else qkv_bias,
        o_bias=attn_bias if o_bias is None else o_bias,
        mlp_bias=r.flag("mlp_bias", False), norm_vecs_layer=norm_vecs_layer, norm_vecs_final=1,
        max_context=r.int("max_position_embeddings", None),
    )
    if window:
        kw.update(_window(r, kw["n_layers"], window))
    return kw


def _llama(r: _Reader) -> dict[str, Any]:
    return _llama_like(r)


def _mistral(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, qkv_bias=False, o_bias=False, window="all")


def _mixtral(r: _Reader) -> dict[str, Any]:
    kw = _llama_like(r, qkv_bias=False, o_bias=False, window="all")
    e = r.int("num_local_experts")
    k = r.int("num_experts_per_tok")
    if k > e:
        raise ConfigError(
            f"{r.origin}: field 'num_experts_per_tok' ({k}) exceeds 'num_local_experts' ({e})"
        )
    kw.update(n_experts=e, n_active_experts=k)
    return kw


def _qwen2(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, qkv_bias=True, o_bias=False, window="qwen2")


def _gemma(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, tied=True, qkv_bias=False, o_bias=False)


def _gemma2(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, tied=True, qkv_bias=False, o_bias=False, norm_vecs_layer=4,
                       window="alternate")


def _phi3(r: _Reader) -> dict[str, Any]:
    return _llama_like(r, qkv_bias=False, o_bias=False, window="all")


def _cohere(r: _Reader) -> dict[str, Any]:
    r.refuse("use_qk_norm", "per-head q/k LayerNorms are not in the parameter formula")
    return _llama_like(r, tied=True, norm_vecs_layer=1)


def _phi(r: _Reader) -> dict[str, Any]:
    # transformers PhiModel: q/k/v/dense with biases, fc1/fc2 with biases, one LayerNorm
    # (weight + bias) per block feeding attention and MLP in parallel, final LayerNorm,
    # untied lm_head with a bias.
    r.refuse("qk_layernorm", "per-head q/k LayerNorms are not in the parameter formula")
    d = r.int("hidden_size")
    h, hkv, dh = r.heads(d)
    return dict(
        n_vocab=r.int("vocab_size"), d_model=d, n_layers=r.int("num_hidden_layers"),
        n_heads=h, n_kv_heads=hkv, d_head=dh, d_ff=r.int("intermediate_size"), n_mlp_mats=2,
        tied=r.flag("tie_word_embeddings", False), qkv_bias=True, o_bias=True, mlp_bias=True,
        head_bias=True, norm_vecs_layer=2, norm_vecs_final=2,
        max_context=r.int("max_position_embeddings", None),
    )


def _gpt2(r: _Reader) -> dict[str, Any]:
    # transformers GPT2Model: wte, wpe (n_positions x n_embd), per block ln_1, ln_2 (weight +
    # bias each), c_attn (fused q, k, v with bias), c_proj (bias), c_fc and mlp c_proj (bias),
    # ln_f; GPT2LMHeadModel ties lm_head to wte.
    d = r.int("n_embd")
    h = r.int("n_head")
    if d % h:
        raise ConfigError(f"{r.origin}: 'n_head' ({h}) does not divide 'n_embd' ({d})")
    n_pos = r.int("n_positions")
    return dict(
        n_vocab=r.int("vocab_size"), d_model=d, n_layers=r.int("n_layer"), n_heads=h,
        n_kv_heads=h, d_head=d // h, d_ff=r.int("n_inner", 4 * d), n_mlp_mats=2,
        tied=r.flag("tie_word_embeddings", True), n_positions=n_pos, qkv_bias=True, o_bias=True,
        mlp_bias=True, norm_vecs_layer=4, norm_vecs_final=2, max_context=n_pos,
    )


FAMILIES: Mapping[str, Any] = {
    "llama": _llama, "mistral": _mistral, "mixtral": _mixtral, "qwen2": _qwen2,
    "gemma": _gemma, "gemma2": _gemma2, "phi3": _phi3, "phi": _phi, "cohere": _cohere,
    "gpt2": _gpt2,
}
