r"""The formula behind each number: which step of the plan produced an estimate's key, its
registered formula as an equation, the values of its arguments, and the keys it reads.

Every key :func:`~llm_arithmetic.estimate.estimate` reports is a step of the plan
(:mod:`llm_arithmetic.plan.steps`). :func:`explain` reads that step and re-evaluates nothing
but what it shows: a registered formula (its name, the equation in plain text with the
glossary's names and in LaTeX with its symbols, the arguments with their values and units), a
sum over the layer stack (the term summed, and each part's contribution: attention, mixer,
MLP, norms), or a small operation (an addition, a quotient, the first value given). A
piecewise formula prints as its cases, one line each (``{ value  for condition``, then
``otherwise``), as the book prints them; where the cases with their values run past
:data:`WIDTH` characters, each is printed unaligned from its own line and broken before an
operator (the same text, other line breaks). A step that is no equation shows what it reads, with
values: a mean over the layers lists the layers by value; a solver is checked at its solution
(the largest context that fits, at it and one token past it; the batch where compute time
meets memory time, both times there); the precision chain, the chip's peaks and links show
the figures they pick from. A step that only passes on another (``first``, ``finite``,
``choose``: the bound is the roofline time where there is a peak rate) is explained by the
step it passes on. A value not computed for want of an input says which option gives it
(``- (not computed without --max-model-len)``) instead of an equation of dashes. An engine's view (:func:`llm_arithmetic.engine.engine_view`) is explained
the same way: each number of ``describe --engine``'s table is a step of ``ENGINE_STEPS``. ``depends_on`` lists the
steps it reads, each itself explainable, so a reader walks down from a time per token to the
bytes and the bandwidth, from the bytes to the parameters and the bits.

The forecast keys (``expected_*``) are steps too: the forecast's equation
:math:`t_{fc} = t\,(1 + k) + \delta\,t_{16} + \tau + \lambda L` with the fitted terms of the
stored fit (:func:`llm_arithmetic.forecast.forecast_inputs`) and its 80% interval's ratios.

>>> from llm_arithmetic import estimate
>>> e = estimate("llama-2-7b", hardware="h100-sxm", context=4096)
>>> x = explain(e, "decode_seconds_per_token")
>>> x.formula, x.step, x.value_text
('roofline_time', 'roofline_seconds', '4.586 ms (memory-bound)')
>>> print(x.equation)
t = max(ℬ/beta_mem, ℱ/R_peak)
>>> x.depends_on
('decode_step_bytes', 'decode_step_flops', 'bandwidth', 'decode_peak_flops')
>>> w = explain(e, "weight_bytes")
>>> w.op, [a.name for a in w.arguments]
('add', ['weight_bytes_other', 'weight_bytes_unread', 'weight_bytes_experts'])
"""
from __future__ import annotations

import functools
import math
import re
import textwrap
from fractions import Fraction
from numbers import Integral, Real
from typing import Any, Mapping, Sequence

from .core.errors import InputError
from .core.records import record
from .core.units import mixed_rate_unit, rate_unit
from .numeric._runtime import exact_result

__all__ = ["Argument", "Explanation", "explain", "explain_keys", "engine_key_steps",
           "format_value", "formula_texts", "glossary_texts"]


def _key_steps() -> Mapping[str, str]:
    """The estimate's output keys and the plan's step behind each
    (:data:`llm_arithmetic.estimate.FIELD_STEPS`)."""
    from .estimate import FIELD_STEPS

    return FIELD_STEPS


#: The engine view's fields whose step of the plan has another name (the reserve is an input:
#: ``engines.toml``'s empirical figure, or as given).
_ENGINE_RENAMES = {"engine_kv_memory_bytes": "engine_pool_memory",
                   "engine_state_page_bytes": "engine_state_page",
                   "max_concurrency": "engine_max_concurrency",
                   "engine_reserved_bytes": "engine_reserve"}


def engine_key_steps() -> dict[str, str]:
    """The engine view's keys (:class:`~llm_arithmetic.engine.EngineView`'s numbers, the rows
    of ``describe --engine``'s table) and the plan's step (``ENGINE_STEPS``) behind each."""
    from dataclasses import fields

    from .engine import EngineView

    return {f.name: _ENGINE_RENAMES.get(f.name, f.name) for f in fields(EngineView)
            if f.name.startswith(("engine_", "physics_", "max_"))}


def _keys_of(e: Any) -> Mapping[str, str]:
    """Output key -> step for an estimate, or for an engine view."""
    from .engine import EngineView

    return engine_key_steps() if isinstance(e, EngineView) else _key_steps()


#: Operations that pass another step's value on: explained by the step they pass on.
_PASSING = ("first", "finite", "choose")
#: Steps whose explanation says, beside the value, what another step says of it.
_NOTES = {"roofline_seconds": ("bound", "{}-bound"), "decode_seconds_per_token":
          ("bound", "{}-bound")}
#: Counts the table prints to other digits than :func:`format_value`'s four.
_TABLE_DIGITS = {"critical_batch_size": ",.1f", "critical_batch_closed": ",.1f",
                 "spec_tokens_per_step": ".3f"}
#: Units of the forecast's build-drift steps and input, and of the fitted terms read from the
#: records' fields (decode ``fc_*``, prefill ``fp_*``), which the rules of :func:`_unit` cannot
#: follow (a field has no unit of its own; without these ``fc_fixed`` printed the fixed cost
#: bare beside the drift in ms).
_STEP_UNITS = {"build_age": "year", "fc_age": "year", "fc_drift_layers": "s/year",
               "fc_drift_rate": "s/year", "fc_drift": "s", "fc_fixed": "s",
               "fc_tau": "s", "fc_mu": "s/layer/year", "fc_nu": "s/year", "fp_tau": "s"}
#: Units of the plan's inputs that the glossary does not name [unit].
_INPUT_UNITS = {"chip_bandwidth": "B/s", "given_bandwidth": "B/s", "chip_capacity": "B",
                "given_capacity": "B", "given_peak_flops": "FLOP/s", "chip_power": "W",
                "given_power": "W", "given_link_bandwidth": "B/s", "given_link_latency": "s",
                "price_per_hour": "USD/h", "overhead": "B", "extras_in_total": "1",
                "extras_read": "1", "extras_matmul": "1", "extras_copied": "1",
                "draft_cost": "1", "native_bits_default": "bit",
                "native_bits_experts": "bit", "native_bits_unread": "bit",
                "native_bits_draft": "bit", "native_bits_draft_experts": "bit",
                "native_bits_draft_inputs": "bit", "native_bits_draft_blocks": "bit",
                "own_bits_blocks": "bit", "own_bits_experts": "bit", "own_bits_inputs": "bit",
                "own_bits_head": "bit", "native_bits_head": "bit",
                **{f"native_bits_draft_copy_{k}": "bit"
                   for k in ("heads", "matrices", "router", "plain")},
                "own_inputs_read": "1",
                "engine_reserve": "B", "engine_kv_memory_given": "B", "engine_fraction": "1",
                "engine_free_fraction": "1", "engine_page": "token", "engine_ctx": "token",
                "engine_max_model_len": "token", "engine_seqs": "1", "engine_pad": "token",
                "engine_ubatch": "token"}


