"""A small, deterministic SVG writer for the book's diagrams of mechanisms.

Every diagram is drawn on a light palette with a transparent background and real ``<text>``;
the book's stylesheet (``book/_static/book.css``, class ``diagram``) inverts its lightness in
the dark theme, which keeps the hues. The output depends only on the arguments: no dates, no
random ids, numbers printed with a fixed number of decimals.

Sizes: a diagram is at most ``WIDTH`` units wide and its smallest text is ``SMALL`` units, so
that at a 390 px phone (about 350 px of column) the smallest text is still about 10 px.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from xml.sax.saxutils import escape

#: Widest diagram [user units = CSS px at 1280].
WIDTH = 500
#: Text sizes [user units].
SMALL, BODY, HEAD = 14, 15, 17

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"

#: name -> (fill, stroke): light fills with a darker outline of the same hue.
PALETTE = {
    "weights": ("#dbeafe", "#1d4ed8"),   # blue: weights, parameters
    "cache": ("#ffedd5", "#c2410c"),     # orange: the KV cache
    "compute": ("#dcfce7", "#15803d"),   # green: arithmetic
    "act": ("#ede9fe", "#6d28d9"),       # violet: activations, tokens, requests
    "plain": ("#f3f4f6", "#4b5563"),     # grey: everything else
    "alert": ("#fee2e2", "#b91c1c"),     # red: what is wrong, wasted or idle
    "gold": ("#fef9c3", "#a16207"),      # yellow: a highlight, a selected item
}
INK = "#111827"
MUTED = "#4b5563"


def fmt(x: float, digits: int = 0) -> str:
    """A number with thousands separators and a fixed number of decimals."""
    return f"{x:,.{digits}f}"


def num(x: float) -> str:
    """A coordinate: at most two decimals, no trailing zeros."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


@dataclass
class Svg:
    """A diagram: its size, its title (the accessible name) and its elements in order."""

    width: float
    height: float
    title: str
    parts: list[str] = field(default_factory=list)

    def _add(self, s: str) -> None:
        self.parts.append(s)

    def rect(self, x, y, w, h, kind="plain", *, rx=4, dash=False, stroke_width=1.5,
             fill=None) -> None:
        f, s = PALETTE[kind]
        d = ' stroke-dasharray="5 4"' if dash else ""
        self._add(f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" '
                  f'rx="{num(rx)}" fill="{fill or f}" stroke="{s}" '
                  f'stroke-width="{num(stroke_width)}"{d}/>')

    def text(self, x, y, s, *, size=BODY, anchor="middle", weight="normal", color=INK,
             italic=False) -> None:
        """One line of text; ``y`` is the baseline."""
        assert size >= SMALL, f"text {s!r} below the smallest size"
        st = ' font-style="italic"' if italic else ""
        w = ' font-weight="bold"' if weight == "bold" else ""
        self._add(f'<text x="{num(x)}" y="{num(y)}" font-size="{size}" '
                  f'text-anchor="{anchor}" fill="{color}"{w}{st}>{escape(s)}</text>')

    def lines(self, x, y, rows, *, size=BODY, gap=None, **kw) -> None:
        """Several lines, the first baseline at ``y``."""
        gap = gap or round(size * 1.25)
        for i, r in enumerate(rows):
            self.text(x, y + i * gap, r, size=size, **kw)

    def box(self, x, y, w, h, label, kind="plain", *, size=BODY, sub=None, weight="normal",
            **kw) -> None:
        """A rectangle with one centred label (and an optional second line)."""
        self.rect(x, y, w, h, kind, **kw)
        if sub is None:
            self.text(x + w / 2, y + h / 2 + size * 0.35, label, size=size, weight=weight)
        else:
            self.text(x + w / 2, y + h / 2 - 3, label, size=size, weight=weight)
            self.text(x + w / 2, y + h / 2 + SMALL + 1, sub, size=SMALL, color=MUTED)

    def line(self, x1, y1, x2, y2, *, color=MUTED, width=1.5, dash=False, arrow=False) -> None:
        d = ' stroke-dasharray="5 4"' if dash else ""
        a = ' marker-end="url(#arrow)"' if arrow else ""
        self._add(f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" '
                  f'stroke="{color}" stroke-width="{num(width)}"{d}{a}/>')

    def arrow(self, x1, y1, x2, y2, **kw) -> None:
        self.line(x1, y1, x2, y2, arrow=True, **kw)

    def path(self, d, *, color=MUTED, width=1.5, fill="none", arrow=False, dash=False) -> None:
        a = ' marker-end="url(#arrow)"' if arrow else ""
        ds = ' stroke-dasharray="5 4"' if dash else ""
        self._add(f'<path d="{d}" fill="{fill}" stroke="{color}" '
                  f'stroke-width="{num(width)}"{a}{ds}/>')

    def circle(self, cx, cy, r, kind="plain") -> None:
        f, s = PALETTE[kind]
        self._add(f'<circle cx="{num(cx)}" cy="{num(cy)}" r="{num(r)}" fill="{f}" '
                  f'stroke="{s}" stroke-width="1.5"/>')

    def render(self) -> str:
        assert self.width <= WIDTH, f"{self.title}: {self.width} wider than {WIDTH}"
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(self.width)}" '
                f'height="{num(self.height)}" viewBox="0 0 {num(self.width)} {num(self.height)}" '
                f'role="img" font-family="{FONT}">\n'
                f'<title>{escape(self.title)}</title>\n'
                '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" '
                'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
                f'<path d="M0,0 L10,5 L0,10 z" fill="{MUTED}"/></marker></defs>\n')
        return head + "\n".join(self.parts) + "\n</svg>\n"
