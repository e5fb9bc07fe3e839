"""Fault handling that needs no engine: unique run folders, the check lock, an immutable history, a resumed
run's budget, a failing history write said once."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.config import QUICK, CheckConfig, config_from_dict
from advisor.errors import UserError
from advisor.events import StepDone, UnitDone
from advisor.history.store import RunStore
from advisor.run.lock import CheckLock
from advisor.run.recorder import Recorder
from advisor.run.session import Session
from tests.run_faults import can_chattr, database_files, set_immutable


def test_sessions_started_together_get_their_own_folders() -> None:
    folders = {Session(CheckConfig(quick=True)).run_dir for _ in range(20)}
    assert len(folders) == 20


def test_second_lock_is_refused_with_the_holder(tmp_path: Path) -> None:
    first, second = CheckLock(tmp_path), CheckLock(tmp_path)
    first.acquire()
    try:
        with pytest.raises(UserError, match="another check is already running") as err:
            second.acquire()
        assert "pid " in str(err.value) and "measure each other" in err.value.hint
    finally:
        first.release()
    with second:  # free again once released
        pass


def test_resume_keeps_the_runs_own_budget() -> None:
    small = dataclasses.replace(QUICK, max_tokens=16, ab_max_pairs=4, batch_levels=(1, 2))
    resumed = config_from_dict(CheckConfig(quick=True, budget_override=small).to_dict())
    assert resumed.budget == small
    assert config_from_dict(CheckConfig(quick=True).to_dict()).budget_override is None


def test_failed_history_write_is_kept_once_and_stops_writing(tmp_path: Path) -> None:
    with RunStore(tmp_path / "h.db") as store:
        run_id = store.begin_run({}, {})
        recorder = Recorder(store, run_id)
        store.close()  # every later write fails
        recorder(UnitDone("ab", "p1", {"off": {}, "on": {}}))
        first = recorder.error
        recorder(StepDone("ab", "done"))
        assert first is not None and first.startswith("the ab unit p1 (") and recorder.error == first


def test_history_command_on_an_immutable_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    why = can_chattr(tmp_path)
    if why:
        pytest.skip(why)
    with RunStore() as store:
        store.begin_run({}, {})
        db = store.path
    files = database_files(db)
    set_immutable(files, True)
    try:
        code = main(["history"])
    finally:
        set_immutable(files, False)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"cannot write to the run history at {db}" in err and "--no-history" in err
