"""Overall elapsed and remaining time of a check, for the CLI printer and the window.

The plan: how many units (prompts × repeats, canary repeats, verify rounds, concurrency levels, A/B pairs) each
step will measure, known once the workload is drawn and the engines are up (`planned_units`, sent as a
`RunPlanned` event), with the requests each unit sends (`unit_weights`: a sweep level of 24 requests is not one
prompt's time). The pace: seconds per request as measured so far — the running step's own once it has finished
a unit, and the request steps' so far for the steps still to come. So the estimate is honest:
- nothing is shown before the first unit has finished (there is no rate yet), nor while a step runs whose
  units are not planned; the tuner's probes are planned from the budget and the binary (steps/tune_plan.py);
- a step that ends early (the A/B stops as soon as the answer is clear) takes its unused units with it, so
  the figure is at most what is left, and falls when that happens;
- model loads are counted apart: each step's planned restarts and swaps (`planned_restarts`; a single-resident
  check swaps the one server between arms) cost one load each, at the load time measured so far (the first
  server's start, then every restart's), and a load's seconds never inflate the unit rate. Under a second for
  the demo model, up to a minute for 20 GB: without this the clock would run minutes short.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from advisor.config import CheckConfig
from advisor.events import Progress, RunPlanned, ServerRestarted, StepDone, StepStarted
from advisor.run.done import SessionEvent
from advisor.steps.plan import WorkloadPlan
from advisor.steps.tune_plan import TunePlan


def _ab_pairs(config: CheckConfig, plan: WorkloadPlan) -> tuple[int, int]:
    """Pairs the A/B step may measure: against OFF (the limit; its spare prompts only replace failed pairs) and,
    after a tuner whose choice is not the engine's defaults, against the defaults (advisor/steps/ab_default.py)."""
    pairs = min(config.ab_pair_limit, len(plan.ab))
    vs_default = min(config.budget.ab_vs_default_pairs, pairs) if config.tuning else 0
    return pairs, vs_default


def planned_units(config: CheckConfig, plan: WorkloadPlan, tune: TunePlan | None = None) -> dict[str, int]:
    """Units per chosen step, counted as the steps report them in `Progress`: a baseline unit is one request, a
    verify unit one round over every draft length, the tuner's what `tune` planned (none when not given)."""
    budget = config.budget
    units = {"baseline": len(plan.baseline) * budget.baseline_repeats,
             "acceptance": len(plan.acceptance) + budget.canary_repeats,
             "verify": budget.verify_repeats, "batch": len(budget.batch_levels), "ab": sum(_ab_pairs(config, plan))}
    if tune is not None:
        units["tune"] = tune.units
    return {step: units[step] for step in config.steps if step in units}


def unit_weights(config: CheckConfig, plan: WorkloadPlan, tune: TunePlan | None = None) -> dict[str, tuple[float, ...]]:
    """Requests each planned unit of a request step sends, in the order the step finishes them: one per baseline
    or acceptance prompt, two per A/B pair, a concurrency level's rounds × both arms × its concurrent requests,
    the tuner's from `tune`. So a sweep level of 24 requests is not paced like one prompt. The verify step's
    rounds are forwards of a few tokens, not requests: it has no weights and keeps its own pace."""
    budget = config.budget
    per_level = budget.batch_rounds * 2 * budget.batch_requests_per_slot
    weights = {"baseline": (1.0,) * (len(plan.baseline) * budget.baseline_repeats),
               "acceptance": (1.0,) * (len(plan.acceptance) + budget.canary_repeats),
               "batch": tuple(float(per_level * c) for c in budget.batch_levels),
               "ab": (2.0,) * sum(_ab_pairs(config, plan)),
               "tune": tune.weights if tune is not None else ()}
    return {step: w for step, w in weights.items() if step in config.steps and w}


def _pair_loads(pairs: int, single: bool, block_pairs: int) -> int:
    """Loads of one run of pairs: a fresh ON server side by side; one swap per block (and the first window)
    single-resident (advisor/arms/schedule.py)."""
    return math.ceil(pairs / max(block_pairs, 1)) + 1 if single else 1


