"""Chart redraw cost and the longest GUI-thread stall, from `bench/gui_bench.py` (run as its own process).

    .venv/bin/python -m bench.gui_figures [--skip-check]

gui_bench draws 6 plots × 10k points (median of 40 redraws) and, unless `--skip-check`, runs a quick check
through the window while a 20 ms heartbeat on the GUI thread records how late it fires.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench.common import PYTHON, REPO, isolated_env, run_cli, stop_cleanly_on_sigterm, tail

REDRAW = "chart_redraw_ms_median"
STALL = "gui_max_stall_ms"
SCRIPT = REPO / "bench" / "gui_bench.py"


def measure(skip_check: bool = False, timeout_s: float = 1000.0, steps: str | None = None) -> dict[str, Any]:
    """Run gui_bench once (offscreen Qt) and map its figures to our keys."""
    if not SCRIPT.is_file():
        return _nulls("not measured: bench/gui_bench.py is not in this checkout", "not measured: "
                      "bench/gui_bench.py is not in this checkout")
    with tempfile.TemporaryDirectory(prefix="spec-bench-gui-") as tmp:
        out_path = Path(tmp) / "gui.json"
        argv = [PYTHON, str(SCRIPT), "--json-out", str(out_path)] + (["--skip-check"] if skip_check else [])
        argv += ["--steps", steps] if steps and not skip_check else []
        try:
            done = run_cli(argv, timeout_s, isolated_env(Path(tmp)))
        except subprocess.TimeoutExpired:
            note = f"not measured: gui_bench did not finish within {timeout_s:.0f} s"
            return _nulls(note, note)
        if done.returncode != 0 or not out_path.is_file():
            note = f"not measured: gui_bench exited {done.returncode}: {tail(done.stderr)}"
            return _nulls(note, note)
        gui: dict[str, Any] = json.loads(out_path.read_text())
    out: dict[str, Any] = {"gui_bench": gui}
    median = gui.get("redraw_median_ms")
    out[REDRAW] = median
    out[f"{REDRAW}_note"] = (f"{gui.get('charts')} plots × {gui.get('points_per_chart')} points, p90 "
                             f"{gui.get('redraw_p90_ms', float('nan')):.1f} ms, offscreen Qt"
                             if median is not None else "not measured: gui_bench gave no redraw figure")
    if skip_check:
        out[STALL], out[f"{STALL}_note"] = None, "skipped: needs a quick check through the GUI (--skip-slow)"
    elif gui.get("stall_max_ms") is None or gui.get("check_status") != "complete":
        out[STALL] = None
        out[f"{STALL}_note"] = f"not measured: the GUI quick check ended '{gui.get('check_status')}'"
    else:
        out[STALL] = gui["stall_max_ms"]
        out[f"{STALL}_note"] = (f"20 ms heartbeat over a {gui.get('check_s', 0):.0f} s quick check "
                                f"(steps: {steps or 'all'}) "
                                f"({gui.get('heartbeats')} beats, p99 {gui.get('stall_p99_ms', 0):.0f} ms, "
                                f"verdict {gui.get('verdict')})")
    return out


def _nulls(redraw_note: str, stall_note: str) -> dict[str, Any]:
    return {REDRAW: None, f"{REDRAW}_note": redraw_note, STALL: None, f"{STALL}_note": stall_note}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-check", action="store_true", help="only the redraw figure")
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    print(json.dumps(measure(args.skip_check), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
