"""`spec-advisor report`: render a run (or a facts file) as HTML, Markdown or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from advisor.atomic import write_atomic
from advisor.errors import UserError
from advisor.report.model import build_report, validate_report
from advisor.report.render_html import render_html
from advisor.report.render_json import render_json
from advisor.report.render_markdown import render_markdown
from advisor.report.strings import LANGS

NAME = "report"
HELP = "write a report (html, md or json) for a run folder or a --facts FILE.json"
_SUFFIX_FORMAT = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".json": "json"}


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments: RUN_DIR or --facts, --format, --lang, --include-prompts, -o."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("run_dir", nargs="?", type=Path, metavar="RUN_DIR",
                        help="a run folder (evidence.json, maybe verdict.json), an evidence.json, or a report.json")
    source.add_argument("--facts", type=Path, metavar="FILE.json", help="a flat JSON object of facts")
    parser.add_argument("--format", choices=("html", "md", "json"),
                        help="output format (default: from the -o suffix, else html)")
    parser.add_argument("--lang", choices=LANGS, default="en", help="report language (default: en)")
    parser.add_argument("--include-prompts", action="store_true",
                        help="keep prompts and model outputs in the report (left out by default)")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE", help="where to write (default: stdout)")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}",
                        hint="pass a run folder, its evidence.json, or --facts FILE.json") from exc
    except json.JSONDecodeError as exc:
        raise UserError(f"{path} is not valid JSON: {exc}") from exc


def _decide(evidence_or_facts: Mapping[str, Any], *, is_evidence: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """Facts and the verdict dict, from the decision engine (imported late: it is optional here)."""
    try:
        from advisor.decide.verdict import decide, verdict_to_json
        from advisor.facts.specs import facts_from_evidence
    except ImportError as exc:
        raise UserError("the decision engine is unavailable in this installation, so no verdict can be made",
                        hint="run `spec-advisor decide` to check, or keep a verdict.json in the run folder") from exc
    facts = dict(facts_from_evidence(evidence_or_facts)) if is_evidence else dict(evidence_or_facts)
    return facts, dict(verdict_to_json(decide(facts)))


def _facts_only(evidence: Mapping[str, Any]) -> dict[str, Any]:
    try:
        from advisor.facts.specs import facts_from_evidence
    except ImportError:
        return {}  # a saved verdict still makes a useful report without the flat facts table
    return dict(facts_from_evidence(evidence))


def _load_facts_file(path: Path) -> dict[str, Any]:
    try:
        from advisor.facts.specs import load_facts_file
    except ImportError as exc:
        raise UserError("the decision engine is unavailable in this installation, so --facts cannot be read") from exc
    return dict(load_facts_file(path))


def build_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The canonical report for the command's source (a report.json is re-rendered as it is)."""
    if args.facts is not None:
        facts, verdict = _decide(_load_facts_file(args.facts), is_evidence=False)
        return build_report({}, facts, verdict, include_prompts=args.include_prompts)
    path: Path = args.run_dir
    folder = path if path.is_dir() else path.parent
    data = _read_json(path / "evidence.json" if path.is_dir() else path)
    if isinstance(data, dict) and "report_schema_version" in data:
        return validate_report(data)
    if not isinstance(data, dict) or "schema_version" not in data:
        raise UserError(f"{path} holds no evidence.json (no schema_version)",
                        hint="for a flat object of facts use --facts FILE.json")
    saved = folder / "verdict.json"
    if saved.is_file():  # the verdict made at the end of the run is the one the user saw
        verdict = _read_json(saved)
        if not isinstance(verdict, dict):
            raise UserError(f"{saved} is not a verdict object")
        facts = _facts_only(data)
    else:
        facts, verdict = _decide(data, is_evidence=True)
    return build_report(data, facts, verdict, include_prompts=args.include_prompts)


def run(args: argparse.Namespace) -> int:
    """Build the report and write it atomically (or print it)."""
    fmt = args.format or (_SUFFIX_FORMAT.get(args.output.suffix.lower(), "html") if args.output else "html")
    report = build_from_args(args)
    if fmt == "html":
        text = render_html(report, args.lang)
    elif fmt == "md":
        text = render_markdown(report, args.lang)
    else:
        text = render_json(report)
    if args.output is None or str(args.output) == "-":
        sys.stdout.write(text)
        return 0
    try:
        write_atomic(args.output, text)
    except OSError as exc:
        raise UserError(f"cannot write {args.output}: {exc.strerror or exc}",
                        hint="check the folder exists and is writable") from exc
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
