"""Weights as shipped: the bytes a checkpoint's ``quantization_config`` implies.

A Hugging Face ``config.json`` of a quantized checkpoint says how its weights are stored. This
module reads that record (:func:`read_scheme`) into a :class:`Scheme` (element bits, the block
of rows x columns that shares one scale, the scale's and zero point's bits, what a matrix
stores once or per input column, which modules stay at 16 bits) and counts the checkpoint's
bytes matrix by matrix (:func:`shipped_bytes`), each matrix by the registered formula
:data:`~llm_arithmetic.formulas.memory.quantized_matrix_bytes`. Everything that is not a
quantized matrix (embeddings, the output head, norms, biases, routers, modules the config
keeps) is stored at 16 bits, but for DeepSeek's router correction bias, which its fp8
checkpoints keep in fp32.

The layouts, each from the quantizer's code or specification:

``fp8`` (DeepSeek-V3/R1, Kimi K2, MiniMax, Qwen3-FP8: transformers' ``FineGrainedFP8``)
    float8 e4m3 elements, one fp32 ``weight_scale_inv`` per ``weight_block_size`` block
    (ceil(out/128) x ceil(in/128) per matrix): every linear layer of the blocks but the
    router, ``lm_head`` and ``modules_to_not_convert`` (huggingface/transformers
    ``src/transformers/quantizers/quantizer_finegrained_fp8.py`` @
    c823c56bc7fea301efd0d206a405bc6f2e83de23, which keeps ``lm_head`` and the config's list). DeepSeek-V3 ``README_WEIGHTS.md`` (deepseek-ai/
    DeepSeek-V3 @ 9b4e9788e4a3a731f7567338ed15d3ec549ce03b); the shapes are those of a
    checkpoint's tensor list (``kv_a_proj_with_mqa.weight_scale_inv`` [5, 56], index file
    id 52579593692). Without ``weight_block_size``: one fp32 scale per matrix.
``mxfp4`` (gpt-oss: transformers' ``Mxfp4HfQuantizer``)
    the experts' matrices only: ``*_blocks`` (two 4-bit E2M1 values a byte) and ``*_scales``
    (one 8-bit E8M0 exponent per 32 values along the input); OCP Microscaling Formats v1.0;
    ``src/transformers/quantizers/quantizer_mxfp4.py`` @
    787b952b632ce5595a924070c0ae118ce101f1cb (only ``GptOssExperts`` become blocks and
    scales; their biases stay).
``compressed-tensors`` (llm-compressor's checkpoints: NVFP4, int4 groups, fp8 blocks)
    one ``config_groups`` entry targeting ``Linear``: ``weight_packed`` or ``weight``, a
    ``weight_scale`` per group (16-bit, the checkpoint's dtype, unless ``scale_dtype`` says
    otherwise; fp8 for NVFP4), a packed int32 ``weight_zero_point`` when asymmetric, the packed
    format's int32 ``weight_shape`` (2 values; ``pack_quantized.py`` of compressed-tensors,
    index file id 1716642038), NVFP4's fp32 ``weight_global_scale`` and, for static input
    scales, ``input_global_scale``; an int32 ``weight_g_idx`` per input column for group
    activation ordering (``actorder`` ``group`` or ``dynamic``; ``weight`` and ``static``
    store none); ``ignore`` keeps modules (``re:`` a regular expression).
``modelopt`` (NVIDIA TensorRT Model Optimizer: NVFP4 and FP8)
    NVFP4: ``weight`` (two E2M1 values a byte), ``weight_scale`` (fp8 e4m3 per 16 inputs),
    ``weight_scale_2`` and ``input_scale`` (fp32, one each per matrix); NVIDIA's NVFP4
    description (https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-
    accurate-low-precision-inference/) and a loader's check of those shapes (index file id
    68294392818). FP8: e4m3 weights, fp32 ``weight_scale`` and ``input_scale`` per matrix.
    ``MIXED_PRECISION`` counts each listed module in its own algorithm's layout
    (:func:`_modelopt_mixed`); the flat record ModelOpt 0.29 to 0.31 wrote into config.json
    without ``quant_method`` is read as ModelOpt's (:func:`_flat_modelopt`), and an fp8 record
    whose routed experts ModelOpt converted to NVFP4 (``moe_quant_algo``, DeepSeek-V4) as fp8
    blocks with NVFP4 experts (:func:`_modelopt_experts`).
``awq`` (AutoAWQ GEMM: ``qweight``, ``qzeros``, ``scales``)
    4-bit values packed into int32 (in, out/8), one fp16 scale (in/g, out) and one packed
    zero point (in/g, out/8) per ``group_size`` inputs of each output (casper-hansen/AutoAWQ
    ``awq/modules/linear/gemm.py`` @ d9dc8e564fed1527be2a9d8d5c74daf3823c3203). GEMV files pad
    their scales and zero points to a multiple of 8 groups (``gemv.py`` @
    df0a79536d035745edb575f4026b59003f88e1a0): refused, not modelled.
``gptq`` (AutoGPTQ / GPTQModel: ``qweight``, ``qzeros``, ``scales``, ``g_idx``)
    ``qweight`` (in x bits/32, out) int32, ``qzeros`` (ceil(in/g), out x bits/32) int32,
    ``scales`` (ceil(in/g), out) fp16 and an int32 ``g_idx`` per input channel, all registered
    whatever ``desc_act`` and ``sym`` say (AutoGPTQ's ``QuantLinear``, index file id
    223709213) (Qwen2.5-7B-Instruct-GPTQ-Int4's shapes:
    ``qweight`` I32 [448, 3584], ``qzeros`` I32 [28, 448], ``scales`` F16 [28, 3584],
    ``g_idx`` I32 [3584]; index file id 56601793891).

A ``quant_method`` not listed, or a key of the record this module does not know and that
could change a count, is refused in one line naming it.

>>> s = read_scheme({"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
...                  "weight_block_size": [128, 128]})
>>> s.label
'fp8 block-scaled 128x128'
>>> read_scheme({"quant_method": "bitnet"})
Traceback (most recent call last):
...
llm_arithmetic.core.errors.ConfigError: config: field 'quantization_config.quant_method' = 'bitnet' is not a layout this library counts (known: awq, compressed-tensors, fp8, gptq, modelopt, mxfp4)
"""
from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import Any, Iterator, Mapping

from ..core.errors import ConfigError
from ..core.records import record
from .model import GatedDeltaNet, KimiDeltaAttention, Mamba2

__all__ = ["Scheme", "Tensor", "read_scheme", "find_scheme", "tensors", "shipped_bytes",
           "native_bits", "mtp_tensors", "mtp_bits", "head_bits", "mtp_format_kept", "mtp_as_layers", "MTP_NAMES", "deepseek_v4_scheme", "minimax_m3_scheme", "hf_quant_record", "read_hf_quant",
           "METHODS"]

#: Bits of the plain (unquantized) tensors of a checkpoint: bf16 or fp16.
PLAIN_BITS = 16


@record
class Scheme:
    """How a quantized checkpoint stores its matrices.

    Attributes
    ----------
    method, label : str
        The config's ``quant_method``; what ``describe`` prints ("fp8 block-scaled 128x128").
    bits_int, block_rows, block_cols, bits_scale, bits_offset, bits_tensor, bits_channel
        The arguments of :data:`~llm_arithmetic.formulas.memory.quantized_matrix_bytes`.
    experts_only : bool
        Only the routed experts' matrices are quantized (MXFP4 in transformers).
    head : bool
        The output head is quantized too (compressed-tensors without ``lm_head`` in ignore).
    keep : tuple of str
        Module-name patterns kept at 16 bits: ``re:...`` a regular expression (matched from
        the start), otherwise whole dot-separated parts of a name (``gate`` keeps
        ``mlp.gate``, not ``gate_proj``), ``*`` standing for one part.
    router_bias_bits : int
        Bits of a router's bias vector (DeepSeek's ``e_score_correction_bias``: fp32 in its fp8
        checkpoints).
    router_bits : int
        Bits of a router's matrix (``mlp.gate``), which no scheme here quantizes: 16, or 32
        where the checkpoint stores it in fp32 (MiniMax-M3, :func:`minimax_m3_scheme`).
    compute : str or None
        The format (a key of the formats' catalog) the matrix products run in, read from how
        the scheme treats the activations: ``fp8`` where they are quantized to fp8 too (W8A8:
        ``activation_scheme`` of an fp8 file, ``input_activations`` of compressed-tensors,
        ModelOpt's FP8), ``nvfp4`` for NVFP4 activations (W4A4), ``int8`` for int8 ones;
        None where only the weights are quantized (W4A16, W8A16: the kernels widen them to 16
        bits). vLLM picks its kernels by the same test: a compressed-tensors group without
        ``input_activations`` runs a weight-only scheme (``CompressedTensorsWNA16``,
        ``CompressedTensorsW4A16Fp4``), one with them ``CompressedTensorsW8A8Fp8``,
        ``CompressedTensorsW4A4Fp4`` or ``CompressedTensorsW8A8Int8``
        (vllm-project/vllm ``vllm/model_executor/layers/quantization/compressed_tensors/
        compressed_tensors.py`` @ be696453ee1bf3b7a2f652cc457b340d5a20c88c,
        ``_get_scheme_from_parts``).
    expert_scheme : Scheme or None
        The routed experts' own layout, where it differs from the other matrices' (DeepSeek-V4
        with ``expert_dtype`` ``fp4``: MXFP4 experts beside fp8 blocks; :func:`deepseek_v4_scheme`).
    fp32_mixers : bool
        DeepSeek-V4's plain tensors kept in fp32: attention sinks, the compressors' position
        biases, the hyper-connection mixers and head (:func:`deepseek_v4_scheme`).
    only : frozenset of str or None
        The modules a mixed-precision checkpoint quantizes (ModelOpt's ``quantized_layers``:
        whole module names, a matrix or the module holding it, as a text-only or a wrapped
        checkpoint names it); every other matrix stays at 16 bits. None where every matrix not
        kept is quantized.
    kv_bits : int or None
        The KV cache's bits the checkpoint asks for (ModelOpt's ``kv_cache_quant_algo``
        ``FP8``, or its ``kv_cache_scheme`` of 8-bit floats: 8), the cache's default where no
        other is asked; None where it names none (16 bits).
    layouts : tuple of (str, Scheme)
        Each listed module's own layout, where a mixed-precision checkpoint stores the matrices
        of one part (the routed experts, or the rest) in more than one (nvidia/Qwen3.6-27B-NVFP4:
        attention and Gated DeltaNet projections in fp8, MLPs in NVFP4); ``()`` where each part
        has one, the scheme's own and :attr:`expert_scheme`.
    """

    method: str
    label: str
    bits_int: int
    block_rows: int
    block_cols: int
    bits_scale: int
    bits_offset: int = 0
    bits_tensor: int = 0
    bits_channel: int = 0
    experts_only: bool = False
    head: bool = False
    keep: tuple[str, ...] = ()
    router_bias_bits: int = PLAIN_BITS
    router_bits: int = PLAIN_BITS
    compute: str | None = None
    expert_scheme: Scheme | None = None
    fp32_mixers: bool = False
    only: frozenset[str] | None = None
    kv_bits: int | None = None
    layouts: tuple[tuple[str, Scheme], ...] = ()

    def kept(self, name: str) -> bool:
        """Whether the module ``name`` stays unquantized by the config's own list. ``name`` is
        a decoder module as a text-only checkpoint names it (``model.layers.0...``); a
        multimodal checkpoint names the same module under its wrapper
        (``model.language_model.layers.0...``, ``language_model.model.layers.0...``), and its
        list is written with those names, so both are tried.

        >>> s = read_scheme({"quant_method": "modelopt", "quant_algo": "NVFP4",
        ...                  "ignore": ["model.language_model.layers.0.self_attn*"]})
        >>> s.kept("model.layers.0.self_attn.q_proj"), s.kept("model.layers.0.mlp.up_proj")
        (True, False)
        """
        return _listed(self.keep, name)

    def quantizes(self, name: str) -> bool:
        """Whether the module ``name`` is one the scheme converts by name: not kept
        (:meth:`kept`) and, in a mixed-precision checkpoint, listed (:attr:`only`)."""
        if self.kept(name):
            return False
        return self.only is None or any(n in self.only for n in _prefixes(name))

    def layout(self, name: str, expert: bool = False) -> Scheme:
        """The layout a quantized matrix ``name`` is stored in: its module's own where the
        checkpoint lists one (:attr:`layouts`, the module or one holding it, under any
        wrapper's name), else the experts' (:attr:`expert_scheme`) for a routed expert's,
        else the scheme itself.

        >>> s = read_scheme({"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
        ...     "quantized_layers": {"model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"},
        ...                          "model.layers.0.mlp.up_proj": {"quant_algo": "W4A16_NVFP4"}}})
        >>> s.layout("model.layers.0.self_attn.q_proj").label
        'fp8 per-tensor'
        >>> s.layout("model.layers.0.mlp.up_proj").label
        'NVFP4 (16 values per fp8 scale, fp32 global scales, weights only)'
        """
        if self.layouts:
            # the table by module name, built once per scheme and kept on it (not a field: a
            # cache keyed by the layouts would hash every scheme of the list at each call)
            table = self.__dict__.get("_layout_table")
            if table is None:
                table = self.__dict__["_layout_table"] = dict(self.layouts)
            for n in _prefixes(name):
                if n in table and (expert or not table[n].experts_only):
                    return table[n]  # a layout of experts alone holds no other matrix
        return self.expert_scheme if expert and self.expert_scheme else self

    def keeps_module(self, model: Any) -> bool:
        """Whether this scheme, the checkpoint's of ``model``, keeps every matrix of the
        model's multi-token-prediction module unquantized (:func:`mtp_format_kept`)."""
        return bool(mtp_format_kept(model, self))

    def matrix_bytes(self, rows: int, cols: int) -> Any:
        """Bytes of one quantized rows x cols matrix [B].

        A 7168 x 7168 matrix in fp8 with 128 x 128 blocks: 7168^2 one-byte elements and
        56 x 56 four-byte scales, 51,380,224 + 12,544 bytes:

        >>> read_scheme({"quant_method": "fp8", "weight_block_size": [128, 128]}
        ...             ).matrix_bytes(7168, 7168)
        51392768
        """
        from .. import numeric as N

        return N.quantized_matrix_bytes(
            mat_m=rows, mat_k=cols, bits_int=self.bits_int, block_rows=self.block_rows,
            block_cols=self.block_cols, bits_scale=self.bits_scale,
            bits_offset=self.bits_offset, bits_tensor=self.bits_tensor,
            bits_channel=self.bits_channel)




