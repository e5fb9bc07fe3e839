"""Host facts: OS, CPU, cores, RAM, measured RAM bandwidth, power source, Python. Stdlib + numpy only."""

from __future__ import annotations

import itertools
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from probes.base import Unavailable
from probes.serialize import as_dict

GIB = 1024**3
PowerSource = Literal["ac", "battery"]


@dataclass(frozen=True, slots=True)
class RamBandwidth:
    """Best observed copy bandwidth: (bytes read + bytes written) / seconds, in GB/s (10^9)."""

    gbs: float
    buffer_mib: int
    threads: int
    repeats: int
    elapsed_s: float


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
    ram_free_gib: float | Unavailable  # "available" on Linux (free + reclaimable cache)
    ram_bandwidth_gbs: float | Unavailable
    ram_bandwidth: RamBandwidth | Unavailable
    power_source: PowerSource | Unavailable
    python_version: str

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


def physical_cores() -> int | Unavailable:
    """Distinct (package, core) pairs from /proc/cpuinfo; `hw.physicalcpu` on macOS."""
    info = _read("/proc/cpuinfo")
    if info:
        pairs: set[tuple[str, str]] = set()
        package = core = ""
        for line in [*info.splitlines(), ""]:
            key, _, value = (part.strip() for part in line.partition(":"))
            if key == "physical id":
                package = value
            elif key == "core id":
                core = value
            elif not line.strip() and core:
                pairs.add((package, core))
                package = core = ""
        if pairs:
            return len(pairs)
    counted = _sysctl("hw.physicalcpu") if sys.platform == "darwin" else None
    if counted and counted.isdigit():
        return int(counted)
    return Unavailable("not-supported", "physical core count not readable without psutil on this OS")


def ram_gib() -> tuple[float | Unavailable, float | Unavailable]:
    """(total, available) GiB from /proc/meminfo; total only via sysctl on macOS."""
    meminfo = _read("/proc/meminfo")
    if meminfo:
        kib = {k.strip(): v.split()[0] for k, _, v in (ln.partition(":") for ln in meminfo.splitlines()) if v}
        total = int(kib["MemTotal"]) / 1024**2 if "MemTotal" in kib else Unavailable("not-found", "MemTotal")
        free_key = "MemAvailable" if "MemAvailable" in kib else "MemFree"
        free = int(kib[free_key]) / 1024**2 if free_key in kib else Unavailable("not-found", free_key)
        return total, free
    size = _sysctl("hw.memsize") if sys.platform == "darwin" else None
    if size and size.isdigit():
        return int(size) / GIB, Unavailable("not-supported", "free memory needs vm_stat parsing on macOS")
    why = Unavailable("not-supported", f"no /proc/meminfo on {sys.platform}")
    return why, why


def _copy_seconds(pairs: list[tuple[np.ndarray, np.ndarray]], pool: ThreadPoolExecutor | None) -> float:
    started = time.perf_counter()
    if pool is None:
        np.copyto(pairs[0][1], pairs[0][0])
    else:
        # numpy releases the GIL for plain copies, so threads copy their slices truly in parallel.
        list(pool.map(lambda p: np.copyto(p[1], p[0]), pairs))
    return time.perf_counter() - started


def measure_ram_bandwidth(
    buffer_mib: int = 256, threads: int | None = None, budget_s: float = 0.5, max_repeats: int = 8
) -> RamBandwidth:
    """Copy a `buffer_mib` buffer repeatedly and keep the best rate; stays under ~`budget_s` seconds.

    One thread per physical core (up to 8) because llama.cpp decodes with several threads and a single
    core cannot saturate a multi-channel memory system.
    """
    if threads is None:
        cores = physical_cores()
        threads = max(1, min(8, cores if isinstance(cores, int) else (os.cpu_count() or 1)))
    n = buffer_mib * 1024**2 // 8
    src = np.ones(n, dtype=np.float64)  # touching every page now keeps page faults out of the timing
    dst = np.zeros(n, dtype=np.float64)
    bounds = np.linspace(0, n, threads + 1, dtype=np.int64)
    pairs = [(src[a:b], dst[a:b]) for a, b in itertools.pairwise(bounds)]
    started = time.perf_counter()
    best = float("inf")
    repeats = 0
    with ThreadPoolExecutor(threads) if threads > 1 else nullcontext() as pool:
        _copy_seconds(pairs, pool)  # warm-up: thread start, TLB, caches
        while repeats < max_repeats and (repeats < 2 or time.perf_counter() - started < budget_s):
            best = min(best, _copy_seconds(pairs, pool))
            repeats += 1
    moved = 2 * src.nbytes  # every byte is read once and written once
    return RamBandwidth(round(moved / best / 1e9, 2), buffer_mib, threads, repeats, time.perf_counter() - started)


def power_source() -> PowerSource | Unavailable:
    """AC or battery from /sys/class/power_supply (Linux); desktops without entries are `not-found`."""
    root = Path("/sys/class/power_supply")
    try:
        supplies = sorted(root.iterdir())
    except OSError:
        return Unavailable("not-found", f"{root} not readable on {sys.platform}")
    kinds = {(_read(str(s / "type")) or "").strip(): s for s in supplies}
    mains = [s for s in supplies if (_read(str(s / "type")) or "").strip() in ("Mains", "USB", "USB_PD")]
    if any((_read(str(s / "online")) or "").strip() == "1" for s in mains):
        return "ac"
    battery = kinds.get("Battery")
    if battery is not None:
        status = (_read(str(battery / "status")) or "").strip()
        return "battery" if status == "Discharging" else "ac"
    return Unavailable("not-found", "no mains or battery entry in /sys/class/power_supply")


def probe_host(measure_bandwidth: bool = True) -> HostReport:
    """Gather host facts; the bandwidth benchmark takes about half a second."""
    total, free = ram_gib()
    bandwidth: RamBandwidth | Unavailable = Unavailable("not-supported", "bandwidth measurement skipped")
    if measure_bandwidth:
        try:
            # Keep the 2 × buffer well under free RAM on small machines.
            room_mib = int(free * 1024 / 8) if isinstance(free, float) else 256
            bandwidth = measure_ram_bandwidth(buffer_mib=max(16, min(256, room_mib)))
        except (MemoryError, ValueError) as exc:
            bandwidth = Unavailable("error", f"RAM bandwidth benchmark failed: {exc}")
    return HostReport(
        os=platform.system(),
        os_release=platform.release(),
        machine=platform.machine(),
        cpu_model=cpu_model(),
        cores_logical=os.cpu_count() or Unavailable("not-supported", "os.cpu_count() returned None"),
        cores_physical=physical_cores(),
        ram_total_gib=total if isinstance(total, Unavailable) else round(total, 2),
        ram_free_gib=free if isinstance(free, Unavailable) else round(free, 2),
        ram_bandwidth_gbs=bandwidth if isinstance(bandwidth, Unavailable) else bandwidth.gbs,
        ram_bandwidth=bandwidth,
        power_source=power_source(),
        python_version=platform.python_version(),
    )
