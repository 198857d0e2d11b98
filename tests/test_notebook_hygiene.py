"""Notebook and exercise hygiene: what Binder, Colab, nbval and the student edition rely on.

Notebooks (notebooks/**/*.ipynb):
- the first code cell is the Colab guard: only when the package is missing, it installs the
  release `llm-arithmetic==<__version__>` by name, or else the repository of `_config.yml`
  (scripts/sync_metadata.py writes it), is tagged `remove-cell` (hidden in the book)
  and has no outputs (it is a no-op wherever the package is installed);
- the kernelspec is `python3` (editors write venv names that break Binder and the build);
- outputs are stored: the code cells were executed top to bottom in one kernel (execution
  counts 1, 2, 3, ...), as scripts/regenerate_outputs.sh leaves them, and nbval has something
  to compare;
- no stored output carries a float with more than 10 significant digits: not a printed number,
  not a table, not a glue record (`application/papermill.record/*`, which nbval compares too).
  The last bits of a BLAS or libm result differ between CPUs, so such an output fails nbval on
  another machine. Round to the digits a reader needs: `llm_arithmetic.book.display.glue`
  stores a float with 6 significant digits (more with `digits=`).

Exercises (sphinx-exercise) in notebooks and in book/ pages (design.md section 3,
book-engineering.md section 5.8):
- every exercise has a label `ex-<chapter>-<slug>`, unique across the whole book;
- every solution names an exercise that comes before it in the same document, and is a
  collapsed dropdown (`:class: dropdown`);
- in notebooks, the student edition drops the cells tagged `solution`, so: every cell from a
  `solution-start` to its `solution-end` (both included), and every cell holding a `{solution}`
  directive, is tagged `solution`; a cell tagged `solution` holds only solution material (no
  exercise, nothing outside a solution).
"""
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import sync_metadata  # noqa: E402  (the Colab guard's text, from _config.yml and __version__)
PACKAGE = "llm_arithmetic"
NOTEBOOKS = sorted(p for p in (REPO / "notebooks").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)
BOOK_PAGES = sorted((REPO / "book").rglob("*.md")) + sorted((REPO / "book").rglob("*.ipynb"))
LABEL_RE = re.compile(r"^ex-[a-z0-9]+(-[a-z0-9]+)+$")
# A MyST directive opening: ```{name} argument (backticks, tildes or, with colon_fence, colons).
DIRECTIVE_RE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\{([\w-]+)\}[ \t]*(.*?)\s*$")
EXERCISE_KINDS = ("exercise", "exercise-start")
SOLUTION_KINDS = ("solution", "solution-start")


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf8"))


def repository_url() -> str:
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf8"))
    return config["repository"]["url"].rstrip("/")


