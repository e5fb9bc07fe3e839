"""Choosing prompts for quick/full runs, and checking that they fit the engine's context."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from advisor.workloads.errors import WorkloadError
from advisor.workloads.model import Prompt


def select(prompts: Iterable[Prompt], n_per_category: int | None, seed: int | str) -> tuple[Prompt, ...]:
    """Up to `n_per_category` prompts from each category (all when None), the same ones for the same seed.

    Categories are interleaved round-robin so a slow drift of the machine (heat, clocks) during the run
    spreads over all categories instead of biasing the ones measured last.
    """
    if n_per_category is not None and n_per_category < 1:
        raise ValueError(f"n_per_category must be at least 1, got {n_per_category}")
    groups: dict[str, list[tuple[int, Prompt]]] = {}
    for position, prompt in enumerate(prompts):
        groups.setdefault(prompt.category, []).append((position, prompt))
    chosen: list[list[Prompt]] = []
    for category, members in groups.items():
        if n_per_category is not None and n_per_category < len(members):
            # A str seed hashes the same in every process (unlike hash()), so runs are reproducible.
            members = random.Random(f"{seed}:{category}").sample(members, n_per_category)
            members.sort(key=lambda item: item[0])
        chosen.append([prompt for _, prompt in members])
    longest = max((len(group) for group in chosen), default=0)
    return tuple(group[k] for k in range(longest) for group in chosen if k < len(group))


def check_context(
    prompts: Iterable[Prompt], n_ctx: int, count_tokens: Callable[[str], int], *, reserve_tokens: int = 0
) -> None:
    """Raise if any prompt's tokens plus `reserve_tokens` (room for the answer) exceed `n_ctx` tokens.

    `count_tokens` should be the engine's own tokenizer (e.g. llama-server /tokenize); a conversation is
    counted over all its turns, without chat-template tokens, so keep some slack in `reserve_tokens`.
    """
    if n_ctx < 1 or reserve_tokens < 0:
        raise ValueError(f"need n_ctx >= 1 and reserve_tokens >= 0, got {n_ctx} and {reserve_tokens}")
    budget = n_ctx - reserve_tokens
    over = [(p.id, n) for p in prompts if (n := count_tokens(p.full_text())) > budget]
    if not over:
        return
    listed = ", ".join(f"{pid} ({n} tokens)" for pid, n in over[:5])
    more = f" and {len(over) - 5} more" if len(over) > 5 else ""
    room = f" (keeping {reserve_tokens} tokens for the answer)" if reserve_tokens else ""
    raise WorkloadError(
        f"{len(over)} prompt(s) do not fit the {n_ctx}-token context{room}: {listed}{more}",
        hint="shorten or remove them, or start the engine with a larger context",
    )
