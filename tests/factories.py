"""Typed test inputs built from the few fields a test cares about (the rest are plausible defaults)."""

from __future__ import annotations

import dataclasses
from typing import Any

from probes.model.info import ModelInfo

_MODEL_DEFAULTS: dict[str, Any] = dict(
    path="/models/test.gguf", format="gguf", architecture="llama", name="test", file_type="Q4_1",
    dominant_tensor_type="Q4_1", total_params=135_000_000, active_params=135_000_000, context_length=2048,
    block_count=30, embedding_length=576, vocab_size=49152, is_moe=False, expert_count=0, expert_used_count=0,
    expert_shared_count=0, moe_layer_count=0, mtp_layer_count=0, file_bytes=100_000_000,
    total_bytes=100_000_000, shared_bytes=100_000_000, routed_expert_bytes=0, bytes_per_token=100_000_000,
    kv_bytes_per_token=None, bytes_source="gguf-tensors",
)


def model_info(**fields: Any) -> ModelInfo:
    """A ModelInfo with `fields` set (names as in probes/model/info.py)."""
    unknown = set(fields) - {f.name for f in dataclasses.fields(ModelInfo)}
    assert not unknown, f"ModelInfo has no fields {unknown}"
    return ModelInfo(**{**_MODEL_DEFAULTS, **fields})
