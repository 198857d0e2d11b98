"""Command line: ``python -m llm_arithmetic describe MODEL [options]`` (or ``llm-arithmetic``).

Commands
--------
describe   bytes, FLOPs and speed bounds of one model (catalog name, config.json, or - for
           standard input), optionally on a chip, or on a replica of tp x pp chips serving
           requests (--tp, --ep, --pp, --prompt, --generate, --price-per-hour, --power-watts)
frontier   the latency-throughput frontier: tokens/s per user and per chip over batch sizes
plan       a deployment search: chips x tp/ep/pp x formats x batch within a TTFT and a TPOT,
           ranked by the cost of a million tokens, with the frontier
models     the model catalog
hardware   the hardware catalog
formula    the LaTeX of a formula (``formula --list`` names them all)
problems   one problem set per student of a roster, with answer keys

Units at this edge are the ones people quote: GB/s and TFLOP/s (decimal); inside, the package
works in B/s and FLOP/s. Every bad input ends with one line on standard error naming the
problem and exit status 2; a context beyond the model's trained context prints a warning line.
``describe`` imports no sympy, so it starts fast.

This module parses the options and runs the commands; the text tables they print (the bound's
rows, the engine's, the forecast's) are :mod:`llm_arithmetic.cli.tables`.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import math
import os
import re
import sys
import warnings
from typing import Any, Callable, Iterator, Sequence

from ..catalog.images import IMAGE_SIDE_LIMIT, IMAGES_LIMIT, MODELLED_IMAGE_FAMILIES
from ..catalog.video import MODELLED_VIDEO_FAMILIES, VIDEO_SECONDS_LIMIT, VIDEO_SOURCE_FPS
from .tables import (seconds_text, engine_printed_keys, engine_table, forecast_table,
                     forecast_where_it_fits, image_rows, label_width, print_columns,
                     printed_keys, render, table_rows, tokens_text, unfit_text)

__all__ = ["main", "build_parser", "LIMITS"]

PROG = "llm_arithmetic"

#: Plausibility limits of the command line's numbers, with the reason given in the error.
LIMITS = {
    "bits": (64.0, "fp64 is the widest format weights or caches are stored in"),
    "bandwidth_gbps": (1e9, "no memory system moves an exabyte per second"),
    "tflops": (1e9, "no chip computes a zettaFLOP per second"),
    "tokens": (float(1 << 32), "no model attends to more than 4.3 billion tokens"),
    "batch": (float(1 << 31), "no memory holds more than 2 billion sequences"),
    "parallel": (float(1 << 16), "no replica spans more than 65,536 chips"),
    "price": (1e4, "no chip rents for more than $10,000 an hour"),
    "power": (1e5, "no single chip draws 100 kW"),
    "link_gbps": (1e6, "no link moves a petabyte per second"),
    "latency_us": (1e6, "a hop of a second is no interconnect"),
    "ms": (3.6e6, "a target beyond an hour is no latency target"),
    "draft_len": (1024.0, "no draft proposes more than 1,024 tokens a step"),
    "images": (float(IMAGES_LIMIT), f"no prompt holds more than {IMAGES_LIMIT:,} images"),
    "video_seconds": (float(VIDEO_SECONDS_LIMIT), "a video longer than a day is no prompt"),
    "video_fps": (float(VIDEO_SOURCE_FPS), f"the video is taken as recorded at "
                  f"{VIDEO_SOURCE_FPS} frames a second"),
    "draft_cost": (1e3, "a draft a thousand times slower than the target is no draft"),
    "audio_seconds": (86400.0, "audio longer than a day is no prompt"),
}


class UsageError(Exception):
    """A problem with the user's input; printed as one line, exit status 2."""


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it ($COLUMNS, the terminal,
    else 80), without importing shutil (and the archive modules it imports) at every start."""
    for ask in (lambda: int(os.environ["COLUMNS"]),
                lambda: os.get_terminal_size(sys.__stdout__.fileno()).columns):
        try:
            columns = ask()
        except (KeyError, ValueError, AttributeError, OSError):
            continue
        if columns > 0:
            return columns
    return 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog: str, **kwargs: Any) -> None:
        kwargs.setdefault("width", _columns() - 2)  # what argparse computes when not told
        super().__init__(prog, **kwargs)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # one line, not usage + message
        raise UsageError(message)


def _number(text: str, kind: str, *, integer: bool = False) -> Any:
    what = "a positive integer" if integer else "a positive number"
    if len(text) > 40:
        raise argparse.ArgumentTypeError(f"expected {what}, got a {len(text)}-character string")
    try:
        v = int(text) if integer else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"must be finite, got {text}")
    limit, why = LIMITS[kind]
    if v > limit:
        raise argparse.ArgumentTypeError(f"{text} is beyond the plausibility limit {limit:g} "
                                         f"({why})")
    return v


def _bits(text: str) -> float:
    return _number(text, "bits")


def _images(text: str) -> int:
    return _number(text, "images", integer=True)


def _image_size(text: str) -> tuple[int, int]:
    """``WxH`` in pixels, two positive integers of ASCII digits (``str.isdigit`` alone would
    let ``²`` through to ``int``, whose ValueError argparse reports without the expected
    form)."""
    found = re.fullmatch(r"\s*([0-9]+)\s*[xX]\s*([0-9]+)\s*", text) if len(text) <= 40 else None
    if found is None or not all(int(v) > 0 for v in found.groups()):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in pixels (e.g. 1024x768), got "
                                         f"{text[:40]!r}")
    w, h = int(found[1]), int(found[2])
    if max(w, h) > IMAGE_SIDE_LIMIT:
        raise argparse.ArgumentTypeError(f"{text} is beyond the plausibility limit of "
                                         f"{IMAGE_SIDE_LIMIT:,} pixels a side")
    return w, h


def _video_seconds(text: str) -> float:
    return _number(text, "video_seconds")


def _audio_seconds(text: str) -> float:
    return _number(text, "audio_seconds")


class _Clips(argparse.Action):
    """--audio-seconds S [S ...], the flag repeatable: one length is one clip (a number, as
    estimate() takes it), several are the prompt's clips (a tuple)."""

    def __call__(self, parser: Any, ns: argparse.Namespace, values: Any,
                 option_string: Any = None) -> None:
        old = getattr(ns, self.dest, None)
        clips = (() if old is None else old if isinstance(old, tuple) else (old,)) + tuple(values)
        setattr(ns, self.dest, clips[0] if len(clips) == 1 else clips)


def _video_fps(text: str) -> float:
    return _number(text, "video_fps")


def _tokens(text: str) -> int:
    return _number(text, "tokens", integer=True)


def _generated(text: str) -> int:
    """Tokens generated after the first: 0 is a request of one token (its prefill and first
    token alone)."""
    try:
        v = int(text)
    except ValueError:  # not an integer: _number says so
        v = None
    if v is not None and v <= 0:
        if v < 0:
            raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
        return 0
    return _number(text, "tokens", integer=True)


def _batch(text: str) -> int:
    return _number(text, "batch", integer=True)


def _parallel(text: str) -> int:
    return _number(text, "parallel", integer=True)


def _price(text: str) -> float:
    return _number(text, "price")


def _power(text: str) -> float:
    return _number(text, "power")


def _link_gbps(text: str) -> float:
    return _number(text, "link_gbps")


def _latency_us(text: str) -> float:
    if text.strip() in ("0", "0.0"):
        return 0.0
    return _number(text, "latency_us")


def _gbps(text: str) -> float:
    return _number(text, "bandwidth_gbps")


def _tflops(text: str) -> float:
    return _number(text, "tflops")