def directives(text: str):
    """(name, argument, options) of each MyST directive opened in `text`, in order."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = DIRECTIVE_RE.match(line)
        if not m:
            continue
        name, argument, options = m.group(2), m.group(3), {}
        j = i + 1
        if j < len(lines) and lines[j].strip() == "---":  # YAML block of options
            block = []
            j += 1
            while j < len(lines) and lines[j].strip() != "---":
                block.append(lines[j])
                j += 1
            options = {str(k): str(v) for k, v in (yaml.safe_load("\n".join(block)) or {}).items()}
        else:
            while j < len(lines) and (opt := re.match(r"^\s*:([\w-]+):\s*(.*?)\s*$", lines[j])):
                options[opt.group(1)] = opt.group(2)
                j += 1
        yield name, argument, options


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks under notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_first_code_cell_is_the_colab_guard(path):
    cells = [c for c in load(path)["cells"] if c["cell_type"] == "code"]
    assert cells, f"{rel(path)} has no code cell"
    guard, src = cells[0], source(cells[0])
    settings = sync_metadata.Settings(REPO)
    expected = sync_metadata.colab_guard(settings)
    hint = (f"the first code cell of {rel(path)} must be the Colab guard, exactly:\n{expected}\n"
            "(`make metadata` writes it)")
    assert re.search(rf"importlib\.util\.find_spec\(['\"]{PACKAGE}['\"]\) is None", src), hint
    assert re.search(r"^\s+[%!].*pip\b.* install\b", src, re.M), hint
    assert f'"llm-arithmetic=={settings.version}"' in src, (
        f"{rel(path)}: the guard must install the release of the package's version "
        f"({settings.version}) by name; it says:\n{src}\n(`make metadata` writes it)")
    assert f"git+{repository_url()}" in src, (
        f"{rel(path)}: the guard's fallback must install from repository.url of _config.yml "
        f"({repository_url()}); it says:\n{src}\n(`make metadata` writes it)")
    assert src == expected, hint
    assert "remove-cell" in tags(guard), (
        f"{rel(path)}: tag the guard cell `remove-cell` so the book hides it (tags: {tags(guard)})")
    assert not guard.get("outputs"), (
        f"{rel(path)}: the guard cell has outputs; it must be a no-op where the package is "
        "installed (regenerate outputs with `make outputs`)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_kernelspec_is_python3(path):
    spec = load(path).get("metadata", {}).get("kernelspec", {})
    assert spec.get("name") == "python3", (
        f"{rel(path)}: kernelspec name is {spec.get('name')!r}; set it to 'python3' "
        "(metadata.kernelspec.name)")
    assert spec.get("language", "python") == "python"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_outputs_are_stored(path):
    code = [c for c in load(path)["cells"] if c["cell_type"] == "code" and source(c).strip()]
    counts = [c.get("execution_count") for c in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{rel(path)}: the code cells were not run top to bottom in one kernel, or their outputs "
        f"were stripped (execution counts {counts}); run `make outputs` "
        "(scripts/regenerate_outputs.sh)")
    assert any(c.get("outputs") for c in code), f"{rel(path)}: no stored output at all"


# A decimal number as printed: digits with a point (and maybe an exponent), not part of a longer
# token (a version 1.2.3, an address 127.0.0.1, an identifier). Integers are exact: not counted.
DECIMAL_RE = re.compile(r"(?<![\w.])(\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")
MAX_SIGNIFICANT_DIGITS = 10


def significant_digits(number: str) -> int:
    """Significant digits of a printed decimal; trailing zeros count (`.12f` prints them).

    >>> [significant_digits(s) for s in ("2.621626987410462", "0.0012", "1.50", "2.5e+20")]
    [16, 2, 3, 2]
    """
    mantissa = re.split(r"[eE]", number)[0]
    return len(mantissa.replace(".", "").lstrip("0"))


def output_texts(output):
    """(kind, text) of each textual part of a stored output: stream text, every non-image MIME
    type of display data and results (glue records included)."""
    def text(value):
        if isinstance(value, str):
            return value
        return "".join(value) if isinstance(value, list) else json.dumps(value)

    if output.get("output_type") == "stream":
        yield f"stream {output.get('name', '')}", text(output.get("text", ""))
    for mime, value in (output.get("data") or {}).items():
        if not mime.startswith("image/"):
            yield mime, text(value)


def long_floats(text: str) -> list[str]:
    return [m.group(0) for m in DECIMAL_RE.finditer(text)
            if significant_digits(m.group(0)) > MAX_SIGNIFICANT_DIGITS]


def test_long_float_detection():
    """The check below finds what broke a fresh clone, and leaves exact and short numbers."""
    assert long_floats("2.621626987410462") == ["2.621626987410462"]
    assert long_floats("x = 0.30000000000000004 s") == ["0.30000000000000004"]
    assert long_floats("np.float64(1.234567890)") == []  # 10 digits: allowed
    assert long_floats("1.23456789012e-05") == ["1.23456789012e-05"]
    assert long_floats("70,553,706,496 bytes, 12.6 GB, sympy 1.14.0, 127.0.0.1") == []
    assert long_floats("| 1.0000000000 |") == ["1.0000000000"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_no_float_printed_at_full_precision(path):
    problems = []
    for i, cell in enumerate(load(path)["cells"]):
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            for kind, text in output_texts(output):
                for number in long_floats(text):
                    where = f"glue {name!r}" if name else kind
                    problems.append(f"cell {i} ({where}): {number}")
    assert not problems, (
        f"{rel(path)}: outputs with more than {MAX_SIGNIFICANT_DIGITS} significant digits; the "
        "last bits differ between CPUs and nbval then fails on another machine. Round them to "
        "the digits a reader needs (llm_arithmetic.book.display.glue keeps 6), then run "
        "scripts/regenerate_outputs.sh:\n" + "\n".join(problems[:20])
        + (f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""))


def book_documents():
    """(path, [(cell index or None, cell tags, text), ...]) for every notebook and book page."""
    for path in NOTEBOOKS + BOOK_PAGES:
        if path.suffix == ".ipynb":
            cells = [(i, tags(c), source(c)) for i, c in enumerate(load(path)["cells"])
                     if c["cell_type"] == "markdown"]
        else:
            cells = [(None, [], path.read_text(encoding="utf8"))]
        yield path, cells


def test_exercises_and_solutions():
    problems, labels = [], {}
    for path, cells in book_documents():
        doc = rel(path)
        seen_here = set()
        for index, _tags, text in cells:
            where = doc if index is None else f"{doc} cell {index}"
            for name, argument, options in directives(text):
                if name in EXERCISE_KINDS:
                    label = options.get("label")
                    if not label:
                        problems.append(f"{where}: {{{name}}} without a :label:")
                        continue
                    if not LABEL_RE.match(label):
                        problems.append(f"{where}: label {label!r} is not ex-<chapter>-<slug>")
                    if label in labels:
                        problems.append(f"{where}: label {label!r} already used in {labels[label]}")
                    labels.setdefault(label, where)
                    seen_here.add(label)
                elif name in SOLUTION_KINDS:
                    if not argument:
                        problems.append(f"{where}: {{{name}}} names no exercise")
                    elif argument not in seen_here:
                        problems.append(f"{where}: {{{name}}} {argument}: no exercise with that "
                                        "label before it in this document")
                    classes = options.get("class", "").split()
                    if "dropdown" not in classes:
                        problems.append(f"{where}: {{{name}}} {argument} is not collapsed: add "
                                        "`:class: dropdown`")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_solution_cells_are_tagged(path):
    problems = []
    inside = None  # index of the open solution-start cell
    for i, cell in enumerate(load(path)["cells"]):
        names = [d[0] for d in directives(source(cell))] if cell["cell_type"] == "markdown" else []
        tagged = "solution" in tags(cell)
        starts, ends = names.count("solution-start"), names.count("solution-end")
        if starts and inside is not None:
            problems.append(f"cell {i}: solution-start inside the solution opened in cell {inside}")
        if starts:
            inside = i
        in_solution = inside is not None or ends > 0 or "solution" in names
        if in_solution and not tagged:
            if any(n in EXERCISE_KINDS for n in names):
                problems.append(f"cell {i}: an exercise and its solution in one cell: move the "
                                "solution to a cell of its own tagged `solution` (the student "
                                "edition drops the cells tagged `solution`)")
            else:
                problems.append(f"cell {i}: solution material not tagged `solution` (the "
                                "student edition would keep it)")
        # an nbgrader-style cell (notebooks/exercises/): the student edition keeps it and
        # replaces what lies between the markers by a stub, so it needs no solution-start
        marked = cell["cell_type"] == "code" and "### BEGIN SOLUTION" in source(cell)
        if tagged and not in_solution and not marked:
            problems.append(f"cell {i}: tagged `solution` outside any solution (the student "
                            "edition would drop it)")
        if tagged and any(n in EXERCISE_KINDS for n in names):
            problems.append(f"cell {i}: tagged `solution` but holds an exercise (the student "
                            "edition would drop the exercise): put the solution in a cell of its own")
        if ends:
            if inside is None:
                problems.append(f"cell {i}: solution-end without solution-start")
            inside = None
    if inside is not None:
        problems.append(f"cell {inside}: solution-start never ended (solution-end)")
    assert not problems, f"{rel(path)}:\n" + "\n".join(problems)