#: How a multimodal checkpoint prefixes its language model's modules, where a text-only one
#: writes ``model.``: transformers' current wrappers (Gemma 3 and 4, Qwen-VL:
#: ``model.language_model.layers``) and the older layout (Llava, Kimi K2.5:
#: ``language_model.model.layers``).
_WRAPPED_PREFIXES = ("model.language_model.", "language_model.model.")


def _wrapped_names(name: str) -> list[str]:
    """``name`` as a text-only checkpoint names a decoder module, and as each multimodal
    wrapper names it (:data:`_WRAPPED_PREFIXES`)."""
    return [name] + [w + name[len("model."):] for w in _WRAPPED_PREFIXES
                     if name.startswith("model.")]


def _prefixes(name: str) -> Iterator[str]:
    """``name`` and the modules holding it (``a.b.c``, ``a.b``, ``a``), as a text-only
    checkpoint and as a multimodal wrapper names them (:data:`_WRAPPED_PREFIXES`)."""
    for n in _wrapped_names(name):
        parts = n.split(".")
        for i in range(len(parts), 0, -1):
            yield ".".join(parts[:i])


def _listed(patterns: tuple[str, ...], name: str) -> bool:
    """Whether one of ``patterns`` (a keep list's, :attr:`Scheme.keep`) names the decoder
    module ``name``, as a text-only checkpoint or under a multimodal wrapper names it."""
    return any(_matches(pattern, n) for pattern in patterns for n in _wrapped_names(name))


def _matches(pattern: str, name: str) -> bool:
    """Whether a module-name pattern of a config's keep list (see :attr:`Scheme.keep`) names
    the module ``name``.

    >>> _matches("gate", "model.layers.0.mlp.gate"), _matches("gate", "mlp.gate_proj")
    (True, False)
    >>> _matches("re:.*lm_head", "lm_head"), _matches("*.mlp", "layers.mlp")
    (True, True)
    """
    return _pattern(pattern)(name) is not None


@lru_cache(maxsize=4096)
def _pattern(pattern: str) -> Any:
    """The compiled test of a keep-list pattern (:func:`_matches`), built once per pattern."""
    if pattern.startswith("re:"):
        return re.compile(pattern[3:]).match
    return re.compile(r"(^|\.)" + re.escape(pattern).replace(r"\*", r"[^.]*")
                      + r"(\.|$)").search


def _origin_error(origin: str, key: str, value: Any, why: str) -> ConfigError:
    return ConfigError(f"{origin}: field 'quantization_config.{key}' = {value!r:.60} {why}")


def _lookup(table: Mapping[Any, Any], key: Any) -> Any:
    """``table.get(key)``, None for a key that cannot be one (a JSON list or object where a
    name or a number belongs), so that the caller's one-line error names the field."""
    try:
        return table.get(key)
    except TypeError:
        return None


def _int(q: Mapping[str, Any], key: str, origin: str, default: Any = ...) -> int:
    v = q.get(key, default)
    if v is ...:
        raise ConfigError(f"{origin}: missing field 'quantization_config.{key}'")
    if isinstance(v, bool) or not isinstance(v, int) or v < 1 or v > 1 << 20:
        raise _origin_error(origin, key, v, "must be a positive integer")
    return v


def _pair(block: Any, origin: str, key: str) -> list[int]:
    """A block size of two positive integers (rows, columns), or a one-line error naming
    ``key``."""
    if (not isinstance(block, list) or len(block) != 2
            or not all(isinstance(b, int) and not isinstance(b, bool) and b > 0 for b in block)):
        raise _origin_error(origin, key, block, "must be two positive integers")
    return block


def _object(value: Any, origin: str, key: str) -> Mapping[str, Any]:
    """An optional sub-record of the config (``{}`` when absent, null or empty), or a one-line
    error naming ``key`` when it is not an object."""
    if not value:
        return {}
    if not isinstance(value, dict):
        raise _origin_error(origin, key, value, "must be an object")
    return value


def _names(q: Mapping[str, Any], key: str, origin: str) -> tuple[str, ...]:
    v = q.get(key) or []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _origin_error(origin, key, v, "must be a list of module names")
    return tuple(v)


def _check_keys(q: Mapping[str, Any], known: set[str], origin: str, where: str = "") -> None:
    for key in q:
        if key not in known:
            raise ConfigError(f"{origin}: field 'quantization_config.{where}{key}' is not "
                              "understood, and it may change the checkpoint's bytes")


#: The keys ModelOpt adds to an fp8 record whose routed experts it converted to NVFP4
#: (:func:`_modelopt_experts`).
_MODELOPT_EXPERT_KEYS = {"moe_quant_algo", "quant_algo", "quantized_layers", "group_size",
                         "ignore", "config_groups", "kv_cache_quant_algo", "producer"}


def _modelopt_experts(q: Mapping[str, Any], origin: str) -> Scheme:
    """The routed experts' layout of an fp8 checkpoint whose experts ModelOpt converted to
    NVFP4 and left every other matrix as it was (nvidia/DeepSeek-V4-Flash-NVFP4 and
    -Pro-NVFP4: ``moe_quant_algo`` ``NVFP4`` beside DeepSeek-V4's fp8 record). vLLM's
    DeepSeek-V4 quantization config sends the experts to ``ModelOptNvFp4FusedMoE`` when
    ``expert_dtype`` is ``fp4`` and ``moe_quant_algo`` ``NVFP4`` and keeps the fp8 path for
    the rest (index file id 70323023792; SGLang's support of the same files: attention and
    shared experts fp8, the experts NVFP4, index file id 56280244053). Each expert matrix
    then holds ``weight`` (two E2M1 values a byte), ``weight_scale`` (fp8 e4m3 per 16 inputs)
    and ``weight_scale_2`` and ``input_scale`` (fp32 scalars), as a conversion that follows the
    same convention lists them (index file id 62482337418). The ModelOpt keys must say exactly
    that: ``quant_algo`` ``MIXED_PRECISION``, ``quantized_layers`` naming routed experts
    only, each NVFP4 in groups of ``group_size``, ``config_groups`` restating NVFP4; ``ignore``
    names what ModelOpt left in the fp8 layout (attention, shared experts, head, MTP), not
    16-bit modules. Anything else is refused naming its field."""
    if q.get("moe_quant_algo") != "NVFP4":
        raise _origin_error(origin, "moe_quant_algo", q.get("moe_quant_algo"), "is not NVFP4")
    producer = q.get("producer")
    if not isinstance(producer, dict) or producer.get("name") != "modelopt":
        raise _origin_error(origin, "producer", producer, "is not ModelOpt's")
    if q.get("quant_algo") != "MIXED_PRECISION":
        raise _origin_error(origin, "quant_algo", q.get("quant_algo"), "beside moe_quant_algo "
                            "is not MIXED_PRECISION")
    group = _int(q, "group_size", origin, 16)
    layers = q.get("quantized_layers")
    if not isinstance(layers, dict) or not layers:
        raise _origin_error(origin, "quantized_layers", layers, "must be an object naming "
                            "each quantized module")
    for name, spec in layers.items():
        if not _is_expert(name) or not isinstance(spec, dict) \
                or spec.get("quant_algo") != "NVFP4" or spec.get("group_size", 16) != group \
                or set(spec) - {"quant_algo", "group_size"}:
            raise _origin_error(origin, f"quantized_layers.{name}", spec, "is not a block of "
                                f"routed experts in NVFP4 groups of {group}: only the experts' "
                                "conversion is modelled")
    for gname, g in _object(q.get("config_groups"), origin, "config_groups").items():
        w = g.get("weights") if isinstance(g, dict) else None
        said = None if not isinstance(w, dict) else (w.get("type"), w.get("num_bits"),
                                                    w.get("group_size"))
        if said != ("float", 4, group):
            raise _origin_error(origin, f"config_groups.{gname}", g, "does not restate the "
                                "experts' NVFP4")
    _names(q, "ignore", origin)
    if _modelopt_kv(q, origin) is not None:
        raise _origin_error(origin, "kv_cache_quant_algo", q.get("kv_cache_quant_algo"),
                            "beside an fp8 record is not modelled")
    return replace(_modelopt_layout("NVFP4", group, origin, "moe_quant_algo"),
                   experts_only=True, only=frozenset(layers))


def _fp8(q: Mapping[str, Any], origin: str) -> Scheme:
    experts = _modelopt_experts(q, origin) if "moe_quant_algo" in q else None
    _check_keys(q, {"quant_method", "activation_scheme", "fmt", "scale_fmt",
                    "weight_block_size", "modules_to_not_convert", "ignored_layers",
                    "dequant"} | (_MODELOPT_EXPERT_KEYS if experts else set()), origin)
    fmt = q.get("fmt", "e4m3")
    if fmt not in ("e4m3", "float8_e4m3fn"):
        raise _origin_error(origin, "fmt", fmt, "is not an fp8 format this library counts "
                            "(e4m3)")
    if q.get("activation_scheme", "dynamic") != "dynamic":
        raise _origin_error(origin, "activation_scheme", q.get("activation_scheme"),
                            "stores input scales per matrix, which are not counted")
    keep = _names(q, "modules_to_not_convert", origin) + _names(q, "ignored_layers", origin)
    block = q.get("weight_block_size")
    if block is None:  # one fp32 scale per matrix
        return Scheme("fp8", "fp8 per-tensor", 8, 1, 1, 0, bits_tensor=32, keep=keep,
                      router_bias_bits=32, compute="fp8")
    _pair(block, origin, "weight_block_size")
    # scale_fmt 'ue8m0' (DeepSeek-V3.1 and later): the scales are powers of two, still fp32
    label = f"fp8 block-scaled {block[0]}x{block[1]}"
    return Scheme("fp8", label + (", NVFP4 experts" if experts else ""), 8, block[0], block[1],
                  32, keep=keep, router_bias_bits=32, compute="fp8", expert_scheme=experts)


def _mxfp4(q: Mapping[str, Any], origin: str) -> Scheme:
    _check_keys(q, {"quant_method", "modules_to_not_convert", "dequantize"}, origin)
    return Scheme("mxfp4", "MXFP4 experts (32 values per 8-bit scale)", 4, 1, 32, 8,
                  experts_only=True, keep=_names(q, "modules_to_not_convert", origin))


def _groups(q: Mapping[str, Any], origin: str, method: str) -> Scheme:
    """AWQ and GPTQ: int4 (or int8, int2, int3) groups along the input, an fp16 scale and a
    packed zero point per group of each output row; GPTQ adds g_idx."""
    known = {"quant_method", "bits", "group_size", "modules_to_not_convert", "version",
             "backend", "zero_point", "w_bit", "q_group_size", "do_fuse", "fuse_max_seq_len",
             "desc_act", "sym", "true_sequential", "damp_percent", "static_groups",
             "checkpoint_format", "model_name_or_path", "model_file_base_name", "pack_dtype",
             "meta", "lm_head", "damp_auto_increment", "exllama_config", "use_exllama",
             "use_cuda_fp16", "cache_block_outputs", "tokenizer", "dataset", "max_input_length",
             "batch_size", "module_name_preceding_first_block", "block_name_to_quantize",
             "modules_in_block_to_quantize"}
    _check_keys(q, known, origin)
    if q.get("modules_in_block_to_quantize"):
        raise _origin_error(origin, "modules_in_block_to_quantize",
                            q["modules_in_block_to_quantize"],
                            "quantizes only some modules of each block, which is not modelled")
    if q.get("lm_head"):
        raise _origin_error(origin, "lm_head", q["lm_head"], "quantizes the output head, "
                            "which is not modelled")
    bits = _int(q, "bits", origin, None) or _int(q, "w_bit", origin)
    if bits not in (2, 3, 4, 8):
        raise _origin_error(origin, "bits", bits, "is not 2, 3, 4 or 8")
    group = q.get("group_size", q.get("q_group_size", 128))
    key = "group_size" if "group_size" in q else "q_group_size"
    if group == -1:  # one group per output row: the whole input
        group = 1 << 20
    elif isinstance(group, bool) or not isinstance(group, int) or group < 1:
        raise _origin_error(origin, key, group, "must be a positive integer or -1")
    if method == "awq" and q.get("zero_point") is False:
        raise _origin_error(origin, "zero_point", False, "(symmetric AWQ) is not modelled")
    # "version": null names no packing: vLLM's AWQ loader reads no version and allocates the
    # GEMM layout (vllm/model_executor/layers/quantization/awq.py, AWQConfig.from_config and
    # AWQLinearMethod.create_weights), so a null is read as AutoAWQ's default, GEMM
    if method == "awq" and str(q.get("version") or "gemm").lower() != "gemm":
        raise _origin_error(origin, "version", q.get("version"), "is not AWQ's GEMM packing "
                            "(GEMV pads its scales and zero points; not modelled)")
    if method == "awq" and bits != 4:
        raise _origin_error(origin, "bits", bits, "is not AutoAWQ's 4 bits")
    fmt = str(q.get("checkpoint_format", "gptq")).lower()
    if method == "gptq" and fmt not in ("gptq", "gptq_v2"):
        raise _origin_error(origin, "checkpoint_format", q.get("checkpoint_format"),
                            "(a repacked layout) is not modelled")
    shown = "whole rows" if group == 1 << 20 else f"groups of {group}"
    channel = 32 if method == "gptq" else 0
    return Scheme(method, f"{method.upper()} int{bits}, {shown}", bits, 1, group, 16,
                  bits_offset=bits, bits_channel=channel, keep=_names(q, "modules_to_not_convert",
                                                                       origin))


