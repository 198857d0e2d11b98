"""Shared fixtures for the tests that read the built book (test_links.py, test_browser.py).

They read the HTML that `make book` writes to `_build/html` (`make test` builds it first). Set
`BOOK_HTML=/path/to/html` to test another build, e.g. one made with
`jupyter-book build . --path-output /tmp/x` (then BOOK_HTML=/tmp/x/_build/html). Reports
(external-links.txt, screenshots/) go next to that folder, i.e. to `_build/` by default.

Without a built book these tests are skipped with a message saying to run `make book`. CI
(`.ci/run`) exports REQUIRE_BROWSER=1: there a missing book or a missing Chromium is a failure,
never a skip.
"""
import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: The catalog's vendored checkpoint files, ``<name>/config.json``.
CONFIGS = REPO / "lib" / "llm_arithmetic" / "catalog" / "data" / "models"

_REPORT_KEY = pytest.StashKey[list]()


def require_browser() -> bool:
    """True in CI: the browser tests must run, so what they need missing is a failure."""
    return os.environ.get("REQUIRE_BROWSER", "").strip() not in ("", "0")


def skip_or_fail(message: str):
    """Skip with `message`, or fail with it where REQUIRE_BROWSER is set (CI)."""
    if require_browser():
        pytest.fail(f"{message} (REQUIRE_BROWSER is set, so this is a failure)", pytrace=False)
    pytest.skip(message)


#: Debian's Chromium, or the binary CHROMIUM names: the browser tests never download one.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def require_chromium() -> str:
    """:data:`CHROMIUM`'s path; skips (fails under REQUIRE_BROWSER=1) where it is not an
    executable file."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        skip_or_fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium "
                     "(`sudo apt-get install chromium`), or set CHROMIUM to its path; never "
                     "`playwright install`")
    return CHROMIUM


def require_playwright():
    """Playwright's ``sync_playwright``, once :func:`require_chromium` has found the browser;
    skips (fails under REQUIRE_BROWSER=1) where either is missing."""
    require_chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("the playwright package is missing: `make venv` (requirements.txt) "
                     "installs it")
    return sync_playwright


def llama_shapes(name: str) -> dict:
    """A Llama checkpoint's shapes from its config.json (under :data:`CONFIGS`), counted by
    hand for the tests' expected values: ``L``, ``H``, ``h_kv``, ``d_head`` (d / H);
    ``blocks``, the weights of every block's matrix products (q and o, d x H d_head each; k
    and v, d x H_kv d_head each; three MLP matrices, d x d_ff each); ``head``, the untied
    output head (V x d); ``read``, what a decode step reads besides (two norms a block, the
    final norm, the token's one embedding row: d each) added to both; ``kv16``, the cache a
    token (K and V of every layer at 2 bytes an element) [B]."""
    c = json.loads((CONFIGS / name / "config.json").read_text())
    d, L, H = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"]
    h_kv, d_ff, V = c["num_key_value_heads"], c["intermediate_size"], c["vocab_size"]
    assert not c.get("tie_word_embeddings", False)
    d_head = d // H
    blocks = L * (2 * d * H * d_head + 2 * d * h_kv * d_head + 3 * d * d_ff)
    return dict(L=L, H=H, h_kv=h_kv, d_head=d_head, blocks=blocks, head=V * d,
                read=blocks + V * d + (2 * L + 2) * d, kv16=2 * L * h_kv * d_head * 2)


def book_html_dir() -> Path:
    return Path(os.environ.get("BOOK_HTML") or REPO / "_build" / "html").resolve()


def book_is_built() -> bool:
    return (book_html_dir() / "index.html").is_file()


@pytest.fixture(scope="session")
def book_html() -> Path:
    """The built HTML book; skips (fails under REQUIRE_BROWSER=1) when it is not built."""
    root = book_html_dir()
    if not (root / "index.html").is_file():
        skip_or_fail(f"no built book at {root}: run `make book` first (or set BOOK_HTML)")
    return root


@pytest.fixture(scope="session")
def build_dir(book_html) -> Path:
    """Where the tests write their reports: the folder that holds html/ (`_build/`)."""
    return book_html.parent


@pytest.fixture(scope="session")
def book_report(request) -> list:
    """Lines that the end-of-run summary prints (e.g. the count of external links)."""
    return request.config.stash.setdefault(_REPORT_KEY, [])


#: Files that start first under pytest-xdist, longest first (a file is the unit a worker takes:
#: a long one started last would leave the other cores idle at the end), the ones that drive
#: Chromium dealt between the others: a browser file leaves part of its core idle (page loads,
#: the network going quiet), which a file that computes fills. Durations (2 workers, 2 cores):
#: test_browser_chinese 66 s, test_second_setting 43 s (two kernels), test_browser 45 s,
#: test_student_edition 34 s (a book build), test_browser_pages_second 39 s, and then 8-20 s.
FIRST = ("tests/test_binder.py", "tests/test_browser_chinese.py", "tests/test_second_setting.py",
         "tests/test_browser.py", "tests/test_student_edition.py",
         "tests/test_browser_pages_second.py", "tests/test_nbgrader.py",
         "tests/test_browser_widgets.py", "tests/test_release.py", "tests/test_pdf.py",
         "tests/test_exercise_notebooks.py", "tests/test_widgets.py", "tests/test_editions.py")


def pytest_collection_modifyitems(config, items):
    """The files of FIRST first (the Binder environment, which runs every notebook, is the
    longest), then the others in their order. `make pytest` and `make test` distribute whole
    files in this order (`--dist loadfile --no-loadscope-reorder`); by default pytest-xdist would
    start the files with the most tests first, and these last. (`make test` runs the Binder test
    in a process of its own, beside the book build: scripts/run_tests.py.)"""
    def rank(item):
        path = item.nodeid.split("::")[0]
        return FIRST.index(path) if path in FIRST else len(FIRST)

    items.sort(key=rank)  # stable: the order within a file is kept


def pytest_sessionfinish(session):
    """Under pytest-xdist (`make test`) each worker hands its report lines to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["book_report"] = list(session.config.stash.get(_REPORT_KEY, []))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist, on the controller: a worker finished; keep its report lines."""
    lines = getattr(node, "workeroutput", {}).get("book_report", [])
    node.config.stash.setdefault(_REPORT_KEY, []).extend(lines)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    lines = config.stash.get(_REPORT_KEY, [])
    if lines:
        terminalreporter.section("built book")
        for line in lines:
            terminalreporter.write_line(line)


#: The plan's terms that hold a layer's cache at a context and what depends on it: the ones a
#: form the library did not count would be missing for.
CACHE_TERMS = ("kv_stored", "kv_read", "kv_full", "kv_stored_chip", "kv_read_chip", "attended",
               "pairs", "layer_decode_flops", "layer_prefill_flops")


@pytest.fixture
def uncounted_cache(monkeypatch):
    """A form whose whole cache the library does not count, for the tests of how such a model
    is refused or printed: DeepSeek-V4's compressed attention with its cache terms marked
    missing again, as they were before the library counted them (FAMILIES.md section 14.18).
    Returns the config's path."""
    from llm_arithmetic.plan.stack import TERMS

    for term in CACHE_TERMS:  # a copy without the case: the original (its order) comes back
        cases = {form: case for form, case in TERMS[term]["cases"].items()
                 if form != "compressed"}
        monkeypatch.setitem(TERMS[term], "cases", cases)
        monkeypatch.setitem(TERMS[term], "missing", ["compressed"])
    return REPO / "tests" / "configs" / "deepseek-v4-flash.json"
