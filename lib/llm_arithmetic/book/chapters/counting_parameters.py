"""Chapter 3, counting parameters (``notebooks/03-counting-parameters.ipynb``): the GPT-style
approximation against the exact count over a catalog."""
from __future__ import annotations

from typing import Any, Mapping

from ...formulas import params
from ..display import model_name


def gpt_style_error(model: Any) -> float:
    """How far the GPT-style count :math:`12 L d^2 + V d` is from the exact count [%]."""
    gpt = params.gpt_params(n_layers=model.n_layers, d_model=model.d_model,
                            n_vocab=model.n_vocab)
    return 100 * (gpt - model.total_params) / model.total_params


def gpt_style_rows(entries: Mapping[str, Any]) -> tuple[list[list[str]], dict[str, float]]:
    """Table rows (model, GPT-style and exact totals, active, published, error) for catalog
    ``entries`` ({key: catalog entry}), and {key: error [%]} of the dense models (the
    approximation has no experts)."""
    rows, errors = [], {}
    for key, entry in entries.items():
        m = entry.model
        gpt = params.gpt_params(n_layers=m.n_layers, d_model=m.d_model, n_vocab=m.n_vocab)
        if m.is_moe:
            err = "n/a (MoE)"
        else:
            errors[key] = gpt_style_error(m)
            err = f"{errors[key]:+.1f}"
        published = (f"{entry.published_params:,}" if entry.published_params_exact
                     else f"{entry.published_params / 1e9:g}B")
        rows.append([model_name(entry), f"{gpt / 1e9:.3f}", f"{m.total_params:,}",
                     f"{m.active_params / 1e9:.3f}", published, err])
    return rows, errors
