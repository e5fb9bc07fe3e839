"""A small Prometheus text-format (0.0.4) parser and the counter arithmetic adapters share.

Only what engines emit matters here: counters, gauges and the samples of histograms/summaries, each as a
flat `Sample`. Types and help text are not needed to read a value, so comment lines are skipped. A line
that does not parse is counted in `MetricFamilies.skipped` rather than failing the whole scrape: one odd
series from a newer engine must not hide the speculative counters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from probes.base import Unavailable
from probes.engines.base import SpecCounters

_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(,)?')
_UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


@dataclass(frozen=True, slots=True)
class Sample:
    """One series value: full sample name (with `_total` etc. as written), its labels, the value."""

    name: str
    labels: Mapping[str, str]
    value: float


class MetricFamilies(dict[str, list[Sample]]):
    """Samples keyed by sample name; `skipped` counts lines that could not be parsed."""

    __slots__ = ("skipped",)

    def __init__(self) -> None:
        super().__init__()
        self.skipped = 0


def _parse_labels(text: str) -> dict[str, str] | None:
    """Parse the inside of `{...}`; None when malformed."""
    labels: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        if not text[pos:].strip():
            break
        m = _LABEL.match(text, pos)
        if m is None:
            return None
        raw = m.group(2)
        labels[m.group(1)] = re.sub(r'\\[\\"n]', lambda e: _UNESCAPE[e.group(0)], raw)
        pos = m.end()
        if m.group(3) is None and text[pos:].strip():
            return None  # two labels without a comma between them
    return labels


def _parse_line(line: str) -> Sample | None:
    m = _NAME.match(line)
    if m is None:
        return None
    name, rest = m.group(0), line[m.end():]
    labels: dict[str, str] = {}
    if rest.startswith("{"):
        # the closing brace is the first one outside a quoted label value
        close, quoted, escaped = -1, False, False
        for i, ch in enumerate(rest):
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = not quoted
            elif ch == "}" and not quoted:
                close = i
                break
        parsed = _parse_labels(rest[1:close]) if close > 0 else None
        if parsed is None:
            return None
        labels, rest = parsed, rest[close + 1:]
    fields = rest.split()
    if not fields or len(fields) > 2:  # value and an optional timestamp
        return None
    try:
        value = float(fields[0])  # float() accepts NaN, +Inf, -Inf as the format writes them
    except ValueError:
        return None
    return Sample(name, labels, value)


def parse_prometheus(text: str) -> MetricFamilies:
    """Parse a scrape into samples keyed by sample name; never raises on bad lines."""
    out = MetricFamilies()
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        sample = _parse_line(line)
        if sample is None:
            out.skipped += 1
            continue
        out.setdefault(sample.name, []).append(sample)
    return out


def series(metrics: Mapping[str, list[Sample]], name: str, **labels: str) -> list[Sample]:
    """Samples of `name` whose labels include `labels`; `name` matches with or without `_total`.

    prometheus_client appends `_total` to counters, older exporters did not; accepting both keeps one
    lookup working across engine versions.
    """
    base = name.removesuffix("_total")
    found = metrics.get(name) or metrics.get(base + "_total") or metrics.get(base) or []
    return [s for s in found if all(s.labels.get(k) == v for k, v in labels.items())]


def value(metrics: Mapping[str, list[Sample]], name: str, **labels: str) -> float | None:
    """The value of the one series matching; None when none does. Several matches raise ValueError."""
    found = series(metrics, name, **labels)
    if len(found) > 1:
        raise ValueError(f"{len(found)} series of {name} match {labels}; use sum_by")
    return found[0].value if found else None


def sum_by(metrics: Mapping[str, list[Sample]], name: str, **labels: str) -> float | None:
    """Sum over every series of `name` matching `labels` (e.g. over vLLM engines); None when absent."""
    found = series(metrics, name, **labels)
    return sum(s.value for s in found) if found else None


def group_by(metrics: Mapping[str, list[Sample]], name: str, label: str, **labels: str) -> dict[str, float]:
    """Sum of `name` per value of `label` (e.g. per `position`), over series lacking it nothing."""
    out: dict[str, float] = {}
    for s in series(metrics, name, **labels):
        key = s.labels.get(label)
        if key is not None:
            out[key] = out.get(key, 0.0) + s.value
    return out


# --- counter arithmetic shared by the adapters that expose vLLM-style spec counters ---------------------


def counters_delta(after: SpecCounters, before: SpecCounters) -> SpecCounters | Unavailable:
    """Counter deltas over a window, or why not: a counter that went backwards means a restart."""
    try:
        return after.minus(before)
    except ValueError as exc:
        return Unavailable("error", f"counter reset: {exc}; re-run the window")


def acceptance_rate(c: SpecCounters) -> float | Unavailable:
    """Accepted draft tokens / drafted tokens (0..1), vLLM's definition."""
    if not math.isfinite(c.draft_tokens) or c.draft_tokens <= 0:
        return Unavailable("not-found", "no draft tokens counted yet")
    return c.accepted_tokens / c.draft_tokens


def mean_acceptance_length(c: SpecCounters) -> float | Unavailable:
    """1 + accepted / verify steps (tokens per target forward, bonus token included)."""
    if not math.isfinite(c.drafts) or c.drafts <= 0:
        return Unavailable("not-found", "no verify steps with a draft counted yet")
    return 1.0 + c.accepted_tokens / c.drafts


def per_position_rates(c: SpecCounters) -> tuple[float, ...] | Unavailable:
    """Acceptance rate at each draft position: accepted at position i / verify steps."""
    if not c.accepted_per_position:
        return Unavailable("not-found", "no per-position counters")
    if c.drafts <= 0:
        return Unavailable("not-found", "no verify steps with a draft counted yet")
    return tuple(a / c.drafts for a in c.accepted_per_position)
