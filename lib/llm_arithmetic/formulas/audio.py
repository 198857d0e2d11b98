r"""Audio in the prompt: the work of an audio encoder before the language model's prefill.

An omni model turns a clip into a mel spectrogram, runs strided convolutions over it, its
encoder's blocks over the positions that remain, and projections of their outputs to the
language model's width; each output takes a token's place in the prompt. How many frames,
positions, chunks, windows and tokens a clip gives is the model's processor's and encoder's
rule (:mod:`llm_arithmetic.catalog.audio`, which counts them); what the encoder costs is here.

* :data:`audio_block_flops`: the encoder's blocks (Whisper-style blocks, or a conformer's
  layers) over one clip.
* :data:`audio_around_flops`: the convolutions and projections around the blocks.
* :data:`audio_prefill_flops`: the two together, the encoder's FLOPs over the clip.

As for a vision tower (:mod:`~llm_arithmetic.formulas.vision`), a matrix product costs 2 FLOPs
per weight per position (a multiply and an add), a convolution 2 per weight of its kernel per
output position; norms, softmax, activations and the spectrogram are left out.
"""
from __future__ import annotations

import sympy as sp

from ..core.registry import formula

__all__ = ["audio_block_flops", "audio_around_flops", "audio_prefill_flops"]


@formula("audio_block_flops")
def audio_block_flops(*, n_audio_layers, audio_matmul_params, d_audio, audio_rows, audio_pairs,
                      audio_rel_pairs=0, audio_rel_offsets=0, audio_conv_kernel=0):
    """FLOPs of an audio encoder's blocks over one clip [FLOP]: in each of L_aud blocks, 2 FLOPs
    per block weight in matrix products per position (W_aud: q, k, v, the output projection
    and the MLP of a Whisper-style block, 4 d^2 + 2 d d_ff; a conformer layer's two macaron
    feed-forwards 2 x 8 d^2, q, k, v and output 4 d^2, and its light convolution's pointwise
    products d -> 2d and d -> d, 3 d^2: 23 d^2), and its attention: QK^T and the weighted sum
    of V, 2 d FLOPs each per query-key pair (4 d a pair), over the pairs of its chunks or
    windows (A_aud). A conformer layer (Gemma 3n, Gemma 4) adds three terms, 0 for a
    Whisper-style block: its relative-position term, 2 d FLOPs per query per relative offset
    (A_rel), the projection of the offsets' position embeddings, 2 d^2 per offset (n_rel), and
    its depthwise convolution over time, 2 d k_dw per position.

    Examples
    --------
    Qwen2.5-Omni-7B's encoder (32 blocks of width 1,280, MLP 5,120), 10 s of audio: 1,000 mel
    frames in 5 chunks of 200, each halved by the stride-2 convolution to 100 positions the
    blocks run, 500 in all, attention within each chunk: 5 x 100^2 = 50,000 pairs. Weights a
    position: 4 x 1,280^2 + 2 x 1,280 x 5,120 = 6,553,600 + 13,107,200 = 19,660,800. A block:
    2 x 19,660,800 x 500 + 4 x 1,280 x 50,000 = 19,660,800,000 + 256,000,000 =
    19,916,800,000; 32 of them 637,337,600,000:

    >>> audio_block_flops(n_audio_layers=32, audio_rows=500, audio_matmul_params=19_660_800,
    ...                   d_audio=1280, audio_pairs=50_000)
    637337600000

    Gemma 4 E2B's conformer (12 layers of width 1,024), 10 s: 250 positions after the two
    stride-2 convolutions, attended in ceil(250 / 12) = 21 blocks of 12 queries over a context
    of 24 keys (21 x 12 x 24 = 6,048 pairs) and 13 relative offsets (21 x 12 x 13 = 3,276
    query-offset pairs), a depthwise kernel of 5. A layer: 2 x 23 x 1,024^2 x 250 =
    12,058,624,000, attention 4 x 1,024 x 6,048 = 24,772,608, the relative term
    2 x 1,024 x 3,276 = 6,709,248, the offsets' projection 2 x 1,024^2 x 13 = 27,262,976, the
    depthwise convolution 2 x 1,024 x 5 x 250 = 2,560,000: 12,119,928,832; 12 layers
    145,439,145,984:

    >>> audio_block_flops(n_audio_layers=12, audio_rows=250, audio_matmul_params=23 * 1024 ** 2,
    ...                   d_audio=1024, audio_pairs=6048, audio_rel_pairs=3276,
    ...                   audio_rel_offsets=13, audio_conv_kernel=5)
    145439145984
    """
    # the terms in the order the docstring names them (sympy would sort them)
    return n_audio_layers * sp.Add(2 * audio_matmul_params * audio_rows,
                                   4 * d_audio * audio_pairs, 2 * d_audio * audio_rel_pairs,
                                   2 * d_audio ** 2 * audio_rel_offsets,
                                   2 * d_audio * audio_conv_kernel * audio_rows, evaluate=False)


