"""The grid of step charts plus telemetry: routes session events to charts and redraws them on a timer."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from PySide6.QtCore import QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QFrame, QGridLayout, QScrollArea, QWidget

from advisor.core.policy import Policy
from advisor.events import Sample, StepDone
from advisor.evidence.kinds import StepEvidence
from advisor.evidence.schema import Evidence
from advisor.run.done import SessionEvent
from ui.charts.ab import ABChart
from ui.charts.acceptance import CategoryChart, PositionChart
from ui.charts.base import LiveChart
from ui.charts.batch import BatchChart
from ui.charts.canary import CanaryChart
from ui.charts.decode import DecodeChart
from ui.charts.empty import Plan, StepEnd, why_empty
from ui.charts.telemetry import TelemetryChart
from ui.charts.tuner import SurfaceChart, TunerChart
from ui.charts.verify import VerifyChart

log = logging.getLogger(__name__)
COLUMNS = 4  # 4 × 3 fits the charts of a 1440 × 900 window at a readable size (the A/B, which the verdict
# rests on, and telemetry span two columns each: LiveChart.columns)
REDRAW_HZ = 15  # fast enough to look live, slow enough that a 2-core machine keeps measuring undisturbed
# Qt paints every widget made dirty in one event loop turn in a single pass, so ten charts changed at once
# (the end of a check fits every x range, the first show paints every chart) froze the window for
# 0.1–0.3 s. At most PER_TICK charts are redrawn per tick, and work on all charts is done one chart per
# STAGGER_MS turn, so each pass paints one or two charts.
PER_TICK = 2
STAGGER_MS = 15


class ChartPanel(QScrollArea):
    """Ten charts in a 4-column grid, in step order (the A/B and telemetry wide in the last row); a smaller
    window scrolls rather than squeezing them. `handle(event)` is cheap, `redraw()` runs from a QTimer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.decode, self.categories, self.positions = DecodeChart(), CategoryChart(), PositionChart()
        self.canary, self.verify, self.batch = CanaryChart(), VerifyChart(), BatchChart()
        self.ab, self.telemetry = ABChart(), TelemetryChart()
        self.tuner, self.surface = TunerChart(), SurfaceChart()
        self.charts: list[LiveChart] = [self.decode, self.categories, self.positions, self.canary, self.verify,
                                        self.tuner, self.surface, self.batch, self.ab, self.telemetry]
        body = QWidget()
        grid = QGridLayout(body)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(8)
        row = col = 0
        for chart in self.charts:  # in step order; the A/B and telemetry are two columns wide
            if col + chart.columns > COLUMNS:
                row, col = row + 1, 0
            grid.addWidget(chart, row, col, 1, chart.columns)
            col += chart.columns
        for col in range(COLUMNS):
            grid.setColumnStretch(col, 1)
        self.setWidget(body)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.timer = QTimer(self)
        self.timer.setInterval(1000 // REDRAW_HZ)
        self.timer.timeout.connect(self._tick)
        self._next = 0  # round-robin: the chart the next tick looks at first
        self._settle: list[LiveChart] = []  # the check ended: charts still to redraw and fit, one per turn
        # a step ended: its charts still to draw the step's evidence, one per turn (a step's charts drawing it in
        # one turn was the longest stall of a check on 2 busy cores: 60–100 ms at the acceptance and A/B ends)
        self._done: list[tuple[LiveChart, str, StepEvidence | None]] = []
        self._reveal: list[LiveChart] = []  # shown: charts whose painting is still held back
        self.stagger = QTimer(self)
        self.stagger.setInterval(STAGGER_MS)
        self.stagger.timeout.connect(self._stagger_one)
        # How each step ended and what the check planned: an empty chart says why it is empty (ui/charts/empty.py)
        self._ends: dict[str, StepEnd] = {}
        self._plan = Plan()

    def chart_for(self, step: str) -> list[LiveChart]:
        """The charts that show `step`."""
        return [c for c in self.charts if step in c.steps]

    def handle(self, event: SessionEvent) -> None:
        """Append a Sample to its chart's ring, or draw a finished step's final state."""
        try:
            if isinstance(event, Sample):
                for chart in self.chart_for(event.step):
                    chart.on_sample(event.series, event.x, event.y)
            elif isinstance(event, StepDone):
                self._ends[event.step] = StepEnd(event.status, event.reason or "")
                self._done.extend((chart, event.step, event.evidence) for chart in self.chart_for(event.step))
                self.stagger.start()
        except Exception:  # a chart bug must not stop the run view (or the measurement) from going on
            log.exception("chart failed on %s", type(event).__name__)

    def show_evidence(self, step: str, evidence: StepEvidence | None) -> None:
        """Draw one step's evidence (a finished step, or a saved run being replayed)."""
        for chart in self.chart_for(step):
            chart.on_done(step, evidence)

    def replay(self, evidence: Evidence) -> None:
        """Fill every chart from a saved run; a chart left empty says why."""
        self.reset()
        config = evidence.config
        self._plan = Plan(frozenset(config.steps) if config.steps else None, ended=True)
        for step, record in evidence.steps.items():
            self._ends[step] = StepEnd(record.status, record.reason or "")
            if record.evidence is not None:
                self.show_evidence(step, record.evidence)
        self.redraw()
        self.fit()
        for chart in self.charts:
            self.explain(chart)
        self.telemetry.show_saved(evidence)

    def explain(self, chart: LiveChart) -> None:
        """Show the chart's plot, or the one line that says why it has nothing to draw (yet)."""
        if chart is self.telemetry:
            return  # the sampler says why itself (no GPU; a saved run keeps no curve)
        if chart.has_data():
            chart.set_reason(None)
            return
        step = chart.steps[0]
        chart.set_reason(why_empty(step, self._ends.get(step), self._plan, chart.empty_key))

    def start(self, policy: Policy, ab_looks: list[int], steps: Iterable[str] = ()) -> None:
        """A check begins: clear, place the policy's lines, start telemetry and the redraw timer. The charts of
        steps the check leaves out say so at once."""
        self._settle.clear()
        self.reset()
        planned = frozenset(steps)
        self._plan = Plan(planned or None)
        for chart in self.charts:
            self.explain(chart)
        self.ab.set_looks(ab_looks)
        self.ab.set_margin(1.0 + policy.ab.margin)
        self.canary.set_threshold(policy.canary.max_repeat_inflation)
        self.telemetry.start()
        self.timer.start()

    def stop(self) -> None:
        """The check ended: stop the timer and the sampler (after its last samples); then every chart is
        redrawn and fitted to its complete series, one chart per event loop turn (`settling`)."""
        self.telemetry.refresh()
        self.telemetry.stop()
        self.timer.stop()
        self._plan = Plan(self._plan.steps, ended=True)
        self._settle = list(self.charts)
        self.stagger.start()

    @property
    def settling(self) -> bool:
        """True while charts are still being finished or revealed one by one (tests and screenshots wait)."""
        return bool(self._done or self._settle or self._reveal)

    def redraw(self) -> int:
        """Push dirty series to every chart at once; returns how many series were redrawn."""
        return sum(chart.refresh() for chart in self.charts)

    def _tick(self) -> None:
        """The live redraw: at most PER_TICK charts with new points, taken round-robin so none starves."""
        drawn, n = 0, len(self.charts)
        for i in range(n):
            if self.charts[(self._next + i) % n].refresh():
                drawn += 1
                if drawn == PER_TICK:
                    self._next = (self._next + i + 1) % n
                    return

    def _stagger_one(self) -> None:
        if self._done:
            chart, step, evidence = self._done.pop(0)
            try:
                chart.on_done(step, evidence)
                self.explain(chart)
            except Exception:  # as in `handle`: a chart bug must not stop the run view
                log.exception("chart failed on the end of %s", step)
        elif self._settle:
            chart = self._settle.pop(0)
            chart.refresh()
            chart.fit_x()
            self.explain(chart)
        elif self._reveal:
            self._reveal.pop(0).setUpdatesEnabled(True)
        if not self.settling:
            self.stagger.stop()

    def showEvent(self, event: QShowEvent) -> None:
        """Paint the charts one per turn rather than all ten in the pass that shows the view."""
        super().showEvent(event)
        pending = [c for c in self.charts if c not in self._reveal]
        for chart in pending:
            chart.setUpdatesEnabled(False)
        self._reveal.extend(pending)
        self.stagger.start()

    def fit(self) -> None:
        """Every series is complete: fit each chart's x range to its points (no live headroom)."""
        for chart in self.charts:
            chart.fit_x()

    def reset(self) -> None:
        """Clear every chart (and forget step ends not yet drawn)."""
        self._done.clear()
        self._ends.clear()
        self._plan = Plan()
        for chart in self.charts:
            chart.reset()

    def retranslate(self) -> None:
        """Re-label every chart."""
        for chart in self.charts:
            chart.retranslate()
