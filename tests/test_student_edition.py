"""The student edition (`make student`, scripts/make_student.py): every exercise, no solution.

Fast checks (always run):
- the doctests of scripts/student_edition.py (scripts/ is not among pytest's testpaths);
- `student_notebook()` on every notebook of the repository (notebooks/, notebooks/exercises/):
  no cell tagged `solution`, no nbgrader marker, no `{solution}` directive is left; every
  `{exercise}` directive is kept with its label, in order; marked cells become the stub; the
  original is not modified;
- `strip_solution_blocks()` on every Markdown page of book/, and on the directive forms MyST has;
- the student `_config.yml` (hide_solutions on, branch `student`, comments kept);
- the staging step of make_student.py into a temporary folder (no book build): the staged tree
  has no solution in any file and the checker finds solutions where there are some.

A built student edition, built by the test itself in a temporary folder (never skipped; set
BOOK_STUDENT_HTML to check an existing build instead): no solution and no checked answer in any
of its files (make_student.answer_leaks: every answer in several roundings, as a number), the
same exercises (page, label, number, title) as the instructor edition (`_build/html` after `make
book`, or built too), launch links on the `student` branch in every page with exercises, and,
in Chromium (as tests/test_browser.py) on the first and the last of those pages, exercises shown and
numbered, no solution element, launch buttons that open the `student` branch. Also: untracked files
never reach the student tree, and the answer scan finds what it looks for, except in the
outputs a notebook measures on the machine that runs it (the measurement lab re-run).
"""
from __future__ import annotations

import copy
import doctest
from contextlib import contextmanager
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import nbformat
import pytest
import yaml

from conftest import REPO, book_html_dir, require_playwright

sys.path.insert(0, str(REPO / "scripts"))
import make_student  # noqa: E402
import student_edition  # noqa: E402
from student_edition import STUB, strip_solution_blocks, student_notebook  # noqa: E402

NOTEBOOKS = sorted(p for p in (REPO / "notebooks").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)
PAGES = sorted((REPO / "book").rglob("*.md"))
DIRECTIVE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,}|:{3,})[ \t]*\{([\w-]+)\}[ \t]*(.*?)[ \t]*$", re.M)
LABEL_RE = re.compile(r"^[ \t]*:label:[ \t]*(\S+)", re.M)


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def exercises(text: str) -> list[tuple[str, str]]:
    """(directive, label) of every {exercise} / {exercise-start} in a text, in order."""
    out = []
    for m in DIRECTIVE_RE.finditer(text):
        if m.group(2) in ("exercise", "exercise-start"):
            label = LABEL_RE.search(text, m.end())
            out.append((m.group(2), label.group(1) if label else ""))
    return out


def solution_directives(text: str) -> list[str]:
    return [m.group(0).strip() for m in DIRECTIVE_RE.finditer(text)
            if m.group(2) in ("solution", "solution-start", "solution-end")]


# ---------------------------------------------------------------------------------------------
# The transformation

