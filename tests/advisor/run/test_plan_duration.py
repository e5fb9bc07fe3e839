"""The plan's length before the start: the ETA's own units and loads at a known pace (the last check of the same
model in the history, the policy's demo pace, or none), on the CLI's first line and under the window's
quick/full choice, in English and Chinese."""

from __future__ import annotations

import functools
import io
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from advisor.cli.check import plan_line
from advisor.config import CheckConfig
from advisor.core.policy import default_policy
from advisor.history.schema import default_db_path
from advisor.history.store import RunStore
from advisor.run.duration import duration_text, plan_duration, plan_size
from advisor.run.eta import planned_restarts, planned_units
from advisor.steps.plan import plan_workload
from advisor.steps.tune_plan import plan_tune
from advisor.text import text

POLICY = default_policy()


def test_the_size_is_the_plan_the_live_clock_counts() -> None:
    for quick in (True, False):
        config = CheckConfig(quick=quick)
        plan = plan_workload(config)
        tune = plan_tune(config, plan, None, managed=True, k_max=None)
        units, loads = plan_size(config, None, POLICY.arms.single_block_pairs)
        assert units == sum(planned_units(config, plan, tune).values())
        restarts = planned_restarts(config, plan, single=False, block_pairs=POLICY.arms.single_block_pairs, tune=tune)
        assert loads == 2 + sum(restarts.values())
    assert plan_size(CheckConfig(quick=False), None, 10)[0] > plan_size(CheckConfig(quick=True), None, 10)[0]


def test_the_demo_is_paced_by_the_policy_and_an_unknown_model_is_not_guessed(tmp_path: Path) -> None:
    demo = plan_duration(CheckConfig(quick=True), POLICY)
    assert demo.basis == "demo" and demo.seconds == pytest.approx(demo.units * POLICY.eta.demo_unit_s)
    assert "eta.demo_unit_s" in POLICY.notes  # the number's source is in rules/policy.toml
    own = plan_duration(CheckConfig(quick=True, model=tmp_path / "mine.gguf"), POLICY)
    assert own.basis == "none" and own.seconds is None
    en = duration_text(own, functools.partial(text, "en"))
    assert f"{own.units} units" in en and "after the first request" in en
    assert "个单元" in duration_text(own, functools.partial(text, "zh"))


def test_the_last_check_of_the_same_model_sets_the_pace(tmp_path: Path) -> None:
    model = tmp_path / "mine.gguf"
    full = CheckConfig(quick=False, model=model)
    earlier = replace(full, quick=True)
    units, _ = plan_size(earlier, None, POLICY.arms.single_block_pairs)
    with RunStore(default_db_path()) as store:  # the test's own history (conftest points the data folder at tmp)
        run = store.begin_run(earlier.to_dict(), {})
        store.finish_run(run, "complete", None, None)
        store.conn.execute("UPDATE runs SET created_utc = '2026-01-01T10:00:00.000000Z', "
                           "finished_utc = '2026-01-01T10:10:00.000000Z' WHERE run_id = ?", (run,))
        other = store.begin_run(replace(earlier, model=tmp_path / "other.gguf").to_dict(), {})
        store.finish_run(other, "complete", None, None)  # another model's pace says nothing about this one
    planned = plan_duration(full, POLICY)
    assert planned.basis == "history" and planned.reference == run
    assert planned.seconds == pytest.approx(planned.units * 600.0 / units)
    assert "your last check of this model" in duration_text(planned, functools.partial(text, "en"))


def test_the_cli_says_the_plan_first(capsys: pytest.CaptureFixture[str]) -> None:
    session: Any = SimpleNamespace(config=CheckConfig(quick=False), policy=POLICY)
    line = plan_line(session, "en")
    assert line.startswith("Plan: full check, about ") and "model loads" in line
    zh = plan_line(session, "zh")
    assert zh.startswith("计划：完整检查，约 ")



def test_the_plan_is_the_first_line_of_a_check_that_starts_and_absent_from_one_refused() -> None:
    from advisor.cli.progress import ProgressPrinter
    from advisor.events import RunPlanned, StepStarted
    from advisor.run.done import SessionDone

    out = io.StringIO()
    printer = ProgressPrinter(out, lang="en")
    printer.header = "Plan: quick check, about 1:41"
    printer(RunPlanned({"baseline": 8}))
    printer(StepStarted("baseline", "Baseline", 1, 6))
    lines = out.getvalue().splitlines()
    assert lines[0] == "Plan: quick check, about 1:41" and lines[1].startswith("[1/6]")
    refused = io.StringIO()
    printer = ProgressPrinter(refused, lang="en")
    printer.header = "Plan: quick check, about 1:41"
    printer(SessionDone(status="failed", run_dir="", message="bad rules"))
    assert refused.getvalue() == ""
