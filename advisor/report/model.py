"""The canonical report: one schema-versioned typed tree (advisor/report/tree.py) from which every format is
rendered.

`build_report` is the only place that looks at evidence; the renderers are pure functions of its
output, so Markdown, HTML and JSON always say the same thing. Secrets are redacted and, unless the
user opts in, prompts and model outputs are left out (they may be private or hostile).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from advisor import __version__
from advisor.decide.verdict import Verdict
from advisor.errors import UserError
from advisor.evidence.codec import EvidenceError, decode, encode
from advisor.evidence.schema import Evidence
from advisor.redact import redact
from advisor.report.reconcile_text import reconciliation_section
from advisor.report.results import results_table
from advisor.report.sections import (
    by_task,
    environment_summary,
    headline,
    report_verdict,
    step_summaries,
    tuner_section,
)
from advisor.report.tree import Report, RunInfo

# 2: every section typed, every key present (a headline's `level` and `claim`, a by-task row's `group`, `prompts`
# null when left out); schema 1 files read as they are, the missing keys taking their defaults
# 3: a headline's `source` may be "chained" (the engine's defaults recommended instead of the tuner's choice), which
# a reader of schema 2 would refuse as damaged; schema 2 files read as they are
REPORT_SCHEMA_VERSION = 3


class ReportSchemaError(UserError):
    """A report file that this version cannot read (not JSON, not a report, or from a newer version)."""


def build_report(evidence: Evidence | None, facts: Mapping[str, object], verdict: Verdict, *,
                 include_prompts: bool = False, run_id: str | None = None,
                 created_utc: str | None = None) -> Report:
    """The canonical report of one run.

    `evidence` is None for a report made from a facts file; `facts` is the flat fact dict; `verdict` the
    decision (a saved one read back with advisor/decide/verdict_json.py `verdict_from_json`).
    `run_id`/`created_utc` default to the evidence's own and to now.
    """
    clean_facts = redact(dict(facts))
    run = RunInfo()
    if evidence is not None:
        run = RunInfo(status=evidence.status, started_utc=evidence.created_utc,
                      evidence_schema_version=evidence.schema_version, measured_with=evidence.app_version)
    prompts = dict(evidence.prompts) if include_prompts and evidence is not None and evidence.prompts else None
    report = Report(
        report_schema_version=REPORT_SCHEMA_VERSION, app_version=__version__,
        created_utc=created_utc or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        run_id=run_id or (evidence.run_id if evidence is not None else None), run=run,
        includes_prompts=include_prompts, headline=headline(verdict, clean_facts), verdict=report_verdict(verdict),
        by_task=by_task(evidence), results=results_table(evidence), tuner=tuner_section(evidence),
        reconciliation=reconciliation_section(evidence), environment=environment_summary(evidence, clean_facts),
        steps=step_summaries(evidence, include_prompts=include_prompts), facts=dict(sorted(clean_facts.items())),
        prompts=prompts)
    # Redaction works on JSON, so the tree goes through it once and is read back: every text in it, typed or
    # not, is redacted, and non-finite numbers are null as the file will have them.
    return decode(Report, redact(encode(report)), "report")


def validate_report(obj: object) -> Report:
    """`obj` (parsed JSON) as a report this version can render, or `ReportSchemaError`."""
    if not isinstance(obj, dict) or "report_schema_version" not in obj:
        raise ReportSchemaError("this file is not a spec-advisor report (no report_schema_version)",
                                hint="pass a report.json written by `spec-advisor report --format json`")
    version = obj["report_schema_version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise ReportSchemaError(f"the report has an invalid report_schema_version: {str(version)[:40]!r}")
    if version < 1:
        raise ReportSchemaError(f"the report has report schema {version}, older than any spec-advisor release "
                                "wrote (1 is the first); it is not supported",
                                hint="write it again with `spec-advisor report RUN --format json`")
    if version > REPORT_SCHEMA_VERSION:
        raise ReportSchemaError(
            f"this report was written by a newer spec-advisor (report schema {version}, app "
            f"{obj.get('app_version', '?')}); this version ({__version__}) reads schema "
            f"{REPORT_SCHEMA_VERSION} and older",
            hint="update spec-advisor to open it",
        )
    for key, kind in (("verdict", dict), ("steps", list), ("facts", dict), ("environment", dict),
                      ("headline", dict)):
        if not isinstance(obj.get(key), kind):
            raise ReportSchemaError(f"the report is damaged: {key!r} should be a {kind.__name__}")
    word = obj["verdict"].get("verdict")
    if word not in ("ENABLE", "SKIP", "INCONCLUSIVE"):
        raise ReportSchemaError(f"the report is damaged: its verdict is {str(word)[:40]!r}, "
                                "not ENABLE, SKIP or INCONCLUSIVE")
    try:
        return decode(Report, obj, "report")
    except EvidenceError as exc:
        raise ReportSchemaError(f"the report is damaged: {exc}", hint=exc.hint) from None


def report_json(report: Report) -> dict[str, object]:
    """The report as the JSON object its file holds (key order as the tree's fields)."""
    data: dict[str, object] = encode(report)
    return data


# What a renderer raises on a report.json whose inner shape was edited by hand (a key gone, a list where a
# number was, NaN where JSON has none): the renderers trust the shape `build_report` makes.
DAMAGED_SHAPE = (KeyError, TypeError, AttributeError, IndexError, ValueError)


def load_report(source: str | Path) -> Report:
    """Read and validate a report JSON file."""
    from advisor.evidence.jsonfile import read_json_file  # bounded, no pipes, lone surrogates replaced

    return validate_report(read_json_file(Path(source), what="a report"))
