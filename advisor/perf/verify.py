"""Predicted verify cost T(k)/T(1) for one forward over k new tokens, from the model file and two timings.

Model (design.md §4 step 3): a forward costs weight/KV reads plus per-token compute, not overlapped:
    T(k) = M(1) · bytes(k)/bytes(1) + k · c
c, the compute cost of one more token, is read off the large prefill that caches the prefix (L tokens: its
per-token time is almost all compute), and M(1) = T(1) − c. bytes(k) is constant for a dense model; an MoE
reads the union of experts its k tokens route to, N·(1−(1−m/N)^k) per layer (independent routing, so an
upper bound when real routing is correlated).
"""

from __future__ import annotations

from probes.model.info import ModelInfo


def bytes_ratio(model: ModelInfo | None, k: int) -> float:
    """bytes(k)/bytes(1): weights one forward over k tokens reads, relative to one token (1.0 when unknown)."""
    if model is None or model.bytes_per_token <= 0:
        return 1.0
    return model.bytes_for_batch(k) / model.bytes_for_batch(1)


def predicted_times_ms(model: ModelInfo | None, t1_ms: float, compute_ms_per_token: float,
                       ks: list[int]) -> dict[int, float]:
    """Predicted T(k) in ms for each k, anchored on the measured T(1) and per-token compute cost c."""
    c = min(max(compute_ms_per_token, 0.0), t1_ms)  # c cannot exceed a whole single-token step
    memory_1 = t1_ms - c
    return {k: memory_1 * bytes_ratio(model, k) + k * c for k in ks}