def _add_build_arguments(c: argparse.ArgumentParser, scope: str = "with --runtime llama.cpp"
                         ) -> None:
    """--build-date and --llama-cpp-build: the llama.cpp build a forecast is for (one or the
    other; neither: today's build). The help names no reference day: reading it would import
    the measurement files' module at every start."""
    g = c.add_mutually_exclusive_group()
    g.add_argument("--build-date", metavar="YYYY-MM-DD",
                   help=f"{scope}: the day of the llama.cpp build to forecast (Ollama and LM "
                        "Studio bundle builds that lag); a build older than the fit's newest "
                        "llama.cpp row pays the fitted build drift per year of its age; that "
                        "row's day or later is today's build: no drift, the default. On an "
                        "NVIDIA GPU a build before b2824 (May 2024) ran without "
                        "CUDA graphs: name llama.cpp@no-cuda-graphs instead (no drift)")
    g.add_argument("--llama-cpp-build", metavar="N",
                   help=f"{scope}: the llama.cpp build number (llama-cli --version prints it), "
                        "dated from the builds the data date; another build: give its day "
                        "with --build-date")


def _describe_arguments(c: argparse.ArgumentParser) -> None:
    _add_model_arguments(c)
    c.add_argument("--batch", type=_batch, default=1, metavar="N",
                   help="sequences decoded together (default 1)")
    _add_speculative_arguments(c)
    _add_engine_arguments(c)
    c.add_argument("--runtime", metavar="NAME",
                   help="the runtime whose fitted forecast to show under the bound (llama.cpp, "
                        "exllamav2, ...; llama.cpp@no-cuda-graphs: a CUDA build or GPU without "
                        "CUDA graphs; case and punctuation do not matter: vllm is vLLM); default: a "
                        "runtime-agnostic forecast, wider interval")
    _add_build_arguments(c)
    c.add_argument("--explain", metavar="KEY[,KEY...]",
                   help="under the table, the formula behind each key (a JSON key or a step of "
                        "the plan), its inputs' values and the keys it reads; 'all': every "
                        "quantity the table prints; with --json, an \"explain\" object")
    _add_image_arguments(c)
    c.add_argument("--json", action="store_true", help="print one JSON object")


def _add_image_arguments(c: argparse.ArgumentParser) -> None:
    """--images and --image-size, as describe and plan take them."""
    c.add_argument("--images", type=_images, metavar="N",
                   help="images in the prompt (a vision-language model whose image rule is "
                        f"modelled: {', '.join(MODELLED_IMAGE_FAMILIES)}): their "
                        "tokens join the prompt and the cache (Llama 3.2 Vision: one token "
                        "each, and their states the cross-attention layers' cache), the "
                        "vision tower's time joins the time to first token")
    c.add_argument("--image-size", type=_image_size, metavar="WxH",
                   help="width x height of each image in pixels (default 1024x1024)")
    c.add_argument("--video-seconds", type=_video_seconds, metavar="S",
                   help="a video of S seconds in the prompt, beside any images (a model whose "
                        f"video rule is modelled: {', '.join(MODELLED_VIDEO_FAMILIES)}): its "
                        "sampled frames' tokens join the prompt and the cache, the vision "
                        "tower's time over them joins the time to first token")
    c.add_argument("--video-fps", type=_video_fps, metavar="F",
                   help="frames sampled per second of the video (default 2; at most "
                        f"{VIDEO_SOURCE_FPS}, the rate it is taken as recorded at)")
    c.add_argument("--video-size", type=_image_size, metavar="WxH",
                   help="width x height of the video's frames in pixels (default 1280x720)")
    c.add_argument("--video-audio", action="store_true", default=None,
                   help="with --video-seconds on Qwen2.5-Omni or Qwen3-Omni: the video's audio "
                        "track joins the prompt, interleaved with its frames as the processor "
                        "writes it (the tokens of a clip of the video's length, and "
                        "<|audio_bos|> / <|audio_eos|> around the video); the audio encoder's "
                        "time joins the time to first token")
    c.add_argument("--audio-seconds", type=_audio_seconds, metavar="S", nargs="+",
                   action=_Clips,
                   help="S seconds of audio in the prompt, beside any images or video (a model "
                        "whose audio encoder is modelled: Qwen2.5-Omni, Qwen3-Omni, Gemma 3n, "
                        "Gemma 4 E2B/E4B); several lengths (or the flag repeated) are several "
                        "clips, each with its own tokens: their "
                        "tokens join the prompt and the cache, the audio encoder's time joins "
                        "the time to first token")


def _check_image_arguments(ns: argparse.Namespace, model: Any = None) -> None:
    """The image and video options' pairings; with ``model`` (resolved), a video given to a
    model whose video rule is not modelled is a :class:`UsageError` naming both."""
    if ns.image_size is not None and ns.images is None:
        raise UsageError("--image-size needs --images N (how many images the prompt holds)")
    for option in ("video_fps", "video_size", "video_audio"):
        if getattr(ns, option, None) is not None and ns.video_seconds is None:
            raise UsageError(f"--{option.replace('_', '-')} needs --video-seconds S (how long "
                             "the prompt's video is)")
    if model is not None and ns.video_seconds is not None:
        from ..catalog.video import video_tower
        from ..core.errors import ConfigError

        try:
            video_tower(model)
        except ConfigError as err:
            raise UsageError(f"--video-seconds: {err}") from None
        if getattr(ns, "video_audio", None):
            from ..media import video_audio_inputs

            try:
                video_audio_inputs(model, ns.video_seconds)
            except ConfigError as err:
                raise UsageError(str(err)) from None
    if model is not None and getattr(ns, "audio_seconds", None) is not None:
        from ..catalog.audio import audio_encoder
        from ..core.errors import ConfigError

        try:
            audio_encoder(model)
        except ConfigError as err:
            raise UsageError(str(err)) from None


def _vision_given(ns: argparse.Namespace) -> bool:
    """Whether the prompt holds images or a video."""
    return getattr(ns, "images", None) is not None \
        or getattr(ns, "video_seconds", None) is not None \
        or getattr(ns, "audio_seconds", None) is not None


def _frontier_arguments(c: argparse.ArgumentParser) -> None:
    _add_model_arguments(c)
    c.add_argument("--batch", type=_batch, default=None, metavar="N",
                   help="largest batch size of the curve (default: up to the first that does "
                        "not fit)")
    c.add_argument("--json", action="store_true", help="print a JSON list of points")


def _plan_arguments(c: argparse.ArgumentParser) -> None:
    c.add_argument("model", metavar="MODEL",
                   help="catalog name (see 'models'), path to a Hugging Face config.json, or - "
                        "to read the config from standard input")
    c.add_argument("--ttft-ms", type=_ms, required=True, metavar="X",
                   help="time to first token target in milliseconds")
    c.add_argument("--tpot-ms", type=_ms, required=True, metavar="Y",
                   help="time per output token target in milliseconds")
    c.add_argument("--hardware", metavar="NAMES",
                   help="comma-separated catalog chips (default: every chip with a price)")
    c.add_argument("--price-per-hour", type=_price, metavar="X",
                   help="price of one chip for one hour in USD, for every chip searched")
    c.add_argument("--weights", metavar="FORMATS",
                   help="comma-separated weight formats or llama.cpp file types, as describe "
                        "--weights names them (mostly_q4_0: the Q4_0 file; q4_0: the block "
                        "format) (default: bf16,fp8,int4-g128)")
    c.add_argument("--prompt", type=_tokens, default=1024, metavar="N",
                   help="prompt tokens of a request (default 1024)")
    c.add_argument("--generate", type=_tokens, default=256, metavar="N",
                   help="tokens generated after the first (default 256)")
    c.add_argument("--max-batch", type=_batch, default=1024, metavar="N",
                   help="largest batch tried; every batch from 1 to it is tried (default 1024)")
    c.add_argument("--top", type=_batch, default=10, metavar="N",
                   help="configurations printed (default 10)")
    c.add_argument("--forecast", action="store_true",
                   help="hold the forecast, not the bound, to the targets and price it")
    c.add_argument("--runtime", metavar="NAME",
                   help="with --forecast: the fitted runtime whose terms to use (default: "
                        "runtime-agnostic)")
    _add_build_arguments(c, "with --forecast --runtime llama.cpp")
    _add_speculative_arguments(c)
    _add_image_arguments(c)
    c.add_argument("--json", action="store_true",
                   help="print one JSON object: configurations, frontier, prices (with "
                        "--images, the images as describe --json names them, and each "
                        "configuration's vision_prefill_seconds)")


