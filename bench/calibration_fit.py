"""Fit the perf model's free constants (advisor/perf/constants.py) on the published training measurements.

    .venv/bin/python -m bench.calibration_fit [--samples 8000] [--seed 1]

Search space: `constants.BOUNDS` (physically plausible ranges). Objective: the mean |log(predicted/measured)|
over every case with a prediction and a measured speedup (the geometric-mean error: smooth, so the fit does not
chase a single case sitting near 1×); direction errors and the median are reported, not optimised. Seeded random
search, then coordinate refinement on a shrinking grid. Prints the constants to paste into `FITTED`; it changes
nothing. `--loso` also scores leave-one-source-out: each source predicted by constants fitted without it.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import statistics
from collections.abc import Sequence

from advisor.perf.constants import BOUNDS, FITTED, CostConstants
from advisor.perf.predict import predict
from bench.calibration_data import Case, data_paths, load, nearest_rank

Score = tuple[float, int, float]


def score(cases: Sequence[Case], c: CostConstants) -> Score:
    """(mean |log ratio|, direction errors, median relative error) of the model with constants `c`."""
    wrong, errs, logs = 0, [], []
    for case in cases:
        p = predict(case.facts, c)
        if p is None or case.speedup is None:
            continue
        errs.append(abs(p.speedup / case.speedup - 1.0))
        logs.append(abs(math.log(p.speedup / case.speedup)))
        if case.clear and case.has_acceptance and (p.speedup > 1.0) != (case.speedup > 1.0):
            wrong += 1
    return statistics.fmean(logs), wrong, nearest_rank(errs, 0.5)


def _with(c: CostConstants, name: str, value: float) -> CostConstants:
    return dataclasses.replace(c, **{name: value})


def fit(cases: Sequence[Case], samples: int, seed: int) -> tuple[CostConstants, Score]:
    """Best constants found and their score."""
    rng = random.Random(seed)
    best = FITTED
    for name, (low, high, _) in BOUNDS.items():  # start from the shipped values, inside the bounds
        best = _with(best, name, min(max(getattr(best, name), low), high))
    best_score = score(cases, best)
    for _ in range(samples):
        c = FITTED
        for name, (low, high, _) in BOUNDS.items():
            c = _with(c, name, rng.uniform(low, high))
        s = score(cases, c)
        if s < best_score:
            best, best_score = c, s
    for shrink in (0.1, 0.03, 0.01):
        improved = True
        while improved:
            improved = False
            for name, (low, high, _) in BOUNDS.items():
                for step in (-1, 1):
                    value = min(max(getattr(best, name) + step * shrink * (high - low), low), high)
                    c = _with(best, name, value)
                    s = score(cases, c)
                    if s < best_score:
                        best, best_score, improved = c, s, True
    return best, best_score


def leave_one_source_out(cases: Sequence[Case], samples: int, seed: int) -> dict[str, object]:
    """Held-out figures: every source's cases predicted by constants fitted on the other sources."""
    errs: list[float] = []
    right = total = 0
    wrong: list[str] = []
    for source in sorted({c.source for c in cases}):
        held = [c for c in cases if c.source == source and c.speedup is not None and c.has_acceptance]
        rest = [c for c in cases if c.source != source and c.speedup is not None and c.has_acceptance]
        if not held or not rest:
            continue
        constants, _ = fit(rest, samples, seed)
        for case in held:
            p = predict(case.facts, constants)
            if p is None or case.speedup is None:
                continue
            errs.append(abs(p.speedup / case.speedup - 1.0))
            if case.clear:
                total += 1
                ok = (p.speedup > 1.0) == (case.speedup > 1.0)
                right += ok
                wrong += [] if ok else [f"{case.id} ({p.speedup:.2f}× vs {case.speedup:.2f}×)"]
    return {"cases": len(errs), "median_rel_err": round(nearest_rank(errs, 0.5), 3) if errs else None,
            "p90_rel_err": round(nearest_rank(errs, 0.9), 3) if errs else None, "direction_right": right,
            "direction_cases": total, "direction_wrong": wrong}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=8000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--loso", action="store_true", help="also score leave-one-source-out (slower)")
    args = ap.parse_args(argv)
    paths = data_paths()
    if not paths:
        print("no calibration data: set $SPEC_ADVISOR_CALIBRATION")
        return 0
    cases = load(paths)
    print(f"shipped FITTED: {score(cases, FITTED)}")
    best, s = fit(cases, args.samples, args.seed)
    print(f"best: mean |log| {s[0]:.4f}, direction errors {s[1]}, median rel err {s[2]:.3f}")
    for name in BOUNDS:
        print(f"    {name}={getattr(best, name):.4g},")
    if args.loso:
        print(f"leave one source out: {leave_one_source_out(cases, max(args.samples // 4, 200), args.seed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
