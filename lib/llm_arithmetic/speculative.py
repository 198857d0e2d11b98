"""Speculative decoding's drafts: the named workloads with a published acceptance rate, the
checks a draft model must pass against its target (one tokenizer, a split over the same chips,
a module the model declares and counts), the drafts a page offers, and the plan's inputs for
what a draft holds beside the target (a draft model's weights and stack, or the model's own
multi-token-prediction module).

:func:`~llm_arithmetic.estimate.speculative_inputs` and
:func:`~llm_arithmetic.estimate.draft_step_ratio` stay beside
:func:`~llm_arithmetic.estimate.estimate`: a draft model's cost is its own estimate over the
target's.

Units: parameters [-], bytes [B], token ids [-].

>>> SPECULATIVE_WORKLOADS["mtp"]["acceptance"], DRAFT_VOCAB_TOLERANCE
(0.85, 128)
"""
from __future__ import annotations

import warnings
from types import MappingProxyType
from typing import Any, Mapping

from .arguments import resolve_model
from .catalog.model import MTP_EXTRA, Model, stack_blocks
from .catalog.model_catalog import MODELS, get_model
from .core.errors import InputError
from .layout import parallel_degrees
from .weights import weight_inputs

__all__ = ["SPECULATIVE_WORKLOADS", "DRAFT_VOCAB_TOLERANCE", "DraftWarning", "check_draft",
           "draft_model", "offered_drafts", "draft_degrees", "MODULE_INPUTS_COPIED",
           "module_copied_params", "speculative_workload", "draft_held", "check_module",
           "NOTHING_HELD", "draft_memory_inputs"]

#: Speculative workloads with a published acceptance rate: draft length, acceptance, and the
#: draft step's cost (``"module"``: the roofline time of one step of the model's own module over
#: a plain step's of the target, the plan's ``module_draft_cost``), each with its source. Any
#: other workload gives its acceptance explicitly.
#: ``module``: the module the model must declare for the workload to apply
#: (:meth:`~llm_arithmetic.catalog.model.Model.has_mtp`), by one of the config fields
#: ``module_fields``.
SPECULATIVE_WORKLOADS: dict[str, dict[str, Any]] = {
    "mtp": {"draft_len": 1, "acceptance": 0.85, "draft_cost": "module",
            "module": MTP_EXTRA,
            "module_fields": ("num_nextn_predict_layers", "mtp_num_hidden_layers",
                              "num_mtp_modules"),
            "source": "DeepSeek-V3 technical report (arXiv 2412.19437), section 5.4.3: the "
                      "second token's acceptance rate 'ranges between 85% and 90% across "
                      "various generation topics' (the lower end taken); a draft step runs "
                      "one MTP module: its projection, its block(s) and the shared output "
                      "head (section 2.2)"},
}


#: The most token ids by which a draft's vocabulary may differ from the target's: llama.cpp's
#: SPEC_VOCAB_MAX_SIZE_DIFFERENCE (ggml-org/llama.cpp@6c8a04576e2cfa04261019fe8cbdc90c5cfc90fb
#: common/speculative.cpp, common_speculative_are_compatible, which compares the two GGUF
#: vocabularies' token counts, then their special tokens and every token's text).
DRAFT_VOCAB_TOLERANCE = 128


class DraftWarning(UserWarning):
    """A draft model the estimate takes, though an engine refuses it or it cannot pay."""


