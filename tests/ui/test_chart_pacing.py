"""The charts spread their work over event loop turns so the window keeps responding: at most PER_TICK
charts redrawn per live tick, the end of a check finishes them one per turn, a shown panel paints them one
per turn. These tests check that the work arrives (every chart drawn, fitted, painted), not how fast."""

from __future__ import annotations

from pathlib import Path

from advisor.decide.policy import load_policy
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
