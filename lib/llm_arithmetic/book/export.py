"""The catalogs as JSON for the book's widgets, and the HTML that embeds a widget in a page.

The HTML book's interactive widgets run the package's formulas in the reader's browser, with
no kernel. Nothing there is a formula typed in JavaScript: the functions come from the
generated ``numeric/formulas.js``; the models, chips and weight formats come from
:func:`catalog_data` (every catalog model's layer stack, runs of blocks with their attention,
mixer and MLP, as :mod:`llm_arithmetic.catalog.model` holds them; every chip's bandwidth,
capacity, dense peaks by precision and interconnect; every format's bits per weight and
compute precision). The build bundles both with the hand-written ``book/widgets/*.js`` into one
script (``tools/sphinx_widgets.py``, outside the installed package).

A page embeds a widget with :func:`widget_cell`'s HTML (see ``book/widgets/README.md``).

>>> data = catalog_data()
>>> data["models"]["llama-2-7b"]["layers"][0]["count"], data["formats"]["q4_0"]["bits"]
(32, 4.5)
"""
from __future__ import annotations

import dataclasses
import html
import warnings
from typing import Any

from ..catalog.formats import FORMATS
from ..catalog.hardware import FULLY_CONNECTED, HARDWARE
from ..catalog.audio import MODELLED_AUDIO_FAMILIES, audio_encoder
from ..catalog.images import DEFAULT_IMAGE_SIZE, image_tower
from ..catalog.video import (DEFAULT_VIDEO_FPS, DEFAULT_VIDEO_SIZE, MODELLED_VIDEO_FAMILIES,
                             video_tower)
from ..catalog.model_catalog import CATALOG
from ..core.errors import ConfigError, InputError
from ..arguments import LIMITS, SERVING_RANGES
from ..estimate import CROSSING_LIMIT, FIELD_STEPS, STATE_WINDOW_BITS, speculative_inputs
from ..layout import ALLREDUCE_ALGORITHMS, parallel_degrees
from ..media import (AUDIO_PLAN_INPUTS, audio_degrees, cross_inputs, image_inputs,
                     prompt_with_images, vision_degrees, vision_plan_inputs)
from ..speculative import (DRAFT_VOCAB_TOLERANCE, NOTHING_HELD, SPECULATIVE_WORKLOADS,
                           offered_drafts)
from ..sweeps import FRONTIER_MAX_BATCH
from ..forecast import CAVEAT_TEMPLATES, forecast_catalog
from ..numeric._runtime import exact_result
from ..plan import plan_data
from ..plan.stack import ATTENDED_ROWS_LABEL, ATTENDED_ROWS_SPLIT, KV_PER_TOKEN_MEAN

__all__ = ["catalog_data", "model_data", "widget_cell", "widget_templates", "WIDGETS",
           "WIDGET_OPTIONS", "PAGE_TEMPLATES", "image_data", "IMAGE_SIZES", "IMAGES_MAX",
           "IMAGE_SCALED", "TP_MENU", "images_tp_refused", "video_data", "audio_data",
           "VIDEO_SECONDS", "AUDIO_SECONDS", "TOWER_SUMMED", "VIDEO_REPORTED",
           "audio_tp_refused"]

#: The widgets ``ui.js`` defines (``data-llm-widget`` values); a test checks the two agree.
WIDGETS = ("puzzle", "kv-cache", "roofline", "batching", "explorer", "serving", "estimate")
#: ``data-*`` options a widget's container may carry (``widget_cell``'s keywords).
WIDGET_OPTIONS = ("model", "chip", "weights", "kv", "context", "batch", "tp", "prompt",
                  "generate", "price", "speculation", "controls", "show", "plots", "title",
                  "images", "image_size", "video", "audio")
#: The sentences the calculators fill as describe does, besides the forecast's caveat:
#: :func:`catalog_data`'s ``templates`` (``ui.js`` reads ``CATALOG.templates``).
PAGE_TEMPLATES = {
    # a cache per token that a model's cache, not proportional to the context, does not have
    "kv_per_token_mean": KV_PER_TOKEN_MEAN,
    # compressed attention's attended rows (window tokens and compressed entries): the label
    # and the sentence that splits their mean
    "attended_rows_label": ATTENDED_ROWS_LABEL,
    "attended_rows_split": ATTENDED_ROWS_SPLIT,
}


