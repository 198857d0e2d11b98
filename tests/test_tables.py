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
    assert r.counts() == {"matches": 1, "rounding": 1, "article error": 1, "unrecoverable": 1,
                          "reported": 0, "note": 0}
    r.check()


def test_check_catches_drift():
    r = Reproduction("t")
    row = r.add("x", "100", 100.0)
    row.computed = 101.0  # the package changed under the notebook
    with pytest.raises(AssertionError):
        r.check()


def test_reported_rows_and_verbal_bounds():
    r = Reproduction("t")
    # a verbal value matches when the computed one lies in the interval the words mean
    assert r.add("L2", "tens of MB", 72, bounds=(10, 100)).status == "matches"
    with pytest.raises(AssertionError, match="claimed to match"):
        r.add("L2", "tens of MB", 120, bounds=(10, 100), status="matches")
    with pytest.raises(ValueError, match="does not reproduce"):
        r.add("batch", "64+", 40, bounds=(64, float("inf")))
    # a measurement has no verdict but may carry a comparison value, unchecked
    assert r.add("measured", "16", 26.9, status="reported").status == "reported"
    assert r.counts()["reported"] == 1
    # a note link reads "see" unless the row is an article error
    r.add("note", "4", 4, erratum="err-note")
    assert "(see {ref}`err-note`)" in r.to_markdown()
    r.check()


def test_note_rows_name_their_note_and_are_shown():
    # A loose statement the article's numbers do not depend on: a row with status "note", no
    # verdict, always linked to its note in the errata appendix, and shown inline.
    r = Reproduction("t")
    row = r.add("unit of the ops:byte ratio", "FLOPS per byte", 208.3, unit="FLOP/B",
                status="note", erratum="err-x-note")
    assert row.status == "note" and r.counts()["note"] == 1
    with pytest.raises(ValueError, match="needs the label"):
        r.add("loose", "words", None, status="note")
    r.check()
    assert "| note | (see {ref}`err-x-note`) |" in r.table("Caption.", "tbl-x").data.split(":::")[1]
