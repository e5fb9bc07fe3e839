"""Cheap checks on generated text: degenerate repetition loops make an arm look fast for the wrong reason."""

from __future__ import annotations

import hashlib


def repetition_loop(text: str, *, min_repeats: int = 4, max_period_words: int = 12) -> bool:
    """True when the text ends in one short word sequence repeated at least `min_repeats` times.

    A model stuck in a loop copies itself, which n-gram drafting accepts almost perfectly; such a request
    would inflate the spec-on arm (reliability.md §4.1, a published "fastest arm" that was a loop).
    """
    words = text.split()
    for period in range(1, max_period_words + 1):
        span = period * min_repeats
        if len(words) < span:
            break
        tail = words[-span:]
        unit = tail[:period]
        if all(tail[i] == unit[i % period] for i in range(span)):
            return True
    return False


def text_digest(text: str) -> str:
    """Short stable hash of an output, so equivalence can be checked without storing the text."""
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]
