"""`spec-advisor` command line: discovers subcommands in `advisor.cli` and maps user errors to exit codes.

With no arguments it opens the desktop window (`gui`).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import select
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

import advisor.cli as commands_pkg
from advisor import __version__
from advisor.errors import UserError
from advisor.redact import install_log_redaction

EXIT_OK = 0
EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130


def _command_modules() -> list[ModuleType]:
    found = []
    for info in pkgutil.iter_modules(commands_pkg.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands_pkg.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found.append(module)
    return sorted(found, key=lambda m: str(m.NAME))


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line as one line (plus a hint), like every other user error."""

    def error(self, message: str) -> NoReturn:
        print(f"spec-advisor: {self.prog}: {message}", file=sys.stderr)
        print(f"  hint: `{self.prog} --help` lists the options", file=sys.stderr)
        sys.exit(EXIT_USER_ERROR)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per command module."""
    parser = _Parser(
        prog="spec-advisor",
        description="Should I turn on speculative decoding on this machine? Measure, decide, explain.",
    )
    parser.add_argument("--version", action="version", version=f"spec-advisor {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.configure(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `spec-advisor` console script; returns the process exit code."""
    try:
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
    parser = build_parser()
    if not args_list:
        args_list = ["gui"]
    args = parser.parse_args(args_list)
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
