"""Reproduction rows: the status must follow from the numbers."""
import pytest

from llm_arithmetic.book.tables import Reproduction, rounds_to


def test_rounding_rules():
    assert rounds_to(208.3333, "208.3") and rounds_to(19230.77, "19,230")
    assert rounds_to(0.125, "0.12")  # half-even
    assert rounds_to(0.125, "0.13")  # half-up
    assert not rounds_to(0.135, "0.12")
    assert rounds_to(1.2e9, "1.2e9") and not rounds_to(1.3e9, "1.2e9")


def test_status_is_judged_and_enforced():
    r = Reproduction("t")
    assert r.add("exact", "524288", 524288).status == "matches"
    assert r.add("rounded", "62", 62.42).status == "rounding"
    with pytest.raises(ValueError, match="does not reproduce"):
        r.add("wrong", "14.47", 7.24)
    with pytest.raises(AssertionError, match="claimed to match"):
        r.add("lie", "62", 62.42, status="matches")
    with pytest.raises(ValueError, match="needs an erratum"):
        r.add("err", "14.47", 7.24, status="article error")
    with pytest.raises(AssertionError, match="reproduces"):
        r.add("not an error", "62", 62.42, status="article error", erratum="e")
    r.add("err", "14.47", 7.24, status="article error", erratum="err-factor-2")
    r.add("lost", "(image lost)", None, status="unrecoverable")
    assert r.counts() == {"matches": 1, "rounding": 1, "article error": 1, "unrecoverable": 1}
    r.check()


def test_check_catches_drift():
    r = Reproduction("t")
    row = r.add("x", "100", 100.0)
    row.computed = 101.0  # the package changed under the notebook
    with pytest.raises(AssertionError):
        r.check()
