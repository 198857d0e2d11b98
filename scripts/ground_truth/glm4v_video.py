"""Print what transformers' GLM-4.5V video processor makes of synthetic videos: the rows of
``tests/test_video.py`` ``GLM4V_PRINTED``. Not part of ``make test``.

For each (seconds S, fps F, width W, height H): round(S x 24) zero frames of H x W (a numpy view,
no copy) with ``VideoMetadata(total_num_frames=round(S x 24), fps=24,
duration=round(S x 24) / 24)``, through ``Glm4vVideoProcessor()`` (its class defaults: size
12,544 to 47,040,000 pixels, fps 2, max_duration 300; no checkpoint file is read) with
``fps=F``, then ``Glm4vProcessor.replace_video_token`` run as written with a namespace of that
processor and ``image_token`` "<|image|>" as ``self`` (no GLM tokenizer offline). Printed: the
sampled frames, ``video_grid_thw``, the ``<|image|>`` tokens, the ``<|begin_of_image|>`` and
``<|end_of_image|>`` tokens, and the timestamps' runs of up to three digits.

Run with the ground-truth environment (``requirements.txt`` here: torch 2.13.0 CPU,
transformers 5.24.0) and torchvision installed without its dependencies
(``pip install --no-deps torchvision==0.28.0 pillow``): its compiled operators do not load
against the CPU torch, so its meta registrations are stubbed; the video path calls only its
Python resize::

    /tmp/gt-venv/bin/python scripts/ground_truth/glm4v_video.py
"""
from __future__ import annotations

import re
import sys
import types
from types import SimpleNamespace

sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402
import transformers  # noqa: E402
from transformers import Glm4vProcessor, Glm4vVideoProcessor  # noqa: E402
from transformers.video_utils import VideoMetadata  # noqa: E402

CASES = [(10, 2, 1280, 720), (3, 2, 640, 480), (60, 1, 1920, 1080), (1.5, 2, 1000, 700),
         (7, 0.5, 320, 240), (500, 2, 64, 48), (25, 2, 1280, 720), (120, 2, 1280, 720),
         (11, 3, 900, 500), (2.5, 2, 1024, 1024), (1200, 2, 1280, 720), (0.1, 2, 640, 480),
         (400, 0.5, 1280, 720), (300, 2, 1280, 720)]


def main() -> None:
    print("transformers", transformers.__version__, "torch", torch.__version__,
          "torchvision", torchvision.__version__, "numpy", np.__version__)
    vp = Glm4vVideoProcessor()
    fake = SimpleNamespace(video_processor=vp, image_token="<|image|>")
    fake.replace_frame_token_id = lambda ts, num_image_tokens=1: \
        Glm4vProcessor.replace_frame_token_id(fake, ts, num_image_tokens)
    for s, fps, w, h in CASES:
        total = round(s * 24)
        video = np.broadcast_to(np.zeros((1, h, w, 3), np.uint8), (total, h, w, 3))
        md = VideoMetadata(total_num_frames=total, fps=24, duration=total / 24)
        out = vp(videos=[video], video_metadata=[md], fps=fps, return_metadata=True)
        text = Glm4vProcessor.replace_video_token(fake, out, 0)
        stamps = re.findall(r"<\|end_of_image\|>(\d+)", text)
        print((s, fps, w, h, len(out["video_metadata"][0].frames_indices),
               tuple(out["video_grid_thw"][0].tolist()), text.count("<|image|>"),
               text.count("<|begin_of_image|>") + text.count("<|end_of_image|>"),
               sum(-(-len(x) // 3) for x in stamps)))


if __name__ == "__main__":
    main()
