"""Overall elapsed and remaining time of a check, for the CLI printer and the window.

The plan: how many units (prompts × repeats, canary repeats, verify rounds, concurrency levels, A/B pairs) each
step will measure, known once the workload is drawn and the engines are up (`planned_units`, sent as a
`RunPlanned` event), with the requests and prompt tokens each unit sends (`planned_work`: a sweep level of 24
requests is not one prompt's time). The pace: seconds per request and per prompt token fitted on the units
measured so far (`fit_pace`), the running step scaled by how its own units ran. So the estimate is honest:
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
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from advisor.ab.stopping import NO_LOSS, LossPrior, expected_losses, loss_share
from advisor.config import CheckConfig
from advisor.events import Progress, RunPlanned, Sample, ServerRestarted, StepDone, StepStarted, UnitWork
from advisor.run.done import SessionEvent
from advisor.steps.plan import PromptLike, WorkloadPlan, ab_prompts_for
from advisor.steps.tune_plan import TunePlan


def _ab_pairs(config: CheckConfig, plan: WorkloadPlan, loss: LossPrior = NO_LOSS) -> tuple[int, int]:
    """Pairs the A/B step may measure: against OFF (the limit, and as many more of its spare prompts as the
    loops seen so far (`loss`) will lose: advisor/ab/stopping.py) and, after a tuner whose choice is not the
    engine's defaults, against the defaults (advisor/steps/ab_default.py)."""
    limit = config.ab_pair_limit
    pairs = min(limit + expected_losses(limit, loss_share((), loss)), ab_prompts_for(limit), len(plan.ab))
    vs_default = min(config.budget.ab_vs_default_pairs, pairs) if config.tuning else 0
    return pairs, vs_default


def planned_units(config: CheckConfig, plan: WorkloadPlan, tune: TunePlan | None = None,
                  loss: LossPrior = NO_LOSS) -> dict[str, int]:
    """Units per chosen step, counted as the steps report them in `Progress`: the request steps' as `planned_work`
    lists them, a verify unit one round over every draft length, the tuner's what `tune` planned (none when not
    given)."""
    work = planned_work(config, plan, tune, loss=loss)
    units = {step: len(work.get(step, ())) for step in ("baseline", "acceptance", "batch", "ab")}
    units["verify"] = config.budget.verify_repeats
    if tune is not None:
        units["tune"] = tune.units
    return {step: units[step] for step in config.steps if step in units}


# What a unit's requests run on (UnitWork.kind), which sets its pace. Only plain units make the fitted pace:
# speculation changes a request's time by the method's gain (Gemma 3 on this CPU: its acceptance step ran at
# 0.6 of the plain pace, and fitted together with the baseline it cut the clock's A/B by a fifth that the A/B
# then took back).
PLAIN = ""            # speculation off (the baseline)
SPECULATING = "on"    # speculation on (the acceptance step, the tuner's probes)
PAIR = "pair"         # one request on each arm (an A/B pair, with its replays)
BOTH_ON = "both-on"   # both arms speculate (the tuner's choice against the engine's defaults)
PRICED = "priced"     # in plain requests' time by its plan (a sweep level's waves, a synthetic point at the
#                       verify curve, the draft model's own speed): paced as plain, fitted to nothing
SPEED_KINDS = frozenset({SPECULATING, PAIR, BOTH_ON})  # kinds with a ratio of their own to the plain pace
PAIR_SPEEDUP = ("ab", "pair_speedup")  # the A/B's per-pair speedup samples, which price a both-on pair
# Characters per token of the bundled prompts' languages, for a prompt's size before it is tokenised: the fit
# below takes the scale from measured times, so only the prompts' relative sizes need to be right.
CHARS_PER_TOKEN = 4.0


def _tokens(prompt: PromptLike) -> float:
    return len(prompt.text) / CHARS_PER_TOKEN


