"""Hard bad input: exit status 2, one line on standard error, promptly, never a traceback.

The cases are those a reviewer found escaping the one-line rule (overflows, a 400-digit integer,
JSON nested 100,000 deep, an endless file, a batch so large that an exact power never returned,
a float layer count with false digits), and standard input as a config. The limits the messages
cite are documented in llm_arithmetic.cli.LIMITS and llm_arithmetic.catalog.readers.LIMITS.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from llm_arithmetic import InputError, estimate, get_model

BASE = {"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "intermediate_size": 11008}
MODELS = Path(__file__).resolve().parents[1] / "lib" / "llm_arithmetic" / "catalog" / "data" / "models"


def _run(*args, stdin: str | None = None):
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "llm_arithmetic", *args], capture_output=True,
                       text=True, input=stdin, timeout=60)
    return r, time.perf_counter() - t


def _one_line_error(r, needle: str):
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr[-500:]
    assert needle in r.stderr, r.stderr


@pytest.mark.parametrize("args,needle", [
    (["describe", "llama-2-7b", "--weight-bits", "1e308"], "plausibility limit"),
    (["describe", "llama-2-7b", "--bandwidth-gbps", "1e308"], "plausibility limit"),
    (["describe", "llama-2-7b", "--tflops", "inf"], "must be finite"),
    (["describe", "llama-2-7b", "--kv-bits", "nan"], "must be positive"),
    (["describe", "mixtral-8x7b", "--batch", "100000000000"], "plausibility limit"),
    (["describe", "llama-2-7b", "--context", "9" * 400], "-character string"),
    (["describe", "/dev/zero"], "larger than"),
    (["describe", "-"], "malformed JSON"),
    # a video's audio track: only with a video, and only on an omni model, each named
    (["describe", "qwen2.5-omni-7b", "--video-audio"], "--video-audio needs --video-seconds"),
    (["describe", "gemma-3n-e4b", "--video-seconds", "10", "--video-audio"],
     "--video-seconds: gemma-3n-e4b: the video rule"),
    (["describe", "qwen3.5-27b", "--video-seconds", "10", "--video-audio"],
     "qwen3.5-27b: --video-audio (video_audio) needs"),
])
def test_cli_bad_input(args, needle):
    r, seconds = _run(*args, stdin="")
    _one_line_error(r, needle)
    assert seconds < 10


@pytest.mark.parametrize("content,needle", [
    (json.dumps(dict(BASE, vocab_size=int("9" * 400))), "plausibility limit"),
    (json.dumps(dict(BASE, vocab_size=0)).replace('"vocab_size": 0', '"vocab_size": ' + "9" * 5000)
     if hasattr(sys, "set_int_max_str_digits") else "{}", "unreadable JSON value"),
    ("[" * 100_000 + "]" * 100_000, "nested"),
    (json.dumps(dict(BASE, num_hidden_layers=1e30)), "'num_hidden_layers' must be an integer"),
    (json.dumps(dict(BASE, num_hidden_layers=100_000)), "plausibility limit"),
    (json.dumps(dict(BASE, model_type="mixtral", num_local_experts=8, num_experts_per_tok=2,
                     moe_intermediate_size=768)), "'moe_intermediate_size'"),
    # JSON values of the wrong type where a name belongs (each was a TypeError traceback:
    # a list or an object cannot be looked up as a name)
    (json.dumps(dict(BASE, model_type=["llama"])), "field 'model_type' must be a string"),
    (json.dumps(dict(BASE, model_type={})), "field 'model_type' must be a string"),
    (json.dumps(dict(BASE, model_type="t5", architectures=[["LlamaForCausalLM"]])),
     "unsupported model_type 't5'"),
    (json.dumps(dict(BASE, model_type="t5", text_config={"model_type": {}})),
     "unsupported model_type 't5'"),
])
def test_hostile_configs(tmp_path, content, needle):
    if content == "{}":
        pytest.skip("this Python has no limit on integer digits")
    p = tmp_path / "config.json"
    p.write_text(content)
    r, seconds = _run("describe", str(p), "--json")
    _one_line_error(r, needle)
    assert seconds < 10


def test_a_config_of_a_few_megabytes_is_read(tmp_path):
    # ModelOpt files list their quantization module by module: nvidia/MiniMax-M3-NVFP4's
    # config.json (ai-dynamo/aiconfigurator @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce,
    # model_configs/nvidia--MiniMax-M3-NVFP4_config.json) is 3,087,083 bytes; one of that size
    # is read, not refused for its size (Llama 2 7B's 6,738,415,616, SOURCES.md section 1)
    text = json.dumps(dict(BASE, filler=""))
    p = tmp_path / "config.json"
    p.write_text(text.replace('"filler": ""', '"filler": "' + "x" * (3_087_083 - len(text)) + '"'))
    assert p.stat().st_size == 3_087_083
    r, seconds = _run("describe", str(p), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["params_total"] == 6_738_415_616
    assert seconds < 10


def test_config_from_standard_input():
    text = (MODELS / "llama-2-7b" / "config.json").read_text()
    r, _ = _run("describe", "-", "--json", stdin=text)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["params_total"] == 6_738_415_616


@pytest.mark.parametrize("args", [
    ["frontier", "--hardware", "h100-sxm", "--batch", "4"],
    ["plan", "--ttft-ms", "2000", "--tpot-ms", "50", "--hardware", "h100-sxm", "--weights",
     "bf16", "--max-batch", "2", "--video-seconds", "2"],
])
def test_standard_input_read_once(args):
    # frontier and plan with a video each read the model twice: "-" found standard input empty
    # the second time ("malformed JSON in <stdin>"); a file and its catalog name agree
    name = "qwen2-vl-7b-instruct"
    r, _ = _run(args[0], "-", *args[1:], "--json", stdin=(MODELS / name / "config.json").read_text())
    assert r.returncode == 0, r.stderr
    by_name, _ = _run(args[0], name, *args[1:], "--json")
    assert by_name.returncode == 0, by_name.stderr
    drop = ("model", "seconds")  # the name given ("<stdin>") and the search's own wall time
    strip = (lambda o: {k: v for k, v in o.items() if k not in drop} if isinstance(o, dict)
             else o)
    assert strip(json.loads(r.stdout)) == strip(json.loads(by_name.stdout))


def test_moe_at_a_huge_batch_returns_promptly():
    t = time.perf_counter()
    e = estimate("mixtral-8x7b", hardware="h100-sxm", batch=2_000_000_000)
    assert time.perf_counter() - t < 5
    assert e.experts_read == pytest.approx(8.0)


def test_warning_past_the_trained_context(recwarn):
    r, _ = _run("describe", "llama-2-7b", "--context", "100000")
    assert r.returncode == 0
    assert "warning: context 100,000 is beyond llama-2-7b's trained context 4,096" in r.stderr
    with pytest.warns(UserWarning, match="trained context"):
        estimate("llama-2-7b", context=100_000)


def test_api_meets_people_where_they_are():
    m = get_model("llama-2-7b")
    # NumPy scalars, names as strings
    a = estimate(m, context=np.int64(1024), batch=np.int32(2), hardware="h100-sxm")
    b = estimate("llama-2-7b", context=1024, batch=2, hardware="H100 SXM")
    assert a.decode_seconds_per_token == b.decode_seconds_per_token
    # a GB/s figure passed as B/s is refused with the unit named
    with pytest.raises(InputError, match="bandwidth is in B/s; 1008 B/s is implausibly small"):
        estimate(m, bandwidth=1008)
    with pytest.raises(InputError, match="unknown hardware 'h100-sxn'; did you mean"):
        estimate(m, hardware="h100-sxn")


@pytest.mark.parametrize("option", ["--roster", "--key"])
def test_problems_unreadable_file_names_it(tmp_path, option):
    """A file the system cannot open (missing, or a folder) is named with the system's reason:
    'problems --roster /missing.csv' printed 'error: 2' (the errno, an OSError's first
    argument) and '--key DIR' 'error: 21'. The expected reasons are the operating system's own
    strings for ENOENT and EISDIR (os.strerror), not the command's."""
    import errno
    import os
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\n1,A\n", encoding="utf-8")
    missing, folder = tmp_path / "missing.csv", tmp_path / "folder"
    folder.mkdir()
    args = {"--roster": ["--roster", str(missing), "--key", str(tmp_path / "k.key")],
            "--key": ["--roster", str(roster), "--key", str(folder)]}[option]
    reason = os.strerror(errno.ENOENT if option == "--roster" else errno.EISDIR)
    r, _ = _run("problems", *args, "--out", str(tmp_path / "out"))
    _one_line_error(r, f"{missing if option == '--roster' else folder}: {reason}")


