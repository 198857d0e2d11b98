"""Weight formats: the real bits per weight of each, and the precision it computes at.

``catalog/data/formats.toml`` holds every named format with the block layout that gives its
bits per weight (llama.cpp's blocks counted from ggml's structs; NVFP4 and MXFP4 from their
specifications), the precision whose peak rate a matrix product on those weights runs at, and
the precision used where a chip has no units for it.

>>> bits_per_weight("Q4_0"), bits_per_weight("mxfp4"), bits_per_weight("nvfp4")
(Fraction(9, 2), Fraction(17, 4), Fraction(9, 2))
>>> bits_per_weight(4.5)
Fraction(9, 2)
>>> compute_chain("nvfp4")
('fp4', 'fp16', 'bf16', 'fp32')
"""
from __future__ import annotations

import functools
import os
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from ..core.errors import InputError
from ..core.lookup import did_you_mean
from ..core.paths import data_file, lazy_paths
from ..core.records import record
from ..core.units import to_fraction
from .format_compute import plan_format

if TYPE_CHECKING:  # the model module imports the plan; formats is read without it
    from pathlib import Path

    from .model import Attention, Layers, Model

__all__ = ["Format", "FORMATS", "BITS_PER_WEIGHT", "bits_per_weight", "compute_chain", "plan_format",
           "compute_precision", "attention_precision", "DATA_PATH", "MAX_BITS", "Mix", "MIXES", "mix_tensors",
           "mix_bits", "mix_parts", "mix_copy_bits", "FILE_TYPE_PREFIX", "file_type", "file_type_names",
           "shared_name"]

#: The catalog's file; ``DATA_PATH``, its :class:`pathlib.Path`, is made when first asked for.
DATA_FILE = data_file(__file__, "data", "formats.toml")
__getattr__ = lazy_paths(globals(), DATA_PATH=DATA_FILE)

#: Largest bits per weight accepted: fp64 is the widest format anyone stores weights in.
MAX_BITS = 64


@record
class Format:
    """A named weight format.

    Attributes
    ----------
    name : str
    bits : Fraction
        Bits per weight, block scales included [bit].
    layout : str
        The block that gives ``bits``.
    compute : str
        Precision key (as in the hardware catalog's peaks) a matrix product on these weights
        runs at, on a chip with units for it.
    compute_fallback : str
        The precision used otherwise ("" when the same).
    compute_vendors : tuple of str
        Where not empty, ``compute`` applies only on chips of these vendors (the hardware
        catalog's ``vendor``): the kernels that multiply at ``compute`` exist only for them
        (llama.cpp's int8 paths for its block formats); elsewhere the chain starts at
        ``compute_fallback``.
    source, note : str
    """

    name: str
    bits: Fraction
    layout: str
    compute: str
    compute_fallback: str = ""
    source: str = ""
    note: str = ""
    compute_vendors: tuple[str, ...] = ()


def _load(path: Path | None = None) -> dict[str, Format]:
    if path is None:  # the catalog: compiled from formats.toml (see catalog/compiled.py)
        from .compiled import load

        file, data = os.path.basename(DATA_FILE), load("formats")
    else:
        import tomllib  # a user's file; the catalog's own is compiled to JSON

        file, data = path.name, tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for name, d in data["formats"].items():
        try:
            bits = Fraction(d["bits_per_weight"])
        except (KeyError, ValueError):
            raise InputError(f"{file}: formats.{name}.bits_per_weight: missing or not a "
                             "fraction") from None
        out[name] = Format(name, bits, d.get("layout", ""), d["compute"],
                           d.get("compute_fallback", ""), d.get("source", ""), d.get("note", ""),
                           tuple(d.get("compute_vendors", ())))
    return out


FORMATS: Mapping[str, Format] = MappingProxyType(_load())
#: Bits per weight of every named format [bit].
BITS_PER_WEIGHT: Mapping[str, Fraction] = MappingProxyType(
    {name: f.bits for name, f in FORMATS.items()})


def bits_per_weight(fmt: str | int | float | Fraction) -> Fraction:
    """Bits per weight of a named format (case-insensitive), or of a number given as is [bit].

    Raises :class:`~llm_arithmetic.core.errors.InputError` naming close matches for an unknown
    format, and for a number that is not positive or beyond :data:`MAX_BITS`.

    >>> bits_per_weight("q4_k"), bits_per_weight("8.5")
    (Fraction(9, 2), Fraction(17, 2))
    >>> bits_per_weight(1e308)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: bits per weight must be at most 64 (fp64 is the widest format weights are stored in), got 1e+308
    """
    if isinstance(fmt, str):
        key = fmt.strip().lower()
        if key in BITS_PER_WEIGHT:
            return BITS_PER_WEIGHT[key]
        try:
            value = to_fraction(float(key))
        except (ValueError, OverflowError):
            if file_type(key) is not None:
                raise InputError(f"{fmt[:40]!r} is a llama.cpp file type (a type per tensor): "
                                 "its bits per weight depend on the model; give it as weights= "
                                 "to estimate() or use mix_bits(model, name)") from None
            raise InputError(f"unknown weight format {fmt[:40]!r}"
                             f"{did_you_mean(key, [*BITS_PER_WEIGHT, *file_type_names()])} "
                             f"(known: {', '.join(BITS_PER_WEIGHT)}; llama.cpp file types, "
                             f"whose bits depend on the model: {', '.join(file_type_names())})"
                             ) from None
    else:
        try:
            value = to_fraction(fmt)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"bits per weight must be a number or a format name, got "
                             f"{fmt!r:.40}") from None
    if not value > 0:
        raise InputError(f"bits per weight must be positive, got {float(value):g}")
    if value > MAX_BITS:
        raise InputError(f"bits per weight must be at most {MAX_BITS} (fp64 is the widest "
                         f"format weights are stored in), got {float(value):g}")
    return value


