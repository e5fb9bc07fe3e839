"""Step "tune" — after the verify curve: predict the speedup of every draft length (and method) for each kind
of task and the user's mix, choose the best, and restart the ON server with it so the concurrency sweep and
the A/B measure exactly the choice (and the recommendation repeats exactly its flags).

Gain side: step 2 ran at the longest draft K with per-position counters; `advisor/tune/gain.py` replays it at
every shorter k. Cost side: the verify curve plus a per-step overhead fitted from the same run (and, where the
engine has `--spec-synth-len`, the synthetic surface, which checks the cost model at other k and τ).
Other methods are probed at K on a few prompts per category, and so are variants of the measured method's own
knobs (ngram-mod's n-match, a draft model's p-min: advisor/tune/variants.py); a draft model's own cost is
measured. Variants are listed last, so one is chosen only when predicted faster by the method tie margin.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator, Mapping
from dataclasses import replace

from advisor import methods
from advisor.config import TUNE_KS
from advisor.events import Event, Progress, Sample, StepDone
from advisor.evidence.steps import AcceptanceEvidence, BaselineEvidence, CategoryAcceptance, VerifyEvidence
from advisor.evidence.tuner import KSpeedup, MethodProbe, SurfacePoint, TuneEvidence, TunerChoice
from advisor.recommend.llamacpp import spec_type as spec_type_of
from advisor.steps.base import StepContext, skipped
from advisor.steps.tune_plan import DRAFT_SPEED_PROMPTS
from advisor.steps.tune_probes import (
    draft_ms_per_token,
    on_config,
    probe_prompts,
    run_method,
    run_surface_point,
)
from advisor.tune.choose import MethodPrediction, best_method, mix_weights, predict_method
from advisor.tune.cost import MIN_RUNS_FOR_JOINT_FIT, StepCost, fit_run
from advisor.tune.gain import steps_at
from advisor.tune.inputs import run_shapes, verify_ratios
from advisor.tune.plain_step import PlainStep, plain_step
from advisor.tune.surface import breakeven_tau, model_rel_err_median, surface_point
from advisor.tune.variants import Variant, knob_defaults, variants


class TuneStep:
    """Predict, choose, apply."""

    id = "tune"
    title = "Tuner: fastest draft length and method"

    def run(self, ctx: StepContext) -> Iterator[Event]:
        """Probe what the budget allows, predict every (method, k), restart the ON server with the best."""
        t0 = time.monotonic()
        acc = ctx.prior.get("acceptance")
        verify = ctx.prior.get("verify")
        base = ctx.prior.get("baseline")
        reason = _cannot_tune(ctx, acc, verify, base)
        if reason:
            yield skipped(self.id, reason)
            return
        assert isinstance(acc, AcceptanceEvidence) and isinstance(verify, VerifyEvidence)
        assert isinstance(base, BaselineEvidence) and base.ms_per_token and acc.draft_max
        plain = plain_step(base)
        assert plain is not None  # the baseline has a speed (checked above)
        t1, k_max = base.ms_per_token, acc.draft_max
        ks = tuple(k for k in TUNE_KS if k <= k_max)
        cost = StepCost(verify_ratios(verify))
        primary = _method_name(ctx, acc)
        probes = [(yield from self._probe_primary(ctx, primary, acc, cost, plain, k_max))]
        for method in _other_methods(ctx, primary):
            if ctx.cancelled:
                break
            probes.append((yield from self._probe_other(ctx, method, cost, plain, k_max)))
        for variant in _variants(ctx, primary):
            if ctx.cancelled:
                break
            probes.append((yield from self._probe_variant(ctx, probes[0], variant, cost, plain)))
        surface = [] if ctx.cancelled else (yield from self._surface(ctx, primary, acc, probes[0], cost, plain))
        mix = dict(ctx.workload.mix.requested) if ctx.workload.mix else None
        margin_k, margin_m = ctx.policy.tuner.k_tie_margin, ctx.policy.tuner.method_tie_margin
        predicted: list[tuple[MethodProbe, MethodPrediction]] = []
        for probe in probes:
            shapes = run_shapes(probe.per_category, probe.k_max)
            probe_cost = replace(cost, overhead=probe.overhead or 0.0,
                                 draft_cost_per_token=probe.draft_cost_ratio or 0.0)
            pred = predict_method(probe.method, shapes, probe_cost, ks, mix, margin_k)
            if pred is None:
                continue
            curve = tuple(KSpeedup(p.k, p.speedup, dict(p.per_category), p.tokens_per_step, p.acceptance_rate,
                                   p.mean_length) for p in pred.predictions)
            predicted.append((replace(probe, curve=curve, best_k=pred.best_k, best_speedup=pred.best_speedup), pred))
            for p in pred.predictions:
                yield Sample(self.id, f"predicted:{probe.label}", float(p.k), p.speedup)
        final_probes = tuple(p for p, _ in predicted) + tuple(p for p in probes if p.skipped)
        best = best_method([pred for _, pred in predicted], margin_m)
        best_probe = next((p for p, pred in predicted if pred is best), None)
        choice = (None if best is None or best_probe is None or ctx.cancelled
                  else (yield from self._apply(ctx, best, best_probe)))
        defaults = knob_defaults(ctx.arms.dialect)
        surface_cost = replace(cost, overhead=probes[0].overhead or 0.0)
        evidence = TuneEvidence(
            ks=ks, t1_ms=t1, t1_slope_ms_per_token=plain.slope_ms_per_token, methods=final_probes,
            surface=tuple(surface),
            surface_model_rel_err_median=model_rel_err_median(surface),
            breakeven_tau=breakeven_tau(surface_cost, list(ks)), choice=choice,
            verify_ratio_at_choice=cost.verify(choice.k + 1.0) if choice else None,
            weights=_weights(predicted, mix), default_n_match=defaults.n_match, default_p_min=defaults.p_min)
        yield StepDone(self.id, "aborted" if ctx.cancelled else "done", evidence, elapsed_s=time.monotonic() - t0,
                       reason="" if choice else "no method could be predicted")

    def _probe_primary(self, ctx: StepContext, method: str, acc: AcceptanceEvidence, cost: StepCost,
                       plain: PlainStep, k_max: int) -> Generator[Event, None, MethodProbe]:
        draft_ratio = 0.0
        if methods.family(method) != "ngram" and ctx.config.draft_model is not None:
            prompts = probe_prompts(ctx, 1)[:DRAFT_SPEED_PROMPTS]
            draft_ms = draft_ms_per_token(ctx, ctx.config.draft_model, prompts)
            draft_ratio = draft_ms / plain.ms_per_token if draft_ms else 0.0
            yield Progress.unit(self.id, 1, 1, "tune_draft_speed")
        argv = ctx.arms.on.spec_argv if ctx.arms.on is not None else ()
        return _fitted(MethodProbe(method=method, k_max=k_max, argv=tuple(argv), source="acceptance",
                                   per_category=dict(acc.per_category), draft_cost_ratio=draft_ratio), cost, plain,
                       ctx.policy.tuner.overhead_alpha, acc.per_prompt)

    def _probe_other(self, ctx: StepContext, method: str, cost: StepCost, plain: PlainStep,
                     k_max: int) -> Generator[Event, None, MethodProbe]:
        base = on_config(ctx)
        assert base is not None  # other methods are probed on managed servers only
        config = replace(base, spec_type=method, draft_model=None, draft_max=k_max, synth_len=None, n_match=None,
                         p_min=None)
        evidence, argv = yield from run_method(ctx, config, method,
                                               probe_prompts(ctx, ctx.config.budget.tune_probe_per_category))
        return _fitted(MethodProbe(method=method, k_max=k_max, argv=argv, source="probe",
                                   per_category=dict(evidence.per_category)), cost, plain,
                       ctx.policy.tuner.overhead_alpha, evidence.per_prompt)

    def _probe_variant(self, ctx: StepContext, primary: MethodProbe, variant: Variant, cost: StepCost,
                       plain: PlainStep) -> Generator[Event, None, MethodProbe]:
        """The measured method at the longest draft with one knob changed, on the same prompts as other methods.
        A draft model's own cost per token is the primary's (p-min changes how many tokens it drafts, not
        what each costs)."""
        base = on_config(ctx)
        assert base is not None  # variants are probed on managed servers only
        stype = spec_type_of(primary.method)
        config = replace(base, spec_type=stype, draft_max=primary.k_max, synth_len=None, n_match=variant.n_match,
                         p_min=variant.p_min,
                         draft_model=ctx.config.draft_model if methods.family(stype) != "ngram" else None)
        label = MethodProbe(primary.method, primary.k_max, n_match=variant.n_match, p_min=variant.p_min).label
        evidence, argv = yield from run_method(ctx, config, label,
                                               probe_prompts(ctx, ctx.config.budget.tune_probe_per_category))
        return _fitted(MethodProbe(method=primary.method, k_max=primary.k_max, argv=argv, source="probe",
                                   per_category=dict(evidence.per_category), n_match=variant.n_match,
                                   p_min=variant.p_min, draft_cost_ratio=primary.draft_cost_ratio), cost, plain,
                       ctx.policy.tuner.overhead_alpha, evidence.per_prompt)

    def _surface(self, ctx: StepContext, primary: str, acc: AcceptanceEvidence, probe: MethodProbe, cost: StepCost,
                 plain: PlainStep) -> Generator[Event, None, list[SurfacePoint]]:
        points = ctx.config.budget.surface_points
        base = on_config(ctx)
        dialect = ctx.arms.dialect
        if not points or base is None or dialect is None or not dialect.has_spec_synth:
            return []
        # Synthetic acceptance rides on real drafts: an n-gram drafter, on the prompts it drafted on most.
        method = primary if methods.family(primary) == "ngram" else "ngram-mod"
        ranked = sorted(acc.per_category.items(), key=lambda kv: -(kv[1].drafts or 0) / max(kv[1].generated, 1))
        top = [c for c, _ in ranked[:2]]
        prompts = [p for p in ctx.workload.acceptance if p.category in top][: ctx.config.budget.surface_requests]
        model = replace(cost, overhead=probe.overhead or 0.0)
        out: list[SurfacePoint] = []
        for k, tau in points:
            if ctx.cancelled or k > probe.k_max:
                continue
            run = yield from run_surface_point(ctx, base, method, k, tau, prompts)
            # t1 where these prompts decode, at the speed the acceptance run found against the baseline
            point = surface_point(run, model, plain.at(run.depth_tokens) * (probe.speed_factor or 1.0))
            out.append(point)
            if point.speedup is not None:
                yield Sample(self.id, f"surface:k={k}", point.tau_measured or tau, point.speedup)
        return out

    def _apply(self, ctx: StepContext, best: MethodPrediction,
               probe: MethodProbe) -> Generator[Event, None, TunerChoice]:
        base = on_config(ctx)
        top = next(p for p in best.predictions if p.k == best.best_k)
        n_match, p_min = probe.n_match, probe.p_min
        if base is None:  # attached: the user's server runs as it is; the choice is advice only
            return TunerChoice(method=best.method, k=best.best_k, argv=(), predicted_speedup=best.best_speedup,
                               predicted_per_category=dict(top.per_category), applied=False,
                               reason="attached server: restart it with these settings to measure them",
                               n_match=n_match, p_min=p_min)
        stype = spec_type_of(best.method)
        config = replace(base, spec_type=stype, draft_max=best.best_k, synth_len=None, n_match=n_match, p_min=p_min,
                         draft_model=ctx.config.draft_model if methods.family(stype) != "ngram" else None)
        ctx.fresh_on("tune:choice", config, hand_over=True)  # the A/B (or batch) measures it
        yield Progress.unit(self.id, 1, 1, "tune_chosen", label=probe.label, k=best.best_k)
        argv = ctx.arms.on.spec_argv if ctx.arms.on is not None else ()
        return TunerChoice(method=best.method, k=best.best_k, argv=tuple(argv), predicted_speedup=best.best_speedup,
                           predicted_per_category=dict(top.per_category), applied=True, n_match=n_match,
                           p_min=p_min)


def _cannot_tune(ctx: StepContext, acc: object, verify: object, base: object) -> str:
    """Why the tuner cannot run here (empty when it can), naming what would let it."""
    if ctx.config.draft_max is not None:
        return (f"you fixed the draft length (--draft-max {ctx.config.draft_max}); drop it to let the tuner "
                "choose")
    if not isinstance(acc, AcceptanceEvidence) or not acc.draft_max:
        return "needs the acceptance step at a known draft length"
    if not isinstance(verify, VerifyEvidence) or not verify.points:
        return "needs the verify-cost curve, which the \"Verify cost\" step did not measure"
    if not isinstance(base, BaselineEvidence) or not base.ms_per_token:
        return "needs the baseline decode speed, which the \"Baseline\" step did not measure"
    if not run_shapes(acc.per_category, acc.draft_max):
        return ("needs per-position acceptance counters from /metrics (llama.cpp from 2026-07 with --metrics); "
                "this engine does not report them")
    return ""


def _method_name(ctx: StepContext, acc: AcceptanceEvidence) -> str:
    if ctx.config.draft_model is not None:
        return "draft-simple"
    return acc.method or ctx.config.spec_type


def _other_methods(ctx: StepContext, primary: str) -> list[str]:
    """Budgeted methods the managed binary lists, besides the one step 2 measured."""
    if on_config(ctx) is None:
        return []
    dialect = ctx.arms.dialect
    listed = dialect.spec_types if dialect is not None else ()
    return [m for m in ctx.config.budget.tune_methods if m != primary and (not listed or m in listed)]


def _variants(ctx: StepContext, primary: str) -> list[Variant]:
    """Budgeted knob settings of the measured method this managed binary lists (none when attached)."""
    if on_config(ctx) is None:
        return []
    return variants(primary, ctx.config.draft_model is not None, ctx.arms.dialect, ctx.config.budget)


def _fitted(probe: MethodProbe, cost: StepCost, plain: PlainStep, alpha: float,
            per_prompt: Mapping[str, CategoryAcceptance]) -> MethodProbe:
    """The probe with its speed and per-step overhead fitted from its own run at the longest draft (each
    category's time in plain steps at its own depth). Categories pool prompts into steadier rows; with fewer
    than three (a user's prompt file is one) the fit cannot tell the machine's speed from a drafting overhead,
    so each prompt is a row then."""
    shapes = run_shapes(probe.per_category, probe.k_max)
    if not shapes:
        return replace(probe, skipped="the engine reported no per-position counters for this method")
    with_draft = replace(cost, draft_cost_per_token=probe.draft_cost_ratio or 0.0)
    rows = probe.per_category if len(shapes) >= MIN_RUNS_FOR_JOINT_FIT or not per_prompt else per_prompt
    row_shapes = run_shapes(rows, probe.k_max)
    runs = [(steps_at(row_shapes[r], probe.k_max), (a.decode_ms or 0.0) / plain.at(a.depth_tokens))
            for r, a in rows.items() if r in row_shapes and a.decode_ms]
    fit = fit_run(with_draft, runs, alpha)
    return replace(probe, overhead=fit.overhead, overhead_fitted=fit.overhead_fitted, overhead_se=fit.overhead_se,
                   speed_factor=fit.speed_factor)


def _weights(predicted: list[tuple[MethodProbe, MethodPrediction]], mix: dict[str, float] | None) -> dict[str, float]:
    """The token shares the mix speedup used (the first predicted method's categories)."""
    if not predicted:
        return {}
    probe = predicted[0][0]
    return mix_weights(sorted(run_shapes(probe.per_category, probe.k_max)), mix)