def planned_work(config: CheckConfig, plan: WorkloadPlan, tune: TunePlan | None = None, *,
                 wave_exponent: float = 1.0, loss: LossPrior = NO_LOSS) -> dict[str, tuple[UnitWork, ...]]:
    """What each planned unit of a request step sends, in the order the step finishes them: one request per
    baseline or acceptance prompt and canary repeat, two per canary re-run and A/B pair, the tuner's from
    `tune` — each with its prompts' tokens. A concurrency level of c runs rounds × both arms × requests per slot
    waves of c requests at once; a wave costs c^`wave_exponent` requests' time (policy.budget.batch_wave_exponent:
    0 memory-bound, 1 compute-bound), its prompts' tokens all of theirs. So a sweep level of 24 requests is not
    paced like one prompt, nor like 24 in a row, nor a long prompt like a short one. The verify step's rounds
    are forwards of a few tokens, not requests: they have no entry and keep their own pace."""
    budget = config.budget
    pool = list(plan.acceptance) or list(plan.baseline)
    mean = sum(_tokens(p) for p in pool) / len(pool) if pool else 0.0
    pairs, vs_default = _ab_pairs(config, plan, loss)
    per_level = budget.batch_rounds * 2 * budget.batch_requests_per_slot
    reruns = list(plan.acceptance)[: budget.canary_reruns]
    on = SPECULATING
    work = {
        "baseline": tuple(UnitWork(1.0, _tokens(p)) for _ in range(budget.baseline_repeats) for p in plan.baseline),
        # the canary's repeats after the first find their prompt cached, as does a re-run's second request
        "acceptance": (tuple(UnitWork(1.0, _tokens(p), on) for p in plan.acceptance)
                       + (UnitWork(1.0, _tokens(plan.canary), on),)
                       + (UnitWork(1.0, 0.0, on),) * (budget.canary_repeats - 1)
                       + tuple(UnitWork(2.0, _tokens(p), on) for p in reruns)),
        # under load speculation gains little (what the sweep measures): a level is paced as plain requests
        "batch": tuple(UnitWork(per_level * c ** wave_exponent, per_level * c * mean, PRICED)
                       for c in budget.batch_levels),
        "ab": (tuple(UnitWork(2.0, 2 * _tokens(p), PAIR) for p in plan.ab[:pairs])
               + tuple(UnitWork(2.0, 2 * _tokens(p), BOTH_ON) for p in plan.ab[:vs_default])),
        "tune": (tuple(UnitWork(w, w * mean, on if probe else PRICED)
                       for w, probe in zip(tune.weights, tune.probes, strict=True)) if tune is not None else ()),
    }
    return {step: w for step, w in work.items() if step in config.steps and w}


def _pair_loads(pairs: int, single: bool, block_pairs: int) -> int:
    """Loads of one run of pairs: a fresh ON server side by side; one swap per block (and the first window)
    single-resident (advisor/arms/schedule.py)."""
    return math.ceil(pairs / max(block_pairs, 1)) + 1 if single else 1


def planned_restarts(config: CheckConfig, plan: WorkloadPlan, *, single: bool, block_pairs: int,
                     tune: TunePlan | None = None, loss: LossPrior = NO_LOSS) -> dict[str, int]:
    """Model loads each chosen step will cause in a managed check (the tuner's from `tune`: one per probe, point
    and the choice). Side by side: the fresh ON servers of the acceptance step's canary, the sweep and the A/B
    (the acceptance step takes the server the session started; the sweep or A/B may take the tuner's choice).
    Single-resident adds a swap whenever the other arm is needed: preflight visits both arms, the verify step
    needs OFF after the ON steps, the sweep swaps once per level, the A/B once per block of pairs."""
    steps, budget = config.steps, config.budget
    pairs, vs_default = _ab_pairs(config, plan, loss)
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


