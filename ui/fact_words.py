"""A fact's name as a person reads it: its meaning from the facts table (advisor/facts/listing.py, the one behind
`decide --list-facts`), in the window's language, with the name the rules use kept beside it."""

from __future__ import annotations

from functools import cache

from advisor.facts.listing import FactRow, fact_rows


@cache
def _rows() -> dict[str, FactRow]:
    return {row.name: row for row in fact_rows()}


def meaning(name: str, lang: str) -> str:
    """What the fact means in `lang` ("" for a name the table does not know)."""
    row = _rows().get(name)
    return row.meaning_in(lang) if row is not None else ""


def fact_words(name: str, lang: str) -> str:
    """The meaning first, then the name (for `decide --facts`); the name alone when the table does not know it."""
    words = meaning(name, lang)
    return f"{words} ({name})" if words else name
