"""Independent ground truth for parameter counts: instantiate every vendored ``config.json``
(``tests/configs``, its ``reconstructed`` folder and the catalog's) on
PyTorch's meta device with the transformers release that defines the family, and write the
parameter and persistent-buffer counts to ``tests/data/ground_truth.json``.

Not part of ``make test`` and not imported by the package: it needs torch and transformers,
pinned in ``scripts/ground_truth/requirements.txt``. Build that environment outside the
repository and run it from the repository root::

    python3 -m venv /tmp/gt-venv
    /tmp/gt-venv/bin/pip install -r scripts/ground_truth/requirements.txt
    /tmp/gt-venv/bin/python scripts/ground_truth/count.py

Given paths (``count.py tests/configs/a.json ...``) it counts only those files and merges
them into the existing data, leaving every other entry as it is; the versions must match the
ones the data was written with.

What is counted, per file:

* ``params``: ``sum(p.numel() for p in model.parameters())``; a tied output head is one tensor
  and counted once (what transformers reports);
* ``persistent_buffers``: elements of the buffers that ``state_dict()`` saves (DeepSeek-V3's
  ``e_score_correction_bias``, for example); non-persistent ones (rotary ``inv_freq``) are
  reported apart as ``nonpersistent_buffers``;
* ``config_mismatch``: sizes the file states that the built model does not hold (file, built):
  the count is then not the file's and no test may use it;
* ``routed_expert_params``: parameters of the routed experts (tensors under a module named
  ``experts``; ``shared_experts`` is another name), recorded where a model has them, so that
  the parameters one token uses follow from the meta count alone: a top-k of E experts uses
  k/E of them;
* ``by_prefix``: parameters grouped by the first two components of their names
  (``model.language_model``, ``model.visual``, ``lm_head``, ...), so that a multimodal file's
  language model can be compared alone.

The class is the one the file's ``architectures`` names when transformers defines it, else the
causal-LM (then image-text-to-text) class for its ``model_type``. A ``model_type`` transformers
does not define is read with the configuration class of the architecture the file names (Kimi K2:
``DeepseekV3ForCausalLM``), or with the type :data:`TYPE_ALIASES` names for it, and the file says
so in ``how``. Nothing is downloaded and no
repository code (``auto_map``) is run; a file transformers cannot instantiate is recorded with
the reason in ``error``.
"""
from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

import torch
import transformers
from transformers import AutoModelForCausalLM
from transformers.models.auto.configuration_auto import CONFIG_MAPPING
from transformers.models.auto.modeling_auto import (MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
                                                    MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES)

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "ground_truth.json"


def config_files() -> list[Path]:
    files = sorted((ROOT / "tests" / "configs").glob("*.json"))
    files += sorted((ROOT / "tests" / "configs" / "reconstructed").glob("*.json"))
    files += sorted((ROOT / "lib" / "llm_arithmetic" / "catalog" / "data" / "models")
                    .glob("*/config.json"))
    return files


#: model_type -> the type transformers defines the same model under, where neither the file's
#: type nor its architecture is a transformers name. MiniMax-M3: the vendored file is a flat copy
#: of the Hub checkpoint's ``text_config`` (the checkpoint is ``minimax_m3_vl``), whose text model
#: transformers defines as ``minimax_m3_vl_text`` (``MiniMaxM3VLForCausalLM``).
TYPE_ALIASES = {"minimax_m3": "minimax_m3_vl_text", "minimax_m1": "minimax",
                "minimax_text_01": "minimax"}

#: model_type -> {a key of the file: the key transformers reads the same field under}, where
#: a file written for the publisher's remote code names a field otherwise. Hunyuan-A13B's
#: remote-code file (``model_type`` "hunyuan") gives the head width as ``attention_head_dim``;
#: transformers' ``HunYuanMoEV1Config`` reads ``head_dim`` (and without it fails to build).
KEY_ALIASES = {"hunyuan": {"attention_head_dim": "head_dim"}}

#: architecture -> the model_type transformers builds the nearest class under, where it defines
#: no class of that name. Hunyuan-Large's remote-code class ``HunYuanForCausalLM`` is built as
#: ``hunyuan_v1_moe``, whose class reads neither ``use_cla`` nor ``cla_share_factor``: it gives
#: every layer its k_proj and v_proj, which the checkpoint's sharing layers do not hold, so the
#: count exceeds the checkpoint's by those tensors (tests/configs/FAMILIES.md, Hunyuan-Large).
ARCH_ALIASES = {"HunYuanForCausalLM": "hunyuan_v1_moe"}

