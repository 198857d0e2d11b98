"""Answer checking for the exercise notebooks (``notebooks/exercises/``): ``check(label, value)``.

Two copies of this module's data exist, and :func:`check` behaves the same with either:

* **The instructor's copy** (the repository): :mod:`llm_arithmetic.teaching.answers` maps each
  label to an :class:`~llm_arithmetic.teaching.answers.Answer` that *computes* the value with the
  package. :func:`answer_for` returns it; nbgrader's ``autograde`` runs here.
* **The student edition** (``make student``): ``answers.py`` is left out and replaced by
  ``answer_hashes.json``, written by :func:`hash_table`. It holds, per label, the unit, the
  tolerance, the hint and a salted, deliberately slow hash (PBKDF2-HMAC-SHA256) of each *cell*
  of a logarithmic grid that lies within the tolerance of the answer, never the answer itself.
  :func:`check` hashes the cell of the value it is given and looks it up. A cell is
  ``floor(ln(v) / w)`` with ``w = ln(1 + tol) / N``; the ``2N + 1`` cells around the answer's are
  stored, so every value within the tolerance is accepted and none beyond ``(1 + 1/N)`` times it.
  Exact answers (counts) hash the number itself. See book/instructors.md for what this protects.

``check`` prints ``correct`` or ``not yet`` with a hint about the method, never the answer.
``None`` and ``...`` (the stub of the student edition) count as "no answer given". Under
nbgrader's ``autograde`` (environment variable ``NBGRADER_EXECUTION=autograde``) a wrong or
missing answer also raises ``AssertionError``, so the graded cell holding the ``check`` scores.

>>> check("ex-nb-kv-qwen3-batch", 12 * 6000 * 73728 / 1e9)
✔ ex-nb-kv-qwen3-batch: correct.
True
>>> check("ex-nb-kv-qwen3-batch", 12 * 6000 * 73728 / 2**30)
✘ ex-nb-kv-qwen3-batch: not yet. Hint: count keys and values in every layer, at 1 byte each, for every token of every sequence. Give it in GB.
False
>>> check("ex-nb-kv-qwen3-batch", None)
✘ ex-nb-kv-qwen3-batch: not yet (no answer given).
False
>>> check("ex-nb-kv-qwen3-batch", "five gigabytes")
✘ ex-nb-kv-qwen3-batch: not yet (expected a number in GB).
False
>>> expected("ex-nb-kv-qwen3-batch"), expected("ex-nb-params-hypothetical")
('in GB, within 1%', 'as a count of parameters, exactly')
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any, Iterable, Mapping

__all__ = ["Verdict", "check", "answer_for", "expected", "labels", "hash_table", "HASH_FILE",
           "RETIRED"]

#: The student edition's table of hashed answers, next to this module.
HASH_FILE = "answer_hashes.json"
#: Grid cells per tolerance width (N above): the accepted band is between tol and (1 + 1/N) tol.
CELLS_PER_TOL = 4
#: PBKDF2 iterations per hash: one check costs one hash (about 0.05 s), inverting a hash by trying
#: every cell of a plausible range costs thousands.
ITERATIONS = 50_000

#: Labels of earlier editions and what replaced them (labels are never reused).
RETIRED: dict[str, str] = {
    label: "retired when the exercise notebooks were rewritten so that no checked answer is "
           "printed in a chapter; see the exercise notebook of the same chapter"
    for label in (
        "ex-nb-puzzle-m2-q4", "ex-nb-puzzle-a100-ratio", "ex-nb-puzzle-gb-per-token",
        "ex-nb-puzzle-compute-tps", "ex-nb-puzzle-implied-bw", "ex-nb-specs-a10-ratio",
        "ex-nb-specs-80gb-gib", "ex-nb-specs-t4-bus", "ex-nb-specs-l4-dense",
        "ex-nb-specs-h100-fp8", "ex-nb-params-llama2-7b", "ex-nb-params-mixtral-active",
        "ex-nb-params-gpt-llama7b", "ex-nb-params-gqa-saved", "ex-nb-params-gpt2",
        "ex-nb-kv-llama2", "ex-nb-kv-70b-32k", "ex-nb-kv-llama2-4096", "ex-nb-kv-mistral-window",
        "ex-nb-kv-crossover", "ex-nb-flops-matvec", "ex-nb-flops-decode-mistral",
        "ex-nb-flops-prefill-llama3", "ex-nb-flops-critical-n", "ex-nb-flops-attn-llama3",
        "ex-nb-roofline-crit-a100", "ex-nb-roofline-4090-mistral", "ex-nb-roofline-a10-decode",
        "ex-nb-roofline-a10-prefill", "ex-nb-roofline-a10-request", "ex-nb-quant-q4-bits",
        "ex-nb-quant-70b-q4-gib", "ex-nb-quant-q5-1-bits", "ex-nb-quant-speedup-4090",
        "ex-nb-quant-4090-context", "ex-nb-batch-a10-fit", "ex-nb-batch-throughput",
        "ex-nb-batch-ceiling", "ex-nb-batch-full-memory", "ex-nb-batch-cost",
        "ex-nb-cases-commandr-128k", "ex-nb-cases-pi-fit", "ex-nb-cases-pi-tps",
        "ex-nb-cases-commandr-share", "ex-nb-cases-mixtral-gb", "ex-nb-mistakes-gemma-dhead",
        "ex-nb-mistakes-mha-factor", "ex-nb-mistakes-gemma-kv", "ex-nb-mistakes-gib",
        "ex-nb-mistakes-moe-total")}

#: How a unit is asked for in a question and a hint ("in GB" unless listed).
_UNIT_PHRASES = {"": "as a number", "x": "as a ratio", "billion": "in billions",
                 "%": "in percent", "params": "as a count of parameters"}


# ---- where the answers come from --------------------------------------------------------------
def _instructor_answers() -> Mapping[str, Any] | None:
    try:
        from .answers import ANSWERS
    except ImportError:  # the student edition ships no answers.py
        return None
    return ANSWERS


_TABLE: dict[str, Any] = {}


def _hashed() -> dict[str, Any]:
    if not _TABLE:
        try:
            text = resources.files(__package__).joinpath(HASH_FILE).read_text(encoding="utf8")
        except FileNotFoundError:
            raise RuntimeError(f"no answers to check against: neither llm_arithmetic.teaching."
                               f"answers nor {HASH_FILE} is installed") from None
        _TABLE.update(json.loads(text)["answers"])
    return _TABLE


def _meta(label: str) -> Mapping[str, Any]:
    """unit, rel_tol and hint of a label, from whichever copy is installed."""
    answers = _instructor_answers()
    if answers is not None:
        a = answers[label]
        return {"unit": a.unit, "rel_tol": a.rel_tol, "hint": a.hint}
    return _hashed()[label]


def labels() -> list[str]:
    """Every checked label."""
    answers = _instructor_answers()
    return list(answers) if answers is not None else list(_hashed())


def answer_for(label: str) -> float:
    """The value :func:`check` compares with: the instructor's copy only (for tests, keys and
    grading); the student edition raises ``LookupError``."""
    answers = _instructor_answers()
    if answers is None:
        raise LookupError("the student edition carries no answers, only their hashes")
    return float(answers[label].compute())


# ---- the hashed form ----------------------------------------------------------------------------
def _cell(value: float, rel_tol: float) -> str:
    """The grid cell of ``value`` (a string: the token that is hashed)."""
    if rel_tol == 0:
        return f"={value:.12g}"
    return str(math.floor(math.log(value) / (math.log1p(rel_tol) / CELLS_PER_TOL)))


def _digest(label: str, cell: str, salt: str, iterations: int) -> str:
    return hashlib.pbkdf2_hmac("sha256", f"{label}|{cell}".encode(), bytes.fromhex(salt),
                               iterations).hex()


def hash_table(iterations: int = ITERATIONS, only: Iterable[str] | None = None
               ) -> dict[str, Any]:
    """The student edition's ``answer_hashes.json`` (instructor's copy only): per label (all, or
    those in ``only``) its unit, tolerance, hint, a fresh random salt and the sorted hashes of
    the accepted cells. The hashes are computed in threads (hashlib releases the GIL)."""
    answers = _instructor_answers()
    if answers is None:
        raise LookupError("hash_table() needs the instructor's copy (llm_arithmetic.teaching."
                          "answers)")
    jobs = {}
    for label, a in answers.items():
        if only is not None and label not in only:
            continue
        value = float(a.compute())
        if a.rel_tol == 0:
            cells = [_cell(value, 0)]
        else:
            k = int(_cell(value, a.rel_tol))
            cells = [str(k + d) for d in range(-CELLS_PER_TOL, CELLS_PER_TOL + 1)]
        jobs[label] = (a, secrets.token_hex(16), cells)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        digests = {label: [pool.submit(_digest, label, c, salt, iterations) for c in cells]
                   for label, (a, salt, cells) in jobs.items()}
        table = {label: {"unit": a.unit, "rel_tol": a.rel_tol, "hint": a.hint, "salt": salt,
                         "iterations": iterations,
                         "hashes": sorted(f.result() for f in digests[label])}
                 for label, (a, salt, cells) in jobs.items()}
    return {"about": "Salted PBKDF2-SHA256 hashes of the grid cells within each answer's "
                     "tolerance (llm_arithmetic.teaching.exercises); no answer value.",
            "answers": table}


def _hash_ok(label: str, value: float) -> bool:
    entry = _hashed()[label]
    if value <= 0 and entry["rel_tol"]:
        return False
    try:
        cell = _cell(value, entry["rel_tol"])
    except (ValueError, OverflowError):
        return False
    return _digest(label, cell, entry["salt"], entry["iterations"]) in entry["hashes"]


# ---- checking ----------------------------------------------------------------------------------
class Verdict:
    """What :func:`check` returns: true when correct, shown as ``True``/``False``.

    In a notebook the line that :func:`check` prints is the whole output: a verdict that ends a
    cell displays nothing more (it has an ``_ipython_display_`` that shows nothing).

    >>> Verdict(True), bool(Verdict(False)), Verdict(True) == True
    (True, False, True)
    """

    __slots__ = ("ok",)

    def __init__(self, ok: bool) -> None:
        self.ok = bool(ok)

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other: object) -> bool:
        return self.ok == (other.ok if isinstance(other, Verdict) else other)

    def __hash__(self) -> int:
        return hash(self.ok)

    def __repr__(self) -> str:
        return repr(self.ok)

    def _ipython_display_(self) -> None:
        """Display nothing: the printed line already says correct or not yet."""


def _unit_phrase(unit: str) -> str:
    return _UNIT_PHRASES.get(unit, f"in {unit}")


def expected(label: str) -> str:
    """The unit and tolerance of an answer, as the notebooks state them."""
    m = _meta(label)
    tol = "exactly" if m["rel_tol"] == 0 else f"within {100 * m['rel_tol']:g}%"
    return f"{_unit_phrase(m['unit'])}, {tol}"


def _verdict(label: str, ok: bool, line: str) -> Verdict:
    print(line)
    if not ok and os.environ.get("NBGRADER_EXECUTION") == "autograde":
        raise AssertionError(line)
    return Verdict(ok)


def check(label: str, value: Any) -> Verdict:
    """Print whether ``value`` answers exercise ``label`` within its tolerance; return it.

    The result is a :class:`Verdict`: true when correct, and silent at the end of a notebook
    cell (only the printed line shows).

    ``None`` and ``...`` mean that no answer was given. Unknown labels raise ``KeyError``
    naming close labels. The answer is never printed.
    """
    known = labels()
    if label not in known:
        if label in RETIRED:
            raise KeyError(f"the exercise {label!r} was {RETIRED[label]}")
        from ..core.lookup import did_you_mean

        raise KeyError(f"no checked exercise {label!r}{did_you_mean(label, known, cutoff=0.6)}")
    m = _meta(label)
    if value is None or value is Ellipsis:
        return _verdict(label, False, f"✘ {label}: not yet (no answer given).")
    try:
        v = float(value)
    except (TypeError, ValueError):
        unit = f" in {m['unit']}" if m["unit"] else ""
        return _verdict(label, False, f"✘ {label}: not yet (expected a number{unit}).")
    if math.isnan(v) or math.isinf(v):
        return _verdict(label, False, f"✘ {label}: not yet (the answer is {v}).")
    answers = _instructor_answers()
    if answers is not None:
        ok = math.isclose(v, answer_for(label), rel_tol=m["rel_tol"], abs_tol=1e-12)
    else:
        ok = _hash_ok(label, v)
    if ok:
        return _verdict(label, True, f"✔ {label}: correct.")
    return _verdict(label, False, f"✘ {label}: not yet. Hint: {m['hint'].rstrip('.')}. "
                                  f"Give it {_unit_phrase(m['unit'])}.")
