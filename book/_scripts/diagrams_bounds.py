"""Diagrams of where the time of a step goes: bytes over a bus, FLOPs in the arithmetic units,
the roofline, decode against prefill, batching, and what a bound leaves out.

Chip and model figures are read from the catalog (``llm_arithmetic.catalog``).
"""
from __future__ import annotations

import math

from llm_arithmetic.catalog.formats import FORMATS
from llm_arithmetic.catalog.hardware import get_hardware
from llm_arithmetic.catalog.model_catalog import get_model

from svg import BODY, HEAD, MUTED, SMALL, Svg, fmt

GB, TFLOP = 1e9, 1e12


def weights_per_token() -> Svg:
    m, chip = get_model("llama-7b"), get_hardware("m2")
    bits = FORMATS["q4_0"].bits
    wb = m.matmul_params * float(bits) / 8
    bw = chip.bandwidth
    s = Svg(480, 330, f"One decoded token of {m.label} on an {chip.label}: every weight crosses "
            "the memory bus once, so the bus sets the time per token")
    s.box(20, 20, 190, 170, "", "weights")
    s.text(115, 46, "memory", size=HEAD, weight="bold")
    s.lines(115, 76, [f"{m.label}", f"Q4_0: {float(bits):g} bits", f"{wb / GB:.2f} GB"],
            size=BODY)
    for i in range(4):
        s.rect(40 + i * 38, 140, 30, 30, "weights", rx=2)
    s.box(300, 60, 160, 90, "arithmetic", "compute", weight="bold",
          sub=f"{chip.peak('fp16') / TFLOP:.1f} TFLOP/s")
    for i in range(3):
        s.arrow(212, 80 + i * 30, 298, 80 + i * 30, width=2.5)
    s.text(255, 186, f"{bw / GB:.0f} GB/s", size=BODY, weight="bold")
    s.text(255, 204, "the bus", size=SMALL, color=MUTED)
    t = wb / bw
    s.text(20, 240, f"time per token ≥ {wb / GB:.2f} GB ÷ {bw / GB:.0f} GB/s = "
           f"{t * 1e3:.0f} ms", size=BODY, anchor="start", weight="bold")
    s.text(20, 264, f"at most {1 / t:.0f} tokens per second, however fast", size=BODY,
           anchor="start")
    s.text(20, 284, "the arithmetic is: it waits for the weights.", size=BODY, anchor="start")
    s.text(20, 316, "Each weight is used for two FLOPs and then not again this token.",
           size=SMALL, anchor="start", color=MUTED)
    return s


def chip_anatomy() -> Svg:
    chip = get_hardware("h100-sxm")
    s = Svg(480, 330, f"The parts of an accelerator that a spec sheet's numbers describe, for "
            f"the {chip.label}: memory capacity, memory bandwidth and the peak arithmetic rate")
    s.box(20, 30, 130, 230, "", "weights")
    s.lines(85, 60, ["off-chip", "memory", "(HBM)"], size=BODY, weight="bold")
    s.lines(85, 150, ["capacity", f"{chip.capacity / 2**30:.0f} GiB"], size=BODY)
    s.text(85, 240, "weights, KV cache", size=SMALL, color=MUTED)
    s.arrow(152, 145, 238, 145, width=3)
    s.arrow(238, 165, 152, 165, width=3)
    s.text(195, 126, "bandwidth", size=SMALL, weight="bold")
    s.text(195, 190, f"{chip.bandwidth / 1e12:.2f} TB/s", size=SMALL)
    s.rect(240, 30, 220, 230, "plain")
    s.text(350, 54, "the chip", size=BODY, weight="bold")
    s.box(256, 68, 188, 46, "on-chip SRAM, caches", "cache", size=SMALL,
          sub="too small for a model")
    s.rect(256, 128, 188, 116, "compute")
    s.text(350, 160, "arithmetic units", size=BODY, weight="bold")
    s.lines(350, 196, [f"dense fp16: {chip.peak('fp16') / TFLOP:,.0f} TFLOP/s",
                       f"dense fp8: {chip.peak('fp8') / TFLOP:,.0f} TFLOP/s"], size=SMALL)
    ratio = chip.peak("fp16") / chip.bandwidth
    s.text(20, 292, f"ops:byte = {chip.peak('fp16') / TFLOP:,.0f} TFLOP/s ÷ "
           f"{chip.bandwidth / 1e12:.2f} TB/s ≈ {ratio:.0f}", size=BODY,
           anchor="start", weight="bold")
    s.text(20, 316, "FLOPs per byte: below it a kernel waits for memory", size=SMALL,
           anchor="start", color=MUTED)
    return s