#: model_type -> the transformers class that builds the whole checkpoint, where the file names an
#: architecture transformers does not define and the type has neither a causal-LM nor an
#: image-text class: Qwen2.5-Omni's file says ``Qwen2_5OmniModel`` (transformers 4.50's name),
#: whose checkpoint (thinker, talker, token2wav) 5.24.0 builds as
#: ``Qwen2_5OmniForConditionalGeneration``.
CLASS_FOR_TYPE = {"qwen2_5_omni": "Qwen2_5OmniForConditionalGeneration"}
#: MiniMax's lightning/softmax pattern: 0 a lightning-attention layer, 1 a softmax one (vLLM's
#: minimax_text_01.py maps transformers' layer_types the same way).
_MINIMAX_TYPES = {0: "linear_attention", 1: "full_attention"}

#: model_type -> {a key of the file: (the key transformers reads, how the value converts)}:
#: MiniMax-M1 and MiniMax-Text-01's remote-code files give the layer pattern as
#: ``attn_type_list`` (0/1); transformers' ``MiniMaxConfig`` reads ``layer_types`` (and without
#: it builds alternating layers).
KEY_CONVERSIONS = {t: {"attn_type_list": ("layer_types",
                                          lambda v: [_MINIMAX_TYPES[x] for x in v])}
                   for t in ("minimax_m1", "minimax_text_01")}


def type_for_architecture(arch: str) -> str | None:
    """The model_type whose causal-LM or image-text class is named ``arch``."""
    for table in (MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES):
        for model_type, name in table.items():
            if name == arch:
                return model_type
    return None


def build(cfg: dict) -> tuple[torch.nn.Module, str]:
    model_type = cfg.get("model_type")
    archs = cfg.get("architectures") or []
    how = []
    if model_type not in CONFIG_MAPPING and model_type in TYPE_ALIASES:
        alias = TYPE_ALIASES[model_type]
        how.append(f"model_type {model_type!r} is not defined; read as {alias!r}, the type "
                   "transformers defines the same model under (TYPE_ALIASES)")
        model_type = alias
    elif model_type not in CONFIG_MAPPING:
        alias = next((t for t in map(type_for_architecture, archs) if t), None)
        arch = next((a for a in archs if a in ARCH_ALIASES), None)
        if alias is None and arch is not None:
            how.append(f"model_type {model_type!r} and architecture {arch!r} are not defined; "
                       f"read as {ARCH_ALIASES[arch]!r} (ARCH_ALIASES)")
            model_type = ARCH_ALIASES[arch]
        elif alias is None:
            raise LookupError(f"transformers {transformers.__version__} defines neither "
                              f"model_type {model_type!r} nor the architectures {archs}")
        else:
            how.append(f"model_type {model_type!r} is not defined; read as {alias!r}, the type "
                       f"of the architecture {archs[0]!r} the file names")
            model_type = alias
    body = {k: v for k, v in cfg.items() if k not in ("model_type", "auto_map")}
    for key, alias in KEY_ALIASES.get(cfg.get("model_type"), {}).items():
        if key in body and alias not in body:
            body[alias] = body[key]
            how.append(f"'{key}' read as '{alias}', the key transformers reads (KEY_ALIASES)")
    if model_type == "hunyuan_v1_moe" and body.get("head_dim") is None \
            and "attention_head_dim" not in body:
        # Hunyuan-Large's remote code takes head_dim = hidden_size // num_attention_heads;
        # HunYuanMoEV1Config leaves it None and the rotary setup then fails
        body["head_dim"] = body["hidden_size"] // body["num_attention_heads"]
        how.append("head_dim = hidden_size // num_attention_heads, the remote code's rule")
    for key, (alias, convert) in KEY_CONVERSIONS.get(cfg.get("model_type"), {}).items():
        if key in body and alias not in body:
            body[alias] = convert(body.pop(key))
            how.append(f"'{key}' read as '{alias}' (KEY_CONVERSIONS)")
    config = CONFIG_MAPPING[model_type].from_dict(body)
    cls = next((getattr(transformers, a) for a in archs if hasattr(transformers, a)), None)
    if cls is None and model_type in CLASS_FOR_TYPE:
        cls = getattr(transformers, CLASS_FOR_TYPE[model_type])
    with torch.device("meta"):
        if cls is not None:
            how.append(f"{cls.__name__}(config)")
            model = cls(config)
        elif model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
            how.append("AutoModelForCausalLM.from_config")
            model = AutoModelForCausalLM.from_config(config)
        else:
            name = MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES[model_type]
            how.append(f"{name}(config)")
            model = getattr(transformers, name)(config)
    return model, "; ".join(how)


def mismatches(cfg: dict, model: torch.nn.Module) -> dict:
    """Sizes the file states that the built model's (text) configuration does not hold: a class
    that reads a flat file as a wrapper can fall back to its defaults, and then the count is
    not the file's."""
    text = model.config.get_text_config()
    stated = {**cfg, **(cfg.get("text_config") or {})}
    out = {}
    for key in ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                "intermediate_size"):
        if key in stated and getattr(text, key, stated[key]) != stated[key]:
            out[key] = [stated[key], getattr(text, key)]
    return out


