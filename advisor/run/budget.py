"""A full check sized to its time budget: each later step as large as its share of `policy.budget.full_check_s`
holds at the pace this machine showed in the baseline step.

Sized after the baseline, because one request's seconds differ a hundredfold between models and machines and
the baseline is the first thing that has timed this one. Each sized step climbs down a ladder of sizes
(advisor/config.py `*_RUNGS`, from the full budget's own to no less than the quick check's) and takes the largest
rung whose seconds fit its share. A step whose smallest rung still does not fit takes that rung and the plan
says so: a slow model runs past the target rather than measure less than a quick check would.

Seconds are priced with the clock's own plan (advisor/run/eta.py: units, the requests each sends, model loads),
so the sizes and the ETA that follows them agree. The A/B is priced at its last planned look: it may stop
sooner (a clear answer), never later.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from advisor.config import (
    AB_RUNGS,
    ACCEPTANCE_RUNGS,
    BATCH_RUNGS,
    FULL,
    SURFACE_SPREAD,
    TUNE_RUNGS,
    Budget,
    CheckConfig,
)
from advisor.core.policy import BudgetPolicy
from advisor.events import Event, Progress
from advisor.evidence.steps import BaselineEvidence
from advisor.evidence.time_plan import TimePlan
from advisor.run.eta import Pace, planned_restarts, planned_work
from advisor.steps.plan import PromptLike, WorkloadPlan
from advisor.steps.tune_plan import TunePlan

# The Budget fields each sized step owns: a rung of the step changes these and no others.
STEP_SIZES: dict[str, tuple[str, ...]] = {
    "acceptance": ("acceptance_per_category", "canary_repeats", "canary_reruns"),
    "tune": ("tune_probe_per_category", "surface_points"),
    "batch": ("batch_levels", "batch_rounds", "batch_requests_per_slot"),
    "ab": ("ab_max_pairs", "ab_vs_default_pairs"),
}
SIZED_STEPS = tuple(STEP_SIZES)
MIN_PACE_UNITS = 2  # request times the baseline's first round must give before the check is sized on them
TunePlanner = Callable[[CheckConfig, WorkloadPlan], TunePlan | None]


@dataclass(frozen=True, slots=True)
class MachinePace:
    """This machine's pace for this model: one request's seconds at the check's answer length and one model
    load's seconds."""

    request_s: float
    load_s: float


