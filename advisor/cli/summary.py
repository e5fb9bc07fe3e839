"""The end-of-check summary a person reads in the terminal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

from advisor.ab.bands import measured_span
from advisor.evidence.schema import Evidence
from advisor.report.arms_text import arms_sentence
from advisor.report.blocking_text import assumptions_line, blocking_lines, other_because
from advisor.report.reconcile_text import reconciliation_section, reconciliation_sentences
from advisor.report.results import localized, results_table
from advisor.report.sections import by_task, headline, report_verdict, tuner_section
from advisor.report.strings import (
    holds_for_line,
    mix_line,
    row_name,
    session_message,
    speedup_line,
    status_word,
    step_warning,
    text,
    typical_line,
    verdict_lines,
)
from advisor.report.tuner_text import tuner_sentences, tuner_table
from advisor.run.done import SessionDone
from advisor.text.settings import settings_phrase


def _fmt(value: object, spec: str = ".2f", suffix: str = "") -> str:
    return f"{value:{spec}}{suffix}" if isinstance(value, int | float) else "—"


def _by_task(evidence: Evidence, out: TextIO, lang: str) -> None:
    """Per-category speedups beside the pooled figure (simultaneous intervals; the verdict pools them all)."""
    task = by_task(evidence)
    rows = [r for r in task.rows if r.n_pairs]
    if not rows:
        return
    out.write(f"  {mix_line(task, lang)}\n")
    width = max(_width(row_name(r, lang)) for r in rows)
    for r in rows:
        ci = f"[{_fmt(r.ci_low, '.2f')}, {_fmt(r.ci_high, '.2f')}]" if r.ci_low is not None else ""
        name = _pad(row_name(r, lang), width)
        out.write(f"    {name}  {r.n_pairs:>3} {text(lang, 'cli.pairs')}  "
                  f"{_fmt(r.speedup, '.2f', '×'):>6} {ci:<14} {text(lang, 'by_task.' + r.label)}\n")


def _results(evidence: Evidence, lang: str, out: TextIO) -> None:
    """What each arm measured (tok/s, TTFT, ms/token, acceptance), pooled and per kind of task."""
    header, cells, note = localized(results_table(evidence), lang)
    if not cells:
        return
    out.write(f"\n  {text(lang, 'cli.results')}\n")
    rows = [header, *cells]
    widths = [max(_width(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        out.write("    " + "  ".join(_pad(c, w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
    out.write(f"    {note}\n")


def _width(cell: str) -> int:
    # a CJK character takes two terminal columns
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in cell)


def _pad(cell: str, width: int) -> str:
    return cell + " " * (width - _width(cell))


def print_summary(evidence: Evidence, done: SessionDone, out: TextIO, lang: str = "en") -> None:
    """Verdict, speedup, flags, the reasons, per-step status, what each arm measured and the run folder."""
    out.write("\n")
    names = {sid: text(lang, f"step.{sid}") for sid in evidence.steps}  # the step's name, as the screen says it
    width = max((_width(n) for n in names.values()), default=0)
    for sid, step in evidence.steps.items():
        reason = f" ({step_warning(lang, step.reason)})" if step.reason else ""
        out.write(f"  {_pad(names[sid], width)}  {text(lang, 'status.' + step.status)}{reason}\n")
    if not evidence.steps:
        if done.status != "failed":  # a failure's reason is an error: the CLI prints it on stderr
            out.write(text(lang, "cli.check_status", status=status_word(lang, done.status),
                           message=session_message(lang, done.message) or text(lang, "cli.nothing_measured"))
                      + "\n")
        return
    base, acc, ab = evidence.baseline, evidence.acceptance, evidence.ab
    if base is not None:
        neck = text(lang, f"bottleneck.{base.bottleneck}") if base.bottleneck else "—"
        out.write("\n  " + text(lang, "cli.baseline", tok_s=_fmt(base.decode_tok_s, ".1f", " tok/s"),
                                 mbu=_fmt(base.mbu, ".0%"), bottleneck=neck) + "\n")
    if acc is not None:
        # which step and settings the figure comes from: the tuner and the A/B's ON arm measure their own
        method, k = acc.method or evidence.config.spec_type, acc.draft_max or evidence.config.draft_max
        settings = ", ".join(p for p in (method, f"k = {k}" if k else "") if p) or "—"
        out.write("  " + text(lang, "cli.acceptance", rate=_fmt(acc.rate, ".0%"), length=_fmt(acc.mean_length),
                              inflation=_fmt(acc.repeat_inflation, ".2f", "×"), settings=settings) + "\n")
    if ab is not None:
        fresh = text(lang, "cli.ab_fresh") if ab.pool is not None and ab.pool.fresh else ""
        out.write("  " + text(lang, "cli.ab", speedup=_fmt(ab.speedup, ".3f", "×"), low=_fmt(ab.ci_low, ".3f"),
                              high=_fmt(ab.ci_high, ".3f"), n=ab.n_prompts) + fresh + "\n")
        _by_task(evidence, out, lang)
    _results(evidence, lang, out)
    if (tuner := tuner_section(evidence)) is not None:
        for line in tuner_sentences(tuner, lang):
            out.write(f"  {text(lang, 'cli.tuner')}: {line}\n")
        _, rows = tuner_table(tuner, lang)
        for row in rows:
            out.write(f"    {row[0]:<14} k = {row[1]:<3} {row[2]}\n")
    for line in reconciliation_sentences(reconciliation_section(evidence), lang):
        out.write(f"  {text(lang, 'cli.perf_model')}: {line}\n")
    if evidence.arms is not None:
        out.write("  " + text(lang, "cli.arms", how=arms_sentence(evidence.arms, lang)) + "\n")
    if evidence.restarts:
        phases = ", ".join(f"{r.arm}: {r.before} ({r.seconds:.1f} s)" for r in evidence.restarts)
        out.write("  " + text(lang, "cli.restarted", phases=phases) + "\n")
    measured: dict[str, object] = {} if ab is None else {
        "ab.speedup": ab.speedup, "ab.ci_low": ab.ci_low, "ab.ci_high": ab.ci_high, "ab.n_prompts": ab.n_prompts}
    if ab is not None:  # the shape of the work the A/B measured (advisor/ab/bands.py)
        for name, value in (("output", lambda p: p.output_tokens), ("depth", lambda p: p.depth_tokens)):
            if (span := measured_span(ab.pairs, value)) is not None:
                measured[f"ab.{name}_tokens_low"], measured[f"ab.{name}_tokens_high"] = span.low, span.high
    _verdict(done, measured, lang, out)


def _verdict(done: SessionDone, measured: Mapping[str, object], lang: str, out: TextIO) -> None:
    word = done.verdict.verdict if done.verdict is not None else "INCONCLUSIVE"
    out.write("\n" + text(lang, "cli.verdict", word=word, words=text(lang, f"verdict.{word}")) + "\n")
    v = done.verdict
    if v is not None and v.measured_with:
        out.write("  " + text(lang, "cli.measured_with", settings=settings_phrase(v.measured_with, lang)) + "\n")
    # the one headline the window and the report show: the measured A/B, else the prediction, named as which
    head = headline(v, measured)
    if head.source is not None:
        out.write("  " + speedup_line(head, lang) + "\n")
    if (typical := typical_line(head, lang)) is not None:
        out.write(f"  {typical}\n")  # a prior is what is typical for the method, not this machine's figure
    if head.source in ("measured", "chained") and (shape := holds_for_line(measured, lang)) is not None:
        out.write(f"  {shape}\n")  # the reply lengths and depths the A/B measured: what the verdict holds for
    if v is None:
        _ending(done, lang, out)
        return
    shown = report_verdict(v)  # the report's own section, so the terminal words it as the report does
    for line in other_because(shown, lang):
        out.write(f"  - {line}\n")
    for line in blocking_lines(shown, lang):
        out.write(line + "\n")
    for line in verdict_lines(shown, "warnings", lang):
        out.write(f"  ! {line}\n")
    if assumed := assumptions_line(shown, lang):
        out.write(f"  ~ {assumed}\n")
    for line in verdict_lines(shown, "caveats", lang):
        out.write(f"  ? {line}\n")
    if v.flags is not None and v.flags.command:
        out.write("  " + text(lang, "cli.flags", command=v.flags.command) + "\n")
    if v.try_flags is not None and v.try_flags.command:
        out.write("  " + text(lang, "try.flags", engine=v.try_flags.engine, command=v.try_flags.command) + "\n")
    _ending(done, lang, out)


def _ending(done: SessionDone, lang: str, out: TextIO) -> None:
    if done.message:
        out.write(f"\n{session_message(lang, done.message)}\n")
    if done.run_dir:
        out.write("\n" + text(lang, "cli.run_folder", path=done.run_dir) + "\n")
