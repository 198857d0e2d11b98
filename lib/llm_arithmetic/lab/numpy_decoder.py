r"""A small decoder-only transformer in NumPy, with a KV cache, for measuring decode speed.

The lab *Measure your own machine* times :meth:`TinyDecoder.step` and compares it with the
package's lower bound: the bytes of one decode step (weights read, and the cache) over the
machine's bandwidth. The model is random (seeded) -- its tokens mean nothing -- but it does the
same work per token as a Llama-style model of the same shape:

* token embedding (untied from the output head), no learned positions;
* per block: RMSNorm, attention with grouped-query heads (GQA; ``n_kv_heads == n_heads`` is
  multi-head attention, 1 is multi-query), rotary position embeddings (RoPE, optional), a
  residual; RMSNorm, a gated MLP (SiLU, three matrices), a residual;
* a final RMSNorm and the output head.

Its parameters are exactly what :func:`llm_arithmetic.params.total_params` counts for that
shape (gated MLP, two norm vectors per block, one final norm, untied, no biases), and one step
reads :func:`llm_arithmetic.params.decode_read_params` of them: every weight except the rows of
the embedding table that are not looked up.

Matrices are stored as ``(out, in)`` and applied as ``W @ x``, one matrix-vector product each.
Weights and the cache are kept in the model's ``dtype``; norms, softmax and the residual stream
are computed in float32 (small vectors, no weight traffic).

>>> m = TinyDecoder(d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, d_head=16, d_ff=128,
...                 n_vocab=100)
>>> m.step(7).shape, m.position
((100,), 1)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..formulas import memory, params, roofline

__all__ = ["TinyDecoder", "rms_norm", "rope_tables", "apply_rope", "silu", "softmax"]

_MATS = ("wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down")
_NORMS = ("attn_norm", "mlp_norm")


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    r"""RMSNorm over the last axis, computed in float32.

    .. math:: \mathrm{RMSNorm}(x) = \frac{x}{\sqrt{\overline{x^2} + \epsilon}} \odot g

    Parameters
    ----------
    x : array, shape (..., d)
        Activations [-]
    weight : array, shape (d,)
        Gain vector g [-]
    eps : float
        Added to the mean square [-]

    Returns
    -------
    array, shape (..., d), float32

    >>> [round(float(v), 3) for v in rms_norm(np.array([3.0, 4.0]), np.ones(2))]
    [0.849, 1.131]
    """
    x = np.asarray(x, dtype=np.float32)
    scale = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(eps))
    return x * scale * weight.astype(np.float32)


def silu(x: np.ndarray) -> np.ndarray:
    r"""SiLU (swish), :math:`x\,\sigma(x)`, in float32.

    >>> silu(np.array([0.0])).tolist()
    [0.0]
    """
    x = np.asarray(x, dtype=np.float32)
    return x / (1.0 + np.exp(-x))


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, in float32, shifted by the maximum for stability.

    >>> softmax(np.array([0.0, 0.0])).tolist()
    [0.5, 0.5]
    """
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def rope_tables(max_context: int, d_head: int, theta: float = 10000.0
                ) -> tuple[np.ndarray, np.ndarray]:
    r"""Cosines and sines of the rotary embedding, one row per position.

    Pair i of a head (components i and i + d_head/2, the "rotate half" layout of Llama's
    Hugging Face code) turns by the angle :math:`p\,\theta^{-2i/d_{head}}` at position p.

    Parameters
    ----------
    max_context : int
        Positions [token]
    d_head : int
        Head width, even [-]
    theta : float
        Base of the frequencies [-]

    Returns
    -------
    (cos, sin) : two float32 arrays of shape (max_context, d_head // 2)

    >>> cos, sin = rope_tables(4, 8)
    >>> cos.shape, float(cos[0, 0]), float(sin[0, 0])
    ((4, 4), 1.0, 0.0)
    """
    if d_head % 2:
        raise ValueError(f"d_head must be even for rotary embeddings, got {d_head}")
    inv_freq = theta ** (-np.arange(0, d_head // 2, dtype=np.float64) * 2 / d_head)
    angles = np.outer(np.arange(max_context, dtype=np.float64), inv_freq)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def apply_rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Rotate the pairs (i, i + d_head/2) of each head of ``x`` (shape (..., d_head)) by the
    angles whose cosines and sines are ``cos`` and ``sin`` (shape (d_head // 2,), or one row
    per position broadcast against ``x``). Returns float32.

    >>> x = np.array([1.0, 0.0])  # one pair, rotated by 90 degrees
    >>> apply_rope(x, np.array([0.0]), np.array([1.0])).tolist()
    [0.0, 1.0]
    """
    x = np.asarray(x, dtype=np.float32)
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


class TinyDecoder:
    r"""A Llama-style decoder with random weights and a KV cache; one token per :meth:`step`.

    Parameters
    ----------
    d_model : int
        Hidden size, d [-]
    n_layers : int
        Blocks, L [-]
    n_heads : int
        Query heads, H [-]
    n_kv_heads : int
        Key/value heads, H_kv; must divide ``n_heads`` [-]
    d_head : int
        Head width; even when ``rope`` [-]
    d_ff : int
        Hidden width of the gated MLP [-]
    n_vocab : int
        Vocabulary size, V [-]
    dtype : NumPy float dtype
        Storage of the weights and the cache (float32, float16, ...)
    max_context : int
        Tokens the cache holds [token]
    seed : int
        Seed of the weights; the same seed gives the same weights at every ``dtype`` (they are
        drawn in float32, then cast)
    rope : bool
        Rotary position embeddings on queries and keys; without them attention has no notion
        of order (the bytes and FLOPs are the same)

    Attributes
    ----------
    embed : array (n_vocab, d_model)
        Token embedding table
    layers : list of dict
        Per block: ``wq`` (H d_head, d), ``wk`` and ``wv`` (H_kv d_head, d), ``wo``
        (d, H d_head), ``w_gate`` and ``w_up`` (d_ff, d), ``w_down`` (d, d_ff), and the gain
        vectors ``attn_norm``, ``mlp_norm`` (d,)
    final_norm : array (d_model,)
    head : array (n_vocab, d_model)
        Output head (not tied to ``embed``)
    k_cache, v_cache : list of arrays (n_kv_heads, max_context, d_head)
        Keys and values of the tokens seen so far (the first :attr:`position` rows are valid)

    Examples
    --------
    The parameter count and the bytes one step reads are the package's formulas evaluated at
    this shape:

    >>> from llm_arithmetic.formulas import memory, params
    >>> m = TinyDecoder(d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, d_head=16, d_ff=128,
    ...                 n_vocab=100)
    >>> m.n_params == params.total_params(**m.arch) == sum(a.size for a in m.weights())
    True
    >>> m.weight_bytes == memory.weight_bytes(n_params=params.decode_read_params(**m.arch),
    ...                                       bits_weight=32)
    True
    >>> m.weight_bytes == m.weight_nbytes_read()   # the same, from the arrays' nbytes
    True
    >>> for t in (3, 1, 4):
    ...     logits = m.step(t)
    >>> logits.shape, logits.dtype.name, m.position
    ((100,), 'float32', 3)
    >>> m.cache_nbytes_read() == memory.kv_cache_bytes(n_layers=2, n_kv_heads=2, d_head=16,
    ...                                                context=3, bits_kv=32)
    True
    >>> m.step_bytes() == m.weight_nbytes_read() + m.cache_nbytes_read()
    True

    At float16 every byte count halves:

    >>> h = m.astype(np.float16)
    >>> h.weight_bytes * 2 == m.weight_bytes, h.step(3).dtype.name
    (True, 'float16')
    """

    def __init__(self, *, d_model: int, n_layers: int, n_heads: int, n_kv_heads: int,
                 d_head: int, d_ff: int, n_vocab: int, dtype: Any = np.float32,
                 max_context: int = 256, seed: int = 0, rope: bool = True,
                 _weights: dict[str, Any] | None = None) -> None:
        sizes = dict(d_model=d_model, n_layers=n_layers, n_heads=n_heads,
                     n_kv_heads=n_kv_heads, d_head=d_head, d_ff=d_ff, n_vocab=n_vocab,
                     max_context=max_context)
        for name, value in sizes.items():
            if not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if n_heads % n_kv_heads:
            raise ValueError(f"n_kv_heads ({n_kv_heads}) must divide n_heads ({n_heads})")
        self.dtype = np.dtype(dtype)
        if self.dtype.kind != "f":
            raise ValueError(f"dtype must be a floating-point type, got {self.dtype}")
        self.d_model, self.n_layers, self.n_heads = d_model, n_layers, n_heads
        self.n_kv_heads, self.d_head, self.d_ff, self.n_vocab = n_kv_heads, d_head, d_ff, n_vocab
        self.max_context, self.seed, self.rope = max_context, seed, rope
        if _weights is None:
            _weights = self._random_weights(seed)
        cast = self._cast
        self.embed = cast(_weights["embed"])
        self.layers = [{k: cast(v) for k, v in layer.items()} for layer in _weights["layers"]]
        self.final_norm = cast(_weights["final_norm"])
        self.head = cast(_weights["head"])
        self._cos, self._sin = rope_tables(max_context, d_head) if rope else (None, None)
        shape = (n_kv_heads, max_context, d_head)
        self.k_cache = [np.zeros(shape, self.dtype) for _ in range(n_layers)]
        self.v_cache = [np.zeros(shape, self.dtype) for _ in range(n_layers)]
        self.position = 0

    def _cast(self, a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=self.dtype)

    def _random_weights(self, seed: int) -> dict[str, Any]:
        """Weights drawn in float32: matrices with standard deviation 1/sqrt(fan-in), so the
        activations stay of order one (no overflow in float16); gains near 1."""
        rng = np.random.default_rng(seed)
        d, f = self.d_model, self.d_ff
        hq, hkv = self.n_heads * self.d_head, self.n_kv_heads * self.d_head

        def mat(rows: int, cols: int) -> np.ndarray:
            a = rng.standard_normal((rows, cols), dtype=np.float32)
            a *= np.float32(1 / np.sqrt(cols))
            return a

        def gain() -> np.ndarray:
            return (1 + 0.1 * rng.standard_normal(d, dtype=np.float32)).astype(np.float32)

        shapes = {"wq": (hq, d), "wk": (hkv, d), "wv": (hkv, d), "wo": (d, hq),
                  "w_gate": (f, d), "w_up": (f, d), "w_down": (d, f)}
        layers = []
        for _ in range(self.n_layers):
            layer = {k: mat(*s) for k, s in shapes.items()}
            layer.update(attn_norm=gain(), mlp_norm=gain())
            layers.append(layer)
        return {"embed": rng.standard_normal((self.n_vocab, d), dtype=np.float32),
                "layers": layers, "final_norm": gain(), "head": mat(self.n_vocab, d)}

    # ---- shape and bytes ------------------------------------------------------------------

    @property
    def arch(self) -> dict[str, int]:
        """The shape as keyword arguments of :mod:`llm_arithmetic.params`' functions
        (gated MLP, untied head, RMSNorm: two norm vectors per block and one final) [-]."""
        return dict(n_vocab=self.n_vocab, d_model=self.d_model, n_layers=self.n_layers,
                    n_heads=self.n_heads, n_kv_heads=self.n_kv_heads, d_head=self.d_head,
                    d_ff=self.d_ff, n_mlp_mats=3, tied=0, n_positions=0,
                    norm_vecs_layer=2, norm_vecs_final=1)

    @property
    def bits(self) -> int:
        """Bits per stored weight and per cached element [bit]."""
        return 8 * self.dtype.itemsize

    @property
    def n_params(self) -> int:
        """Parameters, from :func:`llm_arithmetic.params.total_params` [-]."""
        return params.total_params(**self.arch)

    @property
    def weight_bytes(self) -> int:
        """Bytes of weights one decode step reads, from the package: :func:`weight_bytes` of
        :func:`decode_read_params` at :attr:`bits` [B]."""
        return memory.weight_bytes(n_params=params.decode_read_params(**self.arch),
                                   bits_weight=self.bits)

    @property
    def kv_cache_bytes_per_token(self) -> int:
        """KV-cache bytes per token, all layers, from the package [B]."""
        return memory.kv_cache_bytes_per_token(n_layers=self.n_layers,
                                               n_kv_heads=self.n_kv_heads,
                                               d_head=self.d_head, bits_kv=self.bits)

    def step_bytes(self, context: int | None = None) -> int:
        """Bytes one decode step reads with ``context`` tokens in the cache, the new one
        included (default: :attr:`position`), from the package's
        :func:`llm_arithmetic.roofline.decode_step_bytes` [B]."""
        context = self.position if context is None else context
        return roofline.decode_step_bytes(weight_bytes=self.weight_bytes,
                                          kv_cache_bytes_per_token=self.kv_cache_bytes_per_token,
                                          context=context)

    def weights(self) -> list[np.ndarray]:
        """Every weight array: embedding, the blocks' matrices and gains, final norm, head."""
        out = [self.embed]
        for layer in self.layers:
            out += [layer[k] for k in _MATS + _NORMS]
        return out + [self.final_norm, self.head]

    def weight_nbytes_read(self) -> int:
        """Bytes of weights one step touches, counted from the arrays: all of them except the
        embedding table, of which one row [B]."""
        return sum(a.nbytes for a in self.weights()[1:]) + self.embed[0].nbytes

    def cache_nbytes_read(self, context: int | None = None) -> int:
        """Bytes of keys and values one step reads at ``context`` tokens (default:
        :attr:`position`), counted from the cache arrays [B]."""
        context = self.position if context is None else context
        return sum(k[:, :context].nbytes + v[:, :context].nbytes
                   for k, v in zip(self.k_cache, self.v_cache))

    # ---- running --------------------------------------------------------------------------

    def astype(self, dtype: Any) -> "TinyDecoder":
        """The same weights stored as ``dtype``, with an empty cache."""
        w = {"embed": self.embed, "layers": self.layers, "final_norm": self.final_norm,
             "head": self.head}
        return TinyDecoder(d_model=self.d_model, n_layers=self.n_layers, n_heads=self.n_heads,
                           n_kv_heads=self.n_kv_heads, d_head=self.d_head, d_ff=self.d_ff,
                           n_vocab=self.n_vocab, dtype=dtype, max_context=self.max_context,
                           seed=self.seed, rope=self.rope, _weights=w)

    def reset(self) -> None:
        """Empty the cache (the next step is at position 0)."""
        self.position = 0

    def step(self, token: int) -> np.ndarray:
        """Decode one token: append its keys and values to the cache, return the logits of the
        next token, shape (n_vocab,), in the model's dtype.

        Raises ``ValueError`` for a token outside the vocabulary or a full cache.
        """
        if not 0 <= token < self.n_vocab:
            raise ValueError(f"token must be in the vocabulary [0, {self.n_vocab}), "
                             f"got {token}")
        p = self.position
        if p >= self.max_context:
            raise ValueError(f"the cache is full (max_context = {self.max_context}); reset() it")
        dt, H, Hkv, dh = self.dtype, self.n_heads, self.n_kv_heads, self.d_head
        g, n = H // Hkv, p + 1
        x = self.embed[token].astype(np.float32)  # residual stream, float32
        for layer, kc, vc in zip(self.layers, self.k_cache, self.v_cache):
            h = rms_norm(x, layer["attn_norm"]).astype(dt)
            q = (layer["wq"] @ h).reshape(H, dh)
            k = (layer["wk"] @ h).reshape(Hkv, dh)
            if self.rope:
                q = apply_rope(q, self._cos[p], self._sin[p])
                k = apply_rope(k, self._cos[p], self._sin[p])
            kc[:, p] = k
            vc[:, p] = (layer["wv"] @ h).reshape(Hkv, dh)
            # query head j uses key/value head j // g
            qg = q.reshape(Hkv, g, dh).astype(dt)
            scores = (qg @ kc[:, :n].transpose(0, 2, 1)).astype(np.float32) / np.sqrt(dh)
            att = softmax(scores).astype(dt) @ vc[:, :n]  # (Hkv, g, dh)
            x = x + (layer["wo"] @ att.reshape(H * dh)).astype(np.float32)
            h = rms_norm(x, layer["mlp_norm"]).astype(dt)
            up = silu(layer["w_gate"] @ h) * (layer["w_up"] @ h).astype(np.float32)
            x = x + (layer["w_down"] @ up.astype(dt)).astype(np.float32)
        self.position = n
        return self.head @ rms_norm(x, self.final_norm).astype(dt)
