"""A handful of catalog figures checked against the text of the documents they come from.

Each quote below is copied from the vendor document named with it (as read for issue 27), not
from hardware.toml: the numbers are parsed out of the quote and compared with the catalog, so a
typo in the data file or a unit slip (GB/s for B/s, bidirectional for per direction) fails here.
"""
from __future__ import annotations

import re

import pytest

from llm_arithmetic import get_hardware

GB, GiB, T = 10**9, 2**30, 10**12


def _grab(pattern: str, text: str) -> float:
    """The number the one group of ``pattern`` matches in ``text`` (commas dropped)."""
    (m,) = re.findall(pattern, text)
    return float(m.replace(",", ""))


def _cells(line: str) -> list[float]:
    """The numeric cells of one Markdown table row."""
    return [float(c) for c in (c.strip() for c in line.split("|")) if re.fullmatch(r"[\d.]+", c)]


# https://docs.cloud.google.com/tpu/docs/v6e (specification table)
V6E = """| Peak compute per chip (bf16) | 918 TFLOPs |
| Peak compute per chip (Int8) | 1836 TOPs |
| HBM capacity per chip | 32 GB |
| HBM bandwidth per chip | 1638 GBps |
| Bidirectional inter-chip interconnect (ICI) bandwidth (per chip) | 800 GBps |
| TPU Pod size | 256 chips |"""

# https://docs.cloud.google.com/tpu/docs/v5e (key chip specifications)
V5E = """| Peak compute per chip (bf16) | 197 TFLOPs |
| HBM2 capacity and bandwidth | 16 GB, 819 GBps |
| Bidirectional inter-chip interconnect (ICI) bandwidth (per chip) | 400 GBps |"""

# https://docs.cloud.google.com/tpu/docs/tpu7x (columns v5p, v6e, TPU7x)
TPU7X = """| Number of chips per pod | 8960 | 256 | 9216 |
| Peak compute per chip (BF16) (TFLOPs) | 459 | 918 | 2307 |
| Peak compute per chip (FP8) (TFLOPs) | 459 | 918 | 4614 |
| HBM capacity per chip (GiB) | 95 | 32 | 192 |"""

# https://awsdocs-neuron.readthedocs-hosted.com (Trainium2 architecture; NKI guide)
TRN2 = """* 1,299 FP8 TFLOPS
* 667 BF16/FP16/TF32 TFLOPS
* 181 FP32 TFLOPS
4 HBM stacks with a total device memory capacity of 96GiB and bandwidth of 2.9TB/s."""

# https://awsdocs-neuron.readthedocs-hosted.com (Inferentia2 architecture, first edition)
INF2 = """2x NeuronCore-v2 cores, delivering 380 INT8 TOPS, 190 FP16/BF16/cFP8/TF32 TFLOPS, and 47.5
FP32 TFLOPS. 32GB of HBM of device memory (for storing model state), with 820 GB/sec of
bandwidth."""

# https://docs.habana.ai/en/latest/Management_and_Monitoring/Network_Configuration/index.html
GAUDI3 = """The theoretical peak of scale-up bandwidth from each Gaudi is 21*200Gbps = 21*25 GB/s =
525 GB/s unidirectional bandwidth or 1050 GB/s bidirectional bandwidth. The scale-out bandwidth
from each Gaudi 3 is 3*200Gbps = 75 GB/s in each direction"""


# https://rocm.docs.amd.com/en/latest/reference/gpu-arch/mi350.html ("Memory hierarchy" and the
# "Performance" table, MI350X and MI350P columns)
MI350P = """The MI350P provides a 128MB Infinity Cache in its single IOD, up to 4 TB/s of peak
theoretical memory bandwidth, and 144GB of total capacity across four HBM3E stacks.
| Vector FP32 | 144.2 TF | 72 TF |
| Matrix FP16 | FP16 Sparsity | 2.3 PF | 4.6 PF | 1.15 PF | 2.3 PF |
| Matrix OCP-FP8 | OCP-FP8 Sparsity | 4.6 PF | 9.2 PF | 2.3 PF | 4.6 PF |
| Matrix MXFP6 / MXFP4 | 9.2 PF | 4.6 PF |"""