def check_draft(draft: Model, target: Model, engine: str | None = None) -> None:
    """What a draft model must share with its target: the target verifies the token ids the
    draft proposes, so both read one tokenizer. The catalog records no tokenizer, so the test
    is on ``vocab_size`` (each config's embedding rows): an :class:`InputError` where the two
    differ by more than :data:`DRAFT_VOCAB_TOLERANCE` ids, which llama.cpp refuses as
    incompatible vocabularies (its older releases then translated text between the two, a
    different algorithm from the one this arithmetic prices) and vLLM too; a
    :class:`DraftWarning` where they differ by less, as one family's models pad their tables
    differently (Qwen2.5 0.5B 151,936 rows, 7B 152,064): llama.cpp runs such a pair, its
    GGUF converter padding the token list to ``vocab_size``, while vLLM refuses any difference
    (vllm-project/vllm@f19b16d95e4395790661f4835e4436bc3dd5d9c7 vllm/config/speculative.py,
    verify_equal_vocab_size_if_draft_model); with ``engine="vllm"`` that refusal is an error.
    SGLang's draft-model worker checks neither (sgl-project/sglang@d0979b91f9e55721cb7606e38ae9
    1fc67d4911dc python/sglang/srt/speculative/standalone_worker.py loads the draft with no
    test of its vocabulary): the rule here is the tokenizer's, not one engine's.
    Equal sizes do not prove one tokenizer (Llama 2 and Mistral 7B both have 32,000 ids).
    A draft that reads at least as many parameters a decode step as the target costs at
    least a target step, so speculation cannot speed decoding up: a warning, not an error.

    >>> check_draft(get_model("qwen3-0.6b"), get_model("qwen3-8b"))
    >>> check_draft(get_model("llama-3.2-1b"), get_model("qwen3-8b"))
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: draft: llama-3.2-1b's vocab_size (128,256) differs from qwen3-8b's (151,936) by 23,680 token ids: a draft's tokens are verified by the target, so the two need one tokenizer (llama.cpp accepts a difference of at most 128 ids, vLLM none)
    """
    dv, tv = draft.n_vocab, target.n_vocab
    gap = abs(dv - tv)
    sizes = (f"{draft.name}'s vocab_size ({dv:,}) differs from {target.name}'s ({tv:,}) by "
             f"{gap:,} token id{'s' if gap != 1 else ''}")
    if gap > DRAFT_VOCAB_TOLERANCE:
        raise InputError(f"draft: {sizes}: a draft's tokens are verified by the target, so the "
                         f"two need one tokenizer (llama.cpp accepts a difference of at most "
                         f"{DRAFT_VOCAB_TOLERANCE} ids, vLLM none)")
    if gap and engine == "vllm":
        raise InputError(f"draft: {sizes}: vLLM refuses a draft model whose vocab_size differs "
                         "from the target's (llama.cpp accepts up to "
                         f"{DRAFT_VOCAB_TOLERANCE})")
    if gap:
        warnings.warn(f"draft: {sizes}, within the {DRAFT_VOCAB_TOLERANCE} that llama.cpp "
                      "accepts (one tokenizer, its embedding table padded differently); vLLM "
                      "refuses a draft model whose vocab_size differs", DraftWarning,
                      stacklevel=3)
    dp, tp_ = draft.decode_read_params, target.decode_read_params
    if dp >= tp_:
        warnings.warn(f"draft: {draft.name} reads {dp:,} parameters a decode step, no fewer "
                      f"than the target {target.name}'s {tp_:,}: a draft step costs at least a "
                      "target step, so speculation cannot speed decoding up", DraftWarning,
                      stacklevel=3)


def draft_model(draft: Any, target: Model, engine: str | None = None) -> Model:
    """The draft model (a Model, a catalog name or a config.json) whose bound, over the
    target's, is a draft step's cost: an InputError where either model's bound is not
    counted (a cache the library does not model) or where the two cannot share a tokenizer,
    a warning where the draft cannot pay (:func:`check_draft`; ``engine``: the engine whose
    rule applies, None for none)."""
    draft = resolve_model(draft)
    for x, role in ((draft, "the draft's"), (target, "the target's")):
        if x.cache_uncounted:
            raise InputError(f"draft: a draft step's cost is its bound over the target's, and "
                             f"{role} ({x.name}) is not counted: it needs {x.cache_uncounted}")
    check_draft(draft, target, engine)
    return draft


def offered_drafts(target: Any, candidates: Any = None) -> list[str]:
    """The catalog's models a page offers ``target`` as a draft model: those with fewer
    parameters than it (a larger draft cannot pay) that :func:`draft_model` takes (no
    :class:`InputError`: both caches counted, one tokenizer), in the catalog's order;
    ``candidates``: names to choose from (None: the whole catalog). The page's list is this one,
    exported (:func:`llm_arithmetic.book.export.catalog_data`'s ``drafts``).

    >>> "qwen3-0.6b" in offered_drafts("qwen3-8b"), "llama-3.2-1b" in offered_drafts("qwen3-8b")
    (True, False)
    >>> offered_drafts("qwen3-0.6b", ["qwen3-8b"])   # larger: not offered
    []
    """
    target = resolve_model(target)
    out = []
    for name in (MODELS if candidates is None else candidates):
        m = get_model(name)
        if m.name == target.name or m.total_params >= target.total_params:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DraftWarning)
                draft_model(m, target)
        except InputError:
            continue
        out.append(name)
    return out


def draft_degrees(draft: Model, tp: Any, pp: Any) -> None:
    """An :class:`InputError` where a draft model cannot be split over a replica of ``tp`` x
    ``pp`` chips as the target is (its weights, and its cache by key/value heads): the checks
    :func:`~llm_arithmetic.layout.parallel_degrees` makes of the target, made of the draft.

    >>> draft_degrees(get_model("qwen3-0.6b"), 8, 1)
    >>> draft_degrees(get_model("gemma-3-1b"), 8, 1)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: draft: tp = 8 exceeds the 4 attention heads of gemma-3-1b's layers: tensor parallelism splits heads, not parts of one (the draft is split over the replica's chips as the target is)
    """
    try:
        parallel_degrees(draft, tp, 1, pp)
    except InputError as e:
        raise InputError(f"draft: {e} (the draft is split over the replica's chips as the "
                         "target is)") from None