def widget_templates() -> dict[str, str]:
    """Every template the widgets fill, keyed by where :func:`catalog_data` carries it: its
    ``templates`` (:data:`PAGE_TEMPLATES`) and the forecast's caveat
    (:data:`llm_arithmetic.forecast.CAVEAT_TEMPLATES`, in ``forecast.caveat.templates``). The
    one list: a translated edition translates these (``tools/sphinx_widgets.py``), the
    calculator appendix prints them, and a test checks that the widgets' code reads no other.

    >>> sorted(widget_templates())  # doctest: +NORMALIZE_WHITESPACE
    ['forecast.caveat.templates.no_class', 'forecast.caveat.templates.on_class',
     'forecast.caveat.templates.pooled', 'forecast.caveat.templates.unmeasured',
     'templates.attended_rows_label', 'templates.attended_rows_split',
     'templates.kv_per_token_mean']
    """
    return {**{f"forecast.caveat.templates.{k}": v for k, v in CAVEAT_TEMPLATES.items()},
            **{f"templates.{k}": v for k, v in PAGE_TEMPLATES.items()}}


def model_data(entry: Any) -> dict[str, Any]:
    """One catalog entry's model as the widgets read it (:func:`catalog_data`'s ``models``) and
    ``llm-arithmetic models --json`` prints it: its labels and sizes, and its layer stack as
    runs of blocks (``count``, ``norms``, and each block's fields as
    :mod:`llm_arithmetic.catalog.model` holds them).

    >>> from llm_arithmetic.catalog.model_catalog import CATALOG
    >>> d = model_data(CATALOG["mixtral-8x7b"])
    >>> d["d_model"], d["layers"][0]["count"], d["layers"][0]["mlp"]["n_experts"]
    (4096, 32, 8)
    """
    m = entry.model
    return {
        "name": m.name, "label": entry.label or m.label or m.name, "family": m.family,
        "group": entry.group, "url": entry.url, "n_vocab": m.n_vocab, "d_model": m.d_model,
        "tied": m.tied, "n_positions": m.n_positions, "head_bias": m.head_bias,
        "norm_vecs_final": m.norm_vecs_final, "trained_context": m.trained_context,
        "d_ple": m.d_ple, "n_vocab_ple": m.n_vocab_ple, "altup_num_inputs": m.altup_num_inputs,
        "native_bits": {k: exact_result(v) for k, v in m.native_bits.items()},
        "native_format": m.native_format,
        # the format a module step multiplies in, where it is not the model's (None)
        "draft_format": m.draft_format,
        # what of its cache the library does not count ("" where none): such a model is no
        # draft (speculative.draft_model), which the page checks for a custom target
        "cache_uncounted": m.cache_uncounted,
        "extras": [{"name": x.name, "params": x.params, "in_total": x.in_total,
                    **({"read": True, "matmul": x.matmul} if x.read else {}),
                    **({"copied": True} if x.copied else {})}
                   for x in m.extras],
        "layers": _runs(m.layers, m.d_model),
        "speculation": speculation_data(m),
        # where the config declares modules its reader does not count, Python's refusal of the
        # workloads that draft with them (it names the field), which the page then says
        **({"speculation_refused": _refusals(m)} if m.mtp_modules else {}),
        # images in the prompt: the plan's inputs of one image of each size of the page's menu,
        # where the tower's rule is modelled; else, where it has a tower, Python's refusal
        **_images_field(m),
        # a video and audio in the prompt: the plan's inputs of each clip of the page's menus,
        # where the model's video rule or audio encoder is modelled (else nothing)
        **_media_fields(m),
    }


