"""Flatten typed evidence (advisor/evidence/schema.py) into fact names (advisor/facts/specs.py).

Missing data is simply absent: a step that was skipped or failed contributes nothing, so rules that need
its facts come out *unknown* instead of wrong. The result is checked like a hand-written facts file
(names, types, ranges and cross-fact consistency), so a hand-edited evidence.json cannot say what a
measurement never could.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping

from advisor.ab.bands import measured_span
from advisor.ab.divergence import lossy_place
from advisor.evidence.placement import same_placement
from advisor.evidence.schema import Environment, Evidence
from advisor.evidence.steps import SPEC_GUARDS, ABEvidence, AcceptanceEvidence, BatchEvidence, arms_mismatch
from advisor.evidence.tuner import TuneEvidence
from advisor.evidence.warnings import THROTTLE_CODES, TRAP_CODES, WarningCode
from advisor.facts.checks import check_facts
from advisor.stats import repeat_cv_percent
from advisor.text.settings import DEFAULT_MARK
from advisor.tune.summary import tuner_summary
from probes.base import Unavailable
from probes.engines.llamacpp.devices import DeviceList

Facts = dict[str, object]


def _put(out: Facts, name: str, value: object) -> None:
    if value is not None and not isinstance(value, Unavailable):
        if isinstance(value, float) and not math.isfinite(value):
            return
        out[name] = value


def _gpu(env: Environment, out: Facts) -> None:
    # Facts describe the first card (the one a single-GPU home machine runs on) and how many there are.
    if env.gpu is None:
        return
    if not env.gpu.gpus:
        if env.gpu.status in ("no-driver", "no-device"):
            out["gpu.count"] = 0
        return
    out["gpu.count"] = len(env.gpu.gpus)
    first = env.gpu.gpus[0]
    _put(out, "gpu.name", first.name)
    _put(out, "gpu.peak_bandwidth_gbs", first.peak_bandwidth_gbs)
    _put(out, "gpu.vram_total_gib", first.vram_total_gib)
    _put(out, "gpu.vram_free_gib", first.vram_free_gib)


def _model(env: Environment, out: Facts) -> None:
    model = env.model
    if model is None:
        return
    out["model.moe"] = model.is_moe
    out["model.total_params_b"] = model.total_params / 1e9
    out["model.active_params_b"] = model.active_params / 1e9
    out["model.bytes_per_token_gb"] = model.bytes_per_token / 1e9
    if model.is_moe:
        out["model.expert_count"] = model.expert_count
        out["model.expert_used_count"] = model.expert_used_count
    _put(out, "model.quant", model.file_type)


# Why a draft runs on the CPU, as the draft-resources rule says it.
_CPU_REASON_WORDS = {"no-gpu": "no NVIDIA GPU", "no-room": "not enough free VRAM next to the target",
                     "cpu-layers": "-ngld 0 was asked"}


def _draft(env: Environment, out: Facts) -> None:
    draft = env.draft
    if draft is None:
        return
    _put(out, "vram.headroom_after_draft_gib", draft.headroom_gib)
    out["spec.draft_on_cpu"] = draft.on_cpu
    if draft.cpu_reason is not None:
        out["spec.draft_cpu_reason"] = _CPU_REASON_WORDS[draft.cpu_reason]


def _placement(env: Environment, out: Facts) -> None:
    """The servers' own load logs: the OFF arm's for the model (the baseline and the verify curve ran there),
    the ON arm's for the draft, and both side by side."""
    off, on = env.placement.get("off"), env.placement.get("on")
    first = off if off is not None else on
    if first is not None:
        _put(out, "model.gpu_layer_fraction", first.model.gpu_layer_fraction)
        _put(out, "model.layers_total", first.model.layers_total)
        _put(out, "model.experts_on_cpu", first.model.experts_on_cpu)
        _put(out, "engine.split_mode", first.model.split_mode)
    if on is not None and on.draft is not None and on.draft.devices:
        out["draft.device"] = ",".join(on.draft.gpu_devices) or "CPU"
    for arm, placement in (("off", off), ("on", on)):
        if placement is not None:
            _put(out, f"arms.{arm}_gpu_layers", placement.model.gpu_layers)
            _put(out, f"arms.{arm}_devices", ",".join(placement.model.devices) or None)
    if off is not None and on is not None:
        _put(out, "arms.placement_match", same_placement(off, on))


