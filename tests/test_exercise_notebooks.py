"""The exercise notebooks (notebooks/exercises/) and the answer checker behind them.

Each notebook holds, per exercise, a markdown cell with the question and its label, then one
code cell tagged `solution`:

    ### BEGIN SOLUTION
    answer = ...
    ### END SOLUTION
    check("ex-nb-<chapter>-<slug>", answer)

Checked here:
- the instructor edition prints "correct" for every exercise: read from its stored outputs,
  which nbval (tests/test_binder.py) compares with a fresh run, so it is not executed twice;
- the student edition (scripts/student_edition.py), executed, prints "not yet" for every one,
  never "correct", and holds no line of any solution;
- labels: each one used once, in exactly one notebook, with an answer in
  `llm_arithmetic.teaching.exercises.ANSWERS`, and every answer used; the question states the label and
  the unit and tolerance that `check` applies;
- `check` itself: tolerance, no answer, and never the answer in what it prints.

The ten executions of the student edition run in parallel threads.
"""
from __future__ import annotations

import copy
import importlib.util
import math
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from llm_arithmetic.teaching.exercises import ANSWERS, answer_for, check, expected

REPO = Path(__file__).resolve().parents[1]
FOLDER = REPO / "notebooks" / "exercises"
NOTEBOOKS = sorted(FOLDER.glob("ex*.ipynb"))
#: The book's chapters (NN-slug), reproductions (NN-repro-...) excepted, and chapters without an
#: exercise notebook of their own, with the reason.
WITHOUT_NOTEBOOK = {"17-predicted-vs-measured": "its exercises work on the measured dataset in "
                                                "the chapter itself"}
CHAPTERS = sorted(p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]-*.ipynb")
                  if "-repro-" not in p.stem and p.stem not in WITHOUT_NOTEBOOK)
CHECK_RE = re.compile(r"""^check\(["'](ex-nb-[a-z0-9-]+)["'], answer\)\s*$""", re.M)
QUESTION_RE = re.compile(r"\*\*Exercise `(ex-nb-[a-z0-9-]+)`\*\*")
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def _load_student_edition():
    spec = importlib.util.spec_from_file_location(
        "student_edition", REPO / "scripts" / "student_edition.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


student_edition = _load_student_edition()


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def source(cell) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def read(path: Path):
    return nbformat.read(path, as_version=4)


def solution_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and "solution" in c.metadata.get("tags", [])]


def solution_lines(nb) -> list[str]:
    """The lines between the markers of every solution cell (markers excluded)."""
    lines = []
    for cell in solution_cells(nb):
        inside = False
        for line in source(cell).splitlines():
            if line.strip() == BEGIN:
                inside = True
            elif line.strip() == END:
                inside = False
            elif inside and line.strip():
                lines.append(line.strip())
    return lines


def labels_in(nb) -> list[str]:
    return [m for c in nb.cells if c.cell_type == "code" for m in CHECK_RE.findall(source(c))]


