"""GGUF models: parameters, quantisation, MoE layout and bytes read per token, from the header alone.

Only metadata is read (the header through a memory map), never tensor data. Bytes per token follow
engine-facts.md §6: routed experts count `used/count` of their bytes, the token embedding one row (unless
tied as the output head, which reads it whole), MTP blocks are left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from probes.model.gguf_header import GgufHeader, SkippedArray, TensorInfo, meta_int
from probes.model.info import BLOCK_RE, EXPERT_RE, ModelInfo
from probes.model.kv_cache import kv_cache_bytes, kv_shape


def file_type_name(code: int) -> str:
    """`general.file_type` → short label (3 → "Q4_1", 15 → "Q4_K_M"); unknown codes → "file-type-N"."""
    from gguf import LlamaFileType  # numpy underneath: imported when a model file is read, not by `probe` alone

    try:
        name = LlamaFileType(code).name
    except ValueError:
        return f"file-type-{code}"
    return {"ALL_F32": "F32", "GUESSED": "unknown"}.get(name, name.removeprefix("MOSTLY_"))


def _int(meta: dict[str, Any], key: str) -> int | None:
    # per-layer arrays (e.g. head_count_kv on hybrid models) give their largest item; a string is an error
    return meta_int(meta, key)


def _dominant_type(tensors: tuple[TensorInfo, ...]) -> str | None:
    by_type: dict[str, int] = {}
    for t in tensors:
        by_type[t.type_name] = by_type.get(t.type_name, 0) + t.n_bytes
    return max(by_type, key=lambda name: by_type[name]) if by_type else None


def analyse_gguf(path: Path, header: GgufHeader) -> ModelInfo:
    """Per-token cost of a parsed GGUF (engine-facts.md §6 algorithm); raises GgufFormatError for metadata of the
    wrong type."""
    meta = header.metadata
    arch = str(meta.get("general.architecture", "unknown"))
    blocks = _int(meta, f"{arch}.block_count")
    n_embd = _int(meta, f"{arch}.embedding_length")
    experts = _int(meta, f"{arch}.expert_count") or 0
    used = _int(meta, f"{arch}.expert_used_count") or 0
    mtp = _int(meta, f"{arch}.nextn_predict_layers") or 0
    tokens = meta.get("tokenizer.ggml.tokens")
    vocab = _int(meta, f"{arch}.vocab_size") or (
        tokens.count if isinstance(tokens, SkippedArray) else len(tokens) if isinstance(tokens, list) else None
    )
    names = {t.name for t in header.tensors}
    tied = "output.weight" not in names
    mtp_first = (blocks - mtp) if blocks is not None and mtp else None
    total_b = routed_b = active_b = total_p = active_p = 0.0
    moe_layers: set[int] = set()
    for t in header.tensors:
        total_b += t.n_bytes
        total_p += t.n_elements
        block = BLOCK_RE.match(t.name)
        if block and mtp_first is not None and int(block.group(1)) >= mtp_first:
            continue  # MTP blocks are not used in normal decoding
        share = 1.0
        if EXPERT_RE.search(t.name) and experts:
            routed_b += t.n_bytes
            share = used / experts
            if block:
                moe_layers.add(int(block.group(1)))
        elif t.name == "token_embd.weight" and not tied:
            rows = vocab or (t.shape[-1] if t.shape else 1)
            share = 1.0 / rows  # a lookup reads one row per token
        active_b += t.n_bytes * share
        active_p += t.n_elements * share
    file_type = _int(meta, "general.file_type")
    return ModelInfo(
        path=str(path),
        format="gguf",
        architecture=arch,
        name=str(meta["general.name"]) if "general.name" in meta else None,
        file_type=file_type_name(file_type) if file_type is not None else None,
        dominant_tensor_type=_dominant_type(header.tensors),
        total_params=int(total_p),
        active_params=round(active_p),
        context_length=_int(meta, f"{arch}.context_length"),
        block_count=blocks,
        embedding_length=n_embd,
        vocab_size=vocab,
        is_moe=experts > 0 and bool(moe_layers),
        expert_count=experts,
        expert_used_count=used,
        expert_shared_count=_int(meta, f"{arch}.expert_shared_count") or 0,
        moe_layer_count=len(moe_layers),
        mtp_layer_count=mtp,
        file_bytes=header.file_size,
        total_bytes=int(total_b),
        shared_bytes=int(total_b - routed_b),
        routed_expert_bytes=int(routed_b),
        bytes_per_token=round(active_b),
        kv_bytes_per_token=kv_cache_bytes(shape, 1) if (shape := kv_shape(meta)) is not None else None,
        bytes_source="gguf-tensors",
        has_chat_template=bool(meta.get("tokenizer.chat_template")),
        sliding_window=_int(meta, f"{arch}.attention.sliding_window"),
    )
