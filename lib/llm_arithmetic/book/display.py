r"""What a chapter needs to show things: glued numbers, equations, figures, tables, names.

Chapters import everything at once (:mod:`llm_arithmetic.book.prelude`); the conventions these
helpers serve are in ``book/STYLE.md``. Outside the book's build (Colab, a plain Jupyter), the
glue functions still display what they glue, so the notebooks read and run anywhere.

* :func:`glue` -- a number for the prose (``{glue:text}`name:.1f```), floats rounded;
* :func:`glue_math` -- an equation for ``{glue:math}`` with a ``:label:``, printed from the
  registry's expression (:func:`llm_arithmetic.core.display.latex`), never typed by hand;
* :func:`glue_figure` -- a figure for ``{glue:figure}`` with a caption and alt text, after
  :func:`llm_arithmetic.book.figure_check.check_figure` (text size, collisions, units);
* :func:`md_table`, :func:`long_table` -- Markdown tables; a long one collapsed in a dropdown
  under a short summary;
* :func:`chip_name`, :func:`model_name` -- chips and models by their proper names;
* :func:`cite`, :func:`escape`, :func:`key`, :func:`show_formula`.

>>> print(md_table(["model", "params"], [["Llama 2 7B", "6,738,415,616"]], "lr").data)
| model | params |
| --- | ---: |
| Llama 2 7B | 6,738,415,616 |
>>> cite(["finbarr2023llamacpp"])
'{cite:t}`finbarr2023llamacpp`'
>>> equation_latex("roofline_time")
't = \\max\\left(\\frac{\\mathcal{B}}{\\beta_{mem}}, \\frac{\\mathcal{F}}{R_{peak}}\\right)'
"""
from __future__ import annotations

import math
import os
import re
import sys
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Sequence

from .figure_check import check_figure, fit_width, unclutter

__all__ = ["glue", "glue_math", "glue_figure", "equation_latex", "md_table", "long_table",
           "cite", "escape", "key", "chip_name", "chip_cell", "fmt_peak", "model_name", "model_cell", "family_cell",
           "stack_lines", "show_formula", "round_sig"]


def round_sig(value: float, digits: int = 6) -> float:
    """``value`` rounded to ``digits`` significant digits: what glue stores, so that the last
    bits of a BLAS or libm result (which differ between CPUs) never reach a compared output.

    >>> round_sig(2.621626987410462), round_sig(123456789.0, 3)
    (2.62163, 123000000.0)
    """
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - int(math.floor(math.log10(abs(value)))))


#: The package whose import compiles jsonschema's IRI grammars (see :func:`without_iri_grammars`).
IRI_MODULE = "rfc3987_syntax"


@contextmanager
def without_iri_grammars() -> Iterator[None]:
    """``import rfc3987_syntax`` fails inside the block; afterwards it works again.

    jsonschema, which myst-nb's glue imports through nbformat, checks the ``iri`` string format
    only when ``rfc3987_syntax`` is installed, and that package compiles 39 Lark grammars when
    imported: about 3 s of CPU in every notebook kernel that glues a number. Nothing here
    validates an IRI, so the import is refused while myst-nb loads, and a reader's kernel is left
    as it was. (Build and test processes refuse it for good: ``tools/jupyter_imports.py``.)

    >>> before = sys.modules.get(IRI_MODULE, "absent")
    >>> with without_iri_grammars():
    ...     sys.modules[IRI_MODULE] is None  # so `import rfc3987_syntax` raises ImportError
    True
    >>> sys.modules.get(IRI_MODULE, "absent") is before  # as it was
    True
    """
    refused = IRI_MODULE not in sys.modules
    if refused:
        sys.modules[IRI_MODULE] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if refused and IRI_MODULE in sys.modules and sys.modules[IRI_MODULE] is None:
            del sys.modules[IRI_MODULE]


def _myst_glue():
    # myst-nb's glue imports nbformat, so jsonschema: without its 3-s IRI grammars, and only
    # while myst-nb loads
    try:
        with without_iri_grammars():
            from myst_nb import glue as _glue
            import myst_nb.ext.glue  # noqa: F401  (what myst_nb.glue imports when first called)
    except ImportError:  # Colab, plain Jupyter
        return None
    return _glue


