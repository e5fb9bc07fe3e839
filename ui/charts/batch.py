"""Concurrency: aggregate tok/s with speculation on vs off; the crossover is where on stops winning."""

from __future__ import annotations

import pyqtgraph as pg

from advisor.evidence.kinds import StepEvidence
from advisor.evidence.steps import BatchEvidence
from ui import theme
from ui.charts.base import LiveChart, num
from ui.strings import tr


class BatchChart(LiveChart):
    """Off (blue) and on (orange) throughput by concurrency, with a vertical crossover marker."""

    steps = ("batch",)
    empty_key = "chart.empty.no_batch"
    help_key = "help.batch"

    def __init__(self) -> None:
        super().__init__("chart.batch", "axis.concurrency", "axis.tok_s")
        self.add_series("off", "series.off", theme.BLUE, symbol="o")
        self.add_series("on", "series.on", theme.ORANGE, symbol="s")
        self.crossover = pg.InfiniteLine(angle=90, pen=theme.pen(theme.VERMILLION, 1.2, dashed=True), label="",
                                         labelOpts={"position": 0.12, "color": theme.VERMILLION})
        self.crossover.setVisible(False)
        self.addItem(self.crossover)

    def on_sample(self, series: str, x: float, y: float) -> None:
        if series in ("off_tok_s", "on_tok_s"):
            self.append(series.split("_", 1)[0], x, y)
        elif series == "speedup" and y < 1.0 and not self.crossover.isVisible():
            self._mark(x)

    def _mark(self, c: float) -> None:
        # The label goes on the side with room: left of the line at the right edge, right of it otherwise.
        xs = self.rings["off"].arrays()[0]
        at_right = len(xs) > 0 and c >= float(xs.max())
        anchor = (1.05, 0.5) if at_right else (-0.05, 0.5)
        self.crossover.label.anchors = [anchor, anchor]
        self.crossover.setValue(c)
        self._label_crossover(c)
        self.crossover.setVisible(True)

    def _label_crossover(self, c: float) -> None:
        self.crossover.label.setFormat(tr("series.crossover_at", c=f"{c:g}"))

    def retranslate(self) -> None:
        """The crossover marker's label too."""
        super().retranslate()
        # (LiveChart.__init__ calls this before the marker exists)
        if getattr(self, "crossover", None) is not None and self.crossover.isVisible():
            self._label_crossover(self.crossover.value())

    def on_done(self, step: str, evidence: StepEvidence | None) -> None:
        if not isinstance(evidence, BatchEvidence):
            return
        for key in ("off", "on"):
            kept = [(float(lv.concurrency), v) for lv in evidence.levels
                    if (v := num(getattr(lv, f"{key}_tok_s"))) is not None]
            if kept:
                self.set_points(key, [c for c, _ in kept], [v for _, v in kept])
        if (crossover := num(evidence.crossover_concurrency)) is not None:
            self._mark(crossover)
            self.set_suffix(lambda: tr("batch.slower_from", c=f"{crossover:g}"))

    def reset(self) -> None:
        self.crossover.setVisible(False)
        super().reset()
