"""GUI benchmark (not a test): chart redraw cost and GUI-thread stalls during a real quick check.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/gui_bench.py [--skip-check] [--steps baseline,ab]
        [--json-out FILE] [--screenshot-during FILE --shot-after-pairs N]

1. Redraw: six LiveCharts × 10k points each, every series dirty, `refresh()` + a synchronous repaint;
   median and p90 over 40 rounds, in ms.
2. Stall: a 20 ms QTimer heartbeat on the GUI thread while the demo engine runs a quick check through the
   window's button, until the verdict is shown and TAIL_S after; lateness = how much later than scheduled
   each beat fired. The longest lateness is the longest time the window could not respond.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
from PySide6.QtCore import QElapsedTimer, QTimer
from PySide6.QtWidgets import QGridLayout, QWidget

from advisor.events import Sample
from ui import theme
from ui.app import application, build_window
from ui.charts.base import LiveChart

POINTS = 10_000
CHARTS = 6
HEARTBEAT_MS = 20
TAIL_S = 1.0  # heartbeat after the window has shown the verdict: its first paints count too


def bench_redraw(rounds: int = 40) -> dict[str, float]:
    """Median/p90 ms to push 6 × 10k-point series and repaint them."""
    app = application()
    host = QWidget()
    grid = QGridLayout(host)
    charts = []
    for i in range(CHARTS):
        chart = LiveChart("chart.decode", "axis.request", "axis.tok_s")
        chart.add_series("s", "series.decode", theme.BLUE)
        charts.append(chart)
        grid.addWidget(chart, i // 3, i % 3)
    host.resize(1440, 700)
    host.show()
    rng = np.random.default_rng(1)
    for chart in charts:
        for x, y in enumerate(rng.normal(100, 5, POINTS)):
            chart.append("s", float(x), float(y))
    app.processEvents()
    times = []
    for r in range(rounds):
        for chart in charts:
            chart.append("s", float(POINTS + r), 100.0)  # every series dirty, full 10k setData
        t0 = time.perf_counter()
        for chart in charts:
            chart.refresh()
            chart.repaint()
        app.processEvents()
        times.append((time.perf_counter() - t0) * 1000)
    host.close()
    times.sort()
    return {"redraw_median_ms": statistics.median(times), "redraw_p90_ms": times[int(0.9 * len(times))],
            "charts": CHARTS, "points_per_chart": POINTS}


def bench_check(steps: tuple[str, ...], shot: Path | None, shot_after_pairs: int,
                timeout_s: float = 900) -> dict[str, Any]:
    """Run a quick check through the window, measuring heartbeat lateness on the GUI thread."""
    app = application()
    window = build_window(lang="en")
    window.resize(1440, 900)
    window.show()
    window.start_view.form.steps = steps  # type: ignore[assignment]
    late: list[float] = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    def beat() -> None:
        now = clock.elapsed()
        late.append(max(0.0, now - last[0] - HEARTBEAT_MS))
        last[0] = now

    heartbeat = QTimer()
    heartbeat.setInterval(HEARTBEAT_MS)
    heartbeat.timeout.connect(beat)
    shot_taken = [False]

    def maybe_shoot(event: object) -> None:
        if shot is None or shot_taken[0] or not isinstance(event, Sample):
            return
        if event.step == "ab" and event.series == "running_speedup" and event.x >= shot_after_pairs:
            window.run_view.charts.redraw()
            shot_taken[0] = bool(window.grab().save(str(shot), "PNG"))
            last[0] = clock.elapsed()  # the grab itself is not a stall the user would see

    window.controller.received.connect(maybe_shoot)
    t0 = time.monotonic()
    heartbeat.start()
    window.start_view.button.click()
    while (window.controller.running or window.controller.session is None) and time.monotonic() - t0 < timeout_s:
        app.processEvents()
        time.sleep(0.002)
    # The whole end of the check counts: the report and history are prepared off the GUI thread, then the
    # verdict view is filled and painted; beats go on until that is done and for a short tail after it.
    while window.finishing() and time.monotonic() - t0 < timeout_s:
        app.processEvents()
        time.sleep(0.002)
    tail_until = time.monotonic() + TAIL_S
    while time.monotonic() < tail_until:
        app.processEvents()
        time.sleep(0.002)
    if window.controller.running:  # out of time: cancel and let the session stop its servers
        window.controller.cancel()
        while window.controller.running:
            app.processEvents()
            time.sleep(0.01)
    heartbeat.stop()
    done = window.controller.last_done
    window.controller.wait(60_000)
    window.close()
    late.sort()
    return {"check_status": done.status if done else "none", "check_s": time.monotonic() - t0,
            "verdict": (done.verdict or {}).get("verdict") if done else None, "heartbeats": len(late),
            "stall_max_ms": late[-1] if late else None,
            "stall_p99_ms": late[int(0.99 * (len(late) - 1))] if late else None,
            "screenshot": str(shot) if shot_taken[0] else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-check", action="store_true", help="only the redraw benchmark")
    parser.add_argument("--steps", default="baseline,acceptance,verify,batch,ab")
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--screenshot-during", type=Path, help="grab the window mid-A/B")
    parser.add_argument("--shot-after-pairs", type=int, default=12)
    args = parser.parse_args()
    result: dict[str, Any] = bench_redraw()
    print(f"redraw {CHARTS} plots × {POINTS} points: median {result['redraw_median_ms']:.1f} ms, "
          f"p90 {result['redraw_p90_ms']:.1f} ms")
    if not args.skip_check:
        steps = tuple(s.strip() for s in args.steps.split(",") if s.strip())
        check = bench_check(steps, args.screenshot_during, args.shot_after_pairs)
        result.update(check)
        print(f"quick check ({check['check_status']}, {check['check_s']:.0f} s, verdict {check['verdict']}): "
              f"longest GUI stall {check['stall_max_ms']:.0f} ms, p99 {check['stall_p99_ms']:.0f} ms "
              f"over {check['heartbeats']} heartbeats of {HEARTBEAT_MS} ms")
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
