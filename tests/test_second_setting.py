"""Every chapter runs with a second model, chip and format (issue 28, item 4).

A chapter's first visible code cell after the setup import is tagged `parameters` and assigns
the setting it studies, one name a line:

    MODEL = "llama-7b"
    CHIP = "m2"
    FORMAT = "q4_0"

(more names allowed, e.g. `CONTEXT`); every later cell uses these names, never the keys. The
notebook's metadata holds a second setting, a different family and chip class:

    metadata["second_setting"] = {"MODEL": "qwen3-8b", "CHIP": "h100-sxm", "FORMAT": "fp8"}

A chapter without one is listed in `WITHOUT_A_SECOND_SETTING` below with its reason (the
article reproductions, chapters 18-21); a test keeps that list and the notebooks in step.

For each notebook that has one, this file substitutes those values into the `parameters` cell
(the same assignment lines, new values), executes the whole notebook in a kernel of this
environment (nbclient; outputs are not compared: nbval compares the first setting's) and checks

* that no cell raises;
* that every value the prose pastes (`{glue:text}`, `{glue:math}`, `{glue:figure}`, ...) is
  glued by the second run too, so the prose could be read with it;
* that no text it glues into prose holds English words (``tests/test_glued_names.py``);
* that the run studied the second setting: some glued number differs from the first setting's
  (the committed outputs).

The notebooks run concurrently (one kernel each, `WORKERS` at a time, started by the first test
of this file that needs them) and draw no PNG: figures are still built and checked
(`check_figure`: text size, overlaps, units), but a short text is glued in their place
(`LLM_ARITHMETIC_FAST_FIGURES` in the kernel's environment, read by
`llm_arithmetic.book.display.glue_figure`). `make test` starts this file among the first
(tests/conftest.py), beside the book build's browser tests.

Run one notebook: `pytest tests/test_second_setting.py -k 01-puzzle`; see its executed copy with
`SECOND_SETTING_OUT=/tmp/x pytest tests/test_second_setting.py` (one .ipynb per notebook).
"""
from __future__ import annotations

import ast
import copy
import os
import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from kernels import execute_notebook

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = REPO / "notebooks"
REQUIRED = ("MODEL", "CHIP", "FORMAT")
CELL_TIMEOUT_S = 600
WORKERS = max(1, min(2, os.cpu_count() or 1))

# A glue reference in Markdown: {glue:text}`name:fmt`, {glue:}`name`, {glue}`name`, and the
# directives ```{glue:math} name, ```{glue:figure} name (also with colon fences).
GLUE_ROLE_RE = re.compile(r"\{glue(?::[a-z]*)?\}`([^`:]+)")
GLUE_DIRECTIVE_RE = re.compile(r"^\s*(?:`{3,}|~{3,}|:{3,})\{glue(?::[a-z]*)?\}\s+(\S+)", re.M)


def load(path: Path) -> dict:
    """The notebook at `path` (nbformat 4: every source one string)."""
    import nbformat
    return nbformat.read(path, as_version=4)


def source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def tags(cell: dict) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def notebooks_with_a_second_setting() -> list[Path]:
    return sorted(p for p in NOTEBOOK_DIR.glob("*.ipynb")
                  if "second_setting" in load(p).get("metadata", {}))


def parameters_cell(nb: dict) -> int:
    """Index of the one code cell tagged `parameters`."""
    found = [i for i, c in enumerate(nb["cells"])
             if c["cell_type"] == "code" and "parameters" in tags(c)]
    assert len(found) == 1, f"{len(found)} code cells tagged 'parameters' (one expected)"
    return found[0]


def assigned_names(code: str) -> dict[str, object]:
    """{name: literal value} of the top-level `NAME = <literal>` lines of a cell."""
    out = {}
    for node in ast.parse(code).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return out


