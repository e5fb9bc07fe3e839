"""The decision tree as a person reads it: each question, its branches in order, the numbers and their sources.

`spec-advisor rules --tree` prints it; rules/README.md is the same text in Markdown (a test keeps it current).
The walk follows `next` links depth-first from the root, so the order is the order `decide` asks the questions.
"""

from __future__ import annotations

from collections.abc import Iterator

from advisor.core.policy import flat_values
from advisor.decide.rules import POLICY_REF, Branch, Condition, RuleFile, RuleSet

# What `unknown = block|defer|ignore` does when a condition's fact is missing, in words.
UNKNOWN_WORDS = {
    "block": "the walk stops here: INCONCLUSIVE, naming the missing fact",
    "defer": "the walk goes on, but a later ENABLE is withheld (INCONCLUSIVE) and the fact is listed as missing",
    "caveat": "the walk goes on and a later ENABLE stands, with this check listed as one that could not be made",
    "ignore": "it counts as 'not the case'",
}


UNKNOWN_WORDS_ZH = {
    "block": "在此停止：暂无定论，并列出缺少的事实",
    "defer": "继续判定，但之后的“开启”会被扣下（暂无定论），并把该事实列为缺失",
    "caveat": "继续判定，之后的“开启”成立，并把这项检查列为未能进行",
    "ignore": "视为“不成立”",
}
# The tree's own words in Chinese (`spec-advisor rules --lang zh`); the rule texts carry their own `_zh`.
WORDS_ZH = {"What": "内容", "Why": "原因", "Sources": "来源", "Numbers": "数值",
            "Branches (first match wins):": "分支（按顺序，首个匹配生效）：", "if a fact is missing": "缺少事实时",
            "why": "依据", "says": "结论", "warns": "警告", "otherwise": "其他情况", "when": "当", "and": "且",
            "or": "或", "ask": "转到", "remedy": "对策"}


def _w(word: str, lang: str) -> str:
    return WORDS_ZH.get(word, word) if lang == "zh" else word


def _value(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, str) and value.startswith("$"):
        return value[1:]
    if isinstance(value, str) and value.startswith("@"):
        return f"the fact {value[1:]}"
    return repr(value) if isinstance(value, str) else f"{value}"


def _condition(c: Condition) -> str:
    return f"{c.fact} {c.op}" + ("" if c.value is None else f" {_value(c.value)}")


def _when(b: Branch, lang: str = "en") -> str:
    if b.mode == "default":
        return _w("otherwise", lang)
    joiner = f" {_w('and' if b.mode == 'all' else 'or', lang)} "
    return f"{_w('when', lang)} " + joiner.join(_condition(c) for c in b.conditions)


def _order(rules: RuleSet) -> list[str]:
    # pre-order depth-first with an explicit stack: a chain thousands of questions deep is no RecursionError
    seen: list[str] = []
    known: set[str] = set()
    stack = [rules.root]
    while stack:
        rid = stack.pop()
        if rid in known:
            continue
        seen.append(rid)
        known.add(rid)
        stack.extend(b.next for b in reversed(rules.files[rid].branches) if b.next is not None)
    return seen + sorted(r for r in rules.files if r not in seen)  # unreachable files still get listed


def _referenced(rule: RuleFile) -> list[str]:
    names: list[str] = []
    for b in rule.branches:
        for c in b.conditions:
            values = c.value if isinstance(c.value, list) else [c.value]
            for v in values:
                if isinstance(v, str) and v.startswith("$" + POLICY_REF) and v[1:] not in names:
                    names.append(v[1:])
    return names


