"""The exercise notebooks (notebooks/exercises/) and the answer checker behind them.

Each notebook holds, per exercise, a markdown cell with the question (a heading that is a
sentence, then the label, unit and tolerance), an answer cell tagged `solution` (an nbgrader
answer cell):

    ### BEGIN SOLUTION
    answer = ...
    ### END SOLUTION

and a locked, graded check cell (an nbgrader test cell): `check("ex-nb-<chapter>-<slug>", answer)`.

Checked here:
- the instructor edition prints "correct" for every exercise: read from its stored outputs,
  which nbval (tests/test_binder.py) compares with a fresh run, so it is not executed twice;
- the student edition (scripts/student_edition.py), executed, prints "not yet" for every one,
  never "correct", and holds no line of any solution;
- labels: each one used once, in exactly one notebook, with an answer in
  `llm_arithmetic.teaching.exercises.ANSWERS`, and every answer used; the question states the label and
  the unit and tolerance that `check` applies;
- `check` itself: tolerance, no answer, and never the answer in what it prints; the same
  verdicts from the student edition's hashed answers (exercises.hash_table) as from the
  instructor's computed ones, at the edges of every tolerance;
- derivations: an exercise that says "solve" is solved with sympy (`sp.solve` or `sp.limit`);
- no exercise notebook repeats a chapter exercise's title, and every chapter links its notebook.

The student editions run one after another in one kernel (namespace cleared between them).
"""
from __future__ import annotations

import contextlib
import copy
import io
import importlib.util
import json
import math
import re
from pathlib import Path

import nbformat
import pytest
from kernels import execute_notebook

from llm_arithmetic.teaching import exercises
from llm_arithmetic.teaching.answers import ANSWERS
from llm_arithmetic.teaching.exercises import answer_for, check, expected

REPO = Path(__file__).resolve().parents[1]
FOLDER = REPO / "notebooks" / "exercises"
NOTEBOOKS = sorted(FOLDER.glob("ex*.ipynb"))
#: The book's chapters (NN-slug, and NNb-slug for a chapter inserted after NN), reproductions
#: (NN-repro-...) excepted: each has an exercise notebook of its own.
CHAPTERS = sorted(p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]*-*.ipynb")
                  if re.fullmatch(r"\d\d[a-z]?-[a-z0-9-]+", p.stem) and "-repro-" not in p.stem)
CHECK_RE = re.compile(r"""^check\(["'](ex-nb-[a-z0-9-]+)["'], answer\)\s*$""", re.M)
QUESTION_RE = re.compile(r"\*\*Exercise\*\* \(label `(ex-nb-[a-z0-9-]+)`; ")
HEADING_RE = re.compile(r"^## ([A-Z].*\?)$", re.M)
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


#: A line of an expression wrapped over several lines that says nothing by itself: closing
#: brackets, a name and an opening bracket (`roofline.batched_step_bytes(`), or an operator
#: and one name (`+ cache`). Such lines also occur in the questions: no evidence of a leaked
#: solution.
FRAGMENT_RE = re.compile(r"[)\]},]+|[\w.]*[(\[{]|[-+*/] ?[\w.]+[)\]},]*")


def solution_lines(nb) -> list[str]:
    """The lines between the markers of every solution cell (markers excluded), less the
    fragments of wrapped calls (FRAGMENT_RE)."""
    lines = []
    for cell in solution_cells(nb):
        inside = False
        for line in source(cell).splitlines():
            if line.strip() == BEGIN:
                inside = True
            elif line.strip() == END:
                inside = False
            elif inside and line.strip() and not FRAGMENT_RE.fullmatch(line.strip()):
                lines.append(line.strip())
    return lines


def labels_in(nb) -> list[str]:
    return [m for c in nb.cells if c.cell_type == "code" for m in CHECK_RE.findall(source(c))]


