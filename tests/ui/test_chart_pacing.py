"""The charts spread their work over event loop turns so the window keeps responding: at most PER_TICK
charts redrawn per live tick, the end of a check finishes them one per turn, a shown panel paints them one
per turn. These tests check that the work arrives (every chart drawn, fitted, painted), not how fast."""

from __future__ import annotations

from pathlib import Path

from advisor.core.policy import load_policy
from advisor.events import StepDone
from ui.charts.ab import ABChart
from ui.charts.panel import PER_TICK, ChartPanel
from ui.run_folder import load_run


def _panel_with_points(qtbot) -> ChartPanel:  # type: ignore[no-untyped-def]
    panel = ChartPanel()
    qtbot.addWidget(panel)
    panel.resize(1100, 820)
    panel.start(load_policy(), [10, 20])
    panel.timer.stop()  # the test drives the ticks itself
    for chart in panel.charts:
        for key in chart.rings:
            for x in range(5):
                chart.append(key, float(x), 1.0 + x)
    return panel


def _dirty(panel: ChartPanel) -> list[str]:
    return [type(c).__name__ for c in panel.charts if any(r.dirty for r in c.rings.values())]


def test_live_tick_draws_a_few_charts_and_reaches_all_of_them(qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = _panel_with_points(qtbot)
    before = len(_dirty(panel))
    assert before > PER_TICK
    panel._tick()
    assert len(_dirty(panel)) == before - PER_TICK
    for _ in range(len(panel.charts)):
        panel._tick()
    assert _dirty(panel) == []  # round-robin: every chart got its turn
    panel.stop()


def test_stop_finishes_every_chart_on_later_turns(qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = _panel_with_points(qtbot)
    panel.stop()
    assert panel.settling and not panel.timer.isActive()
    qtbot.waitUntil(lambda: not panel.settling, timeout=10_000)
    assert _dirty(panel) == []
    decode = panel.decode
    assert decode._x_range is not None and decode._x_range[1] == 4.0  # fitted: no live headroom left


def test_a_shown_panel_paints_every_chart(qtbot, saved_run: Path) -> None:  # type: ignore[no-untyped-def]
    panel = ChartPanel()
    qtbot.addWidget(panel)
    panel.replay(load_run(saved_run).evidence)
    panel.resize(1100, 820)
    panel.show()
    assert panel.settling  # held back, to be painted one per turn
    qtbot.waitUntil(lambda: not panel.settling, timeout=10_000)
    assert all(chart.updatesEnabled() for chart in panel.charts)
    assert panel.decode._suffix.startswith("MBU")  # the saved evidence reached the charts


def test_a_step_end_reaches_its_charts_one_per_turn(qtbot, saved_run: Path) -> None:  # type: ignore[no-untyped-def]
    panel = ChartPanel()
    qtbot.addWidget(panel)
    panel.start(load_policy(), [10, 20, 30])
    evidence = load_run(saved_run).evidence
    for step, record in evidence.steps.items():
        panel.handle(StepDone(step, "done", record.evidence))
    assert panel.settling and panel.decode._suffix == ""  # queued, not drawn in the turn that handled it
    qtbot.waitUntil(lambda: not panel.settling, timeout=10_000)
    assert panel.decode._suffix.startswith("MBU")
    panel.reset()
    panel.handle(StepDone("baseline", "done", evidence.steps["baseline"].evidence))
    panel.reset()  # a new check: a step end of the old one not yet drawn is forgotten
    assert not panel.settling


def test_the_looks_are_moved_and_hidden_not_made_again(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = ABChart()
    qtbot.addWidget(chart)
    chart.set_looks([10, 20, 30, 40])
    lines = list(chart._looks)
    chart.set_looks([10, 20])  # the step's end: only the looks the pairs reached
    assert chart._looks == lines
    assert [line.isVisible() for line in lines] == [True, True, False, False]
    chart.set_looks([15, 30, 45, 60, 75])
    assert chart._looks[:4] == lines and [line.value() for line in chart._looks] == [15, 30, 45, 60, 75]
    assert all(line.isVisible() for line in chart._looks)
