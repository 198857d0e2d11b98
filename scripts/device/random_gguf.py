"""Write a GGUF file of random weights with a catalogued model's shapes (issue 30, item 2).

    PYTHONPATH=.device/llama.cpp/gguf-py python3 scripts/device/random_gguf.py \\
        llama-2-7b Q4_0 /tmp/kit-llama-2-7b-Q4_0.gguf

At batch 1 a decode step's time depends on the tensors' shapes and types, not on their values,
so a file of random weights with a model's shapes times as the model does. Needs numpy and
llama.cpp's own ``gguf`` package (the vendored ``gguf-py``), nothing else: it runs on the device
machine's python3 as well as here.

* Dimensions: the model's ``config.json`` in the project's catalog
  (``lib/llm_arithmetic/catalog/data/models/<key>/config.json``), architectures llama (and
  mistral, which llama.cpp loads as llama), qwen2 and qwen3; another ``model_type`` is refused.
* Tensors: what llama.cpp's loader creates for the architecture (``src/models/llama.cpp``,
  ``qwen2.cpp``, ``qwen3.cpp`` of the vendored tree): token embedding, per layer the attention
  norm, q/k/v/output projections (qwen2: q/k/v biases; qwen3: q and k norms), the FFN norm and
  gate/up/down, then the output norm and the output matrix (absent when the embeddings are tied);
  Llama 3's ``rope_freqs`` (the converter's llama3 rope factors) when the config scales rope so.
* File types: ``Q4_0`` as ``llama-quantize`` writes it by default (every matrix Q4_0, the output
  matrix, or the tied embedding, Q6_K: llama-quant.cpp's rule for the output tensor), ``Q8_0``
  (every matrix Q8_0: that rule keeps Q8_0), ``Q4_K`` pure (every matrix Q4_K, as ``--pure``),
  ``F16`` (every matrix F16). Norms and biases F32 (ones, zeros).
* Values: quantized blocks are random bytes whose fp16 scales are overwritten with small finite
  values (exponent fixed at 2^-7: no NaN, Inf or subnormal, which could change timing); F16
  matrices likewise. Tensors are generated and written one at a time (peak memory about two of
  the largest tensor), so a 32B file does not need twice its size in RAM.
* Vocabulary: a dummy SentencePiece-style one of the model's ``vocab_size`` (``<unk>``, ``<s>``,
  ``</s>``, the 256 byte tokens ``<0x00>``..``<0xFF>`` so the newline lookup works, then
  ``t<i>``), scores and token types, bos 1, eos 2, unk 0.
"""
from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np

try:
    import gguf
except ImportError:  # pragma: no cover - a one-line error for the user
    sys.exit("random_gguf.py: the gguf package is missing: set PYTHONPATH=.device/llama.cpp/gguf-py "
             "(scripts/device/fetch_llama_cpp.sh writes it)")

MODELS_DIR = Path(__file__).resolve().parents[2] / "lib" / "llm_arithmetic" / "catalog" / "data" / "models"
ARCHS = {"llama": "llama", "mistral": "llama", "qwen2": "qwen2", "qwen3": "qwen3"}
Q = gguf.GGMLQuantizationType
#: file type -> (type of every matrix, type of the output matrix (or tied embedding), ftype)
FILE_TYPES = {
    "Q4_0": (Q.Q4_0, Q.Q6_K, gguf.LlamaFileType.MOSTLY_Q4_0),
    "Q8_0": (Q.Q8_0, Q.Q8_0, gguf.LlamaFileType.MOSTLY_Q8_0),
    "Q4_K": (Q.Q4_K, Q.Q4_K, gguf.LlamaFileType.MOSTLY_Q4_K_S),
    "F16": (Q.F16, Q.F16, gguf.LlamaFileType.MOSTLY_F16),
}
#: byte offsets of the fp16 scales inside one block (ggml-common.h's block layouts)
SCALE_OFFSETS = {Q.Q4_0: (0,), Q.Q8_0: (0,), Q.Q4_K: (0, 2), Q.Q6_K: (208,)}
#: fp16 bits: keep the sign and mantissa, force the exponent field to 8 (2^-7 <= |x| < 2^-6)
F16_KEEP, F16_EXP = 0x83FF, 8 << 10
POOL_BYTES = 64 * 2**20
#: the writer's method for each hyperparameter llama.cpp reads, and its field in shapes()
HPARAMS = (("add_context_length", "n_ctx"), ("add_embedding_length", "n_embd"),
           ("add_block_count", "n_layer"), ("add_feed_forward_length", "n_ff"),
           ("add_head_count", "n_head"), ("add_head_count_kv", "n_head_kv"),
           ("add_key_length", "head_dim"), ("add_value_length", "head_dim"),
           ("add_rope_dimension_count", "head_dim"), ("add_rope_freq_base", "rope_theta"),
           ("add_layer_norm_rms_eps", "eps"), ("add_vocab_size", "n_vocab"))


