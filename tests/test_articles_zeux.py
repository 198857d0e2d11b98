"""The zeux article module: the article's arithmetic and the calm notebook's model.

Expected values come from the article's text, from the calm notebook's printed outputs, or from
a second derivation: the notebook's own Python functions, transcribed below as it publishes them
(``tools/sol.ipynb`` in zeux/calm, 2024-02-04), evaluated independently of the sympy expressions.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from llm_arithmetic import get_model
from llm_arithmetic.articles import zeux as Z
from llm_arithmetic.core.symbols import GLOSSARY


# --- the calm notebook, transcribed (the second derivation) --------------------------------
class CalmModel:
    def __init__(self, hidden_size, intermediate_size, num_attention_heads, num_key_value_heads,
                 num_hidden_layers, vocab_size, num_ffn=3, tied_embeddings=False):
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.num_hidden_layers = num_hidden_layers
        self.vocab_size = vocab_size
        self.num_ffn = num_ffn
        self.tied_embeddings = tied_embeddings

    def params(self):
        dim = self.hidden_size
        kvdim = dim // self.num_attention_heads * self.num_key_value_heads
        res = 0
        res += self.vocab_size * dim
        res += self.num_hidden_layers * dim * dim
        res += self.num_hidden_layers * dim * kvdim * 2
        res += self.num_hidden_layers * dim * dim
        res += self.num_hidden_layers * dim * self.intermediate_size * self.num_ffn
        if not self.tied_embeddings:
            res += self.vocab_size * dim
        return res

    def actparams(self):
        res = self.params()
        if not self.tied_embeddings:
            res -= self.vocab_size * self.hidden_size
        return res


def calm_kvcache(model, seq_len, batch_size):
    dim = model.hidden_size
    kvdim = dim // model.num_attention_heads * model.num_key_value_heads
    return batch_size * model.num_hidden_layers * seq_len * kvdim * 2


def calm_memory(model, seq_len, batch_size, modelbits=16, cachebits=16):
    modelbytes = int(model.params() * modelbits / 8)
    kvbytes = int(calm_kvcache(model, seq_len, batch_size) * cachebits / 8)
    return modelbytes + kvbytes + 500 * 1024 * 1024


def calm_latency(gpu, model, seq_len, batch_size, modelbits=16, cachebits=16, tensorcores=False):
    bandwidth, flops, tensorops = gpu
    modelbytes = int(model.actparams() * modelbits / 8)
    if tensorcores:
        modelops = model.actparams() * ((batch_size + 15) & ~15) * 2
        tensorscale = 1 if modelbits == 32 else 2
        modellat = max(modelbytes / bandwidth, modelops / tensorops / tensorscale)
    else:
        modelops = model.actparams() * batch_size * 2
        modellat = max(modelbytes / bandwidth, modelops / flops)
    kvbytes = int(calm_kvcache(model, seq_len, batch_size) * cachebits / 8)
    kvops = (calm_kvcache(model, seq_len, batch_size)
             * (model.num_attention_heads // model.num_key_value_heads) * 2)
    kvlat = max(kvbytes / bandwidth, kvops / flops)
    return modellat + kvlat


CALM_MODELS = {  # the notebook's declarations, and the package catalog entries they describe
    "llama-7b": CalmModel(4096, 11008, 32, 32, 32, 32000),
    "llama-13b": CalmModel(5120, 13824, 40, 40, 40, 32000),
    "llama-2-70b": CalmModel(8192, 28672, 64, 8, 80, 32000),
    "mistral-7b": CalmModel(4096, 14336, 32, 8, 32, 32000),
    "opt-6.7b": CalmModel(4096, 16384, 32, 32, 32, 50272, num_ffn=2, tied_embeddings=True),
    "phi-2": CalmModel(2560, 10240, 32, 32, 32, 51200, num_ffn=2),
}
CALM_GPUS = {  # the notebook's GPU(...) lines: bandwidth, flops, tensorops, vram
    "rtx-4090": (1008e9, 83e12, 660e12, 24 * 1024**3),
    "a100-40gb-pcie": (1555e9, 19.5e12, 156e12, 40 * 1024**3),
    "a100-80gb-pcie": (1935e9, 19.5e12, 156e12, 80 * 1024**3),
    "h100-pcie": (2000e9, 51e12, 758e12, 80 * 1024**3),
}


# --- the article's arithmetic ----------------------------------------------------------------
def test_kv_elements_as_the_article_writes_them():
    assert Z.zeux_kv_elements_per_token(n_layers=32, n_kv_heads=8, d_head=128) == 32 * 128 * 8 * 2
    assert Z.zeux_kv_elements_per_token(n_layers=40, n_kv_heads=64, d_head=128) == 40 * 128 * 64 * 2


def test_sol_fraction_is_bound_over_measured():
    # 14.2 GB at 1008 GB/s is 14.09 ms; measured 15.4 ms -> 91.5%
    assert Z.zeux_sol_fraction(weight_bytes=14.2e9, bandwidth=1008e9,
                          measured_seconds=15.4e-3) == pytest.approx(14.2 / 1008 / 15.4e-3)
    # exact inputs stay exact
    assert Z.zeux_sol_fraction(weight_bytes=10, bandwidth=5, measured_seconds=4) == 0.5


def test_attention_share_of_the_production_case():
    # 65.536 GB of 8-bit cache against 34,980,831,232 * 4.5 / 8 bytes of weights
    w = 34_980_831_232 * 9 // 16
    kv = 655_360 * 100_000
    assert Z.zeux_attention_share(weight_bytes=w, kv_cache_bytes_per_token=655_360,
                             context=100_000) == pytest.approx(kv / (w + kv))
    assert Z.zeux_attention_share(weight_bytes=1, kv_cache_bytes_per_token=1, context=1) == 0.5


def test_window_caps_the_cache_read():
    # the article's cap is the package's attended context with every layer windowed
    from llm_arithmetic.formulas import memory
    for S_ in (1000, 4096, 32768):
        assert (Z.zeux_windowed_kv_bytes(kv_cache_bytes_per_token=131072, context=S_, window=4096)
                == 131072 * memory.attended_context(context=S_, n_layers=32, n_window_layers=32,
                                                    window=4096))
    assert Z.zeux_windowed_kv_bytes(kv_cache_bytes_per_token=131072, context=1000, window=4096) == 131072000
    assert Z.zeux_windowed_kv_bytes(kv_cache_bytes_per_token=131072, context=32768,
                               window=4096) == 2**29  # 0.5 GiB
    s = np.array([1, 4096, 8192])
    np.testing.assert_array_equal(
        Z.zeux_windowed_kv_bytes(kv_cache_bytes_per_token=2, context=s, window=4096), [2, 8192, 8192])


def test_article_inputs():
    assert dict(Z.LLAMACPP_BITS) == {"fp16": 16, "q8_0": 8.5, "q4_0": 4.5}
    assert Z.COMMAND_R_ARTICLE_CONTEXT == 200_000
    assert Z.COMMAND_R_ADVERTISED_CONTEXT == 131072  # Cohere's "128K"
    assert Z.PRODUCTION_CONTEXT / Z.COMMAND_R_ARTICLE_CONTEXT == 0.5  # "half of the advertised"


# --- the calm notebook -----------------------------------------------------------------------
def test_notebook_printed_sizes():
    # the notebook prints: ('Llama-7b 6.7B', 'Llama-70b 69.0B', 'Mistral-7b 7.2B',
    # 'opt-7b 6.6B', 'phi-2 2.8B'); its figure titles add 'Llama-13b 13.0B'
    printed = {"llama-7b": "6.7", "llama-2-70b": "69.0", "mistral-7b": "7.2", "opt-6.7b": "6.6",
               "phi-2": "2.8", "llama-13b": "13.0"}
    for key, text in printed.items():
        p = Z.calm_params(**Z.calm_arch(get_model(key)))
        assert f"{p / 1e9:.1f}" == text


@pytest.mark.parametrize("key", sorted(CALM_MODELS))
def test_params_equal_the_notebook_code(key):
    arch = Z.calm_arch(get_model(key))
    assert Z.calm_params(**arch) == CALM_MODELS[key].params()
    assert Z.calm_active_params(**arch) == CALM_MODELS[key].actparams()


def test_notebook_printed_kv_elements():
    # the notebook prints (1073741824, 268435456) for kvcache(llama7b / mistral7b, 4096, 1)
    for key, printed in [("llama-7b", 1073741824), ("mistral-7b", 268435456)]:
        m = get_model(key)
        assert Z.calm_kv_elements(d_model=m.d_model, n_layers=m.n_layers, n_heads=m.n_heads,
                                  n_kv_heads=m.n_kv_heads, context=4096) == printed


@pytest.mark.parametrize("key", sorted(CALM_MODELS))
def test_memory_equals_the_notebook_code(key):
    arch = Z.calm_arch(get_model(key))
    for seq, bs in itertools.product([512, 4096], [1, 7, 64]):
        assert Z.calm_memory(**arch, context=seq, batch=bs) == calm_memory(CALM_MODELS[key], seq, bs)


@pytest.mark.parametrize("key,dev", list(itertools.product(sorted(CALM_MODELS), sorted(CALM_GPUS))))
def test_latency_equals_the_notebook_code(key, dev):
    arch = Z.calm_arch(get_model(key))
    bw, flops, tensorops, _ = CALM_GPUS[dev]
    for seq, bs, tc, bits in itertools.product([1, 1024, 8192], [1, 15, 16, 17, 200], [False, True],
                                               [16, 8, 32]):
        expected = calm_latency((bw, flops, tensorops), CALM_MODELS[key], seq, bs, modelbits=bits,
                                tensorcores=tc)
        got = Z.calm_latency(**arch, context=seq, batch=bs, bits_weight=bits, bandwidth=bw,
                             peak_vector=flops, peak_tensor=tensorops, tensorcores=tc)
        assert got == pytest.approx(expected, rel=1e-9)


def test_latency_vectorized_over_the_batch():
    arch = Z.calm_arch(get_model("mistral-7b"))
    bw, flops, tensorops, _ = CALM_GPUS["h100-pcie"]
    b = np.arange(1, 257)
    vec = Z.calm_latency(**arch, context=2048, batch=b, bandwidth=bw, peak_vector=flops,
                         peak_tensor=tensorops, tensorcores=True)
    one = [calm_latency((bw, flops, tensorops), CALM_MODELS["mistral-7b"], 2048, int(x),
                        tensorcores=True) for x in b]
    np.testing.assert_allclose(vec, one, rtol=1e-9)


@pytest.mark.parametrize("dev", sorted(CALM_GPUS))
def test_calm_gpus_come_from_the_catalog(dev):
    g = Z.calm_gpu(dev)
    assert (g["bandwidth"], g["flops"], g["tensorops"], g["vram"]) == CALM_GPUS[dev]


def test_calm_gpu_unknown_to_the_notebook():
    with pytest.raises(ValueError, match="calm notebook has no"):
        Z.calm_gpu("h100-sxm")


def test_calm_arch_needs_the_notebook_head_width():
    with pytest.raises(ValueError, match="d_head = d_model / n_heads"):
        Z.calm_arch(get_model("gemma-2-9b"))  # 16 heads of 256 in a 3584-wide model


def test_tensorcores_need_a_tensor_rate():
    with pytest.raises(ValueError, match="peak_tensor"):
        Z.calm_latency(**Z.calm_arch(get_model("llama-7b")), context=1, bandwidth=1e12,
                       peak_vector=1e12, tensorcores=True)


def test_figures_spec_matches_the_notebook():
    assert [(f["hardware"], f["model"], f["batches"], f["contexts"]) for f in Z.CALM_FIGURES] == [
        ("a100-80gb-pcie", "llama-7b", (1, 16), (1024, 2048, 4096, 8192)),
        ("h100-pcie", "mistral-7b", (1, 256), (1024, 2048, 4096, 8192)),
        ("a100-80gb-pcie", "llama-13b", (1, 256), (512, 1024)),
    ]


def test_new_symbols_are_in_the_glossary():
    used = Z.calm_latency_tc.expr.free_symbols | Z.zeux_sol_fraction.expr.free_symbols
    for name in ("measured_seconds", "peak_vector", "peak_tensor", "tensor_scale"):
        assert GLOSSARY[name].symbol in used
