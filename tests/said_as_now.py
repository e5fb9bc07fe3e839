"""The saved demo run (tests/fixtures/runs/demo-quick) as this version says it, for the tests that read it in
Chinese. The file predates messages as data: its English-only sentences load as plain text and are shown as
written in every language (tests/advisor/text/test_messages.py), so a scan for English would only meet an older
release's words. The numbers are the saved run's own."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from advisor.ab.decision import decide_ab
from advisor.decide.reconcile import decide_evidence
from advisor.decide.rules import RuleSet
from advisor.decide.verdict_json import saved_verdict
from advisor.evidence.codec import encode
from advisor.evidence.io import save_evidence
from advisor.evidence.schema import Evidence
from advisor.evidence.steps import ABEvidence, AcceptanceEvidence, BaselineEvidence, Guard, PreflightEvidence
from advisor.evidence.warnings import StepWarning, WarningCode
from advisor.history.folders import load_run
from advisor.text.message import msg


def said_as_now(folder: Path, rules: RuleSet) -> None:
    """Rewrite the run in `folder` (a copy of the saved one) with its findings said as this version says them
    and a verdict this version decides."""
    evidence = resaid(load_run(folder).evidence, rules)
    save_evidence(evidence, folder)
    verdict, facts, _ = decide_evidence(evidence, rules)
    (folder / "verdict.json").write_text(json.dumps(encode(saved_verdict(verdict, facts))), encoding="utf-8")


def resaid(evidence: Evidence, rules: RuleSet) -> Evidence:
    """The saved run's findings as this version words them (the numbers its own)."""
    steps = dict(evidence.steps)
    pre = steps["preflight"].evidence
    assert isinstance(pre, PreflightEvidence)
    said = {"gpu": msg("detail.no_gpu", why="no-driver"), "power": msg("detail.power_unreported"),
            "spec-off": msg("detail.spec_off"), "spec-on": msg("detail.spec_on_method", method="ngram-mod")}
    guards = {name: replace(g, detail=said[name]) for name, g in pre.guards.items()}
    steps["preflight"] = replace(steps["preflight"], evidence=replace(pre, guards=guards))
    base, acc, ab = (steps[s].evidence for s in ("baseline", "acceptance", "ab"))
    assert isinstance(base, BaselineEvidence) and isinstance(acc, AcceptanceEvidence) and isinstance(ab, ABEvidence)
    assert base.cv_pct is not None and acc.rate is not None and acc.canary is not None
    steps["baseline"] = replace(steps["baseline"], warnings=(
        StepWarning(WarningCode.NOISY, msg("warn.noisy_repeats", cv=base.cv_pct)),))
    steps["acceptance"] = replace(steps["acceptance"], warnings=(
        StepWarning(WarningCode.LOW_ACCEPTANCE, msg("warn.low_acceptance", rate=acc.rate)),
        StepWarning(WarningCode.TRAP_INFLATION, msg("warn.trap_inflation", x=acc.canary.repeat_inflation or 0.0))))
    decision = decide_ab(list(ab.pairs), rules.policy.ab)  # the guards as this version words them
    failed = [StepWarning(WarningCode.for_guard(name), detail)
              for name, (ok, detail) in (*decision.guards.items(), *decision.notes.items()) if not ok]
    steps["ab"] = replace(steps["ab"], warnings=(*failed, StepWarning(WarningCode.STOPPED, msg("stop.cancelled"))),
                          evidence=replace(ab, guards={k: Guard(ok, d) for k, (ok, d) in decision.guards.items()},
                                           notes={k: Guard(ok, d) for k, (ok, d) in decision.notes.items()}))
    evidence = replace(evidence, steps=steps)
    return replace(evidence, reconciliation=decide_evidence(evidence, rules)[2])
