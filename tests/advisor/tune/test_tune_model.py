"""The tuner's gain and cost models: replaying a run at a shorter draft cap, the step cost, the choice."""

from __future__ import annotations

import math

import pytest

from advisor.tune.choose import KPrediction, best_method, mix_weights, pick, predict_method
from advisor.tune.cost import StepCost, fit_run, interpolate
from advisor.tune.gain import RunShape, StepsAtK, accepted_histogram, merge, steps_at

# Measured on the real server (SmolLM2-135M, a copy-heavy rename prompt, ngram-mod, 160 tokens): at K = 16
# 8 drafts, 115 drafted, positions 1–3 accepted by all 8, 4–16 by 7; at k = 4 the same prompt took 25 drafts
# and 98 accepted tokens.
COPY_RUN = RunShape(k_max=16, generated=159, drafts=8, draft_tokens=115,
                    accepted_per_position=(8, 8, 8) + (7,) * 13)


def test_histogram_splits_drafts_by_tokens_accepted() -> None:
    hist = accepted_histogram(COPY_RUN)
    assert hist[3] == 1 and hist[16] == 7 and sum(hist) == 8


def test_replay_at_a_shorter_cap_matches_the_real_run_at_that_cap() -> None:
    at4 = steps_at(COPY_RUN, 4)
    assert at4.drafting_steps == pytest.approx(25, abs=1)          # measured 25
    accepted = at4.tokens - at4.plain_steps - at4.drafting_steps
    assert accepted == pytest.approx(98, abs=2)                    # measured 98


def test_replay_at_its_own_cap_is_the_run_itself() -> None:
    same = steps_at(COPY_RUN, 16)
    assert same.drafting_steps == pytest.approx(COPY_RUN.drafts)
    assert same.plain_steps == pytest.approx(159 - 8 - 115)


def test_a_geometric_drafter_gives_the_chain_formula() -> None:
    # Each drafted token accepted with p, independently: at cap k a step yields (1 − p^(k+1)) / (1 − p) tokens.
    p, k_max, drafts = 0.6, 8, 100_000.0
    shape = RunShape(k_max=k_max, generated=drafts * sum(p ** j for j in range(k_max + 1)), drafts=drafts,
                     draft_tokens=drafts * k_max,
                     accepted_per_position=tuple(drafts * p ** (j + 1) for j in range(k_max)))
    for k in (1, 2, 4, 8):
        # the ceil re-play is exact for stretches that end at a wrong token; this checks it lands near the formula
        expected = (1 - p ** (k + 1)) / (1 - p)
        assert steps_at(shape, k).tokens_per_step == pytest.approx(expected, rel=0.12)


def test_k_outside_the_measured_cap_is_refused() -> None:
    with pytest.raises(ValueError):
        steps_at(COPY_RUN, 17)


def test_interpolation_is_linear_and_extends_past_the_ends() -> None:
    pts = {1: 1.0, 2: 1.2, 4: 1.6}
    assert interpolate(pts, 3) == pytest.approx(1.4)
    assert interpolate(pts, 6) == pytest.approx(2.0)
    assert interpolate(pts, 0.5) == 1.0


# Three categories that draft in different proportions (what the fit needs to tell overhead from speed).
NO_DRAFTS = RunShape(k_max=16, generated=126, drafts=0, draft_tokens=0, accepted_per_position=(0,) * 16)
SOME_DRAFTS = RunShape(k_max=16, generated=126, drafts=5, draft_tokens=63, accepted_per_position=(5,) * 12 + (0,) * 4)
CURVE = StepCost({1: 1.0, 5: 1.9, 17: 5.8})


def _runs(cost: StepCost, speed: float, noise: tuple[float, ...] = (0, 0, 0, 0)) -> list[tuple[StepsAtK, float]]:
    shapes = (NO_DRAFTS, SOME_DRAFTS, COPY_RUN, NO_DRAFTS)
    return [(steps_at(s, 16), speed * cost.time(steps_at(s, 16)) + e) for s, e in zip(shapes, noise, strict=True)]


