"""How many bytes a model's KV cache takes: the shape from the GGUF header, the formula in one place."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from probes.model.gguf_header import GgufFormatError, meta_int

# The cache types llama-server accepts for -ctk/-ctv/-ctkd/-ctvd (its --help lists them); f16 is the default.
CACHE_TYPES = ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")
DEFAULT_CACHE_TYPE = "f16"
# The deepest published models have under 200 blocks; a count far above is a corrupt or hostile header
# (a block_count of 1e12 would otherwise build a list of 1e12 layers).
MAX_LAYERS = 4096


@dataclass(frozen=True, slots=True)
class KvShape:
    """What one cached token stores: per layer, `kv_heads[layer]` heads of a key and a value vector."""

    kv_heads: tuple[int, ...]   # per layer (0 for recurrent/linear layers of hybrid models)
    key_length: int             # elements per key head
    value_length: int           # elements per value head


def kv_shape(meta: Mapping[str, Any]) -> KvShape | None:
    """The KV shape from GGUF metadata: `{arch}.block_count`, `.attention.head_count(_kv)`, and
    `.attention.key_length`/`.value_length` (else the head dimension `embedding_length / head_count`).

    Raises GgufFormatError when one of them has the wrong type or block_count is implausible."""
    meta = dict(meta)
    arch = str(meta.get("general.architecture", ""))
    layers = meta_int(meta, f"{arch}.block_count")
    heads = meta_int(meta, f"{arch}.attention.head_count")
    kv_key = f"{arch}.attention.head_count_kv"
    max_kv = meta_int(meta, kv_key) if kv_key in meta else heads  # checks the type of every per-layer item
    if layers is None or heads is None or max_kv is None:
        return None
    if layers > MAX_LAYERS:
        raise GgufFormatError(f"metadata '{arch}.block_count' = {layers:,} is not a real layer count")
    raw_kv = meta.get(kv_key, heads)
    per_layer = [int(h) for h in raw_kv] if isinstance(raw_kv, list) else [int(max_kv)] * layers
    head_dim = (meta_int(meta, f"{arch}.embedding_length") or 0) // (heads or 1)
    return KvShape(kv_heads=tuple(per_layer[:layers]),
                   key_length=meta_int(meta, f"{arch}.attention.key_length") or head_dim,
                   value_length=meta_int(meta, f"{arch}.attention.value_length") or head_dim)


def cache_type_bytes(name: str) -> float:
    """Bytes per cached element of a cache type: f16 → 2.0, q8_0 → 34/32 (blocks of 32 with a scale)."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType  # numpy underneath: only when a size is asked for

    try:
        block, size = GGML_QUANT_SIZES[GGMLQuantizationType[name.upper()]]
    except KeyError:
        raise ValueError(f"unknown KV cache type {name!r} (one of {', '.join(CACHE_TYPES)})") from None
    return size / block


def kv_cache_bytes(shape: KvShape, n_ctx: int, type_k: str = DEFAULT_CACHE_TYPE,
                   type_v: str = DEFAULT_CACHE_TYPE) -> int:
    """Bytes of a KV cache that holds `n_ctx` tokens (all sequences together):

    n_ctx [tokens] × Σ_layers n_head_kv × (key_length × b_k + value_length × b_v) [bytes per token],
    b being the bytes per element of the K and V cache types (2 for f16). MLA models (DeepSeek) cache a
    compressed latent instead, so for them this is an overestimate.
    """
    b_k, b_v = cache_type_bytes(type_k), cache_type_bytes(type_v)
    per_token = sum(h * (shape.key_length * b_k + shape.value_length * b_v) for h in shape.kv_heads)
    return round(n_ctx * per_token)
