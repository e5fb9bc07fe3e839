"""Remove secrets (API keys, bearer tokens, passwords) before anything is stored, logged or rendered.

Keys never belong in the run history, a report or a log (reliability.md §6.2): a user shares a report
to ask for help and must not leak the key of their remote endpoint with it. Redaction works on
whole structures (evidence, config, facts, verdicts) and on free text (log lines, command lines).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from probes.engines.urls import redact_url_userinfo

MASK = "[REDACTED]"

# Key words whose *value* is a secret. Matched against the words of a key ("X-Api-Key" → x, api, key),
# never as substrings: `max_tokens`, `depth_tokens` and `time_to_first_token_ms` are measurements.
_SECRET_WORDS = frozenset({"password", "passwd", "passphrase", "secret", "authorization", "cookie", "apikey"})
_SECRET_KEYS = frozenset(
    {"token", "api_key", "access_token", "refresh_token", "auth_token", "bearer_token", "id_token",
     "hf_token", "api_token", "private_key", "client_secret", "credentials", "auth", "x_api_key"}
)
_SECRET_FLAGS = re.compile(r"^--?(api[-_]?key|token|hf[-_]token|password|secret|auth(orization)?)$", re.I)

_TEXT_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # `Authorization: Bearer abc…` and bare `Bearer abc…`
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{4,}"), r"\1 " + MASK),
    # OpenAI-style and look-alike keys (sk-…, sk-proj-…), Hugging Face and GitHub tokens
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"), MASK),
    (re.compile(r"\bhf_[A-Za-z0-9]{10,}"), MASK),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{10,}"), MASK),
    # `--api-key=…`, `api_key=…` in URLs, command lines and config dumps
    (re.compile(r"(?i)\b((?:--?)?(?:api[-_]?key|access[-_]?token|auth[-_]?token|password|secret))([=:]\s*)([^\s&\"',;]+)"),
     r"\1\2" + MASK),
    # a bare `token` only with `=` (URL queries, flags): "first token: 12 ms" in a log is a measurement
    (re.compile(r"(?i)\b(--?token|token)(=)([^\s&\"',;]+)"), r"\1\2" + MASK),
)


def _key_words(key: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def is_secret_key(key: str) -> bool:
    """True when a mapping key names a secret value (`api_key`, `Authorization`, `hf_token`, …)."""
    words = _key_words(key)
    if not words:
        return False
    joined = "_".join(words)
    if joined in _SECRET_KEYS or any(w in _SECRET_WORDS for w in words):
        return True
    if joined.endswith("_token") and words[0] in {"access", "refresh", "auth", "bearer", "api", "session"}:
        return True
    return "api" in words and "key" in words


def redact_text(text: str) -> str:
    """Mask secret-looking substrings (bearer tokens, sk-… keys, key=value pairs, URL user-info)."""
    # `http://KEY@host` and `http://user:KEY@host`: engine URLs carry API keys this way (probes/engines/urls.py)
    text = redact_url_userinfo(text)
    for pattern, replacement in _TEXT_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact(obj: Any) -> Any:
    """A deep copy of `obj` with secrets masked; mappings become dicts, tuples/lists become lists.

    Values under secret keys are replaced by `[REDACTED]` (numbers, booleans and None are kept: they
    are never credentials and masking them would hide facts like `auth: false`). In sequences, the
    item after a flag such as `--api-key` is masked, so launched command lines are safe to show.
    """
    if isinstance(obj, Mapping):
        out: dict[str, Any] = {}
        for key, value in obj.items():
            clean_key = redact_text(str(key))
            if is_secret_key(str(key)) and not _is_harmless_scalar(value):
                out[clean_key] = MASK
            else:
                out[clean_key] = redact(value)
        return out
    if isinstance(obj, list | tuple):
        items: list[Any] = []
        mask_next = False
        for item in obj:
            if mask_next and isinstance(item, str):
                items.append(MASK)
            else:
                items.append(redact(item))
            mask_next = isinstance(item, str) and bool(_SECRET_FLAGS.match(item))
        return items
    if isinstance(obj, str):
        return redact_text(obj)
    if isinstance(obj, bytes):
        return redact_text(obj.decode("utf-8", "replace"))
    return obj


def _is_harmless_scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float)


class RedactingFilter(logging.Filter):
    """A logging filter that masks secrets in the final message (install it on handlers)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact_text(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            # Tracebacks print the exception text; keep the type but drop a message that leaks.
            exc = record.exc_info[1]
            if redact_text(str(exc)) != str(exc):
                record.exc_text = f"{type(exc).__name__}: {redact_text(str(exc))}"
                record.exc_info = None
        return True


def install_log_redaction(logger: logging.Logger | None = None) -> None:
    """Add `RedactingFilter` to every handler of `logger` (the root logger by default)."""
    target = logger or logging.getLogger()
    for handler in target.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
