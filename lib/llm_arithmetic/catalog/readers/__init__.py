"""Readers of Hugging Face ``config.json`` files, one per family (``model_type``; for a type the
library does not know, the layout its ``architectures`` names, by :data:`ARCHITECTURES`).

Each reader builds a :class:`~llm_arithmetic.catalog.model.Model` as a stack of layer kinds,
applying the conventions the file leaves implicit: the defaults of the family's configuration
class in ``transformers`` (real files omit defaults: Gemma 3's ``text_config`` lists six keys)
and the layout of its modeling code (biases, norms, q/k norms, which layers are windowed or
mixtures of experts). ``tests/configs/FAMILIES.md`` documents every rule with its source.

Four guarantees:

* **Errors name the field.** A missing, non-integer, non-positive, implausible or
  inconsistent value raises :class:`~llm_arithmetic.core.errors.ConfigError` naming it (and,
  for a plausibility limit, why the limit is there); so do malformed, oversized or too deeply
  nested JSON and an unsupported ``model_type``.
* **A missing layer kind is named.** A file of a family no reader knows is refused naming the
  first layer kind of :data:`FEATURES` it declares (linear attention, an indexer, compressed
  attention, per-layer geometry, ...) and the key that declares it; a known family's file that
  declares one is refused the same way.
* **Never a silently different model.** A key that changes a count but that the family's reader
  does not understand (``moe_intermediate_size`` in a ``mixtral`` file, ``kv_lora_rank`` in a
  ``llama`` file, ``layer_types`` where the reader assumes uniform layers) is an error naming
  the key and what it means.
* **Bounded work.** A config is read up to :data:`MAX_CONFIG_BYTES`; sizes are capped by
  :data:`LIMITS`, so no input makes a count take long or overflow.

The readers live in modules by what they read: :mod:`.base` (the machinery every reader
shares), :mod:`.dense`, :mod:`.classic`, :mod:`.gemma`, :mod:`.moe`, :mod:`.latent`,
:mod:`.hybrid`, :mod:`.per_layer`, :mod:`.multimodal` and :mod:`.omni`; this module dispatches a file to its
family's reader (:data:`FAMILIES`, :data:`ARCHITECTURES`) and reads files.

>>> m = read_config({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
...     "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008})
>>> m.total_params, m.kv_cache_bytes_per_token()
(6738415616, 524288)
>>> read_config({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
...     "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008,
...     "kv_lora_rank": 512})
Traceback (most recent call last):
...
llm_arithmetic.core.errors.ConfigError: config: field 'kv_lora_rank' = 512 (the latent width of multi-head latent attention) is not understood by the 'llama' reader, and counting without it would describe a different model; is the model_type right?
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from importlib import import_module
from typing import Any, Callable, Mapping

from ...core.errors import ConfigError
from ...core.paths import is_dir, is_file
from ..model import Model
from ..quantization import (Scheme, deepseek_v4_scheme, find_scheme, minimax_m3_scheme,
                            native_bits, read_hf_quant)
from .base import (COUNT_KEYS, FAMILIES, FEATURES, LIMITS, MODELLED_BY, NEUTRAL, Reader,
                   architectures_of)

__all__ = ["read_config", "FAMILIES", "SCHEME_ADJUSTERS", "ARCHITECTURES", "FEATURES", "LIMITS",
           "MAX_CONFIG_BYTES", "COUNT_KEYS"]

#: Largest config file read [B]. Most are a few kB (a Llama 4 config is under 10 kB), but a
#: ModelOpt checkpoint lists its quantization per module: nvidia/MiniMax-M3-NVFP4's is 3.1 MB.
MAX_CONFIG_BYTES = 1 << 24

#: Deepest JSON nesting accepted (real configs nest two or three levels).
MAX_DEPTH = 32


def _declared(scope: Mapping[str, Any], key: str) -> Any:
    """The value of a (dotted) key in a config, or None."""
    for part in key.split("."):
        if not isinstance(scope, Mapping):
            return None
        scope = scope.get(part)
    return scope


class _Lazy:
    """A family's reader, its module imported when it is first called: reading one model
    (``describe llama-2-7b``) then imports the readers of its own layout, not all nine modules.
    ``where``: ``"module.function"`` of this package, or ``(module, build)`` where
    ``build(module)`` returns the reader (a reader made by a function of the module)."""

    __slots__ = ("where", "reader")

    def __init__(self, where: str | tuple[str, Callable[[Any], Any]]) -> None:
        self.where = where
        self.reader: Callable[[Reader], dict[str, Any]] | None = None

    def __call__(self, r: Reader) -> dict[str, Any]:
        if self.reader is None:
            if isinstance(self.where, str):
                module, name = self.where.split(".")
                self.reader = getattr(import_module(f"{__name__}.{module}"), name)
            else:
                module, build = self.where
                self.reader = build(import_module(f"{__name__}.{module}"))
        return self.reader(r)

    def __repr__(self) -> str:
        return f"<reader {self.where if isinstance(self.where, str) else self.where[0]}>"


def __getattr__(name: str) -> Any:
    if name == "mllama_image_decode":  # imported from the package, defined with its reader
        from .multimodal import mllama_image_decode
        return mllama_image_decode
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: model_type -> its family's reader, as "module.function" of this package (or the module and
#: what builds the reader from it); :class:`_Lazy` imports the module when a file of the family
#: is first read, so that reading one model does not import every layout's readers.
FAMILIES.update({family: _Lazy(where) for family, where in {
    "llama": "dense.llama", "mistral": "dense.mistral", "mixtral": "moe.mixtral",
    "qwen2": "dense.qwen2", "mimo": "dense.mimo", "qwen3": "dense.qwen3",
    "qwen3_moe": "moe.qwen3_moe", "gemma": "gemma.gemma", "gemma2": "gemma.gemma2",
    "gemma3": "gemma.gemma3", "gemma3_text": "gemma.gemma3_text", "phi3": "dense.phi3",
    "phimoe": "moe.phimoe", "longcat_flash": "latent.longcat_flash", "glm4": "dense.glm4",
    "phi": "classic.phi", "olmo2": "dense.olmo2", "olmoe": "moe.olmoe", "cohere": "dense.cohere",
    "cohere2": "dense.cohere2", "gpt2": "classic.gpt2", "opt": "classic.opt",
    "falcon": "classic.falcon", "gpt_neox": "classic.gpt_neox",
    "gpt_bigcode": "classic.gpt_bigcode", "starcoder2": "classic.starcoder2",
    "deepseek_v2": "latent.deepseek_v2", "deepseek_v3": "latent.deepseek_v3",
    "gpt_oss": "moe.gpt_oss", "llama4": "moe.llama4", "llama4_text": "moe.llama4_text",
    "nemotron_h": "hybrid.nemotron_h", "glm4_moe": "moe.glm4_moe", "minimax_m2": "moe.minimax_m2",
    "minimax_m3": "moe.minimax_m3", "minimax": "hybrid.minimax", "minimax_m1": "hybrid.minimax",
    "minimax_text_01": "hybrid.minimax", "kimi_k25": "multimodal.kimi_k25",
    "kimi_linear": "hybrid.kimi_linear", "kimi_k3": "multimodal.kimi_k3",
    "deepseek_v32": "latent.deepseek_v32", "glm_moe_dsa": "latent.deepseek_v32",
    "laguna": "per_layer.laguna", "mimo_v2_flash": "per_layer.mimo_v2_flash",
    "step3p7": "per_layer.step3p7", "gemma4": "gemma.gemma4", "gemma4_text": "gemma.gemma4_text",
    "gemma3n": "gemma.gemma3n", "gemma3n_text": "gemma.gemma3n_text",
    "deepseek_v4": "latent.deepseek_v4", "mistral3": "multimodal.mistral3",
    "smollm3": "dense.smollm3", "nemotron-nas": "per_layer.nemotron_nas",
    "glm4_moe_lite": "latent.glm4_moe_lite", "seed_oss": "dense.seed_oss",
    "ernie4_5_moe": "moe.ernie4_5_moe", "ernie4_5": "dense.ernie4_5",
    "hunyuan_v1_moe": "moe.hunyuan_v1_moe", "hunyuan_v1_dense": "moe.hunyuan_v1_dense",
    "dots1": "moe.dots1", "bailing_moe_v2": "moe.bailing_moe_v2", "afmoe": "moe.afmoe",
    "arcee": "dense.arcee", "exaone4": "dense.exaone4", "olmo3": "dense.olmo3",
    "apertus": "dense.apertus", "granitemoehybrid": "hybrid.granitemoehybrid",
    "falcon_h1": "hybrid.falcon_h1", "lfm2": ("hybrid", lambda m: m.lfm2_of(moe=False)),
    "lfm2_moe": ("hybrid", lambda m: m.lfm2_of(moe=True)),
    "phi4flash": "hybrid.phi4flash", "jamba": "hybrid.jamba",
    "falcon_mamba": "hybrid.falcon_mamba", "bamba": "hybrid.bamba", "step3_text": "moe.step3_text",
    "minicpm3": "latent.minicpm3", "minicpm": "dense.minicpm", "internlm3": "dense.internlm3",
    "qwen3_vl": ("multimodal", lambda m: m.qwen3_vl_of("qwen3")),
    "qwen3_vl_moe": ("multimodal", lambda m: m.qwen3_vl_of("qwen3_moe")),
    "qwen3_next": ("hybrid", lambda m: m.qwen3_next_of(moe=True)),
    "qwen3_5_text": ("hybrid", lambda m: m.qwen3_next_of(moe=False)),
    "qwen3_5_moe_text": ("hybrid", lambda m: m.qwen3_next_of(moe=True)),
    "qwen3_5": ("multimodal", lambda m: m.qwen3_vl_of(
        "qwen3_5_text",
        "Qwen3.5's vision encoder and merger (Qwen3-VL's, without deepstack mergers)")),
    "qwen3_5_moe": ("multimodal", lambda m: m.qwen3_vl_of(
        "qwen3_5_moe_text",
        "Qwen3.5's vision encoder and merger (Qwen3-VL's, without deepstack mergers)")),
    "grok-1": "moe.grok", "qwen2_moe": "moe.qwen2_moe", "dbrx": "moe.dbrx",
    "granite": "dense.granite", "glm4v_moe": "multimodal.glm4v_moe",
    "glm4v_moe_text": "multimodal.glm4v_moe_text", "ernie4_5_vl_moe": "multimodal.ernie4_5_vl_moe",
    "ernie4_5_vl_moe_text": "multimodal.ernie4_5_vl_moe_text", "kimi_vl": "multimodal.kimi_vl",
    "qwen2_5_vl": ("multimodal", lambda m: m.qwen2_vl_of(
        "qwen2_5_vl_text", "qwen2_5_vl_vision", m.qwen2_5_vl_vision_params,
        "Qwen2.5-VL's window-attention vision encoder and patch merger")),
    "qwen2_5_vl_text": "multimodal.qwen2_vl_text",
    "qwen2_vl": ("multimodal", lambda m: m.qwen2_vl_of(
        "qwen2_vl_text", "qwen2_vl_vision", m.qwen2_vl_vision_params,
        "Qwen2-VL's vision encoder and patch merger")),
    "qwen2_vl_text": "multimodal.qwen2_vl_text", "mllama": "multimodal.mllama",
    "mllama_text_model": "multimodal.mllama_text", "internvl": "multimodal.internvl",
    "llava": "multimodal.llava", "llava_onevision": "multimodal.llava_onevision",
    "exaone": "dense.exaone", "nemotron": "classic.nemotron", "olmo": "classic.olmo",
    "stablelm": "classic.stablelm",
    "qwen3_omni_moe": "omni.qwen3_omni_moe", "qwen2_5_omni": "omni.qwen2_5_omni",
}.items()})

#: model_type -> what completes its checkpoint's scheme (the one :func:`find_scheme` read from
#: ``quantization_config``, None for a file without one) from the file's other fields and
#: what is known of its release, called as ``adjust(scheme, cfg, origin)`` by
#: :func:`read_config`: DeepSeek-V4's ``expert_dtype`` (MXFP4 experts beside fp8 blocks, E8M0
#: scales, fp32 mixers); MiniMax-M3's bf16 release with its routers in fp32. A family not
#: listed ships what its ``quantization_config`` says, or 16-bit weights without one.
SCHEME_ADJUSTERS: Mapping[str, Callable[[Scheme | None, Mapping[str, Any], str],
                                        Scheme | None]] = {
    "deepseek_v4": deepseek_v4_scheme,
    "minimax_m3": minimax_m3_scheme,
}

#: ``architectures`` (the class a runtime loads) -> the reader of the layout it builds, used
#: when the library does not know the file's ``model_type``: Kimi K2 says ``kimi_k2`` and
#: ``DeepseekV3ForCausalLM`` (DeepSeek-V3's layout with 384 experts), and runtimes dispatch
#: on the architecture. A known ``model_type`` wins, so that a relabelled file still meets its
#: reader's refusals.
ARCHITECTURES: Mapping[str, str] = {
    "LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral",
    "MixtralForCausalLM": "mixtral", "Qwen2ForCausalLM": "qwen2", "Qwen3ForCausalLM": "qwen3",
    "Qwen3MoeForCausalLM": "qwen3_moe", "GemmaForCausalLM": "gemma",
    "Gemma2ForCausalLM": "gemma2", "Gemma3ForCausalLM": "gemma3_text",
    "Gemma3ForConditionalGeneration": "gemma3", "Phi3ForCausalLM": "phi3",
    "PhiMoEForCausalLM": "phimoe", "Olmo2ForCausalLM": "olmo2", "OlmoeForCausalLM": "olmoe",
    "DeepseekV2ForCausalLM": "deepseek_v2", "DeepseekV3ForCausalLM": "deepseek_v3",
    "GptOssForCausalLM": "gpt_oss", "Llama4ForConditionalGeneration": "llama4",
    "NemotronHForCausalLM": "nemotron_h", "Glm4MoeForCausalLM": "glm4_moe",
    "MiniMaxM2ForCausalLM": "minimax_m2", "KimiK25ForConditionalGeneration": "kimi_k25",
    "MiniMaxM3ForCausalLM": "minimax_m3", "MiniMaxM3SparseForCausalLM": "minimax_m3",
    "MiniMaxForCausalLM": "minimax", "MiniMaxM1ForCausalLM": "minimax_m1",
    "MiniMaxText01ForCausalLM": "minimax_text_01",
    "KimiK3ForConditionalGeneration": "kimi_k3",
    "Qwen3VLForConditionalGeneration": "qwen3_vl",
    "Qwen3VLMoeForConditionalGeneration": "qwen3_vl_moe",
    "DeepseekV32ForCausalLM": "deepseek_v32", "GlmMoeDsaForCausalLM": "glm_moe_dsa",
    "LagunaForCausalLM": "laguna", "MiMoV2FlashForCausalLM": "mimo_v2_flash",
    "Qwen3NextForCausalLM": "qwen3_next", "Qwen3_5ForConditionalGeneration": "qwen3_5",
    "Qwen3_5MoeForConditionalGeneration": "qwen3_5_moe",
    "Gemma4ForConditionalGeneration": "gemma4", "Gemma4ForCausalLM": "gemma4_text",
    "Gemma3nForConditionalGeneration": "gemma3n", "Gemma3nForCausalLM": "gemma3n_text",
    "DeepseekV4ForCausalLM": "deepseek_v4", "KimiLinearForCausalLM": "kimi_linear",
    "Mistral3ForConditionalGeneration": "mistral3", "SmolLM3ForCausalLM": "smollm3",
    "GPTNeoXForCausalLM": "gpt_neox", "Step3p7FlashForCausalLM": "step3p7",
    "GPTBigCodeForCausalLM": "gpt_bigcode", "Starcoder2ForCausalLM": "starcoder2",
    "MiMoForCausalLM": "mimo", "DeciLMForCausalLM": "nemotron-nas",
    "Glm4MoeLiteForCausalLM": "glm4_moe_lite", "SeedOssForCausalLM": "seed_oss",
    "Ernie4_5_MoeForCausalLM": "ernie4_5_moe", "HunYuanMoEV1ForCausalLM": "hunyuan_v1_moe",
    "HunYuanForCausalLM": "hunyuan_v1_moe",
    "Ernie4_5ForCausalLM": "ernie4_5", "Ernie4_5_ForCausalLM": "ernie4_5",
    "HunYuanDenseV1ForCausalLM": "hunyuan_v1_dense",
    "Dots1ForCausalLM": "dots1", "Exaone4ForCausalLM": "exaone4", "Olmo3ForCausalLM": "olmo3",
    "ApertusForCausalLM": "apertus",
    "GraniteMoeHybridForCausalLM": "granitemoehybrid", "FalconH1ForCausalLM": "falcon_h1",
    "Lfm2ForCausalLM": "lfm2", "Lfm2MoeForCausalLM": "lfm2_moe",
    "Phi4FlashForCausalLM": "phi4flash", "BailingMoeV2ForCausalLM": "bailing_moe_v2",
    "AfmoeForCausalLM": "afmoe", "ArceeForCausalLM": "arcee", "JambaForCausalLM": "jamba",
    "FalconMambaForCausalLM": "falcon_mamba", "BambaForCausalLM": "bamba",
    "Grok1ForCausalLM": "grok-1", "Grok1ModelForCausalLM": "grok-1",
    "Qwen2MoeForCausalLM": "qwen2_moe", "DbrxForCausalLM": "dbrx",
    "GraniteForCausalLM": "granite",
    "Step3TextForCausalLM": "step3_text",
    "MiniCPM3ForCausalLM": "minicpm3",
    "MiniCPMForCausalLM": "minicpm",
    "InternLM3ForCausalLM": "internlm3",
    "Glm4vMoeForConditionalGeneration": "glm4v_moe",
    "Ernie4_5_VLMoeForConditionalGeneration": "ernie4_5_vl_moe",
    "KimiVLForConditionalGeneration": "kimi_vl",
    "Qwen2_5_VLForConditionalGeneration": "qwen2_5_vl",
    "Qwen2VLForConditionalGeneration": "qwen2_vl",
    "MllamaForConditionalGeneration": "mllama",
    "InternVLForConditionalGeneration": "internvl",
    "LlavaForConditionalGeneration": "llava",
    "LlavaOnevisionForConditionalGeneration": "llava_onevision",
    "ExaoneForCausalLM": "exaone",
    "NemotronForCausalLM": "nemotron",
    "OlmoForCausalLM": "olmo",
    "StableLmForCausalLM": "stablelm",
    "Qwen3OmniMoeForConditionalGeneration": "qwen3_omni_moe",
    "Qwen2_5OmniForConditionalGeneration": "qwen2_5_omni", "Qwen2_5OmniModel": "qwen2_5_omni",
}


def _scope_family(scope: Mapping[str, Any]) -> str | None:
    """The family a config (or a wrapped language model's config) names: its ``model_type``, or
    else the family of its first ``architectures`` entry (a wrapper's text_config may name only
    that: MiniMax-M3-VL's ``MiniMaxM3SparseForCausalLM``)."""
    if isinstance(scope.get("model_type"), str):
        return scope["model_type"]
    archs = architectures_of(scope)
    return ARCHITECTURES.get(archs[0]) if archs else None


def _missing_feature(cfg: Mapping[str, Any]) -> str:
    """The layer kinds of :data:`FEATURES` the file (or a wrapped language model) declares,
    in that order, as "it needs <feature>, declared by field 'key'" (the first one; the others
    follow, "; and <feature>, field 'key'"), or what else it lacks."""
    scopes = [("", cfg)] + [(f"{k}.", cfg[k]) for k in ("text_config", "language_config",
                                                       "llm_config")
                            if isinstance(cfg.get(k), dict)]
    found: list[str] = []
    for key, feature in FEATURES:
        for prefix, scope in scopes:
            if _scope_family(scope) in MODELLED_BY.get(key, ()):
                continue
            if _declared(scope, key) not in NEUTRAL:
                found.append(f"{feature}, declared by field '{prefix}{key}'" if not found
                             else f"{feature}, field '{prefix}{key}'")
                break
        types = [scope.get("layer_types") for _, scope in scopes]
        if key == "linear_num_value_heads" and not found and any(
                isinstance(t, list) and "linear_attention" in t for t in types):
            found.append(f"{feature}, declared by 'linear_attention' in field 'layer_types'")
    if found:
        return "it needs " + "; and ".join(found)
    for prefix, scope in scopes:
        if isinstance(scope.get("vision_config"), dict) and prefix == "":
            return "it needs a vision tower the library does not count"
    return "no reader knows its layout"


# ---- reading files ------------------------------------------------------------------------------
def _depth(obj: Any, limit: int = MAX_DEPTH) -> int:
    stack = [(obj, 1)]
    deepest = 0
    while stack:
        o, dpt = stack.pop()
        deepest = max(deepest, dpt)
        if deepest > limit:
            return deepest
        if isinstance(o, dict):
            stack.extend((v, dpt + 1) for v in o.values())
        elif isinstance(o, list):
            stack.extend((v, dpt + 1) for v in o)
    return deepest


def _parse(text: str, origin: str) -> dict[str, Any]:
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"malformed JSON in {origin}: {e.msg} at line {e.lineno} column "
                          f"{e.colno}") from None
    except RecursionError:
        raise ConfigError(f"{origin}: JSON nested too deeply (real configs nest a few "
                          "levels)") from None
    except ValueError as e:  # e.g. an integer of thousands of digits
        raise ConfigError(f"{origin}: unreadable JSON value ({str(e)[:80]})") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{origin}: expected a JSON object, got {type(cfg).__name__}")
    if _depth(cfg) > MAX_DEPTH:
        raise ConfigError(f"{origin}: JSON nested more than {MAX_DEPTH} levels deep")
    return cfg


def _plain(path: str) -> bool:
    """Whether ``str(Path(path)) == path``, told without importing pathlib: a POSIX path with
    no empty, ``.`` or trailing part (a catalog model's config; a user's "./config.json" is
    read through pathlib, as before).

    >>> [_plain(p) for p in ("a/config.json", "/a/b", "a//b", "./a", "a/", "//a", ".", "")]
    [True, True, False, False, False, False, False, False]
    """
    if os.sep != "/" or not path or path.startswith("//"):
        return False
    return all(part not in ("", ".") for part in path.removeprefix("/").split("/"))


def _path_text(config: str | os.PathLike[str]) -> str:
    """``str(Path(config))``."""
    if isinstance(config, str) and _plain(config):
        return config
    from pathlib import Path

    return str(Path(config))


def _in_folder(folder: str, name: str) -> str:
    """``str(Path(folder) / name)`` for a path as :func:`_path_text` gives it."""
    return name if folder == "." else os.path.join(folder, name)


def _read_text(config: str | os.PathLike[str]) -> tuple[str, str]:
    if str(config) == "-":
        data = sys.stdin.buffer.read(MAX_CONFIG_BYTES + 1) if hasattr(sys.stdin, "buffer") \
            else sys.stdin.read(MAX_CONFIG_BYTES + 1).encode()
        origin = "<stdin>"
    else:
        path = origin = _path_text(config)
        if is_dir(path):
            if not is_file(_in_folder(path, "config.json")):
                raise ConfigError(f"{path} is a folder with no config.json in it")
            path = origin = _in_folder(path, "config.json")
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_CONFIG_BYTES + 1)
        except FileNotFoundError:
            raise ConfigError(f"no such config file: {path}") from None
        except (OSError, ValueError) as e:
            raise ConfigError(f"cannot read {path}: {e}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{origin}: larger than {MAX_CONFIG_BYTES >> 20} MiB; a config.json "
                          "is a few kB, a few MB with a per-module quantization list")
    try:
        return data.decode("utf-8"), origin
    except UnicodeDecodeError:
        raise ConfigError(f"{origin}: not UTF-8 text (is it a config.json?)") from None


