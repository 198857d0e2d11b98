"""The runtime measurement dataset (lib/llm_arithmetic/lab/measurements.py): schema, units,
sources, the reserved validation split and coverage. Cheap: two CSV files are read once."""
from __future__ import annotations

import csv

import pytest

from llm_arithmetic import get_hardware, get_model
from llm_arithmetic.lab import measurements as M

NEW = M.load_runtime_measurements()
ALL = M.all_rows()


def test_header_is_the_documented_schema():
    with open(M.DATA_PATH, newline="", encoding="utf-8") as fh:
        assert tuple(next(csv.reader(fh))) == M.COLUMNS


def test_ids_are_unique_across_both_files():
    assert len({r.id for r in ALL}) == len(ALL)


@pytest.mark.parametrize("r", NEW, ids=[r.id for r in NEW])
def test_row_is_complete_and_in_range(r):
    assert r.measurement_url.startswith("https://") and r.location and r.note
    assert r.runtime and r.runtime_version and r.device and r.weight_format and r.kv_format
    assert r.metric in M.METRICS and r.unit in M.UNITS[r.metric] and r.split in M.SPLITS
    assert r.device_class in ("apple", "consumer-gpu", "datacenter-gpu", "cpu")
    assert r.chips >= 1 and r.batch >= 1 and r.value > 0
    assert r.tp is None or 1 <= r.tp <= r.chips
    assert 2 <= r.bits_per_weight <= 16
    if r.bandwidth_gbps is not None:
        assert r.bandwidth_source.startswith("https://") and 10 <= r.bandwidth_gbps <= 10000
    if r.metric == "decode":
        assert r.context is None or r.context >= 0
    else:   # prefill and throughput rows state their prompt length; TTFT rows too
        assert r.prompt_tokens and r.prompt_tokens > 0
    if r.metric == "throughput":
        assert r.generated_tokens and r.batch > 1


def test_published_units_convert():
    ttft = next(r for r in NEW if r.unit == "ms")
    assert ttft.si_value == pytest.approx(ttft.value / 1000)
    per_gpu = next(r for r in NEW if r.unit == "output token/s per GPU" and r.chips > 1)
    assert per_gpu.si_value == pytest.approx(per_gpu.value * per_gpu.chips)


