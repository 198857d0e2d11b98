"""Chips: memory bandwidth, capacity and peak arithmetic rates, each with its source.

A :class:`Hardware` is a frozen record. Peak rates are kept per precision and each one says
whether it is a *dense* figure or a *sparse* (2:4 structured sparsity) figure, because
datasheets often print the sparse number, which is twice the dense one and unreachable for an
ordinary matrix product. The estimates of this package use dense figures only.

Where a source article used another figure than the datasheet (for example finbarr's RTX 4090
"82.6 TFLOPS of FP16", which is the card's non-tensor rate, while its dense FP16 tensor rate is
twice that), the article's figure is kept in :attr:`Hardware.article_figures` with the name of
the article, next to the datasheet value.

Units: bandwidth [B/s], capacity [B], peak rates [FLOP/s] (or [OP/s] for integer formats).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from ._lookup import lookup

__all__ = ["Peak", "Hardware", "ArticleFigure", "HARDWARE", "get_hardware", "hardware_names"]


@dataclass(frozen=True)
class Peak:
    """A peak arithmetic rate for one number format.

    Attributes
    ----------
    rate : float
        Peak rate [FLOP/s] (or [OP/s] for integer formats).
    dense : bool
        True for a dense figure; False when the source prints a 2:4-sparsity figure.
    unit : str
        Either "FLOP/s" or "OP/s".
    engine : str
        Which units deliver it: "tensor" (tensor/matrix cores), "vector" (CUDA cores, SIMD),
        or "" when the source does not say.
    """

    rate: float
    dense: bool = True
    unit: str = "FLOP/s"
    engine: str = ""


@dataclass(frozen=True)
class ArticleFigure:
    """A figure a source article used for a device, next to the datasheet value.

    Attributes
    ----------
    article : str
        Key of the article in ``references.bib`` (e.g. ``"finbarr2023llamacpp"``).
    quantity : str
        Which quantity: ``"bandwidth"``, ``"capacity"`` or ``"peak:<precision>"``.
    value : float
        The value the article used, in the unit of that quantity ([B/s], [B], [FLOP/s]).
    note : str
        How it relates to the datasheet (e.g. "sparse int4 figure").
    """

    article: str
    quantity: str
    value: float
    note: str = ""


@dataclass(frozen=True)
class Hardware:
    """One device.

    Attributes
    ----------
    name : str
        Catalog key, lower case with dashes (``"a100-80gb-pcie"``).
    label : str
        Human name (``"NVIDIA A100 80GB PCIe"``).
    kind : str
        ``"datacenter-gpu"``, ``"consumer-gpu"``, ``"apple-silicon"``, ``"cpu"`` or ``"sbc"``.
    bandwidth : float
        Peak memory bandwidth [B/s] (decimal: 1 GB/s = 1e9 B/s).
    capacity : int
        Memory the model can use [B] (HBM/VRAM, or unified/system RAM).
    peaks : Mapping[str, Peak]
        Peak rates by precision name (``"fp32"``, ``"tf32"``, ``"fp16"``, ``"bf16"``, ``"fp8"``,
        ``"int8"``, ``"int4"``). Sparse figures may be present, flagged ``dense=False``, under
        keys ending in ``"-sparse"``.
    source : str
        URL of the datasheet or spec page for bandwidth, capacity and peaks.
    notes : str
        Anything a reader must know (which variant, boost clock, measured vs theoretical).
    article_figures : tuple[ArticleFigure, ...]
        Figures that source articles used for this device when they differ from the datasheet,
        or when the article is the only source.
    """

    name: str
    label: str
    kind: str
    bandwidth: float
    capacity: int
    peaks: Mapping[str, Peak]
    source: str
    notes: str = ""
    article_figures: tuple[ArticleFigure, ...] = ()

    def peak(self, precision: str = "fp16", *, dense: bool = True) -> float:
        """Peak rate [FLOP/s] for ``precision``; dense unless ``dense=False``.

        Raises ``KeyError`` naming the device and the precisions it has.
        """
        key = precision if dense else f"{precision}-sparse"
        try:
            p = self.peaks[key]
        except KeyError:
            raise KeyError(
                f"{self.name} has no {'dense' if dense else 'sparse'} peak for {precision!r}; "
                f"known: {', '.join(sorted(self.peaks))}"
            ) from None
        return p.rate

    def ops_per_byte(self, precision: str = "fp16") -> float:
        """The chip's ops:byte ratio, dense peak / bandwidth [FLOP/B]."""
        return self.peak(precision) / self.bandwidth


# The catalog itself lives in hardware_catalog.py (data only) and is loaded here.
from .hardware_catalog import CATALOG as _CATALOG  # noqa: E402

HARDWARE: Mapping[str, Hardware] = MappingProxyType({h.name: h for h in _CATALOG})


def hardware_names() -> list[str]:
    """Sorted catalog keys."""
    return sorted(HARDWARE)


def get_hardware(name: str) -> Hardware:
    """Look a device up by catalog key (case-insensitive).

    Raises ``ValueError`` with close matches for an unknown name.
    """
    return lookup("hardware", name, HARDWARE)
