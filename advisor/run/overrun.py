"""A step that runs far past its planned seconds says so, once, while it runs and in its evidence.

The plan is the baseline's pace applied to the step's units (advisor/run/budget.py): a step that has taken
`policy.budget.overrun_factor` times that is not measuring the machine the check started on — another program
took the cores, the GPU clocked down, a swap stalls every load. Saying so at once lets the user pause the
other work or stop and resume later; the step goes on, and what it measured is kept either way (the session
saves the evidence after every step).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from advisor.core.policy import BudgetPolicy
from advisor.events import Event, Progress, QualityWarning
from advisor.evidence.warnings import WarningCode
from advisor.run.eta import clock_text
from advisor.text.message import msg


class OverrunWatch:
    """Watches one step against its planned seconds; `observe` returns the warning when it first runs past."""

    def __init__(self, step: str, planned_s: float | None, policy: BudgetPolicy,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.step = step
        # a step planned for a few seconds is not watched (policy.budget.overrun_min_s)
        self.planned_s = planned_s if planned_s is not None and planned_s >= policy.overrun_min_s else None
        self.factor = policy.overrun_factor
        self.clock = clock
        self.started = clock()
        self.done, self.total = 0, 0
        self.warned: QualityWarning | None = None

    def observe(self, event: Event) -> QualityWarning | None:
        """The overrun warning when the step has just run past its plan (once per step), else None."""
        if isinstance(event, Progress) and event.step == self.step and event.done >= 1:
            self.done, self.total = event.done, max(event.total, event.done)
        if self.planned_s is None or self.warned is not None:
            return None
        took = self.clock() - self.started
        if took <= self.factor * self.planned_s:
            return None
        total = max(self.total, self.done + 1)
        message = msg("warn.step_overrun", took=clock_text(took), planned=clock_text(self.planned_s),
                      done=self.done, total=total, next=min(self.done + 1, total))
        self.warned = QualityWarning(self.step, WarningCode.STEP_OVERRUN, message)
        return self.warned
