r"""The formula behind each number: which step of the plan produced an estimate's key, its
registered formula as an equation, the values of its arguments, and the keys it reads.

Every key :func:`~llm_arithmetic.estimate.estimate` reports is a step of the plan
(:mod:`llm_arithmetic.plan.steps`). :func:`explain` reads that step and re-evaluates nothing
but what it shows: a registered formula (its name, the equation in plain text with the
glossary's names and in LaTeX with its symbols, the arguments with their values and units), a
sum over the layer stack (the term summed, and each part's contribution: attention, mixer,
MLP, norms), or a small operation (an addition, a quotient, the first value given). A step
that only passes on another (``first``, ``finite``, ``choose``: the bound is the roofline time
where there is a peak rate) is explained by the step it passes on. ``depends_on`` lists the
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
t = max(ℱ/R_peak, ℬ/beta_mem)
>>> x.depends_on
('decode_step_bytes', 'decode_step_flops', 'bandwidth', 'peak_flops')
>>> w = explain(e, "weight_bytes")
>>> w.op, [a.name for a in w.arguments]
('add', ['weight_bytes_other', 'weight_bytes_unread', 'weight_bytes_experts'])
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from numbers import Integral, Real
from typing import Any, Mapping, Sequence

from .core.errors import InputError
from .core.records import record
from .numeric._runtime import exact_result

__all__ = ["Argument", "Explanation", "explain", "explain_keys", "format_value", "KEY_STEPS"]

#: Output keys whose step of the plan has another name (the estimate's, and the forecast's
#: intervals); every other key is its own step.
KEY_STEPS: dict[str, str] = {}


def _key_steps() -> dict[str, str]:
    from .estimate import FIELD_STEPS

    if not KEY_STEPS:
        KEY_STEPS.update(FIELD_STEPS)
    return KEY_STEPS


#: Operations that pass another step's value on: explained by the step they pass on.
_PASSING = ("first", "finite", "choose")
#: Steps whose explanation says, beside the value, what another step says of it.
_NOTES = {"roofline_seconds": ("bound", "{}-bound"), "decode_seconds_per_token":
          ("bound", "{}-bound")}
#: Counts the table prints to other digits than :func:`format_value`'s four.
_TABLE_DIGITS = {"critical_batch_size": ",.1f", "critical_batch_closed": ",.1f",
                 "spec_tokens_per_step": ".3f"}
#: Units of the plan's inputs that the glossary does not name [unit].
_INPUT_UNITS = {"chip_bandwidth": "B/s", "given_bandwidth": "B/s", "chip_capacity": "B",
                "given_capacity": "B", "given_peak_flops": "FLOP/s", "chip_power": "W",
                "given_power": "W", "given_link_bandwidth": "B/s", "given_link_latency": "s",
                "price_per_hour": "USD/h", "overhead": "B", "extras_in_total": "1",
                "draft_cost": "1", "native_bits_default": "bit",
                "native_bits_experts": "bit", "native_bits_unread": "bit"}


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
                "forecast": self.forecast}

    def lines(self) -> list[str]:
        """The block ``describe --explain`` prints: the equation, with numbers, the result,
        the keys it reads."""
        head = f"{self.key} = {self.equation.split(' = ', 1)[-1]}"
        out = [head + (f"  [{self.formula}]" if self.formula else f"  [{self.op}]")]
        if self.substituted:
            out.append(f"  = {self.substituted}")
        if self.parts:
            out.append("  by part: " + ", ".join(f"{k} {format_value(v, self.unit)}"
                                                 for k, v in self.parts.items()))
        out.append(f"  = {self.value_text}")
        if self.forecast:
            out.append(f"  where {self.forecast}")
        if self.source:
            out.append(f"  source: {self.source}")
        if self.depends_on:
            out.append("  from: " + ", ".join(self.depends_on))
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
    if unit == "FLOP/s":
        return f"{x / 1e12:,.1f} TFLOP/s"
    suffix = "" if unit in ("1", "") else f" {unit}"
    if isinstance(v, Integral) or unit in ("B", "FLOP"):  # bytes and FLOPs whole, as the table
        return f"{x:,.0f}{suffix}"
    if unit in ("token/s", "FLOP/B"):
        return f"{x:,.1f}{suffix}"
    return f"{x:,.4g}{suffix}"


# ---- units --------------------------------------------------------------------------------
def _unit(steps: Mapping[str, Any], name: Any, seen: frozenset = frozenset()) -> str:
    """The unit of a plan name: a formula's, a summed term's, an input's glossary unit, or
    what an operation makes of its operands'; '' where none is known."""
    from .core.symbols import GLOSSARY

    if not isinstance(name, str) or name in seen:
        return "1" if isinstance(name, dict) and "literal" in name else ""
    seen = seen | {name}
    step = steps.get(name)
    if step is None:
        if name in _INPUT_UNITS:
            return _INPUT_UNITS[name]
        return GLOSSARY[name].unit if name in GLOSSARY else ""
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
    if op == "solve":
        return GLOSSARY[step["var"]].unit if step["var"] in GLOSSARY else ""
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
        if b in ("1", "", "token"):  # a time per token is a time [s]
            return a
        if a == b:
            return "1"
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
    return []


