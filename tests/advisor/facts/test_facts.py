"""Facts registry, evidence flattening and --facts file validation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from advisor.errors import UserError
from advisor.evidence.codec import encode
from advisor.evidence.io import evidence_from_json
from advisor.evidence.steps import RequestRecord
from advisor.facts.checks import load_facts_file
from advisor.facts.from_evidence import facts_from_evidence
from advisor.facts.specs import FACT_SPECS
from tests.factories import model_info

_DESIGN_BLOCK = """gpu.name gpu.count gpu.peak_bandwidth_gbs gpu.vram_total_gib gpu.vram_free_gib
host.ram_bandwidth_gbs engine.kind engine.version model.moe model.total_params_b model.active_params_b
model.expert_count model.expert_used_count model.quant model.bytes_per_token_gb spec.method spec.draft_max
spec.draft_cost_ratio workload.concurrency workload.repeated_prompts baseline.decode_tok_s baseline.mbu
baseline.bottleneck acceptance.rate acceptance.mean_length acceptance.repeat_inflation
verify.cost_ratio_at_draft_max batch.crossover_concurrency ab.speedup ab.ci_low ab.ci_high ab.n_prompts
ab.outputs_match_rate vram.headroom_after_draft_gib"""
DESIGN_FACTS = _DESIGN_BLOCK.split()


def _sample(tok_s: float) -> RequestRecord:
    return RequestRecord(prompt_id="p", category="code", arm="off", completion_tokens=65, decode_ms=640.0,
                         ms_per_token=1000 / tok_s, tok_s=tok_s, prompt_tokens=20, cached_tokens=0, prompt_ms=5.0,
                         ttft_ms=7.0, total_ms=650.0, draft_tokens=None, draft_accepted=None, stop_reason="limit",
                         output_digest="x", repetition_loop=False)


def _category(rate: float) -> dict[str, object]:
    return {"rate": rate, "ci_low": None, "ci_high": None, "n_prompts": 2, "drafted": 10, "accepted": 5}

def _dialect() -> dict[str, object]:
    return {"generation": "new", "spec_types": ["none", "ngram-mod", "draft-simple"],
            "draft_max_flag": "--spec-draft-n-max", "draft_model_flag": "-md", "p_min_flag": "--spec-draft-p-min",
            "has_spec_synth": False, "has_metrics_flag": True}


EVIDENCE: dict[str, object] = {
    "schema_version": 1,
    "status": "complete",
    "config": {"mode": "managed", "spec_type": "ngram-mod", "draft_model": None, "draft_max": 8,
               "concurrency_expected": 1, "repeated_prompts": False},
    "environment": {
        "gpu": {"status": "no-driver", "detail": "NVML Shared Library Not Found",
                "driver_version": {"unavailable": "no-driver"}, "cuda_driver_version": {"unavailable": "no-driver"},
                "gpus": []},
        "engine": {"kind": "llama.cpp", "base_url": "http://127.0.0.1:8080", "version": "b9012", "model": "m"},
        "binary": {"path": "/bin/llama-server", "source": "path", "version": "b9012", "flag_dialect": _dialect()},
        "model": encode(model_info(total_params=135_000_000, active_params=135_000_000, file_type="Q4_1",
                                   bytes_per_token=90_000_000)),
    },
    "steps": {
        "baseline": {"status": "done", "warnings": [], "evidence": {
            "decode_tok_s": 100.0, "mbu": 0.4, "bottleneck": "overhead",
            "samples": [encode(_sample(98.0)), encode(_sample(100.0)), encode(_sample(102.0))]}},
        "acceptance": {"status": "done", "warnings": [{"code": "trap-inflation", "message": "x"}], "evidence": {
            "rate": 0.6, "rate_ci_low": 0.5, "rate_ci_high": 0.7, "mean_length": 2.1, "repeat_inflation": 1.3,
            "per_category": {"code": _category(0.8), "creative": _category(0.2)}}},
        "verify": {"status": "skipped", "reason": "no slot pinning",
                   "evidence": {"depth_tokens": 256, "compute_ms_per_token": 1.0, "cost_ratio_at_draft_max": 9}},
        "batch": {"status": "done", "evidence": {"crossover_concurrency": None,
                                                  "levels": [{"concurrency": 1}, {"concurrency": 4}]}},
        "ab": {"status": "done", "warnings": [{"code": "guard-order-interaction", "message": "x"}], "evidence": {
            "speedup": 1.2, "ci_low": 1.1, "ci_high": 1.3, "n_prompts": 20, "outputs_match_rate": 1.0,
            "decision": "ENABLE", "guards": {"skew": {"passed": True, "detail": ""},
                                             "throttling": {"passed": False, "detail": ""}}}},
    },
}


def test_registry_keeps_every_design_name() -> None:
    assert set(DESIGN_FACTS) <= set(FACT_SPECS)
    for spec in FACT_SPECS.values():
        assert spec.meaning and spec.source and spec.type in ("float", "int", "bool", "str")


def test_evidence_flattens_to_documented_names() -> None:
    facts = facts_from_evidence(evidence_from_json(EVIDENCE))
    assert set(facts) <= set(FACT_SPECS)
    assert facts["spec.method"] == "ngram-mod" and facts["spec.draft_max"] == 8
    assert facts["engine.spec_types"] == "none,ngram-mod,draft-simple"
    assert facts["engine.flag_generation"] == "new"
    assert "gpu.name" not in facts  # no driver: absent, not guessed
    assert facts["baseline.cv_pct"] == pytest.approx(2.0)
    assert facts["acceptance.min_category"] == "creative"
    assert facts["acceptance.min_category_rate"] == 0.2
    assert facts["measurement.trap_suspected"] is True
    assert "verify.cost_ratio_at_draft_max" not in facts  # a skipped step contributes nothing
    assert "batch.crossover_concurrency" not in facts and facts["batch.max_concurrency_tested"] == 4
    assert facts["ab.guards_passed"] is False and facts["ab.warnings"] == "throttling"
    assert facts["measurement.throttled"] is True
    assert facts["ab.measured"] is True


def test_empty_evidence_gives_almost_nothing() -> None:
    assert facts_from_evidence(evidence_from_json({"schema_version": 1})) == {"ab.measured": False}


def test_facts_file_unknown_name_suggests(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"acceptance.rat": 0.7}))
    with pytest.raises(UserError, match=re.escape("did you mean 'acceptance.rate'")):
        load_facts_file(path)


@pytest.mark.parametrize(("name", "value"), [("model.moe", "yes"), ("ab.n_prompts", 10.5),
                                             ("acceptance.rate", True), ("gpu.name", 3)])
def test_facts_file_type_errors(tmp_path: Path, name: str, value: object) -> None:
    path = tmp_path / "f.json"
    path.write_text(json.dumps({name: value}))
    with pytest.raises(UserError, match=name):
        load_facts_file(path)


def test_facts_file_ints_become_floats_and_null_is_absent(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"acceptance.rate": 1, "ab.ci_low": None}))
    assert load_facts_file(path) == {"acceptance.rate": 1.0}


def test_facts_file_not_json(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text("{nope")
    with pytest.raises(UserError, match="not valid JSON"):
        load_facts_file(path)


def test_signed_ab_effects_may_be_negative() -> None:
    """A machine that got faster during the A/B (drift < 0) or ON-first pairs that were faster (order effect < 0)
    are measurements, not impossible values (seen on a cluster check: ab.drift = -0.141)."""
    from advisor.facts.checks import check_facts

    facts = check_facts({"ab.drift": -0.141, "ab.order_effect": -0.03})
    assert facts["ab.drift"] == -0.141 and facts["ab.order_effect"] == -0.03
    with pytest.raises(UserError):
        check_facts({"ab.arm_outlier_pairs": -1})
