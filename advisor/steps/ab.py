"""Step 5 — the paired A/B: every held-out prompt under both arms, order counterbalanced.

Side by side, pair i runs OFF→ON when i is even and ON→OFF when odd; single-resident, blocks of pairs lead
with each arm in turn (advisor/steps/pairs.py). After each pair the shipped decision function is asked; it
acts only at its planned looks, so asking often cannot inflate false ENABLEs. A failed request counts against
its arm and its pair is never counted half.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

from advisor.ab.bands import depth_bands, output_bands
from advisor.ab.categories import divergence_counts, early_divergence_low, early_divergence_rate, per_category
from advisor.ab.decision import decide_ab
from advisor.ab.stopping import LossPrior, projected_pairs
from advisor.ab.types import ABDecision, Decision, PairResult
from advisor.core.ab_policy import ABPolicy
from advisor.events import Event, Progress, Sample, StepDone, StepStatus, UnitDone
from advisor.evidence.steps import ABEvidence, AcceptanceEvidence, BaselineEvidence, Guard, RequestRecord
from advisor.evidence.warnings import WarningCode
from advisor.steps.ab_default import compare_with_default, default_config
from advisor.steps.base import StepContext, missing_arm, warn
from advisor.steps.divergence import Replayer, Replies, with_kinds
from advisor.steps.pairs import pair_units
from advisor.steps.plan import ab_prompts_for
from advisor.text.message import Message, msg, render


def policy_for(base: ABPolicy, max_pairs: int) -> ABPolicy:
    """`base` with its looks limited to the pair budget. Fewer looks under the 6-look Pocock constant spend
    less than α, so a quick run is conservative, never more permissive (reliability.md §2.5)."""
    looks = tuple(n for n in base.looks if n <= max_pairs) or (base.looks[0],)
    return replace(base, looks=looks)


class ABStep:
    """Paired, counterbalanced A/B on the held-out prompts with the group-sequential verdict."""

    id = "ab"
    title = "Paired A/B: speculation on vs off"

    def run(self, ctx: StepContext) -> Iterator[Event]:
        """Measure pairs until the decision function stops or the prompts/budget run out."""
        t0 = time.monotonic()
        if ctx.arms.off is None or ctx.arms.on is None:
            yield missing_arm(self.id, "both a speculation-off and a speculation-on server")
            return
        pool = ctx.fresh_on(self.id)
        limit = ctx.config.ab_pair_limit  # the budget's, or the full check's with --until-decided
        prompts = list(ctx.workload.ab)[: ab_prompts_for(limit)]
        # Looks past the held-out prompts we have could never be reached; plan only reachable ones.
        policy = policy_for(ctx.policy.ab, min(limit, len(prompts)))
        pairs: list[PairResult] = []
        records: list[RequestRecord] = []
        decision: ABDecision | None = None
        streak = {"off": 0, "on": 0}
        stop_reason: Message | None = None
        replies: list[Replies] = []
        measured = pair_units(ctx, prompts, "", replies)
        replayer = Replayer(ctx, f"{self.id}:divergence")
        # The count the clock is told: the pairs the limit allows (the spare prompts only replace failed pairs)
        # and the comparison with the engine's defaults that follows them when the tuner chose other flags.
        vs_planned = min(ctx.config.budget.ab_vs_default_pairs, limit) if default_config(ctx) is not None else 0
        loss = loss_prior(ctx)
        # before the first pair: the pairs the looks and the loops seen so far make likely (the clock's plan)
        first = min(len(prompts), projected_pairs([], policy, loss))
        yield Progress.unit(self.id, 0, first + vs_planned, "ab_plan", pairs=first)
        for i, (prompt, unit, new) in enumerate(measured):
            if new:
                yield UnitDone(self.id, prompt.id, unit)
            pair = unit.pair
            pairs.append(pair)
            records.extend(r for r in (unit.off.record, unit.on.record) if r is not None)
            for arm, err in (("off", pair.off_error), ("on", pair.on_error)):
                streak[arm] = streak[arm] + 1 if err else 0
            replayer.replay_new(replies)  # outside the timed requests; side by side only, in the pair's unit
            decision = decide_ab(pairs, policy)
            yield from _samples(i, pair, decision)
            # the clock is told where the looks will most likely stop, not only the limit
            expected = max(min(len(prompts), projected_pairs(pairs, policy, loss)), i + 1)  # spares replace lost pairs
            yield Progress.unit(self.id, i + 1, expected + vs_planned, "ab_pair", pair=i + 1,
                                decision=decision.decision.value)
            if decision.decision is not Decision.CONTINUE:
                break
            if max(streak.values()) >= policy.max_consecutive_failures:
                arm = max(streak, key=lambda a: streak[a])
                stop_reason = msg(f"stop.failures.{arm}", n=streak[arm])
                break
        measured.close()
        if ctx.cancelled and not stop_reason and (decision is None or decision.decision is Decision.CONTINUE):
            stop_reason = msg("stop.cancelled")
        if decision is None:
            decision = decide_ab(pairs, policy)
        # Outside the timed sets: what the OFF arm's own probabilities say of each divergence.
        margin = replayer.finish(replies)
        pairs = with_kinds(pairs, margin.checks)
        # The flags this A/B measured are what the recommendation repeats (after the tuner they differ from
        # the flags the ON server started with).
        on_argv, on_params = tuple(ctx.arms.on.spec_argv), ctx.arms.spec_params()
        vs_default = None
        if not ctx.cancelled and not stop_reason:
            vs_default = yield from compare_with_default(ctx, prompts[: len(pairs)], self.id, before=len(pairs))
        evidence = replace(summarise(decision, pairs, policy, stop_reason), pool=pool, on_argv=on_argv,
                           on_params=on_params, vs_default=vs_default, samples=tuple(records),
                           divergences=margin.checks, probs_available=margin.available,
                           probs_note=render(margin.note, "en") if margin.note else "")
        warnings = [warn(self.id, WarningCode.for_guard(name), detail)
                    for name, (ok, detail) in (*decision.guards.items(), *decision.notes.items()) if not ok]
        if margin.available is False and margin.note is not None:
            warnings.append(warn(self.id, WarningCode.DIVERGENCE_UNCHECKED, margin.note))
        if stop_reason:
            warnings.append(warn(self.id, WarningCode.STOPPED, stop_reason))
        yield from warnings
        status: StepStatus = "aborted" if ctx.cancelled else "done"
        reason = None
        if status == "done" and pairs and evidence.n_prompts == 0:
            # every pair lost an arm: nothing was compared, so the step failed whatever the loop's end says
            status, reason = "failed", msg("fail.no_pair", why=stop_reason or msg("fail.every_request"))
        yield StepDone(self.id, status, evidence, reason=reason, elapsed_s=time.monotonic() - t0,
                       warnings=tuple(warnings))


def loss_prior(ctx: StepContext) -> LossPrior:
    """The prompts the baseline and acceptance steps measured, and how many of them had a reply that looped
    (any of its requests): the share of held-out prompts whose pairs will be lost and replaced."""
    looped: dict[str, bool] = {}
    for evidence in (ctx.prior.get("baseline"), ctx.prior.get("acceptance")):
        if isinstance(evidence, BaselineEvidence | AcceptanceEvidence):
            for record in evidence.samples:
                looped[record.prompt_id] = looped.get(record.prompt_id, False) or record.repetition_loop
    return LossPrior(sum(looped.values()), len(looped))


def _samples(i: int, pair: PairResult, d: ABDecision) -> Iterator[Sample]:
    if pair.off_error is None and pair.off_ms_per_token > 0:  # watched against the baseline (run/contention.py)
        yield Sample("ab", "off_tok_s", float(i + 1), 1000.0 / pair.off_ms_per_token)
    if pair.off_error is None and pair.on_error is None:
        yield Sample("ab", "pair_speedup", float(i + 1), pair.off_ms_per_token / pair.on_ms_per_token)
    if d.speedup is not None:
        yield Sample("ab", "running_speedup", float(i + 1), d.speedup)
    if d.ci_low is not None and d.ci_high is not None:
        yield Sample("ab", "ci_low", float(i + 1), d.ci_low)
        yield Sample("ab", "ci_high", float(i + 1), d.ci_high)


def summarise(d: ABDecision, pairs: list[PairResult], policy: ABPolicy, stop_reason: Message | None) -> ABEvidence:
    """The A/B evidence. CONTINUE at the end means the budget ran out: INCONCLUSIVE."""
    decision = d.decision.value if d.decision is not Decision.CONTINUE else Decision.INCONCLUSIVE.value
    reasons = list(d.reasons)
    if d.decision is Decision.CONTINUE:
        reasons.append(f"stopped after {len(pairs)} pairs before a planned look could decide"
                       + (f": {render(stop_reason, 'en')}" if stop_reason else ""))
    return ABEvidence(
        decision=decision, speedup=d.speedup, ci_low=d.ci_low, ci_high=d.ci_high,  # type: ignore[arg-type]
        bound_low=d.bound_low, bound_high=d.bound_high, ratio_of_totals=d.ratio_of_totals,
        median_speedup=d.median_speedup, n_prompts=d.n_pairs, n_attempted=d.n_attempted,
        n_failed_off=d.n_failed_off, n_failed_on=d.n_failed_on, outputs_match_rate=d.outputs_match_rate,
        off_p50_ms=d.off_p50_ms, off_p99_ms=d.off_p99_ms, on_p50_ms=d.on_p50_ms, on_p99_ms=d.on_p99_ms,
        guards={k: Guard(ok, detail) for k, (ok, detail) in d.guards.items()},
        notes={k: Guard(ok, detail) for k, (ok, detail) in d.notes.items()}, effects=dict(d.effects),
        reasons=tuple(reasons), look=d.look, margin=policy.margin, ci_level=policy.ci_level,
        looks=tuple(policy.looks), pairs=tuple(pairs),
        per_category=per_category(pairs, policy), early_divergence_rate=early_divergence_rate(pairs, policy),
        early_divergence_low=early_divergence_low(pairs, policy), divergence_counts=divergence_counts(pairs),
        per_output_band=output_bands(pairs, policy), per_depth_band=depth_bands(pairs, policy),
    )
