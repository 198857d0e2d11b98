// estimate() in the browser: llm_arithmetic.estimate's orchestration (estimate.py), step for
// step, on the Stack sums and the generated formulas of F. The fields keep the Python names.
const Estimate = (function () {
  const LIMITS = CATALOG.limits;

  function formatBits(fmt) {
    // bits per weight of a named format (case-insensitive) or of a number (formats.py)
    if (typeof fmt === "number") return fmt;
    const f = CATALOG.formats[String(fmt).trim().toLowerCase()];
    if (f) return f.bits;
    const x = Number(fmt);
    if (String(fmt).trim() !== "" && Number.isFinite(x)) return x;
    throw new Error(`unknown weight format ${JSON.stringify(fmt)}`);
  }

  function computeChain(weightFormat, bits) {
    // precisions to try for the peak rate, in order (formats.compute_chain)
    const chain = [];
    const f = weightFormat ? CATALOG.formats[String(weightFormat).trim().toLowerCase()] : null;
    if (f) {
      chain.push(f.compute);
      if (f.compute_fallback) chain.push(f.compute_fallback);
    } else if (bits !== null && bits !== undefined && bits >= 32) {
      chain.push("fp32");
    }
    for (const p of ["fp16", "fp32"]) if (!chain.includes(p)) chain.push(p);
    return chain;
  }

  function maxContext(m, capacity, weights, batch, bitsKv, overhead) {
    // largest S whose cache fits beside the weights, by bisection (estimate._max_context)
    const free = capacity - overhead - weights - batch * Stack.stateBytes(m, bitsKv);
    const fits = (s) => Stack.kvCacheBytes(m, s, batch, bitsKv) <= free;
    if (!fits(0)) return 0;
    if (fits(LIMITS.context)) return null;
    let lo = 0;
    let hi = LIMITS.context;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (fits(mid)) lo = mid; else hi = mid;
    }
    return lo;
  }

  function criticalBatch(m, bitsW, seqBytes, seqFlops, bandwidth, peakFlops) {
    // estimate._critical_batch: the formula, or for a mixture of experts its defining equation
    // (memory time = compute time) solved by bisection
    const w1 = Stack.stepWeightBytes(m, bitsW, 1);
    const crit = F.critical_batch({weight_bytes: w1, seq_bytes: seqBytes, seq_flops: seqFlops,
      bandwidth, peak_flops: peakFlops});
    if (crit === Infinity) return null;
    if (!Stack.isMoE(m)) return crit;
    const gap = (b) => {
      const w = Stack.stepWeightBytes(m, bitsW, b);
      const tMem = F.batched_step_bytes({weight_bytes: w, seq_bytes: seqBytes, batch: b})
        / bandwidth;
      const tCmp = F.batched_step_flops({seq_flops: seqFlops, batch: b}) / peakFlops;
      return tCmp - tMem;
    };
    let lo = 0;
    let hi = 1;
    while (gap(hi) < 0) {
      lo = hi;
      hi *= 2;
      if (hi > 1e12) return null;
    }
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (gap(mid) < 0) lo = mid; else hi = mid;
    }
    return hi;
  }

  function count(label, v) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label} must be a positive integer`);
    if (v > LIMITS[label]) throw new Error(`${label} is beyond the limit ${LIMITS[label]}`);
    return v;
  }

  function servingNumber(label, v) {
    // estimate._serving_number: a positive figure within its plausible range, or null
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
    // estimate._parallel: degrees the model's heads, layers and experts allow
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

  function linkBandwidth(ic, nChips) {
    // Interconnect.link_bandwidth: the slowest link a group of nChips uses [B/s]
    const domain = Math.max(ic.scale_up_domain || 0, 1);
    if (nChips <= domain && ic.scale_up_bandwidth) return ic.scale_up_bandwidth;
    if (nChips <= domain && ic.pcie_bandwidth) return ic.pcie_bandwidth;
    return ic.scale_out_bandwidth || ic.pcie_bandwidth || null;
  }

  function decodeStep(m, bitsW, kvBits, context, batch, p) {
    // estimate._decode_step: TPOT of a batch on tp x pp chips and the all-reduce and
    // all-to-all times inside it, [tpot, allreduce, alltoall]
    const {tp, ep, pp, bandwidth, peak, linkBw, linkLatency} = p;
    const microN = Math.min(batch, pp);
    const micro = microN > 1 ? batch / microN : batch;
    const wStep = Stack.stepWeightBytes(m, bitsW, micro);
    const seqBytes = Stack.seqBytes(m, context, kvBits, kvBits);
    const seqFlops = Stack.decodeFlopsPerToken(m, context);
    const stageBytes = F.batched_step_bytes({weight_bytes: wStep, seq_bytes: seqBytes,
      batch: micro}) / pp;
    const stageFlops = F.batched_step_flops({seq_flops: seqFlops, batch: micro}) / pp;
    let allreduce = tp === 1 && ep === 1 ? 0 : null;
    let alltoall = allreduce;
    let comm = 0;
    if (tp > 1 || ep > 1) {
      if (linkBw !== null) {
        const moeLayers = ep > 1 ? Stack.nMoELayers(m) : 0;
        allreduce = tp > 1 ? F.decode_allreduce_time({n_layers: Stack.nLayers(m),
          n_ep_layers: moeLayers, batch: micro, d_model: m.d_model, tp, link_bandwidth: linkBw,
          link_latency: linkLatency}) : 0;
        alltoall = 0;
        if (moeLayers) {
          alltoall = F.decode_alltoall_time({n_ep_layers: moeLayers, batch: micro / ep,
            d_model: m.d_model, n_active_experts: Stack.nActiveExperts(m), ep,
            link_bandwidth: linkBw, link_latency: linkLatency});
        }
        comm = (allreduce + alltoall) / pp;  // the stage's share, once per microbatch
      }
    }
    const tStage = F.tp_step_time({step_bytes: stageBytes, step_flops: stageFlops, tp,
      bandwidth, peak_flops: peak !== null ? peak : Infinity, comm_time: comm});
    return [F.pipeline_time({stage_time: tStage, pp, microbatches: 1}), allreduce, alltoall];
  }

  // m: a model object; chip: a catalog chip, or null with opts.bandwidth / peak_flops /
  // capacity; opts.weights: a format name or null (as shipped); opts.bits_kv: a format name or
  // bits; opts.context, opts.batch, opts.overhead; serving (a replica of tp x pp chips):
  // opts.tp, ep, pp, prompt, generate, price_per_hour, power_watts, link_bandwidth,
  // link_latency, as estimate()'s keywords.
  function estimate(m, chip, opts) {
    const o = {weights: null, bits_kv: 16, context: 1, batch: 1, overhead: 0, tp: 1, ep: 1,
      pp: 1, prompt: null, generate: null, price_per_hour: null, power_watts: null,
      link_bandwidth: null, link_latency: 0, ...opts};
    const context = count("context", o.context);
    const batch = count("batch", o.batch);
    const [tp, ep, pp] = parallel(m, o.tp, o.ep, o.pp);
    const nChips = tp * pp;
    const prompt = o.prompt === null || o.prompt === undefined ? null : count("prompt", o.prompt);
    let generate = o.generate ?? null;
    if (generate !== null && generate !== 0) generate = count("generate", generate);
    const pricePerHour = servingNumber("price_per_hour", o.price_per_hour);
    let powerWatts = servingNumber("power_watts", o.power_watts);
    let linkBw = servingNumber("link_bandwidth", o.link_bandwidth);
    const linkLatency = Number(o.link_latency);
    if (!(Number.isFinite(linkLatency) && linkLatency >= 0 && linkLatency <= 1)) {
      throw new Error("link_latency is in seconds and must lie in [0, 1]");
    }
    const g = generate !== null ? generate : 0;
    const bwBits = o.weights === null || o.weights === undefined ? null : formatBits(o.weights);
    const kvBits = formatBits(o.bits_kv);
    let bandwidth = o.bandwidth ?? null;
    let peakFlops = o.peak_flops ?? null;
    let capacity = o.capacity ?? null;
    const chain = computeChain(o.weights, bwBits !== null ? bwBits : 16);
    let precision = chain[0];
    if (chip) {
      if (bandwidth === null) bandwidth = chip.bandwidth;
      if (capacity === null) capacity = chip.capacity;
      if (peakFlops === null) {
        for (const p of chain) {
          if (p in chip.peaks) {
            peakFlops = chip.peaks[p].rate;
            precision = p;
            break;
          }
        }
      }
      if (powerWatts === null) powerWatts = chip.power ?? null;
      if (linkBw === null && Math.max(tp, ep) > 1) {
        linkBw = linkBandwidth(chip.interconnect, Math.max(tp, ep));
      }
    }
    const wTotal = Stack.weightBytes(m, bwBits);
    const pTotal = Stack.totalParams(m);
    const seqBytes = Stack.seqBytes(m, context, kvBits, kvBits);
    const wRead1 = Stack.stepWeightBytes(m, bwBits, 1);
    const wStep = Stack.stepWeightBytes(m, bwBits, batch);
    const stepBytes = F.batched_step_bytes({weight_bytes: wStep, seq_bytes: seqBytes, batch});
    const seqFlops = Stack.decodeFlopsPerToken(m, context);
    const stepFlops = F.batched_step_flops({seq_flops: seqFlops, batch});
    const kvStored = Stack.kvCacheBytes(m, context, batch, kvBits);
    const state = Stack.stateBytes(m, kvBits) * batch;

    let memS = null, compS = null, stepS = null, tps = null, thr = null, opb = null,
      crit = null, bound = null;
    if (bandwidth !== null) {
      memS = stepBytes / bandwidth;
      stepS = memS;
      bound = "memory";
    }
    if (peakFlops !== null) compS = stepFlops / peakFlops;
    if (bandwidth !== null && peakFlops !== null) {
      stepS = F.roofline_time({step_bytes: stepBytes, step_flops: stepFlops, bandwidth,
        peak_flops: peakFlops});
      bound = compS > memS ? "compute" : "memory";
      opb = F.ops_per_byte({peak_flops: peakFlops, bandwidth});
      crit = criticalBatch(m, bwBits, seqBytes, seqFlops, bandwidth, peakFlops);
    }
    if (stepS !== null) {
      tps = 1 / stepS;
      thr = batch / stepS;
    }
    const required = wTotal + kvStored + state + o.overhead;
    let fits = null, mb = null, mc = null;
    if (capacity !== null) {
      fits = required <= capacity;
      const perSeq = Stack.kvCacheBytes(m, context, 1, kvBits) + Stack.stateBytes(m, kvBits);
      mb = F.max_sequences({capacity, weight_bytes: wTotal, seq_bytes: perSeq,
        overhead: o.overhead});
      if (mb === Infinity) mb = null;
      mc = maxContext(m, capacity, wTotal, batch, kvBits, o.overhead);
    }

    // ---- serving: a replica of tp x pp chips ----------------------------------------------
    let servingContext = context;
    let finalContext = context;
    if (prompt !== null) {
      servingContext = F.mean_decode_context({prompt, generated: g});
      finalContext = prompt + g;
    }
    const kvFinal = Stack.kvCacheBytes(m, finalContext, batch, kvBits) + state;
    const memChip = F.memory_per_chip({weight_bytes: wTotal, kv_cache: kvFinal,
      n_chips: nChips}) + o.overhead;
    let fitsChip = null, mbRep = null;
    if (capacity !== null) {
      fitsChip = memChip <= capacity;
      const perSeqFinal = Stack.kvCacheBytes(m, finalContext, 1, kvBits)
        + Stack.stateBytes(m, kvBits);
      mbRep = F.max_sequences({capacity: nChips * capacity, weight_bytes: wTotal,
        seq_bytes: perSeqFinal, overhead: nChips * o.overhead});
      if (mbRep === Infinity) mbRep = null;
    }
    let ttft = null, tpot = null, req = null, perUser = null, perChip = null, cost = null,
      energy = null, allreduce = null, alltoall = null;
    if (bandwidth !== null) {
      [tpot, allreduce, alltoall] = decodeStep(m, bwBits, kvBits, servingContext, batch,
        {tp, ep, pp, bandwidth, peak: peakFlops, linkBw, linkLatency});
      if (prompt !== null) {
        let comm = 0;
        if (tp > 1 && linkBw !== null) {
          comm = F.tp_comm_time({n_layers: Stack.nLayers(m), batch: prompt, d_model: m.d_model,
            tp, link_bandwidth: linkBw, link_latency: linkLatency});
        }
        const kvPrompt = Stack.kvCacheBytes(m, prompt, 1, kvBits);
        ttft = F.time_to_first_token({weight_bytes: Stack.stepWeightBytes(m, bwBits, prompt),
          kv_bytes_token: kvPrompt / prompt, prefill_flops: Stack.prefillFlops(m, prompt),
          prompt, n_chips: tp, bandwidth,
          peak_flops: peakFlops !== null ? peakFlops : Infinity, comm_time: comm});
        if (generate !== null) req = F.request_time({ttft, tpot, generated: generate});
      }
      perUser = F.tokens_per_user({tpot});
      perChip = F.tokens_per_chip({batch, tpot, n_chips: nChips});
      const replicaRate = perChip * nChips;
      if (pricePerHour !== null) {
        cost = F.cost_per_million_tokens({price_per_hour: pricePerHour, n_chips: nChips,
          tokens_per_second: replicaRate});
      }
      if (powerWatts !== null) {
        energy = F.energy_per_token({power: powerWatts, n_chips: nChips,
          tokens_per_second: replicaRate});
      }
    }
    return {
      model: m.name, hardware: chip ? chip.name : null, bits_weight: wTotal * 8 / pTotal,
      bits_kv: kvBits, context, attended_context: Stack.attendedContext(m, context), batch,
      experts_read: Stack.expertsRead(m, batch), bandwidth, peak_flops: peakFlops,
      compute_precision: precision, capacity, params_total: pTotal,
      params_language_model: Stack.languageModelParams(m), params_active: Stack.activeParams(m),
      params_matmul: Stack.matmulParams(m), params_read_per_token: Stack.decodeReadParams(m),
      weight_bytes: wTotal, kv_cache_bytes_per_token: Stack.kvBytesPerToken(m, kvBits),
      kv_cache_bytes: kvStored,
      kv_cache_bytes_full_storage: Stack.kvCacheBytesFullStorage(m, context, batch, kvBits),
      state_bytes: state,
      decode_bytes_per_token: F.batched_step_bytes({weight_bytes: wRead1, seq_bytes: seqBytes,
        batch: 1}),
      decode_step_bytes: stepBytes, decode_flops_per_token: seqFlops,
      decode_step_flops: stepFlops, decode_memory_seconds: memS, decode_compute_seconds: compS,
      decode_seconds_per_token: stepS, decode_tokens_per_second: tps,
      throughput_tokens_per_second: thr, bound, ops_per_byte: opb, critical_batch_size: crit,
      memory_required_bytes: required, fits, max_batch: mb, max_context: mc,
      trained_context: m.trained_context,
      // for the pages: the step's arithmetic intensity (its FLOPs over its bytes) and the
      // rate it attains at the bound
      step_intensity: stepFlops / stepBytes,
      attained_flops: stepS !== null ? stepFlops / stepS : null,
      seq_bytes: seqBytes,
      tp, ep, pp, n_chips: nChips, prompt, generate, serving_context: servingContext,
      link_bandwidth: linkBw, link_latency: linkLatency, ttft_seconds: ttft, tpot_seconds: tpot,
      request_seconds: req, tokens_per_second_per_user: perUser,
      tokens_per_second_per_chip: perChip, cost_per_million_tokens: cost,
      energy_joules_per_token: energy, allreduce_seconds_per_token: allreduce,
      alltoall_seconds_per_token: alltoall, price_per_hour: pricePerHour,
      power_watts: powerWatts, memory_per_chip_bytes: memChip, fits_per_chip: fitsChip,
      max_batch_per_replica: mbRep,
    };
  }

  // estimate.frontier: for each batch, tokens/s per user and per chip and whether the
  // replica holds it; without batches, powers of two from 1 up to the first that does not
  // fit (included), or to 1024 when the chip's memory is unknown
  function frontier(m, chip, opts, batches) {
    const point = (b) => {
      const e = estimate(m, chip, {...opts, batch: b});
      return {batch: e.batch, tokens_per_second_per_user: e.tokens_per_second_per_user,
        tokens_per_second_per_chip: e.tokens_per_second_per_chip, tpot_seconds: e.tpot_seconds,
        fits: e.fits_per_chip, memory_per_chip_bytes: e.memory_per_chip_bytes,
        cost_per_million_tokens: e.cost_per_million_tokens,
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
    const bwBits = o.weights === null || o.weights === undefined ? null : formatBits(o.weights);
    const kvBits = formatBits(o.bits_kv);
    let bandwidth = o.bandwidth ?? null;
    let peakFlops = o.peak_flops ?? null;
    if (chip) {
      if (bandwidth === null) bandwidth = chip.bandwidth;
      if (peakFlops === null) {
        const p = computeChain(o.weights, bwBits !== null ? bwBits : 16)
          .find((q) => q in chip.peaks);
        peakFlops = p ? chip.peaks[p].rate : Infinity;
      }
    }
    if (peakFlops === null) peakFlops = Infinity;
    const seqBytes = Stack.seqBytes(m, o.context, kvBits, kvBits);
    const seqFlops = Stack.decodeFlopsPerToken(m, o.context);
    return o.batches.map((batch) => {
      const w = Stack.stepWeightBytes(m, bwBits, batch);
      const stepBytes = F.batched_step_bytes({weight_bytes: w, seq_bytes: seqBytes, batch});
      const stepFlops = F.batched_step_flops({seq_flops: seqFlops, batch});
      return {batch, step_bytes: stepBytes, step_flops: stepFlops,
        memory_seconds: stepBytes / bandwidth, compute_seconds: stepFlops / peakFlops,
        seconds: F.roofline_time({step_bytes: stepBytes, step_flops: stepFlops, bandwidth,
          peak_flops: peakFlops})};
    });
  }

  return {estimate, steps, frontier, computeChain, formatBits, linkBandwidth, tpAllowed, LIMITS};
})();
