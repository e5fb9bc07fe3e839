"""Small inline SVG charts (line and bar) for the HTML report: axes, ticks, labels, legend, nothing else.

Pure string building, no dependencies, every piece of text through `html.escape`. Charts must stay
readable when printed and in dark mode, so colours come from CSS classes the report's style defines.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape

from advisor.report.tree import BarChart, Chart, LineChart

W, H = 560, 270
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 48, 44
N_SERIES_CLASSES = 4

Label = Callable[[str], str]


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (1-2-5 steps)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return []
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    ticks, value = [], first
    while value <= hi + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < hi:
        ticks.append(round(value, 10))
    return ticks


def fmt_tick(value: float) -> str:
    """A short tick label: no trailing zeros, thousands as k."""
    if abs(value) >= 10_000:
        return f"{value / 1000:g}k"
    return f"{value:.4g}"


def _text(x: float, y: float, content: str, cls: str = "", anchor: str = "middle", extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="{cls}"{extra}>'
            f"{escape(content)}</text>")


def _frame(title: str, x_label: str, y_label: str, y_ticks: list[float], y_pos: Callable[[float], float],
           y_fmt: Callable[[float], str]) -> list[str]:
    parts = [f'<title>{escape(title)}</title>', _text(LEFT, 16, title, "ct", "start")]
    for tick in y_ticks:
        y = y_pos(tick)
        parts.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        parts.append(_text(LEFT - 6, y + 4, y_fmt(tick), "tk", "end"))
    parts.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{H - BOTTOM}" class="axis"/>')
    parts.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{H - BOTTOM}" y2="{H - BOTTOM}" class="axis"/>')
    parts.append(_text((LEFT + W - RIGHT) / 2, H - 8, x_label, "al"))
    mid = (TOP + H - BOTTOM) / 2
    parts.append(_text(14, mid, y_label, "al", extra=f' transform="rotate(-90 14 {mid:.1f})"'))
    return parts


def _svg(parts: Sequence[str], title: str) -> str:
    body = "".join(parts)
    return (f'<svg viewBox="0 0 {W} {H}" role="img" '
            f'aria-label="{escape(title)}" class="chart">{body}</svg>')


def _text_width(label: str) -> float:
    # Rough advance widths at 11px: CJK glyphs are about twice as wide as Latin ones.
    return sum(11.0 if ord(ch) > 0x2E7F else 6.2 for ch in label)


def _legend(entries: Sequence[tuple[str, str]]) -> list[str]:
    """One row under the title, left-aligned, so long titles and legends never collide."""
    parts, x = [], float(LEFT)
    for label, cls in entries:
        parts.append(f'<rect x="{x:.1f}" y="26" width="10" height="10" rx="2" class="{cls}"/>')
        parts.append(_text(x + 14, 35, label, "lg", "start"))
        x += 14 + _text_width(label) + 16
    return parts


def line_chart(chart: LineChart, label: Label) -> str:
    """Draw a `series.py` line chart; `label(key)` translates axis and series keys."""
    series = [s for s in chart.series if s.points]
    band = chart.band
    refs = chart.ref_lines
    log2 = chart.x_log2
    xs = [p[0] for s in series for p in s.points]
    ys = [p[1] for s in series for p in s.points]
    ys += [p[1] for p in (*band.low, *band.high)] if band is not None else []
    ys += [r.y for r in refs]
    if not xs:
        return ""

    def tx(x: float) -> float:
        return math.log2(x) if log2 and x > 0 else x

    x_lo, x_hi = min(tx(x) for x in xs), max(tx(x) for x in xs)
    x_hi = x_hi if x_hi > x_lo else x_lo + 1
    y_ticks = nice_ticks(min(0.0, min(ys)) if chart.y_from_zero else min(ys), max(ys))
    y_lo, y_hi = y_ticks[0], y_ticks[-1]

    def px(x: float) -> float:
        return LEFT + (tx(x) - x_lo) / (x_hi - x_lo) * (W - LEFT - RIGHT)

    def py(y: float) -> float:
        return H - BOTTOM - (y - y_lo) / ((y_hi - y_lo) or 1) * (H - TOP - BOTTOM)

    title = label(f"chart.{chart.id}")
    parts = _frame(title, label(f"axis.{chart.x_axis}"), label(f"axis.{chart.y_axis}"), y_ticks, py, fmt_tick)
    x_ticks = sorted(set(xs)) if log2 or len(set(xs)) <= 12 else nice_ticks(min(xs), max(xs))
    for x in x_ticks:
        parts.append(_text(px(x), H - BOTTOM + 16, fmt_tick(x), "tk"))
    if band is not None and band.low and band.high:
        outline = [*band.low, *reversed(band.high)]
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in outline)
        parts.append(f'<polygon points="{pts}" class="band"/>')
    for ref in refs:
        y = py(ref.y)
        cls = "ref warn" if ref.key == "trap_threshold" else "ref"
        parts.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" class="{cls}"/>')
        # the label carries the line's own value, so a policy override moves the words with the line
        parts.append(_text(W - RIGHT - 4, y - 4, label(f"series.{ref.key}").format(value=ref.y), "rl", "end"))
    marker = chart.marker_x
    if marker is not None and (not log2 or marker > 0):
        x = px(marker)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{H - BOTTOM}" class="ref warn"/>')
        parts.append(_text(x + 4, TOP + 12, label(f"series.{chart.marker_key or 'crossover'}"), "rl", "start"))
    legend = []
    for i, s in enumerate(series):
        cls = f"s{i % N_SERIES_CLASSES}"
        if s.dots:
            parts.extend(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" class="dot {cls}"/>'
                         for x, y in s.points)
        else:
            pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in s.points)
            parts.append(f'<polyline points="{pts}" class="line {cls}"/>')
        legend.append((label(f"series.{s.key}"), cls))
    parts.extend(_legend(legend))
    return _svg(parts, title)


def bar_chart(chart: BarChart, label: Label) -> str:
    """Draw a `series.py` bar chart with CI whiskers; values are fractions shown as percentages."""
    cats = [label(f"category.{c}") for c in chart.categories]  # a kind of task, in words
    values = list(chart.values)
    if not cats:
        return ""
    highs = [h for h in chart.high if h is not None]
    y_ticks = nice_ticks(0.0, float(chart.y_max or max([*values, *highs])))
    y_hi = y_ticks[-1]

    def py(y: float) -> float:
        return H - BOTTOM - y / (y_hi or 1) * (H - TOP - BOTTOM)

    title = label(f"chart.{chart.id}")
    parts = _frame(title, "", label(f"axis.{chart.y_axis}"), y_ticks, py, lambda v: f"{v:.0%}")
    slot = (W - LEFT - RIGHT) / len(cats)
    bar_w = min(48.0, slot * 0.6)
    lows, highs_all = chart.low, chart.high
    for i, (cat, value) in enumerate(zip(cats, values, strict=False)):
        cx = LEFT + slot * (i + 0.5)
        top = py(value)
        parts.append(f'<rect x="{cx - bar_w / 2:.1f}" y="{top:.1f}" width="{bar_w:.1f}" '
                     f'height="{H - BOTTOM - top:.1f}" rx="2" class="bar"><title>{escape(cat)}: '
                     f'{value:.0%}</title></rect>')
        lo = lows[i] if i < len(lows) else None
        hi = highs_all[i] if i < len(highs_all) else None
        if lo is not None and hi is not None:
            parts.append(f'<path d="M{cx:.1f} {py(lo):.1f}V{py(hi):.1f}M{cx - 5:.1f} {py(lo):.1f}h10'
                         f'M{cx - 5:.1f} {py(hi):.1f}h10" class="whisker"/>')
        label_y = min(top, py(hi)) - 6 if hi is not None else top - 6
        parts.append(_text(cx, label_y if label_y > TOP else top + 14, f"{value:.0%}", "bv"))
        parts.append(_text(cx, H - BOTTOM + 16, cat[:14], "tk"))
    return _svg(parts, title)


def chart_svg(chart: Chart, label: Label) -> str:
    """Draw any chart from `series.py` ('' when it has nothing to draw)."""
    return bar_chart(chart, label) if isinstance(chart, BarChart) else line_chart(chart, label)
