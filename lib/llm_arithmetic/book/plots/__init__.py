"""Figures, in one style, computed by the package's formulas: one module per part of the book.

Each function draws on a Matplotlib ``Axes`` (a new figure when none is given) and returns it;
notebooks end the cell with ``plt.show()``. Every name is available from here
(``plots.roofline``), whichever module defines it.

:mod:`~llm_arithmetic.book.plots.foundations` (chapters 1-8, the back matter's tables):

* :func:`roofline` -- attainable FLOP/s against arithmetic intensity, chips and operations on it
* :func:`time_per_token_vs_batch` -- decode step time and throughput as the batch grows
* :func:`kv_cache_vs_context` -- KV-cache bytes against context, MHA vs GQA
* :func:`decode_bytes_breakdown` -- where the bytes of one decode step go
* :func:`params_breakdown` -- where a model's parameters are
* :func:`sequence_memory_vs_context` -- one sequence's cache and state as stored, and with every
  layer kept whole
* :func:`sequence_read_vs_context` -- the cache and state one decode step of a sequence moves
* :func:`mla_attention_flops_vs_context` -- latent attention's FLOPs per token, absorbed or not
* :func:`expert_weights_read_vs_batch` -- the share of a mixture's weights a decode step reads
* :func:`chips_scatter` -- every chip's bandwidth against its peak, lines of equal ops:byte

:mod:`~llm_arithmetic.book.plots.serving` (chapters 10-14 and 17): prefill, tensor and
pipeline parallelism, the serving frontier, speculative decoding, cost and energy, and
measurements against the bound.

:mod:`~llm_arithmetic.book.plots.forecast` (chapter "From bound to forecast"): the bound and the
forecast over a published throughput-versus-interactivity curve.

:mod:`~llm_arithmetic.book.plots.style`: :data:`STYLE` and :func:`label_points` (labels placed
clear of each other, the markers and the lines). The checker that keeps every figure readable
(:func:`check_figure`: text size, collisions, units; :func:`fit_width`) is a module of its own,
:mod:`llm_arithmetic.book.figure_check`, re-exported here.
"""
from ..figure_check import MAX_WIDTH_PX, MIN_FONT_PT, check_figure, fit_width
from . import forecast, foundations, serving, style
from .forecast import *  # noqa: F401,F403
from .foundations import *  # noqa: F401,F403
from .serving import *  # noqa: F401,F403
from .style import *  # noqa: F401,F403

__all__ = (["MIN_FONT_PT", "MAX_WIDTH_PX", "check_figure", "fit_width"] + style.__all__
           + foundations.__all__ + serving.__all__ + forecast.__all__)