def stdout_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def execute_in_turn(notebooks: dict, folder: Path) -> dict:
    """Notebooks run one after another in ONE kernel, the namespace cleared between them
    (`%reset -f`), from `folder`: one kernel start and one import of the package instead of
    one per notebook (the sixteen kernels cost ~45 s of CPU, most of it starting up)."""
    combined = nbformat.v4.new_notebook(metadata=copy.deepcopy(
        next(iter(notebooks.values())).metadata))
    spans = {}
    for key, nb in notebooks.items():
        combined.cells.append(nbformat.v4.new_code_cell("%reset -f"))
        start = len(combined.cells)
        combined.cells.extend(copy.deepcopy(nb.cells))
        spans[key] = (start, len(combined.cells))
    execute_notebook(combined, folder, timeout=300, name="the exercise notebooks")
    out = {}
    for key, (start, end) in spans.items():
        nb = copy.deepcopy(notebooks[key])
        nb.cells = combined.cells[start:end]
        out[key] = nb
    return out


@pytest.fixture(scope="module")
def executed():
    """{(path, "student"): executed notebook}: the student edition of every exercise notebook
    (the instructor edition's outputs are stored, and nbval checks them)."""
    jobs = {(path, "student"): nbformat.from_dict(student_edition.student_notebook(read(path)))
            for path in NOTEBOOKS}
    assert len({path.parent for path, _ in jobs}) == 1, "one folder, one working directory"
    return execute_in_turn(jobs, NOTEBOOKS[0].parent)


def test_one_notebook_per_chapter():
    names = [p.stem for p in NOTEBOOKS]
    assert names == [f"ex{c}" for c in CHAPTERS], names


def check_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and CHECK_RE.search(source(c))]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_structure(path):
    nb = read(path)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# Exercises: ")
    assert "{doc}`../" in first.source, "the intro links its chapter"
    assert "worked solution" not in first.source, "the intro must read right in both editions"
    assert "remove-cell" in nb.cells[1].metadata.get("tags", []), "cell 1 is the Colab guard"
    labels = labels_in(nb)
    # four or five questions; a sixth check where a question's second part (the regime of
    # a bound, say) needs a number of its own
    assert 4 <= len(labels) <= 6, f"{rel(path)}: {len(labels)} checked exercises"
    sols = solution_cells(nb)
    assert len(sols) == len(labels), "one answer cell per check"
    for cell in sols:
        src = source(cell)
        assert src.count(BEGIN) == 1 and src.count(END) == 1
        assert src.startswith(BEGIN) and src.rstrip().endswith(END), "the whole cell is the answer"
        assert "import " not in src, "imports belong in the setup cell, not in solutions"
        assert "check(" not in src, "the check is the next cell (graded by nbgrader)"
    # question (heading + label, unit, tolerance), answer cell, check cell, in that order
    for i, cell in enumerate(nb.cells):
        if any(cell is s for s in sols):
            question, check_cell = nb.cells[i - 1], nb.cells[i + 1]
            (label,) = CHECK_RE.findall(source(check_cell))
            assert source(check_cell).strip() == f'check("{label}", answer)'
            assert question.cell_type == "markdown"
            assert QUESTION_RE.findall(question.source) == [label], (rel(path), label)
            assert f"`{label}`; {expected(label)})" in question.source, (rel(path), label)
            heading = HEADING_RE.findall(question.source)
            assert len(heading) == 1, f"{label}: the title is a question, a sentence"
            assert not re.search(r"ex-|`", heading[0]), f"{label}: the title is not a slug"
            if re.search(r"\b(solve|derive)\b", question.source, re.I):
                assert re.search(r"sp\.(solve|limit)\(", source(cell)), (
                    f"{label}: the question asks for a derivation; the solution must be one")


def test_no_duplicate_of_a_chapter_exercise():
    """No exercise notebook title repeats a chapter exercise's title, and each chapter that has an
    exercise notebook links it at the end of its exercises (the "Checked versions" line)."""
    chapter_titles = set()
    for chapter in CHAPTERS:
        nb = read(REPO / "notebooks" / f"{chapter}.ipynb")
        for c in nb.cells:
            chapter_titles |= {t.strip().lower() for t in re.findall(
                r"^[`:~]{3,}\{exercise(?:-start)?\}[ \t]*(.+)$", source(c), re.M)}
        text = "\n".join(source(c) for c in nb.cells if c.cell_type == "markdown")
        assert f"Checked versions of these exercises: {{doc}}`exercises/ex{chapter}`" in text, \
            f"{chapter} does not link its exercise notebook"
    for path in NOTEBOOKS:
        for c in read(path).cells:
            for title in HEADING_RE.findall(source(c)):
                assert title.strip().lower() not in chapter_titles, (rel(path), title)


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
    for cell in check_cells(nb):
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
    outs = {CHECK_RE.findall(source(c))[0]: stdout_of(c) for c in check_cells(ran)}
    for c in check_cells(nbformat.from_dict(student)):
        assert not c.get("outputs"), "the student edition keeps no output of a check cell"
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


