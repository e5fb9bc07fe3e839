"""Host facts: OS, CPU, cores, RAM, measured RAM bandwidth, power source, load, Python.

psutil reads cores, RAM, battery and load on every OS it supports; only the CPU's marketing name and the size of
the last-level cache come from the OS directly (psutil has neither).
"""

from __future__ import annotations

import platform
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import psutil

from probes.base import Unavailable
from probes.ram_bandwidth import RamBandwidth, buffer_mib_for, measure_ram_bandwidth
from probes.serialize import as_dict

__all__ = ["HostReport", "LoadAverage", "PowerSource", "RamBandwidth", "measure_ram_bandwidth", "probe_host"]

GIB = 1024**3
PowerSource = Literal["ac", "battery"]
LoadAverage = tuple[float, float, float]
_NOT_READ = Unavailable("not-found", "not read")


@dataclass(frozen=True, slots=True)
class HostReport:
    """What the host offers a CPU-side (or partly offloaded) model."""

    os: str
    os_release: str
    machine: str
    cpu_model: str | Unavailable
    cores_logical: int | Unavailable
    cores_physical: int | Unavailable
    ram_total_gib: float | Unavailable
    ram_free_gib: float | Unavailable  # "available": free plus what the OS can reclaim at once (page cache)
    ram_bandwidth_gbs: float | Unavailable
    ram_bandwidth: RamBandwidth | Unavailable
    power_source: PowerSource | Unavailable
    python_version: str
    load_avg: LoadAverage | Unavailable = _NOT_READ  # runnable processes over 1, 5, 15 min

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; unavailable fields become {"unavailable": reason, "detail": …}."""
        return as_dict(self)


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _sysctl(name: str) -> str | None:
    try:
        done = subprocess.run(["sysctl", "-n", name], capture_output=True, text=True, timeout=2, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def cpu_model() -> str | Unavailable:
    """Marketing name of the CPU (/proc/cpuinfo, sysctl on macOS, else `platform.processor()`)."""
    info = _read("/proc/cpuinfo") or ""
    for line in info.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Hardware", "Model") and value.strip():
            return value.strip()
    brand = _sysctl("machdep.cpu.brand_string") if sys.platform == "darwin" else None
    name = brand or platform.processor()
    return name if name else Unavailable("not-found", "no CPU model in /proc/cpuinfo or platform")


def cores() -> tuple[int | Unavailable, int | Unavailable]:
    """(logical, physical) core counts."""
    logical = psutil.cpu_count(logical=True)
    physical = psutil.cpu_count(logical=False)
    return (logical or Unavailable("not-supported", "psutil could not count logical cores"),
            physical or Unavailable("not-supported", f"psutil cannot count physical cores on {sys.platform}"))


def ram_gib() -> tuple[float | Unavailable, float | Unavailable]:
    """(total, available) GiB."""
    try:
        memory = psutil.virtual_memory()
    except (OSError, RuntimeError) as exc:  # psutil reports a broken /proc or sysctl this way
        why = Unavailable("error", f"psutil.virtual_memory() failed: {exc}")
        return why, why
    return round(memory.total / GIB, 2), round(memory.available / GIB, 2)


def power_source() -> PowerSource | Unavailable:
    """On mains or on battery; no battery (desktops, servers, VMs) is unknown, not a failure."""
    if not hasattr(psutil, "sensors_battery"):
        return Unavailable("not-supported", f"psutil reads no battery on {sys.platform}")
    try:
        battery = psutil.sensors_battery()
    except (OSError, RuntimeError) as exc:
        return Unavailable("error", f"psutil.sensors_battery() failed: {exc}")
    if battery is None:
        return Unavailable("not-found", "no battery reported (a desktop, server or VM)")
    if battery.power_plugged is None:
        return Unavailable("not-found", "a battery, but whether mains is plugged in is not reported")
    return "ac" if battery.power_plugged else "battery"


def load_average() -> LoadAverage | Unavailable:
    """1, 5 and 15-minute load average (psutil emulates it on Windows)."""
    try:
        one, five, fifteen = psutil.getloadavg()
    except (AttributeError, OSError) as exc:
        return Unavailable("not-supported", f"no load average on {sys.platform}: {exc}")
    if sys.platform == "win32" and one == five == fifteen == 0.0:
        # psutil's Windows emulation samples every 5 s from its first call and reads zeros until then
        return Unavailable("not-found", "Windows load average is zero for 5 s after the first reading")
    return round(one, 2), round(five, 2), round(fifteen, 2)


def busy_cores(interval_s: float = 0.5) -> float | Unavailable:
    """How many cores' worth of CPU the machine spent over the next `interval_s` seconds (0 = idle, 2.0 = two
    cores fully busy), summed over the logical CPUs; read before spec-advisor starts a server, it is the other
    work's share. Blocks for `interval_s`."""
    try:
        per_cpu = psutil.cpu_percent(interval=interval_s, percpu=True)
    except (AttributeError, OSError, RuntimeError) as exc:
        return Unavailable("not-supported", f"psutil could not read CPU use on {sys.platform}: {exc}")
    return round(sum(per_cpu) / 100.0, 2)


