"""README.md's command block is the parser's own usage (advisor/cli/usage.py), so it lists every command
and option that exists; regenerate it with `python -m advisor.cli.usage`."""

from __future__ import annotations

from advisor.cli.usage import readme_block, usage_block
from tests.paths import REPO

README = REPO / "README.md"


def test_readme_command_block_is_generated_from_the_parser() -> None:
    block = readme_block(README.read_text(encoding="utf-8"))
    assert block is not None, "README.md lost the commands:begin/end markers"
    assert block == usage_block(), "README.md's command block is stale: run python -m advisor.cli.usage"


def test_the_block_names_every_command_and_the_new_options() -> None:
    block = usage_block()
    for command in ("check", "decide", "gui", "history", "probe", "report", "rules", "setup-help"):
        assert f"spec-advisor {command}" in block
    assert "--exit-code" in block and block.count("--lang") >= 6
