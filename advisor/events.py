"""Events a session emits while it measures. Subscribers (CLI printer, Qt bridge, recorder) receive them in order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from advisor.evidence.status import StepStatus
from advisor.evidence.time_plan import TimePlan
from advisor.evidence.warnings import WarningCode
from advisor.text.message import Message

if TYPE_CHECKING:
    from advisor.evidence.kinds import StepEvidence


@dataclass(frozen=True, slots=True)
class StepStarted:
    """A step begins; `index` counts from 1 of `total`."""

    step: str
    title: str
    index: int
    total: int


@dataclass(frozen=True, slots=True)
class UnitWork:
    """What one planned unit sends: requests, and the prompt tokens they carry in all (an estimate from the
    prompts' text). The ETA fits seconds to both (advisor/run/eta.py): on a CPU a 250-token prompt costs as
    much as its 64-token reply, on a GPU next to nothing."""

    requests: float
    prompt_tokens: float = 0.0
    # what its requests run on, which sets their pace: speculation off (""), on, one of each (an A/B pair),
    # both on (the choice against the engine's defaults), or already priced in plain requests (advisor/run/eta.py)
    kind: str = ""


@dataclass(frozen=True, slots=True)
class RunPlanned:
    """How many units each step will measure (advisor/run/eta.py), sent once before the first step, with the
    model loads each step will cause (restarts and single-resident swaps) and one load's seconds so far."""

    units: Mapping[str, int]
    restarts: Mapping[str, int] = field(default_factory=dict)
    load_s: float | None = None
    work: Mapping[str, tuple[UnitWork, ...]] = field(default_factory=dict)  # each unit's, per step, in order


@dataclass(frozen=True, slots=True)
class ServerRestarted:
    """A managed server (re)started inside a step before `phase`: a model load of `seconds`, which the ETA
    counts as a restart, not as unit time."""

    phase: str
    seconds: float


@dataclass(frozen=True, slots=True)
class Sample:
    """One point for a live chart: `series` names the curve, `x`/`y` carry units in the series name."""

    step: str
    series: str
    x: float
    y: float
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a step is (`done` of `total` units) and which unit it is on: `detail` names the unit's sentence
    in the string tables (`progress.<detail>`, English and Chinese, advisor/text/strings_progress.py) and
    `values` fill it in, so the CLI and the window say it in the reader's language."""

    step: str
    done: int
    total: int
    detail: str = ""
    values: tuple[tuple[str, str | int | float], ...] = ()

    @classmethod
    def unit(cls, step: str, done: int, total: int, detail: str, **values: str | int | float) -> Progress:
        """`Progress(step, done, total)` on the unit `detail` (a key of the progress strings) with `values`."""
        return cls(step, done, total, detail, tuple(values.items()))


@dataclass(frozen=True, slots=True)
class QualityWarning:
    """Something that weakens the evidence (trap inflation, throttling, noise); rules read these as facts."""

    step: str
    code: WarningCode
    message: Message  # rendered in the reader's language (advisor.text.message.render)


@dataclass(frozen=True, slots=True)
class UnitDone:
    """A whole measurement unit (an A/B pair, one prompt's acceptance, one verify point, one concurrency level)
    the recorder stores at once; `payload` is a dataclass of advisor/evidence/units.py (or a BatchLevel)."""

    step: str
    key: str
    payload: object


@dataclass(frozen=True, slots=True)
class StepDone:
    """A step ended, with its typed evidence (advisor/evidence/steps.py) or the reason it did not run."""

    step: str
    status: StepStatus
    evidence: StepEvidence | None = None
    reason: Message | str | None = None  # a message renders in the reader's language; text is shown as written
    elapsed_s: float = 0.0
    warnings: tuple[QualityWarning, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckSized:
    """A full check's later steps sized to its time budget once the baseline timed a request
    (advisor/run/budget.py): the plan, and the A/B's planned looks at its sized pair limit."""

    plan: TimePlan
    ab_looks: tuple[int, ...]


# what a step emits; the session's last event, SessionDone, carries the verdict (advisor/run/done.py)
Event = (RunPlanned | ServerRestarted | StepStarted | Sample | Progress | QualityWarning | UnitDone | StepDone
         | CheckSized)
