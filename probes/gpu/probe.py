"""Per-GPU facts from NVML: identity, memory, peak bandwidth, clocks, PCIe, power, temperature, processes.

`probe_gpus()` never raises: a CPU-only machine is a normal `GpuReport(status="no-driver")`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from probes.base import Unavailable
from probes.gpu.nvml import Nvml, decode_clock_event_reasons, open_nvml, process_name, text
from probes.serialize import as_dict

GIB = 1024**3
GpuStatus = Literal["ok", "no-driver", "no-device", "error"]
BandwidthSource = Literal["nvml", "name-table", "none"]

# Fallback when NVML lacks nvmlDeviceGetMemoryBusWidth (old drivers): vendor peak GB/s, engine-facts.md §5.
# Most specific key first ("3090 ti" before "3090"); RTX 3060 assumes the 12 GB/192-bit card (8 GB is 240).
PEAK_BANDWIDTH_TABLE_GBS: tuple[tuple[str, float], ...] = (
    ("rtx 5090", 1792.0),
    ("rtx 5060 ti", 448.0),
    ("rtx 4090", 1008.0),
    ("rtx 4060 ti", 288.0),
    ("rtx 3090 ti", 1008.0),
    ("rtx 3090", 936.0),
    ("rtx 3060", 360.0),
    ("a100-sxm4-80gb", 2039.0),
    ("a100 80gb pcie", 1935.0),
    ("a100", 1555.0),
    ("h100 nvl", 3900.0),
    ("h100 pcie", 2000.0),
    ("h100", 3350.0),
    ("h200", 4800.0),
)


def peak_bandwidth_gbs(max_memory_clock_mhz: float, bus_width_bits: int) -> float:
    """Theoretical peak GB/s = 2 × max memory clock (MHz) × bus width (bits) / 8 / 1000.

    The 2 holds for GDDR6/6X/7 and HBM because NVML reports half the per-pin data rate (engine-facts.md §5).
    """
    return 2.0 * max_memory_clock_mhz * bus_width_bits / 8.0 / 1000.0


def table_bandwidth_gbs(name: str) -> float | None:
    """Vendor peak bandwidth for a known card name (case-insensitive substring match), else None."""
    lowered = name.lower()
    for key, gbs in PEAK_BANDWIDTH_TABLE_GBS:
        if key in lowered:
            return gbs
    return None


@dataclass(frozen=True, slots=True)
class GpuProcess:
    """A process holding a context on the GPU; `used_memory_gib` is unavailable under Windows WDDM."""

    pid: int
    name: str | Unavailable
    used_memory_gib: float | Unavailable
    kind: Literal["compute", "graphics"]


@dataclass(frozen=True, slots=True)
class GpuSnapshot:
    """One GPU at one moment. Units are in the field names; any field may be `Unavailable`."""

    index: int
    name: str | Unavailable
    uuid: str | Unavailable
    vram_total_gib: float | Unavailable
    vram_free_gib: float | Unavailable
    memory_bus_width_bits: int | Unavailable
    memory_clock_max_mhz: int | Unavailable
    peak_bandwidth_gbs: float | Unavailable
    peak_bandwidth_source: BandwidthSource
    sm_clock_mhz: int | Unavailable
    sm_clock_max_mhz: int | Unavailable
    memory_clock_mhz: int | Unavailable
    pcie_gen_current: int | Unavailable
    pcie_gen_max: int | Unavailable
    pcie_width_current: int | Unavailable
    pcie_width_max: int | Unavailable
    power_draw_w: float | Unavailable
    power_limit_w: float | Unavailable
    temperature_c: int | Unavailable
    clock_event_reasons: tuple[str, ...] | Unavailable
    compute_capability: str | Unavailable
    processes: tuple[GpuProcess, ...] | Unavailable

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict; unavailable fields become {"unavailable": reason, "detail": …}."""
        return as_dict(self)


