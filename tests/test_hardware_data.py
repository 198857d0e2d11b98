"""The data files catalog/data/hardware.toml and formats.toml, read with tomllib: schema and units.

Independent of the package's loader: these tests read the TOML directly, so they check the data as
written (units in the key names, sparse figures flagged, every figure sourced).
"""
from __future__ import annotations

import math
import re
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "lib" / "llm_arithmetic" / "catalog" / "data"
DEVICES = tomllib.loads((DATA / "hardware.toml").read_text(encoding="utf-8"))["devices"]
FORMATS_FILE = tomllib.loads((DATA / "formats.toml").read_text(encoding="utf-8"))

KINDS = {"datacenter-gpu", "accelerator", "consumer-gpu", "soc", "apple-silicon", "cpu", "sbc",
         "system"}
PRECISIONS = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp6", "fp4", "int4",
              "fp16-acc16", "fp16-vector"}
ENGINES = {"tensor", "vector", ""}
UNITS = {"FLOP/s", "OP/s"}
ARTICLES = {"finbarr2023llamacpp", "karpathy2023note", "baseten2023guide", "kapoulkine2024sol",
            "calm2024sol"}
# Keys that notebooks, tests and instructors cite (grep "get_hardware(" and "hardware=").
CITED = {"a10", "a100-80gb-pcie", "a100-80gb-sxm", "h100-sxm", "l4", "m2", "m2-max", "m2-pro",
         "raspberry-pi-4", "rtx-4090", "ryzen-7950x", "t4"}
# A sparse figure is twice the dense one, up to the rounding of printed figures (0.5%: the GA102
# whitepaper prints TF32 35.6 | 71 for the RTX 3090). Pairs the source prints otherwise, kept as
# printed: the L40S datasheet's FP16/BF16 362.05 | 733 (2 x 362.05 = 724.1).
SPARSE_EXCEPTIONS = {("l40s", "fp16"), ("l40s", "bf16")}
URL = re.compile(r"https?://\S+")


def _peaks():
    for name, d in DEVICES.items():
        for key, p in d["peaks"].items():
            yield name, key, p


def test_cited_keys_are_there():
    assert CITED <= set(DEVICES)


@pytest.mark.parametrize("name", sorted(DEVICES))
def test_device_fields(name):
    d = DEVICES[name]
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name)
    assert isinstance(d["label"], str) and d["label"]
    assert d["kind"] in KINDS
    assert isinstance(d["vendor"], str) and d["vendor"]
    assert isinstance(d["year"], int) and 2015 <= d["year"] <= 2030
    assert isinstance(d["bandwidth"], float) and 1e9 <= d["bandwidth"] <= 1e14  # B/s
    assert type(d["capacity"]) is int and 2**30 <= d["capacity"] <= 2**41  # B
    if "power" in d:
        assert type(d["power"]) is int and 1 <= d["power"] <= 5000  # W
    assert d["source"].startswith("https://") and URL.fullmatch(d["source"])
    assert isinstance(d["notes"], str) and d["notes"]
    assert d["peaks"], "no peak rate"


@pytest.mark.parametrize("name,key,p", list(_peaks()), ids=lambda v: v if isinstance(v, str) else "")
def test_peak_fields(name, key, p):
    base = key.removesuffix("-sparse")
    assert base in PRECISIONS, key
    assert isinstance(p["rate"], float) and p["rate"] > 0
    assert isinstance(p["dense"], bool)
    assert p["dense"] is (not key.endswith("-sparse")), "a -sparse key is dense = false, others true"
    assert p["engine"] in ENGINES
    assert p.get("unit", "FLOP/s") in UNITS
    assert (p.get("unit", "FLOP/s") == "OP/s") == base.startswith("int"), "integer formats in OP/s"
    if "source" in p:
        assert URL.fullmatch(p["source"])
    assert set(p) <= {"rate", "dense", "engine", "unit", "source"}


