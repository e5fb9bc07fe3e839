"""Probe a model path: a `.gguf` file or a Hugging Face model folder."""

from __future__ import annotations

from pathlib import Path

from probes.model.gguf import analyse_gguf
from probes.model.gguf_header import GgufFormatError, read_gguf_header
from probes.model.hf import probe_hf_model
from probes.model.info import ModelFileError, ModelInfo


def probe_model(path: Path | str) -> ModelInfo:
    """Read a `.gguf` file or a Hugging Face model folder (config.json); raises `ModelFileError`."""
    path = Path(path).expanduser()
    if not path.exists():
        raise ModelFileError(f"model not found: {path}")
    if path.is_dir() or path.name == "config.json":
        return probe_hf_model(path if path.is_dir() else path.parent)
    try:
        header = read_gguf_header(path)
        if not header.tensors:
            raise ModelFileError(f"{path.name} has no tensors (a vocabulary-only or split-index GGUF?)")
        return analyse_gguf(path, header)
    except GgufFormatError as exc:
        raise ModelFileError(f"{path.name} is not a usable GGUF model: {exc}") from exc
    except OSError as exc:
        raise ModelFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
