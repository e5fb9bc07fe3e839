"""How many bytes a model's KV cache takes: the shape from the GGUF header, the formula in one place."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The cache types llama-server accepts for -ctk/-ctv/-ctkd/-ctvd (its --help lists them); f16 is the default.
CACHE_TYPES = ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")
DEFAULT_CACHE_TYPE = "f16"


@dataclass(frozen=True, slots=True)
class KvShape:
    """What one cached token stores: per layer, `kv_heads[layer]` heads of a key and a value vector."""

    kv_heads: tuple[int, ...]   # per layer (0 for recurrent/linear layers of hybrid models)
    key_length: int             # elements per key head
    value_length: int           # elements per value head


def _int(value: object) -> int | None:
    if isinstance(value, list) and value:
        return int(max(value))
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def kv_shape(meta: Mapping[str, Any]) -> KvShape | None:
    """The KV shape from GGUF metadata: `{arch}.block_count`, `.attention.head_count(_kv)`, and
    `.attention.key_length`/`.value_length` (else the head dimension `embedding_length / head_count`)."""
    arch = str(meta.get("general.architecture", ""))
    layers = _int(meta.get(f"{arch}.block_count"))
    heads = meta.get(f"{arch}.attention.head_count")
    heads_kv = meta.get(f"{arch}.attention.head_count_kv", heads)
    if layers is None or heads is None or heads_kv is None:
        return None
    per_layer = [int(h) for h in heads_kv] if isinstance(heads_kv, list) else [int(heads_kv)] * layers
    head_dim = (_int(meta.get(f"{arch}.embedding_length")) or 0) // (_int(heads) or 1)
    return KvShape(kv_heads=tuple(per_layer[:layers]),
                   key_length=_int(meta.get(f"{arch}.attention.key_length")) or head_dim,
                   value_length=_int(meta.get(f"{arch}.attention.value_length")) or head_dim)


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
