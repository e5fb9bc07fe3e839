"""The run history: one SQLite file with every run's config, environment, measurement units and verdict.

The recorder commits **one transaction per completed measurement unit** (an A/B pair, one category's
acceptance, one verify point), so a crash loses at most the unit in flight, and a resume asks
`completed_units` what must not be measured again. A/B units hold *both* arms: a pair is never formed
across a restart (reliability.md §6.1). Everything passes through `redact` before it is written.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from advisor import __version__
from advisor.decide.verdict import Verdict
from advisor.decide.verdict_json import verdict_from_json
from advisor.history.compare import Difference, compare_runs
from advisor.history.records import RunRecord, RunSummary, StepRecord, environment_columns
from advisor.history.schema import StoreError, connect, default_db_path
from advisor.redact import redact, redact_text

RunStatus = Literal["running", "complete", "aborted", "failed"]
StepStatus = Literal["done", "skipped", "failed", "aborted"]

PAIR_STEP = "ab"
PAIR_ARMS = ("off", "on")

__all__ = ["PAIR_ARMS", "PAIR_STEP", "Difference", "RunRecord", "RunStore", "RunSummary", "StepRecord",
           "StoreError"]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _dump(obj: object) -> str:
    return json.dumps(redact(obj), ensure_ascii=False, sort_keys=True, allow_nan=False, default=str)


def _folder(run_dir: str | Path | None) -> str | None:
    """A run folder as stored: absolute, so the window finds it from any working directory."""
    return None if run_dir is None or not str(run_dir) else str(Path(run_dir).expanduser().absolute())


def _load(text: str | None) -> object:
    return None if text is None else json.loads(text)


def _facts(data: object) -> Mapping[str, object] | None:
    """The stored facts (None: not stored; a damaged column raises, as a damaged row does)."""
    if data is None or isinstance(data, Mapping):
        return data
    raise TypeError(f"facts_json holds {type(data).__name__}, not an object")


def _verdict(data: object) -> Verdict | None:
    """The stored verdict, typed (None: the run was not decided)."""
    return None if data is None else verdict_from_json(data)


# What a damaged row raises when read: text that is not JSON (or nested past the parser's stack), a value of
# the wrong SQL type (a number or blob where JSON text belongs).
_DAMAGED = (ValueError, TypeError, RecursionError)


def _dig(obj: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


class RunStore:
    """The history database; use as a context manager (`with RunStore() as store:`)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()  # the recorder may live on a worker thread
        self.damaged: list[str] = []  # ids of runs `list_runs` skipped because their row is not readable

    def __enter__(self) -> RunStore:
        self.open()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def open(self) -> None:
        """Open the database (done by `with`); safe to call twice."""
        if self._conn is None:
            self._conn = connect(self.path)

    def close(self) -> None:
        """Close the database; committed units are already durable."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("the run history is not open", hint="use `with RunStore() as store:`")
        return self._conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def begin_run(self, config: Mapping[str, object], environment: Mapping[str, object],
                  run_dir: str | Path | None = None) -> str:
        """Store the run manifest before the first request; returns the new run id. `run_dir` is where the
        run's folder will be, so a run killed before its end is still found there."""
        run_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:8]
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO runs (run_id, created_utc, status, app_version, config_json, environment_json,"
                " run_dir) VALUES (?, ?, 'running', ?, ?, ?, ?)",
                (run_id, _now(), __version__, _dump(config), _dump(environment), _folder(run_dir)),
            )
        return run_id

    def record_environment(self, run_id: str, values: Mapping[str, object]) -> None:
        """Merge `values` into the run's stored environment (e.g. the model file it measures, which a resume
        compares against)."""
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            row = conn.execute("SELECT environment_json FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            try:
                current = _load(row[0]) if row else None
            except _DAMAGED:  # a damaged row is replaced by what is known now
                current = None
            merged = {**(current if isinstance(current, dict) else {}), **values}
            conn.execute("UPDATE runs SET environment_json = ? WHERE run_id = ?", (_dump(merged), run_id))

    def record_unit(self, run_id: str, step: str, unit_key: str, payload: Mapping[str, object]) -> bool:
        """Commit one completed measurement unit; returns False if it was already recorded.

        Idempotent on (run_id, step, unit_key): the first recording wins, so a replayed unit after a
        resume cannot overwrite what was measured. Units of the `ab` step must carry both arms
        (`payload["off"]` and `payload["on"]`): a half pair is never stored.
        """
        if step == PAIR_STEP:
            missing = [arm for arm in PAIR_ARMS if not isinstance(payload.get(arm), Mapping)]
            if missing:
                raise ValueError(f"an A/B unit must hold both arms; {unit_key!r} lacks {missing}")
        # Keys are free text from callers (e.g. a URL); they are masked like everything else.
        step, unit_key = redact_text(step), redact_text(unit_key)
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            cur = conn.execute(
                "INSERT OR IGNORE INTO units (run_id, step, unit_key, payload_json, recorded_utc)"
                " VALUES (?, ?, ?, ?, ?)",
                (run_id, step, unit_key, _dump(payload), _now()),
            )
            return cur.rowcount == 1

    def completed_units(self, run_id: str, step: str) -> dict[str, Any]:  # JSON payloads each step reads itself
        """The units of `step` already committed for `run_id` (what a resume must not redo)."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT unit_key, payload_json FROM units WHERE run_id = ? AND step = ? ORDER BY rowid",
                (run_id, redact_text(step)),
            ).fetchall()
        return {key: json.loads(payload) for key, payload in rows}

    def finish_step(self, run_id: str, step: str, status: StepStatus, evidence: Mapping[str, object]) -> None:
        """Record a step's final status and evidence (replaces an earlier record of the same step)."""
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.execute(
                "INSERT OR REPLACE INTO steps (run_id, step, status, evidence_json, finished_utc)"
                " VALUES (?, ?, ?, ?, ?)",
                (run_id, redact_text(step), status, _dump(evidence), _now()),
            )

    def finish_run(self, run_id: str, status: RunStatus, verdict: Mapping[str, object] | None,
                   facts: Mapping[str, object] | None, environment: Mapping[str, object] | None = None,
                   run_dir: str | Path | None = None) -> None:
        """Close a run with its status, and the verdict and facts when a decision was made; the environment
        the run probed (engine, model, GPU: the history's columns) and its folder replace what `begin_run`
        knew when given."""
        with self._transaction() as conn:
            self._require_run(conn, run_id)
            conn.execute(
                "UPDATE runs SET status = ?, finished_utc = ?, verdict_json = ?, facts_json = ?,"
                " environment_json = COALESCE(?, environment_json), run_dir = COALESCE(?, run_dir)"
                " WHERE run_id = ?",
                (status, _now(), None if verdict is None else _dump(verdict),
                 None if facts is None else _dump(facts), None if environment is None else _dump(environment),
                 _folder(run_dir), run_id),
            )

    def list_runs(self, limit: int = 20) -> list[RunSummary]:
        """The most recent runs, newest first."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT run_id, created_utc, finished_utc, status, app_version, environment_json,"
                " verdict_json, run_dir FROM runs ORDER BY created_utc DESC, run_id DESC LIMIT ?",
                (max(0, int(limit)),),
            ).fetchall()
        runs: list[RunSummary] = []
        self.damaged = []
        for row in rows:
            try:
                runs.append(self._summary(row))
            except _DAMAGED:  # one hand-edited or half-written row must not hide every other run
                self.damaged.append(str(row[0]))
        return runs

    def get_run(self, run_id: str) -> RunRecord | None:
        """Everything stored for `run_id`, or None when there is no such run."""
        with self._lock:
            row = self.conn.execute(
                "SELECT run_id, created_utc, finished_utc, status, app_version, environment_json,"
                " verdict_json, run_dir, config_json, facts_json FROM runs WHERE run_id = ?",
                (run_id,),
            ).fetchone()
            if row is None:
                return None
            step_rows = self.conn.execute(
                "SELECT s.step, s.status, s.evidence_json, s.finished_utc,"
                " (SELECT COUNT(*) FROM units u WHERE u.run_id = s.run_id AND u.step = s.step)"
                " FROM steps s WHERE s.run_id = ? ORDER BY s.finished_utc",
                (run_id,),
            ).fetchall()
        try:
            steps = tuple(StepRecord(step=r[0], status=r[1], evidence=json.loads(r[2]), finished_utc=r[3],
                                     units=int(r[4])) for r in step_rows)
            return RunRecord(summary=self._summary(row[:8]), config=json.loads(row[8]),
                             environment=json.loads(row[5]), verdict=_verdict(_load(row[6])),
                             facts=_facts(_load(row[9])),
                             steps=steps)
        except _DAMAGED as exc:
            raise StoreError(f"the history's record of run {run_id!r} is damaged ({type(exc).__name__}: "
                             f"{str(exc)[:120]})", hint=f"its run folder, if kept, still has the evidence; "
                                                         f"the history is {self.path}") from None

    def compare(self, run_a: str, run_b: str, lang: str = "en") -> list[Difference]:
        """What changed from run A (before) to run B (after); caveats, then regressions first."""
        return compare_runs(self.require_record(run_a), self.require_record(run_b), lang)

    def require_record(self, run_id: str) -> RunRecord:
        """The stored run `run_id`, or a StoreError that points at `history`."""
        record = self.get_run(run_id)
        if record is None:
            raise StoreError(f"no run {run_id!r} in the history", hint="see `spec-advisor history`")
        return record

    @staticmethod
    def _require_run(conn: sqlite3.Connection, run_id: str) -> None:
        if conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone() is None:
            raise StoreError(f"no run {run_id!r} in the history", hint="start it with begin_run()")

    @staticmethod
    def _summary(row: tuple[Any, ...]) -> RunSummary:  # a database row: its columns' SQL types, not Python's
        env = json.loads(row[5])
        verdict = _load(row[6])
        engine, model, gpu = environment_columns(env if isinstance(env, Mapping) else {})
        run_dir = row[7] if isinstance(row[7], str) and row[7] else None
        word = _dig(verdict, "verdict")
        return RunSummary(run_id=row[0], created_utc=row[1], finished_utc=row[2], status=row[3],
                          app_version=row[4], verdict=word if isinstance(word, str) else None, engine=engine,
                          model=model, gpu=gpu, run_dir=run_dir)
