"""The weights an estimate counts: bits per weight of a format name, a llama.cpp file type or a
number, the plan's weight inputs for them (a file type's parts at their own bits), and the words
that say which weights were counted; the warning where a block format's name is also a file
type's.

Units: bits per weight [bit], bytes [B].

>>> from llm_arithmetic import get_model
>>> weight_bits(get_model("llama-2-7b"), "q4_0")
Fraction(9, 2)
"""
from __future__ import annotations

import warnings
from typing import Any

from .catalog.formats import (BITS_PER_WEIGHT, FILE_TYPE_PREFIX, bits_per_weight, file_type,
                              mix_bits, mix_copy_bits, mix_parts, shared_name)
from .catalog.model import Model
from .core.errors import InputError

__all__ = ["FileTypeWarning", "weight_bits", "block_format_note", "warn_block_format",
           "weight_inputs", "module_follows", "weights_as"]

class FileTypeWarning(UserWarning):
    """A weight-format name that is also a llama.cpp file type (``q4_0``), read as the block
    format: :func:`block_format_note` says how to ask for the file."""


def weight_bits(model: Model, weights: str | None = None, bits_weight: Any = None) -> Any:
    """Bits per weight of ``model`` for a format name, a llama.cpp file type (``"q4_k_m"``:
    computed per model from its tensors, :func:`~llm_arithmetic.catalog.formats.mix_bits`) or a
    number; None for neither (the checkpoint as shipped) [bit]."""
    if weights is not None and bits_weight is not None:
        raise InputError("give either weights (a format name) or bits_weight, not both")
    if weights is None and bits_weight is None:
        return None
    mix = file_type(weights)
    if mix is not None:
        return mix_bits(model, mix.name)
    return bits_per_weight(weights if weights is not None else bits_weight)


def _bytes_text(b: float) -> str:
    """A byte count for a note: three significant figures in MB or GB (10^6, 10^9 B)."""
    return f"{b / 1e9:.3g} GB" if abs(b) >= 1e9 else f"{b / 1e6:.3g} MB" if abs(b) >= 1e6 \
        else f"{b:,.0f} B"


def block_format_note(model: Model, weights: Any) -> str | None:
    """One line where ``weights`` is a bare name that is both a block format and a llama.cpp
    file type (``q2_k``, ``q4_0``, ``q6_k``, ``q8_0``): it is read as the block format, every
    weight at the block's bits, and ``mostly_`` + the name asks for the file llama.cpp writes,
    whose rules type some tensors otherwise (a Q4_0 file's output head at Q6_K, its 1-D tensors
    at F32), with the weight bytes the file adds for ``model`` (or a word that its tensors are
    not modelled for it). None for any other name.

    >>> from llm_arithmetic import get_model
    >>> block_format_note(get_model("llama-2-7b"), "Q4_0")
    "'Q4_0' is read as the block format (every weight at 4.5 bits); the llama.cpp Q4_0 file, whose rules give some tensors other types, is mostly_q4_0 (34.7 MB more for llama-2-7b)"
    >>> block_format_note(get_model("llama-2-7b"), "q4_k_m") is None
    True
    """
    key = shared_name(weights)
    if key is None:
        return None
    note = (f"{weights.strip()!r} is read as the block format (every weight at "
            f"{float(BITS_PER_WEIGHT[key]):g} bits); the llama.cpp {key.upper()} file, whose "
            f"rules give some tensors other types, is {FILE_TYPE_PREFIX}{key}")
    try:
        block, whole = (model.plan.child(**weight_inputs(model, w)).get("weight_bytes")
                        for w in (key, FILE_TYPE_PREFIX + key))
    except InputError:   # a family whose llama.cpp tensors are not modelled: no byte count
        return f"{note} (its tensors are not modelled for {model.name})"
    more = float(whole - block)
    return (f"{note} ({_bytes_text(abs(more))} {'more' if more >= 0 else 'less'} for "
            f"{model.name})")


def warn_block_format(model: Model, weights: Any, stacklevel: int = 2) -> None:
    """Warn (:class:`FileTypeWarning`, :func:`block_format_note`'s line) where ``weights`` is a
    block format's name that is also a llama.cpp file type's."""
    note = block_format_note(model, weights)
    if note is not None:
        warnings.warn(note, FileTypeWarning, stacklevel=stacklevel + 1)


