"""Full Monte-Carlo of the shipped paired A/B rule (reliability.md §8 A; ≥ 20,000 replications each).

    .venv/bin/python -m bench.sim_ab [--reps 20000] [--seed 1] [--json-out FILE] [--calibrate-reps 200000]

Runs `advisor.ab.decision.run_batch`, the vectorised twin of `decide_ab` (same `look_stats`, `stat_guards`
and `classify`; tests/advisor/ab/test_ab_equivalence.py checks both give the same verdict on 500 random datasets).
Prints P(ENABLE), P(SKIP), P(INCONCLUSIVE) and mean prompts per scenario, and the headline figures.

Pocock constant: T_k is pivotal for normal d (its law does not depend on the sd), so c is the 95th
percentile of max_k T_k over standard-normal paths at looks 10…60, which this script re-derives.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import replace

import numpy as np

from advisor.ab.decision import run_batch
from advisor.ab.sequential import CODE_ENABLE, CODE_INCONCLUSIVE, CODE_SKIP
from advisor.ab.simulation import Scenario, null_scenarios
from advisor.core.ab_policy import ABPolicy
from advisor.core.policy import default_policy

N_MAX = 60  # last planned look (ABPolicy.looks)
FIXED_N = 200  # the fixed-sample design we compare against (brief; reliability.md §2.2)


def calibrate_pocock(looks: tuple[int, ...], reps: int, seed: int, alpha: float = 0.05) -> float:
    """One-sided constant c with P(max_k T_k > c) = alpha for normal d at the margin (no guards)."""
    rng = np.random.default_rng(seed)
    best = np.full(reps, -np.inf)
    chunk = 50_000  # keeps memory at ~24 MB per chunk on a 2-core box
    for start in range(0, reps, chunk):
        z = rng.standard_normal((min(chunk, reps - start), looks[-1]))
        m = np.full(z.shape[0], -np.inf)
        for n in looks:
            x = z[:, :n]
            m = np.maximum(m, x.mean(axis=1) / (x.std(axis=1, ddof=1) / math.sqrt(n)))
        best[start : start + z.shape[0]] = m
    return float(np.quantile(best, 1.0 - alpha))


def scenarios(margin: float) -> list[tuple[Scenario, bool]]:
    """(scenario, is_null) — a null is any world where ENABLE is wrong (true G ≤ 1 + δ)."""
    at = 1.0 + margin
    nulls = [*null_scenarios(margin), Scenario(f"margin {at:.2f} left skew", g=at, kind="left"),
             Scenario(f"margin {at:.2f} t3", g=at, kind="t3")]
    others = [
        Scenario("power 1.10 normal", g=1.10),
        Scenario("power 1.10 t3", g=1.10, kind="t3"),
        Scenario("power 1.20 normal", g=1.20),
        Scenario("power 1.50 normal", g=1.50),
        Scenario("slower 0.90", g=0.90),
        Scenario("trap ON-after-OFF 4.75x", trap_ratio=4.75),
        Scenario("blocked design + 5% drift (harness check)", drift=0.05, blocked=True),
    ]
    return [(s, True) for s in nulls] + [(s, False) for s in others]


def run(reps: int, seed: int, policy: ABPolicy) -> dict[str, dict[str, float]]:
    """Operating characteristic per scenario."""
    out: dict[str, dict[str, float]] = {}
    for i, (sc, is_null) in enumerate(scenarios(policy.margin)):
        off, on, first = sc.generate(reps, N_MAX, seed + i)
        b = run_batch(off, on, first, policy)
        out[sc.name] = {
            "null": float(is_null),
            "p_enable": float(np.mean(b.codes == CODE_ENABLE)),
            "p_skip": float(np.mean(b.codes == CODE_SKIP)),
            "p_inconclusive": float(np.mean(b.codes == CODE_INCONCLUSIVE)),
            "mean_prompts": float(b.n_used.mean()),
            "p_enable_within_20": float(np.mean((b.codes == CODE_ENABLE) & (b.n_used <= 20))),
            "mean_speedup_at_stop": float(np.exp(np.mean(np.log(b.speedup)))),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20_000, help="replications per scenario (default 20000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--calibrate-reps", type=int, default=200_000, help="null paths for Pocock c")
    ap.add_argument("--json-out", default=None, help="write the figures as JSON here")
    ap.add_argument("--no-skew-gate", action="store_true", help="mutation run: skew gate off")
    args = ap.parse_args(argv)
    policy = default_policy().ab
    if args.no_skew_gate:
        policy = replace(policy, min_skewness=-math.inf, min_pairs_enable=policy.min_pairs)
    t0 = time.monotonic()
    c = calibrate_pocock(policy.looks, args.calibrate_reps, args.seed)
    table = run(args.reps, args.seed, policy)
    print(f"Pocock c re-derived for looks {policy.looks}: {c:.3f} (shipped {policy.boundary})")
    print(f"{'scenario':44s} {'ENABLE':>7s} {'SKIP':>7s} {'INCONC':>7s} {'prompts':>7s} {'G@stop':>7s}")
    for name, r in table.items():
        print(f"{name:44s} {r['p_enable']:7.4f} {r['p_skip']:7.4f} {r['p_inconclusive']:7.4f} "
              f"{r['mean_prompts']:7.1f} {r['mean_speedup_at_stop']:7.3f}")
    power = table["power 1.10 normal"]
    figures = {
        "reps_per_scenario": args.reps,
        "pocock_c_rederived": c,
        "pocock_c_shipped": policy.boundary,
        "false_enable_rate_null": max(r["p_enable"] for r in table.values() if r["null"]),
        "false_enable_rate_null_1_00_normal": table["null normal sd .15"]["p_enable"],
        "power_at_1_10x": power["p_enable"],
        "mean_prompts_at_1_10x": power["mean_prompts"],
        "prompts_to_verdict_ratio_vs_fixed_200": power["mean_prompts"] / FIXED_N,
        "p_enable_1_20x_within_20": table["power 1.20 normal"]["p_enable_within_20"],
        "trap_p_enable": table["trap ON-after-OFF 4.75x"]["p_enable"],
        "scenarios": table,
        "seconds": time.monotonic() - t0,
    }
    for key in ("false_enable_rate_null", "power_at_1_10x", "prompts_to_verdict_ratio_vs_fixed_200"):
        print(f"{key} = {figures[key]:.4f}")
    print(f"({figures['seconds']:.0f} s)")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(figures, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
