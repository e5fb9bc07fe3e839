"""Secrets never reach the history database, logs or reports (reliability.md §8 F2)."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main
from advisor.decide.verdict_json import verdict_from_json
from advisor.history.store import RunStore
from advisor.redact import MASK, RedactingFilter, install_log_redaction, is_secret_key, redact, redact_text
from advisor.report.model import build_report
from advisor.report.render_html import render_html
from advisor.report.render_json import render_json
from advisor.report.render_markdown import render_markdown
from tests.report_sample import run_from, sample_evidence, sample_facts, sample_verdict

CANARY = "sk-canary-1234567890abcdef"
CANARY_CORE = "canary-1234567890abcdef"  # also catches a partial mask that kept the tail


def _poisoned() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    config = {"api_key": CANARY, "base_url": f"http://user:{CANARY}@127.0.0.1:8080/v1?api_key={CANARY}",
              "headers": {"Authorization": f"Bearer {CANARY}"}}
    evidence = sample_evidence()
    evidence["config"].update(config)
    evidence["config"]["engine_url"] = config["base_url"]  # the URL field typed evidence keeps
    evidence["environment"]["command_lines"] = {"on": ["llama-server", "--api-key", CANARY, "--port", "8080"]}
    evidence["environment"]["engine"]["token"] = CANARY
    evidence["steps"]["baseline"]["warnings"] = [{"code": "failures", "message": f"401 with key {CANARY}"}]
    evidence["steps"]["baseline"]["evidence"]["request_headers"] = {"X-Api-Key": CANARY}
    verdict = sample_verdict()
    verdict["warnings"].append(f"engine said: invalid token=Bearer {CANARY}")
    facts = {**sample_facts(), "engine.password": CANARY}
    return config, evidence, facts, verdict


def _assert_clean(blob: bytes | str, where: str) -> None:
    data = blob.encode() if isinstance(blob, str) else blob
    assert CANARY_CORE.encode() not in data, f"canary leaked into {where}"


def test_redact_basics() -> None:
    assert redact({"api_key": CANARY, "max_tokens": 64, "time_to_first_token_ms": 12.0, "auth": False}) == {
        "api_key": MASK, "max_tokens": 64, "time_to_first_token_ms": 12.0, "auth": False}
    assert redact(["llama-server", "--api-key", CANARY]) == ["llama-server", "--api-key", MASK]
    assert redact_text(f"Authorization: Bearer {CANARY}") == f"Authorization: Bearer {MASK}"
    assert redact_text("first token: 12 ms, prompt_tokens=40") == "first token: 12 ms, prompt_tokens=40"
    assert redact_text("hf_abcdefghijklmnopqrstu and ghp_abcdefghijklmnop") == f"{MASK} and {MASK}"
    for key in ("api_key", "apiKey", "X-Api-Key", "Authorization", "password", "client_secret", "hf_token"):
        assert is_secret_key(key), key
    for key in ("tokens", "max_tokens", "token_count", "first_token_ms", "decode_tok_s", "keyboard"):
        assert not is_secret_key(key), key


def test_canary_absent_from_history_files(tmp_path: Path) -> None:
    config, evidence, facts, verdict = _poisoned()
    folder = tmp_path / "data"
    with RunStore(folder / "history.sqlite3") as store:
        run = store.begin_run(config, evidence["environment"])
        store.record_unit(run, "ab", "pair-0", {"off": {"ms": 1, "auth": f"Bearer {CANARY}"}, "on": {"ms": 1}})
        store.record_unit(run, "verify", f"k1-{CANARY}", {"note": CANARY})
        store.finish_step(run, "baseline", "done", evidence["steps"]["baseline"])
        store.finish_run(run, "complete", verdict, facts)
        files = list(folder.iterdir())
        assert len(files) >= 2  # the database and its WAL, checked while the WAL still holds the commits
        for f in files:
            _assert_clean(f.read_bytes(), f.name)
    for f in folder.iterdir():
        _assert_clean(f.read_bytes(), f.name)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_canary_absent_from_reports(lang: str) -> None:
    _, evidence, facts, verdict = _poisoned()
    for include_prompts in (False, True):
        report = build_report(run_from(evidence), facts, verdict_from_json(verdict), include_prompts=include_prompts)
        _assert_clean(render_json(report), "json")
        _assert_clean(render_markdown(report, lang), "markdown")
        _assert_clean(render_html(report, lang), "html")


def test_canary_absent_from_cli_output_and_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    _, evidence, _, verdict = _poisoned()
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "evidence.json").write_text(json.dumps(evidence), encoding="utf-8")
    (run_dir / "verdict.json").write_text(json.dumps(verdict), encoding="utf-8")
    caplog.set_level(logging.DEBUG)
    for fmt in ("html", "md", "json"):
        out = tmp_path / f"report.{fmt}"
        assert main(["-v", "report", str(run_dir), "--format", fmt, "-o", str(out)]) == 0
        _assert_clean(out.read_bytes(), out.name)
    captured = capsys.readouterr()
    _assert_clean(captured.out + captured.err, "cli output")
    _assert_clean(caplog.text, "logs")


def test_log_filter_masks_messages_and_exceptions() -> None:
    stream = io.StringIO()
    logger = logging.getLogger("spec-advisor-redact-test")
    logger.propagate = False
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    install_log_redaction(logger)
    assert any(isinstance(f, RedactingFilter) for f in handler.filters)
    try:
        logger.warning("calling %s with Authorization: Bearer %s", "http://127.0.0.1", CANARY)
        try:
            raise RuntimeError(f"401 for key {CANARY}")
        except RuntimeError:
            logger.exception("request failed")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    _assert_clean(text, "log stream")
    assert MASK in text and "RuntimeError" in text


def test_a_key_carried_as_url_user_info_is_masked_in_text() -> None:
    from advisor.redact import redact_text

    for text in ("attach http://SECRET-CANARY-9@127.0.0.1:8080/v1", "https://me:SECRET-CANARY-9@host:8443"):
        assert "SECRET-CANARY-9" not in redact_text(text)
