"""Which model a run measures, told apart cheaply: the file's size and the SHA-256 of its first MiB.

A GGUF's first MiB holds its header and metadata (architecture, tokenizer, quantisation, tensor table), so
two different models or quantisations differ there; the size catches a file cut short or extended. Reading
one MiB keeps the check instant for a 70 GB file. A resumed run compares the model it would load with the
one recorded at the start (`Environment.model_file`, and the history's copy), so units of two models never mix.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from advisor.errors import UserError
from advisor.evidence.codec import decode, encode
from advisor.evidence.schema import ModelFile

HEAD_BYTES = 1 << 20  # 1 MiB


def fingerprint(path: Path) -> ModelFile:
    """Size and first-MiB digest of the model file at `path` (OSError when it cannot be read)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        digest.update(fh.read(HEAD_BYTES))
    return ModelFile(path=str(path), size_bytes=size, head_sha256=digest.hexdigest())


def served(name: str | None) -> ModelFile | None:
    """An attached server's model: the file itself when the name it reports is a readable local file, else
    the name alone (None when it reports none)."""
    if not name:
        return None
    path = Path(name)
    try:
        if path.is_file():
            return fingerprint(path)
    except OSError:
        pass
    return ModelFile(path=name)


def same_model(a: ModelFile, b: ModelFile) -> bool:
    """True when `a` and `b` are the same model: size and digest when both have them, else the name."""
    if a.head_sha256 is not None and b.head_sha256 is not None:
        return a.size_bytes == b.size_bytes and a.head_sha256 == b.head_sha256
    return a.path == b.path


def describe(model: ModelFile) -> str:
    """One line for a message: size and the digest's head, or the name."""
    if model.head_sha256 is None:
        return f"served as {model.path!r}"
    return f"{model.size_bytes:,} bytes, first MiB sha256 {model.head_sha256[:12]}…"


def to_record(model: ModelFile | None) -> dict[str, object] | None:
    """JSON form for the history database."""
    return None if model is None else dict(encode(model))


def from_record(data: object) -> ModelFile | None:
    """Read back what `to_record` wrote (None when absent or damaged: the run recorded no model)."""
    if not isinstance(data, Mapping):
        return None
    try:
        return decode(ModelFile, dict(data), "model_file")
    except UserError:  # a hand-edited history row: treated as recording nothing, which refuses the resume
        return None
