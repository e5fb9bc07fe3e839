"""The draft model beside the target: does its tokenizer pair, what it needs in VRAM, where it was placed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from probes.model.tokenizer_pair import TokenizerPair

# Why the draft runs on the CPU: no NVIDIA GPU, not enough free VRAM next to the target, or -ngld 0 was asked.
CpuReason = Literal["no-gpu", "no-room", "cpu-layers"]


@dataclass(frozen=True, slots=True)
class DraftSetup:
    """A managed run's draft model, worked out before the ON server starts; bytes are bytes, GiB 2^30 bytes."""

    path: str                                # the draft GGUF
    tokenizer: TokenizerPair | None = None   # llama.cpp's pairing checks on the GGUF headers
    weight_bytes: int | None = None          # the draft's tensors, from its GGUF
    kv_bytes: int | None = None              # its KV cache at ctx_tokens with the cache types below
    ctx_tokens: int | None = None            # tokens that KV cache holds, all slots together
    cache_type_k: str = "f16"
    cache_type_v: str = "f16"
    gpu_index: int | None = None             # NVML index of the GPU it was budgeted on
    vram_free_gib: float | None = None       # free there with the target loaded, before the draft
    headroom_gib: float | None = None        # vram_free_gib − (weights + KV); below 0 it does not fit
    on_cpu: bool = False                     # the draft's layers stay on the CPU (see cpu_reason)
    cpu_reason: CpuReason | None = None      # no-gpu, no-room (does not fit) or cpu-layers (-ngld 0 asked)
    args: tuple[str, ...] = ()               # the placement flags the ON server ran with