#: compressed-tensors' quantized activations (type, bits, group) -> the format the products run
#: in (None: any group); see :attr:`Scheme.compute`.
_CT_ACTIVATIONS = {("float", 8, None): "fp8", ("float", 4, 16): "nvfp4", ("int", 8, None): "int8"}


def _activations_format(a: Mapping[str, Any], origin: str, key: str) -> str | None:
    """The format a compressed-tensors group's matrix products run in, from its
    ``input_activations`` (:attr:`Scheme.compute`): None without them (weight-only).

    >>> _activations_format({}, "config", "input_activations")
    >>> _activations_format({"num_bits": 8, "type": "float", "dynamic": True}, "config", "a")
    'fp8'
    >>> _activations_format({"num_bits": 4, "type": "int"}, "config", "input_activations")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.ConfigError: config: field 'quantization_config.input_activations' = {'num_bits': 4, 'type': 'int'} is not an activation format this library knows (fp8, NVFP4, int8)
    """
    if not a:
        return None
    kind, bits, group = a.get("type"), a.get("num_bits"), a.get("group_size")
    found = (_lookup(_CT_ACTIVATIONS, (kind, bits, group))
             or _lookup(_CT_ACTIVATIONS, (kind, bits, None)))
    if found is None:
        raise _origin_error(origin, key, a, "is not an activation format this library knows "
                            "(fp8, NVFP4, int8)")
    return found


#: compressed-tensors' ``actorder`` -> whether its checkpoint stores a group index. Only group ordering registers ``weight_g_idx``, int32, one per input column
#: (``initialize_qparams``: "if actorder == ActivationOrdering.GROUP", vllm-project/
#: compressed-tensors ``src/compressed_tensors/quantization/lifecycle/initialize.py`` @
#: 4cff61407736b669bdb1e8bae7560e980d5a6303); ``dynamic`` is an alias of ``group`` and
#: ``static`` of ``weight``, and ``true`` reads as ``group`` (``ActivationOrdering.get_aliases``
#: and ``validate_actorder``, ``quantization/quant_args.py`` @
#: dc235db7891141be104c0be36a75a4103136a157). llm-compressor's GPTQ keeps its ``g_idx`` only
#: for group ordering: ``weight`` (``static``) permutes the columns while quantizing and
#: restores their order, so the index is the identity and is dropped (``has_gidx``,
#: vllm-project/llm-compressor ``src/llmcompressor/modifiers/quantization/gptq/
#: gptq_quantize.py`` @ 907a5629e48c87b60889d8dbaf90fe5af63d387a).
_CT_ACTORDER = {None: False, False: False, "weight": False, "static": False,
                True: True, "group": True, "dynamic": True}


_CT_WEIGHT_KEYS = {"num_bits", "type", "symmetric", "group_size", "strategy", "block_structure",
                   "dynamic", "actorder", "observer", "observer_kwargs", "scale_dtype",
                   "zp_dtype"}


def _compressed_tensors(q: Mapping[str, Any], origin: str) -> Scheme:
    _check_keys(q, {"quant_method", "config_groups", "format", "ignore", "kv_cache_scheme",
                    "quantization_status", "global_compression_ratio", "version",
                    "sparsity_config", "transform_config"}, origin)
    # kv_cache_scheme: the cache's precision (--kv-bits sets it); its scalar k_scale and
    # v_scale per attention layer (a few bytes) are not counted
    if q.get("sparsity_config"):
        raise _origin_error(origin, "sparsity_config", q["sparsity_config"], "is not modelled")
    # transform_config: Hadamard rotations fused into the weights (Laguna); a deterministic
    # Hadamard matrix is generated when the model loads, not stored (a random one would be)
    transform = _object(q.get("transform_config"), origin, "transform_config")
    for gname, t in _object(transform.get("config_groups"), origin,
                            "transform_config.config_groups").items():
        if not isinstance(t, dict) or t.get("type") != "hadamard" or t.get("randomize"):
            raise _origin_error(origin, f"transform_config.config_groups.{gname}", t,
                                "is not a deterministic Hadamard rotation (stored "
                                "transforms are not modelled)")
    groups = q.get("config_groups")
    if not isinstance(groups, dict) or len(groups) != 1:
        raise _origin_error(origin, "config_groups", groups, "must hold one group (several "
                            "schemes in one checkpoint are not modelled)")
    (gname, g), = groups.items()
    where = f"config_groups.{gname}."
    if not isinstance(g, dict):
        raise _origin_error(origin, where[:-1], g, "must be an object")
    _check_keys(g, {"targets", "weights", "input_activations", "output_activations", "format"},
                origin, where)
    if g.get("targets") != ["Linear"]:
        raise _origin_error(origin, where + "targets", g.get("targets"), "is not ['Linear']")
    if g.get("output_activations"):
        raise _origin_error(origin, where + "output_activations", g["output_activations"],
                            "is not modelled")
    w = g.get("weights")
    if not isinstance(w, dict):
        raise _origin_error(origin, where + "weights", w, "must be an object")
    _check_keys(w, _CT_WEIGHT_KEYS, origin, where + "weights.")
    bits = _int(w, "num_bits", origin)
    kind, strategy = w.get("type"), w.get("strategy")
    fmt = str(g.get("format") or q.get("format") or "")
    a = _object(g.get("input_activations"), origin, where + "input_activations")
    compute = _activations_format(a, origin, where + "input_activations")
    keep = _names(q, "ignore", origin)
    head = not any(_matches(p, "lm_head") for p in keep)
    scale_dtype = w.get("scale_dtype")
    if kind == "float" and bits == 4 and w.get("group_size") == 16:  # NVFP4
        if scale_dtype not in (None, "torch.float8_e4m3fn"):
            raise _origin_error(origin, where + "weights.scale_dtype", scale_dtype,
                                "is not NVFP4's fp8 scale")
        static_input = bool(a) and not a.get("dynamic", False)
        # weight_global_scale (fp32), and input_global_scale (fp32) for static input scales
        return Scheme("compressed-tensors", "NVFP4 (16 values per fp8 scale, fp32 global "
                      "scales)", 4, 1, 16, 8, bits_tensor=32 * (1 + static_input), head=head,
                      keep=keep, compute=compute)
    if a and not a.get("dynamic", False):
        raise _origin_error(origin, where + "input_activations", a, "stores static input "
                            "scales, which are not counted")
    if kind == "float" and bits == 4 and w.get("group_size") == 32 \
            and scale_dtype == "torch.uint8":  # MXFP4 packed by compressed-tensors
        return Scheme("compressed-tensors", "MXFP4 (32 values per 8-bit scale)", 4, 1, 32, 8,
                      head=head, keep=keep, compute=compute)
    scale_bits = _lookup({None: 16, "torch.bfloat16": 16, "torch.float16": 16,
                          "torch.float32": 32}, scale_dtype)
    if scale_bits is None:
        raise _origin_error(origin, where + "weights.scale_dtype", scale_dtype, "is not counted")
    if kind == "float" and bits == 8 and strategy == "block":
        block = _pair(w.get("block_structure"), origin, where + "weights.block_structure")
        return Scheme("compressed-tensors", f"fp8 block-scaled {block[0]}x{block[1]}", 8,
                      block[0], block[1], scale_bits, head=head, keep=keep, compute=compute)
    if kind == "int" and strategy == "group" and fmt == "pack-quantized":
        group = _int(w, "group_size", origin)
        order = w.get("actorder")
        g_idx = _lookup(_CT_ACTORDER, order.lower() if isinstance(order, str) else order)
        if g_idx is None:
            raise _origin_error(origin, where + "weights.actorder", w.get("actorder"),
                                "is not an activation ordering compressed-tensors knows "
                                "(group, weight, dynamic, static)")
        zero = 0 if w.get("symmetric", True) else bits
        # weight_packed (int32), weight_scale per group, weight_zero_point packed in int32 when
        # asymmetric, weight_shape (2 x int32) per matrix, weight_g_idx (int32 per input) for
        # group activation ordering
        return Scheme("compressed-tensors", f"int{bits} groups of {group}"
                      + ("" if not zero else " with zero points")
                      + (" and a group index" if g_idx else ""), bits, 1, group,
                      scale_bits, bits_offset=zero, bits_tensor=64, bits_channel=32 * g_idx,
                      head=head, keep=keep, compute=compute)
    raise _origin_error(origin, where + "weights", w, f"(format {fmt!r}) is not a layout this "
                        "library counts (NVFP4, MXFP4, fp8 blocks, packed int groups)")


#: ModelOpt's algorithms -> the format their products run in (:attr:`Scheme.compute`): NVFP4
#: and FP8 quantize the activations as well as the weights (their ``input_scale``);
#: W4A16_NVFP4 stores the weights as NVFP4 does and multiplies them at 16 bits.
_MODELOPT_COMPUTE = {"NVFP4": "nvfp4", "FP8": "fp8", "W4A16_NVFP4": None}

#: A ModelOpt KV-cache algorithm -> the cache's bits (:attr:`Scheme.kv_bits`).
_MODELOPT_KV = {"FP8": 8}


def _modelopt_layout(algo: Any, group: Any, origin: str, key: str) -> Scheme:
    """One ModelOpt algorithm's layout: NVFP4 and W4A16_NVFP4 (``weight`` two E2M1 values a
    byte, ``weight_scale`` fp8 per ``group`` inputs, ``weight_scale_2`` and ``input_scale``
    fp32 per matrix: a W4A16 file ships its input scales too, index file id 55878517108) or
    FP8 (``weight`` e4m3, ``weight_scale`` and ``input_scale`` fp32 per matrix); another
    algorithm is refused naming ``key``."""
    if algo in ("NVFP4", "W4A16_NVFP4"):
        weight_only = ", weights only" if algo == "W4A16_NVFP4" else ""
        return Scheme("modelopt", f"NVFP4 ({group} values per fp8 scale, fp32 global "
                      f"scales{weight_only})", 4, 1, group, 8, bits_tensor=64,
                      compute=_MODELOPT_COMPUTE[algo])
    if algo == "FP8":
        return Scheme("modelopt", "fp8 per-tensor", 8, 1, 1, 0, bits_tensor=64, compute="fp8")
    raise _origin_error(origin, key, algo, "is not NVFP4, W4A16_NVFP4 or FP8")


def _modelopt_kv(q: Mapping[str, Any], origin: str) -> int | None:
    """The KV cache's bits a ModelOpt record asks for, read as vLLM resolves its default cache
    ``auto`` (``get_kv_cache_quant_algo_string``, vllm-project/vllm
    ``vllm/utils/torch_utils.py`` @ 959009b402c329c7b885afe7d459726db919a41f):
    ``kv_cache_scheme`` first (8-bit floats, not dynamic: fp8), else ``kv_cache_quant_algo``
    (``FP8``); None where neither names one. Another cache format is refused naming its
    field."""
    scheme = q.get("kv_cache_scheme")
    if isinstance(scheme, str):  # ModelOpt's flat record names the algorithm (_flat_modelopt)
        bits = _lookup(_MODELOPT_KV, scheme)
        if bits is None:
            raise _origin_error(origin, "kv_cache_scheme", scheme, "is not a cache format "
                                "this library counts (FP8)")
        return bits
    if scheme:
        if not isinstance(scheme, dict) or (scheme.get("type"), scheme.get("num_bits"),
                                            scheme.get("dynamic")) != ("float", 8, False):
            raise _origin_error(origin, "kv_cache_scheme", scheme, "is not a cache format "
                                "this library counts (8-bit floats, static scales)")
        return 8
    algo = q.get("kv_cache_quant_algo")
    if algo is None:
        return None
    bits = _lookup(_MODELOPT_KV, algo)
    if bits is None:
        raise _origin_error(origin, "kv_cache_quant_algo", algo, "is not a cache format this "
                            "library counts (FP8)")
    return bits


def _is_expert(name: str) -> bool:
    """Whether a module name is a routed expert's (``...mlp.experts``, ``...experts.3.w1``;
    not ``shared_experts``)."""
    return re.search(r"(^|\.)experts(\.|$)", name) is not None


