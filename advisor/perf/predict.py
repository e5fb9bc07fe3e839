"""Predict a speedup from whatever facts exist: the physics step-time model (cost.py) fed by measurements
where they exist and named priors otherwise (inputs.py). Never a verdict on its own.

Acceptance is read as engines count it — accepted ÷ drafted — so a step yields τ = 1 + rate × γ tokens; that
rate falls as γ grows even when every step gains tokens, which is why it is weighed against step cost here
rather than against a fixed threshold. Measured inputs replace model terms one by one:
`baseline.decode_tok_s` fixes the plain step time (and so the engine's fixed per-forward cost),
`verify.cost_ratio_at_draft_max` the verify step, `spec.draft_cost_ratio` a draft pass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from advisor.perf import cost, inputs
from advisor.perf.constants import FITTED, CostConstants
from advisor.text.message import Message, msg


@dataclass(frozen=True, slots=True)
class Prediction:
    """Model speedup (×) at γ drafts per step, with the terms it used and the priors it had to assume.

    Ratios are relative to one plain decode step of the same batch: verify_ratio = T_verify(γ+1)/T(1),
    draft_cost_ratio = one draft pass / T(1), overhead_ratio = fixed speculative overhead / T(1).
    """

    speedup: float
    tokens_per_step: float
    gamma: int
    alpha: float           # acceptance rate as engines count it: accepted ÷ drafted
    draft_cost_ratio: float
    verify_ratio: float
    priors: tuple[Message, ...]  # what it assumed for facts not given (the assume.* messages)
    overhead_ratio: float = 0.0
    draft_passes: int = 0
    plain_step_ms: float = 0.0
    verify_bound: cost.Bound = "memory"
    concurrency: int = 1
    # step time, verify cost and draft cost all measured (the live check), so only the speculative overhead
    # and acceptance enter from outside; otherwise the roofline supplies them and the calibration error applies
    from_measurements: bool = False

    @property
    def is_prior(self) -> bool:
        """True when any input came from a prior rather than a measurement."""
        return bool(self.priors)


def _int(facts: Mapping[str, object], name: str) -> int | None:
    v = facts.get(name)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _gamma(facts: Mapping[str, object], tau: float | None, priors: list[Message]) -> int:
    gamma = _int(facts, "spec.draft_max")
    if gamma is not None and gamma >= 1:
        return gamma
    # a step cannot accept more than it drafted: without γ, take the llama.cpp default or ⌈τ⌉ if τ says more
    gamma = max(inputs.DEFAULT_GAMMA, math.ceil(tau)) if tau is not None else inputs.DEFAULT_GAMMA
    priors.append(msg("assume.gamma", gamma=gamma))
    return gamma


def _costs(facts: Mapping[str, object], gamma: int, batch: int, c: CostConstants,
           priors: list[Message]) -> tuple[cost.StepCosts, bool]:
    """Step costs, and whether they came from measurements alone (no roofline or architecture estimate)."""
    hw_priors: list[Message] = []  # what the roofline assumed; listed only if a roofline term is used below
    tgt, total_gb = inputs.target(facts, batch, hw_priors)
    mach = inputs.machine(facts, total_gb, hw_priors)
    fixed, scale = cost.fixed_ms(mach, c), 1.0
    tok_s = inputs.f(facts, "baseline.decode_tok_s")
    if tok_s is not None and tok_s > 0:
        # the measured single-stream step anchors the roofline: what the bytes do not explain is fixed cost,
        # and a roofline slower than the measurement (bytes or device assumed too big) is scaled down to it
        t1, work_1 = 1000.0 / tok_s, cost.work_ms(tgt, mach, 1, 1, c)[0]
        fixed, scale = max(t1 - work_1, 0.0), min(t1 / work_1, 1.0) if work_1 > 0 else 1.0

    def work(target: cost.Target, tokens: int) -> tuple[float, cost.Bound]:
        ms, bound = cost.work_ms(target, mach, tokens, batch, c)
        return ms * scale, bound

    plain = 1000.0 / tok_s if tok_s and batch == 1 else fixed + work(tgt, batch)[0]
    work_v, bound = work(tgt, batch * (gamma + 1))
    verify = fixed + work_v
    measured_verify = inputs.f(facts, "verify.cost_ratio_at_draft_max")
    roofline_used = tok_s is None or batch > 1
    if measured_verify is not None and batch == 1:  # the verify curve is measured single-stream
        verify = measured_verify * plain
    else:
        roofline_used = True
    drf = inputs.draft(facts, gamma, tgt.active_params_b, c.draft_size_ratio, priors)
    measured_draft = inputs.f(facts, "spec.draft_cost_ratio")
    if measured_draft is not None:
        pass_ms = measured_draft * plain
    elif drf.family == "ngram":
        pass_ms = 0.0  # suffix/n-gram lookups run on the CPU in microseconds
    elif drf.family == "head":
        pass_ms = drf.head_fraction * plain
    else:  # a separate (or block) draft model: a full forward's fixed cost plus its own weight reads
        small = cost.Target(tgt.active_params_b * drf.size_ratio, tgt.weight_gb * drf.size_ratio,
                            tgt.kv_gb_per_sequence * drf.size_ratio)
        pass_ms = fixed + work(small, batch * (gamma if drf.family == "block" else 1))[0]
        roofline_used = True
    if roofline_used:
        priors[:0] = hw_priors
    measured = not roofline_used and (measured_draft is not None or drf.family == "ngram")
    return cost.StepCosts(plain, verify, pass_ms, drf.passes, c.spec_step_overhead_ms, bound), measured


def predict(facts: Mapping[str, object], constants: CostConstants = FITTED) -> Prediction | None:
    """Predicted speedup at the user's concurrency; None without acceptance.rate or acceptance.mean_length."""
    rate, tau = inputs.f(facts, "acceptance.rate"), inputs.f(facts, "acceptance.mean_length")
    if rate is None and tau is None:
        return None
    priors: list[Message] = []
    gamma = _gamma(facts, tau, priors)
    if tau is None:
        tau = 1.0 + min(max(rate or 0.0, 0.0), 1.0) * gamma
    tau = min(max(tau, 1.0), float(gamma + 1))
    if rate is None:
        rate = (tau - 1.0) / gamma
    batch = max(_int(facts, "workload.concurrency") or 1, 1)
    costs, measured = _costs(facts, gamma, batch, constants, priors)
    coverage = inputs.f(facts, "acceptance.draft_coverage")
    s = cost.speedup(tau, costs, gamma, coverage)
    plain = costs.plain_ms
    return Prediction(s, tau, gamma, min(max(rate, 0.0), 1.0), costs.draft_pass_ms / plain, costs.verify_ms / plain,
                      tuple(priors), costs.overhead_ms / plain, costs.draft_passes, plain, costs.verify_bound, batch,
                      measured and not priors)