@formula("audio_around_flops")
def audio_around_flops(*, audio_conv1_params, audio_conv1_positions, audio_conv2_params,
                       audio_conv2_positions, audio_out_params, audio_out_positions,
                       audio_in_params=0, audio_in_positions=0):
    """FLOPs of the convolutions and projections around an audio encoder's blocks over one clip
    [FLOP]: 2 FLOPs per weight of the first convolution's kernel (W_c1: kernel x input channels
    x output channels) per output position (S_c1: time positions, times frequency bins for a
    2-D convolution, over every chunk, padded ones too), likewise for the later convolutions
    (all of one shape, their output positions summed: S_c2), the projection of the last
    convolution's output to the blocks' width (W_in per position, S_in positions; 0 where the
    convolution already gives that width) and the projections after the blocks to the
    language model's width (W_out per output position, over S_out: the clip's tokens, or the
    positions the encoder keeps).

    Examples
    --------
    Qwen2.5-Omni-7B, 10 s: 5 chunks of 200 frames; ``conv1`` (kernel 3, 128 mel bins -> 1,280)
    over 5 x 200 = 1,000 positions, 3 x 128 x 1,280 = 491,520 weights; ``conv2`` (kernel 3,
    stride 2, 1,280 -> 1,280) over 5 x 100 = 500, 3 x 1,280^2 = 4,915,200 weights; after the
    blocks a pool, then the projection 1,280 -> 3,584 (4,587,520 weights) over 250 tokens.
    2 x (491,520,000 + 2,457,600,000 + 1,146,880,000) = 8,192,000,000:

    >>> audio_around_flops(audio_conv1_params=3 * 128 * 1280, audio_conv1_positions=1000,
    ...                    audio_conv2_params=3 * 1280 ** 2, audio_conv2_positions=500,
    ...                    audio_out_params=1280 * 3584, audio_out_positions=250)
    8192000000

    Gemma 4 E2B, 10 s: 999 frames of 128 mel bins; a 3 x 3 stride-2 convolution 1 -> 128
    channels (1,152 weights) over 500 x 64 = 32,000 positions, one 128 -> 32 (36,864) over
    250 x 32 = 8,000; the projection 32 x 32 -> 1,024 (1,048,576 weights) over 250 positions;
    after the blocks 1,024 -> 1,536 and the embedder 1,536 -> 1,536 (1,572,864 + 2,359,296 =
    3,932,160 weights) over the same 250. 2 x (36,864,000 + 294,912,000 + 262,144,000 +
    983,040,000) = 3,153,920,000:

    >>> audio_around_flops(audio_conv1_params=9 * 128, audio_conv1_positions=500 * 64,
    ...                    audio_conv2_params=9 * 128 * 32, audio_conv2_positions=250 * 32,
    ...                    audio_out_params=1024 * 1536 + 1536 ** 2, audio_out_positions=250,
    ...                    audio_in_params=32 * 32 * 1024, audio_in_positions=250)
    3153920000
    """
    return 2 * (audio_conv1_params * audio_conv1_positions
                + audio_conv2_params * audio_conv2_positions
                + audio_in_params * audio_in_positions
                + audio_out_params * audio_out_positions)


@formula("audio_prefill_flops")
def audio_prefill_flops(*, n_audio_layers, audio_matmul_params, d_audio, audio_rows,
                        audio_pairs, audio_conv1_params, audio_conv1_positions,
                        audio_conv2_params, audio_conv2_positions, audio_out_params,
                        audio_out_positions, audio_rel_pairs=0, audio_rel_offsets=0,
                        audio_conv_kernel=0, audio_in_params=0, audio_in_positions=0):
    """FLOPs of an audio encoder over one clip [FLOP]: its blocks
    (:data:`audio_block_flops`) and the convolutions and projections around them
    (:data:`audio_around_flops`).

    Examples
    --------
    Gemma 4 E2B, 10 s: the blocks' 145,439,145,984 and the 3,153,920,000 around them (the
    examples of the two parts) make 148,593,065,984, which torch's ``FlopCounterMode`` prints
    for the encoder and its embedder (transformers 5.24.0, ``tests/test_audio.py``):

    >>> audio_prefill_flops(n_audio_layers=12, audio_rows=250, audio_matmul_params=23 * 1024 ** 2,
    ...     d_audio=1024, audio_pairs=6048, audio_rel_pairs=3276, audio_rel_offsets=13,
    ...     audio_conv_kernel=5, audio_conv1_params=9 * 128, audio_conv1_positions=500 * 64,
    ...     audio_conv2_params=9 * 128 * 32, audio_conv2_positions=250 * 32,
    ...     audio_in_params=32 * 32 * 1024, audio_in_positions=250,
    ...     audio_out_params=1024 * 1536 + 1536 ** 2, audio_out_positions=250)
    148593065984
    """
    return (audio_block_flops(n_audio_layers=n_audio_layers, audio_rows=audio_rows,
                              audio_matmul_params=audio_matmul_params, d_audio=d_audio,
                              audio_pairs=audio_pairs, audio_rel_pairs=audio_rel_pairs,
                              audio_rel_offsets=audio_rel_offsets,
                              audio_conv_kernel=audio_conv_kernel)
            + audio_around_flops(audio_conv1_params=audio_conv1_params,
                                 audio_conv1_positions=audio_conv1_positions,
                                 audio_conv2_params=audio_conv2_params,
                                 audio_conv2_positions=audio_conv2_positions,
                                 audio_out_params=audio_out_params,
                                 audio_out_positions=audio_out_positions,
                                 audio_in_params=audio_in_params,
                                 audio_in_positions=audio_in_positions))