def stdout_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def execute(nb, path: Path):
    nb = copy.deepcopy(nb)
    NotebookClient(nb, kernel_name="python3", timeout=300,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


@pytest.fixture(scope="module")
def executed():
    """{(path, "student"): executed notebook}: the student edition of every exercise notebook
    (the instructor edition's outputs are stored, and nbval checks them)."""
    jobs = {(path, "student"): nbformat.from_dict(student_edition.student_notebook(read(path)))
            for path in NOTEBOOKS}
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = {key: pool.submit(execute, nb, key[0]) for key, nb in jobs.items()}
        return {key: f.result() for key, f in futures.items()}


def test_one_notebook_per_chapter():
    names = [p.stem for p in NOTEBOOKS]
    assert names == [f"ex{c}" for c in CHAPTERS], names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_structure(path):
    nb = read(path)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# Exercises: ")
    assert "{doc}`../" in first.source, "the intro links its chapter"
    assert "remove-cell" in nb.cells[1].metadata.get("tags", []), "cell 1 is the Colab guard"
    labels = labels_in(nb)
    assert 4 <= len(labels) <= 5, f"{rel(path)}: {len(labels)} checked exercises"
    sols = solution_cells(nb)
    assert len(sols) == len(labels), "one solution cell per check, each with one check"
    for cell in sols:
        src = source(cell)
        assert src.count(BEGIN) == 1 and src.count(END) == 1
        assert len(CHECK_RE.findall(src)) == 1
        assert "import " not in src, "imports belong in the setup cell, not in solutions"
    # each question states its label, unit and tolerance just before its solution cell
    for i, cell in enumerate(nb.cells):
        if any(cell is s for s in sols):
            (label,) = CHECK_RE.findall(source(cell))
            question = nb.cells[i - 1]
            assert question.cell_type == "markdown"
            assert QUESTION_RE.findall(question.source) == [label], (rel(path), label)
            assert f"({expected(label)})" in question.source, (rel(path), label, expected(label))


def test_labels():
    used = {}
    for path in NOTEBOOKS:
        labels = labels_in(read(path))
        assert len(labels) == len(set(labels)), f"{rel(path)}: a label is checked twice"
        chapter = {l.split("-")[2] for l in labels}
        assert len(chapter) == 1, f"{rel(path)}: labels of several chapters {chapter}"
        for label in labels:
            assert label in ANSWERS, f"{rel(path)}: {label} has no answer in exercises.ANSWERS"
            assert label not in used, f"{label} is used in {used[label]} and {rel(path)}"
            used[label] = rel(path)
    unused = sorted(set(ANSWERS) - set(used))
    assert not unused, f"answers that no notebook uses: {unused}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_instructor_edition_is_correct(path):
    nb = read(path)  # stored outputs: nbval checks that a fresh run gives the same
    for cell in solution_cells(nb):
        (label,) = CHECK_RE.findall(source(cell))
        out = stdout_of(cell)
        assert out.strip() == f"✔ {label}: correct.", f"{rel(path)} {label}: {out!r}"
        assert not [o for o in cell.outputs if o.output_type != "stream"], (
            f"{rel(path)} {label}: the check displays more than its line")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_student_edition(path, executed):
    instructor = read(path)
    student = student_edition.student_notebook(instructor)
    assert not student_edition.has_solution(student)
    assert len(student["cells"]) == len(instructor.cells), "no exercise cell is dropped"
    text = "\n".join(source(c) for c in student["cells"])
    leaked = [line for line in solution_lines(instructor) if line in text]
    assert not leaked, f"{rel(path)}: solution lines in the student edition: {leaked}"
    assert labels_in(nbformat.from_dict(student)) == labels_in(instructor)

    ran = executed[(path, "student")]
    outs = {CHECK_RE.findall(source(c))[0]: stdout_of(c) for c in ran.cells
            if c.cell_type == "code" and CHECK_RE.search(source(c))}
    assert list(outs) == labels_in(instructor)
    for label, out in outs.items():
        assert out.strip() == f"✘ {label}: not yet (no answer given).", f"{label}: {out!r}"
    assert "correct" not in "".join(outs.values())


# ---- the checker ---------------------------------------------------------------------------
def test_check_tolerance(capsys):
    for label, a in ANSWERS.items():
        target = answer_for(label)
        assert math.isfinite(target) and target > 0, label
        assert check(label, target)
        if a.rel_tol:
            assert check(label, target * (1 + a.rel_tol / 2)), label
            assert check(label, target * (1 - a.rel_tol / 2)), label
            assert not check(label, target * (1 + 2 * a.rel_tol)), label
        else:
            assert not check(label, target + 1), label
        for nothing in (None, ..., float("nan"), "a number"):
            assert not check(label, nothing), (label, nothing)
    out = capsys.readouterr().out
    assert "Traceback" not in out


@pytest.mark.parametrize("label", ["ex-nb-kv-crossover", "ex-nb-params-llama2-7b",
                                   "ex-nb-batch-cost", "ex-nb-roofline-a10-request",
                                   "ex-nb-flops-critical-n", "ex-nb-quant-4090-context"])
def test_check_never_prints_the_answer(label, capsys):
    target = answer_for(label)
    for value in (target, target * 3 + 7, None, ...):
        check(label, value)
    out = capsys.readouterr().out
    shown = {f"{target:g}", f"{target:.2f}", f"{target:.3g}", f"{target:,.0f}", str(int(target))}
    for s in shown:
        if len(s.strip("0.,-")) >= 3:
            assert s not in out, (label, s, out)


def test_check_no_answer_given(capsys):
    assert not check("ex-nb-kv-llama2", None)
    assert not check("ex-nb-kv-llama2", ...)
    assert capsys.readouterr().out.count("not yet (no answer given)") == 2


def test_verdict_is_silent_in_a_notebook():
    result = check("ex-nb-kv-llama2", answer_for("ex-nb-kv-llama2"))
    assert result and result == True  # noqa: E712 (a Verdict compares as a bool)
    assert result._ipython_display_() is None
