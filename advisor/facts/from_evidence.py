"""Flatten an evidence.json dict (docs/evidence.md, schema 1) into fact names (advisor/facts.py).

Missing data is simply absent: a step that was skipped or failed contributes nothing, so rules that
need its facts come out *unknown* instead of wrong.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from typing import Any

_THROTTLE_WORDS = ("throttl",)
_TRAP_CODES = ("trap-inflation", "trap", "repeat-inflation", "order-interaction")


def _m(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(float(value)) else None


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _put(out: dict[str, object], name: str, value: object) -> None:
    if value is not None:
        out[name] = value


def _step(evidence: Mapping[str, Any], step_id: str) -> tuple[Mapping[str, Any], list[Mapping[str, Any]]]:
    """(evidence, warnings) of a step that finished; empty when it was skipped, failed or absent."""
    step = _m(_m(evidence.get("steps")).get(step_id))
    if step.get("status") != "done":
        return {}, []
    warnings = [w for w in step.get("warnings") or [] if isinstance(w, Mapping)]
    return _m(step.get("evidence")), warnings


def _gpu(env: Mapping[str, Any], out: dict[str, object]) -> None:
    # evidence.environment.gpu is probes.gpu.probe.GpuReport.to_dict(): {"status", "gpus": [...]}; facts describe
    # the first card (the one a single-GPU home machine runs on) and how many there are.
    gpu = _m(env.get("gpu"))
    cards = [c for c in gpu.get("gpus") or [] if isinstance(c, Mapping)]
    if not cards:
        if gpu.get("status") in ("no-driver", "no-device"):
            out["gpu.count"] = 0
        return
    out["gpu.count"] = len(cards)
    first = cards[0]
    _put(out, "gpu.name", first.get("name") if isinstance(first.get("name"), str) else None)
    for key in ("peak_bandwidth_gbs", "vram_total_gib", "vram_free_gib"):
        _put(out, f"gpu.{key}", _num(first.get(key)))


def _model(env: Mapping[str, Any], out: dict[str, object]) -> None:
    # evidence.environment.model is probes.model.info.ModelInfo.to_dict() (+ bytes_per_token_gb).
    model = _m(env.get("model"))
    moe = model.get("is_moe", model.get("moe"))
    if isinstance(moe, bool):
        out["model.moe"] = moe
    for key, raw in (("total_params_b", "total_params"), ("active_params_b", "active_params")):
        value = _num(model.get(key))
        if value is None and _num(model.get(raw)) is not None:
            value = float(model[raw]) / 1e9
        _put(out, f"model.{key}", value)
    _put(out, "model.bytes_per_token_gb", _num(model.get("bytes_per_token_gb")))
    if moe:
        for key in ("expert_count", "expert_used_count"):
            _put(out, f"model.{key}", _int(model.get(key)))
    quant = model.get("quant", model.get("file_type"))
    _put(out, "model.quant", quant if isinstance(quant, str) else None)


def _environment(env: Mapping[str, Any], out: dict[str, object]) -> None:
    _gpu(env, out)
    _put(out, "host.ram_bandwidth_gbs", _num(_m(env.get("host")).get("ram_bandwidth_gbs")))
    engine = _m(env.get("engine"))
    for key in ("kind", "version"):
        _put(out, f"engine.{key}", engine.get(key) if isinstance(engine.get(key), str) else None)
    dialect = _m(engine.get("flag_dialect"))
    _put(out, "engine.flag_generation", dialect.get("generation") if isinstance(dialect.get("generation"), str)
         else None)
    types = dialect.get("spec_types")
    if isinstance(types, list | tuple):
        out["engine.spec_types"] = ",".join(str(t) for t in types)
    for key in ("draft_max_flag", "draft_model_flag", "p_min_flag"):
        _put(out, f"engine.{key}", dialect.get(key) if isinstance(dialect.get(key), str) else None)
    _model(env, out)


def _config(cfg: Mapping[str, Any], out: dict[str, object]) -> None:
    _put(out, "spec.method", cfg.get("spec_type") if isinstance(cfg.get("spec_type"), str) else None)
    _put(out, "spec.draft_model", cfg.get("draft_model") if isinstance(cfg.get("draft_model"), str) else None)
    _put(out, "spec.draft_max", _int(cfg.get("draft_max")))
    _put(out, "workload.concurrency", _int(cfg.get("concurrency_expected")))
    if isinstance(cfg.get("repeated_prompts"), bool):
        out["workload.repeated_prompts"] = cfg["repeated_prompts"]


def _cv_pct(samples: object) -> float | None:
    values = [v for v in (_num(s if not isinstance(s, Mapping) else s.get("tok_s")) for s in samples or [])
              if v is not None] if isinstance(samples, list) else []
    if len(values) < 2 or statistics.fmean(values) <= 0:
        return None
    return 100.0 * statistics.stdev(values) / statistics.fmean(values)


def _acceptance(ev: Mapping[str, Any], out: dict[str, object]) -> None:
    for key in ("rate", "rate_ci_low", "rate_ci_high", "mean_length", "repeat_inflation", "draft_coverage"):
        _put(out, f"acceptance.{key}", _num(ev.get(key)))
    if "acceptance.repeat_inflation" not in out:
        _put(out, "acceptance.repeat_inflation", _num(_m(ev.get("canary")).get("seen_rerun_inflation")))
    rates = {str(cat): _num(_m(row).get("rate")) for cat, row in _m(ev.get("per_category")).items()}
    known = {cat: r for cat, r in rates.items() if r is not None}
    if known:
        weakest = min(known, key=lambda c: known[c])
        out["acceptance.min_category"] = weakest
        out["acceptance.min_category_rate"] = known[weakest]
    if "spec.method" not in out and isinstance(ev.get("method"), str):
        out["spec.method"] = ev["method"]
    if "spec.draft_max" not in out:
        _put(out, "spec.draft_max", _int(ev.get("draft_max")))


def _ab(ev: Mapping[str, Any], out: dict[str, object]) -> None:
    for key in ("speedup", "ci_low", "ci_high", "outputs_match_rate"):
        _put(out, f"ab.{key}", _num(ev.get(key)))
    _put(out, "ab.n_prompts", _int(ev.get("n_prompts")))
    if ev.get("decision") in ("ENABLE", "SKIP", "INCONCLUSIVE"):
        out["ab.decision"] = ev["decision"]
    guards = {str(k): _m(v) for k, v in _m(ev.get("guards")).items()}
    if guards:
        failed = sorted(k for k, g in guards.items() if g.get("passed") is False)
        out["ab.guards_passed"] = not failed
        out["ab.warnings"] = ",".join(failed)
        throttle = [g.get("passed") for k, g in guards.items() if "throttl" in k]
        if throttle:
            out["measurement.throttled"] = any(p is False for p in throttle)


def facts_from_evidence(evidence: Mapping[str, Any]) -> dict[str, object]:
    """Flatten an evidence.json dict into facts; anything missing or malformed is left out."""
    out: dict[str, object] = {}
    _environment(_m(evidence.get("environment")), out)
    _config(_m(evidence.get("config")), out)
    all_warnings: list[Mapping[str, Any]] = []
    base, w = _step(evidence, "baseline")
    all_warnings += w
    for key in ("decode_tok_s", "mbu"):
        _put(out, f"baseline.{key}", _num(base.get(key)))
    if base.get("bottleneck") in ("memory", "compute", "overhead"):
        out["baseline.bottleneck"] = base["bottleneck"]
    _put(out, "baseline.cv_pct", _num(base.get("cv_pct")) or _cv_pct(base.get("samples")))
    if "model.bytes_per_token_gb" not in out:
        _put(out, "model.bytes_per_token_gb", _num(base.get("bytes_per_token_gb")))
    acc, w = _step(evidence, "acceptance")
    all_warnings += w
    _acceptance(acc, out)
    ver, w = _step(evidence, "verify")
    all_warnings += w
    _put(out, "verify.cost_ratio_at_draft_max", _num(ver.get("cost_ratio_at_draft_max")))
    bat, w = _step(evidence, "batch")
    all_warnings += w
    _put(out, "batch.crossover_concurrency", _int(bat.get("crossover_concurrency")))
    levels = [_int(_m(lv).get("concurrency")) for lv in bat.get("levels") or []]
    _put(out, "batch.max_concurrency_tested", max((c for c in levels if c is not None), default=None))
    ab, w = _step(evidence, "ab")
    all_warnings += w
    _ab(ab, out)
    out["ab.measured"] = "ab.ci_low" in out and "ab.ci_high" in out
    codes = [str(x.get("code", "")) for x in all_warnings]
    if any(any(word in c for word in _THROTTLE_WORDS) for c in codes):
        out["measurement.throttled"] = True
    if any(c in _TRAP_CODES for c in codes):
        out["measurement.trap_suspected"] = True
    elif acc:  # the canary ran and raised nothing
        out["measurement.trap_suspected"] = False
    throttled_fraction = _num(_m(evidence.get("telemetry")).get("throttled_fraction"))
    if throttled_fraction is not None and throttled_fraction > 0:
        out["measurement.throttled"] = True  # GPU clocks held down during the run (sampler, ~10 Hz)
    pre, _ = _step(evidence, "preflight")
    _put(out, "vram.headroom_after_draft_gib", _num(pre.get("vram_headroom_after_draft_gib")))
    return out
