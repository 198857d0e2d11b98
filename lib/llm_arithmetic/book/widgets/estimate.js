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

  // m: a model object; chip: a catalog chip, or null with opts.bandwidth / peak_flops /
  // capacity; opts.weights: a format name or null (as shipped); opts.bits_kv: a format name or
  // bits; opts.context, opts.batch, opts.overhead.
  function estimate(m, chip, opts) {
    const o = {weights: null, bits_kv: 16, context: 1, batch: 1, overhead: 0, ...opts};
    const context = count("context", o.context);
    const batch = count("batch", o.batch);
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
    };
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

  return {estimate, steps, computeChain, formatBits, LIMITS};
})();
