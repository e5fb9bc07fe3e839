"""Run history: durability settings, unit semantics for resume, comparison, and survival of SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from advisor.history.schema import DATA_DIR_ENV, default_db_path
from advisor.history.store import RunStore, StoreError
from tests.paths import REPO

ENV = {"engine": {"kind": "llama.cpp", "version": "b4000", "model": "/home/u/models/smol.gguf"},
       "gpu": {"name": "RTX 4090"}}
PAIR = {"off": {"ms_per_token": 10.0}, "on": {"ms_per_token": 8.0}}


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[RunStore]:
    with RunStore(tmp_path / "history.sqlite3") as s:
        yield s


def test_default_path_follows_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))
    assert default_db_path() == tmp_path / "data" / "history.sqlite3"
    with RunStore() as s:
        s.begin_run({}, {})
    assert (tmp_path / "data" / "history.sqlite3").exists()


def test_wal_full_sync_and_private_file(store: RunStore) -> None:
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert store.conn.execute("SELECT version FROM schema_version").fetchone()[0] == 1
    assert (store.path.stat().st_mode & 0o777) == 0o600


def test_units_are_idempotent_and_resumable(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    with RunStore(path) as s:
        run = s.begin_run({"seed": 42}, ENV)
        assert s.record_unit(run, "ab", "pair-000", PAIR)
        assert not s.record_unit(run, "ab", "pair-000", {"off": {"ms_per_token": 1}, "on": {"ms_per_token": 1}})
        s.record_unit(run, "acceptance", "code", {"rate": 0.6})
    with RunStore(path) as s:  # a "restart": a new process opens the same history
        assert s.completed_units(run, "ab") == {"pair-000": PAIR}  # first recording wins
        assert s.completed_units(run, "acceptance") == {"code": {"rate": 0.6}}
        assert s.completed_units(run, "verify") == {}


def test_half_pair_is_refused(store: RunStore) -> None:
    run = store.begin_run({}, ENV)
    with pytest.raises(ValueError, match="both arms"):
        store.record_unit(run, "ab", "pair-001", {"off": {"ms_per_token": 10.0}})
    assert store.completed_units(run, "ab") == {}


def test_unknown_run_is_a_clear_error(store: RunStore) -> None:
    with pytest.raises(StoreError, match="no run"):
        store.record_unit("nope", "verify", "k1", {})


def test_finish_list_get(store: RunStore) -> None:
    run = store.begin_run({"seed": 1}, ENV)
    store.record_unit(run, "verify", "k=1", {"t_ms": 10})
    store.finish_step(run, "verify", "done", {"cost_ratio_at_draft_max": 1.2})
    store.finish_run(run, "complete", {"verdict": "ENABLE"}, {"ab.speedup": 1.2})
    [summary] = store.list_runs(10)
    assert (summary.run_id, summary.verdict, summary.engine, summary.model) == (
        run, "ENABLE", "llama.cpp b4000", "smol.gguf")
    record = store.get_run(run)
    assert record is not None and record.steps[0].units == 1 and record.facts == {"ab.speedup": 1.2}
    assert store.get_run("missing") is None


def test_compare_flags_regressions(store: RunStore) -> None:
    a = store.begin_run({}, ENV)
    store.finish_run(a, "complete", {"verdict": "ENABLE"},
                     {"acceptance.rate": 0.70, "ab.speedup": 1.25, "ab.ci_low": 1.15, "ab.ci_high": 1.35,
                      "baseline.decode_tok_s": 100.0, "engine.version": "b4000"})
    b = store.begin_run({}, {**ENV, "engine": {**ENV["engine"], "version": "b4100"}})
    store.finish_run(b, "complete", {"verdict": "SKIP"},
                     {"acceptance.rate": 0.60, "ab.speedup": 1.05, "ab.ci_low": 0.98, "ab.ci_high": 1.12,
                      "baseline.decode_tok_s": 90.0, "engine.version": "b4100"})
    diffs = {d.fact: d for d in store.compare(a, b)}
    assert {f for f, d in diffs.items() if d.kind == "regression"} == {
        "acceptance.rate", "ab.speedup", "baseline.decode_tok_s"}
    assert diffs["engine.version"].kind == "change" and "b4100" in diffs["engine.version"].message
    assert diffs["verdict"].kind == "change"
    assert store.compare(a, a) == []
    with pytest.raises(StoreError):
        store.compare(a, "nope")


def test_within_noise_is_not_flagged(store: RunStore) -> None:
    a = store.begin_run({}, ENV)
    store.finish_run(a, "complete", None, {"acceptance.rate": 0.70, "ab.speedup": 1.20, "ab.ci_low": 1.10,
                                           "ab.ci_high": 1.30, "baseline.decode_tok_s": 100.0})
    b = store.begin_run({}, ENV)
    store.finish_run(b, "complete", None, {"acceptance.rate": 0.67, "ab.speedup": 1.12,
                                           "baseline.decode_tok_s": 96.0})
    assert store.compare(a, b) == []


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    with RunStore(path):
        pass
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError, match="newer spec-advisor"), RunStore(path):
        pass


def test_garbage_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="not a usable database"), RunStore(path):
        pass


_WRITER = """
import sys, hashlib, json
from advisor.history.store import RunStore
with RunStore(sys.argv[1]) as s:
    run = s.begin_run({"seed": 7}, {})
    print(run, flush=True)
    i = 0
    while True:
        arm = {"ms_per_token": 10.0 + i % 7, "pad": "x" * 2000}
        body = {"off": arm, "on": {**arm, "ms_per_token": 8.0}, "i": i}
        body["sha"] = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        s.record_unit(run, "ab", f"pair-{i:05d}", body)
        print(i, flush=True)
        i += 1
"""


def test_sigkill_mid_write_leaves_whole_units(tmp_path: Path) -> None:
    import hashlib

    path = tmp_path / "h.sqlite3"
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True,
                            cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.stdout is not None
    run_id = proc.stdout.readline().strip()
    deadline = time.monotonic() + 30
    written = 0
    while written < 40 and time.monotonic() < deadline:  # let it get well into the loop
        line = proc.stdout.readline()
        if not line:
            break
        written = int(line) + 1
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL and written >= 40

    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with RunStore(path) as s:
        units = s.completed_units(run_id, "ab")
    assert len(units) >= written  # every unit reported as written was committed
    for key, body in units.items():
        sha = body.pop("sha")
        assert hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest() == sha
        assert key == f"pair-{body['i']:05d}" and {"off", "on"} <= body.keys()
    assert sorted(b["i"] for b in units.values()) == list(range(len(units)))  # no gaps, no halves
