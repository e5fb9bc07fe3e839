"""Parts of the canonical report: environment summary, step summaries, the verdict section, headline."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from pathlib import PurePath

from advisor.evidence.codec import encode
from advisor.evidence.schema import Evidence
from advisor.evidence.steps import ABEvidence, Guard
from advisor.report.headline import headline as headline  # re-exported: the report's parts live here
from advisor.report.series import charts_for_step, num, surface_chart, tuner_curve_chart
from advisor.report.tree import ByTask, GuardRow, Json, StepNote, StepSummary, TaskRow, TunerMethod, TunerSection
from advisor.report.verdict_view import report_verdict as report_verdict
from advisor.text.message import render
from advisor.tune.summary import tuner_summary

STEP_ORDER = ("preflight", "baseline", "acceptance", "verify", "tune", "batch", "ab")
ENV_SECTIONS = ("gpu", "host", "engine", "model")
# Identity details that let a shared report point at one person's machine (reliability.md §6.2).
_PRIVATE_KEYS = frozenset({"uuid", "serial", "hostname", "host_name", "node", "user", "username",
                           "pci_bus_id", "processes", "home", "cwd", "mac", "base_url", "engine_url", "engine_url_b"})
_PATH_KEYS = frozenset({"model", "path", "model_path", "binary", "file", "draft_model"})
_MAX_ROWS = 24
# Keys that carry prompt or model-output text anywhere inside step evidence.
PROMPT_KEYS = frozenset({"prompt", "prompts", "text", "output", "outputs", "content", "messages",
                         "completion", "completions", "response", "responses", "system_prompt"})


def _m(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def _scalar(key: str, value: object) -> Json:
    if isinstance(value, Mapping) and "unavailable" in value:
        return f"n/a ({value.get('unavailable')})"
    if isinstance(value, str) and (key in _PATH_KEYS or key.endswith("_path")) and ("/" in value or "\\" in value):
        return PurePath(value.replace("\\", "/")).name  # the file name says enough; the folder is private
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return None


def _flatten(obj: Mapping[str, object], prefix: str, out: dict[str, Json]) -> None:
    for key, value in obj.items():
        if str(key).lower() in _PRIVATE_KEYS or len(out) >= _MAX_ROWS:
            continue
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and "unavailable" not in value:
            _flatten(value, name + ".", out)
        elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            for i, item in enumerate(value[:4]):
                _flatten(item, f"{name}[{i}].", out)
        elif (clean := _scalar(str(key), value)) is not None:
            out[name] = clean


def environment_summary(evidence: Evidence | None, facts: Mapping[str, object]) -> dict[str, dict[str, Json]]:
    """Per section (gpu, host, engine, model, settings) the scalar details worth showing, identity removed."""
    env = _m(encode(evidence.environment)) if evidence is not None else {}
    out: dict[str, dict[str, Json]] = {}
    for section in ENV_SECTIONS:
        rows: dict[str, Json] = {}
        _flatten(_m(env.get(section)), "", rows)
        if not rows:  # a report from a facts file: show the facts of that section instead
            rows = {k.split(".", 1)[1]: v for k, v in facts.items()
                    if k.startswith(section + ".") and _scalar(k, v) is not None}
        if rows:
            out[section] = rows
    settings: dict[str, Json] = {}
    if evidence is not None:
        _flatten(_m(encode(evidence.config)), "", settings)
    if settings:
        out["settings"] = settings
    if evidence is not None and (arms := arms_rows(evidence)):
        out["arms"] = arms
    return out


def arms_rows(evidence: Evidence) -> dict[str, Json]:
    """How a managed check ran its arms: mode and why, the tightest device's budget, the servers it started."""
    plan = evidence.arms
    if plan is None:
        return {}
    rows: dict[str, Json] = {"mode": plan.mode, "requested": plan.requested, "reason": plan.reason_code,
                            "budgeted_on": plan.where}
    short = [d for d in plan.devices if not d.dual_fits]
    device = short[0] if short else (plan.devices[0] if plan.devices else None)
    if device is not None:
        rows |= {"device": device.device, "one_server_gib": device.single_gib, "two_servers_gib": device.dual_gib,
                 "spare_gib": device.margin_gib, "free_gib": device.free_gib}
    loads = [s.load_s for s in evidence.servers]
    if loads:
        rows |= {"servers_started": len(loads), "model_load_s_median": round(statistics.median(loads), 3)}
    return rows


