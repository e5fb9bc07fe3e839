"""Every step's evidence type by step id (what `evidence.json` decodes each step's record into)."""

from __future__ import annotations

from collections.abc import Mapping

from advisor.evidence.steps import (
    ABEvidence,
    AcceptanceEvidence,
    BaselineEvidence,
    BatchEvidence,
    PreflightEvidence,
    VerifyEvidence,
)
from advisor.evidence.tuner import TuneEvidence

StepEvidence = (PreflightEvidence | BaselineEvidence | AcceptanceEvidence | VerifyEvidence | TuneEvidence
                | BatchEvidence | ABEvidence)
EVIDENCE_TYPES: Mapping[str, type] = {
    "preflight": PreflightEvidence, "baseline": BaselineEvidence, "acceptance": AcceptanceEvidence,
    "verify": VerifyEvidence, "tune": TuneEvidence, "batch": BatchEvidence, "ab": ABEvidence,
}
