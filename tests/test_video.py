"""A video in the prompt (Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5, GLM-4.5V, the omni models): frames sampled,
tokens, the text between frame groups, the tower's FLOPs, and how they join the prompt beside images.
Expected counts are printed by transformers 5.24.0's own video functions (the command is
given); FLOPs are worked out by hand from the towers' shapes."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from llm_arithmetic.catalog.images import image_tower
from llm_arithmetic.catalog.model_catalog import get_model
from llm_arithmetic.catalog.readers import read_config
from llm_arithmetic.catalog.video import video_work
from llm_arithmetic.cli import main
from llm_arithmetic.core.errors import ConfigError, InputError
from llm_arithmetic.estimate import estimate
from llm_arithmetic.media import video_inputs

# Printed by transformers 5.24.0's own functions, taken from the installed files with ast and
# run as written (the processor classes need torchvision or PIL, which that environment
# lacks): video_processing_qwen2_vl.py smart_resize and Qwen2VLVideoProcessor.sample_frames;
# video_processing_qwen3_vl.py smart_resize and Qwen3VLVideoProcessor.sample_frames;
# processing_qwen3_vl.py Qwen3VLProcessor._calculate_timestamps. Methods were called with a
# namespace of the class attributes as self (min_frames 4, max_frames 768, temporal 2; Qwen2:
# fps and num_frames None), on metadata of round(S x 24) frames at 24 fps:
#   n = len(sample_frames(self2, md(S), fps=F)); t = -(-n // 2)
#   rh, rw = smart_resize(h, w, factor=28, min_pixels=3136, max_pixels=12845056)
#   print(n, (t, rh // 14, rw // 14), t * rh * rw // 784)            # Qwen2.5-VL
#   idx = sample_frames3(self3, md(S), fps=F); n = len(idx); t = -(-n // 2)
#   rh, rw = smart_resize3(n, h, w, temporal_factor=2, factor=32, min_pixels=4096,
#                          max_pixels=25165824)
#   texts = [f"<{x:.1f} seconds>" for x in _calculate_timestamps(None, idx, 24, 2)[:t]]
#   print(n, (t, rh // 16, rw // 16), t * rh * rw // 1024,          # Qwen3-VL
#         sum(len(re.findall(r"\d", s)) + 4 for s in texts))        # timestamp tokens
# The limits are the checkpoints' (Qwen2.5-VL: preprocessor_config.json, which transformers
# reads for the video processor too; Qwen3-VL and Qwen3.5: video_preprocessor_config.json).
# A timestamp's tokens: its pieces under Qwen's pre-tokenizer, every digit one, plus "<", ".",
# " seconds" and ">".
# columns: seconds, fps, width, height; frames, grid (t, h, w), tokens [, timestamp tokens]
QWEN2_5_VL_PRINTED = [
    (10, 2, 1280, 720, 20, (10, 52, 92), 11960), (3, 2, 640, 480, 6, (3, 34, 46), 1173),
    (60, 1, 1920, 1080, 60, (30, 78, 138), 80730), (1.5, 2, 1000, 700, 4, (2, 50, 72), 1800),
    (7, 0.5, 320, 240, 4, (2, 18, 22), 198), (500, 2, 64, 48, 768, (384, 4, 4), 1536),
    (25, 2, 1280, 720, 50, (25, 52, 92), 29900), (120, 2, 1280, 720, 240, (120, 52, 92), 143520),
    (11, 3, 900, 500, 32, (16, 36, 64), 9216), (2.5, 2, 1024, 1024, 4, (2, 74, 74), 2738),
]
QWEN3_VL_PRINTED = [
    (10, 2, 1280, 720, 20, (10, 44, 80), 8800, 60), (3, 2, 640, 480, 6, (3, 30, 40), 900, 18),
    (60, 1, 1920, 1080, 60, (30, 30, 52), 11700, 205),
    (1.5, 2, 1000, 700, 4, (2, 44, 62), 1364, 12), (7, 0.5, 320, 240, 4, (2, 16, 20), 160, 12),
    (500, 2, 64, 48, 768, (384, 4, 4), 1536, 2987),
    (25, 2, 1280, 720, 50, (25, 32, 58), 11600, 165),
    (120, 2, 1280, 720, 240, (120, 14, 26), 10920, 850),
    (11, 3, 900, 500, 33, (17, 32, 56), 7616, 104), (2.5, 2, 1024, 1024, 5, (3, 64, 64), 3072, 18),
]

# Printed by transformers 5.24.0's own classes (torch 2.13.0+cpu, torchvision 0.28.0, numpy
# 2.4.6): Glm4vVideoProcessor() with its class defaults (size 12,544 to 47,040,000 pixels, fps
# 2, max_duration 300) called on round(S x 24) zero frames of h x w (numpy), with
# VideoMetadata(total_num_frames=round(S x 24), fps=24, duration=round(S x 24) / 24), fps=F and
# return_metadata=True; then Glm4vProcessor.replace_video_token run as written, with a namespace
# of that video processor and image_token "<|image|>" as self (no GLM tokenizer offline):
#   out = vp(videos=[video], video_metadata=[md], fps=F, return_metadata=True)
#   text = Glm4vProcessor.replace_video_token(fake, out, 0)
#   stamps = re.findall(r"<\|end_of_image\|>(\d+)", text)
#   print(len(out["video_metadata"][0].frames_indices), out["video_grid_thw"][0],
#         text.count("<|image|>"),
#         text.count("<|begin_of_image|>") + text.count("<|end_of_image|>"),
#         sum(-(-len(x) // 3) for x in stamps))
# The script: scripts/ground_truth/glm4v_video.py (torchvision installed without its
# dependencies beside that transformers, its meta registrations stubbed: its compiled operators
# do not load against that torch; the video path only calls its Python resize). The last column counts the timestamps' runs of up
# to three digits (GLM-4's pre-tokenizer), one token each (video.py says what is proved).
# columns: seconds, fps, width, height; frames, grid (t, h, w), <|image|> tokens,
# begin/end-of-image tokens, timestamp pieces
GLM4V_PRINTED = [
    (10, 2, 1280, 720, 20, (10, 52, 92), 11960, 20, 10),
    (3, 2, 640, 480, 6, (3, 34, 46), 1173, 6, 3),
    (60, 1, 1920, 1080, 60, (30, 46, 84), 28980, 60, 30),
    (1.5, 2, 1000, 700, 4, (2, 50, 72), 1800, 4, 2),
    (7, 0.5, 320, 240, 4, (2, 18, 22), 198, 4, 2),
    (500, 2, 64, 48, 600, (300, 4, 4), 1200, 600, 300),
    (25, 2, 1280, 720, 50, (25, 52, 92), 29900, 50, 25),
    (120, 2, 1280, 720, 240, (120, 22, 42), 27720, 240, 120),
    (11, 3, 900, 500, 34, (17, 36, 64), 9792, 34, 17),
    (2.5, 2, 1024, 1024, 6, (3, 74, 74), 4107, 6, 3),
    (1200, 2, 1280, 720, 600, (300, 14, 26), 27300, 600, 350),
    (0.1, 2, 640, 480, 2, (1, 34, 46), 391, 2, 1),
    (400, 0.5, 1280, 720, 150, (75, 28, 52), 27300, 150, 75),
    (300, 2, 1280, 720, 600, (300, 14, 26), 27300, 600, 300),
]


def test_glm4v_matches_transformers_printed():
    rule = image_tower(get_model("glm-4.5v"))[1]
    for s, fps, w, h, frames, (t, gh, gw), tokens, delimiters, pieces in GLM4V_PRINTED:
        v = video_work(rule, s, fps, w, h)
        assert (v.frames, v.groups, v.resized, v.tokens, v.separators) == \
            (frames, t, (gw * 14, gh * 14), tokens, delimiters + pieces), (s, fps, w, h)
        assert v.patches == t * gh * gw


def _config_model(name):
    path = Path(__file__).parent / "configs" / f"{name}.json"
    return read_config(json.loads(path.read_text()), str(path))


def test_qwen2_5_vl_matches_transformers_printed():
    rule = image_tower(get_model("qwen2.5-vl-3b-instruct"))[1]
    for s, fps, w, h, frames, (t, gh, gw), tokens in QWEN2_5_VL_PRINTED:
        v = video_work(rule, s, fps, w, h)
        assert (v.frames, v.groups, v.resized, v.tokens, v.separators) == \
            (frames, t, (gw * 14, gh * 14), tokens, 0), (s, fps, w, h)
        assert v.patches == t * gh * gw


def test_qwen3_vl_and_qwen3_5_match_transformers_printed():
    rules = [image_tower(_config_model("qwen3-vl-8b-instruct"))[1],
             image_tower(get_model("qwen3.5-27b"))[1]]
    for s, fps, w, h, frames, (t, gh, gw), tokens, stamps in QWEN3_VL_PRINTED:
        for rule in rules:
            v = video_work(rule, s, fps, w, h)
            # each temporal patch also gets <|vision_start|> and <|vision_end|>
            assert (v.frames, v.groups, v.resized, v.tokens, v.separators) == \
                (frames, t, (gw * 16, gh * 16), tokens, stamps + 2 * t), (s, fps, w, h)


def test_tower_flops_by_hand():
    # Qwen2.5-VL-3B, 10 s of 1280 x 720 at 2 fps: 20 frames, 10 temporal patches of 1288 x 728
    # px: 92 x 52 = 4,784 patches, 46 x 26 = 1,196 tokens each. Each patch attends within its
    # own temporal patch: 4 full blocks over 4,784^2 pairs, 28 windowed blocks over windows of
    # 4 x 4 tokens: rows 26 = 6 x 4 + 2, columns 46 = 11 x 4 + 2, pairs
    # 16 x (6 x 16 + 4) x (11 x 16 + 4). Weights per patch 631,470,080, per token 36,700,160
    # (formulas.vision's example), width 1280.
    per = (2 * 631_470_080 * 4784 + 2 * 36_700_160 * 1196
           + 4 * 1280 * (4 * 4784 ** 2 + 28 * 16 * 100 * 180))
    v = video_inputs(get_model("qwen2.5-vl-3b-instruct"), 10)
    assert (v["vision_prefill_flops"], v["video_tokens"], v["vision_patches"]) == \
        (10 * per, 11960, 47840)
    # under tensor parallelism the patch embedding (3 x 2 x 14^2 x 1280) stays whole
    assert v["vision_whole_flops"] == 2 * 3 * 2 * 14 * 14 * 1280 * 47840


def test_video_joins_the_prompt_beside_images():
    kw = dict(hardware="h100-sxm", prompt=100, generate=10)
    img = estimate("qwen2.5-vl-3b-instruct", images=2, image_size=(1000, 700), **kw)
    both = estimate("qwen2.5-vl-3b-instruct", images=2, image_size=(1000, 700),
                    video_seconds=10, tp=2, **kw)
    vid = estimate("qwen3.5-27b", video_seconds=10, **kw)
    # 100 text + 2 x 900 image tokens + 11,960 video tokens; Qwen3.5: 8,800 + 60 timestamp
    # tokens and 2 x 10 delimiters between groups
    assert (both.prompt, both.image_tokens, both.video_tokens) == (13860, 1800, 11960)
    assert (vid.prompt, vid.images, vid.video_tokens, vid.video_separator_tokens,
            vid.video_frames) == (8980, None, 8800, 80, 20)
    assert both.vision_prefill_flops == img.vision_prefill_flops + 10 * (
        2 * 631_470_080 * 4784 + 2 * 36_700_160 * 1196
        + 4 * 1280 * (4 * 4784 ** 2 + 28 * 16 * 100 * 180))
    # the mergers' all-reduce carries the images' and the video's tokens
    assert both._plan.get("vision_tokens") == 1800 + 11960
    assert vid.vision_prefill_seconds > 0 and vid.ttft_seconds > vid.vision_prefill_seconds


@pytest.mark.parametrize("name, kw, error, words", [
    ("gemma-3-27b", dict(video_seconds=10), ConfigError, "gemma-3-27b: the video rule"),
    ("llama-2-7b", dict(video_seconds=10), ConfigError, "llama-2-7b has no vision tower"),
    ("qwen3.5-27b", dict(video_fps=2), InputError, "video_seconds must be given"),
    ("qwen3.5-27b", dict(video_seconds=0.1), InputError, "at least 4"),
    ("qwen3.5-27b", dict(video_seconds=10, video_fps=30), InputError, "video_fps"),
    ("qwen3.5-27b", dict(video_seconds=float("nan")), InputError, "video_seconds"),
    ("qwen3.5-27b", dict(video_seconds=10, video_size=(0, 5)), InputError, "video_size"),
    ("glm-4.5v", dict(video_seconds=0.01), InputError, "video_seconds: .* at least 1"),
    ("glm-4.5v", dict(video_seconds=400, video_fps=0.001), InputError, "0 frames"),
    ("glm-4.5v", dict(video_seconds=10, video_size=(3000, 10)), InputError,
     "video_size: .*aspect ratio"),
])
def test_refusals_name_the_model_or_the_argument(name, kw, error, words):
    with pytest.raises(error, match=words):
        estimate(name, **kw)


def test_cli_video(capsys):
    assert main(["describe", "qwen3.5-27b", "--video-seconds", "10", "--video-size", "1280x720",
                 "--images", "1", "--hardware", "h100-sxm", "--explain", "video_tokens",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["explain"]["video_tokens"]["value"] == 8800
    # one 1024 x 1024 image: 32 x 32 = 1,024 tokens; the cache's context is the whole prompt
    assert (d["video_tokens"], d["video_separator_tokens"], d["image_tokens"]) == (8800, 80, 1024)
    assert d["prompt"] == d["context"] == 8800 + 80 + 1024
    assert (d["video_seconds"], d["video_fps"], d["video_size"]) == (10, 2, [1280, 720])
    # GLM-4.5V: 10 x 46 x 26 tokens, and per temporal patch its two image delimiters and a
    # one-digit timestamp (GLM4V_PRINTED's first row)
    assert main(["describe", "glm-4.5v", "--video-seconds", "10", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["video_frames"], d["video_tokens"], d["video_separator_tokens"]) == (20, 11960, 30)
    assert main(["describe", "gemma-3-27b", "--video-seconds", "10"]) == 2
    err = capsys.readouterr().err
    assert "gemma-3-27b" in err and "--video-seconds" in err and "Traceback" not in err
    assert main(["describe", "qwen3.5-27b", "--video-size", "640x480"]) == 2
    assert "--video-size needs --video-seconds" in capsys.readouterr().err
    assert main(["describe", "qwen3.5-27b", "--video-seconds", "1e6"]) == 2
    assert "plausibility limit" in capsys.readouterr().err


def test_a_refused_video_names_the_input_at_fault():
    """A clip too short for the processor's four frames names video_seconds; a frame the
    processor cannot resize (aspect ratio 300 : 1) names video_size and says frame, not image."""
    with pytest.raises(InputError, match=r"^video_seconds: a video of 0\.1 s has 2 frames"):
        estimate("qwen2.5-vl-3b-instruct", bandwidth=2e12, video_seconds=0.1)
    with pytest.raises(InputError, match=r"^video_size: a frame of 1 x 300 px"):
        estimate("qwen2.5-vl-3b-instruct", bandwidth=2e12, video_seconds=10, video_size=(1, 300))


# Qwen2.5-Omni and Qwen3-Omni (Qwen2VLVideoProcessor under their processors' own per-frame
# limits), printed by scripts/ground_truth/omni_video.py (transformers 5.24.0: sample_frames and
# smart_resize from the installed file, the processors' own _merge_kwargs, _process_audio with a
# real WhisperFeatureExtractor on a synthetic waveform of the video's length, and
# replace_video_token on a stub, its tokens counted by name):
#   /tmp/h-ov26-venv/bin/python scripts/ground_truth/omni_video.py
# videos_kwargs size printed: Qwen2.5-Omni 100,352 to 602,112 px, Qwen3-Omni 131,072 to 786,432.
# columns: seconds, fps, width, height; frames, grid (t, h, w), <|VIDEO|> tokens; with the audio
# track (load_audio_from_video): <|AUDIO|> tokens (plus one <|audio_bos|>, one <|audio_eos|>)
OMNI_PRINTED = {
    "qwen2.5-omni-7b": (14, [
        (10, 2, 1280, 720, 20, (10, 40, 72), 7200, 250),
        (3, 2, 640, 480, 6, (3, 34, 46), 1173, 75),
        (60, 1, 1920, 1080, 60, (30, 40, 72), 21600, 1500),
        (1.5, 2, 1000, 700, 4, (2, 46, 66), 1518, 37),
        (7, 0.5, 320, 240, 4, (2, 20, 28), 280, 175),
        (400, 0.5, 320, 240, 200, (100, 20, 28), 14000, 7500)]),
    "qwen3-omni-30b-a3b-instruct": (16, [
        (10, 2, 1280, 720, 20, (10, 40, 72), 7200, 130),
        (3, 2, 640, 480, 6, (3, 30, 40), 900, 39),
        (60, 1, 1920, 1080, 60, (30, 40, 72), 21600, 780),
        (1.5, 2, 1000, 700, 4, (2, 44, 62), 1364, 20),
        (7, 0.5, 320, 240, 4, (2, 20, 28), 280, 91),
        (400, 0.5, 320, 240, 200, (100, 20, 28), 14000, 5200)]),
}


@pytest.mark.parametrize("name", sorted(OMNI_PRINTED))
def test_omni_video_matches_transformers_printed(name):
    patch, cases = OMNI_PRINTED[name]
    for s, fps, w, h, frames, (t, gh, gw), tokens, audio in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            e = estimate(name, bandwidth=2e12, prompt=1, video_seconds=s, video_fps=fps,
                         video_size=(w, h), video_audio=True)
        # Qwen2.5-Omni's feature extractor keeps 300 s of a longer track, and says so
        assert any("keeps the first" in str(x.message) for x in caught) == \
            (s > 300 and "2.5" in name), (name, s)
        assert (e.video_frames, e.video_patches, e.video_tokens) == \
            (frames, t * gh * gw, tokens), (name, s)
        # the audio track's tokens and the two markers the processor writes around the video
        assert (e.audio_tokens, e.video_separator_tokens, e.prompt) == \
            (audio, 2, 1 + tokens + audio + 2), (name, s)
    v = video_work(image_tower(get_model(name))[1], 10, 2, 1280, 720)
    assert v.resized == (72 * patch, 40 * patch) and v.separators == 0


def test_video_audio_is_one_more_clip_through_the_encoder():
    kw = dict(hardware="h100-sxm", prompt=100, video_seconds=10)
    plain = estimate("qwen3-omni-30b-a3b-instruct", **kw)
    both = estimate("qwen3-omni-30b-a3b-instruct", video_audio=True, audio_seconds=5, **kw)
    alone = estimate("qwen3-omni-30b-a3b-instruct", audio_seconds=(5, 10), hardware="h100-sxm")
    # 5 s (65 tokens) and the 10 s track (130) through one encoder call, as two clips
    assert (both.audio_tokens, both.audio_frames, both.audio_seconds) == (195, 1500, 5)
    assert both.audio_prefill_flops == alone.audio_prefill_flops
    assert both.vision_prefill_flops == plain.vision_prefill_flops
    assert both.prompt == plain.prompt + 195 + 2 and plain.video_audio is False
    assert both.ttft_seconds > plain.ttft_seconds


@pytest.mark.parametrize("name, kw, error, words", [
    ("qwen2.5-vl-3b-instruct", dict(video_seconds=10, video_audio=True), ConfigError,
     r"qwen2\.5-vl-3b-instruct: --video-audio \(video_audio\) needs"),
    ("gemma-3n-e4b", dict(video_audio=True), InputError, "video_audio needs video_seconds"),
    ("qwen2.5-omni-7b", dict(video_seconds=10, video_audio="yes"), InputError,
     "video_audio must be True or False"),
])
def test_video_audio_refusals_name_it(name, kw, error, words):
    with pytest.raises(error, match=words):
        estimate(name, bandwidth=2e12, **kw)


def test_cli_video_audio(capsys):
    assert main(["describe", "qwen2.5-omni-7b", "--video-seconds", "10", "--video-audio",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["video_tokens"], d["audio_tokens"], d["video_separator_tokens"], d["prompt"],
            d["video_audio"]) == (7200, 250, 2, 7452, True)
    assert main(["describe", "qwen2.5-vl-3b-instruct", "--video-seconds", "10",
                 "--video-audio"]) == 2
    err = capsys.readouterr().err
    assert "--video-audio" in err and "Qwen2.5-Omni" in err and "Traceback" not in err
    assert main(["describe", "qwen2.5-omni-7b", "--video-audio"]) == 2
    assert "--video-audio needs --video-seconds" in capsys.readouterr().err