def test_tpu_v6e_and_v5e():
    bf16, int8, cap, bw, ici, pod = (_grab(r"\| (\d+) \w+ \|$", line)
                                     for line in V6E.splitlines())
    h = get_hardware("tpu-v6e")
    assert (h.peak("bf16"), h.peak("int8")) == (bf16 * T, int8 * T)
    assert h.capacity == cap * GiB and h.bandwidth == bw * GB
    assert h.interconnect.scale_up_bandwidth == ici / 2 * GB  # bidirectional -> per direction
    assert h.interconnect.scale_up_domain == pod
    h = get_hardware("tpu-v5e")
    assert h.peak("bf16") == _grab(r"\(bf16\) \| (\d+) TFLOPs", V5E) * T
    assert h.capacity == _grab(r"\| (\d+) GB, \d+ GBps", V5E) * GiB
    assert h.bandwidth == _grab(r"GB, (\d+) GBps", V5E) * GB
    assert h.interconnect.scale_up_bandwidth == _grab(r"chip\) \| (\d+) GBps", V5E) / 2 * GB


def test_tpu7x_and_v5p_columns():
    rows = [_cells(line) for line in TPU7X.splitlines()]
    for col, name in ((0, "tpu-v5p"), (1, "tpu-v6e"), (2, "tpu-v7")):
        h = get_hardware(name)
        assert h.interconnect.scale_up_domain == rows[0][col]
        assert h.peak("bf16") == rows[1][col] * T
        assert h.capacity == rows[3][col] * GiB
    assert get_hardware("tpu-v7").peak("fp8") == rows[2][2] * T


def test_trainium2_and_inferentia2():
    h = get_hardware("trainium2")
    assert h.peak("fp8") == _grab(r"([\d,]+) FP8 TFLOPS", TRN2) * T
    bf16 = _grab(r"(\d+) BF16/FP16/TF32 TFLOPS", TRN2) * T
    assert h.peak("bf16") == h.peak("fp16") == h.peak("tf32") == bf16
    assert h.peak("fp32") == _grab(r"(\d+) FP32 TFLOPS", TRN2) * T
    assert h.capacity == _grab(r"capacity of (\d+)GiB", TRN2) * GiB
    assert h.bandwidth == _grab(r"bandwidth of ([\d.]+)TB/s", TRN2) * T
    h = get_hardware("inferentia2")
    assert h.peak("int8") == _grab(r"(\d+) INT8 TOPS", INF2) * T
    fp16 = _grab(r"(\d+) FP16/BF16/cFP8/TF32 TFLOPS", INF2) * T
    assert h.peak("fp16") == h.peak("bf16") == h.peak("fp8") == h.peak("tf32") == fp16
    assert h.peak("fp32") == _grab(r"([\d.]+)\sFP32 TFLOPS", INF2) * T
    assert h.capacity == _grab(r"(\d+)GB of HBM", INF2) * GiB
    assert h.bandwidth == _grab(r"(\d+) GB/sec", INF2) * GB


def test_gaudi3_links_per_direction():
    ic = get_hardware("gaudi3").interconnect
    assert ic.scale_up_bandwidth == _grab(r"(\d+) GB/s unidirectional", GAUDI3) * GB
    assert ic.scale_up_bandwidth == 21 * 200e9 / 8  # 21 ports of 200 Gb/s, in bytes
    assert ic.scale_out_bandwidth == _grab(r"(\d+) GB/s in each direction", GAUDI3) * GB
    assert ic.scale_up_domain == 8 and ic.scale_up_topology == "all-to-all"


