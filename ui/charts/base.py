"""LiveChart: a pyqtgraph plot whose series live in numpy rings and are redrawn only by `refresh()`.

Events append to rings (cheap); a QTimer calls `refresh()` at 10–30 Hz, which pushes dirty series with
`setData`. Redrawing per event would let a burst of samples starve the GUI thread.

What a redraw costs (bench/gui_bench.py, offscreen raster engine, 6 plots × 10k points), and what keeps it low:
- the axes: pyqtgraph regenerates ticks, labels and grid whenever the range moves, and a range that moves
  during a paint schedules a second paint. The x range therefore grows in steps with headroom
  (`X_HEADROOM`), so a new point usually changes only the curve;
- the grid: semi-transparent grid lines are blended pixel by pixel on every paint; opaque light-grey ones
  look the same on white and draw as plain lines (major ticks only, as the faint minor ones were barely seen);
- the curve: peak downsampling to one min/max pair per pixel column (spikes stay visible), and long series
  (> THIN_ABOVE points) drawn 1 px wide without antialiasing, which the raster engine draws ~40× faster.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pyqtgraph as pg
from pyqtgraph.Qt import QtCore
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from advisor.evidence.kinds import StepEvidence
from ui import theme
from ui.ring import Ring
from ui.strings import tr

# Qt's raster engine draws antialiased pens wider than 1 px ~40× slower; long series (telemetry, big runs)
# switch to 1 px without antialiasing so a redraw stays within a frame (bench/gui_bench.py).
THIN_ABOVE = 2000
X_HEADROOM = 0.25  # when the points pass the right edge, the x range grows by a quarter of the span
GRID_COLOUR = "#e6e9ee"  # opaque: what the former 15 % black grid looked like on the white plot
TITLE_PT = 9.0
TITLE_MARGIN_PX = 24  # the title label's own padding on both sides, and a little air
LEGEND_ROW = 5      # PlotItem's grid: 0 title, 1 top axis, 2 plot, 3 bottom axis; 4 is free, 5 below it all
LEGEND_COLUMNS = 2  # two entries side by side fit the narrowest chart when their labels are short:
LEGEND_LABEL_FITS = 14  # at most this many Latin characters (a Chinese one counts as two) at 8 pt, in a
# chart one grid column wide (ui/charts/panel.py); a chart two columns wide fits twice as many


class LiveChart(pg.PlotWidget):
    """One chart: title, axis labels and legend from string keys; named series backed by rings."""

    steps: tuple[str, ...] = ()
    columns = 1  # grid columns the chart spans in the panel (its legend labels may be this many times longer)
    empty_key = "chart.empty.done"  # why a finished step left this chart empty (a chart may know better)
    help_key = ""  # a tooltip in plain words for a chart whose title uses a term of art

    def __init__(self, title_key: str, x_key: str, y_key: str, parent: QWidget | None = None,
                 legend_offset: tuple[int, int] = (6, 4)) -> None:
        super().__init__(parent)
        self._keys = (title_key, x_key, y_key)
        self.rings: dict[str, Ring] = {}
        self.items: dict[str, pg.PlotDataItem] = {}
        self._labels: dict[str, str] = {}
        self._suffix = ""
        self._suffix_source: str | Callable[[], str] = ""
        self._x_range: tuple[float, float] | None = None
        self._manage_x = True  # False once a subclass fixes the x range itself
        self.x_include: tuple[float, ...] = ()  # x values the range must show besides the points (a marked k)
        item = self.getPlotItem()
        item.showGrid(x=True, y=True, alpha=1.0)
        for name in ("left", "bottom"):
            axis = item.getAxis(name)
            axis.setTickPen(GRID_COLOUR)
            axis.setStyle(tickAlpha=255, maxTickLevel=0)  # opaque major lines only: minor ones at full
            # strength would crowd the plot, and faded ones are the per-pixel blending this avoids
            axis.enableAutoSIPrefix(False)  # a prefix change re-lays the label out (HTML) on every range move
        item.enableAutoRange(x=False)
        item.setMenuEnabled(False)
        item.hideButtons()
        self.setMouseEnabled(x=False, y=False)
        # The legend sits in its own row under the plot area (as in the HTML report), entries side by side, so
        # it never covers data; the charts are too narrow for a column of their own beside the plot.
        self.legend = pg.LegendItem(offset=None, labelTextSize="8pt", labelTextColor=theme.TEXT, verSpacing=-6,
                                    colCount=LEGEND_COLUMNS)
        item.layout.addItem(self.legend, LEGEND_ROW, 1, QtCore.Qt.AlignmentFlag.AlignLeft)
        # Neither the legend nor the title may widen the plot beyond the chart: a long label once pushed the
        # right end of every axis (and its last points) out of view. The title spans the whole chart rather
        # than the plot's column (the left axis takes ~50 px of a 270 px chart); a long legend is cut.
        self.legend.setMinimumWidth(1)
        item.layout.removeItem(item.titleLabel)
        item.layout.addItem(item.titleLabel, 0, 0, 1, 3)
        del legend_offset  # kept in the signature for callers written when the legend floated over the plot
        self.setMinimumSize(220, 170)
        # An empty chart is not drawn as empty axes: a card over it says which chart and why it has nothing.
        self.empty = _EmptyCard(self)
        self._reason_source: str | Callable[[], str] | None = None
        self.retranslate()

    def add_series(self, key: str, label_key: str, colour: str, *, symbol: str | None = None,
                   line: bool = True, dashed: bool = False, width: float = 2.0) -> pg.PlotDataItem:
        """A named series; points only (`line=False`) for scatter, dashed for predictions and limits."""
        item = self.plot([], [], pen=theme.pen(colour, width, dashed) if line else None,
                         symbol=symbol, symbolSize=6, symbolBrush=colour, symbolPen=None, connect="finite")
        # Peak downsampling keeps spikes visible; no clipToView: it fights auto-range as new points arrive.
        # One min/max pair per pixel column is all a line can show (pyqtgraph's default keeps five).
        item.opts["autoDownsampleFactor"] = 1.0
        item.setDownsampling(auto=True, method="peak")
        self.rings[key], self.items[key], self._labels[key] = Ring(), item, label_key
        self._rebuild_legend()
        return item

    def append(self, key: str, x: float, y: float) -> None:
        """Queue a point; it appears at the next `refresh()`."""
        self.rings[key].append(x, y)

    def set_points(self, key: str, xs: list[float], ys: list[float]) -> None:
        """Replace a series (used when a step ends and its evidence is the final word)."""
        ring = self.rings[key]
        ring.clear()
        for x, y in zip(xs, ys, strict=True):
            ring.append(x, y)

    def refresh(self) -> int:
        """Push dirty series to the plot; returns how many were redrawn."""
        count = 0
        for key, ring in self.rings.items():
            if ring.dirty:
                x, y = ring.arrays()
                item = self.items[key]
                if len(ring) > THIN_ABOVE and item.opts["antialias"]:
                    item.opts["antialias"] = False  # passed on to the curve by setData below
                    if item.opts["pen"] is not None and item.opts["pen"].widthF() > 1:
                        thin = item.opts["pen"]
                        thin.setWidthF(1.0)
                        item.setPen(thin)
                item.setData(x, y)
                ring.dirty = False
                count += 1
        if count:
            self._grow_x()
            if self._reason_source is not None and self.has_data():
                self.set_reason(None)
        return count

    def setXRange(self, *args: Any, **kwargs: Any) -> None:
        """A subclass that sets the x range itself keeps it: the stepped range below leaves it alone."""
        self._manage_x = False
        self.getPlotItem().setXRange(*args, **kwargs)

    def fit_x(self) -> None:
        """The series are complete (the check ended, a saved run): the x range fits them, no headroom."""
        self._grow_x(headroom=0.0, force=True)

    def _grow_x(self, headroom: float = X_HEADROOM, force: bool = False) -> None:
        """Fit the x range to the points, in steps: wider by X_HEADROOM when a point passes the right edge."""
        if not self._manage_x:
            return
        lows, highs = [], []
        for ring in self.rings.values():
            if len(ring):
                lo, hi = ring.x_bounds()
                if lo is not None and hi is not None:
                    lows.append(lo)
                    highs.append(hi)
        if not lows:
            return
        lo, hi = min(lows + list(self.x_include)), max(highs + list(self.x_include))
        shown = self._x_range
        if not force and shown is not None and shown[0] <= lo and hi <= shown[1]:
            return  # every point is in view: the axes stay as they are
        span = hi - lo if hi > lo else max(abs(hi), 1.0)
        wanted = (lo, hi + headroom * span) if hi > lo or headroom else (lo - 0.5, hi + 0.5)
        if wanted == shown:
            return  # a range set again would still regenerate the axes and repaint the chart
        self._x_range = wanted
        self.getPlotItem().getViewBox().setXRange(*wanted, padding=0.02)

    def reset(self) -> None:
        """Forget all data (a new check starts). Only the title can have changed: axis labels and legend stay
        (re-laying out ten charts' HTML labels froze the window for ~0.3 s at the start of a check)."""
        for ring in self.rings.values():
            ring.clear()
        self._x_range = None
        self.x_include = ()
        self.set_suffix("")
        self.set_reason(None)

    def has_data(self) -> bool:
        """True when the chart draws at least one point (bar charts say so themselves)."""
        return any(len(ring) for ring in self.rings.values())

    def set_reason(self, reason: str | Callable[[], str] | None) -> None:
        """Replace the plot by one line saying why it has nothing to draw (None shows the plot again); a function
        when the line has words in it, so that a language switch writes it again."""
        self._reason_source = reason
        if reason is None:
            self.empty.hide()
            return
        self.empty.show_reason(tr(self._keys[0]), reason() if callable(reason) else reason)

    @property
    def reason(self) -> str:
        """The line shown instead of the plot ("" while the plot is shown)."""
        return self.empty.reason.text() if self._reason_source is not None else ""

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if hasattr(self, "empty"):
            self.empty.setGeometry(self.rect())
            if self._suffix and event.size().width() != event.oldSize().width():
                self._set_title()  # shortened to the new width

    def set_suffix(self, text: str | Callable[[], str]) -> None:
        """A short result after the title, e.g. 'MBU 61%'; a function when it has words in it, so that a language
        switch writes it again."""
        self._suffix_source = text
        rendered = text() if callable(text) else text
        if rendered != self._suffix:
            self._suffix = rendered
            self._set_title()

    def _set_title(self) -> None:
        # Two lines: the short title, then the step's headline result (or a blank line to keep plots aligned).
        # A result wider than the chart is shortened with an ellipsis (the whole line is in the tooltip) rather
        # than cut at the chart's edge.
        suffix = self._suffix
        if suffix and self.width() > 0:
            font = QFont(self.font())
            font.setPointSizeF(TITLE_PT)
            suffix = QFontMetrics(font).elidedText(suffix, Qt.TextElideMode.ElideRight,
                                                   max(self.width() - TITLE_MARGIN_PX, 40))
        self._shown_suffix = suffix
        title = (f"<b>{html.escape(tr(self._keys[0]))}</b><br><span style='color:{theme.MUTED}'>"
                 f"{html.escape(suffix) or '&nbsp;'}</span>")
        self.getPlotItem().setTitle(title, size=f"{TITLE_PT:g}pt", color=theme.TEXT)
        self._set_tooltip()

    def _set_tooltip(self) -> None:
        """The chart's plain-words help, and the whole result line when the title had to shorten it."""
        parts = [tr(self.help_key)] if self.help_key else []
        if self._suffix and getattr(self, "_shown_suffix", self._suffix) != self._suffix:
            parts.insert(0, self._suffix)
        tip = "\n\n".join(parts)
        if self.toolTip() != tip:
            self.setToolTip(tip)

    def retranslate(self) -> None:
        """Re-read title, axis labels and legend in the current language."""
        _, x_key, y_key = self._keys
        if callable(self._suffix_source):
            self._suffix = self._suffix_source()
        self._set_title()
        item = self.getPlotItem()
        item.setLabel("bottom", tr(x_key), color=theme.MUTED, **{"font-size": "8pt"})
        item.setLabel("left", tr(y_key), color=theme.MUTED, **{"font-size": "8pt"})
        self._rebuild_legend()
        if getattr(self, "_reason_source", None) is not None:
            self.set_reason(self._reason_source)

    def _rebuild_legend(self) -> None:
        self.legend.clear()
        labelled = [(item, tr(self._labels[key])) for key, item in self.items.items() if self._labels.get(key)]
        # Side by side when the labels are short enough to fit half the narrowest chart, else one a line.
        fits = LEGEND_LABEL_FITS * self.columns
        self.legend.setColumnCount(LEGEND_COLUMNS if all(_width(t) <= fits for _, t in labelled) else 1)
        for item, text in labelled:
            self.legend.addItem(item, text)
        self.legend.setVisible(bool(labelled))

    # Subclasses route events; the defaults ignore them.
    def on_sample(self, series: str, x: float, y: float) -> None:
        """A live point of one of this chart's steps."""

    def on_done(self, step: str, evidence: StepEvidence | None) -> None:
        """The step ended: draw the final state from its evidence (also used to replay saved runs)."""


class _EmptyCard(QWidget):
    """The chart's title and, under it, why there is nothing to draw; covers the whole chart."""

    def __init__(self, chart: QWidget) -> None:
        super().__init__(chart)
        self.setObjectName("chartEmpty")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(f"QWidget#chartEmpty {{ background: {theme.CARD}; }}")
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 9pt; font-weight: 700;")
        self.reason = QLabel()
        self.reason.setObjectName("muted")
        self.reason.setStyleSheet(f"color: {theme.MUTED};")
        for label in (self.title, self.reason):
            label.setWordWrap(True)
            label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addWidget(self.title)
        layout.addStretch(1)
        layout.addWidget(self.reason)
        layout.addStretch(2)
        self.hide()

    def show_reason(self, title: str, reason: str) -> None:
        self.title.setText(title)
        self.reason.setText(reason)
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())
        self.show()
        self.raise_()


def _width(text: str) -> int:
    """Rough width of a label in Latin characters: CJK characters are about twice as wide."""
    return sum(2 if ord(c) >= 0x2E80 else 1 for c in text)


def num(value: object) -> float | None:
    """A finite float or None (evidence may hold None, strings or NaN)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if f == f and abs(f) != float("inf") else None
