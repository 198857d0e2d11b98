"""Every symbol of the book, defined once.

Each symbol carries sympy assumptions, a LaTeX name (what the book prints), a description and a
unit. The glossary page of the book is generated from :data:`GLOSSARY`.

>>> from llm_arithmetic.symbols import d_model, GLOSSARY
>>> d_model
d_{model}
>>> GLOSSARY["d_model"].unit
'1'
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import sympy as sp

__all__ = ["SymbolInfo", "GLOSSARY", "define"]


@dataclass(frozen=True)
class SymbolInfo:
    """What the glossary says about one symbol."""

    name: str  #: Python name in this module and keyword in the numeric functions
    symbol: sp.Symbol
    description: str
    unit: str  #: "1" for a pure count, otherwise a unit such as "B/s"

    @property
    def latex(self) -> str:
        return sp.latex(self.symbol)


_GLOSSARY: dict[str, SymbolInfo] = {}


def _sym(name: str, latex: str, description: str, unit: str = "1", **assumptions) -> sp.Symbol:
    if not assumptions:
        assumptions = {"positive": True, "integer": True}
    s = sp.Symbol(latex, **assumptions)
    _GLOSSARY[name] = SymbolInfo(name, s, description, unit)
    return s


_nonneg_int = {"nonnegative": True, "integer": True}

# --- architecture ------------------------------------------------------------------------
n_vocab = _sym("n_vocab", "V", "vocabulary size (rows of the embedding table)")
d_model = _sym("d_model", "d_{model}", "hidden size (width of the residual stream)")
n_layers = _sym("n_layers", "L", "number of transformer blocks")
n_heads = _sym("n_heads", "H", "attention (query) heads per layer")
n_kv_heads = _sym("n_kv_heads", "H_{kv}", "key/value heads per layer (= H for MHA, 1 for MQA)")
d_head = _sym("d_head", "d_{head}", "width of one attention head")
d_ff = _sym("d_ff", "d_{ff}", "hidden width of the MLP (of one expert, for MoE)")
n_mlp_mats = _sym(
    "n_mlp_mats", "m", "weight matrices per MLP: 2 (up, down) or 3 (gate, up, down; gated)"
)
n_experts = _sym("n_experts", "E", "MLP experts per layer (1 for a dense model)")
n_active_experts = _sym("n_active_experts", "k", "experts used per token (1 for a dense model)")
tied = _sym(
    "tied", "t", "1 if the output head reuses the input embedding matrix, else 0", **_nonneg_int
)
n_positions = _sym(
    "n_positions", "N_{pos}", "rows of a learned position-embedding table (0 with RoPE)",
    **_nonneg_int,
)
qkv_bias = _sym("qkv_bias", r"\delta_{qkv}", "1 if q, k, v projections have biases", **_nonneg_int)
o_bias = _sym("o_bias", r"\delta_{o}", "1 if the attention output projection has a bias", **_nonneg_int)
head_bias = _sym("head_bias", r"\delta_{head}", "1 if the output head has a bias (one per vocabulary entry)", **_nonneg_int)
mlp_bias = _sym("mlp_bias", r"\delta_{mlp}", "1 if the MLP matrices have biases", **_nonneg_int)
norm_vecs_layer = _sym(
    "norm_vecs_layer", r"\nu_{L}",
    "normalization weight vectors of width d_model per block (RMSNorm 1 each, LayerNorm "
    "with bias 2 each)", **_nonneg_int,
)
norm_vecs_final = _sym(
    "norm_vecs_final", r"\nu_{f}", "normalization weight vectors of width d_model after the last block",
    **_nonneg_int,
)

window = _sym("window", "S_{w}", "sliding-window length of windowed attention layers", "token")
n_window_layers = _sym(
    "n_window_layers", "L_{w}", "blocks whose attention sees only the last S_w tokens",
    **_nonneg_int,
)

# --- the GPT-style approximation ---------------------------------------------------------
n_params = _sym("n_params", "P", "parameters of a model")

# --- precision ---------------------------------------------------------------------------
bits_weight = _sym("bits_weight", "b_{w}", "bits per weight (scales of block formats included)", "bit", positive=True, rational=True)
bits_kv = _sym("bits_kv", "b_{kv}", "bits per cached key or value element", "bit", positive=True, rational=True)
bits = _sym("bits", "b", "bits per element of an operand", "bit", positive=True, rational=True)

# --- workload ----------------------------------------------------------------------------
context = _sym("context", "S", "tokens in the KV cache (context length) when a token is decoded", "token", **_nonneg_int)
batch = _sym("batch", "B", "sequences decoded together in one step")
prompt = _sym("prompt", "T", "prompt tokens processed in the prefill", "token")
generated = _sym("generated", "G", "tokens generated after the prefill", "token")
seq_len = _sym("seq_len", "N", "sequence length of an attention block", "token")
mat_m = _sym("mat_m", "M", "rows of a weight matrix")
mat_k = _sym("mat_k", "K", "columns of a weight matrix (inner dimension)")
mat_n = _sym("mat_n", "n", "columns of the right operand (vectors multiplied at once)")

# --- hardware ----------------------------------------------------------------------------
bandwidth = _sym("bandwidth", r"\beta_{mem}", "memory bandwidth", "B/s", positive=True, real=True)
peak_flops = _sym("peak_flops", "R_{peak}", "peak arithmetic rate (dense)", "FLOP/s", positive=True, real=True)
capacity = _sym("capacity", "C", "memory capacity", "B", positive=True, integer=True)
overhead = _sym("overhead", "C_{0}", "memory reserved for activations, runtime, fragmentation", "B", **_nonneg_int)

# --- derived quantities (symbols used when a formula refers to another) -------------------
weight_bytes = _sym("weight_bytes", "W", "bytes of the weights read in one decode step", "B", **_nonneg_int)
kv_bytes_token = _sym("kv_bytes_token", r"\kappa", "KV-cache bytes per token (all layers, K and V)", "B")
matmul_params = _sym("matmul_params", "P_{mm}", "weights used in matrix products for one token")
step_bytes = _sym("step_bytes", r"\mathcal{B}", "bytes moved in one step", "B", positive=True, real=True)
step_flops = _sym("step_flops", r"\mathcal{F}", "floating-point operations in one step", "FLOP", positive=True, real=True)

GLOSSARY: Mapping[str, SymbolInfo] = MappingProxyType(_GLOSSARY)


def define(name: str, latex: str, description: str, unit: str = "1",
           **assumptions: bool) -> sp.Symbol:
    """The glossary's symbol ``name``, defined (and added to the glossary) if it is new.

    For modules outside this one that need symbols of their own (the article modules of
    :mod:`llm_arithmetic.articles`). Defining a name twice with the same LaTeX returns the
    first symbol, so importing modules in any order gives one symbol per name; a different
    LaTeX for a known name is an error. Without assumptions a symbol is a positive integer.

    >>> define("d_model", "d_{model}", "hidden size") is d_model
    True
    >>> define("d_model", "D", "hidden size")
    Traceback (most recent call last):
    ...
    ValueError: glossary already has 'd_model' as 'd_{model}', not 'D'
    """
    if name in _GLOSSARY:
        sym = _GLOSSARY[name].symbol
        if sp.latex(sym) != latex:
            raise ValueError(f"glossary already has {name!r} as {sp.latex(sym)!r}, not {latex!r}")
        return sym
    return _sym(name, latex, description, unit, **assumptions)
