"""A full check sized to its time budget (advisor/run/budget.py): the steps after the baseline as large as their
share of rules/policy.toml's `budget.full_check_s` holds at the measured pace, never smaller than a quick check,
the tuner at most a quarter, and a slow machine told rather than measured less."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

import pytest

from advisor.config import FULL, QUICK, SURFACE_SPREAD, CheckConfig
from advisor.core.policy import PolicyError, default_policy, load_policy
from advisor.events import Progress
from advisor.evidence.steps import BaselineEvidence, RequestRecord
from advisor.run.budget import (
    SIZED_STEPS,
    STEP_SIZES,
    BaselinePace,
    MachinePace,
    SizedCheck,
    pace_from_baseline,
    plan_only,
    sizable,
    size_check,
    step_seconds,
    trim_acceptance,
)
from advisor.steps.plan import WorkloadPlan, plan_workload
from advisor.steps.tune_plan import TunePlan, plan_tune
from probes.engines.llamacpp.binary import FlagDialect

POLICY = default_policy()
BUDGET = POLICY.budget
DIALECT = FlagDialect("new", ("none", "draft-simple", "ngram-simple", "ngram-map-k", "ngram-mod"),
                      "--spec-draft-n-max", "-md", "--spec-draft-p-min", True, True,
                      defaults={"--spec-ngram-mod-n-match": "24", "--spec-draft-p-min": "0.00"})
FULL_CHECK = CheckConfig(quick=False)
PLAN = plan_workload(FULL_CHECK)


def _tune(config: CheckConfig, plan: WorkloadPlan) -> TunePlan:
    return plan_tune(config, plan, DIALECT, managed=True, k_max=16)


def _size(request_s: float, load_s: float = 0.5, config: CheckConfig = FULL_CHECK,
          policy: object = BUDGET) -> SizedCheck:
    return size_check(config, PLAN, policy, MachinePace(request_s, load_s), _tune,  # type: ignore[arg-type]
                      single=False, block_pairs=POLICY.arms.single_block_pairs)


def _record(total_ms: float) -> RequestRecord:
    return RequestRecord("p", "code", "off", 192, 1000.0, 5.0, 200.0, 40, 0, 50.0, 60.0, total_ms, None, None,
                         "stop", "d", False)


def test_the_budget_and_its_shares_come_from_the_policy_with_their_reasons() -> None:
    assert BUDGET.full_check_s <= 600  # issue 26: a full check in ten minutes
    assert BUDGET.share_tune <= 0.25  # the tuner at most a quarter of the whole
    assert sum(BUDGET.share(s) or 0.0 for s in SIZED_STEPS) <= 1.0
    for key in ("full_check_s", "share_acceptance", "batch_wave_exponent", "overrun_factor"):
        assert f"budget.{key}" in POLICY.notes


def test_shares_that_add_up_to_more_than_the_whole_are_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "policy.toml").write_text("[budget]\nshare_ab = 0.9\n", encoding="utf-8")
    with pytest.raises(PolicyError, match="shares add up"):
        load_policy(user_dir=tmp_path)


def test_the_pace_is_the_median_request_of_the_baseline_and_the_mean_load() -> None:
    baseline = BaselineEvidence(samples=tuple(_record(ms) for ms in (2000.0, 2600.0, 9000.0)))
    assert pace_from_baseline(baseline, [0.4, 0.6]) == MachinePace(2.6, 0.5)
    assert pace_from_baseline(BaselineEvidence(), [0.4]) is None
    assert pace_from_baseline(None, []) is None
    assert pace_from_baseline(None, [1.0], request_s=3.0) == MachinePace(3.0, 1.0)  # the first round's pace


def test_a_fast_machine_keeps_the_full_sizes() -> None:
    sized = _size(0.05, 0.05)
    assert sized.config.budget == FULL
    assert sized.time_plan.over_share == () and sized.time_plan.target_s == BUDGET.full_check_s
    assert list(sized.plan.acceptance) == list(PLAN.acceptance)


@pytest.mark.parametrize("request_s", [0.8, 1.6, 2.2, 3.0])
def test_each_step_fits_its_share_and_the_tuner_a_quarter(request_s: float) -> None:
    sized = _size(request_s)
    plan = sized.time_plan
    assert set(plan.steps) == set(SIZED_STEPS)
    for step, seconds in plan.steps.items():
        if step not in plan.over_share:
            assert seconds <= (BUDGET.share(step) or 0) * BUDGET.full_check_s + 1e-6, step
    assert plan.steps["tune"] <= 0.25 * BUDGET.full_check_s or "tune" in plan.over_share
    # the planned seconds are the clock's own: pricing the sized config again gives the same
    again = step_seconds(sized.config, sized.plan, _tune(sized.config, sized.plan), MachinePace(request_s, 0.5),
                         BUDGET.batch_wave_exponent, single=False, block_pairs=POLICY.arms.single_block_pairs)
    assert all(again[s] == pytest.approx(plan.steps[s], abs=0.1) for s in SIZED_STEPS)


def test_a_slower_machine_never_gets_larger_steps() -> None:
    def size_of(budget: object) -> tuple[int, ...]:
        b = budget  # type: ignore[assignment]
        return (b.acceptance_per_category, b.canary_repeats, b.tune_probe_per_category,  # type: ignore[attr-defined]
                len(b.surface_points), len(b.batch_levels), b.batch_rounds,  # type: ignore[attr-defined]
                b.batch_requests_per_slot, b.ab_max_pairs, b.ab_vs_default_pairs)  # type: ignore[attr-defined]
    sizes = [size_of(_size(s).config.budget) for s in (0.05, 0.5, 1.0, 2.0, 3.0, 6.0, 20.0)]
    for faster, slower in itertools.pairwise(sizes):
        assert all(s <= f for f, s in zip(faster, slower, strict=True)), (faster, slower)


def test_a_slow_machine_gets_no_less_than_a_quick_check_and_is_told() -> None:
    sized = _size(20.0, 30.0)
    b = sized.config.budget
    assert set(sized.time_plan.over_share) == set(SIZED_STEPS)
    assert b.acceptance_per_category >= QUICK.acceptance_per_category
    assert b.canary_repeats >= QUICK.canary_repeats and b.canary_reruns >= QUICK.canary_reruns
    assert len(b.surface_points) >= len(QUICK.surface_points) and b.surface_points[0] == QUICK.surface_points[0]
    assert set(QUICK.batch_levels) <= set(b.batch_levels) and b.batch_rounds >= QUICK.batch_rounds
    assert b.ab_max_pairs >= QUICK.ab_max_pairs and b.ab_max_pairs in POLICY.ab.looks
    assert b.ab_vs_default_pairs >= POLICY.ab.looks[0]  # the comparison with the defaults keeps its first look
    # the sizes the steps never shrink stay the full check's
    assert (b.max_tokens, b.baseline_prompts, b.verify_repeats, b.tune_methods) == (
        FULL.max_tokens, FULL.baseline_prompts, FULL.verify_repeats, FULL.tune_methods)


def test_a_surface_cut_short_keeps_a_spread_prefix() -> None:
    points = _size(2.2).config.budget.surface_points
    assert points == SURFACE_SPREAD[: len(points)]
    assert len({k for k, _ in points}) >= min(len(points), 3)  # the first points already span draft lengths


def test_the_users_concurrency_and_the_level_above_it_are_never_cut_from_the_sweep() -> None:
    assert 8 not in _size(3.0).config.budget.batch_levels  # cut for a user who expects one request at a time
    sized = _size(3.0, config=replace(FULL_CHECK, concurrency_expected=4))
    assert {4, 8} <= set(sized.config.budget.batch_levels)


def test_acceptance_prompts_are_trimmed_per_category_in_order() -> None:
    trimmed = trim_acceptance(PLAN, 2)
    per_category = Counter(p.category for p in trimmed.acceptance)
    assert set(per_category.values()) == {2} and set(per_category) == {p.category for p in PLAN.acceptance}
    assert list(trimmed.acceptance) == [p for p in PLAN.acceptance if p in trimmed.acceptance]


def test_only_a_full_check_at_its_own_sizes_is_sized() -> None:
    assert sizable(FULL_CHECK)
    assert not sizable(CheckConfig(quick=True))
    assert not sizable(replace(FULL_CHECK, budget_override=replace(FULL, ab_max_pairs=20)))


def test_a_check_that_is_not_sized_is_still_planned() -> None:
    quick = CheckConfig(quick=True)
    plan = plan_only(quick, plan_workload(quick), BUDGET, MachinePace(1.0, 0.5), _tune, single=False,
                     block_pairs=POLICY.arms.single_block_pairs)
    assert plan.target_s is None and set(plan.steps) == set(SIZED_STEPS)
    assert all(s > 0 for s in plan.steps.values())


def test_the_baseline_pace_is_told_once_after_its_first_round() -> None:
    clock = [0.0]
    pace = BaselinePace(first_round=4, clock=lambda: clock[0])
    told = []
    for done, wait in ((0, 0.0), (1, 9.0), (2, 2.0), (3, 2.4), (4, 2.2), (5, 50.0)):
        clock[0] += wait
        told.append(pace.observe(Progress("baseline", done, 8)))
    # the first unit carries the last warm-up request (9 s), so the round's pace is the median of the others
    assert told == [None, None, None, None, pytest.approx(2.2), None]
    assert BaselinePace(1).observe(Progress("baseline", 1, 2)) is None  # one request: too few, sized at the end
    assert BaselinePace(2).observe(Progress("acceptance", 3, 8)) is None


def test_a_synthetic_point_is_priced_at_its_own_speed_once_the_verify_curve_is_known() -> None:
    """Each point answers its requests at R(k + 1) / τ plain steps a token: on the demo's CPU the k = 16,
    τ = 1.5 point took 20 s where one plain request each planned 6 s."""
    from advisor.evidence.steps import VerifyEvidence, VerifyPoint
    from advisor.steps.tune_plan import surface_weight

    curve = VerifyEvidence(depth_tokens=256, compute_ms_per_token=10.0, points=tuple(
        VerifyPoint(k, 10.0 * r, r, None, 3) for k, r in ((1, 1.0), (2, 1.56), (4, 2.29), (8, 3.66), (17, 6.9))))
    assert surface_weight(3, 16, 1.5, None) == 3.0  # before the verify step: one plain request each
    assert surface_weight(3, 16, 1.5, curve) == pytest.approx(3 * 6.9 / 1.5)
    assert surface_weight(3, 1, 2.0, curve) == pytest.approx(3 * 1.56 / 2.0)  # fast where verifying is cheap
    flat = VerifyEvidence(depth_tokens=256, compute_ms_per_token=1.0,
                          points=tuple(VerifyPoint(k, 1.0, 1.0, None, 3) for k in (1, 4, 17)))
    assert surface_weight(3, 16, 4.0, flat) == pytest.approx(0.75)  # a GPU: the point runs faster than plain
    plain = plan_tune(FULL_CHECK, PLAN, DIALECT, managed=True, k_max=16)
    priced = plan_tune(FULL_CHECK, PLAN, DIALECT, managed=True, k_max=16, verify=curve)
    assert plain.loads == priced.loads and plain.units == priced.units
    assert sum(priced.weights) > sum(plain.weights)


def _cpu_curve() -> object:
    """The demo's verify curve on this CPU: a forward over k + 1 tokens costs R(k + 1) plain steps."""
    from advisor.evidence.steps import VerifyEvidence, VerifyPoint

    return VerifyEvidence(depth_tokens=256, compute_ms_per_token=10.0, points=tuple(
        VerifyPoint(k, 10.0 * r, r, None, 3) for k, r in ((1, 1.0), (2, 1.56), (4, 2.29), (8, 3.66), (17, 6.9))))


