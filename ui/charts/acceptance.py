"""Acceptance by task category (live: one dot per request; done: bars with 95% CIs) and by draft position."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from advisor.evidence.kinds import StepEvidence
from advisor.evidence.steps import AcceptanceEvidence
from advisor.report.strings import category_name
from ui import theme
from ui.charts.base import LiveChart, num
from ui.strings import language


class CategoryChart(LiveChart):
    """Horizontal bars so category names stay readable in a narrow panel."""

    steps = ("acceptance",)
    empty_key = "chart.empty.no_drafts"  # a category's rate is None when the engine drafted nothing for it

    def __init__(self) -> None:
        super().__init__("chart.acceptance", "axis.rate", "")
        self.add_series("dots", "", theme.BLUE, symbol="o", line=False)
        self.categories: list[str] = []
        self.bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.6, brush=theme.SKY, pen=None)
        self.errors = pg.ErrorBarItem(pen=theme.pen(theme.TEXT, 1.2), beam=0.2)
        self.addItem(self.bars)
        self.addItem(self.errors)
        self.setXRange(0, 1, padding=0.02)
        self.getPlotItem().invertY(True)
        self._bars = 0  # categories drawn as bars (a step's end)

    def has_data(self) -> bool:
        return self._bars > 0 or len(self.rings["dots"]) > 0

    def _index(self, category: str) -> int:
        if category not in self.categories:
            self.categories.append(category)
            self._set_ticks()
        return self.categories.index(category)

    def _set_ticks(self) -> None:
        """The categories in words of the window's language (a user's own label as written)."""
        # (the base class retranslates while it is built, before this chart has its categories)
        ticks = [(i, category_name(c, language())) for i, c in enumerate(getattr(self, "categories", []))]
        self.getPlotItem().getAxis("left").setTicks([ticks] if ticks else None)

    def retranslate(self) -> None:
        super().retranslate()
        self._set_ticks()

    def on_sample(self, series: str, x: float, y: float) -> None:
        if series.startswith("acceptance:"):
            row = self._index(series.split(":", 1)[1])
            jitter = ((int(x) * 37) % 7 - 3) * 0.05  # spread repeated dots without randomness
            self.append("dots", y, row + jitter)

    def on_done(self, step: str, evidence: StepEvidence | None) -> None:
        if not isinstance(evidence, AcceptanceEvidence):
            return
        for cat in evidence.per_category:  # every kind the step drew prompts for, a bar only where there is a rate
            self._index(cat)
        rows = [(cat, v) for cat, v in evidence.per_category.items() if num(v.rate) is not None]
        ys = np.array([self.categories.index(c) for c, _ in rows], dtype=float)
        rates = np.array([v.rate for _, v in rows], dtype=float)
        low = np.array([v.ci_low if num(v.ci_low) is not None else r for (_, v), r in zip(rows, rates, strict=True)],
                       dtype=float)
        high = np.array([v.ci_high if num(v.ci_high) is not None else r
                         for (_, v), r in zip(rows, rates, strict=True)], dtype=float)
        self.bars.setOpts(x0=np.zeros_like(rates), y=ys, width=rates, height=0.6)
        self._bars = len(rows)
        self.errors.setData(x=rates, y=ys, left=rates - low, right=high - rates)
        self.rings["dots"].clear()
        # Rates are 0–1 whatever was drawn before (a screenshot showed 1.0–1.3 after every dot sat at 100%).
        self.setXRange(0, 1, padding=0.02)
        # Every kind's row in view, those without a bar too (the range followed the bars: one kind with a rate
        # among eight showed that kind alone).
        if self.categories:
            self.setYRange(-0.5, len(self.categories) - 0.5, padding=0)
        if (overall := num(evidence.rate)) is not None:
            self.set_suffix(f"α = {overall:.0%}")

    def reset(self) -> None:
        self.categories.clear()
        self._bars = 0
        self.bars.setOpts(x0=[], y=[], width=[])
        self.errors.setData(x=np.array([]), y=np.array([]))
        self.getPlotItem().getAxis("left").setTicks(None)
        super().reset()


class PositionChart(LiveChart):
    """Fraction of drafts whose token at position i was accepted (from `/metrics` deltas), at step end."""

    steps = ("acceptance",)

    def __init__(self) -> None:
        super().__init__("chart.positions", "axis.position", "axis.rate")
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7, brush=theme.GREEN, pen=None)
        self.addItem(self.bars)
        self.setYRange(0, 1, padding=0.02)
        self._bars = 0
        self._accepted = False  # some position had a token accepted

    def has_data(self) -> bool:
        return self._bars > 0 and self._accepted

    @property
    def empty_key(self) -> str:  # type: ignore[override]
        """Counts of 0 at every position are drafts none of which was accepted, not a missing measurement."""
        return "chart.empty.none_accepted" if self._bars else "chart.empty.no_positions"

    def on_done(self, step: str, evidence: StepEvidence | None) -> None:
        if not isinstance(evidence, AcceptanceEvidence):
            return
        kept = [(i + 1, r) for i, v in enumerate(evidence.per_position) if (r := num(v)) is not None]
        if kept:
            self.bars.setOpts(x=[i for i, _ in kept], height=[r for _, r in kept], width=0.7)
            self._bars = len(kept)
            self._accepted = any(r > 0 for _, r in kept)
            self.setXRange(0.4, len(kept) + 0.6, padding=0)
        if (mean_length := num(evidence.mean_length)) is not None:
            self.set_suffix(f"τ = {mean_length:.2f}")

    def reset(self) -> None:
        self.bars.setOpts(x=[], height=[])
        self._bars, self._accepted = 0, False
        super().reset()