#: The image sizes (width, height) [px] the page offers: a small square (512 x 512), the library's
#: default (:data:`~llm_arithmetic.catalog.images.DEFAULT_IMAGE_SIZE`, 1024 x 1024), a full-HD
#: screenshot or video frame (1920 x 1080, landscape) and a 12-megapixel phone photo
#: (4032 x 3024, 4:3), past the pixel limits that cap the native-resolution rules (Qwen's,
#: GLM's, Kimi's) and asking the tiling rules (Llama 4's, InternVL's) for their largest grids.
#: The processors' rules are Python's integer algorithms (:mod:`llm_arithmetic.catalog.images`);
#: the page takes their results for these sizes as data and computes none.
IMAGE_SIZES = ((512, 512), (1024, 1024), (1920, 1080), (4032, 3024))
#: Most images the page puts in a prompt.
IMAGES_MAX = 8
#: The tensor-parallel degrees the page offers (``ui.js`` reads them as ``CATALOG.tp_menu``
#: and offers those the model's layers allow).
TP_MENU = (1, 2, 4, 8, 16, 32, 64)
#: What N images multiply of :func:`image_data`'s record of one image: the plan's inputs that
#: count the images' work, and the prompt's tokens (:func:`image_data` checks, for every model
#: and size, that N images give N times one image's of these, and one image's of the others).
IMAGE_SCALED = ("vision_prefill_flops", "vision_patches", "vision_whole_flops", "prompt_tokens",
                "image_states", "cross_kv_flops")
#: The keys of :func:`image_data`'s record that are not the plan's inputs: the prompt tokens
#: the images add, the patches one image's tower runs, and a cross-attention model's key and
#: value projections of the images' states (part of ``vision_prefill_flops``), which
#: :func:`~llm_arithmetic.estimate.estimate` reports beside them.
IMAGE_REPORTED = ("prompt_tokens", "vision_patches_per_image", "cross_kv_flops")


def image_data(m: Any) -> dict[str, dict[str, int]] | None:
    """The plan's image inputs (:func:`~llm_arithmetic.media.vision_plan_inputs`, the count
    left out) of one image of each size of :data:`IMAGE_SIZES` for ``m``, keyed ``"WxH"``, with
    the prompt tokens one image adds (``prompt_tokens``: its tokens and separators) and the
    patches its tower runs (``vision_patches_per_image``); None for a model whose tower's rule
    is not modelled or that has none. A cross-attention model's images (Llama 3.2 Vision,
    :func:`_image_record`) carry besides the states its cross-attention layers read, those
    layers' shapes, the parameters a token reads with them and the key and value projections
    (``cross_kv_flops``). N images of a size are N times the values of
    :data:`IMAGE_SCALED`, and the others as they are: checked here at
    2 and :data:`IMAGES_MAX` images against :func:`~llm_arithmetic.media.image_inputs`
    (a ValueError names an input that is neither).

    >>> from llm_arithmetic.catalog.model_catalog import CATALOG
    >>> d = image_data(CATALOG["qwen2.5-vl-3b-instruct"].model)["1920x1080"]
    >>> d["image_tokens_per_image"], d["prompt_tokens"], d["vision_patches"], d["d_vision"]
    (2691, 2691, 10764, 1280)
    >>> image_data(CATALOG["llama-3-8b"].model) is None
    True
    >>> x = image_data(CATALOG["llama-3.2-11b-vision-instruct"].model)
    >>> x["512x512"]["image_states"], x["1024x1024"]["image_states"], x["512x512"]["extras_read"]
    (1601, 6404, 1677789200)
    """
    try:
        image_tower(m)
    except ConfigError:
        return None
    out = {}
    for w, h in IMAGE_SIZES:
        record = _image_record(m, 1, (w, h))
        for n in (2, IMAGES_MAX):
            got = _image_record(m, n, (w, h))
            for k, v in record.items():
                if got[k] != (n * v if k in IMAGE_SCALED else v):
                    raise ValueError(f"{m.name}, {n} images of {w} x {h} px: {k} is {got[k]}, "
                                     f"one image's {v}: neither {n} times it nor the same "
                                     "(export it per count)")
        out[f"{w}x{h}"] = record
    return out


