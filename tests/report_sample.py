"""A realistic run (evidence + facts + verdict) shared by the report tests."""

from __future__ import annotations

import math
from typing import Any


def sample_evidence() -> dict[str, Any]:
    pairs = []
    for i in range(24):
        off = 12.0 + (i % 5) * 0.3
        on = off / (1.18 + 0.04 * math.sin(i))
        pairs.append({"prompt_id": f"p{i:02d}", "prompt": f"secret prompt number {i}",
                      "off": {"ms_per_token": off, "output": "the model said hi"},
                      "on": {"ms_per_token": on, "output": "the model said hi"}})
    return {
        "schema_version": 1, "app_version": "0.1.0", "created_utc": "2026-11-29T12:00:00Z",
        "run_id": "20261129T120000Z-abcdef12", "status": "complete",
        "config": {"mode": "managed", "spec_type": "ngram-mod", "draft_model": None, "draft_max": 8,
                   "quick": True, "concurrency_expected": 1, "temperature": 0.0, "seed": 42},
        "environment": {
            "gpu": {"status": "ok", "driver_version": "560.35", "gpus": [
                {"index": 0, "name": "NVIDIA GeForce RTX 4090", "uuid": "GPU-1234-private",
                 "vram_total_gib": 23.99, "peak_bandwidth_gbs": 1008.0,
                 "power_limit_w": {"unavailable": "not-supported", "detail": ""}}]},
            "host": {"cpu_model": "AMD Ryzen 9 7950X", "cores": 16, "ram_total_gib": 62.7, "hostname": "alice-pc"},
            "engine": {"kind": "llama.cpp", "version": "b4100-abc",
                       "model": "/home/alice/models/qwen2.5-7b-q4_k_m.gguf"},
            "model": {"moe": False, "total_params_b": 7.6, "quant": "Q4_K_M", "bytes_per_token_gb": 4.4},
        },
        "steps": {
            "baseline": {"status": "done", "reason": None, "elapsed_s": 41.2, "warnings": [], "evidence": {
                "decode_tok_s": 121.5, "ms_per_token": 8.23, "ttft_ms": 95.0, "mbu": 0.53,
                "bottleneck": "memory", "samples": [118.0, 121.0, 122.4, 121.9, 123.0, 120.8]}},
            "acceptance": {"status": "done", "reason": None, "elapsed_s": 120.0, "warnings": [
                {"code": "trap-inflation", "message": "repeat inflation 1.04 (below 1.10)"}], "evidence": {
                "rate": 0.58, "rate_ci_low": 0.52, "rate_ci_high": 0.63, "mean_length": 2.9,
                "per_category": {"code": {"rate": 0.71, "ci_low": 0.64, "ci_high": 0.78, "n_prompts": 6},
                                 "chat": {"rate": 0.44, "ci_low": 0.36, "ci_high": 0.52, "n_prompts": 6},
                                 "json": {"rate": 0.66, "ci_low": 0.58, "ci_high": 0.74, "n_prompts": 6}},
                "canary": {"repeats": [{"i": i + 1, "tok_s": 150 + i, "rate": 0.6 + 0.005 * i}
                                       for i in range(8)]},
                "prompts": [{"category": "code", "text": "write me a sort"}]}},
            "verify": {"status": "done", "reason": None, "elapsed_s": 30.0, "warnings": [], "evidence": {
                "points": [{"k": k, "t_ms": 8 + k * 0.2, "ratio": 1 + 0.025 * k, "predicted_ratio": 1 + 0.02 * k}
                           for k in (1, 2, 3, 4, 6, 8)], "cost_ratio_at_draft_max": 1.2}},
            "batch": {"status": "done", "reason": None, "elapsed_s": 60.0, "warnings": [], "evidence": {
                "levels": [{"concurrency": c, "off_tok_s": 120 * c ** 0.8, "on_tok_s": 140 * c ** 0.7}
                           for c in (1, 2, 4, 8)], "crossover_concurrency": 4}},
            "ab": {"status": "done", "reason": None, "elapsed_s": 300.0, "warnings": [], "evidence": {
                "speedup": 1.18, "ci_low": 1.11, "ci_high": 1.25, "n_prompts": 24, "outputs_match_rate": 1.0,
                "decision": "ENABLE", "guards": {"skew": {"passed": True, "detail": "mean/median agree"},
                                                 "order": {"passed": True, "detail": "no order effect"}},
                "pairs": pairs}},
        },
    }


def sample_facts() -> dict[str, Any]:
    return {"gpu.name": "NVIDIA GeForce RTX 4090", "engine.kind": "llama.cpp", "engine.version": "b4100-abc",
            "acceptance.rate": 0.58, "baseline.decode_tok_s": 121.5, "ab.speedup": 1.18, "ab.ci_low": 1.11,
            "ab.ci_high": 1.25, "ab.n_prompts": 24, "workload.concurrency": 1}


def sample_verdict(word: str = "ENABLE") -> dict[str, Any]:
    return {
        "verdict": word, "predicted_speedup": 1.21, "prediction_is_prior": False,
        "because": ["A/B speedup 1.18× with 95% CI 1.11–1.25×, wholly above 1.02×",
                    "acceptance 58% across 8 categories"],
        "flags": [{"engine": "llama.cpp", "label": "n-gram speculation",
                   "command": "llama-server --spec-type ngram-mod --draft-max 8"}],
        "trace": [{"rule": "ab-result", "branch": "clear-win", "fact": "ab.ci_low", "op": ">",
                   "expected": 1.02, "actual": 1.11, "passed": True},
                  {"rule": "ab-result", "branch": "clear-win", "fact": "acceptance.repeat_inflation", "op": "<=",
                   "expected": 1.1, "actual": None, "passed": None}],
        "missing_facts": ["acceptance.repeat_inflation"],
        "alternatives": ["a draft model (Qwen2.5-0.5B) may accept more on chat prompts"],
        "warnings": ["batch crossover at 4 concurrent requests: turn it off for multi-user serving"],
    }
