r"""Parameter counts: the GPT-style approximation and the exact count of a real architecture.

Sections
--------
* :func:`gpt_params` -- :math:`P \approx 12 L d^2 + V d`, the count the articles use.
* :func:`attention_params`, :func:`mlp_params`, :func:`router_params`, :func:`layer_params`
  -- the pieces of one transformer block.
* :func:`total_params`, :func:`active_params` -- all weights, and those one token uses (MoE).
* :func:`matmul_params` -- the weights that take part in matrix products for one token.
* :func:`decode_read_params` -- the weights one decode step must read from memory.

The exact count covers attention with grouped-query heads and an explicit head width, plain or
gated MLPs, optional biases, normalization vectors, tied or untied embeddings, learned position
embeddings and mixture-of-experts MLPs with a router. It is checked against the published counts
of real models in ``tests/test_params.py``.
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from ._formula import Formula, register
from .symbols import (
    batch, d_ff, d_head, d_model, head_bias, mlp_bias, n_active_experts, n_experts, n_heads,
    n_kv_heads, n_layers, n_mlp_mats, n_positions, n_vocab, norm_vecs_final, norm_vecs_layer,
    o_bias, qkv_bias, tied,
)

__all__ = [
    "GPT_PARAMS", "ATTENTION_PARAMS", "MLP_PARAMS", "ROUTER_PARAMS", "TOTAL_PARAMS",
    "ACTIVE_PARAMS", "MATMUL_PARAMS", "DECODE_READ_PARAMS", "EXPERTS_READ",
    "gpt_params", "attention_params", "mlp_params", "router_params", "total_params",
    "active_params", "matmul_params", "decode_read_params", "experts_read",
]

V, d, L, H, Hkv, dh, dff = n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_head, d_ff
m, E, k, t, Npos = n_mlp_mats, n_experts, n_active_experts, tied, n_positions

#: :math:`P = 12 L d^2 + V d` -- four d x d attention matrices and two d x 4d MLP matrices per
#: block, plus the embedding table (GPT convention: H d_head = d, d_ff = 4d, tied head).
GPT_PARAMS = L * (4 * d**2 + 2 * 4 * d**2) + V * d

#: Attention weights of one block: q and o are d x (H d_head), k and v are d x (H_kv d_head).
ATTENTION_PARAMS = (
    d * H * dh + 2 * d * Hkv * dh + H * dh * d + qkv_bias * (H * dh + 2 * Hkv * dh) + o_bias * d
)
#: One MLP (one expert): m matrices of d x d_ff; biases on the d_ff-wide outputs and on the last.
MLP_PARAMS = m * d * dff + mlp_bias * ((m - 1) * dff + d)
#: The router of a mixture-of-experts block: one d x E matrix (none in a dense model, E = 1).
ROUTER_PARAMS = sp.Piecewise((0, sp.Eq(E, 1, evaluate=False)), (E * d, True), evaluate=False)

_norms = norm_vecs_layer * d


def _model_params(experts: sp.Expr) -> sp.Expr:
    return (
        V * d
        + Npos * d
        + L * (ATTENTION_PARAMS + experts * MLP_PARAMS + ROUTER_PARAMS + _norms)
        + norm_vecs_final * d
        + (1 - t) * V * d
        + head_bias * V
    )


#: Every parameter: embeddings, blocks (all E experts), final norm, output head unless tied,
#: and the output head's bias if it has one.
TOTAL_PARAMS = _model_params(E)
#: Parameters that one token uses: as TOTAL_PARAMS with only k experts per block.
ACTIVE_PARAMS = _model_params(k)
#: Weights in matrix products for one token: projections, k experts, router, output head.
MATMUL_PARAMS = (
    L * (d * H * dh + 2 * d * Hkv * dh + H * dh * d + k * m * d * dff + ROUTER_PARAMS) + V * d
)
#: Weights read in one decode step: the active ones, less the rows of the input embedding (and
#: position) tables that are not looked up. With tied embeddings the output head reads the
#: whole table, so nothing is subtracted.
DECODE_READ_PARAMS = (ACTIVE_PARAMS - (1 - t) * (V - 1) * d
                      - (Npos - sp.Min(Npos, 1, evaluate=False)) * d)

#: Experts of one mixture-of-experts block that a decode step of B tokens reads, expected over
#: uniform, independent routing: one expert escapes a token with probability 1 - k/E and all B
#: tokens with (1 - k/E)^B. It is k at B = 1 and tends to E; a dense model (E = k = 1) reads 1.
EXPERTS_READ = E * (1 - (1 - k / E) ** batch)

_ARCH = (V, d, L, H, Hkv, dh, dff, m, E, k, t, Npos, qkv_bias, o_bias, mlp_bias,
         norm_vecs_layer, norm_vecs_final, head_bias)

_F_GPT = Formula("gpt_params", GPT_PARAMS, (L, d, V), "1")
_F_ATTN = Formula("attention_params", ATTENTION_PARAMS, (d, H, Hkv, dh, qkv_bias, o_bias), "1")
_F_MLP = Formula("mlp_params", MLP_PARAMS, (d, dff, m, mlp_bias), "1")
_F_ROUTER = Formula("router_params", ROUTER_PARAMS, (d, E), "1")
_F_TOTAL = Formula("total_params", TOTAL_PARAMS, _ARCH, "1")
_F_ACTIVE = Formula("active_params", ACTIVE_PARAMS, _ARCH, "1")
_F_MATMUL = Formula("matmul_params", MATMUL_PARAMS, _ARCH, "1")
_F_READ = Formula("decode_read_params", DECODE_READ_PARAMS, _ARCH, "1")
_F_EXR = Formula("experts_read", EXPERTS_READ, (E, k, batch), "1")


@register(_F_GPT)
def gpt_params(*, n_layers: Any, d_model: Any, n_vocab: Any) -> Any:
    r"""Parameters of a GPT-style model, the approximation the articles use [1]_ [2]_.

    .. math:: P = L\,(4 d^2 + 2 \cdot 4 d^2) + V d = 12 L d^2 + V d

    Parameters
    ----------
    n_layers : int or array
        Transformer blocks, L [-]
    d_model : int or array
        Hidden size, d [-]
    n_vocab : int or array
        Vocabulary size, V [-]

    Returns
    -------
    int or array
        Parameters [-]

    Examples
    --------
    LLaMA-7B's shape (L = 32, d = 4096, V = 32000) under the GPT convention:

    >>> gpt_params(n_layers=32, d_model=4096, n_vocab=32000)
    6573522944

    References
    ----------
    .. [1] kipply, "Transformer Inference Arithmetic", 2022.
    .. [2] F. Timbers, "How is LLaMa.cpp possible?", 2023.
    """
    return _F_GPT(n_layers, d_model, n_vocab)


@register(_F_ATTN)
def attention_params(*, d_model: Any, n_heads: Any, n_kv_heads: Any, d_head: Any,
                     qkv_bias: Any = 0, o_bias: Any = 0) -> Any:
    r"""Weights (and biases) of one attention block with grouped-query heads.

    .. math:: P_{attn} = 2 d\,H d_{head} + 2 d\,H_{kv} d_{head}
              + \delta_{qkv}(H + 2 H_{kv}) d_{head} + \delta_o d

    Parameters
    ----------
    d_model : int or array
        Hidden size [-]
    n_heads, n_kv_heads : int or array
        Query heads and key/value heads [-]
    d_head : int or array
        Head width [-]
    qkv_bias, o_bias : {0, 1}
        Whether the q/k/v and the output projections carry biases [-]

    Returns
    -------
    int or array
        Parameters of one block's attention [-]

    Examples
    --------
    Mistral 7B (d = 4096, 32 query heads, 8 KV heads of 128):

    >>> attention_params(d_model=4096, n_heads=32, n_kv_heads=8, d_head=128)
    41943040
    """
    return _F_ATTN(d_model, n_heads, n_kv_heads, d_head, qkv_bias, o_bias)


@register(_F_MLP)
def mlp_params(*, d_model: Any, d_ff: Any, n_mlp_mats: Any = 3, mlp_bias: Any = 0) -> Any:
    r"""Weights (and biases) of one MLP, or of one expert of a mixture.

    .. math:: P_{mlp} = m\, d\, d_{ff} + \delta_{mlp}\left((m - 1) d_{ff} + d\right)

    ``n_mlp_mats`` is 3 for a gated MLP (SwiGLU, GeGLU: gate, up, down) and 2 for a plain one.

    Examples
    --------
    >>> mlp_params(d_model=4096, d_ff=11008)          # Llama 2 7B, gated
    135266304
    >>> mlp_params(d_model=768, d_ff=3072, n_mlp_mats=2, mlp_bias=1)  # GPT-2
    4722432
    """
    return _F_MLP(d_model, d_ff, n_mlp_mats, mlp_bias)


@register(_F_ROUTER)
def router_params(*, d_model: Any, n_experts: Any) -> Any:
    r"""Router (gate) weights of one mixture-of-experts block: a d x E matrix; 0 when E = 1.

    .. math:: P_{router} = \begin{cases} 0 & E = 1 \\ E d & \text{otherwise} \end{cases}

    >>> router_params(d_model=4096, n_experts=8)
    32768
    >>> router_params(d_model=4096, n_experts=1)
    0
    """
    return _F_ROUTER(d_model, n_experts)


_ARCH_DOC = """
    Parameters
    ----------
    n_vocab, d_model, n_layers, n_heads, n_kv_heads, d_head, d_ff : int or array
        Architecture sizes [-] (see the glossary)
    n_mlp_mats : int
        3 for a gated MLP, 2 for a plain one [-]
    n_experts, n_active_experts : int
        Experts per block and experts per token; 1 and 1 for a dense model [-]
    tied : {0, 1}
        1 when the output head reuses the embedding matrix [-]
    n_positions : int
        Rows of a learned position-embedding table; 0 for rotary models [-]
    qkv_bias, o_bias, mlp_bias, head_bias : {0, 1}
        Bias flags [-]
    norm_vecs_layer, norm_vecs_final : int
        Normalization vectors of width d per block and after the last block [-]

    Returns
    -------
    int or array
        Parameters [-]
