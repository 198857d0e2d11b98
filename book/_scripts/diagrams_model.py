"""Diagrams of what a model is made of: the decoder block, the KV cache, grouped-query and latent
attention, windows and chunks, expert routing, quantization blocks, constant-state layers.

Where a diagram prints a model's dimensions they are read from the catalog
(``llm_arithmetic.catalog``), so a changed config redraws it.
"""
from __future__ import annotations

from llm_arithmetic.catalog.formats import FORMATS
from llm_arithmetic.catalog.model_catalog import get_model

from svg import BODY, HEAD, MUTED, SMALL, Svg, fmt


def _millions(n: int) -> str:
    return f"{n / 1e6:,.1f} M"


def decoder_block() -> Svg:
    m = get_model("llama-2-7b")
    a, mlp = m.layers[0].attention, m.layers[0].mlp
    d, L, V, dff = m.d_model, m.n_layers, m.n_vocab, mlp.d_ff
    q, kv = a.n_heads * a.d_head, a.n_kv_heads * a.d_head
    s = Svg(480, 560, f"The decoder of {m.label}: embedding, {L} identical blocks of attention "
            "and MLP, final norm and output head, with the shape of every weight matrix")
    x0, w = 20, 440
    s.text(240, 18, "token id", size=SMALL, color=MUTED)
    s.arrow(240, 24, 240, 36)
    s.box(x0, 38, w, 40, f"Embedding table  {fmt(V)} × {fmt(d)}", "weights",
          sub=f"{_millions(V * d)} parameters; one row is read per token")
    s.arrow(240, 80, 240, 96)
    # the repeated block
    s.rect(x0 - 8, 98, w + 16, 326, "plain", dash=True, fill="none")
    s.text(x0, 118, f"× {L} blocks", size=HEAD, anchor="start", weight="bold")
    s.text(x0 + w, 118, "each block:", size=SMALL, anchor="end", color=MUTED)
    s.box(x0 + 20, 128, w - 40, 26, f"norm ({fmt(d)})", size=SMALL)
    s.text(x0 + 4, 178, "Attention", size=BODY, anchor="start", weight="bold")
    att = a.params(d)
    s.text(x0 + w - 4, 178, _millions(att), size=BODY, anchor="end")
    bw = (w - 30) / 4
    mats = [("W_Q", d, q), ("W_K", d, kv), ("W_V", d, kv), ("W_O", q, d)]
    for i, (name, rows, cols) in enumerate(mats):
        shape = f"{fmt(rows)}×{fmt(cols)}"
        s.box(x0 + i * (bw + 10), 186, bw, 46, name, "weights", sub=shape)
    s.text(x0 + 4, 252, "attention over the cached keys and values", size=SMALL, anchor="start",
           color=MUTED)
    s.box(x0 + 20, 262, w - 40, 26, f"norm ({fmt(d)})", size=SMALL)
    s.text(x0 + 4, 312, "MLP (gated)", size=BODY, anchor="start", weight="bold")
    s.text(x0 + w - 4, 312, _millions(mlp.params(d)), size=BODY, anchor="end")
    bw3 = (w - 20) / 3
    for i, (name, shape) in enumerate([("gate", f"{fmt(d)}×{fmt(dff)}"),
                                       ("up", f"{fmt(d)}×{fmt(dff)}"),
                                       ("down", f"{fmt(dff)}×{fmt(d)}")]):
        s.box(x0 + i * (bw3 + 10), 320, bw3, 46, name, "weights", sub=shape)
    blk = m.layers[0].params(d)
    s.text(240, 392, f"one block: {_millions(blk)} parameters", size=BODY)
    s.text(240, 412, f"all {L} blocks: {_millions(blk * L)}", size=BODY, weight="bold")
    s.arrow(240, 424, 240, 440)
    s.box(x0 + 20, 442, w - 40, 26, f"final norm ({fmt(d)})", size=SMALL)
    s.arrow(240, 468, 240, 482)
    head = d * V
    s.box(x0, 484, w, 40, f"Output head  {fmt(d)} × {fmt(V)}", "weights",
          sub=f"{_millions(head)}; read whole for every token")
    s.text(240, 550, f"total {m.total_params / 1e9:.2f} billion parameters", size=BODY,
           weight="bold")
    return s


