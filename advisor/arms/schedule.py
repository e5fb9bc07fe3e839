"""The order of a single-resident A/B: blocks of pairs, one copy of the target at a time.

With one server alive, the arms cannot alternate per prompt without a model load per request. Pairs are
grouped in blocks of B prompts; block 1 runs ON then OFF, block 2 OFF then ON, and so on, so each arm goes
first in half of the blocks (the order guard still sees both orders) and consecutive blocks share a server:

    ON(b1) | OFF(b1 b2) | ON(b2 b3) | OFF(b3 b4) | …     one swap per block

Every ON window is a freshly started process, so no ON request can see text of its own prompt's earlier
requests: its OFF half ran, if at all, in another process, and the n-gram pool dies with the process. An ON
request may see *other* prompts of its window, as in a side-by-side A/B, where the pool also keeps growing
within the phase. Pairs are completed by their second half; a pair whose second half never runs (the
decision stopped, a cancel) is not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.arms.arms import ArmName


@dataclass(frozen=True, slots=True)
class Window:
    """One server's turn: `arm` measures the prompts at `indices` (positions in the A/B's prompt list)."""

    arm: ArmName
    indices: tuple[int, ...]


def single_resident_windows(n_prompts: int, block: int, first: ArmName = "on") -> list[Window]:
    """The windows for `n_prompts` pairs in blocks of `block`, the first block led by `first` (the arm that is
    resident when the A/B starts, so the first window costs no swap)."""
    block = max(1, block)
    blocks = [tuple(range(s, min(s + block, n_prompts))) for s in range(0, n_prompts, block)]
    other: ArmName = "off" if first == "on" else "on"
    halves: list[Window] = []
    for b, indices in enumerate(blocks):
        lead, follow = (first, other) if b % 2 == 0 else (other, first)
        halves += [Window(lead, indices), Window(follow, indices)]
    merged: list[Window] = []
    for w in halves:
        if merged and merged[-1].arm == w.arm:
            merged[-1] = Window(w.arm, merged[-1].indices + w.indices)
        else:
            merged.append(w)
    return merged


def leads(windows: list[Window]) -> dict[int, ArmName]:
    """Which arm ran each prompt first."""
    first: dict[int, ArmName] = {}
    for w in windows:
        for i in w.indices:
            first.setdefault(i, w.arm)
    return first
