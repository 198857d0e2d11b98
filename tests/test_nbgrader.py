"""nbgrader end to end on an exercise notebook, as book/instructors.md tells an instructor to run it.

In a temporary course folder: the instructor's notebook as the source of an assignment,
`nbgrader generate_assignment` (the released notebook must hold the book's stub and no
solution), a student's submission filled in from the released copy (every answer correct but
one, which is wrong), `nbgrader autograde`, and the score read back from nbgrader's gradebook:
one point per correct `check`, none for the wrong one. The notebooks' nbgrader metadata (answer
cells and locked, graded check cells) is checked on every exercise notebook.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks" / "exercises").glob("ex*.ipynb"))
STUB = "answer = None  # YOUR CODE HERE"
SOLUTION_RE = re.compile(r"### BEGIN SOLUTION\n(.*?)\n### END SOLUTION", re.S)
CONFIG = """c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = "llm-arithmetic"
c.CourseDirectory.db_url = "sqlite:///{root}/gradebook.db"
# the book's stub, so that an unanswered cell says "not yet" instead of raising
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
"""


TIMES: dict[str, float] = {}
NBGRADER = (f"import sys; sys.path.insert(0, {str(REPO)!r}); "
            "from tools.jupyter_imports import refuse_iri_grammars; "
            "refuse_iri_grammars(); from nbgrader.apps.nbgraderapp import main; "
            "sys.argv[0] = 'nbgrader'; sys.exit(main())")


def nbgrader(course: Path, *args: str) -> str:
    # the `nbgrader` command, without jsonschema's 3-s IRI grammars (tools.jupyter_imports)
    cmd = [sys.executable, "-c", NBGRADER]
    # nbgrader runs `alembic` (its database migrations) from PATH: the environment's bin folder
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent),
                                                 os.environ.get("PATH", "")]))
    started = time.monotonic()
    out = subprocess.run(cmd + list(args), cwd=course, capture_output=True, text=True,
                         timeout=300, env=env)
    TIMES[args[0] + " " + args[1]] = time.monotonic() - started
    assert out.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}"
    return out.stdout + out.stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_nbgrader_metadata(path):
    nb = nbformat.read(path, as_version=4)
    ids, problems = [], []
    for i, cell in enumerate(nb.cells):
        meta = cell.metadata.get("nbgrader")
        tagged = "solution" in cell.metadata.get("tags", [])
        if meta is None:
            if tagged:
                problems.append(f"cell {i}: tagged `solution` without nbgrader metadata")
            continue
        ids.append(meta["grade_id"])
        if meta.get("solution"):
            if not (tagged and "### BEGIN SOLUTION" in cell.source):
                problems.append(f"cell {i}: an nbgrader answer cell without the tag and markers")
        elif meta.get("grade"):
            if not (meta.get("locked") and meta.get("points") == 1
                    and re.fullmatch(r'check\("ex-nb-[a-z0-9-]+", answer\)', cell.source)):
                problems.append(f"cell {i}: a graded cell must be a locked check worth 1 point")
            prev = nb.cells[i - 1]
            if not prev.metadata.get("nbgrader", {}).get("solution"):
                problems.append(f"cell {i}: a check that does not follow an answer cell")
    assert len(ids) == len(set(ids)), f"duplicate grade_id in {path.name}"
    assert ids, f"{path.name} has no nbgrader cells"
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def test_generate_assignment_autograde_and_scores(tmp_path):
    course = tmp_path / "course"
    source = REPO / "notebooks" / "exercises" / "ex06-roofline.ipynb"
    (course / "source" / "ps1").mkdir(parents=True)
    shutil.copy(source, course / "source" / "ps1" / source.name)
    (course / "nbgrader_config.py").write_text(CONFIG.format(root=str(course), stub=STUB))

    nbgrader(course, "generate_assignment", "ps1", "--force")
    released = course / "release" / "ps1" / source.name
    student = nbformat.read(released, as_version=4)
    code = "\n".join(c.source for c in student.cells if c.cell_type == "code")
    assert "### BEGIN SOLUTION" not in code and "sp.solve(" not in code
    answer_cells = [c for c in student.cells if c.metadata.get("nbgrader", {}).get("solution")]
    assert answer_cells and all(c.source == STUB for c in answer_cells)

    # The submission: the instructor's solutions typed in, and one wrong answer.
    solutions = [m.group(1) for c in nbformat.read(source, as_version=4).cells
                 for m in SOLUTION_RE.finditer(c.source)]
    assert len(solutions) == len(answer_cells)
    for cell, solution in zip(answer_cells, solutions):
        cell.source = solution
    answer_cells[1].source = "answer = 1.0"
    submitted = course / "submitted" / "alice" / "ps1"
    submitted.mkdir(parents=True)
    nbformat.write(student, submitted / source.name)

    nbgrader(course, "autograde", "ps1", "--create", "--force")  # --create: alice joins the db

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        sub = gb.find_submission("ps1", "alice")
        score, max_score = sub.score, sub.max_score
        per_cell = {g.name: g.score for nb in sub.notebooks for g in nb.grades}
    assert max_score == len(answer_cells)
    assert score == len(answer_cells) - 1, per_cell
    wrong = [name for name, s in per_cell.items() if s == 0]
    assert len(wrong) == 1 and wrong[0].startswith("check-"), per_cell
