"""Perf model vs published measurements: `spec-advisor decide --facts` over every calibration case.

    .venv/bin/python -m bench.calibration [--data FILE_OR_DIR] [--json-out FILE]

Prints direction accuracy (cases measured clearly faster ≥ 1.05× or slower ≤ 0.97×, with acceptance in the
facts), median and p90 |predicted/measured − 1|, SKIPs on cases measured faster, and the ten worst cases with
what the model assumed and, from the record alone, why the facts may not describe the case. The data is read
from `$SPEC_ADVISOR_CALIBRATION` (file or folder) or `<repo>/../shared/calibration/published_train.json`; a
held-out file is scored the same way by pointing the variable at it. Without data it says so and exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from advisor.cli.main import main as cli_main
from advisor.core.policy import default_policy
from advisor.paths import CONFIG_DIR_ENV
from advisor.perf.predict import Prediction, predict
from bench.calibration_data import DATA_ENV, Case, Scored, data_paths, load, outside_facts, summary, worst
from bench.calibration_fit import leave_one_source_out
from bench.calibration_spread import held_out_rows, score_intervals

KEYS = ("calibration_direction_accuracy", "calibration_median_rel_err", "calibration_p90_rel_err",
        "calibration_false_skip", "calibration_interval_coverage_loso", "calibration_direction_accuracy_when_claimed",
        "calibration_claim_rate")
# Random samples per leave-one-source-out fit (plus the coordinate refinement): ~10 s of CPU for 26 folds, and
# the same held-out figures as the 2,000 that `bench.calibration_fit --loso` uses.
LOSO_SAMPLES = 400


def decide_cli(facts: dict[str, object], folder: Path) -> dict[str, Any]:
    """`spec-advisor decide --facts FILE --json` in this process; the parsed JSON, or {"error": …}."""
    path = folder / "facts.json"
    path.write_text(json.dumps(facts), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(["decide", "--facts", str(path), "--json"])
    if code != 0:
        return {"error": err.getvalue().strip() or f"exit {code}"}
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


def _terms(p: Prediction) -> str:
    return (f"τ {p.tokens_per_step:.2f} at γ {p.gamma}, c {p.concurrency}; plain step {p.plain_step_ms:.1f} ms; "
            f"verify {p.verify_ratio:.2f}× ({p.verify_bound}-bound), draft {p.draft_passes}×{p.draft_cost_ratio:.2f}, "
            f"spec overhead {p.overhead_ratio:.2f}")


def score_cases(cases: Sequence[Case]) -> list[Scored]:
    """Decide every case through the CLI, with user rule overrides switched off."""
    scored: list[Scored] = []
    old = os.environ.get(CONFIG_DIR_ENV)
    with tempfile.TemporaryDirectory(prefix="spec-calib-") as tmp:
        os.environ[CONFIG_DIR_ENV] = str(Path(tmp) / "config")  # the built-in rules only
        try:
            for case in cases:
                out = decide_cli(case.facts, Path(tmp))
                pred = out.get("predicted_speedup")
                detail: dict[str, Any] = {"decided_by": out.get("decided_by"), "error": out.get("error")}
                p = predict(case.facts)
                if p is not None:
                    detail |= {"terms": _terms(p), "priors": [str(m) for m in p.priors], "tau": p.tokens_per_step,
                               "plain_step_ms": p.plain_step_ms}
                scored.append(Scored(case, float(pred) if isinstance(pred, int | float) else None,
                                     str(out.get("verdict", "ERROR")), detail))
        finally:
            if old is None:
                os.environ.pop(CONFIG_DIR_ENV, None)
            else:
                os.environ[CONFIG_DIR_ENV] = old
    return scored


def _with_baseline(facts: dict[str, object]) -> float | None:
    p = predict(facts)
    return p.speedup if p is not None else None


def reasons(s: Scored) -> list[str]:
    """What the model assumed for a case and why the facts may not describe it."""
    out = [str(s.detail["terms"])] if "terms" in s.detail else []
    out += _outside(s)
    if s.detail.get("priors"):
        out.append("assumed: " + "; ".join(s.detail["priors"]))
    note = str(s.case.record.get("notes") or "")
    if note:
        out.append("source: " + (note if len(note) <= 160 else note[:157] + "…"))
    return out


def _outside(s: Scored) -> list[str]:
    return outside_facts(s.case, s.detail.get("tau"), _with_baseline, s.detail.get("plain_step_ms"))


def wrong_direction_reasons(scored: Sequence[Scored], wrong_ids: Sequence[str]) -> str:
    """For each case the model got the wrong way round, what in its record says the facts cannot describe it."""
    parts = []
    for s in scored:
        if s.case.id in wrong_ids:
            notes = _outside(s)
            parts.append(f"{s.case.id}: {'; '.join(notes) if notes else 'nothing in the record explains it'}")
    return " · ".join(parts)


def with_source_baselines(cases: Sequence[Case]) -> dict[str, Any]:
    """The same scores (prediction only) when the source's single-stream baseline tok/s joins the facts: how
    much one measured number buys. Not a headline figure — the facts as published are."""
    scored: list[Scored] = []
    for case in cases:
        base = case.record.get("base_tps")
        facts = dict(case.facts)
        if (isinstance(base, int | float) and base > 0 and facts.get("workload.concurrency", 1) == 1
                and case.record.get("concurrency_n") == 1):
            facts["baseline.decode_tok_s"] = float(base)
        p = predict(facts)
        scored.append(Scored(case, p.speedup if p else None, "n/a"))
    summ = summary(scored)
    return {k: summ[k] for k in ("direction_accuracy", "direction_wrong", "median_rel_err", "p90_rel_err")}


def measure(paths: Sequence[Path] | None = None) -> dict[str, Any]:
    """The four figures (keys in KEYS) with notes, plus the summary and the worst ten for the details."""
    files = list(paths) if paths is not None else data_paths()
    if not files:
        note = (f"not measured: no calibration data (set ${DATA_ENV} or place "
                "../shared/calibration/published_train.json next to the repo)")
        return {k: v for key in KEYS for k, v in ((key, None), (f"{key}_note", note))}
    cases = load(files)
    scored = score_cases(cases)
    summ = summary(scored)
    loso = leave_one_source_out(cases, LOSO_SAMPLES, seed=1)
    held_out = ("left one source out (each source predicted by constants fitted without it): direction "
                f"{loso['direction_right']}/{loso['direction_cases']}, median {loso['median_rel_err']}, "
                f"p90 {loso['p90_rel_err']}") if loso["cases"] else "too few sources to leave one out"
    where = (f"{summ['cases']} cases from {', '.join(p.name for p in files)}; "
             f"{summ['predicted']} predicted ({summ['no_prediction_no_acceptance']} lack acceptance)")
    policy = default_policy()
    level = policy.prediction.interval_level
    iv = score_intervals(held_out_rows(cases, LOSO_SAMPLES, seed=1), level, 1.0 + policy.ab.margin)
    iv_where = (f"{iv.cases} cases, each source's constants and spread fitted without it (the spread from the other "
                f"sources' held-out residuals), {level:.0%} interval")
    out: dict[str, Any] = {
        "calibration_interval_coverage_loso": iv.coverage,
        "calibration_interval_coverage_loso_note": f"{iv.covered}/{iv.cases} measured speedups inside; {iv_where}",
        "calibration_direction_accuracy_when_claimed": iv.direction_when_claimed,
        "calibration_direction_accuracy_when_claimed_note": (
            f"{iv.claimed_right}/{iv.claimed} claimed directions right (interval wholly above or below 1×); wrong: "
            f"{', '.join(iv.wrong_claims) or 'none'}; {iv_where}"),
        "calibration_claim_rate": iv.claim_rate,
        "calibration_claim_rate_note": (f"{iv.claimed}/{iv.clear} clear cases (≥ 1.05× or ≤ 0.97×) where the interval "
                                        f"claims a direction; the rest say 'cannot tell from these facts'; held-out "
                                        f"false SKIPs (interval below {1.0 + policy.ab.margin:g}× on a case measured "
                                        f"faster): {', '.join(iv.false_skip) or 'none'}"),
        "calibration_direction_accuracy": summ["direction_accuracy"],
        "calibration_direction_accuracy_note": (
            f"{summ['direction_right']}/{summ['direction_cases']} clear cases with acceptance; "
            f"wrong: {', '.join(summ['direction_wrong']) or 'none'}; {where}; {held_out}"
            + (f". Why the wrong ones are outside the facts — {why}" if (why := wrong_direction_reasons(
                scored, summ["direction_wrong"])) else "")),
        "calibration_median_rel_err": summ["median_rel_err"],
        "calibration_median_rel_err_note": (f"over {summ['error_cases']} cases with a prediction and a measured "
                                            f"speedup; {held_out}"),
        "calibration_p90_rel_err": summ["p90_rel_err"],
        "calibration_p90_rel_err_note": f"nearest rank over {summ['error_cases']} cases",
        "calibration_false_skip": summ["false_skip"],
        "calibration_false_skip_note": (f"SKIP verdicts on cases measured faster: {summ['false_skip_ids'] or 'none'}; "
                                        f"SKIPs on cases measured slower: {summ['true_skip']}"),
        "calibration_summary": summ,
        "calibration_leave_one_source_out": loso,
        "calibration_with_source_baselines": with_source_baselines(cases),
        "calibration_worst": [{"id": s.case.id, "predicted": s.predicted, "measured": s.case.speedup,
                               "verdict": s.verdict, "reasons": reasons(s)} for s in worst(scored)],
    }
    return out


def _print(out: dict[str, Any]) -> None:
    for key in KEYS:
        value = out.get(key)
        shown = f"{value:.3f}" if isinstance(value, float) else str(value)
        print(f"{key:34s} {shown:>8s}  {out.get(f'{key}_note', '')}")
    summ = out.get("calibration_summary")
    if summ:
        print(f"verdicts: {summ['verdicts']}; largest under-prediction of a gain: "
              f"{summ['max_underprediction_of_a_gain']:.2f}×")
        print(f"with the sources' baseline tok/s added to the facts: {out['calibration_with_source_baselines']}")
        print(f"left one source out: {out['calibration_leave_one_source_out']}")
    for i, w in enumerate(out.get("calibration_worst") or [], 1):
        pred = f"{w['predicted']:.2f}×" if isinstance(w["predicted"], float) else "n/a"
        print(f"\n{i:2d}. {w['id']}: predicted {pred}, measured {w['measured']:.2f}× ({w['verdict']})")
        for line in w["reasons"]:
            print(f"      - {line}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path,
                    help=f"calibration JSON file or folder (default: ${DATA_ENV} or the shared file)")
    ap.add_argument("--json-out", type=Path, help="also write the figures and details as JSON here")
    args = ap.parse_args(argv)
    if args.data is not None:
        os.environ[DATA_ENV] = str(args.data)
    out = measure()
    _print(out)
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
