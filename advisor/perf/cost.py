"""Step-time model of speculative decoding from physics: a roofline per forward plus fixed per-step costs.

One forward over n new tokens of B sequences takes
    T(n) = t_fixed + max(bytes(n) / (η_b · BW),  2 · P_active · n / (η_f · F))
with bytes(n) = the weights those n tokens read (a dense model reads all of them once; a MoE reads its shared
weights once and the union of experts its n tokens route to) + the KV cache of the B sequences at their depth.
A plain decode step is T(B); a speculative step is T(B·(γ+1)) + passes × T_draft + t_spec and yields B·τ tokens.
t_fixed, t_spec, η_f and η_b are the constants in advisor/perf/constants.py. Times are in ms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from advisor.perf.constants import CostConstants
from advisor.perf.model import moe_unique_experts

Bound = Literal["memory", "compute"]


@dataclass(frozen=True, slots=True)
class Machine:
    """What one forward runs on: bandwidth and FLOPs of the devices that share it, and how many there are."""

    bandwidth_gbs: float   # GB/s, summed over the devices a forward is split across
    fp16_tflops: float     # TFLOPS, likewise
    split_devices: int     # devices exchanging activations every layer (tensor/expert parallel); 1 = none


@dataclass(frozen=True, slots=True)
class MoeShape:
    """Routed experts per layer (N), experts per token (m), and the share of a token's bytes every token reads."""

    experts: int
    top_m: int
    shared_fraction: float


@dataclass(frozen=True, slots=True)
class Target:
    """The model being served, as the step-time model needs it."""

    active_params_b: float      # parameters one token uses (1e9): FLOPs per token = 2 × this
    weight_gb: float            # bytes one token's forward reads from the weights (GB)
    kv_gb_per_sequence: float   # KV cache one sequence reads per step at its context depth (GB)
    moe: MoeShape | None = None


def weight_bytes_ratio(moe: MoeShape | None, tokens: int) -> float:
    """Weights read by a forward over `tokens` tokens ÷ those read by one token (1 for a dense model)."""
    if moe is None or tokens <= 1:
        return 1.0
    routed = 1.0 - moe.shared_fraction
    return moe.shared_fraction + routed * moe_unique_experts(moe.experts, moe.top_m, tokens) / moe.top_m


def fixed_ms(machine: Machine, c: CostConstants) -> float:
    """The fixed part of one forward (ms): launches and sampling, plus all-reduces when split over devices."""
    return c.forward_overhead_ms + (c.multi_device_overhead_ms if machine.split_devices > 1 else 0.0)


def work_ms(target: Target, machine: Machine, tokens: int, sequences: int, c: CostConstants) -> tuple[float, Bound]:
    """Roofline time of a forward over `tokens` new tokens of `sequences` sequences (ms), and what bounds it."""
    gb = target.weight_gb * weight_bytes_ratio(target.moe, tokens) + sequences * target.kv_gb_per_sequence
    memory = gb / (c.bandwidth_efficiency * machine.bandwidth_gbs) * 1e3
    compute = 2.0 * target.active_params_b * tokens / (c.compute_efficiency * machine.fp16_tflops)  # GFLOP/TFLOPS
    return (memory, "memory") if memory >= compute else (compute, "compute")


@dataclass(frozen=True, slots=True)
class StepCosts:
    """Times of the pieces of one plain and one speculative step for the whole batch (ms)."""

    plain_ms: float
    verify_ms: float
    draft_pass_ms: float
    draft_passes: int
    overhead_ms: float
    verify_bound: Bound

    @property
    def spec_step_ms(self) -> float:
        """Verify + every draft pass + the fixed speculative overhead (ms)."""
        return self.verify_ms + self.draft_passes * self.draft_pass_ms + self.overhead_ms


def speedup(tau: float, costs: StepCosts, gamma: int, draft_coverage: float | None = None) -> float:
    """Decode speedup (×): τ tokens per speculative step against one token per plain step.

    With `draft_coverage` (drafted ÷ generated tokens) only d = coverage/γ steps per generated token carry a
    draft; the rest run as plain steps, so per-token time = d·T_spec + (1 − d·τ)·T_plain.
    """
    if costs.spec_step_ms <= 0 or costs.plain_ms <= 0:
        raise ValueError("step times must be positive")
    if draft_coverage is None:
        return tau * costs.plain_ms / costs.spec_step_ms
    if gamma < 1 or draft_coverage < 0:
        raise ValueError("γ ≥ 1 and coverage ≥ 0 are required")
    d = min(draft_coverage / gamma, 1.0 / tau)
    return costs.plain_ms / (d * costs.spec_step_ms + (1.0 - d * tau) * costs.plain_ms)
