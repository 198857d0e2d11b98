"""Naming a llama.cpp file type whose name is also a block format: ``mostly_q4_0`` is a Q4_0
file (LLAMA_FTYPE_MOSTLY_Q4_0), ``q4_0`` the block format (every weight at 4.5 bits).

Expected values come from outside the code under test:

* the enum names: ``enum llama_ftype`` in llama.cpp's include/llama.h
  (https://github.com/ggml-org/llama.cpp/blob/3679b65db16ebaabba95a893c62eb6c4840e832c/include/llama.h)
  and, for LLAMA_FTYPE_MOSTLY_MXFP4_MOE (added after that commit), ``llama_ftype_get_default_type``
  in src/llama-quant.cpp at the commit formats.toml reads the rules at
  (https://github.com/ggml-org/llama.cpp/blob/007dbbf3fd17eefe9b47fee45f48f7ba5e62b714/src/llama-quant.cpp);
* Llama 2 7B's shapes and parameter count (meta-llama/Llama-2-7b-hf config.json: 32 layers,
  d 4096, FFN 11008, vocabulary 32000, untied; 6,738,415,616 parameters);
* the block sizes (ggml/src/ggml-common.h: block_q4_0 18 bytes per 32 weights, block_q6_K 210
  bytes per 256);
* the published size of the file: llama-bench prints "3.56 GiB" for Llama 2 7B Q4_0
  (https://github.com/ggml-org/llama.cpp/discussions/4167 and /15013, the rows of
  lib/llm_arithmetic/lab/data/runtime_measurements.csv), and the Hub lists
  TheBloke/Llama-2-7B-GGUF's llama-2-7b.Q4_0.gguf at 3,825,807,040 B
  (https://huggingface.co/TheBloke/Llama-2-7B-GGUF/blob/main/llama-2-7b.Q4_0.gguf); its header
  is the same 741,056 B as that of the repository's Q4_K_M, Q5_K_M and Q8_0 files
  (tests/test_serving.py's GGUF_FILES, sizes recorded in dynaboard/ai-studio), as a header that
  holds the metadata and vocabulary, not the tensors, should be.
"""
from __future__ import annotations

import contextlib
import io
import json
import warnings
from fractions import Fraction

import pytest

from llm_arithmetic import FileTypeWarning, estimate, get_model, sweep
from llm_arithmetic.catalog.formats import (BITS_PER_WEIGHT, MIXES, bits_per_weight, file_type,
                                            file_type_names, mix_bits, plan_format)
from llm_arithmetic.cli import main
from llm_arithmetic.core.errors import InputError
from llm_arithmetic.deploy import search
from llm_arithmetic.weights import block_format_note

#: LLAMA_FTYPE_MOSTLY_* names of the file types the catalog models (llama.h, llama-quant.cpp).
LLAMA_H_FTYPES = {"LLAMA_FTYPE_MOSTLY_Q4_0", "LLAMA_FTYPE_MOSTLY_Q8_0", "LLAMA_FTYPE_MOSTLY_Q2_K",
                  "LLAMA_FTYPE_MOSTLY_Q3_K_S", "LLAMA_FTYPE_MOSTLY_Q3_K_M",
                  "LLAMA_FTYPE_MOSTLY_Q3_K_L", "LLAMA_FTYPE_MOSTLY_Q4_K_S",
                  "LLAMA_FTYPE_MOSTLY_Q4_K_M", "LLAMA_FTYPE_MOSTLY_Q5_K_S",
                  "LLAMA_FTYPE_MOSTLY_Q5_K_M", "LLAMA_FTYPE_MOSTLY_Q6_K",
                  "LLAMA_FTYPE_MOSTLY_MXFP4_MOE"}

# Llama 2 7B (config.json) and the blocks' bytes per weight (ggml-common.h)
L, D, F, V = 32, 4096, 11008, 32000
PARAMS = 6_738_415_616
Q4_0, Q6_K, F32 = Fraction(18, 32), Fraction(210, 256), 4
HUB_Q4_0_FILE = 3_825_807_040
OTHER_FILES = {"q4_k_m": 4_081_004_224, "q5_k_m": 4_783_156_928, "q8_0": 7_161_089_728}


def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return rc, out.getvalue(), err.getvalue()


def test_every_modelled_file_type_has_its_llama_h_enum_name():
    explicit = {n for n in file_type_names() if n.startswith("mostly_")}
    assert {"LLAMA_FTYPE_" + n.upper() for n in explicit} == LLAMA_H_FTYPES
    for name in explicit:
        assert file_type(name) is MIXES[name.removeprefix("mostly_")]
        assert file_type(name.upper()) is file_type(f"  {name} ")   # case and spaces
    # a bare name that is no block format names the file too, the same one
    assert file_type("q4_k_m") is file_type("mostly_q4_k_m") is file_type("MOSTLY_Q4_K_M")
    # the four bare names that are both stay the block formats
    shared = {k for k in MIXES if k in BITS_PER_WEIGHT}
    assert shared == {"q2_k", "q4_0", "q6_k", "q8_0"}
    assert all(file_type(k) is None for k in shared)