def test_student_edition_doctests():
    result = doctest.testmod(student_edition, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0


def test_there_are_notebooks_with_solutions():
    assert NOTEBOOKS
    assert any(student_edition.is_solution(c) for p in NOTEBOOKS
               for c in nbformat.read(p, as_version=4).cells)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_student_notebook_has_every_exercise_and_no_solution(path):
    nb = nbformat.read(path, as_version=4)
    before = copy.deepcopy(nb)
    student = student_notebook(nb)
    assert nb == before, "student_notebook() modified its argument"

    problems = []
    for i, cell in enumerate(student["cells"]):
        src = source(cell)
        if "solution" in cell.get("metadata", {}).get("tags", []):
            problems.append(f"cell {i}: still tagged `solution`")
        if make_student.MARKER_RE.search(src):
            problems.append(f"cell {i}: still holds an nbgrader solution marker")
        if solution_directives(src):
            problems.append(f"cell {i}: still holds {solution_directives(src)}")
        if cell["cell_type"] == "code" and STUB in src and (cell.get("outputs")
                                                             or cell.get("execution_count")):
            problems.append(f"cell {i}: a stubbed cell keeps the outputs of the solution")
    assert not problems, f"{rel(path)}:\n" + "\n".join(problems)

    original = [e for c in nb.cells for e in exercises(source(c))]
    kept = [e for c in student["cells"] for e in exercises(source(c))]
    assert kept == original, f"{rel(path)}: exercises changed by the student edition"
    n_exercise = sum(source(c).count("{exercise}") for c in nb.cells)
    assert sum(source(c).count("{exercise}") for c in student["cells"]) == n_exercise

    # every marked solution became exactly one stub; every other solution cell is gone
    marked = [c for c in nb.cells
              if student_edition.is_solution(c) and student_edition.BEGIN in source(c)]
    assert sum(source(c).count(STUB) for c in student["cells"]) == \
        sum(source(c).count(student_edition.BEGIN) for c in marked) + \
        sum(source(c).count(STUB) for c in nb.cells if not student_edition.is_solution(c))
    unmarked = sum(student_edition.is_solution(c) for c in nb.cells) - len(marked)
    assert len(student["cells"]) == len(nb.cells) - unmarked


@pytest.mark.parametrize("path", PAGES, ids=rel)
def test_pages_keep_exercises_and_lose_solutions(path):
    text = path.read_text(encoding="utf8")
    stripped = strip_solution_blocks(text)
    assert exercises(stripped) == exercises(text)
    assert not solution_directives(stripped)
    if not solution_directives(text):
        assert stripped == text


def test_strip_solution_blocks_forms():
    page = "\n".join([
        "Intro.",
        ":::{exercise} Colons", ":label: ex-a-colon", "Ask.", ":::",
        "::::{solution} ex-a-colon", ":class: dropdown", "```python", "x = 1", "```",
        ":::{note}", "nested", ":::", "::::",
        "~~~{solution} ex-a-colon", "tilde", "~~~",
        "```{exercise-start} Gated", ":label: ex-a-gated", "```", "Gated question.",
        "```{exercise-end}", "```",
        "```{solution-start} ex-a-gated", ":class: dropdown", "```", "Gated answer.",
        "```python", "print('secret')", "```",
        "```{solution-end}", "```",
        "Outro."])
    out = strip_solution_blocks(page)
    assert "secret" not in out and "nested" not in out and "tilde" not in out
    assert "Gated answer" not in out and "x = 1" not in out
    assert out.startswith("Intro.") and out.endswith("Outro.")
    assert exercises(out) == [("exercise", "ex-a-colon"), ("exercise-start", "ex-a-gated")]
    assert "Gated question." in out
    with pytest.raises(ValueError):
        strip_solution_blocks("```{solution-start} ex-a\n```\nno end")


def test_student_config():
    text = (REPO / "_config.yml").read_text(encoding="utf8")
    new = make_student.student_config(text)
    config, original = yaml.safe_load(new), yaml.safe_load(text)
    assert config["sphinx"]["config"]["hide_solutions"] is True
    assert config["repository"]["branch"] == make_student.STUDENT_BRANCH
    assert config["repository"]["url"] == original["repository"]["url"]
    # only those two settings change, and the comments stay
    original["sphinx"]["config"]["hide_solutions"] = True
    original["repository"]["branch"] = make_student.STUDENT_BRANCH
    assert config == original
    assert [l for l in new.splitlines() if l.lstrip().startswith("#")] == \
        [l for l in text.splitlines() if l.lstrip().startswith("#")]


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    src = tmp_path_factory.mktemp("student") / "src"
    counts = make_student.stage(src, hash_iterations=1000)
    return src, counts


def test_staged_tree_has_no_solution(staged):
    src, counts = staged
    assert counts["notebooks"] >= len(NOTEBOOKS)
    assert counts["cells dropped"] + counts["cells stubbed"] > 0
    for path in NOTEBOOKS + PAGES + [REPO / "_toc.yml", REPO / "references.bib"]:
        assert (src / rel(path)).is_file(), f"{rel(path)} not staged"
    for left_out in ("tests", ".ci", ".github", "pytest.ini"):
        assert not (src / left_out).exists()
    assert (src / "lib" / "llm_arithmetic" / "__init__.py").is_file()  # Binder installs it
    assert make_student.solution_problems(src, make_student.solution_snippets()) == []
    config = yaml.safe_load((src / "_config.yml").read_text(encoding="utf8"))
    assert config["sphinx"]["config"]["hide_solutions"] is True
    assert config["repository"]["branch"] == "student"
    assert config["execute"]["execute_notebooks"] == "off"  # the stubs are never run by the build


def test_checker_finds_solutions(tmp_path):
    """The verification is not vacuous: each kind of leak is reported."""
    snippets = make_student.solution_snippets()
    assert snippets, "no solution text found in the sources to search for"
    leaked_line = sorted(snippets)[0]
    (tmp_path / "a.html").write_text(
        '<div class="solution dropdown admonition" id="notebooks/x-solution-1"><p>x</p></div>')
    (tmp_path / "b.html").write_text('<div class="cell tag_solution docutils container"></div>')
    (tmp_path / "c.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "code", "metadata": {"tags": ["solution"]}, "source": "x = 1"}]}))
    (tmp_path / "d.md").write_text("Text\n```{solution-start} ex-a-b\n```\n")
    (tmp_path / "e.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "code", "metadata": {}, "source": "### BEGIN SOLUTION\nx = 1\n"}]}))
    (tmp_path / "f.html").write_text(f"<pre>{html.escape(leaked_line)}</pre>")
    (tmp_path / "ok.html").write_text('<div class="exercise admonition" id="ex-a-b">'
                                      '<p class="admonition-title">Exercise 1.1</p></div>'
                                      "<p>Say <code>### BEGIN SOLUTION</code> inline.</p>")
    (tmp_path / "searchindex.js").write_text(
        'Search.setIndex({"alltitles": {"Solution": [[3, "x-solution-1"]], "Intro": []}})')
    problems = make_student.solution_problems(tmp_path, snippets)
    flagged = {p.split(":")[0] for p in problems}
    assert flagged == {"a.html", "b.html", "c.ipynb", "d.md", "e.ipynb", "f.html",
                       "searchindex.js"}, problems


def test_exercise_comparison(tmp_path):
    def page(root, body):
        (root / "notebooks").mkdir(parents=True)
        (root / "notebooks" / "ch.html").write_text(body)

    ex = ('<div class="exercise admonition" id="{}"><p class="admonition-title">'
          '<span class="caption-number">Exercise {} </span> (T)</p></div>')
    page(tmp_path / "teacher", ex.format("ex-c-a", "4.1") + ex.format("ex-c-b", "4.2"))
    page(tmp_path / "same", ex.format("ex-c-a", "4.1") + ex.format("ex-c-b", "4.2"))
    page(tmp_path / "renumbered", ex.format("ex-c-b", "4.1") + ex.format("ex-c-a", "4.2"))
    page(tmp_path / "missing", ex.format("ex-c-a", "4.1"))
    found = make_student.exercises_in(tmp_path / "teacher")
    assert [e.title for e in found.values()] == ["Exercise 4.1 (T)", "Exercise 4.2 (T)"]
    assert make_student.exercise_problems(tmp_path / "same", tmp_path / "teacher") == ([], 2)
    compare = make_student.exercise_problems
    assert len(compare(tmp_path / "renumbered", tmp_path / "teacher")[0]) == 2
    assert len(compare(tmp_path / "missing", tmp_path / "teacher")[0]) == 1


def test_make_target():
    out = subprocess.run(["make", "-n", "student"], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "scripts/make_student.py" in out.stdout


# ---------------------------------------------------------------------------------------------
# A built student edition: built here, in a temporary folder, every run (no skip)

STUDENT_PAGE = """
() => ({
  solutions: document.querySelectorAll('.solution, .tag_solution, [id$="-solution-1"]').length,
  exercises: [...document.querySelectorAll('.exercise.admonition > .admonition-title')]
    .map(t => ({text: t.textContent.trim(), visible: t.getBoundingClientRect().height > 0})),
  launch: [...document.querySelectorAll('.bd-header-article a[href]')].map(a => a.href)
    .filter(h => /binder|colab/.test(h)),
})
"""


@contextmanager
def student_site(root: Path, profile: Path):
    """A function that opens one page of the built edition at `root` in Chromium."""
    from test_browser import CHROMIUM, CHROMIUM_FLAGS, LOCAL_HOST, TIMEOUT_MS, VIEWPORT, Browser

    sync_playwright = require_playwright()
    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "--bind", LOCAL_HOST, "--directory",
         str(root), "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        m = re.search(r"port (\d+)", server.stdout.readline())
        assert m, "http.server did not start"
        site = f"http://{LOCAL_HOST}:{m.group(1)}/"
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
                viewport=VIEWPORT, service_workers="block")
            context.set_default_timeout(TIMEOUT_MS)
            browser = Browser(context)  # records requests to other hosts (none resolves)

            def open_page(path: str) -> dict:
                page = context.new_page()
                try:
                    page.goto(urljoin(site, path), wait_until="domcontentloaded")
                    return page.evaluate(STUDENT_PAGE)
                finally:
                    page.close()

            try:
                yield open_page
            finally:
                context.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


LAUNCH_RE = re.compile(r'href="([^"]*(?:mybinder|binder|colab)[^"]*)"')


def pages_with_exercises(student_html: Path) -> list[str]:
    return sorted(p.relative_to(student_html).as_posix() for p in student_html.rglob("*.html")
                  if p.relative_to(student_html).parts[0] not in ("_static", "_sources")
                  and 'class="exercise admonition"' in p.read_text(encoding="utf8"))


def wrong_launch_links(links: list[str]) -> list[str]:
    """The links that do not open the `student` branch (in their path or query)."""
    def on_branch(url: str) -> bool:
        parts = urlsplit(html.unescape(url))
        return f"/{make_student.STUDENT_BRANCH}" in parts.path + "?" + parts.query
    return [h for h in links if not on_branch(h)]


def launch_problems(student_html: Path, pages: list[str]) -> list[str]:
    """In the HTML of every notebook page with exercises: Binder and Colab links, all on the
    `student` branch (whose notebooks hold no solution)."""
    problems = []
    for path in pages:
        if path.startswith("notebooks/"):
            links = LAUNCH_RE.findall((student_html / path).read_text(encoding="utf8"))
            if not links or wrong_launch_links(links):
                problems.append(f"{path}: launch links not on the student branch: "
                                f"{wrong_launch_links(links)[:2] or 'none'}")
    return problems


def browser_sample(pages: list[str]) -> list[str]:
    """The pages opened in Chromium: the first and the last page with exercises. Every page is
    built from the same theme and scripts (tests/test_browser.py opens every page of the
    instructor edition), and the HTML of every page is checked without a browser (solution
    elements, exercises and their numbers: make_student; launch links: above)."""
    return list(dict.fromkeys(pages[:1] + pages[-1:]))


def browser_problems(student_html: Path, open_page) -> list[str]:
    """Pages with exercises: in Chromium (a sample, :func:`browser_sample`) the exercises show,
    numbered, no solution element exists and the launch buttons open the `student` branch; in
    the HTML of all of them, the launch links (:func:`launch_problems`)."""
    pages = pages_with_exercises(student_html)
    if not pages:
        return ["no page of the student edition has an exercise"]
    problems = launch_problems(student_html, pages)
    for path in browser_sample(pages):
        r = open_page(path)
        if r["solutions"]:
            problems.append(f"{path}: {r['solutions']} solution element(s)")
        if not r["exercises"] or not all(e["visible"] for e in r["exercises"]):
            problems.append(f"{path}: exercises missing or hidden: {r['exercises'][:3]}")
        if not all(re.match(r"Exercise \d+(\.\d+)*\b", e["text"]) for e in r["exercises"]):
            problems.append(f"{path}: an exercise without its number: {r['exercises'][:3]}")
        if not r["launch"] or wrong_launch_links(r["launch"]):
            problems.append(f"{path}: launch buttons not on the student branch: "
                            f"{wrong_launch_links(r['launch'])[:2] or 'none'}")
    return problems


def test_untracked_files_never_reach_the_student_tree(tmp_path):
    """An answer key written into the checkout (untracked) is not staged; answers.py is not."""
    key = REPO / "untracked-answer-key-test.md"
    key.write_text("secret answers\n", encoding="utf8")
    try:
        files = {f.as_posix() for f in make_student.source_files()}
    finally:
        key.unlink()
    assert key.name not in files
    assert "lib/llm_arithmetic/teaching/answers.py" not in files
    assert "lib/llm_arithmetic/teaching/exercises.py" in files


def test_answer_scan_finds_answers(tmp_path):
    """The answer scan is not vacuous: a value printed in any of its forms is found."""
    answers = {"ex-a": 1234.5678, "ex-b": 20632.0, "ex-c": 0.0123456, "ex-d": 180 * 2**30 / 1e9}
    (tmp_path / "a.html").write_text("<p>about 1,235 tokens/s</p>")
    (tmp_path / "b.ipynb").write_text('{"text": "20632 tokens"}')
    (tmp_path / "c.js").write_text("Search.setIndex({x: 0.01235})")
    (tmp_path / "d.json").write_text('{"h": "a1234e5678f0123456789abcdef0123"}')  # opaque
    (tmp_path / "e.md").write_text("12345.6 and 1.2345 are other numbers")
    (tmp_path / "f.html").write_text('<h2><span class="section-number">1235. </span>Title</h2>'
                                     '<a href="#t">20632. Title</a>')  # section numbers
    (tmp_path / "searchindex.js").write_text(
        'Search.setIndex({"terms": {"1235": [1]}, "titles": ["Intro"], "alltitles": {}})')
    # issue 28: a table printing a B200's capacity with more digits than the answer's forms
    (tmp_path / "h.html").write_text("<td>B200</td><td>193.27</td>")
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "searchindex.js").write_text(
        'Search.setIndex({"terms": {}, "titles": ["About 20,632 tokens"], "alltitles": {}})')
    # a diagram: its geometry is not printed, its text is
    (tmp_path / "h.svg").write_text('<svg><rect x="1235" width="20632"/></svg>')
    (tmp_path / "i.svg").write_text('<svg><text x="1">about 1,235 tokens/s</text></svg>')
    # a formula typeset at build time: its drawing's geometry is not printed, its MathML is
    drawing = ('<mjx-container><mjx-math aria-hidden="true"><mjx-mtable style="min-width: '
               '1235em;"></mjx-mtable></mjx-math><mjx-assistive-mml><math>{}</math>'
               '</mjx-assistive-mml></mjx-container>')
    (tmp_path / "j.html").write_text(drawing.format("<mi>x</mi>"))
    (tmp_path / "k.html").write_text(drawing.format("<mn>20632</mn>"))
    leaks = make_student.answer_leaks(tmp_path, answers)
    assert {l.split(":")[0] for l in leaks} == {"a.html", "b.ipynb", "c.js", "h.html",
                                                "g/searchindex.js", "i.svg", "k.html"}, leaks


LAB = REPO / "notebooks" / "lab-measure-your-machine.ipynb"


def lab_build(root: Path, rate: float, prose: str = "") -> None:
    """Under `root`, the measurement lab as a build holds it, re-run on a machine whose copy kernel
    measured `rate` GB/s (its largest rate: the glued beta_gbs too): the notebook (staged, in
    _sources/ and jupyter_execute/), its glue file, and its page in MyST-NB's markup, with
    `prose` as a paragraph of the page and a Markdown cell of the notebook."""
    nb = json.loads(LAB.read_text(encoding="utf8"))
    cells = nb["cells"]
    copy_cell = next(c for c in cells if make_student.is_measured(c)
                     and "bench.rates()" in source(c) and c["outputs"])
    copy_cell["outputs"][0]["text"] = [f"copy : {rate:5.1f} GB/s\n"]
    glue = {}
    for cell in cells:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name == "beta_gbs":
                out["data"]["application/papermill.record/text/plain"] = repr(rate)
            if name:
                glue[name] = out
    assert "beta_gbs" in make_student.measured_glue(nb), "the lab no longer glues beta_gbs"
    if prose:
        cells.append({"cell_type": "markdown", "metadata": {}, "source": prose})
    text = json.dumps(nb, indent=1)
    for folder in ("notebooks", "_sources/notebooks", "jupyter_execute/notebooks"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / LAB.name).write_text(text, encoding="utf8")
    (root / "jupyter_execute/notebooks/lab-measure-your-machine.glue.json").write_text(
        json.dumps(glue), encoding="utf8")
    page = ('<div class="cell tag_nbval-ignore-output docutils container">'
            '<div class="cell_input docutils container"><div class="highlight"><pre>'
            '<span class="n">bench</span><span class="o">.</span>run()</pre></div></div>'
            '<div class="cell_output docutils container"><div class="output stream '
            f'highlight-myst-ansi notranslate"><div class="highlight"><pre>copy : {rate:5.1f} GB/s'
            '</pre></div></div></div></div>'
            '<div class="cell tag_remove-input tag_nbval-ignore-output docutils container">'
            '<div class="cell_output docutils container"><table><tr><td>copy</td>'
            f'<td>{rate:.1f}</td></tr></table></div></div>'
            '<p>On the machine that built this book, it came out at '
            f'<span class="pasted-text">{rate:.1f}</span> GB/s.</p><p>{prose}</p>')
    (root / "notebooks/lab-measure-your-machine.html").write_text(page, encoding="utf8")


def test_answer_scan_skips_measured_outputs(tmp_path):
    """The measurement lab re-run on a machine whose copy rate prints an answer (a reviewer's
    24.5 GB/s, the answer of ex-nb-parallel-ring): the outputs nbval ignores (measured) and the
    values they glue are not scanned; the same number anywhere else on the page still is."""
    from llm_arithmetic.teaching.exercises import answer_for

    answers = {"ex-nb-parallel-ring": answer_for("ex-nb-parallel-ring")}
    rate = round(answers["ex-nb-parallel-ring"], 1)
    assert f"{rate:.1f}" in make_student.answer_forms(answers["ex-nb-parallel-ring"])
    lab_build(tmp_path / "measured", rate)
    assert make_student.answer_leaks(tmp_path / "measured", answers) == []

    lab_build(tmp_path / "prose", rate, prose=f"The copy kernel ran at {rate:.1f} GB/s.")
    leaks = make_student.answer_leaks(tmp_path / "prose", answers)
    assert sorted(l.split(":")[0] for l in leaks) == sorted(
        [f"{d}/lab-measure-your-machine.ipynb" for d in
         ("notebooks", "_sources/notebooks", "jupyter_execute/notebooks")]
        + ["notebooks/lab-measure-your-machine.html"]), leaks

    # a glued value that is not measured (its cell is not marked) is scanned
    other = tmp_path / "glued"
    lab_build(other, rate)
    page = other / "notebooks/lab-measure-your-machine.html"
    page.write_text(page.read_text(encoding="utf8")
                    + f'<p>and <span class="pasted-text">{rate:.1f}</span> once more</p>')
    assert [l.split(":")[0] for l in make_student.answer_leaks(other, answers)] == [
        "notebooks/lab-measure-your-machine.html"]


def test_student_edition_built_and_checked(tmp_path_factory, request):
    """Builds the student edition (`make student`'s stage and build, in a temporary folder; CI
    runs it on every `make test`), then: no solution and no answer value in any of its files
    (pages, `_sources`, search index, notebooks, data files, the staged sources), the same
    exercises as the instructor edition, and in Chromium no solution element and launch buttons
    on the `student` branch. One test, so that parallel workers build it once."""
    out = tmp_path_factory.mktemp("student")
    src, student_html = out / "src", out / "html"
    given, jobs = os.environ.get("BOOK_STUDENT_HTML"), []
    if given:
        student_html, src = Path(given).resolve(), None
    else:
        # hashes at a low cost: the scan does not depend on it, and it saves ~20 s of CPU
        make_student.stage(src, hash_iterations=1000)
        jobs.append(make_student.build(src, student_html, out / "student-work"))
    instructor = book_html_dir()
    if not (instructor / "index.html").is_file():  # no `make book` before: build it as well
        instructor = out / "instructor-html"
        jobs.append(make_student.build(REPO, instructor, out / "instructor-work"))
    for job, what in zip(jobs, ("student edition", "instructor edition")[len(jobs) == 1 and
                                                                       bool(given):]):
        make_student.finish(job, what)

    problems = make_student.check_student_edition(student_html, instructor, src)
    assert not problems, "the student edition leaks or differs:\n" + "\n".join(problems[:40])
    assert (src is None or (src / make_student.ANSWER_HASHES).is_file())
    assert src is None or not (src / "lib/llm_arithmetic/teaching/answers.py").exists()
    with student_site(student_html, out / "chromium") as open_page:
        problems = browser_problems(student_html, open_page)
    assert not problems, "\n".join(problems)