def load_config(key: str) -> dict:
    path = MODELS_DIR / key / "config.json"
    if not path.is_file():
        known = sorted(p.name for p in MODELS_DIR.iterdir() if (p / "config.json").is_file())
        raise SystemExit(f"random_gguf.py: unknown model {key!r} (no {path}); known: {', '.join(known)}")
    cfg = json.loads(path.read_text())
    cfg = cfg.get("text_config", cfg)
    mt = cfg.get("model_type")
    if mt not in ARCHS:
        raise SystemExit(f"random_gguf.py: {key}: model_type {mt!r} is not one of {sorted(ARCHS)}")
    for field in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                  "vocab_size"):
        if not isinstance(cfg.get(field), int) or cfg[field] <= 0:
            raise SystemExit(f"random_gguf.py: {key}: config field {field!r} is missing or not a positive integer")
    return cfg


def shapes(cfg: dict) -> dict:
    """The dimensions llama.cpp reads, from a Hugging Face config."""
    n_embd, n_head = cfg["hidden_size"], cfg["num_attention_heads"]
    head_dim = cfg.get("head_dim") or n_embd // n_head
    return dict(arch=ARCHS[cfg["model_type"]], n_embd=n_embd, n_ff=cfg["intermediate_size"],
                n_layer=cfg["num_hidden_layers"], n_head=n_head,
                n_head_kv=cfg.get("num_key_value_heads") or n_head, head_dim=head_dim,
                n_vocab=cfg["vocab_size"], tied=bool(cfg.get("tie_word_embeddings", False)),
                n_ctx=cfg.get("max_position_embeddings", 4096),
                rope_theta=float(cfg.get("rope_theta", 10000.0)),
                eps=float(cfg.get("rms_norm_eps", 1e-5)), rope_scaling=cfg.get("rope_scaling"))


