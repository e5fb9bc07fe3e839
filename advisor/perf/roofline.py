"""Memory-bandwidth utilisation (MBU) and the bottleneck class of plain decoding.

MBU = bytes read per token × tokens/s ÷ peak bandwidth (DESIGN §4 step 1). The peak is the GPU's
2 × max memory clock × bus width / 8 when a GPU is present, else the host's measured RAM copy bandwidth.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from advisor.perf.model import mbu, roofline_tok_s

__all__ = ["Roofline", "bytes_per_token_gb", "classify", "mbu", "peak_bandwidth"]

Bottleneck = Literal["memory", "compute", "overhead"]
BandwidthSource = Literal["gpu-nvml", "host-measured"]

# Decoding that reaches half the roofline is taken as memory-bound: llama.cpp decode typically sustains
# 60–90% of peak bandwidth on GPUs (engines.md §5, pitfall 5: achievable ≈ 80–92% of peak), so below 50%
# something other than weight reads dominates the step time.
MEMORY_BOUND_MBU = 0.5
# Below 0.5 GB per token the weights take < 2 ms even on a 300 GB/s card, so fixed per-step costs (kernel
# launches, sampling, HTTP streaming) dominate a low MBU: "overhead-bound" (DESIGN §4 step 1, small models).
SMALL_MODEL_GB = 0.5


@dataclass(frozen=True, slots=True)
class Roofline:
    """Peak bandwidth, where it came from, and the tok/s ceiling it implies for this model."""

    peak_gbs: float
    source: BandwidthSource
    bytes_per_token_gb: float

    @property
    def max_tok_s(self) -> float:
        """tok/s if every step were pure weight + KV reads at peak bandwidth."""
        return roofline_tok_s(self.peak_gbs, self.bytes_per_token_gb)


def peak_bandwidth(environment: Mapping[str, Any]) -> tuple[float, BandwidthSource] | None:
    """The roofline bandwidth (GB/s) from the probed GPU (first card), else the measured host RAM bandwidth."""
    gpu = environment.get("gpu") or {}
    for card in gpu.get("gpus") or ():
        peak = card.get("peak_bandwidth_gbs")
        if isinstance(peak, int | float) and peak > 0:
            return float(peak), "gpu-nvml"
    ram = (environment.get("host") or {}).get("ram_bandwidth_gbs")
    if isinstance(ram, int | float) and ram > 0:
        return float(ram), "host-measured"
    return None


def bytes_per_token_gb(model: Mapping[str, Any], context_tokens: float) -> float | None:
    """Weights read per decoded token plus the KV cache read at `context_tokens` depth, in GB (1e9 bytes)."""
    weights = model.get("bytes_per_token")
    if not isinstance(weights, int | float) or weights <= 0:
        return None
    kv = model.get("kv_bytes_per_token")
    kv_read = float(kv) * context_tokens if isinstance(kv, int | float) else 0.0
    return (float(weights) + kv_read) / 1e9


def classify(mbu_value: float, bytes_gb: float) -> Bottleneck:
    """Memory-bound at MBU ≥ 0.5; below that, small models are overhead-bound and others compute-bound."""
    if mbu_value >= MEMORY_BOUND_MBU:
        return "memory"
    return "overhead" if bytes_gb < SMALL_MODEL_GB else "compute"
