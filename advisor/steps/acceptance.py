"""Step 2 — acceptance with speculation on: rate and mean acceptance length per task category, with CIs
by resampling prompts, per-position acceptance from `/metrics` deltas (requests are serial), then the trap
canary (advisor/steps/canary.py)."""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import replace

from advisor import stats
from advisor.core.policy import default_policy
from advisor.events import Event, Progress, QualityWarning, Sample, StepDone, UnitDone
from advisor.evidence.steps import AcceptanceEvidence, CategoryAcceptance, RequestRecord
from advisor.evidence.units import AcceptanceUnit, CounterDelta
from advisor.evidence.warnings import WarningCode
from advisor.steps.base import StepContext, missing_arm, warn
from advisor.steps.canary import run_canary
from advisor.steps.common import run_prompt
from advisor.steps.plan import PromptLike
from advisor.text.message import msg
from probes.engines.base import EngineAdapter, SpecCounters


class AcceptanceStep:
    """Spec-on requests across categories; records drafted/accepted tokens per prompt."""

    id = "acceptance"
    title = "Acceptance by task category (speculation on)"

    def run(self, ctx: StepContext) -> Iterator[Event]:
        """Warm up, measure every category, summarise with CIs, then run the canary."""
        t0 = time.monotonic()
        if ctx.arms.on is None:
            yield missing_arm(self.id, "a speculation-on server")
            return
        pool = ctx.fresh_on(self.id)
        arm = ctx.arms.on
        adapter = arm.adapter
        units: list[AcceptanceUnit] = []
        prompts = ctx.workload.acceptance
        for i, prompt in enumerate(prompts):
            if ctx.cancelled:
                break
            unit = ctx.resumed(prompt.id, AcceptanceUnit)
            if unit is not None:  # measured before a restart: reuse the unit, never re-measure it
                units.append(unit)
                continue
            unit = measure_prompt(adapter, prompt, ctx, arm.generation)
            units.append(unit)
            yield UnitDone(self.id, prompt.id, unit)
            rec = unit.record
            if rec.draft_tokens:
                yield Sample(self.id, f"acceptance:{prompt.category}", float(i),
                             (rec.draft_accepted or 0) / rec.draft_tokens)
            yield Progress.unit(self.id, i + 1, len(prompts), "acceptance_prompt", category=prompt.category,
                                prompt=prompt.id)
        method = ctx.config.spec_type if ctx.config.draft_model is None else "draft"
        evidence = replace(summarise(units, ctx.config.seed, method=method, draft_max=ctx.draft_cap,
                                     ci_level=ctx.policy.acceptance.ci_level), pool=pool)
        warnings: list[QualityWarning] = []
        if evidence.rate is None:
            warnings.append(warn(self.id, WarningCode.NO_DRAFTS,
                                 msg("warn.no_drafts")))
        elif evidence.rate < ctx.policy.acceptance.low_rate_warning:
            warnings.append(warn(self.id, WarningCode.LOW_ACCEPTANCE,
                                 msg("warn.low_acceptance", rate=evidence.rate)))
        if not ctx.cancelled:
            canary, canary_warnings = yield from run_canary(ctx, [u.record for u in units])
            evidence = replace(evidence, canary=canary, repeat_inflation=canary.repeat_inflation)
            warnings.extend(canary_warnings)
        yield from warnings
        yield StepDone(self.id, "aborted" if ctx.cancelled else "done", evidence,
                       elapsed_s=time.monotonic() - t0, warnings=tuple(warnings))


def measure_prompt(adapter: EngineAdapter, prompt: PromptLike, ctx: StepContext, generation: int) -> AcceptanceUnit:
    """One spec-on request and the speculative counters it moved (serial requests: the delta is its own)."""
    budget, cfg = ctx.config.budget, ctx.config
    before = adapter.spec_counters()
    rec, _ = run_prompt(adapter, prompt.text, max_tokens=budget.max_tokens, seed=cfg.seed,
                        temperature=cfg.temperature, prompt_id=prompt.id, category=prompt.category,
                        arm="on", generation=generation)
    return AcceptanceUnit(rec, _delta(adapter, before))


def _delta(adapter: EngineAdapter, before: object) -> CounterDelta | None:
    if not isinstance(before, SpecCounters):
        return None
    after = adapter.spec_counters()
    if not isinstance(after, SpecCounters):
        return None
    try:
        d = after.minus(before)
    except ValueError:  # server restarted between snapshots: that window is unusable
        return None
    return CounterDelta(d.drafts, d.draft_tokens, d.accepted_tokens, d.accepted_per_position)