def _peak_steps(weight_format: str | None, bits: Fraction | None,
                peaks: Mapping[str, object] | None, vendor: str | None = None,
                bits_kv: Fraction | None = None) -> object:
    from ..plan.interpreter import PLAN_STEPS, Evaluator

    return Evaluator(PLAN_STEPS, {
        "weight_format": plan_format(weight_format), "bits_weight": bits, "bits_kv": bits_kv,
        "chip_peaks": None if peaks is None else {k: {"rate": None} for k in peaks},
        # a chip (its peaks) without a vendor is of no vendor a format names
        "chip_vendor": None if peaks is None else (vendor or ""),
        "given_peak_flops": None})


def compute_chain(weight_format: str | None, bits: Fraction | None = None) -> tuple[str, ...]:
    """Precisions to try, in order, for the peak rate of a matrix product on weights of a
    format: the format's own (on a chip, only where the format names no vendors or the chip's
    vendor is one of them), its fallback, then fp16, bf16 (a chip that lists only bf16, as
    the TPUs and Gaudis do, runs 16-bit weights at that peak) and fp32. Without a format name, 32-bit
    weights compute in fp32 and anything else in fp16. The plan's ``precision_chain`` step
    (:mod:`llm_arithmetic.plan.steps`), the one place that says which peak applies.

    >>> compute_chain("fp8"), compute_chain(None, Fraction(32))
    (('fp8', 'fp16', 'bf16', 'fp32'), ('fp32', 'fp16', 'bf16'))
    >>> compute_chain("q4_0")
    ('int8', 'fp16', 'bf16', 'fp32')
    """
    return tuple(_peak_steps(weight_format, bits, None).get("precision_chain"))


def compute_precision(weight_format: str | None, bits: Fraction | None = None,
                      peaks: Mapping[str, object] | None = None, vendor: str = "") -> str:
    """The precision whose peak applies: the first of :func:`compute_chain` the chip (its
    ``peaks`` and ``vendor``) has, or its faster mode (the first of the chain without a chip;
    the chain's first 16- or 32-bit fallback on a chip that lists none of it).

    >>> compute_precision("q4_0"), compute_precision(None, Fraction(32))
    ('int8', 'fp32')
    >>> compute_precision("fp8", peaks={"fp16": 1, "fp32": 1})
    'fp16'
    >>> compute_precision("q4_0", peaks={"bf16": 1, "int8": 1}, vendor="Google")   # a TPU v5e
    'bf16'
    >>> compute_precision("q4_0", peaks={"fp16": 1, "fp16-acc16": 1, "int8": 1}, vendor="NVIDIA")
    'int8'
    >>> compute_precision("q4_0", peaks={"fp16": 1, "int8": 1}, vendor="Apple")   # an M5
    'fp16'
    >>> compute_precision("q4_0", peaks={"fp4": 1}, vendor="NVIDIA")   # none listed: Vera Rubin
    'fp16'
    """
    return _peak_steps(weight_format, bits, peaks, vendor).get("compute_precision")


def attention_precision(bits_kv: Fraction, peaks: Mapping[str, object] | None = None,
                        vendor: str = "") -> str:
    """The precision whose peak attention's products (scores and weighted values over the
    cache) take: the plan's ``attention_precision`` step, from the cache's bits whatever the
    weights' format (fp8 for a cache of at most 8 bits where the chip lists fp8, else the
    16-bit chain with its faster mode).

    >>> attention_precision(Fraction(16), peaks={"fp16": 1, "fp16-acc16": 1, "int8": 1})
    'fp16-acc16'
    >>> attention_precision(Fraction(8), peaks={"fp16": 1, "fp8": 1})
    'fp8'
    >>> attention_precision(Fraction(8), peaks={"fp16": 1, "int8": 1})   # no fp8 units
    'fp16'
    """
    return _peak_steps(None, None, peaks, vendor, bits_kv).get("attention_precision")