def _catalog_arguments(as_json: str) -> Callable[[argparse.ArgumentParser], None]:
    def add(c: argparse.ArgumentParser) -> None:
        c.add_argument("--json", action="store_true", help=f"print one JSON object: {as_json}")
    return add


def _problems_arguments(c: argparse.ArgumentParser) -> None:
    c.add_argument("--roster", required=True, metavar="CSV",
                   help="CSV file with a header row and the columns id and name")
    c.add_argument("--key", required=True, metavar="KEYFILE",
                   help="the instructor's secret, outside the repository (created if missing)")
    c.add_argument("--out", required=True, metavar="DIR", help="output folder")
    c.add_argument("--pdf", action="store_true",
                   help="also print each set to PDF (Chromium through Playwright)")


def _formula_arguments(c: argparse.ArgumentParser) -> None:
    c.add_argument("name", nargs="?", help="formula name, e.g. kv_cache_bytes_per_token")
    c.add_argument("--list", action="store_true", help="list every formula with its unit")


#: Each command: its one-line help, its description and what adds its arguments.
COMMANDS: dict[str, tuple[str, str, Callable[[argparse.ArgumentParser], None]]] = {
    "describe": (
        "numbers for one model, optionally on one chip or a replica",
        "Parameter count, weight and KV-cache bytes, bytes and FLOPs per decoded token and, "
        "given a chip, the roofline bound on decode speed; with --tp, --prompt and the other "
        "serving options, the bounds of a replica serving requests (time to first token, time "
        "per output token, cost, energy).", _describe_arguments),
    "frontier": (
        "tokens/s per user and per chip over batch sizes",
        "The latency-throughput frontier of a model on a replica: for each batch size (powers "
        "of two, up to the first that does not fit), tokens/s per user (1 / TPOT) and per chip "
        "(batch / TPOT / chips).", _frontier_arguments),
    "plan": (
        "search deployments that meet a TTFT and a TPOT, cheapest first",
        "Search chips x tensor/expert/pipeline layouts x weight and KV formats x batch sizes (1 "
        "to --max-batch) for the configurations whose bounds meet the time to first token and "
        "the time per output token, ranked by the cost of a million output tokens at each "
        "chip's price per hour (the catalog's dated price table unless --price-per-hour is "
        "given), with the frontier of tokens/s per user against tokens/s per chip. Bounds: a "
        "real runtime is slower. Columns: TTFT ms, the prefill of one prompt alone; TPOT ms, "
        "one decode step of the whole batch at the request's mean context (--prompt + "
        "(--generate + 1) / 2 tokens: the mean of the decode steps' contexts); tok/s/user = "
        "1 / TPOT; tok/s/chip = batch / TPOT / chips, decode "
        "only; $/M tokens, the replica's price per hour over a million tokens at that rate: the "
        "prompts' prefill is neither timed between the decode steps nor priced. The frontier "
        "keeps the qualifying points no other beats on both tokens/s per user and per chip, "
        "each with its batch.", _plan_arguments),
    "models": (
        "list the model catalog", "List the catalog's models with parameter counts and sources.",
        _catalog_arguments("name -> parameter counts, source and the layer stack")),
    "hardware": (
        "list the hardware catalog",
        "List the catalog's devices with bandwidth, capacity, peak.",
        _catalog_arguments("name -> every field in the catalog's units (B/s, B, FLOP/s or, "
                           "for an integer precision's peak, OP/s, W, s), peaks dense and "
                           "sparse, each with its unit and source")),
    "problems": (
        "write one problem set per student, with answer keys",
        "Write one problem set per student of a roster (Markdown, and PDF with --pdf) into "
        "DIR/sets/, named by an opaque code, and the answer keys into DIR/keys/. Each variant "
        "is drawn with an HMAC of the student's id under the key.", _problems_arguments),
    "formula": (
        "print a formula's LaTeX", "Print the LaTeX of one of the package's formulas.",
        _formula_arguments),
}


def _program_name(argv0: str | None = None) -> str:
    """The program's name as the user typed it, for the usage lines (argparse's ``prog``):
    ``python -m llm_arithmetic`` when run as a module (``argv0``, ``sys.argv[0]`` by default,
    is then the package's ``__main__.py``), else the script's own name (``llm-arithmetic``, the
    console script of pyproject.toml).

    >>> _program_name("/env/bin/llm-arithmetic"), _program_name("/lib/llm_arithmetic/__main__.py")
    ('llm-arithmetic', 'python -m llm_arithmetic')
    """
    name = os.path.basename(sys.argv[0] if argv0 is None and sys.argv else argv0 or "")
    return f"python -m {PROG}" if name in ("", "__main__.py", "-m", "-c") else name