def _category(units: Sequence[AcceptanceUnit], seed: int, level: float) -> CategoryAcceptance:
    rows = [u.record for u in units]
    drafted = [float(r.draft_tokens or 0) for r in rows]
    accepted = [float(r.draft_accepted or 0) for r in rows]
    if sum(drafted) <= 0:
        cat = CategoryAcceptance(None, None, None, len(rows), 0, int(sum(accepted)), _mean_length(rows))
        return _with_counters(cat, units)
    ci = stats.bootstrap_ratio_ci(accepted, drafted, seed=seed, level=level)
    return _with_counters(CategoryAcceptance(
        rate=ci.estimate, ci_low=ci.low if math.isfinite(ci.low) else None,
        ci_high=ci.high if math.isfinite(ci.high) else None, n_prompts=len(rows),
        drafted=int(sum(drafted)), accepted=int(sum(accepted)), mean_length=_mean_length(rows)), units)


def _with_counters(cat: CategoryAcceptance, units: Sequence[AcceptanceUnit]) -> CategoryAcceptance:
    """Add the counter sums the tuner replays; only when every request has its counters and decode time
    (a gap would bias the sums)."""
    generated = sum(max(u.record.completion_tokens - 1, 0) for u in units)
    full = [u.counters for u in units if u.counters is not None]
    decode = [u.record.decode_ms for u in units if u.record.decode_ms is not None]
    if not units or len(full) < len(units) or len(decode) < len(units):
        return replace(cat, generated=generated)
    width = max((len(d.accepted_per_position) for d in full), default=0)
    return replace(cat, drafts=sum(d.drafts for d in full), counted_draft_tokens=sum(d.draft_tokens for d in full),
                   accepted_per_position=tuple(sum(d.accepted_per_position[i] for d in full
                                                   if i < len(d.accepted_per_position)) for i in range(width)),
                   generated=generated, decode_ms=sum(decode), depth_tokens=token_weighted_depth(units))


def token_weighted_depth(units: Sequence[AcceptanceUnit]) -> float | None:
    """The mean context depth of the units' decoded tokens (each request weighted by its tokens)."""
    weights = [max(u.record.completion_tokens - 1, 0) for u in units]
    total = sum(weights)
    return sum(w * u.record.decode_depth_tokens for w, u in zip(weights, units, strict=True)) / total if total else None


def _mean_length(rows: Sequence[RequestRecord]) -> float | None:
    # Without /metrics, estimate target forwards per request as predicted_n − 1 − accepted (engine-facts.md §1.1):
    # each forward yields accepted + 1 tokens, so mean length = tokens after the first ÷ forwards.
    tokens = sum(max(r.completion_tokens - 1, 0) for r in rows)
    forwards = sum(max(r.completion_tokens - 1 - (r.draft_accepted or 0), 0) for r in rows)
    return tokens / forwards if forwards > 0 else None


def summarise(units: Sequence[AcceptanceUnit], seed: int, *, method: str | None = None,
              draft_max: int | None = None, ci_level: float | None = None) -> AcceptanceEvidence:
    """Acceptance per category and overall, per-position acceptance and τ from the units' counter deltas; the
    intervals at `ci_level` (the policy's acceptance.ci_level when None)."""
    level = ci_level if ci_level is not None else default_policy().acceptance.ci_level
    records = [u.record for u in units]
    by_cat: dict[str, list[AcceptanceUnit]] = defaultdict(list)
    for u in units:
        by_cat[u.record.category].append(u)
    per_category = {cat: _category(rows, seed, level) for cat, rows in sorted(by_cat.items())}
    overall = _category(units, seed, level) if units else None
    deltas = [u.counters for u in units if u.counters is not None]
    drafts = sum(d.drafts for d in deltas)
    accepted = sum(d.accepted_tokens for d in deltas)
    width = max((len(d.accepted_per_position) for d in deltas), default=0)
    per_pos = tuple(sum(d.accepted_per_position[i] for d in deltas if i < len(d.accepted_per_position)) / drafts
                    for i in range(width)) if drafts > 0 else ()
    generated = sum(max(r.completion_tokens - 1, 0) for r in records)
    return AcceptanceEvidence(
        ci_level=level,
        # How often the method had a draft at all: n-gram drafting on diverse prompts often finds nothing to copy.
        draft_coverage=(sum(r.draft_tokens or 0 for r in records) / generated) if generated else None,
        rate=overall.rate if overall else None, rate_ci_low=overall.ci_low if overall else None,
        rate_ci_high=overall.ci_high if overall else None,
        mean_length=(1.0 + accepted / drafts) if drafts > 0 else _mean_length(records),
        mean_length_source="metrics" if drafts > 0 else "timings-estimate",
        per_category=per_category, per_position=per_pos, samples=tuple(records),
        method=method, draft_max=draft_max, per_prompt={u.record.prompt_id: _prompt_row(u) for u in units},
    )


def _prompt_row(unit: AcceptanceUnit) -> CategoryAcceptance:
    """One prompt's counter sums (what the tuner fits per prompt when there are too few categories)."""
    r = unit.record
    drafted, accepted = r.draft_tokens or 0, r.draft_accepted or 0
    row = CategoryAcceptance(accepted / drafted if drafted else None, None, None, 1, drafted, accepted,
                             _mean_length([r]))
    return _with_counters(row, [unit])
