"""Drop repeated and near-duplicate prompts, which would fake n-gram speedups (reliability.md §4)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from advisor.workloads.errors import WorkloadError
from advisor.workloads.model import Prompt
from advisor.workloads.normalize import normalize, shingles
from advisor.workloads.similarity import similar_pairs

# Jaccard similarity of 5-character shingles at which two prompts count as the same (reliability.md §4.4).
NEAR_DUPLICATE_JACCARD: Final = 0.8

DropReason = Literal["exact", "near"]


@dataclass(frozen=True, slots=True)
class Dropped:
    """A prompt left out because it repeats `kept_id` (similarity 1.0 for an exact repeat)."""

    prompt: Prompt
    kept_id: str
    reason: DropReason
    similarity: float

    def describe(self) -> str:
        if self.reason == "exact":
            return f"{self.prompt.id} repeats {self.kept_id}"
        return f"{self.prompt.id} is a near-duplicate of {self.kept_id} ({self.similarity:.0%} similar)"


@dataclass(frozen=True, slots=True)
class DedupeResult:
    """Prompts kept (first occurrences, input order) and those dropped, with the reason."""

    kept: tuple[Prompt, ...]
    dropped: tuple[Dropped, ...]

    def summary(self) -> str:
        """One line for the user: how many were dropped and why."""
        if not self.dropped:
            return f"{len(self.kept)} distinct prompts, no duplicates"
        total = len(self.kept) + len(self.dropped)
        details = "; ".join(d.describe() for d in self.dropped[:5])
        more = f"; and {len(self.dropped) - 5} more" if len(self.dropped) > 5 else ""
        return f"dropped {len(self.dropped)} of {total} prompts as duplicates: {details}{more}"


def dedupe(prompts: Iterable[Prompt], *, threshold: float = NEAR_DUPLICATE_JACCARD, min_count: int = 0) -> DedupeResult:
    """Keep the first of each group of equal or near-equal prompts; raise if fewer than `min_count` remain."""
    items = tuple(prompts)
    keys = [normalize(_content(p)) for p in items]
    first_by_key: dict[str, int] = {}
    dropped: dict[int, Dropped] = {}
    for i, key in enumerate(keys):
        if key in first_by_key:
            dropped[i] = Dropped(items[i], items[first_by_key[key]].id, "exact", 1.0)
        else:
            first_by_key[key] = i
    distinct = sorted(first_by_key.values())
    pairs = similar_pairs([shingles(keys[i]) for i in distinct], threshold)
    for a, b, score in pairs:  # sorted by (a, b): a prompt is judged only against prompts already kept
        i, j = distinct[a], distinct[b]
        if i in dropped:
            continue
        previous = dropped.get(j)
        if previous is None or score > previous.similarity:
            dropped[j] = Dropped(items[j], items[i].id, "near", score)
    result = DedupeResult(
        kept=tuple(p for i, p in enumerate(items) if i not in dropped),
        dropped=tuple(dropped[i] for i in sorted(dropped)),
    )
    if len(result.kept) < min_count:
        raise WorkloadError(
            f"only {len(result.kept)} distinct prompts remain after removing {len(result.dropped)} "
            f"duplicates; at least {min_count} are needed",
            hint=f"add more varied prompts. {result.summary()}" if result.dropped else "add more varied prompts",
        )
    return result


def _content(prompt: Prompt) -> str:
    # Conversations are compared on their user and assistant turns: many share one long system prompt,
    # which the engine caches as a prefix and which does not make the replies alike.
    if prompt.messages is None:
        return prompt.text
    return "\n".join(m.content for m in prompt.messages if m.role not in ("system", "developer"))
