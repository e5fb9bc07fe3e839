"""Background NVML sampler (~10 Hz) for the steps: clocks, utilisation, power, temperature, throttling.

Without a GPU it starts and stops like any other and simply records nothing (`available` says why).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from probes.base import Unavailable
from probes.gpu.nvml import THROTTLING_REASONS, Nvml, decode_clock_event_reasons, open_nvml
from probes.serialize import as_dict


@dataclass(frozen=True, slots=True)
class GpuSample:
    """One reading of one GPU; `t_s` is `time.monotonic()`. None = not readable (the snapshot says why)."""

    t_s: float
    index: int
    sm_clock_mhz: int | None
    memory_clock_mhz: int | None
    util_gpu_pct: int | None
    util_memory_pct: int | None  # a duty cycle (time memory was busy), not a fraction of peak bandwidth
    power_w: float | None
    temperature_c: int | None
    clock_event_reasons: tuple[str, ...]

    @property
    def throttled(self) -> bool:
        """True when a power/thermal/slowdown reason is active (idle and app-clock settings do not count)."""
        return any(r in THROTTLING_REASONS for r in self.clock_event_reasons)


@dataclass(frozen=True, slots=True)
class SamplerSummary:
    """Aggregates over all kept samples; None where no sample had the value."""

    n_samples: int
    duration_s: float
    throttled_fraction: float | None
    reasons_seen: tuple[str, ...]
    max_temperature_c: int | None
    mean_power_w: float | None
    max_power_w: float | None
    mean_util_gpu_pct: float | None
    mean_util_memory_pct: float | None
    min_sm_clock_mhz: int | None
    min_memory_clock_mhz: int | None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict of the fields above."""
        return as_dict(self)


def _value(nvml: Nvml, function: str, *args: Any) -> Any:
    result = nvml.call(function, *args)
    return None if isinstance(result, Unavailable) else result


def read_sample(nvml: Nvml, index: int, handle: Any) -> GpuSample:
    """One guarded reading of every sampled field."""
    util = _value(nvml, "nvmlDeviceGetUtilizationRates", handle)
    power_mw = _value(nvml, "nvmlDeviceGetPowerUsage", handle)
    temp_sensor = nvml.constant("NVML_TEMPERATURE_GPU", 0)
    mask = nvml.call_first(
        ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"), handle
    )
    return GpuSample(
        t_s=time.monotonic(),
        index=index,
        sm_clock_mhz=_value(nvml, "nvmlDeviceGetClockInfo", handle, nvml.constant("NVML_CLOCK_SM", 1)),
        memory_clock_mhz=_value(nvml, "nvmlDeviceGetClockInfo", handle, nvml.constant("NVML_CLOCK_MEM", 2)),
        util_gpu_pct=None if util is None else int(util.gpu),
        util_memory_pct=None if util is None else int(util.memory),
        power_w=None if power_mw is None else power_mw / 1000.0,
        temperature_c=_value(nvml, "nvmlDeviceGetTemperature", handle, temp_sensor),
        clock_event_reasons=() if isinstance(mask, Unavailable) else decode_clock_event_reasons(mask),
    )


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(samples: list[GpuSample]) -> SamplerSummary:
    """Summary of a list of samples (pure; usable on saved samples too)."""
    def present(name: str) -> list[Any]:
        return [v for s in samples if (v := getattr(s, name)) is not None]

    temps, power = present("temperature_c"), present("power_w")
    sm, mem = present("sm_clock_mhz"), present("memory_clock_mhz")
    reasons = sorted({r for s in samples for r in s.clock_event_reasons})
    return SamplerSummary(
        n_samples=len(samples),
        duration_s=(samples[-1].t_s - samples[0].t_s) if samples else 0.0,
        throttled_fraction=(sum(s.throttled for s in samples) / len(samples)) if samples else None,
        reasons_seen=tuple(reasons),
        max_temperature_c=max(temps) if temps else None,
        mean_power_w=_mean(power),
        max_power_w=max(power) if power else None,
        mean_util_gpu_pct=_mean(present("util_gpu_pct")),
        mean_util_memory_pct=_mean(present("util_memory_pct")),
        min_sm_clock_mhz=min(sm) if sm else None,
        min_memory_clock_mhz=min(mem) if mem else None,
    )


class GpuSampler:
    """Samples every GPU every `interval_s` seconds on a daemon thread into a ring buffer of `max_samples`."""

    def __init__(self, interval_s: float = 0.1, max_samples: int = 36_000) -> None:
        self.interval_s = interval_s
        self._buffer: deque[GpuSample] = deque(maxlen=max_samples)  # 36k = one hour at 10 Hz
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.available: Unavailable | None = None  # why nothing is sampled, once started

    def start(self) -> GpuSampler:
        """Open NVML and begin sampling; without a GPU this records the reason and does nothing."""
        if self._thread is not None:
            return self
        nvml = open_nvml()
        if isinstance(nvml, Unavailable):
            self.available = nvml
            return self
        handles = self._handles(nvml)
        if not handles:
            nvml.close()
            self.available = Unavailable("no-device", "no GPU handle could be opened")
            return self
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run, args=(nvml, handles), name="gpu-sampler", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop promptly (the thread waits on an Event, not a sleep) and shut NVML down."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None

    def samples(self) -> list[GpuSample]:
        """A copy of the kept samples, oldest first."""
        with self._lock:
            return list(self._buffer)

    def summary(self) -> SamplerSummary:
        """`summarize()` over the kept samples."""
        return summarize(self.samples())

    def __enter__(self) -> GpuSampler:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @staticmethod
    def _handles(nvml: Nvml) -> list[tuple[int, Any]]:
        count = nvml.call("nvmlDeviceGetCount")
        if isinstance(count, Unavailable):
            return []
        found = [(i, nvml.call("nvmlDeviceGetHandleByIndex", i)) for i in range(int(count))]
        return [(i, h) for i, h in found if not isinstance(h, Unavailable)]

    def _run(self, nvml: Nvml, handles: list[tuple[int, Any]]) -> None:
        try:
            next_at = time.monotonic()
            while not self._stop.is_set():
                batch = [read_sample(nvml, i, h) for i, h in handles]
                with self._lock:
                    self._buffer.extend(batch)
                # Fixed-rate schedule; if a reading overran, start the next one at once instead of drifting.
                next_at = max(next_at + self.interval_s, time.monotonic())
                self._stop.wait(max(0.0, next_at - time.monotonic()))
        finally:
            nvml.close()
