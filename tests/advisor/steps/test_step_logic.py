"""Pure parts of the steps: repetition loops, MBU/bottleneck, the canary inflation, verify k ladder and
prediction, A/B policy for a pair budget, batch levels, acceptance summaries."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import asdict
from typing import Any

import pytest

from advisor.config import QUICK
from advisor.core.policy import default_policy
from advisor.evidence.codec import encode
from advisor.evidence.io import evidence_from_json
from advisor.evidence.jsonsafe import json_safe
from advisor.evidence.schema import Environment
from advisor.evidence.steps import CanaryRepeat, CanaryRerun, RequestRecord
from advisor.evidence.units import AcceptanceUnit
from advisor.perf import roofline
from advisor.perf.verify import bytes_ratio, predicted_times_ms
from advisor.steps import acceptance, canary
from advisor.steps.ab import policy_for
from advisor.steps.batch import levels_for
from advisor.steps.textcheck import repetition_loop
from advisor.steps.verify import k_values
from probes.gpu.probe import GpuSnapshot
from tests.factories import model_info


def test_repetition_loop() -> None:
    assert repetition_loop("the answer is " + "go on and " * 6)
    assert not repetition_loop("A calm, varied sentence that says several different things about the weather.")


def _env(gpu_peak: float | None, ram_gbs: float) -> Environment:
    cards = [{"peak_bandwidth_gbs": gpu_peak}] if gpu_peak is not None else []
    return evidence_from_json({"schema_version": 2, "app_version": "t", "created_utc": "",
                               "config": {"quick": True, "steps": [], "mode": "managed", "budget": asdict(QUICK)},
                               "environment": {"gpu": _gpu_report(cards), "host": _host(ram_gbs)}}).environment


def _gpu_report(cards: list[dict[str, Any]]) -> dict[str, Any]:
    fields = {f.name: {"unavailable": "not-supported"} for f in dataclasses.fields(GpuSnapshot)}
    snapshots = [{**fields, "index": i, "peak_bandwidth_source": "nvml", **c} for i, c in enumerate(cards)]
    return {"status": "ok" if cards else "no-device", "detail": "", "driver_version": "1",
            "cuda_driver_version": "1", "gpus": snapshots}


def _host(ram_gbs: float) -> dict[str, Any]:
    return {"os": "Linux", "os_release": "", "machine": "x86_64", "cpu_model": "cpu", "cores_logical": 2,
            "cores_physical": 2, "ram_total_gib": 8.0, "ram_free_gib": 4.0, "ram_bandwidth_gbs": ram_gbs,
            "ram_bandwidth": {"unavailable": "not-supported"}, "power_source": {"unavailable": "not-found"},
            "python_version": "3.11"}


def test_mbu_and_bottleneck() -> None:
    cut = default_policy().bottleneck
    assert roofline.mbu(0.5, 100.0, 100.0) == pytest.approx(0.5)
    assert roofline.classify(0.7, 4.0, cut) == "memory"
    assert roofline.classify(0.2, 0.1, cut) == "overhead"
    assert roofline.classify(0.2, 4.0, cut) == "compute"
    assert roofline.peak_bandwidth(_env(1008.0, 20.0)) == (1008.0, "gpu-nvml")
    assert roofline.peak_bandwidth(_env(None, 20.0)) == (20.0, "host-measured")
    model = model_info(bytes_per_token=1_000_000_000, kv_bytes_per_token=1000)
    assert roofline.bytes_per_token_gb(model, 1000) == pytest.approx(1.001)


def test_canary_flags_inflation_above_ten_percent() -> None:
    limit = default_policy().canary
    ev, warnings = canary.summarise(
        [CanaryRepeat(1, 100.0, 0.2), CanaryRepeat(2, 300.0, 0.9), CanaryRepeat(3, 320.0, 0.95)], [], limit)
    assert ev.repeat_inflation == pytest.approx(3.1)
    assert warnings and warnings[0].code == "trap-inflation"
    ev, warnings = canary.summarise([CanaryRepeat(1, 100.0, 0.2), CanaryRepeat(2, 105.0, 0.2)],
                                    [CanaryRerun("x", 100, 104, 1.04)], limit)
    assert ev.repeat_inflation == pytest.approx(1.05) and not warnings


def test_k_values_reach_gamma_plus_one() -> None:
    assert k_values(8) == [1, 2, 3, 4, 6, 8, 9]
    assert k_values(3) == [1, 2, 3, 4]
    assert k_values(15) == [1, 2, 3, 4, 6, 8, 12, 16]


def test_verify_prediction_dense_flat_moe_rising() -> None:
    dense = model_info(is_moe=False, bytes_per_token=100)
    moe = model_info(is_moe=True, bytes_per_token=100, routed_expert_bytes=800, expert_count=32, expert_used_count=2)
    assert bytes_ratio(dense, 8) == 1.0
    # 2 of 32 experts per token: one token reads 50 routed bytes of 800; 8 tokens touch ~12.4 experts.
    assert bytes_ratio(moe, 8) == pytest.approx((50 + 800 * 32 * (1 - (30 / 32) ** 8) / 32) / 100)
    times = predicted_times_ms(moe, t1_ms=10.0, compute_ms_per_token=1.0, ks=[1, 4])
    assert times[1] == pytest.approx(10.0)
    assert times[4] > predicted_times_ms(dense, 10.0, 1.0, [4])[4]


def test_ab_policy_limited_to_budget() -> None:
    base = default_policy().ab
    assert policy_for(base, 20).looks == (10, 20)
    assert policy_for(base, 60).looks == (10, 20, 30, 40, 50, 60)


def test_batch_levels_fit_slots() -> None:
    assert levels_for((1, 2, 4, 8), 4) == [1, 2, 4]
    assert levels_for((1, 2, 4), None) == [1, 2, 4]


def _rec(cat: str, drafted: int, accepted: int, n: int = 65) -> RequestRecord:
    return RequestRecord(prompt_id=f"{cat}-{drafted}-{accepted}", category=cat, arm="on", completion_tokens=n,
                         decode_ms=640.0, ms_per_token=10.0, tok_s=100.0, prompt_tokens=20, cached_tokens=0,
                         prompt_ms=5.0, ttft_ms=7.0, total_ms=650.0, draft_tokens=drafted,
                         draft_accepted=accepted, stop_reason="limit", output_digest="x", repetition_loop=False)


def test_acceptance_summary_per_category() -> None:
    recs = [_rec("code", 40, 30), _rec("code", 20, 10), _rec("chat", 10, 1), _rec("chat", 0, 0)]
    ev = encode(acceptance.summarise([AcceptanceUnit(r) for r in recs], seed=1))
    assert ev["per_category"]["code"]["rate"] == pytest.approx(40 / 60)
    assert ev["per_category"]["chat"]["rate"] == pytest.approx(0.1)
    assert ev["rate"] == pytest.approx(41 / 70)
    # Without /metrics: forwards = (n − 1 − accepted) per request.
    assert ev["mean_length_source"] == "timings-estimate"
    assert ev["mean_length"] == pytest.approx(4 * 64 / (4 * 64 - 41))


def test_json_safe_turns_nan_into_null() -> None:
    assert json_safe({"a": [math.nan, 1.0, math.inf]}) == {"a": [None, 1.0, None]}


def test_the_ab_counts_each_earlier_prompt_once_and_whether_any_of_its_replies_looped() -> None:
    from types import SimpleNamespace

    from advisor.ab.stopping import LossPrior
    from advisor.evidence.steps import AcceptanceEvidence, BaselineEvidence
    from advisor.steps.ab import loss_prior

    def rec(prompt_id: str, looped: bool) -> RequestRecord:
        return RequestRecord(prompt_id, "code", "off", 192, 1000.0, 5.0, 200.0, 40, 0, 50.0, 60.0, 1200.0, None,
                             None, "stop", "d", looped)

    # the baseline runs each prompt twice (one of b1's replies looped); the acceptance step's prompts are others
    baseline = BaselineEvidence(samples=(rec("b1", False), rec("b2", False), rec("b1", True), rec("b2", False)))
    acceptance = AcceptanceEvidence(samples=(rec("a1", True), rec("a2", False), rec("a3", False)))
    ctx = SimpleNamespace(prior={"baseline": baseline, "acceptance": acceptance})
    assert loss_prior(ctx) == LossPrior(looped=2, prompts=5)  # type: ignore[arg-type]
    assert loss_prior(SimpleNamespace(prior={})) == LossPrior()  # type: ignore[arg-type]
