r"""Images in the prompt: the work of a vision tower before the language model's prefill.

A vision-language model turns each image into patches, runs them through its vision tower
(a ViT), merges or projects the tower's outputs into ``image_tokens`` tokens of the language
model's width, and those tokens join the prompt. How many patches and tokens an image gives is
the model's processor's rule (:mod:`llm_arithmetic.catalog.images`); what the tower costs is
here.

* :data:`vision_prefill_flops`: the tower's and the merger's FLOPs over a prompt's images.
* :data:`vision_prefill_time`: its roofline, the tower's weights read once against those FLOPs.

A cross-attention model (Llama 3.2 Vision) keeps the images out of the prompt but for one
token each: its cross-attention layers read the tower's states (``image_states``) instead.

* :data:`cross_kv_flops`: those layers' key and value projections of the states, once.
* :data:`cross_attention_flops`: one text token's attention over them.
"""
from __future__ import annotations

from ..core.registry import formula
from .roofline import roofline_time

__all__ = ["vision_prefill_flops", "vision_prefill_time", "cross_kv_flops",
           "cross_attention_flops"]


@formula("vision_prefill_flops")
def vision_prefill_flops(*, images, vision_patches, vision_matmul_params, image_tokens,
                         merger_matmul_params, d_vision, n_vision_full_layers,
                         vision_full_pairs, n_vision_window_layers=0, vision_window_pairs=0,
                         deepstack_matmul_params=0, vision_conv_flops=0):
    """FLOPs of a vision tower over N images [FLOP]: for each image, 2 FLOPs per tower weight in
    matrix products per patch the tower runs (the patch embedding and every block's q, k, v,
    output and MLP matrices), 2 per merger or projector weight per image token, and each
    block's attention: QK^T and the weighted sum of V, 2 d_vis FLOPs each per query-key pair
    (4 d_vis a pair), over every patch of the image (or tile) in a full-attention block and over
    the patches of each window in a windowed one (Qwen2.5-VL). Norms, activations, rotary
    embeddings and softmax are left out. Qwen3-VL's deepstack adds a term: its extra mergers,
    one at each of ``deepstack_visual_indexes``, each merging the output of that block into the
    image's tokens like the final merger, 2 FLOPs per deepstack merger weight in matrix
    products (all of them together: ``deepstack_matmul_params``, 1) per image token; 0 for
    every other tower. A convolutional tower (Gemma 3n's MobileNet-V5) has no per-patch
    weights: its FLOPs for one image, worked out layer by layer from its architecture
    (``vision_conv_flops`` [FLOP]; 2 k_h k_w C_in/groups C_out H_out W_out a convolution, and its
    attention blocks' products), are added per image; 0 for the ViTs.

    Examples
    --------
    Qwen2.5-VL-3B, one 1000 x 700 px image. The processor resizes it to 1008 x 700 (multiples
    of 28 = patch 14 x merge 2): 72 x 50 = 3,600 patches of 14 px, merged 2 x 2 into 36 x 25 =
    900 tokens. Tower weights per patch: the patch embedding 3 x 2 x 14 x 14 x 1280 =
    1,505,280 plus 32 blocks of qkv 3 x 1280^2, proj 1280^2 and a gated MLP 3 x 1280 x 3420:
    631,470,080. Merger per token: 5120^2 + 5120 x 2048 = 36,700,160. Attention: 4 full blocks
    over 3,600^2 pairs; 28 windowed blocks over windows of 4 x 4 merged tokens (8 x 8 patches),
    25 = 6 x 4 + 1 rows and 36 = 9 x 4 columns of tokens: 16 x (6 x 16 + 1) x (9 x 16) =
    223,488 pairs:

    >>> vision_prefill_flops(images=1, vision_patches=3600, vision_matmul_params=631_470_080,
    ...     image_tokens=900, merger_matmul_params=36_700_160, d_vision=1280,
    ...     n_vision_full_layers=4, vision_full_pairs=3600 ** 2, n_vision_window_layers=28,
    ...     vision_window_pairs=223_488)
    4910104903680

    Qwen3-VL-8B, the same image. Patches of 16 px merged 2 x 2 (32 px): 1000 x 700 resized
    to 992 x 704, 62 x 44 = 2,728 patches, 31 x 22 = 682 tokens. Tower weights per patch: the
    patch embedding 3 x 2 x 16 x 16 x 1152 = 1,769,472 plus 27 blocks of qkv 3 x 1152^2, proj
    1152^2 and an MLP 2 x 1152 x 4304: 412,839,936. Merger per token: 4608^2 + 4608 x 4096 =
    40,108,032, and three deepstack mergers of that size: 120,324,096. Every block attends over
    all 2,728^2 pairs:

    >>> vision_prefill_flops(images=1, vision_patches=2728, vision_matmul_params=412_839_936,
    ...     image_tokens=682, merger_matmul_params=40_108_032, d_vision=1152,
    ...     n_vision_full_layers=27, vision_full_pairs=2728 ** 2,
    ...     deepstack_matmul_params=120_324_096)
    3397185994752

    Gemma 3n E4B, one image: MobileNet-V5 at 768 px, 871,482,949,632 FLOPs (convolutions and
    its multi-query attention), then 256 tokens through the embedder 2048 -> 2048:

    >>> vision_prefill_flops(images=1, vision_patches=256, vision_matmul_params=0,
    ...     image_tokens=256, merger_matmul_params=2048 * 2048, d_vision=2048,
    ...     n_vision_full_layers=0, vision_full_pairs=0, vision_conv_flops=871_482_949_632)
    873630433280
    """
    per_image = (2 * vision_matmul_params * vision_patches
                 + 2 * merger_matmul_params * image_tokens
                 + 2 * deepstack_matmul_params * image_tokens + vision_conv_flops
                 + 4 * d_vision * (n_vision_full_layers * vision_full_pairs
                                   + n_vision_window_layers * vision_window_pairs))
    return images * per_image


