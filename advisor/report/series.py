"""Chart series for the report, computed from step evidence (data only; `svg.py` draws them).

Each chart is a plain dict so it lives in the report JSON: `{"id", "kind": "line"|"bar", "x_axis",
"y_axis", "series": [{"key", "points": [[x, y], …]}], "band", "ref_lines", "marker_x", "x_log2"}` for
lines, and `{"id", "kind": "bar", "y_axis", "categories", "values", "low", "high", "y_max"}` for bars.
Axis and series names are keys into the string tables, so one report renders in any language.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

Point = list[float]

# Two-sided 95% Student t quantiles for df = 1..30; beyond that the normal 1.96 is within 2%.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
         2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
         2.052, 2.048, 2.045, 2.042)
# Below 5 pairs a t interval spans most of the chart and hides the data; the band starts there.
MIN_PAIRS_FOR_BAND = 5
# The trap canary warns above this inflation (MLPerf TEST04 style, DESIGN.md §4 step 2).
TRAP_THRESHOLD = 1.10


def num(value: Any) -> float | None:
    """A finite float, or None for anything else (bools, strings, NaN, missing)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _m(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _seq(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else ()


def _line(chart_id: str, x_axis: str, y_axis: str, series: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    chart = {"id": chart_id, "kind": "line", "x_axis": x_axis, "y_axis": y_axis, "series": series,
             "band": None, "ref_lines": [], "marker_x": None, "x_log2": False}
    chart.update(extra)
    return chart


def decode_chart(ev: Mapping[str, Any]) -> dict[str, Any] | None:
    """Baseline decode tok/s per measured request."""
    points: list[Point] = []
    for i, sample in enumerate(_seq(ev.get("samples"))):
        value = num(sample) if not isinstance(sample, Mapping) else (
            num(sample.get("decode_tok_s")) or num(sample.get("tok_s")))
        if value is None and isinstance(sample, Mapping) and (ms := num(sample.get("ms_per_token"))):
            value = 1000.0 / ms if ms > 0 else None
        if value is not None:
            points.append([float(i + 1), value])
    if not points:
        return None
    return _line("decode", "request", "tok_s", [{"key": "decode_tok_s", "points": points}])


def acceptance_chart(ev: Mapping[str, Any]) -> dict[str, Any] | None:
    """Acceptance rate per prompt category, with its CI."""
    per_category = _m(ev.get("per_category"))
    rows = [(str(cat), _m(v)) for cat, v in per_category.items() if num(_m(v).get("rate")) is not None]
    if not rows:
        return None
    return {"id": "acceptance", "kind": "bar", "y_axis": "acceptance_rate",
            "categories": [cat for cat, _ in rows], "values": [num(v.get("rate")) for _, v in rows],
            "low": [num(v.get("ci_low")) for _, v in rows], "high": [num(v.get("ci_high")) for _, v in rows],
            "y_max": 1.0}


def canary_chart(ev: Mapping[str, Any]) -> dict[str, Any] | None:
    """The trap canary: tok/s and acceptance of one prompt repeated, relative to its first run."""
    repeats = [_m(r) for r in _seq(_m(ev.get("canary")).get("repeats"))]
    series = []
    for key in ("tok_s", "rate"):
        values = [(num(r.get("i")), num(r.get(key))) for r in repeats]
        pairs = [(i if i is not None else float(n + 1), v) for n, (i, v) in enumerate(values) if v is not None]
        if pairs and pairs[0][1] > 0:
            first = pairs[0][1]
            series.append({"key": f"canary_{key}", "points": [[x, v / first] for x, v in pairs]})
    if not series:
        return None
    return _line("canary", "repeat", "relative_to_first", series,
                 ref_lines=[{"y": 1.0, "key": "parity"}, {"y": TRAP_THRESHOLD, "key": "trap_threshold"}])


def verify_chart(ev: Mapping[str, Any]) -> dict[str, Any] | None:
    """Verify cost T(k)/T(1): measured points beside the model's prediction."""
    points = [_m(p) for p in _seq(ev.get("points"))]
    series = []
    for key, field in (("verify_measured", "ratio"), ("verify_predicted", "predicted_ratio")):
        pts = [[k, r] for p in points if (k := num(p.get("k"))) is not None and (r := num(p.get(field))) is not None]
        if pts:
            series.append({"key": key, "points": pts})
    if not series:
        return None
    return _line("verify", "k_tokens", "cost_ratio", series, ref_lines=[{"y": 1.0, "key": "parity"}])


def batch_chart(ev: Mapping[str, Any]) -> dict[str, Any] | None:
    """Aggregate tok/s by concurrency with speculation off and on, and the crossover."""
    levels = [_m(level) for level in _seq(ev.get("levels"))]
    series = []
    for key in ("off_tok_s", "on_tok_s"):
        pts = [[c, v] for lv in levels
               if (c := num(lv.get("concurrency"))) is not None and (v := num(lv.get(key))) is not None]
        if pts:
            series.append({"key": f"batch_{key}", "points": pts})
    if not series:
        return None
    return _line("batch", "concurrency", "tok_s", series, marker_x=num(ev.get("crossover_concurrency")),
                 x_log2=True)


def pair_log_ratio(pair: Mapping[str, Any]) -> float | None:
    """d = log(ms/token off ÷ on) for one A/B pair, from whichever fields the pair carries."""
    if (d := num(pair.get("d"))) is not None:
        return d
    if (s := num(pair.get("speedup"))) is not None and s > 0:
        return math.log(s)
    off = num(pair.get("off_ms_per_token")) or num(_m(pair.get("off")).get("ms_per_token"))
    on = num(pair.get("on_ms_per_token")) or num(_m(pair.get("on")).get("ms_per_token"))
    if off and on and off > 0 and on > 0:
        return math.log(off / on)
    return None


def ab_chart(ev: Mapping[str, Any]) -> dict[str, Any] | None:
    """Per-prompt speedups in run order, with the running geometric mean and its 95% CI.

    The running CI is the plain t interval at each n, for display; the verdict itself uses the
    sequential (Pocock-style) bound, which is wider.
    """
    ds = [d for p in _seq(ev.get("pairs")) if (d := pair_log_ratio(_m(p))) is not None]
    if not ds:
        return None
    per_prompt = [[float(i + 1), math.exp(d)] for i, d in enumerate(ds)]
    running, low, high = [], [], []
    for n in range(1, len(ds) + 1):
        mean = sum(ds[:n]) / n
        running.append([float(n), math.exp(mean)])
        if n >= MIN_PAIRS_FOR_BAND:
            sd = math.sqrt(sum((d - mean) ** 2 for d in ds[:n]) / (n - 1))
            half = (_T975[n - 2] if n - 1 <= len(_T975) else 1.96) * sd / math.sqrt(n)
            low.append([float(n), math.exp(mean - half)])
            high.append([float(n), math.exp(mean + half)])
    band = {"key": "running_ci", "low": low, "high": high} if low else None
    return _line("ab", "pair", "speedup", [{"key": "ab_per_prompt", "points": per_prompt, "dots": True},
                                          {"key": "ab_running", "points": running}],
                 band=band, ref_lines=[{"y": 1.0, "key": "parity"}])


CHARTS_BY_STEP = {"baseline": (decode_chart,), "acceptance": (acceptance_chart, canary_chart),
                  "verify": (verify_chart,), "batch": (batch_chart,), "ab": (ab_chart,)}


def charts_for_step(step_id: str, ev: Mapping[str, Any]) -> list[dict[str, Any]]:
    """All charts a step's evidence supports (none when the data is absent or malformed)."""
    return [chart for make in CHARTS_BY_STEP.get(step_id, ()) if (chart := make(ev)) is not None]
