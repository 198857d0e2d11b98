"""The one interpreter of the plan (:mod:`llm_arithmetic.plan.steps`) and of the stack sums
(:mod:`llm_arithmetic.plan.stack`); the book's pages run its twin, ``interpreter.js``, on the
same data exported as JSON.

A plan is a list of named steps. :class:`Evaluator` computes a name on demand: an input, or the
step of that name, whose arguments it computes first (each once). Every step is one of a few
operations:

========  ==================================================================================
op        value
========  ==================================================================================
formula   a registered formula, its arguments bound to names or numbers
sum       a term of :data:`~llm_arithmetic.plan.stack.TERMS` summed over the layer stack
          (times each layer's count), plus and minus other values
mean      a term averaged over the layers that have it (weighted by count)
add       values added (``plus``) and subtracted (``minus``)
mul, div  a product, a quotient
first     the first value that is not missing
choose    one of two values, on a condition
gt, le    a comparison
among     whether a value is one of a list (a chip's topology among the fully connected ones)
finite    the value, or missing when it is infinite
at        another step evaluated with some inputs changed (a sequence of one, a longer context)
chain     the precisions whose peak may apply, in order, for a weight format
precision the first of them the chip has (or its ``faster`` mode for the same inputs where the
          chip lists one); ``rate``: the chip's peak at a precision
link      the link a group of chips uses, from the chip's interconnect
field     one entry of a record (a chip's interconnect), missing where absent or empty
solve     a named numerical search over one input: ``largest`` (the largest integer whose
          value stays within a budget) or ``crossing`` (where a rising time meets a falling one)
========  ==================================================================================

A missing value (None) makes every step that needs it missing, unless the step says otherwise
(``first``, or a guard: ``"if": name`` and ``"else"``).

>>> from llm_arithmetic.plan.steps import PLAN
>>> from llm_arithmetic.catalog.model_catalog import get_model
>>> ev = Evaluator(PLAN, get_model("llama-2-7b").plan_inputs)
>>> ev.get("total_params")
6738415616
"""
from __future__ import annotations

import math
from fractions import Fraction
from numbers import Integral
from typing import Any, Mapping, Sequence

import numpy as np

from .. import numeric as N
from ..numeric._runtime import exact_result
from .stack import FIELDS, FORMS, PARTS, TERMS

__all__ = ["Evaluator", "MissingTerm", "fold", "part_scope", "part_term", "step_refs",
           "step_lookup", "dependencies", "EXACT_ONLY_WHOLE",
           "INF", "DEFAULT", "PLAN_STEPS", "guard_closed"]

#: Formulas computed in floating point whose results, from exact inputs, stay exact integers
#: where they are whole to within rounding (the experts a step of one token reads is k itself,
#: which E (1 - (1 - k/E)) gives in floating point only to the last bit).
EXACT_ONLY_WHOLE = frozenset({"experts_read"})
#: How the data writes infinity (JSON has no literal for it).
INF = {"inf": True}


def _is_exact(v: Any) -> bool:
    return isinstance(v, (Integral, Fraction)) and not isinstance(v, bool)


#: Values of :func:`call` by formula and arguments: the generated functions are pure, and one
#: estimate asks for the same ones many times (a part's parameter counts in every sum over the
#: stack, in each of a solver's trials, and again in the next estimate of the same model).
_CALLS: dict[tuple, Any] = {}
_CALLS_MAX = 1 << 15


def _call_key(name: str, args: Mapping[str, Any]) -> tuple:
    """A key that tells apart what compares equal but may compute differently: an argument's
    type (2, 2.0, Fraction(2), True) and a zero's sign (a Python or a numpy float's)."""
    key: list[Any] = [name]
    for k, v in args.items():
        t = type(v)
        signed = isinstance(v, (float, np.floating)) and v == 0
        key.append((k, t, ("zero", math.copysign(1.0, v)) if signed else v))
    return tuple(key)


