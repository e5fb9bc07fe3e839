"""`spec-advisor decide`: re-decide offline from saved evidence or a hand-written facts file."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

from advisor import jsonout, lang
from advisor.decide.rules import UNARY_OPS
from advisor.decide.verdict import Verdict, decide, verdict_to_json
from advisor.deploy.base import FORMATS
from advisor.errors import UserError
from advisor.facts.checks import load_facts_file
from advisor.report.blocking_text import blocking_lines, other_because
from advisor.report.headline import headline
from advisor.report.strings import speedup_line, text, typical_line
from advisor.report.verdict_view import report_verdict
from advisor.text.settings import settings_phrase
from advisor.userfile import read_user_file

MAX_PORT = 65535
# `decide --exit-code`: scripts branch on the verdict (README "Exit codes"); 2 is the CLI's usage error.
EXIT_CODES: dict[str, int] = {"ENABLE": 0, "SKIP": 10, "INCONCLUSIVE": 20}


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments: a run folder / evidence file, or --facts; --json for machine output."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("evidence", nargs="?", type=Path, metavar="RUN_DIR|EVIDENCE.json",
                        help="a run folder holding evidence.json, or the file itself")
    source.add_argument("--facts", type=Path, metavar="FILE.json",
                        help="a flat JSON object of facts (any subset of the names --list-facts prints)")
    source.add_argument("--list-facts", action="store_true",
                        help="print every fact name with its type, unit and meaning (docs/facts.md), then exit")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.add_argument("--trace", action="store_true",
                        help="print every check of the rule walk (by default only the ones that decided)")
    parser.add_argument("--markdown", action="store_true", help="with --list-facts: the table as Markdown")
    parser.add_argument("--rules", type=Path, metavar="DIR", help="use this rules folder instead of the built-in")
    parser.add_argument("--exit-code", action="store_true",
                        help="exit with the verdict: 0 ENABLE, 10 SKIP, 20 INCONCLUSIVE (2 stays a usage error)")
    lang.add_option(parser, "language of the verdict text")
    deploy = parser.add_argument_group("deploy form (advisor/deploy)")
    deploy.add_argument("--format-flags", choices=FORMATS, default="plain",
                        help="print the flags as an LLMKube patch, docker run line, compose service or systemd "
                             "ExecStart= (stdout then holds only that; the verdict goes to stderr)")
    deploy.add_argument("--manifest", type=Path, metavar="FILE",
                        help="with llmkube: your InferenceService manifest; only spec.extraArgs is changed")
    deploy.add_argument("--model-path", metavar="PATH", help="the model file you serve (else a placeholder)")
    deploy.add_argument("--host", help="the address llama-server listens on (default 127.0.0.1)")
    deploy.add_argument("--port", type=int, help="the port llama-server listens on (default 8080)")


def _read_evidence(path: Path) -> dict[str, object]:
    # The evidence schema is most of the package: a `--facts` decision does not import it.
    from advisor.evidence.io import load_evidence
    from advisor.facts.from_evidence import facts_from_evidence

    return facts_from_evidence(load_evidence(path))


def _print_text(v: Verdict, lang: str, *, full_trace: bool = False,
                facts: Mapping[str, object] | None = None) -> None:
    print(text(lang, "cli.verdict", word=v.verdict, words=text(lang, f"verdict.{v.verdict}")))
    if v.measured_with:
        print(text(lang, "decide.measured_with", settings=settings_phrase(v.measured_with, lang)))
    # one headline: the measured A/B when there is one, else the prediction, named as which (the same line
    # the check summary, the window and the report show)
    head = headline(v, facts or {})
    print(speedup_line(head, lang) + (text(lang, "cli.uses_priors") if head.source == "prior" else ""))
    if (typical := typical_line(head, lang)) is not None:
        print(f"  {typical}")
    label = {k: text(lang, f"decide.{k}") for k in ("because", "step", "note", "caveat", "instead", "warning")}
    shown = report_verdict(v)
    for line in other_because(shown, lang):
        print(f"  {label['because']}: {line}")
    for line in blocking_lines(shown, lang):
        print(line)
    for rec, key in ((v.flags, "decide.flags"), (v.try_flags, "try.flags")):
        if rec is None:
            continue
        if rec.argv:
            print(text(lang, key, engine=rec.engine, command=rec.command))
        for step in rec.steps:
            print(f"  {label['step']}: {step}")
        for note in rec.notes:
            print(f"  {label['note']}: {note}")
    for caveat in v.texts("caveats", lang):
        print(f"  {label['caveat']}: {caveat}")
    for alt in v.texts("alternatives", lang):
        print(f"  {label['instead']}: {alt}")
    for w in v.texts("warnings", lang):
        print(f"  {label['warning']}: {w}")
    if v.assumptions:
        print(text(lang, "assumptions.line", items=("；" if lang == "zh" else "; ").join(v.texts("assumptions", lang))))
    if v.missing_facts:
        print(text(lang, "decide.missing", facts=", ".join(v.missing_facts)))
    # by default the checks that decided (a walk over a sparse facts file has dozens of unknowns)
    rows = v.trace if full_trace else [c for c in v.trace if c.outcome == "reason"]
    if full_trace:
        print(text(lang, "decide.trace"))
    else:
        print(text(lang, "trace.short", path=" → ".join(v.path) or "—", shown=len(rows), total=len(v.trace)))
    actual = text(lang, "decide.actual")
    for c in rows:
        expected = "" if c.op in UNARY_OPS else f" {c.expected!r}"
        # a yes/no fact reads as a word in the reader's language; numbers and strings as the check saw them
        seen = text(lang, f"value.{'yes' if c.actual else 'no'}") if isinstance(c.actual, bool) else repr(c.actual)
        print(f"  [{trace_word(c.outcome, c.leads_to, lang):24}] {c.rule}/{c.branch}: {c.fact} {c.op}{expected} "
              f"({actual} {seen})")


def trace_word(outcome: str, leads_to: str, lang: str = "en") -> str:
    """How a trace row reads: `reason → SKIP` for the conditions that decided, else holds/no/unknown."""
    key = outcome if outcome in ("reason", "holds", "clear") else "unknown"
    return text(lang, f"decide.{key}", leads_to=leads_to)


def run(args: argparse.Namespace) -> int:
    """Load facts, decide, print. Exit 0 whatever the verdict, or with --exit-code the verdict's own code
    (EXIT_CODES); 2 for user errors via the CLI."""
    if args.port is not None and not 1 <= args.port <= MAX_PORT:
        raise UserError(f"--port must be from 1 to {MAX_PORT}, not {args.port}")
    if args.host is not None and (not args.host or any(c.isspace() or not c.isprintable() for c in args.host)):
        raise UserError(f"--host must be an address without spaces or control characters, not {args.host!r}")
    language = lang.resolve(args.lang)
    if args.markdown and not args.list_facts:
        raise UserError("--markdown goes with --list-facts")
    if args.list_facts:
        return _list_facts(args, language)
    facts = load_facts_file(args.facts) if args.facts is not None else _read_evidence(args.evidence)
    verdict = decide(facts, rules_dir=args.rules)
    fmt = args.format_flags
    deploy = _deploy(args, verdict, facts) if fmt != "plain" or args.manifest is not None else None
    if args.json:
        data = verdict_to_json(verdict)
        if deploy is not None:
            data["deploy"] = {"format": fmt, "text": deploy}
        jsonout.dump(data, sys.stdout)
    elif deploy is not None:
        # stdout carries only the deployable text so it can be redirected into a file
        print(text(language, "cli.verdict", word=verdict.verdict, words=text(language, f"verdict.{verdict.verdict}")),
              file=sys.stderr)
        shown = report_verdict(verdict)
        for line in other_because(shown, language):
            print(f"  {text(language, 'decide.because')}: {line}", file=sys.stderr)
        for line in blocking_lines(shown, language):
            print(line, file=sys.stderr)
        sys.stdout.write(deploy)
    else:
        _print_text(verdict, language, full_trace=args.trace, facts=facts)
    return EXIT_CODES[verdict.verdict] if args.exit_code else 0


def _list_facts(args: argparse.Namespace, language: str) -> int:
    from advisor.facts.listing import list_json, list_markdown, list_text

    if args.json:
        jsonout.dump({"facts": list_json()}, sys.stdout)
    else:
        sys.stdout.write(list_markdown() if args.markdown else list_text(language))
    return 0


def _deploy(args: argparse.Namespace, verdict: Verdict, facts: Mapping[str, object]) -> str:
    from advisor.deploy.render import render_deploy  # YAML and five renderers: only when a form is asked for
    from advisor.deploy.yaml_load import MAX_CHARS

    manifest: str | None = None
    if args.manifest is not None:
        if args.format_flags != "llmkube":
            raise UserError("--manifest goes with --format-flags llmkube")
        try:  # one byte over the cap is enough to refuse a huge file (UTF-8 has ≥ 1 byte per character)
            manifest = read_user_file(args.manifest, 4 * MAX_CHARS).decode("utf-8")[: MAX_CHARS + 1]
        except OSError as exc:
            raise UserError(f"cannot read manifest {args.manifest}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise UserError(f"cannot read manifest {args.manifest}: not UTF-8 ({exc.reason})") from None
    count = facts.get("gpu.count")
    gpu = count >= 1 if isinstance(count, int) and not isinstance(count, bool) else None
    tentative = verdict.flags is None and verdict.try_flags is not None  # INCONCLUSIVE: the settings to try
    return render_deploy(verdict.try_flags if tentative else verdict.flags, args.format_flags,
                         manifest_text=manifest, model_path=args.model_path, host=args.host, port=args.port,
                         verdict=verdict.verdict, tentative=tentative, gpu=gpu)
