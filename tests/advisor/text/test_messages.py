"""Warnings, guard details, priors and failure reasons as data (advisor/text/message.py): every template reads in
both languages with every placeholder filled, every key the code names has its template and every template a
user, numbers survive the evidence codec as they were, and a saved run's English-only sentences still load."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path
from string import Formatter

import pytest

from advisor.cli.main import main
from advisor.evidence.codec import decode, encode
from advisor.evidence.io import evidence_from_json, load_evidence, save_evidence
from advisor.evidence.steps import Guard, PreflightEvidence
from advisor.evidence.warnings import StepWarning, WarningCode
from advisor.text import TABLES, strings_messages
from advisor.text.message import PLAIN, Message, fields, joined, msg, render
from tests.paths import FIXTURES, REPO
from tests.report_sample import sample_run
from tests.zh_words import english_words

OLD_RUN = FIXTURES / "runs" / "demo-quick"  # written before messages were data
CJK = re.compile(r"[\u4e00-\u9fff\uff01-\uff5e]")  # Chinese, or its full-width punctuation (msg.join)


def _sample(template: str) -> dict[str, object]:
    """A value for each placeholder: a number where the template formats one, else a word any language keeps."""
    return {name: 1.5 if spec else 3 for _, name, spec, _ in Formatter().parse(template) if name}


def test_every_key_has_both_languages_with_the_same_placeholders() -> None:
    assert strings_messages.EN.keys() == strings_messages.ZH.keys()
    for key, english in strings_messages.EN.items():
        assert fields(english) == fields(strings_messages.ZH[key]), key


@pytest.mark.parametrize("key", sorted(strings_messages.EN))
def test_every_template_renders_in_both_languages(key: str) -> None:
    message = msg(key, **_sample(strings_messages.EN[key]))  # type: ignore[arg-type]
    english, zh = render(message, "en"), render(message, "zh")
    assert "{" not in english and "{" not in zh, (english, zh)
    assert CJK.search(zh), zh
    assert not english_words(zh), (key, english_words(zh))


_KEY = re.compile(r'"((?:warn|detail|assume|stop|fail|choice|msg)\.[\w.{}-]+)"')


def _named_keys() -> set[str]:
    """The message keys the code spells out (an f-string's `{part}` stands for any one word)."""
    tables = REPO / "advisor" / "text" / "strings_messages.py"
    return {key for path in (REPO / "advisor").rglob("*.py") if path != tables
            for key in _KEY.findall(path.read_text(encoding="utf-8"))}


def test_every_key_the_code_names_has_a_template_and_every_template_is_used() -> None:
    named = _named_keys()
    for key in named:
        if "{" not in key:
            assert key in TABLES["en"] and key in TABLES["zh"], key
    patterns = [re.compile(re.sub(r"\\\{[^}]*\\\}", r"[\\w-]+", re.escape(k)) + "$") for k in named]
    unused = [k for k in strings_messages.EN if not any(p.match(k) for p in patterns)
              and k not in strings_messages.SAVED_ONLY]  # kept for runs saved before, listed with the reason
    assert not unused, unused


def test_a_message_survives_the_codec_with_its_types() -> None:
    message = msg("assume.gpu_compute", tflops=2.0, device="RTX 4090", why=msg("assume.why_unknown_gpu", name="X"))
    again = decode(Message, json.loads(json.dumps(encode(message))))
    assert again == message and isinstance(again.values["tflops"], float)
    assert render(again, "en") == "compute 2 TFLOPS (FLOPs per byte of a RTX 4090; 'X' is not in the hardware table)"
    assert decode(Message, encode(msg("warn.cache_miss", n=3))).values["n"] == 3  # an int stays an int


def test_an_undefined_number_reads_back_and_renders_the_same_live_and_saved() -> None:
    """A guard's critical value is inf where the test is undefined (too few pairs in one order): the evidence
    stores it as null, which must read back (it failed a saved A/B) and render as it did live."""
    live = msg("detail.order_interaction", x=0.01, t=0.5, crit=math.inf, alpha=0.05)
    saved = decode(Message, json.loads(json.dumps(encode(live))))
    assert math.isnan(saved.values["crit"])  # type: ignore[arg-type]
    for lang in ("en", "zh"):
        assert render(saved, lang) == render(live, lang) and "—" in render(live, lang)
        assert "inf" not in render(live, lang) and "nan" not in render(saved, lang)


def test_english_is_what_the_steps_always_wrote() -> None:
    assert render(msg("warn.low_acceptance", rate=0.0), "en") == (
        "only 0% of drafted tokens were accepted on these prompts")
    assert render(msg("detail.skew", skew=-0.82, need=-0.6), "en") == "skewness -0.82 (need ≥ -0.6)"
    assert render(msg("detail.load_busy", load=9.7, cores=2), "en") == (
        "1-minute load 9.7 on 2 logical cores: other work is running, timings will be noisy")
    assert render(joined([msg("fail.unnamed"), Message.plain("x")]), "zh") == "失败；x"


def test_plain_text_reads_as_written_in_every_language() -> None:
    said = Message.plain("the engine said: boom")
    assert said.key == PLAIN and render(said, "en") == render(said, "zh") == "the engine said: boom"


def test_an_old_run_with_english_only_sentences_loads() -> None:
    data = json.loads((OLD_RUN / "evidence.json").read_text(encoding="utf-8"))
    saved = [w["message"] for w in data["steps"]["ab"]["warnings"]]
    assert saved and all(isinstance(m, str) for m in saved)  # the file holds plain sentences
    evidence = load_evidence(OLD_RUN)
    loaded = evidence.steps["ab"].warnings
    assert [w.message.text for w in loaded] == saved and all(w.message.key == PLAIN for w in loaded)
    assert [render(w.message, "zh") for w in loaded] == saved  # shown as written, in every language
    pre = evidence.steps["preflight"].evidence
    assert isinstance(pre, PreflightEvidence) and render(pre.guards["spec-off"].detail, "zh") == "speculation off"
    assert evidence.reconciliation is not None
    assert [render(p, "en") for p in evidence.reconciliation.priors] == data["reconciliation"]["priors"]
    data["steps"]["ab"]["reason"] = "the engine stopped answering"  # a reason as the steps wrote it then
    reason = evidence_from_json(data).steps["ab"].reason
    assert reason is not None and reason.key == PLAIN and render(reason, "zh") == "the engine stopped answering"


def test_an_old_run_is_reported_in_both_languages(tmp_path: Path) -> None:
    for lang in ("en", "zh"):
        out = tmp_path / f"r.{lang}.md"
        assert main(["report", str(OLD_RUN), "--format", "md", "--lang", lang, "-o", str(out)]) == 0
        assert "10 complete pairs (ENABLE needs ≥ 20)" in out.read_text(encoding="utf-8")


def test_a_new_run_stores_keys_and_values_and_reads_back(tmp_path: Path) -> None:
    run = sample_run()
    warning = StepWarning(WarningCode.CACHE_MISS, msg("warn.cache_miss", n=4))
    guard = Guard(False, msg("detail.vram_free", free=0.4))
    steps = {**run.steps, "verify": replace(run.steps["verify"], warnings=(warning,)),
             "preflight": replace(run.steps["ab"], evidence=PreflightEvidence(guards={"gpu0-vram-free": guard}))}
    save_evidence(replace(run, steps=steps), tmp_path)
    data = json.loads((tmp_path / "evidence.json").read_text(encoding="utf-8"))
    assert data["steps"]["verify"]["warnings"][0]["message"] == {"key": "warn.cache_miss", "values": {"n": 4},
                                                                  "text": ""}
    again = evidence_from_json(data)
    assert again.steps["verify"].warnings == (warning,)
    pre = again.steps["preflight"].evidence
    assert isinstance(pre, PreflightEvidence) and pre.guards["gpu0-vram-free"] == guard
    assert render(guard.detail, "zh") == "空闲 0.4 GiB"


def test_the_measured_settings_say_which_knobs_are_the_engines_defaults_in_each_language() -> None:
    """The `spec.settings` phrase marks the engine's own defaults; each reader adds what the mark means (the zh
    verdict used to read "(n-match: engine default)")."""
    from advisor.facts.from_evidence import settings_text
    from advisor.text.settings import settings_phrase

    argv = ["--spec-type", "ngram-mod", "--spec-ngram-mod-n-max", "16", "--spec-ngram-mod-n-min", "16"]
    params = {"--spec-ngram-mod-n-max": "16", "--spec-ngram-mod-n-min": "16", "--spec-ngram-mod-n-match": "24"}
    phrase = settings_text(argv, params)
    assert phrase == "ngram-mod: n-max 16, n-min 16, n-match 24†"
    assert settings_phrase(phrase, "en").endswith("(† the engine's own default)")
    zh = settings_phrase(phrase, "zh")
    assert zh.endswith("（† 为引擎自身的默认值）") and not english_words(zh.replace(phrase, ""))
    assert settings_phrase("ngram-mod: n-max 16", "zh") == "ngram-mod: n-max 16"  # nothing marked, no legend