def matvec_matmul() -> Svg:
    s = Svg(480, 330, "A weight matrix times one vector uses each weight once; times a batch of "
            "B vectors, it uses each weight B times for the same bytes read")
    n = 6
    c = 18

    def matrix(x, y, label):
        for i in range(n):
            for j in range(n):
                s.rect(x + j * c, y + i * c, c - 2, c - 2, "weights", rx=1, stroke_width=1)
        s.text(x + n * c / 2, y - 8, label, size=SMALL, weight="bold")

    s.text(20, 22, "one token (decode)", size=BODY, anchor="start", weight="bold")
    matrix(20, 50, "W (d × d)")
    s.text(140, 108, "×", size=HEAD)
    for i in range(n):
        s.rect(160, 50 + i * c, c - 2, c - 2, "act", rx=1, stroke_width=1)
    s.lines(200, 70, ["2 FLOPs per weight", "2 bytes per weight (16-bit)", "= 1 FLOP per byte"],
            size=SMALL, anchor="start")
    s.text(20, 190, "B tokens at once (prefill, a batch)", size=BODY, anchor="start",
           weight="bold")
    matrix(20, 218, "W (d × d)")
    s.text(140, 276, "×", size=HEAD)
    for b in range(4):
        for i in range(n):
            s.rect(160 + b * c, 218 + i * c, c - 2, c - 2, "act", rx=1, stroke_width=1)
    s.text(160 + 2 * c, 210, "B columns", size=SMALL, color=MUTED)
    s.lines(252, 238, ["2B FLOPs per weight", "still 2 bytes per weight", "= B FLOPs per byte"],
            size=SMALL, anchor="start")
    return s


def roofline() -> Svg:
    chip = get_hardware("h100-sxm")
    peak, bw = chip.peak("fp16"), chip.bandwidth
    ridge = peak / bw
    s = Svg(480, 350, f"The roofline of the {chip.label}: attainable FLOP/s rise with arithmetic "
            "intensity along the bandwidth slope until they meet the peak at the ridge point")
    x0, y0, W, H = 70, 290, 380, 240
    lo, hi = 0, 4   # intensity 10^0 .. 10^4 FLOP/byte

    def X(i):
        return x0 + (math.log10(i) - lo) / (hi - lo) * W

    ylo = math.log10(bw * 10**lo)
    yhi = math.log10(peak) + 0.5

    def Y(r):
        return y0 - (math.log10(r) - ylo) / (yhi - ylo) * H

    s.line(x0, y0, x0 + W, y0, color=MUTED)
    s.line(x0, y0, x0, y0 - H, color=MUTED)
    for e in range(lo, hi + 1):
        s.text(X(10**e), y0 + 20, fmt(10**e), size=SMALL, color=MUTED)
    s.text(x0 + W / 2, y0 + 44, "arithmetic intensity (FLOPs per byte, log)", size=SMALL)
    s.text(x0 - 6, y0 - H - 8, "attainable FLOP/s (log)", size=SMALL, anchor="start")
    s.path(f"M{X(1):.1f},{Y(bw):.1f} L{X(ridge):.1f},{Y(peak):.1f} L{X(10**hi):.1f},"
           f"{Y(peak):.1f}", color="#1d4ed8", width=3)
    s.line(X(ridge), Y(peak), X(ridge), y0, dash=True)
    s.text(X(ridge) + 6, y0 - 10, f"ridge ≈ {ridge:.0f}", size=SMALL, anchor="start",
           weight="bold")
    s.text(X(ridge) - 8, Y(peak) - 8, f"peak {peak / TFLOP:,.0f} TFLOP/s", size=SMALL,
           anchor="end")
    s.text(X(3), Y(bw * 3) - 34, f"slope: {bw / 1e12:.2f} TB/s", size=SMALL, anchor="start")
    s.text(X(3), Y(bw * 3) - 16, "memory-bound", size=SMALL, anchor="start", color=MUTED)
    s.text(X(ridge) + 10, Y(peak) - 10, "compute-bound", size=SMALL, anchor="start",
           color=MUTED)
    s.circle(X(1), Y(bw), 6, "cache")
    s.text(X(1) + 10, Y(bw) + 5, "decode, batch 1", size=SMALL, anchor="start")
    s.circle(X(2000), Y(peak), 6, "compute")
    s.text(X(2000), Y(peak) + 60, "long prefill", size=SMALL)
    s.line(X(2000), Y(peak) + 8, X(2000), Y(peak) + 44, color=MUTED)
    return s


