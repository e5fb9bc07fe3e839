"""Settings always (issue 27 item 3): an INCONCLUSIVE verdict offers the measured settings, "measured, not
confirmed — try", in the text, JSON and every --format-flags form; ENABLE from facts without a dialect writes
the current llama.cpp flags and says so; docker and compose follow the probed hardware.

Golden files: SPEC_ADVISOR_UPDATE_GOLDEN=1 regenerates tests/fixtures/deploy/try.*.txt (review the diff).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.decide.verdict import decide
from advisor.deploy.base import FORMATS
from advisor.deploy.render import render_deploy
from advisor.paths import CONFIG_DIR_ENV
from advisor.recommend.llamacpp import CURRENT_DIALECT_NOTE
from tests.paths import FIXTURES

FACTS = FIXTURES / "facts" / "inconclusive_measured.json"
GOLDEN = FIXTURES / "deploy"
MEASURED = "--spec-type ngram-mod --spec-ngram-mod-n-max 8 --spec-ngram-mod-n-min 8"


@pytest.fixture(autouse=True)
def _no_user_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "config"))


def _write(tmp_path: Path, **changes: object) -> Path:
    data = {**json.loads(FACTS.read_text(encoding="utf-8")), **changes}
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_inconclusive_json_offers_the_measured_settings_to_try(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decide", "--facts", str(FACTS), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "INCONCLUSIVE" and data["flags"] is None  # nothing is confirmed
    assert data["try_flags"]["command"] == MEASURED and data["try_flags"]["engine"] == "llama.cpp"
    # outputs that differ and a failed guard; the baseline's 14% spread no longer withholds (the paired A/B's
    # interval carries random noise; only drift, order and arm outliers could bias it)
    assert [b["code"] for b in data["blocking"]] == ["measurement-validity/outputs-differ",
                                                     "measurement-validity/ab-guard-failed"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_inconclusive_text_says_measured_not_confirmed(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    assert main(["decide", "--facts", str(FACTS), "--lang", lang]) == 0
    out = capsys.readouterr().out
    label = "已测量、未确认——可以试试" if lang == "zh" else "Measured, not confirmed — try"
    assert f"{label}" in out and MEASURED in out


def _commands(text: str) -> str:
    """The text without its comment lines (the CPU form's comment names the CUDA image on purpose)."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_carries_the_settings_to_try(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    v = decide(json.loads(FACTS.read_text(encoding="utf-8")))
    text = render_deploy(v.try_flags, fmt, model_path="/models/m.gguf", verdict=v.verdict, tentative=True, gpu=False)
    path = GOLDEN / f"try.{fmt}.txt"
    if os.environ.get("SPEC_ADVISOR_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs; regenerate if intended"
    assert "measured, not confirmed — try" in text and "--spec-ngram-mod-n-max" in text
    assert "drop any --spec-" not in text  # not the "leave it off" form
    assert "--gpus" not in _commands(text) and "nvidia" not in text  # the probed machine has no GPU
    if fmt != "plain":  # the CLI writes the same form from the facts file (plain is the verdict's own text)
        assert main(["decide", "--facts", str(FACTS), "--format-flags", fmt, "--model-path", "/models/m.gguf"]) == 0
        assert capsys.readouterr().out == text


@pytest.mark.parametrize("fmt", ["docker", "compose"])
def test_container_forms_follow_the_probed_hardware(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    assert main(["decide", "--facts", str(_write(tmp_path, **{"gpu.count": 1})), "--format-flags", fmt]) == 0
    gpu = _commands(capsys.readouterr().out)
    assert "server-cuda" in gpu and ("--gpus" in gpu if fmt == "docker" else "nvidia" in gpu)
    assert main(["decide", "--facts", str(_write(tmp_path, **{"gpu.count": 0})), "--format-flags", fmt]) == 0
    cpu = _commands(capsys.readouterr().out)
    assert "server-cuda" not in cpu and "--gpus" not in cpu and "nvidia" not in cpu


def test_slower_settings_are_not_offered(tmp_path: Path) -> None:
    facts = json.loads(FACTS.read_text(encoding="utf-8"))
    facts.update({"ab.speedup": 0.97, "ab.ci_low": 0.9, "ab.ci_high": 1.04})
    v = decide(facts)
    assert v.verdict == "INCONCLUSIVE" and v.try_flags is None


def test_enable_from_facts_without_a_dialect_writes_current_flags() -> None:
    facts = {"engine.kind": "llama.cpp", "spec.method": "ngram-mod", "spec.draft_max": 8, "gpu.count": 1,
             "ab.speedup": 1.4, "ab.ci_low": 1.3, "ab.ci_high": 1.5, "ab.n_prompts": 40, "ab.guards_passed": True,
             "baseline.cv_pct": 2.0, "ab.early_divergence_low": 0.0, "workload.concurrency": 1,
             "measurement.pool_reset": True, "acceptance.repeat_inflation": 1.01}
    v = decide(facts)
    assert v.verdict == "ENABLE" and v.flags is not None
    assert v.flags.command == MEASURED
    assert CURRENT_DIALECT_NOTE in v.flags.notes  # said so: the build's own flags were not known
