"""CLI progress printer: one line per step start/end, a live status line per unit, warnings as they come."""

from __future__ import annotations

import sys
from typing import TextIO

from advisor.events import Event, Progress, QualityWarning, StepDone, StepStarted


class ProgressPrinter:
    """Subscriber that writes human progress to a stream (stderr by default)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self._live = self.stream.isatty()

    def __call__(self, event: Event) -> None:
        """Print `event` if it is something a person wants to see."""
        if isinstance(event, StepStarted):
            self._line(f"[{event.index}/{event.total}] {event.title}")
        elif isinstance(event, Progress) and self._live:
            self.stream.write(f"\r      {event.done}/{event.total} {event.message[:60]:<60}")
            self.stream.flush()
        elif isinstance(event, QualityWarning):
            self._line(f"      ! {event.message}")
        elif isinstance(event, StepDone):
            tail = f" — {event.reason}" if event.reason else ""
            self._line(f"      {event.status} in {event.elapsed_s:.1f} s{tail}")

    def _line(self, text: str) -> None:
        if self._live:
            self.stream.write("\r\033[K")
        self.stream.write(text + "\n")
        self.stream.flush()
