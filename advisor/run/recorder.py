"""Subscriber that writes a session into the history database: one transaction per completed unit, so a
run killed at any point loses at most the unit in flight, and a resume never pairs across the restart.

The history is a copy: evidence.json in the run folder holds everything measured. So a write that fails (the
database made read-only, a full disk, a lock held by another program) never stops the measurement: the
first failure is kept in `error`, said once at the end of the run, and the recorder stops writing (a run
with holes in its units must not look whole to a later resume).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Mapping
from typing import Any

from advisor.decide.verdict_json import saved_verdict
from advisor.errors import UserError
from advisor.events import StepDone, UnitDone
from advisor.evidence.codec import encode
from advisor.evidence.jsonsafe import json_safe
from advisor.history.store import RunStore
from advisor.run.done import SessionDone, SessionEvent

log = logging.getLogger(__name__)

# What a history write can raise when the database or its disk refuses it.
WRITE_ERRORS = (sqlite3.Error, OSError, UserError)


def describe(exc: BaseException) -> str:
    """One line for a failed history write: the error's own words, without a traceback."""
    detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return detail or type(exc).__name__


class Recorder:
    """Records units, step results and the final verdict of one run into `store` under `run_id`."""

    def __init__(self, store: RunStore, run_id: str) -> None:
        self.store = store
        self.run_id = run_id
        self.error: str | None = None   # the first write that failed, with what it was writing

    def __call__(self, event: SessionEvent) -> None:
        """Persist the events that carry results (nothing more once a write has failed)."""
        if self.error is not None:
            return
        try:
            if isinstance(event, UnitDone):
                self.store.record_unit(self.run_id, event.step, event.key, encode(event.payload))
            elif isinstance(event, StepDone):
                evidence = encode(event.evidence) if event.evidence is not None else {}
                self.store.finish_step(self.run_id, event.step, event.status, evidence)
            elif isinstance(event, SessionDone):
                self.finish(event)
        except WRITE_ERRORS as exc:
            self.fail(_what(event), exc)

    def finish(self, done: SessionDone, environment: Mapping[str, Any] | None = None) -> None:
        """Close the run with its final status, even after an earlier write failed (the database may be
        writable again); a run whose units could not all be saved is closed as failed, never complete. The
        run's folder (wherever it is) and the probed `environment` (JSON-ready) go with it, so the history
        lists every folder a check finished, with its engine, model and GPU."""
        verdict = saved_verdict(done.verdict, done.facts) if done.verdict is not None else None
        facts = dict(done.facts) if done.verdict is not None else None
        status = {"complete": "complete", "aborted": "aborted"}.get(done.status, "failed")
        if self.error is not None:
            status = "failed"
        try:
            self.store.finish_run(self.run_id, status, json_safe(verdict), json_safe(facts),  # type: ignore[arg-type]
                                  environment=json_safe(environment), run_dir=done.run_dir or None)
        except WRITE_ERRORS as exc:
            if self.error is None:
                self.fail("the run's final status", exc)

    def fail(self, what: str, exc: BaseException) -> None:
        """Keep the first failure; later ones add nothing the user can act on."""
        if self.error is None:
            self.error = f"{what} ({describe(exc)})"
            log.info("history: could not save %s to %s; not writing to it for the rest of the run",
                        self.error, self.store.path)


def _what(event: SessionEvent) -> str:
    if isinstance(event, UnitDone):
        return f"the {event.step} unit {event.key}"
    if isinstance(event, StepDone):
        return f"the result of the {event.step} step"
    return "the run's final status"
