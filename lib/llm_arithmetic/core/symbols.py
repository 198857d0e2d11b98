"""Every symbol of the book, defined once: one name, one meaning, one LaTeX form, one unit.

Each entry carries sympy assumptions, the LaTeX the book prints, a description and a unit
(``"1"`` for a pure count). Formula arguments and left-hand sides are glossary names
(:func:`llm_arithmetic.core.registry.formula` refuses any other), so the glossary page of the
book, generated from :data:`GLOSSARY`, lists every symbol any formula uses, whatever module was
imported first. Symbols of the source articles' own formulas are here too, in their own group.

>>> from llm_arithmetic.core.symbols import GLOSSARY, d_model
>>> d_model
d_{model}
>>> GLOSSARY["bandwidth"].unit, GLOSSARY["bandwidth"].latex
('B/s', '\\\\beta_{mem}')
>>> len({info.latex for info in GLOSSARY.values()}) == len(GLOSSARY)   # one symbol, one meaning
True
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import sympy as sp

__all__ = ["SymbolInfo", "GLOSSARY", "GROUPS"]


@dataclass(frozen=True)
class SymbolInfo:
    """What the glossary says about one symbol."""

    name: str  #: keyword in the numeric functions, attribute of this module
    symbol: sp.Symbol
    description: str
    unit: str  #: "1" for a pure count, otherwise a unit such as "B/s"
    group: str  #: section of the glossary page

    @property
    def latex(self) -> str:
        return sp.latex(self.symbol)


_GLOSSARY: dict[str, SymbolInfo] = {}
_PRINTED: dict[str, str] = {}  #: LaTeX -> name: no two symbols print alike
#: The glossary's sections, in page order.
GROUPS: tuple[str, ...] = (
    "architecture", "attention kinds", "mixture of experts", "state-space layers",
    "precision", "workload", "hardware", "parallelism and serving", "quantities",
    "source articles",
)
_group = "architecture"

_INT = {"positive": True, "integer": True}
_NONNEG = {"nonnegative": True, "integer": True}
_REAL = {"positive": True, "real": True}
_NONNEG_REAL = {"nonnegative": True, "real": True}
_RAT = {"positive": True, "rational": True}


def _sym(name: str, latex: str, description: str, unit: str = "1",
         assumptions: dict | None = None) -> sp.Symbol:
    if name in _GLOSSARY:
        raise ValueError(f"symbol {name!r} defined twice")
    if latex in _PRINTED:
        raise ValueError(f"{name!r} and {_PRINTED[latex]!r} would both print as {latex!r}")
    s = sp.Symbol(latex, **(assumptions or _INT))
    if sp.latex(s) != latex:  # sympy would print it differently: keep the LaTeX one-to-one
        raise ValueError(f"{name!r}: sympy prints {latex!r} as {sp.latex(s)!r}")
    _GLOSSARY[name] = SymbolInfo(name, s, description, unit, _group)
    _PRINTED[latex] = name
    return s


# --- architecture --------------------------------------------------------------------------
n_vocab = _sym("n_vocab", "V", "vocabulary size (rows of the embedding table)")
d_model = _sym("d_model", "d_{model}", "hidden size (width of the residual stream)")
n_layers = _sym("n_layers", "L", "number of transformer blocks")
d_ple = _sym("d_ple", "d_{PLE}", "width of one block's per-layer input embedding (Gemma 4 E2B/E4B, Gemma 3n; 0: none)", assumptions=_NONNEG)
n_vocab_ple = _sym("n_vocab_ple", "V_{PLE}", "rows of the per-layer input embedding table",
                   assumptions=_NONNEG)
n_heads = _sym("n_heads", "H", "attention (query) heads per layer")
n_kv_heads = _sym("n_kv_heads", "H_{kv}", "key/value heads per layer (= H for MHA, 1 for MQA)")
d_head = _sym("d_head", "d_{head}", "width of one attention head")
d_ff = _sym("d_ff", "d_{ff}", "hidden width of a dense MLP, or of one routed expert")
n_mlp_mats = _sym("n_mlp_mats", "m",
                  "weight matrices per MLP: 2 (up, down) or 3 (gate, up, down; gated)")
tied = _sym("tied", r"\delta_{tie}", "1 if the output head reuses the input embedding matrix, else 0",
            assumptions=_NONNEG)
n_positions = _sym("n_positions", "N_{pos}",
                   "rows of a learned position-embedding table (0 with rotary embeddings)",
                   assumptions=_NONNEG)
qkv_bias = _sym("qkv_bias", r"\delta_{qkv}", "1 if the q, k, v projections have biases",
                assumptions=_NONNEG)
o_bias = _sym("o_bias", r"\delta_{o}", "1 if the attention output projection has a bias",
              assumptions=_NONNEG)
mlp_bias = _sym("mlp_bias", r"\delta_{mlp}", "1 if the MLP matrices have biases",
                assumptions=_NONNEG)
head_bias = _sym("head_bias", r"\delta_{head}",
                 "1 if the output head has a bias (one per vocabulary entry)",
                 assumptions=_NONNEG)
norm_vecs_layer = _sym("norm_vecs_layer", r"\nu_{L}",
                       "normalization weight vectors of width d per block (RMSNorm: 1 each, "
                       "LayerNorm with bias: 2 each; sandwich norms count four)",
                       assumptions=_NONNEG)
hc_streams = _sym("hc_streams", "n_{hc}", "residual streams of a hyper-connected stack (DeepSeek-V4: "
                  "4), mixed by a learned projection before and after each sub-block; 0 for one "
                  "plain residual stream", assumptions=_NONNEG)
norm_vecs_final = _sym("norm_vecs_final", r"\nu_{f}",
                       "normalization weight vectors of width d after the last block",
                       assumptions=_NONNEG)

# --- attention kinds -----------------------------------------------------------------------
_group = "attention kinds"
window = _sym("window", "S_{w}", "sliding-window length of a windowed attention layer", "token")
n_window_layers = _sym("n_window_layers", "L_{w}",
                       "blocks whose attention sees only the last S_w tokens", assumptions=_NONNEG)
chunk = _sym("chunk", "S_{c}", "chunk length of chunked attention (a token attends to the "
             "earlier tokens of its own chunk)", "token")
qk_norm = _sym("qk_norm", r"\delta_{qkn}", "1 if queries and keys are normalized per head "
               "(one weight vector of width d_head each for q and k)", assumptions=_NONNEG)
qk_norm_full = _sym("qk_norm_full", r"\delta_{qkn,f}", "1 if queries and keys are normalized "
                    "over the whole projection (weights of width H d_head and H_kv d_head)",
                    assumptions=_NONNEG)
reuse_k_norm = _sym("reuse_k_norm", r"\delta_{kn,r}", "1 if a block that reads an earlier "
                    "layer's keys and values normalizes those keys with a key norm of its own "
                    "(one weight vector of width d_head; Hunyuan's cross-layer attention)",
                    assumptions=_NONNEG)
qk_norm_split = _sym("qk_norm_split", r"\delta_{qkn,s}", "1 if an engine splits whole-projection "
                     "query/key norms with the heads under tensor parallelism (vLLM's MiniMax-M2), "
                     "0 if every chip holds them whole (OLMo 2, OLMo 3, OLMoE)",
                     assumptions=_NONNEG)
d_gate = _sym("d_gate", "d_{g}", "width of an attention block's output gate per head: d_head "
              "(a gate per channel, Qwen3-Next and Qwen3.5; d_v on Kimi K3's gated latent "
              "attention), 1 (a gate per head, Laguna), 0 without one", assumptions=_NONNEG)
attn_sinks = _sym("attn_sinks", r"\delta_{sink}",
                  "1 if every head has a learned attention-sink logit", assumptions=_NONNEG)
diff_attn = _sym("diff_attn", r"\delta_{diff}",
                 "1 if the attention is differential (SambaY): heads in pairs, each pair's two "
                 "score maps weigh both heads' values and are subtracted; four lambda vectors "
                 "and a sub-norm of 2 d_head per block", assumptions=_NONNEG)
q_lora_rank = _sym("q_lora_rank", "r_{q}",
                   "rank of the low-rank query projection of latent attention (0: full rank)",
                   assumptions=_NONNEG)
kv_lora_rank = _sym("kv_lora_rank", "r_{kv}",
                    "width of the compressed key-value latent of latent attention (MLA)")
d_nope = _sym("d_nope", "d_{nope}", "query/key head width without rotary embedding (MLA)")
d_rope = _sym("d_rope", "d_{rope}", "query/key head width with rotary embedding, shared by the "
              "heads for keys (MLA)")
d_v = _sym("d_v", "d_{v}", "value head width (MLA; grouped-query attention whose values are "
           "narrower than its keys; the value heads of a Gated DeltaNet mixer)")
index_heads = _sym("index_heads", "H_{I}", "query heads of a sparse-attention indexer (DeepSeek "
                   "Sparse Attention)")
index_dim = _sym("index_dim", "d_{I}", "head width of a sparse-attention indexer; each token "
                 "caches one indexer key of this width per layer")
index_topk = _sym("index_topk", "S_{top}", "cached positions a sparse-attention layer selects "
                  "and reads for each query (top-k)", "token", assumptions=_NONNEG)
o_lora_rank = _sym("o_lora_rank", "r_{o}", "rank each group of heads is projected to by a grouped "
                   "low-rank output projection (DeepSeek-V4)")
o_groups = _sym("o_groups", "g_{o}", "groups of heads whose outputs are projected separately "
                "before one shared projection to d (DeepSeek-V4)")
compress_ratio = _sym("compress_ratio", "m_{c}", "source tokens per compressed cache entry of a "
                      "compressed-attention layer (DeepSeek-V4: 4 or 128; 0 for a layer with only "
                      "its window)", assumptions=_NONNEG)
compress_overlap = _sym("compress_overlap", "c_{o}", "series a compressor projects each token "
                        "to: 2 for overlapping windows (DeepSeek-V4's CSA), 1 for disjoint ones "
                        "(HCA), 0 without a compressor", assumptions=_NONNEG)
attended = _sym("attended", "S_{a}",
                "cached positions one attention layer reads for the token being decoded",
                "token", assumptions=_NONNEG)
mla_queries = _sym("mla_queries", "q", "queries that share one up-projection of the cached "
                   "latents (MLA): one per sequence in a decode step, a chunk's tokens in a "
                   "prefill")
mla_breakeven = _sym("mla_breakeven", "q^{*}", "queries per up-projection at which absorbed and "
                     "up-projected latent attention (MLA) cost the same FLOPs per cached position",
                     "1", _REAL)

# --- mixture of experts --------------------------------------------------------------------
_group = "mixture of experts"
n_experts = _sym("n_experts", "E", "routed experts per MoE block (1 for a dense MLP)")
n_active_experts = _sym("n_active_experts", "k", "routed experts used per token (top-k)")
n_shared_experts = _sym("n_shared_experts", "E_{s}",
                        "shared experts per MoE block (every token uses them)",
                        assumptions=_NONNEG)
d_shared = _sym("d_shared", "d_{s}", "hidden width of one shared expert")
router_bias = _sym("router_bias", r"\delta_{r}",
                   "1 if the router carries a bias vector of E entries (a linear bias, or "
                   "DeepSeek-V3's score-correction bias)", assumptions=_NONNEG)
d_latent = _sym("d_latent", "d_{lat}", "width the routed experts of a latent mixture of experts "
                "work in, between a d x d_lat down- and a d_lat x d up-projection (Nemotron 3 "
                "Super); 0 without one", assumptions=_NONNEG)
latent_norm = _sym("latent_norm", r"\delta_{ln}",
                   "1 if a latent mixture of experts normalizes the routed experts' latent sum "
                   "before its up-projection (an RMSNorm of d_lat; Kimi K3)", assumptions=_NONNEG)
expert_pad_min = _sym("expert_pad_min", r"w_{pad}",
                      "least width of each routed expert one chip of a tensor-parallel group "
                      "holds: where d_ff / N_tp is less, the engine pads every expert with zero "
                      "columns to w_pad a chip (vLLM's Kimi K3 min_moe_intermediate_per_partition, "
                      "256); 0 where it does not pad", assumptions=_NONNEG)
shared_gate = _sym("shared_gate", r"\delta_{sg}",
                   "1 if the shared expert's output is scaled by a learned gate (a d-vector)",
                   assumptions=_NONNEG)

# --- state-space layers --------------------------------------------------------------------
_group = "state-space layers"
d_inner = _sym("d_inner", "d_{in}", "inner width of a Mamba-2 or Mamba-1 mixer (expand x d)")
d_state = _sym("d_state", "d_{st}", "state size per channel of a Mamba-2 or Mamba-1 mixer")
dt_rank = _sym("dt_rank", "r_{dt}", "rank of a Mamba-1 mixer's step-size projection (the "
               "input-dependent dt comes from r_dt channels, projected up to d_in)")
d_gmu = _sym("d_gmu", "d_{gmu}", "width of a gated memory unit (SambaY's cross-decoder): the "
             "block's input projected to d_gmu channels gates an earlier Mamba layer's output")
n_groups = _sym("n_groups", "n_{g}", "groups sharing the B and C projections of a Mamba-2 mixer")
n_ssm_heads = _sym("n_ssm_heads", "H_{ssm}", "heads of a Mamba-2 mixer")
d_conv = _sym("d_conv", "k_{conv}", "kernel width of a Mamba-2 mixer's causal convolution (of "
              "a gated short convolution's too)")
conv_bias = _sym("conv_bias", r"\delta_{conv}", "1 if the convolution has a bias (a gated short "
                 "convolution: its projections too)", assumptions=_NONNEG)
d_sconv = _sym("d_sconv", "d_{sc}", "channels of a gated short convolution mixer (LFM2: the "
               "model width d), each with its own depthwise kernel of k_conv taps")
n_qk_heads = _sym("n_qk_heads", "H_{qk}", "query/key heads of a Gated DeltaNet (linear-attention) "
                  "mixer")
n_v_heads = _sym("n_v_heads", "H_{v}", "value heads of a Gated DeltaNet mixer (each keeps a "
                 "d_k x d_v state)")
d_key = _sym("d_key", "d_{k}", "query/key head width of a Gated DeltaNet mixer (a Kimi delta "
             "attention or lightning attention mixer's head width, its values' too)")
n_kda_heads = _sym("n_kda_heads", "H_{kda}", "heads of a Kimi delta attention (KDA) mixer, "
                   "each with its own queries, keys and values and a d_k x d_k state")
n_la_heads = _sym("n_la_heads", "H_{la}", "heads of a lightning attention mixer (MiniMax-01), "
                  "each with its own queries, keys and values and a d_k x d_k state")
kda_full_gate = _sym("kda_full_gate", r"\delta_{fg}",
                     "1 if a Kimi delta attention mixer's output gate is one full-rank d x H d_k "
                     "projection (Kimi K3) instead of the factors d x d_k and d_k x H d_k",
                     assumptions=_NONNEG)
ssm_bias = _sym("ssm_bias", r"\delta_{ssm}", "1 if the mixer's in and out projections have biases",
                assumptions=_NONNEG)
ssm_norm = _sym("ssm_norm", r"\delta_{gn}", "1 if a Mamba-2 mixer normalizes its output (a gated "
                "RMSNorm of width d_in) before the output projection", assumptions=_NONNEG)

# --- precision -------------------------------------------------------------------------------
_group = "precision"
bits_weight = _sym("bits_weight", "b_{w}", "bits per weight (scales of block formats included)",
                   "bit", _RAT)
bits_kv = _sym("bits_kv", "b_{kv}", "bits per cached key or value element", "bit", _RAT)
bits_state = _sym("bits_state", "b_{st}", "bits per element of a state-space layer's state",
                  "bit", _RAT)
bits = _sym("bits", "b", "bits per element of an operand", "bit", _RAT)
block_size = _sym("block_size", "n_{blk}", "weights per block of a block format (they share "
                  "one scale, and one offset if the format has one)")
bits_int = _sym("bits_int", "b_{q}", "bits per stored integer of a block format", "bit", _RAT)
bits_scale = _sym("bits_scale", "b_{s}", "bits of the scale of one block", "bit", _RAT)
bits_offset = _sym("bits_offset", "b_{m}", "bits of the offset (minimum or zero point) of one "
                   "block; 0 without one", "bit", {"nonnegative": True, "rational": True})
block_rows = _sym("block_rows", "m_{blk}", "rows (output channels) of a weight matrix that "
                  "share one scale: 128 for block-scaled fp8, 1 for groups along the input")
block_cols = _sym("block_cols", "k_{blk}", "columns (input channels) of a weight matrix that "
                  "share one scale: the group size (32 for MXFP4, 16 for NVFP4, 128 for "
                  "int4 groups)")
bits_tensor = _sym("bits_tensor", "b_{t}", "bits a quantized matrix stores once, whatever its "
                   "size (NVFP4's fp32 global scales, compressed-tensors' packed shape); 0 "
                   "without any", "bit", {"nonnegative": True, "rational": True})
bits_channel = _sym("bits_channel", "b_{ch}", "bits a quantized matrix stores per input column "
                    "(the int32 group index g_idx of GPTQ and of compressed-tensors' group "
                    "ordering); 0 without any", "bit",
                    {"nonnegative": True, "rational": True})

# --- workload -----------------------------------------------------------------------------------
_group = "workload"
context = _sym("context", "S", "tokens in the KV cache (context length) when a token is decoded",
               "token", _NONNEG)
batch = _sym("batch", "B", "sequences decoded together in one step")
prompt = _sym("prompt", "T", "prompt tokens processed in the prefill", "token")
generated = _sym("generated", "G", "tokens generated after the first (the prefill yields the "
                 "first; each of G decode steps one more)", "token", _NONNEG)
seq_len = _sym("seq_len", "N", "sequence length of an attention block", "token")
mat_m = _sym("mat_m", "M", "rows of a weight matrix")
mat_k = _sym("mat_k", "K", "columns of a weight matrix (inner dimension)")
mat_n = _sym("mat_n", "n", "columns of the right operand (vectors multiplied at once)")

# --- hardware -------------------------------------------------------------------------------
_group = "hardware"
bandwidth = _sym("bandwidth", r"\beta_{mem}", "memory bandwidth", "B/s", _REAL)
peak_flops = _sym("peak_flops", "R_{peak}", "peak arithmetic rate (dense)", "FLOP/s", _REAL)
attn_peak_flops = _sym("attn_peak_flops", "R_{attn}", "peak arithmetic rate (dense) of attention's "
                       "products, at the precision of the cached keys and values", "FLOP/s",
                       _REAL)
capacity = _sym("capacity", "C", "memory capacity", "B")
overhead = _sym("overhead", "C_{0}", "memory reserved for activations, runtime, fragmentation",
                "B", _NONNEG)
storage_bandwidth = _sym("storage_bandwidth", r"\beta_{disk}", "read bandwidth of the storage "
                          "(SSD, SD card) that weights not held in memory are read from", "B/s",
                          _REAL)

# --- parallelism and serving -------------------------------------------------------------------
_group = "parallelism and serving"
n_chips = _sym("n_chips", "N_{chip}", "chips that serve one model replica")
tp = _sym("tp", "N_{tp}", "tensor-parallel degree (chips that split every matrix)")
ep = _sym("ep", "N_{ep}", "expert-parallel degree (chips that split the experts)")
pp = _sym("pp", "N_{pp}", "pipeline-parallel degree (stages of consecutive layers)")
n_ep_layers = _sym("n_ep_layers", "L_{ep}", "MoE blocks whose experts are split over chips "
                   "(expert parallelism; 0 without it)", assumptions=_NONNEG)
n_allreduces = _sym("n_allreduces", "N_{ar}", "all-reduces of one tensor-parallel step whose "
                    "message is the hidden state (after attention or a mixer, after an MLP)",
                    assumptions=_NONNEG)
n_other_allreduces = _sym("n_other_allreduces", "N_{ar,x}", "all-reduces of one "
                          "tensor-parallel step of another width (Mamba-1's x_proj, a norm's "
                          "variance over split heads, a latent MoE's routed sum)",
                          assumptions=_NONNEG)
link_bandwidth = _sym("link_bandwidth", r"\beta_{link}",
                      "bandwidth of one chip's link to its peers, per direction", "B/s", _REAL)
link_latency = _sym("link_latency", r"\alpha_{link}", "latency of one hop over the link", "s",
                    _NONNEG_REAL)
message_bytes = _sym("message_bytes", "M_{msg}", "bytes of one collective's message per chip", "B",
                     _NONNEG)
microbatches = _sym("microbatches", "n_{mb}", "microbatches in flight in a pipeline")
out_bandwidth = _sym("out_bandwidth", r"\beta_{out}", "bandwidth of one chip on the scale-out "
                     "network (between scale-up domains), per direction", "B/s", _REAL)
out_latency = _sym("out_latency", r"\alpha_{out}", "latency of one collective step on the "
                   "scale-out network", "s", _NONNEG_REAL)
domain_chips = _sym("domain_chips", "N_{dom}", "chips of a collective inside one scale-up domain")
n_nodes = _sym("n_nodes", "N_{node}", "scale-up domains (nodes) a collective spans, or the "
               "destinations an all-to-all sends to")
node_limit = _sym("node_limit", "M_{node}", "most destinations (nodes) one token's experts may "
                  "be on (node-limited routing)")
bits_dispatch = _sym("bits_dispatch", "b_{disp}", "bits per activation an expert-parallel "
                     "dispatch sends (the combine sends b)", "bit", _RAT)
work_time = _sym("work_time", "t_{work}", "time of a step's memory traffic and arithmetic on "
                 "one chip, without its communication", "s", _NONNEG_REAL)
alltoall_copies = _sym("alltoall_copies", "c_{a2a}", "copies of one token's activations a chip "
                       "sends to other destinations in one all-to-all phase", "1", _NONNEG_REAL)
acceptance = _sym("acceptance", r"\alpha", "probability that the target model accepts a drafted "
                  "token", "1", {"positive": True, "real": True})
draft_len = _sym("draft_len", r"\gamma", "tokens drafted per speculative step")
draft_cost = _sym("draft_cost", "c_{d}", "time of one draft step relative to one target step",
                  "1", _NONNEG_REAL)
draft_layers = _sym("draft_layers", "L_{d}", "transformer blocks one draft step runs (a draft "
                    "model's stack, one module's blocks for MTP)", "block", _NONNEG)
prefix = _sym("prefix", "T_{p}", "prompt tokens shared by requests (a cached prefix)", "token",
              _NONNEG)
price_per_hour = _sym("price_per_hour", "c_{h}", "price of one chip for one hour", "USD/h",
                      _REAL)
power = _sym("power", "P_{W}", "power drawn by one chip", "W", _REAL)
step_seconds = _sym("step_seconds", "t_{step}", "time of one decode step", "s", _REAL)
tokens_per_second = _sym("tokens_per_second", r"\tau",
                         "tokens generated per second (by a chip, a replica or a stream)",
                         "token/s", _REAL)
prefill_chunk = _sym("prefill_chunk", "C_{pf}", "prompt tokens processed per chunk of a chunked "
                     "prefill", "token")
comm_time = _sym("comm_time", "t_{comm}", "communication time on the critical path of one step",
                 "s", _NONNEG_REAL)
stage_time = _sym("stage_time", "t_{stage}", "time of one microbatch on one pipeline stage", "s",
                  _REAL)

# --- quantities (left-hand sides and the symbols formulas refer to) ---------------------------
_group = "quantities"
n_params = _sym("n_params", "P", "parameters of a model")
params_active = _sym("params_active", "P_{act}", "parameters one token uses (k of E experts)")
params_read = _sym("params_read", "P_{read}", "parameters one decode step reads from memory")
matmul_params = _sym("matmul_params", "P_{mm}", "weights used in matrix products for one token")
head_params = _sym("head_params", "P_{head}", "weights of the output head (V x d), in a matrix "
                   "product only for the positions whose logits are sampled")
attn_params = _sym("attn_params", "P_{attn}", "parameters of one attention block")
mlp_params = _sym("mlp_params", "P_{mlp}", "parameters of one MLP (or one expert)")
moe_params = _sym("moe_params", "P_{moe}", "parameters of one mixture-of-experts block")
router_params = _sym("router_params", "P_{router}", "parameters of a mixture-of-experts router")
ssm_params = _sym("ssm_params", "P_{ssm}", "parameters of one constant-state mixer (Mamba-2, "
                  "Gated DeltaNet)")
embed_params = _sym("embed_params", "P_{emb}",
                    "parameters outside the blocks: embeddings, final norm, output head")
ple_params = _sym("ple_params", "P_{PLE}", "parameters of per-layer input embeddings: their "
                  "table, its projection and norm, and each block's gate, projection back and norm")
experts_read = _sym("experts_read", r"\bar{E}_{B}",
                    "experts of one MoE block that a step of B tokens reads (expected)", "1",
                    _REAL)
batch_share = _sym("batch_share", r"B_{\eta}", "batch at which a step reads, in expectation, "
                   "a given share of a block's routed experts", "1", _REAL)
weight_bytes = _sym("weight_bytes", "W", "bytes of the weights (stored, or read in one step)",
                    "B", _NONNEG)
head_bytes = _sym("head_bytes", "W_{head}", "bytes of the output head's weights, read only by a "
                  "step that computes logits", "B", _NONNEG)
matrix_bytes = _sym("matrix_bytes", "W_{mat}", "bytes of one weight matrix as a quantized "
                    "checkpoint stores it: its elements, their scales and zero points", "B",
                    _NONNEG_REAL)
kv_cache_bytes_per_token = _sym("kv_cache_bytes_per_token", r"\kappa",
                      "KV-cache bytes per token (all layers, K and V)", "B", _NONNEG_REAL)
kv_layer_bytes = _sym("kv_layer_bytes", r"\kappa_{l}",
                      "KV-cache bytes per token of one attention layer", "B", _NONNEG_REAL)
kv_cache = _sym("kv_cache", "M_{KV}", "KV-cache bytes of B sequences", "B", _NONNEG_REAL)
state_bytes = _sym("state_bytes", "M_{st}",
                   "bytes of one constant-state layer's state for one sequence", "B", _NONNEG_REAL)
max_batch = _sym("max_batch", "B_{max}", "sequences whose cache fits beside the weights")
max_context = _sym("max_context", "S_{fit}",
                   "tokens per sequence whose cache fits beside the weights", "token", _NONNEG)
attended_context = _sym("attended_context", "S_{eff}",
                        "cached positions a decode step reads per layer, averaged over the layers",
                        "token", _NONNEG_REAL)
decode_flops = _sym("decode_flops", "F_{dec}", "FLOPs to decode one token of one sequence", "FLOP",
                    _REAL)
prefill_flops = _sym("prefill_flops", "F_{pre}", "FLOPs to prefill one prompt", "FLOP", _REAL)
attn_flops = _sym("attn_flops", "F_{attn}",
                  "attention FLOPs of one layer for one token (scores and weighted values)",
                  "FLOP", _NONNEG_REAL)
causal_pairs = _sym("causal_pairs", r"\Pi", "query-key pairs a causal prefill of T tokens scores "
                    "in one head", "1", _NONNEG)
intensity = _sym("intensity", "I", "arithmetic intensity: FLOPs per byte moved", "FLOP/B", _REAL)
ops_per_byte = _sym("ops_per_byte", "I^{*}",
                    "a chip's ops:byte ratio (ridge point of its roofline)", "FLOP/B", _REAL)
step_bytes = _sym("step_bytes", r"\mathcal{B}", "bytes moved in one step", "B", _REAL)
step_flops = _sym("step_flops", r"\mathcal{F}", "floating-point operations in one step", "FLOP",
                  _REAL)
step_attn_flops = _sym("step_attn_flops", r"\mathcal{F}_{attn}", "the part of a step's FLOPs "
                       "that multiplies activations by the cache or a layer's state (attention's "
                       "scores and weighted values, a recurrence), not by weights", "FLOP",
                       _NONNEG_REAL)
step_peak_flops = _sym("step_peak_flops", "R_{step}", "a step's effective peak: its FLOPs over "
                       "its compute time, the weights' products at their rate and attention's at "
                       "its own", "FLOP/s", _REAL)
step_time = _sym("step_time", "t", "lower bound on the time of one step", "s", _REAL)
memory_time = _sym("memory_time", "t_{mem}", "time to move a step's bytes at the memory bandwidth",
                   "s", _REAL)
compute_time = _sym("compute_time", "t_{comp}", "time to do a step's FLOPs at the peak rate", "s",
                    _REAL)
memory_required = _sym("memory_required", "M_{req}", "memory a deployment needs", "B", _REAL)
decode_time = _sym("decode_time", "t_{dec}", "lower bound on the time of one decode step", "s",
                   _REAL)
prefill_time = _sym("prefill_time", "t_{pre}", "lower bound on the time of a prefill", "s", _REAL)
generation_time = _sym("generation_time", "t_{gen}",
                       "lower bound on the time of a request: prefill, then G decode steps", "s",
                       _REAL)
critical_batch = _sym("critical_batch", "B^{*}",
                      "batch at which a decode step turns from memory- to compute-bound", "1",
                      _REAL)
critical_context = _sym("critical_context", r"S_{\infty}",
                        "context beyond which no batch makes a decode step compute-bound",
                        "token", _REAL)
seq_bytes = _sym("seq_bytes", r"\mathcal{K}",
                 "bytes a decode step reads for one sequence (its cache and state)", "B",
                 _NONNEG_REAL)
seq_flops = _sym("seq_flops", r"\mathcal{A}",
                 "FLOPs of one decode step for one sequence", "FLOP", _REAL)
allreduce_time = _sym("allreduce_time", "t_{ar}", "time of one all-reduce (a ring, direct, "
                      "or reduced in the switch)", "s", _REAL)
other_allreduce_time = _sym("other_allreduce_time", "t_{ar,x}", "time of one all-reduce of "
                            "that other width", "s", _REAL)
allgather_time = _sym("allgather_time", "t_{ag}", "time of one all-gather (a ring, or direct "
                      "reads of every peer's share at once)", "s", _REAL)
switch_time = _sym("switch_time", r"t_{ar}^{sw}", "time of one all-reduce reduced in the switch",
                  "s", _REAL)
chips_time = _sym("chips_time", r"t_{ar}^{chip}",
                  "time of one all-reduce the chips reduce themselves (direct or a ring)", "s",
                  _REAL)
alltoall_bytes = _sym("alltoall_bytes", "M_{a2a}",
                      "bytes one chip sends in the all-to-all of an expert-parallel MoE layer", "B",
                      _NONNEG_REAL)
bubble = _sym("bubble", r"\phi_{bub}", "fraction of a pipeline's time lost to its bubble", "1",
              _NONNEG_REAL)
spec_tokens = _sym("spec_tokens", r"\bar{n}_{acc}",
                   "tokens a speculative step yields on average", "token", _REAL)
spec_speedup = _sym("spec_speedup", r"\sigma_{spec}",
                    "speed-up of speculative decoding over plain decoding (upper bound)", "1", _REAL)
paged_waste = _sym("paged_waste", "M_{waste}", "KV-cache bytes lost to the last, partly filled "
                   "block of each sequence", "B", _NONNEG_REAL)
cost_per_mtok = _sym("cost_per_mtok", "c_{Mtok}", "cost of one million generated tokens", "USD",
                     _REAL)
energy_per_token = _sym("energy_per_token", "e_{tok}", "energy per generated token", "J", _REAL)
tokens_per_user = _sym("tokens_per_user", r"\tau_{user}", "tokens per second one stream sees",
                       "token/s", _REAL)
tokens_per_chip = _sym("tokens_per_chip", r"\tau_{chip}", "tokens per second per chip", "token/s",
                       _REAL)
ttft = _sym("ttft", "t_{TTFT}", "time to first token", "s", _REAL)
layer_matmul_params = _sym("layer_matmul_params", r"P_{mm,l}",
                          "weights of one part of the model used in matrix products for one "
                          "token")
norm_params = _sym("norm_params", r"P_{norm}", "normalization weights of one block")
expert_params = _sym("expert_params", r"P_{exp}",
                     "parameters of the routed experts counted in one MoE block")
params_unread = _sym("params_unread", r"P_{unread}",
                     "embedding parameters a decode step does not read")
layer_flops = _sym("layer_flops", r"F_{layers}",
                   "attention and state-space FLOPs, summed over the layers", "FLOP",
                   _NONNEG_REAL)
micro_batch = _sym("micro_batch", r"b_{\mu}", "sequences in one microbatch of a pipeline", "1",
                   _RAT)
tpot = _sym("tpot", "t_{TPOT}", "time per output token", "s", _REAL)
request_time = _sym("request_time", "t_{req}", "end-to-end time of one request", "s", _REAL)
forecast_time = _sym("forecast_time", "t_{fc}",
                     "forecast time of one step: what a real runtime is expected to take", "s",
                     _REAL)
overhead_fraction = _sym("overhead_fraction", "k_{rt}",
                         "time a runtime spends per unit of bound time beyond the bound "
                         "(fitted)", "1", _NONNEG_REAL)
fixed_time = _sym("fixed_time", "t_{rt}", "a runtime's fixed cost per step (fitted)", "s",
                  _NONNEG_REAL)
forecast_end_time = _sym("forecast_end_time", r"t_{fc}^{\pm}",
                         "one end of the forecast's 80% interval of step time", "s", _REAL)
interval_ratio = _sym("interval_ratio", "q_{fc}",
                      "measured over forecast speed at one end of the forecast's 80% interval "
                      "(fitted)", "1", _REAL)
dequant_fraction = _sym("dequant_fraction", r"\delta",
                        "dequantization cost per weight, in units of the time to read the weight "
                        "at 16 bits (fitted)", "1", _NONNEG_REAL)
dequant_time = _sym("dequant_time", "t_{16}",
                    "time to read a step's quantized weights at 16 bits: the dequantization "
                    "term's regressor (0 for 16-bit weights)", "s", _NONNEG_REAL)
layer_time = _sym("layer_time", r"\lambda_{rt}",
                  "a runtime's cost per layer and step: kernel launches, small ops (fitted)", "s",
                  _NONNEG_REAL)
transfer_bytes = _sym("transfer_bytes", "M_{xfer}",
                      "KV-cache bytes moved from a prefill to a decode instance per request", "B",
                      _NONNEG_REAL)
transfer_time = _sym("transfer_time", "t_{xfer}",
                     "time to move a request's KV cache from a prefill to a decode instance", "s",
                     _REAL)
critical_prompt = _sym("critical_prompt", "T^{*}",
                       "prompt length at which a prefill turns from memory- to compute-bound",
                       "token", _REAL)
memory_per_chip = _sym("memory_per_chip", "M_{chip}", "bytes each chip of a replica holds", "B",
                       _NONNEG_REAL)
tp_speedup = _sym("tp_speedup", r"\sigma_{tp}",
                  "speed-up of a decode step on N_tp chips over the same step on one chip", "1",
                  _REAL)
tp_best = _sym("tp_best", "N_{tp}^{*}",
               "tensor-parallel degree beyond which more chips make a decode step slower", "1",
               _REAL)
spec_step_cost = _sym("spec_step_cost", "c_{spec}",
                      "time of one speculative step (gamma draft steps and one verification) "
                      "relative to one plain target step", "1", _REAL)
bytes_saved = _sym("bytes_saved", "M_{saved}", "cache bytes a shared prefix saves", "B",
                   _NONNEG_REAL)
flops_saved = _sym("flops_saved", "F_{saved}", "prefill FLOPs a shared prefix saves", "FLOP",
                   _NONNEG_REAL)
mem_fraction = _sym("mem_fraction", r"f_{mem}", "share of a chip's memory a serving engine may "
                    "use (vLLM's gpu_memory_utilization, SGLang's mem_fraction_static)", "1",
                    _NONNEG_REAL)
kv_budget = _sym("kv_budget", r"M_{pool}", "memory an engine gives its KV-cache pool on one chip",
                 "B", {"real": True})
page_tokens = _sym("page_tokens", r"n_{page}", "tokens per block of an engine's paged KV cache "
                   "(vLLM's block size, SGLang's page size)", "token")
kv_heads_chip = _sym("kv_heads_chip", r"H_{kv}^{chip}", "key/value heads of one layer that one "
                     "chip caches (split over tensor parallelism, at least one)", "1", _RAT)
index_heads_chip = _sym("index_heads_chip", r"H_{I}^{chip}", "indexer query heads of one "
                        "sparse-attention layer that one chip computes under tensor parallelism "
                        "(its share, at least one, or all of them where the engine replicates "
                        "the indexer)", "1", _RAT)
index_heads_held = _sym("index_heads_held", r"H_{I}^{tp}", "indexer query heads of one "
                        "sparse-attention layer that a tensor-parallel group computes, every "
                        "chip's copy counted", "1", _RAT)
kv_heads_held = _sym("kv_heads_held", r"H_{kv}^{tp}", "key/value heads of one attention layer "
                     "that a tensor-parallel group holds, every chip's copy counted", "1", _RAT)
params_copied = _sym("params_copied", r"P_{copy}", "parameters of one part of a layer that every "
                     "chip of a tensor-parallel group holds whole (copied, not split)")
params_held = _sym("params_held", r"P^{tp}", "parameters a tensor-parallel group holds, every "
                   "chip's copy counted")
ctx_cells = _sym("ctx_cells", r"n_{cells}", "cells (token slots) llama.cpp allocates per "
                 "layer of its cache", "token")
ubatch = _sym("ubatch", r"n_{ub}", "tokens of one micro-batch an engine computes at once "
              "(llama.cpp's --ubatch-size)", "token")
n_seqs = _sym("n_seqs", r"n_{seq}", "sequences one llama.cpp cache serves (--parallel)")
cell_pad = _sym("cell_pad", r"n_{pad}", "multiple that llama.cpp rounds a cache's cells up to",
                "token")
swa_full = _sym("swa_full", r"\phi_{swa}", "1 if windowed layers keep every cell "
                "(llama.cpp's --swa-full), else 0", assumptions=_NONNEG)
page_align = _sym("page_align", r"n_{align}", "multiple an engine rounds a hybrid model's "
                  "attention block size up to (vLLM: 16)", "token")
n_attn_layers = _sym("n_attn_layers", r"L_{attn}", "attention layers of a hybrid model's stack")
n_state_layers = _sym("n_state_layers", r"L_{st}", "constant-state layers (Mamba-2, Gated "
                      "DeltaNet, KDA) of a hybrid model's stack")
group_layers = _sym("group_layers", r"n_{grp}", "layers of one KV cache group of vLLM's pool "
                    "(the layers sharing one block table)")
kv_groups = _sym("kv_groups", r"G_{kv}", "KV cache groups of vLLM's pool")
attn_groups = _sym("attn_groups", r"G_{attn}", "KV cache groups of a hybrid's attention layers")
state_groups = _sym("state_groups", r"G_{st}", "KV cache groups of a hybrid's constant-state "
                    "layers")
pool_blocks = _sym("pool_blocks", r"N_{blk}", "blocks of an engine's paged pool (each block one "
                   "page of every layer of a group)", assumptions=_NONNEG)
state_blocks = _sym("state_blocks", r"n_{blk}^{st}", "blocks of each state group one request "
                    "holds (vLLM's --mamba-cache-mode: none 1, align 2)")
max_model_len = _sym("max_model_len", r"S_{max}", "tokens of the longest request an engine "
                     "admits (vLLM's --max-model-len)", "token")
max_concurrency = _sym("max_concurrency", r"c_{max}", "requests of the longest length an "
                       "engine's pool holds at once (vLLM's 'Maximum concurrency')", "1",
                       _NONNEG_REAL)

# --- the source articles' own symbols -------------------------------------------------------
_group = "source articles"
n_bytes = _sym("n_bytes", "n_{bytes}", "bytes per parameter or cached value (Timbers's notation; "
               "b_w / 8 in the book's)", "B", _RAT)
bandwidth_a = _sym("bandwidth_a", r"\beta_{A}", "memory bandwidth of chip A (the larger one, in a "
                   "two-chip comparison)", "B/s", _REAL)
bandwidth_b = _sym("bandwidth_b", r"\beta_{B}", "memory bandwidth of chip B (the smaller one)",
                   "B/s", _REAL)
peak_flops_a = _sym("peak_flops_a", "R_{A}", "peak arithmetic rate of chip A", "FLOP/s", _REAL)
peak_flops_b = _sym("peak_flops_b", "R_{B}", "peak arithmetic rate of chip B", "FLOP/s", _REAL)
ratio = _sym("ratio", r"\rho", "a ratio of two like quantities", "1", _REAL)
compute_ratio = _sym("compute_ratio", r"\rho_{R}", "how many times the peak arithmetic rate of "
                     "chip A is that of chip B (Karpathy's compute ratio)", "1", _REAL)
bandwidth_ratio = _sym("bandwidth_ratio", r"\rho_{\beta}", "how many times the memory bandwidth "
                       "of chip A is that of chip B (Karpathy's bandwidth ratio)", "1", _REAL)
naive_gain = _sym("naive_gain", r"\rho_{I^{*}}", "how many times the ops:byte ratio of chip A is "
                  "that of chip B: how much faster B runs at batch 1 than the compute ratio "
                  "suggests (Karpathy's gain)", "1", _REAL)
measured_seconds = _sym("measured_seconds", "t_{meas}",
                        "measured time of one decode step (an article's input)", "s", _REAL)
peak_vector = _sym("peak_vector", "R_{v}", "peak rate of the vector units (CUDA cores), FP32",
                   "FLOP/s", _REAL)
peak_tensor = _sym("peak_tensor", "R_{tc}", "peak rate of the tensor cores as the calm notebook "
                   "states it (its 'tensorops', meant as FP32)", "FLOP/s", _REAL)
tensor_scale = _sym("tensor_scale", r"\sigma_{tc}", "speed-up the calm notebook gives tensor "
                    "cores for narrow weights (1 at 32 bits, 2 otherwise)")
fraction = _sym("fraction", r"\eta", "a fraction of a bound or of a whole (efficiency, share)",
                "1", _NONNEG_REAL)
kv_elements = _sym("kv_elements", r"n_{KV}", "cached key and value elements", "1", _NONNEG)
kv_tokens = _sym("kv_tokens", r"S_{KV}", "tokens whose cache fits in the free memory", "token",
                 _REAL)
measured_tps = _sym("measured_tps", r"\tau_{meas}", "measured decode rate", "token/s", _REAL)

# --- images in the prompt (a vision tower's prefill) ------------------------------------------
_group = "workload"
images = _sym("images", "N_{img}", "images in the prompt", "1", _NONNEG)
image_tokens = _sym("image_tokens", "T_{img}", "tokens one image adds to the prompt (what the "
                    "tower's merger or projector outputs; the model's processor's rule)", "token",
                    _NONNEG)
vision_patches = _sym("vision_patches", "P_{v}", "tokens a vision tower runs for one image: its "
                      "patches (over every tile or crop), with a class token where it has one",
                      "token", _NONNEG)
d_vision = _sym("d_vision", "d_{vis}", "hidden size of a vision tower")
_group = "quantities"
vision_matmul_params = _sym("vision_matmul_params", "W_{v}", "weights of a vision tower in "
                            "matrix products for one patch (patch embedding and every block; "
                            "2 FLOPs each)", "1", _NONNEG)
merger_matmul_params = _sym("merger_matmul_params", "W_{mrg}", "weights of a tower's merger or "
                            "projector in matrix products for one image token (2 FLOPs each)",
                            "1", _NONNEG)
n_vision_full_layers = _sym("n_vision_full_layers", "L_{vf}", "vision-tower blocks whose "
                            "attention sees every patch of the image (or of its tile)",
                            assumptions=_NONNEG)
n_vision_window_layers = _sym("n_vision_window_layers", "L_{vw}", "vision-tower blocks whose "
                              "attention sees only the patches of their window (Qwen2.5-VL)",
                              assumptions=_NONNEG)
vision_full_pairs = _sym("vision_full_pairs", "A_{vf}", "query-key pairs of one full-attention "
                         "tower block for one image: the sum over its tiles of the patches "
                         "squared", "1", _NONNEG)
vision_window_pairs = _sym("vision_window_pairs", "A_{vw}", "query-key pairs of one windowed "
                           "tower block for one image: the sum over its windows of the patches "
                           "squared", "1", _NONNEG)
vision_bytes = _sym("vision_bytes", "W_{v,bytes}", "bytes of a vision tower's and its merger's "
                    "weights, read once for a prompt's images", "B", _NONNEG)
vision_prefill_flops = _sym("vision_prefill_flops", "F_{vis}", "FLOPs of a vision tower and "
                            "its merger over a prompt's images", "FLOP", _NONNEG_REAL)
vision_prefill_time = _sym("vision_prefill_time", "t_{vis}", "lower bound on the time a vision "
                           "tower takes over a prompt's images", "s", _REAL)
deepstack_matmul_params = _sym("deepstack_matmul_params", "W_{ds}", "weights of a tower's "
                               "deepstack mergers (Qwen3-VL: extra mergers on intermediate "
                               "blocks' outputs) in matrix products for one image token "
                               "(2 FLOPs each)", "1", _NONNEG)
vision_conv_flops = _sym("vision_conv_flops", "F_{conv}", "FLOPs of a convolutional vision "
                         "tower (Gemma 3n's MobileNet-V5) for one image, from its architecture: "
                         "its convolutions and attention products", "FLOP", _NONNEG)
image_states = _sym("image_states", "S_{img}", "states of a sequence's images that a "
                    "cross-attention layer reads (Llama 3.2 Vision: 1,601 a tile), beside the "
                    "prompt's tokens", "token", _NONNEG)
cross_kv_flops = _sym("cross_kv_flops", "F_{xkv}", "FLOPs of the cross-attention layers' key "
                      "and value projections of the images' states, once a sequence", "FLOP",
                      _NONNEG_REAL)
cross_attention_flops = _sym("cross_attention_flops", "F_{xa}", "FLOPs of one text token's "
                             "cross-attention over the images' states, every cross-attention "
                             "layer", "FLOP", _NONNEG_REAL)

# --- audio in the prompt (an audio encoder's prefill: formulas/audio.py) ---------------------
_group = "workload"
audio_rows = _sym("audio_rows", "S_{aud}", "positions an audio encoder's blocks run for one clip "
                  "(summed over its chunks; for Gemma's conformer, every subsampled position)",
                  "1", _NONNEG)
d_audio = _sym("d_audio", "d_{aud}", "hidden size of an audio encoder")
n_audio_layers = _sym("n_audio_layers", "L_{aud}", "blocks of an audio encoder (Whisper-style "
                      "blocks, or conformer layers)", assumptions=_NONNEG)
_group = "quantities"
audio_matmul_params = _sym("audio_matmul_params", "W_{aud}", "weights of one audio-encoder block "
                           "in matrix products for one position (2 FLOPs each): a Whisper-style "
                           "block's q, k, v, output and MLP; a conformer layer's two "
                           "feed-forwards, q, k, v, output and its light convolution's "
                           "pointwise products", "1", _NONNEG)
audio_pairs = _sym("audio_pairs", "A_{aud}", "query-key pairs of one audio-encoder block over a "
                   "clip: the sum over its chunks or attention windows of the positions squared "
                   "(a conformer: its blocks of queries times their context, masked keys too)",
                   "1", _NONNEG)
audio_rel_pairs = _sym("audio_rel_pairs", "A_{rel}", "query-offset pairs of one conformer "
                       "layer's relative-position term: every query its attention computes "
                       "(its blocks, padded) times the relative offsets (0: none)", "1", _NONNEG)
audio_rel_offsets = _sym("audio_rel_offsets", "n_{rel}", "relative offsets whose position "
                         "embeddings a conformer layer projects (Gemma: left "
                         "context - 1 + right context + 1; 0: none)", "1", _NONNEG)
audio_conv_kernel = _sym("audio_conv_kernel", "k_{dw}", "kernel of a conformer layer's "
                         "depthwise convolution over time (0: none)", "1",
                         _NONNEG)
audio_conv1_params = _sym("audio_conv1_params", "W_{c1}", "weights of an audio encoder's first "
                          "convolution for one output position: kernel x input channels x "
                          "output channels (2 FLOPs each)", "1", _NONNEG)
audio_conv1_positions = _sym("audio_conv1_positions", "S_{c1}", "output positions of an audio "
                             "encoder's first convolution over a clip (time, times frequency "
                             "for a 2-D one; over every padded chunk)", "1", _NONNEG)
audio_conv2_params = _sym("audio_conv2_params", "W_{c2}", "weights of each of an audio encoder's "
                          "later convolutions (of one shape) for one output position", "1",
                          _NONNEG)
audio_conv2_positions = _sym("audio_conv2_positions", "S_{c2}", "output positions of an audio "
                             "encoder's later convolutions over a clip, summed over them", "1",
                             _NONNEG)
audio_in_params = _sym("audio_in_params", "W_{in}", "weights of the projection from an audio "
                       "encoder's last convolution to its blocks' width, for one position "
                       "(0: the convolution gives that width)", "1", _NONNEG)
audio_in_positions = _sym("audio_in_positions", "S_{in}", "positions that projection runs over "
                          "a clip", "1", _NONNEG)
audio_out_params = _sym("audio_out_params", "W_{out}", "weights of the projections after an "
                        "audio encoder's blocks, to the language model's width, for one output "
                        "position", "1", _NONNEG)
audio_out_positions = _sym("audio_out_positions", "S_{out}", "positions those projections run "
                           "over a clip (its tokens, or the positions kept)", "1", _NONNEG)
audio_block_flops = _sym("audio_block_flops", "F_{aud,blk}", "FLOPs of an audio encoder's blocks "
                         "over one clip", "FLOP", _NONNEG_REAL)
audio_around_flops = _sym("audio_around_flops", "F_{aud,ar}", "FLOPs of the convolutions and "
                          "projections around an audio encoder's blocks over one clip (what a "
                          "tensor-parallel engine that splits the blocks keeps whole)", "FLOP",
                          _NONNEG_REAL)
audio_prefill_flops = _sym("audio_prefill_flops", "F_{aud}", "FLOPs of an audio encoder over "
                           "one clip: its blocks and what runs around them", "FLOP",
                           _NONNEG_REAL)

GLOSSARY: Mapping[str, SymbolInfo] = MappingProxyType(_GLOSSARY)