def weight_inputs(model: Model, weights: str | None = None,
                  bits_weight: Any = None) -> dict[str, Any]:
    """The plan's weight inputs for a format name, a llama.cpp file type or a number: one
    ``bits_weight`` for every weight of a format or a number (:func:`weight_bits`); for a file
    type, the bits of the parts the plan counts apart, as it does a checkpoint's own
    (``native_bits_*``), so that a decode step reads each part at its own bits, not at the
    file's mean [bit]. Most file types take them from the types of the file's tensors
    (:func:`~llm_arithmetic.catalog.formats.mix_parts`): the embedding rows a step does not
    read (``unread``: an untied input table, Gemma 4 E2B/E4B's per-layer table), the routed
    experts' matrices (``experts``) and every other weight (``default``). So does a file type
    that names the experts' type (``mxfp4_moe``: experts MXFP4, every other matrix Q8_0, the
    1-D tensors and routers F32 as in ggml-org's gpt-oss files: the experts' matrices at 4.25
    bits with their F32 biases, the rest a little above Q8_0's 8.5). A model's
    multi-token-prediction module follows the weights asked as the rest does: its own bits as
    shipped (``native_bits_draft``, ``native_bits_draft_experts``) give way to them.

    >>> from llm_arithmetic import get_model
    >>> m = get_model("gpt-oss-20b")
    >>> weight_inputs(m, "q8_0")
    {'bits_weight': Fraction(17, 2)}
    >>> i = weight_inputs(m, "mxfp4_moe")
    >>> i["bits_weight"], round(float(i["native_bits_experts"]), 3)
    (None, 4.258)
    >>> round(float(i["native_bits_default"]), 3), i["native_bits_unread"]
    (8.549, Fraction(17, 2))
    >>> i = weight_inputs(get_model("gemma-4-e4b"), "q4_k_m")
    >>> i["bits_weight"], i["native_bits_unread"], round(float(i["native_bits_default"]), 3)
    (None, Fraction(105, 16), 5.12)
    """
    mix = file_type(weights)
    if mix is None or bits_weight is not None:
        # one figure for every weight (weight_bits also refuses weights and bits_weight both)
        return {"bits_weight": weight_bits(model, weights, bits_weight)}
    parts = mix_parts(model, mix.name)
    # what tensor parallelism copies, at the types the file gives those tensors (norms and
    # biases F32, key/value projections at attn_k's and attn_v's types, ...); a class the file
    # types do not price, at the file's bits for the other weights
    return {"bits_weight": None, **module_follows(model),
            **{f"native_bits_{k}": v for k, v in parts.items()},
            **{f"native_bits_copy_{k}": v for k, v in mix_copy_bits(model, mix.name).items()}}


def module_follows(model: Model) -> dict[str, Any]:
    """The plan's inputs that make a multi-token-prediction module's weights, and the copies a
    tensor-parallel group holds, follow the parts of a llama.cpp file type asked for the model:
    their own bits as shipped (``native_bits_draft``, ``native_bits_draft_experts``,
    ``native_bits_copy_*``, ``native_bits_draft_copy_*``, the shared head's
    ``native_bits_head``) set to None, so that the plan counts them at the file's bits for
    the same parts; {} where the model has none of its own.

    >>> from llm_arithmetic import get_model
    >>> sorted(module_follows(get_model("deepseek-v3")))[-3:], module_follows(get_model("llama-3-8b"))
    (['native_bits_draft_experts', 'native_bits_draft_inputs', 'native_bits_head'], {})
    """
    return {f"native_bits_{k}": None for k in ("draft", "draft_experts", "draft_inputs",
                                                "draft_blocks", "head", "copy_heads",
                                                "copy_matrices", "copy_router", "copy_plain",
                                                "draft_copy_heads", "draft_copy_matrices",
                                                "draft_copy_router", "draft_copy_plain")
            if k in model.native_bits}


def weights_as(model: Model, weights: Any = None, bits_weight: Any = None) -> str:
    """Which weights an estimate counts, in words: the checkpoint's own (its quantization
    scheme, or 16-bit) unless a format or a number of bits was given.

    >>> from llm_arithmetic import get_model
    >>> weights_as(get_model("deepseek-v3"))
    'as shipped: fp8 block-scaled 128x128'
    >>> weights_as(get_model("llama-3-8b")), weights_as(get_model("llama-3-8b"), "q4_k_m")
    ('as shipped: 16-bit', 'as asked: q4_k_m')
    """
    if weights is not None:
        return f"as asked: {weights}"
    if bits_weight is not None:
        return f"as asked: {float(bits_weight):g} bits"
    if model.scheme is not None:
        return f"as shipped: {model.scheme.label}"
    return f"as shipped: {float(model.native_bits['default']):g}-bit"