def test_problems_roster_not_text_names_it(tmp_path):
    # a roster that is not UTF-8 printed 'error: utf-8' (a UnicodeDecodeError's first argument)
    roster = tmp_path / "roster.csv"
    roster.write_bytes(b"\xff\xfeid,name\n")
    r, _ = _run("problems", "--roster", str(roster), "--key", str(tmp_path / "k.key"), "--out",
                str(tmp_path / "out"))
    _one_line_error(r, f"--roster: {roster} is not UTF-8 text (byte 0: invalid start byte)")


@pytest.mark.parametrize("call,needle", [
    # a container where a name or a number goes: the argument named, no bare TypeError
    (lambda: __import__("llm_arithmetic.engine", fromlist=["x"]).engine_view(
        "llama-3-8b", ["vllm"], hardware="h100-sxm"), "engine: unknown engine"),
    (lambda: __import__("llm_arithmetic.forecast", fromlist=["x"]).forecast_decode(
        "llama-3-8b", bandwidth=1e12, chip_class=["cpu"]), "chip_class ['cpu'] is not one of"),
    (lambda: _search(prompt=[512]), "prompt must be a positive integer"),
    (lambda: _search(generate={"n": 1}), "generate must be a positive integer"),
    (lambda: _search(max_batch=[8]), "max_batch must be a positive integer"),
    (lambda: _search(max_batch=0), "max_batch must be a positive integer, got 0"),
    (lambda: _search(price_per_hour=(2.0,)), "price_per_hour must be a number"),
    (lambda: _search(price_per_hour={"h100-sxm": "two"}), "price_per_hour must be a number"),
], ids=["engine_view-engine", "forecast_decode-chip_class", "search-prompt",
        "search-generate", "search-max_batch", "search-max_batch-0", "search-price",
        "search-price-per-chip"])
