"""The verify step on a real llama-server with the synthetic dense and MoE models (equal active bytes).

What it shows: the MoE's T(k)/T(1) rises faster than the dense model's, because k tokens wake up to
N·(1−(1−m/N)^k) different experts per layer; and each measured curve sits near the curve predicted from the
model file and two timings (advisor/perf/verify.py). The table is printed (run with -s to see it).
"""

from __future__ import annotations

import dataclasses
import statistics
from pathlib import Path
from typing import Any

import pytest

from advisor.arms.arms import Arm, Arms
from advisor.arms.server import ManagedServer, ServerConfig
from advisor.config import QUICK, CheckConfig
from advisor.core.policy import default_policy
from advisor.demo.synth import write_synthetic_pair
from advisor.events import Progress, StepDone
from advisor.evidence.codec import encode
from advisor.evidence.kinds import StepEvidence
from advisor.evidence.schema import Environment, Evidence, StepRecord
from advisor.evidence.steps import BaselineEvidence, VerifyEvidence
from advisor.facts.from_evidence import facts_from_evidence
from advisor.run.environment import read_model
from advisor.steps.base import StepContext
from advisor.steps.plan import plan_workload
from advisor.steps.verify import VerifyStep
from advisor.tune.inputs import verify_ratios
from probes.engines.llamacpp.adapter import LlamaCppAdapter

pytestmark = pytest.mark.engine

# The prediction ignores how well small batches use the CPU's vector units and any overlap of memory reads
# with compute, so on 2 CPU cores it is a first-order model: small k costs more than the per-token compute of a
# long prefill says (seen: 1.35–1.59 measured at k=2 where 1.12–1.16 was predicted). So the curve as a whole
# must track the prediction (median gap ≤ 35%) and no point may be off by more than 60% (stated before
# measuring; the printed table shows the actual gaps).
TOLERANCE_MEDIAN = 0.35
TOLERANCE_POINT = 0.60
DRAFT_MAX = 15  # k up to γ+1 = 16, where the expert scatter is largest (3.6× the bytes of one token)


def _verify(binary: Any, model: Path, tmp: Path) -> list[dict[str, Any]]:
    budget = dataclasses.replace(QUICK, verify_repeats=7, verify_depth_tokens=128)
    config = CheckConfig(quick=True, draft_max=DRAFT_MAX, steps=("verify",), budget_override=budget)
    with ManagedServer(binary, ServerConfig(model=model, threads=2, label=model.stem), tmp) as server:
        adapter = LlamaCppAdapter(server.base_url)
        ctx = StepContext(config=config, arms=Arms(off=Arm("off", adapter), on=None),
                          environment=Environment(model=read_model(model)), workload=plan_workload(config),
                          policy=default_policy())
        done = [e for e in VerifyStep().run(ctx) if isinstance(e, StepDone)][-1]
    assert done.status == "done", done.reason
    assert isinstance(done.evidence, VerifyEvidence)
    points: list[dict[str, Any]] = [encode(p) for p in done.evidence.points]
    return points


def test_moe_verify_curve_rises_faster_and_tracks_prediction(llama_binary: Any, tmp_path: Path,
                                                              request: pytest.FixtureRequest) -> None:
    cache = Path(request.config.cache.mkdir("synth-models"))
    dense_path, moe_path = write_synthetic_pair(cache)
    dense = _verify(llama_binary, dense_path, tmp_path / "dense")
    moe = _verify(llama_binary, moe_path, tmp_path / "moe")
    print("\n  k   dense ms  T/T1 (pred)    MoE ms  T/T1 (pred)")
    for d, m in zip(dense, moe, strict=True):
        print(f"{d['k']:3d}   {d['t_ms']:7.2f} {d['ratio']:5.2f} ({d['predicted_ratio']:5.2f})   "
              f"{m['t_ms']:7.2f} {m['ratio']:5.2f} ({m['predicted_ratio']:5.2f})")
    assert dense[-1]["k"] == moe[-1]["k"] == DRAFT_MAX + 1
    # Compare what k tokens add over one, T(k) − T(1), over the upper half of the curves (k ≥ 4; a single k
    # can catch a noisy moment). Both models do the same compute per token, so the MoE's extra time is the
    # experts the batch scatters to. Ratios would divide by two different T(1)s: the dense model rereads the
    # same ~40 MB every token, which a 32 MB L3 partly keeps, while each MoE token routes to other experts,
    # so the dense T(1) wanders with what a neighbour leaves in the cache (seen: 2.4–3.4 ms between runs).
    upper_dense = statistics.mean(p["t_ms"] - dense[0]["t_ms"] for p in dense if p["k"] >= 4)
    upper_moe = statistics.mean(p["t_ms"] - moe[0]["t_ms"] for p in moe if p["k"] >= 4)
    print(f"  upper-half mean T(k) − T(1): dense {upper_dense:.2f} ms, MoE {upper_moe:.2f} ms")
    assert upper_moe > upper_dense, "the MoE curve must rise faster than the dense one"
    for curve in (dense, moe):
        gaps = [abs(p["ratio"] / p["predicted_ratio"] - 1.0) for p in curve]
        assert statistics.median(gaps) <= TOLERANCE_MEDIAN, curve
        assert max(gaps) <= TOLERANCE_POINT, curve


