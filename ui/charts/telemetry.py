"""GPU telemetry under the step charts: utilisation and memory-busy duty cycle from `GpuSampler` (10 Hz).

The sampler keeps its own thread; this chart only reads new samples on the redraw timer.
"""

from __future__ import annotations

import time

from advisor.evidence.schema import Evidence
from probes.gpu.sampler import GpuSampler
from ui import theme
from ui.charts.base import LiveChart, num
from ui.strings import tr


class TelemetryChart(LiveChart):
    """Starts the sampler while a check runs; without NVML (or in a saved run) it says why there is nothing to
    draw instead of showing an empty 0–1 chart."""

    columns = 2

    def __init__(self) -> None:
        super().__init__("chart.telemetry", "axis.time", "axis.pct")
        self.add_series("util", "series.util", theme.BLUE)
        self.add_series("mem", "series.membusy", theme.ORANGE)
        self.setYRange(0, 100, padding=0.02)
        self.sampler: GpuSampler | None = None
        self._t0 = time.monotonic()
        self._last_t = -1.0

    def start(self) -> None:
        """Begin sampling (no-op without a GPU, but then the chart says so)."""
        self.stop()
        self._t0, self._last_t = time.monotonic(), -1.0
        self.sampler = GpuSampler(interval_s=0.1).start()
        if self.sampler.available is not None:
            self.set_reason(lambda: tr("chart.empty.no_gpu"))

    def stop(self) -> None:
        """Stop sampling; the drawn curve stays."""
        if self.sampler is not None:
            self.sampler.stop()
            self.sampler = None

    @property
    def available(self) -> bool:
        """True while a sampler is running on a real GPU."""
        return self.sampler is not None and self.sampler.available is None

    def show_saved(self, evidence: Evidence) -> None:
        """A saved run keeps a summary of its samples, not the curve: say so, with the averages it kept."""
        gpu = evidence.environment.gpu if evidence.environment is not None else None
        if gpu is not None and gpu.status != "ok":
            self.set_reason(lambda: tr("chart.empty.no_gpu_saved"))
            return
        summary = evidence.telemetry
        util = num(summary.mean_util_gpu_pct) if summary is not None else None
        mem = num(summary.mean_util_memory_pct) if summary is not None else None
        if summary is None or not summary.n_samples or util is None or mem is None:
            self.set_reason(lambda: tr("chart.empty.saved_no_samples"))
        else:
            shown = {"util": f"{util:.0f}%", "mem": f"{mem:.0f}%"}
            self.set_reason(lambda: tr("chart.empty.saved_telemetry", **shown))

    def refresh(self) -> int:
        if self.sampler is not None and self.sampler.available is None:
            fresh = []
            for s in reversed(self.sampler.samples()):  # newest first: stop at the first one already drawn
                if s.t_s <= self._last_t:
                    break
                if s.index == 0:
                    fresh.append(s)
            for s in reversed(fresh):
                self._last_t = s.t_s
                t = s.t_s - self._t0
                self.append("util", t, float(s.util_gpu_pct) if s.util_gpu_pct is not None else float("nan"))
                self.append("mem", t, float(s.util_memory_pct) if s.util_memory_pct is not None else float("nan"))
        return super().refresh()