@pytest.mark.parametrize("name", ["rtx-4090", "rtx-4080"])
def test_ada_fp8_is_the_fp32_accumulate_rate(name):
    # Ada whitepaper, later revision: FP8 with FP32 accumulate runs at the FP16-with-FP32-
    # accumulate rate times two, and at half the FP16-accumulate FP8 rate the first edition
    # printed; second derivation from the catalog's own FP16 rows (fp16 = FP32 accumulate).
    h = get_hardware(name)
    assert h.peak("fp8") == pytest.approx(2 * h.peak("fp16"), rel=2e-3)
    assert h.peak("fp8") == pytest.approx(h.peak("fp16-acc16"), rel=2e-3)
    assert h.peak("fp8", dense=False) == pytest.approx(2 * h.peak("fp8"), rel=2e-3)


def test_b200_and_h200_say_which_figure_they_took():
    b200, h200 = get_hardware("b200"), get_hardware("h200")
    choice = {c.quantity: c for c in b200.figure_choices}
    assert choice["bandwidth"].taken == b200.bandwidth == 7.7e12
    assert choice["bandwidth"].other == 8e12  # DGX B200: 64 TB/s for 8 GPUs
    assert choice["capacity"].taken == b200.capacity == 180 * GiB
    (h,) = h200.figure_choices
    assert h.quantity == "capacity" and h.taken == h200.capacity == 141 * GiB
    # nvidia-smi's 143,771 MiB lies between the two readings of "141GB", nearer the binary one
    smi = 143_771 * 2**20
    assert h.other < smi < h.taken and abs(smi / h.taken - 1) < abs(smi / h.other - 1)


def test_mi350p_is_half_an_mi350x():
    # AMD prints the MI350P's rates rounded; the catalog stores the MI350X's exact ladder halved
    # (half the matrix cores at the same clock), which must round to AMD's figures and be half
    # the MI350X row: a second derivation beside the quoted table.
    p, x = get_hardware("mi350p"), get_hardware("mi350x")
    assert p.bandwidth == _grab(r"up to (\d+) TB/s", MI350P) * T
    assert p.capacity == _grab(r"(\d+)GB of total capacity", MI350P) * GiB
    rows = {line.split("|")[1].strip(): [float(v) for v in re.findall(r"([\d.]+) [TP]F", line)]
            for line in MI350P.splitlines()[2:]}
    assert p.peak("fp32") == pytest.approx(rows["Vector FP32"][1] * T, rel=2e-3)
    for key, row in (("fp16", "Matrix FP16"), ("fp8", "Matrix OCP-FP8")):
        x_dense, x_sparse, p_dense, p_sparse = rows[row]
        assert p.peak(key) == pytest.approx(p_dense * 1e15, rel=5e-3), key
        assert p.peak(key, dense=False) == pytest.approx(p_sparse * 1e15, rel=5e-3), key
        assert p.peak(key) == pytest.approx(x.peak(key) / 2, rel=1e-4), key
    assert p.peak("fp4") == pytest.approx(rows["Matrix MXFP6 / MXFP4"][1] * 1e15, rel=5e-3)
    assert p.interconnect.scale_up_domain == 1 and p.interconnect.pcie_bandwidth == 64 * GB


# The dense INT8 tensor rates llama.cpp's block formats run at (their int8 MMQ kernels on NVIDIA
# and AMD GPUs), each against the vendor's row as printed. The figures are typed from the sources
# named, not from hardware.toml.

# https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf
# appendix A, table 3, GeForce RTX 5090 column (dense/sparse; "Effective TOPS / TFLOPS using the
# Sparsity Feature"), as two public transcriptions of the table give it
RTX5090 = """Peak FP8 Tensor TFLOPS with FP16 Accumulate | 838/1676
Peak INT8 Tensor TOPS | 838/1676"""

