"""A run whose every measuring step failed ends `failed` with a non-zero exit, never `complete` / exit 0
(issue 25 class 2). The engine is a stand-in that answers /props and /slots but fails every completion: a
real llama-server that does that on purpose does not exist, and the claim under test is the session's."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from advisor.arms.arms import Arm, Arms
from advisor.cli.check import _run_session
from advisor.config import QUICK, CheckConfig
from advisor.evidence.schema import Environment
from advisor.run.session import Session
from probes.base import Unavailable
from probes.engines.base import EngineError, EngineInfo, SpecState
from tests.zh_words import english_words


class Failing:
    """Describes itself like llama.cpp (speculation as its arm claims), and fails every request."""

    kind = "llama.cpp"

    def __init__(self, arm: str) -> None:
        self.arm, self.base_url = arm, f"failing://{arm}"

    def info(self) -> EngineInfo:
        return EngineInfo(kind="llama.cpp", base_url=self.base_url, version="test", model="m",
                          spec=SpecState(active=self.arm == "on", method="ngram-mod", draft_max=8, source="test"))

    def spec_counters(self) -> Unavailable:
        return Unavailable("not-supported", "test")

    def complete(self, prompt: object, **kwargs: Any) -> None:
        raise EngineError("the engine answered 500 to every completion")


class FailingSession(Session):
    def _start(self) -> Arms:
        engine = EngineInfo(kind="llama.cpp", base_url="failing://", version="test", model="m")
        self.evidence = replace(self.evidence, environment=Environment(engine=engine))
        self.arms = Arms(off=Arm("off", Failing("off")), on=Arm("on", Failing("on")))  # type: ignore[arg-type]
        return self.arms


def test_every_step_failed_is_a_failed_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    budget = replace(QUICK, max_tokens=8, baseline_prompts=2, warmup_requests=0)
    config = CheckConfig(quick=True, out_dir=tmp_path / "run", budget_override=budget)  # every step
    session = FailingSession(config)
    args = argparse.Namespace(json=True, lang="en")
    code = _run_session(session, args)
    printed = json.loads(capsys.readouterr().out)
    assert code == 1 and printed["status"] == "failed"
    assert "no measuring step succeeded" in printed["message"] and "baseline" in printed["message"]
    evidence = json.loads((tmp_path / "run" / "evidence.json").read_text())
    assert evidence["status"] == "failed"
    statuses = {name: s["status"] for name, s in evidence["steps"].items() if name != "preflight"}
    # the steps that measure failed (batch and ab too, which used to end "done" with nothing compared); the
    # ones that only compute from them were skipped
    assert {statuses[n] for n in ("baseline", "acceptance", "batch", "ab")} == {"failed"}, statuses
    assert set(statuses.values()) <= {"failed", "skipped"}
    # the verdict's reasons start with why, in both languages: a Chinese report of the run says it in Chinese
    verdict = json.loads((tmp_path / "run" / "verdict.json").read_text())
    assert verdict["because"][0].startswith("no measuring step succeeded (baseline: engine error: ")
    assert len(verdict["because_zh"]) == len(verdict["because"])
    zh = verdict["because_zh"][0]
    assert zh.startswith("没有任何测量步骤成功（基线（关闭推测）：引擎出错："), zh
    assert not english_words(zh.replace("the engine answered 500 to every completion", ""))  # the engine's own
