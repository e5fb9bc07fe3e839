"""Trap canary: one prompt repeated; tok/s and acceptance relative to the first run. A rise above 1.10
means the engine reuses earlier outputs (n-gram caches), so repeated-prompt benchmarks overstate gains."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyqtgraph as pg

from ui import theme
from ui.charts.base import LiveChart, num

TRAP_LINE = 1.10  # the canary's warning threshold (advisor/steps/canary.py, MLPerf TEST04 style)


class CanaryChart(LiveChart):
    """Both curves normalised to repeat 1 so one axis serves tok/s and acceptance."""

    steps = ("acceptance",)

    def __init__(self) -> None:
        super().__init__("chart.canary", "axis.repeat", "axis.relative")
        self.add_series("tok_s", "series.canary_tok_s", theme.BLUE, symbol="o")
        self.add_series("rate", "series.canary_rate", theme.GREEN, symbol="s")
        self.addItem(pg.InfiniteLine(TRAP_LINE, angle=0, pen=theme.pen(theme.VERMILLION, 1.2, dashed=True),
                                     label="1.10", labelOpts={"position": 0.92, "color": theme.VERMILLION}))
        self.addItem(pg.InfiniteLine(1.0, angle=0, pen=theme.pen(theme.GREY, 1.0)))
        self._first: dict[str, float] = {}

    def on_sample(self, series: str, x: float, y: float) -> None:
        key = {"canary_tok_s": "tok_s", "canary_rate": "rate"}.get(series)
        if key is None:
            return
        first = self._first.setdefault(key, y)
        self.append(key, x, y / first if first else float("nan"))

    def on_done(self, step: str, evidence: Mapping[str, Any]) -> None:
        canary = evidence.get("canary")
        if not isinstance(canary, Mapping):
            return
        repeats = [r for r in canary.get("repeats") or [] if isinstance(r, Mapping)]
        for key in ("tok_s", "rate"):
            vals = [(num(r.get("i")), num(r.get(key))) for r in repeats]
            kept = [(i, v) for i, v in vals if i is not None and v is not None]
            if kept and kept[0][1]:
                first = kept[0][1]
                self.set_points(key, [i for i, _ in kept], [v / first for _, v in kept])
        inflation = num(canary.get("repeat_inflation"))
        if inflation is not None:
            self.set_suffix(f"{inflation:.2f}×")

    def reset(self) -> None:
        self._first.clear()
        super().reset()
