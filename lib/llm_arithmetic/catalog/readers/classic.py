"""Readers of the decoders before Llama's block became the norm: GPT-2 and GPT-BigCode (learned
positions, LayerNorm with biases), OPT, Falcon, GPT-NeoX, Phi-1/2, StarCoder2, StableLM 2,
OLMo 1 and Nemotron-4 (ungated MLPs, parallel residuals, partial rotary, biases).
"""
from __future__ import annotations

from typing import Any

from ...core.errors import ConfigError
from ..model import MLP, Attention
from .base import Reader, decoder, read_context, read_window, restated, same_blocks


def phi(r: Reader) -> dict[str, Any]:
    # PhiModel: q/k/v/dense with biases, fc1/fc2 with biases, one LayerNorm (weight + bias) per
    # block feeding attention and MLP in parallel, final LayerNorm, untied head with a bias.
    r.refuse("qk_layernorm", "Phi's per-head q/k LayerNorms are not counted")
    d = r.int("hidden_size")
    h, hkv, dh = r.heads(d)
    mlp = MLP(r.int("intermediate_size"), n_mats=2, bias=True)
    return decoder(r, n_layers=r.int("num_hidden_layers", kind="layers"), norms=2,
                   tied=r.flag("tie_word_embeddings", False),
                   trained_context=read_context(r),
                   attention=lambda i: Attention(h, hkv, dh, qkv_bias=True, o_bias=True),
                   mlp=lambda i: mlp, d_model=d, head_bias=True, norm_vecs_final=2)


