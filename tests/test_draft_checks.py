"""What a speculative draft model may be, and what "does not fit" says when only the draft
pushes memory over.

The engines' rules (read in their source):
- llama.cpp (ggml-org/llama.cpp@6c8a04576e2cfa04261019fe8cbdc90c5cfc90fb
  common/speculative.cpp, common_speculative_are_compatible): the draft's vocabulary must have
  the target's type and special tokens, its token count may differ by at most
  SPEC_VOCAB_MAX_SIZE_DIFFERENCE = 128, and every shared token's text must match. Its GGUF
  converter pads the token list to config.json's vocab_size (convert_hf_to_gguf.py,
  get_vocab_base: [PAD{i}] entries), so the count compared is vocab_size.
- vLLM (vllm-project/vllm@f19b16d95e4395790661f4835e4436bc3dd5d9c7 vllm/config/speculative.py,
  verify_equal_vocab_size_if_draft_model): a draft model's vocab_size must equal the target's.
- SGLang (sgl-project/sglang@d0979b91f9e55721cb7606e38ae91fc67d4911dc
  python/sglang/srt/speculative/standalone_worker.py): no test of the draft's vocabulary.

Expected values come from the vendored config.json files (read here with json, not through
the library's readers), the catalog's published parameter counts and the chip's capacity."""
from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from llm_arithmetic.core.errors import InputError
from llm_arithmetic.deploy import search
from llm_arithmetic.engine import engine_view
from llm_arithmetic.estimate import estimate
from llm_arithmetic.speculative import DraftWarning

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "lib" / "llm_arithmetic" / "catalog" / "data" / "models"
SPEC = dict(draft_len=4, acceptance=0.8)
#: llama.cpp's SPEC_VOCAB_MAX_SIZE_DIFFERENCE at the commit above
LLAMA_CPP_TOLERANCE = 128


def _vocab(name: str) -> int:
    return json.loads((CONFIGS / name / "config.json").read_text())["vocab_size"]


def _cli(*args: str) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "llm_arithmetic", *args], capture_output=True,
                       text=True, cwd=REPO, env={"OPENBLAS_NUM_THREADS": "1",
                                                 "PATH": "/usr/bin:/bin"})
    return p.returncode, p.stdout, p.stderr


# ---- (a) a draft that cannot be one ----------------------------------------------------------

def test_a_draft_of_another_tokenizer_is_refused_naming_the_field():
    """Llama 3.2 1B (128,256 ids) cannot draft for Qwen3 8B (151,936): the gap, 23,680, is far
    beyond llama.cpp's 128 and vLLM wants none. estimate, the engine view and plan refuse it
    with one line naming vocab_size; describe and plan name --draft, and exit 2."""
    dv, tv = _vocab("llama-3.2-1b"), _vocab("qwen3-8b")
    assert (dv, tv) == (128_256, 151_936) and tv - dv > LLAMA_CPP_TOLERANCE
    want = (f"draft: llama-3.2-1b's vocab_size ({dv:,}) differs from qwen3-8b's ({tv:,}) by "
            f"{tv - dv:,} token ids")
    with pytest.raises(InputError) as err:
        estimate("qwen3-8b", hardware="h100-sxm", draft="llama-3.2-1b", **SPEC)
    assert str(err.value).startswith(want) and "one tokenizer" in str(err.value)
    with pytest.raises(InputError, match="^draft: llama-3.2-1b's vocab_size"):
        engine_view("qwen3-8b", "vllm", hardware="h100-sxm", draft="llama-3.2-1b")
    with pytest.raises(InputError, match="^draft: llama-3.2-1b's vocab_size"):
        search("qwen3-8b", ttft=1.0, tpot=0.1, hardware=["h100-sxm"], draft="llama-3.2-1b",
               **SPEC)
    for cmd in (("describe", "qwen3-8b", "--hardware", "h100-sxm"),
                ("plan", "qwen3-8b", "--ttft-ms", "1000", "--tpot-ms", "100", "--hardware",
                 "h100-sxm")):
        rc, out, err_text = _cli(*cmd, "--draft", "llama-3.2-1b", "--draft-len", "4",
                                 "--acceptance", "0.8")
        assert rc == 2 and out == "" and "Traceback" not in err_text, err_text
        assert err_text.strip().splitlines() == [f"llm_arithmetic: error: --{want}: a draft's "
                                                 "tokens are verified by the target, so the two "
                                                 "need one tokenizer (llama.cpp accepts a "
                                                 "difference of at most 128 ids, vLLM none)"]