def _modelopt_mixed(q: Mapping[str, Any], origin: str, keep: tuple[str, ...],
                    kv: int | None) -> Scheme:
    """ModelOpt's ``MIXED_PRECISION``: ``quantized_layers`` names each quantized module (a
    matrix, or a block of fused experts) with its own ``quant_algo``; every module it does not
    name stays at 16 bits. Each module's matrices are counted in its own layout
    (:attr:`Scheme.layouts` where a part, the routed experts or the rest, holds more than one:
    nvidia/Qwen3.6-27B-NVFP4's attention and Gated DeltaNet projections in fp8, its MLPs and
    ``lm_head`` in W4A16 NVFP4). The plan multiplies in one format: the layouts' own where they
    share one; 16 bits where some are weight-only (W4A16: their products run at 16 bits, as
    the experts-only schemes' do, :attr:`~llm_arithmetic.catalog.model.Model.native_format`);
    two different low-precision formats (NVFP4 and fp8 activations) are refused naming
    ``quantized_layers``. Where only the routed experts are listed, the products run at 16
    bits too.

    >>> s = read_scheme({"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
    ...     "quantized_layers": {"model.layers.0.mlp.experts": {"quant_algo": "NVFP4",
    ...                                                         "group_size": 16},
    ...                          "model.layers.0.self_attn.q_proj": {"quant_algo": "NVFP4"}}})
    >>> s.label, s.quantizes("model.layers.0.mlp.experts.0.up_proj")
    ('NVFP4 (16 values per fp8 scale, fp32 global scales), by module', True)
    >>> s.quantizes("model.layers.0.self_attn.k_proj")
    False
    """
    layers = q.get("quantized_layers")
    if not isinstance(layers, dict) or not layers:
        raise _origin_error(origin, "quantized_layers", layers, "must be an object naming "
                            "each quantized module")
    parts: dict[bool, dict[str, tuple[Scheme, str]]] = {True: {}, False: {}}
    each: list[tuple[str, Scheme]] = []
    head: Scheme | None = None
    for name, spec in layers.items():
        key = f"quantized_layers.{name}"
        if "*" in name or name.startswith("re:"):
            raise _origin_error(origin, key, spec, "is a pattern, not a module's name")
        if not isinstance(spec, dict):
            raise _origin_error(origin, key, spec, "must be an object")
        _check_keys(spec, {"quant_algo", "group_size"}, origin, key + ".")
        group = spec.get("group_size", 16)
        if isinstance(group, bool) or not isinstance(group, int) or not 1 <= group <= 1 << 20:
            raise _origin_error(origin, key + ".group_size", group,
                                "must be a positive integer")
        layout = _modelopt_layout(spec.get("quant_algo"), group, origin, key + ".quant_algo")
        if name == "lm_head" or name.endswith(".lm_head"):
            head = layout
        parts[_is_expert(name)].setdefault(layout.label, (layout, name))
        each.append((name, layout))
    found = [layout for part in parts.values() for layout, _ in part.values()]
    formats = {layout.compute for layout in found}
    low = formats - {None}
    if len(low) > 1:
        said = "; ".join(f"{layout.label} (e.g. {name})" for part in parts.values()
                         for layout, name in part.values())
        raise _origin_error(origin, "quantized_layers", f"{len(layers)} modules",
                            f"multiplies its matrices in {len(low)} low-precision formats "
                            f"({said}): the plan has one")
    compute = None if None in formats else next(iter(low))
    experts = next(iter(parts[True].values()), (None, ""))[0]
    rest = next(iter(parts[False].values()), (None, ""))[0]
    several = len(parts[True]) > 1 or len(parts[False]) > 1
    base = rest if rest is not None else experts

    def shown(part: dict[str, tuple[Scheme, str]]) -> str:
        return " and ".join(part)

    label = shown(parts[False]) if rest is not None else shown(parts[True])
    if experts is not None and rest is not None and not set(parts[True]) <= set(parts[False]):
        label = f"{label}, experts {shown(parts[True])}"
    # the routed experts alone quantized: multiplied at 16 bits, as gpt-oss's MXFP4 experts
    # (Model.native_format), whatever their activations' format
    return replace(base, label=f"{label}, by module", keep=keep, only=frozenset(layers),
                   head=head is not None, experts_only=rest is None, compute=compute,
                   expert_scheme=experts if experts is not None and experts != base else None,
                   kv_bits=kv, layouts=tuple(each) if several else ())


def _modelopt(q: Mapping[str, Any], origin: str) -> Scheme:
    """NVIDIA ModelOpt (TensorRT Model Optimizer) checkpoints: NVFP4, W4A16_NVFP4 or FP8
    (:func:`_modelopt_layout`) for every linear layer but ``exclude_modules`` and ``ignore``
    (wildcards, kept at 16 bits), or ``MIXED_PRECISION`` module by module
    (:func:`_modelopt_mixed`); the KV cache's format (:func:`_modelopt_kv`)."""
    _check_keys(q, {"quant_method", "quant_algo", "group_size", "exclude_modules", "ignore",
                    "kv_cache_quant_algo", "producer", "kv_cache_scheme", "config_groups",
                    "quantized_layers", "quant_library"}, origin)
    algo = q.get("quant_algo")
    keep = _names(q, "exclude_modules", origin) + _names(q, "ignore", origin)
    kv = _modelopt_kv(q, origin)
    if algo == "MIXED_PRECISION":
        scheme = _modelopt_mixed(q, origin, keep, kv)
        # config.json restates quantized_layers as groups whose targets are module names
        for gname, g in _object(q.get("config_groups"), origin, "config_groups").items():
            targets = g.get("targets") if isinstance(g, dict) else None
            if not isinstance(targets, list) or not all(t in scheme.only for t in targets):
                raise _origin_error(origin, f"config_groups.{gname}", g, "does not restate "
                                    "quantized_layers")
        return scheme
    if q.get("quantized_layers"):
        raise _origin_error(origin, "quantized_layers", "...", f"beside quant_algo {algo!r:.40}"
                            " (module by module is MIXED_PRECISION)")
    compute = _lookup(_MODELOPT_COMPUTE, algo)
    # newer files restate the algorithm as compressed-tensors-like groups: they must agree,
    # the activations' format included (both algorithms quantize them: Scheme.compute); the
    # flat record of ModelOpt 0.29 to 0.31 (_flat_modelopt) writes them without targets,
    # every linear layer meant
    for gname, g in _object(q.get("config_groups"), origin, "config_groups").items():
        w = g.get("weights") if isinstance(g, dict) else None
        said = None if not isinstance(w, dict) else (w.get("type"), w.get("num_bits"),
                                                    w.get("group_size"))
        a = g.get("input_activations") if isinstance(g, dict) else None
        acts = _activations_format(a, origin, f"config_groups.{gname}.input_activations") \
            if isinstance(a, dict) else None
        if said not in ((("float", 4, q.get("group_size", 16)),) if algo == "NVFP4"
                        else (("float", 8, None),)) or g.get("targets", ["Linear"]) != ["Linear"] \
                or acts != compute:
            raise _origin_error(origin, f"config_groups.{gname}", g, f"does not restate "
                                f"quant_algo {algo!r}")
    if not isinstance(algo, str) or algo not in _MODELOPT_COMPUTE:
        raise _origin_error(origin, "quant_algo", algo, "is not NVFP4, W4A16_NVFP4, FP8 or "
                            "MIXED_PRECISION")
    group = _int(q, "group_size", origin, 16)
    return replace(_modelopt_layout(algo, group, origin, "quant_algo"), keep=keep, kv_bits=kv)


def hf_quant_record(hq: Any, origin: str) -> dict[str, Any]:
    """A ModelOpt ``hf_quant_config.json`` (``{"producer": {...}, "quantization": {...}}``,
    written beside ``config.json`` by TensorRT Model Optimizer) as the ``quantization_config``
    record it stands for: its ``quantization`` object with ``quant_method`` ``modelopt``, as
    vLLM takes the file for a config.json without a ``quantization_config`` (``get_config``
    in ``vllm/transformers_utils/config.py``, index file id 14619165) and TensorRT-LLM reads
    it (``ModelOPTQuantConfigReader.from_file``, index file id 2621189441). A producer other
    than ModelOpt, or another key, is refused naming it.

    >>> hf_quant_record({"producer": {"name": "modelopt", "version": "0.33.0"},
    ...                  "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8",
    ...                                   "group_size": 16, "exclude_modules": ["lm_head"]}},
    ...                 "hf_quant_config.json")["quant_method"]
    'modelopt'
    """
    if not isinstance(hq, dict):
        raise ConfigError(f"{origin}: expected a JSON object, got {type(hq).__name__}")
    for key in hq:
        if key not in ("producer", "quantization", "quant_method"):
            raise ConfigError(f"{origin}: field {key!r:.60} is not understood, and it may "
                              "change the checkpoint's bytes")
    producer = hq.get("producer")
    name = producer.get("name") if isinstance(producer, dict) else None
    if producer is not None and name != "modelopt":
        raise ConfigError(f"{origin}: field 'producer.name' = {name!r:.40} is not ModelOpt's "
                          "('modelopt'), the one writer of this file this library reads")
    if hq.get("quant_method", "modelopt") != "modelopt":
        raise ConfigError(f"{origin}: field 'quant_method' = {hq['quant_method']!r:.40} is "
                          "not 'modelopt'")
    q = hq.get("quantization")
    if not isinstance(q, dict):
        raise ConfigError(f"{origin}: missing field 'quantization' (an object)")
    if "quant_method" in q or "producer" in q:
        raise ConfigError(f"{origin}: field 'quantization.quant_method' is not understood "
                          "here (the file's producer names the method)")
    return {**q, "quant_method": "modelopt", **({"producer": producer} if producer else {})}


#: quant_method -> reader of its record.
METHODS = {"fp8": _fp8, "mxfp4": _mxfp4, "compressed-tensors": _compressed_tensors,
           "modelopt": _modelopt,
           "awq": lambda q, o: _groups(q, o, "awq"), "gptq": lambda q, o: _groups(q, o, "gptq")}


def _nested_modelopt(q: Mapping[str, Any]) -> bool:
    """Whether a ``quantization_config`` is ModelOpt's record in its nested shape (that of
    ``hf_quant_config.json``: ``{"producer": {"name": "modelopt"}, "quantization": {...}}``),
    which vLLM reads as ModelOpt's (``_parse_quant_hf_config``, vllm-project/vllm
    ``vllm/config/model.py`` @ 18ec6629253632af0a384f2ffbb8c6b28af322e7, names the method
    from ``quantization.quant_algo`` when the producer is ``modelopt``; the config's
    ``from_config``, ``vllm/model_executor/layers/quantization/modelopt.py`` @
    c9a59901113ccfe729e9c2be54062abee99b37f7, then reads the ``quantization`` object)."""
    producer = q.get("producer")
    name = producer.get("name") if isinstance(producer, dict) else None
    return isinstance(q.get("quantization"), dict) and (
        name == "modelopt" or q.get("quant_method") == "modelopt")


def _flat_modelopt(q: Mapping[str, Any]) -> bool:
    """Whether a ``quantization_config`` without ``quant_method`` is ModelOpt's flat record: the
    one its exporter writes into ``config.json`` beside ``hf_quant_config.json``
    (``convert_hf_quant_config_format``, modelopt/torch/export/convert_hf_config.py of ModelOpt
    0.29 to 0.31, index file id 6733361148: ``config_groups`` without ``targets``, ``ignore``,
    ``quant_algo``, ``kv_cache_scheme`` the cache's algorithm as a name, ``producer``; no
    ``quant_method``). Qwen3-32B-FP8-Static-PerTensor's config.json holds one
    (ai-dynamo/aiconfigurator, tests/configs/SOURCES.md section 14)."""
    producer = q.get("producer")
    name = producer.get("name") if isinstance(producer, dict) else None
    return (name == "modelopt" or q.get("quant_library") == "modelopt") and "quant_algo" in q


def read_hf_quant(hq: Any, origin: str, within: str = "") -> Scheme:
    """The scheme of ModelOpt's nested record (``{"producer": ..., "quantization": {...}}``):
    an ``hf_quant_config.json`` (``within`` empty) or the same record as a config.json's
    ``quantization_config`` (``within`` ``"quantization_config."``), read as the flat record
    it stands for (:func:`hf_quant_record`). An error names the field as the file spells it:
    ``quantization.X`` under ``within``, a key beside it (``producer.name``) under ``within``
    too.

    >>> read_hf_quant({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "FP8"}},
    ...               "hf_quant_config.json").label
    'fp8 per-tensor'
    >>> read_hf_quant({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "X"}},
    ...               "config.json", "quantization_config.")
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.ConfigError: config.json: field 'quantization_config.quantization.quant_algo' = 'X' is not NVFP4, W4A16_NVFP4, FP8 or MIXED_PRECISION
    """
    try:
        flat = hf_quant_record(hq, origin)
    except ConfigError as e:
        if not within:
            raise
        raise ConfigError(str(e).replace("field '", f"field '{within}")) from None
    try:
        return read_scheme(flat, origin)
    except ConfigError as e:
        raise ConfigError(str(e).replace("'quantization_config.",
                                         f"'{within}quantization.")) from None


