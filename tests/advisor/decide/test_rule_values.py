"""Rule values and facts are checked at load time (issue 25 class 7): a threshold that is a string or NaN, a
value outside its fact's range, an enumerated fact with an unknown value, a chain thousands of rules deep."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import get_args

import pytest

from advisor.decide.rules import RuleError, load_rules
from advisor.decide.tree import render_tree
from advisor.evidence.steps import AbVerdict, Bottleneck
from advisor.facts.specs import CHOICES, FactsError, validate_facts
from probes.engines.llamacpp.binary import Generation
from probes.engines.llamacpp.placement import SplitMode
from tests.paths import REPO


def _rules(tmp_path: Path) -> Path:
    dst = tmp_path / "rules"
    shutil.copytree(REPO / "rules", dst, ignore=shutil.ignore_patterns("cases", "__pycache__", "*.md"))
    return dst


def _with_local_threshold(rules: Path) -> Path:
    """acceptance.toml with a threshold of its own (the shipped file reads the policy's), for a bad value to edit."""
    path = rules / "acceptance.toml"
    text = path.read_text()
    text = text.replace('"$policy.acceptance.low_rate_warning"', '"$min_acceptance_rate"', 1)
    path.write_text(text.replace("[[branch]]", "[thresholds]\nmin_acceptance_rate = 0.5\n\n[[branch]]", 1))
    return rules


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_choices_match_the_types_that_produce_them() -> None:
    assert CHOICES["ab.decision"] == get_args(AbVerdict)
    assert CHOICES["baseline.bottleneck"] == get_args(Bottleneck)
    assert CHOICES["engine.flag_generation"] == get_args(Generation)
    assert CHOICES["engine.split_mode"] == get_args(SplitMode)


@pytest.mark.parametrize(("new", "says"), [
    ('min_acceptance_rate = "0.5"', "cannot be compared with '0.5'"),
    ("min_acceptance_rate = nan", "nan is not a finite number"),
    ("min_acceptance_rate = inf", "inf is not a finite number"),
    ("min_acceptance_rate = 1.5", "fraction 0..1"),
    ("min_acceptance_rate = [0.5]", "is not a number"),
])
def test_a_bad_threshold_is_refused_at_load_naming_file_and_key(tmp_path: Path, new: str, says: str) -> None:
    rules = _with_local_threshold(_rules(tmp_path))
    _edit(rules / "acceptance.toml", "min_acceptance_rate = 0.5", new)
    with pytest.raises(RuleError) as err:
        load_rules(rules, overrides=False)
    assert says in str(err.value) and "acceptance.toml" in str(err.value)


def test_a_literal_nan_in_a_condition_is_refused(tmp_path: Path) -> None:
    rules = _with_local_threshold(_rules(tmp_path))
    _edit(rules / "acceptance.toml", '["acceptance.rate", "<", "$min_acceptance_rate"]',
          '["acceptance.rate", "<", nan]')
    with pytest.raises(RuleError, match="NaN compares false"):
        load_rules(rules, overrides=False)


def test_a_user_threshold_override_of_nan_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "cfg"
    (cfg / "rules").mkdir(parents=True)
    (cfg / "rules" / "thresholds.toml").write_text("[acceptance]\nmin_acceptance_rate = nan\n")
    monkeypatch.setenv("SPEC_ADVISOR_CONFIG_DIR", str(cfg))
    with pytest.raises(RuleError, match=r"thresholds\.toml"):
        load_rules()


@pytest.mark.parametrize(("fact", "value"), [("ab.decision", "MAYBE"), ("baseline.bottleneck", "disk"),
                                             ("ab.speedup", 10**400), ("ab.n_prompts", 10**30)])
def test_facts_outside_their_values_are_refused(fact: str, value: object) -> None:
    with pytest.raises(FactsError, match=fact.replace(".", r"\.")):
        validate_facts({fact: value})


def test_a_chain_of_3000_questions_loads_and_renders(tmp_path: Path) -> None:
    rules = _rules(tmp_path)
    for i in range(3000):
        end = f'next = "c{i + 1}"' if i < 2999 else 'verdict = "SKIP"'
        (rules / f"c{i}.toml").write_text(f'schema = 1\nid = "c{i}"\n[[branch]]\nid = "d"\ndefault = true\n{end}\n')
    loaded = load_rules(rules, overrides=False)
    assert "c2999" in render_tree(loaded)


def test_a_cycle_is_still_named(tmp_path: Path) -> None:
    rules = _rules(tmp_path)
    for a, b in (("x1", "x2"), ("x2", "x1")):
        text = f'schema = 1\nid = "{a}"\n[[branch]]\nid = "d"\ndefault = true\nnext = "{b}"\n'
        (rules / f"{a}.toml").write_text(text)
    with pytest.raises(RuleError, match="cycle: x1 → x2 → x1"):
        load_rules(rules, overrides=False)
