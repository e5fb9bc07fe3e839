"""The canonical report as a frozen typed tree: what `build_report` makes, `load_report` reads back (through the
evidence codec, advisor/evidence/codec.py) and every renderer and the window take.

Field order is the JSON key order. Values that are arbitrary JSON by nature (a fact's value, a step's raw
evidence, a chart's data) are `object` or `Json`; everything a renderer reads by name is a field here, so a
renamed key is a type error, not a silently empty section.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from advisor.decide.blocking import Blocking

Json = object  # a parsed JSON value (dict, list, str, number, bool or None), as written
# "chained": the engine's defaults recommended instead of the choice, their speedup chained from two measured
# ratios (advisor/decide/defaults.py), not measured directly
HeadlineSource = Literal["measured", "chained", "predicted", "prior"]
Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Series:
    """One line (or dots) of a chart; `key` names it in the string tables (`series.<key>`)."""

    key: str
    points: tuple[Point, ...]
    dots: bool = False


@dataclass(frozen=True, slots=True)
class Band:
    """A shaded interval under a line: its lower and upper edge, point for point."""

    key: str
    low: tuple[Point, ...]
    high: tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class RefLine:
    """A horizontal reference (parity, the decision margin, the trap threshold) at `y`."""

    y: float
    key: str


@dataclass(frozen=True, slots=True)
class LineChart:
    """Series against an x axis (advisor/report/series.py makes them, svg.py draws them); axis and series names
    are keys into the string tables, so one report renders in any language."""

    id: str
    kind: Literal["line"]
    x_axis: str
    y_axis: str
    series: tuple[Series, ...]
    band: Band | None = None
    ref_lines: tuple[RefLine, ...] = ()
    marker_x: float | None = None
    x_log2: bool = False
    marker_key: str | None = None  # what the marker means (series.<key>; None: the batch crossover)
    y_from_zero: bool = False


@dataclass(frozen=True, slots=True)
class BarChart:
    """A value per category with its interval (fractions, shown as percentages)."""

    id: str
    kind: Literal["bar"]
    y_axis: str
    categories: tuple[str, ...]
    values: tuple[float, ...]
    low: tuple[float | None, ...]
    high: tuple[float | None, ...]
    y_max: float | None = None


Chart = LineChart | BarChart


@dataclass(frozen=True, slots=True)
class RunInfo:
    """The run the report is about (all None for a report made from facts alone)."""

    status: str | None = None
    started_utc: str | None = None
    evidence_schema_version: int | None = None
    measured_with: str | None = None  # the app version that measured it


@dataclass(frozen=True, slots=True)
class Headline:
    """The one speedup every reader sees: the measured A/B (chained to the engine's defaults when they are
    recommended instead of the choice), else the prediction (advisor/report/headline.py)."""

    source: HeadlineSource | None = None
    speedup: float | None = None      # ×
    ci_low: float | None = None       # ×
    ci_high: float | None = None      # ×
    n_prompts: float | None = None
    level: float | None = None        # the interval's level (a fraction), None when unknown
    claim: str | None = None          # a prediction's claim (faster, slower, cannot-tell)


@dataclass(frozen=True, slots=True)
class Flag:
    """One block of what to run or do: the engine, its arguments as one line, steps for GUI engines, notes."""

    engine: str = ""
    label: str = ""
    command: str = ""
    steps: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TraceRow:
    """One evaluated condition of the rule walk (advisor/decide/evaluate.py Check)."""

    rule: str | None = None
    branch: str | None = None
    fact: str | None = None
    op: str | None = None
    expected: Json = None
    actual: Json = None
    passed: bool | None = None
    outcome: str | None = None   # reason, holds, clear, unknown (None: an older row, judged by `passed`)
    leads_to: str | None = None


VerdictLines = Literal["because", "warnings", "caveats", "alternatives", "assumptions"]


@dataclass(frozen=True, slots=True)
class ReportVerdict:
    """The verdict section: the decision, its reasons in English and Chinese, the flags, the trace."""

    verdict: Literal["ENABLE", "SKIP", "INCONCLUSIVE"]
    predicted_speedup: float | None = None
    prediction_is_prior: bool = False
    because: tuple[str, ...] = ()
    flags: tuple[Flag, ...] = ()
    trace: tuple[TraceRow, ...] = ()
    missing_facts: tuple[str, ...] = ()
    alternatives: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    caveats: tuple[str, ...] = ()
    # the same lists in Chinese, index for index (`lines` picks them)
    because_zh: tuple[str, ...] = ()
    warnings_zh: tuple[str, ...] = ()
    caveats_zh: tuple[str, ...] = ()
    alternatives_zh: tuple[str, ...] = ()
    measured_with: str | None = None
    blocking: tuple[Blocking, ...] = ()
    try_flags: tuple[Flag, ...] = ()  # an INCONCLUSIVE verdict's measured settings, to try
    assumptions: tuple[str, ...] = ()
    assumptions_zh: tuple[str, ...] = ()

    def lines(self, key: VerdictLines, lang: str) -> list[str]:
        """`because`, `warnings`, `caveats` or `alternatives` in `lang`; English when the Chinese list is missing
        or does not match it line for line (an older run)."""
        english: tuple[str, ...] = getattr(self, key)
        local: tuple[str, ...] = getattr(self, f"{key}_zh") if lang == "zh" else ()
        return list(local if len(local) == len(english) and lang == "zh" else english)


@dataclass(frozen=True, slots=True)
class TaskRow:
    """Speedup for one kind of task, or one output-length or depth band (`group`), with its acceptance."""

    category: str
    n_pairs: int = 0
    speedup: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    label: str = "too-few"           # gain, no-gain, unclear, too-few
    acceptance_rate: float | None = None  # accepted ÷ drafted over this kind's requests (ByTask says which)
    drafted: int | None = None       # draft tokens behind that rate: 0 says "no drafts", None "not measured"
    group: str | None = None         # None or "task": a kind of task; "output" / "depth": a band


@dataclass(frozen=True, slots=True)
class ByTask:
    """The per-task rows beside the pooled verdict, and the mix the A/B asked for and got."""

    rows: tuple[TaskRow, ...] = ()
    acceptance_source: str = ""      # "ab": the A/B's spec-on requests; "acceptance": the acceptance step
    mix_requested: Mapping[str, float] = field(default_factory=dict)
    mix_realised: Mapping[str, float] = field(default_factory=dict)
    mix_short: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ResultRow:
    """What one arm measured, pooled (`category` "") or for one kind of task; ms and tok/s."""

    arm: str
    category: str = ""
    n: int = 0
    tok_s_mean: float | None = None
    tok_s_sd: float | None = None
    ttft_p50_ms: float | None = None
    ttft_p99_ms: float | None = None
    tpot_p50_ms: float | None = None
    tpot_p99_ms: float | None = None
    acceptance: float | None = None


@dataclass(frozen=True, slots=True)
class Results:
    """The per-arm table and where its requests came from (ab, ab_single or steps)."""

    source: str = "ab"
    rows: tuple[ResultRow, ...] = ()


@dataclass(frozen=True, slots=True)
class ReconcileSection:
    """The perf model's prediction for the measured setup beside the A/B (× and ms); None where not known."""

    predicted_speedup: float | None = None
    measured_speedup: float | None = None
    relative_error: float | None = None
    gamma: int | None = None
    alpha: float | None = None
    tokens_per_step: float | None = None
    verify_ratio: float | None = None
    draft_cost_ratio: float | None = None
    overhead_ratio: float | None = None
    plain_step_ms: float | None = None
    priors: tuple[str, ...] = ()     # what the model assumed for facts not given, in English
    priors_zh: tuple[str, ...] = ()  # the same in Chinese (absent in a report made before they were data)