"""


def _arch_args(kw: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(kw[s] for s in _ARCH_NAMES)


_ARCH_NAMES = ("n_vocab", "d_model", "n_layers", "n_heads", "n_kv_heads", "d_head", "d_ff",
               "n_mlp_mats", "n_experts", "n_active_experts", "tied", "n_positions", "qkv_bias",
               "o_bias", "mlp_bias", "norm_vecs_layer", "norm_vecs_final", "head_bias")


@register(_F_TOTAL)
def total_params(*, n_vocab: Any, d_model: Any, n_layers: Any, n_heads: Any, n_kv_heads: Any,
                 d_head: Any, d_ff: Any, n_mlp_mats: Any = 3, n_experts: Any = 1,
                 n_active_experts: Any = 1, tied: Any = 0, n_positions: Any = 0,
                 qkv_bias: Any = 0, o_bias: Any = 0, mlp_bias: Any = 0,
                 norm_vecs_layer: Any = 2, norm_vecs_final: Any = 1, head_bias: Any = 0) -> Any:
    r"""Exact parameter count of a decoder-only transformer.

    .. math:: P = V d + N_{pos} d + L\,(P_{attn} + E\,P_{mlp} + P_{router} + \nu_L d)
              + \nu_f d + (1 - t) V d + \delta_{head} V

    Examples
    --------
    Llama 2 7B (published: 6,738,415,616):

    >>> total_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32,
    ...              d_head=128, d_ff=11008)
    6738415616
    """
    return _F_TOTAL(*_arch_args(locals()))


@register(_F_ACTIVE)
def active_params(*, n_vocab: Any, d_model: Any, n_layers: Any, n_heads: Any, n_kv_heads: Any,
                  d_head: Any, d_ff: Any, n_mlp_mats: Any = 3, n_experts: Any = 1,
                  n_active_experts: Any = 1, tied: Any = 0, n_positions: Any = 0,
                  qkv_bias: Any = 0, o_bias: Any = 0, mlp_bias: Any = 0,
                  norm_vecs_layer: Any = 2, norm_vecs_final: Any = 1, head_bias: Any = 0) -> Any:
    r"""Parameters one token uses: :func:`total_params` with k of the E experts.

    .. math:: P_{active} = V d + N_{pos} d + L\,(P_{attn} + k\,P_{mlp} + P_{router} + \nu_L d)
              + \nu_f d + (1 - t) V d

    Examples
    --------
    Mixtral 8x7B, 2 of 8 experts per token (Mistral AI: "12.9B active"):

    >>> active_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
    ...               d_head=128, d_ff=14336, n_experts=8, n_active_experts=2)
    12879925248
    """
    return _F_ACTIVE(*_arch_args(locals()))


@register(_F_MATMUL)
def matmul_params(*, n_vocab: Any, d_model: Any, n_layers: Any, n_heads: Any, n_kv_heads: Any,
                  d_head: Any, d_ff: Any, n_mlp_mats: Any = 3, n_experts: Any = 1,
                  n_active_experts: Any = 1, tied: Any = 0, n_positions: Any = 0,
                  qkv_bias: Any = 0, o_bias: Any = 0, mlp_bias: Any = 0,
                  norm_vecs_layer: Any = 2, norm_vecs_final: Any = 1, head_bias: Any = 0) -> Any:
    r"""Weights that take part in matrix products for one token (each costs 2 FLOPs).

    Projections, the k active experts, the router and the output head; not the embedding
    lookup, norms or biases.

    .. math:: P_{mm} = L\,(2 d H d_{head} + 2 d H_{kv} d_{head} + k\,m\,d\,d_{ff} + P_{router})
              + V d

    Examples
    --------
    Mistral 7B: zeux counts ~7111M "active" parameters in matrix products.

    >>> matmul_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
    ...               d_head=128, d_ff=14336)
    7110393856
    """
    return _F_MATMUL(*_arch_args(locals()))


@register(_F_READ)
def decode_read_params(*, n_vocab: Any, d_model: Any, n_layers: Any, n_heads: Any,
                       n_kv_heads: Any, d_head: Any, d_ff: Any, n_mlp_mats: Any = 3,
                       n_experts: Any = 1, n_active_experts: Any = 1, tied: Any = 0,
                       n_positions: Any = 0, qkv_bias: Any = 0, o_bias: Any = 0,
                       mlp_bias: Any = 0, norm_vecs_layer: Any = 2,
                       norm_vecs_final: Any = 1, head_bias: Any = 0) -> Any:
    r"""Parameters read from memory in one decode step of one token.

    The active parameters, less the rows of the input embedding table that are not looked up
    (all but one; none when the output head reuses the table) and likewise for a learned
    position table.

    .. math:: P_{read} = P_{active} - (1 - t)(V - 1) d - (N_{pos} - \min(N_{pos}, 1)) d

    Examples
    --------
    Mistral 7B reads everything except 31,999 rows of its untied embedding table:

    >>> decode_read_params(n_vocab=32000, d_model=4096, n_layers=32, n_heads=32,
    ...                    n_kv_heads=8, d_head=128, d_ff=14336)
    7110664192
    """
    return _F_READ(*_arch_args(locals()))


@register(_F_EXR)
def experts_read(*, n_experts: Any, n_active_experts: Any, batch: Any) -> Any:
    r"""Expected experts per mixture-of-experts block that one decode step of B tokens reads.

    Each token picks :math:`k` of the :math:`E` experts; with uniform, independent routing an
    expert is missed by one token with probability :math:`1 - k/E` and by all :math:`B` with
    :math:`(1 - k/E)^B`. Summing the :math:`E` indicator expectations:

    .. math:: \bar{E}_B = E \left(1 - \left(1 - \frac{k}{E}\right)^{B}\right)

    A step reads the shared weights once and :math:`\bar{E}_B` expert MLPs per block, so
    :func:`decode_read_params` with ``n_active_experts`` :math:`= \bar{E}_B` gives the
    parameters a batched MoE step reads. Real routers are not uniform and tokens of one
    sequence favour the same experts, which lowers the count; uniform routing is the upper end.

    Parameters
    ----------
    n_experts : int
        Experts per block, E [-]
    n_active_experts : int
        Experts each token uses, k [-]
    batch : int or array
        Tokens decoded in the step, B [-]

    Returns
    -------
    Fraction, float or array
        Expected experts read per block [-]

    Examples
    --------
    Mixtral 8x7B (E = 8, k = 2): 2 at batch 1, 3.5 at batch 2, nearly all 8 at batch 16:

    >>> experts_read(n_experts=8, n_active_experts=2, batch=1)
    2
    >>> float(experts_read(n_experts=8, n_active_experts=2, batch=2))
    3.5
    >>> round(float(experts_read(n_experts=8, n_active_experts=2, batch=16)), 3)
    7.92
    """
    return _F_EXR(n_experts, n_active_experts, batch)


for _fn in (total_params, active_params, matmul_params, decode_read_params):
    _fn.__doc__ = (_fn.__doc__ or "").replace("\n    Examples", _ARCH_DOC + "\n    Examples", 1)