# The steps whose units send requests one at a time: their times fit the pace model (seconds per request and
# per prompt token). The sweep's requests run concurrently: it is predicted from the model, then paced by its own
# levels. The verify step's units are rounds of short forwards: paced on their own.
SERIAL_STEPS = frozenset({"baseline", "acceptance", "ab", "tune"})
REQUEST_STEPS = SERIAL_STEPS | {"batch"}
MIN_FIT_UNITS = 4  # fewer serial units than this: one pace per request, prompt sizes not yet separable
# Units at the model's pace the running step's scale starts from: one slow unit (an A/B pair whose replies differ
# and are replayed, a page fault) moves the clock only once two more agree; a machine that stays slow moves it
# within four units. With one, the demo's second A/B pair (8 s of a usual 4.5 s) threw the clock 40 % off for a
# pair; with two, a Gemma quick check's first A/B pairs (3.3 s on a fresh n-gram pool, then 2 s) held it 25 %
# long for a dozen pairs (three: 10 %, replayed over the 17 kept checks of stop 36: worst 0.26 → 0.23).
SCALE_PRIOR_UNITS = 3
# Only the running step's latest units set its scale: a step whose first units ran slow (the demo's A/B, 5 s a
# pair for its first four, then 4) is paced by how it runs now (over all its units the clock stayed 24 % long).
# Twelve, not fewer: over the last eight, one quick pair near the end moved the clock 24 % for a pair (replayed
# on the demo's full checks: 0.24 and 0.26 at worst with eight, 0.22 and 0.22 with twelve to twenty-four).
SCALE_RECENT_UNITS = 12


@dataclass(frozen=True, slots=True)
class Estimate:
    """Where the run stands: seconds since it started, units done of planned, seconds left (None: no rate)."""

    elapsed_s: float
    done: int
    planned: int
    remaining_s: float | None


@dataclass(frozen=True, slots=True)
class _Finished:
    step: str
    work: UnitWork
    took_s: float
    first: bool  # the step's first unit, which carries its warm-up and cold caches


@dataclass(frozen=True, slots=True)
class Pace:
    """Seconds a unit takes: `per_request` + `per_prompt_token` × its prompt tokens, each ≥ 0."""

    per_request: float
    per_prompt_token: float

    def seconds(self, work: UnitWork) -> float:
        """The predicted seconds of `work`."""
        return self.per_request * work.requests + self.per_prompt_token * work.prompt_tokens


def fit_pace(units: list[_Finished]) -> Pace | None:
    """Least squares of the plain serial units' times on their requests and prompt tokens (first units left out
    while there are others; every serial unit where none ran plain, as a check without a baseline); one pace per
    request when prompt sizes cannot be told apart or a term would go negative. None: no unit with work yet."""
    rows = [u for u in units if u.step in SERIAL_STEPS and u.work.requests > 0]
    rows = [u for u in rows if u.work.kind == PLAIN] or rows
    later = [u for u in rows if not u.first]
    rows = later if len(later) >= MIN_FIT_UNITS else rows
    if not rows:
        return None
    total_s = sum(u.took_s for u in rows)
    flat = Pace(total_s / sum(u.work.requests for u in rows), 0.0)
    if len(rows) < MIN_FIT_UNITS:
        return flat
    rr = sum(u.work.requests ** 2 for u in rows)
    rp = sum(u.work.requests * u.work.prompt_tokens for u in rows)
    pp = sum(u.work.prompt_tokens ** 2 for u in rows)
    rt = sum(u.work.requests * u.took_s for u in rows)
    pt = sum(u.work.prompt_tokens * u.took_s for u in rows)
    det = rr * pp - rp * rp
    if det <= 1e-9 * rr * pp:
        return flat
    a, b = (pp * rt - rp * pt) / det, (rr * pt - rp * rt) / det
    return Pace(a, b) if a >= 0 and b >= 0 else flat


