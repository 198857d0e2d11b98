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
    from llm_arithmetic.arguments import resolve_model

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


# vLLM's hybrid pool for gated short convolution (LFM2) and lightning attention (MiniMax-M1)
# layers, by hand from the configs and vLLM's code (no published log of these was found):
# * a state layer's page is its state tensors' elements x dtype size
#   (vllm/v1/kv_cache_interface.py, MambaSpec.page_size_bytes): LFM2 one window of
#   (conv_L_cache - 1) x conv_dim (LFM2-MoE: hidden_size), MiniMax one (num_attention_heads,
#   head_dim, head_dim) matrix, both in --mamba-cache-dtype (auto: the model's 16-bit dtype)
#   (vllm/model_executor/layers/mamba/mamba_utils.py @ 02d710837549a368073552333f66d714477415d2,
#   short_conv_state_shape/_dtype and linear_attention_state_shape/_dtype; lfm2.py @
#   6b06599499a6f9d6f140ae26ff95b3cbd2e7e75c, lfm2_moe.py @
#   26305e9d9d3d36faadb54c859a65ef8cde4b0df7, minimax_text_01.py @
#   98370df70c1813f5f9c9c127e8baed660cd09280);
# * one attention token of one layer is 2 x num_key_value_heads x head size x 2 B, and the block
#   is 16 x ceil(state page / (16 x that)) unless --block-size is larger
#   (HybridAttentionMambaModelConfig.verify_and_update_config, vllm/model_executor/models/
#   config.py @ 1936cf3841edb9781b06c50fc4daf4bac9d3b23e);
# * groups, blocks, printed tokens and concurrency by engines.toml's hybrid rules (vLLM's
#   _get_kv_cache_groups_uniform_page_size, _report_kv_cache_config and
#   get_max_concurrency_for_kv_cache_config).
LFM2 = ROOT / "tests" / "configs" / "lfm2.5-1.2b-distilled.json"
LFM2_MOE = ROOT / "tests" / "configs" / "lfm2-8b-a1b.json"
MINIMAX_M1 = ROOT / "tests" / "configs" / "minimax-m1-80k.json"


def _layer_types(path, attention):
    types = json.loads(Path(path).read_text())
    kinds = types.get("layer_types") or types["attn_type_list"]
    return sum(1 for k in kinds if k == attention), sum(1 for k in kinds if k != attention)


