"""Speculative methods: one vocabulary for the names people and engines use, and what kind of drafter each is.

The kind matters twice: for the cost of drafting (an n-gram lookup is nearly free, a draft model is not) and
for memory across requests (n-gram and lookup methods keep tables that remember earlier text; model-based
drafters have no cross-request memory, so the repeated-prompt trap cannot reach them).
"""

from __future__ import annotations

from typing import Literal

Family = Literal["ngram", "draft", "eagle3", "mtp", "medusa", "dflash", "dspark"]

_NGRAM_PREFIXES = ("ngram",)
_LOOKUP_NAMES = frozenset({"prompt-lookup", "lookup", "suffix", "ngram"})
_EAGLE = frozenset({"eagle", "eagle3", "draft-eagle3"})
_MTP = frozenset({"mtp", "draft-mtp", "nextn"})
_MEDUSA = frozenset({"medusa", "mlp_speculator", "mlp-speculator"})


def family(method: str) -> Family:
    """The drafter family of a method name (`ngram-mod` → ngram, `draft-eagle3` → eagle3, … else draft)."""
    m = method.lower().strip()
    if m.startswith(_NGRAM_PREFIXES) or m in _LOOKUP_NAMES:
        return "ngram"
    if m in _EAGLE:
        return "eagle3"
    if m in _MTP:
        return "mtp"
    if m in _MEDUSA:
        return "medusa"
    if m.removeprefix("draft-") in ("dflash", "dspark"):
        return "dflash" if m.endswith("dflash") else "dspark"
    return "draft"


def is_cache_based(method: str) -> bool:
    """True for methods whose engine keeps drafting tables across requests (n-gram, lookup, suffix)."""
    return family(method) == "ngram"