def call(name: str, args: Mapping[str, Any]) -> Any:
    """A registered formula's numeric function on ``args``, each computed once (kept by
    formula and arguments: ``_CALLS``; arguments that cannot be a key, arrays or records, are
    computed every time)."""
    key = _call_key(name, args)
    try:
        return _CALLS[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable argument: not kept
        return _call(name, args)
    value = _call(name, args)
    if len(_CALLS) >= _CALLS_MAX:
        _CALLS.clear()
    _CALLS[key] = value
    return value


def _call(name: str, args: Mapping[str, Any]) -> Any:
    value = getattr(N, name)(**args)
    if name in EXACT_ONLY_WHOLE and isinstance(value, float) \
            and all(_is_exact(v) for v in args.values()) \
            and abs(value - round(value)) <= 1e-12 * abs(value):
        return int(round(value))
    return value


# ---- the stack ------------------------------------------------------------------------------
def _condition(cond: Any, raw: Mapping[str, Any]) -> bool:
    if cond is True:
        return True
    op, field, *rest = cond
    value = raw.get(field)
    if op == "gt":
        return value is not None and value > rest[0]
    if op == "set":
        return bool(value)
    raise ValueError(f"unknown condition {cond!r}")


def _field(source: Any, raw: Mapping[str, Any]) -> Any:
    if isinstance(source, str):
        return raw.get(source)
    op, field, *rest = source
    value = raw.get(field)
    if op == "flag":
        return int(bool(value))
    if op == "is":
        return int(value == rest[0])
    if op == "or":
        return value or rest[0]
    if op == "unless":
        return 0 if raw.get(rest[0]) else value
    raise ValueError(f"unknown field rule {source!r}")


def part_scope(part: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """A part's selectors (``form``, ``span``) and its numbers under glossary names."""
    scope = {name: _field(src, raw) for name, src in FIELDS[part].items()}
    for selector, rules in FORMS.items():
        if part in rules:
            scope[selector] = next(f for f, cond in rules[part] if _condition(cond, raw))
    return scope


def part_term(term: str, scope: dict[str, Any], lookup: Any, cache: dict[str, Any]) -> Any:
    """One term of one part; None when the part's form has no case for it."""
    if term in cache:
        return cache[term]
    spec = TERMS[term]
    case = spec["cases"].get(scope.get(spec["by"]))
    if case is None:
        if scope.get(spec["by"]) in spec.get("missing", ()):  # a term the form has, uncounted
            raise MissingTerm(term)
        cache[term] = None
        return None
    formula, bindings = case

    def bind(source: Any) -> Any:
        if isinstance(source, str):
            if source.startswith("@"):
                return part_term(source[1:], scope, lookup, cache)
            if source in scope:
                return scope[source]
            return lookup(source)
        return source

    if formula == "=":
        value = bind(bindings["value"])
    else:
        params = _params(formula)
        args = {}
        for p in params:
            if p in bindings:
                args[p] = bind(bindings[p])
            elif p in scope and scope[p] is not None:
                args[p] = scope[p]
            else:
                v = lookup(p, default=True)
                if v is not DEFAULT:
                    args[p] = v
        if any(v is None for v in args.values()):
            raise MissingTerm(term)
        value = call(formula, args)
    cache[term] = value
    return value


_PARAMS: dict[str, tuple[str, ...]] = {}
#: What a lookup returns for a name it does not know when asked for a default.
DEFAULT = object()
_SCOPES: dict[int, tuple[Any, dict[str, Any]]] = {}


def _scope(part: str, raw: Any) -> dict[str, Any]:
    """:func:`part_scope`, kept per record (a record is immutable once in a model's blocks)."""
    hit = _SCOPES.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    scope = part_scope(part, raw)
    if len(_SCOPES) > 4096:
        _SCOPES.clear()
    _SCOPES[id(raw)] = (raw, scope)
    return scope


def _params(formula: str) -> tuple[str, ...]:
    """A numeric function's keyword arguments (the generated table of them), kept."""
    if formula in _PARAMS:
        return _PARAMS[formula]
    if formula in N.PARAMS:
        _PARAMS[formula] = N.PARAMS[formula]
    else:  # a generated module older than its table: read the signature
        import inspect

        _PARAMS[formula] = tuple(inspect.signature(getattr(N, formula)).parameters)
    return _PARAMS[formula]


class MissingTerm(Exception):
    """A term's argument is missing (None): the sum it is part of is missing too."""


_MISSING = object()  # a mean whose term is missing (not: no layer has the term)


def fold(blocks: Sequence[tuple[int, Mapping[str, Mapping[str, Any]]]], term: str,
         lookup: Any, parts: Sequence[str] | None = None, mean: bool = False,
         where: str | None = None) -> Any:
    """Sum ``term`` over ``blocks`` ((count, {part: record}) pairs), each block's value times
    its count; with ``mean``, the count-weighted mean over the blocks that have the term
    (None when none has it). ``where``: only the blocks that carry that key besides their
    parts (``"prefill"``: the blocks a prefill runs for its last token only), or with a
    leading ``!`` only those that do not."""
    total: Any = 0
    weight = 0
    for count, block in blocks:
        if where is not None and where.startswith("!") == (where.lstrip("!") in block):
            continue
        for part in PARTS:
            raw = block.get(part)
            if raw is None or (parts is not None and part not in parts):
                continue
            try:
                value = part_term(term, _scope(part, raw), lookup, {})
            except MissingTerm:
                return _MISSING if mean else None
            if value is None:
                continue
            total = total + count * value
            weight += count
    if not mean:
        return total
    if weight == 0:
        return None
    if _is_exact(total):
        return exact_result(Fraction(total) / weight)
    return total / weight


# ---- the plan -------------------------------------------------------------------------------
def _refs(v: Any) -> list[str]:
    return [v] if isinstance(v, str) else []


def _term_deps(term: str, overrides: Mapping[str, Any], seen: set[str]) -> set[str]:
    """Plan names a stack term may read (a superset: part fields are read from the part)."""
    if not seen:
        key = (term, tuple(sorted((k, repr(v)) for k, v in overrides.items())))
        if key not in _TERM_DEPS:
            _TERM_DEPS[key] = frozenset(_term_deps(term, overrides, {""}))
        return set(_TERM_DEPS[key])
    if term in seen:
        return set()
    seen.add(term)
    out: set[str] = set()
    fields = _FIELD_NAMES
    for formula, bindings in TERMS[term]["cases"].values():
        names = ["value"] if formula == "=" else _params(formula)
        for p in names:
            src = bindings.get(p, p)
            if not isinstance(src, str):
                continue
            if src.startswith("@"):
                out |= _term_deps(src[1:], overrides, seen)
            elif src in overrides:
                out |= set(_refs(overrides[src]))
            elif src not in fields:
                out.add(src)
    return out


_TERM_DEPS: dict[tuple[str, tuple], frozenset[str]] = {}
_FIELD_NAMES = frozenset(n for part in FIELDS.values() for n in part)


def step_refs(step: Mapping[str, Any]) -> tuple[set[str], set[str], set[str]]:
    """(names a step reads directly; names whose change it hides, a solver's variable or an
    ``at``'s inputs; the names it reads with them changed): what :func:`dependencies` follows,
    and what :mod:`llm_arithmetic.explain` shows a step to be computed from.

    >>> refs, hidden, targets = step_refs({"name": "x", "op": "mul",
    ...                                    "of": ["a", "b", {"literal": 2}]})
    >>> sorted(refs), hidden, targets
    (['a', 'b'], set(), set())
    >>> refs, hidden, targets = step_refs(PLAN_STEPS["max_context"])
    >>> sorted(refs), hidden, targets
    (['capacity', 'context_limit', 'free_memory', 'kv_cache_all'], {'context'}, {'kv_cache_all'})
    """
    op = step["op"]
    refs: set[str] = set()
    hidden: set[str] = set()
    targets: set[str] = set()
    if "if" in step:
        refs |= set(_refs(step["if"])) | set(_refs(step.get("else")))
    if op == "formula":
        args = step.get("args", {})
        for p in _params(step["formula"]):
            refs |= set(_refs(args.get(p, p)))
    elif op in ("sum", "mean"):
        overrides = step.get("args", {})
        refs |= _term_deps(step["term"], overrides, set()) | {"blocks"}
        refs |= set(_refs(step.get("empty")))
        refs |= {r for k in ("plus", "minus") for x in step.get(k, ()) for r in _refs(x)}
    elif op == "add":
        refs |= {r for k in ("plus", "minus") for x in step.get(k, ()) for r in _refs(x)}
    elif op in ("mul", "div", "first", "gt", "le"):
        refs |= {r for x in step["of"] for r in _refs(x)}
    elif op in ("finite", "among"):
        refs |= set(_refs(step["of"]))
    elif op == "choose":
        refs |= {r for k in ("when", "then", "otherwise") for r in _refs(step[k])}
    elif op == "at":
        refs |= {step["target"]} | {r for v in step["with"].values() for r in _refs(v)}
        hidden |= set(step["with"])
        targets.add(step["target"])
    elif op == "chain":
        refs |= set(_refs(step["format"])) | set(_refs(step["bits"])) | set(_refs(step["vendor"]))
    elif op == "precision":
        refs |= {r for k in ("chain", "peaks", "unless") for r in _refs(step[k])}
    elif op == "rate":
        refs |= set(_refs(step["peaks"])) | set(_refs(step["precision"]))
    elif op == "link":
        refs |= set(_refs(step["interconnect"])) | {r for x in step["chips"] for r in _refs(x)}
    elif op == "field":
        refs |= set(_refs(step["of"]))
    elif op == "solve":
        keys = ("value", "budget", "limit") if step["solver"] == "largest" else \
            ("rises", "falls", "limit")
        refs |= {r for k in keys for r in _refs(step[k])}
        hidden.add(step["var"])
        targets |= {step[k] for k in keys if k not in ("budget", "limit")}
    return refs, hidden, targets


def dependencies(steps: Mapping[str, Mapping[str, Any]], name: str,
                 memo: dict[str, frozenset[str]]) -> frozenset[str]:
    """The inputs and steps a name depends on (a superset), computed once per plan: a child
    :class:`Evaluator` whose changes (inputs, or a step's value an ``at`` replaces) meet them
    computes the name anew."""
    if name in memo:
        return memo[name]
    step = steps.get(name)
    if step is None:
        memo[name] = frozenset({name})
        return memo[name]
    memo[name] = frozenset()  # a step never reads itself
    refs, hidden, targets = step_refs(step)
    out: set[str] = set()
    for r in refs:
        deps = dependencies(steps, r, memo) | {r}
        out |= deps - hidden if r in targets else deps
    memo[name] = frozenset(out)
    return memo[name]


def _reads_any(steps: Mapping[str, Mapping[str, Any]], name: str, changed: frozenset[str],
               memo: dict[Any, Any]) -> bool:
    """Whether ``name`` depends on any of ``changed``: ``bool(dependencies(steps, name, ...)
    & changed)``, found by a search that stops at the first changed name it meets instead of
    collecting every name a step reads (which an estimate's first trials paid for at every
    start of the command line). ``memo`` holds each step's references and the answers, by
    the set of names looked for (an ``at`` or a solver's target hides its changed names)."""
    if not changed:
        return False
    answers = memo.get(changed)
    if answers is None:
        answers = memo[changed] = {}
    elif name in answers:
        return answers[name]
    step = steps.get(name)
    if step is None:
        answers[name] = found = name in changed
        return found
    answers[name] = False  # a step never reads itself
    refs = memo.get(name)
    if refs is None:
        refs = memo[name] = step_refs(step)
    direct, hidden, targets = refs
    found = False
    for r in direct:
        looked = changed - hidden if r in targets else changed
        if r in looked or _reads_any(steps, r, looked, memo):
            found = True
            break
    answers[name] = found
    return found


_DEPS: dict[int, tuple[Any, dict[Any, Any]]] = {}


class Evaluator:
    """Values of a plan's names for one set of inputs, each computed once, on demand.

    :meth:`child` gives the same plan with some inputs changed; a child asks its parent for
    every name that does not depend on them, so a value is computed once however many
    children (a search's trials, a sequence of one) ask for it.
    """

    def __init__(self, plan: Sequence[Mapping[str, Any]] | Mapping[str, Any],
                 *inputs: Mapping[str, Any], parent: "Evaluator | None" = None) -> None:
        self.steps = plan if isinstance(plan, Mapping) else {s["name"]: s for s in plan}
        self.inputs: dict[str, Any] = {}
        for d in inputs:
            self.inputs.update(d)
        self.values: dict[str, Any] = dict(self.inputs)
        self.parent = parent
        self.changed = frozenset(self.inputs) if parent is not None else frozenset()
        hit = _DEPS.get(id(self.steps))
        if hit is None or hit[0] is not self.steps:
            hit = (self.steps, {})
            _DEPS[id(self.steps)] = hit
        self._memo = hit[1]

    def child(self, **changes: Any) -> "Evaluator":
        """The same plan with some inputs changed."""
        return Evaluator(self.steps, changes, parent=self)

    def get(self, name: str, default: bool = False) -> Any:
        if name in self.values:
            return self.values[name]
        if self.parent is not None and not _reads_any(self.steps, name, self.changed,
                                                      self._memo):
            return self.parent.get(name, default)
        step = self.steps.get(name)
        if step is None:
            if default:
                return DEFAULT
            raise KeyError(f"the plan has no input or step named {name!r}")
        value = self._guarded(step)
        self.values[name] = value
        return value

    def ref(self, source: Any) -> Any:
        if isinstance(source, str):
            return self.get(source)
        if isinstance(source, dict):
            if source.get("inf"):
                return math.inf
            return source["literal"]
        return source

    def _guarded(self, step: Mapping[str, Any]) -> Any:
        if "if" in step and guard_closed(self.get(step["if"])):
            return self.ref(step.get("else"))
        return OPS[step["op"]](self, step)


def guard_closed(cond: Any) -> bool:
    """Whether a guard's condition (a step's ``"if"``) sends it to its ``"else"``: a value not
    given, ``False`` or zero (a string is a value, whatever it reads).

    >>> guard_closed(None), guard_closed(0), guard_closed("0"), guard_closed(2)
    (True, True, False, False)
    """
    return cond is None or cond is False or (cond == 0 and not isinstance(cond, str))


def _formula(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    formula = step["formula"]
    bindings = step.get("args", {})
    args = {}
    for p in _params(formula):
        if p in bindings:
            v = ev.ref(bindings[p])
        else:
            v = ev.get(p, default=True)
            if v is DEFAULT:
                continue
        if v is None:
            return None
        args[p] = v
    return call(formula, args)


def step_lookup(ev: Evaluator, overrides: Mapping[str, Any]) -> Any:
    """The ``lookup`` a stack step's terms read plan names through (:func:`part_term`,
    :func:`fold`): a name the step's ``args`` bind (``overrides``) is that binding's value in
    ``ev``, any other name ``ev``'s own; with ``default``, a name ``ev`` lacks is
    :data:`DEFAULT`.

    >>> from llm_arithmetic.catalog.model_catalog import get_model
    >>> ev = Evaluator(PLAN_STEPS, get_model("llama-2-7b").plan_inputs, {"context": 4096})
    >>> lookup = step_lookup(ev, {"context": {"literal": 1}})
    >>> lookup("context"), ev.get("context"), lookup("no such name", default=True) is DEFAULT
    (1, 4096, True)
    """
    def lookup(name: str, default: bool = False) -> Any:
        if name in overrides:
            return ev.ref(overrides[name])
        return ev.get(name, default=default)
    return lookup


def _sum(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    value = fold(ev.get("blocks"), step["term"], step_lookup(ev, step.get("args", {})),
                 step.get("parts"), where=step.get("where"))
    return None if value is None else _add_terms(ev, value, step)


def _mean(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    value = fold(ev.get("blocks"), step["term"], step_lookup(ev, step.get("args", {})),
                 step.get("parts"), mean=True, where=step.get("where"))
    if value is _MISSING:
        return None
    return ev.ref(step.get("empty")) if value is None else value


def _add_terms(ev: Evaluator, value: Any, step: Mapping[str, Any]) -> Any:
    for name in step.get("plus", ()):
        v = ev.ref(name)
        if v is None:
            return None
        value = value + v
    for name in step.get("minus", ()):
        v = ev.ref(name)
        if v is None:
            return None
        value = value - v
    return value


def _add(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    return _add_terms(ev, 0, step)


def _mul(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    out: Any = 1
    for name in step["of"]:
        v = ev.ref(name)
        if v is None:
            return None
        out = out * v
    return out


def _div(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    a, b = ev.ref(step["of"][0]), ev.ref(step["of"][1])
    if a is None or b is None:
        return None
    if _is_exact(a) and _is_exact(b):
        return exact_result(Fraction(a) / Fraction(b))
    return a / b


def _first(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    for name in step["of"]:
        v = ev.ref(name)
        if v is not None:
            return v
    return None


def _choose(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    cond = ev.ref(step["when"])
    return ev.ref(step["then"] if cond else step["otherwise"])


def _truth(x: Any) -> Any:
    return bool(x) if np.ndim(x) == 0 else np.asarray(x)


def _gt(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    a, b = ev.ref(step["of"][0]), ev.ref(step["of"][1])
    return a is not None and b is not None and _truth(a > b)


def _among(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    v = ev.ref(step["of"])
    return v is not None and v in step["values"]


def _le(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    a, b = ev.ref(step["of"][0]), ev.ref(step["of"][1])
    if a is None or b is None:
        return None
    return _truth(a <= b)


def _finite(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    v = ev.ref(step["of"])
    if v is None or (isinstance(v, float) and math.isinf(v)):
        return None
    return int(v) if step.get("integer") else v


def _at(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    changes = {k: ev.ref(v) for k, v in step["with"].items()}
    if any(v is None for v in changes.values()):
        return None
    if all(_same(ev.get(k, default=True), v) for k, v in changes.items()):
        return ev.get(step["target"])  # nothing changes: the value at hand
    return ev.child(**changes).get(step["target"])


def _same(a: Any, b: Any) -> bool:
    """Equal numbers of the same exactness (an int batch of 1 and a float 1.0 are not the same
    input: one evaluates exactly, the other in floating point)."""
    return (a is not DEFAULT and np.ndim(a) == 0 and np.ndim(b) == 0
            and type(a) is type(b) and a == b)


def _chain(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    fmt = ev.ref(step["format"])
    bits = ev.ref(step["bits"])
    vendor = ev.ref(step["vendor"])
    chain: list[str] = []
    if fmt is not None:
        # a format whose kernels run at `compute` only on some vendors' chips: on a chip of
        # another (vendor given, "" for a chip that names none) it starts at its fallback
        vendors = fmt.get("compute_vendors")
        if not vendors or vendor is None or vendor in vendors:
            chain.append(fmt["compute"])
        if fmt.get("compute_fallback"):
            chain.append(fmt["compute_fallback"])
    elif bits is not None and bits >= step["wide_bits"]:
        chain.append(step["wide"])
    for p in step["fallbacks"]:
        if p not in chain:
            chain.append(p)
    return chain


def _precision(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    chain = ev.ref(step["chain"])
    peaks = ev.ref(step["peaks"])
    if peaks is None:
        return chain[0]
    p = next((q for q in chain if q in peaks), None)
    if p is None:  # the chip lists none of them: the chain's first fallback names the rate
        return next((q for q in chain if q in step.get("fallbacks", ())), chain[0])
    if ev.ref(step["unless"]) is None and step["faster"].get(p) in peaks:
        return step["faster"][p]
    return p


def _rate(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    peaks, precision = ev.ref(step["peaks"]), ev.ref(step["precision"])
    if peaks is None or precision not in peaks:
        return None
    return peaks[precision]["rate"]


def _link(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    ic = ev.ref(step["interconnect"])
    if ic is None:
        return None
    n = max(ev.ref(x) for x in step["chips"])
    domain = max(ic.get("scale_up_domain") or 0, 1)
    if n <= domain and ic.get("scale_up_bandwidth"):
        return ic["scale_up_bandwidth"]
    if n <= domain and ic.get("pcie_bandwidth"):
        return ic["pcie_bandwidth"]
    return ic.get("scale_out_bandwidth") or ic.get("pcie_bandwidth") or None


def _entry(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    record = ev.ref(step["of"])
    if record is None:
        return None
    v = record.get(step["key"])
    return None if v is None or v == "" else v


def _solve(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    return SOLVERS[step["solver"]](ev, step)


def _largest(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    """The largest integer x in [0, limit] whose ``value`` stays within ``budget`` (``value``
    grows with x); 0 when even 0 does not fit, None when the limit still fits."""
    var, limit = step["var"], ev.ref(step["limit"])
    budget = ev.ref(step["budget"])
    if budget is None:
        return None

    def fits(x: int) -> bool:
        return ev.child(**{var: x}).get(step["value"]) <= budget

    if ev.child(**{var: 0}).get(step["value"]) is None:  # a missing value: missing too
        return None
    if not fits(0):
        return 0
    if fits(limit):
        return None
    lo, hi = 0, limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


class _Unkeyable(Exception):
    """A value that :func:`_frozen` cannot turn into a key (an array, an object)."""


_SCALARS = (int, float, str, bool, Fraction, type(None), np.integer, np.floating, np.bool_)


def _frozen(v: Any) -> Any:
    """``v`` as a hashable key that tells apart what compares equal but may compute
    differently, as :func:`_call_key` does (a value's type, a zero's sign); records and
    sequences by their items, in order. Raises :class:`_Unkeyable` for anything else.

    >>> _frozen({"a": (1, 2.0)}) == _frozen({"a": (1, 2)})
    False
    >>> _frozen(0.0) == _frozen(-0.0), _frozen(Fraction(1, 2)) == _frozen(Fraction(2, 4))
    (False, True)
    """
    t = type(v)
    if isinstance(v, _SCALARS):
        if isinstance(v, (float, np.floating)) and v == 0:
            return (t, "zero", math.copysign(1.0, v))
        return (t, v)
    if t is tuple or t is list:
        return (t, tuple(_frozen(x) for x in v))
    if t is dict:
        return (t, tuple((k, _frozen(x)) for k, x in v.items()))
    raise _Unkeyable(t.__name__)


#: Per plan (by id, the plan kept to check it): each solve step's dependencies, and its
#: results by the values of the inputs it depends on (:func:`_solve_key`).
_SOLVES: dict[int, tuple[Any, dict[Any, Any], dict[tuple, Any]]] = {}
_SOLVES_MAX = 1 << 12


def _terms_state() -> tuple:
    """What the stack's terms are now (by identity: a test that swaps a term's cases, as
    tests/conftest.py's ``uncounted_cache`` does, changes it)."""
    return tuple((id(t), id(t.get("cases")), id(t.get("missing"))) for t in TERMS.values())


def _solve_key(ev: Evaluator, step: Mapping[str, Any]) -> tuple[dict[tuple, Any], tuple] | None:
    """The cache of a solve step's results in ``ev``'s plan and the key of its result here:
    the step, the stack's terms (:func:`_terms_state`) and the value of every name the step
    depends on (:func:`dependencies`, its variable excluded: the search sets it) as given to
    ``ev`` or an ancestor, or absent. Equal keys give the same search on the same values, so
    the same result to the bit. None where a value cannot be a key (an array)."""
    hit = _SOLVES.get(id(ev.steps))
    if hit is None or hit[0] is not ev.steps:
        hit = (ev.steps, {}, {})
        _SOLVES[id(ev.steps)] = hit
    _, memo, cache = hit
    names = memo.get(("sorted", step["name"]))
    if names is None:
        names = memo[("sorted", step["name"])] = tuple(sorted(
            dependencies(ev.steps, step["name"], memo)))
    chain = []
    e: Evaluator | None = ev
    while e is not None:
        chain.append(e.inputs)
        e = e.parent
    values = []
    try:
        for name in names:
            for given in chain:
                if name in given:
                    values.append((name, _frozen(given[name])))
                    break
    except _Unkeyable:
        return None
    return cache, (step["name"], _terms_state(), tuple(values))


def _cached(solver: Any) -> Any:
    """``solver``, its results kept by :func:`_solve_key` (a search evaluates its target tens
    of times; the same model, chip and inputs at another batch or context need the same
    search again where the variable is the batch: the critical batch)."""
    def run(ev: Evaluator, step: Mapping[str, Any]) -> Any:
        found = _solve_key(ev, step)
        if found is None:
            return solver(ev, step)
        cache, key = found
        try:
            return cache[key]
        except KeyError:
            pass
        value = solver(ev, step)
        if len(cache) >= _SOLVES_MAX:
            cache.clear()
        cache[key] = value
        return value
    run.__doc__, run.__wrapped__ = solver.__doc__, solver
    return run


def _crossing(ev: Evaluator, step: Mapping[str, Any]) -> Any:
    """The x > 0 where ``rises`` (x) first reaches ``falls`` (x), by doubling then 60
    bisections (relative precision 1e-18); None when no x below ``limit`` reaches it.

    The bisections stop early once the midpoint rounds to an end of the bracket (two
    neighbouring floats): each further one would evaluate that end again and keep the same
    bracket, so the result is the 60 bisections' to the bit."""
    var, limit = step["var"], ev.ref(step["limit"])

    def gap(x: float) -> float:
        child = ev.child(**{var: x})
        return child.get(step["rises"]) - child.get(step["falls"])

    first = ev.child(**{var: 1.0})
    if first.get(step["rises"]) is None or first.get(step["falls"]) is None:
        return None  # a missing value: missing too
    lo, hi = 0.0, 1.0
    while gap(hi) < 0:
        lo, hi = hi, hi * 2
        if hi > limit:
            return None
    for _ in range(60):
        mid = (lo + hi) / 2
        if mid == lo or mid == hi:
            break
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
    return hi


def _plan_steps() -> Mapping[str, Any]:
    from .steps import PLAN

    return {s["name"]: s for s in PLAN}


PLAN_STEPS: Mapping[str, Any] = _plan_steps()

#: The solvers by name, their results kept by what they read (:func:`_cached`).
SOLVERS = {"largest": _cached(_largest), "crossing": _cached(_crossing)}
OPS = {"formula": _formula, "sum": _sum, "mean": _mean, "add": _add, "mul": _mul, "div": _div,
       "first": _first, "choose": _choose, "gt": _gt, "le": _le, "among": _among,
       "finite": _finite, "at": _at,
       "chain": _chain, "precision": _precision, "rate": _rate, "link": _link, "field": _entry,
       "solve": _solve}