def _guards(evidence: object) -> Mapping[str, Guard]:
    """The guards a step's evidence carries (preflight, the A/B), by name; none for the other steps."""
    guards = getattr(evidence, "guards", None)
    return {str(k): g for k, g in guards.items() if isinstance(g, Guard)} if isinstance(guards, Mapping) else {}


def step_summaries(evidence: Evidence | None, *, include_prompts: bool = False) -> tuple[StepSummary, ...]:
    """One entry per step in protocol order: status, reason, timing, warnings, scalar results, charts."""
    steps = evidence.steps if evidence is not None else {}
    ordered = [s for s in STEP_ORDER if s in steps] + sorted(s for s in steps if s not in STEP_ORDER)
    out = []
    for step_id in ordered:
        rec = steps[step_id]
        ev = _m(encode(rec.evidence)) if rec.evidence is not None else {}
        if not include_prompts:
            ev = _m(strip_prompts(ev))
        values = {str(k): v for k, v in ev.items() if v is None or isinstance(v, str | int | float | bool)}
        guards = tuple(GuardRow(name=str(name), passed=g.passed, detail=render(g.detail, "en"),
                                detail_zh=render(g.detail, "zh")) for name, g in _guards(rec.evidence).items())
        warnings = tuple(StepNote(w.code.value, render(w.message, "en"), render(w.message, "zh"))
                         for w in rec.warnings)
        reason = rec.reason
        out.append(StepSummary(id=str(step_id), status=rec.status,
                               reason=render(reason, "en") if reason is not None else None,
                               reason_zh=render(reason, "zh") if reason is not None else None,
                               elapsed_s=num(rec.elapsed_s), warnings=warnings, values=values, guards=guards,
                               charts=tuple(charts_for_step(rec.evidence)), evidence=dict(ev)))
    return tuple(out)


def _on_acceptance(evidence: Evidence) -> dict[str, tuple[int, int]] | None:
    """Per kind of task, (drafted, accepted) draft tokens over the A/B's spec-on requests — the settings and
    requests the row's speedup measured; None without A/B requests, empty where the engine reports no drafts
    per request."""
    rec = evidence.record("ab")
    samples = rec.evidence.samples if rec is not None and isinstance(rec.evidence, ABEvidence) else ()
    on = [r for r in samples if r.arm == "on"]
    if not on:
        return None
    if all(r.draft_tokens is None for r in on):
        return {}  # this engine does not say per request what it drafted
    out: dict[str, tuple[int, int]] = {}
    for r in on:
        # llama-server leaves draft_n out of a reply's timings when the request drafted nothing
        # (docs/engine-facts.md §1): where others reported drafts, a missing count is 0
        drafted, accepted = out.get(r.category, (0, 0))
        out[r.category] = (drafted + (r.draft_tokens or 0), accepted + (r.draft_accepted or 0))
    return out


