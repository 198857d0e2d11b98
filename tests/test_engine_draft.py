"""The engine view with a speculative draft (a draft model, or the model's MTP module).

vLLM. What vLLM does with a draft was read in its source:
vllm-project/vllm@000fc94b754f66aeb60ef5acf1ea2e94cdc65164 vllm/v1/worker/gpu_model_runner.py:
``GPUModelRunner.load_model`` loads the drafter inside the same ``DeviceMemoryProfiler`` as the
target, so ``model_memory_usage`` (the weights ``determine_available_memory`` takes out of
``total x gpu_memory_utilization``) holds both; ``get_kv_cache_spec`` takes every attention layer
of the static forward context, the drafter's among them. Qwen3-8B's 36 layers and Qwen3-0.6B's
28 both keep 8 key/value heads of 128 at 16 bits, so their specs are equal and vLLM puts the 64
layers in one group: blocks = available // page // 64, a page one layer's 16 tokens
(vllm/v1/core/kv_cache_utils.py@001cabc1be16a59a70d720ed61a13b678c060a18,
``get_kv_cache_config_from_groups``, ``get_num_blocks``). Every expected value below is that
arithmetic by hand, from the configs and the chip's capacity:

* Qwen3-8B 8,190,735,360 parameters, Qwen3-0.6B 596,049,920 (tests/configs/SOURCES.md; the
  derivations in tests/test_draft_memory.py), bf16: 2 B each.
* H100 SXM: 80 GiB; H200: 141 GiB (NVIDIA's datasheets, the nominal binary figures).
* DeepSeek-V3: 671,026,419,200 parameters and a 13,463,426,304-parameter MTP module, derived by
  hand in tests/test_draft_memory.py; its MLA cache (512 + 64) x 2 B per token and layer, whole
  on every tensor-parallel chip (engines.toml: a latent layer's whole latent).
"""
from __future__ import annotations

import contextlib
import io
import warnings

import pytest

from llm_arithmetic import estimate
from llm_arithmetic.cli import main
from llm_arithmetic.core.errors import InputError
from llm_arithmetic.engine import engine_view

GIB = 2 ** 30
H100, H200 = 80 * GIB, 141 * GIB
TARGET_W = 8_190_735_360 * 2                   # Qwen3-8B, bf16
DRAFT_W = 596_049_920 * 2                      # Qwen3-0.6B, bf16
LAYER_TOKEN = 2 * 8 * 128 * 2                  # K and V, 8 heads of 128, 2 B: 4,096 B
PAGE = 16                                      # vLLM's default --block-size
LAYER_PAGE = PAGE * LAYER_TOKEN                # 65,536 B
MAX_LEN = 8192
# --gpu-memory-utilization 0.75 (60 GiB of 80, exact) and a reserve of 3 GiB, both given, so
# that nothing here comes from engines.toml's empirical reserve
FLAGS = {"--gpu-memory-utilization": 0.75, "--max-model-len": MAX_LEN}
RESERVE_GIB = 3


def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return rc, out.getvalue(), err.getvalue()


def _vllm(model="qwen3-8b", **kw):
    return engine_view(model, "vllm", hardware="h100-sxm", flags=FLAGS,
                       reserve_gib=RESERVE_GIB, **kw)