def test_the_run_fit_recovers_the_speed_and_overhead_that_made_the_data() -> None:
    made = StepCost(CURVE.verify_ratio, overhead=0.7)
    fit = fit_run(CURVE, _runs(made, 0.9), alpha=0.05)
    assert fit.speed_factor == pytest.approx(0.9)
    assert fit.overhead_fitted == pytest.approx(0.7) and fit.overhead == pytest.approx(0.7)


def test_a_slower_spell_is_the_runs_speed_not_an_overhead_on_its_few_drafting_steps() -> None:
    # Every step 12% slower than while the baseline was timed: an overhead fitted alone puts all of it on the
    # 13 drafting steps (about 4 plain steps each) and predicts a loss where there is a gain.
    fit = fit_run(CURVE, _runs(CURVE, 1.12), alpha=0.05)
    assert fit.speed_factor == pytest.approx(1.12)
    assert fit.overhead == 0.0 and fit.overhead_fitted == pytest.approx(0.0, abs=1e-9)


def test_an_overhead_the_noise_cannot_tell_from_zero_is_not_used() -> None:
    # ±8 plain steps per category (the demo engine's prompt-to-prompt spread) over a few drafting steps
    made = StepCost(CURVE.verify_ratio, overhead=0.7)
    fit = fit_run(CURVE, _runs(made, 1.0, noise=(8.0, -6.0, 5.0, -8.0)), alpha=0.05)
    assert fit.overhead_fitted is not None and fit.overhead_se is not None and fit.overhead_se > 0.5
    assert fit.overhead == 0.0


def test_no_overhead_is_fitted_from_a_handful_of_drafting_steps() -> None:
    tiny = RunShape(k_max=4, generated=20, drafts=2, draft_tokens=8, accepted_per_position=(1, 0, 0, 0))
    few = fit_run(StepCost({1: 1.0, 5: 1.2}), [(steps_at(tiny, 4), 19.0)] * 2, alpha=0.05)  # 4 drafting steps
    assert few.overhead_fitted is None and few.overhead == 0.0


def test_where_speed_and_overhead_cannot_be_told_apart_the_overhead_is_fitted_alone() -> None:
    # A draft model drafts at every step, so every category's time is drafting steps × the same cost: speed and
    # overhead are one number. One category (a user's own prompt file) cannot separate them either. The
    # baseline's speed is trusted then, and the excess is the overhead.
    made = StepCost(CURVE.verify_ratio, overhead=0.4)
    every_step = [RunShape(k_max=4, generated=g, drafts=g / 3, draft_tokens=4 * g / 3,
                           accepted_per_position=(g / 3, g / 3, 0, 0)) for g in (90.0, 120.0, 150.0)]
    runs = [(steps_at(s, 4), made.time(steps_at(s, 4)) * (1 + e)) for s, e in zip(every_step, (0.01, -0.01, 0.0),
                                                                                 strict=True)]
    fit = fit_run(CURVE, runs, alpha=0.05)
    assert fit.speed_factor == 1.0 and fit.overhead == pytest.approx(0.4, abs=0.05) and fit.overhead_se is not None
    one = fit_run(CURVE, [(steps_at(COPY_RUN, 16), made.time(steps_at(COPY_RUN, 16)))], alpha=0.05)
    assert one.speed_factor == 1.0 and one.overhead == pytest.approx(0.4) and one.overhead_se is None


def test_free_verify_makes_longer_drafts_win_on_copy_heavy_text() -> None:
    flat = StepCost({1: 1.0, 17: 1.0})
    s4, s16 = flat.speedup(steps_at(COPY_RUN, 4)), flat.speedup(steps_at(COPY_RUN, 16))
    assert s16 > s4 > 1.0
    assert s16 == pytest.approx(159 / (36 + 8))


