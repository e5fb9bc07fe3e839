"""The perf model's reconciliation (predicted vs measured A/B) is shown in every check: the CLI summary, the
Markdown, HTML and JSON reports in both languages, and said so when the check measured no acceptance."""

from __future__ import annotations

import dataclasses
import io

import pytest

from advisor.cli.summary import print_summary
from advisor.decide.reconcile import reconcile
from advisor.evidence.codec import decode
from advisor.evidence.schema import Evidence
from advisor.facts.from_evidence import facts_from_evidence
from advisor.report.model import build_report
from advisor.report.reconcile_text import reconciliation_section, reconciliation_sentences
from advisor.report.render_html import render_html
from advisor.report.render_markdown import render_markdown
from advisor.report.tree import ReconcileSection
from advisor.run.done import SessionDone
from advisor.text import strings_en, strings_zh
from tests.report_sample import sample_decision, sample_facts, sample_run


def _run_with_reconciliation() -> Evidence:
    run = sample_run()
    rec = reconcile(facts_from_evidence(run))
    assert rec is not None and rec.measured_speedup == pytest.approx(1.18)
    return dataclasses.replace(run, reconciliation=rec)


def test_the_section_carries_the_model_terms_and_the_gap() -> None:
    run = _run_with_reconciliation()
    section = reconciliation_section(run)
    assert section is not None
    rec = run.reconciliation
    assert rec is not None
    assert section.predicted_speedup == pytest.approx(rec.predicted_speedup)
    assert section.relative_error == pytest.approx(rec.predicted_speedup / 1.18 - 1.0)
    lines = reconciliation_sentences(section, "en")
    assert f"{rec.predicted_speedup:.2f}×" in lines[0] and "1.18×" in lines[1]
    assert f"{rec.relative_error:+.0%}" in lines[1]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_markdown_and_html_show_it(lang: str) -> None:
    run = _run_with_reconciliation()
    report = build_report(run, sample_facts(), sample_decision())
    table = strings_en.STRINGS if lang == "en" else strings_zh.STRINGS
    assert run.reconciliation is not None
    predicted = f"{run.reconciliation.predicted_speedup:.2f}×"
    for rendered in (render_markdown(report, lang), render_html(report, lang)):
        assert table["section.reconcile"] in rendered
        assert predicted in rendered and table["reconcile.hint"].split("`")[0] in rendered
    assert report.reconciliation is not None and report.reconciliation.measured_speedup == pytest.approx(1.18)


def test_cli_summary_prints_predicted_beside_measured() -> None:
    run = _run_with_reconciliation()
    out = io.StringIO()
    print_summary(run, SessionDone("complete", "/tmp/run", sample_decision()), out)
    lines = [line for line in out.getvalue().splitlines() if "perf model:" in line]
    assert len(lines) >= 2 and "A/B measured 1.18×" in lines[1]
    zh = io.StringIO()
    print_summary(run, SessionDone("complete", "/tmp/run", sample_decision()), zh, lang="zh")
    lines = [line for line in zh.getvalue().splitlines() if "性能模型：" in line or "性能模型:" in line]
    assert len(lines) >= 2 and "A/B 实测为 1.18×" in lines[1]  # the zh summary said this in English


def test_a_check_without_acceptance_says_there_is_nothing_to_compare() -> None:
    run = dataclasses.replace(sample_run(), reconciliation=None)
    section = reconciliation_section(run)
    assert section == ReconcileSection(predicted_speedup=None, measured_speedup=1.18)
    assert reconciliation_sentences(section, "zh") == [strings_zh.STRINGS["reconcile.none"]]
    assert reconciliation_section(None) is None  # a report from a facts file has no check to reconcile
    md = render_markdown(build_report(None, sample_facts(), sample_decision()), "en")
    assert strings_en.STRINGS["section.reconcile"] not in md


def test_evidence_from_before_the_terms_reads_without_them() -> None:
    old = {"predicted_speedup": 0.29, "priors": ["draft cost 0 (prior for ngram-mod)"], "gamma": 8,
           "verify_ratio": 3.4, "measured_speedup": None}  # as tests/fixtures/runs/demo-quick holds it
    lines = reconciliation_sentences(decode(ReconcileSection, old, "reconciliation"), "en")  # as a report reads it
    assert lines[0] == strings_en.STRINGS["reconcile.predicted_bare"].format(predicted="0.29×")
    assert lines[1] == strings_en.STRINGS["reconcile.unmeasured"] and "ngram-mod" in lines[2]