def _image_record(m: Any, n: int, size: tuple[int, int]) -> dict[str, int]:
    """What :func:`~llm_arithmetic.estimate.estimate` gives the plan for ``n`` images of
    ``size`` in a prompt to ``m`` (:func:`~llm_arithmetic.media.vision_plan_inputs`, the count
    left out), with :data:`IMAGE_REPORTED`; for a cross-attention model's images, also the
    parameters outside the stack that a token then reads (``extras_read``, ``extras_matmul``:
    :func:`~llm_arithmetic.media.cross_inputs`, at tp 1, which it refuses at no degree) and
    the states' key and value projections (``cross_kv_flops``)."""
    one = image_inputs(m, n, size)
    record = {**vision_plan_inputs(one), "prompt_tokens": one["prompt_tokens"],
              "vision_patches_per_image": one["vision_patches_per_image"]}
    del record["images"]
    if one.get("image_states"):
        given = {"tp": 1}
        cross_inputs(m, one, given)
        del given["tp"]
        record.update(given, cross_kv_flops=one["cross_kv_flops"])
    return record


def _images_field(m: Any) -> dict[str, Any]:
    """``images`` (:func:`image_data`) for a model whose tower's rule is modelled, with
    ``images_tp_refused`` (:func:`images_tp_refused`) where its tower refuses a degree of the
    page's menu; ``images_refused``, Python's refusal, for one whose tower's rule is not; else
    nothing."""
    try:
        image_tower(m)
    except ConfigError as err:
        towers = [x for x in m.extras if x.name.startswith("vision tower")]
        return {"images_refused": str(err)} if towers else {}
    refused = images_tp_refused(m)
    return {"images": image_data(m), **({"images_tp_refused": refused} if refused else {})}


def images_tp_refused(m: Any) -> dict[str, str]:
    """Python's refusal (:func:`~llm_arithmetic.media.vision_degrees`'s message, then for a
    cross-attention model's images :func:`~llm_arithmetic.media.cross_inputs`', as
    :func:`~llm_arithmetic.estimate.evaluated_plan` asks them) of each
    tensor-parallel degree that ``m``'s own layers allow
    (:func:`~llm_arithmetic.layout.parallel_degrees`) and whose split of its vision tower, or of
    its cross-attention layers' key/value heads, vLLM refuses, keyed by the degree as a string:
    what the page says for such a tp with images
    in the prompt, the page restating no rule of the tower. Every such degree, not only those
    of :data:`TP_MENU`: a degree is at most the layers' fewest heads (or the menu's largest,
    for a stack without attention), which bounds the search; a degree the layers refuse is
    refused before the tower is asked, in Python and on the page.

    >>> from llm_arithmetic.catalog.model_catalog import CATALOG
    >>> sorted(images_tp_refused(CATALOG["glm-4.5v"].model), key=int)
    ['8', '16', '24', '32', '48', '96']
    >>> images_tp_refused(CATALOG["gemma-3n-e4b"].model)
    {}
    >>> sorted(images_tp_refused(CATALOG["llama-3.2-11b-vision-instruct"].model), key=int)
    ['16', '32']
    """
    one = image_inputs(m, 1, DEFAULT_IMAGE_SIZE)

    def check(model: Any, tp: int) -> None:
        vision_degrees(model, tp)
        if one.get("image_states"):  # the cross-attention layers' key/value heads
            cross_inputs(model, one, {"tp": tp})

    return _tp_refused(m, check)


def _tp_refused(m: Any, check: Any) -> dict[str, str]:
    """Python's refusal by ``check`` (:func:`~llm_arithmetic.media.vision_degrees` or
    :func:`~llm_arithmetic.media.audio_degrees`) of each tensor-parallel degree ``m``'s
    layers allow, keyed by the degree as a string (:func:`images_tp_refused`)."""
    heads = [run.attention.n_heads for run in m.layers if run.attention is not None]
    out = {}
    for tp in range(1, (min(heads) if heads else TP_MENU[-1]) + 1):
        try:
            parallel_degrees(m, tp, 1, 1)
        except InputError:
            continue  # the layers refuse it, before the encoder is asked
        try:
            check(m, tp)
        except InputError as err:
            out[str(tp)] = str(err)
    return out


