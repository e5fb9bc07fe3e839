"""Quality-warning codes: one closed set that every step emits and every reader (facts, report, UI) reads.

The values are the strings schema-1 evidence files already carry, so old runs still load. A code that a
reader looks for but no step emits cannot exist: readers name members of this enum, not strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from advisor.text.message import Message


class WarningCode(StrEnum):
    """Why a step's evidence is weaker than it looks."""

    # preflight guards (the GPU index, when there is one, is in the message)
    GUARD_GPU = "guard-gpu"
    GUARD_GPU_OTHER_PROCESSES = "guard-gpu-other-processes"
    GUARD_GPU_THROTTLE = "guard-gpu-throttle"
    GUARD_GPU_VRAM_FREE = "guard-gpu-vram-free"
    GUARD_HOST_LOAD = "guard-host-load"
    CONTENDED = "contended"  # speculation-off decode fell far below the baseline mid-check (advisor/run/contention.py)
    STEP_OVERRUN = "step-overrun"  # a step ran far past its planned seconds (advisor/run/overrun.py)
    GUARD_POWER = "guard-power"
    GUARD_SPEC_OFF = "guard-spec-off"
    GUARD_SPEC_ON = "guard-spec-on"
    GUARD_DRAFT_VRAM = "guard-draft-vram"
    ENGINE_THREADS = "engine-threads"  # fewer engine threads: other work held cores at the start (arms/threads.py)
    MODEL_FLAGS = "model-flags"  # options the model file needed: a chat template, --swa-full (arms/model_flags.py)
    DRAFT_ON_CPU = "draft-on-cpu"  # no GPU, no room next to the target, or -ngld 0 (advisor/arms/draft.py)
    # baseline
    NO_DATA = "no-data"
    NOISY = "noisy"
    NO_ROOFLINE = "no-roofline"
    # acceptance and its canary
    NO_DRAFTS = "no-drafts"
    LOW_ACCEPTANCE = "low-acceptance"
    TRAP_INFLATION = "trap-inflation"
    # verify
    CACHE_MISS = "cache-miss"
    # batch
    FAILURES = "failures"
    # A/B guards (advisor/ab/guards.py names, prefixed) and its early stop
    AB_MIN_PAIRS = "guard-min-pairs"
    AB_SPREAD = "guard-spread"
    AB_SKEW = "guard-skew"
    AB_MEDIAN_AND_TOTAL = "guard-median-and-total"
    AB_SLOW_PROMPTS = "guard-slow-prompts"
    AB_SENSITIVITY = "guard-sensitivity"
    AB_CV_OFF = "guard-cv-off"
    AB_ORDER_BALANCE = "guard-order-balance"
    AB_ORDER_INTERACTION = "guard-order-interaction"
    AB_DRIFT = "guard-drift"
    AB_ARM_OUTLIERS = "guard-arm-outliers"
    AB_FAILURES = "guard-failures"
    AB_REPETITION_LOOPS = "guard-repetition-loops"
    AB_THROTTLING = "guard-throttling"
    AB_OUTPUTS_DIFFER = "guard-outputs-differ"
    DIVERGENCE_UNCHECKED = "divergence-unchecked"  # the engine gave no token probabilities to classify with
    AB_STATISTICS = "guard-statistics"
    STOPPED = "stopped"
    ARM_DIED = "arm-died"

    @classmethod
    def for_guard(cls, name: str) -> WarningCode:
        """The code of a failed guard named `name` (an A/B guard, or a preflight guard such as gpu0-throttle)."""
        base = name
        if name.startswith("gpu") and name[3:4].isdigit():
            base = "gpu-" + name.split("-", 1)[1]  # gpu0-throttle → gpu-throttle
        return cls(f"guard-{base}")


# A trap inside the A/B itself: the ON arm ran faster when it ran second. (The canary's TRAP_INFLATION is a
# finding about the engine; rules/measurement-validity.toml decides when it can reach the A/B.)
TRAP_CODES = frozenset({WarningCode.AB_ORDER_INTERACTION})
# GPU clocks were held down during measurement.
THROTTLE_CODES = frozenset({WarningCode.GUARD_GPU_THROTTLE, WarningCode.AB_THROTTLING})


@dataclass(frozen=True, slots=True)
class StepWarning:
    """One quality warning of one step: its code and what it says, as a catalogue key and values (an older
    file's English sentence reads back as a message with no key, shown as written)."""

    code: WarningCode
    message: Message
