"""Turn a device run of scripts/device/llama_cpp_decode.sh into rows of runtime_measurements.csv
(issue 30, item 2; the rule is runtime_README.md's "First-hand llama.cpp runs on a lent GPU").

    .venv/bin/python scripts/device/import_llama_bench.py RUN_DIR --dry-run   # print the rows
    .venv/bin/python scripts/device/import_llama_bench.py RUN_DIR             # copy raw, append rows

RUN_DIR holds what the run wrote to $OUT (llama-bench.jsonl, build.txt, device.txt,
copy_bandwidth.json, models.tsv, kit.log). Every JSONL line (one completed llama-bench test)
is one row, a tg test a `decode` row and a pp test from an empty cache a `prefill` row (a pp
test after a filled cache is not a row: the prefill bound counts an empty cache); none is
chosen or dropped by its value. Without --dry-run the raw files are
copied to lab/data/raw/<source>-<date>/ (committed: each row cites its raw log there, by the
repository's URL from _config.yml) and the rows are appended to the CSV; an id already there is
an error. A reserved validation source (by name, by source key, or by URL) is refused, as is
a CPU run (the kit's --cpu test mode gives no rows), unless --allow-cpu (tests and dry runs).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import re
import shutil
import sys
from pathlib import Path

import yaml

from llm_arithmetic import get_hardware, get_model
from llm_arithmetic.catalog.hardware import CLASS_OF_KIND
from llm_arithmetic.lab import measurements as M

ROOT = Path(__file__).resolve().parents[2]
RAW_DIR = M.DATA_PATH.parent / "raw"
SOURCE = "first-hand-h200-llama.cpp"
#: the kit's file types -> the CSV's weight_format (F16 files are `fp16`, as in the other rows)
WEIGHT_FORMATS = {"Q4_0": "Q4_0", "Q8_0": "Q8_0", "Q4_K": "Q4_K", "F16": "fp16"}
KV_FORMATS = {"f16": "fp16", "bf16": "bf16", "q8_0": "q8_0"}
FILENAME = re.compile(r"kit-(?P<key>.+)-(?P<ftype>Q4_0|Q8_0|Q4_K|F16)\.gguf$")


class Refused(ValueError):
    """A run or an option the importer refuses, with a one-line message."""


def repository_url() -> str:
    """The project's repository URL (``repository.url`` in ``_config.yml``)."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    url = (config.get("repository") or {}).get("url")
    if not url:
        raise Refused("_config.yml: no repository.url")
    return url.rstrip("/")


def reserved_names() -> set[str]:
    """Source keys and names that are reserved for validation: the reserved sources' names
    and every source key of a validation row in the data."""
    return set(M.RESERVED_SOURCES) | {r.source for r in M.validation_rows()}


def check_source(source: str, url: str) -> None:
    if source in reserved_names() or M.is_reserved(url):
        raise Refused(f"source {source!r} ({url}) is a reserved validation source: a "
                           "first-hand run is never imported under it")