def glue(name: str, value: Any, display: bool = False, digits: int = 6) -> None:
    """Hand ``value`` to the book's prose (myst-nb's ``glue``); floats (and NumPy floats) are
    stored rounded to ``digits`` significant digits (the prose formats them further). A no-op
    without myst-nb."""
    _glue = _myst_glue()
    if _glue is None:
        return
    if isinstance(value, float) or type(value).__name__ in ("float64", "float32"):
        value = round_sig(float(value), digits)
    elif type(value).__name__ in ("int64", "int32"):
        value = int(value)
    _glue(name, value, display=display)


# ---- equations --------------------------------------------------------------------------------

def equation_latex(what: Any, lhs: Any = None, order: Iterable[str] = (),
                   multiline: bool = False, factor: tuple[Any, Any] | None = None,
                   collapse: Iterable[str] = ()) -> str:
    """The LaTeX of an equation, as the book prints it.

    ``what`` is a registered formula (its name or the object: ``lhs = expression``, factors in
    the order of its parameters), or a sympy expression or relation (an ``Eq``, ``Le``, ...).
    ``lhs`` (a sympy symbol, or a glossary name) puts ``lhs =`` in front of an expression.
    ``multiline`` sets a long sum one term per line, and a product's sum, a max or a case
    within a term over lines of their own (``core.display.latex_lines``), so that it fits a
    phone's width. ``factor=(numerator, denominator)`` prints the expression's rational
    coefficient as that fraction, unevaluated (:func:`with_factor`). ``collapse`` names
    registered formulas whose whole expression, where the equation holds it, is printed as
    that formula's left-hand side (an equation printed beside it says what it stands for).

    >>> print(equation_latex("batched_step_bytes", multiline=True))  # short: one line
    \\mathcal{B} = W + \\mathcal{K} B
    >>> # F_pre less attention's 2 L H d_head T (T + 1) per prompt at R_peak, attention's at R_attn;
    >>> # the max's second argument, too wide for a line, one term per line
    >>> tex = equation_latex("prefill_time", multiline=True, collapse=["prefill_flops"])
    >>> for line in tex.split(r" \\\\ "):
    ...     print(line)
    \\begin{aligned} t_{pre} &= \\max\\left(\\frac{W + \\kappa T B}{\\beta_{mem}}, \\right.
    &\\quad \\quad \\left. \\frac{B F_{pre} - 2 L H d_{head} T B \\left(T + 1\\right)}{R_{peak}} \\right.
    &\\quad \\quad \\left. + \\frac{2 L H d_{head} T B \\left(T + 1\\right)}{R_{attn}}\\right) \\end{aligned}
    >>> # per sequence, the weights' 2 P_mm at R_peak and attention's 4 L H d_head S at R_attn
    >>> for line in equation_latex("decode_step_time", multiline=True).split(r" \\\\ "):
    ...     print(line)
    \\begin{aligned} t_{dec} &= \\max\\left(\\frac{W + \\kappa S B}{\\beta_{mem}}, \\right.
    &\\quad \\quad \\left. \\frac{2 P_{mm} B}{R_{peak}} + \\frac{4 L H d_{head} S B}{R_{attn}}\\right) \\end{aligned}
    """
    from ..core.display import latex, latex_lines
    from ..articles import all_formulas
    from ..core.registry import Formula
    from ..core.symbols import GLOSSARY

    if isinstance(what, str):
        what = all_formulas()[what]
    if isinstance(what, Formula):
        if lhs is None and not multiline and factor is None and not collapse:
            return what.latex()
        lhs = what.lhs if lhs is None else lhs
        what, order = what.expr, what.params
    for name in collapse:
        inner = all_formulas()[name]
        collapsed = what.subs(inner.expr, GLOSSARY[inner.lhs].symbol)
        if collapsed == what:
            raise ValueError(f"the equation does not hold {name}'s expression to collapse")
        what = collapsed
    if factor is not None:
        what = with_factor(what, *factor)
    if isinstance(lhs, str):
        lhs = GLOSSARY[lhs].symbol
    if multiline:
        terms = latex_lines(what, order=order)
        if len(terms) == 1:  # short enough for one line
            return terms[0] if lhs is None else f"{latex(lhs)} = {terms[0]}"
        head = f"{latex(lhs)} &= " if lhs is not None else "&"
        rest = "".join(f" \\\\ &\\quad {t}" for t in terms[1:])
        return f"\\begin{{aligned}} {head}{terms[0]}{rest} \\end{{aligned}}"
    body = latex(what, order=order)
    if lhs is not None:
        body = f"{latex(lhs)} = {body}"
    return body