def count(model: torch.nn.Module) -> dict:
    params = 0
    by_prefix: Counter[str] = Counter()
    routed = 0
    for name, p in model.named_parameters():  # shared (tied) tensors once
        params += p.numel()
        if "experts" in name.split("."):
            routed += p.numel()
        by_prefix[".".join(name.split(".")[:2])] += p.numel()
    persistent = nonpersistent = 0
    names: Counter[str] = Counter()
    for mod_name, module in model.named_modules():
        for b_name, buf in module.named_buffers(recurse=False):
            if buf is None:
                continue
            if b_name in module._non_persistent_buffers_set:
                nonpersistent += buf.numel()
            else:
                persistent += buf.numel()
                names[b_name] += buf.numel()
    return {"params": params, "persistent_buffers": persistent,
            "persistent_buffer_names": dict(sorted(names.items())),
            "nonpersistent_buffers": nonpersistent, "by_prefix": dict(sorted(by_prefix.items())),
            **({"routed_expert_params": routed} if routed else {})}


def reason(e: Exception) -> str:
    """The exception's type and its first non-blank line (an ImportError's message may open
    with a blank one)."""
    first = next((line.strip() for line in str(e).splitlines() if line.strip()), "")
    return f"{type(e).__name__}: {first[:300]}"


def text_only(text: dict) -> dict:
    """The count of a wrapper's language model alone (its ``text_config`` with the causal-LM
    class of its type), where the wrapper itself cannot be built here: Gemma 3n's vision
    tower is a timm network (``TimmWrapperModel``), and timm, torchvision and PIL are not in
    this environment. The entry then holds the error and, beside it, ``text_config``: this
    count (and, for Gemma 3n, ``towers``: :func:`gemma3n_towers`)."""
    try:
        model, how = build(text)
        return {"text_config": {"how": how + "; text_config alone (the wrapper failed: "
                                       "see error)",
                                **count(model)}}
    except Exception as e:
        return {"text_config": {"error": reason(e)}}


def gemma3n_towers(cfg: dict) -> dict:
    """What of a Gemma 3n wrapper builds without timm: the audio encoder
    (``Gemma3nAudioEncoder``) and the two multimodal embedders (``embed_audio``,
    ``embed_vision``), each counted as :func:`count` counts a model. The timm vision tower is
    counted by ``scripts/ground_truth/count_timm.py`` instead."""
    from transformers.models.gemma3n.modeling_gemma3n import (Gemma3nAudioEncoder,
                                                              Gemma3nMultimodalEmbedder)
    try:
        config = transformers.Gemma3nConfig.from_dict(cfg)
        with torch.device("meta"):
            parts = {"audio_tower": Gemma3nAudioEncoder(config.audio_config),
                     "embed_audio": Gemma3nMultimodalEmbedder(config.audio_config,
                                                              config.text_config),
                     "embed_vision": Gemma3nMultimodalEmbedder(config.vision_config,
                                                               config.text_config)}
        return {"towers": {name: count(m) for name, m in parts.items()}}
    except Exception as e:
        return {"towers": {"error": reason(e)}}


def main(argv: list[str]) -> int:
    torch.set_default_dtype(torch.bfloat16)
    out = {"transformers": transformers.__version__, "torch": torch.__version__,
           "method": "model class instantiated on torch.device('meta'); params = sum over "
                     "model.parameters() (tied tensors once); persistent_buffers = elements "
                     "of the buffers state_dict() saves",
           "models": {}}
    files = config_files()
    if argv:  # only these files, merged into the data as it stands
        old = json.loads(OUT.read_text())
        if (old["transformers"], old["torch"]) != (out["transformers"], out["torch"]):
            raise SystemExit(f"{OUT} was written with transformers {old['transformers']} and "
                             f"torch {old['torch']}: rerun every file instead")
        out["models"] = old["models"]
        files = [Path(a).resolve() for a in argv]
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        cfg = json.loads(path.read_text())
        t0 = time.perf_counter()
        try:
            model, how = build(cfg)
            entry = {"model_type": cfg.get("model_type"), "how": how, **count(model)}
            wrong = mismatches(cfg, model)
            if wrong:  # the count is not the file's: say so beside it
                entry["config_mismatch"] = wrong
            del model
        except Exception as e:  # recorded, not hidden: the reason is the data
            entry = {"model_type": cfg.get("model_type"), "error": reason(e)}
            if isinstance(cfg.get("text_config"), dict):
                entry.update(text_only(cfg["text_config"]))
            if cfg.get("model_type") == "gemma3n":
                entry.update(gemma3n_towers(cfg))
        print(f"{rel}: {entry.get('params', entry.get('error'))} "
              f"({time.perf_counter() - t0:.1f} s)", flush=True)
        out["models"][rel] = entry
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
