"""The report as Markdown: the verdict first, then flags, reasons, trace, measurements, environment."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from advisor.report.blocking_text import (
    assumptions_line,
    blocking_items,
    other_because,
)
from advisor.report.reconcile_text import reconciliation_sentences
from advisor.report.results import localized
from advisor.report.strings import (
    acceptance_cell,
    acceptance_note,
    category_name,
    concurrency_line,
    fmt_speedup,
    fmt_value,
    guard_name,
    holds_for_line,
    mix_line,
    row_name,
    speedup_line,
    status_word,
    text,
    trace_word,
    typical_line,
    verdict_lines,
)
from advisor.report.tree import BarChart, Chart, Report, VerdictLines
from advisor.report.tuner_text import tuner_sentences, tuner_table
from advisor.termsafe import terminal_safe
from advisor.text.settings import settings_phrase

_BLOCKS = "▁▂▃▄▅▆▇█"
_VERDICT_MARK = {"ENABLE": "✅", "SKIP": "⛔", "INCONCLUSIVE": "❔"}


def md_text(value: object) -> str:
    """The one Markdown sanitiser for untrusted text: no raw HTML, no links or images, no emphasis, headings or
    table breaks, no control characters (shown as escapes), one line."""
    s = terminal_safe(str(value).replace("\\", "\\\\"))
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = re.sub(r"([\[\]|*_~`!#])", r"\\\1", s)
    return " ".join(s.split())


def md_code(value: object) -> str:
    """Inline code that survives backticks in the value."""
    s = " ".join(str(value).split())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    # GFM splits table cells on `|` even inside code spans; the backslash form renders as a plain `|`.
    return f"{fence}{pad}{s.replace('|', chr(92) + '|')}{pad}{fence}"


def _code_block(lines: Sequence[str], lang: str = "sh") -> list[str]:
    body = terminal_safe("\n".join(lines))  # engine and path text: no control characters in a copied command
    fence = "`" * max(3, max((len(r) for r in re.findall(r"`+", body)), default=0) + 1)
    return [f"{fence}{lang}", body, fence]


def sparkline(values: Sequence[float]) -> str:
    """Unicode block sparkline, e.g. ▂▄▆█."""
    if not values:
        return ""
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    return "".join(_BLOCKS[min(7, int((v - lo) / span * 7.999))] for v in values)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    if not rows:
        return []
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows)]


def _chart_lines(chart: Chart, lang: str) -> list[str]:
    title = md_text(text(lang, f"chart.{chart.id}"))
    if isinstance(chart, BarChart):
        rows = [[md_text(category_name(c, lang)), f"{v:.0%}",
                 f"{lo:.0%} – {hi:.0%}" if lo is not None and hi is not None else "—"]
                for c, v, lo, hi in zip(chart.categories, chart.values, chart.low, chart.high, strict=False)]
        header = ["", text(lang, "axis.acceptance_rate"), text(lang, "series.acc_ci")]
        return [f"*{title}*", "", *_table(header, rows), ""]
    out = [f"*{title}*", ""]
    for s in chart.series:
        ys = [p[1] for p in s.points]
        out.append(f"- {md_text(text(lang, 'series.' + s.key))}: `{sparkline(ys)}` "
                   f"({fmt_value(min(ys))} – {fmt_value(max(ys))}, n={len(ys)})")
    if chart.marker_x is not None:
        marker = chart.marker_key or "crossover"
        out.append(f"- {md_text(text(lang, 'series.' + marker))}: {fmt_value(chart.marker_x)}")
    return [*out, ""]


def _verdict_section(report: Report, lang: str) -> list[str]:
    v = report.verdict
    word = v.verdict
    out = [f"## {_VERDICT_MARK[word]} {word} — {text(lang, 'verdict.' + word)}", "",
           f"> {text(lang, 'blurb.' + word)}", ">", f"> **{md_text(speedup_line(report.headline, lang))}**",
           ""]
    if typical := typical_line(report.headline, lang):
        out += [f"*{md_text(typical)}*", ""]
    if v.measured_with:
        out += [md_text(text(lang, "verdict.measured_with", settings=settings_phrase(v.measured_with, lang))), ""]
    if cutoff := concurrency_line(report.facts, lang):
        out += [md_text(cutoff), ""]
    if shape := holds_for_line(report.facts, lang):
        out += [md_text(shape), ""]
    flags = v.flags
    tentative = not flags and bool(v.try_flags)  # nothing confirmed: the measured settings, to try
    out += [f"### {text(lang, 'try.label' if tentative else 'section.flags')}", ""]
    if tentative:
        flags = v.try_flags
        out += [md_text(text(lang, "try.why")), ""]
    for f in flags:
        lines = ["# " + " — ".join(p for p in (f.engine, f.label) if p)] if f.engine or f.label else []
        if f.command:
            lines.append(f.command)
        out += [*_code_block(lines), ""] if f.command else []
        out += [*(f"{i}. {md_text(step)}" for i, step in enumerate(f.steps, 1)), ""] if f.steps else []
        out += [*(f"- {md_text(note)}" for note in f.notes), ""] if f.notes else []
    if not flags:
        out += [text(lang, "flags.none"), ""]
    if assumed := assumptions_line(v, lang):
        out += [f"*{md_text(assumed)}*", ""]
    keys: tuple[VerdictLines | Literal["blocking"], ...] = ("because", "blocking", "warnings", "caveats",
                                                            "alternatives")
    for key in keys:
        if key == "blocking":
            if blocking := blocking_items(v, lang):
                out += [f"### {text(lang, 'section.blocking')}", ""]
                for i, (reason, remedy) in enumerate(blocking, 1):
                    out += [f"{i}. {md_text(reason)}", f"   {md_text(text(lang, 'blocking.remedy', remedy=remedy))}"]
                out += [""]
            continue
        items = other_because(v, lang) if key == "because" else verdict_lines(v, key, lang)
        if items:
            mark = "⚠ " if key == "warnings" else ""
            out += [f"### {text(lang, 'section.' + key)}", "", *(f"- {mark}{md_text(i)}" for i in items), ""]
    if v.missing_facts:
        out += [f"### {text(lang, 'section.missing')}", "", text(lang, "missing.hint"), "",
                *(f"- {md_code(m)}" for m in v.missing_facts), ""]
    return out


def _results_section(report: Report, lang: str) -> list[str]:
    header, cells, note = localized(report.results, lang)
    if not cells:
        return []
    return [f"### {text(lang, 'section.results')}", "", *_table(header, [[md_text(c) for c in r] for r in cells]),
            "", f"*{md_text(note)}*", ""]


def _by_task_section(report: Report, lang: str) -> list[str]:
    task = report.by_task
    rows = [r for r in task.rows if r.n_pairs or r.acceptance_rate is not None]
    if not rows:
        return []
    table = [[md_text(row_name(r, lang)), str(r.n_pairs), fmt_speedup(r.speedup),
              f"{fmt_speedup(r.ci_low)} – {fmt_speedup(r.ci_high)}" if r.ci_low is not None else "—",
              md_text(text(lang, f"by_task.{r.label}")),
              acceptance_cell(r, lang)] for r in rows]
    header = [text(lang, f"by_task.{k}") for k in ("category", "pairs", "speedup", "ci", "label", "acceptance")]
    return [f"### {text(lang, 'section.by_task')}", "", md_text(mix_line(task, lang)), "", *_table(header, table), "",
            f"*{md_text(acceptance_note(task, lang))} {text(lang, 'by_task.hint')}*", ""]


def _tuner_section(report: Report, lang: str) -> list[str]:
    section = report.tuner
    if not section:
        return []
    header, rows = tuner_table(section, lang)
    charts = [line for chart in section.charts for line in _chart_lines(chart, lang)]
    return [f"### {text(lang, 'section.tuner')}", "", *(md_text(s) for s in tuner_sentences(section, lang)), "",
            *_table(header, [[md_text(c) for c in r] for r in rows]), "", *charts,
            f"*{text(lang, 'tuner.hint')}*", ""]


def _reconcile_section(report: Report, lang: str) -> list[str]:
    lines = reconciliation_sentences(report.reconciliation, lang)
    if not lines:
        return []
    return [f"### {text(lang, 'section.reconcile')}", "", *(f"- {md_text(s)}" for s in lines), "",
            f"*{md_text(text(lang, 'reconcile.hint'))}*", ""]


def _trace_section(report: Report, lang: str) -> list[str]:
    keys = ("rule", "branch", "fact", "op", "expected", "actual", "passed")
    rows = []
    for row in report.verdict.trace:
        result = md_text(trace_word(row, lang))  # leads_to comes from the verdict file: untrusted text
        cells = [md_text(fmt_value(v, lang)) for v in (row.rule, row.branch)]
        cells += [md_code(fmt_value(v, lang)) for v in (row.fact, row.op, row.expected, row.actual)]
        rows.append([*cells, result])
    table = _table([text(lang, f"trace.{k}") for k in keys], rows) or [text(lang, "trace.empty")]
    return [f"### {text(lang, 'section.trace')}", "", *table, ""]


def _steps_section(report: Report, lang: str) -> list[str]:
    out = [f"## {text(lang, 'section.steps')}", ""]
    if not report.steps:
        return [*out, text(lang, "step.none"), ""]
    for step in report.steps:
        status = text(lang, f"status.{step.status}")
        elapsed = "" if step.elapsed_s is None else " · " + text(lang, "step.elapsed", seconds=f"{step.elapsed_s:.1f}")
        out += [f"### {md_text(text(lang, 'step.' + step.id))} — {md_text(status)}{elapsed}", ""]
        if (reason := step.reason_in(lang)):
            out += [f"{text(lang, 'step.reason')}: {md_text(reason)}", ""]
        warned = [f"- ⚠ {md_text(w.text(lang))}" for w in step.warnings]
        out += [*warned, ""] if warned else []
        out += _table(["", ""], [[md_code(k), md_text(fmt_value(v, lang))] for k, v in step.values.items()])
        out += [""] if step.values else []
        guards = [[md_text(guard_name(lang, g.name)), text(lang, _state_key(g.passed)),
                   md_text(g.text(lang))] for g in step.guards]
        out += [*_table([text(lang, "step.guards"), "", ""], guards), ""] if guards else []
        for chart in step.charts:
            out += _chart_lines(chart, lang)
    return out


def _environment_section(report: Report, lang: str) -> list[str]:
    out = [f"## {text(lang, 'section.environment')}", ""]
    for section, rows in report.environment.items():
        out += [f"### {md_text(text(lang, 'env.' + section))}", "",
                *_table(["", ""], [[md_code(k), md_text(fmt_value(v, lang))] for k, v in rows.items()]), ""]
    facts = [[md_code(k), md_text(fmt_value(v, lang))] for k, v in report.facts.items()]
    if facts:
        out += [f"## {text(lang, 'section.facts')}", "", text(lang, "facts.hint"), "",
                *_table(["", ""], facts), ""]
    return out


def _partial(report: Report, lang: str) -> list[str]:
    status = report.run.status
    if status is None or status == "complete":
        return []
    return [f"> ⚠ {md_text(text(lang, 'run.partial', status=status_word(lang, status)))}", ""]


def render_markdown(report: Report, lang: str = "en") -> str:
    """The whole report as Markdown in `lang` ("en" or "zh")."""
    run_bits = [f"{text(lang, 'meta.run')} {md_code(report.run_id)}" if report.run_id else "",
                f"{text(lang, 'meta.created')} {md_text(report.created_utc)}"]
    lines = [f"# {text(lang, 'title')}", "", text(lang, "subtitle"), "",
             " · ".join(b for b in run_bits if b), "",
             *_partial(report, lang), *_verdict_section(report, lang), *_results_section(report, lang),
             *_by_task_section(report, lang), *_tuner_section(report, lang), *_reconcile_section(report, lang),
             *_trace_section(report, lang),
             *_steps_section(report, lang), *_environment_section(report, lang), "---", "",
             text(lang, "privacy.included" if report.includes_prompts else "privacy.excluded"),
             text(lang, "footer.generated", version=report.app_version or "?")]
    return "\n".join(lines).rstrip() + "\n"


def _state_key(passed: object) -> str:
    """pass / fail / unknown: a guard that could not be checked (no GPU) is not a failure."""
    return "guard.pass" if passed is True else "guard.fail" if passed is False else "guard.unknown"
