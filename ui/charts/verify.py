"""Verify cost: time of one forward over k tokens ÷ T(1), measured against the perf model's prediction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ui import theme
from ui.charts.base import LiveChart, num


class VerifyChart(LiveChart):
    """Measured (solid) vs predicted (dashed) verify-cost ratio by k."""

    steps = ("verify",)

    def __init__(self) -> None:
        super().__init__("chart.verify", "axis.k", "axis.ratio")
        self.add_series("measured", "series.measured", theme.BLUE, symbol="o")
        self.add_series("predicted", "series.predicted", theme.ORANGE, symbol="t", dashed=True)

    def on_sample(self, series: str, x: float, y: float) -> None:
        if series == "verify_ratio":
            self.append("measured", x, y)
        elif series == "verify_predicted_ratio":
            self.append("predicted", x, y)

    def on_done(self, step: str, evidence: Mapping[str, Any]) -> None:
        points = [p for p in evidence.get("points") or [] if isinstance(p, Mapping)]
        for key, field in (("measured", "ratio"), ("predicted", "predicted_ratio")):
            pairs = [(num(p.get("k")), num(p.get(field))) for p in points]
            kept = [(k, v) for k, v in pairs if k is not None and v is not None]
            if kept:
                self.set_points(key, [k for k, _ in kept], [v for _, v in kept])
        ratio = num(evidence.get("cost_ratio_at_draft_max"))
        if ratio is not None:
            self.set_suffix(f"γ+1: {ratio:.2f}×")
