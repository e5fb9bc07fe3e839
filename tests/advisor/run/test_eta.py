"""Overall elapsed and remaining time (advisor/run/eta.py) and how the CLI prints it, on a fake clock."""

from __future__ import annotations

import io
import math
from types import SimpleNamespace

import pytest

from advisor.ab.stopping import LossPrior
from advisor.cli.progress import ProgressPrinter
from advisor.config import CheckConfig
from advisor.events import Progress, RunPlanned, ServerRestarted, StepDone, StepStarted, UnitWork
from advisor.run.eta import EtaTracker, clock_text, estimate_line, fit_pace, planned_restarts, planned_units
from advisor.steps.tune_plan import TunePlan, plan_tune, probe_prompt_count
from advisor.text import text


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _tracker() -> tuple[EtaTracker, Clock]:
    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"baseline": 4, "ab": 10}))
    return eta, clock


def test_no_estimate_before_a_unit_has_finished() -> None:
    eta, clock = _tracker()
    eta(StepStarted("preflight", "Preflight", 1, 3))
    clock.now += 5
    eta(StepDone("preflight", "done"))
    eta(StepStarted("baseline", "Baseline", 2, 3))
    eta(Progress.unit("baseline", 0, 4, "warmup", n=1))  # warm-ups are not units
    clock.now += 3
    estimate = eta.estimate()
    assert estimate.remaining_s is None and estimate.elapsed_s == pytest.approx(8.0)
    assert (estimate.done, estimate.planned) == (0, 14)


def test_remaining_from_the_step_rate_and_the_overall_rate() -> None:
    eta, clock = _tracker()
    eta(StepStarted("baseline", "Baseline", 1, 2))
    for i in range(2):
        clock.now += 2.0
        eta(Progress("baseline", i + 1, 4))
    # baseline: 2 left at 2 s each; ab: 10 pairs at the overall 2 s per unit
    assert eta.estimate().remaining_s == pytest.approx(2 * 2.0 + 10 * 2.0)
    clock.now += 1.5  # the third prompt is under way: its time is already partly spent
    assert eta.estimate().remaining_s == pytest.approx(2 * 2.0 - 1.5 + 10 * 2.0)


def test_a_step_that_stops_early_takes_its_unused_units_with_it() -> None:
    eta, clock = _tracker()
    eta(StepStarted("ab", "A/B", 1, 1))
    for i in range(3):
        clock.now += 4.0
        eta(Progress("ab", i + 1, 10))
    eta(StepDone("ab", "done"))
    assert eta.estimate().remaining_s == pytest.approx(4 * 4.0)  # only baseline's 4 units, at 4 s each


def test_an_unplanned_step_shows_no_estimate() -> None:
    eta, clock = _tracker()
    eta(StepStarted("baseline", "Baseline", 1, 2))
    clock.now += 1
    eta(Progress("baseline", 1, 4))
    eta(StepDone("baseline", "done"))
    eta(StepStarted("tune", "Tuner", 2, 2))
    assert eta.estimate().remaining_s is None


def test_the_steps_own_count_replaces_the_plan() -> None:
    eta, clock = _tracker()
    eta(StepStarted("ab", "A/B", 1, 1))
    clock.now += 1
    eta(Progress("ab", 1, 6))
    assert eta.estimate().planned == 4 + 6


def test_a_steps_plan_before_its_first_unit_replaces_the_run_plan() -> None:
    # the A/B says how many pairs the loops seen so far make likely before its first pair (advisor/steps/ab.py)
    eta, clock = _tracker()
    _baseline_of_one_second_requests(eta, clock, 4)
    eta(StepStarted("ab", "A/B", 2, 2))
    assert eta.estimate().remaining_s == pytest.approx(10 * 1.0)
    eta(Progress.unit("ab", 0, 13, "ab_plan", pairs=13))
    assert (eta.estimate().planned, eta.estimate().remaining_s) == (4 + 13, pytest.approx(13 * 1.0))