@dataclass(frozen=True, slots=True)
class TunerMethod:
    """One method the tuner probed: its best draft length and predicted speedup (×), or why it was not probed."""

    method: str
    label: str = ""
    n_match: int | None = None
    p_min: float | None = None
    best_k: int | None = None
    best_speedup: float | None = None
    skipped: str = ""


@dataclass(frozen=True, slots=True)
class TunerSection:
    """The tuner's choice, predicted beside measured (×), every method's best, its curve and surface charts and
    the τ each draft length needs to break even."""

    method: str
    k: int
    command: str = ""
    applied: bool = False
    predicted_speedup: float | None = None
    measured_speedup: float | None = None
    measured_ci_low: float | None = None
    measured_ci_high: float | None = None
    prediction_rel_err: float | None = None
    vs_default_speedup: float | None = None
    vs_default_ci_low: float | None = None
    vs_default_ci_high: float | None = None
    default_command: str = ""
    methods: tuple[TunerMethod, ...] = ()
    n_match: int | None = None
    p_min: float | None = None
    default_n_match: int | None = None
    default_p_min: float | None = None
    per_category: Mapping[str, float | None] = field(default_factory=dict)
    breakeven_tau: Mapping[str, float | None] = field(default_factory=dict)  # draft length → τ
    surface_model_rel_err_median: float | None = None
    overhead: float | None = None
    overhead_fitted: float | None = None
    overhead_se: float | None = None
    speed_factor: float | None = None
    charts: tuple[Chart, ...] = ()


