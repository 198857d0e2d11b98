"""Diagrams of serving: splitting a model over chips and the collectives that join the pieces,
continuous batching, the paged cache, disaggregation, speculative decoding, cost, and the
figures of the reproduced articles.

Chip and model figures are read from the catalog (``llm_arithmetic.catalog``).
"""
from __future__ import annotations

from llm_arithmetic.catalog.formats import FORMATS
from llm_arithmetic.catalog.hardware import get_hardware
from llm_arithmetic.catalog.model_catalog import get_model

from svg import BODY, HEAD, MUTED, SMALL, Svg, fmt

CHIP_KINDS = ("weights", "compute", "cache", "act")


def tensor_parallel() -> Svg:
    s = Svg(480, 330, "Tensor parallelism over four chips: the first matrix of a block is split "
            "by columns, the second by rows, and an all-reduce sums the partial outputs")
    n = 4
    s.box(170, 12, 140, 30, "x (every chip)", "act", size=SMALL)
    for i in range(n):
        x = 20 + i * 114
        s.arrow(240, 42, x + 50, 66)
        s.text(x + 50, 62, "", size=SMALL)
        s.box(x, 68, 100, 50, f"W1 cols {i + 1}/4", "weights", size=SMALL,
              sub="d × d_ff/4")
        s.arrow(x + 50, 118, x + 50, 138)
        s.box(x, 140, 100, 50, f"W2 rows {i + 1}/4", "weights", size=SMALL,
              sub="d_ff/4 × d")
        s.arrow(x + 50, 190, x + 50, 210)
        s.text(x + 50, 226, f"partial y{i + 1}", size=SMALL)
    s.rect(20, 236, 440, 34, "gold")
    s.text(240, 258, "all-reduce: y = y1 + y2 + y3 + y4 on every chip", size=SMALL,
           weight="bold")
    s.text(20, 296, "each chip holds and reads 1/4 of the weights;", size=SMALL, anchor="start")
    s.text(20, 316, "two all-reduces per block (attention and MLP)", size=SMALL, anchor="start",
           color=MUTED)
    return s


def pipeline_parallel() -> Svg:
    m = get_model("llama-3.1-405b")
    L, n = m.n_layers, 4
    s = Svg(480, 300, f"Pipeline parallelism: the {L} layers of {m.label} cut into four stages "
            "on four chips; activations pass from stage to stage, micro-batches keep all busy")
    s.text(12, 16, f"layers of {m.label} per chip:", size=SMALL, anchor="start",
           color=MUTED)
    for i in range(n):
        x = 12 + i * 118
        s.box(x, 26, 106, 46, f"chip {i + 1}", CHIP_KINDS[0], size=SMALL,
              sub=f"{i * L // n + 1}–{(i + 1) * L // n}")
        if i < n - 1:
            s.arrow(x + 106, 49, x + 118, 49)
    s.text(20, 100, "time →   (each box: one micro-batch in one stage)", size=SMALL,
           anchor="start", color=MUTED)
    c = 34
    for st in range(n):
        y = 112 + st * 30
        s.text(52, y + 19, f"stage {st + 1}", size=SMALL, anchor="end")
        for mb in range(4):
            t = st + mb
            s.box(60 + t * (c + 4), y, c, 24, f"{mb + 1}", ("act", "weights", "compute",
                                                            "gold")[mb], size=SMALL)
    s.text(20, 260, "only activations cross between chips (point to point);", size=SMALL,
           anchor="start")
    s.text(20, 280, "empty slots at the start and end are the pipeline's bubble", size=SMALL,
           anchor="start", color=MUTED)
    return s


