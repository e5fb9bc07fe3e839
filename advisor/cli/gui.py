"""`spec-advisor gui`: the desktop window (the default when no command is given).

Qt is imported inside `run()` only: `advisor` must stay importable where PySide6 is not installed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from advisor.errors import UserError

NAME = "gui"
HELP = "open the desktop app (default when no command is given)"


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments: --open RUN_DIR, --lang, --screenshot FILE, --view."""
    parser.add_argument("--open", metavar="RUN_DIR", help="show a saved run (its verdict and charts)")
    parser.add_argument("--lang", choices=("en", "zh"), help="interface language (default: last used, else en)")
    parser.add_argument("--screenshot", type=Path, metavar="FILE.png",
                        help="render the window to a PNG and exit (works with QT_QPA_PLATFORM=offscreen)")
    parser.add_argument("--view", choices=("start", "run", "verdict", "history"), help="which view to show first")


def run(args: argparse.Namespace) -> int:
    """Open the window; with --screenshot, save it and exit."""
    try:
        from ui import app
    except ImportError as exc:  # PySide6 or pyqtgraph missing: a clear message, not a traceback
        raise UserError(f"the desktop app needs PySide6 and pyqtgraph ({exc})",
                        hint="pip install PySide6-Essentials pyqtgraph, or use `spec-advisor check`") from exc
    if args.open and not Path(args.open).expanduser().exists():
        raise UserError(f"no run folder at {args.open}", hint="see `spec-advisor history` for past runs")
    if args.open:
        _check_run(Path(args.open).expanduser())
    if args.screenshot is not None and not args.screenshot.expanduser().resolve().parent.is_dir():
        raise UserError(f"cannot write {args.screenshot}: its folder does not exist")
    return app.run(lang=args.lang, open_dir=args.open, view=args.view, shot=args.screenshot)


def _check_run(path: Path) -> None:
    """A run folder the window can show: its evidence decodes and its numbers agree (as `decide` checks them),
    so a damaged file is a one-line error here rather than a window that opens on nothing."""
    from advisor.evidence.io import load_evidence, read_json_file
    from advisor.facts.from_evidence import facts_from_evidence

    folder = path.parent if path.is_file() else path
    facts_from_evidence(load_evidence(folder))
    if (folder / "verdict.json").exists():
        read_json_file(folder / "verdict.json", what="a verdict file")