def by_task(evidence: Evidence | None) -> ByTask:
    """Speedup per kind of task beside the pooled verdict, with each kind's acceptance, and the mix. The
    acceptance is the A/B's spec-on requests' where there are any (the same requests and settings as the
    speedup beside it), else the acceptance step's."""
    if evidence is None:
        return ByTask()
    ab, acc = evidence.ab, evidence.acceptance
    on = _on_acceptance(evidence)
    source = "ab" if on is not None else "acceptance" if acc is not None and acc.per_category else ""
    cats = sorted(set(ab.per_category if ab else {}) | set(on or (acc.per_category if acc else {})))
    rows = []
    for cat in cats:
        speed = ab.per_category.get(cat) if ab else None
        if on is not None:
            drafted, accepted = on.get(cat, (None, 0))
            rate = accepted / drafted if drafted else None
        else:
            step = acc.per_category.get(cat) if acc else None
            rate, drafted = (num(step.rate), step.drafted) if step else (None, None)
        rows.append(TaskRow(category=cat, n_pairs=speed.n_pairs if speed else 0,
                            speedup=num(speed.speedup) if speed else None,
                            ci_low=num(speed.ci_low) if speed else None, ci_high=num(speed.ci_high) if speed else None,
                            label=speed.label if speed else "too-few", acceptance_rate=rate, drafted=drafted))
    for group, bands in (("output", ab.per_output_band if ab else {}), ("depth", ab.per_depth_band if ab else {})):
        # the shape of the work beside the kinds of task (advisor/ab/bands.py), shortest band first
        rows += [TaskRow(group=group, category=band, n_pairs=s.n_pairs, speedup=num(s.speedup), ci_low=num(s.ci_low),
                         ci_high=num(s.ci_high), label=s.label) for band, s in bands.items()]
    workload = evidence.workload
    if workload is None:
        return ByTask(rows=tuple(rows), acceptance_source=source)
    return ByTask(rows=tuple(rows), acceptance_source=source, mix_requested=dict(workload.mix_requested),
                  mix_realised=dict(workload.mix_realised), mix_short=tuple(workload.mix_short))


def strip_prompts(obj: Json) -> Json:
    """A copy of `obj` without any key named like a prompt or an output, at any depth."""
    if isinstance(obj, Mapping):
        return {k: strip_prompts(v) for k, v in obj.items() if str(k).lower() not in PROMPT_KEYS}
    if isinstance(obj, list | tuple):
        return [strip_prompts(v) for v in obj]
    return obj


def tuner_section(evidence: Evidence | None) -> TunerSection | None:
    """The tuner's choice, predicted beside measured, every method's best, the curve chart with the measured
    point, the synthetic surface and the τ each draft length needs to break even."""
    tune = evidence.tune if evidence is not None else None
    if evidence is None or tune is None or tune.choice is None:
        return None
    summary = evidence.tuner or tuner_summary(evidence)
    choice = tune.choice
    probe = tune.chosen_probe()
    return TunerSection(
        method=choice.method, k=choice.k, command=" ".join(choice.argv), applied=choice.applied,
        predicted_speedup=num(choice.predicted_speedup),
        measured_speedup=num(summary.measured_speedup) if summary else None,
        measured_ci_low=num(summary.measured_ci_low) if summary else None,
        measured_ci_high=num(summary.measured_ci_high) if summary else None,
        prediction_rel_err=num(summary.prediction_rel_err) if summary else None,
        vs_default_speedup=num(summary.vs_default_speedup) if summary else None,
        vs_default_ci_low=num(summary.vs_default_ci_low) if summary else None,
        vs_default_ci_high=num(summary.vs_default_ci_high) if summary else None,
        default_command=" ".join(summary.default_argv) if summary else "",
        methods=tuple(TunerMethod(method=m.method, label=m.label, n_match=m.n_match, p_min=m.p_min, best_k=m.best_k,
                                  best_speedup=num(m.best_speedup), skipped=m.skipped) for m in tune.methods),
        n_match=choice.n_match, p_min=choice.p_min,
        default_n_match=tune.default_n_match, default_p_min=tune.default_p_min,
        per_category={c: num(v) for c, v in choice.predicted_per_category.items()},
        breakeven_tau={str(k): num(v) for k, v in tune.breakeven_tau.items()},
        surface_model_rel_err_median=num(tune.surface_model_rel_err_median),
        overhead=num(probe.overhead) if probe else None,
        overhead_fitted=num(probe.overhead_fitted) if probe else None,
        overhead_se=num(probe.overhead_se) if probe else None,
        speed_factor=num(probe.speed_factor) if probe else None,
        charts=tuple(c for c in (tuner_curve_chart(tune, summary), surface_chart(tune)) if c is not None),
    )