@record
class Argument:
    """One argument of an explained step.

    Attributes
    ----------
    name : str
        The formula's argument (a glossary name), or the operand's plan name.
    symbol : str
        Its glossary symbol in LaTeX ('' where it has none).
    key : str or None
        The plan's name its value comes from (a step or an input); None for a number.
    value : Any
        Its value, in the package's units.
    unit : str
        Its unit ('1': a count or a ratio).
    """

    name: str
    symbol: str
    key: str | None
    value: Any
    unit: str

    @property
    def text(self) -> str:
        """The value as the table prints it, with its unit."""
        return format_value(self.value, self.unit)


@record
class Explanation:
    """The step behind one key: what :func:`explain` returns.

    Attributes
    ----------
    key : str
        The key asked for (an output key or a step of the plan).
    step : str
        The plan's step that computed it (after any step that only passes a value on).
    op : str
        The step's operation: ``formula``, ``sum``, ``add``, ``mul``, ``div``, ...
    formula : str or None
        The registered formula's name (``llm-arithmetic formula NAME`` prints it).
    doc : str
        What the step is, as the plan says.
    equation : str
        The equation in plain text: glossary symbols without LaTeX, or the operation.
    latex : str
        The same in LaTeX ('' for an operation without a formula).
    substituted : str
        The equation with the arguments' values in place of their symbols.
    arguments : tuple of Argument
        The arguments (formula) or operands (other operations), in order.
    value : Any
        The result, in the package's units; ``unit`` its unit.
    value_text : str
        The result as the table prints it, with a note where the plan has one (the bound).
    depends_on : tuple of str
        The steps it reads, as the keys :func:`explain` takes.
    term : str or None
        For a sum over the layer stack: the term summed (:data:`~llm_arithmetic.plan.stack.TERMS`).
    parts : dict
        For a sum: each part's contribution (all layers), parts that add nothing left out.
    source : str
        For a forecast key, where its fitted terms come from; for a chip's figure, the
        catalog's source of it.
    forecast : str
        For a forecast key computed from a forecast step time (a rate, a time per token): that
        step's equation, and with its values.
    caveat : str
        For a forecast key, what its terms borrow ('' for nothing): the runtime's terms it has
        no fit rows for on the chip's class, pooled (:func:`~llm_arithmetic.forecast.forecast_caveat`).
    """

    key: str
    step: str
    op: str
    formula: str | None
    doc: str
    equation: str
    latex: str
    substituted: str
    arguments: tuple
    value: Any
    unit: str
    value_text: str
    depends_on: tuple
    term: str | None = None
    parts: dict | None = None
    source: str = ""
    forecast: str = ""
    caveat: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: numbers as int or float, arguments as objects."""
        return {"key": self.key, "step": self.step, "op": self.op, "formula": self.formula,
                "doc": self.doc, "equation": self.equation, "latex": self.latex,
                "substituted": self.substituted,
                "arguments": [{"name": a.name, "symbol": a.symbol, "key": a.key,
                               "value": _json(a.value), "unit": a.unit}
                              for a in self.arguments],
                "value": _json(self.value), "unit": self.unit, "value_text": self.value_text,
                "depends_on": list(self.depends_on), "term": self.term,
                "parts": None if self.parts is None else
                {k: _json(v) for k, v in self.parts.items()}, "source": self.source,
                "forecast": self.forecast, "caveat": self.caveat}

    def __str__(self) -> str:
        """The block ``describe --explain`` prints (:meth:`lines`)."""
        return "\n".join(self.lines())

    def lines(self) -> list[str]:
        """The block ``describe --explain`` prints: the equation, with numbers, the result,
        the keys it reads."""
        lhs, _, rhs = self.equation.partition(" = ") if self.formula else ("", "", "")
        rows = (rhs or self.equation).split("\n")
        # a piecewise equation: its later lines without the indentation under its first
        rows[1:] = [r[len(lhs) + 3:] for r in rows[1:]]
        out = _block(f"{self.key} = ", rows,
                     f"  [{self.formula}]" if self.formula else f"  [{self.op}]")
        if self.substituted:
            out += _block("  = ", self.substituted.split("\n"))
        if self.parts:
            out += _lines("by part: " + ", ".join(f"{k} {format_value(v, self.unit)}"
                                                  for k, v in self.parts.items()))
        out.append(f"  = {self.value_text}")
        if self.forecast:  # the step's equation, its values, its result: one line each
            first, *rest = self.forecast.split(" = ")
            out += _block(f"  where {first} ", [f"= {r}" for r in rest])
        if self.source:
            out += _lines(f"source: {self.source}")
        if self.caveat:
            out += _lines(f"caveat: {self.caveat}")
        if self.depends_on:
            out += _lines("from: " + ", ".join(self.depends_on))
        return out


#: The width ``describe --explain`` wraps a piecewise formula's cases at, in characters, and
#: any other equation that runs past :data:`LIMIT` (one of 81-100 characters is easier to read
#: whole than broken inside a ``max``).
WIDTH = 80
LIMIT = 100
#: A case of a piecewise expression as :func:`_join` aligns it: ``{ value  for condition``.
_CASE = re.compile(r"\{ (.*?) {2,}(for .*|otherwise)")
#: Where a line may break, by preference: before a relation or a sum's operator (the space
#: dropped), before the condition of a case, between two parenthesized values of a product or
#: a quotient; a level is used only where the ones before it leave a line too long.
_BREAKS = (re.compile(r" (?=(?:[-+<>]|<=|>=) )"), re.compile(r"  (?=for |otherwise$)"),
           re.compile(r"(?<=\)[*/])(?=\()"))


def _lines(text: str) -> list[str]:
    """A note under an explanation (its source, the keys it reads) in lines of :data:`WIDTH`,
    broken between words only (a URL stays whole), later lines indented further."""
    return textwrap.wrap(text, WIDTH, initial_indent="  ", subsequent_indent="    ",
                         break_long_words=False, break_on_hyphens=False)


def _block(prefix: str, rows: Sequence[str], tag: str = "") -> list[str]:
    """Rows of an equation or of its values after ``prefix`` (later rows under the first,
    ``tag`` after the first). A piecewise expression's cases, aligned when they fit in
    :data:`WIDTH`; else each case on its own line unaligned, wrapped where it still does not
    fit (:func:`_wrap`); rows of any other expression wrapped at :data:`WIDTH` when one runs
    past :data:`LIMIT`: the same text, only the line breaks differ."""
    indent = " " * len(prefix)
    lines = [prefix + rows[0] + tag] + [indent + r for r in rows[1:]]
    cases = [_CASE.fullmatch(r) for r in rows]
    longest = max(len(line) for line in lines)
    if longest <= WIDTH:
        return lines
    if len(rows) < 2 or not all(cases):  # not piecewise: wrapped only past LIMIT, then at WIDTH
        if longest <= LIMIT:
            return lines
        out = []
        for i, row in enumerate(rows):
            wrapped = _wrap(row, WIDTH - len(prefix) - len(tag) * (i == 0),
                            WIDTH - len(prefix) - 2)
            out.append((prefix if i == 0 else indent) + wrapped[0] + (tag if i == 0 else ""))
            out += [indent + "  " + w for w in wrapped[1:]]
        return out
    out: list[str] = []
    room = WIDTH - len(prefix)
    for i, m in enumerate(cases):
        hang = 6  # under the value, past the case's brace
        wrapped = _wrap(f"{{ {m.group(1)}  {m.group(2)}", room - len(tag) * (i == 0),
                        room - hang)
        out.append((prefix + wrapped[0] + tag) if i == 0 else indent + wrapped[0])
        out += [indent + " " * hang + w for w in wrapped[1:]]
    return out


def _wrap(text: str, first: int, rest: int, level: int = 0) -> list[str]:
    """``text`` as lines of at most ``first`` characters (the first) and ``rest`` (the others),
    broken where :data:`_BREAKS` allows, the preferred breaks first (a piece longer than its
    line after every level stays whole)."""
    pieces, joints, start = [], [], 0
    for m in _BREAKS[level].finditer(text):
        pieces.append(text[start:m.start()])
        joints.append(m.group())
        start = m.end()
    pieces.append(text[start:])
    lines = [pieces[0]]
    for joint, piece in zip(joints, pieces[1:]):
        if len(lines[-1] + joint + piece) <= (first if len(lines) == 1 else rest):
            lines[-1] += joint + piece
        else:
            lines.append(piece)
    if level + 1 == len(_BREAKS):
        return lines
    out: list[str] = []
    for line in lines:
        limit = rest if out else first
        out += [line] if len(line) <= limit else _wrap(line, limit, rest, level + 1)
    return out


def _json(v: Any) -> Any:
    if isinstance(v, Fraction):
        return exact_result(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (bool, str, int, float)) or v is None:
        return v
    if isinstance(v, Real):
        return float(v)
    if isinstance(v, (list, tuple)):
        return [_json(x) for x in v]
    return str(v)


def format_value(v: Any, unit: str) -> str:
    """A value with its unit, rounded as ``describe``'s table rounds it: times in ms (3
    decimals), bandwidths in GB/s and peaks in TFLOP/s (1 decimal), bytes and FLOPs whole,
    rates to 1 decimal, anything else to 4 significant digits.

    >>> format_value(0.004555123, "s"), format_value(13476831232, "B")
    ('4.555 ms', '13,476,831,232 B')
    >>> format_value(3.35e12, "B/s"), format_value(Fraction(17, 4), "bit"), format_value(True, "1")
    ('3,350.0 GB/s', '4.25 bit', 'yes')
    """
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return v
    if not isinstance(v, Real):
        return str(v)
    x = float(v)
    if math.isinf(x):
        return "inf"
    if unit == "s":
        return f"{x * 1e3:,.3f} ms" if abs(x) < 1 else f"{x:,.3f} s"
    if unit == "B/s":
        return f"{x / 1e9:,.1f} GB/s"
    if unit in ("FLOP/s", "OP/s", "(OP+FLOP)/s"):   # OP/s: an integer precision's rate (int8)
        return f"{x / 1e12:,.1f} T{unit}"
    suffix = "" if unit in ("1", "") else f" {unit}"
    if isinstance(v, Integral) or unit in ("B", "FLOP") or (unit == "token" and x.is_integer()):
        # bytes and FLOPs whole, as the table prints them, and a whole number of tokens
        return f"{x:,.0f}{suffix}"
    if unit in ("token/s", "FLOP/B", "OP/B", "(OP+FLOP)/B"):
        return f"{x:,.1f}{suffix}"
    return f"{x:,.4g}{suffix}"


# ---- units --------------------------------------------------------------------------------
def _unit(steps: Mapping[str, Any], name: Any, seen: frozenset = frozenset()) -> str:
    """The unit of a plan name: a formula's, a summed term's, an input's glossary unit, or
    what an operation makes of its operands'; '' where none is known."""
    glossary = _glossary()

    if not isinstance(name, str) or name in seen:
        return "1" if isinstance(name, dict) and "literal" in name else ""
    if name in _STEP_UNITS:
        return _STEP_UNITS[name]
    seen = seen | {name}
    step = steps.get(name)
    if step is None:
        if name in _INPUT_UNITS:
            return _INPUT_UNITS[name]
        return glossary[name][2] if name in glossary else ""
    op = step["op"]
    if op == "formula":
        return _formulas()[step["formula"]].unit
    if op in ("sum", "mean"):
        from .plan.stack import TERMS

        for formula, bindings in TERMS[step["term"]]["cases"].values():
            if formula != "=":
                return _formulas()[formula].unit
        return "1"
    if op in ("gt", "le", "among"):
        return "1"
    if op in ("rate", "link"):
        return "FLOP/s" if op == "rate" else "B/s"
    if op in ("chain", "precision"):
        return ""
    if op == "solve":
        return glossary[step["var"]][2] if step["var"] in glossary else ""
    operands = _operands(step)
    if op == "choose":
        operands = operands[1:]
    units = [_unit(steps, x, seen) for x in operands]
    if op == "mul":
        rest = [u for u in units if u not in ("1", "")]
        if len(rest) > 1 and "token" in rest:  # tokens a step yields x a time per token
            rest.remove("token")
        return rest[0] if len(rest) == 1 else "1" if not rest else "*".join(rest)
    if op == "div":
        a, b = units
        if a == b:
            return "1"
        if b in ("1", "", "token"):  # a time per token is a time [s]
            return a
        return f"{'token' if a in ('1', '') else a}/{b}"
    for u in units:
        if u:
            return u
    return ""