class EtaTracker:
    """A subscriber that keeps the estimate; `estimate()` may be called at any time (the window: each second).

    Units cost what the pace model fitted on the steps before predicts for their work (`fit_pace`); the
    running step's units are scaled by the median of its own units' ratios to the model beside two at the
    model's pace (`_step_scale`), so that one spike does not set the whole step. A step's first unit carries
    its warm-up and cold caches, and a step may end with work after its last unit: each step still to start
    adds the mean first-unit excess seen (`_start_excess`), each not yet ended the mean tail."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.planned: dict[str, int] = {}
        self.work: dict[str, tuple[UnitWork, ...]] = {}
        self.done: dict[str, int] = {}
        self.ended: set[str] = set()
        self.current: str | None = None
        self.step_started = self.started
        self.finished: list[_Finished] = []
        self.tails: list[float] = []   # seconds from a step's last unit to its end
        self._last_unit_at = self.started
        self._pending_load_s = 0.0     # loads since the last finished unit (not unit time)
        self.restarts_planned: dict[str, int] = {}
        self.restarts_seen: dict[str, int] = {}
        self._loads: list[float] = []  # seconds of each model load seen (the first start, then restarts)
        self._pair_speedups: list[float] = []  # the A/B's pairs: OFF ÷ ON time per token

    def __call__(self, event: SessionEvent) -> None:
        """Update from one session event."""
        now = self.clock()
        if isinstance(event, RunPlanned):
            self.planned = dict(event.units)
            self.work = {step: tuple(w) for step, w in event.work.items()}
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
            self._pending_load_s = 0.0
        elif isinstance(event, Progress) and event.done >= 1 and event.step in self.planned:
            self._unit_done(event, now)
        elif isinstance(event, Progress) and event.step in self.planned:
            self._recount(event)  # before its first unit: a step's own plan (the A/B's, from the loops seen)
        elif isinstance(event, Sample) and (event.step, event.series) == PAIR_SPEEDUP and event.y > 0:
            self._pair_speedups.append(event.y)
        elif isinstance(event, StepDone):
            if self.current == event.step and self.done.get(event.step):
                self.tails.append(max(now - self._last_unit_at - self._pending_load_s, 0.0))
            self.ended.add(event.step)
            if self.current == event.step:
                self.current = None

    def _unit_done(self, event: Progress, now: float) -> None:
        # One Progress with done ≥ 1 per finished unit (warm-ups report done = 0).
        step = event.step
        index = self.done.get(step, 0)
        self.done[step] = index + 1
        self._recount(event)
        took = max(now - self._last_unit_at - self._pending_load_s, 0.0)
        self.finished.append(_Finished(step, self._work(step, index), took, first=index == 0))
        self._last_unit_at, self._pending_load_s = now, 0.0

    def _recount(self, event: Progress) -> None:
        step, done = event.step, self.done.get(event.step, 0)
        if step not in ("acceptance", "tune"):  # the step's own count is the final word (acceptance shares its
            # Progress with the canary, the tuner counts each probe apart)
            self.planned[step] = max(event.total, done)
        else:
            self.planned[step] = max(self.planned[step], done)

    def _work(self, step: str, index: int) -> UnitWork:
        """The work of `step`'s unit `index` (from 0) of the step's count now: planned, else the step's last
        planned one, else one request of no known prompt. The plan's trailing both-on pairs (the comparison with
        the defaults) stay the step's last units whatever count the pairs before them end at: an A/B that stops
        at its first look, or replaces lost pairs, moves them (the Gemma check's were priced as plain pairs, and
        its clock read 22 % long)."""
        planned = self.work.get(step)
        if not planned:
            return UnitWork(1.0)
        tail = next((i for i, w in enumerate(reversed(planned)) if w.kind != BOTH_ON), len(planned))
        total = max(self.planned.get(step, len(planned)), index + 1)
        if index >= total - tail:
            return planned[len(planned) - (total - index)]
        head = planned[: len(planned) - tail] or planned
        return head[min(index, len(head) - 1)]

    def estimate(self) -> Estimate:
        """The estimate now (remaining_s None until there is a rate and a plan for what runs)."""
        now = self.clock()
        done = sum(self.done.values())
        planned = sum(self.planned.values())
        return Estimate(now - self.started, done, planned, self._remaining(now, done))

    def _speed(self, pace: Pace) -> dict[str, float]:
        """Each kind's time as a share of the plain pace: measured where units of the kind finished in steps
        before the running one (the median of their ratios to the pace), else:
        - speculating: 1 until a speculating step has run;
        - a pair: two plain requests, not (1 + r)/2 at the speculating share r: its ON arm starts on a fresh
          server (an empty n-gram pool) and its differing replies are replayed (Gemma 3's pairs ran at 0.9 of
          two plain requests where (1 + r)/2 said 0.8); the A/B's own pairs then scale it;
        - a both-on pair: 2/(s + 1) of a pair at the A/B's median pair speedup s so far (each arm 1/s of plain:
          2/s against 1 + 1/s), at s = 1/r before any pair."""
        before = [u for u in self.finished if u.step != self.current and u.step in SERIAL_STEPS and not u.first]
        measured: dict[str, float] = {}
        for kind in SPEED_KINDS:
            ratios = [u.took_s / p for u in before if u.work.kind == kind and (p := pace.seconds(u.work)) > 0]
            if ratios:
                measured[kind] = statistics.median(ratios)
        r = measured.get(SPECULATING, 1.0)
        pair = measured.get(PAIR, 1.0)
        s = statistics.median(self._pair_speedups) if self._pair_speedups else 1.0 / r
        both_on = measured.get(BOTH_ON, pair * 2.0 / (s + 1.0))
        return {SPECULATING: r, PAIR: pair, BOTH_ON: both_on}

    def _model(self, pace: Pace) -> Callable[[UnitWork], float]:
        """Predicted seconds of a request unit: the fitted plain pace, at its kind's share of it (`_speed`)."""
        speed = self._speed(pace)
        return lambda work: pace.seconds(work) * speed.get(work.kind, 1.0)

    def _unit_seconds(self, step: str, pace: Pace | None,
                      model: Callable[[UnitWork], float] | None) -> Callable[[UnitWork], float]:
        """Predicted seconds of one of `step`'s units: the `model` for a request step; for another, the mean of
        its own units so far, else one request's time."""
        if step in REQUEST_STEPS and model is not None:
            return model
        own = [u.took_s for u in self.finished if u.step == step]
        if own:
            mean = sum(own) / len(own)
        elif pace is not None:
            mean = pace.per_request
        else:
            mean = sum(u.took_s for u in self.finished) / max(len(self.finished), 1)
        return lambda work: mean

    def _step_scale(self, step: str, predict: Callable[[UnitWork], float]) -> float:
        """How much slower than the model the running step's units are: the median of their ratios beside
        `SCALE_PRIOR_UNITS` at the model's pace, over its latest `SCALE_RECENT_UNITS` (a single slow unit, a
        spike on a shared machine, does not move it; a machine that stays slow, or speeds up again, moves it
        within a few units). The step's first unit carries its warm-up
        (`_start_excess`), not its pace."""
        own = [u for u in self.finished if u.step == step and not u.first and predict(u.work) > 0]
        recent = own[-SCALE_RECENT_UNITS:]
        return statistics.median([*(1.0,) * SCALE_PRIOR_UNITS, *(u.took_s / predict(u.work) for u in recent)])

    def _start_excess(self, model: Callable[[UnitWork], float] | None) -> float:
        """Seconds a request step's first unit took beyond the `model` (its warm-up, a cold cache), on average
        over the steps seen: each step still to start will pay it too."""
        if model is None:
            return 0.0
        firsts = [u.took_s - model(u.work) for u in self.finished
                  if u.first and u.step in REQUEST_STEPS and u.work.requests > 0]
        return max(sum(firsts) / len(firsts), 0.0) if firsts else 0.0

    def _remaining(self, now: float, done: int) -> float | None:
        if done == 0 or not self.planned:
            return None
        if self.current is not None and self.current not in self.planned and self.current != "preflight":
            return None  # an unplanned step is running: its length is not known
        load = sum(self._loads) / len(self._loads) if self._loads else 0.0
        tail = sum(self.tails) / len(self.tails) if self.tails else 0.0
        # the model from the steps before the running one (its own units set its scale, robust to a spike)
        pace = fit_pace([u for u in self.finished if u.step != self.current]) or fit_pace(self.finished)
        model = self._model(pace) if pace is not None else None  # once per estimate: every step reads it
        start = self._start_excess(model)
        left = 0.0
        for step in self.planned:
            if step in self.ended:
                continue
            left += max(self.restarts_planned.get(step, 0) - self.restarts_seen.get(step, 0), 0) * load + tail
            step_done = self.done.get(step, 0)
            if step_done == 0 and step in REQUEST_STEPS:
                left += start
            todo = [self._work(step, i) for i in range(step_done, max(self.planned[step], step_done))]
            predict = self._unit_seconds(step, pace, model)
            if step == self.current and step_done:
                scale = self._step_scale(step, predict)
                # the unit under way has already taken part of its time (a load in it is not unit time)
                spent = now - self._last_unit_at - self._pending_load_s
                left += max(scale * sum(predict(w) for w in todo) - spent, 0.0)
            else:
                left += sum(predict(w) for w in todo)
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
