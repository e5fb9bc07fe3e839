"""Errors a user can cause (bad file, bad URL, engine down). The CLI prints them without a traceback."""

from __future__ import annotations


class UserError(Exception):
    """A mistake or situation the user can fix; `hint` says how."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint
