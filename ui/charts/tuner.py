"""The tuner: predicted speedup against draft length (the chosen k marked, the A/B's measured point on it),
and the synthetic-acceptance surface (measured speedup against τ beside the cost model)."""

from __future__ import annotations

import pyqtgraph as pg

from advisor.evidence.kinds import StepEvidence
from advisor.evidence.steps import ABEvidence
from advisor.evidence.tuner import TuneEvidence
from ui import theme
from ui.charts.base import LiveChart, num
from ui.strings import tr


class TunerChart(LiveChart):
    """Speedup(k) for the chosen method as predicted; a dot where the A/B measured the choice."""

    steps = ("tune", "ab")
    empty_key = "chart.empty.no_curve"
    help_key = "help.tuner"

    def __init__(self) -> None:
        super().__init__("chart.tuner", "axis.draft_length", "axis.speedup")
        self.add_series("predicted", "series.predicted", theme.BLUE, symbol="o")
        self.add_series("measured", "series.measured_ab", theme.GREEN, symbol="s", line=False)
        self.chosen_line = pg.InfiniteLine(angle=90, pen=theme.pen(theme.GREEN, 1.0, dashed=True))
        self.chosen_line.setVisible(False)
        self.addItem(self.chosen_line)
        self.choice: tuple[int, tuple[str, ...]] | None = None   # (k, flags) of the applied choice
        self._live_method: str | None = None

    def has_data(self) -> bool:
        return len(self.rings["predicted"]) > 0 or len(self.rings["measured"]) > 0

    def on_sample(self, series: str, x: float, y: float) -> None:
        method = series.removeprefix("predicted:")
        if method == series:
            return
        if self._live_method is None:
            self._live_method = method  # the method step 2 measured comes first
        if method == self._live_method:
            self.append("predicted", x, y)

    def on_done(self, step: str, evidence: StepEvidence | None) -> None:
        if isinstance(evidence, TuneEvidence) and evidence.choice is not None:
            choice = evidence.choice
            probe = evidence.chosen_probe()  # the method and its knobs (a variant shares the method's name)
            if probe is not None and probe.curve:
                self.set_points("predicted", [float(p.k) for p in probe.curve], [p.speedup for p in probe.curve])
            self.choice = (choice.k, tuple(choice.argv)) if choice.applied else None
            # The axis shows the chosen k with half a step of room, even where the curve stops short of it (a
            # screenshot once cut the chosen point off at the right edge).
            ks = [float(p.k) for p in probe.curve] if probe is not None else []
            self.x_include = (min([*ks, choice.k]) - 0.5, max([*ks, choice.k]) + 0.5)
            self.chosen_line.setValue(float(choice.k))
            self.chosen_line.setVisible(True)
            self.fit_x()
            self.set_suffix(lambda: tr("tuner.chosen", method=choice.label, k=choice.k,
                                       speedup=f"{choice.predicted_speedup:.2f}×"))
        elif isinstance(evidence, ABEvidence) and self.choice is not None:
            k, argv = self.choice
            if tuple(evidence.on_argv) == argv and (speedup := num(evidence.speedup)) is not None:
                self.set_points("measured", [float(k)], [speedup])

    def reset(self) -> None:
        self.choice, self._live_method = None, None
        self.chosen_line.setVisible(False)
        super().reset()


class SurfaceChart(LiveChart):
    """Measured speedup against realised τ (all draft lengths), and the cost model at the same points."""

    steps = ("tune",)
    empty_key = "chart.empty.no_surface"
    help_key = "help.surface"

    def __init__(self) -> None:
        super().__init__("chart.surface", "axis.tau", "axis.speedup")
        self.add_series("measured", "series.measured", theme.BLUE, symbol="o", line=False)
        self.add_series("model", "series.model", theme.ORANGE, symbol="t", line=False)

    def on_sample(self, series: str, x: float, y: float) -> None:
        if series.startswith("surface:"):
            self.append("measured", x, y)

    def on_done(self, step: str, evidence: StepEvidence | None) -> None:
        if not isinstance(evidence, TuneEvidence):
            return
        rows = [p for p in evidence.surface if num(p.speedup) is not None and num(p.tau_measured) is not None]
        self.set_points("measured", [p.tau_measured or 0.0 for p in rows], [p.speedup or 0.0 for p in rows])
        model = [p for p in rows if num(p.predicted_speedup) is not None]
        self.set_points("model", [p.tau_measured or 0.0 for p in model], [p.predicted_speedup or 0.0 for p in model])
        if (err := num(evidence.surface_model_rel_err_median)) is not None:
            self.set_suffix(lambda: tr("tuner.model_error", err=f"{err:.0%}"))
