"""Audio in the prompt (Qwen2.5-Omni, Qwen3-Omni, Gemma 3n, Gemma 4 E2B/E4B): mel frames,
tokens, the encoder's attention windows and FLOPs, and how they join the prompt and the time
to first token. Expected counts are printed by transformers 5.24.0's own functions (the
command is given); FLOPs are worked out by hand from the encoders' shapes and, for Gemma,
printed by torch's FlopCounterMode on the real encoders."""
from __future__ import annotations

import json
import math

import pytest

from llm_arithmetic.catalog.audio import audio_encoder, audio_work
from llm_arithmetic.catalog.model_catalog import get_model
from llm_arithmetic.cli import main
from llm_arithmetic.core.errors import ConfigError, InputError
from llm_arithmetic.estimate import estimate

# Printed by transformers 5.24.0 (torch 2.13 CPU), for S seconds of silence, N = round(S x
# 16000) samples:
#   fe = WhisperFeatureExtractor(feature_size=128, chunk_length=300)   # the checkpoints' file
#   F25 = fe(x, sampling_rate=16000, return_attention_mask=True,
#            padding="max_length")["attention_mask"].sum()      # Qwen2.5-Omni's _process_audio
#   T25 = processing_qwen2_5_omni._get_feat_extract_output_lengths(F25)
#   cu = modeling_qwen2_5_omni.get_audio_cu_seqlens(
#            modeling_qwen2_5_omni.chunk_and_pad_features(feats, [F25], 100)[1])
#   F3 = fe(x, ..., padding=True, truncation=False)["attention_mask"].sum()   # Qwen3-Omni's
#   T3 = processing_qwen3_omni_moe._get_feat_extract_output_lengths(F3, 50)
#   cu3 = modeling_qwen3_omni_moe.get_audio_cu_seqlens(chunk_lengths, [F3], 800, 50)
#   print(S, F25, T25, sum(w), sum(w * w), F3, T3, sum(w3 * w3))   # w: cu's differences
# columns: seconds; Qwen2.5-Omni frames, tokens, block positions, attention pairs;
# Qwen3-Omni frames, tokens, attention pairs (its blocks run one position a token)
PRINTED = [
    (0.5, 50, 12, 25, 625, 50, 7, 49), (1, 100, 25, 50, 2500, 100, 13, 169),
    (1.005, 101, 25, 51, 2601, 100, 13, 169), (2.37, 237, 59, 119, 10361, 237, 31, 961),
    (10, 1000, 250, 500, 50000, 1000, 130, 11492), (30, 3000, 750, 1500, 150000, 3000, 390, 38532),
    (45, 4500, 1125, 2250, 222500, 4500, 585, 58305),
    (61.3, 6130, 1532, 3065, 304225, 6130, 797, 80473),
    (300, 30000, 7500, 15000, 1500000, 30000, 3900, 402896),
    (400, 30000, 7500, 15000, 1500000, 40000, 5200, 540800),
]
Q25, Q3 = "qwen2.5-omni-7b", "qwen3-omni-30b-a3b-instruct"


def test_counts_match_transformers_printed():
    r25, r3 = (audio_encoder(get_model(n))[1] for n in (Q25, Q3))
    for s, f25, t25, rows25, pairs25, f3, t3, pairs3 in PRINTED:
        a, b = audio_work(r25, s), audio_work(r3, s)
        assert (a.frames, a.tokens, a.rows, a.pairs) == (f25, t25, rows25, pairs25), s
        assert (b.frames, b.tokens, b.rows, b.pairs) == (f3, t3, t3, pairs3), s


