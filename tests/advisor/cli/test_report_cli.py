"""`spec-advisor report` and `spec-advisor history` through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.history.schema import default_db_path
from advisor.history.store import RunStore
from advisor.report.model import load_report
from tests.report_sample import sample_evidence, sample_facts, sample_verdict


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "evidence.json").write_text(json.dumps(sample_evidence()), encoding="utf-8")
    (folder / "verdict.json").write_text(json.dumps(sample_verdict("SKIP")), encoding="utf-8")
    return folder


def test_report_prefers_saved_verdict(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["report", str(run_dir), "-o", str(out)]) == 0  # format from the suffix
    report = load_report(out)
    assert report.verdict.verdict == "SKIP" and report.run_id == "20261129T120000Z-abcdef12"
    assert (out.stat().st_mode & 0o777) == 0o600
    html = tmp_path / "r.html"
    assert main(["report", str(out), "--format", "html", "--lang", "zh", "-o", str(html)]) == 0  # re-render
    assert "保持关闭" in html.read_text(encoding="utf-8")


def test_report_md_to_stdout(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(run_dir), "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("# Speculative decoding report")


def test_report_user_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing"), "--format", "md"]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "not valid JSON" in err and "Traceback" not in err


def test_report_from_facts(tmp_path: Path) -> None:
    pytest.importorskip("advisor.decide.verdict", reason="the decision engine is built in parallel")
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps(sample_facts()), encoding="utf-8")
    out = tmp_path / "r.md"
    assert main(["report", "--facts", str(facts), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("# Speculative decoding report")


def test_history_list_and_compare(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history"]) == 0
    assert "No runs recorded yet" in capsys.readouterr().out
    env = {"engine": {"kind": "llama.cpp", "version": "b1"}, "gpu": {"name": "RTX 3090"}}
    with RunStore(default_db_path()) as store:  # SPEC_ADVISOR_DATA_DIR points into tmp (conftest)
        a = store.begin_run({}, env)
        store.finish_run(a, "complete", {"verdict": "ENABLE"}, {"baseline.decode_tok_s": 100.0})
        b = store.begin_run({}, env)
        store.finish_run(b, "complete", {"verdict": "ENABLE"}, {"baseline.decode_tok_s": 80.0})
    assert main(["history", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert a in out and b in out and "llama.cpp b1" in out and "RTX 3090" in out
    assert main(["history", "--compare", a, b]) == 0
    assert "▼ regression" in capsys.readouterr().out
    assert main(["history", "--compare", a, b, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["schema_version"] == 1
    [diff] = printed["differences"]
    assert diff["kind"] == "regression" and diff["fact"] == "baseline.decode_tok_s"
    assert main(["history", "--compare", a, "nope"]) == 2
