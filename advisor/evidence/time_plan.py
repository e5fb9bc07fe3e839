"""The steps' planned seconds after the baseline, and a full check's sizes fitted to its time budget
(advisor/run/budget.py), kept in the evidence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class TimePlan:
    """The budget the steps were sized to (s), the pace they were sized at (s per request at the check's answer
    length, s per model load), each sized step's planned seconds, and the steps whose smallest size still ran
    past their share (a slow model: the check runs longer than the target rather than measure less)."""

    target_s: float | None  # None: a quick check or fixed sizes, planned but not sized
    request_s: float
    load_s: float
    steps: Mapping[str, float] = field(default_factory=dict)
    over_share: tuple[str, ...] = ()

    @property
    def planned_s(self) -> float:
        """The sized steps' seconds together."""
        return sum(self.steps.values())
