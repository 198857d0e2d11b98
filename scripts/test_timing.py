"""The wall time of `make test`, recorded by the run itself and read by `make bench`.

`make test` calls this script around its two steps (after the virtual environment is installed,
so the figure excludes the install):

    python scripts/test_timing.py start          # before the book build
    python scripts/test_timing.py lap book       # after it
    python scripts/test_timing.py lap pytest --finish

and it writes `_build/test-timing.json`: when the run started, the phases' wall times, the total,
the number of CPUs and the load average before and after (the machine may be shared), and the
state of the working tree (the commit and a hash of the uncommitted changes). `--finish` marks the
run complete; make stops at the first failing step, so a run that failed or was interrupted stays
incomplete.

`make bench` (scripts/bench.py) prints one row from that file, `bench_row()`: the last complete
run's wall time against the target of 300 s. The row is not ok when there is no record, when the
last run did not finish, or when the working tree has changed since (the figure would be of other
code). It never runs the suite itself (that takes minutes); run `make test` to refresh it.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RECORD = REPO / "_build" / "test-timing.json"
TARGET_S = 300.0


def git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""


def tree_state() -> dict:
    """The commit and a hash of every uncommitted change (tracked diffs and untracked files)."""
    head = git("rev-parse", "HEAD").strip()
    status = git("status", "--porcelain", "--untracked-files=all")
    h = hashlib.sha256(git("diff", "HEAD", "--binary").encode())
    for line in status.splitlines():
        if line.startswith("??"):
            path = REPO / line[3:]
            h.update(line.encode())
            if path.is_file():
                h.update(path.read_bytes())
    return {"commit": head, "dirty": bool(status.strip()), "changes": h.hexdigest()[:16]}


def load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def read() -> dict | None:
    try:
        return json.loads(RECORD.read_text(encoding="utf8"))
    except (OSError, ValueError):
        return None


def write(record: dict) -> None:
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(json.dumps(record, indent=1) + "\n", encoding="utf8")


def start() -> None:
    write({"started": dt.datetime.now().isoformat(timespec="seconds"), "t0": time.time(),
           "last": time.time(), "cpus": os.cpu_count(), "load_start": load(),
           "tree": tree_state(), "phases": {}, "complete": False})


def lap(name: str, finish: bool = False) -> None:
    record = read()
    if record is None:
        return
    now = time.time()
    record["phases"][name] = round(now - record["last"], 1)
    record["last"] = now
    if finish:
        record["wall_s"] = round(now - record["t0"], 1)
        record["load_end"] = load()
        record["complete"] = True
        record["tree_end"] = tree_state()  # a change made during the run makes the figure stale
        phases = ", ".join(f"{k} {v:.0f} s" for k, v in record["phases"].items())
        print(f"make test: {record['wall_s']:.0f} s wall after the install ({phases}; "
              f"{record['cpus']} CPUs, load {record['load_start']} -> {record['load_end']}); "
              f"target {TARGET_S:.0f} s. Recorded in {RECORD.relative_to(REPO)}")
    write(record)


def bench_row() -> tuple[str, str, str, str]:
    """(benchmark, measured, target, verdict) for `make bench`."""
    name = "make test, wall time after the install (last run)"
    target = f"<= {TARGET_S:.0f} s"
    record = read()
    if record is None:
        return name, "no record", target, "missing: run make test"
    if not record.get("complete"):
        return name, "unfinished", target, (f"not ok: the run of {record.get('started')} failed, "
                                            "was interrupted or is still going")
    measured = f"{record['wall_s']:.0f} s"
    if not record["tree"] == record.get("tree_end") == tree_state():
        return name, measured, target, "stale: the code changed since; run make test"
    verdict = "ok" if record["wall_s"] <= TARGET_S else "over"
    return name, measured, target, (f"{verdict} ({record['started']}, {record['cpus']} CPUs, "
                                    f"load {record['load_start'][0] if record['load_start'] else '?'})")


def main(argv: list[str]) -> int:
    if argv[:1] == ["start"]:
        start()
    elif argv[:1] == ["lap"] and len(argv) >= 2:
        lap(argv[1], finish="--finish" in argv)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
