// The layer stack in the browser: every stack-level count of catalog/model.py as a loop over the
// runs of blocks that calls only the generated per-layer formulas of F (formulas.js). No formula
// is written here: each function mirrors the method of the same name in catalog/model.py, and
// tests/test_widgets.py compares both for every catalog model at several contexts and batches.
// A model is catalog.json's object: {n_vocab, d_model, tied, n_positions, head_bias,
// norm_vecs_final, native_bits, extras, layers: [{count, norms, attention, mixer, mlp}]}.
const Stack = (function () {
  const flag = (b) => (b ? 1 : 0);
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);

  // ---- Attention ----------------------------------------------------------------------------
  const isMLA = (a) => a.kv_lora_rank > 0;

  function attentionParams(a, d) {
    if (isMLA(a)) {
      return F.mla_attention_params({d_model: d, n_heads: a.n_heads, q_lora_rank: a.q_lora_rank,
        kv_lora_rank: a.kv_lora_rank, d_nope: a.d_nope, d_rope: a.d_rope, d_v: a.d_v});
    }
    return F.attention_params({d_model: d, n_heads: a.n_heads, n_kv_heads: a.n_kv_heads,
      d_head: a.d_head, qkv_bias: flag(a.qkv_bias), o_bias: flag(a.o_bias),
      qk_norm: flag(a.qk_norm === "head"), qk_norm_full: flag(a.qk_norm === "full"),
      attn_sinks: flag(a.sinks)});
  }

  function attentionMatmulParams(a, d) {
    // MLA: every weight but the latents' norm vectors (Attention.matmul_params)
    if (isMLA(a)) return attentionParams(a, d) - (a.kv_lora_rank + a.q_lora_rank);
    return F.attention_params({d_model: d, n_heads: a.n_heads, n_kv_heads: a.n_kv_heads,
      d_head: a.d_head});
  }

  function attentionKvBytesPerToken(a, bitsKv) {
    if (isMLA(a)) {
      return F.mla_kv_layer_bytes({kv_lora_rank: a.kv_lora_rank, d_rope: a.d_rope,
        bits_kv: bitsKv});
    }
    return F.kv_layer_bytes({n_kv_heads: a.n_kv_heads, d_head: a.d_head, bits_kv: bitsKv});
  }

  function attentionTokens(a, context) {
    if (a.window) return F.window_tokens({context, window: a.window});
    if (a.chunk) return F.chunk_tokens({context, chunk: a.chunk});
    return context;
  }

  function attentionDecodeFlops(a, context) {
    const attended = attentionTokens(a, context);
    if (isMLA(a)) {
      return F.mla_decode_flops({n_heads: a.n_heads, kv_lora_rank: a.kv_lora_rank,
        d_rope: a.d_rope, attended});
    }
    return F.attention_decode_flops({n_heads: a.n_heads, d_head: a.d_head, attended});
  }

  function attentionPrefillFlops(a, prompt) {
    let pairs;
    if (a.window) pairs = F.window_pairs({prompt, window: a.window});
    else if (a.chunk) pairs = F.chunk_pairs({prompt, chunk: a.chunk});
    else pairs = F.causal_pairs({prompt});
    if (isMLA(a)) {
      return F.mla_prefill_flops({n_heads: a.n_heads, d_nope: a.d_nope, d_rope: a.d_rope,
        d_v: a.d_v, causal_pairs: pairs});
    }
    return F.attention_prefill_flops({n_heads: a.n_heads, d_head: a.d_head, causal_pairs: pairs});
  }

  // ---- MLP ------------------------------------------------------------------------------------
  const isMoE = (mlp) => mlp.n_experts > 1;
  const isDense = (mlp) => !isMoE(mlp) && !mlp.n_shared;

  function mlpKw(mlp, d) {
    return {d_model: d, d_ff: mlp.d_ff, n_experts: mlp.n_experts,
      n_shared_experts: mlp.n_shared, d_shared: mlp.d_shared || 1, n_mlp_mats: mlp.n_mats,
      mlp_bias: flag(mlp.bias), router_bias: flag(mlp.router_bias),
      shared_gate: flag(mlp.shared_gate)};
  }

  function mlpParams(mlp, d) {
    if (isDense(mlp)) {
      return F.mlp_params({d_model: d, d_ff: mlp.d_ff, n_mlp_mats: mlp.n_mats,
        mlp_bias: flag(mlp.bias)});
    }
    return F.moe_params(mlpKw(mlp, d));
  }

  function mlpActiveParams(mlp, d, experts) {
    if (isDense(mlp)) return mlpParams(mlp, d);
    const k = experts === undefined ? mlp.top_k : experts;
    return F.moe_active_params({...mlpKw(mlp, d), n_active_experts: k});
  }

  function expertParams(mlp, d) {
    return F.mlp_params({d_model: d, d_ff: mlp.d_ff, n_mlp_mats: mlp.n_mats,
      mlp_bias: flag(mlp.bias)});
  }

  function expertMatrixParams(mlp, d) {
    return F.mlp_params({d_model: d, d_ff: mlp.d_ff, n_mlp_mats: mlp.n_mats});
  }

  function mlpMatmulParams(mlp, d) {
    if (isDense(mlp)) return F.mlp_params({d_model: d, d_ff: mlp.d_ff, n_mlp_mats: mlp.n_mats});
    const kw = {...mlpKw(mlp, d), mlp_bias: 0, router_bias: 0, shared_gate: 0};
    // the shared experts' gate, a d-vector, multiplies too (MLP.matmul_params)
    return F.moe_active_params({...kw, n_active_experts: mlp.top_k})
      + F.moe_active_params({...kw, n_active_experts: 0, n_experts: 1, n_shared_experts: 0,
        shared_gate: flag(mlp.shared_gate)});
  }

  // ---- Mamba-2 --------------------------------------------------------------------------------
  function mixerKw(x) {
    return {d_inner: x.d_inner, d_state: x.d_state, n_groups: x.n_groups,
      n_ssm_heads: x.n_heads, d_conv: x.d_conv};
  }
  const mixerParams = (x, d) => F.mamba2_params({d_model: d, conv_bias: flag(x.conv_bias),
    ssm_bias: flag(x.bias), ...mixerKw(x)});
  // Mamba2.matmul_params is no registered formula: catalog.json carries its value
  const mixerMatmulParams = (x) => x.matmul_params;
  const mixerStateBytes = (x, bits) => F.mamba2_state_bytes({d_inner: x.d_inner,
    d_state: x.d_state, n_groups: x.n_groups, d_conv: x.d_conv, bits_state: bits});
  const mixerDecodeFlops = (x) => F.mamba2_decode_flops({d_inner: x.d_inner, d_state: x.d_state,
    n_groups: x.n_groups, d_conv: x.d_conv});

  // ---- a run of blocks ------------------------------------------------------------------------
  function runParams(run, d) {
    let total = run.norms * d;
    if (run.attention) total += attentionParams(run.attention, d);
    if (run.mixer) total += mixerParams(run.mixer, d);
    if (run.mlp) total += mlpParams(run.mlp, d);
    return total;
  }

  const runsWith = (m, part) => m.layers.filter((run) => run[part]);
  const nLayers = (m) => sum(m.layers.map((run) => run.count));

  // ---- the model ------------------------------------------------------------------------------
  // The embeddings, final norm and head with no block: the uniform-decoder formulas at L = 0.
  function noBlocks(m) {
    return {n_vocab: m.n_vocab, d_model: m.d_model, n_layers: 0, n_heads: 1, n_kv_heads: 1,
      d_head: 1, d_ff: 1, tied: flag(m.tied), n_positions: m.n_positions,
      norm_vecs_final: m.norm_vecs_final, head_bias: flag(m.head_bias)};
  }

  function embeddingParams(m) {
    return F.embedding_params({n_vocab: m.n_vocab, d_model: m.d_model, tied: flag(m.tied),
      n_positions: m.n_positions, norm_vecs_final: m.norm_vecs_final,
      head_bias: flag(m.head_bias)});
  }

  function languageModelParams(m) {
    return embeddingParams(m) + sum(m.layers.map((run) => run.count * runParams(run, m.d_model)));
  }

  function totalParams(m) {
    return languageModelParams(m) + sum(m.extras.filter((x) => x.in_total).map((x) => x.params));
  }

  // experts: null (every expert) or a function of the MLP giving how many per block
  function expertsParams(m, experts, matrices) {
    let total = 0;
    for (const run of runsWith(m, "mlp")) {
      if (!isMoE(run.mlp)) continue;
      const e = experts === null ? run.mlp.n_experts : experts(run.mlp);
      const per = matrices ? expertMatrixParams(run.mlp, m.d_model)
        : expertParams(run.mlp, m.d_model);
      total += run.count * e * per;
    }
    return total;
  }

  const expertParamsAll = (m) => expertsParams(m, null, false);

  function activeParams(m) {
    return languageModelParams(m) - expertParamsAll(m)
      + expertsParams(m, (mlp) => mlp.top_k, false);
  }

  function matmulParams(m) {
    // the output head: the uniform formula's P_mm with no blocks
    let total = F.matmul_params(noBlocks(m));
    for (const run of m.layers) {
      let per = 0;
      if (run.attention) per += attentionMatmulParams(run.attention, m.d_model);
      if (run.mixer) per += mixerMatmulParams(run.mixer);
      if (run.mlp) per += mlpMatmulParams(run.mlp, m.d_model);
      total += run.count * per;
    }
    return total;
  }

  function unreadEmbeddingParams(m) {
    // what a decode step does not read of the embeddings: the uniform formulas' difference
    // between the parameters used and those read, with no blocks
    const u = noBlocks(m);
    return F.active_params(u) - F.decode_read_params(u);
  }

  const decodeReadParams = (m) => activeParams(m) - unreadEmbeddingParams(m);
  const isMoEModel = (m) => m.layers.some((run) => run.mlp && isMoE(run.mlp));

  function uniformMoE(m, attr) {
    const values = new Set(runsWith(m, "mlp").filter((run) => isMoE(run.mlp))
      .map((run) => run.mlp[attr]));
    if (values.size > 1) throw new Error(`${m.name}: its MoE layers differ in ${attr}`);
    return values.size ? [...values][0] : 1;
  }

  const expertsReadAt = (n, k, batch) => (batch === 1 ? k
    : F.experts_read({n_experts: n, n_active_experts: k, batch}));

  function expertsRead(m, batch) {
    if (!isMoEModel(m)) return 1;
    return expertsReadAt(uniformMoE(m, "n_experts"), uniformMoE(m, "top_k"), batch);
  }

  function readParams(m, batch) {
    if (!isMoEModel(m) || batch === 1) return decodeReadParams(m);
    const touched = expertsParams(m, (mlp) => expertsReadAt(mlp.n_experts, mlp.top_k, batch),
      false);
    return languageModelParams(m) - expertParamsAll(m) + touched - unreadEmbeddingParams(m);
  }

  function bitsFor(m, bitsWeight, part) {
    if (bitsWeight !== null && bitsWeight !== undefined) return bitsWeight;
    return part in m.native_bits ? m.native_bits[part] : m.native_bits.default;
  }

  function weightBytes(m, bitsWeight) {
    const experts = expertsParams(m, null, true);
    return F.weight_bytes({n_params: totalParams(m) - experts,
      bits_weight: bitsFor(m, bitsWeight, "default")})
      + F.weight_bytes({n_params: experts, bits_weight: bitsFor(m, bitsWeight, "experts")});
  }

  function stepWeightBytes(m, bitsWeight, batch) {
    const read = readParams(m, batch);
    if (!isMoEModel(m)) {
      return F.weight_bytes({n_params: read, bits_weight: bitsFor(m, bitsWeight, "default")});
    }
    const experts = batch === 1 ? expertsParams(m, (mlp) => mlp.top_k, true)
      : expertsParams(m, (mlp) => expertsReadAt(mlp.n_experts, mlp.top_k, batch), true);
    return F.weight_bytes({n_params: read - experts,
      bits_weight: bitsFor(m, bitsWeight, "default")})
      + F.weight_bytes({n_params: experts, bits_weight: bitsFor(m, bitsWeight, "experts")});
  }

  function kvBytesPerToken(m, bitsKv) {
    return sum(runsWith(m, "attention").map((run) =>
      run.count * attentionKvBytesPerToken(run.attention, bitsKv)));
  }

  function kvCacheBytes(m, context, batch, bitsKv) {
    const perSeq = sum(runsWith(m, "attention").map((run) => run.count
      * attentionKvBytesPerToken(run.attention, bitsKv) * attentionTokens(run.attention, context)));
    return perSeq * batch;
  }

  const kvCacheBytesFullStorage = (m, context, batch, bitsKv) =>
    kvBytesPerToken(m, bitsKv) * context * batch;

  function stateBytes(m, bitsState) {
    return sum(runsWith(m, "mixer").map((run) => run.count * mixerStateBytes(run.mixer,
      bitsState)));
  }

  // the cache a step reads, and the state-space layers' state, read and written back
  const seqBytes = (m, context, bitsKv, bitsState) =>
    kvCacheBytes(m, context, 1, bitsKv) + 2 * stateBytes(m, bitsState);

  function decodeBytesBreakdown(m, context, bitsWeight, bitsKv) {
    const d = m.d_model;
    const dflt = bitsFor(m, bitsWeight, "default");
    const experts = bitsFor(m, bitsWeight, "experts");
    const attn = sum(runsWith(m, "attention").map((run) =>
      run.count * attentionParams(run.attention, d)));
    const mixers = sum(runsWith(m, "mixer").map((run) => run.count * mixerParams(run.mixer, d)));
    const expertUsed = expertsParams(m, (mlp) => mlp.top_k, true);
    const mlp = sum(runsWith(m, "mlp").map((run) => run.count * mlpActiveParams(run.mlp, d)));
    const rest = decodeReadParams(m) - attn - mixers - mlp;
    const out = [
      ["attention weights", F.weight_bytes({n_params: attn, bits_weight: dflt})],
      ["state-space mixers", F.weight_bytes({n_params: mixers, bits_weight: dflt})],
      ["MLP and expert weights used",
        F.weight_bytes({n_params: mlp - expertUsed, bits_weight: dflt})
        + F.weight_bytes({n_params: expertUsed, bits_weight: experts})],
      ["head, embedding row, norms", F.weight_bytes({n_params: rest, bits_weight: dflt})],
      ["KV cache", kvCacheBytes(m, context, 1, bitsKv)],
      ["state (read and written)", 2 * stateBytes(m, bitsKv)],
    ];
    return out.filter(([, v]) => v);
  }

  function attendedContext(m, context) {
    const runs = runsWith(m, "attention");
    const count = sum(runs.map((run) => run.count));
    return sum(runs.map((run) => run.count * attentionTokens(run.attention, context))) / count;
  }

  function decodeFlopsPerToken(m, context) {
    // two FLOPs per matrix weight: the uniform formula with no attention layer
    let total = F.decode_flops_per_token({matmul_params: matmulParams(m), n_layers: 0,
      n_heads: 1, d_head: 1, context});
    for (const run of m.layers) {
      if (run.attention) total += run.count * attentionDecodeFlops(run.attention, context);
      if (run.mixer) total += run.count * mixerDecodeFlops(run.mixer);
    }
    return total;
  }

  function prefillFlops(m, prompt) {
    let total = F.prefill_flops({matmul_params: matmulParams(m), n_layers: 0, n_heads: 1,
      d_head: 1, prompt});
    for (const run of m.layers) {
      if (run.attention) total += run.count * attentionPrefillFlops(run.attention, prompt);
      if (run.mixer) total += run.count * mixerDecodeFlops(run.mixer) * prompt;
    }
    return total;
  }

  // ---- building and editing stacks (no arithmetic) ----------------------------------------------
  // Model.transformer: a decoder whose blocks are alike, n_window_layers of them windowed
  function transformer(a) {
    const mlp = {d_ff: a.d_ff, n_mats: a.n_mlp_mats || 3, bias: !!a.mlp_bias,
      n_experts: a.n_experts || 1, top_k: a.n_active_experts || 1, n_shared: 0, d_shared: 0,
      router_bias: false, shared_gate: false};
    const run = (count, window) => ({count, norms: a.norm_vecs_layer ?? 2, mixer: null, mlp,
      attention: {n_heads: a.n_heads, n_kv_heads: a.n_kv_heads, d_head: a.d_head,
        window: window || null, chunk: null, qkv_bias: !!a.qkv_bias, o_bias: !!a.o_bias,
        qk_norm: "", sinks: false, kv_lora_rank: 0, q_lora_rank: 0, d_nope: 0, d_rope: 0,
        d_v: 0}});
    const nWin = a.n_window_layers || 0;
    const layers = nWin ? [run(nWin, a.sliding_window)] : [];
    if (a.n_layers > nWin) layers.push(run(a.n_layers - nWin, null));
    return {name: a.name || "custom", label: a.label || a.name || "custom model", family: "",
      n_vocab: a.n_vocab, d_model: a.d_model, tied: !!a.tied, n_positions: a.n_positions || 0,
      head_bias: !!a.head_bias, norm_vecs_final: a.norm_vecs_final ?? 1,
      trained_context: a.trained_context || null, native_bits: {default: 16}, extras: [],
      layers};
  }

  // Model.with_(n_kv_heads=...): every (non-latent) attention layer with n_kv_heads
  function withKvHeads(m, nKvHeads) {
    return {...m, layers: m.layers.map((run) => (run.attention && !isMLA(run.attention)
      ? {...run, attention: {...run.attention, n_kv_heads: nKvHeads}} : run))};
  }

  // the query heads that every (non-latent) attention layer shares, or null
  function uniformHeads(m) {
    const heads = new Set(runsWith(m, "attention").filter((run) => !isMLA(run.attention))
      .map((run) => run.attention.n_heads));
    const kv = new Set(runsWith(m, "attention").filter((run) => !isMLA(run.attention))
      .map((run) => run.attention.n_kv_heads));
    if (heads.size !== 1 || kv.size !== 1) return null;
    return {n_heads: [...heads][0], n_kv_heads: [...kv][0]};
  }

  function validate(m) {
    const problems = [];
    const pos = (name, v, min = 1) => {
      if (!Number.isInteger(v) || v < min) {
        problems.push(`${name} must be ${min ? "a positive" : "a non-negative"} integer`);
      }
    };
    pos("n_vocab", m.n_vocab);
    pos("d_model", m.d_model);
    for (const run of m.layers) {
      pos("n_layers", run.count);
      if (run.attention) {
        const a = run.attention;
        pos("n_heads", a.n_heads);
        pos("n_kv_heads", a.n_kv_heads);
        pos("d_head", a.d_head);
        if (problems.length === 0 && a.n_heads % a.n_kv_heads) {
          problems.push(`n_kv_heads (${a.n_kv_heads}) does not divide n_heads (${a.n_heads})`);
        }
      }
      if (run.mlp) {
        pos("d_ff", run.mlp.d_ff);
        pos("n_experts", run.mlp.n_experts);
        pos("n_active_experts", run.mlp.top_k);
        if (run.mlp.top_k > run.mlp.n_experts) {
          problems.push(`n_active_experts (${run.mlp.top_k}) exceeds n_experts ` +
            `(${run.mlp.n_experts})`);
        }
      }
    }
    return [...new Set(problems)];
  }

  function describe(m) {
    const kinds = new Set();
    for (const run of m.layers) {
      if (run.attention) {
        const a = run.attention;
        let k = isMLA(a) ? "MLA" : a.n_kv_heads === a.n_heads ? "MHA"
          : a.n_kv_heads === 1 ? "MQA" : "GQA";
        if (a.window) k += " sliding";
        if (a.chunk) k += " chunked";
        kinds.add(k);
      }
      if (run.mixer) kinds.add("Mamba-2");
      if (run.mlp && isMoE(run.mlp)) kinds.add("MoE");
    }
    return [...kinds].join(", ");
  }

  return {attentionParams, attentionMatmulParams, attentionKvBytesPerToken, attentionTokens,
    attentionDecodeFlops, attentionPrefillFlops, mlpParams, mlpActiveParams, mlpMatmulParams,
    expertParams, expertMatrixParams, runParams, nLayers, embeddingParams,
    languageModelParams, totalParams, expertsParams, activeParams, matmulParams,
    unreadEmbeddingParams, decodeReadParams, isMoE: isMoEModel, expertsRead, readParams,
    weightBytes, stepWeightBytes, kvBytesPerToken, kvCacheBytes, kvCacheBytesFullStorage,
    stateBytes, seqBytes, decodeBytesBreakdown, attendedContext, decodeFlopsPerToken,
    prefillFlops, transformer, withKvHeads, uniformHeads, validate, describe, isMLA};
})();
