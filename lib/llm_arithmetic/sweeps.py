"""Estimates over many points: the latency-throughput :func:`frontier` over batch sizes (each
point :func:`~llm_arithmetic.estimate.estimate`'s plan), and :func:`sweep`, the decode bounds
over chips x formats x contexts x batches evaluated on NumPy arrays at once.

Units: tokens per second [token/s], times [s], bytes [B], FLOPs [FLOP], memory [B], cost
[USD per 10^6 tokens], energy [J/token].
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .arguments import ContextWarning, count_argument, resolve_model
from .catalog.formats import bits_per_weight, plan_format
from .catalog.hardware import Hardware, get_hardware
from .catalog.model import Model
from .core.errors import InputError
from .core.records import record
from .estimate import FIELD_STEPS, STATE_WINDOW_BITS, evaluated_plan
from .layout import chip_inputs
from .media import prompt_with_images
from .weights import warn_block_format, weight_inputs

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["FRONTIER_MAX_BATCH", "frontier", "Sweep", "sweep"]

#: Batch sizes of a frontier when none are given: powers of two up to this limit.
FRONTIER_MAX_BATCH = 1 << 16


def frontier(model: str | Path | Model, *, batches: Sequence[int] | None = None,
             **kwargs: Any) -> list[dict[str, Any]]:
    """The latency-throughput frontier: for each batch size, tokens per second per user
    (1 / TPOT) and per chip (batch / TPOT / chips), and whether weights and caches fit in the
    chips' memory. ``kwargs`` are those of :func:`~llm_arithmetic.estimate.estimate` (``batch``
    excepted; ``images`` and ``image_size`` included: every request's prompt holds the images).

    Without ``batches``: powers of two from 1 up to the first that does not fit (included),
    or to 1024 when the chip's memory is unknown.

    >>> pts = frontier("llama-3-70b", hardware="h100-sxm", weights="fp8", tp=8, prompt=2048,
    ...                generate=256)
    >>> [p["batch"] for p in pts][-3:], pts[-1]["fits"]
    ([256, 512, 1024], False)
    """
    if "batch" in kwargs:
        raise InputError("frontier() takes batches=, a sequence of batch sizes, not batch=")
    points = []
    # images in each request's prompt, as estimate takes them: worked out once for every batch
    model, prompt, vision = prompt_with_images(
        model, kwargs.pop("prompt", None), kwargs.pop("images", None),
        kwargs.pop("image_size", None), *(kwargs.pop(k, None) for k in (
            "video_seconds", "video_fps", "video_size", "audio_seconds", "video_audio")))

    def point(b: int) -> dict[str, Any]:
        # estimate's values for these keys, read from its plan alone (estimate computes all)
        _, _, given, ev = evaluated_plan(model, batch=b, prompt=prompt, vision=vision, **kwargs)
        return {"batch": given["batch"], **{key: ev.get(FIELD_STEPS[field]) for key, field in (
            ("tokens_per_second_per_user", "tokens_per_second_per_user"),
            ("tokens_per_second_per_chip", "tokens_per_second_per_chip"),
            ("tpot_seconds", "tpot_seconds"), ("fits", "fits_per_chip"),
            ("memory_per_chip_bytes", "memory_per_chip_bytes"),
            ("cost_per_million_tokens", "cost_per_million_tokens"),
            ("energy_joules_per_token", "energy_joules_per_token"))}}

    if batches is not None:
        return [point(b) for b in batches]
    b = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWarning)
        while b <= FRONTIER_MAX_BATCH:
            p = point(b)
            points.append(p)
            if p["fits"] is False or (p["fits"] is None and b >= 1024):
                break
            b *= 2
    return points


# ---- sweeps -------------------------------------------------------------------------------------
@record
class Sweep:
    """Decode bounds over a grid: axes (chips, formats, contexts, batches), arrays of shape
    ``(len(hardware), len(weights), len(context), len(batch))``.

    Attributes
    ----------
    hardware, weights : tuple of str
    context, batch : ndarray
        The axes [token], [-].
    step_bytes, step_flops : ndarray
        Bytes [B] and FLOPs [FLOP] of one decode step of the batch.
    memory_seconds, compute_seconds, seconds_per_token : ndarray
        [s]; ``compute_seconds`` is NaN where the chip has no peak at the format's compute
        precision (:func:`~llm_arithmetic.estimate.estimate`'s None), and ``seconds_per_token`` is
        then the memory time alone.
    tokens_per_second, throughput_tokens_per_second : ndarray
        One stream's and the batch's rate [token/s].
    fits : ndarray of bool
        Weights and cache within the chip's memory.
    """

    model: str
    hardware: tuple[str, ...]
    weights: tuple[str, ...]
    context: np.ndarray
    batch: np.ndarray
    step_bytes: np.ndarray
    step_flops: np.ndarray
    memory_seconds: np.ndarray
    compute_seconds: np.ndarray
    seconds_per_token: np.ndarray
    tokens_per_second: np.ndarray
    throughput_tokens_per_second: np.ndarray
    fits: np.ndarray

    def rows(self) -> list[dict[str, Any]]:
        """One dict per grid point (for a table or a CSV)."""
        out = []
        for i, h in enumerate(self.hardware):
            for j, w in enumerate(self.weights):
                for k, s in enumerate(self.context):
                    for n, b in enumerate(self.batch):
                        idx = (i, j, k, n)
                        out.append(dict(
                            model=self.model, hardware=h, weights=w, context=int(s),
                            batch=int(b), seconds_per_token=float(self.seconds_per_token[idx]),
                            tokens_per_second=float(self.tokens_per_second[idx]),
                            throughput_tokens_per_second=float(
                                self.throughput_tokens_per_second[idx]),
                            fits=bool(self.fits[idx])))
        return out


def _axis(label: str, values: Any) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(values))
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(f"{label} must be a number or a one-dimensional sequence of numbers")
    for v in arr:
        count_argument(label, v.item() if hasattr(v, "item") else v)
    return arr.astype(np.float64)


def sweep(model: str | Path | Model, *, hardware: str | Hardware | Sequence[str | Hardware],
          weights: str | Sequence[str] = "fp16", context: Any = 1, batch: Any = 1,
          bits_kv: Any = 16) -> Sweep:
    """Decode bounds of ``model`` over chips x formats x contexts x batches, vectorized: the
    same formulas as :func:`~llm_arithmetic.estimate.estimate`, evaluated on NumPy arrays.

    >>> from llm_arithmetic import estimate
    >>> s = sweep("llama-2-7b", hardware=["a100-80gb-sxm", "h100-sxm"], weights=["fp16", "q4_0"],
    ...           context=[1, 4096], batch=[1, 8, 64])
    >>> s.tokens_per_second.shape
    (2, 2, 2, 3)
    >>> e = estimate("llama-2-7b", hardware="h100-sxm", weights="q4_0", context=4096, batch=8)
    >>> bool(np.isclose(s.tokens_per_second[1, 1, 1, 1], e.decode_tokens_per_second))
    True
    """
    m = resolve_model(model)
    if not isinstance(hardware, (str, Hardware)) and not hasattr(hardware, "__iter__"):
        raise InputError(f"hardware: a chip (a catalog name or a Hardware) or a sequence of "
                         f"them, got {type(hardware).__name__}")
    chips = [get_hardware(h) for h in ([hardware] if isinstance(hardware, (str, Hardware))
                                       else hardware)]
    formats = [weights] if isinstance(weights, str) else list(weights)
    ctx = _axis("context", context)
    bat = _axis("batch", batch)
    kv_bits = bits_per_weight(bits_kv)
    shape = (len(chips), len(formats), ctx.size, bat.size)
    keys = {"step_bytes": "decode_step_bytes", "step_flops": "decode_step_flops",
            "memory_seconds": "decode_memory_seconds",
            "compute_seconds": "decode_compute_seconds",   # None (NaN here) without a peak
            "seconds_per_token": "peak_seconds_per_token", "fits": "fits"}
    out = {k: np.empty(shape, dtype=bool if k == "fits" else float) for k in keys}
    for j, fmt in enumerate(formats):
        warn_block_format(m, fmt)
        base = m.plan.child(
            context=ctx[:, None], batch=bat[None, :], **weight_inputs(m, fmt),
            weight_format=plan_format(fmt), bits_kv=kv_bits, bits_state=STATE_WINDOW_BITS,
            overhead=0,
            given_bandwidth=None, given_peak_flops=None, given_capacity=None)
        for i, chip in enumerate(chips):
            ev = base.child(**chip_inputs(chip))
            for k, step in keys.items():
                out[k][i, j] = ev.get(step)
    fits = out.pop("fits")
    t = out["seconds_per_token"]
    return Sweep(model=m.name, hardware=tuple(c.name for c in chips), weights=tuple(formats),
                 context=ctx, batch=bat, tokens_per_second=1 / t,
                 throughput_tokens_per_second=bat[None, None, None, :] / t, fits=fits, **out)
