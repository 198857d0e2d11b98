"""estimate(): model x chip x precision, checked against the articles' own derivations."""
from __future__ import annotations

import pytest

from llm_arithmetic import estimate, get_hardware, get_model


def test_zeux_mistral_on_rtx_4090():
    # zeux: ~7111M weights in matrix products; fp16 -> ~14.2 GB -> ~14.1 ms at 1008 GB/s;
    # 8-bit -> ~7.1 GB -> ~7.0 ms (rounded figures in the article)
    m, h = get_model("mistral-7b"), get_hardware("rtx-4090")
    fp16 = estimate(m, hardware=h, weights="fp16", context=1)
    int8 = estimate(m, hardware=h, weights="int8", context=1)
    assert fp16.params_matmul == pytest.approx(7111e6, abs=1e6)
    assert fp16.decode_bytes_per_token == pytest.approx(14.2e9, abs=0.05e9)
    assert fp16.decode_seconds_per_token == pytest.approx(14.1e-3, abs=0.05e-3)
    assert int8.decode_seconds_per_token == pytest.approx(7.0e-3, abs=0.06e-3)
    assert fp16.bound == int8.bound == "memory"


def test_zeux_kv_cache_per_token():
    # zeux: Mistral 32*128*8*2 = 65K elements/token, ~130 KB at fp16; Command-R 655K, ~1.3 MB
    assert get_model("mistral-7b").kv_bytes_per_token() == 2 * 32 * 128 * 8 * 2
    assert get_model("command-r").kv_bytes_per_token() == 2 * 40 * 128 * 64 * 2


def test_baseten_a10_batch_of_four():
    # Baseten: 24 GB A10, Llama 2 7B fp16 (~14 GB), 4096-token sequences: a batch of 4
    e = estimate(get_model("llama-2-7b"), bandwidth=600e9, peak_flops=125e12, capacity=24 * 10**9,
                 context=4096)
    assert e.max_batch == 4
    assert e.ops_per_byte == pytest.approx(208.3, abs=0.05)


def test_batching_amortizes_weights_not_cache():
    m, h = get_model("llama-2-7b"), get_hardware("a100-80gb-sxm")
    one = estimate(m, hardware=h, context=1, batch=1)
    many = estimate(m, hardware=h, context=1, batch=64)
    assert many.throughput_tokens_per_second > 40 * one.throughput_tokens_per_second
    long1 = estimate(m, hardware=h, context=32768, batch=1)
    long8 = estimate(m, hardware=h, context=32768, batch=8)
    # each added sequence brings its own cache: bytes per step grow by exactly that cache
    assert long8.decode_step_bytes - long1.decode_step_bytes == 7 * long1.kv_cache_bytes


def test_fit_and_capacity():
    e = estimate(get_model("llama-65b"), hardware=get_hardware("rtx-4090"), weights="int4")
    assert e.fits is False and e.max_batch == 0
    e = estimate(get_model("llama-7b"), hardware=get_hardware("rtx-4090"), weights="int4")
    assert e.fits is True


def test_bad_estimate_inputs():
    m = get_model("llama-2-7b")
    with pytest.raises(ValueError, match="context must be a positive integer"):
        estimate(m, context=0)
    with pytest.raises(ValueError, match="bandwidth must be positive"):
        estimate(m, bandwidth=-1.0)
    with pytest.raises(ValueError, match="either weights"):
        estimate(m, weights="fp16", bits_weight=16)


def test_sliding_window_caps_the_cache_read():
    # zeux: Mistral 7B's windowed attention "limits the bandwidth consumed to a window of 4096
    # tokens": decoding at 32K reads the same cache as at 4096, while the stored cache grows.
    m = get_model("mistral-7b")
    at4k, at32k = estimate(m, context=4096), estimate(m, context=32768)
    assert at32k.decode_bytes_per_token == at4k.decode_bytes_per_token
    assert at32k.kv_cache_bytes == 8 * at4k.kv_cache_bytes
    assert at32k.attended_context == 4096