def test_one_familys_padded_tables_are_accepted_with_a_warning_and_refused_by_vllm(tmp_path):
    """Qwen2.5 0.5B (config.json: vocab_size 151,936) drafts for Qwen2.5 7B (152,064) with one
    tokenizer: the 128 padding ids are within llama.cpp's tolerance, so the estimate takes the
    pair and warns that vLLM would refuse it; the vLLM engine view refuses it. The 0.5B's shape
    is its published config.json's (https://huggingface.co/Qwen/Qwen2.5-0.5B, hidden 896, 24
    layers, 14 heads, 2 key/value heads, intermediate 4,864, tied embeddings); Qwen2.5 3B,
    in the catalog, has the 0.5B's vocab_size."""
    small = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
             "vocab_size": 151936, "hidden_size": 896, "intermediate_size": 4864,
             "num_attention_heads": 14, "num_key_value_heads": 2, "num_hidden_layers": 24,
             "max_position_embeddings": 32768, "tie_word_embeddings": True,
             "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
             "use_sliding_window": False, "torch_dtype": "bfloat16"}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(small))
    tv = _vocab("qwen2.5-7b")
    assert tv - small["vocab_size"] == LLAMA_CPP_TOLERANCE == tv - _vocab("qwen2.5-3b")
    for draft in (str(path), "qwen2.5-3b"):
        with pytest.warns(DraftWarning, match=r"vocab_size \(151,936\) differs from "
                                              r"qwen2.5-7b's \(152,064\) by 128 token ids, "
                                              r"within the 128 that llama.cpp accepts.*vLLM "
                                              r"refuses"):
            e = estimate("qwen2.5-7b", hardware="h100-sxm", draft=draft, **SPEC)
        assert e.draft_memory_bytes > 0 and e.spec_tokens_per_step is not None
        with pytest.raises(InputError, match=r"^draft: .*vLLM refuses a draft model whose "
                                             r"vocab_size differs"), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore", DraftWarning)
            engine_view("qwen2.5-7b", "vllm", hardware="h100-sxm", draft=draft)
    rc, out, err = _cli("describe", "qwen2.5-7b", "--hardware", "h100-sxm", "--draft",
                        "qwen2.5-3b", "--draft-len", "4", "--acceptance", "0.8")
    assert rc == 0 and "speculation" in out
    assert err.count("llm_arithmetic: warning: --draft: qwen2.5-3b's vocab_size") == 1, err


def test_a_draft_as_large_as_the_target_is_warned_not_refused():
    """Qwen3 8B drafting for Qwen3 4B reads more parameters a step than the target (8.19 and
    4.02 billion in all, published), so a draft step costs more than a target step and no
    draft length can pay: the estimate warns in words and goes on, and its speculative bound
    is slower than the plain one. describe prints the warning once, with --engine too."""
    with pytest.warns(DraftWarning, match=r"^draft: qwen3-8b reads [\d,]+ parameters a decode "
                                          r"step, no fewer than the target qwen3-4b's"):
        e = estimate("qwen3-4b", hardware="h100-sxm", draft="qwen3-8b", **SPEC)
    assert e.draft_cost > 1
    assert e.speculative_tokens_per_second < e.decode_tokens_per_second
    rc, out, err = _cli("describe", "qwen3-4b", "--hardware", "h100-sxm", "--draft", "qwen3-8b",
                        "--draft-len", "4", "--acceptance", "0.8", "--engine", "vllm", "--json")
    assert rc == 0 and json.loads(out)["draft_cost"] > 1
    assert err.count("warning: --draft: qwen3-8b reads") == 1, err
    # a smaller draft of the same vocabulary: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", DraftWarning)
        estimate("qwen3-8b", hardware="h100-sxm", draft="qwen3-0.6b", **SPEC)


# ---- (b) what "does not fit" blames -----------------------------------------------------------

#: Qwen3 8B on an RTX 4090 (24 GiB) at 8,192 tokens with Qwen3 4B as its draft, both 16-bit.
RTX4090 = 24 * 2**30
CONTEXT = 8192


def _kv_per_token(name: str) -> int:
    """K and V of every layer, 2 bytes an element, from the config.json."""
    c = json.loads((CONFIGS / name / "config.json").read_text())
    d_head = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
    return 2 * c["num_hidden_layers"] * c["num_key_value_heads"] * d_head * 2


