"""Synthetic paired A/B sessions for the simulation tests and `bench/sim_ab.py` (reliability.md §8 A).

Each scenario returns (off, on, on_first) arrays of shape (R, N): ms/token per arm and the run order,
seeded. The machine's per-request noise is 3% (reliability.md §2.1: σ_w is 1–3% on a quiet GPU); the
per-prompt log-speedup d has the scenario's centre and spread (sd_d 0.15 = the reliability.md §2.5 reference case).
Order is counterbalanced per prompt (AB, BA, … with a random start), as the app runs it (reliability.md §2.6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from advisor.ab.sequential import BoolArray
from advisor.ab.types import PairResult
from advisor.stats import FloatArray

BASE_MS = 20.0  # ms/token of the OFF arm; the verdict is scale-free (checklist A13)
SIGMA_W = 0.03  # per-request noise, log units (reliability.md §2.1)
Arrays = tuple[FloatArray, FloatArray, BoolArray]


def _lognormal_unit(rng: np.random.Generator, shape: tuple[int, int], sigma: float = 0.8) -> FloatArray:
    """Right-skewed noise with mean 0 and sd 1 (lognormal σ = 0.8, reliability.md §8 A4)."""
    x = rng.lognormal(0.0, sigma, shape)
    mean = math.exp(sigma**2 / 2)
    sd = math.sqrt((math.exp(sigma**2) - 1) * math.exp(sigma**2))
    return (x - mean) / sd


def effects(kind: str, rng: np.random.Generator, shape: tuple[int, int], g: float, sd: float) -> FloatArray:
    """Per-prompt true log-speedups with mean log(g) and sd `sd` (kind: normal/t3/right/left/contam)."""
    if kind == "normal":
        z = rng.standard_normal(shape)
    elif kind == "t3":
        z = rng.standard_t(3, shape) / math.sqrt(3.0)  # t3 has variance 3
    elif kind == "right":
        z = _lognormal_unit(rng, shape)
    elif kind == "left":
        z = -_lognormal_unit(rng, shape)  # reflected: most prompts a bit faster, a few much slower
    elif kind == "contam":  # 5% of prompts hit by a ±30% hiccup (reliability.md §2.5 table)
        z = rng.standard_normal(shape)
        hit = rng.random(shape) < 0.05
        return np.log(g) + sd * z + np.where(hit, rng.choice([-1.0, 1.0], shape) * math.log(1.3), 0.0)
    else:
        raise ValueError(f"unknown effect kind {kind!r}")
    return np.log(g) + sd * z


@dataclass(frozen=True, slots=True)
class Scenario:
    """A named simulated session: effect distribution plus design artefacts (drift, order bonus, trap)."""

    name: str
    g: float = 1.0  # true geometric-mean speedup
    sd: float = 0.15  # between-prompt sd of d
    kind: str = "normal"
    drift: float = 0.0  # total slowdown over the session (linear in request index), e.g. 0.05
    effect_drift: float = 0.0  # the log speedup's change over the session, centred on `g` (a speedup that moves)
    order_bonus: float = 0.0  # the second run of a prompt is this much faster (a fraction)
    trap_ratio: float = 1.0  # ON run *after* OFF replays the output: this much faster (reliability.md §4.3)
    step_drift: float = 0.0  # from the session's middle on, every request this much slower (a load that starts)
    burst_share: float = 0.0  # share of requests, in either arm at random, hit by a load burst …
    burst_factor: float = 1.0  # … that makes them this much slower (a busy home machine)
    burst_arm: str = "both"  # "off": only OFF requests are hit (a bias the arm-outlier guard must catch)
    aa: bool = False  # A/A: both arms identical (no per-prompt effect at all)
    blocked: bool = False  # all OFF first, then all ON (the design the app must not use)

    def generate(self, reps: int, n: int, seed: int) -> Arrays:
        """(off, on, on_first) of shape (reps, n), ms/token."""
        rng = np.random.default_rng(seed)
        shape = (reps, n)
        d = np.zeros(shape) if self.aa else effects(self.kind, rng, shape, self.g, self.sd)
        start = rng.random((reps, 1)) < 0.5
        on_first = (np.arange(n)[None, :] % 2 == 0) ^ start
        if self.blocked:
            on_first = np.zeros(shape, dtype=np.bool_)
        off = BASE_MS * np.exp(SIGMA_W * rng.standard_normal(shape))
        on = BASE_MS * np.exp(SIGMA_W * rng.standard_normal(shape) - d)
        # request index in the session: pair i runs requests 2i and 2i+1 (blocked: OFF 0..n-1, ON n..2n-1)
        idx = np.arange(n)[None, :] * 2.0
        t_off = np.where(self.blocked, np.arange(n)[None, :], idx + on_first)
        t_on = np.where(self.blocked, n + np.arange(n)[None, :], idx + ~on_first)
        off = off * (1 + self.drift * t_off / (2 * n)) * np.where(t_off >= n, 1 + self.step_drift, 1.0)
        on = on * (1 + self.drift * t_on / (2 * n)) * np.where(t_on >= n, 1 + self.step_drift, 1.0)
        on = on * np.exp(self.effect_drift * (t_on / (2 * n) - 0.5))  # the speedup falls as the session goes on
        if self.burst_share > 0:
            off = off * np.where(rng.random(shape) < self.burst_share, self.burst_factor, 1.0)
            if self.burst_arm == "both":
                on = on * np.where(rng.random(shape) < self.burst_share, self.burst_factor, 1.0)
        on = np.where(on_first, on, on / (1 + self.order_bonus) / self.trap_ratio)
        off = np.where(on_first, off / (1 + self.order_bonus), off)
        return off, on, on_first


def to_pairs(off: FloatArray, on: FloatArray, on_first: BoolArray) -> list[PairResult]:
    """One simulated session (1-D arrays) as the records the app would store."""
    return [
        PairResult(f"p{i:03d}", float(off[i]), float(on[i]), bool(on_first[i])) for i in range(off.shape[0])
    ]


def null_scenarios(margin: float) -> list[Scenario]:
    """Scenarios where ENABLE is a false ENABLE (true G ≤ 1 + δ, `margin` = δ): checklist A1–A5, A8, A9, A12,
    and the busy machine of issue 24: drift (linear, and a load that starts mid-session), load bursts in either
    arm, order effects the same for both arms, and one that favours ON when it runs second by 2δ (half the pairs:
    a mean gain at the margin).

    The order bonus is the size of the margin: an artefact as large as the smallest worthwhile gain."""
    at_margin = 1.0 + margin
    return [
        Scenario("null normal sd .05", sd=0.05),
        Scenario("null normal sd .15"),
        Scenario("null normal sd .30", sd=0.30),
        Scenario(f"margin {at_margin:.2f} normal", g=at_margin),
        Scenario("null t3 heavy tails", kind="t3"),
        Scenario("null right skew", kind="right"),
        Scenario("null left skew", kind="left"),
        Scenario("null 5% ±30% hiccups", kind="contam"),
        Scenario("null linear drift 5%", drift=0.05),
        Scenario("null linear drift 30%", drift=0.30),
        Scenario("null step drift +50% mid-session", step_drift=0.5),
        Scenario("null 10% load bursts ×2 in either arm", burst_share=0.10, burst_factor=2.0),
        Scenario("null 8% load bursts ×1.5 in OFF only", burst_share=0.08, burst_factor=1.5, burst_arm="off"),
        Scenario(f"null +{margin:.0%} order bonus", order_bonus=margin),
        Scenario("null +10% order bonus", order_bonus=0.10),
        Scenario(f"null ON-second +{2 * margin:.0%} (mean at the margin)", trap_ratio=1 + 2 * margin, g=1.0),
        Scenario("A/A identical arms", aa=True),
    ]

