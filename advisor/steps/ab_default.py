"""After the A/B: the tuner's choice against the engine's own defaults for the method.

The A/B says whether the chosen settings beat speculation off; a user who already runs the engine's defaults
also needs to know whether moving to the chosen ones pays. Both servers restart fresh (n-gram tables empty),
the OFF server with the defaults, the ON one with the choice; the same held-out prompts run as counterbalanced
pairs; the speedup is the geometric mean with its t-interval at the A/B's level (policy.ab.ci_level,
reliability.md §2.4). The verdict still rests on the A/B against speculation off; when this interval lies
wholly below 1 the flags it recommends are the defaults' (advisor/decide/defaults.py). The OFF server is
restored afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from dataclasses import replace
from typing import Any

from advisor.ab.types import PairResult, is_counted
from advisor.arms.server import ServerConfig, spec_args
from advisor.events import Event, Progress, UnitDone
from advisor.evidence.steps import VsDefault
from advisor.evidence.tuner import TuneEvidence
from advisor.stats import geometric_mean_ci
from advisor.steps.base import StepContext
from advisor.steps.pairs import pair_units

UNIT_PREFIX = "vs-default:"


def default_config(ctx: StepContext) -> ServerConfig | None:
    """The ON server's configuration with the engine's defaults for the user's method, when the tuner's
    applied choice has other flags (None: nothing to compare, attached servers, or no choice)."""
    tune = ctx.prior.get("tune")
    on = ctx.arms.on
    if not isinstance(tune, TuneEvidence) or tune.choice is None or not tune.choice.applied:
        return None
    if on is None or on.config is None or ctx.arms.off is None or ctx.arms.off.config is None:
        return None
    user = ctx.config
    default = replace(on.config, spec_type=user.spec_type, draft_max=None, synth_len=None, n_match=None,
                      p_min=None, draft_model=user.draft_model)
    dialect = ctx.arms.dialect
    if spec_args(default, dialect) == spec_args(on.config, dialect):
        return None  # the choice is the defaults: the A/B already measured them
    return default


def compare_with_default(ctx: StepContext, prompts: Sequence[Any], step_id: str,
                         before: int = 0) -> Generator[Event, None, VsDefault | None]:
    """Measure up to `budget.ab_vs_default_pairs` pairs of the choice against the defaults: the OFF arm runs the
    defaults meanwhile (restarted fresh side by side; swapped in fresh per block when single-resident). Its
    pairs are reported as the step's units after the `before` it counted already."""
    n = min(ctx.config.budget.ab_vs_default_pairs, len(prompts))
    default = default_config(ctx) if n > 0 else None
    off, on = ctx.arms.off, ctx.arms.on
    if default is None or off is None or on is None or off.config is None:
        return None
    original, phase = off.config, f"{step_id}:vs-default"
    pairs: list[PairResult] = []
    try:
        ctx.arms.configure("off", phase, default)
        if off.resident:
            ctx.warm(off.adapter)
        ctx.fresh_on(phase)
        chosen_argv, default_argv = tuple(on.spec_argv), tuple(off.spec_argv)
        measured = pair_units(ctx, prompts[:n], UNIT_PREFIX)
        for i, (prompt, unit, new) in enumerate(measured):
            if new:
                yield UnitDone(step_id, UNIT_PREFIX + prompt.id, unit)
            pairs.append(unit.pair)
            # counted after the step's own pairs (`before`), so the step's total stays one number for the clock
            yield Progress.unit(step_id, before + i + 1, before + n, "ab_default_pair", pair=i + 1)
    finally:
        ctx.arms.configure("off", f"{step_id}:restore", original)
    return summarise(default_argv, chosen_argv, pairs, ctx.policy.ab.ci_level)


def summarise(default_argv: tuple[str, ...], chosen_argv: tuple[str, ...],
              pairs: Sequence[PairResult], level: float) -> VsDefault:
    """The comparison's figures from its counted pairs (no interval below two pairs), the interval at `level`
    (the policy's ab.ci_level, as the A/B's own)."""
    counted = [p for p in pairs if is_counted(p)]
    speedup = low = high = None
    if counted:
        ci = geometric_mean_ci([p.off_ms_per_token for p in counted], [p.on_ms_per_token for p in counted],
                                level)
        speedup = math.exp(ci.mean)
        if len(counted) >= 2:
            low, high = ci.geo_low, ci.geo_high
    return VsDefault(default_argv=default_argv, chosen_argv=chosen_argv, n_pairs=len(counted), speedup=speedup,
                     ci_low=low, ci_high=high, pairs=tuple(pairs))

