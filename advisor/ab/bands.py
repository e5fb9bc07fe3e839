"""The shape of the work: the A/B's speedup by output-length band and by context-depth band, beside the kinds
of task (issue 24 item 3). Published pairs change sign with both (a long reply drafts more of itself; a deep
context makes every verify forward dearer), so the pooled verdict holds for the lengths and depths it measured.

Each band is shown with a simultaneous interval (advisor/ab/categories.py `grouped`), never decided on; the
band edges are policy (rules/policy.toml `ab.output_band_edges`, `ab.depth_band_edges`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from advisor.ab.categories import CategorySpeedup, grouped
from advisor.ab.types import PairResult, is_counted
from advisor.core.ab_policy import ABPolicy


def band_label(value: float, edges: Sequence[int]) -> str:
    """`0–255`, `256–1023`, `1024+` for edges (256, 1024): the band of `value` tokens."""
    low = 0
    for edge in edges:
        if value < edge:
            return f"{low}–{edge - 1}"
        low = edge
    return f"{low}+"


def band_labels(edges: Sequence[int]) -> list[str]:
    """Every band of `edges`, shortest first."""
    bounds = [0, *edges]
    return [f"{a}–{b - 1}" for a, b in itertools.pairwise(bounds)] + [f"{bounds[-1]}+"]


def per_band(pairs: Sequence[PairResult], policy: ABPolicy, value: Callable[[PairResult], float | None],
             edges: Sequence[int]) -> dict[str, CategorySpeedup]:
    """Speedup per band of `value` (tokens) over the counted pairs that recorded it, shortest band first; bands
    without pairs are left out."""
    groups: dict[str, list[float]] = {label: [] for label in band_labels(edges)}
    for p in pairs:
        v = value(p)
        if is_counted(p) and v is not None:
            groups[band_label(v, edges)].append(math.log(p.off_ms_per_token / p.on_ms_per_token))
    return grouped({k: d for k, d in groups.items() if d}, policy)


def output_bands(pairs: Sequence[PairResult], policy: ABPolicy) -> dict[str, CategorySpeedup]:
    """Speedup by the OFF reply's length in tokens."""
    return per_band(pairs, policy, lambda p: p.output_tokens, policy.output_band_edges)


def depth_bands(pairs: Sequence[PairResult], policy: ABPolicy) -> dict[str, CategorySpeedup]:
    """Speedup by the mean context depth over the decode, in tokens."""
    return per_band(pairs, policy, lambda p: p.depth_tokens, policy.depth_band_edges)


@dataclass(frozen=True, slots=True)
class Span:
    """The range of a quantity the counted pairs measured (tokens): what the pooled verdict holds for."""

    low: int
    high: int


def measured_span(pairs: Sequence[PairResult], value: Callable[[PairResult], float | None]) -> Span | None:
    """Smallest and largest `value` over the counted pairs (None when none recorded it)."""
    got = [v for p in pairs if is_counted(p) and (v := value(p)) is not None]
    return Span(int(min(got)), round(max(got))) if got else None