def test_bad_unit_is_an_error_naming_the_row(tmp_path):
    src = M.DATA_PATH.read_text(encoding="utf-8").splitlines()
    bad = src[1].replace(",token/s,", ",tokens per second,", 1)
    p = tmp_path / "bad.csv"
    p.write_text("\n".join([src[0], bad]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=src[1].split(",")[0] + ".*unit"):
        M.load_runtime_measurements(p)


def test_catalog_keys_exist_and_bandwidths_agree():
    for r in ALL:
        if r.model_key:
            get_model(r.model_key)
        if r.hardware_key:
            assert get_hardware(r.hardware_key).bandwidth == pytest.approx(r.bandwidth_gbps * 1e9)


def test_reserved_sources_are_never_in_the_fit_set():
    for r in ALL:
        assert (r.split == "validation") == M.is_reserved(r.measurement_url), r.id
    assert not any(M.is_reserved(r.measurement_url) for r in M.fit_rows())
    # the three rows that came from discussion 4167 left the fitting set; seven more chips of
    # its summary table (second-hand copies) joined them, each chip once
    d4167 = [r for r in M.validation_rows() if "4167" in r.measurement_url]
    assert {r.id for r in d4167} == {
        "d4167-m2ultra76-7b-q4_0", "d4167-m4max40-7b-q4_0", "d4167-m2pro16-7b-q4_0",
        "d4167-m1ultra64-7b-q4_0", "d4167-m3ultra80-7b-q4_0", "d4167-m4pro20-7b-q4_0",
        "d4167-m1pro16-7b-q4_0", "d4167-m3pro18-7b-q4_0", "d4167-m3max40-7b-q4_0",
        "d4167-m4gpu10-7b-q4_0"}
    assert len({r.device for r in d4167}) == len(d4167)


def test_counts_per_metric_runtime_and_chip():
    by_metric = M.count_by(ALL, lambda r: r.metric)
    assert by_metric["decode"] >= 300
    assert by_metric["prefill"] + by_metric["ttft"] >= 100
    assert by_metric["throughput"] >= 100
    assert len(M.count_by(ALL, lambda r: r.runtime)) >= 5
    assert len(M.count_by(ALL, lambda r: r.hardware_key or r.device)) >= 25
    assert len(M.validation_rows("decode")) >= 30


def test_dgx_spark_page_is_transcribed_whole():
    # benches/dgx-spark.md @ 4c7e9893 has 5 models, each with llama-bench tg32 and pp2048 at 5
    # depths and a llama-batched-bench table of 3 prompt lengths x 6 batch sizes; a B = 1 line
    # gives a decode and a prefill row, a B >= 2 line one throughput row
    spark = [r for r in ALL if r.source == "llama.cpp-dgx-spark-bench"]
    models, depths, prompts, batches = 5, 5, 3, 6
    assert M.count_by(spark, lambda r: r.metric) == {
        "throughput": models * prompts * (batches - 1),
        "decode": models * (depths + prompts), "prefill": models * (depths + prompts)}
    assert {(r.split, r.hardware_key, r.device_class) for r in spark} == {
        ("validation", "dgx-spark", "consumer-gpu")}
    # 32 tokens generated after the prompt or depth: mean context 16 past it
    assert all(r.context == r.prompt_tokens + 16 for r in spark if r.metric != "prefill")


def test_recent_apple_llama_cpp_rows_are_fit_rows_of_2025_26_builds():
    # issue 30 item 2 (Apple silicon, Metal): the tg128 rows that could be read on catalogued
    # models and chips, per source: the single-node table of beowulf-ai-cluster issue 17 (one
    # tg128 row), the "Perf M2 Ultra" table of llama.cpp PR 15616 (one readable tg128 row), and
    # the M1 Ultra rows of the ai-benchmarks README's "gpt-oss 20b" and "Llama 3.1:70b" tables,
    # and (once Llama 3.2 was catalogued) of its "Llama 3.2:3b" table
    expected = {"geerlingguy-beowulf-ai-cluster-17": 1, "llama.cpp-pr-15616": 1,
                "geerlingguy-ai-benchmarks-readme": 3}
    rows = [r for r in NEW if r.source in expected]
    assert M.count_by(rows, lambda r: r.source) == expected
    for r in rows:
        assert (r.split, r.runtime, r.device_class, r.metric, r.batch) == (
            "fit", "llama.cpp", "apple", "decode", 1), r.id
        assert r.hardware_key and "Metal" in r.runtime_version, r.id
        assert "2025" in r.runtime_version or "build 7" in r.runtime_version, r.id
        # tg128 from an empty cache: 128 tokens generated, mean context 64
        assert (r.prompt_tokens, r.generated_tokens, r.context) == (0, 128, 64), r.id
    # bits per weight from the published file size: 39.59 GiB over 70.55 B params (issue 17)
    llama = next(r for r in rows if r.source == "geerlingguy-beowulf-ai-cluster-17")
    assert llama.bits_per_weight == pytest.approx(39.59 * 8 * 2**30 / 70.55e9, abs=1e-3)
    # README @ 022fb931, "Llama 3.2:3b", row "M1 Ultra (64 GPU Core) 128GB": 127.6 Tokens/s;
    # bits from issue 48's llama-bench print "llama 3B Q4_K - Medium | 1.87 GiB | 3.21 B"
    small = next(r for r in rows if r.model_key == "llama-3.2-3b")
    assert (small.hardware_key, small.value) == ("m1-ultra", 127.6)
    assert small.bits_per_weight == pytest.approx(1.87 * 8 * 2**30 / 3.21e9, abs=1e-3)


def _batch1_llama_cpp_fit_rows(expected: dict[str, int]) -> list:
    """The rows of the sources in ``expected`` (source -> rows, counted from the pages), each a
    single-chip, batch-1 llama.cpp decode row of the fit split (issue 30 item 2's passes)."""
    rows = [r for r in NEW if r.source in expected]
    assert M.count_by(rows, lambda r: r.source) == expected
    for r in rows:
        assert (r.split, r.runtime, r.metric, r.batch, r.chips) == (
            "fit", "llama.cpp", "decode", 1, 1), r.id
    return rows


def test_recent_cuda_llama_cpp_rows_of_dense_models_are_fit_rows():
    # issue 30 item 2 (NVIDIA, CUDA, dense models): calebcoffie.com's Gemma-3 4b-it page, two
    # readable 'raw' rows (tg_1024 189.8 and tg_512 188.7 tok/s on one RTX 3090 at 450 W), and
    # the L40S llama-bench log of perf-analysis-modeling-project (Qwen3-8B Q5_K_M tg128 104.61)
    # and its A30 log of the same build (tg128 75.83; a chip the catalog lacks, so no key)
    expected = {"calebcoffie-benchmarks": 2, "perf-analysis-modeling-project": 2}
    rows = _batch1_llama_cpp_fit_rows(expected)
    for r in rows:
        assert r.device_class == ("datacenter-gpu" if "A30" in r.device else "consumer-gpu"), r.id
        assert "CUDA" in r.runtime_version and r.model_key in ("gemma-3-4b", "qwen3-8b"), r.id
        # generation from an empty cache: mean context half the generated tokens
        assert r.prompt_tokens == 0 and r.context == r.generated_tokens // 2, r.id
    assert sorted((r.hardware_key, r.generated_tokens, r.value) for r in rows) == [
        ("", 128, 75.83), ("l40s", 128, 104.61), ("rtx-3090", 512, 188.7),
        ("rtx-3090", 1024, 189.8)]
    # bits per weight from llama-bench's printed size and parameter count: 5.44 GiB, 8.19 B
    l40s = next(r for r in rows if r.hardware_key == "l40s")
    assert l40s.bits_per_weight == pytest.approx(5.44 * 8 * 2**30 / 8.19e9, abs=1e-3)


def test_more_recent_cuda_llama_cpp_rows_are_first_hand_fit_rows():
    # issue 30 item 2, second pass (NVIDIA, CUDA, 2025-26 builds, dense catalogued models): per
    # source, the tg128 rows of a single uncapped GPU with the whole model on it.
    # llm-tracker vault "RTX PRO 6000.md": Llama 2 7B Q4_0 at 600 W, the 70B and the Mistral
    # Nemo 12B tables (the 405B runs with 116 of 126 layers on the GPU and the MoE tables are out)
    expected = {"llm-tracker-rtx-pro-6000": 3}
    rows = _batch1_llama_cpp_fit_rows(expected)
    for r in rows:
        assert "CUDA" in r.runtime_version and r.bandwidth_source.startswith("https://"), r.id
        assert not get_model(r.model_key).is_moe, r.id
        build = int(r.runtime_version.split("(")[1].split(")")[0])
        assert build >= 4500, r.id
        assert r.context == r.prompt_tokens + r.generated_tokens // 2, r.id
    # Llama 2 7B Q4_0: 3.56 GiB over 6.74 B parameters, as llama-bench prints them
    q4 = next(r for r in rows if r.model_key == "llama-2-7b")
    assert q4.bits_per_weight == pytest.approx(3.56 * 8 * 2**30 / 6.74e9, abs=1e-3)
    assert q4.value == 278.95


def test_llm_tracker_vault_rows_are_first_hand_single_gpu_cuda_tg128():
    # issue 30 item 2: the llm-tracker vault's pages other than "RTX PRO 6000.md" (Leonard Lin's
    # own llama-bench logs): one uncapped NVIDIA GPU with every layer on it, dense catalogued
    # models, tg128; dated by build (1988 and 4006 in 2024, a 2023-11-13 run); the H200 run of
    # Llama 3.1 405B is not a row (outside the rule's model list, written before reading)
    expected = {"llm-tracker-vault-2023-24": 5}
    rows = _batch1_llama_cpp_fit_rows(expected)
    for r in rows:
        assert r.id.startswith("lhv-"), r.id
        assert "CUDA" in r.runtime_version and r.hardware_key, r.id
        assert M.LLAMA_CPP_BUILDS[r.source] == "2023-24", r.id
        assert not get_model(r.model_key).is_moe, r.id
        assert r.measurement_url.startswith(
            "https://github.com/AUGMXNT/llm-tracker.info-vault/blob/"), r.id
        assert (r.prompt_tokens, r.generated_tokens, r.context) == (0, 128, 64), r.id
    value = {(r.hardware_key, r.model_key): r.value for r in rows}
    # howto/Intel GPUs.md, "RTX 4090": llama 7B Q4_K - Medium | 4.07 GiB | 7.25 B | tg128
    assert value[("rtx-4090", "mistral-7b")] == 172.31
    # howto/AMD GPUs.md, the comparison table "Tested 2024-01-28": RTX 3090, Llama 2 7B Q4_0
    assert value[("rtx-3090", "llama-2-7b")] == 134.5
    assert not any(r.hardware_key == "h200" for r in NEW if r.id.startswith("lhv-"))


def test_recent_cuda_llama_cpp_rows_from_web_pages_are_fit_rows():
    # issue 30 item 2, web pages: InventiveHQ Lab's RTX 5060 Ti series, Qwen2.5-Coder-7B-Instruct
    # through llama-server: Q4_K_M 81.2 tok/s (power-limit post, 180 W row), Q2_K 91.2 and Q8_0
    # 49.6 (the two ends the quantization post's summary names)
    rows = [r for r in NEW if r.id.startswith("pg-")]
    assert M.count_by(rows, lambda r: r.source) == {"pg-inventivehq-lab": 3}
    for r in rows:
        assert (r.split, r.runtime, r.device_class, r.metric, r.batch, r.chips) == (
            "fit", "llama.cpp", "consumer-gpu", "decode", 1, 1), r.id
        assert "CUDA" in r.runtime_version and "2026" in r.runtime_version, r.id
        assert (r.hardware_key, r.model_key) == ("rtx-5060-ti", "qwen2.5-7b"), r.id
        assert r.measurement_url.startswith("https://inventivehq.com/blog/"), r.id
    assert sorted((r.weight_format, r.value) for r in rows) == [
        ("Q2_K", 91.2), ("Q4_K_M", 81.2), ("Q8_0", 49.6)]
    # bits from the published file sizes (3.02 and 4.68 GB) over Qwen2.5-7B's 7.616 B params
    bits = {r.weight_format: r.bits_per_weight for r in rows}
    assert bits["Q2_K"] == pytest.approx(3.02e9 * 8 / 7.616e9, abs=1e-3)
    assert bits["Q4_K_M"] == pytest.approx(4.68e9 * 8 / 7.616e9, abs=1e-3)
    # fewer bits read, faster: the three rates fall as the bits rise
    assert [r.value for r in sorted(rows, key=lambda r: r.bits_per_weight)] == [91.2, 81.2, 49.6]


def test_inventivehq_repository_rows_are_fit_rows_of_one_card_and_build():
    # issue 30 item 2, web pages (second pass): the repository behind InventiveHQ Lab's series
    # (InventiveHQ/speculative-decoding-consumer-gpus @ 451748f2), one RTX 5060 Ti, llama.cpp
    # release b9789 on CUDA, llama-server's generation rate over a 12-prompt suite
    rows = _batch1_llama_cpp_fit_rows({"pw-inventivehq-local-llm-benchmarks": 8})
    assert {r.id for r in rows} == {r.id for r in NEW if r.id.startswith("pw-")}
    for r in rows:
        assert r.device_class == "consumer-gpu", r.id
        assert (r.hardware_key, M.llama_cpp_build(r), M.uses_cuda_graphs(r)) == (
            "rtx-5060-ti", 9789, True), r.id
        assert (r.prompt_tokens, r.generated_tokens, r.context) == (None, 256, None), r.id
        assert r.measurement_url.startswith(
            "https://github.com/InventiveHQ/speculative-decoding-consumer-gpus/blob/"
            "451748f2a1c484e91381efd26bbccb7ae916ec42/experiments/"), r.id
    got = {(r.model_key, r.weight_format, r.kv_format): r.value for r in rows}
    # experiment #1's data.json (CUDA baselines), #3's quantization sweep, #11's 3B row and
    # #4's quantized KV caches, as the repository prints them
    assert got == {("qwen2.5-14b", "Q4_K_M", "fp16"): 42.0, ("qwen2.5-7b", "Q4_K_S", "fp16"): 84.7,
                   ("qwen2.5-7b", "Q3_K_M", "fp16"): 73.03, ("qwen2.5-7b", "Q5_K_M", "fp16"): 69.8,
                   ("qwen2.5-7b", "Q6_K", "fp16"): 59.11, ("qwen2.5-3b", "Q4_K_M", "fp16"): 157.15,
                   ("qwen2.5-7b", "Q4_K_M", "q8_0"): 76.41, ("qwen2.5-7b", "Q4_K_M", "q4_0"): 80.29}
    # bits = the file size the run printed (decimal MB) x 8 / the catalog's parameter count
    # (Qwen2.5 7B 7,615,616,512; 14B 14,770,033,664, as its model card's 14.7 B)
    bits = {(r.model_key, r.weight_format, r.kv_format): r.bits_per_weight for r in rows}
    assert bits[("qwen2.5-7b", "Q6_K", "fp16")] == pytest.approx(6254e6 * 8 / 7_615_616_512,
                                                                  abs=1e-3)
    assert bits[("qwen2.5-14b", "Q4_K_M", "fp16")] == pytest.approx(
        8988e6 * 8 / 14_770_033_664, abs=1e-3)
    # a step reads fewer bytes at fewer bits: the sweep's Q3_K_M-Q6_K files are smaller to larger
    sweep = sorted((r for r in rows if "quantization-quality" in r.measurement_url),
                   key=lambda r: r.bits_per_weight)
    assert [r.weight_format for r in sweep] == ["Q3_K_M", "Q5_K_M", "Q6_K"]


def test_llama_cpp_ci_v100_rows_are_one_chip_one_model_many_builds():
    # issue 30 item 2: llama.cpp's own CI (ggml-org/ci), node ggml-4-x86-cuda-v100, the text
    # generation step of OpenLLaMA 7B v2 for the first successful run found in each quarter
    # it ran that model (builds 1300, 1743, 2585) and the last run found before the node moved
    # to Pythia 2.8B (build 2971), five formats each
    rows = [r for r in NEW if r.source == "ggml-org-ci-v100" and r.model_key == "llama-2-7b"]
    assert len(rows) == 4 * 5
    for r in rows:
        assert (r.split, r.runtime, r.device_class, r.metric, r.batch, r.chips) == (
            "fit", "llama.cpp", "datacenter-gpu", "decode", 1, 1), r.id
        assert (r.model_key, r.hardware_key, r.bandwidth_gbps) == ("llama-2-7b", "", 900), r.id
        assert r.measurement_url.startswith("https://github.com/ggml-org/ci/blob/"), r.id
        # an 8-token prompt, then 256 tokens (-n 256): mean context 8 + 128
        assert (r.prompt_tokens, r.generated_tokens, r.context) == (8, 256, 136), r.id
    builds = {int(r.runtime_version.split()[1]) for r in rows}
    assert builds == {1300, 1743, 2585, 2971}
    for b in builds:
        assert sorted(r.weight_format for r in rows if f"build {b} " in r.runtime_version) == [
            "Q4_0", "Q4_K_M", "Q6_K", "Q8_0", "fp16"]
    # each log's eval line prints both the time of its 255 runs and the rate: 255 / time
    eval_ms = {  # build 1300 (2 Oct 2023), 1743 (2 Jan 2024), 2585 (1 Apr 2024), 2971 (22 May)
        "b1300-openllama7b-q4_0": 2300.10, "b1743-openllama7b-q4_0": 2241.23,
        "b2585-openllama7b-q4_0": 2268.16, "b1300-openllama7b-f16": 4892.47,
        "b2585-openllama7b-q6_k": 2885.48, "b2971-openllama7b-f16": 5164.38}
    for key, ms in eval_ms.items():
        r = next(r for r in rows if r.id == f"ggml-ci-v100-{key}")
        assert r.value == pytest.approx(255 / (ms / 1000), abs=0.01), r.id
    q4 = next(r for r in rows if r.id == "ggml-ci-v100-b1300-openllama7b-q4_0")
    assert q4.value == 110.86
    # bits from the printed "model size = 3.56 GiB" over "model params = 6.74 B"
    assert q4.bits_per_weight == pytest.approx(3.56 * 8 * 2**30 / 6.74e9, abs=1e-3)


def test_llama_cpp_ci_v100_pythia_rows_carry_the_chip_into_2025():
    # issue 30 item 2: the same CI node after its text-generation step moved to Pythia 2.8B
    # (25 May 2024): the first successful run found per quarter, 2024 Q2 to 2025 Q1 (builds
    # 2992, 3293, 3854, 4423), five formats each; the 2025 build under a source of its own
    rows = [r for r in NEW if r.model_key == "pythia-2.8b" and "ci-v100-pythia" in r.id]
    assert len(rows) == 4 * 5
    # every row's (build, source) pair, so that one row filed under the wrong key fails
    builds = {(int(r.runtime_version.split()[1]), r.source) for r in rows}
    assert builds == {(2992, "ggml-org-ci-v100"), (3293, "ggml-org-ci-v100"),
                      (3854, "ggml-org-ci-v100"), (4423, "ggml-org-ci-v100-2025")}
    assert M.LLAMA_CPP_BUILDS["ggml-org-ci-v100-2025"] == "2025-26"
    for r in rows:
        assert (r.split, r.runtime, r.device, r.metric, r.batch, r.bandwidth_gbps) == (
            "fit", "llama.cpp", "NVIDIA Tesla V100-PCIE-16GB", "decode", 1, 900), r.id
        assert r.measurement_url.startswith("https://github.com/ggml-org/ci/blob/"), r.id
        # 256 tokens after the prompt as printed: 8 tokens in build 2992 (a BOS token), 7 later
        assert r.generated_tokens == 256 and r.context == r.prompt_tokens + 128, r.id
        assert r.prompt_tokens == (8 if "build 2992 " in r.runtime_version else 7), r.id
    for b, _ in builds:
        assert sorted(r.weight_format for r in rows if f"build {b} " in r.runtime_version) == [
            "Q4_0", "Q4_K_M", "Q6_K", "Q8_0", "fp16"]
    # typed from the logs' eval lines: build 2992 Q4_0 'eval time = 1663.78 ms / 255 runs
    # (6.52 ms per token, 153.27 tokens per second)', build 4423 F16 'eval time = 2601.62 ms /
    # 255 runs (10.20 ms per token, 98.02 tokens per second)'
    q4 = next(r for r in rows if r.id == "ggml-ci-v100-pythia-b2992-q4_0")
    f16 = next(r for r in rows if r.id == "ggml-ci-v100-pythia-b4423-f16")
    assert (q4.value, f16.value) == (153.27, 98.02)
    assert q4.value == pytest.approx(255 / 1.66378, abs=0.01)
    assert f16.value == pytest.approx(255 / 2.60162, abs=0.01)
    # read again in review, the logs' eval lines: build 3293 Q4_K_M 'eval time = 1755.26 ms /
    # 255 runs (6.88 ms per token, 145.28 tokens per second)', build 3854 Q6_K 'eval time =
    # 1895.57 ms / 255 runs (7.43 ms per token, 134.52 tokens per second)'
    by_id = {r.id: r.value for r in rows}
    assert by_id["ggml-ci-v100-pythia-b3293-q4_k"] == 145.28 == round(255 / 1.75526, 2)
    assert by_id["ggml-ci-v100-pythia-b3854-q6_k"] == 134.52 == round(255 / 1.89557, 2)
    # bits from the printed "model size = 1.49 GiB (4.61 BPW)" over "model params = 2.78 B"
    assert q4.bits_per_weight == pytest.approx(1.49 * 8 * 2**30 / 2.78e9, abs=1e-3)
    # the printed parameter count rounds the catalog's exact one
    assert round(get_model("pythia-2.8b").total_params / 1e9, 2) == 2.78


def test_llama_cpp_pr_tables_of_2024_are_master_columns_of_one_gpu():
    # issue 30 item 2: the master column of llama.cpp maintainers' compare-llama-bench tables in
    # PRs opened in 2024, per quarter and GPU the first PR found with batch-1 tg rows of a
    # catalogued dense model. Only PR 4766 (Q1) had such rows readable in the stored copies:
    # JohannesGaessler's table, RTX 3090 (F16, Q4_0) and one P40 (Q4_0); its Q8_0 rows were cut
    rows = _batch1_llama_cpp_fit_rows({"llama.cpp-cuda-prs-2024": 3})
    for r in rows:
        assert r.model_key == "llama-2-7b", r.id
        assert r.runtime_version.startswith("master of ") and "CUDA" in r.runtime_version, r.id
        assert r.measurement_url == "https://github.com/ggml-org/llama.cpp/pull/4766", r.id
        assert "t/s master" in r.location, r.id
        # llama-bench tg128 from an empty cache: mean context 64
        assert (r.prompt_tokens, r.generated_tokens, r.context) == (0, 128, 64), r.id
    # values typed from the table's 't/s master' column (turn 56 of the thread)
    value = {(r.device.split()[1], r.weight_format): r.value for r in rows}
    assert value[("GeForce", "Q4_0")] == 121.82      # RTX 3090 | 0 | llama 7B Q4_0 | tg128
    assert value[("Tesla", "Q4_0")] == 56.79          # P40 | 0 | llama 7B Q4_0 | tg128
    # the P40 row carries NVIDIA's datasheet bandwidth, no catalog key
    p40 = next(r for r in rows if "P40" in r.device)
    assert (p40.hardware_key, p40.bandwidth_gbps) == ("", 346)
    assert "Tesla-P40-Datasheet" in p40.bandwidth_source


def test_every_llama_cpp_source_has_its_builds_dated():
    # the forecast's build-era candidates (scripts/fit_forecast.py --select) read the era of each
    # llama.cpp source: a new source must be dated (runtime_README.md, "Builds of llama.cpp")
    sources = {r.source for r in M.all_rows() if r.runtime == "llama.cpp"}
    # the device kit's source (scripts/device/import_llama_bench.py) is dated before its rows exist
    assert sources <= set(M.LLAMA_CPP_BUILDS)
    assert set(M.LLAMA_CPP_BUILDS) - sources <= {"first-hand-h200-llama.cpp"}
    assert set(M.LLAMA_CPP_BUILDS.values()) == {"2023-24", "2025-26"}


def test_llama_cpp_cuda_pr_tables_2025_26_are_baseline_columns_of_dated_prs():
    # issue 30 item 2: the master (baseline) column of compare-llama-bench tables in CUDA pull
    # requests of ggml-org/llama.cpp opened from January 2025 on, first PR per quarter and GPU
    rows = _batch1_llama_cpp_fit_rows({"llama.cpp-cuda-prs-2025-26": 2})
    for r in rows:
        assert r.unit == "token/s", r.id
        assert r.measurement_url.startswith("https://github.com/ggml-org/llama.cpp/pull/"), r.id
        pr = r.measurement_url.rsplit("/", 1)[1]
        assert f"(PR #{pr}'s baseline), CUDA, llama-bench, FA " in r.runtime_version, r.id
        assert r.runtime_version.startswith(("master of 2025-", "master of 2026-")), r.id
        assert r.model_key and r.bandwidth_gbps and r.bandwidth_source, r.id
        # tgN from an empty cache (or after M cached tokens): mean context M + N/2
        assert r.context == r.prompt_tokens + r.generated_tokens // 2, r.id
    by_id = {r.id: r for r in rows}
    # PR 16630 (am17an, 2025-10-17), "Performance on a 4090": qwen3 0.6B F16, tg128, t/s master
    assert by_id["prs25-16630-rtx4090-qwen3-0.6b-f16-tg128"].value == 303.35
    # PR 16715, JohannesGaessler's comment of 2025-10-26: P40, gemma3 4B Q4_0, tg128, baseline
    assert by_id["prs25-16715-p40-gemma3-4b-q4_0-tg128"].value == 73.25


def test_rows_of_newly_catalogued_dense_models_follow_the_earlier_rules():
    # issue 30 item 2: the three earlier llama.cpp rules applied again once the catalog gained
    # Llama 3.2 1B/3B, Qwen3 4B/14B/32B and Qwen2.5 3B/14B/32B. Readable in the stored excerpts:
    # PR 12183's thread (March 2025), two plain llama-bench tables of Qwen2.5-Coder-3B Q4_0
    # ('qwen2 3B Q4_0', -fa 0,1), the threads rule's source; their fa 1 tg128 rows are cut
    rows = _batch1_llama_cpp_fit_rows({"llama.cpp-issue-threads-2025-26": 2})
    for r in rows:
        assert r.id.startswith("thr-12183-") and r.model_key == "qwen2.5-3b", r.id
        assert r.measurement_url == "https://github.com/ggml-org/llama.cpp/pull/12183", r.id
        assert r.runtime_version.endswith("CUDA, llama-bench, FA off"), r.id
        assert (r.prompt_tokens, r.generated_tokens, r.context) == (0, 128, 64), r.id
    assert M.LLAMA_CPP_BUILDS["llama.cpp-issue-threads-2025-26"] == "2025-26"
    by_gpu = {r.device: r for r in rows}
    v100 = by_gpu["NVIDIA Tesla V100-PCIE-16GB"]
    rtx = by_gpu["NVIDIA GeForce RTX 4090 24GB"]
    # values typed from the tables' 't/s' column, row 'qwen2 3B Q4_0 ... | 0 | tg128':
    assert v100.value == 143.53      # ggerganov, turn 2, 'Device 0: Tesla V100-PCIE-16GB'
    assert rtx.value == 239.25       # gaugarg-nv, turn 3, 'Device 0: NVIDIA GeForce RTX 4090'
    # bits from each table's printed size and parameter count (1.70 GiB / 3.09 B; 1.86 / 3.40)
    assert v100.bits_per_weight == pytest.approx(1.70 * 8 * 2**30 / 3.09e9, abs=1e-3)
    assert rtx.bits_per_weight == pytest.approx(1.86 * 8 * 2**30 / 3.40e9, abs=1e-3)
    # the printed counts against the catalog's: 3.09 B is Qwen2.5 3B with its tied head; the
    # 3.40 B file stores the 151,936 x 2,048 output head as a tensor of its own
    n = get_model("qwen2.5-3b").total_params
    assert round(n / 1e9, 2) == 3.09 and round((n + 151_936 * 2_048) / 1e9, 2) == 3.40
    assert (v100.hardware_key, v100.bandwidth_gbps, rtx.hardware_key) == ("", 900, "rtx-4090")


def test_vendor_speed_benchmarks_take_every_catalogued_size():
    # issue 30 items 5 and 2: the Qwen pages' batch-1 decode rows (input length 1, 2048 tokens
    # generated, one GPU), re-read once more sizes were catalogued. Qwen2.5's vLLM tables (A100
    # 80GB): 7B, 3B and 14B in BF16, GPTQ-Int8, GPTQ-Int4 and AWQ; 32B without its BF16 row,
    # which ran with enforce_eager=True ("setting1"), not with CUDA graphs as the others.
    # Qwen3's SGLang tables (H20): 0.6B and 1.7B in BF16, FP8, GPTQ-Int8; 4B, 8B, 14B and 32B in
    # BF16, FP8, AWQ-INT4; 30B-A3B in BF16, FP8 (GPTQ-INT4 in SGLang "needs improvement": out)
    expected = {"qwen2.5-speed-benchmark": 4 * 3 + 3, "qwen3-speed-benchmark": 3 * 6 + 2}
    rows = [r for r in NEW if r.source in expected]
    assert M.count_by(rows, lambda r: r.source) == expected
    for r in rows:
        assert (r.split, r.metric, r.batch, r.chips) == ("fit", "decode", 1, 1), r.id
        assert (r.prompt_tokens, r.generated_tokens, r.context) == (1, 2048, 1024), r.id
    q25 = {(r.model_key, r.weight_format): r.value for r in rows
           if r.source == "qwen2.5-speed-benchmark"}
    assert ("qwen2.5-32b", "bf16") not in q25
    # typed from speed_benchmark.rst @ a912d239, "3B (vLLM)" and "14B (vLLM)" tables,
    # Input Length 1, Speed(tokens/s)
    assert q25[("qwen2.5-3b", "bf16")] == 127.61
    assert q25[("qwen2.5-14b", "GPTQ int4 g128")] == 98.02
    # fewer bits read, faster, size by size (GPTQ-Int4 faster than GPTQ-Int8 faster than BF16)
    for key in ("qwen2.5-3b", "qwen2.5-7b", "qwen2.5-14b"):
        assert q25[(key, "GPTQ int4 g128")] > q25[(key, "GPTQ int8 g128")] > q25[(key, "bf16")]
    q3 = {(r.model_key, r.weight_format): r for r in rows if r.source == "qwen3-speed-benchmark"}
    assert {r.hardware_key for r in q3.values()} == {"h20"}
    # typed from speed_benchmark.md @ c7f51a1a, "Qwen3-4B (SGLang)" and "Qwen3-32B (SGLang)",
    # Input Length 1, Speed (tokens/s)
    assert q3[("qwen3-4b", "fp8 (block-wise)")].value == 200.61
    assert q3[("qwen3-32b", "bf16")].value == 20.72
    assert ("qwen3-32b", "GPTQ int4 g128") not in q3


# Shapes of the Qwen checkpoints, typed from their Hugging Face config.json files (hidden size,
# layers, intermediate size, attention heads, KV heads, head dim, vocabulary, tied head);
# Qwen2.5 has q/k/v biases, Qwen3 per-head q/k RMSNorms instead.
_QWEN_SHAPES = {
    "qwen2.5-3b": (2048, 36, 11008, 16, 2, 128, 151936, True),
    "qwen2.5-14b": (5120, 48, 13824, 40, 8, 128, 152064, False),
    "qwen2.5-32b": (5120, 64, 27648, 40, 8, 128, 152064, False),
    "qwen3-4b": (2560, 36, 9728, 32, 8, 128, 151936, True),
    "qwen3-14b": (5120, 40, 17408, 40, 8, 128, 151936, False),
    "qwen3-32b": (5120, 64, 25600, 64, 8, 128, 151936, False),
}


def _qwen_weights_read(key: str) -> tuple[int, int]:
    """(weights one decode step reads, of which the output matrix), counted here from the
    shapes alone: a second derivation, not the library's count."""
    h, layers, inter, heads, kv, hd, vocab, _tied = _QWEN_SHAPES[key]
    attn = h * heads * hd + 2 * h * kv * hd + heads * hd * h
    attn += (heads + 2 * kv) * hd if key.startswith("qwen2.5") else 2 * hd
    body = layers * (attn + 3 * h * inter + 2 * h) + h
    return body + vocab * h, vocab * h   # the tied head is the embedding, read once either way


def test_vendor_speed_benchmark_bits_follow_the_stated_group_formats():
    # the rows the Qwen pages gave once 3B/14B/32B (Qwen2.5) and 4B/14B/32B (Qwen3) were
    # catalogued: bits over the weights a step reads, every matrix in the checkpoint's format but
    # the output projection, kept 16-bit (runtime_README, "Conventions of these rows"); GPTQ
    # int8 g128 = 8 + a 16-bit scale and an 8-bit zero per 128, GPTQ/AWQ int4 g128 = 4 + 16/128
    # + 4/128, FP8 8 (its 128x128 block scales are 0.002 bits), BF16 16
    group = {"GPTQ int8 g128": 8 + 24 / 128, "GPTQ int4 g128": 4 + 20 / 128,
             "AWQ int4 g128": 4 + 20 / 128, "fp8 (block-wise)": 8, "bf16": 16}
    rows = [r for r in NEW if r.model_key in _QWEN_SHAPES
            and r.source in ("qwen2.5-speed-benchmark", "qwen3-speed-benchmark")]
    assert len(rows) == 11 + 9
    for r in rows:
        n, head = _qwen_weights_read(r.model_key)
        b = group[r.weight_format]
        assert r.bits_per_weight == pytest.approx((b * (n - head) + 16 * head) / n, abs=1e-3), r.id
    # the counts agree with the published totals (model cards: Qwen2.5 3B 3.09 B with its tied
    # head; Qwen3 32B 32.8 B: the read count plus the untied embedding)
    assert round(_qwen_weights_read("qwen2.5-3b")[0] / 1e9, 2) == 3.09
    n, head = _qwen_weights_read("qwen3-32b")
    assert round((n + head) / 1e9, 1) == 32.8


def test_mlx_community_submissions_take_every_catalogued_model():
    # issue 30 items 5 and 2: the community submissions (Rapid-MLX's JSON files @ 88cb79e9,
    # llmfit's @ 3f44fd30, vllm-mlx issue 531), re-read once more models were catalogued.
    # Rapid-MLX, M3 Ultra 60-core: + Qwen2.5 14B and Gemma 3 27B (QAT), short and long buckets;
    # llmfit, M4 Pro with mlx_lm.server: + Llama 3.2 1B and 3B, Qwen2.5-Coder-3B, Qwen3 14B and
    # Gemma 3 27B (MLX 4-bit; llama-server rows of Q4_K_M files whose size no source gives stay
    # out, as before), then, from the catalog's second batch, SmolLM3 3B, Phi-4 and Mistral
    # Small 3.2 24B (counted as mistral-small-3.1-24b); Rapid-MLX holds none of the second batch;
    # issue 531 holds one model, already a row
    expected = {"rapid-mlx-community-bench": 10 + 4, "llmfit-community-bench": 7 + 5 + 3,
                "vllm-mlx-issue-531": 1}
    rows = [r for r in NEW if r.source in expected]
    assert M.count_by(rows, lambda r: r.source) == expected
    for r in rows:
        assert (r.split, r.metric, r.batch, r.chips) == ("fit", "decode", 1, 1), r.id
        if r.weight_format == "MLX 4-bit g64":
            assert r.bits_per_weight == 4.5, r.id
    value = {(r.source, r.model_key, r.generated_tokens): r.value for r in rows}
    # typed from submission 94b9aedd6522, buckets.short.decode_tps.median = 66.3624...
    assert value[("rapid-mlx-community-bench", "qwen2.5-14b", 128)] == 66.36
    # typed from apple-m4-pro/1786347990-003c6fb4.json: Qwen3-14B-4bit, mlx, avgTps 27.8
    assert value[("llmfit-community-bench", "qwen3-14b", 300)] == 27.8
    # typed from the same file: Mistral-Small-3.2-24B-Instruct-2506-4bit, mlx, avgTps 17.4,
    # avgOutputTokens 192.67; phi-4-4bit avgTps 27.39; SmolLM3-3B-4bit avgTps 100.8
    assert value[("llmfit-community-bench", "mistral-small-3.1-24b", 193)] == 17.4
    assert value[("llmfit-community-bench", "phi-4", 219)] == 27.39
    assert value[("llmfit-community-bench", "smollm3-3b", 300)] == 100.8


def test_llama_bench_logs_in_repository_files_are_single_gpu_cuda_tg128():
    # issue 30 item 2: llama-bench tables in public repository files, each cited by repository,
    # path and commit; the rule's only rows: luckyNwa6/lucky-blog's post on llama.cpp, Ollama
    # and LM Studio @ 94e52d46, two PCs, one CUDA device each, build fcc750875 (8828)
    rows = _batch1_llama_cpp_fit_rows({"llama-bench-repository-files-2025-26": 2})
    for r in rows:
        assert r.id.startswith("rf-") and r.model_key == "qwen3-14b", r.id
        assert r.measurement_url.startswith(
            "https://github.com/luckyNwa6/lucky-blog/blob/94e52d463f5307d3c3881367b97c335af0646f1d/"
        ), r.id
        assert r.runtime_version.startswith("build fcc750875 (8828), CUDA"), r.id
        assert (r.prompt_tokens, r.generated_tokens, r.context, r.kv_format) == (
            0, 128, 64, "fp16"), r.id
        # bits from the table's printed size and parameter count: 8.38 GiB, 14.77 B
        assert r.bits_per_weight == pytest.approx(8.38 * 8 * 2**30 / 14.77e9, abs=1e-3), r.id
    assert M.LLAMA_CPP_BUILDS["llama-bench-repository-files-2025-26"] == "2025-26"
    # the printed 14.77 B is the catalog's Qwen3 14B
    assert round(get_model("qwen3-14b").total_params / 1e9, 2) == 14.77
    by_key = {r.hardware_key: r for r in rows}
    # values typed from the post's two tables, row 'qwen3 14B Q4_K - Medium ... | 100 | tg128',
    # column 't/s': 'Device 0: NVIDIA GeForce RTX 4080' and 'Device 0: NVIDIA GeForce RTX 3080'
    assert by_key["rtx-4080"].value == 66.49
    assert by_key[""].value == 65.09
    # the RTX 3080 is not catalogued: 19 Gbps on a 320-bit bus, NVIDIA's GA102 whitepaper figure
    assert by_key[""].bandwidth_gbps == 19 * 320 / 8


def test_xiongjiedai_rows_state_the_build_of_their_run():
    # The README's tables do not name a build; each run's notebook in the same repository
    # (commit aa72e0e, "LLaMA 3/<group>/<card>_v3.ipynb", "LLaMA/..." and "LLaMA 2/...") prints
    # it ("build: <commit> (<number>)" from llama-bench, "build = <number>" from ./main). The
    # May 2024 runs (LLaMA 3) are builds 2824-2843 on NVIDIA, compiled (make LLAMA_CUBLAS=1)
    # with -DGGML_CUDA_USE_GRAPHS, and 2795-2797 on Apple; the December 2023 runs (LLaMA 1 and
    # Llama 2 70B, in calibration_measurements.csv) builds 1026-1691, before CUDA graphs
    # (#6766, 8 May 2024). The appendix's contributed Mac mini rows state none.
    rows = [r for r in ALL if r.source == "xiongjiedai-gpu-benchmarks"]
    assert len(rows) == 433
    for r in rows:
        build = M.llama_cpp_build(r)
        nvidia = r.device.startswith("NVIDIA")
        if r.id.startswith("xd-appendix-"):
            assert build is None, r.id
        elif r.id.startswith(("xd-llama1-", "xd-llama2-")):
            assert 1026 <= build <= 1691 and M.uses_cuda_graphs(r) is (False if nvidia else None)
        else:
            assert (2824 if nvidia else 2795) <= build <= (2843 if nvidia else 2797), r.id
            assert ("-DGGML_CUDA_USE_GRAPHS" in r.runtime_version) == nvidia, r.id
            assert M.uses_cuda_graphs(r) is (True if nvidia else None), r.id
    assert M.LLAMA_CPP_BUILDS[rows[0].source] == "2023-24"      # 2023 and 2024 builds


def test_every_llama_cpp_decode_row_is_dated_by_its_build():
    # the forecast's build drift (scripts/fit_forecast.py --select, DRIFT_CANDIDATES) reads each
    # llama.cpp row's build day: every decode row of either split has one, no fit row is newer
    # than the reference day, and the reference day is the newest fit row's
    import re
    from datetime import date

    rows = [r for r in ALL if r.runtime == "llama.cpp" and r.metric == "decode"]
    days = {r.id: M.llama_cpp_date(r) for r in rows}
    assert all(d and date.fromisoformat(d) for d in days.values()), \
        [i for i, d in days.items() if not d]
    fit_days = [days[r.id] for r in rows if r.split == "fit"]
    assert max(fit_days) == M.LLAMA_CPP_REFERENCE_DATE
    # the build dates agree with the dates the rows themselves state ("of 25 May 2024", the
    # ggml-org/ci README of the commit), read here from the row's text, not from the table
    months = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
                                          "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
    stated = 0
    for r in rows:
        m = re.search(r"\bof (\d{1,2}) ([A-Z][a-z]{2}) (20\d\d)\b", r.runtime_version)
        if m and M.llama_cpp_build(r) is not None:
            d = date(int(m.group(3)), months[m.group(2)], int(m.group(1)))
            assert M.LLAMA_CPP_BUILD_DATES[M.llama_cpp_build(r)] == d.isoformat(), r.id
            stated += 1
    assert stated == 20   # the CI's V100 rows of builds 2992, 3293, 3854 and 4423
    # build 2824 is 9 May 2024 (the day after PR #6766's merge, CUDA_GRAPHS_FIRST_DATE)
    assert M.LLAMA_CPP_BUILD_DATES[M.CUDA_GRAPHS_FIRST_BUILD] == "2024-05-09"
    assert M.CUDA_GRAPHS_FIRST_DATE < M.LLAMA_CPP_BUILD_DATES[M.CUDA_GRAPHS_FIRST_BUILD]
    # another runtime has no build age
    other = next(r for r in ALL if r.runtime == "vLLM")
    assert M.llama_cpp_date(other) is None and M.llama_cpp_age_years(other) == 0.0


def test_discussion_15013_is_dated_midway_through_the_span_its_copies_allow():
    """The scoreboard's copies state no build: its rows take the midpoint of its opening and the
    earliest copy (1 August 2025 and 30 July 2026: 363 days apart, so 181.5 days after the first,
    rounded up: 30 January 2026), half a year's drift where the truth lies between none and a
    year's."""
    from datetime import date, timedelta

    first, last = (date.fromisoformat(d) for d in M.SCOREBOARD_15013_SPAN)
    assert (first, last) == (date(2025, 8, 1), date(2026, 7, 30))
    mid = first + timedelta(days=-(-(last - first).days // 2))
    assert M.LLAMA_CPP_SOURCE_DATES["llama.cpp-discussion-15013"] == mid.isoformat() == "2026-01-30"
