"""The calibration dataset and the bound computed for it (lib/llm_arithmetic/calibration.py)."""
from __future__ import annotations

import csv
from fractions import Fraction

import pytest

from llm_arithmetic.lab import calibration as C
from llm_arithmetic import get_model

ROWS = C.load_measurements()
CAL = C.calibrate(ROWS)
BY_ID = {c.id: c for c in CAL}


def test_row_count_and_unique_ids():
    assert len(ROWS) >= 50
    assert len({r.id for r in ROWS}) == len(ROWS)


def test_csv_columns():
    with open(C.DATA_PATH, newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert header == ["id", "device", "device_class", "hardware_key", "bandwidth_gbps",
                      "bandwidth_source", "model", "model_key", "params_total", "params_active",
                      "weight_format", "bits_per_weight", "context", "measured_tps", "software",
                      "measurement_url", "note", "split"]


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_row_is_complete_and_sane(row):
    assert row.measurement_url.startswith("https://")
    assert row.bandwidth_source.startswith("https://")
    assert row.note and row.software and row.weight_format
    assert row.device_class in C.DEVICE_CLASSES
    assert 3.5 <= row.bits_per_weight <= 16
    assert 10 <= row.bandwidth_gbps <= 5000
    assert 0 < row.measured_tps < 1000
    assert row.context is None or row.context >= 0
    # the params columns agree with the catalog model the bound uses
    m = get_model(row.model_key)
    assert (row.params_total, row.params_active) == (m.total_params, m.active_params)


def test_catalog_devices_agree_with_the_csv():
    from llm_arithmetic import get_hardware
    for r in ROWS:
        if r.hardware_key:
            assert get_hardware(r.hardware_key).bandwidth == pytest.approx(r.bandwidth_gbps * 1e9)


def test_coverage():
    classes = {r.device_class for r in ROWS}
    assert classes == set(C.DEVICE_CLASSES)
    assert any(r.params_active < r.params_total for r in ROWS), "no mixture-of-experts row"
    formats = {r.weight_format for r in ROWS}
    assert {"fp16", "Q8_0", "Q4_0", "Q4_K_M"} <= formats
    assert len({r.device for r in ROWS if r.device_class == "apple"}) >= 4
    # CPU rows are not Apple CPU clusters only: at least one x86 desktop/server CPU
    assert any(r.device_class == "cpu" and not r.device.startswith("Apple") for r in ROWS)


def test_bound_by_hand_llama7b_q4_0_rtx4080():
    # LLaMA 7B: V=32000, d=4096, L=32, d_ff=11008, untied. Weights read per token: the 32 blocks
    # (4 d^2 attention + 3 d d_ff MLP + 2 d norms), the final norm, the output head (V d) and
    # one embedding row (d).
    d, L, ff, V = 4096, 32, 11008, 32000
    p_read = L * (4 * d * d + 3 * d * ff + 2 * d) + d + V * d + d
    assert p_read == 6607347712
    bytes_ = p_read * Fraction(9, 2) / 8  # Q4_0: 4.5 bits
    c = BY_ID["xd-llama1-4080-7b-q4_0"]
    assert c.bytes_per_token == float(bytes_)
    assert c.bound_tps == pytest.approx(716.8e9 / float(bytes_))
    assert c.efficiency == pytest.approx(118.05 / (716.8e9 / float(bytes_)))


def test_bound_by_hand_mixtral_q8_0_m2_max():
    # Mixtral 8x7B: 2 of 8 experts per token; router d x E per layer; GQA 8 x 128.
    d, L, ff, V, E, k = 4096, 32, 14336, 32000, 8, 2
    attn = d * d * 2 + 2 * d * (8 * 128)
    p_read = L * (attn + k * 3 * d * ff + E * d + 2 * d) + d + V * d + d
    kv = 2 * L * 8 * 128 * 2  # fp16 bytes per token
    bytes_ = p_read * Fraction(17, 2) / 8 + kv * 64  # tg128: mean cache 64 tokens
    c = BY_ID["pr4406-m2max-mixtral-q8_0"]
    assert c.params_read == p_read
    assert c.bytes_per_token == pytest.approx(float(bytes_))
    assert c.bound_tps == pytest.approx(400e9 / float(bytes_))


def test_bound_by_hand_llama3_8b_f16_rtx4090_with_cache():
    # Llama 3 8B: V=128256, d=4096, L=32, d_ff=14336, 8 KV heads; tg512 -> mean cache 256.
    d, L, ff, V = 4096, 32, 14336, 128256
    p_read = L * (2 * d * d + 2 * d * 1024 + 3 * d * ff + 2 * d) + d + V * d + d
    kv = 2 * L * 8 * 128 * 2
    bytes_ = p_read * 2 + kv * 256
    c = BY_ID["xd-llama3-4090-8b-f16"]
    assert c.bytes_per_token == bytes_
    assert c.bound_tps == pytest.approx(1008e9 / bytes_)


def test_efficiencies_positive_and_above_bound_rows_explained():
    assert all(c.efficiency > 0 for c in CAL)
    # no measurement may beat its bound: a row that does is a wrong input or a wrong bound
    above = [(c.id, round(c.efficiency, 3)) for c in CAL if c.efficiency > 1]
    assert above == []


def test_medians_per_class_in_a_plausible_range():
    med = C.median_efficiency(CAL)
    assert set(med) == set(C.DEVICE_CLASSES)
    assert all(0.2 < v < 1.0 for v in med.values())


def test_sympy_bound_matches_numeric():
    from llm_arithmetic.formulas import roofline as R
    c = BY_ID["xd-llama3-4090-8b-f16"]
    m = get_model("llama-3-8b")
    step = R.decode_step_bytes.subs(weight_bytes=int(c.weight_bytes),
                                    kv_cache_bytes_per_token=m.kv_cache_bytes_per_token(16), context=256)
    val = R.memory_bound_rate.subs(step_bytes=step, bandwidth=1008 * 10**9)
    assert float(val) == pytest.approx(c.bound_tps)