def test_encoder_flops_by_hand():
    d, ffn, layers = 1280, 5120, 32
    block = 2 * (4 * d * d + 2 * d * ffn)
    # Qwen2.5-Omni, 10 s: 1,000 frames in 5 chunks of 200; conv1 (kernel 3, 128 -> 1280) over
    # 200 positions, conv2 (kernel 3, stride 2) over 100; the blocks over 5 x 100 positions,
    # attention within each chunk; the projection 1280 -> 3584 over 250 tokens
    q25 = (5 * (2 * 3 * 128 * d * 200 + 2 * 3 * d * d * 100)
           + layers * (block * 500 + 4 * d * 5 * 100 ** 2) + 2 * d * 3584 * 250)
    # Qwen3-Omni, 10 s: 10 chunks of 100 frames x 128 mels; three 3 x 3 stride-2 convolutions
    # to 64 x 50, 32 x 25, 16 x 13 (480 channels); conv_out 480 x 16 -> 1280 over 13
    # positions a chunk; the blocks over 130 positions in windows of 104 and 26; proj1, proj2
    convs = 10 * (2 * 9 * 480 * 64 * 50 + 2 * 9 * 480 * 480 * (32 * 25 + 16 * 13)
                  + 2 * 480 * 16 * d * 13)
    q3 = (convs + layers * (block * 130 + 4 * d * (104 ** 2 + 26 ** 2))
          + 2 * (d * d + d * 2048) * 130)
    assert estimate(Q25, audio_seconds=10).audio_prefill_flops == q25
    e = estimate(Q3, audio_seconds=10)
    assert e.audio_prefill_flops == q3
    # under tensor parallelism vLLM splits Qwen3-Omni's blocks, not its convolutions
    p = estimate(Q3, audio_seconds=10, tp=2)._plan
    assert p.get("audio_chip_flops") == (convs + 2 * (d * d + d * 2048) * 130) + (
        layers * (block * 130 + 4 * d * (104 ** 2 + 26 ** 2))) / 2


def test_audio_joins_the_prompt_and_the_ttft():
    kw = dict(hardware="h100-sxm", generate=10)
    plain = estimate(Q25, prompt=350, **kw)
    e = estimate(Q25, prompt=100, audio_seconds=10, **kw)
    assert (e.prompt, e.audio_tokens, e.audio_frames, e.audio_seconds) == (350, 250, 1000, 10)
    # 639,647,232 weights at 16 bits; compute-bound at the chip's bf16 dense peak
    assert e.audio_weight_bytes == 2 * 639_647_232
    assert e.audio_prefill_seconds == pytest.approx(e.audio_prefill_flops / 989e12, rel=1e-3)
    assert e.ttft_seconds == pytest.approx(plain.ttft_seconds + e.audio_prefill_seconds,
                                           rel=1e-12)
    assert (plain.audio_seconds, plain.audio_tokens, plain.audio_prefill_seconds) == \
        (None, None, None)
    # Qwen2.5-Omni's encoder runs whole on every chip of a tensor-parallel group
    assert estimate(Q25, prompt=100, audio_seconds=10, tp=2, **kw).audio_prefill_seconds \
        == e.audio_prefill_seconds
    # beside an image: both encoders before the prefill
    both = estimate(Q3, prompt=100, audio_seconds=10, images=1, **kw)
    assert both.prompt == 100 + 130 + both.image_tokens
    assert math.isclose(both.ttft_seconds - both.vision_prefill_seconds
                        - both.audio_prefill_seconds,
                        estimate(Q3, prompt=both.prompt, **kw).ttft_seconds, rel_tol=1e-12)


@pytest.mark.parametrize("name, kw, error, words", [
    ("llama-2-7b", dict(audio_seconds=10), ConfigError, "llama-2-7b takes no audio"),
    ("qwen2.5-vl-3b-instruct", dict(audio_seconds=10), ConfigError, "--audio-seconds"),
    # a model whose only audio-capable sibling has the encoder (Gemma 4 31B: audio_config null)
    ("gemma-4-31b", dict(audio_seconds=10), ConfigError, "gemma-4-31b takes no audio"),
    ("gemma-4-e2b", dict(audio_seconds=0.005), InputError, "no token"),
    (Q25, dict(audio_seconds=0), InputError, "audio_seconds"),
    (Q25, dict(audio_seconds=float("nan")), InputError, "audio_seconds"),
    (Q25, dict(audio_seconds=0.01), InputError, "no token"),
    (Q3, dict(audio_seconds=10, tp=8), InputError, "20 attention heads"),
])
def test_refusals_name_the_model_or_the_argument(name, kw, error, words):
    with pytest.raises(error, match=words):
        estimate(name, **kw)


