"""The sanity gate: two short requests per arm right after the servers are up, before any long step.

Published reports show speculation 13–20× slower on some backends and splits (a Metal MTP path, 500 ms per
token with a user-given tensor split). Ten minutes of careful steps would only confirm that; two requests per
arm show it in seconds. The requests use out-of-set warm-up prompts, so they double as warm-up and nothing a
measured phase sends reaches the ON server's n-gram pool. When the ON arm is slower than OFF by the policy's
limit in every pair (rules/policy.toml [arms] sanity_max_slowdown), the check stops with that finding and the
likely causes for this placement and backend.
"""

from __future__ import annotations

from advisor.arms.arms import Arm
from advisor.evidence.steps import SanityCheck
from advisor.recommend.dialect import flag_name
from advisor.steps.base import StepContext
from advisor.steps.common import run_prompt
from probes.engines.base import EngineError

# Options that place the target in ways published slowdowns came from (llama-server --help spellings).
_SPLIT_FLAGS = frozenset({"-ts", "--tensor-split", "-sm", "--split-mode"})
_EXPERT_FLAGS = frozenset({"-ncmoe", "--n-cpu-moe", "-cmoe", "--cpu-moe"})
_OVERRIDE_FLAGS = frozenset({"-ot", "--override-tensor"})
_LAYER_FLAGS = frozenset({"-ngl", "--gpu-layers", "--n-gpu-layers"})


def likely_causes(ctx: StepContext) -> tuple[str, ...]:
    """Cause codes for a far slower ON arm, from what this check knows of its placement and backend."""
    args = list(ctx.config.server_args)
    names = {flag_name(a) for a in args}
    causes: list[str] = []
    draft = ctx.environment.draft
    if draft is not None and draft.on_cpu:
        causes.append("draft-on-cpu")
    overrides = [args[i + 1] for i, a in enumerate(args[:-1]) if flag_name(a) in _OVERRIDE_FLAGS]
    if names & _EXPERT_FLAGS or any("exps" in o and "cpu" in o.lower() for o in overrides):
        causes.append("experts-on-cpu")
    if names & _SPLIT_FLAGS:
        causes.append("tensor-split")
    if names & _LAYER_FLAGS:
        causes.append("partial-offload")
    backends = {getattr(d, "backend", "") for d in getattr(getattr(ctx.arms.binary, "devices", None), "devices", ())}
    causes += [f"backend-{b}" for b in sorted(backends & {"metal", "vulkan", "sycl"})]
    gpus = ctx.environment.gpu
    if gpus is None or not gpus.gpus or not backends - {"cpu", ""}:
        causes.append("cpu-engine")
    return tuple(causes) or ("unknown",)


def sanity_requests(ctx: StepContext, arm: Arm) -> list[float]:
    """ms per output token of two short out-of-set requests on `arm` (they are its warm-up too)."""
    out: list[float] = []
    for prompt in list(ctx.workload.warmup[:2]):
        try:
            rec, _ = run_prompt(arm.adapter, prompt.text, max_tokens=ctx.policy.arms.sanity_tokens,
                                seed=ctx.config.seed, temperature=ctx.config.temperature, prompt_id=prompt.id,
                                category=prompt.category, arm=arm.name, generation=arm.generation)
        except EngineError:
            continue
        if rec.ms_per_token:
            out.append(rec.ms_per_token)
    return out


def sanity_result(ctx: StepContext, ms: dict[str, list[float]]) -> SanityCheck | None:
    """The gate's finding from both arms' request times (None when an arm has none: attach mode with one
    server, or every request failed — the steps then say why)."""
    off, on = ms.get("off", []), ms.get("on", [])
    if not off or not on:
        return None
    limit = ctx.policy.arms.sanity_max_slowdown
    ratios = [b / a for a, b in zip(off, on, strict=False) if a > 0]
    slowdown = min(ratios) if ratios else None
    tripped = slowdown is not None and slowdown >= limit
    return SanityCheck(off_ms_per_token=tuple(round(v, 3) for v in off), on_ms_per_token=tuple(round(v, 3) for v in on),
                       slowdown=round(slowdown, 3) if slowdown is not None else None, limit=limit, tripped=tripped,
                       likely_causes=likely_causes(ctx) if tripped else ())
