"""Meta-device counts of the timm vision networks that Gemma 3n files name in
``vision_config.architecture``, written to ``tests/data/ground_truth_timm.json``.

transformers builds such a tower as ``TimmWrapperModel``, that is
``timm.create_model(architecture, pretrained=False, num_classes=0, **model_args)``; this script
builds the same call on the meta device. Not part of ``make test``. timm imports torchvision
and PIL at import time although building a model uses neither, and torchvision's wheel pulls
a CUDA build of torch: this script stubs both modules instead. Run it with the ground-truth
environment (``count.py``'s) and a timm source tree taken at a pinned commit, e.g.::

    git -C pytorch-image-models archive aa4b5850c1543fa488abf260f18390eda46cf85d timm \\
        | tar -x -C /tmp/timm-src
    PYTHONPATH=/tmp/timm-src /tmp/gt-venv/bin/python scripts/ground_truth/count_timm.py \\
        huggingface/pytorch-image-models@aa4b5850c1543fa488abf260f18390eda46cf85d

(``pip install --no-deps timm`` into a side folder works as well; the argument then names the
release.)
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "ground_truth_timm.json"
ARCHITECTURES = ("mobilenetv5_300m_enc",)
STUBBED = ("torchvision", "PIL")


def _stand_in(owner, name):
    """A distinct stand-in class for every attribute ``name`` of ``owner``, kept on it (timm
    keys dictionaries by torchvision's and PIL's interpolation constants at import)."""
    if name.startswith("__"):
        raise AttributeError(name)
    sub = _Anything(name, (), {})
    setattr(owner, name, sub)
    return sub


class _Anything(type):
    __getattr__ = _stand_in


class _Module(types.ModuleType):
    __getattr__ = _stand_in


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _Module(spec.name)
        module.__path__ = []
        module.__version__ = "0.0"  # timm parses PIL's version at import
        return module

    def exec_module(self, module):
        pass


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        raise SystemExit("usage: count_timm.py SOURCE (the timm release or commit used)")
    sys.meta_path.insert(0, _Stubs())
    import timm
    import torch

    out = {"timm": timm.__version__, "source": argv[0], "torch": torch.__version__,
           "method": "timm.create_model(name, pretrained=False, num_classes=0) on "
                     "torch.device('meta'), as transformers' TimmWrapperModel builds it; "
                     "torchvision and PIL stubbed", "models": {}}
    for name in ARCHITECTURES:
        with torch.device("meta"):
            model = timm.create_model(name, pretrained=False, num_classes=0)
        names = {n for n, _ in model.named_buffers()}
        saved = sum(v.numel() for k, v in model.state_dict().items() if k in names)
        out["models"][name] = {"params": sum(p.numel() for p in model.parameters()),
                               "persistent_buffers": saved,
                               "num_features": model.num_features}
        print(name, out["models"][name], flush=True)
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
