"""Step 4 — batch shape: concurrency c = 1, 2, 4, … up to the engine's slots, speculation on vs off.

Speculation spends spare compute; concurrent requests consume the same spare compute, so the gain shrinks
as c grows. Each level is measured in paired rounds (budget.batch_rounds): both arms back to back, the arm
that goes first alternating from round to round and from level to level, so drift and warm-up fall on both
arms alike. A round's speedup is on ÷ off aggregate tok/s; the level's speedup is their geometric mean, with a
t-interval on the log speedups (reliability.md §2.4). Where that whole interval lies below break-even
(policy.batch) speculation stopped paying; where it lies above, it still pays. Every round sends the next
prompts of the list to both arms, so the spec-on server meets a prompt again only once the list runs out.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from advisor.arms.arms import ArmName
from advisor.events import Event, Progress, Sample, StepDone, StepStatus, UnitDone
from advisor.evidence.steps import BatchEvidence, BatchLevel, BatchRound, RequestRecord
from advisor.evidence.warnings import WarningCode
from advisor.recommend.schedule import cutoffs, level_results
from advisor.stats import mean_t_interval
from advisor.steps.base import StepContext, missing_arm, skipped, warn
from advisor.steps.common import percentile_or_none, run_prompt
from advisor.steps.plan import PromptLike
from advisor.text.message import msg
from probes.base import Unavailable
from probes.engines.base import EngineAdapter, EngineError


def levels_for(budget_levels: Sequence[int], slots: int | None) -> list[int]:
    """The budget's levels that fit the engine's slots (all of them when slots are unknown)."""
    return [c for c in budget_levels if slots is None or c <= slots]


class BatchStep:
    """Aggregate output tok/s and per-request ms/token per concurrency level, on and off, in paired rounds."""

    id = "batch"
    title = "Concurrency sweep (on vs off)"

    def run(self, ctx: StepContext) -> Iterator[Event]:
        """Run each level's paired rounds and find where speculation stops paying."""
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
        policy = ctx.policy.batch
        rows: list[BatchLevel] = []
        cursor = 0
        per_round = ctx.config.budget.batch_requests_per_slot
        for i, c in enumerate(levels):
            if ctx.cancelled:
                break
            rounds = ctx.config.budget.batch_rounds
            chosen = [[prompts[(cursor + r * c * per_round + j) % len(prompts)] for j in range(c * per_round)]
                      for r in range(rounds)]
            cursor += rounds * c * per_round
            runs = _single_level(ctx, i, c, chosen) if ctx.arms.single else _paired_level(ctx, i, c, chosen)
            if not runs:
                break
            row = level_row(c, runs, policy.ci_level)
            rows.append(row)
            yield UnitDone(self.id, f"c={c}", row)
            for arm, tok_s in (("off", row.off_tok_s), ("on", row.on_tok_s)):
                if tok_s:
                    yield Sample(self.id, f"{arm}_tok_s", float(c), tok_s)
            if row.speedup:
                yield Sample(self.id, "speedup", float(c), row.speedup)
            yield Progress.unit(self.id, i + 1, len(levels), "batch_level", level=c)
        # the point crossover: the first level whose geometric-mean speedup is below break-even
        crossover = next((r.concurrency for r in rows if r.speedup is not None and r.speedup < policy.break_even),
                         None)
        cut = cutoffs(level_results(rows), policy.break_even)
        evidence = BatchEvidence(levels=tuple(rows), crossover_concurrency=crossover, slots=slots, pool=pool,
                                 stops_paying_at=cut.stops_paying_at, pays_up_to=cut.pays_up_to,
                                 break_even=policy.break_even)
        warnings = []
        failed = sum(r.off_failed + r.on_failed for r in rows)
        if failed:
            warnings.append(warn(self.id, WarningCode.FAILURES, msg("warn.batch_failures", n=failed)))
        yield from warnings
        status: StepStatus = "aborted" if ctx.cancelled else "done"
        reason = None
        if status == "done" and rows and all(r.off_tok_s is None and r.on_tok_s is None for r in rows):
            status, reason = "failed", msg("fail.batch_all", n=failed)  # no level measured
        yield StepDone(self.id, status, evidence, reason=reason, elapsed_s=time.monotonic() - t0,
                       warnings=tuple(warnings))


