// The plan's interpreter in the browser: the twin of llm_arithmetic/plan/interpreter.py. It
// reads the same data (CATALOG.plan: the stack's forms, fields and terms, and the plan's
// steps, exported from plan/stack.py and plan/steps.py) and calls only the generated formulas
// of F. Nothing here knows a layer kind or a quantity: a new layer kind or step is data.
// tests/test_widgets.py checks that both interpreters agree on every catalog model.
const Plan = (function () {
  const P = CATALOG.plan;
  const STEPS = Object.fromEntries(P.steps.map((s) => [s.name, s]));
  const DEFAULT = {};
  const exactOnlyWhole = new Set(P.exact_only_whole);
  const params = (name) => F.FORMULAS[name].params;

  function call(name, args) {
    const fn = F[name];
    if (!fn) throw new Error(`no formula ${name}`);
    return fn(args);
  }

  // ---- the stack ----------------------------------------------------------------------------
  function condition(cond, raw) {
    if (cond === true) return true;
    const [op, field, n] = cond;
    const v = raw[field];
    if (op === "gt") return v !== null && v !== undefined && v > n;
    if (op === "set") return !!v;
    throw new Error(`unknown condition ${op}`);
  }

  function field(src, raw) {
    if (typeof src === "string") return raw[src] === undefined ? null : raw[src];
    const [op, f, x] = src;
    const v = raw[f];
    if (op === "flag") return v ? 1 : 0;
    if (op === "is") return v === x ? 1 : 0;
    if (op === "or") return v || x;
    if (op === "unless") return raw[x] ? 0 : v;
    throw new Error(`unknown field rule ${op}`);
  }

  const scopes = new WeakMap();
  function partScope(part, raw) {
    let scope = scopes.get(raw);
    if (scope) return scope;
    scope = {};
    for (const [name, src] of Object.entries(P.fields[part])) scope[name] = field(src, raw);
    for (const [selector, rules] of Object.entries(P.forms)) {
      if (rules[part]) scope[selector] = rules[part].find(([, c]) => condition(c, raw))[0];
    }
    scopes.set(raw, scope);
    return scope;
  }

  function partTerm(term, scope, lookup, cache) {
    if (term in cache) return cache[term];
    const spec = P.terms[term];
    const kase = spec.cases[scope[spec.by]];
    if (!kase) {
      // a term the form has but the library does not count: missing, never a silent 0
      if ((spec.missing || []).includes(scope[spec.by])) throw MISSING;
      cache[term] = null;
      return null;
    }
    const [formula, bindings] = kase;
    const bind = (src) => {
      if (typeof src !== "string") return src;
      if (src.startsWith("@")) return partTerm(src.slice(1), scope, lookup, cache);
      if (src in scope) return scope[src];
      return lookup(src, false);
    };
    let value;
    if (formula === "=") {
      value = bind(bindings.value);
    } else {
      const args = {};
      for (const p of params(formula)) {
        if (p in bindings) args[p] = bind(bindings[p]);
        else if (p in scope && scope[p] !== null) args[p] = scope[p];
        else {
          const v = lookup(p, true);
          if (v !== DEFAULT) args[p] = v;
        }
      }
      if (Object.values(args).some((v) => v === null || v === undefined)) throw MISSING;
      value = call(formula, args);
    }
    cache[term] = value;
    return value;
  }

  // a term's argument is missing (null): the sum it is part of is missing too
  const MISSING = {missing: true};

  function fold(blocks, term, lookup, parts, mean, where) {
    let total = 0;
    let weight = 0;
    for (const [count, block] of blocks) {
      // where: only the blocks carrying that key ("!key": only those without), as Python's
      if (where && where.startsWith("!") === (where.replace(/^!/, "") in block)) continue;
      for (const part of P.parts) {
        const raw = block[part];
        if (!raw || (parts && !parts.includes(part))) continue;
        let v;
        try {
          v = partTerm(term, partScope(part, raw), lookup, {});
        } catch (err) {
          if (err === MISSING) return mean ? MISSING : null;
          throw err;
        }
        if (v === null) continue;
        total += count * v;
        weight += count;
      }
    }
    if (!mean) return total;
    return weight === 0 ? null : total / weight;
  }

  // ---- dependencies (which inputs and steps a name reads), as plan/interpreter.py ------------
  const refs = (v) => (typeof v === "string" ? [v] : []);
  const FIELD_NAMES = new Set(Object.values(P.fields).flatMap((f) => Object.keys(f)));

  function termDeps(term, overrides, seen, out) {
    if (seen.has(term)) return;
    seen.add(term);
    for (const [formula, bindings] of Object.values(P.terms[term].cases)) {
      const names = formula === "=" ? ["value"] : params(formula);
      for (const p of names) {
        const src = p in bindings ? bindings[p] : p;
        if (typeof src !== "string") continue;
        if (src.startsWith("@")) termDeps(src.slice(1), overrides, seen, out);
        else if (src in overrides) refs(overrides[src]).forEach((r) => out.add(r));
        else if (!FIELD_NAMES.has(src)) out.add(src);
      }
    }
  }

  function stepRefs(step) {
    const out = new Set();
    const add = (xs) => xs.forEach((x) => refs(x).forEach((r) => out.add(r)));
    let hidden = new Set();
    let targets = new Set();
    if ("if" in step) add([step.if, step.else]);
    switch (step.op) {
      case "formula": {
        const args = step.args || {};
        add(params(step.formula).map((p) => (p in args ? args[p] : p)));
        break;
      }
      case "sum": case "mean":
        termDeps(step.term, step.args || {}, new Set(), out);
        out.add("blocks");
        add([step.empty, ...(step.plus || []), ...(step.minus || [])]);
        break;
      case "add": add([...(step.plus || []), ...(step.minus || [])]); break;
      case "mul": case "div": case "first": case "gt": case "le": add(step.of); break;
      case "finite": case "among": add([step.of]); break;
      case "choose": add([step.when, step.then, step.otherwise]); break;
      case "at":
        add([step.target, ...Object.values(step.with)]);
        hidden = new Set(Object.keys(step.with));
        targets = new Set([step.target]);
        break;
      case "chain": add([step.format, step.bits, step.vendor]); break;
      case "precision": add([step.chain, step.peaks, step.unless]); break;
      case "rate": add([step.peaks, step.precision]); break;
      case "link": add([step.interconnect, ...step.chips]); break;
      case "field": add([step.of]); break;
      case "solve": {
        const keys = step.solver === "largest" ? ["value"] : ["rises", "falls"];
        add([...keys.map((k) => step[k]), step.budget, step.limit]);
        hidden = new Set([step.var]);
        targets = new Set(keys.map((k) => step[k]));
        break;
      }
      default: throw new Error(`unknown op ${step.op}`);
    }
    return [out, hidden, targets];
  }

  const memo = {};
  function dependencies(name) {
    if (name in memo) return memo[name];
    const step = STEPS[name];
    if (!step) return (memo[name] = new Set([name]));
    memo[name] = new Set();
    const [rs, hidden, targets] = stepRefs(step);
    const out = new Set();
    for (const r of rs) {
      for (const d of [...dependencies(r), r]) if (!(targets.has(r) && hidden.has(d))) out.add(d);
    }
    return (memo[name] = out);
  }

  // ---- the plan -----------------------------------------------------------------------------
  class Evaluator {
    constructor(inputs, parent) {
      this.values = {...inputs};
      this.parent = parent || null;
      this.changed = parent ? new Set(Object.keys(inputs)) : new Set();
    }

    child(changes) { return new Evaluator(changes, this); }

    get(name, allowDefault) {
      if (name in this.values) return this.values[name];
      if (this.parent) {
        let free = true;
        for (const d of dependencies(name)) if (this.changed.has(d)) { free = false; break; }
        if (free) return this.parent.get(name, allowDefault);
      }
      const step = STEPS[name];
      if (!step) {
        if (allowDefault) return DEFAULT;
        throw new Error(`the plan has no input or step named ${name}`);
      }
      const v = this.guarded(step);
      this.values[name] = v;
      return v;
    }

    ref(src) {
      if (typeof src === "string") return this.get(src, false);
      if (src !== null && typeof src === "object") return src.inf ? Infinity : src.literal;
      return src === undefined ? null : src;
    }

    guarded(step) {
      if ("if" in step) {
        const c = this.get(step.if, false);
        if (c === null || c === false || c === 0) return this.ref(step.else);
      }
      return OPS[step.op](this, step);
    }
  }

  const isNull = (v) => v === null || v === undefined;
  function lookupFor(ev, overrides) {
    return (name, allowDefault) => (name in overrides ? ev.ref(overrides[name])
      : ev.get(name, allowDefault));
  }
  function addTerms(ev, value, step) {
    for (const x of step.plus || []) {
      const v = ev.ref(x);
      if (isNull(v)) return null;
      value += v;
    }
    for (const x of step.minus || []) {
      const v = ev.ref(x);
      if (isNull(v)) return null;
      value -= v;
    }
    return value;
  }

  const SOLVERS = {
    largest(ev, step) {
      const limit = ev.ref(step.limit);
      const budget = ev.ref(step.budget);
      if (isNull(budget)) return null;
      const fits = (x) => ev.child({[step.var]: x}).get(step.value) <= budget;
      // a missing value: missing too
      if (isNull(ev.child({[step.var]: 0}).get(step.value))) return null;
      if (!fits(0)) return 0;
      if (fits(limit)) return null;
      let lo = 0;
      let hi = limit;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (fits(mid)) lo = mid; else hi = mid;
      }
      return lo;
    },
    crossing(ev, step) {
      const limit = ev.ref(step.limit);
      const gap = (x) => {
        const c = ev.child({[step.var]: x});
        return c.get(step.rises) - c.get(step.falls);
      };
      const first = ev.child({[step.var]: 1});
      if (isNull(first.get(step.rises)) || isNull(first.get(step.falls))) return null;
      let lo = 0;
      let hi = 1;
      while (gap(hi) < 0) {
        lo = hi;
        hi *= 2;
        if (hi > limit) return null;
      }
      for (let i = 0; i < 60; i++) {
        const mid = (lo + hi) / 2;
        if (gap(mid) < 0) lo = mid; else hi = mid;
      }
      return hi;
    },
  };

  const OPS = {
    formula(ev, step) {
      const bindings = step.args || {};
      const args = {};
      for (const p of params(step.formula)) {
        const v = p in bindings ? ev.ref(bindings[p]) : ev.get(p, true);
        if (v === DEFAULT) continue;
        if (isNull(v)) return null;
        args[p] = v;
      }
      return call(step.formula, args);
    },
    sum(ev, step) {
      const v = fold(ev.get("blocks"), step.term, lookupFor(ev, step.args || {}), step.parts,
        false, step.where);
      return v === null ? null : addTerms(ev, v, step);
    },
    mean(ev, step) {
      const v = fold(ev.get("blocks"), step.term, lookupFor(ev, step.args || {}), step.parts,
        true, step.where);
      if (v === MISSING) return null;
      return v === null ? ev.ref(step.empty) : v;
    },
    add: (ev, step) => addTerms(ev, 0, step),
    mul(ev, step) {
      let out = 1;
      for (const x of step.of) {
        const v = ev.ref(x);
        if (isNull(v)) return null;
        out *= v;
      }
      return out;
    },
    div(ev, step) {
      const a = ev.ref(step.of[0]);
      const b = ev.ref(step.of[1]);
      return isNull(a) || isNull(b) ? null : a / b;
    },
    first(ev, step) {
      for (const x of step.of) {
        const v = ev.ref(x);
        if (!isNull(v)) return v;
      }
      return null;
    },
    choose: (ev, step) => ev.ref(ev.ref(step.when) ? step.then : step.otherwise),
    gt(ev, step) {
      const a = ev.ref(step.of[0]);
      const b = ev.ref(step.of[1]);
      return !isNull(a) && !isNull(b) && a > b;
    },
    le(ev, step) {
      const a = ev.ref(step.of[0]);
      const b = ev.ref(step.of[1]);
      return isNull(a) || isNull(b) ? null : a <= b;
    },
    among(ev, step) {
      const v = ev.ref(step.of);
      return !isNull(v) && step.values.includes(v);
    },
    finite(ev, step) {
      const v = ev.ref(step.of);
      if (isNull(v) || v === Infinity) return null;
      return step.integer ? Math.trunc(v) : v;
    },
    at(ev, step) {
      const changes = {};
      for (const [k, v] of Object.entries(step.with)) {
        changes[k] = ev.ref(v);
        if (isNull(changes[k])) return null;
      }
      // nothing changes: the value at hand
      if (Object.entries(changes).every(([k, v]) => ev.get(k, true) === v)) {
        return ev.get(step.target);
      }
      return ev.child(changes).get(step.target);
    },
    chain(ev, step) {
      const fmt = ev.ref(step.format);
      const bits = ev.ref(step.bits);
      const vendor = ev.ref(step.vendor);
      const chain = [];
      if (fmt) {
        // a format whose kernels run at `compute` only on some vendors' chips: on a chip of
        // another (vendor given, "" for a chip that names none) it starts at its fallback
        const vendors = fmt.compute_vendors;
        if (!vendors || !vendors.length || isNull(vendor) || vendors.includes(vendor)) {
          chain.push(fmt.compute);
        }
        if (fmt.compute_fallback) chain.push(fmt.compute_fallback);
      } else if (!isNull(bits) && bits >= step.wide_bits) {
        chain.push(step.wide);
      }
      for (const p of step.fallbacks) if (!chain.includes(p)) chain.push(p);
      return chain;
    },
    precision(ev, step) {
      const chain = ev.ref(step.chain);
      const peaks = ev.ref(step.peaks);
      if (!peaks) return chain[0];
      const p = chain.find((q) => q in peaks);
      if (!p) {  // the chip lists none of them: the chain's first fallback names the rate
        const fb = chain.find((q) => (step.fallbacks || []).includes(q));
        return fb === undefined ? chain[0] : fb;
      }
      const faster = step.faster[p];
      if (isNull(ev.ref(step.unless)) && faster && faster in peaks) return faster;
      return p;
    },
    rate(ev, step) {
      const peaks = ev.ref(step.peaks);
      const p = ev.ref(step.precision);
      return peaks && p in peaks ? peaks[p].rate : null;
    },
    link(ev, step) {
      const ic = ev.ref(step.interconnect);
      if (!ic) return null;
      const n = Math.max(...step.chips.map((x) => ev.ref(x)));
      const domain = Math.max(ic.scale_up_domain || 0, 1);
      if (n <= domain && ic.scale_up_bandwidth) return ic.scale_up_bandwidth;
      if (n <= domain && ic.pcie_bandwidth) return ic.pcie_bandwidth;
      return ic.scale_out_bandwidth || ic.pcie_bandwidth || null;
    },
    field(ev, step) {
      const record = ev.ref(step.of);
      if (!record) return null;
      const v = record[step.key];
      return v === undefined || v === null || v === "" ? null : v;
    },
    solve: (ev, step) => SOLVERS[step.solver](ev, step),
  };

  // ---- a model record as the plan reads it --------------------------------------------------
  // (count, parts) for each distinct block of runs, counts summed over the runs: the plan's
  // blocks (model.stack_blocks), of a stack or of a multi-token-prediction module
  function blocksOf(runs) {
    const groups = new Map();
    for (const run of runs) {
      const parts = {};
      for (const part of ["attention", "mixer", "mlp"]) if (run[part]) parts[part] = run[part];
      // hyper-connections (DeepSeek-V4's residual streams) count with the norms
      parts.norms = run.hc ? {norms: run.norms, hc: run.hc} : {norms: run.norms};
      // a low-rank residual beside the block (Gemma 3n's LAuReL) marks it with the norms too
      if (run.laurel) parts.norms.laurel = run.laurel;
      // not a part: the blocks a prefill runs for its last token only (model.Layers.parts)
      if (run.prefill_last) parts.prefill = {last: 1};
      const key = JSON.stringify([run.attention, run.mixer, run.mlp, run.norms, run.hc || 0,
        run.prefill_last || false, run.laurel || 0]);
      if (groups.has(key)) groups.get(key)[0] += run.count;
      else groups.set(key, [run.count, parts]);
    }
    return [...groups.values()];
  }

  const models = new WeakMap();
  function modelInputs(m) {
    let inputs = models.get(m);
    if (inputs) return inputs;
    const moe = m.layers.filter((r) => r.mlp && r.mlp.n_experts > 1);
    const ks = new Set(moe.map((r) => r.mlp.top_k));
    const dflt = m.native_bits.default;
    inputs = {
      blocks: blocksOf(m.layers), n_vocab: m.n_vocab, d_model: m.d_model, tied: m.tied ? 1 : 0,
      n_positions: m.n_positions, norm_vecs_final: m.norm_vecs_final,
      head_bias: m.head_bias ? 1 : 0,
      extras_in_total: (m.extras || []).filter((x) => x.in_total)
        .reduce((a, x) => a + x.params, 0),
      // parts outside the stack that every token runs (DeepSeek-V4's hyper-connection head)
      extras_read: (m.extras || []).filter((x) => x.read).reduce((a, x) => a + x.params, 0),
      extras_matmul: (m.extras || []).filter((x) => x.read)
        .reduce((a, x) => a + (x.matmul || 0), 0),
      // parts outside the stack every chip of a tensor-parallel group holds whole
      // (DeepSeek-V4's hyper-connection head and hash-routing tables)
      extras_copied: (m.extras || []).filter((x) => x.copied)
        .reduce((a, x) => a + x.params, 0),
      d_ple: m.d_ple || 0, n_vocab_ple: m.n_vocab_ple || 0,
      altup_num_inputs: m.altup_num_inputs || 0,
      native_format: m.native_format || null,
      native_bits_default: dflt,
      native_bits_experts: m.native_bits.experts !== undefined ? m.native_bits.experts : dflt,
      native_bits_unread: m.native_bits.unread !== undefined ? m.native_bits.unread : dflt,
      // a multi-token-prediction module's own bits, where its checkpoint's names are modelled
      // (null: the target's)
      native_bits_draft: m.native_bits.draft !== undefined ? m.native_bits.draft : null,
      native_bits_draft_experts: m.native_bits.draft_experts !== undefined
        ? m.native_bits.draft_experts : null,
      native_bits_draft_inputs: m.native_bits.draft_inputs !== undefined
        ? m.native_bits.draft_inputs : null,
      native_bits_draft_blocks: m.native_bits.draft_blocks !== undefined
        ? m.native_bits.draft_blocks : null,
      // the output head a module step shares, at the bits the checkpoint stores it in; the
      // format a module step multiplies in where the checkpoint keeps the module unquantized
      // (null: the model's)
      native_bits_head: m.native_bits.head !== undefined ? m.native_bits.head : null,
      native_format_draft: m.draft_format || null,
      // the bits of what tensor parallelism copies, class by class, where the checkpoint's
      // are modelled (null: the bits of every weight but the experts')
      ...Object.fromEntries(["heads", "matrices", "router", "plain"].map((k) => [
        `native_bits_copy_${k}`, m.native_bits[`copy_${k}`] !== undefined
          ? m.native_bits[`copy_${k}`] : null])),
      // the same for a multi-token-prediction module's blocks (null: the model's)
      ...Object.fromEntries(["heads", "matrices", "router", "plain"].map((k) => [
        `native_bits_draft_copy_${k}`, m.native_bits[`draft_copy_${k}`] !== undefined
          ? m.native_bits[`draft_copy_${k}`] : null])),
      is_moe: moe.length > 0, n_active_experts: ks.size === 1 ? [...ks][0] : (moe.length ? null : 1),
      bits_weight: null, bits_kv: 16, bits_state: 16, bits_ssm: null, context: 1, batch: 1,
      prompt: null,
      draft_len: null, acceptance: null, draft_cost: null, draft_layers: null,
      draft_step_blocks: null, module_copied_params: null,
      // a module step's own bits and inputs (set by the plan's `at` steps, never by a caller)
      own_bits_blocks: null, own_bits_experts: null, own_inputs_read: null, own_bits_inputs: null,
      own_bits_head: null,
      // what a draft holds beside the target (calculator.js gives a draft model's or an MTP
      // module's, as estimate.speculative_inputs does; a draft given by its cost holds none)
      draft_weight_bytes: null, draft_params: null, draft_embedding_params: null,
      draft_head_params: null, draft_blocks: null, draft_d_model: null, draft_final_norm_params: null,
      draft_bits_default: null,
      forecast_decode: null,
      forecast_prefill: null,
      forecast_prefill_int8: null,
      // the llama.cpp build's age in years (forecast.build_age_years; null: today's build)
      build_age: null,
      // images in the prompt (media.image_inputs; null: none. Estimate.imageInputs gives
      // them from the exported inputs of the menu's sizes, export.image_data)
      images: null, image_tokens_per_image: null, vision_prefill_flops: null, vision_params: null,
      vision_patches: null, d_vision: null, vision_layers: null, vision_mergers: null,
      vision_split_params: null, vision_whole_flops: null,
      // a video's tokens (media.video_inputs; null: none. Estimate.videoInputs gives them
      // with the tower's inputs from the exported inputs of the menu's clips, export.video_data)
      video_tokens: null,
      // a cross-attention model's images (estimate.cross_image_inputs; null: none.
      // Estimate.imageInputs gives them, with extras_read and extras_matmul, from
      // export.image_data)
      image_states: null, cross_layers: null, cross_heads: null, cross_kv_heads: null,
      cross_d_head: null,
      // audio in the prompt (media.audio_inputs; null: none. Estimate.audioInputs gives
      // them from the exported inputs of the menu's clips, export.audio_data)
      audio_params: null, audio_prefill_flops: null, audio_rows: null, d_audio: null,
      audio_layers: null, audio_split_params: null, audio_whole_flops: null,
    };
    models.set(m, inputs);
    return inputs;
  }

  const bases = new WeakMap();
  // The plan for a model at its default inputs; what does not depend on the workload is kept.
  function base(m) {
    let ev = bases.get(m);
    if (!ev) {
      ev = new Evaluator(modelInputs(m), null);
      bases.set(m, ev);
    }
    return ev;
  }

  function evaluate(m, name, inputs) { return base(m).child(inputs || {}).get(name); }

  return {Evaluator, evaluate, base, modelInputs, blocksOf, fold, partScope, partTerm, dependencies,
    STEPS, exactOnlyWhole};
})();
