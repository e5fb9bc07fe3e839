"""The sanity gate (advisor/steps/sanity.py): two short requests per arm before the long steps.

Unit tests of the finding from request times, and a real-engine check whose ON arm is made far slower on
purpose (a random-weight draft whose every draft is rejected, with the gate's limit lowered below what that
costs here), which must stop after preflight with a SKIP by the gate's rule and the likely causes.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from advisor.arms.arms import Arms
from advisor.config import QUICK, CheckConfig
from advisor.core.policy import default_policy
from advisor.decide.rules import load_rules
from advisor.evidence.schema import Environment
from advisor.run.session import Session
from advisor.steps.base import StepContext
from advisor.steps.plan import plan_workload
from advisor.steps.sanity import likely_causes, sanity_result
from tests.draft_models import write_draft


def _ctx(server_args: tuple[str, ...] = ()) -> StepContext:
    config = CheckConfig(server_args=server_args)
    return StepContext(config=config, arms=Arms(off=None, on=None), environment=Environment(),
                       workload=plan_workload(config, None), policy=default_policy())


def test_the_gate_trips_only_when_every_pair_is_slower_by_the_limit() -> None:
    ctx = _ctx()
    limit = ctx.policy.arms.sanity_max_slowdown
    far = sanity_result(ctx, {"off": [10.0, 10.0], "on": [10.0 * limit * 1.2, 10.0 * limit * 3]})
    assert far is not None and far.tripped and far.slowdown == pytest.approx(limit * 1.2)
    assert far.likely_causes  # always at least one cause ("cpu-engine" here: no GPU in the environment)
    one_fast = sanity_result(ctx, {"off": [10.0, 10.0], "on": [10.0 * limit * 3, 11.0]})
    assert one_fast is not None and not one_fast.tripped and one_fast.slowdown == pytest.approx(1.1)
    assert not one_fast.likely_causes


def test_no_finding_without_both_arms() -> None:
    ctx = _ctx()
    assert sanity_result(ctx, {"off": [10.0, 10.0]}) is None
    assert sanity_result(ctx, {"off": [], "on": [30.0]}) is None


def test_likely_causes_follow_the_users_placement_options() -> None:
    causes = likely_causes(_ctx(("-ot", "blk\\..*_exps\\.=CPU", "-ts", "1,1", "-ngl", "20")))
    assert {"experts-on-cpu", "tensor-split", "partial-offload", "cpu-engine"} <= set(causes)
    assert "experts-on-cpu" in likely_causes(_ctx(("--n-cpu-moe", "10")))


@pytest.mark.engine
def test_a_far_slower_on_arm_stops_the_check_after_preflight(demo_model: Path, llama_binary: Any,
                                                              tmp_path: Path) -> None:
    # Measured here: this draft makes the ON arm ~3× slower on the CPU (every draft of 16 rejected). The gate
    # stops broken setups (5× by policy); a limit of 1.5× makes this setup one, to test the stop end to end.
    draft = write_draft(tmp_path, "random-draft")
    rules = load_rules(overrides=False)
    policy = dataclasses.replace(rules.policy, arms=dataclasses.replace(rules.policy.arms, sanity_max_slowdown=1.5))
    budget = dataclasses.replace(QUICK, max_tokens=32, warmup_requests=1)
    config = CheckConfig(quick=True, steps=("baseline", "ab"), out_dir=tmp_path / "run", budget_override=budget,
                         draft_model=draft, spec_type="draft-simple", arms="single", threads=2)
    done = Session(config, rules=dataclasses.replace(rules, policy=policy)).run()
    assert done.status == "complete" and "sanity gate" in done.message
    evidence = json.loads((tmp_path / "run" / "evidence.json").read_text())
    assert list(evidence["steps"]) == ["preflight"]  # nothing measured after the gate
    sanity = evidence["steps"]["preflight"]["evidence"]["sanity"]
    assert sanity["tripped"] and sanity["slowdown"] >= 1.5 and "draft-on-cpu" in sanity["likely_causes"]
    assert len(sanity["off_ms_per_token"]) == 2 and len(sanity["on_ms_per_token"]) == 2
    assert done.verdict is not None and done.verdict.verdict == "SKIP"
    assert f"{done.verdict.rule_id}/{done.verdict.branch_id}".endswith("sanity-gate")
    assert len(evidence["servers"]) == 2  # ON at the start, OFF swapped in: one copy at a time, no more
