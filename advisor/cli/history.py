"""`spec-advisor history`: list past runs, or compare two of them."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from advisor.errors import UserError
from advisor.history.schema import default_db_path
from advisor.history.store import RunStore, RunSummary

NAME = "history"
HELP = "list past runs, or --compare RUN_A RUN_B to see what regressed"
MAX_LIMIT = 1_000_000  # SQLite LIMIT takes a 64-bit integer; nobody keeps a million runs
_MARK = {"regression": "▼", "improvement": "▲", "change": "•"}


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments: --limit, --compare RUN_A RUN_B, --json."""
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="how many runs to list (default 20)")
    parser.add_argument("--compare", nargs=2, metavar=("RUN_A", "RUN_B"),
                        help="compare an earlier run A with a later run B")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _table(runs: list[RunSummary]) -> str:
    header = ("RUN", "CREATED (UTC)", "STATUS", "VERDICT", "ENGINE", "MODEL", "GPU")
    rows = [header, *[(r.run_id, r.created_utc[:19].replace("T", " "), r.status, r.verdict or "—",
                       r.engine or "—", r.model or "—", r.gpu or "—") for r in runs]]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def run(args: argparse.Namespace) -> int:
    """Print the history (an absent database simply means no runs yet)."""
    if not 1 <= args.limit <= MAX_LIMIT:
        raise UserError(f"--limit must be from 1 to {MAX_LIMIT:,}, not {args.limit}")
    path = default_db_path()
    if not path.exists() and not args.compare:
        print("[]" if args.json else f"No runs recorded yet (history: {path}).")
        return 0
    with RunStore(path) as store:
        if args.compare:
            diffs = store.compare(*args.compare)
            if args.json:
                json.dump([dataclasses.asdict(d) for d in diffs], sys.stdout, ensure_ascii=False, indent=2)
                print()
            elif not diffs:
                print("No differences worth flagging.")
            else:
                for d in diffs:
                    print(f"{_MARK[d.kind]} {d.kind:<11} {d.message}")
            return 0
        runs = store.list_runs(args.limit)
    if args.json:
        json.dump([dataclasses.asdict(r) for r in runs], sys.stdout, ensure_ascii=False, indent=2)
        print()
    else:
        print(_table(runs) if runs else "No runs recorded yet.")
    return 0
