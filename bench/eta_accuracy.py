"""How right the check's clock was: its remaining-time estimates against the time that really remained.

Read from a finished check's `logs/eta.jsonl` (advisor/run/eta_log.py: one line per estimate, the last one at
the end). For every estimate shown once a tenth of the check had passed, the error is

    |estimated remaining − true remaining| ÷ max(true remaining, a tenth of the check)

so "right within 20 %" means within a fifth of what was really left, and in the check's last tenth (where a
few seconds would be a huge share of almost nothing) within a fifth of a tenth of the whole. An estimate left
blank after the first tenth (no rate, an unplanned step) counts as a miss of 1.0: a clock that says nothing is
not right. `eta_error_max_after_10pct` is the worst error over the quick checks of bench/quick_check.py that
finished.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from advisor.events import Event, Progress, RunPlanned, Sample, ServerRestarted, StepDone, StepStarted, UnitWork
from advisor.run.eta import EtaTracker

KEY = "eta_error_max_after_10pct"
FROM_SHARE = 0.10  # of the check's wall time: the "once a tenth of the check is done"


@dataclass(frozen=True, slots=True)
class EtaAccuracy:
    """The worst error (a share; see the module docstring), where it was, and how many estimates counted."""

    max_error: float
    at_s: float
    total_s: float
    estimates: int
    blank: int

    def note(self) -> str:
        """One line for docs/benchmarks.md."""
        return (f"worst {self.max_error:.2f} at {self.at_s:.0f} s of {self.total_s:.0f} s; "
                f"{self.estimates} estimates after the first tenth, {self.blank} blank")


def read_log(path: Path) -> list[dict[str, object]]:
    """The log's lines (an unreadable line is skipped: a check killed mid-write leaves half of one)."""
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if isinstance(item, dict):
            lines.append(item)
    return lines


def accuracy(lines: list[dict[str, object]]) -> EtaAccuracy | None:
    """The accuracy of one check's clock (None: the log has no end line, so the true remaining time is not known)."""
    ends = [line for line in lines if line.get("end")]
    if not ends:
        return None
    total = _seconds(ends[-1].get("t_s"))
    if total is None or total <= 0:
        return None
    floor = FROM_SHARE * total
    worst, at, counted, blank = 0.0, 0.0, 0, 0
    for line in lines:
        t = _seconds(line.get("t_s"))
        if t is None or t < floor or line.get("end") or line.get("input"):
            continue  # an input line (the A/B's pair speedups) is what the clock read, not what it showed
        counted += 1
        est = _seconds(line.get("remaining_s"))
        if est is None:
            blank += 1
            err = 1.0
        else:
            true_left = max(total - t, 0.0)
            err = abs(est - true_left) / max(true_left, floor)
        if err > worst:
            worst, at = err, t
    return EtaAccuracy(worst, at, total, counted, blank)


def _seconds(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def replay(lines: list[dict[str, object]], tracker: Callable[[Callable[[], float]], EtaTracker] = EtaTracker,
           work: Mapping[str, tuple[UnitWork, ...]] | None = None) -> list[dict[str, object]]:
    """The log's lines with the estimates `tracker` would have shown at the same moments: what each event told
    the clock (`of`) is fed again on a clock that reads each line's time. `work` stands in for the plan's
    (a log from before units had their work planned). Lines without `of` (an older log) move nothing."""
    now = [0.0]
    eta = tracker(lambda: now[0])
    out = []
    for line in lines:
        t = _seconds(line.get("t_s"))
        if t is not None:
            now[0] = t
        event = _event(line, work)
        if event is not None:
            eta(event)
        out.append(line if line.get("input") else {**line, "remaining_s": eta.estimate().remaining_s})
    return out


def _event(line: Mapping[str, object], work: Mapping[str, tuple[UnitWork, ...]] | None) -> Event | None:
    of = line.get("of")
    kind = line.get("event")
    if not isinstance(of, dict):
        return None
    if kind == "RunPlanned":
        logged = of.get("work") or {}
        planned = work if work is not None else {
            step: tuple(UnitWork(float(u[0]), float(u[1]), str(u[2]) if len(u) > 2 else "") for u in units)
            for step, units in logged.items()}
        return RunPlanned(dict(of.get("units") or {}), dict(of.get("restarts") or {}), of.get("load_s"), planned)
    if kind == "ServerRestarted":
        return ServerRestarted(str(of.get("phase", "")), float(of.get("seconds") or 0.0))
    if kind == "Progress":
        return Progress(str(of["step"]), int(of["done"]), int(of["total"]), str(of.get("detail", "")))
    if kind == "StepStarted":
        return StepStarted(str(of["step"]), "", 0, 0)
    if kind == "StepDone":
        return StepDone(str(of["step"]), "done")
    if kind == "Sample":
        return Sample(str(of["step"]), str(of["series"]), float(of["x"]), float(of["y"]))
    return None