def kv_cache_growth() -> Svg:
    m = get_model("llama-2-7b")
    a = m.layers[0].attention
    L, Hkv, dh = m.n_layers, a.n_kv_heads, a.d_head
    per_token = int(m.kv_cache_bytes_per_token(16))
    s = Svg(480, 330, f"The KV cache of {m.label} growing by one token per decode step: every "
            "token keeps a key and a value vector in every layer")
    n_cached, cw, x0, y0 = 5, 52, 80, 46
    rows = ["layer 1", "layer 2", "⋮", f"layer {L}"]
    s.text(x0 + 3 * (cw + 8), 20, "tokens already seen  →  new token", size=SMALL, color=MUTED)
    for j in range(n_cached + 1):
        x = x0 + j * (cw + 8)
        new = j == n_cached
        s.text(x + cw / 2, 40, f"t{j + 1}" if not new else "new", size=SMALL,
               weight="bold" if new else "normal")
        for i, r in enumerate(rows):
            y = y0 + i * 46
            if r == "⋮":
                s.text(x + cw / 2, y + 28, "⋮", size=BODY)
                continue
            kind = "gold" if new else "cache"
            s.rect(x, y, cw, 19, kind, rx=2, dash=new)
            s.rect(x, y + 21, cw, 19, kind, rx=2, dash=new)
            s.text(x + cw / 2, y + 15, "K", size=SMALL)
            s.text(x + cw / 2, y + 36, "V", size=SMALL)
    for i, r in enumerate(rows):
        if r != "⋮":
            s.text(x0 - 8, y0 + i * 46 + 26, r, size=SMALL, anchor="end", color=MUTED)
    yb = y0 + 4 * 46 + 6
    s.path(f"M{x0},{yb} v8 h{n_cached * (cw + 8) - 8} v-8", color=MUTED)
    s.text(x0 + (n_cached * (cw + 8) - 8) / 2, yb + 26,
           "read again at every decode step", size=SMALL, color=MUTED)
    s.text(x0 + n_cached * (cw + 8) + cw / 2, yb + 26, "written", size=SMALL, color=MUTED)
    s.lines(240, yb + 56, [f"per token: 2 (K, V) × {L} layers × {Hkv} K/V heads × {dh} × 2 B",
                           f"= {fmt(per_token)} bytes, for every token of every sequence"],
            size=SMALL)
    return s


def gqa() -> Svg:
    m = get_model("mistral-7b")
    a = m.layers[0].attention
    group = a.n_heads // a.n_kv_heads
    nq = 8
    s = Svg(480, 484, "Query heads and the key/value heads they read: multi-head, grouped-query "
            f"and multi-query attention, with {m.label}'s group size")
    panels = [("Multi-head: a K/V head per query head", nq, "cache × 1"),
              (f"Grouped-query: groups of {group} query heads", nq // group,
               f"cache × 1/{group}"),
              ("Multi-query: one K/V head for all", 1, f"cache × 1/{nq}")]
    qw, gap, x0 = 42, 12, 22
    for p, (label, nkv, ratio) in enumerate(panels):
        y = 22 + p * 148
        s.text(x0, y, label, size=SMALL, anchor="start", weight="bold")
        for i in range(nq):
            x = x0 + i * (qw + gap)
            s.box(x, y + 12, qw, 28, f"q{i + 1}", "act", size=SMALL)
        per = nq // nkv
        for k in range(nkv):
            xs = [x0 + i * (qw + gap) + qw / 2 for i in range(k * per, (k + 1) * per)]
            cx = sum(xs) / len(xs)
            kw = min(per * (qw + gap) - gap, 120) if per > 1 else qw
            s.box(cx - kw / 2, y + 78, kw, 28, "K V" if kw > 50 else "KV", "cache", size=SMALL)
            for x in xs:
                s.line(x, y + 40, cx, y + 78)
        s.text(x0, y + 126, ratio, size=SMALL, anchor="start", color=MUTED)
    s.text(x0, 470, f"{m.label}: {a.n_heads} query, {a.n_kv_heads} K/V heads", size=SMALL,
           anchor="start", weight="bold")
    return s