def _cdiv(a, b):
    return -(-a // b)


@pytest.mark.parametrize("path", [LFM2, LFM2_MOE], ids=["lfm2.5-1.2b", "lfm2-8b-a1b"])
def test_short_convolution_hybrid_pool_by_hand(path):
    """LFM2: 32 heads of 2,048 / 32 = 64, 8 KV heads, conv_L_cache 3, width 2,048: an attention
    token 2 x 8 x 64 x 2 = 2,048 B a layer, a window of 2 x 2,048 x 2 = 8,192 B; the block stays
    16 tokens (16 x ceil(8,192 / 32,768)), a page of 32,768 B, the window padded to it. 10 GiB
    of pool, 32,768-token requests."""
    cfg = json.loads(path.read_text())
    n_attn, n_conv = _layer_types(path, "full_attention")
    head = cfg["hidden_size"] // cfg["num_attention_heads"]
    token = 2 * cfg["num_key_value_heads"] * head * 2
    window = (cfg["conv_L_cache"] - 1) * cfg.get("conv_dim", cfg["hidden_size"]) * 2
    assert (token, window) == (2048, 8192)
    block = 16 * _cdiv(window, 16 * token)
    page = block * token
    group = min(n_attn, n_conv)          # 6 attention layers; 10 or 18 conv layers >= 5/4 x 6
    attn_groups, conv_groups = _cdiv(n_attn, group), _cdiv(n_conv, group)
    blocks = 10 * 2**30 // page // group
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # modelled: no "not modelled" warning
        v = engine_view(path, "vllm", kv_memory_gib=10, flags={"--max-model-len": 32768})
    assert (v.engine_block_tokens, v.engine_state_page_bytes, v.engine_page_bytes) == \
        (block, window, page) == (16, 8192, 32768)
    assert v.engine_kv_groups == attn_groups + conv_groups
    assert v.engine_pool_blocks == blocks == 54613
    assert v.engine_kv_cache_tokens == blocks // (attn_groups + conv_groups) * block
    assert v.max_concurrency == pytest.approx(blocks / (attn_groups * _cdiv(32768, block)
                                                        + conv_groups))
    # LFM2.5-1.2B: 6 + 10 layers, 3 groups: 54,613 // 3 x 16 = 291,264 tokens, 54,613 / 2,050
    if path == LFM2:
        assert (n_attn, n_conv, v.engine_kv_cache_tokens) == (6, 10, 291264)
        assert f"{v.max_concurrency:.2f}" == "26.64"
    # --mamba-ssm-cache-dtype does not touch a short convolution's window (one tensor, in
    # --mamba-cache-dtype); --mamba-cache-dtype float32 doubles it, still within 16 tokens
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ssm = engine_view(path, "vllm", kv_memory_gib=10,
                          flags={"--mamba-ssm-cache-dtype": "float32"})
        f32 = engine_view(path, "vllm", kv_memory_gib=10,
                          flags={"--mamba-cache-dtype": "float32"})
    assert ssm.engine_state_page_bytes == window
    assert (f32.engine_state_page_bytes, f32.engine_block_tokens) == (2 * window, 16)


def test_short_convolution_prefix_caching_refusal_is_named():
    """LFM2's vLLM models assert prefix caching off ('Lfm2 currently does not support prefix
    caching', lfm2.py @ 6b06599499a6f9d6f140ae26ff95b3cbd2e7e75c): align mode (prefix
    caching's) is counted but the view says those versions refuse it; two state blocks a
    request for each of the 2 conv groups."""
    with pytest.warns(UserWarning, match="refuse --mamba-cache-mode align"):
        v = engine_view(LFM2, "vllm", kv_memory_gib=10,
                        flags={"--max-model-len": 32768, "--mamba-cache-mode": "align"})
    assert v.max_concurrency == pytest.approx(54613 / (2048 + 2 * 2))


def test_lightning_attention_hybrid_pool_by_hand():
    """MiniMax-M1: 10 softmax layers of 8 KV heads of 128 (4,096 B a token), 70 lightning
    layers of 64 heads of 128 x 128 at 2 B (2,097,152 B): blocks of 16 x ceil(2,097,152 /
    65,536) = 512 tokens, a page of 512 x 4,096 = 2,097,152 B, no padding; groups of 10 (70 is
    not under 5/4 of 10): 1 + 7. 40 GiB: 42,949,672,960 // 2,097,152 // 10 = 2,048 blocks,
    2,048 // 8 x 512 = 131,072 tokens; 131,072-token requests take 256 blocks and 7 state
    blocks: 2,048 / 263 = 7.79."""
    cfg = json.loads(MINIMAX_M1.read_text())
    n_attn, n_la = _layer_types(MINIMAX_M1, 1)
    token = 2 * cfg["num_key_value_heads"] * cfg["head_dim"] * 2
    state = cfg["num_attention_heads"] * cfg["head_dim"] ** 2 * 2
    assert (n_attn, n_la, token, state) == (10, 70, 4096, 2097152)
    block = 16 * _cdiv(state, 16 * token)
    blocks = 40 * 2**30 // (block * token) // n_attn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = engine_view(MINIMAX_M1, "vllm", kv_memory_gib=40,
                        flags={"--max-model-len": 131072})
    assert (v.engine_block_tokens, v.engine_state_page_bytes, v.engine_page_bytes) == \
        (block, state, block * token) == (512, 2097152, 2097152)
    assert (v.engine_kv_groups, v.engine_pool_blocks) == (1 + 7, blocks) == (8, 2048)
    assert v.engine_kv_cache_tokens == 2048 // 8 * 512 == 131072
    assert v.max_concurrency == pytest.approx(2048 / (131072 // 512 + 7))
    assert f"{v.max_concurrency:.2f}" == "7.79"
    # the matrix is kept in --mamba-cache-dtype, not --mamba-ssm-cache-dtype
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ssm = engine_view(MINIMAX_M1, "vllm", kv_memory_gib=40,
                          flags={"--mamba-ssm-cache-dtype": "float32"})
    assert (ssm.engine_state_page_bytes, ssm.engine_block_tokens) == (state, 512)
    # float32 (4 B): 4,194,304 B, blocks of 16 x ceil(4,194,304 / 65,536) = 1,024 tokens; some
    # vLLM versions refuse it ('fp32 state for minimax is not yet supported', mamba_utils.py @
    # 2afe1e8573cf51b73569ae1d35f59078a2032a91), which the view says
    with pytest.warns(UserWarning, match="fp32 state for minimax is not yet supported"):
        f32 = engine_view(MINIMAX_M1, "vllm", kv_memory_gib=40,
                          flags={"--mamba-cache-dtype": "float32"})
    assert (f32.engine_state_page_bytes, f32.engine_block_tokens) == (2 * state, 1024)


def test_vllm_view_runs_phi4flash_on_one_chip_only():
    """vLLM's phi4flash.py (vllm-project/vllm @ 03356f8c) builds Phi-4-mini-flash's attention
    and MLPs as plain nn.Linear and keeps the Mamba-1 A and D whole, loading whole weights: it
    cannot load the model split over chips. The vLLM view refuses tp > 1 naming tp; on one chip
    it is counted."""
    from llm_arithmetic.engine import engine_view

    with pytest.raises(InputError, match=r"^tp: phi-4-mini-flash-reasoning: vLLM's phi4flash"):
        engine_view("phi-4-mini-flash-reasoning", "vllm", hardware="h100-sxm", tp=2)
    assert engine_view("phi-4-mini-flash-reasoning", "vllm", hardware="h100-sxm").tp == 1


def test_vllm_view_refuses_hunyuan_cross_layer_attention():
    """Hunyuan-Large (use_cla, cla_share_factor 2): the checkpoint's arithmetic needs the cache
    of the 32 even blocks alone (each odd block reads the keys and values of the block before
    it). vLLM caches neither 32 nor 64 blocks: its hunyuan_v1.py (vllm-project/vllm @
    e87ba1e186a90f9d0d2d36c9ff44551d1cdbda04) builds every odd block as HunYuanCrossAttention
    with ``Attention(..., attn_type=AttentionType.ENCODER_DECODER)`` and no
    ``kv_sharing_target_layer_name``; the model runner (vllm/v1/worker/gpu_model_runner.py @
    000fc94b) asks every attention layer without a sharing target for its KV cache spec, and
    Attention.get_kv_cache_spec (vllm/model_executor/layers/attention/attention.py @ 0014ca6b;
    vllm/attention/layer.py @ 004a5da0) asserts ``attn_type == AttentionType.DECODER``: the
    engine stops before it allocates. The vLLM view refuses naming the engine; an engine whose
    handling was not read keeps the checkpoint's 32 layers; a Hunyuan file without use_cla
    runs."""
    with pytest.raises(InputError, match=r"^engine: hunyuan-large: vLLM allocates no cache "
                       r"for Hunyuan's cross-layer attention.*ENCODER_DECODER.*without "
                       r"--engine$"):
        engine_view("hunyuan-large", "vllm", kv_memory_gib=40)
    # SGLang's view: 32 blocks x (K and V) x 8 KV heads x 80 x 2 B
    sglang = engine_view("hunyuan-large", "sglang", kv_memory_gib=40)
    assert sglang.engine_kv_bytes_per_token == 32 * 2 * 8 * 80 * 2 == 81920
    # Hunyuan-A13B sets cla_share_factor 2 but not use_cla: 32 blocks of 8 KV heads of 128
    a13b = engine_view(ROOT / "tests" / "configs" / "hunyuan-a13b.json", "vllm",
                       kv_memory_gib=40)
    assert a13b.engine_kv_bytes_per_token == 32 * 2 * 8 * 128 * 2 == 131072


def test_vllm_view_holds_minimax_routers_in_fp32():
    """vLLM's MiniMaxText01MoE (vllm/model_executor/models/minimax_text_01.py @
    98370df70c1813f5f9c9c127e8baed660cd09280, the model vLLM's registry gives
    MiniMaxM1ForCausalLM) builds its gate as ``ReplicatedLinear(hidden_size, num_experts,
    bias=False, params_dtype=torch.float32, quant_config=None)`` and casts the checkpoint's
    weights to float32 as it loads them: MiniMax-M1's 80 routers of 32 x 6,144 take 4 bytes a
    weight on every chip, 2 more than the checkpoint's 16 bits. The total is the meta-device
    count of transformers (models.toml, 456,089,655,296); the estimate keeps the checkpoint's
    16 bits."""
    from llm_arithmetic import estimate

    routers = 80 * 32 * 6144
    total = 456_089_655_296
    one = engine_view("minimax-m1", "vllm", kv_memory_gib=40)
    assert one.engine_weights_bytes == 2 * total + 2 * routers == 912_210_767_872
    assert estimate("minimax-m1").weight_bytes == 2 * total
    # every chip of eight holds the whole router (ReplicatedLinear): 2 B a weight more each
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the hybrid pool under tp is not modelled
        eight = engine_view("minimax-m1", "vllm", kv_memory_gib=40, tp=8)
    assert eight.engine_weights_bytes - estimate("minimax-m1", tp=8).weight_bytes_per_chip \
        == 2 * routers == 31_457_280
    # weights asked in a format are all at that format's bits, the routers too
    assert engine_view("minimax-m1", "vllm", kv_memory_gib=40,
                       weights="fp8").engine_weights_bytes == total


def test_vllm_view_holds_gemma4_value_slot_of_k_eq_v_blocks():
    """Gemma 4's global blocks with attention_k_eq_v store no v_proj (their values are the
    keys' projection), but vLLM's Gemma4Attention (vllm/model_executor/models/gemma4.py @
    001cabc1be16a59a70d720ed61a13b678c060a18) builds a QKVParallelLinear with
    num_global_key_value_heads heads for K and V alike and loads each such block's k_proj a
    second time as its v_proj: H_kv x 512 x d more weights a global block. The cache is the
    same. Totals: the meta-device counts of models.toml (31B 31,273,086,512; 26B-A4B
    25,805,933,872), 16-bit."""
    big = engine_view("gemma-4-31b", "vllm", kv_memory_gib=40)
    assert big.engine_weights_bytes == 2 * (31_273_086_512 + 10 * 4 * 512 * 5376)
    small = engine_view("gemma-4-26b-a4b", "vllm", kv_memory_gib=40)
    assert small.engine_weights_bytes == 2 * (25_805_933_872 + 5 * 2 * 512 * 2816)
    # the cache: 50 sliding blocks of 16 KV heads of 256, 10 global of 4 of 512, K and V, 2 B
    assert big.engine_kv_bytes_per_token == (50 * 16 * 256 + 10 * 4 * 512) * 2 * 2 == 901120
    # on two chips each holds 2 of the 4 heads of each value slot
    from llm_arithmetic import estimate
    two = engine_view("gemma-4-31b", "vllm", kv_memory_gib=40, tp=2)
    assert two.engine_weights_bytes - estimate("gemma-4-31b", tp=2).weight_bytes_per_chip \
        == 10 * 2 * 512 * 5376 * 2
    # nvidia/Gemma-4-31B-IT-NVFP4's quantization_config ignores every layer's self_attn, so the
    # k_proj vLLM copies into the slot is bf16: 2 B a weight, not the NVFP4 file's mean
    nvfp4 = ROOT / "tests" / "configs" / "gemma-4-31b-it-nvfp4.json"
    for tp in (1, 2):
        v = engine_view(nvfp4, "vllm", kv_memory_gib=40, tp=tp)
        assert v.engine_weights_bytes - estimate(nvfp4, tp=tp).weight_bytes_per_chip \
            == 10 * 4 * 512 * 5376 * 2 // tp


@pytest.mark.parametrize("name, hub, scalars, cache", [
    # Gemma 4 E2B: the Hub's safetensors total less its 35 layer scalars (buffers, not
    # counted); 15 blocks with a cache, 12 sliding of one KV head of 256, 3 global of 512
    ("gemma-4-e2b", 5_123_178_051, 35, (12 * 256 + 3 * 512) * 2 * 2),
    # Gemma 4 E4B: 24 blocks with a cache, 20 sliding and 4 global, two KV heads
    ("gemma-4-e4b", 7_996_156_490, 42, (20 * 256 + 4 * 512) * 2 * 2 * 2)])
def test_vllm_view_of_gemma_kv_sharing_blocks(name, hub, scalars, cache):
    """vLLM builds a KV-sharing block's k/v projections and key norm as any block's
    (gemma4.py @ 001cabc1, Gemma4Attention's QKVParallelLinear in every block; gemma3n.py @
    7bbfbc7f867c5ea3e67544d302b6f6c73667b11b likewise) and gives its Attention a
    kv_sharing_target_layer_name, for which the model runner allocates no cache
    (gpu_model_runner.py @ 000fc94b, get_kv_cache_spec). So on one chip vLLM holds every weight
    the checkpoint stores (the Hub's total) and caches only the blocks before the sharing
    ones; on two chips it holds the sharing blocks' k and v as any block's: with one KV head
    (E2B) the whole projections on both chips, where the library's extra splits them."""
    from llm_arithmetic import estimate

    one = engine_view(name, "vllm", kv_memory_gib=40)
    assert one.engine_weights_bytes == 2 * (hub - scalars)
    assert one.engine_kv_bytes_per_token == cache
    two = engine_view(name, "vllm", kv_memory_gib=40, tp=2)
    extra = two.engine_weights_bytes - estimate(name, tp=2).weight_bytes_per_chip
    if name == "gemma-4-e2b":
        # 16 sliding sharing blocks (k, v 1 x 256 x 1,536 each, k norm 256), 4 global (512):
        # held whole on each chip, 2 B a weight, where an even split holds half
        shared = 16 * (2 * 256 * 1536 + 256) + 4 * (2 * 512 * 1536 + 512)
        assert extra == shared * 2 // 2 == 18_880_512
    else:
        # two KV heads split one a chip: only the key norms are copied (15 of 256, 3 of 512)
        assert extra == (15 * 256 + 3 * 512) * 2 // 2 == 5376
    assert two.engine_kv_bytes_per_token == cache // (1 if name == "gemma-4-e2b" else 2)


def test_vllm_view_of_gemma3n_kv_sharing_blocks():
    """Gemma 3n E2B: 20 of its 30 blocks have a cache (2 KV heads of 256: 40,960 B a token,
    tests/configs/FAMILIES.md's hand count); the 10 sharing blocks' k, v and key norms
    (2 x 2 x 256 x 2,048 + 256 each, 20,974,080 in all) are in the weights vLLM holds, beside
    what transformers 5.24.0 builds of Gemma3nForConditionalGeneration, which leaves them out
    (its meta-device count, 5,418,464,192: models.toml's source for gemma-3n-e2b)."""
    v = engine_view("gemma-3n-e2b", "vllm", kv_memory_gib=40)
    assert v.engine_kv_bytes_per_token == 20 * 2 * 2 * 256 * 2 == 40960
    unused = 10 * (2 * 2 * 256 * 2048 + 256)
    assert v.engine_weights_bytes == 2 * (5_418_464_192 + unused) == 2 * 5_439_438_272