def _environment(env: Environment, out: Facts) -> None:
    _gpu(env, out)
    _draft(env, out)
    _placement(env, out)
    if env.host is not None:
        _put(out, "host.ram_bandwidth_gbs", env.host.ram_bandwidth_gbs)
    if env.engine is not None:
        _put(out, "engine.kind", env.engine.kind)
        _put(out, "engine.version", env.engine.version)
    if env.binary is not None and isinstance(env.binary.devices, DeviceList):
        # the build's own devices say what it computes on: a CPU-only build on a GPU box decodes from RAM
        gpu = [d.backend for d in env.binary.devices.devices if d.gpu]
        out["engine.backend"] = gpu[0] if gpu else "cpu"
    dialect = env.binary.dialect if env.binary is not None else None
    if dialect is not None and not isinstance(dialect, Unavailable):
        out["engine.flag_generation"] = dialect.generation
        if dialect.spec_types:
            out["engine.spec_types"] = ",".join(dialect.spec_types)
        _put(out, "engine.draft_max_flag", dialect.draft_max_flag)
        _put(out, "engine.draft_model_flag", dialect.draft_model_flag)
        _put(out, "engine.p_min_flag", dialect.p_min_flag)
    _model(env, out)
    measured = env.spec_args.get("on")
    if measured:  # the managed ON arm's flags: what the recommendation repeats, token for token
        out["spec.argv"] = shlex.join(measured)
    if env.spec_params:
        out["spec.settings"] = settings_text(measured or (), env.spec_params)


def settings_text(argv: tuple[str, ...] | list[str], params: Mapping[str, str]) -> str:
    """`ngram-mod: n-max 64, n-min 48, n-match 24†` — the drafter's knobs as it ran, each the engine chose itself
    marked (advisor/text/settings.py says what the mark means in the reader's language)."""
    spec_type = argv[argv.index("--spec-type") + 1] if "--spec-type" in argv else "draft-simple"
    parts = []
    for flag, value in params.items():
        name = flag.removeprefix("--").removeprefix("spec-").removeprefix(f"{spec_type}-").removeprefix("draft-")
        parts.append(f"{name} {value}" + (DEFAULT_MARK if flag not in argv else ""))
    return f"{spec_type}: " + ", ".join(parts)


def _config(ev: Evidence, out: Facts) -> None:
    cfg = ev.config
    _put(out, "spec.method", cfg.spec_type)
    _put(out, "spec.draft_model", cfg.draft_model)
    _put(out, "spec.draft_max", cfg.draft_max)
    _put(out, "workload.concurrency", cfg.concurrency_expected)
    # the options the model file needed (advisor/arms/model_flags.py) ran on both arms, as the user's own did
    added = ev.arms.model_flags.args if ev.arms is not None and ev.arms.model_flags is not None else ()
    if added or cfg.server_args:
        out["spec.server_args"] = shlex.join((*added, *cfg.server_args))
    _put(out, "workload.repeated_prompts", cfg.repeated_prompts)


def _acceptance(acc: AcceptanceEvidence, out: Facts) -> None:
    for key in ("rate", "rate_ci_low", "rate_ci_high", "mean_length", "draft_coverage"):
        _put(out, f"acceptance.{key}", getattr(acc, key))
    inflation = acc.repeat_inflation
    if inflation is None and acc.canary is not None:
        inflation = acc.canary.seen_rerun_inflation
    _put(out, "acceptance.repeat_inflation", inflation)
    known = {cat: row.rate for cat, row in acc.per_category.items() if row.rate is not None}
    if known:
        weakest = min(known, key=lambda c: known[c])
        out["acceptance.min_category"] = weakest
        out["acceptance.min_category_rate"] = known[weakest]
    if "spec.method" not in out:
        _put(out, "spec.method", acc.method)
    if "spec.draft_max" not in out:
        _put(out, "spec.draft_max", acc.draft_max)