@dataclass(frozen=True, slots=True)
class GpuReport:
    """All NVIDIA GPUs on the machine; `status` says why `gpus` is empty when it is."""

    status: GpuStatus
    detail: str
    driver_version: str | Unavailable
    cuda_driver_version: str | Unavailable
    gpus: tuple[GpuSnapshot, ...]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict with a `gpus` list of `GpuSnapshot.to_dict()` shapes."""
        return as_dict(self)


def _scaled(value: Any, divisor: float) -> Any:
    return value if isinstance(value, Unavailable) else round(float(value) / divisor, 3)


def _cuda_version(raw: Any) -> str | Unavailable:
    # NVML encodes CUDA 12.4 as 12040.
    return raw if isinstance(raw, Unavailable) else f"{int(raw) // 1000}.{int(raw) % 1000 // 10}"


def _processes(nvml: Nvml, handle: Any) -> tuple[GpuProcess, ...] | Unavailable:
    found: dict[int, GpuProcess] = {}
    failures: list[Unavailable] = []
    kinds: tuple[tuple[Literal["compute", "graphics"], str], ...] = (
        ("compute", "nvmlDeviceGetComputeRunningProcesses"),
        ("graphics", "nvmlDeviceGetGraphicsRunningProcesses"),
    )
    for kind, function in kinds:
        procs = nvml.call(function, handle)
        if isinstance(procs, Unavailable):
            failures.append(procs)
            continue
        for proc in procs:
            pid = int(proc.pid)
            used = getattr(proc, "usedGpuMemory", None)
            memory = Unavailable("not-supported", "usedGpuMemory") if used is None else round(used / GIB, 3)
            found.setdefault(pid, GpuProcess(pid, process_name(nvml, pid), memory, kind))
    # Only when neither list could be read do we not know who is on the GPU.
    return failures[0] if len(failures) == len(kinds) else tuple(found.values())


def _bandwidth(name: Any, clock: Any, bus: Any) -> tuple[float | Unavailable, BandwidthSource]:
    if not isinstance(clock, Unavailable) and not isinstance(bus, Unavailable) and clock and bus:
        return round(peak_bandwidth_gbs(float(clock), int(bus)), 1), "nvml"
    if isinstance(name, str) and (gbs := table_bandwidth_gbs(name)) is not None:
        return gbs, "name-table"
    why = bus if isinstance(bus, Unavailable) else clock
    if not isinstance(why, Unavailable):
        why = Unavailable("not-supported", "zero memory clock or bus width")
    return Unavailable(why.reason, f"bus width / max memory clock: {why.detail}; name not in table"), "none"


def snapshot_gpu(nvml: Nvml, index: int) -> GpuSnapshot:
    """Read one GPU by index; each field guarded on its own."""
    handle = nvml.call("nvmlDeviceGetHandleByIndex", index)
    if isinstance(handle, Unavailable):
        fields: dict[str, Any] = dict.fromkeys(GpuSnapshot.__slots__, handle)
        fields.update(index=index, peak_bandwidth_source="none")
        return GpuSnapshot(**fields)
    clock_mem = nvml.constant("NVML_CLOCK_MEM", 2)
    clock_sm = nvml.constant("NVML_CLOCK_SM", 1)
    name = text(nvml.call("nvmlDeviceGetName", handle))
    memory = nvml.call("nvmlDeviceGetMemoryInfo", handle)
    bus = nvml.call("nvmlDeviceGetMemoryBusWidth", handle)
    mem_max = nvml.call("nvmlDeviceGetMaxClockInfo", handle, clock_mem)
    bandwidth, source = _bandwidth(name, mem_max, bus)
    mask = nvml.call_first(
        ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"), handle
    )
    cc = nvml.call("nvmlDeviceGetCudaComputeCapability", handle)
    return GpuSnapshot(
        index=index,
        name=name,
        uuid=text(nvml.call("nvmlDeviceGetUUID", handle)),
        vram_total_gib=memory if isinstance(memory, Unavailable) else round(memory.total / GIB, 3),
        vram_free_gib=memory if isinstance(memory, Unavailable) else round(memory.free / GIB, 3),
        memory_bus_width_bits=bus,
        memory_clock_max_mhz=mem_max,
        peak_bandwidth_gbs=bandwidth,
        peak_bandwidth_source=source,
        sm_clock_mhz=nvml.call("nvmlDeviceGetClockInfo", handle, clock_sm),
        sm_clock_max_mhz=nvml.call("nvmlDeviceGetMaxClockInfo", handle, clock_sm),
        memory_clock_mhz=nvml.call("nvmlDeviceGetClockInfo", handle, clock_mem),
        pcie_gen_current=nvml.call("nvmlDeviceGetCurrPcieLinkGeneration", handle),
        pcie_gen_max=nvml.call("nvmlDeviceGetMaxPcieLinkGeneration", handle),
        pcie_width_current=nvml.call("nvmlDeviceGetCurrPcieLinkWidth", handle),
        pcie_width_max=nvml.call("nvmlDeviceGetMaxPcieLinkWidth", handle),
        power_draw_w=_scaled(nvml.call("nvmlDeviceGetPowerUsage", handle), 1000.0),  # mW → W
        power_limit_w=_scaled(nvml.call("nvmlDeviceGetEnforcedPowerLimit", handle), 1000.0),
        temperature_c=nvml.call("nvmlDeviceGetTemperature", handle, nvml.constant("NVML_TEMPERATURE_GPU", 0)),
        clock_event_reasons=mask if isinstance(mask, Unavailable) else decode_clock_event_reasons(mask),
        compute_capability=cc if isinstance(cc, Unavailable) else f"{cc[0]}.{cc[1]}",
        processes=_processes(nvml, handle),
    )


def probe_gpus() -> GpuReport:
    """Snapshot every NVIDIA GPU; always shuts NVML down again."""
    opened = open_nvml()
    if isinstance(opened, Unavailable):
        return GpuReport("no-driver", opened.detail, opened, opened, ())
    with opened as nvml:
        driver = text(nvml.call("nvmlSystemGetDriverVersion"))
        cuda = _cuda_version(nvml.call("nvmlSystemGetCudaDriverVersion"))
        count = nvml.call("nvmlDeviceGetCount")
        if isinstance(count, Unavailable):
            return GpuReport("error", str(count), driver, cuda, ())
        if count == 0:
            return GpuReport("no-device", "the NVIDIA driver reports no GPUs", driver, cuda, ())
        gpus = tuple(snapshot_gpu(nvml, i) for i in range(int(count)))
    return GpuReport("ok", "", driver, cuda, gpus)
