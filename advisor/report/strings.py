"""Report strings by language, and the few formatting helpers every renderer shares."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from advisor.report import (
    strings_cli,
    strings_cluster,
    strings_en,
    strings_progress,
    strings_refusals,
    strings_trust,
    strings_verdict,
    strings_zh,
    warnings_zh,
)

if TYPE_CHECKING:
    from advisor.events import Progress

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")
TABLES: dict[str, dict[str, str]] = {"en": {**strings_en.STRINGS, **strings_cli.EN, **strings_progress.EN},
                                     "zh": {**strings_zh.STRINGS, **strings_cli.ZH, **strings_progress.ZH}}
TABLES["en"].update(strings_verdict.EN)  # the verdict's parts: blocking reasons, settings to try
TABLES["zh"].update(strings_verdict.ZH)
TABLES["en"].update(strings_trust.EN)  # messages about what the tool does not trust (bad answers, bad input)
TABLES["zh"].update(strings_trust.ZH)
TABLES["en"].update(strings_refusals.EN)  # what `check` refuses before it starts (docs/refusals.md)
TABLES["zh"].update(strings_refusals.ZH)
TABLES["en"].update(strings_cluster.EN)  # what a cluster check says (advisor/cluster/)
TABLES["zh"].update(strings_cluster.ZH)
_EN = TABLES["en"]


def text(lang: str, key: str, **values: Any) -> str:
    """The string `key` in `lang` (English when the language or key is missing), with `values` filled in.

    Unknown keys come back as the key itself: a chart series added by a newer step should still
    render with a readable (if untranslated) label rather than fail.
    """
    table = TABLES.get(lang, _EN)
    template = table.get(key) or _EN.get(key)
    if template is None and ":" in key:
        # a parametrised key, e.g. `series.tuner_predicted:ngram-mod`: the template names its part {arg}
        base, _, arg = key.partition(":")
        if (template := table.get(base) or _EN.get(base)) is not None:
            values = {**values, "arg": arg}
    if template is None:
        return key.split(".", 1)[-1]
    return template.format(**values) if values else template


def step_warning(lang: str, message: str) -> str:
    """A step's warning in `lang`: a message that is one of the English `warning.*` sentences is translated,
    one the steps write with numbers in it is read back into its Chinese sentence (advisor/report/warnings_zh);
    any other message (an engine's own error text) is shown as the step wrote it."""
    for key, english in strings_en.STRINGS.items():
        if key.startswith("warning.") and english == message:
            return text(lang, key)
    if lang == "zh" and (translated := warnings_zh.translate(message)) is not None:
        return translated
    return message


def progress_text(lang: str, event: Progress) -> str:
    """The unit a step is on, in `lang` ("" when the step named none); a category and an A/B decision
    among the values are words too, so they are said in `lang` as well."""
    if not event.detail:
        return ""
    values: dict[str, Any] = dict(event.values)
    if "category" in values:
        values["category"] = category_name(str(values["category"]), lang)
    if "decision" in values:
        values["decision"] = text(lang, f"progress.decision.{values['decision']}")
    return text(lang, f"progress.{event.detail}", **values)


def trace_outcome(row: Mapping[str, Any]) -> str:
    """A trace row's outcome (reason, holds, clear, unknown); rows from older verdicts carry only `passed`."""
    outcome = row.get("outcome")
    if outcome in ("reason", "holds", "clear", "unknown"):
        return str(outcome)
    passed = row.get("passed")
    return "holds" if passed is True else "clear" if passed is False else "unknown"


def trace_word(row: Mapping[str, Any], lang: str) -> str:
    """How a trace row reads in `lang`: the conditions that decided say where they led."""
    outcome = trace_outcome(row)
    leads_to = str(row.get("leads_to") or "")
    shown = text(lang, f"verdict.{leads_to}") if leads_to in ("ENABLE", "SKIP", "INCONCLUSIVE") else leads_to
    return text(lang, f"trace.{outcome}", leads_to=shown) if outcome == "reason" else text(lang, f"trace.{outcome}")


def category_name(category: str, lang: str) -> str:
    """A kind of task in words (a user's own category label is shown as written)."""
    key = f"category.{category}"
    return text(lang, key) if key in TABLES.get(lang, strings_en.STRINGS) or key in strings_en.STRINGS else category


def mix_line(task: Mapping[str, Any], lang: str) -> str:
    """One sentence on the mix the A/B followed (and which categories ran short)."""
    requested = task.get("mix_requested") or {}
    weights = {round(w, 6) for w in requested.values()}
    if not requested or len(weights) == 1:
        line = text(lang, "by_task.mix_equal")
    else:
        mix = ", ".join(f"{category_name(c, lang)} {w:.0%}" for c, w in sorted(requested.items(), key=lambda i: -i[1]))
        line = text(lang, "by_task.mix", mix=mix)
    short = task.get("mix_short") or []
    if short:
        line += " " + text(lang, "by_task.mix_short", cats=", ".join(category_name(c, lang) for c in short))
    return line


def fmt_speedup(value: float | None) -> str:
    """1.183 → '1.18×'."""
    return "—" if value is None else f"{value:.2f}×"


def fmt_value(value: Any, lang: str = "en") -> str:
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


def speedup_line(headline: dict[str, Any], lang: str) -> str:
    """The one line under the verdict: measured speedup ± CI, else the prediction, else none."""
    source = headline.get("source")
    speedup = headline.get("speedup")
    if source is None or speedup is None:
        return text(lang, "speedup.none")
    if source == "measured":
        low, high = headline.get("ci_low"), headline.get("ci_high")
        if low is None or high is None:
            line = text(lang, "speedup.measured_no_ci", speedup=fmt_speedup(speedup))
        else:
            line = text(lang, "speedup.measured", speedup=fmt_speedup(speedup), low=fmt_speedup(low),
                        high=fmt_speedup(high))
        n = headline.get("n_prompts")
        return line if n is None else f"{line} · {text(lang, 'speedup.n_prompts', n=int(n))}"
    return text(lang, f"speedup.{source}", speedup=fmt_speedup(speedup))


def verdict_lines(verdict: Mapping[str, Any], key: str, lang: str) -> list[str]:
    """The verdict's `because`, `warnings`, `caveats` or `alternatives` in `lang`: the decider writes each in
    English and in Chinese (`because_zh`, …); a verdict without the Chinese list (an older run) shows English."""
    english = [str(x) for x in verdict.get(key) or []]
    if lang != "en":
        local = verdict.get(f"{key}_{lang}")
        if isinstance(local, list | tuple) and len(local) == len(english):
            return [str(x) for x in local]
    return english


def typical_line(headline: dict[str, Any], lang: str) -> str | None:
    """A prior-only expectation, shown below the verdict as what is typical for the method (never as the
    headline: a prior says nothing about this machine)."""
    if headline.get("source") != "prior" or headline.get("speedup") is None:
        return None
    return text(lang, "typical.line", speedup=fmt_speedup(headline["speedup"]))


def concurrency_line(facts: Mapping[str, Any], lang: str) -> str | None:
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
