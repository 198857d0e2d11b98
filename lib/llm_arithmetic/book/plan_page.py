"""The appendix "How the calculator computes its numbers", written from the plan.

:func:`page_text` prints every step of :data:`llm_arithmetic.plan.steps.PLAN` in order: what it
is, its numbered equation (the registered formula's, generated from the sympy expression) or the
operation in words, and the names that feed it, each a link to the step that computes it. The
stack's terms are listed with the formula of each layer form. ``book/calculator.md`` is this
text; the build step that writes the generated files writes it, and a test fails when it is stale.

>>> "plan-total_params" in page_text()
True
"""
from __future__ import annotations

from typing import Any

from ..articles import all_formulas
from ..plan.interpreter import dependencies
from ..plan.stack import (ATTENDED_ROWS_LABEL, ATTENDED_ROWS_SPLIT, FORMS, KV_PER_TOKEN_MEAN,
                          TERMS)
from ..plan.steps import ENGINE_STEPS, ESTIMATE_STEPS, INPUTS, MODEL_STEPS, PLAN
from .display import equation_latex

__all__ = ["page_text", "PATH"]

PATH = "book/calculator.md"

_INTRO = """\
(calculator-plan)=
# How the calculator computes its numbers

<!-- GENERATED from llm_arithmetic/plan/steps.py and plan/stack.py by
     python -m tools.generate; do not edit. -->

Every number the command line, the Python functions and the calculators on these pages report
comes from one list of steps, evaluated by one small interpreter in Python and its twin in
JavaScript. A step takes a registered formula (the equation printed with it, the same one the
chapters derive) or a plain operation (a sum over the layers, the first value given, a
comparison, a search), and names what feeds it: an input, a sum over the layer stack, or an
earlier step. Reading down the list is following a `config.json` to a time per token. A step
is evaluated only when something asks for it, and a value that is missing (no chip given, say)
makes every step that needs it missing, so a calculator without a peak rate shows no compute
time rather than a wrong one.

## Inputs

The model's record: {inputs_model}. The workload and precision: {inputs_workload}. The chip, as
the catalog has it, and what a caller gave instead: {inputs_chip}.

## Sums over the layer stack

A layer has up to four parts: attention, a constant-state mixer, an MLP (dense or a mixture of
experts) and its norm vectors. Each part takes one form, the first of its list whose condition
the layer meets, and each term below is, for each form, one registered formula. A sum step adds
the term over every block, times how many blocks of that kind the stack has; a part whose form
has no case adds nothing. Three further choices are made the same way, each from a list of its
own: the bits a mixer keeps its recurrent state in, the all-reduces a part issues under tensor
parallelism besides its output projection's, and the span of an attention layer (which cached
positions it reads). The forms, then those choices:

{forms}

{terms}
"""

