"""``make bench``: performance targets, measured in one run and printed as ratios.

Rows: ``benchmark | measured | target | ok/over``. Exit status 0 whatever the outcome (the
verdict is in the table); ``--strict`` exits 1 if a row is over.

1. A vectorized sweep of 10**6 (model, chip, precision, context, batch) points through the
   package's numeric functions, against the same formula written by hand in NumPy: at most 2x.
2. The same sweep per point against sympy ``subs`` on the expression: at least 1000x faster.
3. ``python -m llm_arithmetic describe llama-2-7b --hardware a100-80gb-pcie`` against
   ``python -c "import sympy, numpy"``: at most 1.5x the wall time (medians of several runs).
4. ``make test``: at most 300 s of wall time after the install. Not measured here (the suite
   takes minutes): ``make test`` records its own wall time in ``_build/test-timing.json``
   (scripts/test_timing.py) and this row reads it. The row is ok only for a run that finished,
   on the working tree as it is now; otherwise it says what is missing (no record, an unfinished
   run, or code changed since) and counts as over for ``--strict``.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np

import test_timing  # scripts/test_timing.py, beside this file
from llm_arithmetic import HARDWARE, MODELS
from llm_arithmetic.memory import KV_BYTES_PER_TOKEN, kv_cache_bytes_per_token, weight_bytes
from llm_arithmetic.roofline import DECODE_STEP_TIME, decode_step_time
from llm_arithmetic.symbols import GLOSSARY

N = 10**6
RNG = np.random.default_rng(0)


def sweep_inputs() -> dict[str, np.ndarray]:
    models = list(MODELS.values())
    chips = [h for h in HARDWARE.values() if "fp16" in h.peaks]
    mi = RNG.integers(0, len(models), N)
    ci = RNG.integers(0, len(chips), N)
    col = lambda f, xs, idx: np.array([f(x) for x in xs], dtype=np.float64)[idx]  # noqa: E731
    return {
        "read_params": col(lambda m: m.decode_read_params, models, mi),
        "matmul_params": col(lambda m: m.matmul_params, models, mi),
        "n_layers": col(lambda m: m.n_layers, models, mi),
        "n_heads": col(lambda m: m.n_heads, models, mi),
        "n_kv_heads": col(lambda m: m.n_kv_heads, models, mi),
        "d_head": col(lambda m: m.d_head, models, mi),
        "bandwidth": col(lambda h: h.bandwidth, chips, ci),
        "peak_flops": col(lambda h: h.peak("fp16"), chips, ci),
        "bits": RNG.choice(np.array([4.0, 4.5, 8.0, 8.5, 16.0, 32.0]), N),
        "context": RNG.integers(1, 131072, N).astype(np.float64),
        "batch": RNG.integers(1, 256, N).astype(np.float64),
    }


def with_package(x: dict[str, np.ndarray]) -> np.ndarray:
    w = weight_bytes(n_params=x["read_params"], bits_weight=x["bits"])
    kv = kv_cache_bytes_per_token(n_layers=x["n_layers"], n_kv_heads=x["n_kv_heads"],
                                  d_head=x["d_head"], bits_kv=16.0)
    return decode_step_time(weight_bytes=w, kv_bytes_token=kv, matmul_params=x["matmul_params"],
                            n_layers=x["n_layers"], n_heads=x["n_heads"], d_head=x["d_head"],
                            context=x["context"], batch=x["batch"], bandwidth=x["bandwidth"],
                            peak_flops=x["peak_flops"])


def by_hand(x: dict[str, np.ndarray]) -> np.ndarray:
    w = x["read_params"] * x["bits"] / 8
    kv = 2 * x["n_layers"] * x["n_kv_heads"] * x["d_head"] * 16.0 / 8
    mem = (w + x["batch"] * kv * x["context"]) / x["bandwidth"]
    flops = x["batch"] * (2 * x["matmul_params"]
                          + 4 * x["n_layers"] * x["n_heads"] * x["d_head"] * x["context"])
    return np.maximum(mem, flops / x["peak_flops"])


def best_of(fn, *args, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return min(times)


def per_point_subs(x: dict[str, np.ndarray], n: int = 20) -> float:
    s = {name: GLOSSARY[name].symbol for name in GLOSSARY}
    kv_expr = KV_BYTES_PER_TOKEN
    t = time.perf_counter()
    for i in range(n):
        kv = kv_expr.subs({s["n_layers"]: int(x["n_layers"][i]), s["n_kv_heads"]: int(x["n_kv_heads"][i]),
                           s["d_head"]: int(x["d_head"][i]), s["bits_kv"]: 16})
        bits = Fraction(str(x["bits"][i]))
        DECODE_STEP_TIME.subs({
            s["weight_bytes"]: int(x["read_params"][i]) * bits / 8, s["kv_bytes_token"]: kv,
            s["matmul_params"]: int(x["matmul_params"][i]), s["n_layers"]: int(x["n_layers"][i]),
            s["n_heads"]: int(x["n_heads"][i]), s["d_head"]: int(x["d_head"][i]),
            s["context"]: int(x["context"][i]), s["batch"]: int(x["batch"][i]),
            s["bandwidth"]: x["bandwidth"][i], s["peak_flops"]: x["peak_flops"][i]}).evalf()
    return (time.perf_counter() - t) / n


def median_wall(cmd: list[str], repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    x = sweep_inputs()
    a, b = with_package(x), by_hand(x)
    assert np.allclose(a, b, rtol=1e-12), "the package and the hand-written formula disagree"
    t_pkg = best_of(with_package, x)
    t_hand = best_of(by_hand, x)
    t_subs = per_point_subs(x)
    subprocess.run([sys.executable, "-m", "llm_arithmetic", "describe", "llama-2-7b",
                    "--hardware", "a100-80gb-pcie"], check=True, stdout=subprocess.DEVNULL)
    t_cli = median_wall([sys.executable, "-m", "llm_arithmetic", "describe", "llama-2-7b",
                         "--hardware", "a100-80gb-pcie"])
    t_imp = median_wall([sys.executable, "-c", "import sympy, numpy"])

    rows = [
        (f"sweep of {N:,} points: package / hand-written NumPy", t_pkg / t_hand, "<= 2x",
         t_pkg / t_hand <= 2),
        ("per point: sympy subs / package", t_subs / (t_pkg / N), ">= 1000x",
         t_subs / (t_pkg / N) >= 1000),
        ("CLI describe / python -c 'import sympy, numpy'", t_cli / t_imp, "<= 1.5x",
         t_cli / t_imp <= 1.5),
    ]
    print(f"{'benchmark':<56} | {'measured':>10} | {'target':>8} | ok/over")
    print("-" * 90)
    for name, ratio, target, ok in rows:
        print(f"{name:<56} | {ratio:>9.2f}x | {target:>8} | {'ok' if ok else 'over'}")
    suite = test_timing.bench_row()
    print(f"{suite[0]:<56} | {suite[1]:>10} | {suite[2]:>8} | {suite[3]}")
    print(f"\n(absolute: package sweep {t_pkg * 1e3:.1f} ms, by hand {t_hand * 1e3:.1f} ms, "
          f"subs {t_subs * 1e6:.0f} us/point, CLI {t_cli:.2f} s, import {t_imp:.2f} s)")
    if "--strict" in sys.argv and not (all(r[3] for r in rows) and suite[3].startswith("ok")):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
