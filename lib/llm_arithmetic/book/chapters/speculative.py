"""Build code of the speculative-decoding chapter (``notebooks/13-speculative-decoding.ipynb``):
the draft's cost relative to the target's step, and the published multi-token-prediction runs of
DeepSeek-R1 against the roofline.
"""
from __future__ import annotations

from typing import Any

from ...catalog.hardware import get_hardware
from ...catalog.model_catalog import get_model
from ...estimate import estimate
from ...lab.serving import load_measurements, replica_step

#: The measured runs the chapter compares (rows of ``serving_measurements.csv``), with their
#: chip and weight format: TensorRT-LLM's minimum-latency DeepSeek-R1 with three MTP drafts.
MTP_RUNS = (("trtllm-dsr1-b200-minlat-mtp3", "b200", "nvfp4"),
            ("trtllm-dsr1-h200-minlat-mtp3", "h200", "fp8"))
#: Tokens one MTP step yields at most: three drafted tokens and the target's own (definition).
MTP_MOST = 4


def draft_cost(draft: Any, target: Any, chip: Any, context: int, weights: str = "fp16") -> float:
    """The time of a draft's decode step as a share of the target's, both at batch 1 on
    ``chip`` with weights in ``weights`` at ``context`` tokens.

    >>> from llm_arithmetic import get_hardware, get_model
    >>> c = draft_cost(get_model("qwen3-0.6b"), get_model("qwen3-8b"),
    ...                get_hardware("h100-sxm"), 512)
    >>> 0 < c < 0.2
    True
    """
    td = estimate(draft, hardware=chip, weights=weights, context=context)
    tt = estimate(target, hardware=chip, weights=weights, context=context)
    return td.decode_seconds_per_token / tt.decode_seconds_per_token


def mtp_against_bound(kv_bits: int = 8) -> dict[str, dict[str, Any]]:
    """For each run of :data:`MTP_RUNS` (keyed by chip): the measured tokens/s per user, the
    plain roofline bound (one token per step), a draft step's cost (``draft_cost``: the
    roofline time of one step of the MTP module over a plain step's on one chip of the run's
    tensor-parallel group, at batch 1 what the two read there, ``estimate(speculation="mtp")``
    ``draft_chip_cost`` at the run's workload) and the MTP bound (:data:`MTP_MOST` tokens in a
    step that also runs :data:`MTP_MOST` - 1 drafts at that cost), the roofline step [s], the
    chips and the measurement row.

    >>> runs = mtp_against_bound()
    >>> r = runs["b200"]
    >>> r["measured"] < r["plain"] < r["most"] < 4 * r["plain"]
    True
    >>> round(r["draft_cost"], 3)
    0.055
    """
    rows = {r.id: r for r in load_measurements()}
    ds = get_model("deepseek-v3")
    out = {}
    for rid, chip, fmt in MTP_RUNS:
        r = rows[rid]
        t, _ = replica_step(ds, get_hardware(chip), fmt, kv_bits, n_chips=r.chips, batch=1,
                            prompt=r.input_len, generated=r.output_len)
        c = estimate(ds, hardware=chip, weights=fmt, bits_kv=kv_bits, tp=r.chips,
                     prompt=r.input_len, generate=r.output_len,
                     speculation="mtp").draft_chip_cost
        out[chip] = dict(measured=r.value, plain=1 / t, draft_cost=c,
                         most=MTP_MOST / (t * (1 + (MTP_MOST - 1) * c)), step=t,
                         chips=r.chips, row=r)
    return out