def mla() -> Svg:
    m = get_model("deepseek-v3")
    a = m.layers[-1].attention
    d, r, dr, H, dn, dv = m.d_model, a.kv_lora_rank, a.d_rope, a.n_heads, a.d_nope, a.d_v
    mha = H * (dn + dr) + H * dv
    s = Svg(480, 470, f"Multi-head latent attention in {m.label}: a small latent and a rotary key "
            "are cached; the up-projections are either applied or absorbed")
    s.box(150, 12, 180, 34, f"hidden state ({fmt(d)})", "act")
    s.arrow(200, 46, 120, 78)
    s.arrow(280, 46, 360, 78)
    s.box(20, 80, 200, 46, "W_DKV: down-project", "weights", sub=f"{fmt(d)} → {fmt(r)}")
    s.box(260, 80, 200, 46, "W_KR: rotary key", "weights", sub=f"{fmt(d)} → {fmt(dr)}")
    s.arrow(120, 126, 120, 150)
    s.arrow(360, 126, 360, 150)
    s.box(20, 152, 200, 40, f"latent c ({fmt(r)})", "cache", weight="bold")
    s.box(260, 152, 200, 40, f"rotary key ({fmt(dr)})", "cache", weight="bold")
    s.text(240, 218, f"cached per token and layer: {fmt(r)} + {fmt(dr)} = {fmt(r + dr)} numbers",
           size=SMALL, weight="bold")
    s.text(240, 238, f"(keys and values of {H} full heads would be {fmt(mha)})", size=SMALL,
           color=MUTED)
    s.text(20, 272, "Expanded", size=BODY, anchor="start", weight="bold")
    s.lines(20, 294, ["W_UK, W_UV turn every", "cached latent into keys",
                      f"and values of {H} heads,", "again at every step"], size=SMALL,
            anchor="start")
    s.text(260, 272, "Absorbed", size=BODY, anchor="start", weight="bold")
    s.lines(260, 294, ["W_UK is folded into the", "query, W_UV into the",
                       "output, once per token;", "heads score c directly"],
            size=SMALL, anchor="start")
    s.rect(12, 252, 216, 116, "compute", fill="none")
    s.rect(252, 252, 216, 116, "compute", fill="none")
    s.text(240, 400, "Both give the same attention output; absorbing moves", size=SMALL)
    s.text(240, 420, "the up-projections from every cached position", size=SMALL)
    s.text(240, 440, "to once per new token.", size=SMALL)
    return s


