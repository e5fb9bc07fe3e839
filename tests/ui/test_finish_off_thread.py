"""The end of a check: the report and the history list are built on a pool thread while the window keeps
handling events, then the verdict view shows them (no engine: a saved run stands in for the session)."""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer

import ui.main_window as main_window
from advisor.config import CheckConfig
from advisor.run.done import SessionDone
from advisor.run.session import Session
from ui.app import SWITCH_INTERVAL_S, application
from ui.run_folder import load_run


def _finish_with(window, saved_run: Path, history_root: Path) -> SessionDone:  # type: ignore[no-untyped-def]
    run = load_run(saved_run)
    session = Session(CheckConfig(quick=True), run_dir=saved_run)
    session.evidence = run.evidence
    window.controller.session = session
    window.history_view.root = history_root
    done = SessionDone(status="complete", run_dir=str(saved_run), verdict=run.verdict, facts=run.facts)
    window.controller.last_done = done
    window._finished(done)
    return done


def test_report_and_history_are_built_off_the_gui_thread(window, qtbot, saved_run: Path,  # type: ignore[no-untyped-def]
                                                         monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    threads: dict[str, threading.Thread] = {}
    real_report, real_list = main_window.make_report, main_window.list_runs

    def report(*args: Any, **kwargs: Any) -> Any:
        threads["report"] = threading.current_thread()
        return real_report(*args, **kwargs)

    def runs(root: Path | None) -> Any:
        threads["history"] = threading.current_thread()
        return real_list(root)

    monkeypatch.setattr(main_window, "make_report", report)
    monkeypatch.setattr(main_window, "list_runs", runs)
    window.show_view("run")
    saved_run = Path(shutil.copytree(saved_run, tmp_path / "runs" / saved_run.name))  # a history of this run alone
    done = _finish_with(window, saved_run, saved_run.parent)
    # Nothing slow ran inside the slot: the results arrive through the event loop, not before it returns.
    assert window.finishing() and window.current_view() == "run"
    qtbot.waitUntil(lambda: not window.finishing(), timeout=30_000)
    assert threads["report"] is not threading.main_thread()
    assert threads["history"] is not threading.main_thread()
    assert window.current_view() == "verdict"
    assert done.verdict is not None and window.verdict_view.word.text() == done.verdict.verdict
    assert window.nav["verdict"].isEnabled()
    assert [r.run_dir for r in window.history_view.runs] == [saved_run]


def test_the_window_handles_events_while_the_report_is_built(window, qtbot, saved_run: Path,  # type: ignore[no-untyped-def]
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    real_report = main_window.make_report

    def slow_report(*args: Any, **kwargs: Any) -> Any:
        assert release.wait(30), "the test never released the report"
        return real_report(*args, **kwargs)

    monkeypatch.setattr(main_window, "make_report", slow_report)
    ticks: list[bool] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(window.finishing()))
    timer.start()
    _finish_with(window, saved_run, saved_run.parent)
    qtbot.waitUntil(lambda: ticks.count(True) >= 3, timeout=10_000)  # beats while the report is pending
    assert window.current_view() != "verdict"
    release.set()
    qtbot.waitUntil(lambda: not window.finishing(), timeout=30_000)
    timer.stop()
    assert window.current_view() == "verdict"


def test_a_report_that_cannot_be_built_is_a_message(window, qtbot, saved_run: Path,  # type: ignore[no-untyped-def]
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("damaged evidence")

    monkeypatch.setattr(main_window, "make_report", broken)
    _finish_with(window, saved_run, saved_run.parent)
    qtbot.waitUntil(lambda: not window.finishing(), timeout=30_000)
    assert "damaged evidence" in window.start_view.error.text()
    assert window.current_view() != "verdict"


def test_a_started_check_shows_the_run_view_on_the_next_turn(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    # The click that builds the session and the first paint of the run view are two turns, not one.
    window.show()
    session = Session(CheckConfig(quick=True))
    window._started(session)
    assert window.current_view() == "start"
    qtbot.waitUntil(lambda: window.current_view() == "run", timeout=10_000)
    assert window.run_view.running and next(iter(window.run_view.steps.rows)) == "preflight"
    window.run_view.charts.stop()  # no session thread runs here: stop the sampler the start began


def test_the_app_takes_the_gil_back_quickly_from_the_check_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    # Qt's paint calls back into Python dozens of times per chart; at CPython's default 5 ms switch interval
    # each callback could wait that long for the GIL while the check thread computes (stalls of 60-100 ms
    # in bench/gui_bench.py --diagnose, 30 ms with this interval).
    application()
    assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL_S) and SWITCH_INTERVAL_S <= 0.001
