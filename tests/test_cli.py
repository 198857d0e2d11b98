"""The command-line contract of ../shared/design.md section 2."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llm_arithmetic.cli import main

MODELS = Path(__file__).resolve().parents[1] / "lib" / "llm_arithmetic" / "catalog" / "data" / "models"
CONTRACT_KEYS = {"params_total", "params_active", "weight_bytes", "kv_cache_bytes_per_token",
                 "kv_cache_bytes", "decode_bytes_per_token", "decode_seconds_per_token",
                 "decode_tokens_per_second", "critical_batch_size"}


def _run(*args):
    return subprocess.run([sys.executable, "-m", "llm_arithmetic", *args], capture_output=True,
                          text=True, timeout=120)


def test_describe_real_config_json():
    # The acceptance check: Llama-2-7B's own config.json.
    r = _run("describe", str(MODELS / "llama-2-7b" / "config.json"), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert CONTRACT_KEYS <= out.keys()
    assert out["params_total"] == 6738415616
    assert out["kv_cache_bytes_per_token"] == 524288  # Baseten: 524288 bytes/token
    assert out["params_active"] == out["params_total"]
    assert out["weight_bytes"] == 2 * 6738415616


def test_describe_on_hardware(capsys):
    assert main(["describe", "mistral-7b", "--hardware", "rtx-4090", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # zeux: 14.2 GB of fp16 weights at 1008 GB/s take ~14.1 ms per token
    assert out["decode_seconds_per_token"] == pytest.approx(14.1e-3, abs=0.05e-3)
    assert out["decode_tokens_per_second"] == pytest.approx(1 / out["decode_seconds_per_token"])
    assert out["critical_batch_size"] > 1


def test_context_and_batch_scale_the_cache(capsys):
    main(["describe", "llama-2-7b", "--context", "4096", "--batch", "3", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["kv_cache_bytes"] == 524288 * 4096 * 3
    assert out["decode_bytes_per_token"] == out["decode_step_bytes"] - 2 * 524288 * 4096


def test_weight_formats_and_bits(capsys):
    main(["describe", "llama-2-7b", "--weights", "q4_0", "--json"])
    q4 = json.loads(capsys.readouterr().out)
    main(["describe", "llama-2-7b", "--weight-bits", "4.5", "--json"])
    b45 = json.loads(capsys.readouterr().out)
    assert q4["weight_bytes"] == b45["weight_bytes"] == 6738415616 * 9 // 16


def test_bandwidth_and_tflops_instead_of_a_device(capsys):
    main(["describe", "llama-2-7b", "--bandwidth-gbps", "100", "--tflops", "7", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["decode_seconds_per_token"] == pytest.approx(out["decode_bytes_per_token"] / 100e9)


def test_moe_reports_active_params(capsys):
    main(["describe", "mixtral-8x7b", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["params_active"] < out["params_total"]


def test_readable_table(capsys):
    assert main(["describe", "llama-2-7b", "--hardware", "a100-80gb-pcie"]) == 0
    text = capsys.readouterr().out
    assert "6,738,415,616" in text and "memory-bound" in text


@pytest.mark.parametrize("args,needle", [
    (["describe", "lama-2-7b"], "unknown model 'lama-2-7b'; did you mean llama-2-7b"),
    (["describe", "llama-2-7b", "--hardware", "a100"], "did you mean a100-"),
    (["describe", "llama-2-7b", "--context", "0"], "--context: must be positive"),
    (["describe", "llama-2-7b", "--batch", "-2"], "--batch: must be positive"),
    (["describe", "llama-2-7b", "--weight-bits", "-4"], "must be positive"),
    (["describe", "llama-2-7b", "--kv-bits", "abc"], "expected a positive number"),
    (["describe", "llama-2-7b", "--weights", "q5"], "unknown weight format 'q5'"),
    (["describe", "missing/config.json"], "no such config file"),
    # a folder is read for its config.json; one without it says so (not "[Errno 21] Is a
    # directory")
    (["describe", "tests/"], "tests is a folder with no config.json in it"),
    (["describe"], "required: MODEL"),
    (["frobnicate"], "invalid choice"),
    (["describe", "llama-2-7b", "--draft-len", "4", "--acceptance", "1"],
     "--acceptance: must be a number in [0, 1)"),
    (["describe", "llama-2-7b", "--engine", "vllm", "--gpu-memory-utilization", "1.5"],
     "--gpu-memory-utilization: must be a memory fraction in (0, 1]"),
    (["describe", "llama-2-7b", "--engine", "vllm", "--engine-kv-memory-gib", "0." + "0" * 50],
     "--engine-kv-memory-gib: expected a size in GiB in [0, 1e6), got a 52-character string"),
])
def test_bad_input_one_line_exit_2(capsys, args, needle):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("content,needle", [
    ('{"model_type": "llama",', "malformed JSON"),
    ('{"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, '
     '"num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": "big"}',
     "'intermediate_size' must be an integer"),
    ('{"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, '
     '"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 5, '
     '"intermediate_size": 11008}', "does not divide"),
    ('{"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, '
     '"num_hidden_layers": -1, "num_attention_heads": 32, "intermediate_size": 11008}',
     "'num_hidden_layers' must be positive"),
    ('{"vocab_size": 32000}', "missing field 'model_type'"),
])
def test_bad_config_files(tmp_path, content, needle):
    p = tmp_path / "config.json"
    p.write_text(content)
    r = _run("describe", str(p), "--json")
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1 and needle in r.stderr, r.stderr


def test_help_for_every_command():
    for args in (["--help"], ["describe", "--help"], ["models", "--help"],
                 ["hardware", "--help"], ["formula", "--help"]):
        r = _run(*args)
        assert r.returncode == 0 and "usage:" in r.stdout


def test_listing_commands(capsys):
    assert main(["models"]) == 0
    # Llama 2 7B's 6,738,415,616 parameters in billions, spelled out ("B" is bytes elsewhere)
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("llama-2-7b "))
    assert "6.738 billion params (6.738 billion active)" in line and " B " not in line
    assert main(["hardware"]) == 0
    out = {x.split()[0]: x for x in capsys.readouterr().out.splitlines()}
    # the peak a 16-bit model gets, named: the H100 SXM's dense fp16 (NVIDIA's datasheet:
    # 1,979 TFLOPS with sparsity), a TPU v7's bf16 (Google's page: 2,307; it lists no fp16),
    # and the fp32 rate where a chip lists no 16-bit one (a Ryzen 9 7950X)
    assert "989.40 TFLOP/s (fp16)" in out["h100-sxm"]
    assert "2307.00 TFLOP/s (bf16)" in out["tpu-v7"]
    assert "(fp32)" in out["ryzen-7950x"]
    assert main(["formula", "kv_cache_bytes_per_token"]) == 0
    assert "H_{kv}" in capsys.readouterr().out


def test_catalogs_as_json_for_other_tools(capsys):
    assert main(["hardware", "--json"]) == 0
    chips = json.loads(capsys.readouterr().out)
    h100 = chips["h100-sxm"]
    assert h100["bandwidth"] == 3.35e12 and h100["capacity"] == 80 * 2**30  # B/s, B
    assert h100["peaks"]["fp16"]["rate"] == 989.4e12 and h100["peaks"]["fp16"]["dense"]
    assert h100["peaks"]["fp16-sparse"]["dense"] is False
    assert all(p["source"].startswith(("https://", "http://")) for c in chips.values()
               for p in c["peaks"].values())  # every figure with its source
    assert h100["interconnect"]["scale_up_domain"] == 8
    assert chips["b200"]["figure_choices"][0]["quantity"] == "bandwidth"
    assert main(["models", "--json"]) == 0
    models = json.loads(capsys.readouterr().out)
    assert models["llama-2-7b"]["params_total"] == 6_738_415_616
    assert models["mixtral-8x7b"]["params_active"] < models["mixtral-8x7b"]["params_total"]
    assert models["llama-2-7b"]["layers"][0]["count"] == 32


def test_a_reader_that_stops_early_gets_no_error():
    """`llm-arithmetic formula --list | head -1`: the pipe closes, the command stops quietly
    (status 141, the shell's for SIGPIPE), with nothing on stderr."""
    import os
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is already gone: the first write fails with EPIPE
    try:
        r = subprocess.run([sys.executable, "-m", "llm_arithmetic", "formula", "--list"],
                           stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert (r.returncode, r.stderr) == (141, "")


def _rows(text):
    return {line[:line.index("  ")].strip(): line[line.index("  "):].strip()
            for line in text.splitlines() if "  " in line}


def test_a_speculative_forecast_says_it_is_one(capsys):
    """With a draft the forecast is of the speculative step: for Qwen3-8B on an H100 SXM it
    passes the plain forecast and stays under the speculative bound, and its heading says which
    bounds to read it against; a draft model of 28 blocks run four times a step pays their
    launches, and its forecast stays below the plain bound (3,350 GB/s over 16.4 GB a step:
    ~205 tokens/s). A draft given by its cost alone
    (1/36 of a step, one token accepted at 0.85) passes the plain forecast too."""
    def forecast_of(*extra):
        assert main(["describe", "qwen3-8b", "--hardware", "h100-sxm", *extra]) == 0
        out = capsys.readouterr().out
        rows = _rows("\n".join(line.strip() for line in out.splitlines()))
        head = next(line for line in out.splitlines() if line.startswith("forecast ("))
        return out, head, rows, float(rows["tokens/s per sequence"].split()[0].replace(",", ""))

    out, head, rows, fc = forecast_of("--draft-len", "4", "--acceptance", "0.8",
                                      "--draft", "qwen3-0.6b")
    assert "speculative" in head
    plain = float(rows["tokens/s per sequence (upper bound)"].replace(",", ""))
    spec = float(rows["tokens/s per sequence, speculative (bound)"].replace(",", ""))
    out0, head0, _, fc0 = forecast_of()
    assert "speculative" not in out0
    assert fc0 < fc < plain < spec
    # an MTP-like draft given explicitly (qwen3-8b declares no MTP module: --speculation mtp
    # is refused for it): one token at 0.85, a draft step 1/36 of a plain one
    _, _, rows1, fc1 = forecast_of("--draft-len", "1", "--acceptance", "0.85",
                                   "--draft-cost", str(1 / 36))
    assert fc0 < fc1 < float(rows1["tokens/s per sequence, speculative (bound)"]
                             .replace(",", ""))


def test_max_context_beyond_the_trained_context_says_so(capsys):
    """Llama 3.1 8B in bf16 on an 80 GiB H100: (80 x 2^30 - 2 x 8,030,261,248 B) over its
    131,072 B of cache a token (32 layers x 2 x 8 KV heads x 128 x 2 B) = 532,827 tokens fit,
    four times the 131,072 it is trained to (max_position_embeddings): the row says both."""
    assert main(["describe", "llama-3.1-8b", "--hardware", "h100-sxm"]) == 0
    row = _rows(capsys.readouterr().out)["max context at this batch"]
    fit = (80 * 2**30 - 2 * 8_030_261_248) // (32 * 2 * 8 * 128 * 2)
    assert row == f"{fit:,} (memory; the model is trained to 131,072)"
    assert main(["describe", "llama-3.1-8b", "--hardware", "rtx-4090", "--batch", "8"]) == 0
    assert "trained" not in _rows(capsys.readouterr().out)["max context at this batch"]


def test_describe_marks_what_does_not_fit(capsys):
    # Issue 28: Llama 3.1 70B in fp8 on one H100 SXM (80 GiB) with 32 sequences of 2,000 tokens:
    # 70.55e9 B of weights (its model card's 70.6B parameters at one byte) plus 32 x 2,000 x
    # 80 layers x 2 x 8 KV heads x 128 x 2 B = 21.0e9 B of cache do not fit in 85.9e9 B; on eight
    # chips they do. The one chip's speeds are not printed as reachable, the replica's are.
    assert main(["describe", "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "fp8",
                 "--tp", "8", "--prompt", "2000", "--generate", "500", "--batch", "32"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows["one chip: fits in memory"].startswith("no")
    assert rows["one chip: tokens/s per sequence (upper bound)"] == "- (does not fit in memory)"
    assert "does not fit" in rows["one chip: time per token (lower bound)"]
    assert "(fits in" in rows["memory per chip"]
    assert float(rows["tokens/s per user"].replace(",", "")) > 0
    # At batch 400 and 8,000 tokens two chips hold neither: no speed, no cost.
    assert main(["describe", "llama-3.1-70b", "--hardware", "h100-sxm", "--tp", "2",
                 "--batch", "400", "--context", "8000", "--price-per-hour", "2"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert "does not fit" in rows["memory per chip"]
    for key in ("tokens/s per user", "tokens/s per chip", "cost per million tokens"):
        assert rows[key] == "- (does not fit in memory)", key
    assert "does not fit" in rows["time per output token (bound)"]
    # The forecast under the bound says the same, row by row: one chip of the first setup holds
    # nothing, the replica does; the second replica holds nothing at all.
    assert main(["describe", "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "fp8",
                 "--tp", "8", "--prompt", "2000", "--generate", "500", "--batch", "32",
                 "--runtime", "vLLM"]) == 0
    out = capsys.readouterr().out
    forecast = _rows("\n".join(line.strip() for line in
                                out[out.index("forecast (with vLLM"):].splitlines()))
    assert forecast["one chip: tokens/s per sequence"] == "- (does not fit in memory)"
    assert float(forecast["tokens/s per chip"].split()[0].replace(",", "")) > 0
    assert main(["describe", "llama-3.1-70b", "--hardware", "h100-sxm", "--tp", "2",
                 "--batch", "400", "--context", "8000", "--runtime", "vLLM"]) == 0
    out = capsys.readouterr().out
    forecast = _rows("\n".join(line.strip() for line in
                                out[out.index("forecast (with vLLM"):].splitlines()))
    assert set(forecast.values()) == {"- (does not fit in memory)"}, forecast


def test_a_ttft_without_a_compute_peak_says_it_is_memory_only(capsys):
    """Vera Rubin's catalog entry lists fp4 alone (Jetson Thor's did, before its 16-bit rate was
    found), so a 16-bit Qwen3-8B has no peak there: its time to first token is the weights' read
    at 22 TB/s (under a millisecond) and no prefill's arithmetic, and the row says so; with
    --tflops it is a full bound again."""
    assert main(["describe", "qwen3-8b", "--hardware", "vera-rubin", "--prompt", "1000",
                 "--generate", "10"]) == 0
    assert "memory traffic only" in _rows(capsys.readouterr().out)["time to first token (bound)"]
    assert main(["describe", "qwen3-8b", "--hardware", "vera-rubin", "--tflops", "100",
                 "--prompt", "1000", "--generate", "10"]) == 0
    assert "memory" not in _rows(capsys.readouterr().out)["time to first token (bound)"]


def test_a_decode_bound_without_a_compute_peak_does_not_call_itself_memory_bound(capsys):
    """Llama 3.1 8B at batch 1,000 and a context of one token: the step reads about 16 GB
    (151 ms at 100 GB/s) and does, per sequence, 2 x 7,504,658,432 matrix-product FLOPs (its
    parameters outside the input embedding, config.json) and 4 d S = 4 x 4,096 x 1 attention
    FLOPs in each of 32 layers, 1.501 s at 10 TFLOP/s: given that peak the step is
    compute-bound. Given the bandwidth alone the bound is the memory
    traffic's time, and the row says that, not that the step is memory-bound."""
    assert main(["describe", "llama-3.1-8b", "--bandwidth-gbps", "100", "--batch", "1000"]) == 0
    row = _rows(capsys.readouterr().out)["time per token (lower bound)"]
    assert "memory-bound" not in row and "memory traffic only" in row
    assert main(["describe", "llama-3.1-8b", "--bandwidth-gbps", "100", "--batch", "1000",
                 "--explain", "decode_seconds_per_token"]) == 0
    out = capsys.readouterr().out
    assert "[memory_time]" in out and "-bound" not in out.split("[memory_time]")[1]
    assert main(["describe", "llama-3.1-8b", "--bandwidth-gbps", "100", "--tflops", "10",
                 "--batch", "1000"]) == 0
    row = _rows(capsys.readouterr().out)["time per token (lower bound)"]
    flops = 1000 * (2 * 7_504_658_432 + 32 * 4 * 4096 * 1)
    assert row == f"{flops / 10e12 * 1e3:,.3f} ms (compute-bound)"


def test_a_replica_of_chips_without_a_link_says_its_communication_is_left_out(capsys):
    """Two M2 Max: the catalog knows no link between them, so the all-reduces are not
    counted (--json: allreduce_seconds_per_token null) and tensor parallelism halves the
    time per output token for free; the table said nothing of it. With --link-gbps they
    are counted again."""
    assert main(["describe", "llama-3.1-8b", "--hardware", "m2-max", "--tp", "2",
                 "--prompt", "500"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert "give --link-gbps" in rows["scale-up link"]
    assert "leave communication out" in rows["all-reduce"]
    assert main(["describe", "llama-3.1-8b", "--hardware", "m2-max", "--tp", "2",
                 "--prompt", "500", "--link-gbps", "5"]) == 0
    out = capsys.readouterr().out
    assert _rows(out)["scale-up link"].startswith("5.0 GB/s") and "\n  all-reduces " in out


def test_a_replica_of_a_model_whose_cache_is_not_counted_prints_its_table(capsys,
                                                                          uncounted_cache):
    """A model whose cache is not counted (DeepSeek-V4-Flash's compressed attention before the
    library counted it, see the fixture): its cache, and with it the memory per chip, are left
    out (None); with serving options describe printed a TypeError's traceback instead of the
    table. It says 'not counted' there, as for the cache."""
    assert main(["describe", str(uncounted_cache), "--hardware", "h200", "--tp", "8",
                 "--prompt", "2000", "--generate", "200"]) == 0
    captured = capsys.readouterr()
    assert _rows(captured.out)["memory per chip"] == "not counted"
    assert "compressed attention" in captured.err


def test_frontier_and_plan_of_a_model_whose_cache_is_not_counted_say_so(capsys,
                                                                        uncounted_cache):
    """frontier said 'needs a chip' with --hardware given, and plan 'no configuration meets the
    targets', for a model whose cache (so every TPOT) is not counted: each exits 2 with one
    line that says what is missing."""
    path = str(uncounted_cache)
    assert main(["frontier", path, "--hardware", "h200", "--tp", "8"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert "not counted" in err and "chip" not in err
    assert main(["plan", path, "--ttft-ms", "500", "--tpot-ms", "50", "--hardware", "h200"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "KV cache, which is not counted" in err


def test_deepseek_v4_describe_counts_its_cache_and_says_what_a_token_adds(capsys):
    """DeepSeek-V4-Flash's compressed attention is counted (FAMILIES.md section 14.18): the
    cache at the context asked, what a step reads, the memory per chip of a replica; its cache
    is not proportional to the context, so the row 'KV cache per token' says so and prints
    the mean at this context instead of a figure per token (the JSON key stays null)."""
    path = str(Path(__file__).parent / "configs" / "deepseek-v4-flash.json")
    assert main(["describe", path, "--hardware", "h200", "--tp", "8", "--context", "4096",
                 "--kv-bits", "8"]) == 0
    captured = capsys.readouterr()
    rows = _rows(captured.out)
    # 29,114,368 B at 4,096 tokens and 8 bits (tests/test_configs_2026.py, by hand)
    assert rows["KV cache (context x batch)"].startswith("29,114,368 B")
    assert rows["KV cache per token"] == ("not proportional to the context; 7,108 B a token on "
                                          "average at this context")
    assert "not counted" not in captured.out and "compressed" not in captured.err
    # the hyper-connection head, in the total and read by every token: 16 d + 5 = 65,541, in
    # the active count 13,799,632,471 (tests/test_configs_2026.py, by hand)
    assert re.search(r"^  of which hyper-connection head +65,541$", captured.out, re.M)
    assert rows["parameters (active per token)"] == "13,799,632,471"
    assert main(["describe", path, "--context", "4096", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["kv_cache_bytes_per_token"] is None and d["kv_cache_bytes"] == 46_022_656
    assert d["params_active"] == 13_799_632_471


def test_an_extra_outside_the_total_is_not_printed_as_part_of_it(capsys):
    """DeepSeek-V3's total, 671,026,419,200, is the paper's 671B without the MTP module; the
    module is counted by hand from config.json (d = 7,168, V = 129,280): one MoE block
    11,507,286,272 (its router bias included), three norms 3 d, eh_proj 2 d^2 and its own
    embedding and head 2 V d: 13,463,426,304, which the 685B of the model card adds. The table
    must not print it as 'of which' under the total; Qwen3.5's vision tower, which its total
    counts, stays 'of which'."""
    assert main(["describe", "deepseek-v3"]) == 0
    out = capsys.readouterr().out
    assert "of which multi-token prediction" not in out
    assert re.search(r"^  not in the total: multi-token prediction +13,463,426,304$", out, re.M)
    assert re.search(r"^parameters \(total\) +671,026,419,200$", out, re.M)
    assert main(["describe", "qwen3.5-35b-a3b"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  not in the total: multi-token prediction +844,640,768$", out, re.M)
    assert re.search(r"^  of which vision tower and mergers +446,571,248$", out, re.M)


@pytest.mark.parametrize("name, attended", [
    # Flash at 131,072 tokens: 2 window-only layers read 128 rows, 21 CSA layers 128 + 512
    # (the indexer's top 512 of 32,768 entries), 20 HCA layers 128 + 131,072 / 128 = 1,152:
    # (256 + 13,440 + 23,040) / 43 = 854.3 rows, of which 128 window tokens in every layer and
    # (21 x 512 + 20 x 1,024) / 43 = 726.3 compressed entries
    ("deepseek-v4-flash", "854 per layer on average: 128 window tokens, 726 compressed entries"),
    # Pro: 30 CSA layers 128 + 1,024 (top 1,024), 31 HCA layers 128 + 1,024: 1,152 everywhere
    ("deepseek-v4-pro", "1,152 per layer on average: 128 window tokens, 1,024 compressed "
                        "entries"),
])
def test_deepseek_v4_attended_rows_are_split_into_window_tokens_and_compressed_entries(
        capsys, name, attended):
    """A compressed-attention layer reads window tokens and compressed entries (one per 4 or
    128 tokens): describe names the two instead of calling their sum tokens; other models keep
    the row 'attended context (windows)'."""
    path = str(Path(__file__).parent / "configs" / f"{name}.json")
    assert main(["describe", path, "--context", "131072"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows["attended rows (window, compressed)"] == attended
    assert "attended context (windows)" not in rows
    assert main(["describe", "gpt-oss-20b", "--context", "131072"]) == 0
    rows = _rows(capsys.readouterr().out)
    # 12 full layers of 131,072 and 12 sliding layers of 128: 65,600 tokens
    assert rows["attended context (windows)"] == "65,600 tokens per layer"
    assert "attended rows (window, compressed)" not in rows


@pytest.mark.parametrize("name, attended", [
    # DeepSeek-V3.2: every layer reads the indexer's top 2,048 tokens (config index_topk)
    ("deepseek-v3.2", "2,048 tokens per layer"),
    # MiniMax-M3: 3 full layers of 65,536 and 57 reading at most 2,048 positions per KV head
    # (config: sparse_attention_freq three 0s then 1s; sparse_topk_blocks 16 x
    # sparse_block_size 128): (3 x 65,536 + 57 x 2,048) / 60 = 5,222
    ("minimax-m3", "5,222 tokens per layer"),
])
def test_an_indexer_selected_context_is_labelled_selected(capsys, name, attended):
    """A sparse-attention indexer selects positions that no window describes: the row says
    'windows, selected'."""
    assert main(["describe", name, "--context", "65536"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows["attended context (windows, selected)"] == attended
    assert "attended context (windows)" not in rows


@pytest.mark.parametrize("args", [["--hardware", "a100-80gb-pcie"],
                                  ["--hardware", "tpu-v5e", "--runtime", "mlx-lm"]])
def test_describe_imports_only_what_it_uses(args):
    """``describe`` (its import and a run, forecast included) loads neither sympy nor the
    book's plots (matplotlib) nor the modules that parse the measurement files (the forecast's
    caveat reads two columns of them, up to the first row of the chip's kind) nor the
    explanations (``--explain`` only): each cost its start-up milliseconds, the CLI row of
    ``make bench``; a chip of a kind no row measured, with a runtime whose terms are pooled
    there, writes both caveats (they name the class in the catalog's words, without the
    plots that name it so)."""
    code = ("import contextlib, io, sys\n"
            "from llm_arithmetic.cli import main\n"
            "print(' '.join(sorted(sys.modules)))\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            f"    status = main(['describe', 'llama-3-8b', *{args!r}])\n"
            "print(status, out.getvalue().count('borrows'), ' '.join(sorted(sys.modules)))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    imported, ran = r.stdout.splitlines()
    status, caveats, *ran = ran.split()
    assert status == "0", r.stderr
    assert caveats == ("0" if "a100-80gb-pcie" in args else "2")
    assert "llm_arithmetic.forecast" in ran  # the forecast ran
    unused = {"sympy", "matplotlib", "llm_arithmetic.book", "llm_arithmetic.lab.calibration",
              "llm_arithmetic.lab.measurements", "llm_arithmetic.explain"}
    assert not unused & set(imported.split()), unused & set(imported.split())
    assert not unused & set(ran), unused & set(ran)


def test_usage_names_the_program_as_it_was_typed():
    """The usage lines name the program the user ran: the console script of pyproject.toml
    (``llm-arithmetic``, whose argv[0] is the script) or ``python -m llm_arithmetic``."""
    r = _run("describe", "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m llm_arithmetic describe ")
    script = ("import sys; sys.argv[0] = '/somewhere/bin/llm-arithmetic'; "
              "from llm_arithmetic.cli import main; sys.exit(main())")
    for args in (["describe", "--help"], ["--help"]):
        r = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0 and r.stdout.startswith(f"usage: llm-arithmetic {args[0]}"
                                                         if args[0] != "--help" else
                                                         "usage: llm-arithmetic [-h]"), r.stdout
    installed = Path(sys.executable).with_name("llm-arithmetic")
    if installed.exists():  # the console script itself, where the environment has it
        r = subprocess.run([str(installed), "hardware", "--help"], capture_output=True,
                           text=True, timeout=120)
        assert r.stdout.startswith("usage: llm-arithmetic hardware "), r.stdout


def test_json_forecast_of_a_setup_that_does_not_fit_is_null(capsys):
    """The table says 'does not fit in memory' instead of a forecast speed; --json printed the
    forecast's numbers all the same. Its keys are now null (with their ranges): Llama 3.1 70B
    at batch 400 and 8,000 tokens on two H100s holds neither chip nor replica (the cache alone,
    400 x 8,000 x 80 layers x 2 x 8 KV heads x 128 x 2 B = 1.05e12 B, is over 2 x 85.9e9 B).
    The bound keys keep their numbers beside the fit flags; a setup whose replica fits but
    whose one chip does not keeps the replica's forecast and loses the one chip's."""
    keys = ("expected_decode_tokens_per_second", "expected_ttft_seconds",
            "expected_tpot_seconds", "expected_tokens_per_second_per_chip")
    assert main(["describe", "llama-3.1-70b", "--hardware", "h100-sxm", "--tp", "2", "--batch",
                 "400", "--context", "8000", "--prompt", "1000", "--runtime", "vLLM",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["fits"] is False and d["fits_per_chip"] is False
    for key in keys:
        assert d[key] is None and d[key + "_range"] is None, key
    assert d["tpot_seconds"] > 0 and d["decode_tokens_per_second"] > 0
    assert main(["describe", "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "fp8",
                 "--tp", "8", "--prompt", "2000", "--generate", "500", "--batch", "32",
                 "--runtime", "vLLM", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["fits"] is False and d["fits_per_chip"] is True
    assert d["expected_decode_tokens_per_second"] is None
    for key in keys[1:]:
        assert d[key] > 0 and len(d[key + "_range"]) == 2, key



def test_describe_state_bits_of_kimi_linear_default_and_asked(capsys):
    """describe's default counts a Kimi delta attention layer's recurrent matrices at 32 bits
    (vLLM keeps them in float32 whatever is asked) and its convolution windows at 16 bits
    whatever --kv-bits says (vLLM's --mamba-cache-dtype auto: the model's dtype); --ssm-bits
    sets the matrices' bits. From the config's linear_attn_config: 20 KDA layers,
    32 heads of 128 (a 128 x 128 matrix each), short_conv_kernel_size 4 (3 inputs kept for q,
    k and v)."""
    cfg = json.loads((MODELS / "kimi-linear-48b-a3b" / "config.json").read_text())
    lin = cfg["linear_attn_config"]
    layers, heads, d = len(lin["kda_layers"]), lin["num_heads"], lin["head_dim"]
    matrix = layers * heads * d * d
    window = layers * 3 * heads * d * (lin["short_conv_kernel_size"] - 1)
    for extra, want in (([], matrix * 4 + window * 2),
                        (["--ssm-bits", "16"], (matrix + window) * 2),
                        (["--kv-bits", "8"], matrix * 4 + window * 2)):
        assert main(["describe", "kimi-linear-48b-a3b", "--json", *extra]) == 0
        assert json.loads(capsys.readouterr().out)["state_bytes"] == want, extra


def test_an_integer_rate_is_labelled_in_operations_not_flops():
    """llama.cpp multiplies a Q4_0 model on an RTX 4090 in int8: the peak is the Ada
    whitepaper's 660.6 dense INT8 TOPS, integer operations, so the table and --explain print it
    in TOP/s and the ops:byte ratio in OP/B; at 16 bits the same card's rate stays in FLOP/s
    (330.3 TFLOPS, fp16 with fp16 accumulation)."""
    r = _run("describe", "llama-2-7b", "--hardware", "rtx-4090", "--weights", "q4_0",
             "--explain", "ops_per_byte")
    table, explained = r.stdout.split("ops_per_byte =")
    assert r.returncode == 0 and "dense peak (int8)" in table and "660.6 TOP/s" in table
    # attention multiplies by the 16-bit cache, at fp16 (its own row); nothing else is FLOP/s
    weights_rows = [line for line in table.splitlines() if not line.startswith("attention's")]
    assert re.search(r"attention's peak \(fp16-acc16\)\s+330\.3 TFLOP/s", table)
    assert all("TFLOP/s" not in line for line in weights_rows) and "FLOP/B" not in table
    assert re.search(r"= \S+ OP/B", explained)
    r = _run("describe", "llama-2-7b", "--hardware", "rtx-4090")
    assert r.returncode == 0 and "330.3 TFLOP/s" in r.stdout and "FLOP/B" in r.stdout


def test_a_request_of_one_token():
    """--generate 0: the request is its prefill and its first token (the API's generate=0), so
    its time is the time to first token; a negative count is still refused."""
    r = _run("describe", "llama-3-8b", "--hardware", "h100-sxm", "--prompt", "100",
             "--generate", "0", "--json")
    d = json.loads(r.stdout)
    assert r.returncode == 0 and d["request_seconds"] == d["ttft_seconds"]
    r = _run("describe", "llama-3-8b", "--prompt", "100", "--generate", "-1")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    # the message states the rule that holds: 0 is allowed ('must be positive' said it was not)
    assert "--generate: must be 0 or more, got -1" in r.stderr


def test_the_forecast_says_where_it_extrapolates():
    """The decode terms are fitted to single streams on one chip (issue 30's rows): a forecast
    at a larger batch or over several chips says it is an extrapolation; at batch 1 on one chip
    it says nothing of the kind."""
    r = _run("describe", "llama-3-8b", "--hardware", "h100-sxm", "--batch", "64", "--tp", "2",
             "--prompt", "1000", "--runtime", "vllm")
    assert r.returncode == 0
    assert "fitted at batch 1 on one chip: at batch 64 over 2 chips an extrapolation" in r.stdout
    r = _run("describe", "llama-3-8b", "--hardware", "h100-sxm")
    assert r.returncode == 0 and "forecast" in r.stdout and "extrapolation" not in r.stdout


def test_frontier_says_what_its_times_leave_out(capsys):
    """frontier printed a curve on a chip without a compute peak (Vera Rubin's catalog entry has
    none) whose tokens/s per chip grow with the batch without end, and a tp 2 curve on M2 Max
    chips (no catalogued link between two Macs) with the all-reduces silently left out; describe
    says both. The header now says so, and says nothing of the kind on an H100 SXM (a peak and
    NVLink)."""
    assert main(["frontier", "llama-3.1-8b", "--hardware", "vera-rubin", "--batch", "2"]) == 0
    out = capsys.readouterr().out
    assert "memory traffic only" in out and "give --tflops" in out
    assert main(["frontier", "llama-3.1-8b", "--hardware", "m2-max", "--tp", "2",
                 "--batch", "2"]) == 0
    out = capsys.readouterr().out
    assert "communication not counted" in out and "give --link-gbps" in out
    assert main(["frontier", "llama-3.1-8b", "--hardware", "h100-sxm", "--tp", "2",
                 "--batch", "2"]) == 0
    out = capsys.readouterr().out
    assert "not counted" not in out and "memory traffic only" not in out
    # describe's time per output token on the chip without a peak says it too, as its time to
    # first token did
    assert main(["describe", "llama-3.1-8b", "--hardware", "vera-rubin", "--prompt", "100"]) == 0
    row = _rows(capsys.readouterr().out)["time per output token (bound)"]
    assert "memory traffic only" in row


def test_hardware_help_names_every_unit_its_json_uses(capsys):
    """'hardware --json' promised every field in 'B/s, B, FLOP/s, W, s', while the int8 peaks
    it prints (H100 SXM: 1,978.9 T a second, NVIDIA's datasheet counts integer operations,
    TOPS) carry 'unit': 'OP/s'. The help names every unit the JSON's peaks carry."""
    assert main(["hardware", "--json"]) == 0
    chips = json.loads(capsys.readouterr().out)
    units = {p["unit"] for c in chips.values() for p in c["peaks"].values()}
    assert units == {"FLOP/s", "OP/s"}
    assert chips["h100-sxm"]["peaks"]["int8"]["unit"] == "OP/s"
    r = _run("hardware", "--help")
    assert all(u in " ".join(r.stdout.split()) for u in units)


def test_frontier_refuses_a_context_it_would_ignore(capsys):
    """frontier --context 4096 --prompt 1000 printed a curve at 1,000.5 tokens of context (the
    request's mean decode context, 1,000 + (0 + 1) / 2) and its memory at 1,000 tokens: the
    --context its help calls the tokens in each sequence's cache changed nothing. The pair is
    refused in one line; either alone is the curve at that context (4,096 tokens alone:
    the header's 4,096, the TPOT of describe --context 4096)."""
    assert main(["frontier", "llama-3.1-8b", "--hardware", "h100-sxm", "--context", "4096",
                 "--prompt", "1000", "--batch", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--context" in err and "--prompt" in err
    assert main(["frontier", "llama-3.1-8b", "--hardware", "h100-sxm", "--context", "4096",
                 "--batch", "1", "--json"]) == 0
    tpot = json.loads(capsys.readouterr().out)[0]["tpot_seconds"]
    assert main(["describe", "llama-3.1-8b", "--hardware", "h100-sxm", "--context", "4096",
                 "--json"]) == 0
    assert tpot == pytest.approx(json.loads(capsys.readouterr().out)["decode_seconds_per_token"],
                                 rel=1e-6)


def test_an_error_names_the_flag_not_the_keyword():
    """An error the API raises under its keyword (``draft_len: ...``) names the command's flag
    at the command line (``--draft-len``), in describe and in plan alike."""
    for cmd in (["describe", "qwen3-8b", "--hardware", "h100-sxm"],
                ["plan", "qwen3-8b", "--ttft-ms", "500", "--tpot-ms", "20",
                 "--hardware", "h100-sxm"]):
        r = _run(*cmd, "--draft", "qwen3-0.6b")
        assert r.returncode == 2 and r.stderr.count("\n") == 1
        assert "error: --draft-len: speculative decoding needs the draft length" in r.stderr


def test_an_engine_pool_below_zero_says_the_engine_would_not_start(capsys):
    """vLLM at --gpu-memory-utilization 0.1 on an RTX 5090 (32 GiB): 3.2 GiB for Qwen3-8B's
    16,381,470,720 B of weights (15.26 GiB) and the empirical 3.41 GiB reserve leaves
    3.2 - 15.26 - 3.41 = -15.47 GiB; vLLM refuses to start ('No available memory for the cache
    blocks'). The table printed the negative pool as if it were memory."""
    assert main(["describe", "qwen3-8b", "--hardware", "rtx-5090", "--engine", "vllm",
                 "--gpu-memory-utilization", "0.1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  cache pool memory +-15\.47 GiB \(below zero: the weights and reserve "
                     r"exceed the engine's share of the memory; it would not start\)$", out, re.M)
    assert re.search(r"^  KV cache tokens +0$", out, re.M)
    assert main(["describe", "qwen3-8b", "--hardware", "rtx-5090", "--engine", "vllm"]) == 0
    assert "below zero" not in capsys.readouterr().out


def test_a_runtime_without_a_chip_says_the_forecast_needs_one(capsys):
    """A forecast stretches the bound's time per token, which needs a bandwidth: with a runtime
    named and no chip, describe says so instead of printing nothing."""
    assert main(["describe", "qwen3-8b", "--runtime", "vllm"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows["forecast (with vLLM)"] == "- (needs a chip: --hardware or --bandwidth-gbps)"
    assert main(["describe", "qwen3-8b"]) == 0
    assert not any(k.startswith("forecast") for k in _rows(capsys.readouterr().out))


def test_the_json_says_which_extras_the_total_counts(capsys):
    """``params_extra_in_total`` tells a JSON reader what the table says with 'of which' and
    'not in the total': DeepSeek-V3's published 671B leaves its multi-token-prediction module
    out (the model card: 671B of the main model plus 14B of MTP, 685B on the Hub), Gemma 3's
    published 27B counts its SigLIP vision tower (the total is over the language model's)."""
    assert main(["describe", "deepseek-v3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["params_extra_in_total"] == {"multi-token prediction": False}
    assert d["params_total"] < 672e9 < d["params_total"] + d["params_extra"]["multi-token prediction"]
    assert main(["describe", "gemma-3-27b", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["params_extra_in_total"] == {"vision tower and projector": True}
    assert d["params_total"] == d["params_language_model"] + d["params_extra"]["vision tower and projector"]


NANO_CONFIG = Path(__file__).resolve().parent / "configs" / "nvidia-nemotron-3-nano-30b-a3b-bf16.json"


def test_describe_splits_the_state_at_the_bits_the_config_names(capsys):
    # Nemotron 3 Nano's config.json: 23 'M' blocks of mamba_num_heads 64 x mamba_head_dim 64
    # (4,096 inner channels), ssm_state_size 128, n_groups 8, conv_kernel 4,
    # mamba_ssm_cache_dtype float32. By hand: each M block keeps one recurrent matrix of
    # 64 x 64 x 128 at 4 B and a convolution window of 3 positions x (4,096 + 2 x 8 x 128)
    # channels (x, B, C) at 2 B.
    cfg = json.loads(NANO_CONFIG.read_text())
    m_blocks = cfg["hybrid_override_pattern"].count("M")
    assert (m_blocks, cfg["mamba_ssm_cache_dtype"]) == (23, "float32")
    matrix = 64 * 64 * 128 * 4
    window = (4 - 1) * (64 * 64 + 2 * 8 * 128) * 2
    assert main(["describe", str(NANO_CONFIG), "--context", "4096", "--batch", "3",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["state_matrix_bytes"] == 3 * m_blocks * matrix
    assert out["state_bytes"] - out["state_matrix_bytes"] == 3 * m_blocks * window
    # the table says at which bits and why
    assert main(["describe", str(NANO_CONFIG), "--context", "4096", "--batch", "3"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines()
               if "of which recurrent matrices" in line)
    assert f"{3 * m_blocks * matrix:,} B" in row
    assert "at 32 bits, the dtype the checkpoint's config.json names" in row
    assert "convolution windows, the rest, at 16 bits" in row
    # --ssm-bits overrides the config: the matrices at 16 bits, the windows unchanged
    assert main(["describe", str(NANO_CONFIG), "--context", "4096", "--batch", "3",
                 "--ssm-bits", "16", "--json"]) == 0
    half = json.loads(capsys.readouterr().out)
    assert half["state_matrix_bytes"] == out["state_matrix_bytes"] // 2
    assert (half["state_bytes"] - half["state_matrix_bytes"]
            == out["state_bytes"] - out["state_matrix_bytes"])


def test_describe_a_state_whose_config_names_no_dtype(capsys, tmp_path):
    # the same file without mamba_ssm_cache_dtype: the matrices at the state's 16 bits, and the
    # table says the config names none; a dtype it does not know is refused naming the field
    cfg = json.loads(NANO_CONFIG.read_text())
    del cfg["mamba_ssm_cache_dtype"]
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    assert main(["describe", str(p), "--context", "4096", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["state_matrix_bytes"] == 23 * 64 * 64 * 128 * 2
    assert main(["describe", str(p), "--context", "4096"]) == 0
    row = capsys.readouterr().out
    assert "at 16 bits, the state's (config.json names no dtype for it)" in row
    # a Nemotron-H file: the row says vLLM keeps these matrices in float32 then (vLLM's
    # NemotronHForCausalLMConfig.DEFAULT_MAMBA_SSM_CACHE_DTYPE = "float32",
    # vllm/model_executor/models/config.py, https://github.com/vllm-project/vllm/pull/39032)
    assert "vllm keeps this family's in float32 when the file names none" in row
    assert "--ssm-bits 32 counts them so" in row
    cfg["mamba_ssm_cache_dtype"] = "float8"
    p.write_text(json.dumps(cfg))
    r = _run("describe", str(p), "--json")
    assert r.returncode == 2 and "'mamba_ssm_cache_dtype'" in r.stderr, r.stderr


def test_no_state_no_matrix_row(capsys):
    assert main(["describe", "llama-3-8b", "--context", "4096", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["state_bytes"] == out["state_matrix_bytes"] == 0
    assert main(["describe", "llama-3-8b", "--context", "4096"]) == 0
    assert "recurrent matrices" not in capsys.readouterr().out


def test_running_the_module_from_python_raises_systemexit(capsys, monkeypatch):
    # __main__ ends a `python -m llm_arithmetic` process without the interpreter's shutdown;
    # a program that runs the module itself (runpy, as IPython's %run -m does) must get
    # SystemExit, which it may catch, even where no atexit handler or thread would otherwise
    # send it down the usual exit: the process is not killed under it
    import atexit
    import os
    import runpy
    import threading

    def killed(status):
        raise AssertionError(f"os._exit({status}) in a program that ran the module")

    monkeypatch.setattr(os, "_exit", killed)
    monkeypatch.setattr(atexit, "_ncallbacks", lambda: 0, raising=False)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(sys, "argv", ["llm_arithmetic", "hardware"])
    with pytest.raises(SystemExit) as exc:
        runpy.run_module("llm_arithmetic", run_name="__main__")
    assert exc.value.code == 0 and "h100-sxm" in capsys.readouterr().out


def test_plan_help_states_the_mean_context_the_code_uses(capsys):
    """``plan --help`` said TPOT is taken at "prompt + half the generated tokens"; the decode
    steps after the first token see T + 1, ..., T + G cached tokens, whose mean is
    T + (G + 1) / 2 (the sum of 1..G is G(G + 1)/2): the help says that, and the formula
    agrees (T = 1,024, G = 256: 1,024 + 128.5 = 1,152.5 tokens, worked by hand)."""
    from llm_arithmetic.numeric import mean_decode_context

    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "half the generated" not in text
    assert "(--prompt + (--generate + 1) / 2 tokens" in text, text
    assert mean_decode_context(prompt=1024, generated=256) == 1152.5


def test_error_and_warning_lines_name_the_program_as_the_usage_lines_do(monkeypatch, capsys):
    """Run as the console script, the usage lines say ``llm-arithmetic``: its error lines say
    ``llm-arithmetic: error:`` too (they said ``llm_arithmetic``, the module's name); run as
    ``python -m llm_arithmetic`` (or from Python), ``llm_arithmetic: error:`` as before."""
    monkeypatch.setattr(sys, "argv", ["/env/bin/llm-arithmetic", "plan", "--ttft-ms", "x",
                                      "--tpot-ms", "1"])
    assert main() == 2
    assert capsys.readouterr().err.startswith("llm-arithmetic: error: argument --ttft-ms: ")
    monkeypatch.setattr(sys, "argv", ["/lib/llm_arithmetic/__main__.py", "plan", "--ttft-ms",
                                      "x", "--tpot-ms", "1"])
    assert main() == 2
    assert capsys.readouterr().err.startswith("llm_arithmetic: error: argument --ttft-ms: ")
    assert main(["plan", "--ttft-ms", "x", "--tpot-ms", "1"]) == 2
    assert capsys.readouterr().err.startswith("llm_arithmetic: error: ")
