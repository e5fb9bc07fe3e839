"""Step-time model from physics: roofline crossover, MoE at concurrency, engine acceptance counters, measured
inputs replacing model terms, and that the old acceptance rule can no longer SKIP against a predicted gain."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.decide.verdict import decide, enrich
from advisor.paths import CONFIG_DIR_ENV as CONFIG_ENV
from advisor.perf import cost
from advisor.perf.constants import FITTED
from advisor.perf.inputs import bits_per_weight
from advisor.perf.predict import predict


def _verify_ratio(gpu: str, k: int, **extra: object) -> float:
    p = predict({"acceptance.rate": 0.5, "spec.draft_max": k - 1, "spec.method": "ngram-mod", "gpu.name": gpu,
                 "model.active_params_b": 8.0, "model.total_params_b": 8.0, "model.quant": "BF16", **extra})
    assert p is not None
    return p.verify_ratio


def test_roofline_crossover_comes_later_on_a_device_with_more_flops_per_byte() -> None:
    # RTX 3090: 71 TFLOPS / 936 GB/s ≈ 76 FLOP/B; H100 SXM: 989 / 3350 ≈ 295 FLOP/B → its knee is ~4× later
    assert _verify_ratio("RTX 3090", 4) == pytest.approx(1.0, abs=0.01)
    assert _verify_ratio("H100 SXM", 4) == pytest.approx(1.0, abs=0.01)
    knees = {}
    for gpu in ("RTX 3090", "H100 SXM"):
        knees[gpu] = next(k for k in range(2, 2048) if _verify_ratio(gpu, k) > 1.05)
    assert knees["H100 SXM"] > 2.5 * knees["RTX 3090"]
    assert _verify_ratio("RTX 3090", 64) > 1.5 > 1.05 > _verify_ratio("H100 SXM", 64)


def test_quantised_weights_turn_compute_bound_earlier() -> None:
    # same FLOPs per token, a quarter of the bytes: the knee moves ~4× earlier (why Q4 verify curves bend soon)
    assert _verify_ratio("RTX 3090", 48, **{"model.quant": "Q4_K_M"}) > _verify_ratio("RTX 3090", 48)


def test_moe_verify_prior_is_steep_at_one_stream_and_mild_at_32() -> None:
    base = {"acceptance.rate": 0.6, "spec.draft_max": 4, "spec.method": "ngram-mod", "model.moe": True,
            "model.expert_count": 128, "model.expert_used_count": 8, "model.total_params_b": 30.5,
            "model.active_params_b": 3.3, "gpu.name": "RTX 3090", "model.quant": "Q4_K_M"}
    one = predict(base | {"workload.concurrency": 1})
    many = predict(base | {"workload.concurrency": 32})
    assert one is not None and many is not None
    # at c = 1, 5 tokens touch ~4× the experts of one token; at c = 32 the plain step reads nearly all of them
    assert one.verify_ratio > 2.0
    assert many.verify_ratio < 1.5 < one.verify_ratio
    moe = cost.MoeShape(128, 8, 0.45)
    assert cost.weight_bytes_ratio(moe, 160) / cost.weight_bytes_ratio(moe, 32) < 1.2
    # without the counts the typical 128-expert top-8 shape stands in, says so, and behaves the same way
    unknown = {k: v for k, v in base.items() if not k.startswith("model.expert")}
    one_p, many_p = predict(unknown | {"workload.concurrency": 1}), predict(unknown | {"workload.concurrency": 32})
    assert one_p is not None and many_p is not None
    assert any("MoE shape 128 experts, top-8" in str(p) for p in one_p.priors)
    assert many_p.verify_ratio < 1.5 < 2.0 < one_p.verify_ratio


def test_acceptance_is_read_as_the_engine_counter() -> None:
    # accepted ÷ drafted = 0.24 at γ = 6 is 2.44 tokens per step (vLLM's MiniCPM3 log), not the 1.3 that
    # Leviathan's per-token formula would give
    p = predict({"acceptance.rate": 0.24, "spec.draft_max": 6, "spec.method": "eagle3"})
    assert p is not None and p.tokens_per_step == pytest.approx(2.44)
    q = predict({"acceptance.mean_length": 6.65, "spec.method": "eagle3"})  # τ above γ_default + 1
    assert q is not None and q.gamma >= 7 and q.tokens_per_step == pytest.approx(6.65)


def test_tiny_target_with_high_acceptance_is_predicted_slower() -> None:
    # fixed per-step costs dominate a sub-1B model: a published 0.8B MTP run at 96.6% ran 0.37×
    p = predict({"acceptance.rate": 0.966, "spec.draft_max": 1, "spec.method": "mtp",
                 "model.active_params_b": 0.8, "model.total_params_b": 0.8})
    assert p is not None and p.speedup < 1.0
    big = predict({"acceptance.rate": 0.966, "spec.draft_max": 1, "spec.method": "mtp",
                   "model.active_params_b": 27.0, "model.total_params_b": 27.0})
    assert big is not None and big.speedup > 1.5


def test_measured_baseline_sets_the_fixed_cost() -> None:
    facts = {"acceptance.rate": 0.4, "spec.draft_max": 3, "spec.method": "draft", "gpu.name": "H100 SXM",
             "model.active_params_b": 14.0, "model.total_params_b": 14.0, "model.quant": "BF16"}
    fast = predict(facts)
    slow = predict(facts | {"baseline.decode_tok_s": 22.0})  # 45 ms per token: ~36 ms the bytes do not explain
    assert fast is not None and slow is not None
    assert slow.plain_step_ms == pytest.approx(1000 / 22.0)
    assert slow.draft_cost_ratio > 2 * fast.draft_cost_ratio  # a draft model pays that fixed cost every pass
    assert slow.speedup < 1.0 < fast.speedup


def test_coverage_limits_the_gain_to_the_steps_that_drafted() -> None:
    facts = {"acceptance.mean_length": 4.0, "spec.draft_max": 8, "spec.method": "ngram-mod",
             "verify.cost_ratio_at_draft_max": 1.1, "baseline.decode_tok_s": 40.0}
    full, rare = predict(facts), predict(facts | {"acceptance.draft_coverage": 0.05})
    assert full is not None and rare is not None
    assert 1.0 < rare.speedup < 1.05 < full.speedup


def test_step_costs_speedup_matches_the_textbook_form_without_overheads() -> None:
    costs = cost.StepCosts(plain_ms=10.0, verify_ms=12.0, draft_pass_ms=0.5, draft_passes=4, overhead_ms=0.0,
                           verify_bound="memory")
    assert cost.speedup(3.0, costs, 4) == pytest.approx(3.0 / (1.2 + 4 * 0.05))
    assert cost.speedup(3.0, costs, 4, draft_coverage=4 / 3.0) == pytest.approx(cost.speedup(3.0, costs, 4))


@pytest.mark.parametrize(("quant", "bits"), [("Q4_K_M", 4.85), ("BF16", 16.0), ("Q8_0", 8.5), ("FP8", 8.0),
                                              ("EXL2 6.0 bpw", 6.0), ("AWQ INT4", 4.5), ("Q4_1", 5.0),
                                              ("MXFP4", 4.25), ("mystery", None)])
def test_quant_names(quant: str, bits: float | None) -> None:
    assert bits_per_weight(quant) == bits


@pytest.mark.parametrize("threshold", [0.1, 0.3, 0.5, 0.7, 0.9, 0.99])
def test_no_acceptance_threshold_can_skip_against_a_predicted_gain(threshold: float, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "config" / "rules"
    folder.mkdir(parents=True)
    (folder / "policy.toml").write_text(f"[acceptance]\nlow_rate_warning = {threshold}\n", encoding="utf-8")
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "config"))
    checked = 0
    for rate in (0.05, 0.14, 0.24, 0.35, 0.47, 0.6, 0.8):
        for gamma in (1, 3, 6, 12):
            for method in ("eagle3", "mtp", "draft", "ngram-mod"):
                facts = {"acceptance.rate": rate, "spec.draft_max": gamma, "spec.method": method}
                _, pred, _ = enrich(facts)
                if pred is None or pred.speedup <= 1.0:
                    continue
                checked += 1
                v = decide(facts)
                assert v.verdict != "SKIP", (facts, v.rule_id, v.branch_id)
                if rate < threshold:
                    assert any("drafted tokens were accepted" in w for w in v.warnings)
    assert checked > 40


def test_fitted_constants_are_inside_their_documented_bounds() -> None:
    from advisor.perf.constants import BOUNDS

    assert len(BOUNDS) == 3
    for name, (low, high, why) in BOUNDS.items():
        assert low <= getattr(FITTED, name) <= high and why


def test_only_measured_step_verify_and_draft_costs_count_as_from_measurements() -> None:
    measured = {"acceptance.rate": 0.3, "spec.draft_max": 4, "spec.method": "ngram-mod", "baseline.decode_tok_s": 40.0,
                "verify.cost_ratio_at_draft_max": 1.1, "gpu.name": "RTX 3090"}
    p = predict(measured)
    assert p is not None and p.from_measurements and not p.priors
    for missing in ("baseline.decode_tok_s", "verify.cost_ratio_at_draft_max"):
        q = predict({k: v for k, v in measured.items() if k != missing})
        assert q is not None and not q.from_measurements
    head = predict(measured | {"spec.method": "eagle3"})  # the head's cost is an architecture estimate
    assert head is not None and not head.from_measurements
    assert predict(measured | {"spec.method": "eagle3", "spec.draft_cost_ratio": 0.04}).from_measurements  # type: ignore[union-attr]
