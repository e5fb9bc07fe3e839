"""Press the button against the real demo engine (llama-server + SmolLM2): charts fill, the verdict view
is filled, and Cancel leaves a consistent state. One real-engine test at a time (2 cores).

Timeouts are generous: an unloaded 2-core machine runs a quick check in 2–4 minutes, but a machine shared
with other engine tests has been measured at 10+ minutes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def _press(window, qtbot, steps: tuple[str, ...], timeout_s: int) -> object:  # type: ignore[no-untyped-def]
    window.start_view.form.steps = steps
    with qtbot.waitSignal(window.controller.finished, timeout=timeout_s * 1000) as blocker:
        qtbot.mouseClick(window.start_view.button, _left())
        assert not window.start_view.button.isEnabled()  # one check at a time
    qtbot.waitUntil(lambda: not window.finishing(), timeout=60_000)  # the report is built off the GUI thread
    return blocker.args[0]


def _left():  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


def test_quick_baseline_and_acceptance(window, qtbot, llama_binary, demo_model) -> None:  # type: ignore[no-untyped-def]
    done = _press(window, qtbot, ("baseline", "acceptance"), timeout_s=900)
    assert done.status == "complete", done.message
    charts = window.run_view.charts
    assert len(charts.decode.rings["decode"]) > 0 and charts.decode.roofline is not None
    assert charts.categories.categories, "acceptance categories drawn"
    assert len(charts.canary.rings["tok_s"]) > 0
    assert window.run_view.steps.states() == {"preflight": "done", "baseline": "done", "acceptance": "done"}
    # the charts of steps this check left out say so rather than showing empty axes (telemetry: no GPU here)
    from ui.strings import tr

    assert charts.verify.reason == charts.ab.reason == tr("chart.empty.not_chosen")
    assert not charts.decode.reason and (charts.telemetry.available or charts.telemetry.reason)
    assert window.current_view() == "verdict"
    assert window.verdict_view.word.text() in ("ENABLE", "SKIP", "INCONCLUSIVE")
    assert window.verdict_view.trace.topLevelItemCount() > 0
    assert window.start_view.button.isEnabled()


def test_full_quick_check_fills_every_chart(window, qtbot, llama_binary, demo_model) -> None:  # type: ignore[no-untyped-def]
    done = _press(window, qtbot, ("baseline", "acceptance", "verify", "batch", "ab"), timeout_s=1500)
    assert done.status == "complete", done.message
    c = window.run_view.charts
    for chart, key in ((c.decode, "decode"), (c.canary, "tok_s"), (c.verify, "measured"), (c.batch, "off"),
                       (c.batch, "on"), (c.ab, "pair"), (c.ab, "running")):
        assert len(chart.rings[key]) > 0, f"{type(chart).__name__}.{key} got no data"
    assert window.verdict_view.speedup.text()
    verdict = json.loads((Path(done.run_dir) / "verdict.json").read_text())
    assert window.verdict_view.word.text() == verdict["verdict"]


def test_cancel_mid_run_keeps_a_consistent_state(window, qtbot, llama_binary, demo_model) -> None:  # type: ignore[no-untyped-def]
    window.start_view.form.steps = ("baseline", "acceptance", "verify", "batch", "ab")
    started = []
    window.controller.received.connect(
        lambda e: started.append(e) if type(e).__name__ == "Sample" and e.step == "baseline" else None)
    qtbot.mouseClick(window.start_view.button, _left())
    qtbot.waitUntil(lambda: len(started) >= 2, timeout=600_000)  # mid-baseline: some measured, more to come
    with qtbot.waitSignal(window.controller.finished, timeout=300_000) as blocker:
        qtbot.mouseClick(window.run_view.cancel_button, _left())
    done = blocker.args[0]
    assert done.status == "aborted"
    states = window.run_view.steps.states()
    assert states["preflight"] == "done" and states["baseline"] == "aborted"
    assert states["acceptance"] == states["ab"] == "notrun"
    evidence = json.loads((Path(done.run_dir) / "evidence.json").read_text())
    assert evidence["status"] == "aborted" and evidence["steps"]["baseline"]["status"] == "aborted"
    assert evidence["steps"]["baseline"]["evidence"]["samples"], "what was measured is kept"
    # isHidden, not isVisible: the window is never shown offscreen, so isVisible is always False.
    assert window.start_view.button.isEnabled() and window.run_view.cancel_button.isHidden()
    assert (not window.run_view.verdict_button.isHidden()) == (done.verdict is not None)
    assert "Traceback" not in window.run_view.status.text()
