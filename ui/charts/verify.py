"""Verify cost: time of one forward over k tokens ÷ T(1), measured against the perf model's prediction."""

from __future__ import annotations

from advisor.evidence.kinds import StepEvidence
from advisor.evidence.steps import VerifyEvidence
from ui import theme
from ui.charts.base import LiveChart, num


class VerifyChart(LiveChart):
    """Measured (solid) vs predicted (dashed) verify-cost ratio by k."""

    steps = ("verify",)

    def __init__(self) -> None:
        super().__init__("chart.verify", "axis.k", "axis.ratio")
        self.add_series("measured", "series.measured", theme.BLUE, symbol="o")
        self.add_series("predicted", "series.predicted", theme.ORANGE, symbol="t", dashed=True)
        self.add_series("user_depth", "series.user_depth", theme.GREEN, symbol="s")

    def on_sample(self, series: str, x: float, y: float) -> None:
        if series == "verify_ratio":
            self.append("measured", x, y)
        elif series == "verify_predicted_ratio":
            self.append("predicted", x, y)
        elif series == "verify_ratio_user_depth":
            self.append("user_depth", x, y)

    def on_done(self, step: str, evidence: StepEvidence | None) -> None:
        if not isinstance(evidence, VerifyEvidence):
            return
        for key, field in (("measured", "ratio"), ("predicted", "predicted_ratio")):
            kept = [(float(p.k), v) for p in evidence.points if (v := num(getattr(p, field))) is not None]
            if kept:
                self.set_points(key, [k for k, _ in kept], [v for _, v in kept])
        if (deep := evidence.at_user_depth) is not None:
            kept = [(float(p.k), v) for p in deep.points if (v := num(p.ratio)) is not None]
            if kept:
                self.set_points("user_depth", [k for k, _ in kept], [v for _, v in kept])
        if (ratio := num(evidence.for_user()[1])) is not None:
            self.set_suffix(f"γ+1: {ratio:.2f}×")
