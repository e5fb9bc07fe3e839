"""Export a run through the report module: one canonical report, rendered to HTML, Markdown or JSON and
written atomically (a crash mid-write never leaves half a file)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from advisor.atomic import write_atomic
from advisor.decide.verdict import Verdict
from advisor.evidence.schema import Evidence
from advisor.facts.from_evidence import facts_from_evidence
from advisor.owned import refuse_owned
from advisor.report.model import build_report
from advisor.report.render_html import render_html
from advisor.report.render_json import render_json
from advisor.report.render_markdown import render_markdown
from advisor.report.tree import Report

Format = Literal["html", "md", "json"]
SUFFIX: dict[Format, str] = {"html": ".html", "md": ".md", "json": ".json"}


def facts_for(evidence: Evidence, saved: Mapping[str, object]) -> dict[str, object]:
    """The facts the verdict was made from: its saved copy, else re-derived from the evidence."""
    return dict(saved) if saved else dict(facts_from_evidence(evidence))


def make_report(evidence: Evidence, verdict: Verdict, facts: Mapping[str, object],
                run_id: str | None = None) -> Report:
    """The canonical report that the verdict view and every export share; `facts` are the verdict's saved
    ones (empty: re-derived from the evidence)."""
    return build_report(evidence, facts_for(evidence, facts), verdict, run_id=run_id)


def render(report: Report, fmt: Format, lang: str) -> str:
    """The report as text in `fmt` (JSON is language-neutral)."""
    if fmt == "html":
        return render_html(report, lang)
    if fmt == "md":
        return render_markdown(report, lang)
    return render_json(report)


def export(report: Report, fmt: Format, lang: str, path: Path) -> Path:
    """Write the report to `path` atomically; OSError propagates for the caller to show, and so does the
    UserError of a path spec-advisor keeps (a run's evidence, the history: advisor/owned.py)."""
    refuse_owned(path, lang=lang)
    return write_atomic(path, render(report, fmt, lang))
