"""Ground truth for a video, and a video with its audio track, in a prompt to Qwen2.5-Omni and
Qwen3-Omni (tests/test_video.py, OMNI_PRINTED): the frames sampled, the grid, the placeholder
tokens the processors write, and the audio tokens of the video's track.

Not part of ``make test`` and not imported by the package: it needs transformers 5.24.0 and
torch (2.13.0+cpu was used), in an environment outside the repository. That environment has
neither torchvision nor PIL, so ``Qwen2VLVideoProcessor`` (the omni processors' video processor,
``models/auto/video_processing_auto.py``) cannot be built: its ``sample_frames`` and
``smart_resize`` are taken from the installed file with ast and run as written, on a
namespace of the class's attributes as ``self``. The processors themselves
(``Qwen2_5OmniProcessor``, ``Qwen3OmniMoeProcessor``) are imported and run on a stub instance
(``__new__``, no tokenizer: none is available offline): their own ``_merge_kwargs`` gives the
video processor's ``size`` (the processor class's ``videos_kwargs``), their own
``_process_audio`` runs a real ``WhisperFeatureExtractor`` (128 mel bins, ``chunk_length``
300, the checkpoints' values) on a synthetic waveform of the video's length, and their own
``replace_video_token`` writes the placeholder string, whose tokens are counted by name
(``<|VIDEO|>``, ``<|AUDIO|>``, ``<|audio_bos|>``, ``<|audio_eos|>``). Run from the repository
root::

    /tmp/h-ov26-venv/bin/python scripts/ground_truth/omni_video.py

The video is taken as recorded at 24 fps (the library's assumption), round(S x 24) frames.
"""
import ast, math, types
import numpy as np, torch
import transformers
from transformers import WhisperFeatureExtractor
from transformers.models.qwen2_5_omni import processing_qwen2_5_omni as p25
from transformers.models.qwen3_omni_moe import processing_qwen3_omni_moe as p3

SRC = transformers.__file__.replace("__init__.py", "models/qwen2_vl/video_processing_qwen2_vl.py")
tree = ast.parse(open(SRC).read())
ns = {"math": math, "torch": torch, "VideoMetadata": object}
for node in tree.body:
    if isinstance(node, ast.FunctionDef) and node.name == "smart_resize":
        exec(compile(ast.Module([node], []), SRC, "exec"), ns)
    if isinstance(node, ast.ClassDef) and node.name == "Qwen2VLVideoProcessor":
        for f in node.body:
            if isinstance(f, ast.FunctionDef) and f.name == "sample_frames":
                f.decorator_list = []
                exec(compile(ast.Module([f], []), SRC, "exec"), ns)
smart_resize, sample_frames = ns["smart_resize"], ns["sample_frames"]
VP = types.SimpleNamespace(num_frames=None, fps=None, temporal_patch_size=2, min_frames=4,
                           max_frames=768, merge_size=2)


def stub(cls):
    p = cls.__new__(cls)
    p.video_processor = VP
    p.feature_extractor = WhisperFeatureExtractor(feature_size=128, chunk_length=300)
    p.tokenizer = None
    p.audio_token, p.video_token = "<|AUDIO|>", "<|VIDEO|>"
    p.audio_bos_token, p.audio_eos_token = "<|audio_bos|>", "<|audio_eos|>"
    return p


CASES = [(10, 2, 1280, 720), (3, 2, 640, 480), (60, 1, 1920, 1080), (1.5, 2, 1000, 700),
         (7, 0.5, 320, 240), (400, 0.5, 320, 240)]
for name, cls, patch in (("qwen2.5-omni", p25.Qwen2_5OmniProcessor, 14),
                         ("qwen3-omni", p3.Qwen3OmniMoeProcessor, 16)):
    p = stub(cls)
    kw = p._merge_kwargs(load_audio_from_video=True)
    size = kw["videos_kwargs"]["size"]
    print(name, "videos_kwargs size", size, "position_id_per_seconds",
          kw["position_id_per_seconds"], "seconds_per_chunk", kw["seconds_per_chunk"])
    for s, fps, w, h in CASES:
        md = types.SimpleNamespace(total_num_frames=round(s * 24), fps=24)
        n = len(sample_frames(VP, md, fps=fps))
        rh, rw = smart_resize(h, w, factor=patch * 2, min_pixels=size["shortest_edge"],
                              max_pixels=size["longest_edge"])
        grid = torch.tensor([-(-n // 2), rh // patch, rw // patch])
        videos = {"video_grid_thw": [grid], "video_second_per_grid": [2 / fps]}
        plain = p.replace_video_token(videos, 0, load_audio_from_video=False)
        audio_kwargs = dict(kw["audio_kwargs"])
        audio, _ = p._process_audio([np.zeros(round(s * 16000), dtype=np.float32)], **audio_kwargs)
        with_audio = p.replace_video_token(videos, 0, processed_audio=audio,
                                           video_to_audio_indices=[0], **kw)
        count = lambda t, x: x.count(t)
        print(name, (s, fps, w, h), "frames", n, "grid", tuple(grid.tolist()),
              "video tokens", count("<|VIDEO|>", plain),
              "| with audio: video", count("<|VIDEO|>", with_audio),
              "audio", count("<|AUDIO|>", with_audio),
              "bos", count("<|audio_bos|>", with_audio), "eos", count("<|audio_eos|>", with_audio),
              "total tokens", sum(count(t, with_audio) for t in
                                  ("<|VIDEO|>", "<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>")),
              "starts", with_audio[:13 + 9 * 2])
