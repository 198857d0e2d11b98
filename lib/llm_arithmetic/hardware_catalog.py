"""The hardware catalog: data only, one :class:`Hardware` record per device, each citing its source.

Loaded by :mod:`llm_arithmetic.hardware` (which defines the record types and then imports
``CATALOG`` from here). Import this module through ``llm_arithmetic.hardware``, not on its own.

Conventions
-----------
bandwidth
    Peak (theoretical) memory bandwidth in B/s, decimal: 1 GB/s = 1e9 B/s. Vendors quote
    bandwidth in powers of ten.
capacity
    Bytes, an ``int``. Vendors' memory sizes ("80GB HBM2e", "24GB GDDR6X", "8GB unified memory",
    a "32GB" DIMM) are binary sizes: the chips hold 2**30 bytes per "GB". We store the nominal
    size in GiB * 2**30. What software can allocate is somewhat lower (driver reservations, and on
    GDDR6 datacenter cards the ECC carve-out); the per-device notes give nvidia-smi totals where a
    public log confirmed them.
peaks
    Dense rates under the keys ``fp32``, ``tf32``, ``fp16``, ``bf16``, ``fp8``, ``int8``, ``int4``
    (only those the source gives). Figures printed "with sparsity" (2:4 structured sparsity) sit
    under ``<key>-sparse`` with ``dense=False``; they are twice the dense rate and unreachable by an
    ordinary matrix product. Two extra keys, used only where they matter:

    ``fp16-acc16``
        GeForce tensor cores: FP16 inputs with FP16 accumulation. On GeForce cards this runs at
        twice the FP32-accumulate rate, which is what ``fp16`` holds (the mode PyTorch/cuBLAS use
        by default, and the same rate as ``bf16``). On datacenter parts both modes run at the same
        rate, so no separate key is given.
    ``fp16-vector``
        Non-tensor (CUDA-core / shader) FP16 rate, kept because an article quoted it.

    ``engine`` is ``"tensor"`` (tensor/matrix cores), ``"vector"`` (CUDA cores, SIMD ALUs) or ``""``.
    For Apple GPUs and CPUs every rate is a ``"vector"`` rate.
article_figures
    Every figure a source article used for the device, with the article's bib key
    (``finbarr2023llamacpp``, ``karpathy2023note``, ``baseten2023guide``, ``kapoulkine2024sol``,
    ``calm2024sol``) and how it relates to the datasheet. Capacities the articles wrote as "24 GB"
    are stored as the articles computed with them (24e9 B, decimal), and the note says so.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from .hardware import ArticleFigure, Hardware, Peak

__all__ = ["CATALOG"]

# --- units (local, so that this module depends on nothing but hardware.py) ---------------------
_GB_S = 1e9  # bandwidth: decimal GB/s
_T = 1e12  # tera (FLOP/s or OP/s)
_G = 1e9  # giga
_GiB = 2**30  # memory sizes: vendors' "GB" of memory

_OPS = "OP/s"

_FINBARR = "finbarr2023llamacpp"
_KARPATHY = "karpathy2023note"
_BASETEN = "baseten2023guide"
_ZEUX = "kapoulkine2024sol"
_CALM = "calm2024sol"


def _vec(rate: float, unit: str = "FLOP/s") -> Peak:
    """Dense rate on vector units (CUDA cores, SIMD ALUs)."""
    return Peak(rate, dense=True, unit=unit, engine="vector")


def _tc(rate: float, unit: str = "FLOP/s") -> Peak:
    """Dense rate on tensor/matrix cores."""
    return Peak(rate, dense=True, unit=unit, engine="tensor")


def _tcs(rate: float, unit: str = "FLOP/s") -> Peak:
    """2:4-sparsity rate on tensor/matrix cores, as datasheets print it (not reachable dense)."""
    return Peak(rate, dense=False, unit=unit, engine="tensor")


def _peaks(d: dict[str, Peak]) -> Mapping[str, Peak]:
    return MappingProxyType(d)


# =================================================================================================
# Datacenter GPUs: NVIDIA
# =================================================================================================

# --- A100 (Ampere GA100). One compute spec for all four variants; they differ in memory. --------
# Datasheet: FP32 19.5 TF; TF32 156 | 312*; BF16 312 | 624*; FP16 312 | 624*; INT8 624 | 1248* TOPS
# (* = with sparsity). The current datasheet has no INT4 row; the Ampere architecture whitepaper
# (GA100 table, A100 column) gives INT4 Tensor 1248 | 2496* TOPS.
_A100_SOURCE = (
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
)
_A100_WHITEPAPER = (
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/"
    "nvidia-ampere-architecture-whitepaper.pdf"
)
_A100_PEAKS = _peaks({
    "fp32": _vec(19.5 * _T),
    "tf32": _tc(156 * _T),
    "tf32-sparse": _tcs(312 * _T),
    "fp16": _tc(312 * _T),
    "fp16-sparse": _tcs(624 * _T),
    "bf16": _tc(312 * _T),
    "bf16-sparse": _tcs(624 * _T),
    "int8": _tc(624 * _T, _OPS),
    "int8-sparse": _tcs(1248 * _T, _OPS),
    "int4": _tc(1248 * _T, _OPS),  # whitepaper, not in the current datasheet
    "int4-sparse": _tcs(2496 * _T, _OPS),  # whitepaper
})
_A100_NOTES = (
    "Compute peaks from the A100 datasheet; INT4 (1248 dense / 2496 sparse TOPS) from the Ampere "
    f"architecture whitepaper ({_A100_WHITEPAPER}), the current datasheet has no INT4 row. "
    "FP32 19.5 TF is the CUDA-core rate; 16-bit matrix products need tensor cores (312 TF dense). "
    "Capacity: nominal GB = GiB (the 80GB parts show 81,920 MiB in nvidia-smi)."
)

A100_40GB_PCIE = Hardware(
    name="a100-40gb-pcie",
    label="NVIDIA A100 40GB PCIe",
    kind="datacenter-gpu",
    bandwidth=1555 * _GB_S,
    capacity=40 * _GiB,
    peaks=_A100_PEAKS,
    source=_A100_SOURCE,
    notes="40GB HBM2, 1,555 GB/s (datasheet). " + _A100_NOTES,
    article_figures=(
        ArticleFigure(_CALM, "bandwidth", 1555e9, "matches the datasheet (1,555 GB/s)"),
        ArticleFigure(_CALM, "peak:fp32", 19.5e12, "notebook 'flops': the CUDA-core FP32 rate, matches"),
        ArticleFigure(
            _CALM, "peak:tf32", 156e12,
            "notebook 'tensorops', commented as FP32 on tensor cores and doubled for 16-bit weights: "
            "156 is the dense TF32 rate and 2 x 156 = 312 the dense FP16 rate; consistent",
        ),
        ArticleFigure(_CALM, "capacity", 40 * _GiB, "notebook vram = 40 GiB; matches"),
    ),
)

A100_80GB_PCIE = Hardware(
    name="a100-80gb-pcie",
    label="NVIDIA A100 80GB PCIe",
    kind="datacenter-gpu",
    bandwidth=1935 * _GB_S,
    capacity=80 * _GiB,
    peaks=_A100_PEAKS,
    source=_A100_SOURCE,
    notes="80GB HBM2e, 1,935 GB/s (datasheet). " + _A100_NOTES,
    article_figures=(
        ArticleFigure(_FINBARR, "bandwidth", 1935e9, "matches the datasheet (80GB PCIe: 1,935 GB/s)"),
        ArticleFigure(
            _FINBARR, "peak:fp16", 312e12,
            "'312 TFLOPS of FP16': the dense FP16 tensor-core rate, matches (sparse would be 624)",
        ),
        ArticleFigure(
            _FINBARR, "peak:int4", 1248e12,
            "'int4 compute is 1248 TOPS': the dense INT4 tensor rate of the Ampere whitepaper, "
            "correct. Caution: the current datasheet has no INT4 row, and there 1,248 TOPS is the "
            "*sparse* INT8 figure (dense INT8 is 624). Not the sparse INT4 figure (2,496).",
        ),
        ArticleFigure(
            _KARPATHY, "bandwidth", 1935e9,
            "'A100: 1935 GB/s'; the 80GB PCIe value (the note does not name the variant)",
        ),
        ArticleFigure(
            _KARPATHY, "peak:int4", 1248e12,
            "'1248 TOPS' with no precision named: finbarr's dense INT4 figure. The note compares it "
            "with the M2's '7 TFLOPS' (a float figure), an INT4-vs-float comparison; dense FP16 "
            "(312 TF) against the note's own 7 TF for the M2 gives ~45x, against the M2 GPU's "
            "datasheet-derived ~3.6 TF ~87x; either way not ~200x",
        ),
        ArticleFigure(_CALM, "bandwidth", 1935e9, "matches the datasheet"),
        ArticleFigure(_CALM, "peak:fp32", 19.5e12, "notebook 'flops': the CUDA-core FP32 rate, matches"),
        ArticleFigure(
            _CALM, "peak:tf32", 156e12,
            "notebook 'tensorops' (FP32 on tensor cores, doubled for 16-bit): dense TF32; "
            "2 x 156 = 312 = dense FP16; consistent",
        ),
        ArticleFigure(_CALM, "capacity", 80 * _GiB, "notebook vram = 80 GiB; matches"),
    ),
)

A100_40GB_SXM = Hardware(
    name="a100-40gb-sxm",
    label="NVIDIA A100 40GB SXM",
    kind="datacenter-gpu",
    bandwidth=1555 * _GB_S,
    capacity=40 * _GiB,
    peaks=_A100_PEAKS,
    source=_A100_SOURCE,
    notes="40GB HBM2, 1,555 GB/s (datasheet, same as the 40GB PCIe card). " + _A100_NOTES,
)

A100_80GB_SXM = Hardware(
    name="a100-80gb-sxm",
    label="NVIDIA A100 80GB SXM",
    kind="datacenter-gpu",
    bandwidth=2039 * _GB_S,
    capacity=80 * _GiB,
    peaks=_A100_PEAKS,
    source=_A100_SOURCE,
    notes="80GB HBM2e, 2,039 GB/s (datasheet). " + _A100_NOTES,
    article_figures=(
        ArticleFigure(_BASETEN, "bandwidth", 2039e9, "'A100 SXM 80 GB ... 2039 GB/s'; matches"),
        ArticleFigure(_BASETEN, "peak:fp16", 312e12, "'312 TFLOP/s' in the prefill estimate: dense FP16 tensor; matches"),
        ArticleFigure(
            _BASETEN, "capacity", 80e9,
            "'A100 SXM 80 GB'; the article's GB arithmetic is decimal, the card has 80 GiB "
            "(85.9e9 B)",
        ),
    ),
)

# --- H100 / H200 (Hopper GH100) ------------------------------------------------------------------
# Datasheet prints tensor rates with sparsity and says dense is one half. The Hopper whitepaper
# gives the dense rates to one decimal: SXM5 TF32 494.7, FP16/BF16 989.4, FP8/INT8 1978.9;
# PCIe TF32 378, FP16/BF16 756, FP8/INT8 1513.
_H100_SOURCE = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
_HOPPER_WHITEPAPER = "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper"
_H100_SXM_PEAKS = _peaks({
    "fp32": _vec(67 * _T),
    "tf32": _tc(494.7 * _T),
    "tf32-sparse": _tcs(989 * _T),
    "fp16": _tc(989.4 * _T),
    "fp16-sparse": _tcs(1979 * _T),
    "bf16": _tc(989.4 * _T),
    "bf16-sparse": _tcs(1979 * _T),
    "fp8": _tc(1978.9 * _T),
    "fp8-sparse": _tcs(3958 * _T),
    "int8": _tc(1978.9 * _T, _OPS),
    "int8-sparse": _tcs(3958 * _T, _OPS),
})

H100_SXM = Hardware(
    name="h100-sxm",
    label="NVIDIA H100 SXM (80GB)",
    kind="datacenter-gpu",
    bandwidth=3350 * _GB_S,
    capacity=80 * _GiB,
    peaks=_H100_SXM_PEAKS,
    source=_H100_SOURCE,
    notes=(
        "80GB HBM3, 3.35 TB/s. Sparse tensor rates as printed in the datasheet (TF32 989*, "
        "FP16/BF16 1,979*, FP8/INT8 3,958*); dense rates from the Hopper whitepaper "
        f"({_HOPPER_WHITEPAPER}): 494.7 / 989.4 / 1,978.9. FP32 67 TF is the CUDA-core rate. "
        "Capacity: nominal 80 GiB; nvidia-smi shows 81,559 MiB."
    ),
    article_figures=(
        ArticleFigure(_ZEUX, "bandwidth", 3350e9, "matches the datasheet (3.35 TB/s)"),
        ArticleFigure(_ZEUX, "peak:fp32", 67e12, "'67 TFLOPS': the CUDA-core FP32 rate; matches"),
        ArticleFigure(
            _ZEUX, "peak:tf32", 494e12,
            "'tensor cores provide ~494 TFLOPS without sparsity': the dense TF32 rate (494.7; "
            "datasheet 989* with sparsity), which fits the FP32 context of the sentence. Not the "
            "16-bit rate: dense FP16/BF16 is 989.4",
        ),
        ArticleFigure(
            _ZEUX, "peak:fp8", 1979e12,
            "'1979 TFLOPS for dense FP8': correct dense FP8 (1,978.9); the datasheet prints "
            "3,958 with sparsity. (1,979 is also the datasheet's *sparse* FP16 figure, so a reader "
            "checking the datasheet's FP16 row could be misled; the article's statement is right)",
        ),
    ),
)

H100_PCIE = Hardware(
    name="h100-pcie",
    label="NVIDIA H100 PCIe (80GB)",
    kind="datacenter-gpu",
    bandwidth=2000 * _GB_S,
    capacity=80 * _GiB,
    peaks=_peaks({
        "fp32": _vec(51 * _T),
        "tf32": _tc(378 * _T),
        "tf32-sparse": _tcs(756 * _T),
        "fp16": _tc(756 * _T),
        "fp16-sparse": _tcs(1513 * _T),
        "bf16": _tc(756 * _T),
        "bf16-sparse": _tcs(1513 * _T),
        "fp8": _tc(1513 * _T),
        "fp8-sparse": _tcs(3026 * _T),
        "int8": _tc(1513 * _T, _OPS),
        "int8-sparse": _tcs(3026 * _T, _OPS),
    }),
    source=_H100_SOURCE,
    notes=(
        "80GB HBM2e, 2 TB/s. Sparse rates from the datasheet (TF32 756*, FP16/BF16 1,513*, "
        "FP8/INT8 3,026*); dense rates from the Hopper whitepaper (378 / 756 / 1,513). FP32 51 TF "
        "(whitepaper: 51.2). Later datasheet revisions list the H100 NVL (94GB, 3.9 TB/s) instead "
        "of this card. Capacity: nominal 80 GiB."
    ),
    article_figures=(
        ArticleFigure(_CALM, "bandwidth", 2000e9, "matches the datasheet (2 TB/s)"),
        ArticleFigure(_CALM, "peak:fp32", 51e12, "notebook 'flops': the CUDA-core FP32 rate; matches"),
        ArticleFigure(
            _CALM, "peak:tf32", 758e12,
            "notebook 'tensorops', commented as the FP32 tensor-core rate and doubled for 16-bit "
            "weights. The dense TF32 rate is 378; 758 is about the *sparse* TF32 figure (756*) or "
            "the dense FP16 rate (756). Doubled, the notebook uses ~1,516 TF for 16-bit, about the "
            "sparse FP16 figure (1,513*): 2x the dense FP16 rate. Inconsistent with its A100 entry "
            "(156 = dense TF32)",
        ),
        ArticleFigure(_CALM, "capacity", 80 * _GiB, "notebook vram = 80 GiB; matches"),
    ),
)

H200 = Hardware(
    name="h200",
    label="NVIDIA H200 SXM (141GB)",
    kind="datacenter-gpu",
    bandwidth=4800 * _GB_S,
    capacity=141 * _GiB,
    peaks=_H100_SXM_PEAKS,
    source="https://www.nvidia.com/en-us/data-center/h200/",
    notes=(
        "141GB HBM3e, 4.8 TB/s. Compute identical to the H100 SXM (datasheet: FP32 67, TF32 989*, "
        "FP16/BF16 1,979*, FP8/INT8 3,958*; dense = half, to one decimal from the Hopper "
        "whitepaper). Capacity: the '141GB' is binary: nvidia-smi shows 143,771 MiB (140.4 GiB); "
        "stored as nominal 141 GiB."
    ),
)

# --- A10, L4, T4 (PCIe inference cards, GDDR6 with ECC) ------------------------------------------

A10 = Hardware(
    name="a10",
    label="NVIDIA A10",
    kind="datacenter-gpu",
    bandwidth=600 * _GB_S,
    capacity=24 * _GiB,
    peaks=_peaks({
        "fp32": _vec(31.2 * _T),
        "tf32": _tc(62.5 * _T),
        "tf32-sparse": _tcs(125 * _T),
        "fp16": _tc(125 * _T),
        "fp16-sparse": _tcs(250 * _T),
        "bf16": _tc(125 * _T),
        "bf16-sparse": _tcs(250 * _T),
        "int8": _tc(250 * _T, _OPS),
        "int8-sparse": _tcs(500 * _T, _OPS),
        "int4": _tc(500 * _T, _OPS),
        "int4-sparse": _tcs(1000 * _T, _OPS),
    }),
    source="https://www.nvidia.com/en-us/data-center/products/a10-gpu/",
    notes=(
        "Ampere GA102, 24GB GDDR6 (not HBM), 600 GB/s. Datasheet: FP32 31.2; TF32 62.5 | 125*; "
        "BF16/FP16 125 | 250*; INT8 250 | 500*; INT4 500 | 1,000* (* with sparsity). Capacity: "
        "nominal 24 GiB; with ECC on (the default) nvidia-smi shows 23,028 MiB (22.5 GiB). AWS's "
        "A10G has the same memory but different tensor rates: not this entry."
    ),
    article_figures=(
        ArticleFigure(_BASETEN, "peak:fp16", 125e12, "'FP16 Tensor Core ... 125 TFLOPS': dense; matches (article ignores sparse figures)"),
        ArticleFigure(_BASETEN, "bandwidth", 600e9, "'600 GB/s'; matches"),
        ArticleFigure(
            _BASETEN, "capacity", 24e9,
            "'24 GB of VRAM'; the article subtracts decimal GB (24 - 2 x 7 = 10 GB free). The card "
            "has 24 GiB = 25.8e9 B (22.5 GiB usable with ECC). The article also calls this memory "
            "'HBM'; the A10 uses GDDR6",
        ),
    ),
)

L4 = Hardware(
    name="l4",
    label="NVIDIA L4",
    kind="datacenter-gpu",
    bandwidth=300 * _GB_S,
    capacity=24 * _GiB,
    peaks=_peaks({
        "fp32": _vec(30.3 * _T),
        "tf32": _tc(60 * _T),
        "tf32-sparse": _tcs(120 * _T),
        "fp16": _tc(121 * _T),
        "fp16-sparse": _tcs(242 * _T),
        "bf16": _tc(121 * _T),
        "bf16-sparse": _tcs(242 * _T),
        "fp8": _tc(242.5 * _T),
        "fp8-sparse": _tcs(485 * _T),
        "int8": _tc(242.5 * _T, _OPS),
        "int8-sparse": _tcs(485 * _T, _OPS),
    }),
    source="https://www.nvidia.com/en-us/data-center/l4/",
    notes=(
        "Ada AD104, 24GB GDDR6, 300 GB/s. The datasheet prints tensor rates with sparsity only "
        "(TF32 120*, FP16/BF16 242*, FP8/INT8 485*) and says dense is one half; the dense values "
        "here are those halves. Capacity: nominal 24 GiB; nvidia-smi shows 23,034 MiB (ECC on)."
    ),
)

T4 = Hardware(
    name="t4",
    label="NVIDIA T4",
    kind="datacenter-gpu",
    bandwidth=320 * _GB_S,
    capacity=16 * _GiB,
    peaks=_peaks({
        "fp32": _vec(8.1 * _T),
        "fp16": _tc(65 * _T),
        "int8": _tc(130 * _T, _OPS),
        "int4": _tc(260 * _T, _OPS),
    }),
    source="https://www.nvidia.com/en-us/data-center/tesla-t4/",
    notes=(
        "Turing TU104, 16GB GDDR6 on a 256-bit bus at 10 Gbps = 320 GB/s (NVIDIA board "
        "specification: 'up to 320 GBytes/s'; product page: '320+ GB/s'). Peaks: FP32 8.1, "
        "mixed-precision FP16/FP32 65 TF (tensor), INT8 130, INT4 260 TOPS; Turing has no "
        "structured sparsity, so these are dense. No BF16, TF32 or FP8. Capacity: nominal 16 GiB; "
        "nvidia-smi shows 15,360 MiB (ECC on, the default)."
    ),
    article_figures=(
        ArticleFigure(
            _BASETEN, "bandwidth", 300e9,
            "'300 GB/s': below the board specification of 320 GB/s (256-bit x 10 Gbps; product "
            "page '320+ GB/s'); times predicted from it are 6.7% longer than the spec gives",
        ),
        ArticleFigure(_BASETEN, "peak:fp16", 65e12, "'65 TFLOP/s': the mixed-precision FP16 tensor rate (dense); matches"),
        ArticleFigure(
            _BASETEN, "capacity", 16e9,
            "'16 GB of VRAM' (leaving '2 GB' after 14 GB of weights, decimal arithmetic). The card "
            "has 16 GiB = 17.2e9 B, 15 GiB usable with ECC",
        ),
    ),
)

# =================================================================================================
# Datacenter GPUs: AMD
# =================================================================================================

MI300X = Hardware(
    name="mi300x",
    label="AMD Instinct MI300X",
    kind="datacenter-gpu",
    bandwidth=5300 * _GB_S,
    capacity=192 * _GiB,
    peaks=_peaks({
        "fp32": _vec(163.4 * _T),  # the matrix FP32 rate is also 163.4
        "tf32": _tc(653.7 * _T),
        "tf32-sparse": _tcs(1307.4 * _T),
        "fp16": _tc(1307.4 * _T),
        "fp16-sparse": _tcs(2614.9 * _T),
        "bf16": _tc(1307.4 * _T),
        "bf16-sparse": _tcs(2614.9 * _T),
        "fp8": _tc(2614.9 * _T),
        "fp8-sparse": _tcs(5229.8 * _T),
        "int8": _tc(2614.9 * _T, _OPS),
        "int8-sparse": _tcs(5229.8 * _T, _OPS),
    }),
    source="https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html",
    notes=(
        "CDNA 3, 192GB HBM3 (8 stacks x 24 GiB), 5.3 TB/s. AMD lists dense peaks and separate "
        "'with structured sparsity' figures (2x). 'tensor' here means AMD's matrix cores. "
        "Capacity: nominal 192 GiB."
    ),
)

# =================================================================================================
# Consumer GPUs: NVIDIA GeForce
# =================================================================================================
# GeForce tensor cores run FP16 with FP32 accumulation at half the FP16-accumulate rate; "fp16"
# holds the FP32-accumulate rate (what frameworks use), "fp16-acc16" the other.

RTX_3090 = Hardware(
    name="rtx-3090",
    label="NVIDIA GeForce RTX 3090",
    kind="consumer-gpu",
    bandwidth=936 * _GB_S,
    capacity=24 * _GiB,
    peaks=_peaks({
        "fp32": _vec(35.6 * _T),
        "fp16-vector": _vec(35.6 * _T),
        "tf32": _tc(35.6 * _T),
        "tf32-sparse": _tcs(71 * _T),
        "fp16": _tc(71 * _T),
        "fp16-sparse": _tcs(142 * _T),
        "fp16-acc16": _tc(142 * _T),
        "fp16-acc16-sparse": _tcs(284 * _T),
        "bf16": _tc(71 * _T),
        "bf16-sparse": _tcs(142 * _T),
        "int8": _tc(284 * _T, _OPS),
        "int8-sparse": _tcs(568 * _T, _OPS),
        "int4": _tc(568 * _T, _OPS),
        "int4-sparse": _tcs(1136 * _T, _OPS),
    }),
    source=(
        "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf"
    ),
    notes=(
        "Ampere GA102, 24GB GDDR6X, 384-bit at 19.5 Gbps = 936 GB/s. Rates from the GA102 "
        "whitepaper, appendix A (GeForce RTX 3090): FP32 35.6; FP16 tensor 71 | 142* (FP32 "
        "accumulate) and 142 | 284* (FP16 accumulate); TF32 35.6 | 71*; INT8 284 | 568*; INT4 "
        "568 | 1,136*. Capacity: nominal 24 GiB (no ECC)."
    ),
    article_figures=(
        ArticleFigure(
            _FINBARR, "capacity", 24e9,
            "'3090s/4090s, which have 24GB of RAM', compared with decimal-GB model sizes; the card "
            "has 24 GiB = 25.8e9 B",
        ),
    ),
)

_ADA_WHITEPAPER = "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf"

RTX_4090 = Hardware(
    name="rtx-4090",
    label="NVIDIA GeForce RTX 4090",
    kind="consumer-gpu",
    bandwidth=1008 * _GB_S,
    capacity=24 * _GiB,
    peaks=_peaks({
        "fp32": _vec(82.6 * _T),
        "fp16-vector": _vec(82.6 * _T),
        "tf32": _tc(82.6 * _T),
        "tf32-sparse": _tcs(165.2 * _T),
        "fp16": _tc(165.2 * _T),
        "fp16-sparse": _tcs(330.4 * _T),
        "fp16-acc16": _tc(330.3 * _T),
        "fp16-acc16-sparse": _tcs(660.6 * _T),
        "bf16": _tc(165.2 * _T),
        "bf16-sparse": _tcs(330.4 * _T),
        "fp8": _tc(660.6 * _T),
        "fp8-sparse": _tcs(1321.2 * _T),
        "int8": _tc(660.6 * _T, _OPS),
        "int8-sparse": _tcs(1321.2 * _T, _OPS),
        "int4": _tc(1321.2 * _T, _OPS),
        "int4-sparse": _tcs(2642.4 * _T, _OPS),
    }),
    source=_ADA_WHITEPAPER,
    notes=(
        "Ada AD102, 24GB GDDR6X, 384-bit at 21 Gbps = 1,008 GB/s. Rates from the Ada architecture "
        "whitepaper (appendix, RTX 4090): FP32 82.6 (NVIDIA's product page rounds to '83 shader "
        "TFLOPS'); FP16 tensor 165.2 | 330.4* (FP32 accumulate) and 330.3 | 660.6* (FP16 "
        "accumulate); BF16 165.2 | 330.4*; TF32 82.6 | 165.2*; FP8 660.6 | 1,321.2* (as the "
        "whitepaper lists it with FP16 accumulation; third-party tables report half that with FP32 "
        "accumulation: unconfirmed); INT8 660.6 | 1,321.2*; INT4 1,321.2 | 2,642.4*. Capacity: "
        "nominal 24 GiB."
    ),
    article_figures=(
        ArticleFigure(_FINBARR, "bandwidth", 1008e9, "matches (1,008 GB/s)"),
        ArticleFigure(
            _FINBARR, "peak:fp16", 82.6e12,
            "'82.6 TFLOPS of FP16': the non-tensor (shader) FP16 = FP32 rate. The dense tensor "
            "FP16 rate is 165.2 (FP32 accumulate) or 330.3 (FP16 accumulate), so the article "
            "understates 16-bit matmul compute 2-4x (its conclusion, memory-bound, only gets "
            "stronger)",
        ),
        ArticleFigure(
            _FINBARR, "capacity", 24e9,
            "'24GB of RAM', compared with decimal-GB model sizes; the card has 24 GiB = 25.8e9 B",
        ),
        ArticleFigure(_ZEUX, "bandwidth", 1008e9, "matches"),
        ArticleFigure(_ZEUX, "peak:fp32", 83e12, "'83 TFLOPS': the FP32 shader rate (82.6), rounded as on NVIDIA's product page"),
        ArticleFigure(_CALM, "bandwidth", 1008e9, "matches"),
        ArticleFigure(_CALM, "peak:fp32", 83e12, "notebook 'flops': FP32 shader rate, rounded; matches"),
        ArticleFigure(
            _CALM, "peak:tf32", 660e12,
            "notebook 'tensorops', commented as the FP32 tensor-core rate and doubled for 16-bit "
            "weights. Dense TF32 is 82.6 (165.2* sparse); 660 is the dense FP8/INT8 rate or the "
            "sparse FP16-accumulate figure (660.6*). Doubled, the notebook uses ~1,320 TF for "
            "16-bit: 8x the dense FP16 (FP32-acc) rate of 165.2, 4x the FP16-acc rate",
        ),
        ArticleFigure(_CALM, "capacity", 24 * _GiB, "notebook vram = 24 GiB; matches"),
    ),
)

RTX_4080 = Hardware(
    name="rtx-4080",
    label="NVIDIA GeForce RTX 4080 (16GB)",
    kind="consumer-gpu",
    bandwidth=716.8 * _GB_S,
    capacity=16 * _GiB,
    peaks=_peaks({
        "fp32": _vec(48.7 * _T),
        "fp16-vector": _vec(48.7 * _T),
        "tf32": _tc(48.7 * _T),
        "tf32-sparse": _tcs(97.5 * _T),
        "fp16": _tc(97.5 * _T),
        "fp16-sparse": _tcs(194.9 * _T),
        "fp16-acc16": _tc(194.9 * _T),
        "fp16-acc16-sparse": _tcs(389.9 * _T),
        "bf16": _tc(97.5 * _T),
        "bf16-sparse": _tcs(194.9 * _T),
        "fp8": _tc(389.9 * _T),
        "fp8-sparse": _tcs(779.8 * _T),
        "int8": _tc(389.9 * _T, _OPS),
        "int8-sparse": _tcs(779.8 * _T, _OPS),
        "int4": _tc(779.8 * _T, _OPS),
        "int4-sparse": _tcs(1559.6 * _T, _OPS),
    }),
    source=_ADA_WHITEPAPER,
    notes=(
        "Ada AD103, 16GB GDDR6X, 256-bit at 22.4 Gbps = 716.8 GB/s. Rates from the Ada "
        "whitepaper (RTX 4080): FP32 48.7; FP16 tensor 97.5 | 194.9* (FP32 acc) and 194.9 | "
        "389.9* (FP16 acc); FP8 389.9 | 779.8*. INT8/INT4 values follow the 2x-per-halving "
        "pattern and may differ from the whitepaper's rounding in the last digit. Capacity: "
        "nominal 16 GiB."
    ),
    article_figures=(
        ArticleFigure(_ZEUX, "bandwidth", 716e9, "'716 GB/s': the 716.8 GB/s spec, truncated"),
    ),
)

# =================================================================================================
# Apple silicon (unified memory shared by CPU and GPU)
# =================================================================================================
# Apple publishes bandwidth and memory; GPU TFLOPS only for some chips (M1: 2.6, M1 Max: 10.4).
# Others are cores x 128 ALUs x 2 FLOP x clock from third-party measurements. Apple GPUs run FP16
# arithmetic at the same rate as FP32 (M1 and later; philipturner/metal-benchmarks), so "fp16"
# equals "fp32". The Neural Engine (TOPS figures in Apple's material) is not a GPU rate and is
# left out. Capacity: Apple's "GB" of unified memory is GiB.
_METAL_BENCH = "https://github.com/philipturner/metal-benchmarks"

M1 = Hardware(
    name="m1",
    label="Apple M1 (8-core GPU), MacBook Air 8GB",
    kind="apple-silicon",
    bandwidth=68.25 * _GB_S,
    capacity=8 * _GiB,
    peaks=_peaks({
        "fp32": _vec(2.6 * _T),
        "fp16": _vec(2.6 * _T),
    }),
    source="https://www.apple.com/newsroom/2020/11/apple-unleashes-m1/",
    notes=(
        "8-core GPU variant (the base MacBook Air had a 7-core GPU). Apple: 2.6 TFLOPS for the "
        "8-core GPU (FP32; 8 x 128 ALUs x 2 x 1.278 GHz = 2.617). FP16 runs at the same rate "
        f"(measured, {_METAL_BENCH}); Apple publishes no FP16 figure. Bandwidth is not published by "
        "Apple: 128-bit LPDDR4X-4266 gives 68.25 GB/s (the commonly quoted value). Capacity: the "
        "8GB configuration (16GB was optional), 8 GiB."
    ),
    article_figures=(
        ArticleFigure(
            _FINBARR, "bandwidth", 68.25e9,
            "'68.25 GB/s': matches the LPDDR4X-4266 x 128-bit figure (Apple publishes none)",
        ),
        ArticleFigure(
            _FINBARR, "peak:fp16", 5.5e12,
            "'5.5 TFLOPS of fp16': the post's link for it is a benchmark of the M1 Max's GPU "
            "(tlkh.dev, 'Benchmarking the Apple M1 Max', 2021), a much larger chip. Apple gives "
            "2.6 TFLOPS for the M1's 8-core GPU, which runs FP16 at the FP32 rate: about 2x too "
            "high for the M1",
        ),
    ),
)

M1_MAX = Hardware(
    name="m1-max",
    label="Apple M1 Max (32-core GPU, 64GB)",
    kind="apple-silicon",
    bandwidth=400 * _GB_S,
    capacity=64 * _GiB,
    peaks=_peaks({
        "fp32": _vec(10.4 * _T),
        "fp16": _vec(10.4 * _T),
    }),
    source=(
        "https://www.apple.com/newsroom/2021/10/"
        "introducing-m1-pro-and-m1-max-the-most-powerful-chips-apple-has-ever-built/"
    ),
    notes=(
        "Apple: 400GB/s, up to 64GB, 32-core GPU 10.4 TFLOPS (FP32). FP16 at the FP32 rate "
        f"({_METAL_BENCH}). Capacity: the largest configuration, 64 GiB."
    ),
)

M2 = Hardware(
    name="m2",
    label="Apple M2 (10-core GPU, 24GB)",
    kind="apple-silicon",
    bandwidth=100 * _GB_S,
    capacity=24 * _GiB,
    peaks=_peaks({
        "fp32": _vec(3.579 * _T),
        "fp16": _vec(3.579 * _T),
    }),
    source="https://www.apple.com/newsroom/2022/06/apple-unveils-m2-with-breakthrough-performance-and-capabilities/",
    notes=(
        "Apple: 100GB/s, up to 24GB LPDDR5, up to 10-core GPU. GPU rate not in Apple's "
        f"announcement: 10 x 128 ALUs x 2 x 1.398 GHz = 3.579 TFLOPS ({_METAL_BENCH}; usually "
        "rounded to 3.6); FP16 at the same rate. Capacity: the largest configuration, 24 GiB (8 and "
        "16 GB also sold)."
    ),
    article_figures=(
        ArticleFigure(_KARPATHY, "bandwidth", 100e9, "'MacBook M2: 100 GB/s'; matches"),
        ArticleFigure(
            _KARPATHY, "peak:fp16", 7e12,
            "'7 TFLOPS', precision not named; about 2x the 10-core GPU's 3.6 TF (FP32 = FP16 on "
            "this GPU), i.e. it assumes a 2:1 FP16 rate the M2 GPU does not have; not the Neural "
            "Engine either (15.8 TOPS)",
        ),
        ArticleFigure(
            _ZEUX, "bandwidth", 100e9,
            "'theoretical 100 GB/s' (M2 Air); matches. The article measures ~65% of it from the CPU",
        ),
    ),
)

M2_PRO = Hardware(
    name="m2-pro",
    label="Apple M2 Pro (19-core GPU, 32GB)",
    kind="apple-silicon",
    bandwidth=200 * _GB_S,
    capacity=32 * _GiB,
    peaks=_peaks({
        "fp32": _vec(6.8 * _T),
        "fp16": _vec(6.8 * _T),
    }),
    source="https://www.apple.com/newsroom/2023/01/apple-unveils-m2-pro-and-m2-max-next-generation-chips-for-next-level-workflows/",
    notes=(
        "Apple: 200GB/s, up to 32GB, up to 19-core GPU. GPU rate not published by Apple: "
        "19 x 128 x 2 x 1.398 GHz = 6.8 TFLOPS (assumes the M2 clock; third-party). Capacity: the "
        "largest configuration, 32 GiB."
    ),
    article_figures=(
        ArticleFigure(_FINBARR, "bandwidth", 200e9, "'200 GB/s'; matches Apple"),
    ),
)

M2_MAX = Hardware(
    name="m2-max",
    label="Apple M2 Max (38-core GPU, 96GB)",
    kind="apple-silicon",
    bandwidth=400 * _GB_S,
    capacity=96 * _GiB,
    peaks=_peaks({
        "fp32": _vec(13.6 * _T),
        "fp16": _vec(13.6 * _T),
    }),
    source="https://www.apple.com/newsroom/2023/01/apple-unveils-m2-pro-and-m2-max-next-generation-chips-for-next-level-workflows/",
    notes=(
        "Apple: 400GB/s, up to 96GB, up to 38-core GPU. GPU rate not published by Apple: "
        "38 x 128 x 2 x 1.398 GHz = 13.6 TFLOPS (third-party). Capacity: the largest "
        "configuration, 96 GiB."
    ),
    article_figures=(
        ArticleFigure(_FINBARR, "bandwidth", 400e9, "'400 GB/s'; matches Apple"),
    ),
)

M3_MAX = Hardware(
    name="m3-max",
    label="Apple M3 Max (16-core CPU, 40-core GPU, 128GB)",
    kind="apple-silicon",
    bandwidth=400 * _GB_S,
    capacity=128 * _GiB,
    peaks=_peaks({
        "fp32": _vec(14.2 * _T),
        "fp16": _vec(14.2 * _T),
    }),
    source="https://www.apple.com/newsroom/2023/10/apple-unveils-m3-m3-pro-and-m3-max-the-most-advanced-chips-for-a-personal-computer/",
    notes=(
        "The 16-core CPU / 40-core GPU variant: 400GB/s (the 14-core / 30-core variant has "
        "300GB/s), up to 128GB. GPU TFLOPS: not published by Apple; 14.2 is a commonly quoted "
        "third-party estimate (40 x 128 x 2 x ~1.39 GHz); some databases list 16.4 (assuming "
        "1.6 GHz). Unconfirmed. Capacity: the largest configuration, 128 GiB."
    ),
)

M4_MAX = Hardware(
    name="m4-max",
    label="Apple M4 Max (16-core CPU, 40-core GPU, 128GB)",
    kind="apple-silicon",
    bandwidth=546 * _GB_S,
    capacity=128 * _GiB,
    peaks=_peaks({
        "fp32": _vec(18.4 * _T),
        "fp16": _vec(18.4 * _T),
    }),
    source="https://www.apple.com/newsroom/2024/10/apple-introduces-m4-pro-and-m4-max/",
    notes=(
        "The 16-core CPU / 40-core GPU variant: 546GB/s (the 14-core / 32-core variant has "
        "410GB/s), up to 128GB LPDDR5X. GPU TFLOPS: not published by Apple; 18.4 is a commonly "
        "quoted third-party estimate (40 x 128 x 2 x ~1.8 GHz). Unconfirmed. Capacity: the largest "
        "configuration, 128 GiB."
    ),
)

# =================================================================================================
# CPUs
# =================================================================================================

RYZEN_7950X = Hardware(
    name="ryzen-7950x",
    label="AMD Ryzen 9 7950X (2 x DDR5-5200, 64GB)",
    kind="cpu",
    bandwidth=83.2 * _GB_S,
    capacity=64 * _GiB,
    peaks=_peaks({
        "fp32": _vec(2735 * _G),
    }),
    source="https://www.amd.com/en/products/processors/desktops/ryzen/7000-series/amd-ryzen-9-7950x.html",
    notes=(
        "16 Zen 4 cores, base 4.5 GHz, boost up to 5.7 GHz; two DDR5 channels, officially "
        "DDR5-5200 with one DIMM per channel: 2 x 64 bit x 5200 MT/s = 83.2 GB/s theoretical "
        "(AMD's page gives the memory speed, not a bandwidth). FP32 peak: the AIDA64 "
        "single-precision figure the zeux article cites (2,735 GFLOPS; the review is not named). "
        "Computed: 16 cores x 32 FLOP/cycle (two 256-bit FMA pipes) = 2,304 GFLOPS at the 4.5 GHz "
        "base clock, 2,918 at 5.7 GHz; 2,735 corresponds to ~5.3 GHz all-core. No FP16 peak is "
        "given (Zen 4 has no native FP16 arithmetic). Capacity: 64 GiB = 2 x 32GB DIMMs, the "
        "largest two-DIMM configuration at launch (four DIMMs are officially limited to "
        "DDR5-3600, i.e. 57.6 GB/s)."
    ),
    article_figures=(
        ArticleFigure(
            _ZEUX, "bandwidth", 67e9,
            "'67 GB/s': an AIDA64 measured read bandwidth (article's footnote), not the 83.2 GB/s "
            "theoretical peak of dual-channel DDR5-5200 (81% of it)",
        ),
        ArticleFigure(
            _ZEUX, "bandwidth", 50e9,
            "'~50 GB/s': what the author's own 7950X sustains with slower memory (measured)",
        ),
        ArticleFigure(
            _ZEUX, "peak:fp32", 2735e9,
            "'2735 GFLOPS': AIDA64 measured FP32; within the computed 2,304-2,918 GFLOPS range",
        ),
    ),
)

# =================================================================================================
# Single-board computers
# =================================================================================================

RASPBERRY_PI_4 = Hardware(
    name="raspberry-pi-4",
    label="Raspberry Pi 4 Model B (4GB)",
    kind="sbc",
    bandwidth=12.8 * _GB_S,
    capacity=4 * _GiB,
    peaks=_peaks({
        "fp32": _vec(48 * _G),
    }),
    source="https://www.raspberrypi.com/products/raspberry-pi-4-model-b/specifications/",
    notes=(
        "Broadcom BCM2711, 4 x Cortex-A72 at 1.5 GHz (1.8 GHz on later board revisions), 4GB "
        "LPDDR4-3200 (launch material said LPDDR4-2400). Neither peak is published: bandwidth "
        "computed as 32-bit bus x 3200 MT/s = 12.8 GB/s; FP32 computed as 4 cores x 1.5 GHz x "
        "8 FLOP/cycle (one 128-bit NEON FMA per cycle) = 48 GFLOPS (57.6 at 1.8 GHz). Both "
        "unconfirmed by the vendor. Capacity: 4 GiB."
    ),
    article_figures=(
        ArticleFigure(
            _FINBARR, "peak:fp32", 13.5e9,
            "'13.5 GFLOPS of compute', no precision or source given (the author says he could not "
            "find specs). About 28% of the computed 48 GFLOPS FP32 NEON peak; it looks like a "
            "measured (LINPACK-class, FP64) result rather than a peak. Unconfirmed",
        ),
        ArticleFigure(
            _FINBARR, "bandwidth", 4e9,
            "'~4GB/s', no source; about a third of the 12.8 GB/s theoretical LPDDR4-3200 x 32-bit "
            "figure, so a measured-looking value, not a peak",
        ),
        ArticleFigure(_FINBARR, "capacity", 4e9, "'4GB RAM Raspberry Pi'; the board has 4 GiB"),
    ),
)

# =================================================================================================

CATALOG: tuple[Hardware, ...] = (
    # datacenter GPUs
    A100_40GB_PCIE,
    A100_80GB_PCIE,
    A100_40GB_SXM,
    A100_80GB_SXM,
    H100_SXM,
    H100_PCIE,
    H200,
    A10,
    L4,
    T4,
    MI300X,
    # consumer GPUs
    RTX_3090,
    RTX_4090,
    RTX_4080,
    # Apple silicon
    M1,
    M1_MAX,
    M2,
    M2_PRO,
    M2_MAX,
    M3_MAX,
    M4_MAX,
    # CPUs
    RYZEN_7950X,
    # single-board computers
    RASPBERRY_PI_4,
)
