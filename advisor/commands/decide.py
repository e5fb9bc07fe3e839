"""`spec-advisor decide`: re-decide offline from saved evidence or a hand-written facts file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from advisor.decide import Verdict, decide, verdict_to_json
from advisor.errors import UserError
from advisor.facts import facts_from_evidence, load_facts_file

NAME = "decide"
HELP = "decide from a run folder, an evidence.json or --facts FILE.json; prints verdict, flags and trace"


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments: a run folder / evidence file, or --facts; --json for machine output."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("evidence", nargs="?", type=Path, metavar="RUN_DIR|EVIDENCE.json",
                        help="a run folder holding evidence.json, or the file itself")
    source.add_argument("--facts", type=Path, metavar="FILE.json",
                        help="a flat JSON object of facts (any subset of the documented names)")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.add_argument("--rules", type=Path, metavar="DIR", help="use this rules folder instead of the built-in")


def _read_evidence(path: Path) -> dict[str, object]:
    file = path / "evidence.json" if path.is_dir() else path
    try:
        data: Any = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read {file}: {exc.strerror or exc}",
                        hint="pass a run folder, its evidence.json, or --facts FILE.json") from exc
    except json.JSONDecodeError as exc:
        raise UserError(f"{file} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or "schema_version" not in data:
        raise UserError(f"{file} is not an evidence.json (no schema_version)",
                        hint="for a flat object of facts use --facts FILE.json")
    return facts_from_evidence(data)


def _print_text(v: Verdict) -> None:
    speed = f"{v.predicted_speedup:.2f}×" if v.predicted_speedup is not None else "n/a"
    prior = " (uses priors)" if v.prediction_is_prior else ""
    print(f"Verdict: {v.verdict}")
    print(f"Predicted speedup: {speed}{prior}")
    for line in v.because:
        print(f"  because: {line}")
    if v.flags is not None:
        if v.flags.argv:
            print(f"Flags ({v.flags.engine}): {v.flags.command}")
        for step in v.flags.steps:
            print(f"  step: {step}")
        for note in v.flags.notes:
            print(f"  note: {note}")
    for alt in v.alternatives:
        print(f"  instead: {alt}")
    for w in v.warnings:
        print(f"  warning: {w}")
    if v.missing_facts:
        print(f"Missing facts: {', '.join(v.missing_facts)}")
    print("Trace:")
    for c in v.trace:
        mark = {True: "pass", False: "fail", None: "unknown"}[c.passed]
        expected = "" if c.op in ("is-true", "is-false") else f" {c.expected!r}"
        print(f"  [{mark:7}] {c.rule}/{c.branch}: {c.fact} {c.op}{expected} (actual {c.actual!r})")


def run(args: argparse.Namespace) -> int:
    """Load facts, decide, print; exit 0 whatever the verdict (2 for user errors via the CLI)."""
    facts = load_facts_file(args.facts) if args.facts is not None else _read_evidence(args.evidence)
    verdict = decide(facts, rules_dir=args.rules)
    if args.json:
        print(json.dumps(verdict_to_json(verdict), indent=2, ensure_ascii=False))
    else:
        _print_text(verdict)
    return 0
