"""Compare two stored runs and say, in words, what got worse, what got better and what changed.

Thresholds (why these numbers):
- acceptance rate: 0.05 absolute — per-category CIs from ~10 prompts are about ±0.03–0.05 wide, so a
  smaller move is within the noise of the measurement itself;
- A/B speedup: a regression only when the new point estimate falls *outside the old run's CI*, i.e. the
  old run's own uncertainty already excludes it;
- decode tok/s: 5% — run-to-run noise of a warmed-up home GPU is ~1–3% (reliability.md §3), so 5% is a
  real change (driver, power limit, thermal state) rather than jitter.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from advisor.history.records import RunRecord

DifferenceKind = Literal["regression", "improvement", "change"]

ACCEPTANCE_DROP_ABS = 0.05
DECODE_DROP_REL = 0.05
# Used only when a run stored no CI for its A/B speedup (e.g. facts typed in by hand).
SPEEDUP_DROP_REL_NO_CI = 0.05

# Facts whose change is worth knowing about but is neither better nor worse by itself.
_IDENTITY_FACTS = ("engine.kind", "engine.version", "gpu.name", "gpu.driver_version", "model.name",
                   "model.quant", "spec.method", "spec.draft_max")


@dataclass(frozen=True, slots=True)
class Difference:
    """One finding of `compare`: which fact moved, from what to what, and what that means."""

    kind: DifferenceKind
    fact: str
    before: Any
    after: Any
    message: str


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def run_facts(record: RunRecord) -> dict[str, Any]:
    """The run's facts, filled in from its step evidence and environment where facts were not stored."""
    facts: dict[str, Any] = dict(record.facts or {})
    evidence = {s.step: s.evidence for s in record.steps}

    def fill(name: str, value: Any) -> None:
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
    return facts


def compare_runs(before: RunRecord, after: RunRecord) -> list[Difference]:
    """Differences from `before` to `after`, regressions first, then changes, then improvements."""
    a, b = run_facts(before), run_facts(after)
    found = [*_acceptance(a, b), *_speedup(a, b), *_decode(a, b), *_identity(a, b)]
    order = {"regression": 0, "change": 1, "improvement": 2}
    return sorted(found, key=lambda d: order[d.kind])


def _acceptance(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Difference]:
    old, new = _number(a.get("acceptance.rate")), _number(b.get("acceptance.rate"))
    if old is None or new is None or abs(new - old) <= ACCEPTANCE_DROP_ABS:
        return []
    kind: DifferenceKind = "regression" if new < old else "improvement"
    verb = "dropped" if new < old else "rose"
    return [Difference(kind, "acceptance.rate", old, new,
                       f"draft acceptance {verb} from {old:.0%} to {new:.0%} "
                       f"(more than {ACCEPTANCE_DROP_ABS:.2f} absolute)")]


def _speedup(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Difference]:
    old, new = _number(a.get("ab.speedup")), _number(b.get("ab.speedup"))
    if old is None or new is None:
        return []
    low, high = _number(a.get("ab.ci_low")), _number(a.get("ab.ci_high"))
    if low is None or high is None:
        low, high = old * (1 - SPEEDUP_DROP_REL_NO_CI), old * (1 + SPEEDUP_DROP_REL_NO_CI)
    if new < low:
        return [Difference("regression", "ab.speedup", old, new,
                           f"measured speedup fell from {old:.2f}× to {new:.2f}×, below the earlier run's "
                           f"95% CI ({low:.2f}–{high:.2f}×)")]
    if new > high:
        return [Difference("improvement", "ab.speedup", old, new,
                           f"measured speedup rose from {old:.2f}× to {new:.2f}×, above the earlier run's "
                           f"95% CI ({low:.2f}–{high:.2f}×)")]
    return []


def _decode(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Difference]:
    old, new = _number(a.get("baseline.decode_tok_s")), _number(b.get("baseline.decode_tok_s"))
    if old is None or new is None or old <= 0:
        return []
    change = (new - old) / old
    if abs(change) <= DECODE_DROP_REL:
        return []
    kind: DifferenceKind = "regression" if change < 0 else "improvement"
    return [Difference(kind, "baseline.decode_tok_s", old, new,
                       f"plain decoding (speculation off) went from {old:.1f} to {new:.1f} tok/s "
                       f"({change:+.0%})")]


def _identity(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Difference]:
    out = []
    for fact in (*_IDENTITY_FACTS, "verdict"):
        old, new = a.get(fact), b.get(fact)
        if old is not None and new is not None and old != new:
            label = "verdict" if fact == "verdict" else fact
            out.append(Difference("change", fact, old, new, f"{label} changed: {old} → {new}"))
    return out