def step_overlap() -> Svg:
    s = Svg(480, 290, "The time of a step is the longer of its memory time and its compute time, "
            "because the two proceed at once: decode is memory-bound, prefill compute-bound")

    def row(y, label, mem, comp):
        s.text(20, y, label, size=BODY, anchor="start", weight="bold")
        s.box(20, y + 10, mem, 26, "memory", "weights", size=SMALL)
        s.box(20, y + 42, comp, 26, "compute", "compute", size=SMALL)
        t = max(mem, comp)
        s.line(20 + t, y + 6, 20 + t, y + 76, color="#b91c1c", width=2, dash=True)
        s.text(20 + t + 6 if t < 380 else 20 + t - 6, y + 90, "step time = the longer",
               size=SMALL, anchor="start" if t < 380 else "end", color="#b91c1c")

    row(24, "decode step (one token per sequence)", 380, 70)
    row(150, "prefill (many tokens at once)", 150, 420)
    s.text(20, 276, "Weights stream in while earlier tiles are multiplied.", size=SMALL,
           anchor="start", color=MUTED)
    return s


def batching() -> Svg:
    m = get_model("llama-3-8b")
    s = Svg(480, 340, f"One decode step for a batch: the weights of {m.label} are read once and "
            "used for every sequence, while each sequence reads its own KV cache")
    s.box(120, 14, 240, 52, "weights", "weights", weight="bold",
          sub=f"{m.matmul_params * 2 / 1e9:.1f} GB, read once per step")
    B = 4
    for b in range(B):
        x = 20 + b * 115
        s.arrow(240, 66, x + 50, 122)
        s.box(x, 124, 100, 34, f"sequence {b + 1}", "act", size=SMALL)
        s.box(x, 184, 100, 40 + 12 * b, f"KV {b + 1}", "cache", size=SMALL)
        s.arrow(x + 50, 184, x + 50, 160)
    s.text(240, 290, "bytes per step = weights + Σ caches", size=BODY, weight="bold")
    s.text(240, 314, "FLOPs per step = B × (2 × parameters + attention)", size=BODY)
    s.text(240, 334, "more sequences: more FLOPs for nearly the same weight bytes", size=SMALL,
           color=MUTED)
    return s


def request_timeline() -> Svg:
    s = Svg(480, 230, "A request on a timeline: the prompt is processed in one prefill, which "
            "ends with the first token; then one decode step per further token")
    s.box(20, 40, 150, 40, "prefill (prompt)", "compute", size=SMALL)
    for i in range(5):
        s.box(176 + i * 48, 40, 42, 40, f"t{i + 2}", "weights", size=SMALL)
    s.text(176 + 5 * 48 + 4, 66, "⋯", size=HEAD, anchor="start", weight="bold")
    s.line(20, 96, 20, 120)
    s.line(170, 96, 170, 120)
    s.arrow(20, 112, 168, 112)
    s.text(95, 140, "time to first token", size=SMALL, weight="bold")
    s.line(176, 96, 176, 120)
    s.line(218, 96, 218, 120)
    s.arrow(176, 112, 216, 112)
    s.text(226, 140, "time per output token", size=SMALL, anchor="start", weight="bold")
    s.text(20, 26, "the first token comes out of the prefill", size=SMALL, anchor="start",
           color=MUTED)
    s.text(20, 184, "request time = TTFT + (tokens − 1) × TPOT", size=BODY, anchor="start",
           weight="bold")
    s.text(20, 208, "one user sees 1 / TPOT tokens per second", size=SMALL, anchor="start",
           color=MUTED)
    return s


