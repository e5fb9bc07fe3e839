"""A stopped check (Ctrl-C) says how to go on: the `--resume` command with its run id, in the reader's language."""

from __future__ import annotations

import argparse
import threading
from typing import Any

import pytest

from advisor.cli.check import _run_session
from advisor.evidence.schema import Evidence
from advisor.run.done import SessionDone
from advisor.text import text


class _Stopped:
    """A session that was stopped by the user after measuring something (what `Session.run` returns then)."""

    def __init__(self, run_id: str | None, store: object | None) -> None:
        self.run_id, self.store = run_id, store
        self.cancel_flag = threading.Event()
        self.evidence = Evidence()

    def run(self) -> SessionDone:
        return SessionDone(status="aborted", run_dir="", message="interrupted")


def _args(lang: str) -> argparse.Namespace:
    return argparse.Namespace(json=False, lang=lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_stopped_check_prints_the_resume_command(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    session: Any = _Stopped("20261202-abc123", store=object())
    assert _run_session(session, _args(lang)) == 130
    err = capsys.readouterr().err
    assert text(lang, "cli.resume_hint", run_id="20261202-abc123") in err
    assert "spec-advisor check --resume 20261202-abc123" in err


def test_no_resume_command_without_the_history(capsys: pytest.CaptureFixture[str]) -> None:
    session: Any = _Stopped(None, store=None)  # --no-history: nothing to resume from
    assert _run_session(session, _args("en")) == 130
    assert "--resume" not in capsys.readouterr().err
