"""`make test`: the strict book build and every test, with both cores busy from the start.

    python scripts/run_tests.py [pytest options...]

Three processes start at once: the strict book build (`make book-strict`, one Sphinx process
at a time); the longest test, the Binder environment that runs every notebook under nbval
(tests/test_binder.py::test_binder_environment_runs_every_notebook, a few minutes, in its own
pytest process); and the rest of pytest on every core (pytest-xdist, each file whole on one
worker, in the order of tests/conftest.py's FIRST, the files that read the built book last).
A test that reads the book waits until the build has ended (BOOK_PENDING names a file that
exists until then: conftest.wait_for_book). The two pytest processes run at a lower priority
(nice 10, their workers, kernels and browsers with them): the book build, which the last
files wait for, keeps a core while it runs. At the end the notebooks' report is printed, and
the exit status is non-zero when any of the three failed. A failed book build stops the run
(the browser tests need the book), as `make` stops at a failing step.

The project's own code (lib/, tests/, scripts/) is byte-compiled first, once: where
PYTHONDONTWRITEBYTECODE is set, every process would compile what it imports again (`make venv`
does the same for the installed packages). So are the test modules as pytest runs them, their
asserts rewritten (pytest's own cached files, which it reads whatever that variable says but
then never writes), before pytest starts: each pytest worker imports every test module to
collect, and rewriting them took each about 11 of its 24 CPU-s of collection.

Each phase's wall time goes to `_build/test-timing.json` (scripts/test_timing.py), read by
`make bench` ("book": when the build ended; "pytest": from then until the end); the book
build's output to `_build/test-book.log` (printed when it fails), the notebooks' pytest output
to `_build/test-notebooks.log`.
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
BOOK_LOG = REPO / "_build" / "test-book.log"
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


#: How much lower the two pytest processes run than the book build (``nice`` increment).
NICE = 10


def lower_priority() -> None:
    os.nice(NICE)


def stop(proc: subprocess.Popen | None) -> None:
    """Stop a process started in its own session, with its children (workers, kernels, its
    venv build, Chromium), if it still runs."""
    if proc is not None and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()


def main(extra: list[str]) -> int:
    for name, value in ONE_THREAD.items():
        os.environ.setdefault(name, value)
    timing("start")
    for folder in ("lib", "tests", "scripts"):
        compileall.compile_dir(REPO / folder, quiet=1)
    LOG.parent.mkdir(parents=True, exist_ok=True)
    pending = LOG.parent / "book-pending"
    pending.touch()
    started = time.monotonic()
    notebooks = rest = None
    with open(LOG, "w", encoding="utf8") as log:
        try:
            notebooks = subprocess.Popen(
                [PY, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE", NOTEBOOKS_TEST],
                cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=lower_priority)
            with open(BOOK_LOG, "w", encoding="utf8") as book_log:  # pytest has the terminal
                book = subprocess.Popen(["make", "--no-print-directory", "book-strict"],
                                        cwd=REPO, stdout=book_log, stderr=subprocess.STDOUT)
            rewrite_test_modules()
            workers = os.environ.get("PYTEST_WORKERS") or "auto"
            rest = subprocess.Popen(
                [PY, "-m", "pytest", "-n", workers, "--dist", "loadfile",
                 "--no-loadscope-reorder", "--deselect", NOTEBOOKS_TEST, *extra], cwd=REPO,
                env={**os.environ, "BOOK_PENDING": str(pending)}, start_new_session=True,
                preexec_fn=lower_priority)
            if book.wait():
                print(BOOK_LOG.read_text(encoding="utf8", errors="replace")[-8000:].strip())
                print(f"make test: the book build failed ({BOOK_LOG.relative_to(REPO)}); the "
                      "tests are stopped", file=sys.stderr)
                return book.returncode
            pending.unlink()
            timing("lap", "book")
            print(f"\n[make test: the book is built ({time.monotonic() - started:.0f} s): "
                  f"{BOOK_LOG.relative_to(REPO)}]", flush=True)
            rest.wait()
            waited = time.monotonic()
            notebooks.wait()
            print(f"\n===== every notebook under nbval, in the Binder environment "
                  f"({time.monotonic() - started:.0f} s, waited {time.monotonic() - waited:.0f} s "
                  f"after the rest): {LOG.relative_to(REPO)} =====")
            print(LOG.read_text(encoding="utf8", errors="replace")[-6000:].strip())
        finally:
            pending.unlink(missing_ok=True)
            stop(rest)
            stop(notebooks)
    if rest.returncode or notebooks.returncode:
        return rest.returncode or notebooks.returncode
    timing("lap", "pytest", "--finish")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