def build_parser(command: str | None = None, prog: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; given a ``command``, only that command's parser is built
    (what one run parses, built faster: the others would show only in the top-level help,
    which a run that names a command never prints). ``prog``: the program's name in the usage
    lines (default ``python -m llm_arithmetic``)."""
    p = _Parser(prog=prog or f"python -m {PROG}",
                description="LLM inference arithmetic: parameters, bytes, FLOPs and speed bounds.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (summary, description, add_arguments) in COMMANDS.items():
        if command is None or command == name:
            add_arguments(sub.add_parser(name, help=summary, description=description))
    return p


def _add_model_arguments(d: argparse.ArgumentParser) -> None:
    """The model, chip, format, workload and serving options shared by describe and frontier."""
    d.add_argument("model", metavar="MODEL",
                   help="catalog name (see 'models'), path to a Hugging Face config.json, or - "
                        "to read the config from standard input")
    hw = d.add_mutually_exclusive_group()
    hw.add_argument("--hardware", metavar="NAME", help="catalog device (see 'hardware')")
    hw.add_argument("--bandwidth-gbps", type=_gbps, metavar="X",
                    help="memory bandwidth in GB/s (10^9 B/s)")
    d.add_argument("--tflops", type=_tflops, metavar="Y",
                   help="dense peak in TFLOP/s (10^12); overrides the device's figure")
    w = d.add_mutually_exclusive_group()
    w.add_argument("--weights", metavar="FORMAT",
                   help="weight format: fp32, fp16, bf16, fp8, int8, int4, int4-g128, nvfp4 "
                        "(4.5 bits), mxfp4 (4.25), q8_0 (8.5), q4_0 (4.5), q4_k, q6_k, ..., or a "
                        "llama.cpp file type, bits computed per tensor for the model, named as "
                        "llama.cpp's enum names it (mostly_q4_0, mostly_q8_0, mostly_q6_k, "
                        "mostly_q2_k, mostly_q4_k_m, ...; q4_k_m, q5_k_m, q3_k_m and the other "
                        "names that are no block format also without mostly_; q4_0, q8_0, q6_k "
                        "and q2_k alone are the block formats, every weight at their bits); "
                        "default: as the checkpoint ships, tensor by "
                        "tensor from its quantization_config (its fp8 blocks, MXFP4, NVFP4 or "
                        "int groups and the modules it keeps at 16 bits; 16 bits without "
                        "one), computed "
                        "in its activations' format at the chip's peak for it (fp8, fp4, "
                        "int8) where it has one, else at 16 bits (weight-only schemes such as "
                        "Kimi K2.5's int4, and experts-only ones such as gpt-oss's MXFP4)")
    w.add_argument("--weight-bits", type=_bits, metavar="B",
                   help="bits per weight, scales included (e.g. 4.5)")
    d.add_argument("--kv-bits", type=_bits, default=None, metavar="B",
                   help="bits per KV-cache element (default: the checkpoint's, 8 where a "
                        "ModelOpt file asks for an fp8 cache as vLLM then allocates it, else "
                        "16); the convolution window of "
                        "state-space and linear-attention layers stays at 16 bits, as vLLM "
                        "keeps it")
    d.add_argument("--ssm-bits", type=_bits, default=None, metavar="B",
                   help="bits of the recurrent state (matrix) of state-space and "
                        "linear-attention layers (Mamba-2, Gated DeltaNet, KDA); default: the "
                        "dtype the checkpoint's config.json names (Nemotron-H's "
                        "mamba_ssm_cache_dtype, Qwen3.5's mamba_ssm_dtype: float32, 32 bits, "
                        "as vLLM keeps it), 32 bits for KDA layers (vLLM keeps them in "
                        "float32 whatever is asked), else 16 bits")
    d.add_argument("--context", type=_tokens, default=None, metavar="N",
                   help="tokens in each sequence's KV cache (default: the prompt length when "
                        "--prompt is given, else 1)")
    s = d.add_argument_group("serving (a replica of tp x pp chips)")
    s.add_argument("--tp", "--tensor-parallel-size", type=_parallel, default=1, metavar="N",
                   help="tensor-parallel degree (default 1)")
    s.add_argument("--ep", type=_parallel, default=1, metavar="N",
                   help="expert-parallel degree, over the same chips (default 1)")
    s.add_argument("--pp", "--pipeline-parallel-size", type=_parallel, default=1, metavar="N",
                   help="pipeline-parallel degree (default 1)")
    s.add_argument("--prompt", type=_tokens, metavar="N", help="prompt tokens of a request")
    s.add_argument("--generate", type=_generated, metavar="N",
                   help="tokens generated after the first (the decode steps; 0: the first "
                        "token alone)")
    s.add_argument("--price-per-hour", type=_price, metavar="X",
                   help="price of one chip for one hour, in USD")
    s.add_argument("--power-watts", type=_power, metavar="W",
                   help="power of one chip in W (default: the catalog's board power)")
    s.add_argument("--link-gbps", type=_link_gbps, metavar="X",
                   help="per-direction bandwidth of a chip's link to its peers in GB/s "
                        "(default: the catalog's interconnect)")
    _add_comm_options(s)


def _add_comm_options(s: Any) -> None:
    """The two tiers of communication (issue 27): latency, all-reduce algorithm, overlap,
    node-limited routing and the dispatch format."""
    s.add_argument("--link-latency-us", type=_latency_us, default=None, metavar="T",
                   help="latency of one collective step on every link in microseconds "
                        "(default: the catalog's per tier, else NCCL's 0.47 us NVLink, 1 us "
                        "PCIe, 2.7 us network; 0 leaves latency out)")
    s.add_argument("--allreduce", choices=("ring", "switch", "direct"), default=None,
                   help="all-reduce inside a scale-up domain: ring, in-switch reduction (NVLink "
                        "SHARP) or direct (one- or two-stage, every chip reading every peer); "
                        "default where the chip's switches reduce: the faster of in-switch and "
                        "direct, else direct where every chip reaches every other, else ring")
    s.add_argument("--serialize", action="store_true",
                   help="add communication after the work instead of overlapping it (the "
                        "bound overlaps; the *_serialized_seconds keys always give the sum)")
    s.add_argument("--node-limit", type=_parallel, default=None, metavar="M",
                   help="node-limited routing: a token's experts on at most M nodes "
                        "(DeepSeek-V3: 4)")
    s.add_argument("--dispatch", default=None, metavar="FORMAT",
                   help="format of the activations an expert-parallel dispatch sends "
                        "(fp8, bf16 or bits; default 16-bit)")


def _comm_kwargs(ns: argparse.Namespace) -> dict[str, Any]:
    """estimate()'s communication keywords from the options of :func:`_add_comm_options`."""
    dispatch = ns.dispatch
    if dispatch is not None:
        try:
            dispatch = float(dispatch)
        except ValueError:
            pass
    return dict(link_latency=None if ns.link_latency_us is None else ns.link_latency_us * 1e-6,
                allreduce=ns.allreduce, overlap=not ns.serialize, node_limit=ns.node_limit,
                dispatch_bits=dispatch)


def _ms(text: str) -> float:
    return _number(text, "ms")


def _within(text: str, noun: str, interval: str, inside: Callable[[float], bool]) -> float:
    """``text`` as a float for which ``inside`` holds, else a one-line error that gives
    ``noun`` and ``interval`` (``"a fraction"``, ``"(0, 1]"``)."""
    if len(text) > 40:
        raise argparse.ArgumentTypeError(f"expected {noun} in {interval}, got a "
                                         f"{len(text)}-character string")
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {noun} in {interval}, got {text!r}") from None
    if not inside(v):
        raise argparse.ArgumentTypeError(f"must be {noun} in {interval}, got {text}")
    return v


def _fraction(text: str) -> float:
    return _within(text, "a number", "[0, 1)", lambda v: 0 <= v < 1)


def _draft_len(text: str) -> int:
    return _number(text, "draft_len", integer=True)


def _draft_cost(text: str) -> float:
    if text.strip() in ("0", "0.0"):
        return 0.0
    return _number(text, "draft_cost")


def _add_speculative_arguments(d: argparse.ArgumentParser) -> None:
    """Speculative decoding: the bounds and the forecast of a speculative step over the tokens
    it yields (chapter 13)."""
    from ..speculative import SPECULATIVE_WORKLOADS

    s = d.add_argument_group("speculative decoding")
    s.add_argument("--speculation", choices=sorted(SPECULATIVE_WORKLOADS),
                   help="a workload with a published acceptance rate: "
                        + "; ".join(f"{k}: {v['draft_len']} drafted token(s), acceptance "
                                    f"{v['acceptance']}"
                                    + (f", for a model with a {v['module']} module"
                                       if v.get("module") else "")
                                    for k, v in SPECULATIVE_WORKLOADS.items()))
    s.add_argument("--draft-len", type=_draft_len, metavar="K",
                   help="tokens the draft proposes per step")
    s.add_argument("--acceptance", type=_fraction, metavar="A",
                   help="probability that the target accepts a drafted token (0 <= A < 1)")
    c = s.add_mutually_exclusive_group()
    c.add_argument("--draft-cost", type=_draft_cost, metavar="C",
                   help="a draft step's time relative to a target step (default 0)")
    c.add_argument("--draft", metavar="MODEL",
                   help="the draft model (catalog name or config.json): its cost is its decode "
                        "bound over the target's on one chip of the same kind, at the same "
                        "formats and batch (with --prompt, per output token of the request); "
                        "its vocab_size must be within 128 of the target's (one tokenizer)")


def _fraction_flag(text: str) -> float:
    return _within(text, "a memory fraction", "(0, 1]", lambda v: 0 < v <= 1)


def _gib(text: str) -> float:
    return _within(text, "a size in GiB", "[0, 1e6)", lambda v: 0 <= v < 1e6)


#: How the command line reads each engine rule's value (``engines.toml`` names the rules).
_ENGINE_TYPES = {"fraction": _fraction_flag, "max_model_len": _tokens,
                 "max_batched_tokens": _tokens, "max_seqs": _batch, "page": _tokens,
                 "ctx": lambda t: 0 if t.strip() == "0" else _tokens(t), "ubatch": _tokens,
                 "seqs": _batch, "kv_dtype": str, "type_k": str, "type_v": str,
                 "mamba_mode": str, "state_dtype": str, "ssm_dtype": str}


def _engine_dest(flag: str) -> str:
    return "engine_flag_" + flag.lstrip("-").replace("-", "_")


def _add_engine_arguments(d: argparse.ArgumentParser) -> None:
    """``--engine`` and every engine's own flags (``catalog/data/engines.toml``)."""
    from ..engine import ENGINES, SWITCHES, engine_flags

    g = d.add_argument_group("the engine's view (paste the engine's own flags)")
    g.add_argument("--engine", choices=sorted(ENGINES), metavar="NAME",
                   help="what this engine allocates on one chip: " + ", ".join(sorted(ENGINES)))
    g.add_argument("--engine-reserve-gib", type=_gib, metavar="X",
                   help="the engine's reserve beside weights and cache, as its log prints it "
                        "(activation peak, CUDA graphs, non-torch memory); default: an empirical "
                        "figure, engines.toml")
    g.add_argument("--engine-kv-memory-gib", type=_gib, metavar="X",
                   help="the cache memory the engine printed ('Available KV cache memory'): "
                        "tokens by the engine's own arithmetic")
    for flag, (rule, names) in engine_flags().items():
        if rule in SWITCHES:
            g.add_argument(flag, dest=_engine_dest(flag), action="store_true", default=None,
                           help=f"({', '.join(names)})")
        else:
            g.add_argument(flag, dest=_engine_dest(flag), type=_ENGINE_TYPES[rule],
                           metavar="X", help=f"({', '.join(names)})")


def _engine_given(ns: argparse.Namespace) -> dict[str, Any]:
    """The engine flags given on the command line, by the engine's own names."""
    from ..engine import engine_flags

    return {flag: getattr(ns, _engine_dest(flag)) for flag in engine_flags()
            if getattr(ns, _engine_dest(flag), None) is not None}


#: The warnings one command has printed (a draft's, raised by the estimate and again by the
#: engine view, is printed once); :func:`main` empties it.
_WARNED: list[str] = []
#: The program's name in error and warning lines: the usage lines' (:func:`_program_name`)
#: less ``python -m``, so ``llm-arithmetic: error:`` under ``usage: llm-arithmetic`` and
#: ``llm_arithmetic: error:`` under ``usage: python -m llm_arithmetic``; set by :func:`main`.
_NAME: list[str] = [PROG]


def _draft_flag(message: str) -> str:
    """A draft's warning names the option that gives the draft (every command that takes a
    draft model takes it as ``--draft``)."""
    return "--" + message if message.startswith("draft: ") else message


@contextlib.contextmanager
def _warnings_printed() -> Iterator[None]:
    """Run the block, then print each distinct warning it raised as one line on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for message in dict.fromkeys(str(w.message) for w in caught):
        if message not in _WARNED:
            print(f"{_NAME[0]}: warning: {_draft_flag(message)}", file=sys.stderr)
            _WARNED.append(message)


def _engine_view(ns: argparse.Namespace, model: Any) -> Any:
    from ..engine import engine_view

    flags = _engine_given(ns)
    if ns.engine is None:
        raise UsageError(f"{next(iter(flags))} is an engine's flag: it needs --engine NAME")
    with _warnings_printed():
        return engine_view(model, ns.engine, hardware=ns.hardware, tp=ns.tp, pp=ns.pp,
                           weights=ns.weights, bits_weight=ns.weight_bits, flags=flags,
                           reserve_gib=ns.engine_reserve_gib,
                           kv_memory_gib=ns.engine_kv_memory_gib,
                           speculation=getattr(ns, "speculation", None),
                           draft=getattr(ns, "draft", None))


def _estimate_kwargs(ns: argparse.Namespace) -> dict[str, Any]:
    from ..core.units import GB_S, TFLOP_S

    if ns.generate is not None and ns.prompt is None:
        raise UsageError("--generate needs --prompt (the request's prompt length)")
    # a bandwidth alone gives a time per token (the memory-bound one), and so a price
    if ns.price_per_hour is not None and not (ns.hardware or ns.bandwidth_gbps):
        raise UsageError("--price-per-hour needs the chip's speed to price: --hardware or "
                         "--bandwidth-gbps")
    # a communication option without the communication it changes would be ignored
    for flag, given in (("--node-limit", ns.node_limit is not None),
                        ("--dispatch", ns.dispatch is not None)):
        if given and ns.ep <= 1:
            raise UsageError(f"{flag} needs expert parallelism (--ep above 1): it shapes the "
                             "all-to-all that sends tokens to their experts, and there is none")
    if ns.serialize and max(ns.tp, ns.ep) <= 1:
        raise UsageError("--serialize needs communication to add after the work: --tp or --ep "
                         "above 1 (no all-reduce or all-to-all is counted without them)")
    return dict(
        hardware=ns.hardware, weights=ns.weights, bits_weight=ns.weight_bits,
        bits_kv=ns.kv_bits, bits_ssm=ns.ssm_bits,
        context=ns.context if ns.context is not None else ns.prompt or 1,
        bandwidth=ns.bandwidth_gbps * GB_S if ns.bandwidth_gbps else None,
        peak_flops=ns.tflops * TFLOP_S if ns.tflops else None, tp=ns.tp, ep=ns.ep, pp=ns.pp,
        prompt=ns.prompt, generate=ns.generate, price_per_hour=ns.price_per_hour,
        power_watts=ns.power_watts,
        link_bandwidth=ns.link_gbps * GB_S if ns.link_gbps else None, **_comm_kwargs(ns),
        **{k: getattr(ns, k) for k in ("speculation", "draft_len", "acceptance", "draft_cost",
                                       "draft") if getattr(ns, k, None) is not None})


def _image_kwargs(ns: argparse.Namespace, m: Any) -> dict[str, Any]:
    """estimate()'s ``images`` and ``image_size``, and the cache's context where --context is not
    given: the prompt's text tokens (--prompt, else none) and the images'."""
    from ..media import prompt_with_images

    kw: dict[str, Any] = {"images": ns.images, "image_size": ns.image_size,
                          **{k: getattr(ns, k, None) for k in VIDEO_OPTIONS},
                          "audio_seconds": getattr(ns, "audio_seconds", None)}
    if ns.context is None:   # the whole prompt, as estimate will make it
        kw["context"] = prompt_with_images(m, ns.prompt, ns.images, ns.image_size,
                                           *(kw[k] for k in VIDEO_OPTIONS[:3]),
                                           kw["audio_seconds"], kw["video_audio"])[1]
    return kw


#: The video's options, as estimate() names them.
VIDEO_OPTIONS = ("video_seconds", "video_fps", "video_size", "video_audio")


def _serving_given(ns: argparse.Namespace) -> bool:
    return (max(ns.tp, ns.ep, ns.pp) > 1 or ns.prompt is not None or ns.generate is not None
            or _vision_given(ns)
            or ns.price_per_hour is not None or ns.power_watts is not None
            or ns.link_gbps is not None)


def _resolve_runtime(ns: argparse.Namespace, params: dict[str, Any] | None = None) -> None:
    """--runtime as the stored fit (``params``, default: read it) names it (``vllm`` is
    ``vLLM``); unknown: exit 2."""
    from ..core.errors import InputError
    from ..forecast import resolve_runtime

    try:
        ns.runtime = resolve_runtime(ns.runtime, params)
    except InputError as err:
        raise UsageError(str(err)) from None


def _resolve_build(ns: argparse.Namespace, params: dict[str, Any] | None = None,
                   hardware: Any = "--hardware") -> float:
    """--build-date or --llama-cpp-build as the day of a llama.cpp build (``ns.build_date``,
    ISO) and its age [year] before the fit's reference day; 0 with neither. After
    :func:`_resolve_runtime`: a runtime without a build drift (any but llama.cpp, none named)
    exits 2 naming the option, as do an unknown build and a day that is not one, and a build
    the chip ``hardware`` (default: ``ns.hardware``) cannot have (a CUDA build before CUDA
    graphs on an NVIDIA GPU)."""
    from ..core.errors import InputError
    from ..forecast import build_age_years, llama_cpp_build_date

    option = "--llama-cpp-build" if ns.llama_cpp_build is not None else "--build-date"
    try:
        if ns.llama_cpp_build is not None:
            ns.build_date = llama_cpp_build_date(ns.llama_cpp_build)
        if hardware == "--hardware":
            hardware = getattr(ns, "hardware", None)
        return build_age_years(ns.build_date, ns.runtime, params, name=option,
                               hardware=hardware)
    except InputError as err:
        text = str(err)
        raise UsageError(text if text.startswith(option) else f"{option}: {text}") from None


def _describe(ns: argparse.Namespace) -> int:
    from ..arguments import resolve_model
    from ..estimate import estimate
    from ..forecast import expected
    from ..forecast_fit import load_params

    params = load_params()  # the stored fit, read once for the runtime's name and the forecast
    _resolve_runtime(ns, params)
    age = _resolve_build(ns, params)
    kwargs = _estimate_kwargs(ns)
    _check_image_arguments(ns)
    with _warnings_printed():
        m = resolve_model(ns.model)
        _check_image_arguments(ns, m)
        if _vision_given(ns):
            kwargs.update(_image_kwargs(ns, m))
        e = estimate(m, batch=ns.batch, **kwargs)
    x = expected(e, m.n_layers, ns.runtime, params=params, build_date=ns.build_date)
    v = _engine_view(ns, m) if ns.engine is not None or _engine_given(ns) else None
    serving = _serving_given(ns)
    explained = _explained(ns, e, x, serving, v)
    if ns.json:
        view = {} if v is None else {k: val for k, val in v.as_dict().items()
                                     if k.startswith(("engine_", "physics_", "max_concurrency"))}
        extra = {} if explained is None else {"explain": {k: ex.as_dict()
                                                          for k, ex in explained.items()}}
        # the build asked about (only where one was: without it the object is unchanged)
        build = {} if ns.build_date is None else {"forecast_build_date": ns.build_date,
                                                  "forecast_build_age_years": age}
        print(json.dumps({**e.as_dict(), **forecast_where_it_fits(x, e), **build, **view,
                          **extra}, indent=2))
    else:
        rows = table_rows(e, serving, m) + image_rows(e, m)
        column = label_width(rows)
        print(render(rows, column))
        if x["expected_decode_tokens_per_second"] is not None:
            # the forecast's values in the bound's column
            print(forecast_table({**x, "batch": e.batch, "n_chips": e.n_chips,
                                   "build_date": ns.build_date},
                                  serving=serving, fits=e.fits,
                                  fits_per_chip=e.fits_per_chip, width=column,
                                  speculative=e.spec_tokens_per_step is not None,
                                  without=(e.fits_without_draft,
                                           e.fits_per_chip_without_draft)))
        elif x["runtime"]:
            # a forecast stretches a bound in time: with no chip there is none to stretch
            print(render([(f"forecast (with {x['runtime']})",
                            "- (needs a chip: --hardware or --bandwidth-gbps)")], column))
        if v is not None:
            print(engine_table(v, reserve_given=ns.engine_reserve_gib is not None))
        for ex in (explained or {}).values():
            print("\n" + "\n".join(ex.lines()))
    return 0


def _explained(ns: argparse.Namespace, e: Any, x: dict[str, Any], serving: bool,
               v: Any = None) -> dict[str, Any] | None:
    """``--explain``'s keys, each with its :class:`~llm_arithmetic.explain.Explanation` (an
    engine's key, with ``--engine``, from the engine view ``v``); an unknown key exits 2
    naming the known ones."""
    if ns.explain is None:
        return None
    from dataclasses import replace

    from ..core.errors import InputError
    from ..explain import engine_key_steps, explain, explain_keys

    asked = [k.strip() for k in ns.explain.split(",") if k.strip()]
    keys = asked
    if asked == ["all"]:
        keys = printed_keys(e, x, serving) + ([] if v is None else engine_printed_keys(v))
    engine_keys = engine_key_steps() if v is not None else {}
    # a forecast the table and --json leave out (the setup does not fit in memory) is not
    # given a number here either
    unfit = {k for k, val in forecast_where_it_fits(x, e).items()
             if val is None and x.get(k) is not None}
    out = {}
    for key in keys:
        try:
            out[key] = explain(v, key) if key in engine_keys else \
                explain(e, key, runtime=ns.runtime, options=_describe_options(),
                        build_date=ns.build_date)
        except InputError:
            known = explain_keys(e) + list(engine_keys)
            raise UsageError(f"--explain: unknown key {key[:60]!r}; known: "
                             f"{', '.join(['all', *known])}") from None
        if key in unfit:
            without = (e.fits_without_draft if key == "expected_decode_tokens_per_second"
                       else e.fits_per_chip_without_draft)
            out[key] = replace(out[key], value=None, substituted="", forecast="",
                               value_text=f"- ({unfit_text(without)})")
    return out


@functools.lru_cache(maxsize=1)
def _describe_options() -> dict[str, str]:
    """``describe``'s options by the name of what they give (``price_per_hour``:
    ``--price-per-hour``), for an explanation that names an option not given."""
    out = {a.dest: max(a.option_strings, key=len)
           for a in _subparser(build_parser("describe"), "describe")._actions
           if a.option_strings}
    # estimate's keywords that an option gives in other units or under another name
    out.update({k: out[dest] for k, dest in _KEYWORD_OPTIONS.items()})
    return out


#: estimate's keyword -> the describe option (its dest) that gives it.
_KEYWORD_OPTIONS = {"bandwidth": "bandwidth_gbps", "peak_flops": "tflops",
                    "link_bandwidth": "link_gbps", "link_latency": "link_latency_us",
                    "bits_weight": "weight_bits", "bits_kv": "kv_bits", "bits_ssm": "ssm_bits",
                    "dispatch_bits": "dispatch"}


def _frontier(ns: argparse.Namespace) -> int:
    from ..arguments import resolve_model
    from ..estimate import estimate
    from ..sweeps import frontier

    if ns.context is not None and ns.prompt is not None:
        # the curve is of times per output token, at the request's mean decode context: a
        # --context beside --prompt changed nothing on it (describe prints both)
        raise UsageError("--context: with --prompt the frontier's times per output token are "
                         "at the request's mean decode context (prompt + (generate + 1) / 2), "
                         "so a context would be ignored; give one of them")
    kwargs = _estimate_kwargs(ns)
    batches = None
    if ns.batch is not None:
        batches = [1 << k for k in range(ns.batch.bit_length()) if 1 << k <= ns.batch]
        if batches[-1] != ns.batch:
            batches.append(ns.batch)
    with _warnings_printed():
        model = resolve_model(ns.model)  # once: "-" is standard input, read once
        first = estimate(model, batch=1, **kwargs)  # checks the arguments once
        points = frontier(model, batches=batches, **kwargs)
    if first.bandwidth is None:
        raise UsageError("the frontier needs a chip: give --hardware or --bandwidth-gbps")
    if first.tpot_seconds is None:
        raise UsageError(f"{first.model}: the frontier needs the time per output token, which "
                         "is not counted (the warning above says why)")
    if ns.json:
        print(json.dumps(points, indent=2))
        return 0
    chips = f"{first.n_chips} x {first.hardware or 'chip'}"
    print(f"{first.model} on {chips} (tp {first.tp}, ep {first.ep}, pp {first.pp}), "
          f"{first.bits_weight:.3g}-bit weights, decode context "
          f"{tokens_text(first.serving_context)}")
    # what the times leave out, as describe's table says it: without a compute peak a TPOT is
    # the memory traffic's alone (tokens/s per chip then grows with the batch without end), and
    # without a link the chips' collectives are not counted
    if first.peak_flops is None:
        print("TPOT: memory traffic only (no compute peak for this chip, give --tflops)")
    if first.link_bandwidth is None and max(first.tp, first.ep) > 1:
        print("TPOT: communication not counted (no link bandwidth for this chip, give "
              "--link-gbps)")
    head = ("batch", "TPOT (ms)", "tokens/s/user", "tokens/s/chip", "GB/chip", "fits")
    rows = [(f"{p['batch']:,}", f"{p['tpot_seconds'] * 1e3:,.2f}",
             f"{p['tokens_per_second_per_user']:,.1f}",
             f"{p['tokens_per_second_per_chip']:,.1f}",
             f"{p['memory_per_chip_bytes'] / 1e9:,.1f}",
             "-" if p["fits"] is None else "yes" if p["fits"] else "no") for p in points]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
    return 0


def _plan(ns: argparse.Namespace) -> int:
    from ..catalog.images import DEFAULT_IMAGE_SIZE
    from ..catalog.video import DEFAULT_VIDEO_FPS, DEFAULT_VIDEO_SIZE
    from ..deploy import DEFAULT_MAX_BATCH, DEFAULT_WEIGHTS, IMAGE_KEYS, load_prices, search

    if ns.forecast:
        _resolve_runtime(ns)
        # the chips' own check is the search's (it skips a chip the build cannot run on, and
        # refuses where none is left): here one chip only, a list checked there
        chips = [x for x in (ns.hardware or "").split(",") if x.strip()]
        _resolve_build(ns, hardware=chips[0].strip() if len(chips) == 1 else None)
    elif ns.build_date is not None or ns.llama_cpp_build is not None:
        option = "--build-date" if ns.build_date is not None else "--llama-cpp-build"
        raise UsageError(f"{option}: a build dates the forecast's llama.cpp terms; ask for the "
                         "forecast (--forecast --runtime llama.cpp)")
    split = (lambda t: [x.strip() for x in t.split(",") if x.strip()] if t else None)
    spec = {k: getattr(ns, k) for k in ("speculation", "draft_len", "acceptance", "draft_cost",
                                        "draft") if getattr(ns, k, None) is not None}
    _check_image_arguments(ns)
    model = ns.model
    if ns.video_seconds is not None or ns.audio_seconds is not None:
        from ..arguments import resolve_model

        model = resolve_model(ns.model)  # once: "-" is standard input, read once
        _check_image_arguments(ns, model)
    with _warnings_printed():
        r = search(model, ttft=ns.ttft_ms / 1e3, tpot=ns.tpot_ms / 1e3,
                   hardware=split(ns.hardware), price_per_hour=ns.price_per_hour,
                   prompt=ns.prompt, generate=ns.generate,
                   weights=split(ns.weights) or DEFAULT_WEIGHTS,
                   max_batch=ns.max_batch or DEFAULT_MAX_BATCH, forecast=ns.forecast,
                   runtime=ns.runtime, images=ns.images, image_size=ns.image_size,
                   **{k: getattr(ns, k, None) for k in VIDEO_OPTIONS},
                   audio_seconds=ns.audio_seconds, **spec,
                   **({"build_date": ns.build_date} if ns.build_date else {}))
    prices = load_prices()
    used = sorted({c["hardware"] for c in r.configurations[:ns.top]})
    sources = {c: prices[c] for c in used if c in prices and ns.price_per_hour is None}
    if ns.json:
        print(json.dumps({"model": r.model, "ttft_target_seconds": r.ttft_target,
                          "tpot_target_seconds": r.tpot_target, "evaluated": r.evaluated,
                          "seconds": r.seconds, "configurations": r.configurations,
                          "frontier": r.frontier, "prices": sources,
                          "excluded_by_draft": len(r.excluded_by_draft),
                          "excluded_by_draft_layouts": r.excluded_by_draft,
                          # describe's image keys, null without --images (each
                          # configuration holds its tower's vision_prefill_seconds)
                          **{k: (r.images or {}).get(k) for k in IMAGE_KEYS},
                          # the chips left out whole, each with why (a build they cannot run)
                          "chips_refused": r.chips_refused}, indent=1))
        return 0
    # the images' tokens are in every request's prompt beside the text's
    shown = "" if ns.images is None else (
        " text tokens + {:,} image{} of {} x {} px".format(
            ns.images, "s" if ns.images != 1 else "", *(ns.image_size or DEFAULT_IMAGE_SIZE)))
    if ns.video_seconds is not None:
        shown = (shown or " text tokens") + " + a video of {:g} s at {:g} fps, {} x {} px".format(
            ns.video_seconds, ns.video_fps or DEFAULT_VIDEO_FPS,
            *(ns.video_size or DEFAULT_VIDEO_SIZE))
    if ns.video_audio:
        shown += " with its audio track"
    if ns.audio_seconds is not None:
        shown += f" + {seconds_text(ns.audio_seconds)} of audio"
    print(f"{r.model}: prompt {ns.prompt:,}{shown}, {ns.generate:,} generated; TTFT <= "
          f"{ns.ttft_ms:g} ms, TPOT <= {ns.tpot_ms:g} ms ("
          + (f"forecast, {ns.runtime or 'any runtime'}" if ns.forecast else "bounds")
          + (f", build of {ns.build_date}" if ns.forecast and ns.build_date else "")
          # with speculation, TPOT and what follows from it are the speculative step's
          + ("; TPOT speculative: " + ", ".join(f"{k.replace('_', ' ')} {v}"
                                                for k, v in spec.items()) if spec else "")
          + f"); {r.evaluated:,} "
          f"configurations in {r.seconds:.2f} s")
    for why in dict.fromkeys(r.chips_refused.values()):  # chips left out, grouped by why
        names = [c for c, w in r.chips_refused.items() if w == why]
        print(f"not searched ({', '.join(names)}): {why.removeprefix('build_date: ')}")
    if r.excluded_by_draft:
        n = len(r.excluded_by_draft)
        print(f"{n:,} layout{'s' if n != 1 else ''} (chip, weights, KV, tp/ep/pp) "
              f"{'fit' if n != 1 else 'fits'} the model alone but at no batch with the "
              "draft's weights and cache beside it: the draft is what excluded "
              f"{'them' if n != 1 else 'it'} ("
              + ", ".join(f"{c['hardware']} {c['weights']} {c['kv_bits']:g}-bit KV "
                          f"{c['tp']}/{c['ep']}/{c['pp']}" for c in r.excluded_by_draft[:4])
              + (", ..." if n > 4 else "") + ")")
    if not r.configurations:
        print("no configuration meets the targets")
        return 0
    head = ("chips", "tp/ep/pp", "weights", "KV", "batch", "TTFT ms", "TPOT ms",
            "tok/s/user", "tok/s/chip", "$/M tokens")
    rows = [(f"{c['n_chips']} x {c['hardware']}", f"{c['tp']}/{c['ep']}/{c['pp']}", c["weights"],
             f"{c['kv_bits']:g}-bit", f"{c['batch']:,}", f"{c['ttft_seconds'] * 1e3:,.1f}",
             f"{c['tpot_seconds'] * 1e3:,.2f}", f"{c['tokens_per_second_per_user']:,.1f}",
             f"{c['tokens_per_second_per_chip']:,.0f}", f"{c['cost_per_million_tokens']:,.4f}")
            for c in r.configurations[:ns.top]]
    print_columns(head, rows)
    f = r.frontier
    pick = sorted({round(i * (len(f) - 1) / 7) for i in range(8)}) if len(f) > 8 \
        else range(len(f))
    print(f"\nfrontier ({len(f):,} points no other beats on both; {len(pick)} shown): "
          "tokens/s per user -> per chip")
    print_columns(("tok/s/user", "tok/s/chip", "batch", "configuration"),
                   [(f"{f[i]['tokens_per_second_per_user']:,.1f}",
                     f"{f[i]['tokens_per_second_per_chip']:,.0f}", f"{f[i]['batch']:,}",
                     f"{f[i]['hardware']} tp {f[i]['tp']} ep {f[i]['ep']} pp {f[i]['pp']}, "
                     f"{f[i]['weights']}, {f[i]['kv_bits']:g}-bit KV") for i in pick])
    for c, p in sources.items():
        print(f"price {c}: ${p['usd_per_hour']:g}/h, {p['offer']} ({p['date']}; {p['url']})")
    return 0


def _subparser(parser: argparse.ArgumentParser, command: str) -> Any:
    """The parser of one of ``parser``'s commands (None for a name it has not)."""
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return subs.choices.get(command)


