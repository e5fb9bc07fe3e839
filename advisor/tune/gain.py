"""The gain side of a draft length: how many target steps a run at draft cap k needs, from one run at the
longest cap K.

Counters from the run at K give, per drafting step, how many drafted tokens were accepted (per-position
acceptance: `accepted_per_position[j]` drafts accepted position j+1). A step that accepted a < K tokens ended
at a token the drafter got wrong; that step produced a + 1 tokens (the accepted ones and the target's own).
At a shorter cap k the same stretch of text takes ceil((a + 1) / (k + 1)) steps: each step accepts up to k
drafted tokens and adds the target's, and the wrong token falls at the same place in the text, so steps
re-align there (exact for greedy decoding whatever the drafter: an n-gram table or a draft model sees the same
text before each position). A step that accepted all K did not end at a wrong token; consecutive full steps
are one longer stretch, consumed at k + 1 tokens per step. Steps without a draft are unchanged by k.

Checked on the real server (SmolLM2-135M, a copy-heavy prompt, ngram-mod): from the run at K = 16 this
predicts 24.8 drafting steps and 98 accepted tokens at k = 4; the run at k = 4 measured 25 and 98.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RunShape:
    """What one run at cap `k_max` did, summed over its requests (token counts exclude each first token)."""

    k_max: int
    generated: float                    # tokens decoded after the first, over all requests
    drafts: float                       # drafting steps
    draft_tokens: float                 # tokens drafted over all drafting steps
    accepted_per_position: tuple[float, ...]  # drafts that accepted position 1, 2, …, k_max

    @property
    def accepted(self) -> float:
        """Drafted tokens the target accepted."""
        return sum(self.accepted_per_position)

    @property
    def plain_steps(self) -> float:
        """Steps that had no draft (each yields one token): generated − drafting steps − accepted."""
        return max(self.generated - self.drafts - self.accepted, 0.0)

    @property
    def mean_draft_len(self) -> float:
        """Drafted tokens per drafting step at `k_max` (a drafter may stop short of the cap)."""
        return self.draft_tokens / self.drafts if self.drafts > 0 else 0.0


@dataclass(frozen=True, slots=True)
class StepsAtK:
    """A run re-played at cap k: target steps by kind and the tokens they yield."""

    k: int
    plain_steps: float
    drafting_steps: float
    draft_len: float                    # tokens drafted per drafting step
    tokens: float                       # equals the run's generated tokens

    @property
    def tokens_per_step(self) -> float:
        """τ over all steps (plain ones included)."""
        steps = self.plain_steps + self.drafting_steps
        return self.tokens / steps if steps > 0 else 1.0

    @property
    def accepted(self) -> float:
        """Drafted tokens accepted: every token beyond one per step."""
        return max(self.tokens - self.plain_steps - self.drafting_steps, 0.0)

    @property
    def acceptance_rate(self) -> float | None:
        """Accepted ÷ drafted (None when nothing was drafted)."""
        drafted = self.drafting_steps * self.draft_len
        return self.accepted / drafted if drafted > 0 else None

    @property
    def mean_length(self) -> float | None:
        """Tokens per drafting step (None when no step drafted)."""
        return 1.0 + self.accepted / self.drafting_steps if self.drafting_steps > 0 else None


def accepted_histogram(shape: RunShape) -> list[float]:
    """Drafting steps by tokens accepted: index a (0 … k_max) holds the steps that accepted exactly a."""
    at_least = [shape.drafts, *shape.accepted_per_position[: shape.k_max]]
    at_least += [0.0] * (shape.k_max + 1 - len(at_least))
    hist = [max(at_least[a] - at_least[a + 1], 0.0) for a in range(shape.k_max)]
    return [*hist, at_least[shape.k_max]]


def steps_at(shape: RunShape, k: int) -> StepsAtK:
    """The run at K re-played with drafts capped at `k` (1 ≤ k ≤ K)."""
    if not 1 <= k <= shape.k_max:
        raise ValueError(f"k must be within 1…{shape.k_max}, got {k}")
    hist = accepted_histogram(shape)
    partial = sum(n * math.ceil((a + 1) / (k + 1)) for a, n in enumerate(hist[:-1]))
    full = hist[-1] * (shape.k_max + 1) / (k + 1)
    drafting = partial + full
    return StepsAtK(k=k, plain_steps=shape.plain_steps, drafting_steps=drafting,
                    draft_len=min(float(k), shape.mean_draft_len) if drafting else 0.0, tokens=shape.generated)


def merge(shapes: list[RunShape]) -> RunShape | None:
    """The sum of runs at the same cap (categories into a mix); None for none."""
    if not shapes:
        return None
    k_max = shapes[0].k_max
    if any(s.k_max != k_max for s in shapes):
        raise ValueError("runs at different caps cannot be summed")
    per_pos = tuple(sum(s.accepted_per_position[j] if j < len(s.accepted_per_position) else 0.0 for s in shapes)
                    for j in range(k_max))
    return RunShape(k_max=k_max, generated=sum(s.generated for s in shapes), drafts=sum(s.drafts for s in shapes),
                    draft_tokens=sum(s.draft_tokens for s in shapes), accepted_per_position=per_pos)
