"""The tuner's own measurements: another method at the longest draft, one synthetic-acceptance point, and a
draft model's own decode cost. Each runs on the ON server restarted with the configuration it measures."""

from __future__ import annotations

import statistics
from collections.abc import Generator, Sequence
from dataclasses import replace
from pathlib import Path

from advisor.arms.server import ManagedServer, ServerConfig
from advisor.events import Event, Progress
from advisor.evidence.steps import AcceptanceEvidence
from advisor.evidence.units import AcceptanceUnit
from advisor.steps.acceptance import measure_prompt, summarise, token_weighted_depth
from advisor.steps.base import StepContext
from advisor.steps.common import run_prompt
from advisor.steps.plan import PromptLike
from advisor.tune.surface import SurfaceRun
from probes.engines.llamacpp.adapter import LlamaCppAdapter

STEP = "tune"


def probe_prompts(ctx: StepContext, per_category: int) -> list[PromptLike]:
    """The first `per_category` acceptance prompts of each category (same categories as step 2, fewer)."""
    taken: dict[str, int] = {}
    out: list[PromptLike] = []
    for p in ctx.workload.acceptance:
        if taken.get(p.category, 0) < per_category:
            taken[p.category] = taken.get(p.category, 0) + 1
            out.append(p)
    return out


def on_config(ctx: StepContext) -> ServerConfig | None:
    """The managed ON server's configuration (None when attached)."""
    return ctx.arms.on.config if ctx.arms.on is not None else None


def run_method(ctx: StepContext, config: ServerConfig, label: str,
               prompts: Sequence[PromptLike]) -> Generator[Event, None, tuple[AcceptanceEvidence, tuple[str, ...]]]:
    """Measure one method at the longest draft on a fresh ON server; its acceptance summary and flags."""
    ctx.fresh_on(f"tune:{label}", config)
    arm = ctx.arms.on
    assert arm is not None  # the caller checked
    units: list[AcceptanceUnit] = []
    for i, prompt in enumerate(prompts):
        if ctx.cancelled:
            break
        units.append(measure_prompt(arm.adapter, prompt, ctx, arm.generation))
        yield Progress.unit(STEP, i + 1, len(prompts), "tune_probe", label=label, category=prompt.category)
    evidence = summarise(units, ctx.config.seed, method=config.spec_type, draft_max=config.draft_max)
    return evidence, arm.spec_argv


def run_surface_point(ctx: StepContext, base: ServerConfig, method: str, k: int, tau: float,
                      prompts: Sequence[PromptLike]) -> Generator[Event, None, SurfaceRun]:
    """Decode `prompts` with synthetic acceptance τ at draft length k; sums of counters and decode time."""
    config = replace(base, spec_type=method, draft_model=None, draft_max=k, synth_len=tau, n_match=None, p_min=None,
                     label="on")
    ctx.fresh_on(f"tune:surface k={k} τ={tau:g}", config)
    arm = ctx.arms.on
    assert arm is not None
    counted: list[AcceptanceUnit] = []
    for prompt in prompts:
        if ctx.cancelled:
            break
        unit = measure_prompt(arm.adapter, prompt, ctx, arm.generation)
        if unit.counters is not None and unit.record.decode_ms is not None:
            counted.append(unit)
    yield Progress.unit(STEP, 1, 1, "tune_surface", k=k, tau=f"{tau:g}")
    totals = [u.counters for u in counted if u.counters is not None]
    return SurfaceRun(k=k, tau_target=tau, generated=sum(max(u.record.completion_tokens - 1, 0) for u in counted),
                      drafts=sum(c.drafts for c in totals), draft_tokens=sum(c.draft_tokens for c in totals),
                      accepted=sum(c.accepted_tokens for c in totals),
                      decode_ms=sum(u.record.decode_ms or 0.0 for u in counted),
                      depth_tokens=token_weighted_depth(counted))


def draft_ms_per_token(ctx: StepContext, draft_model: Path, prompts: Sequence[PromptLike]) -> float | None:
    """The draft model's own decode ms per token, served alone with the ON server's other options (so it runs
    where it will run when drafting); the median over `prompts`."""
    base = on_config(ctx)
    if base is None or ctx.arms.binary is None or ctx.arms.on is None or ctx.arms.on.server is None:
        return None
    config = replace(base, model=draft_model, spec_type=None, draft_model=None, draft_max=None, synth_len=None,
                     parallel=1, ctx_size=base.ctx_size // max(base.parallel, 1), label="draft-cost")
    log_dir = ctx.arms.on.server.log_path.parent
    budget, cfg = ctx.config.budget, ctx.config
    with ManagedServer(ctx.arms.binary, config, log_dir).start() as server:
        adapter = LlamaCppAdapter(server.base_url)
        times = [run_prompt(adapter, p.text, max_tokens=budget.max_tokens, seed=cfg.seed, temperature=cfg.temperature,
                            prompt_id=p.id, category=p.category, arm="draft")[0].ms_per_token for p in prompts]
        adapter.close()
    finite = [t for t in times if t]
    return statistics.median(finite) if finite else None