def test_a_sparse_figure_has_its_dense_twin():
    # Chapters and tables divide a -sparse rate by its dense twin; a figure a vendor calls sparse
    # without a dense twin at half the rate belongs in the notes (see the file's header).
    for name, key, p in _peaks():
        if key.endswith("-sparse"):
            assert key.removesuffix("-sparse") in DEVICES[name]["peaks"], (name, key)


def test_narrower_formats_are_not_slower():
    # On one chip a narrower format never runs slower (fp4 >= fp8 >= fp16 = bf16 >= tf32);
    # fp16 and bf16 share the datapath wherever both are stored.
    ladder = ("fp4", "fp6", "fp8", "fp16", "tf32")
    for name, d in DEVICES.items():
        pk = {k: p["rate"] for k, p in d["peaks"].items() if p["dense"]}
        rates = [pk[k] for k in ladder if k in pk]
        assert rates == sorted(rates, reverse=True), name
        if "fp16" in pk and "bf16" in pk:
            assert pk["fp16"] == pk["bf16"], name


@pytest.mark.parametrize("name", sorted(DEVICES))
def test_plausible_ratios(name):
    d = DEVICES[name]
    # reading the whole memory once takes between 5 ms (HBM) and 5 s (a CPU's DIMMs)
    assert 5e-3 < d["capacity"] / d["bandwidth"] < 5, "capacity [B] / bandwidth [B/s]"
    pk = {k: p["rate"] for k, p in d["peaks"].items() if p["dense"]}
    head = next((pk[k] for k in ("fp16", "bf16", "fp32") if k in pk), None)
    if head is not None:  # ops:byte between a CPU's ~4 and Jetson Thor's ~950 FLOP/B
        assert 1 < head / d["bandwidth"] < 1000, "headline peak [FLOP/s] / bandwidth [B/s]"
    ic = d.get("interconnect", {})
    if "scale_up_bandwidth" in ic:  # a link is slower than the chip's own memory
        assert ic["scale_up_bandwidth"] < d["bandwidth"]
        if "scale_out_bandwidth" in ic:
            assert ic["scale_out_bandwidth"] <= ic["scale_up_bandwidth"]


def test_sparse_is_twice_dense():
    off = set()
    for name, key, p in _peaks():
        if key.endswith("-sparse"):
            dense = DEVICES[name]["peaks"].get(key.removesuffix("-sparse"))
            if dense is not None and not math.isclose(p["rate"], 2 * dense["rate"], rel_tol=5e-3):
                off.add((name, key.removesuffix("-sparse")))
    assert off == SPARSE_EXCEPTIONS


def test_dense_ladders_where_the_source_gives_one():
    # Independent of how each figure was transcribed: on one chip, FP8 runs at twice the 16-bit
    # tensor rate wherever both are stored (datacenter Hopper/Blackwell/Ada and AMD matrix cores).
    for name in ("h100-sxm", "h100-pcie", "h200", "h20", "gh200", "b200", "gb200", "b300", "gb300",
                 "l4", "l40s", "mi300x", "mi325x", "mi350x", "mi355x"):
        pk = DEVICES[name]["peaks"]
        assert math.isclose(pk["fp8"]["rate"], 2 * pk["fp16"]["rate"], rel_tol=2.5e-2), name


