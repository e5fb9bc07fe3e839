"""How a step and a whole check ended: the words the evidence stores and every event names."""

from __future__ import annotations

from typing import Literal

StepStatus = Literal["done", "skipped", "failed", "aborted"]
SessionStatus = Literal["complete", "aborted", "failed"]