#: The video clips the page offers [s], each of 1280 x 720 px frames sampled 2 a second (the
#: library's defaults, :data:`~llm_arithmetic.catalog.video.DEFAULT_VIDEO_SIZE` and
#: :data:`~llm_arithmetic.catalog.video.DEFAULT_VIDEO_FPS`): a short clip (10 s), a minute,
#: five minutes (600 frames) and twenty minutes, past the 768 frames both Qwen processors
#: sample at most (6.4 min at 2 fps), so the menu shows that cap too (GLM-4.5V's processor
#: samples a video over 300 s as 600 frames spread over it, so its five and twenty minutes
#: give the same tokens, not the same timestamps). Qwen3-VL's and
#: Qwen3.5's processor spends one pixel budget on the whole clip, so their tokens are not
#: proportional to the length (five minutes give fewer than one): each clip is exported as
#: Python counts it, none is scaled from another.
VIDEO_SECONDS = (10, 60, 300, 1200)
#: The audio clips the page offers [s]: 10 s, 30 s, 2 min and 10 min. The last is past
#: Qwen2.5-Omni's 300 s cap, where Python warns that its processor drops the rest
#: (:func:`~llm_arithmetic.media.audio_inputs`); the clip's record carries that warning's
#: text (``warning``), which the page shows beside its numbers.
AUDIO_SECONDS = (10, 30, 120, 600)
#: What :func:`~llm_arithmetic.media.prompt_with_images` sums where images and a video share
#: a prompt (one forward of the tower over both); its other inputs are the video's, taken
#: after the images' (a test holds the page's sum equal to Python's).
TOWER_SUMMED = ("prompt_tokens", "vision_prefill_flops", "vision_patches", "vision_whole_flops")
#: :func:`~llm_arithmetic.media.video_inputs`' keys that estimate reports beside the plan's
#: inputs, carried per clip (its length, rate and size are the menu's).
VIDEO_REPORTED = ("video_frames", "video_separator_tokens", "video_patches")


def video_data(m: Any) -> dict[str, dict[str, int]] | None:
    """The plan's inputs of each clip of :data:`VIDEO_SECONDS` in a prompt to ``m``, keyed by
    its length in seconds (a string): :func:`~llm_arithmetic.media.prompt_with_images`'
    values for that video alone through
    :func:`~llm_arithmetic.media.vision_plan_inputs` (the images' count and tokens, None,
    left out), with the prompt tokens it adds (``prompt_tokens``: its tokens and Qwen3-VL's
    timestamps) and :data:`VIDEO_REPORTED`; None for a model whose video rule is not modelled.

    >>> from llm_arithmetic.catalog.model_catalog import CATALOG
    >>> d = video_data(CATALOG["qwen3.5-27b"].model)
    >>> d["60"]["video_tokens"], d["300"]["video_tokens"], d["300"]["prompt_tokens"]
    (11400, 9600, 12490)
    >>> video_data(CATALOG["gemma-3-27b"].model) is None
    True
    """
    try:
        video_tower(m)
    except ConfigError:
        return None
    out = {}
    for s in VIDEO_SECONDS:
        _, _, v = prompt_with_images(m, None, None, None, s, DEFAULT_VIDEO_FPS,
                                     DEFAULT_VIDEO_SIZE)
        record = {**vision_plan_inputs(v), "prompt_tokens": v["prompt_tokens"],
                  **{k: v[k] for k in VIDEO_REPORTED}}
        del record["images"], record["image_tokens_per_image"]
        out[str(s)] = record
    return out


def audio_data(m: Any) -> dict[str, dict[str, Any]] | None:
    """The plan's inputs of each clip of :data:`AUDIO_SECONDS` in a prompt to ``m``, keyed by
    its length in seconds (a string): :func:`~llm_arithmetic.media.prompt_with_images`'
    values for that audio alone, the plan's audio inputs
    (:data:`~llm_arithmetic.media.AUDIO_PLAN_INPUTS`) with the prompt tokens it adds
    (``prompt_tokens``), its mel frames and tokens, and where Python warns (a clip past
    Qwen2.5-Omni's 300 s, or Gemma 3n's and Gemma 4's 30 s), the warning's text
    (``warning``); None for a model whose audio encoder is not modelled.

    >>> from llm_arithmetic.catalog.model_catalog import CATALOG
    >>> d = audio_data(CATALOG["qwen2.5-omni-7b"].model)
    >>> d["120"]["audio_tokens"], d["600"]["audio_tokens"], "warning" in d["120"]
    (3000, 7500, False)
    >>> d["600"]["warning"][:60]
    "audio_seconds: qwen2.5-omni-7b's processor keeps the first 3"
    """
    try:
        audio_encoder(m)
    except ConfigError:
        return None
    out = {}
    for s in AUDIO_SECONDS:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            _, _, a = prompt_with_images(m, None, None, None, audio_seconds=s)
        plan = vision_plan_inputs(a)
        record = {**{k: plan[k] for k in AUDIO_PLAN_INPUTS}, "prompt_tokens": a["prompt_tokens"],
                  "audio_frames": a["audio_frames"], "audio_tokens": a["audio_tokens"]}
        if said:
            record["warning"] = "; ".join(str(w.message) for w in said)
        out[str(s)] = record
    return out


