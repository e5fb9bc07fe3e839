"""Every reason that withholds a verdict, at once, each with a remedy fitting the machine (issue 27 item 1)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.decide.blocking import blocking
from advisor.decide.evaluate import walk
from advisor.decide.rules import load_rules, unremedied, untranslated
from advisor.decide.verdict import Verdict, decide, enrich
from advisor.evidence.codec import encode
from advisor.evidence.schema import Evidence
from advisor.evidence.steps import ABEvidence, AcceptanceEvidence, BaselineEvidence, Guard
from advisor.paths import CONFIG_DIR_ENV
from advisor.text.message import Message
from probes.base import Unavailable
from probes.gpu.probe import GpuReport
from tests.paths import REPO
from tests.report_sample import sample_run

# The run: 1.53× [1.47, 1.59] over 60 pairs, whose facts fail three guards at once.
_NONE = Unavailable("no-device")
THREE_GUARDS = ("measurement-validity/outputs-differ", "measurement-validity/drift",
                "measurement-validity/ab-guard-failed")


@pytest.fixture(autouse=True)
def _no_user_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "config"))


def _failing_run(*, gpu: bool) -> Evidence:
    """The sample run with a noisy baseline (a warning only), early divergence, drift and repetition loops; a CPU
    box unless `gpu`."""
    run = sample_run()
    steps = dict(run.steps)
    base = steps["baseline"].evidence
    ab = steps["ab"].evidence
    assert isinstance(base, BaselineEvidence) and isinstance(ab, ABEvidence)
    steps["baseline"] = dataclasses.replace(steps["baseline"], evidence=dataclasses.replace(base, cv_pct=14.2))
    acc = steps["acceptance"].evidence
    assert isinstance(acc, AcceptanceEvidence)  # a canary that measured no inflation: no trap in the way
    steps["acceptance"] = dataclasses.replace(steps["acceptance"], evidence=dataclasses.replace(
        acc, repeat_inflation=1.02))
    loops = Message.plain("5 pairs dropped for repetition loops, 3 only under ON")
    guards = {**ab.guards, "repetition-loops": Guard(False, loops),
              "drift": Guard(False, Message.plain("OFF ms/token changed +30.0% over the pairs"))}
    steps["ab"] = dataclasses.replace(steps["ab"], evidence=dataclasses.replace(
        ab, speedup=1.53, ci_low=1.47, ci_high=1.59, n_prompts=60, early_divergence_rate=0.2,
        early_divergence_low=0.11, guards=guards, effects={**ab.effects, "drift": 0.3}))
    env = run.environment if gpu else dataclasses.replace(
        run.environment, gpu=GpuReport(status="no-device", detail="", driver_version=_NONE, cuda_driver_version=_NONE,
                                       gpus=()))
    return dataclasses.replace(run, steps=steps, environment=env)


def _saved(tmp_path: Path, run: Evidence) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "evidence.json").write_text(json.dumps(encode(run)), encoding="utf-8")
    return folder


def _decide_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["decide", *argv, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_saved_run_lists_every_withholding_reason_with_a_cpu_remedy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _decide_json(capsys, str(_saved(tmp_path, _failing_run(gpu=False))))
    assert data["verdict"] == "INCONCLUSIVE"
    items = data["blocking"]
    assert isinstance(items, list)
    codes = [b["code"] for b in items]
    assert codes[:3] == list(THREE_GUARDS)  # the tree's order: outputs, then drift, then the A/B guards
    assert "measurement-validity/noisy" not in codes  # the baseline's spread is a warning: the A/B carries it
    for item in items:
        assert item["reason"] and item["remedy"] and item["reason_zh"] and item["remedy_zh"]
    outputs, drift, guard = items[:3]
    assert "+30%" in drift["reason"]
    assert "GPU" not in drift["remedy"] and "--threads" in drift["remedy"]
    assert "repeat-penalty" in guard["remedy"] and "--prompts" in guard["remedy"]
    assert "20%" in outputs["reason"]
    # the first reason is the one the verdict's own walk stopped at
    assert data["decided_by"] == codes[0]


def test_a_gpu_machine_is_told_about_gpu_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _decide_json(capsys, str(_saved(tmp_path, _failing_run(gpu=True))))
    drift = data["blocking"][1]  # type: ignore[index]
    assert drift["code"] == "measurement-validity/drift"
    assert "GPU heated up" in drift["remedy"] and "--threads" not in drift["remedy"]


def test_unknown_gpu_gets_the_remedy_for_both() -> None:
    facts = {"ab.warnings": "drift", "ab.drift": 0.3, "ab.guards_passed": False, "ab.speedup": 1.3, "ab.ci_low": 1.2,
             "ab.ci_high": 1.4, "ab.n_prompts": 40}
    v = decide(facts)
    assert v.blocking[0].code == "measurement-validity/drift"
    assert "steady" in v.blocking[0].remedy


def test_enable_and_skip_have_nothing_blocking() -> None:
    enable = {"ab.speedup": 1.3, "ab.ci_low": 1.2, "ab.ci_high": 1.4, "ab.n_prompts": 40, "ab.guards_passed": True,
              "spec.method": "draft", "baseline.cv_pct": 2.0, "ab.early_divergence_low": 0.0,
              "workload.concurrency": 1}
    assert decide(enable).verdict == "ENABLE" and decide(enable).blocking == ()
    skip = {**enable, "ab.speedup": 0.8, "ab.ci_low": 0.7, "ab.ci_high": 0.9}
    assert decide(skip).verdict == "SKIP" and decide(skip).blocking == ()


def test_invariants_and_missing_data_are_listed_once() -> None:
    # an A/B that would enable, on a cache-based method with no canary and too few pairs for an ENABLE
    facts = {"ab.speedup": 1.3, "ab.ci_low": 1.2, "ab.ci_high": 1.4, "ab.n_prompts": 12, "spec.method": "ngram-mod",
             "ab.guards_passed": True}
    v = decide(facts)
    codes = [b.code for b in v.blocking]
    assert v.verdict == "INCONCLUSIVE"
    assert "measurement-validity/trap-unchecked" in codes and "invariants/ab.n_prompts" in codes
    assert "invariants/acceptance.repeat_inflation" not in codes  # said once, by the branch above
    assert all(b.remedy and b.remedy_zh for b in v.blocking)


def test_collecting_walk_ends_where_the_facts_would_without_their_guards() -> None:
    rules = load_rules(overrides=False)
    facts, _, _ = enrich({"ab.lossy_divergences": 1, "ab.lossy_at": "p1 #3: ' a' (p 0.97) → ' zebra'",
                       "ab.speedup": 0.8, "ab.ci_low": 0.7, "ab.ci_high": 0.9, "ab.n_prompts": 40})
    assert walk(rules, facts).verdict == "INCONCLUSIVE"
    collected = walk(rules, facts, collect=True)
    assert collected.verdict == "SKIP"  # without the lossy token the A/B would say SKIP: it is the one reason
    assert [b.code for b in blocking(rules, facts, collected)] == ["measurement-validity/lossy-speculation"]


def test_every_withholding_branch_has_a_translated_remedy() -> None:
    rules = load_rules(overrides=False)
    assert unremedied(rules) == []
    assert [t for t in untranslated(rules) if "remedy" in t] == []


def test_a_remedy_without_text_is_a_rule_error(tmp_path: Path) -> None:
    from advisor.decide.rules import RuleError

    builtin = REPO / "rules"
    for f in builtin.glob("*.toml"):
        (tmp_path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    text = (tmp_path / "prediction.toml").read_text(encoding="utf-8")
    (tmp_path / "prediction.toml").write_text(text.replace('text = "Confirm it', 'texts = "Confirm it'),
                                              encoding="utf-8")
    with pytest.raises(RuleError, match="needs a `text`"):
        load_rules(tmp_path, overrides=False)


def _verdict_of(run: Evidence) -> Verdict:
    from advisor.facts.from_evidence import facts_from_evidence

    return decide(facts_from_evidence(run))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_decide_prints_every_reason_with_its_remedy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str) -> None:
    run = _failing_run(gpu=False)
    assert main(["decide", str(_saved(tmp_path, run)), "--lang", lang]) == 0
    out = capsys.readouterr().out
    for item in _verdict_of(run).blocking:
        reason, remedy = item.text(lang)
        assert reason in out and remedy in out
    assert ("暂无定论的原因（共 3 条）" if lang == "zh" else "What stands in the way (3)") in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_check_summary_and_reports_show_them_all(lang: str) -> None:
    import io

    from advisor.cli.summary import print_summary
    from advisor.facts.from_evidence import facts_from_evidence
    from advisor.report.model import build_report
    from advisor.report.render_html import e, render_html
    from advisor.report.render_markdown import md_text, render_markdown
    from advisor.run.done import SessionDone

    run = _failing_run(gpu=False)
    verdict = _verdict_of(run)
    out = io.StringIO()
    print_summary(run, SessionDone("complete", "/tmp/run", verdict), out, lang)
    report = build_report(run, facts_from_evidence(run), verdict)
    html, markdown = render_html(report, lang), render_markdown(report, lang)
    suffix = "_zh" if lang == "zh" else ""
    for item in verdict.blocking:
        remedy = getattr(item, "remedy" + suffix)
        assert remedy in out.getvalue() and md_text(remedy) in markdown
        assert e(remedy) in html  # escaped like every text of the report
    assert out.getvalue().count("→") >= 3
    # nothing confirmed, so the measured settings are offered to try, labelled so (issue 27 item 3)
    assert verdict.try_flags is not None
    tried = verdict.try_flags.command
    label = "已测量、未确认——可以试试" if lang == "zh" else "Measured, not confirmed — try"
    assert "--spec-type ngram-mod" in tried and tried in out.getvalue() and label in out.getvalue()
    assert label in markdown and label in html and e(tried) in html