def expert_parallel() -> Svg:
    m = get_model("deepseek-v3")
    mlp = [run.mlp for run in m.layers if run.mlp.is_moe][0]
    E, n = mlp.n_experts, 4
    s = Svg(480, 300, f"Expert parallelism: the {E} routed experts of {m.label} spread over chips; "
            "an all-to-all sends each token to the chips of its chosen experts and back")
    for i in range(n):
        x = 20 + i * 114
        s.box(x, 20, 100, 34, f"tokens on {i + 1}", "act", size=SMALL)
        s.box(x, 150, 100, 60, f"chip {i + 1}", "weights", size=SMALL,
              sub=f"E{i * E // n + 1}–E{(i + 1) * E // n}")
    for i in range(n):
        for j in range(n):
            s.line(20 + i * 114 + 50, 54, 20 + j * 114 + 50, 148, color=MUTED, width=1)
    s.rect(20, 88, 440, 28, "gold")
    s.text(240, 107, "all-to-all: dispatch each token to its experts", size=SMALL,
           weight="bold")
    s.rect(20, 222, 440, 28, "gold")
    s.text(240, 241, "all-to-all: return the outputs (combine)", size=SMALL, weight="bold")
    s.text(20, 280, "each chip stores 1/4 of the experts; attention is replicated or split",
           size=SMALL, anchor="start", color=MUTED)
    return s


def ring_allreduce() -> Svg:
    import math
    n = 4
    s = Svg(480, 340, "A ring all-reduce over four chips: each vector is cut into four pieces; "
            "in reduce-scatter and then all-gather each chip passes one piece to the next")
    cx, cy, r = 130, 160, 90
    pos = [(cx + r * math.cos(math.pi / 2 * i - math.pi / 2),
            cy + r * math.sin(math.pi / 2 * i - math.pi / 2)) for i in range(n)]
    for i, (x, y) in enumerate(pos):
        s.box(x - 36, y - 20, 72, 40, f"chip {i + 1}", CHIP_KINDS[i], size=SMALL)
    for i in range(n):
        (x1, y1), (x2, y2) = pos[i], pos[(i + 1) % n]
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        dx, dy = x2 - x1, y2 - y1
        ln = math.hypot(dx, dy)
        ux, uy = dx / ln, dy / ln
        s.arrow(mx - ux * 22 + uy * 20, my - uy * 22 - ux * 20,
                mx + ux * 22 + uy * 20, my + uy * 22 - ux * 20, width=2)
    s.lines(260, 60, ["1. reduce-scatter: 3 steps;", "each passes 1/4 of the", "vector on and adds",
                      "what it receives"], size=SMALL, anchor="start")
    s.lines(260, 160, ["2. all-gather: 3 steps;", "each passes the finished", "piece on"],
            size=SMALL, anchor="start")
    s.text(20, 300, "bytes each chip sends: 2 × (N − 1) / N × the vector", size=BODY,
           anchor="start", weight="bold")
    s.text(20, 324, "nearly twice the vector, whatever the number of chips N", size=SMALL,
           anchor="start", color=MUTED)
    return s


def continuous_batching() -> Svg:
    s = Svg(480, 330, "Static batching against continuous batching: with static batches a "
            "finished sequence leaves an idle slot; continuous batching refills it at once")
    steps, c = 10, 36
    # the decode steps each request needs, in the order the requests arrive
    lengths = [5, 9, 3, 7, 4, 6, 5, 6, 4, 5, 6]

    def grid(y0, refill):
        queue = list(enumerate(lengths))
        slots = [queue.pop(0) for _ in range(4)]
        start = [0] * 4
        runs = []  # (slot, first step, steps, request)
        while slots:
            slot = min(range(len(slots)), key=lambda i: (start[i] + slots[i][1], i))
            req, ln = slots[slot]
            runs.append((slot, start[slot], ln, req))
            if refill and queue and start[slot] + ln < steps:
                start[slot] += ln
                slots[slot] = queue.pop(0)
            else:
                slots[slot] = (None, 10**6)
            if all(r is None for r, _ in slots):
                break
        end = max(t + ln for _, t, ln, _ in runs if t == 0) if not refill else steps
        nth = [0] * 4
        for slot, t0, ln, req in sorted(runs, key=lambda r: (r[0], r[1])):
            y = y0 + slot * 28
            kind = ("act", "weights")[(slot + nth[slot]) % 2]
            nth[slot] += 1
            for j in range(t0, min(t0 + ln, steps)):
                s.rect(60 + j * c, y, c - 2, 24, kind, rx=2)
            s.text(60 + t0 * c + (c - 2) / 2, y + 17, f"r{req + 1}", size=SMALL)
            if not refill:
                for j in range(t0 + ln, end):
                    s.rect(60 + j * c, y, c - 2, 24, "alert", rx=2, dash=True)
        for slot in range(4):
            s.text(52, y0 + slot * 28 + 18, f"slot {slot + 1}", size=SMALL, anchor="end")

    s.text(20, 22, "static: the batch waits for its longest sequence", size=SMALL,
           anchor="start", weight="bold")
    grid(32, False)
    s.text(20, 172, "continuous: a new request joins the next step", size=SMALL,
           anchor="start", weight="bold")
    grid(182, True)
    s.text(20, 318, "column: one decode step; r1, r2, ...: requests; red: idle", size=SMALL,
           anchor="start", color=MUTED)
    return s