def audio_tp_refused(m: Any) -> dict[str, str]:
    """Python's refusal (:func:`~llm_arithmetic.media.audio_degrees`) of each
    tensor-parallel degree ``m``'s layers allow and whose split of its audio encoder vLLM
    refuses, keyed by the degree as a string, as :func:`images_tp_refused` gives the vision
    tower's (which a video's prompt meets too).

    >>> from llm_arithmetic.catalog.model_catalog import CATALOG
    >>> sorted(audio_tp_refused(CATALOG["qwen3-omni-30b-a3b-instruct"].model), key=int)
    ['8', '16', '32']
    >>> audio_tp_refused(CATALOG["qwen2.5-omni-7b"].model)
    {}
    """
    return _tp_refused(m, audio_degrees)


def _media_fields(m: Any) -> dict[str, Any]:
    """``video`` (:func:`video_data`) and ``audio`` (:func:`audio_data`, with
    ``audio_tp_refused`` where its encoder refuses a degree the layers allow) for a model that
    takes them; nothing for another. A video meets the vision tower's refusals,
    ``images_tp_refused``."""
    out = {}
    video = video_data(m)
    if video is not None:
        out["video"] = video
    audio = audio_data(m)
    if audio is not None:
        refused = audio_tp_refused(m)
        out.update({"audio": audio, **({"audio_tp_refused": refused} if refused else {})})
    return out


def _refusals(m: Any) -> dict[str, str]:
    """Python's refusal of each named workload ``m`` refuses (:func:`speculation_data` leaves
    them out), by workload."""
    out = {}
    for name in SPECULATIVE_WORKLOADS:
        try:
            speculative_inputs(m, speculation=name)
        except InputError as err:
            out[name] = str(err)
    return out


def _runs(layers: Any, d_model: int) -> list[dict[str, Any]]:
    """Runs of :class:`~llm_arithmetic.catalog.model.Layers` as the widgets read them: ``count``,
    ``norms``, each block's parts by their fields (``hc``: hyper-connections, ``laurel``: a
    low-rank residual's rank, where any)."""
    out = []
    for run in layers:
        d = {"count": run.count, "norms": run.norms,
             "attention": dataclasses.asdict(run.attention) if run.attention else None,
             "mlp": dataclasses.asdict(run.mlp) if run.mlp else None, "mixer": None,
             **({"hc": run.hc} if run.hc else {}),
             **({"laurel": run.laurel} if run.laurel else {}),
             **({"prefill_last": True} if run.prefill_last else {})}
        if run.mixer is not None:
            d["mixer"] = dataclasses.asdict(run.mixer)
            # The one count catalog/model.py computes outside the formula registry (the input
            # and output projections of a Mamba-2 mixer): shipped as data, not retyped.
            d["mixer"]["matmul_params"] = run.mixer.matmul_params(d_model)
        out.append(d)
    return out