def substitute(nb: dict, setting: dict) -> dict:
    """A copy of `nb` whose `parameters` cell assigns `setting`'s values instead."""
    nb = copy.deepcopy(nb)
    cell = nb["cells"][parameters_cell(nb)]
    code = source(cell)
    first = assigned_names(code)
    missing = [n for n in (*REQUIRED, *setting) if n not in first]
    assert not missing, f"the parameters cell assigns no literal {missing}"
    lines = code.splitlines()
    for name, value in setting.items():
        pattern = re.compile(rf"^{re.escape(name)}\s*=.*$")
        hits = [i for i, line in enumerate(lines) if pattern.match(line)]
        assert len(hits) == 1, f"the parameters cell assigns {name} on {len(hits)} lines"
        comment = lines[hits[0]].partition("  #")[2]
        lines[hits[0]] = f"{name} = {value!r}" + (f"  #{comment}" if comment else "")
    cell["source"] = "\n".join(lines)
    assert assigned_names(cell["source"]) == {**first, **setting}
    return nb


def glued(nb: dict) -> dict[str, str]:
    """{glue name: its text/plain (or the kinds of data it holds)} of a notebook's outputs."""
    out = {}
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            meta = o.get("metadata", {}).get("scrapbook")
            if not meta:
                continue
            data = o.get("data", {})
            text = data.get(f"{meta.get('mime_prefix', '')}text/plain", data.get("text/plain"))
            text = "".join(text) if isinstance(text, list) else text
            out[meta["name"]] = text if text is not None else ",".join(sorted(data))
    return out


def pasted(nb: dict) -> set[str]:
    """The glue names the notebook's Markdown refers to."""
    names = set()
    for c in nb["cells"]:
        if c["cell_type"] == "markdown":
            text = source(c)
            names |= set(GLUE_ROLE_RE.findall(text)) | set(GLUE_DIRECTIVE_RE.findall(text))
    return names


def execute(path: Path) -> tuple[dict, float]:
    """Run the notebook at `path` with its second setting; (executed notebook, seconds)."""
    import nbformat

    nb = load(path)
    run = substitute(nb, nb["metadata"]["second_setting"])
    for c in run.cells:
        if c.cell_type == "code":
            c.outputs = []
    t0 = time.monotonic()
    execute_notebook(run, NOTEBOOK_DIR, timeout=CELL_TIMEOUT_S, name=path.name,
                     env={**os.environ, "LLM_ARITHMETIC_FAST_FIGURES": "1"})
    seconds = time.monotonic() - t0
    out = os.environ.get("SECOND_SETTING_OUT")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        nbformat.write(run, Path(out) / path.name)
    return run, seconds


NOTEBOOKS = notebooks_with_a_second_setting()

#: The chapters without a second setting, each with its reason. The reproductions recompute an
#: article's numbers under the article's own model, chips and formats, and their "corrected"
#: sections answer the article's own question (a grid, a comparison of named chips, a measured
#: run), not one setting that a `parameters` cell could name.
WITHOUT_A_SECOND_SETTING = {
    "18-repro-finbarr": "Timbers's post: its two tables and its text are about LLaMA-1's four "
                        "sizes on the devices it names; the corrected answer is the same grid "
                        "(four models x seven devices x four formats), not one setting",
    "19-repro-karpathy": "Karpathy's note compares two named chips (an A100 and an M2) for "
                         "LLaMA-7B; its update puts a fixed list of today's chips beside them "
                         "for Llama 2 7B and 70B, a table rather than one setting",
    "20-repro-baseten": "Baseten's guide works Llama 2 7B at fp16 on an A10 (and a T4 and an "
                        "A100) through to a request time; the corrected answer asks the same "
                        "question of five named GPUs and a table of newer models on the A10",
    "21-repro-zeux": "Kapoulkine's post holds Mistral 7B on an RTX 4090 against calm's and "
                     "llama.cpp's measured times; the corrected answer keeps those "
                     "measurements (and Mistral v0.1's window against v0.2) as its subject",
}


