"""The tuner's choice never recommended when it measured slower than the engine's defaults (issue 26 item 2):
an `ab.vs_default_*` interval wholly below 1× recommends the defaults' flags, says why in both languages and
shows their speedup chained from the two measured ratios, named so; an interval including 1×, or no
comparison, keeps the choice."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.decide.verdict import decide, verdict_to_json
from advisor.decide.verdict_json import saved_verdict, verdict_from_json
from advisor.evidence.codec import encode
from advisor.evidence.schema import Evidence
from advisor.evidence.steps import ABEvidence, VsDefault
from advisor.facts.from_evidence import facts_from_evidence
from advisor.paths import CONFIG_DIR_ENV
from advisor.report.headline import headline
from advisor.report.model import build_report, load_report, report_json
from advisor.report.render_markdown import md_text, render_markdown
from advisor.report.strings import speedup_line
from advisor.report.tree import TunerSection
from advisor.report.tuner_text import tuner_sentences
from tests.report_sample import sample_run
from tests.zh_words import english_words

CHOICE = "--spec-type ngram-mod --spec-ngram-mod-n-match 12 --spec-draft-n-max 16"
DEFAULTS = "--spec-type ngram-mod"
OWN = "-c 4096"
# a clean ENABLE: the choice 1.40× [1.30, 1.50] against speculation off
ENABLE: dict[str, object] = {
    "engine.kind": "llama.cpp", "engine.flag_generation": "new", "spec.method": "ngram-mod", "spec.draft_max": 16,
    "gpu.count": 1, "spec.argv": CHOICE, "spec.server_args": OWN, "ab.speedup": 1.4, "ab.ci_low": 1.3,
    "ab.ci_high": 1.5, "ab.ci_level": 0.95, "ab.n_prompts": 40, "ab.guards_passed": True, "baseline.cv_pct": 2.0,
    "ab.early_divergence_low": 0.0, "workload.concurrency": 1, "measurement.pool_reset": True,
    "acceptance.repeat_inflation": 1.01}
# the choice at 0.90× [0.85, 0.95] of the defaults: slower beyond noise
SLOWER: dict[str, object] = {"ab.vs_default_speedup": 0.9, "ab.vs_default_ci_low": 0.85,
                             "ab.vs_default_ci_high": 0.95, "ab.vs_default_argv": DEFAULTS}


@pytest.fixture(autouse=True)
def _no_user_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "config"))


def _write(tmp_path: Path, facts: dict[str, object]) -> Path:
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(facts), encoding="utf-8")
    return path


def test_a_choice_slower_than_the_defaults_recommends_the_defaults_and_says_why() -> None:
    v = decide(ENABLE | SLOWER)
    assert v.verdict == "ENABLE" and v.flags is not None
    assert v.flags.argv == ("-c", "4096", "--spec-type", "ngram-mod")  # the user's own options, then the defaults
    assert v.flags.command == f"{OWN} {DEFAULTS}"
    en, zh = v.because[-1], v.texts("because", "zh")[-1]
    assert f"The tuner's choice ({CHOICE}) measured 0.90× the speed of the engine's defaults" in en
    assert f"({DEFAULTS})" in en and "95% CI 0.85× – 0.95×" in en and "defaults are recommended instead" in en
    assert "调优器的选择" in zh and CHOICE in zh and DEFAULTS in zh and "0.90×" in zh and "改为推荐默认设置" in zh
    assert not english_words(zh), english_words(zh)
    assert len(v.because) == len(v.texts("because", "zh"))
    chained = v.defaults_instead
    assert chained is not None and chained.speedup == pytest.approx(1.4 / 0.9)
    # the range pairs the intervals' opposite ends: off-vs-choice low ÷ choice-vs-defaults high, and so on
    assert (chained.low, chained.high) == (pytest.approx(1.3 / 0.95), pytest.approx(1.5 / 0.85))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_headline_is_the_defaults_speedup_named_as_chained(lang: str) -> None:
    facts = ENABLE | SLOWER
    head = headline(decide(facts), facts)
    assert head.source == "chained" and head.speedup == pytest.approx(1.4 / 0.9)
    line = speedup_line(head, lang)
    assert "1.56×" in line and "1.37× – 1.76×" in line and "95%" in line
    assert ("chained, not measured directly" if lang == "en" else "并非直接测得") in line
    assert ("Measured speedup" if lang == "en" else "实测加速") not in line
    assert lang == "en" or not english_words(line), english_words(line)


def test_an_interval_that_includes_one_keeps_the_choice() -> None:
    v = decide(ENABLE | SLOWER | {"ab.vs_default_speedup": 0.97, "ab.vs_default_ci_high": 1.02})
    assert v.verdict == "ENABLE" and v.flags is not None and v.flags.command == f"{OWN} {CHOICE}"
    assert v.defaults_instead is None and not any("tuner's choice" in b for b in v.because)
    assert headline(v, ENABLE | SLOWER).source == "measured"


def test_without_a_comparison_nothing_changes() -> None:
    plain = decide(ENABLE)
    assert plain.flags is not None and plain.flags.command == f"{OWN} {CHOICE}" and plain.defaults_instead is None
    for partial in ({"ab.vs_default_speedup": 0.9, "ab.vs_default_argv": DEFAULTS},  # fewer than two pairs
                    {k: v for k, v in SLOWER.items() if k != "ab.vs_default_argv"}):
        v = decide(ENABLE | partial)
        assert (v.flags, v.because, v.defaults_instead) == (plain.flags, plain.because, None)


def test_only_where_the_flags_are_the_measured_ones() -> None:
    """vLLM and the other engines write their flags from the method, not from `spec.argv`: no switch to claim."""
    v = decide(ENABLE | SLOWER | {"engine.kind": "vllm"})
    assert v.defaults_instead is None and not any("tuner's choice" in b for b in v.because)


def test_inconclusive_offers_the_defaults_to_try_when_they_chain_faster() -> None:
    # the choice 0.98× against off (nothing faster to try), the defaults 1/0.85 faster than it: ≈ 1.15× chained
    facts = ENABLE | SLOWER | {"ab.speedup": 0.98, "ab.ci_low": 0.9, "ab.ci_high": 1.06,
                               "ab.vs_default_speedup": 0.85, "ab.vs_default_ci_low": 0.8,
                               "ab.vs_default_ci_high": 0.9}
    v = decide(facts)
    assert v.verdict == "INCONCLUSIVE" and v.flags is None
    assert v.try_flags is not None and v.try_flags.command == f"{OWN} {DEFAULTS}"
    assert v.defaults_instead is not None and "defaults are recommended instead" in v.because[-1]
    assert decide({k: val for k, val in facts.items() if not k.startswith("ab.vs_default")}).try_flags is None


def test_skip_recommends_nothing_and_claims_nothing() -> None:
    v = decide(ENABLE | SLOWER | {"ab.speedup": 0.8, "ab.ci_low": 0.75, "ab.ci_high": 0.85})
    assert v.verdict == "SKIP" and v.flags is None and v.try_flags is None and v.defaults_instead is None
    assert not any("tuner's choice" in b for b in v.because)


def test_the_verdict_json_carries_it_and_reads_back() -> None:
    facts = ENABLE | SLOWER
    verdict = decide(facts)
    data = json.loads(json.dumps(encode(saved_verdict(verdict, facts))))
    assert data["defaults_instead"]["default_argv"] == DEFAULTS and data["flags"]["command"] == f"{OWN} {DEFAULTS}"
    again = verdict_from_json(data)
    assert again.defaults_instead == verdict.defaults_instead
    assert verdict_to_json(again) == json.loads(json.dumps(encode(verdict_to_json(verdict))))
    assert headline(again, facts) == headline(verdict, facts)  # a saved verdict's report says the same
    assert verdict_from_json({**data, "defaults_instead": {"ratio": "x"}}).defaults_instead is None


@pytest.mark.parametrize("fmt", ["docker", "systemd"])
def test_the_deploy_forms_carry_the_defaults(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    path = _write(tmp_path, ENABLE | SLOWER)
    assert main(["decide", "--facts", str(path), "--format-flags", fmt, "--model-path", "/models/m.gguf"]) == 0
    captured = capsys.readouterr()
    assert "--spec-type ngram-mod" in captured.out and "--spec-ngram-mod-n-match" not in captured.out
    assert "-c 4096" in captured.out
    assert "defaults are recommended instead" in captured.err  # the reason goes with it, on stderr


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_decide_prints_the_defaults_the_reason_and_the_chained_headline(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str) -> None:
    assert main(["decide", "--facts", str(_write(tmp_path, ENABLE | SLOWER)), "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert f"{OWN} {DEFAULTS}" in out and f"{OWN} {CHOICE}" not in out
    assert ("chained, not measured directly" if lang == "en" else "并非直接测得") in out
    assert ("defaults are recommended instead" if lang == "en" else "改为推荐默认设置") in out


def _run_slower_than_defaults() -> Evidence:
    """The sample run whose A/B measured the tuner's choice, then that choice against the defaults: slower."""
    run = sample_run()
    ab = run.steps["ab"].evidence
    assert isinstance(ab, ABEvidence)
    vs = VsDefault(default_argv=("--spec-type", "ngram-mod"), chosen_argv=tuple(CHOICE.split()), n_pairs=20,
                   speedup=0.9, ci_low=0.85, ci_high=0.95)
    steps = {**run.steps, "ab": dataclasses.replace(run.steps["ab"], evidence=dataclasses.replace(
        ab, on_argv=tuple(CHOICE.split()), vs_default=vs))}
    return dataclasses.replace(run, steps=steps)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_run_from_evidence_recommends_the_defaults_in_its_report(tmp_path: Path, lang: str) -> None:
    run = _run_slower_than_defaults()
    facts = facts_from_evidence(run)
    assert facts["ab.vs_default_argv"] == DEFAULTS and facts["spec.argv"] == CHOICE
    verdict = decide(facts)
    shown = verdict.flags or verdict.try_flags
    assert shown is not None and shown.command.endswith(DEFAULTS) and "n-match" not in shown.command
    report = build_report(run, facts, verdict)
    assert report.headline.source == "chained"
    md = render_markdown(report, lang)
    assert md_text(speedup_line(report.headline, lang)) in md
    assert md_text(verdict.texts("because", lang)[-1]) in md
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report_json(report)), encoding="utf-8")
    assert load_report(path).headline == report.headline  # "chained" reads back (report schema 3)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tuner_section_says_the_choice_is_slower(lang: str) -> None:
    section = TunerSection(method="ngram-mod", k=16, applied=True, vs_default_speedup=0.9, vs_default_ci_low=0.85,
                           vs_default_ci_high=0.95, default_command=DEFAULTS)
    said = " ".join(tuner_sentences(section, lang))
    assert ("measurably slower than the defaults" if lang == "en" else "明显慢于默认设置") in said
    same = " ".join(tuner_sentences(dataclasses.replace(section, vs_default_ci_high=1.02), lang))
    assert ("not measurably faster" if lang == "en" else "并不比默认设置明显更快") in same
    assert ("measurably slower" if lang == "en" else "明显慢于") not in same
