"""The trap canary: one prompt repeated N times, and already-seen prompts run again.

With n-gram speculation the server's n-gram table remembers earlier outputs across requests (llama.cpp
`ngram-mod` shares one table over all sequences), so repeats get faster without the model getting any
faster: the "4–5×" of careless benchmarks. Inflation = repeat tok/s ÷ first-run tok/s; above the policy's
limit (rules/policy.toml [canary], MLPerf TEST04) it is a warning about the engine.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import replace

from advisor import stats
from advisor.core.policy import CanaryPolicy
from advisor.events import Event, Progress, QualityWarning, Sample
from advisor.evidence.steps import CanaryEvidence, CanaryRepeat, CanaryRerun, RequestRecord
from advisor.evidence.warnings import WarningCode
from advisor.steps.base import StepContext, warn
from advisor.steps.common import run_prompt
from advisor.text.message import msg

CanaryResult = tuple[CanaryEvidence, list[QualityWarning]]


def run_canary(ctx: StepContext, seen: Sequence[RequestRecord]) -> Generator[Event, None, CanaryResult]:
    """Run the repeat curve and the re-runs on their own fresh ON server; return the evidence and warnings.

    The canary fills the n-gram table with one text many times over; on its own server generation it can
    leak into no other phase (each later phase restarts the ON server again)."""
    pool = ctx.fresh_on("canary")
    assert ctx.arms.on is not None  # the acceptance step checked
    adapter, generation = ctx.arms.on.adapter, ctx.arms.on.generation
    budget, cfg = ctx.config.budget, ctx.config
    prompt = ctx.workload.canary
    repeats: list[CanaryRepeat] = []
    for i in range(budget.canary_repeats):
        if ctx.cancelled:
            break
        rec, _ = run_prompt(adapter, prompt.text, max_tokens=budget.max_tokens, seed=cfg.seed,
                            temperature=cfg.temperature, prompt_id=prompt.id, category="canary", arm="on",
                            generation=generation)
        rate = (rec.draft_accepted or 0) / rec.draft_tokens if rec.draft_tokens else None
        repeats.append(CanaryRepeat(i + 1, rec.tok_s, rate))
        if rec.tok_s:
            yield Sample("acceptance", "canary_tok_s", float(i + 1), rec.tok_s)
        if rate is not None:
            yield Sample("acceptance", "canary_rate", float(i + 1), rate)
        yield Progress.unit("acceptance", i + 1, budget.canary_repeats, "canary_repeat", n=i + 1)
    reruns: list[CanaryRerun] = []
    by_id = {p.id: p for p in ctx.workload.acceptance}
    chosen = [r for r in seen if r.tok_s][: budget.canary_reruns]
    for i, seen_record in enumerate(chosen):
        if ctx.cancelled or seen_record.prompt_id not in by_id:
            break
        # Seen on the acceptance server, not on this one: run it once here, then again, and time the second
        # run against the first on the same server (what a benchmark that re-sends a prompt would see).
        text = by_id[seen_record.prompt_id].text
        runs = [run_prompt(adapter, text, max_tokens=budget.max_tokens, seed=cfg.seed, temperature=cfg.temperature,
                           prompt_id=seen_record.prompt_id, category=seen_record.category, arm="on",
                           generation=generation)[0] for _ in range(2)]
        first, again = runs
        if again.tok_s and first.tok_s:
            reruns.append(CanaryRerun(seen_record.prompt_id, first.tok_s, again.tok_s, again.tok_s / first.tok_s))
        # counted on after the repeats: the clock plans the re-runs as units of the acceptance step
        yield Progress.unit("acceptance", budget.canary_repeats + i + 1, budget.canary_repeats + len(chosen),
                            "canary_rerun", n=i + 1)
    evidence, warnings = summarise(repeats, reruns, ctx.policy.canary)
    return replace(evidence, pool=pool), warnings


def summarise(repeats: Sequence[CanaryRepeat], reruns: Sequence[CanaryRerun],
              policy: CanaryPolicy) -> CanaryResult:
    """Inflation figures, and the warning when either exceeds the policy's limit."""
    speeds = [r.tok_s for r in repeats if r.tok_s]
    repeat_inflation = stats.median(speeds[1:]) / speeds[0] if len(speeds) >= 2 else None
    rerun_inflation = stats.median([r.ratio for r in reruns]) if reruns else None
    candidates = [v for v in (repeat_inflation, rerun_inflation) if v is not None]
    worst = max(candidates) if candidates else None
    evidence = CanaryEvidence(
        repeats=tuple(repeats), reruns=tuple(reruns), repeat_curve_inflation=repeat_inflation,
        seen_rerun_inflation=rerun_inflation, repeat_inflation=worst, threshold=policy.max_repeat_inflation)
    warnings = []
    if worst is not None and worst > policy.max_repeat_inflation:
        warnings.append(warn(
            "acceptance", WarningCode.TRAP_INFLATION, msg("warn.trap_inflation", x=worst)))
    return evidence, warnings