@pytest.mark.parametrize("label", ["ex-nb-kv-nemo-context", "ex-nb-params-hypothetical",
                                   "ex-nb-batch-l40s-cost", "ex-nb-roofline-l40s-request",
                                   "ex-nb-flops-solve-n", "ex-nb-quant-4080-context"])
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
    assert not check("ex-nb-kv-qwen3-batch", None)
    assert not check("ex-nb-kv-qwen3-batch", ...)
    assert capsys.readouterr().out.count("not yet (no answer given)") == 2


def test_retired_labels_say_so():
    with pytest.raises(KeyError, match="retired"):
        check("ex-nb-kv-llama2", 524288)
    assert not set(exercises.RETIRED) & set(ANSWERS), "a label is never reused"


def test_autograde_raises_on_a_wrong_answer(monkeypatch, capsys):
    """Under nbgrader's autograde the check cell fails (scores 0) unless the answer is right."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    label = "ex-nb-kv-qwen3-batch"
    assert check(label, answer_for(label))
    for wrong in (None, answer_for(label) * 2):
        with pytest.raises(AssertionError, match="not yet"):
            check(label, wrong)


@pytest.fixture()
def student_mode(monkeypatch):
    """exercises.check as the student edition runs it: no answers.py, only hashes (cheap ones)."""
    table = exercises.hash_table(iterations=10)
    monkeypatch.setattr(exercises, "_instructor_answers", lambda: None)
    monkeypatch.setattr(exercises, "_TABLE", dict(table["answers"]))
    return table


def test_hash_table_holds_no_answer(student_mode):
    import sys
    sys.path.insert(0, str(REPO / "scripts"))
    from make_student import answer_forms, numbers_in

    shown = numbers_in(json.dumps(student_mode))
    for label, a in ANSWERS.items():
        assert not answer_forms(float(a.compute())) & shown, label
    with pytest.raises(LookupError):
        answer_for("ex-nb-kv-qwen3-batch")


def test_hashed_check_agrees_at_the_tolerance_edges(student_mode):
    for label, a in ANSWERS.items():
        target = float(a.compute())
        assert check(label, target), label
        if a.rel_tol:
            for f in (1 + a.rel_tol * 0.99, 1 - a.rel_tol * 0.99, 1.0001):
                assert check(label, target * f), (label, f)
            for f in (1 + a.rel_tol * 1.3, 1 - a.rel_tol * 1.3, 0.5, 2):
                assert not check(label, target * f), (label, f)
        else:
            assert not check(label, target + 1) and not check(label, target - 1), label
        assert not check(label, -target) and not check(label, 0) and not check(label, None)


def test_hashed_check_at_full_cost(monkeypatch):
    """With the default iterations, one check costs one slow hash (well under a second)."""
    label = "ex-nb-roofline-solve-batch"
    table = exercises.hash_table(only=[label])
    assert table["answers"][label]["iterations"] == exercises.ITERATIONS
    monkeypatch.setattr(exercises, "_instructor_answers", lambda: None)
    monkeypatch.setattr(exercises, "_TABLE", dict(table["answers"]))
    value = float(ANSWERS[label].compute())
    import time
    started = time.monotonic()
    assert check(label, value) and not check(label, value * 1.05)
    assert time.monotonic() - started < 10


def test_verdict_is_silent_in_a_notebook():
    result = check("ex-nb-kv-qwen3-batch", answer_for("ex-nb-kv-qwen3-batch"))
    assert result and result == True  # noqa: E712 (a Verdict compares as a bool)
    assert result._ipython_display_() is None


def quiet(label, value) -> bool:
    """check's verdict, its printed line swallowed."""
    with contextlib.redirect_stdout(io.StringIO()):
        return bool(check(label, value))


