"""No hand-typed computed number in the book's prose.

The book's rule (design notes, principle 1): a number the package computes reaches the prose
through myst-nb's ``glue``, never typed. This test reads every Markdown cell of notebooks/
(chapters, reproductions, labs, exercise notebooks) and every page of book/, removes what is
not a quantity by the rules below, and fails on any digit that is left unless the page's entry
in ``tests/typed_numbers.yml`` explains it.

Removed before looking for digits (each rule is a regular expression below, with its reason):

* glued values, MyST roles (``{ref}``, ``{doc}``, ``{cite:p}``, ...), inline code and fenced code
  blocks (catalog keys, function names, file names, shell commands), URLs and link targets, target labels and directive lines;
* the opening tag of an embedded widget (``<div data-llm-widget=... data-context="4096">``): its
  ``data-*`` attributes are the widget's starting inputs, which the reader changes;
* dates and years ("March 2023", "2023-09-01", "(2022)"), and numbered references to issues,
  pull requests and discussions ("issue #4716", "pull request 1508");
* names that carry digits: models ("Llama 2 7B", "Llama 3.1", "GPT-2"), devices ("RTX 4090",
  "Raspberry Pi 4", "Pixel 5"), document parts ("Table 2", "Algorithm 0", "Exercise 1.3"),
  memory and bus standards ("DDR5", "PCIe 4"); digits glued to letters ("7B", "H100", "fp16",
  "Q4_0", "8x7B") never match the number pattern at all;
* list markers ("1. "), the name of the "2:4" sparsity pattern, and the widths of number formats ("16-bit", "4.5 bits": the
  ``FORMAT_WIDTHS`` below, each the definition of a format, not a result);
* inside math, integers up to 16 and the digits of powers ($10^9$, $2^{30}$): formula
  constants, which the notebooks' sympy cells check. Any other number in math is looked up like
  a number in prose.

What is left must be listed in ``tests/typed_numbers.yml`` for its page, with the reason it may
be typed: a published input (an article's figure, a datasheet value, a measurement: "published:
<where it is quoted from>"), an input the text chooses ("input: <what>", a context length, a batch
size), a definition ("definition: <what>"), or a name the rules above miss ("name: <what>",
the second of "RTX 3090 and 4090"). An entry that no longer occurs fails too, so the
list stays exact. A computed number has no valid reason: glue it.
"""
import json
import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
ALLOWED_FILE = REPO / "tests" / "typed_numbers.yml"

NOTEBOOKS = sorted(p for p in (REPO / "notebooks").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)
# book/STYLE.md is the authors' conventions, not a page of the book
# book/calculator.md is generated from the plan's data (tools/generate.py): its numbers are the
# plan's literals and equation labels, printed by code, and a test keeps it up to date.
PAGES = sorted(p for p in (REPO / "book").rglob("*.md")
               if p.name not in ("STYLE.md", "calculator.md"))

# --- what is not a quantity -------------------------------------------------------------------
GLUE = re.compile(r"\{glue(?::\w+)?\}`[^`]*`")
ROLE = re.compile(r"\{[\w:-]+\}`[^`]*`")
CODE = re.compile(r"``[^`]+``|`[^`]+`")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*?)\s*$")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
URL = re.compile(r"https?://\S+")
WIDGET = re.compile(r"<div\b[^>]*\bdata-llm-widget=[^>]*>")
LABEL = re.compile(r"^\([\w-]+\)=\s*$", re.M)
DIRECTIVE = re.compile(r"^\s*(?:```+|:::+)\{[\w:-]+\}.*$|^\s*:[\w-]+:.*$|^\s*```+\s*$", re.M)
ISO_DATE = re.compile(r"\b(?:19|20)\d\d-\d\d(?:-\d\d)?\b")
DATE = re.compile(
    r"\bmid-(?:19|20)\d\d\b"
    r"|\b(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December|early|late|mid-|since|in|of|until|from|by|before|after)\s+(?:19|20)\d\d\b"
    r"|\((?:19|20)\d\d\)")
REFERENCE = re.compile(r"\b(?:issues?|pull requests?|PR|discussions?)\s*#?\d+|#\d+")
NAME = re.compile(
    r"\b(?:Llama|LLaMA|LLaMa|Gemma|Qwen|Phi|GPT|Mistral|Mixtral|Command R|Command-R|"
    r"Raspberry Pi|Pixel|RTX|GTX|Ryzen|Apple M|Algorithm|Table|Figure|Image|image|Exercise|"
    r"Chapter|chapter|Section|Part|Case|Step|version|Python|CUDA|Jupyter Book|DDR|LPDDR|GDDR|"
    r"HBM|PCIe|FlashAttention|seed|LLaVA|InternVL)[ -]?#?\d+(?:[.-]\d+)*\b|\b\d+-inch\b")