def test_costly_verify_makes_speculation_lose() -> None:
    # verifying two tokens costs two steps: even when every draft is right nothing is gained, and any
    # per-step overhead makes it a loss
    assert StepCost({1: 1.0, 2: 2.0}).speedup(steps_at(COPY_RUN, 1)) == pytest.approx(1.0)
    assert StepCost({1: 1.0, 2: 2.0}, overhead=0.1).speedup(steps_at(COPY_RUN, 1)) < 1.0


def test_mix_weights_follow_the_user_and_fall_back_to_equal() -> None:
    assert mix_weights(["a", "b"], None) == {"a": 0.5, "b": 0.5}
    assert mix_weights(["a", "b"], {"a": 3, "b": 1, "c": 5}) == {"a": 0.75, "b": 0.25}


def test_mix_speedup_is_the_harmonic_mean_by_token_share() -> None:
    plain = RunShape(k_max=16, generated=100, drafts=0, draft_tokens=0, accepted_per_position=(0,) * 16)
    cost = StepCost({1: 1.0, 17: 1.0})
    pred = predict_method("ngram-mod", {"copy": COPY_RUN, "chat": plain}, cost, [16], None, 0.01)
    assert pred is not None
    copy = pred.predictions[0].per_category["copy"]
    assert pred.predictions[0].speedup == pytest.approx(1 / (0.5 / copy + 0.5 / 1.0))


def test_pick_prefers_the_shortest_draft_within_the_margin() -> None:
    rows = [KPrediction(k, s, {}, 1.0) for k, s in ((2, 1.30), (4, 1.345), (8, 1.35))]
    assert pick(rows, 0.01).k == 4
    assert pick(rows, 0.0).k == 8


def test_best_method_prefers_the_first_listed_within_the_margin() -> None:
    cost = StepCost({1: 1.0, 17: 1.5})
    a = predict_method("ngram-simple", {"x": COPY_RUN}, cost, [4, 8], None, 0.01)
    b = predict_method("ngram-mod", {"x": COPY_RUN}, cost, [4, 8], None, 0.01)
    assert a is not None and b is not None
    assert best_method([a, b], 0.01) is a
    assert math.isclose(a.best_speedup, b.best_speedup)


def test_merge_sums_runs_at_one_cap() -> None:
    both = merge([COPY_RUN, COPY_RUN])
    assert both is not None and both.drafts == 16 and both.accepted == 2 * COPY_RUN.accepted


def test_one_category_is_fitted_per_prompt_so_a_slower_spell_stays_the_runs_speed() -> None:
    # A user's prompt file is one category ("user"): one row cannot tell speed from overhead. Its prompts can.
    from advisor.evidence.steps import CategoryAcceptance
    from advisor.evidence.tuner import MethodProbe
    from advisor.steps.tune import _fitted
    from advisor.tune.plain_step import PlainStep

    t1, speed = 10.0, 1.12
    shapes = {"p0": NO_DRAFTS, "p1": SOME_DRAFTS, "p2": COPY_RUN, "p3": NO_DRAFTS}

    def row(shape: RunShape, n: int = 1) -> CategoryAcceptance:
        decode = speed * CURVE.time(steps_at(shape, 16)) * t1
        return CategoryAcceptance(None, None, None, n, int(shape.draft_tokens), int(shape.accepted),
                                  drafts=shape.drafts, counted_draft_tokens=shape.draft_tokens,
                                  accepted_per_position=shape.accepted_per_position, generated=int(shape.generated),
                                  decode_ms=decode, depth_tokens=100.0)

    per_prompt = {p: row(s) for p, s in shapes.items()}
    pooled = merge(list(shapes.values()))
    assert pooled is not None
    probe = MethodProbe(method="ngram-mod", k_max=16, per_category={"user": row(pooled, n=4)})
    fitted = _fitted(probe, CURVE, PlainStep(t1, 100.0), 0.05, per_prompt)
    assert fitted.speed_factor == pytest.approx(speed) and fitted.overhead == 0.0
    alone = _fitted(probe, CURVE, PlainStep(t1, 100.0), 0.05, {})  # no per-prompt rows (an older run)
    assert alone.speed_factor == 1.0 and alone.overhead_fitted is not None and alone.overhead_fitted > 2.0
