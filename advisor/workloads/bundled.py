"""The bundled prompt library (`library/<category>.jsonl`), shipped as package data."""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Iterable
from importlib import resources
from typing import Final, get_args

from advisor.workloads.errors import WorkloadError
from advisor.workloads.model import CATEGORIES, Category, LibrarySplit, Prompt

_PACKAGE: Final = "advisor.workloads.library"
_FIELDS: Final = frozenset({"id", "category", "prompt", "split"})
_REINSTALL: Final = "reinstall spec-advisor; the bundled prompt library is damaged"


def load_library(split: LibrarySplit | None = None, categories: Iterable[str] | None = None) -> tuple[Prompt, ...]:
    """Bundled prompts in library order (category by category), optionally one split or some categories."""
    if split is not None and split not in get_args(LibrarySplit):
        raise WorkloadError(f"unknown split {split!r}; use 'profile' or 'ab'")
    wanted = _check_categories(categories)
    return tuple(
        p for p in _load_all() if (split is None or p.split == split) and (wanted is None or p.category in wanted)
    )


def _check_categories(categories: Iterable[str] | None) -> frozenset[str] | None:
    if categories is None:
        return None
    # A bare string would otherwise be read as a set of one-letter categories.
    names = [categories] if isinstance(categories, str) else list(categories)
    for name in names:
        if name not in CATEGORIES:
            close = difflib.get_close_matches(name, CATEGORIES, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise WorkloadError(f"unknown prompt category {name!r}", hint=f"{hint}known: {', '.join(CATEGORIES)}")
    return frozenset(names)


@functools.cache
def _load_all() -> tuple[Prompt, ...]:
    prompts: list[Prompt] = []
    for category in CATEGORIES:
        prompts.extend(_load_category(category))
    ids = [p.id for p in prompts]
    if len(set(ids)) != len(ids):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        raise WorkloadError(f"bundled library repeats prompt ids: {', '.join(dupes)}", hint=_REINSTALL)
    return tuple(prompts)


def _load_category(category: Category) -> list[Prompt]:
    name = f"{category}.jsonl"
    try:
        text = resources.files(_PACKAGE).joinpath(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkloadError(f"cannot read bundled prompts {name}: {exc}", hint=_REINSTALL) from exc
    prompts: list[Prompt] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            prompts.append(_parse_record(line, category, f"{name}, line {number}"))
    if not prompts:
        raise WorkloadError(f"bundled prompts {name} are empty", hint=_REINSTALL)
    return prompts


def _parse_record(line: str, category: Category, where: str) -> Prompt:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise WorkloadError(f"{where}: not valid JSON ({exc.msg})", hint=_REINSTALL) from exc
    if not isinstance(record, dict) or set(record) != _FIELDS:
        raise WorkloadError(f"{where}: expected exactly the fields {sorted(_FIELDS)}", hint=_REINSTALL)
    ok = (
        record["category"] == category
        and record["split"] in get_args(LibrarySplit)
        and isinstance(record["id"], str)
        and isinstance(record["prompt"], str)
        and record["prompt"].strip()
    )
    if not ok:
        raise WorkloadError(f"{where}: bad id, category, split or prompt", hint=_REINSTALL)
    return Prompt(id=record["id"], category=category, text=record["prompt"], split=record["split"], source="library")