# https://github.com/ROCm/rocm-docs/blob/002654d682cc540a946f88e04616b754e9f47a65/docs/reference/gpu-arch/mi350.rst
# table "Peak theoretical performance of the AMD Instinct MI350 Series GPUs", columns MI350X,
# MI355X, MI350P (each "dense | with sparsity")
MI350_SERIES = """| Matrix OCP-FP8 | OCP-FP8 Sparsity | 4.6 PF | 9.2 PF | 5.0 PF | 10 PF | 2.3 PF | 4.6 PF |
| Matrix INT8 | INT8 Sparsity | 4.6 POPs | 9.2 POPs | 5.0 POPs | 10 POPs | 2.3 POPs | 4.6 POPs |"""


def _printed(x: float, figure: str) -> bool:
    """Whether ``x`` rounds to ``figure`` at the figure's significant digits ("5.0", "10")."""
    digits = len(figure.replace(".", "").lstrip("0"))
    return float(f"{x:.{digits}g}") == float(figure)


def test_rtx_5090_int8_is_the_whitepapers_row():
    h = get_hardware("rtx-5090")
    rows = {line.split("|")[0].strip(): line.split("|")[1].strip().split("/")
            for line in RTX5090.splitlines()}
    dense, sparse = (float(v) * T for v in rows["Peak INT8 Tensor TOPS"])
    assert h.peak("int8") == dense and h.peak("int8", dense=False) == sparse
    assert h.peaks["int8"].unit == "OP/s"
    # the table's own equality: INT8 at the rate of FP8 with FP16 accumulation (kept in the notes;
    # 'fp8' holds the FP32-accumulate rate, one half of it)
    fp8_acc16 = float(rows["Peak FP8 Tensor TFLOPS with FP16 Accumulate"][0]) * T
    assert h.peak("int8") == fp8_acc16 == 2 * h.peak("fp8")


@pytest.mark.parametrize("column,name", [(0, "mi350x"), (1, "mi355x"), (2, "mi350p")])
def test_mi350_series_int8_is_amds_row(column, name):
    h = get_hardware(name)
    rows = {line.split("|")[1].strip(): re.findall(r"([\d.]+) P", line)
            for line in MI350_SERIES.splitlines()}
    dense, sparse = rows["Matrix INT8"][2 * column: 2 * column + 2]
    assert _printed(h.peak("int8") / 1e15, dense), (h.peak("int8"), dense)
    assert _printed(h.peak("int8", dense=False) / 1e15, sparse), (h.peak("int8", False), sparse)
    assert h.peak("int8", dense=False) == pytest.approx(2 * h.peak("int8"), rel=1e-4)
    # AMD prints INT8 and OCP-FP8 alike, row for row; the catalog stores one rate for both
    assert rows["Matrix INT8"] == rows["Matrix OCP-FP8"]
    assert h.peak("int8") == h.peak("fp8")


@pytest.mark.parametrize("name", ["rtx-5090", "mi350x", "mi355x"])
def test_block_formats_prefill_at_the_int8_rate(name):
    # llama.cpp's Q4_K_M runs through int8 MMQ on NVIDIA and AMD GPUs (formats.toml): with an
    # int8 rate stored, the estimate's prefill bound takes it
    from llm_arithmetic import estimate
    e = estimate("llama-3-8b", hardware=name, weights="Q4_K_M", context=2048, prompt=2048)
    assert e.compute_precision == "int8" and e.peak_flops == get_hardware(name).peak("int8")


# NVIDIA Blackwell Architecture Technical Brief, table 3 (pp. 25-26), HGX B300 per-GPU column, as
# two public transcriptions give it (dense | sparse); NVIDIA's Blackwell Ultra datasheet, as one of
# them quotes it (sparse, footnote: dense is one half); NVIDIA's HGX page, 8-GPU total, sparse
B300_BRIEF = "| INT8 Tensor | 0.15 POPS | 0.30 POPS |"
B300_DATASHEET = "INT8 Tensor Core 307 TOPS*"
B300_HGX = "INT8 Tensor Core 2 POPS*"


