"""Command line: ``python -m llm_arithmetic describe MODEL [options]`` (or ``llm-arithmetic``).

Commands
--------
describe   bytes, FLOPs and speed bounds of one model (catalog name, config.json, or - for
           standard input), optionally on a chip, or on a replica of tp x pp chips serving
           requests (--tp, --ep, --pp, --prompt, --generate, --price-per-hour, --power-watts)
frontier   the latency-throughput frontier: tokens/s per user and per chip over batch sizes
models     the model catalog
hardware   the hardware catalog
formula    the LaTeX of a formula (``formula --list`` names them all)
problems   one problem set per student of a roster, with answer keys

Units at this edge are the ones people quote: GB/s and TFLOP/s (decimal); inside, the package
works in B/s and FLOP/s. Every bad input ends with one line on standard error naming the
problem and exit status 2; a context beyond the model's trained context prints a warning line.
``describe`` imports no sympy, so it starts fast.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import warnings
from typing import Any, Sequence

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
}


class UsageError(Exception):
    """A problem with the user's input; printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
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


def _tokens(text: str) -> int:
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


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=f"python -m {PROG}",
                description="LLM inference arithmetic: parameters, bytes, FLOPs and speed bounds.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    d = sub.add_parser(
        "describe", help="numbers for one model, optionally on one chip or a replica",
        description="Parameter count, weight and KV-cache bytes, bytes and FLOPs per decoded "
                    "token and, given a chip, the roofline bound on decode speed; with --tp, "
                    "--prompt and the other serving options, the bounds of a replica serving "
                    "requests (time to first token, time per output token, cost, energy).")
    _add_model_arguments(d)
    d.add_argument("--batch", type=_batch, default=1, metavar="N",
                   help="sequences decoded together (default 1)")
    d.add_argument("--json", action="store_true", help="print one JSON object")
    fr = sub.add_parser(
        "frontier", help="tokens/s per user and per chip over batch sizes",
        description="The latency-throughput frontier of a model on a replica: for each batch "
                    "size (powers of two, up to the first that does not fit), tokens/s per user "
                    "(1 / TPOT) and per chip (batch / TPOT / chips).")
    _add_model_arguments(fr)
    fr.add_argument("--batch", type=_batch, default=None, metavar="N",
                    help="largest batch size of the curve (default: up to the first that does "
                         "not fit)")
    fr.add_argument("--json", action="store_true", help="print a JSON list of points")

    for name, noun, listed, as_json in (
            ("models", "model", "models with parameter counts and sources",
             "name -> parameter counts, source and the layer stack"),
            ("hardware", "hardware", "devices with bandwidth, capacity, peak",
             "name -> every field in the catalog's units (B/s, B, FLOP/s, W, s), peaks dense "
             "and sparse, each with its source")):
        c = sub.add_parser(name, help=f"list the {noun} catalog",
                           description=f"List the catalog's {listed}.")
        c.add_argument("--json", action="store_true", help=f"print one JSON object: {as_json}")
    pr = sub.add_parser("problems", help="write one problem set per student, with answer keys",
                        description="Write one problem set per student of a roster (Markdown, "
                                    "and PDF with --pdf) into DIR/sets/, named by an opaque "
                                    "code, and the answer keys into DIR/keys/. Each variant is "
                                    "drawn with an HMAC of the student's id under the key.")
    pr.add_argument("--roster", required=True, metavar="CSV",
                    help="CSV file with a header row and the columns id and name")
    pr.add_argument("--key", required=True, metavar="KEYFILE",
                    help="the instructor's secret, outside the repository (created if missing)")
    pr.add_argument("--out", required=True, metavar="DIR", help="output folder")
    pr.add_argument("--pdf", action="store_true",
                    help="also print each set to PDF (Chromium through Playwright)")
    f = sub.add_parser("formula", help="print a formula's LaTeX",
                       description="Print the LaTeX of one of the package's formulas.")
    f.add_argument("name", nargs="?", help="formula name, e.g. kv_cache_bytes_per_token")
    f.add_argument("--list", action="store_true", help="list every formula with its unit")
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
                        "llama.cpp file type (q4_k_m, q5_k_m, q3_k_m, ...: bits computed per "
                        "tensor for the model); default: as the checkpoint ships (16 bits, "
                        "gpt-oss's MXFP4 experts)")
    w.add_argument("--weight-bits", type=_bits, metavar="B",
                   help="bits per weight, scales included (e.g. 4.5)")
    d.add_argument("--kv-bits", type=_bits, default=16.0, metavar="B",
                   help="bits per KV-cache element (default 16)")
    d.add_argument("--context", type=_tokens, default=None, metavar="N",
                   help="tokens in each sequence's KV cache (default: the prompt length when "
                        "--prompt is given, else 1)")
    s = d.add_argument_group("serving (a replica of tp x pp chips)")
    s.add_argument("--tp", type=_parallel, default=1, metavar="N",
                   help="tensor-parallel degree (default 1)")
    s.add_argument("--ep", type=_parallel, default=1, metavar="N",
                   help="expert-parallel degree, over the same chips (default 1)")
    s.add_argument("--pp", type=_parallel, default=1, metavar="N",
                   help="pipeline-parallel degree (default 1)")
    s.add_argument("--prompt", type=_tokens, metavar="N", help="prompt tokens of a request")
    s.add_argument("--generate", type=_tokens, metavar="N",
                   help="tokens generated after the first (the decode steps)")
    s.add_argument("--price-per-hour", type=_price, metavar="X",
                   help="price of one chip for one hour, in USD")
    s.add_argument("--power-watts", type=_power, metavar="W",
                   help="power of one chip in W (default: the catalog's board power)")
    s.add_argument("--link-gbps", type=_link_gbps, metavar="X",
                   help="per-direction bandwidth of a chip's link to its peers in GB/s "
                        "(default: the catalog's interconnect)")
    s.add_argument("--link-latency-us", type=_latency_us, default=0.0, metavar="T",
                   help="latency of one hop in microseconds (default 0)")


