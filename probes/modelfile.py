"""What a model costs per decoded token: parameters, quantisation, MoE layout and bytes read (GGUF or HF).

Only metadata is read (GGUF header through a memory map; safetensors headers), never tensor data.
Bytes-per-token follows reference/engines.md §6: routed experts count `used/count` of their bytes, the token
embedding one row (unless tied as the output head, which reads it whole), MTP blocks are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from gguf import LlamaFileType

from probes.gguf_header import GgufFormatError, GgufHeader, SkippedArray, TensorInfo, read_gguf_header
from probes.serialize import as_dict

EXPERT_RE = re.compile(r"\.ffn_(up|down|gate|gate_up)_(ch)?exps")  # llama.cpp LLM_FFN_EXPS_REGEX
SHARED_EXPERT_RE = re.compile(r"_shexp\b")
BLOCK_RE = re.compile(r"^blk\.(\d+)\.")
KV_BYTES_PER_ELEMENT = 2  # f16 KV cache, llama.cpp's default


class ModelFileError(Exception):
    """A model path the user gave cannot be read; the message says why in plain words."""


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """Size and per-token cost of a model. Bytes are bytes (not GiB); params are counts."""

    path: str
    format: Literal["gguf", "hf"]
    architecture: str
    name: str | None
    file_type: str | None  # quantisation label, e.g. "Q4_1", "Q4_K_M", "BF16"
    dominant_tensor_type: str | None  # tensor type holding most bytes, e.g. "Q4_1"
    total_params: int
    active_params: int  # parameters touched per decoded token
    context_length: int | None
    block_count: int | None
    embedding_length: int | None
    vocab_size: int | None
    is_moe: bool
    expert_count: int
    expert_used_count: int
    expert_shared_count: int
    moe_layer_count: int
    mtp_layer_count: int
    file_bytes: int
    total_bytes: int  # all weight tensors
    shared_bytes: int  # everything but routed experts (attention, norms, embeddings, shared experts)
    routed_expert_bytes: int
    bytes_per_token: int  # weights read per decoded token at batch 1
    kv_bytes_per_token: int | None  # KV cache bytes added per token of context (f16)
    bytes_source: Literal["gguf-tensors", "safetensors", "config-estimate"]

    def bytes_for_batch(self, k: int) -> float:
        """Expected weight bytes read by one forward over `k` tokens (k=1 is `bytes_per_token`).

        Dense models read the same weights for any k; an MoE reads the union of experts the k tokens route to:
        N·(1−(1−m/N)^k) distinct experts per layer, assuming independent routing (an upper bound).
        """
        if not self.is_moe or self.expert_count == 0:
            return float(self.bytes_per_token)
        n, m = self.expert_count, self.expert_used_count
        one_token_experts = self.routed_expert_bytes * m / n
        distinct = n * (1.0 - (1.0 - m / n) ** k)
        return self.bytes_per_token - one_token_experts + self.routed_expert_bytes * distinct / n

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the fields above."""
        return as_dict(self)


def file_type_name(code: int) -> str:
    """`general.file_type` → short label (3 → "Q4_1", 15 → "Q4_K_M"); unknown codes → "file-type-N"."""
    try:
        name = LlamaFileType(code).name
    except ValueError:
        return f"file-type-{code}"
    return {"ALL_F32": "F32", "GUESSED": "unknown"}.get(name, name.removeprefix("MOSTLY_"))


def _int(meta: dict[str, Any], key: str) -> int | None:
    value = meta.get(key)
    if isinstance(value, list) and value:  # per-layer arrays (e.g. head_count_kv on hybrid models)
        return int(max(value))
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _kv_bytes_per_token(meta: dict[str, Any], arch: str, layers: int | None, n_embd: int | None) -> int | None:
    heads = meta.get(f"{arch}.attention.head_count")
    heads_kv = meta.get(f"{arch}.attention.head_count_kv", heads)
    if layers is None or heads is None or heads_kv is None:
        return None
    per_layer_kv = heads_kv if isinstance(heads_kv, list) else [heads_kv] * layers
    n_head = _int(meta, f"{arch}.attention.head_count") or 1
    head_dim = (n_embd or 0) // n_head
    k_len = _int(meta, f"{arch}.attention.key_length") or head_dim
    v_len = _int(meta, f"{arch}.attention.value_length") or head_dim
    # Layers with 0 KV heads (recurrent/linear layers in hybrids) add nothing. MLA models (DeepSeek) cache a
    # compressed latent instead, so for them this is an overestimate.
    return sum(int(h) * (k_len + v_len) * KV_BYTES_PER_ELEMENT for h in per_layer_kv[:layers])


def _dominant_type(tensors: tuple[TensorInfo, ...]) -> str | None:
    by_type: dict[str, int] = {}
    for t in tensors:
        by_type[t.type_name] = by_type.get(t.type_name, 0) + t.n_bytes
    return max(by_type, key=lambda name: by_type[name]) if by_type else None


def analyse_gguf(path: Path, header: GgufHeader) -> ModelInfo:
    """Per-token cost of a parsed GGUF (engines.md §6 algorithm)."""
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
        kv_bytes_per_token=_kv_bytes_per_token(meta, arch, blocks, n_embd),
        bytes_source="gguf-tensors",
    )


def probe_model(path: Path | str) -> ModelInfo:
    """Read a `.gguf` file or a Hugging Face model folder (config.json); raises `ModelFileError`."""
    path = Path(path).expanduser()
    if not path.exists():
        raise ModelFileError(f"model not found: {path}")
    if path.is_dir() or path.name == "config.json":
        # Imported here because probes.hfmodel builds on the types defined in this module.
        from probes.hfmodel import probe_hf_model

        return probe_hf_model(path if path.is_dir() else path.parent)
    try:
        header = read_gguf_header(path)
    except GgufFormatError as exc:
        raise ModelFileError(f"{path.name} is not a usable GGUF model: {exc}") from exc
    except OSError as exc:
        raise ModelFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not header.tensors:
        raise ModelFileError(f"{path.name} has no tensors (a vocabulary-only or split-index GGUF?)")
    return analyse_gguf(path, header)
