"""A managed server that died during a step (or a cluster pod replaced or restarted under it): the step is
failed with that reason, and the run stops there.

Without this a SIGKILLed server read as success: every request to it failed, but the batch step counted its
failures and ended "done", and the A/B stopped on a failure streak as if the budget had run out.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, replace

from advisor.arms.arms import Arms
from advisor.events import StepDone
from advisor.text import text


def _how(code: int, lang: str) -> str:
    if code < 0:
        try:
            return text(lang, "fault.signal", signal=signal.Signals(-code).name)
        except ValueError:
            return text(lang, "fault.signal_n", n=-code)
    return text(lang, "fault.exit", code=code)


# How long a failed step waits for a server that may be dying to be reaped (a killed process closes its
# sockets before it exits); a live server costs nothing, the wait only runs when the step already failed.
DYING_WAIT_S = 2.0


@dataclass(frozen=True, slots=True)
class FailureReason:
    """Why a step cannot stand, in English (the step's reason, the run's message) and in Chinese (the
    verdict's reasons, so a Chinese report of a failed run reads in Chinese)."""

    en: str
    zh: str


def dead_arm_reason(arms: Arms, step: str, *, step_failed: bool = False) -> FailureReason | None:
    """Why `step` cannot stand when a managed server of `arms` is no longer running (None when all are)."""
    dead: list[tuple[str, dict[str, object]]] = []  # (string key, its values), worded once per language below
    for arm in (arms.off, arms.on):
        if arm is None:
            continue
        found = list(arm.crashed)  # died before a restart inside the step replaced it
        arm.crashed.clear()
        server = arm.server
        code = server.died_within(DYING_WAIT_S) if server is not None and step_failed else (
            server.died if server is not None else None)
        if server is not None and code is not None:
            found.append((code, server.log_path))
        dead += [("fault.died", {"arm": arm.name, "step": step, "code": code, "log": log}) for code, log in found[:1]]
        if arm.remote is not None and (lost := arm.remote.lost()) is not None:
            # a cluster restarts a crashed container by itself: the step measured two servers, not one
            dead.append(("fault.changed", {"arm": arm.name, "step": step, "lost": lost}))
    if not dead:
        return None
    return FailureReason(*(_worded(dead, lang) for lang in ("en", "zh")))


def _worded(dead: list[tuple[str, dict[str, object]]], lang: str) -> str:
    parts = []
    for key, values in dead:
        arm = text(lang, f"fault.arm.{values['arm']}") if values["arm"] in ("off", "on") else values["arm"]
        # the step's id in English (the step's own reason names it so); its title in Chinese
        step = values["step"] if lang == "en" else text(lang, f"step.{values['step']}")
        how = _how(int(str(values["code"])), lang) if "code" in values else ""
        parts.append(text(lang, key, **{**values, "arm": arm, "step": step, "how": how}))
    return text(lang, "fault.ended", reasons=text(lang, "fault.join").join(parts))


def with_failure_reason(done: StepDone, reason: str) -> StepDone:
    """`done` as failed, its reason first; the evidence measured before the crash is kept for the record."""
    return replace(done, status="failed", reason="; ".join(r for r in (reason, done.reason) if r))