LIST_MARKER = re.compile(r"^\s*\d+\.\s", re.M)
SPARSITY = re.compile(r"(?<!\d)2:4(?!\d)")  # the name of NVIDIA's structured-sparsity pattern
#: The widths of the number formats the book uses, in bits: a width is a format's definition.
FORMAT_WIDTHS = ("2", "3", "4", "5", "6", "8", "16", "32", "4.5", "8.5", "4.125", "6.5625")
FORMAT = re.compile(r"(?<![\w.])(?:" + "|".join(re.escape(w) for w in FORMAT_WIDTHS)
                    + r")(?:-bit|\s+bits?\b)")
MATH = re.compile(r"\$\$.*?\$\$|\$(?:[^$\n]|\n(?!\n))+\$", re.S)
MATH_CONSTANT = re.compile(r"(?<![\w.])(?:1[0-6]|[0-9])(?![\w.,]?\d)|\^\{?\d+\}?")
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?(?![\w]|\.\d)")


def without_code_blocks(text: str) -> str:
    """The text without fenced code blocks; MyST directives (```{name}) keep their content."""
    kept, directives, code = [], [], None
    for line in text.splitlines():
        m = FENCE.match(line)
        if code is not None:  # inside a code block: only its closing fence ends it
            if m and m.group(1)[0] == code[0] and len(m.group(1)) >= len(code) \
                    and not m.group(2):
                code = None
            continue
        if m and m.group(2).startswith("{"):
            directives.append(m.group(1))
        elif m and not m.group(2) and directives and m.group(1) == directives[-1]:
            directives.pop()
        elif m:
            code = m.group(1)
            continue
        kept.append(line)
    return "\n".join(kept)


def prose(text: str) -> str:
    """The text with every non-quantity removed (see the module docstring)."""
    text = without_code_blocks(text).replace("{,}", ",")  # LaTeX's thousands separator
    for rule in (DIRECTIVE, GLUE, ROLE, CODE, LINK_TARGET, URL, WIDGET, LABEL, ISO_DATE, DATE, REFERENCE,
                 NAME,
                 LIST_MARKER, SPARSITY, FORMAT):
        text = rule.sub(" ", text)
    return MATH.sub(lambda m: MATH_CONSTANT.sub(" ", m.group()), text)


def typed_numbers(text: str) -> list[str]:
    """The numbers left in `text`, normalized ("1,024" and "1024" are one number)."""
    return [m.group().rstrip(",").replace(",", "") for m in NUMBER.finditer(prose(text))]


def markdown_of(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text(encoding="utf8")
    nb = json.loads(path.read_text(encoding="utf8"))
    return "\n\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                       for c in nb["cells"] if c["cell_type"] == "markdown")


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


ALLOWED = yaml.safe_load(ALLOWED_FILE.read_text(encoding="utf8")) or {}


@pytest.mark.parametrize("path", NOTEBOOKS + PAGES, ids=rel)
def test_no_hand_typed_number(path):
    found = typed_numbers(markdown_of(path))
    allowed = {str(k): v for k, v in (ALLOWED.get(rel(path)) or {}).items()}
    unexplained = sorted(set(found) - set(allowed), key=lambda n: float(n))
    assert not unexplained, (
        f"{rel(path)}: numbers typed in the prose that are neither glued nor listed in "
        f"tests/typed_numbers.yml: {', '.join(unexplained)}")
    stale = sorted(set(allowed) - set(found), key=lambda n: float(n))
    assert not stale, f"{rel(path)}: tests/typed_numbers.yml lists numbers that no longer occur: " \
                      f"{', '.join(stale)}"
    vague = [n for n, why in allowed.items()
             if not re.match(r"(published|input|definition|name): \S", str(why))]
    assert not vague, (f"{rel(path)}: give each entry a reason (published, input, definition or "
                       f"name): {vague}")


def test_every_listed_page_exists():
    for page in ALLOWED:
        assert (REPO / page).exists(), page


@pytest.mark.parametrize("text, expected", [
    ("{glue:text}`x:.1f` GB at 4096 tokens", ["4096"]),
    ("Llama 2 7B on an RTX 4090 in March 2023 (issue #4716), version of 2023-03-17", []),
    ("a 4-bit format, 4.5 bits per weight; about 5.5 bits", ["5.5"]),
    ("$2 P / \\beta$ and $B^* \\approx 46$", ["46"]),
    ("1. first\n2. second, 1,024 tokens", ["1024"]),
    ("models of 6.7B and 13.0B, DDR5-5200, Command R 08-2024", []),
    ("```{exercise} E\n:label: ex-a-b\n\n42 tokens\n```\n```bash\nrun --count 30\n```\n7", ["42", "7"]),
    ("```{glue:math} eq-a-b\n:label: eq-a-b\n```\n\nsee `x` and 12 tokens", ["12"]),
    ('<div class="llm-widget" data-llm-widget="kv-cache" data-context="32768">\n</div> 12', ["12"]),
])
def test_the_rules(text, expected):
    assert typed_numbers(text) == expected