def test_planned_units_follow_the_chosen_steps_and_the_plan() -> None:
    config = CheckConfig(quick=True, steps=("baseline", "acceptance", "verify", "ab"))
    prompt = SimpleNamespace(text="a prompt of some length")
    plan = SimpleNamespace(baseline=[prompt] * 6, acceptance=[prompt] * 12, ab=[prompt] * 20, canary=prompt)
    units = planned_units(config, plan)  # type: ignore[arg-type]
    budget = config.budget
    assert units == {"baseline": 6 * budget.baseline_repeats,
                     "acceptance": 12 + budget.canary_repeats + budget.canary_reruns,
                     "verify": budget.verify_repeats, "ab": 20}


def test_the_ab_is_planned_with_the_pairs_its_loops_will_lose_up_to_its_spare_prompts() -> None:
    config = CheckConfig(quick=True, steps=("baseline", "acceptance", "ab"))
    prompt = SimpleNamespace(text="a prompt of some length")
    plan = SimpleNamespace(baseline=[prompt] * 6, acceptance=[prompt] * 12, ab=[prompt] * 40, canary=prompt)
    limit = config.ab_pair_limit
    # a tenth of the 20 earlier prompts looped: a tenth of the pairs is lost and replaced from the spares
    units = planned_units(config, plan, loss=LossPrior(looped=2, prompts=20))  # type: ignore[arg-type]
    assert units["ab"] == limit + math.floor(limit / 9)  # whole pairs only (advisor/ab/stopping.py)
    # however many loop, no more than the spare prompts the A/B takes (a quarter of the limit)
    units = planned_units(config, plan, loss=LossPrior(looped=20, prompts=20))  # type: ignore[arg-type]
    assert units["ab"] == limit + limit // 4


@pytest.mark.parametrize(("seconds", "shown"), [(0, "0:00"), (59.6, "1:00"), (754, "12:34"), (3725, "1:02:05")])
def test_clock_text(seconds: float, shown: str) -> None:
    assert clock_text(seconds) == shown


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_line_in_both_languages(lang: str) -> None:
    eta, clock = _tracker()
    eta(StepStarted("baseline", "Baseline", 1, 2))
    clock.now += 65
    eta(Progress("baseline", 1, 4))
    line = estimate_line(eta.estimate(), lambda key, **v: text(lang, key, **v))
    assert text(lang, "progress.elapsed", elapsed="1:05") in line
    assert text(lang, "progress.eta", left=clock_text(3 * 65 + 10 * 65)) in line


def test_the_printer_adds_the_estimate_to_step_lines() -> None:
    clock = Clock()
    out = io.StringIO()
    printer = ProgressPrinter(out, lang="zh", eta=EtaTracker(clock))
    printer(RunPlanned({"baseline": 2, "ab": 4}))
    printer(StepStarted("baseline", "Baseline", 1, 2))
    clock.now += 10
    printer(Progress("baseline", 1, 2))
    printer(StepDone("baseline", "done", elapsed_s=10))
    printer(StepStarted("ab", "A/B", 2, 2))
    lines = out.getvalue().splitlines()
    # a zh reader gets the step's Chinese name and status (the event's English title is the fallback)
    assert lines[0].startswith(f"[1/2] {text('zh', 'step.baseline')} — ")
    assert text("zh", "progress.eta", left="0:00") not in lines[0]
    assert lines[1].strip() == text("zh", "progress.step_done", status=text("zh", "status.done"), seconds="10.0")
    assert lines[-1].endswith(text("zh", "progress.eta", left="0:40"))


def test_planned_model_loads_are_counted_apart_from_units() -> None:
    # Single-resident on a big model: each swap is a 60 s load; the ETA adds the loads still to come and never
    # reads a load as unit time.
    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"baseline": 4, "ab": 10}, restarts={"baseline": 0, "ab": 3}, load_s=60.0))
    eta(StepStarted("baseline", "Baseline", 1, 2))
    for i in range(2):
        clock.now += 2.0
        eta(Progress("baseline", i + 1, 4))
    assert eta.estimate().remaining_s == pytest.approx(2 * 2.0 + 10 * 2.0 + 3 * 60.0)
    eta(StepDone("baseline", "done"))
    eta(StepStarted("ab", "A/B", 2, 2))
    clock.now += 50.0
    eta(ServerRestarted("ab:pairs", 50.0))  # one swap, faster than planned: the load estimate follows it
    clock.now += 2.0
    eta(Progress("ab", 1, 10))
    # the unit took 2 s, not 52 s; two loads remain at the mean of what was seen (60 and 50 s)
    assert eta.estimate().remaining_s == pytest.approx(9 * 2.0 + 2 * 55.0)


