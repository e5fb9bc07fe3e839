"""Step 4 — batch shape: concurrency c = 1, 2, 4, … up to the engine's slots, speculation on vs off.

Speculation spends spare compute; concurrent requests consume the same spare compute, so the gain shrinks
as c grows. The crossover c* is the first level where spec-on aggregate tok/s falls below spec-off.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from advisor.events import Event, Progress, Sample, StepDone, UnitDone
from advisor.evidence.steps import BatchEvidence, BatchLevel, RequestRecord
from advisor.evidence.warnings import WarningCode
from advisor.steps.base import StepContext, missing_arm, skipped, warn
from advisor.steps.common import percentile_or_none, run_prompt
from probes.base import Unavailable
from probes.engines.base import EngineAdapter, EngineError


def levels_for(budget_levels: Sequence[int], slots: int | None) -> list[int]:
    """The budget's levels that fit the engine's slots (all of them when slots are unknown)."""
    return [c for c in budget_levels if slots is None or c <= slots]


class BatchStep:
    """Aggregate output tok/s and per-request ms/token per concurrency level, on and off."""

    id = "batch"
    title = "Concurrency sweep (on vs off)"

    def run(self, ctx: StepContext) -> Iterator[Event]:
        """Run each level on both arms (alternating which goes first) and find the crossover."""
        t0 = time.monotonic()
        if ctx.arms.off is None or ctx.arms.on is None:
            yield missing_arm(self.id, "both a speculation-off and a speculation-on server")
            return
        pool = ctx.fresh_on(self.id)
        known = [n for n in (_slots(ctx.arms.off.adapter), _slots(ctx.arms.on.adapter)) if n is not None]
        slots = min(known) if known else None
        levels = levels_for(ctx.config.budget.batch_levels, slots)
        if not levels:
            yield skipped(self.id, "the engine reports no parallel slots")
            return
        prompts = list(ctx.workload.acceptance) or list(ctx.workload.baseline)
        rows: list[BatchLevel] = []
        for i, c in enumerate(levels):
            if ctx.cancelled:
                break
            order = ("off", "on") if i % 2 == 0 else ("on", "off")
            measured = {arm: _level(ctx.arms.off.adapter if arm == "off" else ctx.arms.on.adapter, arm, c,
                                    prompts, ctx) for arm in order}
            row = level_row(c, measured["off"], measured["on"])
            rows.append(row)
            yield UnitDone(self.id, f"c={c}", row)
            for arm, tok_s in (("off", row.off_tok_s), ("on", row.on_tok_s)):
                if tok_s:
                    yield Sample(self.id, f"{arm}_tok_s", float(c), tok_s)
            if row.speedup:
                yield Sample(self.id, "speedup", float(c), row.speedup)
            yield Progress(self.id, i + 1, len(levels), f"concurrency {c}")
        # break-even, not a policy: below 1× speculation makes the aggregate slower
        crossover = next((r.concurrency for r in rows if r.speedup is not None and r.speedup < 1.0), None)
        evidence = BatchEvidence(levels=tuple(rows), crossover_concurrency=crossover, slots=slots, pool=pool)
        warnings = []
        failed = sum(r.off_failed + r.on_failed for r in rows)
        if failed:
            warnings.append(warn(self.id, WarningCode.FAILURES, f"{failed} concurrent requests failed"))
        yield from warnings
        yield StepDone(self.id, "aborted" if ctx.cancelled else "done", evidence,
                       elapsed_s=time.monotonic() - t0, warnings=tuple(warnings))


def _slots(adapter: EngineAdapter) -> int | None:
    try:
        slots = adapter.info().slots
    except EngineError:
        return None
    return None if isinstance(slots, Unavailable) else int(slots)


@dataclass(frozen=True, slots=True)
class ArmLevel:
    """One arm at one concurrency: aggregate output tok/s, per-request ms/token percentiles, failures."""

    tok_s: float | None
    ms_per_token_p50: float | None
    ms_per_token_p99: float | None
    failed: int


def level_row(c: int, off: ArmLevel, on: ArmLevel) -> BatchLevel:
    """Both arms at concurrency `c` and the aggregate speedup between them."""
    speedup = on.tok_s / off.tok_s if off.tok_s and on.tok_s else None
    return BatchLevel(
        concurrency=c, off_tok_s=off.tok_s, off_ms_per_token_p50=off.ms_per_token_p50,
        off_ms_per_token_p99=off.ms_per_token_p99, off_failed=off.failed, on_tok_s=on.tok_s,
        on_ms_per_token_p50=on.ms_per_token_p50, on_ms_per_token_p99=on.ms_per_token_p99, on_failed=on.failed,
        speedup=speedup)


def _level(adapter: EngineAdapter, arm: str, c: int, prompts: Sequence[Any], ctx: StepContext) -> ArmLevel:
    n = c * ctx.config.budget.batch_requests_per_slot
    chosen = [prompts[j % len(prompts)] for j in range(n)]
    cfg = ctx.config

    def one(prompt: Any) -> RequestRecord | None:
        try:
            rec, _ = run_prompt(adapter, prompt.text, max_tokens=cfg.budget.max_tokens, seed=cfg.seed,
                                temperature=cfg.temperature, prompt_id=prompt.id, category=prompt.category, arm=arm)
            return rec
        except EngineError:
            return None

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=c) as pool:
        results = list(pool.map(one, chosen))
    wall_s = time.monotonic() - start
    ok = [r for r in results if r is not None]
    tokens = sum(r.completion_tokens for r in ok)
    mspt = [r.ms_per_token for r in ok if r.ms_per_token]
    return ArmLevel(tok_s=tokens / wall_s if wall_s > 0 and ok else None,
                    ms_per_token_p50=percentile_or_none(mspt, 50), ms_per_token_p99=percentile_or_none(mspt, 99),
                    failed=len(results) - len(ok))