def _estimate_kwargs(ns: argparse.Namespace) -> dict[str, Any]:
    from .core.units import GB_S, TFLOP_S

    if ns.generate is not None and ns.prompt is None:
        raise UsageError("--generate needs --prompt (the request's prompt length)")
    return dict(
        hardware=ns.hardware, weights=ns.weights, bits_weight=ns.weight_bits,
        bits_kv=ns.kv_bits,
        context=ns.context if ns.context is not None else ns.prompt or 1,
        bandwidth=ns.bandwidth_gbps * GB_S if ns.bandwidth_gbps else None,
        peak_flops=ns.tflops * TFLOP_S if ns.tflops else None, tp=ns.tp, ep=ns.ep, pp=ns.pp,
        prompt=ns.prompt, generate=ns.generate, price_per_hour=ns.price_per_hour,
        power_watts=ns.power_watts,
        link_bandwidth=ns.link_gbps * GB_S if ns.link_gbps else None,
        link_latency=ns.link_latency_us * 1e-6)


def _serving_given(ns: argparse.Namespace) -> bool:
    return (max(ns.tp, ns.ep, ns.pp) > 1 or ns.prompt is not None or ns.generate is not None
            or ns.price_per_hour is not None or ns.power_watts is not None
            or ns.link_gbps is not None)


def _describe(ns: argparse.Namespace) -> int:
    from .estimate import estimate

    kwargs = _estimate_kwargs(ns)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e = estimate(ns.model, batch=ns.batch, **kwargs)
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)
    if ns.json:
        print(json.dumps(e.as_dict(), indent=2))
    else:
        print(_table(e, serving=_serving_given(ns)))
    return 0