def test_api_containers_name_the_argument(call, needle):
    with pytest.raises(InputError) as err:
        call()
    assert needle in str(err.value) and "\n" not in str(err.value)


def _search(**kw):
    from llm_arithmetic.deploy import search

    return search("llama-3-8b", ttft=1.0, tpot=0.05, hardware=["h100-sxm"], weights=["bf16"],
                  kv_bits=[16], degrees=[1], **{"max_batch": 4, **kw})


@pytest.mark.parametrize("text", ["²x10", "10x¹", "١٠x10", "10x10x10", "x10", "0x5", "10x"])
def test_cli_image_size_names_the_form(text):
    """--image-size takes WIDTHxHEIGHT in ASCII digits. '²' passes str.isdigit but not int(),
    and argparse turned that ValueError into 'invalid _image_size value', without the form; a
    non-ASCII decimal ('١٠') was read as 10."""
    import argparse

    from llm_arithmetic.cli import _image_size
    with pytest.raises(argparse.ArgumentTypeError, match=r"expected WIDTHxHEIGHT in pixels"):
        _image_size(text)
    assert _image_size(" 1000 X 700 ") == (1000, 700)


@pytest.mark.parametrize("size", [{1000: 700, 3: 4}, {1000, 700}, np.array(5),
                                  np.array([[1000, 700], [1, 2]])],
                         ids=["dict", "set", "0-d array", "2-d array"])
def test_api_image_size_is_a_pair(size):
    """A container of two that is no (width, height) pair: a dict indexed by 0 was a KeyError,
    a set a TypeError; the argument is named, on one line."""
    with pytest.raises(InputError) as err:
        estimate("llava-1.5-7b-hf", images=1, image_size=size)
    assert str(err.value).startswith("image_size must be (width, height)")
    assert "\n" not in str(err.value)
    assert estimate("llava-1.5-7b-hf", images=1,
                    image_size=np.array([1000, 700])).image_tokens == 576