#: What each form of :data:`~llm_arithmetic.plan.stack.FORMS` is, in words (a form without a
#: description stops the page's generation, so the list cannot fall behind the data).
FORM_WORDS = {
    ("form", "attention"): {
        "compressed": "compressed attention with a grouped low-rank output (DeepSeek-V4)",
        "msa": "grouped-query attention whose indexer selects the blocks each key/value head "
               "attends (MiniMax-M3)",
        "dsa": "latent attention whose indexer selects the tokens attended (DeepSeek-V3.2)",
        "mla": "multi-head latent attention",
        "lowq": "grouped-query attention whose query passes through a low rank (Step3)",
        "gated": "attention with an output gate",
        "reuse": "attention that reads an earlier layer's keys and values",
        "split": "attention whose values are narrower than its keys",
        "tied": "attention whose values are its keys' projection",
        "attention": "multi-head, grouped-query or multi-query attention",
    },
    ("form", "mixer"): {"gdn": "Gated DeltaNet", "kda": "Kimi delta attention",
                        "shortconv": "a gated short convolution",
                        "lightning": "lightning attention", "mamba1": "Mamba-1",
                        "gmu": "a gated memory unit", "mamba2": "Mamba-2"},
    ("form", "mlp"): {"latent": "a mixture of experts in a narrower latent",
                      "moe": "a mixture of routed experts",
                      "shared": "shared experts beside at most one routed expert",
                      "mlp": "a dense MLP"},
    ("form", "norms"): {"hyper": "norm vectors and hyper-connection mixers",
                        "norms": "norm vectors"},
    ("kept", "mixer"): {"checkpoint": "a recurrent state whose dtype the checkpoint's config "
                                      "names",
                        "fp32": "a Kimi delta attention state, kept in float32",
                        "state": "a recurrent state kept at the state's bits"},
    ("reduce", "attention"): {"qk_norm": "attention whose whole-projection query and key "
                                          "norms, split with the heads, all-reduce each "
                                          "token's two float32 variances (MiniMax-M2)",
                              "none": "nothing more"},
    ("reduce", "mixer"): {"xproj": "Mamba-1, whose x_proj, split by rows, all-reduces the "
                                    "step-size rank and B and C of each token",
                          "head_norm": "lightning attention, whose norm over the split heads "
                                       "all-reduces each token's float32 variance",
                          "grouped": "Mamba-2 of several groups, each chip normalizing its own "
                                     "(nothing more)",
                          "group_norm": "Mamba-2 of one group, whose gated norm all-reduces "
                                        "each token's float32 sum of squares",
                          "none": "nothing more"},
    ("reduce", "mlp"): {"latent": "a latent mixture of experts, whose routed sum is "
                                  "all-reduced in the latent",
                        "none": "nothing more"},
    ("reduce", "norms"): {"laurel": "a block with a low-rank residual (Gemma 3n's LAuReL), "
                                    "whose row-split up-projection all-reduces the hidden "
                                    "state once more",
                          "none": "nothing more"},
    ("span", "attention"): {"compressed": "a window and the compressed entries it selects",
                            "sliding": "a sliding window", "chunked": "a chunk",
                            "topk": "the tokens an indexer selects",
                            "full": "the whole context"},
}

#: How the list of forms names a selector other than the form itself.
_SELECTOR_WORDS = {"span": "the span of ", "kept": "the bits of the recurrent state of a ",
                   "reduce": "tensor parallelism's all-reduce besides the output "
                             "projection's, in the part "}

_MODEL_INPUTS = ("blocks", "n_vocab", "d_model", "tied", "n_positions", "norm_vecs_final",
                 "head_bias", "extras_in_total", "extras_read", "extras_matmul",
                 "extras_copied", "d_ple",
                 "n_vocab_ple", "altup_num_inputs", "native_format",
                 "native_bits_default", "native_bits_experts",
                 "native_bits_unread", "native_bits_draft", "native_bits_draft_experts",
                 "native_bits_draft_inputs", "native_bits_draft_blocks", "native_bits_head",
                 "native_format_draft", "native_bits_draft_copy_heads",
                 "native_bits_draft_copy_matrices", "native_bits_draft_copy_router",
                 "native_bits_draft_copy_plain",
                 "native_bits_copy_heads", "native_bits_copy_matrices",
                 "native_bits_copy_router", "native_bits_copy_plain",
                 "is_moe", "n_active_experts")
_CHIP_INPUTS = tuple(i for i in INPUTS if i.startswith(("chip_", "given_")))


def _code(names: Any) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _ref(v: Any, steps: set[str]) -> str:
    if isinstance(v, dict):
        return "infinity" if v.get("inf") else f"`{v['literal']!r}`"
    if isinstance(v, str):
        return f"[`{v}`](plan-{v})" if v in steps else f"`{v}`"
    return f"`{v}`"


#: What a stack sum's ``where`` selects (plan/interpreter.py ``fold``), in the appendix's words.
WHERE_WORDS = {"prefill": ", over the blocks a prefill runs for its last token only",
               "!prefill": ", over the blocks a prefill runs for every prompt token"}


