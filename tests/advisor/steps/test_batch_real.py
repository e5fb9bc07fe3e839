"""The concurrency sweep on the real llama-server: paired rounds per level, their CI, and where it stops paying.

Structure and sanity only (rounds as the quick budget says, arms alternating, low ≤ speedup ≤ high, the
cutoffs agreeing with the levels); speeds are measured in bench/, not asserted here.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from advisor.arms.arms import Arm, Arms
from advisor.arms.server import ManagedServer, ServerConfig
from advisor.config import QUICK, CheckConfig
from advisor.core.policy import default_policy
from advisor.events import StepDone, UnitDone
from advisor.evidence.schema import Environment
from advisor.evidence.steps import BatchEvidence, BatchLevel
from advisor.recommend.schedule import cutoffs, level_results
from advisor.steps.base import StepContext
from advisor.steps.batch import BatchStep
from advisor.steps.plan import plan_workload
from probes.engines.llamacpp.adapter import LlamaCppAdapter

pytestmark = pytest.mark.engine

SLOTS = 2
# The quick budget's rounds at two levels, with short replies: the structure is the same as a full sweep's.
BUDGET = dataclasses.replace(QUICK, max_tokens=24, warmup_requests=1, batch_levels=(1, 2))


def _sweep(binary: Any, model: Path, tmp: Path) -> tuple[BatchEvidence, list[str]]:
    config = CheckConfig(quick=True, steps=("batch",), budget_override=BUDGET)
    common = {"model": model, "threads": 2, "parallel": SLOTS, "ctx_size": SLOTS * 2048}
    off = ManagedServer(binary, ServerConfig(label="off", **common), tmp / "off")  # type: ignore[arg-type]
    on = ManagedServer(binary, ServerConfig(label="on", spec_type="ngram-mod", draft_max=8, **common),  # type: ignore[arg-type]
                       tmp / "on")
    with off, on:
        arms = Arms(off=Arm("off", LlamaCppAdapter(off.base_url), server=off),
                    on=Arm("on", LlamaCppAdapter(on.base_url), server=on))
        ctx = StepContext(config=config, arms=arms, environment=Environment(), workload=plan_workload(config),
                          policy=default_policy())
        try:
            events = list(BatchStep().run(ctx))
        finally:
            arms.stop()  # the ON server was restarted by the step: stop the one running now
    done = [e for e in events if isinstance(e, StepDone)][-1]
    assert done.status == "done", done.reason
    assert isinstance(done.evidence, BatchEvidence)
    return done.evidence, [e.key for e in events if isinstance(e, UnitDone)]


def _check_level(lv: BatchLevel, rounds: int) -> None:
    assert len(lv.rounds) == rounds
    paired = [r for r in lv.rounds if r.speedup is not None]
    assert len(paired) == rounds, "every round of a healthy server pairs both arms"
    for r in paired:
        assert r.off_tok_s and r.on_tok_s and r.speedup == pytest.approx(r.on_tok_s / r.off_tok_s)
    geo = math.exp(sum(math.log(r.speedup) for r in paired if r.speedup) / len(paired))
    assert lv.speedup == pytest.approx(geo)
    assert lv.speedup_ci_low is not None and lv.speedup_ci_high is not None
    assert 0 < lv.speedup_ci_low <= lv.speedup <= lv.speedup_ci_high
    assert lv.ci_level == default_policy().batch.ci_level
    assert lv.off_failed == lv.on_failed == 0


def test_batch_step_records_paired_rounds_and_their_ci(llama_binary: Any, demo_model: Path, tmp_path: Path) -> None:
    ev, units = _sweep(llama_binary, demo_model, tmp_path)
    assert [lv.concurrency for lv in ev.levels] == list(BUDGET.batch_levels) and ev.slots == SLOTS
    assert units == [f"c={c}" for c in BUDGET.batch_levels]
    for lv in ev.levels:
        print(f"\nc={lv.concurrency}: {lv.speedup:.2f}× [{lv.speedup_ci_low:.2f}, {lv.speedup_ci_high:.2f}] "
              f"rounds {[round(r.speedup or 0, 2) for r in lv.rounds]}")
        _check_level(lv, QUICK.batch_rounds)
    # the arm that goes first alternates within a level and between levels, so neither arm is always first
    firsts = [r.on_first for lv in ev.levels for r in lv.rounds]
    assert [r.on_first for r in ev.levels[0].rounds] == [False, True, False]
    assert [r.on_first for r in ev.levels[1].rounds] == [True, False, True]
    assert firsts.count(True) == firsts.count(False)
    cut = cutoffs(level_results(ev.levels), default_policy().batch.break_even)
    assert (ev.stops_paying_at, ev.pays_up_to) == (cut.stops_paying_at, cut.pays_up_to)
    assert ev.break_even == default_policy().batch.break_even
    assert ev.pool is not None and ev.pool.fresh is True  # the ON server was restarted before the sweep
