"""Why a chart has nothing to draw, in one line: the step was not chosen, not reached, skipped or failed (with
the step's own reason), stopped, or it finished without a value this chart shows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from advisor.report.strings import step_warning
from advisor.text.message import Message
from ui.strings import language, tr


@dataclass(frozen=True, slots=True)
class StepEnd:
    """How a step ended, as the panel heard it (a StepDone, or a saved run's record)."""

    status: str  # done / skipped / failed / aborted
    reason: Message | str = ""  # a Message renders in the reader's language (advisor/text/message.py)


@dataclass(frozen=True, slots=True)
class Plan:
    """The steps a check was to run; `ended` once the check is over (a step never reached is then 'not run')."""

    steps: frozenset[str] | None = None  # None: not known (an old saved run)
    ended: bool = False


def why_empty(step: str, end: StepEnd | None, plan: Plan, empty_key: str) -> Callable[[], str] | None:
    """The line an empty chart of `step` shows (a function: it is written again on a language switch), or None
    while the step may still draw something."""
    if plan.steps is not None and step not in plan.steps and end is None:
        return lambda: tr("chart.empty.not_chosen")
    if end is None:
        return (lambda: tr("chart.empty.not_run")) if plan.ended else None
    reason = end.reason.strip() if isinstance(end.reason, str) else end.reason
    if end.status in ("skipped", "failed"):
        if not reason:
            return lambda: tr(f"chart.empty.{end.status}_plain")
        return lambda: tr(f"chart.empty.{end.status}", reason=step_warning(language(), reason))
    if end.status == "aborted":
        return lambda: tr("chart.empty.aborted")
    return lambda: tr(empty_key)
