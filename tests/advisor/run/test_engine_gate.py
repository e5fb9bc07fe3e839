"""The CPU-engine gate: a CPU-only llama-server beside a GPU NVML sees is refused before any server starts,
with the way out in the hint; `--allow-cpu-engine` reaches the config."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

import pytest

from advisor.cli import check
from advisor.config import CheckConfig, config_from_dict
from advisor.run.engine_gate import cpu_engine_gate
from probes.base import Unavailable
from probes.engines.llamacpp.binary import LlamaServerBinary
from probes.engines.llamacpp.devices import DeviceList, LlamaDevice
from probes.gpu.probe import GpuReport, GpuSnapshot

CPU_BUILD = DeviceList(())
BLAS_BUILD = DeviceList((LlamaDevice("BLAS", "OpenBLAS", 0, 0, "blas"),))
CUDA_BUILD = DeviceList((LlamaDevice("CUDA0", "NVIDIA GeForce RTX 4090", 24080, 23603, "cuda"),))


def _gpus(*names: str | Unavailable) -> GpuReport:
    """A GPU report with cards of these names (every other field unavailable); none: a CPU-only machine."""
    blank: dict[str, Any] = {f.name: Unavailable("not-supported") for f in dataclasses.fields(GpuSnapshot)}
    cards = tuple(GpuSnapshot(**{**blank, "index": i, "name": name, "peak_bandwidth_source": "none",
                                 "processes": ()}) for i, name in enumerate(names))
    return GpuReport("ok" if cards else "no-driver", "", "x", "x", cards)


def _binary(devices: DeviceList | Unavailable | None) -> LlamaServerBinary:
    return LlamaServerBinary(path="/opt/llama/llama-server", source="path", version="1",
                             dialect=Unavailable("error"), devices=devices)


@pytest.mark.parametrize("devices", [CPU_BUILD, BLAS_BUILD], ids=["none", "blas-only"])
def test_cpu_build_beside_a_gpu_is_refused_with_the_fix(devices: DeviceList) -> None:
    error = cpu_engine_gate(_binary(devices), _gpus("NVIDIA GeForce RTX 4090"), allow_cpu_engine=False)
    assert error is not None
    message = str(error)
    assert "/opt/llama/llama-server" in message and "CPU-only build" in message
    assert "measure the CPU, not your GPU (NVIDIA GeForce RTX 4090)" in message
    for fix in ("--llama-server PATH", "--allow-cpu-engine", "spec-advisor setup-help"):
        assert fix in error.hint


def test_the_message_in_chinese() -> None:
    error = cpu_engine_gate(_binary(CPU_BUILD), _gpus("NVIDIA H200"), allow_cpu_engine=False, lang="zh")
    assert error is not None and "仅支持 CPU" in str(error) and "NVIDIA H200" in str(error)
    assert "--llama-server PATH" in error.hint and "--allow-cpu-engine" in error.hint and "setup-help" in error.hint


@pytest.mark.parametrize(("devices", "gpus", "allow", "server_args"), [
    (CPU_BUILD, ("NVIDIA GeForce RTX 4090",), True, ()),     # measuring the CPU on purpose
    (CPU_BUILD, (), False, ()),                              # no GPU: the CPU is all there is
    (CUDA_BUILD, ("NVIDIA GeForce RTX 4090",), False, ()),   # a GPU build
    (Unavailable("not-supported", "old build"), ("NVIDIA GeForce RTX 4090",), False, ()),  # unknown: no refusal
    (None, ("NVIDIA GeForce RTX 4090",), False, ()),         # not read
    (CPU_BUILD, ("NVIDIA GeForce RTX 4090",), False, ("--rpc", "10.0.0.2:50052")),  # remote GPUs added
    (CPU_BUILD, ("NVIDIA GeForce RTX 4090",), False, ("--rpc=10.0.0.2:50052",)),
], ids=["allowed", "no-gpu", "gpu-build", "unreadable", "unread", "rpc", "rpc-equals"])
def test_the_check_goes_on(devices: DeviceList | Unavailable | None, gpus: tuple[str, ...], allow: bool,
                           server_args: tuple[str, ...]) -> None:
    assert cpu_engine_gate(_binary(devices), _gpus(*gpus), allow, server_args=server_args) is None


def test_a_gpu_without_a_name_is_still_named() -> None:
    error = cpu_engine_gate(_binary(CPU_BUILD), _gpus(Unavailable("not-supported")), allow_cpu_engine=False)
    assert error is not None and "(GPU 0)" in str(error)


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    check.configure(p)
    return p.parse_args(list(argv))


def test_allow_cpu_engine_reaches_the_config_and_survives_a_resume() -> None:
    assert check.config_from_args(_args("--quick")).allow_cpu_engine is False
    config = check.config_from_args(_args("--quick", "--allow-cpu-engine"))
    assert config.allow_cpu_engine is True
    assert config_from_dict(config.to_dict()).allow_cpu_engine is True
    assert CheckConfig().allow_cpu_engine is False