def with_factor(expr: Any, numerator: Any, denominator: Any) -> Any:
    r"""``expr`` with its rational coefficient written as ``numerator/denominator``, neither
    evaluated, for display: a million tokens over the seconds of an hour reads
    $10^{6}/3600$, not $2500/9$. The value is unchanged; a fraction that is not the
    coefficient is an error.

    >>> import sympy as sp
    >>> from llm_arithmetic.core.display import latex
    >>> x, y = sp.symbols("x y", positive=True)
    >>> e = with_factor(sp.Rational(2500, 9) * x / y, sp.Pow(10, 6, evaluate=False), 3600)
    >>> latex(e), e.doit() == sp.Rational(2500, 9) * x / y
    ('\\frac{10^{6} x}{3600 y}', True)
    >>> with_factor(2 * x, 3, 4)
    Traceback (most recent call last):
    ValueError: factor 3/4 is not the coefficient 2 of 2*x
    """
    import sympy as sp

    coeff, rest = sp.sympify(expr).as_coeff_Mul()
    if sp.sympify(numerator).doit() / sp.sympify(denominator).doit() != coeff:
        raise ValueError(f"factor {numerator}/{denominator} is not the coefficient {coeff} "
                         f"of {expr}")
    num, den = rest.as_numer_denom()
    below = sp.Mul(denominator, *sp.Mul.make_args(den), evaluate=False)
    return sp.Mul(numerator, *sp.Mul.make_args(num), sp.Pow(below, -1, evaluate=False),
                  evaluate=False)


def glue_math(name: str, what: Any, lhs: Any = None, order: Iterable[str] = (),
              multiline: bool = False, factor: tuple[Any, Any] | None = None,
              collapse: Iterable[str] = ()) -> None:
    """Glue an equation (see :func:`equation_latex`) under ``name`` for a labelled, numbered
    display in the prose::

        ```{glue:math} eq-roofline
        :label: eq-roofline
        ```

    and refer to it as ``{eq}`eq-roofline```. Outside the book the equation is displayed."""
    from IPython.display import Math, display

    tex = equation_latex(what, lhs=lhs, order=order, multiline=multiline, factor=factor,
                         collapse=collapse)
    _glue = _myst_glue()
    if _glue is None:
        display(Math(tex))
    else:
        _glue(name, Math(tex), display=True)


def show_formula(name: str) -> Any:
    """A registered formula's equation, as the book prints it (LaTeX, left-hand side first)."""
    from IPython.display import Math

    return Math(equation_latex(name))


# ---- figures ----------------------------------------------------------------------------------