@pytest.fixture(scope="module")
def runs(request) -> dict[Path, Future]:
    """The second run of every notebook whose test is selected, started at once, `WORKERS`
    kernels at a time."""
    test = test_notebook_runs_with_its_second_setting.__name__
    selected = [item.callspec.params["path"] for item in request.session.items
                if getattr(item, "module", None) is request.module
                and getattr(item, "originalname", "") == test]
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = {path: pool.submit(execute, path) for path in selected}
        yield futures
        for future in futures.values():
            future.cancel()


def test_each_second_setting_is_a_different_one():
    """A second setting names MODEL, CHIP and FORMAT, and differs from the first."""
    for path in NOTEBOOKS:
        nb = load(path)
        setting = nb["metadata"]["second_setting"]
        assert set(REQUIRED) <= set(setting), f"{path.name}: second_setting lacks {REQUIRED}"
        first = assigned_names(source(nb["cells"][parameters_cell(nb)]))
        assert any(first[n] != setting[n] for n in REQUIRED), (
            f"{path.name}: the second setting is the first one")


def test_every_chapter_has_a_second_setting_or_a_reason():
    """Each chapter notebook either has a second setting or is listed, with its reason, in
    `WITHOUT_A_SECOND_SETTING`; a listed chapter has none (the list stays exact)."""
    chapters = {p.stem: p for p in sorted(NOTEBOOK_DIR.glob("[0-9]*.ipynb"))}
    with_one = {p.stem for p in NOTEBOOKS}
    neither = sorted(set(chapters) - with_one - set(WITHOUT_A_SECOND_SETTING))
    assert not neither, (f"chapters with no second setting and no reason in "
                         f"WITHOUT_A_SECOND_SETTING: {neither}")
    stale = sorted(set(WITHOUT_A_SECOND_SETTING) - (set(chapters) - with_one))
    assert not stale, f"WITHOUT_A_SECOND_SETTING lists {stale}, which have one or do not exist"
    assert all(why.strip() for why in WITHOUT_A_SECOND_SETTING.values())


HIDDEN = {"remove-cell", "remove-input", "hide-input", "hide-cell"}
SETUP = "from llm_arithmetic.book.prelude import *"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_parameters_cell_comes_first(path):
    """The `parameters` cell is visible and the first visible code cell after the setup
    import: a reader finds the setting before any code that uses it."""
    nb = load(path)
    cells = nb["cells"]
    at = parameters_cell(nb)
    assert not HIDDEN & set(tags(cells[at])), f"{path.name}: the parameters cell is hidden"
    setup = [i for i, c in enumerate(cells) if c["cell_type"] == "code"
             and source(c).strip() == SETUP]
    assert setup and setup[0] < at, f"{path.name}: no setup import before the parameters cell"
    between = [i for i in range(setup[0] + 1, at) if cells[i]["cell_type"] == "code"
               and not HIDDEN & set(tags(cells[i]))]
    assert not between, f"{path.name}: visible code cells {between} come before the parameters"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_with_its_second_setting(path, runs):
    first = load(path)
    try:
        second, seconds = runs[path].result()
    except Exception as err:  # the cell, its source and traceback are in nbclient's message
        pytest.fail(f"{path.name} with {first['metadata']['second_setting']}: "
                    f"{type(err).__name__}: {err}"[:6000], pytrace=False)
    print(f"{path.name}: {seconds:.1f} s")
    before, after = glued(first), glued(second)
    needed = pasted(first)
    missing = sorted(needed - set(after))
    assert not missing, (f"{path.name}: the prose pastes {missing}, which the second setting "
                         "does not glue (a glue name built from a catalog key?)")
    from test_glued_names import offenders  # the rule of tests/test_glued_names.py
    english = offenders(second)
    assert not english, (f"{path.name}: with the second setting, text glued into prose holds "
                         f"English words: {english}")
    numbers = [n for n in before if n in after and not n.startswith(("eq-", "fig-", "tbl-"))]
    changed = [n for n in numbers if before[n] != after[n]]
    assert changed, (f"{path.name}: none of the {len(numbers)} glued numbers changed with the "
                     "second setting: do the later cells read MODEL, CHIP and FORMAT?")