def prefill_triangle() -> Svg:
    n, c = 8, 16
    s = Svg(480, 280, "A prefill computes all prompt tokens in one pass: a matrix product over "
            "the prompt, with causal attention that grows as a triangle, then the first token")
    s.text(20, 22, "the prompt, all at once", size=BODY, anchor="start", weight="bold")
    for i in range(n):
        s.box(20 + i * (c + 6), 34, c, 26, "", "act")
    s.arrow(110, 64, 110, 92)
    s.box(20, 94, n * (c + 6) - 6, 40, "weights × all tokens", "compute", size=SMALL)
    s.text(330, 22, "attention scores", size=BODY, weight="bold")
    x0 = 250
    for i in range(n):
        for j in range(i + 1):
            s.rect(x0 + j * c, 34 + i * c, c - 2, c - 2, "weights", rx=1, stroke_width=1)
    s.text(320, 34 + n * c + 20, "≈ S² / 2 pairs", size=SMALL, color=MUTED)
    s.lines(20, 170, ["FLOPs: 2 × parameters × S", "+ attention ∝ S²",
                      "bytes: the weights, once"], size=SMALL, anchor="start")
    s.box(20, 226, 176, 34, "first output token", "gold", size=SMALL)
    s.text(210, 248, "then decoding, one token a step", size=SMALL, anchor="start",
           color=MUTED)
    return s


def embedding_vs_head() -> Svg:
    m = get_model("llama-2-7b")
    V, d = m.n_vocab, m.d_model
    s = Svg(480, 250, f"The input embedding of {m.label} is a lookup that reads one row per "
            "token; the output head is a matrix product that reads the whole matrix")
    s.text(120, 22, "input embedding", size=BODY, weight="bold")
    for i in range(8):
        sel = i == 3
        s.rect(30, 34 + i * 16, 180, 14, "gold" if sel else "plain", rx=1, stroke_width=1,
               dash=not sel)
    s.text(120, 34 + 8 * 16 + 20, "one row of d read", size=SMALL)
    s.text(360, 22, "output head", size=BODY, weight="bold")
    for i in range(8):
        s.rect(270, 34 + i * 16, 180, 14, "weights", rx=1, stroke_width=1)
    s.text(360, 34 + 8 * 16 + 20, "all V rows read", size=SMALL)
    s.text(20, 212, f"{fmt(V)} × {fmt(d)} each: {V * d / 1e6:,.0f} M parameters,", size=SMALL,
           anchor="start")
    s.text(20, 232, "of which a decode step reads d + V × d", size=SMALL, anchor="start")
    return s


def bound_gap() -> Svg:
    s = Svg(480, 260, "A measured time per token against its bound: the bound counts only the "
            "bytes of weights and cache at the peak bandwidth; real runs add what it leaves out")
    s.text(20, 24, "bound", size=BODY, anchor="start", weight="bold")
    s.box(20, 34, 280, 34, "bytes ÷ peak bandwidth", "weights", size=SMALL)
    s.text(20, 98, "measured", size=BODY, anchor="start", weight="bold")
    s.box(20, 108, 280, 34, "same bytes", "weights", size=SMALL)
    s.box(300, 108, 60, 34, "BW", "alert", size=SMALL)
    s.box(360, 108, 50, 34, "ops", "plain", size=SMALL)
    s.box(410, 108, 50, 34, "sync", "gold", size=SMALL)
    s.lines(20, 174, ["BW: bandwidth achieved below the datasheet's peak",
                      "ops: attention, norms, sampling the bound does not count",
                      "sync: kernel launches, waits, host work between steps"],
            size=SMALL, anchor="start", color=MUTED)
    s.text(20, 246, "bound ÷ measured = the share of the bound achieved", size=SMALL,
           anchor="start", weight="bold")
    return s


