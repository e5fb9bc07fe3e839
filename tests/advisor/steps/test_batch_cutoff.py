"""Where speculation stops paying, from paired rounds: the level statistics, the facts, the rule and the
invariant that keep an ENABLE from contradicting the sweep, the policy numbers, and the report line."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from advisor.core.policy import PolicyError, default_policy, load_policy
from advisor.decide.verdict import decide
from advisor.evidence.codec import decode, encode
from advisor.evidence.schema import ConfigRecord, Evidence, StepRecord
from advisor.evidence.steps import BatchEvidence, BatchLevel
from advisor.facts.checks import check_facts
from advisor.facts.from_evidence import facts_from_evidence
from advisor.facts.specs import FactsError
from advisor.paths import CONFIG_DIR_ENV
from advisor.report.strings import concurrency_line
from advisor.stats import t_quantile
from advisor.steps.batch import ArmRun, level_row

LEVEL = default_policy().batch.ci_level


def _run(tok_s: float | None, failed: int = 0) -> ArmRun:
    return ArmRun(tok_s, (10.0, 12.0) if tok_s else (), failed)


def test_level_row_is_the_geometric_mean_with_a_t_interval_on_log_ratios() -> None:
    runs = [(False, _run(100.0), _run(130.0)), (True, _run(110.0), _run(121.0)), (False, _run(90.0), _run(126.0))]
    row = level_row(2, runs, LEVEL)
    logs = np.log([1.3, 1.1, 1.4])
    half = t_quantile(0.5 + LEVEL / 2, 2) * logs.std(ddof=1) / math.sqrt(3)
    assert row.speedup == pytest.approx(math.exp(logs.mean()))
    assert row.speedup_ci_low == pytest.approx(math.exp(logs.mean() - half))
    assert row.speedup_ci_high == pytest.approx(math.exp(logs.mean() + half))
    assert [r.on_first for r in row.rounds] == [False, True, False] and row.ci_level == LEVEL
    assert row.off_tok_s == pytest.approx(100.0) and row.on_ms_per_token_p50 == pytest.approx(11.0)
    assert decode(BatchLevel, encode(row)) == row  # typed all the way through the file


def test_a_round_an_arm_failed_is_not_paired_and_one_round_gives_no_interval() -> None:
    row = level_row(4, [(False, _run(100.0), _run(150.0)), (True, _run(None, failed=4), _run(120.0))], LEVEL)
    assert row.rounds[1].speedup is None and row.off_failed == 4
    assert row.speedup == pytest.approx(1.5)
    assert row.speedup_ci_low is None and row.speedup_ci_high is None and row.ci_level is None


def test_an_evidence_file_before_paired_rounds_still_loads() -> None:
    old = {"levels": [{"concurrency": 1, "off_tok_s": 50.0, "on_tok_s": 60.0, "speedup": 1.2}],
           "crossover_concurrency": None, "slots": 4}
    ev = decode(BatchEvidence, old)
    assert ev.levels[0].rounds == () and ev.levels[0].speedup_ci_low is None and ev.stops_paying_at is None


def _level(c: int, speedup: float, low: float, high: float) -> BatchLevel:
    runs = tuple(level_row(c, [(False, _run(100.0), _run(100.0 * speedup))] * 3, LEVEL).rounds)
    return BatchLevel(concurrency=c, speedup=speedup, speedup_ci_low=low, speedup_ci_high=high, ci_level=LEVEL,
                      rounds=runs)


def _evidence(concurrency: int, levels: tuple[BatchLevel, ...], stops: int | None, pays: int | None) -> Evidence:
    batch = BatchEvidence(levels=levels, slots=8, stops_paying_at=stops, pays_up_to=pays, break_even=1.0)
    return Evidence(config=ConfigRecord(spec_type="ngram-mod", concurrency_expected=concurrency),
                    steps={"batch": StepRecord("done", evidence=batch)})


SWEEP = (_level(1, 1.5, 1.3, 1.7), _level(2, 1.1, 0.95, 1.25), _level(4, 0.8, 0.7, 0.9), _level(8, 0.6, 0.5, 0.7))


@pytest.mark.parametrize(("concurrency", "compared", "low"), [(1, 1, 1.3), (2, 2, 0.95), (3, 4, 0.7), (9, None, None)])
def test_facts_describe_the_users_concurrency_or_the_next_level_above(concurrency: int, compared: int | None,
                                                                      low: float | None) -> None:
    facts = facts_from_evidence(_evidence(concurrency, SWEEP, 4, 1))
    assert (facts["batch.rounds"], facts["batch.stops_paying_at"], facts["batch.pays_up_to"]) == (3, 4, 1)
    assert facts.get("batch.compared_concurrency") == compared and facts.get("batch.ci_low_at_concurrency") == low


def test_facts_that_contradict_each_other_are_refused() -> None:
    with pytest.raises(FactsError, match=r"batch\.ci_low_at_concurrency"):
        check_facts({"batch.ci_low_at_concurrency": 1.2, "batch.speedup_at_concurrency": 1.1})
    with pytest.raises(FactsError, match="pays_up_to"):
        check_facts({"batch.pays_up_to": 4, "batch.stops_paying_at": 4})


ENABLE = {"engine.kind": "llama.cpp", "engine.flag_generation": "new", "engine.spec_types": "none,ngram-mod",
          "engine.draft_max_flag": "--spec-draft-n-max", "spec.method": "ngram-mod", "spec.draft_max": 8,
          "workload.repeated_prompts": False, "acceptance.rate": 0.78, "acceptance.repeat_inflation": 1.03,
          "measurement.trap_suspected": False, "measurement.pool_reset": True, "baseline.bottleneck": "memory",
          "ab.speedup": 1.41, "ab.ci_low": 1.33, "ab.ci_high": 1.5, "ab.n_prompts": 40, "ab.decision": "ENABLE",
          "ab.guards_passed": True, "batch.max_concurrency_tested": 8, "batch.rounds": 3}


@pytest.fixture
def no_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "config"))
    return tmp_path / "config" / "rules"


def test_clearly_slower_at_the_users_concurrency_skips(no_overrides: Path) -> None:
    facts = ENABLE | {"workload.concurrency": 4, "batch.stops_paying_at": 4, "batch.pays_up_to": 2}
    v = decide(facts)
    assert (v.verdict, v.branch_id) == ("SKIP", "stops-paying") and "from 4 simultaneous" in v.because[0]


def test_an_unclear_ci_above_one_stream_withholds_enable(no_overrides: Path) -> None:
    at_four = {"batch.compared_concurrency": 4, "batch.speedup_at_concurrency": 1.05,
               "batch.ci_low_at_concurrency": 0.9, "batch.ci_high_at_concurrency": 1.2}
    v = decide(ENABLE | {"workload.concurrency": 4} | at_four)
    assert (v.verdict, v.branch_id) == ("INCONCLUSIVE", "unclear-at-concurrency")
    one = decide(ENABLE | {"workload.concurrency": 1, "batch.compared_concurrency": 1,
                           "batch.speedup_at_concurrency": 1.2, "batch.ci_low_at_concurrency": 1.1,
                           "batch.ci_high_at_concurrency": 1.3})
    assert one.verdict == "ENABLE"


def test_no_rule_override_can_enable_below_break_even_at_the_users_concurrency(no_overrides: Path) -> None:
    no_overrides.mkdir(parents=True)
    (no_overrides / "concurrency-crossover.toml").write_text(
        'schema = 1\nid = "concurrency-crossover"\n[[branch]]\nid = "anything-goes"\ndefault = true\n'
        'next = "ab-outcome"\n', encoding="utf-8")
    slower = {"workload.concurrency": 2, "batch.compared_concurrency": 2, "batch.speedup_at_concurrency": 0.8,
              "batch.ci_low_at_concurrency": 0.7, "batch.ci_high_at_concurrency": 0.9}
    v = decide(ENABLE | slower)
    assert v.verdict == "INCONCLUSIVE" and any("paired sweep" in b for b in v.because)
    assert decide(ENABLE | {"workload.concurrency": 1}).verdict == "ENABLE"


def test_the_policy_holds_the_numbers_and_refuses_nonsense(tmp_path: Path) -> None:
    assert (default_policy().batch.break_even, default_policy().batch.ci_level) == (1.0, 0.95)
    (tmp_path / "policy.toml").write_text("[batch]\nbreak_even = 1.05\n", encoding="utf-8")
    assert load_policy(user_dir=tmp_path).batch.break_even == 1.05
    (tmp_path / "policy.toml").write_text("[batch]\nbreak_even = 0.9\n", encoding="utf-8")
    with pytest.raises(PolicyError, match=r"batch\.break_even"):
        load_policy(user_dir=tmp_path)


@pytest.mark.parametrize(("facts", "en", "zh"), [
    ({"batch.rounds": 3, "batch.stops_paying_at": 4, "batch.pays_up_to": 2}, "pays up to 2", "从 4 个起明显更慢"),
    ({"batch.rounds": 3, "batch.stops_paying_at": 1}, "clearly slower from 1", "从 1 个同时请求起"),
    ({"batch.rounds": 5, "batch.pays_up_to": 8, "batch.max_concurrency_tested": 8}, "every concurrency", "每一档"),
    ({"batch.rounds": 3, "batch.pays_up_to": 2, "batch.max_concurrency_tested": 8}, "up to 8", "最多测到 8"),
    ({"batch.rounds": 3, "batch.max_concurrency_tested": 4}, "could not tell", "无法判断"),
    ({"batch.crossover_concurrency": 4}, "no CI", "没有置信区间"),
])
def test_the_report_states_the_cutoff_in_both_languages(facts: dict[str, object], en: str, zh: str) -> None:
    assert en in (concurrency_line(facts, "en") or "") and zh in (concurrency_line(facts, "zh") or "")


def test_no_batch_facts_no_report_line() -> None:
    assert concurrency_line({}, "en") is None