def test_cli_audio(capsys):
    assert main(["describe", Q3, "--audio-seconds", "30", "--hardware", "h100-sxm",
                 "--prompt", "10", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["audio_tokens"], d["audio_frames"], d["prompt"]) == (390, 3000, 400)
    assert d["audio_prefill_seconds"] > 0 and d["ttft_seconds"] > d["audio_prefill_seconds"]
    assert main(["describe", "gemma-3-27b", "--audio-seconds", "10"]) == 2
    err = capsys.readouterr().err
    assert "gemma-3-27b" in err and "--audio-seconds" in err and "Traceback" not in err


def test_search_holds_the_audio_in_every_request():
    from llm_arithmetic.deploy import search

    r = search(Q3, ttft=0.5, tpot=0.05, hardware=["h100-sxm"], weights=["bf16"], kv_bits=[16],
               degrees=[1, 2], max_batch=8, audio_seconds=30, price_per_hour=2.0)
    c = next(c for c in r.configurations if (c["tp"], c["ep"], c["pp"]) == (2, 1, 1))
    e = estimate(Q3, hardware="h100-sxm", weights="bf16", tp=2, prompt=1024, generate=256,
                 batch=c["batch"], audio_seconds=30)
    assert (c["audio_prefill_seconds"], c["ttft_seconds"]) == \
        (e.audio_prefill_seconds, e.ttft_seconds)
    assert c["vision_prefill_seconds"] is None and r.images is None


def test_a_clip_beyond_qwen25_omnis_cap_warns_that_the_rest_is_dropped():
    """Qwen2.5-Omni's feature extractor truncates at n_samples = 4,800,000 (300 s at 16 kHz):
    a 400 s clip gives the same 30,000 frames as 300 s, with a warning that says so; 300 s
    itself, and Qwen3-Omni (no truncation), do not warn."""
    import warnings

    from llm_arithmetic.arguments import ContextWarning
    from llm_arithmetic.media import audio_inputs

    omni = get_model("qwen2.5-omni-7b")
    with pytest.warns(ContextWarning, match=r"keeps the first 300 s .* the 400 s"):
        long = audio_inputs(omni, 400)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert audio_inputs(omni, 300)["audio_frames"] == long["audio_frames"] == 30_000
        audio_inputs(get_model("qwen3-omni-30b-a3b-instruct"), 400)


def test_qwen2_5_omni_matches_a_traced_clip():
    # https://harmonyhu.com/2025/04/17/qwen2.5o traces Qwen2.5-Omni-7B's audio path: a clip
    # resampled to 335,459 samples at 16 kHz is padded to 4,800,000 (300 s), 30,000 mel
    # frames of which 2,097 are unmasked, and the encoder's output keeps 524 positions
    _, rule = audio_encoder(get_model("qwen2.5-omni-7b"))
    w = audio_work(rule, 335459 / 16000)
    assert (rule.max_frames, w.frames, w.tokens) == (4_800_000 // 160, 2097, 524)


# ---- Gemma 3n and Gemma 4 E2B/E4B ----------------------------------------------------------
# Printed by transformers 5.24.0 (torch 2.13.0+cpu) for S seconds of silence, N = round(S x
# 16000) samples, each model's audio_config from the catalog's config.json, the encoders and
# embedders built on the meta device:
#   a = Gemma3nAudioFeatureExtractor()([x], return_tensors="pt")   # class defaults
#   b = Gemma4AudioFeatureExtractor()([x], return_tensors="pt")
#   o3 = Gemma3nAudioEncoder(Gemma3nAudioConfig(**ac))(a["input_features"],
#                                                      ~a["input_features_mask"])
#   o4 = Gemma4AudioModel(Gemma4AudioConfig(**ac))(b["input_features"], b["input_features_mask"])
#   torch.utils.flop_counter.FlopCounterMode around each encoder and each MultimodalEmbedder
#   (inputs_embeds = its last_hidden_state; text widths 2048, 1536, 2560): get_total_flops()
#   Gemma 4's tokens: Gemma4Processor.replace_audio_token's two [::2] halvings of
#   b["input_features_mask"], summed; Gemma 3n's are audio_seq_length = 188 for every clip.
# columns: seconds; Gemma 3n frames, its encoder's positions after the reduction, FLOPs (E2B and
# E4B: one text width); Gemma 4 frames, tokens, encoder positions, FLOPs E2B, FLOPs E4B
GEMMA_PRINTED = [
    (0.05, 3, 1, 2_077_691_904, 5, 1, 2, 1_528_102_912, 1_534_394_368),
    (1, 97, 7, 33_568_837_632, 99, 25, 25, 15_169_937_408, 15_248_580_608),
    (7.3, 728, 46, 239_570_706_432, 730, 183, 183, 108_868_952_064, 109_444_620_288),
    (10, 997, 63, 328_777_900_032, 999, 250, 250, 148_593_065_984, 149_379_497_984),
    (30, 2997, 188, 984_855_502_848, 2999, 750, 750, 445_124_886_528, 447_484_182_528),
    (45, 2997, 188, 984_855_502_848, 2999, 750, 750, 445_124_886_528, 447_484_182_528),
    (120, 2997, 188, 984_855_502_848, 2999, 750, 750, 445_124_886_528, 447_484_182_528),
]


def test_gemma_counts_and_flops_match_transformers_printed():
    g3 = audio_encoder(get_model("gemma-3n-e2b"))[1]
    g4, g44 = (audio_encoder(get_model(n))[1] for n in ("gemma-4-e2b", "gemma-4-e4b"))
    for s, f3, kept3, flops3, f4, t4, rows4, flops4, flops44 in GEMMA_PRINTED:
        a, b, c = audio_work(g3, s), audio_work(g4, s), audio_work(g44, s)
        assert (a.frames, a.tokens, -(-a.rows // 4), a.flops) == (f3, 188, kept3, flops3), s
        assert (b.frames, b.tokens, b.rows, b.flops) == (f4, t4, rows4, flops4), s
        assert (c.frames, c.tokens, c.flops) == (f4, t4, flops44), s


def test_gemma4_tokens_count_whole_frames_not_the_padded_ones():
    """1,440 samples (0.09 s) pad to 1,536, which frames 9 mel frames of which 8 hold only
    real audio: the encoder runs ceil(9 / 4) = 3 positions, the prompt gets ceil(8 / 4) = 2
    tokens (Gemma4Processor._compute_audio_num_tokens gives the same 2)."""
    w = audio_work(audio_encoder(get_model("gemma-4-e4b"))[1], 1440 / 16000)
    assert (w.frames, w.rows, w.tokens) == (9, 3, 2)


def test_gemma_encoder_flops_by_hand():
    """Gemma 4 E2B, 10 s: 999 frames -> 500 -> 250 positions; the subsampling convolutions
    (1 -> 128 channels over 500 x 64, 128 -> 32 over 250 x 32), the projection 32 x 32 -> 1024;
    per layer 23 h^2 weights a position (two feed-forwards of 8 h^2, q, k, v, o, the light
    convolution's 3 h^2), the relative projection of 13 offsets, attention in 21 blocks of 12
    queries over 24 keys (QK, PV) and 13 offsets, the depthwise kernel of 5; then 1024 -> 1536
    and the embedder 1536 -> 1536 at every position."""
    h, rows, blocks = 1024, 250, 21
    convs = 2 * 9 * 128 * 500 * 64 + 2 * 9 * 128 * 32 * 250 * 32 + 2 * 1024 * h * rows
    layer = (2 * 23 * h * h * rows + 2 * 13 * h * h + 2 * blocks * 12 * h * (2 * 24 + 13)
             + 2 * h * 5 * rows)
    out = 2 * h * 1536 * rows + 2 * 1536 * 1536 * rows
    assert estimate("gemma-4-e2b", audio_seconds=10).audio_prefill_flops == \
        convs + 12 * layer + out


def test_gemma_audio_in_the_prompt_and_whole_under_tp():
    kw = dict(hardware="h100-sxm", generate=10)
    e = estimate("gemma-3n-e4b", prompt=12, audio_seconds=5, **kw)
    assert (e.prompt, e.audio_tokens) == (200, 188)       # 188 tokens whatever the clip
    # the audio tower and embedder's weights (681,348,640 + 3,345,408 on the meta device)
    assert e.audio_weight_bytes == 2 * (681_348_640 + 3_345_408)
    # vLLM runs the encoder whole on every chip (AutoModel.from_config)
    e2 = estimate("gemma-4-e4b", prompt=10, audio_seconds=30, tp=2, **kw)
    e1 = estimate("gemma-4-e4b", prompt=10, audio_seconds=30, **kw)
    assert e2.audio_prefill_seconds == e1.audio_prefill_seconds
    assert (e1.prompt, e1.audio_tokens, e1.audio_frames) == (760, 750, 2999)


def test_a_clip_beyond_gemmas_30_s_warns_that_the_rest_is_dropped(capsys):
    import warnings

    from llm_arithmetic.arguments import ContextWarning
    from llm_arithmetic.media import audio_inputs

    for name in ("gemma-3n-e2b", "gemma-4-e2b"):
        with pytest.warns(ContextWarning, match=r"keeps the first 30 s .*480,000 samples.* "
                                                r"the 45 s"):
            long = audio_inputs(get_model(name), 45)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert audio_inputs(get_model(name), 30)["audio_frames"] == long["audio_frames"]
    assert main(["describe", "gemma-4-e2b", "--audio-seconds", "30", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["audio_tokens"], d["audio_frames"]) == (750, 2999)


# ---- the formulas (formulas/audio.py) against FlopCounterMode ------------------------------
# Printed by torch 2.13.0+cpu's FlopCounterMode (get_total_flops) around transformers 5.24.0's
# Qwen2_5OmniAudioEncoder and Qwen3OmniMoeAudioEncoder, built from the catalog's
# thinker_config.audio_config with encoder_layers set to 0 and to 2 (random weights,
# attn_implementation "eager", which runs each chunk or window on its own), over F mel frames
# of noise: enc(input_features=torch.randn(128, F), feature_lens=torch.tensor([F])).
# 0 layers: what runs around the blocks alone; each block adds the same FLOPs.
# columns: model, frames, FLOPs with 0 layers, FLOPs with 2 layers
WHISPER_PRINTED = [
    (Q25, 50, None, 2_377_492_480), (Q25, 237, 2_900_623_360, 12_365_260_800),
    (Q25, 1000, 8_192_000_000, 48_025_600_000), (Q3, 50, None, 2_951_813_120),
    (Q3, 237, 13_654_958_080, 16_102_737_920), (Q3, 1000, None, 56_085_012_480),
    (Q3, 2000, 91_487_436_800, 112_183_869_440),
]


def test_whisper_style_encoders_match_flopcounter_printed():
    """The catalog's counts through the formulas give the printed FLOPs, around the blocks
    (0 layers) and with two blocks."""
    from dataclasses import replace

    for name, frames, around, two in WHISPER_PRINTED:
        rule = replace(audio_encoder(get_model(name))[1], layers=2)
        w = audio_work(rule, frames / 100)
        assert w.frames == frames and w.flops == two, (name, frames)
        if around is not None:
            assert w.around_flops == around, (name, frames)


def test_audio_formulas_by_hand_against_flopcounter():
    """Each formula with counts worked out by hand from the encoders' shapes (not from the
    catalog) equals FlopCounterMode's print."""
    from llm_arithmetic import numeric as N

    d, ffn = 1280, 5120
    # Qwen3-Omni, 20 s: 2,000 frames in 20 chunks of 100 x 128 mel bins; three 3 x 3 stride-2
    # Conv2d 1 -> 480 -> 480 -> 480 to 64 x 50, 32 x 25, 16 x 13; conv_out 480 x 16 -> 1,280
    # over 20 x 13 = 260 positions; proj1 1,280 -> 1,280 and proj2 1,280 -> 2,048 per token
    around = dict(audio_conv1_params=9 * 480, audio_conv1_positions=20 * 64 * 50,
                  audio_conv2_params=9 * 480 * 480,
                  audio_conv2_positions=20 * (32 * 25 + 16 * 13),
                  audio_in_params=480 * 16 * d, audio_in_positions=260,
                  audio_out_params=d * d + d * 2048, audio_out_positions=260)
    assert N.audio_around_flops(**around) == 91_487_436_800
    # two blocks over the 260 positions, attention in windows of 8 chunks (104 positions):
    # 104 + 104 + 52
    blocks = dict(n_audio_layers=2, audio_matmul_params=4 * d * d + 2 * d * ffn, d_audio=d,
                  audio_rows=260, audio_pairs=2 * 104 ** 2 + 52 ** 2)
    assert N.audio_block_flops(**blocks) == 112_183_869_440 - 91_487_436_800
    assert N.audio_prefill_flops(**blocks, **around) == 112_183_869_440
    # Gemma 3n E2B, 10 s (GEMMA_PRINTED): 997 frames -> 499 -> 250 positions; convolutions
    # 1 -> 128 (over 499 x 64) and 128 -> 32 (over 250 x 32), the projection 32 x 32 -> 1,536;
    # 12 conformer layers of 23 x 1,536^2 weights a position, 21 blocks of 12 queries over 24
    # keys and 13 offsets, a depthwise kernel of 5; the embedder 1,536 -> 2,048 over the
    # ceil(250 / 4) = 63 positions the reduction keeps
    h = 1536
    assert N.audio_prefill_flops(
        n_audio_layers=12, audio_matmul_params=23 * h * h, d_audio=h, audio_rows=250,
        audio_pairs=21 * 12 * 24, audio_rel_pairs=21 * 12 * 13, audio_rel_offsets=13,
        audio_conv_kernel=5, audio_conv1_params=9 * 128, audio_conv1_positions=499 * 64,
        audio_conv2_params=9 * 128 * 32, audio_conv2_positions=250 * 32,
        audio_in_params=32 * 32 * h, audio_in_positions=250, audio_out_params=h * 2048,
        audio_out_positions=63) == GEMMA_PRINTED[3][3] == 328_777_900_032


# ---- several clips in one prompt -------------------------------------------------------------
# Printed by transformers 5.24.0 (torch 2.13.0+cpu) for several clips of silence in ONE call,
# as a prompt's clips are processed (python scripts/ground_truth/audio_clips.py {q25,q3,g3,g4};
# below in short):
#   F = fe([x1, x2, ...], sampling_rate=16000, return_attention_mask=True,
#          padding="max_length")["attention_mask"].sum(-1)          # Qwen2.5-Omni's; Qwen3-Omni's
#                                                  # with padding=True, truncation=False
#   T = processing_*._get_feat_extract_output_lengths(F[, 50])      # each clip's tokens
#   FlopCounterMode around enc(input_features=torch.randn(128, sum(F)), feature_lens=F), the
#   encoders of WHISPER_PRINTED (2 layers, eager); Gemma: the feature extractors on the list
#   (padding="longest"), the encoders and embedders of GEMMA_PRINTED on the meta device over
#   the padded batch, Gemma 4's tokens from each clip's row of input_features_mask.
# columns: model, the clips [s], the clips' tokens, FLOPs of the one call (whole encoder for
# Gemma; 2 layers for the Qwen encoders). The clips' frames alone were 1000, 50, 237 (Qwen:
# 100 a second); the one call costs more than the clips alone (63,653,089,280 against
# 48,025,600,000 + 2,377,492,480 + 12,365,260,800 for Qwen2.5-Omni): the short clips' chunks
# are padded to the longest chunk. Gemma pads every clip to the longest, but projects the
# relative offsets once a batch (3 x 10 s alone: 3 x 148,593,065,984 for Gemma 4 E2B).
SEVERAL_PRINTED = [
    (Q25, (10, 0.5, 2.37), (250, 12, 59), 63_653_089_280),
    (Q25, (0.5, 1.37), (12, 34), 9_495_613_440),
    (Q25, (30, 10, 5), (750, 250, 125), 216_679_424_000),
    (Q3, (10, 0.5, 2.37), (130, 7, 31), 77_262_008_320),
    (Q3, (0.5, 1.37), (7, 18), 15_573_739_520),
    (Q3, (30, 10, 5), (390, 130, 65), 252_408_514_560),
    ("gemma-3n-e2b", (10, 1, 7.3), (188, 188, 188), 984_861_499_392),
    ("gemma-3n-e2b", (0.05, 2.37), (188, 188), 155_575_934_976),
    ("gemma-4-e2b", (10, 1, 7.3), (250, 25, 183), 445_124_886_528),
    ("gemma-4-e2b", (0.05, 2.37), (1, 59), 71_493_058_560),
    ("gemma-4-e4b", (10, 1, 7.3), (250, 25, 183), 447_484_182_528),
    ("gemma-4-e4b", (0.05, 2.37), (1, 59), 71_870_545_920),
]


@pytest.mark.parametrize("name, clips, tokens, flops", SEVERAL_PRINTED,
                         ids=[f"{r[0]}-{len(r[1])}-{r[1][0]:g}" for r in SEVERAL_PRINTED])
def test_several_clips_match_one_transformers_call(name, clips, tokens, flops):
    from dataclasses import replace

    rule = audio_encoder(get_model(name))[1]
    if rule.rule.startswith("qwen"):
        rule = replace(rule, layers=2)
    w = audio_work(rule, clips)
    # each clip's own tokens, summed; the one call's FLOPs
    assert w.tokens == sum(tokens) and w.flops == flops
    assert w.tokens == sum(audio_work(rule, s).tokens for s in clips)


def test_several_clips_join_the_prompt():
    kw = dict(hardware="h100-sxm", generate=10)
    e = estimate(Q25, prompt=100, audio_seconds=[10, 20, 5], **kw)
    # 250 + 500 + 125 tokens (25 a second), 3,500 frames; the lengths kept as given
    assert (e.audio_seconds, e.audio_tokens, e.audio_frames, e.prompt) == \
        ((10, 20, 5), 875, 3500, 975)
    one = estimate(Q25, prompt=100, audio_seconds=35, **kw)
    assert one.audio_tokens == 875 and one.audio_seconds == 35
    # the same chunks as one 35 s clip (17 of 200 frames and one of 100), so the same work
    assert e.audio_prefill_flops == one.audio_prefill_flops
    # two 1.5 s clips are not one of 3 s: each clip's 150 frames halve to 75 positions and
    # pool to 37 tokens (74), where 300 frames give 150 and 75; attention within each clip's
    # chunk of 75 positions, 2 x 75^2 pairs, against 100^2 + 50^2 for chunks of 200 and 100
    rule = audio_encoder(get_model(Q25))[1]
    two, whole = audio_work(rule, (1.5, 1.5)), audio_work(rule, 3)
    assert (two.tokens, two.rows, two.pairs) == (74, 150, 2 * 75 ** 2)
    assert (whole.tokens, whole.rows, whole.pairs) == (75, 150, 100 ** 2 + 50 ** 2)
    assert e.ttft_seconds > estimate(Q25, prompt=975, **kw).ttft_seconds


def test_several_clips_each_keep_their_cap():
    import warnings

    from llm_arithmetic.arguments import ContextWarning

    with pytest.warns(ContextWarning, match="the 45 s"):
        e = estimate("gemma-4-e2b", audio_seconds=(45, 10))
    assert e.audio_tokens == 750 + 250
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert estimate("gemma-3n-e4b", audio_seconds=(30, 1, 2)).audio_tokens == 3 * 188


@pytest.mark.parametrize("clips, words", [
    ([], "1 to 4,096 clips"), ([10, 0], r"audio_seconds\[1\] must be a number above 0"),
    ((10, float("nan")), r"audio_seconds\[1\]"), ([10, True], r"audio_seconds\[1\]"),
    ("10", "several clips: a list"), ([10, 0.01], "no token"),
])
def test_several_clips_refusals_name_the_clip(clips, words):
    with pytest.raises(InputError, match=words):
        estimate(Q25, audio_seconds=clips)


def test_cli_several_clips(capsys):
    for args in (["--audio-seconds", "10", "20", "5"],
                 ["--audio-seconds", "10", "--audio-seconds", "20", "5"]):
        assert main(["describe", Q25, *args, "--prompt", "10", "--json"]) == 0
        d = json.loads(capsys.readouterr().out)
        assert (d["audio_seconds"], d["audio_tokens"], d["prompt"]) == ([10, 20, 5], 875, 885)
    assert main(["describe", Q25, "--audio-seconds", "10", "20", "--prompt", "10"]) == 0
    assert "10 + 20 s (2 clips), 3,000 mel frames, 750 tokens" in capsys.readouterr().out
    assert main(["describe", Q25, "--audio-seconds", "10", "0"]) == 2
    assert "--audio-seconds" in capsys.readouterr().err
