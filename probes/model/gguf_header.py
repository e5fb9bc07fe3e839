"""Read a GGUF file's metadata and tensor table without touching tensor data.

Why not `gguf.GGUFReader`: it builds a numpy view for every element of every array, so a file with a 49k-token
vocabulary takes seconds to open. Here string arrays are skipped (only their length is kept) and the whole
header is parsed in tens of milliseconds. Type sizes and names still come from the `gguf` package.
"""

from __future__ import annotations

import mmap
import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAGIC = b"GGUF"
DEFAULT_ALIGNMENT = 32
_SCALARS: dict[int, str] = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
MAX_KEPT_ARRAY = 4096  # longer arrays (vocabulary, merges, scores) are summarised unless asked for
# Bounds on what a header may claim, checked before anything is read, so a file of a few KB (or a sparse one
# that claims terabytes) cannot make the reader loop for hours or allocate gigabytes. Every count is also
# bounded by the bytes left in the file: each item takes at least its smallest encoding.
MAX_ARRAY_ITEMS = 1 << 24  # largest real arrays: vocabularies (~260k tokens) and merges (~1M)
MAX_ARRAY_DEPTH = 3        # arrays of arrays are rare (per-layer lists); deeper nesting is corruption
MAX_DIMS = 4               # GGML_MAX_DIMS in ggml.h
_MIN_ITEM_BYTES = {_STRING: 8, _ARRAY: 12}  # a string's u64 length; an array's u32 type + u64 count
_MIN_KV_BYTES = 8 + 4 + 1       # empty key, value type, one-byte value
_MIN_TENSOR_BYTES = 8 + 4 + 4 + 8  # empty name, n_dims = 0, type, offset


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

    def left(self) -> int:
        """Bytes after the cursor."""
        return len(self.buf) - self.pos

    def count(self, what: str, n: int, min_bytes: int, limit: int) -> int:
        """`n` items of at least `min_bytes` each must fit in what is left of the file, and under `limit`."""
        if n > limit:
            raise GgufFormatError(f"implausible {what} count {n:,} at byte {self.pos:,}: corrupt file")
        if n * min_bytes > self.left():
            raise GgufFormatError(f"{n:,} {what}s at byte {self.pos:,} need more than the {self.left():,} bytes "
                                  "left: truncated download or corrupt file")
        return n

    def value(self, vtype: int, depth: int = 0) -> Any:
        if vtype in _SCALARS:
            return self.unpack(_SCALARS[vtype])
        if vtype == _STRING:
            return self.string()
        if vtype == _ARRAY:
            return self.array(depth + 1)
        raise GgufFormatError(f"unknown metadata value type {vtype} at byte {self.pos}")

    def array(self, depth: int = 1) -> Any:
        if depth > MAX_ARRAY_DEPTH:
            raise GgufFormatError(f"metadata arrays nested more than {MAX_ARRAY_DEPTH} deep at byte {self.pos:,}")
        item_type, count = self.unpack("I"), self.unpack("Q")
        if item_type in _SCALARS:
            min_bytes = struct.calcsize(_SCALARS[item_type])
        elif item_type in _MIN_ITEM_BYTES:
            min_bytes = _MIN_ITEM_BYTES[item_type]
        else:
            raise GgufFormatError(f"unknown array item type {item_type} at byte {self.pos}")
        self.count("array item", count, min_bytes, MAX_ARRAY_ITEMS)
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
        return [self.value(item_type, depth) for _ in range(count)]  # nested arrays are rare and small


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


def _alignment(value: object) -> int:
    # gguf.cpp accepts only a power of two; a string or 0 here would otherwise crash or divide by zero
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value & (value - 1):
        raise GgufFormatError(f"general.alignment must be a power of two, got {_shown(value)}")
    return value


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def meta_int(meta: dict[str, Any], key: str) -> int | None:
    """An integer metadata value (a per-layer array gives its largest item); None when absent.

    Raises GgufFormatError when the key holds something else (a string, a float, a bool)."""
    if key not in meta:
        return None
    value = meta[key]
    items = value if isinstance(value, list) else [value]
    if not items or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise GgufFormatError(f"metadata '{key}' must be an integer, got {_shown(value)}")
    return int(max(items))


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
    cur.count("metadata key", n_kv, _MIN_KV_BYTES, n_kv)
    metadata: dict[str, Any] = {}
    for _ in range(n_kv):
        key = cur.string()
        metadata[key] = cur.value(cur.unpack("I"))
    cur.count("tensor", n_tensors, _MIN_TENSOR_BYTES, n_tensors)
    raw: list[tuple[str, tuple[int, ...], int, int]] = []
    for _ in range(n_tensors):
        name = cur.string()
        n_dims = cur.unpack("I")
        if n_dims > MAX_DIMS:
            raise GgufFormatError(f"tensor '{name[:80]}' claims {n_dims:,} dimensions (ggml has at most {MAX_DIMS})")
        shape = tuple(cur.unpack("Q") for _ in range(n_dims))
        raw.append((name, shape, cur.unpack("I"), cur.unpack("Q")))
    alignment = _alignment(metadata.get("general.alignment", DEFAULT_ALIGNMENT))
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
    # O_NONBLOCK: opening a named pipe must not wait for a writer; fstat then refuses anything but a file
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise GgufFormatError("not a regular file (a pipe, device or folder cannot hold a GGUF model)")
        size = info.st_size
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