# ---- llama.cpp file types: a type per tensor ----------------------------------------------------
#: Widths of the tensors llama.cpp keeps unquantized: 1-D tensors (norms, biases) as F32, and
#: 2-D tensors it never quantizes (routers, position embeddings) as they were converted (F16).
_F32, _F16 = Fraction(32), Fraction(16)
#: Families whose llama.cpp files keep the routers (ffn_gate_inp) in F32, where the catalog's
#: other MoE files have them in F16. llama-quantize never quantizes a router
#: (tensor_allows_quantization, src/llama-quant.cpp at 007dbbf3), so it keeps the converter's
#: type, and the converter has written it in F32 since it lists FFN_GATE_INP among "tensor types
#: [that] are always in float32" (ggml-org/llama.cpp@2bbcf7fc93a460f04d5709756a48b2408443eecb
#: conversion/base.py, prepare_tensors). gpt-oss's files were converted so: ggml-org's
#: gpt-oss-20b and 120b GGUFs come to llama.cpp's printed 11.27 and 59.02 GiB with F32 routers
#: (11.266, 59.022), not with F16 ones (11.262, 58.997). Mixtral 8x7B's Q4_0 of PR 4406 (24.62
#: GiB) was converted before, with F16 routers (24.625 with them, 24.627 with F32).
_F32_ROUTERS = frozenset({"gpt_oss"})
#: Model families whose GGUF files fuse q, k and v into one attn_qkv tensor (it takes the attn_v
#: rule). Falcon is refused: llama.cpp gives it rules of its own.
_FUSED_QKV = ("phi3", "gpt2")
_NOT_MODELLED = ("falcon",)
#: llama.cpp's fallback when a tensor's rows are not a whole number of 256-element super-blocks
#: (IQ4_NL for Q2_K/Q3_K has Q4_0's 4.5 bits).
_FALLBACK = {"q2_k": "q4_0", "q3_k": "q4_0", "q4_k": "q5_0", "q5_k": "q5_1", "q6_k": "q8_0"}
#: Mixes whose attn_output becomes Q5_K in a model of 8 experts.
_EIGHT_EXPERT_OUTPUT_Q5K = ("q2_k", "q3_k_s", "q3_k_m", "q4_k_s", "q4_k_m")


@record
class Mix:
    """A llama.cpp file type ("Q4_K_M"): a default type and the rules that give some tensors
    another (``formats.toml``, ``[mixes]``).

    Attributes
    ----------
    name, default : str
    rules : Mapping[str, tuple]
        Tensor kind (``attn_v``, ``ffn_down``, ``attn_output``) -> ((type, condition), ...),
        the first pair whose condition holds wins.
    output : str
        Type of the output head (``q6_k`` but for ``q8_0`` and ``mxfp4_moe``).
    experts : str or None
        Type of every routed expert's matrices, whatever the other rules say (``mxfp4`` in
        ``mxfp4_moe``); None where the rules above type them.
    """

    name: str
    default: str
    rules: Mapping[str, tuple[tuple[str, str], ...]]
    output: str = "q6_k"
    experts: str | None = None


def _load_mixes(path: Path | None = None) -> dict[str, Mix]:
    if path is None:  # the catalog: compiled from formats.toml (see catalog/compiled.py)
        from .compiled import load

        data = load("formats")
    else:
        import tomllib

        data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for name, d in data.get("mixes", {}).items():
        rules = {kind: tuple((t, c) for t, c in d[kind])
                 for kind in ("attn_v", "ffn_down", "attn_output") if kind in d}
        out[name] = Mix(name, d["default"], MappingProxyType(rules), d.get("output", "q6_k"),
                        d.get("experts"))
    return out


#: llama.cpp file types by lower-case name. The names that are also block formats (``q2_k``,
#: ``q6_k``, ``q4_0``, ``q8_0``) name the block format in ``weights=``; the file types are
#: named with :data:`FILE_TYPE_PREFIX` (``mostly_q4_0``, :func:`file_type`).
MIXES: Mapping[str, Mix] = MappingProxyType(_load_mixes())

#: The prefix that names a llama.cpp file type whatever else its name names, as llama.cpp's own
#: enum spells its file types: ``LLAMA_FTYPE_MOSTLY_Q4_0`` (``mostly_q4_0``) is a Q4_0 file,
#: whose output head llama.cpp writes at Q6_K and its 1-D tensors at F32, where ``q4_0`` is the
#: block format, every weight at 4.5 bits. Every file type of :data:`MIXES` has such an enum
#: name: ``enum llama_ftype`` in include/llama.h
#: (https://github.com/ggml-org/llama.cpp/blob/3679b65db16ebaabba95a893c62eb6c4840e832c/include/llama.h),
#: and ``llama_ftype_get_default_type`` in src/llama-quant.cpp at the commit formats.toml reads
#: the rules at, which also names LLAMA_FTYPE_MOSTLY_MXFP4_MOE
#: (https://github.com/ggml-org/llama.cpp/blob/007dbbf3fd17eefe9b47fee45f48f7ba5e62b714/src/llama-quant.cpp).
FILE_TYPE_PREFIX = "mostly_"


def file_type(name: object) -> Mix | None:
    """The llama.cpp file type a weight-format name asks for (case-insensitive), or None: any
    file type of :data:`MIXES` as llama.cpp's enum names it (``mostly_q4_0``,
    ``mostly_q4_k_m``), and the bare name of one that is no block format (``q4_k_m``, the same
    file as ``mostly_q4_k_m``). A bare name that is both (``q4_0``, :func:`shared_name`) is the
    block format: None.

    >>> file_type("MOSTLY_Q4_0").name, file_type("q4_k_m") == file_type("mostly_q4_k_m")
    ('q4_0', True)
    >>> file_type("q4_0"), file_type("mostly_q4_k"), file_type(4.5)
    (None, None, None)
    """
    if not isinstance(name, str):
        return None
    key, prefixed = _mix_key(name)
    return MIXES.get(key) if prefixed or key not in BITS_PER_WEIGHT else None


def _mix_key(name: str) -> tuple[str, bool]:
    """``name`` in lower case without llama.cpp's ``mostly_``, and whether it had it."""
    key = name.strip().lower()
    if key.startswith(FILE_TYPE_PREFIX):
        return key[len(FILE_TYPE_PREFIX):], True
    return key, False