def paged_cache() -> Svg:
    s = Svg(480, 330, "A paged KV cache: each sequence's cache is a list of fixed-size blocks, "
            "placed anywhere in memory through a block table; a shared prefix is stored once")
    s.text(20, 22, "block tables", size=BODY, anchor="start", weight="bold")
    tables = [("seq A", [0, 5, 2]), ("seq B", [0, 3]), ("seq C", [6, 1, 7, 4])]
    phys_x, bw = 250, 48
    kinds = {"seq A": "act", "seq B": "compute", "seq C": "cache"}
    owner = {}
    for r, (name, blocks) in enumerate(tables):
        y = 36 + r * 56
        s.text(20, y + 22, name, size=SMALL, anchor="start", weight="bold")
        for k, b in enumerate(blocks):
            s.box(70 + k * 40, y + 4, 34, 28, str(b), kinds[name], size=SMALL)
            owner.setdefault(b, name)
    s.text(phys_x, 22, "GPU memory (blocks)", size=BODY, anchor="start", weight="bold")
    for b in range(8):
        x, y = phys_x + (b % 4) * (bw + 6), 36 + (b // 4) * 60
        shared = b == 0
        s.box(x, y, bw, 46, str(b), "gold" if shared else kinds[owner[b]], size=SMALL,
              weight="bold" if shared else "normal")
    s.text(phys_x, 176, "yellow: a shared prefix block", size=SMALL, anchor="start",
           color=MUTED)
    s.lines(20, 226, ["Block 0 holds a prompt prefix that A and B share: stored once.",
                      "A block is allocated only when a sequence fills its last one,",
                      "so the waste is at most one partly filled block per sequence,",
                      "not a reservation of the longest possible context."],
            size=SMALL, anchor="start")
    return s


def disaggregation() -> Svg:
    s = Svg(480, 270, "Prefill and decode on different machines: a prefill pool computes the "
            "prompt's KV cache, sends it over the network, and a decode pool generates")
    s.box(20, 20, 120, 40, "requests", "act")
    s.arrow(140, 40, 176, 40)
    s.box(178, 14, 282, 56, "prefill pool", "compute", weight="bold",
          sub="compute-bound")
    s.arrow(320, 70, 320, 118)
    s.rect(200, 84, 240, 28, "gold")
    s.text(320, 103, "KV cache transfer", size=SMALL, weight="bold")
    s.box(178, 120, 282, 56, "decode pool", "weights", weight="bold",
          sub="memory-bound")
    s.arrow(178, 148, 142, 148)
    s.box(20, 128, 120, 40, "tokens", "act")
    s.lines(20, 214, ["Each pool is sized and parallelized for its own bound,",
                      "and a long prefill no longer stalls the decode steps."],
            size=SMALL, anchor="start")
    s.text(20, 258, "cost: the cache crosses the network once per request", size=SMALL,
           anchor="start", color=MUTED)
    return s


def speculative() -> Svg:
    s = Svg(480, 330, "Speculative decoding: a small draft model proposes k tokens, the target "
            "model checks all of them in one pass, keeps the agreed prefix and adds one token")
    k = 4
    c = 60
    s.text(20, 24, "1. draft model: k = 4 cheap steps", size=BODY, anchor="start",
           weight="bold")
    for i in range(k):
        s.box(20 + i * (c + 8), 36, c, 32, f"d{i + 1}", "act", size=SMALL)
        if i:
            s.arrow(20 + i * (c + 8) - 8, 52, 20 + i * (c + 8), 52)
    s.text(20, 104, "2. target model: one pass over all 4", size=BODY, anchor="start",
           weight="bold")
    s.rect(20, 114, k * (c + 8) + c, 40, "weights")
    s.text(20 + (k * (c + 8) + c) / 2, 139, "weights read once, like a small prefill",
           size=SMALL)
    s.text(20, 186, "3. accept while the target agrees", size=BODY, anchor="start",
           weight="bold")
    verdict = [True, True, False, False]
    for i in range(k):
        ok = verdict[i]
        s.box(20 + i * (c + 8), 198, c, 32, f"d{i + 1} {'✓' if ok else '✗'}",
              "compute" if ok else "alert", size=SMALL, dash=not ok)
    s.box(20 + k * (c + 8), 198, c, 32, "+1", "gold", size=SMALL, weight="bold")
    s.lines(20, 264, ["kept: d1, d2 and the target's own token at the first", "disagreement: "
                      "3 tokens for one target pass"], size=SMALL, anchor="start")
    s.text(20, 314, "worst case one token per pass; best case k + 1", size=SMALL,
           anchor="start", color=MUTED)
    return s


def cost_chain() -> Svg:
    s = Svg(480, 300, "From a price per chip-hour to a price per million tokens, and from a "
            "chip's power to joules per token: both divide by the tokens produced per second")
    items = [("price per chip-hour", "$ / h", "gold"), ("÷ 3,600", "$ / s", "plain"),
             ("÷ tokens per second per chip", "$ / token", "compute"),
             ("× 10⁶", "$ per million tokens", "weights")]
    for i, (a, b, kind) in enumerate(items):
        y = 16 + i * 52
        s.box(20, y, 260, 38, a, kind, size=SMALL)
        s.text(300, y + 24, b, size=SMALL, anchor="start", weight="bold")
        if i:
            s.arrow(150, y - 14, 150, y)
    s.box(20, 232, 260, 38, "power (W) ÷ tokens per second", "alert", size=SMALL)
    s.text(300, 256, "J per token", size=SMALL, anchor="start", weight="bold")
    s.text(20, 292, "tokens per second per chip = batch ÷ TPOT ÷ chips", size=SMALL,
           anchor="start", color=MUTED)
    return s


def estimate_pipeline() -> Svg:
    s = Svg(480, 370, "The estimate every case study makes: from a model's config and a chip's "
            "spec sheet to bytes and FLOPs per step, then the longer of two times")
    s.box(20, 14, 200, 40, "config.json", "act", weight="bold")
    s.box(260, 14, 200, 40, "spec sheet", "plain", weight="bold")
    s.arrow(120, 54, 120, 76)
    s.box(20, 78, 200, 58, "parameters, KV per token", "weights", size=SMALL,
          sub="× bits; × context, batch")
    s.arrow(120, 136, 120, 158)
    s.box(20, 160, 200, 58, "bytes per step", "weights", weight="bold",
          sub="weights + caches")
    s.box(260, 160, 200, 58, "FLOPs per step", "compute", weight="bold",
          sub="≈ 2 × params × batch")
    s.arrow(360, 54, 360, 158, dash=True)
    s.text(368, 100, "bandwidth,", size=SMALL, anchor="start", color=MUTED)
    s.text(368, 118, "peak", size=SMALL, anchor="start", color=MUTED)
    s.arrow(120, 218, 200, 252)
    s.arrow(360, 218, 280, 252)
    s.box(60, 254, 360, 46, "step time = max(bytes ÷ bandwidth,", "gold", size=SMALL,
          sub="FLOPs ÷ peak)")
    s.arrow(240, 300, 240, 318)
    s.text(240, 340, "tokens per second = batch ÷ step time", size=BODY, weight="bold")
    s.text(240, 362, "and: does it fit in the chip's memory?", size=SMALL, color=MUTED)
    return s


def fits_by_bits() -> Svg:
    m = get_model("llama-7b")
    chips = [(get_hardware("raspberry-pi-4"), "Raspberry Pi 4"), (get_hardware("m2"), "M2")]
    fmts = [("fp16", FORMATS["fp16"].bits), ("Q8_0", FORMATS["q8_0"].bits),
            ("Q4_0", FORMATS["q4_0"].bits)]
    s = Svg(480, 250, f"The weights of {m.label} at sixteen, about eight and about four bits "
            "per weight, against the memory of two small devices")
    x0 = 140
    scale = 320 / max(m.total_params * 16 / 8, *(c.capacity for c, _ in chips))
    for i, (name, bits) in enumerate(fmts):
        y = 50 + i * 46
        gb = m.total_params * float(bits) / 8
        s.text(20, y + 21, f"{name}: {gb / 1e9:.1f} GB", size=SMALL, anchor="start",
               weight="bold")
        s.rect(x0, y, gb * scale, 30, "weights")
    for chip, short in chips:
        x = x0 + chip.capacity * scale
        s.line(x, 36, x, 186, color="#b91c1c", width=2, dash=True)
        s.text(x + 4 if x < 300 else x - 4, 28, f"{short}: {chip.capacity / 2**30:.0f} GiB",
               size=SMALL, anchor="start" if x < 300 else "end", color="#b91c1c")
    s.text(20, 222, "bytes = parameters × bits per weight / 8", size=BODY, anchor="start",
           weight="bold")
    s.text(20, 242, "(the OS and the KV cache need room too)", size=SMALL, anchor="start",
           color=MUTED)
    return s


def two_chips() -> Svg:
    a, b = get_hardware("a100-40gb-pcie"), get_hardware("m2")
    rb, rc = a.bandwidth / b.bandwidth, a.peak("fp16") / b.peak("fp16")
    s = Svg(480, 290, f"The {a.label} against the {b.label}: far more arithmetic, but a much "
            "smaller lead in memory bandwidth, which is what batch-1 decoding needs")
    s.text(20, 24, "memory bandwidth", size=BODY, anchor="start", weight="bold")
    s.rect(20, 34, 400, 26, "weights")
    s.text(26, 52, f"A100: {a.bandwidth / 1e9:,.0f} GB/s", size=SMALL, anchor="start")
    s.rect(20, 64, 400 / rb, 26, "weights")
    s.text(26 + 400 / rb, 82, f"M2: {b.bandwidth / 1e9:,.0f} GB/s", size=SMALL, anchor="start")
    s.text(440, 70, f"{rb:.0f}×", size=HEAD, anchor="middle", weight="bold")
    s.text(20, 126, "dense 16-bit arithmetic", size=BODY, anchor="start", weight="bold")
    s.rect(20, 136, 400, 26, "compute")
    s.text(26, 154, f"A100: {a.peak('fp16') / 1e12:,.0f} TFLOP/s", size=SMALL, anchor="start")
    s.rect(20, 166, max(400 / rc, 2), 26, "compute")
    s.text(26 + 400 / rc, 184, f"M2: {b.peak('fp16') / 1e12:.1f} TFLOP/s", size=SMALL,
           anchor="start")
    s.text(440, 172, f"{rc:.0f}×", size=HEAD, anchor="middle", weight="bold")
    s.lines(20, 234, ["At batch 1 both wait for memory: the speed ratio is",
                      "the bandwidth ratio, not the compute ratio."], size=SMALL,
            anchor="start")
    return s


def attention_steps() -> Svg:
    s = Svg(480, 320, "Standard attention over a sequence of N tokens, step by step: the N × N "
            "score matrix is written to memory and read back, which is what a fused kernel avoids")
    steps = [("S = Q Kᵀ", "N × d by d × N → N × N", "compute"),
             ("P = softmax(S)", "N × N read, N × N written", "alert"),
             ("O = P V", "N × N by N × d → N × d", "compute")]
    for i, (a, b, kind) in enumerate(steps):
        y = 16 + i * 76
        s.box(20, y, 200, 50, a, kind, weight="bold")
        s.text(236, y + 30, b, size=SMALL, anchor="start")
        if i:
            s.arrow(120, y - 24, 120, y)
    s.lines(20, 256, ["FLOPs ≈ 4 N² d per head; memory traffic grows with N²",
                      "when S and P go through memory; kept on chip (fused),",
                      "only Q, K, V and O are read and written."], size=SMALL, anchor="start")
    return s


def token_bytes() -> Svg:
    m, chip = get_model("mistral-7b"), get_hardware("rtx-4090")
    w = m.matmul_params * 2
    per = int(m.kv_cache_bytes_per_token(16))
    window = m.layers[0].attention.window
    s = Svg(480, 250, f"The bytes of one decoded token of {m.label} on an {chip.label}: the "
            "weights plus the KV cache at the context, which stops growing at the window")
    ctxs = [1024, window, 4 * window]
    scale = 330 / (w + per * window)
    for i, ctx in enumerate(ctxs):
        y = 30 + i * 58
        kv = per * min(ctx, window)
        s.text(20, y - 6, f"context {fmt(ctx)}", size=SMALL, anchor="start", weight="bold")
        s.rect(20, y, w * scale, 30, "weights")
        s.text(26, y + 20, f"weights {w / 1e9:.1f} GB", size=SMALL, anchor="start")
        s.rect(20 + w * scale, y, kv * scale, 30, "cache")
        s.text(26 + (w + kv) * scale, y + 20, f"KV {kv / 1e9:.2f} GB", size=SMALL,
               anchor="start")
    t = (w + per * window) / chip.bandwidth
    s.text(20, 216, f"÷ {chip.bandwidth / 1e9:,.0f} GB/s: at least {t * 1e3:.1f} ms per token "
           "at the window", size=SMALL, anchor="start", weight="bold")
    s.text(20, 238, f"beyond {fmt(window)} tokens the window caps the cache read", size=SMALL,
           anchor="start", color=MUTED)
    return s


def reproduction_check() -> Svg:
    s = Svg(480, 330, "How a published number is checked: recomputed from the article's own "
            "inputs, compared with what it printed, and classed as a match, rounding, an "
            "erratum or unrecoverable")
    s.box(20, 14, 210, 46, "the article's inputs", "act", size=SMALL, sub="as printed")
    s.box(250, 14, 210, 46, "the article's number", "gold", size=SMALL, sub="as printed")
    s.arrow(125, 60, 125, 84)
    s.box(20, 86, 210, 46, "the same formula", "compute", size=SMALL, sub="recomputed exactly")
    s.arrow(125, 132, 200, 160)
    s.arrow(355, 60, 280, 160)
    s.box(140, 162, 200, 38, "compare", "plain", weight="bold")
    outcomes = [("matches", "compute"), ("rounding", "weights"), ("erratum", "alert"),
                ("unrecoverable", "plain")]
    for i, (label, kind) in enumerate(outcomes):
        x = 14 + i * 116
        s.arrow(240, 200, x + 54, 236)
        s.box(x, 238, 108, 34, label, kind, size=SMALL, weight="bold" if kind == "alert"
              else "normal")
    s.text(20, 300, "An erratum says which step differs: a factor, a row, a unit,", size=SMALL,
           anchor="start", color=MUTED)
    s.text(20, 320, "an assumption; and what the correction does to the conclusion.",
           size=SMALL, anchor="start", color=MUTED)
    return s


DIAGRAMS = {
    "tensor-parallel": tensor_parallel,
    "pipeline-parallel": pipeline_parallel,
    "expert-parallel": expert_parallel,
    "ring-allreduce": ring_allreduce,
    "continuous-batching": continuous_batching,
    "paged-cache": paged_cache,
    "disaggregation": disaggregation,
    "speculative-decoding": speculative,
    "cost-chain": cost_chain,
    "estimate-pipeline": estimate_pipeline,
    "fits-by-bits": fits_by_bits,
    "two-chips": two_chips,
    "attention-steps": attention_steps,
    "token-bytes": token_bytes,
    "reproduction-check": reproduction_check,
}
