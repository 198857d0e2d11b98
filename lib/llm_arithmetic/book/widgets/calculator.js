// estimate() in the browser: the input checks of llm_arithmetic.estimate (what a caller may
// ask), then the plan that interpreter.js evaluates, step for step the one estimate.py runs.
// The fields keep the Python names (CATALOG.field_steps maps each to its step).
const Estimate = (function () {
  const LIMITS = CATALOG.limits;
  const EXPECTED_KEYS = ["expected_decode_tokens_per_second", "expected_ttft_seconds",
    "expected_tpot_seconds", "expected_tokens_per_second_per_chip"];

  function formatBits(fmt) {
    // bits per weight of a named format (case-insensitive) or of a number (formats.py)
    if (typeof fmt === "number") return fmt;
    const f = CATALOG.formats[String(fmt).trim().toLowerCase()];
    if (f) return f.bits;
    const x = Number(fmt);
    if (String(fmt).trim() !== "" && Number.isFinite(x)) return x;
    throw new Error(`unknown weight format ${JSON.stringify(fmt)}`);
  }

  function formatInput(fmt) {
    // a named weight format as the plan's precision chain reads it (estimate.format_input)
    if (typeof fmt !== "string") return null;
    const f = CATALOG.formats[fmt.trim().toLowerCase()];
    return f ? {compute: f.compute, compute_fallback: f.compute_fallback || null,
      compute_vendors: f.compute_vendors || null} : null;
  }

  function chipInputs(chip) {
    // layout.chip_inputs
    if (!chip) {
      return {chip_bandwidth: null, chip_capacity: null, chip_power: null, chip_peaks: null,
        chip_interconnect: null, chip_vendor: null};
    }
    return {chip_bandwidth: chip.bandwidth, chip_capacity: chip.capacity,
      chip_power: chip.power ?? null, chip_peaks: chip.peaks,
      chip_interconnect: chip.interconnect, chip_vendor: chip.vendor ?? ""};
  }

  // precisions whose peak may apply, in order (the plan's chain step)
  function computeChain(weightFormat, bits) {
    return Plan.evaluate({layers: [], native_bits: {default: 16}}, "precision_chain",
      {weight_format: formatInput(weightFormat), bits_weight: bits ?? null});
  }

  function count(label, v) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label} must be a positive integer`);
    if (v > LIMITS[label]) throw new Error(`${label} is beyond the limit ${LIMITS[label]}`);
    return v;
  }

  function servingNumber(label, v) {
    // arguments.serving_argument: a positive figure within its plausible range, or null
    if (v === null || v === undefined) return null;
    const x = Number(v);
    const [low, high, unit] = CATALOG.serving_ranges[label];
    if (!Number.isFinite(x) || x <= 0) {
      throw new Error(`${label} must be a positive finite number [${unit}]`);
    }
    if (x < low) {
      throw new Error(`${label} = ${x} ${unit} is implausibly small (the unit is ${unit})`);
    }
    if (x > high) {
      throw new Error(`${label} = ${x} ${unit} is beyond the plausibility limit ${high}`);
    }
    return x;
  }

  function parallel(m, tp, ep, pp) {
    // layout.parallel_degrees: degrees the model's heads, layers and experts allow
    tp = count("tp", tp);
    ep = count("ep", ep);
    pp = count("pp", pp);
    const heads = m.layers.filter((run) => run.attention).map((run) => run.attention.n_heads);
    const minHeads = Math.min(...heads);
    if (heads.length && tp > minHeads) {
      throw new Error(`tp = ${tp} exceeds the ${minHeads} attention heads of ${m.name}'s layers`);
    }
    if (heads.some((h) => h % tp)) {
      throw new Error(`tp = ${tp} does not divide the ${minHeads} attention heads of ${
        m.name}'s layers`);
    }
    const kv = [...new Set(m.layers.filter((run) => run.attention)
      .map((run) => run.attention.n_kv_heads))].sort((a, b) => a - b);
    const odd = kv.filter((k) => k % tp && tp % k);
    if (odd.length) {
      throw new Error(`tp = ${tp} neither divides the ${odd[0]} KV heads of ${m.name
      }'s layers nor is a multiple of them`);
    }
    // vLLM's MambaMixer2: tp divides a Mamba-2 mixer's heads, and its groups unless one
    for (const run of m.layers.filter((r) => r.mixer && r.mixer.n_groups)) {
      if (run.mixer.n_heads % tp) {
        throw new Error(`tp = ${tp} does not divide the ${run.mixer.n_heads} heads of ${
          m.name}'s Mamba-2 mixers`);
      }
      if (run.mixer.n_groups % tp && run.mixer.n_groups !== 1) {
        throw new Error(`tp = ${tp} does not divide the ${run.mixer.n_groups} B/C groups of ${
          m.name}'s Mamba-2 mixers`);
      }
    }
    // vLLM splits lightning attention by heads, Mamba-1 mixers and gated memory units by
    // channels (formulas/engine.py)
    for (const [width, what] of [["la_heads", "heads of %s's lightning attention mixers"],
      ["d_inner", "inner channels of %s's Mamba-1 mixers"],
      ["memory_width", "channels of %s's gated memory units"]]) {
      for (const run of m.layers.filter((r) => r.mixer && r.mixer[width]
        && (width !== "d_inner" || r.mixer.dt_rank))) {
        if (run.mixer[width] % tp) {
          throw new Error(`tp = ${tp} does not divide the ${run.mixer[width]} ${
            what.replace("%s", m.name)}`);
        }
      }
    }
    if (pp > Stack.nLayers(m)) {
      throw new Error(`pp = ${pp} exceeds the ${Stack.nLayers(m)} layers of ${m.name}`);
    }
    if (ep > 1) {
      if (!Stack.isMoE(m)) {
        throw new Error(`ep = ${ep} needs a mixture of experts; ${m.name} is dense`);
      }
      if (ep > Stack.nExperts(m)) {
        throw new Error(`ep = ${ep} exceeds the ${Stack.nExperts(m)} experts of ${m.name}`);
      }
      if ((tp * pp) % ep) throw new Error(`ep = ${ep} must divide the replica's tp x pp chips`);
    }
    return [tp, ep, pp];
  }

  // whether estimate() accepts tp for this model (the heads split evenly)
  function tpAllowed(m, tp) {
    try {
      parallel(m, tp, 1, 1);
      return true;
    } catch (err) {
      return false;
    }
  }

  // m: a model object; chip: a catalog chip, or null with opts.bandwidth / peak_flops /
  // capacity; opts.weights: a format name or null (as shipped); opts.bits_kv: a format name or
  // bits; opts.context, opts.batch, opts.overhead; serving (a replica of tp x pp chips):
  // opts.tp, ep, pp, prompt, generate, price_per_hour, power_watts, link_bandwidth,
  // link_latency, as estimate()'s keywords; speculative decoding: opts.speculation (a named
  // workload: "mtp", the model's own module), draft_len, acceptance, draft_cost, draft (a
  // catalog key or a model object), as estimate.speculative_inputs takes and checks them.
  // Returns the plan's speculative inputs: the draft's length, acceptance, cost (null for a
  // module's: the plan's) and blocks run per step, and what it holds (draft_weight_bytes,
  // draft_params with its own embedding tables and heads, draft_blocks).
  function speculative(m, chip, o) {
    let draftLen = o.draft_len ?? null;
    let acceptance = o.acceptance ?? null;
    let draftCost = o.draft_cost ?? null;
    let draftLayers = null;
    let stepBlocks = null;  // the module's blocks a draft step runs (the plan prices its step)
    let moduleCopied = null;  // of its input norms and projection, what every chip holds whole
    const draft = o.draft ?? null;
    const nothing = CATALOG.nothing_held;  // estimate.NOTHING_HELD, exported with the catalog
    let held = {...nothing};
    if (o.speculation !== null && o.speculation !== undefined) {
      const w = CATALOG.speculative[o.speculation];
      if (!w) {
        throw new Error(`speculation: unknown workload ${JSON.stringify(o.speculation)}; known: ${
          Object.keys(CATALOG.speculative).join(", ")}`);
      }
      // the workload's inputs for this model as Python gives them (export.speculation_data:
      // the draft length, acceptance, cost and blocks of the module, what it holds); a model
      // that declares no such module has none
      const own = (m.speculation || {})[o.speculation];
      if (!own) {
        // Python's refusal where the model declares modules its reader does not count
        // (export.model_data), else none declared, naming the fields that would declare one
        throw new Error((m.speculation_refused || {})[o.speculation] ?? `speculation: '${
          o.speculation}' drafts with the model's ${w.module} module, and ${
          m.name} declares none (config.json: ${(w.module_fields || []).join(", ")})`);
      }
      draftLen = draftLen ?? own.draft_len;
      acceptance = acceptance ?? own.acceptance;
      if (draftCost === null && draft === null) {
        draftCost = own.draft_cost;
        draftLayers = own.draft_layers;
        stepBlocks = own.draft_step_runs ? Plan.blocksOf(own.draft_step_runs) : null;
        moduleCopied = stepBlocks ? (own.module_copied_params ?? null) : null;
      }
      if (draft === null && w.module) {
        held = {...nothing, draft_weight_bytes: own.draft_weight_bytes,
          draft_params: own.draft_params,
          draft_embedding_params: own.draft_embedding_params,
          draft_head_params: own.draft_head_params,
          draft_blocks: own.draft_runs ? Plan.blocksOf(own.draft_runs) : null};
      }
    }
    if (draftLen === null) {
      if (acceptance !== null || draftCost !== null || draft !== null) {
        throw new Error("draft_len: speculative decoding needs the draft length");
      }
      return {draft_len: null, acceptance: null, draft_cost: null, draft_layers: null,
        draft_step_blocks: null, module_copied_params: null, ...held};
    }
    draftLen = count("draft_len", draftLen);
    if (acceptance === null) {
      throw new Error("acceptance: give the acceptance rate (0 <= a < 1) with the draft length");
    }
    const given = acceptance;
    acceptance = Number(acceptance);
    if (!(acceptance >= 0 && acceptance < 1)) {
      throw new Error(`acceptance must be in [0, 1), got ${given}`);
    }
    if (draft !== null) {
      if (draftCost !== null) throw new Error("give either draft_cost or a draft model, not both");
      if (!chip && (o.bandwidth ?? null) === null) {
        throw new Error("draft: a draft model's cost needs a chip or a bandwidth");
      }
      const d = typeof draft === "string" ? CATALOG.models[draft] : draft;
      if (!d) throw new Error(`draft: unknown model ${JSON.stringify(draft)}`);
      // estimate.check_draft: the target verifies the draft's token ids, so the two need one
      // tokenizer; vocab_size may differ by llama.cpp's tolerance at most
      const gap = Math.abs(d.n_vocab - m.n_vocab);
      if (gap > CATALOG.draft_vocab_tolerance) {
        const n = (v) => v.toLocaleString("en-US");
        throw new Error(`draft: ${d.name}'s vocab_size (${n(d.n_vocab)}) differs from ${
          m.name}'s (${n(m.n_vocab)}) by ${n(gap)} token id${gap !== 1 ? "s" : ""}: a draft's `
          + "tokens are verified by the target, so the two need one tokenizer (llama.cpp "
          + `accepts a difference of at most ${CATALOG.draft_vocab_tolerance} ids, vLLM none)`);
      }
      // estimate.draft_degrees: the draft is split over the replica's chips as the target is
      try {
        parallel(d, o.tp, 1, o.pp);
      } catch (err) {
        throw new Error(`draft: ${err.message} (the draft is split over the replica's chips as `
          + "the target is)");
      }
      // estimate.draft_step_ratio: the draft's bound over the target's, both on one chip at
      // the call's workload (a request's time per output token where there is a prompt)
      const at = {weights: o.weights, bits_kv: o.bits_kv, context: o.context, batch: o.batch,
        prompt: o.prompt, generate: o.generate, bandwidth: o.bandwidth,
        peak_flops: o.peak_flops};
      const step = CATALOG.field_steps[o.prompt !== null && o.prompt !== undefined
        ? "tpot_seconds" : "decode_seconds_per_token"];
      const evDraft = evaluator(d, chip, at)[0];
      draftCost = evDraft.get(step) / evaluator(m, chip, at)[0].get(step);
      draftLayers = Stack.nLayers(d);
      // estimate.draft_memory_inputs: its weights at the call's format, and its stack with
      // its final norm and bits (the plan counts the copies the replica's chips hold of it)
      held = {...nothing, draft_weight_bytes: evDraft.get(CATALOG.field_steps.weight_bytes),
        draft_blocks: Plan.modelInputs(d).blocks,
        draft_d_model: evDraft.get("d_model"),
        draft_final_norm_params: evDraft.get("final_norm_params"),
        draft_bits_default: evDraft.get("bits_default")};
    }
    // a module's cost (none given) is the plan's: its step's roofline time over a plain step's
    if (draftCost !== null || stepBlocks === null) {
      const cost = draftCost;
      draftCost = draftCost === null ? 0 : Number(draftCost);
      if (!(draftCost >= 0 && draftCost < Infinity)) {
        throw new Error(`draft_cost must be non-negative, got ${cost}`);
      }
    }
    return {draft_len: draftLen, acceptance, draft_cost: draftCost, draft_layers: draftLayers,
      draft_step_blocks: stepBlocks, module_copied_params: moduleCopied, ...held};
  }

  // the forecast's chip class of a chip (its kind's; "*" for a custom chip or a kind no class
  // holds), as the exported forecast catalog keys its inputs and pooled terms
  function chipClass(chip) {
    return chip ? (CATALOG.forecast.classes[chip.kind] ?? "*") : "*";
  }

  // the forecast's fitted terms for the chip's class and a runtime (forecast.forecast_inputs,
  // exported with the catalog): a lookup, not a formula; runtime null: the agnostic fit
  function forecastInputs(chip, runtime) {
    const fc = CATALOG.forecast;
    if (runtime !== null && runtime !== undefined && !fc.runtimes.includes(runtime)) {
      throw new Error(`unknown runtime ${JSON.stringify(runtime)}; known: ${
        fc.runtimes.join(", ")}`);
    }
    return fc.inputs[chipClass(chip)][runtime ?? ""];
  }

  // the plan's build_age: a llama.cpp build's age [year] before the fit's reference day
  // (forecast.build_age_years; the page offers the builds forecast_catalog exports with their
  // ages); null: today's build. A runtime without a build drift refuses one, as Python does
  function buildAge(age, runtime) {
    if (age === null || age === undefined) return null;
    if (!CATALOG.forecast.drift_runtimes.includes(runtime)) {
      throw new Error(`build_age: only llama.cpp's forecast has a build drift, ${runtime
        ? `the runtime ${JSON.stringify(runtime)}` : "a forecast with no runtime named"} has none`);
    }
    if (!(typeof age === "number" && Number.isFinite(age) && age >= 0)) {
      throw new Error("build_age is in years and must be a non-negative number");
    }
    return age;
  }

  // forecast.forecast_caveat on the page, from what forecast.caveat_catalog exports: the same
  // templates, the pooled terms of each chip class and runtime, the kinds no row measured.
  // A list of sentences, each {template, args} (an argument may itself be a sentence; the
  // page's text is fillTemplate's, and a translated edition fills its own template); [] where
  // there is nothing to say. `prefill`: a time to first token is forecast too
  function forecastCaveat(chip, runtime, prefill) {
    const fc = CATALOG.forecast;
    const c = fc.caveat;
    const cls = chipClass(chip);
    const out = [];
    const byFit = runtime ? c.pooled[cls][runtime] : {};
    const fits = Object.keys(byFit).filter((f) => (f === "decode" || prefill)
      && byFit[f].length);
    if (fits.length) {
      const where = cls === "*" ? {template: c.templates.no_class, args: {}}
        : {template: c.templates.on_class, args: {label: c.labels[cls]}};
      const terms = [...new Set(fits.flatMap((f) => byFit[f].map((t) => c.symbols[t])))];
      out.push({template: c.templates.pooled, args: {runtime, fits: fits.join(" or "), where,
        terms: terms.join(", ")}});
    }
    if (chip && c.unmeasured_kinds.includes(chip.kind)) {
      out.push({template: c.templates.unmeasured, args: {kind: chip.kind,
        label: c.labels[cls]}});
    }
    return out;
  }

  // a template's {name} fields filled from args (Python's str.format for these templates); an
  // argument that is a sentence is filled first
  function fillTemplate(template, args) {
    return template.replace(/\{(\w+)\}/g, (whole, k) => {
      const v = args[k];
      return v !== null && typeof v === "object" ? fillTemplate(v.template, v.args) : String(v);
    });
  }

  // media.image_inputs on the page: `images` images of `size` ([width, height] px, one of
  // the page's menu, CATALOG.image_menu; default estimate's) in a prompt to m. The processors'
  // rules are Python's: the export gives the plan's inputs of one image of each size
  // (export.image_data), and N images are N times those the menu's `scaled` names, the others
  // as they are (the export checks both). A cross-attention model's images (Llama 3.2 Vision)
  // come the same way: the states its cross-attention layers read, their shapes and the
  // parameters a token reads with them are among those inputs. Returns the plan's inputs, the
  // prompt tokens the images add, the size, the tower's patches of one image and the key and
  // value projections of a cross-attention model's images (the menu's `reported`: not inputs).
  function imageInputs(m, images, size) {
    const menu = CATALOG.image_menu;
    if (images === null || images === undefined) {
      throw new Error("images must be given with image_size (how many images the prompt holds)");
    }
    const n = count("images", images);
    const [w, h] = size === null || size === undefined ? menu.default : size;
    const key = `${w}x${h}`;
    if (!m.images) {
      throw new Error(m.images_refused ?? `${m.name} has no vision tower: it takes no images`);
    }
    const one = m.images[key];
    if (!one) {
      throw new Error(`image_size: ${w} x ${h} px is not among the page's sizes (${
        menu.sizes.map(([a, b]) => `${a} x ${b}`).join(", ")})`);
    }
    const plan = {images: n};
    for (const [k, v] of Object.entries(one)) {
      if (!menu.reported.includes(k)) plan[k] = menu.scaled.includes(k) ? n * v : v;
    }
    return {plan, prompt_tokens: n * one.prompt_tokens, image_size: [w, h],
      vision_patches_per_image: one.vision_patches_per_image,
      cross_kv_flops: one.cross_kv_flops === undefined ? null : n * one.cross_kv_flops};
  }

  // estimate.vision_degrees, after the layers' degrees (parallel) and the draft, as Python
  // checks them: with images, a tp whose split of the vision tower vLLM refuses, or of a
  // cross-attention model's key/value heads (media.cross_inputs), gets Python's refusal,
  // exported for every degree the layers allow (export.images_tp_refused); no rule of the
  // tower is restated here.
  function visionDegrees(m, tp) {
    const refused = (m.images_tp_refused || {})[String(tp)];
    if (refused) throw new Error(refused);
  }

  // media.video_inputs on the page: a video of `seconds` (one of the page's clips,
  // CATALOG.video_menu, at its frame rate and size; those are estimate's defaults) in a prompt
  // to m. The processors' rules are Python's: the export gives the plan's inputs of each clip
  // (export.video_data), none scaled from another (Qwen3-VL's one pixel budget for the whole
  // clip makes its tokens no multiple of the length). Returns the plan's inputs, the prompt
  // tokens the video adds and the fields estimate() reports of it.
  function videoInputs(m, seconds, fps, size) {
    const menu = CATALOG.video_menu;
    if (seconds === null || seconds === undefined) {
      throw new Error("video_seconds must be given with video_fps or video_size (how long the "
        + "prompt's video is)");
    }
    if (!m.video) {
      throw new Error(`${m.name}: the page takes video for a model whose video rule is `
        + `modelled (${menu.families.join(", ")})`);
    }
    const rate = fps === null || fps === undefined ? menu.fps : fps;
    const [w, h] = size === null || size === undefined ? menu.size : size;
    const one = m.video[String(seconds)];
    if (!one || rate !== menu.fps || w !== menu.size[0] || h !== menu.size[1]) {
      throw new Error(`video: ${seconds} s at ${rate} fps, ${w} x ${h} px is not among the `
        + `page's clips (${menu.seconds.join(", ")} s at ${menu.fps} fps, ${menu.size[0]} x ${
          menu.size[1]} px)`);
    }
    const plan = {};
    for (const [k, v] of Object.entries(one)) {
      if (k !== "prompt_tokens" && !menu.reported.includes(k)) plan[k] = v;
    }
    const fields = {video_seconds: seconds, video_fps: rate, video_size: [w, h],
      video_tokens: one.video_tokens};
    for (const k of menu.reported) fields[k] = one[k];
    return {plan, prompt_tokens: one.prompt_tokens, fields};
  }

  // media.audio_inputs on the page: `seconds` of audio (one of the page's clips,
  // CATALOG.audio_menu) in a prompt to m, from the plan's inputs the export gives per clip
  // (export.audio_data), with Python's warning where it warns (a clip past Qwen2.5-Omni's
  // 300 s, which its processor truncates)
  function audioInputs(m, seconds) {
    const menu = CATALOG.audio_menu;
    if (!m.audio) {
      throw new Error(`${m.name}: the page takes audio for a model whose audio encoder is `
        + `modelled (${menu.families.join(", ")})`);
    }
    const one = m.audio[String(seconds)];
    if (!one) {
      throw new Error(`audio_seconds: ${seconds} s is not among the page's clips (${
        menu.seconds.join(", ")} s)`);
    }
    const plan = Object.fromEntries(menu.plan.map((k) => [k, one[k]]));
    return {plan, prompt_tokens: one.prompt_tokens, warning: one.warning ?? null,
      fields: {audio_seconds: seconds, audio_frames: one.audio_frames,
        audio_tokens: one.audio_tokens}};
  }

  // media.prompt_with_images: the images', the video's and the audio's inputs, in Python's
  // order (its refusals too); where images and a video share the prompt, the tower's work over
  // both (the menu's `summed`) is added and the other inputs are the video's after the
  // images'. Null without any.
  function mediaInputs(m, o) {
    const given = (v) => v !== null && v !== undefined;
    const image = given(o.images) || given(o.image_size)
      ? imageInputs(m, o.images, o.image_size) : null;
    const video = given(o.video_seconds) || given(o.video_fps) || given(o.video_size)
      ? videoInputs(m, o.video_seconds, o.video_fps, o.video_size) : null;
    const audio = given(o.audio_seconds) ? audioInputs(m, o.audio_seconds) : null;
    if (!image && !video && !audio) return null;
    const plan = {...(image ? image.plan : {}), ...(video ? video.plan : {})};
    if (image && video) {
      for (const k of CATALOG.video_menu.summed) {
        if (k !== "prompt_tokens") plan[k] = image.plan[k] + video.plan[k];
      }
    }
    const tokens = (image ? image.prompt_tokens : 0) + (video ? video.prompt_tokens : 0)
      + (audio ? audio.prompt_tokens : 0);
    return {plan: {...plan, ...(audio ? audio.plan : {})}, prompt_tokens: tokens, image, video,
      audio, tower: !!(image || video)};
  }

  // estimate.audio_degrees, after the vision tower's (estimate.encoder_degrees): with audio, a
  // tp whose split of the audio encoder vLLM refuses gets Python's refusal
  // (export.audio_tp_refused)
  function audioDegrees(m, tp) {
    const refused = (m.audio_tp_refused || {})[String(tp)];
    if (refused) throw new Error(refused);
  }

  function evaluator(m, chip, opts) {
    let o = {weights: null, bits_kv: 16, context: 1, batch: 1, overhead: 0, tp: 1, ep: 1,
      pp: 1, prompt: null, generate: null, price_per_hour: null, power_watts: null,
      link_bandwidth: null, link_latency: null, overlap: true, allreduce: null,
      node_limit: null, dispatch_bits: null, runtime: null, images: null, image_size: null,
      video_seconds: null, video_fps: null, video_size: null, audio_seconds: null,
      build_age: null, ...opts};
    // media.prompt_with_images: the images', the video's and the audio's tokens join the
    // prompt's text tokens (0 where none given), for the draft's workload too; the tower's and
    // the audio encoder's inputs join the plan's
    const vision = mediaInputs(m, o);
    if (vision) {
      const text = o.prompt === null || o.prompt === undefined ? 0 : count("prompt", o.prompt);
      o = {...o, prompt: text + vision.prompt_tokens};
    }
    const context = count("context", o.context);
    const batch = count("batch", o.batch);
    const [tp, ep, pp] = parallel(m, o.tp, o.ep, o.pp);
    const prompt = o.prompt === null || o.prompt === undefined ? null : count("prompt", o.prompt);
    let generate = o.generate ?? null;
    if (generate !== null && generate !== 0) generate = count("generate", generate);
    const pricePerHour = servingNumber("price_per_hour", o.price_per_hour);
    const powerWatts = servingNumber("power_watts", o.power_watts);
    const linkBw = servingNumber("link_bandwidth", o.link_bandwidth);
    const linkLatency = o.link_latency === null || o.link_latency === undefined ? null
      : Number(o.link_latency);
    if (linkLatency !== null
        && !(Number.isFinite(linkLatency) && linkLatency >= 0 && linkLatency <= 1)) {
      throw new Error("link_latency is in seconds and must lie in [0, 1]");
    }
    const comm = commOptions(o);
    // layout.check_direct: direct all-reduces need a domain where every chip reaches every
    // other
    const topology = chip ? chip.interconnect.scale_up_topology : "";
    if (comm.allreduce_asked === "direct" && topology
        && !CATALOG.allreduce.fully_connected.includes(topology)) {
      throw new Error(`allreduce='direct' needs chips that all reach one another (a switch or a `
        + `full mesh); ${chip.name}'s scale-up domain is a ${topology}`);
    }
    const bwBits = o.weights === null || o.weights === undefined ? null : formatBits(o.weights);
    const kvBits = formatBits(o.bits_kv);
    const inputs = {...chipInputs(chip), context, batch, prompt, generate, overhead: o.overhead,
      tp, ep, pp, given_link_latency: linkLatency, ...comm, price_per_hour: pricePerHour,
      bits_weight: bwBits, weight_format: formatInput(o.weights), bits_kv: kvBits,
      bits_state: CATALOG.state_window_bits, given_bandwidth: o.bandwidth ?? null,
      given_peak_flops: o.peak_flops ?? null, given_capacity: o.capacity ?? null,
      given_power: powerWatts, given_link_bandwidth: linkBw,
      context_limit: LIMITS.context, crossing_limit: CATALOG.crossing_limit};
    const spec = speculative(m, chip, o);
    if (vision && vision.tower) visionDegrees(m, tp);
    if (vision && vision.audio) audioDegrees(m, tp);
    const fc = forecastInputs(chip, o.runtime);
    const age = buildAge(o.build_age, o.runtime);
    // the images', the video's and the audio's inputs, and the fields estimate() reports beside
    // the plan's (None without); Python's warning of a truncated clip, the page's own key
    const image = vision && vision.image;
    const seen = {images: image ? image.plan.images : null,
      image_size: image ? image.image_size : null,
      image_tokens_per_image: image ? image.plan.image_tokens_per_image : null,
      vision_patches_per_image: image ? image.vision_patches_per_image : null,
      vision_prefill_flops: vision && vision.tower ? vision.plan.vision_prefill_flops : null,
      // a cross-attention model's images: the states their layers read and those layers' key
      // and value projections (null, not 0, without such images, as estimate() reports them)
      image_states: image && image.plan.image_states ? image.plan.image_states : null,
      cross_kv_flops: image && image.plan.image_states ? image.cross_kv_flops : null,
      video_seconds: null, video_fps: null, video_size: null, video_tokens: null,
      ...Object.fromEntries(CATALOG.video_menu.reported.map((k) => [k, null])),
      ...(vision && vision.video ? vision.video.fields : {}),
      audio_seconds: null, audio_frames: null, audio_tokens: null, audio_prefill_flops: null,
      ...(vision && vision.audio ? {...vision.audio.fields,
        audio_prefill_flops: vision.audio.plan.audio_prefill_flops} : {}),
      audio_warning: vision && vision.audio ? vision.audio.warning : null};
    return [Plan.base(m).child({...inputs, ...spec, ...fc, build_age: age,
      ...(vision ? vision.plan : {})}),
      {context, batch, tp, ep, pp, prompt,
        generate, price_per_hour: pricePerHour, bits_kv: kvBits, node_limit: comm.node_limit,
        dispatch_bits: comm.dispatch_bits, runtime: o.runtime, draft_len: spec.draft_len,
        acceptance: spec.acceptance, draft_cost: spec.draft_cost,
        draft_layers: spec.draft_layers, ...seen}];
  }

  // the communication options as layout.comm_options checks them
  function commOptions(o) {
    if (typeof o.overlap !== "boolean") throw new Error("overlap must be true or false");
    const algorithms = CATALOG.allreduce.algorithms;
    if (o.allreduce !== null && o.allreduce !== undefined && !algorithms.includes(o.allreduce)) {
      throw new Error(`allreduce must be one of ${algorithms.join(", ")}`);
    }
    const nodeLimit = o.node_limit === null || o.node_limit === undefined ? null
      : count("node_limit", o.node_limit);
    return {overlap: o.overlap,
      allreduce_asked: o.allreduce ?? null,
      node_limit: nodeLimit,
      dispatch_bits: o.dispatch_bits === null || o.dispatch_bits === undefined ? null
        : formatBits(o.dispatch_bits)};
  }

  function estimate(m, chip, opts) {
    const [ev, given] = evaluator(m, chip, opts);
    const e = {model: m.name, hardware: chip ? chip.name : null, ...given,
      trained_context: m.trained_context};
    for (const [field, step] of Object.entries(CATALOG.field_steps)) e[field] = ev.get(step);
    // for the pages: the step's FLOPs, its arithmetic intensity and the rate it attains
    e.decode_step_flops = ev.get("decode_step_flops");
    e.step_intensity = e.decode_step_flops / e.decode_step_bytes;
    e.attained_flops = e.decode_seconds_per_token !== null
      ? e.decode_step_flops / e.decode_seconds_per_token : null;
    e.seq_bytes = ev.get("seq_bytes");
    // the images' keys and values one sequence caches (a cross-attention model's images)
    e.image_kv_bytes = given.image_states ? ev.get("image_kv_bytes") : null;
    // the forecast under the bounds (forecast.expected's keys), each with its 80% interval
    for (const key of EXPECTED_KEYS) {
      e[key] = ev.get(key);
      const lo = ev.get(`${key}_low`);
      e[`${key}_range`] = lo === null ? null : [lo, ev.get(`${key}_high`)];
    }
    // what the forecast's terms borrow (forecast.expected's forecast_caveat and
    // forecast_pooled_terms, the text as describe prints it)
    const ttft = e.ttft_seconds !== null && e.ttft_seconds !== undefined;
    e.forecast_caveat_sentences = forecastCaveat(chip, given.runtime ?? null, ttft);
    e.forecast_caveat = e.forecast_caveat_sentences.map((x) => fillTemplate(x.template, x.args))
      .join("; ") || null;
    return e;
  }

  // sweeps.frontier: for each batch, tokens/s per user and per chip and whether the
  // replica holds it; without batches, powers of two from 1 up to the first that does not
  // fit (included), or to 1024 when the chip's memory is unknown
  function frontier(m, chip, opts, batches) {
    const point = (b) => {
      const e = estimate(m, chip, {...opts, batch: b});
      return {batch: e.batch, tokens_per_second_per_user: e.tokens_per_second_per_user,
        tokens_per_second_per_chip: e.tokens_per_second_per_chip, tpot_seconds: e.tpot_seconds,
        fits: e.fits_per_chip, memory_per_chip_bytes: e.memory_per_chip_bytes,
        cost_per_million_tokens: e.cost_per_million_tokens,
        expected_tokens_per_second_per_chip_range: e.expected_tokens_per_second_per_chip_range,
        expected_tpot_seconds_range: e.expected_tpot_seconds_range,
        speculative_tpot_seconds: e.speculative_tpot_seconds,
        speculative_tokens_per_second_per_chip: e.speculative_tokens_per_second_per_chip,
        energy_joules_per_token: e.energy_joules_per_token};
    };
    if (batches) return batches.map(point);
    const points = [];
    for (let b = 1; b <= CATALOG.frontier_max_batch; b *= 2) {
      const p = point(b);
      points.push(p);
      if (p.fits === false || (p.fits === null && b >= 1024)) break;
    }
    return points;
  }

  // sweep() over batches at one context: the bytes, FLOPs and times of a decode step of each
  // batch (estimate.py's sweep, one chip and one format)
  function steps(m, chip, opts) {
    const o = {weights: null, bits_kv: 16, context: 1, batches: [1], ...opts};
    const kvBits = formatBits(o.bits_kv);
    const base = Plan.base(m).child({...chipInputs(chip), context: o.context,
      bits_weight: o.weights === null || o.weights === undefined ? null : formatBits(o.weights),
      weight_format: formatInput(o.weights), bits_kv: kvBits,
      bits_state: CATALOG.state_window_bits,
      given_bandwidth: o.bandwidth ?? null, given_peak_flops: o.peak_flops ?? null,
      given_capacity: null, overhead: 0});
    return o.batches.map((batch) => {
      const ev = base.child({batch});
      return {batch, step_bytes: ev.get("decode_step_bytes"),
        step_flops: ev.get("decode_step_flops"),
        memory_seconds: ev.get("decode_memory_seconds"),
        compute_seconds: ev.get("decode_compute_seconds"),
        seconds: ev.get("peak_seconds_per_token")};
    });
  }

  return {estimate, steps, frontier, computeChain, formatBits, tpAllowed, LIMITS, forecastCaveat,
    fillTemplate, imageInputs, videoInputs, audioInputs};
})();
