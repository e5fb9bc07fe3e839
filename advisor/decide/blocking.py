"""Every reason that withholds a verdict, at once, in the tree's order, each with a remedy fitting the machine.

The verdict's own walk stops at the first withholding branch (first match wins), so a user who fixes that
one meets the next only after another full check. Here a second walk (`walk(collect=True)`) goes past every
withholding branch and lists them all; where it ends on ENABLE, the invariants and the checks that lacked data
withhold it too. Remedies are data: `[[branch.remedy]]` in the rule files and rules/remedies.toml for the
reasons no branch states, chosen by the probed facts (e.g. `gpu.count`), so a CPU-only machine is never told
to close its GPU work.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from advisor.decide.evaluate import Walk, check, kleene, walk
from advisor.decide.invariants import invariant_checks
from advisor.decide.rules import Branch, Remedy, RuleFile, RuleSet
from advisor.decide.text import render

MISSING_FACTS = "missing-facts"  # remedies.toml code for a `block` or `defer` on facts that were not measured
INVARIANTS = "invariants"        # remedies.toml codes "invariants/FACT", then "invariants" for any other


@dataclass(frozen=True, slots=True)
class Blocking:
    """One reason the verdict is withheld: `code` is rule/branch (or invariants/FACT, missing-facts), the
    reason and what to do about it, each in English and Chinese."""

    code: str
    reason: str
    remedy: str
    reason_zh: str = ""
    remedy_zh: str = ""

    def text(self, lang: str) -> tuple[str, str]:
        """(reason, remedy) in `lang`, English where no translation exists."""
        if lang == "zh":
            return self.reason_zh or self.reason, self.remedy_zh or self.remedy
        return self.reason, self.remedy


def _holds(remedy: Remedy, rules: RuleSet, rule: RuleFile, branch: Branch, facts: Mapping[str, object]) -> bool:
    results = [check(c, rules, rule, branch, facts)[0].passed for c in remedy.conditions]
    return kleene(remedy.mode, results) is True  # an unknown fact does not pick a remedy


def choose(remedies: tuple[Remedy, ...], rules: RuleSet, facts: Mapping[str, object],
           rule: RuleFile | None = None) -> tuple[str, str]:
    """Every conditional remedy whose `when` holds, else the default one: (English, Chinese), rendered."""
    host = rule if rule is not None else RuleFile("remedies", "", {}, (), "remedies.toml")
    stub = Branch("remedy", "all", (), None, None, "", "", "ignore")
    picked = [r for r in remedies if r.mode != "default" and _holds(r, rules, host, stub, facts)]
    if not picked:
        picked = [r for r in remedies if r.mode == "default"]
    ctx = {**rules.text_values(host), **facts}
    english = " ".join(render(r.text, ctx) for r in picked)
    chinese = "".join(render(r.text_zh or r.text, ctx) for r in picked)
    return english, chinese


def _coded(rules: RuleSet, code: str, facts: Mapping[str, object]) -> tuple[str, str]:
    for key in (code, code.split("/")[0]):
        if key in rules.remedies:
            return choose(rules.remedies[key], rules, facts)
    return "", ""


def _from_branch(rules: RuleSet, rule_id: str, branch_id: str, missing: tuple[str, ...],
                 facts: Mapping[str, object]) -> Blocking:
    rule = rules.files[rule_id]
    branch = next(b for b in rule.branches if b.id == branch_id)
    code = f"{rule_id}/{branch_id}"
    if missing:  # a `block`: the question could not be asked
        need = ", ".join(missing)
        remedy, remedy_zh = _coded(rules, MISSING_FACTS, {**facts, "missing": need})
        return Blocking(code, f"Cannot answer '{rule.question}' without {need}.", remedy,
                        f"缺少 {need}，无法回答“{rule.text('question', 'zh')}”。", remedy_zh)
    ctx = {**rules.text_values(rule), **facts}
    remedy, remedy_zh = choose(branch.remedies, rules, facts, rule)
    return Blocking(code, render(branch.because, ctx), remedy, render(branch.because_zh or branch.because, ctx),
                    remedy_zh)


def _cited(rules: RuleSet, items: list[Blocking]) -> set[str]:
    """The facts the listed branches test, so an invariant saying the same thing is not listed twice."""
    out: set[str] = set()
    for item in items:
        rule_id, _, branch_id = item.code.partition("/")
        rule = rules.files.get(rule_id)
        branch = next((b for b in rule.branches if b.id == branch_id), None) if rule else None
        if branch is not None:
            out |= {c.fact for c in branch.conditions}
    return out


def blocking(rules: RuleSet, facts: Mapping[str, object], collected: Walk | None = None) -> tuple[Blocking, ...]:
    """Every reason that withholds a verdict on `facts` (enriched, as `decide` walks them), ordered as the tree
    asks them; empty when the facts give ENABLE or SKIP outright."""
    result = collected if collected is not None else walk(rules, facts, collect=True)
    items = [_from_branch(rules, r, b, missing, facts) for r, b, missing in result.withheld]
    # the walk ended on a withholding default (e.g. a CI that straddles); a default says "none of the branches
    # above held", so it is not listed beside a branch of its own rule that did (the prediction's "cannot tell"
    # beside its "faster even at the bottom of the interval")
    same_rule = any(r == result.rule for r, _, _ in result.withheld)
    if result.verdict == "INCONCLUSIVE" and not same_rule:
        items.append(_from_branch(rules, result.rule, result.branch, (), facts))
    if result.verdict != "ENABLE":
        return tuple(items)
    if result.deferred:
        need = ", ".join(result.deferred)
        remedy, remedy_zh = _coded(rules, MISSING_FACTS, {**facts, "missing": need})
        items.append(Blocking(MISSING_FACTS, f"The A/B favours speculation, but these checks lack data: {need}.",
                              remedy, f"A/B 倾向于推测解码，但这些检查缺少数据：{need}。", remedy_zh))
    cited = _cited(rules, items)
    for inv in invariant_checks(facts, rules.policy):
        if inv.check.passed is False or inv.check.fact in cited:
            continue
        cited.add(inv.check.fact)
        code = f"{INVARIANTS}/{inv.check.fact}"
        remedy, remedy_zh = _coded(rules, code, facts)
        zh = f"暂不建议开启：{inv.text_zh or inv.text}。"
        items.append(Blocking(code, f"ENABLE withheld: {inv.text}.", remedy, zh, remedy_zh))
    return tuple(items)
