"""The composition, declared once: what a stack sums (:mod:`~llm_arithmetic.plan.stack`), the
ordered steps from a ``config.json`` to a time per token (:mod:`~llm_arithmetic.plan.steps`),
and the interpreter that evaluates both (:mod:`~llm_arithmetic.plan.interpreter`; the book's
pages run its JavaScript twin on the same data)."""
from .interpreter import Evaluator, fold, part_scope, part_term  # noqa: F401
from .stack import FIELDS, FORMS, PARTS, TERMS  # noqa: F401
from .steps import PLAN  # noqa: F401


def plan_data() -> dict:
    """The plan and the stack's tables as one JSON-ready dict (what the book's pages read)."""
    from .interpreter import EXACT_ONLY_WHOLE

    return {"steps": PLAN, "terms": TERMS, "forms": FORMS, "fields": FIELDS, "parts": PARTS,
            "exact_only_whole": sorted(EXACT_ONLY_WHOLE)}
