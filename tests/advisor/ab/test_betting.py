"""The betting test that lets a left-skewed sample with a confirmed gain pass the skew gate (advisor/ab/betting.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from advisor.ab.betting import log_capital
from advisor.ab.decision import decide_ab, run_batch
from advisor.ab.sequential import CODE_ENABLE
from advisor.ab.simulation import Scenario, effects, to_pairs
from advisor.ab.types import Decision
from advisor.core.policy import default_policy
from advisor.stats import sample_skewness
from advisor.text.message import render

POLICY = default_policy().ab
FLOOR = math.log(POLICY.bet_floor_ratio)
PASS = math.log(1.0 / POLICY.bet_alpha)


@pytest.mark.parametrize("kind", ["normal", "t3", "left", "right"])
def test_at_the_margin_the_capital_reaches_the_bar_at_most_alpha_of_the_time_at_any_look(kind: str) -> None:
    """Ville's inequality: under H0 (mean d exactly at the margin) sup_n K_n ≥ 1/α in at most α of the runs, any
    shape; checked at every n up to 60 at once (peeking is free)."""
    rng = np.random.default_rng(5)
    d = effects(kind, rng, (4000, 60), 1.0 + POLICY.margin, 0.15)
    best = np.full(d.shape[0], -np.inf)
    for n in range(3, 61):
        best = np.maximum(best, log_capital(d[:, :n], POLICY.log_margin, FLOOR, POLICY.bet_cap, POLICY.bet_min_sd))
    assert (best >= PASS).mean() <= POLICY.bet_alpha + 0.01


def test_a_clear_gain_grows_the_capital_past_the_bar_in_twenty_pairs() -> None:
    rng = np.random.default_rng(6)
    d = effects("normal", rng, (2000, 20), 1.28, 0.14)
    assert (log_capital(d, POLICY.log_margin, FLOOR, POLICY.bet_cap, POLICY.bet_min_sd) >= PASS).mean() > 0.95


def test_a_prompt_below_the_floor_puts_the_sample_outside_the_test() -> None:
    d = np.array([[0.3] * 19 + [math.log(0.4)]])  # one prompt 2.5× slower with speculation on
    assert log_capital(d, POLICY.log_margin, FLOOR, POLICY.bet_cap, POLICY.bet_min_sd)[0] == -math.inf


def test_no_bet_before_a_mean_and_a_spread_exist() -> None:
    assert log_capital(np.array([[0.5, 0.5]]), POLICY.log_margin, FLOOR, POLICY.bet_cap, POLICY.bet_min_sd)[0] == 0.0


def test_a_floor_at_or_above_the_margin_is_refused() -> None:
    with pytest.raises(ValueError):
        log_capital(np.zeros((1, 5)), 0.02, 0.02, 0.9, 0.01)


def test_clear_gains_that_read_left_skewed_by_chance_still_enable() -> None:
    """The quick check's one ENABLE look at 20 pairs: 1.28× gains whose sample skewness is below the bar (34 of
    400 samples here) enable, the skew line saying how far the betting test grew its stake."""
    off, on, first = Scenario("g", g=1.28, sd=0.14).generate(400, 20, 8)
    rows = np.flatnonzero(sample_skewness(np.log(off / on)) < POLICY.min_skewness)
    quick = dataclasses.replace(POLICY, looks=(10, 20))
    decs = [decide_ab(to_pairs(off[r], on[r], first[r]), quick) for r in rows]
    assert len(rows) >= 20
    assert sum(d.decision is Decision.ENABLE for d in decs) / len(decs) >= 0.9
    line = render(decs[0].guards["skew"][1], "en")
    assert "betting" in line and "20-fold" in line
    assert "下注检验" in render(decs[0].guards["skew"][1], "zh")


def test_the_gate_still_holds_back_left_skew_at_the_margin_without_the_test() -> None:
    """The betting test is an escape for confirmed gains only: at the margin it lets almost nothing more through."""
    off, on, first = Scenario("m", g=1.0 + POLICY.margin, kind="left").generate(20000, 60, 9)
    with_test = (run_batch(off, on, first, POLICY).codes == CODE_ENABLE).mean()
    no_test = dataclasses.replace(POLICY, bet_alpha=1e-4)  # the bar 10,000-fold: the test never passes a sample
    without = (run_batch(off, on, first, no_test).codes == CODE_ENABLE).mean()
    assert with_test <= 0.055 and with_test - without <= 0.005
