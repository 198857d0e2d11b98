"""The engine's view (llm_arithmetic.engine) against published engine log lines
(tests/data/engine_logs.toml, each with its source), within 5%; the engine flags on the command
line; bad engine input named in one line."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest

from llm_arithmetic.core.errors import InputError
from llm_arithmetic.engine import ENGINES, check_log_line, engine_view

ROOT = Path(__file__).resolve().parents[1]
LINES = tomllib.loads((ROOT / "tests" / "data" / "engine_logs.toml")
                      .read_text(encoding="utf-8"))["lines"]


def test_enough_sourced_lines_of_every_paged_and_cell_engine():
    assert {line["engine"] for line in LINES} >= {"vllm", "sglang", "llama.cpp"}
    assert all(line["source"].startswith(("https://", "index file id ")) for line in LINES)
    assert len(LINES) >= 15
    assert len({line["id"] for line in LINES}) == len(LINES)


@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_engine_view_within_five_percent_of_the_log(line):
    got, want = check_log_line(line, ROOT)
    assert got == pytest.approx(want, rel=0.05), (got, want)


def test_every_engine_rule_has_a_source():
    for name, spec in ENGINES.items():
        assert spec["rules"], name
        assert all("http" in r or any(x in r for x in (".py", ".cpp", ".h)")) for r in spec["rules"]), name
        if "reserve" in spec:
            assert "http" in spec["reserve_source"], name


def test_windowed_layers_whole_in_a_pool_and_their_window_in_llama_cpp():
    whole = engine_view("gpt-oss-20b", "llama.cpp", flags={"--ctx-size": 8192,
                                                           "--swa-full": True})
    window = engine_view("gpt-oss-20b", "llama.cpp", flags={"--ctx-size": 8192})
    assert whole.engine_kv_cache_bytes == 8192 * whole.engine_kv_bytes_per_token
    assert window.engine_kv_cache_bytes < whole.engine_kv_cache_bytes


def test_tensor_parallelism_never_splits_below_one_head_per_chip():
    one = engine_view("llama-3.1-8b", "vllm", kv_memory_gib=1)
    eight = engine_view("llama-3.1-8b", "vllm", kv_memory_gib=1, tp=8)
    sixteen = engine_view("llama-3.1-8b", "vllm", kv_memory_gib=1, tp=16)
    assert one.engine_kv_bytes_per_token == 8 * eight.engine_kv_bytes_per_token
    assert sixteen.engine_kv_bytes_per_token == eight.engine_kv_bytes_per_token


def test_bad_engine_input_names_the_flag():
    with pytest.raises(InputError, match="--ctx-size"):
        engine_view("llama-3.1-8b", "vllm", flags={"--ctx-size": 4096})
    with pytest.raises(InputError, match="--gpu-memory-utilization"):
        engine_view("llama-3.1-8b", "vllm", hardware="h100-sxm",
                    flags={"--gpu-memory-utilization": 1.5})
    with pytest.raises(InputError, match="engine"):
        engine_view("llama-3.1-8b", "ollama")


@pytest.mark.parametrize("layout, named", [({"tp": 2}, "tp"), ({"pp": 2}, "pp")])
def test_llama_cpp_over_several_devices_names_the_degree_given(layout, named):
    """llama.cpp's view is of one device: asked with a pipeline degree alone, the refusal
    names pp, the option given (it named tp, which was not)."""
    with pytest.raises(InputError, match=f"^{named}: the llama.cpp view is of one device"):
        engine_view("qwen3-8b", "llama.cpp", hardware="rtx-4090", **layout)


@pytest.mark.parametrize("kwargs, field", [
    ({"flags": {"--max-model-len": float("inf")}, "kv_memory_gib": 1}, "--max-model-len"),
    ({"flags": {"--max-num-seqs": float("nan")}, "kv_memory_gib": 1}, "--max-num-seqs"),
    ({"capacity": "80", "flags": {"--gpu-memory-utilization": 0.9}}, "capacity"),
    ({"reserve_gib": -1.0, "kv_memory_gib": 1}, "reserve_gib"),
    ({"kv_memory_gib": True}, "kv_memory_gib"),
])
def test_bad_numbers_are_one_line_errors_naming_the_argument(kwargs, field):
    with pytest.raises(InputError, match=field) as err:
        engine_view("llama-3.1-8b", "vllm", **kwargs)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("name", ["deepseek-v4-flash", "deepseek-v4-pro"])
@pytest.mark.parametrize("engine", ["vllm", "llama.cpp"])
def test_a_cache_the_library_does_not_count_is_refused_not_zero(name, engine):
    """DeepSeek-V4's compressed attention: its cache at a context is counted, but what an
    engine's page allocator makes of it is not: vLLM (deepseek_v4_attention.py @ b92a330e,
    sparse_swa.py @ 03dc5649) keeps rows of 584 B and indexer keys of 132 B in cache groups
    whose pages differ (the window in blocks of 64 tokens, pages aligned to 576 B), and how its
    KV cache manager fits them into one pool was not read. The view refuses it (it printed 0 B
    a token and an infinite pool), in one line naming the engine and what is missing."""
    with pytest.raises(InputError, match=rf"{name}: the engine view does not model what "
                                         rf"{re.escape(engine)} allocates for DeepSeek-V4's "
                                         r"compressed attention") as err:
        engine_view(str(ROOT / "tests" / "configs" / f"{name}.json"), engine,
                    kv_memory_gib=10)
    msg = str(err.value)
    assert "\n" not in msg
    parts = ("blocks of 64 tokens", "584 B", "132 B", "576 B", "float32 state",
             "KV cache manager") if engine == "vllm" else ("how llama.cpp stores it was not "
                                                           "read",)
    for part in parts + ("the cache at a given context is counted (describe without "
                         "--engine)",):
        assert part in msg, part


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "llm_arithmetic", "describe", *args],
                          capture_output=True, text=True, timeout=120)


def test_cli_takes_the_engines_own_flags_and_prints_the_json_keys():
    r = _cli("qwen3-1.7b", "--engine", "vllm", "--engine-kv-memory-gib", "18.78",
             "--gpu-memory-utilization", "0.9", "--block-size", "16", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    for key in ("engine_weights_bytes", "engine_reserved_bytes", "engine_kv_cache_bytes",
                "engine_kv_bytes_per_token", "engine_kv_cache_tokens"):
        assert key in d
    assert d["engine_kv_cache_tokens"] == pytest.approx(175856, rel=0.05)
    r = _cli("qwen3-1.7b", "--ctx-size", "4096")
    assert r.returncode == 2 and "--engine" in r.stderr and r.stderr.count("\n") == 1


def test_max_concurrency_is_the_pool_over_the_longest_request():
    """vLLM's start-up log of Qwen2.5-7B (28 layers x 4 KV heads x 128, 56 KiB a token at 16
    bits): 'Available KV cache memory: 8.0 GiB', 'GPU KV cache size: 149,712 tokens',
    'Maximum concurrency for 32,768 tokens per request: 4.57x' (a user's notes, find_string id
    57428438798). The view from the printed 8.0 GiB holds 80 tokens more (the engine's own
    memory was 7.996 GiB unrounded) and prints the same concurrency."""
    v = engine_view("qwen2.5-7b", "vllm", kv_memory_gib=8.0,
                    flags={"--max-model-len": 32768})
    assert v.engine_kv_bytes_per_token == 57344
    assert 0 <= v.engine_kv_cache_tokens - 149_712 <= 96
    assert f"{v.max_concurrency:.2f}" == "4.57"
    assert engine_view("qwen2.5-7b", "vllm", kv_memory_gib=8.0).max_concurrency is None


def test_llama_cpp_recurrent_state_beside_the_cache():
    """llama.cpp keeps a hybrid's state-space state in f32, one copy per sequence, beside the
    attention layers' cells. A user's llama-server log of Qwen3.5-27B with -c 131072 -np 1
    (find_string id 58671331675): 'llama_kv_cache: size = 8192.00 MiB (131072 cells, 16
    layers, 1/1 seqs)' and 'llama_memory_recurrent: size = 149.62 MiB (1 cells, 64 layers, 1
    seqs), R (f32): 5.62 MiB, S (f32): 144.00 MiB'."""
    from llm_arithmetic.catalog.model_catalog import read_config
    from llm_arithmetic.core.units import MiB

    m = read_config(ROOT / "tests" / "configs" / "qwen3.5-27b.json")
    v = engine_view(m, "llama.cpp", flags={"--ctx-size": 131072, "--parallel": 1})
    assert v.engine_kv_cache_bytes == 8192 * MiB
    assert f"{v.engine_state_bytes / MiB:.2f}" == "149.62"   # R 5.62 + S 144.00 MiB
    four = engine_view(m, "llama.cpp", flags={"--ctx-size": 131072, "--parallel": 4})
    assert four.engine_state_bytes == 4 * v.engine_state_bytes
    assert engine_view("llama-3-8b", "llama.cpp").engine_state_bytes == 0


