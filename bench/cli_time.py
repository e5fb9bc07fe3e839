"""Cold wall time of the light commands: `spec-advisor decide --facts FILE` and `spec-advisor --help`.

    .venv/bin/python -m bench.cli_time [--runs 5]

Each run is a fresh interpreter, started as a user types the command (the venv's console script). One untimed
run first lets Python write its bytecode cache, as `pip install` does for an installed package:
PYTHONDONTWRITEBYTECODE is dropped from the children's environment, since with it every start would compile
the sources again, which no user's install does. The facts file is tests/fixtures/facts/dense_enable.json
(37 facts: a full measured ENABLE case, more than a dozen).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import REPO, isolated_env, median, run_cli, spec_advisor_argv, stop_cleanly_on_sigterm, tail

DECIDE = "decide_cli_s"
HELP = "help_cli_s"
KEYS = (DECIDE, HELP)
FACTS = REPO / "tests" / "fixtures" / "facts" / "dense_enable.json"


def cli_env(tmp: Path) -> dict[str, str]:
    """The isolated environment, with the bytecode cache allowed (see the module notes)."""
    env = isolated_env(tmp)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def time_command(args: list[str], runs: int, env: dict[str, str], timeout_s: float = 60.0) -> list[float]:
    """Wall seconds of `runs` fresh processes of `spec-advisor ARGS`, after one untimed run."""
    argv = [*spec_advisor_argv(), *args]
    times: list[float] = []
    for i in range(runs + 1):
        t0 = time.monotonic()
        done = run_cli(argv, timeout_s, env)
        elapsed = time.monotonic() - t0
        if done.returncode != 0:
            raise RuntimeError(f"`spec-advisor {' '.join(args)}` exited {done.returncode}: {tail(done.stderr)}")
        if i:  # the first run writes the bytecode cache
            times.append(elapsed)
    return times


def measure(runs: int = 5) -> dict[str, Any]:
    """Median wall seconds of `decide --facts` and `--help`, each over `runs` fresh processes."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="spec-bench-cli-") as tmp:
        env = cli_env(Path(tmp))
        for key, args in ((DECIDE, ["decide", "--facts", str(FACTS)]), (HELP, ["--help"])):
            try:
                times = time_command(args, runs, env)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                out[key], out[f"{key}_note"] = None, f"not measured: {exc}"
                continue
            out[key] = median(times)
            out[f"{key}_note"] = (f"median of {runs} fresh processes after one that writes the bytecode cache: "
                                  + ", ".join(f"{t:.3f}" for t in times) + " s")
            out[f"{key}_runs_s"] = times
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    print(json.dumps(measure(args.runs), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