_FORMULAS: list[Mapping[str, Any]] = []


def _formulas() -> Mapping[str, Any]:
    if not _FORMULAS:
        from .articles import all_formulas

        _FORMULAS.append(all_formulas())
    return _FORMULAS[0]


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


def _sstr(expr: Any) -> str:
    import sympy as sp

    return sp.sstr(expr).replace("Max(", "max(").replace("Min(", "min(")


def _formula_text(f: Any, values: Mapping[str, str]) -> tuple[str, str, str]:
    """(plain equation, LaTeX, the right-hand side with ``values`` in place of symbols)."""
    import sympy as sp

    from .core.symbols import GLOSSARY

    plain = {s: sp.Symbol(_plain(s)) for s in f.expr.free_symbols | {f.lhs_symbol}}
    equation = f"{_plain(f.lhs_symbol)} = {_sstr(f.expr.xreplace(plain))}"
    # one placeholder per argument, named so that sympy orders them as it orders the symbols
    # (two arguments of the same value must not become one symbol)
    # (a space sorts before any letter: "t #0#" comes before "tau #1#" as "t" before "tau";
    # the index makes each mark unique, so none is part of another)
    marks = {p: f"{_plain(GLOSSARY[p].symbol)} #{i}#"
             for i, p in enumerate(f.params) if p in values}
    text = _sstr(f.expr.xreplace({GLOSSARY[p].symbol: sp.Symbol(m) for p, m in marks.items()}))
    for p, m in marks.items():
        text = text.replace(m, f"({values[p]})")
    return equation, f.latex(), text


# ---- the explanation ------------------------------------------------------------------------
def _evaluator(e: Any, runtime: str | None, forecast: bool) -> Any:
    ev = getattr(e, "_plan", None)
    if ev is None:
        raise InputError("explain needs an Estimate that estimate() returned (its plan is "
                         "not kept by a copy)")
    if not forecast:
        return ev
    from .forecast import chip_class_of, forecast_inputs, resolve_runtime

    return ev.child(**forecast_inputs(chip_class_of(e.hardware), resolve_runtime(runtime)))


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


def _display_key(name: str) -> str:
    """A step's name as :func:`explain` takes it: its output key where it has one."""
    back = {v: k for k, v in _key_steps().items()}
    return back.get(name, name)


def _symbol(name: str) -> str:
    from .core.display import latex
    from .core.symbols import GLOSSARY

    return latex(GLOSSARY[name].symbol) if name in GLOSSARY else ""


def _argument(ev: Any, name: str, source: Any) -> Argument:
    key = source if isinstance(source, str) else None
    value = ev.ref(source)
    return Argument(name=name, symbol=_symbol(name), key=key, value=value,
                    unit=_unit(ev.steps, source) or _unit(ev.steps, name))


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
        equation, substituted = f"mean of {step['term']} over the layers that have it", ""
    elif op == "solve":
        equation = (f"largest {step['var']} with {step['value']} <= {step['budget']}"
                    if step["solver"] == "largest" else
                    f"{step['var']} where {step['rises']} reaches {step['falls']}")
        substituted = ""
    elif op == "rate":
        equation = f"{step['peaks']}[{step['precision']}]"
        substituted = f"the dense peak at {texts[0]}"
    else:
        equation, substituted = f"{op}({', '.join(names)})", f"{op}({', '.join(texts)})"
    if op == "sum":
        args = ()
    return dict(formula=None, equation=equation, latex="", substituted=substituted,
                arguments=args, unit=unit)