def _describe(step: dict[str, Any], steps: set[str]) -> str:
    r = lambda v: _ref(v, steps)  # noqa: E731
    op = step["op"]
    if op in ("sum", "mean"):
        what = "the sum" if op == "sum" else "the mean (weighted by count)"
        text = f"{what} over the layer stack of the term `{step['term']}`"
        if step.get("where"):
            text += WHERE_WORDS[step["where"]]
        if step.get("args"):
            text += ("," if step.get("where") else "") + " with " + ", ".join(
                f"`{k}` = {r(v)}" for k, v in step["args"].items())
        if step.get("plus"):
            text += ", plus " + ", ".join(r(x) for x in step["plus"])
        if step.get("minus"):
            text += ", minus " + ", ".join(r(x) for x in step["minus"])
        return text
    if op == "add":
        text = " + ".join(r(x) for x in step.get("plus", ()))
        return text + "".join(f" - {r(x)}" for x in step.get("minus", ()))
    if op == "mul":
        return " x ".join(r(x) for x in step["of"])
    if op == "div":
        return f"{r(step['of'][0])} / {r(step['of'][1])}"
    if op == "first":
        return "the first given of " + ", ".join(r(x) for x in step["of"])
    if op == "choose":
        return f"{r(step['then'])} where {r(step['when'])}, else {r(step['otherwise'])}"
    if op == "gt":
        return f"whether {r(step['of'][0])} > {r(step['of'][1])}"
    if op == "le":
        return f"whether {r(step['of'][0])} <= {r(step['of'][1])}"
    if op == "among":
        return f"whether {r(step['of'])} is one of {_code(step['values'])}"
    if op == "finite":
        return f"{r(step['of'])}, or none where it is infinite"
    if op == "at":
        return f"{r(step['target'])} evaluated with " + ", ".join(
            f"`{k}` = {r(v)}" for k, v in step["with"].items())
    if op == "chain":
        rest = (f"{_code(step['fallbacks'])} ({step['wide']} where {r(step['bits'])} is "
                f"{step['wide_bits']} or more and no format is named)")
        if step["format"] == {"literal": None}:   # no format's precision first (the tower's)
            return f"{rest}, no format's own precision before them"
        return (f"the compute precision of {r(step['format'])} (where it names vendors, only "
                f"on a chip whose {r(step['vendor'])} is one of them) and its fallback, then "
                f"{rest}")
    if op == "precision":
        return (f"the first of {r(step['chain'])} that {r(step['peaks'])} lists, or its faster "
                f"mode for the same inputs where the chip lists one "
                f"({', '.join(f'`{k}` -> `{v}`' for k, v in step['faster'].items())})")
    if op == "rate":
        return f"the rate of {r(step['peaks'])} at {r(step['precision'])}"
    if op == "link":
        return (f"from {r(step['interconnect'])}: the scale-up link within its domain, else the "
                "node network (PCIe where a card has nothing else)")
    if op == "field":
        return f"the entry `{step['key']}` of {r(step['of'])}, where it has one"
    if op == "solve":
        if step["solver"] == "largest":
            return (f"the largest `{step['var']}` (an integer, up to {r(step['limit'])}) whose "
                    f"{r(step['value'])} stays within {r(step['budget'])}, by bisection")
        return (f"the `{step['var']}` where {r(step['rises'])} reaches {r(step['falls'])}, by "
                "doubling and then bisection")
    raise ValueError(f"unknown op {op!r}")


def _step_text(step: dict[str, Any], steps: set[str], formulas: Any) -> str:
    name = step["name"]
    lines = [f"(plan-{name})=", f"### `{name}`", "", step["doc"][:1].upper() + step["doc"][1:]
             + "."]
    if step["op"] == "formula":
        f = formulas[step["formula"]]
        # a long right-hand side over lines, as the chapters set it for a phone's column
        lines += ["", "```{math}", f":label: eq-plan-{name}", equation_latex(f, multiline=True),
                  "```", ""]
        args = step.get("args", {})
        feeds = [f"`{p}` = {_ref(args[p], steps)}" if p in args else _ref(p, steps)
                 for p in f.params]
        lines.append(f"Equation {{eq}}`eq-plan-{name}` is the formula `{f.name}`; fed by "
                     + ", ".join(feeds) + ".")
    else:
        lines += ["", _describe(step, steps)[:1].upper() + _describe(step, steps)[1:] + "."]
    if "if" in step:
        lines.append(f"Only where {_ref(step['if'], steps)} is given (and not false or zero); "
                     f"else {_ref(step.get('else'), steps) if step.get('else') is not None else 'none'}.")
    return "\n".join(lines)


