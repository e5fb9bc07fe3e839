"""What the tuner will measure, known before it starts: the units and model loads the ETA counts for it.

Every probe the tuner runs is fixed by the budget, the binary's flag dialect and the prompt plan, not by what it
finds: another method at the longest draft (one request per probe prompt), each knob variant of the measured
method (likewise), each synthetic-acceptance point at or below the longest draft (one unit, priced at its own
speed once the verify curve is measured: `surface_weight`), the draft model's
own speed (one unit), and the choice handed to the next step (one unit). Each probe, point and the choice is a
fresh ON server, so a model load.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from advisor import methods
from advisor.config import CheckConfig
from advisor.evidence.steps import VerifyEvidence
from advisor.steps.plan import WorkloadPlan
from advisor.tune.cost import interpolate
from advisor.tune.variants import variants
from probes.engines.llamacpp.binary import FlagDialect

DRAFT_SPEED_PROMPTS = 2  # prompts the draft model's own speed is timed on (advisor/steps/tune.py)


@dataclass(frozen=True, slots=True)
class TunePlan:
    """Units (as the step reports them in Progress) and model loads of one tuner run."""

    loads: int
    weights: tuple[float, ...] = ()  # requests each unit sends, in the order the step finishes them
    # one per weight: True where it is a speculating request at the method's real acceptance (a probe), False where
    # its weight is already in plain requests' time (a synthetic point, the draft model's speed, the choice)
    probes: tuple[bool, ...] = ()

    @property
    def units(self) -> int:
        """Units the step reports in Progress: one per weight."""
        return len(self.weights)


def probe_prompt_count(plan: WorkloadPlan, per_category: int) -> int:
    """How many prompts a probe decodes: the first `per_category` acceptance prompts of each category."""
    return sum(min(n, per_category) for n in Counter(p.category for p in plan.acceptance).values())


def surface_weight(requests: int, k: int, tau: float, verify: VerifyEvidence | None) -> float:
    """Plain requests' time a synthetic-acceptance point takes: `requests` answers, each verify step a forward
    over k + 1 tokens (R(k + 1) plain steps, the verify curve at the user's depth) that yields τ tokens. On a
    CPU a k = 16 point at τ = 1.5 decodes at a third of the plain speed (the demo: 20 s where 6 s was planned);
    on a GPU R stays near 1 and a point runs faster than plain. Without the curve (before the verify step),
    one plain request each."""
    points = verify.for_user()[0] if verify is not None else ()
    ratios = {p.k: p.ratio for p in points if p.ratio > 0}
    if not ratios or tau <= 0:
        return float(requests)
    return requests * interpolate(ratios, k + 1.0) / tau


def plan_tune(config: CheckConfig, plan: WorkloadPlan, dialect: FlagDialect | None, *, managed: bool,
              k_max: int | None, verify: VerifyEvidence | None = None) -> TunePlan:
    """The tuner's work on these arms (its synthetic points priced by `verify`'s curve when it is known).
    Attached servers cannot be restarted, so the tuner only computes there."""
    if not config.tuning or not managed:
        return TunePlan(loads=0)
    budget = config.budget
    primary = "draft-simple" if config.draft_model is not None else config.spec_type
    listed = dialect.spec_types if dialect is not None else ()
    others = [m for m in budget.tune_methods if m != primary and (not listed or m in listed)]
    knobs = variants(primary, config.draft_model is not None, dialect, budget)
    per_probe = probe_prompt_count(plan, budget.tune_probe_per_category)
    has_synth = dialect is not None and dialect.has_spec_synth
    points = [(k, tau) for k, tau in budget.surface_points if has_synth and (k_max is None or k <= k_max)]
    draft_speed = 1 if config.draft_model is not None and methods.family(primary) != "ngram" else 0
    probes = len(others) + len(knobs)
    # The draft model's speed decodes two prompts; a probe unit is one prompt; a surface point decodes its
    # prompts in one unit; the choice is a restart only (its load is counted apart).
    weights = ((float(DRAFT_SPEED_PROMPTS),) * draft_speed + (1.0,) * (probes * per_probe)
               + tuple(surface_weight(budget.surface_requests, k, tau, verify) for k, tau in points) + (0.0,))
    speculating = (False,) * draft_speed + (True,) * (probes * per_probe) + (False,) * (len(points) + 1)
    return TunePlan(loads=probes + len(points) + 1, weights=weights, probes=speculating)
