"""`spec-advisor` command line: the table of subcommands, each imported only when it runs; user errors → exit 2.

With no arguments it opens the desktop window (`gui`), or says how to check from the terminal where no display
is there.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import select
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

from advisor import __version__
from advisor.errors import UserError
from advisor.redact import install_log_redaction
from advisor.termsafe import safe_stdio

EXIT_OK = 0
EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130


@dataclass(frozen=True, slots=True)
class Command:
    """A subcommand: the module holding its `configure(parser)` and `run(args) -> int`, and its one-line help."""

    module: str
    help: str


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line as one line (plus a hint), like every other user error."""

    def error(self, message: str) -> NoReturn:
        print(f"spec-advisor: {self.prog}: {message}", file=sys.stderr)
        print(f"  hint: `{self.prog} --help` lists the options", file=sys.stderr)
        sys.exit(EXIT_USER_ERROR)


# Names and help live here, not in the modules, so that `--help` and every command import only what they need:
# `check` pulls in the session, numpy, httpx and gguf, which `decide` or `--help` must not pay for.
COMMANDS: dict[str, Command] = {
    "check": Command("advisor.cli.check", "measure speculative decoding on this machine and give a verdict"),
    "cluster": Command("advisor.cli.cluster", "cluster cleanup: list and remove what a `check --llmkube` left "
                                              "behind (twins, patched services)"),
    "decide": Command("advisor.cli.decide", "decide from a run folder, an evidence.json or --facts FILE.json; "
                                            "prints verdict, flags and trace"),
    "gui": Command("advisor.cli.gui", "open the desktop app (default when no command is given)"),
    "history": Command("advisor.cli.history", "list past runs, or --compare RUN_A RUN_B to see what regressed"),
    "probe": Command("advisor.cli.probe", "describe this machine's GPU, host, model file and engines "
                                          "(no measurements of speed)"),
    "report": Command("advisor.cli.report", "write a report (html, md or json) for a run folder or a "
                                            "--facts FILE.json"),
    "rules": Command("advisor.cli.rules", "print the decision tree: every question, its branches, thresholds "
                                          "and their sources"),
    "setup-help": Command("advisor.cli.setup_help", "how to get going: the demo engine, your own llama-server "
                                                    "and model, or a server you already run"),
}


def command_in(argv: Sequence[str]) -> str | None:
    """The command named in `argv`: its first word that is not an option (no top-level option takes a value)."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The top-level parser with one subparser per command.

    With `argv`, only the command it names is imported and given its arguments (the others appear in the
    help list only); without it, every command is configured (for tests and generated docs).
    """
    parser = _Parser(
        prog="spec-advisor",
        description="Should I turn on speculative decoding on this machine? Measure, decide, explain.",
    )
    parser.add_argument("--version", action="version", version=f"spec-advisor {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = command_in(argv) if argv is not None else None
    for name, command in sorted(COMMANDS.items()):
        p = sub.add_parser(name, help=command.help, description=command.help)
        if argv is None or name == chosen:
            module = importlib.import_module(command.module)
            module.configure(p)
            p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `spec-advisor` console script; returns the process exit code."""
    _degrade_stdio()
    try:
        with safe_stdio():  # no engine or model string can drive the terminal (advisor/termsafe.py)
            code = _main(list(sys.argv[1:] if argv is None else argv))
            sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's own flush at exit
        return code
    except BrokenPipeError:
        if not _stdout_reader_gone():
            raise  # some other pipe or socket broke: that is not the user closing our output
        # the reader went away (`spec-advisor rules --tree | head`): stop quietly, as `cat` does, and point
        # stdout at /dev/null so the interpreter's final flush does not complain about the pipe again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _degrade_stdio() -> None:
    """Output the terminal cannot show degrades to escapes instead of a UnicodeEncodeError traceback: Chinese
    text on an ASCII or Latin-1 console (PYTHONIOENCODING=ascii, LANG=C on old systems), a lone surrogate from
    a file name that is not UTF-8, anywhere."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # a replaced stream (tests, pythonw) may lack it
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # closed or detached: nothing is printed there
                reconfigure(errors="backslashreplace")


def _stdout_reader_gone() -> bool:
    """True when stdout is a pipe whose reading end is closed (poll reports an error on the write end)."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):  # a replaced stdout (tests) has no file descriptor
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _main(args_list: list[str]) -> int:
    bare = not args_list  # no command: the window, or where there is no display, how to check from here
    parser = build_parser(args_list or ["gui"])
    args = parser.parse_args(args_list or ["gui"])
    args.bare = bare
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    install_log_redaction()  # API keys must never reach a log line
    run = getattr(args, "_run", None)
    if run is None:
        parser.print_help()
        return EXIT_USER_ERROR
    try:
        return int(run(args))
    except UserError as exc:
        print(f"spec-advisor: {exc}", file=sys.stderr)
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("spec-advisor: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
