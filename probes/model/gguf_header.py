"""Read a GGUF file's metadata and tensor table without touching tensor data.

Why not `gguf.GGUFReader`: it builds a numpy view for every element of every array, so a file with a 49k-token
vocabulary takes seconds to open. Here string arrays are skipped (only their length is kept) and the whole
header is parsed in tens of milliseconds. Type sizes and names still come from the `gguf` package.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAGIC = b"GGUF"
DEFAULT_ALIGNMENT = 32
MAX_KEPT_ARRAY = 4096  # longer arrays (vocabulary, merges, scores) are summarised unless asked for
_SCALARS: dict[int, str] = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9


class GgufFormatError(ValueError):
    """The bytes are not a readable GGUF header (wrong magic, truncated, corrupt)."""


@dataclass(frozen=True, slots=True)
class SkippedArray:
    """A long metadata array (e.g. tokenizer tokens) whose items were not read."""

    item_type: int
    count: int


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """One tensor's table entry; `shape` in ggml order (fastest dimension first), `n_bytes` on disk."""

    name: str
    shape: tuple[int, ...]
    type_name: str
    n_elements: int
    n_bytes: int
    offset: int  # from the start of the data section


@dataclass(frozen=True, slots=True)
class GgufHeader:
    """Everything before the tensor data."""

    version: int
    metadata: dict[str, Any]
    tensors: tuple[TensorInfo, ...]
    data_start: int
    file_size: int


class _Cursor:
    def __init__(self, buf: mmap.mmap | bytes, max_kept: int) -> None:
        self.buf = buf
        self.pos = 0
        self.max_kept = max_kept

    def unpack(self, fmt: str) -> Any:
        value = struct.unpack_from("<" + fmt, self.buf, self.pos)[0]
        self.pos += struct.calcsize("<" + fmt)
        return value

    def string(self) -> str:
        length = self.unpack("Q")
        if self.pos + length > len(self.buf):
            raise GgufFormatError(f"string of {length} bytes runs past the end of the file")
        raw = self.buf[self.pos : self.pos + length]
        self.pos += length
        return bytes(raw).decode("utf-8", errors="replace")

    def value(self, vtype: int) -> Any:
        if vtype in _SCALARS:
            return self.unpack(_SCALARS[vtype])
        if vtype == _STRING:
            return self.string()
        if vtype == _ARRAY:
            return self.array()
        raise GgufFormatError(f"unknown metadata value type {vtype} at byte {self.pos}")

    def array(self) -> Any:
        item_type, count = self.unpack("I"), self.unpack("Q")
        if item_type == _STRING:
            if count <= self.max_kept:
                return [self.string() for _ in range(count)]
            for _ in range(count):  # skip: read each length, jump over the bytes
                length = self.unpack("Q")  # (not `pos += unpack()`: that would lose unpack's own advance)
                self.pos += length
            return SkippedArray(item_type, count)
        if item_type in _SCALARS:
            size = struct.calcsize(_SCALARS[item_type])
            if count <= self.max_kept:
                items = struct.unpack_from(f"<{count}{_SCALARS[item_type]}", self.buf, self.pos)
                self.pos += size * count
                return list(items)
            self.pos += size * count
            return SkippedArray(item_type, count)
        return [self.value(item_type) for _ in range(count)]  # nested arrays are rare and small


# `gguf` imports numpy (~0.1 s): imported when a tensor table is read, not by every module that names a type here.
def _tensor_bytes(type_id: int, n_elements: int) -> int | None:
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    try:
        block, size = GGML_QUANT_SIZES[GGMLQuantizationType(type_id)]
    except (ValueError, KeyError):
        return None
    return n_elements // block * size


def _type_name(type_id: int) -> str:
    from gguf import GGMLQuantizationType

    try:
        return GGMLQuantizationType(type_id).name
    except ValueError:
        return f"type-{type_id}"


def _parse(buf: mmap.mmap | bytes, file_size: int, max_kept: int) -> GgufHeader:
    if bytes(buf[:4]) != MAGIC:
        raise GgufFormatError("not a GGUF file (the first 4 bytes are not 'GGUF')")
    cur = _Cursor(buf, max_kept)
    cur.pos = 4
    version = cur.unpack("I")
    if version not in (2, 3):
        raise GgufFormatError(f"unsupported GGUF version {version} (expected 2 or 3; big-endian files unsupported)")
    n_tensors, n_kv = cur.unpack("Q"), cur.unpack("Q")
    if n_tensors > 10_000_000 or n_kv > 10_000_000:
        raise GgufFormatError(f"implausible header counts ({n_tensors} tensors, {n_kv} keys): corrupt file")
    metadata: dict[str, Any] = {}
    for _ in range(n_kv):
        key = cur.string()
        metadata[key] = cur.value(cur.unpack("I"))
    raw: list[tuple[str, tuple[int, ...], int, int]] = []
    for _ in range(n_tensors):
        name = cur.string()
        shape = tuple(cur.unpack("Q") for _ in range(cur.unpack("I")))
        raw.append((name, shape, cur.unpack("I"), cur.unpack("Q")))
    alignment = int(metadata.get("general.alignment", DEFAULT_ALIGNMENT)) or DEFAULT_ALIGNMENT
    data_start = -(-cur.pos // alignment) * alignment
    # Where a type is unknown to this gguf version, its size is the gap to the next tensor.
    ends = [*sorted(offset for *_, offset in raw), file_size - data_start]
    tensors = []
    for name, shape, type_id, offset in raw:
        n_elements = 1
        for dim in shape:
            n_elements *= dim
        n_bytes = _tensor_bytes(type_id, n_elements)
        if n_bytes is None:
            n_bytes = min(e for e in ends if e > offset) - offset if any(e > offset for e in ends) else 0
        tensors.append(TensorInfo(name, shape, _type_name(type_id), n_elements, n_bytes, offset))
    return GgufHeader(version, metadata, tuple(tensors), data_start, file_size)


def read_gguf_header(path: Path, keep_arrays: bool = False) -> GgufHeader:
    """Parse the header of `path` through a memory map; raises `GgufFormatError` or `OSError`.

    `keep_arrays` keeps long arrays (e.g. to copy a tokenizer) instead of `SkippedArray` placeholders.
    """
    with path.open("rb") as fh:
        size = path.stat().st_size
        if size < 24:
            raise GgufFormatError(f"file is only {size} bytes, too short for a GGUF header")
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            try:
                header = _parse(buf, size, 2**62 if keep_arrays else MAX_KEPT_ARRAY)
            except struct.error as exc:
                raise GgufFormatError(
                    f"the header runs past the end of the file ({size:,} bytes): truncated download?"
                ) from exc
    end = max((header.data_start + t.offset + t.n_bytes for t in header.tensors), default=header.data_start)
    if end > size:
        raise GgufFormatError(
            f"truncated: tensor data should end at byte {end:,} but the file has {size:,} bytes"
        )
    return header