def forecast_terms() -> Svg:
    s = Svg(480, 350, "The forecast of a decode step: the bound stretched by a fraction k, plus "
            "a dequantization cost per weight, a cost per layer times the L layers and a fixed "
            "cost per token; a small model on a fast chip spends most of its step in the terms "
            "that do not scale with bytes")

    def row(y, label, bound, k, dequant, layer, fixed):
        s.text(20, y, label, size=BODY, anchor="start", weight="bold")
        x = 20
        s.box(x, y + 10, bound, 34, "bound" if bound >= 60 else "b", "weights", size=SMALL)
        x += bound
        s.box(x, y + 10, k, 34, "k × bound" if k >= 70 else "k", "alert", size=SMALL)
        x += k
        s.box(x, y + 10, dequant, 34, "δ", "plain", size=SMALL)
        x += dequant
        for i in range(8):
            s.rect(x + i * layer / 8, y + 10, layer / 8, 34, "compute", rx=1, stroke_width=1)
        s.text(x + layer / 2, y + 60, "λ × L", size=SMALL, color=MUTED)
        x += layer
        s.box(x, y + 10, fixed, 34, "τ", "gold", size=SMALL)

    row(24, "large model, slow memory", 250, 80, 20, 64, 24)
    row(118, "small model, fast memory", 40, 14, 14, 64, 24)
    s.lines(20, 226, ["bound: the step's bytes ÷ the peak bandwidth",
                      "k × bound: bandwidth below peak, attention",
                      "δ × t16: dequantizing, per weight unpacked",
                      "λ × L: kernel launches and small operations, per layer",
                      "τ: sampling and host work, once per token"],
            size=SMALL, anchor="start", color=MUTED)
    s.text(20, 334, "all terms ≥ 0: the forecast is never faster than the bound",
           size=SMALL, anchor="start", weight="bold")
    return s


def kernel_launches() -> Svg:
    s = Svg(480, 330, "One decode step on a GPU, its kernels launched one by one from the host, "
            "then replayed as one recorded CUDA graph: the gaps in which the GPU waits for the "
            "next launch disappear, and the step ends sooner")
    kernels = (34, 20, 46, 18, 40, 22)   # widths: norms, projections, attention, the MLP...

    def lane(y, label):
        s.text(20, y + 20, label, size=SMALL, anchor="start", color=MUTED)

    def row(y, title, gap, graph):
        s.text(20, y, title, size=BODY, anchor="start", weight="bold")
        lane(y + 8, "host")
        lane(y + 50, "GPU")
        x = 70
        if graph:
            s.box(x, y + 12, 64, 24, "graph", "gold", size=SMALL)
            x += 70
        for i, w in enumerate(kernels):
            if not graph:
                s.box(x, y + 12, 22, 24, "", "plain")
                s.arrow(x + 11, y + 36, x + 11, y + 52)
                x += 22
            s.rect(x, y + 54, w, 24, "compute")
            x += w + (gap if not graph and i < len(kernels) - 1 else 0)
        s.line(x, y + 6, x, y + 86, color="#b91c1c", width=2, dash=True)
        return x

    row(24, "one launch per kernel", 8, graph=False)
    end_graph = row(142, "one CUDA graph per token", 0, graph=True)
    s.text(end_graph + 8, 218, "the same kernels,", size=SMALL, anchor="start", color="#b91c1c")
    s.text(end_graph + 8, 236, "no waits", size=SMALL, anchor="start", color="#b91c1c")
    s.lines(20, 268, ["each launch costs the host microseconds and a layer is a dozen",
                      "kernels: the waits grow with the layers (the forecast's λ × L)"],
            size=SMALL, anchor="start", color=MUTED)
    s.text(20, 316, "llama.cpp, Ampere and later: one graph per token", size=SMALL,
           anchor="start", weight="bold")
    return s


DIAGRAMS = {
    "weights-per-token": weights_per_token,
    "chip-anatomy": chip_anatomy,
    "matvec-matmul": matvec_matmul,
    "roofline-sketch": roofline,
    "step-overlap": step_overlap,
    "batching-weights": batching,
    "request-timeline": request_timeline,
    "prefill-triangle": prefill_triangle,
    "embedding-vs-head": embedding_vs_head,
    "bound-gap": bound_gap,
    "forecast-terms": forecast_terms,
    "kernel-launches": kernel_launches,
}
