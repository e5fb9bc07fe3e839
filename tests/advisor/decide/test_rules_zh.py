"""Chinese beside English: every built-in rule text has its `_zh` twin with the same placeholders, the
verdict carries both languages, and the CLI picks the reader's language (flag, then locale)."""

from __future__ import annotations

import json
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.decide import EXIT_CODES
from advisor.cli.main import main
from advisor.decide.rules import RuleError, load_rules, parse_rule_file, untranslated
from advisor.decide.text import placeholders
from advisor.decide.verdict import decide
from advisor.events import Progress
from advisor.lang import from_locale_names, system_language
from advisor.report.strings import progress_text, verdict_lines
from advisor.report.tree import VerdictLines
from advisor.report.verdict_view import report_verdict
from advisor.text import strings_cli, strings_cluster, strings_progress
from advisor.text.message import Message, msg
from tests.advisor.decide.test_rules_cases import ALL_CASES, _flatten
from tests.paths import FIXTURES, REPO

CJK = re.compile(r"[\u4e00-\u9fff]")
RULES = load_rules(overrides=False)


def test_every_built_in_text_has_a_chinese_twin() -> None:
    assert untranslated(RULES) == []
    for rule in RULES.files.values():
        for key in ("question", "what", "why"):
            if getattr(rule, key):
                assert CJK.search(getattr(rule, f"{key}_zh")), f"{rule.id}.{key}_zh is not Chinese"
        for b in rule.branches:
            for key in ("because", "warning"):
                english, zh = getattr(b, key), getattr(b, f"{key}_zh")
                if english:
                    assert CJK.search(zh), f"{rule.id}/{b.id}.{key}_zh is not Chinese"
                    assert set(placeholders(zh)) == set(placeholders(english))


RULE = """schema = 1
id = "x"
question = "Q?"
[[branch]]
id = "only"
default = true
verdict = "SKIP"
because = "Measured {ab.speedup:.2f}×."
"""


def test_a_translation_must_name_the_same_numbers() -> None:
    bad = RULE + 'because_zh = "实测 {ab.ci_low:.2f}×。"\n'
    with pytest.raises(RuleError, match="same placeholders"):
        parse_rule_file(bad, "x.toml", RULES.policy)
    with pytest.raises(RuleError, match="without an English"):
        parse_rule_file(RULE + 'warning_zh = "警告"\n', "x.toml", RULES.policy)
    good = parse_rule_file(RULE + 'because_zh = "实测 {ab.speedup:.2f}×。"\n', "x.toml", RULES.policy)
    assert good.branches[0].because_zh == "实测 {ab.speedup:.2f}×。"


def test_an_override_without_chinese_reads_in_english(tmp_path: Path) -> None:
    rule = parse_rule_file(RULE, "x.toml", RULES.policy)
    assert rule.branches[0].because_zh == "" and rule.text("question", "zh") == "Q?"


@pytest.mark.parametrize(("rule_id", "case"), ALL_CASES, ids=[f"{r}:{c['name']}" for r, c in ALL_CASES])
def test_every_verdict_reads_in_chinese(rule_id: str, case: dict[str, object]) -> None:
    facts = _flatten(case.get("facts", {}))  # type: ignore[arg-type]
    v = report_verdict(decide(facts, rules=RULES))
    keys: tuple[VerdictLines, ...] = ("because", "warnings", "caveats", "alternatives")
    for key in keys:
        english, zh = list(getattr(v, key)), list(getattr(v, f"{key}_zh"))
        assert len(zh) == len(english)
        assert all(CJK.search(line) for line in zh), zh
        assert verdict_lines(v, key, "zh") == zh and verdict_lines(v, key, "en") == english


@pytest.mark.parametrize("table", [strings_cli, strings_progress, strings_cluster], ids=["cli", "progress", "cluster"])
def test_cli_tables_have_the_same_keys_and_placeholders(table: Any) -> None:
    assert table.EN.keys() == table.ZH.keys()
    for key, english in table.EN.items():
        assert set(re.findall(r"{(\w+)}", english)) == set(re.findall(r"{(\w+)}", table.ZH[key])), key