def _as_flag(msg: str, parser: argparse.ArgumentParser, ns: Any) -> str:
    """An error that starts with an API keyword (``draft_len: ...``) names the command's flag
    that gives it (``--draft-len: ...``; ``draft: ...`` ``--draft: ...``), where the command
    has one."""
    m = re.match(r"([a-z]+(?:_[a-z]+)*):", msg)
    sub = _subparser(parser, getattr(ns, "command", None) or "")
    flag = "--" + m.group(1).replace("_", "-") if m else None
    if flag and sub is not None and flag in sub._option_string_actions:
        return flag + msg[m.end(1):]
    return msg


def _read_file(option: str, path: str, read: Any) -> Any:
    """``read(path)``; a file that cannot be opened or is not UTF-8 text is named with its
    option and the reason (a UnicodeDecodeError's first argument is only the codec's name)."""
    try:
        return read(path)
    except OSError as e:
        raise UsageError(f"{option}: {e.filename or path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise UsageError(f"{option}: {path} is not UTF-8 text (byte {e.start}: {e.reason})") \
            from None


def _models(as_json: bool = False) -> int:
    from ..catalog.model_catalog import CATALOG

    if as_json:
        from ..book.export import model_data

        out = {}
        for name, entry in CATALOG.items():
            out[name] = {"params_total": entry.model.total_params,
                         "params_active": entry.model.active_params, **model_data(entry)}
        print(json.dumps(out, indent=1))
        return 0
    for name, entry in CATALOG.items():
        m = entry.model
        # billions spelled out: "B" is bytes everywhere else in this command line
        print(f"{name:<20} {m.total_params / 1e9:9.3f} billion params "
              f"({m.active_params / 1e9:.3f} billion active)  {entry.url}")
    return 0


def _hardware(as_json: bool = False) -> int:
    from fractions import Fraction

    from ..catalog.formats import compute_precision
    from ..catalog.hardware import HARDWARE, hardware_record

    if as_json:
        print(json.dumps({name: hardware_record(h) for name, h in HARDWARE.items()}, indent=1))
        return 0
    for name, h in HARDWARE.items():
        # the peak a 16-bit model computes at, named: the estimate's own precision chain (its
        # first entry where the chip lists none of it: then no peak is printed)
        prec = compute_precision(None, Fraction(16), h.peaks)
        prec = prec if prec in h.peaks else None
        pk = f"{h.peaks[prec].rate / 1e12:8.2f} TFLOP/s ({prec})" if prec else " " * 22
        print(f"{name:<16} {h.bandwidth / 1e9:8.1f} GB/s {h.capacity / 2**30:7.1f} GiB {pk}  "
              f"{h.source}")
    return 0


def _formula(ns: argparse.Namespace) -> int:
    from ..articles import all_formulas

    formulas = all_formulas()
    if ns.list or not ns.name:
        for name, f in sorted(formulas.items()):
            print(f"{name:<36} [{f.unit}]  {f.summary[:70]}")
        return 0
    if ns.name not in formulas:
        from ..core.lookup import did_you_mean

        raise UsageError(f"unknown formula {ns.name[:60]!r}"
                         f"{did_you_mean(ns.name, formulas, cutoff=0.5)}")
    print(formulas[ns.name].latex())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (``argv``, or the process's arguments); returns the exit status."""
    if argv is None:
        # The process is this command (``python -m llm_arithmetic``, ``llm-arithmetic``): what
        # the imports built lives until it exits, so the cyclic garbage collector is told not to
        # walk it again, at every collection and once more at exit.
        gc.freeze()
    args = list(sys.argv[1:] if argv is None else argv)
    _WARNED.clear()  # a warning is printed once a command
    # run as a process, the usage lines name the program as it was typed (the console script or
    # python -m); called with arguments from Python, as the module
    parser = build_parser(args[0] if args and args[0] in COMMANDS else None,
                          prog=_program_name() if argv is None else None)
    _NAME[0] = parser.prog.removeprefix("python -m ")
    ns = None
    try:
        ns = parser.parse_args(args)
        if ns.command == "describe":
            return _describe(ns)
        if ns.command == "frontier":
            return _frontier(ns)
        if ns.command == "plan":
            return _plan(ns)
        if ns.command == "models":
            return _models(ns.json)
        if ns.command == "hardware":
            return _hardware(ns.json)
        if ns.command == "problems":
            from ..teaching.problems import read_key, read_roster, write_sets
            key_existed = os.path.exists(os.path.expanduser(ns.key))
            key, roster = _read_file("--key", ns.key, read_key), \
                _read_file("--roster", ns.roster, read_roster)
            written = write_sets(roster, key, ns.out, pdf=ns.pdf)
            out = os.path.expanduser(ns.out)
            if not key_existed:
                print(f"created the key {ns.key}: keep it secret and keep it, it redraws the sets")
            print(f"wrote {len(written['sets'])} problem set(s) to {os.path.join(out, 'sets')}"
                  + (f" (with {len(written['pdfs'])} PDF)" if written["pdfs"] else "")
                  + f" and their keys to {os.path.join(out, 'keys')}: hand out sets/, keep keys/")
            return 0
        if ns.command == "formula":
            return _formula(ns)
        parser.print_help()
        return 2
    except UsageError as e:
        print(f"{_NAME[0]}: error: {_as_flag(str(e), parser, ns)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`... | head`): stop quietly with the shell's status for SIGPIPE,
        # and send what Python still flushes at exit to /dev/null instead of the closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (ValueError, KeyError, OverflowError, RecursionError, MemoryError, OSError) as e:
        # InputError and ConfigError are ValueErrors; the others are guards against anything
        # that still escapes them (a message, never a traceback)
        msg = str(e.args[0]) if e.args else type(e).__name__
        if isinstance(e, OSError) and e.strerror:
            # the system's own error (a file not found, a folder where a file was wanted): its
            # first argument is the errno, so the line names the file and says what went wrong
            msg = f"{e.filename}: {e.strerror}" if e.filename is not None else e.strerror
        msg = _as_flag(msg.splitlines()[0], parser, ns) if msg else type(e).__name__
        print(f"{_NAME[0]}: error: {msg}", file=sys.stderr)
        return 2
