"""Screenshots of the window through one real check (docs/screenshots/, by scripts/screenshots):

    python -m ui.live_shots --out docs/screenshots [--steps baseline,ab] [--after-pairs 8]

The start view before the check, the run view in progress (mid-A/B, with the ETA line), and the verdict with
its results table once the check has ended; each in English and Chinese (the language is switched in the
same window, so both show the same moment). The check runs on the demo engine, as the Start button does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from advisor.config import ALL_STEPS
from advisor.events import Event, Sample
from ui.app import SCREENSHOT_SIZE, application, build_window, settle
from ui.main_window import MainWindow

LANGS = ("en", "zh")
TIMEOUT_S = 3600  # a quick check on a loaded 2-core machine can take half an hour


def _pump(seconds: float) -> None:
    app = application()
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        app.processEvents()
        time.sleep(0.005)


def _shoot(window: MainWindow, out: Path, name: str) -> list[Path]:
    """Grab the window in each language; returns the files written. The window ends in English."""
    written = []
    for lang in LANGS:
        window.set_language(lang)
        settle(window, 5_000)  # charts reveal one per turn after a change: wait until all are painted
        window.run_view.charts.redraw()
        application().processEvents()
        path = out / f"{name}-{lang}.png"
        if window.grab().save(str(path), "PNG"):
            written.append(path)
    window.set_language("en")
    return written


def take(out: Path, steps: tuple[str, ...], after_pairs: int) -> list[Path]:
    """Run one check in a window and write the six screenshots into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    window = build_window(lang="en", view="start")
    window.resize(*SCREENSHOT_SIZE)
    window.show()
    window.start_view.form.steps = steps  # type: ignore[assignment]
    settle(window)
    written = _shoot(window, out, "start")
    due, shot = [False], [False]  # the A/B has reached `after_pairs`; the run shots are taken

    def watch(event: Event) -> None:
        if isinstance(event, Sample) and event.step == "ab" and event.series == "running_speedup":
            due[0] = due[0] or event.x >= after_pairs

    window.controller.received.connect(watch)
    window.start_view.button.click()
    t0 = time.monotonic()
    while (window.controller.running or window.controller.session is None) and time.monotonic() - t0 < TIMEOUT_S:
        _pump(0.05)
        if due[0] and not shot[0]:
            shot[0] = True
            written += _shoot(window, out, "run")
    if window.controller.running:
        window.controller.cancel()
    while window.controller.running or window.finishing():
        _pump(0.05)
    done = window.controller.last_done
    if done is None or done.verdict is None:
        print(f"[live_shots] the check ended without a verdict ({done.status if done else 'none'}: "
              f"{done.message if done else ''})", file=sys.stderr)
    else:
        window.show_view("verdict")
        written += _shoot(window, out, "verdict")
    window.controller.wait(60_000)
    window.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--steps", default=",".join(ALL_STEPS), help="the steps of the check (default: all)")
    parser.add_argument("--after-pairs", type=int, default=8, help="A/B pairs done before the run shot")
    args = parser.parse_args(argv)
    steps = tuple(s.strip() for s in args.steps.split(",") if s.strip())
    written = take(args.out, steps, args.after_pairs)
    print(f"[live_shots] wrote {' '.join(p.name for p in written)}", file=sys.stderr)
    return 0 if len(written) == 3 * len(LANGS) else 1


if __name__ == "__main__":
    sys.exit(main())
