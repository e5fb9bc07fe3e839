"""The window's checks go into the same history as `spec-advisor check`: a check started from the window (here one
whose engine URL answers nothing, so it ends in a second) is a row of `spec-advisor history`."""

from __future__ import annotations

import json
import socket

import pytest

from advisor.cli.main import main
from advisor.config import CheckConfig
from ui.controller import CheckController


def _closed_port() -> int:
    with socket.socket() as s:  # a port nobody listens on once this socket is closed
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_check_from_the_window_is_in_the_cli_history(qtbot, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    controller = CheckController()
    done: list[object] = []
    controller.finished.connect(done.append)
    controller.start(CheckConfig(quick=True, engine_url=f"http://127.0.0.1:{_closed_port()}"))
    qtbot.waitUntil(lambda: bool(done), timeout=60_000)
    assert controller.wait()
    assert controller.session is not None and controller.session.store is None  # closed after the run
    assert main(["history", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)["runs"]
    assert row["run_id"] == controller.session.run_id and row["status"] == "failed"
