"""The evidence schema: schema-1 run folders still load, re-decide and re-report; the doc is current; the codec
names bad values instead of crashing; a round trip changes nothing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.evidence import doc
from advisor.evidence.codec import EvidenceError, decode
from advisor.evidence.io import evidence_from_json, load_evidence, to_json_text
from advisor.evidence.schema import SCHEMA_VERSION, Evidence
from advisor.evidence.steps import ABEvidence
from tests.paths import FIXTURES, REPO

SCHEMA_1_RUN = FIXTURES / "runs" / "demo-quick"


def test_doc_is_generated_from_the_schema() -> None:
    assert (REPO / "docs" / "evidence.md").read_text(encoding="utf-8") == doc.render(), (
        "docs/evidence.md is stale: run `python -m advisor.evidence.doc > docs/evidence.md`")


def test_schema_1_run_loads_with_every_step() -> None:
    data = json.loads((SCHEMA_1_RUN / "evidence.json").read_text(encoding="utf-8"))
    assert data["schema_version"] == 1
    ev = load_evidence(SCHEMA_1_RUN)
    assert ev.schema_version == SCHEMA_VERSION
    assert set(ev.steps) == {"preflight", "baseline", "acceptance", "verify", "batch", "ab"}
    assert ev.baseline is not None and ev.baseline.decode_tok_s == data["steps"]["baseline"]["evidence"]["decode_tok_s"]
    assert ev.acceptance is not None and ev.acceptance.canary is not None
    assert ev.environment.binary is not None and ev.environment.model is not None


def test_schema_1_run_is_redecided_and_rereported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decide", str(SCHEMA_1_RUN), "--json"]) in (0,)
    verdict = json.loads(capsys.readouterr().out)
    saved = json.loads((SCHEMA_1_RUN / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["verdict"] == saved["verdict"]
    for fmt in ("html", "md", "json"):
        out = tmp_path / f"r.{fmt}"
        assert main(["report", str(SCHEMA_1_RUN), "--format", fmt, "-o", str(out)]) == 0
        assert out.stat().st_size > 1000


def test_round_trip_keeps_everything() -> None:
    ev = load_evidence(SCHEMA_1_RUN)
    text = to_json_text(ev)
    again = evidence_from_json(json.loads(text))
    assert to_json_text(again) == text


@pytest.mark.parametrize(("path", "value", "message"), [
    (("environment", "gpu", "gpus"), 5, "environment.gpu.gpus: expected a list"),
    (("steps", "ab", "evidence", "ci_low"), "x", "steps.ab.evidence.ci_low: expected"),
    (("steps", "ab", "status"), "finished", "steps.ab.status: expected one of"),
    (("config", "budget"), [], "config.budget: expected an object"),
])
def test_malformed_evidence_names_the_value(path: tuple[str, ...], value: object, message: str) -> None:
    data = json.loads((SCHEMA_1_RUN / "evidence.json").read_text(encoding="utf-8"))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(EvidenceError, match=message.replace("(", r"\(")):
        evidence_from_json(data)


def test_nan_in_a_plain_float_round_trips_as_null() -> None:
    ab = decode(ABEvidence, {"decision": "INCONCLUSIVE", "pairs": [
        {"prompt_id": "p", "off_ms_per_token": None, "on_ms_per_token": 10.0, "on_first": True,
         "off_error": "refused"}]})
    assert math.isnan(ab.pairs[0].off_ms_per_token)
    assert "NaN" not in to_json_text(Evidence(steps={}))


def test_not_evidence_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "evidence.json").write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(EvidenceError, match="no schema_version"):
        load_evidence(tmp_path)
    (tmp_path / "evidence.json").write_text('{"schema_version": 99}', encoding="utf-8")
    with pytest.raises(EvidenceError, match="schema 99"):
        load_evidence(tmp_path)
