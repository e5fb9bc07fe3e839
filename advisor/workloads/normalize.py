"""Text normalisation and shingling for duplicate detection."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

# Character shingles rather than word shingles: Chinese and Japanese prompts have no spaces between words,
# and in a prompt of a few dozen words one changed word still leaves most 5-character shingles intact.
SHINGLE_CHARS: Final = 5
_SPACES: Final = re.compile(r"\s+")


def normalize(text: str) -> str:
    """NFKC, casefold, drop invisible format characters, punctuation to spaces, collapse whitespace."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    kept = []
    for char in folded:
        kind = unicodedata.category(char)
        if kind == "Cf":  # zero-width spaces/joiners, BOM, bidi marks: invisible, so not a difference
            continue
        kept.append(" " if kind.startswith("P") else char)
    normal = _SPACES.sub(" ", "".join(kept)).strip()
    # A prompt of punctuation alone ("???") would otherwise equal every other such prompt.
    return normal or _SPACES.sub(" ", folded).strip()


def shingles(normal: str) -> frozenset[str]:
    """Overlapping character n-grams of an already normalised text (the whole text when shorter)."""
    if len(normal) <= SHINGLE_CHARS:
        return frozenset({normal})
    return frozenset(normal[i : i + SHINGLE_CHARS] for i in range(len(normal) - SHINGLE_CHARS + 1))
