"""The device kit's importer (scripts/device/import_llama_bench.py) on a committed sample run.

The sample, tests/data/device_kit/cpu-dry-run-2026-11-28/, is what
``bash scripts/device/llama_cpp_decode.sh --cpu --tiny`` wrote here on the CPU (llama.cpp
0c1e5709, build 11312, random weights of Qwen3 0.6B at Q4_0, tg16 at depths 0 and 256, flash
attention off and on): a CPU dry run, never a row of the data. The GPU path is checked on a copy
of it whose backend and device lines are rewritten as a CUDA run's would read (the kit's CUDA
build itself is untested here). Cheap: no build, no model file, two CSV files read.
"""
from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from llm_arithmetic import get_hardware, get_model
from llm_arithmetic.lab import measurements as M

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "device_kit" / "cpu-dry-run-2026-11-28"

_spec = importlib.util.spec_from_file_location("import_llama_bench",
                                               ROOT / "scripts" / "device" / "import_llama_bench.py")
imp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(imp)


def _tests(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "llama-bench.jsonl").read_text().splitlines()]


def _as_cuda_run(tmp_path: Path) -> Path:
    """The sample with the lines a CUDA run on an H200 writes differently (backend, GPU name,
    the nvidia-smi query line, the CMake cache's CUDA entries, a copy bandwidth)."""
    run = tmp_path / "run"
    shutil.copytree(SAMPLE, run)
    lines = []
    for t in _tests(SAMPLE):
        t.update(backends="CUDA", gpu_info="NVIDIA H200", n_gpu_layers=99)
        lines.append(json.dumps(t))
    # a last line cut by the time limit is not a completed test
    (run / "llama-bench.jsonl").write_text("\n".join(lines) + "\n" + lines[0][:100])
    (run / "device.txt").write_text((SAMPLE / "device.txt").read_text()
                                    + "# gpu: NVIDIA H200, 143771, 9.0\n")
    (run / "build.txt").write_text((SAMPLE / "build.txt").read_text()
                                   + "GGML_CUDA:BOOL=ON\nGGML_CUDA_GRAPHS:BOOL=ON\n"
                                   "CMAKE_CUDA_ARCHITECTURES:STRING=90\n")
    (run / "copy_bandwidth.json").write_text(json.dumps({"bytes_moved_per_second": 4.3e12}))
    return run


def test_bits_per_weight_are_size_times_8_over_params():
    rows = imp.rows_of_run(SAMPLE, allow_cpu=True)
    tests = _tests(SAMPLE)
    assert len(rows) == len(tests) == 4
    for row, t in zip(rows, tests):
        # computed here from the JSON fields, not by the importer's helper
        assert float(row["bits_per_weight"]) == pytest.approx(t["model_size"] * 8 / t["model_n_params"],
                                                              abs=5e-4)
        assert row["value"] == f"{t['avg_ts']:.2f}" and row["context"] == str(t["n_depth"] + 8)
    # the random file has the catalog's shapes: llama-bench counts the catalog's parameters
    assert {t["model_n_params"] for t in tests} == {get_model("qwen3-0.6b").total_params}
    # Q4_0 blocks (18 bytes per 32 weights) with the tied embedding at Q6_K (210 per 256) and
    # F32 norms: 1024 x 151936 embedding, 28 layers
    emb = 1024 * 151936
    assert {t["model_size"] for t in tests} == {(get_model("qwen3-0.6b").total_params - emb - 1024
                                                 - 28 * (2 * 1024 + 2 * 128)) * 18 // 32
                                                + emb * 210 // 256 + 4 * (1024 + 28 * (2 * 1024 + 2 * 128))}


def test_a_cuda_run_is_a_2025_26_build_with_cuda_graphs(tmp_path):
    rows = [M._row(d) for d in imp.rows_of_run(_as_cuda_run(tmp_path))]
    assert len(rows) == 4
    assert {r.source for r in rows} == {"first-hand-h200-llama.cpp"}
    for r in rows:
        assert r.split == "fit" and not M.is_reserved(r.measurement_url)
        assert r.measurement_url.startswith("https://") and r.location and r.note
        assert M.llama_cpp_build(r) == 11312
        assert M.LLAMA_CPP_BUILDS[r.source] == "2025-26"
        assert M.uses_cuda_graphs(r) is True
        assert (r.hardware_key, r.device_class) == ("h200", "datacenter-gpu")
        assert r.bandwidth_gbps * 1e9 == get_hardware("h200").bandwidth
        assert r.device.startswith("NVIDIA H200")


def test_reserved_sources_and_cpu_runs_are_refused(tmp_path, capsys):
    validation_key = M.validation_rows()[0].source
    for source in (validation_key, next(iter(M.RESERVED_SOURCES))):
        with pytest.raises(imp.Refused, match="reserved"):
            imp.rows_of_run(SAMPLE, allow_cpu=True, source=source)
    assert imp.main([str(SAMPLE), "--dry-run", "--allow-cpu", "--source", validation_key]) == 2
    assert "reserved" in capsys.readouterr().err
    with pytest.raises(imp.Refused, match="CPU run"):
        imp.rows_of_run(SAMPLE)
    assert imp.main([str(SAMPLE), "--allow-cpu"]) == 2      # CPU rows never reach the data


def test_a_pp_test_from_an_empty_cache_is_a_prefill_row(tmp_path):
    """llama-bench's pp tests (n_prompt > 0, n_gen 0): from an empty cache one `prefill` row each,
    whose value is the prompt tokens per second and whose prompt is n_prompt; after a filled
    cache (n_depth > 0) no row (the prefill bound counts an empty cache)."""
    run = _as_cuda_run(tmp_path)
    t = json.loads((run / "llama-bench.jsonl").read_text().splitlines()[0])
    pp = [{**t, "n_prompt": 512, "n_gen": 0, "n_depth": d, "avg_ts": 9000.0 + d}
          for d in (0, 4096)]
    with open(run / "llama-bench.jsonl", "w") as fh:
        fh.write("\n".join(json.dumps(x) for x in pp) + "\n")
    rows = imp.rows_of_run(run)
    assert len(rows) == 1
    row = rows[0]
    assert (row["metric"], row["prompt_tokens"], row["generated_tokens"], row["context"],
            row["value"], row["unit"]) == ("prefill", "512", "0", "", "9000.00", "token/s")
    assert "-pp512-" in row["id"] and "prompt" in row["note"]
    r = M._row(row)
    assert r.metric == "prefill" and M.uses_cuda_graphs(r) is True