def test_plausible_wrong_answers_are_refused():
    """Shortcuts and slips that an earlier edition accepted, or that a hint invited, each
    computed by hand here from the chips' datasheet figures and the models' shapes; and, for the
    questions rewritten with them, the by-hand answer that the question now describes."""
    from llm_arithmetic.catalog.hardware import get_hardware
    from llm_arithmetic.catalog.model_catalog import get_model

    # the critical batch at a one-token context is the fp16 ops:byte ratio within 1%; at 128
    # tokens of cache per sequence it is not (H100 PCIe: 756 TFLOP/s dense fp16, 2 TB/s)
    assert not quiet("ex-nb-roofline-solve-batch", 756e12 / 2e12)
    # the critical prompt of Llama 3.1 8B on an L40S is within 0.4% of the ops:byte ratio
    # (362.05 TFLOP/s dense fp16, 864 GB/s): the question asks for the cache and attention too
    assert not quiet("ex-nb-prefill-critical", 362.05e12 / 864e9)
    # chapter 9 asks for a batch of 18, not chapter 8's 20 tokens: 128 (1 - (1 - 8/128)^20)
    assert not quiet("ex-nb-batch-qwen-moe-experts", 128 * (1 - (1 - 8 / 128) ** 20))
    assert quiet("ex-nb-batch-qwen-moe-experts", 128 * (1 - (1 - 8 / 128) ** 18))
    # the all-reduces of Llama 3.3 70B at batch 96 on eight H100 SXM: the NVSwitch reduces in
    # the switch, (N + 1)/N of the message at 450 GB/s and two steps of 0.47 us, 2 per layer
    message = 96 * 8192 * 2
    switch = 2 * 80 * (message * 9 / 8 / 450e9 + 2 * 0.47e-6)
    ring = 2 * 80 * (message * 2 * 7 / 8 / 450e9 + 2 * 7 * 0.47e-6)
    assert quiet("ex-nb-parallel-comm", switch * 1e3)
    assert not quiet("ex-nb-parallel-comm", ring * 1e3)
    # TPOT on eight H200s: the all-reduces overlap the step; adding them is refused
    m = get_model("llama-3.3-70b")
    context = 2048 + 256 / 2
    memory_time = (m.decode_read_params + 128 * 327_680 * context) / 8 / 4.8e12
    assert quiet("ex-nb-serving-tpot", memory_time * 1e3)
    added = memory_time + 2 * 80 * (128 * 8192 * 2 * 9 / 8 / 450e9 + 2 * 0.47e-6)
    assert not quiet("ex-nb-serving-tpot", added * 1e3)
    assert get_hardware("h200").interconnect.scale_up_bandwidth == 450e9


def test_conventions_that_a_loose_tolerance_let_pass():
    """Slips of a few tenths of a percent, in questions that state every convention: tolerances
    of 0.1% refuse them (by hand from the questions' numbers)."""
    from llm_arithmetic.catalog.model_catalog import get_model

    # Nemotron-H 56B: the convolution keeps its last d_conv - 1 = 3 inputs, not 4
    def state(kept):
        return 24 * 54 * (16384 * 256 + (16384 + 2 * 8 * 256) * kept) * 2 / 1e9
    assert quiet("ex-nb-modern-nemotron-24", state(3))
    assert not quiet("ex-nb-modern-nemotron-24", state(4))
    # a chunked prefill of 8192 tokens in 16 chunks of 512: the cache written counts, a chunk
    # reads only the cache of the chunks before it, and only the last reads the output head
    # (Llama 3.1 8B's config: vocab_size 128256, hidden_size 4096, untied)
    m = get_model("llama-3.1-8b")
    w, kappa, head = 2 * m.decode_read_params, 32 * 2 * 8 * 128 * 2, 2 * 128256 * 4096
    reads = sum(w - head + i * 512 * kappa for i in range(16)) + head
    assert quiet("ex-nb-prefill-chunk-bytes", (reads + 8192 * kappa) / 1e9)
    assert not quiet("ex-nb-prefill-chunk-bytes", reads / 1e9)
    assert not quiet("ex-nb-prefill-chunk-bytes", (reads + 16 * 512 * kappa + 8192 * kappa) / 1e9)
    assert not quiet("ex-nb-prefill-chunk-bytes", (reads + 15 * head + 8192 * kappa) / 1e9)


