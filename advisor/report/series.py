"""Chart series for the report, computed from step evidence (data only; `svg.py` draws them).

Each chart is a `LineChart` or a `BarChart` of the report tree (advisor/report/tree.py), so it lives in the
report JSON. Axis and series names are keys into the string tables, so one report renders in any language.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from advisor.ab.types import PairResult
from advisor.core.policy import default_policy
from advisor.evidence.kinds import StepEvidence
from advisor.evidence.steps import ABEvidence, AcceptanceEvidence, BaselineEvidence, BatchEvidence, VerifyEvidence
from advisor.evidence.tuner import TuneEvidence, TunerSummary
from advisor.numbers import finite
from advisor.report.tree import Band, BarChart, Chart, LineChart, Point, RefLine, Series
from advisor.stats import mean_t_interval

# Below 5 pairs a t interval spans most of the chart and hides the data; the band starts there.
MIN_PAIRS_FOR_BAND = 5


num = finite  # the report's one "finite number or None"


def _points(pairs: list[tuple[float, float | None]]) -> tuple[Point, ...]:
    """The pairs whose y is a finite number, as chart points."""
    return tuple((x, y) for x, raw in pairs if (y := num(raw)) is not None)


_PARITY = RefLine(1.0, "parity")


def decode_chart(ev: BaselineEvidence) -> LineChart | None:
    """Baseline decode tok/s per measured request."""
    points = _points([(float(i + 1), r.tok_s) for i, r in enumerate(ev.samples)])
    if not points:
        return None
    return LineChart("decode", "line", "request", "tok_s", (Series("decode_tok_s", points),))


def acceptance_chart(ev: AcceptanceEvidence) -> BarChart | None:
    """Acceptance rate per prompt category, with its CI."""
    rows = [(cat, rate, v) for cat, v in ev.per_category.items() if (rate := num(v.rate)) is not None]
    if not rows:
        return None
    return BarChart("acceptance", "bar", "acceptance_rate", categories=tuple(cat for cat, _, _ in rows),
                    values=tuple(rate for _, rate, _ in rows), low=tuple(num(v.ci_low) for _, _, v in rows),
                    high=tuple(num(v.ci_high) for _, _, v in rows), y_max=1.0)


def canary_chart(ev: AcceptanceEvidence) -> LineChart | None:
    """The trap canary: tok/s and acceptance of one prompt repeated, relative to its first run."""
    if ev.canary is None:
        return None
    series = []
    for key in ("tok_s", "rate"):
        pairs = _points([(float(r.i), getattr(r, key)) for r in ev.canary.repeats])
        if pairs and pairs[0][1] > 0:
            first = pairs[0][1]
            series.append(Series(f"canary_{key}", tuple((x, v / first) for x, v in pairs)))
    if not series:
        return None
    refs = [_PARITY]
    if ev.canary.threshold is not None:  # the limit the run was judged by (rules/policy.toml [canary])
        refs.append(RefLine(ev.canary.threshold, "trap_threshold"))
    return LineChart("canary", "line", "repeat", "relative_to_first", tuple(series), ref_lines=tuple(refs))


def verify_chart(ev: VerifyEvidence) -> LineChart | None:
    """Verify cost T(k)/T(1): measured points beside the model's prediction."""
    measured = _points([(float(p.k), p.ratio) for p in ev.points])
    predicted = _points([(float(p.k), p.predicted_ratio) for p in ev.points])
    deep = _points([(float(p.k), p.ratio) for p in ev.at_user_depth.points]) if ev.at_user_depth is not None else ()
    series = tuple(Series(key, pts) for key, pts in (("verify_measured", measured), ("verify_predicted", predicted),
                                                     ("verify_user_depth", deep)) if pts)
    if not series:
        return None
    return LineChart("verify", "line", "k_tokens", "cost_ratio", series, ref_lines=(_PARITY,))


def batch_chart(ev: BatchEvidence) -> LineChart | None:
    """Aggregate tok/s by concurrency with speculation off and on, and the crossover: where the paired CI says
    speculation is clearly slower (a sweep of one run per arm: where its point speedup fell below 1×)."""
    series = []
    for key in ("off_tok_s", "on_tok_s"):
        pts = _points([(float(lv.concurrency), getattr(lv, key)) for lv in ev.levels])
        if pts:
            series.append(Series(f"batch_{key}", pts))
    if not series:
        return None
    paired = any(lv.rounds for lv in ev.levels)
    marker = ev.stops_paying_at if paired else ev.crossover_concurrency
    return LineChart("batch", "line", "concurrency", "tok_s", tuple(series), marker_x=num(marker), x_log2=True)


