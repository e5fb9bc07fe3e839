"""Shared value types for probes: a field that cannot be read carries a typed reason instead of raising."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

UnavailableReason = Literal[
    "no-driver",        # NVIDIA driver / libnvidia-ml not present: a normal state on CPU-only machines
    "no-device",        # driver present but no GPU
    "not-supported",    # the device or driver does not expose this field
    "function-missing", # the bindings or driver are too old for this call
    "permission",       # the OS refused access
    "not-found",        # the thing looked for (file, endpoint, process) is not there
    "unreachable",      # connection refused / timed out
    "bad-response",     # the peer answered with something we could not parse
    "error",            # anything else, with detail
]


@dataclass(frozen=True, slots=True)
class Unavailable:
    """Why a probed field has no value."""

    reason: UnavailableReason
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}" if self.detail else self.reason
