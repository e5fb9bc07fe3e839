"""A sentence as data: a catalogue key plus the typed values it names, rendered per language on demand.

The steps, the preflight guards, the session and the perf model say what they saw as a `Message`; the evidence
keeps the key and the values (never the English sentence alone), and every reader renders it in its own
language from the templates (advisor/text/strings_messages.py). So a changed sentence changes both languages in
one place, and no reader has to parse numbers back out of English.

A message with no key is text from outside the catalogue (an engine's own error, a saved run from before
messages were data): it reads as written in every language.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from string import Formatter
from typing import Union

# A value a template names: a number (formatted by the template's own spec, e.g. {tok:.1f}), a word or name
# that reads the same in every language, or a message of its own (a guard's detail inside a failure reason).
Value = Union[int, float, str, "Message"]  # a string forward reference needs Union

PLAIN = ""  # the key of a message that is its own text


@dataclass(frozen=True, slots=True)
class Message:
    """One sentence: `key` in the catalogue and the `values` its templates name; with no key, its `text`."""

    key: str  # a template's key in advisor/text/strings_messages.py (or the catalogue); "" for plain text
    values: Mapping[str, Value] = field(default_factory=dict)  # numbers, words or messages the template names
    text: str = ""  # a plain message's text (a file written before messages were data: its sentence)

    @classmethod
    def plain(cls, text: str) -> Message:
        """Text from outside the catalogue, shown as written in every language."""
        return cls(PLAIN, {}, text)

    @classmethod
    def decode_plain(cls, data: str) -> Message:
        """What an old evidence file's English-only sentence (a plain string) reads back as (the codec's hook)."""
        return cls.plain(data)

    def __hash__(self) -> int:
        return hash((self.key, tuple(sorted((k, v) for k, v in self.values.items())), self.text))

    def __str__(self) -> str:
        return render(self, "en")


def msg(key: str, **values: Value) -> Message:
    """The message `key` with `values` (shorthand for the emitters)."""
    return Message(key, values)


def joined(parts: Sequence[Message]) -> Message:
    """Several messages as one, in order ("a; b; c" in English, "a；b；c" in Chinese); at least one part."""
    out = parts[0]
    for part in parts[1:]:
        out = msg("msg.join", first=out, then=part)
    return out


def as_message(value: Message | str) -> Message:
    """`value` as a message (plain text: one with no key)."""
    return value if isinstance(value, Message) else Message.plain(value)


def render(message: Message | str, lang: str) -> str:
    """`message` in `lang`: its template filled with its values (nested messages rendered in `lang` too); a
    message with no key, or plain text, as written."""
    if isinstance(message, str):
        return message
    if message.key == PLAIN:
        return message.text
    from advisor.text import TABLES  # the catalogue imports this module's users' tables, not this module

    template = TABLES.get(lang, TABLES["en"]).get(message.key) or TABLES["en"].get(message.key)
    if template is None:
        raise KeyError(f"no template for message {message.key!r}")
    values = {k: _shown(v, lang) for k, v in message.values.items()}
    return template.format(**values)


class _Undefined:
    """A number that is not one (NaN, ±inf: an undefined critical value; a saved run stores it as null): shown
    as a dash whatever format spec the template gives it, the same live and read back."""

    def __format__(self, spec: str) -> str:
        return "—"


def _shown(value: Value, lang: str) -> object:
    if isinstance(value, Message):
        return render(value, lang)
    if isinstance(value, float) and not math.isfinite(value):
        return _Undefined()
    return value


def render_all(messages: Sequence[Message | str], lang: str) -> tuple[str, ...]:
    """Each of `messages` in `lang`."""
    return tuple(render(m, lang) for m in messages)


def fields(template: str) -> set[str]:
    """The names a template fills in (`{tok:.1f}` → tok)."""
    return {name for _, name, _, _ in Formatter().parse(template) if name}
