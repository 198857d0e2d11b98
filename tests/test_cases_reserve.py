"""Chapter 15's memory reserve on Apple silicon, and the memory chapters 18 and 19 let a model use
on a Mac, against macOS's default GPU working set as llama.cpp logged it
(``recommendedMaxWorkingSetSize``, in MiB: ggml-metal.m divided it by 1024 * 1024 before
mid-November 2023), by the Mac's memory, not against the library's constants."""
from __future__ import annotations

from dataclasses import replace

import pytest

from llm_arithmetic import estimate, get_hardware, get_model

MiB, GiB = 2**20, 2**30

#: (memory [GiB], logged working set [MiB], where it was logged)
LOGGED = [
    (8, 5461.34, "li-plus/chatglm.cpp issue 76"),
    (16, 10922.67, "abetlen/llama-cpp-python issue 687, M1 Pro"),
    (32, 21845.34, "ggml-org/llama.cpp PR 2011, M1 Max; ollama/ollama issue 434, M2 Max"),
    (64, 49152.00, "ggml-org/llama.cpp issue 1870, M1 Max"),
    (96, 73728.00, "ggml-org/llama.cpp issue 3213, M2 Max"),
]


@pytest.mark.parametrize("gib, logged_mib, where", LOGGED)
def test_an_apple_reserve_is_what_macos_withholds(gib, logged_mib, where):
    """The reserve of a Mac of that memory is the share the log leaves out of the GPU's reach
    (the log's two decimals: within 1e-5)."""
    from llm_arithmetic.book.cases import reserve_share

    mac = replace(get_hardware("m2-max"), capacity=gib * GiB)
    assert reserve_share(mac) == pytest.approx(1 - logged_mib * MiB / (gib * GiB), abs=1e-5)


@pytest.mark.parametrize("gib, logged_mib, where", LOGGED)
def test_a_mac_s_usable_memory_is_the_logged_working_set(gib, logged_mib, where):
    """Chapters 18 and 19: what a model may use on a Mac of that memory is the logged working set
    (to the log's two decimals), at every size, not only 8 GB."""
    from llm_arithmetic.book.reproductions import mac_usable

    mac = replace(get_hardware("m2-pro"), capacity=gib * GiB)
    assert mac_usable(mac) / MiB == pytest.approx(logged_mib, abs=0.01)


def test_chapter_15_m2_max_batch_follows_the_logged_working_set():
    """Mixtral 8x7B in Q4_0 at 4,096 tokens on the 96 GiB M2 Max: the largest batch the chapter
    finds is the one that fits in the 73,728 MiB the M2 Max of issue 3213 logged."""
    from llm_arithmetic.book.cases import on

    m2max, mx = get_hardware("m2-max"), get_model("mixtral-8x7b")
    logged = estimate(mx, hardware=m2max, weights="q4_0", context=4096,
                      overhead=m2max.capacity - 73728 * MiB)
    assert on(mx, m2max, weights="q4_0", context=4096).max_batch == logged.max_batch


def test_other_chips_keep_the_chapter_s_tenth():
    from llm_arithmetic.book.cases import reserve_share

    assert reserve_share(get_hardware("h100-sxm")) == pytest.approx(0.10)
    assert reserve_share(get_hardware("raspberry-pi-4"), share=0.2) == pytest.approx(0.2)
