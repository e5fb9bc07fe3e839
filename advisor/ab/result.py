"""Turn a kernel code plus look statistics into the `ABDecision` the report shows, with reasons."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from advisor.ab.guards import failed_names, noise_notes, tally
from advisor.ab.sequential import CODE_TO_DECISION, LookStats
from advisor.ab.types import ABDecision, Decision, PairResult, is_counted
from advisor.core.ab_policy import ABPolicy
from advisor.text import percent
from advisor.text.message import Message, render


def _arm_percentiles(counted: Sequence[PairResult]) -> tuple[float | None, ...]:
    if not counted:
        return (None, None, None, None)
    off = np.array([p.off_ms_per_token for p in counted])
    on = np.array([p.on_ms_per_token for p in counted])
    return tuple(float(np.percentile(a, q)) for a in (off, on) for q in (50.0, 99.0))


def _match_rate(counted: Sequence[PairResult]) -> float | None:
    checked = [p.outputs_match for p in counted if p.outputs_match is not None]
    return sum(checked) / len(checked) if checked else None


def _reasons(
    decision: Decision, look: int | None, n: int, s: LookStats | None,
    guards: dict[str, tuple[bool, Message]], policy: ABPolicy,
) -> list[str]:
    bar = f"{1 + policy.margin:.2f}×"
    if s is None:
        return [f"{n} complete pairs so far; the first look is at {policy.looks[0]} pairs."]
    g, lo, hi = (math.exp(float(v[0])) for v in (s.mean_d, s.ci_low_d, s.ci_high_d))
    est = f"{g:.3f}× ({percent(policy.ci_level)} CI {lo:.3f}–{hi:.3f}) over {n} prompts"
    failed = failed_names(guards)
    if decision is Decision.ENABLE:
        return [f"Speculative decoding is faster here: {est}, clearly above the {bar} worthwhile margin "
                f"(look {look} of {len(policy.looks)}); every check passed."]
    if decision is Decision.SKIP:
        out = [f"No worthwhile gain: {est}; the speedup is below {bar} with high confidence."]
        return out + [f"Also noted: {render(guards[name][1], 'en')}." for name in failed]
    if decision is Decision.CONTINUE:
        nxt = next((k for k in policy.looks if k > n), policy.looks[-1])
        return [f"{n} complete pairs so far ({est}); no verdict before the next planned look at {nxt} pairs."]
    if float(s.t_stat[0]) > policy.boundary and failed:
        head = f"The speedup {est} cleared the statistical bound, but checks failed, so it cannot be ENABLE."
        return [head] + [f"Check '{name}' failed: {render(guards[name][1], 'en')}." for name in failed]
    return [f"The speedup {est} is neither clearly above nor clearly below {bar}: leave speculation off, "
            "or run more prompts."]


def build_decision(
    code: int, look: int | None, counted: Sequence[PairResult], prefix: Sequence[PairResult],
    stats: LookStats | None, guards: dict[str, tuple[bool, Message]], policy: ABPolicy,
) -> ABDecision:
    """Assemble the verdict for the pairs `counted` (the first n complete pairs of `prefix`)."""
    decision = CODE_TO_DECISION[code]
    c = tally(prefix)
    p50_off, p99_off, p50_on, p99_on = _arm_percentiles(counted)
    reasons = _reasons(decision, look, len(counted), stats, guards, policy)
    if c.attempted > c.counted:
        reasons.append(f"{c.attempted - c.counted} of {c.attempted} pairs were left out (failed request or "
                       "repetition loop); no half pairs are used.")
    fields: dict[str, float | None] = dict.fromkeys(
        ("speedup", "ci_low", "ci_high", "bound_low", "bound_high", "ratio_of_totals", "median_speedup", "t_stat"))
    if stats is not None:
        mean, se = float(stats.mean_d[0]), float(stats.sd_d[0]) / math.sqrt(stats.n)
        fields.update(
            speedup=math.exp(mean), ci_low=math.exp(float(stats.ci_low_d[0])),
            ci_high=math.exp(float(stats.ci_high_d[0])), bound_low=math.exp(mean - policy.boundary * se),
            bound_high=math.exp(mean + policy.boundary * se), ratio_of_totals=float(stats.ratio_totals[0]),
            median_speedup=math.exp(float(stats.median_d[0])), t_stat=float(stats.t_stat[0]),
        )
    return ABDecision(
        decision=decision, look=look, n_pairs=len(counted), n_attempted=c.attempted,
        n_failed_off=c.failed_off, n_failed_on=c.failed_on, **fields,
        off_p50_ms=p50_off, off_p99_ms=p99_off, on_p50_ms=p50_on, on_p99_ms=p99_on,
        outputs_match_rate=_match_rate(counted), guards=dict(guards), reasons=tuple(reasons),
        notes=noise_notes(stats, policy) if stats is not None else {},
        effects=_effects(stats) if stats is not None else {},
    )


def _effects(s: LookStats) -> dict[str, float]:
    return {"drift": float(s.drift_total[0]), "effect_drift": float(s.effect_drift[0]),
            "order_effect": math.expm1(float(s.order_diff_d[0])),
            "arm_outlier_pairs": float(s.outlier_pairs[0]),
            "outlier_free_speedup": math.exp(float(s.outlier_free_mean_d[0])), "cv_off_pct": float(s.cv_off_pct[0])}


def fail_closed(pairs: Sequence[PairResult], policy: ABPolicy, why: str) -> ABDecision:
    """INCONCLUSIVE with the reason, touching as little of the (possibly bad) input as possible."""
    try:
        n_att = len(pairs)
        n_ok = sum(1 for p in pairs if is_counted(p))
        n_off = sum(1 for p in pairs if p.off_error is not None)
        n_on = sum(1 for p in pairs if p.on_error is not None)
    except Exception:  # even the tallies failed: report zeros rather than raise into the UI
        n_att = n_ok = n_off = n_on = 0
    none: dict[str, float | None] = dict.fromkeys(
        ("speedup", "ci_low", "ci_high", "bound_low", "bound_high", "ratio_of_totals", "median_speedup",
         "t_stat", "off_p50_ms", "off_p99_ms", "on_p50_ms", "on_p99_ms", "outputs_match_rate"))
    return ABDecision(
        decision=Decision.INCONCLUSIVE, look=None, n_pairs=n_ok, n_attempted=n_att, n_failed_off=n_off,
        n_failed_on=n_on, **none, guards={"statistics": (False, Message.plain(why))},
        reasons=(f"No verdict: {why}. Leave speculation off and re-run.",),
    )
