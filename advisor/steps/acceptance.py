"""Step 2 — acceptance with speculation on: rate and mean acceptance length per task category, with CIs
by resampling prompts, per-position acceptance from `/metrics` deltas (requests are serial), then the trap
canary (advisor/steps/canary.py)."""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from advisor import stats
from advisor.events import Event, Progress, Sample, StepDone, UnitDone
from advisor.steps.base import StepContext, missing_arm, warn
from advisor.steps.canary import run_canary
from advisor.steps.common import RequestRecord, run_prompt
from probes.engines.base import EngineAdapter, SpecCounters

# The method's rule of thumb: below α = 0.5 most drafts are wasted work (DESIGN §5 / issue 5 rules).
LOW_ACCEPTANCE = 0.5


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
        adapter, budget, cfg = ctx.arms.on.adapter, ctx.config.budget, ctx.config
        for warm in ctx.workload.warmup[: budget.warmup_requests]:
            adapter.complete(warm.text, max_tokens=budget.max_tokens, seed=cfg.seed, temperature=cfg.temperature)
        records: list[RequestRecord] = []
        positions: list[SpecCounters] = []
        prompts = ctx.workload.acceptance
        for i, prompt in enumerate(prompts):
            if ctx.cancelled:
                break
            done = ctx.resume_units.get(prompt.id)
            if done is not None:  # measured before a restart: reuse the unit, never re-measure it
                records.append(RequestRecord(**done["record"]))
                continue
            before = adapter.spec_counters()
            rec, _ = run_prompt(adapter, prompt.text, max_tokens=budget.max_tokens, seed=cfg.seed,
                                temperature=cfg.temperature, prompt_id=prompt.id, category=prompt.category,
                                arm="on")
            delta = _delta(adapter, before)
            if delta is not None:
                positions.append(delta)
            records.append(rec)
            yield UnitDone(self.id, prompt.id, {"record": rec.to_dict()})
            if rec.draft_tokens:
                yield Sample(self.id, f"acceptance:{prompt.category}", float(i),
                             (rec.draft_accepted or 0) / rec.draft_tokens)
            yield Progress(self.id, i + 1, len(prompts), f"{prompt.category} · {prompt.id}")
        evidence = summarise(records, positions, ctx.config.seed)
        evidence["method"] = ctx.config.spec_type if ctx.config.draft_model is None else "draft"
        evidence["draft_max"] = ctx.config.draft_max if ctx.config.mode == "managed" else None
        warnings = []
        rate = evidence.get("rate")
        if rate is None:
            warnings.append(warn(self.id, "no-drafts", "the server drafted no tokens: is speculation really on?"))
        elif rate < LOW_ACCEPTANCE:
            warnings.append(warn(self.id, "low-acceptance",
                                 f"only {rate:.0%} of drafted tokens were accepted on these prompts"))
        if not ctx.cancelled:
            canary, canary_warnings = yield from run_canary(ctx, adapter, records)
            evidence["canary"] = canary
            evidence["repeat_inflation"] = canary.get("repeat_inflation")
            warnings.extend(canary_warnings)
        yield from warnings
        yield StepDone(self.id, "aborted" if ctx.cancelled else "done", evidence,
                       elapsed_s=time.monotonic() - t0, warnings=tuple(warnings))


def _delta(adapter: EngineAdapter, before: SpecCounters | Any) -> SpecCounters | None:
    if not isinstance(before, SpecCounters):
        return None
    after = adapter.spec_counters()
    if not isinstance(after, SpecCounters):
        return None
    try:
        return after.minus(before)
    except ValueError:  # server restarted between snapshots: that window is unusable
        return None


def _rate_ci(rows: Sequence[RequestRecord], seed: int) -> dict[str, float | int | None]:
    drafted = [float(r.draft_tokens or 0) for r in rows]
    accepted = [float(r.draft_accepted or 0) for r in rows]
    if sum(drafted) <= 0:
        return {"rate": None, "ci_low": None, "ci_high": None, "n_prompts": len(rows),
                "drafted": 0, "accepted": int(sum(accepted))}
    ci = stats.bootstrap_ratio_ci(accepted, drafted, seed=seed)
    return {"rate": ci.estimate, "ci_low": ci.low if math.isfinite(ci.low) else None,
            "ci_high": ci.high if math.isfinite(ci.high) else None, "n_prompts": len(rows),
            "drafted": int(sum(drafted)), "accepted": int(sum(accepted))}


def _mean_length(rows: Sequence[RequestRecord]) -> float | None:
    # Without /metrics, estimate target forwards per request as predicted_n − 1 − accepted (engines.md §1.1):
    # each forward yields accepted + 1 tokens, so mean length = tokens after the first ÷ forwards.
    tokens = sum(max(r.completion_tokens - 1, 0) for r in rows)
    forwards = sum(max(r.completion_tokens - 1 - (r.draft_accepted or 0), 0) for r in rows)
    return tokens / forwards if forwards > 0 else None


def summarise(records: Sequence[RequestRecord], deltas: Sequence[SpecCounters], seed: int) -> dict[str, Any]:
    """Evidence dict (docs/evidence.md `acceptance`)."""
    by_cat: dict[str, list[RequestRecord]] = defaultdict(list)
    for r in records:
        by_cat[r.category].append(r)
    per_category = {}
    for cat, rows in sorted(by_cat.items()):
        entry = _rate_ci(rows, seed)
        entry["mean_length"] = _mean_length(rows)
        per_category[cat] = entry
    overall = _rate_ci(records, seed) if records else {"rate": None}
    drafts = sum(d.drafts for d in deltas)
    accepted = sum(d.accepted_tokens for d in deltas)
    width = max((len(d.accepted_per_position) for d in deltas), default=0)
    per_pos = [sum(d.accepted_per_position[i] for d in deltas if i < len(d.accepted_per_position)) / drafts
               for i in range(width)] if drafts > 0 else []
    generated = sum(max(r.completion_tokens - 1, 0) for r in records)
    return {
        # How often the method had a draft at all: n-gram drafting on diverse prompts often finds nothing to copy.
        "draft_coverage": (sum(r.draft_tokens or 0 for r in records) / generated) if generated else None,
        "rate": overall.get("rate"), "rate_ci_low": overall.get("ci_low"), "rate_ci_high": overall.get("ci_high"),
        "mean_length": (1.0 + accepted / drafts) if drafts > 0 else _mean_length(records),
        "mean_length_source": "metrics" if drafts > 0 else "timings-estimate",
        "per_category": per_category, "per_position": per_pos,
        "samples": [r.to_dict() for r in records],
    }
