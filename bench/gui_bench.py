"""GUI benchmark (not a test): chart redraw cost and GUI-thread stalls during a real quick check.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/gui_bench.py [--skip-check] [--steps baseline,ab]
        [--json-out FILE] [--screenshot-during FILE --shot-after-pairs N] [--diagnose]

1. Redraw: six LiveCharts × 10k points each, every series dirty, `refresh()` + a synchronous repaint;
   median and p90 over 40 rounds, in ms.
2. Stall: a 20 ms QTimer heartbeat on the GUI thread while the demo engine runs a quick check through the
   window's button (pressed once the window is shown and its probes have reported), until the verdict is
   shown and TAIL_S after; lateness = how much later than scheduled each beat fired. The longest lateness
   is the longest time the window could not respond.
3. `--diagnose`: a watchdog thread samples the GUI thread's Python stack every few ms while a beat is more
   than DIAGNOSE_LATE_MS late, and prints the worst stalls with the frames they spent their time in (the
   samples measure where the GUI thread was, so a stall inside one C++ call shows that call's Python caller).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
from PySide6.QtCore import QElapsedTimer, QTimer
from PySide6.QtWidgets import QGridLayout, QWidget

from advisor.events import Sample
from ui import theme
from ui.app import application, build_window, settle
from ui.charts.base import LiveChart

POINTS = 10_000
CHARTS = 6
HEARTBEAT_MS = 20
TAIL_S = 1.0  # heartbeat after the window has shown the verdict: its first paints count too
DIAGNOSE_LATE_MS = 40  # a beat this late starts sampling the GUI thread's stack
SAMPLE_EVERY_S = 0.005


class StallWatch(threading.Thread):
    """Samples the GUI thread's Python stack while a heartbeat is overdue; one record per stall."""

    def __init__(self, gui_ident: int) -> None:
        super().__init__(daemon=True)
        self.gui_ident = gui_ident
        self.last_beat = time.monotonic()
        self.stalls: list[tuple[float, float, Counter[tuple[str, ...]]]] = []  # (at_s, late_ms, stack counts)
        self._halt = threading.Event()
        self._t0 = time.monotonic()

    def beat(self) -> None:
        """Called by the heartbeat on the GUI thread."""
        self.last_beat = time.monotonic()

    def run(self) -> None:
        overdue = (HEARTBEAT_MS + DIAGNOSE_LATE_MS) / 1000
        while not self._halt.wait(SAMPLE_EVERY_S):
            since = self.last_beat
            if time.monotonic() - since < overdue:
                continue
            stacks: Counter[tuple[str, ...]] = Counter()
            while self.last_beat == since and not self._halt.is_set():
                frame = sys._current_frames().get(self.gui_ident)
                if frame is not None:
                    stacks[tuple(f"{Path(fs.filename).name}:{fs.lineno} {fs.name}"
                                 for fs in traceback.extract_stack(frame))] += 1
                time.sleep(SAMPLE_EVERY_S)
            late_ms = (time.monotonic() - since) * 1000 - HEARTBEAT_MS
            self.stalls.append((since - self._t0, late_ms, stacks))

    def stop(self) -> None:
        self._halt.set()
        self.join(2)

    def report(self, top: int = 6, share: float = 0.10) -> str:
        """The `top` worst stalls, each as a tree of the frames that held at least `share` of its samples."""
        lines = []
        for at_s, late_ms, stacks in sorted(self.stalls, key=lambda s: -s[1])[:top]:
            total = sum(stacks.values())
            lines.append(f"— stall at {at_s:.1f} s: {late_ms:.0f} ms late, {total} samples")
            tree: dict[tuple[str, ...], int] = Counter()
            for stack, n in stacks.items():
                for depth in range(1, len(stack) + 1):
                    tree[stack[:depth]] += n
            for path, n in sorted(tree.items()):  # prefix order: a frame is followed by its callees
                # The bench's own frames (module, main, bench_check) are the same in every sample.
                if n >= share * total and len(path) > 3:
                    lines.append(f"  {100 * n / total:3.0f}% {'  ' * (len(path) - 4)}{path[-1]}")
        return "\n".join(lines)


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
                timeout_s: float = 900, diagnose: bool = False) -> dict[str, Any]:
    """Run a quick check through the window, measuring heartbeat lateness on the GUI thread."""
    app = application()
    window = build_window(lang="en")
    window.resize(1440, 900)
    window.show()
    window.start_view.form.steps = steps  # type: ignore[assignment]
    settle(window)  # the window is up and its probes have reported before the user can press the button
    late: list[float] = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]
    watch = StallWatch(threading.get_ident()) if diagnose else None

    def beat() -> None:
        if watch is not None:
            watch.beat()
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
            if watch is not None:
                watch.beat()

    window.controller.received.connect(maybe_shoot)
    t0 = time.monotonic()
    if watch is not None:
        watch.start()
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
    if watch is not None:
        watch.stop()
        print(watch.report(), flush=True)
    done = window.controller.last_done
    window.controller.wait(60_000)
    window.close()
    late.sort()
    return {"check_status": done.status if done else "none", "check_s": time.monotonic() - t0,
            "verdict": done.verdict.verdict if done and done.verdict else None,
            "check_message": done.message if done else None, "heartbeats": len(late),
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
    parser.add_argument("--diagnose", action="store_true", help="print the GUI thread's stacks in stalls")
    args = parser.parse_args()
    result: dict[str, Any] = bench_redraw()
    print(f"redraw {CHARTS} plots × {POINTS} points: median {result['redraw_median_ms']:.1f} ms, "
          f"p90 {result['redraw_p90_ms']:.1f} ms")
    if not args.skip_check:
        steps = tuple(s.strip() for s in args.steps.split(",") if s.strip())
        check = bench_check(steps, args.screenshot_during, args.shot_after_pairs, diagnose=args.diagnose)
        result.update(check)
        print(f"quick check ({check['check_status']}, {check['check_s']:.0f} s, verdict {check['verdict']}): "
              f"longest GUI stall {check['stall_max_ms']:.0f} ms, p99 {check['stall_p99_ms']:.0f} ms "
              f"over {check['heartbeats']} heartbeats of {HEARTBEAT_MS} ms")
        if check["check_message"]:
            print(f"check message: {check['check_message']}")
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
