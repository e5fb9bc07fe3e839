"""Compare two stored runs and say, in words, what got worse, what got better and what changed.

Thresholds (why these numbers):
- acceptance rate: 0.05 absolute — per-category CIs from ~10 prompts are about ±0.03–0.05 wide, so a
  smaller move is within the noise of the measurement itself;
- A/B speedup: a regression only when the new point estimate falls *outside the old run's CI*, i.e. the
  old run's own uncertainty already excludes it;
- decode tok/s: 5% — run-to-run noise of a warmed-up home GPU is ~1–3% (reliability.md §3), so 5% is a
  real change (driver, power limit, thermal state) rather than jitter.

A run that did not finish (aborted, failed) or whose own verdict says its measurements were disturbed (noisy,
throttled, a busy machine) is flagged first, as a `caveat`; a move against such a run is reported as a
`change` that names why it is not called a regression or an improvement. The verdict and the settings
(method, draft length, the measured flags, quick or full) are diffed as changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from advisor.history.records import RunRecord
from advisor.numbers import finite
from advisor.text import text

DifferenceKind = Literal["caveat", "regression", "improvement", "change"]

ACCEPTANCE_DROP_ABS = 0.05
DECODE_DROP_REL = 0.05
# Used only when a run stored no CI for its A/B speedup (e.g. facts typed in by hand).
SPEEDUP_DROP_REL_NO_CI = 0.05

# Facts whose change is worth knowing about but is neither better nor worse by itself: what ran, and the
# settings measured.
_IDENTITY_FACTS = ("engine.kind", "engine.version", "gpu.name", "gpu.driver_version", "model.name",
                   "model.quant", "check.kind", "spec.method", "spec.draft_max", "tuner.k", "spec.argv",
                   "spec.server_args", "workload.concurrency", "flags", "try_flags")
# Verdict branches (rule/branch, as `decided_by` and `blocking` name them) that say the run's own
# measurements were disturbed: a change against such a run is not a finding about the setup.
DISTURBED = {"measurement-validity/noisy": "noisy", "measurement-validity/throttled": "throttled"}
CONTENDED_FACT = "measurement.contended"  # the machine was busy during the run (decode far below its baseline)


@dataclass(frozen=True, slots=True)
class Difference:
    """One finding of `compare`: which fact moved, from what to what, and what that means."""

    kind: DifferenceKind
    fact: str
    before: object
    after: object
    message: str


def run_facts(record: RunRecord) -> dict[str, object]:
    """The run's facts, filled in from its step evidence and environment where facts were not stored."""
    facts: dict[str, object] = dict(record.facts or {})
    evidence = {s.step: s.evidence for s in record.steps}

    def fill(name: str, value: object) -> None:
        if facts.get(name) is None and value is not None:
            facts[name] = value

    for step, key, fact in (("baseline", "decode_tok_s", "baseline.decode_tok_s"),
                            ("acceptance", "rate", "acceptance.rate"), ("ab", "speedup", "ab.speedup"),
                            ("ab", "ci_low", "ab.ci_low"), ("ab", "ci_high", "ab.ci_high")):
        step_evidence = evidence.get(step)
        if isinstance(step_evidence, Mapping):
            fill(fact, step_evidence.get(key))
    env = record.environment
    for section in ("engine", "gpu", "model"):
        values = env.get(section)
        if isinstance(values, Mapping):
            for key in ("kind", "version", "name", "driver_version", "quant"):
                fill(f"{section}.{key}", values.get(key))
    if record.summary.verdict is not None:
        fill("verdict", record.summary.verdict)
    quick = record.config.get("quick") if isinstance(record.config, Mapping) else None
    if isinstance(quick, bool):
        fill("check.kind", "quick" if quick else "full")
    verdict = record.verdict
    for key, rec in (("flags", verdict and verdict.flags), ("try_flags", verdict and verdict.try_flags)):
        if rec and rec.argv:
            fill(key, " ".join(rec.argv))
    return facts


def run_flags(record: RunRecord) -> list[str]:
    """Why this run's figures are not a fair reference: "aborted"/"failed"/"running", "noisy", "throttled",
    "contended" (empty: a whole, undisturbed run)."""
    flags = [record.summary.status] if record.summary.status != "complete" else []
    verdict = record.verdict
    codes = [f"{verdict.rule_id}/{verdict.branch_id}", *(b.code for b in verdict.blocking)] if verdict else []
    flags += sorted({DISTURBED[c] for c in codes if c in DISTURBED})
    if run_facts(record).get(CONTENDED_FACT) is True:
        flags.append("contended")
    return flags