def _operands(step: Mapping[str, Any]) -> list[Any]:
    """The names (or literals) an operation reads, in order."""
    op = step["op"]
    if op == "add":
        return list(step.get("plus", ())) + list(step.get("minus", ()))
    if op in ("mul", "div", "first", "gt", "le"):
        return list(step["of"])
    if op in ("finite", "among", "field"):
        return [step["of"]]
    if op == "choose":
        return [step["when"], step["then"], step["otherwise"]]
    if op == "at":
        return [step["target"]]
    if op == "rate":
        return [step["precision"]]
    if op == "solve":
        keys = ("value", "budget") if step["solver"] == "largest" else ("rises", "falls")
        return [step[k] for k in keys]
    if op in ("sum", "mean"):
        return list(step.get("plus", ())) + list(step.get("minus", ()))
    if op == "chain":
        return [step["format"], step["bits"], step["vendor"]]
    if op == "precision":
        return [step["chain"], step["peaks"], step["unless"]]
    if op == "link":
        return [step["interconnect"], *step["chips"]]
    return []


@record
class _Stored:
    """A formula as :mod:`llm_arithmetic.numeric.explain_text` stores it: what an explanation
    reads of it, printed once by ``tools/generate.py`` (no sympy at run time)."""

    name: str
    params: tuple
    unit: str
    lhs: str  #: the left-hand side's symbol, plain
    tex: str  #: the whole equation in LaTeX
    rows: tuple  #: the right-hand side's rows, every parameter a mark (:func:`_marked_rows`)


