"""`spec-advisor gui`: the desktop window (the default when no command is given).

Qt is imported inside `run()` only: `advisor` must stay importable where PySide6 is not installed. Where there
is no display (an SSH session on a GPU box), Qt would abort: the command says how to check from the terminal
instead, and `--screenshot` renders offscreen.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from advisor.cli.display import display_problem
from advisor.errors import UserError
from advisor.owned import refuse_owned
from advisor.text import text


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments: --open RUN_DIR, --lang, --screenshot FILE, --view."""
    parser.add_argument("--open", metavar="RUN_DIR", help="show a saved run (its verdict and charts)")
    parser.add_argument("--lang", choices=("en", "zh"),
                        help="interface language (default: last used, else the system locale)")
    parser.add_argument("--screenshot", type=Path, metavar="FILE.png",
                        help="render the window to a PNG and exit (works with QT_QPA_PLATFORM=offscreen)")
    parser.add_argument("--view", choices=("start", "run", "verdict", "history"), help="which view to show first")


def has_display(env: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Whether a window can open: always on Windows and macOS; elsewhere an X11 or Wayland display, or a Qt
    platform the user chose (`QT_QPA_PLATFORM=offscreen` and the like)."""
    if platform in ("win32", "darwin"):
        return True
    return any(env.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def message_language(args: argparse.Namespace, env: Mapping[str, str]) -> str:
    """`--lang`, else Chinese where the locale is Chinese, else English (the window's saved choice is Qt's)."""
    if getattr(args, "lang", None):
        return str(args.lang)
    locale = env.get("LC_ALL") or env.get("LC_MESSAGES") or env.get("LANG") or ""
    return "zh" if locale.lower().startswith("zh") else "en"


def run(args: argparse.Namespace) -> int:
    """Open the window; with --screenshot, save it and exit. Without a display: the terminal way instead."""
    if not has_display(os.environ):
        if args.screenshot is not None:
            os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a PNG needs no screen
        else:
            lang = message_language(args, os.environ)
            if getattr(args, "bare", False):  # plain `spec-advisor`: say what to do instead, and end cleanly
                print(text(lang, "gui.no_display"), file=sys.stderr)
                print(text(lang, "gui.no_display_hint"), file=sys.stderr)
                return 0
            raise UserError(text(lang, "gui.no_display"), hint=text(lang, "gui.no_display_hint"))
    if args.screenshot is not None:
        _check_screenshot(args.screenshot.expanduser(), message_language(args, os.environ))
    unusable = display_problem(os.environ)
    if unusable is not None:  # Qt would abort (exit 134) on a display nobody answers at: say so first
        if args.screenshot is not None:
            os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a PNG needs no screen
        else:
            lang = message_language(args, os.environ)
            message = text(lang, "gui.display_unusable", display=unusable[0], why=unusable[1])
            if getattr(args, "bare", False):  # plain `spec-advisor`: as without a display, say so and end
                print(message, file=sys.stderr)
                print(text(lang, "gui.display_hint"), file=sys.stderr)
                return 0
            raise UserError(message, hint=text(lang, "gui.display_hint"))
    try:
        from ui import app
    except ImportError as exc:  # PySide6 or pyqtgraph missing: a clear message, not a traceback
        raise UserError(f"the desktop app needs PySide6 and pyqtgraph ({exc})",
                        hint="pip install PySide6-Essentials pyqtgraph, or use `spec-advisor check`") from exc
    if args.open and not Path(args.open).expanduser().exists():
        raise UserError(f"no run folder at {args.open}", hint="see `spec-advisor history` for past runs")
    if args.open:
        _check_run(Path(args.open).expanduser())
    code = app.run(lang=args.lang, open_dir=args.open, view=args.view, shot=args.screenshot)
    if args.screenshot is not None and code != 0:
        raise UserError(f"could not save the screenshot to {args.screenshot}",
                        hint="check the folder is writable and the name ends in .png")
    return code


def _check_screenshot(path: Path, language: str = "en") -> None:
    """A PNG can be written at `path`: not a folder, in a folder that exists and is writable."""
    if path.is_dir():
        raise UserError(f"cannot write the screenshot to {path}: it is a folder",
                        hint=f"give a file name, e.g. {path / 'window.png'}")
    folder = path.resolve().parent
    if not folder.is_dir():
        raise UserError(f"cannot write {path}: its folder does not exist")
    try:  # a real write, not os.access: root passes access() on a read-only mount or /proc
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".spec-advisor-shot-"):
            pass
    except OSError as exc:
        raise UserError(f"cannot write {path}: its folder {folder} is not writable ({exc.strerror or exc})",
                        hint="choose a folder you can write to") from None
    refuse_owned(path, lang=language)  # a run's evidence, the history or the lock is never replaced by a picture
    if path.exists() and not os.access(path, os.W_OK):
        raise UserError(f"cannot write {path}: the file is not writable", hint="choose another file name")


def _check_run(path: Path) -> None:
    """A run folder the window can show: its evidence decodes and its numbers agree (as `decide` checks them),
    so a damaged file is a one-line error here rather than a window that opens on nothing."""
    from advisor.evidence.io import load_evidence, read_json_file
    from advisor.facts.from_evidence import facts_from_evidence

    folder = path.parent if path.is_file() else path
    facts_from_evidence(load_evidence(folder))
    if (folder / "verdict.json").exists():
        read_json_file(folder / "verdict.json", what="a verdict file")

