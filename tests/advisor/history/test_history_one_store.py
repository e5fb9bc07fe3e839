"""One history for the window and the CLI: a real `check --out DIR` is listed by `history` with its folder,
engine, model and GPU columns, and found by the window's list; `--compare` takes folders as well as ids and
flags an aborted or disturbed run instead of calling a move against it a regression."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main
from advisor.history.compare import compare_runs, run_flags
from advisor.history.folders import list_runs, load_run, to_record
from advisor.history.records import NO_GPU, environment_columns
from advisor.history.schema import default_db_path
from advisor.history.store import RunStore
from tests.paths import FIXTURES

FIXTURE = FIXTURES / "runs" / "demo-quick"


def test_a_check_with_out_is_in_the_history_with_its_folder_and_columns(
        demo_model: Path, llama_binary: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "elsewhere" / "my-run"  # not under the runs folder: only the history can point at it
    assert main(["check", "--quick", "--steps", "baseline", "--out", str(out), "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert Path(done["run_dir"]) == out and (out / "evidence.json").is_file()
    assert main(["history", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)["runs"]
    assert row["status"] == "complete" and Path(row["run_dir"]) == out.absolute()
    assert row["engine"].startswith("llama.cpp") and row["model"]  # filled from the probed environment
    evidence = json.loads((out / "evidence.json").read_text(encoding="utf-8"))
    assert (row["engine"], row["model"], row["gpu"]) == environment_columns(evidence["environment"])
    assert row["gpu"] is not None  # the probe ran: a GPU's name, or NO_GPU ("none") on a CPU-only machine
    # the window's list reads the same history: the folder is found although it is outside the runs folder
    assert [r.run_dir for r in list_runs()] == [out]
    assert main(["history"]) == 0
    table = capsys.readouterr().out
    assert row["run_id"] in table and row["engine"] in table and "—  —" not in table
    # a folder and an id name the same run: nothing differs (a run disturbed by other work on a shared machine
    # is flagged as such, once for A and once for B, and that is all)
    assert main(["history", "--compare", str(out), row["run_id"], "--json"]) == 0
    diffs = json.loads(capsys.readouterr().out)["differences"]
    assert [d["before"] for d in diffs] in ([], ["A", "B"]) and all(d["kind"] == "caveat" for d in diffs)


def _copy(name: str, tmp_path: Path, status: str = "complete", decode_scale: float = 1.0,
          decided_by: str | None = None, word: str = "INCONCLUSIVE") -> Path:
    folder = tmp_path / name
    shutil.copytree(FIXTURE, folder)
    evidence = json.loads((folder / "evidence.json").read_text(encoding="utf-8"))
    verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    evidence["status"] = status
    evidence["steps"]["baseline"]["evidence"]["decode_tok_s"] *= decode_scale
    verdict["facts"]["baseline.decode_tok_s"] *= decode_scale
    verdict["decided_by"], verdict["verdict"] = decided_by or "ab-outcome/enable", word
    (folder / "evidence.json").write_text(json.dumps(evidence), encoding="utf-8")
    (folder / "verdict.json").write_text(json.dumps(verdict), encoding="utf-8")
    return folder


def test_a_move_against_an_aborted_run_is_flagged_not_called_a_regression(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    whole, aborted = _copy("whole", tmp_path), _copy("aborted", tmp_path, status="aborted", decode_scale=0.02)
    assert run_flags(to_record(load_run(aborted))) == ["aborted"]
    assert main(["history", "--compare", str(whole), str(aborted), "--json"]) == 0
    diffs = json.loads(capsys.readouterr().out)["differences"]
    assert diffs[0]["kind"] == "caveat" and diffs[0]["before"] == "B" and "aborted" in diffs[0]["message"]
    decode = next(d for d in diffs if d["fact"] == "baseline.decode_tok_s")
    assert decode["kind"] == "change" and "-98%" in decode["message"]
    assert "not called a regression" in decode["message"] and "run B is aborted" in decode["message"]
    assert not any(d["kind"] == "regression" for d in diffs)
    # the same pair between two whole runs is a regression, as before
    slower = _copy("slower", tmp_path, decode_scale=0.5)
    kinds = {d.fact: d.kind for d in compare_runs(to_record(load_run(whole)), to_record(load_run(slower)))}
    assert kinds["baseline.decode_tok_s"] == "regression"


def test_a_noisy_run_is_flagged_and_the_verdict_and_settings_are_diffed(tmp_path: Path) -> None:
    whole, noisy = _copy("whole", tmp_path, word="ENABLE"), _copy("noisy", tmp_path, decode_scale=0.5,
                                                   decided_by="measurement-validity/noisy")
    before, after = to_record(load_run(whole)), to_record(load_run(noisy))
    assert run_flags(after) == ["noisy"]
    diffs = compare_runs(before, after, "zh")
    assert diffs[0].kind == "caveat" and "噪声过大" in diffs[0].message
    verdict = next(d for d in diffs if d.fact == "verdict")
    assert verdict.kind == "change" and "暂无定论" in verdict.message
    assert all(d.kind in ("caveat", "change") for d in diffs)
    # settings: a different draft length and flags are named as changes
    changed = json.loads((tmp_path / "noisy" / "verdict.json").read_text(encoding="utf-8"))
    changed["facts"]["spec.draft_max"] = 3
    (tmp_path / "noisy" / "verdict.json").write_text(json.dumps(changed), encoding="utf-8")
    facts = {d.fact for d in compare_runs(before, to_record(load_run(tmp_path / "noisy")))}
    assert "spec.draft_max" in facts


def test_an_unknown_run_or_folder_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--compare", str(tmp_path / "missing"), "nope"]) == 2
    err = capsys.readouterr().err
    assert "no run" in err and "Traceback" not in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["history", "--compare", str(empty), str(empty)]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_the_history_keeps_folders_and_upgrades_an_older_file(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "old.sqlite3"
    with sqlite3.connect(db) as conn:  # the runs table as the first release made it: no run_dir column
        conn.executescript("CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version "
                           "VALUES (1); CREATE TABLE runs (run_id TEXT PRIMARY KEY, created_utc TEXT NOT NULL, "
                           "finished_utc TEXT, status TEXT NOT NULL, app_version TEXT NOT NULL, config_json TEXT "
                           "NOT NULL, environment_json TEXT NOT NULL, verdict_json TEXT, facts_json TEXT);"
                           "INSERT INTO runs VALUES ('old', '2026-01-01T00:00:00Z', NULL, 'complete', '0.1', '{}', "
                           "'{}', NULL, NULL);")
    with RunStore(db) as store:
        assert [r.run_dir for r in store.list_runs()] == [None]
        run = store.begin_run({}, {}, run_dir=tmp_path / "f")
        store.finish_run(run, "complete", None, None, environment={"gpu": {"gpus": []}})
        new = store.get_run(run)
    assert new is not None and new.summary.run_dir == str(tmp_path / "f") and new.summary.gpu == NO_GPU
    assert default_db_path() != db  # the test's own file, never the user's
