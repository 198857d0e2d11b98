"""Build the student edition: the whole book with every exercise and no solution (`make student`).

1. Stage: copy the files git tracks (`git ls-files`, nothing else: an untracked answer key or
   build output never reaches the student tree) to `_build/student/src/`, leaving out what only
   the maintainers run (tests/, .ci/, .github/, pytest.ini, nbval_sanitize.cfg) and the
   instructor's answers (lib/llm_arithmetic/teaching/answers.py), replaced by their salted hashes
   (answer_hashes.json, from `exercises.hash_table()`).
2. Strip: every notebook goes through `student_notebook()` (scripts/student_edition.py): cells
   tagged `solution` are dropped, or stubbed where they hold `### BEGIN SOLUTION` markers; every
   Markdown page loses its `{solution}` and `{solution-start}`...`{solution-end}` blocks. In
   the copied `_config.yml`, `hide_solutions` becomes true and `repository.branch` becomes
   `student`, so that the launch buttons (Binder, Colab) open the stripped notebooks of the
   `student` branch. `_build/student/src/` is that branch's tree: instructors push it there.
3. Build: the staged copy with `jupyter-book build -W -n --keep-going` (strict, like `make book`)
   into `_build/student/html/`; at the same time the instructor edition (the repository as it
   is) into `_build/student/instructor-html/`, to compare the two (or pass --instructor-html DIR
   to compare with an existing, up-to-date build such as `_build/html`).
4. Verify (`check_student_edition`), and fail on any problem:
   - no file of the staged sources or of the built site prints the answer of a checked exercise
     (`answer_leaks`: every answer rounded to 3 and 4 significant digits, with and without
     thousands separators, and exactly when whole, looked for as a number token), except in
     what a notebook measures on the machine that runs it (`without_measured`: the outputs of
     cells nbval ignores, and the values they glue), which differs from machine to machine;
   - no file of the staged sources or of the built site (pages, `_sources/` downloads, .ipynb,
     .md, search index) holds a solution: a title "Solution" in the search index, an element of
     class `solution` (sphinx-exercise's solution admonition) or `tag_solution` (a notebook cell
     tagged `solution`), an id `<doc>-solution-<n>` (sphinx-exercise's ids for unlabelled
     solutions), a notebook cell tagged `solution`, an nbgrader `### BEGIN SOLUTION` line, a
     `{solution...}` directive, or any line of the instructor edition's solutions (code and
     prose) that appears nowhere else in the book;
   - every exercise of the instructor edition is in the student edition, on the same page, with
     the same label, number and title ("Exercise 4.3 (title)"), and no other exercise.

Usage: `python scripts/make_student.py [--out _build/student] [--instructor-html DIR]
[--check-only]`. Exit status 0 when the edition is built and verified, 1 otherwise.
"""
from __future__ import annotations

import argparse
import html
import json
import math
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from student_edition import (BEGIN, END, cell_source, is_solution,  # noqa: E402
                             strip_solution_blocks, student_notebook)

REPO = Path(__file__).resolve().parents[1]
STUDENT_BRANCH = "student"
# Left out of the student tree: the maintainers' checks (nbval would fail on the stubs), and the
# workflows (.github/: they would run on the branch `student`, and GitHub refuses a push of
# workflow files with the token of the workflow that pushes the branch, student.yml).
#: locale/: the Chinese edition's catalogs quote every English string of the book, the solutions'
#: text included (the student edition is built in English only).
EXCLUDE_TOP = {"tests", ".ci", ".github", "_build", ".venv", ".git", "pytest.ini",
               "nbval_sanitize.cfg", "locale"}
#: Tracked files that only the instructor's copy has: the computed answers of the exercise
#: notebooks. The student tree gets ANSWER_HASHES (written by exercises.hash_table()) instead.
INSTRUCTOR_ONLY = {"lib/llm_arithmetic/teaching/answers.py"}
ANSWER_HASHES = Path("lib/llm_arithmetic/teaching/answer_hashes.json")
# A MyST directive opening (backticks, tildes or colons) of a solution.
SOLUTION_DIRECTIVE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,}|:{3,})[ \t]*\{solution(-start|-end)?\}",
                                   re.M)
MARKER_RE = re.compile(rf"^[ \t]*(?:{re.escape(BEGIN)}|{re.escape(END)})[ \t]*$", re.M)
SOLUTION_ID_RE = re.compile(r"-solution-\d+$")
TEXT_SUFFIXES = {".html", ".ipynb", ".md", ".txt", ".js", ".json", ".py", ".yml", ".yaml"}
MIN_SNIPPET = 25  # shortest solution line searched for as text (shorter lines occur by chance)


# ---------------------------------------------------------------------------------------------
# 1-2. Stage and strip

