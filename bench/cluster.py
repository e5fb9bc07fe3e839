"""A cluster check against a local one on the same model: its extra wall time, and whether it measures the same.

    .venv/bin/python -m bench.cluster [--runs 4] [--timeout 900]

`--runs` pairs of the shipped command, one after another: `check --quick --no-tune` on the demo engine
(managed, local) and `check --quick --no-tune --llmkube default/demo` against the contract Kubernetes API
(tests/kube_contract_server.py), whose pods are real llama-servers with the same model and the options the
managed servers get (4 slots, 8192 tokens of context, `--poll 0`, `--cache-ram 0`, llama.cpp's default
threads). `--no-tune` on both: the tuner runs only on servers spec-advisor launches, so both run the same steps.

- `cluster_ab_overhead_s`: median cluster wall − median local wall (the twin's creation and Ready wait, the
  fresh pods before each phase, the undo);
- `cluster_ab_speedup_vs_local_rel_diff`: |median cluster A/B speedup ÷ median local A/B speedup − 1|
  (goal ≤ 0.05: the cluster path must not change what the A/B measures).

Four of each by default: one quick check's A/B speedup moves by about ±5 % from run to run on this model (two
local runs measured 0.986× and 1.052×), so with two of each the medians' difference is mostly that noise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import (
    EngineMissing,
    demo_engine,
    isolated_env,
    rel_err,
    run_cli,
    spec_advisor_argv,
    stop_cleanly_on_sigterm,
    tail,
)

OVERHEAD = "cluster_ab_overhead_s"
SPEEDUP = "cluster_ab_speedup_vs_local_rel_diff"
KEYS = (OVERHEAD, SPEEDUP)
# what the managed servers run with besides the model (advisor/arms/server.py build_argv, launch.py)
MANAGED_LIKE = ("--poll", "0", "--cache-ram", "0")


def _once(extra: list[str], timeout_s: float, tmp: Path) -> dict[str, Any]:
    out_dir = tmp / "run"
    argv = [*spec_advisor_argv(), "check", "--quick", "--no-tune", "--no-history", "--json", "--out", str(out_dir),
            *extra]
    t0 = time.monotonic()
    try:
        done = run_cli(argv, timeout_s, isolated_env(tmp))
        code, err = done.returncode, done.stderr
    except subprocess.TimeoutExpired:
        code, err = -1, "timed out"
    wall = time.monotonic() - t0
    try:
        ab = json.loads((out_dir / "evidence.json").read_text())["steps"]["ab"]["evidence"]
        speedup = ab.get("speedup")
    except (OSError, ValueError, KeyError, TypeError):
        speedup = None
    return {"wall_s": round(wall, 1), "speedup": speedup, "exit": code, "stderr": tail(err)}


def measure(runs: int = 4, timeout_s: float = 900.0) -> dict[str, Any]:
    """`runs` local and cluster quick checks, alternated; the two figures and every run's numbers."""
    from tests.kube_contract_server import ContractCluster

    try:
        binary, model = demo_engine()
    except EngineMissing as exc:
        return {OVERHEAD: None, f"{OVERHEAD}_note": f"not measured: {exc}",
                SPEEDUP: None, f"{SPEEDUP}_note": f"not measured: {exc}"}
    local: list[dict[str, Any]] = []
    cluster: list[dict[str, Any]] = []
    for _ in range(max(runs, 1)):
        with tempfile.TemporaryDirectory(prefix="spec-bench-local-") as tmp:
            local.append(_once([], timeout_s, Path(tmp)))
        with tempfile.TemporaryDirectory(prefix="spec-bench-cluster-") as tmp, \
                ContractCluster(llama_server=binary.path, threads=None) as api:
            api.seed_demo(str(model), extra_args=MANAGED_LIKE)
            api.wait_ready("demo")
            kubeconfig = Path(tmp) / "kubeconfig.yaml"
            kubeconfig.write_text(api.kubeconfig())
            cluster.append(_once(["--llmkube", "default/demo", "--kubeconfig", str(kubeconfig)], timeout_s,
                                 Path(tmp)))
    out: dict[str, Any] = {"cluster_vs_local": {"local": local, "cluster": cluster}}
    ok_local = [r for r in local if r["exit"] == 0]
    ok_cluster = [r for r in cluster if r["exit"] == 0]
    runs_note = (f"local {', '.join(str(r['wall_s']) for r in local)} s; cluster "
                 f"{', '.join(str(r['wall_s']) for r in cluster)} s")
    if ok_local and ok_cluster:
        out[OVERHEAD] = round(statistics.median(r["wall_s"] for r in ok_cluster)
                              - statistics.median(r["wall_s"] for r in ok_local), 1)
        out[f"{OVERHEAD}_note"] = f"median of {len(ok_cluster)} cluster − median of {len(ok_local)} local; {runs_note}"
    else:
        out[OVERHEAD] = None
        out[f"{OVERHEAD}_note"] = f"not measured: a check failed ({runs_note}; {cluster[-1]['stderr']})"
    s_local = [r["speedup"] for r in ok_local if isinstance(r["speedup"], int | float)]
    s_cluster = [r["speedup"] for r in ok_cluster if isinstance(r["speedup"], int | float)]
    if s_local and s_cluster:
        out[SPEEDUP] = rel_err(statistics.median(s_cluster), statistics.median(s_local))
        out[f"{SPEEDUP}_note"] = (f"A/B speedups local {', '.join(f'{s:.3f}' for s in s_local)}, cluster "
                                  f"{', '.join(f'{s:.3f}' for s in s_cluster)}")
    else:
        out[SPEEDUP] = None
        out[f"{SPEEDUP}_note"] = "not measured: no A/B speedup from one of the two kinds of check"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=4, help="local and cluster checks each (default 4)")
    ap.add_argument("--timeout", type=float, default=900.0, help="limit of each check (s)")
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    print(json.dumps(measure(args.runs, args.timeout), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
