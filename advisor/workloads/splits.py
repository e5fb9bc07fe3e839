"""Deterministic held-out split: which prompts the A/B may use."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from typing import Final

from advisor.workloads.model import LibrarySplit, Prompt

# Positions 2 and 4 of every five (1-based, per category) go to the A/B: 40%, spread evenly through each
# category rather than a block at the end, so both splits see short and long prompts alike.
_AB_POSITIONS: Final = frozenset({2, 4})


def split_for_position(position: int) -> LibrarySplit:
    """The split of the `position`-th prompt (1-based) of a category."""
    if position < 1:
        raise ValueError(f"position is 1-based, got {position}")
    return "ab" if position % 5 in _AB_POSITIONS else "profile"


def assign_splits(prompts: Iterable[Prompt]) -> tuple[Prompt, ...]:
    """Give each prompt the split its position within its category implies; order is kept."""
    seen: Counter[str] = Counter()
    out: list[Prompt] = []
    for prompt in prompts:
        seen[prompt.category] += 1
        out.append(dataclasses.replace(prompt, split=split_for_position(seen[prompt.category])))
    return tuple(out)