def test_long_prompts_get_a_second_curve_at_their_depth(llama_binary: Any, demo_model: Path, tmp_path: Path) -> None:
    budget = dataclasses.replace(QUICK, verify_repeats=2, verify_depth_tokens=96)
    config = CheckConfig(quick=True, draft_max=3, steps=("verify",), budget_override=budget)
    # The baseline said the user's prompts sit 600 tokens deep: > 2 × 96, so the step measures there too.
    prior: dict[str, StepEvidence] = {"baseline": BaselineEvidence(context_depth_tokens=600.0)}
    with ManagedServer(llama_binary, ServerConfig(model=demo_model, threads=2, label="off"), tmp_path) as server:
        adapter = LlamaCppAdapter(server.base_url)
        ctx = StepContext(config=config, arms=Arms(off=Arm("off", adapter), on=None),
                          environment=Environment(model=read_model(demo_model)), workload=plan_workload(config),
                          policy=default_policy(), prior=prior)
        events = list(VerifyStep().run(ctx))
    done = [e for e in events if isinstance(e, StepDone)][-1]
    assert done.status == "done", done.reason
    ev = done.evidence
    assert isinstance(ev, VerifyEvidence) and ev.depth_tokens == 96
    deep = ev.at_user_depth
    assert deep is not None and deep.depth_tokens == 600
    assert [p.k for p in deep.points] == [p.k for p in ev.points] == [1, 2, 3, 4]
    assert all(p.n == 2 for p in deep.points) and deep.t1_ms and deep.cost_ratio_at_draft_max
    # The tuner and the facts read the curve at the user's depth, not the short one.
    assert verify_ratios(ev) == {p.k: p.ratio for p in deep.points}
    facts = facts_from_evidence(Evidence(environment=ctx.environment,
                                         steps={"verify": StepRecord("done", evidence=ev)}))
    assert facts["verify.cost_ratio_at_draft_max"] == deep.cost_ratio_at_draft_max
    # Progress counts both curves' rounds, so the ETA sees the step's real length.
    totals = {e.total for e in events if isinstance(e, Progress)}
    assert totals == {4}


def test_short_prompts_keep_one_curve(llama_binary: Any, demo_model: Path, tmp_path: Path) -> None:
    budget = dataclasses.replace(QUICK, verify_repeats=1, verify_depth_tokens=96)
    config = CheckConfig(quick=True, draft_max=1, steps=("verify",), budget_override=budget)
    prior: dict[str, StepEvidence] = {"baseline": BaselineEvidence(context_depth_tokens=150.0)}  # < 2 × 96
    with ManagedServer(llama_binary, ServerConfig(model=demo_model, threads=2, label="off"), tmp_path) as server:
        adapter = LlamaCppAdapter(server.base_url)
        ctx = StepContext(config=config, arms=Arms(off=Arm("off", adapter), on=None),
                          environment=Environment(model=read_model(demo_model)), workload=plan_workload(config),
                          policy=default_policy(), prior=prior)
        done = [e for e in VerifyStep().run(ctx) if isinstance(e, StepDone)][-1]
    assert isinstance(done.evidence, VerifyEvidence) and done.evidence.points
    assert done.evidence.at_user_depth is None


def _verify_on(binary: Any, model: Path, tmp: Path, extra_args: tuple[str, ...] = ()) -> StepDone:
    budget = dataclasses.replace(QUICK, verify_repeats=1, verify_depth_tokens=96)
    config = CheckConfig(quick=True, draft_max=3, steps=("verify",), budget_override=budget)
    with ManagedServer(binary, ServerConfig(model=model, threads=2, label="off", extra_args=extra_args),
                       tmp) as server:
        ctx = StepContext(config=config, arms=Arms(off=Arm("off", LlamaCppAdapter(server.base_url)), on=None),
                          environment=Environment(model=read_model(model)), workload=plan_workload(config),
                          policy=default_policy())
        return [e for e in VerifyStep().run(ctx) if isinstance(e, StepDone)][-1]


def test_a_sliding_window_model_that_cannot_reuse_its_prefix_fails_with_the_remedy(
        llama_binary: Any, gemma_model: Path, tmp_path: Path) -> None:
    # Gemma 3's sliding-window layers make llama-server re-process the whole prompt (cache_n 0), so every
    # sample is dropped: that is not "done", and the reason names the flag that lets the server reuse it.
    done = _verify_on(llama_binary, gemma_model, tmp_path / "plain")
    assert done.status == "failed" and done.reason is not None and "--swa-full" in done.reason
    assert isinstance(done.evidence, VerifyEvidence) and not done.evidence.points
    assert done.evidence.rejected_samples == 4  # k = 1..4, one round
    fixed = _verify_on(llama_binary, gemma_model, tmp_path / "swa-full", ("--swa-full",))
    assert fixed.status == "done", fixed.reason
    assert isinstance(fixed.evidence, VerifyEvidence) and [p.k for p in fixed.evidence.points] == [1, 2, 3, 4]
