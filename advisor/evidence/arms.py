"""How a managed check ran its arms: the memory budget, the mode it chose, and every server's lifetime."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ArmsMode = Literal["single", "dual"]
ArmsRequest = Literal["auto", "single", "dual"]
# Why a server (re)started before a phase: a clean n-gram pool, a single-resident swap to the other arm, or
# new settings (the tuner's probes and choice, the engine's defaults).
RestartReason = Literal["fresh", "swap", "config"]


@dataclass(frozen=True, slots=True)
class ArmNeed:
    """What one server needs in memory, in GiB: the target's weights, its KV cache, compute buffers, draft."""

    weights_gib: float
    kv_gib: float
    buffers_gib: float
    draft_gib: float = 0.0

    @property
    def target_gib(self) -> float:
        """The target server without a draft."""
        return self.weights_gib + self.kv_gib + self.buffers_gib


@dataclass(frozen=True, slots=True)
class DeviceBudget:
    """One device's budget: GiB needed by one copy of the target (+ draft) and by two, against what is free."""

    device: str                 # "gpu0", "gpu1", … or "ram"
    free_gib: float
    single_gib: float           # one target server with the draft (single-resident)
    dual_gib: float             # both servers side by side
    margin_gib: float           # kept spare (rules/policy.toml [arms])

    @property
    def dual_fits(self) -> bool:
        """Both servers fit here with the margin left over."""
        return self.dual_gib + self.margin_gib <= self.free_gib

    @property
    def single_fits(self) -> bool:
        """One server fits here with the margin left over."""
        return self.single_gib + self.margin_gib <= self.free_gib


@dataclass(frozen=True, slots=True)
class EngineThreads:
    """The managed servers' CPU threads and why (threads None: the engine's default, one per physical core)."""

    threads: int | None
    busy_cores: float | None      # cores' worth of other work in the half second before the servers started
    held_cores: int               # physical cores counted as held by that work (rounded at arms.busy_core_share)
    cores: int | None             # physical cores

    @property
    def reduced(self) -> bool:
        """True when the check chose fewer threads than cores because other work held some."""
        return self.threads is not None and self.held_cores > 0


@dataclass(frozen=True, slots=True)
class ModelFlags:
    """Options the managed servers got because of the model file (advisor/arms/model_flags.py), and why."""

    args: tuple[str, ...] = ()
    template: str | None = None        # the built-in template given by name
    no_template: bool = False          # the file has no chat template (given one by name or not)
    swa_full: bool = False             # --swa-full added for a sliding-window model

    @property
    def said(self) -> bool:
        """Is there anything to tell the user before the check measures?"""
        return self.no_template or self.swa_full


@dataclass(frozen=True, slots=True)
class ArmsPlan:
    """How the arms run and why: the mode chosen, what the user asked for, and the budget behind it."""

    mode: ArmsMode
    requested: ArmsRequest
    reason: str                               # one English sentence (the report translates by `reason_code`)
    # asked-single, asked-dual, fits, does-not-fit, unknown-memory, placed-apart (dual started, placed apart)
    reason_code: str
    where: Literal["gpu", "cpu"]
    need: ArmNeed | None = None
    devices: tuple[DeviceBudget, ...] = ()
    shared_weights: bool = False              # CPU + mmap: two servers share one copy of the weights
    threads: EngineThreads | None = None      # None: the user chose them (--threads, -t), or an attached engine
    model_flags: ModelFlags | None = None     # None: nothing added (or an attached engine)


@dataclass(frozen=True, slots=True)
class ServerSpan:
    """One managed target server's life, in seconds since the arms were set up (so overlap can be checked)."""

    arm: str
    generation: int
    phase: str                  # what it was started for (start, a step, a swap before a phase)
    pid: int | None
    started_s: float
    load_s: float               # from the process start to /health 200: the model load
    stopped_s: float | None     # None: still running when the evidence was written


@dataclass(frozen=True, slots=True)
class ServerRestart:
    """A managed server restarted before a phase (what the phase then measured on), model load included."""

    arm: str
    before: str                 # the phase: acceptance, canary, batch, ab, tune:…
    generation: int             # the new process's generation (the first server is 1)
    seconds: float
    reason: RestartReason = "fresh"