def test_every_unit_a_step_names_has_its_sentence() -> None:
    # each `Progress.unit(step, done, total, "<detail>", name=…)` in the steps: the key and its placeholders
    steps = REPO / "advisor" / "steps"
    calls = re.findall(r'Progress\.unit\((?:[^,]+,){3}\s*"(\w+)"((?:[^()]|\([^()]*\))*)\)', "".join(
        f.read_text(encoding="utf-8") for f in sorted(steps.glob("*.py"))))
    assert len(calls) >= 12
    for detail, rest in calls:
        english = strings_progress.EN.get(f"progress.{detail}")
        assert english is not None, detail
        assert set(re.findall(r"(\w+)=", rest)) == set(re.findall(r"{(\w+)}", english)), detail


def test_a_unit_reads_in_chinese_with_its_words_translated() -> None:
    pair = Progress.unit("ab", 3, 20, "ab_pair", pair=3, decision="CONTINUE")
    assert progress_text("en", pair) == "pair 3: continue"
    assert progress_text("zh", pair) == "第 3 对：继续"
    prompt = Progress.unit("acceptance", 1, 9, "acceptance_prompt", category="code", prompt="code-01")
    assert progress_text("zh", prompt) == "编写代码 · code-01"
    assert progress_text("zh", Progress("baseline", 1, 3)) == ""


@pytest.mark.parametrize(("names", "lang"), [
    (["zh_CN.UTF-8"], "zh"), (["zh_TW"], "zh"), (["zh-Hans-CN"], "zh"), (["en_GB.UTF-8"], "en"),
    (["de_DE"], "en"), (["C.UTF-8", "zh_CN.UTF-8"], "zh"), (["", "POSIX"], "en"), (["zh_CN:en_US"], "zh"),
])
def test_locale_names(names: list[str], lang: str) -> None:
    assert from_locale_names(names) == lang


def test_system_language_follows_the_posix_order() -> None:
    assert system_language({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert system_language({"LANG": "zh_CN.UTF-8", "LC_ALL": "en_US.UTF-8"}) == "en"
    assert system_language({"LC_MESSAGES": "zh_CN", "LANG": "en_US"}) == "zh"
    assert system_language({"LANG": "en_US", "SPEC_ADVISOR_LANG": "zh"}) == "zh"


FACTS = {"ab.ci_low": 0.85, "ab.ci_high": 1.01, "ab.speedup": 0.93, "ab.n_prompts": 30}


def _facts_file(tmp_path: Path, facts: dict[str, object]) -> str:
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(facts), encoding="utf-8")
    return str(path)


def test_decide_speaks_the_locale_and_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = _facts_file(tmp_path, FACTS)
    monkeypatch.delenv("SPEC_ADVISOR_LANG")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    assert main(["decide", "--facts", path]) == 0
    out = capsys.readouterr().out
    assert "结论：SKIP（保持关闭）" in out and "即使 95% 置信区间的上限" in out and "because" not in out
    assert main(["decide", "--facts", path, "--lang", "en"]) == 0
    assert "even the top of the 95% CI" in capsys.readouterr().out


@pytest.mark.parametrize(("facts", "verdict"), [
    (FACTS, "SKIP"), ({"ab.ci_low": 0.95, "ab.ci_high": 1.07, "ab.speedup": 1.01}, "INCONCLUSIVE"),
])
def test_decide_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str], facts: dict[str, object],
                          verdict: str) -> None:
    path = _facts_file(tmp_path, facts)
    assert main(["decide", "--facts", path, "--json"]) == 0  # without the option scripts keep exit 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == verdict and data["schema_version"] == 1
    assert main(["decide", "--facts", path, "--exit-code"]) == EXIT_CODES[verdict]
    assert set(EXIT_CODES.values()) == {0, 10, 20}


