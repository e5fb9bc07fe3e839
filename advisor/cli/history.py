"""`spec-advisor history`: list past runs, or compare two of them."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from advisor import jsonout, lang
from advisor.errors import UserError
from advisor.history.schema import default_db_path
from advisor.history.store import RunStore, RunSummary
from advisor.termsafe import terminal_safe
from advisor.text import text

MAX_LIMIT = 1_000_000  # SQLite LIMIT takes a 64-bit integer; nobody keeps a million runs
_MARK = {"regression": "▼", "improvement": "▲", "change": "•"}


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments: --limit, --compare RUN_A RUN_B, --json."""
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="how many runs to list (default 20)")
    parser.add_argument("--compare", nargs=2, metavar=("RUN_A", "RUN_B"),
                        help="compare an earlier run A with a later run B")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    lang.add_option(parser, "language of the table")


def _cells(cell: str) -> int:
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in cell)  # a CJK character takes two terminal columns


def _table(runs: list[RunSummary], language: str = "en") -> str:
    header = tuple(text(language, f"history.{k}") for k in ("run", "created", "status", "verdict", "engine",
                                                            "model", "gpu"))
    rows = [header, *[tuple(terminal_safe(str(c)) for c in (  # escapes counted in the column widths too
        r.run_id, r.created_utc[:19].replace("T", " "), r.status, r.verdict or "—", r.engine or "—", r.model or "—",
        r.gpu or "—")) for r in runs]]
    widths = [max(_cells(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  ".join(cell + " " * (w - _cells(cell)) for cell, w in zip(row, widths, strict=True)).rstrip()
                     for row in rows)


def run(args: argparse.Namespace) -> int:
    """Print the history (an absent database simply means no runs yet)."""
    if not 1 <= args.limit <= MAX_LIMIT:
        raise UserError(f"--limit must be from 1 to {MAX_LIMIT:,}, not {args.limit}")
    path = default_db_path()
    language = lang.resolve(args.lang)
    if not path.exists() and not args.compare:
        if args.json:
            jsonout.dump({"runs": []}, sys.stdout)
        else:
            print(text(language, "history.none_at", path=path))
        return 0
    with RunStore(path) as store:
        if args.compare:
            diffs = store.compare(*args.compare)
            if args.json:
                jsonout.dump({"differences": [dataclasses.asdict(d) for d in diffs]}, sys.stdout)
            elif not diffs:
                print(text(language, "history.no_diffs"))
            else:
                for d in diffs:
                    print(f"{_MARK[d.kind]} {text(language, 'history.' + d.kind):<11} {d.message}")
            return 0
        runs = store.list_runs(args.limit)
        if store.damaged:
            print("spec-advisor: " + text(language, "history.damaged", n=len(store.damaged),
                                          ids=", ".join(store.damaged[:10])), file=sys.stderr)
    if args.json:
        jsonout.dump({"runs": [dataclasses.asdict(r) for r in runs]}, sys.stdout)
    else:
        print(_table(runs, language) if runs else text(language, "history.none"))
    return 0