def test_planned_restarts_side_by_side_and_single_resident() -> None:
    plan = SimpleNamespace(baseline=[1] * 4, acceptance=[1] * 9, ab=[1] * 20)
    config = CheckConfig(quick=True, steps=("baseline", "acceptance", "verify", "batch", "ab"))
    dual = planned_restarts(config, plan, single=False, block_pairs=4)  # type: ignore[arg-type]
    single = planned_restarts(config, plan, single=True, block_pairs=4)  # type: ignore[arg-type]
    assert dual["baseline"] == 0 and dual["verify"] == 0 and dual["ab"] == 1
    # single: a swap to OFF in preflight, to ON for the acceptance step (+ the canary), back to OFF for verify,
    # one per sweep level, and one per block of 4 A/B pairs (+ the first)
    assert single["preflight"] == 1 and single["acceptance"] == 2 and single["verify"] == 1
    assert single["batch"] == len(config.budget.batch_levels) and single["ab"] == 20 // 4 + 1


def test_the_tuners_probes_are_planned_and_counted_per_unit() -> None:
    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"tune": 7, "ab": 10}, {"tune": 3}, load_s=2.0))
    eta(StepStarted("tune", "Tuner", 1, 2))
    for i in range(3):  # one probe of three prompts: its Progress counts 1..3 of 3, not the tuner's 7
        clock.now += 1.0
        eta(Progress("tune", i + 1, 3))
    estimate = eta.estimate()
    assert estimate.planned == 17 and estimate.remaining_s is not None
    # 4 tuner units at its own 1 s, 3 loads of 2 s not yet seen, then 10 pairs at the overall 1 s
    assert estimate.remaining_s == pytest.approx(4 * 1.0 + 3 * 2.0 + 10 * 1.0)


def test_plan_tune_counts_probes_points_and_the_choice() -> None:
    from probes.engines.llamacpp.binary import parse_help
    from tests.advisor.arms.test_draft_placement import NEW_HELP

    dialect = parse_help(NEW_HELP)
    plan = SimpleNamespace(acceptance=[SimpleNamespace(category=c) for c in ("code", "code", "chat", "math")])
    quick = CheckConfig(quick=True)
    tuned = plan_tune(quick, plan, dialect, managed=True, k_max=16)  # type: ignore[arg-type]
    synth = 1 if dialect.has_spec_synth else 0
    assert (tuned.units, tuned.loads) == (synth + 1, synth + 1)  # the surface point (where listed), the choice
    assert plan_tune(quick, plan, dialect, managed=False, k_max=16) == TunePlan(loads=0)  # type: ignore[arg-type]
    assert plan_tune(CheckConfig(quick=True, draft_max=4), plan, dialect, managed=True,  # type: ignore[arg-type]
                     k_max=4) == TunePlan(loads=0)  # a fixed draft length: no tuner
    assert probe_prompt_count(plan, 1) == 3 and probe_prompt_count(plan, 3) == 4  # type: ignore[arg-type]


def test_until_decided_plans_the_full_checks_pairs() -> None:  # issue 24 item 2: the ETA knows
    from advisor.config import FULL, QUICK
    from advisor.steps.plan import plan_workload

    quick, longer = CheckConfig(quick=True), CheckConfig(quick=True, until_decided=True)
    assert (quick.ab_pair_limit, longer.ab_pair_limit) == (QUICK.ab_max_pairs, FULL.ab_max_pairs)
    short_plan, long_plan = plan_workload(quick), plan_workload(longer)
    assert len(long_plan.ab) > len(short_plan.ab) >= QUICK.ab_max_pairs
    # the limit's pairs, not the spare prompts that only replace failed pairs
    assert planned_units(longer, long_plan)["ab"] == FULL.ab_max_pairs < len(long_plan.ab)
    assert planned_units(quick, short_plan)["ab"] == QUICK.ab_max_pairs
    loads = planned_restarts(longer, long_plan, single=True, block_pairs=4)["ab"]
    assert loads > planned_restarts(quick, short_plan, single=True, block_pairs=4)["ab"]