def speculation_data(m: Any) -> dict[str, dict[str, Any]]:
    """The plan's speculative inputs of each named workload the model allows
    (:func:`~llm_arithmetic.estimate.speculative_inputs` with ``speculation=name`` and nothing
    else: the workload's draft length and acceptance, its draft's cost, blocks and what it holds,
    the MTP module's parameters and blocks for ``mtp``), the draft's blocks as runs
    (``draft_runs``, :func:`_runs`'s form, which the page groups as it groups the stack) and
    those of the one module a draft step runs (``draft_step_runs``: the ``mtp`` workload's
    cost, None, is the plan's, from them and the page's workload); a
    workload the model refuses is left out. The page overrides the draft length and the
    acceptance as :func:`~llm_arithmetic.estimate.speculative_inputs` does.

    >>> from llm_arithmetic.catalog.model_catalog import CATALOG
    >>> d = speculation_data(CATALOG["deepseek-v3"].model)["mtp"]
    >>> d["draft_len"], d["acceptance"], d["draft_layers"], d["draft_params"], d["draft_cost"]
    (1, 0.85, 1, 13463426304, None)
    >>> [r["count"] for r in speculation_data(CATALOG["nemotron-3-super"].model)["mtp"][
    ...     "draft_step_runs"]]
    [1, 1]
    >>> d["draft_runs"][0]["count"], speculation_data(CATALOG["llama-3-8b"].model)
    (1, {})
    """
    out = {}
    for name in SPECULATIVE_WORKLOADS:
        try:
            spec = speculative_inputs(m, speculation=name)
        except InputError:
            continue
        # where Python gives the module's blocks, their runs (the page groups them as
        # stack_blocks does): every module's, for what the draft holds, and the one module a
        # draft step runs, whose step the plan prices (module_draft_cost)
        spec["draft_runs"] = (_runs(list(m.mtp_layers()), m.d_model)
                              if spec.pop("draft_blocks") is not None else None)
        spec["draft_step_runs"] = (_runs(list(m.mtp_step_layers()), m.d_model)
                                   if spec.pop("draft_step_blocks") is not None else None)
        out[name] = spec
    return out


def _chip(h: Any) -> dict[str, Any]:
    peaks = {}
    for key, p in h.peaks.items():
        if key.endswith("-sparse"):
            continue
        if not p.dense:  # estimate() would use it under this key: refuse to export a doubt
            raise ValueError(f"{h.name}: peak {key!r} is not dense but its key has no -sparse")
        peaks[key] = {"rate": p.rate, "unit": p.unit, "engine": p.engine}
    return {"name": h.name, "label": h.label, "kind": h.kind, "vendor": h.vendor,
            "year": h.year, "bandwidth": h.bandwidth, "capacity": h.capacity,
            "power": h.power, "source": h.source, "peaks": peaks,
            "interconnect": dataclasses.asdict(h.interconnect)}


