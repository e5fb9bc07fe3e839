"""The report's verdict section, made from the typed `Verdict`: what every renderer, the window and the
terminal read. Light on imports: `decide --facts` uses it."""

from __future__ import annotations

from advisor.decide.evaluate import Check
from advisor.decide.verdict import TextKey, Verdict
from advisor.numbers import finite
from advisor.recommend.types import Recommendation
from advisor.report.tree import Flag, ReportVerdict, TraceRow


def _flag(rec: Recommendation | None) -> tuple[Flag, ...]:
    """A recommendation as the report's flag blocks (none when there is nothing to run or do)."""
    if rec is None or not (rec.command or rec.steps or rec.notes):
        return ()
    return (Flag(engine=rec.engine, command=rec.command, steps=rec.steps, notes=rec.notes),)


def _row(c: Check) -> TraceRow:
    return TraceRow(rule=c.rule, branch=c.branch, fact=c.fact, op=c.op, expected=c.expected, actual=c.actual,
                    passed=c.passed, outcome=c.outcome, leads_to=c.leads_to)


def _zh(v: Verdict, key: TextKey) -> tuple[str, ...]:
    """The Chinese list of `key` as the verdict holds it (empty when none was made)."""
    return v.translations.get("zh", {}).get(key, ())


def report_verdict(v: Verdict) -> ReportVerdict:
    """The report's verdict section of `v`."""
    return ReportVerdict(
        verdict=v.verdict, predicted_speedup=finite(v.predicted_speedup), prediction_is_prior=v.prediction_is_prior,
        because=v.because, flags=_flag(v.flags), trace=tuple(_row(c) for c in v.trace),
        missing_facts=v.missing_facts, alternatives=v.alternatives, warnings=v.warnings, caveats=v.caveats,
        because_zh=_zh(v, "because"), warnings_zh=_zh(v, "warnings"),
        caveats_zh=_zh(v, "caveats"), alternatives_zh=_zh(v, "alternatives"),
        measured_with=v.measured_with or None, blocking=v.blocking,
        try_flags=_flag(v.try_flags), assumptions=v.assumptions, assumptions_zh=_zh(v, "assumptions"))
