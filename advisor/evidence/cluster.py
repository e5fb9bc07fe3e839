"""How a cluster check ran its arms: the InferenceServices measured, the mode, and every rollout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ClusterMode = Literal["twin", "windows"]


@dataclass(frozen=True, slots=True)
class ClusterRollout:
    """One pod the check waited for before a phase: which service, at which generation, how long to Ready."""

    arm: str                    # off | on
    before: str                 # the phase it was rolled out for (start, acceptance, canary, ab, …)
    inference_service: str      # NAMESPACE/NAME
    generation: int             # the InferenceService's metadata.generation the pod runs
    pod: str
    seconds: float              # from the change (patch, pod delete, create) to the pod Ready
    reason: str                 # create | fresh | swap | restore


@dataclass(frozen=True, slots=True)
class ClusterArm:
    """One arm as the cluster serves it."""

    arm: str                    # off | on
    inference_service: str      # NAMESPACE/NAME
    ours: bool                  # a twin spec-advisor created (and deletes), not the user's service
    speculative_decoding: str   # the arm's spec.speculativeDecoding as JSON ("" when none)
    extra_args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ClusterRecord:
    """The cluster side of a check on an LLMKube InferenceService."""

    original: str               # NAMESPACE/NAME the user named
    original_generation: int    # its metadata.generation before the check
    mode: ClusterMode           # twin: a spec-on copy beside it; windows: the one service patched in turns
    reason: str                 # why this mode, in words
    spec_field: bool            # the cluster's CRD has spec.speculativeDecoding (else spec.extraArgs)
    arms: tuple[ClusterArm, ...] = ()
    rollouts: tuple[ClusterRollout, ...] = ()
