"""A full check on the real demo engine sizes its later steps after the baseline: the acceptance step measures
exactly the sized prompts, the clock is told the new plan, and the evidence keeps the time plan and the sizes.

The full budget is shrunk for the suite (fewer, shorter baseline requests) and the time budget set so small that
the acceptance step must take its smallest rung: what is checked is the wiring from the measured pace to what
the steps run, on a real engine; the sizes themselves are tested in test_budget.py."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

import advisor.config
import advisor.run.budget
from advisor.config import ACCEPTANCE_RUNGS, CheckConfig
from advisor.decide.rules import load_rules
from advisor.events import CheckSized, Event, Progress, RunPlanned
from advisor.run.eta import PRICED
from advisor.run.session import Session

pytestmark = pytest.mark.engine

SMALL_FULL = dataclasses.replace(advisor.config.FULL, max_tokens=32, baseline_prompts=3, warmup_requests=1)


def test_a_full_check_is_sized_after_its_baseline(demo_model: Path, llama_binary: Any, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(advisor.config, "FULL", SMALL_FULL)
    monkeypatch.setattr(advisor.run.budget, "FULL", SMALL_FULL)
    rules = load_rules(overrides=False)
    # a second for the whole check: no rung fits, on any machine, so the acceptance step takes its smallest
    tight = dataclasses.replace(rules.policy.budget, full_check_s=1.0)
    rules = dataclasses.replace(rules, policy=dataclasses.replace(rules.policy, budget=tight))
    events: list[Event] = []
    config = CheckConfig(quick=False, steps=("baseline", "acceptance"), out_dir=tmp_path / "run")
    done = Session(config, subscribers=[events.append], rules=rules).run()
    assert done.status == "complete", done.message
    evidence = json.loads((tmp_path / "run" / "evidence.json").read_text())

    per_category, repeats, _reruns = ACCEPTANCE_RUNGS[-1]
    plan = evidence["time_plan"]
    assert plan["target_s"] == 1.0 and plan["request_s"] > 0 and plan["steps"]["acceptance"] > 0
    assert plan["over_share"] == ["acceptance"]  # and the plan says it runs past its share
    assert evidence["config"]["budget"]["acceptance_per_category"] == per_category
    assert evidence["config"]["budget"]["canary_repeats"] == repeats
    kept = evidence["workload"]["acceptance"]
    acceptance = evidence["steps"]["acceptance"]["evidence"]
    assert {s["prompt_id"] for s in acceptance["samples"]} <= set(kept)
    assert len(acceptance["canary"]["repeats"]) == repeats
    categories = len(acceptance["per_category"])
    assert len(kept) == per_category * categories

    # the clock was told twice: the full sizes at the start, the sized plan once the baseline had run
    plans = [e for e in events if isinstance(e, RunPlanned)]
    assert len(plans) == 2 and plans[1].load_s is None
    assert plans[1].units["acceptance"] < plans[0].units["acceptance"]
    reported = max(e.total for e in events if isinstance(e, Progress) and e.step == "acceptance")
    assert plans[1].units["acceptance"] >= reported
    # and the printer and the window were told the sizes (the A/B chart its looks at the sized pair limit)
    sized = [e for e in events if isinstance(e, CheckSized)]
    assert len(sized) == 1 and sized[0].plan.target_s == 1.0
    assert sized[0].ab_looks and max(sized[0].ab_looks) <= evidence["config"]["budget"]["ab_max_pairs"]
    # the ETA's own log has both
    log = [json.loads(line) for line in (tmp_path / "run" / "logs" / "eta.jsonl").read_text().splitlines()]
    assert sum(1 for line in log if line.get("event") == "RunPlanned") == 2


def test_the_tuner_is_sized_again_once_the_verify_curve_prices_its_points(
        demo_model: Path, llama_binary: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the verify step the session prices the tuner's synthetic points at the measured curve and sizes the
    tuner again (advisor/run/budget.py `resize_tuner`): the evidence's time plan and the clock's third plan are
    the re-priced ones, and the tuner runs the units that plan counts."""
    monkeypatch.setattr(advisor.config, "FULL", SMALL_FULL)
    monkeypatch.setattr(advisor.run.budget, "FULL", SMALL_FULL)
    rules = load_rules(overrides=False)
    tight = dataclasses.replace(rules.policy.budget, full_check_s=1.0)  # the smallest rungs, on any machine
    rules = dataclasses.replace(rules, policy=dataclasses.replace(rules.policy, budget=tight))
    events: list[Event] = []
    # the tuner starts from the acceptance step's measurement
    config = CheckConfig(quick=False, steps=("baseline", "acceptance", "verify", "tune"), out_dir=tmp_path / "run")
    done = Session(config, subscribers=[events.append], rules=rules).run()
    assert done.status == "complete", done.message
    evidence = json.loads((tmp_path / "run" / "evidence.json").read_text())
    assert evidence["steps"]["tune"]["status"] == "done"

    plans = [e for e in events if isinstance(e, RunPlanned)]
    assert len(plans) == 3  # the full sizes, the sized plan after the baseline's first round, the re-priced one
    plan = evidence["time_plan"]
    repriced = (plan["request_s"] * sum(w.requests for w in plans[2].work["tune"])
                + plans[2].restarts["tune"] * plan["load_s"])
    assert plan["steps"]["tune"] == pytest.approx(repriced, abs=0.051)  # the plan keeps a tenth of a second
    # the synthetic points were priced at the curve (R(k + 1)/τ plain requests each), not one request each
    points = [(a.requests, b.requests) for a, b in zip(plans[1].work["tune"], plans[2].work["tune"], strict=True)
              if a.kind == PRICED and a.requests > 0]
    assert points and any(before != after for before, after in points)
    reported = max(e.total for e in events if isinstance(e, Progress) and e.step == "tune")
    assert plans[2].units["tune"] >= reported
