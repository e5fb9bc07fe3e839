"""Speculation by batch size: from the paired concurrency sweep (step 4) to bands of batch sizes and draft lengths.

Each measured concurrency c has paired rounds of on ÷ off aggregate tok/s with a t-interval. A level *pays*
when its whole CI is above break-even (policy.batch.break_even, 1.00×), *stops* (clearly slower) when its whole
CI is below it, and is *unclear* otherwise. The cutoff is the lowest level that stops: from there up
speculation is off. Below it each band keeps the measured draft length k*, unless the tuner's predictions for
that concurrency (c → {k: predicted speedup}) name a better one. Measurement decides on/off wherever it is
clear; a prediction only picks k, and turns a band off only where the measurement was unclear and no k is
predicted to beat break-even. A band never drafts longer than the band below it: spare compute only shrinks as
concurrency grows, so a prediction saying otherwise is noise. Batch sizes between two measured levels take the
lower level's setting; above the highest measured level the last band continues (the engines' forms in
advisor/recommend/engine_schedule.py say where that is unmeasured).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # annotations only: the evidence types are not needed to schedule from levels
    from advisor.evidence.steps import BatchLevel

Status = Literal["pays", "unclear", "stops"]
Predictions = Mapping[int, Mapping[int, float]]  # concurrency → {draft length k: predicted speedup ×}


@dataclass(frozen=True, slots=True)
class LevelResult:
    """One measured concurrency at the draft length k*: its paired speedup (×) and CI (None: not known)."""

    concurrency: int
    speedup: float | None
    ci_low: float | None
    ci_high: float | None


def level_results(levels: Iterable[BatchLevel]) -> tuple[LevelResult, ...]:
    """The sweep's levels as `LevelResult`s, lowest concurrency first."""
    rows = (LevelResult(lv.concurrency, lv.speedup, lv.speedup_ci_low, lv.speedup_ci_high) for lv in levels)
    return tuple(sorted(rows, key=lambda r: r.concurrency))


def status(ci_low: float | None, ci_high: float | None, break_even: float) -> Status:
    """pays (whole CI above break-even), stops (whole CI below) or unclear (it straddles, or is unknown)."""
    if ci_low is not None and math.isfinite(ci_low) and ci_low > break_even:
        return "pays"
    if ci_high is not None and math.isfinite(ci_high) and ci_high < break_even:
        return "stops"
    return "unclear"


@dataclass(frozen=True, slots=True)
class Cutoffs:
    """`stops_paying_at`: the lowest level that stops; `pays_up_to`: the last of the levels that pay in an
    unbroken run from the lowest one (None when the lowest does not pay)."""

    stops_paying_at: int | None
    pays_up_to: int | None


def cutoffs(levels: Sequence[LevelResult], break_even: float) -> Cutoffs:
    """Where speculation stops paying and how far it surely pays, from the levels' paired CIs."""
    ordered = sorted(levels, key=lambda r: r.concurrency)
    states = [(r.concurrency, status(r.ci_low, r.ci_high, break_even)) for r in ordered]
    stops = next((c for c, s in states if s == "stops"), None)
    pays: int | None = None
    for c, s in states:
        if s != "pays":
            break
        pays = c
    return Cutoffs(stops, pays)


@dataclass(frozen=True, slots=True)
class Band:
    """Batch sizes `low`…`high` (inclusive; `high` None: and every size above) run draft length `k` (0: off)."""

    low: int
    high: int | None
    k: int


@dataclass(frozen=True, slots=True)
class Schedule:
    """Bands covering every batch size from 1, in order, neighbours with equal k merged.

    `k_star` is the measured draft length, `max_tested` the highest measured concurrency (None: no sweep),
    `stops_paying_at` the measured cutoff, `unclear` the measured levels below it whose CI straddled break-even.
    """

    bands: tuple[Band, ...]
    k_star: int
    max_tested: int | None = None
    stops_paying_at: int | None = None
    unclear: tuple[int, ...] = ()

    @property
    def off_from(self) -> int | None:
        """The smallest batch size from which speculation is off (None: on at every size)."""
        return next((b.low for b in self.bands if b.k == 0), None)

    @property
    def max_k(self) -> int:
        """The longest draft any band uses (what the engine's base setting must allow)."""
        return max((b.k for b in self.bands), default=0)

    @property
    def uniform(self) -> bool:
        """True when every band that speculates uses the same k (a plain on/off cutoff, or no change at all)."""
        return len({b.k for b in self.bands if b.k > 0}) <= 1

    def k_at(self, batch_size: int) -> int:
        """The draft length at `batch_size` (≥ 1)."""
        for band in self.bands:
            if band.low <= batch_size and (band.high is None or batch_size <= band.high):
                return band.k
        return self.bands[-1].k


def _merge(points: Sequence[tuple[int, int]]) -> tuple[Band, ...]:
    """(first batch size, k) per measured level → contiguous bands from 1, equal neighbours merged."""
    bands: list[Band] = []
    for i, (_, k) in enumerate(points):
        low = 1 if i == 0 else points[i][0]
        high = points[i + 1][0] - 1 if i + 1 < len(points) else None
        if bands and bands[-1].k == k:
            bands[-1] = Band(bands[-1].low, high, k)
        else:
            bands.append(Band(low, high, k))
    return tuple(bands)


def _best_k(state: Status, k_star: int, predicted: Mapping[int, float] | None, break_even: float) -> int:
    usable = {k: s for k, s in (predicted or {}).items() if k > 0 and math.isfinite(s)}
    if not usable:
        return k_star
    best = max(sorted(usable), key=lambda k: usable[k])  # ties go to the shorter draft
    if usable[best] > break_even:
        return best
    return k_star if state == "pays" else 0  # a clear measurement is not overruled by a prediction


def build_schedule(levels: Sequence[LevelResult], k_star: int, break_even: float,
                   predicted: Predictions | None = None) -> Schedule:
    """The bands for a sweep measured at draft length `k_star`; predictions at other k are optional.

    Predictions for concurrencies that were not measured are not used: a band starts only where a level was
    measured. Without levels the schedule is k* everywhere."""
    if k_star < 1:
        raise ValueError(f"the measured draft length must be at least 1, got {k_star}")
    ordered = sorted(levels, key=lambda r: r.concurrency)
    if not ordered:
        return Schedule((Band(1, None, k_star),), k_star)
    stops = cutoffs(ordered, break_even).stops_paying_at
    points: list[tuple[int, int]] = []
    unclear: list[int] = []
    for row in ordered:
        state = status(row.ci_low, row.ci_high, break_even)
        if stops is not None and row.concurrency >= stops:
            k = 0
        else:
            k = _best_k(state, k_star, (predicted or {}).get(row.concurrency), break_even)
            if state == "unclear":
                unclear.append(row.concurrency)
        if points:
            k = min(k, points[-1][1])
        points.append((row.concurrency, k))
    return Schedule(_merge(points), k_star, ordered[-1].concurrency, stops, tuple(unclear))


def cutoff_schedule(k: int, stops_paying_at: int | None, max_tested: int | None = None) -> Schedule:
    """k below the measured cutoff and off from it (what flat facts can say: no per-level results)."""
    bands: tuple[Band, ...]
    if stops_paying_at is None or stops_paying_at <= 1:
        bands = (Band(1, None, 0 if stops_paying_at == 1 else k),)
    else:
        bands = (Band(1, stops_paying_at - 1, k), Band(stops_paying_at, None, 0))
    return Schedule(bands, k, max_tested, stops_paying_at)
