"""Contention noticed while a check runs: decode with speculation off far below the baseline step's median.

The preflight guard reads the load average once, before the start; another program that starts later (a build,
a second engine, a game) slows every request after it, and the A/B's verdict then describes a shared machine.
The baseline step measured this machine's speculation-off decode speed; every later speculation-off request
(the A/B's OFF arm, `Sample("ab", "off_tok_s")`) is held against it, and `policy.contention.consecutive` of them
in a row under `policy.contention.slow_fraction` of that median is said at once, as a warning the progress
line, the window and the step's evidence carry (once per step), with what to do: pause the other work, or stop
and resume later.
"""

from __future__ import annotations

from advisor.core.policy import ContentionPolicy
from advisor.events import Event, QualityWarning, Sample
from advisor.evidence.warnings import WarningCode
from advisor.text.message import msg

# Speculation-off decode speeds the steps report after the baseline, by (step, series).
OFF_DECODE = {("ab", "off_tok_s")}


class ContentionWatch:
    """Watches one step's speculation-off decode samples; `observe` returns the warning when it first holds."""

    def __init__(self, policy: ContentionPolicy, baseline_tok_s: float | None) -> None:
        self.policy = policy
        self.baseline = baseline_tok_s if baseline_tok_s and baseline_tok_s > 0 else None
        self.slow_run = 0        # requests in a row under the limit
        self.warned: QualityWarning | None = None

    def observe(self, event: Event) -> QualityWarning | None:
        """The contention warning when `event` completes a slow run of requests (once per step), else None."""
        if self.baseline is None or self.warned is not None or not isinstance(event, Sample) \
                or (event.step, event.series) not in OFF_DECODE:
            return None
        limit = self.policy.slow_fraction * self.baseline
        self.slow_run = self.slow_run + 1 if event.y < limit else 0
        if self.slow_run < self.policy.consecutive:
            return None
        message = msg("warn.contended", tok=event.y, n=self.slow_run, fraction=self.policy.slow_fraction,
                      base=self.baseline)
        self.warned = QualityWarning(event.step, WarningCode.CONTENDED, message)
        return self.warned
