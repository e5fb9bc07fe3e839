"""OpenAI-style chat records: `{"messages": [{"role": ..., "content": ...}, ...]}`."""

from __future__ import annotations

from typing import cast

from advisor.workloads.errors import WorkloadError
from advisor.workloads.model import ROLES, Message, Role


def parse_messages(value: object, where: str) -> tuple[Message, ...]:
    """Validated turns, with trailing assistant turns removed; `where` names the line for errors."""
    if not isinstance(value, list) or not value:
        raise WorkloadError(f'{where}: "messages" must be a non-empty list of {{role, content}} objects')
    messages = [_parse_message(item, f"{where}, message {n}") for n, item in enumerate(value, start=1)]
    # A fine-tuning style record ends with the reference answer; we want the model to write that turn.
    while messages and messages[-1].role == "assistant":
        messages.pop()
    if not any(m.role == "user" for m in messages):
        raise WorkloadError(f"{where}: the conversation has no user message to answer")
    return tuple(messages)


def last_user_text(messages: tuple[Message, ...]) -> str:
    """Content of the last user turn (callers ensure there is one)."""
    return next(m.content for m in reversed(messages) if m.role == "user")


def _parse_message(item: object, where: str) -> Message:
    if not isinstance(item, dict):
        raise WorkloadError(f'{where}: expected an object with "role" and "content"')
    role = item.get("role")
    if role not in ROLES:
        raise WorkloadError(f"{where}: unknown role {role!r}; expected one of {', '.join(ROLES)}")
    return Message(role=cast(Role, role), content=_content_text(item.get("content"), where))


def _content_text(content: object, where: str) -> str:
    if isinstance(content, str):
        return content
    # The newer list form: [{"type": "text", "text": "..."}, ...]; images and audio cannot be measured here.
    if isinstance(content, list) and content:
        parts = []
        for part in content:
            if not (isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)):
                raise WorkloadError(f"{where}: only text content is supported (found {_describe(part)})")
            parts.append(part["text"])
        return "\n".join(parts)
    raise WorkloadError(f'{where}: "content" must be a string or a list of text parts')


def _describe(part: object) -> str:
    if isinstance(part, dict) and isinstance(part.get("type"), str):
        return f"a {part['type']!r} part"
    return f"a {type(part).__name__}"
