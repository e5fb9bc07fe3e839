"""Every sentence a person reads, by language: the string tables and `text(lang, key)`.

Near the bottom of the stack: measuring code, the CLI, the report and the window all say things, so the catalogue
sits below all of them; it reads only the policy, for the interval levels its sentences name. Keys and
`{placeholders}` match across languages (a test checks); a key missing from a table falls back to English, then to
the key's last part.
"""

from __future__ import annotations

from typing import Any, Literal

from advisor.text import (
    strings_cli,
    strings_cluster,
    strings_en,
    strings_messages,
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
TABLES["en"].update(strings_messages.EN)  # what measuring code says as messages (advisor/text/message.py)
TABLES["zh"].update(strings_messages.ZH)
_EN = TABLES["en"]


# Placeholders that name an interval's level ("95%"), each filled from the policy unless the caller passes the
# level a run actually used (a report of an older run, a policy override): never a number written into a string.
LEVEL_PLACEHOLDERS: dict[str, str] = {"ci": "ab.ci_level", "batch_ci": "batch.ci_level",
                                      "acc_ci": "acceptance.ci_level"}


def percent(level: float) -> str:
    """A level as a sentence says it: 0.95 → "95%", 0.975 → "97.5%"."""
    return f"{level * 100:.1f}".rstrip("0").rstrip(".") + "%"


def _levels(template: str, values: dict[str, Any]) -> dict[str, Any]:
    missing = [name for name in LEVEL_PLACEHOLDERS if "{" + name + "}" in template and name not in values]
    if not missing:
        return values
    from advisor.core.policy import default_policy  # lazy: the catalogue loads without the rule files

    policy = default_policy()
    return {**values, **{name: percent(float(policy.value(LEVEL_PLACEHOLDERS[name]))) for name in missing}}  # type: ignore[arg-type]


def text(lang: str, key: str, **values: Any) -> str:
    """The string `key` in `lang` (English when the language or key is missing), with `values` filled in.

    Unknown keys come back as the key itself: a chart series added by a newer step should still
    render with a readable (if untranslated) label rather than fail. A level placeholder ({ci}, {batch_ci},
    {acc_ci}) not given is the policy's.
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
    values = _levels(template, values)
    return template.format(**values) if values else template
