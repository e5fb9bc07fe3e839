"""The trap canary: one prompt repeated N times, and already-seen prompts run again.

With n-gram speculation the server's n-gram table remembers earlier outputs across requests (llama.cpp
`ngram-mod` shares one table over all sequences), so repeats get faster without the model getting any
faster: the "4–5×" of careless benchmarks. Inflation = repeat tok/s ÷ first-run tok/s; above 1.10 is a
warning that can never turn into ENABLE (MLPerf TEST04: duplicated samples must not run > 10% faster).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

from advisor import stats
from advisor.events import Event, Progress, QualityWarning, Sample
from advisor.steps.base import StepContext, warn
from advisor.steps.common import RequestRecord, run_prompt
from probes.engines.base import EngineAdapter

# MLPerf Inference TEST04: a run over duplicated samples may be at most 10% faster than the normal run.
MAX_REPEAT_INFLATION = 1.10

CanaryResult = tuple[dict[str, Any], list[QualityWarning]]


def run_canary(
    ctx: StepContext, adapter: EngineAdapter, seen: Sequence[RequestRecord]
) -> Generator[Event, None, CanaryResult]:
    """Run the repeat curve and the re-runs; return the canary evidence and its warnings."""
    budget, cfg = ctx.config.budget, ctx.config
    prompt = ctx.workload.canary
    repeats: list[dict[str, Any]] = []
    for i in range(budget.canary_repeats):
        if ctx.cancelled:
            break
        rec, _ = run_prompt(adapter, prompt.text, max_tokens=budget.max_tokens, seed=cfg.seed,
                            temperature=cfg.temperature, prompt_id=prompt.id, category="canary", arm="on")
        rate = (rec.draft_accepted or 0) / rec.draft_tokens if rec.draft_tokens else None
        repeats.append({"i": i + 1, "tok_s": rec.tok_s, "rate": rate})
        if rec.tok_s:
            yield Sample("acceptance", "canary_tok_s", float(i + 1), rec.tok_s)
        if rate is not None:
            yield Sample("acceptance", "canary_rate", float(i + 1), rate)
        yield Progress("acceptance", i + 1, budget.canary_repeats, f"canary repeat {i + 1}")
    reruns: list[dict[str, Any]] = []
    by_id = {p.id: p for p in ctx.workload.acceptance}
    for first in [r for r in seen if r.tok_s][: budget.canary_reruns]:
        if ctx.cancelled or first.prompt_id not in by_id:
            break
        again, _ = run_prompt(adapter, by_id[first.prompt_id].text, max_tokens=budget.max_tokens,
                              seed=cfg.seed, temperature=cfg.temperature, prompt_id=first.prompt_id,
                              category=first.category, arm="on")
        if again.tok_s and first.tok_s:
            reruns.append({"prompt_id": first.prompt_id, "first_tok_s": first.tok_s, "rerun_tok_s": again.tok_s,
                           "ratio": again.tok_s / first.tok_s})
    return summarise(repeats, reruns)


def summarise(repeats: list[dict[str, Any]], reruns: list[dict[str, Any]]) -> CanaryResult:
    """Inflation figures and the warning when either exceeds 1.10."""
    evidence: dict[str, Any] = {"repeats": repeats, "reruns": reruns}
    speeds = [r["tok_s"] for r in repeats if r["tok_s"]]
    repeat_inflation = stats.median(speeds[1:]) / speeds[0] if len(speeds) >= 2 else None
    rerun_inflation = stats.median([r["ratio"] for r in reruns]) if reruns else None
    candidates = [v for v in (repeat_inflation, rerun_inflation) if v is not None]
    evidence.update({
        "repeat_curve_inflation": repeat_inflation,
        "seen_rerun_inflation": rerun_inflation,
        "repeat_inflation": max(candidates) if candidates else None,
        "threshold": MAX_REPEAT_INFLATION,
    })
    warnings = []
    if candidates and max(candidates) > MAX_REPEAT_INFLATION:
        warnings.append(warn(
            "acceptance", "trap-inflation",
            f"repeating a prompt made speculation {max(candidates):.2f}× faster than its first run: the "
            "engine reuses earlier outputs, so benchmarks with repeated prompts overstate the speedup"))
    return evidence, warnings
