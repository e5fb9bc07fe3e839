"""End-to-end checks on the real demo engine: the quick check, an A/A run, and an engine killed mid-A/B."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main
from advisor.config import QUICK, CheckConfig
from advisor.events import Event, UnitDone
from advisor.evidence.codec import decode
from advisor.run.session import Session
from advisor.text.message import Message

pytestmark = pytest.mark.engine


def test_quick_check_runs_every_step_and_flags_the_trap(demo_model: Path, llama_binary: Any,
                                                         tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = main(["check", "--quick", "--no-history", "--out", str(out), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code == 0, printed
    evidence = json.loads((out / "evidence.json").read_text())
    steps = evidence["steps"]
    assert [s for s in steps if steps[s]["status"] != "done"] == []
    assert set(steps) == {"preflight", "baseline", "acceptance", "verify", "tune", "batch", "ab"}
    # the tuner chose a draft length and the A/B measured exactly its flags
    assert printed["tuner"]["k"] in steps["tune"]["evidence"]["ks"]
    assert steps["ab"]["evidence"]["on_argv"] == printed["tuner"]["argv"]
    canary = steps["acceptance"]["evidence"]["canary"]
    assert len(canary["repeats"]) == QUICK.canary_repeats
    # n-gram drafting reuses what the server already generated, so repeats of one prompt get faster.
    codes = [w["code"] for w in steps["acceptance"]["warnings"]]
    assert canary["repeat_inflation"] > 1.10 and "trap-inflation" in codes
    assert printed["verdict"]["verdict"] != "ENABLE"  # the trap can never become ENABLE
    assert (out / "verdict.json").is_file()
    assert steps["baseline"]["evidence"]["mbu"] > 0
    assert steps["verify"]["evidence"]["points"][0]["k"] == 1
    # the perf model's prediction from this check's own measurements, beside the A/B it ran
    rec = evidence["reconciliation"]
    assert printed["reconciliation"] == rec and rec["measured_speedup"] == steps["ab"]["evidence"]["speedup"]
    assert rec["predicted_speedup"] > 0 and rec["relative_error"] == pytest.approx(
        rec["predicted_speedup"] / rec["measured_speedup"] - 1.0)
    print(f"\nreconciliation: predicted {rec['predicted_speedup']:.3f}×, measured {rec['measured_speedup']:.3f}×")
    # what each arm measured travels with the A/B: one record per answered request, both arms, real timings
    samples = steps["ab"]["evidence"]["samples"]
    assert {r["arm"] for r in samples} == {"off", "on"}
    assert all(r["ttft_ms"] > 0 and r["tok_s"] > 0 for r in samples)
    assert printed["schema_version"] == 1
    # a quick check keeps its sizes; its steps' seconds are still planned at the baseline's pace (for a step
    # that runs far past them to say so)
    plan = evidence["time_plan"]
    assert plan["target_s"] is None and plan["request_s"] > 0
    assert set(plan["steps"]) == {"acceptance", "tune", "batch", "ab"}
    # the clock was told the plan at the start and again once the verify curve priced the tuner's synthetic points
    log = [json.loads(line) for line in (out / "logs" / "eta.jsonl").read_text().splitlines()]
    assert [line["event"] for line in log].count("RunPlanned") == 2


def _ab_config(tmp_path: Path, **changes: Any) -> CheckConfig:
    budget = dataclasses.replace(QUICK, max_tokens=32, ab_max_pairs=20, warmup_requests=1)
    return CheckConfig(quick=True, steps=("ab",), out_dir=tmp_path / "run", budget_override=budget, **changes)


def test_aa_run_is_not_enable(demo_model: Path, llama_binary: Any, tmp_path: Path) -> None:
    # Both arms speculation off: an A/A run through the whole pipeline (reliability.md §2.7).
    done = Session(_ab_config(tmp_path, spec_type="none")).run()
    assert done.status == "complete", done.message
    ab = json.loads((tmp_path / "run" / "evidence.json").read_text())["steps"]["ab"]["evidence"]
    print(f"\nA/A: speedup {ab['speedup']:.3f} [{ab['ci_low']:.3f}, {ab['ci_high']:.3f}] over {ab['n_prompts']} pairs,"
          f" decision {ab['decision']}")
    assert ab["decision"] != "ENABLE"
    assert done.verdict is not None and done.verdict.verdict != "ENABLE"


def test_engine_killed_mid_ab_counts_against_its_arm(demo_model: Path, llama_binary: Any, tmp_path: Path) -> None:
    session = Session(_ab_config(tmp_path))
    pairs_seen: list[str] = []

    def kill_on_arm_after_three_pairs(event: Event) -> None:
        if isinstance(event, UnitDone) and event.step == "ab":
            pairs_seen.append(event.key)
            if len(pairs_seen) == 3 and session.arms and session.arms.on and session.arms.on.server:
                session.arms.on.server.kill()

    session.subscribers.append(kill_on_arm_after_three_pairs)
    done = session.run()
    evidence = json.loads((tmp_path / "run" / "evidence.json").read_text())
    ab = evidence["steps"]["ab"]["evidence"]
    assert ab["n_failed_on"] >= 1 and ab["n_failed_off"] == 0
    assert ab["n_prompts"] == 3  # only whole pairs count; the failed ones are not half-counted
    assert all(p["on_error"] for p in ab["pairs"][3:])
    messages = [str(decode(Message, w["message"])) for w in evidence["steps"]["ab"]["warnings"]]
    assert any("on arm failed" in m for m in messages), messages
    assert ab["decision"] == "INCONCLUSIVE"
    assert done.verdict is not None and done.verdict.verdict == "INCONCLUSIVE"
