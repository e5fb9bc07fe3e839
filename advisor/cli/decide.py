"""`spec-advisor decide`: re-decide offline from saved evidence or a hand-written facts file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from advisor.decide.rules import UNARY_OPS
from advisor.decide.verdict import Verdict, decide, verdict_to_json
from advisor.deploy.render import FORMATS, render_deploy
from advisor.deploy.yaml_load import MAX_CHARS
from advisor.errors import UserError
from advisor.evidence.io import load_evidence
from advisor.facts.checks import load_facts_file
from advisor.facts.from_evidence import facts_from_evidence
from advisor.userfile import read_user_file

MAX_PORT = 65535
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
    return facts_from_evidence(load_evidence(path))


def _print_text(v: Verdict) -> None:
    speed = f"{v.predicted_speedup:.2f}×" if v.predicted_speedup is not None else "n/a"
    prior = " (uses priors)" if v.prediction_is_prior else ""
    print(f"Verdict: {v.verdict}")
    if v.measured_with:
        print(f"Measured with: {v.measured_with}")
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
    for caveat in v.caveats:
        print(f"  caveat: {caveat}")
    for alt in v.alternatives:
        print(f"  instead: {alt}")
    for w in v.warnings:
        print(f"  warning: {w}")
    if v.missing_facts:
        print(f"Missing facts: {', '.join(v.missing_facts)}")
    print("Trace:")
    for c in v.trace:
        expected = "" if c.op in UNARY_OPS else f" {c.expected!r}"
        print(f"  [{trace_word(c.outcome, c.leads_to):24}] {c.rule}/{c.branch}: {c.fact} {c.op}{expected} "
              f"(actual {c.actual!r})")


def trace_word(outcome: str, leads_to: str) -> str:
    """How a trace row reads: `reason → SKIP` for the conditions that decided, else holds/no/unknown."""
    return {"reason": f"reason → {leads_to}", "holds": "holds (branch not taken)", "clear": "no"}.get(
        outcome, "unknown")


def run(args: argparse.Namespace) -> int:
    """Load facts, decide, print; exit 0 whatever the verdict (2 for user errors via the CLI)."""
    if args.port is not None and not 1 <= args.port <= MAX_PORT:
        raise UserError(f"--port must be from 1 to {MAX_PORT}, not {args.port}")
    if args.host is not None and (not args.host or any(c.isspace() or not c.isprintable() for c in args.host)):
        raise UserError(f"--host must be an address without spaces or control characters, not {args.host!r}")
    facts = load_facts_file(args.facts) if args.facts is not None else _read_evidence(args.evidence)
    verdict = decide(facts, rules_dir=args.rules)
    fmt = args.format_flags
    deploy = _deploy(args, verdict) if fmt != "plain" or args.manifest is not None else None
    if args.json:
        data = verdict_to_json(verdict)
        if deploy is not None:
            data["deploy"] = {"format": fmt, "text": deploy}
        print(json.dumps(data, indent=2, ensure_ascii=False))
    elif deploy is not None:
        # stdout carries only the deployable text so it can be redirected into a file
        print(f"Verdict: {verdict.verdict}", file=sys.stderr)
        for line in verdict.because:
            print(f"  because: {line}", file=sys.stderr)
        sys.stdout.write(deploy)
    else:
        _print_text(verdict)
    return 0


def _deploy(args: argparse.Namespace, verdict: Verdict) -> str:
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
    return render_deploy(verdict.flags, args.format_flags, manifest_text=manifest, model_path=args.model_path,
                         host=args.host, port=args.port, verdict=verdict.verdict)