def gpt2(r: Reader, *, multi_query: bool = False) -> dict[str, Any]:
    # GPT2Model: wte, wpe, per block ln_1, ln_2 (weight + bias), c_attn (fused q, k, v with
    # bias), c_proj (bias), c_fc and mlp c_proj (bias), ln_f; the head is tied to wte. With
    # `multi_query` (GPTBigCode), c_attn is d -> d + 2 d_head: one key and one value head.
    d = r.int("n_embd")
    h = r.int("n_head", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'n_head' ({h}) does not divide 'n_embd' ({d})")
    hkv = 1 if multi_query else h
    n_pos = r.int("n_positions", kind="context")
    mlp = MLP(r.int("n_inner", 4 * d), n_mats=2, bias=True)
    return decoder(r, n_layers=r.int("n_layer", kind="layers"), norms=4,
                   tied=r.flag("tie_word_embeddings", True), trained_context=n_pos,
                   attention=lambda i: Attention(h, hkv, d // h, qkv_bias=True, o_bias=True),
                   mlp=lambda i: mlp, d_model=d, norm_vecs_final=2, n_positions=n_pos)


def gpt_bigcode(r: Reader) -> dict[str, Any]:
    # GPTBigCodeModel (transformers 5.24.0 modeling_gpt_bigcode.py, StarCoder): GPT-2's layout
    # (learned positions wpe, LayerNorms with bias, biases on every linear layer, an MLP of
    # n_inner or 4d, the head tied to wte) with multi-query attention when `multi_query`
    # (default true). Cross-attention blocks (add_cross_attention) are not counted.
    r.refuse("add_cross_attention", "GPTBigCode's cross-attention blocks are not counted")
    return gpt2(r, multi_query=r.flag("multi_query", True))


def starcoder2(r: Reader) -> dict[str, Any]:
    # Starcoder2Model (transformers 5.24.0 modeling_starcoder2.py): q/k/v/o and the plain MLP
    # c_fc d -> ff, c_proj ff -> d (GELU) with biases when `use_bias` (default true); head_dim
    # (else d/H); two LayerNorms (weight + bias) per block and a final one; every layer over
    # the last `sliding_window` tokens when it is set; the head tied by default
    # (Starcoder2Config: tie_word_embeddings true).
    d = r.int("hidden_size")
    h, hkv, dh = r.heads(d)
    bias = r.flag("use_bias", True)
    window = read_window(r)
    mlp = MLP(r.int("intermediate_size"), n_mats=2, bias=bias)
    return decoder(r, n_layers=r.int("num_hidden_layers", kind="layers"), norms=4,
                   tied=r.flag("tie_word_embeddings", True),
                   trained_context=read_context(r),
                   attention=lambda i: Attention(h, hkv, dh, window=window, qkv_bias=bias,
                                                 o_bias=bias),
                   mlp=lambda i: mlp, d_model=d, norm_vecs_final=2)


def opt(r: Reader) -> dict[str, Any]:
    # OPTDecoder: embed_tokens, embed_positions with 2 offset rows, per block q/k/v/out_proj
    # with biases, self_attn_layer_norm and final_layer_norm (weight + bias), fc1/fc2 with
    # biases (ReLU), a final LayerNorm; lm_head tied.
    d = r.int("hidden_size")
    if r.int("word_embed_proj_dim", d) != d:
        raise ConfigError(f"{r.origin}: field 'word_embed_proj_dim' differs from hidden_size: "
                          "OPT's embedding projections are not counted")
    if not r.flag("do_layer_norm_before", True):
        raise ConfigError(f"{r.origin}: field 'do_layer_norm_before' = false (OPT-350m's "
                          "layout) is not supported")
    h, hkv, dh = r.heads(d)
    bias = r.flag("enable_bias", True)
    ctx = read_context(r, ...)
    mlp = MLP(r.int("ffn_dim"), n_mats=2, bias=bias)
    return decoder(r, n_layers=r.int("num_hidden_layers", kind="layers"), norms=4,
                   tied=r.flag("tie_word_embeddings", True), trained_context=ctx,
                   attention=lambda i: Attention(h, hkv, dh, qkv_bias=bias, o_bias=bias),
                   mlp=lambda i: mlp, d_model=d, norm_vecs_final=2, n_positions=ctx + 2)


def falcon(r: Reader) -> dict[str, Any]:
    # FalconModel: word_embeddings; per block a fused query_key_value of d x (H + 2 H_kv)
    # d_head and a dense d x d (biases if `bias`), an MLP d -> ffn_hidden_size -> d (plain,
    # biases if `bias`), LayerNorms with bias: ln_attn and ln_mlp (new_decoder_architecture),
    # else input_layernorm, plus post_attention_layernorm when attention and MLP are not
    # parallel; ln_f; lm_head tied to the embeddings.
    r.refuse("alibi", "ALiBi position biases are not counted")
    d = r.int("hidden_size")
    h = r.int("num_attention_heads", kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) does not divide "
                          f"'hidden_size' ({d})")
    new = r.flag("new_decoder_architecture", False)
    mq = r.flag("multi_query", True)
    if new:
        hkv = r.int("num_kv_heads", h, kind="heads")
    else:
        r.read.add("num_kv_heads")
        hkv = 1 if mq else h
    if h % hkv:
        raise ConfigError(f"{r.origin}: field 'num_kv_heads' ({hkv}) does not divide "
                          f"'num_attention_heads' ({h})")
    parallel = r.flag("parallel_attn", True)
    if new:
        n_ln = r.int("num_ln_in_parallel_attn", 2, kind="count")
    else:
        r.read.add("num_ln_in_parallel_attn")
        n_ln = 1 if parallel else 2
    bias = r.flag("bias", False)
    mlp = MLP(r.int("ffn_hidden_size", 4 * d), n_mats=2, bias=bias)
    return decoder(r, n_layers=r.int("num_hidden_layers", kind="layers"), norms=2 * n_ln,
                   tied=r.flag("tie_word_embeddings", True),
                   trained_context=read_context(r),
                   attention=lambda i: Attention(h, hkv, d // h, qkv_bias=bias, o_bias=bias),
                   mlp=lambda i: mlp, d_model=d, norm_vecs_final=2)


def gpt_neox(r: Reader) -> dict[str, Any]:
    # GPTNeoXModel (defaults of GPTNeoXConfig: GPT-NeoX-20B's shapes): embed_in; per block
    # input_layernorm and post_attention_layernorm (LayerNorm, weight + bias), a fused
    # query_key_value d x 3d and a dense d x d (biases if `attention_bias`, default true), an MLP
    # dense_h_to_4h / dense_4h_to_h with biases (GELU); final_layer_norm; an untied embed_out
    # without bias. Rotary on `rotary_pct` of each head and the parallel residual
    # (`use_parallel_residual`) own no parameters.
    d = r.int("hidden_size", 6144)
    h = r.int("num_attention_heads", 64, kind="heads")
    if d % h:
        raise ConfigError(f"{r.origin}: 'num_attention_heads' ({h}) does not divide "
                          f"'hidden_size' ({d})")
    r.flag("use_parallel_residual", True)
    pct = r.raw("rotary_pct", 0.25)
    if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not 0 < pct <= 1:
        raise ConfigError(f"{r.origin}: field 'rotary_pct' must be a fraction in (0, 1], "
                          f"got {pct!r:.60}")
    bias = r.flag("attention_bias", True)
    mlp = MLP(r.int("intermediate_size", 24576), n_mats=2, bias=True)
    return decoder(r, n_layers=r.int("num_hidden_layers", 44, kind="layers"), norms=4,
                   tied=r.flag("tie_word_embeddings", False),
                   trained_context=read_context(r, 2048),
                   attention=lambda i: Attention(h, h, d // h, qkv_bias=bias, o_bias=bias),
                   mlp=lambda i: mlp, d_model=d, norm_vecs_final=2,
                   n_vocab=r.int("vocab_size", 50432, kind="vocab"))


# ---- Nemotron-4 and Minitron (nemotron: squared ReLU, LayerNorm1P with bias, partial rotary) ---
def nemotron(r: Reader) -> dict[str, Any]:
    # NemotronConfig / modeling_nemotron.py (transformers 5.24.0): q, k, v, o of head_dim
    # (default d / H; GQA), all four biased when attention_bias; an ungated MLP, up_proj d -> w
    # and down_proj w -> d (biases when mlp_bias) around hidden_act (relu2: squared ReLU), two
    # matrices; input_layernorm and post_attention_layernorm are NemotronLayerNorm1P (a
    # LayerNorm whose weight is stored minus one, with a bias: two vectors each), so is the
    # final norm; the head untied by default. The rotary fraction (partial_rotary_factor, or
    # the older files' rope_percent / rope_percentage) rotates part of each head and holds no
    # weight. NVIDIA's Nemotron-Mini file gives the head width as Megatron's `kv_channels`,
    # which NemotronConfig does not read (it takes head_dim or d / H): read where it equals
    # that width, refused by name where it does not (transformers would build other heads).
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    channels = r.int("kv_channels", None)
    built = r.int("head_dim", None)
    if built is None and channels is not None:
        heads = r.int("num_attention_heads", kind="heads")
        built = d // heads if d % heads == 0 else None
    if channels is not None and channels != built:
        raise ConfigError(f"{r.origin}: field 'kv_channels' ({channels}) differs from the head "
                          f"width NemotronConfig builds ({built}: 'head_dim', else hidden_size / "
                          "num_attention_heads), which transformers and vLLM use")
    h, hkv, dh = r.heads(d)
    r.read.update({"partial_rotary_factor", "rope_percent", "rope_percentage"})
    b = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=b, o_bias=b)
    mlp = MLP(r.int("intermediate_size"), n_mats=2, bias=r.flag("mlp_bias", False))
    return same_blocks(r, d, n, attn, mlp, norms=4, norm_vecs_final=2)


# ---- OLMo 1 and 1.7 (olmo: non-parametric LayerNorm, optional q/k/v clipping) -----------------
def olmo(r: Reader) -> dict[str, Any]:
    # OlmoConfig / modeling_olmo.py (transformers 5.24.0): q, k, v, o of head_dim (a head_dim
    # key, else d / H; GQA), all four biased when attention_bias; a gated MLP without biases;
    # input_layernorm, post_attention_layernorm and the final norm are OlmoLayerNorm, a
    # LayerNorm with neither weight nor bias: no parameter; the head untied by default (OLMo
    # 1B ties it). clip_qkv (OLMo 1.7: 8.0) clamps the q, k, v activations: no weight, and a
    # comparison per element that the FLOP counts leave out; it must be null or positive.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    clip = r.raw("clip_qkv")
    if clip is not None and (isinstance(clip, bool) or not isinstance(clip, (int, float))
                             or not clip > 0):
        raise ConfigError(f"{r.origin}: field 'clip_qkv' must be null or a positive number, "
                          f"got {clip!r:.40}")
    restated(r, "mlp_bias", False, "its MLP has no biases")
    b = r.flag("attention_bias", False)
    attn = Attention(h, hkv, dh, qkv_bias=b, o_bias=b)
    mlp = MLP(r.int("intermediate_size"))
    return same_blocks(r, d, n, attn, mlp, norms=0, norm_vecs_final=0)


# ---- StableLM 2 (stablelm: partial rotary, parallel residual, per-head q/k LayerNorms) ----------
def stablelm(r: Reader) -> dict[str, Any]:
    # StableLmConfig / modeling_stablelm.py (transformers 5.24.0): q, k, v of d / H per head
    # (no head_dim key: another value is refused by name) with biases when use_qkv_bias, o
    # without; with qk_layernorm, StableLmLayerNormPerHead: one weight-only LayerNorm of d_head
    # per query head and per key/value head (H d_head + H_kv d_head weights, the count of
    # whole-projection norms; each head's norm goes with its head under tensor parallelism);
    # a gated MLP without biases; input_layernorm, and post_attention_layernorm unless
    # use_parallel_residual (attention and MLP then read the same normed input), and the
    # final norm are LayerNorms with bias; the head untied by default. Stability's
    # `use_norm_bias` (false in StableLM 2 12B's file), which transformers does not read,
    # drops the blocks' norm biases: the port that loads that checkpoint (search index file
    # id 45310748995, an MLX StableLM) builds input_layernorm with bias=use_norm_bias and the
    # final norm with a bias, so the library counts what the checkpoint holds and the meta
    # count exceeds it by one d-vector per block norm. The rotary fraction
    # (partial_rotary_factor, the older rope_pct) holds no weight.
    d = r.int("hidden_size")
    n = r.int("num_hidden_layers", kind="layers")
    h, hkv, dh = r.heads(d)
    if d % h or dh != d // h:
        raise ConfigError(f"{r.origin}: field 'head_dim' ({dh}) differs from hidden_size / "
                          f"num_attention_heads, the only head width StableLM builds")
    r.read.update({"partial_rotary_factor", "rope_pct"})
    parallel = r.flag("use_parallel_residual", False)
    norm_vecs = 2 if r.flag("use_norm_bias", True) else 1
    attn = Attention(h, hkv, dh, qkv_bias=r.flag("use_qkv_bias", False),
                     qk_norm="full" if r.flag("qk_layernorm", False) else "",
                     qk_norm_split=r.flag("qk_layernorm", False))
    restated(r, "attention_bias", False, "its output projection has no bias; q, k and v "
             "take theirs from use_qkv_bias")
    restated(r, "mlp_bias", False, "its MLP has no biases")
    mlp = MLP(r.int("intermediate_size"))
    return same_blocks(r, d, n, attn, mlp, norms=norm_vecs * (1 if parallel else 2),
                       norm_vecs_final=2)
