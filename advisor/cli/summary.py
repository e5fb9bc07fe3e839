"""The end-of-check summary a person reads in the terminal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from advisor.events import SessionDone


def _fmt(value: object, spec: str = ".2f", suffix: str = "") -> str:
    return f"{value:{spec}}{suffix}" if isinstance(value, int | float) else "—"


def print_summary(evidence: Mapping[str, Any], done: SessionDone, out: TextIO) -> None:
    """Verdict, speedup, flags, the reasons, per-step status and where the run folder is."""
    steps = evidence.get("steps") or {}
    out.write("\n")
    for sid, step in steps.items():
        reason = f" ({step['reason']})" if step.get("reason") else ""
        out.write(f"  {sid:<11} {step['status']}{reason}\n")
    if not steps:
        out.write(f"Check {done.status}: {done.message or 'nothing was measured'}\n")
        return
    base = (steps.get("baseline") or {}).get("evidence") or {}
    acc = (steps.get("acceptance") or {}).get("evidence") or {}
    ab = (steps.get("ab") or {}).get("evidence") or {}
    out.write(f"\n  decode {_fmt(base.get('decode_tok_s'), '.1f', ' tok/s')}, MBU {_fmt(base.get('mbu'), '.0%')}, "
              f"bottleneck {base.get('bottleneck', '—')}\n")
    out.write(f"  acceptance {_fmt(acc.get('rate'), '.0%')}, mean length {_fmt(acc.get('mean_length'))}, "
              f"repeat inflation {_fmt(acc.get('repeat_inflation'), '.2f', '×')}\n")
    if ab:
        out.write(f"  A/B speedup {_fmt(ab.get('speedup'), '.3f', '×')} "
                  f"[{_fmt(ab.get('ci_low'), '.3f')}, {_fmt(ab.get('ci_high'), '.3f')}] "
                  f"over {ab.get('n_prompts', 0)} prompt pairs\n")
    verdict = done.verdict or {}
    out.write(f"\nVerdict: {verdict.get('verdict', 'INCONCLUSIVE')}\n")
    predicted = verdict.get("predicted_speedup")
    if isinstance(predicted, int | float):
        prior = " (uses priors)" if verdict.get("prediction_is_prior") else ""
        out.write(f"  predicted speedup {predicted:.2f}×{prior}\n")
    for line in verdict.get("because") or []:
        out.write(f"  - {line}\n")
    flags = verdict.get("flags")
    if isinstance(flags, Mapping) and flags.get("command"):
        out.write(f"  flags: {flags['command']}\n")
    if done.message:
        out.write(f"\n{done.message}\n")
    if done.run_dir:
        out.write(f"\nRun folder: {done.run_dir}\n")
