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

_ARM_NAMES = {"off": "speculation-off", "on": "speculation-on"}


def _how(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


# How long a failed step waits for a server that may be dying to be reaped (a killed process closes its
# sockets before it exits); a live server costs nothing, the wait only runs when the step already failed.
DYING_WAIT_S = 2.0


def dead_arm_reason(arms: Arms, step: str, *, step_failed: bool = False) -> str | None:
    """Why `step` cannot stand when a managed server of `arms` is no longer running (None when all are)."""
    dead = []
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
        dead += [f"the {_ARM_NAMES.get(arm.name, arm.name)} llama-server stopped during the {step} step "
                 f"({_how(code)}; its log: {log})" for code, log in found[:1]]
        if arm.remote is not None and (lost := arm.remote.lost()) is not None:
            # a cluster restarts a crashed container by itself: the step measured two servers, not one
            dead.append(f"the {_ARM_NAMES.get(arm.name, arm.name)} server changed during the {step} step ({lost})")
    return "; ".join(dead) + "; the run ended there" if dead else None


def with_failure_reason(done: StepDone, reason: str) -> StepDone:
    """`done` as failed, its reason first; the evidence measured before the crash is kept for the record."""
    return replace(done, status="failed", reason="; ".join(r for r in (reason, done.reason) if r))
