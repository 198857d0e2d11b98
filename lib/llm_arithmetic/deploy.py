r"""A deployment search: which chips, layouts, batches and formats serve a model within a time to
first token and a time per output token, ranked by the cost of a million output tokens.

``llm-arithmetic plan MODEL --ttft-ms X --tpot-ms Y`` calls :func:`search`. The space is chips x
tensor/expert/pipeline layouts x weight formats x KV-cache formats x batch sizes; each point is
the estimate's plan (:mod:`llm_arithmetic.plan.steps`) evaluated on it, so every number is the
same bound ``describe`` prints (a test checks points against :func:`~llm_arithmetic.estimate.
estimate`). The plan takes NumPy arrays: one evaluation covers every batch size of a layout at
once (``Model.plan.child(batch=array, ...)``), and what does not depend on the batch is shared
by the layout's evaluations. A point qualifies when the replica holds the cache of its batch at
the end of a request, and its TTFT and TPOT bounds are within the targets; the answer is each
layout's cheapest qualifying batch, cheapest first, and the frontier of tokens/s per user
against tokens/s per chip over every qualifying point (the points no other beats on both).

Prices per chip-hour come from ``catalog/data/prices.toml`` (:func:`load_prices`: an offer, the
page quoting it and its date for each chip), unless given. Without ``hardware`` the search
covers the chips with a price; a chip named in ``hardware`` without one is refused, naming it,
unless a price is given for it (or one price for every chip).

By default these are bounds: a real runtime is slower, so a configuration that meets a target
at its bound may miss it in practice. With ``forecast=True`` (``plan --forecast [--runtime
NAME]``) the targets and the cost apply to the forecast of :mod:`llm_arithmetic.forecast` (its
decode fit on the TPOT bound, its prefill fit on the TTFT bound; fitted at batch 1 on one chip,
an extrapolation beyond), and each configuration carries both.

>>> r = search("llama-3-8b", ttft=0.5, tpot=0.02, hardware=["h100-sxm", "l40s"], prompt=1000,
...            generate=200)
>>> best = r.configurations[0]
>>> best["tpot_seconds"] <= 0.02 and best["ttft_seconds"] <= 0.5 and best["fits"]
True
>>> r.evaluated > 10_000
True
"""
from __future__ import annotations

import math
import time
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .catalog.hardware import HARDWARE, get_hardware
from . import numeric as N
from .core.errors import InputError
from .arguments import (count_argument, generated_argument, resolve_model, serving_argument,
                        warn_past_trained_context)
from .estimate import plan_inputs, speculative_inputs
from .layout import chip_inputs
from .media import cross_inputs, encoder_degrees, prompt_with_images, vision_plan_inputs
from .speculative import draft_degrees, draft_memory_inputs, draft_model
from .weights import warn_block_format, weight_bits

__all__ = ["PRICES_PATH", "load_prices", "DEFAULT_WEIGHTS", "DEFAULT_KV_BITS",
           "DEFAULT_LAYOUT_DEGREES", "DEFAULT_MAX_BATCH", "IMAGE_KEYS", "SearchResult", "search",
           "frontier"]

#: The dated price table.
PRICES_PATH: Path = Path(__file__).resolve().parent / "catalog" / "data" / "prices.toml"

#: Weight formats tried (each chip's peak for it as the estimate picks it).
DEFAULT_WEIGHTS: tuple[str, ...] = ("bf16", "fp8", "int4-g128")

#: KV-cache bits tried.
DEFAULT_KV_BITS: tuple[int, ...] = (16, 8)

#: Tensor- and pipeline-parallel degrees tried (expert parallelism: 1 or the tensor degree, for
#: a mixture of experts).
DEFAULT_LAYOUT_DEGREES: tuple[int, ...] = (1, 2, 4, 8)

#: Every batch size from 1 to this is tried.
DEFAULT_MAX_BATCH = 1024

#: The images and the video of every request, as :class:`SearchResult` gives them
#: (``images``): the keys of :class:`~llm_arithmetic.estimate.Estimate` (and ``describe
#: --json``) that do not depend on the chip, the layout or the formats searched; a key of what
#: the prompt does not hold (the images' without images, the video's without a video) is None.
IMAGE_KEYS: tuple[str, ...] = ("images", "image_size", "image_tokens_per_image", "image_tokens",
                               "vision_patches_per_image", "vision_prefill_flops",
                               "video_seconds", "video_fps", "video_size", "video_frames",
                               "video_tokens", "video_separator_tokens", "video_patches",
                               "video_audio")


