"""Where speculation pays, the whole path says ENABLE (issue 26 item 1): a real quick check of Gemma 3 270M on the
managed llama-server, on tasks that copy from their prompt (writing and editing code: 1.3–1.5× here), ends ENABLE
with its flags in the CLI's JSON, the Markdown report and the window's verdict view alike.

The model file has no chat template and uses sliding-window attention, so the check also proves the options it
gives the servers for them (advisor/arms/model_flags.py): without the template the replies loop and the verdict is
withheld. One quick check, about three minutes on two cores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main

pytestmark = pytest.mark.engine


def test_a_gemma_quick_check_on_copying_tasks_ends_enable_everywhere(
        window, llama_binary: Any, gemma_model: Path, tmp_path: Path,  # type: ignore[no-untyped-def]
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    # --until-decided, as a user told "not decided at 20 pairs" would: a clear gain is ENABLE at the first look
    # in about 99 quick checks of 100 (bench/sim_ab.py at 1.28×; the order-interaction guard's own 1% is the
    # rest), and the full design's later looks take the remainder to about 999 of 1,000 instead of a red CI.
    code = main(["check", "--quick", "--until-decided", "--no-history", "--model", str(gemma_model),
                 "--mix", "code=1,refactor=1", "--out", str(out), "--json"])
    printed = json.loads(capsys.readouterr().out)
    verdict = printed["verdict"]
    ab = json.loads((out / "evidence.json").read_text())["steps"]["ab"]["evidence"]
    print(f"\nGemma quick check: {verdict['verdict']} by {verdict['decided_by']}, A/B {ab['speedup']:.3f}× "
          f"[{ab['ci_low']:.3f}, {ab['ci_high']:.3f}]")
    assert code == 0 and verdict["verdict"] == "ENABLE", verdict["blocking"]
    flags = verdict["flags"]
    flags = flags["command"] if isinstance(flags, dict) else " ".join(f["command"] for f in flags)
    assert "--spec-type ngram-mod" in flags and "--no-jinja --chat-template gemma" in flags and "--swa-full" in flags
    assert ab["on_argv"] == printed["tuner"]["argv"]  # the flags recommended are the flags the A/B measured

    report = tmp_path / "report.md"
    assert main(["report", str(out), "--format", "md", "--lang", "en", "-o", str(report)]) == 0
    text = report.read_text()
    assert "ENABLE" in text and "--spec-type ngram-mod" in text

    assert window.open_path(str(out))
    view = window.verdict_view
    assert view.word.text() == "ENABLE" and view.sentence.text() == "Turn speculative decoding on"
    assert view.flags.copy.isEnabled() and "--spec-type ngram-mod" in view.flags.command
