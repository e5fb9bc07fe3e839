"""Memory-bandwidth utilisation (MBU) and the bottleneck class of plain decoding.

MBU = bytes read per token × tokens/s ÷ peak bandwidth (design.md §4 step 1). The peak is the GPU's
2 × max memory clock × bus width / 8 when a GPU is present, else the host's measured RAM read bandwidth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from advisor.core.policy import BottleneckPolicy
from advisor.evidence.schema import Environment
from advisor.perf.model import mbu, roofline_tok_s
from probes.base import Unavailable
from probes.model.info import ModelInfo

__all__ = ["Roofline", "bytes_per_token_gb", "classify", "mbu", "peak_bandwidth"]

Bottleneck = Literal["memory", "compute", "overhead"]
BandwidthSource = Literal["gpu-nvml", "host-measured"]


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


def peak_bandwidth(environment: Environment) -> tuple[float, BandwidthSource] | None:
    """The roofline bandwidth (GB/s) from the probed GPU (first card), else the measured host RAM bandwidth."""
    for card in environment.gpu.gpus if environment.gpu is not None else ():
        peak = card.peak_bandwidth_gbs
        if not isinstance(peak, Unavailable) and peak > 0:
            return float(peak), "gpu-nvml"
    ram = environment.host.ram_bandwidth_gbs if environment.host is not None else None
    if isinstance(ram, int | float) and ram > 0:
        return float(ram), "host-measured"
    return None


def bytes_per_token_gb(model: ModelInfo | None, context_tokens: float) -> float | None:
    """Weights read per decoded token plus the KV cache read at `context_tokens` depth, in GB (1e9 bytes)."""
    if model is None or model.bytes_per_token <= 0:
        return None
    kv_read = float(model.kv_bytes_per_token) * context_tokens if model.kv_bytes_per_token else 0.0
    return (float(model.bytes_per_token) + kv_read) / 1e9


def classify(mbu_value: float, bytes_gb: float, policy: BottleneckPolicy) -> Bottleneck:
    """Memory-bound at MBU ≥ the policy's cut-off; below it, small models are overhead-bound, others compute."""
    if mbu_value >= policy.memory_bound_mbu:
        return "memory"
    return "overhead" if bytes_gb < policy.small_model_gb else "compute"