def load_prices(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The price table: chip -> ``usd_per_hour``, ``offer``, ``source``, ``url``, ``date``.
    Every entry must name a catalogued chip and carry all five."""
    p = Path(path or PRICES_PATH)
    data = tomllib.loads(p.read_text(encoding="utf-8"))
    for chip, d in data.items():
        if chip not in HARDWARE:
            raise InputError(f"{p.name}: [{chip}] is not a catalogued chip")
        for k in ("usd_per_hour", "offer", "source", "url", "date"):
            if k not in d:
                raise InputError(f"{p.name}: [{chip}] lacks {k}")
        if not 0 < float(d["usd_per_hour"]) < 1e4:
            raise InputError(f"{p.name}: [{chip}] usd_per_hour {d['usd_per_hour']!r} is not a "
                             "plausible price")
    return data


@dataclass
class SearchResult:
    """What :func:`search` found: each layout's cheapest qualifying configuration (cheapest
    first), the frontier, how many points were evaluated and how long it took [s], the points
    skipped and why, and the layouts the draft excluded (``excluded_by_draft``: chip, format,
    cache bits and degrees of each layout that holds the target alone at some batch but holds
    it with the draft at none; empty without a draft). ``images``: the images and the video in
    every request, under the keys :class:`~llm_arithmetic.estimate.Estimate` gives them
    (:data:`IMAGE_KEYS`; None without either); each configuration's ``vision_prefill_seconds``
    is the vision tower's time in its TTFT there (None without images or a video).
    ``chips_refused``: the chips the search left out whole, each with why (a llama.cpp build
    its forecast cannot be drawn for there: :func:`_build_refusals`; also in ``skipped``)."""

    model: str
    ttft_target: float
    tpot_target: float
    configurations: list[dict[str, Any]]
    frontier: list[dict[str, Any]]
    evaluated: int
    seconds: float
    skipped: list[str] = field(default_factory=list)
    excluded_by_draft: list[dict[str, Any]] = field(default_factory=list)
    images: dict[str, Any] | None = None
    chips_refused: dict[str, str] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        """Configurations evaluated per second."""
        return self.evaluated / self.seconds if self.seconds > 0 else math.inf


def frontier(per_user: np.ndarray, per_chip: np.ndarray) -> np.ndarray:
    """Indices of the points no other point beats on both tokens/s per user and tokens/s per
    chip, by decreasing tokens/s per user.

    >>> frontier(np.array([10., 20., 30., 5.]), np.array([100., 50., 10., 80.])).tolist()
    [2, 1, 0]
    """
    order = np.lexsort((-per_chip, -per_user))
    best = -np.inf
    keep = []
    for i in order:
        if per_chip[i] > best:
            keep.append(int(i))
            best = per_chip[i]
    return np.array(keep, dtype=int)


def _forecaster(m: Any, runtime: str | None, build_date: Any = None) -> Any:
    """A function (chip, TTFT bound, TPOT bounds, evaluator, batches, chips) -> forecast TTFT,
    TPOT and tokens/s per chip, with the stored fit's terms (for the llama.cpp build of day
    ``build_date``: its drift, as forecast.expected adds it; None: today's build)."""
    from .forecast import build_age_years, chip_class_of, prefill_fit_for, resolve_runtime
    from .forecast_fit import drift_terms_for, load_params, predict_seconds

    p = load_params()
    runtime = resolve_runtime(runtime, p)
    age = build_age_years(build_date, runtime, p)
    dec = "by_runtime" if runtime is not None else "agnostic"
    pre, pre_rt = prefill_fit_for(p, runtime)

    def fc(chip: Any, t_first: float, t_tok: np.ndarray, ev: Any, batches: np.ndarray,
           n_chips: int) -> tuple[float, np.ndarray, np.ndarray]:
        cls = chip_class_of(chip)
        n = ev.get("spec_tokens_per_step") or 1
        # the prefill fit was fitted on text prompts: it forecasts the plan's prefill alone, and
        # what else the TTFT holds (the encoders' bound times) is added as it is (as
        # forecast.expected and the plan do)
        prefill = ev.get("prefill_seconds")
        first = predict_seconds(p[pre], prefill, cls, pre_rt or "*",
                                m.n_layers) + (t_first - prefill)
        # the per-layer term of a speculative step counts the drafts' blocks too, as
        # forecast.expected and the plan's fc_layers do
        layers = ev.get("fc_layers")
        d = drift_terms_for(p[dec], cls, runtime)
        tok = predict_seconds(p[dec], t_tok * n, cls, runtime or "*", layers,
                              ev.get("forecast_dequant_time"),
                              (d["mu"] * layers + d["nu"]) * age) / n
        return float(first), tok, N.tokens_per_chip(batch=batches, tpot=tok, n_chips=n_chips)

    return fc


