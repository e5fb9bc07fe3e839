"""GPU probe and sampler against a fake `pynvml` injected into sys.modules (no GPU needed)."""

from __future__ import annotations

import json
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from probes.base import Unavailable
from probes.gpu.nvml import decode_clock_event_reasons
from probes.gpu.probe import peak_bandwidth_gbs, probe_gpus, table_bandwidth_gbs
from probes.gpu.sampler import GpuSampler

NOT_SUPPORTED, DRIVER_NOT_LOADED, LIBRARY_NOT_FOUND, FUNCTION_NOT_FOUND = 3, 9, 12, 13


class FakeNVMLError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(f"NVML error {value}")
        self.value = value


@dataclass
class Mem:
    total: int
    free: int
    used: int


@dataclass
class Util:
    gpu: int
    memory: int


@dataclass
class Proc:
    pid: int
    usedGpuMemory: int | None  # the NVML struct's field name


def fake_pynvml(
    *,
    count: int = 1,
    init_error: int | None = None,
    not_supported: frozenset[str] = frozenset(),
    missing: frozenset[str] = frozenset(),
) -> types.ModuleType:
    """A module shaped like pynvml describing an RTX 4090; `not_supported` names raise NotSupported."""
    mod = types.ModuleType("pynvml")
    calls: dict[str, int] = {"shutdown": 0}
    gib = 1024**3

    def guard(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            if name in not_supported:
                raise FakeNVMLError(NOT_SUPPORTED)
            return fn(*args)

        return wrapper

    def init() -> None:
        if init_error is not None:
            raise FakeNVMLError(init_error)

    def shutdown() -> None:
        calls["shutdown"] += 1

    functions: dict[str, Callable[..., Any]] = {
        "nvmlInit": init,
        "nvmlShutdown": shutdown,
        "nvmlSystemGetDriverVersion": lambda: "550.54.14",
        "nvmlSystemGetCudaDriverVersion": lambda: 12040,
        "nvmlDeviceGetCount": lambda: count,
        "nvmlDeviceGetHandleByIndex": lambda i: f"handle{i}",
        "nvmlDeviceGetName": lambda h: b"NVIDIA GeForce RTX 4090",  # old bindings return bytes
        "nvmlDeviceGetUUID": lambda h: "GPU-1234",
        "nvmlDeviceGetMemoryInfo": lambda h: Mem(24 * gib, 20 * gib, 4 * gib),
        "nvmlDeviceGetMemoryBusWidth": lambda h: 384,
        "nvmlDeviceGetMaxClockInfo": lambda h, clock: {1: 3120, 2: 10501}[clock],
        "nvmlDeviceGetClockInfo": lambda h, clock: {1: 2520, 2: 10251}[clock],
        "nvmlDeviceGetUtilizationRates": lambda h: Util(97, 80),
        "nvmlDeviceGetCurrPcieLinkGeneration": lambda h: 4,
        "nvmlDeviceGetMaxPcieLinkGeneration": lambda h: 4,
        "nvmlDeviceGetCurrPcieLinkWidth": lambda h: 16,
        "nvmlDeviceGetMaxPcieLinkWidth": lambda h: 16,
        "nvmlDeviceGetPowerUsage": lambda h: 350_500,
        "nvmlDeviceGetEnforcedPowerLimit": lambda h: 450_000,
        "nvmlDeviceGetTemperature": lambda h, sensor: 66,
        "nvmlDeviceGetCurrentClocksEventReasons": lambda h: 0x4 | 0x20,
        "nvmlDeviceGetCurrentClocksThrottleReasons": lambda h: 0x4 | 0x20,
        "nvmlDeviceGetCudaComputeCapability": lambda h: (8, 9),
        "nvmlDeviceGetComputeRunningProcesses": lambda h: [Proc(4242, 3 * gib)],
        "nvmlDeviceGetGraphicsRunningProcesses": lambda h: [Proc(4242, 3 * gib), Proc(77, None)],
        "nvmlSystemGetProcessName": lambda pid: {4242: "/usr/bin/llama-server", 77: "Xorg"}[pid],
    }
    for name, fn in functions.items():
        if name not in missing:
            setattr(mod, name, guard(name, fn))
    mod.NVMLError = FakeNVMLError  # type: ignore[attr-defined]
    mod.NVML_ERROR_NOT_SUPPORTED = NOT_SUPPORTED  # type: ignore[attr-defined]
    mod.NVML_CLOCK_SM, mod.NVML_CLOCK_MEM, mod.NVML_TEMPERATURE_GPU = 1, 2, 0  # type: ignore[attr-defined]
    mod.calls = calls  # type: ignore[attr-defined]
    return mod


@pytest.fixture
def install(monkeypatch: pytest.MonkeyPatch) -> Callable[..., types.ModuleType]:
    def _install(**kwargs: Any) -> types.ModuleType:
        mod = fake_pynvml(**kwargs)
        monkeypatch.setitem(sys.modules, "pynvml", mod)
        return mod

    return _install


def test_rtx_4090_like_card(install: Callable[..., types.ModuleType]) -> None:
    mod = install()
    report = probe_gpus()
    assert report.status == "ok"
    assert report.driver_version == "550.54.14" and report.cuda_driver_version == "12.4"
    gpu = report.gpus[0]
    assert gpu.name == "NVIDIA GeForce RTX 4090"
    assert gpu.peak_bandwidth_gbs == pytest.approx(1008.1, abs=0.05)  # 2 × 10501 MHz × 384 bit / 8
    assert gpu.peak_bandwidth_source == "nvml"
    assert gpu.vram_total_gib == 24.0 and gpu.vram_free_gib == 20.0
    assert gpu.power_draw_w == pytest.approx(350.5) and gpu.power_limit_w == 450.0
    assert gpu.clock_event_reasons == ("sw-power-cap", "sw-thermal-slowdown")
    assert gpu.compute_capability == "8.9"
    assert gpu.pcie_gen_current == 4 and gpu.pcie_width_max == 16
    procs = gpu.processes
    assert not isinstance(procs, Unavailable)
    assert [(p.pid, p.name, p.kind) for p in procs] == [(4242, "llama-server", "compute"), (77, "Xorg", "graphics")]
    assert procs[1].used_memory_gib == Unavailable("not-supported", "usedGpuMemory")
    assert mod.calls["shutdown"] == 1
    json.dumps(report.to_dict())  # JSON-ready


def test_library_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` raise ImportError
    report = probe_gpus()
    assert report.status == "no-driver" and report.gpus == ()
    assert isinstance(report.driver_version, Unavailable) and report.driver_version.reason == "no-driver"
    assert report.to_dict()["driver_version"] == {"unavailable": "no-driver", "detail": report.detail}


@pytest.mark.parametrize("code", [LIBRARY_NOT_FOUND, DRIVER_NOT_LOADED])
def test_driver_not_loaded(install: Callable[..., types.ModuleType], code: int) -> None:
    install(init_error=code)
    report = probe_gpus()
    assert report.status == "no-driver"
    assert str(code) in report.detail


def test_no_devices(install: Callable[..., types.ModuleType]) -> None:
    mod = install(count=0)
    report = probe_gpus()
    assert report.status == "no-device" and report.gpus == ()
    assert mod.calls["shutdown"] == 1


def test_not_supported_per_field(install: Callable[..., types.ModuleType]) -> None:
    install(not_supported=frozenset({"nvmlDeviceGetPowerUsage", "nvmlDeviceGetMemoryBusWidth"}))
    gpu = probe_gpus().gpus[0]
    assert gpu.power_draw_w == Unavailable("not-supported", "NVML error 3")
    assert gpu.memory_bus_width_bits == Unavailable("not-supported", "NVML error 3")
    # Bus width missing → the documented name table still gives the 4090's peak.
    assert gpu.peak_bandwidth_gbs == 1008.0 and gpu.peak_bandwidth_source == "name-table"
    assert gpu.power_limit_w == 450.0  # other fields unaffected
    assert gpu.to_dict()["power_draw_w"] == {"unavailable": "not-supported", "detail": "NVML error 3"}


def test_function_missing_falls_back_to_old_throttle_name(install: Callable[..., types.ModuleType]) -> None:
    install(missing=frozenset({"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCudaComputeCapability"}))
    gpu = probe_gpus().gpus[0]
    assert gpu.clock_event_reasons == ("sw-power-cap", "sw-thermal-slowdown")
    assert isinstance(gpu.compute_capability, Unavailable)
    assert gpu.compute_capability.reason == "function-missing"


def test_bandwidth_formula_and_table() -> None:
    assert peak_bandwidth_gbs(7000, 256) == pytest.approx(448.0)
    assert peak_bandwidth_gbs(14001, 512) == pytest.approx(1792.1, abs=0.1)
    assert table_bandwidth_gbs("NVIDIA GeForce RTX 3090 Ti") == 1008.0
    assert table_bandwidth_gbs("NVIDIA GeForce RTX 3090") == 936.0
    assert table_bandwidth_gbs("Some Future Card") is None
    assert decode_clock_event_reasons(0x1 | 0x1000) == ("gpu-idle", "bit-0x1000")


def test_sampler_with_fake_gpu(install: Callable[..., types.ModuleType]) -> None:
    mod = install()
    with GpuSampler(interval_s=0.01, max_samples=50) as sampler:
        time.sleep(0.15)
    samples = sampler.samples()
    assert 3 <= len(samples) <= 50
    assert samples[0].sm_clock_mhz == 2520 and samples[0].power_w == pytest.approx(350.5)
    summary = sampler.summary()
    assert summary.throttled_fraction == 1.0
    assert summary.max_temperature_c == 66 and summary.mean_util_gpu_pct == 97
    assert mod.calls["shutdown"] == 1
    json.dumps(summary.to_dict())


def test_sampler_ring_buffer_is_bounded(install: Callable[..., types.ModuleType]) -> None:
    install()
    with GpuSampler(interval_s=0.001, max_samples=5) as sampler:
        time.sleep(0.05)
    assert len(sampler.samples()) == 5


def test_sampler_stops_promptly(install: Callable[..., types.ModuleType]) -> None:
    install()
    sampler = GpuSampler(interval_s=10.0).start()
    time.sleep(0.05)
    started = time.monotonic()
    sampler.stop()
    assert time.monotonic() - started < 0.5
    assert len(sampler.samples()) == 1


def test_sampler_without_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)
    with GpuSampler(interval_s=0.01) as sampler:
        time.sleep(0.03)
    assert sampler.samples() == []
    assert sampler.available is not None and sampler.available.reason == "no-driver"
    summary = sampler.summary()
    assert summary.n_samples == 0 and summary.throttled_fraction is None
