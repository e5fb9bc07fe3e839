"""Step 3 — verify cost: time of one forward over k new tokens at depth L, with speculation off; measured a
second time at the user's own depth when their prompts are much longer than L (Budget.verify_user_depth_factor).

Method (engine-facts.md §1.7): cache a prefix of L tokens in a pinned slot, then send prefix + k fresh tokens with
one token to generate; the server must report `cache_n == L` and `prompt_n == k`, and `prompt_ms` is the
forward over the k tokens. Samples that break either check are discarded, not counted.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import replace

from advisor.events import Event, Progress, Sample, StepDone, StepStatus, UnitDone
from advisor.evidence.steps import VerifyCurve, VerifyEvidence, VerifyPoint
from advisor.evidence.units import VerifyUnit
from advisor.evidence.warnings import WarningCode
from advisor.perf.verify import predicted_times_ms
from advisor.steps.base import StepContext, missing_arm, skipped, warn
from advisor.text.message import msg
from probes.engines.base import EngineAdapter, EngineError

SLOT = 0                     # pinned so the prefix stays in one slot's cache
K_LADDER = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
MAX_TRIES_PER_SAMPLE = 3


def k_values(draft_max: int | None) -> list[int]:
    """k up to γ+1 (a verify step checks γ drafted tokens plus the bonus token), from design.md §4's ladder;
    the whole ladder when γ is not known."""
    top = max(draft_max + 1, 2) if draft_max is not None else K_LADDER[-1]
    ks = [k for k in K_LADDER if k <= top]
    return ks if top in ks else [*ks, top]


class VerifyStep:
    """Measured T(k)/T(1) beside the predicted curve from the model file."""

    id = "verify"
    title = "Verify cost vs draft length (speculation off)"

    def run(self, ctx: StepContext) -> Iterator[Event]:
        """Prime the prefix, time each k, compare with the prediction; again at the user's depth if long."""
        t0 = time.monotonic()
        off = ctx.use("off", self.id)
        if off is None:
            yield missing_arm(self.id, "a speculation-off server")
            return
        adapter = off.adapter
        tokenize = getattr(adapter, "tokenize", None)
        if tokenize is None:
            yield skipped(self.id, f"{adapter.kind} cannot evaluate a token-array prompt against a cached prefix")
            return
        depth = ctx.config.budget.verify_depth_tokens
        deep = _user_depth(ctx, adapter, depth)
        pool = _token_pool(tokenize, ctx, max(depth, deep or 0) + 64)
        if len(pool) < depth + PRIME_PREFILLS + 32:
            yield skipped(self.id, "could not build a long enough token prefix from the prompts")
            return
        if deep is not None and len(pool) < deep + PRIME_PREFILLS + 32:
            deep = None  # the prompts do not hold that many tokens after all
        rng = random.Random(ctx.config.seed)
        ks = k_values(ctx.draft_cap)
        rounds = ctx.config.budget.verify_repeats * (2 if deep is not None else 1)
        times, compute_ms, rejected = yield from _curve(adapter, ctx, pool, depth, ks, rng, (0, rounds))
        evidence = summarise(times, compute_ms, ctx, depth, rejected)
        if deep is not None and not ctx.cancelled:
            deep_times, deep_c, deep_rejected = yield from _curve(adapter, ctx, pool, deep, ks, rng,
                                                                  (rounds // 2, rounds))
            curve = summarise(deep_times, deep_c, ctx, deep, deep_rejected)
            evidence = replace(evidence, at_user_depth=VerifyCurve(
                depth_tokens=deep, compute_ms_per_token=deep_c, rejected_samples=deep_rejected,
                points=curve.points, cost_ratio_at_draft_max=curve.cost_ratio_at_draft_max, t1_ms=curve.t1_ms))
            for point in curve.points:
                yield Sample(self.id, "verify_ratio_user_depth", float(point.k), point.ratio)
        for point in evidence.points:
            yield Sample(self.id, "verify_ratio", float(point.k), point.ratio)
            if point.predicted_ratio is not None:
                yield Sample(self.id, "verify_predicted_ratio", float(point.k), point.predicted_ratio)
        warnings = []
        dropped = evidence.rejected_samples + (evidence.at_user_depth.rejected_samples
                                               if evidence.at_user_depth is not None else 0)
        if dropped:
            warnings.append(warn(self.id, WarningCode.CACHE_MISS,
                                 msg("warn.cache_miss", n=dropped)))
        yield from warnings
        status: StepStatus
        reason: str | None
        if ctx.cancelled:
            status, reason = "aborted", None
        elif not evidence.points:
            # Nothing usable is not "done": the tuner and the verify-cost rule would read an empty curve as
            # measured. A model whose prefix the server will not reuse (sliding-window or recurrent layers force
            # a full re-processing, so cache_n is 0) drops every sample this way.
            status = "failed"
            reason = (f"no usable timing: all {dropped} samples were dropped because the server did not reuse the "
                      "cached prefix (sliding-window models such as Gemma 3 re-process the whole prompt unless "
                      "llama-server runs with --swa-full: add `-- --swa-full` to the check); the tuner and the "
                      "verify-cost rule have no curve to use" if dropped else "no timing was measured")
        else:
            status, reason = "done", None
        yield StepDone(self.id, status, evidence, reason=reason, elapsed_s=time.monotonic() - t0,
                       warnings=tuple(warnings))


def _user_depth(ctx: StepContext, adapter: EngineAdapter, depth: int) -> int | None:
    """The user's own context depth (tokens) when it is long enough to deserve its own curve, capped to what
    one slot holds; None when the step's depth already describes it."""
    base = ctx.prior.get("baseline")
    user = getattr(base, "context_depth_tokens", None)
    if not user or user < ctx.config.budget.verify_user_depth_factor * depth:
        return None
    try:
        n_ctx = adapter.info().context_size
    except EngineError:
        return None
    room = (n_ctx if isinstance(n_ctx, int) else 0) - (K_LADDER[-1] + 2)  # the longest verify and its answer
    deep = min(int(user), room)
    return deep if deep >= ctx.config.budget.verify_user_depth_factor * depth else None


# Prefills that estimate c (the first builds the graph; the fastest of the rest counts): a 128-token prefill of
# the demo model takes ~40 ms, so three warm ones cost a tenth of a second.
PRIME_PREFILLS = 4


def _curve(adapter: EngineAdapter, ctx: StepContext, pool: list[int], depth: int, ks: list[int], rng: random.Random,
           rounds: tuple[int, int]) -> Generator[Event, None, tuple[dict[int, list[float]], float, int]]:
    """Times of each k over a cached prefix of `depth` tokens; `rounds` = (rounds before, rounds in all) for the
    progress count. Returns (k → samples in ms, compute ms per token, samples rejected)."""
    # Prefills of the prefix, each shifted by one token (so nothing of the one before is reused): the first also
    # builds the compute graph and warms the caches, and c, the compute cost per token, is the fastest of them,
    # as each T(k) is the fastest of its repeats. With two prefills c was one warm sample against T(k)s that
    # are minima of 7: its noise (±20% between runs here) moved the whole predicted curve. The last prefill
    # leaves its prefix cached for the timed forwards.
    compute_ms = math.inf
    for shift in range(PRIME_PREFILLS):
        prefix = pool[shift:shift + depth]
        prime = adapter.complete(prefix, max_tokens=1, slot=SLOT)
        compute_ms = min(compute_ms, (prime.prompt_ms or 0.0) / max(prime.prompt_tokens or depth, 1))
    fresh_pool = pool[depth + PRIME_PREFILLS - 1:]  # after the cached prefix
    times: dict[int, list[float]] = {k: [] for k in ks}
    rejected = 0
    for k in ks:
        # One unmeasured forward per k: the first batch of a new size builds its compute graph.
        _one_forward(adapter, prefix, fresh_pool, k, rng)
    # Rounds over every k in a fresh random order, rather than all repeats of one k in a row: a slow spell
    # on the machine (another process, a cache flushed by a neighbour) then touches every k alike instead of
    # shifting one point, and T(1), the denominator of every ratio, is drawn across the whole step.
    before, total = rounds
    repeats = ctx.config.budget.verify_repeats
    for round_index in range(repeats):
        if ctx.cancelled:
            break
        for k in rng.sample(ks, len(ks)):
            value = _one_forward(adapter, prefix, fresh_pool, k, rng)
            if value is None:
                rejected += 1
                continue
            times[k].append(value)
        done = before + round_index + 1
        yield Progress.unit(VerifyStep.id, done, total, "verify_round", depth=depth, round=round_index + 1,
                            rounds=repeats)
    for k in ks:
        if times[k]:
            yield UnitDone(VerifyStep.id, f"L={depth} k={k}", VerifyUnit(k, tuple(times[k])))
            yield Sample(VerifyStep.id, "verify_t_ms", float(k), min(times[k]))
    return times, compute_ms, rejected


def _token_pool(tokenize: Callable[[str], list[int]], ctx: StepContext, need: int) -> list[int]:
    tokens: list[int] = []
    for prompt in [*ctx.workload.acceptance, *ctx.workload.ab, *ctx.workload.baseline]:
        tokens.extend(tokenize(prompt.text))
        if len(tokens) >= need:
            break
    return tokens


def _one_forward(adapter: EngineAdapter, prefix: list[int], pool: list[int], k: int,
                 rng: random.Random) -> float | None:
    # Fresh tokens are drawn so the first differs from whatever followed the prefix last time; otherwise the
    # server would reuse more than L tokens and prompt_n would be < k.
    for _ in range(MAX_TRIES_PER_SAMPLE):
        fresh = rng.sample(pool, k) if k <= len(pool) else [rng.choice(pool) for _ in range(k)]
        try:
            result = adapter.complete(prefix + fresh, max_tokens=1, slot=SLOT)
        except EngineError:
            raise
        if result.cached_tokens == len(prefix) and result.prompt_tokens == k and result.prompt_ms is not None:
            return float(result.prompt_ms)
    return None


def summarise(times: dict[int, list[float]], compute_ms: float, ctx: StepContext, depth: int,
              rejected: int) -> VerifyEvidence:
    """The measured curve T(k)/T(1) beside the prediction from the model file."""
    # The fastest repeat estimates the forward's own cost: on a ~10 ms forward, noise from other work on the
    # machine only ever adds time (seen here: 6.5 ms forwards measured at 600–1200 ms while another engine ran),
    # so the minimum is robust where the median is not. Every sample stays in the evidence.
    fastest = {k: min(v) for k, v in times.items() if v}
    if 1 not in fastest:
        return VerifyEvidence(depth_tokens=depth, compute_ms_per_token=compute_ms, rejected_samples=rejected)
    t1 = fastest[1]
    predicted = predicted_times_ms(ctx.environment.model, t1, compute_ms, sorted(fastest))
    points = tuple(VerifyPoint(k=k, t_ms=t, ratio=t / t1, predicted_ratio=predicted[k] / t1, n=len(times[k]),
                               samples_ms=tuple(times[k])) for k, t in sorted(fastest.items()))
    cap = ctx.draft_cap
    at = [p for p in points if cap is not None and p.k == cap + 1]
    return VerifyEvidence(depth_tokens=depth, compute_ms_per_token=compute_ms, rejected_samples=rejected,
                          points=points, cost_ratio_at_draft_max=at[0].ratio if at else None, t1_ms=t1)