def _frontier(ns: argparse.Namespace) -> int:
    from .estimate import estimate, frontier

    kwargs = _estimate_kwargs(ns)
    batches = None
    if ns.batch is not None:
        batches = [1 << k for k in range(ns.batch.bit_length()) if 1 << k <= ns.batch]
        if batches[-1] != ns.batch:
            batches.append(ns.batch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = estimate(ns.model, batch=1, **kwargs)  # checks the arguments once
        points = frontier(ns.model, batches=batches, **kwargs)
    for w in {str(w.message) for w in caught}:
        print(f"{PROG}: warning: {w}", file=sys.stderr)
    if first.tpot_seconds is None:
        raise UsageError("the frontier needs a chip: give --hardware or --bandwidth-gbps")
    if ns.json:
        print(json.dumps(points, indent=2))
        return 0
    chips = f"{first.n_chips} x {first.hardware or 'chip'}"
    print(f"{first.model} on {chips} (tp {first.tp}, ep {first.ep}, pp {first.pp}), "
          f"{first.bits_weight:g}-bit weights, decode context "
          f"{_tokens_text(first.serving_context)}")
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


def _fmt_b(n: float) -> str:
    if n >= 1e9:
        return f"{n:,.0f} B ({n / 1e9:,.3f} GB, {n / 2**30:,.3f} GiB)"
    return f"{n:,.0f} B ({n / 1e6:,.3f} MB, {n / 2**20:,.3f} MiB)"


def _table(e: Any, serving: bool = False) -> str:
    rows: list[tuple[str, str]] = [
        ("model", e.model),
        ("hardware", e.hardware or "-"),
        ("weights", f"{e.bits_weight:g} bits/weight; KV cache {e.bits_kv:g} bits/element"),
        ("context x batch", f"{e.context:,} tokens x {e.batch:,}"),
        *([("attended context (windows)", f"{float(e.attended_context):,.0f} tokens per layer")]
          if e.attended_context != e.context else []),
        ("parameters (total)", f"{e.params_total:,}"),
        *([(f"  of which {name}", f"{n:,}") for name, n in e.params_extra.items()]),
        ("parameters (active per token)", f"{e.params_active:,}"),
        ("parameters in matrix products", f"{e.params_matmul:,}"),
        ("weight bytes", _fmt_b(e.weight_bytes)),
        ("KV cache per token", _fmt_b(e.kv_cache_bytes_per_token)),
        ("KV cache (context x batch)", _fmt_b(e.kv_cache_bytes)),
        *([("KV cache if no layer were windowed", _fmt_b(e.kv_cache_bytes_full_storage))]
          if e.kv_cache_bytes_full_storage != e.kv_cache_bytes else []),
        *([("state-space state (batch)", _fmt_b(e.state_bytes))] if e.state_bytes else []),
        ("bytes read per token (1 sequence)", _fmt_b(e.decode_bytes_per_token)),
        ("FLOPs per token", f"{e.decode_flops_per_token:,.0f} FLOP"),
    ]
    if e.bandwidth is not None:
        rows.append(("bandwidth", f"{e.bandwidth / 1e9:,.1f} GB/s"))
    if e.peak_flops is not None:
        rows.append((f"dense peak ({e.compute_precision})", f"{e.peak_flops / 1e12:,.1f} TFLOP/s"))
    if e.decode_memory_seconds is not None:
        rows.append(("memory time per step", f"{e.decode_memory_seconds * 1e3:,.3f} ms"))
    if e.decode_compute_seconds is not None:
        rows.append(("compute time per step", f"{e.decode_compute_seconds * 1e3:,.3f} ms"))
    # With a replica, the rows above it describe one chip alone; a setup that does not fit in
    # memory has no speed to achieve, so its speeds are not printed as if it had one.
    one = "one chip: " if serving else ""
    if e.decode_seconds_per_token is not None:
        rows.append((f"{one}time per token (lower bound)",
                     f"{e.decode_seconds_per_token * 1e3:,.3f} ms ({e.bound}-bound)"
                     + ("; does not fit in memory" if e.fits is False else "")))
        rows += _speed_rows(e.fits, [
            (f"{one}tokens/s per sequence (upper bound)", f"{e.decode_tokens_per_second:,.1f}"),
            (f"{one}tokens/s, whole batch", f"{e.throughput_tokens_per_second:,.1f}")])
    if e.ops_per_byte is not None:
        rows.append(("ops:byte of the chip", f"{e.ops_per_byte:,.1f} FLOP/B"))
        crit = "never (KV-cache traffic grows faster)" if e.critical_batch_size is None \
            else f"{e.critical_batch_size:,.1f}"
        rows.append(("critical batch size", crit))
    if e.fits is not None:
        rows.append((f"{one}fits in memory", f"{'yes' if e.fits else 'no'}: needs "
                     f"{e.memory_required_bytes / 1e9:,.2f} GB of {e.capacity / 1e9:,.2f} GB"))
        rows.append(("max batch at this context", f"{e.max_batch:,}"))
        rows.append(("max context at this batch",
                     "unbounded (every layer windowed)" if e.max_context is None
                     else f"{e.max_context:,}"))
    if serving:
        rows += _serving_rows(e)
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def _speed_rows(fits: bool | None, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Rows of speeds and costs, or, where the setup does not fit in memory, the same rows
    saying so instead of a number that no run could reach."""
    if fits is False:
        return [(k, "- (does not fit in memory)") for k, _ in rows]
    return rows


def _tokens_text(n: float) -> str:
    """A token count as text, with one decimal where it is a mean (2,176.5 tokens)."""
    return f"{n:,.0f} tokens" if float(n).is_integer() else f"{n:,.1f} tokens"


def _serving_rows(e: Any) -> list[tuple[str, str]]:
    def ms(t: float | None) -> str:
        return "-" if t is None else f"{t * 1e3:,.3f} ms"

    rows = [("replica", f"{e.n_chips} chip(s): tp {e.tp} x pp {e.pp}, ep {e.ep}")]
    if e.link_bandwidth is not None:
        rows.append(("link to peers", f"{e.link_bandwidth / 1e9:,.1f} GB/s per direction, "
                                      f"{e.link_latency * 1e6:g} us per hop"))
    rows.append(("memory per chip", f"{e.memory_per_chip_bytes / 1e9:,.2f} GB"
                 + ("" if e.fits_per_chip is None else
                    f" ({'fits' if e.fits_per_chip else 'does not fit'} in "
                    f"{e.capacity / 1e9:,.2f} GB)")))
    if e.max_batch_per_replica is not None:
        rows.append(("max batch on the replica", f"{e.max_batch_per_replica:,}"))
    if e.prompt is not None:
        rows.append(("prompt, generated", f"{e.prompt:,} tokens, "
                     + ("-" if e.generate is None else f"{e.generate:,} more")))
        rows.append(("time to first token (bound)", ms(e.ttft_seconds)))
    rows.append(("time per output token (bound)",
                 ms(e.tpot_seconds) + f" at {_tokens_text(e.serving_context)} of context"
                 + ("; does not fit in memory" if e.fits_per_chip is False else "")))
    if e.allreduce_seconds_per_token is not None:
        rows.append(("  of which all-reduces", ms(e.allreduce_seconds_per_token)))
    if e.alltoall_seconds_per_token:
        rows.append(("  of which all-to-alls", ms(e.alltoall_seconds_per_token)))
    if e.request_seconds is not None:
        rows.append(("request (bound)", f"{e.request_seconds:,.3f} s"))
    speeds = []
    if e.tokens_per_second_per_user is not None:
        speeds.append(("tokens/s per user", f"{e.tokens_per_second_per_user:,.1f}"))
        speeds.append(("tokens/s per chip", f"{e.tokens_per_second_per_chip:,.1f}"))
    if e.cost_per_million_tokens is not None:
        speeds.append(("cost per million tokens", f"${e.cost_per_million_tokens:,.3f} at "
                       f"${e.price_per_hour:g} per chip-hour"))
    if e.energy_joules_per_token is not None:
        speeds.append(("energy per token", f"{e.energy_joules_per_token:,.3f} J at "
                       f"{e.power_watts:g} W per chip"))
    return rows + _speed_rows(e.fits_per_chip, speeds)


def _models(as_json: bool = False) -> int:
    from .catalog.model_catalog import CATALOG

    if as_json:
        from .book.export import _model

        out = {}
        for name, entry in CATALOG.items():
            out[name] = {"params_total": entry.model.total_params,
                         "params_active": entry.model.active_params, **_model(entry)}
        print(json.dumps(out, indent=1))
        return 0
    for name, entry in CATALOG.items():
        m = entry.model
        print(f"{name:<20} {m.total_params / 1e9:9.3f} B params "
              f"({m.active_params / 1e9:.3f} B active)  {entry.url}")
    return 0


def _hardware(as_json: bool = False) -> int:
    from .catalog.hardware import HARDWARE, hardware_record

    if as_json:
        print(json.dumps({name: hardware_record(h) for name, h in HARDWARE.items()}, indent=1))
        return 0
    for name, h in HARDWARE.items():
        peak = h.peaks.get("fp16") or h.peaks.get("fp32")
        pk = f"{peak.rate / 1e12:8.2f} TFLOP/s" if peak else " " * 15
        print(f"{name:<16} {h.bandwidth / 1e9:8.1f} GB/s {h.capacity / 2**30:7.1f} GiB {pk}  "
              f"{h.source}")
    return 0


def _formula(ns: argparse.Namespace) -> int:
    from .articles import all_formulas

    formulas = all_formulas()
    if ns.list or not ns.name:
        for name, f in sorted(formulas.items()):
            print(f"{name:<36} [{f.unit}]  {f.summary[:70]}")
        return 0
    if ns.name not in formulas:
        import difflib
        close = difflib.get_close_matches(ns.name, formulas, n=3, cutoff=0.5)
        raise UsageError(f"unknown formula {ns.name[:60]!r}"
                         + (f"; did you mean {', '.join(close)}?" if close else ""))
    print(formulas[ns.name].latex())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    try:
        ns = parser.parse_args(argv)
        if ns.command == "describe":
            return _describe(ns)
        if ns.command == "frontier":
            return _frontier(ns)
        if ns.command == "models":
            return _models(ns.json)
        if ns.command == "hardware":
            return _hardware(ns.json)
        if ns.command == "problems":
            from .teaching.problems import read_key, read_roster, write_sets
            key_existed = os.path.exists(os.path.expanduser(ns.key))
            key, roster = read_key(ns.key), read_roster(ns.roster)
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
        print(f"{PROG}: error: {e}", file=sys.stderr)
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
        print(f"{PROG}: error: {msg.splitlines()[0] if msg else type(e).__name__}",
              file=sys.stderr)
        return 2
