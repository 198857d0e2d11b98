// Plots in plain SVG: linear or logarithmic axes, lines, points, bars, reference lines. Drawn
// at the container's width in pixels (redrawn when it changes), so text stays legible at 390 px.
const Plot = (function () {
  const NS = "http://www.w3.org/2000/svg";
  // Matplotlib's default colours (tab10), as the book's static figures use
  const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#17becf"];

  function el(tag, attrs, parent) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== null && v !== undefined) node.setAttribute(k, String(v));
    }
    if (parent) parent.appendChild(node);
    return node;
  }

  function tickLabel(v) {
    const a = Math.abs(v);
    if (a === 0) return "0";
    const units = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
    for (const [u, s] of units) {
      if (a >= u) return `${+(v / u).toPrecision(3)}${s}`;
    }
    if (a >= 1e-3) return `${+v.toPrecision(3)}`;
    return v.toExponential(0);
  }

  function logTicks(lo, hi, maxTicks) {
    let e0 = Math.ceil(Math.log10(lo) - 1e-9);
    const e1 = Math.floor(Math.log10(hi) + 1e-9);
    let out = [];
    for (let e = e0; e <= e1; e++) out.push(Math.pow(10, e));
    if (out.length < 2) {
      out = [];
      for (let e = e0 - 1; e <= e1; e++) {
        for (const k of [1, 2, 5]) {
          const v = k * Math.pow(10, e);
          if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
        }
      }
    }
    let step = 1;
    while (out.length / step > maxTicks) step++;
    return out.filter((_, i) => i % step === 0);
  }

  function linTicks(lo, hi, maxTicks) {
    const span = hi - lo || 1;
    const raw = span / Math.max(maxTicks, 2);
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw) || 10 * mag;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
      out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    }
    return out;
  }

  function scale(domain, range, log) {
    const [d0, d1] = log ? domain.map(Math.log10) : domain;
    const [r0, r1] = range;
    return (v) => {
      const t = ((log ? Math.log10(v) : v) - d0) / (d1 - d0 || 1);
      return r0 + t * (r1 - r0);
    };
  }

  // opts: {width, height, label (the accessible description), x: {domain, log, label},
  // y: {domain, log, label}}; a title goes in the page's text, above, where it can wrap
  function create(container, opts) {
    const width = Math.max(260, Math.round(opts.width));
    const height = Math.round(opts.height || Math.min(340, Math.max(220, width * 0.58)));
    const small = width < 420;
    const m = {left: small ? 48 : 60, right: 14, top: 12, bottom: 42};
    const svg = el("svg", {width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-label": opts.label || "plot", class: "lla-plot"}, container);
    el("title", {}, svg).textContent = opts.label || "plot";
    const x = scale(opts.x.domain, [m.left, width - m.right], opts.x.log);
    const y = scale(opts.y.domain, [height - m.bottom, m.top], opts.y.log);
    const frame = {left: m.left, right: width - m.right, top: m.top, bottom: height - m.bottom};
    const axes = el("g", {class: "lla-axes"}, svg);
    const maxX = Math.max(2, Math.floor((frame.right - frame.left) / (small ? 46 : 60)));
    const maxY = Math.max(2, Math.floor((frame.bottom - frame.top) / 36));
    const xt = opts.x.log ? logTicks(...opts.x.domain, maxX) : linTicks(...opts.x.domain, maxX);
    const yt = opts.y.log ? logTicks(...opts.y.domain, maxY) : linTicks(...opts.y.domain, maxY);
    for (const v of xt) {
      const px = x(v);
      el("line", {x1: px, x2: px, y1: frame.top, y2: frame.bottom, class: "lla-grid"}, axes);
      el("text", {x: px, y: frame.bottom + 14, "text-anchor": "middle", class: "lla-tick"},
        axes).textContent = opts.x.format ? opts.x.format(v) : tickLabel(v);
    }
    for (const v of yt) {
      const py = y(v);
      el("line", {x1: frame.left, x2: frame.right, y1: py, y2: py, class: "lla-grid"}, axes);
      el("text", {x: frame.left - 5, y: py + 4, "text-anchor": "end", class: "lla-tick"},
        axes).textContent = opts.y.format ? opts.y.format(v) : tickLabel(v);
    }
    el("rect", {x: frame.left, y: frame.top, width: frame.right - frame.left,
      height: frame.bottom - frame.top, class: "lla-frame"}, axes);
    el("text", {x: (frame.left + frame.right) / 2, y: height - 6, "text-anchor": "middle",
      class: "lla-axis-label"}, axes).textContent = opts.x.label || "";
    el("text", {x: 12, y: (frame.top + frame.bottom) / 2, "text-anchor": "middle",
      transform: `rotate(-90 12 ${(frame.top + frame.bottom) / 2})`, class: "lla-axis-label"},
      axes).textContent = opts.y.label || "";
    const layer = el("g", {class: "lla-data"}, svg);
    const clipX = (v) => Math.min(frame.right, Math.max(frame.left, v));
    const clipY = (v) => Math.min(frame.bottom, Math.max(frame.top, v));
    const ok = (v, log) => Number.isFinite(v) && (!log || v > 0);

    return {
      svg, x, y, frame, layer,
      line(points, attrs) {
        const d = points.filter(([a, b]) => ok(a, opts.x.log) && ok(b, opts.y.log))
          .map(([a, b], i) => `${i ? "L" : "M"}${x(a).toFixed(1)},${clipY(y(b)).toFixed(1)}`)
          .join("");
        return el("path", {d, fill: "none", stroke: COLORS[0], "stroke-width": 2, ...attrs},
          layer);
      },
      area(points, attrs) {
        // a closed region through the points (a band: one edge, then the other reversed)
        const d = points.filter(([a, b]) => ok(a, opts.x.log) && ok(b, opts.y.log))
          .map(([a, b], i) => `${i ? "L" : "M"}${clipX(x(a)).toFixed(1)},${
            clipY(y(b)).toFixed(1)}`).join("") + "Z";
        return el("path", {d, fill: COLORS[1], stroke: "none", ...attrs}, layer);
      },
      point(a, b, attrs) {
        if (!ok(a, opts.x.log) || !ok(b, opts.y.log)) return null;
        return el("circle", {cx: clipX(x(a)), cy: clipY(y(b)), r: 5, fill: COLORS[3],
          "data-x": a, "data-y": b, ...attrs}, layer);
      },
      vline(a, attrs) {
        if (!ok(a, opts.x.log)) return null;
        const px = x(a);
        if (px < frame.left || px > frame.right) return null;
        return el("line", {x1: px, x2: px, y1: frame.top, y2: frame.bottom, stroke: "#555",
          "stroke-dasharray": "4 3", "data-x": a, ...attrs}, layer);
      },
      hline(b, attrs) {
        if (!ok(b, opts.y.log)) return null;
        const py = y(b);
        if (py < frame.top || py > frame.bottom) return null;
        return el("line", {x1: frame.left, x2: frame.right, y1: py, y2: py, stroke: "#555",
          "stroke-dasharray": "4 3", "data-y": b, ...attrs}, layer);
      },
      shadeX(a0, a1, attrs) {
        const p0 = clipX(x(a0));
        const p1 = clipX(x(a1));
        if (!(p1 > p0)) return null;
        return el("rect", {x: p0, y: frame.top, width: p1 - p0, height: frame.bottom - frame.top,
          class: "lla-shade", ...attrs}, layer);
      },
      text(a, b, str, attrs) {
        const t = el("text", {x: clipX(x(a)), y: clipY(y(b)), class: "lla-note", ...attrs},
          layer);
        t.textContent = str;
        return t;
      },
    };
  }

  // a horizontal stacked bar: parts [[name, value]], with a legend below it
  function stackedBar(container, parts, opts) {
    const width = Math.max(260, Math.round(opts.width));
    const total = parts.reduce((s, [, v]) => s + v, 0);
    const rowH = 18;
    const legendRows = parts.length;
    const height = 34 + 12 + legendRows * rowH + 6;
    const svg = el("svg", {width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-label": opts.label || "stacked bar", class: "lla-plot"}, container);
    el("title", {}, svg).textContent = opts.label || "";
    let x0 = 0;
    const barW = width - 2;
    parts.forEach(([name, v], i) => {
      const w = total > 0 ? (v / total) * barW : 0;
      el("rect", {x: 1 + x0, y: 6, width: Math.max(w, 0), height: 28, fill: COLORS[i % 10],
        "data-part": name, "data-value": v, class: "lla-bar"}, svg);
      x0 += w;
      const ly = 34 + 12 + i * rowH;
      el("rect", {x: 1, y: ly, width: 12, height: 12, fill: COLORS[i % 10]}, svg);
      el("text", {x: 18, y: ly + 10, class: "lla-legend"}, svg).textContent =
        `${name}: ${opts.format(v)} (${total > 0 ? (100 * v / total).toFixed(1) : "0"}%)`;
    });
    return svg;
  }

  return {create, stackedBar, COLORS, el, tickLabel};
})();