def page_text() -> str:
    """The Markdown of the appendix."""
    formulas = all_formulas()
    steps = {s["name"] for s in PLAN}
    rows = []
    for term, spec in TERMS.items():
        cases = "; ".join(f"{form}: `{case[0]}`" if case[0] != "=" else
                          f"{form}: {_ref(case[1]['value'], set())}"
                          for form, case in spec["cases"].items())
        missing = (f" Not counted (missing) for: {', '.join(spec['missing'])}."
                   if spec.get("missing") else "")
        rows.append(f"`{term}`\n: {spec['doc'][:1].upper() + spec['doc'][1:]}. By form: {cases}."
                    f"{missing}\n")
    forms = "\n".join(
        f"* {_SELECTOR_WORDS.get(kind, '')}{part}: "
        + "; ".join(f"`{form}`, {FORM_WORDS[kind, part][form]}" for form, _ in rules) + "."
        for kind, parts in FORMS.items() for part, rules in parts.items())
    text = _INTRO.format(forms=forms, inputs_model=_code(_MODEL_INPUTS),
                         inputs_workload=_code(i for i in INPUTS if i not in _MODEL_INPUTS
                                               and i not in _CHIP_INPUTS),
                         inputs_chip=_code(_CHIP_INPUTS), terms="\n".join(rows))
    memo: dict[str, frozenset[str]] = {}
    by_name = {s["name"]: s for s in PLAN}
    for title, group in (("The model's counts", MODEL_STEPS),
                         ("From the counts to the bounds", ESTIMATE_STEPS),
                         ("What an engine allocates", ENGINE_STEPS)):
        text += f"\n## {title}\n"
        for step in group:
            text += "\n" + _step_text(step, steps, formulas) + "\n"
            deps = sorted(dependencies(by_name, step["name"], memo) & set(INPUTS))
            text += f"Depends on the inputs {_code(deps)}.\n" if deps else ""
    return text + _mean_text() + _caveat_text()


def _mean_text() -> str:
    """The sentence printed for a cache per token that a form does not have (:data:`~llm_arithmetic.
    plan.stack.KV_PER_TOKEN_MEAN`), and the label and sentence of compressed attention's
    attended rows (``ATTENDED_ROWS_LABEL``, ``ATTENDED_ROWS_SPLIT``), so that a translated
    edition's catalog of this page holds their translations, which its calculators fill."""
    return f"""
(plan-cache-not-proportional)=
## A cache not proportional to the context

Where a form's cache per token is missing although its cache at a context is counted
(DeepSeek-V4's compressed attention: a window, an entry per $m_c$ tokens, a fixed pending
state), the command line (`describe`) and the calculators print in its place the mean over
the context and batch asked, from this template (the word in braces is that mean in bytes):

* {KV_PER_TOKEN_MEAN}

The rows a decode step attends to in such a layer are of two kinds, window tokens and
compressed entries, so where the calculators show the rows attended per layer they name them
with this label and split their mean (in braces: the mean, the window's share, the entries'
share), as `describe` does:

* {ATTENDED_ROWS_LABEL}
* {ATTENDED_ROWS_SPLIT}
"""


def _caveat_text() -> str:
    """The forecast's caveat: its sentences as templates (:data:`~llm_arithmetic.forecast.
    CAVEAT_TEMPLATES`), one list item each, so that a translated edition's catalog of this page
    holds their translations, which its calculators fill."""
    from ..forecast import CAVEAT_TEMPLATES, unmeasured_kinds

    t = CAVEAT_TEMPLATES
    return f"""
(plan-forecast-caveat)=
## What a forecast borrows

The forecast's fitted terms are kept per chip class and runtime where the measurements allow.
Where a named runtime has no measured rows on the chip's class, some of its terms are the
pooled ones of every runtime; where the chip is of a kind no measured row is of
({_code(unmeasured_kinds())}), its class's terms stand in for it. The command line
(`describe`, its `forecast_caveat` in `--json` and `caveat` in `--explain`) and the
calculators then print the same sentence under the forecast, from these templates (a word in
braces is filled in: the runtime, the fits, the chip class, the terms' symbols):

* {t["pooled"]}
* {t["unmeasured"]}

The place in the first is one of:

* {t["on_class"]}
* {t["no_class"]}
"""
