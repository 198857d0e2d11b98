"""Chips: memory bandwidth, capacity and peak arithmetic rates, each with its source.

A :class:`Hardware` is a frozen record. Peak rates are kept per precision and each one says
whether it is a *dense* figure or a *sparse* (2:4 structured sparsity) figure, because
datasheets often print the sparse number, which is twice the dense one and unreachable for an
ordinary matrix product. The estimates of this package use dense figures only.

Where a source article used another figure than the datasheet (for example Timbers's RTX 4090
"82.6 TFLOPS of FP16", which is the card's non-tensor rate, while its dense FP16 tensor rate is
twice that), the article's figure is kept in :attr:`Hardware.article_figures` with the name of
the article, next to the datasheet value.

Units: bandwidth [B/s], capacity [B], peak rates [FLOP/s] (or [OP/s] for integer formats).
"""
from __future__ import annotations

import os
from dataclasses import field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from ..core.errors import InputError
from ..core.lookup import lookup
from ..core.paths import data_file, lazy_paths
from ..core.records import record

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["CLASS_OF_KIND", "KIND_LABELS", "class_label", "Peak", "Hardware", "Interconnect", "ArticleFigure", "FigureChoice",
           "HARDWARE", "get_hardware", "hardware_names", "device_kinds", "HEADLINE_PRECISIONS", "load_hardware", "hardware_record", "DATA_PATH",
           "DEFAULT_LATENCY", "DEFAULT_LATENCY_SOURCE", "FULLY_CONNECTED"]

#: Latency of one collective step [s] on each tier, for a link whose catalog entry has none (no
#: vendor publishes one). The figures are NCCL's own cost model: ``hwLat`` in
#: ``src/graph/tuning.cc``, the per-step latency of a ring with the low-latency (LL) protocol,
#: which NCCL picks for the small messages of decoding: 0.47 us over NVLink, 1.0 us over PCIe,
#: 2.7 us over the network (NVIDIA/nccl@01afd20a77b5804e0ecf1042509dd9d20ebf9e93). NCCL tunes
#: these to its measurements, so they are the latency its own algorithm selection assumes; they
#: are applied to every vendor's scale-up link (Infinity Fabric, ICI, NeuronLink) for want of a
#: published figure, and a caller who knows better passes ``link_latency`` (0 to leave latency
#: out).
DEFAULT_LATENCY: Mapping[str, float] = MappingProxyType(
    {"scale_up": 0.47e-6, "pcie": 1.0e-6, "scale_out": 2.7e-6})
DEFAULT_LATENCY_SOURCE = ("https://github.com/NVIDIA/nccl/blob/"
                          "01afd20a77b5804e0ecf1042509dd9d20ebf9e93/src/graph/tuning.cc")

#: Scale-up topologies in which every device reaches every other directly (through a switch, or
#: over its own link to each peer), so that an all-reduce may read every peer at once: the
#: direct one- and two-stage all-reduces of ``direct_allreduce_time``.
FULLY_CONNECTED = ("switch", "all-to-all")