def test_a_setup_that_fits_only_without_its_draft_says_so():
    """The target alone needs 8,190,735,360 x 2 B of weights and 8,192 tokens of cache, 17.6
    GB of the 25.8; its 4B draft adds 4,022,468,096 x 2 B and a cache as large (both 36 layers
    of 8 key/value heads of 128): 26.8 GB. The estimate says the target fits without the
    draft; describe blames the draft, in the table and the JSON."""
    target = 8_190_735_360 * 2 + CONTEXT * _kv_per_token("qwen3-8b")
    draft = 4_022_468_096 * 2 + CONTEXT * _kv_per_token("qwen3-4b")
    assert _kv_per_token("qwen3-8b") == _kv_per_token("qwen3-4b") == 147_456
    assert target <= RTX4090 < target + draft
    e = estimate("qwen3-8b", hardware="rtx-4090", context=CONTEXT, draft="qwen3-4b", **SPEC)
    assert e.draft_memory_bytes == draft
    assert e.memory_required_bytes == target + draft
    assert (e.fits, e.fits_without_draft) == (False, True)
    assert (e.fits_per_chip, e.fits_per_chip_without_draft) == (False, True)
    # a draft too large for any target's room: both say no, and the plain words are kept
    big = estimate("qwen3-8b", hardware="rtx-4090", context=131072, draft="qwen3-4b", **SPEC)
    assert (big.fits, big.fits_without_draft) == (False, False)
    args = ("describe", "qwen3-8b", "--hardware", "rtx-4090", "--context", str(CONTEXT),
            "--draft", "qwen3-4b", "--draft-len", "4", "--acceptance", "0.8")
    rc, out, _ = _cli(*args)
    assert rc == 0
    rows = {line[:44].strip(): line[44:] for line in out.splitlines()}
    assert rows["tokens/s per sequence (upper bound)"] == (
        "- (does not fit in memory with the draft; fits without it)")
    assert rows["fits in memory"] == (f"no: needs {(target + draft) / 1e9:,.2f} GB of "
                                      f"{RTX4090 / 1e9:,.2f} GB; without the draft it fits")
    assert "does not fit in memory\n" not in out
    rc, out, _ = _cli(*args, "--json")
    d = json.loads(out)
    assert (d["fits"], d["fits_without_draft"], d["fits_per_chip_without_draft"]) == (
        False, True, True)
    # the replica's rows (serving): its memory per chip blames the draft too
    rc, out, _ = _cli(*args, "--prompt", str(CONTEXT - 256), "--generate", "256")
    assert rc == 0 and "; without the draft it fits)" in out
    assert "time per output token (bound)" in out and out.count("fits without it") >= 3


# ---- (c) one convention for "no draft" -------------------------------------------------------

def test_no_draft_held_is_none_in_the_estimate_the_json_and_the_engine_view():
    """Without a draft, and with a draft given by its cost alone (nothing held is known), the
    draft's memory is None, as the engine view's draft keys are; with a draft model all are
    numbers."""
    at = dict(hardware="h100-sxm", context=1024)
    for kw in ({}, dict(draft_cost=0.1, **SPEC)):
        e = estimate("qwen3-8b", **at, **kw)
        v = engine_view("qwen3-8b", "vllm", hardware="h100-sxm")
        assert e.draft_memory_bytes is None and e.fits_without_draft is None
        assert v.engine_draft_weights_bytes is None and v.engine_draft_kv_bytes_per_token is None
    e = estimate("qwen3-8b", **at, draft="qwen3-0.6b", **SPEC)
    v = engine_view("qwen3-8b", "vllm", hardware="h100-sxm", draft="qwen3-0.6b")
    assert e.draft_memory_bytes > v.engine_draft_weights_bytes > 0
    assert e.fits_without_draft is True
    rc, out, _ = _cli("describe", "qwen3-8b", "--hardware", "h100-sxm", "--engine", "vllm",
                      "--json")
    d = json.loads(out)
    assert d["draft_memory_bytes"] is None and d["engine_draft_weights_bytes"] is None
    assert d["fits_without_draft"] is None


def test_the_drafts_the_page_offers_are_exactly_those_python_takes():
    """The page's choice of draft model (export.catalog_data's ``drafts``, which ui.js lists
    for a catalog target): for every catalog target, each draft offered estimates without an
    error, and each smaller catalog model not offered is refused by estimate() (an
    InputError); none offered is as large as the target. DeepSeek-V4-Flash's config.json has
    DeepSeek-V3's vocab_size (129,280), so it is offered V3; Llama 3.2 1B's (128,256) is not
    Qwen3 8B's (151,936)."""
    from llm_arithmetic.book.export import catalog_data
    from llm_arithmetic.catalog.model_catalog import CATALOG

    offered = catalog_data()["drafts"]
    assert set(offered) == set(CATALOG)
    assert _vocab("deepseek-v4-flash") == _vocab("deepseek-v3") == 129280
    assert "deepseek-v4-flash" in offered["deepseek-v3"]
    assert (_vocab("llama-3.2-1b"), _vocab("qwen3-8b")) == (128256, 151936)
    assert "llama-3.2-1b" not in offered["qwen3-8b"] and "qwen3-0.6b" in offered["qwen3-8b"]
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for target, entry in CATALOG.items():
            size = entry.model.total_params
            for name, other in CATALOG.items():
                if name == target or other.model.total_params >= size:
                    assert name not in offered[target], (target, name)
                    continue
                try:
                    estimate(target, hardware="h200", draft=name, **SPEC)
                    taken = True
                except InputError:
                    taken = False
                if taken != (name in offered[target]):
                    failures.append(f"{target} <- {name}: python takes it {taken}, "
                                    f"page offers it {name in offered[target]}")
    assert not failures, "\n".join(failures[:10])
