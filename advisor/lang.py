"""Which language a person reads: `--lang`, else SPEC_ADVISOR_LANG, else the system locale, else English.

Only two languages ship (en, zh); any Chinese locale (zh_CN, zh_TW, zh-Hans, …) reads Chinese, anything
else English. The POSIX order is followed: LC_ALL overrides LC_MESSAGES, which overrides LANG; LANGUAGE (a
GNU priority list) comes first when set, as gettext does.
"""

from __future__ import annotations

import argparse
import locale
import os
from collections.abc import Iterable, Mapping
from typing import Literal

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")
ENV_OVERRIDE = "SPEC_ADVISOR_LANG"
_LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def from_locale_names(names: Iterable[str]) -> Lang:
    """The first name that says a language decides: 'zh…' → zh; 'C'/'POSIX' and empty names are skipped."""
    for raw in names:
        for name in raw.split(":"):  # LANGUAGE may list several, e.g. "zh_CN:en"
            tag = name.strip().lower().replace("-", "_")
            if not tag or tag.split(".")[0] in ("c", "posix"):
                continue
            return "zh" if tag.startswith("zh") else "en"
    return "en"


def system_language(env: Mapping[str, str] | None = None) -> Lang:
    """The language of the environment (SPEC_ADVISOR_LANG, then the locale variables, then the C library)."""
    env = os.environ if env is None else env
    forced = env.get(ENV_OVERRIDE, "").strip().lower()
    if forced in LANGS:
        return forced
    names = [env.get(v, "") for v in _LOCALE_VARS]
    if not any(n.strip() for n in names) and env is os.environ:
        names.append(locale.getlocale(locale.LC_MESSAGES if hasattr(locale, "LC_MESSAGES") else locale.LC_ALL)[0]
                     or "")
    return from_locale_names(names)


def resolve(choice: str | None) -> Lang:
    """`--lang` as given ('auto' or None: the system language)."""
    return choice if choice in LANGS else system_language()


def add_option(parser: argparse.ArgumentParser, what: str = "language of the output") -> None:
    """`--lang en|zh` on a command; without it the system language decides (read it with `resolve`)."""
    parser.add_argument("--lang", choices=LANGS, default=None,
                        help=f"{what} (default: the system locale, else en; {ENV_OVERRIDE} overrides it)")