def planned_restarts(config: CheckConfig, plan: WorkloadPlan, *, single: bool, block_pairs: int,
                     tune: TunePlan | None = None) -> dict[str, int]:
    """Model loads each chosen step will cause in a managed check (the tuner's from `tune`: one per probe, point
    and the choice). Side by side: the fresh ON servers of the acceptance step's canary, the sweep and the A/B
    (the acceptance step takes the server the session started; the sweep or A/B may take the tuner's choice).
    Single-resident adds a swap whenever the other arm is needed: preflight visits both arms, the verify step
    needs OFF after the ON steps, the sweep swaps once per level, the A/B once per block of pairs."""
    steps, budget = config.steps, config.budget
    pairs, vs_default = _ab_pairs(config, plan)
    # side by side the comparison with the defaults restarts OFF with them, ON fresh, and OFF back
    vs_loads = (_pair_loads(vs_default, single, block_pairs) if single else 3) if vs_default else 0
    out = {"preflight": 1 if single else 0,
           "baseline": 0,
           "acceptance": 2 if single else 1,
           "verify": 1 if single else 0,
           "batch": len(budget.batch_levels) if single else 1,
           "ab": _pair_loads(pairs, single, block_pairs) + vs_loads,
           "tune": tune.loads if tune is not None else 0}
    return {step: n for step, n in out.items() if step == "preflight" or step in steps}


# The steps whose units send requests (their weights count them, `unit_weights`): their pace, seconds per
# request, carries from one to the next. The verify step's units are rounds of short forwards: its own pace.
REQUEST_STEPS = frozenset({"baseline", "acceptance", "batch", "ab", "tune"})


@dataclass(frozen=True, slots=True)
class Estimate:
    """Where the run stands: seconds since it started, units done of planned, seconds left (None: no rate)."""

    elapsed_s: float
    done: int
    planned: int
    remaining_s: float | None