def catalog_data() -> dict[str, Any]:
    """The catalogs as one JSON-ready dict: ``models``, ``hardware``, ``formats``, ``limits``
    (with ``serving_ranges`` and ``frontier_max_batch``, :mod:`llm_arithmetic.estimate`'s).

    Models keep the fields of :class:`~llm_arithmetic.catalog.model.Model` (the stack as runs
    of :class:`~llm_arithmetic.catalog.model.Layers`, with their parts' fields by name); chips
    keep their dense peaks only, by precision key.
    """
    return {
        "models": {name: model_data(entry) for name, entry in CATALOG.items()},
        "hardware": {name: _chip(h) for name, h in HARDWARE.items()},
        "formats": {name: {"name": name, "bits": exact_result(f.bits),
                           "bits_exact": str(f.bits), "layout": f.layout,
                           "compute": f.compute, "compute_fallback": f.compute_fallback,
                           "compute_vendors": list(f.compute_vendors),
                           "source": f.source}
                    for name, f in FORMATS.items()},
        "limits": dict(LIMITS),
        # estimate()'s plausible ranges of the serving figures [low, high, unit], and the
        # largest batch of a frontier
        "serving_ranges": {k: [lo, hi, unit] for k, (lo, hi, unit, _) in
                           SERVING_RANGES.items()},
        "frontier_max_batch": FRONTIER_MAX_BATCH,
        # the plan and the stack's terms, which interpreter.js evaluates as estimate.py does
        "plan": plan_data(),
        "field_steps": dict(FIELD_STEPS),
        "crossing_limit": CROSSING_LIMIT,
        # the bits of a constant-state layer's convolution window, whatever the cache's
        "state_window_bits": STATE_WINDOW_BITS,
        # the all-reduce algorithms a caller may ask for, and the topologies where "direct" applies
        "allreduce": {"algorithms": list(ALLREDUCE_ALGORITHMS),
                      "fully_connected": list(FULLY_CONNECTED)},
        # the forecast's fitted terms by chip class and runtime (lab/data/forecast_decode.json)
        "forecast": forecast_catalog(),
        # speculative workloads with a published acceptance rate (the page's stated default)
        "speculative": {k: dict(v) for k, v in SPECULATIVE_WORKLOADS.items()},
        # the most token ids a draft model's vocabulary may differ from its target's
        # (estimate.check_draft: llama.cpp's tolerance)
        "draft_vocab_tolerance": DRAFT_VOCAB_TOLERANCE,
        # the draft inputs of a workload that holds no draft (estimate.NOTHING_HELD: all null)
        "nothing_held": dict(NOTHING_HELD),
        # the draft models the page offers each catalog model: those Python takes
        # (speculative.offered_drafts), so the page offers no draft that estimate() refuses
        "drafts": {name: offered_drafts(name) for name in CATALOG},
        # the sentences the calculators fill as describe does (widget_templates lists them all)
        "templates": dict(PAGE_TEMPLATES),
        # the images the page offers (each model's inputs per size: model_data's ``images``)
        "image_menu": {"sizes": [list(s) for s in IMAGE_SIZES],
                       "default": list(DEFAULT_IMAGE_SIZE), "max": IMAGES_MAX,
                       "scaled": list(IMAGE_SCALED), "reported": list(IMAGE_REPORTED)},
        # the tensor-parallel degrees the page offers (with images, a model's
        # ``images_tp_refused`` holds Python's refusal of those its vision tower refuses)
        "tp_menu": list(TP_MENU),
        # the video clips and the audio clips the page offers (each model's inputs per clip:
        # model_data's ``video`` and ``audio``), what images and a video sum, the keys of a
        # clip's record that are the plan's inputs or not, and the families modelled
        "video_menu": {"seconds": list(VIDEO_SECONDS), "fps": DEFAULT_VIDEO_FPS,
                       "size": list(DEFAULT_VIDEO_SIZE), "summed": list(TOWER_SUMMED),
                       "reported": list(VIDEO_REPORTED),
                       "families": list(MODELLED_VIDEO_FAMILIES)},
        "audio_menu": {"seconds": list(AUDIO_SECONDS), "plan": list(AUDIO_PLAN_INPUTS),
                       "families": list(MODELLED_AUDIO_FAMILIES)},
    }


#: The line a widget's container shows before (or without) its script: in Jupyter, Binder and
#: Colab, which strip the script, and in the HTML book until widgets.js mounts the widget. A
#: translated edition shows its own words for it (``locale/<language>/widgets.json``, put in
#: the page's HTML by tools/sphinx_widgets.py at the build).
WIDGET_FALLBACK = "An interactive widget runs here in the HTML book."


def widget_cell(widget: str, *, static: str = "../_static", intro: str = "",
                **options: Any) -> str:
    """The Markdown (raw HTML) that embeds ``widget`` in a page: a container ``div`` naming it,
    the fallback text a reader without JavaScript (or a live notebook) sees, and the script.

    ``static`` is the path from the page to the book's ``_static`` folder (``../_static`` from
    ``notebooks/``); ``options`` become ``data-*`` attributes (:data:`WIDGET_OPTIONS`).

    >>> print(widget_cell("kv-cache"))
    <div class="llm-widget" data-llm-widget="kv-cache">
    <p class="llm-widget-fallback">An interactive widget runs here in the HTML book.</p>
    </div>
    <script src="../_static/llm-arithmetic/widgets.js"></script>
    """
    if widget not in WIDGETS:
        raise ValueError(f"unknown widget {widget!r}; known: {', '.join(WIDGETS)}")
    unknown = set(options) - set(WIDGET_OPTIONS)
    if unknown:
        raise ValueError(f"unknown widget option(s) {sorted(unknown)}; known: "
                         f"{', '.join(WIDGET_OPTIONS)}")
    attrs = "".join(f' data-{k}="{html.escape(str(v))}"' for k, v in options.items())
    lines = [intro, ""] if intro else []
    lines += [f'<div class="llm-widget" data-llm-widget="{widget}"{attrs}>',
              f'<p class="llm-widget-fallback">{WIDGET_FALLBACK}</p>',
              "</div>",
              f'<script src="{static}/llm-arithmetic/widgets.js"></script>']
    return "\n".join(lines)