def source_files(repo: Path = REPO) -> list[Path]:
    """Files of the repository that the student tree carries, relative to `repo`: the files git
    tracks (`git ls-files`), and nothing else, less the maintainers' checks (EXCLUDE_TOP) and the
    instructor's answers (INSTRUCTOR_ONLY). An untracked file (a generated answer key, a build)
    can never reach the student tree."""
    try:
        out = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--cached"],
                             check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(f"{repo} is not a git checkout (git ls-files failed: {e}); the student "
                         "edition is built from tracked files only") from None
    files = [Path(p) for p in out.decode().split("\0") if p]
    return sorted(f for f in files if f.parts[0] not in EXCLUDE_TOP
                  and f.as_posix() not in INSTRUCTOR_ONLY
                  and "__pycache__" not in f.parts and ".ipynb_checkpoints" not in f.parts
                  and (repo / f).is_file())


def student_config(text: str) -> str:
    """The student `_config.yml`: `hide_solutions: true`, `repository.branch: student`.

    The file is edited as text so that its comments survive; the result is checked as YAML.
    """
    new, n_hide = re.subn(r"^(\s*hide_solutions:\s*)(false|False|no)\b", r"\g<1>true", text,
                          flags=re.M)
    new, n_branch = re.subn(r"^(repository:\s*\n(?:[ \t]+.*\n|\s*\n)*?[ \t]+branch:[ \t]*)\S+",
                            rf"\g<1>{STUDENT_BRANCH}", new, flags=re.M)
    if not n_branch:  # no branch given: add one under repository:
        new, n_branch = re.subn(r"^repository:[ \t]*\n",
                                f"repository:\n  branch: {STUDENT_BRANCH}\n", new, flags=re.M)
    config = yaml.safe_load(new)
    sphinx_config = (config.get("sphinx") or {}).get("config") or {}
    if sphinx_config.get("hide_solutions") is not True:
        if n_hide == 0 and "hide_solutions" not in sphinx_config:
            raise SystemExit("_config.yml: sphinx.config.hide_solutions is missing; add "
                             "`hide_solutions: false` there (the student edition turns it on)")
        raise SystemExit("_config.yml: could not set sphinx.config.hide_solutions to true")
    if (config.get("repository") or {}).get("branch") != STUDENT_BRANCH:
        raise SystemExit(f"_config.yml: could not set repository.branch to {STUDENT_BRANCH}")
    return new


def stage(src: Path, repo: Path = REPO, hash_iterations: int | None = None) -> dict[str, int]:
    """Copy the repository to `src` without solutions or answers; returns counts for the report.
    `hash_iterations` lowers the cost of the answer hashes (tests only)."""
    if src.exists():
        shutil.rmtree(src)
    counts = {"files": 0, "notebooks": 0, "pages": 0, "cells dropped": 0, "cells stubbed": 0}
    for rel in source_files(repo):
        dest = src / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        counts["files"] += 1
        if rel.suffix == ".ipynb":
            nb = nbformat.read(repo / rel, as_version=4)
            student = student_notebook(nb)
            tagged = sum(is_solution(c) for c in nb.cells)
            kept = len(student["cells"]) - (len(nb.cells) - tagged)
            counts["notebooks"] += 1
            counts["cells dropped"] += tagged - kept
            counts["cells stubbed"] += kept
            nbformat.write(nbformat.from_dict(student), dest)
        elif rel.suffix == ".md" and rel.parts[0] != "README.md":
            text = (repo / rel).read_text(encoding="utf8")
            stripped = strip_solution_blocks(text)
            counts["pages"] += stripped != text
            dest.write_text(stripped, encoding="utf8")
        elif rel.as_posix() == "_config.yml":
            dest.write_text(student_config((repo / rel).read_text(encoding="utf8")),
                            encoding="utf8")
        else:
            shutil.copy2(repo / rel, dest)
    from llm_arithmetic.teaching.exercises import hash_table

    table = hash_table(iterations=hash_iterations) if hash_iterations else hash_table()
    (src / ANSWER_HASHES).write_text(json.dumps(table, indent=1, sort_keys=True) + "\n",
                                     encoding="utf8")
    counts["answers hashed"] = len(table["answers"])
    return counts


# ---------------------------------------------------------------------------------------------
# 3. Build

def build(source: Path, html_out: Path, work: Path) -> subprocess.Popen:
    """Start `jupyter-book build source` (strict, as scripts/build_book.py builds) into `work`;
    `finish` moves its HTML."""
    if work.exists():
        shutil.rmtree(work)
    cmd = [sys.executable, str(REPO / "scripts" / "build_book.py"), "--path-output", str(work)]
    log = open(work.with_suffix(".log"), "w", encoding="utf8")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=source)
    proc.html_out, proc.work, proc.log_path = html_out, work, Path(log.name)
    return proc