def read_scheme(q: Any, origin: str = "config") -> Scheme:
    """A :class:`Scheme` from a ``quantization_config`` record; a one-line
    :class:`~llm_arithmetic.core.errors.ConfigError` for a method or key not modelled.
    ModelOpt's nested record (:func:`_nested_modelopt`) is read as its side file is
    (:func:`hf_quant_record`); an error names the field under ``quantization_config.quantization``.

    >>> read_scheme({"producer": {"name": "modelopt", "version": "0.17.0"},
    ...              "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": None}}).label
    'fp8 per-tensor'
    """
    if not isinstance(q, dict):
        raise ConfigError(f"{origin}: field 'quantization_config' must be an object")
    if _nested_modelopt(q):
        return read_hf_quant(q, origin, "quantization_config.")
    method = q.get("quant_method")
    if method is None and _flat_modelopt(q):
        q = {**q, "quant_method": "modelopt"}
        method = "modelopt"
    if method is None:
        raise ConfigError(f"{origin}: missing field 'quantization_config.quant_method': the "
                          "record names no method and no ModelOpt producer, so which layout "
                          f"its weights take is unknown (known: {', '.join(sorted(METHODS))})")
    if _lookup(METHODS, method) is None:
        raise ConfigError(f"{origin}: field 'quantization_config.quant_method' = {method!r:.40} "
                          f"is not a layout this library counts (known: "
                          f"{', '.join(sorted(METHODS))})")
    return METHODS[method](q, origin)


#: Where a multimodal wrapper keeps its language model's record.
_WRAPPERS = ("text_config", "language_config", "llm_config")


def find_scheme(cfg: Mapping[str, Any], origin: str = "config") -> Scheme | None:
    """The scheme of a config (its own ``quantization_config`` or its wrapped language
    model's), or None for a checkpoint in plain 16-bit weights.

    >>> find_scheme({"text_config": {"quantization_config": {"quant_method": "mxfp4"}}}).method
    'mxfp4'
    >>> find_scheme({"model_type": "llama"}) is None
    True
    """
    q = cfg.get("quantization_config")
    if q is None:
        for key in _WRAPPERS:
            inner = cfg.get(key)
            if isinstance(inner, dict) and inner.get("quantization_config") is not None:
                q = inner["quantization_config"]
                origin = f"{origin}: {key}"
                break
    return None if q is None else read_scheme(q, origin)


def deepseek_v4_scheme(scheme: Scheme | None, cfg: Mapping[str, Any], origin: str = "config"
                       ) -> Scheme | None:
    """A DeepSeek-V4 checkpoint's layout: its ``quantization_config`` (fp8 e4m3 blocks of
    128 x 128) and, outside it, ``expert_dtype``. With ``fp4`` the routed experts ship in
    MXFP4 (two E2M1 values a byte, one E8M0 scale per 32 inputs), the fp8 blocks' scales are
    E8M0 (one byte), and the attention sinks, the compressors' position biases and the
    hyper-connection mixers and head are fp32. DeepSeek-V4-Pro's tensor list shows each
    (``experts.*.w1.weight`` [3072, 3584] int8 with ``w1.scale`` [3072, 224] float8_e8m0fnu,
    ``wkv.scale`` [4, 56] float8_e8m0fnu, ``attn_sink``, ``compressor.ape``, ``hc_attn_fn``
    float32; tests/configs/SOURCES.md section 7, index file id 62525154746), and vLLM keys its
    expert kernels off the field: ``fp4`` MXFP4 experts with UE8M0 fp8 scales, ``fp8`` fp8
    block experts with float32 scales (index file id 59714467680). Without the field (or
    with ``fp8``) the scheme is the fp8 one as read. Another value is refused naming it.

    >>> s = deepseek_v4_scheme(read_scheme({"quant_method": "fp8", "weight_block_size":
    ...                                     [128, 128]}), {"expert_dtype": "fp4"})
    >>> s.label, s.bits_scale, s.expert_scheme.matrix_bytes(3072, 7168)
    ('fp8 block-scaled 128x128 (E8M0 scales), MXFP4 experts', 8, 11698176)
    """
    dtype = cfg.get("expert_dtype", "fp8")
    if dtype == "fp8" or scheme is None:  # a 16-bit file: nothing of the fp8 layout to adjust
        return scheme
    if dtype != "fp4":
        raise ConfigError(f"{origin}: field 'expert_dtype' = {dtype!r:.40} is not a layout "
                          "this library counts (fp4, fp8)")
    if scheme.method != "fp8" or scheme.bits_tensor:
        raise ConfigError(f"{origin}: field 'expert_dtype' = 'fp4' beside a "
                          f"{scheme.label} scheme: DeepSeek-V4's layout is fp8 blocks")
    mxfp4 = Scheme("mxfp4", "MXFP4 experts", 4, 1, 32, 8, experts_only=True)
    if scheme.expert_scheme is not None:  # experts ModelOpt converted to NVFP4 (_modelopt_experts)
        base = scheme.label.removesuffix(", NVFP4 experts")
        # the modules it converted are those its quantized_layers names (the scheme's only):
        # a multi-token-prediction module it leaves out (its ignore list's "mtp.*") keeps
        # DeepSeek-V4's MXFP4 experts (mtp_bits)
        converted = scheme.expert_scheme.only or frozenset()
        kept = () if any(n.startswith("mtp.") for n in converted) else (("mtp", mxfp4),)
        return replace(scheme, label=f"{base} (E8M0 scales), NVFP4 experts", bits_scale=8,
                       fp32_mixers=True, layouts=kept)
    return replace(scheme, label=f"{scheme.label} (E8M0 scales), MXFP4 experts", bits_scale=8,
                   expert_scheme=mxfp4, fp32_mixers=True)


#: The scheme of a 16-bit checkpoint whose routers are stored in fp32 (:func:`minimax_m3_scheme`):
#: every matrix at 16 bits (16-bit elements, no scales), the routers' matrices and biases at 32.
_BF16_FP32_ROUTERS = Scheme("bf16", "bf16, fp32 routers", PLAIN_BITS, 1, 1, 0,
                            router_bias_bits=32, router_bits=32)


def minimax_m3_scheme(scheme: Scheme | None, cfg: Mapping[str, Any], origin: str = "config"
                      ) -> Scheme | None:
    """A MiniMax-M3 checkpoint's layout: its bf16 release (no ``quantization_config``) stores
    each MoE block's router, ``mlp.gate`` (experts x d) and ``e_score_correction_bias``
    (experts), in fp32, every other tensor of the language model in bf16. vLLM's model
    allocates the router in fp32 and says the weights are stored so
    (vllm-project/vllm@0b6da709df3c3f09db9adf7e6883a4de97859bc7
    vllm/models/minimax_m3/amd/model.py, ``MiniMaxM3MoE``: ``GateLinear(...,
    params_dtype=torch.float32)``, the bias an fp32 parameter), and the Hugging Face API's
    count of MiniMaxAI/MiniMax-M3 (revision f0e1c1e0) has 46,339,200 F32 parameters: 57 MoE
    blocks x 128 x (6,144 + 1) of routers and the vision tower's 1,280 x 1,176 patch
    embedding (tests/configs/SOURCES.md section 7). A quantized file (a scheme read from its
    ``quantization_config``) is kept as read: its routers' type is not checked here.

    >>> s = minimax_m3_scheme(None, {"torch_dtype": "bfloat16"})
    >>> s.label, s.router_bits, s.router_bias_bits, s.matrix_bytes(3072, 6144)
    ('bf16, fp32 routers', 32, 32, 37748736)
    """
    if scheme is not None:
        return scheme
    dtype = cfg.get("torch_dtype", cfg.get("dtype", "bfloat16"))
    if dtype != "bfloat16":
        raise ConfigError(f"{origin}: field 'torch_dtype' = {dtype!r:.40}: MiniMax-M3's "
                          "layout is counted for its bf16 release (routers in fp32)")
    return _BF16_FP32_ROUTERS


def _fp32_params(model: Any, sinks: bool = True, head: bool = True) -> int:
    """DeepSeek-V4's parameters kept in fp32 (:func:`deepseek_v4_scheme`): per compressed
    attention block its sinks (one a head) and its compressors' position biases (m_c x c_o
    d_head, the indexer's m_c x c_o d_I), per block the two hyper-connection mixers
    ((2 + n)n x n d, (2 + n)n and 3 each: hyper_norm_params without the norms), and the
    hyper-connection head (hyper_head_params: n x n d, n, 1)."""
    return _fp32_in(model.layers, model.d_model, sinks, 1 if head else 0)


def _fp32_in(layers: Any, d: int, sinks: bool, heads: int) -> int:
    """:func:`_fp32_params` of the blocks ``layers`` with ``heads`` hyper-connection heads
    (a multi-token-prediction module's blocks and its own head, DeepSeek-V4's ``mtp.0.hc_head_*``)."""
    from .. import numeric as N

    n32 = 0
    for run in layers:
        a, per = run.attention, 0
        if a is not None and a.o_groups:
            per += (sinks * a.n_heads
                    + a.compress * a.overlap * (a.d_head + (a.index_dim if a.index_heads else 0)))
        if run.hc:
            per += N.hyper_norm_params(d_model=d, norm_vecs_layer=0, hc_streams=run.hc)
        n32 += run.count * per
    hc = max((run.hc for run in layers), default=0)
    if hc and heads:
        n32 += heads * N.hyper_head_params(d_model=d, hc_streams=hc)
    return n32


def _hash_table_params(model: Any) -> int:
    """DeepSeek-V4's hash-routing tables (``tid2eid``: V x k expert ids per hash-routed block),
    which its checkpoint stores as int64 (DeepSeek-V4-Pro's tensor list: ``layers.0-2.ffn.gate.
    tid2eid`` [129280, 6] torch.int64; tests/configs/SOURCES.md section 7)."""
    from .model import HASH_EXTRA

    return sum(x.params for x in model.extras if x.name == HASH_EXTRA)


# ---- the matrices of a model --------------------------------------------------------------------
@record
class Tensor:
    """``count`` alike matrices of ``rows`` x ``cols`` (outputs x inputs) named ``name``
    (Hugging Face's module name, layer number included); ``quantizable`` is False for a matrix
    quantizers leave alone (routers, DeepSeek-V3.2's indexer weights); ``expert`` marks a
    routed expert's matrix, ``router`` a MoE block's router (at the scheme's ``router_bits``)."""

    name: str
    rows: int
    cols: int
    count: int = 1
    quantizable: bool = True
    expert: bool = False
    router: bool = False


