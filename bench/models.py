"""Both bundled models side by side (issue 26): SmolLM2-135M, where n-gram speculation is worth ~1.04×, and
Gemma 3 270M, where it pays. Each figure once per model, its key suffixed `_smollm2` or `_gemma3`.

    .venv/bin/python -m bench.models [--models smollm2,gemma3] [--parts quick,full,tuner] [--timeout 1200] [--keep DIR]

- `quick`: three consecutive quick checks of the shipped command: `quick_check_verdict_<m>` (their verdicts,
  comma-separated; the goal for Gemma is "ENABLE, ENABLE, ENABLE"), `quick_check_wall_s_<m>` (median) and
  `eta_error_max_after_10pct_<m>` (the clock's worst error once a tenth of a check had passed, bench/eta_accuracy.py);
- `full`: one full check: `full_check_wall_s_<m>` (goal SmolLM2 ≤ 600 s, Gemma ≤ 900 s), its verdict, its clock
  (`eta_error_max_after_10pct_full_<m>`) and `tuned_vs_default_speedup_<m>`: the A/B of the tuner's choice
  against the engine's defaults for the method, both servers fresh (goal ≥ 0.98);
- `tuner`: bench/tuner.py on that model: `tuner_kstar_gap_<m>` (≤ 0.03) and `tuner_prediction_rel_err_median_<m>`
  (≤ 0.10), beside the tuner's time against a sweep.

Run alone: two checks on two cores measure each other.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from advisor.demo.gemma import gemma_model_path
from bench import tuner
from bench.common import stop_cleanly_on_sigterm
from bench.eta_accuracy import KEY as ETA
from bench.quick_check import WALL, measure_once

MODELS: dict[str, Callable[[], Path | None]] = {"smollm2": lambda: None, "gemma3": gemma_model_path}
PARTS = ("quick", "full", "tuner")
FULL_GOAL_S = {"smollm2": 600.0, "gemma3": 900.0}
QUICK_RUNS = 3


def quick(name: str, model: Path | None, timeout_s: float, keep: Path | None = None) -> dict[str, Any]:
    """Three quick checks in a row: their verdicts, median wall, worst clock error (each run's folder copied to
    `keep`/<model>-quick-N when given, so its clock can be replayed with bench.eta_accuracy)."""
    runs = [measure_once(timeout_s, keep / f"{name}-quick-{i + 1}" if keep is not None else None, model=model)
            for i in range(QUICK_RUNS)]
    verdicts = [str(r.get("check_verdict")) for r in runs]
    out: dict[str, Any] = {f"quick_check_verdict_{name}": ", ".join(verdicts),
                           f"quick_check_verdict_{name}_note": "; ".join(
                               f"{r.get('check_verdict')} by {r.get('decided_by')}" for r in runs)}
    walls = [r[WALL] for r in runs if isinstance(r.get(WALL), int | float)]
    out[f"quick_check_wall_s_{name}"] = statistics.median(walls) if walls else None
    out[f"quick_check_wall_s_{name}_note"] = (f"median of {len(walls)}/{len(runs)} that finished: "
                                              + ", ".join(f"{w:.0f} s" for w in walls))
    logged = [r["eta"] for r in runs if r.get("eta") is not None]
    out[f"{ETA}_{name}"] = max(e.max_error for e in logged) if logged else None
    out[f"{ETA}_{name}_note"] = ("worst over the quick checks: " + ", ".join(f"{e.max_error:.2f}" for e in logged)
                                 if logged else "not measured: no quick check finished with an ETA log")
    out[f"quick_checks_{name}"] = [{k: r.get(k) for k in ("check_verdict", "decided_by", WALL, "steps_elapsed_s")}
                                   | {"tuner": r.get("tuner")} for r in runs]
    return out


def full(name: str, model: Path | None, timeout_s: float, keep: Path | None = None) -> dict[str, Any]:
    """One full check: wall, verdict, clock, and the tuner's choice against the engine's defaults."""
    r = measure_once(timeout_s, keep / f"{name}-full" if keep is not None else None, model=model, quick=False)
    wall, goal = r.get(WALL), FULL_GOAL_S[name]
    out: dict[str, Any] = {f"full_check_wall_s_{name}": wall,
                           f"full_check_wall_s_{name}_note": (f"verdict {r.get('check_verdict')} by "
                                                              f"{r.get('decided_by')}; steps (s) "
                                                              f"{_rounded(r.get('steps_elapsed_s'))}; goal ≤ {goal:.0f}"
                                                              if wall is not None else str(r.get(f"{WALL}_note")))}
    eta = r.get("eta")
    out[f"{ETA}_full_{name}"] = eta.max_error if eta is not None else None
    out[f"{ETA}_full_{name}_note"] = eta.note() if eta is not None else "not measured: no ETA log"
    summary = r.get("tuner") or {}
    vs = summary.get("vs_default_speedup")
    out[f"tuned_vs_default_speedup_{name}"] = vs
    out[f"tuned_vs_default_speedup_{name}_note"] = (
        f"{summary.get('method')} k={summary.get('k')}: {vs:.3f}× [{summary.get('vs_default_ci_low'):.3f}, "
        f"{summary.get('vs_default_ci_high'):.3f}] of the engine's defaults (goal ≥ 0.98)"
        if isinstance(vs, int | float) else "not measured: the full check ran no A/B against the defaults")
    err = summary.get("prediction_rel_err")
    out[f"tuner_prediction_rel_err_full_{name}"] = abs(err) if isinstance(err, int | float) else None
    out[f"tuner_prediction_rel_err_full_{name}_note"] = (
        f"predicted {summary.get('predicted_speedup'):.3f}×, the A/B measured {summary.get('measured_speedup'):.3f}×"
        if isinstance(err, int | float) else "not measured")
    return out


def _rounded(steps: object) -> dict[str, float]:
    return {k: round(float(v), 0) for k, v in steps.items() if isinstance(v, int | float)} \
        if isinstance(steps, dict) else {}


def tuned(name: str, model: Path | None) -> dict[str, Any]:
    """bench/tuner.py on this model, its keys suffixed."""
    figures = tuner.measure(model=model)

    def suffixed(key: str) -> str:
        base = key.removesuffix("_note")
        return f"{base}_{name}_note" if base != key and base in tuner.KEYS else f"{key}_{name}"

    return {suffixed(k): v for k, v in figures.items()}


def keys(names: tuple[str, ...] = tuple(MODELS)) -> tuple[str, ...]:
    """Every headline figure this stage writes."""
    out: list[str] = []
    for n in names:
        out += [f"quick_check_verdict_{n}", f"quick_check_wall_s_{n}", f"{ETA}_{n}", f"full_check_wall_s_{n}",
                f"{ETA}_full_{n}", f"tuned_vs_default_speedup_{n}", f"tuner_prediction_rel_err_full_{n}",
                *(f"{k}_{n}" for k in tuner.KEYS)]
    return tuple(out)


def measure(names: tuple[str, ...] = tuple(MODELS), parts: tuple[str, ...] = PARTS,
            timeout_s: float = 1200.0, keep: Path | None = None) -> dict[str, Any]:
    """The chosen parts for the chosen models, each model's parts one after another (run folders kept under
    `keep` when given)."""
    out: dict[str, Any] = {}
    for name in names:
        model = MODELS[name]()
        if name != "smollm2" and model is None:
            out |= {k: None for k in keys((name,))}
            continue
        if "quick" in parts:
            out |= quick(name, model, timeout_s, keep)
        if "full" in parts:
            out |= full(name, model, timeout_s, keep)
        if "tuner" in parts:
            out |= tuned(name, model)
        print(json.dumps({k: v for k, v in out.items() if not isinstance(v, list | dict)}, default=str), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(MODELS), help=f"comma-separated ({', '.join(MODELS)})")
    ap.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated ({', '.join(PARTS)})")
    ap.add_argument("--timeout", type=float, default=1200.0, help="limit for one check (s)")
    ap.add_argument("--json-out", type=Path, help="also write the figures here")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="copy each check's run folder to DIR/<model>-<part>")
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    names = tuple(n for n in args.models.split(",") if n)
    parts = tuple(p for p in args.parts.split(",") if p)
    figures = measure(names, parts, args.timeout, args.keep)
    text = json.dumps(figures, indent=1, default=str)
    if args.json_out is not None:
        args.json_out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
