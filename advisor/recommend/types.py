"""The recommendation every engine family produces, and what deploy formats render."""

from __future__ import annotations

import shlex
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Recommendation:
    """Engine arguments to add (`argv`), or plain-language `steps` for GUI engines, plus `notes`."""

    engine: str
    argv: tuple[str, ...]
    steps: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def command(self) -> str:
        """The arguments as one shell-quoted string ('' when there are none)."""
        return shlex.join(self.argv)
