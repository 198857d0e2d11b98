// The widgets: controls (native form elements, so the keyboard works), live numbers and live
// plots. Every number comes from Estimate.estimate, Stack or F; nothing here is a formula.
// A page embeds one with <div data-llm-widget="NAME"></div> and a script tag for widgets.js
// (book/widgets/README.md); data-* attributes on the div override the widget's defaults.
const UI = (function () {
  // ---- choices offered (inputs, not results) -------------------------------------------------
  const CONTEXTS = [1, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072,
    262144, 524288, 1048576];
  const BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
  const GENERATES = [1, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];
  // tensor-parallel degrees offered (those the model's heads allow), export.TP_MENU
  const TPS = CATALOG.tp_menu;
  // draft lengths offered [tokens per step], and the draft's starting length and acceptance
  // (chapter 13's example; choosing the model's MTP module sets its workload's instead)
  const DRAFTS = [1, 2, 3, 4, 5, 6, 8];
  const DRAFT_START = {draft: 4, acceptance: 0.8};
  // the ladders: state key -> values of the slider, label
  const LADDERS = {context: [CONTEXTS, "context [tokens]"], batch: [BATCHES, "batch [sequences]"],
    prompt: [CONTEXTS, "prompt [tokens]"], generate: [GENERATES, "tokens generated [tokens]"]};
  const CHIP_KINDS = [["datacenter-gpu", "datacenter GPUs"], ["consumer-gpu", "consumer GPUs"],
    ["apple-silicon", "Apple silicon"], ["cpu", "CPUs"], ["sbc", "single-board computers"],
    ["system", "systems"]];
  const GB = 1e9;
  const GiB = Math.pow(2, 30);

  // ---- numbers as Python's format() writes them (the explorer's table) -----------------------
  function roundFixed(x, f) {
    // x rounded to f decimals, half to even on the exact binary value, as Python does
    let s = x.toFixed(f);
    const exact = x.toFixed(Math.min(100, f + 60));
    const tail = exact.slice(exact.length - 60);
    if (/^50*$/.test(tail)) {  // an exact tie: toFixed rounded away from zero
      const down = (Math.abs(x) - 5 * Math.pow(10, -f - 1)) * Math.sign(x);
      const sDown = down.toFixed(f);
      const lastUp = Number(s.replace(/\D/g, "").slice(-1));
      if (lastUp % 2 === 1) s = sDown;
    }
    return s;
  }

  function groupThousands(s) {
    const neg = s.startsWith("-");
    const body = neg ? s.slice(1) : s;
    const [int, frac] = body.split(".");
    const g = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return (neg ? "-" : "") + g + (frac !== undefined ? "." + frac : "");
  }

  // spec: ",.2f", ".1f", ",.3g", "g", ",", ",.0f"
  function pyFormat(x, spec) {
    const m = /^(,?)(?:\.(\d+))?([fg]?)$/.exec(spec);
    if (!m) throw new Error(`format ${spec} not supported`);
    const [, comma, precStr, type] = m;
    let s;
    if (type === "f") {
      s = roundFixed(x, Number(precStr));
    } else if (type === "g") {
      const p = precStr === undefined ? 6 : Math.max(1, Number(precStr));
      if (x === 0) return "0";
      if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
      let exp = Number(x.toExponential(p - 1).split("e")[1]);
      if (exp >= -4 && exp < p) {
        s = roundFixed(x, p - 1 - exp);
        // rounding may carry into a new digit (9.995 -> 10.0): Python then drops a decimal
        const digits = s.replace(/[-.]/g, "").replace(/^0+/, "").length;
        if (digits > p && s.includes(".")) s = roundFixed(x, Math.max(0, p - 2 - exp));
        if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
      } else {
        let [mant, e] = x.toExponential(p - 1).split("e");
        if (mant.includes(".")) mant = mant.replace(/0+$/, "").replace(/\.$/, "");
        const en = Number(e);
        s = `${mant}e${en < 0 ? "-" : "+"}${String(Math.abs(en)).padStart(2, "0")}`;
      }
    } else {
      s = Number.isInteger(x) ? String(x) : String(x);
    }
    return comma ? groupThousands(s) : s;
  }

  // ---- numbers for the widgets: three significant digits or more, never less ------------------
  function fmt(v) {
    if (v === null || v === undefined || Number.isNaN(v)) return "–";
    if (v === Infinity) return "∞";
    const a = Math.abs(v);
    if (a >= 100) return groupThousands(String(Math.round(v)));
    if (a === 0) return "0";
    if (a >= 1e-3) return String(Number(v.toPrecision(3)));
    return v.toPrecision(3);
  }

  function fmtExact(v) {
    if (v === null || v === undefined) return "–";
    if (Number.isInteger(v)) return groupThousands(String(v));
    return groupThousands(String(Math.round(v * 100) / 100));
  }

  const fmtGB = (b) => `${fmt(b / GB)} GB`;
  // a setup whose target fits alone but not beside its draft (fits_without_draft)
  const DRAFT_NO_FIT = "no: with the draft; yes without it";
  const plural = (n, word) => `${fmtExact(n)} ${word}${n === 1 ? "" : "s"}`;

  // ---- what a widget can show: key -> label, unit, scale (value / scale is displayed) ---------
  const OUTPUTS = {
    // `needs`: a speed or a cost, which no run reaches when the weights and cache do not fit
    // (the one chip's `fits`, or the replica's `fits_per_chip`): shown as "does not fit"
    decode_tokens_per_second: {label: "tokens/s of one sequence, at most", unit: "tokens/s",
      needs: "fits"},
    throughput_tokens_per_second: {label: "tokens/s of the whole batch, at most",
      unit: "tokens/s", needs: "fits"},
    compute_tokens_per_second: {label: "tokens/s if arithmetic set the pace", unit: "tokens/s",
      get: (e) => (e.decode_compute_seconds ? 1 / e.decode_compute_seconds : null)},
    decode_seconds_per_token: {label: "time per decode step, at least", unit: "ms",
      scale: 1e-3, needs: "fits"},
    decode_memory_seconds: {label: "memory time: bytes / bandwidth", unit: "ms", scale: 1e-3},
    decode_compute_seconds: {label: "compute time: FLOPs / peak", unit: "ms", scale: 1e-3},
    bound: {label: "the step is", text: (e) => (e.bound ? `${e.bound}-bound` : "unbounded")},
    decode_bytes_per_token: {label: "bytes one sequence's step reads", unit: "GB", scale: GB},
    decode_step_bytes: {label: "bytes the step reads", unit: "GB", scale: GB},
    decode_flops_per_token: {label: "FLOPs per token", unit: "GFLOP", scale: 1e9},
    decode_step_flops: {label: "FLOPs per step", unit: "GFLOP", scale: 1e9},
    step_intensity: {label: "arithmetic intensity of the step", unit: "FLOP/B", ops: true,
      step: true},
    ops_per_byte: {label: "the chip's ridge point (ops:byte)", unit: "FLOP/B", ops: true},
    attained_flops: {label: "arithmetic rate at the bound", unit: "TFLOP/s", scale: 1e12,
      ops: true, step: true},
    critical_batch_size: {label: "critical batch size", unit: "sequences",
      none: "never, at this context"},
    // a cache not proportional to the context has no figure per token: describe's sentence,
    // the mean over the context and batch asked (catalog_data's templates)
    kv_cache_bytes_per_token: {label: "KV cache per token, all layers", unit: "B", exact: true,
      missing: (e) => (e.kv_cache_bytes === null || e.kv_cache_bytes === undefined ? null
        : {template: CATALOG.templates.kv_per_token_mean, args: {mean: pyFormat(
          e.kv_cache_bytes / (e.context * e.batch), ",.0f")}})},
    kv_cache_bytes: {label: "KV cache of the batch", unit: "GB", scale: GB},
    kv_cache_bytes_full_storage: {label: "the same if every layer kept every token",
      unit: "GB", scale: GB},
    weight_bytes: {label: "weights", unit: "GB", scale: GB},
    memory_required_bytes: {label: "memory needed: weights and cache", unit: "GB", scale: GB},
    capacity: {label: "the chip's memory", unit: "GB", scale: GB},
    // a setup that fits only without its draft says so (estimate's fits_without_draft)
    fits: {label: "fits in the chip's memory",
      text: (e) => (e.fits === null ? "no chip" : e.fits ? "yes"
        : e.fits_without_draft ? DRAFT_NO_FIT : "no")},
    max_batch: {label: "most sequences that fit at this context", unit: "sequences",
      exact: true},
    max_context: {label: "longest context that fits at this batch", unit: "tokens", exact: true,
      none: "unbounded"},
    params_total: {label: "parameters", unit: "billion", scale: 1e9},
    params_active: {label: "parameters used per token", unit: "billion", scale: 1e9},
    // in DeepSeek-V4's compressed attention a row is a window token or a compressed entry:
    // describe's label and its split of the mean (cli.tables._attended_row, catalog_data's templates)
    attended_context: {label: "cached positions a step reads per layer", unit: "tokens",
      described: (e, m) => {
        if (!m || !Stack.hasCompressedAttention(m)) return null;
        const window = Stack.windowRows(m, e.context);
        return {label: CATALOG.templates.attended_rows_label,
          template: CATALOG.templates.attended_rows_split,
          args: {rows: pyFormat(e.attended_context, ",.0f"), window: pyFormat(window, ",.0f"),
            entries: pyFormat(e.attended_context - window, ",.0f")}};
      }},
    experts_read: {label: "experts read per MoE block", unit: ""},
    bandwidth: {label: "memory bandwidth", unit: "GB/s", scale: GB},
    peak_flops: {label: "dense peak", unit: "TFLOP/s", scale: 1e12, ops: true},
    // serving: a replica of tp x pp chips (estimate()'s serving keys)
    ttft_seconds: {label: "time to first token, at least", unit: "ms", scale: 1e-3,
      none: "no prompt", needs: "fits_per_chip"},
    tpot_seconds: {label: "time per output token, at least", unit: "ms", scale: 1e-3,
      needs: "fits_per_chip"},
    request_seconds: {label: "time for the whole request, at least", unit: "s",
      none: "no prompt", needs: "fits_per_chip"},
    tokens_per_second_per_user: {label: "tokens/s per user, at most", unit: "tokens/s",
      needs: "fits_per_chip"},
    tokens_per_second_per_chip: {label: "tokens/s per chip, at most", unit: "tokens/s",
      needs: "fits_per_chip"},
    cost_per_million_tokens: {label: "cost of a million tokens, at least", unit: "USD",
      none: "give a price per chip-hour", needs: "fits_per_chip"},
    energy_joules_per_token: {label: "board energy per token, at least", unit: "J",
      none: "no power figure", needs: "fits_per_chip"},
    allreduce_seconds_per_token: {label: "all-reduces inside one output token", unit: "ms",
      scale: 1e-3, none: "no link bandwidth known"},
    alltoall_seconds_per_token: {label: "all-to-alls inside one output token", unit: "ms",
      scale: 1e-3, none: "no link bandwidth known"},
    serving_context: {label: "context of the request's average decode step", unit: "tokens"},
    n_chips: {label: "chips in the replica", unit: "chips", exact: true},
    link_bandwidth: {label: "link bandwidth per direction", unit: "GB/s", scale: GB,
      none: "none needed or none known"},
    memory_per_chip_bytes: {label: "memory per chip at the end of the requests", unit: "GB",
      scale: GB},
    fits_per_chip: {label: "fits in the chips' memory",
      text: (e) => (e.fits_per_chip === null ? "no chip" : e.fits_per_chip ? "yes"
        : e.fits_per_chip_without_draft ? DRAFT_NO_FIT : "no")},
    max_batch_per_replica: {label: "most requests the replica holds", unit: "sequences",
      exact: true},
    weight_bytes_per_chip: {label: "weights each chip holds (its share, and the copies every "
      + "chip keeps whole)", unit: "GB", scale: GB},
    // speculative decoding (chapter 13): the bounds of a speculative step over its tokens
    speculative_tokens_per_second: {label: "tokens/s of one sequence with speculation, at most",
      unit: "tokens/s", none: "no speculation", needs: "fits"},
    speculative_tpot_seconds: {label: "time per output token with speculation, at least",
      unit: "ms", scale: 1e-3, none: "no speculation", needs: "fits_per_chip"},
    // the draft as estimate.speculative_inputs charges it: a step's time, what it holds
    // (rows shown only with a draft)
    draft_cost: {label: "time of a draft step", unit: "% of a target step", scale: 0.01,
      none: "no speculation", drafted: true},
    draft_memory_bytes: {label: "draft held in memory (weights and cache)", unit: "GB",
      scale: GB, drafted: true},
    // the forecast under the bounds, with its 80% interval (llm_arithmetic.forecast)
    expected_decode_tokens_per_second: {label: "expected tokens/s of one sequence (80% range)",
      unit: "tokens/s", range: true, needs: "fits"},
    expected_ttft_seconds: {label: "expected time to first token (80% range)", unit: "ms",
      scale: 1e-3, range: true, none: "no prompt", needs: "fits_per_chip"},
    expected_tpot_seconds: {label: "expected time per output token (80% range)", unit: "ms",
      scale: 1e-3, range: true, needs: "fits_per_chip"},
    expected_tokens_per_second_per_chip: {label: "expected tokens/s per chip (80% range)",
      unit: "tokens/s", range: true, needs: "fits_per_chip"},
    // images in the prompt (estimate's image keys; rows shown only with images)
    image_tokens_per_image: {label: "tokens per image", unit: "tokens", exact: true,
      imaged: true},
    image_tokens: {label: "image tokens in the prompt", unit: "tokens", exact: true,
      imaged: true},
    vision_prefill_seconds: {label: "vision tower time (in the time to first token)", unit: "ms",
      scale: 1e-3, media: (e) => e.images != null || e.video_seconds != null},
    // a video and audio in the prompt (estimate's video and audio keys; rows shown only with
    // them)
    video_tokens: {label: "video tokens in the prompt", unit: "tokens", exact: true,
      media: (e) => e.video_seconds != null},
    audio_tokens: {label: "audio tokens in the prompt", unit: "tokens", exact: true,
      media: (e) => e.audio_seconds != null},
    audio_prefill_seconds: {label: "audio encoder time (in the time to first token)", unit: "ms",
      scale: 1e-3, media: (e) => e.audio_seconds != null},
  };

  function outputValue(key, e) {
    const o = OUTPUTS[key];
    return o.get ? o.get(e) : e[key];
  }

  // a catalog chip's integer rate (int8) counts integer operations, not FLOPs (as the CLI):
  // `unit` (FLOP/s, FLOP/B, ...) as the estimate's peak counts them
  function opUnit(e, unit, precision = e.compute_precision) {
    return e.hardware && String(precision).startsWith("int")
      ? unit.replace("FLOP", "OP") : unit;
  }

  // a step's effective rate and intensity mix the weights' products (at their precision) and
  // attention's (at the cache's): where one counts integer operations and the other FLOPs
  // (int8 weights, a 16-bit cache), both, "(OP+FLOP)" (as core/units.py's mixed_rate_unit)
  function stepUnit(e, unit) {
    const w = opUnit(e, unit);
    return w === opUnit(e, unit, e.attention_precision) ? w
      : unit.replace("FLOP", "(OP+FLOP)");
  }

  function setOutput(node, key, e, m) {
    const o = OUTPUTS[key];
    // an output whose label depends on the model (described): the label of its row
    const dt = o.described ? node.parentElement.previousElementSibling : null;
    if (dt) dt.textContent = o.label;
    // a draft's row without a draft: hidden (its value, Python's, stays in data-value)
    const row = node.closest(".lla-number");
    if (row && o.drafted) row.hidden = !e || e.draft_len === null || e.draft_len === undefined;
    // an image's row without images: hidden too
    if (row && o.imaged) row.hidden = !e || e.images === null || e.images === undefined;
    // a row of the video's, the audio's or the vision tower's without them: hidden too
    if (row && o.media) row.hidden = !e || !o.media(e);
    if (!e) {
      node.textContent = "–";
      node.dataset.value = "";
      delete node.dataset.low;
      delete node.dataset.high;
      return;
    }
    if (o.text) {
      const t = o.text(e);
      node.textContent = t;
      node.dataset.value = t;
      return;
    }
    const v = outputValue(key, e);
    node.dataset.scale = String(o.exact ? 1 : o.scale || 1);
    node.dataset.value = v === null || v === undefined ? "" : String(v);
    const unit = node.nextElementSibling;
    delete node.dataset.template;
    delete node.dataset.args;
    // the 80% interval beside the forecast: data-low and data-high keep the numbers (also where
    // the reader sees no reachable speed, as data-value does), none left from an earlier state
    const range = o.range && v !== null && v !== undefined ? e[`${key}_range`] : null;
    delete node.dataset.low;
    delete node.dataset.high;
    if (range) [node.dataset.low, node.dataset.high] = range.map(String);
    if (v === null || v === undefined) {
      const said = o.missing ? o.missing(e) : null;
      node.textContent = said ? Estimate.fillTemplate(said.template, said.args) : o.none || "–";
      if (said) {  // a translated edition fills its own template (tools/sphinx_widgets.py)
        node.dataset.template = said.template;
        node.dataset.args = JSON.stringify(said.args);
      }
      if (unit) unit.hidden = true;
      return;
    }
    const described = o.described ? o.described(e, m) : null;
    if (described) {  // its label and sentence; data-value keeps the number
      dt.textContent = described.label;
      node.textContent = Estimate.fillTemplate(described.template, described.args);
      node.dataset.template = described.template;
      node.dataset.args = JSON.stringify(described.args);
      if (unit) unit.hidden = true;
      return;
    }
    if (o.needs && e[o.needs] === false) {
      // data-value keeps the bound (the tests compare it); the reader sees no reachable speed,
      // and, where the target alone fits, that the draft is what does not (describe's words)
      node.textContent = e[`${o.needs}_without_draft`]
        ? "does not fit in memory with the draft; fits without it" : "does not fit in memory";
      node.dataset.doesNotFit = "1";
      if (unit) unit.hidden = true;
      return;
    }
    delete node.dataset.doesNotFit;
    if (unit) {
      unit.hidden = false;
      if (o.ops) unit.textContent = ` ${o.step ? stepUnit(e, o.unit) : opUnit(e, o.unit)}`;
    }
    node.textContent = o.exact ? fmtExact(v) : fmt(v / (o.scale || 1));
    if (range) {
      node.textContent += ` (${fmt(range[0] / (o.scale || 1))} to ${
        fmt(range[1] / (o.scale || 1))})`;
    }
  }

  // ---- the state: what the controls say, and the model and chip it resolves to --------------
  let uid = 0;

  function firstParts(m) {
    // the classic arguments of a model's first attention and MLP runs (custom fields' start)
    const a = (m.layers.find((r) => r.attention) || {}).attention || {};
    const mlp = (m.layers.find((r) => r.mlp) || {}).mlp || {};
    return {n_layers: Stack.nLayers(m), d_model: m.d_model, n_vocab: m.n_vocab,
      n_heads: a.n_heads || 32, n_kv_heads: Stack.isMLA(a) ? a.n_heads : (a.n_kv_heads || 8),
      d_head: a.d_head || 128, d_ff: mlp.d_ff || m.d_model,
      n_experts: mlp.n_experts || 1, n_active_experts: mlp.top_k || 1};
  }

  function chipPeak(chip, precision) {
    const p = chip.peaks[precision] || chip.peaks.fp16 || chip.peaks.fp32;
    return p ? p.rate : 1e12;
  }

  function resolve(state) {
    const problems = [];
    let model;
    if (state.model === "custom") {
      const c = state.customModel;
      model = Stack.transformer({...c, name: "custom", label: "custom model"});
      problems.push(...Stack.validate(model));
    } else {
      model = CATALOG.models[state.model];
      if (!model) problems.push(`unknown model ${state.model}`);
    }
    if (model && !problems.length && state.group) {
      const heads = Stack.uniformHeads(model);
      if (heads && heads.n_heads % state.group === 0) {
        model = Stack.withKvHeads(model, heads.n_heads / state.group);
      }
    }
    let chip = null;
    const custom = {};
    if (state.chip === "custom") {
      const c = state.customChip;
      for (const [k, label] of [["bandwidth_gbps", "bandwidth"], ["peak_tflops", "peak"],
        ["capacity_gb", "capacity"]]) {
        if (!(c[k] > 0) || !Number.isFinite(c[k])) problems.push(`${label} must be positive`);
      }
      custom.bandwidth = c.bandwidth_gbps * 1e9;
      custom.peak_flops = c.peak_tflops * 1e12;
      custom.capacity = Math.round(c.capacity_gb * 1e9);
    } else if (state.chip) {
      chip = CATALOG.hardware[state.chip];
      if (!chip) problems.push(`unknown chip ${state.chip}`);
    }
    for (const k of ["context", "batch", "prompt", "generate"]) {
      const v = state[k];
      if (k !== "context" && k !== "batch" && (v === null || v === undefined)) continue;
      const least = k === "generate" ? 0 : 1;
      if (!Number.isInteger(v) || v < least) {
        problems.push(`${k} must be a ${least ? "positive" : "non-negative"} integer`);
      } else if (v > CATALOG.limits[k]) problems.push(`${k} is beyond ${CATALOG.limits[k]}`);
    }
    return {model, chip, custom, problems};
  }

  function compute(state) {
    const r = resolve(state);
    if (r.problems.length) return {...r, est: null};
    const opts = {weights: state.weights || null, bits_kv: state.kv, context: state.context,
      batch: state.batch, tp: state.tp || 1, prompt: state.prompt ?? null,
      generate: state.generate ?? null, price_per_hour: state.price ?? null,
      runtime: state.runtime ?? null, ...speculationOptions(state), ...imageOptions(state, r),
      ...mediaOptions(state, r), ...r.custom, build_age: buildAge(state)};
    try {
      return {...r, est: Estimate.estimate(r.model, r.chip, opts), opts};
    } catch (err) {
      return {...r, est: null, problems: [String(err.message || err)]};
    }
  }

  // the age [year] of the llama.cpp build chosen (forecast.build_age_years, exported with the
  // builds the page offers); null: today's build, no drift
  function buildAge(state) {
    const b = state.build ? CATALOG.forecast.builds.find((x) => x.build === state.build) : null;
    return b ? b.age_years : null;
  }

  // a build as the select names it: its number and its month
  const buildLabel = (b) => `b${b.build}, ${b.date.slice(0, 7)}`;

  // estimate()'s images and image_size for the state's choice: none where the state has no
  // images or the model takes none (the controls are hidden for it)
  function imageOptions(state, r) {
    if (!state.images || !r.model || !r.model.images) return {};
    return {images: state.images,
      image_size: state.image_size ? state.image_size.split("x").map(Number) : null};
  }

  // estimate()'s video_seconds and audio_seconds for the state's choice (a clip of the
  // menus; the video at the menu's frame rate and size, estimate's defaults): none where the
  // state has none or the model takes none (the controls are hidden for it)
  function mediaOptions(state, r) {
    const o = {};
    if (state.video && r.model && r.model.video) o.video_seconds = state.video;
    if (state.audio && r.model && r.model.audio) o.audio_seconds = state.audio;
    return o;
  }

  // estimate()'s speculative keywords for the state's choice: the model's MTP module (the named
  // workload, its draft length and acceptance as the reader left them), a draft of the cost
  // given, or a draft model of the catalog; none: no speculation
  function speculationOptions(state) {
    const kind = state.speculation;
    if (!kind) return {};
    return {speculation: kind === "mtp" ? "mtp" : null, draft_len: state.draft,
      acceptance: state.acceptance, draft_cost: kind === "cost" ? state.draft_cost : null,
      draft: kind === "draft" ? state.draft_model : null};
  }

  // ---- controls ----------------------------------------------------------------------------
  function h(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = v;
      else if (k === "html") node.innerHTML = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children || []) if (c) node.appendChild(c);
    return node;
  }

  function field(label, control, extra) {
    const id = `lla-${++uid}`;
    control.id = id;
    return h("div", {class: `lla-field ${extra || ""}`}, [h("label", {for: id, text: label}),
      control]);
  }

  // a catalog model's total parameters, counted once (the drafts a target is offered: the
  // smaller models)
  const catalogTotals = new Map();
  function catalogParams(m) {
    if (!catalogTotals.has(m.name)) catalogTotals.set(m.name, Stack.totalParams(m));
    return catalogTotals.get(m.name);
  }

  function modelSelect(state) {
    const sel = h("select", {"data-control": "model"});
    const groups = {};
    for (const m of Object.values(CATALOG.models)) {
      const g = m.group || "catalog";
      groups[g] = groups[g] || h("optgroup", {label: g === "first edition"
        ? "the source articles' models" : "current models"});
      groups[g].appendChild(h("option", {value: m.name, text: m.label}));
    }
    for (const g of Object.values(groups)) sel.appendChild(g);
    sel.appendChild(h("option", {value: "custom", text: "custom numbers…"}));
    sel.value = state.model;
    return sel;
  }

  function chipSelect(state) {
    const sel = h("select", {"data-control": "chip"});
    for (const [kind, label] of CHIP_KINDS) {
      const chips = Object.values(CATALOG.hardware).filter((c) => c.kind === kind);
      if (!chips.length) continue;
      const g = h("optgroup", {label});
      for (const c of chips) g.appendChild(h("option", {value: c.name, text: c.label}));
      sel.appendChild(g);
    }
    sel.appendChild(h("option", {value: "custom", text: "custom numbers…"}));
    sel.value = state.chip;
    return sel;
  }

  function formatSelect(name, state, native) {
    const sel = h("select", {"data-control": name});
    if (native) sel.appendChild(h("option", {value: "", text: "as the checkpoint ships"}));
    for (const f of Object.values(CATALOG.formats)) {
      sel.appendChild(h("option", {value: f.name, text: `${f.name} (${f.bits} bits)`}));
    }
    sel.value = state[name] || "";
    return sel;
  }

  function numberInput(attrs) {
    return h("input", {type: "number", inputmode: "numeric", ...attrs});
  }

  const CUSTOM_MODEL_FIELDS = [["n_layers", "layers"], ["d_model", "d_model"],
    ["n_heads", "query heads"], ["n_kv_heads", "KV heads"], ["d_head", "head width"],
    ["d_ff", "MLP width"], ["n_vocab", "vocabulary"], ["n_experts", "experts"],
    ["n_active_experts", "experts per token"]];
  const CUSTOM_CHIP_FIELDS = [["bandwidth_gbps", "bandwidth [GB/s]"],
    ["peak_tflops", "dense peak [TFLOP/s]"], ["capacity_gb", "memory [GB]"]];

  function ladder(name, label, values, state) {
    // a slider over a ladder of values, and a number box for any value
    const slider = h("input", {type: "range", min: 0, max: values.length - 1, step: 1,
      "data-control": `${name}-slider`, "aria-label": `${label} (steps)`});
    const box = numberInput({min: 1, step: 1, "data-control": name});
    const wrap = h("div", {class: "lla-field lla-ladder"});
    const id = `lla-${++uid}`;
    box.id = id;
    wrap.append(h("label", {for: id, text: label}), h("div", {class: "lla-ladder-row"},
      [slider, box]));
    const nearest = (v) => values.reduce((best, x, i) =>
      (Math.abs(Math.log(x) - Math.log(v)) < Math.abs(Math.log(values[best]) - Math.log(v))
        ? i : best), 0);
    const sync = () => {
      box.value = state[name];
      slider.value = nearest(Math.max(1, state[name] || 1));
      slider.setAttribute("aria-valuetext", `${fmtExact(state[name])}`);
    };
    return {wrap, slider, box, sync};
  }

  // ---- views -----------------------------------------------------------------------------------
  function widthOf(node) {
    return Math.max(260, Math.min(760, node.clientWidth || 600));
  }

  function caption(box, text) {
    box.appendChild(h("p", {class: "lla-caption", text}));
  }

  const VIEWS = {};

  VIEWS.bytes = function (box, r, state) {
    const e = r.est;
    const bitsW = state.weights ? Estimate.formatBits(state.weights) : null;
    const parts = Stack.decodeBytesBreakdown(r.model, state.context, bitsW,
      Estimate.formatBits(state.kv));
    caption(box, `Where the bytes of one sequence's decode step go: ${fmtGB(
      e.decode_bytes_per_token)} at ${plural(state.context, "token")} of context`);
    Plot.stackedBar(box, parts, {width: widthOf(box), format: fmtGB,
      label: "bytes one decode step of one sequence reads, by kind"});
  };

  VIEWS.roofline = function (box, r, state) {
    const e = r.est;
    if (!e.peak_flops || !e.bandwidth) {
      caption(box, "No roofline without a bandwidth and a peak rate.");
      return;
    }
    const bw = e.bandwidth;
    const peak = e.peak_flops;
    // the attainable rate at intensity I: a step of I FLOPs per byte, through the roofline
    const attainable = (I) => I / F.roofline_time({step_bytes: 1, step_flops: I, bandwidth: bw,
      peak_flops: peak});
    const ridge = e.ops_per_byte;
    const trail = Estimate.steps(r.model, r.chip, {...r.opts, batches: BATCHES});
    const intensities = trail.map((s) => s.step_flops / s.step_bytes).concat([e.step_intensity]);
    const lo = Math.min(0.1, ...intensities.map((i) => i / 3));
    const hi = Math.max(2000, ridge * 10, ...intensities.map((i) => i * 3));
    const yLo = attainable(lo) / 2;
    caption(box, `The roofline of the ${r.chip ? r.chip.label : "custom chip"}, dense ${
      e.compute_precision} peak`);
    // the roof is the weights' peak (op); the steps mix it with attention's rate (sop)
    const op = opUnit(e, "FLOP");
    const sop = stepUnit(e, "FLOP");
    const p = Plot.create(box, {width: widthOf(box),
      label: `Roofline: attainable ${sop}/s against arithmetic intensity; the step at ${fmt(
        e.step_intensity)} ${sop}/B, ${e.bound}-bound`,
      x: {domain: [lo, hi], log: true, label: `arithmetic intensity [${sop}/B]`},
      y: {domain: [yLo, peak * 2], log: true, label: `${sop}/s`}});
    p.line([[lo, attainable(lo)], [ridge, attainable(ridge)], [hi, attainable(hi)]],
      {stroke: Plot.COLORS[0], "data-series": "roof"});
    p.point(ridge, peak, {r: 3, fill: Plot.COLORS[0], "data-series": "ridge"});
    trail.forEach((s) => p.point(s.step_flops / s.step_bytes, s.step_flops / s.seconds,
      {r: 2.5, fill: "#999", "data-batch": s.batch, "data-series": "batches"}));
    p.point(e.step_intensity, e.attained_flops, {r: 6, "data-series": "step"});
    p.text(e.step_intensity, e.attained_flops, ` batch ${fmtExact(state.batch)}`,
      {dy: -9, "text-anchor": e.step_intensity > Math.sqrt(lo * hi) * 10 ? "end" : "start"});
    caption(box, `The red dot is the decode step (grey: the same context at batch ${
      BATCHES[0]} to ${fmtExact(BATCHES[BATCHES.length - 1])}); left of the ridge at ${
      fmt(ridge)} ${op}/B a step is memory-bound.`);
  };

  VIEWS.batching = function (box, r, state) {
    const e = r.est;
    if (!e.bandwidth) {
      caption(box, "No times without a bandwidth.");
      return;
    }
    const bmax = Math.max(4096, state.batch * 2);
    const grid = [];
    for (let i = 0; i <= 48; i++) grid.push(Math.round(Math.pow(bmax, i / 48)));
    const batches = [...new Set(grid.concat([state.batch]))].sort((a, b) => a - b);
    const steps = Estimate.steps(r.model, r.chip, {...r.opts, batches});
    const ms = steps.map((s) => [s.batch, s.seconds * 1e3]);
    const mem = steps.map((s) => [s.batch, s.memory_seconds * 1e3]);
    const thr = steps.map((s) => [s.batch, s.batch / s.seconds]);
    const here = steps.find((s) => s.batch === state.batch);
    const w = widthOf(box);
    const span = (pts) => [Math.min(...pts.map((q) => q[1])), Math.max(...pts.map((q) => q[1]))];
    const [t0, t1] = span(ms.concat(mem));
    caption(box, "Time per decode step (dotted: the memory time alone)");
    const p1 = Plot.create(box, {width: w, height: Math.max(200, Math.min(280, w * 0.45)),
      label: `Time per decode step against batch; at batch ${state.batch}: ${fmt(
        e.decode_seconds_per_token * 1e3)} ms`,
      x: {domain: [1, bmax], log: true, label: "batch [sequences]"},
      y: {domain: [t0 / 1.3, t1 * 1.3], log: true, label: "ms"}});
    caption(box, "Tokens per second of the whole batch");
    const p2 = Plot.create(box, {width: w, height: Math.max(200, Math.min(280, w * 0.45)),
      label: `Throughput against batch; at batch ${state.batch}: ${fmt(
        e.throughput_tokens_per_second)} tokens/s`,
      x: {domain: [1, bmax], log: true, label: "batch [sequences]"},
      y: {domain: [span(thr)[0] / 1.3, span(thr)[1] * 1.3], log: true, label: "tokens/s"}});
    for (const p of [p1, p2]) {
      if (e.max_batch !== null && e.max_batch < bmax) {
        p.shadeX(Math.max(1, e.max_batch + 0.5), bmax, {"data-series": "does-not-fit"});
      }
      if (e.critical_batch_size !== null) {
        p.vline(e.critical_batch_size, {"data-series": "critical-batch"});
      }
    }
    p1.line(ms, {"data-series": "step-time", "data-points": JSON.stringify(ms)});
    p1.line(mem, {"stroke-dasharray": "2 3", "stroke-width": 1.5, "data-series": "memory-time"});
    p1.point(state.batch, here.seconds * 1e3, {"data-series": "step"});
    p2.line(thr, {stroke: Plot.COLORS[2], "data-series": "throughput",
      "data-points": JSON.stringify(thr)});
    p2.point(state.batch, state.batch / here.seconds, {"data-series": "step"});
    const notes = [];
    if (e.critical_batch_size !== null) notes.push(`dashed: the critical batch, ${fmt(
      e.critical_batch_size)}`);
    if (e.max_batch !== null && e.max_batch < bmax) notes.push(`grey: more sequences than fit (${
      fmtExact(e.max_batch)} at most)`);
    if (notes.length) caption(box, notes.join("; ") + ".");
  };

  VIEWS.kv = function (box, r, state) {
    const e = r.est;
    const bits = Estimate.formatBits(state.kv);
    const m = r.model;
    const xmax = Math.max(state.context * 1.5, m.trained_context || 8192);
    const xs = [];
    for (let i = 0; i <= 80; i++) xs.push(Math.round(xmax * i / 80));
    const stored = xs.map((s) => [s, Stack.kvCacheBytes(m, s, state.batch, bits) / GB]);
    const full = xs.map((s) => [s, Stack.kvCacheBytesFullStorage(m, s, state.batch, bits) / GB]);
    const windowed = full[full.length - 1][1] > stored[stored.length - 1][1] * (1 + 1e-12);
    const free = e.capacity !== null ? (e.capacity - e.weight_bytes) / GB : null;
    let ymax = Math.max(stored[stored.length - 1][1], e.kv_cache_bytes / GB);
    if (windowed) ymax = Math.max(ymax, full[full.length - 1][1]);
    const showFree = free !== null && free > 0 && free < ymax * 4;
    if (showFree) ymax = Math.max(ymax, free);
    caption(box, `KV cache of ${plural(state.batch, "sequence")} against context, ${
      state.kv}`);
    const p = Plot.create(box, {width: widthOf(box),
      label: `KV cache against context; at ${state.context} tokens: ${fmtGB(e.kv_cache_bytes)}`,
      x: {domain: [0, xmax], log: false, label: "context [tokens]"},
      y: {domain: [0, ymax * 1.1 || 1], log: false, label: "GB"}});
    if (showFree) {
      p.hline(free, {"data-series": "free-memory"});
      p.text(0, free, " memory left beside the weights", {dy: -5});
    }
    if (windowed) p.line(full, {"stroke-dasharray": "5 4", "stroke-width": 1.5,
      stroke: "#888", "data-series": "full-storage"});
    p.line(stored, {"data-series": "kv-cache"});
    p.point(state.context, e.kv_cache_bytes / GB, {"data-series": "step"});
    caption(box, windowed ? "Dashed: the cache if every layer kept every token (windowed " +
      "and chunked layers keep fewer)." : "The cache grows linearly with the context and " +
      "the batch.");
  };

  // the latency-throughput frontier (sweeps.frontier): tokens/s per chip against tokens/s per
  // user, one point per batch, powers of two up to the first batch that does not fit
  VIEWS.frontier = function (box, r, state) {
    const e = r.est;
    if (e.tpot_seconds === null) {
      caption(box, "No frontier without a bandwidth.");
      return;
    }
    const pts = Estimate.frontier(r.model, r.chip, r.opts);
    const xy = pts.map((q) => [q.tokens_per_second_per_user, q.tokens_per_second_per_chip]);
    // the forecast (with speculation, of the speculative step) as a band: its 80% interval at
    // each batch that fits, tokens/s per user from 1 / TPOT; under it, the speculative bound
    const fitting = pts.filter((q) => q.fits !== false);
    const band = fitting.filter((q) => q.expected_tpot_seconds_range);
    const upper = band.map((q) => [1 / q.expected_tpot_seconds_range[0],
      q.expected_tokens_per_second_per_chip_range[1]]);
    const lower = band.map((q) => [1 / q.expected_tpot_seconds_range[1],
      q.expected_tokens_per_second_per_chip_range[0]]);
    const spec = fitting.filter((q) => q.speculative_tpot_seconds)
      .map((q) => [1 / q.speculative_tpot_seconds, q.speculative_tokens_per_second_per_chip]);
    const all = xy.concat([[e.tokens_per_second_per_user, e.tokens_per_second_per_chip]],
      upper, lower, spec);
    const xs = all.map((q) => q[0]);
    const ys = all.map((q) => q[1]);
    const w = widthOf(box);
    caption(box, `The latency-throughput frontier on ${plural(e.n_chips, "chip")}${
      r.chip ? ` (${r.chip.label})` : ""}: each point a batch size`);
    const p = Plot.create(box, {width: w,
      label: `Tokens per second per chip against tokens per second per user, batch 1 to ${
        fmtExact(pts[pts.length - 1].batch)}; at batch ${fmtExact(state.batch)}: ${fmt(
        e.tokens_per_second_per_user)} per user, ${fmt(e.tokens_per_second_per_chip)} per chip`,
      x: {domain: [Math.min(...xs) / 1.5, Math.max(...xs) * 1.5], log: true,
        label: "tokens/s per user"},
      y: {domain: [Math.min(...ys) / 1.5, Math.max(...ys) * 1.5], log: true,
        label: "tokens/s per chip"}});
    if (band.length) {
      p.area(upper.concat([...lower].reverse()), {fill: Plot.COLORS[1], "fill-opacity": 0.25,
        stroke: "none", "data-series": "forecast-band",
        "data-points": JSON.stringify(band.map((q) => [q.batch,
          q.expected_tpot_seconds_range, q.expected_tokens_per_second_per_chip_range]))});
    }
    if (spec.length) {
      p.line(spec, {stroke: Plot.COLORS[0], "stroke-dasharray": "5 4", "stroke-width": 1.5,
        "data-series": "speculative-bound"});
    }
    p.line(fitting.map((q) => [q.tokens_per_second_per_user, q.tokens_per_second_per_chip]),
      {stroke: Plot.COLORS[0], "data-series": "frontier", "data-points": JSON.stringify(
        pts.map((q) => [q.batch, q.tokens_per_second_per_user, q.tokens_per_second_per_chip,
          q.fits]))});
    for (const q of pts) {
      const fits = q.fits !== false;
      p.point(q.tokens_per_second_per_user, q.tokens_per_second_per_chip, {r: 3.5,
        fill: fits ? Plot.COLORS[0] : "white", stroke: Plot.COLORS[0], "stroke-width": 1.5,
        "data-batch": q.batch, "data-series": fits ? "batches" : "does-not-fit"});
      if ([1, 16, 256].includes(q.batch)) {
        p.text(q.tokens_per_second_per_user, q.tokens_per_second_per_chip,
          ` B=${q.batch}`, {dy: -7});
      }
    }
    // the selected batch: a red dot, hollow like the others when it does not fit
    const held = e.fits_per_chip !== false;
    p.point(e.tokens_per_second_per_user, e.tokens_per_second_per_chip,
      held ? {"data-series": "step"} : {"data-series": "step", fill: "white",
        stroke: Plot.COLORS[3], "stroke-width": 2, "data-fits": "no"});
    const notes = [];
    if (band.length) {
      const build = state.build ? CATALOG.forecast.builds.find((b) => b.build === state.build)
        : null;
      notes.push(`Shaded: the forecast's 80% range (${state.runtime || "any runtime"}${
        build ? `, ${buildLabel(build)}` : ""}), under ` +
        `the bound${spec.length ? " (dashed: the bound with speculation)" : ""}.`);
    }
    notes.push(held ? `The red dot is batch ${fmtExact(state.batch)}; up and left, the ` +
      "batch grows." : `The red ring is batch ${fmtExact(state.batch)}, which does not fit ` +
      `(at most ${fmtExact(e.max_batch_per_replica)} requests): no run reaches it.`);
    if (pts.some((q) => q.fits === false)) {
      notes.push(`Hollow: more sequences than ${plural(e.n_chips, "chip")} hold.`);
    }
    caption(box, notes.join(" "));
  };

  // the explorer's table: the rows of the notebook's summary(), formatted as Python does
  VIEWS.summary = function (box, r, state) {
    const e = r.est;
    const m = r.model;
    const chip = r.chip;
    const ms = (s) => `${pyFormat(s * 1e3, ",.3g")} ms`;
    // value / data-scale is the number shown (a test reads both)
    const scales = {params_total: 1e9, params_active: 1e9, decode_step_bytes: GB,
      decode_step_flops: 1e9, decode_memory_seconds: 1e-3, decode_compute_seconds: 1e-3,
      decode_seconds_per_token: 1e-3, memory_required_bytes: GiB};
    const out = (key, v, text) => `<output data-key="${key}" data-value="${v === null ? "" : v
    }" data-scale="${scales[key] || 1}">${text}</output>`;
    const unit = chip && chip.peaks[e.compute_precision] ? chip.peaks[e.compute_precision].unit
      : "FLOP/s";
    const chipText = chip
      ? `${chip.label}: ${pyFormat(chip.bandwidth / 1e9, ",.0f")} GB/s, ${pyFormat(
        chip.capacity / GiB, ",.0f")} GiB, dense ${e.compute_precision} peak ${pyFormat(
        e.peak_flops / 1e12, ",.1f")} T${unit}`
      : `custom: ${pyFormat(e.bandwidth / 1e9, ",.0f")} GB/s, ${pyFormat(e.capacity / GiB,
        ",.0f")} GiB, dense peak ${pyFormat(e.peak_flops / 1e12, ",.1f")} TFLOP/s`;
    const att = e.attended_context !== e.context
      ? ` (attended ${pyFormat(e.attended_context, ",.0f")} per layer)` : "";
    const rows = [
      ["model", `<code>${m.name}</code>: ${out("params_total", e.params_total,
        pyFormat(e.params_total / 1e9, ",.2f"))} billion parameters, ${out("params_active",
        e.params_active, pyFormat(e.params_active / 1e9, ",.2f"))} billion active`],
      ["chip", chipText],
      ["formats", `weights ${state.weights || "as shipped"} (${pyFormat(e.bits_weight, "g")}
 bits), KV cache ${state.kv} (${pyFormat(e.bits_kv, "g")} bits)`.replace(/\n/g, "")],
      ["step", `batch ${pyFormat(e.batch, ",")}, context ${pyFormat(e.context, ",")} tokens${
        att}`],
      ["bytes read per step", `${out("decode_step_bytes", e.decode_step_bytes,
        pyFormat(e.decode_step_bytes / GB, ",.3f"))} GB`],
      ["FLOPs per step", `${out("decode_step_flops", e.decode_step_flops,
        pyFormat(e.decode_step_flops / 1e9, ",.1f"))} GFLOP`],
      ["memory time / compute time", `${out("decode_memory_seconds", e.decode_memory_seconds,
        ms(e.decode_memory_seconds))} / ${out("decode_compute_seconds",
        e.decode_compute_seconds, ms(e.decode_compute_seconds))}`],
      // a setup that does not fit has no speed a run could reach (describe's words; the
      // output keeps the bound in data-value)
      ["<strong>bound per step</strong>", `<strong>${out("decode_seconds_per_token",
        e.decode_seconds_per_token, ms(e.decode_seconds_per_token))}, ${e.bound}-bound</strong>${
        e.fits === false ? "; does not fit in memory" : ""}`],
      ["tokens/s", e.fits === false
        ? out("decode_tokens_per_second", e.decode_tokens_per_second,
          "- (does not fit in memory)").replace("<output ", '<output data-does-not-fit="1" ')
        : `${out("decode_tokens_per_second", e.decode_tokens_per_second,
          pyFormat(e.decode_tokens_per_second, ",.1f"))} per sequence, ${out(
          "throughput_tokens_per_second", e.throughput_tokens_per_second,
          pyFormat(e.throughput_tokens_per_second, ",.0f"))} in all`],
      ["arithmetic intensity", `${out("step_intensity", e.step_intensity,
        pyFormat(e.step_intensity, ",.1f"))} ${stepUnit(e, "FLOP/B")}; the chip's ridge is at ${out(
        "ops_per_byte", e.ops_per_byte, pyFormat(e.ops_per_byte, ",.0f"))}`],
      ["critical batch size", e.critical_batch_size === null
        ? out("critical_batch_size", "", "none: never compute-bound at this context")
        : out("critical_batch_size", e.critical_batch_size,
          pyFormat(e.critical_batch_size, ",.0f"))],
      ["memory", `${out("memory_required_bytes", e.memory_required_bytes,
        pyFormat(e.memory_required_bytes / GiB, ",.2f"))} GiB of ${pyFormat(e.capacity / GiB,
        ",.0f")} GiB: ${e.fits ? "fits" : "does <strong>not</strong> fit"}`],
      ["most sequences at this context", out("max_batch", e.max_batch,
        pyFormat(e.max_batch, ","))],
      ["longest context at this batch", e.max_context === null
        ? out("max_context", "", "unbounded (every attention layer windowed)")
        : `${out("max_context", e.max_context, pyFormat(e.max_context, ","))} tokens`],
    ];
    const table = h("table", {class: "lla-summary"});
    const tbody = h("tbody");
    for (const [k, v] of rows) {
      const tr = h("tr", {"data-row": k.replace(/<[^>]+>/g, "")});
      tr.append(h("th", {scope: "row", html: k}), h("td", {html: v}));
      tbody.appendChild(tr);
    }
    table.appendChild(tbody);
    box.appendChild(table);
  };

  // ---- the widgets -------------------------------------------------------------------------
  const ALL = ["model", "chip", "weights", "kv", "context", "batch"];
  // speculative decoding's controls: which draft (none, the model's MTP module, a draft of the
  // cost given, a draft model), its length, the acceptance rate, the cost given
  const SPECULATION = ["speculation", "draft", "acceptance", "draft_cost"];
  // images in the prompt: how many (0 to the menu's most) and their size (the menu's), shown
  // only for a model whose tower's rule the export gives (CATALOG.image_menu)
  const IMAGES = ["images", "image_size"];
  // a video and audio in the prompt: one clip of each menu (none: 0), shown only for a model
  // whose video rule or audio encoder the export gives (CATALOG.video_menu, audio_menu)
  const MEDIA = ["video", "audio"];
  const WIDGETS = {
    puzzle: {
      title: "A model on a chip: the bound on tokens per second",
      controls: ["model", "chip", "weights", "context"],
      show: ["decode_tokens_per_second", "compute_tokens_per_second", "bound",
        "decode_bytes_per_token", "decode_memory_seconds", "decode_compute_seconds", "fits"],
      plots: ["bytes"],
      defaults: {model: "llama-7b", chip: "m2", weights: "q4_0", kv: "fp16", context: 1,
        batch: 1},
    },
    "kv-cache": {
      title: "The KV cache: context, batch, precision and grouped-query heads",
      controls: ["model", "chip", "kv", "context", "batch", "group"],
      show: ["kv_cache_bytes_per_token", "kv_cache_bytes", "kv_cache_bytes_full_storage",
        "weight_bytes", "memory_required_bytes", "fits", "max_batch", "max_context"],
      plots: ["kv"],
      defaults: {model: "llama-3-8b", chip: "a100-80gb-sxm", weights: "", kv: "fp16",
        context: 4096, batch: 1},
    },
    roofline: {
      title: "The decode step on the roofline",
      controls: ALL,
      show: ["step_intensity", "ops_per_byte", "bound", "decode_seconds_per_token",
        "attained_flops", "critical_batch_size", "throughput_tokens_per_second"],
      plots: ["roofline"],
      defaults: {model: "mistral-7b", chip: "h100-sxm", weights: "fp16", kv: "fp16",
        context: 1024, batch: 1},
    },
    batching: {
      title: "Batching: time per step and throughput",
      controls: ALL,
      show: ["decode_seconds_per_token", "decode_tokens_per_second",
        "throughput_tokens_per_second", "bound", "critical_batch_size", "max_batch",
        "decode_step_bytes"],
      plots: ["batching"],
      defaults: {model: "llama-3-8b", chip: "h100-sxm", weights: "fp16", kv: "fp16",
        context: 4096, batch: 64},
    },
    explorer: {
      title: "Explorer: any model on any chip",
      controls: ALL,
      show: [],
      plots: ["summary", "bytes", "roofline"],
      defaults: {model: "llama-3-8b", chip: "rtx-4090", weights: "fp16", kv: "fp16",
        context: 4096, batch: 1},
    },
    serving: {
      title: "Serving on a replica: the first token, each next one, and the frontier",
      controls: ["model", "chip", "weights", "tp", "prompt", ...IMAGES, ...MEDIA, "generate",
        "batch", "price", "runtime", ...SPECULATION],
      show: ["ttft_seconds", "tpot_seconds", "tokens_per_second_per_user",
        "tokens_per_second_per_chip", "request_seconds", "allreduce_seconds_per_token",
        "cost_per_million_tokens", "fits_per_chip", "weight_bytes_per_chip",
        "speculative_tpot_seconds", "draft_cost",
        "draft_memory_bytes", "expected_ttft_seconds", "expected_tpot_seconds",
        "expected_tokens_per_second_per_chip", "image_tokens_per_image", "image_tokens",
        "vision_prefill_seconds", "video_tokens", "audio_tokens", "audio_prefill_seconds"],
      plots: ["frontier"],
      defaults: {model: "llama-3-70b", chip: "h100-sxm", weights: "fp8", kv: "fp16",
        context: 2048, batch: 64, tp: 8, prompt: 2048, generate: 256, price: null},
    },
    estimate: {
      title: "",
      controls: [...ALL, "runtime", ...SPECULATION],
      show: ["decode_seconds_per_token", "decode_tokens_per_second",
        "throughput_tokens_per_second", "bound", "speculative_tokens_per_second", "draft_cost",
        "draft_memory_bytes", "expected_decode_tokens_per_second"],
      plots: [],
      defaults: {model: "llama-3-8b", chip: "h100-sxm", weights: "fp16", kv: "fp16",
        context: 4096, batch: 1},
    },
  };

  const list = (s) => String(s).split(",").map((x) => x.trim()).filter(Boolean);

  function options(el, spec) {
    const d = el.dataset;
    const o = {...spec.defaults};
    for (const k of ["model", "chip", "weights", "kv"]) if (k in d) o[k] = d[k];
    for (const k of ["context", "batch", "tp", "prompt", "generate"]) {
      if (k in d) o[k] = parseInt(d[k], 10);
    }
    if ("price" in d) o.price = d.price === "" ? null : Number(d.price);
    if ("images" in d) o.images = parseInt(d.images, 10);
    if ("image_size" in d) o.image_size = d.image_size;
    for (const k of MEDIA) if (k in d) o[k] = parseInt(d[k], 10);
    // a serving control without a starting value: one chip, a 2,048-token prompt and 256
    // tokens after the first (the sizes of estimate()'s example)
    let controls = "controls" in d ? list(d.controls) : spec.controls;
    // the draft's length, acceptance or cost are those of the draft chosen: a widget that
    // lists them gets the choice of draft before them
    const first = controls.findIndex((c) => SPECULATION.includes(c));
    if (first >= 0 && !controls.includes("speculation")) {
      controls = [...controls.slice(0, first), "speculation", ...controls.slice(first)];
    }
    const [w0, h0] = CATALOG.image_menu.default;
    const start = {tp: 1, prompt: 2048, generate: 256, price: null, runtime: null,
      speculation: null, draft_model: null, draft_cost: 0, ...DRAFT_START, images: 0,
      image_size: `${w0}x${h0}`, video: 0, audio: 0};
    for (const k of Object.keys(start)) {
      const shown = k in DRAFT_START || k.startsWith("draft_") ? controls.includes("speculation")
        : controls.includes(k);
      if (shown && o[k] === undefined) o[k] = start[k];
    }
    // a starting draft (data-speculation): "mtp" (the model's module), "cost", or a catalog
    // model's key (a draft model)
    if ("speculation" in d && controls.includes("speculation") && d.speculation) {
      if (d.speculation === "mtp" || d.speculation === "cost") o.speculation = d.speculation;
      else [o.speculation, o.draft_model] = ["draft", d.speculation];
    }
    return {
      state: o,
      controls,
      show: "show" in d ? list(d.show) : spec.show,
      plots: "plots" in d ? list(d.plots) : spec.plots,
      title: "title" in d ? d.title : spec.title,
    };
  }

  function mount(el) {
    if (el.dataset.llmMounted) return;
    const name = el.dataset.llmWidget;
    const spec = WIDGETS[name];
    if (!spec) {
      el.textContent = `unknown widget "${name}" (known: ${Object.keys(WIDGETS).join(", ")})`;
      console.warn(`llm-arithmetic: unknown widget ${name}`);
      return;
    }
    el.dataset.llmMounted = "1";
    const opt = options(el, spec);
    for (const k of opt.show) {
      if (!(k in OUTPUTS)) throw new Error(`llm-arithmetic: unknown output ${k}`);
    }
    for (const k of opt.plots) {
      if (!(k in VIEWS)) throw new Error(`llm-arithmetic: unknown plot ${k}`);
    }
    const state = opt.state;
    const start = CATALOG.models[state.model] || CATALOG.models["llama-3-8b"];
    state.customModel = firstParts(start);
    const startChip = CATALOG.hardware[state.chip] || CATALOG.hardware["h100-sxm"];
    // a custom chip starts as the starting chip, at the peak the estimate takes on it for the
    // starting model and format (a GeForce card's fp16-acc16, not its fp16 key)
    let startPeak = chipPeak(startChip, "fp16");
    try {
      startPeak = Estimate.estimate(start, startChip, {weights: state.weights || null}).peak_flops
        || startPeak;
    } catch (err) { /* a start the estimate refuses: the fp16 key */ }
    state.customChip = {bandwidth_gbps: startChip.bandwidth / 1e9,
      peak_tflops: startPeak / 1e12, capacity_gb: startChip.capacity / 1e9};
    const ownGroup = () => {
      const m = state.model === "custom" ? null : CATALOG.models[state.model];
      const heads = m ? Stack.uniformHeads(m) : null;
      return heads ? heads.n_heads / heads.n_kv_heads : 0;
    };
    state.group = opt.controls.includes("group") ? ownGroup() : 0;
    // starting with the model's MTP module: its workload's draft length and acceptance
    const ownMtp = (start.speculation || {}).mtp;
    if (state.speculation === "mtp" && ownMtp) {
      [state.draft, state.acceptance] = [ownMtp.draft_len, ownMtp.acceptance];
    }

    el.innerHTML = "";
    el.classList.add("llm-widget", "lla-root");
    if (opt.title) el.appendChild(h("p", {class: "lla-title", text: opt.title}));
    const controls = h("div", {class: "lla-controls"});
    el.appendChild(controls);
    const message = h("p", {class: "lla-message", role: "status"});
    const numbers = h("dl", {class: "lla-numbers"});
    const views = h("div", {class: "lla-views"});
    const outs = {};
    for (const k of opt.show) {
      const o = OUTPUTS[k];
      const node = h("output", {"data-key": k});
      outs[k] = node;
      numbers.appendChild(h("div", {class: "lla-number"}, [h("dt", {text: o.label}),
        h("dd", {}, [node, o.unit && !o.text ? h("span", {class: "lla-unit",
          text: ` ${o.unit}`}) : null])]));
    }
    // under a forecast, what its terms borrow (forecast.forecast_caveat, as describe prints
    // it): one span a sentence, its template and arguments in data-template and data-args
    const caveat = opt.show.some((k) => k.startsWith("expected_"))
      ? h("p", {class: "lla-message lla-caveat", "data-caveat": "", hidden: true}) : null;
    const live = h("div", {class: "lla-live", "aria-live": "polite"}, [message,
      opt.show.length ? numbers : null, caveat]);
    el.append(live, views);

    const sync = [];
    let customModelBox = null;
    let customChipBox = null;
    let groupSel = null;
    let groupNote = null;
    let tpSel = null;
    let tpOffered = "";
    let specUI = null;  // speculation: the draft's select, its fields, what is offered
    const imageUI = {};  // images: each control's field and select
    const mediaUI = {};  // a video and audio: each control's field and select
    let buildUI = null;  // the llama.cpp build: its field and select

    function refreshTp() {
      // the degrees the current model allows; a tp it does not allow falls to the largest
      // allowed one below it
      const model = resolve(state).model;
      if (!model) return;
      const allowed = TPS.filter((t) => Estimate.tpAllowed(model, t));
      if (!allowed.includes(state.tp)) {
        state.tp = Math.max(...allowed.filter((t) => t <= state.tp), 1);
      }
      if (allowed.join() !== tpOffered) {
        tpOffered = allowed.join();
        tpSel.innerHTML = "";
        for (const t of allowed) {
          tpSel.appendChild(h("option", {value: t, text: t === 1 ? "1 (one chip)"
            : `${t} chips`}));
        }
      }
      tpSel.value = String(state.tp);
    }

    // the drafts the current model allows: its own MTP module where Python gives one
    // (export.speculation_data), a draft given by its step time, and the catalog's models
    // Python takes as its drafts (speculative.offered_drafts, exported: smaller than it, both
    // caches counted, vocab_size within llama.cpp's tolerance); for custom numbers the same
    // test made here; a draft it does not allow falls to none
    function refreshSpeculation() {
      const model = resolve(state).model;
      if (!model) return;
      const mtp = !!(model.speculation || {}).mtp;
      const listed = state.model === "custom" ? null : CATALOG.drafts[state.model];
      const size = listed ? null : Stack.totalParams(model);
      const drafts = listed ? listed.map((k) => CATALOG.models[k])
        : Object.values(CATALOG.models).filter((m) => m.name !== model.name
          && !m.cache_uncounted && catalogParams(m) < size
          && Math.abs(m.n_vocab - model.n_vocab) <= CATALOG.draft_vocab_tolerance);
      const offered = JSON.stringify([mtp, drafts.map((m) => m.name)]);
      if (state.speculation === "mtp" && !mtp) state.speculation = null;
      if (state.speculation === "draft" && !drafts.some((m) => m.name === state.draft_model)) {
        state.speculation = null;
      }
      if (state.speculation !== "draft") state.draft_model = null;
      if (offered !== specUI.offered) {
        specUI.offered = offered;
        specUI.sel.replaceChildren(h("option", {value: "", text: "none"}),
          mtp ? h("option", {value: "mtp", text: "the model's MTP module"}) : null,
          h("option", {value: "cost", text: "a draft given by its step time"}),
          drafts.length ? h("optgroup", {label: "a draft model from the catalog"},
            drafts.map((m) => h("option", {value: `draft:${m.name}`, text: m.label}))) : null);
      }
      specUI.sel.value = state.speculation === "draft" ? `draft:${state.draft_model}`
        : state.speculation || "";
      for (const [k, f] of Object.entries(specUI.fields)) {
        f.hidden = !state.speculation || (k === "draft_cost" && state.speculation !== "cost");
      }
      if (specUI.mtpNote) specUI.mtpNote.hidden = state.speculation !== "mtp";
    }

    // the image controls, shown for a model that takes images (its inputs exported); for
    // another, hidden, and no images
    function refreshImages() {
      const model = resolve(state).model;
      const offered = !!(model && model.images);
      if (!offered) state.images = 0;
      for (const [k, ui] of Object.entries(imageUI)) {
        ui.field.hidden = !offered;
        ui.sel.value = String(state[k]);
      }
    }

    // the video and audio controls, each shown for a model that takes it (its clips
    // exported: model.video, model.audio); for another, hidden, and none
    function refreshMedia() {
      const model = resolve(state).model;
      for (const [k, ui] of Object.entries(mediaUI)) {
        const offered = !!(model && model[k]);
        if (!offered) state[k] = 0;
        ui.field.hidden = !offered;
        ui.sel.value = String(state[k]);
      }
    }

    // the llama.cpp build, shown where the forecast's runtime has a build drift (llama.cpp);
    // another runtime is for today's build
    function refreshBuild() {
      const drifts = CATALOG.forecast.drift_runtimes.includes(state.runtime);
      if (!drifts) state.build = null;
      buildUI.field.hidden = !drifts;
      buildUI.sel.value = state.build ? String(state.build) : "";
    }

    function render() {
      if (tpSel) refreshTp();
      if (buildUI) refreshBuild();
      if (specUI) refreshSpeculation();
      if (imageUI.images || imageUI.image_size) refreshImages();
      if (mediaUI.video || mediaUI.audio) refreshMedia();
      const r = compute(state);
      el.dataset.state = JSON.stringify({model: state.model, chip: state.chip,
        weights: state.weights || null, kv: state.kv, context: state.context,
        batch: state.batch, group: state.group || null, tp: state.tp || 1,
        prompt: state.prompt ?? null, generate: state.generate ?? null,
        price: state.price ?? null, runtime: state.runtime ?? null,
        build: state.build ?? null,
        speculation: state.speculation ?? null,
        draft: state.speculation ? state.draft : null,
        acceptance: state.speculation ? state.acceptance : null,
        draft_cost: state.speculation === "cost" ? state.draft_cost : null,
        draft_model: state.speculation === "draft" ? state.draft_model : null,
        custom_model: state.model === "custom" ? state.customModel : null,
        custom_chip: state.chip === "custom" ? state.customChip : null,
        images: state.images ?? null, image_size: state.image_size ?? null,
        video: state.video ?? null, audio: state.audio ?? null});
      const notes = [...r.problems];
      if (r.est && r.model.trained_context && state.context > r.model.trained_context) {
        notes.push(`${fmtExact(state.context)} tokens is beyond the ${fmtExact(
          r.model.trained_context)} the model was trained for.`);
      }
      // Python's warning of a clip its processor truncates (Qwen2.5-Omni's audio past 300 s)
      if (r.est && r.est.audio_warning) notes.push(r.est.audio_warning);
      // the prompt with its images' tokens, as the estimate takes it
      const requestTokens = ((r.est ? r.est.prompt : state.prompt) ?? 0)
        + (state.generate ?? 0);
      if (r.est && state.prompt && r.model.trained_context
          && requestTokens > r.model.trained_context) {
        notes.push(`prompt and generated tokens, ${fmtExact(requestTokens)}, are beyond the ${
          fmtExact(r.model.trained_context)} the model was trained for.`);
      }
      message.textContent = notes.join(" ");
      message.classList.toggle("lla-error", r.problems.length > 0);
      for (const [k, node] of Object.entries(outs)) setOutput(node, k, r.est, r.model);
      if (caveat) {
        const sentences = r.est ? r.est.forecast_caveat_sentences : [];
        caveat.replaceChildren(...sentences.flatMap((x, i) => [i ? "; " : null, h("span", {
          "data-template": x.template, "data-args": JSON.stringify(x.args),
          text: Estimate.fillTemplate(x.template, x.args)})]).filter(Boolean));
        caveat.hidden = !sentences.length;
      }
      views.innerHTML = "";
      if (!r.est) return;
      for (const v of opt.plots) {
        const box = h("div", {class: `lla-view lla-view-${v}`, "data-view": v});
        views.appendChild(box);
        VIEWS[v](box, r, state);
      }
      el.dispatchEvent(new CustomEvent("llm-widget-update", {detail: r.est}));
    }

    function refreshGroup() {
      if (!groupSel) return;
      groupSel.innerHTML = "";
      const m = state.model === "custom" ? null : CATALOG.models[state.model];
      const heads = m ? Stack.uniformHeads(m) : null;
      groupSel.disabled = !heads;
      if (!heads) {
        groupSel.appendChild(h("option", {value: "0", text: "not applicable"}));
        groupNote.textContent = m && m.layers.some((run) => run.attention && Stack.isMLA(
          run.attention)) ? "latent attention caches a latent, not KV heads"
          : "the layers differ in heads, or a custom model (set its KV heads)";
        state.group = 0;
        return;
      }
      groupNote.textContent = "";
      for (let g = 1; g <= heads.n_heads; g++) {
        if (heads.n_heads % g) continue;
        const kv = heads.n_heads / g;
        const kind = g === 1 ? "MHA" : kv === 1 ? "MQA" : "GQA";
        groupSel.appendChild(h("option", {value: g, text: `${g}: ${kv} KV head${
          kv > 1 ? "s" : ""} (${kind})`}));
      }
      groupSel.value = String(state.group);
    }

    for (const c of opt.controls) {
      if (c === "model") {
        const sel = modelSelect(state);
        controls.appendChild(field("model", sel));
        customModelBox = h("div", {class: "lla-custom", "data-custom": "model"});
        for (const [k, label] of CUSTOM_MODEL_FIELDS) {
          const inp = numberInput({min: 1, step: 1, "data-field": k});
          inp.value = state.customModel[k];
          inp.addEventListener("input", () => {
            state.customModel[k] = Number(inp.value);
            render();
          });
          customModelBox.appendChild(field(label, inp, "lla-small"));
        }
        controls.appendChild(customModelBox);
        sel.addEventListener("change", () => {
          state.model = sel.value;
          if (state.model !== "custom") {
            state.customModel = firstParts(CATALOG.models[state.model]);
            for (const inp of customModelBox.querySelectorAll("input")) {
              inp.value = state.customModel[inp.dataset.field];
            }
            state.group = opt.controls.includes("group") ? ownGroup() : 0;
          }
          customModelBox.hidden = state.model !== "custom";
          refreshGroup();
          render();
        });
        customModelBox.hidden = state.model !== "custom";
      } else if (c === "chip") {
        const sel = chipSelect(state);
        controls.appendChild(field("chip", sel));
        customChipBox = h("div", {class: "lla-custom", "data-custom": "chip"});
        for (const [k, label] of CUSTOM_CHIP_FIELDS) {
          const inp = numberInput({min: 0, step: "any", "data-field": k, inputmode: "decimal"});
          inp.value = state.customChip[k];
          inp.addEventListener("input", () => {
            state.customChip[k] = Number(inp.value);
            render();
          });
          customChipBox.appendChild(field(label, inp, "lla-small"));
        }
        controls.appendChild(customChipBox);
        sel.addEventListener("change", () => {
          state.chip = sel.value;
          customChipBox.hidden = state.chip !== "custom";
          render();
        });
        customChipBox.hidden = state.chip !== "custom";
      } else if (c === "weights" || c === "kv") {
        const sel = formatSelect(c, state, c === "weights");
        controls.appendChild(field(c === "weights" ? "weights" : "KV cache", sel));
        sel.addEventListener("change", () => {
          state[c] = sel.value;
          render();
        });
      } else if (c in LADDERS) {
        const [values, label] = LADDERS[c];
        const l = ladder(c, label, values, state);
        if (c === "generate") l.box.min = 0;
        l.slider.addEventListener("input", () => {
          state[c] = values[Number(l.slider.value)];
          l.box.value = state[c];
          l.slider.setAttribute("aria-valuetext", fmtExact(state[c]));
          render();
        });
        l.box.addEventListener("input", () => {
          const v = l.box.value === "" ? NaN : Number(l.box.value);
          state[c] = v;
          if (Number.isInteger(v) && v >= 1) l.slider.value = values.reduce((best, x, i) =>
            (Math.abs(Math.log(x) - Math.log(v)) < Math.abs(Math.log(values[best]) - Math.log(v))
              ? i : best), 0);
          render();
        });
        l.sync();
        sync.push(l.sync);
        controls.appendChild(l.wrap);
      } else if (c === "tp") {
        tpSel = h("select", {"data-control": "tp"});
        controls.appendChild(field("tensor-parallel chips", tpSel));
        tpSel.addEventListener("change", () => {
          state.tp = Number(tpSel.value);
          render();
        });
      } else if (c === "price") {
        const inp = numberInput({min: 0, step: "any", inputmode: "decimal",
          "data-control": "price", placeholder: "none"});
        inp.value = state.price ?? "";
        controls.appendChild(field("price per chip-hour [USD]", inp));
        inp.addEventListener("input", () => {
          state.price = inp.value === "" ? null : Number(inp.value);
          render();
        });
      } else if (c === "runtime") {
        // the runtime whose fitted terms the forecast uses; none: the runtime-agnostic fit
        const sel = h("select", {"data-control": "runtime"}, [h("option", {value: "",
          text: "any (a wider range)"}), ...CATALOG.forecast.runtimes.map((rt) =>
          h("option", {value: rt, text: rt}))]);
        sel.value = state.runtime ?? "";
        controls.appendChild(field("runtime of the forecast", sel));
        sel.addEventListener("change", () => {
          state.runtime = sel.value || null;
          render();
        });
        // the llama.cpp build the forecast is for: today's, or an older one that pays the
        // fitted build drift (forecast.DRIFT_TERMS)
        const buildSel = h("select", {"data-control": "build"}, [h("option", {value: "",
          text: "today's (no drift)"}), ...CATALOG.forecast.builds.map((b) =>
          h("option", {value: String(b.build), text: buildLabel(b)}))]);
        state.build = state.build ?? null;
        buildUI = {sel: buildSel, field: field("llama.cpp build", buildSel)};
        controls.appendChild(buildUI.field);
        buildSel.addEventListener("change", () => {
          state.build = buildSel.value ? Number(buildSel.value) : null;
          render();
        });
      } else if (c === "speculation") {
        // which draft: none, the model's MTP module (describe's --speculation mtp: its draft
        // length, acceptance, draft steps and memory as Python gives them), a draft given by its
        // step time (--draft-cost), or a draft model of the catalog (--draft)
        const sel = h("select", {"data-control": "speculation"});
        specUI = {sel, fields: {}, offered: "", mtpNote: null, inputs: {}};
        controls.appendChild(field("speculative decoding", sel));
        sel.addEventListener("change", () => {
          const v = sel.value;
          if (v === "mtp") {  // the workload's draft length and acceptance, as the CLI takes them
            const own = resolve(state).model.speculation.mtp;
            state.draft = own.draft_len;
            state.acceptance = own.acceptance;
          }
          state.speculation = v.startsWith("draft:") ? "draft" : v || null;
          state.draft_model = v.startsWith("draft:") ? v.slice("draft:".length) : null;
          if (specUI.inputs.draft) specUI.inputs.draft.value = String(state.draft);
          if (specUI.inputs.acceptance) specUI.inputs.acceptance.value = state.acceptance;
          render();
        });
      } else if (c === "draft") {
        const sel = h("select", {"data-control": "draft"}, DRAFTS.map((k) => h("option",
          {value: k, text: `${k} drafted token${k > 1 ? "s" : ""}`})));
        sel.value = String(state.draft);
        const f = field("draft length", sel);
        controls.appendChild(f);
        if (specUI) [specUI.fields.draft, specUI.inputs.draft] = [f, sel];
        sel.addEventListener("change", () => {
          state.draft = Number(sel.value);
          render();
        });
      } else if (c === "acceptance") {
        const inp = numberInput({min: 0, max: 0.99, step: 0.05, inputmode: "decimal",
          "data-control": "acceptance"});
        inp.value = state.acceptance;
        const f = field("acceptance rate", inp);
        if (specUI) {
          // the rate the MTP workload takes, and its source's (SPECULATIVE_WORKLOADS)
          specUI.mtpNote = h("span", {class: "lla-note-inline", "data-note": "mtp"},
            [h("span", {text: "published for MTP:"}),
              document.createTextNode(` ${CATALOG.speculative.mtp.acceptance}`)]);
          f.appendChild(specUI.mtpNote);
          [specUI.fields.acceptance, specUI.inputs.acceptance] = [f, inp];
        }
        controls.appendChild(f);
        inp.addEventListener("input", () => {
          state.acceptance = inp.value === "" ? NaN : Number(inp.value);
          render();
        });
      } else if (c === "draft_cost") {
        // a draft given by its step time relative to the target's (0: a free draft)
        const inp = numberInput({min: 0, step: 0.01, inputmode: "decimal",
          "data-control": "draft_cost"});
        inp.value = state.draft_cost;
        const f = field("time of a draft step [target steps]", inp);
        f.appendChild(h("span", {class: "lla-note-inline", text: "0: a free draft"}));
        if (specUI) specUI.fields.draft_cost = f;
        controls.appendChild(f);
        inp.addEventListener("input", () => {
          state.draft_cost = inp.value === "" ? NaN : Number(inp.value);
          render();
        });
      } else if (c === "images" || c === "image_size") {
        // how many images the prompt holds (0: none), or the size of each, from the menu
        const menu = CATALOG.image_menu;
        const choices = c === "images"
          ? Array.from({length: menu.max + 1}, (_, k) => [k, k ? String(k) : "none"])
          : menu.sizes.map(([w, ht]) => [`${w}x${ht}`, `${w} x ${ht} px`]);
        const sel = h("select", {"data-control": c}, choices.map(([v, text]) => h("option",
          {value: v, text})));
        sel.value = String(state[c]);
        const f = field(c === "images" ? "images in the prompt" : "image size", sel);
        imageUI[c] = {field: f, sel};
        controls.appendChild(f);
        sel.addEventListener("change", () => {
          state[c] = c === "images" ? Number(sel.value) : sel.value;
          render();
        });
      } else if (MEDIA.includes(c)) {
        // a video clip (its frames of the menu's size at its frame rate) or an audio clip in
        // the prompt, from the menu (0: none)
        const menu = c === "video" ? CATALOG.video_menu : CATALOG.audio_menu;
        const length = (t) => (t < 60 ? `${t} s` : `${t / 60} min`);
        const sel = h("select", {"data-control": c}, [[0, "none"],
          ...menu.seconds.map((t) => [t, length(t)])].map(([v, text]) => h("option",
          {value: v, text})));
        sel.value = String(state[c]);
        const f = field(c === "video" ? `video in the prompt (${menu.size[0]} x ${
          menu.size[1]} px, ${menu.fps} frames a second)` : "audio in the prompt", sel);
        mediaUI[c] = {field: f, sel};
        controls.appendChild(f);
        sel.addEventListener("change", () => {
          state[c] = Number(sel.value);
          render();
        });
      } else if (c === "group") {
        groupSel = h("select", {"data-control": "group"});
        groupNote = h("span", {class: "lla-note-inline"});
        const f = field("query heads per KV head", groupSel);
        f.appendChild(groupNote);
        controls.appendChild(f);
        groupSel.addEventListener("change", () => {
          state.group = Number(groupSel.value);
          render();
        });
        refreshGroup();
      } else {
        throw new Error(`llm-arithmetic: unknown control ${c}`);
      }
    }
    render();
    // redraw the plots at the new width when the page is resized
    if (window.ResizeObserver) {
      let lastWidth = views.clientWidth;
      new ResizeObserver(() => {
        if (Math.abs(views.clientWidth - lastWidth) > 8) {
          lastWidth = views.clientWidth;
          render();
        }
      }).observe(views);
    }
  }

  // The line a widget shows when it fails to mount. Its words are a text node of their own, so
  // that a translated edition shows its own (locale/<language>/widgets.json, whose translator
  // follows this script in widgets.js); the error's message stays as the code wrote it.
  const WIDGET_FAILED = "This widget failed:";

  function mountAll() {
    document.querySelectorAll("[data-llm-widget]").forEach((el) => {
      try {
        mount(el);
      } catch (err) {
        const line = document.createElement("p");
        line.className = "lla-message lla-error";
        const words = document.createElement("span");
        words.textContent = WIDGET_FAILED;
        line.append(words, " ", err.message);
        el.replaceChildren(line);
        // thrown after this script has run, so that the other widgets still mount and the
        // edition's translator still runs; the page reports it as an uncaught error all the same
        setTimeout(() => { throw err; });
      }
    });
  }

  return {mount, mountAll, WIDGETS, OUTPUTS, VIEWS, pyFormat, fmt, CONTEXTS, BATCHES, TPS,
    compute};
})();

// ---- start --------------------------------------------------------------------------------
(function start() {
  if (!document.getElementById("llm-arithmetic-css")) {
    const style = document.createElement("style");
    style.id = "llm-arithmetic-css";
    style.textContent = WIDGET_CSS;
    document.head.appendChild(style);
  }
  window.LLMArithmetic = {formulas: F, catalog: CATALOG, stack: Stack, plan: Plan,
    estimate: Estimate.estimate, steps: Estimate.steps, frontier: Estimate.frontier,
    computeChain: Estimate.computeChain,
    formatBits: Estimate.formatBits, plot: Plot, widgets: UI.WIDGETS, outputs: UI.OUTPUTS,
    views: UI.VIEWS, pyFormat: UI.pyFormat, mount: UI.mount, mountAll: UI.mountAll};
  UI.mountAll();
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", UI.mountAll);
  }
})();