def glue_figure(name: str, fig: Any = None, check: bool = True) -> None:
    """Glue a Matplotlib figure (the current one by default) for ``{glue:figure}``, which gives
    it its caption, label and alt text in the prose::

        ```{glue:figure} fig-puzzle-roofline
        :name: fig-puzzle-roofline
        :alt: What the figure shows, in words.

        The caption.
        ```

    The figure is checked first (:func:`~llm_arithmetic.book.figure_check.check_figure`: text
    at least 9 pt, no overlapping labels, a unit on every numeric axis) and narrowed where its
    saved width would exceed the book's column
    (:func:`~llm_arithmetic.book.figure_check.fit_width`: shown at its own size, its 9 pt text
    stays 9 pt), then closed.

    With the environment variable ``LLM_ARITHMETIC_FAST_FIGURES`` set (the second-setting run
    of the chapters, tests/test_second_setting.py), the figure is checked but not rendered: a
    short text stands in for it."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    fig = fig if fig is not None else plt.gcf()
    if check:
        try:
            check_figure(fig)  # draws the figure
        except ValueError:
            if not unclutter(fig):  # labels placed for another setting's lines
                raise
            check_figure(fig)
    if fit_width(fig, drawn=check) and check:
        check_figure(fig)  # narrower: check its texts again
    _glue = _myst_glue()
    if os.environ.get("LLM_ARITHMETIC_FAST_FIGURES"):
        if _glue is not None:
            _glue(name, f"figure {name}", display=False)
    elif _glue is None:
        display(fig)
    else:
        _glue(name, fig, display=True)
    plt.close(fig)


# ---- tables -----------------------------------------------------------------------------------

def escape(text: str) -> str:
    """Escape what Markdown would read as emphasis or as the end of a table cell."""
    return str(text).replace("*", r"\*").replace("|", r"\|")


def _table_lines(header: Sequence[str], rows: Iterable[Sequence[Any]],
                 align: str | None) -> list[str]:
    align = align or "l" * len(header)
    if len(align) != len(header):
        raise ValueError(f"align {align!r} has {len(align)} marks for {len(header)} columns")
    sep = ["---:" if a == "r" else ":---:" if a == "c" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def _captioned(lines: list[str], caption: str | None, name: str | None) -> list[str]:
    if caption is None and name is None:
        return lines
    if not caption:
        raise ValueError(f"table {name!r}: a labelled table needs a caption")
    head = [f":::{{table}} {caption}"] + ([f":name: {name}"] if name else []) + [""]
    return head + lines + [":::"]


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]],
             align: str | None = None, caption: str | None = None,
             name: str | None = None) -> Any:
    """A Markdown table (rendered by the book as a table); ``align``: one of l/r/c per column.

    With ``caption`` (and ``name``, its label ``tbl-<chapter>-<slug>``) the table is numbered
    and captioned, and the prose refers to it as ``{numref}`tbl-...```.

    >>> print(md_table(["a"], [[1]], caption="One row.", name="tbl-x-one").data)
    :::{table} One row.
    :name: tbl-x-one
    <BLANKLINE>
    | a |
    | --- |
    | 1 |
    :::
    """
    from IPython.display import Markdown

    return Markdown("\n".join(_captioned(_table_lines(header, rows, align), caption, name)))


def long_table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None,
               title: str | None = None, summary: tuple | None = None,
               caption: str | None = None, name: str | None = None) -> Any:
    """A long table collapsed in a dropdown (``title``, by default "All N rows"), under an
    optional short ``summary`` table given as ``(header, rows, align)`` and captioned with
    ``caption``/``name`` (see :func:`md_table`): a page shows the few rows a reader needs and
    keeps the rest one click away."""
    from IPython.display import Markdown

    rows = list(rows)
    out = []
    if summary is not None:
        out += _captioned(_table_lines(*summary), caption, name) + [""]
    title = title or f"All {len(rows)} rows"
    out += [f"::::{{dropdown}} {title}", *_table_lines(header, rows, align), "::::"]
    return Markdown("\n".join(out))


def key(name: str) -> str:
    """A glue-key fragment from a catalog name: ``key("llama-2-7b") == 'llama_2_7b'``."""
    return name.replace("-", "_").replace(".", "_")


# ---- names ------------------------------------------------------------------------------------

def chip_name(chip: Any, detail: bool = False) -> str:
    """A chip's proper name for a figure or a table: its catalog label without the variant in
    parentheses (``detail=True`` keeps it).

    >>> from llm_arithmetic import get_hardware
    >>> chip_name(get_hardware("m2")), chip_name(get_hardware("h100-sxm"))
    ('Apple M2', 'NVIDIA H100 SXM')
    >>> chip_name(get_hardware("m1"))
    'Apple M1'
    """
    label = chip.label
    if detail:
        return label
    return label.split(" (")[0].split(",")[0].strip()


def chip_cell(chip: Any) -> str:
    """A table cell naming a chip in full, with its catalog key under the name.

    >>> from llm_arithmetic import get_hardware
    >>> chip_cell(get_hardware("a10"))
    'NVIDIA A10<br>`a10`'
    """
    return f"{escape(chip.label)}<br>`{chip.name}`"


def fmt_peak(peak: Any) -> str:
    """A peak rate in T(FL)OP/s for a table, marked (v) when it runs on the vector units.

    >>> from llm_arithmetic import get_hardware
    >>> fmt_peak(get_hardware("a10").peaks["fp16"]), fmt_peak(get_hardware("m2").peaks["fp32"])
    ('125', '3.579 (v)')
    """
    return f"{peak.rate / 1e12:,.5g}" + (" (v)" if peak.engine == "vector" else "")


def model_name(model: Any) -> str:
    """A model's proper name (its catalog label), from a Model, a catalog entry or a name.

    >>> model_name("llama-2-7b")
    'Llama 2 7B'
    """
    if isinstance(model, str):
        from ..catalog.model_catalog import CATALOG

        return CATALOG[model].label or model
    return getattr(model, "label", "") or getattr(model, "name", str(model))


def stepwise_cache_note(model: Any, label: str, context: int, at: str) -> str | None:
    """The footnote of a table row whose model has a cache that is not proportional to the
    context (DeepSeek-V4's compressed attention: a window and one entry per m_c tokens), so no
    figure per token: what it grows by, and its mean per token at ``context`` tokens (``at``
    says that context in the caption's words) [B]. None for a model with a cache per token.

    >>> from llm_arithmetic import get_model
    >>> stepwise_cache_note(get_model("llama-2-7b"), "Llama 2 7B", 4096, "4K tokens") is None
    True
    >>> print(stepwise_cache_note(get_model("deepseek-v4-flash"), "V4", 131072, "128K tokens"))
    V4's cache grows by steps (a window, one entry per 4 or 128 tokens), so it has no figure per token: at 128K tokens it is 7,016 B a token on average
    """
    if not model.uncounted_for("kv_layer"):
        return None
    ratios = sorted({run.attention.compress for run in model.layers
                     if run.attention is not None and run.attention.compress})
    return (f"{label}'s cache grows by steps (a window, one entry per "
            f"{' or '.join(str(r) for r in ratios)} tokens), so it has no figure per token: at "
            f"{at} it is {model.kv_cache_bytes(context) / context:,.0f} B a token on average")


def model_cell(model: Any) -> str:
    """A table cell naming a model (a Model or a catalog entry), with its catalog key under
    the name.

    >>> from llm_arithmetic.catalog.model_catalog import CATALOG
    >>> model_cell(CATALOG["llama-2-7b"])
    'Llama 2 7B<br>`llama-2-7b`'
    """
    m = getattr(model, "model", model)
    return f"{escape(model_name(model))}<br>`{m.name}`"


def family_cell(model: Any) -> str:
    """A table cell naming a model's family (its ``model_type``), breakable after each
    underscore (``<wbr>``, no character: a copy of the cell is the name) so that a long name
    (``hunyuan_v1_moe``) wraps in a narrow column instead of widening the table; a long name
    written as one word (``granitemoehybrid``, over 12 letters) breaks before the words ``moe``
    and ``hybrid`` inside it too.

    >>> from llm_arithmetic.catalog.model_catalog import CATALOG
    >>> family_cell(CATALOG["qwen3-30b-a3b"]), family_cell(CATALOG["llama-2-7b"])
    ('qwen3_<wbr>moe', 'llama')
    >>> family_cell(CATALOG["granite-4.0-h-tiny"])
    'granite<wbr>moe<wbr>hybrid'
    """
    m = getattr(model, "model", model)
    parts = [re.sub(r"(?<=.)(moe|hybrid)", r"<wbr>\1", part) if len(part) > 12 else part
             for part in escape(m.family).split("_")]
    return "_<wbr>".join(parts)


def stack_lines(model: Any, width: int = 36) -> list[str]:
    """A model's stack of layers in a few lines: runs of identical blocks; a stack of many short
    runs (alternating windows, hybrids) as one letter per block, the pattern that repeats when
    there is one, and a legend of the letters.

    >>> from llm_arithmetic.catalog.model_catalog import get_model
    >>> stack_lines(get_model("gemma-3-1b"))[0]
    '26 layers: `AAAAAB` repeated (4x + 2)'
    """
    m = getattr(model, "model", model)
    lines = m.describe_layers()
    if len(lines) <= 4:
        return lines
    kinds = [run.describe() for run in m.layers for _ in range(run.count)]
    legend = list(dict.fromkeys(kinds))
    letters = "".join("ABCDEFGHIJ"[legend.index(k)] for k in kinds)
    n = len(letters)
    period = next((p for p in range(1, n // 2 + 1)
                   if all(letters[i] == letters[i % p] for i in range(n))), None)
    if period:
        extra = f" + {n % period}" if n % period else ""
        head = [f"{n} layers: `{letters[:period]}` repeated ({n // period}x{extra})"]
    else:
        head = [f"{n} layers: " + "<br>".join(f"`{letters[i:i + width]}`"
                                              for i in range(0, n, width))]
    return head + [f"{'ABCDEFGHIJ'[i]}: {k}" for i, k in enumerate(legend)]


def cite(keys: Iterable[str]) -> str:
    """MyST citations of bibliography keys, or a dash."""
    keys = list(keys)
    return ", ".join(f"{{cite:t}}`{k}`" for k in keys) if keys else "–"
