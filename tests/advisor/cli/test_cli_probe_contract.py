"""Contract test (documented vLLM formats, not a real vLLM): `spec-advisor probe --engine-url` names vLLM, its
version and model, and reports acceptance rate and mean acceptance length computed from the counters."""

from __future__ import annotations

import json

import pytest

from advisor.cli.main import main
from tests.contract_servers import VLLM_MODEL, serve, vllm_routes


def test_cli_probe_reports_vllm_acceptance_from_counters(capsys: pytest.CaptureFixture[str]) -> None:
    with serve(vllm_routes()) as server:
        assert main(["probe", "--engine-url", server.url, "--json", "--no-scan"]) == 0
    engine = json.loads(capsys.readouterr().out)["engine"]
    assert engine["kind"] == "vllm" and engine["version"] == "0.33.0" and engine["model"] == VLLM_MODEL
    # Two engines: 450 drafted, 240 accepted over 150 verify steps (tests/contract_servers.py).
    assert engine["acceptance_rate"] == pytest.approx(240 / 450)
    assert engine["mean_acceptance_length"] == pytest.approx(1 + 240 / 150)


def test_cli_probe_text_names_vllm(capsys: pytest.CaptureFixture[str]) -> None:
    with serve(vllm_routes()) as server:
        assert main(["probe", "--engine-url", server.url, "--no-scan"]) == 0
    out = capsys.readouterr().out
    assert "vllm 0.33.0" in out and VLLM_MODEL in out and "acceptance 53% (mean length 2.60)" in out
