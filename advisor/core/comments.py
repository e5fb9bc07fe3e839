"""The comments of a rule or policy file: where each number comes from and why a branch is written as it is.

TOML parsers drop comments, but in `rules/` the comments are the sources (design.md §8: "every threshold carries
a comment saying where the number comes from"), so `rules --tree` and rules/README.md read them here. A key's
note is its inline comment, else the comment lines right above it; a branch's note is every comment line
inside its `[[branch]]` block.
"""

from __future__ import annotations

import re

_TABLE = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$")
_ARRAY_TABLE = re.compile(r"^\s*\[\[\s*([A-Za-z0-9_.-]+)\s*\]\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*=\s*(.*)$")
_ID = re.compile(r"""^\s*id\s*=\s*["']([^"']+)["']""")


def _inline(rest: str) -> str:
    """The comment after a value, outside any quoted string."""
    quote = ""
    for i, ch in enumerate(rest):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return rest[i + 1:].strip()
    return ""


def notes(text: str) -> dict[str, str]:
    """`table.key` → note for keys in plain tables, `branch:ID` → note for each [[branch]] block."""
    out: dict[str, str] = {}
    table = ""
    in_branch = False
    branch_id = ""
    branch_notes: list[str] = []
    pending: list[str] = []

    def close_branch() -> None:
        if in_branch and branch_id and branch_notes:
            out[f"branch:{branch_id}"] = " ".join(branch_notes)

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            comment = stripped.lstrip("#").strip()
            (branch_notes if in_branch else pending).append(comment)
            continue
        if not stripped:
            pending = []
            continue
        if m := _ARRAY_TABLE.match(line):
            close_branch()
            in_branch, branch_id, branch_notes, pending = m.group(1) == "branch", "", [], []
            continue
        if m := _TABLE.match(line):
            close_branch()
            in_branch, table, pending = False, m.group(1), []
            continue
        if in_branch:
            if m := _ID.match(line):
                branch_id = m.group(1)
            continue
        if m := _KEY.match(line):
            note = _inline(m.group(2)) or " ".join(pending)
            if note and table:
                out[f"{table}.{m.group(1)}"] = note
            pending = []
    close_branch()
    return out
