"""How a whole check ended: `SessionDone`, the last event a session emits, with the typed verdict.

It lives with the session rather than in advisor/events.py because it carries a `Verdict`, which the
judging layer makes: the measuring steps below it emit the other events and never this one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from advisor.decide.verdict import Verdict
from advisor.events import Event
from advisor.evidence.status import SessionStatus


@dataclass(frozen=True, slots=True)
class SessionDone:
    """The whole check ended; `run_dir` holds evidence.json (and verdict.json when decided).

    `verdict` is the decision (None: the run was not decided) and `facts` what it was decided from (empty then);
    verdict.json is advisor/decide/verdict_json.py `saved_verdict` of the two."""

    status: SessionStatus
    run_dir: str
    verdict: Verdict | None = None
    message: str = ""
    history_error: str = ""   # what could not be saved in the history database ("" when all of it was)
    user_error: bool = False  # failed because of the user's input (exit 2), not a failed measurement (exit 1)
    facts: Mapping[str, object] = field(default_factory=dict)


SessionEvent = Event | SessionDone  # what a subscriber receives: the steps' events, then one SessionDone