def test_every_json_output_has_one_style(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decide", "--facts", _facts_file(tmp_path, FACTS), "--json"]) == 0
    decided = capsys.readouterr().out
    assert main(["history", "--json"]) == 0
    history = capsys.readouterr().out
    for out in (decided, history):
        assert out.startswith('{\n  "schema_version": 1,') and out.endswith("}\n")
    assert "\\u" not in decided and CJK.search(decided)  # zh texts, unescaped
    assert json.loads(history)["runs"] == []


def test_rules_readme_documents_the_scheme() -> None:
    readme = resources.files("rules").joinpath("README.md").read_text(encoding="utf-8")
    assert "`KEY_zh`" in readme
    for file in resources.files("rules").iterdir():
        if file.name.endswith(".toml") and file.name != "policy.toml":
            tomllib.loads(file.read_text(encoding="utf-8"))  # still valid TOML after the additions


@pytest.mark.parametrize(("message", "english"), [
    (msg("warn.noisy_repeats", cv=45.0), "decode speed of the same prompt varied by 45% between repeats"),
    (msg("warn.low_acceptance", rate=0.0), "only 0% of drafted tokens were accepted on these prompts"),
    (msg("detail.load_busy", load=9.7, cores=2),
     "1-minute load 9.7 on 2 logical cores: other work is running, timings will be noisy"),
    (msg("warn.trap_inflation", x=12.707), "repeating a prompt made speculation 12.71× faster than its first run: the "
     "engine reuses earlier outputs, so benchmarks with repeated prompts overstate the speedup"),
    (msg("detail.min_pairs", n=12, need=20), "12 complete pairs (ENABLE needs ≥ 20)"),
    (msg("detail.drift", x=0.125, t=4.1, crit=2.71, limit=0.1),
     "OFF ms/token changed +12.5% over the pairs: slope t +4.10 (flag when beyond ±2.71 and the change beyond ±10%)"),
    (msg("detail.drift_effect", x=0.125, t=4.1, crit=2.71, limit=0.1, effect=-0.2, effect_t=-2.5, effect_crit=1.67),
     "OFF ms/token changed +12.5% over the pairs: slope t +4.10, and the speedup -20.0%: slope t -2.50 (flag when "
     "the first is beyond ±2.71 with a change beyond ±10% and the second beyond ±1.67)"),
    (msg("detail.order_interaction", x=0.032, t=2.9, crit=2.43, alpha=0.01),
     "pairs that ran ON second were +3.2% faster than ON-first ones: Welch t +2.90 (flag above 2.43, one-sided "
     "α = 0.01)"),
    (msg("detail.arm_outliers", n=2, x=1.013, t=1.2, bar=1.02, need=2.35),
     "2 pairs with an outlier in one arm only; without them the speedup is 1.013× at t +1.20 against 1.02 (need "
     "above 2.35 when there are any)"),
    (msg("detail.no_gpu", why="nvidia-smi not found"), "no GPU (nvidia-smi not found)"),
])
def test_step_warnings_read_in_chinese_with_their_numbers(message: Message, english: str) -> None:
    from advisor.report.strings import step_warning

    zh = step_warning("zh", message)
    assert CJK.search(zh) and not re.search(r"[a-z]{4,} [a-z]{4,}", zh.replace("nvidia-smi not found", ""))
    assert sorted(re.findall(r"\d+(?:\.\d+)?", zh)) == sorted(re.findall(r"\d+(?:\.\d+)?", english))
    assert step_warning("en", message) == english
    assert step_warning("zh", "the engine said: boom") == "the engine said: boom"


def test_rules_tree_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--tree", "--lang", "zh", "--no-overrides"]) == 0
    out = capsys.readouterr().out
    assert "在这台机器和这个工作负载上，是否应该开启推测解码？" in out and "分支（按顺序，首个匹配生效）" in out
    assert "says:" not in out and "otherwise" not in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_check_summary_shows_the_results_table(lang: str) -> None:
    import io

    from advisor.cli.summary import print_summary
    from advisor.evidence.io import load_evidence
    from advisor.facts.from_evidence import facts_from_evidence
    from advisor.run.done import SessionDone

    run = FIXTURES / "runs" / "demo-quick"
    evidence = load_evidence(run)
    verdict = decide(facts_from_evidence(evidence))
    out = io.StringIO()
    print_summary(evidence, SessionDone("aborted", str(run), verdict), out, lang)
    text = out.getvalue()
    head = {"en": "Decode tok/s (mean ± sd)", "zh": "解码 tok/s（均值 ± 标准差）"}[lang]
    assert head in text and re.search(r"\d+\.\d ± \d+\.\d", text)
    assert ("结论：INCONCLUSIVE（暂无定论）" in text) == (lang == "zh")
    for line in verdict_lines(report_verdict(verdict), "because", lang):
        assert line in text


def test_alternatives_read_in_chinese() -> None:
    facts = {"engine.kind": "llama.cpp", "model.moe": False, "model.total_params_b": 32.0, "model.quant": "F16",
             "gpu.count": 2, **FACTS}
    v = decide(facts, rules=RULES)
    assert v.verdict == "SKIP", v.because
    assert len(v.alternatives) >= 4 and len(v.translations["zh"]["alternatives"]) == len(v.alternatives)
    assert all(CJK.search(a) for a in v.texts("alternatives", "zh"))
