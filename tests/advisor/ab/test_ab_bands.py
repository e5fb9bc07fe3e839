"""The shape of the work (issue 24 item 3): each A/B pair's output length and context depth, the speedup by
band with simultaneous intervals, and every reader (CLI summary, report, window) showing the bands and the
shape the verdict holds for."""

from __future__ import annotations

import dataclasses
import io
import math

import pytest

from advisor.ab.bands import band_label, depth_bands, measured_span, output_bands
from advisor.ab.types import PairResult
from advisor.core.policy import default_policy
from advisor.evidence.steps import ABEvidence
from tests.report_sample import sample_run

POLICY = default_policy().ab


def _pairs(n: int = 30) -> list[PairResult]:
    out = []
    for i in range(n):
        long = i % 3 == 0
        gain = 1.6 if long else 1.02 + 0.02 * math.sin(i)  # long replies draft more of themselves
        out.append(PairResult(f"p{i}", 20.0, 20.0 / gain, i % 2 == 0, output_tokens=1500 if long else 60 + i,
                              depth_tokens=5000.0 if i % 5 == 0 else 200.0 + i))
    return out


def test_band_labels_follow_the_policy_edges() -> None:
    assert POLICY.output_band_edges == (256, 1024)
    assert [band_label(v, (256, 1024)) for v in (0, 255, 256, 1023, 1024, 9000)] == [
        "0–255", "0–255", "256–1023", "256–1023", "1024+", "1024+"]


def test_speedup_by_output_and_depth_band() -> None:
    pairs = _pairs()
    out = output_bands(pairs, POLICY)
    assert list(out) == ["0–255", "1024+"]  # shortest first, empty bands left out
    assert out["1024+"].n_pairs == 10 and out["1024+"].label == "gain"
    assert out["1024+"].speedup == pytest.approx(1.6)
    assert out["0–255"].ci_low is not None and out["0–255"].ci_low < out["0–255"].speedup  # type: ignore[operator]
    assert set(depth_bands(pairs, POLICY)) == {"0–1023", "4096+"}
    assert measured_span(pairs, lambda p: p.output_tokens) is not None
    span = measured_span(pairs, lambda p: p.output_tokens)
    assert span is not None and (span.low, span.high) == (61, 1500)


def test_old_pairs_without_the_shape_have_no_bands() -> None:
    old = [dataclasses.replace(p, output_tokens=None, depth_tokens=None) for p in _pairs()]
    assert output_bands(old, POLICY) == {} and measured_span(old, lambda p: p.depth_tokens) is None


def _run_with_bands():  # type: ignore[no-untyped-def]
    run = sample_run()
    ab = run.steps["ab"].evidence
    assert isinstance(ab, ABEvidence)
    pairs = tuple(_pairs(24))
    ab = dataclasses.replace(ab, pairs=pairs, per_output_band=output_bands(pairs, POLICY),
                             per_depth_band=depth_bands(pairs, POLICY))
    return dataclasses.replace(run, steps={**run.steps, "ab": dataclasses.replace(run.steps["ab"], evidence=ab)})


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_reader_shows_the_bands_and_the_shape(lang: str) -> None:
    from advisor.cli.summary import print_summary
    from advisor.decide.verdict import decide
    from advisor.facts.from_evidence import facts_from_evidence
    from advisor.report.model import build_report
    from advisor.report.render_html import render_html
    from advisor.report.render_markdown import render_markdown
    from advisor.run.done import SessionDone

    run = _run_with_bands()
    facts = facts_from_evidence(run)
    assert (facts["ab.output_tokens_low"], facts["ab.output_tokens_high"]) == (61, 1500)
    verdict = decide(facts)
    report = build_report(run, facts, verdict)
    groups = {r.group or "task" for r in report.by_task.rows}
    assert {"output", "depth"} <= groups
    band = "回复 1024+ 个 token" if lang == "zh" else "reply of 1024+ tokens"
    shape = "61–1500"
    cli = io.StringIO()
    print_summary(run, SessionDone("complete", "/tmp/run", verdict), cli, lang)
    for shown in (render_markdown(report, lang), render_html(report, lang), cli.getvalue()):
        assert band in shown and shape in shown
