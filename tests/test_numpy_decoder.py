"""The NumPy decoder of the lab *Measure your own machine* (llm_arithmetic.lab.numpy_decoder).

- the KV-cached, step-by-step logits equal a second, independent implementation: a causal
  forward pass over the whole sequence at once, recomputing every key and value, with one loop
  per head (written here, from the weights only);
- grouped-query attention equals multi-head attention whose key/value heads are repeated, and
  with n_kv_heads == n_heads the model is plain multi-head attention;
- the bytes of a step from the package's formulas equal the sum of the arrays' nbytes, for
  several shapes and dtypes;
- bad inputs raise ValueError naming the problem.
No timing here: the lab measures time, and only the notebook reports it.
"""
from __future__ import annotations

import numpy as np
import pytest

from llm_arithmetic.formulas import memory, params, roofline
from llm_arithmetic.lab.numpy_decoder import TinyDecoder

SMALL = dict(d_model=48, n_layers=3, n_heads=6, n_kv_heads=2, d_head=8, d_ff=80, n_vocab=50)
TOKENS = [5, 17, 0, 49, 23, 23, 8, 31, 2, 40]


def reference_forward(m: TinyDecoder, tokens: list[int]) -> np.ndarray:
    """Logits of every position, shape (T, V): the whole sequence at once in float64, causal
    mask, one loop per query head, rotary angles computed here, no cache."""
    f = np.float64
    T, H, Hkv, dh = len(tokens), m.n_heads, m.n_kv_heads, m.d_head
    group = H // Hkv

    def norm(x, g):
        return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-5) * g.astype(f)

    def rotate(x):  # x: (T, d_head); pairs (i, i + d_head/2), angle p * 10000^(-2i/d_head)
        half = dh // 2
        ang = np.arange(T)[:, None] * 10000.0 ** (-2 * np.arange(half) / dh)[None, :]
        c, s = np.cos(ang), np.sin(ang)
        return np.concatenate([x[:, :half] * c - x[:, half:] * s,
                               x[:, half:] * c + x[:, :half] * s], axis=1)

    x = m.embed[tokens].astype(f)  # (T, d)
    for layer in m.layers:
        W = {k: v.astype(f) for k, v in layer.items()}
        h = norm(x, W["attn_norm"])
        q, k, v = h @ W["wq"].T, h @ W["wk"].T, h @ W["wv"].T
        out = np.zeros((T, H * dh))
        for j in range(H):
            kv = j // group
            qj = q[:, j * dh:(j + 1) * dh]
            kj = k[:, kv * dh:(kv + 1) * dh]
            if m.rope:
                qj, kj = rotate(qj), rotate(kj)
            s = qj @ kj.T / np.sqrt(dh)
            s[np.triu_indices(T, 1)] = -np.inf  # causal: position i sees 0..i
            p = np.exp(s - s.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            out[:, j * dh:(j + 1) * dh] = p @ v[:, kv * dh:(kv + 1) * dh]
        x = x + out @ W["wo"].T
        h = norm(x, W["mlp_norm"])
        a, b = h @ W["w_gate"].T, h @ W["w_up"].T
        x = x + (a / (1 + np.exp(-a)) * b) @ W["w_down"].T
    return norm(x, m.final_norm) @ m.head.astype(f).T


def decode(m: TinyDecoder, tokens: list[int]) -> np.ndarray:
    m.reset()
    return np.stack([m.step(t) for t in tokens])


@pytest.mark.parametrize("rope", [True, False])
@pytest.mark.parametrize("n_kv_heads", [1, 2, 6])
def test_cached_steps_equal_full_causal_forward(n_kv_heads, rope):
    m = TinyDecoder(**{**SMALL, "n_kv_heads": n_kv_heads}, rope=rope, seed=1)
    np.testing.assert_allclose(decode(m, TOKENS), reference_forward(m, TOKENS),
                               rtol=1e-4, atol=1e-4)


def test_float16_follows_float32():
    m = TinyDecoder(**SMALL, seed=2)
    h = m.astype(np.float16)
    a, b = decode(m, TOKENS), decode(h, TOKENS).astype(np.float32)
    assert h.head.dtype == h.k_cache[0].dtype == np.float16
    assert np.abs(a - b).max() < 0.05 * np.abs(a).max()


def test_gqa_equals_mha_with_repeated_kv_heads():
    gqa = TinyDecoder(**SMALL, seed=3)
    group, dh = SMALL["n_heads"] // SMALL["n_kv_heads"], SMALL["d_head"]
    mha = TinyDecoder(**{**SMALL, "n_kv_heads": SMALL["n_heads"]}, seed=99)
    mha.embed, mha.final_norm, mha.head = gqa.embed, gqa.final_norm, gqa.head
    for lg, lm in zip(gqa.layers, mha.layers):
        lm.update(lg)
        for name in ("wk", "wv"):  # kv head kv -> query heads kv*group .. kv*group + group-1
            heads = lg[name].reshape(SMALL["n_kv_heads"], dh, -1)
            lm[name] = np.repeat(heads, group, axis=0).reshape(SMALL["n_heads"] * dh, -1)
    np.testing.assert_allclose(decode(mha, TOKENS), decode(gqa, TOKENS), rtol=1e-5, atol=1e-5)
    # and MHA's cache is `group` times larger, as the package says
    assert mha.kv_cache_bytes_per_token == group * gqa.kv_cache_bytes_per_token


def test_same_seed_same_weights_other_seed_other_weights():
    a, b, c = (TinyDecoder(**SMALL, seed=s) for s in (4, 4, 5))
    assert all(np.array_equal(x, y) for x, y in zip(a.weights(), b.weights()))
    assert not np.array_equal(a.head, c.head)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("shape", [
    SMALL,
    dict(d_model=64, n_layers=2, n_heads=4, n_kv_heads=4, d_head=24, d_ff=96, n_vocab=300),
    dict(d_model=32, n_layers=1, n_heads=8, n_kv_heads=1, d_head=4, d_ff=16, n_vocab=7),
])
def test_step_bytes_from_package_equal_arrays_nbytes(shape, dtype):
    m = TinyDecoder(**shape, dtype=dtype, max_context=16)
    assert m.n_params == params.total_params(**m.arch) == sum(a.size for a in m.weights())
    assert m.weight_bytes == m.weight_nbytes_read() == (
        sum(a.nbytes for a in m.weights()) - (m.n_vocab - 1) * m.embed[0].nbytes)
    for context in range(1, 6):
        m.step(context % m.n_vocab)
        assert m.position == context
        cache = memory.kv_cache_bytes(n_layers=m.n_layers, n_kv_heads=m.n_kv_heads,
                                      d_head=m.d_head, context=context, bits_kv=m.bits)
        assert m.cache_nbytes_read() == cache
        assert m.step_bytes() == roofline.decode_step_bytes(
            weight_bytes=m.weight_bytes, kv_cache_bytes_per_token=m.kv_cache_bytes_per_token, context=context)
        assert m.step_bytes() == m.weight_nbytes_read() + m.cache_nbytes_read()


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="must divide n_heads"):
        TinyDecoder(**{**SMALL, "n_kv_heads": 4})
    with pytest.raises(ValueError, match="d_model must be a positive integer"):
        TinyDecoder(**{**SMALL, "d_model": 0})
    with pytest.raises(ValueError, match="floating-point"):
        TinyDecoder(**SMALL, dtype=np.int8)
    m = TinyDecoder(**SMALL, max_context=2)
    with pytest.raises(ValueError, match="vocabulary"):
        m.step(SMALL["n_vocab"])
    m.step(1), m.step(2)
    with pytest.raises(ValueError, match="cache is full"):
        m.step(3)
    m.reset()
    assert m.step(3).shape == (SMALL["n_vocab"],)