class _Registry(dict):
    """Formulas by name: the stored text's, else (a formula registered since, e.g. in a
    notebook) the registry's, printed with sympy on first use."""

    def __missing__(self, name: str) -> Any:
        from .articles import all_formulas

        return all_formulas()[name]


@functools.lru_cache(maxsize=1)
def _formulas() -> Mapping[str, Any]:
    """The formulas an explanation reads: the stored text of every registered formula
    (:mod:`llm_arithmetic.numeric.explain_text`), which answers without importing sympy."""
    from .numeric.explain_text import FORMULAS

    return _Registry({name: _Stored(name, *record) for name, record in FORMULAS.items()})


@functools.lru_cache(maxsize=1)
def _glossary() -> Mapping[str, tuple[str, str, str]]:
    """Glossary name -> (plain symbol, LaTeX symbol, unit), as stored
    (:mod:`llm_arithmetic.numeric.explain_text`)."""
    from .numeric.explain_text import SYMBOLS

    return SYMBOLS


# ---- equations ----------------------------------------------------------------------------
#: Script capitals (LaTeX ``\\mathcal``) in Unicode: the step's bytes are not the batch.
_SCRIPT = {c: chr(0x1D49C + i) for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}
_SCRIPT.update({"B": "\u212c", "E": "\u2130", "F": "\u2131", "H": "\u210b", "I": "\u2110",
                "L": "\u2112", "M": "\u2133", "R": "\u211b"})


def _plain(symbol: Any) -> str:
    """A glossary symbol's LaTeX name as plain text: ``\\beta_{mem}`` -> ``beta_mem``,
    ``\\mathcal{B}`` -> a script B."""
    text = re.sub(r"\\mathcal\{(\w)\}", lambda m: _SCRIPT[m.group(1)], str(symbol))
    for a in ("\\", "{", "}"):
        text = text.replace(a, "")
    return text


def _relation(cond: Any) -> Any:
    """A piecewise condition as the book prints it: a side compared with zero that subtracts
    terms has them moved across (``a - b <= 0`` as ``a <= b``), a "greater than" read as the
    "less than" it is (``b >= a`` as ``a <= b``)."""
    import sympy as sp

    if not isinstance(cond, sp.core.relational.Relational):
        return cond
    if cond.rhs == 0 and cond.lhs.is_Add:
        neg = [-t for t in cond.lhs.args if t.could_extract_minus_sign()]
        pos = [t for t in cond.lhs.args if not t.could_extract_minus_sign()]
        if neg and pos:
            cond = cond.func(sp.Add(*pos), sp.Add(*neg), evaluate=False)
    if isinstance(cond, (sp.GreaterThan, sp.StrictGreaterThan)) and cond.rhs != 0:
        cond = cond.reversed
    return cond


def _printer(order: Sequence[str] = (), names: Mapping[Any, str] | None = None) -> Any:
    """sympy's plain printer with the book's ordering (:class:`~llm_arithmetic.core.display.
    BookOrder`: the terms, factors and ``max``/``min`` arguments in the order of the book's
    LaTeX; ``order``: the formula's parameters), symbols by their plain names or by ``names``,
    ``max``/``min`` in lower case and a piecewise expression inside another as
    ``{a for condition; b otherwise}``."""
    from sympy.printing.str import StrPrinter

    from .core.display import BookOrder

    shown = dict(names or {})

    class Plain(BookOrder, StrPrinter):
        def _print_Symbol(self, expr: Any) -> str:
            return shown.get(expr) or _plain(expr)

        def _print_Max(self, expr: Any) -> str:
            return "max(" + ", ".join(self._print(a) for a in self._ordered_args(expr)) + ")"

        def _print_Min(self, expr: Any) -> str:
            return "min(" + ", ".join(self._print(a) for a in self._ordered_args(expr)) + ")"

        def _print_Piecewise(self, expr: Any) -> str:
            return "{" + "; ".join(f"{v} {c}" for v, c in _case_rows(self, expr)) + "}"

    return Plain(order=tuple(order))


def _case_rows(printer: Any, expr: Any) -> list[tuple[str, str]]:
    """A piecewise expression's cases: (value, ``for condition`` or ``otherwise``)."""
    import sympy as sp

    return [(printer._print(v), "otherwise" if c is sp.true else
             f"for {printer._print(_relation(c))}") for v, c in expr.args]


def _rows(expr: Any, order: Sequence[str] = (),
          names: Mapping[Any, str] | None = None) -> list[tuple[str, str]]:
    """Plain text of an expression as rows (:func:`_printer`'s arguments): one ('', text), or
    a piecewise one's cases (value, ``for condition`` / ``otherwise``)."""
    import sympy as sp

    printer = _printer(order, names)
    if not isinstance(expr, sp.Piecewise):
        return [("", printer.doprint(expr))]
    return _case_rows(printer, expr)


def _join(rows: Sequence[tuple[str, str]], fix: Any = None) -> str:
    """Rows of :func:`_rows` as text: a piecewise expression's cases one line each, their
    values aligned (``{ value  for condition``), as the book prints them. ``fix`` rewrites each
    piece before the alignment (values in place of placeholders)."""
    fix = fix or (lambda t: t)
    rows = [(fix(v), fix(c)) for v, c in rows]
    if len(rows) == 1 and not rows[0][0]:
        return rows[0][1]
    width = max(len(v) for v, _ in rows)
    return "\n".join(f"{{ {v:<{width}}  {c}" for v, c in rows)


#: Text of each formula by name (left-hand side, LaTeX, marked rows): stored, or printed with
#: sympy once for a formula registered since.
_TEXT: dict[str, tuple[Any, ...]] = {}


def _mark(i: int) -> str:
    """The mark of a formula's ``i``-th parameter in :func:`_marked_rows` (the index makes each
    mark unique, none part of another)."""
    return f"#{i}#"


def _marked_rows(f: Any) -> tuple[tuple[str, str], ...]:
    """The right-hand side of a registered formula as :func:`_rows` prints it, every parameter
    printed as its mark: the printer orders by the expression's own symbols, so the marks change
    only the text. What ``tools/generate.py`` stores for each formula."""
    from .core.symbols import GLOSSARY

    marks = {GLOSSARY[p].symbol: _mark(i) for i, p in enumerate(f.params)}
    return tuple(_rows(f.expr, f.params, marks))


def formula_texts() -> dict[str, tuple[Any, ...]]:
    """Every registered formula's text as :mod:`llm_arithmetic.numeric.explain_text` stores it:
    name -> (parameters, unit, plain left-hand side, LaTeX, marked rows). Prints with sympy."""
    from .articles import all_formulas

    return {name: (tuple(f.params), f.unit, _plain(f.lhs_symbol), f.latex(), _marked_rows(f))
            for name, f in sorted(all_formulas().items())}


def glossary_texts() -> dict[str, tuple[str, str, str]]:
    """Every glossary symbol as :mod:`llm_arithmetic.numeric.explain_text` stores it: name ->
    (plain symbol, the LaTeX an argument shows, unit). Prints with sympy."""
    from .core.display import latex
    from .core.symbols import GLOSSARY

    return {name: (_plain(info.symbol), latex(info.symbol), info.unit)
            for name, info in sorted(GLOSSARY.items())}