def test_vllm_pool_with_a_draft_model_by_hand():
    """The draft's weights come out of the pool's memory and its 28 layers share the pool's
    blocks with the target's 36: 166,432 tokens, not 303,952, and 20.32 requests of 8,192
    tokens at once, not 37.10."""
    available = H100 * 3 // 4 - RESERVE_GIB * GIB - TARGET_W - DRAFT_W
    assert available == 43_629_713_408
    blocks = available // LAYER_PAGE // (36 + 28)
    assert blocks == 10_402
    v = _vllm(draft="qwen3-0.6b")
    assert v.engine_weights_bytes == TARGET_W + DRAFT_W
    assert v.engine_draft_weights_bytes == DRAFT_W
    assert v.engine_kv_memory_bytes == available
    assert v.engine_kv_bytes_per_token == (36 + 28) * LAYER_TOKEN == 262_144
    assert v.engine_draft_kv_bytes_per_token == 28 * LAYER_TOKEN
    assert v.engine_kv_cache_tokens == blocks * PAGE == 166_432
    assert v.max_concurrency == pytest.approx(blocks * PAGE / MAX_LEN)
    # the bound's capacity: all the memory beside both models' weights, no reserve
    assert v.physics_kv_tokens == (H100 - TARGET_W - DRAFT_W) // ((36 + 28) * LAYER_TOKEN)
    # the same chip without the draft: the target's weights and 36 layers alone
    plain = _vllm()
    alone = (H100 * 3 // 4 - RESERVE_GIB * GIB - TARGET_W) // LAYER_PAGE // 36
    assert plain.engine_kv_cache_tokens == alone * PAGE == 303_952
    assert plain.engine_draft_weights_bytes is None
    assert plain.engine_draft_kv_bytes_per_token is None
    assert plain.max_concurrency == pytest.approx(37.104, abs=1e-3)
    assert v.max_concurrency == pytest.approx(20.316, abs=1e-3)


def test_vllm_pool_from_the_printed_memory_counts_the_drafts_layers():
    """Given the memory vLLM printed ('Available KV cache memory'), the tokens follow from
    its division alone: the draft's layers take their pages whatever the weights."""
    v = _vllm(draft="qwen3-0.6b", kv_memory_gib=40)
    assert v.engine_kv_cache_tokens == 40 * GIB // LAYER_PAGE // 64 * PAGE == 163_840


def test_vllm_pool_with_deepseek_v3s_mtp_module_by_hand():
    """--speculation mtp on DeepSeek-V3, fp8, tensor parallel over 8 H200s: each chip loads an
    eighth of the model and of its MTP module, less the module's copies of the embedding table
    and the head, which vLLM replaces with the model's (129,280 x 7,168 each), and caches the
    module's one MLA layer whole beside the model's 61. What vLLM holds whole on every chip
    is loaded 8 times: per MLA layer the latent down-projections (7168 x (1536 + 512 + 64)) and
    their norms, per MoE layer the router (256 x 7168) and its 256 biases, per block two norms
    of 7168; the model has 61, 58 and 61 of them and the final norm, the module one of each."""
    d = 7168
    mla, router = d * (1536 + 512 + 64) + 1536 + 512, 256 * d + 256
    module = 13_463_426_304 - 2 * 129_280 * d + 7 * (mla + router + 2 * d)
    model = 671_026_419_200 + 7 * (61 * mla + 58 * router + 123 * d)
    latent = (512 + 64) * 2
    kw = dict(hardware="h200", tp=8, weights="fp8", reserve_gib=RESERVE_GIB,
              flags={"--gpu-memory-utilization": 0.75})
    v = engine_view("deepseek-v3", "vllm", speculation="mtp", **kw)
    plain = engine_view("deepseek-v3", "vllm", **kw)
    assert v.engine_weights_bytes == (model + module) / 8
    assert v.engine_draft_weights_bytes == module / 8
    assert v.engine_kv_bytes_per_token == 62 * latent == 71_424
    assert plain.engine_kv_bytes_per_token == 61 * latent
    available = H200 * 3 / 4 - RESERVE_GIB * GIB - (model + module) / 8
    assert v.engine_kv_memory_bytes == pytest.approx(available, abs=1)
    assert v.engine_kv_cache_tokens == int(available // (PAGE * 62 * latent)) * PAGE
    assert v.engine_kv_cache_tokens < plain.engine_kv_cache_tokens


def test_a_draft_given_by_its_cost_alone_holds_nothing_in_the_engine_view():
    """describe --engine vllm with --draft-cost: nothing is known of what the draft holds, so
    the engine's rows are the target's alone (303,952 tokens, as in
    test_vllm_pool_with_a_draft_model_by_hand) and no draft row is printed; with --draft the
    pool shrinks (166,432). (It compared two identical calls, which could not fail.)"""
    base = ("describe", "qwen3-8b", "--hardware", "h100-sxm", "--engine", "vllm",
            "--gpu-memory-utilization", "0.75", "--engine-reserve-gib", str(RESERVE_GIB),
            "--max-model-len", str(MAX_LEN))
    spec = ("--draft-len", "4", "--acceptance", "0.8")
    rows = {}
    for name, extra in (("plain", ()), ("cost", spec + ("--draft-cost", "0.1")),
                        ("model", spec + ("--draft", "qwen3-0.6b"))):
        rc, out, err = _cli(*base, *extra)
        assert rc == 0, err
        rows[name] = out[out.index("engine: vllm"):]     # the engine's table, last
    assert "  KV cache tokens                            303,952\n" in rows["plain"]
    assert rows["cost"] == rows["plain"] and "draft" not in rows["cost"]
    assert "  KV cache tokens                            166,432\n" in rows["model"]


def test_engines_whose_draft_handling_was_not_read():
    """SGLang: the draft's weights are taken from the memory left and its cache is not
    counted, with a warning that says so; llama.cpp, and vLLM's hybrid pool: refused."""
    with pytest.warns(UserWarning, match="draft's own cache was not read"):
        s = engine_view("qwen3-8b", "sglang", hardware="h100-sxm", draft="qwen3-0.6b",
                        flags={"--mem-fraction-static": 0.75}, reserve_gib=RESERVE_GIB)
    assert s.engine_weights_bytes == TARGET_W + DRAFT_W
    assert s.engine_kv_bytes_per_token == 36 * LAYER_TOKEN
    assert s.engine_draft_kv_bytes_per_token is None
    with pytest.raises(InputError, match="^draft: the llama.cpp view does not model"):
        engine_view("qwen3-8b", "llama.cpp", draft="qwen3-0.6b")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InputError, match="^speculation: .*hybrid pool"):
            engine_view("qwen3.5-27b", "vllm", hardware="h100-sxm", speculation="mtp")


def test_cli_engine_rows_with_a_draft():
    rc, out, err = _cli("describe", "qwen3-8b", "--hardware", "h100-sxm", "--draft",
                        "qwen3-0.6b", "--draft-len", "4", "--acceptance", "0.8", "--engine",
                        "vllm", "--gpu-memory-utilization", "0.75", "--engine-reserve-gib", "3",
                        "--max-model-len", str(MAX_LEN))
    assert rc == 0, err
    assert "    of which the draft's                     1.11 GiB" in out
    assert "    of which the draft's layers              114,688 B" in out
    assert "KV cache tokens                            166,432" in out
    rc, out, err = _cli("describe", "qwen3-8b", "--draft", "qwen3-0.6b", "--hardware",
                        "h100-sxm", "--draft-len", "4", "--acceptance", "0.8", "--engine",
                        "llama.cpp")
    assert rc == 2 and out == "" and err.count("\n") == 1 and "llama.cpp view" in err


@pytest.mark.parametrize("model", ["minimax-m2.5", "minimax-m3"])
def test_engine_view_refuses_mtp_modules_the_reader_does_not_count(model):
    """The same refusal as the estimate's (tests/test_speculative.py): nothing would be
    held for the module."""
    with pytest.raises(InputError, match="field 'num_mtp_modules'"):
        engine_view(model, "vllm", hardware="h200", tp=8, speculation="mtp")