def _paired_level(ctx: StepContext, i: int, c: int,
                  chosen: Sequence[Sequence[PromptLike]]) -> list[tuple[bool, ArmRun, ArmRun]]:
    """Side by side: each round runs both arms back to back, the first one alternating by round and level."""
    assert ctx.arms.off is not None and ctx.arms.on is not None
    runs: list[tuple[bool, ArmRun, ArmRun]] = []
    for r, prompts in enumerate(chosen):
        if ctx.cancelled:
            break
        on_first = (i + r) % 2 == 1
        measured: dict[str, ArmRun] = {}
        for arm in (("on", "off") if on_first else ("off", "on")):
            adapter = ctx.arms.on.adapter if arm == "on" else ctx.arms.off.adapter
            measured[arm] = _run_arm(adapter, arm, c, prompts, ctx)
        runs.append((on_first, measured["off"], measured["on"]))
    return runs


def _single_level(ctx: StepContext, i: int, c: int,
                  chosen: Sequence[Sequence[PromptLike]]) -> list[tuple[bool, ArmRun, ArmRun]]:
    """Single-resident: one arm's rounds, then the other's on the same prompts (one swap per level). The arm
    already resident goes first, so levels alternate which arm leads; an ON server swapped in is new, so its
    n-gram pool holds no earlier level's text."""
    on_first = i % 2 == 0  # the sweep starts on the fresh ON server
    measured: dict[str, list[ArmRun]] = {"off": [], "on": []}
    order: tuple[ArmName, ArmName] = ("on", "off") if on_first else ("off", "on")
    for name in order:
        arm = ctx.use(name, f"batch c={c}")
        assert arm is not None
        for prompts in chosen:
            if ctx.cancelled:
                break
            measured[name].append(_run_arm(arm.adapter, name, c, prompts, ctx))
    return [(on_first, off, on) for off, on in zip(measured["off"], measured["on"], strict=False)]


def _slots(adapter: EngineAdapter) -> int | None:
    try:
        slots = adapter.info().slots
    except EngineError:
        return None
    return None if isinstance(slots, Unavailable) else int(slots)


@dataclass(frozen=True, slots=True)
class ArmRun:
    """One arm in one round at one concurrency: aggregate output tok/s, per-request ms/token, failures."""

    tok_s: float | None
    ms_per_token: tuple[float, ...]
    failed: int


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known else None


def level_row(c: int, runs: Sequence[tuple[bool, ArmRun, ArmRun]], ci_level: float) -> BatchLevel:
    """Concurrency `c` from its rounds (on_first, off, on): the paired speedups, their geometric mean and CI."""
    rounds = tuple(BatchRound(on_first, off.tok_s, on.tok_s,
                              on.tok_s / off.tok_s if off.tok_s and on.tok_s else None) for on_first, off, on in runs)
    logs = [math.log(r.speedup) for r in rounds if r.speedup is not None]
    speedup = low = high = None
    if logs:
        ci = mean_t_interval(logs, ci_level)
        speedup = ci.geo_mean
        if len(logs) >= 2:  # one round says nothing about spread
            low, high = ci.geo_low, ci.geo_high
    off_ms = [v for _, off, _ in runs for v in off.ms_per_token]
    on_ms = [v for _, _, on in runs for v in on.ms_per_token]
    return BatchLevel(
        concurrency=c, off_tok_s=_mean([off.tok_s for _, off, _ in runs]),
        off_ms_per_token_p50=percentile_or_none(off_ms, 50), off_ms_per_token_p99=percentile_or_none(off_ms, 99),
        off_failed=sum(off.failed for _, off, _ in runs), on_tok_s=_mean([on.tok_s for _, _, on in runs]),
        on_ms_per_token_p50=percentile_or_none(on_ms, 50), on_ms_per_token_p99=percentile_or_none(on_ms, 99),
        on_failed=sum(on.failed for _, _, on in runs), speedup=speedup, speedup_ci_low=low, speedup_ci_high=high,
        ci_level=ci_level if low is not None else None, rounds=rounds)


def _run_arm(adapter: EngineAdapter, arm: str, c: int, chosen: Sequence[PromptLike], ctx: StepContext) -> ArmRun:
    cfg = ctx.config

    def one(prompt: PromptLike) -> RequestRecord | None:
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
    return ArmRun(tok_s=tokens / wall_s if wall_s > 0 and ok and tokens else None,
                  ms_per_token=tuple(r.ms_per_token for r in ok if r.ms_per_token),
                  failed=len(results) - len(ok))
