"""`spec-advisor history`: list past runs, or compare two of them (by run id or by run folder)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from advisor import jsonout, lang
from advisor.errors import UserError
from advisor.history.compare import Difference, compare_runs
from advisor.history.folders import RunFolderError, load_run, to_record
from advisor.history.records import NO_GPU, RunRecord
from advisor.history.schema import default_db_path
from advisor.history.store import RunStore, RunSummary
from advisor.termsafe import terminal_safe
from advisor.text import text

MAX_LIMIT = 1_000_000  # SQLite LIMIT takes a 64-bit integer; nobody keeps a million runs
_MARK = {"caveat": "!", "regression": "▼", "improvement": "▲", "change": "•"}
_STATUS = {"complete": "status.done", "aborted": "status.aborted", "failed": "status.failed"}


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments: --limit, --compare RUN_A RUN_B, --json."""
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="how many runs to list (default 20)")
    parser.add_argument("--compare", nargs=2, metavar=("RUN_A", "RUN_B"),
                        help="compare an earlier run A with a later run B (each a run id or a run folder)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    lang.add_option(parser, "language of the table")


def _cells(cell: str) -> int:
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in cell)  # a CJK character takes two terminal columns


def _table(runs: list[RunSummary], language: str = "en") -> str:
    header = tuple(text(language, f"history.{k}") for k in ("run", "created", "status", "verdict", "engine",
                                                            "model", "gpu"))
    def status(word: str) -> str:
        return text(language, _STATUS[word]) if word in _STATUS else word

    def gpu(name: str | None) -> str:
        return text(language, "history.no_gpu") if name == NO_GPU else name or "—"

    rows = [header, *[tuple(terminal_safe(str(c)) for c in (  # escapes counted in the column widths too
        r.run_id, r.created_utc[:19].replace("T", " "), status(r.status),
        text(language, f"verdict.{r.verdict}") if r.verdict else "—", r.engine or "—", r.model or "—",
        gpu(r.gpu))) for r in runs]]
    widths = [max(_cells(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  ".join(cell + " " * (w - _cells(cell)) for cell, w in zip(row, widths, strict=True)).rstrip()
                     for row in rows)


def run(args: argparse.Namespace) -> int:
    """Print the history (an absent database simply means no runs yet)."""
    if not 1 <= args.limit <= MAX_LIMIT:
        raise UserError(f"--limit must be from 1 to {MAX_LIMIT:,}, not {args.limit}")
    path = default_db_path()
    language = lang.resolve(args.lang)
    if args.compare:
        return _compare(args, path, language)
    if not path.exists():
        if args.json:
            jsonout.dump({"runs": []}, sys.stdout)
        else:
            print(text(language, "history.none_at", path=path))
        return 0
    with RunStore(path) as store:
        runs = store.list_runs(args.limit)
        if store.damaged:
            print("spec-advisor: " + text(language, "history.damaged", n=len(store.damaged),
                                          ids=", ".join(store.damaged[:10])), file=sys.stderr)
    if args.json:
        jsonout.dump({"runs": [dataclasses.asdict(r) for r in runs]}, sys.stdout)
    else:
        print(_table(runs, language) if runs else text(language, "history.none"))
    return 0


def _record(store: RunStore | None, ref: str, language: str) -> RunRecord:
    """A run by id from the history, or by its folder (any folder a check wrote: `--out`, the runs folder)."""
    folder = Path(ref).expanduser()
    if folder.exists():
        try:
            return to_record(load_run(folder))
        except RunFolderError as exc:
            raise UserError(str(exc)) from None
    record = store.get_run(ref) if store is not None else None
    if record is None:
        raise UserError(text(language, "history.not_found", run=ref), hint=text(language, "history.not_found_hint"))
    return record


def _compare(args: argparse.Namespace, path: Path, language: str) -> int:
    """`--compare A B`: caveats about either run, then what got worse, changed and got better."""
    store = RunStore(path) if path.exists() else None
    try:
        if store is not None:
            store.open()
        before, after = (_record(store, ref, language) for ref in args.compare)
    finally:
        if store is not None:
            store.close()
    diffs: list[Difference] = compare_runs(before, after, language)
    if args.json:
        jsonout.dump({"differences": [dataclasses.asdict(d) for d in diffs]}, sys.stdout)
    elif not diffs:
        print(text(language, "history.no_diffs"))
    else:
        for d in diffs:
            print(f"{_MARK[d.kind]} {text(language, 'history.' + d.kind):<11} {terminal_safe(d.message)}")
    return 0
