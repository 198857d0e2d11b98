"""The plan and its interpreter (llm_arithmetic.plan): the data is whole, and a child
evaluator, which asks its parent for every value that does not depend on its changed inputs,
gives what a fresh evaluation of the same inputs gives (the sharing is exact, not a shortcut).
The JavaScript twin is held to the Python one in tests/test_widgets.py."""
from __future__ import annotations

import dataclasses
import random

import pytest

from llm_arithmetic import numeric
from llm_arithmetic.catalog.model import (MLP, Attention, GatedDeltaNet, GatedMemoryUnit,
                                          KimiDeltaAttention, LightningAttention, Mamba1, Mamba2,
                                          ShortConv)
from llm_arithmetic.catalog.model_catalog import CATALOG
from llm_arithmetic.plan import FIELDS, FORMS, PLAN, TERMS
from llm_arithmetic.plan.interpreter import OPS, PLAN_STEPS, SOLVERS, Evaluator, step_refs
from llm_arithmetic.plan.steps import INPUTS, MODEL_STEPS

RECORDS = {"attention": (Attention,),
           "mixer": (Mamba2, GatedDeltaNet, KimiDeltaAttention, ShortConv, LightningAttention,
                     Mamba1, GatedMemoryUnit),
           "mlp": (MLP,)}


def test_every_step_is_named_once_and_reads_only_inputs_and_steps():
    names = [s["name"] for s in PLAN]
    assert len(names) == len(set(names))
    assert not set(names) & set(INPUTS), "a step shadows an input"
    for step in PLAN:
        assert step["op"] in OPS, step["name"]
        if step["op"] == "formula":
            assert step["formula"] in numeric.PARAMS, step["name"]
            assert set(step.get("args", {})) <= set(numeric.PARAMS[step["formula"]]), step["name"]
        if step["op"] == "solve":
            assert step["solver"] in SOLVERS
        refs, _, _ = step_refs(step)
        defaults = set()
        if step["op"] == "formula":
            defaults = {p for p in numeric.PARAMS[step["formula"]]
                        if p not in step.get("args", {})}
        unknown = refs - set(names) - set(INPUTS) - defaults
        assert not unknown, f"{step['name']} reads {sorted(unknown)}"


def test_every_term_names_a_formula_and_every_field_a_record_field():
    for term, spec in TERMS.items():
        assert spec["by"] in FORMS, term
        for form, (formula, bindings) in spec["cases"].items():
            if formula == "=":
                assert set(bindings) == {"value"}
                continue
            assert formula in numeric.PARAMS, (term, form)
            assert set(bindings) <= set(numeric.PARAMS[formula]), (term, form)
            for src in bindings.values():
                if isinstance(src, str) and src.startswith("@"):
                    assert src[1:] in TERMS, (term, src)
    for part, records in RECORDS.items():
        own = {f.name for record in records for f in dataclasses.fields(record)}
        for name, src in FIELDS[part].items():
            field = src if isinstance(src, str) else src[1]
            assert field in own, (part, name, field)


#: A format whose own precision applies on one vendor's chips only (as llama.cpp's block formats).
BLOCK_FORMAT = {"compute": "int8", "compute_fallback": "fp16", "compute_vendors": ["NVIDIA"]}


@pytest.mark.parametrize("seed", range(4))
def test_a_child_equals_a_fresh_evaluation(seed):
    """Every step of the plan, for random models and workloads: the value a child of the
    model's cached plan gives equals a fresh evaluator's."""
    rng = random.Random(seed)
    m = CATALOG[rng.choice(sorted(CATALOG))].model
    inputs = dict(context=rng.randint(1, 100_000), batch=rng.choice([1, 3, 64]),
                  prompt=rng.choice([None, 777]), generate=rng.choice([None, 0, 50]),
                  bits_weight=rng.choice([None, 4.5]), bits_kv=rng.choice([16, 8]),
                  bits_state=16, overhead=0, tp=1, ep=1, pp=1, given_link_latency=None,
                  overlap=None, allreduce_asked=None, node_limit=None, dispatch_bits=None,
                  price_per_hour=2.0, weight_format=rng.choice([None, BLOCK_FORMAT]),
                  chip_bandwidth=2e12, chip_capacity=80 * 2**30, chip_power=700, chip_peaks={"fp16": {"rate": 1e15}},
                  chip_interconnect=None, chip_vendor=rng.choice([None, "", "NVIDIA"]),
                  given_bandwidth=None, given_peak_flops=None,
                  given_capacity=None, given_power=None, given_link_bandwidth=None,
                  context_limit=1 << 32, crossing_limit=1e12)
    shared = m.plan.child(**inputs)
    for step in MODEL_STEPS:  # the parent holds the model's counts at its own defaults
        m.plan.get(step["name"])
    fresh = Evaluator(PLAN_STEPS, m.plan_inputs, inputs)
    for name in PLAN_STEPS:
        assert shared.get(name) == fresh.get(name), name


def test_every_estimate_field_is_an_input_or_a_step():
    from llm_arithmetic.estimate import FIELD_STEPS, INPUT_FIELDS, Estimate

    names = {f.name for f in dataclasses.fields(Estimate)}
    assert set(FIELD_STEPS) | set(INPUT_FIELDS) == names
    assert not set(FIELD_STEPS) & set(INPUT_FIELDS)
    assert set(FIELD_STEPS.values()) <= set(PLAN_STEPS)


@pytest.mark.parametrize("name,kw", [("mixtral-8x7b", dict(hardware="h200")),
                                     ("deepseek-v3", dict(hardware="h100-sxm", weights="fp8")),
                                     ("gpt-oss-20b", dict(bandwidth=1e12, peak_flops=1e15))])
