"""`spec-advisor rules --tree`: the whole tree readable, with its numbers' sources; rules/README.md is current."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.cli.main import main
from advisor.decide.rules import load_rules
from advisor.decide.tree import UNKNOWN_WORDS, render_tree
from tests.paths import REPO


def test_readme_is_the_generated_tree() -> None:
    expected = render_tree(load_rules(overrides=False), markdown=True)
    assert (REPO / "rules" / "README.md").read_text(encoding="utf-8") == expected, (
        "rules/README.md is stale: run `spec-advisor rules --tree --markdown --no-overrides > rules/README.md`")


def test_tree_names_every_question_branch_and_number(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--tree"]) == 0
    text = capsys.readouterr().out
    rules = load_rules()
    for rule in rules.files.values():
        assert rule.question in text
        for branch in rule.branches:
            assert branch.id in text
        for name in rule.thresholds:
            assert f"`{name}`" in text
    assert "policy.canary.max_repeat_inflation` = 1.1 — MLPerf Inference TEST04" in text  # a source, in words
    for words in UNKNOWN_WORDS.values():
        assert words in text
    assert text.index("spec-decoding —") < text.index("measurement-validity —") < text.index("ab-outcome —")


def test_a_broken_override_is_reported_not_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "config" / "rules"
    folder.mkdir(parents=True)
    (folder / "policy.toml").write_text("[ab]\nmin_sped = 1.1\n", encoding="utf-8")
    monkeypatch.setenv("SPEC_ADVISOR_CONFIG_DIR", str(tmp_path / "config"))
    assert main(["rules", "--tree"]) == 2
    assert "did you mean 'min_speedup'" in capsys.readouterr().err
