"""The bridge delivers session events on the GUI thread, in order, and a crashing session still ends."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from advisor.events import Sample, StepStarted
from advisor.run.done import SessionDone
from ui.bridge import SessionBridge, SessionThread


def test_events_from_a_worker_arrive_on_the_gui_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    bridge = SessionBridge()
    got: list[tuple[object, bool]] = []
    bridge.received.connect(lambda e: got.append((e, threading.current_thread() is threading.main_thread())))
    events = [StepStarted("baseline", "Baseline", 1, 1), Sample("baseline", "decode_tok_s", 0, 90.0),
              SessionDone("complete", "/tmp/x")]
    worker = threading.Thread(target=lambda: [bridge(e) for e in events])
    with qtbot.waitSignal(bridge.finished, timeout=5000):
        worker.start()
    worker.join()
    qtbot.waitUntil(lambda: len(got) == 3, timeout=5000)
    assert [e for e, _ in got] == events
    assert all(on_main for _, on_main in got)


class _FakeSession:
    """Duck-typed Session: emits to its subscriber from the worker thread."""

    def __init__(self, bridge: SessionBridge, crash: bool = False) -> None:
        self.bridge, self.crash, self.run_dir = bridge, crash, Path("/tmp/fake-run")
        self.thread_name = ""
        self.store: object | None = object()  # a caller-given history, as a test's Session has; never opened

    def run(self) -> SessionDone:
        self.thread_name = threading.current_thread().name
        self.bridge(Sample("baseline", "decode_tok_s", 0, 1.0))
        if self.crash:
            raise RuntimeError("boom")
        done = SessionDone("complete", str(self.run_dir))
        self.bridge(done)
        return done


def _run(qtbot: Any, crash: bool) -> tuple[SessionDone, _FakeSession]:
    bridge = SessionBridge()
    session = _FakeSession(bridge, crash)
    thread = SessionThread(session, bridge)  # type: ignore[arg-type]
    with qtbot.waitSignal(bridge.finished, timeout=5000) as blocker:
        thread.start()
    thread.wait(5000)
    return blocker.args[0], session


def test_session_thread_runs_off_the_gui_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    done, session = _run(qtbot, crash=False)
    assert done.status == "complete"
    assert session.thread_name != threading.main_thread().name


def test_a_crash_becomes_a_failed_session_done(qtbot) -> None:  # type: ignore[no-untyped-def]
    done, _ = _run(qtbot, crash=True)
    assert done.status == "failed"
    assert "boom" in done.message and "Traceback" not in done.message
