"""Perf model: Leviathan/Chen expected tokens, speedup, MoE unique experts, roofline, best γ."""

from __future__ import annotations

import pytest

from advisor.perf import model as pm
from advisor.perf.constants import FITTED
from advisor.perf.predict import predict


def test_expected_tokens_closed_form_and_limits() -> None:
    assert pm.expected_tokens_per_step(0.5, 3) == pytest.approx(1.875)  # 1 + .5 + .25 + .125
    assert pm.expected_tokens_per_step(0.0, 5) == 1.0
    assert pm.expected_tokens_per_step(1.0, 5) == 6.0
    with pytest.raises(ValueError):
        pm.expected_tokens_per_step(1.2, 3)


def test_alpha_round_trips_through_mean_length() -> None:
    tau = pm.expected_tokens_per_step(0.73, 6)
    assert pm.alpha_from_mean_length(tau, 6) == pytest.approx(0.73, abs=1e-9)


def test_speedup_formula() -> None:
    # τ = 3 tokens per step, verify 1.2×, 4 drafts at 5% each → 3 / (1.2 + 0.2)
    assert pm.predicted_speedup(3.0, 1.2, 4, 0.05) == pytest.approx(3.0 / 1.4)


def test_moe_unique_experts() -> None:
    assert pm.moe_unique_experts(128, 8, 1) == pytest.approx(8.0)
    assert pm.moe_unique_experts(128, 8, 9) == pytest.approx(128 * (1 - (120 / 128) ** 9))
    assert pm.moe_unique_experts(8, 8, 5) == pytest.approx(8.0)  # every expert already used


def test_moe_verify_ratio_grows_dense_stays_flat() -> None:
    shared = pm.moe_shared_fraction(30.5, 3.3, 128, 8)
    assert 0.0 < shared < 1.0
    assert pm.moe_verify_ratio(1, shared, 128, 8) == pytest.approx(1.0)
    ratios = [pm.moe_verify_ratio(k, shared, 128, 8) for k in (1, 2, 4, 8, 16)]
    assert ratios == sorted(ratios) and ratios[-1] > 3
    assert pm.dense_verify_ratio(8, knee_tokens=64) == 1.0
    assert pm.dense_verify_ratio(128, knee_tokens=64) == 2.0


def test_moe_step_bytes() -> None:
    assert pm.moe_step_bytes(1, 1.0, 0.5, 2, 4, 2) == pytest.approx(1.0 + 0.5 * 2 * 2)


def test_roofline_and_mbu() -> None:
    assert pm.roofline_tok_s(1008.0, 4.9) == pytest.approx(205.7, rel=1e-3)
    assert pm.mbu(4.9, 150.0, 1008.0) == pytest.approx(0.729, rel=1e-3)


def test_best_gamma_prefers_longer_drafts_when_verify_is_flat() -> None:
    flat_gamma, flat_s = pm.best_gamma(0.8, lambda k: 1.0, 0.02)
    steep_gamma, _ = pm.best_gamma(0.8, lambda k: 1.0 + 0.3 * (k - 1), 0.02)
    assert flat_gamma > steep_gamma and flat_s > 1.0


def test_predict_uses_priors_and_says_so() -> None:
    p = predict({"acceptance.rate": 0.7, "spec.method": "ngram-mod"})
    assert p is not None and p.is_prior and p.draft_cost_ratio == 0.0 and p.gamma == 3
    head = predict({"acceptance.rate": 0.7, "spec.method": "eagle3", "spec.draft_max": 3})
    # a head pass is one decoder layer + its LM head: a few % of a step, named as an architecture estimate
    assert head is not None and 0.01 < head.draft_cost_ratio < 0.1
    assert any("draft head" in str(p) for p in head.priors)
    assert predict({"spec.method": "ngram-mod"}) is None


def test_predict_fully_measured_is_not_a_prior() -> None:
    # The step time is measured too: the fixed speculative overhead is a share of it (issue 16: the old
    # τ/(verify + γ·draft) ignored every per-step cost, so it needed no step time and was too optimistic).
    p = predict({"acceptance.mean_length": 2.5, "spec.draft_max": 4, "spec.draft_cost_ratio": 0.1,
                 "verify.cost_ratio_at_draft_max": 1.1, "baseline.decode_tok_s": 50.0})
    assert p is not None and not p.is_prior
    overhead = FITTED.spec_step_overhead_ms / 20.0
    assert p.overhead_ratio == pytest.approx(overhead)
    assert p.speedup == pytest.approx(2.5 / (1.1 + 0.4 + overhead))
    assert predict({"acceptance.mean_length": 2.5, "spec.draft_max": 4, "spec.draft_cost_ratio": 0.1,
                    "verify.cost_ratio_at_draft_max": 1.1}).is_prior  # type: ignore[union-attr]


def test_predict_moe_without_verify_uses_expert_model() -> None:
    p = predict({"acceptance.rate": 0.6, "spec.draft_max": 4, "spec.method": "ngram-mod", "model.moe": True,
                 "model.expert_count": 128, "model.expert_used_count": 8, "model.total_params_b": 30.5,
                 "model.active_params_b": 3.3})
    assert p is not None and p.verify_ratio > 1.5


def test_coverage_reduces_to_the_textbook_formula_when_every_step_drafts() -> None:
    from advisor.perf.model import predicted_speedup, predicted_speedup_with_coverage

    tau, gamma = 3.0, 4
    full = predicted_speedup_with_coverage(tau, 1.2, gamma, 0.0, draft_coverage=gamma / tau)
    assert full == pytest.approx(predicted_speedup(tau, 1.2, gamma, 0.0))
    # Drafts on 3% of tokens: almost nothing changes, whatever the acceptance.
    assert predicted_speedup_with_coverage(6.25, 4.7, 8, 0.0, draft_coverage=0.032) == pytest.approx(
        1 / (0.004 * 4.7 + 1 - 0.004 * 6.25))
    assert predicted_speedup_with_coverage(tau, 1.2, gamma, 0.0, draft_coverage=0.0) == 1.0
