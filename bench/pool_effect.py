"""How much a warm n-gram pool inflates the A/B: the same A/B on a fresh ON server and on one warmed by the
earlier steps.

    .venv/bin/python -m bench.pool_effect [--pairs 20]

Two runs of the shipped session on the demo engine (ngram-mod at the engine's defaults), same seed, so the same
A/B prompts in the same order: one with the ON server restarted before every phase (the default), one with
`fresh_pool` off, so its A/B runs on the server that served the acceptance prompts, the canary's repeats and
the concurrency sweep. Both A/B speedups are reported; their ratio is the pool effect on this workload.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
from pathlib import Path
from typing import Any

from advisor.config import QUICK, CheckConfig
from advisor.run.session import Session
from bench.common import stop_cleanly_on_sigterm

FRESH = "ab_speedup_fresh_pool"
WARM = "ab_speedup_warm_pool"


def _ab(fresh: bool, pairs: int, out: Path) -> dict[str, Any]:
    budget = dataclasses.replace(QUICK, ab_max_pairs=pairs)
    config = CheckConfig(quick=True, steps=("acceptance", "batch", "ab"), budget_override=budget, fresh_pool=fresh,
                         out_dir=out)
    done = Session(config, run_dir=out).run()
    session_ab = json.loads((out / "evidence.json").read_text())["steps"].get("ab", {}).get("evidence") or {}
    return {"status": done.status, "speedup": session_ab.get("speedup"), "ci_low": session_ab.get("ci_low"),
            "ci_high": session_ab.get("ci_high"), "n": session_ab.get("n_prompts"),
            "pool": session_ab.get("pool")}


def measure(pairs: int = 20) -> dict[str, Any]:
    """Both A/Bs and their figures."""
    with tempfile.TemporaryDirectory(prefix="spec-bench-pool-") as tmp:
        fresh = _ab(True, pairs, Path(tmp) / "fresh")
        warm = _ab(False, pairs, Path(tmp) / "warm")
    out: dict[str, Any] = {"pool_effect": {"fresh": fresh, "warm": warm}}
    for key, run in ((FRESH, fresh), (WARM, warm)):
        value = run["speedup"]
        out[key] = value if isinstance(value, int | float) else None
        ci = (f" [{run['ci_low']:.3f}, {run['ci_high']:.3f}]" if isinstance(run["ci_low"], int | float)
              and isinstance(run["ci_high"], int | float) else "")
        out[f"{key}_note"] = (f"{run['n']} pairs{ci}, run {run['status']}, ON pool {run['pool']}"
                              if value is not None else f"not measured: run {run['status']}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=20, help="A/B pair budget of each run (default 20)")
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    print(json.dumps(measure(args.pairs), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
