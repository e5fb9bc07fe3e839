"""CLI progress printer: one line per step start/end, a live status line per unit, warnings as they come;
the run's elapsed and remaining time (advisor/run/eta.py) on each step line and on the live line."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TextIO

from advisor.events import CheckSized, Progress, QualityWarning, StepDone, StepStarted
from advisor.evidence.time_plan import TimePlan
from advisor.report.strings import TABLES, progress_text, step_warning, text
from advisor.run.done import SessionDone, SessionEvent
from advisor.run.eta import EtaTracker, clock_text, estimate_line
from advisor.termsafe import CLEAR_LINE, terminal_safe, write_control


class ProgressPrinter:
    """Subscriber that writes human progress to a stream (stderr by default), in `lang` (en or zh)."""

    def __init__(self, stream: TextIO | None = None, lang: str = "en", eta: EtaTracker | None = None) -> None:
        self.stream = stream or sys.stderr
        self._live = self.stream.isatty()
        self.eta = eta or EtaTracker()
        self.lang = lang
        self._text = functools.partial(text, lang)
        self.header = ""  # printed before the first event of a check that starts (its plan and length)

    def overall(self) -> str:
        """`3/40 units · 1:05 elapsed · about 2:30 left` (the estimate once there is a rate)."""
        return estimate_line(self.eta.estimate(), self._text)

    def __call__(self, event: SessionEvent) -> None:
        """Print `event` if it is something a person wants to see."""
        self.eta(event)
        if self.header and not isinstance(event, SessionDone):
            self._line(self.header)
            self.header = ""
        if isinstance(event, StepStarted):
            title = self._text(f"step.{event.step}") if f"step.{event.step}" in TABLES["en"] else event.title
            self._line(f"[{event.index}/{event.total}] {title} — {self.overall()}")
        elif isinstance(event, Progress) and self._live:
            unit = progress_text(self.lang, event)
            write_control(self.stream, CLEAR_LINE)
            self.stream.write(terminal_safe(f"      {event.done}/{event.total} {unit[:40]:<40} {self.overall()}"))
            self.stream.flush()
        elif isinstance(event, QualityWarning):
            self._line(f"      ! {step_warning(self.lang, event.message)}")
        elif isinstance(event, CheckSized):
            self._line(f"      {sized_line(event.plan, self._text)}")
        elif isinstance(event, StepDone):
            tail = f" — {step_warning(self.lang, event.reason)}" if event.reason else ""
            status = self._text(f"status.{event.status}")
            done = self._text("progress.step_done", status=status, seconds=f"{event.elapsed_s:.1f}")
            self._line(f"      {done}{tail}")

    def _line(self, text: str) -> None:
        if self._live:
            write_control(self.stream, CLEAR_LINE)
        self.stream.write(terminal_safe(text) + "\n")  # names and warnings may come from the engine
        self.stream.flush()


def sized_line(plan: TimePlan, text: Callable[..., str]) -> str:
    """`sized to fit 9:00 at 2.0 s a request: Draft acceptance 1:20 · Tuner 1:42 · …`, and the steps whose
    smallest size still runs past their share."""
    steps = " · ".join(f"{text(f'step.{step}')} {clock_text(seconds)}" for step, seconds in plan.steps.items())
    line = text("progress.sized", target=clock_text(plan.target_s or plan.planned_s), request_s=plan.request_s,
                steps=steps)
    if plan.over_share:
        line += text("progress.sized_over", steps=", ".join(text(f"step.{s}") for s in plan.over_share))
    return line
