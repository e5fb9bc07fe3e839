"""Subscriber that writes a session into the history database: one transaction per completed unit, so a
run killed at any point loses at most the unit in flight, and a resume never pairs across the restart."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from advisor.events import Event, SessionDone, StepDone, UnitDone
from advisor.evidence.codec import encode
from advisor.evidence.jsonsafe import json_safe
from advisor.history.store import RunStore

log = logging.getLogger(__name__)


class Recorder:
    """Records units, step results and the final verdict of one run into `store` under `run_id`."""

    def __init__(self, store: RunStore, run_id: str) -> None:
        self.store = store
        self.run_id = run_id

    def __call__(self, event: Event) -> None:
        """Persist the events that carry results."""
        if isinstance(event, UnitDone):
            self.store.record_unit(self.run_id, event.step, event.key, encode(event.payload))
        elif isinstance(event, StepDone):
            evidence = encode(event.evidence) if event.evidence is not None else {}
            self.store.finish_step(self.run_id, event.step, event.status, evidence)
        elif isinstance(event, SessionDone):
            verdict: Mapping[str, Any] | None = event.verdict
            facts = verdict.get("facts") if verdict else None
            status = {"complete": "complete", "aborted": "aborted"}.get(event.status, "failed")
            self.store.finish_run(self.run_id, status, json_safe(verdict), json_safe(facts))  # type: ignore[arg-type]
