"""A step far past its planned seconds says so once, live and in its evidence, with what it is waiting on, in
English and Chinese; the step goes on and keeps what it measures (advisor/run/overrun.py)."""

from __future__ import annotations

import functools
import io
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from advisor.cli.progress import ProgressPrinter
from advisor.config import CheckConfig
from advisor.core.policy import default_policy
from advisor.events import Event, Progress, QualityWarning, StepDone
from advisor.evidence.time_plan import TimePlan
from advisor.evidence.warnings import WarningCode
from advisor.report.strings import step_warning
from advisor.run import session as session_module
from advisor.run.overrun import OverrunWatch
from advisor.run.session import Session

BUDGET = default_policy().budget
FACTOR = BUDGET.overrun_factor


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _unit(done: int, total: int = 10) -> Progress:
    return Progress.unit("acceptance", done, total, "acceptance_prompt")


def test_a_step_within_its_plan_says_nothing_and_one_past_it_says_so_once() -> None:
    clock = _Clock()
    watch = OverrunWatch("acceptance", 60.0, BUDGET, clock)
    clock.now += 60.0 * FACTOR - 1
    assert watch.observe(_unit(3)) is None  # slower than planned, not far past it
    clock.now += 2
    warning = watch.observe(_unit(4))
    assert isinstance(warning, QualityWarning) and warning.code is WarningCode.STEP_OVERRUN
    english = str(warning.message)
    assert "1:31" in english and "1:00" in english and "4 of 10 units" in english and "unit 5" in english
    assert "check --resume" in english
    clock.now += 100
    assert watch.observe(_unit(5)) is None  # said once per step
    zh = step_warning("zh", warning.message)
    assert "4/10" in zh and "第 5 个" in zh and "check --resume" in zh and "units" not in zh


@pytest.mark.parametrize("planned", [None, BUDGET.overrun_min_s / 2])
def test_an_unplanned_or_tiny_step_is_not_watched(planned: float | None) -> None:
    assert "budget.overrun_min_s" in default_policy().notes  # with its reason in rules/policy.toml
    clock = _Clock()
    watch = OverrunWatch("verify", planned, BUDGET, clock)
    clock.now += 10_000
    assert watch.observe(_unit(1)) is None


class _SlowStep:
    id, title = "acceptance", "acceptance"

    def __init__(self, clock: _Clock) -> None:
        self.clock = clock

    def run(self, ctx: Any) -> Iterator[Event]:
        for i in range(4):
            self.clock.now += 40.0  # planned 60 s for the step: the third unit is past 1.5 × 60
            yield _unit(i + 1, 4)
        yield StepDone("acceptance", "done")


def test_the_session_says_it_live_and_keeps_it_in_the_steps_evidence(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock()
    monkeypatch.setattr(session_module, "OverrunWatch", functools.partial(OverrunWatch, clock=clock))
    seen: list[Event] = []
    session = Session(CheckConfig(quick=True), subscribers=[seen.append])
    session.evidence = session.evidence.__class__(time_plan=TimePlan(None, 2.0, 0.5, {"acceptance": 60.0}))
    ctx: Any = SimpleNamespace(prior={}, policy=default_policy())
    done = session._run_one(_SlowStep(clock), ctx)
    warnings = [e for e in seen if isinstance(e, QualityWarning)]
    assert [w.code for w in warnings] == [WarningCode.STEP_OVERRUN]
    assert done.status == "done" and done.warnings == (warnings[0],)  # the step went on and kept its units
    assert sum(isinstance(e, Progress) for e in seen) == 4
    out = io.StringIO()
    ProgressPrinter(out, lang="en")(warnings[0])
    assert "this step has run" in out.getvalue()
