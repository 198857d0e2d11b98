"""The share of a Mac's unified memory that macOS lets the GPU use by default.

On Apple silicon the GPU may use only Metal's ``recommendedMaxWorkingSetSize`` of the unified
memory: two thirds up to 32 GiB, three quarters above (:func:`macos_gpu_share`). Apple documents
no figure for it; llama.cpp logs it at start-up. Builds before mid-November 2023 print it in MiB
under the label "MB" (ggml-metal.m divided by 1024 * 1024; ggml-org/ggml commit 98b3155,
17 Nov 2023, switched the line to 1e6 bytes). Logs of 2023::

     8 GiB  5461.34 MiB  = 2/3  (li-plus/chatglm.cpp issue 76)
    16 GiB 10922.67 MiB  = 2/3  (M1 Pro; abetlen/llama-cpp-python issue 687)
    32 GiB 21845.34 MiB  = 2/3  (M1 Max: ggml-org/llama.cpp PR 2011; M2 Max: ollama issue 434)
    64 GiB 49152.00 MiB  = 3/4  (M1 Max; ggml-org/llama.cpp issue 1870)
    96 GiB 73728.00 MiB  = 3/4  (M2 Max; ggml-org/llama.cpp issue 3213)

No cited log covers 33 to 63 GiB; the rule puts those Macs (36, 48 GiB) with the larger ones.
macOS 26 gives more (a 128 GiB M5 Max 107.52 GiB, 84 %: antirez/ds4 PR 893), and
``sudo sysctl iogpu.wired_limit_mb=N`` sets it (0: the default; ark.marianposaceanu.com,
"Apple Silicon GPU memory limits"); the book keeps the default of the logs above.

Units: memory [B].
"""
from __future__ import annotations

from fractions import Fraction
from numbers import Real

from ..core.errors import InputError
from ..core.units import GiB

__all__ = ["MACOS_GPU_SHARE_SMALL", "MACOS_GPU_SHARE_LARGE", "MACOS_SMALL_MAX", "macos_gpu_share"]

#: Share of the memory macOS lets the GPU use on a Mac of at most :data:`MACOS_SMALL_MAX`.
MACOS_GPU_SHARE_SMALL = Fraction(2, 3)
#: Share of the memory macOS lets the GPU use on a larger Mac.
MACOS_GPU_SHARE_LARGE = Fraction(3, 4)
#: The largest memory [B] at which macOS's share is :data:`MACOS_GPU_SHARE_SMALL` (32 GiB).
MACOS_SMALL_MAX = 32 * GiB


def macos_gpu_share(capacity: int) -> Fraction:
    """Share of a Mac's unified memory ``capacity`` [B] that macOS lets the GPU use by default
    (Metal's ``recommendedMaxWorkingSetSize``): 2/3 for ``capacity <= 32 GiB``, else 3/4.

    >>> [str(macos_gpu_share(g * 2**30)) for g in (8, 32, 36, 96)]
    ['2/3', '2/3', '3/4', '3/4']
    >>> macos_gpu_share(-1)
    Traceback (most recent call last):
    ...
    llm_arithmetic.core.errors.InputError: capacity: must be a positive number of bytes, got -1
    """
    if isinstance(capacity, bool) or not isinstance(capacity, Real) or not capacity > 0:
        raise InputError(f"capacity: must be a positive number of bytes, got {capacity!r}")
    return MACOS_GPU_SHARE_SMALL if capacity <= MACOS_SMALL_MAX else MACOS_GPU_SHARE_LARGE
