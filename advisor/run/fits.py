"""Prompts that cannot fit a slot's context are found before the first measurement, not as failed requests.

A llama-server slot holds `n_ctx` tokens (its `/props` `default_generation_settings.n_ctx`): the prompt and the
answer together. A prompt longer than that minus the answer would be cut or refused mid-step, so the check
stops before measuring, naming the longest. Counting is cheap: a prompt whose UTF-8 bytes already fit is never
sent to the tokenizer (every token of a byte-level or byte-fallback vocabulary covers at least one byte), and
only the rest are counted by the engine's own tokenizer (`/tokenize`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

# Tokens kept beyond the answer: the BOS and end-of-turn markers the server adds at request time, which the
# rendered text does not count (add_special is off when counting).
ANSWER_SLACK = 8


@dataclass(frozen=True, slots=True)
class TooLong:
    """The prompts that do not fit: how many, and the longest one's token count."""

    count: int
    longest_tokens: int
    room: int           # tokens a prompt may have: n_ctx − answer − slack


def too_long(texts: Iterable[str], n_ctx: int, answer_tokens: int,
             count_tokens: Callable[[str], int]) -> TooLong | None:
    """None when every text fits a slot of `n_ctx` tokens beside an `answer_tokens` answer."""
    room = n_ctx - answer_tokens - ANSWER_SLACK
    over: list[int] = []
    for text in dict.fromkeys(texts):  # each distinct text once
        if len(text.encode("utf-8", "surrogatepass")) <= room:
            continue  # fewer bytes than room: fewer tokens too
        if (n := count_tokens(text)) > room:
            over.append(n)
    return TooLong(len(over), max(over), room) if over else None
