"""Every branch of every rule file is reached by a case in rules/cases/<id>.toml, and every case passes."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

import pytest

from advisor.decide.evaluate import walk
from advisor.decide.rules import RuleSet, load_rules
from advisor.decide.verdict import enrich
from advisor.facts.specs import validate_facts

RULES: RuleSet = load_rules(overrides=False)


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, object]:
    """Cases may write facts as quoted dotted keys or as nested TOML tables; both flatten the same."""
    out: dict[str, object] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def _cases(rule_id: str) -> list[dict[str, Any]]:
    file = resources.files("rules").joinpath("cases", f"{rule_id}.toml")
    assert file.is_file(), f"rules/cases/{rule_id}.toml is missing"
    return list(tomllib.loads(file.read_text(encoding="utf-8")).get("case", []))


ALL_CASES = [(rid, case) for rid in sorted(RULES.files) for case in _cases(rid)]


@pytest.mark.parametrize(("rule_id", "case"), ALL_CASES, ids=[f"{r}:{c['name']}" for r, c in ALL_CASES])
def test_case_reaches_expected_branch(rule_id: str, case: dict[str, Any]) -> None:
    facts, _, _ = enrich(validate_facts(_flatten(case.get("facts", {})), origin=case["name"]))
    result = walk(RULES, facts, rule_id, descend=False)
    assert not result.blocked, f"blocked on {result.missing}"
    assert result.branch == case["expect"]
    if "verdict" in case:
        assert result.verdict == case["verdict"]


@pytest.mark.parametrize("rule_id", sorted(RULES.files))
def test_every_branch_has_a_case(rule_id: str) -> None:
    branches = {b.id for b in RULES.files[rule_id].branches}
    expected = {c["expect"] for c in _cases(rule_id)}
    assert expected <= branches, f"cases name unknown branches: {expected - branches}"
    assert branches <= expected, f"branches without a case: {branches - expected}"


def test_every_threshold_has_a_provenance_comment() -> None:
    for file in resources.files("rules").iterdir():
        if not file.name.endswith(".toml"):
            continue
        in_table = False
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.startswith("["):
                in_table = line.strip() == "[thresholds]"
            elif in_table and "=" in line and not line.startswith("#"):
                assert "#" in line, f"{file.name}: threshold without a source comment: {line}"