def read_key_values(text: str) -> dict[str, str]:
    """KEY=VALUE and KEY:TYPE=VALUE lines (SOURCE_INFO, a CMake cache) of a text."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)(?::[A-Z]+)?=(.*)$", line.strip())
        if m:
            out[m.group(1)] = m.group(2)
    return out


def read_run(run: Path) -> dict:
    """What the importer needs from a run directory; a missing file is an error naming it."""
    need = ("llama-bench.jsonl", "build.txt", "device.txt", "copy_bandwidth.json")
    for name in need:
        if not (run / name).is_file():
            raise Refused(f"{run}: {name} is missing (the run wrote no such file)")
    tests = []
    lines = (run / "llama-bench.jsonl").read_text().splitlines()
    for i, line in enumerate(lines, 1):
        if line.strip():
            try:
                tests.append((i, json.loads(line)))
            except json.JSONDecodeError as e:
                if i == len(lines):     # the last test, cut by the time limit: not completed
                    print(f"import_llama_bench.py: {run}/llama-bench.jsonl line {i} is cut: "
                          "not a completed test, skipped", file=sys.stderr)
                    continue
                raise Refused(f"{run}/llama-bench.jsonl line {i}: not JSON ({e.msg})") from e
    build = read_key_values((run / "build.txt").read_text())
    device = (run / "device.txt").read_text()
    date = re.search(r"^# date: (\d{4}-\d{2}-\d{2})", device, re.MULTILINE)
    gpu = re.search(r"^# gpu: .+, (\d+), (\d+\.\d+)\s*$", device, re.MULTILINE)
    copy = json.loads((run / "copy_bandwidth.json").read_text())
    return dict(tests=tests, build=build, date=date.group(1) if date else None,
                memory_mib=int(gpu.group(1)) if gpu else None, cc=gpu.group(2) if gpu else None,
                copy=copy)


def bits_per_weight(test: dict) -> float:
    """The project's convention: the model's bytes x 8 over its parameters (llama-bench's JSON
    ``model_size`` and ``model_n_params``)."""
    return test["model_size"] * 8 / test["model_n_params"]


def rows_of_run(run: Path, *, hardware: str = "h200", source: str = SOURCE,
                allow_cpu: bool = False, date: str | None = None) -> list[dict[str, str]]:
    """The CSV rows (dicts keyed by :data:`measurements.COLUMNS`) of one run."""
    r = read_run(run)
    date = date or r["date"]
    if not date:
        raise Refused(f"{run}/device.txt: no '# date:' line")
    raw = f"{source}-{date}"
    url = f"{repository_url()}/blob/main/lib/llm_arithmetic/lab/data/raw/{raw}/llama-bench.jsonl"
    check_source(source, url)
    if source not in M.LLAMA_CPP_BUILDS:
        raise Refused(f"source {source!r} is not dated in measurements.LLAMA_CPP_BUILDS")
    b = r["build"]
    for key in ("LLAMA_CPP_COMMIT", "LLAMA_CPP_BUILD_NUMBER"):
        if key not in b:
            raise Refused(f"{run}/build.txt: {key} is missing")
    hw = get_hardware(hardware)
    copy = r["copy"]
    rows = []
    for line, t in r["tests"]:
        cpu = "CUDA" not in t.get("backends", "")
        if cpu and not allow_cpu:
            raise Refused(f"{run}/llama-bench.jsonl line {line}: backend {t.get('backends')!r} "
                               "is a CPU run of the kit's test mode: not a row (--allow-cpu for a dry run)")
        prefill = t["n_prompt"] > 0 and t["n_gen"] == 0
        if not prefill and (t["n_prompt"] != 0 or t["n_gen"] <= 0):
            raise Refused(f"{run}/llama-bench.jsonl line {line}: neither a tg nor a pp test "
                               f"(n_prompt {t['n_prompt']}, n_gen {t['n_gen']})")
        if prefill and int(t.get("n_depth", 0)):
            continue        # a prompt after a filled cache: in the raw log, not a row
        name = Path(t["model_filename"]).name
        m = FILENAME.search(name)
        if not m:
            raise Refused(f"{run}/llama-bench.jsonl line {line}: model_filename {name!r} is not a kit file")
        key, ftype = m.group("key"), m.group("ftype")
        model = get_model(key)
        if str(t["build_number"]) != b["LLAMA_CPP_BUILD_NUMBER"] or \
                not b["LLAMA_CPP_COMMIT"].startswith(t["build_commit"]):
            raise Refused(f"{run}/llama-bench.jsonl line {line}: build {t['build_commit']} "
                               f"({t['build_number']}) is not the fetched source's")
        bits = bits_per_weight(t)
        fa = "on" if t["flash_attn"] in (1, True, "on", "1") else "off"
        depth, n_gen, n_prompt = int(t.get("n_depth", 0)), int(t["n_gen"]), int(t["n_prompt"])
        graphs = b.get("GGML_CUDA_GRAPHS", "")
        if cpu:
            backend = f"CPU backend ({t.get('cpu_info', '').strip()}, {t.get('n_threads')} threads)"
        else:
            backend = (f"CUDA backend (compute capability {r['cc'] or 'not read'}, built for sm_"
                       f"{b.get('CMAKE_CUDA_ARCHITECTURES', '?')}), CUDA graphs "
                       f"{'on' if graphs == 'ON' else 'off'} (GGML_CUDA_GRAPHS={graphs or '?'})")
        version = (f"build {b['LLAMA_CPP_COMMIT'][:9]} ({b['LLAMA_CPP_BUILD_NUMBER']}), {backend}, "
                   f"flash attention {fa}")
        device = (t.get("gpu_info") or t.get("cpu_info", "")).strip()
        if r["memory_mib"] and not cpu:
            device += f" ({r['memory_mib']} MiB)"
        test = f"pp{n_prompt}" if prefill else f"tg{n_gen}" + (f"@d{depth}" if depth else "")
        copy_note = (f"a torch device-to-device copy on the same GPU moved "
                     f"{copy['bytes_moved_per_second'] / 1e9:.0f} GB/s (bytes read + written, "
                     f"copy_bandwidth.json), beside the catalog's {hw.bandwidth / 1e9:.0f} GB/s"
                     if "bytes_moved_per_second" in copy else "no copy bandwidth measured (CPU run)")
        samples = ", ".join(f"{x:.2f}" for x in t.get("samples_ts", []))
        rows.append({
            "id": (f"fh-{'cpu' if cpu else hardware}-{date.replace('-', '')}-{key}-{ftype.lower()}-"
                   f"{test.replace('@', '-')}-fa{fa}"),
            "split": "fit", "source": source, "metric": "prefill" if prefill else "decode",
            "runtime": "llama.cpp",
            "runtime_version": version, "device": device,
            "device_class": "cpu" if cpu else CLASS_OF_KIND[hw.kind],
            # a CPU run (dry runs and tests only) has no catalogued chip and no bound
            "hardware_key": "" if cpu else hardware, "chips": "1", "tp": "1",
            "bandwidth_gbps": "" if cpu else f"{hw.bandwidth / 1e9:g}",
            "bandwidth_source": "" if cpu else hw.source,
            "model": f"{model.label} shapes, random weights ({name}, scripts/device/random_gguf.py)",
            "model_key": key, "weight_format": WEIGHT_FORMATS[ftype], "bits_per_weight": f"{bits:.3f}",
            "kv_format": KV_FORMATS.get(t.get("type_k", "f16"), t.get("type_k", "")),
            "prompt_tokens": str(n_prompt if prefill else depth), "generated_tokens": str(n_gen),
            "context": "" if prefill else str(depth + n_gen // 2), "batch": "1",
            "value": f"{t['avg_ts']:.2f}", "unit": "token/s", "measurement_url": url,
            "location": (f"llama-bench.jsonl line {line}: model_filename {name}, n_prompt "
                         f"{n_prompt}, n_gen {n_gen}, n_depth {depth}, flash_attn "
                         f"{t['flash_attn']}, avg_ts "
                         f"{t['avg_ts']:.2f} (stddev {t.get('stddev_ts', 0):.2f})"),
            "note": (f"first-hand llama-bench {test} (-p {n_prompt} -n {n_gen} -r "
                     f"{len(t.get('samples_ts', []))} -d {depth} -fa {1 if fa == 'on' else 0} "
                     f"-ngl {t.get('n_gpu_layers')}), one stream: "
                     + (f"one {n_prompt}-token prompt processed in micro-batches of "
                        f"{t.get('n_ubatch')} into an empty cache, the value prompt tokens/s"
                        if prefill else
                        f"{n_gen} tokens generated one at a time after {depth} tokens in the "
                        f"cache (mean context {depth + n_gen // 2})")
                     + f"; samples {samples} token/s; random weights "
                     f"of the catalog's {key} shapes (the speed of a decode step depends on the "
                     f"shapes and types, not the values); bits = model_size {t['model_size']} B x 8 / "
                     f"model_n_params {t['model_n_params']} = {bits:.3f}; KV cache "
                     f"{t.get('type_k')}/{t.get('type_v')} (llama.cpp's default); llama.cpp "
                     f"{b['LLAMA_CPP_COMMIT']} as vendored in llama-cpp-python "
                     f"{b.get('LLAMA_CPP_PYTHON_VERSION', '?')} (PyPI sdist sha256 "
                     f"{b.get('SDIST_SHA256', '?')[:16]}...); {copy_note}"),
        })
    return rows


def to_csv(rows: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=M.COLUMNS, lineterminator="\n")
    for row in rows:
        w.writerow(row)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path, help="the folder the run's $OUT files were fetched to")
    ap.add_argument("--dry-run", action="store_true", help="print the rows, write nothing")
    ap.add_argument("--hardware", default="h200", help="hardware catalog key of the GPU (default h200)")
    ap.add_argument("--source", default=SOURCE, help=f"source key (default {SOURCE})")
    ap.add_argument("--allow-cpu", action="store_true", help="accept CPU runs (dry runs and tests only)")
    a = ap.parse_args(argv)
    try:
        if a.allow_cpu and not a.dry_run:
            raise Refused("--allow-cpu is for --dry-run only: CPU runs of the kit are not rows")
        rows = rows_of_run(a.run, hardware=a.hardware, source=a.source, allow_cpu=a.allow_cpu)
        if a.dry_run:
            sys.stdout.write(to_csv(rows))
            print(f"{len(rows)} rows (dry run: nothing written)", file=sys.stderr)
            return 0
        known = {r.id for r in M.all_rows()}
        dup = [row["id"] for row in rows if row["id"] in known]
        if dup:
            raise Refused(f"ids already in the data: {', '.join(dup)}")
        if not rows:
            raise Refused(f"{a.run}/llama-bench.jsonl: no completed test")
        dest = RAW_DIR / rows[0]["measurement_url"].rsplit("/", 2)[1]
        dest.mkdir(parents=True, exist_ok=False)
        for f in sorted(a.run.iterdir()):
            if f.is_file():
                shutil.copy2(f, dest / f.name)
        with open(M.DATA_PATH, "a", encoding="utf-8", newline="") as fh:
            fh.write(to_csv(rows))
        print(f"{len(rows)} rows appended to {M.DATA_PATH}; raw files in {dest}")
        return 0
    except Refused as e:
        print(f"import_llama_bench.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
