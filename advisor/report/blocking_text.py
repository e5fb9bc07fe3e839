"""The verdict's withholding reasons as a person reads them, from the verdict JSON (`blocking`, written by
advisor/decide/blocking.py): each reason with what to do, in the reader's language."""

from __future__ import annotations

from advisor.report.strings import text, verdict_lines
from advisor.report.tree import ReportVerdict

# How advisor/decide/verdict.py starts the `because` lines that join several withholding reasons in one
WITHHELD_PREFIXES = ("ENABLE withheld: ", "暂不建议开启：", "The A/B favours speculation, but", "A/B 倾向于推测解码")


def blocking_items(verdict: ReportVerdict, lang: str) -> list[tuple[str, str]]:
    """(reason, remedy) per withholding reason, in the tree's order; empty for a verdict that has none (or an
    older run's verdict, written before the list existed)."""
    return [(reason, remedy) for reason, remedy in (item.text(lang) for item in verdict.blocking) if reason]


def other_because(verdict: ReportVerdict, lang: str) -> list[str]:
    """The verdict's `because` lines that the blocking list does not already say."""
    items = blocking_items(verdict, lang)
    listed = {reason for reason, _ in items}
    # the invariants and the missing data are listed one by one there; `because` says them in one line
    joined = WITHHELD_PREFIXES if items else ()
    return [line for line in verdict_lines(verdict, "because", lang)
            if line not in listed and not line.startswith(joined)]


def assumptions_line(verdict: ReportVerdict, lang: str) -> str | None:
    """One line naming what the prediction assumed for facts not given (None when it assumed nothing); the
    verdict writes them in each language (`assumptions_zh`), an older verdict in English only."""
    items = verdict.lines("assumptions", lang)
    return text(lang, "assumptions.line", items=("；" if lang == "zh" else "; ").join(items)) if items else None


def blocking_lines(verdict: ReportVerdict, lang: str, indent: str = "  ") -> list[str]:
    """The list as terminal lines: a title, then `1. reason` and `→ what to do: remedy` under each."""
    items = blocking_items(verdict, lang)
    if not items:
        return []
    lines = [indent + text(lang, "blocking.title", n=len(items))]
    for i, (reason, remedy) in enumerate(items, start=1):
        lines.append(f"{indent}  {i}. {reason}")
        if remedy:
            lines.append(f"{indent}     {text(lang, 'blocking.remedy', remedy=remedy)}")
    return lines