def pair_log_ratio(pair: PairResult) -> float | None:
    """d = log(ms/token off ÷ on) for one complete A/B pair; None for a failed one."""
    off, on = num(pair.off_ms_per_token), num(pair.on_ms_per_token)
    if off and on and off > 0 and on > 0 and pair.off_error is None and pair.on_error is None:
        return math.log(off / on)
    return None


def ab_chart(ev: ABEvidence) -> LineChart | None:
    """Per-prompt speedups in run order, with the running geometric mean and its t interval at the run's level.

    The running CI is the plain t interval at each n, for display; the verdict itself uses the
    sequential (Pocock-style) bound, which is wider.
    """
    ds = [d for p in ev.pairs if (d := pair_log_ratio(p)) is not None]
    if not ds:
        return None
    per_prompt = tuple((float(i + 1), math.exp(d)) for i, d in enumerate(ds))
    # The band is at the level the run's own interval used; runs saved before it was recorded used the policy's.
    level = ev.ci_level if ev.ci_level is not None else default_policy().ab.ci_level
    running: list[Point] = []
    low: list[Point] = []
    high: list[Point] = []
    for n in range(1, len(ds) + 1):
        mean = sum(ds[:n]) / n
        running.append((float(n), math.exp(mean)))
        if n >= MIN_PAIRS_FOR_BAND:
            ci = mean_t_interval(ds[:n], level)
            low.append((float(n), math.exp(ci.low)))
            high.append((float(n), math.exp(ci.high)))
    band = Band("running_ci", tuple(low), tuple(high)) if low else None
    refs = [_PARITY]
    if ev.margin is not None:  # the decision line the run was judged by (rules/policy.toml [ab])
        refs.append(RefLine(1.0 + ev.margin, "bounds"))
    return LineChart("ab", "line", "pair", "speedup", (Series("ab_per_prompt", per_prompt, dots=True),
                                                      Series("ab_running", tuple(running))),
                     band=band, ref_lines=tuple(refs))


def tuner_curve_chart(tune: TuneEvidence, summary: TunerSummary | None = None) -> LineChart | None:
    """Speedup(k) per method as predicted; the chosen k is marked and, once the A/B measured it, shown as a
    dot with its CI."""
    series: list[Series] = []
    for probe in tune.methods:
        pts = _points([(float(p.k), p.speedup) for p in probe.curve])
        if pts:
            series.append(Series(f"tuner_predicted:{probe.label}", pts))
    if not series:
        return None
    band = None
    if summary is not None and summary.measured_speedup is not None:
        series.append(Series("tuner_measured", ((float(summary.k), summary.measured_speedup),), dots=True))
        if summary.measured_ci_low is not None and summary.measured_ci_high is not None:
            band = Band("tuner_measured_ci", ((float(summary.k), summary.measured_ci_low),),
                        ((float(summary.k), summary.measured_ci_high),))
    marker = float(tune.choice.k) if tune.choice is not None else None
    return LineChart("tuner_curve", "line", "draft_length", "speedup", tuple(series), band=band, marker_x=marker,
                     x_log2=True, marker_key="tuner_chosen", ref_lines=(_PARITY,))


def surface_chart(tune: TuneEvidence) -> LineChart | None:
    """Measured speedup against realised τ for each draft length, and the cost model at the same points."""
    series: list[Series] = []
    for k in sorted({p.k for p in tune.surface}):
        rows = sorted((p for p in tune.surface if p.k == k and p.speedup is not None and p.tau_measured),
                      key=lambda p: p.tau_measured or 0.0)
        measured = _points([(p.tau_measured or 0.0, p.speedup) for p in rows])
        model = _points([(p.tau_measured or 0.0, p.predicted_speedup) for p in rows])
        if measured:
            series.append(Series(f"surface_measured:k={k}", measured, dots=True))
        if model:
            series.append(Series(f"surface_model:k={k}", model))
    if not series:
        return None
    return LineChart("surface", "line", "tau", "speedup", tuple(series), ref_lines=(_PARITY,))


_Chart = Callable[[Any], "Chart | None"]
CHARTS_BY_TYPE: dict[type, tuple[_Chart, ...]] = {
    BaselineEvidence: (decode_chart,), AcceptanceEvidence: (acceptance_chart, canary_chart),
    VerifyEvidence: (verify_chart,), TuneEvidence: (tuner_curve_chart, surface_chart), BatchEvidence: (batch_chart,),
    ABEvidence: (ab_chart,)}


def charts_for_step(ev: StepEvidence | None) -> list[Chart]:
    """All charts a step's evidence supports (none when the data is absent)."""
    if ev is None:
        return []
    return [chart for make in CHARTS_BY_TYPE.get(type(ev), ()) if (chart := make(ev)) is not None]