def _build_refusals(chips: Sequence[str], runtime: str | None, build_date: Any
                    ) -> dict[str, str]:
    """The chips (catalog names) on which no forecast is drawn for the llama.cpp build of day
    ``build_date``, each with why: :func:`~llm_arithmetic.forecast.build_age_years`' check for
    one chip, so a CUDA build from before CUDA graphs on an NVIDIA GPU, whose runs are the
    runtime ``llama.cpp@no-cuda-graphs`` (fitted on such builds), not llama.cpp's with a drift.
    None without a build.

    >>> list(_build_refusals(["h100-sxm", "mi300x"], "llama.cpp", "2024-01-01"))
    ['h100-sxm']
    >>> _build_refusals(["h100-sxm"], "llama.cpp", "2024-06-01")
    {}
    """
    if build_date is None:
        return {}
    from .forecast import build_age_years, resolve_runtime
    from .forecast_fit import load_params

    p = load_params()
    runtime = resolve_runtime(runtime, p)
    refused = {}
    for chip in chips:
        try:
            build_age_years(build_date, runtime, p, hardware=chip)
        except InputError as e:
            refused[chip] = str(e)
    return refused


def _layouts(model: Any, degrees: Sequence[int]) -> list[tuple[int, int, int]]:
    eps = (lambda tp: sorted({1, tp})) if model.is_moe else (lambda tp: [1])
    return [(tp, ep, pp) for tp in degrees for ep in eps(tp) for pp in degrees]


def _point_inputs(m: Any, fmt: str, kv: Any, batches: np.ndarray, prompt: int, generate: int,
                  tp: int = 1, ep: int = 1, pp: int = 1, overhead: int = 0,
                  price: float | None = None) -> dict[str, Any]:
    """The plan's inputs of one search point (a format, a cache width and a layout) over the
    batches, checked as :func:`~llm_arithmetic.estimate.estimate` checks them."""
    g = plan_inputs(m, weights=fmt, bits_kv=kv, context=prompt, overhead=overhead, tp=tp, ep=ep,
                    pp=pp, prompt=prompt, generate=generate, price_per_hour=price)
    g["batch"] = batches
    return g


def _draft_ratio(draft: Any, m: Any, chip: Any, fmt: str, kv: Any, batches: np.ndarray,
                 prompt: int, generate: int) -> np.ndarray:
    """A draft model's cost at each batch: its time per output token over the target's, both
    on one chip at the request's shape (estimate.draft_step_ratio, vectorized over the batch)
    [-]."""
    t = [np.asarray(x.plan.child(**chip_inputs(chip), **_point_inputs(
        x, fmt, kv, batches, prompt, generate)).get("tpot_seconds"), dtype=float)
        for x in (draft, m)]
    return t[0] / t[1]


def _listed(name: str, value: Any) -> list[Any]:
    """A search axis as a list: one value (a name, a number) is an axis of one; anything else
    that is not a sequence is an InputError naming the argument."""
    if isinstance(value, (str, int, float)):
        return [value]
    if isinstance(value, (dict, set)) or not hasattr(value, "__iter__"):
        raise InputError(f"{name}: one value or a list of them, got {type(value).__name__}")
    return list(value)