def _baseline_of_one_second_requests(eta: EtaTracker, clock: Clock, units: int) -> None:
    """The baseline step: `units` requests of 1 s each, then its end."""
    eta(StepStarted("baseline", "Baseline", 1, 2))
    for i in range(units):
        clock.now += 1.0
        eta(Progress("baseline", i + 1, units))
    eta(StepDone("baseline", "done"))


def test_a_sweep_level_is_paced_by_the_requests_it_sends() -> None:
    """Issue 27: the concurrency sweep's 3 levels send 6, 12 and 24 requests; paced as 3 prompts the clock
    said 3 s for 40 s of work."""
    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"baseline": 2, "batch": 3},
                   work={"baseline": (UnitWork(1.0),) * 2, "batch": tuple(UnitWork(float(n)) for n in (6, 12, 24))}))
    eta(StepStarted("baseline", "Baseline", 1, 2))
    for i in range(2):
        clock.now += 1.0
        eta(Progress("baseline", i + 1, 2))
    eta(StepDone("baseline", "done"))
    assert eta.estimate().remaining_s == pytest.approx(42.0)  # 42 requests at the baseline's 1 s each
    eta(StepStarted("batch", "Concurrency", 2, 2))
    clock.now += 12.0  # the first level ran at 2 s per request: a first unit carries the step's warm-up
    eta(Progress("batch", 1, 3))
    assert eta.estimate().remaining_s == pytest.approx(36.0)
    clock.now += 24.0  # so does the second: one slow unit beside two at the model's pace moves nothing yet
    eta(Progress("batch", 2, 3))
    assert eta.estimate().remaining_s == pytest.approx(24.0)


def test_one_slow_unit_moves_the_step_little_a_slow_machine_within_a_few_units() -> None:
    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"baseline": 4, "ab": 20}, work={"baseline": (UnitWork(1.0),) * 4, "ab": (UnitWork(2.0),) * 20}))
    _baseline_of_one_second_requests(eta, clock, 4)
    eta(StepStarted("ab", "A/B", 2, 2))
    for i, took in enumerate((2.0, 2.0, 2.0, 6.0)):  # a spike on a shared machine
        clock.now += took
        eta(Progress("ab", i + 1, 20))
    assert eta.estimate().remaining_s == pytest.approx(16 * 2.0, rel=0.05)
    for i in range(4, 9):  # then the machine stays three times slower
        clock.now += 6.0
        eta(Progress("ab", i + 1, 20))
    assert eta.estimate().remaining_s == pytest.approx(11 * 6.0, rel=0.05)


def test_long_prompts_cost_more_where_prefill_is_slow() -> None:
    """On a CPU a 250-token prompt costs about what its reply does: units are fitted on requests and prompt
    tokens, so an A/B whose last prompts are long is not paced like its short ones."""
    clock = Clock()
    eta = EtaTracker(clock)
    sizes = (20.0, 200.0, 40.0, 160.0, 80.0, 120.0)  # prompt tokens; each request takes 1 s + 5 ms per token
    eta(RunPlanned({"baseline": 6, "ab": 2},
                   work={"baseline": tuple(UnitWork(1.0, p) for p in sizes),
                         "ab": (UnitWork(2.0, 2 * 20.0), UnitWork(2.0, 2 * 250.0))}))
    eta(StepStarted("baseline", "Baseline", 1, 2))
    for i, p in enumerate(sizes):
        clock.now += 1.0 + 0.005 * p
        eta(Progress("baseline", i + 1, 6))
    eta(StepDone("baseline", "done"))
    pace = fit_pace(eta.finished)
    assert pace is not None and (pace.per_request, pace.per_prompt_token) == pytest.approx((1.0, 0.005))
    assert eta.estimate().remaining_s == pytest.approx((2.0 + 0.2) + (2.0 + 2.5))


