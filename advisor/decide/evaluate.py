"""Walk the rule tree over facts with three-valued (Kleene) logic, recording every check.

A missing fact makes its condition *unknown* (None). Per branch, `unknown` says what an unknown result
does: `block` stops with INCONCLUSIVE naming the facts, `defer` treats the branch as not matched but
remembers the facts (a final ENABLE then becomes INCONCLUSIVE), `caveat` treats it as not matched and
lists the check as one that could not be made (an ENABLE stands, with the caveat), `ignore` treats it as
not matched. `absent` and `not-true` are never unknown: they ask about the missing fact itself.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from advisor.decide.rules import TOTAL_OPS, Branch, Condition, RuleFile, RuleSet, VerdictName

_MISSING = object()
_CMP: dict[str, Callable[[Any, Any], Any]] = {
    ">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le,
    "==": operator.eq, "!=": operator.ne,
}


Outcome = Literal["reason", "holds", "clear", "unknown"]


@dataclass(frozen=True, slots=True)
class Check:
    """One evaluated condition (the Lighthouse CI assertion shape).

    `passed` says whether the condition holds (None: a fact is missing). `outcome` says what that meant:
    `reason` — it holds and its branch was taken, so it is why the walk went to `leads_to` (a verdict or
    the next question); `holds` — it holds but its branch was not taken; `clear` — it does not hold;
    `unknown` — it could not be evaluated. A tripped guard is a `reason` leading to INCONCLUSIVE, never a
    "pass".
    """

    rule: str
    branch: str
    fact: str
    op: str
    expected: object
    actual: object
    passed: bool | None
    outcome: Outcome = "unknown"
    leads_to: str = ""


@dataclass(slots=True)
class Walk:
    """Where a walk ended: the terminal rule/branch, or a block on unknown facts."""

    verdict: VerdictName
    rule: str
    branch: str
    blocked: bool
    trace: list[Check] = field(default_factory=list)
    deferred: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    path: list[str] = field(default_factory=list)
    notes: list[tuple[str, str, str]] = field(default_factory=list)  # (rule, branch, warning template)
    caveats: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)  # (rule, branch, missing facts)
    # with collect=True: every branch that would have withheld the verdict, in walk order (rule, branch, the
    # missing facts of a `block`, else ())
    withheld: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)


def _resolve(value: object, rules: RuleSet, rule: RuleFile, facts: Mapping[str, object]) -> tuple[object, list[str]]:
    """Threshold, policy and fact references replaced by values; second item lists missing facts."""
    if isinstance(value, list):
        pairs = [_resolve(v, rules, rule, facts) for v in value]
        missing = [m for _, ms in pairs for m in ms]
        return [v for v, _ in pairs], missing
    if isinstance(value, str) and value.startswith("$"):
        return rules.threshold(rule, value[1:]), []
    if isinstance(value, str) and value.startswith("@"):
        name = value[1:]
        return (facts[name], []) if name in facts else (_MISSING, [name])
    return value, []


def _test(op: str, actual: Any, expected: Any) -> bool:
    if op == "is-true":
        return actual is True
    if op == "is-false":
        return actual is False
    if op == "not-true":
        return actual is not True
    if op == "absent":
        return actual is _MISSING
    if op == "in":
        return actual in expected
    if op == "not-in":
        return actual not in expected
    if op == "has":
        return expected in [item.strip() for item in str(actual).split(",")]
    if op == "between":
        low, high = expected
        return bool(low <= actual <= high)
    return bool(_CMP[op](actual, expected))


def check(cond: Condition, rules: RuleSet, rule: RuleFile, branch: Branch,
          facts: Mapping[str, object]) -> tuple[Check, list[str]]:
    """Evaluate one condition; unknown when the fact or a referenced fact is missing."""
    expected, missing = _resolve(cond.value, rules, rule, facts)
    if cond.fact not in facts and cond.op not in TOTAL_OPS:
        missing = [cond.fact, *missing]
    actual = facts.get(cond.fact, _MISSING if cond.op == "absent" else None)
    shown = None if expected is _MISSING else expected
    passed = None if missing else _test(cond.op, actual, expected)
    return Check(rule.id, branch.id, cond.fact, cond.op, shown, None if actual is _MISSING else actual,
                 passed), missing


def _with_outcome(c: Check, branch: Branch, *, taken: bool) -> Check:
    leads_to = branch.verdict or branch.next or ""
    if c.passed is None:
        outcome: Outcome = "unknown"
    elif not c.passed:
        outcome = "clear"
    else:
        outcome = "reason" if taken else "holds"
    return replace(c, outcome=outcome, leads_to=leads_to)


def kleene(mode: str, results: list[bool | None]) -> bool | None:
    """all: any False → False, else any None → None; any: any True → True, else any None → None."""
    decisive = mode != "all"  # the value that settles the combination on its own
    if decisive in results:
        return decisive
    return None if None in results else not decisive


def walk(rules: RuleSet, facts: Mapping[str, object], start: str | None = None, *,
         descend: bool = True, collect: bool = False) -> Walk:
    """Evaluate from `start` (default the root); with descend=False stop at the first branch taken.

    collect=True walks past every branch that withholds the verdict (a matching INCONCLUSIVE branch, a
    `block` on missing facts), records it in `withheld` and goes on as if it had not matched, so one walk
    finds every reason at once; the verdict it ends on is the one the facts would give without them."""
    rule_id = start or rules.root
    result = Walk("INCONCLUSIVE", rule_id, "", False)
    for _ in range(len(rules.files) + 1):  # load-time cycle check makes this bound safe
        rule = rules.files[rule_id]
        taken: Branch | None = None
        for branch in rule.branches:
            if branch.mode == "default":
                taken = branch
                break
            pairs = [check(c, rules, rule, branch, facts) for c in branch.conditions]
            outcome = kleene(branch.mode, [c.passed for c, _ in pairs])
            result.trace.extend(_with_outcome(c, branch, taken=outcome is True) for c, _ in pairs)
            if outcome is True and collect and branch.verdict == "INCONCLUSIVE":
                result.withheld.append((rule.id, branch.id, ()))
                continue
            if outcome is True:
                taken = branch
                break
            if outcome is None:
                missing = sorted({m for c, ms in pairs if c.passed is None for m in ms})
                if branch.unknown == "block" and collect:
                    result.withheld.append((rule.id, branch.id, tuple(missing)))
                    continue
                if branch.unknown == "block":
                    result.rule, result.branch, result.blocked = rule.id, branch.id, True
                    result.missing.extend(missing)
                    result.path.append(f"{rule.id}/{branch.id}?")
                    return result
                if branch.unknown == "defer":
                    result.deferred.extend(m for m in missing if m not in result.deferred)
                elif branch.unknown == "caveat":
                    result.caveats.append((rule.id, branch.id, tuple(missing)))
        assert taken is not None  # the loader guarantees a default branch
        result.path.append(f"{rule.id}/{taken.id}")
        result.rule, result.branch = rule.id, taken.id
        if taken.warning:
            result.notes.append((rule.id, taken.id, taken.warning))
        if taken.next is None or not descend:
            result.verdict = taken.verdict or "INCONCLUSIVE"
            return result
        rule_id = taken.next
    raise RuntimeError("rule walk did not terminate")
