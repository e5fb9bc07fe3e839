"""The end-of-check summary a person reads in the terminal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

from advisor.events import SessionDone
from advisor.evidence.schema import Evidence
from advisor.report.sections import by_task, tuner_section
from advisor.report.strings import category_name, mix_line
from advisor.report.tuner_text import tuner_sentences, tuner_table


def _fmt(value: object, spec: str = ".2f", suffix: str = "") -> str:
    return f"{value:{spec}}{suffix}" if isinstance(value, int | float) else "—"


def _by_task(evidence: Evidence, out: TextIO) -> None:
    """Per-category speedups beside the pooled figure (simultaneous intervals; the verdict pools them all)."""
    task = by_task(evidence)
    rows = [r for r in task["rows"] if r["n_pairs"]]
    if not rows:
        return
    out.write(f"  {mix_line(task, 'en')}\n")
    width = max(len(category_name(r["category"], "en")) for r in rows)
    for r in rows:
        ci = f"[{_fmt(r['ci_low'], '.2f')}, {_fmt(r['ci_high'], '.2f')}]" if r["ci_low"] is not None else ""
        out.write(f"    {category_name(r['category'], 'en'):<{width}}  {r['n_pairs']:>3} pairs  "
                  f"{_fmt(r['speedup'], '.2f', '×'):>6} {ci:<14} {r['label']}\n")


def print_summary(evidence: Evidence, done: SessionDone, out: TextIO) -> None:
    """Verdict, speedup, flags, the reasons, per-step status and where the run folder is."""
    out.write("\n")
    for sid, step in evidence.steps.items():
        reason = f" ({step.reason})" if step.reason else ""
        out.write(f"  {sid:<11} {step.status}{reason}\n")
    if not evidence.steps:
        if done.status != "failed":  # a failure's reason is an error: the CLI prints it on stderr
            out.write(f"Check {done.status}: {done.message or 'nothing was measured'}\n")
        return
    base, acc, ab = evidence.baseline, evidence.acceptance, evidence.ab
    if base is not None:
        out.write(f"\n  decode {_fmt(base.decode_tok_s, '.1f', ' tok/s')}, MBU {_fmt(base.mbu, '.0%')}, "
                  f"bottleneck {base.bottleneck or '—'}\n")
    if acc is not None:
        out.write(f"  acceptance {_fmt(acc.rate, '.0%')}, mean length {_fmt(acc.mean_length)}, "
                  f"repeat inflation {_fmt(acc.repeat_inflation, '.2f', '×')}\n")
    if ab is not None:
        out.write(f"  A/B speedup {_fmt(ab.speedup, '.3f', '×')} "
                  f"[{_fmt(ab.ci_low, '.3f')}, {_fmt(ab.ci_high, '.3f')}] over {ab.n_prompts} prompt pairs"
                  + (" (ON server started fresh)" if ab.pool is not None and ab.pool.fresh else "") + "\n")
        _by_task(evidence, out)
    if (tuner := tuner_section(evidence)) is not None:
        for line in tuner_sentences(tuner, "en"):
            out.write(f"  tuner: {line}\n")
        _, rows = tuner_table(tuner, "en")
        for row in rows:
            out.write(f"    {row[0]:<14} k = {row[1]:<3} {row[2]}\n")
    if evidence.restarts:
        phases = ", ".join(f"{r.before} ({r.seconds:.1f} s)" for r in evidence.restarts)
        out.write(f"  ON server restarted before: {phases}\n")
    verdict = done.verdict or {}
    out.write(f"\nVerdict: {verdict.get('verdict', 'INCONCLUSIVE')}\n")
    if verdict.get("measured_with"):
        out.write(f"  measured with {verdict['measured_with']}\n")
    predicted = verdict.get("predicted_speedup")
    if isinstance(predicted, int | float):
        prior = " (uses priors)" if verdict.get("prediction_is_prior") else ""
        out.write(f"  predicted speedup {predicted:.2f}×{prior}\n")
    for line in verdict.get("because") or []:
        out.write(f"  - {line}\n")
    for line in verdict.get("warnings") or []:
        out.write(f"  ! {line}\n")
    for line in verdict.get("caveats") or []:
        out.write(f"  ? {line}\n")
    flags = verdict.get("flags")
    if isinstance(flags, Mapping) and flags.get("command"):
        out.write(f"  flags: {flags['command']}\n")
    if done.message:
        out.write(f"\n{done.message}\n")
    if done.run_dir:
        out.write(f"\nRun folder: {done.run_dir}\n")
