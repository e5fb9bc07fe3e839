"""Prompt workloads: the bundled library, the user's own prompts, de-duplication and selection."""

from __future__ import annotations

from advisor.workloads.bundled import load_library
from advisor.workloads.dedupe import NEAR_DUPLICATE_JACCARD, DedupeResult, Dropped, dedupe
from advisor.workloads.errors import WorkloadError
from advisor.workloads.loaders import load_user_prompts
from advisor.workloads.model import (
    CATEGORIES,
    MIN_DISTINCT_PROMPTS,
    Category,
    Message,
    Prompt,
    Split,
)
from advisor.workloads.sampling import check_context, select
from advisor.workloads.splits import assign_splits, split_for_position
from advisor.workloads.trap import trap_prompt

__all__ = [
    "CATEGORIES",
    "MIN_DISTINCT_PROMPTS",
    "NEAR_DUPLICATE_JACCARD",
    "Category",
    "DedupeResult",
    "Dropped",
    "Message",
    "Prompt",
    "Split",
    "WorkloadError",
    "assign_splits",
    "check_context",
    "dedupe",
    "load_library",
    "load_user_prompts",
    "select",
    "split_for_position",
    "trap_prompt",
]
