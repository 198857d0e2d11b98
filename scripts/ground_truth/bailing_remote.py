"""Ling 2.0's parameter count (``bailing_moe_v2``: BailingMoeV2ForCausalLM) from inclusionAI's own
modelling code on PyTorch's meta device: transformers 5.24.0 defines no such class, so
``count.py`` cannot build the file, and the result is recorded in ``tests/configs/FAMILIES.md``
(section 17.16), not in ``ground_truth.json``.

Usage, with the ground-truth environment of ``count.py`` and a directory holding
``configuration_bailing_moe_v2.py`` and ``modeling_bailing_moe_v2.py`` of
github.com/inclusionAI/Ling-V2 (``models/``, commit af8837e677a1aa36895845da084f9c91acf4fed2) as a
package ``lingv2`` (an empty ``__init__.py`` beside them)::

    PYTHONPATH=DIR python scripts/ground_truth/bailing_remote.py tests/configs/ling-mini-2.0.json \
        [JSON of keys to set, e.g. '{"num_nextn_predict_layers": 1}']

Prints the parameters and persistent buffers (the gates' ``expert_bias``), those of the MTP
layers (the model builds them as ``model.layers.{n}`` and later) and the routed experts of the
main stack. Shims: ``remote_shims.py`` and the tied-weights mapping transformers 5 expects.
"""
import json
import sys

from remote_shims import persistent_buffers  # the shims, applied on import

import torch  # noqa: E402
from lingv2.configuration_bailing_moe_v2 import BailingMoeV2Config  # noqa: E402
from lingv2.modeling_bailing_moe_v2 import BailingMoeV2ForCausalLM  # noqa: E402

BailingMoeV2ForCausalLM._tied_weights_keys = {"lm_head.weight": "model.word_embeddings.weight"}


def _layer(name: str) -> int:
    return int(name.split(".")[2]) if name.startswith("model.layers.") else -1


def main(path: str, changes: str = "{}") -> None:
    cfg = {**json.load(open(path)), **json.loads(changes)}
    config = BailingMoeV2Config(**{k: v for k, v in cfg.items() if k not in (
        "auto_map", "architectures", "_name_or_path", "model_type")})
    config._attn_implementation = "eager"
    with torch.device("meta"):
        model = BailingMoeV2ForCausalLM(config)
    n = config.num_hidden_layers
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    print(json.dumps({
        "params": sum(p.numel() for p in params.values()),
        "persistent_buffers": persistent_buffers(model),
        "mtp_params": sum(p.numel() for k, p in params.items() if _layer(k) >= n),
        "mtp_buffers": sum(b.numel() for k, b in buffers.items()
                           if _layer(k) >= n and k.endswith("expert_bias")),
        "routed_expert_params": sum(p.numel() for k, p in params.items()
                                    if ".experts." in k and 0 <= _layer(k) < n)}))


if __name__ == "__main__":
    main(*sys.argv[1:])
