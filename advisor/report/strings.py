"""The formatting helpers every renderer shares, over the string catalogue (advisor/text)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from advisor.report.tree import ByTask, Headline, ReportVerdict, TaskRow, TraceRow, VerdictLines
from advisor.text import LANGS, TABLES, Lang, percent, strings_en, text
from advisor.text.message import Message, render

if TYPE_CHECKING:
    from advisor.events import Progress

__all__ = ["LANGS", "TABLES", "Lang", "text"]  # the catalogue's names, for the renderers that format with them


def status_word(lang: str, status: str) -> str:
    """A run's or a step's status in words (`complete` is said as the steps' `done`); unknown ones as written."""
    key = "status.done" if status == "complete" else f"status.{status}"
    return text(lang, key) if key in TABLES["en"] else status


def guard_name(lang: str, name: str) -> str:
    """A guard's name for a reader (`gpu0-throttle` → GPU 0 …); English keeps the name the evidence uses."""
    if lang == "en":
        return name
    card, base = "", name
    if name.startswith("gpu") and name[3:4].isdigit():
        card, base = name[3:].split("-", 1)[0], "gpu-" + name.split("-", 1)[1] if "-" in name else "gpu"
    key = f"guardname.{base}"
    return text(lang, key, card=card) if key in TABLES.get(lang, TABLES["en"]) else name


def session_message(lang: str, message: str) -> str:
    """The session's own end messages in `lang` (others, e.g. an engine's error, as written)."""
    key = {"interrupted": "session.interrupted"}.get(message)
    return text(lang, key) if key else message


def step_warning(lang: str, message: Message | str) -> str:
    """A step's warning, guard detail or reason in `lang`: a message is rendered from its template (one with no
    key, e.g. an engine's own error text or an older run's sentence, as written); plain text as written."""
    return render(message, lang)


def progress_text(lang: str, event: Progress) -> str:
    """The unit a step is on, in `lang` ("" when the step named none); a category and an A/B decision
    among the values are words too, so they are said in `lang` as well."""
    if not event.detail:
        return ""
    values: dict[str, object] = dict(event.values)
    if "category" in values:
        values["category"] = category_name(str(values["category"]), lang)
    if "decision" in values:
        values["decision"] = text(lang, f"progress.decision.{values['decision']}")
    return text(lang, f"progress.{event.detail}", **values)


def trace_outcome(row: TraceRow) -> str:
    """A trace row's outcome (reason, holds, clear, unknown); rows from older verdicts carry only `passed`."""
    if row.outcome in ("reason", "holds", "clear", "unknown"):
        return row.outcome
    return "holds" if row.passed is True else "clear" if row.passed is False else "unknown"


def trace_word(row: TraceRow, lang: str) -> str:
    """How a trace row reads in `lang`: the conditions that decided say where they led."""
    outcome = trace_outcome(row)
    leads_to = row.leads_to or ""
    shown = text(lang, f"verdict.{leads_to}") if leads_to in ("ENABLE", "SKIP", "INCONCLUSIVE") else leads_to
    return text(lang, f"trace.{outcome}", leads_to=shown) if outcome == "reason" else text(lang, f"trace.{outcome}")


def category_name(category: str, lang: str) -> str:
    """A kind of task in words (a user's own category label is shown as written)."""
    key = f"category.{category}"
    return text(lang, key) if key in TABLES.get(lang, strings_en.STRINGS) or key in strings_en.STRINGS else category


def row_name(row: TaskRow, lang: str) -> str:
    """The first cell of a by-task row: a kind of task, or an output-length or depth band (issue 24 item 3)."""
    group = row.group or "task"
    if group == "task":
        return category_name(row.category, lang)
    return text(lang, f"by_band.{group}", band=row.category)


def mix_line(task: ByTask, lang: str) -> str:
    """One sentence on the mix the A/B followed (and which categories ran short)."""
    requested = task.mix_requested
    weights = {round(w, 6) for w in requested.values()}
    if not requested or len(weights) == 1:
        line = text(lang, "by_task.mix_equal")
    else:
        mix = ", ".join(f"{category_name(c, lang)} {w:.0%}" for c, w in sorted(requested.items(), key=lambda i: -i[1]))
        line = text(lang, "by_task.mix", mix=mix)
    short = task.mix_short
    if short:
        line += " " + text(lang, "by_task.mix_short", cats=", ".join(category_name(c, lang) for c in short))
    return line


def acceptance_cell(row: TaskRow, lang: str) -> str:
    """A by-task row's acceptance: a percentage, "no drafts" where its requests drafted nothing, "—" where it
    was not measured; blank for a band (acceptance is counted per kind of task)."""
    if (row.group or "task") != "task":
        return ""
    if row.acceptance_rate is not None:
        return f"{row.acceptance_rate:.0%}"
    return text(lang, "by_task.no_drafts") if row.drafted == 0 else "—"


def acceptance_note(task: ByTask, lang: str) -> str:
    """Which requests the acceptance column counts (the A/B's or the acceptance step's), or "" for none."""
    return text(lang, f"by_task.acceptance_from.{task.acceptance_source}") if task.acceptance_source else ""


def fmt_speedup(value: float | None) -> str:
    """1.183 → '1.18×'."""
    return "—" if value is None else f"{value:.2f}×"


def fmt_value(value: object, lang: str = "en") -> str:
    """A fact or evidence value as short text (floats to 4 significant digits, booleans as yes/no)."""
    if value is None:
        return text(lang, "value.missing")
    if isinstance(value, bool):
        return text(lang, "value.yes" if value else "value.no")
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(fmt_value(v, lang) for v in value)
    return str(value)


def speedup_line(headline: Headline, lang: str) -> str:
    """The one line under the verdict: measured speedup ± CI (the defaults' chained from two measured ratios
    when they are recommended instead of the choice), else the prediction, else none."""
    source, speedup = headline.source, headline.speedup
    if source is None or speedup is None:
        return text(lang, "speedup.none")
    if source == "measured":
        low, high = headline.ci_low, headline.ci_high
        if low is None or high is None:
            line = text(lang, "speedup.measured_no_ci", speedup=fmt_speedup(speedup))
        else:
            level = headline.level  # the run's own A/B level; the policy's for older runs
            extra = {"ci": percent(level)} if level is not None else {}
            line = text(lang, "speedup.measured", speedup=fmt_speedup(speedup), low=fmt_speedup(low), **extra,
                        high=fmt_speedup(high))
        n = headline.n_prompts
        return line if n is None else f"{line} · {text(lang, 'speedup.n_prompts', n=int(n))}"
    if source == "chained":  # the defaults' speedup from two measured ratios, not itself measured
        low, high = headline.ci_low, headline.ci_high
        if low is None or high is None:
            return text(lang, "speedup.chained_no_ci", speedup=fmt_speedup(speedup))
        extra = {"ci": percent(headline.level)} if headline.level is not None else {}
        return text(lang, "speedup.chained", speedup=fmt_speedup(speedup), low=fmt_speedup(low),
                    high=fmt_speedup(high), **extra)
    if source == "predicted" and (span := _interval(headline, lang)) is not None:
        return text(lang, "speedup.predicted_interval", speedup=fmt_speedup(speedup), span=span,
                    claim=text(lang, f"claim.{headline.claim or 'cannot-tell'}"))
    return text(lang, f"speedup.{source}", speedup=fmt_speedup(speedup))


def _interval(headline: Headline, lang: str) -> str | None:
    """"80% interval 1.1× – 1.9×" for a prediction's headline, None when it carries no interval."""
    low, high, level = headline.ci_low, headline.ci_high, headline.level
    if low is None or high is None or level is None:
        return None
    return text(lang, "speedup.interval", level=f"{level:.0%}", low=fmt_speedup(low), high=fmt_speedup(high))


def verdict_lines(verdict: ReportVerdict, key: VerdictLines, lang: str) -> list[str]:
    """The verdict's `because`, `warnings`, `caveats` or `alternatives` in `lang`: the decider writes each in
    English and in Chinese (`because_zh`, …); a verdict without the Chinese list (an older run) shows English."""
    return verdict.lines(key, lang)


def typical_line(headline: Headline, lang: str) -> str | None:
    """A prior-only expectation, shown below the verdict as what is typical for the method (never as the
    headline: a prior says nothing about this machine)."""
    if headline.source != "prior" or headline.speedup is None:
        return None
    span = _interval(headline, lang)
    if span is None:
        return text(lang, "typical.line", speedup=fmt_speedup(headline.speedup))
    return text(lang, "typical.line_interval", speedup=fmt_speedup(headline.speedup), span=span)


def holds_for_line(facts: Mapping[str, object], lang: str) -> str | None:
    """Which shape of work the verdict holds for: the reply lengths and context depths the A/B measured (its
    `ab.output_tokens_*` and `ab.depth_tokens_*` facts; None without them)."""
    keys = ("ab.output_tokens_low", "ab.output_tokens_high", "ab.depth_tokens_low", "ab.depth_tokens_high")
    values = [v for k in keys if isinstance(v := facts.get(k), int | float) and not isinstance(v, bool)]
    if len(values) != len(keys):
        return None
    out_low, out_high, depth_low, depth_high = (int(v) for v in values)
    return text(lang, "by_band.holds_for", out_low=out_low, out_high=out_high, depth_low=depth_low,
                depth_high=depth_high)


def concurrency_line(facts: Mapping[str, object], lang: str) -> str | None:
    """Where speculation stops paying, from the batch facts (paired CIs; an old sweep's point crossover)."""
    stops, pays = facts.get("batch.stops_paying_at"), facts.get("batch.pays_up_to")
    tested, rounds = facts.get("batch.max_concurrency_tested"), facts.get("batch.rounds")
    if rounds is None:  # a sweep of one run per arm: only its point crossover
        crossover = facts.get("batch.crossover_concurrency")
        return None if crossover is None else text(lang, "concurrency.crossover", stops=crossover)
    if stops is not None:
        key = "concurrency.stops_pays" if pays is not None else "concurrency.stops"
        return text(lang, key, stops=stops, pays=pays, rounds=rounds)
    if pays is not None and pays == tested:
        return text(lang, "concurrency.pays", pays=pays, rounds=rounds)
    if pays is not None:
        return text(lang, "concurrency.partial", pays=pays, max=tested)
    return text(lang, "concurrency.unclear", max=tested)
