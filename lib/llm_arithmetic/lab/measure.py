"""Timing helpers of the lab *Measure your own machine*: STREAM-style bandwidth kernels
(McCalpin's copy and triad, and a matrix-vector "read"), best-of-N timing, and a timed greedy
decode loop for :class:`~llm_arithmetic.lab.numpy_decoder.TinyDecoder`.

Every time is the best of several runs: interruptions only ever make a run slower.

>>> k = StreamKernels(array_bytes=2**20, d_read=64)
>>> sorted(k.counted)
['copy', 'read', 'triad']
>>> k.counted["triad"] == 3 * k.a.nbytes
True
"""
from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

__all__ = ["seconds", "available_bytes", "StreamKernels", "time_decode"]


def seconds(f: Callable[[], Any]) -> float:
    """Wall-clock seconds of one call of ``f()`` [s]."""
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def available_bytes() -> int:
    """Memory the operating system reports available [B]; 2 GiB where it does not say (not
    Linux)."""
    try:
        with open("/proc/meminfo") as f:
            info = dict(line.split(":", 1) for line in f)
        return int(info["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return 2 * 2**30


class StreamKernels:
    """Three bandwidth kernels over arrays of ``array_bytes``:

    * ``copy``, ``b = a`` (float64): 2 n elements counted;
    * ``triad``, ``a = b + s*c``, one 256 KiB block at a time (``s*c`` goes into a scratch
      block that stays in the cache, so each array crosses the memory bus once): 3 n counted;
    * ``read``, ``A @ x`` in float32 over a matrix of ``d_read`` columns: the bytes of ``A``.

    :meth:`run` keeps the best time of each; :meth:`rates` gives bytes counted over it [B/s].
    """

    def __init__(self, array_bytes: int, d_read: int = 768) -> None:
        n = array_bytes // 8
        self.a, self.b, self.c = np.full(n, 1.0), np.full(n, 2.0), np.full(n, 0.5)
        self.scratch = np.empty(32 * 1024)  # 256 KiB
        self.A = np.full((array_bytes // (4 * d_read), d_read), 1.0, dtype=np.float32)
        self.x = np.ones(d_read, dtype=np.float32)
        self.counted = {"copy": 2 * self.a.nbytes, "triad": 3 * self.a.nbytes,
                        "read": self.A.nbytes}
        self.best = {name: float("inf") for name in self.counted}

    def copy(self) -> None:
        np.copyto(self.b, self.a)

    def triad(self, s: float = 3.0) -> None:
        block, n = self.scratch.size, self.a.size
        for i in range(0, n, block):
            t = self.scratch[:min(block, n - i)]
            np.multiply(self.c[i:i + block], s, out=t)
            np.add(self.b[i:i + block], t, out=self.a[i:i + block])

    def read(self) -> None:
        self.A @ self.x

    def run(self, rounds: int, names: tuple[str, ...] = ("copy", "triad", "read")) -> None:
        """Run the kernels ``rounds`` times, interleaved (a busy moment hits all alike)."""
        for _ in range(rounds):
            for name in names:
                self.best[name] = min(self.best[name], seconds(getattr(self, name)))

    def probe_read(self) -> None:
        """One more run of the read kernel."""
        self.run(1, ("read",))

    def free_stream_arrays(self) -> None:
        """Drop the copy and triad arrays (keep the read kernel's matrix)."""
        self.a = self.b = self.c = None

    def rates(self) -> dict[str, float]:
        """Bytes counted over the best time of each kernel run so far [B/s]."""
        return {k: self.counted[k] / t for k, t in self.best.items() if t < float("inf")}


def time_decode(model: Any, n_tokens: int, prompt: int = 4,
                between: Callable[[], Any] | None = None) -> tuple[float, float]:
    """Seconds per token [s] of ``n_tokens`` greedy decode steps of ``model`` after a
    ``prompt``-token warm-up, and the mean context of those steps [token] (the cache they read,
    the new token included). ``between()``, if given, runs after each step, outside the timed
    part."""
    model.reset()
    token = 1
    for _ in range(prompt):
        model.step(token)
    elapsed = 0.0
    for _ in range(n_tokens):
        t0 = time.perf_counter()
        token = int(np.argmax(model.step(token)))
        elapsed += time.perf_counter() - t0
        if between is not None:
            between()
    return elapsed / n_tokens, prompt + (n_tokens + 1) / 2
