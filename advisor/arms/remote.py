"""Arms whose server someone else runs but that can still be restarted: a cluster's pod behind a Service.

A check attached to a plain URL cannot give a phase a clean n-gram pool; one attached to a workload that a
cluster runs can (a new pod is a new server process). The arms layer asks a `RemoteServer` for a fresh
server the way it restarts a managed one, and the server answers with the address it can be reached at then.
"""

from __future__ import annotations

from typing import Protocol

from advisor.evidence.arms import RestartReason


class RemoteServer(Protocol):
    """One arm's server as an orchestrator runs it (advisor/cluster/arms.py)."""

    @property
    def live(self) -> bool:
        """True when this arm's configuration is the one serving now (sequential windows share one service)."""
        ...

    def restart(self, phase: str, reason: RestartReason) -> str:
        """A fresh server for this arm before `phase` (its configuration made live first when it is not),
        Ready; its base URL. Raises a UserError when the orchestrator does not get there in time."""
        ...

    def lost(self) -> str | None:
        """Why the server that answered the last phase is not the one serving now (its pod replaced, its
        container restarted: a crash, an OOM kill, an eviction), in words; None while it is the same."""
        ...
