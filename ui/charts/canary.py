"""Trap canary: one prompt repeated; tok/s and acceptance relative to the first run. A rise above the
policy's limit means the engine reuses earlier outputs (n-gram caches), so repeated-prompt benchmarks
overstate gains."""

from __future__ import annotations

import pyqtgraph as pg

from advisor.evidence.kinds import StepEvidence
from advisor.evidence.steps import AcceptanceEvidence
from ui import theme
from ui.charts.base import LiveChart, num


class CanaryChart(LiveChart):
    """Both curves normalised to repeat 1 so one axis serves tok/s and acceptance."""

    steps = ("acceptance",)
    empty_key = "chart.empty.no_canary"

    def __init__(self) -> None:
        super().__init__("chart.canary", "axis.repeat", "axis.relative")
        self.add_series("tok_s", "series.canary_tok_s", theme.BLUE, symbol="o")
        self.add_series("rate", "series.canary_rate", theme.GREEN, symbol="s")
        # The warning line sits at the policy's limit (rules/policy.toml [canary]); shown once it is known.
        self.trap_line = pg.InfiniteLine(1.0, angle=0, pen=theme.pen(theme.VERMILLION, 1.2, dashed=True),
                                         label="", labelOpts={"position": 0.92, "color": theme.VERMILLION})
        self.trap_line.setVisible(False)
        self.addItem(self.trap_line)
        self.addItem(pg.InfiniteLine(1.0, angle=0, pen=theme.pen(theme.GREY, 1.0)))
        self._first: dict[str, float] = {}

    def set_threshold(self, limit: float) -> None:
        """Place the warning line at the canary's repeat-inflation limit."""
        self.trap_line.setValue(limit)
        self.trap_line.label.setFormat(f"{limit:.2f}")
        self.trap_line.setVisible(True)

    def on_sample(self, series: str, x: float, y: float) -> None:
        key = {"canary_tok_s": "tok_s", "canary_rate": "rate"}.get(series)
        if key is None:
            return
        first = self._first.setdefault(key, y)
        self.append(key, x, y / first if first else float("nan"))

    def on_done(self, step: str, evidence: StepEvidence | None) -> None:
        if not isinstance(evidence, AcceptanceEvidence) or evidence.canary is None:
            return
        canary = evidence.canary
        if canary.threshold is not None:
            self.set_threshold(canary.threshold)
        for key in ("tok_s", "rate"):
            kept = [(float(r.i), v) for r in canary.repeats if (v := num(getattr(r, key))) is not None]
            if kept and kept[0][1]:
                first = kept[0][1]
                self.set_points(key, [i for i, _ in kept], [v / first for _, v in kept])
        if (inflation := num(canary.repeat_inflation)) is not None:
            self.set_suffix(f"{inflation:.2f}×")

    def reset(self) -> None:
        self._first.clear()
        super().reset()