@dataclass(frozen=True, slots=True)
class StepNote:
    """A step's quality warning: its code and its sentence."""

    code: str
    message: str
    message_zh: str = ""  # the same in Chinese ("" in a report made before warnings were data)

    def text(self, lang: str) -> str:
        """The sentence in `lang` (English where no translation was kept)."""
        return self.message_zh if lang == "zh" and self.message_zh else self.message


@dataclass(frozen=True, slots=True)
class GuardRow:
    """A validity guard of a step (None: it could not be checked, which is not a failure)."""

    name: str
    passed: bool | None = None
    detail: str = ""
    detail_zh: str = ""  # the same in Chinese ("" in an older report)

    def text(self, lang: str) -> str:
        """The detail in `lang` (English where no translation was kept)."""
        return self.detail_zh if lang == "zh" and self.detail_zh else self.detail


@dataclass(frozen=True, slots=True)
class StepSummary:
    """One step: status, reason, seconds, warnings, its scalar results, guards, charts and raw evidence."""

    id: str
    status: str
    reason: str | None = None
    reason_zh: str | None = None  # the same in Chinese (None in an older report)
    elapsed_s: float | None = None
    warnings: tuple[StepNote, ...] = ()
    values: Mapping[str, Json] = field(default_factory=dict)
    guards: tuple[GuardRow, ...] = ()
    charts: tuple[Chart, ...] = ()
    evidence: Mapping[str, Json] = field(default_factory=dict)

    def reason_in(self, lang: str) -> str | None:
        """Why the step failed or was skipped, in `lang` (English where no translation was kept)."""
        return self.reason_zh if lang == "zh" and self.reason_zh else self.reason


@dataclass(frozen=True, slots=True)
class Report:
    """The whole report (schema `report_schema_version`)."""

    report_schema_version: int
    app_version: str
    created_utc: str
    run_id: str | None
    run: RunInfo
    includes_prompts: bool
    headline: Headline
    verdict: ReportVerdict
    by_task: ByTask = field(default_factory=ByTask)
    results: Results | None = None
    tuner: TunerSection | None = None
    reconciliation: ReconcileSection | None = None
    environment: Mapping[str, Mapping[str, Json]] = field(default_factory=dict)
    steps: tuple[StepSummary, ...] = ()
    facts: Mapping[str, Json] = field(default_factory=dict)
    prompts: Mapping[str, Json] | None = None        # only when the user asked for them
