"""Command line: ``python -m llm_arithmetic describe MODEL [options]`` (or ``llm-arithmetic``).

Commands
--------
describe   bytes, FLOPs and speed bounds of one model (catalog name, config.json, or - for
           standard input), optionally on a chip
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


def _gbps(text: str) -> float:
    return _number(text, "bandwidth_gbps")


def _tflops(text: str) -> float:
    return _number(text, "tflops")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=f"python -m {PROG}",
                description="LLM inference arithmetic: parameters, bytes, FLOPs and speed bounds.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    d = sub.add_parser(
        "describe", help="numbers for one model, optionally on one chip",
        description="Parameter count, weight and KV-cache bytes, bytes and FLOPs per decoded "
                    "token and, given a chip, the roofline bound on decode speed.")
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
                        "(4.5 bits), mxfp4 (4.25), q8_0 (8.5), q4_0 (4.5), q4_k, q6_k, ...; "
                        "default: as the checkpoint ships (16 bits, gpt-oss's MXFP4 experts)")
    w.add_argument("--weight-bits", type=_bits, metavar="B",
                   help="bits per weight, scales included (e.g. 4.5)")
    d.add_argument("--kv-bits", type=_bits, default=16.0, metavar="B",
                   help="bits per KV-cache element (default 16)")
    d.add_argument("--context", type=_tokens, default=1, metavar="N",
                   help="tokens in each sequence's KV cache (default 1)")
    d.add_argument("--batch", type=_batch, default=1, metavar="N",
                   help="sequences decoded together (default 1)")
    d.add_argument("--json", action="store_true", help="print one JSON object")

    sub.add_parser("models", help="list the model catalog",
                   description="List the catalog's models with parameter counts and sources.")
    sub.add_parser("hardware", help="list the hardware catalog",
                   description="List the catalog's devices with bandwidth, capacity, peak.")
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


def _describe(ns: argparse.Namespace) -> int:
    from .core.units import GB_S, TFLOP_S
    from .estimate import estimate

    bandwidth = ns.bandwidth_gbps * GB_S if ns.bandwidth_gbps else None
    peak = ns.tflops * TFLOP_S if ns.tflops else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e = estimate(ns.model, hardware=ns.hardware, weights=ns.weights,
                     bits_weight=ns.weight_bits, bits_kv=ns.kv_bits, context=ns.context,
                     batch=ns.batch, bandwidth=bandwidth, peak_flops=peak)
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)
    if ns.json:
        print(json.dumps(e.as_dict(), indent=2))
    else:
        print(_table(e))
    return 0


def _fmt_b(n: float) -> str:
    if n >= 1e9:
        return f"{n:,.0f} B ({n / 1e9:,.3f} GB, {n / 2**30:,.3f} GiB)"
    return f"{n:,.0f} B ({n / 1e6:,.3f} MB, {n / 2**20:,.3f} MiB)"


def _table(e: Any) -> str:
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
    if e.decode_seconds_per_token is not None:
        rows.append(("time per token (lower bound)",
                     f"{e.decode_seconds_per_token * 1e3:,.3f} ms ({e.bound}-bound)"))
        rows.append(("tokens/s per sequence (upper bound)", f"{e.decode_tokens_per_second:,.1f}"))
        rows.append(("tokens/s, whole batch", f"{e.throughput_tokens_per_second:,.1f}"))
    if e.ops_per_byte is not None:
        rows.append(("ops:byte of the chip", f"{e.ops_per_byte:,.1f} FLOP/B"))
        crit = "never (KV-cache traffic grows faster)" if e.critical_batch_size is None \
            else f"{e.critical_batch_size:,.1f}"
        rows.append(("critical batch size", crit))
    if e.fits is not None:
        rows.append(("fits in memory", f"{'yes' if e.fits else 'no'}: needs "
                     f"{e.memory_required_bytes / 1e9:,.2f} GB of {e.capacity / 1e9:,.2f} GB"))
        rows.append(("max batch at this context", f"{e.max_batch:,}"))
        rows.append(("max context at this batch",
                     "unbounded (every layer windowed)" if e.max_context is None
                     else f"{e.max_context:,}"))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def _models() -> int:
    from .catalog.models import CATALOG

    for name, entry in CATALOG.items():
        m = entry.model
        print(f"{name:<20} {m.total_params / 1e9:9.3f} B params "
              f"({m.active_params / 1e9:.3f} B active)  {entry.url}")
    return 0


def _hardware() -> int:
    from .catalog.hardware import HARDWARE

    for name, h in HARDWARE.items():
        peak = h.peaks.get("fp16") or h.peaks.get("fp32")
        pk = f"{peak.rate / 1e12:8.2f} TFLOP/s" if peak else " " * 15
        print(f"{name:<16} {h.bandwidth / 1e9:8.1f} GB/s {h.capacity / 2**30:7.1f} GiB {pk}  "
              f"{h.source}")
    return 0


def _formula(ns: argparse.Namespace) -> int:
    from .core.registry import all_formulas

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
        if ns.command == "models":
            return _models()
        if ns.command == "hardware":
            return _hardware()
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
    except (ValueError, KeyError, OverflowError, RecursionError, MemoryError, OSError) as e:
        # InputError and ConfigError are ValueErrors; the others are guards against anything
        # that still escapes them (a message, never a traceback)
        msg = str(e.args[0]) if e.args else type(e).__name__
        print(f"{PROG}: error: {msg.splitlines()[0] if msg else type(e).__name__}",
              file=sys.stderr)
        return 2
