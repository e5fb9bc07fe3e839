"""`decide --list-facts` and docs/facts.md from one table (issue 27 item 8), the assumptions line and the
short trace. Regenerate the doc with `spec-advisor decide --list-facts --markdown > docs/facts.md`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.facts.listing import list_markdown
from advisor.facts.meanings_zh import MEANINGS_ZH
from advisor.facts.specs import FACT_SPECS
from advisor.paths import CONFIG_DIR_ENV
from tests.paths import FIXTURES, REPO

DOC = REPO / "docs" / "facts.md"
PRIORS_ONLY = FIXTURES / "facts" / "acceptance_only.json"


@pytest.fixture(autouse=True)
def _no_user_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "config"))


def test_docs_facts_md_is_generated_from_the_table() -> None:
    assert DOC.read_text(encoding="utf-8") == list_markdown(), (
        "docs/facts.md is stale: run spec-advisor decide --list-facts --markdown > docs/facts.md")


def test_every_fact_has_a_chinese_meaning() -> None:
    assert sorted(set(FACT_SPECS) - set(MEANINGS_ZH)) == []
    assert sorted(set(MEANINGS_ZH) - set(FACT_SPECS)) == []  # no meaning left for a fact that is gone


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_list_facts_prints_every_name_with_its_unit(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    assert main(["decide", "--list-facts", "--lang", lang]) == 0
    lines = capsys.readouterr().out.splitlines()
    for spec in FACT_SPECS.values():
        row = next(line for line in lines if line.split()[:1] == [spec.name])
        assert row.split()[1] == spec.type
        meaning = MEANINGS_ZH[spec.name] if lang == "zh" else spec.meaning
        assert row.endswith(meaning)
        if spec.unit in ("GB/s", "tok/s", "GiB", "%", "0..1"):  # the same in both languages
            assert f"  {spec.unit}  " in row


def test_list_facts_json_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decide", "--list-facts", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [f["name"] for f in data["facts"]] == list(FACT_SPECS)
    assert all(f["meaning"] and f["meaning_zh"] for f in data["facts"])
    assert main(["decide", "--list-facts", "--markdown"]) == 0
    assert capsys.readouterr().out == list_markdown()


def test_markdown_alone_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decide", "--facts", str(PRIORS_ONLY), "--markdown"]) == 2
    assert "--list-facts" in capsys.readouterr().err


def test_an_unknown_fact_points_at_the_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"acceptance.rat": 0.7}), encoding="utf-8")
    assert main(["decide", "--facts", str(bad)]) == 2
    assert "--list-facts" in capsys.readouterr().err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_priors_are_one_assumptions_line_and_the_trace_is_short(
        capsys: pytest.CaptureFixture[str], lang: str) -> None:
    assert main(["decide", "--facts", str(PRIORS_ONLY), "--lang", lang]) == 0
    short = capsys.readouterr().out.splitlines()
    assumed = [line for line in short if "RTX 4090" in line]
    assert len(assumed) == 1 and "8B" in assumed[0]  # every prior on one line, named as an assumption
    assert assumed[0].startswith("对未给出的事实所作的假设" if lang == "zh" else "Assumed for facts not given")
    rows = [line for line in short if line.startswith("  [")]
    assert rows and all("→" in line for line in rows)  # only the checks that decided
    assert main(["decide", "--facts", str(PRIORS_ONLY), "--lang", lang, "--trace"]) == 0
    full = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  [")]
    assert len(full) > 3 * len(rows)
    assert main(["decide", "--facts", str(PRIORS_ONLY), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any("RTX 4090" in a for a in data["assumptions"])
    assert not any("RTX 4090" in w for w in data["warnings"])  # said once, as an assumption
    assert len(data["trace"]) == len(full)  # the JSON keeps every check
