"""The report as one self-contained HTML file: inline CSS and SVG, the report JSON embedded, no scripts.

Everything shown comes from untrusted places (model names, server strings, prompts when included), so
every text goes through `html.escape`, the data block is script-safe JSON, and a strict CSP with no
`script-src` means that even a missed escape could not run code. Nothing is loaded from outside, so
opening the report tells no one that it was opened.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape

from advisor.report.blocking_text import (
    assumptions_line,
    blocking_items,
    other_because,
)
from advisor.report.html_style import CSS
from advisor.report.reconcile_text import reconciliation_sentences
from advisor.report.render_json import script_safe_json
from advisor.report.results import localized
from advisor.report.strings import (
    acceptance_cell,
    acceptance_note,
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
    trace_outcome,
    trace_word,
    typical_line,
    verdict_lines,
)
from advisor.report.svg import chart_svg
from advisor.report.tree import Flag, GuardRow, Report, StepSummary
from advisor.report.tuner_text import tuner_sentences, tuner_table
from advisor.text.settings import settings_phrase

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_HTML_LANG = {"en": "en", "zh": "zh-CN"}


def e(value: object) -> str:
    """Escape any value for HTML text or a quoted attribute."""
    return escape(str(value), quote=True)


def _list(items: Iterable[str]) -> str:
    return "<ul>" + "".join(f"<li>{e(i)}</li>" for i in items) + "</ul>"


def _kv_table(rows: Mapping[str, object], lang: str) -> str:
    body = "".join(f'<tr><td class="k">{e(k)}</td><td>{e(fmt_value(v, lang))}</td></tr>' for k, v in rows.items())
    return f"<table>{body}</table>" if body else ""


def _hero(report: Report, lang: str) -> str:
    word = report.verdict.verdict
    head = report.headline
    detail = speedup_line(head, lang)
    # a prior-only expectation is never the big number: it says what is typical, not what this machine did
    shown = head.speedup is not None and head.source != "prior"
    big = f'<span class="big">{e(fmt_speedup(head.speedup))}</span>' if shown else ""
    typical = typical_line(head, lang)
    below = f'<p class="muted">{e(typical)}</p>' if typical else ""
    return (f'<section class="hero v-{e(word)}"><span class="pill">{e(word)}</span>'
            f'<h1 class="verdict">{e(text(lang, "verdict." + word))}</h1>'
            f'<p class="blurb">{e(text(lang, "blurb." + word))}</p>'
            f'<p class="speedup">{big}<span class="detail">{e(detail)}</span></p>{below}</section>')


def _flags(flags: Sequence[Flag], lang: str) -> str:
    if not flags:
        return f'<p class="muted">{e(text(lang, "flags.none"))}</p>'
    out = []
    for f in flags:
        lines = []
        if f.engine or f.label:
            lines.append('<span class="c"># ' + e(" — ".join(p for p in (f.engine, f.label) if p)) + "</span>")
        if f.command:
            lines.append(e(f.command))
        if f.command or lines:
            out.append("<pre><code>" + "\n".join(lines) + "</code></pre>")
        if f.steps:
            out.append("<ol>" + "".join(f"<li>{e(step)}</li>" for step in f.steps) + "</ol>")
        if f.notes:
            out.append(f'<div class="muted">{_list(f.notes)}</div>')
    return "".join(out)


def _decision(report: Report, lang: str) -> str:
    v = report.verdict
    if not v.flags and v.try_flags:  # nothing confirmed: the measured settings, to try
        cards = [f'<div class="card wide"><h3>{e(text(lang, "try.label"))}</h3>{_flags(v.try_flags, lang)}'
                 f'<p class="muted">{e(text(lang, "try.why"))}</p></div>']
    else:
        cards = [f'<div class="card wide"><h3>{e(text(lang, "section.flags"))}</h3>{_flags(v.flags, lang)}</div>']
    if v.measured_with:
        measured = text(lang, "verdict.measured_with", settings=settings_phrase(v.measured_with, lang))
        cards.insert(0, f'<div class="card wide"><p>{e(measured)}</p></div>')
    if cutoff := concurrency_line(report.facts, lang):
        cards.insert(0, f'<div class="card wide"><p>{e(cutoff)}</p></div>')
    if shape := holds_for_line(report.facts, lang):
        cards.insert(0, f'<div class="card wide"><p>{e(shape)}</p></div>')
    if because := other_because(v, lang):
        cards.append(f'<div class="card wide"><h3>{e(text(lang, "section.because"))}</h3>{_list(because)}</div>')
    if blocking := blocking_items(v, lang):
        rows = "".join(f'<li>{e(reason)}<div class="muted">{e(text(lang, "blocking.remedy", remedy=remedy))}</div></li>'
                       for reason, remedy in blocking)
        cards.append(f'<div class="card warn wide"><h3>{e(text(lang, "section.blocking"))}</h3><ol>{rows}</ol></div>')
    if assumed := assumptions_line(v, lang):
        cards.append(f'<div class="card wide"><p class="muted">{e(assumed)}</p></div>')
    if warnings := verdict_lines(v, "warnings", lang):
        cards.append(f'<div class="card warn wide"><h3>{e(text(lang, "section.warnings"))}</h3>'
                     f'{_list(warnings)}</div>')
    if caveats := verdict_lines(v, "caveats", lang):
        cards.append(f'<div class="card wide"><h3>{e(text(lang, "section.caveats"))}</h3>{_list(caveats)}</div>')
    if v.missing_facts:
        items = "".join(f"<li><code>{e(m)}</code></li>" for m in v.missing_facts)
        cards.append(f'<div class="card"><h3>{e(text(lang, "section.missing"))}</h3>'
                     f'<p class="muted">{e(text(lang, "missing.hint"))}</p><ul>{items}</ul></div>')
    if instead := verdict_lines(v, "alternatives", lang):
        cards.append(f'<div class="card"><h3>{e(text(lang, "section.alternatives"))}</h3>'
                     f'{_list(instead)}</div>')
    return '<div class="grid">' + "".join(cards) + "</div>"


def _by_task(report: Report, lang: str) -> str:
    task = report.by_task
    rows = [r for r in task.rows if r.n_pairs or r.acceptance_rate is not None]
    if not rows:
        return ""
    keys = ("category", "pairs", "speedup", "ci", "label", "acceptance")
    head = "".join(f"<th>{e(text(lang, 'by_task.' + k))}</th>" for k in keys)
    body = []
    for r in rows:
        ci = f"{fmt_speedup(r.ci_low)} – {fmt_speedup(r.ci_high)}" if r.ci_low is not None else "—"
        rate = acceptance_cell(r, lang)
        state = {"gain": "pass", "no-gain": "fail"}.get(r.label, "unknown")
        cells = (row_name(r, lang), str(r.n_pairs), fmt_speedup(r.speedup), ci)
        body.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells)
                    + f'<td class="res {state}">{e(text(lang, "by_task." + r.label))}</td><td>{e(rate)}</td></tr>')
    return (f'<h2>{e(text(lang, "section.by_task"))}</h2><div class="card"><p>{e(mix_line(task, lang))}</p>'
            f'<table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
            f'<p class="muted">{e(acceptance_note(task, lang))} {e(text(lang, "by_task.hint"))}</p></div>')


def _results(report: Report, lang: str) -> str:
    header, cells, note = localized(report.results, lang)
    if not cells:
        return ""
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in cells)
    return (f'<h2>{e(text(lang, "section.results"))}</h2><div class="card">'
            f'<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
            f'<p class="muted">{e(note)}</p></div>')


def _tuner(report: Report, lang: str) -> str:
    section = report.tuner
    if not section:
        return ""
    header, rows = tuner_table(section, lang)
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
    charts = "".join(svg for c in section.charts if (svg := chart_svg(c, lambda key: text(lang, key))))
    return (f'<h2>{e(text(lang, "section.tuner"))}</h2><div class="card">'
            + "".join(f"<p>{e(line)}</p>" for line in tuner_sentences(section, lang))
            + f'<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{charts}'
            f'<p class="muted">{e(text(lang, "tuner.hint"))}</p></div>')


def _reconcile(report: Report, lang: str) -> str:
    lines = reconciliation_sentences(report.reconciliation, lang)
    if not lines:
        return ""
    return (f'<h2>{e(text(lang, "section.reconcile"))}</h2><div class="card">'
            + "".join(f"<p>{e(line)}</p>" for line in lines)
            + f'<p class="muted">{e(text(lang, "reconcile.hint"))}</p></div>')


def _trace(report: Report, lang: str) -> str:
    keys = ("rule", "branch", "fact", "op", "expected", "actual")
    rows = []
    for row in report.verdict.trace:
        outcome = trace_outcome(row)
        # a condition that decided is coloured by where it led: a withheld or negative verdict is not "green"
        state = {"reason": "fail" if row.leads_to in ("SKIP", "INCONCLUSIVE") else "pass",
                 "holds": "unknown", "clear": "muted"}.get(outcome, "unknown")
        values = (row.rule, row.branch, row.fact, row.op, row.expected, row.actual)
        cells = "".join(f"<td>{e(fmt_value(v, lang))}</td>" for v in values)
        rows.append(f'<tr>{cells}<td class="res {state}">{e(trace_word(row, lang))}</td></tr>')
    if not rows:
        body = f'<p class="muted">{e(text(lang, "trace.empty"))}</p>'
    else:
        head = "".join(f"<th>{e(text(lang, 'trace.' + k))}</th>" for k in (*keys, "passed"))
        body = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    return f'<h2>{e(text(lang, "section.trace"))}</h2><div class="card">{body}</div>'


def _guard_row(guard: GuardRow, lang: str) -> str:
    # A guard that could not be checked (no GPU, unknown power source) is shown as unknown, not failed.
    state = "pass" if guard.passed is True else "fail" if guard.passed is False else "unknown"
    return (f'<tr><td class="k">{e(guard_name(lang, guard.name))}</td><td class="res {state}">'
            f'{e(text(lang, "guard." + state))}</td><td>{e(guard.text(lang))}</td></tr>')


def _step(step: StepSummary, lang: str) -> str:
    status = step.status
    elapsed = "" if step.elapsed_s is None else text(lang, "step.elapsed", seconds=f"{step.elapsed_s:.1f}")
    parts = [f'<div class="step-head"><h3>{e(text(lang, "step." + step.id))}'
             f'<span class="badge {e(status)}">{e(text(lang, "status." + status))}</span></h3>'
             f'<span class="muted">{e(elapsed)}</span></div>']
    if (reason := step.reason_in(lang)):
        parts.append(f'<p class="muted">{e(text(lang, "step.reason"))}: {e(reason)}</p>')
    if step.warnings:
        shown = (w.text(lang) for w in step.warnings)
        parts.append('<div class="card warn">' + _list(shown) + "</div>")
    parts.append(_kv_table(step.values, lang))
    if step.guards:
        rows = "".join(_guard_row(g, lang) for g in step.guards)
        parts.append(f'<h3 style="margin-top:14px">{e(text(lang, "step.guards"))}</h3><table>{rows}</table>')
    charts = [svg for c in step.charts if (svg := chart_svg(c, lambda key: text(lang, key)))]
    if charts:
        parts.append('<div class="charts">' + "".join(f"<figure>{s}</figure>" for s in charts)
                     + "</div>")
    return '<div class="card wide">' + "".join(parts) + "</div>"


def _steps(report: Report, lang: str) -> str:
    inner = "".join(_step(s, lang) for s in report.steps) or (
        f'<div class="card wide muted">{e(text(lang, "step.none"))}</div>')
    return f'<h2>{e(text(lang, "section.steps"))}</h2><div class="grid">{inner}</div>'


def _environment(report: Report, lang: str) -> str:
    cards = "".join(f'<div class="card"><h3>{e(text(lang, "env." + section))}</h3>{_kv_table(rows, lang)}</div>'
                    for section, rows in report.environment.items())
    facts = report.facts
    facts_html = (f'<h2>{e(text(lang, "section.facts"))}</h2><div class="card"><details><summary>'
                  f'{e(text(lang, "section.facts"))} ({len(facts)})</summary><p class="muted">'
                  f'{e(text(lang, "facts.hint"))}</p>{_kv_table(facts, lang)}</details></div>') if facts else ""
    env_html = f'<h2>{e(text(lang, "section.environment"))}</h2><div class="grid">{cards}</div>' if cards else ""
    return env_html + facts_html


def _partial(report: Report, lang: str) -> str:
    status = report.run.status
    if status is None or status == "complete":
        return ""
    said = text(lang, "run.partial", status=status_word(lang, status))
    return f'<div class="card warn wide" style="margin-bottom:16px">{e(said)}</div>'


def render_html(report: Report, lang: str = "en") -> str:
    """The whole report as a standalone HTML document in `lang` ("en" or "zh")."""
    word = report.verdict.verdict
    meta = [f"<b>{e(text(lang, 'meta.app'))}</b> · {e(text(lang, 'title'))}"]
    meta_right = " · ".join(e(x) for x in (report.run_id, report.created_utc) if x)
    privacy = text(lang, "privacy.included" if report.includes_prompts else "privacy.excluded")
    return (
        f'<!doctype html>\n<html lang="{_HTML_LANG.get(lang, "en")}"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{e(word)} · {e(text(lang, 'title'))}</title><style>{CSS}</style></head>\n<body><main>"
        f'<header class="top"><div>{meta[0]}</div><div>{meta_right}</div></header>'
        f"{_hero(report, lang)}{_partial(report, lang)}{_decision(report, lang)}{_results(report, lang)}"
        f"{_by_task(report, lang)}{_tuner(report, lang)}{_reconcile(report, lang)}"
        f"{_steps(report, lang)}{_trace(report, lang)}{_environment(report, lang)}"
        f"<footer><p>{e(privacy)}</p><p>{e(text(lang, 'footer.generated', version=report.app_version or '?'))}"
        f" {e(text(lang, 'footer.embedded'))}</p></footer></main>\n"
        f'<script type="application/json" id="report-data">{script_safe_json(report)}</script>\n'
        "</body></html>\n"
    )
