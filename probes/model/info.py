"""What a model costs per decoded token (`ModelInfo`), whichever file format it was read from."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from probes.model.moe import unique_experts
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
    # Does the file carry its own chat template (GGUF `tokenizer.chat_template`)? None: not known (a folder
    # whose tokenizer config was not read). Without one, llama-server formats chats as ChatML.
    has_chat_template: bool | None = None
    sliding_window: int | None = None  # tokens a sliding-window layer attends to (Gemma 2/3), None: none

    def bytes_for_batch(self, k: int) -> float:
        """Expected weight bytes read by one forward over `k` tokens (k=1 is `bytes_per_token`).

        Dense models read the same weights for any k; an MoE reads the union of experts the k tokens route to:
        N·(1−(1−m/N)^k) distinct experts per layer, assuming independent routing (an upper bound).
        """
        if not self.is_moe or self.expert_count == 0 or not 0 < self.expert_used_count <= self.expert_count:
            return float(self.bytes_per_token)
        n, m = self.expert_count, self.expert_used_count
        one_token_experts = self.routed_expert_bytes * m / n
        return self.bytes_per_token - one_token_experts + self.routed_expert_bytes * unique_experts(n, m, k) / n

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the fields above."""
        return as_dict(self)
