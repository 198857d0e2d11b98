"""The ledger of the common-mistakes chapter: each mistake's worked example, its mistaken and its
right value, and the error factor (wrong / right), for the prose (glued), the summary table and
the summary figure.

>>> book = Mistakes()
>>> book.add("gqa", "GQA ignored", "Llama 2 70B", "KV cache", 10.0, 1.25, "GiB")
>>> book.items[0].factor, book.rows[0][-1]
(8.0, '8')
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .display import glue

__all__ = ["Mistake", "Mistakes", "article_sparse_figures", "unread_shares", "embedding_rows",
           "unread_figure"]


@dataclass(frozen=True)
class Mistake:
    key: str
    mistake: str
    example: str
    quantity: str
    wrong: str
    right: str
    factor: float


@dataclass
class Mistakes:
    """Mistakes in the order the chapter meets them."""

    items: list[Mistake] = field(default_factory=list)

    def add(self, key: str, mistake: str, example: str, quantity: str, wrong: Any, right: Any,
            unit: str = "", scale: float = 1, digits: int = 2) -> None:
        """Record one mistake; glue its error factor as ``factor_<key>`` and its two values
        (formatted, with the unit) as ``wrong_<key>`` and ``right_<key>``."""
        factor = float(wrong) / float(right)

        def fmt(v: Any) -> str:
            return f"{float(v) / scale:,.{digits}f}" + (f" {unit}" if unit else "")

        item = Mistake(key, mistake, example, quantity, fmt(wrong), fmt(right), factor)
        self.items.append(item)
        glue(f"factor_{key}", factor)
        glue(f"wrong_{key}", item.wrong)
        glue(f"right_{key}", item.right)

    @property
    def rows(self) -> list[list[str]]:
        """The summary table's rows: mistake, example, quantity, wrong, right, wrong / right."""
        return [[m.mistake, m.example, m.quantity, m.wrong, m.right, f"{m.factor:.3g}"]
                for m in self.items]

    def span_decades(self) -> float:
        """Orders of magnitude between the largest and the smallest error factor."""
        factors = [m.factor for m in self.items]
        return float(np.log10(max(factors) / min(factors)))

    def figure(self, ax: Any = None) -> Any:
        """Horizontal bars from 1 to each error factor on a log axis, the smallest error at the
        bottom; red an overestimate, blue an underestimate, the factor written at the bar's
        end."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 5.6))
        order = sorted(self.items, key=lambda m: abs(np.log(m.factor)))
        for i, m in enumerate(order):
            f = m.factor
            ax.barh(i, f - 1 if f > 1 else 1 - f, left=1 if f > 1 else f,
                    color="C3" if f > 1 else "C0")
            ax.text(f * (1.15 if f > 1 else 1 / 1.15), i, f"{f:.3g}", va="center",
                    ha="left" if f > 1 else "right", fontsize=9)
        ax.set_yticks(range(len(order)), [m.mistake for m in order])
        ax.set_xscale("log")
        ax.set_xlim(0.02, 5000)
        ax.axvline(1, color="k", lw=1)
        ax.set_xlabel("error factor, wrong / right [ratio]")
        return ax


def article_sparse_figures(hardware: dict[str, Any]) -> list[list[str]]:
    """Rows of the chapter's table of peak rates that source articles used and that are a
    datasheet's sparse figure (within 1 %) and not the dense one: chip, article (a citation),
    precision, the article's rate [TFLOP/s], the sparse figures it matches, the dense rate.

    >>> from llm_arithmetic.catalog.hardware import HARDWARE
    >>> [row[0] for row in article_sparse_figures(HARDWARE)]
    ['NVIDIA H100 PCIe', 'NVIDIA GeForce RTX 4090']
    """
    from .display import chip_name
    rows = []
    for h in hardware.values():
        sparse_rates = {k: p.rate for k, p in h.peaks.items() if not p.dense}
        for f in h.article_figures:
            if not f.quantity.startswith("peak:"):
                continue
            own = h.peaks.get(f.quantity.removeprefix("peak:"))
            hits = [k for k, r in sparse_rates.items() if abs(f.value / r - 1) < 0.01]
            if hits and not (own is not None and abs(f.value / own.rate - 1) < 0.01):
                rows.append([chip_name(h), f"{{cite:t}}`{f.article}`",
                             f.quantity.removeprefix("peak:"), f"{f.value / 1e12:,.1f}",
                             ", ".join(hits), f"{own.rate / 1e12:,.1f}" if own else "–"])
    return rows


def unread_shares(catalog: dict[str, Any]) -> dict[str, float]:
    """For each catalog entry (``FIRST_EDITION``-like: key to an entry with a ``model``): the
    share of the parameters a token uses that a decode step does not read (the input embedding
    table's rows but one, in an untied model).

    >>> from llm_arithmetic.catalog.model_catalog import FIRST_EDITION
    >>> share = unread_shares(FIRST_EDITION)
    >>> share["gpt2"] < 0.05 < share["qwen2.5-7b"]  # tied GPT-2; untied Qwen2.5 7B
    True
    """
    return {n: 1 - e.model.decode_read_params / e.model.active_params
            for n, e in catalog.items()}


def embedding_rows(models: Any, share: dict[str, float]) -> list[list[str]]:
    """Rows of the chapter's table of used against read parameters: model, vocabulary,
    width, tied, active and read parameters [billion], share not read [%]."""
    from .display import model_name
    return [[model_name(m), f"{m.n_vocab:,}", f"{m.d_model:,}", "yes" if m.tied else "no",
             f"{m.active_params / 1e9:.3f}", f"{m.decode_read_params / 1e9:.3f}",
             f"{100 * share[m.name]:.1f}"] for m in models]


def unread_figure(catalog: dict[str, Any], share: dict[str, float]) -> Any:
    """A bar per dense model of ``catalog``: the share of its parameters a decode step does not
    read [%], in increasing order; tied models in grey."""
    from .display import model_name
    from .matplotlib_on_demand import pyplot as plt
    dense = [n for n in catalog if not catalog[n].model.is_moe]
    order = sorted(dense, key=lambda n: share[n])
    fig, ax = plt.subplots(figsize=(7, 4.8))
    ax.barh([model_name(catalog[n].model) for n in order], [100 * share[n] for n in order],
            color=["0.6" if catalog[n].model.tied else "C0" for n in order])
    ax.set_xlabel("parameters a decode step does not read [%]")
    return fig
