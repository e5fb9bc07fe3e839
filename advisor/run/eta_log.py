"""The clock's own history: every estimate the check showed, one JSON line each, in `logs/eta.jsonl`.

What the window and the CLI print as "about 2:30 left" is gone once the check ends; this log keeps it, so a
check that promised five minutes and took twenty can be read back (where the plan was wrong: a step's rate, a
load, an unplanned step) and the ETA's accuracy can be measured (bench/eta_accuracy.py). A line per event that
can move the estimate (the plan, a load, a step's start and end, a finished unit) and a last one at the end:

    {"t_s": 41.2, "remaining_s": 96.0, "done": 12, "planned": 40, "step": "acceptance", "event": "Progress",
     "of": {"step": "acceptance", "done": 3, "total": 13, "detail": "acceptance_prompt"}}

`remaining_s` is null while there is no rate yet. `of` is what the event said (the plan, a load's seconds, a
unit's count), so a log can be replayed through another estimator (bench/eta_accuracy.py `replay`). A log that
cannot be written (a full disk) is dropped after the first failure, never the check.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

from advisor.events import Progress, RunPlanned, Sample, ServerRestarted, StepDone, StepStarted
from advisor.run.done import SessionDone, SessionEvent
from advisor.run.eta import PAIR_SPEEDUP, EtaTracker

log = logging.getLogger(__name__)

_MOVES_THE_CLOCK = (RunPlanned, ServerRestarted, StepStarted, Progress, Sample, StepDone, SessionDone)


class EtaLog:
    """A session subscriber that keeps its own `EtaTracker` and appends each estimate to `path`."""

    def __init__(self, path: Path, tracker: EtaTracker | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.path = path
        self.tracker = tracker or (EtaTracker(clock) if clock is not None else EtaTracker())
        self.broken = False

    def __call__(self, event: SessionEvent) -> None:
        """Update the estimate from `event` and log it when the event can move it."""
        self.tracker(event)
        if self.broken or not isinstance(event, _MOVES_THE_CLOCK):
            return
        if isinstance(event, Progress) and event.done < 1:
            return  # a warm-up: nothing finished, the estimate has not moved
        if isinstance(event, Sample):
            if (event.step, event.series) == PAIR_SPEEDUP:  # the only samples the clock reads: an input, kept
                # for a replay, never an estimate (the A/B sends it just before its pair's Progress, while the
                # finished pair still counts as under way)
                self._write({"t_s": round(self.tracker.clock() - self.tracker.started, 3), "input": True,
                             "event": "Sample", **_what(event)})
            return
        est = self.tracker.estimate()
        line = {"t_s": round(est.elapsed_s, 3),
                "remaining_s": None if est.remaining_s is None else round(est.remaining_s, 3),
                "done": est.done, "planned": est.planned, "step": self.tracker.current,
                "event": type(event).__name__}
        line.update(_what(event))
        if isinstance(event, SessionDone):
            line["end"] = True
            line["status"] = event.status
        self._write(line)

    def _write(self, line: dict[str, object]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(line) + "\n")
        except OSError as exc:
            self.broken = True
            log.warning("the ETA log %s could not be written (%s); the check goes on without it", self.path, exc)


def _what(event: SessionEvent) -> dict[str, object]:
    """What `event` told the clock, as JSON (its sentences and evidence left out)."""
    if isinstance(event, RunPlanned):
        return {"of": {"units": dict(event.units), "restarts": dict(event.restarts), "load_s": event.load_s,
                       "work": {step: [[w.requests, round(w.prompt_tokens, 1), *([w.kind] if w.kind else [])]
                                       for w in units] for step, units in event.work.items()}}}
    if isinstance(event, ServerRestarted):
        return {"of": {"phase": event.phase, "seconds": round(event.seconds, 3)}}
    if isinstance(event, Progress):
        return {"of": {"step": event.step, "done": event.done, "total": event.total, "detail": event.detail}}
    if isinstance(event, (StepStarted, StepDone)):
        return {"of": {"step": event.step}}
    if isinstance(event, Sample):
        return {"of": {"step": event.step, "series": event.series, "x": event.x, "y": round(event.y, 4)}}
    return {}
