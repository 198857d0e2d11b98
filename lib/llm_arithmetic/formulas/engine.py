r"""What a serving engine allocates: the arithmetic each engine does at start-up to size its
KV cache, beside the physics of :mod:`~llm_arithmetic.formulas.memory`.

The bound asks how many tokens of cache fit beside the weights. An engine answers with its own
rules (:mod:`llm_arithmetic.engine` reads them, with their sources, from
``catalog/data/engines.toml``):

* a share of the chip's memory it may use, minus the weights as loaded and a reserve for
  activations, CUDA graphs and communication buffers: :data:`engine_kv_memory` (vLLM's
  ``gpu_memory_utilization``, SGLang's ``mem_fraction_static``);
* that memory cut into blocks of tokens: :data:`pool_tokens`;
* with tensor parallelism, each chip caches its share of the key/value heads, never less than
  one: :data:`kv_heads_per_chip`;
* llama.cpp instead allocates a fixed number of cells per layer, rounded up:
  :data:`padded_cells`, and for windowed layers only the window and a micro-batch:
  :data:`swa_cells`.
"""
from __future__ import annotations

import sympy as sp

from ..core.registry import formula

__all__ = ["kv_heads_per_chip", "engine_kv_memory", "pool_tokens", "padded_cells", "swa_cells"]


@formula("kv_heads_chip")
def kv_heads_per_chip(*, n_kv_heads, tp=1):
    """Key/value heads of one attention layer that one chip caches when N_tp chips split the
    heads: its share, or one head copied to every chip when there are fewer heads than chips
    (vLLM's ``max(1, num_kv_heads // tp)``).

    Examples
    --------
    Qwen3-235B-A22B (4 KV heads) on 4 chips, and Llama 3 8B (8 KV heads) on 16:

    >>> kv_heads_per_chip(n_kv_heads=4, tp=4), kv_heads_per_chip(n_kv_heads=8, tp=16)
    (1, 1)
    """
    return sp.Max(1, n_kv_heads / tp, evaluate=False)


@formula("kv_budget")
def engine_kv_memory(*, capacity, mem_fraction, weight_bytes, overhead=0):
    """Memory an engine gives its KV-cache pool on one chip: the share f of the chip's memory
    it may use, minus the weights as loaded on that chip and the engine's reserve C_0 (the
    activation peak of its profiling run, CUDA graphs, communication buffers and the CUDA
    context, as the engine measures them).

    vLLM's ``gpu_memory_utilization`` and SGLang's ``mem_fraction_static`` are both f: SGLang
    takes the memory free after loading the weights and keeps (1 - f) C of it back, which is
    the same difference.

    Examples
    --------
    vLLM 0.6 on an RTX 3090 (23.58 GiB, f = 0.90) with Llama 3.1 8B, in GiB: a profiled peak of
    17.06 (weights included) and 0.35 outside PyTorch leave 21.222 - 17.06 - 0.35 = 3.812 (vLLM
    issue 10517 prints 3.81):

    >>> round(engine_kv_memory(capacity=23.58, mem_fraction=0.9, weight_bytes=17.06,
    ...                        overhead=0.35), 3)
    3.812
    """
    return capacity * mem_fraction - weight_bytes - overhead


@formula("kv_tokens")
def pool_tokens(*, kv_budget, kv_cache_bytes_per_token, page_tokens=16):
    """Tokens an engine's paged cache holds: its memory cut into whole blocks of n_page tokens,
    each block holding every layer's keys and values for those tokens (none when the memory is
    negative).

    Examples
    --------
    vLLM with Qwen3-1.7B (114,688 B a token, blocks of 16) and the 18.78 GiB its log prints
    (20,164,871,454 B): 10,988 whole blocks, 175,808 tokens; the engine printed 175,856 (three
    blocks more) from its unrounded memory:

    >>> pool_tokens(kv_budget=20_164_871_454, kv_cache_bytes_per_token=114688, page_tokens=16)
    175808
    """
    blocks = sp.floor(kv_budget / (page_tokens * kv_cache_bytes_per_token), evaluate=False)
    return sp.Max(0, blocks, evaluate=False) * page_tokens


@formula("ctx_cells")
def padded_cells(*, context, cell_pad=256):
    """Cells llama.cpp allocates per layer for a context of S tokens (``--ctx-size``): S rounded
    up to a multiple of n_pad.

    Examples
    --------
    >>> padded_cells(context=4096), padded_cells(context=5000)
    (4096, 5120)
    """
    return sp.ceiling(context / cell_pad) * cell_pad


@formula("ctx_cells")
def swa_cells(*, ctx_cells, window, ubatch=512, n_seqs=1, cell_pad=256, swa_full=0):
    """Cells llama.cpp allocates per sliding-window layer: the window of each sequence and one
    micro-batch, never more than the full layers' cells, rounded up to n_pad; with
    ``--swa-full``, as many as the full layers (``llama-kv-cache-iswa.cpp``).

    Examples
    --------
    gpt-oss-20b (window 128) at 131,072 cells with micro-batches of 512: 640 rounded up to
    768; a 1,024-token window with four sequences: 4,608.

    >>> swa_cells(ctx_cells=131072, window=128), swa_cells(ctx_cells=8192, window=1024, n_seqs=4)
    (768, 4608)
    >>> swa_cells(ctx_cells=131072, window=128, swa_full=1)
    131072
    """
    windowed = sp.ceiling(sp.Min(ctx_cells, window * n_seqs + ubatch, evaluate=False) / cell_pad) \
        * cell_pad
    return sp.Piecewise((ctx_cells, sp.Gt(swa_full, 0)), (windowed, True), evaluate=False)
