"""Predicted verify cost T(k)/T(1) for one forward over k new tokens, from the model file and two timings.

Model (DESIGN §4 step 3): a forward costs weight/KV reads plus per-token compute, not overlapped:
    T(k) = M(1) · bytes(k)/bytes(1) + k · c
c, the compute cost of one more token, is read off the large prefill that caches the prefix (L tokens: its
per-token time is almost all compute), and M(1) = T(1) − c. bytes(k) is constant for a dense model; an MoE
reads the union of experts its k tokens route to, N·(1−(1−m/N)^k) per layer (independent routing, so an
upper bound when real routing is correlated).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from advisor.perf.model import moe_unique_experts


def bytes_ratio(model: Mapping[str, Any], k: int) -> float:
    """bytes(k)/bytes(1) from the probed model dict (1.0 for dense models or when sizes are unknown)."""
    per_token = model.get("bytes_per_token")
    routed = model.get("routed_expert_bytes")
    n, m = model.get("expert_count") or 0, model.get("expert_used_count") or 0
    if not model.get("is_moe") or not per_token or not routed or not (0 < m <= n):
        return 1.0
    routed_one = routed * m / n                      # routed bytes one token reads
    shared = per_token - routed_one
    routed_k = routed * moe_unique_experts(n, m, k) / n
    return float((shared + routed_k) / per_token)


def predicted_times_ms(model: Mapping[str, Any], t1_ms: float, compute_ms_per_token: float,
                       ks: list[int]) -> dict[int, float]:
    """Predicted T(k) in ms for each k, anchored on the measured T(1) and per-token compute cost c."""
    c = min(max(compute_ms_per_token, 0.0), t1_ms)  # c cannot exceed a whole single-token step
    memory_1 = t1_ms - c
    return {k: memory_1 * bytes_ratio(model, k) + k * c for k in ks}
