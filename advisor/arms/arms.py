"""The two arms of every comparison — speculation off and on — and where their servers live.

Side by side (`dual`): both managed servers run for the whole check, so A/B order can be counterbalanced per
prompt. Single-resident (`single`): one copy of the target at a time, for a home GPU whose VRAM holds the model
once; asking for an arm that is not resident stops the other server and starts this one (a *swap*: a model
load, timed). Attached arms are the user's servers, used as configured; a remote arm (a cluster's pod,
advisor/arms/remote.py) is attached too but restarts like a managed one, through its orchestrator. Steps
never start or stop servers themselves: they ask for an arm (`Arms.use`) or for a fresh ON server
(`Arms.restart`), and this layer decides how, records every start and stop (`ServerSpan`) and every
restart (`ServerRestart`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from advisor.arms.remote import RemoteServer
from advisor.arms.server import ManagedServer, ServerConfig
from advisor.evidence.arms import ArmsMode, ArmsPlan, RestartReason, ServerRestart, ServerSpan
from advisor.evidence.cluster import ClusterRecord
from advisor.evidence.draft import DraftSetup
from advisor.evidence.placement import Placement
from advisor.recommend.llamacpp import draft_cap, effective_params
from probes.engines.base import EngineAdapter
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.engines.llamacpp.binary import FlagDialect, LlamaServerBinary
from probes.model.info import ModelInfo

ArmName = Literal["off", "on"]


@dataclass
class Arm:
    """One configuration and the adapter that reaches it (a managed arm's server may be stopped while the
    other arm is resident)."""

    name: ArmName
    adapter: EngineAdapter
    server: ManagedServer | None = None
    command_line: list[str] = field(default_factory=list)
    spec_argv: tuple[str, ...] = ()   # the speculative part of command_line, as the flag builder wrote it
    generation: int = 1               # counts server processes: a restart starts the next generation
    # servers found dead when a restart came to stop them (exit status, log): a restart mid-step must not
    # hide a crash from the check after the step (advisor/run/faults.py)
    crashed: list[tuple[int, Path]] = field(default_factory=list)
    remote: RemoteServer | None = None  # an orchestrated server that restarts through its orchestrator

    @property
    def restartable(self) -> bool:
        """True when a phase can get a fresh server for this arm (managed, or remote)."""
        return self.server is not None or self.remote is not None

    @property
    def managed(self) -> bool:
        """True when we launched this arm's server (so it can be restarted to a clean state)."""
        return self.server is not None

    @property
    def resident(self) -> bool:
        """True when this arm's server is running (attached arms always are; a remote one when it is live)."""
        if self.remote is not None:
            return self.remote.live
        return self.server is None or self.server.running

    @property
    def config(self) -> ServerConfig | None:
        """The managed server's configuration (None when attached)."""
        return self.server.config if self.server is not None else None


