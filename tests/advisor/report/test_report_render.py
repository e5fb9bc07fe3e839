"""Report model and renderers: content checks in both languages, JSON round trips, schema versions."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from advisor.decide.verdict_json import verdict_from_json
from advisor.report.model import REPORT_SCHEMA_VERSION, ReportSchemaError, build_report, load_report, report_json
from advisor.report.render_html import CSP, render_html
from advisor.report.render_json import render_json
from advisor.report.render_markdown import render_markdown
from advisor.report.svg import nice_ticks
from advisor.report.tree import BarChart, Flag, Headline, LineChart, Report
from advisor.text import strings_en, strings_zh
from tests.report_sample import run_from, sample_decision, sample_evidence, sample_facts, sample_run

CREATED = "2026-11-29T12:30:00Z"


@pytest.fixture()
def report() -> Report:
    return build_report(sample_run(), sample_facts(), sample_decision(), created_utc=CREATED)


class _DataBlock(HTMLParser):
    """Collects the embedded report JSON and the tags used."""

    def __init__(self) -> None:
        super().__init__()
        self.data: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self._in = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = tag == "script" and dict(attrs).get("id") == "report-data"

    def handle_endtag(self, tag: str) -> None:
        self._in = False

    def handle_data(self, data: str) -> None:
        if self._in:
            self.data.append(data)


def _embedded(html: str) -> tuple[Any, _DataBlock]:
    parser = _DataBlock()
    parser.feed(html)
    return json.loads("".join(parser.data)), parser


def test_string_tables_match() -> None:
    assert strings_en.STRINGS.keys() == strings_zh.STRINGS.keys()
    for key, en in strings_en.STRINGS.items():
        fields = set(re.findall(r"{(\w+)}", en))
        assert fields == set(re.findall(r"{(\w+)}", strings_zh.STRINGS[key])), key


def test_model_shape(report: Report) -> None:
    assert report.report_schema_version == REPORT_SCHEMA_VERSION
    assert report.run_id == "20261129T120000Z-abcdef12" and report.created_utc == CREATED
    assert report.headline == Headline(source="measured", speedup=1.18, ci_low=1.11, ci_high=1.25, n_prompts=24.0)
    assert [s.id for s in report.steps] == ["baseline", "acceptance", "verify", "batch", "ab"]
    charts = {c.id: c for s in report.steps for c in s.charts}
    assert set(charts) == {"decode", "acceptance", "canary", "verify", "batch", "ab"}
    batch, acceptance, ab, verify = charts["batch"], charts["acceptance"], charts["ab"], charts["verify"]
    assert isinstance(batch, LineChart) and batch.marker_x == 4
    assert isinstance(acceptance, BarChart) and acceptance.categories == ("code", "chat", "json")
    assert isinstance(ab, LineChart) and ab.band is not None
    assert len(ab.series[0].points) == 24 and ab.band.low[0][0] == 5
    assert isinstance(verify, LineChart) and [s.key for s in verify.series] == ["verify_measured", "verify_predicted"]
    env = report.environment
    assert env["engine"]["model"] == "qwen2.5-7b-q4_k_m.gguf"  # folder (with the user name) dropped
    assert "hostname" not in env["host"] and not any("uuid" in k for k in env["gpu"])
    assert env["gpu"]["gpus[0].power_limit_w"] == "n/a (not-supported)"


def test_prompts_left_out_unless_asked(report: Report) -> None:
    text = render_json(report)
    assert "secret prompt number" not in text and "the model said hi" not in text
    assert "write me a sort" not in text and report.includes_prompts is False
    full = build_report(sample_run(), sample_facts(), sample_decision(), include_prompts=True)
    assert "secret prompt number 3" in render_json(full) and full.includes_prompts is True
    assert "prompts and model outputs" in render_markdown(full).lower()


def test_verdict_normalisation_fails_closed() -> None:
    odd = {"verdict": "MAYBE", "flags": {"engine": "llama.cpp", "argv": ["--spec-type", "ngram-mod"],
                                         "steps": [], "notes": ["restart the server"]}}
    r = build_report(None, {}, verdict_from_json(odd))
    assert r.verdict.verdict == "INCONCLUSIVE"
    assert any("MAYBE" in w for w in r.verdict.warnings)
    assert r.verdict.flags == (Flag(engine="llama.cpp", command="--spec-type ngram-mod",
                                    notes=("restart the server",)),)
    assert build_report(None, {}, verdict_from_json({"verdict": "SKIP", "flags": None})).verdict.flags == ()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_markdown(report: Report, lang: str) -> None:
    md = render_markdown(report, lang)
    table = strings_en.STRINGS if lang == "en" else strings_zh.STRINGS
    assert md.startswith(f"# {table['title']}\n")
    assert f"## ✅ ENABLE — {table['verdict.ENABLE']}" in md
    assert "```sh\n# llama.cpp\nllama-server --spec-type ngram-mod --draft-max 8\n```" in md
    assert ("1.18×" in md and "1.11×" in md and "1.25×" in md)
    for heading in ("section.because", "section.warnings", "section.alternatives", "section.trace",
                    "section.steps", "section.environment", "env.gpu", "step.ab"):
        assert table[heading] in md, heading
    assert "| ab-result | clear-win | `ab.ci_low` | `>` | `1.02` | `1.11` |" in md
    assert "NVIDIA GeForce RTX 4090" in md and "`▁" in md  # sparklines for the chart series
    assert table["privacy.excluded"] in md


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_html(report: Report, lang: str) -> None:
    html = render_html(report, lang)
    table = strings_en.STRINGS if lang == "en" else strings_zh.STRINGS
    assert html.startswith("<!doctype html>")
    assert f'<html lang="{"en" if lang == "en" else "zh-CN"}">' in html
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in html
    assert f'<h1 class="verdict">{table["verdict.ENABLE"]}</h1>' in html
    assert '<span class="big">1.18×</span>' in html
    assert "<pre><code>" in html and "llama-server --spec-type ngram-mod --draft-max 8" in html
    assert html.count("<svg ") == 6 and "<polyline" in html and 'class="bar"' in html
    assert table["chart.verify"] in html and table["section.trace"] in html
    # nothing from outside: no URLs, no external loads of any kind
    assert not re.search(r"(?i)(https?:|//[a-z0-9]|src=|href=|@import|url\()", html)
    data, parser = _embedded(html)
    assert data == report_json(report)  # the HTML carries the canonical JSON, unchanged
    assert [t for t, _ in parser.tags].count("script") == 1


def test_json_round_trip(report: Report, tmp_path: Path) -> None:
    text = render_json(report)
    assert json.loads(text) == report_json(report)
    path = tmp_path / "report.json"
    path.write_text(text, encoding="utf-8")
    assert load_report(path) == report


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_schema_1_report_still_renders(report: Report, tmp_path: Path, lang: str) -> None:
    """Schema 1 left out the keys that had no value (a headline's claim, a task row's group, the prompts)."""
    old = report_json(report)
    old["report_schema_version"] = 1
    del old["prompts"]
    old["headline"] = {k: v for k, v in old["headline"].items() if k != "claim"}  # type: ignore[attr-defined]
    for row in old["by_task"]["rows"]:  # type: ignore[index]
        if row["group"] is None:
            del row["group"]
    for step in old["steps"]:  # type: ignore[attr-defined]
        for chart in step["charts"]:
            for series in chart.get("series", []):
                if not series["dots"]:
                    del series["dots"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    loaded = load_report(path)
    assert loaded.report_schema_version == 1 and loaded.prompts is None and loaded.headline == report.headline
    assert render_markdown(loaded, lang) == render_markdown(report, lang)
    assert render_html(loaded, lang).split('<script type="application/json"')[0] == \
        render_html(report, lang).split('<script type="application/json"')[0]


def test_a_damaged_report_is_a_clear_error(report: Report, tmp_path: Path) -> None:
    data = report_json(report)
    data["headline"] = {"speedup": "fast"}
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ReportSchemaError, match=r"headline\.speedup"):
        load_report(path)


def test_newer_schema_is_a_clear_error(report: Report, tmp_path: Path) -> None:
    path = tmp_path / "future.json"
    path.write_text(json.dumps({**report_json(report), "report_schema_version": REPORT_SCHEMA_VERSION + 1,
                                "app_version": "9.0.0"}), encoding="utf-8")
    with pytest.raises(ReportSchemaError, match="newer spec-advisor") as info:
        load_report(path)
    assert "update spec-advisor" in info.value.hint
    path.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(ReportSchemaError, match="not a spec-advisor report"):
        load_report(path)


def test_facts_only_report_renders() -> None:
    r = build_report(None, {"gpu.name": "RTX 3060", "acceptance.rate": 0.4},
                     verdict_from_json({"verdict": "SKIP", "predicted_speedup": 0.93, "prediction_is_prior": True}))
    assert r.headline.source == "prior" and r.environment["gpu"] == {"name": "RTX 3060"}
    md = render_markdown(r)
    # a prior-only expectation is not the headline: it sits below the verdict as what is typical
    assert "Typical for this method: 0.93×" in md and strings_en.STRINGS["speedup.prior"] in md
    assert "0.93×" not in md.split("Typical for this method")[0]
    assert strings_en.STRINGS["step.none"] in md
    assert "Leave it off" in render_html(r)


def test_non_finite_numbers_become_null() -> None:
    r = build_report(None, {"ab.speedup": float("nan")},
                     verdict_from_json({"verdict": "SKIP", "predicted_speedup": float("inf")}))
    assert r.facts["ab.speedup"] is None and r.verdict.predicted_speedup is None
    render_json(r)  # allow_nan=False would raise if any slipped through


def test_nice_ticks() -> None:
    assert nice_ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(118, 123)[0] <= 118 and nice_ticks(118, 123)[-1] >= 123
    assert nice_ticks(5, 5)  # a flat series still gets an axis


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_partial_run_is_marked(lang: str) -> None:
    evidence = run_from({**sample_evidence(), "status": "aborted"})
    r = build_report(evidence, sample_facts(), sample_decision("INCONCLUSIVE"))
    table = strings_en.STRINGS if lang == "en" else strings_zh.STRINGS
    partial = table["run.partial"].format(status=table["status.aborted"])  # the status in the reader's words
    assert partial in render_markdown(r, lang) and partial in render_html(r, lang)
    complete = build_report(sample_run(), sample_facts(), sample_decision())
    assert partial not in render_markdown(complete, lang)
