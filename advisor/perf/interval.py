"""A predictive interval for every prediction: how far the measured speedup may lie from the model's (×).

The model's error is multiplicative, so the interval is symmetric in log space: predicted × exp(±z·σ), with z the
normal quantile of the policy's level (rules/policy.toml [prediction]). σ adds, as variances, one term per thing
the facts do not pin down (docs/perf-model.md):

    σ² = core² + step² [no baseline tok/s] + verify² [no measured verify cost] + backend² [a backend with few
         calibration sources, or none named] + batch² [concurrency > 1] + experts² [MoE experts on the CPU]
         + depth² [deep context]

The terms are log-scale standard deviations in spread.toml, written by `python -m bench.calibration_spread` from
the published training cases, each source predicted with constants fitted without it; none is per case, model or
source. Pure functions, no I/O beyond reading that packaged file once.
"""

from __future__ import annotations

import math
import statistics
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

from advisor.perf.backend import backend
from advisor.perf.inputs import f
from advisor.perf.predict import Prediction

Claim = Literal["faster", "slower", "cannot-tell"]
# What each unknown costs and which fact (or step) measures it: the interval's reasons, in spread.toml's order.
Unknown = Literal["step", "verify", "backend", "batch", "experts", "depth"]
UNKNOWNS: tuple[Unknown, ...] = ("step", "verify", "backend", "batch", "experts", "depth")
# The fact whose measurement removes each term; "ab.speedup" when only the A/B itself can (no single fact does).
MEASURES: dict[Unknown, str] = {
    "step": "baseline.decode_tok_s", "verify": "verify.cost_ratio_at_draft_max", "backend": "ab.speedup",
    "batch": "ab.speedup", "experts": "ab.speedup", "depth": "ab.speedup",
}
BREAK_EVEN = 1.0  # "faster" and "slower" are about 1×; whether a gain is worth having is the rules' call


@dataclass(frozen=True, slots=True)
class Spread:
    """Log-scale standard deviations of measured ÷ predicted, by what the facts leave open (spread.toml)."""

    core: float                       # everything measured: the live check's own reconciliation error
    terms: Mapping[Unknown, float]    # one per unknown (UNKNOWNS)
    common_backends: tuple[str, ...]  # backends with enough calibration sources to need no extra term
    deep_context_tokens: int          # context depth from which the `depth` term applies (tokens)
    source: str = ""


@dataclass(frozen=True, slots=True)
class PredictiveInterval:
    """[low, high] (×) around a prediction at `level`; `unknowns` widened it, largest first."""

    speedup: float
    low: float
    high: float
    level: float
    sigma: float                      # log-scale standard deviation used
    unknowns: tuple[Unknown, ...]
    claim: Claim
    measure_first: str | None         # the fact (or ab.speedup) whose measurement narrows it most; None if no unknown


def _load(text: str, source: str) -> Spread:
    data = tomllib.loads(text)
    terms = data["terms"]
    return Spread(core=float(data["core"]), terms={u: float(terms[u]) for u in UNKNOWNS},
                  common_backends=tuple(data["common_backends"]),
                  deep_context_tokens=int(data["deep_context_tokens"]), source=source)


@cache
def shipped_spread() -> Spread:
    """The packaged spread.toml (fitted on the training split)."""
    text = resources.files("advisor.perf").joinpath("spread.toml").read_text(encoding="utf-8")
    return _load(text, "advisor/perf/spread.toml")


def unknowns(pred: Prediction, facts: Mapping[str, object], spread: Spread) -> tuple[Unknown, ...]:
    """What the facts leave open for this prediction, in UNKNOWNS order."""
    out: list[Unknown] = []
    if not pred.from_measurements:
        tok_s = f(facts, "baseline.decode_tok_s")
        if tok_s is None or tok_s <= 0 or pred.concurrency > 1:  # the measured step is single-stream
            out.append("step")
        if f(facts, "verify.cost_ratio_at_draft_max") is None or pred.concurrency > 1:
            out.append("verify")
    if backend(facts) not in spread.common_backends:
        out.append("backend")
    if pred.concurrency > 1:
        out.append("batch")
    if facts.get("model.experts_on_cpu") is True:
        out.append("experts")
    depth = facts.get("workload.context_tokens")
    if isinstance(depth, int) and not isinstance(depth, bool) and depth >= spread.deep_context_tokens:
        out.append("depth")
    return tuple(out)


def predictive_interval(pred: Prediction, facts: Mapping[str, object], level: float,
                        spread: Spread | None = None) -> PredictiveInterval:
    """The interval at `level` (0..1) around `pred.speedup`, the direction it supports and what to measure."""
    s = spread if spread is not None else shipped_spread()
    open_ = unknowns(pred, facts, s)
    sigma = math.sqrt(s.core ** 2 + sum(s.terms[u] ** 2 for u in open_))
    z = statistics.NormalDist().inv_cdf(0.5 + level / 2.0)
    low, high = pred.speedup * math.exp(-z * sigma), pred.speedup * math.exp(z * sigma)
    claim: Claim = "faster" if low > BREAK_EVEN else "slower" if high < BREAK_EVEN else "cannot-tell"
    ranked = tuple(sorted(open_, key=lambda u: -s.terms[u]))
    return PredictiveInterval(pred.speedup, low, high, level, sigma, ranked, claim,
                              MEASURES[ranked[0]] if ranked else None)