def test_b300_int8_the_vendors_three_figures_agree():
    h = get_hardware("b300")
    dense, sparse = (float(v) * 1e15 for v in re.findall(r"([\d.]+) POPS", B300_BRIEF))
    # the brief prints both: dense is one half of sparse, and so is the catalog's pair
    assert sparse == 2 * dense
    assert h.peak("int8", dense=False) == 2 * h.peak("int8")
    # the datasheet's sparse figure, halved, is the brief's dense one at the brief's digits
    datasheet_dense = _grab(r"(\d+) TOPS", B300_DATASHEET) * T / 2
    assert _printed(datasheet_dense / 1e15, "0.15") and _printed(h.peak("int8") / 1e15, "0.15")
    # the HGX page's 8-GPU total is the sparse rate x 8 rounded to one digit (2.4 -> 2), so its
    # eighth halved (0.125) is not a second rate
    assert _printed(8 * h.peak("int8", dense=False) / 1e15, str(int(_grab(r"(\d+) POPS", B300_HGX))))
    # Blackwell Ultra: INT8 far below the 16-bit rate (the brief: FP16 2.25 PF dense)
    assert h.peak("fp16") / h.peak("int8") == 15 and h.peaks["int8"].unit == "OP/s"


def test_rtx_5070_int8_keeps_the_appendix_ratios():
    # RTX Blackwell whitepaper v1.1, table 6 (RTX 5070) as transcribed: INT8 246.9 dense, FP16
    # with FP32 accumulate 61.7; table 3 (RTX 5090): INT8 = FP8 with FP16 accumulate = 2 x FP8
    # with FP32 accumulate = 4 x FP16 with FP32 accumulate. The 5070's 'fp8' and 'fp16' are
    # derived from its AI TOPS (rounded to 0.1), so the ladder holds within that rounding.
    h, ref = get_hardware("rtx-5070"), get_hardware("rtx-5090")
    assert ref.peak("int8") == 2 * ref.peak("fp8") == 4 * ref.peak("fp16")
    assert h.peak("int8") == pytest.approx(2 * h.peak("fp8"), rel=1e-3)
    assert h.peak("int8") == pytest.approx(4 * h.peak("fp16"), rel=2e-3)
    # the table's own two rows, 246.9 and 61.7, keep the same ratio within their last digit
    assert 4 * 61.7 == pytest.approx(246.9, abs=0.15)
    with pytest.raises(KeyError):
        h.peaks["int8-sparse"]  # only one transcription prints the sparse figure


@pytest.mark.parametrize("name", ["b300", "rtx-5070", "gb300"])
def test_block_formats_prefill_at_the_new_int8_rates(name):
    from llm_arithmetic import estimate
    e = estimate("llama-3-8b", hardware=name, weights="Q4_K_M", context=2048, prompt=2048)
    assert e.compute_precision == "int8" and e.peak_flops == get_hardware(name).peak("int8")


@pytest.mark.parametrize("name", ["rtx-5080", "rtx-5070-ti", "rtx-5060-ti", "rtx-5060",
                                  "rtx-pro-6000", "rtx-pro-4500", "dgx-spark", "jetson-thor",
                                  "rtx-pro-6000-server", "tpu-v7", "gaudi2", "gaudi3",
                                  "trainium2", "trainium3"])
def test_chips_without_a_defensible_int8_figure_say_so(name):
    # no int8 key (nor a -sparse one alone), and the notes say why
    h = get_hardware(name)
    assert "int8" not in h.peaks and "int8-sparse" not in h.peaks
    assert "INT8" in h.notes


