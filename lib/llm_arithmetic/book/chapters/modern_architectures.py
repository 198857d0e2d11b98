"""Chapter 8, after GQA (``notebooks/08-modern-architectures.ipynb``): the attention layout of
windowed and chunked models, and what a decode step of current models reads."""
from __future__ import annotations

import textwrap
from typing import Any, Sequence

from ..matplotlib_on_demand import pyplot as plt
from ..plots import decode_bytes_breakdown


def attention_layout(m: Any) -> tuple[int, int, int, int | None]:
    """A model's attention layers by span, (full, sliding, chunked), and its window or chunk
    length (None without one)."""
    runs = [r for r in m.layers if r.attention is not None]
    n = {k: sum(r.count for r in runs if r.attention.span == k)
         for k in ("full", "sliding", "chunked")}
    span = {r.attention.window or r.attention.chunk for r in runs} - {None}
    return n["full"], n["sliding"], n["chunked"], span.pop() if span else None


def bytes_figure(models: Sequence[Any], context: int, weights: str) -> Any:
    """What one decode step of each model reads at ``context``, by kind, with the model names
    wrapped under the bars."""
    fig, ax = plt.subplots(figsize=(7, 4.8))
    decode_bytes_breakdown(models, context=context, weights=weights, ax=ax)
    ax.set_title("")
    ax.set_xticks(ax.get_xticks(),
                  [textwrap.fill(t.get_text(), 10) for t in ax.get_xticklabels()])
    return fig