def _hf_quant_scheme(text: str, origin: str) -> Scheme:
    """The scheme of a ModelOpt ``hf_quant_config.json`` (its text, its path), read as the
    ``quantization_config`` it stands for (:func:`~llm_arithmetic.catalog.quantization.
    read_hf_quant`); an error names the field as the file spells it (``quantization.X``).
    """
    return read_hf_quant(_parse(text, origin), origin)


def read_config(config: Any, name: str | None = None, source: str = "") -> Model:
    """A :class:`Model` from a Hugging Face config: a path (or a folder holding
    ``config.json``), ``"-"`` for standard input, or the parsed dict. A ``config.json`` without
    a ``quantization_config`` beside a ModelOpt ``hf_quant_config.json`` (NVIDIA's NVFP4
    checkpoints) takes its scheme from that file, as vLLM and TensorRT-LLM load it.

    Raises :class:`ConfigError` naming the field for a missing, non-integer, non-positive,
    implausible or inconsistent value, for a key its family's reader does not understand, for
    malformed, oversized or too deeply nested JSON and for an unsupported ``model_type``.
    """
    quant_file = None
    if isinstance(config, Mapping):
        cfg = dict(config)
        origin = name or "config"
    else:
        text, origin = _read_text(config)
        cfg = _parse(text, origin)
        folder, file = os.path.split(origin)  # Path(origin).parent and .name
        beside = os.path.join(folder, "hf_quant_config.json")  # .with_name(...)
        if origin != "<stdin>" and file == "config.json" and is_file(beside):
            quant_file = _read_text(beside)
        if not source and origin != "<stdin>":
            source = origin
        if name is None:
            from pathlib import Path

            p = Path(origin)
            name = p.parent.name if p.name == "config.json" else p.stem
    family = cfg.get("model_type")
    if family is None:
        raise ConfigError(f"{origin}: missing field 'model_type'")
    if not isinstance(family, str):
        raise ConfigError(f"{origin}: field 'model_type' must be a string, got {family!r:.40}")
    archs = architectures_of(cfg)
    if family not in FAMILIES:
        family = next((ARCHITECTURES[a] for a in archs if a in ARCHITECTURES), family)
    if family not in FAMILIES:
        named = f", architectures {archs!r:.80}" if archs else ""
        raise ConfigError(f"{origin}: unsupported model_type {family!r:.60}{named}: "
                          f"{_missing_feature(cfg)} (supported: {', '.join(sorted(FAMILIES))})")
    reader = Reader(cfg, origin, family)
    kw = FAMILIES[family](reader)
    reader.check_unread()
    scheme = find_scheme(cfg, origin)
    listed_in = None  # the file that holds the scheme's record, where not config.json
    if scheme is None and quant_file is not None:
        scheme = _hf_quant_scheme(*quant_file)
        listed_in = quant_file[1]
    adjust = SCHEME_ADJUSTERS.get(family)
    if adjust is not None:
        scheme = adjust(scheme, cfg, origin)
    model = Model(name=name or family, family=family, source=source, **kw)
    if scheme is None:
        return model
    try:
        bits = native_bits(model, scheme)
    except ConfigError as e:
        if listed_in is None:
            raise
        # a refusal of hf_quant_config.json's lists names that file and its fields as it spells
        # them (quantization.X), as _hf_quant_scheme's errors do
        text = str(e).removeprefix(f"{model.name}: ")
        raise ConfigError(f"{listed_in}: " + text.replace("'quantization_config.",
                                                          "'quantization.")) from None
    return replace(model, native_bits=bits, scheme=scheme)
