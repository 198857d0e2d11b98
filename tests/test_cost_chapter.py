"""The cost chapter's largest batch at a promised speed per user, against a derivation by hand.

Llama 3.1 8B at 16 bits on one H100 SXM, every sequence at 4096 tokens, one user promised
100 tokens/s: a memory-bound step may last 1/100 s, so it may read 3.35 TB/s x 10 ms =
33.5 GB. From the model's config.json (hidden 4096, 32 layers, 8 KV heads of 128, vocabulary
128,256, untied embeddings) and its published 8,030,261,248 parameters: the step reads every
weight but the input embedding, (8,030,261,248 - 128,256 x 4096) x 2 B = 15.01 GB, and each
sequence's cache, 2 x 32 x 8 x 128 x 2 B x 4096 = 536,870,912 B. (33.5 - 15.01) GB / 0.537 GB
= 34.4, so 34 sequences keep the promise and 35 do not; the weights and 34 caches fill
34.3 GB of the chip's 85.9 GB. A power-of-two grid would stop at 32.
"""
from __future__ import annotations

import math

from llm_arithmetic import get_hardware, get_model
from llm_arithmetic.book.chapters.cost import largest_batch_at_speed

BANDWIDTH = 3.35e12                    # H100 SXM datasheet [B/s]
PARAMS = 8_030_261_248                 # Llama 3.1 8B, published
EMBEDDING = 128_256 * 4096             # the input embedding, not read by a decode step
CACHE = 2 * 32 * 8 * 128 * 2 * 4096    # one sequence's 16-bit cache at 4096 tokens [B]


def test_largest_batch_at_speed_by_hand():
    by_hand = math.floor((BANDWIDTH / 100 - (PARAMS - EMBEDDING) * 2) / CACHE)
    assert by_hand == 34
    p = largest_batch_at_speed(get_model("llama-3.1-8b"), get_hardware("h100-sxm"), 1.0, 100,
                               weights="fp16", context=4096)
    assert p["batch"] == by_hand
    assert p["fits"] and p["tokens_per_second_per_user"] >= 100


def test_none_when_one_user_is_too_slow():
    # one stream of a 405B model at 8 bits cannot reach 1,000 tokens/s on eight H100s
    assert largest_batch_at_speed(get_model("llama-3.1-405b"), get_hardware("h100-sxm"), 1.0,
                                  1000, weights="fp8", tp=8, context=4096) is None
