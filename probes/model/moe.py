"""Mixture-of-experts routing arithmetic shared by the model probe and the performance model."""

from __future__ import annotations


def unique_experts(n_experts: int, top_m: int, k: int) -> float:
    """Expected distinct experts one layer reads for k tokens: N·(1 − (1 − m/N)^k).

    Assumes independent, uniform routing, so it is an upper bound when real routing is correlated.
    """
    if n_experts <= 0 or not 0 < top_m <= n_experts or k < 0:
        raise ValueError(f"bad MoE shape N={n_experts}, m={top_m}, k={k}")
    return n_experts * (1.0 - (1.0 - top_m / n_experts) ** k)
