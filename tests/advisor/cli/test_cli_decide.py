"""`spec-advisor decide` end to end through advisor.cli.main.main."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.paths import CONFIG_DIR_ENV as CONFIG_ENV
from tests.paths import FIXTURES

FACTS = FIXTURES / "facts"


@pytest.fixture(autouse=True)
def _no_user_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "config"))


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["decide", *argv, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


@pytest.mark.parametrize(("fixture", "verdict"), [
    ("dense_enable.json", "ENABLE"), ("moe_ci_around_one.json", "INCONCLUSIVE"),
    ("repeated_trap.json", "INCONCLUSIVE"), ("acceptance_only.json", "INCONCLUSIVE"),
])
def test_decide_json_on_fixtures(capsys: pytest.CaptureFixture[str], fixture: str, verdict: str) -> None:
    data = _json(capsys, "--facts", str(FACTS / fixture))
    assert data["verdict"] == verdict
    if verdict == "ENABLE":
        assert data["flags"]["command"] == (  # type: ignore[index]
            "--spec-type ngram-mod --spec-ngram-mod-n-max 8 --spec-ngram-mod-n-min 8")
    if fixture == "acceptance_only.json":
        assert isinstance(data["predicted_speedup"], float)
        assert data["prediction_is_prior"] is True


def test_decide_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decide", "--facts", str(FACTS / "dense_enable.json")]) == 0
    out = capsys.readouterr().out
    assert "Verdict: ENABLE" in out and "Flags (llama.cpp)" in out and "Trace" in out


def test_decide_from_run_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "evidence.json").write_text(json.dumps({
        "schema_version": 1, "config": {"spec_type": "ngram-mod", "draft_max": 4},
        "steps": {"acceptance": {"status": "done", "evidence": {"rate": 0.7}}}}))
    data = _json(capsys, str(run))
    assert data["verdict"] == "INCONCLUSIVE" and data["predicted_speedup"] is not None


def test_user_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"acceptance.rat": 0.7}))
    assert main(["decide", "--facts", str(bad)]) == 2
    assert "did you mean 'acceptance.rate'" in capsys.readouterr().err
    assert main(["decide", str(tmp_path / "nope")]) == 2
    with pytest.raises(SystemExit) as both:  # argparse rejects --facts together with a run folder
        main(["decide", "--facts", str(FACTS / "dense_enable.json"), str(tmp_path)])
    assert both.value.code == 2


def test_broken_override_rule_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "config" / "rules"
    folder.mkdir(parents=True)
    (folder / "thresholds.toml").write_text("[ab-outcom]\nenable_speedup = 1.1\n")
    assert main(["decide", "--facts", str(FACTS / "dense_enable.json")]) == 2
    assert "did you mean 'ab-outcome'" in capsys.readouterr().err