def search(model: Any, *, ttft: float, tpot: float, hardware: Sequence[str] | None = None,
           price_per_hour: float | dict[str, float] | None = None, prompt: int = 1024,
           generate: int = 256, weights: Sequence[str] = DEFAULT_WEIGHTS,
           kv_bits: Sequence[Any] = DEFAULT_KV_BITS,
           degrees: Sequence[int] = DEFAULT_LAYOUT_DEGREES,
           max_batch: int = DEFAULT_MAX_BATCH, overhead: int = 0, forecast: bool = False,
           runtime: str | None = None, images: int | None = None,
           image_size: tuple[int, int] | None = None, video_seconds: float | None = None,
           video_fps: float | None = None, video_size: tuple[int, int] | None = None,
           build_date: Any = None, audio_seconds: Any = None, video_audio: Any = None,
           **speculation: Any) -> SearchResult:
    """Search chips x layouts x formats x batches for the configurations that meet ``ttft``
    and ``tpot`` [s] serving requests of ``prompt`` tokens that generate ``generate`` more.

    ``hardware``: catalog chips (default: every chip in the price table); ``price_per_hour``:
    one price for every chip, or chip -> price [USD/h] (default: the price table). Speculative
    decoding's arguments (``draft_len``, ``acceptance``, ...) make TPOT the speculative one.
    ``forecast``: targets and cost on the forecast (``runtime``: a fitted runtime's terms, None:
    the runtime-agnostic fit) instead of the bound. ``images`` images of ``image_size``
    (width, height) [px] in every request's prompt, as :func:`~llm_arithmetic.estimate.
    estimate` takes them: their tokens and separators join ``prompt`` (and the cache), the
    vision tower's time joins each point's TTFT (split over the tensor degree);
    ``video_seconds``, ``video_fps`` and ``video_size``, a video in every request's prompt,
    likewise. ``build_date``: with the forecast and ``runtime="llama.cpp"``, the day of the
    llama.cpp build (:func:`~llm_arithmetic.forecast.expected`'s; None: today's build);
    ``audio_seconds``, audio in every request's prompt (a length [s], or a sequence of
    clips' lengths), likewise (the audio
    encoder's time in each point's TTFT: ``audio_prefill_seconds``); ``video_audio``: the
    video's audio track too, as :func:`~llm_arithmetic.estimate.estimate` takes it.
    """
    t0 = time.perf_counter()
    # one chip, format or cache width may be given alone, as sweep takes them (a string was
    # iterated letter by letter: hardware="h100-sxm" read "unknown hardware 'h'")
    hardware = _listed("hardware", hardware) if hardware is not None else None
    weights, kv_bits, degrees = (_listed(k, v) for k, v in (
        ("weights", weights), ("kv_bits", kv_bits), ("degrees", degrees)))
    m = resolve_model(model)
    if m.cache_uncounted:  # every point's TPOT and memory would be missing: none qualifies
        raise InputError(f"{m.name}: the search needs the KV cache, which is not counted: it "
                         f"needs {m.cache_uncounted}")
    for label, v in (("ttft", ttft), ("tpot", tpot)):
        if not (isinstance(v, (int, float)) and 0 < v < math.inf):
            raise InputError(f"{label} must be a positive number of seconds, got {v!r:.40}")
    for fmt in weights:  # a format the library does not know is an error, not a skipped point
        weight_bits(m, fmt)
        # said once here: the search's own estimates run with warnings off
        warn_block_format(m, fmt, stacklevel=2)
    # the request and the batch axis checked once here, as estimate checks them (an error at a
    # point would be skipped, or a bare TypeError before any point)
    prompt, generate = count_argument("prompt", prompt), generated_argument(generate)
    # images in every request: the prompt grows by their tokens, the tower's inputs join each
    # point's plan (a model without a modelled tower is an InputError naming it)
    m, prompt, vision = prompt_with_images(m, prompt, images, image_size, video_seconds,
                                           video_fps, video_size, audio_seconds, video_audio)
    tower = vision_plan_inputs(vision) if vision is not None else {}
    try:
        max_batch = count_argument("batch", max_batch)
    except InputError as e:
        raise InputError(f"max_{e}") from None
    if price_per_hour is not None:
        price_per_hour = {c: serving_argument("price_per_hour", v) for c, v in
                          price_per_hour.items()} if isinstance(price_per_hour, dict) \
            else serving_argument("price_per_hour", price_per_hour)
    # said once here: the search's own estimates run with warnings off
    warn_past_trained_context(m, prompt, generate, stacklevel=3)
    prices = {k: float(v["usd_per_hour"]) for k, v in load_prices().items()}
    # the catalog's key of each chip (an unknown name fails here, with close matches; "H200"
    # and "h200" are one chip, as everywhere else), then its price
    if isinstance(price_per_hour, dict):
        prices.update({get_hardware(c).name: v for c, v in price_per_hour.items()})
    chips = [get_hardware(c).name for c in hardware] if hardware else list(prices)
    skipped = []
    excluded = []  # layouts that fit without the draft but not with it
    if price_per_hour is not None and not isinstance(price_per_hour, dict):
        prices = {c: float(price_per_hour) for c in chips}
    missing = [c for c in chips if c not in prices]
    if missing and hardware:
        raise InputError(f"price_per_hour: no price for {', '.join(missing)} in the price table; "
                         "give --price-per-hour")
    if runtime is not None and not forecast:
        raise InputError("runtime: a runtime names the forecast's terms; ask for the forecast "
                         "(forecast=True; plan --forecast)")
    if build_date is not None and not forecast:
        raise InputError("build_date: a build dates the forecast's llama.cpp terms; ask for the "
                         "forecast (forecast=True, runtime='llama.cpp'; plan --forecast)")
    fc = _forecaster(m, runtime, build_date) if forecast else None
    # chips the build's forecast is not drawn for: skipped, each saying why; all of them refused
    refused = _build_refusals(chips, runtime, build_date)
    if refused and len(refused) == len(chips):
        raise InputError(f"{next(iter(refused.values()))}; so for every chip searched "
                         f"({', '.join(chips)})")
    skipped += [f"{c}: {why}" for c, why in refused.items()]
    batches = np.arange(1, int(max_batch) + 1)
    draft = speculation.pop("draft", None)
    if draft is not None and speculation.get("draft_cost") is not None:
        raise InputError("give either draft_cost or a draft model, not both")
    # a draft model's cost depends on the chip, formats and batch the search varies: checked
    # here with a placeholder, then taken per point as the scalar path takes it
    spec = speculative_inputs(m, **speculation, **({"draft_cost": 0.0} if draft else {}))
    if draft is not None:
        draft = draft_model(draft, m)
        spec["draft_layers"] = draft.n_layers
    tpot_step = "speculative_tpot_seconds" if spec["draft_len"] else "tpot_seconds"
    rate_step = ("speculative_tokens_per_second_per_chip" if spec["draft_len"]
                 else "tokens_per_second_per_chip")
    found: list[dict[str, Any]] = []
    points: list[tuple[np.ndarray, np.ndarray, dict[str, Any]]] = []
    evaluated = 0
    no_peak: dict[str, list[str]] = {}
    no_link: set[str] = set()
    layouts = _layouts(m, degrees)
    # what depends on the draft alone, reckoned once: whether each layout splits it as the
    # target (draft_degrees: the refusal, None where it splits), and what it holds at each
    # format (draft_memory_inputs: its weights at the format and its stack, held on the
    # replica's chips beside the target's), at a format's first point the draft's cost allows
    draft_split: dict[tuple[int, int], str | None] = {}
    if draft is not None:
        for tp, _, pp in layouts:
            if (tp, pp) not in draft_split:
                try:
                    draft_degrees(draft, tp, pp)
                    draft_split[tp, pp] = None
                except InputError as e:
                    draft_split[tp, pp] = str(e)
    draft_holds: dict[str, dict[str, Any]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for chip_name in chips:
            if chip_name in refused:
                continue
            chip = get_hardware(chip_name)
            price = prices[chip_name]
            chip_ev = m.plan.child(**chip_inputs(chip), **spec)
            for fmt in weights:
                for kv in kv_bits:
                    ratio = None
                    held: dict[str, Any] = {}
                    if draft is not None:
                        try:
                            ratio = _draft_ratio(draft, m, chip, fmt, kv, batches, prompt,
                                                 generate)
                        except InputError as e:
                            skipped.append(f"{chip_name} {fmt} draft {draft.name}: {e}")
                            continue
                        if fmt not in draft_holds:
                            draft_holds[fmt] = draft_memory_inputs(draft, weights=fmt)
                        held = draft_holds[fmt]
                    for tp, ep, pp in layouts:
                        try:
                            g = _point_inputs(m, fmt, kv, batches, prompt, generate, tp, ep,
                                              pp, overhead, price)
                            if vision is not None:  # a tp an encoder cannot split: skipped
                                encoder_degrees(m, tp, vision)
                                if vision.get("image_states"):  # cross-attention layers' reads
                                    cross_inputs(m, vision, g)
                        except InputError as e:
                            skipped.append(f"{chip_name} {fmt} tp{tp} ep{ep} pp{pp}: {e}")
                            continue
                        if ratio is not None:
                            if draft_split[tp, pp] is not None:
                                skipped.append(f"{chip_name} {fmt} tp{tp} ep{ep} pp{pp}: "
                                               f"{draft_split[tp, pp]}")
                                continue
                            g["draft_cost"] = ratio
                        g.update(held)
                        g.update(tower)
                        ev = chip_ev.child(**g)
                        evaluated += batches.size
                        # every point evaluated whole (no pruning), as the scalar path does
                        t_first = ev.get("ttft_seconds")
                        t_tok = np.asarray(ev.get(tpot_step), dtype=float)
                        per_chip = np.asarray(ev.get(rate_step), dtype=float)
                        fits = np.asarray(ev.get("fits_per_chip"), dtype=bool)
                        alone = ev.get("fits_per_chip_without_draft")  # none: no draft held
                        if alone is not None and not fits.any() and np.any(alone):
                            excluded.append({"hardware": chip_name, "weights": fmt,
                                             "kv_bits": kv, "tp": tp, "ep": ep, "pp": pp})
                        n_chips = ev.get("n_chips")
                        bound = (t_first, t_tok)
                        if fc is not None and t_first is not None:
                            t_first, t_tok, per_chip = fc(chip, t_first, t_tok, ev, batches,
                                                          n_chips)
                        ok = fits & (t_tok <= tpot) & (t_first is not None and t_first <= ttft)
                        if not ok.any():
                            continue
                        cost = N.cost_per_million_tokens(price_per_hour=price, n_chips=n_chips,
                                                         tokens_per_second=per_chip * n_chips)
                        i = int(np.argmin(np.where(ok, cost, np.inf)))
                        found.append({
                            "hardware": chip_name, "weights": fmt, "kv_bits": kv, "tp": tp,
                            "ep": ep, "pp": pp, "n_chips": int(n_chips),
                            "batch": int(batches[i]), "ttft_seconds": float(t_first),
                            "tpot_seconds": float(t_tok[i]),
                            "tokens_per_second_per_user": float(1 / t_tok[i]),
                            "tokens_per_second_per_chip": float(per_chip[i]),
                            "price_per_hour": price,
                            "cost_per_million_tokens": float(cost[i]), "fits": True,
                            "forecast": fc is not None, "runtime": runtime,
                            "ttft_bound_seconds": float(bound[0]),
                            "tpot_bound_seconds": float(bound[1][i]),
                            # the tower's bound, in the TTFT bound and in its forecast alike
                            "vision_prefill_seconds": float(ev.get("vision_ttft_seconds"))
                            if vision is not None and "tower_params" in vision else None,
                            # the audio encoder's bound, likewise (None without audio)
                            "audio_prefill_seconds": float(ev.get("audio_ttft_seconds"))
                            if vision is not None and "audio_params" in vision else None})
                        points.append((1 / t_tok[ok], per_chip[ok], found[-1], batches[ok]))
                        # what a qualifying point's times leave out, said once a chip below
                        if ev.get("peak_flops") is None:
                            no_peak.setdefault(chip_name, []).append(fmt)
                        if ev.get("link_bandwidth") is None and max(tp, ep) > 1:
                            no_link.add(chip_name)
    for chip_name, fmts in no_peak.items():
        warnings.warn(f"{chip_name}: the catalog gives no compute peak for "
                      f"{', '.join(dict.fromkeys(fmts))}; its times to first token and per "
                      "output token are the memory traffic's alone", stacklevel=2)
    for chip_name in sorted(no_link):
        warnings.warn(f"{chip_name} has no catalogued link between chips: its tp/ep layouts "
                      "leave communication out", stacklevel=2)
    found.sort(key=lambda c: (c["cost_per_million_tokens"], c["n_chips"]))
    front: list[dict[str, Any]] = []
    if points:
        user = np.concatenate([p[0] for p in points])
        chip_rate = np.concatenate([p[1] for p in points])
        owner = np.concatenate([np.full(p[0].size, k) for k, p in enumerate(points)])
        batch = np.concatenate([p[3] for p in points])
        for i in frontier(user, chip_rate):
            c = points[owner[i]][2]
            front.append({"hardware": c["hardware"], "weights": c["weights"],
                          "kv_bits": c["kv_bits"], "tp": c["tp"], "ep": c["ep"], "pp": c["pp"],
                          "batch": int(batch[i]),
                          "tokens_per_second_per_user": float(user[i]),
                          "tokens_per_second_per_chip": float(chip_rate[i])})
    # a video alone has no image keys, images alone none of the video's, audio alone neither
    shown = None if vision is None or "tower_params" not in vision \
        else {k: vision.get(k) for k in IMAGE_KEYS}
    return SearchResult(m.name, float(ttft), float(tpot), found, front, evaluated,
                        time.perf_counter() - t0, skipped, excluded, shown, refused)
