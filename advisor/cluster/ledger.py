"""What a cluster check created or changed, written down before each change, so it can always be undone.

The ledger is `cluster-ledger.json` in the run folder; while it is open, a pointer to it sits in
`<data>/cluster-open/`, so the next `check --llmkube` or `cluster cleanup` finds it after a crash. Each entry is
written (state `pending`) before its API call and marked `done` after it; undoing walks the entries backwards:
a created twin is deleted, a patched service gets its speculation fields, labels and annotations back.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from advisor import paths
from advisor.atomic import write_atomic

LEDGER_FILE = "cluster-ledger.json"
Action = Literal["create", "patch"]
EntryState = Literal["pending", "done", "undone"]


def open_dir() -> Path:
    """Where pointers to open ledgers live."""
    return paths.data_dir() / "cluster-open"


@dataclass
class Entry:
    """One object created or changed."""

    action: Action
    namespace: str
    name: str
    before: dict[str, Any] | None = None     # patch: the speculation fields, labels and annotations before
    state: EntryState = "pending"


@dataclass
class Ledger:
    """The record of one cluster check's changes."""

    path: Path
    api_host: str
    entries: list[Entry] = field(default_factory=list)
    closed: bool = False
    token: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    @classmethod
    def start(cls, run_dir: Path, api_host: str) -> Ledger:
        """A new, empty, open ledger in `run_dir` (written now, with its pointer)."""
        ledger = cls(path=run_dir / LEDGER_FILE, api_host=api_host)
        ledger.save()
        return ledger

    @classmethod
    def load(cls, path: Path) -> Ledger:
        """Read a ledger file."""
        raw = json.loads(path.read_text(encoding="utf-8"))
        entries = [Entry(**e) for e in raw.get("entries", [])]
        return cls(path=path, api_host=str(raw.get("api_host", "")), entries=entries,
                   closed=bool(raw.get("closed")), token=str(raw.get("token") or uuid.uuid4().hex[:12]))

    @property
    def pointer(self) -> Path:
        return open_dir() / f"{self.token}.json"

    def save(self) -> None:
        """Write the ledger (and its pointer while open) atomically."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"api_host": self.api_host, "closed": self.closed, "token": self.token,
                "entries": [asdict(e) for e in self.entries]}
        write_atomic(self.path, json.dumps(data, indent=2) + "\n")
        if self.closed:
            self.pointer.unlink(missing_ok=True)
        else:
            open_dir().mkdir(parents=True, exist_ok=True)
            write_atomic(self.pointer, json.dumps({"ledger": str(self.path)}) + "\n")

    def record(self, entry: Entry) -> Entry:
        """Write `entry` down (pending) before its change is made."""
        self.entries.append(entry)
        self.save()
        return entry

    def mark(self, entry: Entry, state: EntryState) -> None:
        """The change was made (done) or undone."""
        entry.state = state
        self.save()

    def open_entries(self) -> list[Entry]:
        """Entries still to undo, newest first (a pending one may or may not have reached the cluster)."""
        return [e for e in reversed(self.entries) if e.state != "undone"]

    def close(self) -> None:
        """Everything is undone: the ledger stays in the run folder, its pointer goes."""
        self.closed = True
        self.save()


def open_ledgers() -> Iterator[Ledger]:
    """Every ledger left open by a check that did not finish (a crash, a kill, a lost connection)."""
    folder = open_dir()
    if not folder.is_dir():
        return
    for pointer in sorted(folder.glob("*.json")):
        try:
            target = Path(json.loads(pointer.read_text(encoding="utf-8"))["ledger"])
            ledger = Ledger.load(target)
        except (OSError, ValueError, KeyError, TypeError):
            pointer.unlink(missing_ok=True)  # its run folder is gone: the labels still find the objects
            continue
        if ledger.closed:
            pointer.unlink(missing_ok=True)
            continue
        yield ledger
