"""The README's command block, generated from the parser (`python -m advisor.cli.usage` prints it;
tests/project/test_readme_usage.py fails when README.md's block differs), so no command or option goes missing."""

from __future__ import annotations

import argparse
import os
import re

BEGIN, END = "<!-- commands:begin (python -m advisor.cli.usage) -->", "<!-- commands:end -->"
WIDTH = 116


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps the subcommands on its one _SubParsersAction
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def usage_block() -> str:
    """One usage entry per command, as argparse writes it (without -h), wrapped at WIDTH columns."""
    from advisor.cli.main import build_parser

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)  # argparse wraps usage at the terminal width; fix it for a stable block
    try:
        lines = ["spec-advisor                      open the desktop app (the same as `spec-advisor gui`)"]
        for _name, sub in sorted(_subparsers(build_parser()).items()):
            usage = sub.format_usage().removeprefix("usage: ").replace(" [-h]", "", 1).rstrip()
            lines.append(re.sub(r"\n\s+", "\n  ", usage))
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved
    return "```\n" + "\n".join(lines) + "\n```"


def readme_block(readme: str, begin: str = BEGIN, end: str = END) -> str | None:
    """A generated part of a README (between `begin` and `end`), or None when the markers are missing."""
    start, stop = readme.find(begin), readme.find(end)
    return None if start < 0 or stop < start else readme[start + len(begin):stop].strip()


def main() -> None:
    """Print the block with its markers (paste it into README.md, or let the test tell you it is stale)."""
    print(f"{BEGIN}\n{usage_block()}\n{END}")


if __name__ == "__main__":
    main()
