"""A realistic run (evidence + facts + verdict) shared by the report tests.

`sample_evidence()` is an evidence.json as a check writes it (schema 2, built from the typed evidence),
so tests may edit it as JSON and write it to a run folder; `sample_run()` is the same run decoded.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from advisor.ab.types import PairResult
from advisor.config import QUICK
from advisor.decide.verdict import Verdict
from advisor.decide.verdict_json import verdict_from_json
from advisor.evidence.codec import encode
from advisor.evidence.io import evidence_from_json
from advisor.evidence.schema import ConfigRecord, Environment, Evidence, StepRecord
from advisor.evidence.steps import (
    ABEvidence,
    AcceptanceEvidence,
    BaselineEvidence,
    BatchEvidence,
    BatchLevel,
    CanaryEvidence,
    CanaryRepeat,
    CategoryAcceptance,
    Guard,
    RequestRecord,
    VerifyEvidence,
    VerifyPoint,
)
from advisor.evidence.warnings import StepWarning, WarningCode
from advisor.text.message import Message
from probes.base import Unavailable
from probes.engines.base import EngineInfo
from probes.gpu.probe import GpuReport, GpuSnapshot
from probes.host import HostReport
from tests.factories import model_info

_NS = Unavailable("not-supported")
_TRAP_NOTE = StepWarning(WarningCode.TRAP_INFLATION, Message.plain("repeat inflation 1.04 (below 1.10)"))


def _gpu() -> GpuReport:
    fields = {f.name: _NS for f in dataclasses.fields(GpuSnapshot)}
    card = GpuSnapshot(**{**fields, "index": 0, "name": "NVIDIA GeForce RTX 4090", "uuid": "GPU-1234-private",
                          "vram_total_gib": 23.99, "peak_bandwidth_gbs": 1008.0, "peak_bandwidth_source": "nvml"})
    return GpuReport(status="ok", detail="", driver_version="560.35", cuda_driver_version="12.6", gpus=(card,))


def _host() -> HostReport:
    return HostReport(os="Linux", os_release="6.8", machine="x86_64", cpu_model="AMD Ryzen 9 7950X", cores_logical=32,
                      cores_physical=16, ram_total_gib=62.7, ram_free_gib=40.0, ram_bandwidth_gbs=60.0,
                      ram_bandwidth=_NS, power_source="ac", python_version="3.11.7")


def _record(tok_s: float, i: int) -> RequestRecord:
    return RequestRecord(prompt_id=f"b{i}", category="chat", arm="off", completion_tokens=192,
                         decode_ms=1000 * 191 / tok_s, ms_per_token=1000 / tok_s, tok_s=tok_s, prompt_tokens=40,
                         cached_tokens=0, prompt_ms=20.0, ttft_ms=95.0, total_ms=1700.0, draft_tokens=None,
                         draft_accepted=None, stop_reason="limit", output_digest="d", repetition_loop=False)


def _pairs() -> tuple[PairResult, ...]:
    out = []
    for i in range(24):
        off = 12.0 + (i % 5) * 0.3
        out.append(PairResult(prompt_id=f"p{i:02d}", off_ms_per_token=off,
                              on_ms_per_token=off / (1.18 + 0.04 * math.sin(i)), on_first=i % 2 == 1,
                              outputs_match=True))
    return tuple(out)


def sample_run() -> Evidence:
    """The sample run, typed."""
    config = ConfigRecord(quick=True, steps=("baseline", "acceptance", "verify", "batch", "ab"), mode="managed",
                          budget=QUICK, spec_type="ngram-mod", draft_max=8, concurrency_expected=1, temperature=0.0,
                          seed=42, repeated_prompts=False)
    env = Environment(
        gpu=_gpu(), host=_host(),
        model=model_info(total_params=7_600_000_000, active_params=7_600_000_000, file_type="Q4_K_M",
                         bytes_per_token=4_400_000_000, path="/home/alice/models/qwen2.5-7b-q4_k_m.gguf"),
        engine=EngineInfo(kind="llama.cpp", base_url="http://127.0.0.1:8080", version="b4100-abc",
                          model="/home/alice/models/qwen2.5-7b-q4_k_m.gguf"),
        command_lines={"on": ("llama-server", "--spec-type", "ngram-mod")})
    categories = {"code": CategoryAcceptance(0.71, 0.64, 0.78, 6, 600, 426),
                  "chat": CategoryAcceptance(0.44, 0.36, 0.52, 6, 600, 264),
                  "json": CategoryAcceptance(0.66, 0.58, 0.74, 6, 600, 396)}
    steps = {
        "baseline": StepRecord("done", elapsed_s=41.2, evidence=BaselineEvidence(
            samples=tuple(_record(v, i) for i, v in enumerate((118.0, 121.0, 122.4, 121.9, 123.0, 120.8))),
            n_requests=6, decode_tok_s=121.5, ms_per_token=8.23, ttft_ms=95.0, mbu=0.53, bottleneck="memory")),
        "acceptance": StepRecord("done", elapsed_s=120.0, warnings=(_TRAP_NOTE,), evidence=AcceptanceEvidence(
            rate=0.58, rate_ci_low=0.52, rate_ci_high=0.63, mean_length=2.9, per_category=categories,
            canary=CanaryEvidence(repeats=tuple(CanaryRepeat(i + 1, 150.0 + i, 0.6 + 0.005 * i) for i in range(8)),
                                  threshold=1.10))),
        "verify": StepRecord("done", elapsed_s=30.0, evidence=VerifyEvidence(
            depth_tokens=256, compute_ms_per_token=0.5, cost_ratio_at_draft_max=1.2,
            points=tuple(VerifyPoint(k, 8 + k * 0.2, 1 + 0.025 * k, 1 + 0.02 * k, 3) for k in (1, 2, 3, 4, 6, 8)))),
        "batch": StepRecord("done", elapsed_s=60.0, evidence=BatchEvidence(
            levels=tuple(_level(c) for c in (1, 2, 4, 8)), crossover_concurrency=4)),
        "ab": StepRecord("done", elapsed_s=300.0, evidence=ABEvidence(
            decision="ENABLE", speedup=1.18, ci_low=1.11, ci_high=1.25, n_prompts=24, outputs_match_rate=1.0,
            guards={"skew": Guard(True, Message.plain("mean/median agree")),
                    "order": Guard(True, Message.plain("no order effect"))},
            margin=0.02, pairs=_pairs())),
    }
    return Evidence(config=config, app_version="0.1.0", created_utc="2026-11-29T12:00:00Z",
                    run_id="20261129T120000Z-abcdef12", status="complete", environment=env, steps=steps,
                    prompts={"p03": "secret prompt number 3", "b0": "write me a sort"})


def _level(c: int) -> BatchLevel:
    return BatchLevel(concurrency=c, off_tok_s=120 * c ** 0.8, on_tok_s=140 * c ** 0.7)


def sample_evidence() -> dict[str, Any]:
    """The sample run as evidence.json holds it."""
    data: dict[str, Any] = encode(sample_run())
    return data


def run_from(data: dict[str, Any]) -> Evidence:
    """Decode an (edited) sample evidence dict."""
    return evidence_from_json(data)


def sample_facts() -> dict[str, Any]:
    return {"gpu.name": "NVIDIA GeForce RTX 4090", "engine.kind": "llama.cpp", "engine.version": "b4100-abc",
            "acceptance.rate": 0.58, "baseline.decode_tok_s": 121.5, "ab.speedup": 1.18, "ab.ci_low": 1.11,
            "ab.ci_high": 1.25, "ab.n_prompts": 24, "workload.concurrency": 1}


def sample_decision(word: str = "ENABLE") -> Verdict:
    """`sample_verdict` read back as the typed verdict, as a run folder's is."""
    return verdict_from_json(sample_verdict(word))


def sample_verdict(word: str = "ENABLE") -> dict[str, Any]:
    return {
        "verdict": word, "predicted_speedup": 1.21, "prediction_is_prior": False,
        "because": ["A/B speedup 1.18× with 95% CI 1.11–1.25×, wholly above 1.02×",
                    "acceptance 58% across 8 categories"],
        "flags": [{"engine": "llama.cpp",
                   "command": "llama-server --spec-type ngram-mod --draft-max 8"}],
        "trace": [{"rule": "ab-result", "branch": "clear-win", "fact": "ab.ci_low", "op": ">",
                   "expected": 1.02, "actual": 1.11, "passed": True},
                  {"rule": "ab-result", "branch": "clear-win", "fact": "acceptance.repeat_inflation", "op": "<=",
                   "expected": 1.1, "actual": None, "passed": None}],
        "missing_facts": ["acceptance.repeat_inflation"],
        "alternatives": ["a draft model (Qwen2.5-0.5B) may accept more on chat prompts"],
        "warnings": ["batch crossover at 4 concurrent requests: turn it off for multi-user serving"],
    }
