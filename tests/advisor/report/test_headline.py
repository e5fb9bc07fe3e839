"""One headline speedup (issue 27 item 2): the measured A/B when there is one, else the prediction, named as
which, worded the same by `decide`, the check summary and the report; acceptance figures say their step."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.cli.summary import print_summary
from advisor.facts.from_evidence import facts_from_evidence
from advisor.paths import CONFIG_DIR_ENV
from advisor.report.model import build_report
from advisor.report.render_markdown import md_text, render_markdown
from advisor.report.strings import speedup_line
from advisor.run.done import SessionDone
from tests.advisor.decide.test_decide_blocking import _failing_run, _saved, _verdict_of
from tests.paths import FIXTURES

FACTS = FIXTURES / "facts"


@pytest.fixture(autouse=True)
def _no_user_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "config"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_measured_run_has_one_headline_everywhere(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str) -> None:
    run = _failing_run(gpu=False)  # A/B 1.53× [1.47, 1.59] over 60 pairs; the perf model predicts otherwise
    verdict = _verdict_of(run)
    report = build_report(run, facts_from_evidence(run), verdict)
    line = speedup_line(report.headline, lang)
    assert report.headline.source == "measured" and "1.53×" in line
    assert verdict.predicted_speedup is not None and f"{verdict.predicted_speedup:.2f}" != "1.53"
    assert main(["decide", str(_saved(tmp_path, run)), "--lang", lang]) == 0
    decided = capsys.readouterr().out
    summary = io.StringIO()
    print_summary(run, SessionDone("complete", str(tmp_path), verdict), summary, lang)
    for out in (decided, summary.getvalue()):
        assert line in out
        assert f"{verdict.predicted_speedup:.2f}×" not in out  # no second, disagreeing headline
    assert md_text(line) in render_markdown(report, lang)


def test_without_an_ab_the_headline_is_the_prediction_named_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    facts = json.loads((FACTS / "dense_enable.json").read_text(encoding="utf-8"))
    for key in ("ab.speedup", "ab.ci_low", "ab.ci_high", "ab.n_prompts", "ab.decision", "ab.outputs_match_rate",
                "ab.guards_passed"):
        facts.pop(key)
    target = tmp_path / "facts.json"
    target.write_text(json.dumps(facts), encoding="utf-8")
    assert main(["decide", "--facts", str(target)]) == 0
    out = capsys.readouterr().out
    assert "Predicted speedup" in out and "from the performance model, not an A/B measurement" in out
    assert "Measured speedup" not in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_acceptance_figures_name_their_step_and_settings(lang: str) -> None:
    run = _failing_run(gpu=False)
    out = io.StringIO()
    print_summary(run, SessionDone("complete", "/tmp/run", _verdict_of(run)), out, lang)
    step = "接受率步骤（ngram-mod, k = 8）" if lang == "zh" else "acceptance step (ngram-mod, k = 8)"
    assert step in out.getvalue()
    markdown = render_markdown(build_report(run, facts_from_evidence(run), _verdict_of(run)), lang)
    assert ("接受率（这些开启组请求）" if lang == "zh" else "Acceptance (these ON requests)") in markdown
