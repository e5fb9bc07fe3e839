"""Step 0 — preflight: is this machine in a state where measurements mean something?

Guards (DESIGN §4 step 0): other processes on the GPU, clocks already held down (thermal/power), running on
battery, little free VRAM, and whether speculation is really on in the ON arm and off in the OFF arm, as the
server's `/slots` reports it (not `/props`, which always says "none").
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from typing import Any

from advisor.events import Event, QualityWarning, StepDone
from advisor.steps.base import StepContext, warn
from probes.base import Unavailable
from probes.engines.base import EngineError

# Clock-event reasons that mean the card is held below its normal clocks (engines.md §5 bitmask).
THROTTLE_REASONS = frozenset(
    {"sw-power-cap", "hw-slowdown", "sw-thermal-slowdown", "hw-thermal-slowdown", "hw-power-brake-slowdown"})
# llama.cpp's CPU threads wait on each other at every op; when other work holds the cores, a decode step can
# take 100× longer (seen here: 0.4 tok/s while another engine decoded, ~75 tok/s alone). A 1-minute load
# average above half the logical cores before we start means the timings will not describe this machine.
MAX_LOAD_PER_CORE = 0.5
# Below 1 GiB free, a draft model or a longer KV cache may spill or fail to load (a home-GPU rule of thumb).
MIN_FREE_VRAM_GIB = 1.0


class PreflightStep:
    """Environment and configuration guards; never measures speed."""

    id = "preflight"
    title = "Preflight checks"

    def run(self, ctx: StepContext) -> Iterator[Event]:
        """Check each guard and record pass/fail with a detail."""
        t0 = time.monotonic()
        guards: dict[str, dict[str, Any]] = {}
        our_pids = {a.server.pid for a in (ctx.arms.off, ctx.arms.on) if a and a.server and a.server.pid}
        guards.update(gpu_guards(ctx.environment, our_pids))
        guards["host-load"] = load_guard()
        guards["power"] = power_guard((ctx.environment.get("host") or {}).get("power_source"))
        guards.update(spec_guards(ctx))
        warnings: list[QualityWarning] = [
            warn(self.id, f"guard-{name}", g["detail"]) for name, g in guards.items() if g["passed"] is False]
        yield from warnings
        yield StepDone(self.id, "done", {"guards": guards}, elapsed_s=time.monotonic() - t0,
                       warnings=tuple(warnings))


def load_guard() -> dict[str, Any]:
    """Is something else keeping the CPU busy? (Unix load average; unknown elsewhere.)"""
    try:
        load1 = os.getloadavg()[0]
    except (AttributeError, OSError):
        return {"passed": None, "detail": "load average not available on this system"}
    cores = os.cpu_count() or 1
    busy = load1 > MAX_LOAD_PER_CORE * cores
    detail = f"1-minute load {load1:.1f} on {cores} logical cores"
    return {"passed": not busy, "detail": detail + (": other work is running, timings will be noisy" if busy else "")}


def power_guard(power: Any) -> dict[str, Any]:
    """Battery power can cap clocks mid-run; desktops without a power-supply entry are simply unknown."""
    if power == "battery":
        return {"passed": False, "detail": "on battery: clocks may be limited"}
    if power == "ac":
        return {"passed": True, "detail": "on mains power"}
    detail = power.get("detail") if isinstance(power, Mapping) else None
    return {"passed": None, "detail": f"power source unknown ({detail or 'not reported'})"}


def gpu_guards(environment: Mapping[str, Any], our_pids: set[int]) -> dict[str, dict[str, Any]]:
    """Other GPU processes, throttling and free VRAM, per the probed GPU snapshot."""
    gpu = environment.get("gpu") or {}
    cards = gpu.get("gpus") or []
    if not cards:
        return {"gpu": {"passed": None, "detail": f"no GPU ({gpu.get('reason') or gpu.get('status')})"}}
    out: dict[str, dict[str, Any]] = {}
    for i, card in enumerate(cards):
        procs = card.get("processes")
        others = [p for p in procs if p.get("pid") not in our_pids] if isinstance(procs, list) else []
        out[f"gpu{i}-other-processes"] = {
            "passed": not others,
            "detail": ", ".join(f"{p.get('name')} ({p.get('pid')})" for p in others) or "none"}
        reasons = card.get("clock_event_reasons")
        held = sorted(set(reasons) & THROTTLE_REASONS) if isinstance(reasons, list) else []
        out[f"gpu{i}-throttle"] = {"passed": not held, "detail": ", ".join(held) or "clocks not held down"}
        free = card.get("vram_free_gib")
        if isinstance(free, int | float):
            out[f"gpu{i}-vram-free"] = {"passed": free >= MIN_FREE_VRAM_GIB, "detail": f"{free:.1f} GiB free"}
    return out


def spec_guards(ctx: StepContext) -> dict[str, dict[str, Any]]:
    """Speculation must really be off in the OFF arm and on in the ON arm."""
    out: dict[str, dict[str, Any]] = {}
    for arm, want in ((ctx.arms.off, False), (ctx.arms.on, True)):
        if arm is None:
            continue
        try:
            spec = arm.adapter.info().spec
        except EngineError as exc:
            out[f"spec-{arm.name}"] = {"passed": False, "detail": f"engine did not answer: {exc}"}
            continue
        if isinstance(spec, Unavailable) or spec.active is None:
            out[f"spec-{arm.name}"] = {"passed": None, "detail": f"the engine does not say ({spec})"}
            continue
        state = f"speculation {'on' if spec.active else 'off'}" + (f" ({spec.method})" if spec.method else "")
        out[f"spec-{arm.name}"] = {"passed": spec.active == want, "detail": state}
    return out
