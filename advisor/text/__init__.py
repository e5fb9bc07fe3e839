"""Every sentence a person reads, by language: the string tables and `text(lang, key)`.

The bottom of the stack: measuring code, the CLI, the report and the window all say things, so the catalogue
sits below all of them and imports nothing of the app. Keys and `{placeholders}` match across languages (a test
checks); a key missing from a table falls back to English, then to the key's last part.
"""

from __future__ import annotations

from typing import Any, Literal

from advisor.text import (
    strings_cli,
    strings_cluster,
    strings_en,
    strings_owned,
    strings_progress,
    strings_refusals,
    strings_trust,
    strings_verdict,
    strings_zh,
)

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")
TABLES: dict[str, dict[str, str]] = {"en": {**strings_en.STRINGS, **strings_cli.EN, **strings_progress.EN},
                                     "zh": {**strings_zh.STRINGS, **strings_cli.ZH, **strings_progress.ZH}}
TABLES["en"].update(strings_verdict.EN)  # the verdict's parts: blocking reasons, settings to try
TABLES["zh"].update(strings_verdict.ZH)
TABLES["en"].update(strings_trust.EN)  # messages about what the tool does not trust (bad answers, bad input)
TABLES["zh"].update(strings_trust.ZH)
TABLES["en"].update(strings_refusals.EN)  # what `check` refuses before it starts (docs/refusals.md)
TABLES["zh"].update(strings_refusals.ZH)
TABLES["en"].update(strings_owned.EN)  # what is never overwritten, --resume, runs that stop on a wrong arm
TABLES["zh"].update(strings_owned.ZH)
TABLES["en"].update(strings_cluster.EN)  # what a cluster check says (advisor/cluster/)
TABLES["zh"].update(strings_cluster.ZH)
_EN = TABLES["en"]


def text(lang: str, key: str, **values: Any) -> str:
    """The string `key` in `lang` (English when the language or key is missing), with `values` filled in.

    Unknown keys come back as the key itself: a chart series added by a newer step should still
    render with a readable (if untranslated) label rather than fail.
    """
    table = TABLES.get(lang, _EN)
    template = table.get(key) or _EN.get(key)
    if template is None and ":" in key:
        # a parametrised key, e.g. `series.tuner_predicted:ngram-mod`: the template names its part {arg}
        base, _, arg = key.partition(":")
        if (template := table.get(base) or _EN.get(base)) is not None:
            values = {**values, "arg": arg}
    if template is None:
        return key.split(".", 1)[-1]
    return template.format(**values) if values else template