def test_the_work_counts_requests_and_prompt_tokens_per_unit() -> None:
    from advisor.config import QUICK
    from advisor.run.eta import planned_work
    from advisor.steps.plan import plan_workload

    config = CheckConfig(quick=True)
    plan = plan_workload(config)
    work = planned_work(config, plan)
    per_level = QUICK.batch_rounds * 2 * QUICK.batch_requests_per_slot
    assert [w.requests for w in work["batch"]] == [float(per_level * c) for c in QUICK.batch_levels]  # 6, 12, 24
    assert [w.requests for w in work["ab"]] == [2.0] * QUICK.ab_max_pairs
    assert len(work["acceptance"]) == planned_units(config, plan)["acceptance"]  # prompts, canary and its re-runs
    lengths = [w.prompt_tokens for w in work["ab"]]
    assert min(lengths) > 0 and max(lengths) > 2 * min(lengths)  # the bundled prompts differ in size
    assert "verify" not in work  # rounds of forwards keep their own pace
    # a wave of c concurrent requests costs c^exponent requests' time; its prompts' tokens are all of theirs
    waves = planned_work(config, plan, wave_exponent=0.5)["batch"]
    assert [w.requests for w in waves] == pytest.approx([per_level * c ** 0.5 for c in QUICK.batch_levels])
    assert [w.prompt_tokens for w in waves] == pytest.approx([w.prompt_tokens for w in work["batch"]])


def test_a_second_plan_after_the_baseline_replaces_the_steps_to_come() -> None:
    """A full check sized after its baseline tells the clock again: the steps still to run take the new sizes,
    the done baseline keeps its units, and the loads already counted are not counted twice."""
    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"baseline": 4, "ab": 60}, {"ab": 1}, 2.0,
                   {"baseline": (UnitWork(1.0),) * 4, "ab": (UnitWork(2.0),) * 60}))
    _baseline_of_one_second_requests(eta, clock, 4)
    full = eta.estimate().remaining_s
    eta(RunPlanned({"baseline": 4, "ab": 20}, {"ab": 1}, None,
                   {"baseline": (UnitWork(1.0),) * 4, "ab": (UnitWork(2.0),) * 20}))
    sized = eta.estimate()
    assert full is not None and sized.remaining_s is not None and sized.planned == 24
    assert full - sized.remaining_s == pytest.approx(40 * 2.0)  # 40 pairs fewer at 2 s a pair
    assert eta._loads == [2.0]


def test_the_comparison_with_the_defaults_counts_on_after_the_pairs() -> None:
    """The A/B step's pairs against the defaults continue its count, so the plan is one number."""
    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"ab": 30}, work={"ab": (UnitWork(2.0),) * 30}))
    eta(StepStarted("ab", "A/B", 1, 1))
    for i in range(10):
        clock.now += 2.0
        eta(Progress("ab", i + 1, 10 + 20))  # decided after 10 pairs: 20 against the defaults follow
    assert eta.estimate().planned == 30
    for i in range(10):
        clock.now += 2.0
        eta(Progress.unit("ab", 10 + i + 1, 10 + 10, "ab_default_pair", pair=i + 1))  # only 10 prompts to pair
    estimate = eta.estimate()
    assert (estimate.done, estimate.planned, estimate.remaining_s) == (20, 20, 0.0)


def test_a_steps_tail_is_planned_for_the_steps_to_come() -> None:
    """Work after a step's last unit (the A/B's divergence check, a summary) is counted for each step left."""
    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"baseline": 1, "ab": 1}))
    eta(StepStarted("baseline", "Baseline", 1, 2))
    clock.now += 2.0
    eta(Progress("baseline", 1, 1))
    clock.now += 3.0  # the step's own summary after its last request
    eta(StepDone("baseline", "done"))
    assert eta.estimate().remaining_s == pytest.approx(2.0 + 3.0)