@dataclass
class Arms:
    """Both arms; either may be missing in attach mode (steps that need it are skipped with the reason)."""

    off: Arm | None
    on: Arm | None
    binary: LlamaServerBinary | None = None
    model_path: Path | None = None
    model_info: ModelInfo | None = None   # the target's probe, read once before the budget (managed runs)
    draft: DraftSetup | None = None   # managed runs with a draft model: its pairing, VRAM budget and placement
    mode: ArmsMode = "dual"
    plan: ArmsPlan | None = None      # the memory budget behind `mode` (managed runs)
    restarts: list[ServerRestart] = field(default_factory=list)
    spans: list[ServerSpan] = field(default_factory=list)
    origin_s: float = field(default_factory=time.monotonic)   # spans are seconds since this moment
    listener: Callable[[ServerRestart], None] | None = None   # told of each restart as it happens (the ETA)
    # where each arm's latest server put the target, read from its load log at start (llama.cpp's --fit sizes
    # every start by the memory free then, so a later start may place it differently)
    placements: dict[str, Placement] = field(default_factory=dict)
    cluster: Callable[[], ClusterRecord] | None = None   # a cluster check: its record so far, for the evidence

    @property
    def single(self) -> bool:
        """True when at most one target server may be alive at any moment."""
        return self.mode == "single"

    def arm(self, name: ArmName) -> Arm | None:
        """The arm called `name`."""
        return self.off if name == "off" else self.on

    def use(self, name: ArmName, phase: str) -> Arm | None:
        """The arm `name`, its server running: in single-resident mode the other arm's server is stopped and
        this one started first (a swap, recorded as a restart before `phase`)."""
        arm = self.arm(name)
        if arm is None or arm.resident:
            return arm
        self.restart(name, phase, reason="swap")
        return arm

    def restart(self, name: ArmName, phase: str, config: ServerConfig | None = None,
                reason: RestartReason = "fresh") -> float:
        """Managed arms only: a fresh server for `name` (empty KV cache and n-gram tables), with `config` when
        given (the tuner's probes and its choice) else as before; seconds taken, model load included. In
        single-resident mode the other arm's server stops first, so two copies never overlap."""
        arm = self.arm(name)
        if arm is not None and arm.server is None and arm.remote is not None:
            return self._restart_remote(arm, phase, reason)
        if arm is None or arm.server is None:
            return 0.0
        t0 = time.monotonic()
        if self.single:
            other = self.arm("on" if name == "off" else "off")
            if other is not None and other.server is not None and other.server.running:
                self._stop(other)
        if (code := arm.server.died) is not None:
            arm.crashed.append((code, arm.server.log_path))
        self._stop(arm)
        self._new_server(arm, config or arm.server.config)
        arm.generation += 1
        self._start(arm, phase)
        seconds = time.monotonic() - t0
        restart = ServerRestart(name, phase, arm.generation, round(seconds, 3), reason)
        self.restarts.append(restart)
        if self.listener is not None:
            self.listener(restart)
        return seconds

    def _restart_remote(self, arm: Arm, phase: str, reason: RestartReason) -> float:
        """A remote arm's fresh server (a new pod), reached at the address it has then."""
        assert arm.remote is not None
        t0 = time.monotonic()
        url = arm.remote.restart(phase, reason)
        close = getattr(arm.adapter, "close", None)
        if callable(close):
            close()
        arm.adapter = LlamaCppAdapter(url)
        arm.generation += 1
        seconds = time.monotonic() - t0
        restart = ServerRestart(arm.name, phase, arm.generation, round(seconds, 3), reason)
        self.restarts.append(restart)
        if self.listener is not None:
            self.listener(restart)
        return seconds

    def configure(self, name: ArmName, phase: str, config: ServerConfig) -> None:
        """`name` runs `config` from now on. Side by side its server restarts with it; single-resident the
        server stops (if it was the resident one) and starts with `config` at its next swap, so no model is
        loaded only to be stopped again."""
        arm = self.arm(name)
        if arm is None or arm.server is None:
            return
        if not self.single:
            self.restart(name, phase, config, reason="config")
            return
        self._stop(arm)
        self._new_server(arm, config)

    @staticmethod
    def _new_server(arm: Arm, config: ServerConfig) -> None:
        """Give `arm` a new (not yet started) server with `config`, on a new port, and an adapter for it."""
        assert arm.server is not None
        close = getattr(arm.adapter, "close", None)
        if callable(close):
            close()
        old = arm.server
        arm.server = ManagedServer(old.binary, config, old.log_path.parent)
        arm.adapter = LlamaCppAdapter(arm.server.base_url)
        arm.command_line = list(arm.server.argv)
        arm.spec_argv = arm.server.spec_argv

    def stop_arm(self, name: ArmName) -> None:
        """Stop `name`'s managed server (single-resident: its next use starts a fresh one)."""
        arm = self.arm(name)
        if arm is not None:
            self._stop(arm)

    def launch(self, arm: Arm, phase: str) -> None:
        """Start `arm`'s (not yet started) managed server and record its span."""
        if arm.server is not None and not arm.server.running:
            self._start(arm, phase)

    def _start(self, arm: Arm, phase: str) -> None:
        assert arm.server is not None
        started = time.monotonic()
        arm.server.start()
        ready = time.monotonic()
        self.placements[arm.name] = arm.server.placement()
        self.spans.append(ServerSpan(arm=arm.name, generation=arm.generation, phase=phase, pid=arm.server.pid,
                                     started_s=round(started - self.origin_s, 3),
                                     load_s=round(ready - started, 3), stopped_s=None))

    def _stop(self, arm: Arm) -> None:
        if arm.server is None:
            return
        was_running = arm.server.running or arm.server.died is not None
        arm.server.stop()
        if was_running:
            self._close_span(arm)

    def _close_span(self, arm: Arm) -> None:
        now = round(time.monotonic() - self.origin_s, 3)
        for i in range(len(self.spans) - 1, -1, -1):
            span = self.spans[i]
            if span.arm == arm.name and span.generation == arm.generation and span.stopped_s is None:
                self.spans[i] = replace(span, stopped_s=now)
                return

    def stop(self) -> None:
        """Stop every server we launched; attached servers are left alone."""
        for arm in (self.off, self.on):
            if arm is not None and arm.server is not None:
                with contextlib.suppress(Exception):
                    self._stop(arm)

    def command_lines(self) -> dict[str, list[str]]:
        """Engine command lines per arm (managed mode), for the evidence."""
        return {a.name: a.command_line for a in (self.off, self.on) if a is not None and a.command_line}

    def spec_params(self) -> dict[str, str]:
        """The managed ON arm's drafter knobs as it runs them: set flags, else the binary's stated defaults."""
        if self.on is None or not self.on.spec_argv:
            return {}
        return effective_params(self.on.spec_argv, self.dialect)

    def draft_cap(self) -> int | None:
        """The longest draft the managed ON arm may make (γ), from its flags or the engine's default."""
        if self.on is None or not self.on.spec_argv:
            return None
        argv = self.on.spec_argv
        spec_type = argv[argv.index("--spec-type") + 1] if "--spec-type" in argv else "draft-simple"
        generation = self.dialect.generation if self.dialect is not None else "new"
        return draft_cap(self.spec_params(), spec_type, generation)

    @property
    def dialect(self) -> FlagDialect | None:
        """The managed binary's flag dialect (None in attach mode or when --help could not be read)."""
        return self.binary.dialect if self.binary is not None and isinstance(self.binary.dialect, FlagDialect) else None

    def spec_args(self) -> dict[str, tuple[str, ...]]:
        """The speculative flags per managed arm (what the recommendation repeats, token for token)."""
        return {a.name: a.spec_argv for a in (self.off, self.on) if a is not None and a.server is not None}
