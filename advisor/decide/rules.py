"""Load and validate the decision tree in `rules/*.toml` (format: rules/README.md).

Everything that can be checked before evaluation is checked here, so a typo fails at load time with a
"did you mean" rather than silently turning into an unknown fact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal, cast, get_args

from advisor import paths
from advisor.core.comments import notes
from advisor.core.names import suggest
from advisor.core.policy import (
    POLICY_FILE,
    Policy,
    PolicyError,
    flat_values,
    load_policy,
    parse_toml,
    read_rule_text,
)
from advisor.decide.text import placeholders
from advisor.decide.values import condition_problem, threshold_problem
from advisor.errors import UserError
from advisor.facts.specs import FACT_SPECS

Op = Literal[">", ">=", "<", "<=", "==", "!=", "in", "not-in", "between", "is-true", "is-false", "not-true",
             "absent", "has"]
UnknownMode = Literal["block", "defer", "caveat", "ignore"]
VerdictName = Literal["ENABLE", "SKIP", "INCONCLUSIVE"]
OPS: tuple[str, ...] = get_args(Op)
UNARY_OPS = ("is-true", "is-false", "not-true", "absent")
BOOL_OPS = ("is-true", "is-false", "not-true")
# Operators that answer even when the fact is missing: `absent` asks exactly that, `not-true` reads a missing
# flag as "not set" (false or absent).
TOTAL_OPS = ("not-true", "absent")
NUMERIC_OPS = (">", ">=", "<", "<=", "between")
# `has`: a comma-list fact (ab.warnings) names the item, e.g. ["ab.warnings", "has", "repetition-loops"]
LIST_OPS = ("has",)
ROOT_ID = "spec-decoding"
Scalar = float | int | str | bool
POLICY_REF = "policy."  # "$policy.ab.min_speedup" in a condition, "{policy.ab.min_speedup}" in a text
# Files in a rules folder that are not questions: the policy and the user's threshold overrides.
NOT_QUESTIONS = (POLICY_FILE, "thresholds.toml", "remedies.toml")
REMEDIES_FILE = "remedies.toml"  # remedies for reasons no branch states: invariants, missing facts
# Every text a person reads has a Chinese twin named KEY_zh (rules/README.md); the built-in files must carry
# them all (tests/advisor/decide/test_rules_zh.py), a user's own override may leave them out and reads in English.
TRANSLATION_SUFFIX = "_zh"
HEAD_TEXTS = ("question", "what", "why")
BRANCH_TEXTS = ("because", "warning")


class RuleError(UserError):
    """A rule file (built-in or user override) is malformed."""


@dataclass(frozen=True, slots=True)
class Condition:
    """`[fact, op, value]`; value may be "$threshold", "@other.fact" or a literal (list for in/between)."""

    fact: str
    op: Op
    value: object


@dataclass(frozen=True, slots=True)
class Remedy:
    """What a person can do about a withholding reason, fitted to the machine by its `when` (probed facts such
    as gpu.count); a `default` remedy applies where no conditional one does."""

    mode: Literal["all", "any", "default"]
    conditions: tuple[Condition, ...]
    text: str
    text_zh: str = ""


@dataclass(frozen=True, slots=True)
class Branch:
    """One ordered alternative of a question; terminal (`verdict`) or descending (`next`)."""

    id: str
    mode: Literal["all", "any", "default"]
    conditions: tuple[Condition, ...]
    verdict: VerdictName | None
    next: str | None
    because: str
    warning: str
    unknown: UnknownMode
    because_zh: str = ""  # the same sentence in Chinese, same placeholders (checked at load)
    warning_zh: str = ""
    remedies: tuple[Remedy, ...] = ()  # [[branch.remedy]]: what to do when this branch withholds the verdict


@dataclass(frozen=True, slots=True)
class RuleFile:
    """One question: thresholds plus branches, first match wins; `notes` are the file's comments (sources)."""

    id: str
    question: str
    thresholds: Mapping[str, Scalar]
    branches: tuple[Branch, ...]
    source: str
    what: str = ""
    why: str = ""
    references: tuple[str, ...] = ()
    notes: Mapping[str, str] = field(default_factory=dict)
    question_zh: str = ""
    what_zh: str = ""
    why_zh: str = ""

    def text(self, key: Literal["question", "what", "why"], lang: str) -> str:
        """The question, what or why in `lang`, English when no translation was written."""
        english = str(getattr(self, key))
        return (getattr(self, f"{key}_zh") or english) if lang == "zh" else english


