"""Every number a source article states has a row in its reproduction table.

For each article, the list below is typed from the article's text (/work/shared/seeds in the
project's notes; the lost tables from shared/reference/published-tables.md), independently of
the notebooks: one entry per stated quantity, as (where the article says it, a fragment of the
row's item, the row's published value as the article printed it). The test reads the tables the
reproduction notebook stores in its outputs (every Markdown table whose header is
``| item | published | computed | status | note |``, alone or in a captioned long table) and
fails for an entry with no row.

A quantity the article repeats is listed once. Not listed, by rule: definitional constants of a
formula the notebook checks symbolically (the 2 of "2P FLOPs", the 4 and 2 x 4 of the parameter
formula), model and device names ("7B", "A100 80GB PCIe"), and the illustrative shapes and
counts of ``EXCLUDED`` (each with its reason).
"""
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEADER = "| item | published | computed | status | note |"

_W = {"7": ("28", "14", "7", "3.5"), "13": ("52", "26", "13", "6.5"),
      "32.5": ("130", "65", "32.5", "16.25"), "65.2": ("260.8", "130.4", "65.2", "32.6")}
_T = {"7": ("28.94", "14.47", "7.24", "3.62"), "13": ("53.75", "26.87", "13.44", "6.72"),
      "32.5": ("134.37", "67.18", "33.59", "16.80"),
      "65.2": ("269.56", "134.78", "67.39", "33.70")}
_P = ("fp32", "fp16", "int8", "int4")

