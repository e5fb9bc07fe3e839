"""Value types for prompts: what a measurement step sends to the engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Category = Literal[
    "code", "chat", "json", "summarization", "translation", "math", "creative", "editing", "refactor"
]
CATEGORIES: Final[tuple[Category, ...]] = (
    "code",
    "chat",
    "json",
    "summarization",
    "translation",
    "math",
    "creative",
    "editing",
    "refactor",
)

# "profile" feeds the acceptance step, "ab" is held out for the A/B so the A/B never replays a prompt the
# engine has already seen (reliability.md §4.4); "canary" is the trap prompt, kept apart from both.
Split = Literal["profile", "ab", "canary"]
LibrarySplit = Literal["profile", "ab"]
Source = Literal["library", "user", "canary"]
Role = Literal["system", "developer", "user", "assistant", "tool"]
ROLES: Final[tuple[Role, ...]] = ("system", "developer", "user", "assistant", "tool")

# Category given to user prompts whose file does not name one.
USER_CATEGORY: Final = "user"
# Fewer distinct prompts than this cannot support a verdict (reliability.md §4.4, "Require ≥ 20").
MIN_DISTINCT_PROMPTS: Final = 20


@dataclass(frozen=True, slots=True)
class Message:
    """One chat turn, OpenAI style."""

    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class Prompt:
    """One prompt. `category` is a library `Category` or a user label; `text` is the last user turn when
    `messages` holds a whole conversation."""

    id: str
    category: str
    text: str
    split: Split
    source: Source
    messages: tuple[Message, ...] | None = None

    def full_text(self) -> str:
        """Everything the engine reads: all turns for a conversation, else `text`."""
        if self.messages is None:
            return self.text
        return "\n".join(m.content for m in self.messages)
