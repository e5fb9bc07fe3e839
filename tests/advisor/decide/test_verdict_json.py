"""The typed verdict from `decide` to every reader: saved and read back unchanged, edited by returning a new
verdict, and a failed run's reasons in both languages (issue 28 item 1)."""

from __future__ import annotations

import json

import pytest

from advisor.decide.verdict import decide, verdict_to_json
from advisor.decide.verdict_json import saved_facts, saved_verdict, verdict_from_json
from advisor.evidence.codec import encode
from advisor.report.model import build_report
from advisor.report.render_markdown import render_markdown
from tests.paths import FIXTURES

DEMO = FIXTURES / "runs" / "demo-quick"


@pytest.mark.parametrize("facts", [
    {},
    {"ab.speedup": 1.3, "ab.ci_low": 1.2, "ab.ci_high": 1.4, "ab.n_prompts": 40},
    {"engine.kind": "llama.cpp", "spec.method": "ngram-mod", "acceptance.rate": 0.6, "baseline.decode_tok_s": 90.0,
     "gpu.name": "RTX 4090", "model.total_params_b": 7.0},
    {"ab.warnings": "drift", "ab.drift": 0.3, "ab.guards_passed": False, "ab.speedup": 1.3, "ab.ci_low": 1.2,
     "ab.ci_high": 1.4, "ab.n_prompts": 40},
])
def test_a_saved_verdict_reads_back_as_it_was(facts: dict[str, object]) -> None:
    verdict = decide(facts)
    data = json.loads(json.dumps(encode(saved_verdict(verdict, facts))))
    again = verdict_from_json(data)
    assert verdict_to_json(again) == json.loads(json.dumps(encode(verdict_to_json(verdict))))
    assert saved_facts(data) == facts
    assert (again.verdict, again.because, again.texts("because", "zh"), again.blocking) == \
        (verdict.verdict, verdict.because, verdict.texts("because", "zh"), verdict.blocking)


def test_the_demo_runs_saved_verdict_reads_back_byte_for_byte() -> None:
    """A verdict.json an older release wrote (no interval keys, no outcome in the trace) still reads."""
    data = json.loads((DEMO / "verdict.json").read_text(encoding="utf-8"))
    verdict = verdict_from_json(data)
    assert verdict.verdict == data["verdict"] and list(verdict.because) == data["because"]
    assert len(verdict.trace) == len(data["trace"])


def test_an_unknown_word_or_shape_fails_closed() -> None:
    odd = verdict_from_json({"verdict": "MAYBE", "flags": "--spec-type ngram-mod", "trace": [1, {"passed": True}],
                             "blocking": "no", "because": "one reason", "predicted_speedup": float("nan")})
    assert odd.verdict == "INCONCLUSIVE" and any("MAYBE" in w for w in odd.warnings)
    assert odd.flags is not None and odd.flags.argv == ("--spec-type", "ngram-mod")
    assert [c.outcome for c in odd.trace] == ["holds"]  # an older row: only `passed`
    assert odd.blocking == () and odd.because == ("one reason",) and odd.predicted_speedup is None
    assert verdict_from_json([1, 2]).verdict == "INCONCLUSIVE"


def test_with_reason_prepends_in_both_languages() -> None:
    verdict = decide({"ab.speedup": 1.3, "ab.ci_low": 1.2, "ab.ci_high": 1.4, "ab.n_prompts": 40})
    failed = verdict.with_reason("the engine died", "引擎已停止")
    assert failed.because == ("the engine died", *verdict.because)
    assert failed.texts("because", "zh") == ("引擎已停止", *verdict.texts("because", "zh"))
    assert verdict.because[:1] != ("the engine died",)  # a new verdict; the old one is unchanged


def test_a_failed_runs_chinese_report_gives_its_reason_in_chinese() -> None:
    from advisor.evidence.io import load_evidence
    from advisor.facts.from_evidence import facts_from_evidence

    evidence = load_evidence(DEMO)
    facts = facts_from_evidence(evidence)
    verdict = decide(facts).with_reason("the speculation-on llama-server stopped during the ab step",
                                        "开启推测的 llama-server 在“A/B”步骤中停止了")
    zh = render_markdown(build_report(evidence, facts, verdict), "zh")
    assert "开启推测的 llama-server" in zh and "speculation-on llama-server stopped" not in zh
    assert "speculation-on llama-server stopped" in render_markdown(build_report(evidence, facts, verdict), "en")
