"""The prediction's interval (advisor/perf/interval.py): wider where the facts leave more open, claims only what
it supports, SKIPs only when wholly below the margin, never ENABLEs; the backend the facts imply; and the spread
file fitted the way bench/calibration_spread.py says (issue 30)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main as cli_main
from advisor.decide.verdict import decide, verdict_to_json
from advisor.perf.backend import backend, from_gpu_name
from advisor.perf.constants import FITTED
from advisor.perf.interval import Spread, predictive_interval, shipped_spread
from advisor.perf.predict import predict
from bench.calibration_data import Case
from bench.calibration_spread import HeldOut, fit_spread, scale, score_intervals

EAGLE_4090 = {"acceptance.rate": 0.72, "spec.method": "eagle3", "gpu.name": "NVIDIA GeForce RTX 4090",
              "model.active_params_b": 8.0, "model.total_params_b": 8.0, "model.quant": "Q4_K_M"}
MEASURED = {**EAGLE_4090, "baseline.decode_tok_s": 120.0, "verify.cost_ratio_at_draft_max": 1.1,
            "spec.draft_cost_ratio": 0.05, "spec.draft_max": 4}


def _band(facts: dict[str, object], level: float = 0.8):  # type: ignore[no-untyped-def]
    pred = predict(facts)
    assert pred is not None
    return predictive_interval(pred, facts, level)


@pytest.mark.parametrize(("name", "want"), [
    ("NVIDIA GeForce RTX 4090", "cuda"), ("8x H100 (TP8)", "cuda"), ("2x A800", "cuda"), ("Apple M3 Ultra", "metal"),
    ("AMD Radeon RX 7900 XTX", "rocm"), ("AMD Ryzen AI MAX+ 395", "rocm"), ("Ascend NPU", "cann"),
    ("1x TPU-v4", "tpu"), ("Intel Arc A770", "sycl"), ("not stated", "unknown")])
def test_backend_from_the_gpu_name(name: str, want: str) -> None:
    assert from_gpu_name(name) == want


def test_backend_fact_wins_and_no_gpu_is_cpu() -> None:
    assert backend({"gpu.name": "RTX 4090", "engine.backend": "vulkan"}) == "vulkan"
    assert backend({"gpu.count": 0}) == "cpu"
    assert backend({}) == "unknown"


def test_a_cpu_build_on_a_gpu_box_is_predicted_from_ram_bandwidth() -> None:
    gpu = predict({**EAGLE_4090, "gpu.count": 1, "host.ram_bandwidth_gbs": 60.0})
    cpu = predict({**EAGLE_4090, "gpu.count": 1, "host.ram_bandwidth_gbs": 60.0, "engine.backend": "cpu"})
    assert gpu is not None and cpu is not None
    # the CPU build streams weights from RAM: a plain step many times the card's
    assert cpu.plain_step_ms > 5 * gpu.plain_step_ms


def test_every_open_question_widens_the_interval_and_measurements_narrow_it() -> None:
    measured, facts_only = _band(MEASURED), _band(EAGLE_4090)
    rare = _band({**EAGLE_4090, "gpu.name": "Apple M2 Ultra"})
    batched = _band({**EAGLE_4090, "workload.concurrency": 16})
    cpu_experts = _band({**EAGLE_4090, "model.experts_on_cpu": True})
    deep = _band({**EAGLE_4090, "workload.context_tokens": 32768})
    assert measured.unknowns == () and measured.measure_first is None
    assert measured.sigma == pytest.approx(shipped_spread().core)
    for wider in (rare, batched, cpu_experts, deep):
        assert wider.sigma > facts_only.sigma > measured.sigma
    assert "backend" in rare.unknowns and "batch" in batched.unknowns
    assert "experts" in cpu_experts.unknowns and "depth" in deep.unknowns
    for band in (measured, facts_only, rare):  # symmetric in log space around the prediction
        assert math.log(band.high / band.speedup) == pytest.approx(math.log(band.speedup / band.low))


def test_the_level_sets_the_width() -> None:
    assert _band(EAGLE_4090, 0.95).high > _band(EAGLE_4090, 0.8).high > _band(EAGLE_4090, 0.5).high


def test_claims_follow_the_interval() -> None:
    spread = Spread(core=0.1, terms=dict.fromkeys(("step", "verify", "backend", "batch", "experts", "depth"), 0.3),
                    common_backends=("cuda",), deep_context_tokens=8192)
    for facts, claim in ((MEASURED, "faster"), ({**MEASURED, "acceptance.rate": 0.02}, "slower")):
        pred = predict(facts)
        assert pred is not None
        assert predictive_interval(pred, facts, 0.8, spread).claim == claim
    pred = predict(EAGLE_4090)
    assert pred is not None
    wide = Spread(core=0.1, terms=dict.fromkeys(("step", "verify", "backend", "batch", "experts", "depth"), 3.0),
                  common_backends=("cuda",), deep_context_tokens=8192)
    band = predictive_interval(pred, EAGLE_4090, 0.8, wide)
    assert band.claim == "cannot-tell" and band.low < 1.0 < band.high and band.measure_first is not None


def test_decide_json_carries_the_interval_and_never_enables_from_a_prediction() -> None:
    out: dict[str, Any] = verdict_to_json(decide(EAGLE_4090))
    assert out["verdict"] == "INCONCLUSIVE" and out["decided_by"] == "prediction/predicted-faster"
    low, mid, high = out["predicted_speedup_low"], out["predicted_speedup"], out["predicted_speedup_high"]
    assert isinstance(low, float) and isinstance(mid, float) and isinstance(high, float)
    assert 1.0 < low < mid < high and out["prediction_level"] == 0.8 and out["prediction_claim"] == "faster"
    because = " ".join(str(b) for b in out["because"])
    assert "80% interval" in because and "confirm with the A/B" in because


def test_skip_only_when_the_whole_interval_is_below_the_margin() -> None:
    low_acc = {"acceptance.mean_length": 1.05, "spec.method": "draft", "spec.draft_max": 8}
    v: dict[str, Any] = verdict_to_json(decide(low_acc))
    assert v["verdict"] == "SKIP" and isinstance(v["predicted_speedup_high"], float)
    assert v["predicted_speedup_high"] < 1.02
    mild_facts = {"acceptance.rate": 0.05, "spec.method": "draft", "spec.draft_max": 4}
    mild: dict[str, Any] = verdict_to_json(decide(mild_facts))
    assert mild["verdict"] == "INCONCLUSIVE" and mild["prediction_claim"] == "cannot-tell"
    assert isinstance(mild["predicted_speedup_high"], float) and mild["predicted_speedup_high"] > 1.0
    remedies = " ".join(b["remedy"] for b in mild["blocking"])
    assert "narrows the interval most" in remedies


def test_a_facts_file_cannot_claim_the_derived_interval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "facts.json"
    path.write_text(json.dumps({**EAGLE_4090, "predict.low": 5.0, "predict.claim": "faster"}), encoding="utf-8")
    assert cli_main(["decide", "--facts", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["predicted_speedup_low"] < 5.0


def test_cli_and_chinese_lines_show_the_interval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(MEASURED), encoding="utf-8")
    assert cli_main(["decide", "--facts", str(path)]) == 0
    en = capsys.readouterr().out
    assert "80% interval" in en and "faster even at the bottom of the interval" in en
    assert cli_main(["decide", "--facts", str(path), "--lang", "zh"]) == 0
    zh = capsys.readouterr().out
    assert "80% 区间" in zh and "即使在区间下限也更快" in zh


def test_conformal_scale_and_the_fit_from_held_out_rows() -> None:
    z80 = 1.2815515655446004
    assert scale([0.1, -0.2, 0.3, -0.4], 0.8) == pytest.approx(0.4 / z80)  # rank ⌈5·0.8⌉ = 4 of 4
    facts = {"acceptance.rate": 0.7, "spec.method": "eagle3", "gpu.name": "RTX 4090", "model.active_params_b": 8.0}
    rows = [HeldOut(Case(f"c{i}", f"s{i % 4}", facts, 1.5, {}), "cuda", 1, r, None, FITTED)
            for i, r in enumerate((0.05, -0.1, 0.2, -0.3, 0.1, 0.4, -0.05, 0.15))]
    spread, notes = fit_spread(rows)
    assert spread.common_backends == ("cuda",) and spread.terms["step"] == 0.0  # no baselines to credit
    assert "assumed" in notes["batch"] and "assumed" in notes["depth"]
    scores = score_intervals(rows, 0.8, 1.02)
    assert scores.cases == len(rows) and scores.coverage is not None and 0.0 <= scores.coverage <= 1.0