def test_paged_view_of_a_hybrid_warns_where_the_state_pages_are_not_modelled():
    """vLLM keeps a hybrid's state-space state in pages of its pool (the attention pages
    widened to the state's page size; kaito-project/kaito PR 2052, vllm issue 40691): the view
    models it for Gated DeltaNet and Mamba-2 hybrids on one chip, and warns elsewhere (KDA
    layers, tensor parallelism, other paged engines); a model without state layers gets no
    warning."""
    with pytest.warns(UserWarning, match="state-space or linear-attention layers"):
        v = engine_view("kimi-linear-48b-a3b", "vllm", kv_memory_gib=20)
    assert v.engine_state_bytes is None and v.engine_block_tokens is None
    with pytest.warns(UserWarning, match="tensor or pipeline parallelism"):
        engine_view("qwen3.5-35b-a3b", "vllm", kv_memory_gib=20, tp=2)
    with pytest.warns(UserWarning, match="not modelled for sglang"):
        engine_view("qwen3.5-35b-a3b", "sglang", kv_memory_gib=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        engine_view("llama-3-8b", "vllm", kv_memory_gib=20)
        engine_view("nemotron-h-56b", "llama.cpp")  # llama.cpp's state is modelled
        assert engine_view("qwen3.5-35b-a3b", "vllm", kv_memory_gib=20).engine_block_tokens


HYBRID = [line for line in LINES if "block_tokens" in line]


@pytest.mark.parametrize("line", HYBRID, ids=[line["id"] for line in HYBRID])
def test_hybrid_block_padding_and_concurrency_as_vllm_prints_them(line):
    """The other figures a hybrid's vLLM log prints: the attention block size (exact), the
    padding of the state page (two decimals) and the maximum concurrency (two decimals)."""
    flags = {"--max-model-len": line["max_model_len"], "--mamba-cache-mode": line["mamba_mode"],
             "--kv-cache-dtype": line.get("kv_dtype", "auto"),
             "--mamba-ssm-cache-dtype": line.get("ssm_dtype", "auto")}
    model = str(ROOT / line["model"]) if line["model"].endswith(".json") else line["model"]

    def view(gib):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a modelled hybrid: no "not modelled" warning
            return engine_view(model, "vllm", kv_memory_gib=gib, flags=flags)

    v = view(line["kv_memory_gib"])
    assert v.engine_block_tokens == line["block_tokens"]
    pad = 100 * (v.engine_page_bytes - v.engine_state_page_bytes) / v.engine_state_page_bytes
    assert f"{pad:.2f}" == f"{line['padding_percent']:.2f}"
    # the log prints the memory to two decimals of GiB: the concurrency it prints lies between
    # the view's at the two ends of that interval (vLLM divides the unrounded memory)
    low, high = (view(line["kv_memory_gib"] + d).max_concurrency for d in (-0.005, 0.005))
    assert round(low, 2) <= line["concurrency"] <= round(high, 2), (low, high)


def test_hybrid_pool_of_vllm_issue_40691():
    """vLLM issue 40691 (vLLM 0.19.0, Qwen3.5-27B, --max-model-len 32768, prefix caching off:
    one state block a request) prints 'GPU KV cache size: 290,864 tokens' and 'Maximum
    concurrency for 32,768 tokens per request: 33.04x' without the memory. Second derivation:
    Qwen3.5-27B's state page (48 value heads of 128 x 128 at float32, its config's
    mamba_ssm_dtype, and a convolution window of 3 x 10,240 at 16 bits: 3,207,168 B) over an
    attention token of 4 KV heads x 256 x 2 x 2 B = 4,096 B gives blocks of
    16 x ceil(3,207,168 / 65,536) = 784 tokens; 16 attention and 48 state layers make 1 + 3
    groups of 16; 1,487 blocks then print 1,487 // 4 x 784 = 290,864 tokens and
    1,487 / (ceil(32,768 / 784) + 3) = 33.04x, both lines at once."""
    from llm_arithmetic.numeric import hybrid_concurrency, hybrid_tokens

    assert 48 * 128 * 128 * 4 + 3 * (2 * 16 * 128 + 48 * 128) * 2 == 3207168
    page = 784 * 4096
    v = engine_view("qwen3.5-27b", "vllm", kv_memory_gib=1487 * 16 * page / 2**30,
                    flags={"--max-model-len": 32768})
    assert (v.engine_state_page_bytes, v.engine_block_tokens, v.engine_page_bytes) == (
        3207168, 784, page)
    assert (v.engine_kv_groups, v.engine_pool_blocks) == (4, 1487)
    assert v.engine_kv_cache_tokens == hybrid_tokens(pool_blocks=1487, kv_groups=4,
                                                     page_tokens=784) == 290864
    assert f"{v.max_concurrency:.2f}" == "33.04"
    assert hybrid_concurrency(pool_blocks=1487, attn_groups=1, state_groups=3,
                              max_model_len=32768, page_tokens=784) == v.max_concurrency


NANO = ROOT / "tests" / "configs" / "nvidia-nemotron-3-nano-30b-a3b-bf16.json"


def _altered(tmp_path, path, scope, key, value):
    """A copy of the config at ``path`` with ``key`` of ``scope`` (None: the top level) set to
    ``value`` (removed when it is None)."""
    config = json.loads(path.read_text())
    where = config if scope is None else config[scope]
    if value is None:
        where.pop(key, None)
    else:
        where[key] = value
    out = tmp_path / path.name
    out.write_text(json.dumps(config))
    return str(out)


def test_mamba2_state_page_from_the_checkpoint_dtype(tmp_path):
    """The recurrent state's dtype is the family reader's (Nemotron-H's mamba_ssm_cache_dtype
    in config.json), and vLLM's --mamba-ssm-cache-dtype auto takes it. Second derivation for
    Nemotron 3 Nano (64 heads of 64, 8 groups, state 128, kernel 4; 2 KV heads of 128 at fp8:
    512 B a token): a convolution window of 3 x (4,096 + 2 x 8 x 128) at 16 bits, 36,864 B,
    beside a temporal state of 64 x 64 x 128 = 524,288 values at 32 bits (float32, the file's)
    or at 16 (an altered file's bfloat16); blocks of 16 x ceil(page / (16 x 512)) tokens."""
    flags = {"--kv-cache-dtype": "fp8", "--max-model-len": 4096}
    conv, values = 3 * (4096 + 2 * 8 * 128) * 2, 64 * 64 * 128
    for dtype, bits in (("float32", 32), ("bfloat16", 16), ("float16", 16)):
        v = engine_view(_altered(tmp_path, NANO, None, "mamba_ssm_cache_dtype", dtype), "vllm",
                        kv_memory_gib=10, flags=flags)
        page = conv + values * bits // 8
        assert v.engine_state_page_bytes == page
        assert v.engine_block_tokens == 16 * -(-page // (16 * 512))
    assert page == 1085440 and v.engine_block_tokens == 2128
    # no dtype in the file: vLLM's Nemotron-H default, float32 (engines.toml's hybrid.ssm_auto)
    v = engine_view(_altered(tmp_path, NANO, None, "mamba_ssm_cache_dtype", None), "vllm",
                    kv_memory_gib=10, flags=flags)
    assert v.engine_state_page_bytes == conv + values * 4
    # the flag overrides the file
    v = engine_view(str(NANO), "vllm", kv_memory_gib=10,
                    flags={**flags, "--mamba-ssm-cache-dtype": "bfloat16"})
    assert v.engine_state_page_bytes == conv + values * 2


def test_gated_deltanet_state_dtype_from_the_reader(tmp_path):
    """Qwen3.5's mamba_ssm_dtype (in text_config) flows through the reader to the state page:
    48 value heads of 128 x 128 at 32 bits or, altered, 16, beside the same convolution
    window of 3 x 10,240 at 16 bits."""
    path = ROOT / "tests" / "configs" / "qwen3.5-27b.json"
    conv = 3 * 10240 * 2
    for dtype, bits in (("float32", 32), ("bfloat16", 16)):
        v = engine_view(_altered(tmp_path, path, "text_config", "mamba_ssm_dtype", dtype), "vllm",
                        kv_memory_gib=10, flags={"--max-model-len": 4096})
        assert v.engine_state_page_bytes == conv + 48 * 128 * 128 * bits // 8


@pytest.mark.parametrize("path,scope,key", [
    (NANO, None, "mamba_ssm_cache_dtype"),
    (ROOT / "tests" / "configs" / "qwen3.5-27b.json", "text_config", "mamba_ssm_dtype")])
@pytest.mark.parametrize("bad", ["float8", 32, ["float32"]])
def test_bad_state_dtype_names_the_field(tmp_path, path, scope, key, bad):
    from llm_arithmetic.core.errors import ConfigError
    from llm_arithmetic.estimate import resolve_model

    with pytest.raises(ConfigError, match=f"field '{key}' must be one of float32") as err:
        resolve_model(_altered(tmp_path, path, scope, key, bad))
    assert "\n" not in str(err.value)


def test_mamba2_hybrids_modelled_on_one_chip():
    """The catalog's Mamba-2 hybrids get vLLM's pool on one chip (no warning, a block size),
    the warning with tensor parallelism; Nemotron-H 56B's config names no state dtype, so
    vLLM's Nemotron-H default (float32) applies: 256 heads of 64 x 256 at 4 B and a window of
    3 x (16,384 + 2 x 8 x 256) at 2 B, 16,900,096 B, over 8 KV heads x 128 x 2 x 2 B = 4,096 B
    a token: blocks of 16 x ceil(16,900,096 / 65,536) = 4,128 tokens."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert engine_view("nemotron-3-super", "vllm", kv_memory_gib=20).engine_block_tokens
        v = engine_view("nemotron-h-56b", "vllm", kv_memory_gib=20)
    assert 256 * 64 * 256 * 4 + 3 * (16384 + 2 * 8 * 256) * 2 == 16900096
    assert (v.engine_state_page_bytes, v.engine_block_tokens) == (16900096, 4128)
    with pytest.warns(UserWarning, match="for KDA layers"):
        engine_view("kimi-linear-48b-a3b", "vllm", kv_memory_gib=20)
    with pytest.warns(UserWarning, match="tensor or pipeline parallelism"):
        engine_view("nemotron-h-56b", "vllm", kv_memory_gib=20, tp=2)


def test_capacity_in_tokens_is_a_whole_number_with_a_fractional_weight_size():
    """With a llama.cpp file type whose bytes are computed per tensor (q4_k_m: a fractional
    byte count), the capacity row printed '46,321.0 tokens' and --json 46321.0: a count of
    tokens is a whole number, as EngineView documents (int). By hand: the RTX 4090's 24 GiB
    (25,769,803,776 B, NVIDIA's datasheet) less the weights as loaded; llama.cpp keeps Gemma 3
    12B's 40 windowed layers (1,024-token window, one sequence, micro-batches of 512: 1,536
    cells) at 8 KV heads x 256 x 2 x 2 B a cell each, and the rest buys tokens of its 8 full
    layers, rounded down."""
    v = engine_view("gemma-3-12b", "llama.cpp", hardware="rtx-4090", weights="q4_k_m",
                    flags={"--ctx-size": 32768})
    assert v.engine_kv_bytes_per_token == 48 * 8 * 256 * 2 * 2
    assert type(v.physics_kv_tokens) is int
    cell = 8 * 256 * 2 * 2
    assert v.physics_kv_tokens == int(
        (24 * 2**30 - v.engine_weights_bytes - 40 * 1536 * cell) // (8 * cell))


def test_llama_cpp_capacity_keeps_windowed_layers_at_their_window():
    """llama.cpp's capacity row follows its allocation: each windowed layer keeps
    GGML_PAD(min(cells, window x sequences + ubatch), 256) cells, the full layers every cell
    (src/llama-kv-cache-iswa.cpp at ggml-org/llama.cpp@2aef9767d982beb7ab61b3ae359366f627eb74dd),
    every layer at the context with --swa-full. gpt-oss-20b (config.json: 24 layers
    alternating sliding (window 128) and full, 8 KV heads of 64) on an H100's 80 GiB, four
    sequences, micro-batches of 512: windowed layers keep PAD(4 x 128 + 512, 256) = 1,024
    cells; at 2 x 8 x 64 x 2 B = 2,048 B a layer a cell, the rest buys tokens of 12 full
    layers. With --swa-full every layer counts whole: the bound's memory over 24 layers."""
    flags = {"--ctx-size": 8192, "--parallel": 4, "--ubatch-size": 512}
    v = engine_view("gpt-oss-20b", "llama.cpp", hardware="h100-sxm", flags=flags)
    free = 80 * 2**30 - v.engine_weights_bytes
    layer = 2 * 8 * 64 * 2
    assert v.physics_kv_tokens == int((free - 12 * 1024 * layer) // (12 * layer))
    whole = engine_view("gpt-oss-20b", "llama.cpp", hardware="h100-sxm",
                        flags={**flags, "--swa-full": True})
    assert whole.physics_kv_tokens == int(free // (24 * layer)) < v.physics_kv_tokens


@pytest.mark.parametrize("flags", [5, "--ctx-size 4096", [("--ctx-size", 4096)]])
def test_flags_that_are_not_a_mapping_are_named(flags):
    """engine_view(..., flags="--ctx-size 4096") (the flags as typed) raised "AttributeError:
    'str' object has no attribute 'items'": an InputError now names the argument and its
    form."""
    with pytest.raises(InputError, match="^flags: a mapping"):
        engine_view("llama-3.1-8b", "llama.cpp", flags=flags)


def test_a_given_reserve_is_labelled_given_not_empirical(capsys):
    """The engine table calls the reserve the engine's empirical figure only where it is:
    --engine-reserve-gib gives it, and the row then says so."""
    from llm_arithmetic.cli import main

    assert main(["describe", "qwen3-8b", "--hardware", "h100-sxm", "--engine", "vllm",
                 "--engine-reserve-gib", "2"]) == 0
    out = capsys.readouterr().out
    assert "2.00 GiB (given)" in out and "(empirical)" not in out
    assert main(["describe", "qwen3-8b", "--hardware", "h100-sxm", "--engine", "vllm"]) == 0
    assert "(empirical)" in capsys.readouterr().out
