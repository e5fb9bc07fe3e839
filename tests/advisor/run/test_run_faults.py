"""Run-level faults on the real engine: a server SIGKILLed during acceptance and during the A/B, the history
made unwritable mid-run, a full disk. Each fault fires at an observable point (right after the n-th unit was
recorded), never after a sleep, so every run of these tests meets the same fault at the same place."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from advisor.evidence.codec import decode
from advisor.history.store import RunStore
from advisor.run.session import Session
from advisor.text.message import Message
from tests.run_faults import (
    can_chattr,
    database_files,
    fill_disk,
    on_unit,
    run_like_cli,
    run_status,
    set_immutable,
    sigkill_arm,
    small_tmpfs,
    tiny_config,
)

pytestmark = pytest.mark.engine


def _no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []


def _crash_run(tmp_path: Path, step: str, nth: int) -> tuple[int, dict[str, Any], dict[str, Any], Path]:
    db = tmp_path / "history.sqlite3"
    with RunStore(db) as store:
        session = Session(tiny_config(tmp_path / "run", step), store=store)
        session.subscribers.append(on_unit(step, nth, sigkill_arm(session, "on")))
        code, printed = run_like_cli(session)
    evidence = json.loads((tmp_path / "run" / "evidence.json").read_text())
    return code, json.loads(printed), evidence, db


@pytest.mark.parametrize("step", ["acceptance", "ab"])
def test_server_sigkill_fails_the_step_and_the_run(step: str, demo_model: Path, llama_binary: Any,
                                                   tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    code, printed, evidence, db = _crash_run(tmp_path, step, nth=2)
    record = evidence["steps"][step]
    assert code == 1 and printed["status"] == "failed" and evidence["status"] == "failed"
    assert record["status"] == "failed"
    reason = str(decode(Message, record["reason"]))  # the evidence keeps it as a message: key and values
    assert "speculation-on llama-server stopped during the " + step in reason
    assert "SIGKILL" in reason
    assert printed["verdict"]["because"][0].startswith("the speculation-on llama-server stopped")
    assert printed["verdict"]["verdict"] != "ENABLE"
    assert "SIGKILL" in printed["message"]
    assert [s for _, s in run_status(db)] == ["failed"]
    _no_tracebacks(caplog)


def test_history_made_unwritable_mid_run(demo_model: Path, llama_binary: Any, tmp_path: Path,
                                         caplog: pytest.LogCaptureFixture) -> None:
    why = can_chattr(tmp_path)
    if why:
        pytest.skip(why)
    db = tmp_path / "history.sqlite3"
    caplog.set_level(logging.INFO)
    with RunStore(db) as store:
        session = Session(tiny_config(tmp_path / "run", "ab"), store=store)
        session.subscribers.insert(0, on_unit("ab", 1, lambda: set_immutable(database_files(db), True)))
        try:
            code, printed = run_like_cli(session, as_json=False)
        finally:
            set_immutable(database_files(db), False)
    evidence = json.loads((tmp_path / "run" / "evidence.json").read_text())
    assert code == 1
    assert evidence["status"] == "complete" and evidence["steps"]["ab"]["status"] == "done"
    # said once, with what was lost and where the evidence is
    assert printed.count("history: could not save") == 1, printed
    assert f"to {db}" in printed and str(tmp_path / "run" / "evidence.json") in printed
    assert session.history_error.startswith("the ab unit ")
    saved = [r for r in caplog.records if "history: could not save" in r.getMessage()]
    assert len(saved) == 1
    _no_tracebacks(caplog)
    # the database itself is intact; the run in it never claims to be complete
    assert [s for _, s in run_status(db)] in (["running"], ["failed"])


def test_disk_full_mid_run(demo_model: Path, llama_binary: Any, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    data = tmp_path / "small"
    with small_tmpfs(data) as why:
        if why:
            pytest.skip(why)
        monkeypatch.setenv("SPEC_ADVISOR_DATA_DIR", str(data))
        with RunStore() as store:
            session = Session(tiny_config(data / "run", "ab"), store=store)
            session.subscribers.insert(0, on_unit("ab", 1, lambda: fill_disk(data)))
            code, printed = run_like_cli(session, as_json=False)
        assert code == 1
        assert session.evidence.status == "failed"
        assert "No space left on device" in printed or "disk is full" in printed, printed
        assert f"could not write the run folder {data / 'run'}" in printed
        assert "Verdict:" in printed or "Check failed" in printed  # the summary is printed, not a traceback
        _no_tracebacks(caplog)
