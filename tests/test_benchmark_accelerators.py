"""Every accelerator of the public inference benchmarks has a catalog row (issue 27, item 1).

catalog/data/benchmark_accelerators.toml lists each accelerator name that MLPerf Inference v6.x
and the InferenceMAX nightly benchmark print, with the catalog keys it maps to. The names in
PRINTED below are copied from the benchmarks' own files (summary.json's accelerator_model_name,
InferenceMAX's runner labels), not from the data file: the test checks the file against them.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from llm_arithmetic import get_hardware, hardware_names

DATA = Path(__file__).resolve().parents[1] / "lib" / "llm_arithmetic" / "catalog" / "data"
LIST = tomllib.loads((DATA / "benchmark_accelerators.toml").read_text(encoding="utf-8"))
ENTRIES = LIST["accelerators"]
SOURCES = {s["name"]: s for s in LIST["sources"]}

# Copied from mlcommons/inference_results_v6.1 summary.json (commit 10ecdffd), one per distinct
# accelerator_model_name, and from SemiAnalysisAI/InferenceX .github/configs/runners.yaml.
PRINTED = {
    "mlperf-inference-v6.1": [
        "AMD Instinct MI350X 288GB HBM3e", "AMD Instinct MI355X 288GB HBM3e", "AMD Instinct MI355X",
        "AMD Instinct MI350P", "AMD Instinct MI300X 192GB HBM3",
        "AMD Instinct MI300X 192GB HBM3 (x2x8) and AMD Instinct MI355X 288GB HBM3e (x2x8)",
        "NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e", "NVIDIA H200-SXM-141GB",
        "NVIDIA B200-SXM-180GB", "NVIDIA B300-SXM-270GB", "Nvidia B300-SXM-270GB", "NVIDIA GB200",
        "NVIDIA GB300", "NVIDIA Vera Rubin", "NVIDIA VR200", "NVIDIA GB10",
        "AMD Radeon 8060S Graphics", "NVIDIA Jetson AGX Thor 128G",
        "NVIDIA RTX PRO 6000 Blackwell Server Edition", "NVIDIA RTX PRO 6000 Blackwell",
        "NVIDIA RTX PRO 4500 Blackwell", "NVIDIA RTX PRO 4500 Blackwell-PCIe-32GB",
        "NVIDIA RTX PRO 4500 Blackwell Server Edition", "Intel(R) Arc(TM) Pro B70",
    ],
    "mlperf-inference-v6.0": ["Dynamo Neuromorphic NPU"],
    "inferencemax": ["h100", "h200", "b200", "b300", "gb200", "mi300x", "mi325x", "mi355x"],
}
# The names with no catalog row, each with its reason in the data file. A new gap fails here;
# a row added for one of these must take it off this set and map it.
MISSING = {
    "NVIDIA RTX PRO 4500 Blackwell-PCIe-32GB", "NVIDIA RTX PRO 4500 Blackwell Server Edition",
    "Dynamo Neuromorphic NPU",
}
GiB = 2**30


def test_sources_are_pinned():
    for s in LIST["sources"]:
        assert re.fullmatch(r"[0-9a-f]{40}", s["commit"]), s["name"]
        assert s["url"].startswith("https://github.com/") and s["commit"] in s["url"]
        assert s["read"], s["name"]


def test_every_printed_name_is_listed():
    listed = {(src, e["name"]) for e in ENTRIES for src in e["sources"]}
    for src, names in PRINTED.items():
        for name in names:
            assert (src, name) in listed, f"{name!r} ({src}) is not in benchmark_accelerators.toml"


@pytest.mark.parametrize("e", ENTRIES, ids=lambda e: e["name"])
def test_every_entry_maps_to_the_catalog(e):
    assert set(e["sources"]) <= set(SOURCES)
    assert set(e["maps_to"]) <= set(hardware_names()), e["maps_to"]
    if e["maps_to"]:
        assert "missing" not in e
    else:
        assert e["missing"].strip(), "an unmapped entry says why"


def test_the_gaps_are_the_known_ones():
    assert len({e["name"] for e in ENTRIES}) == len(ENTRIES), "one entry per name"
    assert {e["name"] for e in ENTRIES if not e["maps_to"]} == MISSING


@pytest.mark.parametrize("e", [e for e in ENTRIES if len(e["maps_to"]) == 1
                               and re.search(r"\b(\d+)GB\b", e["name"])], ids=lambda e: e["name"])
def test_a_capacity_in_the_name_is_the_rows(e):
    # "288GB", "141GB", "180GB": the vendors' binary gigabytes, as the catalog stores them. The
    # one known difference: MLPerf's "B300-SXM-270GB" against the row's nominal 288 GiB (see the
    # entry's notes).
    printed = int(re.search(r"\b(\d+)GB\b", e["name"]).group(1))
    h = get_hardware(e["maps_to"][0])
    exposed = {"b300": 270}
    assert exposed.get(h.name, h.capacity // GiB) == printed
