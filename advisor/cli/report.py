"""`spec-advisor report`: render a run (or a facts file) as HTML, Markdown or JSON."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from advisor import lang
from advisor.atomic import write_atomic
from advisor.decide.verdict import decide
from advisor.decide.verdict_json import verdict_from_json
from advisor.errors import UserError
from advisor.evidence.io import evidence_from_json, evidence_path, read_json_file
from advisor.facts.checks import load_facts_file
from advisor.facts.from_evidence import facts_from_evidence
from advisor.owned import output_file, wants_folder
from advisor.report.model import DAMAGED_SHAPE, build_report, validate_report
from advisor.report.render_html import render_html
from advisor.report.render_json import render_json
from advisor.report.render_markdown import render_markdown
from advisor.report.tree import Report

_SUFFIX_FORMAT = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".json": "json"}
_FORMAT_SUFFIX = {"html": "html", "md": "md", "json": "json"}


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments: RUN_DIR or --facts, --format, --lang, --include-prompts, -o."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("run_dir", nargs="?", type=Path, metavar="RUN_DIR",
                        help="a run folder (evidence.json, maybe verdict.json), an evidence.json, or a report.json")
    source.add_argument("--facts", type=Path, metavar="FILE.json", help="a flat JSON object of facts")
    parser.add_argument("--format", choices=("html", "md", "json"),
                        help="output format (default: from the -o suffix, else html)")
    lang.add_option(parser, "report language")
    parser.add_argument("--include-prompts", action="store_true",
                        help="keep prompts and model outputs in the report (left out by default)")
    parser.add_argument("-o", "--output", metavar="FILE", help="where to write (default: stdout; a folder, or a name "
                                                               "ending in /, gets report.<format> inside)")


def _source(args: argparse.Namespace) -> tuple[Report, bool]:
    """The report, and whether it was read from a report.json (a file the user may have edited)."""
    if args.facts is not None:
        facts = load_facts_file(args.facts)
        return build_report(None, facts, decide(facts), include_prompts=args.include_prompts), False
    path: Path = args.run_dir
    file = evidence_path(path)
    data = read_json_file(file, what="an evidence file or a report")
    if isinstance(data, dict) and "report_schema_version" in data:
        return validate_report(data), True
    evidence = evidence_from_json(data, origin=str(file))
    facts = facts_from_evidence(evidence)
    saved = file.parent / "verdict.json"
    if saved.is_file():  # the verdict made at the end of the run is the one the user saw
        data = read_json_file(saved, what="a verdict")
        if not isinstance(data, dict):
            raise UserError(f"{saved} is not a verdict object")
        verdict = verdict_from_json(data)
    else:
        verdict = decide(facts)
    return build_report(evidence, facts, verdict, include_prompts=args.include_prompts), False


def _sources(args: argparse.Namespace) -> list[Path]:
    """The files the report is read from (never written over)."""
    if args.facts is not None:
        return [args.facts]
    file = evidence_path(args.run_dir)
    return [file, file.parent / "verdict.json"]


def _target(args: argparse.Namespace) -> tuple[Path | None, str]:
    """Where to write (None: stdout) and the format: a folder gets report.<format> inside it (advisor/owned.py
    decides, and refuses a run's own files, the history and the report's source)."""
    raw: str | None = args.output
    if raw is None or raw == "-":
        return None, args.format or "html"
    if wants_folder(raw):
        fmt = args.format or "html"
        return output_file(raw, f"report.{_FORMAT_SUFFIX[fmt]}", sources=_sources(args), lang=lang.resolve(args.lang),
                           make_folder=False), fmt
    fmt = args.format or _SUFFIX_FORMAT.get(Path(raw).suffix.lower(), "html")
    return output_file(raw, "", sources=_sources(args), lang=lang.resolve(args.lang)), fmt


def run(args: argparse.Namespace) -> int:
    """Build the report and write it atomically (or print it)."""
    output, fmt = _target(args)  # refused before the report is built: nothing is read twice or half-written
    report, from_file = _source(args)
    try:
        if fmt == "html":
            text = render_html(report, lang.resolve(args.lang))
        elif fmt == "md":
            text = render_markdown(report, lang.resolve(args.lang))
        else:
            text = render_json(report)
    except DAMAGED_SHAPE as exc:
        if not from_file:
            raise  # a report this run built: a bug, not the user's file
        raise UserError(f"the report {args.run_dir} is damaged or was edited by hand ({type(exc).__name__}: "
                        f"{str(exc)[:120]})", hint="write it again with `spec-advisor report RUN --format json`, "
                                                   "or report from the run folder") from None
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        if not output.parent.exists() and args.output.endswith(("/", os.sep)):
            output.parent.mkdir()  # `-o newdir/`: the folder the user asked for, one level, made only now
        write_atomic(output, text)
    except OSError as exc:
        raise UserError(f"cannot write {output}: {exc.strerror or exc}",
                        hint="check the folder exists and is writable") from exc
    print(f"wrote {output}", file=sys.stderr)
    return 0
