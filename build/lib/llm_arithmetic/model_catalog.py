"""The models the source articles use, and a few current ones, each with its source.

Every entry is the architecture part of the model's Hugging Face ``config.json`` (field names
as there), read through :meth:`Model.from_hf_config` so the catalog and user configs take the
same path. ``articles`` lists the bibliography keys of the articles that use the model.

>>> get_model("llama-2-7b").total_params
6738415616
>>> get_model("mistral-7b").kv_bytes_per_token()
131072
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from ._lookup import lookup
from typing import Any, Mapping

from .models import Model

__all__ = ["CatalogEntry", "MODELS", "CATALOG", "get_model", "model_names"]

HF = "https://huggingface.co/{}/blob/main/config.json"


@dataclass(frozen=True)
class CatalogEntry:
    model: Model
    url: str
    articles: tuple[str, ...] = ()
    notes: str = ""


def _llama1(d: int, ff: int, h: int, layers: int) -> dict[str, Any]:
    return {"model_type": "llama", "vocab_size": 32000, "hidden_size": d,
            "intermediate_size": ff, "num_attention_heads": h, "num_hidden_layers": layers,
            "max_position_embeddings": 2048, "tie_word_embeddings": False}


def _llama2(d: int, ff: int, h: int, kv: int, layers: int) -> dict[str, Any]:
    return {"model_type": "llama", "vocab_size": 32000, "hidden_size": d,
            "intermediate_size": ff, "num_attention_heads": h, "num_key_value_heads": kv,
            "num_hidden_layers": layers, "max_position_embeddings": 4096,
            "tie_word_embeddings": False}


_LLAMA_NOTE = ("LLaMA (Touvron et al. 2023, arXiv:2302.13971) Table 2 gives d, heads and "
               "layers; intermediate size from the converted checkpoint's config.")

_ENTRIES: list[tuple[str, dict[str, Any], str, tuple[str, ...], str]] = [
    # name, config, url, articles, notes
    ("llama-7b", _llama1(4096, 11008, 32, 32), HF.format("huggyllama/llama-7b"),
     ("finbarr2023llamacpp", "karpathy2023note", "calm2024sol"),
     _LLAMA_NOTE + " Published as 6.7B; finbarr's table rounds it to 7B."),
    ("llama-13b", _llama1(5120, 13824, 40, 40), HF.format("huggyllama/llama-13b"),
     ("finbarr2023llamacpp", "calm2024sol"), _LLAMA_NOTE + " Published as 13.0B."),
    ("llama-33b", _llama1(6656, 17920, 52, 60), HF.format("huggyllama/llama-30b"),
     ("finbarr2023llamacpp",), _LLAMA_NOTE + " Published as 32.5B (released as 'LLaMA-30B')."),
    ("llama-65b", _llama1(8192, 22016, 64, 80), HF.format("huggyllama/llama-65b"),
     ("finbarr2023llamacpp",), _LLAMA_NOTE + " Published as 65.2B."),
    ("llama-2-7b", _llama2(4096, 11008, 32, 32, 32), HF.format("meta-llama/Llama-2-7b-hf"),
     ("baseten2023guide",), "Llama 2 (Touvron et al. 2023, arXiv:2307.09288)."),
    ("llama-2-13b", _llama2(5120, 13824, 40, 40, 40), HF.format("meta-llama/Llama-2-13b-hf"),
     ("calm2024sol",), "Llama 2 13B."),
    ("llama-2-70b", _llama2(8192, 28672, 64, 8, 80), HF.format("meta-llama/Llama-2-70b-hf"),
     ("calm2024sol",), "Llama 2 70B: grouped-query attention, 8 KV heads."),
    ("mistral-7b", {"model_type": "mistral", "vocab_size": 32000, "hidden_size": 4096,
                    "intermediate_size": 14336, "num_attention_heads": 32,
                    "num_key_value_heads": 8, "num_hidden_layers": 32,
                    "max_position_embeddings": 32768, "sliding_window": 4096,
                    "tie_word_embeddings": False},
     HF.format("mistralai/Mistral-7B-v0.1"), ("kapoulkine2024sol", "calm2024sol"),
     "Mistral 7B v0.1 (Jiang et al. 2023, arXiv:2310.06825): GQA, 4096-token sliding window."),
    ("mixtral-8x7b", {"model_type": "mixtral", "vocab_size": 32000, "hidden_size": 4096,
                      "intermediate_size": 14336, "num_attention_heads": 32,
                      "num_key_value_heads": 8, "num_hidden_layers": 32,
                      "num_local_experts": 8, "num_experts_per_tok": 2,
                      "max_position_embeddings": 32768, "tie_word_embeddings": False},
     HF.format("mistralai/Mixtral-8x7B-v0.1"), ("kapoulkine2024sol",),
     "Mixtral of Experts (Jiang et al. 2024, arXiv:2401.04088): 8 experts, 2 per token."),
    ("command-r", {"model_type": "cohere", "vocab_size": 256000, "hidden_size": 8192,
                   "intermediate_size": 22528, "num_attention_heads": 64,
                   "num_key_value_heads": 64, "num_hidden_layers": 40,
                   "max_position_embeddings": 8192, "tie_word_embeddings": True,
                   "use_qk_norm": False},
     HF.format("CohereForAI/c4ai-command-r-v01"), ("kapoulkine2024sol",),
     "Command-R v01: no GQA (64 KV heads), tied 256K-entry embedding. Cohere advertises a "
     "128K-token context; the config's max_position_embeddings is 8192."),
    ("llama-3-8b", {"model_type": "llama", "vocab_size": 128256, "hidden_size": 4096,
                    "intermediate_size": 14336, "num_attention_heads": 32,
                    "num_key_value_heads": 8, "num_hidden_layers": 32,
                    "max_position_embeddings": 8192, "tie_word_embeddings": False},
     HF.format("meta-llama/Meta-Llama-3-8B"), (), "A current model: Llama 3 8B."),
    ("qwen2.5-7b", {"model_type": "qwen2", "vocab_size": 152064, "hidden_size": 3584,
                    "intermediate_size": 18944, "num_attention_heads": 28,
                    "num_key_value_heads": 4, "num_hidden_layers": 28,
                    "max_position_embeddings": 131072, "tie_word_embeddings": False},
     HF.format("Qwen/Qwen2.5-7B"), (), "A current model: Qwen2.5 7B (q/k/v biases)."),
    ("gemma-2-9b", {"model_type": "gemma2", "vocab_size": 256000, "hidden_size": 3584,
                    "intermediate_size": 14336, "num_attention_heads": 16,
                    "num_key_value_heads": 8, "head_dim": 256, "num_hidden_layers": 42,
                    "max_position_embeddings": 8192, "sliding_window": 4096},
     HF.format("google/gemma-2-9b"), (),
     "A current model: Gemma 2 9B (explicit head_dim, 4 norms per block, tied)."),
    ("phi-3-mini", {"model_type": "phi3", "vocab_size": 32064, "hidden_size": 3072,
                    "intermediate_size": 8192, "num_attention_heads": 32,
                    "num_key_value_heads": 32, "num_hidden_layers": 32,
                    "max_position_embeddings": 4096, "sliding_window": 2047,
                    "tie_word_embeddings": False},
     HF.format("microsoft/Phi-3-mini-4k-instruct"), (),
     "Phi-3-mini 4K (fused projections; its config sets a 2047-token sliding window)."),
    ("phi-2", {"model_type": "phi", "vocab_size": 51200, "hidden_size": 2560,
               "intermediate_size": 10240, "num_attention_heads": 32, "num_hidden_layers": 32,
               "max_position_embeddings": 2048, "tie_word_embeddings": False},
     HF.format("microsoft/phi-2"), ("calm2024sol",), "Phi-2: parallel block, biases, head bias."),
    ("gpt2", {"model_type": "gpt2", "vocab_size": 50257, "n_embd": 768, "n_head": 12,
              "n_layer": 12, "n_positions": 1024},
     HF.format("openai-community/gpt2"), (), "GPT-2 small (124M)."),
    ("llama-3-70b", {"model_type": "llama", "vocab_size": 128256, "hidden_size": 8192,
                     "intermediate_size": 28672, "num_attention_heads": 64,
                     "num_key_value_heads": 8, "num_hidden_layers": 80,
                     "max_position_embeddings": 8192, "tie_word_embeddings": False},
     HF.format("meta-llama/Meta-Llama-3-70B"), (),
     "Llama 3 70B (used by the calibration chapter's measurements): GQA with 8 KV heads, "
     "128K-entry vocabulary; 70,553,706,496 parameters."),
]

_DIRECT: list[tuple[Model, str, tuple[str, ...], str]] = [
    # OPT is not an HF family this package reads; its shape is written out here.
    (Model(name="opt-6.7b", n_vocab=50272, d_model=4096, n_layers=32, n_heads=32,
           n_kv_heads=32, d_head=128, d_ff=16384, n_mlp_mats=2, tied=True, n_positions=2050,
           qkv_bias=True, o_bias=True, mlp_bias=True, norm_vecs_layer=4, norm_vecs_final=2,
           max_context=2048, family="opt", source=HF.format("facebook/opt-6.7b")),
     HF.format("facebook/opt-6.7b"), ("calm2024sol",),
     "OPT-6.7B (Zhang et al. 2022): learned positions (2048 + 2 offset rows), LayerNorm with "
     "bias, ReLU MLP, tied head. The calm notebook calls it opt-7b."),
]


def _build() -> dict[str, CatalogEntry]:
    out: dict[str, CatalogEntry] = {}
    for name, cfg, url, arts, notes in _ENTRIES:
        out[name] = CatalogEntry(Model.from_hf_config(cfg, name=name, source=url), url, arts, notes)
    for model, url, arts, notes in _DIRECT:
        out[model.name] = CatalogEntry(model, url, arts, notes)
    return out


CATALOG: Mapping[str, CatalogEntry] = MappingProxyType(_build())
MODELS: Mapping[str, Model] = MappingProxyType({k: v.model for k, v in CATALOG.items()})


def model_names() -> list[str]:
    """Catalog keys in catalog order."""
    return list(MODELS)


def get_model(name: str) -> Model:
    """A catalog model by key (case-insensitive); ``ValueError`` with close matches otherwise."""
    return lookup("model", name, MODELS)
