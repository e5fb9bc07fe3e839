"""Cold `spec-advisor probe` wall time: a fresh process each time, no engine given, median of 3.

    .venv/bin/python -m bench.probe_time [--runs 3]

Each run starts a new interpreter (imports included) exactly as a user types the command; the probe
measures RAM bandwidth and reads `llama-server --help`, so both are inside the figure. As in bench/cli_time.py,
one untimed run first writes the bytecode cache (an installed package has one; PYTHONDONTWRITEBYTECODE is
dropped for the children), and the peak resident memory of each run is reported beside its time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.cli_time import cli_env
from bench.common import median, run_cli, spec_advisor_argv, stop_cleanly_on_sigterm, tail

KEY = "probe_cold_s"


def measure(runs: int = 3, timeout_s: float = 60.0) -> dict[str, Any]:
    """Median wall seconds of `runs` fresh `spec-advisor probe` processes (after one untimed run)."""
    times: list[float] = []
    peaks: list[float] = []
    with tempfile.TemporaryDirectory(prefix="spec-bench-probe-") as tmp:
        env = cli_env(Path(tmp))
        for i in range(runs + 1):
            t0 = time.monotonic()
            try:
                done = run_cli([*spec_advisor_argv(), "probe"], timeout_s, env)
            except subprocess.TimeoutExpired:
                return {KEY: None, f"{KEY}_note": f"probe did not finish within {timeout_s:.0f} s"}
            if i:
                times.append(time.monotonic() - t0)
                peaks.append(_children_peak_mib())
            if done.returncode != 0:
                return {KEY: None, f"{KEY}_note": f"probe exited {done.returncode}: {tail(done.stderr)}"}
    return {KEY: median(times), f"{KEY}_note": "runs: " + ", ".join(f"{t:.2f} s" for t in times)
            + f"; peak RSS {max(peaks):.0f} MiB", "probe_runs_s": times, "probe_peak_rss_mib": max(peaks)}


def _children_peak_mib() -> float:
    """The largest peak RSS of any child this process has waited for so far, in MiB (Linux reports KiB)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    print(json.dumps(measure(args.runs), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
