"""The grid of step charts plus telemetry: routes session events to charts and redraws them on a timer."""

from __future__ import annotations

import logging

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QGridLayout, QWidget

from advisor.decide.policy import Policy
from advisor.events import Event, Sample, StepDone
from advisor.evidence.kinds import StepEvidence
from advisor.evidence.schema import Evidence
from ui.charts.ab import ABChart
from ui.charts.acceptance import CategoryChart, PositionChart
from ui.charts.base import LiveChart
from ui.charts.batch import BatchChart
from ui.charts.canary import CanaryChart
from ui.charts.decode import DecodeChart
from ui.charts.telemetry import TelemetryChart
from ui.charts.tuner import SurfaceChart, TunerChart
from ui.charts.verify import VerifyChart

log = logging.getLogger(__name__)
COLUMNS = 5
REDRAW_HZ = 15  # fast enough to look live, slow enough that a 2-core machine keeps measuring undisturbed


class ChartPanel(QWidget):
    """Ten charts in a 5×2 grid, in step order; `handle(event)` is cheap, `redraw()` runs from a QTimer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.decode, self.categories, self.positions = DecodeChart(), CategoryChart(), PositionChart()
        self.canary, self.verify, self.batch = CanaryChart(), VerifyChart(), BatchChart()
        self.ab, self.telemetry = ABChart(), TelemetryChart()
        self.tuner, self.surface = TunerChart(), SurfaceChart()
        self.charts: list[LiveChart] = [self.decode, self.categories, self.positions, self.canary, self.verify,
                                        self.tuner, self.surface, self.batch, self.ab, self.telemetry]
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(8)
        for i, chart in enumerate(self.charts):
            grid.addWidget(chart, i // COLUMNS, i % COLUMNS)
        self.timer = QTimer(self)
        self.timer.setInterval(1000 // REDRAW_HZ)
        self.timer.timeout.connect(self.redraw)

    def chart_for(self, step: str) -> list[LiveChart]:
        """The charts that show `step`."""
        return [c for c in self.charts if step in c.steps]

    def handle(self, event: Event) -> None:
        """Append a Sample to its chart's ring, or draw a finished step's final state."""
        try:
            if isinstance(event, Sample):
                for chart in self.chart_for(event.step):
                    chart.on_sample(event.series, event.x, event.y)
            elif isinstance(event, StepDone):
                self.show_evidence(event.step, event.evidence)
        except Exception:  # a chart bug must not stop the run view (or the measurement) from going on
            log.exception("chart failed on %s", type(event).__name__)

    def show_evidence(self, step: str, evidence: StepEvidence | None) -> None:
        """Draw one step's evidence (a finished step, or a saved run being replayed)."""
        for chart in self.chart_for(step):
            chart.on_done(step, evidence)

    def replay(self, evidence: Evidence) -> None:
        """Fill every chart from a saved run."""
        self.reset()
        for step, record in evidence.steps.items():
            if record.evidence is not None:
                self.show_evidence(step, record.evidence)
        self.redraw()
        self.fit()

    def start(self, policy: Policy, ab_looks: list[int]) -> None:
        """A check begins: clear, place the policy's lines, start telemetry and the redraw timer."""
        self.reset()
        self.ab.set_looks(ab_looks)
        self.ab.set_margin(1.0 + policy.ab.margin)
        self.canary.set_threshold(policy.canary.max_repeat_inflation)
        self.telemetry.start()
        self.timer.start()

    def stop(self) -> None:
        """The check ended: one last redraw, then stop the timer and the sampler."""
        self.redraw()
        self.fit()
        self.timer.stop()
        self.telemetry.stop()

    def redraw(self) -> int:
        """Push dirty series to every chart; returns how many series were redrawn."""
        return sum(chart.refresh() for chart in self.charts)

    def fit(self) -> None:
        """Every series is complete: fit each chart's x range to its points (no live headroom)."""
        for chart in self.charts:
            chart.fit_x()

    def reset(self) -> None:
        """Clear every chart."""
        for chart in self.charts:
            chart.reset()

    def retranslate(self) -> None:
        """Re-label every chart."""
        for chart in self.charts:
            chart.retranslate()
