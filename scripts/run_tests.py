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
does the same for the installed packages). So are the test modules as pytest runs them, their
asserts rewritten (pytest's own cached files, which it reads whatever that variable says but
then never writes), beside the book build: each pytest worker imports every test module to
collect, and rewriting them took each about 11 of its 24 CPU-s of collection.

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
import threading
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


def rewrite_test_modules(files: list[Path] | None = None) -> int:
    """Write pytest's cache of the test modules with their asserts rewritten
    (``__pycache__/*.cpython-3X-pytest-V.pyc``): what each pytest process would otherwise
    rewrite and compile again where PYTHONDONTWRITEBYTECODE is set (and both workers at once on
    a fresh clone). pytest reads such a file only where the hash it holds is its source's, so a
    stale or missing one costs only the time. Uses pytest's own functions (private: where they
    are gone, nothing is written); skipped where pytest.ini turns on the assertion pass hook,
    which changes the rewritten code. ``files``: the modules (default: the test modules,
    tests/conftest.py and the plugins of tools/). Returns the number of files written."""
    try:
        from _pytest.assertion import rewrite
        write_pyc, rewrite_test = rewrite._write_pyc, rewrite._rewrite_test
        cache_dir, tail = rewrite.get_cache_dir, rewrite.PYC_TAIL
    except (ImportError, AttributeError):
        return 0
    if "enable_assertion_pass_hook" in (REPO / "pytest.ini").read_text(encoding="utf8"):
        return 0

    class State:  # what _write_pyc needs of pytest's AssertionState
        @staticmethod
        def trace(*_: object) -> None:
            pass

    written = 0
    if files is None:
        files = [*(REPO / "tests").glob("test_*.py"), REPO / "tests" / "conftest.py",
                 *(REPO / "tools").glob("pytest_*.py")]
    for path in sorted(files):
        try:
            folder = cache_dir(path)
            folder.mkdir(exist_ok=True)
            source_hash, code = rewrite_test(path, None)
        except (OSError, SyntaxError):  # pytest reports a broken module itself
            continue
        written += bool(write_pyc(State, code, source_hash, folder / (path.name[:-3] + tail)))
    return written


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
        rewriting = threading.Thread(target=rewrite_test_modules, daemon=True)
        rewriting.start()  # this process only waits for the book: a thread fills the time
        try:
            book = subprocess.run(["make", "--no-print-directory", "book-strict"], cwd=REPO)
            if book.returncode:
                print("make test: the book build failed; the notebooks' run is stopped",
                      file=sys.stderr)
                return book.returncode
            timing("lap", "book")
            rewriting.join()
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