def finish(proc: subprocess.Popen, what: str) -> Path:
    rc = proc.wait()
    if rc != 0:
        tail = proc.log_path.read_text(encoding="utf8", errors="replace").splitlines()[-40:]
        raise SystemExit(f"the {what} build failed (exit {rc}); log: {proc.log_path}\n"
                         + "\n".join(tail))
    if proc.html_out.exists():
        shutil.rmtree(proc.html_out)
    shutil.move(str(proc.work / "_build" / "html"), str(proc.html_out))
    shutil.rmtree(proc.work)
    return proc.html_out


# ---------------------------------------------------------------------------------------------
# 4. Verify

@dataclass(frozen=True)
class Exercise:
    page: str
    label: str
    title: str  # e.g. "Exercise 4.3 (Audit a calculator)"


class _PageParser(HTMLParser):
    """Exercises (label, title) and solution elements of one HTML page, plus its text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.exercises: list[tuple[str, str]] = []
        self.solutions: list[str] = []
        self.text: list[str] = []
        self._title: list[str] | None = None  # collecting an exercise's title
        self._want_title: str | None = None
        self._depth = 0
        self._skip = 0  # inside <script>/<style>

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        ident = a.get("id") or ""
        if tag in ("script", "style"):
            self._skip += 1
        if ("solution" in classes or "tag_solution" in classes
                or SOLUTION_ID_RE.search(ident) or ident == "solution-content"):
            self.solutions.append(f"<{tag} class={' '.join(classes)!r} id={ident!r}>")
        if "exercise" in classes and "admonition" in classes:
            self._want_title = ident
        elif self._want_title is not None and "admonition-title" in classes:
            self._title, self._depth = [], 0
        if self._title is not None:
            self._depth += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1
        if self._title is not None:
            self._depth -= 1
            if self._depth == 0:
                title = " ".join("".join(self._title).split())
                self.exercises.append((self._want_title, title))
                self._title, self._want_title = None, None

    def handle_data(self, data):
        if self._title is not None:
            self._title.append(data)
        if not self._skip:
            self.text.append(data)


#: Parsed pages shared by the checks of one build (path -> parser), so that a page the solution
#: scan has parsed is not parsed again for its exercises (check_student_edition passes one).
Parsed = dict[Path, _PageParser]


def exercises_in(html_root: Path, parsed: Parsed | None = None) -> dict[str, Exercise]:
    """Every exercise admonition of a build: label -> Exercise (page, label, title)."""
    found: dict[str, Exercise] = {}
    for page in sorted(html_root.rglob("*.html")):
        rel = page.relative_to(html_root)
        if rel.parts[0] in ("_static", "_sources", "zh_CN"):  # zh_CN/: the Chinese edition
            continue
        parser = (parsed or {}).get(page)
        if parser is None:
            parser = _PageParser()
            parser.feed(page.read_text(encoding="utf8", errors="replace"))
        for label, title in parser.exercises:
            key = label or f"{rel.as_posix()}#{len(found)}"
            found[key] = Exercise(rel.as_posix(), label, title)
    return found


def _cells(nb: dict) -> list[dict]:
    return nb.get("cells", [])


def solution_snippets(repo: Path = REPO) -> set[str]:
    """Lines of the instructor edition's solutions that appear nowhere else in the book's sources
    (whitespace collapsed, at least MIN_SNIPPET characters): their presence in the student edition
    means a solution leaked."""
    solution_lines, other_text = set(), []
    for rel in source_files(repo):
        if rel.suffix == ".ipynb":
            nb = json.loads((repo / rel).read_text(encoding="utf8"))
            for cell in _cells(nb):
                src = cell_source(cell)
                if "solution" in cell.get("metadata", {}).get("tags", []):
                    if BEGIN in src:  # only the marked region is the solution
                        src = "\n".join(re.findall(
                            rf"{re.escape(BEGIN)}\n(.*?)\n[ \t]*{re.escape(END)}", src, re.S))
                    solution_lines.update(src.splitlines())
                else:
                    other_text.append(src)
        elif rel.suffix == ".md":
            text = (repo / rel).read_text(encoding="utf8")
            kept = strip_solution_blocks(text)
            if kept != text:
                kept_lines = set(kept.splitlines())
                solution_lines.update(l for l in text.splitlines() if l not in kept_lines)
            other_text.append(kept)
    other = " ".join(" ".join(other_text).split())
    snippets = set()
    for line in solution_lines:
        line = " ".join(line.split())
        if (len(line) >= MIN_SNIPPET and line not in other and not SOLUTION_DIRECTIVE_RE.match(line)
                and not line.startswith(":class:")):
            snippets.add(line)
    return snippets


def _file_problems(path: Path, rel: str, snippets: set[str],
                   parsed: Parsed | None = None) -> list[str]:
    try:
        raw = path.read_text(encoding="utf8")
    except UnicodeDecodeError:
        return []
    problems = []
    if path.name == "searchindex.js":  # Sphinx's search index: solution boxes are titled there
        try:
            index = json.loads(raw[raw.index("(") + 1:raw.rindex(")")])
        except ValueError:
            return [f"{rel}: unreadable search index"]
        titles = [t for t in index.get("alltitles", {}) if re.match(r"Solution\b", t)]
        if titles:
            problems.append(f"{rel}: solution titles in the search index: {titles[:3]}")
        return problems
    if path.suffix == ".html":
        parser = _PageParser()
        parser.feed(raw)
        if parsed is not None:
            parsed[path] = parser
        if parser.solutions:
            problems.append(f"{rel}: {len(parser.solutions)} solution element(s), e.g. "
                            f"{parser.solutions[:2]}")
        text = "".join(parser.text)
    elif path.suffix == ".ipynb":
        try:
            nb = json.loads(raw)
        except json.JSONDecodeError:
            return [f"{rel}: not a notebook (invalid JSON)"]
        tagged = [i for i, c in enumerate(_cells(nb))
                  if "solution" in c.get("metadata", {}).get("tags", [])]
        if tagged:
            problems.append(f"{rel}: cells {tagged[:5]} are tagged `solution`")
        text = "\n".join(cell_source(c) for c in _cells(nb))
    else:
        text = raw
    if path.suffix in (".html", ".ipynb", ".md", ".txt"):
        if SOLUTION_DIRECTIVE_RE.search(text):
            problems.append(f"{rel}: a {{solution}} directive: "
                            f"{SOLUTION_DIRECTIVE_RE.search(text).group(0).strip()!r}")
        if MARKER_RE.search(text):
            problems.append(f"{rel}: an nbgrader solution marker ({BEGIN!r} on a line of its own)")
        flat = " ".join(html.unescape(text).split())
        leaked = sorted(s for s in snippets if s in flat)
        if leaked:
            problems.append(f"{rel}: {len(leaked)} line(s) of a solution, e.g. {leaked[0]!r}")
    return problems


# A number as prose, tables and code print it: digits with optional thousands separators and
# decimals, not glued to a word, a dot or another number (so "a269f" or "1.2.3" do not count).
NUMBER_RE = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?")
# Long runs of letters and digits (hashes, base64 images, ids) hold digit runs by chance.
OPAQUE_RE = re.compile(r"[A-Za-z0-9+/=_-]{20,}")


def answer_forms(value: float) -> set[str]:
    """The ways a text may print `value`: rounded to 3 and to 4 significant digits, with and
    without thousands separators, and, for a whole number, exactly.

    >>> sorted(answer_forms(1234.56))
    ['1,230', '1,235', '1230', '1235']
    >>> sorted(answer_forms(0.0123456))
    ['0.0123', '0.01235']
    >>> sorted(answer_forms(45678))
    ['45,678', '45,680', '45,700', '45678', '45680', '45700']
    """
    forms = set()
    if value == 0 or not math.isfinite(value):
        return forms
    value = abs(value)
    for sig in (3, 4):
        decimals = sig - 1 - math.floor(math.log10(value))
        rounded = round(value, decimals)
        d = max(0, decimals)
        forms |= {f"{rounded:.{d}f}", f"{rounded:,.{d}f}"}
    if float(value).is_integer():
        forms |= {f"{int(value)}", f"{int(value):,}"}
    return forms


def numbers_in(text: str) -> set[str]:
    """Every number token of `text` (see NUMBER_RE), opaque runs removed first."""
    text = OPAQUE_RE.sub(lambda m: m.group(0) if not (re.search(r"\d", m.group(0)) and
                                                      re.search(r"[A-Za-z]", m.group(0)))
                         else " ", text)
    return {t.rstrip(",") for t in NUMBER_RE.findall(text)}


# Section, caption and equation numbers of a build ("2.3. Title", "Exercise 2.3", "Fig. 2.1",
# "(2.3)"), in the headings, the navigation, equations and the references to them ("Table 2.1",
# "(2.3)"): they number the book's parts, they are not quantities.
SECTION_NUMBER_RE = re.compile(r'<span class="(?:section|caption)-number">[^<]*</span>'
                               r'|<span class="eqno">\(\d+(?:\.\d+)*\)'
                               r'|<span class="std std-numref">[^<]*</span>'
                               r'|(?<=>)\(\d+(?:\.\d+)*\)(?=</a>)'
                               r'|(?<=>)\s*\d+(?:\.\d+)*\.\s')


#: The printed text of an SVG diagram (book/_static/diagrams/): its <title> and <text> elements.
SVG_TEXT_RE = re.compile(r"<(?:text|title)\b[^>]*>([^<]*)</(?:text|title)>")
#: A formula typeset at build time (tools/sphinx_static_math.py): MathJax's drawing, whose
#: numbers are its geometry (widths and offsets in em, in its style attributes), not what it
#: prints; what it prints is in the MathML beside it (``<mjx-assistive-mml>``), which is scanned.
TYPESET_DRAWING_RE = re.compile(r"<mjx-math\b.*?</mjx-math>", re.S)


def _index_titles(raw: str) -> str:
    """The titles in Sphinx's search index. Its terms are the pages' words, which the scan of the
    pages covers whole; Sphinx splits "0.193" and "1,193" into terms, so a term alone is a
    fragment of a number, not a number."""
    try:
        index = json.loads(raw[raw.index("(") + 1:raw.rindex(")")])
    except ValueError:
        return raw
    titles = list(index.get("titles", [])) + list(index.get("alltitles", {}))
    return "\n".join(SECTION_NUMBER_RE.sub(" ", f">{t}") for t in titles)


#: Pages that print, for another quantity, a number equal to a checked answer at 3 or 4
#: significant digits: (label, the page's file stem) -> what the page prints there. Each entry was
#: read on its page (the numbers are not repeated here: this file is in the student tree); the
#: same answer anywhere else is still a leak. An entry that no longer excuses a number (a value
#: moved) is reported by check_student_edition, so that the list keeps only what is true.
COINCIDENCES: dict[tuple[str, str], str] = {
    ("ex-nb-params-mixtral-top3", "08-modern-architectures"):
        "Nemotron 3 Ultra's active parameters with the input embedding table (table "
        "tbl-modern-current), not Mixtral 8x22B with three experts a token",
    ("ex-nb-params-mixtral-top3", "models"):
        "the same Nemotron 3 Ultra count, in its entry's published-count source",
    ("ex-nb-params-mixtral-top3", "compiled"):
        "the same entry, in the catalog compiled to JSON",
    ("ex-nb-calibration-speculative-room", "17b-forecast"):
        "the speculative forecast over the plain forecast for chapter 13's pair (glue "
        "spec_gain_cost, equal to it since the build drift's refit), not a bound over a measured "
        "speed",
    ("ex-nb-specs-b200-fp4", "08-modern-architectures"):
        "the GB of DeepSeek-V3's weights that a decode step of 64 tokens reads (glue v3_b64_gb)",
    ("ex-nb-params-gemma1b-embedding", "08-modern-architectures"):
        "a column of the chapter's table of mixtures of experts (the Phi-3.5-MoE row)",
    ("ex-nb-puzzle-5090-ratio", "formats"):
        "the bits per weight of one llama.cpp file type for Llama 2 7B, to four digits (a "
        "weight format's example)",
    ("ex-nb-puzzle-5090-ratio", "compiled"):
        "the same example, in the catalog compiled to JSON",
    ("ex-nb-batch-l40s-fit", "13-speculative-decoding"):
        "a published measurement: TensorRT-LLM's DeepSeek-R1 tokens/s per user on 8 H200s "
        "(table tbl-spec-mtp)",
    ("ex-nb-puzzle-5090-ratio", "runtime_README"):
        "the bits per weight of a Q6_K file of Llama 2 7B's shapes, from llama.cpp's CI log "
        "(the V100 rows' provenance)",
    ("ex-nb-roofline-l40s-prefill-regime", "runtime_README"):
        "the parameter count llama-bench prints for Qwen3 4B, a search string of the "
        "third data pass, not a time",
    ("ex-nb-puzzle-5090-ratio", "runtime_measurements"):
        "the same bits per weight, in the V100 rows of the data",
    ("ex-nb-puzzle-qwen3-bytes", "model-table"):
        "the GB of Qwen3 4B's weights as the checkpoint ships (table tbl-models-memory), not the "
        "bytes a step of Qwen3 8B in Q8_0 reads",
    ("ex-nb-mistakes-moe-qwen", "model-table"):
        "the GB of Llama 3.2 3B's weights as the checkpoint ships (table tbl-models-memory), not "
        "a ratio of Phi-3.5-MoE's parameters",
    ("ex-nb-serving-little", "engines"):
        "the attention block size in tokens vLLM 0.19 sets for Qwen3.5-27B (vLLM issue 40691's "
        "log, quoted in a hybrid rule)",
    ("ex-nb-serving-little", "compiled"):
        "the same block size, in the catalog compiled to JSON",
    ("ex-nb-parallel-ring", "model-table"):
        "the GiB of Llama-3.3-Nemotron-Super-49B's KV cache at 131,072 tokens (table "
        "tbl-models-memory), not an all-reduce time in microseconds",
    ("ex-nb-batch-qwen-moe-experts", "hardware-table"):
        "the dense 16-bit tensor rate in TFLOP/s of one GeForce card of the catalog (the RTX 5070 "
        "Ti, derived from its AI TOPS), not a count of experts",
    ("ex-nb-batch-qwen-moe-experts", "hardware"):
        "the same rate, in the catalog's data file",
    ("ex-nb-modern-nemotron-24", "08-modern-architectures"):
        "the GB a decoded token of Qwen2.5 3B reads at a 128K context (the chapter's table of "
        "current models), not a state-space state",
    ("ex-nb-prefill-ttft-tp4", "21-repro-zeux"):
        "the percent of a decode step Kapoulkine's production example spends in attention (the "
        "reproduction's table and its glue), not a time to first token in milliseconds",
    ("ex-nb-prefill-ttft-tp4", "errata"):
        "the same percent, in the errata's copy of that row",
    ("ex-nb-flops-olmo-token", "19-repro-karpathy"):
        "the batch-1 bound in tokens/s of Llama 2 70B in Q4_0 on the M5 Max (table "
        "tbl-karpathy-today), not OLMo's FLOPs per token",
    ("ex-nb-roofline-l40s-prefill", "19-repro-karpathy"):
        "the M5 Max's dense fp16 rate in TFLOP/s, the catalog's third-party estimate (table "
        "tbl-karpathy-today), not a prefill time",
    ("ex-nb-kv-falcon-mqa", "08-modern-architectures"):
        "the GB a decoded token of LLaVA-1.5 7B reads at a 128K context, beyond its trained "
        "context (the chapter's table of current models), not Falcon 7B's cache in MB",
}


def _coincidence(label_list: list[str], rel: str, used: set | None = None) -> bool:
    stem = Path(rel).name.split(".")[0]
    listed = all((label, stem) in COINCIDENCES for label in label_list)
    if listed and used is not None:
        used.update((label, stem) for label in label_list)
    return listed


def printed_answers(numbers: set[str], forms: dict[str, list[str]]) -> set[str]:
    """The answer forms among `numbers`: a number printed as an answer form, or printed with
    five or more significant digits that round to one at four (a table's "193.27" prints the
    answer 193.3 and more).

    >>> sorted(printed_answers({"98.765", "7,654.32", "12", "98.78"}, {"98.77": [], "7,654": []}))
    ['7,654', '98.77']
    """
    found = numbers & forms.keys()
    for token in numbers - found:
        digits = token.replace(",", "").replace(".", "").lstrip("0")
        if len(digits) < 5:
            continue
        four = {f for f in answer_forms(float(token.replace(",", ""))) if _sig(f) == 4}
        found |= four & forms.keys()
    return found


def _sig(form: str) -> int:
    """Significant digits of a printed rounding (trailing zeros of a whole number count, as
    answer_forms writes 45,680 for 4 digits)."""
    return len(form.replace(",", "").replace(".", "").lstrip("0"))


#: How a notebook marks a cell whose output is measured on the machine that runs it (the
#: measurement lab's bandwidths and timings): nbval's tag, or its comment on the cell's first lines
#: (book/STYLE.md). Such an output differs from machine to machine, so a number there equal to an
#: answer is a coincidence no list can hold; the rest of the page is scanned as any other.
MEASURED_TAG = "nbval-ignore-output"
MEASURED_COMMENT_RE = re.compile(r"^[ \t]*#[ \t]*NBVAL_IGNORE_OUTPUT\b", re.M)
#: A glued text in a notebook's Markdown: {glue:text}`key` or {glue:text}`key:format`.
GLUE_TEXT_RE = re.compile(r"\{glue:text\}`([^`]+)`")
#: The output of a notebook cell tagged as measured, as MyST-NB writes the cell into a page.
MEASURED_CELL_RE = re.compile(rf'<div class="cell\b[^"]*\btag_{MEASURED_TAG}\b[^"]*">')
CELL_OUTPUT_RE = re.compile(r'<div class="cell_output\b[^"]*">')
DIV_RE = re.compile(r"<div\b[^>]*>|</div>")
PASTED_TEXT_RE = re.compile(r'<span class="pasted-text">([^<]*)</span>')


def is_measured(cell: dict) -> bool:
    """A code cell whose output nbval ignores: measured on the machine that runs it."""
    return cell.get("cell_type") == "code" and (
        MEASURED_TAG in cell.get("metadata", {}).get("tags", [])
        or bool(MEASURED_COMMENT_RE.search(cell_source(cell))))


def measured_glue(nb: dict) -> dict[str, str]:
    """The values the measured cells of a notebook glue: key -> text/plain of the record."""
    found = {}
    for cell in _cells(nb):
        if not is_measured(cell):
            continue
        for out in cell.get("outputs", []):
            scrap = out.get("metadata", {}).get("scrapbook", {})
            plain = out.get("data", {}).get(scrap.get("mime_prefix", "") + "text/plain")
            if scrap.get("name") and plain is not None:
                found[scrap["name"]] = "".join(plain) if isinstance(plain, list) else plain
    return found


def measured_pasted_texts(nb: dict) -> list[str]:
    """What each {glue:text} role of a measured value prints on the page (MyST-NB's own
    formatting), once per role."""
    from myst_nb.core.variables import format_plain_text

    values, texts = measured_glue(nb), []
    for cell in _cells(nb):
        if cell.get("cell_type") != "markdown":
            continue
        for role in GLUE_TEXT_RE.findall(cell_source(cell)):
            key, _, spec = role.partition(":")
            if key in values:
                texts.append(format_plain_text(values[key], spec))
    return texts


def _element_end(text: str, start: int) -> int:
    """The end of the <div> that opens at `start` (its matching </div> included)."""
    depth = 0
    for m in DIV_RE.finditer(text, start):
        depth += 1 if m.group(0) != "</div>" else -1
        if depth == 0:
            return m.end()
    return len(text)


def _page_notebook(path: Path, root: Path) -> dict | None:
    """The notebook a built page (.html) or its glue file (.glue.json) comes from: its copy in
    the build (_sources/, jupyter_execute/) or beside it; None for a page of Markdown."""
    rel = path.relative_to(root)
    stem = rel.name.split(".")[0]
    for nb_path in (root / "_sources" / rel.parent / f"{stem}.ipynb",
                    root / "jupyter_execute" / rel.parent / f"{stem}.ipynb",
                    path.parent / f"{stem}.ipynb"):
        if nb_path.is_file():
            try:
                return json.loads(nb_path.read_text(encoding="utf8"))
            except (json.JSONDecodeError, UnicodeDecodeError):
                return None
    return None


def without_measured(path: Path, root: Path, text: str) -> str:
    """`text` of the file at `path` less what its notebook measured on the machine that ran it:
    a notebook's measured outputs, a built page's outputs of cells tagged measured and the
    glued measured values in its prose, a glue file's measured values. Everything else is kept
    (the code of those cells, the prose, the other outputs)."""
    if path.suffix == ".ipynb":
        try:
            nb = json.loads(text)
        except json.JSONDecodeError:
            return text
        if not any(is_measured(c) for c in _cells(nb)):
            return text
        for cell in _cells(nb):
            if is_measured(cell):
                cell["outputs"] = []
        return json.dumps(nb, ensure_ascii=False)
    if path.suffix != ".html" and not path.name.endswith(".glue.json"):
        return text
    nb = _page_notebook(path, root)
    if nb is None or not any(is_measured(c) for c in _cells(nb)):
        return text
    if path.name.endswith(".glue.json"):
        try:
            glue = json.loads(text)
        except json.JSONDecodeError:
            return text
        measured = measured_glue(nb)
        return json.dumps({k: v for k, v in glue.items() if k not in measured},
                          ensure_ascii=False)
    cuts = []  # (start, end) of the outputs of the measured cells
    for cell in MEASURED_CELL_RE.finditer(text):
        end = _element_end(text, cell.start())
        for out in CELL_OUTPUT_RE.finditer(text, cell.end(), end):
            if not cuts or out.start() >= cuts[-1][1]:
                cuts.append((out.start(), _element_end(text, out.start())))
    for start, end in reversed(cuts):
        text = text[:start] + " " + text[end:]
    pasted = measured_pasted_texts(nb)  # each glued measured value, once per role

    def unglue(m: re.Match) -> str:
        if m.group(1) in pasted:
            pasted.remove(m.group(1))
            return " "
        return m.group(0)
    return PASTED_TEXT_RE.sub(unglue, text)


def answer_leaks(root: Path, answers: dict[str, float], skip: tuple[str, ...] = (),
                 used: set | None = None) -> list[str]:
    """Every text file under `root` that prints an answer value (answer_forms) as a number,
    except under the folders `skip` (paths relative to `root`), the COINCIDENCES, and what a
    notebook measured on the machine that ran it (`without_measured`). The coincidences that
    excused a number are added to `used` when given."""
    forms = {}
    for label, value in answers.items():
        for f in answer_forms(value):
            forms.setdefault(f, []).append(label)
    problems = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or any(path.relative_to(root).as_posix().startswith(f"{k}/")
                                     for k in skip):
            continue
        try:
            text = path.read_text(encoding="utf8")
        except (UnicodeDecodeError, OSError):
            continue  # a binary file (an image) prints no number
        text = without_measured(path, root, text)
        if path.suffix == ".html":
            text = TYPESET_DRAWING_RE.sub(" ", text)
            text = html.unescape(SECTION_NUMBER_RE.sub(" ", text))
        elif path.name == "searchindex.js":
            text = _index_titles(text)
        elif path.suffix == ".svg":  # a diagram: what it prints is its text, not its geometry
            text = html.unescape(" ".join(SVG_TEXT_RE.findall(text)))
        rel = path.relative_to(root).as_posix()
        hits = sorted(h for h in printed_answers(numbers_in(text), forms)
                      if not _coincidence(forms[h], rel, used))
        if hits:
            problems += [f"{rel}: prints {h!r}, the answer of {', '.join(forms[h])}" for h in hits]
    return problems


def checked_answers() -> dict[str, float]:
    """Every checked answer of the exercise notebooks (the instructor's copy computes them)."""
    from llm_arithmetic.teaching.exercises import answer_for, labels

    return {label: answer_for(label) for label in labels()}


def solution_problems(root: Path, snippets: set[str] = frozenset(),
                      parsed: Parsed | None = None) -> list[str]:
    """Every file under `root` (a built site or a staged tree) that holds a solution; the HTML
    pages it parses go into `parsed` when given."""
    problems = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and (path.suffix in TEXT_SUFFIXES):
            problems += _file_problems(path, path.relative_to(root).as_posix(), snippets,
                                       parsed)
    return problems


def exercise_problems(student_html: Path, instructor_html: Path,
                      parsed: Parsed | None = None) -> tuple[list[str], int]:
    """Differences between the exercises of the two builds; and how many exercises there are."""
    teacher = exercises_in(instructor_html)
    student = exercises_in(student_html, parsed)
    problems = []
    for key, ex in teacher.items():
        got = student.get(key)
        if got is None:
            problems.append(f"{ex.page}: exercise {ex.label or key} ({ex.title}) is missing")
        elif got != ex:
            problems.append(f"{ex.label or key}: instructor edition {ex.page} {ex.title!r}, "
                            f"student edition {got.page} {got.title!r}")
    for key in student.keys() - teacher.keys():
        problems.append(f"{student[key].page}: exercise {key} is not in the instructor edition")
    return problems, len(teacher)


def check_student_edition(student_html: Path, instructor_html: Path | None = None,
                          staged: Path | None = None, repo: Path = REPO) -> list[str]:
    """All problems of a student edition (empty: none). See the module docstring."""
    if not (student_html / "index.html").is_file():
        return [f"no student edition at {student_html} (index.html missing)"]
    snippets = solution_snippets(repo)
    answers = checked_answers()
    # _static/ of a build holds the theme's files and MathJax's fonts (numbers by the
    # thousand) and copies of book/_static, which the staged sources' scan covers
    parsed: Parsed = {}  # the student pages, parsed once for solutions and exercises
    used: set = set()  # the coincidences that excused a number
    problems = (solution_problems(student_html, snippets, parsed)
                + answer_leaks(student_html, answers, skip=("_static",), used=used))
    if staged is not None:
        problems += [f"staged sources: {p}" for p in
                     solution_problems(staged, snippets)
                     # the diagrams' drawing code: its numbers are coordinates, and what it
                     # prints is scanned in the SVGs it draws (their text and titles)
                     + answer_leaks(staged, answers, skip=("book/_scripts",), used=used)]
        # both scans read every file: a listed coincidence that excused nothing is stale
        problems += [f"COINCIDENCES lists {key} but that file no longer prints the answer: "
                     "remove the entry" for key in sorted(set(COINCIDENCES) - used)]
    if instructor_html is not None:
        diff, n = exercise_problems(student_html, instructor_html, parsed)
        problems += diff
        if n == 0:
            problems.append(f"no exercise found in the instructor edition {instructor_html}")
    return problems


# ---------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "_build" / "student",
                    help="output folder (default _build/student): html/ and src/ go there")
    ap.add_argument("--instructor-html", type=Path,
                    help="an up-to-date instructor build to compare with (e.g. _build/html after "
                         "`make book`); by default the instructor edition is built afresh")
    ap.add_argument("--check-only", action="store_true",
                    help="only verify an existing OUT/html (against --instructor-html if given)")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    html_dir, src = out / "html", out / "src"
    started = time.monotonic()
    instructor = args.instructor_html.resolve() if args.instructor_html else None

    if not args.check_only:
        counts = stage(src)
        print(f"staged {counts['files']} files in {src}: {counts['notebooks']} notebooks "
              f"({counts['cells dropped']} solution cells dropped, {counts['cells stubbed']} "
              f"stubbed), {counts['pages']} Markdown page(s) stripped, "
              f"{counts['answers hashed']} answers hashed")
        print("building the student edition"
              + ("" if instructor else " and, to compare with, the instructor edition")
              + " (jupyter-book, strict) ...", flush=True)
        jobs = [build(src, html_dir, out / "student-work")]
        if instructor is None:
            instructor = out / "instructor-html"
            jobs.append(build(REPO, instructor, out / "instructor-work"))
        finish(jobs[0], "student edition")
        if len(jobs) > 1:
            finish(jobs[1], "instructor edition")

    problems = check_student_edition(html_dir, instructor, None if args.check_only else src)
    n = len(exercises_in(html_dir)) if html_dir.is_dir() else 0
    if problems:
        print(f"the student edition at {html_dir} FAILS its checks:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    compared = f", the same exercises as {instructor}" if instructor else ""
    print(f"{'checked' if args.check_only else 'built and checked'} in "
          f"{time.monotonic() - started:.0f} s: no solution and no checked answer in any "
          f"file{compared} ({n} exercises)")
    print(f"The student edition is at file://{html_dir}/index.html")
    if not args.check_only:
        print(f"Its sources (for the `{STUDENT_BRANCH}` branch the launch buttons open): {src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