def _formula_text(f: Any, values: Mapping[str, str]) -> tuple[str, str, str]:
    """(plain equation, LaTeX, the right-hand side with ``values`` in place of symbols); a
    piecewise right-hand side spans a line per case (later lines indented under the first).
    Read from the stored text (:class:`_Stored`) without sympy; a formula registered since is
    printed with it."""
    hit = _TEXT.get(f.name)
    if hit is None:
        if isinstance(f, _Stored):
            hit = (f.lhs, f.tex, f.rows)
        else:
            hit = (_plain(f.lhs_symbol), f.latex(), _marked_rows(f))
        _TEXT[f.name] = hit
    lhs, tex, rows = hit
    glossary = _glossary()
    plain = {p: glossary[p][0] if p in glossary else p for p in f.params}

    def fill(given: Mapping[str, str]) -> Any:
        def fix(text: str) -> str:
            for i, p in enumerate(f.params):
                text = text.replace(_mark(i), f"({given[p]})" if p in given else plain[p])
            return text
        return fix

    head = f"{lhs} = "
    equation = head + _join(rows, fill({})).replace("\n", "\n" + " " * len(head))
    return equation, tex, _join(rows, fill(values))


# ---- the explanation ------------------------------------------------------------------------
def _evaluator(e: Any, runtime: str | None, forecast: bool, build_date: Any = None) -> Any:
    ev = getattr(e, "_plan", None)
    if ev is None:
        raise InputError("explain needs an Estimate that estimate() returned (its plan is "
                         "not kept by a copy)")
    if not forecast:
        return ev
    from .forecast import build_age_years, chip_class_of, forecast_inputs, resolve_runtime

    runtime = resolve_runtime(runtime)
    age = build_age_years(build_date, runtime)
    return ev.child(**forecast_inputs(chip_class_of(e.hardware), runtime),
                    **({"build_age": age} if build_date is not None else {}))


def _origin(ev: Any, name: str) -> str:
    """The step whose value ``name`` passes on (itself when it computes its own)."""
    steps = ev.steps
    seen = set()
    while name in steps and name not in seen:
        seen.add(name)
        step = steps[name]
        if "if" in step:
            cond = ev.get(step["if"])
            if cond is None or cond is False or (cond == 0 and not isinstance(cond, str)):
                other = step.get("else")
                if isinstance(other, str):
                    name = other
                    continue
                return name
        op = step["op"]
        if op == "first":
            nxt = next((x for x in step["of"] if ev.ref(x) is not None), None)
        elif op == "finite":
            nxt = step["of"]
        elif op == "choose":
            nxt = step["then"] if ev.ref(step["when"]) else step["otherwise"]
        else:
            return name
        if not isinstance(nxt, str) or nxt not in steps:
            return name
        name = nxt
    return name


def _display_key(name: str, keys: Mapping[str, str]) -> str:
    """A step's name as :func:`explain` takes it: its output key where it has one."""
    back = {v: k for k, v in keys.items()}
    return back.get(name, name)


def _symbol(name: str) -> str:
    glossary = _glossary()
    return glossary[name][1] if name in glossary else ""


#: Rates of attention's products: their unit is their precision's, not the weights'.
_ATTENTION_RATES = frozenset({"attention_peak_flops", "chip_attention_flops", "attn_peak_flops"})


def _takes_attention_rate(ev: Any, name: Any) -> bool:
    """Whether the plan's ``name`` is built from attention's rate (``attention_peak_flops``)
    without being it: a step's effective rate (``decode_peak_flops``, ``prefill_peak_flops``,
    ...), which mixes the weights' products and attention's (:func:`_reads`, every step down)."""
    if not isinstance(name, str) or name in _ATTENTION_RATES:
        return False
    return "attention_peak_flops" in _reads(ev, name, depth=len(ev.steps))


def _integer_rate(ev: Any, unit: str, *names: Any) -> str:
    """A rate's unit as the chip's peak has it (:func:`~llm_arithmetic.core.units.rate_unit`),
    where the chip's rate is used (a given peak is in FLOP/s): attention's rates (``names``
    among them) at attention's precision, a step's effective rate built from both at both
    (:func:`~llm_arithmetic.core.units.mixed_rate_unit`), every other at the weights'."""
    if unit not in ("FLOP/s", "FLOP/B") or ev.get("given_peak_flops") is not None:
        return unit
    if any(isinstance(n, str) and n in _ATTENTION_RATES for n in names):
        return rate_unit(ev.get("attention_precision"), unit)
    if any(_takes_attention_rate(ev, n) for n in names):
        return mixed_rate_unit(ev.get("compute_precision"), ev.get("attention_precision"), unit)
    return rate_unit(ev.get("compute_precision"), unit)


def _argument(ev: Any, name: str, source: Any) -> Argument:
    key = source if isinstance(source, str) else None
    value = ev.ref(source)
    return Argument(name=name, symbol=_symbol(name), key=key, value=value,
                    unit=_integer_rate(ev, _unit(ev.steps, source) or _unit(ev.steps, name),
                                       name, source))


def _explain_formula(ev: Any, step: Mapping[str, Any]) -> dict[str, Any]:
    f = _formulas()[step["formula"]]
    bindings = step.get("args", {})
    args = []
    for p in f.params:
        source = bindings.get(p, p)
        if isinstance(source, str) and source not in ev.steps and source not in ev.values \
                and ev.get(source, default=True) is _default():
            continue  # the formula's default
        args.append(_argument(ev, p, source))
    equation, tex, _ = _formula_text(f, {})
    _, _, substituted = _formula_text(f, {a.name: a.text for a in args})
    return dict(formula=f.name, equation=equation, latex=tex, substituted=substituted,
                arguments=tuple(args), unit=f.unit)


def _default() -> Any:
    from .plan.interpreter import DEFAULT

    return DEFAULT


_OP_TEXT = {"mul": " * ", "div": " / "}


