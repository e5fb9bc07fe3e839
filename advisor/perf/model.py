"""Speculative-decoding performance model: pure functions, no I/O (design.md §4).

Times are normalised to T(1), the cost of one ordinary decode step, unless a function says otherwise.
These are the textbook forms; predictions use the step-time model in advisor/perf/cost.py (roofline plus
fixed per-forward and per-step costs), which reduces to `predicted_speedup` when those costs are zero.
References: Leviathan, Kalman & Matias 2023 ("Fast Inference from Transformers via Speculative Decoding")
and Chen et al. 2023 ("Accelerating LLM Decoding with Speculative Sampling").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def expected_tokens_per_step(alpha: float, gamma: int) -> float:
    """E = (1 − α^(γ+1)) / (1 − α): tokens produced per verify step (tokens), α in [0, 1], γ ≥ 0 drafts.

    Assumes i.i.d. acceptance per position (Leviathan et al. 2023, eq. 1). At α = 1 it is γ + 1.
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"acceptance rate must be in [0, 1], got {alpha}")
    if gamma < 0:
        raise ValueError(f"draft length must be >= 0, got {gamma}")
    if alpha >= 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)


def alpha_from_mean_length(tau: float, gamma: int) -> float:
    """Invert E(α, γ) = τ by bisection: the per-token acceptance rate implied by a mean acceptance length."""
    if gamma < 1:
        raise ValueError("need at least one drafted token to infer α")
    tau = min(max(tau, 1.0), float(gamma + 1))
    lo, hi = 0.0, 1.0
    for _ in range(60):  # E is increasing in α; 60 halvings is below float resolution
        mid = (lo + hi) / 2
        if expected_tokens_per_step(mid, gamma) < tau:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def predicted_speedup(tau: float, verify_ratio: float, gamma: int, draft_cost_ratio: float,
                      t1: float = 1.0) -> float:
    """τ·T(1) / (T_verify(γ+1) + γ·T_draft), with T_verify = verify_ratio·T(1), T_draft = draft_cost_ratio·T(1).

    `tau` is tokens per verify step (measured mean acceptance length or E(α, γ)); result is a ratio (×).
    """
    denominator = verify_ratio * t1 + gamma * draft_cost_ratio * t1
    if denominator <= 0:
        raise ValueError("verify cost must be positive")
    return tau * t1 / denominator


def predicted_speedup_with_coverage(tau: float, verify_ratio: float, gamma: int, draft_cost_ratio: float,
                                    draft_coverage: float) -> float:
    """Speedup when only some steps carry a draft (×).

    `draft_coverage` = drafted tokens ÷ generated tokens. Drafting steps per generated token are
    d = coverage/γ; each yields τ tokens for (verify + γ·draft) time, the other tokens come one per plain
    step of time T(1). Per-token time = d·(verify + γ·draft) + (1 − d·τ), so speedup = 1 / that. With a draft at
    every step (d = 1/τ) this is exactly `predicted_speedup`. N-gram methods on diverse prompts often find
    nothing to copy, and without this term the model credits them with gains on steps that never drafted.
    """
    if gamma < 1 or draft_coverage < 0:
        raise ValueError("γ ≥ 1 and coverage ≥ 0 are required")
    d = min(draft_coverage / gamma, 1.0 / tau)  # cannot draft on more steps than there are
    per_token = d * (verify_ratio + gamma * draft_cost_ratio) + (1.0 - d * tau)
    if per_token <= 0:
        raise ValueError("verify cost must be positive")
    return 1.0 / per_token


def moe_unique_experts(n_experts: int, top_m: int, k: int) -> float:
    """Expected distinct experts touched in one layer by k tokens: N·(1 − (1 − m/N)^k) (uniform routing)."""
    if n_experts <= 0 or not 0 < top_m <= n_experts or k < 0:
        raise ValueError(f"bad MoE shape N={n_experts}, m={top_m}, k={k}")
    return n_experts * (1.0 - (1.0 - top_m / n_experts) ** k)


def moe_step_bytes(k: int, shared_bytes: float, expert_bytes: float, n_layers: int, n_experts: int,
                   top_m: int) -> float:
    """Bytes one forward over k tokens reads: shared + per-expert bytes × Σ_layers unique experts (bytes)."""
    return shared_bytes + expert_bytes * n_layers * moe_unique_experts(n_experts, top_m, k)


def moe_verify_ratio(k: int, shared_fraction: float, n_experts: int, top_m: int) -> float:
    """T(k)/T(1) for a memory-bound MoE from bytes alone.

    `shared_fraction` is the share of one token's bytes that every token reads (attention, embeddings,
    shared experts); the rest scales with the unique experts touched.
    """
    if not 0.0 <= shared_fraction <= 1.0:
        raise ValueError("shared_fraction must be in [0, 1]")
    routed = 1.0 - shared_fraction
    return shared_fraction + routed * moe_unique_experts(n_experts, top_m, k) / top_m


def moe_shared_fraction(total_params_b: float, active_params_b: float, n_experts: int, top_m: int) -> float:
    """Shared share of active weights from total/active counts: total = S + N·e, active = S + m·e."""
    if n_experts <= top_m or total_params_b <= active_params_b:
        return 1.0
    per_expert = (total_params_b - active_params_b) / (n_experts - top_m)
    shared = active_params_b - top_m * per_expert
    return min(max(shared / active_params_b, 0.0), 1.0)


def dense_verify_ratio(k: int, knee_tokens: float) -> float:
    """T(k)/T(1) for a dense model: flat while memory-bound, then linear past the compute knee (tokens)."""
    if knee_tokens <= 0:
        raise ValueError("knee must be positive")
    return max(1.0, k / knee_tokens)


def roofline_tok_s(bandwidth_gbs: float, bytes_per_token_gb: float) -> float:
    """Upper bound on memory-bound decode speed: bandwidth ÷ bytes per token (tok/s)."""
    if bytes_per_token_gb <= 0:
        raise ValueError("bytes per token must be positive")
    return bandwidth_gbs / bytes_per_token_gb


def mbu(bytes_per_token_gb: float, tok_s: float, bandwidth_gbs: float) -> float:
    """Memory-bandwidth utilisation: bytes/token × tok/s ÷ peak bandwidth (0..1)."""
    return bytes_per_token_gb * tok_s / bandwidth_gbs


def best_gamma(alpha: float, verify_ratio: Callable[[int], float], draft_cost_ratio: float,
               candidates: Sequence[int] = tuple(range(1, 17))) -> tuple[int, float]:
    """(γ, predicted speedup) maximising the model over `candidates`; verify_ratio(k) gives T(k)/T(1)."""
    best = (0, 1.0)
    for gamma in candidates:
        tau = expected_tokens_per_step(alpha, gamma)
        s = predicted_speedup(tau, verify_ratio(gamma + 1), gamma, draft_cost_ratio)
        if s > best[1] or best[0] == 0:
            best = (gamma, s)
    return best
