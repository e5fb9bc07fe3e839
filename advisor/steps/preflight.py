"""Step 0 — preflight: is this machine in a state where measurements mean something?

Guards (design.md §4 step 0): other processes on the GPU, clocks already held down (thermal/power), running on
battery, little free VRAM, and whether speculation is really on in the ON arm and off in the OFF arm, as the
server's `/slots` reports it (not `/props`, which always says "none"). A draft model placed on the CPU
(advisor/arms/draft.py) is a warning here too.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

from advisor.arms.arms import ArmName
from advisor.arms.model_flags import SWA_FULL
from advisor.core.policy import PreflightPolicy
from advisor.events import Event, QualityWarning, StepDone
from advisor.evidence.arms import EngineThreads, ModelFlags
from advisor.evidence.schema import Environment
from advisor.evidence.steps import Guard, PreflightEvidence, arms_mismatch
from advisor.evidence.warnings import WarningCode
from advisor.steps.base import StepContext, warn
from advisor.steps.sanity import sanity_requests, sanity_result
from advisor.text import text
from advisor.text.message import Message, msg
from probes.base import Unavailable
from probes.engines.base import EngineError
from probes.host import PowerSource, load_average

# Clock-event reasons that mean the card is held below its normal clocks (engine-facts.md §5 bitmask).
THROTTLE_REASONS = frozenset(
    {"sw-power-cap", "hw-slowdown", "sw-thermal-slowdown", "hw-thermal-slowdown", "hw-power-brake-slowdown"})


class PreflightStep:
    """Environment and configuration guards; never measures speed."""

    id = "preflight"
    title = "Preflight checks"

    def run(self, ctx: StepContext) -> Iterator[Event]:
        """Check each guard and record pass/fail with a detail."""
        t0 = time.monotonic()
        guards: dict[str, Guard] = {}
        our_pids = {a.server.pid for a in (ctx.arms.off, ctx.arms.on) if a and a.server and a.server.pid}
        guards.update(gpu_guards(ctx.environment, our_pids, ctx.policy.preflight))
        guards["host-load"] = load_guard(ctx.policy.preflight)
        host = ctx.environment.host
        guards["power"] = power_guard(host.power_source if host is not None else None)
        sanity_ms: dict[str, list[float]] = {}
        guards.update(spec_guards(ctx, sanity_ms))
        sanity = sanity_result(ctx, sanity_ms)
        if wrong := arms_mismatch(guards):
            # Every later step would compare something other than speculation on vs off: stop here, and the rules
            # make this the verdict's reason (rules/root.toml, arms-not-as-claimed).
            ctx.halt = text("en", "guard.arms", detail=wrong)
        elif sanity is not None and sanity.tripped:
            # The long steps would only confirm it: stop here, the rules give the finding (rules/root.toml).
            ctx.halt = (f"the sanity gate stopped the check: speculation decoded {sanity.slowdown:.1f}× slower "
                        f"than speculation off in every one of its first requests (limit {sanity.limit:g}×)")
        warnings: list[QualityWarning] = [
            warn(self.id, WarningCode.for_guard(name), g.detail) for name, g in guards.items() if g.passed is False]
        plan = ctx.arms.plan
        if plan is not None and plan.threads is not None and plan.threads.reduced:
            warnings.append(warn(self.id, WarningCode.ENGINE_THREADS, threads_message(plan.threads)))
        if plan is not None and plan.model_flags is not None:
            warnings += [warn(self.id, WarningCode.MODEL_FLAGS, m) for m in model_flag_messages(ctx, plan.model_flags)]
        draft = ctx.environment.draft
        if draft is not None and draft.cpu_reason is not None:
            warnings.append(warn(self.id, WarningCode.DRAFT_ON_CPU, msg(f"warning.draft-on-cpu.{draft.cpu_reason}")))
        yield from warnings
        yield StepDone(self.id, "done", PreflightEvidence(guards=guards, sanity=sanity),
                       elapsed_s=time.monotonic() - t0, warnings=tuple(warnings))


def threads_message(threads: EngineThreads) -> Message:
    """The warning that the servers run with fewer threads than cores, with the numbers behind the choice."""
    # `reduced` means a thread count was chosen from measured busy cores: the Nones below cannot occur then
    return msg("warn.engine_threads", busy=threads.busy_cores or 0.0, cores=threads.cores or 0,
               threads=threads.threads or 0)


def model_flag_messages(ctx: StepContext, flags: ModelFlags) -> list[Message]:
    """What the servers got for the model file, one warning each (advisor/arms/model_flags.py)."""
    info = ctx.arms.model_info
    out = []
    if flags.template is not None:
        template_args = [a for a in flags.args if a != SWA_FULL]
        out.append(msg("warn.model_template", arch=info.architecture if info else "", args=" ".join(template_args)))
    elif flags.no_template:
        out.append(msg("warn.model_no_template"))
    if flags.swa_full:
        out.append(msg("warn.model_swa_full", window=(info.sliding_window if info else None) or 0))
    return out


def load_guard(policy: PreflightPolicy) -> Guard:
    """Is something else keeping the CPU busy? (load average through psutil; unknown where it has none.)"""
    load = load_average()
    if isinstance(load, Unavailable):
        return Guard(None, msg("detail.load_unknown", why=load.detail))
    load1 = load[0]
    cores = os.cpu_count() or 1
    busy = load1 > policy.max_load_per_core * cores
    return Guard(not busy, msg("detail.load_busy" if busy else "detail.load", load=load1, cores=cores))


def power_guard(power: PowerSource | Unavailable | None) -> Guard:
    """Battery power can cap clocks mid-run; desktops without a power-supply entry are simply unknown."""
    if power == "battery":
        return Guard(False, msg("detail.battery"))
    if power == "ac":
        return Guard(True, msg("detail.mains"))
    detail = power.detail if isinstance(power, Unavailable) else None
    return Guard(None, msg("detail.power_unknown", why=detail) if detail else msg("detail.power_unreported"))


def gpu_guards(environment: Environment, our_pids: set[int], policy: PreflightPolicy) -> dict[str, Guard]:
    """Other GPU processes, throttling and free VRAM, per the probed GPU snapshot."""
    report = environment.gpu
    cards = report.gpus if report is not None else ()
    if not cards:
        if report is None:
            return {"gpu": Guard(None, msg("detail.no_gpu_probed"))}
        return {"gpu": Guard(None, msg("detail.no_gpu", why=report.detail or report.status))}
    out: dict[str, Guard] = {}
    for i, card in enumerate(cards):
        procs = card.processes
        others = [p for p in procs if p.pid not in our_pids] if not isinstance(procs, Unavailable) else []
        names = ", ".join(f"{p.name} ({p.pid})" for p in others)  # the processes' own names, as written
        out[f"gpu{i}-other-processes"] = Guard(not others, Message.plain(names) if others
                                               else msg("detail.no_other_processes"))
        reasons = card.clock_event_reasons
        held = sorted(set(reasons) & THROTTLE_REASONS) if not isinstance(reasons, Unavailable) else []
        out[f"gpu{i}-throttle"] = Guard(not held, Message.plain(", ".join(held)) if held else msg("detail.clocks_free"))
        free = card.vram_free_gib
        if not isinstance(free, Unavailable):
            out[f"gpu{i}-vram-free"] = Guard(free >= policy.min_free_vram_gib, msg("detail.vram_free", free=free))
    return out


def spec_guards(ctx: StepContext, sanity_ms: dict[str, list[float]]) -> dict[str, Guard]:
    """Speculation must really be off in the OFF arm and on in the ON arm; each arm also runs the sanity
    gate's two short requests into `sanity_ms` while it is up (single-resident: the ON server the check started
    with first, then the OFF server swapped in, which the baseline needs next — one swap in all)."""
    out: dict[str, Guard] = {}
    on_resident = ctx.arms.on is not None and ctx.arms.on.resident
    names: tuple[ArmName, ArmName] = ("on", "off") if ctx.arms.single and on_resident else ("off", "on")
    for name in names:
        arm = ctx.use(name, "preflight", warm=False)  # the sanity requests warm it
        want = name == "on" and ctx.config.spec_type != "none"  # --spec-type none: an A/A run, both arms off
        if arm is None:
            continue
        sanity_ms[name] = sanity_requests(ctx, arm)
        try:
            spec = arm.adapter.info().spec
        except EngineError as exc:
            out[f"spec-{arm.name}"] = Guard(False, msg("detail.engine_silent", error=str(exc)))
            continue
        if isinstance(spec, Unavailable) or spec.active is None:
            out[f"spec-{arm.name}"] = Guard(None, msg("detail.engine_unsure", why=str(spec)))
            continue
        if spec.method:
            detail = msg("detail.spec_on_method" if spec.active else "detail.spec_off_method", method=spec.method)
        else:
            detail = msg("detail.spec_on" if spec.active else "detail.spec_off")
        out[f"spec-{arm.name}"] = Guard(spec.active == want, detail)
    return out
