"""Overall elapsed and remaining time of a check, for the CLI printer and the window.

The plan: how many units (prompts × repeats, canary repeats, verify rounds, concurrency levels, A/B pairs) each
step will measure, known once the workload is drawn and the engines are up (`planned_units`, sent as a
`RunPlanned` event). The rate: seconds per unit as measured so far — the running step's own rate once it has
finished a unit, and the run's overall rate for the steps still to come. So the estimate is honest:
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


def planned_units(config: CheckConfig, plan: WorkloadPlan, tune: TunePlan | None = None) -> dict[str, int]:
    """Units per chosen step, counted as the steps report them in `Progress`: a baseline unit is one request, a
    verify unit one round over every draft length, the tuner's what `tune` planned (none when not given)."""
    budget = config.budget
    units = {"baseline": len(plan.baseline) * budget.baseline_repeats,
             "acceptance": len(plan.acceptance) + budget.canary_repeats,
             "verify": budget.verify_repeats, "batch": len(budget.batch_levels), "ab": len(plan.ab)}
    if tune is not None:
        units["tune"] = tune.units
    return {step: units[step] for step in config.steps if step in units}


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
    pairs = min(config.ab_pair_limit, len(plan.ab))
    vs_default = min(budget.ab_vs_default_pairs, pairs)
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


@dataclass(frozen=True, slots=True)
class Estimate:
    """Where the run stands: seconds since it started, units done of planned, seconds left (None: no rate)."""

    elapsed_s: float
    done: int
    planned: int
    remaining_s: float | None


class EtaTracker:
    """A subscriber that keeps the estimate; `estimate()` may be called at any time (the window: each second)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.planned: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.ended: set[str] = set()
        self.current: str | None = None
        self.step_started = self.started
        self.unit_seconds = 0.0  # time spent in steps that had units, up to their last finished unit, less loads
        self._last_unit_at = self.started
        self.step_unit_seconds = 0.0   # the running step's unit time, loads excluded
        self._pending_load_s = 0.0     # loads since the last finished unit (not unit time)
        self.restarts_planned: dict[str, int] = {}
        self.restarts_seen: dict[str, int] = {}
        self._loads: list[float] = []  # seconds of each model load seen (the first start, then restarts)

    def __call__(self, event: SessionEvent) -> None:
        """Update from one session event."""
        now = self.clock()
        if isinstance(event, RunPlanned):
            self.planned = dict(event.units)
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
            self.step_unit_seconds, self._pending_load_s = 0.0, 0.0
        elif isinstance(event, Progress) and event.done >= 1 and event.step in self.planned:
            # One Progress with done ≥ 1 per finished unit (warm-ups report done = 0).
            self.done[event.step] = self.done.get(event.step, 0) + 1
            if event.step not in ("acceptance", "tune"):  # the step's own count is the final word (acceptance
                # shares its Progress with the canary, the tuner counts each probe apart)
                self.planned[event.step] = max(event.total, self.done[event.step])
            else:
                self.planned[event.step] = max(self.planned[event.step], self.done[event.step])
            took = max(now - self._last_unit_at - self._pending_load_s, 0.0)
            self.unit_seconds += took
            self.step_unit_seconds += took
            self._last_unit_at, self._pending_load_s = now, 0.0
        elif isinstance(event, StepDone):
            self.ended.add(event.step)
            if self.current == event.step:
                self.current = None

    def estimate(self) -> Estimate:
        """The estimate now (remaining_s None until there is a rate and a plan for what runs)."""
        now = self.clock()
        done = sum(self.done.values())
        planned = sum(self.planned.values())
        return Estimate(now - self.started, done, planned, self._remaining(now, done))

    def _remaining(self, now: float, done: int) -> float | None:
        if done == 0 or not self.planned:
            return None
        if self.current is not None and self.current not in self.planned and self.current != "preflight":
            return None  # an unplanned step is running: its length is not known
        overall = self.unit_seconds / done
        load = sum(self._loads) / len(self._loads) if self._loads else 0.0
        left = 0.0
        for step, units in self.planned.items():
            if step in self.ended:
                continue
            step_done = self.done.get(step, 0)
            todo = max(units - step_done, 0)
            left += max(self.restarts_planned.get(step, 0) - self.restarts_seen.get(step, 0), 0) * load
            if step == self.current and step_done:
                rate = self.step_unit_seconds / step_done
                # the unit under way has already taken part of its time (a load in it is not unit time)
                left += max(todo * rate - (now - self._last_unit_at - self._pending_load_s), 0.0)
            else:
                left += todo * overall
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
