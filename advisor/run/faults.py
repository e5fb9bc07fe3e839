"""A managed server that died during a step (or a cluster pod replaced or restarted under it): the step is
failed with that reason, and the run stops there.

Without this a SIGKILLed server read as success: every request to it failed, but the batch step counted its
failures and ended "done", and the A/B stopped on a failure streak as if the budget had run out.
"""

from __future__ import annotations

import signal
from dataclasses import replace

from advisor.arms.arms import Arms
from advisor.events import StepDone
from advisor.text.message import Message, as_message, joined, msg


def _stopped(arm: str, step: str, code: int, log: object) -> Message:
    """The sentence for a server of `arm` ("off"/"on") that ended with `code` (negative: the signal's number)."""
    if code < 0:
        try:
            signal_name = signal.Signals(-code).name
        except ValueError:
            signal_name = f"signal {-code}"
        return msg(f"fail.arm_killed.{arm}", step=step, signal=signal_name, log=str(log))
    return msg(f"fail.arm_exited.{arm}", step=step, code=code, log=str(log))


# How long a failed step waits for a server that may be dying to be reaped (a killed process closes its
# sockets before it exits); a live server costs nothing, the wait only runs when the step already failed.
DYING_WAIT_S = 2.0


def dead_arm_reason(arms: Arms, step: str, *, step_failed: bool = False) -> Message | None:
    """Why `step` cannot stand when a managed server of `arms` is no longer running (None when all are)."""
    dead: list[Message] = []
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
        dead += [_stopped(arm.name, step, code, log) for code, log in found[:1]]
        if arm.remote is not None and (lost := arm.remote.lost()) is not None:
            # a cluster restarts a crashed container by itself: the step measured two servers, not one
            dead.append(msg(f"fail.pod_changed.{arm.name}", step=step, what=str(lost)))
    if not dead:
        return None
    return msg("fail.ended_there", why=joined(dead))


def with_failure_reason(done: StepDone, reason: Message) -> StepDone:
    """`done` as failed, its reason first; the evidence measured before the crash is kept for the record."""
    if done.reason:
        reason = joined([reason, as_message(done.reason)])
    return replace(done, status="failed", reason=reason)