class BaselinePace:
    """The baseline's request seconds as its units finish, so the check is sized after the baseline's first round
    (a dozen requests) rather than its end: the clock shows the sized plan from early on, not the full sizes that
    will never run. Each unit's seconds are the time since the one before; the first is left out (it carries
    the last warm-up request)."""

    def __init__(self, first_round: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.first_round = first_round
        self.clock = clock
        self.last: float | None = None
        self.seconds: list[float] = []
        self.told = False

    def observe(self, event: Event) -> float | None:
        """The median request seconds once the first round has finished (once), else None."""
        if self.told or not isinstance(event, Progress) or event.step != "baseline":
            return None
        now = self.clock()
        if event.done >= 1:
            if self.last is not None and event.done >= 2:
                self.seconds.append(now - self.last)
            if event.done >= self.first_round and len(self.seconds) >= MIN_PACE_UNITS:
                self.told = True
                return statistics.median(self.seconds)
        self.last = now
        return None


def pace_from_baseline(baseline: BaselineEvidence | None, load_s: Sequence[float],
                       request_s: float | None = None) -> MachinePace | None:
    """The median client-side seconds of the baseline's requests (each a whole answer: prompt, decode, reply),
    or `request_s` when its first round already said (`BaselinePace`), and the mean of the loads seen; None
    when the baseline timed nothing."""
    if request_s is None:
        times = [r.total_ms / 1000.0 for r in (baseline.samples if baseline is not None else ()) if r.total_ms > 0]
        if not times:
            return None
        request_s = statistics.median(times)
    return MachinePace(request_s, sum(load_s) / len(load_s) if load_s else 0.0)


def sizable(config: CheckConfig) -> bool:
    """A full check with the full budget's own sizes (a quick check, or sizes a test or benchmark fixed, are
    measured as they are)."""
    return not config.quick and config.budget_override is None


def _rungs(config: CheckConfig) -> dict[str, list[Budget]]:
    """Each sized step's candidate budgets, largest first; only that step's sizes differ between them."""
    base = FULL
    keep_levels = {c for c in base.batch_levels if c <= max(2, 2 * config.concurrency_expected)}
    return {
        "acceptance": [replace(base, acceptance_per_category=n, canary_repeats=r, canary_reruns=rr)
                       for n, r, rr in ACCEPTANCE_RUNGS],
        "tune": [replace(base, tune_probe_per_category=n, surface_points=SURFACE_SPREAD[:points])
                 for n, points in TUNE_RUNGS],
        "batch": [replace(base, batch_levels=tuple(sorted(set(levels) | keep_levels)), batch_rounds=rounds,
                          batch_requests_per_slot=per_slot) for levels, rounds, per_slot in BATCH_RUNGS],
        "ab": [replace(base, ab_max_pairs=pairs, ab_vs_default_pairs=vs) for pairs, vs in AB_RUNGS],
    }


def trim_acceptance(plan: WorkloadPlan, per_category: int) -> WorkloadPlan:
    """The plan with at most `per_category` acceptance prompts per category, the first ones in its order (the
    order interleaves categories, so what is kept still spreads over the run)."""
    seen: Counter[str] = Counter()
    kept: list[PromptLike] = []
    for prompt in plan.acceptance:
        if seen[prompt.category] < per_category:
            kept.append(prompt)
            seen[prompt.category] += 1
    return replace(plan, acceptance=tuple(kept))


def step_seconds(config: CheckConfig, plan: WorkloadPlan, tune: TunePlan | None, pace: MachinePace,
                 wave_exponent: float, *, single: bool, block_pairs: int) -> dict[str, float]:
    """Planned seconds of each chosen step at `pace`: its units' requests and its model loads."""
    per_request = Pace(pace.request_s, 0.0)
    work = planned_work(config, plan, tune, wave_exponent=wave_exponent)
    loads = planned_restarts(config, plan, single=single, block_pairs=block_pairs, tune=tune)
    return {step: sum(per_request.seconds(w) for w in work.get(step, ())) + loads.get(step, 0) * pace.load_s
            for step in config.steps}


@dataclass(frozen=True, slots=True)
class SizedCheck:
    """The check as sized: its config (the chosen sizes as its budget), the plan trimmed to them, and the time
    plan for the evidence."""

    config: CheckConfig
    plan: WorkloadPlan
    time_plan: TimePlan


def size_check(config: CheckConfig, plan: WorkloadPlan, policy: BudgetPolicy, pace: MachinePace,
               plan_tune: TunePlanner, *, single: bool, block_pairs: int,
               steps: Collection[str] = SIZED_STEPS) -> SizedCheck:
    """Each sized step of `steps` at its largest rung that fits its share (see the module notes); the other
    steps as they are. The time plan lists the steps sized here."""
    chosen = config.budget
    over: list[str] = []
    planned: dict[str, float] = {}
    for step, rungs in _rungs(config).items():
        if step not in config.steps or step not in steps:
            continue
        allowance = (policy.share(step) or 0.0) * policy.full_check_s
        fits = None
        for rung in rungs:
            # on the sizes chosen so far: the tuner's probes and the sweep draw on the acceptance prompts kept
            trial = replace(config, budget_override=_take(chosen, rung, step))
            trial_plan = trim_acceptance(plan, trial.budget.acceptance_per_category)
            seconds = step_seconds(trial, trial_plan, plan_tune(trial, trial_plan), pace,
                                   policy.batch_wave_exponent, single=single, block_pairs=block_pairs)[step]
            fits = (rung, seconds)
            if seconds <= allowance:
                break
        else:
            over.append(step)
        assert fits is not None
        chosen = _take(chosen, fits[0], step)
        planned[step] = round(fits[1], 1)
    sized = replace(config, budget_override=chosen)
    sized_plan = trim_acceptance(plan, chosen.acceptance_per_category)
    time_plan = TimePlan(target_s=policy.full_check_s, request_s=round(pace.request_s, 3),
                         load_s=round(pace.load_s, 3), steps=planned, over_share=tuple(over))
    return SizedCheck(sized, sized_plan, time_plan)


def resize_tuner(config: CheckConfig, plan: WorkloadPlan, policy: BudgetPolicy, time_plan: TimePlan,
                 plan_tune: TunePlanner, *, single: bool, block_pairs: int) -> SizedCheck:
    """The tuner sized again once the verify curve prices its synthetic points (`plan_tune` reads it), at the
    pace the check was sized with: before the curve a point was one plain request each, and on a CPU a k = 16
    point at τ = 1.5 takes three (the demo's tuner took 26 % of the check against its 25 % share). The tuner
    has not started, so its sizes can still change; the other steps keep theirs."""
    pace = MachinePace(time_plan.request_s, time_plan.load_s)
    tuner = size_check(config, plan, policy, pace, plan_tune, single=single, block_pairs=block_pairs,
                       steps=("tune",))
    over = set(time_plan.over_share) - {"tune"} | set(tuner.time_plan.over_share)
    merged = replace(time_plan, steps={**time_plan.steps, **tuner.time_plan.steps},
                     over_share=tuple(step for step in SIZED_STEPS if step in over))
    return replace(tuner, time_plan=merged)


def _take(budget: Budget, rung: Budget, step: str) -> Budget:
    """`budget` with `step`'s sizes taken from `rung`."""
    return replace(budget, **{name: getattr(rung, name) for name in STEP_SIZES[step]})


def plan_only(config: CheckConfig, plan: WorkloadPlan, policy: BudgetPolicy, pace: MachinePace,
              plan_tune: TunePlanner, *, single: bool, block_pairs: int) -> TimePlan:
    """The planned seconds of a check measured at its own sizes (a quick check, sizes fixed by a test): no
    target, so a step that runs far past its plan can still say so."""
    seconds = step_seconds(config, plan, plan_tune(config, plan), pace, policy.batch_wave_exponent,
                           single=single, block_pairs=block_pairs)
    return TimePlan(target_s=None, request_s=round(pace.request_s, 3), load_s=round(pace.load_s, 3),
                    steps={step: round(seconds[step], 1) for step in SIZED_STEPS if step in seconds})
