"""The run view shows the whole run's elapsed time, and the time left once there is a rate, in EN and ZH."""

from __future__ import annotations

from advisor.config import CheckConfig
from advisor.events import Progress, RunPlanned, SessionDone, StepStarted
from advisor.run.eta import EtaTracker
from advisor.run.session import Session
from ui.strings import set_language, tr


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_elapsed_then_remaining_then_final(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    view = window.run_view
    view.begin(Session(CheckConfig(quick=True, steps=("baseline",)), run_dir=tmp_path))
    clock = Clock()
    view.eta = EtaTracker(clock)
    view.handle(RunPlanned({"baseline": 3}))
    view.handle(StepStarted("baseline", "Baseline", 1, 1))
    clock.now = 5
    view._show_overall()
    assert tr("progress.elapsed", elapsed="0:05") in view.overall.text()
    assert tr("progress.eta", left="0:00").split("0:00")[0] not in view.overall.text()  # no rate yet
    view.handle(Progress("baseline", 1, 3))
    view._show_overall()
    assert view.overall.text().endswith(tr("progress.eta", left="0:10"))
    set_language("zh")
    view.retranslate()
    assert view.overall.text().endswith(tr("progress.eta", left="0:10")) and "约剩" in view.overall.text()
    view.end(SessionDone(status="complete", run_dir=str(tmp_path)))
    assert "约剩" not in view.overall.text() and tr("progress.elapsed", elapsed="0:05") in view.overall.text()