def _parts(ev: Any, step: Mapping[str, Any]) -> dict[str, Any]:
    """Each part's contribution to a sum over the stack (parts that add nothing left out)."""
    from .plan.interpreter import _lookup, fold
    from .plan.stack import PARTS

    lookup = _lookup(ev, step.get("args", {}))
    out = {}
    for part in PARTS:
        v = fold(ev.get("blocks"), step["term"], lookup, [part])
        if v:
            out[part] = exact_result(v) if isinstance(v, Fraction) else v
    return out


def _source(ev: Any, step: str) -> str:
    """Where a forecast step's fitted terms come from, with their values."""
    deps = _reads(ev, step, depth=6)
    fits = [n for n in ("forecast_decode", "forecast_prefill") if n in deps]
    if not fits:
        return ""
    from .forecast import PARAMS_PATH

    out = []
    for name in fits:
        rec = ev.get(name) or {}
        terms = ", ".join(f"{k} {_short(v)}{_FIT_UNITS.get(k, '')}" for k, v in rec.items())
        out.append(f"{name.split('_')[1]} fit ({terms})")
    return "; ".join(out) + f", stored in lab/data/{PARAMS_PATH.name} (scripts/fit_forecast.py)"


#: Units of the fitted terms as the forecast's records hold them.
_FIT_UNITS = {"tau": " s", "lambda": " s/layer"}


def _short(v: Any) -> str:
    return "-" if v is None else f"{float(v):.4g}"


def _reads(ev: Any, name: str, depth: int) -> set[str]:
    """The names a step reads, ``depth`` steps down."""
    from .plan.interpreter import _step_refs

    out: set[str] = set()
    frontier = [name]
    for _ in range(depth):
        nxt = []
        for n in frontier:
            if n in ev.steps:
                refs = _step_refs(ev.steps[n])[0]
                nxt += [r for r in refs if r not in out]
                out |= refs
        frontier = nxt
    return out


def explain(e: Any, key: str, runtime: str | None = None) -> Explanation:
    """The step of the plan behind ``key`` of the estimate ``e``
    (:func:`~llm_arithmetic.estimate.estimate`): an output key (``decode_seconds_per_token``,
    ``weight_bytes``, ``expected_decode_tokens_per_second``, ...) or any step's name. For the
    forecast keys, ``runtime`` names the fitted runtime (None: the runtime-agnostic fit), as
    ``describe --runtime`` does. An unknown key raises an :class:`InputError` naming the
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
    ks = _key_steps()
    base = key[:-len("_range")] if key.endswith("_range") else key
    name = ks.get(base, base)
    forecast = name.startswith(("expected_", "fc_", "fp_", "forecast_"))
    ev = _evaluator(e, runtime, forecast)
    if name not in ev.steps:
        known = ", ".join(explain_keys(e))
        raise InputError(f"explain: unknown key {key[:60]!r}; known: {known}")
    value = ev.get(name)
    origin = _origin(ev, name)
    step = ev.steps[origin]
    unit = _unit(ev.steps, origin) or _unit(ev.steps, name)
    if step["op"] == "formula":
        body = _explain_formula(ev, step)
    else:
        body = _explain_op(ev, step, unit)
    deps = [_display_key(r) for r in _step_refs_ordered(step) if r in ev.steps]
    text = format_value(value, body["unit"])
    if name in _TABLE_DIGITS and isinstance(value, Real) and not isinstance(value, bool):
        text = format(float(value), _TABLE_DIGITS[name])
    if value is None and origin != name and ev.get(origin) is not None:
        # a value passed on only where it exists (a finite critical batch): say what it was
        text = f"- (none: {step['formula'] if step['op'] == 'formula' else origin} is " \
               f"{format_value(ev.get(origin), body['unit'])})"
    note = _NOTES.get(name) or _NOTES.get(origin)
    if note and ev.get(note[0]) is not None and value is not None:
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
                       forecast=_forecast_step(ev, origin) if forecast else "", **body)


def _chip_source(e: Any, step: Mapping[str, Any]) -> str:
    """Where a chip's figure that a step reads comes from (the catalog's source)."""
    named = _operands(step) + [step.get(k) for k in ("peaks", "interconnect")]
    read = [x for x in named if isinstance(x, str) and x.startswith("chip_")]
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
    from .plan.interpreter import _step_refs

    refs = _step_refs(step)[0]
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
    from .forecast import EXPECTED_KEYS

    return list(_key_steps()) + list(EXPECTED_KEYS)
