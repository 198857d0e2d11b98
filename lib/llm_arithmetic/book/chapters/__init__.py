"""Build code of the chapters: the tables and figures a chapter shows, as small functions of the
setting it studies (its ``MODEL``, ``CHIP`` and ``FORMAT``), so that a reader who changes the
setting in the chapter's ``parameters`` cell re-runs the whole chapter (issue 28).

One module per chapter, named after the chapter's file (``puzzle`` for
``notebooks/01-puzzle.ipynb``); a chapter imports its module in a hidden cell and calls one
function per table or figure. What two chapters share lives in :mod:`..display`, :mod:`..plots`
or :mod:`..prelude`.
"""
from __future__ import annotations

#: Display names of weight formats: llama.cpp's block formats and the microscaling formats are
#: written in capitals (Q4_0, MXFP4), the floating-point and integer widths as they are (fp16).
_CAPITALIZED = ("q", "mx", "nv")


def format_name(fmt: str) -> str:
    """A weight format's name as the prose writes it.

    >>> format_name("q4_0"), format_name("fp16"), format_name("mxfp4"), format_name("int4-g128")
    ('Q4_0', 'fp16', 'MXFP4', 'int4-g128')
    """
    return fmt.upper() if fmt.startswith(_CAPITALIZED) else fmt
