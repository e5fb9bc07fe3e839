"""Baseline: decode tok/s per request against the roofline (the bandwidth limit for this model)."""

from __future__ import annotations

from advisor.evidence.kinds import StepEvidence
from advisor.evidence.steps import BaselineEvidence
from ui import theme
from ui.charts.base import LiveChart, num
from ui.strings import tr


class DecodeChart(LiveChart):
    """Spec-off decode speed; the dashed line is bytes-per-token ÷ peak bandwidth."""

    steps = ("baseline",)
    help_key = "help.decode"

    def __init__(self) -> None:
        # Legend top-right, just under the roofline: the measured points sit lower on this from-zero axis.
        super().__init__("chart.decode", "axis.request", "axis.tok_s", legend_offset=(-6, 26))
        self.add_series("decode", "series.decode", theme.BLUE, symbol="o")
        self.add_series("roofline", "series.roofline", theme.GREY, dashed=True, width=1.5)
        self.roofline: float | None = None

    def has_data(self) -> bool:
        return len(self.rings["decode"]) > 0  # the roofline alone is a limit, not a measurement

    def on_sample(self, series: str, x: float, y: float) -> None:
        if series == "decode_tok_s":
            self.append("decode", x + 1, y)
        elif series == "roofline_tok_s":
            self.roofline = y
        self._span_roofline()

    def _span_roofline(self) -> None:
        # Drawn as a two-point series (not an InfiniteLine) so auto-range keeps the limit in view.
        if self.roofline is None:
            return
        n = max(len(self.rings["decode"]), 1)
        self.set_points("roofline", [0.5, n + 0.5], [self.roofline, self.roofline])

    def refresh(self) -> int:
        # From zero, so the gap between measured speed and the bandwidth limit reads true to scale.
        count = super().refresh()
        if count:
            top = max([y for y in (self.rings["decode"].arrays()[1].tolist()) if y == y] + [self.roofline or 0.0])
            self.setYRange(0, top * 1.08 if top > 0 else 1, padding=0)
        return count

    def on_done(self, step: str, evidence: StepEvidence | None) -> None:
        if not isinstance(evidence, BaselineEvidence):
            return
        points = [(float(i + 1), v) for i, s in enumerate(evidence.samples) if (v := num(s.tok_s)) is not None]
        if points:
            self.set_points("decode", [p[0] for p in points], [p[1] for p in points])
        if (roof := num(evidence.roofline_tok_s)) is not None:
            self.roofline = roof
        self._span_roofline()
        if (mbu := num(evidence.mbu)) is not None:
            bottleneck = evidence.bottleneck
            self.set_suffix(lambda: f"MBU {mbu:.0%}" + (f" · {tr(f'bottleneck.{bottleneck}')}" if bottleneck else ""))

