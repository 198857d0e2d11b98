"""Hunyuan-Large's parameter count from Tencent's own remote code on PyTorch's meta device, the
one reference that builds cross-layer attention (transformers' hunyuan_v1_* classes do not):
``count.py`` runs no repository code, so this is separate, and its result is recorded in
``tests/configs/FAMILIES.md`` (Hunyuan-Large), not in ``ground_truth.json``.

Usage, with the ground-truth environment of ``count.py`` and a directory holding
``configuration_hunyuan.py`` and ``modeling_hunyuan.py`` of github.com/Tencent/Tencent-Hunyuan-Large
(``models/``, commit cdc37358aa7ce74f4883ae639726804a63ea99f6) as a package ``hy``::

    PYTHONPATH=DIR python scripts/ground_truth/hunyuan_remote.py tests/configs/hunyuan-a52b-pretrain.json

Shims: ``remote_shims.py`` (names transformers 5 removed that the file imports; none builds a
parameter) and the tied-weights mapping transformers 5 expects (4.x took a list of names).
"""
import json
import sys

from remote_shims import persistent_buffers  # the shims, applied on import

import torch  # noqa: E402
from hy.configuration_hunyuan import HunYuanConfig  # noqa: E402
from hy.modeling_hunyuan import HunYuanForCausalLM  # noqa: E402

HunYuanForCausalLM._tied_weights_keys = {"lm_head.weight": "model.embed_tokens.weight"}


def main(path: str) -> None:
    cfg = json.load(open(path))
    config = HunYuanConfig(**{k: v for k, v in cfg.items()
                              if k not in ("auto_map", "architectures", "_name_or_path")})
    config._attn_implementation = "eager"
    with torch.device("meta"):
        model = HunYuanForCausalLM(config)
    persistent = persistent_buffers(model)
    names = [n for n, _ in model.named_parameters()]
    print(json.dumps({"params": sum(p.numel() for p in model.parameters()),
                      "persistent_buffers": persistent,
                      "k_proj_layers": sorted(int(n.split(".")[2]) for n in names
                                              if n.endswith("k_proj.weight")),
                      "key_layernorm_layers": sum(n.endswith("key_layernorm.weight")
                                                  for n in names)}))


if __name__ == "__main__":
    main(sys.argv[1])
