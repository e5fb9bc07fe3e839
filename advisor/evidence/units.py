"""Whole measurement units: what the recorder commits in one transaction and a resume reuses as it was.

A unit carries everything the step's summary needs from it, so a resumed run reaches the same evidence as
an uninterrupted one for every reused unit (e.g. an acceptance unit keeps its `/metrics` counter delta, which
per-position acceptance and the mean acceptance length are computed from).
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.ab.types import PairResult
from advisor.evidence.steps import RequestRecord


@dataclass(frozen=True, slots=True)
class CounterDelta:
    """Speculative counters of one request (`/metrics` after − before; requests are serial)."""

    drafts: float
    draft_tokens: float
    accepted_tokens: float
    accepted_per_position: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class AcceptanceUnit:
    """One acceptance prompt: its request record and, when `/metrics` had them, its counter deltas."""

    record: RequestRecord
    counters: CounterDelta | None = None


@dataclass(frozen=True, slots=True)
class VerifyUnit:
    """Every timed forward at one k (ms)."""

    k: int
    t_ms: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class ArmResult:
    """One arm of a pair: its request record, or the error that stopped it."""

    record: RequestRecord | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ABUnit:
    """One A/B pair with both arms; the history stores a pair whole or not at all."""

    pair: PairResult
    off: ArmResult
    on: ArmResult
