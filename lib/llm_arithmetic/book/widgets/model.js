// A model record in the browser: building, editing and validating the layer stack (no
// arithmetic), and the stack's quantities by name, each one step of the plan that
// interpreter.js evaluates (the same steps llm_arithmetic.catalog.model.Model evaluates).
// A model is catalog.json's object: {n_vocab, d_model, tied, n_positions, head_bias,
// norm_vecs_final, native_bits, extras, layers: [{count, norms, attention, mixer, mlp, hc?}]}.
const Stack = (function () {
  const isMLA = (a) => a.kv_lora_rank > 0;
  const isMoE = (mlp) => mlp.n_experts > 1;
  const runsWith = (m, part) => m.layers.filter((run) => run[part]);
  const nLayers = (m) => Plan.evaluate(m, "n_layers");

  // the stack's quantities, as Model's methods of the same names
  const totalParams = (m) => Plan.evaluate(m, "total_params");
  const activeParams = (m) => Plan.evaluate(m, "active_params");
  const languageModelParams = (m) => Plan.evaluate(m, "language_model_params");
  const matmulParams = (m) => Plan.evaluate(m, "matmul_params");
  const decodeReadParams = (m) => Plan.evaluate(m, "decode_read_params");
  const embeddingParams = (m) => Plan.evaluate(m, "embedding_params");
  const unreadEmbeddingParams = (m) => Plan.evaluate(m, "unread_embedding_params");
  const expertParams = (m) => Plan.evaluate(m, "routed_params");
  const kvCacheBytesPerToken = (m, bitsKv) => Plan.evaluate(m, "kv_cache_bytes_per_token",
    {bits_kv: bitsKv});
  const stateBytes = (m, bitsState) => Plan.evaluate(m, "state_bytes", {bits_state: bitsState});
  const weightBytes = (m, bitsWeight) => Plan.evaluate(m, "weight_bytes",
    {bits_weight: bitsWeight ?? null});
  const attendedContext = (m, context) => Plan.evaluate(m, "attended_context", {context});
  const decodeFlopsPerToken = (m, context) => Plan.evaluate(m, "decode_flops", {context});
  const prefillFlops = (m, prompt) => Plan.evaluate(m, "prefill_flops", {prompt});
  const readParams = (m, batch) => Plan.evaluate(m, "read_params", {batch});
  const expertsRead = (m, batch) => Plan.evaluate(m, "experts_read", {batch});
  const stepWeightBytes = (m, bitsWeight, batch) => Plan.evaluate(m, "step_weight_bytes",
    {bits_weight: bitsWeight ?? null, batch});
  const kvCacheBytes = (m, context, batch, bitsKv) => Plan.evaluate(m, "kv_cache_bytes",
    {context, batch, bits_kv: bitsKv});
  const kvCacheBytesFullStorage = (m, context, batch, bitsKv) => Plan.evaluate(m,
    "kv_cache_bytes_full_storage", {context, batch, bits_kv: bitsKv});
  const seqBytes = (m, context, bitsKv, bitsState) => Plan.evaluate(m, "seq_bytes",
    {context, bits_kv: bitsKv, bits_state: bitsState});
  const isMoEModel = (m) => Plan.evaluate(m, "is_moe");
  const nMoELayers = (m) => Plan.evaluate(m, "n_moe_layers");
  // the routed experts of the MoE layers (1 for a dense model): a field of the record
  const nExperts = (m) => Math.max(1, ...runsWith(m, "mlp").map((run) => run.mlp.n_experts));
  // DeepSeek-V4's compressed attention (Model.has_compressed_attention: an attention with
  // output groups), whose attended rows are window tokens and compressed entries; the window
  // tokens a step attends to per attention layer, on average (cli.tables._attended_row)
  const hasCompressedAttention = (m) => runsWith(m, "attention").some(
    (run) => run.attention.o_groups > 0);
  function windowRows(m, context) {
    const runs = runsWith(m, "attention");
    const rows = runs.reduce((s, run) => s + run.count * Math.min(context,
      run.attention.window ?? context), 0);
    return rows / runs.reduce((s, run) => s + run.count, 0);
  }

  // where the bytes of one decode step of one sequence go (Model.decode_bytes_breakdown): the
  // parts' parameters from the stack's terms, their bytes from the generated formula
  function decodeBytesBreakdown(m, context, bitsWeight, bitsKv, bitsState = 16) {
    const ev = Plan.base(m).child({context, bits_weight: bitsWeight ?? null, bits_kv: bitsKv,
      bits_state: bitsState});
    const blocks = ev.get("blocks");
    const lookup = (name, allowDefault) => ev.get(name, allowDefault);
    const partSum = (term, part) => Plan.fold(blocks, term, lookup, [part], false);
    const dflt = ev.get("bits_default");
    const experts = ev.get("bits_experts");
    const attn = partSum("params", "attention");
    const mixers = partSum("params", "mixer");
    const mlp = partSum("active_params", "mlp");
    const expertUsed = ev.child({batch: 1}).get("expert_matrices_read");
    // per-layer embeddings: the one table row a step gathers, the projection and the gates
    const ple = ev.get("ple_params") - ev.get("unread_ple_params");
    const rest = ev.get("decode_read_params") - attn - mixers - mlp - ple;
    const wb = (n, b) => F.weight_bytes({n_params: n, bits_weight: b});
    const out = [
      ["attention weights", wb(attn, dflt)],
      ["state-space mixers", wb(mixers, dflt)],
      ["MLP and expert weights used", wb(mlp - expertUsed, dflt) + wb(expertUsed, experts)],
      ["per-layer embeddings: one table row, projections, gates", wb(ple, dflt)],
      ["head, embedding row, norms", wb(rest, dflt)],
      ["KV cache", ev.get("seq_kv_read")],
      ["state (read and written)", ev.get("seq_bytes") - ev.get("seq_kv_read")],
    ];
    return out.filter(([, v]) => v);
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

  return {nLayers, embeddingParams, languageModelParams, totalParams, expertParams,
    activeParams, matmulParams, unreadEmbeddingParams, decodeReadParams, isMoE: isMoEModel,
    nMoELayers, nExperts, expertsRead, readParams, weightBytes, stepWeightBytes, kvCacheBytesPerToken,
    kvCacheBytes, kvCacheBytesFullStorage, stateBytes, seqBytes, decodeBytesBreakdown,
    attendedContext, decodeFlopsPerToken, prefillFlops, transformer, withKvHeads, uniformHeads,
    validate, isMLA, hasCompressedAttention, windowRows};
})();