def test_the_crossing_is_sixty_bisections_to_the_bit(name, kw):
    """The crossing solver stops bisecting once the bracket is two neighbouring floats; its
    critical batch is still, bit for bit, what doubling then all 60 bisections give (written out
    here on the estimate's own evaluator)."""
    from llm_arithmetic import estimate

    e = estimate(name, **kw)
    ev = e._plan
    step = PLAN_STEPS["critical_batch_moe"]

    def gap(x):
        child = ev.child(**{step["var"]: x})
        return child.get(step["rises"]) - child.get(step["falls"])

    lo, hi = 0.0, 1.0
    while gap(hi) < 0:
        lo, hi = hi, hi * 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
    assert e.critical_batch_size == hi


def test_a_kept_search_result_is_the_one_the_search_gives(monkeypatch):
    """The searches' results are kept by the values of the inputs they read, their variable
    aside (interpreter._cached): the critical batch found at batch 1 is the one at batch 64
    (the search sets the batch itself), while another context, another chip or other stack
    terms search again; each result equals the search run afresh (the solver itself, not
    kept) on the same evaluator."""
    from llm_arithmetic import estimate
    from llm_arithmetic.plan import interpreter

    step = PLAN_STEPS["critical_batch_moe"]
    search = SOLVERS["crossing"].__wrapped__
    found = {}
    for hardware in ("h200", "mi300x"):
        for context in (1, 100):
            for batch in (1, 64):
                e = estimate("mixtral-8x7b", hardware=hardware, context=context, batch=batch)
                assert e.critical_batch_size == search(e._plan, step)
                found.setdefault((hardware, context), set()).add(e.critical_batch_size)
    assert all(len(v) == 1 for v in found.values())  # the batch does not change it
    assert len({v for s in found.values() for v in s}) == 4  # context and chip do
    # a kept result is returned as kept: mark the one just stored, then ask again
    e = estimate("mixtral-8x7b", hardware="h200", context=777)
    cache = interpreter._SOLVES[id(e._plan.steps)][2]
    key = [k for k in cache if k[0] == "critical_batch_moe"][-1]
    monkeypatch.setitem(cache, key, 12345.5)
    assert estimate("mixtral-8x7b", hardware="h200", context=777,
                    batch=64).critical_batch_size == 12345.5
    assert estimate("mixtral-8x7b", hardware="h200",
                    context=778).critical_batch_size != 12345.5
    monkeypatch.setitem(TERMS["kv_read"], "cases", dict(TERMS["kv_read"]["cases"]))
    assert estimate("mixtral-8x7b", hardware="h200",
                    context=777).critical_batch_size == e.critical_batch_size


def test_a_kept_formula_value_is_the_one_its_arguments_compute():
    """The interpreter keeps each formula's value by its arguments (interpreter._CALLS): what
    compares equal but computes otherwise is kept apart (an int and a float give an int and a
    float; 1/0.0 and 1/-0.0 are inf and -inf, as the generated functions give them), an
    unhashable argument (an array) is computed as it comes, and a repeated call returns the
    first value."""
    import numpy as np

    from llm_arithmetic.plan.interpreter import call

    for args, want in [(dict(ttft=1, tpot=1, generated=2), 3),
                       (dict(ttft=1.0, tpot=1, generated=2), 3.0),
                       (dict(ttft=1, tpot=1, generated=2), 3)]:
        got = call("request_time", args)
        assert got == want and type(got) is type(want)
    assert call("tokens_per_user", {"tpot": 0.0}) == float("inf")
    assert call("tokens_per_user", {"tpot": -0.0}) == float("-inf")
    assert call("tokens_per_user", {"tpot": 0.0}) == float("inf")
    # numpy's floats too (np.float64 is a float subclass, np.float32 is not): 1 / -0.0 is -inf
    for t in (np.float64, np.float32):
        with np.errstate(divide="ignore"):
            assert call("tokens_per_user", {"tpot": t(0.0)}) == float("inf")
            assert call("tokens_per_user", {"tpot": t(-0.0)}) == float("-inf")
    got = call("tokens_per_user", {"tpot": np.array([0.5, 0.25])})
    assert got.tolist() == [2.0, 4.0]


def test_the_pipeline_edges_docs_name_what_each_holds():
    # vLLM runs on the first pipeline stage the input embedding (its all-reduce), a per-layer
    # embedding (its all-reduce and its projection's all-gather: gemma4.py computes them where
    # is_first_rank) and AltUp's projections of the embedded tokens; on the last the logits'
    # all-gather and AltUp's projections of the last block's output (gemma3n.py's forward).
    # The edge steps leave those out of the layers' communication, and their docs say so
    steps = {s["name"]: s for s in PLAN}
    first = set(steps["comm_no_embedding"]["with"])
    last = set(steps["comm_layers"]["with"]) - first
    assert first == {"n_embedding_allreduces", "ple_allreduce_one", "ple_allgather_one",
                     "altup_embed_allgathers"}
    assert last == {"allgather_one", "altup_unembed_allgathers"}
    said = {"n_embedding_allreduces": "the embedding's all-reduce",
            "ple_allreduce_one": "per-layer embedding's all-reduce",
            "ple_allgather_one": "all-gather",
            "altup_embed_allgathers": "AltUp's all-gathers of the embedded tokens",
            "allgather_one": "the logits' all-gather",
            "altup_unembed_allgathers": "AltUp's all-gathers of the last block's output"}
    for names, held in ((("comm_embedding", "comm_first_stage"), first),
                        (("comm_head", "comm_last_stage"), last)):
        for name in names:
            for k in held:
                assert said[k] in steps[name]["doc"], (name, k)