def compare_runs(before: RunRecord, after: RunRecord, lang: str = "en") -> list[Difference]:
    """Differences from `before` (A) to `after` (B) in `lang`: caveats about either run first, then
    regressions, changes and improvements. Against a flagged run no move is a regression or an improvement."""
    a, b = run_facts(before), run_facts(after)
    flagged = {"A": run_flags(before), "B": run_flags(after)}
    caveats = [Difference("caveat", "run", label, ", ".join(flags),
                          text(lang, "compare.caveat", run=label,
                               what=", ".join(text(lang, f"compare.flag.{f}") for f in flags)))
               for label, flags in flagged.items() if flags]
    found = [*_acceptance(a, b, lang), *_speedup(a, b, lang), *_decode(a, b, lang)]
    if caveats:
        why = "; ".join(text(lang, "compare.flagged_run", run=label, what=", ".join(
            text(lang, f"compare.flag.{f}") for f in flags)) for label, flags in flagged.items() if flags)
        found = [d if d.kind == "change" else Difference(
            "change", d.fact, d.before, d.after, text(lang, "compare.not_judged", message=d.message, why=why))
            for d in found]
    found += _identity(a, b, lang)
    order = {"caveat": 0, "regression": 1, "change": 2, "improvement": 3}
    return caveats + sorted(found, key=lambda d: order[d.kind])


def _acceptance(a: Mapping[str, object], b: Mapping[str, object], lang: str) -> list[Difference]:
    old, new = finite(a.get("acceptance.rate")), finite(b.get("acceptance.rate"))
    if old is None or new is None or abs(new - old) <= ACCEPTANCE_DROP_ABS:
        return []
    kind: DifferenceKind = "regression" if new < old else "improvement"
    key = "compare.acceptance_down" if new < old else "compare.acceptance_up"
    return [Difference(kind, "acceptance.rate", old, new,
                       text(lang, key, old=old, new=new, step=ACCEPTANCE_DROP_ABS))]


def _speedup(a: Mapping[str, object], b: Mapping[str, object], lang: str) -> list[Difference]:
    old, new = finite(a.get("ab.speedup")), finite(b.get("ab.speedup"))
    if old is None or new is None:
        return []
    low, high = finite(a.get("ab.ci_low")), finite(a.get("ab.ci_high"))
    if low is None or high is None:
        low, high = old * (1 - SPEEDUP_DROP_REL_NO_CI), old * (1 + SPEEDUP_DROP_REL_NO_CI)
    if new < low:
        return [Difference("regression", "ab.speedup", old, new,
                           text(lang, "compare.speedup_down", old=old, new=new, low=low, high=high))]
    if new > high:
        return [Difference("improvement", "ab.speedup", old, new,
                           text(lang, "compare.speedup_up", old=old, new=new, low=low, high=high))]
    return []


def _decode(a: Mapping[str, object], b: Mapping[str, object], lang: str) -> list[Difference]:
    old, new = finite(a.get("baseline.decode_tok_s")), finite(b.get("baseline.decode_tok_s"))
    if old is None or new is None or old <= 0:
        return []
    change = (new - old) / old
    if abs(change) <= DECODE_DROP_REL:
        return []
    kind: DifferenceKind = "regression" if change < 0 else "improvement"
    return [Difference(kind, "baseline.decode_tok_s", old, new,
                       text(lang, "compare.decode", old=old, new=new, change=change))]


def _identity(a: Mapping[str, object], b: Mapping[str, object], lang: str) -> list[Difference]:
    out = []
    for fact in ("verdict", *_IDENTITY_FACTS):
        old, new = a.get(fact), b.get(fact)
        if old != new and (old is not None or new is not None):
            shown = [_shown(fact, v, lang) for v in (old, new)]
            label = text(lang, f"compare.fact.{fact}") if fact in _LABELLED else fact
            out.append(Difference("change", fact, old, new,
                                  text(lang, "compare.changed", what=label, old=shown[0], new=shown[1])))
    return out


def _shown(fact: str, value: object, lang: str) -> str:
    if value is None:
        return text(lang, "compare.none")
    if fact == "verdict":
        return text(lang, f"verdict.{value}")
    if fact == "check.kind":
        return text(lang, f"compare.kind.{value}")
    return str(value)


# Facts with a name in words (the others are shown by their fact name, as `decide --list-facts` lists them).
_LABELLED = ("verdict", "check.kind", "flags", "try_flags")
