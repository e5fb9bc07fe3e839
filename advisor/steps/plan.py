"""Which prompts each step uses: warm-ups, baseline, acceptance by category, the A/B's held-out set, the canary.

Warm-up prompts come from outside every measured set; the A/B uses the held-out split so it never reuses a
prompt the acceptance step already showed to the spec-on server (n-gram tables remember, reliability.md §4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from advisor.config import CheckConfig
from advisor.workloads.mix import Allocation, allocate, normalise


class PromptLike(Protocol):
    """The parts of a prompt the steps need."""

    @property
    def id(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def text(self) -> str: ...


@dataclass(frozen=True, slots=True)
class PlainPrompt:
    """A prompt made here (warm-ups)."""

    id: str
    category: str
    text: str


# Short, generic, and in no measured set, so warming up teaches the n-gram table nothing it will reuse.
WARMUP_PROMPTS: tuple[PlainPrompt, ...] = (
    PlainPrompt("warmup-1", "warmup", "Name three colours of the rainbow."),
    PlainPrompt("warmup-2", "warmup", "What is the capital of Japan? Answer in one sentence."),
    PlainPrompt("warmup-3", "warmup", "Give one tip for sleeping well."),
)


def ab_prompts_for(limit: int) -> int:
    """Held-out prompts the A/B may use for a pair limit of `limit`: the limit and a quarter more, the spares
    that replace pairs lost to a failed request or a repetition loop."""
    return limit + limit // 4


@dataclass(frozen=True, slots=True)
class WorkloadPlan:
    """The prompts of one check, fixed before the first request (and recorded in the evidence)."""

    warmup: Sequence[PromptLike]
    baseline: Sequence[PromptLike]
    acceptance: Sequence[PromptLike]
    ab: Sequence[PromptLike]
    canary: PromptLike
    source: str                      # "bundled" or the user's file
    mix: Allocation | None = None    # how the A/B prompts follow the user's mix of tasks

    def to_dict(self) -> dict[str, object]:
        """Prompt ids per use (no texts: prompts stay out of evidence unless the user opts in)."""
        return {
            "source": self.source,
            "baseline": [p.id for p in self.baseline],
            "acceptance": [p.id for p in self.acceptance],
            "ab": [p.id for p in self.ab],
            "canary": self.canary.id,
            "categories": sorted({p.category for p in self.acceptance}),
        }


@dataclass(frozen=True, slots=True)
class _Formatted:
    id: str
    category: str
    text: str


ChatFormatter = Callable[[list[dict[str, str]]], str]


def _messages(prompt: object) -> list[dict[str, str]]:
    turns = getattr(prompt, "messages", None)
    if turns:
        return [{"role": m.role, "content": m.content} for m in turns]
    return [{"role": "user", "content": str(getattr(prompt, "text", ""))}]


def plan_workload(config: CheckConfig, format_chat: ChatFormatter | None = None) -> WorkloadPlan:
    """Choose the prompts for `config` (bundled library, or the user's file split the same way).

    `format_chat` renders a conversation with the engine's chat template, so the model answers as it would in
    chat; whole conversations from chat JSONL keep all their turns. Without it, the raw text is sent.
    """
    from advisor.workloads import (
        MIN_DISTINCT_PROMPTS,
        assign_splits,
        dedupe,
        load_library,
        load_user_prompts,
        select,
        trap_prompt,
    )

    budget = config.budget
    # WorkloadError is a UserError: it reaches the CLI as a clear message with its hint.
    if config.prompts_file is not None:
        user = dedupe(load_user_prompts(config.prompts_file), min_count=MIN_DISTINCT_PROMPTS).kept
        prompts, source = assign_splits(user), str(config.prompts_file)
    else:
        prompts, source = load_library(), "bundled"
    profile = [p for p in prompts if p.split == "profile"]
    held_out = [p for p in prompts if p.split == "ab"]
    def render(prompt: PromptLike) -> str:
        return format_chat(_messages(prompt)) if format_chat else prompt.text

    def wrap(items: Sequence[PromptLike]) -> list[PromptLike]:
        return [_Formatted(p.id, p.category, render(p)) for p in items]

    acceptance = select(profile, budget.acceptance_per_category, config.seed)
    baseline = select(profile, 1, config.seed + 1)[: budget.baseline_prompts]
    categories = sorted({p.category for p in held_out})
    weights = normalise(dict(config.mix), categories) if config.mix else None
    limit = config.ab_pair_limit  # with --until-decided, prompts for the full check's pairs (the ETA counts them)
    mix = allocate(held_out, weights, ab_prompts_for(limit), config.seed)
    canary = trap_prompt()
    return WorkloadPlan(
        warmup=wrap(WARMUP_PROMPTS), baseline=wrap(baseline), acceptance=wrap(acceptance), ab=wrap(mix.prompts),
        canary=_Formatted(canary.id, canary.category, render(canary)), source=source, mix=mix,
    )
