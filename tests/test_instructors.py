"""Problem sets are deterministic and self-contained; check() judges without revealing."""
from __future__ import annotations

import re

import pytest

from llm_arithmetic.cli import main
from llm_arithmetic.teaching.answers import ANSWERS
from llm_arithmetic.teaching.exercises import answer_for, check
from llm_arithmetic.teaching.problems import TEMPLATES, generate


def test_same_seed_same_files(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    assert main(["problems", "--seed", "42", "--count", "5", "--out", str(a)]) == 0
    assert main(["problems", "--seed", "42", "--count", "5", "--out", str(b)]) == 0
    assert main(["problems", "--seed", "43", "--count", "5", "--out", str(c)]) == 0
    files = sorted(p.name for p in a.iterdir())
    assert files == sorted([f"set-{i:02d}.md" for i in range(1, 6)] + ["answers.md"])
    assert all((a / f).read_text() == (b / f).read_text() for f in files)
    assert any((a / f).read_text() != (c / f).read_text() for f in files)


def test_variants_differ_and_statements_carry_their_numbers():
    sets = generate(seed=3, count=6)
    assert len({s.markdown() for s in sets}) == 6
    for s in sets:
        assert len(s.problems) == len(TEMPLATES)
        for p in s.problems:
            assert p.answer == p.answer and p.answer >= 0  # a number, not NaN
            assert re.search(r"\d", p.statement)
            shown = f"{p.answer:,.4g}"
            if len(shown) >= 4:  # short integers (a batch of 73) occur by chance in digits
                assert shown not in p.statement  # the answer is not given away


def test_problem_answers_by_a_second_derivation():
    # recompute the first two templates from the statement's own numbers
    for s in generate(seed=11, count=4):
        w = s.problems[0]
        n, bits = re.search(r"has ([\d,]+) parameters.*\(([\d.]+) bits", w.statement).groups()
        assert w.answer == pytest.approx(int(n.replace(",", "")) * float(bits) / 8 / 2**30)
        kv = s.problems[1]
        L, hkv, dh, b, S, bits = map(lambda x: int(x.replace(",", "")), re.search(
            r"L = (\d+).*H_kv = (\d+).*d_head = (\d+).*batch of (\d+) sequences of ([\d,]+) "
            r"tokens.*at (\d+) bits", kv.statement).groups())
        assert kv.answer == pytest.approx(2 * L * hkv * dh * bits / 8 * S * b / 1e9)


def test_bad_problem_arguments(capsys):
    assert main(["problems", "--seed", "1", "--count", "0", "--out", "x"]) == 2
    assert "--count: must be positive" in capsys.readouterr().err


def test_check_never_prints_the_answer(capsys):
    for label in ANSWERS:
        target = answer_for(label)
        assert bool(check(label, target)) is True  # check returns a Verdict (truthy)
        assert bool(check(label, target * 1.5 + 1)) is False
        assert bool(check(label, None)) is False
        out = capsys.readouterr().out
        for shown in {f"{target:g}", f"{target:,.0f}", f"{target:.2f}"}:
            if len(shown.strip("0.,")) >= 2:
                assert shown not in out, (label, shown)


def test_check_unknown_label():
    with pytest.raises(KeyError, match="did you mean"):
        check("ex-nb-kv-llama", 1)
