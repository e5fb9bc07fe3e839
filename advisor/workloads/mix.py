"""The user's mix of tasks: category weights, and an A/B prompt order that follows them at every look.

The paired A/B's statistics stay exactly those of rules/policy.toml: the mix enters through the *design*,
not the estimator. Prompts are drawn per category in proportion to the weights (largest remainders) and
interleaved so that every prefix — each planned look — holds the categories in those proportions, so the
plain mean over pairs estimates the mix-weighted speedup and the group-sequential rule needs no change.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from advisor.workloads.errors import WorkloadError
from advisor.workloads.model import Prompt


@dataclass(frozen=True, slots=True)
class Allocation:
    """The A/B prompts in measurement order and how their categories compare with the requested mix."""

    prompts: tuple[Prompt, ...]
    requested: Mapping[str, float]   # normalised weights the user asked for (or equal weights)
    realised: Mapping[str, float]    # shares among the chosen prompts
    short: tuple[str, ...]           # categories with fewer held-out prompts than their weight asked for


def parse_mix(text: str) -> dict[str, float]:
    """`code=0.6,chat=0.4` → {"code": 0.6, "chat": 0.4} (not yet normalised); WorkloadError on bad input."""
    weights: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, value = part.partition("=")
        name = name.strip()
        try:
            weight = float(value) if sep else math.nan
        except ValueError:
            weight = math.nan
        if not name or not math.isfinite(weight) or weight < 0:
            raise WorkloadError(f"--mix: '{part}' is not category=weight with a weight of 0 or more",
                                hint="for example --mix code=0.6,chat=0.4")
        if name in weights:
            raise WorkloadError(f"--mix: category '{name}' is given twice")
        weights[name] = weight
    if not weights or sum(weights.values()) <= 0:
        raise WorkloadError("--mix needs at least one category with a weight above 0",
                            hint="for example --mix code=0.6,chat=0.4")
    return weights


def normalise(weights: Mapping[str, float], available: Sequence[str]) -> dict[str, float]:
    """Weights summing to 1 over categories that exist; an unknown name is an error naming the known ones."""
    unknown = sorted(set(weights) - set(available))
    if unknown:
        raise WorkloadError(f"--mix: unknown categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}",
                            hint="known: " + ", ".join(sorted(available)))
    total = sum(weights.values())
    return {c: w / total for c, w in weights.items() if w > 0}


def _counts(weights: Mapping[str, float], total: int, available: Mapping[str, int]) -> dict[str, int]:
    """Counts per category in proportion to `weights` (largest remainders), none above what is available;
    a category that runs out passes its share to the others in proportion."""
    counts = dict.fromkeys(weights, 0)
    open_cats = {c for c in weights if available[c] > 0}
    target = min(total, sum(available[c] for c in weights))
    while open_cats and (remaining := target - sum(counts.values())) > 0:
        norm = sum(weights[c] for c in open_cats)
        want = {c: remaining * weights[c] / norm for c in open_cats}
        share = {c: int(want[c]) for c in open_cats}
        extra = remaining - sum(share.values())
        # ties broken by name: a set's order changes with the process's hash seed, so a resumed run would
        # otherwise draw different prompts than the run it resumes
        for c in sorted(sorted(open_cats), key=lambda c: (want[c] - share[c], weights[c]), reverse=True)[:extra]:
            share[c] += 1
        full = {c for c in open_cats if share[c] >= available[c] - counts[c]}
        if not full:
            for c in open_cats:
                counts[c] += share[c]
            break
        for c in full:
            counts[c] = available[c]
        open_cats -= full
    return counts


def allocate(held_out: Sequence[Prompt], weights: Mapping[str, float] | None, total: int,
             seed: int | str) -> Allocation:
    """`total` held-out prompts drawn by the mix (equal weights when None), interleaved to follow it."""
    by_cat: dict[str, list[Prompt]] = {}
    for p in held_out:
        by_cat.setdefault(p.category, []).append(p)
    requested = dict(weights) if weights else {c: 1.0 / len(by_cat) for c in by_cat}
    available = {c: len(by_cat.get(c, [])) for c in requested}
    counts = _counts(requested, total, available)
    short = tuple(sorted(c for c, w in requested.items() if counts[c] < round(total * w) and counts[c] >= available[c]))
    picked = {c: random.Random(f"{seed}:{c}").sample(by_cat.get(c, []), counts[c]) for c in requested}
    order: list[Prompt] = []
    taken = dict.fromkeys(requested, 0)
    goal = {c: counts[c] / max(sum(counts.values()), 1) for c in requested}
    for k in range(1, sum(counts.values()) + 1):
        # the category furthest behind its share at this prefix goes next (ties: the larger weight)
        c = max((c for c in requested if taken[c] < counts[c]), key=lambda c: (goal[c] * k - taken[c], goal[c]))
        order.append(picked[c][taken[c]])
        taken[c] += 1
    n = max(len(order), 1)
    realised = {c: counts[c] / n for c in requested if counts[c]}
    return Allocation(tuple(order), requested, realised, short)