def test_geforce_blackwell_tensor_rates_agree_with_their_cuda_cores():
    """The RTX 50 cards below the 5090 have no printed 16-bit tensor rate: the catalog derives it
    from the printed AI TOPS (sparse FP4) with the 5090's whitepaper ratios. A second derivation,
    from CUDA cores x 2 x boost clock (the card's FP32 rate) and the 5090's FP16 : FP32 of 2,
    must agree within half a percent (the AI TOPS and the boost clock are printed rounded, the
    rates are rounded to 0.1 TFLOPS)."""
    ref = DEVICES["rtx-5090"]["peaks"]
    fp16_over_fp32 = ref["fp16"]["rate"] / ref["fp32"]["rate"]
    assert math.isclose(fp16_over_fp32, 2, rel_tol=1e-3)
    for name in ("rtx-5080", "rtx-5070-ti", "rtx-5070", "rtx-5060-ti", "rtx-5060"):
        pk = DEVICES[name]["peaks"]
        cores, clock = (float(x.replace(",", "")) for x in re.search(
            r"([\d,]+) CUDA cores, boost ([\d.]+) GHz", DEVICES[name]["notes"]).groups())
        by_cores = cores * 2 * clock * 1e9 * fp16_over_fp32
        assert math.isclose(pk["fp16"]["rate"], by_cores, rel_tol=5e-3), name
        assert pk["bf16"]["rate"] == pk["fp16"]["rate"]
        assert math.isclose(pk["fp16-acc16"]["rate"], 2 * pk["fp16"]["rate"], rel_tol=2e-3)
        assert math.isclose(pk["fp8"]["rate"], 2 * pk["fp16"]["rate"], rel_tol=2e-3)


def test_rtx_pro_6000_runs_fp16_with_fp32_accumulate_at_the_full_rate():
    """The workstation card's 16-bit rate, derived from NVIDIA's printed AI TOPS at the full
    rate (FP4 / 4), against a GPU database's table for the card (503.8 TFLOPS for FP16 with
    FP32 accumulate, hmc-tech.com, cited in the entry): within 1% (the database's clock)."""
    pk = DEVICES["rtx-pro-6000"]["peaks"]
    assert math.isclose(pk["fp16"]["rate"], 503.8e12, rel_tol=1e-2)
    assert pk["fp16"]["rate"] == pk["fp4"]["rate"] / 4 == pk["bf16"]["rate"] == pk["fp8"]["rate"] / 2


def test_orin_16bit_rates_agree_with_their_tensor_cores():
    """AGX Orin prints 85 sparse FP16 TFLOPS (its data sheet); the Orin Nano prints only INT8, so
    its FP16 is INT8 / 2, the ratio of the AGX Orin's data sheet (170 INT8 or 85 FP16, sparse).
    Second derivation for both: tensor cores x 256 FP16 FMA per core and clock (the A100
    whitepaper's third-generation tensor core; the AGX figure is exactly that) x 2 x the GPU
    clock of each data sheet (64 at 1.3 GHz; 32 at 1.02 GHz in MAXN_SUPER), within half a
    percent (the printed figures are rounded)."""
    for name, tensor_cores, clock in (("jetson-orin", 64, 1.3e9), ("orin-nano", 32, 1.02e9)):
        pk = DEVICES[name]["peaks"]
        assert math.isclose(pk["fp16"]["rate"], tensor_cores * 256 * 2 * clock, rel_tol=5e-3), name
        assert pk["fp16"]["rate"] == pk["int8"]["rate"] / 2 == pk["bf16"]["rate"], name
    assert DEVICES["jetson-orin"]["peaks"]["fp16-sparse"]["rate"] == 85e12


def test_jetson_thor_ladder_is_the_b200s():
    """Thor's FP16 and FP8 come from NVIDIA's blog table (517 TFLOPS dense FP8 or sparse FP16);
    the FP4 from the product page (2,070 sparse). Their ratios are the B200 datasheet's: FP4 :
    FP8 : FP16 = 4 : 2 : 1, within the rounding of 517 (half of 1,035)."""
    thor, b200 = DEVICES["jetson-thor"]["peaks"], DEVICES["b200"]["peaks"]
    ratio = b200["fp4"]["rate"] / b200["fp16"]["rate"]
    assert ratio == 4
    assert math.isclose(thor["fp4"]["rate"] / thor["fp16"]["rate"], ratio, rel_tol=5e-3)
    assert thor["fp8"]["rate"] == 2 * thor["fp16"]["rate"] == thor["fp16-sparse"]["rate"]