# Google's figures for TPU int8, typed from the documents named (not from hardware.toml).
# https://github.com/jax-ml/jax/blob/4f32df242c5917940f74cc9e57ee3680a3bd664f/jax/_src/pallas/mosaic/tpu_info.py
# (get_tpu_info, the "TPU v5p" and "TPU7x" cases; per chip, divided over num_chip_cores = 2)
JAX_TPU_V5P = """bf16_ops_per_second=int(4.59e14 // num_chip_cores),
int8_ops_per_second=int(9.18e14 // num_chip_cores),"""
JAX_TPU_7X = """bf16_ops_per_second=int(2.31e15 // num_chip_cores),
int8_ops_per_second=0,  # Not Available
fp8_ops_per_second=int(4.60e15 // num_chip_cores),"""
# https://github.com/jax-ml/scaling-book/blob/04d8de58b9f64e2d6cc1df469b8a36f506a0138d/tpus.md
# ("TPU specs": HBM BW/chip, FLOPs/s/chip bf16, FLOPs/s/chip int8)
SCALING_BOOK_V5P = "| TPU v5p | 16x20x28 | 2x2x1 | 96GB | 2.8e12 | 4.59e14 | 9.18e14 |"


def _ops(key: str, text: str) -> float:
    """The per-chip rate JAX's table gives for ``key`` (0 where it says 'Not Available')."""
    (m,) = re.findall(rf"{key}_ops_per_second=(?:int\(([\d.e]+) // num_chip_cores\)|0)", text)
    return float(m) if m else 0.0


def test_tpu_v5p_int8_is_googles_figure_and_tpu7x_has_none():
    h = get_hardware("tpu-v5p")
    jax_int8, book_int8 = _ops("int8", JAX_TPU_V5P), float(SCALING_BOOK_V5P.split("|")[-2])
    assert h.peak("int8") == jax_int8 == book_int8 == 918 * T
    assert h.peaks["int8"].unit == "OP/s" and h.peaks["int8"].dense
    assert "int8-sparse" not in h.peaks  # Google prints one figure, no sparse variant
    # Google's own relation, as on v5e and v6e (their pages: 393 | 197, 1836 | 918): int8 = 2 x bf16
    assert h.peak("int8") == 2 * h.peak("bf16") == 2 * _ops("bf16", JAX_TPU_V5P)
    assert get_hardware("tpu-v6e").peak("int8") == 2 * get_hardware("tpu-v6e").peak("bf16")
    # TPU7x: JAX says no int8 rate; the catalog's fp8 is Google's page's 4,614 (JAX rounds, 4.60e15)
    v7 = get_hardware("tpu-v7")
    assert _ops("int8", JAX_TPU_7X) == 0 and "int8" not in v7.peaks
    assert v7.peak("fp8") == pytest.approx(_ops("fp8", JAX_TPU_7X), rel=5e-3)


# NVIDIA's three figures for one GB300 GPU's INT8, as public transcriptions give them: the
# Blackwell Ultra datasheet's per-GPU table (GB300 column, with sparsity; dense is one half), the
# Blackwell Architecture Technical Brief's table 3 (GB300 column, dense) and the GB300 NVL72 page
# (72 GPUs, with sparsity)
GB300_DATASHEET = "INT8 330 TOPS"
GB300_BRIEF = "| INT8 | 0.165 POPS |"
GB300_RACK = "INT8 24 POPS"


def test_gb300_int8_the_vendors_three_figures_agree():
    h = get_hardware("gb300")
    sparse = _grab(r"(\d+) TOPS", GB300_DATASHEET) * T
    dense = _grab(r"([\d.]+) POPS", GB300_BRIEF) * 1e15
    assert h.peak("int8", dense=False) == sparse == 2 * dense == 2 * h.peak("int8")
    assert h.peaks["int8"].unit == h.peaks["int8-sparse"].unit == "OP/s"
    # the rack's figure is 72 GPUs' sparse rate at two digits (23.76 -> 24)
    assert _printed(72 * h.peak("int8", dense=False) / 1e15, str(int(_grab(r"(\d+) POPS", GB300_RACK))))
    # Blackwell Ultra's INT8 scales with the other rates from the B300 to the GB300 (FP8 4.5 -> 5 PF)
    b300 = get_hardware("b300")
    assert h.peak("int8") / b300.peak("int8") == pytest.approx(h.peak("fp8") / b300.peak("fp8"), rel=1e-2)
    assert h.peak("fp16") / h.peak("int8") == pytest.approx(15, rel=2e-2)