def _rule_lines(rules: RuleSet, rule: RuleFile, md: bool, lang: str = "en") -> Iterator[str]:
    question = rule.text("question", lang)
    yield f"## `{rule.id}` — {question}" if md else f"{rule.id} — {question}"
    if md:
        yield ""
    pad = "" if md else "  "
    for label, text in (("What", rule.text("what", lang)), ("Why", rule.text("why", lang))):
        if text:
            label = _w(label, lang)
            yield f"{pad}{'**' + label + ':**' if md else label + ':'} {text}"
    if rule.references:
        sources = _w("Sources", lang)
        yield f"{pad}{'**' + sources + ':**' if md else sources + ':'} " + "; ".join(rule.references)
    numbers: list[tuple[str, object, str]] = [
        (name, value, rule.notes.get(f"thresholds.{name}", "")) for name, value in rule.thresholds.items()]
    policy = flat_values(rules.policy)
    numbers += [(ref, policy[ref.removeprefix(POLICY_REF)], rules.policy.notes.get(ref.removeprefix(POLICY_REF), ""))
                for ref in _referenced(rule)]
    if numbers:
        yield f"{pad}{'**' + _w('Numbers', lang) + ':**' if md else _w('Numbers', lang) + ':'}"
        for name, value, note in numbers:
            yield f"{pad}- `{name}` = {value}" + (f" — {note}" if note else "")
    if lang == "zh":
        yield f"{pad}{'**分支**（按顺序，首个匹配生效）：' if md else _w('Branches (first match wins):', lang)}"
    else:
        yield f"{pad}{'**Branches** (first match wins):' if md else 'Branches (first match wins):'}"
    ask = _w("ask", lang)
    for i, b in enumerate(rule.branches, start=1):
        outcome = f"→ {b.verdict}" if b.verdict else f"→ {ask} `{b.next}`" if md else f"→ {ask} {b.next}"
        when = _when(b, lang)
        yield f"{pad}{i}. `{b.id}` {when} {outcome}" if md else f"{pad}{i}. {b.id}: {when} {outcome}"
        sub = "   " + pad
        if b.mode != "default":
            words = UNKNOWN_WORDS_ZH if lang == "zh" else UNKNOWN_WORDS
            yield f"{sub}{_w('if a fact is missing', lang)}: {words[b.unknown]}"
        if why := rule.notes.get(f"branch:{b.id}"):
            yield f"{sub}{_w('why', lang)}: {why}"
        for key, label in (("because", "says"), ("warning", "warns")):
            english, zh = getattr(b, key), getattr(b, f"{key}_zh")
            if not english:
                continue
            if lang == "zh":
                yield f"{sub}{_w(label, lang)}: {zh or english}"
            else:
                yield f"{sub}{label}: {english}"
                if zh:  # the README shows both, so a translator sees each pair side by side
                    yield f"{sub}zh: {zh}"
        for r in b.remedies:
            as_branch = Branch("", r.mode, r.conditions, None, None, "", "", "ignore")
            when = "" if r.mode == "default" else f" ({_when(as_branch, lang)})"
            label = _w("remedy", lang)
            if lang == "zh":
                yield f"{sub}{label}{when}: {r.text_zh or r.text}"
            else:
                yield f"{sub}{label}{when}: {r.text}"
                if r.text_zh:
                    yield f"{sub}zh: {r.text_zh}"
    yield ""


def render_tree(rules: RuleSet, *, markdown: bool = False, lang: str = "en") -> str:
    """The whole tree, from the root question down, as plain text or Markdown, in English (with each
    Chinese twin beside it) or in Chinese."""
    lines: list[str] = []
    if markdown:
        lines += ["# The decision tree", "",
                  "Generated by `spec-advisor rules --tree --markdown` from the files in this folder; "
                  "`tests/advisor/decide/test_rules_tree.py` fails when it is not current. Each question lives "
                  "in its own file; a branch either ends in a verdict or asks the next question. Numbers shared "
                  "by several questions and by the measurement live in `policy.toml` and are written "
                  "`policy.table.key`. Every text a person reads (`question`, `what`, `why`, `because`, "
                  "`warning`) has a Chinese twin beside it, `KEY_zh`, naming the same placeholders (checked at "
                  "load; `tests/advisor/decide/test_rules_zh.py` fails when a built-in text has none). A branch "
                  "that withholds the verdict (INCONCLUSIVE) carries its `remedy`: what to do, chosen by the "
                  "probed facts (e.g. `gpu.count`); `decide` walks past every such branch and lists them all at "
                  "once as `blocking`, each with its remedy (advisor/decide/blocking.py; `remedies.toml` for the "
                  "invariants and missing facts).",
                  "", "Invariants that no rule can relax (advisor/decide/invariants.py): an ENABLE needs a measured "
                  "A/B lower bound above 1.0×, at least `policy.ab.min_pairs_enable` pairs, no repeated-prompt "
                  "workload, no repeat inflation above `policy.canary.max_repeat_inflation`, no trap or "
                  "throttling flag, every A/B guard passing, and no paired concurrency-sweep CI at the user's "
                  "concurrency wholly below `policy.batch.break_even`; otherwise it becomes INCONCLUSIVE.", ""]
    for rid in _order(rules):
        lines += list(_rule_lines(rules, rules.files[rid], markdown, lang))
    return "\n".join(lines).rstrip() + "\n"
