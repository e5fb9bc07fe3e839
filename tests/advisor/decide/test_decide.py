"""decide(): the must-show fact sets, invariants, Kleene logic, fail-closed, and rule loading errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.decide import verdict as decide_module
from advisor.decide.evaluate import kleene
from advisor.decide.rules import RuleError, load_rules
from advisor.decide.text import render
from advisor.decide.verdict import decide, verdict_to_json
from advisor.facts.checks import load_facts_file
from advisor.paths import CONFIG_DIR_ENV as CONFIG_ENV
from tests.paths import FIXTURES, REPO

FACTS = FIXTURES / "facts"
BUILTIN = REPO / "rules"


@pytest.fixture(autouse=True)
def _no_user_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "config"))


def _facts(name: str) -> dict[str, object]:
    return load_facts_file(FACTS / name)


def _override(tmp_path: Path, name: str, text: str) -> None:
    folder = tmp_path / "config" / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def test_dense_high_acceptance_tight_ci_enables_with_flags() -> None:
    v = decide(_facts("dense_enable.json"))
    assert v.verdict == "ENABLE"
    assert v.flags is not None and v.flags.argv == ("--spec-type", "ngram-mod", "--spec-ngram-mod-n-max", "8",
                                                    "--spec-ngram-mod-n-min", "8")
    assert "1.33" in v.because[0]
    assert v.missing_facts == ()


def test_moe_ci_around_one_is_not_enable() -> None:
    v = decide(_facts("moe_ci_around_one.json"))
    assert v.verdict == "INCONCLUSIVE"
    assert v.branch_id == "inconclusive"
    assert v.flags is None


def test_repeated_prompts_with_huge_speedup_is_not_enable() -> None:
    v = decide(_facts("repeated_trap.json"))
    assert v.verdict == "INCONCLUSIVE"
    assert "repeats prompts" in v.because[0]


def test_acceptance_and_method_only_predicts_but_does_not_decide() -> None:
    v = decide(_facts("acceptance_only.json"))
    assert v.verdict == "INCONCLUSIVE"
    assert v.predicted_speedup is not None and v.predicted_speedup > 1.0
    assert v.prediction_is_prior
    assert any("confirm with the A/B" in b for b in v.because)
    assert "ab.n_prompts" in v.missing_facts


def test_trap_canary_blocks_enable_even_with_a_clean_ab() -> None:
    facts = _facts("dense_enable.json") | {"acceptance.repeat_inflation": 1.25}
    assert decide(facts).verdict == "INCONCLUSIVE"


def test_missing_guard_fact_withholds_enable_and_names_it() -> None:
    # an n-gram A/B whose canary is missing (and no fresh server): repeat inflation cannot be ruled out
    facts = _facts("dense_enable.json")
    del facts["acceptance.repeat_inflation"]
    v = decide(facts)
    assert v.verdict == "INCONCLUSIVE"
    assert "acceptance.repeat_inflation" in v.missing_facts


def test_a_check_that_cannot_be_made_is_a_caveat_not_a_withheld_enable() -> None:
    facts = _facts("dense_enable.json")
    del facts["ab.guards_passed"]  # a reported A/B may not carry its guards
    v = decide(facts)
    assert v.verdict == "ENABLE"
    assert any("ab.guards_passed" in c for c in v.caveats)


def test_a_noisy_baseline_is_no_reason_to_withhold() -> None:
    facts = {**_facts("dense_enable.json"), "baseline.cv_pct": 35.0}  # a busy home machine: the A/B carries it
    assert decide(facts).verdict == "ENABLE"


def test_reported_model_based_ab_enables_with_caveats() -> None:
    # vLLM + MTP, k = 1, one stream, 60 paired prompts, +27.5%
    facts = {"engine.kind": "vllm", "spec.method": "mtp", "spec.draft_max": 1, "workload.concurrency": 1,
             "ab.n_prompts": 60, "ab.speedup": 1.275, "ab.ci_low": 1.22, "ab.ci_high": 1.33}
    v = decide(facts)
    assert v.verdict == "ENABLE" and v.caveats and v.flags is not None


def test_reported_cache_based_ab_without_canary_or_reset_is_inconclusive() -> None:
    facts = {"engine.kind": "llama.cpp", "spec.method": "ngram-mod", "workload.concurrency": 1, "ab.n_prompts": 60,
             "ab.speedup": 1.275, "ab.ci_low": 1.22, "ab.ci_high": 1.33}
    v = decide(facts)
    assert v.verdict == "INCONCLUSIVE" and any("rules out" in b for b in v.because)
    fresh = decide(facts | {"measurement.pool_reset": True})
    assert fresh.verdict == "ENABLE"


def test_clear_ab_loss_skips_with_alternatives() -> None:
    facts = _facts("dense_enable.json") | {"ab.speedup": 0.9, "ab.ci_low": 0.86, "ab.ci_high": 0.95,
                                           "ab.decision": "SKIP", "model.quant": "F16"}
    v = decide(facts)
    assert v.verdict == "SKIP"
    assert any("4–5-bit" in a for a in v.alternatives)


def test_user_concurrency_above_crossover_skips() -> None:
    v = decide(_facts("dense_enable.json") | {"workload.concurrency": 8})
    assert v.verdict == "SKIP" and v.branch_id == "above-crossover"


def test_invariant_backstop_overrides_a_permissive_override(tmp_path: Path) -> None:
    # a user may relax thresholds, but the hard invariants still hold
    _override(tmp_path, "policy.toml", '[canary]\nmax_repeat_inflation = 5.0\n')
    v = decide(_facts("dense_enable.json") | {"acceptance.repeat_inflation": 1.5})
    assert v.verdict == "INCONCLUSIVE"
    assert any("withheld" in b for b in v.because)


def test_threshold_override_is_applied(tmp_path: Path) -> None:
    _override(tmp_path, "policy.toml", '[ab]\nmin_speedup = 1.4\n')
    assert decide(_facts("dense_enable.json")).verdict == "INCONCLUSIVE"


def test_user_file_with_same_id_replaces_builtin(tmp_path: Path) -> None:
    text = (BUILTIN / "ab-outcome.toml").read_text(encoding="utf-8").replace(
        'verdict = "ENABLE"', 'verdict = "INCONCLUSIVE"')
    _override(tmp_path, "ab-outcome.toml", text)
    assert decide(_facts("dense_enable.json")).verdict == "INCONCLUSIVE"


@pytest.mark.parametrize(("old", "new", "message"), [
    ('"ab.ci_low", ">"', '"ab.ci_lo", ">"', "did you mean 'ab.ci_low'"),
    ('"ab.ci_low", ">"', '"ab.ci_low", "=>"', "unknown operator '=>'"),
    ('"$policy.ab.min_speedup"]]\nverdict = "ENABLE"', '"$policy.ab.min_sped"]]\nverdict = "ENABLE"',
     "did you mean 'policy.ab.min_speedup'"),
    ('next = "draft-resources"', 'next = "draft-resource"', "did you mean 'draft-resources'"),
    ('id = "inconclusive"\ndefault = true', 'id = "inconclusive"\nwhen.all = [["ab.n_prompts", ">", 0]]',
     "default = true"),
    ('{ab.speedup:.2f}× faster', '{ab.sped:.2f}× faster', "did you mean 'ab.speedup'"),
])
def test_typo_in_override_fails_loading_with_a_suggestion(tmp_path: Path, old: str, new: str,
                                                          message: str) -> None:
    text = (BUILTIN / "ab-outcome.toml").read_text(encoding="utf-8")
    assert old in text
    _override(tmp_path, "ab-outcome.toml", text.replace(old, new, 1))
    with pytest.raises(RuleError, match=message.replace("(", r"\(").replace("$", r"\$")):
        load_rules()


def test_unknown_threshold_name_in_override_file(tmp_path: Path) -> None:
    _override(tmp_path, "thresholds.toml", '[measurement-validity]\nmax_early_divergence_rat = 0.1\n')
    with pytest.raises(RuleError, match="did you mean 'max_early_divergence_rate'"):
        load_rules()


def test_cycle_is_rejected(tmp_path: Path) -> None:
    text = (BUILTIN / "prediction.toml").read_text(encoding="utf-8").replace(
        'id = "predicted"\ndefault = true\nverdict = "INCONCLUSIVE"', 'id = "predicted"\ndefault = true\n'
        'next = "spec-decoding"')
    _override(tmp_path, "prediction.toml", text)
    with pytest.raises(RuleError, match="cycle"):
        load_rules()


def test_evaluation_error_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_: object, **__: object) -> None:
        raise ZeroDivisionError("synthetic")

    monkeypatch.setattr(decide_module, "walk", boom)
    v = decide(_facts("dense_enable.json"))
    assert v.verdict == "INCONCLUSIVE"
    assert "ZeroDivisionError" in v.because[0]


def test_kleene_logic() -> None:
    assert kleene("all", [True, None]) is None
    assert kleene("all", [False, None]) is False
    assert kleene("any", [True, None]) is True
    assert kleene("any", [False, None]) is None
    assert kleene("all", [True, True]) is True
    assert kleene("any", [False, False]) is False


def test_renderer_handles_dotted_names_and_missing_values() -> None:
    text = render("{gpu.name} has {gpu.vram_total_gib:.0f} GiB, CI {ab.ci_low:.2f}", {
        "gpu.name": "RTX 4090", "gpu.vram_total_gib": 23.6})
    assert text == "RTX 4090 has 24 GiB, CI unknown"


def test_verdict_json_has_the_design_keys_and_serialises() -> None:
    data = verdict_to_json(decide(_facts("dense_enable.json")))
    assert {"verdict", "predicted_speedup", "because", "flags", "trace", "missing_facts"} <= set(data)
    json.dumps(data)
    trace0 = data["trace"][0]  # type: ignore[index]
    assert set(trace0) == {"rule", "branch", "fact", "op", "expected", "actual", "passed", "outcome", "leads_to"}
