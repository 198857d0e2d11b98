"""Write the book's diagrams of mechanisms, one SVG each, into book/_static/diagrams/.

    .venv/bin/python book/_scripts/make_diagrams.py [OUTDIR]

One script per family of figures (``diagrams_*.py`` beside this one); each exposes
``DIAGRAMS``, a mapping of file stem to a function that returns an :class:`svg.Svg`. The output
is deterministic, so the committed files are compared with a fresh run by
tests/test_diagrams.py. Model dimensions come from the catalog: after a catalog change, run
this script and commit what changed.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import diagrams_bounds  # noqa: E402
import diagrams_model  # noqa: E402
import diagrams_serving  # noqa: E402

FAMILIES = (diagrams_model, diagrams_bounds, diagrams_serving)
OUT = HERE.parent / "_static" / "diagrams"


def all_diagrams() -> dict[str, str]:
    """File stem -> SVG text, for every diagram of every family."""
    out: dict[str, str] = {}
    for family in FAMILIES:
        for stem, draw in family.DIAGRAMS.items():
            if stem in out:
                raise ValueError(f"two diagrams named {stem!r}")
            out[stem] = draw().render()
    return out


def write(outdir: Path = OUT) -> list[Path]:
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for stem, text in all_diagrams().items():
        p = outdir / f"{stem}.svg"
        p.write_text(text, encoding="utf8")
        paths.append(p)
    return paths


if __name__ == "__main__":
    for p in write(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT):
        print(p)
