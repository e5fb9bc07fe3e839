"""The tuner's evidence downstream: facts describe the chosen setting, the `tuner` key pairs the prediction
with the A/B that measured it, the report (en + zh) and the CLI summary carry the choice, and model text is
escaped."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest

from advisor.cli.summary import print_summary
from advisor.decide.reconcile import reconcile
from advisor.evidence.codec import encode
from advisor.evidence.io import evidence_from_json
from advisor.evidence.schema import Evidence, StepRecord
from advisor.evidence.tuner import KSpeedup, MethodProbe, SurfacePoint, TuneEvidence, TunerChoice
from advisor.facts.from_evidence import facts_from_evidence
from advisor.report.model import build_report
from advisor.report.render_html import render_html
from advisor.report.render_markdown import render_markdown
from advisor.run.done import SessionDone
from advisor.text import text
from advisor.tune.summary import tuner_summary
from tests.report_sample import sample_decision, sample_run

ARGV = ("--spec-type", "ngram-mod", "--spec-ngram-mod-n-max", "4", "--spec-ngram-mod-n-min", "4")


def _tuned(applied: bool = True, measured_argv: tuple[str, ...] = ARGV, method: str = "ngram-mod") -> Evidence:
    run = sample_run()
    curve = tuple(KSpeedup(k, s, {"code": s + 0.05, "chat": s - 0.05}, 1.0 + s / 3, 0.9 - 0.04 * k, 1 + 0.9 * k)
                  for k, s in ((1, 1.05), (2, 1.10), (4, 1.16), (8, 1.12), (16, 1.01)))
    probes = (MethodProbe(method=method, k_max=16, argv=ARGV, curve=curve, best_k=4, best_speedup=1.16,
                          overhead=0.08),
              MethodProbe(method="ngram-simple", k_max=16, skipped="the engine reported no per-position counters"))
    tune = TuneEvidence(ks=(1, 2, 4, 8, 16), t1_ms=8.2, methods=probes, breakeven_tau={1: 1.1, 4: 1.3, 16: 2.2},
                        surface=(SurfacePoint(4, 2.5, 2.4, 0.4, 130.0, 1.12, 1.10, 1.5),),
                        surface_model_rel_err_median=0.02, verify_ratio_at_choice=1.13,
                        choice=TunerChoice(method=method, k=4, argv=ARGV if applied else (), predicted_speedup=1.16,
                                           predicted_per_category={"code": 1.21}, applied=applied))
    ab = dataclasses.replace(run.steps["ab"].evidence, on_argv=measured_argv,  # type: ignore[type-var]
                             on_params={"--spec-ngram-mod-n-max": "4"})
    steps = {**run.steps, "tune": StepRecord("done", elapsed_s=30.0, evidence=tune),
             "ab": dataclasses.replace(run.steps["ab"], evidence=ab)}
    ev = dataclasses.replace(run, steps=steps)
    return dataclasses.replace(ev, tuner=tuner_summary(ev))


def test_facts_describe_the_chosen_setting_once_it_was_applied() -> None:
    facts = facts_from_evidence(_tuned())
    assert facts["spec.draft_max"] == 4 and facts["tuner.k"] == 4 and facts["spec.method"] == "ngram-mod"
    assert facts["acceptance.rate"] == pytest.approx(0.9 - 0.16)   # replayed at k = 4, not the run at 16
    assert "acceptance.rate_ci_low" not in facts                    # that CI was for the run at 16
    assert facts["verify.cost_ratio_at_draft_max"] == pytest.approx(1.13)
    assert facts["spec.argv"] == " ".join(ARGV)                     # what the A/B measured
    assert facts["tuner.prediction_rel_err"] == pytest.approx(abs(1.16 / 1.18 - 1))


def test_advice_only_leaves_the_measured_setting_in_the_facts() -> None:
    facts = facts_from_evidence(_tuned(applied=False))
    assert facts["tuner.k"] == 4 and facts["spec.draft_max"] == 8 and "tuner.prediction_rel_err" not in facts


def test_a_timed_draft_model_feeds_the_prediction_and_the_reconciliation() -> None:
    ev = _tuned(method="draft")
    tune = ev.steps["tune"].evidence
    assert isinstance(tune, TuneEvidence)
    probes = (dataclasses.replace(tune.methods[0], draft_cost_ratio=0.12), *tune.methods[1:])
    steps = {**ev.steps, "tune": dataclasses.replace(ev.steps["tune"], evidence=dataclasses.replace(
        tune, methods=probes))}
    facts = facts_from_evidence(dataclasses.replace(ev, steps=steps))
    assert facts["spec.draft_cost_ratio"] == pytest.approx(0.12)
    rec = reconcile(facts)
    assert rec is not None and rec.draft_cost_ratio == pytest.approx(0.12)  # the timing, not a size estimate
    assert not any("draft model" in str(p) for p in rec.priors)
    # a head method's untimed 0 is not a measurement: the facts then carry no draft cost
    assert "spec.draft_cost_ratio" not in facts_from_evidence(_tuned(method="mtp"))


def test_the_summary_pairs_the_prediction_only_with_an_ab_of_the_same_flags() -> None:
    summary = tuner_summary(_tuned())
    assert summary is not None and summary.measured_speedup == pytest.approx(1.18)
    other = tuner_summary(_tuned(measured_argv=("--spec-type", "ngram-mod")))
    assert other is not None and other.measured_speedup is None and other.prediction_rel_err is None


def test_the_tuner_key_survives_evidence_json() -> None:
    ev = _tuned()
    back = evidence_from_json(json.loads(json.dumps(encode(ev))))
    assert back.tuner == ev.tuner and back.tune == ev.tune


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_both_reports_show_the_choice_the_curve_and_the_surface(lang: str) -> None:
    ev = _tuned()
    report = build_report(ev, facts_from_evidence(ev), sample_decision())
    section = report.tuner
    assert section is not None and section.k == 4 and section.measured_speedup == pytest.approx(1.18)
    assert {c.id for c in section.charts} == {"tuner_curve", "surface"}
    md, html = render_markdown(report, lang), render_html(report, lang)
    heading = "Best settings" if lang == "en" else "最佳设置"
    assert heading in md and heading in html
    assert "ngram-simple" in md and "1.16×" in md
    assert "<svg" in html.split(heading, 1)[1]


def test_a_hostile_method_name_is_escaped_in_html() -> None:
    ev = _tuned(method="<script>alert(1)</script>")
    html = render_html(build_report(ev, facts_from_evidence(ev), sample_decision()), "en")
    assert "<script>alert(1)</script>" not in html


def test_the_cli_summary_prints_the_choice() -> None:
    out = io.StringIO()
    ev = _tuned()
    print_summary(ev, SessionDone(status="complete", run_dir="", verdict=sample_decision()), out)
    text = out.getvalue()
    assert "tuner: Chosen: ngram-mod, draft length 4." in text and "measured 1.18×" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_says_whether_the_cost_fit_could_tell_an_overhead(lang: str) -> None:
    unshown = dataclasses.replace(_probe_of(_tuned()), overhead=0.0, overhead_fitted=2.47, overhead_se=1.53,
                                  speed_factor=0.87)
    shown = dataclasses.replace(unshown, overhead=0.7, overhead_fitted=0.7, overhead_se=0.1, speed_factor=1.02)
    texts = []
    for probe in (unshown, shown):
        ev = _with_probe(_tuned(), probe)
        texts.append(render_markdown(build_report(ev, facts_from_evidence(ev), sample_decision()), lang))
    assert text(lang, "tuner.overhead_unshown", fitted=2.47, se=1.53) in texts[0]
    assert text(lang, "tuner.speed_factor", speed=0.87) in texts[0]
    assert text(lang, "tuner.overhead_used", overhead=0.7, se=0.1) in texts[1]
    assert text(lang, "tuner.speed_factor", speed=1.02) not in texts[1]  # within 3%: not worth a line


def _probe_of(ev: Evidence) -> MethodProbe:
    assert ev.tune is not None
    return ev.tune.methods[0]


def _with_probe(ev: Evidence, probe: MethodProbe) -> Evidence:
    assert ev.tune is not None
    tune = dataclasses.replace(ev.tune, methods=(probe, *ev.tune.methods[1:]))
    return dataclasses.replace(ev, steps={**ev.steps, "tune": dataclasses.replace(ev.steps["tune"], evidence=tune)})
