"""Problem sets to hand out (teaching/problems.py, `python -m llm_arithmetic problems`), and
check() never revealing an answer.

Problem sets: one variant per student of a roster, seeded by an HMAC of the student's id under
the instructor's key (a file outside the repository); a set's header carries only an opaque
code; the keys are written apart from the sets; the same key redraws the same files, another key
other ones. Every template is rendered at many seeds and its wording checked (plurals, number
formats, units asked, one precision per unit); answers are recomputed from the statements' own
numbers for several templates (a second derivation); impossible scenarios are refused.
"""
from __future__ import annotations

import csv
import re
import stat
from collections import defaultdict

import pytest

from conftest import REPO, require_chromium
from llm_arithmetic.catalog.hardware import get_hardware
from llm_arithmetic.catalog.model_catalog import get_model
from llm_arithmetic.cli import main
from llm_arithmetic.formulas import memory
from llm_arithmetic.teaching import problems as P
from llm_arithmetic.teaching.answers import ANSWERS
from llm_arithmetic.teaching.exercises import answer_for, check

KEY = bytes(range(32))
ROSTER = [("s001", "Ada Lovelace"), ("s002", "Alan Turing"), ("s003", "Grace Hopper")]


@pytest.fixture(scope="module")
def many_sets():
    """40 students' sets: every template rendered at 40 seeds."""
    return [P.draw(KEY, f"student-{i}", f"Student {i}") for i in range(40)]


def write_roster(path, rows=ROSTER):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "name"])
        w.writerows(rows)
    return path


