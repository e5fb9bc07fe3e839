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


def test_acceptance_units_keep_per_position_counters_through_the_history(tmp_path: Path) -> None:
    # A unit stored and read back (what a resume reuses) gives the same acceptance evidence, per-position
    # figures and mean acceptance length from /metrics included, as the unit measured in this process.
    from advisor.evidence.codec import decode, encode
    from advisor.evidence.steps import RequestRecord
    from advisor.evidence.units import AcceptanceUnit, CounterDelta
    from advisor.steps.acceptance import summarise

    measured = [AcceptanceUnit(RequestRecord(prompt_id=f"p{i}", category="code", arm="on", completion_tokens=64,
                                             decode_ms=300.0, ms_per_token=4.8, tok_s=208.0, draft_tokens=40,
                                             draft_accepted=30 + i, prompt_tokens=50, cached_tokens=0,
                                             prompt_ms=20.0, ttft_ms=25.0, total_ms=330.0, stop_reason="limit",
                                             output_digest=f"d{i}", repetition_loop=False),
                               CounterDelta(drafts=6.0, draft_tokens=40.0, accepted_tokens=30.0 + i,
                                            accepted_per_position=(6.0, 5.0, 4.0 + i, 3.0)))
                for i in range(3)]
    with RunStore(tmp_path / "h.db") as store:
        run_id = store.begin_run({}, {})
        for unit in measured:
            store.record_unit(run_id, "acceptance", unit.record.prompt_id, encode(unit))
        reused = [decode(AcceptanceUnit, raw, key) for key, raw in store.completed_units(run_id, "acceptance").items()]
    assert reused == measured
    before, after = summarise(measured, 7), summarise(reused, 7)
    assert after == before and after.mean_length_source == "metrics"
    assert after.mean_length == pytest.approx(1 + 93 / 18) and after.per_position[2] == pytest.approx(15 / 18)