def test_mostly_q4_0_is_the_published_llama_2_7b_q4_0_file():
    # the tensors by llama.cpp's rules, counted by hand: token_embd at Q4_0, the output head
    # at Q6_K, the layers' matrices at Q4_0, the 2 norms a layer and the final one at F32
    layer = (4 * D * D + 3 * D * F) * Q4_0 + 2 * D * F32
    tensors = V * D * Q4_0 + V * D * Q6_K + L * layer + D * F32
    assert tensors == 3_825_065_984
    e = estimate("llama-2-7b", weights="mostly_q4_0")
    assert e.weight_bytes == tensors and e.weights_as == "as asked: mostly_q4_0"
    assert e.params_total == PARAMS
    # llama-bench's size, to its two decimals
    assert round(e.weight_bytes / 2**30, 2) == 3.56
    # the Hub's file: the rest is the header, the same bytes as in the other files
    m = get_model("llama-2-7b")
    header = HUB_Q4_0_FILE - e.weight_bytes
    assert header == 741_056
    assert {size - mix_bits(m, t) * PARAMS / 8 for t, size in OTHER_FILES.items()} == {header}
    assert mix_bits(m, "mostly_q4_0") == mix_bits(m, "q4_0")


def test_the_bare_name_stays_the_block_format():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FileTypeWarning)
        e = estimate("llama-2-7b", weights="q4_0")
        q = estimate("llama-2-7b", weights="Q4_0", hardware="rtx-4090", context=4096)
    assert e.weight_bytes == PARAMS * 9 // 16 == 3_790_358_784
    assert e.bits_weight == 4.5 and e.weights_as == "as asked: q4_0"
    assert q.weight_bytes == e.weight_bytes
    # the file computes at the block format's precision
    assert plan_format("mostly_q4_0") == plan_format("q4_0")
    f = estimate("llama-2-7b", weights="mostly_q4_0", hardware="rtx-4090", context=4096)
    assert f.compute_precision == q.compute_precision
    assert f.decode_seconds_per_token > q.decode_seconds_per_token


def test_a_bare_shared_name_warns_once_with_the_file_and_its_bytes():
    with pytest.warns(FileTypeWarning) as caught:
        estimate("llama-2-7b", weights="q4_0")
    [w] = caught
    # the Q6_K head over Q4_0 and the F32 norms over 4.5 bits, by hand
    more = V * D * (Q6_K - Q4_0) + (2 * L + 1) * D * (F32 - Q4_0)
    assert more == 34_707_200
    assert str(w.message) == ("'q4_0' is read as the block format (every weight at 4.5 bits); "
                              "the llama.cpp Q4_0 file, whose rules give some tensors other "
                              "types, is mostly_q4_0 (34.7 MB more for llama-2-7b)")
    with pytest.warns(FileTypeWarning, match="mostly_q8_0"):
        sweep("llama-2-7b", hardware="h100-sxm", weights=["fp16", "Q8_0"])
    with pytest.warns(FileTypeWarning, match="mostly_q6_k"):
        search("llama-2-7b", ttft=1.0, tpot=0.1, hardware=["h100-sxm"], weights=["q6_k"],
               max_batch=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for w in ("mostly_q4_0", "q4_k_m", "MOSTLY_Q2_K", "q4_k", "fp16", "mostly_mxfp4_moe"):
            estimate("gpt-oss-20b" if "mxfp4" in w else "llama-2-7b", weights=w)
        estimate("llama-2-7b", bits_weight=4.5)
    # a family whose file is not modelled: the note still says how to ask, without bytes
    assert block_format_note(get_model("falcon-7b"), "q2_k").endswith(
        "is mostly_q2_k (its tensors are not modelled for falcon-7b)")


def test_describe_says_it_in_text_and_json():
    for extra in ((), ("--json",)):
        rc, out, err = _cli("describe", "llama-2-7b", "--weights", "Q4_0", *extra)
        assert rc == 0 and err.count("\n") == 1
        assert err.startswith("llm_arithmetic: warning: 'Q4_0' is read as the block format")
        assert "mostly_q4_0 (34.7 MB more for llama-2-7b)" in err
    rc, out, err = _cli("describe", "llama-2-7b", "--weights", "mostly_q4_0", "--json")
    assert rc == 0 and err == "" and json.loads(out)["weight_bytes"] == 3_825_065_984
    rc, out, err = _cli("plan", "llama-2-7b", "--ttft-ms", "1000", "--tpot-ms", "100",
                        "--hardware", "h100-sxm", "--weights", "q8_0,mostly_q4_0",
                        "--max-batch", "4")
    assert rc == 0 and err.count("\n") == 1 and "mostly_q8_0" in err


def test_unknown_names_exit_2_listing_the_known_ones():
    for bad in ("mostly_q4_k", "mostly_fp16", "mostly_"):
        rc, _, err = _cli("describe", "llama-2-7b", "--weights", bad)
        assert rc == 2 and err.count("\n") == 1
        assert "mostly_q4_0" in err and "q4_k_m" in err and "fp16" in err
        with pytest.raises(InputError, match="unknown weight format"):
            bits_per_weight(bad)
    with pytest.raises(InputError, match="is a llama.cpp file type"):
        bits_per_weight("mostly_q8_0")