def windows() -> Svg:
    mis, scout = get_model("mistral-7b"), get_model("llama-4-scout")
    chunked = [run for run in scout.layers if run.attention.chunk]
    c_layers = sum(run.count for run in chunked)
    chunk = chunked[0].attention.chunk
    n, cell = 8, 16
    s = Svg(480, 330, "Which earlier tokens each token attends to: full causal attention, a "
            "sliding window and chunked attention, drawn for eight tokens")
    specs = [("full causal", lambda i, j: j <= i, "keeps all tokens"),
             ("window of 3", lambda i, j: i - 3 < j <= i, "keeps the last 3"),
             ("chunks of 4", lambda i, j: j <= i and j // 4 == i // 4, "keeps its chunk")]
    for p, (label, attends, keep) in enumerate(specs):
        x0, y0 = 12 + p * 166, 50
        s.text(x0 + n * cell / 2, 30, label, size=BODY, weight="bold")
        for i in range(n):
            for j in range(n):
                kind = "weights" if attends(i, j) else "plain"
                s.rect(x0 + j * cell, y0 + i * cell, cell - 2, cell - 2, kind, rx=1,
                       stroke_width=1, fill=None if attends(i, j) else "#ffffff")
        s.text(x0 + n * cell / 2, y0 + n * cell + 22, keep, size=SMALL, color=MUTED)
    s.text(20, 228, "rows: the token being computed; columns: the tokens it", size=SMALL,
           anchor="start")
    s.text(20, 246, "attends to (filled). The cache needs only the filled columns.",
           size=SMALL, anchor="start")
    s.text(20, 282, f"{mis.label}: a window of {fmt(mis.layers[0].attention.window)} tokens in "
           "every layer", size=SMALL, anchor="start", color=MUTED)
    s.text(20, 302, f"{scout.label}: chunks of {fmt(chunk)} in {c_layers} of its "
           f"{scout.n_layers} layers", size=SMALL, anchor="start", color=MUTED)
    return s


def moe_routing() -> Svg:
    m = get_model("llama-4-scout")
    mlp = [run.mlp for run in m.layers if run.mlp.is_moe][0]
    big = get_model("deepseek-v3")
    bm = [run.mlp for run in big.layers if run.mlp.is_moe][0]
    E, k, shared = mlp.n_experts, mlp.top_k, mlp.n_shared
    chosen = {(3 + 5 * i) % E for i in range(k)}
    s = Svg(480, 400, f"Expert routing in {m.label}: a router scores {E} experts, the top {k} "
            f"and {shared} shared expert process the token, their outputs are summed")
    s.box(170, 12, 140, 34, "token (d)", "act")
    s.arrow(240, 46, 240, 66)
    s.box(150, 68, 180, 34, f"router: {E} scores", "compute")
    s.text(338, 90, f"keeps the top {k}", size=SMALL, anchor="start", color=MUTED)
    cols = 8
    ew, eh, gap = 48, 30, 8
    x0 = (480 - cols * ew - (cols - 1) * gap) / 2
    for e in range(E):
        x, y = x0 + (e % cols) * (ew + gap), 136 + (e // cols) * (eh + gap)
        on = e in chosen
        s.box(x, y, ew, eh, f"E{e + 1}", "gold" if on else "plain", size=SMALL,
              weight="bold" if on else "normal", dash=not on)
        if on:
            s.line(240, 102, x + ew / 2, y, color="#a16207")
    ys = 136 + ((E + cols - 1) // cols) * (eh + gap) + 10
    if shared:
        s.box(140, ys, 200, 32, f"shared expert{'s' if shared > 1 else ''} (always)", "weights")
        s.arrow(240, ys + 32, 240, ys + 54)
    else:
        ys -= 40
    s.box(120, ys + 56, 240, 34, "weighted sum of the outputs", "compute")
    s.text(240, ys + 114, f"reads {k} routed + {shared} shared of {E + shared} experts' weights "
           "per token", size=SMALL)
    s.text(240, ys + 134, f"{big.label}: {bm.top_k} of {bm.n_experts} routed, {bm.n_shared} "
           "shared", size=SMALL, color=MUTED)
    return s


def quant_blocks() -> Svg:
    q4, q8 = FORMATS["q4_0"], FORMATS["q8_0"]
    n = 32
    s = Svg(480, 300, "A block-quantized row of weights: blocks of 32 small integers, each with "
            "its own 16-bit scale, so the scales add to the bits per weight")
    s.text(20, 24, "one row of a weight matrix, cut into blocks of 32", size=SMALL,
           anchor="start")
    cw = 12.5
    for b in range(2):
        y = 40 + b * 62
        s.box(20, y, 40, 36, "d", "gold", size=SMALL, weight="bold")
        for i in range(n):
            s.rect(64 + i * cw, y, cw - 2, 36, "weights", rx=1, stroke_width=1)
        s.text(64 + n * cw / 2, y + 52, f"block {b + 1}: {n} integers of 4 bits, scale d",
               size=SMALL, color=MUTED)
    s.text(20, 190, "weight i = d × (q_i − 8), with d a 16-bit float", size=SMALL,
           anchor="start")
    s.text(20, 218, f"Q4_0: ({n} × 4 + 16) / {n} = {float(q4.bits):g} bits per weight",
           size=BODY, anchor="start", weight="bold")
    s.text(20, 242, f"Q8_0: ({n} × 8 + 16) / {n} = {float(q8.bits):g} bits per weight",
           size=BODY, anchor="start")
    s.text(20, 274, "The scale is read with its block: the bytes of a model", size=SMALL,
           anchor="start", color=MUTED)
    s.text(20, 292, "are parameters × bits per weight / 8, scales included.", size=SMALL,
           anchor="start", color=MUTED)
    return s


def constant_state() -> Svg:
    s = Svg(480, 270, "An attention layer's cache grows with every token; a constant-state "
            "layer keeps a fixed-size state that each token updates")
    s.text(20, 24, "Attention layer: the cache grows", size=BODY, anchor="start", weight="bold")
    for j in range(6):
        s.box(20 + j * 58, 36, 50, 30, "KV", "cache" if j < 5 else "gold", size=SMALL, dash=j == 5)
    s.text(20 + 6 * 58, 57, "+1 per token", size=SMALL, anchor="start", color=MUTED)
    s.text(20, 96, "a decode step reads all of it: bytes ∝ context", size=SMALL, anchor="start",
           color=MUTED)
    s.text(20, 140, "Constant-state (Mamba-2) layer: a fixed state", size=BODY, anchor="start",
           weight="bold")
    s.box(20, 154, 150, 50, "state h", "cache", weight="bold", sub="same size always")
    s.arrow(170, 179, 230, 179)
    s.box(232, 160, 90, 38, "token", "act")
    s.arrow(322, 179, 380, 179)
    s.box(382, 154, 80, 50, "state h′", "cache", weight="bold")
    s.text(20, 236, "each token reads and rewrites the state: bytes do not", size=SMALL,
           anchor="start", color=MUTED)
    s.text(20, 254, "depend on the context length", size=SMALL, anchor="start", color=MUTED)
    return s


DIAGRAMS = {
    "decoder-block": decoder_block,
    "kv-cache-growth": kv_cache_growth,
    "gqa-heads": gqa,
    "mla-latent": mla,
    "attention-windows": windows,
    "moe-routing": moe_routing,
    "quant-blocks": quant_blocks,
    "constant-state": constant_state,
}
