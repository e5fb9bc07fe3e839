"""`spec-advisor check --quick` on the demo engine: wall time, perf-model reconciliation, MBU, and whether
consecutive quick checks ever end INCONCLUSIVE because of the trap canary.

    .venv/bin/python -m bench.quick_check [--timeout 900] [--runs 3] [--keep DIR] [--load both|alone|only]

`--runs` real runs of the shipped command, one after another (`--no-history --json --out DIR`, in throw-away
data/config folders). From the first run's `DIR/evidence.json`: `reconciliation` (predicted vs measured A/B
speedup) and the baseline step's MBU against the measured RAM bandwidth; the wall time is the median over the
runs that finished; `quick_checks_inconclusive_by_canary` counts runs whose verdict was decided by a trap
branch of rules/measurement-validity.toml (goal: none); `quick_checks_decided_by_ab` those whose verdict a
branch of rules/ab-outcome.toml gave (goal: all, none withheld by outputs-differ or noise).
`quick_checks_decided_by_ab_under_load` is the same count for `--runs` more checks while a bounded CPU hog
(bench/cpu_hog.py) holds one core, as a browser or a build would (goal: ≥ 2 of 3); the bench starts and stops
it. `near_tie_share_of_divergences` is the share of the A/B pairs whose greedy replies differed that the OFF
arm's own top-2 probabilities called a near tie (numerics), over every run (advisor/ab/divergence.py).
`eta_error_max_after_10pct` is the worst error of the clock over the alone runs (bench/eta_accuracy.py: every
remaining-time estimate each check logged once a tenth of it had passed, against the time that really remained).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import isolated_env, run_cli, spec_advisor_argv, stop_cleanly_on_sigterm, tail
from bench.cpu_hog import cpu_hog
from bench.eta_accuracy import KEY as ETA
from bench.eta_accuracy import accuracy, read_log

WALL = "quick_check_wall_s"
RECON = "predicted_vs_measured_speedup_rel_err"
MBU = "mbu_demo_engine"
CANARY = "quick_checks_inconclusive_by_canary"
FROM_AB = "quick_checks_decided_by_ab"
FROM_AB_LOADED = "quick_checks_decided_by_ab_under_load"
NEAR_TIE = "near_tie_share_of_divergences"
KEYS = (WALL, RECON, MBU, CANARY, FROM_AB, FROM_AB_LOADED, NEAR_TIE, ETA)
# The branches that withhold a verdict for the engine's memory of earlier prompts (the trap canary).
TRAP_BRANCHES = ("measurement-validity/trap-inflation", "measurement-validity/trap-unchecked",
                 "measurement-validity/trap-flagged")


def measure(timeout_s: float = 600.0, keep: Path | None = None, runs: int = 3,
            load: str = "both") -> dict[str, Any]:
    """`runs` quick checks in a row: the first one's figures, the median wall, the canary count; with `load`
    "both" (or "only") `runs` more under a CPU hog on one core."""
    runs = max(runs, 1)
    done = ([measure_once(timeout_s, keep / f"run-{i + 1}" if keep is not None else None) for i in range(runs)]
            if load != "only" else [])
    loaded: list[dict[str, Any]] = []
    if load in ("both", "only"):
        with cpu_hog(limit_s=timeout_s * runs + 60.0):
            loaded = [measure_once(timeout_s, None) for _ in range(runs)]
    # "only": the alone figures are not measured, so a partial run_all keeps the ones it has
    out = _figures(done) if done else {}
    if load != "alone":  # "alone": the loaded figure is not measured, so a partial run_all keeps the one it has
        out[FROM_AB_LOADED] = _decided_by_ab(loaded)
        out[f"{FROM_AB_LOADED}_note"] = (f"of {len(loaded)} quick checks while one core was held by a CPU hog "
                                         "(goal: at least 2 of 3): " + _verdicts(loaded))
        out["quick_checks_under_load"] = [_row(r) for r in loaded]
    if not done:
        return out
    counts = {"numerics": 0, "lossy": 0, "unknown": 0}
    for r in (*done, *loaded):
        for kind, n in (r.get("divergence_counts") or {}).items():
            counts[kind] = counts.get(kind, 0) + int(n)
    total = sum(counts.values())
    out[NEAR_TIE] = counts["numerics"] / total if total else None
    out[f"{NEAR_TIE}_note"] = (f"{counts['numerics']} near ties, {counts['lossy']} lossy, {counts['unknown']} "
                               f"unclassified of {total} divergent pairs over {len(done) + len(loaded)} checks")
    return out


def _decided_by_ab(runs: list[dict[str, Any]]) -> int | None:
    """Runs whose verdict a branch of rules/ab-outcome.toml gave (None: none finished)."""
    if not any(r.get("check_verdict") for r in runs):
        return None
    return sum(1 for r in runs if str(r.get("decided_by") or "").startswith("ab-outcome/"))


def _verdicts(runs: list[dict[str, Any]]) -> str:
    return "; ".join(f"{r.get('check_verdict')} by {r.get('decided_by')}" for r in runs)


def _row(r: dict[str, Any]) -> dict[str, Any]:
    row = {k: r.get(k) for k in ("check_verdict", "decided_by", "check_status", WALL, "divergence_counts")}
    eta = r.get("eta")
    row[ETA] = eta.max_error if eta is not None else None
    return row


def _figures(done: list[dict[str, Any]]) -> dict[str, Any]:
    """The alone runs' figures: the first one's, the median wall, the canary and decided-by-A/B counts."""
    out = {k: v for k, v in done[0].items() if k != "eta"}
    walls = [r[WALL] for r in done if isinstance(r.get(WALL), int | float)]
    if walls:
        out[WALL] = statistics.median(walls)
        out[f"{WALL}_note"] = (f"median of {len(walls)}/{len(done)} runs that finished: "
                               + ", ".join(f"{w:.0f} s" for w in walls) + f"; {out[f'{WALL}_note']}")
    by_canary = [r for r in done if r.get("decided_by") in TRAP_BRANCHES]
    finished = [r for r in done if r.get("check_verdict")]
    out[CANARY] = len(by_canary) if finished else None
    # The done-when of issue 14: every verdict's reason comes from the A/B (a branch of rules/ab-outcome.toml),
    # not from a validity check that withheld it.
    out[FROM_AB] = _decided_by_ab(done) if finished else None
    out[f"{FROM_AB}_note"] = f"of {len(done)} consecutive quick checks (goal: all)"
    out[f"{CANARY}_note"] = f"{len(done)} consecutive quick checks: " + _verdicts(done)
    out["quick_checks"] = [_row(r) for r in done]
    out.update(_eta_figure(done))
    return out


def _eta_figure(done: list[dict[str, Any]]) -> dict[str, Any]:
    """The worst clock error over the runs that finished and logged their estimates."""
    logged = [(i, r["eta"]) for i, r in enumerate(done, 1) if r.get("eta") is not None]
    if not logged:
        return {ETA: None, f"{ETA}_note": "not measured: no quick check finished with an ETA log"}
    worst_run, worst = max(logged, key=lambda item: item[1].max_error)
    notes = "; ".join(f"run {i}: {acc.max_error:.2f}" for i, acc in logged)
    return {ETA: worst.max_error,
            f"{ETA}_note": f"worst over {len(logged)} quick checks ({notes}); run {worst_run}: {worst.note()}"}


def measure_once(timeout_s: float = 600.0, keep: Path | None = None, *, model: Path | None = None,
                 quick: bool = True) -> dict[str, Any]:
    """Run the check once (the quick one unless `quick` is False; the demo model unless `model`) and read its
    evidence."""
    with tempfile.TemporaryDirectory(prefix="spec-bench-check-") as tmp:
        out_dir = Path(tmp) / "run"
        argv = [*spec_advisor_argv(), "check", *(["--quick"] if quick else []),
                *(["--model", str(model)] if model is not None else []),
                "--no-history", "--json", "--out", str(out_dir)]
        t0 = time.monotonic()
        timed_out = False
        try:
            done = run_cli(argv, timeout_s, isolated_env(Path(tmp)))
        except subprocess.TimeoutExpired:
            # SIGTERM makes the check stop cleanly and keep its evidence, so MBU etc. can still be read.
            timed_out = True
            done = subprocess.CompletedProcess(argv, -1, "", "")
        wall = time.monotonic() - t0
        if keep is not None:
            shutil.copytree(out_dir, keep, dirs_exist_ok=True)
        evidence_path = out_dir / "evidence.json"
        evidence: dict[str, Any] = json.loads(evidence_path.read_text()) if evidence_path.is_file() else {}
        eta_path = out_dir / "logs" / "eta.jsonl"
        eta = accuracy(read_log(eta_path)) if eta_path.is_file() and not timed_out else None
    status = evidence.get("status", "missing")
    out: dict[str, Any] = {"check_status": status, "check_exit_code": done.returncode, "cpu_count": os.cpu_count()}
    verdict, decided_by = _verdict(done.stdout)
    out["check_verdict"], out["decided_by"] = verdict, decided_by
    if timed_out:
        out[WALL] = None
        out[f"{WALL}_note"] = (f"goal missed: the {'quick' if quick else 'full'} check did not finish within "
                               f"{timeout_s:.0f} s "
                               f"(stopped with SIGTERM; evidence status '{status}')")
    elif done.returncode == 0 and status == "complete":
        out[WALL] = wall
        out[f"{WALL}_note"] = f"exit 0, verdict {verdict}, {os.cpu_count()} logical cores"
    else:
        out[WALL] = None
        out[f"{WALL}_note"] = (f"not measured: check ended '{status}' (exit {done.returncode}) after {wall:.0f} s: "
                               f"{tail(done.stderr)}")
    out.update(_reconciliation(evidence.get("reconciliation")))
    out.update(_mbu(evidence))
    ab = ((evidence.get("steps") or {}).get("ab") or {}).get("evidence") or {}
    out["divergence_counts"] = ab.get("divergence_counts") or {}
    out["steps_elapsed_s"] = {k: v.get("elapsed_s") for k, v in (evidence.get("steps") or {}).items()}
    out["eta"] = eta if status == "complete" else None
    out["tuner"] = evidence.get("tuner") or {}
    return out


def _verdict(stdout: str) -> tuple[str | None, str | None]:
    """The verdict and the rule/branch that decided it, from `check --json`."""
    try:
        verdict = json.loads(stdout).get("verdict") or {}
        return verdict.get("verdict"), verdict.get("decided_by")
    except (ValueError, AttributeError):
        return None, None


def _reconciliation(rec: dict[str, Any] | None) -> dict[str, Any]:
    if not rec:
        return {RECON: None, f"{RECON}_note": "not measured: the run produced no reconciliation "
                                              "(acceptance or verify facts missing)"}
    err, pred, meas = rec.get("relative_error"), rec.get("predicted_speedup"), rec.get("measured_speedup")
    if not isinstance(err, int | float):
        return {RECON: None, f"{RECON}_note": f"not measured: predicted {pred} but no measured A/B speedup ({meas})",
                "reconciliation": rec}
    return {RECON: abs(err), f"{RECON}_note": (f"predicted {pred:.3f}×, measured A/B {meas:.3f}× "
                                                f"(signed error {err:+.3f}; α {rec.get('alpha')}, "
                                                f"γ {rec.get('gamma')}, verify ratio {rec.get('verify_ratio')})"),
            "reconciliation": rec}


def _mbu(evidence: dict[str, Any]) -> dict[str, Any]:
    base = ((evidence.get("steps") or {}).get("baseline") or {}).get("evidence") or {}
    mbu = base.get("mbu")
    if not isinstance(mbu, int | float):
        return {MBU: None, f"{MBU}_note": "not measured: the baseline step reported no MBU"}
    return {MBU: mbu, f"{MBU}_note": (f"{base.get('bytes_per_token_gb', float('nan')):.4f} GB/token × "
                                      f"{base.get('decode_tok_s', float('nan')):.1f} tok/s ÷ "
                                      f"{base.get('peak_bandwidth_gbs', float('nan')):.1f} GB/s "
                                      f"({base.get('bandwidth_source')}); bottleneck {base.get('bottleneck')}")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--keep", type=Path, help="copy each run's folder here (run-1, run-2, …)")
    ap.add_argument("--runs", type=int, default=3, help="quick checks in a row (default 3)")
    ap.add_argument("--load", choices=("both", "alone", "only"), default="both",
                    help="the runs alone, then as many under a CPU hog on one core (both, the default), or one set")
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    print(json.dumps(measure(args.timeout, args.keep, args.runs, args.load), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
