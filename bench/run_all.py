"""Run every benchmark once, one after another, and write docs/benchmarks.md and docs/benchmarks.json.

    .venv/bin/python -m bench.run_all [--skip-slow] [--docs DIR]

`--skip-slow` leaves out the two quick checks (CLI and GUI) and runs the A/B simulation with 2,000 instead
of 20,000 replications; the figures that need them are written as null with the reason. `--only a,b`
re-measures the named stages alone and keeps every other figure as the last full run wrote it (the page
then names the stages re-run and when the rest was measured). Benchmarks run
serially so that none of them measures another's load. A module that fails gives nulls with its error,
never a made-up figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import (
    arms,
    calibration,
    cli_time,
    cluster,
    cpu_overhead,
    engine_threads,
    faults,
    gui_figures,
    hostile,
    models,
    peer,
    pool_effect,
    probe_time,
    quick_check,
    ram_bandwidth,
    report,
    sim_figures,
    tok_s_accuracy,
    tuner,
)
from bench.common import REPO, machine, stop_cleanly_on_sigterm

SKIP_SLOW_REPS = 2_000
NO_GPU = ("No GPU machine was available to this task: every figure above is from the CPU-only demo engine "
          "(SmolLM2-135M Q4_1 on llama-server's CPU build). GPU figures (MBU against NVML peak bandwidth, "
          "GPU speedups) are not measured here.")


def _stage(name: str, fn: Callable[[], dict[str, Any]], keys: tuple[str, ...]) -> dict[str, Any]:
    """Run one benchmark; an unexpected error becomes nulls with the error as the note."""
    t0 = time.monotonic()
    print(f"[bench] {name} …", flush=True)
    try:
        out = fn()
    except Exception as exc:  # one broken benchmark must not lose the others' figures
        traceback.print_exc()
        out = {}
        for key in keys:
            out[key], out[f"{key}_note"] = None, f"not measured: {name} failed: {type(exc).__name__}: {exc}"
    for key in keys:
        print(f"[bench]   {key} = {out.get(key)}  ({out.get(f'{key}_note', '')})", flush=True)
    print(f"[bench] {name} done in {time.monotonic() - t0:.0f} s", flush=True)
    return out


STAGES = ("probe_time", "ram_bandwidth", "cli_time", "calibration", "tok_s_accuracy", "cpu_overhead", "peer",
          "hostile", "sim_ab", "gui", "faults", "engine_threads", "quick_check", "pool_effect", "tuner", "arms",
          "cluster", "models")


def previous_results(js: Path) -> dict[str, Any]:
    """The figures, notes and details of the last run's benchmarks.json (empty when there is none)."""
    try:
        old = json.loads(js.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: dict[str, Any] = dict(old.get("details") or {})
    keys = [g.key for g in report.GOALS] + [k for k, _ in report.RELIABILITY]
    for key in keys:
        if key in old:
            out[key] = old[key]
        if f"{key}_note" in old:
            out[f"{key}_note"] = old[f"{key}_note"]
    return out


def run(skip_slow: bool, tokens: int = 512, peer_tg: int = 256, check_timeout_s: float = 600.0,
        gui_steps: str | None = None, results: dict[str, Any] | None = None,
        only: frozenset[str] | None = None, quick_load: str = "both", keep_runs: Path | None = None,
        model_names: tuple[str, ...] = tuple(models.MODELS), model_parts: tuple[str, ...] = models.PARTS,
        ) -> dict[str, Any]:
    """All figures in one dict (keys, `<key>_note`s and details), filled in `results` stage by stage so a run
    stopped part-way still has the figures of the stages it finished; with `only`, just those stages."""
    results = {} if results is None else results
    if only is not None:
        return _run_only(only, results, tokens, peer_tg, check_timeout_s, gui_steps, quick_load, keep_runs,
                         model_names, model_parts)
    results |= _stage("probe_time", probe_time.measure, (probe_time.KEY,))
    results |= _stage("ram_bandwidth", ram_bandwidth.measure, ram_bandwidth.KEYS)
    results |= _stage("cli_time", cli_time.measure, cli_time.KEYS)
    results |= _stage("calibration", calibration.measure, calibration.KEYS)
    results |= _stage("tok_s_accuracy", lambda: tok_s_accuracy.measure(max_tokens=tokens), (tok_s_accuracy.KEY,))
    results |= _stage("cpu_overhead", lambda: cpu_overhead.measure(max_tokens=tokens), (cpu_overhead.KEY,))
    results |= _stage("peer", lambda: peer.measure(tg=peer_tg), (peer.KEY,))
    results |= _stage("hostile", hostile.measure, hostile.KEYS)
    reps = SKIP_SLOW_REPS if skip_slow else sim_figures.FULL_REPS
    results |= _stage("sim_ab", lambda: sim_figures.measure(reps), sim_figures.KEYS)
    results |= _stage("gui", lambda: gui_figures.measure(skip_check=skip_slow, steps=gui_steps),
                      (gui_figures.REDRAW, gui_figures.STALL))
    results |= _stage("faults", faults.measure, faults.KEYS)
    results |= _stage("engine_threads", engine_threads.measure, engine_threads.KEYS)
    slow_keys = (*quick_check.KEYS, pool_effect.FRESH, pool_effect.WARM, *tuner.KEYS, *arms.KEYS, *cluster.KEYS,
                 *models.keys())
    if skip_slow:
        note = ("skipped: --skip-slow leaves out the quick checks, the pool effect, the tuner against a sweep, "
                "single against dual arms and the cluster check against a local one")
        for key in slow_keys:
            results[key], results[f"{key}_note"] = None, note
    else:
        results |= _stage("quick_check", lambda: quick_check.measure(check_timeout_s, keep_runs, runs=3),
                          quick_check.KEYS)
        results |= _stage("pool_effect", pool_effect.measure, (pool_effect.FRESH, pool_effect.WARM))
        results |= _stage("tuner", tuner.measure, tuner.KEYS)
        results |= _stage("arms", arms.measure, arms.KEYS)
        results |= _stage("cluster", cluster.measure, cluster.KEYS)
        results |= _stage("models", lambda: models.measure(keep=keep_runs), models.keys())
    return results


def _run_only(only: frozenset[str], results: dict[str, Any], tokens: int, peer_tg: int, check_timeout_s: float,
              gui_steps: str | None, quick_load: str = "both", keep_runs: Path | None = None,
              model_names: tuple[str, ...] = tuple(models.MODELS),
              model_parts: tuple[str, ...] = models.PARTS) -> dict[str, Any]:
    stages: dict[str, tuple[Callable[[], dict[str, Any]], tuple[str, ...]]] = {
        "probe_time": (probe_time.measure, (probe_time.KEY,)),
        "ram_bandwidth": (ram_bandwidth.measure, ram_bandwidth.KEYS), "cli_time": (cli_time.measure, cli_time.KEYS),
        "calibration": (calibration.measure, calibration.KEYS),
        "tok_s_accuracy": (lambda: tok_s_accuracy.measure(max_tokens=tokens), (tok_s_accuracy.KEY,)),
        "cpu_overhead": (lambda: cpu_overhead.measure(max_tokens=tokens), (cpu_overhead.KEY,)),
        "peer": (lambda: peer.measure(tg=peer_tg), (peer.KEY,)), "hostile": (hostile.measure, hostile.KEYS),
        "sim_ab": (lambda: sim_figures.measure(sim_figures.FULL_REPS), sim_figures.KEYS),
        "gui": (lambda: gui_figures.measure(skip_check=False, steps=gui_steps),
                (gui_figures.REDRAW, gui_figures.STALL)),
        "faults": (faults.measure, faults.KEYS),
        "engine_threads": (engine_threads.measure, engine_threads.KEYS),
        "quick_check": (lambda: quick_check.measure(check_timeout_s, keep_runs, runs=3, load=quick_load),
                        quick_check.KEYS),
        "pool_effect": (pool_effect.measure, (pool_effect.FRESH, pool_effect.WARM)),
        "tuner": (tuner.measure, tuner.KEYS), "arms": (arms.measure, arms.KEYS),
        "cluster": (cluster.measure, cluster.KEYS),
        "models": (lambda: models.measure(model_names, model_parts, keep=keep_runs), models.keys())}
    for name in STAGES:
        if name in only:
            fn, keys = stages[name]
            results |= _stage(name, fn, keys)
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-slow", action="store_true", help="no quick checks, 2k-rep simulation")
    ap.add_argument("--docs", type=Path, default=REPO / "docs", help="where to write benchmarks.md/.json")
    ap.add_argument("--tokens", type=int, default=512, help="tokens per stream for tok/s and CPU (default 512)")
    ap.add_argument("--peer-tg", type=int, default=256, help="tokens per llama-benchy run (default 256)")
    ap.add_argument("--check-timeout", type=float, default=600.0, help="limit for the CLI quick check (s)")
    ap.add_argument("--gui-steps", help="steps of the GUI's quick check (default: all)")
    ap.add_argument("--quick-load", choices=("both", "alone", "only"), default="both",
                    help="with --only quick_check: the quick checks alone, under a CPU hog, or both (default)")
    ap.add_argument("--keep-runs", type=Path, metavar="DIR",
                    help="copy each check's run folder (its evidence and logs/eta.jsonl) to DIR: the quick_check "
                         "stage's to DIR/run-N, the models stage's to DIR/<model>-quick-N and DIR/<model>-full")
    ap.add_argument("--models", default=",".join(models.MODELS),
                    help="with --only models: which bundled models (default: both)")
    ap.add_argument("--model-parts", default=",".join(models.PARTS),
                    help=f"with --only models: which parts ({', '.join(models.PARTS)}; default: all)")
    ap.add_argument("--only", metavar="STAGE,…",
                    help=f"re-measure only these stages, keep the other figures ({', '.join(STAGES)})")
    args = ap.parse_args(argv)
    only = frozenset(s.strip() for s in args.only.split(",") if s.strip()) if args.only else None
    if only is not None and (unknown := sorted(only - set(STAGES))):
        ap.error(f"unknown stage(s): {', '.join(unknown)}")
    stop_cleanly_on_sigterm()
    t0 = time.monotonic()
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
    meta: dict[str, Any] = {"date": started, "machine": machine(), "skip_slow": args.skip_slow,
                            "command": " ".join([".venv/bin/python -m bench.run_all",
                                                 *(argv if argv is not None else sys.argv[1:])])}
    results: dict[str, Any] = {}
    if only is not None:
        previous = json.loads((args.docs / "benchmarks.json").read_text(encoding="utf-8")) \
            if (args.docs / "benchmarks.json").is_file() else {}
        results = previous_results(args.docs / "benchmarks.json")
        meta["partial"] = (f"only {', '.join(sorted(only))} re-measured in this run; every other figure is from the "
                           f"run of {previous.get('date', 'an unknown date')} ({previous.get('command', '?')})")
    try:
        run(args.skip_slow, args.tokens, args.peer_tg, args.check_timeout, args.gui_steps, results, only,
            args.quick_load, args.keep_runs, tuple(args.models.split(",")), tuple(args.model_parts.split(",")))
    except (KeyboardInterrupt, SystemExit) as exc:  # Ctrl-C or SIGTERM: keep what was measured
        meta["stopped_early"] = f"stopped by {type(exc).__name__} after {time.monotonic() - t0:.0f} s"
        print(f"[bench] {meta['stopped_early']}; writing the figures measured so far", flush=True)
    meta["seconds"] = time.monotonic() - t0
    meta["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    gpu = meta["machine"].get("gpu")
    meta["gpu_section"] = NO_GPU if not gpu else f"GPU present ({gpu}); the figures above used the demo engine."
    md, js = report.write(results, meta, args.docs)
    print(f"[bench] wrote {md} and {js} ({meta['seconds']:.0f} s)")
    for g in report.GOALS:
        print(f"  {g.key:42s} {report._fmt(results.get(g.key)):>10s}  goal {g.goal_text:8s} "
              f"{g.status(results.get(g.key))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
