"""The shipped paired A/B decision: `decide_ab(pairs, policy) -> ABDecision` (design.md §4 step 5, §5).

Peeking-safe by construction: the verdict is a function of the data at the planned looks only. The UI
may call it after every pair; between looks it returns CONTINUE, and once a look has stopped (ENABLE
or SKIP) later pairs do not change the answer. Any exception inside gives INCONCLUSIVE (fail closed,
unlike pyperf's `(True, None)`, reliability.md §1.1). A/A runs go through the same function
(`aa_check`). `run_batch` is the vectorised twin for simulations; it calls the same kernel
(`look_stats`, `stat_guards`, `classify`), and tests/advisor/ab/test_ab_equivalence.py checks they agree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from advisor.ab.guards import all_pass, record_guards, stat_guard_details, stat_guards, tally
from advisor.ab.result import build_decision, fail_closed
from advisor.ab.sequential import (
    CODE_CONTINUE,
    CODE_INCONCLUSIVE,
    CODE_UNDECIDED,
    BoolArray,
    Decision,
    LookStats,
    classify,
    look_stats,
)
from advisor.ab.types import ABDecision, PairResult, is_counted
from advisor.core.ab_policy import ABPolicy
from advisor.stats import FloatArray
from advisor.text.message import Message


def _validate(pairs: Sequence[PairResult]) -> None:
    for p in pairs:
        for arm, err, ms in (("off", p.off_error, p.off_ms_per_token), ("on", p.on_error, p.on_ms_per_token)):
            if err is None and not (isinstance(ms, int | float) and math.isfinite(ms) and ms > 0):
                raise ValueError(f"pair {p.prompt_id!r}: {arm}_ms_per_token = {ms!r} is not a finite number > 0")


def _evaluate(
    counted: Sequence[PairResult], prefix: Sequence[PairResult], policy: ABPolicy
) -> tuple[LookStats, dict[str, tuple[bool, Message]], int]:
    """Stats, guards and kernel code for one look over `counted` (the prefix gives record tallies)."""
    off = np.array([[p.off_ms_per_token for p in counted]], dtype=np.float64)
    on = np.array([[p.on_ms_per_token for p in counted]], dtype=np.float64)
    first = np.array([[p.on_first for p in counted]], dtype=np.bool_)
    stats = look_stats(off, on, first, policy)
    guards = {**stat_guard_details(stats, policy), **record_guards(tally(prefix), policy)}
    passed = np.array([all(ok for ok, _ in guards.values())], dtype=np.bool_)
    return stats, guards, int(classify(stats, passed, policy)[0])


def decide_ab(pairs: Sequence[PairResult], policy: ABPolicy) -> ABDecision:
    """Verdict for the pairs measured so far (in measurement order), acting only at planned looks.

    `policy` is the loaded rule set's (`RuleSet.policy.ab`; `default_policy().ab` without overrides)."""
    try:
        return _decide(list(pairs), policy)
    except Exception as exc:  # fail closed: a broken statistic must never read as "significant"
        return fail_closed(pairs, policy, f"the statistics failed ({type(exc).__name__}: {exc})")


def _decide(pairs: list[PairResult], policy: ABPolicy) -> ABDecision:
    _validate(pairs)
    positions = [i for i, p in enumerate(pairs) if is_counted(p)]
    counted = [pairs[i] for i in positions]
    last: tuple[int, LookStats, dict[str, tuple[bool, Message]], int] | None = None
    for k, n_k in enumerate(policy.looks, start=1):
        if n_k > len(counted):
            break
        prefix = pairs[: positions[n_k - 1] + 1]
        stats, guards, code = _evaluate(counted[:n_k], prefix, policy)
        last = (k, stats, guards, code)
        if code != CODE_UNDECIDED:
            return build_decision(code, k, counted[:n_k], prefix, stats, guards, policy)
    if last is not None and len(counted) >= policy.looks[-1]:
        k, stats, guards, _ = last
        prefix = pairs[: positions[policy.looks[-1] - 1] + 1]
        return build_decision(CODE_INCONCLUSIVE, k, counted[: policy.looks[-1]], prefix, stats, guards, policy)
    if len(counted) >= 3:  # live figures for the UI; the verdict waits for the next look
        stats, guards, _ = _evaluate(counted, pairs, policy)
        return build_decision(CODE_CONTINUE, last[0] if last else None, counted, pairs, stats, guards, policy)
    return build_decision(CODE_CONTINUE, None, counted, pairs, None, {}, policy)


@dataclass(frozen=True, slots=True)
class AAResult:
    """A/A self-test (reliability.md §2.7): both arms identical, so neither ENABLE nor a slowdown."""

    passed: bool
    decision: ABDecision
    noise_sd_d: float | None  # sd of log-ratios: the noise floor that sizes the real run
    reason: str


def aa_check(pairs: Sequence[PairResult], policy: ABPolicy) -> AAResult:
    """Run A/A pairs (OFF vs OFF or ON vs ON) through `decide_ab`; fail on ENABLE or a claimed slowdown."""
    dec = decide_ab(pairs, policy)
    good = [p for p in pairs if is_counted(p)]
    sd = None
    if len(good) >= 2:
        d = np.log(np.array([p.off_ms_per_token / p.on_ms_per_token for p in good]))
        sd = float(d.std(ddof=1))
    if dec.decision is Decision.ENABLE:
        return AAResult(False, dec, sd, "A/A gave ENABLE: the setup shows a speedup that cannot exist")
    if dec.ci_high is not None and dec.ci_high < 1.0 and dec.decision is not Decision.CONTINUE:
        return AAResult(False, dec, sd, "A/A showed a significant slowdown between identical arms")
    return AAResult(True, dec, sd, "identical arms gave no verdict-changing difference")


@dataclass(frozen=True, slots=True)
class BatchResult:
    """Vectorised verdicts: codes (R,) in sequential.CODE_*, pairs used (R,), speedup at the stop (R,)."""

    codes: np.ndarray
    n_used: np.ndarray
    speedup: FloatArray


def run_batch(off: FloatArray, on: FloatArray, on_first: BoolArray, policy: ABPolicy) -> BatchResult:
    """Sequential verdicts for R simulated sessions of N complete pairs each (inputs (R, N), ms/token).

    Same kernel as `decide_ab` for data without failures, loops or throttling.
    """
    r, n_max = off.shape
    codes = np.full(r, CODE_UNDECIDED, dtype=np.int8)
    n_used = np.full(r, n_max, dtype=np.int64)
    speedup = np.full(r, np.nan)
    for n_k in policy.looks:
        if n_k > n_max:
            break
        act = np.flatnonzero(codes == CODE_UNDECIDED)
        if act.size == 0:
            break
        stats = look_stats(off[act, :n_k], on[act, :n_k], on_first[act, :n_k], policy)
        code = classify(stats, all_pass(stat_guards(stats, policy)), policy)
        codes[act] = code
        n_used[act] = n_k
        speedup[act] = np.exp(stats.mean_d)
    undecided = codes == CODE_UNDECIDED
    if n_max >= policy.looks[-1]:
        codes[undecided] = CODE_INCONCLUSIVE
    else:
        codes[undecided] = CODE_CONTINUE
        n_used[undecided] = n_max
    return BatchResult(codes, n_used, speedup)
