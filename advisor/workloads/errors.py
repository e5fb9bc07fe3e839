"""The error type for prompt files and prompt sets the measurement cannot use."""

from __future__ import annotations

from advisor.errors import UserError


class WorkloadError(UserError):
    """A prompt file or prompt set is unusable; the message names the file, line or prompts at fault."""
