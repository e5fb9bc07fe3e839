"""The UI string tables: same keys and placeholders in English and Chinese; lookups fall back sanely."""

from __future__ import annotations

import string

from ui import strings


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_tables_have_identical_keys() -> None:
    assert set(strings.EN) == set(strings.ZH)


def test_placeholders_match_per_key() -> None:
    mismatched = [k for k in strings.EN if _fields(strings.EN[k]) != _fields(strings.ZH[k])]
    assert mismatched == []


def test_no_empty_strings() -> None:
    assert [k for t in (strings.EN, strings.ZH) for k, v in t.items() if not v.strip()] == []


def test_tr_switches_language_and_fills_values() -> None:
    strings.set_language("zh")
    assert strings.tr("nav.history") == "历史"
    assert "1.50×" in strings.tr("verdict.speedup", s="1.50×")
    strings.set_language("xx")  # unknown codes fall back to English
    assert strings.language() == "en"
    assert strings.tr("nav.history") == "History"


def test_unknown_key_shows_the_key() -> None:
    assert strings.tr("no.such.key") == "no.such.key"


def test_every_step_has_a_name_in_both_languages() -> None:
    from advisor.config import ALL_STEPS

    for step in ("preflight", *ALL_STEPS):
        assert f"step.{step}" in strings.EN and f"step.{step}" in strings.ZH, step
