"""The canonical report: one schema-versioned JSON object from which every format is rendered.

`build_report` is the only place that looks at evidence; the renderers are pure functions of its
output, so Markdown, HTML and JSON always say the same thing. Secrets are redacted and, unless the
user opts in, prompts and model outputs are left out (they may be private or hostile).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from advisor import __version__
from advisor.decide.verdict import Verdict
from advisor.errors import UserError
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

REPORT_SCHEMA_VERSION = 1


class ReportSchemaError(UserError):
    """A report file that this version cannot read (not JSON, not a report, or from a newer version)."""


def _json_safe(obj: Any) -> Any:
    # JSON has no NaN/inf; a non-finite measurement is shown as missing rather than breaking the file.
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, Mapping):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_json_safe(v) for v in obj]
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    return str(obj)


def build_report(evidence: Evidence | None, facts: Mapping[str, object], verdict: Verdict, *,
                 include_prompts: bool = False, run_id: str | None = None,
                 created_utc: str | None = None) -> dict[str, Any]:
    """The canonical report dict (JSON-ready) for one run.

    `evidence` is None for a report made from a facts file; `facts` is the flat fact dict; `verdict` the
    decision (a saved one read back with advisor/decide/verdict_json.py `verdict_from_json`).
    `run_id`/`created_utc` default to the evidence's own and to now.
    """
    clean_facts = redact(dict(facts))
    clean_verdict = report_verdict(verdict)  # redacted below, with the rest of the report
    run: dict[str, Any] = {"status": None, "started_utc": None, "evidence_schema_version": None,
                           "measured_with": None}
    if evidence is not None:
        run = {"status": evidence.status, "started_utc": evidence.created_utc,
               "evidence_schema_version": evidence.schema_version, "measured_with": evidence.app_version}
    report = redact({
        "report_schema_version": REPORT_SCHEMA_VERSION,
        "app_version": __version__,
        "created_utc": created_utc or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "run_id": run_id or (evidence.run_id if evidence is not None else None),
        "run": run,
        "includes_prompts": include_prompts,
        "headline": headline(verdict, clean_facts),
        "verdict": clean_verdict,
        "by_task": by_task(evidence),
        "results": results_table(evidence),
        "tuner": tuner_section(evidence),
        "reconciliation": reconciliation_section(evidence),
        "environment": environment_summary(evidence, clean_facts),
        "steps": step_summaries(evidence, include_prompts=include_prompts),
        "facts": dict(sorted(clean_facts.items())),
        **({"prompts": dict(evidence.prompts)} if include_prompts and evidence is not None and evidence.prompts
           else {}),
    })
    safe: dict[str, Any] = _json_safe(report)
    return safe


def validate_report(obj: Any) -> dict[str, Any]:
    """Check `obj` is a report this version can render; returns it, or raises `ReportSchemaError`."""
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
    if obj["verdict"].get("verdict") not in ("ENABLE", "SKIP", "INCONCLUSIVE"):
        raise ReportSchemaError(f"the report is damaged: its verdict is {str(obj['verdict'].get('verdict'))[:40]!r}, "
                                "not ENABLE, SKIP or INCONCLUSIVE")
    return obj


# What a renderer raises on a report.json whose inner shape was edited by hand (a key gone, a list where a
# number was, NaN where JSON has none): the renderers trust the shape `build_report` makes.
DAMAGED_SHAPE = (KeyError, TypeError, AttributeError, IndexError, ValueError)


def load_report(source: str | Path) -> dict[str, Any]:
    """Read and validate a report JSON file."""
    from advisor.evidence.jsonfile import read_json_file  # bounded, no pipes, lone surrogates replaced

    return validate_report(read_json_file(Path(source), what="a report"))