@record
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
    source : str
        Where the figure comes from, when not the device's ``source``.
    """

    rate: float
    dense: bool = True
    unit: str = "FLOP/s"
    engine: str = ""
    source: str = ""


@record
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


@record
class FigureChoice:
    """Where a vendor prints a figure two ways, which one the catalog took and why.

    Attributes
    ----------
    quantity : str
        ``"bandwidth"``, ``"capacity"`` or ``"peak:<precision>"``.
    taken : float
        The value stored, in the quantity's unit ([B/s], [B], [FLOP/s]).
    other : float
        The value the other document (or reading) gives, in the same unit.
    other_source : str
        Where the other value is printed.
    why : str
        Why ``taken`` was preferred.
    """

    quantity: str
    taken: float
    other: float
    other_source: str
    why: str


@record
class Interconnect:
    """How a device reaches its peers. Bandwidths per device and per direction [B/s].

    Attributes
    ----------
    scale_up : str
        The fast device-to-device link (NVLink, Infinity Fabric), "" when there is none.
    scale_up_bandwidth : float or None
        Its bandwidth per device, per direction [B/s]: the sum over all of the device's links
        (an MI300X's 7 links of 64 GB/s each way: 448 GB/s), which is what it can send at once
        to all its peers, through a switch or over a full mesh.
    scale_up_domain : int
        Devices in one scale-up domain (an HGX board: 8; GB200 NVL72: 72; none: 1).
    pcie, pcie_bandwidth : str, float or None
        The host link and its bandwidth per direction [B/s].
    scale_out, scale_out_bandwidth : str, float or None
        The node network per device in the vendor's reference system [B/s].
    source : str
        Where the figures come from.
    scale_out_source : str
        The reference system's page, when not ``source``.
    scale_up_topology : str
        How the domain is wired: ``"switch"`` (NVSwitch, NVLink Switch), ``"all-to-all"``
        (direct links to every peer), ``"torus-2d"``, ``"torus-3d"``, ``"ring"``, or ``""``.
        The first two (:data:`FULLY_CONNECTED`) let an all-reduce read every peer directly.
    scale_up_in_switch_reduction : bool
        True where the switches reduce in the network (NVLink SHARP), so that an all-reduce
        need not send the ring's 2(N-1)/N of the data from each device.
    scale_up_latency, scale_out_latency : float or None
        Latency of one collective step on the link [s], where a public source gives one
        (``scale_up_latency_source``, ``scale_out_latency_source``); None otherwise, never
        guessed.
    """

    scale_up: str = ""
    scale_up_bandwidth: float | None = None
    scale_up_domain: int = 1
    pcie: str = ""
    pcie_bandwidth: float | None = None
    scale_out: str = ""
    scale_out_bandwidth: float | None = None
    source: str = ""
    scale_out_source: str = ""
    scale_up_topology: str = ""
    scale_up_in_switch_reduction: bool = False
    scale_up_latency: float | None = None
    scale_up_latency_source: str = ""
    scale_out_latency: float | None = None
    scale_out_latency_source: str = ""

    def link_bandwidth(self, n_chips: int) -> float | None:
        """Per-direction bandwidth of the slowest link a group of ``n_chips`` uses [B/s]: the
        scale-up link within one domain, the node network beyond it (PCIe where a card has
        nothing else)."""
        if n_chips <= max(self.scale_up_domain, 1) and self.scale_up_bandwidth:
            return self.scale_up_bandwidth
        if n_chips <= max(self.scale_up_domain, 1) and self.pcie_bandwidth:
            return self.pcie_bandwidth
        return self.scale_out_bandwidth or self.pcie_bandwidth


@record
class Hardware:
    """One device.

    Attributes
    ----------
    name : str
        Catalog key, lower case with dashes (``"a100-80gb-pcie"``).
    label : str
        Proper name (``"NVIDIA A100 80GB PCIe"``).
    kind : str
        ``"datacenter-gpu"``, ``"accelerator"`` (TPU, Gaudi, Trainium, Inferentia),
        ``"consumer-gpu"``, ``"soc"`` (a CPU-GPU chip with unified memory: DGX Spark, Jetson,
        Ryzen AI Max), ``"apple-silicon"``, ``"cpu"``, ``"sbc"`` or ``"system"``.
    bandwidth : float
        Peak memory bandwidth [B/s] (decimal: 1 GB/s = 1e9 B/s).
    capacity : int
        Memory the model can use [B] (HBM/VRAM, or unified/system RAM).
    peaks : Mapping[str, Peak]
        Peak rates by precision name (``"fp32"``, ``"tf32"``, ``"fp16"``, ``"bf16"``, ``"fp8"``,
        ``"fp4"``, ``"int8"``, ``"int4"``, ...). Sparse figures, flagged ``dense=False``, sit
        under keys ending in ``"-sparse"``.
    source : str
        URL of the datasheet or spec page for bandwidth, capacity, peaks and power.
    notes : str
        Anything a reader must know (which variant, boost clock, measured vs theoretical).
    article_figures : tuple[ArticleFigure, ...]
        Figures that source articles used for this device.
    vendor : str
    year : int or None
        First shipped.
    power : float or None
        Board power (TDP, TGP) [W].
    interconnect : Interconnect
        Links to other devices.
    figure_choices : tuple[FigureChoice, ...]
        Figures the vendor prints two ways, with the one taken and why.
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
    vendor: str = ""
    year: int | None = None
    power: float | None = None
    interconnect: Interconnect = field(default_factory=Interconnect)
    figure_choices: tuple[FigureChoice, ...] = ()

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

    def headline_precision(self) -> str | None:
        """The precision of the chip's headline dense rate: fp16, else bf16 (TPUs, Gaudi),
        else fp32; None where the catalog holds none of them (a chip with only fp4/int8
        figures, e.g. Vera Rubin or Jetson Thor).

        >>> get_hardware("tpu-v6e").headline_precision(), get_hardware("m2").headline_precision()
        ('bf16', 'fp16')
        """
        return next((p for p in HEADLINE_PRECISIONS if p in self.peaks), None)

    def ops_per_byte(self, precision: str = "fp16") -> float:
        """The chip's ops:byte ratio, dense peak / bandwidth [FLOP/B]."""
        return self.peak(precision) / self.bandwidth


#: The precisions a chip's headline dense rate is read from, in order (see
#: :meth:`Hardware.headline_precision`).
HEADLINE_PRECISIONS = ("fp16", "bf16", "fp32")

#: Where the catalog lives: package data, one file (``catalog/data/hardware.toml``); its
#: :class:`pathlib.Path`, ``DATA_PATH``, is made when first asked for.
DATA_FILE = data_file(__file__, "data", "hardware.toml")
__getattr__ = lazy_paths(globals(), DATA_PATH=DATA_FILE)

#: The class of each kind of chip of this catalog in chapter 17's dataset of measurements
#: (``lab.calibration``; the forecast's classes build on it). The dataset has no rows of
#: three kinds; each takes the class that is nearest in how it runs a decoder (an assumption):
#: a single-board computer (Raspberry Pi) runs it on its CPU, a system on a chip (DGX Spark,
#: Jetson, Ryzen AI Max) on an integrated GPU sharing unified memory, as Apple silicon does, and
#: an accelerator (TPU, Gaudi, Trainium) from datacenter HBM.
CLASS_OF_KIND: dict[str, str] = {"apple-silicon": "apple", "consumer-gpu": "consumer-gpu",
                                 "datacenter-gpu": "datacenter-gpu", "cpu": "cpu",
                                 "sbc": "cpu", "soc": "apple", "accelerator": "datacenter-gpu"}

#: The kinds in words, as the book's figures name them (the legend of the chips' scatter plot,
#: in this order) and as the forecast's caveat and chapter 17 name a device class
#: (:func:`class_label`).
KIND_LABELS: dict[str, str] = {"datacenter-gpu": "datacenter GPU",
                               "accelerator": "TPU, Gaudi, Trainium",
                               "consumer-gpu": "consumer GPU", "soc": "unified-memory SoC",
                               "apple-silicon": "Apple silicon", "cpu": "CPU",
                               "sbc": "single-board computer"}


def class_label(key: str) -> str:
    """How a figure names a device class (or another group): in words, as the hardware
    catalog's figures name its kinds ("consumer GPU", not the key "consumer-gpu").

    >>> class_label("consumer-gpu"), class_label("apple"), class_label("8-bit")
    ('consumer GPU', 'Apple silicon', '8-bit')
    """
    return KIND_LABELS.get("apple-silicon" if key == "apple" else key, key)

_KINDS = ("datacenter-gpu", "accelerator", "consumer-gpu", "soc", "apple-silicon", "cpu", "sbc",
          "system")
_TOPOLOGIES = ("", "switch", "all-to-all", "torus-2d", "torus-3d", "ring")
_QUANTITY = ("bandwidth", "capacity")
_REQUIRED = ("label", "kind", "bandwidth", "capacity", "source", "peaks")


def _fail(path: str | Path, name: str, field_: str, why: str) -> InputError:
    return InputError(f"{os.path.basename(path)}: devices.{name}.{field_}: {why}")


def load_hardware(path: str | Path | None = None) -> dict[str, Hardware]:
    """Every device of a hardware TOML file (the catalog's by default), checked against the
    schema; an :class:`~llm_arithmetic.core.errors.InputError` names the file, the device and
    the field of anything wrong.
    """
    if path is None:  # the catalog: compiled from hardware.toml (see catalog/compiled.py)
        from .compiled import load

        path, data = DATA_FILE, {"devices": load("hardware")["devices"]}
    else:
        import tomllib  # a user's file; the catalog's own is compiled to JSON
        from pathlib import Path

        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:
            raise InputError(f"{path.name}: malformed TOML: {e}") from None
    return {name: _device(path, name, d) for name, d in data.get("devices", {}).items()}


def _device(path: str | Path, name: str, d: dict) -> Hardware:
    """One device's table, checked against the schema."""
    for key in _REQUIRED:
        if key not in d:
            raise _fail(path, name, key, "missing")
    if d["kind"] not in _KINDS:
        raise _fail(path, name, "kind", f"{d['kind']!r} is not one of {', '.join(_KINDS)}")
    if not isinstance(d["bandwidth"], (int, float)) or not d["bandwidth"] > 0:
        raise _fail(path, name, "bandwidth", "must be a positive number [B/s]")
    if d["bandwidth"] < 1e6:
        raise _fail(path, name, "bandwidth", f"{d['bandwidth']} B/s is implausibly low: is "
                    "it in GB/s? The unit is B/s")
    if isinstance(d["capacity"], bool) or not isinstance(d["capacity"], int) \
            or d["capacity"] <= 0:
        raise _fail(path, name, "capacity", "must be a positive integer [B]")
    peaks = {}
    for key, p in d["peaks"].items():
        if not isinstance(p.get("rate"), (int, float)) or not p["rate"] > 0:
            raise _fail(path, name, f"peaks.{key}.rate", "must be a positive number")
        if not isinstance(p.get("dense"), bool):
            raise _fail(path, name, f"peaks.{key}.dense", "must be true or false")
        if key.endswith("-sparse") and p["dense"]:
            raise _fail(path, name, f"peaks.{key}.dense", "a -sparse key must be dense = false")
        peaks[key] = Peak(float(p["rate"]), dense=p["dense"], unit=p.get("unit", "FLOP/s"),
                          engine=p.get("engine", ""), source=p.get("source", ""))
    figures = tuple(ArticleFigure(a["article"], a["quantity"], float(a["value"]),
                                  a.get("note", "")) for a in d.get("article_figures", ()))
    ic = d.get("interconnect", {})
    unknown = set(ic) - {f.name for f in fields(Interconnect)}
    if unknown:
        raise _fail(path, name, "interconnect", f"unknown keys {sorted(unknown)}")
    _check_links(path, name, ic)
    choices = tuple(FigureChoice(c["quantity"], float(c["taken"]), float(c["other"]),
                                 c["other_source"], c["why"])
                    for c in d.get("figure_choices", ()))
    for c in choices:
        if c.quantity not in _QUANTITY and c.quantity.removeprefix("peak:") not in peaks:
            raise _fail(path, name, "figure_choices.quantity", f"unknown {c.quantity!r}")
    return Hardware(
        name=name, label=d["label"], kind=d["kind"], bandwidth=float(d["bandwidth"]),
        capacity=d["capacity"], peaks=MappingProxyType(peaks), source=d["source"],
        notes=d.get("notes", ""), article_figures=figures, vendor=d.get("vendor", ""),
        year=d.get("year"), power=float(d["power"]) if "power" in d else None,
        interconnect=Interconnect(**ic), figure_choices=choices)


def _check_links(path: str | Path, name: str, ic: dict) -> None:
    """Units and vocabulary of an interconnect table: bandwidths [B/s], latencies [s]."""
    if ic.get("scale_up_topology", "") not in _TOPOLOGIES:
        raise _fail(path, name, "interconnect.scale_up_topology",
                    f"{ic['scale_up_topology']!r} is not one of {', '.join(_TOPOLOGIES[1:])}")
    for key in ("scale_up_latency", "scale_out_latency"):
        if key in ic:
            v = ic[key]
            if not isinstance(v, (int, float)) or not 0 < v < 1e-3:
                raise _fail(path, name, f"interconnect.{key}",
                            f"{v!r} is not a latency in seconds (0 < t < 1 ms): is it in us?")
            if not ic.get(f"{key}_source", "").startswith("https://"):
                raise _fail(path, name, f"interconnect.{key}_source", "a latency needs a source")


def hardware_record(h: Hardware) -> dict:
    """One device as plain JSON-ready data: every field, peaks dense and sparse with their
    flags and sources, the interconnect, article figures and figure choices. Units as in the
    catalog: [B/s], [B], [FLOP/s] (or [OP/s]), [W], [s]."""
    from dataclasses import asdict

    d = {f.name: getattr(h, f.name) for f in fields(Hardware)}
    d["peaks"] = {k: {**asdict(p), "source": p.source or h.source} for k, p in h.peaks.items()}
    d["article_figures"] = [asdict(a) for a in h.article_figures]
    d["figure_choices"] = [asdict(c) for c in h.figure_choices]
    d["interconnect"] = asdict(h.interconnect)
    return d


class _LazyHardware(Mapping):
    """The hardware catalog, each device read and checked on first use (a look-up of one
    device builds one record, not 68)."""

    _raw: dict[str, dict] | None = None
    _built: dict[str, Hardware] = {}

    def _devices(self) -> dict[str, dict]:
        if _LazyHardware._raw is None:
            from .compiled import load

            _LazyHardware._raw = load("hardware")["devices"]
        return _LazyHardware._raw

    def __getitem__(self, name: str) -> Hardware:
        built = _LazyHardware._built
        if name not in built:
            built[name] = _device(DATA_FILE, name, self._devices()[name])
        return built[name]

    def __contains__(self, name: object) -> bool:
        return name in self._devices()

    def __iter__(self):
        return iter(self._devices())

    def __len__(self) -> int:
        return len(self._devices())

    def __repr__(self) -> str:
        return f"<hardware catalog of {len(self)} devices>"


#: The hardware catalog: name -> :class:`Hardware`, in file order.
HARDWARE: Mapping[str, Hardware] = _LazyHardware()


def device_kinds() -> dict[str, str]:
    """Each catalogued device's kind, by key, read from the catalog without building a record
    (:data:`HARDWARE` checks a device's fields when it is first looked up; the forecast's
    caveat asks every device's kind once per run).

    >>> device_kinds()["h100-sxm"], device_kinds()["tpu-v5e"]
    ('datacenter-gpu', 'accelerator')
    """
    return {name: d["kind"] for name, d in _LazyHardware()._devices().items()}


def hardware_names() -> list[str]:
    """Sorted catalog keys."""
    return sorted(HARDWARE)


def get_hardware(name: str | Hardware) -> Hardware:
    """A device by catalog key (case-insensitive, spaces as dashes); a :class:`Hardware` is
    returned as it is. An :class:`~llm_arithmetic.core.errors.InputError` names close matches
    for an unknown name.

    >>> get_hardware("H100 SXM").label
    'NVIDIA H100 SXM (80GB)'
    """
    if isinstance(name, Hardware):
        return name
    return lookup("hardware", name, HARDWARE)