def shared_name(name: object) -> str | None:
    """The lower-case name where ``name`` is both a block format and a llama.cpp file type
    (``q2_k``, ``q4_0``, ``q6_k``, ``q8_0``): read as the block format, the file being
    ``mostly_`` + it; else None.

    >>> shared_name(" Q4_0"), shared_name("q4_k_m"), shared_name("mostly_q4_0")
    ('q4_0', None, None)
    """
    key = name.strip().lower() if isinstance(name, str) else None
    return key if key in BITS_PER_WEIGHT and key in MIXES else None


def file_type_names() -> tuple[str, ...]:
    """Every name that asks for a llama.cpp file type: ``mostly_`` + each of :data:`MIXES`, and
    the bare names that are no block format.

    >>> names = file_type_names()
    >>> "mostly_q4_0" in names, "q4_k_m" in names, "q4_0" in names
    (True, True, False)
    """
    return (*(FILE_TYPE_PREFIX + k for k in MIXES),
            *(k for k in MIXES if k not in BITS_PER_WEIGHT))


def _use_more_bits(i: int, n: int) -> bool:
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _holds(condition: str, i: int, n: int, n_gqa: int) -> bool:
    conditions = {"": True, "use_more_bits": None, "i < 2": i < 2, "i < 4": i < 4,
                  "i < n/8": i < n // 8, "i < n/16": i < n // 16, "n_gqa >= 4": n_gqa >= 4}
    if condition not in conditions:
        raise InputError(f"formats.toml: unknown mix condition {condition!r}")
    return _use_more_bits(i, n) if condition == "use_more_bits" else conditions[condition]


def _quantized(mix: Mix, kind: str, i: int, n: int, *, n_gqa: int, n_experts: int,
               is_70b: bool) -> str:
    """The type llama_tensor_get_type gives a tensor of ``kind`` (counter i of n)."""
    if kind == "output":
        return mix.output
    t = mix.default
    for target, condition in mix.rules.get(kind, ()):
        if _holds(condition, i, n, n_gqa):
            t = target
            break
    if kind == "attn_v":
        if is_70b and t in ("q3_k", "q4_k"):
            t = "q5_k"
        if n_experts == 8:
            t = "q8_0"
    elif kind == "attn_k" and n_experts == 8:
        t = "q8_0"
    elif kind == "attn_output" and n_experts == 8:
        t = "q5_k" if mix.name in _EIGHT_EXPERT_OUTPUT_Q5K else mix.default
    return t


def mix_tensors(model: Model, mix: str) -> list[tuple[str, int, Fraction]]:
    """Every tensor kind of ``model`` in a llama.cpp file of type ``mix``, per layer: (name,
    parameters, bits per weight), in file order. The parameters add up to the decoder's.
    ``mix`` is a key of :data:`MIXES` or the same with :data:`FILE_TYPE_PREFIX` (``mostly_q4_0``).

    The rule is llama.cpp's ``llama_tensor_get_type`` as ``formats.toml`` documents it: the mix's
    default type, its rules for attn_v, ffn_down and attn_output, Q6_K for the output head (the
    tied embedding when there is none), Q8_0 for attn_v and attn_k in 8-expert models, Q5_K for
    attn_v in a 70B Llama, a fallback for rows that are not whole super-blocks; 1-D tensors stay
    F32 and routers F16, but F32 in the families of :data:`_F32_ROUTERS` (gpt-oss). A mix with an ``experts`` type (``mxfp4_moe``) gives it to every routed
    expert's matrices.

    The attention's tensors follow the block's record: an output gate (Qwen3-Next and
    Qwen3.5's per-channel gate widens attn_q; a per-head gate, Step and Laguna, is attn_gate),
    values of their own width (``d_v``), no attn_v where the values are the keys
    (``kv_tied``), neither attn_k nor attn_v where an earlier layer's are read
    (``kv_shared``).

    A Gated DeltaNet layer (Qwen3.5, Qwen3-Next) is llama.cpp's attn_qkv (q, k and v in one
    tensor), attn_gate (the output gate z), ssm_alpha and ssm_beta (one row a value head;
    Qwen3-Next's ssm_ba holds both), ssm_out, and the F32 ssm_conv1d, ssm_dt, ssm_a and
    ssm_norm. llama.cpp counts attn_qkv with attn_v (one tensor a layer, in layer order) and
    gives it the attn_v rule: in a Q4_K_M file of Qwen3.5-27B, Q6_K in 24 of the 48 linear
    layers. The other tensors take the default type. (Qwen3-Next files converted before
    llama.cpp split its fused ssm_in into attn_qkv and attn_gate type all of it at the default.)

    Per-layer embeddings (Gemma 4 E2B/E4B) are per_layer_token_embd, per_layer_model_proj,
    per_layer_proj_norm and each block's inp_gate, proj and post_norm. per_layer_token_embd
    takes the output head's rule (Q6_K) where the embeddings are tied, as token_embd does;
    per_layer_model_proj stays as converted (16 bits). Gemma 4's GGUF files also keep the key
    and value projections of the layers that read an earlier layer's (18,880,803 weights in
    E2B with their key norms, the rope frequencies and the layer scales); no step reads them,
    they are not listed, but their attn_v tensors count in llama.cpp's attn_v counter.

    Tensor names and shapes: ``LLM_TENSOR_NAMES`` in llama.cpp's src/llama-arch.cpp
    (https://github.com/ggml-org/llama.cpp/blob/00395eb285c7c6821ff372e3ca41dae9da33c2c7/src/llama-arch.cpp)
    and ``load_arch_tensors`` in src/models/qwen35.cpp, qwen3next.cpp and gemma4.cpp; the types
    from src/llama-quant.cpp at commit 007dbbf3fd17eefe9b47fee45f48f7ba5e62b714 (``formats.toml``).
    A model whose tensors do not add up to its decoder is refused (:class:`InputError`).
    """
    return [(name, n, b) for name, n, b, _ in _mix_tensors(model, mix)]


def _kept_per_file_type(work):
    """``work(model, key)`` worked out once per model and llama.cpp file type and kept in the
    model's :attr:`~llm_arithmetic.catalog.model.Model.memo` (the fields are frozen): an
    estimate asks for a file's tensors several times (the parts' bits, the copies' bits, the
    note on a bare block-format name). The wrapped function takes the type by any name
    (``Q4_K_M``, ``mostly_q4_k_m``); an unknown one is refused; a dict comes back as a copy."""
    @functools.wraps(work)
    def kept(model: Model, mix: str):
        key, _ = _mix_key(mix)  # a file type by its bare name or as mostly_<type>
        if key not in MIXES:
            raise InputError(f"unknown llama.cpp file type {mix[:40]!r}"
                             f"{did_you_mean(key, MIXES)} (known: {', '.join(MIXES)}, each "
                             "also as mostly_<type>)")
        memo = model.memo
        if (work.__name__, key) not in memo:
            memo[work.__name__, key] = work(model, key)
        value = memo[work.__name__, key]
        return dict(value) if isinstance(value, dict) else value
    return kept


@_kept_per_file_type
def _mix_tensors(model: Model, mix: str) -> tuple[tuple[str, int, Fraction, bool], ...]:
    """:func:`mix_tensors`' rows, each with a fourth field: True for the routed experts'
    matrices (what the plan's ``expert_matrices`` counts)."""
    from .model import GatedDeltaNet

    m = MIXES[mix]
    if model.family in _NOT_MODELLED:
        raise InputError(f"{model.name}: llama.cpp gives {model.family} models rules of their "
                         "own, not modelled here")
    if model.has_compressed_attention:
        # the tensors below are a plain attention's: d x H d_h queries and output, separate
        # keys and values; none of the compressors, indexer or hyper-connection mixers
        raise InputError(f"{model.name}: the tensors of a llama.cpp file of DeepSeek-V4's "
                         "compressed attention (low-rank queries, grouped output, compressors, "
                         "indexer) and hyper-connections are not modelled here")
    if any(run.attention is not None and run.attention.is_lowq for run in model.layers):
        # no llama.cpp tensor names or type rules for a low-rank query on grouped-query heads
        # (the down-projection, its norm, the up-projection) are known here
        raise InputError(f"{model.name}: the tensors of a llama.cpp file of a low-rank-query "
                         "attention (Step3's multi-matrix factorization) are not modelled here")
    d = model.d_model
    n_layers = model.n_layers
    attn_runs = [run for run in model.layers if run.attention is not None]
    # llama.cpp counts the tensors that take the attn_v rule (qs.n_attention_wv, counted in
    # init_quantize_state_counters: every name with attn_v.weight, attn_qkv.weight or
    # attn_kv_b.weight, src/llama-quant.cpp at 007dbbf3fd17eefe9b47fee45f48f7ba5e62b714) in
    # the file's order, layer by layer. A block whose values are its keys (Gemma 4's kv_tied)
    # has none; one that reads an earlier layer's keys and values (kv_shared) still carries
    # its own in Gemma 4's files, unread (see the docstring), so it counts
    def has_attn_v(a: Attention) -> bool:
        return a.is_mla or not a.kv_tied

    def gdn(run: Layers) -> bool:   # a Gated DeltaNet mixer: its attn_qkv takes the attn_v rule
        return isinstance(run.mixer, GatedDeltaNet)

    n_attn_v = sum(run.count for run in model.layers
                   if (run.attention is not None and has_attn_v(run.attention)) or gdn(run))
    n_experts = model.n_experts
    heads = {run.attention.n_heads // run.attention.n_kv_heads for run in attn_runs
             if not run.attention.is_mla}
    n_gqa = min(heads) if heads else 1
    is_70b = model.family == "llama" and n_layers == 80
    fused = model.family in _FUSED_QKV
    kw = dict(n_gqa=n_gqa, n_experts=n_experts, is_70b=is_70b)
    bits = {f: FORMATS[f].bits for f in FORMATS}

    def typed(kind: str, i: int, n: int, row: int, expert: bool = False) -> Fraction:
        t = m.experts if expert and m.experts else _quantized(m, kind, i, n, **kw)
        if row % 256:
            t = _FALLBACK.get(t, t)
            if row % 32:
                return _F16
        return bits[t]

    out: list[tuple[str, int, Fraction, bool]] = []
    out.append(("token_embd", model.n_vocab * d,
                typed("output", 0, 1, d) if model.tied else bits[m.default]))
    if model.n_positions:
        out.append(("position_embd", model.n_positions * d, _F16))
    ple = model.d_ple * n_layers
    if ple:
        # per-layer embeddings (Gemma 4 E2B/E4B), src/llama-quant.cpp at 007dbbf3: the name
        # per_layer_token_embd.weight is in the token-embedding category, which takes the
        # output head's type when the file has no output.weight (tied embeddings:
        # has_tied_embeddings) and the mix's default type otherwise; per_layer_model_proj is
        # never quantized (tensor_allows_quantization: "not too big so keep them as it is"),
        # it stays as converted, 16 bits; per_layer_proj_norm is 1-D, F32
        out.append(("per_layer_token_embd", model.n_vocab_ple * ple,
                    typed("output", 0, 1, ple) if model.tied else bits[m.default]))
        out.append(("per_layer_model_proj", d * ple, _F16))
        out.append(("per_layer_proj_norm", model.d_ple, _F32))
    i_v = 0
    layer = 0
    for run in model.layers:
        # a run's blocks are the same in every layer of it: their counts, each computed through
        # the plan's stack terms, once per run rather than once per layer
        a, mlp, mixer = run.attention, run.mlp, run.mixer
        a_params, a_mm = (a.params(d), a.matmul_params(d)) if a is not None else (0, 0)
        mix_params, mix_mm = (mixer.params(d), mixer.matmul_params(d)) if mixer is not None \
            else (0, 0)
        mlp_params = mlp.params(d) if mlp is not None else 0
        for _ in range(run.count):
            if a is not None:
                if a.is_mla:
                    kv_b = a.kv_lora_rank * a.n_heads * (a.d_nope + a.d_v)
                    out.append(("attn_kv_b", kv_b, typed("attn_v", i_v, n_attn_v,
                                                         a.kv_lora_rank)))
                    out.append(("attn_output", a.n_heads * a.d_v * d,
                                typed("attn_output", layer, n_layers, a.n_heads * a.d_v)))
                    rest = a_mm - kv_b - a.n_heads * a.d_v * d
                    out.append(("attn (other MLA projections)", rest,
                                typed("other", layer, n_layers, d)))
                    out.append(("attn norms", a_params - a_mm, _F32))
                else:
                    # values of their own width (MiMo-V2-Flash's d_v), none where they are
                    # the keys (kv_tied) and neither keys nor values where an earlier layer's
                    # are read (kv_shared); an output gate of ``gate`` per head: Qwen3-Next's
                    # and Qwen3.5's (gate = d_head) sits in attn_q, twice as wide, a gate
                    # per head (Step, Laguna) is a d x H tensor of its own
                    d_v = a.d_v or a.d_head
                    q = d * a.n_heads * a.d_head
                    gate = d * a.n_heads * a.gate
                    k = 0 if a.kv_shared else d * a.n_kv_heads * a.d_head
                    v = 0 if a.kv_shared or a.kv_tied else d * a.n_kv_heads * d_v
                    o = a.n_heads * d_v * d
                    # MiniMax-M3's indexer: its query and key projections, typed by the mix's
                    # default rule as the MLA branch types DeepSeek-V3.2's (an assumption:
                    # formats.toml's [mixes] name no indexer tensor)
                    idx = d * a.index_dim * (a.index_heads + 1) if a.index_block else 0
                    if q + gate + k + v + o + idx != a_mm:
                        raise InputError(f"{model.name}: the projections of its attention "
                                         f"({a.describe()}) are not modelled as llama.cpp "
                                         "tensors here")
                    if fused:
                        out.append(("attn_qkv", q + k + v, typed("attn_v", i_v, n_attn_v, d)))
                    else:
                        fused_gate = a.gate == a.d_head
                        out.append(("attn_q (with its output gate)" if gate and fused_gate
                                    else "attn_q", q + (gate if fused_gate else 0),
                                    typed("attn_q", layer, n_layers, d)))
                        if gate and not fused_gate:
                            out.append(("attn_gate", gate, typed("other", layer, n_layers, d)))
                        out.append(("attn_k", k, typed("attn_k", layer, n_layers, d)))
                        out.append(("attn_v", v, typed("attn_v", i_v, n_attn_v, d)))
                    out.append(("attn_output", o,
                                typed("attn_output", layer, n_layers, a.n_heads * d_v)))
                    if idx:
                        out.append(("attn indexer (index q and k projections)", idx,
                                    typed("other", layer, n_layers, d)))
                    out.append(("attn biases and norms", a_params - a_mm, _F32))
                if has_attn_v(a):
                    i_v += 1
            if isinstance(mixer, GatedDeltaNet):
                # llama.cpp's tensors of a Gated DeltaNet layer (src/models/qwen35.cpp,
                # qwen3next.cpp): attn_qkv d x (2 H_qk d_k + H_v d_v) takes the attn_v rule
                # on the shared counter; attn_gate d x H_v d_v, ssm_alpha and ssm_beta
                # d x H_v each (Qwen3-Next: one ssm_ba of d x 2 H_v) and ssm_out
                # H_v d_v x d take the default; ssm_conv1d is never quantized
                qkv = d * (2 * mixer.n_qk_heads * mixer.d_k + mixer.n_v_heads * mixer.d_v)
                z = d * mixer.n_v_heads * mixer.d_v
                ab = 2 * d * mixer.n_v_heads
                o = mixer.n_v_heads * mixer.d_v * d
                if qkv + z + ab + o != mix_mm:
                    raise InputError(f"{model.name}: the projections of its Gated DeltaNet "
                                     f"({mixer.describe()}) are not modelled as llama.cpp "
                                     "tensors here")
                out.append(("attn_qkv (linear attention)", qkv,
                            typed("attn_v", i_v, n_attn_v, d)))
                out.append(("attn_gate (linear attention)", z, typed("other", layer, n_layers, d)))
                out.append(("ssm_alpha, ssm_beta", ab, typed("other", layer, n_layers, d)))
                out.append(("ssm_out", o, typed("other", layer, n_layers,
                                                mixer.n_v_heads * mixer.d_v)))
                out.append(("ssm_conv1d, ssm_dt, ssm_a, ssm_norm", mix_params - mix_mm, _F32))
                i_v += 1
            elif mixer is not None:
                out.append(("ssm projections", mix_mm, typed("ssm", layer, n_layers, d)))
                out.append(("ssm conv, biases, norms", mix_params - mix_mm, _F32))
            if mlp is not None:
                # a latent mixture's routed experts work in the latent (width w), between a
                # d x w projection into it and a w x d one out of it that they share
                # (llama.cpp's ffn_latent_down and ffn_latent_up, ggml-org/llama.cpp PR 29018),
                # typed here by the mix's default type: an assumption, as the rules this module
                # models (formats.toml's [mixes]) name no latent tensor
                w = mlp.latent or d
                up = (mlp.n_mats - 1) * w * mlp.d_ff
                down = mlp.d_ff * w
                e = mlp.n_experts if mlp.is_moe else 1
                if mlp.is_moe or not mlp.n_shared:
                    # a mixture's are the routed experts' matrices (flagged for mix_parts)
                    out.append(("ffn_gate/up", e * up,
                                typed("ffn_up", layer, n_layers, w, mlp.is_moe), mlp.is_moe))
                    out.append(("ffn_down", e * down,
                                typed("ffn_down", layer, n_layers, mlp.d_ff, mlp.is_moe),
                                mlp.is_moe))
                latent_proj = 2 * d * mlp.latent
                if latent_proj:
                    out.append(("ffn_latent_down/up", latent_proj,
                                typed("other", layer, n_layers, d)))
                if mlp.n_shared:
                    s_up = mlp.n_shared * (mlp.n_mats - 1) * d * mlp.d_shared
                    s_down = mlp.n_shared * mlp.d_shared * d
                    out.append(("ffn_gate/up_shexp", s_up, typed("ffn_up", layer, n_layers, d)))
                    out.append(("ffn_down_shexp", s_down,
                                typed("ffn_down", layer, n_layers, mlp.d_shared)))
                    e_total = (e * (up + down) if mlp.is_moe or not mlp.n_shared else 0)
                    counted = e_total + s_up + s_down
                else:
                    counted = e * (up + down)
                counted += latent_proj
                if mlp.is_moe:
                    out.append(("ffn_gate_inp (router)", d * mlp.n_experts,
                                _F32 if model.family in _F32_ROUTERS else _F16))
                    counted += d * mlp.n_experts
                out.append(("ffn biases, router bias, gates", mlp_params - counted, _F32))
            out.append(("norms", run.norms * d, _F32))
            if model.d_ple:
                out.append(("inp_gate, proj (per-layer embedding)", 2 * d * model.d_ple,
                            typed("other", layer, n_layers, d)))
                out.append(("post_norm (per-layer embedding)", d, _F32))
            layer += 1
    if not model.tied:
        out.append(("output", model.n_vocab * d, typed("output", 0, 1, d)))
    out.append(("output_norm and head bias", model.embedding_params - model.n_vocab * d
                * (1 if model.tied else 2) - model.n_positions * d, _F32))
    out = [(r[0], r[1], r[2], len(r) > 3 and r[3]) for r in out if r[1]]
    total, decoder = sum(r[1] for r in out), model.language_model_params
    if total != decoder or any(r[1] < 0 for r in out):
        # a family whose tensors this function does not know: refuse rather than divide bits
        # by the wrong count
        raise InputError(f"{model.name}: its llama.cpp tensors are not modelled here (they "
                         f"add up to {total:,} parameters, the decoder has {decoder:,})")
    return tuple(out)


def mix_bits(model: Model, mix: str) -> Fraction:
    """Effective bits per weight of ``model`` in a llama.cpp file of type ``mix`` (``"q4_k_m"``):
    the bits of every tensor (:func:`mix_tensors`) over the decoder's parameters [bit].

    >>> from llm_arithmetic import get_model
    >>> round(float(mix_bits(get_model("llama-2-7b"), "q4_k_m")), 4)   # formats.toml's example
    4.8442
    """
    tensors = mix_tensors(model, mix)
    n = sum(p for _, p, _ in tensors)
    return sum(p * b for _, p, b in tensors) / n


#: The rows of :func:`_mix_tensors` whose types price each class of what a tensor-parallel group
#: copies (the plan's ``native_bits_copy_*``): the key/value projections (fused into attn_qkv
#: where the family fuses them) and the matrices held whole (MLA's down-projections, an
#: indexer's projections, a latent mixture's projections, all typed by the "other" rule).
_COPY_ROWS = {"heads": ("attn_k", "attn_v", "attn_qkv"),
              "matrices": ("attn (other MLA projections)",
                           "attn indexer (index q and k projections)", "ffn_latent_down/up")}


@_kept_per_file_type
def mix_copy_bits(model: Model, mix: str) -> dict[str, Fraction | None]:
    """Bits per parameter of each class of what a tensor-parallel group copies, in a llama.cpp
    file of type ``mix``, from its tensors' types (:func:`mix_tensors`) [bit]: ``"heads"``, the
    key/value projections (the mean of the attn_k and attn_v tensors' bits, or attn_qkv's,
    weighted by their parameters); ``"matrices"``, the matrices held whole (the rows of MLA's
    other projections, an indexer's, a latent mixture's: llama.cpp types them by one rule);
    ``"router"``, ffn_gate_inp (F16, F32 in some families) with the routers' biases and shared
    experts' gates (1-D, F32); ``"plain"``, norms and biases, F32 in every GGUF file (llama.cpp
    quantizes no 1-D tensor). A class the model lacks, and the heads of a model with Mamba-2
    mixers (whose lone group's copies are in_proj columns and convolution channels of other
    types), is None: the plan then prices it at the file's mean non-expert bits.

    Llama 3 8B in Q4_K_M: attn_v is Q6_K (6.5625 bits) in 16 of its 32 layers (llama.cpp's
    use_more_bits: the first and last 4 and every third between) and Q4_K (4.5) in the others,
    attn_k Q4_K in all, each of the same size: (32 x 4.5 + 16 x 6.5625 + 16 x 4.5) / 64 =
    5.015625; norms F32:

    >>> from llm_arithmetic import get_model
    >>> b = mix_copy_bits(get_model("llama-3-8b"), "q4_k_m")
    >>> b["heads"], b["plain"], b["matrices"], b["router"]
    (Fraction(321, 64), Fraction(32, 1), None, None)
    """
    from .model import Mamba2

    rows = _mix_tensors(model, mix)
    out: dict[str, Fraction | None] = {"plain": _F32}
    for key, names in _COPY_ROWS.items():
        n = sum(r[1] for r in rows if r[0] in names)
        out[key] = sum((r[1] * r[2] for r in rows if r[0] in names), Fraction(0)) / n if n \
            else None
    if any(isinstance(run.mixer, Mamba2) for run in model.layers):
        out["heads"] = None
    routers = [(r[1], r[2]) for r in rows if r[0] == "ffn_gate_inp (router)"]
    biases = sum(run.count * (run.mlp.n_experts * run.mlp.router_bias
                              + model.d_model * run.mlp.shared_gate)
                 for run in model.layers if run.mlp is not None and run.mlp.is_moe)
    n = sum(k for k, _ in routers) + biases
    out["router"] = ((sum(k * b for k, b in routers) + biases * _F32) / n) if routers else None
    return out


@_kept_per_file_type
def mix_parts(model: Model, mix: str) -> dict[str, Fraction]:
    """Bits per weight of the three parts an estimate counts apart (the plan's
    ``native_bits_default``, ``native_bits_experts`` and ``native_bits_unread``) in a llama.cpp
    file of type ``mix``, each from the types of its tensors (:func:`mix_tensors`) [bit]:

    - ``"unread"``: the embedding rows a decode step does not read, at their tables' bits:
      all but one row of an untied token_embd (a tied one is read whole, as the output head,
      and is typed by the head's rule), of a learned position_embd and of the per-layer
      per_layer_token_embd (Gemma 3n, Gemma 4 E2B/E4B);
    - ``"experts"``: the routed experts' matrices;
    - ``"default"``: every other weight, the rows of the tables a step reads included.

    The plan counts the weights at these bits, so its weight bytes are the tensors' bytes (the
    file's, header aside) and a decode step's are the bytes of the tensors it reads, where one
    mean for every weight (:func:`mix_bits`) would count the unread tables at the mean too.
    The routed experts' biases (1-D, F32; gpt-oss), which the plan counts with the other weights
    but of which a step reads only the active experts', are left out of the default's mean and
    their bytes given to the experts' matrices, less what the default counts for them: both
    the file's bytes and a step's then come out exact. Parts with no weights take the default.

    >>> from llm_arithmetic import get_model
    >>> m = get_model("gemma-4-e4b")       # per_layer_token_embd Q6_K, unread
    >>> p = mix_parts(m, "q4_k_m")
    >>> p["unread"], round(float(p["default"]), 3), round(float(mix_bits(m, "q4_k_m")), 3)
    (Fraction(105, 16), 5.12, 5.665)
    """
    rows = _mix_tensors(model, mix)
    d = model.d_model
    # the width of the row a step reads of each table whose other rows it does not read
    # (plan: unread_embedding_params); 0 for a tied token_embd, read whole as the head
    row = {"token_embd": 0 if model.tied else d, "position_embd": d,
           "per_layer_token_embd": model.d_ple * model.n_layers}
    total = total_bits = unread = unread_bits = experts = expert_bits = 0
    for name, n, b, expert in rows:
        total, total_bits = total + n, total_bits + n * b
        if expert:
            experts, expert_bits = experts + n, expert_bits + n * b
        elif row.get(name):
            unread, unread_bits = unread + n - row[name], unread_bits + (n - row[name]) * b
    if (unread, experts) != (model.evaluate("unread_embedding_params"),
                             model.evaluate("expert_matrices")):
        raise InputError(f"{model.name}: the unread rows and routed experts of its llama.cpp "
                         "tensors are not the plan's")
    biases = model.evaluate("routed_params") - experts   # the routed experts' 1-D biases, F32
    default = (Fraction(total_bits - unread_bits - expert_bits - biases * _F32)
               / (total - unread - experts - biases))
    return {"default": default,
            "experts": (expert_bits + biases * (_F32 - default)) / experts if experts
            else default,
            "unread": Fraction(unread_bits, unread) if unread else default}