def llama3_rope_factors(s: dict) -> np.ndarray | None:
    """convert_hf_to_gguf's rope factors for ``rope_type: llama3`` (None for other configs)."""
    rs = s["rope_scaling"] or {}
    if rs.get("rope_type", rs.get("type")) != "llama3":
        return None
    factor, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
    old = rs["original_max_position_embeddings"]
    dim = s["head_dim"]
    freqs = 1.0 / (s["rope_theta"] ** (np.arange(0, dim, 2, dtype=np.float64) / dim))
    out = []
    for f in freqs:
        wavelen = 2 * math.pi / f
        if wavelen < old / hi:
            out.append(1.0)
        elif wavelen > old / lo:
            out.append(factor)
        else:
            smooth = (old / wavelen - lo) / (hi - lo)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def tensor_plan(s: dict, ftype: str) -> list[tuple[str, tuple[int, ...], object]]:
    """(name, llama.cpp dims (ne0, ne1, ...), type) of every tensor, in file order; type is a
    GGMLQuantizationType, or an np.ndarray for a tensor with given F32 values."""
    mat, out_t, _ = FILE_TYPES[ftype]
    e, ff, hd = s["n_embd"], s["n_ff"], s["head_dim"]
    q, kv = s["n_head"] * hd, s["n_head_kv"] * hd
    plan = [("token_embd.weight", (e, s["n_vocab"]), out_t if s["tied"] else mat)]
    rope = llama3_rope_factors(s)
    if rope is not None:
        plan.append(("rope_freqs.weight", (hd // 2,), rope))
    for i in range(s["n_layer"]):
        b = f"blk.{i}."
        plan += [(b + "attn_norm.weight", (e,), Q.F32),
                 (b + "attn_q.weight", (e, q), mat), (b + "attn_k.weight", (e, kv), mat),
                 (b + "attn_v.weight", (e, kv), mat)]
        if s["arch"] == "qwen2":
            plan += [(b + "attn_q.bias", (q,), Q.F32), (b + "attn_k.bias", (kv,), Q.F32),
                     (b + "attn_v.bias", (kv,), Q.F32)]
        plan.append((b + "attn_output.weight", (q, e), mat))
        if s["arch"] == "qwen3":
            plan += [(b + "attn_q_norm.weight", (hd,), Q.F32), (b + "attn_k_norm.weight", (hd,), Q.F32)]
        plan += [(b + "ffn_norm.weight", (e,), Q.F32), (b + "ffn_gate.weight", (e, ff), mat),
                 (b + "ffn_up.weight", (e, ff), mat), (b + "ffn_down.weight", (ff, e), mat)]
    plan.append(("output_norm.weight", (e,), Q.F32))
    if not s["tied"]:
        plan.append(("output.weight", (e, s["n_vocab"]), out_t))
    return plan


def byte_shape(dims: tuple[int, ...], qtype) -> tuple[int, int]:
    """(rows, bytes per row) of a matrix with llama.cpp dims (ne0, ne1) stored as ``qtype``."""
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    if dims[0] % block:
        raise SystemExit(f"random_gguf.py: a row of {dims[0]} values is not a whole number of "
                         f"{qtype.name} blocks of {block}")
    return dims[1], dims[0] // block * size


def random_matrix(dims: tuple[int, int], qtype, pool: np.ndarray, offset: int) -> np.ndarray:
    """Random bytes of the matrix's size (a slice of a random pool, tiled), with every fp16
    scale (or, for F16, every value) set to a small finite number."""
    rows, row_bytes = byte_shape(dims, qtype)
    n = rows * row_bytes
    data = np.resize(pool[offset:], n)
    if qtype == Q.F16:
        v = data.view(np.uint16)
        v &= F16_KEEP
        v |= F16_EXP
    else:
        size = gguf.GGML_QUANT_SIZES[qtype][1]
        blocks = data.reshape(-1, size)
        for off in SCALE_OFFSETS[qtype]:
            sc = blocks[:, off:off + 2].copy().view(np.uint16)
            sc &= F16_KEEP
            sc |= F16_EXP
            blocks[:, off:off + 2] = sc.view(np.uint8)
    return data.reshape(rows, row_bytes)


def vocabulary(n_vocab: int) -> tuple[list[str], list[float], list[int]]:
    if n_vocab < 3 + 256:
        raise SystemExit(f"random_gguf.py: vocab_size {n_vocab} is smaller than 259 (3 special and 256 byte tokens)")
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tokens += [f"t{i}" for i in range(len(tokens), n_vocab)]
    types = np.full(n_vocab, gguf.TokenType.NORMAL, dtype=np.int32)
    types[0] = gguf.TokenType.UNKNOWN
    types[1:3] = gguf.TokenType.CONTROL
    types[3:259] = gguf.TokenType.BYTE
    return tokens, [0.0] * n_vocab, types.tolist()


def write(key: str, ftype: str, out: str, seed: int = 0) -> int:
    if ftype not in FILE_TYPES:
        raise SystemExit(f"random_gguf.py: file type {ftype!r} is not one of {sorted(FILE_TYPES)}")
    s = shapes(load_config(key))
    plan = tensor_plan(s, ftype)
    w = gguf.GGUFWriter(out, s["arch"])
    w.add_name(f"random weights of {key} ({ftype})")
    w.add_file_type(int(FILE_TYPES[ftype][2]))
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)
    for method, field in HPARAMS:
        getattr(w, method)(s[field])
    tokens, scores, types = vocabulary(s["n_vocab"])
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    for name, dims, t in plan:
        if isinstance(t, np.ndarray):
            w.add_tensor_info(name, t.shape, t.dtype, t.nbytes)
        elif t == Q.F32:
            w.add_tensor_info(name, (dims[0],), np.dtype(np.float32), 4 * dims[0])
        else:
            rows, row_bytes = byte_shape(dims, t)
            w.add_tensor_info(name, (rows, row_bytes), np.dtype(np.uint8), rows * row_bytes, raw_dtype=t)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    rng = np.random.default_rng(seed)
    pool = np.frombuffer(rng.bytes(POOL_BYTES), dtype=np.uint8)
    for i, (name, dims, t) in enumerate(plan):
        if isinstance(t, np.ndarray):
            data = t
        elif t == Q.F32:
            data = np.zeros(dims[0], np.float32) if name.endswith(".bias") else np.ones(dims[0], np.float32)
        else:
            data = random_matrix(dims, t, pool, (i * 4099) % (POOL_BYTES // 2))
        w.write_tensor_data(data)
    w.close()
    return Path(out).stat().st_size


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        print("usage: random_gguf.py MODEL_KEY FILE_TYPE OUT.gguf", file=sys.stderr)
        return 2
    t = time.time()
    size = write(*argv)
    print(f"random_gguf.py: {argv[2]}: {argv[0]} {argv[1]}, {size} bytes in {time.time() - t:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