STATED = {
    "18-repro-finbarr.ipynb": [
        ("On a Pixel5 ... 1 tokens/s", "Pixel 5, 7B: observed", "1"),
        ("M2 Macbook Pro ... ~16 tokens/s", "M2 MacBook Pro, 7B: observed", "16"),
        ("a 4GB RAM Raspberry Pi", "Raspberry Pi 4 memory", "4"),
        ("albeit at 0.1 tokens/s", "Raspberry Pi 4, 7B: observed", "0.1"),
        ("A100: 1935 GB/s", "A100 memory bandwidth", "1935"),
        ("4090: 1008 GB/s", "RTX 4090 memory bandwidth", "1008"),
        ("A100: 312 TFLOPS of FP16", "A100 FP16 compute", "312"),
        ("4090: 82.6 TFLOPS of FP16", "RTX 4090 FP16 compute", "82.6"),
        ("40MB on an A100", "A100 on-chip memory", "40"),
        ("compared to 40-80GB of RAM", "A100 memory, 40GB card", "40"),
        ("compared to 40-80GB of RAM", "A100 memory, 80GB card", "80"),
        ("~2 orders of magnitude smaller", "orders of magnitude", "2"),
        ("for float32s, this is 4", "bytes per fp32 parameter", "4"),
        ("for float16s, this is 2", "bytes per fp16 parameter", "2"),
        ("3090s/4090s, which have 24GB of RAM", "RTX 3090/4090 memory", "24"),
        ("int4 ... all of these models fit into memory on an A100", "fit an A100 80GB", "65.2"),
        ("all of them, except for the biggest model, fit ... 24GB", "fit a 3090/4090", "32.5"),
        ("n_memory bandwidth = 1.935e12", "A100 memory bandwidth", "1935"),
        ("n_flops = 3.12e14", "A100 FP16 compute", "312"),
        ("less than 161, the model is memory-bound", "memory-bound", "161"),
        ("twice the FLOPS when using fp16 vs fp32", "speedup fp32 (read as TF32) to fp16", "2"),
        ("which doubles again as you go to int8", "speedup fp16 to int8", "2"),
        ("and doubles once more as you go to int4s", "speedup int8 to int4", "2"),
        ("1.33GB of memory for the KV cache", "int4 KV cache", "1.33"),
        ("16.25GB of VRAM for the model parameters", "int4 weights of the model", "16.25"),
        ("On an A100 (80GB PCIe), the memory bandwidth is 1935GB/s", "A100 memory bandwidth",
         "1935"),
        ("The int4 compute is 1248 TOPS", "A100 INT4 compute", "1248"),
        ("roughly 30 tokens/s with the 65B model", "A100, 65B", "30"),
        ("277 tokens/s with the 7B model", "A100, 7B", "277"),
        ("The M1 GPU has a bandwidth of 68.25 GB/s", "M1 GPU memory bandwidth", "68.25"),
        ("up to 5.5 TFLOPS of fp16 compute", "M1 GPU FP16 compute", "5.5"),
        ("a ceiling of ~1 tokens/s ... 65B model", "M1, 65B", "1"),
        ("and 10 tokens/s with the 7B model", "M1, 7B", "10"),
        ("the M2 Pro has 200 GB/s", "M2 Pro memory bandwidth", "200"),
        ("the M2 Max has 400 GB/s", "M2 Max memory bandwidth", "400"),
        ("up to 6 tokens/s with the M2 Max with the 65B model", "M2 Max, 65B", "6"),
        ("A Raspberry Pi 4 has 13.5 GFLOPS of compute", "Raspberry Pi 4 compute", "13.5"),
        ("and ~4GB/s of memory bandwidth", "Raspberry Pi 4 memory bandwidth", "4"),
        ("~2 tokens/s with the 7B model if it was memory bound", "if memory-bound", "2"),
        ("we're currently seeing ~0.1 tokens/s", "Raspberry Pi 4, 7B: observed", "0.1"),
    ] + [(f"image 1, {label}B {prec}", f"{label}B, {prec}", v)
         for label, vs in _W.items() for prec, v in zip(_P, vs)]
      + [(f"image 2, {label}B {prec}", f"{label}B, {prec}", v)
         for label, vs in _T.items() for prec, v in zip(_P, vs)],
    "19-repro-karpathy.ipynb": [
        ("7B runs @ ~16 tok/s on a MacBook", "7B on an M2 MacBook", "16"),
        ("A100: 1935 GB/s memory bandwidth", "A100 memory bandwidth", "1935"),
        ("1248 TOPS", "A100 peak", "1248"),
        ("MacBook M2: 100 GB/s", "M2 memory bandwidth", "100"),
        ("7 TFLOPS", "M2 peak", "7"),
        ("The compute is ~200X", "compute ratio A100 / M2, the note's figures", "200"),
        ("but the memory bandwidth only ~20X", "bandwidth ratio A100 / M2", "20"),
        ("only be about ~20X slower", "M2 slower than A100", "20"),
        ("~10X faster than you might naively expect", "faster than the naive", "10"),
        ("a very high batch size (e.g. ~160+)", "batch where serving turns compute-bound", "160"),
        ("reach ~50%+ utilization", "utilization at large batch", "50%+"),
    ],
    "20-repro-baseten.ipynb": [
        ("125 TFLOPS ... FP16", "A10 FP16 tensor-core peak", "125"),
        ("16 bits per number", "bits per value, half precision", "16"),
        ("full-precision ... 32 bits per number", "bits per value, full precision", "32"),
        ("16 bits (or 2 bytes)", "bytes per FP16 parameter", "2"),
        ("parameters (in billions) by 2", "GB of FP16 weights per billion parameters", "2"),
        ("a seven billion parameter LLM like Llama 2", "parameters of Llama 2 7B", "7"),
        ("a 7B parameter model ... approximately 14 GB", "fp16 weights of a 7B model", "14"),
        ("our A10's 24 GB of VRAM", "A10 memory", "24"),
        ("about 10 GB of memory remaining", "A10 memory left", "10"),
        ("We can move 600 GB/s", "A10 memory bandwidth", "600"),
        ("= 208.3 ops / byte", "A10 ops:byte ratio", "208.3"),
        ("For Llama 2 7B, N = 4096", "sequence length N", "4096"),
        ("For Llama 2 7B, d = 128", "head width d", "128"),
        ("= 8N^2 + 8Nd bytes", "memory movement: coefficient of N^2", "8"),
        ("= 8N^2 + 8Nd bytes", "memory movement: coefficient of N d", "8"),
        ("= 4(N^2)d + 3N^2 ops", "compute: coefficient of N^2 d", "4"),
        ("= 4(N^2)d + 3N^2 ops", "compute: coefficient of N^2", "3"),
        ("= 62 ops/byte for Llama 2 7B", "arithmetic intensity of standard attention", "62"),
        ("62 ... during the autoregressive phase", "intensity of the autoregressive phase", "62"),
        ("24 GB - (2 * 7GB) = 10GB", "A10 memory left", "10"),
        ("For Llama 2 7B, n_heads = 32", "n_heads", "32"),
        ("For Llama 2 7B, n_layers = 32", "n_layers", "32"),
        ("For Llama 2 7B, d_model = 4096", "d_model", "4096"),
        ("= 524288 bytes/token", "KV cache per token", "524288"),
        ("~ 0.00052 GB/token", "KV cache per token in GB", "0.00052"),
        ("= 19,230 tokens", "KV cache tokens: 10 GB / 0.00052", "19,230"),
        ("a batch of 4 sequences", "sequences of 4096 tokens that fit", "4"),
        ("a T4 GPU, which has 16 GB of VRAM", "T4 memory", "16"),
        ("only 2 GB", "T4 memory left", "2"),
        ("(2 * 7B) bytes / (300 GB/s)", "T4 memory bandwidth", "300"),
        ("= 46 ms/token", "T4: time per output token", "46"),
        ("= 23 ms/token", "A10: time per output token", "23"),
        ("(2 * 7B) bytes / (2039 GB/s)", "A100 SXM 80 GB memory bandwidth", "2039"),
        ("= 6 ms/token", "A100 SXM 80 GB: time per output token", "6"),
        ("an A10 is twice as fast as a T4", "speed-up, A10 over T4", "2"),
        ("nearly four times faster than an A10", "speed-up, A100 over A10", "4"),
        ("eight times faster than a T4", "speed-up, A100 over T4", "8"),
        ("the prompt has 350 tokens", "benchmark prompt", "350"),
        ("350 * (2 * 7B) FLOP / 65 TFLOP/s", "T4 FP16 tensor peak", "65"),
        ("= 75 ms", "T4: prefill", "75"),
        ("= 39 ms", "A10: prefill", "39"),
        ("350 * (2 * 7B) FLOP / 312 TFLOP/s", "A100 SXM 80 GB FP16 tensor peak", "312"),
        ("= 16 ms", "A100 SXM 80 GB: prefill", "16"),
        ("Prefill time = number of tokens * (number of parameters / ...)", "formula as printed",
         "39"),
        ("we allow for 150 completion tokens", "benchmark output tokens", "150"),
        ("= 6.98 s", "T4: total", "6.98"),
        ("= 3.49 s", "A10: total", "3.49"),
        ("= 0.92s", "A100 SXM 80 GB: total", "0.92"),
        ("can make inference take up to twice as long", "up to twice as long", "2"),
        ("every query would spend 500 tokens in total", "tokens per query", "500"),
        ("Table 2 from the Llama paper: 6.7B / 13.0B / 32.5B / 65.2B", "the table read as Llama 2",
         "65.2"),
        ("24 GB of HBM", "type of the A10's 24 GB memory", "HBM"),
    ] + [(f"LLaMA Table 2, {size} {col}", f"LLaMA Table 2, {size}: {col}", value)
         for size, row in {
             "6.7B": ("6.7", "4096", "32", "32", "3.0e-4", "4M", "1.0T"),
             "13.0B": ("13.0", "5120", "40", "40", "3.0e-4", "4M", "1.0T"),
             "32.5B": ("32.5", "6656", "52", "60", "1.5e-4", "4M", "1.4T"),
             "65.2B": ("65.2", "8192", "64", "80", "1.5e-4", "4M", "1.4T")}.items()
         for col, value in zip(("parameters", "dimension", "n heads", "n layers",
                                "learning rate", "batch size", "n tokens"), row)],
    "21-repro-zeux.ipynb": [
        ("typically has 50-250K tokens", "typical vocabulary", "50-250K"),
        ("Ryzen 7950X has 67 GB/s memory bandwidth", "Ryzen 7950X memory bandwidth", "67"),
        ("and 2735 GFLOPS", "Ryzen 7950X FP32 rate", "2735"),
        ("for a 40:1 FLOP:byte ratio", "FLOP:byte, Ryzen 7950X", "40"),
        ("RTX 4090 has 1008 GB/s memory bandwidth", "RTX 4090: bandwidth", "1008"),
        ("and 83 TFLOPS", "RTX 4090: FP32 rate", "83"),
        ("for a 82:1 FLOP:byte ratio", "FLOP:byte, RTX 4090", "82"),
        ("H100 SXM ... has 3350 GB/s memory bandwidth", "H100 SXM: bandwidth", "3350"),
        ("and 67 TFLOPS", "H100 SXM: FP32 rate", "67"),
        ("a seemingly more modest 20:1 FLOP:byte", "FLOP:byte, H100 SXM, FP32 vector", "20"),
        ("tensor cores provide ~494 TFLOPS", "H100 SXM: TF32 rate", "494"),
        ("for a 147:1 FLOP:byte ratio", "FLOP:byte, H100 SXM, tensor cores (TF32", "147"),
        ("1979 TFLOPS for dense FP8 matrices", "H100 SXM: FP8 rate", "1979"),
        ("brings the FLOP:byte ratio to 590:1", "FLOP:byte, H100 SXM, tensor cores (FP8", "590"),
        ("Mistral 7B, which has 7.2 billion parameters", "Mistral 7B, total parameters", "7.2"),
        ("4096 * 32000 = 131M ... embedding matrix", "embedding matrix", "131"),
        ("4096 * 32000: hidden size", "Mistral 7B hidden size", "4096"),
        ("4096 * 32000: vocabulary", "Mistral 7B vocabulary", "32000"),
        ("32 * (4096 * (128 * 32 + ...)): layers", "Mistral 7B layers", "32"),
        ("128 * 32: query heads", "Mistral 7B query heads", "32"),
        ("128 * 8 * 2: KV heads", "Mistral 7B KV heads", "8"),
        ("128-element vectors: head width", "Mistral 7B head width", "128"),
        ("= 1342M parameters for computing attention-related vectors", "attention matrices",
         "1342"),
        ("4096 * 14336 * 3: FFN width", "Mistral 7B FFN width", "14336"),
        ("4096 * 14336 * 3: three matrices", "Mistral 7B FFN matrices", "3"),
        ("= 5637M parameters for ... a feed-forward network", "FFN matrices", "5637"),
        ("4096 * 32000 = 131M ... token probabilities", "output head", "131"),
        ("~7111M 'active' parameters", "'active' parameters read per token", "7111"),
        ("~14.2 GB of data for each token", "weights read per token at FP16", "14.2"),
        ("caches are measured in tens of megabytes", "caches: 'tens of megabytes'", "tens of MB"),
        ("32 * 128 * 8 * 2 = 65K elements per token", "KV elements per token", "65"),
        ("P * 130 KB of memory", "KV bytes per token, FP16", "130"),
        ("token number 1000 will need to read 130 MB", "KV cache read at token 1000", "130"),
        ("14.2 GB take ~14.1 ms to read", "speed of light, FP16 weights", "14.1"),
        ("8-bit weights, we need to read 7.1 GB", "weights read per token at 8 bits", "7.1"),
        ("and that takes ~7.0 ms", "speed of light, 8-bit weights", "7.0"),
        ("calm achieves ~15.4 ms/tok ... 16-bit weights", "calm, Mistral 7B fp16", "15.4"),
        ("~7.8 ms/tok for 8-bit weights", "calm, Mistral 7B fp8", "7.8"),
        ("around 90% of the theoretically possible performance", "calm, FP16", "90"),
        ("around 90% ... (8-bit)", "calm, 8-bit", "90"),
        ("only reach ~65% of the theoretical 100 GB/s", "M2 Air, CPU inference", "~65%"),
        ("the theoretical 100 GB/s bandwidth", "M2 Air: theoretical bandwidth", "100"),
        ("llama.cpp achieves ~17.1 ms/tok", "llama.cpp, Mistral 7B fp16", "17.1"),
        ("(82% of peak)", "llama.cpp, FP16", "82"),
        ("~10.3ms/tok", "llama.cpp, Mistral 7B q8_0", "10.3"),
        ("for 8.5-bit weights", "llama.cpp Q8_0: bits per weight", "8.5"),
        ("(71% of peak)", "llama.cpp, 8.5-bit", "71"),
        ("~6.7ms/tok", "llama.cpp, Mistral 7B q4_0", "6.7"),
        ("for 4.5-bit weights", "llama.cpp Q4_0: bits per weight", "4.5"),
        ("(58% of peak)", "llama.cpp, 4.5-bit", "58"),
        ("RTX 4080 has 716 GB/s bandwidth", "RTX 4080 memory bandwidth", "716"),
        ("~0.7x the speed of RTX 4090", "RTX 4080 (716 GB/s) speed", "0.7"),
        ("my 7950X ... can only sustain ~50 GB/s", "Ryzen 7950X, author's machine", "~50 GB/s"),
        ("on Mixtral ... calm achieves ~75%", "calm on H100, Mixtral", "~75%"),
        ("windowed attention ... a window of 4096 tokens", "sliding window caps the KV read",
         "4096"),
        ("group-query attention (with a 4x ratio)", "GQA ratio", "4"),
        ("4096-token context takes 0.5 GiB with Mistral", "Mistral 7B, KV cache at 4096", "0.5"),
        ("(like Llama 7B) would 'only' need 2 GiB", "LLaMA-7B (no GQA), KV cache", "2"),
        ("The model itself has ~35B parameters", "Command-R parameters", "35"),
        ("read 70 GB of weights for each token", "Command-R weights read per token", "70"),
        ("40 * 128 * 64 * 2: layers", "Command-R layers", "40"),
        ("40 * 128 * 64 * 2: KV heads", "Command-R KV heads", "64"),
        ("40 * 128 * 64 * 2: head width", "Command-R head width", "128"),
        ("= 655K elements in the KV-cache", "Command-R KV elements per token", "655"),
        ("at 16 bits/element is 1.3 MB per token", "Command-R KV bytes per token", "1.3"),
        ("a 4096-token context would take ~5.3 GB", "Command-R KV cache at 4096", "5.3"),
        ("advertised to have 200K token context window", "advertised context window", "200000"),
        ("you would need to read 260 GB", "Command-R KV cache at the full window", "260"),
        ("~4.5 bits/weight as is often implemented", "production: weights at 4.5 bits", "19.7"),
        ("'conservatively' assume 100K context (half ...)", "100K tokens as a share", "0.5"),
        ("~19.7 GB for model weights", "production: weights at 4.5 bits", "19.7"),
        ("and ~65 GB for KV-cache", "production: 8-bit KV cache", "65"),
        ("taking ~75% of the time", "production: attention's share", "75"),
        ("(= per 64+ user requests)", "weight products ALU-bound", "64+"),
        ("If these models used 4x GQA ... 4x smaller", "Command-R with 4x GQA", "4"),
        ("Command-R has a large vocab (256K)", "Command-R vocabulary", "256"),
        ("and large hidden state (8192)", "Command-R hidden size", "8192"),
        ("spends a whopping 2B parameters on embeddings", "Command-R embedding parameters", "2"),
        ("reuses the same matrix ... don't need to exclude this", "left out of the read", "0"),
    ],
}

