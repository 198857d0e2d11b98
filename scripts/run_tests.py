"""`make test`: the strict book build and every test, with both cores busy from the start.

    python scripts/run_tests.py [pytest options...]

The longest test, the Binder environment that runs every notebook under nbval
(tests/test_binder.py::test_binder_environment_runs_every_notebook, a few minutes), needs no
built book, so it starts at once in its own pytest process, while the book is built (one
Sphinx process: a core would otherwise wait for it); then the rest of pytest runs on every core
(pytest-xdist, each file whole on one worker, in the order of tests/conftest.py's FIRST). At
the end the notebooks' report is printed, and the exit status is non-zero when any of the three
failed. A failed book build stops the run (the browser tests need the book), as `make` stops at
a failing step.

The project's own code (lib/, tests/, scripts/) is byte-compiled first, once: where
PYTHONDONTWRITEBYTECODE is set, every process would compile what it imports again (`make venv`
does the same for the installed packages).

Each phase's wall time goes to `_build/test-timing.json` (scripts/test_timing.py), read by
`make bench`; the notebooks' pytest output to `_build/test-notebooks.log`.
Environment: PYTEST_WORKERS (processes for the rest, default `auto`: one per core); numpy's BLAS
threads are one per process (ONE_THREAD) unless the variables are set.
"""
from __future__ import annotations

import compileall
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS_TEST = "tests/test_binder.py::test_binder_environment_runs_every_notebook"
LOG = REPO / "_build" / "test-notebooks.log"
PY = sys.executable


def timing(*args: str) -> None:
    subprocess.run([PY, str(REPO / "scripts" / "test_timing.py"), *args], cwd=REPO, check=True)


#: One BLAS thread per process: the run keeps both cores busy with processes (the notebooks'
#: kernels, the book build, pytest's workers, Chromium), and numpy's threads on top of them only
#: contend for the same cores (the forecast's cross-validation ran five times slower so).
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def main(extra: list[str]) -> int:
    for name, value in ONE_THREAD.items():
        os.environ.setdefault(name, value)
    timing("start")
    for folder in ("lib", "tests", "scripts"):
        compileall.compile_dir(REPO / folder, quiet=1)
    LOG.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(LOG, "w", encoding="utf8") as log:
        notebooks = subprocess.Popen(
            [PY, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE", NOTEBOOKS_TEST],
            cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            book = subprocess.run(["make", "--no-print-directory", "book-strict"], cwd=REPO)
            if book.returncode:
                print("make test: the book build failed; the notebooks' run is stopped",
                      file=sys.stderr)
                return book.returncode
            timing("lap", "book")
            workers = os.environ.get("PYTEST_WORKERS") or "auto"
            rest = subprocess.run(
                [PY, "-m", "pytest", "-n", workers, "--dist", "loadfile",
                 "--no-loadscope-reorder", "--deselect", NOTEBOOKS_TEST, *extra], cwd=REPO)
            waited = time.monotonic()
            notebooks.wait()
            print(f"\n===== every notebook under nbval, in the Binder environment "
                  f"({time.monotonic() - started:.0f} s, waited {time.monotonic() - waited:.0f} s "
                  f"after the rest): {LOG.relative_to(REPO)} =====")
            print(LOG.read_text(encoding="utf8", errors="replace")[-6000:].strip())
        finally:
            if notebooks.poll() is None:  # stopped early: its venv build, workers and kernels too
                os.killpg(notebooks.pid, signal.SIGTERM)
                notebooks.wait()
    if rest.returncode or notebooks.returncode:
        return rest.returncode or notebooks.returncode
    timing("lap", "pytest", "--finish")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