#: Of a multi-token-prediction module's input norms and projection (one module's), what a
#: tensor-parallel engine holds whole on every chip, by how the checkpoint names the module
#: (``Extra.names``), in units of d and d^2: DeepSeek-V3's layout (and GLM's), ``enorm`` and
#: ``hnorm`` (RMSNorm) and ``eh_proj`` (2d x d), which vLLM builds as a plain ``nn.Linear``, not
#: split (vllm-project/vllm@4f7c14402630b97c8c078523fca8edef287ed2cf
#: ``vllm/model_executor/models/deepseek_mtp.py``, ``DeepSeekMultiTokenPredictorLayer``; GLM's
#: the same, @6e052ba8f4d97e43fb88a3288f3240ff4f73d7d2 ``glm4_moe_mtp.py``): 2d + 2d^2; Qwen3.5's,
#: its two norms only, ``mtp.fc`` being a ``ColumnParallelLinear`` (``qwen3_5_mtp.py``): 2d.
#: A module named otherwise: none (its inputs split as its blocks are).
MODULE_INPUTS_COPIED = {"layers": (2, 2), "mtp.layers": (2, 0)}


def module_copied_params(m: Model) -> int | None:
    """Parameters of the inputs of the module a draft step runs that a tensor-parallel engine
    holds whole on every chip (:data:`MODULE_INPUTS_COPIED`); None where not modelled.

    >>> module_copied_params(get_model("deepseek-v3")) == 2 * 7168 + 2 * 7168 ** 2
    True
    """
    d = m.d_model
    for x in m.mtp_extras():
        if not x.in_total and x.names in MODULE_INPUTS_COPIED:
            vecs, mats = MODULE_INPUTS_COPIED[x.names]
            return vecs * d + mats * d * d
    return None


def speculative_workload(m: Model, speculation: Any, *,
                         module_held: bool = True) -> Mapping[str, Any] | None:
    """The record of the named workload ``speculation`` (:data:`SPECULATIVE_WORKLOADS`;
    None for none), checked: an :class:`InputError` for a name it does not list, or for a
    workload that drafts with a module ``m`` does not count (:func:`check_module`;
    ``module_held``: no draft model given, so the module is what the draft holds).

    >>> speculative_workload(get_model("qwen3-8b"), None) is None
    True
    >>> speculative_workload(get_model("qwen3-8b"), "nope")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: speculation: unknown workload 'nope'; known: mtp
    """
    if speculation is None:
        return None
    if not isinstance(speculation, str) or speculation not in SPECULATIVE_WORKLOADS:
        raise InputError(f"speculation: unknown workload {str(speculation)[:40]!r}; known: "
                         f"{', '.join(SPECULATIVE_WORKLOADS)}")
    check_module(m, speculation, module_held=module_held)
    return SPECULATIVE_WORKLOADS[speculation]


def draft_held(m: Model, workload: Mapping[str, Any] | None, draft: Any, *,
               engine: str | None = None, tp: Any = 1, pp: Any = 1, weights: Any = None,
               bits_weight: Any = None) -> tuple[Model | None, dict[str, Any] | None]:
    """The draft model, checked (:func:`draft_model`, ``engine``'s rule; :func:`draft_degrees`
    on ``tp`` x ``pp`` chips), or None, and the plan's inputs for what the draft holds
    (:func:`draft_memory_inputs`): a draft model's weights at ``weights`` or ``bits_weight``
    and its stack; else, where the ``workload`` (:func:`speculative_workload`) drafts with
    the model's own module, that module; else None (a draft given by its cost alone, or no
    draft, holds nothing counted)."""
    if draft is not None:
        draft = draft_model(draft, m, engine)
        draft_degrees(draft, tp, pp)  # split over the chips as the target (tp: vLLM's default)
        return draft, draft_memory_inputs(draft, weights=weights, bits_weight=bits_weight)
    if workload is not None and workload.get("module"):
        return None, draft_memory_inputs(m, module=True)
    return None, None


#: What to give instead of a module the workload cannot use (the end of its refusals).
_INSTEAD = ("give a draft length and an acceptance rate (draft_len, acceptance: --draft-len, "
            "--acceptance) or a draft model (draft: --draft)")


