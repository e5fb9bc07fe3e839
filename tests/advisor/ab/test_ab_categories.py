"""Per-category answers and the user's mix, under the null: neither may raise false ENABLE above 5.5%.

Sessions are drawn the way a check draws them: prompts allocated to categories by the mix
(advisor/workloads/mix.py) and interleaved, each category with its own true speedup. The pooled verdict is
the shipped `decide_ab`; the per-category display is `per_category`. Rates are checked against the bound
plus a one-sided 99% binomial tolerance (as in test_ab_simulation.py); the seed is fixed.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from advisor.ab.categories import early_divergence_low, early_divergence_rate, early_divergences, per_category
from advisor.ab.decision import decide_ab
from advisor.ab.simulation import BASE_MS, SIGMA_W
from advisor.ab.types import Decision, PairResult
from advisor.core.policy import default_policy
from advisor.stats import binomial_lower_bound
from advisor.workloads.errors import WorkloadError
from advisor.workloads.mix import _counts, allocate, normalise, parse_mix
from advisor.workloads.model import Prompt
from tests.paths import REPO

POLICY = default_policy().ab
REPS = 300
Z99 = 2.326
BOUND = 0.055
CATEGORIES = ("code", "chat", "json", "summarization", "translation", "math", "creative", "editing")


def _tolerance(p: float, reps: int) -> float:
    return Z99 * math.sqrt(p * (1 - p) / reps)


def _order(weights: dict[str, float] | None, n: int) -> list[str]:
    # enough held-out prompts per category that no weight is capped (capping has its own test)
    held_out = [Prompt(f"{c}-{i}", c, f"{c} prompt {i}", "ab", "library") for c in CATEGORIES for i in range(n)]
    return [p.category for p in allocate(held_out, weights, n, seed=1).prompts]


def _session(rng: np.random.Generator, order: list[str], true_g: dict[str, float],
             sd: float = 0.15) -> list[PairResult]:
    pairs = []
    for i, cat in enumerate(order):
        d = math.log(true_g[cat]) + sd * rng.standard_normal()
        off = BASE_MS * math.exp(SIGMA_W * rng.standard_normal())
        on = BASE_MS * math.exp(SIGMA_W * rng.standard_normal() - d)
        pairs.append(PairResult(f"p{i}", off, on, on_first=i % 2 == 1, category=cat))
    return pairs


def test_display_of_eight_categories_under_the_null_rarely_shows_a_gain() -> None:
    rng = np.random.default_rng(11)
    order = _order(None, 60)
    at_margin = 1.0 + POLICY.margin
    shown_gain = pooled_enable = 0
    for _ in range(REPS):
        pairs = _session(rng, order, dict.fromkeys(CATEGORIES, at_margin))
        shown_gain += any(c.label == "gain" for c in per_category(pairs, POLICY).values())
        pooled_enable += decide_ab(pairs, POLICY).decision is Decision.ENABLE
    assert shown_gain / REPS <= BOUND + _tolerance(BOUND, REPS), shown_gain / REPS
    assert pooled_enable / REPS <= BOUND + _tolerance(BOUND, REPS), pooled_enable / REPS


def test_mix_weighted_verdict_under_the_null_stays_within_the_bound() -> None:
    # code gains, chat loses; weighted 0.6/0.4 the mix sits just below the margin: ENABLE would be false
    weights = normalise(parse_mix("code=0.6,chat=0.4"), CATEGORIES)
    order = _order(weights, 60)
    code_g, chat_g = 1.06, 0.96
    assert 0.6 * math.log(code_g) + 0.4 * math.log(chat_g) < math.log(1.0 + POLICY.margin)
    rng = np.random.default_rng(12)
    enable = sum(decide_ab(_session(rng, order, {"code": code_g, "chat": chat_g}), POLICY).decision is Decision.ENABLE
                 for _ in range(REPS))
    assert enable / REPS <= BOUND + _tolerance(BOUND, REPS), enable / REPS


def test_the_mix_moves_the_pooled_speedup_as_the_weights_say() -> None:
    rng = np.random.default_rng(13)
    true_g = {"code": 1.30, "chat": 0.95}
    speedups = {}
    for mix in ("code=0.8,chat=0.2", "code=0.2,chat=0.8"):
        order = _order(normalise(parse_mix(mix), CATEGORIES), 60)
        speedups[mix] = np.mean([decide_ab(_session(rng, order, true_g, sd=0.05), POLICY).speedup
                                 for _ in range(20)])
    expected = {m: math.exp(w * math.log(1.30) + (1 - w) * math.log(0.95)) for m, w in
                (("code=0.8,chat=0.2", 0.8), ("code=0.2,chat=0.8", 0.2))}
    for mix, value in speedups.items():
        assert value == pytest.approx(expected[mix], rel=0.02)
    assert speedups["code=0.8,chat=0.2"] > speedups["code=0.2,chat=0.8"]


def test_every_look_holds_the_mix() -> None:
    order = _order(normalise(parse_mix("code=3,chat=1"), CATEGORIES), 60)
    for look in POLICY.looks:
        share = order[:look].count("code") / look
        assert abs(share - 0.75) <= 1.0 / look + 1e-9, (look, share)


def test_allocation_caps_at_what_is_held_out_and_says_so() -> None:
    assert _counts({"a": 0.6, "b": 0.4}, 60, {"a": 7, "b": 40}) == {"a": 7, "b": 40}
    assert _counts({"a": 0.5, "b": 0.5}, 20, {"a": 30, "b": 30}) == {"a": 10, "b": 10}
    held_out = [Prompt(f"a{i}", "a", f"a {i}", "ab", "library") for i in range(5)] + \
               [Prompt(f"b{i}", "b", f"b {i}", "ab", "library") for i in range(50)]
    plan = allocate(held_out, {"a": 0.5, "b": 0.5}, 20, seed=3)
    assert len(plan.prompts) == 20 and plan.short == ("a",) and plan.realised["a"] == 0.25


@pytest.mark.parametrize(("text", "message"), [
    ("code", "category=weight"), ("code=-1", "category=weight"), ("code=x", "category=weight"),
    ("code=1,code=2", "twice"), ("code=0", "above 0"), ("", "above 0"),
])
def test_bad_mix_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(WorkloadError, match=message):
        parse_mix(text)


def test_unknown_category_names_the_known_ones() -> None:
    with pytest.raises(WorkloadError) as info:
        normalise(parse_mix("cod=1"), CATEGORIES)
    assert "cod" in str(info.value) and "code" in info.value.hint


def test_the_draw_does_not_depend_on_the_hash_seed() -> None:
    # a resumed run is another process: its draw must match the one it resumes (sets iterate by hash seed)
    code = ("from advisor.config import CheckConfig\nfrom advisor.steps.plan import plan_workload\n"
            "print([p.id for p in plan_workload(CheckConfig(quick=True, steps=('ab',))).ab])")
    root = str(REPO)
    draws = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={"PYTHONHASHSEED": seed, "PYTHONPATH": root}).stdout for seed in ("1", "2", "3")}
    assert len(draws) == 1


def _diverging(early: int, late: int, same: int) -> list[PairResult]:
    return ([PairResult(f"e{i}", 10.0, 9.0, on_first=False, outputs_match=False, divergence_at=0.1)
             for i in range(early)]
            + [PairResult(f"l{i}", 10.0, 9.0, on_first=False, outputs_match=False, divergence_at=0.8)
               for i in range(late)]
            + [PairResult(f"s{i}", 10.0, 9.0, on_first=False, outputs_match=True) for i in range(same)])


def test_early_divergences_are_counted_and_bounded_below_at_the_ab_level() -> None:
    pairs = _diverging(early=2, late=3, same=15)
    assert early_divergences(pairs, POLICY) == (2, 20)
    assert early_divergence_rate(pairs, POLICY) == pytest.approx(0.10)
    # one-sided Clopper–Pearson at 95%: 2 of 20 show no more than 1.8%, 4 of 20 show 7.1% (above the 5% bar)
    assert early_divergence_low(pairs, POLICY) == pytest.approx(0.0181, abs=5e-4)
    assert early_divergence_low(_diverging(4, 0, 16), POLICY) == pytest.approx(0.0714, abs=5e-4)
    assert early_divergence_low(_diverging(0, 2, 18), POLICY) == 0.0
    assert early_divergence_low([], POLICY) is None


def test_the_binomial_lower_bound_matches_the_closed_forms() -> None:
    # all successes: (1 − level)^(1/n); one success of one: 1 − level
    assert binomial_lower_bound(5, 5, 0.95) == pytest.approx(0.05 ** (1 / 5))
    assert binomial_lower_bound(1, 1, 0.95) == pytest.approx(0.05)
    with pytest.raises(ValueError):
        binomial_lower_bound(3, 2, 0.95)


def test_under_a_true_share_at_the_bar_the_guard_rarely_fires() -> None:
    # The guard's false-alarm rate at a true share of exactly 5%, 20 pairs: P(X ≥ 4) ≈ 1.6% ≤ 5%; the observed
    # share fired whenever X ≥ 2, P ≈ 26%.
    rng = np.random.default_rng(7)
    fired = sum(binomial_lower_bound(int(x), 20, 0.95) > 0.05 for x in rng.binomial(20, 0.05, size=2000))
    assert fired / 2000 < 0.05
