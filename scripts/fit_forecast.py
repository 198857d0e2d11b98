"""Fit the decode forecast (llm_arithmetic.forecast) and store it as data.

    .venv/bin/python scripts/fit_forecast.py
    # writes lib/llm_arithmetic/lab/data/forecast_decode.json

Fits on the `fit` rows of llm_arithmetic.lab.measurements only (the reserved validation sources
never enter a fit), bootstraps the terms' standard errors (200 resamples, seed 0), computes the
80% intervals per regime (leave-one-chip-out residuals for a named runtime, leave-one-runtime-out
for an unnamed one) and reports leave-one-source-out, leave-one-chip-out, leave-one-runtime-out
and reserved-validation errors, the last also as the interface serves them (a runtime with its
own terms named, any other not). Deterministic: a test refits and compares.
"""
from __future__ import annotations

import json
import sys

from llm_arithmetic.forecast import PARAMS_PATH, build_params


def main() -> int:
    params = build_params()
    PARAMS_PATH.write_text(json.dumps(params, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for name in ("by_runtime", "agnostic", "as_served"):
        print(name, "interval", params.get("interval_" + name, "(per row, as above)"))
        for kind, e in params["errors_" + name].items():
            print(f"  {kind:22s} rows {e['rows']:4d}  MAPE {e['mape']:.1%}  within 20% "
                  f"{e['within_20pct']:.0%}  80% interval covers {e['coverage']:.0%}")
    print("wrote", PARAMS_PATH)
    return 0


if __name__ == "__main__":
    sys.exit(main())