def check_module(m: Model, speculation: str, *, module_held: bool = True) -> None:
    """An :class:`InputError` where the workload ``speculation`` drafts with the model's own
    module and ``m`` has none it counts: none declared, or, where the module is what the
    draft holds (``module_held``: no draft model given), modules its config declares
    (:attr:`~llm_arithmetic.catalog.model.Model.mtp_modules`, by the field
    :attr:`~llm_arithmetic.catalog.model.Model.mtp_field`) that its family's reader does not
    count, whose weights and cache would otherwise be left out of every memory figure.

    >>> check_module(get_model("deepseek-v3"), "mtp")
    >>> check_module(get_model("minimax-m2.5"), "mtp")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: speculation: 'mtp' drafts with the model's multi-token prediction module, and the 3 that minimax-m2.5's config.json declares (field 'num_mtp_modules') are not counted by the 'minimax_m2' reader, so their weights and cache would be left out; give a draft length and an acceptance rate (draft_len, acceptance: --draft-len, --acceptance) or a draft model (draft: --draft)
    """
    w = SPECULATIVE_WORKLOADS[speculation]
    if not w.get("module"):
        return
    # the workload's acceptance and draft are those of the model's own module
    head = f"speculation: {speculation!r} drafts with the model's {w['module']} module, and "
    if m.mtp_modules and module_held:
        raise InputError(f"{head}the {m.mtp_modules} that {m.name}'s config.json declares "
                         f"(field '{m.mtp_field}') are not counted by the '{m.family}' reader, "
                         f"so their weights and cache would be left out; {_INSTEAD}")
    if not m.has_mtp():
        raise InputError(f"{head}{m.name} declares none (config.json: "
                         f"{', '.join(w['module_fields'])}); {_INSTEAD}")


#: The plan's inputs of what a draft holds, where it holds nothing counted.
NOTHING_HELD: Mapping[str, Any] = MappingProxyType(dict(
    draft_weight_bytes=None, draft_params=None, draft_embedding_params=None,
    draft_head_params=None, draft_blocks=None, draft_d_model=None, draft_final_norm_params=None,
    draft_bits_default=None))


def draft_memory_inputs(model: Model, *, module: bool = False, weights: Any = None,
                        bits_weight: Any = None) -> dict[str, Any]:
    """The plan's inputs for what a draft holds beside the target: with ``module``, the
    multi-token-prediction module of ``model`` (the target): its parameters outside the
    published total (``draft_params``, which the plan counts at the module's own bits as its
    checkpoint stores it, the model's ``native_bits`` ``"draft"`` and ``"draft_experts"``, else
    at the target's; where weights are asked for, a format, a number of bits or a llama.cpp
    file type, the module follows them as the rest of the model does; None where
    the reader counts none, or where the total already counts them), of them the embedding
    tables and output heads it stores as its own (``draft_embedding_params``,
    ``draft_head_params``: copies of the target's, which the plan leaves to the target as vLLM
    does) and its blocks (``draft_blocks``, every module's, for their cache; None where the
    reader gives none); else ``model`` is a draft model: its weights at ``weights`` or
    ``bits_weight`` (as :func:`~llm_arithmetic.estimate.estimate` takes them; None: as it ships),
    ``draft_weight_bytes`` [B], and its stack, with its final norm's parameters
    (``draft_final_norm_params``), its width (``draft_d_model``) and the bits of its weights but its experts' matrices
    (``draft_bits_default``), from which the plan counts the copies a tensor-parallel group
    holds of it.

    >>> held = draft_memory_inputs(get_model("qwen3-0.6b"))
    >>> held["draft_weight_bytes"], held["draft_params"], len(held["draft_blocks"])
    (1192099840, None, 1)
    >>> held = draft_memory_inputs(get_model("deepseek-v3"), module=True)
    >>> held["draft_weight_bytes"], held["draft_params"], held["draft_blocks"][0][0]
    (None, 13463426304, 1)
    >>> held["draft_embedding_params"], held["draft_head_params"]   # 129,280 x 7,168 each
    (926679040, 926679040)
    """
    if module:
        extras = [x for x in model.mtp_extras() if not x.in_total]
        params = sum(x.params for x in extras)
        layers = model.mtp_layers()
        return dict(NOTHING_HELD, draft_params=params or None,
                    draft_embedding_params=sum(x.embeddings for x in extras) if params else None,
                    draft_head_params=sum(x.heads for x in extras) if params else None,
                    draft_blocks=stack_blocks(layers) if layers else None)
    ev = model.plan.child(**weight_inputs(model, weights, bits_weight))
    return dict(NOTHING_HELD, draft_weight_bytes=ev.get("weight_bytes"),
                draft_blocks=model.blocks, draft_d_model=ev.get("d_model"),
                draft_final_norm_params=ev.get("final_norm_params"),
                draft_bits_default=ev.get("bits_default"))
