"""Reproduction tables: what an article printed, what the package computes, and the verdict.

A :class:`Reproduction` collects :class:`Row` objects for one article. The status of a row is
one of :data:`STATUSES`:

``matches``
    computed equals published within a relative tolerance (default 1e-9);
``rounding``
    computed, rounded to the digits the article printed, gives the published value (or lies
    within an explicit tolerance that the note explains);
``article error``
    the published value does not follow from the article's own inputs; the row names an
    erratum label (the errata appendix derives it);
``unrecoverable``
    the published value is lost (e.g. an image no copy survives of); no check;
``reported``
    a value the article reports rather than derives: a measurement, or a figure it quotes from
    another source. Nothing in the article recomputes it, so there is no verdict; the row is
    there so that the table lists every number the article states, and its note (and, where one
    applies, its computed value) compares it with what the package gives. Not checked.
``note``
    a statement that is loose rather than wrong where the article uses it: a term used for
    another quantity ("FLOPS per byte" for a ratio of rates), a step described imprecisely, a
    formula applied only where it holds. The article's numbers do not depend on it, so there is
    no verdict; the row names the note of the errata appendix that explains it, and its
    computed value, where there is one, is what the precise reading gives.

A published value written in words or as a range ("tens of megabytes", "64+") has no digits to
round to; such a row gives ``bounds=(low, high)``, the interval the words mean, and it
``matches`` when the computed value lies in ``[low, high)``.

A row of any status may name a label in ``erratum``: for an article error it is the erratum
that derives it; for another status it is a note of the errata appendix that explains the row
(written "see ..." rather than "erratum ..." in the table).

:meth:`Reproduction.check` re-verifies every row, so a notebook that ends with it fails under
nbval when the package or the data drift. On a page of the book the check is not content:
:meth:`Reproduction.status` runs it and returns the one line the page shows, and
:meth:`Reproduction.table` gives the table as the page shows it (the rows a reader must see,
captioned, and every row in a collapsed dropdown).

>>> r = Reproduction("example")
>>> _ = r.add("A10 ops:byte", "208.3", 125e12 / 600e9, unit="FLOP/B")
>>> _ = r.add("7B at fp16", "14", 13.48, unit="GB", status="article error", erratum="err-x",
...           note="7B is 6.74B")
>>> [row.status for row in r.rows]
['rounding', 'article error']
>>> r.check()
>>> print(r.to_markdown().splitlines()[2])
| A10 ops:byte | 208.3 FLOP/B | 208.333 FLOP/B | rounding |  |
>>> _ = r.add("on-chip memory", "tens of MB", 72, unit="MB", bounds=(10, 100))
>>> _ = r.add("observed speed", "16", None, unit="token/s", status="reported")
>>> [row.status for row in r.rows[2:]]
['matches', 'reported']
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from typing import Any

__all__ = ["STATUSES", "Row", "Reproduction", "rounds_to"]

STATUSES = ("matches", "rounding", "article error", "unrecoverable", "reported", "note")


def _decimals(published: str) -> int:
    text = published.strip().replace(",", "")
    if "e" in text.lower():
        mant = text.lower().split("e")[0]
        exp = int(text.lower().split("e")[1])
        return len(mant.split(".")[1]) - exp if "." in mant else -exp
    return len(text.split(".")[1]) if "." in text else 0


def rounds_to(value: float, published: str) -> bool:
    """Whether ``value`` rounded to the digits of ``published`` gives ``published``.

    Both half-up and half-even rounding are accepted, and so is truncation (articles do all
    three).

    >>> rounds_to(62.42, "62"), rounds_to(14.1047, "14.1"), rounds_to(14.16, "14.1")
    (True, True, True)
    >>> rounds_to(14.3, "14.1")
    False
    """
    target = Decimal(published.strip().replace(",", ""))
    q = Decimal(1).scaleb(-_decimals(published))
    v = Decimal(repr(float(value)))
    candidates = {v.quantize(q, rounding=ROUND_HALF_UP), v.quantize(q, rounding=ROUND_HALF_EVEN),
                  (v / q).to_integral_value(rounding="ROUND_DOWN") * q}
    return target in candidates


@dataclass
class Row:
    """One reproduced number."""

    item: str
    published: str  #: as the article printed it (digits matter: they fix the rounding)
    computed: float
    unit: str = ""
    status: str = ""
    note: str = ""
    erratum: str = ""  #: label of the erratum for an "article error" row
    tol: float | None = None  #: relative tolerance; see the module docstring
    digits: int = 3  #: decimals shown for the computed value
    bounds: tuple[float, float] | None = None  #: interval a verbal published value means

    @property
    def published_value(self) -> float | None:
        try:
            return float(self.published.replace(",", ""))
        except ValueError:
            return None

    def verdict(self) -> str:
        """The status the numbers support (without an erratum: matches, rounding or '')."""
        if self.bounds is not None and self.computed is not None:
            low, high = self.bounds
            return "matches" if low <= self.computed < high else ""
        p = self.published_value
        if p is None or self.computed is None:
            return ""
        tol = 1e-9 if self.tol is None else self.tol
        if math.isclose(self.computed, p, rel_tol=1e-9, abs_tol=0.0):
            return "matches"
        if rounds_to(self.computed, self.published):
            return "rounding"
        if self.tol is not None and math.isclose(self.computed, p, rel_tol=tol):
            return "rounding"
        return ""


@dataclass
class Reproduction:
    """The rows reproducing one article."""

    article: str
    rows: list[Row] = field(default_factory=list)

    def add(self, item: str, published: str, computed: Any, *, unit: str = "",
            status: str | None = None, note: str = "", erratum: str = "",
            tol: float | None = None, digits: int = 3,
            bounds: tuple[float, float] | None = None) -> Row:
        """Add a row; the status is judged from the numbers unless given.

        Raises ``ValueError`` when the numbers do not support the status asked for (a row
        claimed to match that does not), when an "article error" names no erratum, or when no
        status is given and the numbers neither match nor round to the published value.
        """
        comp = None if computed is None else float(computed)
        row = Row(item, str(published), comp, unit, "", note, erratum, tol, digits,
                  None if bounds is None else (float(bounds[0]), float(bounds[1])))
        found = row.verdict()
        if status is None:
            if not found:
                raise ValueError(f"{self.article}: {item!r}: computed {comp!r} does not "
                                 f"reproduce published {published!r}; give a status")
            status = found
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        if status == "article error" and not erratum:
            raise ValueError(f"{item!r}: an article error needs an erratum label")
        if status == "note" and not erratum:
            raise ValueError(f"{item!r}: a note row needs the label of its note in the errata")
        row.status = status
        self._check_row(row)
        self.rows.append(row)
        return row

    def _check_row(self, row: Row) -> None:
        found = row.verdict()
        if row.status == "matches" and found != "matches":
            raise AssertionError(f"{row.item!r}: claimed to match, but computed "
                                 f"{row.computed!r} vs published {row.published!r}")
        if row.status == "rounding" and not found:
            raise AssertionError(f"{row.item!r}: claimed rounding, but computed "
                                 f"{row.computed!r} does not round to {row.published!r}")
        if row.status == "article error" and found:
            raise AssertionError(f"{row.item!r}: listed as an article error but computed "
                                 f"{row.computed!r} reproduces {row.published!r}")

    def check(self) -> None:
        """Re-verify every row's status against its numbers; raise AssertionError if any fails."""
        for row in self.rows:
            self._check_row(row)

    def counts(self) -> dict[str, int]:
        """How many rows have each status."""
        return {s: sum(r.status == s for r in self.rows) for s in STATUSES}

    def to_markdown(self) -> str:
        """The table: item | published | computed | status | note.

        An erratum is written as a MyST ``{ref}`` role: the book (which parses Markdown outputs
        as MyST) renders it as a link to the erratum ("erratum ...") or, for a row that is not
        an article error, to the note that explains it ("see ...").
        """
        lines = ["| item | published | computed | status | note |", "|---|---|---|---|---|"]
        lines += ["| " + " | ".join(map(str, self._cells(r))) + " |" for r in self.rows]
        return "\n".join(lines)

    def status(self) -> str:
        """Re-verify every row (:meth:`check`, which raises on any drift) and count them in one
        line for the reader: how many rows, and how many of each status, in the status column's
        words.

        >>> r = Reproduction("example")
        >>> _ = r.add("a", "2", 2.0); _ = r.add("b", "3.1", 3.14)
        >>> _ = r.add("c", "16", None, status="reported")
        >>> r.status()
        '3 rows (1 matches, 1 rounding, 1 reported)'
        """
        self.check()
        counts = self.counts()
        parts = [f"{counts[s]} {s}" + ("s" if s in ("article error", "note") and counts[s] > 1
                                      else "")
                 for s in STATUSES if counts[s]]
        return f"{len(self.rows)} rows ({', '.join(parts)})"

    def table(self, caption: str, name: str,
              show: tuple[str, ...] = ("article error", "unrecoverable", "note")) -> Any:
        """The reproduction table as a page shows it (:func:`llm_arithmetic.book.display.
        long_table`): the rows whose status is in ``show`` inline, captioned and labelled
        ``name``, and every row in a collapsed dropdown. Without such rows the inline table
        counts the rows by status.

        >>> r = Reproduction("example")
        >>> _ = r.add("a", "2", 2.0)
        >>> _ = r.add("b", "14", 13.48, status="article error", erratum="err-x")
        >>> print(r.table("The rows that do not reproduce.", "tbl-x-repro").data)
        :::{table} The rows that do not reproduce.
        :name: tbl-x-repro
        <BLANKLINE>
        | item | published | computed | status | note |
        | --- | --- | --- | --- | --- |
        | b | 14 | 13.480 | article error | (erratum {ref}`err-x`) |
        :::
        <BLANKLINE>
        ::::{dropdown} All 2 rows
        | item | published | computed | status | note |
        | --- | --- | --- | --- | --- |
        | a | 2 | 2.000 | matches |  |
        | b | 14 | 13.480 | article error | (erratum {ref}`err-x`) |
        ::::
        """
        from .display import long_table

        header = ["item", "published", "computed", "status", "note"]
        rows = [self._cells(r) for r in self.rows]
        picked = [self._cells(r) for r in self.rows if r.status in show]
        if picked:
            summary = (header, picked, "lllll")
        else:
            counts = self.counts()
            summary = (["status", "rows"], [[s, counts[s]] for s in STATUSES if counts[s]], "lr")
        return long_table(header, rows, "lllll", title=f"All {len(rows)} rows",
                          summary=summary, caption=caption, name=name)

    def _cells(self, r: Row) -> list[str]:
        unit = f" {r.unit}" if r.unit else ""
        comp = "—" if r.computed is None else f"{r.computed:,.{r.digits}f}{unit}"
        pub = f"{r.published}{unit}" if r.published_value is not None else r.published
        word = "erratum" if r.status == "article error" else "see"
        link = f"({word} {{ref}}`{r.erratum}`)" if r.erratum else ""
        return [r.item, pub, comp, r.status, f"{r.note} {link}".strip()]

    def _repr_markdown_(self) -> str:
        return self.to_markdown()