def test_leftovers_of_the_review_are_refused():
    """Three answers that an earlier tolerance or question let pass, each computed by hand from the
    question's numbers and the catalog's fields (not by the formulas the solutions call)."""
    from llm_arithmetic.catalog.hardware import get_hardware
    from llm_arithmetic.catalog.model_catalog import get_model

    # a whole request of Qwen3 8B on an L40S (fp16, 1,800-token prompt, 400 tokens generated):
    # the prefill's compute time, then 400 memory-bound steps; the question names the mean context
    m, h = get_model("qwen3-8b"), get_hardware("l40s")
    assert (h.bandwidth, h.peak("fp16")) == (864e9, 362.05e12)  # NVIDIA's L40S datasheet
    kappa = 36 * 2 * 8 * 128 * 2  # 36 layers, K and V, 8 heads of 128, 2 bytes
    head = 151936 * 4096  # Qwen3 8B's output head (vocab_size x hidden_size), run once
    prefill_flops = (2 * (m.matmul_params - head) * 1800 + 2 * head
                     + 4 * 36 * 32 * 128 * (1800 * 1801 // 2))
    prefill = prefill_flops / 362.05e12
    memory_time = (2 * m.decode_read_params + 1800 * kappa) / 864e9
    assert prefill > memory_time  # compute-bound
    # the regime: compute time over memory time; the inverse ratio (read as memory-bound) fails
    assert quiet("ex-nb-roofline-l40s-prefill-regime", prefill / memory_time)
    assert not quiet("ex-nb-roofline-l40s-prefill-regime", memory_time / prefill)

    def request(context):
        return prefill + 400 * (2 * m.decode_read_params + context * kappa) / 864e9
    assert quiet("ex-nb-roofline-l40s-request", request(1800 + 200))
    assert quiet("ex-nb-roofline-l40s-request", request(1800 + 200.5))
    assert not quiet("ex-nb-roofline-l40s-request", request(1800))  # the prompt's context
    assert not quiet("ex-nb-roofline-l40s-request", request(2200))  # the last step's context
    assert not quiet("ex-nb-roofline-l40s-request", request(2000) - prefill)  # no prefill

    # 12 L d^2 + V d = 3e10 with L = 48, V = 50000: d = (sqrt(V^2 + 48 L P) - V) / (24 L)
    d = ((50_000**2 + 48 * 48 * 3e10) ** 0.5 - 50_000) / (24 * 48)
    assert 7173 < d < 7174
    assert quiet("ex-nb-params-gpt-solve-d", d) and quiet("ex-nb-params-gpt-solve-d", round(d))
    assert not quiet("ex-nb-params-gpt-solve-d", 56 * 128)  # rounded to a multiple of 128

    # eight B200s of 180 GiB each in decimal GB: neither the page's 1.4 TB nor GiB read as GB
    assert quiet("ex-nb-specs-b200-gb", 8 * 180 * 2**30 / 1e9)
    assert not quiet("ex-nb-specs-b200-gb", 1400)
    assert not quiet("ex-nb-specs-b200-gb", 8 * 180)


def test_a_cache_without_its_values_is_refused():
    """Forgetting the factor 2 of keys and values where the cache is a small share of the bytes:
    within 1% of the answer, so the tolerances are tighter. By hand from the datasheets' figures
    and the configs' shapes (Qwen3 8B: 36 layers, 8 KV heads of 128; Llama 3.1 70B: 80 layers,
    8 KV heads of 128; Phi-3 mini: 32 layers, 32 heads of 96), with the catalog's weight counts."""
    from llm_arithmetic.catalog.hardware import get_hardware
    from llm_arithmetic.catalog.model_catalog import get_model

    # Qwen3 8B at fp16 on an L40S (864 GB/s, 362.05 TFLOP/s dense fp16), 2048 tokens: memory-bound
    m = get_model("qwen3-8b")
    assert (get_hardware("l40s").bandwidth, get_hardware("l40s").peak("fp16")) == (864e9, 362.05e12)
    kappa = 2 * 36 * 8 * 128 * 2
    flops_ = 2 * m.matmul_params + 4 * 36 * 32 * 128 * 2048
    assert flops_ / 362.05e12 < 2 * m.decode_read_params / 864e9

    def step_ms(kv):
        return 1e3 * (2 * m.decode_read_params + 2048 * kv) / 864e9
    assert quiet("ex-nb-roofline-l40s-step", step_ms(kappa))
    assert not quiet("ex-nb-roofline-l40s-step", step_ms(kappa / 2))

    # Llama 3.1 70B in Q8_0 (8.5 bits) on an EPYC 9755 (12 channels of DDR5-6400: 614.4 GB/s)
    m = get_model("llama-3.1-70b")
    assert get_hardware("epyc-9755").bandwidth == 12 * 8 * 6400e6
    kappa = 2 * 80 * 8 * 128 * 2

    def rate(kv):
        return 614.4e9 / (m.decode_read_params * 8.5 / 8 + 4096 * kv)
    assert quiet("ex-nb-cases-epyc-70b", rate(kappa))
    assert not quiet("ex-nb-cases-epyc-70b", rate(kappa / 2))

    # Phi-3 mini at fp16 on a T4 (320 GB/s, 65 TFLOP/s dense fp16), one-token context:
    # (W / beta) / (f / R - kappa / beta)
    m, t4 = get_model("phi-3-mini"), get_hardware("t4")
    assert (t4.bandwidth, t4.peak("fp16")) == (320e9, 65e12)
    kappa = 2 * 32 * 32 * 96 * 2
    f = 2 * m.matmul_params + 4 * 32 * 32 * 96

    def critical(kv):
        return (2 * m.decode_read_params / 320e9) / (f / 65e12 - kv / 320e9)
    assert quiet("ex-nb-mistakes-t4-critical", critical(kappa))
    assert not quiet("ex-nb-mistakes-t4-critical", critical(kappa / 2))
    assert not quiet("ex-nb-mistakes-t4-critical", 65e12 / 320e9)  # the ops:byte ratio alone


def test_measured_and_forecast_answers_by_hand():
    """Chapters 17 and 17b: each answer by hand from the question's numbers (the measured
    speeds and bandwidths of the dataset's rows, Dai's llama.cpp benchmarks) and the models'
    published shapes, not through lab.calibration or forecast; and the slips each question
    invites refused. The weights a step reads are the meta-device parameter count (the
    dataset's params_total; Mistral 7B's from its config.json the same way) less the input
    embedding table but one row (a step looks one up)."""
    def read(total, vocab, width):
        return total - vocab * width + width

    llama_7b = read(6_738_415_616, 32_000, 4096)
    llama_13b = read(13_015_864_320, 32_000, 5120)
    llama_65b = read(65_285_660_672, 32_000, 8192)
    llama3_8b = read(8_030_261_248, 128_256, 4096)
    mistral_7b = read(7_241_732_096, 32_000, 4096)
    kappa_llama3 = 2 * 32 * 8 * 128 * 2  # K and V, 32 layers, 8 KV heads of 128, 2 bytes

    # LLaMA 13B fp16 on an RTX A6000 (768 GB/s), 24.65 tokens/s
    assert quiet("ex-nb-calibration-a6000-gap", 1e3 / 24.65 - 1e3 * 2 * llama_13b / 768e9)
    # Llama 3 8B Q4_K_M (4.899 bits) on an M1 (68.25 GB/s), 10.2 tokens/s, 256 tokens cached
    step = llama3_8b * 4.899 / 8 + 256 * kappa_llama3
    assert quiet("ex-nb-calibration-m1-bandwidth", 10.2 * step / 1e9)
    assert not quiet("ex-nb-calibration-m1-bandwidth", 10.2 * 8_030_261_248 * 4.899 / 8 / 1e9)
    # two RTX 6000 Ada rows (960 GB/s, Q4_0): t = b (1 + k) + tau; subtract to find 1 + k
    (t1, b1), (t2, b2) = [(1 / v, p * 4.5 / 8 / 960e9)
                          for v, p in ((128.08, llama_7b), (17.39, llama_65b))]
    one_plus_k = (t2 - t1) / (b2 - b1)
    assert quiet("ex-nb-calibration-solve-fixed", 1e3 * (t1 - b1 * one_plus_k))
    assert not quiet("ex-nb-calibration-solve-fixed", 1e3 * (t1 - b1))  # the 7B row's gap alone
    # LLaMA 13B Q4_0 on an RTX 4080 (716.8 GB/s), the output matrix at Q6_K: ggml's block_q6_K
    # holds 256 weights in 128 + 64 + 16 + 2 = 210 bytes
    head = 32_000 * 5120
    q6_k = 210 * 8 / 256
    assert q6_k == 6.5625
    assert quiet("ex-nb-calibration-q6k-head",
                 716.8e9 / ((llama_13b - head) * 4.5 / 8 + head * q6_k / 8))
    assert not quiet("ex-nb-calibration-q6k-head", 716.8e9 / (llama_13b * 4.5 / 8))
    # Llama 3 8B fp16 on an RTX 4090 at 54.84 tokens/s; 4 drafts at acceptance 0.75, cost 0.1
    plain = 1008e9 / (2 * llama3_8b + 256 * kappa_llama3)
    tokens = (1 - 0.75 ** 5) / (1 - 0.75)
    assert quiet("ex-nb-calibration-speculative-room", plain * tokens / (4 * 0.1 + 1) / 54.84)
    assert not quiet("ex-nb-calibration-speculative-room", plain * tokens / 54.84)

    # Mistral 7B Q8_0 on an RTX 3090 (936 GB/s): k 0.3, delta 0.04, tau 0.5 ms, 12 us x 32 layers
    t = (1.3 * mistral_7b * 8.5 / 8 / 936e9 + 0.04 * 2 * mistral_7b / 936e9 + 0.5e-3
         + 12e-6 * 32)
    assert quiet("ex-nb-forecast-stated-terms", 1 / t)
    assert not quiet("ex-nb-forecast-stated-terms", 1 / (t - 0.04 * 2 * mistral_7b / 936e9))
    # two RTX 6000 Ada rows (960 GB/s, fp16; 32 and 40 layers): 40 times the first equation less
    # 32 times the second removes lambda
    (t1, b1), (t2, b2) = [(1 / v, 2 * p / 960e9)
                          for v, p in ((50.56, llama_7b), (26.88, llama_13b))]
    one_plus_k = (40 * t1 - 32 * t2) / (40 * b1 - 32 * b2)
    assert quiet("ex-nb-forecast-solve-layer", 1e6 * (t1 - b1 * one_plus_k) / 32)
    # the interval: 56 x 0.74 up to the bound, 64 (56 x 1.22 = 68.32 is above it)
    assert quiet("ex-nb-forecast-interval-width", 64 - 56 * 0.74)
    assert not quiet("ex-nb-forecast-interval-width", 56 * 1.22 - 56 * 0.74)
    # a speculative step: 3 x 0.1 x 20 ms + 20 ms, 32 + 3 x 16 layer passes, 1 + a + a^2 + a^3
    tokens = 1 + 0.8 + 0.8 ** 2 + 0.8 ** 3
    assert quiet("ex-nb-forecast-speculative", tokens / (1.2 * 26e-3 + 0.5e-3 + 80 * 10e-6))
    assert not quiet("ex-nb-forecast-speculative",
                     tokens / (1.2 * 26e-3 + 0.5e-3 + 32 * 10e-6))  # the draft's layers left out
    # the chapter's error, |forecast / measured - 1|, not |measured / forecast - 1|
    assert quiet("ex-nb-forecast-mape", 100 * (7.5 / 72.5 + 6 / 44 + 24.7 / 101.3) / 3)
    assert not quiet("ex-nb-forecast-mape", 100 * (7.5 / 80 + 6 / 38 + 24.7 / 126) / 3)