def _tune(tune: TuneEvidence, out: Facts) -> None:
    """The tuner's choice; once applied, the method, length, acceptance and verify cost describe the chosen
    setting (replayed from the run at the longest draft), which is what the A/B then measured."""
    choice = tune.choice
    if choice is None:
        return
    out["tuner.method"], out["tuner.k"] = choice.method, choice.k
    _put(out, "tuner.predicted_speedup", choice.predicted_speedup)
    # the draft model's own speed, timed by the tuner: the perf model (prediction and reconciliation) uses it in
    # place of its size estimate. 0 means "not timed" for a head method, so only a timed draft model counts.
    described = choice.method if choice.applied else out.get("spec.method")
    timed = next((m.draft_cost_ratio for m in tune.methods if m.method == described), None)
    if timed is not None and timed > 0:
        out["spec.draft_cost_ratio"] = timed
    if not choice.applied:
        return
    out["spec.method"], out["spec.draft_max"] = choice.method, choice.k
    if choice.p_min is not None:
        out["spec.draft_p_min"] = choice.p_min
    if choice.n_match is not None:
        out["spec.ngram_mod_n_match"] = choice.n_match
    probe = tune.chosen_probe()
    point = next((p for p in probe.curve if p.k == choice.k), None) if probe is not None else None
    if point is not None and point.acceptance_rate is not None:
        # the run's CI was for the longest draft; the replayed rate has none of its own
        out.pop("acceptance.rate_ci_low", None)
        out.pop("acceptance.rate_ci_high", None)
        _put(out, "acceptance.rate", point.acceptance_rate)
        _put(out, "acceptance.mean_length", point.mean_length)
    if tune.verify_ratio_at_choice is not None:
        out["verify.cost_ratio_at_draft_max"] = tune.verify_ratio_at_choice


def _ab(ab: ABEvidence, out: Facts) -> None:
    if ab.on_argv:  # what this A/B measured (after the tuner, not what the ON server started with)
        out["spec.argv"] = shlex.join(ab.on_argv)
        if ab.on_params:
            out["spec.settings"] = settings_text(ab.on_argv, ab.on_params)
    for key in ("speedup", "ci_low", "ci_high", "ci_level", "outputs_match_rate", "early_divergence_rate",
                "early_divergence_low"):
        _put(out, f"ab.{key}", getattr(ab, key))
    out["ab.n_prompts"] = ab.n_prompts
    out["ab.decision"] = ab.decision
    _divergence_facts(ab, out)
    for name, value in (("output", lambda p: p.output_tokens), ("depth", lambda p: p.depth_tokens)):
        span = measured_span(ab.pairs, value)
        if span is not None:
            out[f"ab.{name}_tokens_low"], out[f"ab.{name}_tokens_high"] = span.low, span.high
    for key in ("drift", "effect_drift", "order_effect", "outlier_free_speedup", "cv_off_pct"):
        _put(out, f"ab.{key}", ab.effects.get(key))
    if "arm_outlier_pairs" in ab.effects:
        out["ab.arm_outlier_pairs"] = int(ab.effects["arm_outlier_pairs"])
    if ab.vs_default is not None:
        for key in ("speedup", "ci_low", "ci_high"):
            _put(out, f"ab.vs_default_{key}", getattr(ab.vs_default, key))
        out["ab.vs_default_argv"] = shlex.join(ab.vs_default.default_argv)
    if ab.pool is not None:  # fresh None: an attached server we did not restart, so not reset
        out["measurement.pool_reset"] = ab.pool.fresh is True
    if ab.guards:
        # cv-off withheld in files before issue 24; the paired interval carries that spread, so it no longer does
        failed = sorted(name for name, g in ab.guards.items() if g.passed is False and name != "cv-off")
        out["ab.guards_passed"] = not failed
        out["ab.warnings"] = ",".join(failed)
        if any(WarningCode.for_guard(name) in THROTTLE_CODES for name in failed):
            out["measurement.throttled"] = True


def _divergence_facts(ab: ABEvidence, out: Facts) -> None:
    """Divergence by margin (advisor/ab/divergence.py); absent in runs before it, which keep the plain bound."""
    if ab.probs_available is None and not ab.divergence_counts:
        return
    if ab.probs_available is not None:
        out["ab.probs_available"] = ab.probs_available
    counts = ab.divergence_counts
    out["ab.numerics_divergences"] = int(counts.get("numerics", 0))
    out["ab.lossy_divergences"] = int(counts.get("lossy", 0))
    out["ab.unclassified_divergences"] = int(counts.get("unknown", 0))
    _put(out, "ab.near_tie_share", ab.near_tie_share)
    lossy = [c for c in ab.divergences if c.kind == "lossy"]
    if lossy:
        out["ab.lossy_at"] = "; ".join(lossy_place(c) for c in lossy[:3]) + (
            f" (+{len(lossy) - 3} more)" if len(lossy) > 3 else "")