def test_the_tuner_is_sized_again_at_the_verify_curves_prices() -> None:
    """Sized before the verify step, a synthetic point costs one plain request each; at the curve's prices (a
    k = 16 point three) the sized tuner ran past its quarter, so it is sized again and fits; the other steps keep
    their sizes and planned seconds."""
    from advisor.run.budget import resize_tuner

    first = _size(1.4)
    curve = _cpu_curve()
    priced = step_seconds(first.config, first.plan, plan_tune(first.config, first.plan, DIALECT, managed=True,
                                                              k_max=16, verify=curve),  # type: ignore[arg-type]
                          MachinePace(1.4, 0.5), BUDGET.batch_wave_exponent, single=False,
                          block_pairs=POLICY.arms.single_block_pairs)["tune"]
    allowance = BUDGET.share_tune * BUDGET.full_check_s
    assert priced > allowance  # what the check would have run without sizing again
    again = resize_tuner(first.config, first.plan, BUDGET, first.time_plan,
                         lambda c, p: plan_tune(c, p, DIALECT, managed=True, k_max=16,
                                                verify=curve),  # type: ignore[arg-type]
                         single=False, block_pairs=POLICY.arms.single_block_pairs)
    assert again.time_plan.steps["tune"] <= allowance and "tune" not in again.time_plan.over_share
    assert len(again.config.budget.surface_points) < len(first.config.budget.surface_points)
    assert again.config.budget.surface_points == SURFACE_SPREAD[: len(again.config.budget.surface_points)]
    for step in ("acceptance", "batch", "ab"):
        assert again.time_plan.steps[step] == first.time_plan.steps[step]
        for name in STEP_SIZES[step]:
            assert getattr(again.config.budget, name) == getattr(first.config.budget, name)
    assert list(again.plan.acceptance) == list(first.plan.acceptance)