@dataclass(frozen=True, slots=True)
class RuleSet:
    """All questions by id (evaluation starts at `root`) and the policy their numbers refer to."""

    root: str
    files: Mapping[str, RuleFile]
    policy: Policy
    # remedies.toml: code (e.g. "invariants/ab.n_prompts", "missing-facts") → its remedies
    remedies: Mapping[str, tuple[Remedy, ...]] = field(default_factory=dict)

    def threshold(self, rule: RuleFile, name: str) -> object:
        """A `$name` reference of `rule`: its own threshold, or `policy.table.key` from the policy."""
        if name.startswith(POLICY_REF):
            return self.policy.value(name.removeprefix(POLICY_REF))
        return rule.thresholds[name]

    def text_values(self, rule: RuleFile) -> dict[str, object]:
        """What `{placeholder}`s of `rule`'s texts may name besides facts: thresholds and policy values."""
        return {**rule.thresholds, **{POLICY_REF + k: v for k, v in flat_values(self.policy).items()}}


def config_dir() -> Path:
    """User configuration folder; `SPEC_ADVISOR_CONFIG_DIR` overrides platformdirs (tests use it)."""
    return paths.config_dir()


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _read_text(path: Path) -> str:
    try:
        return read_rule_text(path)
    except PolicyError as exc:  # the same problem, reported as the rule file's
        raise RuleError(str(exc), hint=exc.hint or "fix the rule file or remove your override of it") from None


def _toml(text: str, source: str) -> dict[str, Any]:  # TOML as parsed; every reader below checks its value
    try:
        return parse_toml(text, source)
    except PolicyError as exc:
        raise RuleError(str(exc), hint="fix the rule file or remove your override of it") from None


def _fail(where: str, message: str) -> RuleError:
    return RuleError(f"{where}: {message}", hint="fix the rule file or remove your override of it")


def _check_value(where: str, cond: Condition, thresholds: Mapping[str, object]) -> None:
    values = cond.value if isinstance(cond.value, list) else [cond.value]
    for v in values:
        if isinstance(v, str) and v.startswith("$") and v[1:] not in thresholds:
            raise _fail(where, f"unknown threshold '{v}'{suggest(v[1:], thresholds)}")
        if isinstance(v, str) and v.startswith("@") and v[1:] not in FACT_SPECS:
            raise _fail(where, f"unknown fact '{v[1:]}'{suggest(v[1:], FACT_SPECS)}")
    if cond.op in ("in", "not-in") and not isinstance(cond.value, list):
        raise _fail(where, f"'{cond.op}' needs a list value")
    if cond.op == "between" and not (isinstance(cond.value, list) and len(cond.value) == 2):
        raise _fail(where, "'between' needs [low, high]")
    type_ = FACT_SPECS[cond.fact].type
    if cond.op in BOOL_OPS and type_ != "bool":
        raise _fail(where, f"'{cond.op}' needs a bool fact; '{cond.fact}' is {type_}")
    if cond.op in NUMERIC_OPS and type_ not in ("int", "float"):
        raise _fail(where, f"'{cond.op}' needs a numeric fact; '{cond.fact}' is {type_}")
    if cond.op in LIST_OPS and (type_ != "str" or not isinstance(cond.value, str)):
        raise _fail(where, f"'{cond.op}' needs a comma-list (str) fact and one item; '{cond.fact}' is {type_}")


def _condition(where: str, raw: object, thresholds: Mapping[str, object]) -> Condition:
    if not isinstance(raw, list) or len(raw) not in (2, 3) or not all(isinstance(x, str) for x in raw[:2]):
        raise _fail(where, f"a condition is [fact, op, value], got {raw!r}")
    fact, op = cast(str, raw[0]), cast(str, raw[1])
    if fact not in FACT_SPECS:
        raise _fail(where, f"unknown fact '{fact}'{suggest(fact, FACT_SPECS)}")
    if op not in OPS:
        raise _fail(where, f"unknown operator '{op}'{suggest(op, list(OPS))}; allowed: {' '.join(OPS)}")
    if (len(raw) == 2) != (op in UNARY_OPS):
        raise _fail(where, f"'{op}' takes {'no' if op in UNARY_OPS else 'one'} value")
    cond = Condition(fact, cast(Op, op), raw[2] if len(raw) == 3 else None)
    _check_value(where, cond, thresholds)
    return cond


def _template(where: str, text: str, thresholds: Mapping[str, object]) -> str:
    for name in placeholders(text):
        if name not in FACT_SPECS and name not in thresholds:
            known = [*FACT_SPECS, *thresholds]
            raise _fail(where, f"unknown placeholder '{{{name}}}'{suggest(name, known)}")
    return text