def _explain_op(ev: Any, step: Mapping[str, Any], unit: str) -> dict[str, Any]:
    op = step["op"]
    operands = _operands(step)
    args = tuple(_argument(ev, x if isinstance(x, str) else "literal", x) for x in operands)
    names = [x if isinstance(x, str) else format_value(ev.ref(x), "1") for x in operands]
    texts = [a.text for a in args]
    if op in ("add", "sum"):
        n_plus = len(step.get("plus", ()))
        head = [f"sum of {step['term']} over the layers"] if op == "sum" else []

        def join(items: Sequence[str]) -> str:
            body = " + ".join(head + list(items[:n_plus])) or "0"
            return " - ".join([body, *items[n_plus:]])
        equation, substituted = join(names), join(texts)
        if op == "sum":
            substituted = ""
    elif op in _OP_TEXT:
        equation, substituted = _OP_TEXT[op].join(names), _OP_TEXT[op].join(texts)
    elif op in ("gt", "le"):
        sign = " > " if op == "gt" else " <= "
        equation, substituted = sign.join(names), sign.join(texts)
    elif op == "mean":
        equation = f"mean of {step['term']} over the layers that have it"
        args = _mean_terms(ev, step, unit)
        total = sum(a.value[0] for a in args)
        substituted = "(" + " + ".join(f"{a.value[0]} x {format_value(a.value[1], unit)}"
                                       for a in args) + f") / {total}" if args else ""
        args = tuple(Argument(name=a.name, symbol="", key=None, value=a.value[1], unit=unit)
                     for a in args)
    elif op == "solve":
        equation, substituted, args = _explain_solve(ev, step, unit)
    elif op == "rate":
        equation = f"{step['peaks']}[{step['precision']}]"
        args = (_argument(ev, step["precision"], step["precision"]),)
        substituted = f"the dense peak at {args[0].text}"
    elif op == "chain":
        fmt, bits, vendor = args
        equation = (f"the compute precision of {step['format']} (where it names vendors, only "
                    f"on a chip whose {step['vendor']} is one of them) and its fallback, else "
                    f"{step['wide']} where {step['bits']} >= {step['wide_bits']}; then "
                    f"{', '.join(step['fallbacks'])}")
        args = (_described(fmt, _format_text(fmt.value)), bits, vendor)
        substituted = f"{args[0].text}; {bits.name} = {bits.text}; {vendor.name} = {vendor.text}"
    elif op == "precision":
        chain, peaks, unless = args
        equation = (f"the first of {step['chain']} that {step['peaks']} has, or its faster "
                    f"mode ({', '.join(f'{k} -> {v}' for k, v in step['faster'].items())}) where "
                    f"{step['peaks']} has it (the first of them where {step['unless']} is given)")
        rates = peaks.value or {}
        listed = [f"{p} {format_value(rates[p]['rate'], rate_unit(p))}" if p in rates else
                  f"{p} (none)" for p in chain.value or ()]
        args = (chain, _described(peaks, ", ".join(listed) or "-"), unless)
        substituted = f"{', '.join(listed)}; {unless.name} = {unless.text}"
    elif op == "link":
        ic, *chips = args
        equation = (f"the scale-up link where max({', '.join(step['chips'])}) chips fit in "
                    "one scale-up domain (PCIe where the card has no other), else the "
                    "scale-out network's")
        fields = ("scale_up_domain", "scale_up_bandwidth", "pcie_bandwidth",
                  "scale_out_bandwidth")
        record = ic.value or {}
        shown = [f"{k} {format_value(record.get(k), '1' if k.endswith('domain') else 'B/s')}"
                 for k in fields if k in record]
        args = (_described(ic, ", ".join(shown) or "-"), *chips)
        substituted = (f"max({', '.join(c.text for c in chips)}) chips; "
                       f"{args[0].text}")
    elif op == "field":
        record = args[0].value
        equation = f"{step['of']}[{step['key']}]"
        args = (Argument(name=f"{step['of']}[{step['key']}]", symbol="", key=step["of"],
                         value=None if record is None else record.get(step["key"]), unit=unit),)
        substituted = args[0].text
    elif op == "at":
        with_ = step["with"]
        equation = (f"{step['target']} with " +
                    ", ".join(f"{k} = {v if isinstance(v, str) else ev.ref(v)}"
                              for k, v in with_.items()))
        args = tuple(_argument(ev, k, v) for k, v in with_.items())
        substituted = f"{step['target']} at " + ", ".join(f"{a.name} = {a.text}"
                                                          for a in args)
    else:
        equation, substituted = f"{op}({', '.join(names)})", f"{op}({', '.join(texts)})"
    if op == "sum":
        args = ()
    return dict(formula=None, equation=equation, latex="", substituted=substituted,
                arguments=tuple(args), unit=unit)


def _described(a: Argument, text: str) -> Argument:
    """An argument whose value is a record (a format, a chip's peaks or links), shown by the
    figures the step reads of it."""
    return Argument(name=a.name, symbol=a.symbol, key=a.key, value=text, unit="")


def _format_text(fmt: Any) -> str:
    if not fmt:
        return "-"
    return (f"compute {fmt['compute']}"
            + (f" on {' or '.join(fmt['compute_vendors'])} chips" if fmt.get("compute_vendors")
               else "")
            + (f", fallback {fmt['compute_fallback']}" if fmt.get("compute_fallback") else ""))


def _mean_terms(ev: Any, step: Mapping[str, Any], unit: str) -> list[Argument]:
    """The layers a mean is over: one argument per part and value, valued (layers, value)."""
    from .plan.interpreter import part_scope, part_term, step_lookup
    from .plan.stack import PARTS

    lookup = step_lookup(ev, step.get("args", {}))
    groups: dict[tuple[str, Any], int] = {}
    for count, block in ev.get("blocks"):
        for part in PARTS:
            raw = block.get(part)
            if raw is None or (step.get("parts") is not None and part not in step["parts"]):
                continue
            try:
                value = part_term(step["term"], part_scope(part, raw), lookup, {})
            except Exception:  # a term the part lacks: the mean says so (None)
                return []
            if value is not None:
                key = (part, exact_result(value) if isinstance(value, Fraction) else value)
                groups[key] = groups.get(key, 0) + count
    return [Argument(name=f"{part} ({n} layers)", symbol="", key=None, value=(n, v), unit=unit)
            for (part, v), n in groups.items()]


def _explain_solve(ev: Any, step: Mapping[str, Any], unit: str) -> tuple[str, str, tuple]:
    """A solver's equation, its check at the solution (and past it), and those values."""
    var, x = step["var"], ev.get(step["name"])
    if step["solver"] == "largest":
        value, budget = step["value"], step["budget"]
        equation = f"largest {var} with {value} <= {budget}"
        limit = ev.ref(step["limit"])
        b = _argument(ev, budget, budget)
        if x is None:
            blank = _not_counted(ev, var, (value, budget))
            if blank:
                return equation, blank, (b,)
            return equation, f"{value} stays within {budget} up to {var} = {limit:,}", (b,)
        vu = _unit(ev.steps, value)
        at = [Argument(name=f"{value} at {var} = {n:,}", symbol="", key=value,
                       value=ev.child(**{var: n}).get(value), unit=vu) for n in (x, x + 1)]
        substituted = (f"at {var} = {x:,}: {at[0].text} <= {b.text}; at {x + 1:,}: "
                       f"{at[1].text} > {b.text}")
        return equation, substituted, (at[0], at[1], b)
    rises, falls = step["rises"], step["falls"]
    equation = f"{var} where {rises} reaches {falls}"
    if x is None:
        blank = _not_counted(ev, var, (rises, falls))
        if blank:
            return equation, blank, ()
        return equation, f"{rises} stays below {falls} up to {var} = " \
            f"{ev.ref(step['limit']):,.0f}", ()
    child = ev.child(**{var: x})
    at = tuple(Argument(name=f"{n} at {var} = {x:,.1f}", symbol="", key=n,
                        value=child.get(n), unit=_unit(ev.steps, n)) for n in (rises, falls))
    return equation, f"at {var} = {x:,.1f}: {at[0].text} = {at[1].text}", at


