"""`spec-advisor rules`: the decision tree as a person reads it (questions, branches, numbers and sources)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from advisor.decide.rules import load_rules
from advisor.decide.tree import render_tree
from advisor.lang import LANGS


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments: --tree (the default view), --markdown, --rules DIR, --no-overrides."""
    parser.add_argument("--tree", action="store_true", help="print the whole tree (the default)")
    parser.add_argument("--markdown", action="store_true", help="as Markdown (how rules/README.md is made)")
    parser.add_argument("--rules", type=Path, metavar="DIR", help="use this rules folder instead of the built-in")
    parser.add_argument("--no-overrides", action="store_true",
                        help="ignore your overrides in the config folder (show the built-in tree)")
    parser.add_argument("--lang", choices=LANGS, default="en",
                        help="en: English with each Chinese text beside it (how rules/README.md is made); zh: Chinese")


def run(args: argparse.Namespace) -> int:
    """Load (and so validate) the rules, then print the tree."""
    rules = load_rules(args.rules, overrides=not args.no_overrides)
    sys.stdout.write(render_tree(rules, markdown=args.markdown, lang=args.lang))
    return 0
