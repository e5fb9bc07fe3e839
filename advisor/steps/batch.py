"""Step 4 — batch shape: concurrency c = 1, 2, 4, … up to the engine's slots, speculation on vs off.

Speculation spends spare compute; concurrent requests consume the same spare compute, so the gain shrinks
as c grows. The crossover c* is the first level where spec-on aggregate tok/s falls below spec-off.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from advisor.events import Event, Progress, Sample, StepDone, UnitDone
from advisor.steps.base import StepContext, missing_arm, skipped, warn
from advisor.steps.common import RequestRecord, percentile_or_none, run_prompt
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
        known = [n for n in (_slots(ctx.arms.off.adapter), _slots(ctx.arms.on.adapter)) if n is not None]
        slots = min(known) if known else None
        levels = levels_for(ctx.config.budget.batch_levels, slots)
        if not levels:
            yield skipped(self.id, "the engine reports no parallel slots")
            return
        prompts = list(ctx.workload.acceptance) or list(ctx.workload.baseline)
        rows: list[dict[str, Any]] = []
        for i, c in enumerate(levels):
            if ctx.cancelled:
                break
            order = ("off", "on") if i % 2 == 0 else ("on", "off")
            row: dict[str, Any] = {"concurrency": c}
            for arm in order:
                adapter = ctx.arms.off.adapter if arm == "off" else ctx.arms.on.adapter
                row.update(_level(adapter, arm, c, prompts, ctx))
            row["speedup"] = (row["on_tok_s"] / row["off_tok_s"]) if row.get("off_tok_s") and row.get(
                "on_tok_s") else None
            rows.append(row)
            yield UnitDone(self.id, f"c={c}", row)
            for arm in ("off", "on"):
                if row.get(f"{arm}_tok_s"):
                    yield Sample(self.id, f"{arm}_tok_s", float(c), row[f"{arm}_tok_s"])
            if row["speedup"]:
                yield Sample(self.id, "speedup", float(c), row["speedup"])
            yield Progress(self.id, i + 1, len(levels), f"concurrency {c}")
        crossover = next((r["concurrency"] for r in rows if r["speedup"] is not None and r["speedup"] < 1.0), None)
        evidence = {"levels": rows, "crossover_concurrency": crossover, "slots": slots}
        warnings = []
        failed = sum(r.get("off_failed", 0) + r.get("on_failed", 0) for r in rows)
        if failed:
            warnings.append(warn(self.id, "failures", f"{failed} concurrent requests failed"))
        yield from warnings
        yield StepDone(self.id, "aborted" if ctx.cancelled else "done", evidence,
                       elapsed_s=time.monotonic() - t0, warnings=tuple(warnings))


def _slots(adapter: EngineAdapter) -> int | None:
    try:
        slots = adapter.info().slots
    except EngineError:
        return None
    return None if isinstance(slots, Unavailable) else int(slots)


def _level(adapter: EngineAdapter, arm: str, c: int, prompts: Sequence[Any], ctx: StepContext) -> dict[str, Any]:
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
    return {
        f"{arm}_tok_s": tokens / wall_s if wall_s > 0 and ok else None,
        f"{arm}_ms_per_token_p50": percentile_or_none(mspt, 50),
        f"{arm}_ms_per_token_p99": percentile_or_none(mspt, 99),
        f"{arm}_failed": len(results) - len(ok),
    }
