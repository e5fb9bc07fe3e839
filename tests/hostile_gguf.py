"""Byte builders for malformed GGUF headers (the hostile-input corpus): tiny on disk, absurd in what they claim.

Layout (GGUF v3, little-endian): magic, u32 version, u64 tensor count, u64 key count, then key/value pairs
(string key, u32 type, value) and tensor entries (string name, u32 n_dims, u64 dims, u32 type, u64 offset).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

U8, U32, U64, STRING, ARRAY = 0, 4, 10, 8, 9


def s(text: str) -> bytes:
    """A GGUF string: u64 length, then the UTF-8 bytes."""
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def kv(key: str, vtype: int, payload: bytes) -> bytes:
    """One metadata pair whose value bytes are already encoded."""
    return s(key) + struct.pack("<I", vtype) + payload


def u32(key: str, value: int) -> bytes:
    return kv(key, U32, struct.pack("<I", value))


def u64(key: str, value: int) -> bytes:
    return kv(key, U64, struct.pack("<Q", value))


def string(key: str, value: str) -> bytes:
    return kv(key, STRING, s(value))


def array_head(key: str, item_type: int, count: int) -> bytes:
    """A metadata array's key and header; its items (if any) follow."""
    return kv(key, ARRAY, struct.pack("<IQ", item_type, count))


def tensor(name: str, dims: tuple[int, ...], type_id: int = 0, offset: int = 0) -> bytes:
    """One tensor-table entry (type 0 = F32)."""
    return s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + \
        struct.pack("<IQ", type_id, offset)


def gguf(kvs: list[bytes], tensors: Sequence[bytes] = (), *, n_kv: int | None = None, n_tensors: int | None = None,
         version: int = 3) -> bytes:
    """A whole header; counts default to what is given, and may lie."""
    head = b"GGUF" + struct.pack("<IQQ", version, len(tensors) if n_tensors is None else n_tensors,
                                 len(kvs) if n_kv is None else n_kv)
    return head + b"".join(kvs) + b"".join(tensors)


def llama(extra: list[bytes], tensors: list[bytes] | None = None) -> bytes:
    """A plausible llama header plus `extra` keys, with one small tensor (and its data) unless `tensors` is
    given; later keys win, so `extra` can replace the plausible ones."""
    kvs = [string("general.architecture", "llama"), u32("llama.block_count", 1),
           u32("llama.embedding_length", 8), u32("llama.attention.head_count", 2), *extra]
    given = [tensor("blk.0.attn_q.weight", (8, 8))] if tensors is None else tensors
    return gguf(kvs, given) + b"\0" * (1024 if tensors is None else 0)  # 8×8 F32 after any alignment


def bare(kvs: list[bytes], tensors: Sequence[bytes] = (), **counts: int) -> bytes:
    """A header whose last item is followed by nothing but zeros (the sparse files' hole)."""
    return gguf([string("general.architecture", "llama"), *kvs], tensors, **counts)