def _size_bytes(text: str) -> int | None:
    text = text.strip().upper()
    scale = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(text[-1:], 1)
    digits = text[:-1] if scale != 1 else text
    return int(digits) * scale if digits.isdigit() else None


def _cpu_count_in(cpu_list: str) -> int:
    count = 0
    for part in cpu_list.strip().split(","):
        low, _, high = part.partition("-")
        if low.isdigit():
            count += int(high) - int(low) + 1 if high.isdigit() else 1
    return count


def last_level_cache_mib() -> int | None:
    """Total last-level cache in MiB (all its instances: two L3s on a two-CCD Ryzen), None where not reported."""
    if sys.platform == "darwin":
        sizes = [_size_bytes(_sysctl(n) or "") for n in ("hw.l3cachesize", "hw.perflevel0.l2cachesize",
                                                        "hw.l2cachesize")]
        best = max((s for s in sizes if s), default=None)
        return best // 2**20 if best else None
    levels = []
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        level, size = _read(str(index / "level")), _size_bytes(_read(str(index / "size")) or "")
        if level and level.strip().isdigit() and size:
            levels.append((int(level), size, _cpu_count_in(_read(str(index / "shared_cpu_list")) or "0")))
    if not levels:
        return None
    _, size, sharing = max(levels)
    instances = max(1, -(-(psutil.cpu_count(logical=True) or 1) // max(1, sharing)))
    return size * instances // 2**20


def probe_host(measure_bandwidth: bool = True) -> HostReport:
    """Gather host facts; the bandwidth measurement takes 0.1-0.4 s (2 × 64 MiB read on a 32 MiB-L3 machine)."""
    total, free = ram_gib()
    logical, physical = cores()
    bandwidth: RamBandwidth | Unavailable = Unavailable("not-supported", "bandwidth measurement skipped")
    if measure_bandwidth:
        llc = last_level_cache_mib()
        size = buffer_mib_for(llc, free if isinstance(free, float) else None)
        try:
            bandwidth = measure_ram_bandwidth(buffer_mib=size, llc_mib=llc)
        except (MemoryError, ValueError) as exc:
            bandwidth = Unavailable("error", f"RAM bandwidth measurement failed: {exc}")
    return HostReport(
        os=platform.system(),
        os_release=platform.release(),
        machine=platform.machine(),
        cpu_model=cpu_model(),
        cores_logical=logical,
        cores_physical=physical,
        ram_total_gib=total,
        ram_free_gib=free,
        ram_bandwidth_gbs=bandwidth if isinstance(bandwidth, Unavailable) else bandwidth.gbs,
        ram_bandwidth=bandwidth,
        power_source=power_source(),
        python_version=platform.python_version(),
        load_avg=load_average(),
    )
