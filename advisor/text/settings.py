"""The drafter's settings as measured, in the reader's language.

The `spec.settings` fact (advisor/facts/from_evidence.py `settings_text`) names each knob and its value and
marks with DEFAULT_MARK the ones the engine chose itself; a reader adds what the mark means in its language,
so the phrase has no English words for a Chinese reader to trip on (it used to end "(n-match: engine default)").
"""

from __future__ import annotations

DEFAULT_MARK = "†"


def settings_phrase(settings: str, lang: str) -> str:
    """`settings` with the legend of its default mark in `lang`, when it has one."""
    from advisor.text import text  # the catalogue's tables import their modules, not this one

    return settings + text(lang, "settings.default_legend") if DEFAULT_MARK in settings else settings