def _translation(where: str, key: str, english: str, zh: object, thresholds: Mapping[str, object]) -> str:
    """`KEY_zh` beside `KEY`: a string naming exactly the English text's placeholders (its numbers must be the
    same ones), and only where there is English to translate."""
    if zh is None:
        return ""
    if not isinstance(zh, str):
        raise _fail(where, f"{key}{TRANSLATION_SUFFIX} must be a string")
    if zh and not english:
        raise _fail(where, f"{key}{TRANSLATION_SUFFIX} without an English {key}")
    if sorted(set(placeholders(zh))) != sorted(set(placeholders(english))):
        raise _fail(where, f"{key}{TRANSLATION_SUFFIX} must name the same placeholders as {key}: "
                           f"{sorted(set(placeholders(english)))}, got {sorted(set(placeholders(zh)))}")
    return _template(where, zh, thresholds)


def _branch(rule_id: str, raw: object, thresholds: Mapping[str, object]) -> Branch:
    if not isinstance(raw, dict):
        raise _fail(rule_id, f"each branch is a [[branch]] table, got {_shown(raw)}")
    bid = str(raw.get("id", ""))
    where = f"{rule_id}/{bid or '?'}"
    if not bid:
        raise _fail(where, "branch without an id")
    when = raw.get("when") or {}
    if not isinstance(when, dict) or not all(isinstance(v, list) for v in when.values()):
        raise _fail(where, f"`when` is a table like when.all = [[fact, op, value], …], got {_shown(when)}")
    is_default = raw.get("default") is True
    if is_default == bool(when) or (when and len(when) != 1) or not set(when) <= {"all", "any"}:
        raise _fail(where, "a branch needs exactly one of `default = true`, `when.all` or `when.any`")
    verdict, nxt = raw.get("verdict"), raw.get("next")
    if (verdict is None) == (nxt is None):
        raise _fail(where, "a branch needs exactly one of `verdict` or `next`")
    if nxt is not None and not isinstance(nxt, str):
        raise _fail(where, f"`next` names a rule id (a string), got {_shown(nxt)}")
    if not isinstance(raw.get("because", ""), str) or not isinstance(raw.get("warning", ""), str):
        raise _fail(where, "`because` and `warning` are strings")
    if verdict is not None and verdict not in get_args(VerdictName):
        raise _fail(where, f"verdict must be ENABLE, SKIP or INCONCLUSIVE, got {verdict!r}")
    unknown = raw.get("unknown", "block")
    if unknown not in get_args(UnknownMode):
        raise _fail(where, "unknown must be block, defer, caveat or ignore"
                           f"{suggest(str(unknown), list(get_args(UnknownMode)))}")
    mode = cast(Literal["all", "any", "default"], "default" if is_default else next(iter(when)))
    conds = tuple(_condition(where, c, thresholds) for c in (when.get(mode) or []) if mode != "default")
    if mode != "default" and not conds:
        raise _fail(where, f"when.{mode} is empty")
    because = _template(where, str(raw.get("because", "")), thresholds)
    warning = _template(where, str(raw.get("warning", "")), thresholds)
    remedies = parse_remedies(where, raw.get("remedy"), thresholds)
    return Branch(bid, mode, conds, verdict, nxt, because, warning, unknown,
                  because_zh=_translation(where, "because", because, raw.get("because_zh"), thresholds),
                  warning_zh=_translation(where, "warning", warning, raw.get("warning_zh"), thresholds),
                  remedies=remedies)


