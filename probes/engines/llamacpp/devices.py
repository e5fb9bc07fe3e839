"""Which devices a `llama-server` build can offload to, read from `llama-server --list-devices`.

A CPU-only build on a machine with a GPU measures the CPU: knowing the build's devices lets a check say so
before it runs, instead of reporting CPU numbers as the GPU's.

Facts read in the llama.cpp source of the installed build (common/arg.cpp, ggml/src/ggml-*/):
- `--list-devices` calls `common_print_available_devices()` and exits 0. It loads every backend, skips devices
  of type CPU, prints "Available devices:" and then either "  (none)" or one line per device,
  "  <name>: <description> (<total> MiB, <free> MiB free)" (sizes in MiB, rounded down). It prints to stdout;
  backends log to stderr (e.g. ggml_cuda_init's "found N CUDA devices").
- Device names: CUDA "CUDA<i>" (GGML_CUDA_NAME + index), and the same code built for HIP names them "ROCm<i>",
  for MUSA "MUSA<i>" (ggml/include/ggml-cuda.h); Vulkan "Vulkan<i>"; SYCL "SYCL<i>"; CANN "CANN<i>"; OpenVINO
  "OPENVINO<i>"; ET "ET<i>"; Metal "MTL<i>" in this build ("Metal" in older ones); Hexagon "HTP<i>" (or
  "HTP<i>:<v>"); OpenCL "GPUOpenCL"; WebGPU "WebGPU"; RPC "RPC<i>[host:port]"; virtgpu "[virtgpu] <remote
  name>". Descriptions may contain parentheses (CUDA adds "(dev p0/v1)" for virtual devices).
- Not every listed device is a GPU: BLAS ("BLAS"), ZenDNN ("ZenDNN") and zDNN ("zDNN") are accelerator
  devices (GGML_BACKEND_DEVICE_TYPE_ACCEL) that work beside the CPU backend and report 0 MiB; a build that
  lists only those still computes on the CPU.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from typing import Literal

from probes.base import Unavailable

Backend = Literal["cuda", "rocm", "musa", "vulkan", "metal", "sycl", "cann", "opencl", "webgpu", "openvino",
                  "hexagon", "et", "rpc", "virtgpu", "blas", "zendnn", "zdnn", "cpu", "other"]
# Devices that compute beside the CPU backend, in host memory: listing them does not make a build GPU-capable.
CPU_SIDE: frozenset[Backend] = frozenset({"cpu", "blas", "zendnn", "zdnn"})
# A GPU build initialises its driver to list devices (CUDA/ROCm take a few seconds on many cards without
# persistence mode); a CPU build answers in about 17 ms. The bound only stops a hung driver from hanging us.
LIST_TIMEOUT_S = 20.0

HEADER = "Available devices:"
_NONE = "(none)"
# name, then ": ", then the description up to the last "(<total> MiB, <free> MiB free)" on the line
_LINE = re.compile(r"^\s+(?P<name>\S.*?): (?P<desc>.*?)\s*\((?P<total>\d+) MiB, (?P<free>\d+) MiB free\)\s*$")
# name prefix → backend, most specific first ("MTL" before "Metal" does not matter; "GPUOpenCL" is exact)
_PREFIXES: tuple[tuple[str, Backend], ...] = (
    ("[virtgpu]", "virtgpu"), ("CUDA", "cuda"), ("ROCm", "rocm"), ("MUSA", "musa"), ("Vulkan", "vulkan"),
    ("MTL", "metal"), ("Metal", "metal"), ("SYCL", "sycl"), ("CANN", "cann"), ("GPUOpenCL", "opencl"),
    ("WebGPU", "webgpu"), ("OPENVINO", "openvino"), ("HTP", "hexagon"), ("ET", "et"), ("RPC", "rpc"),
    ("BLAS", "blas"), ("ZenDNN", "zendnn"), ("zDNN", "zdnn"), ("CPU", "cpu"),
)


@dataclass(frozen=True, slots=True)
class LlamaDevice:
    """One device `--list-devices` reported; memory in MiB as the build printed it (0 for accelerators)."""

    name: str              # "CUDA0", "ROCm1", "Vulkan0", "MTL0", "RPC0[10.0.0.2:50052]", …
    description: str       # "NVIDIA GeForce RTX 4090", "Apple M2 Max", …
    total_mib: int
    free_mib: int
    backend: Backend       # from the name (backend_of)

    @property
    def gpu(self) -> bool:
        """True for a device the model can be offloaded to (anything but the CPU and its accelerators)."""
        return self.backend not in CPU_SIDE


@dataclass(frozen=True, slots=True)
class DeviceList:
    """The devices of one build (CPU not listed, as llama.cpp prints them); empty for a CPU-only build."""

    devices: tuple[LlamaDevice, ...] = ()

    @property
    def gpu_capable(self) -> bool:
        """True when the build lists any device besides the CPU and CPU-side accelerators (BLAS, ZenDNN)."""
        return any(d.gpu for d in self.devices)

    @property
    def backends(self) -> tuple[Backend, ...]:
        """The backends listed, each once, in the order printed."""
        return tuple(dict.fromkeys(d.backend for d in self.devices))


def backend_of(name: str) -> Backend:
    """The backend a device name belongs to ("CUDA0" → "cuda", "MTL0" → "metal"); unknown → "other"."""
    for prefix, backend in _PREFIXES:
        if name.startswith(prefix):
            return backend
    return "other"


def parse_devices(text: str) -> DeviceList | Unavailable:
    """The devices in `llama-server --list-devices` stdout (pure; unit-tested on texts written from the source).

    Reads after the last "Available devices:" line; lines there that are not device lines (a backend logging
    to stdout) are skipped. No header, or a header followed by no device and no "(none)" (output cut short),
    is a bad response rather than "no GPU": only a complete list may say a build is CPU-only.
    """
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == HEADER]
    if not starts:
        first = next((line.strip() for line in lines if line.strip()), "")
        return Unavailable("bad-response", f"no '{HEADER}' line in --list-devices output"
                           + (f" (it starts: {first[:80]!r})" if first else " (it was empty)"))
    body = lines[starts[-1] + 1:]
    if any(line.strip() == _NONE for line in body):
        return DeviceList(())
    devices = tuple(_device(m) for line in body if (m := _LINE.match(line)))
    if not devices:
        return Unavailable("bad-response", "--list-devices printed its header but no device line")
    return DeviceList(devices)


def _device(m: re.Match[str]) -> LlamaDevice:
    name = m.group("name").strip()
    return LlamaDevice(name=name, description=m.group("desc").strip(), total_mib=int(m.group("total")),
                       free_mib=int(m.group("free")), backend=backend_of(name))


def list_devices(path: str, timeout_s: float = LIST_TIMEOUT_S) -> DeviceList | Unavailable:
    """Run `<path> --list-devices` (bounded by `timeout_s` seconds) and parse it; never raises."""
    try:
        done = subprocess.run([path, "--list-devices"], capture_output=True, text=True, timeout=timeout_s,
                              check=False, stdin=subprocess.DEVNULL, errors="replace")
    except subprocess.TimeoutExpired:
        return Unavailable("error", f"{path} --list-devices did not answer within {timeout_s:g} s")
    except PermissionError as exc:
        return Unavailable("permission", f"{path} --list-devices: {exc}")
    except FileNotFoundError as exc:
        return Unavailable("not-found", f"{path} --list-devices: {exc}")
    except OSError as exc:
        return Unavailable("error", f"{path} --list-devices: {exc}")
    stdout, stderr = done.stdout or "", done.stderr or ""
    if HEADER not in stdout and "invalid argument: --list-devices" in stdout + stderr:
        return Unavailable("not-supported", "this llama-server has no --list-devices (an older build)")
    parsed = parse_devices(stdout)
    if isinstance(parsed, Unavailable) and done.returncode != 0:
        tail = stderr.strip().splitlines()[-1:] or [""]
        return Unavailable(parsed.reason, f"{parsed.detail}; exit code {done.returncode} {tail[0][:120]}".rstrip())
    return parsed