def _not_counted(ev: Any, var: str, names: Sequence[str]) -> str:
    """Why a solver found nothing where a quantity it compares has no value at all (a cache
    the library does not count): the solver did not search, so it did not find the quantity
    staying below the other up to its limit. Empty where every quantity has a value."""
    probe = ev.child(**{var: 1})
    blank = [n for n in names if probe.get(n) is None]
    return f"not counted: {' and '.join(blank)} {'has' if len(blank) == 1 else 'have'} " \
           "no value" if blank else ""


def _parts(ev: Any, step: Mapping[str, Any]) -> dict[str, Any]:
    """Each part's contribution to a sum over the stack (parts that add nothing left out)."""
    from .plan.interpreter import fold, step_lookup
    from .plan.stack import PARTS

    lookup = step_lookup(ev, step.get("args", {}))
    out = {}
    for part in PARTS:
        v = fold(ev.get("blocks"), step["term"], lookup, [part])
        if v:
            out[part] = exact_result(v) if isinstance(v, Fraction) else v
    return out


def _source(ev: Any, step: str) -> str:
    """Where a forecast step's fitted terms come from, with their values."""
    deps = _reads(ev, step, depth=6)
    # the prefill's record is the one its bound's rate chose (prefill_terms)
    fits = [n for n in ("forecast_decode", "prefill_terms") if n in deps or n == step]
    if not fits:
        return ""
    from .forecast_fit import PARAMS_PATH

    out = []
    for name in fits:
        rec = ev.get(name) or {}
        # the build drift's terms only where a build was asked for (today's pays none)
        aged = name == "forecast_decode" and ev.get("build_age") is not None
        terms = ", ".join(f"{_FIT_NAMES.get(k, k)} {_short(v)}{_FIT_UNITS.get(k, '')}"
                          for k, v in rec.items() if aged or k not in _DRIFT_KEYS)
        label = "decode fit" if name == "forecast_decode" else \
            "prefill fit of int8 kernels" if ev.get("prefill_int8") and ev.get(
                "forecast_prefill_int8") else "prefill fit"
        out.append(f"{label} ({terms})")
    return "; ".join(out) + f", stored in lab/data/{PARAMS_PATH.name} (scripts/fit_forecast.py)"


def _caveat(e: Any, ev: Any, step: str, runtime: str | None) -> str:
    """What a forecast step's fitted terms borrow (:func:`~llm_arithmetic.forecast.
    forecast_caveat`), for the fits it reads: the decode fit's, the prefill fit's, or both."""
    from .forecast import chip_caveat, resolve_runtime
    from .forecast_fit import load_params

    deps = _reads(ev, step, depth=6) | {step}
    decode, prefill = "forecast_decode" in deps, "prefill_terms" in deps
    if not (decode or prefill):
        return ""
    p = load_params()
    text, _ = chip_caveat(p, e.hardware, resolve_runtime(runtime, p), prefill=prefill,
                          decode=decode)
    return text or ""


#: Units of the fitted terms as the forecast's records hold them.
_FIT_UNITS = {"tau": " s", "lambda": " s/layer", "mu": " s/layer/year", "nu": " s/year"}
#: The decode record's build-drift terms (:func:`~llm_arithmetic.forecast_fit.drift_terms_for`).
_DRIFT_KEYS = ("mu", "nu")
#: The fitted terms by the symbols of the forecast's equation (the records' keys are shorter):
#: the interval's ends are the two values of q_fc.
_FIT_NAMES = {"k": "k_rt", "tau": "t_rt", "lambda": "lambda_rt", "low": "q_fc low",
              "high": "q_fc high"}


def _short(v: Any) -> str:
    return "-" if v is None else f"{float(v):.4g}"


def _reads(ev: Any, name: str, depth: int) -> set[str]:
    """The names a step reads, ``depth`` steps down."""
    from .plan.interpreter import step_refs

    out: set[str] = set()
    frontier = [name]
    for _ in range(depth):
        nxt = []
        for n in frontier:
            if n in ev.steps:
                refs = step_refs(ev.steps[n])[0]
                nxt += [r for r in refs if r not in out]
                out |= refs
        frontier = nxt
    return out


def explain(e: Any, key: str, runtime: str | None = None,
            options: Mapping[str, str] | None = None, build_date: Any = None) -> Explanation:
    """The step of the plan behind ``key`` of the estimate ``e``
    (:func:`~llm_arithmetic.estimate.estimate`): an output key (``decode_seconds_per_token``,
    ``weight_bytes``, ``expected_decode_tokens_per_second``, ...) or any step's name. For the
    forecast keys, ``runtime`` names the fitted runtime (None: the runtime-agnostic fit), as
    ``describe --runtime`` does, and ``build_date`` the day of a llama.cpp build
    (:func:`~llm_arithmetic.forecast.expected`'s; None: today's build), as
    ``--build-date``. A value not computed for want of an input names the keyword
    of :func:`~llm_arithmetic.estimate.estimate` that gives it, or ``options[keyword]`` (the
    command line passes its options). An unknown key raises an :class:`InputError` naming the
    known output keys.

    >>> from llm_arithmetic import estimate
    >>> e = estimate("llama-2-7b", hardware="rtx-4090", weights="q4_0")
    >>> x = explain(e, "kv_cache_bytes_per_token")
    >>> x.op, x.term, x.parts
    ('sum', 'kv_layer', {'attention': 524288})
    >>> f = explain(e, "expected_decode_tokens_per_second", runtime="llama.cpp")
    >>> f.op, f.depends_on
    ('div', ('fc_tokens', 'fc_decode_step'))
    >>> explain(e, "fc_decode_step").formula
    'forecast_step_time'
    """
    if not isinstance(key, str):
        raise InputError(f"explain: a key is a name (a string), got {type(key).__name__}")
    ks = _keys_of(e)
    base = key[:-len("_range")] if key.endswith("_range") else key
    name = ks.get(base, base)
    forecast = name.startswith(("expected_", "fc_", "fp_", "forecast_"))
    ev = _evaluator(e, runtime, forecast, build_date)
    if name not in ev.steps:
        if name in ev.values:  # an input of the plan (a chip's figure, an engine's reserve)
            return _explain_input(e, ev, key, name)
        known = ", ".join(explain_keys(e))
        raise InputError(f"explain: unknown key {key[:60]!r}; known: {known}")
    value = ev.get(name)
    origin = _origin(ev, name)
    step = ev.steps[origin]
    unit = _integer_rate(ev, _unit(ev.steps, origin) or _unit(ev.steps, name), name, origin)
    if step["op"] == "formula":
        body = _explain_formula(ev, step)
    else:
        body = _explain_op(ev, step, unit)
    body["unit"] = _integer_rate(ev, body["unit"], name, origin)
    deps = [_display_key(r, ks) for r in _step_refs_ordered(step) if r in ev.steps]
    text = format_value(value, body["unit"])
    if name in _TABLE_DIGITS and isinstance(value, Real) and not isinstance(value, bool):
        text = format(float(value), _TABLE_DIGITS[name])
    if value is None and origin != name and ev.get(origin) is not None:
        # a value passed on only where it exists (a finite critical batch): say what it was
        text = f"- (none: {step['formula'] if step['op'] == 'formula' else origin} is " \
               f"{format_value(ev.get(origin), body['unit'])})"
    missing = _missing(ev, origin) if value is None and ev.get(origin) is None else []
    if missing:
        # an input not given: say which, rather than an equation of dashes
        body["substituted"] = ""
        text = f"- (not computed without {_given_by(e, missing, options)})"
    note = _NOTES.get(name) or _NOTES.get(origin)
    # without a compute peak the step's time is its memory traffic's alone: what bounds it is
    # not known, and the plan's "memory" is no finding
    if note and ev.get(note[0]) is not None and value is not None \
            and ev.get("peak_flops") is not None:
        text += f" ({note[1].format(ev.get(note[0]))})"
    if key.endswith("_range") or (forecast and (name + "_low") in ev.steps):
        lo, hi = ev.get(name + "_low"), ev.get(name + "_high")
        if lo is not None and hi is not None:
            text += (f"; 80% interval {format_value(lo, body['unit'])} to "
                     f"{format_value(hi, body['unit'])}")
    return Explanation(key=key, step=origin, op=step["op"], doc=step.get("doc", ""),
                       value=value, value_text=text, depends_on=tuple(dict.fromkeys(deps)),
                       term=step.get("term"),
                       parts=_parts(ev, step) if step["op"] == "sum" else None,
                       source=_source(ev, origin) if forecast else _chip_source(e, step),
                       forecast=_forecast_step(ev, origin) if forecast else "",
                       caveat=_caveat(e, ev, origin, runtime) if forecast else "", **body)