def parse_remedies(where: str, raw: object, thresholds: Mapping[str, object]) -> tuple[Remedy, ...]:
    """`[[...remedy]]` tables: `when.all`/`when.any` (or `default = true`), `text`, `text_zh`; at most one
    default, placed last."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
        raise _fail(where, f"`remedy` is a list of [[remedy]] tables, got {_shown(raw)}")
    out: list[Remedy] = []
    for i, entry in enumerate(raw):
        here = f"{where} remedy {i + 1}"
        when = entry.get("when") or {}
        is_default = entry.get("default") is True
        shaped = isinstance(when, dict) and len(when) <= 1 and set(when) <= {"all", "any"} and all(
            isinstance(v, list) for v in when.values())
        if not shaped or is_default == bool(when):
            raise _fail(here, "a remedy needs exactly one of `default = true`, `when.all` or `when.any`")
        text = entry.get("text")
        if not isinstance(text, str) or not text:
            raise _fail(here, "a remedy needs a `text`")
        mode = cast(Literal["all", "any", "default"], "default" if is_default else next(iter(when)))
        conds = tuple(_condition(here, c, thresholds) for c in when.get(mode, []) if mode != "default")
        if mode != "default" and not conds:
            raise _fail(here, f"when.{mode} is empty")
        out.append(Remedy(mode, conds, _template(here, text, thresholds),
                          _translation(here, "text", text, entry.get("text_zh"), thresholds)))
    if any(r.mode == "default" for r in out[:-1]):
        raise _fail(where, "a default remedy goes last")
    return tuple(out)


def parse_rule_file(text: str, source: str, policy: Policy) -> RuleFile:
    """Parse and check one file on its own (ids of `next` targets are checked by `load_rules`)."""
    data = _toml(text, source)
    rid = data.get("id")
    if data.get("schema") != 1 or not isinstance(rid, str):
        raise _fail(source, "needs `schema = 1` and a string `id`")
    for key, kind, name in (("thresholds", dict, "a table"), ("branch", list, "a list of [[branch]] tables"),
                            ("references", list, "a list of strings")):
        if key in data and not isinstance(data[key], kind):
            raise _fail(f"{rid} ({source})", f"`{key}` must be {name}, got {_shown(data[key])}")
    thresholds = dict(data.get("thresholds") or {})
    known = {**thresholds, **{POLICY_REF + k: v for k, v in flat_values(policy).items()}}
    branches = tuple(_branch(rid, b, known) for b in data.get("branch") or [])
    defaults = [b for b in branches if b.mode == "default"]
    if len(defaults) != 1 or branches[-1].mode != "default":
        raise _fail(f"{rid} ({source})", "needs exactly one `default = true` branch, placed last")
    if len({b.id for b in branches}) != len(branches):
        raise _fail(rid, "branch ids must be unique")
    refs = data.get("references") or []
    heads = {k: str(data.get(k, "")) for k in HEAD_TEXTS}
    zh = {f"{k}_zh": _translation(rid, k, heads[k], data.get(f"{k}_zh"), known) for k in HEAD_TEXTS}
    for name, value in thresholds.items():
        if (problem := threshold_problem(value)) is not None:
            raise _fail(f"{source} [thresholds] {name}", problem)
    rule = RuleFile(rid, heads["question"], thresholds, branches, source, what=heads["what"], why=heads["why"],
                    references=tuple(str(r) for r in refs if isinstance(r, str)), notes=notes(text), **zh)
    _check_values(rule, policy, source)
    return rule


def _check_values(rule: RuleFile, policy: Policy, source: str) -> None:
    """Every condition's value against its fact's type and range, thresholds and policy values resolved."""
    values = {**rule.thresholds, **{POLICY_REF + k: v for k, v in flat_values(policy).items()}}
    for b in rule.branches:
        for c in b.conditions:
            if c.op in UNARY_OPS:
                continue
            problem = condition_problem(c.fact, c.op, c.value, values.__getitem__)
            if problem is not None:
                raise _fail(f"{source} [{rule.id}/{b.id}] {c.fact} {c.op} {c.value!r}", problem)


def untranslated(rules: RuleSet) -> list[str]:
    """`rule/branch.key` of every English text without its Chinese twin (empty when all are translated)."""
    out = []
    for rule in rules.files.values():
        out += [f"{rule.id}.{k}" for k in HEAD_TEXTS if getattr(rule, k) and not getattr(rule, f"{k}_zh")]
        out += [f"{rule.id}/{b.id}.{k}" for b in rule.branches for k in BRANCH_TEXTS
                if getattr(b, k) and not getattr(b, f"{k}_zh")]
        out += [f"{rule.id}/{b.id}.remedy" for b in rule.branches for r in b.remedies if not r.text_zh]
    out += [f"{REMEDIES_FILE}:{code}" for code, rs in rules.remedies.items() for r in rs if not r.text_zh]
    return out


def unremedied(rules: RuleSet) -> list[str]:
    """`rule/branch` of every branch that withholds the verdict (INCONCLUSIVE) without a remedy to offer."""
    return [f"{rule.id}/{b.id}" for rule in rules.files.values() for b in rule.branches
            if b.verdict == "INCONCLUSIVE" and not b.remedies]


def load_remedies(path: Traversable, policy: Policy) -> dict[str, tuple[Remedy, ...]]:
    """remedies.toml: `[[remedy.CODE]]` tables, or nothing when the folder has none."""
    if not path.is_file():
        return {}
    text = _read_text(path) if isinstance(path, Path) else path.read_text(encoding="utf-8")
    data = _toml(text, str(path))
    table = data.get("remedy") or {}
    if data.get("schema") != 1 or not isinstance(table, dict):
        raise _fail(str(path), "needs `schema = 1` and [[remedy.CODE]] tables")
    # {missing}: the facts a `block` or `defer` lacked, named by the reason the remedy answers
    known = {"missing": "", **{POLICY_REF + k: v for k, v in flat_values(policy).items()}}
    return {str(code): parse_remedies(f"{path} [{code}]", entries, known) for code, entries in table.items()}


def _read_dir(files: Iterable[Traversable], policy: Policy) -> dict[str, RuleFile]:
    out: dict[str, RuleFile] = {}
    for f in sorted(files, key=lambda f: f.name):
        if not f.name.endswith(".toml") or f.name in NOT_QUESTIONS:
            continue
        text = _read_text(f) if isinstance(f, Path) else f.read_text(encoding="utf-8")
        rule = parse_rule_file(text, str(f), policy)
        if rule.id in out:
            raise _fail(str(f), f"id '{rule.id}' is already used by {out[rule.id].source}")
        out[rule.id] = rule
    return out


def _apply_thresholds(files: dict[str, RuleFile], path: Path, policy: Policy) -> None:
    data = _toml(_read_text(path), str(path))
    for rid, table in data.items():
        if rid not in files or not isinstance(table, dict):
            raise _fail(str(path), f"unknown rule id '[{rid}]'{suggest(rid, files)}")
        rule = files[rid]
        merged = dict(rule.thresholds)
        for name, value in table.items():
            if name not in merged:
                raise _fail(f"{path} [{rid}]", f"unknown threshold '{name}'{suggest(name, merged)}")
            if type(value) is not type(merged[name]) and not (
                    isinstance(value, int | float) and isinstance(merged[name], int | float)
                    and not isinstance(value, bool)):
                raise _fail(f"{path} [{rid}]", f"threshold '{name}' must be like {merged[name]!r}")
            if (problem := threshold_problem(value)) is not None:
                raise _fail(f"{path} [{rid}] {name}", problem)
            merged[name] = value
        files[rid] = replace(rule, thresholds=merged)
        _check_values(files[rid], policy, str(path))


def _check_graph(files: Mapping[str, RuleFile], root: str) -> None:
    if root not in files:
        raise _fail("rules", f"no root rule '{root}'{suggest(root, files)}")
    for rule in files.values():
        for b in rule.branches:
            if b.next is not None and b.next not in files:
                raise _fail(f"{rule.id}/{b.id}", f"next = '{b.next}' is not a rule id{suggest(b.next, files)}")

    # Depth-first with an explicit stack, not recursion: a chain of 3,000 questions is long, not an error.
    done: set[str] = set()
    for start in files:
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, bool]] = [(start, False)]
        while stack:
            rid, leaving = stack.pop()
            if leaving:
                path.pop()
                on_path.discard(rid)
                done.add(rid)
                continue
            if rid in on_path:
                raise _fail("rules", "cycle: " + " → ".join((*path[path.index(rid):], rid)))
            if rid in done:
                continue
            path.append(rid)
            on_path.add(rid)
            stack.append((rid, True))
            stack.extend((b.next, False) for b in reversed(files[rid].branches) if b.next is not None)


def load_rules(rules_dir: Path | None = None, *, overrides: bool = True) -> RuleSet:
    """Built-in rules (or `rules_dir`), then the user's overrides from `config_dir()/rules/`.

    The policy loads first (its values are what `$policy.…` references resolve to), then every question;
    anything malformed raises RuleError/PolicyError (UserErrors) here, before a check measures anything."""
    if rules_dir is not None and not rules_dir.is_dir():
        raise RuleError(f"--rules {rules_dir}: not a folder", hint="pass a folder of rule files like rules/")
    base: Traversable = rules_dir if rules_dir is not None else resources.files("rules")
    user = config_dir() / "rules"
    use_user = overrides and user.is_dir()
    policy = load_policy(rules_dir, user if use_user else None)
    files = _read_dir(base.iterdir(), policy)
    if use_user:
        files.update(_read_dir(user.iterdir(), policy))  # same id replaces the built-in question
        if (user / "thresholds.toml").exists() or (user / "thresholds.toml").is_symlink():
            _apply_thresholds(files, user / "thresholds.toml", policy)
    _check_graph(files, ROOT_ID)
    return RuleSet(ROOT_ID, files, policy, load_remedies(base / REMEDIES_FILE, policy))
