"""Facts that cannot be true: ranges per unit and relations between facts, checked wherever facts enter.

A hand-written `--facts` file and a hand-edited evidence.json go through the same checks, so neither can
say "0.50× faster with a 95% CI of 1.90–1.10×" and get ENABLE. Every failure names the fact.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path

from advisor.core.policy import default_policy
from advisor.evidence.jsonfile import read_json_file
from advisor.facts.specs import FACT_SPECS, FactsError, validate_facts

# Tolerance for comparing bounds that were computed from the same numbers (rounding only).
_EPS = 1e-9
# Facts measured as fractions in [0, 1].
_FRACTION_UNIT = "0..1"
# Every numeric fact is a count, a size, a time, a speed or a ratio: none can be negative, except a margin.
_SMALLEST = 0.0
# below 0: the draft needs more VRAM than is free; the machine got faster during the A/B; ON-first pairs were faster
_SIGNED = frozenset({"vram.headroom_after_draft_gib", "ab.drift", "ab.effect_drift", "ab.order_effect"})
FRACTION_UNIT, SIGNED_FACTS = _FRACTION_UNIT, _SIGNED  # what rule thresholds are checked against too


def _ranges(facts: Mapping[str, object], origin: str) -> None:
    for name, value in facts.items():
        spec = FACT_SPECS[name]
        if spec.type not in ("int", "float") or isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if value < _SMALLEST and name not in _SIGNED:
            raise FactsError(f"{origin}: fact '{name}' = {value!r} cannot be negative ({spec.meaning})")
        if spec.unit == _FRACTION_UNIT and value > 1.0 + _EPS:
            raise FactsError(f"{origin}: fact '{name}' = {value!r} is a fraction and must be at most 1")


def _num(facts: Mapping[str, object], name: str) -> float | None:
    v = facts.get(name)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _ordered(facts: Mapping[str, object], origin: str, low: str, point: str, high: str) -> None:
    values = [(n, _num(facts, n)) for n in (low, point, high)]
    known = [(n, v) for n, v in values if v is not None]
    for (n1, v1), (n2, v2) in itertools.pairwise(known):
        if v1 > v2 + _EPS:
            raise FactsError(f"{origin}: fact '{n1}' = {v1:g} is above '{n2}' = {v2:g}; "
                             f"expected {low} ≤ {point} ≤ {high}")


def _decision(facts: Mapping[str, object], origin: str) -> None:
    decision, ci_low, ci_high = facts.get("ab.decision"), _num(facts, "ab.ci_low"), _num(facts, "ab.ci_high")
    # ENABLE says "faster": its lower bound must clear break-even. SKIP says "no worthwhile gain": its whole
    # CI cannot lie above the smallest worthwhile speedup (that is a clear, worthwhile gain).
    if decision == "ENABLE" and ci_low is not None and ci_low <= 1.0:
        raise FactsError(f"{origin}: 'ab.decision' is ENABLE but 'ab.ci_low' = {ci_low:g} is not above 1")
    if decision in ("ENABLE", "SKIP"):  # a decision is read off a measured speedup and its CI: all three exist
        for name in ("ab.speedup", "ab.ci_low", "ab.ci_high"):
            if facts.get(name) is None:
                raise FactsError(f"{origin}: 'ab.decision' is {decision} but '{name}' is missing or null; an A/B "
                                 "decision comes with its measured speedup and its CI")
    worthwhile = 1.0 + default_policy().ab.margin
    if decision == "SKIP" and ci_low is not None and ci_low > worthwhile:
        raise FactsError(f"{origin}: 'ab.decision' is SKIP but the whole CI (from {ci_low:g}"
                         + (f" to {ci_high:g}" if ci_high is not None else "") + f") is above {worthwhile:g}×")


def check_facts(facts: Mapping[str, object], *, origin: str = "facts") -> dict[str, object]:
    """Names and types (`validate_facts`), then ranges and relations; returns the validated facts."""
    out = validate_facts(facts, origin=origin)
    _ranges(out, origin)
    _ordered(out, origin, "ab.ci_low", "ab.speedup", "ab.ci_high")
    _ordered(out, origin, "acceptance.rate_ci_low", "acceptance.rate", "acceptance.rate_ci_high")
    _ordered(out, origin, "batch.ci_low_at_concurrency", "batch.speedup_at_concurrency",
             "batch.ci_high_at_concurrency")
    pays, stops = _num(out, "batch.pays_up_to"), _num(out, "batch.stops_paying_at")
    if pays is not None and stops is not None and pays >= stops:
        raise FactsError(f"{origin}: 'batch.pays_up_to' = {pays:g} cannot reach 'batch.stops_paying_at' = {stops:g}")
    _decision(out, origin)
    total = _num(out, "model.layers_total")
    for name in ("arms.off_gpu_layers", "arms.on_gpu_layers"):
        if total is not None and (layers := _num(out, name)) is not None and layers > total:
            raise FactsError(f"{origin}: fact '{name}' = {layers:g} is more than 'model.layers_total' = {total:g}")
    return out


def load_facts_file(path: Path | str) -> dict[str, object]:
    """Read a `--facts FILE.json` (a flat object of fact name → value) and check it."""
    p = Path(path)
    data = read_json_file(p, what="a facts file", max_bytes=1024 * 1024)
    if not isinstance(data, dict):
        raise FactsError(f"{p} must hold one JSON object of fact name → value")
    return check_facts(data, origin=str(p))
