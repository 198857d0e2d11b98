"""Names transformers 5 removed that 2024-25 remote-code modelling files import (mask helpers,
flash-attention probes, docstring decorators, ``is_torch_fx_available``, RoPE's "default"
initializer), put back so that such a file builds on PyTorch's meta device. None of them builds
a parameter or a persistent buffer. Imported first by the ``*_remote.py`` counters here.
"""
import sys
import types

import torch
import transformers.modeling_rope_utils as ru
import transformers.pytorch_utils as pu
import transformers.utils as tu
import transformers.utils.import_utils as iu

pu.ALL_LAYERNORM_LAYERS = getattr(pu, "ALL_LAYERNORM_LAYERS", [])
pu.is_torch_greater_or_equal_than_1_13 = True
for _name in ("is_flash_attn_greater_or_equal_2_10", "is_flash_attn_2_available"):
    if not hasattr(tu, _name):
        setattr(tu, _name, lambda *a, **k: False)
if not hasattr(iu, "is_torch_fx_available"):
    iu.is_torch_fx_available = lambda: False
for _name in ("add_start_docstrings", "add_start_docstrings_to_model_forward",
              "replace_return_docstrings"):
    if not hasattr(tu, _name):
        setattr(tu, _name, lambda *a, **k: (lambda f: f))
_masks = types.ModuleType("transformers.modeling_attn_mask_utils")
for _name in ("AttentionMaskConverter", "_prepare_4d_attention_mask",
              "_prepare_4d_causal_attention_mask", "_prepare_4d_causal_attention_mask_for_sdpa"):
    setattr(_masks, _name, None)
sys.modules.setdefault("transformers.modeling_attn_mask_utils", _masks)


def _default_rope(config, device=None, *args, **kwargs):
    """Unscaled rotary frequencies (a non-persistent buffer), as 4.x's "default" entry gave."""
    dh = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    return 1.0 / (config.rope_theta ** (torch.arange(0, dh, 2, dtype=torch.float32) / dh)), 1.0


ru.ROPE_INIT_FUNCTIONS.setdefault("default", _default_rope)


def persistent_buffers(model: torch.nn.Module) -> int:
    """Elements of the persistent buffers (what a checkpoint stores beside the parameters)."""
    return sum(b.numel() for m in model.modules() for n, b in m.named_buffers(recurse=False)
               if b is not None and n not in m._non_persistent_buffers_set)
