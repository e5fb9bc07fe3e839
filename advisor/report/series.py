"""Chart series for the report, computed from step evidence (data only; `svg.py` draws them).

Each chart is a plain dict so it lives in the report JSON: `{"id", "kind": "line"|"bar", "x_axis",
"y_axis", "series": [{"key", "points": [[x, y], …]}], "band", "ref_lines", "marker_x", "x_log2"}` for
lines, and `{"id", "kind": "bar", "y_axis", "categories", "values", "low", "high", "y_max"}` for bars.
Axis and series names are keys into the string tables, so one report renders in any language.
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
from advisor.stats import mean_t_interval

Point = list[float]

# Below 5 pairs a t interval spans most of the chart and hides the data; the band starts there.
MIN_PAIRS_FOR_BAND = 5


def num(value: Any) -> float | None:
    """A finite float, or None for anything else (bools, strings, NaN, missing)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _line(chart_id: str, x_axis: str, y_axis: str, series: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    chart = {"id": chart_id, "kind": "line", "x_axis": x_axis, "y_axis": y_axis, "series": series,
             "band": None, "ref_lines": [], "marker_x": None, "x_log2": False}
    chart.update(extra)
    return chart


def decode_chart(ev: BaselineEvidence) -> dict[str, Any] | None:
    """Baseline decode tok/s per measured request."""
    points = [[float(i + 1), r.tok_s] for i, r in enumerate(ev.samples) if num(r.tok_s) is not None]
    if not points:
        return None
    return _line("decode", "request", "tok_s", [{"key": "decode_tok_s", "points": points}])


def acceptance_chart(ev: AcceptanceEvidence) -> dict[str, Any] | None:
    """Acceptance rate per prompt category, with its CI."""
    rows = [(cat, v) for cat, v in ev.per_category.items() if num(v.rate) is not None]
    if not rows:
        return None
    return {"id": "acceptance", "kind": "bar", "y_axis": "acceptance_rate",
            "categories": [cat for cat, _ in rows], "values": [v.rate for _, v in rows],
            "low": [v.ci_low for _, v in rows], "high": [v.ci_high for _, v in rows], "y_max": 1.0}


def canary_chart(ev: AcceptanceEvidence) -> dict[str, Any] | None:
    """The trap canary: tok/s and acceptance of one prompt repeated, relative to its first run."""
    if ev.canary is None:
        return None
    series = []
    for key in ("tok_s", "rate"):
        pairs = [(float(r.i), v) for r in ev.canary.repeats if (v := num(getattr(r, key))) is not None]
        if pairs and pairs[0][1] > 0:
            first = pairs[0][1]
            series.append({"key": f"canary_{key}", "points": [[x, v / first] for x, v in pairs]})
    if not series:
        return None
    refs: list[dict[str, Any]] = [{"y": 1.0, "key": "parity"}]
    if ev.canary.threshold is not None:  # the limit the run was judged by (rules/policy.toml [canary])
        refs.append({"y": ev.canary.threshold, "key": "trap_threshold"})
    return _line("canary", "repeat", "relative_to_first", series, ref_lines=refs)


def verify_chart(ev: VerifyEvidence) -> dict[str, Any] | None:
    """Verify cost T(k)/T(1): measured points beside the model's prediction."""
    series = []
    measured = [[float(p.k), p.ratio] for p in ev.points if num(p.ratio) is not None]
    predicted = [[float(p.k), p.predicted_ratio] for p in ev.points if num(p.predicted_ratio) is not None]
    deep = [[float(p.k), p.ratio] for p in ev.at_user_depth.points if num(p.ratio) is not None] \
        if ev.at_user_depth is not None else []
    for key, pts in (("verify_measured", measured), ("verify_predicted", predicted), ("verify_user_depth", deep)):
        if pts:
            series.append({"key": key, "points": pts})
    if not series:
        return None
    return _line("verify", "k_tokens", "cost_ratio", series, ref_lines=[{"y": 1.0, "key": "parity"}])


def batch_chart(ev: BatchEvidence) -> dict[str, Any] | None:
    """Aggregate tok/s by concurrency with speculation off and on, and the crossover: where the paired CI says
    speculation is clearly slower (a sweep of one run per arm: where its point speedup fell below 1×)."""
    series = []
    for key in ("off_tok_s", "on_tok_s"):
        pts = [[float(lv.concurrency), v] for lv in ev.levels if (v := num(getattr(lv, key))) is not None]
        if pts:
            series.append({"key": f"batch_{key}", "points": pts})
    if not series:
        return None
    paired = any(lv.rounds for lv in ev.levels)
    marker = ev.stops_paying_at if paired else ev.crossover_concurrency
    return _line("batch", "concurrency", "tok_s", series, marker_x=num(marker), x_log2=True)


def pair_log_ratio(pair: PairResult) -> float | None:
    """d = log(ms/token off ÷ on) for one complete A/B pair; None for a failed one."""
    off, on = num(pair.off_ms_per_token), num(pair.on_ms_per_token)
    if off and on and off > 0 and on > 0 and pair.off_error is None and pair.on_error is None:
        return math.log(off / on)
    return None


def ab_chart(ev: ABEvidence) -> dict[str, Any] | None:
    """Per-prompt speedups in run order, with the running geometric mean and its t interval at the run's level.

    The running CI is the plain t interval at each n, for display; the verdict itself uses the
    sequential (Pocock-style) bound, which is wider.
    """
    ds = [d for p in ev.pairs if (d := pair_log_ratio(p)) is not None]
    if not ds:
        return None
    per_prompt = [[float(i + 1), math.exp(d)] for i, d in enumerate(ds)]
    # The band is at the level the run's own interval used; runs saved before it was recorded used the policy's.
    level = ev.ci_level if ev.ci_level is not None else default_policy().ab.ci_level
    running, low, high = [], [], []
    for n in range(1, len(ds) + 1):
        mean = sum(ds[:n]) / n
        running.append([float(n), math.exp(mean)])
        if n >= MIN_PAIRS_FOR_BAND:
            ci = mean_t_interval(ds[:n], level)
            low.append([float(n), math.exp(ci.low)])
            high.append([float(n), math.exp(ci.high)])
    band = {"key": "running_ci", "low": low, "high": high} if low else None
    refs: list[dict[str, Any]] = [{"y": 1.0, "key": "parity"}]
    if ev.margin is not None:  # the decision line the run was judged by (rules/policy.toml [ab])
        refs.append({"y": 1.0 + ev.margin, "key": "bounds"})
    return _line("ab", "pair", "speedup", [{"key": "ab_per_prompt", "points": per_prompt, "dots": True},
                                          {"key": "ab_running", "points": running}], band=band, ref_lines=refs)


def tuner_curve_chart(tune: TuneEvidence, summary: TunerSummary | None = None) -> dict[str, Any] | None:
    """Speedup(k) per method as predicted; the chosen k is marked and, once the A/B measured it, shown as a
    dot with its CI."""
    series: list[dict[str, Any]] = []
    for probe in tune.methods:
        pts = [[float(p.k), p.speedup] for p in probe.curve if num(p.speedup) is not None]
        if pts:
            series.append({"key": f"tuner_predicted:{probe.label}", "points": pts})
    if not series:
        return None
    band = None
    if summary is not None and summary.measured_speedup is not None:
        series.append({"key": "tuner_measured", "points": [[float(summary.k), summary.measured_speedup]],
                       "dots": True})
        if summary.measured_ci_low is not None and summary.measured_ci_high is not None:
            band = {"key": "tuner_measured_ci", "low": [[float(summary.k), summary.measured_ci_low]],
                    "high": [[float(summary.k), summary.measured_ci_high]]}
    marker = float(tune.choice.k) if tune.choice is not None else None
    return _line("tuner_curve", "draft_length", "speedup", series, band=band, marker_x=marker, x_log2=True,
                 marker_key="tuner_chosen", ref_lines=[{"y": 1.0, "key": "parity"}])


def surface_chart(tune: TuneEvidence) -> dict[str, Any] | None:
    """Measured speedup against realised τ for each draft length, and the cost model at the same points."""
    series: list[dict[str, Any]] = []
    for k in sorted({p.k for p in tune.surface}):
        rows = sorted((p for p in tune.surface if p.k == k and p.speedup is not None and p.tau_measured),
                      key=lambda p: p.tau_measured or 0.0)
        measured = [[p.tau_measured, p.speedup] for p in rows]
        model = [[p.tau_measured, p.predicted_speedup] for p in rows if p.predicted_speedup is not None]
        if measured:
            series.append({"key": f"surface_measured:k={k}", "points": measured, "dots": True})
        if model:
            series.append({"key": f"surface_model:k={k}", "points": model})
    if not series:
        return None
    return _line("surface", "tau", "speedup", series, ref_lines=[{"y": 1.0, "key": "parity"}])


_Chart = Callable[[Any], "dict[str, Any] | None"]
CHARTS_BY_TYPE: dict[type, tuple[_Chart, ...]] = {
    BaselineEvidence: (decode_chart,), AcceptanceEvidence: (acceptance_chart, canary_chart),
    VerifyEvidence: (verify_chart,), TuneEvidence: (tuner_curve_chart, surface_chart), BatchEvidence: (batch_chart,),
    ABEvidence: (ab_chart,)}


def charts_for_step(ev: StepEvidence | None) -> list[dict[str, Any]]:
    """All charts a step's evidence supports (none when the data is absent)."""
    if ev is None:
        return []
    return [chart for make in CHARTS_BY_TYPE.get(type(ev), ()) if (chart := make(ev)) is not None]
