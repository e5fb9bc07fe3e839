"""The run view shows the whole run's elapsed time, and the time left once there is a rate, in EN and ZH."""

from __future__ import annotations

from advisor.config import CheckConfig
from advisor.events import Progress, RunPlanned, StepStarted
from advisor.run.done import SessionDone
from advisor.run.eta import EtaTracker
from advisor.run.session import Session
from ui.run_view import RunView
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


def test_the_current_unit_and_the_categories_follow_a_language_switch(qtbot) -> None:  # type: ignore[no-untyped-def]
    # the zh run screenshot kept "8 of 25 · pair 8: continue" and English category ticks after the switch
    view = RunView()
    qtbot.addWidget(view)
    set_language("en")
    view.handle(StepStarted("ab", "A/B", 6, 6))
    view.handle(Progress.unit("ab", 8, 25, "ab_pair", pair=8, decision="CONTINUE"))
    assert view.steps.message.text() == "8 of 25 · pair 8: continue"
    view.charts.categories._index("code")
    try:
        set_language("zh")
        view.retranslate()
        view.charts.categories.retranslate()
        assert view.steps.message.text() == "第 8 / 25 项 · 第 8 对：继续"
        ticks = view.charts.categories.getPlotItem().getAxis("left")._tickLevels
        assert ticks == [[(0, "编写代码")]]
    finally:
        set_language("en")