@formula("vision_prefill_time", exact=False)
def vision_prefill_time(*, vision_bytes, vision_prefill_flops, bandwidth, peak_flops):
    """Lower bound on the time a vision tower takes over a prompt's images [s]: the roofline of
    its weights (tower and merger, read once however many images) against its FLOPs, at the
    chip's bandwidth [B/s] and peak for the weights' precision [FLOP/s].

    Examples
    --------
    The 4.91 TFLOP of one 1000 x 700 px image through Qwen2.5-VL-3B's tower (668,684,288
    weights, 1.34 GB at 16 bits) on an H100 SXM (3.35 TB/s, 989 TFLOP/s bf16 dense): 0.40 ms
    to read the weights, 4.96 ms of arithmetic; compute-bound:

    >>> t = vision_prefill_time(vision_bytes=1_337_368_576, vision_prefill_flops=4.9101e12,
    ...                         bandwidth=3.35e12, peak_flops=989e12)
    >>> round(t * 1e3, 2)
    4.96
    """
    return roofline_time(step_bytes=vision_bytes, step_flops=vision_prefill_flops,
                         bandwidth=bandwidth, peak_flops=peak_flops)


@formula("cross_kv_flops")
def cross_kv_flops(*, n_layers, image_states, d_model, n_kv_heads, d_head):
    """FLOPs of the key and value projections of a sequence's image states in L cross-attention
    layers [FLOP]: each layer multiplies every state (of width d_model, the projector's output)
    by k and v, d_model x H_kv d_head each, 2 FLOPs a weight. They run once a sequence, at its
    prefill; the keys and values are then cached (vLLM's encoder-decoder cross-attention cache).

    Examples
    --------
    Llama 3.2 11B Vision, one image of 2 x 2 tiles (4 x 1,601 states), 8 cross-attention layers
    of width 4,096 with 8 key/value heads of 128:

    >>> cross_kv_flops(n_layers=8, image_states=6404, d_model=4096, n_kv_heads=8, d_head=128)
    859530330112
    """
    return n_layers * 2 * image_states * d_model * 2 * n_kv_heads * d_head


@formula("cross_attention_flops")
def cross_attention_flops(*, n_layers, n_heads, d_head, image_states):
    """FLOPs of one text token's attention over a sequence's image states in L cross-attention
    layers [FLOP]: per layer and query head, QK^T and the weighted sum of V, 2 d_head FLOPs each
    per state (softmax left out), as a self-attention layer's over its cached tokens.

    Examples
    --------
    Llama 3.2 11B Vision, 8 cross-attention layers of 32 heads of 128, one image of 4 tiles:

    >>> cross_attention_flops(n_layers=8, n_heads=32, d_head=128, image_states=6404)
    839385088
    """
    return n_layers * 4 * n_heads * d_head * image_states
