"""The conditions no rule file may relax: an ENABLE needs all of them, or it becomes INCONCLUSIVE.

design.md §4 step 2 and §5, reliability.md A14: a measured A/B whose lower bound is above break-even, enough
pairs, no repeated-prompt workload, no trap or throttling flag, every A/B guard passing, for a cache-based
method whose A/B did not start on a fresh server a canary that rules out repeat inflation, and no paired
concurrency-sweep CI at the user's concurrency lying wholly below break-even (design.md §4 step 4).
The numbers are the policy's (rules/policy.toml); where the user's override and the built-in policy differ,
the stricter applies, so an override can tighten an invariant but never relax it. Each invariant is
reported as a trace check (rule "invariants"), so the trace shows why ENABLE was withheld.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from advisor.core.policy import Policy, default_policy
from advisor.decide.evaluate import Check

RULE = "invariants"
BRANCH = "enable-withheld"
WITHHELD = "INCONCLUSIVE"
# An ENABLE means faster, so its lower bound must clear break-even whatever margin a policy sets.
BREAK_EVEN = 1.0


@dataclass(frozen=True, slots=True)
class Blocker:
    """One invariant that holds against ENABLE: the check as the trace shows it and the words for `because`."""

    check: Check
    text: str
    text_zh: str = ""  # the same words in Chinese (the verdict carries both)


def _check(fact: str, op: str, expected: object, actual: object, held: bool | None) -> Check:
    outcome = "unknown" if held is None else "reason" if held else "clear"
    return Check(RULE, BRANCH, fact, op, expected, actual, held, outcome, WITHHELD)  # type: ignore[arg-type]


def _num(facts: Mapping[str, object], name: str) -> float | None:
    v = facts.get(name)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def invariant_checks(facts: Mapping[str, object], policy: Policy) -> list[Blocker]:
    """Every invariant as a check; those whose `check.passed` is not False block an ENABLE."""
    built_in = default_policy()
    min_pairs = max(policy.ab.min_pairs_enable, built_in.ab.min_pairs_enable)
    max_inflation = min(policy.canary.max_repeat_inflation, built_in.canary.max_repeat_inflation)
    ci_low, pairs = _num(facts, "ab.ci_low"), facts.get("ab.n_prompts")
    inflation = _num(facts, "acceptance.repeat_inflation")
    # Repeat memory can reach the A/B only through a cache-based method on a server that had seen earlier
    # prompts; an unknown method counts as cache-based (fail closed).
    exposed = facts.get("spec.cache_based") is not False and facts.get("measurement.pool_reset") is not True
    out = [
        Blocker(_check("ab.ci_low", "<=", BREAK_EVEN, ci_low, None if ci_low is None else ci_low <= BREAK_EVEN),
                "no measured A/B lower bound above 1.0×", "没有高于 1.0× 的实测 A/B 下限"),
        Blocker(_check("ab.n_prompts", "<", min_pairs, pairs,
                       None if not isinstance(pairs, int) else pairs < min_pairs),
                f"fewer than {min_pairs} A/B prompt pairs", f"A/B 提示词对少于 {min_pairs} 组"),
        Blocker(_check("workload.repeated_prompts", "is-true", None, facts.get("workload.repeated_prompts"),
                       facts.get("workload.repeated_prompts") is True),
                "the workload repeats prompts, which inflates speculative speedups",
                "工作负载重复了提示词，这会夸大推测解码的加速"),
        Blocker(_check("acceptance.repeat_inflation", ">", max_inflation, inflation,
                       exposed and inflation is not None and inflation > max_inflation),
                f"re-seen prompts ran {inflation or 0:.2f}× faster (limit {max_inflation}) and the A/B ran on a "
                "server that had seen earlier prompts",
                f"见过的提示词快了 {inflation or 0:.2f}×（上限 {max_inflation}），"
                "且 A/B 所用的服务器已见过先前的提示词"),
        Blocker(_check("acceptance.repeat_inflation", "absent", None, inflation, exposed and inflation is None),
                "a cache-based method without a canary or a freshly started server cannot rule out "
                "repeated-prompt inflation",
                "基于缓存的方法既没有金丝雀测试也不是新启动的服务器，无法排除重复提示词带来的虚高"),
    ]
    for name, text, text_zh in (("measurement.trap_suspected", "a caching trap was flagged", "发现了缓存陷阱"),
                                ("measurement.throttled", "the GPU throttled during measurement", "测量期间 GPU 降频")):
        out.append(Blocker(_check(name, "is-true", None, facts.get(name), facts.get(name) is True), text, text_zh))
    # The sweep's break-even may be raised by an override (stricter), never lowered.
    batch_even = max(policy.batch.break_even, built_in.batch.break_even)
    at_c = _num(facts, "batch.ci_high_at_concurrency")
    out.append(Blocker(_check("batch.ci_high_at_concurrency", "<", batch_even, at_c,
                              at_c is not None and at_c < batch_even),
                       f"at your concurrency the paired sweep's whole CI lies below {batch_even:.2f}× "
                       "(speculation is slower there)",
                       f"在您的并发量下，配对扫描的整个置信区间低于 {batch_even:.2f}×（推测解码在那里更慢）"))
    guards = facts.get("ab.guards_passed")
    out.append(Blocker(_check("ab.guards_passed", "is-false", None, guards, guards is False), "an A/B guard failed",
                       "有 A/B 守卫未通过"))
    return out