def test_gb20x_16bit_rates_derived_from_fp32_and_fp4_agree():
    """DGX Spark (GB10) and the RTX PRO 6000 Server Edition print no 16-bit rate. The catalog
    derives it as dense FP4 / 4 (the RTX 5090's FP16-accumulate ratio in the RTX Blackwell
    whitepaper). A second derivation from the printed FP32 rate and the 5090's FP16 (FP16
    accumulate) : FP32 of 4 agrees within 1% (GB10's FP32 is Hot Chips' rounded '31'); the
    Server Edition's is that of the Workstation Edition, the same GB202."""
    ref = DEVICES["rtx-5090"]["peaks"]
    acc16_over_fp32 = ref["fp16-acc16"]["rate"] / ref["fp32"]["rate"]
    assert math.isclose(acc16_over_fp32, 4, rel_tol=1e-3)
    spark = DEVICES["dgx-spark"]["peaks"]
    assert spark["fp16"]["rate"] == spark["fp4"]["rate"] / 4 == spark["bf16"]["rate"]
    assert spark["fp8"]["rate"] == spark["fp4"]["rate"] / 2
    assert math.isclose(spark["fp16"]["rate"], acc16_over_fp32 * spark["fp32"]["rate"], rel_tol=1e-2)
    server, workstation = DEVICES["rtx-pro-6000-server"]["peaks"], DEVICES["rtx-pro-6000"]["peaks"]
    assert math.isclose(server["fp16"]["rate"], acc16_over_fp32 * server["fp32"]["rate"],
                        rel_tol=1e-3)
    assert server["fp16"]["rate"] / server["fp32"]["rate"] == \
        workstation["fp16"]["rate"] / workstation["fp32"]["rate"]
    assert server["bf16"]["rate"] == server["fp16"]["rate"] == server["fp8"]["rate"] / 2


@pytest.mark.parametrize("name", sorted(n for n, d in DEVICES.items() if "interconnect" in d))
def test_interconnect(name):
    ic = DEVICES[name]["interconnect"]
    assert set(ic) <= {"scale_up", "scale_up_bandwidth", "scale_up_domain", "pcie", "pcie_bandwidth",
                       "scale_out", "scale_out_bandwidth", "source", "scale_out_source",
                       "scale_up_topology", "scale_up_in_switch_reduction", "scale_up_latency",
                       "scale_up_latency_source", "scale_out_latency", "scale_out_latency_source"}
    for key, value in ic.items():
        if key.endswith("_bandwidth"):
            assert isinstance(value, float) and value > 0, key  # B/s per direction
            assert 1e9 <= value <= 1e13, key  # between 1 GB/s and 10 TB/s: not in Gb/s
            assert ic[key.removesuffix("_bandwidth")], f"{key} without a link named"
        if key.endswith("_latency"):  # seconds, only with a public source
            assert isinstance(value, float) and 0 < value < 1e-3, key
            assert URL.fullmatch(ic[f"{key}_source"]), f"{key} without a source"
    assert type(ic["scale_up_domain"]) is int and ic["scale_up_domain"] >= 1
    assert ic.get("scale_up_topology", "") in {"", "switch", "all-to-all", "torus-2d", "torus-3d",
                                                "ring"}
    if not ic["scale_up"]:
        assert ic["scale_up_domain"] == 1 and "scale_up_bandwidth" not in ic
        assert not ic.get("scale_up_in_switch_reduction", False)
    else:  # a named link whose bandwidth the source does not give has none
        assert ic["scale_up_domain"] >= 2
    if ic.get("scale_up_in_switch_reduction"):
        assert ic["scale_up_topology"] == "switch"
    assert ic["source"].startswith("https://")
    if "scale_out_source" in ic:
        assert ic["scale_out_source"].startswith("https://")