def test_a_step_that_ran_slow_at_first_is_paced_by_its_latest_units() -> None:
    """The demo's A/B ran its first pairs slow, then at the model's pace: over all of its units the clock stayed
    a quarter long; its latest units set the scale."""
    from advisor.run.eta import SCALE_RECENT_UNITS

    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"baseline": 4, "ab": 40}, work={"baseline": (UnitWork(1.0),) * 4, "ab": (UnitWork(2.0),) * 40}))
    _baseline_of_one_second_requests(eta, clock, 4)
    eta(StepStarted("ab", "A/B", 2, 2))
    slow = 10
    for i in range(slow + SCALE_RECENT_UNITS):
        clock.now += 4.0 if i < slow else 2.0
        eta(Progress("ab", i + 1, 40))
    left = 40 - slow - SCALE_RECENT_UNITS
    assert eta.estimate().remaining_s == pytest.approx(left * 2.0)


def test_a_pair_of_the_choice_against_the_defaults_runs_at_the_speculating_pace() -> None:
    """Both arms of a pair against the engine's defaults speculate: at a 3x pair speedup such a pair takes half
    of what a pair of one request per arm does (2/s against 1 + 1/s); the demo's Gemma check was promised 60 s
    for its last 44."""
    from advisor.events import Sample
    from advisor.run.eta import BOTH_ON, PAIR

    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"baseline": 4, "ab": 8}, work={"baseline": (UnitWork(1.0),) * 4,
                                                   "ab": (UnitWork(2.0, kind=PAIR),) * 6
                                                   + (UnitWork(2.0, kind=BOTH_ON),) * 2}))
    _baseline_of_one_second_requests(eta, clock, 4)
    eta(StepStarted("ab", "A/B", 2, 2))
    for i in range(6):  # the step's own pairs set its scale (2/3 of two plain requests)
        clock.now += 1.0 + 1.0 / 3.0  # OFF 1 s, ON a third of it
        eta(Progress("ab", i + 1, 8))
        eta(Sample("ab", "pair_speedup", float(i + 1), 3.0))
    assert eta.estimate().remaining_s == pytest.approx(2 * 2.0 / 3.0)  # two pairs of two ON requests



def test_speculating_units_do_not_set_the_plain_pace() -> None:
    """Stop 36's Gemma check: its acceptance step (speculation on) ran at 0.6 of the plain pace; fitted together
    with the baseline it cut the A/B's estimate by a fifth that the A/B then took back. Plain units set the pace;
    speculating ones price only what speculates (the tuner's probes), and an A/B pair — a fresh ON server, its
    differing replies replayed — is two plain requests until pairs are seen."""
    from advisor.run.eta import PAIR, SPECULATING

    clock = Clock()
    eta = EtaTracker(clock)
    eta(RunPlanned({"baseline": 4, "acceptance": 6, "tune": 4, "ab": 10},
                   work={"baseline": (UnitWork(1.0),) * 4, "acceptance": (UnitWork(1.0, kind=SPECULATING),) * 6,
                         "tune": (UnitWork(1.0, kind=SPECULATING),) * 4, "ab": (UnitWork(2.0, kind=PAIR),) * 10}))
    _baseline_of_one_second_requests(eta, clock, 4)
    eta(StepStarted("acceptance", "Acceptance", 2, 4))
    for i in range(6):
        clock.now += 0.6
        eta(Progress("acceptance", i + 1, 6))
    eta(StepDone("acceptance", "done"))
    assert eta.estimate().remaining_s == pytest.approx(4 * 0.6 + 10 * 2.0)


def test_the_tuners_probes_speculate_and_its_priced_units_do_not() -> None:
    config = CheckConfig(quick=False)
    from advisor.run.eta import PRICED, SPECULATING, planned_work
    from advisor.steps.plan import plan_workload

    plan = plan_workload(config)
    tune = TunePlan(loads=3, weights=(1.0, 1.0, 4.5, 0.0), probes=(True, True, False, False))
    work = planned_work(config, plan, tune)
    assert [w.kind for w in work["tune"]] == [SPECULATING, SPECULATING, PRICED, PRICED]
    assert {w.kind for w in work["acceptance"]} == {SPECULATING}
    assert {w.kind for w in work["baseline"]} == {""}