#: Numbers in the articles that are deliberately not rows, with the reason.
EXCLUDED = {
    "21-repro-zeux.ipynb": {
        "e.g. 8192x8192": "an illustrative matrix size, not a claim about a model",
        "one multiply-add (2 FLOPs) per matrix element": "a definition (the 2 of 2P FLOPs)",
        "4 dot-products ... 4 query vectors": "the GQA illustration; the ratio has its row",
        "GB is a decimal unit, equal to 1000^3": "a unit definition",
        "tens of thousands of tokens of context": "no digits: a verbal range, not a figure",
    },
    "20-repro-baseten.ipynb": {
        "(2 * 2 * (N * d)) + ... six terms": "checked term by term against the rebuilt table "
                                             "(the notebook asserts each); their sums have rows",
        "4096x128, 4096x4096": "matrix shapes made of N and d, which have rows",
        "a couple hundred milliseconds": "no digits: a suggested wait, not a figure",
    },
    "18-repro-finbarr.ipynb": {
        "4 d^2 + 2 * 4 d^2, n_bytes * 2 * d_model, 2P FLOPs, 2mn": "formula constants; the "
        "notebook checks the formulas symbolically against the package's",
    },
}


def table_rows(notebook: Path) -> list[tuple[str, str]]:
    """(item, published) of every row of every reproduction table in the stored outputs."""
    rows = []
    nb = json.loads(notebook.read_text(encoding="utf8"))
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            text = out.get("data", {}).get("text/markdown", "")
            text = "".join(text) if isinstance(text, list) else text
            lines = text.splitlines()
            # a table may stand alone or sit in a captioned, collapsed long table
            for start, line in enumerate(lines):
                if line.strip() != HEADER:
                    continue
                for row in lines[start + 2:]:
                    if not row.startswith("|"):
                        break
                    cells = [c.strip() for c in row.strip().strip("|").split(" | ")]
                    rows.append((cells[0], cells[1]))
    return rows


def has_row(rows, item: str, published: str) -> bool:
    return any(item in it and (pub == published or pub.startswith(published + " "))
               for it, pub in rows)


@pytest.mark.parametrize("name", sorted(STATED))
def test_every_stated_number_has_a_row(name):
    rows = table_rows(REPO / "notebooks" / name)
    assert rows, f"{name}: no reproduction table in the stored outputs"
    missing = [(quote, item, pub) for quote, item, pub in STATED[name]
               if not has_row(rows, item, pub)]
    assert not missing, f"{name}: stated numbers without a row:\n" + "\n".join(
        f"  {quote!r}: no row {item!r} with published {pub!r}" for quote, item, pub in missing)


def test_the_lists_are_reviewable():
    """Every notebook with a list is a reproduction, and every exclusion gives its reason."""
    for name in list(STATED) + list(EXCLUDED):
        assert (REPO / "notebooks" / name).exists(), name
    for reasons in EXCLUDED.values():
        assert all(reason.strip() for reason in reasons.values())
