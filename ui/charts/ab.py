"""A/B: per-pair speedups, the running estimate with its 95% CI band, parity and the decision line (the
policy's smallest worthwhile speedup), and the planned looks where the sequential test may stop."""

from __future__ import annotations

from collections.abc import Iterable

import pyqtgraph as pg

from advisor.evidence.kinds import StepEvidence
from advisor.evidence.steps import ABEvidence
from ui import theme
from ui.charts.base import LiveChart, num


class ABChart(LiveChart):
    """Log-free speedup axis; values above the green line are wins worth switching on for."""

    steps = ("ab",)
    columns = 2
    empty_key = "chart.empty.no_pairs"

    def __init__(self) -> None:
        super().__init__("chart.ab", "axis.pair", "axis.speedup")
        self.add_series("pair", "series.pair", theme.GREY, symbol="o", line=False)
        self.add_series("running", "series.running", theme.BLUE, width=2.5)
        self.add_series("ci_low", "series.ci", theme.SKY, width=1.0)
        self.add_series("ci_high", "", theme.SKY, width=1.0)
        self.band = pg.FillBetweenItem(self.items["ci_low"], self.items["ci_high"], brush=(86, 180, 233, 60))
        self.addItem(self.band)
        self.addItem(pg.InfiniteLine(1.0, angle=0, pen=theme.pen(theme.GREY, 1.0)))
        # The decision line sits at the policy's 1 + δ (rules/policy.toml [ab]); shown once it is known.
        self.margin_line = pg.InfiniteLine(1.0, angle=0, pen=theme.pen(theme.GREEN, 1.2, dashed=True),
                                           label="", labelOpts={"position": 0.93, "color": theme.GREEN})
        self.margin_line.setVisible(False)
        self.addItem(self.margin_line)
        self._looks: list[pg.InfiniteLine] = []

    def set_margin(self, min_speedup: float) -> None:
        """Place the decision line at the smallest worthwhile speedup (1 + δ)."""
        self.margin_line.setValue(min_speedup)
        self.margin_line.label.setFormat(f"{min_speedup:.2f}×")
        self.margin_line.setVisible(True)

    def set_looks(self, looks: Iterable[int]) -> None:
        """Faint vertical lines at the planned looks (pair counts where the test may stop). The lines are kept
        and moved or hidden, not made again: the step's end trims the start's looks to the pairs it reached,
        and new lines there cost the end of a check a 70 ms stall on 2 busy cores."""
        wanted = [float(n) for n in looks]
        for i, n in enumerate(wanted):
            if i == len(self._looks):
                self._looks.append(pg.InfiniteLine(n, angle=90, pen=theme.pen(theme.BORDER, 1.0, dashed=True)))
                self.addItem(self._looks[i])
            elif self._looks[i].value() != n:
                self._looks[i].setValue(n)
            self._looks[i].setVisible(True)
        for line in self._looks[len(wanted):]:
            line.setVisible(False)

    def on_sample(self, series: str, x: float, y: float) -> None:
        key = {"pair_speedup": "pair", "running_speedup": "running", "ci_low": "ci_low", "ci_high": "ci_high"}
        if series in key:
            self.append(key[series], x, y)

    def on_done(self, step: str, evidence: StepEvidence | None) -> None:
        if not isinstance(evidence, ABEvidence):
            return
        if evidence.margin is not None:
            self.set_margin(1.0 + evidence.margin)
        if not len(self.rings["pair"]):  # replaying a saved run: rebuild the per-pair points
            xs, ys = [], []
            for i, p in enumerate(evidence.pairs):
                off, on = num(p.off_ms_per_token), num(p.on_ms_per_token)
                if off and on:
                    xs.append(float(i + 1))
                    ys.append(off / on)
            self.set_points("pair", xs, ys)
        n = evidence.n_prompts
        if evidence.looks:
            self.set_looks([k for k in evidence.looks if k <= max(n, 10) + 10])
        speedup, low, high = num(evidence.speedup), num(evidence.ci_low), num(evidence.ci_high)
        if speedup is not None and not len(self.rings["running"]):
            self.set_points("running", [n], [speedup])
            if low is not None and high is not None:
                self.set_points("ci_low", [n], [low])
                self.set_points("ci_high", [n], [high])
        if speedup is not None:
            ci = f" [{low:.2f}–{high:.2f}]" if low is not None and high is not None else ""
            self.set_suffix(f"{speedup:.2f}×{ci}")