def _attention_tensors(a: Any, d: int, p: str) -> Iterator[Tensor]:
    h, hkv, dh = a.n_heads, a.n_kv_heads, a.d_head
    if a.is_mla:
        qk = a.d_nope + a.d_rope
        if a.q_lora_rank:
            yield Tensor(p + "self_attn.q_a_proj", a.q_lora_rank, d)
            yield Tensor(p + "self_attn.q_b_proj", h * qk, a.q_lora_rank)
        else:
            yield Tensor(p + "self_attn.q_proj", h * qk, d)
        yield Tensor(p + "self_attn.kv_a_proj_with_mqa", a.kv_lora_rank + a.d_rope, d)
        yield Tensor(p + "self_attn.kv_b_proj", h * (a.d_nope + a.d_v), a.kv_lora_rank)
        yield Tensor(p + "self_attn.o_proj", d, h * a.d_v)
        if a.gate:  # Kimi K3's gated MLA
            yield Tensor(p + "self_attn.g_proj", h * a.gate, d)
        # DeepSeek-V3.2: wq_b and wk in fp8, weights_proj kept in bf16; GLM-5.2's shared
        # layers have none
        if a.index_topk and not a.index_shared:
            yield Tensor(p + "self_attn.indexer.wq_b", a.index_heads * a.index_dim,
                         a.q_lora_rank)
            yield Tensor(p + "self_attn.indexer.wk", a.index_dim, d)
            yield Tensor(p + "self_attn.indexer.weights_proj", a.index_heads, d,
                         quantizable=False)
        return
    if a.o_groups:  # DeepSeek-V4 (FAMILIES.md section 14.18): its checkpoint's names
        yield Tensor(p + "attn.wq_a", a.q_lora_rank, d)
        yield Tensor(p + "attn.wq_b", h * dh, a.q_lora_rank)
        yield Tensor(p + "attn.wkv", dh, d)
        yield Tensor(p + "attn.wo_a", a.o_groups * a.o_lora_rank, h * dh // a.o_groups)
        yield Tensor(p + "attn.wo_b", d, a.o_groups * a.o_lora_rank)
        if a.overlap:  # the compressors' projections stay in bf16
            for w in ("wkv", "wgate"):
                yield Tensor(p + f"attn.compressor.{w}", a.overlap * dh, d, quantizable=False)
            if a.index_heads:
                for w in ("wkv", "wgate"):
                    yield Tensor(p + f"attn.indexer.compressor.{w}", a.overlap * a.index_dim, d,
                                 quantizable=False)
                yield Tensor(p + "attn.indexer.wq_b", a.index_heads * a.index_dim,
                             a.q_lora_rank)
                yield Tensor(p + "attn.indexer.weights_proj", a.index_heads, d,
                             quantizable=False)
        return
    dv = a.d_v or dh
    gate_fused = a.gate == dh  # Qwen3-Next: q_proj holds the queries and the gate
    yield Tensor(p + "self_attn.q_proj", h * dh * (2 if gate_fused else 1), d)
    if a.gate and not gate_fused:
        yield Tensor(p + "self_attn.g_proj", h * a.gate, d)
    yield Tensor(p + "self_attn.k_proj", hkv * dh, d)
    yield Tensor(p + "self_attn.v_proj", hkv * dv, d)
    yield Tensor(p + "self_attn.o_proj", d, h * dv)
    if a.index_block:  # MiniMax-M3's indexer: its query and key projections
        yield Tensor(p + "self_attn.index_q_proj", a.index_heads * a.index_dim, d)
        yield Tensor(p + "self_attn.index_k_proj", a.index_dim, d)


#: How a family's checkpoint names a mixture-of-experts block's router, routed experts and
#: shared (or dense) experts; a family not listed names them as DeepSeek and Qwen do. Gemma 4
#: (Gemma4TextDecoderLayer in transformers' modeling_gemma4.py, FAMILIES.md section 14.16) holds
#: ``router.proj``, ``experts`` and its dense ``mlp`` beside each other in the layer, and
#: NVIDIA's Gemma-4-26B-A4B-NVFP4 keeps ``layers.N.mlp*`` and ``layers.N.router*`` in bf16 and
#: quantizes the experts (its hf_quant_config.json, tests/configs/SOURCES.md section 14).
_MOE_NAMES = {"gemma4": ("router.proj", "experts.0.", "mlp."),
              "gemma4_text": ("router.proj", "experts.0.", "mlp."),
              # Qwen3-Next and Qwen3.5's mixtures hold one shared expert, ``mlp.shared_expert``
              # (transformers' Qwen3NextSparseMoeBlock; nvidia/Qwen3.6-35B-A3B-NVFP4 lists
              # ``model.language_model.layers.N.mlp.shared_expert.gate_proj``)
              **{f: ("mlp.gate", "mlp.experts.0.", "mlp.shared_expert.")
                 for f in ("qwen3_next", "qwen3_5_moe", "qwen3_5_moe_text")}}
_MOE_DEFAULT = ("mlp.gate", "mlp.experts.0.", "mlp.shared_experts.")
#: How a family's checkpoint names a latent mixture's projections into the experts' latent and
#: back out (d -> latent, latent -> d), and whether an engine quantizes them as a file's
#: lists say. Kimi K3's (the default): ``routed_expert_down_proj`` and ``routed_expert_up_proj``,
#: which vLLM builds with ``quant_config=None`` (vllm/models/kimi_k3/nvidia/model.py, KimiMoE,
#: vllm-project/vllm@ed51064c4a697d92fb1182b688c988b4b54dcaeb), and the checkpoint's 1.5609 TB
#: is its routed experts in MXFP4 and every other weight in bf16 (FAMILIES.md section 14.24);
#: Nemotron-H's (Nemotron 3 Super): ``fc1_latent_proj`` and ``fc2_latent_proj``, which vLLM
#: builds as ``ReplicatedLinear`` with the model's ``quant_config`` and those prefixes
#: (vllm-project/vllm@8744bb0924a53c0d16867426b8b17428d41e4002
#: ``vllm/model_executor/models/nemotron_h.py``, NemotronHMoE), so a file's lists decide.
_LATENT_NAMES = {"nemotron_h": (("mlp.fc1_latent_proj", "mlp.fc2_latent_proj"), True)}
_LATENT_DEFAULT = (("mlp.routed_expert_down_proj", "mlp.routed_expert_up_proj"), False)


def _mlp_tensors(m: Any, d: int, p: str, dense: str = "mlp.",
                 names: tuple[str, str, str] = _MOE_DEFAULT,
                 latent: tuple[tuple[str, str], bool] = _LATENT_DEFAULT) -> Iterator[Tensor]:
    def mats(prefix: str, ff: int, count: int, expert: bool, width: int = d
             ) -> Iterator[Tensor]:
        names = ("gate_proj", "up_proj", "down_proj") if m.n_mats == 3 else ("up_proj",
                                                                             "down_proj")
        for n in names:
            rows, cols = (width, ff) if n == "down_proj" else (ff, width)
            yield Tensor(prefix + n, rows, cols, count, expert=expert)

    if not m.is_moe and not m.n_shared:
        yield from mats(p + dense, m.d_ff, 1, False)
        return
    router, experts, shared = names
    if m.is_moe:
        yield Tensor(p + router, m.n_experts, d, quantizable=False, router=True)
        yield from mats(p + experts, m.d_ff, m.n_experts, True, m.latent or d)
    if m.latent:
        # the latent projections the routed experts share, by the family's names
        # (_LATENT_NAMES): Kimi K3's left in 16 bits, Nemotron-H's as the lists say
        (down, up), q = latent
        yield Tensor(p + down, m.latent, d, quantizable=q)
        yield Tensor(p + up, d, m.latent, quantizable=q)
    if m.n_shared:
        yield from mats(p + shared, m.d_shared, m.n_shared, False)


def _kda_tensors(k: Any, d: int, p: str, family: str = "") -> Iterator[Tensor]:
    """The matrices of a Kimi delta attention mixer under transformers' names (its
    convolutions, decay and norm are not matrices)."""
    w = k.kda_heads * k.d_k
    for name in ("q_proj", "k_proj", "v_proj"):
        yield Tensor(p + "self_attn." + name, w, d)
    yield Tensor(p + "self_attn.b_proj", k.kda_heads, d)
    yield Tensor(p + "self_attn.f_a_proj", k.d_k, d)
    yield Tensor(p + "self_attn.f_b_proj", w, k.d_k)
    if k.full_gate:
        yield Tensor(p + "self_attn.g_proj", w, d)
    else:
        yield Tensor(p + "self_attn.g_a_proj", k.d_k, d)
        yield Tensor(p + "self_attn.g_b_proj", w, k.d_k)
    yield Tensor(p + "self_attn.o_proj", d, w)


def _gdn_tensors(g: Any, d: int, p: str, family: str = "") -> Iterator[Tensor]:
    """The matrices of a Gated DeltaNet mixer under its checkpoint's names (its convolution,
    decay, step bias and norm are not matrices, and stay at 16 bits). Qwen3.5 and Qwen3.6 split
    the input projection in four, ``in_proj_qkv`` (2 H_qk d_k + H_v d_v rows), ``in_proj_z``
    (H_v d_v), ``in_proj_b`` and ``in_proj_a`` (H_v each), as nvidia/Qwen3.6-27B-NVFP4's
    tensors show (``linear_attn.in_proj_qkv.weight`` F8_E4M3 [10240, 5120],
    ``in_proj_a.weight`` and ``in_proj_b.weight`` BF16 [48, 5120], index file id
    61871879195); Qwen3-Next fuses them in two, ``in_proj_qkvz`` and ``in_proj_ba``
    (transformers' ``Qwen3NextGatedDeltaNet``). Then ``out_proj`` (d x H_v d_v).

    >>> from llm_arithmetic.catalog.model import GatedDeltaNet
    >>> g = GatedDeltaNet(n_qk_heads=16, n_v_heads=48, d_k=128, d_v=128)
    >>> [(t.name, t.rows) for t in _gdn_tensors(g, 5120, "", "qwen3_5_text")][:4:3]
    [('linear_attn.in_proj_qkv', 10240), ('linear_attn.in_proj_a', 48)]
    """
    qk, v = 2 * g.n_qk_heads * g.d_k, g.n_v_heads * g.d_v
    if family == "qwen3_next":
        yield Tensor(p + "linear_attn.in_proj_qkvz", qk + 2 * v, d)
        yield Tensor(p + "linear_attn.in_proj_ba", 2 * g.n_v_heads, d)
    else:
        yield Tensor(p + "linear_attn.in_proj_qkv", qk + v, d)
        yield Tensor(p + "linear_attn.in_proj_z", v, d)
        yield Tensor(p + "linear_attn.in_proj_b", g.n_v_heads, d)
        yield Tensor(p + "linear_attn.in_proj_a", g.n_v_heads, d)
    yield Tensor(p + "linear_attn.out_proj", d, v)


def _mamba2_tensors(m: Any, d: int, p: str, family: str = "") -> Iterator[Tensor]:
    """The two matrices of a Mamba-2 mixer: ``mixer.in_proj`` (to z and x, d_inner each, B and
    C, n_groups x d_state each, and one step size a head) and ``mixer.out_proj`` (d x
    d_inner); its convolution, decay, skip and norm are not matrices. Nemotron-H's names
    (``backbone.layers.N.mixer.in_proj``, with fp32 ``weight_scale`` and ``input_scale`` in
    its ModelOpt FP8 layers, index file id 66889731329)."""
    yield Tensor(p + "mixer.in_proj", 2 * m.d_inner + 2 * m.n_groups * m.d_state + m.n_heads, d)
    yield Tensor(p + "mixer.out_proj", d, m.d_inner)


#: Mixers whose matrices :func:`tensors` lists (which of another mixer's projections a quantizer
#: converts is not modelled elsewhere).
_MIXER_TENSORS = {KimiDeltaAttention: _kda_tensors, GatedDeltaNet: _gdn_tensors,
                  Mamba2: _mamba2_tensors}

#: Families whose Mamba-2 mixers :func:`tensors` names: Nemotron-H. Granite 4.0-H and Falcon-H1
#: name theirs otherwise (``model.layers.N.mamba``); their quantized files are refused.
_MAMBA2_FAMILIES = frozenset({"nemotron_h"})

#: Families whose checkpoints hold one module a block, ``backbone.layers.N.mixer`` (Mamba-2,
#: attention, MLP or mixture alike), not ``model.layers.N.self_attn`` and ``.mlp``:
#: Nemotron-H (transformers' NemotronHBlock; ModelOpt's lists for
#: nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4 name ``backbone.layers.N.mixer.q_proj``,
#: ``.mixer.experts.K.up_proj``, ``.mixer.shared_experts.down_proj``, ``.mixer.gate``).
_BACKBONE_FAMILIES = frozenset({"nemotron_h"})


def _backbone_name(name: str) -> str:
    """A decoder module's name as a Nemotron-H checkpoint writes it.

    >>> _backbone_name("model.layers.12.self_attn.q_proj")
    'backbone.layers.12.mixer.q_proj'
    """
    return re.sub(r"^model\.layers\.(\d+)\.(?:self_attn|mlp|mixer)\.",
                  r"backbone.layers.\1.mixer.", name)


def tensors(model: Any) -> Iterator[Tensor]:
    """Every matrix of a model's decoder, as a checkpoint names it (one expert stands for all
    the experts of a block, with their count). A Kimi delta attention or Gated DeltaNet mixer's
    matrices are listed under their checkpoints' names, and Nemotron-H's Mamba-2 mixers (its
    blocks named ``backbone.layers.N.mixer``); another mixer (another family's Mamba-2, a
    short convolution) is refused: which of its projections a quantizer converts is not
    modelled.

    Llama 2 7B's first block (d = 4096, 32 heads of 128, a SwiGLU MLP of 11,008):

    >>> from llm_arithmetic import get_model
    >>> [(t.name[15:], t.rows, t.cols) for t in tensors(get_model("llama-2-7b"))][:5:4]
    [('self_attn.q_proj', 4096, 4096), ('mlp.gate_proj', 11008, 4096)]
    """
    if model.family in _BACKBONE_FAMILIES:
        for t in _decoder_tensors(model):
            yield replace(t, name=_backbone_name(t.name))
        return
    yield from _decoder_tensors(model)


def _decoder_tensors(model: Any) -> Iterator[Tensor]:
    """:func:`tensors` under the names ``model.layers.N.self_attn``, ``.mlp`` and the mixers'."""
    i = 0
    for run in model.layers:
        mixer = None if run.mixer is None else _MIXER_TENSORS.get(type(run.mixer))
        if isinstance(run.mixer, Mamba2) and model.family not in _MAMBA2_FAMILIES:
            mixer = None
        if run.mixer is not None and mixer is None:
            raise ConfigError(f"{model.name}: a {type(run.mixer).__name__} mixer in a quantized "
                              "checkpoint: its shipped bytes are not modelled")
        for _ in range(run.count):
            p = f"model.layers.{i}."
            if run.attention is not None:
                yield from _attention_tensors(run.attention, model.d_model, p)
            if mixer is not None:
                yield from mixer(run.mixer, model.d_model, p, model.family)
            if run.mlp is not None:
                yield from _mlp_tensors(run.mlp, model.d_model, p,
                                        names=_MOE_NAMES.get(model.family, _MOE_DEFAULT),
                                        latent=_LATENT_NAMES.get(model.family,
                                                                 _LATENT_DEFAULT))
            i += 1


def _quantized(scheme: Scheme, t: Tensor) -> bool:
    if not t.quantizable or (scheme.experts_only and not t.expert):
        return False
    return scheme.quantizes(t.name)


def _tensor_bytes(scheme: Scheme, t: Tensor) -> Fraction:
    """Bytes of the ``count`` matrices ``t`` as the scheme stores them: by their layout (their
    module's own, or the experts', :meth:`Scheme.layout`) where it quantizes them, else at 16
    bits (a router's at the scheme's ``router_bits``) [B]."""
    if _quantized(scheme, t):
        return t.count * Fraction(scheme.layout(t.name, t.expert).matrix_bytes(t.rows, t.cols))
    return Fraction(t.rows * t.cols * t.count
                    * (scheme.router_bits if t.router else PLAIN_BITS), 8)


def _by_class(scheme: Scheme, listed: Iterator[Tensor], named: set[str] | None = None
              ) -> tuple[Fraction, Fraction, int, int]:
    """The bytes and parameters of the matrices ``listed``, in two classes, routed experts'
    and the others: (expert bytes, other bytes, expert parameters, other matrices'
    parameters); ``named`` gathers the modules they are and hold (for a mixed-precision
    list)."""
    expert_bytes = other_bytes = Fraction(0)
    expert_params = matrix_params = 0
    for t in listed:
        n = t.rows * t.cols * t.count
        if named is not None:
            named.update(_prefixes(t.name))
        b = _tensor_bytes(scheme, t)
        if t.expert:
            expert_bytes += b
            expert_params += n
        else:
            other_bytes += b
            matrix_params += n
    return expert_bytes, other_bytes, expert_params, matrix_params


def _all_experts_listed(model: Any, scheme: Scheme) -> None:
    """A mixed-precision list that names the routed experts one by one (``experts.K.up_proj``,
    Nemotron-H's) must name every one: the matrices listed here stand for all the experts of
    a block by the first (``experts.0.``), so a list naming some would be counted as naming
    all. Refused naming the first expert missing."""
    for t in tensors(model):
        if not t.expert or ".experts.0." not in t.name:
            continue
        if not any(n in scheme.only for n in _prefixes(t.name)):
            continue  # the block's experts listed whole (mlp.experts), or not at all
        for k in range(1, t.count):
            name = t.name.replace(".experts.0.", f".experts.{k}.")
            if not any(n in scheme.only for n in _prefixes(name)):
                raise ConfigError(f"{model.name}: field 'quantization_config.quantized_layers' "
                                  f"names {t.name!r:.80} but not {name!r:.80}: a block whose "
                                  "experts are quantized in part is not modelled")


def _router_bias_extra(scheme: Scheme, layers: Any) -> Fraction:
    """The bytes the routers' bias vectors of ``layers`` take beyond 16 bits each, at the
    scheme's ``router_bias_bits`` [B]."""
    if scheme.router_bias_bits == PLAIN_BITS:
        return Fraction(0)
    biases = sum(run.count * run.mlp.n_experts for run in layers
                 if run.mlp is not None and run.mlp.is_moe and run.mlp.router_bias)
    return Fraction(biases * (scheme.router_bias_bits - PLAIN_BITS), 8)


def mtp_as_layers(model: Any) -> bool:
    """Whether the model's checkpoint stores each multi-token-prediction module (one reported
    apart from the total) as one more decoder layer after the model's, in DeepSeek-V3's layout
    (README_WEIGHTS.md of deepseek-ai/DeepSeek-V3 @ 9b4e9788e4a3a731f7567338ed15d3ec549ce03b:
    layer 61 of a 61-layer model holds ``enorm``, ``hnorm``, ``eh_proj``, one decoder block,
    ``shared_head.norm`` and its own ``embed_tokens`` and ``shared_head.head``): DeepSeek-V3/R1
    and V3.1, V3.2, GLM-4.5, GLM-5 and 5.x (whose module stores no tables of its own: nvidia's
    GLM-5.2-NVFP4 names it ``model.layers.78*``), GLM-4.7-Flash. Their readers mark the module so
    (``readers.base.mtp_extras``, ``Extra.names`` ``"layers"``).

    >>> from llm_arithmetic import get_model
    >>> mtp_as_layers(get_model("glm-4.5")), mtp_as_layers(get_model("qwen3-8b"))
    (True, False)
    """
    return any(x.names == "layers" for x in model.mtp_extras() if not x.in_total)


#: How a checkpoint names its multi-token-prediction module's tensors, by the reader's mark
#: (``Extra.names``): the prefix of a module's block (``{layer}``: n + j for module j of a
#: model of n layers; ``{block}``: the block's number among every module's; ``{module}``: j),
#: and the projection(s) of the module's two inputs, once a module, each (name, cols in units
#: of d, quantizable), d rows (a name without ``mtp.`` is under the block's prefix).
#: - ``layers``: DeepSeek-V3's layout (:func:`mtp_as_layers`), ``eh_proj`` (d x 2d) built
#:   unquantized by vLLM (vllm-project/vllm@4f7c14402630b97c8c078523fca8edef287ed2cf
#:   ``vllm/model_executor/models/deepseek_mtp.py``, ``DeepSeekMultiTokenPredictorLayer``; GLM's
#:   the same, vllm-project/vllm@6e052ba8f4d97e43fb88a3288f3240ff4f73d7d2 ``glm4_moe_mtp.py``)
#:   and stored in bf16 by DeepSeek-V3's fp8 file (tests/configs/FAMILIES.md, DeepSeek-V3);
#: - ``mtp.layers``: Qwen3.5's, ``mtp.layers.{block}.`` and one ``mtp.fc`` (d x 2d) a module, which
#:   vLLM builds with the quantization config and its prefix (``qwen3_5_mtp.py``), so a file's
#:   lists decide (nvidia/Qwen3.6-27B-NVFP4 stores its 15 ``mtp.*`` tensors in bf16);
#: - ``mtp``: DeepSeek-V4's, ``mtp.{module}.`` with ``e_proj`` and ``h_proj`` (d x d each), stored
#:   as fp8 blocks like the block's matrices (DeepSeek-V4-Pro's tensor list: ``mtp.0.e_proj``
#:   [7168, 7168] float8_e4m3fn with a [56, 56] float8_e8m0fnu scale; tests/configs/SOURCES.md
#:   section 7, index file id 62525154746).
MTP_NAMES: dict[str, tuple[str, tuple[tuple[str, int, bool], ...]]] = {
    "layers": ("model.layers.{layer}.", (("eh_proj", 2, False),)),
    "mtp.layers": ("mtp.layers.{block}.", (("mtp.fc", 2, True),)),
    "mtp": ("mtp.{module}.", (("e_proj", 1, True), ("h_proj", 1, True))),
}
# Files read here that name their module (checked 2026-11 against ai-dynamo/aiconfigurator @
# 095f58a51 aic-core/src/aiconfigurator_core/model_configs/ and tests/configs/modelopt/):
# nvidia/Qwen3.5-397B-A17B-NVFP4, -122B-A10B-NVFP4 and the Qwen3.6 NVFP4 files exclude
# "mtp.layers.0*" and "mtp*" (a bf16 module); nvidia/GLM-5.2-NVFP4 excludes "model.layers.78*"
# (bf16), DeepSeek-V3.1-NVFP4 "model.layers.61*"; nvidia/DeepSeek-V4-Flash-NVFP4 ignores
# "mtp.*": ModelOpt left the module in DeepSeek-V4's own layout (fp8 blocks, MXFP4 experts,
# :func:`deepseek_v4_scheme`). The Nemotron 3 Super FP8 and NVFP4 records stored there list no
# modules (their module, as MiMo's and Step 3.7's, is not named here: the target's bits).


def mtp_tensors(model: Any) -> Iterator[Tensor]:
    """Every matrix of a model's multi-token-prediction modules (those reported apart from
    the total), as its checkpoint names them (:data:`MTP_NAMES`): its blocks' matrices named
    as a decoder block's (:func:`tensors`) under the module's prefix, and the projection(s) of
    its two inputs. The vocabulary tables a module stores as its own are not listed (never
    quantized here, and shared with the target by vLLM). Nothing where the reader does not
    say how the module is named.

    DeepSeek-V3's module is layer 61:

    >>> from llm_arithmetic import get_model
    >>> [(t.name, t.rows, t.cols) for t in mtp_tensors(get_model("deepseek-v3"))][:2]
    [('model.layers.61.eh_proj', 7168, 14336), ('model.layers.61.self_attn.q_a_proj', 1536, 7168)]
    """
    d = model.d_model
    n = sum(run.count for run in model.layers)
    names = _MOE_NAMES.get(model.family, _MOE_DEFAULT)
    j = b = 0  # the module, the block among every module's
    for x in model.mtp_extras():
        if x.in_total or x.names not in MTP_NAMES:
            continue
        prefix, inputs = MTP_NAMES[x.names]
        per = len(x.layers) // x.modules
        for m in range(x.modules):
            first = True
            for run in x.layers[m * per:(m + 1) * per]:
                for _ in range(run.count):
                    p = prefix.format(layer=n + j, block=b, module=j)
                    if first:  # the module's input projection(s), once a module
                        for name, width, q in inputs:
                            full = name if name.startswith("mtp.") else p + name
                            yield Tensor(full, d, width * d, quantizable=q)
                        first = False
                    if run.attention is not None:
                        yield from _attention_tensors(run.attention, d, p)
                    if run.mlp is not None:
                        yield from _mlp_tensors(run.mlp, d, p, names=names,
                                                latent=_LATENT_NAMES.get(model.family,
                                                                         _LATENT_DEFAULT))
                    b += 1
                    if x.names == "layers":
                        j += 1  # DeepSeek-V3's layout: one block a module, one layer each
            if x.names != "layers":
                j += 1


def mtp_bits(model: Any, scheme: Scheme) -> dict[str, Fraction]:
    """Bits per weight of a multi-token-prediction module as the checkpoint ships it, in the
    two classes the plan counts for a module it holds (``draft_module_bytes``): ``"draft"``,
    its parameters but its routed experts' matrices and the vocabulary tables it stores as its
    own, and ``"draft_experts"``, its routed experts' matrices (where it has some); exact
    fractions whose products with those counts give the module's bytes. The first class in two
    parts, as a draft step reads them (``module_step_bytes``): ``"draft_inputs"``, the
    projection(s) of the module's two inputs (:data:`MTP_NAMES`) with its two input norms, and
    ``"draft_blocks"``, the rest (its blocks' weights but the experts' matrices, its head's
    norm). The module's matrices
    (:func:`mtp_tensors`) are matched against the scheme's lists by the names the checkpoint
    gives them, as the model's are, so that a checkpoint that keeps its module unquantized
    (NVIDIA's DeepSeek-V3.1-NVFP4 excludes ``model.layers.61*``, GLM-5.2-NVFP4
    ``model.layers.78*``, the Qwen3.5 and 3.6 NVFP4 files ``mtp*``) counts it at 16 bits, one
    that quantizes it as the rest (DeepSeek-V3's fp8) counts its scales too, and one that left
    it in the base file's layout (DeepSeek-V4-Flash-NVFP4 ignores ``mtp.*``: its module's
    experts stay MXFP4) counts that layout; DeepSeek-V4's sinks and hyper-connection mixers and
    head in fp32 (``fp32_mixers``). ``{}`` where the model has no such module or its names are
    not modelled (:data:`MTP_NAMES`): the plan then counts the module at the target's bits.

    DeepSeek-V3's module in fp8 with 128 x 128 blocks: its block's matrices at one byte and
    an fp32 scale a block; its ``eh_proj``, norms and router in bf16, the router's bias in
    fp32:

    >>> from llm_arithmetic import get_model
    >>> m = get_model("deepseek-v3")
    >>> b = mtp_bits(m, m.scheme)
    >>> {k: round(float(v), 4) for k, v in b.items()}
    {'draft': 10.4943, 'draft_experts': 8.002, 'draft_inputs': 16.0, 'draft_blocks': 8.0658}
    """
    listed = list(mtp_tensors(model))
    if not listed:
        return {}
    extras = [x for x in model.mtp_extras() if not x.in_total and x.names in MTP_NAMES]
    expert_bytes, other_bytes, expert_params, matrix_params = _by_class(scheme, listed)
    held = sum(x.params - x.embeddings - x.heads for x in extras)
    rest = held - expert_params - matrix_params  # plain 16-bit tensors: norms, biases
    if rest < 0:
        raise ConfigError(f"{model.name}: the module's matrices listed "
                          f"({expert_params + matrix_params:,}) exceed its count; its bytes "
                          "are not modelled for this layout")
    other_bytes += Fraction(rest * PLAIN_BITS, 8)
    runs = [run for x in extras for run in x.layers]
    if scheme.fp32_mixers:  # one hyper-connection head a module
        n32 = _fp32_in(runs, model.d_model, True, sum(x.modules for x in extras))
        other_bytes += Fraction(n32 * (32 - PLAIN_BITS), 8)
    other_bytes += _router_bias_extra(scheme, runs)
    out = {"draft": 8 * other_bytes / (held - expert_params)}
    if expert_params:
        out["draft_experts"] = 8 * expert_bytes / expert_params
    # of those, the module's input projection(s) and its two input norms (16-bit), and the
    # rest (its blocks' weights but the experts' matrices, the head's norm): a draft step reads
    # each at its own bits, and a tensor-parallel group may copy the inputs whole
    ends = tuple(name for x in extras for name, _, _ in MTP_NAMES[x.names][1])
    inputs = [t for t in listed if t.name in ends or t.name.endswith(tuple("." + e for e in ends))]
    norms = 2 * model.d_model * sum(x.modules for x in extras)
    in_params = sum(t.rows * t.cols * t.count for t in inputs) + norms
    in_bytes = sum((_tensor_bytes(scheme, t) for t in inputs), Fraction(0)) \
        + Fraction(norms * PLAIN_BITS, 8)
    if inputs and held - expert_params > in_params:
        out["draft_inputs"] = 8 * in_bytes / in_params
        out["draft_blocks"] = 8 * (other_bytes - in_bytes) / (held - expert_params - in_params)
    return out


def shipped_bytes(model: Any, scheme: Scheme | None = None) -> dict[str, Any]:
    """The checkpoint's bytes of the decoder and the extras in its total, in two classes:
    ``"experts"`` (every routed expert's matrices) and ``"other"`` (everything else), with the
    parameters of each (``"expert_params"``, ``"other_params"``) [B].

    Each quantized matrix by :data:`~llm_arithmetic.formulas.memory.quantized_matrix_bytes`;
    the rest at 16 bits (a router's matrix at the scheme's ``router_bits``, its bias at
    ``router_bias_bits``).
    """
    scheme = scheme if scheme is not None else model.scheme
    d = model.d_model
    named: set[str] = set()  # the modules a mixed-precision list may name
    expert_bytes, other_bytes, expert_params, matrix_params = _by_class(
        scheme, tensors(model), named if scheme.only is not None else None)
    if scheme.only is not None:
        # a module the list names that no matrix listed here is would be counted at 16 bits
        # (another family's names, a module this library does not list): refused
        # a list may name each expert (experts.K.up_proj, Nemotron-H's) where the matrices
        # listed here name one for all (experts.0.up_proj)
        stray = sorted(n for n in scheme.only
                       if re.sub(r"\.experts\.\d+\.", ".experts.0.", n) not in named
                       and n != "lm_head" and not n.endswith(".lm_head"))
        if stray:
            raise ConfigError(f"{model.name}: field 'quantization_config.quantized_layers' "
                              f"names {len(stray):,} module(s) that are none of the matrices "
                              f"this library lists for the model (e.g. {stray[0]!r:.80}); "
                              "counted at 16 bits they would overstate the checkpoint")
        _all_experts_listed(model, scheme)
    if scheme.head and not model.tied:
        n = model.n_vocab * d
        other_bytes += (Fraction(scheme.layout("lm_head").matrix_bytes(model.n_vocab, d))
                        - Fraction(n * PLAIN_BITS, 8))
    if expert_params != model.evaluate("expert_matrices"):
        raise ConfigError(f"{model.name}: the experts' matrices listed ({expert_params:,}) "
                          "differ from the count; shipped bytes not modelled for this layout")
    rest = model.total_params - expert_params - matrix_params  # plain 16-bit tensors
    if rest < 0:  # the matrices listed are not the model's
        raise ConfigError(f"{model.name}: the matrices listed ({expert_params + matrix_params:,}) "
                          "exceed the count; shipped bytes not modelled for this layout")
    other_bytes += Fraction(rest * PLAIN_BITS, 8)
    if scheme.fp32_mixers:  # DeepSeek-V4's layout: its fp32 parts and int64 routing tables
        other_bytes += Fraction(_fp32_params(model) * (32 - PLAIN_BITS)
                                + _hash_table_params(model) * (64 - PLAIN_BITS), 8)
    other_bytes += _router_bias_extra(scheme, model.layers)
    return {"experts": expert_bytes, "other": other_bytes, "expert_params": expert_params,
            "other_params": model.total_params - expert_params}


#: The matrices a tensor-parallel group copies whole on every chip (formulas/engine.py:
#: mla_copied_matrices, dsa_copied_matrices, msa_copied_matrices), by the ends of their names.
_COPIED_MATRICES = ("self_attn.q_a_proj", "self_attn.kv_a_proj_with_mqa",
                    "self_attn.indexer.wq_b", "self_attn.indexer.wk",
                    "self_attn.indexer.weights_proj", "self_attn.index_k_proj",
                    # DeepSeek-V4 (formulas/engine.py: compressed_copied_matrices)
                    "attn.wq_a", "attn.wkv", "attn.compressor.wkv", "attn.compressor.wgate",
                    "attn.indexer.compressor.wkv", "attn.indexer.compressor.wgate",
                    "attn.indexer.wq_b", "attn.indexer.weights_proj",
                    # a latent mixture's projections (latent_copied_matrices)
                    "mlp.routed_expert_down_proj", "mlp.routed_expert_up_proj",
                    "mlp.fc1_latent_proj", "mlp.fc2_latent_proj")
#: The projections whose heads a group copies past one a chip (key/value heads; MiniMax Sparse
#: Attention's index query heads).
_HEAD_MATRICES = ("self_attn.k_proj", "self_attn.v_proj", "self_attn.index_q_proj")


def copy_bits(model: Any, scheme: Scheme, module: bool = False) -> dict[str, Fraction]:
    """Bits per parameter of what a tensor-parallel group copies, class by class, as the
    checkpoint stores it, for the plan's ``native_bits_copy_*`` (with ``module``, those of the
    blocks of the model's multi-token-prediction module, as its checkpoint names and stores
    them, :func:`mtp_tensors`, for ``native_bits_draft_copy_*``; ``{}`` where its names are
    not modelled): ``"heads"``, the key/value
    (and index query) heads' projections copied past one a chip; ``"matrices"``, the matrices
    held whole on every chip (latent down-projections, a sparse-attention indexer's matrices,
    an index key); ``"router"``, the routers with their biases and shared-expert gates (the
    scheme's ``router_bits`` and ``router_bias_bits``, a gate at 16); ``"plain"``, the norms
    and biases, 16, with DeepSeek-V4's fp32 hyper-connection mixers and compressor position
    biases where the scheme keeps them (``fp32_mixers``). Each an exact fraction: the bytes of a whole set of the class over its
    parameters, so that copies of whole sets (every class but the heads) are whole bytes, and
    so are heads where a head's rows fill whole scale blocks. A class the model lacks is
    left out (the plan then prices it at the bits of the other weights).

    DeepSeek-V3 in fp8 with 128 x 128 blocks: q_a_proj (1536 x 7168) and kv_a_proj_with_mqa
    (576 x 7168) at a byte a weight and a 4-byte scale per block (12 x 56 and 5 x 56 blocks);
    its routers in bf16 with an fp32 correction bias:

    >>> from llm_arithmetic import get_model
    >>> m = get_model("deepseek-v3")
    >>> b = copy_bits(m, m.scheme)
    >>> b["matrices"] * (1536 + 576) * 7168 / 8, sorted(b)
    (Fraction(15142624, 1), ['matrices', 'plain', 'router'])
    >>> b["router"] == Fraction(256 * 7168 * 16 + 256 * 32, 256 * 7168 + 256)
    True

    DeepSeek-V4-Flash's module block compresses nothing: of its copied matrices, ``wq_a`` and
    ``wkv`` alone, fp8 blocks with E8M0 scales, where the model's blocks also copy their
    compressors' matrices:

    >>> v4 = get_model("deepseek-v4-flash")
    >>> [round(float(copy_bits(v4, v4.scheme, module=k)["matrices"]), 3) for k in (False, True)]
    [11.275, 8.0]
    """
    if module:
        from .model import stack_blocks

        runs = [run for x in model.mtp_extras() if not x.in_total and x.names in MTP_NAMES
                for run in x.layers]
        if not runs:
            return {}
        blocks = {"blocks": stack_blocks(runs)}
        # a module's matrices under its checkpoint's names, classed by their ends as the
        # decoder's are (the module's input projections match no class: module_copied_params)
        named = [(t, t) for t in mtp_tensors(model)]
    else:
        runs, blocks = list(model.layers), {}
        # classed by the decoder's names (model.layers.N.self_attn, .mlp), priced by the
        # checkpoint's (tensors: Nemotron-H's backbone.layers.N.mixer.*), the same matrices
        named = list(zip(_decoder_tensors(model), tensors(model)))
    out: dict[str, Fraction] = {"plain": Fraction(PLAIN_BITS)}
    if scheme.fp32_mixers:
        # one copy of the plain class, and of it what the checkpoint keeps in fp32 or int64:
        # every copied part's parameters less its matrices and router, the final norm, and the
        # extras held whole (DeepSeek-V4's fp32 hyper-connection head, its int64 hash-routing
        # tables)
        # (a module's step copies the model's final norm and extras as the model's step does)
        copied = sum(x.params for x in model.extras if x.copied)
        plain = (model.evaluate("layer_params_copied", **blocks)
                 - model.evaluate("layer_copied_matrices", **blocks)
                 - model.evaluate("layer_copied_router", **blocks)
                 + model.evaluate("final_norm_params") + copied)
        head = sum(x.params for x in model.extras if x.copied and x.read)
        n32 = _fp32_in(runs, model.d_model, False, 0) + head
        n64 = _hash_table_params(model)
        if plain:
            out["plain"] = Fraction(PLAIN_BITS * plain + (32 - PLAIN_BITS) * n32
                                    + (64 - PLAIN_BITS) * n64, plain)
    if any(run.attention is not None and run.attention.o_groups for run in runs):
        # DeepSeek-V4 copies no key/value head; what its group holds past the heads' share is
        # the attention sinks vLLM pads to 64 a chip, fp32 in its checkpoint
        out["heads"] = Fraction(32 if scheme.fp32_mixers else PLAIN_BITS)
    for key, ends in (("heads", _HEAD_MATRICES), ("matrices", _COPIED_MATRICES)):
        listed = [t for d, t in named if d.name.endswith(ends)]
        n = sum(t.rows * t.cols * t.count for t in listed)
        if n:
            out[key] = 8 * sum((_tensor_bytes(scheme, t) for t in listed), Fraction(0)) / n
    bits = n = Fraction(0)
    for run in runs:
        m = run.mlp
        if m is None or not (m.is_moe or m.n_shared):
            continue
        routed = m.n_experts if m.is_moe else 0
        parts = ((routed * model.d_model, scheme.router_bits),
                 (routed if m.router_bias else 0, scheme.router_bias_bits),
                 (model.d_model if m.shared_gate else 0, PLAIN_BITS))
        bits += run.count * sum(k * b for k, b in parts)
        n += run.count * sum(k for k, _ in parts)
    if n:
        out["router"] = bits / n
    return out


def native_bits(model: Any, scheme: Scheme) -> dict[str, Fraction]:
    """Bits per weight of the three classes the plan reads: ``"experts"`` (the routed
    experts' matrices), ``"unread"`` (the embedding rows a decode step does not read: 16-bit,
    no layout here quantizes an embedding table) and ``"default"`` (everything else), exact
    fractions whose products with the parameter counts give the checkpoint's bytes; and,
    where the checkpoint's multi-token-prediction module is modelled, that module's own
    (``"draft"``, ``"draft_experts"``, ``"draft_inputs"``, ``"draft_blocks"``: :func:`mtp_bits`), and those of what a tensor-parallel
    group copies (``"copy_heads"``, ``"copy_matrices"``, ``"copy_router"``, ``"copy_plain"``:
    :func:`copy_bits`).

    gpt-oss-20b ships its experts in MXFP4 (OCP: 4-bit elements and an 8-bit scale per 32,
    4 + 8/32 = 4.25 bits) and the rest in bf16, its copied key/value heads and routers too:

    >>> from llm_arithmetic import get_model
    >>> m = get_model("gpt-oss-20b")
    >>> native_bits(m, m.scheme)
    {'default': Fraction(16, 1), 'unread': Fraction(16, 1), 'experts': Fraction(17, 4), 'copy_plain': Fraction(16, 1), 'copy_heads': Fraction(16, 1), 'copy_router': Fraction(16, 1)}
    """
    b = shipped_bytes(model, scheme)
    unread = model.evaluate("unread_embedding_params")
    out = {"default": (8 * (b["other"] - Fraction(unread * PLAIN_BITS, 8))
                       / (b["other_params"] - unread)),
           "unread": Fraction(PLAIN_BITS)}
    if b["expert_params"]:
        out["experts"] = 8 * b["experts"] / b["expert_params"]
    draft = mtp_bits(model, scheme)
    if draft:  # the module's copies, and the output head it shares with the model
        draft.update({f"draft_copy_{k}": v
                      for k, v in copy_bits(model, scheme, module=True).items()})
        draft["head"] = head_bits(model, scheme)
    return {**out, **draft,
            **{f"copy_{k}": v for k, v in copy_bits(model, scheme).items()}}


def head_bits(model: Any, scheme: Scheme) -> Fraction:
    """Bits per weight of the output head as the checkpoint stores it: in the scheme's layout
    for ``lm_head`` where the scheme quantizes an untied head (:attr:`Scheme.head`, as
    :func:`shipped_bytes` counts it), else 16 (a tied head is the embedding table, which no
    layout here quantizes). The plan reads a module's shared head at these bits
    (``native_bits_head``).

    DeepSeek-V3's fp8 file leaves ``lm_head`` in bf16; nvidia/Qwen3.6-27B-NVFP4 lists it in
    W4A16 NVFP4 (a byte for two values, an fp8 scale a 16, two fp32 scalars a matrix):

    >>> from llm_arithmetic import get_model
    >>> m = get_model("deepseek-v3")
    >>> head_bits(m, m.scheme)
    Fraction(16, 1)
    """
    if not scheme.head or model.tied:
        return Fraction(PLAIN_BITS)
    n = model.n_vocab * model.d_model
    return 8 * Fraction(scheme.layout("lm_head").matrix_bytes(model.n_vocab, model.d_model)) / n


def mtp_format_kept(model: Any, scheme: Scheme | None) -> bool | None:
    """Whether the checkpoint keeps every matrix of its multi-token-prediction module
    unquantized (:func:`mtp_tensors` matched against the scheme's lists): True where it
    quantizes none of them (NVIDIA's DeepSeek-V3.1-NVFP4, GLM-5.2-NVFP4 and Qwen3.5/3.6 NVFP4
    files), so that its products run at 16 bits whatever the model's format; False where it
    quantizes some (DeepSeek-V3's fp8: the module runs in the model's format); None where the
    checkpoint is not quantized or the module's names are not modelled (:data:`MTP_NAMES`).

    >>> from llm_arithmetic import get_model
    >>> m = get_model("deepseek-v3")
    >>> mtp_format_kept(m, m.scheme), mtp_format_kept(get_model("glm-4.5"), None)
    (False, None)
    """
    listed = list(mtp_tensors(model)) if scheme is not None else []
    if not listed:
        return None
    return not any(_quantized(scheme, t) for t in listed)