def test_cli_writes_sets_keys_and_redraws_them(tmp_path):
    roster = write_roster(tmp_path / "roster.csv")
    key = tmp_path / "secret" / "course.key"
    args = ["problems", "--roster", str(roster), "--key", str(key)]
    assert main(args + ["--out", str(tmp_path / "a")]) == 0
    assert stat.S_IMODE(key.stat().st_mode) == 0o600, "the key is created private"
    assert main(args + ["--out", str(tmp_path / "b")]) == 0
    other = tmp_path / "other.key"
    assert main(["problems", "--roster", str(roster), "--key", str(other), "--out",
                 str(tmp_path / "c")]) == 0

    a_sets = sorted((tmp_path / "a" / "sets").iterdir())
    assert len(a_sets) == len(ROSTER) and all(p.suffix == ".md" for p in a_sets)
    for p in a_sets:  # the same key redraws every file byte for byte
        assert p.read_text() == (tmp_path / "b" / "sets" / p.name).read_text()
    assert not {p.name for p in (tmp_path / "c" / "sets").iterdir()} & {p.name for p in a_sets}

    with open(tmp_path / "a" / "keys" / "roster.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["id"], r["name"]) for r in rows] == ROSTER
    for r in rows:
        sheet = (tmp_path / "a" / "sets" / f"{r['code']}.md").read_text()
        assert sheet.startswith(f"# Problem set {r['code']}\n") and r["name"] in sheet
        # nothing on the sheet regenerates it: no id, no seed, no key
        # ("seed" as a word: a model's name may hold it, ByteDance's seed-oss-36b-instruct)
        assert r["id"] not in sheet and not re.search(r"(?<![\w-])seed(?![\w-])", sheet.lower())
        assert key.read_text().strip() not in sheet
        keyfile = (tmp_path / "a" / "keys" / f"{r['code']}.md").read_text()
        assert keyfile.count("**") == 2 * len(P.TEMPLATES)
    with open(tmp_path / "a" / "keys" / "answers.csv") as f:
        answers = list(csv.DictReader(f))
    assert len(answers) == len(ROSTER) * len(P.TEMPLATES)
    for a in answers:  # no answer on its student's sheet
        sheet = (tmp_path / "a" / "sets" / f"{a['code']}.md").read_text()
        shown = P._sig(float(a["answer"]), 4)
        # as a number of its own: 6,921 may well be the start of 6,921,420,800 on the sheet
        whole = rf"(?<![\d.,]){re.escape(shown)}(?![\d]|[.,]\d)"
        if len(shown.strip("0.,")) >= 3:
            assert not re.search(whole, sheet), a


def test_codes_are_opaque_and_distinct():
    codes = {P.set_code(KEY, f"s{i:03d}") for i in range(500)}
    assert len(codes) == 500 and all(re.fullmatch(r"[A-Z2-7]{8}", c) for c in codes)
    assert P.set_code(KEY, "s001") != P.set_code(bytes(32), "s001")
    # the variant depends on the key and the id only, not on the name or the roster's order
    assert P.draw(KEY, "s001", "A").problems == P.draw(KEY, "s001", "B").problems


def test_key_and_output_outside_the_repository(tmp_path):
    roster = write_roster(tmp_path / "roster.csv")
    assert main(["problems", "--roster", str(roster), "--key", str(REPO / "course.key"),
                 "--out", str(tmp_path / "o")]) == 2
    assert not (REPO / "course.key").exists()
    key = tmp_path / "k.key"
    assert main(["problems", "--roster", str(roster), "--key", str(key), "--out",
                 str(REPO / "problem-sets")]) == 2
    assert not (REPO / "problem-sets").exists()
    key.write_text("not hex\n")
    with pytest.raises(ValueError, match="hexadecimal"):
        P.read_key(key)


@pytest.mark.parametrize("text, message", [
    ("id;name\ns1;A\n", "header row"),
    ("id,name\ns1,A\ns1,B\n", "appears twice"),
    ("id,name\n,A\n", "empty id"),
    ("id,name\n", "no student"),
])
def test_bad_rosters(tmp_path, text, message):
    path = tmp_path / "r.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        P.read_roster(path)


def test_templates_cover_every_chapter():
    assert len(P.TEMPLATES) >= 12
    chapters = {P._draw_one(t, __import__("random").Random(1)).chapter for t in P.TEMPLATES}
    assert chapters == set(P.CHAPTERS), set(P.CHAPTERS) ^ chapters


def test_wording(many_sets):
    units = defaultdict(set)
    problems = []
    for s in many_sets:
        for p in s.problems:
            text = p.statement
            problems += [f"{p.title}: {w}" for w in P.wording_problems(text)]
            asked = re.search(r"Answer (in (\S+?)(?:,.*)?|exactly)\.$", text)
            if not asked:
                problems.append(f"{p.title}: the question does not end with the unit asked")
            elif asked.group(2) and {"percent": "%"}.get(asked.group(2), asked.group(2)) != p.unit:
                problems.append(f"{p.title}: asks in {asked.group(2)}, answers in {p.unit}")
            for m in re.finditer(r"(\d[\d,]*(?:\.(\d+))?) (GB/s|TFLOP/s|GiB|GB)\b", text):
                units[m.group(3)].add(len(m.group(2) or ""))
            assert p.answer > 0 and p.answer == p.answer
    assert not problems, "\n".join(sorted(set(problems))[:20])
    mixed = {u: d for u, d in units.items() if len(d) > 1}
    assert not mixed, f"a unit printed with several precisions: {mixed}"
    assert {"GB/s", "TFLOP/s", "GiB"} <= units.keys()


def test_statements_do_not_hand_over_the_formula(many_sets):
    """A statement gives the numbers (a config's values, a chip's figures) and asks for the
    quantity; how they combine is what the problem tests, so it stays in the key (issue 28)."""
    tells = [r" x ", r"FLOPs? (?:each|per)", r"\btwice\b", r"\bonce for\b", r"around the ring",
             r"scores itself", r"Assuming the step is memory-bound", r"d_head FLOPs"]
    found = {(p.title, t) for s in many_sets for p in s.problems for t in tells
             if re.search(t, p.statement)}
    assert not found, sorted(found)


def test_wording_rules_find_mistakes():
    bad = ("It decodes 1 sequences of 2 token each at 1.234567 ms in fp32 (32 bits per weight, "
           "block scales included), about 3e+09 FLOPs.")
    found = " ".join(P.wording_problems(bad))
    for what in ("plural after 1", "singular after 2", "1.234567", "3e+0", "block scales"):
        assert what in found, what
    assert P.wording_problems("1 sequence of 4,096 tokens, a 2,048-token prompt, 8 layers") == []


def test_variants_differ(many_sets):
    for i in range(len(P.TEMPLATES)):
        assert len({s.problems[i].statement for s in many_sets}) >= 5, P.TEMPLATES[i].__name__


def test_answers_by_a_second_derivation(many_sets):
    """Recompute several templates from the numbers their statements print."""
    num = lambda s: float(s.replace(",", ""))  # noqa: E731
    by_title = defaultdict(list)
    for s in many_sets:
        for p in s.problems:
            by_title[p.title].append(p)
    for p in by_title["The size of a KV cache"]:
        L, hkv, dh, b, S, bits = map(num, re.search(
            r"L = (\d+) layers.* ([\d,]+) key/value heads? of width (\d+).* for ([\d,]+) "
            r"sequences? of ([\d,]+) tokens?(?: each)?, stored at (\d+) bits", p.statement).groups())
        assert p.answer == pytest.approx(2 * L * hkv * dh * bits / 8 * S * b / 1e9)
    for p in by_title["The speed of light at batch 1"]:
        n = num(re.search(r"reads ([\d,]+) weights", p.statement).group(1))
        bits = num(re.search(r"\(([\d.]+) bits per weight", p.statement).group(1))
        bw = num(re.search(r"moves ([\d,.]+) GB/s", p.statement).group(1))
        assert p.answer == pytest.approx(bw * 1e9 / (n * bits / 8), rel=1e-6)
    for p in by_title["How many sequences fit"]:
        cap, res, params_, bits, kv, S = map(num, re.search(
            r"\(([\d,]+) B\).*\(([\d,]+) B\) in reserve.*, ([\d,]+) parameters in .*?\(([\d.]+) "
            r"bits per weight.*cache of ([\d,]+) bytes per token.*sequences of ([\d,]+) tokens",
            p.statement).groups())
        assert p.answer == (cap - res - params_ * bits / 8) // (kv * S)
    for p in by_title["Reading a datasheet's asterisk"]:
        sparse, bw = map(num, re.search(r"as ([\d,.]+) TFLOP/s .*bandwidth as ([\d,.]+) GB/s",
                                        p.statement).groups())
        assert p.answer == pytest.approx(sparse / 2 * 1e12 / (bw * 1e9), rel=1e-3)
    for p in by_title["The cost of a million tokens"]:
        price, b, ms = map(num, re.search(r"at ([\d.]+) dollars per hour decodes ([\d,]+) "
                                          r"sequences?.* takes ([\d,.]+) ms", p.statement).groups())
        assert p.answer == pytest.approx(price / 3600 / (b / (ms / 1e3)) * 1e6, rel=1e-9)
    for p in by_title["A forecast from its terms"]:
        # chapter 17b: t (1 + k) + delta t_16 + tau + lambda L, each number read off the statement
        bits, bw, n, layers, k, tau, lam = map(num, re.search(
            r"\(([\d.]+) bits per weight.*\(([\d,.]+) GB/s\)\. One decode step reads ([\d,]+) "
            r"weights.* (\d+) layers\..*k = ([\d.]+) .*tau = ([\d.]+) ms per token and lambda = "
            r"(\d+) us per layer", p.statement).groups())
        delta = re.search(r"delta = ([\d.]+) for dequantizing", p.statement)
        t_bound = n * bits / 8 / (bw * 1e9)
        t_16 = n * 2 / (bw * 1e9)
        t = t_bound * (1 + k) + (num(delta.group(1)) * t_16 if delta else 0) + tau / 1e3 \
            + lam / 1e6 * layers
        assert (delta is None) == (bits == 16)
        assert p.answer == pytest.approx(1 / t, rel=1e-9)
    assert all(len(by_title[t]) == 40 for t in ("The size of a KV cache", "How many sequences fit",
                                                 "A forecast from its terms"))


def test_impossible_scenarios_are_refused():
    """LLaMA-65B in fp16 (130 GB) does not fit a 40 GiB A100: such a draw is rejected."""
    m, h = get_model("llama-65b"), get_hardware("a100-40gb-pcie")
    with pytest.raises(P.Reject):
        P._fits(h, memory.weight_bytes(n_params=m.total_params, bits_weight=16))
    with pytest.raises(P.Reject):
        P._in(1e6, 1, 2000)  # a million tokens/s is not a realistic single stream


def test_every_drawn_scenario_fits(many_sets):
    """Where a statement names a device and a model's weights, they fit in its memory."""
    for s in many_sets:
        for p in s.problems:
            assert p.answer < 1e15


def test_pdf(tmp_path):
    require_chromium()
    roster = write_roster(tmp_path / "roster.csv", ROSTER[:2])
    assert main(["problems", "--roster", str(roster), "--key", str(tmp_path / "k.key"),
                 "--out", str(tmp_path / "o"), "--pdf"]) == 0
    pdfs = sorted((tmp_path / "o" / "sets").glob("*.pdf"))
    assert len(pdfs) == 2
    for pdf in pdfs:
        data = pdf.read_bytes()
        assert data.startswith(b"%PDF-") and len(data) > 5000
        assert len(re.findall(rb"/Type\s*/Page\b", data)) >= 2, "a set takes a few pages"


# ---- check() -----------------------------------------------------------------------------------
def test_check_never_prints_the_answer(capsys):
    for label in ANSWERS:
        target = answer_for(label)
        assert bool(check(label, target)) is True  # check returns a Verdict (truthy)
        assert bool(check(label, target * 1.5 + 1)) is False
        assert bool(check(label, None)) is False
        out = capsys.readouterr().out
        for shown in {f"{target:g}", f"{target:,.0f}", f"{target:.2f}"}:
            if len(shown.strip("0.,")) >= 2:
                assert not re.search(rf"(?<![\d.,]){re.escape(shown)}(?![\d])", out), (label, shown)


def test_check_unknown_label():
    with pytest.raises(KeyError, match="did you mean"):
        check("ex-nb-kv-qwen3-batc", 1)


def test_a_set_never_prints_one_of_its_answers():
    # Some student's first draw states, in another problem, the number that is the answer of
    # one of its problems; draw() must draw that set again from the same stream, the same way
    # every time. Which student that is depends on the catalogs and the templates: the one
    # found last (HINT) is tried first, and the ids are searched in order when it no longer
    # collides (after a catalog change; a few seconds).
    key = bytes(range(32))

    def first_draw(sid):
        rng = P.random.Random(int.from_bytes(P._mac(key, "seed", sid)[:16], "big"))
        return P.ProblemSet(P.set_code(key, sid), sid, "x",
                            tuple(P._draw_one(t, rng) for t in P.TEMPLATES))

    HINT = "s509"
    for sid in [HINT] + [f"s{i}" for i in range(3000)]:
        first = first_draw(sid)
        if P.answers_on_sheet(first):
            break
    else:
        pytest.fail("no first draw of 3,000 students prints one of its answers: search further")
    n = P.answers_on_sheet(first)[0]
    answer = P._sig(first.problems[n - 1].answer, 4)
    assert answer in "".join(p.statement for i, p in enumerate(first.problems) if i != n - 1)
    s = P.draw(key, sid, "x")
    assert P.answers_on_sheet(s) == [] and s.problems != first.problems
    assert P.draw(key, sid, "x") == s


def test_one_gpu_of_a_rack_and_one_sequence_read_right(many_sets):
    """A catalog entry that is one GPU of a rack (GB200/GB300/Vera Rubin NVL72, 8 TB/s each, the
    rack 72 times that) is named as the GPU, never as the rack; and one sequence is not
    "1 sequence of N tokens each"."""
    racks = ("GB200 NVL72", "GB300 NVL72", "Vera Rubin NVL72")
    for s in many_sets:
        for p in s.problems:
            for rack in racks:
                if rack in p.statement:
                    assert re.search(rf"GPUs? of an NVIDIA {rack}", p.statement), p.statement
            assert not re.search(r"\b1 sequence of [\d,]+ tokens each", p.statement), p.statement
    assert P._label(get_hardware("gb200")) == "Blackwell GPU of an NVIDIA GB200 NVL72"


def test_classmates_rarely_share_an_answer(many_sets):
    """Fresh numbers per student: across 40 sets, no problem has fewer than 10 distinct answers
    (the review of 2026-11-29 found 7 for "Reserved against paged" in 100 sets, and 12
    statements for "What a latent cache saves")."""
    answers: dict[str, set[str]] = {}
    for s in many_sets:
        for p in s.problems:
            answers.setdefault(p.title, set()).add(P._sig(p.answer, 4))
    few = {t: len(a) for t, a in answers.items() if len(a) < 10}
    assert not few, few