class EtaTracker:
    """A subscriber that keeps the estimate; `estimate()` may be called at any time (the window: each second).

    Time is paced per weight (a request, for the request steps): a step's remaining units cost their weights
    at a pace — the running step's own, blended with one unit at the run's pace so that its first unit (a
    cold cache, a warm-up inside it) does not set the whole step; for a step still to come, the pace of the
    request steps so far (a verify step before its first round: the run's pace per unit)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.planned: dict[str, int] = {}
        self.weights: dict[str, tuple[float, ...]] = {}
        self.done: dict[str, int] = {}
        self.ended: set[str] = set()
        self.current: str | None = None
        self.step_started = self.started
        self.unit_seconds = 0.0  # time spent in steps that had units, up to their last finished unit, less loads
        self.weight_done = 0.0   # the weight of every unit finished
        self.request_seconds = 0.0  # the same two over the request steps only
        self.request_weight = 0.0
        self._last_unit_at = self.started
        self.step_unit_seconds = 0.0   # the running step's unit time, loads excluded
        self.step_weight_done = 0.0
        self._pending_load_s = 0.0     # loads since the last finished unit (not unit time)
        self.restarts_planned: dict[str, int] = {}
        self.restarts_seen: dict[str, int] = {}
        self._loads: list[float] = []  # seconds of each model load seen (the first start, then restarts)

    def __call__(self, event: SessionEvent) -> None:
        """Update from one session event."""
        now = self.clock()
        if isinstance(event, RunPlanned):
            self.planned = dict(event.units)
            self.weights = {step: tuple(w) for step, w in event.weights.items()}
            self.restarts_planned = dict(event.restarts)
            if event.load_s is not None:
                self._loads.append(event.load_s)
        elif isinstance(event, ServerRestarted):
            step = self.current or "preflight"
            self.restarts_seen[step] = self.restarts_seen.get(step, 0) + 1
            self._loads.append(event.seconds)
            self._pending_load_s += event.seconds
        elif isinstance(event, StepStarted):
            self.current, self.step_started, self._last_unit_at = event.step, now, now
            self.step_unit_seconds, self.step_weight_done, self._pending_load_s = 0.0, 0.0, 0.0
        elif isinstance(event, Progress) and event.done >= 1 and event.step in self.planned:
            self._unit_done(event, now)
        elif isinstance(event, StepDone):
            self.ended.add(event.step)
            if self.current == event.step:
                self.current = None

    def _unit_done(self, event: Progress, now: float) -> None:
        # One Progress with done ≥ 1 per finished unit (warm-ups report done = 0).
        step = event.step
        weight = self._weight(step, self.done.get(step, 0))
        self.done[step] = self.done.get(step, 0) + 1
        if step not in ("acceptance", "tune"):  # the step's own count is the final word (acceptance shares its
            # Progress with the canary, the tuner counts each probe apart)
            self.planned[step] = max(event.total, self.done[step])
        else:
            self.planned[step] = max(self.planned[step], self.done[step])
        took = max(now - self._last_unit_at - self._pending_load_s, 0.0)
        self.unit_seconds += took
        self.weight_done += weight
        if step in REQUEST_STEPS:
            self.request_seconds += took
            self.request_weight += weight
        if step == self.current:
            self.step_unit_seconds += took
            self.step_weight_done += weight
        self._last_unit_at, self._pending_load_s = now, 0.0

    def _weight(self, step: str, index: int) -> float:
        """The weight of `step`'s unit `index` (from 0): planned, else the step's last planned one, else 1."""
        planned = self.weights.get(step)
        if not planned:
            return 1.0
        return planned[min(index, len(planned) - 1)]

    def _weight_left(self, step: str) -> float:
        done = self.done.get(step, 0)
        return sum(self._weight(step, i) for i in range(done, max(self.planned[step], done)))

    def estimate(self) -> Estimate:
        """The estimate now (remaining_s None until there is a rate and a plan for what runs)."""
        now = self.clock()
        done = sum(self.done.values())
        planned = sum(self.planned.values())
        return Estimate(now - self.started, done, planned, self._remaining(now, done))

    def _future_pace(self, step: str) -> float:
        """Seconds per weight for a step not yet under way."""
        if step in REQUEST_STEPS and self.request_weight > 0:
            return self.request_seconds / self.request_weight
        return self.unit_seconds / self.weight_done if self.weight_done > 0 else 0.0

    def _remaining(self, now: float, done: int) -> float | None:
        if done == 0 or not self.planned:
            return None
        if self.current is not None and self.current not in self.planned and self.current != "preflight":
            return None  # an unplanned step is running: its length is not known
        load = sum(self._loads) / len(self._loads) if self._loads else 0.0
        left = 0.0
        for step in self.planned:
            if step in self.ended:
                continue
            left += max(self.restarts_planned.get(step, 0) - self.restarts_seen.get(step, 0), 0) * load
            weight_left = self._weight_left(step)
            if step == self.current and self.done.get(step, 0):
                prior = self._weight(step, self.done[step])  # one unit at the run's pace
                pace = ((self.step_unit_seconds + prior * self._future_pace(step))
                        / max(self.step_weight_done + prior, 1e-9))
                # the unit under way has already taken part of its time (a load in it is not unit time)
                left += max(weight_left * pace - (now - self._last_unit_at - self._pending_load_s), 0.0)
            else:
                left += weight_left * self._future_pace(step)
        return left


def clock_text(seconds: float) -> str:
    """`m:ss` below an hour, `h:mm:ss` above (seconds rounded)."""
    total = max(round(seconds), 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def estimate_line(estimate: Estimate, text: Callable[..., str]) -> str:
    """`3/40 units · 1:05 elapsed · about 2:30 left` through `text(key, **values)` (the EN/ZH tables of the
    CLI or the window: both have `progress.units`, `progress.elapsed`, `progress.eta`)."""
    parts = []
    if estimate.planned:
        parts.append(text("progress.units", done=estimate.done, total=estimate.planned))
    parts.append(text("progress.elapsed", elapsed=clock_text(estimate.elapsed_s)))
    if estimate.remaining_s is not None:
        parts.append(text("progress.eta", left=clock_text(estimate.remaining_s)))
    return " · ".join(parts)