def _batch(bat: BatchEvidence, out: Facts) -> None:
    _put(out, "batch.crossover_concurrency", bat.crossover_concurrency)
    _put(out, "batch.max_concurrency_tested", max((lv.concurrency for lv in bat.levels), default=None))
    paired = sorted((lv for lv in bat.levels if lv.rounds), key=lambda lv: lv.concurrency)
    if not paired:  # a sweep of one run per arm (before paired rounds) has no CI to offer
        return
    out["batch.rounds"] = min(len(lv.rounds) for lv in paired)
    _put(out, "batch.stops_paying_at", bat.stops_paying_at)
    _put(out, "batch.pays_up_to", bat.pays_up_to)
    # The user's concurrency, or the next level above it: the gain only shrinks as concurrency grows, so the
    # level above is the cautious stand-in for one that was not measured.
    wanted = out.get("workload.concurrency")
    c = wanted if isinstance(wanted, int) and wanted >= 1 else 1
    level = next((lv for lv in paired if lv.concurrency >= c), None)
    if level is not None and level.speedup is not None:
        out["batch.compared_concurrency"] = level.concurrency
        _put(out, "batch.speedup_at_concurrency", level.speedup)
        _put(out, "batch.ci_low_at_concurrency", level.speedup_ci_low)
        _put(out, "batch.ci_high_at_concurrency", level.speedup_ci_high)


def facts_from_evidence(evidence: Evidence) -> Facts:
    """The facts of one run; raises FactsError when the numbers contradict each other."""
    out: Facts = {}
    _environment(evidence.environment, out)
    _config(evidence, out)
    if (pre := evidence.preflight) is not None and pre.sanity is not None:
        _put(out, "sanity.slowdown", pre.sanity.slowdown)
        _put(out, "sanity.tripped", pre.sanity.tripped)
    if (pre := evidence.preflight) is not None:
        spec = {name: g for name, g in pre.guards.items() if name in SPEC_GUARDS}
        wrong = arms_mismatch(pre.guards)
        if wrong:
            out["arms.mismatch"] = wrong
            out["arms.as_claimed"] = False
        elif spec and all(g.passed for g in spec.values()):
            out["arms.as_claimed"] = True
    if evidence.arms is not None:
        _put(out, "arms.single_resident", evidence.arms.mode == "single")
    if (base := evidence.baseline) is not None:
        _put(out, "baseline.decode_tok_s", base.decode_tok_s)
        _put(out, "baseline.mbu", base.mbu)
        _put(out, "baseline.bottleneck", base.bottleneck)
        # Saved runs without the figure get it from their samples: the repeats of one prompt, never the spread
        # across prompts (that is context length, not noise).
        cv = base.cv_pct if base.cv_pct is not None else repeat_cv_percent(base.repeats_by_prompt())
        _put(out, "baseline.cv_pct", cv)
        if "model.bytes_per_token_gb" not in out:
            _put(out, "model.bytes_per_token_gb", base.bytes_per_token_gb)
    if (acc := evidence.acceptance) is not None:
        _acceptance(acc, out)
    if (ver := evidence.verify) is not None:
        _put(out, "verify.cost_ratio_at_draft_max", ver.for_user()[1])
    if (tune := evidence.tune) is not None:
        _tune(tune, out)
    if (bat := evidence.batch) is not None:
        _batch(bat, out)
    if (ab := evidence.ab) is not None:
        _ab(ab, out)
    if (summary := tuner_summary(evidence)) is not None and summary.prediction_rel_err is not None:
        out["tuner.prediction_rel_err"] = abs(summary.prediction_rel_err)
    out["ab.measured"] = "ab.ci_low" in out and "ab.ci_high" in out
    codes = {w.code for w in evidence.warnings()}
    if codes & THROTTLE_CODES:
        out["measurement.throttled"] = True
    if WarningCode.CONTENDED in codes or evidence.ab is not None:  # the A/B's OFF arm was watched
        out["measurement.contended"] = WarningCode.CONTENDED in codes
    if codes & TRAP_CODES:
        out["measurement.trap_suspected"] = True
    elif evidence.acceptance is not None:  # the canary ran and raised nothing
        out["measurement.trap_suspected"] = False
    telemetry = evidence.telemetry
    if telemetry is not None and telemetry.throttled_fraction:
        out["measurement.throttled"] = True  # GPU clocks held down during the run (sampler, ~10 Hz)
    return check_facts(out, origin="evidence")