def test_figure_choices():
    # Where a vendor prints a figure two ways, the catalog says which it took and why; the
    # value taken is the one stored, and the other one is really different.
    n = 0
    for name, d in DEVICES.items():
        for c in d.get("figure_choices", []):
            n += 1
            assert set(c) == {"quantity", "taken", "other", "other_source", "why"}, name
            q = c["quantity"]
            stored = d[q] if q in ("bandwidth", "capacity") else \
                d["peaks"][q.removeprefix("peak:")]["rate"]
            assert c["taken"] == stored, (name, q)
            assert abs(c["other"] / c["taken"] - 1) > 1e-3, (name, q)
            assert URL.fullmatch(c["other_source"]) and len(c["why"]) > 40, (name, q)
    # the issue's three: the B200's bandwidth, the H200's and B200's capacities
    got = {(n, c["quantity"]) for n, d in DEVICES.items() for c in d.get("figure_choices", [])}
    assert {("b200", "bandwidth"), ("b200", "capacity"), ("h200", "capacity")} <= got


def test_article_figures():
    for name, d in DEVICES.items():
        for af in d.get("article_figures", []):
            assert af["article"] in ARTICLES
            q = af["quantity"]
            assert q in ("bandwidth", "capacity") or q.removeprefix("peak:") in d["peaks"], (name, q)
            assert af["value"] > 0 and af["note"]


# ---------------------------------------------------------------------------------- formats.toml

FORMATS = FORMATS_FILE["formats"]
MIXES = FORMATS_FILE["mixes"]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_format_fields(fmt):
    f = FORMATS[fmt]
    assert re.fullmatch(r"\d+(/\d+)?", f["bits_per_weight"])
    assert Fraction(f["bits_per_weight"]) > 0
    assert f["compute"] in PRECISIONS and f.get("compute_fallback", "fp16") in PRECISIONS
    assert f["layout"] and URL.fullmatch(f["source"])


def test_formats_agree_with_units_py():
    # units.py derived its table by hand; the data file counts the same blocks again.
    from llm_arithmetic.catalog.formats import BITS_PER_WEIGHT
    for fmt, bits in BITS_PER_WEIGHT.items():
        assert Fraction(FORMATS[fmt]["bits_per_weight"]) == bits, fmt


def test_mixes_name_known_formats():
    for mix, m in MIXES.items():
        assert m["default"] in FORMATS and m.get("experts", "fp16") in FORMATS, mix
        for rule in m["rules"]:
            for target in re.findall(r"q\d_[a-z0-9]+", rule.split("->")[-1]):
                assert target in FORMATS, (mix, rule)
        ex = m["example_llama_2_7b"]
        # the example's bytes and bits per weight describe the same parameter count
        assert math.isclose(ex["bytes"] * 8 / ex["bits_per_weight"], 6_738_415_616, rel_tol=1e-3)


def test_m5_rates_are_the_a19_benchmarks_per_core_rates_at_one_assumed_clock():
    """The M5 family's rates: GPU cores (from each label) x the A19 benchmark's per-core-per-clock
    figures (fp32 128 x 2 on the shader ALUs, fp16 1,024 and int8 2,048 on the matrix units) x
    one assumed clock, the same for the three chips; at that clock the M5 Max gives the
    benchmark's own rounded estimates for it (18 TFLOPS fp32, 70 fp16), within 3%."""
    clocks = set()
    for name in ("m5", "m5-pro", "m5-max"):
        d = DEVICES[name]
        cores = int(re.search(r"(\d+)-core GPU", d["label"]).group(1))
        pk = d["peaks"]
        clock = pk["fp32"]["rate"] / (cores * 256)
        clocks.add(round(clock / 1e6))
        assert math.isclose(pk["fp16"]["rate"], cores * 1024 * clock, rel_tol=1e-9), name
        assert math.isclose(pk["int8"]["rate"], cores * 2048 * clock, rel_tol=1e-9), name
        assert pk["int8"]["unit"] == "OP/s" and pk["int8"]["engine"] == "tensor"
        assert "unconfirmed" in d["notes"] and "1.75 GHz" in d["notes"]
    assert clocks == {1750}
    mx = DEVICES["m5-max"]["peaks"]
    assert math.isclose(mx["fp32"]["rate"], 18e12, rel_tol=3e-2)
    assert math.isclose(mx["fp16"]["rate"], 70e12, rel_tol=3e-2)