def _missing(ev: Any, name: str, seen: set | None = None) -> list[str]:
    """The inputs of the plan, not given, that leave step ``name`` without a value: the
    condition of a guard that is not given, else what the steps it reads lack."""
    from .plan.interpreter import guard_closed, step_refs

    seen = set() if seen is None else seen
    if name in seen:
        return []
    seen.add(name)
    if name not in ev.steps:
        return [name] if ev.get(name) is None else []
    step = ev.steps[name]
    if "if" in step:
        cond = ev.get(step["if"])
        if guard_closed(cond):
            if isinstance(step.get("else"), str):
                return _missing(ev, step["else"], seen)
            return _missing(ev, step["if"], seen) if cond is None else []
    out: list[str] = []
    for ref in sorted(step_refs(step)[0]):
        if ev.get(ref) is None:
            out += [m for m in _missing(ev, ref, seen) if m not in out]
    return out


def _given_by(e: Any, inputs: Sequence[str], options: Mapping[str, str] | None) -> str:
    """How the inputs are given: an engine's flags (``engines.toml``); for an estimate, the
    keywords of :func:`~llm_arithmetic.estimate.estimate` (a chip's figures: ``hardware``),
    each as ``options`` names it (the command line's options); where none is, the inputs'
    names. Inputs nothing gives (whether a stack is hybrid) are left out when another is; an
    engine's view whose own flags give none names what does (:func:`~llm_arithmetic.engine.
    engine_input_needs`: another ``--engine``, a hybrid model), not the plan's inputs."""
    from .engine import ENGINES, EngineView, engine_input_needs

    if isinstance(e, EngineView):
        # this engine's flag where one gives the input; else what sets it (another engine,
        # a hybrid model: engine_input_needs), never the plan's internal name
        rules = {rule: flag for flag, rule in ENGINES[e.engine]["flags"].items()}
        shown = [rules[i[len("engine_"):]] for i in inputs
                 if i.startswith("engine_") and i[len("engine_"):] in rules]
        other = None if shown else engine_input_needs(inputs)
        shown += [other] if other else []
    else:
        keywords = _estimate_keywords()
        shown = [(options or {}).get(k, k) for k in
                 ("hardware" if i.startswith("chip_") else i for i in inputs) if k in keywords]
        # a figure the chip lacks (a peak, a link), or no chip: the keyword that gives it
        shown = shown or [(options or {}).get(k, k) for k in
                          (i.removeprefix("given_") for i in inputs) if k in keywords]
    return ", ".join(dict.fromkeys(shown or inputs))


@functools.lru_cache(maxsize=1)
def _estimate_keywords() -> frozenset[str]:
    import inspect

    from .estimate import estimate

    return frozenset(inspect.signature(estimate).parameters)


def _explain_input(e: Any, ev: Any, key: str, name: str) -> Explanation:
    """An input of the plan: its value, and where it comes from where the catalog says."""
    value = ev.get(name)
    unit = _unit(ev.steps, name) or "1"
    if name == "engine_reserve":
        source = getattr(e, "reserve_source", None) or ""
        doc = "the engine's reserve beside weights and cache (empirical, engines.toml)"
    else:
        source = _chip_source(e, {"op": "first", "of": [name]})
        doc = "an input of the plan"
    return Explanation(key=key, step=name, op="input", formula=None, doc=doc, equation="given",
                       latex="", substituted="", arguments=(), value=value, unit=unit,
                       value_text=format_value(value, unit), depends_on=(), source=source)


def _chip_source(e: Any, step: Mapping[str, Any]) -> str:
    """Where a chip's figure that a step reads comes from (the catalog's source)."""
    named = _operands(step) + [step.get(k) for k in ("peaks", "interconnect")]
    read = list(dict.fromkeys(x for x in named if isinstance(x, str) and x.startswith("chip_")))
    if not read or e.hardware is None:
        return ""
    from .catalog.hardware import get_hardware

    return f"{', '.join(read)}: {e.hardware}, {get_hardware(e.hardware).source}"


def _forecast_step(ev: Any, name: str) -> str:
    """The forecast's equation, and with its values, of the forecast step a key is computed
    from ('' when the key is that step, or reads none)."""
    step = ev.steps[name]
    if step["op"] == "formula" and step["formula"] == "forecast_step_time":
        return ""
    frontier = [name]
    for _ in range(3):
        nxt = []
        for n in frontier:
            for r in _step_refs_ordered(ev.steps[n]):
                s = ev.steps.get(_origin(ev, r)) if r in ev.steps else None
                if s is None:
                    continue
                if s["op"] == "formula" and s["formula"] == "forecast_step_time":
                    body = _explain_formula(ev, s)
                    return (f"{body['equation']} = {body['substituted']} = "
                            f"{format_value(ev.get(s['name']), body['unit'])}")
                nxt.append(s["name"])
        frontier = nxt
    return ""


def _step_refs_ordered(step: Mapping[str, Any]) -> list[str]:
    """The names a step reads, in the order it names them (a formula's arguments first)."""
    from .plan.interpreter import step_refs

    refs = step_refs(step)[0]
    if step["op"] == "formula":
        f = _formulas()[step["formula"]]
        bindings = step.get("args", {})
        order = [bindings.get(p, p) for p in f.params]
    else:
        order = _operands(step)
    first = [x for x in order if isinstance(x, str) and x in refs]
    return first + sorted(refs - set(first) - {"blocks"})


def explain_keys(e: Any) -> list[str]:
    """The output keys :func:`explain` takes for ``e`` (any step's name is taken too)."""
    from .engine import EngineView
    from .forecast import EXPECTED_KEYS

    if isinstance(e, EngineView):
        return list(engine_key_steps())
    return list(_key_steps()) + list(EXPECTED_KEYS)
